//! The workspace a task is ranked in: a fresh git repository holding the parent commit's
//! files and the history up to the parent only — nothing later is reachable or even
//! present, so a ranker reading the workspace's own `.git` (co-change) cannot look ahead.
//!
//! One workspace serves a whole run: it moves from parent to parent (in git's date order,
//! ancestors first, see [`crate::run`]) by fetching the next parent's sha from the source
//! repository (only the objects it lacks travel) and updating the work tree with a
//! two-tree `read-tree -m -u`, which rewrites only the files that differ — far cheaper than
//! a clone per task. The baselines' corpus follows by blob id, re-reading changed files only.
//!
//! After every move each tracked file's mtime is set to the parent's commit date, as if
//! the parent had just been cloned: what a ranker sees (knit lists recently modified files
//! when a task has too few terms) never depends on which parents the run visited before.
//! (knit itself gets a fresh index per commit, see [`crate::run`]: an index refreshed
//! across commits is not deterministic.)
//!
//! The repository is created here: no filter driver is ever configured, reflogs are off
//! (an old parent stays unreachable once `main` moves on), and git runs through
//! [`crate::git::Git`] with every hook point disabled.
//!
//! A source repository may lack objects its history names: a mirror that left out its
//! largest files, a damaged pack. A full fetch then fails on the first missing object
//! (every later commit's history holds it), so the workspace falls back to a *partial*
//! fetch: commits and trees only, the blobs of each checked-out tree fetched on demand by
//! git from the source. What a ranker reads is the same (trees for the history, the work
//! tree for the files); only a parent whose own files include a missing blob cannot be
//! checked out, and [`Workspace::move_to`] says so with [`MoveError::Unreadable`].

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, UNIX_EPOCH};

use anyhow::{bail, Context, Result};

use crate::git::{names_missing_object, Git};

pub struct Workspace {
    source: PathBuf,
    root: PathBuf,
    git: Git,
    current: Option<String>,
    /// Tracked regular files at `current`: path → blob id.
    blobs: HashMap<String, String>,
    /// Fetching commits and trees only (the source lacks an object; see the module header).
    partial: bool,
}

/// The name of the source as a remote of the workspace (partial fetches need a named
/// promisor remote to fetch missing blobs from).
const SOURCE_REMOTE: &str = "source";

/// upload-pack refuses filters and wants of bare blob ids unless told to allow them; the
/// setting goes on its command line, since the source's own config is not ours to change.
const PARTIAL_UPLOAD_PACK: &str = "git -c uploadpack.allowFilter=true -c uploadpack.allowAnySHA1InWant=true upload-pack";

/// True when `git version`'s output names at least `min` (major, minor).
fn git_at_least(version: &str, min: (u32, u32)) -> bool {
    let numbers = version.split_whitespace().find(|w| w.starts_with(|c: char| c.is_ascii_digit())).unwrap_or("");
    let mut parts = numbers.split('.').map(|p| p.parse::<u32>().unwrap_or(0));
    (parts.next().unwrap_or(0), parts.next().unwrap_or(0)) >= min
}

/// Why the workspace could not move to a commit.
#[derive(Debug)]
pub enum MoveError {
    /// The source cannot provide the commit's files (an object it lacks): this commit
    /// cannot be a workspace, later ones may. The workspace must be rebuilt before reuse.
    Unreadable(anyhow::Error),
    /// Anything else (I/O, git missing): the run cannot go on.
    Failed(anyhow::Error),
}

impl std::fmt::Display for MoveError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            MoveError::Unreadable(e) => write!(f, "the source lacks objects of this commit: {e:#}"),
            MoveError::Failed(e) => write!(f, "{e:#}"),
        }
    }
}

impl std::error::Error for MoveError {}

impl Workspace {
    /// Creates an empty repository at `root` (which must not exist or be empty) that will
    /// fetch from the git dir `source`.
    pub fn create(source: &Path, root: &Path) -> Result<Workspace> {
        std::fs::create_dir_all(root).with_context(|| format!("creating {}", root.display()))?;
        if std::fs::read_dir(root)?.next().is_some() {
            bail!("workspace folder {} is not empty", root.display());
        }
        let root = std::fs::canonicalize(root)?;
        let git = Git::new(&root);
        git.run(["init", "-q", "--initial-branch=main"])?;
        // no reflog: a parent we moved away from must not stay reachable
        git.run(["config", "core.logAllRefUpdates", "false"])?;
        git.run(["config", "gc.auto", "0"])?;
        // sample hooks are inert, but an empty hooks folder says plainly that none exist
        let hooks = root.join(".git/hooks");
        if hooks.exists() {
            std::fs::remove_dir_all(&hooks)?;
        }
        Ok(Workspace { source: source.to_path_buf(), root, git, current: None, blobs: HashMap::new(), partial: false })
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    pub fn git(&self) -> &Git {
        &self.git
    }

    pub fn current(&self) -> Option<&str> {
        self.current.as_deref()
    }

    /// True once the workspace fetches commits and trees only (see the module header).
    pub fn is_partial(&self) -> bool {
        self.partial
    }

    /// Moves the workspace to commit `sha`: its objects and history are fetched, `main`
    /// points at it, and the work tree holds its files.
    pub fn move_to(&mut self, sha: &str) -> std::result::Result<(), MoveError> {
        if self.current.as_deref() == Some(sha) {
            return Ok(());
        }
        if !self.git.has_commit(sha) {
            self.fetch(sha)?;
        }
        // the checkout alone may fetch blobs on demand (a partial workspace): they are the
        // blobs of `sha`'s own files, nothing later
        let git = self.git.with_lazy_fetch();
        let checkout = match &self.current {
            // two-tree merge: only the files that differ are rewritten (and keep their
            // mtimes otherwise, so knit's index sees exactly the changed files)
            Some(old) => git.run(["read-tree", "-m", "-u", old.as_str(), sha]),
            None => git.run(["read-tree", "-m", "-u", sha]),
        };
        if let Err(e) = checkout {
            // in a partial workspace the blobs come from the source on demand: a blob it
            // lacks makes this commit unreadable, not the run
            return Err(if self.partial && names_missing_object(&format!("{e:#}")) { MoveError::Unreadable(e) } else { MoveError::Failed(e) });
        }
        self.finish_move(sha).map_err(MoveError::Failed)
    }

    fn finish_move(&mut self, sha: &str) -> Result<()> {
        self.git.run(["update-ref", "--no-deref", "refs/heads/main", sha])?;
        self.current = Some(sha.to_string());
        self.blobs = self.tracked_files()?;
        let time: u64 = self.git.text(["show", "-s", "--no-show-signature", "--format=%ct", sha])?.parse().unwrap_or(0);
        self.set_mtimes(UNIX_EPOCH + Duration::from_secs(time))?;
        // the index's stat data must match again, or the next two-tree merge refuses to
        // touch the files ("not uptodate")
        self.git.run(["update-index", "-q", "--refresh"])?;
        Ok(())
    }

    /// Fetches `sha` and its history from the source: everything when the source can
    /// provide it, else (from then on) commits and trees only.
    fn fetch(&mut self, sha: &str) -> std::result::Result<(), MoveError> {
        if !self.partial {
            let source = self.source.to_string_lossy().into_owned();
            let full = self.git.run(["fetch", "--quiet", "--no-tags", "--no-write-fetch-head", "--no-recurse-submodules", &source, sha]);
            let Err(full_error) = full else { return Ok(()) };
            // only a missing object is worth a partial fetch, and only when the commit
            // itself is in the source
            if !names_missing_object(&format!("{full_error:#}")) || !Git::new(&self.source).has_commit(sha) {
                return Err(MoveError::Failed(full_error.context(format!("fetching {sha} into the workspace"))));
            }
            self.fetch_partially().map_err(MoveError::Failed)?;
        }
        match self.git.run(["fetch", "--quiet", "--no-tags", "--no-write-fetch-head", "--no-recurse-submodules", "--filter=blob:none", SOURCE_REMOTE, sha]) {
            Ok(_) => Ok(()),
            Err(e) => {
                let missing = names_missing_object(&format!("{e:#}"));
                let e = e.context(format!("fetching {sha} (commits and trees only) into the workspace"));
                Err(if missing { MoveError::Unreadable(e) } else { MoveError::Failed(e) })
            }
        }
    }

    /// Turns the workspace into a partial clone of the source (blobs on demand), for a
    /// source known to lack objects.
    pub fn fetch_partially(&mut self) -> Result<()> {
        if self.partial {
            return Ok(());
        }
        // git before 2.44 ignores GIT_NO_LAZY_FETCH: a lookup of a later commit would
        // fetch it from the source (the run's look-ahead guard would stop it, unexplained)
        let version = self.git.text(["version"])?;
        if !git_at_least(&version, (2, 44)) {
            bail!("the source repository lacks objects its history names; reading it without look-ahead needs git 2.44 or newer (this is {version})");
        }
        let source = self.source.to_string_lossy().into_owned();
        let remote = |key: &str| format!("remote.{SOURCE_REMOTE}.{key}");
        let settings = [
            ("core.repositoryformatversion".to_string(), "1"),
            ("extensions.partialClone".to_string(), SOURCE_REMOTE),
            (remote("url"), source.as_str()),
            (remote("promisor"), "true"),
            (remote("partialclonefilter"), "blob:none"),
            (remote("uploadpack"), PARTIAL_UPLOAD_PACK),
        ];
        for (key, value) in settings {
            self.git.run(["config", key.as_str(), value]).with_context(|| format!("making the workspace a partial clone ({key})"))?;
        }
        self.partial = true;
        Ok(())
    }

    /// Regular files in the index (symlinks and submodules left out): path → blob id.
    fn tracked_files(&self) -> Result<HashMap<String, String>> {
        let out = self.git.run(["ls-files", "-s", "-z"])?;
        let mut files = HashMap::new();
        for entry in out.split(|&b| b == 0).filter(|e| !e.is_empty()) {
            let entry = String::from_utf8_lossy(entry);
            // `<mode> <blob> <stage>\t<path>`
            let Some((meta, path)) = entry.split_once('\t') else { continue };
            let mut parts = meta.split(' ');
            let (Some(mode), Some(blob)) = (parts.next(), parts.next()) else { continue };
            if mode.starts_with("100") {
                files.insert(path.to_string(), blob.to_string());
            }
        }
        Ok(files)
    }

    /// Every tracked regular file gets `time` as its mtime (never through a symlink: the
    /// file is checked with `symlink_metadata` first, so nothing outside is touched).
    fn set_mtimes(&self, time: std::time::SystemTime) -> Result<()> {
        for path in self.blobs.keys() {
            let full = self.root.join(path);
            match std::fs::symlink_metadata(&full) {
                Ok(meta) if meta.is_file() => {}
                _ => continue,
            }
            let file = std::fs::File::options().write(true).open(&full).with_context(|| format!("opening {}", full.display()))?;
            file.set_modified(time).with_context(|| format!("setting the mtime of {}", full.display()))?;
        }
        Ok(())
    }

    /// Tracked regular files at the current commit: path → blob id (content identity).
    pub fn blobs(&self) -> &HashMap<String, String> {
        &self.blobs
    }

    /// True when the workspace repository can resolve `sha` as a commit (look-ahead if
    /// `sha` is later than the current parent).
    pub fn can_resolve(&self, sha: &str) -> bool {
        self.git.has_commit(sha)
    }
}

#[cfg(test)]
mod tests {
    use super::git_at_least;

    #[test]
    fn git_versions_compare_by_major_then_minor() {
        assert!(git_at_least("git version 2.47.3", (2, 44)));
        assert!(git_at_least("git version 2.44.0.windows.1", (2, 44)));
        assert!(git_at_least("git version 3.0.0", (2, 44)));
        assert!(!git_at_least("git version 2.39.5", (2, 44)));
        assert!(!git_at_least("not git", (2, 44)));
    }
}
