//! The context engine's view of the file system, as data: every read, walk and write
//! goes through `knit-workspace` (`Confined` reads confined to the root, regular files
//! only, bounded; the one workspace walk with this engine's extra noise rules; knit's own
//! cache and state files written atomically). This module only adapts those results to
//! what the index wants (kinds, read outcomes); nothing here opens a file itself.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use knit_anchors::source::ReadError;
use knit_workspace::files::{self as wsfiles, Confined};
use knit_workspace::walk::{self, WalkPolicy};
use serde::de::DeserializeOwned;
use serde::Serialize;

use crate::classify;

/// Files larger than this are never read (DESIGN 1.4).
pub const MAX_FILE_BYTES: u64 = wsfiles::MAX_FILE_BYTES;
/// State files (pins, reads, epochs) larger than this are ignored and start afresh.
const MAX_STATE_BYTES: u64 = 64 << 20;

/// 16 hex chars of blake3 over the canonical root: one folder per workspace.
pub fn workspace_key(root: &Path) -> String {
    knit_workspace::workspace_key(root)
}

/// `$KNIT_CACHE_DIR` or the platform cache dir + `knit`.
pub fn default_cache_base() -> PathBuf {
    knit_workspace::cache_base()
}

/// `$KNIT_STATE_DIR` or the platform state dir (falling back to local data) + `knit`.
pub fn default_state_base() -> PathBuf {
    knit_workspace::state_base()
}

/// What the walk found for one file, before reading it.
#[derive(Debug, Clone)]
pub struct WalkedFile {
    pub rel: String,
    pub kind: classify::Kind,
    pub mtime_ms: u64,
    pub size: u64,
}

/// Workspace-relative `/`-separated path of `path`, or `None` when it is outside `root`.
pub fn relative_path(root: &Path, path: &Path) -> Option<String> {
    let rel = Confined::new_unchecked(root).relative(path)?;
    (!rel.is_empty()).then_some(rel)
}

/// Every indexable file under the root: the workspace walk with hidden entries and this
/// engine's noise folders skipped, classified by path.
pub fn walk_workspace(files: &Confined) -> Vec<WalkedFile> {
    let policy = WalkPolicy { skip_hidden: true, extra_noise_dirs: classify::NOISE_DIRS };
    walk::walk(files.root(), &policy)
        .into_iter()
        .filter_map(|e| Some(WalkedFile { kind: classify::kind_of(&e.rel)?, rel: e.rel, mtime_ms: e.mtime_ms, size: e.size }))
        .collect()
}

/// Stat of one workspace file, for change notifications. Like the walk, a symlink is not
/// a file here.
pub fn stat_file(files: &Confined, rel: &str) -> Option<WalkedFile> {
    let kind = classify::kind_of(rel)?;
    let st = files.lstat(rel)?;
    Some(WalkedFile { rel: rel.to_string(), kind, mtime_ms: st.mtime_ms, size: st.size })
}

/// Outcome of reading a text file for indexing.
#[derive(Debug)]
pub enum ReadOutcome {
    Text(String),
    Huge,
    Binary,
    NotUtf8,
    Missing,
}

/// Reads a workspace file only if it is a regular file inside the root, ≤ `max_bytes`,
/// text, and UTF-8.
pub fn read_text(files: &Confined, rel: &str, max_bytes: u64) -> ReadOutcome {
    match files.read_bytes(rel, max_bytes) {
        Ok(bytes) => classify_bytes(bytes, max_bytes),
        Err(ReadError::TooLarge(_)) => ReadOutcome::Huge,
        Err(_) => ReadOutcome::Missing,
    }
}

/// The same classification for text the caller already has as bytes.
pub fn classify_bytes(bytes: Vec<u8>, max_bytes: u64) -> ReadOutcome {
    if bytes.len() as u64 > max_bytes {
        return ReadOutcome::Huge;
    }
    let head = &bytes[..bytes.len().min(8192)];
    if head.contains(&0) {
        return ReadOutcome::Binary;
    }
    match String::from_utf8(bytes) {
        Ok(text) => ReadOutcome::Text(text.strip_prefix('\u{feff}').map(str::to_string).unwrap_or(text)),
        Err(_) => ReadOutcome::NotUtf8,
    }
}

/// Reads a JSON state file; a missing or unreadable file yields the default (state is
/// advisory, never a reason to fail a pack).
pub fn read_json<T: DeserializeOwned + Default>(path: &Path) -> T {
    wsfiles::own_read(path, MAX_STATE_BYTES).and_then(|bytes| serde_json::from_slice(&bytes).ok()).unwrap_or_default()
}

/// Writes JSON through a temporary file and a rename, so a crash never leaves half a file.
pub fn write_json<T: Serialize>(path: &Path, value: &T) -> Result<()> {
    wsfiles::own_write(path, &serde_json::to_vec_pretty(value)?).with_context(|| format!("writing {}", path.display()))
}

/// Creates one of the engine's own folders (the index).
pub fn create_dir_all(dir: &Path) -> Result<()> {
    wsfiles::own_create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))
}

/// Whether one of the engine's own files exists (the index's `meta.json`).
pub fn own_exists(path: &Path) -> bool {
    wsfiles::own_exists(path)
}

/// Reads one of the engine's own small files (the index signature).
pub fn read_own(path: &Path) -> Option<Vec<u8>> {
    wsfiles::own_read(path, MAX_STATE_BYTES)
}

/// Removes a folder tree; used to discard a corrupt or outdated index.
pub fn remove_dir_all_if_exists(dir: &Path) -> Result<()> {
    wsfiles::own_remove_dir_all(dir).with_context(|| format!("removing {}", dir.display()))
}

/// Removes one of the engine's own files (a cache in an older format); absent is fine.
pub fn remove_own_file(path: &Path) -> Result<()> {
    wsfiles::own_remove_file(path).with_context(|| format!("removing {}", path.display()))
}

pub fn content_hash(text: &str) -> String {
    blake3::hash(text.as_bytes()).to_hex()[..32].to_string()
}

/// Current content identity of a workspace file (for read evidence): the content hash of
/// text files; for media and other binaries, size + mtime (never reading a large video).
/// Only regular files inside the root count: a link out of the workspace, a FIFO or a
/// device is `None` and never opened for long.
pub fn hash_file(files: &Confined, rel: &str) -> Option<String> {
    let st = files.stat(rel)?;
    if classify::kind_of(rel) != Some(classify::Kind::Media) {
        if let ReadOutcome::Text(text) = read_text(files, rel, MAX_FILE_BYTES) {
            return Some(content_hash(&text));
        }
    }
    Some(format!("{}:{}", st.size, st.mtime_ms))
}
