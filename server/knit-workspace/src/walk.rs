//! The one walk of a workspace: `.gitignore`-aware, noise folders skipped, symlinks never
//! followed, nothing read above the root. Callers add their own rules as data
//! ([`WalkPolicy`]) instead of writing a second walker.

use std::path::{Component, Path};
use std::time::UNIX_EPOCH;

/// Folders never walked, whatever `.gitignore` says: dependency, build and VCS output.
pub const NOISE_DIRS: &[&str] = &[
    "node_modules", ".git", "target", "dist", "build", "out", "coverage", ".build", "Pods", "DerivedData", ".next", ".venv", "venv",
    "__pycache__",
];

/// At most this many files are listed: a hostile tree of millions of empty files must
/// not exhaust memory. Beyond it the walk stops and says so.
pub const MAX_WALK_ENTRIES: usize = 500_000;

/// A caller's extra rules.
#[derive(Clone, Debug, Default)]
pub struct WalkPolicy<'a> {
    /// Skip hidden files and folders (`.name`).
    pub skip_hidden: bool,
    /// More folder names to skip, on top of [`NOISE_DIRS`].
    pub extra_noise_dirs: &'a [&'a str],
}

/// One regular file found by the walk.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WalkedEntry {
    /// Workspace-relative, `/`-separated.
    pub rel: String,
    pub size: u64,
    pub mtime_ms: u64,
}

/// Regular files under `root`, sorted by path. Symlinks are not followed (a link is not
/// a regular file here), ignore files are read only inside the root (`.gitignore`,
/// `.ignore`, `.git/info/exclude`; never the user's global excludes, never a folder
/// above the root).
pub fn walk(root: &Path, policy: &WalkPolicy<'_>) -> Vec<WalkedEntry> {
    let mut out = Vec::new();
    let walker = builder(root, policy).build();
    for entry in walker.flatten() {
        if !entry.file_type().is_some_and(|t| t.is_file()) {
            continue;
        }
        let Some(rel) = relative(root, entry.path()) else { continue };
        let Ok(meta) = entry.metadata() else { continue };
        let mtime_ms = meta.modified().ok().and_then(|t| t.duration_since(UNIX_EPOCH).ok()).map(|d| d.as_millis() as u64).unwrap_or(0);
        out.push(WalkedEntry { rel, size: meta.len(), mtime_ms });
        if out.len() >= MAX_WALK_ENTRIES {
            break;
        }
    }
    out.sort_by(|a, b| a.rel.cmp(&b.rel));
    out
}

/// The folders the walk would enter under `root` (the root first, then sorted; at most
/// `max`): what a watcher of the workspace watches.
pub fn walk_dirs(root: &Path, policy: &WalkPolicy<'_>, max: usize) -> Vec<std::path::PathBuf> {
    let mut out: Vec<std::path::PathBuf> = builder(root, policy)
        .build()
        .flatten()
        .filter(|e| e.file_type().is_some_and(|t| t.is_dir()))
        .map(|e| e.into_path())
        .take(max)
        .collect();
    out.sort();
    out
}

/// Whether a workspace-relative path lies in a folder the walk never enters (noise
/// folders, the caller's extra ones; hidden ones when the policy skips them).
pub fn in_skipped_folder(rel: &str, policy: &WalkPolicy<'_>) -> bool {
    let mut parts: Vec<&str> = rel.split('/').collect();
    parts.pop(); // the file itself
    parts.iter().any(|p| NOISE_DIRS.contains(p) || policy.extra_noise_dirs.contains(p) || (policy.skip_hidden && p.starts_with('.')))
}

/// The one configured walker: ignore files inside the root only, symlinks not followed,
/// noise folders and the caller's extra ones never entered.
fn builder(root: &Path, policy: &WalkPolicy<'_>) -> ignore::WalkBuilder {
    let extra: Vec<String> = policy.extra_noise_dirs.iter().map(|s| s.to_string()).collect();
    let mut b = ignore::WalkBuilder::new(root);
    b.hidden(policy.skip_hidden)
        .parents(false)
        .git_ignore(true)
        .git_global(false)
        .git_exclude(true)
        .require_git(false)
        .follow_links(false)
        .filter_entry(move |e| {
            if e.depth() == 0 || !e.file_type().is_some_and(|t| t.is_dir()) {
                return true;
            }
            let name = e.file_name().to_string_lossy();
            !(NOISE_DIRS.contains(&name.as_ref()) || extra.iter().any(|x| x == name.as_ref()))
        });
    b
}

/// Workspace-relative `/`-separated path of `path` (UTF-8 names only).
pub fn relative(root: &Path, path: &Path) -> Option<String> {
    let rel = path.strip_prefix(root).ok()?;
    let mut parts = Vec::new();
    for c in rel.components() {
        match c {
            Component::Normal(part) => parts.push(part.to_str()?),
            Component::CurDir => {}
            _ => return None,
        }
    }
    (!parts.is_empty()).then(|| parts.join("/"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ignore_files_above_the_root_are_not_read() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(".gitignore"), "*.ts\n").unwrap();
        let root = dir.path().join("ws");
        std::fs::create_dir_all(root.join("src")).unwrap();
        std::fs::create_dir_all(root.join("node_modules/x")).unwrap();
        std::fs::write(root.join("src/a.ts"), "a").unwrap();
        std::fs::write(root.join("node_modules/x/b.ts"), "b").unwrap();
        std::fs::write(root.join(".gitignore"), "gen/\n").unwrap();
        std::fs::create_dir_all(root.join("gen")).unwrap();
        std::fs::write(root.join("gen/c.ts"), "c").unwrap();
        let rels: Vec<String> = walk(&root, &WalkPolicy::default()).into_iter().map(|e| e.rel).collect();
        assert_eq!(rels, vec![".gitignore".to_string(), "src/a.ts".to_string()]);
        let hidden: Vec<String> = walk(&root, &WalkPolicy { skip_hidden: true, extra_noise_dirs: &["src"] }).into_iter().map(|e| e.rel).collect();
        assert!(hidden.is_empty(), "{hidden:?}");
    }
}
