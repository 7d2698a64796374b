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

/// The co-change table of a workspace: per path, the commits that touched it.
#[derive(Debug, Default)]
pub struct CoChange {
    history: History,
    by_path: HashMap<String, Vec<u32>>,
    /// Recency weight of commit i (newest first).
    weight: Vec<f32>,
}

impl CoChange {
    pub fn new(history: History) -> CoChange {
        let mut by_path: HashMap<String, Vec<u32>> = HashMap::new();
        for (ci, c) in history.commits.iter().enumerate() {
            for &f in &c.files {
                by_path.entry(history.path(f).to_string()).or_default().push(ci as u32);
            }
        }
        let weight = (0..history.commits.len()).map(|i| 0.5f32.powf(i as f32 / HALF_LIFE_COMMITS)).collect();
        CoChange { history, by_path, weight }
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
            h.commits.push(CommitFiles { id: format!("c{i}"), time: 0, files: ids });
        }
        h
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
