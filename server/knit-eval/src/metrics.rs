//! Metrics of one ranked list against a task's ground truth, their means over tasks, and
//! paired bootstrap intervals for the difference between two rankers on the same tasks.
//!
//! Definitions (per task, over at most [`crate::rankers::LIMIT`] = 20 items, the open
//! file never counted):
//! - recall@k: ground-truth files among the first k ÷ ground-truth files;
//! - MRR: 1 ÷ rank of the first ground-truth file, 0 when none is in the list;
//! - all@10: every ground-truth file is among the first 10;
//! - passage hit (rankers that report passages): of the ground-truth files found in the
//!   first 10, those whose passage overlaps the lines the commit changed in that file.
//!   Pooled over the tasks of a group (hits ÷ found), so a task with many found files
//!   weighs more; a found item without a passage is a miss;
//! - first-passage hit (knit only): the same count with each found file's *first* passage
//!   as knit cuts it in place of the one knit chose — what a pack without passage ranking
//!   would show, so the passage hit has a baseline measured on the same items.

use serde::{Deserialize, Serialize};

use crate::rng::Rng;

/// A ground-truth file: present at the parent, changed by the commit.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TruthFile {
    pub path: String,
    /// Old-side line ranges the commit changed (1-based, inclusive).
    pub ranges: Vec<(u32, u32)>,
}

/// One ranker's answer: paths best first, and passages when the ranker gives them.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Ranked {
    pub paths: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub passages: Option<Vec<Option<(u32, u32)>>>,
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct TaskMetrics {
    pub recall5: f64,
    pub recall10: f64,
    pub mrr: f64,
    pub all10: bool,
    /// Rank (1-based) of the first ground-truth file.
    pub first_rank: Option<usize>,
    /// Ground-truth files in the first 10.
    pub found10: usize,
    /// Of those, passages overlapping the changed lines (`None`: no passages).
    pub passage_hits: Option<usize>,
    /// Of those, the files whose first passage overlaps the changed lines (knit only; see
    /// the module header).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_passage_hits: Option<usize>,
    /// Items the ranker returned.
    pub returned: usize,
}

pub fn overlaps(passage: (u32, u32), ranges: &[(u32, u32)]) -> bool {
    ranges.iter().any(|&(a, b)| passage.0 <= b && a <= passage.1)
}

/// Scores `ranked` against `truth` (non-empty).
pub fn score(ranked: &Ranked, truth: &[TruthFile]) -> TaskMetrics {
    let total = truth.len().max(1) as f64;
    let truth_of = |path: &str| truth.iter().find(|t| t.path == path);
    let within = |k: usize| ranked.paths.iter().take(k).filter(|p| truth_of(p).is_some()).count();
    let first_rank = ranked.paths.iter().position(|p| truth_of(p).is_some()).map(|i| i + 1);
    let found10 = within(10);
    let passage_hits = ranked.passages.as_ref().map(|passages| passage_hits(&ranked.paths, passages, truth));
    TaskMetrics {
        recall5: within(5) as f64 / total,
        recall10: found10 as f64 / total,
        mrr: first_rank.map(|r| 1.0 / r as f64).unwrap_or(0.0),
        all10: found10 == truth.len(),
        first_rank,
        found10,
        passage_hits,
        first_passage_hits: None,
        returned: ranked.paths.len(),
    }
}

/// Of the ground-truth files among the first 10 `paths`, those whose passage (parallel to
/// `paths`) overlaps the lines the commit changed in that file.
pub fn passage_hits(paths: &[String], passages: &[Option<(u32, u32)>], truth: &[TruthFile]) -> usize {
    paths
        .iter()
        .take(10)
        .enumerate()
        .filter(|(i, p)| match (truth.iter().find(|t| &t.path == *p), passages.get(*i).copied().flatten()) {
            (Some(t), Some(range)) => overlaps(range, &t.ranges),
            _ => false,
        })
        .count()
}

/// Means over a group of tasks.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    pub tasks: usize,
    pub recall5: f64,
    pub recall10: f64,
    pub mrr: f64,
    pub all10: f64,
    /// Pooled passage hit (hits ÷ found), `None` for rankers without passages.
    pub passage_hit: Option<f64>,
    pub passage_found: usize,
    pub passage_hits: usize,
    /// Pooled first-passage hit over the same found files (knit only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_passage_hit: Option<f64>,
    #[serde(default)]
    pub first_passage_hits: usize,
    /// Mean number of items returned.
    pub returned: f64,
}

pub fn summarize(metrics: &[TaskMetrics]) -> Summary {
    let n = metrics.len();
    if n == 0 {
        return Summary::default();
    }
    let mean = |f: &dyn Fn(&TaskMetrics) -> f64| metrics.iter().map(f).sum::<f64>() / n as f64;
    let with_passages: Vec<&TaskMetrics> = metrics.iter().filter(|m| m.passage_hits.is_some()).collect();
    let found: usize = with_passages.iter().map(|m| m.found10).sum();
    let hits: usize = with_passages.iter().filter_map(|m| m.passage_hits).sum();
    let with_first: Vec<&TaskMetrics> = metrics.iter().filter(|m| m.first_passage_hits.is_some()).collect();
    let first_found: usize = with_first.iter().map(|m| m.found10).sum();
    let first_hits: usize = with_first.iter().filter_map(|m| m.first_passage_hits).sum();
    Summary {
        tasks: n,
        recall5: mean(&|m| m.recall5),
        recall10: mean(&|m| m.recall10),
        mrr: mean(&|m| m.mrr),
        all10: mean(&|m| if m.all10 { 1.0 } else { 0.0 }),
        passage_hit: if with_passages.is_empty() || found == 0 { None } else { Some(hits as f64 / found as f64) },
        passage_found: found,
        passage_hits: hits,
        first_passage_hit: if with_first.is_empty() || first_found == 0 { None } else { Some(first_hits as f64 / first_found as f64) },
        first_passage_hits: first_hits,
        returned: mean(&|m| m.returned as f64),
    }
}

/// A difference of means with its paired bootstrap 95 % interval.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Interval {
    pub diff: f64,
    pub low: f64,
    pub high: f64,
}

impl Interval {
    /// The interval excludes zero on the positive / negative side.
    pub fn verdict(&self) -> &'static str {
        if self.low > 0.0 {
            "better"
        } else if self.high < 0.0 {
            "worse"
        } else {
            "n.s."
        }
    }
}

/// Paired bootstrap of `mean(a − b)`: tasks are resampled with replacement `resamples`
/// times; the interval is the 2.5th and 97.5th percentile of the resampled means.
pub fn paired_bootstrap(a: &[f64], b: &[f64], resamples: usize, rng: &mut Rng) -> Interval {
    assert_eq!(a.len(), b.len(), "paired samples");
    let diffs: Vec<f64> = a.iter().zip(b).map(|(x, y)| x - y).collect();
    let n = diffs.len();
    if n == 0 {
        return Interval { diff: 0.0, low: 0.0, high: 0.0 };
    }
    let diff = diffs.iter().sum::<f64>() / n as f64;
    let means: Vec<f64> = (0..resamples.max(1))
        .map(|_| {
            let mut sum = 0.0;
            for _ in 0..n {
                sum += diffs[rng.below(n)];
            }
            sum / n as f64
        })
        .collect();
    let (low, high) = percentile_95(means);
    Interval { diff, low, high }
}

/// The 2.5th and 97.5th percentile of resampled statistics (non-empty).
fn percentile_95(mut values: Vec<f64>) -> (f64, f64) {
    values.sort_by(|x, y| x.partial_cmp(y).unwrap_or(std::cmp::Ordering::Equal));
    let at = |q: f64| values[((q * (values.len() - 1) as f64).round() as usize).min(values.len() - 1)];
    (at(0.025), at(0.975))
}

/// Bootstrap 95 % interval of the miss ratio `(1 − mean(a)) ÷ (1 − mean(b))` over paired
/// per-task recalls `a` (knit) and `b` (a baseline): tasks resampled with replacement as in
/// [`paired_bootstrap`]. Resamples where `b` misses nothing have no ratio and are left out;
/// `None` when fewer than half of them have one.
pub fn ratio_bootstrap(a: &[f64], b: &[f64], resamples: usize, rng: &mut Rng) -> Option<(f64, f64)> {
    assert_eq!(a.len(), b.len(), "paired samples");
    stratified_ratio_bootstrap(&[(a.to_vec(), b.to_vec())], resamples, rng)
}

/// [`ratio_bootstrap`] for a macro average: each stratum (a repository's paired recalls)
/// is resampled within itself, and the ratio is `(1 − mean of the strata's means of a) ÷
/// (1 − mean of the strata's means of b)`, as the averaged target reads.
pub fn stratified_ratio_bootstrap(strata: &[(Vec<f64>, Vec<f64>)], resamples: usize, rng: &mut Rng) -> Option<(f64, f64)> {
    let strata: Vec<&(Vec<f64>, Vec<f64>)> = strata.iter().filter(|(a, _)| !a.is_empty()).collect();
    if strata.is_empty() {
        return None;
    }
    for (a, b) in &strata {
        assert_eq!(a.len(), b.len(), "paired samples");
    }
    let resamples = resamples.max(1);
    let mut ratios: Vec<f64> = Vec::with_capacity(resamples);
    for _ in 0..resamples {
        let (mut mean_a, mut mean_b) = (0.0, 0.0);
        for (a, b) in &strata {
            let n = a.len();
            let (mut sa, mut sb) = (0.0, 0.0);
            for _ in 0..n {
                let i = rng.below(n);
                sa += a[i];
                sb += b[i];
            }
            mean_a += sa / n as f64;
            mean_b += sb / n as f64;
        }
        let k = strata.len() as f64;
        let misses_b = 1.0 - mean_b / k;
        if misses_b > 1e-12 {
            ratios.push((1.0 - mean_a / k) / misses_b);
        }
    }
    if ratios.len() * 2 < resamples {
        return None;
    }
    Some(percentile_95(ratios))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn truth(paths: &[&str]) -> Vec<TruthFile> {
        paths.iter().map(|p| TruthFile { path: p.to_string(), ranges: vec![(10, 12)] }).collect()
    }

    #[test]
    fn recall_mrr_all_and_passages() {
        let ranked = Ranked {
            paths: ["x", "a", "y", "z", "w", "v", "b", "u"].iter().map(|s| s.to_string()).collect(),
            passages: Some(vec![None, Some((1, 9)), None, None, None, None, Some((12, 40)), None]),
        };
        let m = score(&ranked, &truth(&["a", "b", "c"]));
        assert!((m.recall5 - 1.0 / 3.0).abs() < 1e-12);
        assert!((m.recall10 - 2.0 / 3.0).abs() < 1e-12);
        assert_eq!(m.first_rank, Some(2));
        assert!((m.mrr - 0.5).abs() < 1e-12);
        assert!(!m.all10);
        assert_eq!(m.found10, 2);
        assert_eq!(m.passage_hits, Some(1), "a's passage 1–9 misses 10–12; b's 12–40 overlaps");
        let none = score(&Ranked { paths: vec!["q".into()], passages: None }, &truth(&["a"]));
        assert_eq!((none.mrr, none.recall10, none.passage_hits), (0.0, 0.0, None));
        let all = score(&Ranked { paths: vec!["b".into(), "a".into()], passages: None }, &truth(&["a", "b"]));
        assert!(all.all10 && all.mrr == 1.0);
    }

    #[test]
    fn summaries_pool_passage_hits() {
        let a = TaskMetrics { recall5: 1.0, recall10: 1.0, mrr: 1.0, all10: true, first_rank: Some(1), found10: 3, passage_hits: Some(3), first_passage_hits: Some(1), returned: 20 };
        let b = TaskMetrics { recall5: 0.0, recall10: 0.5, mrr: 0.25, all10: false, first_rank: Some(4), found10: 1, passage_hits: Some(0), first_passage_hits: Some(1), returned: 10 };
        let s = summarize(&[a, b]);
        assert_eq!(s.tasks, 2);
        assert!((s.recall10 - 0.75).abs() < 1e-12 && (s.mrr - 0.625).abs() < 1e-12 && (s.all10 - 0.5).abs() < 1e-12);
        assert_eq!(s.passage_hit, Some(0.75));
        assert_eq!((s.first_passage_hit, s.first_passage_hits), (Some(0.5), 2));
        let without = summarize(&[TaskMetrics { first_passage_hits: None, ..a }]);
        assert_eq!(without.first_passage_hit, None, "rankers without first passages report none");
        assert_eq!(s.returned, 15.0);
    }

    #[test]
    fn bootstrap_brackets_the_difference_and_is_seeded() {
        let a: Vec<f64> = (0..60).map(|i| if i % 3 == 0 { 0.0 } else { 1.0 }).collect();
        let b: Vec<f64> = (0..60).map(|i| if i % 2 == 0 { 0.0 } else { 1.0 }).collect();
        let ci = paired_bootstrap(&a, &b, 2000, &mut Rng::new(1));
        assert!((ci.diff - (40.0 - 30.0) / 60.0).abs() < 1e-12);
        assert!(ci.low < ci.diff && ci.diff < ci.high, "{ci:?}");
        assert_eq!(ci, paired_bootstrap(&a, &b, 2000, &mut Rng::new(1)));
        let same = paired_bootstrap(&a, &a, 500, &mut Rng::new(2));
        assert_eq!((same.diff, same.low, same.high), (0.0, 0.0, 0.0));
        let clear = paired_bootstrap(&vec![1.0; 30], &vec![0.0; 30], 500, &mut Rng::new(3));
        assert_eq!(clear.verdict(), "better");
    }

    #[test]
    fn miss_ratio_interval_brackets_the_ratio_and_is_seeded() {
        // knit finds 3 of 4, the baseline 1 of 2: misses 0.25 ÷ 0.5 = 0.5
        let a: Vec<f64> = (0..80).map(|i| if i % 4 == 0 { 0.0 } else { 1.0 }).collect();
        let b: Vec<f64> = (0..80).map(|i| if i % 2 == 0 { 0.0 } else { 1.0 }).collect();
        let (low, high) = ratio_bootstrap(&a, &b, 2000, &mut Rng::new(1)).expect("the baseline misses");
        assert!(low < 0.5 && 0.5 < high && low > 0.2 && high < 0.9, "[{low}, {high}]");
        assert_eq!(Some((low, high)), ratio_bootstrap(&a, &b, 2000, &mut Rng::new(1)));
        // more tasks, a narrower interval
        let a4: Vec<f64> = a.iter().cycle().take(320).copied().collect();
        let b4: Vec<f64> = b.iter().cycle().take(320).copied().collect();
        let (low4, high4) = ratio_bootstrap(&a4, &b4, 2000, &mut Rng::new(1)).unwrap();
        assert!(high4 - low4 < high - low, "[{low4}, {high4}] against [{low}, {high}]");
        assert_eq!(ratio_bootstrap(&[1.0, 1.0], &[1.0, 1.0], 100, &mut Rng::new(1)), None, "a baseline that misses nothing has no ratio");
        assert_eq!(ratio_bootstrap(&[], &[], 100, &mut Rng::new(1)), None);
        // averaged over strata: one stratum alone is the plain interval's ratio; two
        // strata (ratios 0.5 and about 0.33, pooled misses (0.25 + 1/6) ÷ (0.5 + 0.5)) narrow it
        let third: Vec<f64> = (0..80).map(|i| if i % 6 == 0 { 0.0 } else { 1.0 }).collect();
        let (l1, h1) = stratified_ratio_bootstrap(&[(a.clone(), b.clone())], 2000, &mut Rng::new(1)).unwrap();
        assert!(l1 < 0.5 && 0.5 < h1, "[{l1}, {h1}]");
        let (l2, h2) = stratified_ratio_bootstrap(&[(a.clone(), b.clone()), (third, b.clone())], 2000, &mut Rng::new(1)).unwrap();
        let pooled = (0.25 + 1.0 / 6.0) / 1.0;
        assert!(l2 < pooled && pooled < h2 && h2 - l2 < h1 - l1, "[{l2}, {h2}] around {pooled}");
        assert_eq!(stratified_ratio_bootstrap(&[(vec![], vec![])], 100, &mut Rng::new(1)), None);
    }
}
