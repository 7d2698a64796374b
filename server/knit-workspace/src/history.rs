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
//! Renames are followed: a commit that deletes one path and adds another with the same
//! content, or the only deleted and added files sharing a file name (or, failing that, a
//! name stem), moved the file; older commits are recorded under its newest name, as
//! `git log --follow` would show them. Without it a reorganised tree (a module moved to
//! a new folder, `.js` turned into `.ts`) starts with no history at all, and the files it
//! changes with are lost to co-change. Renames are read from every commit, including
//! those dropped for size, since mass moves are exactly such commits (diffs over
//! [`RENAME_SCAN_CHANGES`] changes are not scanned).
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

/// A commit with more changed entries than this is not scanned for renames (a vendored
/// tree or generated sweep of that size is not worth a full diff).
pub const RENAME_SCAN_CHANGES: usize = 20_000;

/// Longest chain of renames followed from one path (a bound against cycles).
const MAX_RENAME_CHAIN: usize = 32;

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
            let ids = interned(&mut h.paths, &mut index, files);
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
            let ids = interned(&mut paths, &mut index, files);
            fresh.push(CommitFiles { id: c.0, time: c.1, files: ids, subject: c.2 });
        })?;
        let walked = reader.walked + self.walked;
        // The new commits' renames apply to every older commit: re-name their files.
        let mut older = self.commits;
        if !reader.renames.is_empty() {
            // Each known path's id under its newest name, worked out once, not per commit.
            let known = paths.len();
            let newest: Vec<u32> = (0..known).map(|i| {
                let name = reader.renames.resolve(&paths[i]);
                if name == paths[i] { i as u32 } else { intern(&mut paths, &mut index, name) }
            }).collect();
            for c in &mut older {
                let mut ids: Vec<u32> = Vec::with_capacity(c.files.len());
                for id in c.files.iter().map(|&i| newest[i as usize]) {
                    if !ids.contains(&id) {
                        ids.push(id);
                    }
                }
                c.files = ids;
            }
        }
        fresh.extend(older);
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

/// The ids of `files`, each once (a commit that renamed a file lists both of its names,
/// which now resolve to one).
fn interned(paths: &mut Vec<String>, index: &mut HashMap<String, u32>, files: Vec<String>) -> Vec<u32> {
    let mut ids: Vec<u32> = Vec::with_capacity(files.len());
    for p in files {
        let id = intern(paths, index, p);
        if !ids.contains(&id) {
            ids.push(id);
        }
    }
    ids
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
    /// Renames met so far (older name → newer name), applied to every older commit.
    renames: Renames,
}

impl<'r> Reader<'r> {
    fn new(repo: &'r gix::Repository, prefix: &'r str, limits: HistoryLimits) -> Self {
        Reader { repo, prefix, limits, walked: 0, shallow: false, truncated: false, renames: Renames::default() }
    }

    /// Walks non-merge commits from `tip` newest first (stopping at `hide` and its
    /// ancestors), calling `sink` with (id, time) and the workspace paths each changed,
    /// each under its newest name.
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
                Some(p) => self.repo.find_commit(*p).and_then(|c| c.tree()).map_err(|e| format!("cannot read the parent of {}: {e}", info.id))?,
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
            if !visit.too_big_for_renames {
                let in_workspace = |list: Vec<(BString, gix::ObjectId)>| -> Vec<(String, gix::ObjectId)> {
                    list.into_iter().filter_map(|(p, id)| Some((String::from_utf8(p.into()).ok()?.strip_prefix(self.prefix)?.to_string(), id))).collect()
                };
                for (older, newer) in pair_renames(&in_workspace(visit.deleted), &in_workspace(visit.added)) {
                    self.renames.record(older, newer);
                }
            }
            if visit.over_limit {
                continue;
            }
            outcome.map_err(|e| format!("cannot diff commit {}: {e}", info.id))?;
            let files: Vec<String> = visit
                .paths
                .into_iter()
                .filter_map(|p| String::from_utf8(p.into()).ok())
                .filter_map(|p| p.strip_prefix(self.prefix).map(str::to_string))
                .map(|p| self.renames.resolve(&p))
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

/// A tree-diff delegate that keeps the paths of changed files (not folders) up to the
/// limit, and every added and deleted file with its blob id (for renames) up to
/// [`RENAME_SCAN_CHANGES`] changes, where it stops.
struct ChangedPaths {
    limit: usize,
    over_limit: bool,
    too_big_for_renames: bool,
    changes: usize,
    paths: Vec<BString>,
    added: Vec<(BString, gix::ObjectId)>,
    deleted: Vec<(BString, gix::ObjectId)>,
    path: BString,
    queue: VecDeque<BString>,
}

impl ChangedPaths {
    fn new(limit: usize) -> Self {
        ChangedPaths {
            limit,
            over_limit: false,
            too_big_for_renames: false,
            changes: 0,
            paths: Vec::new(),
            added: Vec::new(),
            deleted: Vec::new(),
            path: BString::default(),
            queue: VecDeque::new(),
        }
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
        self.changes += 1;
        if self.changes > RENAME_SCAN_CHANGES {
            self.too_big_for_renames = true;
            self.over_limit = true;
            return ControlFlow::Break(());
        }
        match change {
            gix::diff::tree::visit::Change::Addition { oid, .. } => self.added.push((self.path.clone(), oid)),
            gix::diff::tree::visit::Change::Deletion { oid, .. } => self.deleted.push((self.path.clone(), oid)),
            gix::diff::tree::visit::Change::Modification { .. } => {}
        }
        if !self.over_limit {
            self.paths.push(self.path.clone());
            if self.paths.len() > self.limit {
                self.over_limit = true;
                self.paths.clear();
            }
        }
        ControlFlow::Continue(())
    }
}

/// Older name → newer name, from the renames met walking newest first.
#[derive(Debug, Default)]
struct Renames {
    newer: HashMap<String, String>,
}

impl Renames {
    fn is_empty(&self) -> bool {
        self.newer.is_empty()
    }

    /// The newest name of `path` (itself when it was never renamed).
    fn resolve(&self, path: &str) -> String {
        let mut current = path;
        for _ in 0..MAX_RENAME_CHAIN {
            match self.newer.get(current) {
                Some(next) if next != current => current = next,
                _ => break,
            }
        }
        current.to_string()
    }

    /// `older` became `newer` in a commit older than every one recorded so far, so it
    /// governs every commit still to come (an earlier-recorded rename of the same name was
    /// a later move of a name reused since). A rename back to a name's newest self is a
    /// no-op (a file moved away and back).
    fn record(&mut self, older: String, newer: String) {
        let target = self.resolve(&newer);
        if target == older {
            self.newer.remove(&older);
        } else {
            self.newer.insert(older, target);
        }
    }
}

/// The renames one commit made: each deleted path paired with an added one holding the
/// same content (when several hold it, the one with the same file name), then the only
/// deleted and added files sharing a file name, then the only ones sharing a name stem
/// (`index.js` → `source/index.ts`). Each path pairs once.
fn pair_renames(deleted: &[(String, gix::ObjectId)], added: &[(String, gix::ObjectId)]) -> Vec<(String, String)> {
    if deleted.is_empty() || added.is_empty() {
        return Vec::new();
    }
    let mut pairs = Vec::new();
    let mut deleted_left = vec![true; deleted.len()];
    let mut added_left = vec![true; added.len()];
    let mut by_content: HashMap<gix::ObjectId, Vec<usize>> = HashMap::new();
    for (i, (_, id)) in added.iter().enumerate() {
        by_content.entry(*id).or_default().push(i);
    }
    for (d, (old, id)) in deleted.iter().enumerate() {
        let Some(candidates) = by_content.get_mut(id) else { continue };
        // Identical content shared by several added files (empty `__init__.py`s, licence
        // copies) pairs only with the same file name, or when just one is left.
        let open: Vec<usize> = (0..candidates.len()).filter(|&i| added_left[candidates[i]]).collect();
        let same_name = open.iter().copied().find(|&i| file_name(&added[candidates[i]].0) == file_name(old));
        let pick = same_name.or(if open.len() == 1 { Some(open[0]) } else { None });
        if let Some(pos) = pick {
            let a = candidates.remove(pos);
            added_left[a] = false;
            deleted_left[d] = false;
            pairs.push((old.clone(), added[a].0.clone()));
        }
    }
    for key in [file_name as fn(&str) -> &str, name_stem] {
        let mut deleted_by: HashMap<&str, Vec<usize>> = HashMap::new();
        for (d, (old, _)) in deleted.iter().enumerate().filter(|(d, _)| deleted_left[*d]) {
            deleted_by.entry(key(old)).or_default().push(d);
        }
        let mut added_by: HashMap<&str, Vec<usize>> = HashMap::new();
        for (a, (new, _)) in added.iter().enumerate().filter(|(a, _)| added_left[*a]) {
            added_by.entry(key(new)).or_default().push(a);
        }
        let mut found: Vec<(usize, usize)> = deleted_by
            .iter()
            .filter(|(k, ds)| !k.is_empty() && ds.len() == 1)
            .filter_map(|(k, ds)| match added_by.get(k).map(Vec::as_slice) {
                Some([a]) => Some((ds[0], *a)),
                _ => None,
            })
            .collect();
        found.sort_unstable();
        for (d, a) in found {
            deleted_left[d] = false;
            added_left[a] = false;
            pairs.push((deleted[d].0.clone(), added[a].0.clone()));
        }
    }
    pairs
}

fn file_name(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

/// The file name without its last extension (`index.test.ts` → `index.test`).
fn name_stem(path: &str) -> &str {
    let name = file_name(path);
    match name.rfind('.') {
        Some(dot) if dot > 0 => &name[..dot],
        _ => name,
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

    fn named(h: &History) -> Vec<Vec<String>> {
        h.commits.iter().map(|c| c.files.iter().map(|&i| h.path(i).to_string()).collect()).collect()
    }

    #[test]
    fn older_commits_are_recorded_under_a_renamed_files_newest_name() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        git(root, &["init", "-q"]);
        commit(root, &[("lib/a.js", "a1"), ("lib/b.js", "b1"), ("lib/util.js", "u1")], "one");
        commit(root, &[("lib/a.js", "a2"), ("lib/b.js", "b2")], "two");
        // A pure move (same content), a move with an edit (same file name), and a
        // conversion (same stem, new extension), in one commit.
        std::fs::create_dir_all(root.join("src")).unwrap();
        git(root, &["mv", "lib/a.js", "src/a.js"]);
        git(root, &["mv", "lib/b.js", "src/b.js"]);
        git(root, &["mv", "lib/util.js", "src/util.ts"]);
        commit(root, &[("src/b.js", "b3 edited"), ("src/util.ts", "u3 typed")], "move");
        let limits = HistoryLimits::default();
        let h = History::read(root, limits).unwrap();
        let expected = vec![vec!["src/a.js", "src/b.js", "src/util.ts"], vec!["src/a.js", "src/b.js"], vec!["src/a.js", "src/b.js", "src/util.ts"]];
        let mut got = named(&h);
        for list in got.iter_mut() {
            list.sort();
        }
        assert_eq!(got, expected.iter().map(|l| l.iter().map(|s| s.to_string()).collect::<Vec<_>>()).collect::<Vec<_>>());

        // A mass move over the size limit is dropped as a commit, yet its renames apply;
        // an incremental update re-names what was read before it.
        let before = h.clone();
        for i in 0..60 {
            commit(root, &[(&format!("gen/g{i}.ts"), "x")], "gen");
        }
        let h = before.clone().update(root, limits).unwrap();
        git(root, &["mv", "src", "pkg"]);
        git(root, &["mv", "gen", "pkg/gen"]);
        commit(root, &[], "mass move");
        let moved = h.clone().update(root, limits).unwrap();
        let fresh = History::read(root, limits).unwrap();
        assert_eq!(named(&moved), named(&fresh), "incremental equals a fresh read");
        assert_eq!(fresh.walked, 64);
        let oldest = fresh.commits.last().unwrap();
        let mut oldest_files: Vec<&str> = oldest.files.iter().map(|&i| fresh.path(i)).collect();
        oldest_files.sort();
        assert_eq!(oldest_files, vec!["pkg/a.js", "pkg/b.js", "pkg/util.ts"]);
        assert_eq!(named(&fresh)[0], vec!["pkg/gen/g59.ts".to_string()], "the newest kept commit, under its new name");
    }

    #[test]
    fn renames_pair_by_content_then_unique_name_then_unique_stem() {
        let id = |b: u8| gix::ObjectId::from_bytes_or_panic(&[b; 20]);
        let deleted = vec![("a/x.ts".to_string(), id(1)), ("a/index.ts".to_string(), id(2)), ("b/index.ts".to_string(), id(3)), ("a/conv.js".to_string(), id(4))];
        let added = vec![("c/y.ts".to_string(), id(1)), ("c/index.ts".to_string(), id(9)), ("d/index.ts".to_string(), id(8)), ("c/conv.ts".to_string(), id(7))];
        let pairs = pair_renames(&deleted, &added);
        // x.ts → y.ts by content; the two index.ts are ambiguous and stay unpaired.
        assert_eq!(pairs, vec![("a/x.ts".to_string(), "c/y.ts".to_string()), ("a/conv.js".to_string(), "c/conv.ts".to_string())]);
        // Two empty files moved at once pair by file name, not by the order they came in.
        let empty = id(0);
        let deleted = vec![("p/__init__.py".to_string(), empty), ("p/py.typed".to_string(), empty)];
        let added = vec![("q/py.typed".to_string(), empty), ("q/__init__.py".to_string(), empty), ("r/__init__.py".to_string(), empty)];
        assert_eq!(pair_renames(&deleted, &added), vec![("p/__init__.py".to_string(), "q/__init__.py".to_string()), ("p/py.typed".to_string(), "q/py.typed".to_string())]);
        let mut r = Renames::default();
        r.record("b".into(), "c".into());
        r.record("a".into(), "b".into());
        assert_eq!(r.resolve("a"), "c");
        r.record("c".into(), "a".into()); // moved away and back: no cycle
        assert_eq!(r.resolve("c"), "c");
    }

    #[test]
    fn a_folder_without_git_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        assert!(History::read(dir.path(), HistoryLimits::default()).is_err());
    }
}
