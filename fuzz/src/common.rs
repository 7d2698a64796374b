//! Helpers shared by the harnesses: how an input picks a language and splits into parts.

use knit_syntax::Lang;
use std::path::{Path, PathBuf};

/// Every supported language, in the order the first input byte selects them.
pub const LANGS: [Lang; 8] =
    [Lang::TypeScript, Lang::Tsx, Lang::Swift, Lang::JavaScript, Lang::Rust, Lang::Python, Lang::Go, Lang::Kotlin];

/// The language selected by a byte (low three bits).
pub fn lang_of(b: u8) -> Lang {
    LANGS[usize::from(b & 7)]
}

/// A file extension of `lang`, for paths handed to functions that pick a language by name.
pub fn ext_of(lang: Lang) -> &'static str {
    match lang {
        Lang::TypeScript => "ts",
        Lang::Tsx => "tsx",
        Lang::Swift => "swift",
        Lang::JavaScript => "js",
        Lang::Rust => "rs",
        Lang::Python => "py",
        Lang::Go => "go",
        Lang::Kotlin => "kt",
    }
}

/// `data` cut at its first NUL byte: (before, after). Without a NUL the second part is empty.
pub fn split_nul(data: &[u8]) -> (&[u8], &[u8]) {
    match data.iter().position(|&b| b == 0) {
        Some(i) => (&data[..i], &data[i + 1..]),
        None => (data, &[]),
    }
}

/// True when `range` lies inside `text` on character boundaries (so slicing it cannot panic).
pub fn slices(text: &str, range: &std::ops::Range<usize>) -> bool {
    text.get(range.clone()).is_some()
}

/// The repository's `fixtures/` (both crates that build this file sit one level below the root).
pub fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures")
}

/// A folder for this process under `/tmp/knit-fuzz-<what>/`; folders of processes that
/// are gone are removed (fuzz jobs are killed, never clean up themselves).
pub fn private_dir(what: &str) -> PathBuf {
    let base = PathBuf::from(format!("/tmp/knit-fuzz-{what}"));
    if let Ok(entries) = std::fs::read_dir(&base) {
        for e in entries.flatten() {
            let name = e.file_name().to_string_lossy().to_string();
            if let Some(pid) = name.strip_prefix("pid-") {
                if !Path::new("/proc").join(pid).exists() {
                    let _ = std::fs::remove_dir_all(e.path());
                }
            }
        }
    }
    let dir = base.join(format!("pid-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("private fuzz folder");
    dir
}

pub fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("create folder");
    for e in std::fs::read_dir(from).expect("read fixture folder").flatten() {
        let p = e.path();
        if p.is_dir() {
            copy_dir(&p, &to.join(e.file_name()));
        } else {
            std::fs::copy(&p, to.join(e.file_name())).expect("copy fixture file");
        }
    }
}

/// `fixtures/example` copied afresh into `<private_dir(what)>/ws` and committed to a new
/// git repository there (when git is available): (the private folder, the workspace root).
pub fn example_repository(what: &str) -> (PathBuf, PathBuf) {
    let dir = private_dir(what);
    let root = dir.join("ws");
    let _ = std::fs::remove_dir_all(&root);
    copy_dir(&fixtures().join("example"), &root);
    let _ = git_in(&root, &["init", "-q"]) && git_in(&root, &["add", "-A"]) && git_in(&root, &["commit", "-qm", "fixture"]);
    (dir, root)
}

/// Runs git in `root` with a fixed identity, no signing and no hooks; true when it succeeded.
pub fn git_in(root: &Path, args: &[&str]) -> bool {
    std::process::Command::new("git")
        .args(["-c", "user.name=fuzz", "-c", "user.email=fuzz@localhost", "-c", "commit.gpgsign=false", "-c", "core.hooksPath=/dev/null"])
        .args(args)
        .current_dir(root)
        .output()
        .is_ok_and(|o| o.status.success())
}
