//! Which files changed together in the repository's history, for the context engine's
//! co-change signal. Read in-process with gix (see `git.rs` for why): no program of the
//! repository's choosing can run.
//!
//! Bounded on purpose: the newest `max_commits` non-merge commits reachable from HEAD
//! (merges repeat their branch's changes), commits touching more than
//! `max_files_per_commit` files dropped (mass renames, formatting sweeps, vendoring say
//! nothing about coupling), only paths inside the workspace root kept. A shallow clone
//! stops at its boundary (the boundary commit's own diff is unknown and is skipped); a
//! folder that is not in a repository is an error the caller turns into a degraded pack.
//!
//! [`History::update`] moves an existing history to a new HEAD by walking only the new
//! commits when the old HEAD is an ancestor; otherwise it rebuilds.

use crate::git::{open_repository, prefix_in_workdir};
use gix::bstr::{BStr, BString, ByteSlice, ByteVec};
use serde::{Deserialize, Serialize};
use std::collections::{HashMap, VecDeque};
use std::ops::ControlFlow;
use std::path::Path;

/// How much history to read.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct HistoryLimits {
    pub max_commits: usize,
    pub max_files_per_commit: usize,
}

impl Default for HistoryLimits {
    fn default() -> Self {
        HistoryLimits { max_commits: 5000, max_files_per_commit: 50 }
    }
}

/// One commit's changed files (indices into [`History::paths`]).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CommitFiles {
    /// Full hex id.
    pub id: String,
    /// Commit time, seconds since the epoch.
    pub time: i64,
    pub files: Vec<u32>,
    /// The subject line (at most [`MAX_SUBJECT_CHARS`] characters).
    pub subject: String,
}

/// Subject lines are cut to this many characters.
pub const MAX_SUBJECT_CHARS: usize = 200;

/// The recent history of the workspace, newest commit first.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct History {
    /// The HEAD this history was read at (hex), `None` for a repository without commits.
    pub head: Option<String>,
    /// Workspace-relative paths (the root's prefix in the repository removed).
    pub paths: Vec<String>,
    pub commits: Vec<CommitFiles>,
    /// Non-merge commits walked, including those dropped for size.
    pub walked: usize,
    /// The walk stopped at a shallow clone's boundary.
    pub shallow: bool,
    /// The walk stopped at `max_commits`.
    pub truncated: bool,
    pub limits: Option<HistoryLimits>,
}

impl History {
    /// Reads the history of the repository holding `root`.
    pub fn read(root: &Path, limits: HistoryLimits) -> Result<History, String> {
        let repo = history_repository(root)?;
        let prefix = prefix_in_workdir(&repo, root)?;
        let head = match repo.head_id() {
            Ok(id) => id.detach(),
            Err(_) => return Ok(History { limits: Some(limits), ..History::default() }),
        };
        let mut h = History { head: Some(head.to_string()), limits: Some(limits), ..History::default() };
        let mut reader = Reader::new(&repo, &prefix, limits);
        let mut index: HashMap<String, u32> = HashMap::new();
        reader.walk(head, None, |c, files| {
            let ids = files.into_iter().map(|p| intern(&mut h.paths, &mut index, p)).collect();
            h.commits.push(CommitFiles { id: c.0, time: c.1, files: ids, subject: c.2 });
        })?;
        h.walked = reader.walked;
        h.shallow = reader.shallow;
        h.truncated = reader.truncated;
        Ok(h)
    }

    /// This history moved to the repository's current HEAD: only commits after the old
    /// HEAD are read when it is an ancestor; a rewritten or switched history is re-read.
    pub fn update(self, root: &Path, limits: HistoryLimits) -> Result<History, String> {
        let repo = history_repository(root)?;
        let head = match repo.head_id() {
            Ok(id) => id.detach(),
            Err(_) => return Ok(History { limits: Some(limits), ..History::default() }),
        };
        if self.head.as_deref() == Some(head.to_string().as_str()) && self.limits == Some(limits) {
            return Ok(self);
        }
        let old = match self.head.as_deref().and_then(|h| gix::ObjectId::from_hex(h.as_bytes()).ok()) {
            Some(old) if self.limits == Some(limits) && is_ancestor(&repo, old, head) => old,
            _ => return History::read(root, limits),
        };
        let prefix = prefix_in_workdir(&repo, root)?;
        let mut reader = Reader::new(&repo, &prefix, limits);
        let mut index: HashMap<String, u32> = self.paths.iter().enumerate().map(|(i, p)| (p.clone(), i as u32)).collect();
        let mut paths = self.paths;
        let mut fresh = Vec::new();
        reader.walk(head, Some(old), |c, files| {
            let ids = files.into_iter().map(|p| intern(&mut paths, &mut index, p)).collect();
            fresh.push(CommitFiles { id: c.0, time: c.1, files: ids, subject: c.2 });
        })?;
        let walked = reader.walked + self.walked;
        fresh.extend(self.commits);
        let truncated = self.truncated || fresh.len() > limits.max_commits;
        fresh.truncate(limits.max_commits);
        Ok(History {
            head: Some(head.to_string()),
            paths,
            commits: fresh,
            walked: walked.min(limits.max_commits),
            shallow: self.shallow || reader.shallow,
            truncated,
            limits: Some(limits),
        })
    }

    /// A history cached by [`History::save`], if the file is intact (checksummed; a
    /// damaged or foreign file is ignored and the history re-read).
    pub fn load(path: &Path) -> Option<History> {
        let bytes = crate::files::own_read(path, 256 << 20)?;
        if bytes.len() < 16 {
            return None;
        }
        let (sum, payload) = bytes.split_at(16);
        if blake3::hash(payload).as_bytes()[..16] != *sum {
            return None;
        }
        postcard::from_bytes(payload).ok()
    }

    /// Caches this history (best effort: a cache that cannot be written costs a re-read).
    pub fn save(&self, path: &Path) {
        let Ok(payload) = postcard::to_stdvec(self) else { return };
        let mut bytes = blake3::hash(&payload).as_bytes()[..16].to_vec();
        bytes.extend_from_slice(&payload);
        let _ = crate::files::own_write(path, &bytes);
    }

    pub fn path(&self, id: u32) -> &str {
        self.paths.get(id as usize).map(String::as_str).unwrap_or("")
    }
}

fn intern(paths: &mut Vec<String>, index: &mut HashMap<String, u32>, p: String) -> u32 {
    if let Some(&i) = index.get(&p) {
        return i;
    }
    let i = paths.len() as u32;
    index.insert(p.clone(), i);
    paths.push(p);
    i
}

/// Decoded objects kept while walking history: each commit's tree is also its child's
/// parent tree, and neighbouring commits share most subtrees, so a cache spares most
/// decompression (bounded; gix grows it gradually).
const HISTORY_OBJECT_CACHE_BYTES: usize = 32 * 1024 * 1024;

fn history_repository(root: &Path) -> Result<gix::Repository, String> {
    let mut repo = open_repository(root)?;
    repo.object_cache_size_if_unset(HISTORY_OBJECT_CACHE_BYTES);
    Ok(repo)
}

/// Whether `old` is reachable from `new` (bounded walk: a very long way back counts as
/// not an ancestor, which only costs a re-read).
fn is_ancestor(repo: &gix::Repository, old: gix::ObjectId, new: gix::ObjectId) -> bool {
    let Ok(walk) = repo.rev_walk([new]).all() else { return false };
    walk.take(20_000).filter_map(Result::ok).any(|info| info.id == old)
}

struct Reader<'r> {
    repo: &'r gix::Repository,
    prefix: &'r str,
    limits: HistoryLimits,
    walked: usize,
    shallow: bool,
    truncated: bool,
}

impl<'r> Reader<'r> {
    fn new(repo: &'r gix::Repository, prefix: &'r str, limits: HistoryLimits) -> Self {
        Reader { repo, prefix, limits, walked: 0, shallow: false, truncated: false }
    }

    /// Walks non-merge commits from `tip` newest first (stopping at `hide` and its
    /// ancestors), calling `sink` with (id, time) and the workspace paths each changed.
    fn walk(&mut self, tip: gix::ObjectId, hide: Option<gix::ObjectId>, mut sink: impl FnMut((String, i64, String), Vec<String>)) -> Result<(), String> {
        let mut platform = self.repo.rev_walk([tip]).sorting(gix::revision::walk::Sorting::ByCommitTime(Default::default()));
        if let Some(h) = hide {
            platform = platform.with_hidden([h]);
        }
        let walk = platform.all().map_err(|e| format!("cannot walk the history: {e}"))?;
        let mut state = gix::diff::tree::State::default();
        let hash = self.repo.object_hash();
        for info in walk {
            let info = info.map_err(|e| format!("cannot walk the history: {e}"))?;
            let commit = self.repo.find_commit(info.id).map_err(|e| format!("cannot read commit {}: {e}", info.id))?;
            let stored_parents: Vec<gix::ObjectId> = commit.parent_ids().map(|p| p.detach()).collect();
            if stored_parents.len() > 1 {
                continue; // merges repeat their branch's changes
            }
            if self.walked >= self.limits.max_commits {
                self.truncated = true;
                break;
            }
            self.walked += 1;
            if info.parent_ids.is_empty() && !stored_parents.is_empty() {
                // A shallow clone's boundary: its parent is not here, its diff unknown.
                self.shallow = true;
                continue;
            }
            let tree = commit.tree().map_err(|e| format!("cannot read the tree of {}: {e}", info.id))?;
            let parent_tree = match stored_parents.first() {
                Some(p) => self.repo.find_commit(*p).and_then(|c| c.tree().map_err(Into::into)).map_err(|e| format!("cannot read the parent of {}: {e}", info.id))?,
                None => self.repo.empty_tree(),
            };
            let mut visit = ChangedPaths::new(self.limits.max_files_per_commit);
            let outcome = gix::diff::tree(
                gix::objs::TreeRefIter::from_bytes(&parent_tree.data, hash),
                gix::objs::TreeRefIter::from_bytes(&tree.data, hash),
                &mut state,
                &self.repo.objects,
                &mut visit,
            );
            if visit.over_limit {
                continue;
            }
            outcome.map_err(|e| format!("cannot diff commit {}: {e}", info.id))?;
            let files: Vec<String> = visit
                .paths
                .into_iter()
                .filter_map(|p| String::from_utf8(p.into()).ok())
                .filter_map(|p| p.strip_prefix(self.prefix).map(str::to_string))
                .collect();
            let time = commit.time().map(|t| t.seconds).unwrap_or(0);
            let subject: String = commit
                .message_raw()
                .ok()
                .map(|m| String::from_utf8_lossy(m.as_ref()).lines().find(|l| !l.trim().is_empty()).unwrap_or("").trim().to_string())
                .unwrap_or_default()
                .chars()
                .take(MAX_SUBJECT_CHARS)
                .collect();
            sink((info.id.to_string(), time, subject), files);
        }
        Ok(())
    }
}

/// A tree-diff delegate that keeps the paths of changed files (not folders) and stops
/// as soon as a commit touches more than the limit.
struct ChangedPaths {
    limit: usize,
    over_limit: bool,
    paths: Vec<BString>,
    path: BString,
    queue: VecDeque<BString>,
}

impl ChangedPaths {
    fn new(limit: usize) -> Self {
        ChangedPaths { limit, over_limit: false, paths: Vec::new(), path: BString::default(), queue: VecDeque::new() }
    }

    fn push(&mut self, name: &BStr) {
        if name.is_empty() {
            return;
        }
        if !self.path.is_empty() {
            self.path.push(b'/');
        }
        self.path.push_str(name);
    }
}

impl gix::diff::tree::Visit for ChangedPaths {
    fn pop_front_tracked_path_and_set_current(&mut self) {
        self.path = self.queue.pop_front().unwrap_or_default();
    }

    fn push_back_tracked_path_component(&mut self, component: &BStr) {
        self.push(component);
        self.queue.push_back(self.path.clone());
    }

    fn push_path_component(&mut self, component: &BStr) {
        self.push(component);
    }

    fn pop_path_component(&mut self) {
        match self.path.rfind_byte(b'/') {
            Some(pos) => self.path.resize(pos, 0),
            None => self.path.clear(),
        }
    }

    fn visit(&mut self, change: gix::diff::tree::visit::Change) -> gix::diff::tree::visit::Action {
        let mode = change.entry_mode();
        if mode.is_tree() || mode.is_commit() {
            return ControlFlow::Continue(());
        }
        self.paths.push(self.path.clone());
        if self.paths.len() > self.limit {
            self.over_limit = true;
            return ControlFlow::Break(());
        }
        ControlFlow::Continue(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::process::Command;

    fn git(dir: &Path, args: &[&str]) {
        let ok = Command::new("git")
            .args(["-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false"])
            .args(args)
            .current_dir(dir)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .status()
            .unwrap()
            .success();
        assert!(ok, "git {args:?}");
    }

    fn commit(dir: &Path, files: &[(&str, &str)], msg: &str) {
        for (p, t) in files {
            let p = dir.join(p);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, t).unwrap();
        }
        git(dir, &["add", "-A"]);
        git(dir, &["commit", "-qm", msg]);
    }

    #[test]
    fn reads_changes_drops_big_commits_and_updates_incrementally() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        git(root, &["init", "-q"]);
        commit(root, &[("src/a.ts", "1"), ("src/b.ts", "1")], "one");
        commit(root, &[("src/a.ts", "2"), ("docs/a.md", "2")], "two");
        let big: Vec<(String, String)> = (0..60).map(|i| (format!("gen/f{i}.ts"), "x".to_string())).collect();
        let big_refs: Vec<(&str, &str)> = big.iter().map(|(a, b)| (a.as_str(), b.as_str())).collect();
        commit(root, &big_refs, "big");
        let limits = HistoryLimits::default();
        let h = History::read(root, limits).unwrap();
        assert_eq!(h.walked, 3);
        assert_eq!(h.commits.len(), 2, "the 60-file commit is dropped");
        let newest: Vec<&str> = h.commits[0].files.iter().map(|&i| h.path(i)).collect();
        assert_eq!(newest, vec!["docs/a.md", "src/a.ts"]);
        commit(root, &[("src/b.ts", "3"), ("src/c.ts", "3")], "three");
        let h2 = h.clone().update(root, limits).unwrap();
        assert_eq!(h2.commits.len(), 3);
        let resolved = |h: &History| -> Vec<(String, Vec<String>)> {
            h.commits.iter().map(|c| (c.id.clone(), c.files.iter().map(|&i| h.path(i).to_string()).collect())).collect()
        };
        let fresh = History::read(root, limits).unwrap();
        assert_eq!(resolved(&h2), resolved(&fresh), "incremental equals a fresh read");
        assert_eq!((h2.walked, &h2.head), (fresh.walked, &fresh.head));
        // The cache round-trips and refuses a damaged file.
        let cache = dir.path().join("cache.bin");
        h2.save(&cache);
        assert_eq!(History::load(&cache), Some(h2.clone()));
        let mut bytes = std::fs::read(&cache).unwrap();
        let last = bytes.len() - 1;
        bytes[last] ^= 1;
        std::fs::write(&cache, bytes).unwrap();
        assert_eq!(History::load(&cache), None);
    }

    #[test]
    fn a_folder_without_git_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        assert!(History::read(dir.path(), HistoryLimits::default()).is_err());
    }
}
