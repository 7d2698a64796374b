//! Replays fuzz inputs through the harness its fuzz target runs, on the stable toolchain
//! with a plain `cargo test`: the seed corpora, made from `fixtures/` by `fuzz/seed.py` into
//! a temporary folder (the same seeds the fuzzers start from), and the regressions
//! (`fuzz/regressions/<target>/*`, inputs that once crashed, kept so the fix stays a fix). The harnesses are `fuzz/src/<target>.rs`, included here as they are.
//!
//! Inputs named in `fuzz/regressions/PENDING` are skipped: known crashes whose fix lands
//! elsewhere (a stack overflow would abort this whole test process). Remove a line there
//! with the fix that makes its input pass.

#[allow(dead_code)]
#[path = "../fuzz/src/common.rs"]
mod common;

#[path = "../fuzz/src/check.rs"]
mod check;
#[path = "../fuzz/src/fragment_baseline.rs"]
mod fragment_baseline;
#[path = "../fuzz/src/lsp_framing.rs"]
mod lsp_framing;
#[path = "../fuzz/src/lsp_session.rs"]
mod lsp_session;
#[path = "../fuzz/src/markdown.rs"]
mod markdown;
#[path = "../fuzz/src/mcp.rs"]
mod mcp;
#[path = "../fuzz/src/pack.rs"]
mod pack;
#[path = "../fuzz/src/syntax.rs"]
mod syntax;

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

fn fuzz_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz")
}

/// `target/name` entries of `fuzz/regressions/PENDING` (comments and blank lines ignored).
fn pending() -> Vec<String> {
    std::fs::read_to_string(fuzz_dir().join("regressions/PENDING"))
        .unwrap_or_default()
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(str::to_string)
        .collect()
}

/// The seed corpora, made once per test run by `fuzz/seed.py` (python3) under cargo's
/// target/tmp (emptied first): a temp dir held in a static is never dropped, so it would
/// be left in /tmp after every run.
fn seeds_dir() -> &'static Path {
    static SEEDS: OnceLock<PathBuf> = OnceLock::new();
    SEEDS.get_or_init(|| {
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("knit-fuzz-seeds");
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("seed folder");
        let out = std::process::Command::new("python3").arg(fuzz_dir().join("seed.py")).arg(&dir).output().expect("python3 (fuzz/seed.py makes the seed corpora)");
        assert!(out.status.success(), "fuzz/seed.py failed: {}", String::from_utf8_lossy(&out.stderr));
        dir
    })
}

fn inputs(target: &str) -> Vec<PathBuf> {
    let skip = pending();
    let mut out = Vec::new();
    for (dir, seeds_only) in [(seeds_dir().join(target), true), (fuzz_dir().join("regressions").join(target), false)] {
        let Ok(entries) = std::fs::read_dir(&dir) else { continue };
        for e in entries.flatten() {
            let name = e.file_name().to_string_lossy().to_string();
            if (seeds_only && !name.starts_with("seed-")) || skip.contains(&format!("{target}/{name}")) || !e.path().is_file() {
                continue;
            }
            out.push(e.path());
        }
    }
    out.sort();
    out
}

fn replay(target: &str, run: fn(&[u8])) {
    let files = inputs(target);
    assert!(!files.is_empty(), "no input for fuzz target {target}");
    let mut failed = Vec::new();
    for f in &files {
        let data = std::fs::read(f).unwrap();
        if catch_unwind(AssertUnwindSafe(|| run(&data))).is_err() {
            failed.push(f.display().to_string());
        }
    }
    assert!(failed.is_empty(), "{} of {} inputs of `{target}` fail (panic messages above):\n{}", failed.len(), files.len(), failed.join("\n"));
}

#[test]
fn markdown_inputs() {
    replay("markdown", markdown::run);
}

#[test]
fn fragment_baseline_inputs() {
    replay("fragment_baseline", fragment_baseline::run);
}

#[test]
fn syntax_inputs() {
    replay("syntax", syntax::run);
}

#[test]
fn check_inputs() {
    replay("check", check::run);
}

#[test]
fn lsp_framing_inputs() {
    replay("lsp_framing", lsp_framing::run);
}

#[test]
fn lsp_session_inputs() {
    replay("lsp_session", lsp_session::run);
}

#[test]
fn mcp_inputs() {
    replay("mcp", mcp::run);
}

#[test]
fn pack_inputs() {
    replay("pack", pack::run);
}
