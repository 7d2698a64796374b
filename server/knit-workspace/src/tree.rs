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

    /// Reads the `.gitignore` of each folder from `path`'s own up to the root (through the
    /// confined layer, at most [`MAX_IGNORE_FILE_BYTES`] each); the nearest file with a
    /// rule for the path decides, as in git (a `!` rule there un-ignores it).
    fn ignored_by(&self, path: &str) -> Option<String> {
        // Only a relative path inside the root: the ignore crate asserts (panics) when
        // asked about a path outside its base, and a link target comes from the doc.
        if path.is_empty() || std::path::Path::new(path).has_root() || path.split(['/', '\\']).any(|s| s == "..") {
            return None;
        }
        let mut dirs: Vec<&str> = path.match_indices('/').map(|(i, _)| &path[..i]).collect();
        dirs.insert(0, "");
        for dir in dirs.into_iter().rev() {
            let file = if dir.is_empty() { ".gitignore".to_string() } else { format!("{dir}/.gitignore") };
            let Ok(text) = self.files_io.read_text(&file, MAX_IGNORE_FILE_BYTES) else { continue };
            let base = self.root().join(dir);
            let mut builder = ignore::gitignore::GitignoreBuilder::new(&base);
            for line in text.lines() {
                // A line the glob syntax rejects is skipped, as git skips it.
                let _ = builder.add_line(None, line);
            }
            let Ok(rules) = builder.build() else { continue };
            match rules.matched_path_or_any_parents(self.root().join(path), false) {
                ignore::Match::Ignore(_) => return Some(file),
                ignore::Match::Whitelist(_) => return None,
                ignore::Match::None => {}
            }
        }
        None
    }
}

/// A `.gitignore` larger than this is not read for [`SourceTree::ignored_by`].
const MAX_IGNORE_FILE_BYTES: u64 = 256 * 1024;

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

    #[test]
    fn the_nearest_gitignore_with_a_rule_says_a_path_is_ignored() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("docs/rules")).unwrap();
        std::fs::write(root.join(".gitignore"), "target/\n*.log\n").unwrap();
        std::fs::write(root.join("docs/.gitignore"), "/settings.md\n/rules/\n!/rules/keep.md\n").unwrap();
        let t = DiskTree::new(root);
        assert_eq!(t.ignored_by("docs/settings.md").as_deref(), Some("docs/.gitignore"));
        assert_eq!(t.ignored_by("docs/rules/unused-import.md").as_deref(), Some("docs/.gitignore"));
        assert_eq!(t.ignored_by("docs/rules/keep.md"), None, "a `!` rule un-ignores");
        assert_eq!(t.ignored_by("target/doc/index.html").as_deref(), Some(".gitignore"));
        assert_eq!(t.ignored_by("docs/build.log").as_deref(), Some(".gitignore"));
        assert_eq!(t.ignored_by("docs/guide.md"), None);
        assert_eq!(t.ignored_by("settings.md"), None, "`/settings.md` in docs/.gitignore is anchored to docs/");
        // never a panic for a path outside the root
        assert_eq!(t.ignored_by("/etc/passwd"), None);
        assert_eq!(t.ignored_by("docs/../../x.log"), None);
        assert_eq!(t.ignored_by(""), None);
    }
}
