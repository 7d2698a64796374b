//! Grammars whose error recovery loops: a parse is cut off after a work budget
//! proportional to the file's size, and the file then reads as one with syntax errors
//! (its anchors `unchecked`, never `lost`). Inputs found by fuzzing (`fuzz/regressions/`).

use knit_syntax::{parse, Lang};
use std::time::{Duration, Instant};

/// tree-sitter-kotlin-ng 1.1 spent minutes (unbounded) in error recovery on this file:
/// stray `$` at the top level around half-written functions. The fuzz input's first byte
/// picks the language (7: Kotlin); the rest is the file.
const KOTLIN_LOOP: &[u8] = include_bytes!("../../../fuzz/regressions/syntax/kotlin-grammar-loop");
/// A second one (a half-written class with NUL and 0xFF runs), found after the budget
/// was first set at one report per byte: it then still took 6.7 s (release build).
const KOTLIN_LOOP_2: &[u8] = include_bytes!("../../../fuzz/regressions/syntax/kotlin-grammar-loop-2");

#[test]
fn a_kotlin_file_that_loops_the_grammar_is_cut_off_and_reads_as_broken() {
    let start = Instant::now();
    let source = std::str::from_utf8(&KOTLIN_LOOP[1..]).unwrap();
    let syntax = parse(Lang::Kotlin, source);
    let took = start.elapsed();
    assert!(syntax.has_error);
    // The budget is about a million parser operations here; unbounded, this took minutes.
    assert!(took < Duration::from_secs(20), "parse took {took:?}");
    // The parser is reset after a cut-off parse: the next file parses from scratch.
    let next = parse(Lang::Kotlin, "fun vat() = 20\n");
    assert!(!next.has_error);
    assert_eq!(next.declarations.len(), 1);
}

#[test]
fn a_second_looping_kotlin_file_is_cut_off_too() {
    let start = Instant::now();
    let source = String::from_utf8_lossy(&KOTLIN_LOOP_2[1..]);
    let syntax = parse(Lang::Kotlin, &source);
    let took = start.elapsed();
    assert!(syntax.has_error && !syntax.timed_out);
    assert!(took < Duration::from_secs(20), "parse took {took:?}");
}
