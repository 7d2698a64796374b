//! Co-change: files that changed together with the task's files in the repository's
//! history (evolutionary coupling). Pure: it works on a [`History`] the file layer read.
//!
//! For a focus file F and another file G, over the commits that touched F:
//! - `together` = commits that touched both, `of` = commits that touched F — the reason a
//!   reader can check with `git log` (`changedWith: src/x.ts in 14 of 20 commits`);
//! - the score weighs each shared commit by recency (half-life [`HALF_LIFE_COMMITS`]
//!   commits) and by how focused it was (a commit of n files links each pair with
//!   1/(n−1)), divided by the recency-weighted count of F's commits plus a small prior —
//!   a confidence that prefers many recent focused co-changes over one old sweep.

use std::collections::HashMap;

use knit_workspace::History;

/// Commits after which a co-change counts half.
pub const HALF_LIFE_COMMITS: f32 = 1500.0;
/// Added to the focus file's weighted commit count: one shared commit out of one is weak.
pub const PRIOR_COMMITS: f32 = 1.0;

/// One partner of a focus file.
#[derive(Debug, Clone, PartialEq)]
pub struct Partner {
    pub path: String,
    /// Commits that changed both.
    pub together: u32,
    /// Commits that changed the focus file.
    pub of: u32,
    pub score: f32,
}

/// Commits that count as "recent" for the recency signal.
pub const RECENT_COMMITS: usize = 50;
/// Commits after which a recent change counts half.
const RECENT_HALF_LIFE: f32 = 10.0;

/// A file changed in the newest commits.
#[derive(Debug, Clone, PartialEq)]
pub struct RecentFile {
    pub path: String,
    /// Commits among the newest [`RECENT_COMMITS`] that changed it.
    pub commits: u32,
    /// 1-based position of the newest of them (1 = the last commit).
    pub latest: u32,
}

/// The co-change table of a workspace: per path, the commits that touched it.
#[derive(Debug, Default)]
pub struct CoChange {
    history: History,
    by_path: HashMap<String, Vec<u32>>,
    /// Recency weight of commit i (newest first).
    weight: Vec<f32>,
    /// Files of the newest commits, most active first.
    recent: Vec<RecentFile>,
    /// Subject-line terms → commits (for [`CoChange::past_commits`]).
    subject_terms: HashMap<String, Vec<u32>>,
    /// Terms per subject line, and their mean.
    subject_len: Vec<u16>,
    mean_subject_len: f32,
}

/// A file a past commit changed whose subject line matches the task.
#[derive(Debug, Clone, PartialEq)]
pub struct PastCommitHit {
    pub path: String,
    /// The best-matching commit that changed it: short id and subject.
    pub commit: String,
    pub subject: String,
    pub score: f32,
}

/// Commits whose subjects match the task that are considered.
const PAST_COMMITS_CONSIDERED: usize = 30;

impl CoChange {
    pub fn new(history: History) -> CoChange {
        let mut by_path: HashMap<String, Vec<u32>> = HashMap::new();
        for (ci, c) in history.commits.iter().enumerate() {
            for &f in &c.files {
                by_path.entry(history.path(f).to_string()).or_default().push(ci as u32);
            }
        }
        let weight = (0..history.commits.len()).map(|i| 0.5f32.powf(i as f32 / HALF_LIFE_COMMITS)).collect();
        let mut active: HashMap<u32, (f32, u32, u32)> = HashMap::new();
        for (ci, c) in history.commits.iter().take(RECENT_COMMITS).enumerate() {
            let w = 0.5f32.powf(ci as f32 / RECENT_HALF_LIFE);
            for &f in &c.files {
                let e = active.entry(f).or_insert((0.0, 0, ci as u32 + 1));
                e.0 += w;
                e.1 += 1;
            }
        }
        let mut ranked: Vec<(f32, RecentFile)> = active
            .into_iter()
            .map(|(f, (score, commits, latest))| (score, RecentFile { path: history.path(f).to_string(), commits, latest }))
            .collect();
        ranked.sort_by(|a, b| b.0.partial_cmp(&a.0).unwrap_or(std::cmp::Ordering::Equal).then(a.1.path.cmp(&b.1.path)));
        let recent = ranked.into_iter().map(|(_, r)| r).collect();
        let mut subject_terms: HashMap<String, Vec<u32>> = HashMap::new();
        let mut subject_len = Vec::with_capacity(history.commits.len());
        for (ci, c) in history.commits.iter().enumerate() {
            let mut terms = crate::analysis::terms_of(&c.subject);
            terms.sort();
            terms.dedup();
            subject_len.push(terms.len().min(u16::MAX as usize) as u16);
            for t in terms {
                subject_terms.entry(t).or_default().push(ci as u32);
            }
        }
        let mean_subject_len = if subject_len.is_empty() { 1.0 } else { (subject_len.iter().map(|&l| l as f32).sum::<f32>() / subject_len.len() as f32).max(1.0) };
        CoChange { history, by_path, weight, recent, subject_terms, subject_len, mean_subject_len }
    }

    /// Files changed by the past commits whose subject lines best match the task's
    /// weighted terms (BM25 over subject lines, newer commits weighing more), best first.
    pub fn past_commits(&self, terms: &[(String, f32)], keep: &dyn Fn(&str) -> bool, limit: usize) -> Vec<PastCommitHit> {
        const K1: f32 = 1.2;
        const B: f32 = 0.75;
        let n = self.history.commits.len() as f32;
        if n == 0.0 {
            return Vec::new();
        }
        let mut commit_score: HashMap<u32, f32> = HashMap::new();
        for (term, w) in terms {
            let Some(posting) = self.subject_terms.get(term) else { continue };
            let df = posting.len() as f32;
            let idf = (1.0 + (n - df + 0.5) / (df + 0.5)).ln();
            for &ci in posting {
                let len = self.subject_len[ci as usize] as f32;
                let tf_part = (K1 + 1.0) / (1.0 + K1 * (1.0 - B + B * len / self.mean_subject_len));
                *commit_score.entry(ci).or_default() += w * idf * tf_part;
            }
        }
        let mut commits: Vec<(u32, f32)> = commit_score.into_iter().map(|(c, s)| (c, s * (0.5 + 0.5 * self.weight[c as usize]))).collect();
        commits.sort_by(|a, b| b.1.partial_cmp(&a.1).unwrap_or(std::cmp::Ordering::Equal).then(a.0.cmp(&b.0)));
        commits.truncate(PAST_COMMITS_CONSIDERED);
        let mut files: HashMap<u32, (f32, u32, f32)> = HashMap::new();
        for (ci, score) in commits {
            let c = &self.history.commits[ci as usize];
            let share = score / (c.files.len().max(1) as f32).sqrt();
            for &f in &c.files {
                let e = files.entry(f).or_insert((0.0, ci, 0.0));
                e.0 += share;
                if share > e.2 {
                    e.1 = ci;
                    e.2 = share;
                }
            }
        }
        let mut out: Vec<PastCommitHit> = files
            .into_iter()
            .filter(|(f, _)| keep(self.history.path(*f)))
            .map(|(f, (score, ci, _))| {
                let c = &self.history.commits[ci as usize];
                PastCommitHit { path: self.history.path(f).to_string(), commit: c.id.chars().take(7).collect(), subject: c.subject.clone(), score }
            })
            .collect();
        out.sort_by(|a, b| b.score.partial_cmp(&a.score).unwrap_or(std::cmp::Ordering::Equal).then(a.path.cmp(&b.path)));
        out.truncate(limit);
        out
    }

    /// Files changed in the newest commits, most active first (recent and frequent).
    pub fn recent(&self) -> &[RecentFile] {
        &self.recent
    }

    pub fn history(&self) -> &History {
        &self.history
    }

    pub fn into_history(self) -> History {
        self.history
    }

    /// Commits (within the history read) that changed `path`.
    pub fn commits_of(&self, path: &str) -> usize {
        self.by_path.get(path).map_or(0, Vec::len)
    }

    /// How many commits ago `path` last changed (0: the newest commit), if it ever did.
    pub fn last_changed(&self, path: &str) -> Option<u32> {
        self.by_path.get(path).and_then(|c| c.first().copied())
    }

    /// Files changed together with `focus`, best first; `keep` filters candidates (files
    /// that still exist and may be listed).
    pub fn partners(&self, focus: &str, keep: &dyn Fn(&str) -> bool, limit: usize) -> Vec<Partner> {
        let Some(commits) = self.by_path.get(focus) else { return Vec::new() };
        let mut weighted_of = 0.0f32;
        let mut acc: HashMap<u32, (u32, f32)> = HashMap::new();
        for &ci in commits {
            let c = &self.history.commits[ci as usize];
            let w = self.weight[ci as usize];
            weighted_of += w;
            let others = c.files.len().saturating_sub(1).max(1) as f32;
            for &f in &c.files {
                if self.history.path(f) == focus {
                    continue;
                }
                let e = acc.entry(f).or_default();
                e.0 += 1;
                e.1 += w / others;
            }
        }
        let denom = weighted_of + PRIOR_COMMITS;
        let mut out: Vec<Partner> = acc
            .into_iter()
            .map(|(f, (together, w))| (self.history.path(f), together, w))
            .filter(|(p, _, _)| keep(p))
            .map(|(p, together, w)| Partner { path: p.to_string(), together, of: commits.len() as u32, score: w / denom })
            .collect();
        out.sort_by(|a, b| b.score.partial_cmp(&a.score).unwrap_or(std::cmp::Ordering::Equal).then(b.together.cmp(&a.together)).then(a.path.cmp(&b.path)));
        out.truncate(limit);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use knit_workspace::history::CommitFiles;

    fn history(commits: &[&[&str]]) -> History {
        let mut h = History::default();
        for (i, files) in commits.iter().enumerate() {
            let ids = files
                .iter()
                .map(|p| match h.paths.iter().position(|q| q == p) {
                    Some(i) => i as u32,
                    None => {
                        h.paths.push(p.to_string());
                        (h.paths.len() - 1) as u32
                    }
                })
                .collect();
            h.commits.push(CommitFiles { id: format!("c{i}"), time: 0, files: ids, subject: String::new() });
        }
        h
    }

    #[test]
    fn past_commits_match_subjects_and_give_their_files() {
        let mut h = history(&[&["src/retry.ts", "test/retry.ts"], &["src/json.ts"], &["readme.md", "src/retry.ts"]]);
        h.commits[0].subject = "Respect the Retry-After header".into();
        h.commits[1].subject = "Parse JSON bodies lazily".into();
        h.commits[2].subject = "Document retry options".into();
        let cc = CoChange::new(h);
        let hits = cc.past_commits(&[("retry".into(), 1.0)], &|_| true, 10);
        let paths: Vec<&str> = hits.iter().map(|h| h.path.as_str()).collect();
        assert_eq!(paths[0], "src/retry.ts", "changed by both retry commits: {hits:?}");
        assert!(paths.contains(&"test/retry.ts") && paths.contains(&"readme.md") && !paths.contains(&"src/json.ts"));
        assert!(hits[0].subject.contains("Retry"), "{hits:?}");
    }

    #[test]
    fn partners_rank_by_focused_recent_co_changes() {
        let h = history(&[&["a.ts", "b.ts"], &["a.ts", "b.ts"], &["a.ts", "c.ts", "d.ts", "e.ts", "f.ts"], &["a.ts", "c.ts"], &["x.ts", "b.ts"]]);
        let cc = CoChange::new(h);
        let p = cc.partners("a.ts", &|_| true, 10);
        assert_eq!(p[0].path, "b.ts");
        assert_eq!((p[0].together, p[0].of), (2, 4));
        assert_eq!(p[1].path, "c.ts");
        assert!(p.iter().all(|x| x.path != "x.ts"));
        assert!(cc.partners("a.ts", &|q| q != "b.ts", 10).iter().all(|x| x.path != "b.ts"));
        assert!(cc.partners("nope.ts", &|_| true, 10).is_empty());
    }
}
