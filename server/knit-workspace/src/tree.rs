//! [`DiskTree`]: the workspace on disk as a [`SourceTree`]. Reads are confined to the
//! root: a path with `..`, or one that resolves through a symlink to outside the root,
//! is refused and never opened.

use crate::files::Confined;
use crate::walk::{walk, WalkPolicy};
use knit_anchors::source::ReadError;
use knit_anchors::SourceTree;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

/// The nearest folder at or above `start` holding `.git` or `knit.toml`, else `start`.
pub fn find_root(start: &Path) -> PathBuf {
    let start = start.canonicalize().unwrap_or_else(|_| start.to_path_buf());
    let mut cur = Some(start.as_path());
    while let Some(dir) = cur {
        if dir.join(".git").exists() || dir.join("knit.toml").is_file() {
            return dir.to_path_buf();
        }
        cur = dir.parent();
    }
    start
}

pub struct DiskTree {
    files_io: Confined,
    files: OnceLock<Arc<Vec<String>>>,
}

impl DiskTree {
    pub fn new(root: &Path) -> DiskTree {
        DiskTree { files_io: Confined::new(root), files: OnceLock::new() }
    }

    pub fn root(&self) -> &Path {
        self.files_io.root()
    }

    /// The confined file layer of this workspace (reads, doc edits).
    pub fn confined(&self) -> &Confined {
        &self.files_io
    }

    /// Workspace-relative `/`-separated form of an absolute or relative path, if it lies
    /// inside the root (lexically).
    pub fn relative(&self, p: &Path) -> Option<String> {
        self.files_io.relative(p)
    }

    /// The real path of a workspace-relative path, refusing escapes.
    pub fn absolute(&self, rel: &str) -> Result<PathBuf, ReadError> {
        self.files_io.resolve(rel)
    }

    fn walk(&self) -> Vec<String> {
        walk(self.root(), &WalkPolicy::default()).into_iter().map(|e| e.rel).collect()
    }

    /// Markdown files under the given workspace-relative folders or files (all when empty).
    pub fn markdown_under(&self, paths: &[String], exclude: &[String]) -> Vec<String> {
        self.files_under(paths, exclude, |f| {
            let lower = f.to_ascii_lowercase();
            lower.ends_with(".md") || lower.ends_with(".markdown")
        })
    }

    /// The files `keep` accepts under `paths` (all when empty), outside the `exclude`d
    /// folders.
    pub fn files_under(&self, paths: &[String], exclude: &[String], keep: impl Fn(&str) -> bool) -> Vec<String> {
        self.files()
            .iter()
            .filter(|f| keep(f))
            .filter(|f| paths.is_empty() || paths.iter().any(|p| p.is_empty() || *f == p || f.starts_with(&format!("{}/", p.trim_end_matches('/')))))
            .filter(|f| !exclude.iter().any(|x| f.starts_with(&format!("{}/", x.trim_end_matches('/')))))
            .cloned()
            .collect()
    }
}

impl SourceTree for DiskTree {
    fn files(&self) -> Arc<Vec<String>> {
        self.files.get_or_init(|| Arc::new(self.walk())).clone()
    }

    fn read(&self, path: &str, max_bytes: u64) -> Result<Arc<str>, ReadError> {
        self.files_io.read_text(path, max_bytes)
    }

    fn exists(&self, path: &str) -> bool {
        self.files_io.exists(path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refuses_escapes_and_reads_text() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("ws");
        std::fs::create_dir_all(root.join("src")).unwrap();
        std::fs::write(root.join("src/a.ts"), "export const a = 1;\n").unwrap();
        std::fs::write(dir.path().join("secret.txt"), "s").unwrap();
        std::fs::write(root.join("bin.dat"), [0u8, 1, 2]).unwrap();
        #[cfg(unix)]
        std::os::unix::fs::symlink(dir.path().join("secret.txt"), root.join("link.txt")).unwrap();
        let t = DiskTree::new(&root);
        assert!(t.read("src/a.ts", 1 << 20).is_ok());
        assert_eq!(t.read("../secret.txt", 1 << 20), Err(ReadError::Outside));
        #[cfg(unix)]
        assert_eq!(t.read("link.txt", 1 << 20), Err(ReadError::Outside));
        assert_eq!(t.read("bin.dat", 1 << 20), Err(ReadError::Binary));
        assert_eq!(t.read("src/a.ts", 3), Err(ReadError::TooLarge(20)));
        assert_eq!(t.read("nope.ts", 10), Err(ReadError::Missing));
        assert!(t.files().contains(&"src/a.ts".to_string()));
    }
}
