//! Reading git, in-process (gix): files changed in the working tree or since a revision
//! (`knit check --changed [REV]`).
//!
//! No program is ever run. The repository's configuration can name filter drivers,
//! textconv and external diff commands, fsmonitor hooks, `gpg.program`, pagers — all of
//! them programs of the repository's choosing. gix reads objects, refs and the index
//! itself and knit never asks it for a filter pipeline, so none of those can run.
//! Working-tree files are compared with the index by stat and then by hashing their raw
//! bytes as a blob, without clean filters: a repository that relies on filters (LFS,
//! `eol` conversion) shows more files as changed, never fewer — `--changed` may check
//! too much, it never skips a change.
//!
//! Any failure is an error for the caller (exit 2), never "no changes": a stop hook must
//! not pass because git could not be read.

use crate::files::Confined;
use crate::walk::{walk, WalkPolicy};
use std::collections::{HashMap, HashSet};
use std::path::Path;

/// Opens the repository holding `root` (the root itself or a folder above it) without
/// environment variables, global or system configuration.
pub(crate) fn open_repository(root: &Path) -> Result<gix::Repository, String> {
    let opts = gix::open::Options::isolated();
    gix::discover_opts(root, Default::default(), opts).map_err(|e| format!("{} is not in a git repository ({e})", root.display()))
}

/// The root's path inside the repository's work tree (`""` when they are the same).
pub(crate) fn prefix_in_workdir(repo: &gix::Repository, root: &Path) -> Result<String, String> {
    let workdir = repo.workdir().ok_or("the repository has no work tree (bare)")?;
    let workdir = workdir.canonicalize().map_err(|e| format!("{}: {e}", workdir.display()))?;
    let root = root.canonicalize().map_err(|e| format!("{}: {e}", root.display()))?;
    let rel = root.strip_prefix(&workdir).map_err(|_| format!("{} is outside the repository's work tree {}", root.display(), workdir.display()))?;
    let s = rel.to_string_lossy().replace('\\', "/");
    Ok(if s.is_empty() { s } else { format!("{s}/") })
}

/// Workspace-relative paths changed in the working tree (staged, unstaged, untracked)
/// or, with `rev`, since that revision (plus the working tree).
pub fn changed_files(root: &Path, rev: Option<&str>) -> Result<HashSet<String>, String> {
    if let Some(r) = rev {
        if r.starts_with('-') || r.is_empty() {
            return Err(format!("not a revision: {r}"));
        }
    }
    let repo = open_repository(root)?;
    let prefix = prefix_in_workdir(&repo, root)?;
    let confined = Confined::new(root);
    let in_root = |repo_path: &str| -> Option<String> { repo_path.strip_prefix(prefix.as_str()).map(str::to_string) };

    // The base tree: REV, or HEAD (none in a repository without commits).
    let base: HashMap<String, gix::ObjectId> = match rev {
        Some(r) => {
            let id = repo.rev_parse_single(r).map_err(|e| format!("unknown revision `{r}`: {e}"))?;
            tree_files(&repo, id.detach())?
        }
        None => match repo.head_id() {
            Ok(id) => tree_files(&repo, id.detach())?,
            Err(_) if repo.head().map(|h| h.is_unborn()).unwrap_or(false) => HashMap::new(),
            Err(e) => return Err(format!("cannot read HEAD: {e}")),
        },
    };
    let index = repo.index_or_empty().map_err(|e| format!("cannot read the index: {e}"))?;
    // By hand, not through gix's `From`, which panics on a time before 1970.
    let ts = index.timestamp();
    let index_time = (ts.unix_seconds().clamp(0, i64::from(u32::MAX)) as u32, ts.nanoseconds());
    let hash_kind = repo.object_hash();

    let mut changed = HashSet::new();
    let mut indexed: HashSet<String> = HashSet::new();
    for entry in index.entries() {
        let Ok(path) = std::str::from_utf8(entry.path(&index)) else { continue };
        let Some(rel) = in_root(path) else { continue };
        indexed.insert(rel.clone());
        if entry.mode.is_submodule() {
            continue;
        }
        // Index against the base.
        if base.get(&rel) != Some(&entry.id) {
            changed.insert(rel.clone());
            continue;
        }
        // Work tree against the index.
        if worktree_differs(&confined, &rel, entry, index_time, hash_kind) {
            changed.insert(rel);
        }
    }
    for rel in base.keys() {
        if !indexed.contains(rel) {
            changed.insert(rel.clone());
        }
    }
    // Untracked files (ignore rules applied, as `git ls-files --others --exclude-standard`).
    for e in walk(root, &WalkPolicy::default()) {
        if !indexed.contains(&e.rel) {
            changed.insert(e.rel);
        }
    }
    Ok(changed)
}

/// Every blob of the tree of commit (or tree) `id`, by repository path.
pub(crate) fn tree_files(repo: &gix::Repository, id: gix::ObjectId) -> Result<HashMap<String, gix::ObjectId>, String> {
    let object = repo.find_object(id).map_err(|e| format!("cannot read object {id}: {e}"))?;
    let tree = object.peel_to_tree().map_err(|e| format!("{id} has no tree: {e}"))?;
    let mut rec = gix::traverse::tree::Recorder::default();
    tree.traverse().breadthfirst(&mut rec).map_err(|e| format!("cannot read tree {}: {e}", tree.id))?;
    Ok(rec
        .records
        .into_iter()
        .filter(|e| e.mode.is_blob() || e.mode.is_link())
        .filter_map(|e| String::from_utf8(e.filepath.into()).ok().map(|p| (p, e.oid)))
        .collect())
}

/// Whether the work-tree file differs from its index entry: stat first (git's rule,
/// including the racy-timestamp case), then the raw bytes hashed as a blob.
fn worktree_differs(confined: &Confined, rel: &str, entry: &gix::index::Entry, index_time: (u32, u32), hash_kind: gix::hash::Kind) -> bool {
    let Ok(real) = confined.resolve(rel) else { return true };
    let Ok(meta) = std::fs::symlink_metadata(&real) else { return true };
    if meta.file_type().is_symlink() {
        // A tracked symlink: its content is the link target.
        let Ok(target) = std::fs::read_link(&real) else { return true };
        let bytes = target.to_string_lossy().into_owned().into_bytes();
        return gix::objs::compute_hash(hash_kind, gix::objs::Kind::Blob, &bytes).map(|id| id != entry.id).unwrap_or(true);
    }
    if !meta.is_file() {
        return true;
    }
    if meta.len() != u64::from(entry.stat.size) && meta.len() < u64::from(u32::MAX) {
        return true;
    }
    if let Some((secs, nsecs)) = mtime(&meta) {
        let same_time = secs == entry.stat.mtime.secs && nsecs == entry.stat.mtime.nsecs;
        let racy = (secs, nsecs) >= index_time;
        if same_time && !racy {
            return false;
        }
    }
    // Never read more than the index says the file holds.
    let Ok(bytes) = confined.read_bytes(rel, u64::from(entry.stat.size).max(meta.len())) else { return true };
    gix::objs::compute_hash(hash_kind, gix::objs::Kind::Blob, &bytes).map(|id| id != entry.id).unwrap_or(true)
}

fn mtime(meta: &std::fs::Metadata) -> Option<(u32, u32)> {
    let d = meta.modified().ok()?.duration_since(std::time::UNIX_EPOCH).ok()?;
    Some((d.as_secs() as u32, d.subsec_nanos()))
}

/// One version of a file in the history of HEAD: the commit that made it (its blob
/// differs from the first parent's), when, its subject line, and the text.
pub use knit_anchors::engine::since::{FileHistory, FileVersion};

/// How far [`file_versions`] looks back.
#[derive(Clone, Copy, Debug)]
pub struct VersionLimits {
    pub max_commits: usize,
    pub max_versions: usize,
    pub max_bytes: u64,
    pub deadline: std::time::Instant,
}

/// The versions of workspace file `rel` along HEAD's history, newest first: one per commit
/// whose blob of the file differs from its first parent's. Bounded in commits walked,
/// versions kept, bytes per version and time; a version that is not UTF-8 or too large is
/// skipped. Read in-process (no program of the repository runs).
pub fn file_versions(root: &Path, rel: &str, limits: VersionLimits) -> Result<FileHistory, String> {
    let repo = open_repository(root)?;
    let path = format!("{}{rel}", prefix_in_workdir(&repo, root)?);
    let head = repo.head_id().map_err(|e| format!("no HEAD commit ({e})"))?.detach();
    let walk = repo.rev_walk([head]).first_parent_only().all().map_err(|e| e.to_string())?;
    let blob_at = |commit: &gix::Commit<'_>| -> Option<gix::ObjectId> {
        let tree = commit.tree().ok()?;
        let entry = tree.lookup_entry_by_path(&path).ok()??;
        entry.mode().is_blob().then(|| entry.object_id())
    };
    let mut out = Vec::new();
    // True once the walk reaches the file's first version or the root commit.
    let mut complete = true;
    let mut missing_contents = false;
    for (walked, info) in walk.enumerate() {
        if walked >= limits.max_commits || out.len() >= limits.max_versions || std::time::Instant::now() >= limits.deadline {
            complete = false;
            break;
        }
        let Ok(info) = info else {
            complete = false;
            break;
        };
        let Ok(commit) = repo.find_commit(info.id) else {
            complete = false;
            break;
        };
        let Some(blob) = blob_at(&commit) else { break }; // the file did not exist before
        let parent_blob = commit.parent_ids().next().and_then(|p| repo.find_commit(p).ok()).and_then(|p| blob_at(&p));
        if parent_blob == Some(blob) {
            continue;
        }
        // a partial clone names the blob but does not hold it (gix never fetches)
        let Ok(object) = repo.find_object(blob) else {
            missing_contents = true;
            continue;
        };
        if object.data.len() as u64 > limits.max_bytes {
            continue;
        }
        let Ok(text) = std::str::from_utf8(&object.data) else { continue };
        let decoded = commit.decode().map_err(|e| e.to_string())?;
        let subject = decoded.message_summary().to_string();
        let time = decoded.committer().map(|c| c.seconds()).unwrap_or(0);
        out.push(FileVersion { commit: info.id.to_string(), time, subject, text: std::sync::Arc::from(text) });
    }
    Ok(FileHistory { versions: out, complete, missing_contents })
}

/// [`file_versions`], with no repository (or no commit yet) read as an empty, complete
/// history: there is nothing more to find.
pub fn file_history(root: &Path, rel: &str, limits: VersionLimits) -> FileHistory {
    file_versions(root, rel, limits).unwrap_or(FileHistory { versions: Vec::new(), complete: true, missing_contents: false })
}
