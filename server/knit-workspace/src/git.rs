//! Files git reports as changed (`knit check --changed [REV]`).
//!
//! git is run with every repository-controlled hook point disabled (fsmonitor, hooks,
//! external diff, textconv, pager): knit reads repositories, it never runs their code.

use std::collections::HashSet;
use std::path::Path;
use std::process::Command;

fn git(root: &Path, args: &[&str]) -> Result<String, String> {
    let out = Command::new("git")
        .current_dir(root)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_TERMINAL_PROMPT", "0")
        .env("GIT_OPTIONAL_LOCKS", "0")
        .args(["-c", "core.fsmonitor=", "-c", "core.hooksPath=/dev/null", "-c", "diff.external=", "--no-pager"])
        .args(args)
        .output()
        .map_err(|e| format!("cannot run git: {e}"))?;
    if !out.status.success() {
        return Err(String::from_utf8_lossy(&out.stderr).trim().to_string());
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// Workspace-relative paths changed in the working tree (staged, unstaged, untracked)
/// or, with `rev`, since that revision (plus the working tree).
pub fn changed_files(root: &Path, rev: Option<&str>) -> Result<HashSet<String>, String> {
    let mut set = HashSet::new();
    let base = rev.unwrap_or("HEAD");
    if base.starts_with('-') {
        return Err(format!("not a revision: {base}"));
    }
    // A repository without commits has no HEAD: everything is new.
    let diff = git(root, &["diff", "--name-only", "--no-ext-diff", "--no-textconv", "--relative", base, "--"]);
    match diff {
        Ok(out) => set.extend(out.lines().map(str::to_string)),
        Err(e) if rev.is_some() => return Err(e),
        Err(_) => {}
    }
    let untracked = git(root, &["ls-files", "--others", "--exclude-standard"])?;
    set.extend(untracked.lines().map(str::to_string));
    if rev.is_none() {
        if let Ok(out) = git(root, &["diff", "--name-only", "--cached", "--no-ext-diff", "--relative", "--"]) {
            set.extend(out.lines().map(str::to_string));
        }
    }
    Ok(set)
}
