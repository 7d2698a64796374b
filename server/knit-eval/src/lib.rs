//! knit-eval: context packs measured on real commit histories (issue 10, part 1).
//!
//! A commit is a task someone did: the files it changed are what they needed. For a sample
//! of commits from a repository's history, the workspace is rebuilt at the commit's parent
//! (with history up to the parent only) and knit and a set of baselines rank the workspace
//! for the task; the commit's changed files are the ground truth.
//!
//! - *open mode*: the most-changed file is the open, focused buffer (cursor on its first
//!   changed line), no query; ground truth = the other changed files present at the parent;
//! - *query mode*: the cleaned commit message is the query; ground truth = every changed
//!   file present at the parent.
//!
//! Files the commit added cannot be retrieved from the parent: they are counted, never
//! ground truth. Module map:
//! - [`git`]: every git invocation, with every repository hook point disabled;
//! - [`message`]: message cleaning and release / dependency / formatting messages;
//! - [`diff`]: `-U0` diffs, whitespace-only and version-only changes;
//! - [`sample`]: which commits are tasks, the seeded sample and the date split;
//! - [`workspace`]: the no-look-ahead workspace, moved from parent to parent;
//! - [`corpus`], [`tokens`], [`rankers`]: the candidate set and the baselines;
//! - [`knit`]: knit through its public API;
//! - [`metrics`]: recall, MRR, all@10, passage hit, paired bootstrap;
//! - [`report`]: aggregation, targets, human / JSON / Markdown output;
//! - [`rng`]: the seeded generator.

pub mod corpus;
pub mod diff;
pub mod git;
pub mod knit;
pub mod message;
pub mod metrics;
pub mod rankers;
pub mod report;
pub mod rng;
pub mod sample;
pub mod tokens;
pub mod workspace;

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{bail, Context, Result};
use serde::{Deserialize, Serialize};

use crate::corpus::Corpus;
use crate::git::Git;
use crate::knit::{KnitDetail, KnitRanker};
use crate::metrics::{Ranked, TaskMetrics, TruthFile};
use crate::rankers::BaselineQuery;
use crate::sample::{SampleStats, SampledCommit, Split};
use crate::workspace::{MoveError, Workspace};

pub use crate::report::{Report, RepoReport};

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    Open,
    Query,
}

impl Mode {
    pub fn as_str(self) -> &'static str {
        match self {
            Mode::Open => "open",
            Mode::Query => "query",
        }
    }
}

/// Rankers in report order; `cochange` applies to open mode only.
pub const RANKERS: [&str; 5] = ["knit", "bm25", "grep", "filename", "cochange"];

pub fn applies(ranker: &str, mode: Mode) -> bool {
    ranker != "cochange" || mode == Mode::Open
}

#[derive(Debug, Clone)]
pub struct Config {
    pub repo: PathBuf,
    pub seed: u64,
    /// Commits to sample (each gives up to one task per mode).
    pub max_tasks: usize,
    pub modes: Vec<Mode>,
    pub splits: Vec<Split>,
    /// Newest non-merge commits considered for sampling.
    pub history_limit: usize,
    pub bootstrap_resamples: usize,
    /// Where the temporary workspace and knit's cache go (default: the system temp dir).
    pub temp_dir: Option<PathBuf>,
}

impl Config {
    pub fn new(repo: impl Into<PathBuf>) -> Config {
        Config {
            repo: repo.into(),
            seed: 1,
            max_tasks: 120,
            modes: vec![Mode::Open, Mode::Query],
            splits: vec![Split::Dev, Split::HeldOut],
            history_limit: 3000,
            bootstrap_resamples: 2000,
            temp_dir: None,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct OpenFile {
    pub path: String,
    /// 1-based, old side.
    pub cursor_line: u32,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RankerOutcome {
    pub ranked: Ranked,
    pub metrics: TaskMetrics,
    pub millis: f64,
}

/// One task and every ranker's answer to it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TaskRecord {
    /// `<sha12>:<mode>`.
    pub id: String,
    pub commit: String,
    pub parent: String,
    pub time: i64,
    pub split: Split,
    pub mode: Mode,
    pub subject: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub open: Option<OpenFile>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub query: Option<String>,
    pub truth: Vec<TruthFile>,
    /// Text files the commit added: not retrievable at the parent, never ground truth.
    pub added_files: Vec<String>,
    /// Changed text files present at the parent that are not candidates there (ignored
    /// by `.gitignore`, over the size limit, not UTF-8).
    pub not_candidates: Vec<String>,
    pub baseline_query: BaselineQuery,
    pub knit: KnitDetail,
    /// Ranker name → outcome, for the rankers that apply to the mode.
    pub results: BTreeMap<String, RankerOutcome>,
}

/// Cost of one sampled commit (all its tasks).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CommitTiming {
    pub commit: String,
    /// Fetch + `read-tree` to the parent.
    pub move_ms: f64,
    pub knit_refresh_ms: f64,
    pub knit_refreshed_files: usize,
    pub corpus_refresh_ms: f64,
    pub history_ms: f64,
    pub total_ms: f64,
}

struct Environment {
    dir: PathBuf,
    workspace: Workspace,
    knit: KnitRanker,
    /// Engines opened so far (one per commit).
    engines: usize,
    corpus: Corpus,
}

impl Environment {
    /// A fresh workspace, knit engine and corpus in `base/<generation>`.
    fn create(base: &Path, source_git_dir: &Path, generation: usize) -> Result<Environment> {
        let dir = base.join(format!("gen{generation}"));
        let workspace = Workspace::create(source_git_dir, &dir.join("workspace"))?;
        let knit = KnitRanker::open(workspace.root(), &dir.join("knit-cache-0"), &dir.join("knit-state-0"))?;
        Ok(Environment { dir, workspace, knit, engines: 1, corpus: Corpus::default() })
    }

    /// Replaces knit's engine by one with an empty index and state.
    fn fresh_knit(&mut self) -> Result<()> {
        let n = self.engines;
        let next = KnitRanker::open(self.workspace.root(), &self.dir.join(format!("knit-cache-{n}")), &self.dir.join(format!("knit-state-{n}")))?;
        drop(std::mem::replace(&mut self.knit, next));
        // the previous index is never read again: keep the disk use of a long run flat
        for old in [format!("knit-cache-{}", n - 1), format!("knit-state-{}", n - 1)] {
            let _ = std::fs::remove_dir_all(self.dir.join(old));
        }
        self.engines += 1;
        Ok(())
    }
}

fn ms(since: Instant) -> f64 {
    since.elapsed().as_secs_f64() * 1000.0
}

/// A readable name for a repository folder (`/x/colinhacks+zod/repo` → `colinhacks+zod`).
pub fn repo_name(path: &Path) -> String {
    let canonical = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    let mut parts: Vec<String> = canonical.components().map(|c| c.as_os_str().to_string_lossy().into_owned()).collect();
    while parts.last().is_some_and(|p| p == "repo" || p == ".git" || p.is_empty() || p == "/") && parts.len() > 1 {
        parts.pop();
    }
    let last = parts.last().cloned().unwrap_or_else(|| "repo".into());
    last.strip_suffix(".git").map(str::to_string).unwrap_or(last)
}

/// The task of `commit` in `mode`, or why there is none.
fn build_task(commit: &SampledCommit, mode: Mode, corpus: &Corpus, root: &Path) -> std::result::Result<(TaskRecord, Option<String>), &'static str> {
    let present: Vec<&sample::ChangedFile> = commit.files.iter().filter(|f| f.exists_at_parent()).collect();
    let added_files: Vec<String> = commit.files.iter().filter(|f| !f.exists_at_parent()).map(|f| f.path.clone()).collect();
    let (open, open_text, query, wanted): (Option<OpenFile>, Option<String>, Option<String>, Vec<&sample::ChangedFile>) = match mode {
        Mode::Open => {
            let mut by_change = present.clone();
            by_change.sort_by(|a, b| b.changed_lines.cmp(&a.changed_lines).then_with(|| a.path.cmp(&b.path)));
            let Some(first) = by_change.first() else { return Err("no changed file present at the parent") };
            let bytes = std::fs::read(root.join(&first.path)).map_err(|_| "open file missing from the workspace")?;
            let text = String::from_utf8_lossy(&bytes).into_owned();
            let lines = text.lines().count().max(1) as u32;
            let cursor = first.first_old_line.unwrap_or(1).clamp(1, lines);
            let others: Vec<&sample::ChangedFile> = present.iter().copied().filter(|f| f.path != first.path).collect();
            if others.is_empty() {
                return Err("no other changed file present at the parent");
            }
            (Some(OpenFile { path: first.path.clone(), cursor_line: cursor }), Some(text), None, others)
        }
        Mode::Query => {
            let cleaned = message::clean_message(&commit.message);
            if !cleaned.chars().any(char::is_alphanumeric) {
                return Err("message empty after cleaning");
            }
            if present.is_empty() {
                return Err("no changed file present at the parent");
            }
            (None, None, Some(cleaned), present.clone())
        }
    };
    let truth: Vec<TruthFile> = wanted.iter().filter(|f| corpus.contains(&f.path)).map(|f| TruthFile { path: f.path.clone(), ranges: f.old_ranges.clone() }).collect();
    let not_candidates: Vec<String> = wanted.iter().filter(|f| !corpus.contains(&f.path)).map(|f| f.path.clone()).collect();
    if truth.is_empty() {
        return Err("no ground-truth file among the candidates");
    }
    let record = TaskRecord {
        id: format!("{}:{}", &commit.sha[..12.min(commit.sha.len())], mode.as_str()),
        commit: commit.sha.clone(),
        parent: commit.parent.clone(),
        time: commit.time,
        split: commit.split,
        mode,
        subject: commit.subject.clone(),
        open,
        query,
        truth,
        added_files,
        not_candidates,
        baseline_query: BaselineQuery::default(),
        knit: KnitDetail::default(),
        results: BTreeMap::new(),
    };
    Ok((record, open_text))
}

/// Runs every ranker on one task and scores them.
fn run_task(task: &mut TaskRecord, open_text: Option<&str>, env: &mut Environment, history: &[rankers::HistoryCommit]) -> Result<()> {
    let exclude = task.open.as_ref().map(|o| o.path.clone());
    let t = Instant::now();
    let (knit_ranked, detail) = match (&task.open, &task.query) {
        (Some(open), _) => env.knit.rank_open(&open.path, open_text.unwrap_or(""), open.cursor_line)?,
        (None, Some(query)) => env.knit.rank_query(query)?,
        (None, None) => bail!("task {} has neither an open file nor a query", task.id),
    };
    let knit_ms = ms(t);
    task.knit = detail;
    let mut outcomes: Vec<(&str, Ranked, f64)> = vec![("knit", knit_ranked, knit_ms)];
    let query = match (&task.open, &task.query) {
        (Some(_), _) => rankers::open_query(&env.corpus, open_text.unwrap_or("")),
        (None, Some(q)) => rankers::message_query(q),
        (None, None) => BaselineQuery::default(),
    };
    let corpus = &env.corpus;
    let ex = exclude.as_deref();
    let t = Instant::now();
    outcomes.push(("bm25", rankers::bm25(corpus, &query.bm25, ex), ms(t)));
    let t = Instant::now();
    outcomes.push(("grep", rankers::grep(corpus, &query.grep, ex), ms(t)));
    let t = Instant::now();
    outcomes.push(("filename", rankers::filename(corpus, &query.filename, ex), ms(t)));
    if let Some(open) = &task.open {
        let t = Instant::now();
        outcomes.push(("cochange", rankers::cochange(history, &open.path, corpus), ms(t)));
    }
    task.baseline_query = query;
    for (name, ranked, millis) in outcomes {
        debug_assert!(applies(name, task.mode));
        let mut metrics = metrics::score(&ranked, &task.truth);
        if name == "knit" {
            let first = first_passages(env.workspace.root(), &ranked.paths[..ranked.paths.len().min(10)]);
            metrics.first_passage_hits = Some(metrics::passage_hits(&ranked.paths, &first, &task.truth));
        }
        task.results.insert(name.to_string(), RankerOutcome { ranked, metrics, millis });
    }
    Ok(())
}

/// Each file's first passage as knit cuts it (code at declarations, docs at headings): the
/// passage an item would show if the pack did not choose one (the first-passage hit, a
/// baseline for knit's passage hit). `None` for a file that does not read as text.
fn first_passages(root: &Path, paths: &[String]) -> Vec<Option<(u32, u32)>> {
    let files = knit_workspace::files::Confined::new(root);
    paths
        .iter()
        .map(|path| {
            let kind = knit_context::classify::kind_of(path)?;
            let knit_context::fsio::ReadOutcome::Text(text) = knit_context::fsio::read_text(&files, path, knit_context::fsio::MAX_FILE_BYTES) else { return None };
            knit_context::passages::split(&text, kind, 0).first().map(|p| (p.start_line, p.end_line))
        })
        .collect()
}

/// Position of every commit reachable from HEAD in `git rev-list --date-order --reverse`:
/// date order, except that no commit comes before one of its ancestors.
fn date_order(git: &Git) -> Result<HashMap<String, usize>> {
    let out = git.run(["rev-list", "--date-order", "--reverse", "HEAD"])?;
    Ok(String::from_utf8_lossy(&out).lines().enumerate().map(|(i, sha)| (sha.trim().to_string(), i)).collect())
}

/// Evaluates one repository. `progress` receives one line per step (for stderr).
pub fn run(config: &Config, progress: &mut dyn FnMut(&str)) -> Result<RepoReport> {
    let started = Instant::now();
    let (git_dir, head) = git::open_source(&config.repo)?;
    let source = Git::new(&git_dir);
    let name = repo_name(&config.repo);
    progress(&format!("{name}: sampling the newest {} non-merge commits (seed {})", config.history_limit, config.seed));
    let t = Instant::now();
    let drawn = sample::sample(&source, config.history_limit, config.max_tasks, config.seed)?;
    let sample_ms = ms(t);
    let stats: SampleStats = drawn.stats.clone();
    progress(&format!(
        "{name}: {} listed, {} pass the cheap filters, {} inspected, {} sampled ({:.0} ms)",
        stats.listed, stats.pool, stats.inspected, stats.sampled, sample_ms
    ));
    if drawn.commits.is_empty() {
        bail!("{}: no commit among the newest {} qualifies as a task (2–8 changed text files, not a release, dependency or formatting commit)", config.repo.display(), config.history_limit);
    }
    let mut visits: Vec<&SampledCommit> = drawn.commits.iter().filter(|c| config.splits.contains(&c.split)).collect();
    // Parents in date order, ancestors first: each move fetches little and rewrites few
    // files, and no visited parent descends from a later task's commit (a parent's
    // ancestors, all that the workspace holds, come earlier in this order than the
    // parent, and a task's commit comes after its own parent), so the workspace never
    // holds a commit it is asked to predict. The check in the loop stays as a guard.
    let order = date_order(&source)?;
    visits.sort_by_key(|c| (order.get(&c.parent).copied().unwrap_or(usize::MAX), c.time, c.sha.clone()));

    let base = match &config.temp_dir {
        Some(dir) => {
            std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
            tempfile::Builder::new().prefix("knit-eval-").tempdir_in(dir)?
        }
        None => tempfile::Builder::new().prefix("knit-eval-").tempdir()?,
    };
    let mut generation = 0usize;
    let mut env = Environment::create(base.path(), &git_dir, generation)?;
    let mut tasks: Vec<TaskRecord> = Vec::new();
    let mut task_skips: BTreeMap<String, usize> = BTreeMap::new();
    let mut timings: Vec<CommitTiming> = Vec::new();
    let total = visits.len();
    let mut partial_said = false;
    for (i, commit) in visits.iter().enumerate() {
        let commit_started = Instant::now();
        let t = Instant::now();
        if let Err(e) = env.workspace.move_to(&commit.parent) {
            let MoveError::Unreadable(_) = e else { return Err(e.into()) };
            // the source lacks a blob of this parent's files: no workspace at this commit,
            // and the half-moved one is not reused
            let reason = "the source repository lacks objects of the parent's files";
            let mut line = format!("[{}/{}] {} {:<8}", i + 1, total, &commit.sha[..10], commit.split.as_str());
            for &mode in &config.modes {
                *task_skips.entry(format!("{}: {reason}", mode.as_str())).or_default() += 1;
                line.push_str(&format!(" | {}: skipped ({reason})", mode.as_str()));
            }
            progress(&line);
            progress(&format!("{name}: {e}"));
            generation += 1;
            env = Environment::create(base.path(), &git_dir, generation)?;
            env.workspace.fetch_partially()?;
            continue;
        }
        if env.workspace.is_partial() && !partial_said {
            partial_said = true;
            progress(&format!("{name}: the source repository lacks objects its history names; the workspace fetches commits and trees, and each parent's files on demand"));
        }
        if env.workspace.can_resolve(&commit.sha) {
            // an earlier parent descends from this commit (cannot happen in the visit
            // order above; a guard): start over in a fresh repository, never look ahead
            generation += 1;
            progress(&format!("{name}: {} is reachable from an earlier parent; fresh workspace", &commit.sha[..12]));
            env = Environment::create(base.path(), &git_dir, generation)?;
            env.workspace.move_to(&commit.parent)?;
            if env.workspace.can_resolve(&commit.sha) {
                bail!("look-ahead: the workspace at {} resolves its child {}", commit.parent, commit.sha);
            }
        }
        let move_ms = ms(t);
        let t = Instant::now();
        // a fresh index per commit, as the first `knit pack` in a fresh clone builds it:
        // one bulk build, deterministic (an index refreshed across commits is not, as
        // tantivy merges segments in the background and knit's document frequencies count
        // deleted documents until a merge drops them)
        if i > 0 {
            env.fresh_knit()?;
        }
        let refreshed = env.knit.refresh()?;
        let knit_refresh_ms = ms(t);
        let t = Instant::now();
        env.corpus.refresh(env.workspace.root(), env.workspace.blobs());
        let corpus_refresh_ms = ms(t);
        let t = Instant::now();
        let history = if config.modes.contains(&Mode::Open) { rankers::read_history(env.workspace.git())? } else { Vec::new() };
        let history_ms = ms(t);
        let mut line = format!("[{}/{}] {} {:<8}", i + 1, total, &commit.sha[..10], commit.split.as_str());
        for &mode in &config.modes {
            match build_task(commit, mode, &env.corpus, env.workspace.root()) {
                Ok((mut task, open_text)) => {
                    run_task(&mut task, open_text.as_deref(), &mut env, &history)?;
                    let knit = &task.results["knit"];
                    line.push_str(&format!(" | {}: knit {:.0} ms R@10 {:.2}", mode.as_str(), knit.millis, knit.metrics.recall10));
                    tasks.push(task);
                }
                Err(reason) => {
                    *task_skips.entry(format!("{}: {reason}", mode.as_str())).or_default() += 1;
                    line.push_str(&format!(" | {}: skipped ({reason})", mode.as_str()));
                }
            }
        }
        let timing = CommitTiming {
            commit: commit.sha.clone(),
            move_ms,
            knit_refresh_ms,
            knit_refreshed_files: refreshed,
            corpus_refresh_ms,
            history_ms,
            total_ms: ms(commit_started),
        };
        line.push_str(&format!(
            " · move {:.0} ms, knit refresh {:.0} ms ({} files), corpus {:.0} ms, history {:.0} ms, total {:.0} ms",
            timing.move_ms, timing.knit_refresh_ms, timing.knit_refreshed_files, timing.corpus_refresh_ms, timing.history_ms, timing.total_ms
        ));
        progress(&line);
        timings.push(timing);
    }
    drop(env);
    tasks.sort_by(|a, b| a.time.cmp(&b.time).then_with(|| a.commit.cmp(&b.commit)).then_with(|| a.mode.cmp(&b.mode)));
    let groups = report::groups(&name, &tasks, config);
    Ok(RepoReport {
        name,
        path: config.repo.display().to_string(),
        head,
        seed: config.seed,
        max_tasks: config.max_tasks,
        history_limit: config.history_limit,
        modes: config.modes.clone(),
        splits: config.splits.clone(),
        sample: stats,
        commits: drawn.commits,
        task_skips,
        workspace_rebuilds: generation,
        groups,
        tasks,
        timing: report::RunTiming::new(sample_ms, ms(started), timings),
    })
}
