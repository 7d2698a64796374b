//! Keeping knit's own cache bounded and cleanable: every workspace gets one folder under
//! the cache base (named by [`workspace_key`](crate::workspace_key)); each run marks its
//! folder used, drops the folders no run has used for [`MAX_IDLE`], and `knit cache`
//! lists or removes them on request.
//!
//! Only folders knit made are ever touched: a direct child of the cache base whose name is
//! a workspace key (16 lowercase hex digits) and that is a real folder, not a link, so a
//! `KNIT_CACHE_DIR` pointed at a shared folder loses nothing else.

use std::fs;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

/// A workspace's cache folder unused this long is removed by the next knit run.
pub const MAX_IDLE: Duration = Duration::from_secs(30 * 24 * 60 * 60);

/// The file whose modification time says when a run last used the folder; it holds the
/// workspace root, for `knit cache list`.
const LAST_USED: &str = "last-used";

/// One workspace's cache folder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CacheFolder {
    pub dir: PathBuf,
    /// The workspace root, when a run recorded it.
    pub root: Option<String>,
    /// Bytes of the regular files inside (links are not followed).
    pub bytes: u64,
    /// Time since a run last used it (`None`: never marked, or a clock before it).
    pub idle: Option<Duration>,
}

fn is_workspace_key(name: &str) -> bool {
    name.len() == 16 && name.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

/// Marks `dir` (a workspace's cache folder) used now, recording the root it belongs to.
/// Failures are ignored: the cache is advisory.
pub fn mark_used(dir: &Path, root: &Path) {
    let _ = crate::files::own_write(&dir.join(LAST_USED), root.to_string_lossy().as_bytes());
}

/// Every workspace cache folder under `base`, largest first; `sizes: false` leaves `bytes`
/// at 0 and reads no more than one marker per folder (what every run's prune needs).
pub fn cache_folders(base: &Path, sizes: bool) -> Vec<CacheFolder> {
    let Ok(entries) = fs::read_dir(base) else { return Vec::new() };
    let now = SystemTime::now();
    let mut out: Vec<CacheFolder> = entries
        .flatten()
        .filter(|e| is_workspace_key(&e.file_name().to_string_lossy()))
        .filter(|e| e.path().symlink_metadata().is_ok_and(|m| m.is_dir()))
        .map(|e| {
            let dir = e.path();
            let marker = dir.join(LAST_USED);
            let root = crate::files::own_read(&marker, 64 << 10).map(|b| String::from_utf8_lossy(&b).into_owned());
            let used = marker.symlink_metadata().or_else(|_| dir.symlink_metadata()).and_then(|m| m.modified()).ok();
            CacheFolder { bytes: if sizes { tree_bytes(&dir, 0) } else { 0 }, root, idle: used.and_then(|t| now.duration_since(t).ok()), dir }
        })
        .collect();
    out.sort_by(|a, b| b.bytes.cmp(&a.bytes).then(a.dir.cmp(&b.dir)));
    out
}

/// Bytes of the regular files under `dir`, not following links (depth-bounded: knit's
/// own folders are shallow).
fn tree_bytes(dir: &Path, depth: u32) -> u64 {
    if depth > 8 {
        return 0;
    }
    let Ok(entries) = fs::read_dir(dir) else { return 0 };
    entries
        .flatten()
        .filter_map(|e| e.path().symlink_metadata().ok().map(|m| (e.path(), m)))
        .map(|(path, meta)| if meta.is_dir() { tree_bytes(&path, depth + 1) } else if meta.is_file() { meta.len() } else { 0 })
        .sum()
}

/// Removes the workspace folders under `base` unused for longer than `max_idle`, except
/// `keep` (the folder of the run doing it). Returns what was removed.
pub fn prune(base: &Path, keep: &Path, max_idle: Duration) -> Vec<PathBuf> {
    let mut removed = Vec::new();
    for folder in cache_folders(base, false) {
        if folder.dir == keep || folder.idle.is_none_or(|idle| idle <= max_idle) {
            continue;
        }
        if crate::files::own_remove_dir_all(&folder.dir).is_ok() {
            removed.push(folder.dir);
        }
    }
    removed
}

/// The cache folder of the workspace at `root` for a run that is about to use it: marked
/// used, and the other workspaces' folders idle past [`MAX_IDLE`] pruned.
pub fn workspace_cache(root: &Path) -> Option<PathBuf> {
    let dir = crate::cache_dir_for(root)?;
    mark_used(&dir, root);
    prune(&crate::cache_base(), &dir, MAX_IDLE);
    Some(dir)
}

/// Removes `folders` (from [`cache_folders`]); returns the bytes freed.
pub fn remove(folders: &[CacheFolder]) -> std::io::Result<u64> {
    let mut freed = 0;
    for folder in folders {
        crate::files::own_remove_dir_all(&folder.dir)?;
        freed += folder.bytes;
    }
    Ok(freed)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn age(path: &Path, days: u64) {
        let when = SystemTime::now() - Duration::from_secs(days * 24 * 3600);
        fs::File::options().write(true).open(path).unwrap().set_modified(when).unwrap();
    }

    #[test]
    fn only_idle_workspace_folders_are_pruned() {
        let base = tempfile::tempdir().unwrap();
        let fresh = base.path().join("0123456789abcdef");
        let stale = base.path().join("fedcba9876543210");
        let current = base.path().join("aaaaaaaaaaaaaaaa");
        for dir in [&fresh, &stale, &current] {
            fs::create_dir_all(dir.join("decls-v4-c")).unwrap();
            fs::write(dir.join("decls-v4-c/entry.bin"), [0u8; 100]).unwrap();
            mark_used(dir, Path::new("/some/root"));
        }
        age(&stale.join(LAST_USED), 40);
        age(&current.join(LAST_USED), 40);
        // not knit's: a file and a folder with other names, and a link to a key-named folder
        fs::write(base.path().join("notes.txt"), "mine").unwrap();
        fs::create_dir_all(base.path().join("other-tool")).unwrap();
        let outside = tempfile::tempdir().unwrap();
        fs::create_dir_all(outside.path().join("kept")).unwrap();
        #[cfg(unix)]
        std::os::unix::fs::symlink(outside.path(), base.path().join("bbbbbbbbbbbbbbbb")).unwrap();

        let folders = cache_folders(base.path(), true);
        assert_eq!(folders.len(), 3, "{folders:?}");
        assert!(folders.iter().all(|f| f.bytes >= 100 && f.root.as_deref() == Some("/some/root")), "{folders:?}");

        let removed = prune(base.path(), &current, MAX_IDLE);
        assert_eq!(removed, vec![stale.clone()]);
        assert!(fresh.exists() && current.exists() && !stale.exists());
        assert!(base.path().join("notes.txt").exists() && base.path().join("other-tool").exists());
        assert!(outside.path().join("kept").exists());
    }

    #[test]
    fn remove_frees_what_it_listed() {
        let base = tempfile::tempdir().unwrap();
        let dir = base.path().join("0123456789abcdef");
        fs::create_dir_all(&dir).unwrap();
        fs::write(dir.join("index.bin"), [1u8; 4096]).unwrap();
        let folders = cache_folders(base.path(), true);
        assert_eq!(remove(&folders).unwrap(), 4096);
        assert!(!dir.exists());
    }
}
