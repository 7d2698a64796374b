//! The baselines — what a user could script in an afternoon — over the same candidate set
//! as knit ([`crate::corpus`]). Each returns at most [`LIMIT`] files, best first, never
//! the open file, only files with a positive score.
//!
//! Queries:
//! - *open mode*: the open file's 30 most distinctive whole identifiers, by tf × idf over
//!   the workspace (idf = ln(1 + (N − df + ½)/(df + ½)), df = files using the identifier).
//!   BM25 ranks with their terms (whole identifier and its parts), grep searches for the
//!   identifiers themselves, filename matching uses the terms;
//! - *query mode*: the cleaned commit message. BM25 and filename use its terms, grep its
//!   words (whole, as typed).
//!
//! Rankers:
//! - **bm25**: whole-file Okapi BM25, k1 = 1.2, b = 0.75, over [`crate::tokens`] terms;
//! - **grep**: files by the number of lines containing any grep term (case-insensitive
//!   substring, like `grep -ci -e … -e …`), ties by path;
//! - **filename**: files by how many filename terms (≥ 3 characters) occur in the path
//!   (case-insensitive substring), ties by the shorter path, then path;
//! - **cochange** (open mode): files most often changed together with the open file in the
//!   workspace's own history (≤ the parent): newest 3000 non-merge commits, commits touching
//!   more than 50 files ignored, ties by the most recent co-change, then path. Files that
//!   no longer exist are not candidates.

use std::collections::HashMap;

use aho_corasick::{AhoCorasick, AhoCorasickBuilder, MatchKind};
use anyhow::Result;

use crate::corpus::Corpus;
use crate::git::Git;
use crate::metrics::Ranked;
use crate::tokens;

/// Items per ranked list.
pub const LIMIT: usize = 20;
/// Identifiers in the open-file query.
pub const OPEN_QUERY_IDENTIFIERS: usize = 30;
pub const BM25_K1: f64 = 1.2;
pub const BM25_B: f64 = 0.75;
/// Co-change window and the size above which a commit says nothing about coupling.
pub const COCHANGE_HISTORY: usize = 3000;
pub const COCHANGE_MAX_FILES: usize = 50;

/// The terms one task gives each baseline.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct BaselineQuery {
    pub bm25: Vec<String>,
    pub grep: Vec<String>,
    pub filename: Vec<String>,
}

fn push_unique(out: &mut Vec<String>, term: String) {
    if !out.contains(&term) {
        out.push(term);
    }
}

fn idf(n: usize, df: u32) -> f64 {
    let (n, df) = (n as f64, df.max(1) as f64);
    (1.0 + (n - df + 0.5) / (df + 0.5)).ln()
}

/// The open-file query: its top identifiers by tf × idf over the corpus.
pub fn open_query(corpus: &Corpus, open_text: &str) -> BaselineQuery {
    let mut counts: HashMap<String, (u32, String)> = HashMap::new();
    tokens::identifiers(open_text, |lower, written| {
        counts.entry(lower).or_insert_with(|| (0, written.to_string())).0 += 1;
    });
    let n = corpus.len().max(1);
    let mut scored: Vec<(f64, String, String)> = counts
        .into_iter()
        .map(|(lower, (tf, written))| {
            let df = corpus.id(&lower).map(|id| corpus.ident_df(id)).unwrap_or(0);
            (tf as f64 * idf(n, df), lower, written)
        })
        .collect();
    scored.sort_by(|a, b| b.0.partial_cmp(&a.0).unwrap_or(std::cmp::Ordering::Equal).then_with(|| a.1.cmp(&b.1)));
    scored.truncate(OPEN_QUERY_IDENTIFIERS);
    let mut query = BaselineQuery::default();
    for (_, lower, written) in &scored {
        push_unique(&mut query.grep, lower.clone());
        tokens::terms(written, |t| push_unique(&mut query.bm25, t));
    }
    query.filename = query.bm25.iter().filter(|t| t.chars().count() >= 3).cloned().collect();
    query
}

/// The message query.
pub fn message_query(message: &str) -> BaselineQuery {
    let mut query = BaselineQuery::default();
    tokens::terms(message, |t| push_unique(&mut query.bm25, t));
    query.grep = tokens::words(message);
    query.filename = query.bm25.iter().filter(|t| t.chars().count() >= 3).cloned().collect();
    query
}

/// Sorts (path, score) best first, ties by path, keeps [`LIMIT`] positive ones.
fn top(mut scored: Vec<(&str, f64)>, tie: impl Fn(&str, &str) -> std::cmp::Ordering) -> Ranked {
    scored.retain(|(_, s)| *s > 0.0);
    scored.sort_by(|a, b| b.1.partial_cmp(&a.1).unwrap_or(std::cmp::Ordering::Equal).then_with(|| tie(a.0, b.0)));
    Ranked { paths: scored.into_iter().take(LIMIT).map(|(p, _)| p.to_string()).collect(), passages: None }
}

pub fn bm25(corpus: &Corpus, terms: &[String], exclude: Option<&str>) -> Ranked {
    let n = corpus.len();
    let avg = corpus.avg_length();
    let query: Vec<(u32, f64)> = terms.iter().filter_map(|t| corpus.id(t)).filter(|&id| corpus.term_df(id) > 0).map(|id| (id, idf(n, corpus.term_df(id)))).collect();
    if query.is_empty() {
        return Ranked::default();
    }
    let scored: Vec<(&str, f64)> = corpus
        .files()
        .filter(|(p, _)| Some(p.as_str()) != exclude)
        .map(|(path, entry)| {
            let norm = BM25_K1 * (1.0 - BM25_B + BM25_B * entry.length as f64 / avg);
            let score: f64 = query
                .iter()
                .map(|&(id, w)| {
                    let tf = entry.tf(id) as f64;
                    if tf == 0.0 {
                        0.0
                    } else {
                        w * tf * (BM25_K1 + 1.0) / (tf + norm)
                    }
                })
                .sum();
            (path.as_str(), score)
        })
        .collect();
    top(scored, |a, b| a.cmp(b))
}

fn automaton(terms: &[String]) -> Option<AhoCorasick> {
    let terms: Vec<&String> = terms.iter().filter(|t| !t.is_empty()).collect();
    if terms.is_empty() {
        return None;
    }
    AhoCorasickBuilder::new().match_kind(MatchKind::LeftmostFirst).build(terms).ok()
}

pub fn grep(corpus: &Corpus, terms: &[String], exclude: Option<&str>) -> Ranked {
    let Some(ac) = automaton(terms) else { return Ranked::default() };
    let scored: Vec<(&str, f64)> = corpus
        .files()
        .filter(|(p, _)| Some(p.as_str()) != exclude)
        .map(|(path, entry)| {
            // terms never hold a newline, so every line with an occurrence yields a match
            let text = entry.lower.as_bytes();
            let mut lines = 0usize;
            let mut counted_until = 0usize;
            for m in ac.find_iter(text) {
                if m.start() < counted_until {
                    continue;
                }
                lines += 1;
                counted_until = memchr_newline(text, m.end()).map(|i| i + 1).unwrap_or(text.len());
            }
            (path.as_str(), lines as f64)
        })
        .collect();
    top(scored, |a, b| a.cmp(b))
}

fn memchr_newline(text: &[u8], from: usize) -> Option<usize> {
    text.get(from..)?.iter().position(|&b| b == b'\n').map(|i| from + i)
}

pub fn filename(corpus: &Corpus, terms: &[String], exclude: Option<&str>) -> Ranked {
    let scored: Vec<(&str, f64)> = corpus
        .files()
        .filter(|(p, _)| Some(p.as_str()) != exclude)
        .map(|(path, _)| {
            let lower = path.to_lowercase();
            (path.as_str(), terms.iter().filter(|t| lower.contains(t.as_str())).count() as f64)
        })
        .collect();
    top(scored, |a, b| a.len().cmp(&b.len()).then_with(|| a.cmp(b)))
}

/// One commit of the workspace's history: date and changed paths.
pub struct HistoryCommit {
    pub time: i64,
    pub paths: Vec<String>,
}

/// The workspace's own history from HEAD (the parent): newest `COCHANGE_HISTORY`
/// non-merge commits with their changed paths.
pub fn read_history(git: &Git) -> Result<Vec<HistoryCommit>> {
    let out = git.run([
        "log",
        "--no-merges",
        "--no-renames",
        "--no-color",
        "--no-show-signature",
        "-z",
        "--name-only",
        &format!("-n{COCHANGE_HISTORY}"),
        "--format=%x01%ct",
        "HEAD",
    ])?;
    let text = String::from_utf8_lossy(&out);
    let mut commits = Vec::new();
    for chunk in text.split('\x01').filter(|c| !c.is_empty()) {
        let mut parts = chunk.split('\0');
        let time = parts.next().unwrap_or("").trim().parse::<i64>().unwrap_or(0);
        let paths: Vec<String> = parts.map(|p| p.trim_matches('\n').to_string()).filter(|p| !p.is_empty()).collect();
        commits.push(HistoryCommit { time, paths });
    }
    Ok(commits)
}

/// Files changed together with `open` (see the module header).
pub fn cochange(history: &[HistoryCommit], open: &str, corpus: &Corpus) -> Ranked {
    let mut stats: HashMap<&str, (u32, i64)> = HashMap::new();
    for commit in history {
        if commit.paths.len() > COCHANGE_MAX_FILES || !commit.paths.iter().any(|p| p == open) {
            continue;
        }
        for path in &commit.paths {
            if path != open && corpus.contains(path) {
                let e = stats.entry(path.as_str()).or_insert((0, i64::MIN));
                e.0 += 1;
                e.1 = e.1.max(commit.time);
            }
        }
    }
    let mut ranked: Vec<(&str, (u32, i64))> = stats.into_iter().collect();
    ranked.sort_by(|a, b| b.1 .0.cmp(&a.1 .0).then_with(|| b.1 .1.cmp(&a.1 .1)).then_with(|| a.0.cmp(b.0)));
    Ranked { paths: ranked.into_iter().take(LIMIT).map(|(p, _)| p.to_string()).collect(), passages: None }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn corpus(files: &[(&str, &str)]) -> (tempfile::TempDir, Corpus) {
        let dir = tempfile::tempdir().expect("temp dir");
        for (path, text) in files {
            let p = dir.path().join(path);
            std::fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
            std::fs::write(p, text).expect("write");
        }
        let mut c = Corpus::default();
        c.refresh(dir.path(), &HashMap::new());
        (dir, c)
    }

    #[test]
    fn baselines_rank_the_obvious_file_first() {
        let (_dir, c) = corpus(&[
            ("src/retry.ts", "export function retryDelay(attempt: number) { return backoffLimit * attempt; }\n// retry again\n"),
            ("src/hooks.ts", "export function beforeRetry(hook) { return hook; }\n"),
            ("src/body.ts", "export function parseBody(body) { return body; }\n"),
            ("docs/readme.md", "# Ky\nA tiny HTTP client.\n"),
        ]);
        let q = message_query("Fix retry delay with backoffLimit");
        assert_eq!(bm25(&c, &q.bm25, None).paths.first().map(String::as_str), Some("src/retry.ts"));
        let g = grep(&c, &q.grep, None);
        assert_eq!(g.paths.first().map(String::as_str), Some("src/retry.ts"));
        assert!(!g.paths.contains(&"src/body.ts".to_string()));
        assert_eq!(filename(&c, &q.filename, None).paths, vec!["src/retry.ts"]);
        assert!(bm25(&c, &q.bm25, Some("src/retry.ts")).paths.iter().all(|p| p != "src/retry.ts"));
        let open = open_query(&c, "export function retryDelay(attempt) { return backoffLimit * attempt; }");
        assert!(open.grep.contains(&"backofflimit".to_string()) && open.bm25.contains(&"backoff".to_string()), "{open:?}");
    }

    #[test]
    fn grep_counts_lines_not_matches() {
        let (_dir, c) = corpus(&[("a.ts", "alpha alpha beta\nnothing\nbeta\n"), ("b.ts", "alpha\n")]);
        let g = grep(&c, &["alpha".to_string(), "beta".to_string()], None);
        assert_eq!(g.paths, vec!["a.ts", "b.ts"]);
        let (_d2, c2) = corpus(&[("x.ts", "Alpha\nALPHA beta\nalpha\n"), ("y.ts", "alpha\nalpha\n")]);
        assert_eq!(grep(&c2, &["alpha".to_string()], None).paths, vec!["x.ts", "y.ts"]);
    }

    #[test]
    fn cochange_counts_then_recency() {
        let (_dir, c) = corpus(&[("a.ts", "a"), ("b.ts", "b"), ("c.ts", "c"), ("d.ts", "d")]);
        let h = |time, paths: &[&str]| HistoryCommit { time, paths: paths.iter().map(|s| s.to_string()).collect() };
        let mut big: Vec<String> = (0..60).map(|i| format!("f{i}.ts")).collect();
        big.push("a.ts".into());
        big.push("d.ts".into());
        let history = vec![
            h(30, &["a.ts", "c.ts"]),
            h(20, &["a.ts", "b.ts"]),
            h(10, &["a.ts", "b.ts", "gone.ts"]),
            HistoryCommit { time: 40, paths: big },
        ];
        let r = cochange(&history, "a.ts", &c);
        assert_eq!(r.paths, vec!["b.ts", "c.ts"], "b twice; c once; d only in a >50-file commit; gone.ts is no candidate");
    }
}
