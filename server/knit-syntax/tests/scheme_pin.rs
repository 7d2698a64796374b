//! Caches keyed by file content hold parse results across knit versions
//! ([`knit_syntax::SCHEME_VERSION`] is in their key). A change to what extraction gives —
//! a new grammar-gap repair, a token rule, a field — with no version bump would serve a
//! stale parse from the cache (seen: a file the new repairs read stayed "has a syntax
//! error" until the cache was cleared). This test pins the version together with a digest
//! of what every code file of the conformance fixtures parses to: when the digest changes,
//! bump `SCHEME_VERSION` and pin both anew.

use knit_syntax::Lang;
use std::path::{Path, PathBuf};

const PINNED_VERSION: u32 = 28;
const PINNED_DIGEST: &str = "4038693a426b00b5";

fn code_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            code_files(&p, out);
        } else if Lang::from_path(&p.to_string_lossy()).is_some() {
            out.push(p);
        }
    }
}

#[test]
fn extraction_changes_come_with_a_scheme_version_bump() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/anchors");
    let mut files = Vec::new();
    code_files(&root, &mut files);
    assert!(
        files.len() > 200,
        "the fixtures were found: {}",
        files.len()
    );
    let mut hasher = blake3::Hasher::new();
    for path in &files {
        let rel = path
            .strip_prefix(&root)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        let text = std::fs::read_to_string(path).unwrap();
        let lang = Lang::from_path(&rel).unwrap();
        hasher.update(rel.as_bytes());
        hasher.update(format!("{:?}", knit_syntax::parse(lang, &text)).as_bytes());
    }
    let digest = hasher.finalize().to_hex()[..16].to_string();
    assert_eq!(
        (knit_syntax::SCHEME_VERSION, digest.as_str()),
        (PINNED_VERSION, PINNED_DIGEST),
        "what the fixtures parse to changed: bump SCHEME_VERSION (caches keyed by content would serve the old parse) and pin the new version and digest here"
    );
}
