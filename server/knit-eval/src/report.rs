//! Aggregation and output: per repository × split × mode × ranker summaries, knit minus
//! each baseline with paired bootstrap intervals, the targets, macro averages over
//! repositories, and the human, JSON and Markdown renderings.
//!
//! Targets (DESIGN 5 / issue 10), per group: knit's misses (1 − recall@10) ÷ the best
//! baseline's misses (the baseline with the highest recall@10) must be ≤ 0.75, and knit's
//! MRR must not be below any baseline's. Each group's miss ratio carries a bootstrap 95 %
//! interval (tasks resampled, knit and the best baseline paired), so a cell that misses
//! the target by noise reads differently from one that misses it clearly.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::metrics::{self, Interval, Summary, TaskMetrics};
use crate::rng::Rng;
use crate::sample::{SampleStats, SampledCommit, Split};
use crate::{applies, CommitTiming, Config, Mode, TaskRecord, RANKERS};

/// The target ratio of misses.
pub const TARGET_MISS_RATIO: f64 = 0.75;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Versus {
    pub baseline: String,
    pub recall10: Interval,
    pub mrr: Interval,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Target {
    pub best_baseline: String,
    pub knit_misses: f64,
    pub best_baseline_misses: f64,
    /// knit misses ÷ best baseline misses; `None` when the best baseline misses nothing.
    pub ratio: Option<f64>,
    /// Bootstrap 95 % interval of `ratio` (for a macro average, resampled within each
    /// repository).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ratio_interval: Option<(f64, f64)>,
    pub met: bool,
    pub mrr_not_below_any_baseline: bool,
}

fn target(summaries: &[(String, Summary)]) -> Option<Target> {
    let knit = summaries.iter().find(|(n, _)| n == "knit")?.1;
    let baselines: Vec<&(String, Summary)> = summaries.iter().filter(|(n, _)| n != "knit").collect();
    let best = baselines.iter().copied().max_by(|a, b| a.1.recall10.partial_cmp(&b.1.recall10).unwrap_or(std::cmp::Ordering::Equal).then_with(|| a.1.mrr.partial_cmp(&b.1.mrr).unwrap_or(std::cmp::Ordering::Equal)).then_with(|| b.0.cmp(&a.0)))?;
    let knit_misses = 1.0 - knit.recall10;
    let best_misses = 1.0 - best.1.recall10;
    let ratio = if best_misses > 1e-12 { Some(knit_misses / best_misses) } else { None };
    let met = match ratio {
        Some(r) => r <= TARGET_MISS_RATIO + 1e-12,
        None => knit_misses <= 1e-12,
    };
    Some(Target {
        best_baseline: best.0.clone(),
        knit_misses,
        best_baseline_misses: best_misses,
        ratio,
        ratio_interval: None,
        met,
        mrr_not_below_any_baseline: baselines.iter().all(|(_, s)| knit.mrr + 1e-12 >= s.mrr),
    })
}

/// One repository × split × mode.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GroupReport {
    /// `dev`, `held-out`, or `all` (both halves, when both ran).
    pub split: String,
    pub mode: Mode,
    pub tasks: usize,
    /// Ground-truth files per task (mean).
    pub truth_per_task: f64,
    /// Files the tasks' commits added (not retrievable), in total.
    pub added_files: usize,
    /// Changed files present at the parent but not candidates, in total.
    pub not_candidates: usize,
    pub summaries: Vec<(String, Summary)>,
    pub versus: Vec<Versus>,
    pub target: Option<Target>,
}

pub fn group(label: &str, split_name: &str, mode: Mode, tasks: &[&TaskRecord], resamples: usize, seed: u64) -> GroupReport {
    let rankers: Vec<&str> = RANKERS.iter().copied().filter(|r| applies(r, mode)).collect();
    let metrics_of = |ranker: &str| -> Vec<TaskMetrics> { tasks.iter().filter_map(|t| t.results.get(ranker).map(|o| o.metrics)).collect() };
    let summaries: Vec<(String, Summary)> = rankers.iter().map(|r| (r.to_string(), metrics::summarize(&metrics_of(r)))).collect();
    let knit = metrics_of("knit");
    let versus = rankers
        .iter()
        .filter(|r| **r != "knit")
        .map(|baseline| {
            let other = metrics_of(baseline);
            let mut rng = Rng::derived(seed, &format!("{label}/{split_name}/{}/{baseline}", mode.as_str()));
            let r10 = |m: &[TaskMetrics]| m.iter().map(|x| x.recall10).collect::<Vec<f64>>();
            let mrr = |m: &[TaskMetrics]| m.iter().map(|x| x.mrr).collect::<Vec<f64>>();
            Versus {
                baseline: baseline.to_string(),
                recall10: metrics::paired_bootstrap(&r10(&knit), &r10(&other), resamples, &mut rng),
                mrr: metrics::paired_bootstrap(&mrr(&knit), &mrr(&other), resamples, &mut rng),
            }
        })
        .collect();
    let n = tasks.len();
    let mut target = if n == 0 { None } else { target(&summaries) };
    if let Some(t) = target.as_mut().filter(|t| t.ratio.is_some()) {
        let r10 = |m: &[TaskMetrics]| m.iter().map(|x| x.recall10).collect::<Vec<f64>>();
        let mut rng = Rng::derived(seed, &format!("{label}/{split_name}/{}/miss-ratio", mode.as_str()));
        t.ratio_interval = metrics::ratio_bootstrap(&r10(&knit), &r10(&metrics_of(&t.best_baseline)), resamples, &mut rng);
    }
    GroupReport {
        split: split_name.to_string(),
        mode,
        tasks: n,
        truth_per_task: if n == 0 { 0.0 } else { tasks.iter().map(|t| t.truth.len()).sum::<usize>() as f64 / n as f64 },
        added_files: tasks.iter().map(|t| t.added_files.len()).sum(),
        not_candidates: tasks.iter().map(|t| t.not_candidates.len()).sum(),
        target,
        summaries,
        versus,
    }
}

/// The groups of one repository: each split that ran, and `all` when both did.
pub fn groups(label: &str, tasks: &[TaskRecord], config: &Config) -> Vec<GroupReport> {
    let mut out = Vec::new();
    let mut splits: Vec<(String, Vec<Split>)> = config.splits.iter().map(|s| (s.as_str().to_string(), vec![*s])).collect();
    if config.splits.len() > 1 {
        splits.push(("all".into(), config.splits.clone()));
    }
    for (split_name, members) in &splits {
        for &mode in &config.modes {
            let selected: Vec<&TaskRecord> = tasks.iter().filter(|t| t.mode == mode && members.contains(&t.split)).collect();
            out.push(group(label, split_name, mode, &selected, config.bootstrap_resamples, config.seed));
        }
    }
    out
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunTiming {
    pub sample_ms: f64,
    pub total_ms: f64,
    pub commits: usize,
    pub mean_commit_ms: f64,
    pub mean_move_ms: f64,
    pub mean_knit_refresh_ms: f64,
    /// knit builds a fresh index for every commit; the first one also warms the OS cache.
    pub first_knit_refresh_ms: f64,
    pub per_commit: Vec<CommitTiming>,
}

impl RunTiming {
    pub fn new(sample_ms: f64, total_ms: f64, per_commit: Vec<CommitTiming>) -> RunTiming {
        let n = per_commit.len().max(1) as f64;
        RunTiming {
            sample_ms,
            total_ms,
            commits: per_commit.len(),
            mean_commit_ms: per_commit.iter().map(|c| c.total_ms).sum::<f64>() / n,
            mean_move_ms: per_commit.iter().map(|c| c.move_ms).sum::<f64>() / n,
            mean_knit_refresh_ms: per_commit.iter().map(|c| c.knit_refresh_ms).sum::<f64>() / n,
            first_knit_refresh_ms: per_commit.first().map(|c| c.knit_refresh_ms).unwrap_or(0.0),
            per_commit,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RepoReport {
    pub name: String,
    pub path: String,
    pub head: String,
    pub seed: u64,
    pub max_tasks: usize,
    pub history_limit: usize,
    pub modes: Vec<Mode>,
    pub splits: Vec<Split>,
    pub sample: SampleStats,
    /// The sampled commits, oldest first, with their split.
    pub commits: Vec<SampledCommit>,
    /// Sampled commits that gave no task in a mode, by reason.
    pub task_skips: BTreeMap<String, usize>,
    /// Fresh workspaces started because commit dates were out of order.
    pub workspace_rebuilds: usize,
    pub groups: Vec<GroupReport>,
    pub tasks: Vec<TaskRecord>,
    pub timing: RunTiming,
}

impl RepoReport {
    /// Mean milliseconds of one ranker's call over all tasks of a mode.
    pub fn mean_ranker_ms(&self, ranker: &str, mode: Mode) -> Option<f64> {
        let v: Vec<f64> = self.tasks.iter().filter(|t| t.mode == mode).filter_map(|t| t.results.get(ranker).map(|o| o.millis)).collect();
        if v.is_empty() {
            None
        } else {
            Some(v.iter().sum::<f64>() / v.len() as f64)
        }
    }
}

/// Macro average over repositories of one split × mode.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AverageGroup {
    pub split: String,
    pub mode: Mode,
    pub repositories: usize,
    pub tasks: usize,
    pub summaries: Vec<(String, Summary)>,
    pub target: Option<Target>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Report {
    pub tool: String,
    /// The command that regenerates this report (Markdown output), set by the caller.
    #[serde(default)]
    pub command: String,
    pub repositories: Vec<RepoReport>,
    /// Present when more than one repository ran.
    pub averages: Vec<AverageGroup>,
}

fn mean(values: impl Iterator<Item = f64>) -> f64 {
    let v: Vec<f64> = values.collect();
    if v.is_empty() {
        0.0
    } else {
        v.iter().sum::<f64>() / v.len() as f64
    }
}

impl Report {
    pub fn new(repositories: Vec<RepoReport>) -> Report {
        let mut averages = Vec::new();
        if repositories.len() > 1 {
            let mut keys: Vec<(String, Mode)> = Vec::new();
            for r in &repositories {
                for g in &r.groups {
                    if !keys.contains(&(g.split.clone(), g.mode)) {
                        keys.push((g.split.clone(), g.mode));
                    }
                }
            }
            for (split, mode) in keys {
                let members: Vec<&GroupReport> = repositories.iter().flat_map(|r| r.groups.iter()).filter(|g| g.split == split && g.mode == mode && g.tasks > 0).collect();
                if members.is_empty() {
                    continue;
                }
                let rankers: Vec<&str> = RANKERS.iter().copied().filter(|r| applies(r, mode)).collect();
                let summaries: Vec<(String, Summary)> = rankers
                    .iter()
                    .map(|ranker| {
                        let of: Vec<Summary> = members.iter().filter_map(|g| g.summaries.iter().find(|(n, _)| n == ranker).map(|(_, s)| *s)).collect();
                        let passages: Vec<f64> = of.iter().filter_map(|s| s.passage_hit).collect();
                        let first_passages: Vec<f64> = of.iter().filter_map(|s| s.first_passage_hit).collect();
                        let summary = Summary {
                            tasks: of.iter().map(|s| s.tasks).sum(),
                            recall5: mean(of.iter().map(|s| s.recall5)),
                            recall10: mean(of.iter().map(|s| s.recall10)),
                            mrr: mean(of.iter().map(|s| s.mrr)),
                            all10: mean(of.iter().map(|s| s.all10)),
                            passage_hit: if passages.is_empty() { None } else { Some(mean(passages.iter().copied())) },
                            passage_found: of.iter().map(|s| s.passage_found).sum(),
                            passage_hits: of.iter().map(|s| s.passage_hits).sum(),
                            first_passage_hit: if first_passages.is_empty() { None } else { Some(mean(first_passages.iter().copied())) },
                            first_passage_hits: of.iter().map(|s| s.first_passage_hits).sum(),
                            returned: mean(of.iter().map(|s| s.returned)),
                        };
                        (ranker.to_string(), summary)
                    })
                    .collect();
                let mut target = target(&summaries);
                if let Some(t) = target.as_mut().filter(|t| t.ratio.is_some()) {
                    t.ratio_interval = average_ratio_interval(&repositories, &split, mode, &t.best_baseline);
                }
                averages.push(AverageGroup { split, mode, repositories: members.len(), tasks: members.iter().map(|g| g.tasks).sum(), target, summaries });
            }
        }
        Report { tool: format!("knit bench history {}", env!("CARGO_PKG_VERSION")), command: String::new(), repositories, averages }
    }
}

/// The averaged miss ratio's interval: each repository's tasks of the split and mode
/// resampled within the repository (see [`metrics::stratified_ratio_bootstrap`]), seeded
/// from the first repository's seed. A report does not keep the run's resample count, and
/// `--from` rebuilds the averages, so the count is [`AVERAGE_RESAMPLES`].
fn average_ratio_interval(repositories: &[RepoReport], split: &str, mode: Mode, best: &str) -> Option<(f64, f64)> {
    let strata: Vec<(Vec<f64>, Vec<f64>)> = repositories
        .iter()
        .map(|r| {
            r.tasks
                .iter()
                .filter(|t| t.mode == mode && (split == "all" || t.split.as_str() == split))
                .filter_map(|t| Some((t.results.get("knit")?.metrics.recall10, t.results.get(best)?.metrics.recall10)))
                .unzip()
        })
        .collect();
    let seed = repositories.first().map(|r| r.seed).unwrap_or(0);
    let mut rng = Rng::derived(seed, &format!("average/{split}/{}/miss-ratio", mode.as_str()));
    metrics::stratified_ratio_bootstrap(&strata, AVERAGE_RESAMPLES, &mut rng)
}

/// Resamples for the averaged miss ratio's interval (2 000, the run's default).
const AVERAGE_RESAMPLES: usize = 2000;

fn f3(x: f64) -> String {
    format!("{x:.3}")
}

fn signed(x: f64) -> String {
    if x >= 0.0 {
        format!("+{x:.3}")
    } else {
        format!("−{:.3}", -x)
    }
}

fn interval(i: &Interval) -> String {
    format!("{} [{}, {}]", signed(i.diff), signed(i.low), signed(i.high))
}

/// The miss ratio, with its interval when there is one: `0.83 [0.61, 1.07]`.
fn ratio_cell(t: &Target) -> String {
    match (t.ratio, t.ratio_interval) {
        (Some(r), Some((low, high))) => format!("{r:.2} [{low:.2}, {high:.2}]"),
        (Some(r), None) => format!("{r:.2}"),
        (None, _) => "—".into(),
    }
}

fn target_line(t: &Target) -> String {
    let ratio = ratio_cell(t);
    format!(
        "target: knit misses {:.3} ÷ best baseline ({}) misses {:.3} = {ratio} → {} (≤ {TARGET_MISS_RATIO}); MRR ≥ every baseline: {}",
        t.knit_misses,
        t.best_baseline,
        t.best_baseline_misses,
        if t.met { "met" } else { "not met" },
        if t.mrr_not_below_any_baseline { "yes" } else { "no" }
    )
}

fn passage(s: &Summary) -> String {
    match (s.passage_hit, s.first_passage_hit) {
        (Some(p), Some(f)) => format!("{p:.3} ({}/{}; first passage {f:.3})", s.passage_hits, s.passage_found),
        (Some(p), None) => format!("{p:.3} ({}/{})", s.passage_hits, s.passage_found),
        _ => "—".into(),
    }
}

/// A Markdown cell: knit's passage hit, and the first passage's beside it.
fn passage_cell(s: &Summary) -> String {
    match (s.passage_hit, s.first_passage_hit) {
        (Some(p), Some(f)) => format!("{p:.2} ({f:.2})"),
        (Some(p), None) => format!("{p:.2}"),
        _ => "—".into(),
    }
}

/// Human output: one block per repository, split and mode.
pub fn render_human(report: &Report) -> String {
    let mut out = String::new();
    for r in &report.repositories {
        out.push_str(&format!("\n{} — {} @ {} · seed {}\n", r.name, r.path, &r.head[..12.min(r.head.len())], r.seed));
        let s = &r.sample;
        out.push_str(&format!(
            "  sample: {} commits ({} dev, {} held-out) from {} listed non-merge commits; {} passed the cheap filters, {} inspected\n",
            s.sampled,
            r.commits.iter().filter(|c| c.split == Split::Dev).count(),
            r.commits.iter().filter(|c| c.split == Split::HeldOut).count(),
            s.listed,
            s.pool,
            s.inspected
        ));
        if !s.skipped.is_empty() {
            let skipped: Vec<String> = s.skipped.iter().map(|(k, v)| format!("{k} {v}")).collect();
            out.push_str(&format!("  skipped commits: {}\n", skipped.join(", ")));
        }
        if !s.dropped_paths.is_empty() {
            let dropped: Vec<String> = s.dropped_paths.iter().map(|(k, v)| format!("{k} {v}")).collect();
            out.push_str(&format!("  changed paths that are not text candidates (sampled commits): {}\n", dropped.join(", ")));
        }
        if !r.task_skips.is_empty() {
            let skips: Vec<String> = r.task_skips.iter().map(|(k, v)| format!("{k} ×{v}")).collect();
            out.push_str(&format!("  tasks not formed: {}\n", skips.join("; ")));
        }
        for g in &r.groups {
            out.push_str(&format!(
                "\n  {} · {} mode · {} tasks · {:.2} ground-truth files per task · {} added files not retrievable · {} changed files not candidates\n",
                g.split,
                g.mode.as_str(),
                g.tasks,
                g.truth_per_task,
                g.added_files,
                g.not_candidates
            ));
            if g.tasks == 0 {
                continue;
            }
            out.push_str(&format!("  {:<10} {:>6} {:>6} {:>6} {:>7}  {:<42} {:>8}\n", "ranker", "R@5", "R@10", "MRR", "all@10", "passage hit", "returned"));
            for (name, s) in &g.summaries {
                out.push_str(&format!("  {:<10} {:>6} {:>6} {:>6} {:>7}  {:<42} {:>8.1}\n", name, f3(s.recall5), f3(s.recall10), f3(s.mrr), f3(s.all10), passage(s), s.returned));
            }
            for v in &g.versus {
                out.push_str(&format!("  knit − {:<9} R@10 {} {:<6} MRR {} {}\n", v.baseline, interval(&v.recall10), v.recall10.verdict(), interval(&v.mrr), v.mrr.verdict()));
            }
            if let Some(t) = &g.target {
                out.push_str(&format!("  {}\n", target_line(t)));
            }
        }
        let t = &r.timing;
        out.push_str(&format!(
            "\n  time: {:.1} s total ({:.1} s sampling); {} commits, {:.0} ms each on average (move {:.0} ms, knit refresh {:.0} ms; first refresh {:.0} ms)",
            t.total_ms / 1000.0,
            t.sample_ms / 1000.0,
            t.commits,
            t.mean_commit_ms,
            t.mean_move_ms,
            t.mean_knit_refresh_ms,
            t.first_knit_refresh_ms
        ));
        for mode in &r.modes {
            if let Some(k) = r.mean_ranker_ms("knit", *mode) {
                out.push_str(&format!("; knit pack ({}) {:.1} ms", mode.as_str(), k));
            }
        }
        out.push_str(&format!("; workspace rebuilds {}\n", r.workspace_rebuilds));
    }
    if !report.averages.is_empty() {
        out.push_str("\nAverage over repositories (macro: each repository weighs the same)\n");
        for a in &report.averages {
            out.push_str(&format!("\n  {} · {} mode · {} repositories · {} tasks\n", a.split, a.mode.as_str(), a.repositories, a.tasks));
            out.push_str(&format!("  {:<10} {:>6} {:>6} {:>6} {:>7}  {:<12}\n", "ranker", "R@5", "R@10", "MRR", "all@10", "passage hit (first passage)"));
            for (name, s) in &a.summaries {
                let p = match (s.passage_hit, s.first_passage_hit) {
                    (Some(p), Some(f)) => format!("{} ({})", f3(p), f3(f)),
                    (Some(p), None) => f3(p),
                    _ => "—".into(),
                };
                out.push_str(&format!("  {:<10} {:>6} {:>6} {:>6} {:>7}  {:<12}\n", name, f3(s.recall5), f3(s.recall10), f3(s.mrr), f3(s.all10), p));
            }
            if let Some(t) = &a.target {
                out.push_str(&format!("  {}\n", target_line(t)));
            }
        }
    }
    out
}

/// Markdown for the README: results per split (held-out first), then the intervals and
/// the targets, then how the sample was drawn.
pub fn render_markdown(report: &Report) -> String {
    let mut out = String::new();
    if !report.command.is_empty() {
        out.push_str(&format!("Regenerate with `{}`.\n", report.command));
    }
    let mut split_names: Vec<String> = Vec::new();
    for r in &report.repositories {
        for g in &r.groups {
            if g.split != "all" && !split_names.contains(&g.split) {
                split_names.push(g.split.clone());
            }
        }
    }
    split_names.sort_by_key(|s| if s == "held-out" { 0 } else { 1 });
    for split in &split_names {
        out.push_str(&format!("\n#### {} commits\n\n", if split == "held-out" { "Held-out (newest half)" } else { "Development (oldest half)" }));
        out.push_str("| Repository | Mode | Tasks | Ranker | R@5 | R@10 | MRR | all@10 | Passage hit (first passage) | Items |\n|---|---|---:|---|---:|---:|---:|---:|---:|---:|\n");
        let mut rows = |repo: &str, mode: Mode, tasks: usize, summaries: &[(String, Summary)]| {
            for (i, (name, s)) in summaries.iter().enumerate() {
                let (repo_cell, mode_cell, tasks_cell) = if i == 0 { (repo.to_string(), mode.as_str().to_string(), tasks.to_string()) } else { (String::new(), String::new(), String::new()) };
                let shown = if name == "knit" { "**knit**".to_string() } else { name.clone() };
                let p = passage_cell(s);
                out.push_str(&format!("| {repo_cell} | {mode_cell} | {tasks_cell} | {shown} | {:.2} | {:.2} | {:.2} | {:.2} | {p} | {:.1} |\n", s.recall5, s.recall10, s.mrr, s.all10, s.returned));
            }
        };
        for r in &report.repositories {
            for g in r.groups.iter().filter(|g| &g.split == split && g.tasks > 0) {
                rows(&r.name, g.mode, g.tasks, &g.summaries);
            }
        }
        for a in report.averages.iter().filter(|a| &a.split == split) {
            rows(&format!("*average of {}*", a.repositories), a.mode, a.tasks, &a.summaries);
        }
        out.push_str(&format!("\n{} — targets (knit misses ÷ best baseline's ≤ {TARGET_MISS_RATIO}; knit MRR ≥ every baseline) and knit − baseline, paired bootstrap 95 % intervals:\n\n", if split == "held-out" { "Held-out" } else { "Development" }));
        out.push_str("| Repository | Mode | Best baseline | Miss ratio [95 % CI] | ≤ 0.75 | MRR ≥ all | knit − baseline: ΔR@10 [95 % CI] · ΔMRR [95 % CI] |\n|---|---|---|---:|:-:|:-:|---|\n");
        for r in &report.repositories {
            for g in r.groups.iter().filter(|g| &g.split == split && g.tasks > 0) {
                let Some(t) = &g.target else { continue };
                let versus: Vec<String> = g.versus.iter().map(|v| format!("{}: {} · {}", v.baseline, interval(&v.recall10), interval(&v.mrr))).collect();
                out.push_str(&format!(
                    "| {} | {} | {} | {} | {} | {} | {} |\n",
                    r.name,
                    g.mode.as_str(),
                    t.best_baseline,
                    ratio_cell(t),
                    if t.met { "yes" } else { "no" },
                    if t.mrr_not_below_any_baseline { "yes" } else { "no" },
                    versus.join("<br>")
                ));
            }
        }
        for a in report.averages.iter().filter(|a| &a.split == split) {
            let Some(t) = &a.target else { continue };
            out.push_str(&format!(
                "| *average* | {} | {} | {} | {} | {} | — |\n",
                a.mode.as_str(),
                t.best_baseline,
                ratio_cell(t),
                if t.met { "yes" } else { "no" },
                if t.mrr_not_below_any_baseline { "yes" } else { "no" }
            ));
        }
    }
    out.push_str("\n| Repository | HEAD | Listed | Sampled (dev / held-out) | Tasks open / query | Added files (not retrievable) | Run time | s per commit | knit pack ms (open / query) |\n|---|---|---:|---:|---:|---:|---:|---:|---:|\n");
    for r in &report.repositories {
        let count = |mode: Mode| r.tasks.iter().filter(|t| t.mode == mode).count();
        let added: usize = r.groups.iter().filter(|g| g.split != "all" && g.mode == Mode::Query).map(|g| g.added_files).sum();
        out.push_str(&format!(
            "| {} | `{}` | {} | {} ({} / {}) | {} / {} | {} | {:.0} s | {:.2} | {} / {} |\n",
            r.name,
            &r.head[..10.min(r.head.len())],
            r.sample.listed,
            r.sample.sampled,
            r.commits.iter().filter(|c| c.split == Split::Dev).count(),
            r.commits.iter().filter(|c| c.split == Split::HeldOut).count(),
            count(Mode::Open),
            count(Mode::Query),
            added,
            r.timing.total_ms / 1000.0,
            r.timing.mean_commit_ms / 1000.0,
            r.mean_ranker_ms("knit", Mode::Open).map(|v| format!("{v:.1}")).unwrap_or_else(|| "—".into()),
            r.mean_ranker_ms("knit", Mode::Query).map(|v| format!("{v:.1}")).unwrap_or_else(|| "—".into())
        ));
    }
    out
}
