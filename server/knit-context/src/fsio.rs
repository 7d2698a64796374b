//! All file-system access of the context engine lives here: where the cache and state
//! folders are, walking the workspace (respecting `.gitignore`, skipping noise folders),
//! bounded reads that classify binary / huge / non-UTF-8 files, and small JSON state files
//! written atomically. Everything else in the crate works on data.

use std::fs;
use std::io::{Read, Write};
use std::path::{Component, Path, PathBuf};
use std::time::UNIX_EPOCH;

use anyhow::{Context, Result};
use serde::de::DeserializeOwned;
use serde::Serialize;

use crate::classify;

/// Files larger than this are never read (DESIGN 1.4).
pub const MAX_FILE_BYTES: u64 = 1024 * 1024;

/// 16 hex chars of blake3 over the canonical root: one folder per workspace.
pub fn workspace_key(root: &Path) -> String {
    let canonical = fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf());
    let hash = blake3::hash(canonical.to_string_lossy().as_bytes());
    hash.to_hex()[..16].to_string()
}

/// `$KNIT_CACHE_DIR` or the platform cache dir + `knit`.
pub fn default_cache_base() -> PathBuf {
    if let Some(dir) = std::env::var_os("KNIT_CACHE_DIR").filter(|v| !v.is_empty()) {
        return PathBuf::from(dir);
    }
    dirs::cache_dir().unwrap_or_else(std::env::temp_dir).join("knit")
}

/// `$KNIT_STATE_DIR` or the platform state dir (falling back to local data) + `knit`.
pub fn default_state_base() -> PathBuf {
    if let Some(dir) = std::env::var_os("KNIT_STATE_DIR").filter(|v| !v.is_empty()) {
        return PathBuf::from(dir);
    }
    dirs::state_dir()
        .or_else(dirs::data_local_dir)
        .unwrap_or_else(std::env::temp_dir)
        .join("knit")
}

/// What the walk found for one file, before reading it.
#[derive(Debug, Clone)]
pub struct WalkedFile {
    pub rel: String,
    pub kind: classify::Kind,
    pub mtime_ms: u64,
    pub size: u64,
}

pub fn mtime_ms(meta: &fs::Metadata) -> u64 {
    meta.modified()
        .ok()
        .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0)
}

/// Workspace-relative `/`-separated path of `path`, or `None` when it is outside `root`.
pub fn relative_path(root: &Path, path: &Path) -> Option<String> {
    let rel = path.strip_prefix(root).ok()?;
    let mut parts = Vec::new();
    for component in rel.components() {
        match component {
            Component::Normal(part) => parts.push(part.to_str()?.to_string()),
            Component::CurDir => {}
            _ => return None,
        }
    }
    if parts.is_empty() {
        None
    } else {
        Some(parts.join("/"))
    }
}

/// Every indexable file under `root`: `.gitignore` (and `.ignore`) respected even outside a
/// git checkout, hidden entries and noise folders skipped, symlinks not followed.
pub fn walk_workspace(root: &Path) -> Vec<WalkedFile> {
    let mut out = Vec::new();
    let walker = ignore::WalkBuilder::new(root)
        .hidden(true)
        .git_ignore(true)
        .git_exclude(true)
        .git_global(false)
        .require_git(false)
        .follow_links(false)
        .filter_entry(|entry| {
            let is_dir = entry.file_type().is_some_and(|t| t.is_dir());
            !(is_dir && entry.depth() > 0 && entry.file_name().to_str().is_some_and(classify::is_noise_dir))
        })
        .build();
    for entry in walker.flatten() {
        if !entry.file_type().is_some_and(|t| t.is_file()) {
            continue;
        }
        let Some(rel) = relative_path(root, entry.path()) else { continue };
        let Some(kind) = classify::kind_of(&rel) else { continue };
        let Ok(meta) = entry.metadata() else { continue };
        out.push(WalkedFile { rel, kind, mtime_ms: mtime_ms(&meta), size: meta.len() });
    }
    out.sort_by(|a, b| a.rel.cmp(&b.rel));
    out
}

/// Stat of one workspace file, for change notifications.
pub fn stat_file(root: &Path, rel: &str) -> Option<WalkedFile> {
    let kind = classify::kind_of(rel)?;
    let path = root.join(rel);
    let meta = fs::symlink_metadata(&path).ok()?;
    if !meta.is_file() {
        return None;
    }
    Some(WalkedFile { rel: rel.to_string(), kind, mtime_ms: mtime_ms(&meta), size: meta.len() })
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

/// Reads a file only if it is ≤ `max_bytes`, text, and UTF-8.
pub fn read_text(path: &Path, max_bytes: u64) -> ReadOutcome {
    let Ok(file) = fs::File::open(path) else { return ReadOutcome::Missing };
    let mut bytes = Vec::new();
    // read one byte more than allowed so that "exactly at the limit" and "over" differ
    if file.take(max_bytes + 1).read_to_end(&mut bytes).is_err() {
        return ReadOutcome::Missing;
    }
    classify_bytes(bytes, max_bytes)
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
    fs::read(path)
        .ok()
        .and_then(|bytes| serde_json::from_slice(&bytes).ok())
        .unwrap_or_default()
}

/// Writes JSON through a temporary file and a rename, so a crash never leaves half a file.
pub fn write_json<T: Serialize>(path: &Path, value: &T) -> Result<()> {
    let dir = path.parent().context("state file has no parent folder")?;
    fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    let tmp = dir.join(format!(".{}.{}.tmp", path.file_name().and_then(|n| n.to_str()).unwrap_or("state"), std::process::id()));
    {
        let mut file = fs::File::create(&tmp).with_context(|| format!("writing {}", tmp.display()))?;
        file.write_all(&serde_json::to_vec_pretty(value)?)?;
        file.sync_all().ok();
    }
    fs::rename(&tmp, path).with_context(|| format!("replacing {}", path.display()))?;
    Ok(())
}

/// Removes a folder tree; used to discard a corrupt or outdated index.
pub fn remove_dir_all_if_exists(dir: &Path) -> Result<()> {
    match fs::remove_dir_all(dir) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(e).with_context(|| format!("removing {}", dir.display())),
    }
}

pub fn content_hash(text: &str) -> String {
    blake3::hash(text.as_bytes()).to_hex()[..32].to_string()
}

/// Current content identity of a workspace file (for read evidence): the content hash of
/// text files; for media and other binaries, size + mtime (never reading a large video).
pub fn hash_file(root: &Path, rel: &str) -> Option<String> {
    let path = root.join(rel);
    let meta = fs::metadata(&path).ok()?;
    if classify::kind_of(rel) != Some(classify::Kind::Media) {
        if let ReadOutcome::Text(text) = read_text(&path, MAX_FILE_BYTES) {
            return Some(content_hash(&text));
        }
    }
    Some(format!("{}:{}", meta.len(), mtime_ms(&meta)))
}
