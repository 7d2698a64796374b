//! Sampling commits into tasks: which commits of a repository's history are real tasks,
//! which changed files count, and the seeded, date-split sample.
//!
//! Order of decisions (each skip is counted by reason in [`SampleStats`]):
//! 1. the newest `history_limit` non-merge commits reachable from HEAD are listed (one
//!    `git log --raw`, no content diffs); root commits have no parent workspace;
//! 2. cheap filters on every listed commit: dependency-bot authors; release, dependency
//!    and formatting messages ([`crate::message`]); any lock file among the changes;
//!    then the changed files are filtered to *text candidates* — paths knit indexes as doc
//!    or code (`knit_context::classify`, so the sets agree), not hidden, not generated
//!    copies or vendored, not symlinks or submodules — and 2–8 must remain;
//! 3. the commits passing 2 are shuffled with the seed and inspected in that order with one
//!    `git diff -U0` each (binary content dropped, then 2..8 again; version-line-only and
//!    whitespace-only changes skipped) until `max_tasks` pass. Taking the first passing
//!    commits of a seeded permutation is a uniform sample of all commits that pass every
//!    filter, without diffing the whole history;
//! 4. the sample is sorted by commit date; the oldest half is `dev`, the newest `held-out`.

use std::collections::BTreeMap;

use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};

use crate::diff::{self, FileDiff};
use crate::git::Git;
use crate::message::{self, MessageSkip};
use crate::rng::Rng;

/// Lock files whose presence among the changes marks a dependency update.
const LOCK_FILES: &[&str] = &[
    "package-lock.json", "npm-shrinkwrap.json", "yarn.lock", "pnpm-lock.yaml", "pnpm-lock.yml",
    "bun.lockb", "cargo.lock", "package.resolved", "poetry.lock", "go.sum", "pipfile.lock",
    "composer.lock", "gemfile.lock", "uv.lock", "flake.lock", "pdm.lock",
];

/// Folders whose files are generated or vendored copies, beyond knit's own noise folders.
const GENERATED_DIRS: &[&str] = &["third_party", "third-party", "thirdparty", "vendored", "__snapshots__", "generated", "dist", "build"];

pub const MIN_FILES: usize = 2;
pub const MAX_FILES: usize = 8;

/// One changed path of a commit, as `git log --raw` reports it (no rename detection:
/// a rename is a deletion plus an addition).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RawChange {
    pub path: String,
    /// `A`dded, `M`odified, `D`eleted, `T`ype changed.
    pub status: char,
    pub old_mode: String,
    pub new_mode: String,
}

#[derive(Debug, Clone)]
pub struct LoggedCommit {
    pub sha: String,
    pub parents: Vec<String>,
    /// Committer date, unix seconds.
    pub time: i64,
    pub author_name: String,
    pub author_email: String,
    pub message: String,
    pub changes: Vec<RawChange>,
}

/// Why a changed path is not a text candidate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum PathDrop {
    /// knit does not index this type (or only its name: media).
    NotIndexed,
    /// A hidden file or folder (`.github/…`): knit's walk skips them.
    Hidden,
    /// Generated copy, vendored folder, snapshot.
    Generated,
    /// Symlink or submodule.
    NotAFile,
    /// Git saw binary content.
    Binary,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Skip {
    RootCommit,
    BotAuthor,
    ReleaseMessage,
    DependencyMessage,
    FormattingMessage,
    Lockfile,
    TooFewFiles,
    TooManyFiles,
    VersionLinesOnly,
    WhitespaceOnly,
    /// The source repository lacks an object the commit's diff needs (a mirror that left
    /// out large files, a damaged pack): the commit cannot be read, the run goes on.
    MissingObjects,
}

/// Is `path` a text file knit would consider, and if not, why?
pub fn path_drop(path: &str) -> Option<PathDrop> {
    let segments: Vec<&str> = path.split('/').collect();
    if segments.iter().any(|s| s.starts_with('.')) {
        return Some(PathDrop::Hidden);
    }
    let name = segments.last().copied().unwrap_or(path).to_ascii_lowercase();
    let dirs = &segments[..segments.len().saturating_sub(1)];
    if dirs.iter().any(|d| GENERATED_DIRS.contains(&d.to_ascii_lowercase().as_str()))
        || name.ends_with(".snap")
        || name.ends_with(".min.js")
        || name.ends_with(".min.css")
        || name.ends_with(".map")
        || name.ends_with("_pb2.py")
        || name.ends_with(".pb.go")
    {
        return Some(PathDrop::Generated);
    }
    if knit_context::classify::is_noise_path(path) {
        return Some(PathDrop::Generated);
    }
    match knit_context::classify::kind_of(path) {
        Some(knit_context::Kind::Doc) | Some(knit_context::Kind::Code) => None,
        _ => Some(PathDrop::NotIndexed),
    }
}

pub fn is_lock_file(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path).to_ascii_lowercase();
    LOCK_FILES.contains(&name.as_str()) || name.ends_with(".lock")
}

fn mode_is_file(mode: &str) -> bool {
    // 100644 / 100755; 000000 on the absent side of an addition or deletion
    mode.starts_with("100") || mode == "000000"
}

/// Lists the newest `limit` non-merge commits reachable from HEAD with their changed paths.
pub fn list_commits(git: &Git, limit: usize) -> Result<Vec<LoggedCommit>> {
    let out = git.run([
        "log",
        "--no-merges",
        "--no-renames",
        "--no-abbrev",
        "--no-color",
        "--no-show-signature",
        "-z",
        "--raw",
        &format!("-n{limit}"),
        "--format=%x01%H%x02%P%x02%ct%x02%an%x02%ae%x02%B%x02",
        "HEAD",
    ])?;
    let text = String::from_utf8_lossy(&out);
    let mut commits = Vec::new();
    for chunk in text.split('\x01').filter(|c| !c.is_empty()) {
        let fields: Vec<&str> = chunk.splitn(7, '\x02').collect();
        if fields.len() < 7 {
            continue;
        }
        let mut changes = Vec::new();
        let mut tokens = fields[6].split('\0');
        while let Some(token) = tokens.next() {
            let token = token.trim_start_matches('\n');
            let Some(raw) = token.strip_prefix(':') else { continue };
            let Some(path) = tokens.next() else { break };
            let parts: Vec<&str> = raw.split(' ').collect();
            if parts.len() < 5 {
                continue;
            }
            let status = parts[4].chars().next().unwrap_or('M');
            changes.push(RawChange { path: path.to_string(), status, old_mode: parts[0].to_string(), new_mode: parts[1].to_string() });
        }
        commits.push(LoggedCommit {
            sha: fields[0].trim().to_string(),
            parents: fields[1].split_whitespace().map(str::to_string).collect(),
            time: fields[2].trim().parse().with_context(|| format!("commit date of {}", fields[0]))?,
            author_name: fields[3].to_string(),
            author_email: fields[4].to_string(),
            message: fields[5].to_string(),
            changes,
        });
    }
    Ok(commits)
}

/// What survives the cheap filters: indexes of the text candidates among
/// `commit.changes`, and the dropped paths with their reasons.
pub type Kept = (Vec<usize>, Vec<(String, PathDrop)>);

/// The cheap filters (no content read).
pub fn cheap_filter(commit: &LoggedCommit) -> std::result::Result<Kept, Skip> {
    if commit.parents.len() != 1 {
        return Err(Skip::RootCommit);
    }
    if message::is_bot_author(&commit.author_name, &commit.author_email) {
        return Err(Skip::BotAuthor);
    }
    match message::classify_message(&commit.message) {
        Some(MessageSkip::Release) => return Err(Skip::ReleaseMessage),
        Some(MessageSkip::Dependencies) => return Err(Skip::DependencyMessage),
        Some(MessageSkip::Formatting) => return Err(Skip::FormattingMessage),
        None => {}
    }
    if commit.changes.iter().any(|c| is_lock_file(&c.path)) {
        return Err(Skip::Lockfile);
    }
    let mut kept = Vec::new();
    let mut dropped = Vec::new();
    for (i, change) in commit.changes.iter().enumerate() {
        let drop = if !mode_is_file(&change.old_mode) || !mode_is_file(&change.new_mode) { Some(PathDrop::NotAFile) } else { path_drop(&change.path) };
        match drop {
            None => kept.push(i),
            Some(reason) => dropped.push((change.path.clone(), reason)),
        }
    }
    if kept.len() < MIN_FILES {
        return Err(Skip::TooFewFiles);
    }
    if kept.len() > MAX_FILES {
        return Err(Skip::TooManyFiles);
    }
    Ok((kept, dropped))
}

/// One changed text file of a sampled commit.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChangedFile {
    pub path: String,
    pub status: char,
    /// Added plus removed lines.
    pub changed_lines: usize,
    /// Old-side line ranges (1-based, inclusive) the commit touched.
    pub old_ranges: Vec<(u32, u32)>,
    /// First changed old-side line.
    pub first_old_line: Option<u32>,
}

impl ChangedFile {
    /// Present at the parent commit (modified, deleted or type-changed), so retrievable.
    pub fn exists_at_parent(&self) -> bool {
        self.status != 'A'
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SampledCommit {
    pub sha: String,
    pub parent: String,
    pub time: i64,
    pub subject: String,
    pub message: String,
    pub files: Vec<ChangedFile>,
    /// Changed paths that are not text candidates, with the reason.
    pub dropped: Vec<(String, PathDrop)>,
    pub split: Split,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, PartialOrd, Ord, Hash)]
#[serde(rename_all = "kebab-case")]
pub enum Split {
    Dev,
    HeldOut,
}

impl Split {
    pub fn as_str(self) -> &'static str {
        match self {
            Split::Dev => "dev",
            Split::HeldOut => "held-out",
        }
    }
}

/// The content filters, on one `git diff -U0` of the kept paths.
pub fn inspect(git: &Git, commit: &LoggedCommit, kept: &[usize], mut dropped: Vec<(String, PathDrop)>) -> Result<std::result::Result<SampledCommit, Skip>> {
    let parent = &commit.parents[0];
    let paths: Vec<String> = kept.iter().map(|&i| commit.changes[i].path.clone()).collect();
    let mut args: Vec<String> = ["--literal-pathspecs", "diff", "-U0", "--no-renames", "--no-ext-diff", "--no-textconv", "--no-color", "--ignore-submodules"].iter().map(|s| s.to_string()).collect();
    args.push(parent.clone());
    args.push(commit.sha.clone());
    args.push("--".into());
    args.extend(paths.iter().cloned());
    let patch = match git.run(&args) {
        Ok(patch) => patch,
        Err(e) if crate::git::names_missing_object(&format!("{e:#}")) => return Ok(Err(Skip::MissingObjects)),
        Err(e) => return Err(e),
    };
    let diffs = diff::parse_patch(&patch, &paths);
    let empty = FileDiff::default();
    let mut files = Vec::new();
    let mut text_diffs: Vec<(&str, &FileDiff)> = Vec::new();
    for &i in kept {
        let change = &commit.changes[i];
        let d = diffs.get(&change.path).unwrap_or(&empty);
        if d.binary {
            dropped.push((change.path.clone(), PathDrop::Binary));
            continue;
        }
        text_diffs.push((&change.path, d));
        files.push(ChangedFile { path: change.path.clone(), status: change.status, changed_lines: d.changed_lines(), old_ranges: d.old_ranges(), first_old_line: d.first_old_line() });
    }
    if files.len() < MIN_FILES {
        return Ok(Err(Skip::TooFewFiles));
    }
    if diff::version_lines_only(&text_diffs) {
        return Ok(Err(Skip::VersionLinesOnly));
    }
    if text_diffs.iter().all(|(_, d)| d.whitespace_only()) {
        return Ok(Err(Skip::WhitespaceOnly));
    }
    dropped.sort();
    Ok(Ok(SampledCommit {
        sha: commit.sha.clone(),
        parent: parent.clone(),
        time: commit.time,
        subject: commit.message.lines().next().unwrap_or("").trim().to_string(),
        message: commit.message.clone(),
        files,
        dropped,
        split: Split::Dev,
    }))
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SampleStats {
    /// Non-merge commits listed (newest first, up to the history limit).
    pub listed: usize,
    /// Commits passing the cheap filters.
    pub pool: usize,
    /// Commits diffed (in seeded order) until the sample was full.
    pub inspected: usize,
    pub sampled: usize,
    /// Skips by reason: cheap reasons over all listed commits, content reasons over the
    /// inspected ones.
    pub skipped: BTreeMap<String, usize>,
    /// Changed paths of sampled commits that are not text candidates, by reason.
    pub dropped_paths: BTreeMap<String, usize>,
}

pub struct Sample {
    /// Oldest first; `split` set.
    pub commits: Vec<SampledCommit>,
    pub stats: SampleStats,
}

fn skip_name(skip: Skip) -> String {
    serde_json::to_value(skip).ok().and_then(|v| v.as_str().map(str::to_string)).unwrap_or_default()
}

/// Draws the sample (see the module header).
pub fn sample(git: &Git, history_limit: usize, max_tasks: usize, seed: u64) -> Result<Sample> {
    let commits = list_commits(git, history_limit)?;
    let mut stats = SampleStats { listed: commits.len(), ..Default::default() };
    let mut pool = Vec::new();
    for commit in &commits {
        match cheap_filter(commit) {
            Ok((kept, dropped)) => pool.push((commit, kept, dropped)),
            Err(skip) => *stats.skipped.entry(skip_name(skip)).or_default() += 1,
        }
    }
    stats.pool = pool.len();
    // a permutation that depends on the seed and the commits only, not on log order
    pool.sort_by(|a, b| a.0.sha.cmp(&b.0.sha));
    Rng::derived(seed, "sample").shuffle(&mut pool);
    let mut sampled = Vec::new();
    for (commit, kept, dropped) in pool {
        if sampled.len() >= max_tasks {
            break;
        }
        stats.inspected += 1;
        match inspect(git, commit, &kept, dropped)? {
            Ok(s) => sampled.push(s),
            Err(skip) => *stats.skipped.entry(skip_name(skip)).or_default() += 1,
        }
    }
    sampled.sort_by(|a, b| a.time.cmp(&b.time).then_with(|| a.sha.cmp(&b.sha)));
    let dev = sampled.len() / 2;
    for (i, s) in sampled.iter_mut().enumerate() {
        s.split = if i < dev { Split::Dev } else { Split::HeldOut };
        for (_, reason) in &s.dropped {
            let name = serde_json::to_value(reason).ok().and_then(|v| v.as_str().map(str::to_string)).unwrap_or_default();
            *stats.dropped_paths.entry(name).or_default() += 1;
        }
    }
    stats.sampled = sampled.len();
    Ok(Sample { commits: sampled, stats })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn commit(message: &str, paths: &[(&str, char)]) -> LoggedCommit {
        LoggedCommit {
            sha: "a".repeat(40),
            parents: vec!["b".repeat(40)],
            time: 0,
            author_name: "Dev".into(),
            author_email: "dev@example.com".into(),
            message: message.into(),
            changes: paths.iter().map(|(p, s)| RawChange { path: p.to_string(), status: *s, old_mode: "100644".into(), new_mode: "100644".into() }).collect(),
        }
    }

    #[test]
    fn text_candidates_by_path() {
        assert_eq!(path_drop("src/a.ts"), None);
        assert_eq!(path_drop("docs/guide.md"), None);
        assert_eq!(path_drop(".github/workflows/ci.yml"), Some(PathDrop::Hidden));
        assert_eq!(path_drop("dist/index.js"), Some(PathDrop::Generated));
        assert_eq!(path_drop("src/__snapshots__/a.test.ts.snap"), Some(PathDrop::Generated));
        assert_eq!(path_drop("tests/snapshots/x.snap"), Some(PathDrop::Generated));
        assert_eq!(path_drop("vendor/lib/x.go"), Some(PathDrop::Generated));
        assert_eq!(path_drop("third_party/x.c"), Some(PathDrop::Generated));
        assert_eq!(path_drop("web/app.min.js"), Some(PathDrop::Generated));
        assert_eq!(path_drop("media/logo.png"), Some(PathDrop::NotIndexed));
        assert_eq!(path_drop("LICENSE"), Some(PathDrop::NotIndexed));
        assert!(is_lock_file("Cargo.lock") && is_lock_file("sub/yarn.lock") && is_lock_file("Package.resolved") && is_lock_file("go.sum") && is_lock_file("x/Gemfile.lock"));
        assert!(!is_lock_file("src/lock.rs"));
    }

    #[test]
    fn cheap_filters_skip_what_is_not_a_task() {
        let ok = commit("Add retry option", &[("src/a.ts", 'M'), ("src/b.ts", 'M'), ("dist/a.js", 'M'), (".github/ci.yml", 'M')]);
        let (kept, dropped) = cheap_filter(&ok).expect("a task");
        assert_eq!(kept, vec![0, 1]);
        assert_eq!(dropped.len(), 2);
        assert_eq!(cheap_filter(&commit("Add x", &[("src/a.ts", 'M'), ("yarn.lock", 'M'), ("src/b.ts", 'M')])).unwrap_err(), Skip::Lockfile);
        assert_eq!(cheap_filter(&commit("v1.2.3", &[("src/a.ts", 'M'), ("src/b.ts", 'M')])).unwrap_err(), Skip::ReleaseMessage);
        assert_eq!(cheap_filter(&commit("chore(deps): bump", &[("src/a.ts", 'M'), ("src/b.ts", 'M')])).unwrap_err(), Skip::DependencyMessage);
        assert_eq!(cheap_filter(&commit("Run prettier", &[("src/a.ts", 'M'), ("src/b.ts", 'M')])).unwrap_err(), Skip::FormattingMessage);
        assert_eq!(cheap_filter(&commit("Fix", &[("src/a.ts", 'M'), ("logo.png", 'M')])).unwrap_err(), Skip::TooFewFiles);
        let many: Vec<(String, char)> = (0..9).map(|i| (format!("src/f{i}.ts"), 'M')).collect();
        let many: Vec<(&str, char)> = many.iter().map(|(p, s)| (p.as_str(), *s)).collect();
        assert_eq!(cheap_filter(&commit("Fix", &many)).unwrap_err(), Skip::TooManyFiles);
        let mut bot = commit("Fix", &[("src/a.ts", 'M'), ("src/b.ts", 'M')]);
        bot.author_name = "dependabot[bot]".into();
        assert_eq!(cheap_filter(&bot).unwrap_err(), Skip::BotAuthor);
        let mut root = commit("Initial", &[("src/a.ts", 'A'), ("src/b.ts", 'A')]);
        root.parents.clear();
        assert_eq!(cheap_filter(&root).unwrap_err(), Skip::RootCommit);
        let mut link = commit("Fix", &[("src/a.ts", 'M'), ("src/b.ts", 'M'), ("src/c.ts", 'M')]);
        link.changes[2].new_mode = "120000".into();
        assert_eq!(cheap_filter(&link).expect("two remain").1, vec![("src/c.ts".to_string(), PathDrop::NotAFile)]);
    }
}
