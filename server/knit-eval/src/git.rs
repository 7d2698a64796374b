//! Running git safely: every invocation of git by the evaluation goes through [`Git`].
//!
//! The evaluated repositories are data, never code: git runs with the system and global
//! configuration ignored (`GIT_CONFIG_NOSYSTEM`, `GIT_CONFIG_GLOBAL=/dev/null`), hooks,
//! fsmonitor, pager, external diff and textconv disabled, signatures not verified, no
//! background maintenance, and none of the caller's `GIT_*` variables (which could point
//! git at another repository or index). The temporary workspace repositories are created
//! here, so they never configure a filter driver either.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use anyhow::{anyhow, bail, Context, Result};

/// `-c` settings that switch off every repository-controlled hook point and anything
/// that would run in the background or page output.
const SAFE_CONFIG: &[&str] = &[
    "core.hooksPath=/dev/null",
    "core.fsmonitor=false",
    "core.untrackedCache=false",
    "core.pager=cat",
    "core.quotePath=false",
    "diff.external=",
    "diff.renames=false",
    "log.showSignature=false",
    "color.ui=false",
    "gc.auto=0",
    "maintenance.auto=false",
    "fetch.writeCommitGraph=false",
    "advice.detachedHead=false",
];

/// git pointed at one repository (a bare git dir or a work tree).
#[derive(Debug, Clone)]
pub struct Git {
    dir: PathBuf,
    /// May git fetch an object it lacks from a promisor remote? Off unless asked for: in a
    /// partial workspace (see `workspace.rs`) any lookup of a missing object — `cat-file
    /// -e` of a later commit — would otherwise fetch it from the source, a look-ahead.
    lazy_fetch: bool,
}

impl Git {
    pub fn new(dir: impl Into<PathBuf>) -> Git {
        Git { dir: dir.into(), lazy_fetch: false }
    }

    /// The same git, allowed to fetch missing objects from a promisor remote (for checking
    /// out a commit's files in a partial workspace, and nothing else).
    pub fn with_lazy_fetch(&self) -> Git {
        Git { dir: self.dir.clone(), lazy_fetch: true }
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    fn command<I, S>(&self, args: I) -> Command
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        let mut cmd = Command::new("git");
        // the caller's environment must not redirect git (GIT_DIR, GIT_INDEX_FILE, …)
        for (key, _) in std::env::vars_os() {
            if key.to_str().is_some_and(|k| k.starts_with("GIT_")) {
                cmd.env_remove(key);
            }
        }
        cmd.env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .env("GIT_TERMINAL_PROMPT", "0")
            .env("GIT_PAGER", "cat")
            .env("PAGER", "cat")
            .env("LC_ALL", "C")
            .arg("--no-pager")
            .arg("-C")
            .arg(&self.dir);
        if !self.lazy_fetch {
            cmd.env("GIT_NO_LAZY_FETCH", "1");
        }
        for setting in SAFE_CONFIG {
            cmd.arg("-c").arg(setting);
        }
        cmd.args(args).stdin(Stdio::null());
        cmd
    }

    /// Runs git and returns its raw output, whatever the exit status.
    pub fn output<I, S>(&self, args: I) -> Result<Output>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        self.command(args).output().context("cannot run git (is it installed?)")
    }

    /// Runs git; a non-zero exit is an error carrying git's own message.
    pub fn run<I, S>(&self, args: I) -> Result<Vec<u8>>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        let args: Vec<S> = args.into_iter().collect();
        let shown: Vec<String> = args.iter().take(4).map(|a| a.as_ref().to_string_lossy().into_owned()).collect();
        let out = self.output(&args)?;
        if !out.status.success() {
            bail!("git {} (in {}): {}", shown.join(" "), self.dir.display(), String::from_utf8_lossy(&out.stderr).trim());
        }
        Ok(out.stdout)
    }

    /// As [`run`](Self::run), output as trimmed text.
    pub fn text<I, S>(&self, args: I) -> Result<String>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        Ok(String::from_utf8_lossy(&self.run(args)?).trim().to_string())
    }

    /// True when `rev` names a commit this repository holds.
    pub fn has_commit(&self, rev: &str) -> bool {
        self.output(["cat-file", "-e", &format!("{rev}^{{commit}}")]).map(|o| o.status.success()).unwrap_or(false)
    }
}

/// True when git's error `message` says an object could not be found or read: what a
/// source repository missing some of its objects (a mirror that left out large files, a
/// damaged pack) makes git say, as opposed to any other failure.
pub fn names_missing_object(message: &str) -> bool {
    const SIGNS: &[&str] = &[
        "unable to read",
        "missing blob",
        "missing tree",
        "bad object",
        "not our ref",
        "from promisor remote",
        "failed to unpack tree object",
        "possible repository corruption",
    ];
    let message = message.to_ascii_lowercase();
    SIGNS.iter().any(|sign| message.contains(sign))
}

/// Checks that `dir` is a usable source repository: a git repository, not shallow, with at
/// least one commit at HEAD. Returns its git dir (absolute) and HEAD's sha. The messages
/// are the user's error messages (exit 2).
pub fn open_source(dir: &Path) -> Result<(PathBuf, String)> {
    if !dir.exists() {
        bail!("{}: no such folder", dir.display());
    }
    let git = Git::new(dir);
    let git_dir = git
        .text(["rev-parse", "--absolute-git-dir"])
        .map_err(|_| anyhow!("{}: not a git repository", dir.display()))?;
    if git.text(["rev-parse", "--is-shallow-repository"])? == "true" {
        bail!("{}: a shallow clone; the evaluation needs the full history (git fetch --unshallow)", dir.display());
    }
    let head = git
        .text(["rev-parse", "--verify", "--quiet", "HEAD^{commit}"])
        .ok()
        .filter(|s| !s.is_empty())
        .ok_or_else(|| anyhow!("{}: empty history (HEAD names no commit)", dir.display()))?;
    Ok((PathBuf::from(git_dir), head))
}
