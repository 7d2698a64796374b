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

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, UNIX_EPOCH};

use anyhow::{bail, Context, Result};

use crate::git::Git;

pub struct Workspace {
    source: PathBuf,
    root: PathBuf,
    git: Git,
    current: Option<String>,
    /// Tracked regular files at `current`: path → blob id.
    blobs: HashMap<String, String>,
}

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
        Ok(Workspace { source: source.to_path_buf(), root, git, current: None, blobs: HashMap::new() })
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

    /// Moves the workspace to commit `sha`: its objects and history are fetched, `main`
    /// points at it, and the work tree holds its files.
    pub fn move_to(&mut self, sha: &str) -> Result<()> {
        if self.current.as_deref() == Some(sha) {
            return Ok(());
        }
        let source = self.source.to_string_lossy().into_owned();
        if !self.git.has_commit(sha) {
            self.git.run(["fetch", "--quiet", "--no-tags", "--no-write-fetch-head", "--no-recurse-submodules", &source, sha]).with_context(|| format!("fetching {sha} into the workspace"))?;
        }
        match &self.current {
            // two-tree merge: only the files that differ are rewritten (and keep their
            // mtimes otherwise, so knit's index sees exactly the changed files)
            Some(old) => self.git.run(["read-tree", "-m", "-u", old.as_str(), sha])?,
            None => self.git.run(["read-tree", "-m", "-u", sha])?,
        };
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
