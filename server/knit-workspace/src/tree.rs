//! [`DiskTree`]: the workspace on disk as a [`SourceTree`]. Reads are confined to the
//! root: a path with `..`, or one that resolves through a symlink to outside the root,
//! is refused and never opened.

use knit_anchors::source::{bytes_to_text, ReadError};
use knit_anchors::SourceTree;
use std::path::{Component, Path, PathBuf};
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

/// Folders never walked, whatever `.gitignore` says: dependency, build and VCS output.
const NOISE_DIRS: &[&str] = &["node_modules", ".git", "target", "dist", "build", "out", "coverage", ".build", "Pods", "DerivedData", ".next", ".venv", "venv", "__pycache__"];

pub struct DiskTree {
    root: PathBuf,
    files: OnceLock<Arc<Vec<String>>>,
}

impl DiskTree {
    pub fn new(root: &Path) -> DiskTree {
        let root = root.canonicalize().unwrap_or_else(|_| root.to_path_buf());
        DiskTree { root, files: OnceLock::new() }
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Workspace-relative `/`-separated form of an absolute or relative path, if it lies
    /// inside the root (lexically).
    pub fn relative(&self, p: &Path) -> Option<String> {
        let abs = if p.is_absolute() { p.to_path_buf() } else { std::env::current_dir().ok()?.join(p) };
        let abs = normalize(&abs);
        let rel = abs.strip_prefix(&self.root).ok()?;
        Some(rel.to_string_lossy().replace('\\', "/"))
    }

    /// The absolute path of a workspace-relative path, refusing escapes.
    pub fn absolute(&self, rel: &str) -> Result<PathBuf, ReadError> {
        let p = Path::new(rel);
        if p.is_absolute() || p.components().any(|c| matches!(c, Component::ParentDir | Component::Prefix(_))) {
            return Err(ReadError::Outside);
        }
        let abs = self.root.join(p);
        // A symlink may lead outside: resolve and re-check when the file exists.
        if let Ok(real) = abs.canonicalize() {
            if !real.starts_with(&self.root) {
                return Err(ReadError::Outside);
            }
        }
        Ok(abs)
    }

    fn walk(&self) -> Vec<String> {
        let mut out = Vec::new();
        let walker = ignore::WalkBuilder::new(&self.root)
            .hidden(false)
            .git_ignore(true)
            .git_global(false)
            .git_exclude(true)
            .require_git(false)
            .follow_links(false)
            .filter_entry(|e| {
                let name = e.file_name().to_string_lossy();
                !(e.file_type().is_some_and(|t| t.is_dir()) && NOISE_DIRS.contains(&name.as_ref()))
            })
            .build();
        for entry in walker.flatten() {
            if entry.file_type().is_some_and(|t| t.is_file()) {
                if let Ok(rel) = entry.path().strip_prefix(&self.root) {
                    out.push(rel.to_string_lossy().replace('\\', "/"));
                }
            }
        }
        out.sort();
        out
    }

    /// Markdown files under the given workspace-relative folders or files (all when empty).
    pub fn markdown_under(&self, paths: &[String], exclude: &[String]) -> Vec<String> {
        self.files()
            .iter()
            .filter(|f| {
                let lower = f.to_ascii_lowercase();
                lower.ends_with(".md") || lower.ends_with(".markdown")
            })
            .filter(|f| paths.is_empty() || paths.iter().any(|p| p.is_empty() || *f == p || f.starts_with(&format!("{}/", p.trim_end_matches('/')))))
            .filter(|f| !exclude.iter().any(|x| f.starts_with(&format!("{}/", x.trim_end_matches('/')))))
            .cloned()
            .collect()
    }
}

fn normalize(p: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other.as_os_str()),
        }
    }
    out
}

impl SourceTree for DiskTree {
    fn files(&self) -> Arc<Vec<String>> {
        self.files.get_or_init(|| Arc::new(self.walk())).clone()
    }

    fn read(&self, path: &str, max_bytes: u64) -> Result<Arc<str>, ReadError> {
        let abs = self.absolute(path)?;
        let meta = std::fs::metadata(&abs).map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => ReadError::Missing,
            _ => ReadError::Io(e.to_string()),
        })?;
        if !meta.is_file() {
            return Err(ReadError::Missing);
        }
        if meta.len() > max_bytes {
            return Err(ReadError::TooLarge(meta.len()));
        }
        let bytes = std::fs::read(&abs).map_err(|e| ReadError::Io(e.to_string()))?;
        bytes_to_text(bytes)
    }

    fn exists(&self, path: &str) -> bool {
        self.absolute(path).map(|p| p.exists()).unwrap_or(false)
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
