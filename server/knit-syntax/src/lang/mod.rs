//! The language table: which grammar serves which extension, and the shared machinery a
//! language module uses to turn its syntax tree into [`Declaration`]s.
//!
//! A language is one module exporting a [`LanguageSpec`] descriptor (its data, and
//! functions only where it differs) plus one row in [`LANGUAGES`]; nothing else in the
//! engine names languages.
//!
//! Hostile input is bounded here, for every language at once: [`Extract::add`] refuses
//! declarations nested deeper than [`crate::MAX_DECL_DEPTH`] or named beyond the name
//! limits (recording their spans as `too_deep` regions), collects members from the
//! walk's parent links instead of searching, and ticks a [`Clock`] that stops the walk
//! at the deadline.

mod gaps;
mod go;
mod javascript;
mod kotlin;
mod python;
mod rust;
mod swift;
mod typescript;

use crate::decl::{BodyPrint, Declaration, FileSyntax, IdentityKind, Import, Region};
use crate::tokens::{fingerprint_nodes, Clock, KindTable, TokenRules, TokenStreams};
use crate::Fingerprint;
use serde::{Deserialize, Serialize};
use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;
use std::time::{Duration, Instant};
use tree_sitter::{Node, ParseOptions, ParseState, Parser, Tree};

/// A supported source language.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Lang {
    TypeScript,
    Tsx,
    Swift,
    JavaScript,
    Rust,
    Python,
    Go,
    Kotlin,
}

/// What a language module provides: one descriptor value per language, its data in
/// fields and, where it differs from the others, its own functions.
pub(crate) struct LanguageSpec {
    pub lang: Lang,
    /// Lower-case extensions without the dot.
    pub extensions: &'static [&'static str],
    /// The compiled-in tree-sitter grammar.
    pub grammar: fn() -> tree_sitter::Language,
    /// The exact declaration kinds this language reports (the `kind:` of a fragment).
    pub kinds: &'static [&'static str],
    /// How each node's tokens are read into fingerprints (see [`TokenRules`]).
    pub rules: &'static (dyn TokenRules + Sync),
    /// The rules of each earlier print scheme whose prints differ from `rules` (see
    /// [`crate::PRINT_SCHEME`]), by scheme; empty where the language's prints never
    /// changed. A scheme not listed prints as `rules` do.
    pub earlier_rules: &'static [(u8, &'static (dyn TokenRules + Sync))],
    /// Walks the tree and reports declarations through `x`. Walks use explicit work
    /// stacks (never recursion that follows the input's nesting), tick `x` once per
    /// step and stop when it says the deadline passed.
    pub declarations: fn(x: &mut Extract<'_, '_>, root: Node<'_>),
    /// The file's imports, for the context engine.
    pub imports: fn(root: Node<'_>, src: &str) -> Vec<Import>,
    /// Grammar gaps: valid code the grammar cannot read, found in a tree with errors, as
    /// edits that make it readable without moving any byte or line (see [`Repair`];
    /// finders live in `gaps.rs`). The file is parsed again with them; names and
    /// fingerprints are still read from the original text at the same offsets.
    /// [`no_repairs`] for a language without grammar gaps.
    pub repairs: fn(root: Node<'_>, src: &str) -> Vec<Repair>,
    /// Silent gaps: valid code the grammar misreads *without* an error (in Swift a string
    /// that starts with `/*` opens a block comment that swallows the code up to the next
    /// `*/`), as repairs tried on an error-free tree too. Their parse is kept only when it
    /// has no error either and reads more declarations. Found from the text, with the
    /// tree asked only where the text shows the pattern (Kotlin's `by` in a class
    /// header), so an error-free file pays a second parse only when the pattern occurs.
    /// [`no_silent_gaps`] for a language that has none.
    pub silent_gaps: fn(root: Node<'_>, src: &str) -> Vec<Repair>,
    /// Signs, in a tree read without any error, that valid code was misread all the same
    /// (Kotlin: a name spelled like `class` or `fun`), for the coverage benchmark, which
    /// otherwise sees only errors; [`no_misreadings`] where no such sign is known.
    pub misreadings: fn(root: Node<'_>, src: &str, out: &mut Vec<ErrorSite>),
    /// Names the file's declarations are also exported under (`export { a as b }`);
    /// [`no_aliases`] where the language has no such form.
    pub aliases: fn(root: Node<'_>, src: &str) -> Vec<crate::decl::ExportAlias>,
}

/// The [`LanguageSpec::aliases`] of a language without export aliases.
pub(crate) fn no_aliases(_root: Node<'_>, _src: &str) -> Vec<crate::decl::ExportAlias> {
    Vec::new()
}

/// The [`LanguageSpec::silent_gaps`] of a language whose grammar never misreads valid
/// code without saying so.
pub(crate) fn no_silent_gaps(_root: Node<'_>, _src: &str) -> Vec<Repair> {
    Vec::new()
}

/// The [`LanguageSpec::misreadings`] of a language with no known sign of a silent
/// misreading.
pub(crate) fn no_misreadings(_root: Node<'_>, _src: &str, _out: &mut Vec<ErrorSite>) {}

/// The [`LanguageSpec::repairs`] of a language whose grammar reads all its valid code.
pub(crate) fn no_repairs(_root: Node<'_>, _src: &str) -> Vec<Repair> {
    Vec::new()
}

/// One edit of a grammar-gap repair. Neither moves a byte or a line: names, positions and
/// tokens are still read from the original text at the same offsets.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Repair {
    /// The printable ASCII byte at `at` becomes `byte` (printable ASCII too, never a line
    /// break). Overwriting a blank with punctuation the grammar wants (`;`) costs no
    /// token: the original there is blank.
    Overwrite { at: usize, byte: u8 },
    /// The bytes `start..end` — whole tokens, e.g. a keyword the grammar does not know,
    /// and the blanks after them — are hidden from the parser (tree-sitter's included
    /// ranges); their tokens are hashed where they stand, as a grammar that read them
    /// would have.
    Excise { start: usize, end: usize },
}

/// `source` with the overwrites of `repairs` applied and the excised spans (sorted,
/// disjoint, within the text, on character boundaries), or None when a repair is not a
/// like-for-like edit (a language module's bug: the file is then read unrepaired).
fn repaired(source: &str, repairs: &[Repair]) -> Option<(String, Vec<std::ops::Range<usize>>)> {
    let mut bytes = source.as_bytes().to_vec();
    let mut excised: Vec<std::ops::Range<usize>> = Vec::new();
    let printable = |b: u8| b.is_ascii_graphic() || b == b' ';
    for r in repairs {
        match *r {
            Repair::Overwrite { at, byte } => {
                let old = *bytes.get(at)?;
                // A tab is one byte of indentation like a space (immer, and prettier's
                // --use-tabs, indent with tabs); a newline never is overwritten.
                if !(printable(old) || old == b'\t') || !printable(byte) {
                    return None;
                }
                bytes[at] = byte;
            }
            Repair::Excise { start, end } => {
                if start >= end || !source.is_char_boundary(start) || !source.is_char_boundary(end) || end > source.len() {
                    return None;
                }
                excised.push(start..end);
            }
        }
    }
    // Two finders may hide overlapping spans (`#if _runtime(_ObjC)` is a misplaced
    // directive line and holds a condition call): the parser is shown their union, still
    // whole tokens. Rejecting them dropped every repair of such a file (swift-testing).
    excised.sort_by_key(|r| (r.start, std::cmp::Reverse(r.end)));
    let mut merged: Vec<std::ops::Range<usize>> = Vec::with_capacity(excised.len());
    for r in excised {
        match merged.last_mut() {
            Some(last) if r.start < last.end => last.end = last.end.max(r.end),
            _ => merged.push(r),
        }
    }
    Some((String::from_utf8(bytes).ok()?, merged))
}

/// Upper bound on repairs per file: each is a small local overwrite, and a file needing
/// more is not code the repair was made for.
const MAX_REPAIRS: usize = 4096;

/// The table. Order does not matter; extensions must not overlap.
const LANGUAGE_COUNT: usize = 8;
pub(crate) static LANGUAGES: &[&LanguageSpec; LANGUAGE_COUNT] = &[
    &typescript::TYPESCRIPT,
    &typescript::TSX,
    &swift::SWIFT,
    &javascript::JAVASCRIPT,
    &rust::RUST,
    &python::PYTHON,
    &go::GO,
    &kotlin::KOTLIN,
];

/// The token walk's table of `lang`'s node kinds (see [`KindTable`]), built on first use.
/// The rules of every print scheme of the language are asked about the union of their
/// kinds.
fn kind_table(lang: Lang) -> &'static KindTable {
    static TABLES: [std::sync::OnceLock<KindTable>; LANGUAGE_COUNT] = [const { std::sync::OnceLock::new() }; LANGUAGE_COUNT];
    let i = LANGUAGES.iter().position(|s| s.lang == lang).expect("every Lang variant has a row in LANGUAGES");
    TABLES[i].get_or_init(|| {
        let spec = spec(lang);
        let mut kinds: Option<Vec<&str>> = Some(Vec::new());
        for rules in std::iter::once(spec.rules).chain(spec.earlier_rules.iter().map(|(_, r)| *r)) {
            match (rules.rule_kinds(), kinds.as_mut()) {
                (Some(k), Some(all)) => all.extend_from_slice(k),
                _ => kinds = None,
            }
        }
        KindTable::new(&(spec.grammar)(), kinds.as_deref())
    })
}

fn spec(lang: Lang) -> &'static LanguageSpec {
    LANGUAGES
        .iter()
        .copied()
        .find(|s| s.lang == lang)
        .expect("every Lang variant has a row in LANGUAGES")
}

impl Lang {
    /// The language of a path, by extension (case-insensitive).
    pub fn from_path(path: &str) -> Option<Lang> {
        let file = path.rsplit(['/', '\\']).next().unwrap_or(path);
        let ext = file.rsplit_once('.')?.1.to_ascii_lowercase();
        LANGUAGES
            .iter()
            .find(|s| s.extensions.contains(&ext.as_str()))
            .map(|s| s.lang)
    }

    pub fn name(self) -> &'static str {
        match self {
            Lang::TypeScript => "typescript",
            Lang::Tsx => "tsx",
            Lang::Swift => "swift",
            Lang::JavaScript => "javascript",
            Lang::Rust => "rust",
            Lang::Python => "python",
            Lang::Go => "go",
            Lang::Kotlin => "kotlin",
        }
    }

    /// Declaration kinds usable as a fragment's `kind:` prefix.
    pub fn kinds(self) -> &'static [&'static str] {
        spec(self).kinds
    }

    /// Every supported extension (for walkers that pre-filter files).
    pub fn all_extensions() -> Vec<&'static str> {
        LANGUAGES.iter().flat_map(|s| s.extensions.iter().copied()).collect()
    }
}

thread_local! {
    static PARSERS: RefCell<HashMap<Lang, Parser>> = RefCell::new(HashMap::new());
}

/// Runs `f` with this thread's parser for `lang` (created on first use, with tree-sitter's
/// allocations counted by [`crate::parse_memory`]).
fn with_parser<R>(lang: Lang, f: impl FnOnce(&mut Parser) -> R) -> R {
    PARSERS.with(|cell| {
        let mut map = cell.borrow_mut();
        let parser = map.entry(lang).or_insert_with(|| {
            crate::parse_memory::install();
            let mut p = Parser::new();
            // The grammars are compiled in and ABI-checked at build time.
            let _ = p.set_language(&(spec(lang).grammar)());
            p
        });
        f(parser)
    })
}

/// How much work one parse may do: tree-sitter reports progress once per 100 parser
/// operations, and a parse may use one report per `PARSE_REPORTS_PER_BYTE_DIV` bytes of
/// source, plus a floor for small files. Measured on real code (moshi, zod, trpc,
/// swift-collections, ripgrep, httpx: 2 300 files), no file needed more than 0.025
/// reports per byte, so the budget leaves four times that (`knit bench anchors --repo DIR`
/// prints the worst rate of a tree, from [`parse_cost`]). Error recovery in some grammars
/// can loop, and each of its reports costs ~0.6 ms (fuzzing found 900-byte Kotlin files
/// that kept tree-sitter-kotlin-ng busy for minutes; under the budget they stop in well
/// under a second). Counting operations rather than time keeps the outcome a function of
/// the text alone, as the content-keyed parse cache requires.
const PARSE_REPORTS_PER_BYTE_DIV: usize = 10;
const PARSE_REPORTS_FLOOR: usize = 1_000;

/// How long one parse may run, whatever the deadline: a floor plus a share per byte of
/// source. Error recovery in tree-sitter can cost more per operation the longer it goes:
/// 120 KB of `}` lines after `func f() {` took tree-sitter-swift 90 s in under 0.02
/// reports per byte, a comment before each `}` did the same in Python, and `=>` or `]`
/// lines in Kotlin, `func f() {}}` lines in Rust — inputs the work budget lets through,
/// which ate a check's whole time budget (or, with none, minutes; `knit bench
/// pathological --only recovery`). The slowest real files measured parse at 0.26–0.44 µs
/// per byte (swift-nio's `ByteBufferTest.swift`, 196 KB in 51 ms; Effect's `Atom.ts`, 86 KB
/// in 38 ms; on 2026-12-07 the worst of 9 000 code files in six TypeScript code bases was
/// jQuery's minified build at 0.18, okhttp's slowest Kotlin 0.31, swift-collections'
/// slowest Swift 0.28; `knit bench anchors --repo DIR` prints it), so 1.5 µs
/// per byte is over three times the slowest, and with the floor over five times for any
/// file a check reads (at most 1 MiB: 2.6 s against 0.46 s). It sits below the pace of
/// TypeScript's slow but steady recovery (1 MB of `func f() {}}` lines: 3.7 µs a byte,
/// which the 5 µs per byte of 2026-12-06 let run for 4–6 s). A parse past it stops like
/// one past the work budget (`over_budget`, anchors `unchecked` as `too_costly`) and is
/// cached with the text like one: a rerun would cost the same seconds again. It is the
/// one bound that depends on the machine, so a file within a few times of it could read
/// on a faster one. A parse whose pace shows it cannot finish by the cap is stopped when
/// that shows, not at the cap (`crate::parse_pace`): the recovery cases above then stop
/// in their first few hundred milliseconds.
pub const PARSE_MILLIS_FLOOR: u64 = 1_000;
/// See [`PARSE_MILLIS_FLOOR`].
pub const PARSE_NANOS_PER_BYTE: u64 = 1_500;

/// The time cap of one parse of `len` bytes ([`PARSE_MILLIS_FLOOR`]).
pub(crate) fn time_cap(len: usize) -> Duration {
    Duration::from_millis(PARSE_MILLIS_FLOOR) + Duration::from_nanos((len as u64).saturating_mul(PARSE_NANOS_PER_BYTE))
}

/// How much heap one parse may hold: `PARSE_HEAP_BYTES_PER_SOURCE_BYTE` per byte of
/// source plus a floor, counted by [`crate::parse_memory`] at every progress report.
/// Real code holds far less (`knit bench anchors --repo DIR` prints the worst ratio, from
/// [`parse_cost`]); a file of one long expression or deep nesting holds 170–270 bytes per
/// byte, which for a 1 MiB file alone broke the 200 MB bound of a check (DESIGN,
/// hardening). Like the work budget it depends on the text alone (up to a few KiB of
/// parser buffers kept between parses), so its outcome is cached with the text.
pub const PARSE_HEAP_BYTES_PER_SOURCE_BYTE: usize = 96;
/// See [`PARSE_HEAP_BYTES_PER_SOURCE_BYTE`].
pub const PARSE_HEAP_FLOOR: usize = 16 << 20;

/// Why a parse produced no tree.
#[derive(Debug)]
enum NoTree {
    /// The deadline passed (depends on the clock: never cached).
    Deadline,
    /// The work or memory budget ran out (a function of the text), or the parse ran past
    /// its time cap ([`PARSE_NANOS_PER_BYTE`]; real code never comes within three times).
    OverBudget,
}

/// The syntax tree of `source`, or why there is none.
fn parse_tree(lang: Lang, source: &str, deadline: Option<Instant>) -> Result<Tree, NoTree> {
    parse_tree_without(lang, source, deadline, &[])
}

/// [`parse_tree`] with the spans `excised` (sorted, disjoint) hidden from the parser.
fn parse_tree_without(lang: Lang, source: &str, deadline: Option<Instant>, excised: &[std::ops::Range<usize>]) -> Result<Tree, NoTree> {
    let guarded = scanner_guard(lang, source);
    let source: &str = guarded.as_deref().unwrap_or(source);
    with_parser(lang, |parser| {
        if !excised.is_empty() && parser.set_included_ranges(&included_ranges(source, excised)).is_err() {
            return Err(NoTree::OverBudget);
        }
        let budget = PARSE_REPORTS_FLOOR.saturating_add(source.len() / PARSE_REPORTS_PER_BYTE_DIV);
        let heap_budget =
            PARSE_HEAP_FLOOR.saturating_add(source.len().saturating_mul(PARSE_HEAP_BYTES_PER_SOURCE_BYTE)) as isize;
        let heap_start = crate::parse_memory::held();
        let began = Instant::now();
        let mut pace = crate::parse_pace::Pace::new(source.len(), time_cap(source.len()));
        let mut reports = 0usize;
        let mut late = false;
        // tree-sitter calls this every 100 parse operations; true cancels.
        let mut cancel = |state: &ParseState| {
            reports += 1;
            let now = Instant::now();
            late = deadline.is_some_and(|d| now >= d);
            late || pace.hopeless(now.duration_since(began), state.current_byte_offset())
                || reports > budget
                || crate::parse_memory::held() - heap_start > heap_budget
        };
        let bytes = source.as_bytes();
        let tree = parser.parse_with_options(
            &mut |at, _| bytes.get(at..).unwrap_or_default(),
            None,
            Some(ParseOptions::new().progress_callback(&mut cancel)),
        );
        if !excised.is_empty() {
            // Back to the whole text for the next parse on this thread.
            let _ = parser.set_included_ranges(&[]);
        }
        match tree {
            Some(tree) => Ok(tree),
            None => {
                // A cancelled parser resumes where it stopped on its next call unless reset.
                parser.reset();
                Err(if late { NoTree::Deadline } else { NoTree::OverBudget })
            }
        }
    })
}

/// tree-sitter-swift 0.7's external scanner reads past the end of its directive names
/// when a directive word (`#else`, `#endif`) is followed by a NUL byte or by the end of
/// the input: a global-buffer over-read that AddressSanitizer reports (found by the
/// `syntax` fuzz target; a file ending in `#endif` without a line break is enough). The
/// parser is given a text without that shape: NUL bytes become blanks (same length, no
/// offset moves) and a text ending in a directive word gets a line break after it, past
/// the original end. Names and tokens are read from the original text, whose offsets this
/// one shares; every node ends by the original end except the tree's root.
fn scanner_guard(lang: Lang, source: &str) -> Option<String> {
    if lang != Lang::Swift {
        return None;
    }
    let b = source.as_bytes();
    let word = b.iter().rev().take_while(|c| c.is_ascii_alphabetic()).count();
    let ends_in_directive = word > 0 && b.len() > word && b[b.len() - word - 1] == b'#';
    let has_nul = b.contains(&0);
    if !ends_in_directive && !has_nul {
        return None;
    }
    let mut text = if has_nul { source.replace('\0', " ") } else { source.to_string() };
    if ends_in_directive {
        text.push('\n');
    }
    Some(text)
}

/// The complement of `excised` in `source`, as tree-sitter ranges (byte and point).
fn included_ranges(source: &str, excised: &[std::ops::Range<usize>]) -> Vec<tree_sitter::Range> {
    let bytes = source.as_bytes();
    // Points by one scan of the text: row and byte column at each boundary.
    let mut marks: Vec<usize> = Vec::with_capacity(2 * excised.len() + 2);
    marks.push(0);
    for r in excised {
        marks.push(r.start);
        marks.push(r.end);
    }
    marks.push(bytes.len());
    let mut points = Vec::with_capacity(marks.len());
    let (mut row, mut line_start, mut at) = (0usize, 0usize, 0usize);
    for &m in &marks {
        while at < m {
            if bytes[at] == b'\n' {
                row += 1;
                line_start = at + 1;
            }
            at += 1;
        }
        points.push(tree_sitter::Point { row, column: m - line_start });
    }
    let mut out = Vec::with_capacity(excised.len() + 1);
    for k in 0..=excised.len() {
        let (s, e) = (marks[2 * k], marks[2 * k + 1]);
        if s < e {
            out.push(tree_sitter::Range { start_byte: s, end_byte: e, start_point: points[2 * k], end_point: points[2 * k + 1] });
        }
    }
    out
}

/// The tree of `source` and, when it has errors and the language knows a repair, the
/// repaired tree with the spans the repairs hid from the parser (None when no repair
/// applies or the repaired parse stops at its budget). Every name and token is read from
/// the original text, whose offsets the repaired one shares.
type Repaired = Option<(Tree, Vec<std::ops::Range<usize>>)>;

fn trees(lang: Lang, source: &str, deadline: Option<Instant>) -> Result<(Tree, Repaired), NoTree> {
    let tree = parse_tree(lang, source, deadline)?;
    if !tree.root_node().has_error() {
        // Kept (by `read`) only if it reads more declarations; never one with an error, so
        // a real comment opened right after a string (`"a"/* … */`) cannot turn into code.
        let silent = (spec(lang).silent_gaps)(tree.root_node(), source);
        let better = reparse(lang, source, &silent, deadline)?.filter(|(t, _, _)| !t.root_node().has_error());
        return Ok((tree, better.map(|(t, _, excised)| (t, excised))));
    }
    let repairs = (spec(lang).repairs)(tree.root_node(), source);
    let Some((better, text, excised)) = reparse(lang, source, &repairs, deadline)? else { return Ok((tree, None)) };
    if !better.root_node().has_error() {
        return Ok((tree, Some((better, excised))));
    }
    // A second round, once: one gap can hide another from the finders that read the
    // tree's error regions (a JSX `class=` and a bare `&` in the same element). The
    // finders run on the repaired tree and text (same offsets); their new repairs join
    // the first ones, applied to the original text, and the result is kept when it has
    // fewer error sites.
    let first: std::collections::HashSet<&Repair> = repairs.iter().collect();
    let more: Vec<Repair> = (spec(lang).repairs)(better.root_node(), &text).into_iter().filter(|r| !first.contains(r)).collect();
    drop(first);
    if more.is_empty() {
        return Ok((tree, Some((better, excised))));
    }
    let mut all = repairs;
    all.extend(more);
    match reparse(lang, source, &all, deadline)? {
        Some((second, _, excised2)) if error_count(second.root_node()) < error_count(better.root_node()) => Ok((tree, Some((second, excised2)))),
        _ => Ok((tree, Some((better, excised)))),
    }
}

/// `source` parsed again with `repairs` applied: the tree, the repaired text (what the
/// finders of a second round read) and the spans hidden from the parser. None when there
/// are no repairs or more than [`MAX_REPAIRS`], when one is not a like-for-like edit, or
/// when the parse runs over its budget; the deadline is an error, as for the first parse.
fn reparse(lang: Lang, source: &str, repairs: &[Repair], deadline: Option<Instant>) -> Result<Option<(Tree, String, Vec<std::ops::Range<usize>>)>, NoTree> {
    if repairs.is_empty() || repairs.len() > MAX_REPAIRS {
        return Ok(None);
    }
    let Some((text, excised)) = repaired(source, repairs) else { return Ok(None) };
    match parse_tree_without(lang, &text, deadline, &excised) {
        Ok(tree) => Ok(Some((tree, text, excised))),
        Err(NoTree::OverBudget) => Ok(None),
        Err(NoTree::Deadline) => Err(NoTree::Deadline),
    }
}

/// Visits the nodes of the subtrees of `root` that contain a syntax error, depth-first in
/// file order, each with its parent's kind (`"source"` for the root); `visit` says whether
/// to enter the node's children. An explicit stack, and never `.parent()`, which walks
/// from the root.
pub(crate) fn walk_errors<'t>(root: Node<'t>, mut visit: impl FnMut(Node<'t>, &'static str) -> bool) {
    let mut stack = vec![(root, "source")];
    let mut kids: Vec<Node<'t>> = Vec::new();
    while let Some((n, parent)) = stack.pop() {
        if !n.has_error() || !visit(n, parent) {
            continue;
        }
        let mut c = n.walk();
        kids.clear();
        kids.extend(n.children(&mut c));
        stack.extend(kids.iter().rev().map(|&k| (k, n.kind())));
    }
}

/// ERROR and MISSING nodes of a tree (not counting inside an ERROR).
fn error_count(root: Node<'_>) -> usize {
    let mut n = 0;
    walk_errors(root, |node, _| {
        let site = node.is_error() || node.is_missing();
        n += site as usize;
        !site
    });
    n
}

/// Counts of the work one parse did (see [`crate::parse_counting`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Work {
    /// Calls of the language's token rules (one per syntax node walked whose kind they
    /// ask about, see `TokenRules::rule_kinds`).
    pub rule_calls: u64,
    /// Every other unit of work: nodes visited, tokens hashed, declarations examined,
    /// signature bytes read, members collected.
    pub steps: u64,
}

pub(crate) fn parse(lang: Lang, source: &str, deadline: Option<Instant>) -> (FileSyntax, Work) {
    read(lang, source, deadline, crate::PRINT_SCHEME, false).0
}

/// The language's prints under print scheme `scheme` differ from the current ones.
pub(crate) fn has_earlier_rules(lang: Lang, scheme: u8) -> bool {
    spec(lang).earlier_rules.iter().any(|(s, _)| *s == scheme)
}

/// [`parse`] with the token rules of print scheme `scheme`.
pub(crate) fn parse_scheme(lang: Lang, source: &str, deadline: Option<Instant>, scheme: u8) -> (FileSyntax, Work) {
    read(lang, source, deadline, scheme, false).0
}

/// [`parse`], and — when `keep_tree` — the tree it read (the repaired one when a repair was
/// kept; None when the parse stopped at the deadline or a budget).
fn read(lang: Lang, source: &str, deadline: Option<Instant>, scheme: u8, keep_tree: bool) -> ((FileSyntax, Work), Option<Tree>) {
    let spec = spec(lang);
    let rules = spec.earlier_rules.iter().find(|(s, _)| *s == scheme).map_or(spec.rules, |(_, r)| *r);
    let (plain, repaired) = match trees(lang, source, deadline) {
        Ok(t) => t,
        Err(NoTree::Deadline) => {
            return ((FileSyntax { has_error: true, timed_out: true, ..FileSyntax::default() }, Work::default()), None)
        }
        Err(NoTree::OverBudget) => {
            return ((FileSyntax { has_error: true, over_budget: true, ..FileSyntax::default() }, Work::default()), None)
        }
    };
    let extract = |tree: &Tree, excised: Vec<std::ops::Range<usize>>| {
        let root = tree.root_node();
        let mut x = Extract::new(source, rules, kind_table(lang), root, deadline, excised);
        (spec.declarations)(&mut x, root);
        let (mut syntax, work) = x.finish(root.has_error());
        if !syntax.timed_out {
            syntax.aliases = (spec.aliases)(root, source);
        }
        (syntax, work)
    };
    let Some((better, excised)) = repaired else { return (extract(&plain, Vec::new()), keep_tree.then_some(plain)) };
    if plain.root_node().has_error() && !better.root_node().has_error() {
        // An error-free repaired reading is kept whatever the plain one, which has errors,
        // holds, even more declarations: those are the error recovery's inventions
        // (kotlinx.coroutines' LintTest read as a file-wide error holds a spurious third
        // one). The plain tree is dropped unread, so a large file with one gap costs one
        // extraction and one tree's memory, not two. (A silent gap's repair, on an
        // error-free plain tree, is weighed below: kept only if it reads more.)
        drop(plain);
        return (extract(&better, excised), keep_tree.then_some(better));
    }
    // A repair is kept when it lets more declarations be checked: fewer with an error in
    // their range, then more declarations, then fewer error sites. (Fewer error sites
    // alone is not enough: recovery can spread one error over more declarations than
    // several.) A caller that does not want the tree has the plain one dropped once it is
    // read, before the repaired one is: two trees and two readings of a large file are
    // not held at once.
    let plain_errors = error_count(plain.root_node());
    let first = extract(&plain, Vec::new());
    let plain = keep_tree.then_some(plain);
    let better_errors = error_count(better.root_node());
    let second = extract(&better, excised);
    let score = |f: &FileSyntax, errors: usize| (f.declarations.iter().filter(|d| d.has_error).count(), usize::MAX - f.declarations.len(), errors);
    if second.0.timed_out || score(&second.0, better_errors) >= score(&first.0, plain_errors) {
        return (first, plain);
    }
    (second, keep_tree.then_some(better))
}

/// What a full parse of `source` costs, without a budget: calibrates the budgets against
/// real code (benchmarks).
#[doc(hidden)]
#[derive(Clone, Copy, Debug, Default)]
pub struct ParseCost {
    /// Progress reports (one per 100 parser operations).
    pub reports: usize,
    /// The most heap tree-sitter held at any report or at the end (0 where not counted).
    pub peak_heap_bytes: usize,
    /// Wall-clock time of the parse (the one cost that depends on the machine).
    pub elapsed: Duration,
}

#[doc(hidden)]
pub fn parse_cost(lang: Lang, source: &str) -> ParseCost {
    with_parser(lang, |parser| {
        let start = crate::parse_memory::held();
        let mut cost = ParseCost::default();
        let mut count = |_: &ParseState| {
            cost.reports += 1;
            cost.peak_heap_bytes = cost.peak_heap_bytes.max((crate::parse_memory::held() - start).max(0) as usize);
            false
        };
        let bytes = source.as_bytes();
        let began = Instant::now();
        let tree = parser.parse_with_options(
            &mut |at, _| bytes.get(at..).unwrap_or_default(),
            None,
            Some(ParseOptions::new().progress_callback(&mut count)),
        );
        cost.elapsed = began.elapsed();
        cost.peak_heap_bytes = cost.peak_heap_bytes.max((crate::parse_memory::held() - start).max(0) as usize);
        drop(tree);
        cost
    })
}

/// One place where the grammar could not read a file: the smallest ERROR or MISSING node.
#[doc(hidden)]
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ErrorSite {
    /// 1-based line of the error's start.
    pub line: u32,
    /// 1-based line of the error's end (inclusive): an error node can span many lines,
    /// swallowing declarations whole.
    pub end_line: u32,
    /// The named node the error sits in (`interface_body`, `class_body`, …), with
    /// `missing ` before the kind of a node the parser had to invent.
    pub construct: String,
}

/// [`parse`], and where the grammar could not read `source` in the tree that parse read
/// (after the language's repairs): every ERROR node not inside another, every MISSING
/// node, and every node whose error lies in a hidden child (a MISSING token of a hidden
/// rule, which no child iteration shows: `missing in class_body`), in file order; then
/// the signs of a silent misreading in that tree ([`LanguageSpec::misreadings`]). None
/// when the parse stopped at a budget. For the coverage benchmark, which thus parses each
/// file once.
#[doc(hidden)]
pub fn parse_reporting_errors(lang: Lang, source: &str) -> (FileSyntax, Vec<ErrorSite>, Vec<ErrorSite>) {
    let ((syntax, _), tree) = read(lang, source, None, crate::PRINT_SCHEME, true);
    let (mut sites, mut misread) = (Vec::new(), Vec::new());
    if let Some(tree) = tree {
        let site = |n: Node<'_>, construct: String| ErrorSite { line: n.start_position().row as u32 + 1, end_line: n.end_position().row as u32 + 1, construct };
        walk_errors(tree.root_node(), |n, parent| {
            if n.is_error() || n.is_missing() {
                sites.push(site(n, if n.is_missing() { format!("missing {} in {parent}", n.kind()) } else { parent.to_string() }));
                return false;
            }
            let mut c = n.walk();
            if !n.children(&mut c).any(|k| k.has_error()) {
                sites.push(site(n, format!("missing in {}", n.kind())));
                return false;
            }
            true
        });
        (spec(lang).misreadings)(tree.root_node(), source, &mut misread);
    }
    (syntax, sites, misread)
}

/// A tree without any budget, for this crate's tests.
#[cfg(test)]
pub(crate) fn tree_for_tests(lang: Lang, source: &str) -> Option<Tree> {
    with_parser(lang, |parser| parser.parse(source, None))
}

/// Parses and discards the result: the parse-only baseline of the benchmarks.
pub fn parse_only(lang: Lang, source: &str) -> bool {
    parse_tree(lang, source, None).map(|t| t.root_node().has_error()).unwrap_or(true)
}

pub(crate) fn imports(lang: Lang, source: &str) -> Vec<Import> {
    let spec = spec(lang);
    let deadline = Instant::now().checked_add(crate::IMPORTS_PARSE_LIMIT);
    match parse_tree(lang, source, deadline) {
        Ok(t) => (spec.imports)(t.root_node(), source),
        Err(_) => Vec::new(),
    }
}

/// A declaration as a language module describes it; [`Extract::add`] computes the rest.
pub(crate) struct DeclSpec<'t> {
    pub kind: &'static str,
    pub identity: IdentityKind,
    /// Simple name (`blend(first:second:)`, `get`-less accessor name, …).
    pub name: String,
    /// Nodes whose tokens make up the declaration, in order (decorators, `export`
    /// wrapper, overload signatures, the declaration itself).
    pub nodes: Vec<Node<'t>>,
    /// The name token, excluded from the body print and used for go-to-definition.
    pub name_node: Option<Node<'t>>,
    /// The body for the name-independent print.
    pub body: Option<Node<'t>>,
}

/// What encloses the declarations a walker is about to report: a declaration of the
/// file (its members are collected from this link, not by searching), or only a name (a
/// Go receiver type, a Kotlin extension's receiver). Cheap to clone: walkers hand it to
/// every child they visit.
#[derive(Clone)]
pub(crate) struct Parent(Rc<ParentData>);

struct ParentData {
    name: String,
    /// Declarations from the file's top level down to this one (a name-only parent is 0).
    depth: u32,
    /// Index of the declaration in [`Extract`]'s output (None for a name-only parent).
    decl: Option<usize>,
}

impl Parent {
    /// A container that is not a declaration of this file.
    pub fn named(name: impl Into<String>) -> Parent {
        Parent(Rc::new(ParentData { name: name.into(), depth: 0, decl: None }))
    }

    pub fn name(&self) -> &str {
        &self.0.name
    }
}

/// What a body print depends on: identity (the digest's domain), body node, and the
/// skipped name's span when it lies inside the body.
type BodyKey = (IdentityKind, usize, Option<(usize, usize)>);

/// The tokens of a multi-name declaration (`var a, b = …`, `x = y = …`, Swift
/// `case a, b`) are the same for every name: each is hashed once, not once per name,
/// which would be quadratic in the number of names.
#[derive(Default)]
struct LastPrints {
    decl: Option<(Vec<usize>, Fingerprint)>,
    body: Option<(BodyKey, BodyPrint)>,
    /// (header start, header end, where reading stopped) → signature.
    signature: Option<(usize, usize, usize, String)>,
}

/// Accumulates a file's declarations.
pub(crate) struct Extract<'s, 't> {
    pub src: &'s str,
    rules: &'s dyn TokenRules,
    out: Vec<Declaration>,
    /// Parallel to `out`: the declaration each one was reported under.
    parents: Vec<Option<usize>>,
    streams: TokenStreams<'t>,
    clock: Clock,
    too_deep: Vec<Region>,
    /// Bytes of qualified and container names stored so far, and the most allowed.
    name_bytes: usize,
    name_budget: usize,
    /// At most this many declarations (see [`crate::SOURCE_BYTES_PER_DECL`]).
    decl_budget: usize,
    last: LastPrints,
}

/// Characters of a declaration's signature (its header, whitespace collapsed).
const SIGNATURE_CHARS: usize = 200;
/// Source bytes read for one signature: it is display text, and reading every header to
/// its end is quadratic when headers overlap (`var a = 1, b = 2, …` share `var`).
const SIGNATURE_SOURCE_BYTES: usize = 16 * 1024;

impl<'s, 't> Extract<'s, 't> {
    fn new(src: &'s str, rules: &'s dyn TokenRules, kinds: &'static KindTable, root: Node<'t>, deadline: Option<Instant>, excised: Vec<std::ops::Range<usize>>) -> Self {
        Extract {
            src,
            rules,
            out: Vec::new(),
            parents: Vec::new(),
            streams: TokenStreams::new(root, kinds, excised),
            clock: Clock::new(deadline),
            too_deep: Vec::new(),
            name_bytes: 0,
            name_budget: crate::NAME_BYTES_PER_SOURCE_BYTE * src.len() + crate::NAME_BYTES_SLACK,
            decl_budget: src.len() / crate::SOURCE_BYTES_PER_DECL + crate::DECLS_SLACK,
            last: LastPrints::default(),
        }
    }

    pub fn text(&self, node: Node) -> &'s str {
        self.src.get(node.byte_range()).unwrap_or("")
    }

    /// Counts one step of a declaration walker; true once the deadline has passed (the
    /// walker then stops: the file is reported as cut short).
    pub fn tick(&mut self) -> bool {
        self.clock.tick(1)
    }

    /// Records a declaration under `parent`. Returns the parent its own members are to be
    /// reported under, or None when it was not recorded: nested deeper than
    /// [`crate::MAX_DECL_DEPTH`], a name over [`crate::MAX_NAME_BYTES`], the file's name
    /// budget spent (its span is then a `too_deep` region and its members are not
    /// walked), or the deadline passed.
    pub fn add(&mut self, parent: Option<&Parent>, d: DeclSpec<'_>) -> Option<Parent> {
        if self.clock.tick(1) {
            return None;
        }
        if d.name.trim().is_empty() || d.name.trim() != d.name || d.name.chars().any(char::is_control) {
            // A name the parser made up while recovering from an error (a MISSING
            // identifier, or text swept into the name node): nothing a fragment could
            // designate. Fuzzing found both. Blanks inside a name stay (Kotlin's and
            // Swift's backticked names).
            return None;
        }
        let container = parent.map(|p| p.name());
        let depth = parent.map_or(0, |p| p.0.depth) + 1;
        let (Some(first), Some(last)) = (d.nodes.first().copied(), d.nodes.last().copied()) else {
            let qualified = match container {
                Some(c) => format!("{c}.{}", d.name),
                None => d.name,
            };
            return Some(Parent(Rc::new(ParentData { name: qualified, depth, decl: None })));
        };
        let start_byte = d.nodes.iter().map(|n| n.start_byte()).min().unwrap_or(first.start_byte());
        let end_byte = d.nodes.iter().map(|n| n.end_byte()).max().unwrap_or(last.end_byte());
        let start_row = d.nodes.iter().map(|n| n.start_position().row).min().unwrap_or(0);
        let end_row = d.nodes.iter().map(|n| n.end_position().row).max().unwrap_or(0);
        let name_cost = container.map_or(0, |c| 2 * c.len() + 1) + d.name.len();
        if depth > crate::MAX_DECL_DEPTH
            || d.name.len() > crate::MAX_NAME_BYTES
            || self.name_bytes + name_cost > self.name_budget
            || self.out.len() >= self.decl_budget
        {
            self.too_deep.push(Region { start_byte: start_byte as u32, end_byte: end_byte as u32, start_line: start_row as u32 + 1 });
            return None;
        }
        self.name_bytes += name_cost;
        let qualified = match container {
            Some(c) => format!("{c}.{}", d.name),
            None => d.name,
        };
        let fingerprint = self.decl_print(&d.nodes)?;
        let body = match d.body {
            Some(b) => Some(self.body_print(d.identity, b, d.name_node)?),
            None => None,
        };
        // A span a repair hid right after the declaration, on its line, continues it (a
        // Swift type alias's `where` clause) though no node of it holds those tokens: its
        // print would miss them, so it is not trusted.
        let has_error = d.nodes.iter().any(|n| n.has_error()) || self.streams.excised_right_after(self.src, end_byte);
        let name_node = d.name_node.unwrap_or(last);
        let header_end = d.body.map(|b| b.start_byte()).unwrap_or(end_byte).max(start_byte);
        let signature = self.signature(start_byte, header_end);
        self.out.push(Declaration {
            kind: d.kind.to_string(),
            identity: d.identity,
            qualified_name: qualified.clone(),
            container: container.map(str::to_string),
            start_line: start_row as u32 + 1,
            end_line: end_row as u32 + 1,
            name_line: name_node.start_position().row as u32 + 1,
            name_column: name_node.start_position().column as u32,
            start_byte: start_byte as u32,
            end_byte: end_byte as u32,
            fingerprint,
            body,
            has_error,
            members: Vec::new(),
            signature,
        });
        self.parents.push(parent.and_then(|p| p.0.decl));
        Some(Parent(Rc::new(ParentData { name: qualified, depth, decl: Some(self.out.len() - 1) })))
    }

    fn decl_print(&mut self, nodes: &[Node]) -> Option<Fingerprint> {
        let ids: Vec<usize> = nodes.iter().map(|n| n.id()).collect();
        if let Some((last_ids, fp)) = &self.last.decl {
            if *last_ids == ids {
                return Some(*fp);
            }
        }
        let (fp, _) = fingerprint_nodes("decl", nodes, self.src, self.rules, None, &mut self.streams, &mut self.clock)?;
        self.last.decl = Some((ids, fp));
        Some(fp)
    }

    fn body_print(&mut self, identity: IdentityKind, body: Node, name: Option<Node>) -> Option<BodyPrint> {
        let skip = name.map(|n| n.byte_range());
        // The skipped name only matters when it lies inside the body.
        let inside = skip.clone().filter(|r| r.start < body.end_byte() && r.end > body.start_byte()).map(|r| (r.start, r.end));
        let key = (identity, body.id(), inside);
        if let Some((k, print)) = &self.last.body {
            if *k == key {
                return Some(*print);
            }
        }
        let domain = format!("body:{identity:?}");
        let (fingerprint, tokens) =
            fingerprint_nodes(&domain, &[body], self.src, self.rules, skip, &mut self.streams, &mut self.clock)?;
        let print = BodyPrint { fingerprint, tokens };
        self.last.body = Some((key, print));
        Some(print)
    }

    /// The header `src[start..end]` with whitespace collapsed, at most
    /// [`SIGNATURE_CHARS`] characters read from at most [`SIGNATURE_SOURCE_BYTES`].
    fn signature(&mut self, start: usize, end: usize) -> String {
        if let Some((s, e, read, sig)) = &self.last.signature {
            // The same header, or the previous one stopped reading at `read` before its
            // end and this one, from the same start, reaches at least as far: the same
            // characters are read.
            if *s == start && (*e == end || (*read < *e && end >= *read)) {
                return sig.clone();
            }
        }
        let stop = end.min(start + SIGNATURE_SOURCE_BYTES);
        let header = self.src.get(start..end).unwrap_or("");
        let mut out = String::new();
        let mut chars = 0;
        let mut space = false;
        let mut read = end;
        for (i, c) in header.char_indices() {
            if start + i >= stop || chars > SIGNATURE_CHARS {
                read = start + i;
                break;
            }
            if c.is_whitespace() {
                space = chars > 0;
            } else {
                if space {
                    out.push(' ');
                    chars += 1;
                    space = false;
                }
                out.push(c);
                chars += 1;
            }
        }
        self.clock.tick((read - start) as u64 / 64);
        if chars > SIGNATURE_CHARS || read < end {
            out = out.chars().take(SIGNATURE_CHARS - 1).collect::<String>() + "…";
        }
        self.last.signature = Some((start, end, read, out.clone()));
        out
    }

    /// Sorts by position and fills each container's member list: the declarations
    /// reported under it that lie inside its span (a struct and its extension stay
    /// apart). Returns the file's syntax, or an empty one marked `timed_out` when the
    /// deadline passed.
    fn finish(mut self, has_error: bool) -> (FileSyntax, Work) {
        let work = |c: &Clock| Work { rule_calls: c.rule_calls, steps: c.steps };
        if self.clock.expired() {
            let w = work(&self.clock);
            return (FileSyntax { has_error, timed_out: true, ..FileSyntax::default() }, w);
        }
        let n = self.out.len();
        let mut order: Vec<usize> = (0..n).collect();
        order.sort_by_key(|&i| (self.out[i].start_byte, std::cmp::Reverse(self.out[i].end_byte)));
        let mut rank = vec![0; n];
        for (r, &i) in order.iter().enumerate() {
            rank[i] = r;
        }
        let mut members: Vec<Vec<(String, Fingerprint)>> = vec![Vec::new(); n];
        for &m in &order {
            let Some(p) = self.parents[m] else { continue };
            let (pd, md) = (&self.out[p], &self.out[m]);
            if rank[m] > rank[p] && md.start_byte < pd.end_byte && md.start_byte >= pd.start_byte && md.end_byte <= pd.end_byte {
                members[p].push((md.simple_name().to_string(), md.fingerprint));
            }
        }
        self.clock.tick(n as u64);
        let mut slots: Vec<Option<Declaration>> = self.out.into_iter().map(Some).collect();
        let declarations = order
            .iter()
            .filter_map(|&i| {
                let mut d = slots[i].take()?;
                d.members = std::mem::take(&mut members[i]);
                Some(d)
            })
            .collect();
        let w = work(&self.clock);
        (FileSyntax { declarations, has_error, too_deep: self.too_deep, ..FileSyntax::default() }, w)
    }
}

/// Named children of a node, comments excluded.
/// The one named child of `node` that is not a comment, if it has exactly one; without
/// the list [`named_children`] allocates (token rules ask this of every parenthesis).
pub(crate) fn only_named_child(node: Node<'_>) -> Option<Node<'_>> {
    match node.named_child_count() {
        0 => None,
        1 => node.named_child(0).filter(|n| !crate::tokens::is_comment(*n)),
        _ => match named_children(node).as_slice() {
            [one] => Some(*one),
            _ => None,
        },
    }
}

pub(crate) fn named_children<'t>(node: Node<'t>) -> Vec<Node<'t>> {
    let mut c = node.walk();
    node.named_children(&mut c).filter(|n| !crate::tokens::is_comment(*n)).collect()
}

/// All children (anonymous too).
/// Calls `visit` on each node from `root` down to the innermost one holding byte `at`,
/// outermost first: a descent by cursor, never `parent()` (which walks from the root per
/// call). Finders that need a repair site's context ask this a bounded number of times.
pub(crate) fn descend_to<'t>(root: Node<'t>, at: usize, mut visit: impl FnMut(Node<'t>)) {
    let mut cursor = root.walk();
    loop {
        visit(cursor.node());
        if cursor.goto_first_child_for_byte(at).is_none() || cursor.node().start_byte() > at {
            break;
        }
    }
}

/// Visits the leaves under `node` (itself, when it has no children) in file order, each
/// with its parent's kind (`""` for `node` itself): one cursor and a stack of kinds, never
/// `.parent()`, which walks down from the root again (quadratic in a deep tree).
pub(crate) fn for_each_leaf<'t>(node: Node<'t>, mut visit: impl FnMut(Node<'t>, &'static str)) {
    let mut c = node.walk();
    let mut kinds: Vec<&'static str> = Vec::new();
    loop {
        if c.node().child_count() == 0 {
            visit(c.node(), kinds.last().copied().unwrap_or(""));
        } else {
            kinds.push(c.node().kind());
            if c.goto_first_child() {
                continue;
            }
            kinds.pop();
        }
        while !c.goto_next_sibling() {
            if !c.goto_parent() {
                return;
            }
            kinds.pop();
        }
    }
}

pub(crate) fn children<'t>(node: Node<'t>) -> Vec<Node<'t>> {
    let mut c = node.walk();
    node.children(&mut c).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_deadline_is_checked_inside_a_files_walk() {
        // Parsed without a deadline; extracted under one already passed: the walk itself
        // must notice and report the file as cut short, not as declaring nothing.
        let src = "export function f(a: number) { return [a, a + 1, (a * 2)]; }\n".repeat(500);
        let tree = parse_tree(Lang::TypeScript, &src, None).expect("tree");
        let mut x = Extract::new(&src, spec(Lang::TypeScript).rules, kind_table(Lang::TypeScript), tree.root_node(), Some(Instant::now()), Vec::new());
        (spec(Lang::TypeScript).declarations)(&mut x, tree.root_node());
        let (fs, work) = x.finish(false);
        assert!(fs.timed_out && fs.declarations.is_empty());
        let (full, full_work) = parse(Lang::TypeScript, &src, None);
        assert_eq!(full.declarations.len(), 500);
        assert!(work.steps < full_work.steps, "the walk stopped early: {work:?} of {full_work:?}");
    }

    /// Fingerprints of `nodes` of `src`'s tree read from one stream, in the order given;
    /// and the steps the stream's walk took.
    fn prints_in_order(lang: Lang, src: &str, pick: fn(Node) -> Vec<Node>) -> (Vec<Fingerprint>, u64) {
        let tree = parse_tree(lang, src, None).expect("tree");
        let mut streams = TokenStreams::new(tree.root_node(), kind_table(lang), Vec::new());
        let mut clock = Clock::new(None);
        let prints = pick(tree.root_node())
            .into_iter()
            .map(|n| fingerprint_nodes("decl", &[n], src, spec(lang).rules, None, &mut streams, &mut clock).expect("no deadline").0)
            .collect();
        (prints, clock.steps)
    }

    #[test]
    fn a_print_walks_only_the_top_level_code_it_needs_and_is_the_same_as_a_whole_walk() {
        // A test file: a large top-level call no declaration holds, then a function. The
        // function's print passes the call over (fewer steps than walking it) and equals
        // the print of the same function in a stream that walked everything before it.
        let call = format!("describe(\"suite\", () => {{\n{}}});\n", "  it(\"works\", () => { expect(f(1, [2, 3])).toBe((4)); });\n".repeat(200));
        let func = "export function f(a: number, b: number[],) { return (a) + b.length; }\n";
        let src = format!("import {{ x }} from \"./x\";\n{call}{func}");
        fn last_child(root: Node) -> Vec<Node> {
            vec![root.named_child(root.named_child_count() - 1).unwrap()]
        }
        fn every_child(root: Node) -> Vec<Node> {
            (0..root.named_child_count()).map(|i| root.named_child(i).unwrap()).collect()
        }
        let (lazy, lazy_steps) = prints_in_order(Lang::TypeScript, &src, last_child);
        let (whole, whole_steps) = prints_in_order(Lang::TypeScript, &src, every_child);
        assert_eq!(lazy[0], *whole.last().unwrap(), "the same tokens, walked or not before it");
        assert!(lazy_steps * 10 < whole_steps, "the call was passed over: {lazy_steps} steps against {whole_steps}");
        // The same function alone in a file prints the same.
        let (alone, _) = prints_in_order(Lang::TypeScript, func, last_child);
        assert_eq!(lazy[0], alone[0]);
    }

    #[test]
    fn a_print_asked_out_of_order_reads_code_that_was_passed_over() {
        // The second statement first (the first is passed over), then the first: the
        // stream starts again and passes nothing over, so both prints are exact.
        let src = "const a = [1, 2,];\nconst b = { k: (1) };\n";
        fn backwards(root: Node) -> Vec<Node> {
            vec![root.named_child(1).unwrap(), root.named_child(0).unwrap()]
        }
        fn forwards(root: Node) -> Vec<Node> {
            vec![root.named_child(0).unwrap(), root.named_child(1).unwrap()]
        }
        let (back, _) = prints_in_order(Lang::TypeScript, src, backwards);
        let (fwd, _) = prints_in_order(Lang::TypeScript, src, forwards);
        assert_eq!((back[0], back[1]), (fwd[1], fwd[0]));
        assert_ne!(fwd[0], fwd[1]);
    }

    #[test]
    fn the_kind_table_names_every_node_as_tree_sitter_does() {
        // The walk reads kind names from the table by kind id; a grammar's aliases
        // (`property_identifier`, `type_identifier`) and error nodes must come out as
        // `Node::kind` says, and every comment is known as one.
        let samples: &[(Lang, &str)] = &[
            (Lang::TypeScript, "/** doc */ export class A<T> extends B { x: T = 1; m(a: string): T { return this.x as T; } } // c\nconst o = { 'k': 1, k2: `t${1}` }; let ) broken\n"),
            (Lang::Tsx, "const v = <div a=\"1\">{/* c */ x}</div>;\nlet ) x\n"),
            (Lang::JavaScript, "class A { #p = 1; get g() { return /re/g; } } // c\nlet ) x\n"),
            (Lang::Rust, "/// d\nimpl<T> S<T> { fn f(&self) -> u8 { match x { 1 => 2, _ => { 3 } } } } /* b */ fn (\n"),
            (Lang::Swift, "struct S { var a: Int { get { return 1 } } } // c\nfunc f() { if (a) {} } func (\n"),
            (Lang::Python, "class A:\n    def f(self, x=(1,)):  # c\n        return f\"{x}\"\ndef (\n"),
            (Lang::Go, "package p\n// c\nfunc (r *R) F() int { return (1) }\nfunc (\n"),
            (Lang::Kotlin, "class A { fun f(): String = \"$x\" } // c\nfun (\n"),
        ];
        for (lang, src) in samples {
            let tree = parse_tree(*lang, src, None).unwrap();
            let table = kind_table(*lang);
            let mut c = tree.walk();
            let mut seen = 0;
            'walk: loop {
                let node = c.node();
                let facts = table.facts_for_tests(node);
                assert_eq!(facts.0, node.kind(), "{lang:?}: kind id {}", node.kind_id());
                assert_eq!(facts.1, crate::tokens::is_comment(node), "{lang:?}: {}", node.kind());
                seen += 1;
                if c.goto_first_child() {
                    continue;
                }
                while !c.goto_next_sibling() {
                    if !c.goto_parent() {
                        break 'walk;
                    }
                }
            }
            assert!(seen > 20 && tree.root_node().has_error(), "{lang:?}: the sample has an error node and a few kinds");
        }
    }

    /// What `parse` gives without the language's repairs (the tree as the grammar reads
    /// the text, errors and all).
    fn parse_unrepaired(lang: Lang, src: &str) -> FileSyntax {
        let tree = parse_tree(lang, src, None).unwrap();
        let mut x = Extract::new(src, spec(lang).rules, kind_table(lang), tree.root_node(), None, Vec::new());
        (spec(lang).declarations)(&mut x, tree.root_node());
        x.finish(tree.root_node().has_error()).0
    }

    #[test]
    fn the_swift_empty_tuple_repair_clears_the_error_and_keeps_every_fingerprint() {
        let src = "final class Reply {\n    func finish() {\n        promise.succeed(())\n    }\n    func reset() -> Void { return () }\n    func other() -> Int { return 1 }\n}\n";
        let plain = parse_unrepaired(Lang::Swift, src);
        assert!(plain.has_error, "the grammar gap is still there: no repair needed any more?");
        let read = parse(Lang::Swift, src, None).0;
        assert!(!read.has_error, "{read:#?}");
        assert!(read.declarations.iter().all(|d| !d.has_error));
        // Baselines recorded before the repair (tokens of the unrepaired tree, the
        // invented operand skipped) still match: the same leaves, read from the same text.
        let prints = |f: &FileSyntax| f.declarations.iter().map(|d| (d.qualified_name.clone(), d.fingerprint)).collect::<Vec<_>>();
        assert_eq!(prints(&plain), prints(&read));
    }

    /// The source's own tokens as a right grammar would give them: words, the operators
    /// below, every other character alone; comments, blanks and `;` dropped.
    fn lexical_tokens(src: &str) -> Vec<String> {
        const OPS: [&str; 11] = ["...", "..<", "->", "::", "&&", "||", ">=", "<=", "==", "!=", "+="];
        let word = |c: char| c.is_alphanumeric() || c == '_';
        let mut out = Vec::new();
        let mut rest = src;
        while let Some(c) = rest.chars().next() {
            if rest.starts_with("//") {
                rest = rest.find('\n').map_or("", |n| &rest[n..]);
                continue;
            }
            let len = if let Some(op) = OPS.iter().find(|op| rest.starts_with(**op)) {
                op.len()
            } else if word(c) || (c == '#' && rest[1..].starts_with(char::is_alphabetic) && !rest.starts_with("#available") && !rest.starts_with("#unavailable")) {
                // (tree-sitter-swift reads `#available` as `#` and a word; `#if` as one)
                1 + rest[1..].find(|d: char| !word(d)).unwrap_or(rest.len() - 1)
            } else {
                c.len_utf8()
            };
            if !c.is_whitespace() && c != ';' {
                out.push(rest[..len].to_string());
            }
            rest = &rest[len..];
        }
        out
    }

    /// Each Swift grammar gap (gaps.rs) is cleared by its repair, and the repaired stream
    /// hashes exactly the source's own tokens — excised ones where they stand, overwritten
    /// bytes as the original text — which is what a grammar that read the construct would
    /// hash. So no fingerprint depends on whether the file needed a repair.
    #[test]
    fn swift_texts_the_scanner_would_read_past_are_guarded() {
        assert_eq!(scanner_guard(Lang::Swift, "#if X\nlet a = 1\n#endif").as_deref(), Some("#if X\nlet a = 1\n#endif\n"));
        assert_eq!(scanner_guard(Lang::Swift, "let a = \"\0\"\n#else\0").as_deref(), Some("let a = \" \"\n#else "));
        assert!(scanner_guard(Lang::Swift, "let a = 1\n#endif\n").is_none());
        assert!(scanner_guard(Lang::Swift, "let a = b#c").is_some(), "any word after # at the end is guarded");
        assert!(scanner_guard(Lang::Rust, "x\n#endif").is_none());
        // the same declarations as with the line break the file lacks
        let (bare, broken) = (crate::parse(Lang::Swift, "#if X\nfunc f() {}\n#endif"), crate::parse(Lang::Swift, "#if X\nfunc f() {}\n#endif\n"));
        assert!(!bare.has_error);
        assert_eq!(bare.declarations, broken.declarations);
    }

    #[test]
    fn swift_repairs_clear_each_gap_and_hash_the_sources_own_tokens() {
        let cases = [
            "struct S {\n  #if os(Windows)\n  func a() {}\n  #elseif (compiler(<6.1) && !os(WASI)) || (compiler(>=6.1) && _runtime(_multithreaded))\n  func b() {}\n  #endif\n}\n",
            "struct S {\n  subscript(i: Int) -> E {\n    @_transparent // why\n    unsafeAddress {\n      p(i)\n    }\n    nonmutating unsafeMutableAddress {\n      return q(i)\n    }\n  }\n  var x: Int {\n    borrowing get {\n      1\n    }\n  }\n}\n",
            "func f(x: R) {\n  switch x {\n  case .success():\n    g()\n  case .set(()):\n    g()\n  case (a + 1)...b:\n    g()\n  case .min..<0:\n    g()\n  default:\n    g()\n  }\n}\n",
            "func f(x: Int) {\n  switch x {\n  #if os(Linux)\n  case 1:\n    #if os(Linux)\n    fallthrough\n    #endif\n  #endif\n  default:\n    g()\n  }\n}\n",
            "struct S {\n  @inline(never)\n  #if compiler(>=6.3)\n  @available(Android 24, *)\n  #endif\n  func f() {}\n}\n",
            "func f() {\n  g {\n    x()\n  }\n  errorHandler: { error in\n    y()\n  }\n  nonisolated(unsafe) var x = 1\n  tree { 4 ; 5 }\n}\n",
            "func f() {\n  assertCustom {\n    \"Hello\"\n  } is: {\n    \"World\"\n  }\n  g.f { 1 } as: { 2 }\n}\n",
            "enum E {\n  case vsock(_: Int)\n  case b\n}\n",
            "struct S {\n  #if canImport(Darwin, _version: 346) || os(FreeBSD)\n  func f() {}\n  #endif\n}\n",
            "protocol Model: AnyModel {\n  associatedtype IDValue: Codable, Hashable, Sendable\n  var id: IDValue? { get set }\n}\n",
            "func e(embed: (V) -> R) -> (R) -> V? {\n  (/embed).extract(from:)\n}\n",
            "func eq<F, L>(l: F, r: L) -> Bool where\n  F: S, L: S,\n  F.Value? == L.Value\n{\n  true\n}\n",
            "func f() -> Any.Type {\n  Swift::Int.self\n}\nextension Sel::Tag {}\n",
            "struct T {\n  init(_ s: _const String) {}\n}\n",
            "func f() -> Any.Type {\n  (@convention(c) (CInt) -> CInt).self\n}\n",
            "func f() {\n  for i in 0... {\n    g(i)\n  }\n  if #available(_typedThrowsAPI, *) {\n    g(0)\n  }\n}\n",
            // two finders hide overlapping spans (the directive line, the condition call)
            "func s() -> String? {\n#if _runtime(_ObjC)\n  \"objc\"\n#else\n  nil\n#endif\n}\nfunc t(_ s: _const String) {}\n",
            "final class P<V> {\n  #if os(Linux)\n  #error(\"no lock type\")\n  #endif\n  func f() {}\n}\n",
            "func f(x: consuming R) {\n  let final: E?\n  final = g()\n  weak?.h()\n  switch consume x {\n  case .a:\n    break\n  }\n  for e in copy self.items {\n    h(e)\n  }\n}\n",
            "func f(p: inout [Int], n: Int) {\n  switch n {\n    case 1: p[0] = t[1]          ; fallthrough\n    case 0: return; default: g()\n  }\n}\n",
            "func r(s: S) -> String {\n  switch s {\n  case .switch(let x): return x\n  case .if(let c): return c\n  }\n}\n",
            "func k(s: Store) {\n  s.scope(id: s.id(state: \\.!, action: \\.self))\n}\n",
            "func t() {\n  let prefix: String\n  switch r {\n  case let .success((a, b, c)):\n    g(a, c)\n    prefix = b\n  case .failure:\n    return\n  }\n}\n",
            "struct B {\n  var v = 0\n  static func ..<(l: B, r: B) -> Range<Int> {\n    l.v..<r.v\n  }\n  func w() {}\n}\n",
            "struct H {\n  subscript(i: Int) -> Int {\n    _read {\n      yield p(i)\n    }\n    @inline(__always)\n    _modify {\n      yield &q\n    }\n  }\n}\n",
            "struct S {\n  @_specialize(where T == Int)\n  mutating func f<T>(t: T) {}\n  func g(q: Q) {\n    q.submit {\n      ()\n    }.get()\n  }\n}\n",
            // swift-log's task-local logger (Swift 6.2)
            "public nonisolated(nonsending) func withLogger<R>(\n    _ logger: Logger,\n    _ operation: nonisolated(nonsending) (Logger) async throws -> R\n) async rethrows -> R {\n    try await operation(logger)\n}\n",
            // swift-nio's `FileSystemProtocol`
            "public protocol FileSystem {\n    associatedtype Dir: DirProtocol\n    where\n        Dir.Read == Read,\n        Dir.Write == Write\n    func open() -> Dir\n}\n",
        ];
        assert_repairs_hash_the_sources_own_tokens(Lang::Swift, &cases);
        // a type alias's `where` clause (swift-nio, fluent-kit): hidden, hashed where it
        // stands; the alias, whose node ends before it, is not trusted, the rest reads
        for src in [
            "extension F {\n    public typealias B<T> = P<Self, T> where T: Q\n    func g() {}\n}\n",
            "extension F {\n    public typealias B<T> = P<Self, T>\n        where T: Q\n    func g() {}\n}\n",
        ] {
            assert!(parse_unrepaired(Lang::Swift, src).has_error);
            let read = parse(Lang::Swift, src, None).0;
            let unclean: Vec<&str> = read.declarations.iter().filter(|d| d.has_error).map(|d| d.qualified_name.as_str()).collect();
            assert_eq!((read.declarations.len(), unclean), (3, vec!["F.B"]), "{read:#?}");
            let (_, repaired) = trees(Lang::Swift, src, None).unwrap();
            let (tree, excised) = repaired.expect("repaired");
            let hashed = crate::tokens::hashed_texts(tree.root_node(), src, spec(Lang::Swift).rules, kind_table(Lang::Swift), &excised);
            assert_eq!(hashed, lexical_tokens(src), "{src}");
        }
        // swift-testing's `EntryPoint.swift`: a regex anchored at its start is one token,
        // read from the original text (the lexical reference above splits regexes)
        let regex = "func f(s: String) -> Bool {\n  let r = /^`[^`]*`$/\n  return s.contains(r) || s.contains(/^\\d+$/)\n}\nfunc g() {}\n";
        let hashed = repaired_hashed_texts(Lang::Swift, regex);
        assert!(hashed.contains(&"/^`[^`]*`$/".to_string()) && hashed.contains(&"/^\\d+$/".to_string()), "{hashed:?}");
    }

    /// Each of `cases` needs a repair, and its repaired stream hashes the source's own
    /// tokens, in order (as [`lexical_tokens`] splits them).
    fn assert_repairs_hash_the_sources_own_tokens(lang: Lang, cases: &[&str]) {
        for src in cases {
            assert_eq!(repaired_hashed_texts(lang, src), lexical_tokens(src), "{src}");
        }
    }

    /// `src` needs a repair (its plain parse fails) and, repaired, reads every declaration
    /// cleanly; the texts its repaired token stream hashes.
    fn repaired_hashed_texts(lang: Lang, src: &str) -> Vec<String> {
        assert!(parse_unrepaired(lang, src).has_error, "the grammar reads this now; drop its repair?\n{src}");
        let read = parse(lang, src, None).0;
        assert!(!read.has_error && read.declarations.iter().all(|d| !d.has_error), "{src}\n{read:#?}");
        let (_, repaired) = trees(lang, src, None).unwrap();
        let (tree, excised) = repaired.expect("repaired");
        crate::tokens::hashed_texts(tree.root_node(), src, spec(lang).rules, kind_table(lang), &excised)
    }

    /// Each Kotlin grammar gap (gaps.rs) is cleared by its repair, and the repaired stream
    /// hashes the source's own text, in order: excised tokens where they stand, overwritten
    /// bytes as the original (`suspend`, `$`, `get`), and the `;` written over a blank
    /// nothing. (Kotlin's token rules join a string or a modifier list into one token, so
    /// the texts are compared joined, blanks, markers and `;` left out.)
    #[test]
    fn kotlin_repairs_clear_each_gap_and_hash_the_sources_own_text() {
        let cases = [
            "class A {\n    context(scope: Scope, log: Log)\n    fun f(x: Int): Int = scope.g(x)\n}\n",
            "const val RefKey = $$\"$ref\"\nval raw = $$\"\"\"\n  { \"a\": \"${PATH:x}\", \"b\": \"$${k}\" }\n\"\"\"\nfun f() = 1\n",
            "public value class Slot<out T>\n@PublishedApi internal constructor(@PublishedApi internal val h: Any?) {\n    fun f() = h\n}\n",
            "actual class Server<\n    T : Engine\n    >\nactual constructor(\n    private val config: Config\n) {\n    fun f() = config\n}\n",
            "class A {\n    var t: String?\n        get() = null\n\n        @InternalApi set(value) {\n            g(value)\n        }\n}\n",
            "fun f(x: Any) = when (x) {\n    is String if x.isEmpty() -> 0\n    else -> 2\n}\n",
            "fun r() {\n    val model = mapOf(\"id\" to 1)\n    get(\"/\") {\n        respond(model)\n    }\n    set(\"k\", model)\n}\n",
            "fun r(dynamic: Boolean) = Ref(\"#\", dynamic)\n",
            "fun f(list: List<Int>) {\n    val lambda = suspend { list.size }\n    g(lambda)\n}\n",
            "fun d(in1: Source) {\n    val n = in1.size()\n    in1.close()\n}\n",
            "enum class Mode {\n    MAIN { override fun pick(c: Ctx): Ctx = c.main() },\n    BACK { override fun pick(c: Ctx): Ctx = c.back() };\n\n    abstract fun pick(c: Ctx): Ctx\n}\n",
            "class A {\n    var v: Boolean\n        get() = x\n        @Suppress(\"S\") // kept\n        set(value) {\n            x = value\n        }\n}\n",
            "fun z(a: Flow<String?>, b: Flow<Int>) = a.zip(b, String?::plus)\n",
            "fun g(c: Guard) {\n    c.apply { open(closer) }\n}\n",
            "fun h(c: Call) {\n    val p = c?.let { (auth)(call, it) }\n}\n",
            "fun t() {\n    suspend fun a() {\n        b()\n    }\n    ::a.startCoroutine(c)\n}\n",
            "class S {\n    val identifier\n        @OptIn(InternalApi::class)\n        get() = name\n}\n",
            "fun f(where: Op?) {\n    val x = 1\n    where?.toQueryBuilder(this)\n}\n",
            "enum class Keyword {\n    pattern,\n    enum,\n    id\n}\n",
            "private class TestRule(vararg data: Pair<String, Any>) : Rule(TestConfig(*data))\n",
            "fun t() {\n    val id = table.insert {\n        it[code] = 2\n    } get table.id\n}\n",
            "fun d(e: Any) = when (e) {\n    is Op<*> if (\n        e.a && (e.b == null)\n        ) -> 1\n    else -> 2\n}\n",
            "fun p(all: All) {\n    val p = all.creators[\n        Key(a)\n    ,]?.invoke(a)\n}\n",
            "fun lines() = listOf(\n    \"\"\"filename=\"\"\"\"\",\n    \"\"\n)\n",
            // wire's Swift generator: a run of quotes that opens and closes the string
            "fun d(t: T): String = when (t) {\n    S -> \"\"\"\"\"\"\"\" // empty\n    else -> t.name\n}\nfun g() = 1\n",
            "annotation class Single(val binds: Array<KClass<*>> = [], val c: Boolean = false)\n",
            // okhttp's `Settings` and `Http2Stream`, kotlinx.serialization's JS tests
            "fun f() {\n    val bit = 1\n    set = set or bit\n    open = isOpen\n}\n",
            "fun f() {\n    val dynamic = g()\n    h(dynamic)\n}\n",
            "fun Route.default(file: File) {\n    val types = listOf(file)\n    get {\n        respond(types)\n    }\n}\n",
            // arrow
            "fun <E, A> either(\n  block: context(Raise<E>) () -> A,\n): A = block()\n",
            "fun <A> resource(block: suspend context(Scope) () -> A): R<A> = block\n",
            "typealias H<T> = suspend context(Raise<R>) Ctx.() -> T\n",
            "public suspend fun <\n  A : B,\n  C : D,\n  > R.server(x: Int): E = f()\n",
            "data class M<V>(@all:JsonSetter(c = N.A) val value: Map<K, V>)\n",
            // ktor's Darwin engine config
            "class C {\n    var r: Int = 1\n        @Deprecated(\n            \"x\",\n            level = L.E\n        )\n        set\n    fun f() {}\n}\n",
            "class C {\n    var r: Int = 1\n        @Deprecated(\n            \"x\"\n        ) @A\n        set(v) {\n            g(v)\n        }\n}\n",
            // ktor's SSE tests, detekt's `Signatures.kt`
            "fun c(k: String) {\n    var dynamic = 0\n    when (k) {\n        \"dynamic\" -> dynamic++\n    }\n}\n",
            "fun s(p: String, f: String): String {\n    val full = if (f.isNotEmpty()) $$\"$$p$$$f\" else p\n    return full\n}\n",
            // arrow's `CircuitBreaker.kt`: a class header and its constructor on one line,
            // in a file another repair reads
            "sealed class State {\n    public class Open internal constructor(\n        val at: Mark,\n    ) : State() {\n        val l = suspend { x() }\n    }\n}\n",
            // arrow's `Enviroment.js.kt`: a lambda of a comment alone, and a repair elsewhere
            "object J {\n    fun on(): () -> Unit {\n        return { /* nothing */ }\n    }\n    fun r() {\n        val l = suspend { x() }\n    }\n}\n",
            // kotlinx.coroutines' `ThreadLocalsLeaksTest`
            "class T {\n    fun a() = ensure(Dispatchers.Default, suspend = false)\n    fun b() = ensure(\n        Dispatchers.IO,\n        suspend = true\n    )\n    fun c(suspend: Boolean) {\n        if (suspend) d()\n    }\n}\n",
            // ktor's JWT provider
            "class P(c: C) {\n    private val verifier: suspend ((Header) -> Verifier?) = c.verifier\n}\n",
            // kotlinx.coroutines' `Semaphore.kt`
            "class A {\n    fun <W> acquire(w: W, suspend: (W) -> Boolean, f: suspend () -> Unit) {\n        if (suspend(w)) return\n    }\n}\n",
            // kotlinpoet's nested builders (ktfmt's layout of a long header)
            "public class TypeSpec {\n  public class Builder\n  internal constructor(internal val name: String) :\n    Taggable.Builder<Builder> {\n    public val modifiers: MutableSet<String> = mutableSetOf()\n  }\n}\n",
        ];
        let joined = |texts: &[String]| -> String {
            texts.concat().chars().filter(|c| !c.is_whitespace() && !matches!(c, ';' | '\u{2}' | '\u{3}' | '\u{4}')).collect()
        };
        for src in cases {
            let hashed = repaired_hashed_texts(Lang::Kotlin, src);
            let mut code: String = src.lines().map(|l| l.find("//").map_or(l, |c| &l[..c])).collect();
            // block comments are not hashed either
            while let Some(open) = code.find("/*") {
                let close = code[open..].find("*/").map_or(code.len(), |c| open + c + 2);
                code.replace_range(open..close, "");
            }
            let own: String = code.chars().filter(|c| !c.is_whitespace() && *c != ';').collect();
            // a comma before a closing bracket hashes nothing (as in every stream)
            let own = own.replace(",]", "]").replace(",)", ")").replace(",>", ">");
            assert_eq!(joined(&hashed), own, "{src}\n{hashed:?}");
        }
    }

    /// A repaired reading without any error is kept even when the plain one, a file-wide
    /// error, holds more declarations: the locals its recovery read as properties.
    #[test]
    fn an_error_free_repaired_reading_beats_the_recovery_s_invented_declarations() {
        let src = "class T : Base() {\n    fun go() = run {\n        val flow = MutableFlow<Int>()\n        val list = mutableListOf<Int>()\n        val set = mutableSetOf<Int>()\n        val jobs = listOf(suspend { flow.toList(list) }, { flow.toSet(set) }).map {\n            launch { it() }\n        }\n    }\n}\n";
        let plain = parse_unrepaired(Lang::Kotlin, src);
        let read = parse(Lang::Kotlin, src, None).0;
        assert!(plain.has_error && plain.declarations.len() > read.declarations.len(), "{plain:#?}");
        assert!(!read.has_error);
        let names: Vec<&str> = read.declarations.iter().map(|d| d.qualified_name.as_str()).collect();
        assert_eq!(names, ["T", "T.go()"]);
    }

    /// A layout that needs a Kotlin repair prints as another layout of the same code
    /// (ktlint's): a one-line enum entry body and the same body over three lines, a
    /// context clause on its own line and before `fun`, an annotation before `set` on its
    /// line and above it.
    #[test]
    fn kotlin_repaired_layouts_print_as_other_layouts_of_the_same_code() {
        let pairs = [
            (
                "enum class M {\n    A { override fun f() = 1 },\n    B { override fun f() = 2 };\n\n    abstract fun f(): Int\n}\n",
                "enum class M {\n    A {\n        override fun f() = 1\n    },\n    B {\n        override fun f() = 2\n    };\n\n    abstract fun f(): Int\n}\n",
            ),
            ("class A {\n    context(s: S)\n    fun f() = s.g()\n}\n", "class A {\n    context(s: S) fun f() = s.g()\n}\n"),
            (
                "class A {\n  class B\n  internal constructor(val n: String) : C {\n    val m = n\n  }\n}\n",
                "class A {\n  class B internal constructor(val n: String) : C {\n    val m = n\n  }\n}\n",
            ),
            (
                "class A {\n    var v: Int\n        get() = x\n        @Synchronized set(value) {\n            x = value\n        }\n}\n",
                "class A {\n    var v: Int\n        get() = x\n\n        @Synchronized\n        set(value) {\n            x = value\n        }\n}\n",
            ),
        ];
        for (gap, layout) in pairs {
            repaired_prints_as(Lang::Kotlin, gap, layout);
        }
    }

    /// A delegating class's body that the grammar read as a lambda (a silent gap) prints,
    /// once repaired, as the same class does where the grammar reads the body itself (a
    /// declaration after it tips the reading): an edit elsewhere that flips the reading
    /// makes nothing stale.
    #[test]
    fn kotlin_delegation_bodies_print_as_the_grammars_own_reading() {
        let misread = "class A(val i: I) : I by i {\n    fun f() = 1\n}\n";
        let read_right = format!("{misread}\nobject Z : I {{\n    override fun g() = 2\n}}\n");
        let names = |f: &FileSyntax| f.declarations.iter().map(|d| d.qualified_name.clone()).collect::<Vec<_>>();
        assert!(!names(&parse_unrepaired(Lang::Kotlin, misread)).contains(&"A.f()".to_string()), "the grammar reads this body now; drop the silent gap?");
        assert!(names(&parse_unrepaired(Lang::Kotlin, &read_right)).contains(&"A.f()".to_string()));
        let (a, b) = (parse(Lang::Kotlin, misread, None).0, parse(Lang::Kotlin, &read_right, None).0);
        let prints = |f: &FileSyntax| f.declarations.iter().filter(|d| d.qualified_name.starts_with('A')).map(|d| (d.qualified_name.clone(), d.fingerprint)).collect::<Vec<_>>();
        assert_eq!(prints(&a), prints(&b));
        assert_eq!(names(&a), ["A", "A.i", "A.f()"]);
    }

    /// A top-level declaration under annotations and modifier words that the grammar read
    /// as an annotated expression (a silent gap) is read, and prints as the grammar's own
    /// reading of it where nothing follows it.
    #[test]
    fn kotlin_declarations_read_as_statements_are_read_and_print_alike() {
        let read_right = "@A\n@B\npublic class C\n";
        let misread = format!("{read_right}\nclass D\n");
        let names = |f: &FileSyntax| f.declarations.iter().map(|d| d.qualified_name.clone()).collect::<Vec<_>>();
        assert_eq!(names(&parse_unrepaired(Lang::Kotlin, &misread)), ["D"], "the grammar reads this now; drop the silent gap?");
        assert_eq!(names(&parse_unrepaired(Lang::Kotlin, read_right)), ["C"]);
        let (a, b) = (parse(Lang::Kotlin, &misread, None).0, parse(Lang::Kotlin, read_right, None).0);
        assert_eq!(names(&a), ["C", "D"]);
        assert_eq!(a.declarations[0].fingerprint, b.declarations[0].fingerprint);
        // a function, and modifiers on the annotations' line
        let f = parse(Lang::Kotlin, "@A\n@B\npublic inline fun c() = 1\n\nclass D\n", None).0;
        assert_eq!(names(&f), ["c()", "D"]);
        let g = parse(Lang::Kotlin, "@A @B internal class C\n\nclass D\n", None).0;
        assert_eq!(names(&g), ["C", "D"]);
    }

    /// The coverage benchmark's view: an error the tree holds only in a hidden child (a
    /// missing member separator) is a site, and a tree without errors still shows the
    /// signs of a misreading (Kotlin names spelled `class`), but not `Foo::class`.
    #[test]
    fn hidden_errors_and_silent_misreadings_are_reported() {
        let (read, sites, misread) = parse_reporting_errors(Lang::Kotlin, "class A {\n  fun a() = 1 }\n\nval k = A::class\n");
        assert!(read.has_error && misread.is_empty());
        assert_eq!(sites, [ErrorSite { line: 1, end_line: 2, construct: "missing in class_body".into() }]);
        // a run of annotated body-less declarations the grammar chains into one expression
        let chain = "package p\n\n@MustBeDocumented\n@Retention(value = AnnotationRetention.BINARY)\npublic annotation class A\n\n/** doc */\n@MustBeDocumented\n@Retention(value = AnnotationRetention.BINARY)\npublic annotation class B\n\n@Target(AnnotationTarget.CLASS)\npublic annotation class C\n";
        let (read, sites, misread) = parse_reporting_errors(Lang::Kotlin, chain);
        assert!(!read.has_error && sites.is_empty());
        let lines: Vec<u32> = misread.iter().map(|m| m.line).collect();
        assert_eq!(lines, [5, 10], "{misread:?}");
        assert!(misread[0].construct.starts_with("`class` read as a name"), "{misread:?}");
        assert!(parse_reporting_errors(Lang::TypeScript, "class A {}\n").2.is_empty());
    }

    /// Baselines recorded before the Kotlin repairs stay fresh: a declaration the plain
    /// parse read cleanly, in a file whose other declarations needed a repair, keeps its
    /// fingerprint.
    #[test]
    fn kotlin_declarations_read_cleanly_before_the_repairs_keep_their_prints() {
        let src = "fun g(x: Int): Int = x + 1\n\nclass Plain {\n    fun h(y: Int) = y * 2\n}\n\nclass Body {\n    var t: String?\n        get() = null\n        @InternalApi set(value) {\n            g(value)\n        }\n    fun z(a: Flow<String?>) = a.zip(a, String?::plus)\n}\n";
        let plain = parse_unrepaired(Lang::Kotlin, src);
        let read = parse(Lang::Kotlin, src, None).0;
        assert!(plain.has_error && !read.has_error, "{plain:#?}");
        let clean_before: Vec<_> = plain.declarations.iter().filter(|d| !d.has_error).map(|d| (d.qualified_name.clone(), d.fingerprint)).collect();
        assert!(clean_before.iter().any(|(n, _)| n == "Plain.h(y)"), "{clean_before:?}");
        for (name, print) in &clean_before {
            let now = read.declarations.iter().find(|d| &d.qualified_name == name).unwrap_or_else(|| panic!("{name} is still read"));
            assert_eq!(&now.fingerprint, print, "{name}");
        }
    }

    #[test]
    fn an_inline_import_type_with_a_suffix_is_read_and_hashed_as_the_grammar_prints_it() {
        let with = |q: &str| format!("export function f(a: import({q}ts-morph{q}).Node[]) {{\n  return a;\n}}\n");
        let single = with("'");
        assert!(parse_unrepaired(Lang::TypeScript, &single).has_error, "the grammar reads this now; drop its repair?");
        let read = parse(Lang::TypeScript, &single, None).0;
        assert!(!read.has_error && read.declarations.len() == 1, "{read:#?}");
        // prettier's quotes are no change: the string is one token by value, as the
        // grammar prints `import('ts-morph').Node` where it reads it
        let double = parse(Lang::TypeScript, &with("\""), None).0;
        assert_eq!(read.declarations[0].fingerprint, double.declarations[0].fingerprint);
        let (_, repaired) = trees(Lang::TypeScript, &single, None).unwrap();
        let (tree, excised) = repaired.expect("repaired");
        let hashed = crate::tokens::hashed_texts(tree.root_node(), &single, spec(Lang::TypeScript).rules, kind_table(Lang::TypeScript), &excised);
        let plain = "export function f(a: import('ts-morph').Node) {\n  return a;\n}\n";
        let plain_tree = parse_tree(Lang::TypeScript, plain, None).unwrap();
        let mut expected = crate::tokens::hashed_texts(plain_tree.root_node(), plain, spec(Lang::TypeScript).rules, kind_table(Lang::TypeScript), &[]);
        let at = expected.iter().position(|t| t == "Node").unwrap();
        expected.splice(at + 1..at + 1, ["[".to_string(), "]".to_string()]);
        assert_eq!(hashed, expected);
    }

    #[test]
    fn the_type_keyword_string_is_no_string_literal() {
        let print = |src: &str, scheme: u8| crate::parse_with_print_scheme(Lang::TypeScript, src, scheme, None).declarations[0].fingerprint;
        let (keyword, literal) = ("export type T = string\n", "export type T = 'trin'\n");
        assert_ne!(print(keyword, crate::PRINT_SCHEME), print(literal, crate::PRINT_SCHEME));
        // print scheme 4 read the keyword as the literal: its baselines are compared so
        assert_eq!(print(keyword, 4), print(literal, 4));
        // a string literal prints as before; only the keyword changed
        assert_eq!(print(literal, crate::PRINT_SCHEME), print(literal, 4));
        let tsx = |src: &str, scheme: u8| crate::parse_with_print_scheme(Lang::Tsx, src, scheme, None).declarations[0].fingerprint;
        assert_ne!(tsx(keyword, crate::PRINT_SCHEME), tsx(literal, crate::PRINT_SCHEME));
    }

    #[test]
    fn import_types_in_a_calls_type_arguments_are_read_and_hashed_as_written() {
        // vitest's idiom (zustand, redux-toolkit); the module string is one token by value.
        // (With an argument that is an expression on its own, `f<typeof import('m')>(x)`,
        // the grammar reads two comparisons of the same tokens, without an error.)
        let src = |q: &str| format!("export async function load() {{\n  return await vi.importActual<typeof import({q}m{q})>()\n}}\n");
        let hashed = repaired_hashed_texts(Lang::TypeScript, &src("'"));
        // a module string as the grammar prints it where it reads the import
        let string_token = |module: &str| {
            let plain = format!("type T = typeof import('{module}')\n");
            let plain_tree = parse_tree(Lang::TypeScript, &plain, None).unwrap();
            let texts = crate::tokens::hashed_texts(plain_tree.root_node(), &plain, spec(Lang::TypeScript).rules, kind_table(Lang::TypeScript), &[]);
            texts[texts.iter().position(|t| t == "(").unwrap() + 1].clone()
        };
        let string = &string_token("m");
        let expected: Vec<String> = "export async function load ( ) { return await vi . importActual < typeof import ( S ) > ( ) }"
            .split(' ')
            .map(|t| if t == "S" { string.clone() } else { t.to_string() })
            .collect();
        assert_eq!(hashed, expected);
        let print = |s: &str| parse(Lang::TypeScript, s, None).0.declarations[0].fingerprint;
        assert_eq!(print(&src("'")), print(&src("\"")), "prettier's quotes are no change");
        assert_ne!(print(&src("'")), print(&src("'").replace("'m'", "'n'")));
        let member = "export function f() {\n  return g<import('./t').T>()\n}\n";
        assert_eq!(repaired_hashed_texts(Lang::TypeScript, member).concat(), format!("exportfunctionf(){{returng<import({}).T>()}}", string_token("./t")));
    }

    /// `gap` needs a repair, and read with it every declaration prints as in `layout`, the
    /// same code laid out otherwise; returns the first declaration's print.
    fn repaired_prints_as(lang: Lang, gap: &str, layout: &str) -> crate::Fingerprint {
        assert!(parse_unrepaired(lang, gap).has_error, "the grammar reads this now; drop its repair?\n{gap}");
        let (a, b) = (parse(lang, gap, None).0, parse(lang, layout, None).0);
        assert!(!a.has_error && !b.has_error && !a.declarations.is_empty(), "{a:#?}\n{b:#?}");
        let prints = |f: &FileSyntax| f.declarations.iter().map(|d| (d.qualified_name.clone(), d.fingerprint)).collect::<Vec<_>>();
        assert_eq!(prints(&a), prints(&b), "{gap}");
        a.declarations[0].fingerprint
    }

    #[test]
    fn keyof_readonly_and_optional_tuple_elements_in_call_type_arguments_are_read_as_written() {
        // type-fest's tests: the repaired stream hashes the source's own tokens, in order
        let cases = [
            "export function g(): keyof readonly X[] {\n  return h(y);\n}\n",
            "export function g(y: Y) {\n  expectType<[number?]>(y);\n  return f<[1?] | A>(y);\n}\n",
            // mikro-orm's members named like keywords
            "export interface O {\n  abstract?: boolean;\n  x: number;\n}\n",
            "export class C {\n  accessor(\n    a: number\n  ): void {}\n}\n",
            // Deno std's typed `using` declarations
            "export function f() {\n  using t: FakeTime = new FakeTime();\n  await using r: Map<string, (a: A) => B> = open();\n  return t;\n}\n",
        ];
        assert_repairs_hash_the_sources_own_tokens(Lang::TypeScript, &cases);
        // the excised words still count: dropping one is an edit of the declaration
        let print = |s: &str| parse(Lang::TypeScript, s, None).0.declarations[0].fingerprint;
        assert_ne!(print(cases[0]), print(&cases[0].replace("keyof readonly", "keyof")));
        assert_ne!(print(cases[1]), print(&cases[1].replace("number?]", "number]")));
    }

    #[test]
    fn tagged_template_type_arguments_are_read_and_their_layout_is_no_change() {
        let one_line = "export function ids() {\n  return sql<{ id: Uint8Array; at: number }>`SELECT id`\n}\n";
        let broken = "export function ids() {\n  return sql<{\n    id: Uint8Array;\n    at: number;\n  }>`SELECT id`\n}\n";
        let print = repaired_prints_as(Lang::TypeScript, one_line, broken);
        let other = parse(Lang::TypeScript, &one_line.replace("at: number", "at: string"), None).0;
        assert_ne!(print, other.declarations[0].fingerprint);
    }

    #[test]
    fn joined_generic_type_arguments_hash_as_the_broken_layout() {
        // the broken layout is what the grammar reads without a repair
        let broken = "export const f = dual<\n  <K>(key: K) => (s: S<K>) => K,\n  <K>(s: S<K>, key: K) => K\n>(2, g)\n";
        assert!(!parse_unrepaired(Lang::TypeScript, broken).has_error);
        repaired_prints_as(Lang::TypeScript, "export const f = dual<<K>(key: K) => (s: S<K>) => K, <K>(s: S<K>, key: K) => K>(2, g)\n", broken);
    }

    #[test]
    fn a_bare_ampersand_in_a_jsx_attribute_is_read_and_hashed_as_written() {
        let with =
            |v: &str| format!("export function Footer() {{\n  return <a href=\"{v}\">x</a>;\n}}\n");
        let amp = with("/?a=1&b=2");
        assert!(
            parse_unrepaired(Lang::Tsx, &amp).has_error,
            "the grammar reads this now; drop its repair?"
        );
        let read = parse(Lang::Tsx, &amp, None).0;
        assert!(!read.has_error && read.declarations.len() == 1, "{read:#?}");
        // the string is hashed from the original text: not the `+` the parser was shown
        let plus = parse(Lang::Tsx, &with("/?a=1+b=2"), None).0;
        assert_ne!(
            read.declarations[0].fingerprint,
            plus.declarations[0].fingerprint
        );
        let (_, repaired) = trees(Lang::Tsx, &amp, None).unwrap();
        let (tree, excised) = repaired.expect("repaired");
        let hashed =
            crate::tokens::hashed_texts(tree.root_node(), &amp, spec(Lang::Tsx).rules, kind_table(Lang::Tsx), &excised);
        assert!(hashed.iter().any(|t| t.contains("/?a=1&b=2")), "{hashed:?}");
    }

    #[test]
    fn repairs_are_like_for_like_ascii_overwrites_or_nothing() {
        let ow = |at, byte| Repair::Overwrite { at, byte };
        let text = |r: Option<(String, Vec<std::ops::Range<usize>>)>| r.map(|(t, _)| t);
        assert_eq!(text(repaired("f(())", &[ow(2, b'['), ow(3, b']')])).as_deref(), Some("f([])"));
        assert_eq!(repaired("a\nb", &[ow(1, b';')]), None, "a line break is never overwritten");
        assert_eq!(repaired("ab", &[ow(1, b'\n')]), None, "nor written");
        assert_eq!(repaired("é", &[ow(0, b'e')]), None, "nor part of a multi-byte character");
        assert_eq!(repaired("ab", &[ow(2, b'c')]), None, "nor past the end");
        let cut = |start, end| Repair::Excise { start, end };
        assert_eq!(repaired("<out T>", &[cut(1, 5)]).map(|(_, e)| e), Some(vec![1..5]));
        assert_eq!(repaired("<out T>", &[cut(3, 6), cut(1, 5)]).map(|(_, e)| e), Some(vec![1..6]), "overlapping spans are hidden as one");
        assert_eq!(repaired("#if f(x)", &[cut(4, 8), cut(0, 8)]).map(|(_, e)| e), Some(vec![0..8]), "and a span inside another with it");
        assert_eq!(repaired("ab cd", &[cut(0, 2), cut(2, 5)]).map(|(_, e)| e), Some(vec![0..2, 2..5]), "touching spans stay apart");
        assert_eq!(repaired("é", &[cut(1, 2)]), None, "and cut on character boundaries");
    }
}
