//! The task: what the user is working on, as weighted terms.
//!
//! Read from an explicit query (one string, or a conversation oldest first where the latest
//! message weighs 3, the one before 2, then 1…) or else from the open buffers (focused 3,
//! then 2, 1, 1… by recency of focus or edit; lines near the cursor and recently edited
//! lines count double). Candidate terms are then **selected by IDF against the workspace**:
//! a term's worth is its weighted count times how rare it is, so a project name repeated in
//! every message loses to the one word only the right document contains. CJK grams that
//! overlap a better gram at the same place in the text are dropped greedily.
//!
//! Pure: the document frequencies come in through a closure.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use crate::analysis::{self, TermOccurrence};

/// At most this many terms drive one pack.
pub const MAX_TERMS: usize = 30;
/// Lines around the cursor that count double.
const CURSOR_WINDOW_LINES: u32 = 15;
/// Lines around a recent edit that count double.
const EDIT_WINDOW_LINES: u32 = 3;
/// At most this many lines of one buffer are read (around the cursor), bounding the cost
/// of a huge open file.
const MAX_BUFFER_LINES: usize = 2000;

/// An open editor buffer, as the caller knows it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct OpenBuffer {
    /// Workspace-relative, `/`-separated.
    pub path: String,
    pub text: String,
    #[serde(default)]
    pub focused: bool,
    /// 0 = most recently focused or edited, then 1, 2, …
    #[serde(default)]
    pub last_focus_or_edit_order: u32,
    /// 1-based cursor line, when known.
    #[serde(default)]
    pub cursor_line: Option<u32>,
    /// 1-based lines edited recently.
    #[serde(default)]
    pub recent_edit_lines: Vec<u32>,
}

/// Everything about the task that the wire params do not carry.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TaskInput {
    pub buffers: Vec<OpenBuffer>,
}

/// A weighted text to draw terms from.
#[derive(Debug, Clone)]
pub struct Source {
    pub text: String,
    pub weight: f32,
    /// Per-line multipliers (1-based line → factor) for buffers; empty for messages.
    pub line_boost: Vec<(u32, u32, f32)>,
}

/// Weight of the i-th newest message (0 = newest).
pub fn message_weight(newest_index: usize) -> f32 {
    match newest_index {
        0 => 3.0,
        1 => 2.0,
        _ => 1.0,
    }
}

/// Messages oldest first → sources with their weights.
pub fn sources_from_conversation(messages_oldest_first: &[String]) -> Vec<Source> {
    let n = messages_oldest_first.len();
    messages_oldest_first
        .iter()
        .enumerate()
        .map(|(i, text)| Source { text: text.clone(), weight: message_weight(n - 1 - i), line_boost: Vec::new() })
        .collect()
}

/// How the lines near a cursor or a recent edit count.
#[derive(Debug, Clone, Copy)]
struct Near {
    /// Lines on each side of the cursor.
    cursor_lines: u32,
    /// Lines on each side of a recent edit.
    edit_lines: u32,
    /// Their weight against the rest of the buffer's lines (1).
    boost: f32,
}

/// For ranking files: the lines near the cursor and recent edits count double (the whole
/// buffer says what the task is about).
const RANKING_NEAR: Near = Near { cursor_lines: CURSOR_WINDOW_LINES, edit_lines: EDIT_WINDOW_LINES, boost: 2.0 };

/// For choosing each item's passage: the words a few lines around the cursor (and recent
/// edits) decide, and the rest of the buffers only fill the term list when those lines hold
/// few words. A file's passage should be the part that goes with what the user is doing at
/// the cursor, not with the whole open file. Chosen on the development halves of real
/// history (`knit bench history`, open mode; README): passages overlap the lines the
/// commit changed in 0.464 of the found files, against 0.395 with the ranking's terms (an
/// experiment build's sweep of the window's half-width: 0, 2, 4, 8, 15, 30 and 60 lines gave
/// 0.461, 0.464, 0.466, 0.467, 0.452, 0.450, 0.434).
const PASSAGE_NEAR: Near = Near { cursor_lines: 8, edit_lines: EDIT_WINDOW_LINES, boost: 1000.0 };

/// Open buffers → the sources a pack's passages are chosen with (see [`PASSAGE_NEAR`]);
/// None when no buffer has a cursor or a recent edit (the ranking's terms then choose the
/// passages too).
pub fn passage_sources_from_buffers(buffers: &[OpenBuffer]) -> Option<Vec<Source>> {
    let located = buffers.iter().any(|b| b.cursor_line.is_some() || !b.recent_edit_lines.is_empty());
    located.then(|| buffer_sources(buffers, PASSAGE_NEAR))
}

/// Open buffers → sources: focused first (3), then by recency (2, 1, 1…).
pub fn sources_from_buffers(buffers: &[OpenBuffer]) -> Vec<Source> {
    buffer_sources(buffers, RANKING_NEAR)
}

fn buffer_sources(buffers: &[OpenBuffer], near: Near) -> Vec<Source> {
    let mut ordered: Vec<&OpenBuffer> = buffers.iter().collect();
    ordered.sort_by_key(|b| (!b.focused, b.last_focus_or_edit_order, b.path.clone()));
    ordered
        .iter()
        .enumerate()
        .map(|(rank, buffer)| {
            let weight = match rank {
                0 => 3.0,
                1 => 2.0,
                _ => 1.0,
            };
            let lines: Vec<&str> = buffer.text.lines().collect();
            let (first, last) = match buffer.cursor_line {
                Some(cursor) if lines.len() > MAX_BUFFER_LINES => {
                    let start = (cursor as usize).saturating_sub(MAX_BUFFER_LINES / 2);
                    (start, (start + MAX_BUFFER_LINES).min(lines.len()))
                }
                _ => (0, lines.len().min(MAX_BUFFER_LINES)),
            };
            let mut boost = Vec::new();
            if let Some(cursor) = buffer.cursor_line {
                boost.push((cursor.saturating_sub(near.cursor_lines), cursor + near.cursor_lines, near.boost));
            }
            for &edit in &buffer.recent_edit_lines {
                boost.push((edit.saturating_sub(near.edit_lines), edit + near.edit_lines, near.boost));
            }
            // the buffer's own file name words describe the task too ("resolver.ts")
            let name = buffer.path.rsplit('/').next().unwrap_or(&buffer.path);
            let stem = name.split('.').next().unwrap_or(name);
            let mut text = String::with_capacity(buffer.text.len().min(200_000));
            text.push_str(stem);
            text.push('\n');
            // keep line numbers aligned: line 1 of the buffer is line 2 here
            boost.iter_mut().for_each(|b| {
                b.0 += 1;
                b.1 += 1;
            });
            for (i, line) in lines.iter().enumerate() {
                if i < first || i >= last {
                    text.push('\n');
                } else {
                    // Anchor baselines (`knit:1MH…`) are opaque hashes, never task words.
                    text.push_str(&knit_anchors::baseline::strip_baselines(line));
                    text.push('\n');
                }
            }
            Source { text, weight, line_boost: boost }
        })
        .collect()
}

/// A term the pack ranks with.
#[derive(Debug, Clone, PartialEq)]
pub struct SelectedTerm {
    pub term: String,
    /// Query weight in (0, 1]: weighted count relative to the strongest term. Linear on
    /// purpose: the seed damped it (^0.25) because its project name topped the weights;
    /// here such terms (in more than half of the files) are never selected at all.
    pub query_weight: f32,
    /// Files that contain it.
    pub df: u32,
    pub weighted_count: f32,
}

struct Candidate {
    weighted: f32,
    is_cjk: bool,
    /// (source, char_start, char_end)
    spans: Vec<(usize, usize, usize)>,
}

fn line_factor(source: &Source, line: u32) -> f32 {
    source.line_boost.iter().filter(|(a, b, _)| (*a..=*b).contains(&line)).map(|b| b.2).fold(1.0, f32::max)
}

/// Collects candidate terms with weighted counts and their spans.
fn candidates(sources: &[Source]) -> HashMap<String, Candidate> {
    let mut out: HashMap<String, Candidate> = HashMap::new();
    for (s, source) in sources.iter().enumerate() {
        let occurrences: Vec<TermOccurrence> = analysis::task_occurrences(&source.text);
        let line_starts: Vec<usize> = if source.line_boost.is_empty() {
            Vec::new()
        } else {
            let mut starts = vec![0];
            starts.extend(source.text.chars().enumerate().filter(|(_, c)| *c == '\n').map(|(i, _)| i + 1));
            starts
        };
        for occurrence in occurrences {
            let factor = if line_starts.is_empty() {
                1.0
            } else {
                let line = match line_starts.binary_search(&occurrence.char_start) {
                    Ok(i) => i + 1,
                    Err(i) => i,
                } as u32;
                line_factor(source, line)
            };
            let entry = out.entry(occurrence.term).or_insert(Candidate { weighted: 0.0, is_cjk: occurrence.is_cjk, spans: Vec::new() });
            entry.weighted += source.weight * factor;
            entry.spans.push((s, occurrence.char_start, occurrence.char_end));
        }
    }
    out
}

/// The terms of a task, selected by IDF. `doc_freq(term)` = files containing the term;
/// `n_files` = files in the pool. Terms absent from the workspace are never selected.
pub fn select_terms(sources: &[Source], n_files: usize, doc_freq: &mut dyn FnMut(&str) -> u32) -> Vec<SelectedTerm> {
    let candidates = candidates(sources);
    let n = n_files.max(1) as f32;
    let mut scored: Vec<(String, f32, u32, &Candidate)> = Vec::new();
    for (term, candidate) in &candidates {
        let df = doc_freq(term);
        // absent terms cannot rank; terms in more than half of the files say nothing about
        // which file the task is about (their Robertson IDF would be negative)
        // (in a handful of files IDF alone orders terms; dropping would leave nothing)
        if df == 0 || (n_files >= 12 && df as usize * 2 > n_files) {
            continue;
        }
        let idf = (1.0 + (n - df as f32 + 0.5) / (df as f32 + 0.5)).ln();
        scored.push((term.clone(), candidate.weighted * idf, df, candidate));
    }
    // strongest first; ties: longer, then lexicographic (deterministic)
    scored.sort_by(|a, b| {
        b.1.partial_cmp(&a.1)
            .unwrap_or(std::cmp::Ordering::Equal)
            .then_with(|| b.0.chars().count().cmp(&a.0.chars().count()))
            .then_with(|| a.0.cmp(&b.0))
    });
    let mut claimed: Vec<(usize, usize, usize)> = Vec::new();
    let mut picked: Vec<(String, u32, f32)> = Vec::new();
    for (term, _, df, candidate) in scored {
        if picked.len() >= MAX_TERMS {
            break;
        }
        if candidate.is_cjk {
            let free: Vec<(usize, usize, usize)> = candidate
                .spans
                .iter()
                .copied()
                .filter(|&(s, a, b)| !claimed.iter().any(|&(cs, ca, cb)| cs == s && a < cb && ca < b))
                .collect();
            if free.is_empty() {
                continue;
            }
            claimed.extend(free);
        }
        picked.push((term, df, candidate.weighted));
    }
    let strongest = picked.iter().map(|p| p.2).fold(0.0f32, f32::max).max(f32::MIN_POSITIVE);
    picked
        .into_iter()
        .map(|(term, df, weighted)| SelectedTerm { query_weight: weighted / strongest, term, df, weighted_count: weighted })
        .collect()
}

/// True when the selected terms cannot tell files apart: none is present in the pool
/// without being present everywhere.
pub fn too_few_terms(terms: &[SelectedTerm], n_files: usize) -> bool {
    !terms.iter().any(|t| t.df > 0 && (t.df as usize) < n_files.max(2))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conversation_weights_latest_most() {
        let sources = sources_from_conversation(&["old".into(), "mid".into(), "new".into()]);
        let weights: Vec<f32> = sources.iter().map(|s| s.weight).collect();
        assert_eq!(weights, vec![1.0, 2.0, 3.0]);
    }

    #[test]
    fn rare_terms_beat_frequent_ones_and_absent_terms_are_dropped() {
        let sources = sources_from_conversation(&["knit knit knit resolver zzzabsent".into()]);
        let mut df = |t: &str| match t {
            "knit" => 100,
            "resolver" => 2,
            _ => 0,
        };
        let terms = select_terms(&sources, 100, &mut df);
        let names: Vec<&str> = terms.iter().map(|t| t.term.as_str()).collect();
        assert_eq!(names.first(), Some(&"resolver"), "{names:?}");
        assert!(!names.contains(&"zzzabsent"));
    }

    #[test]
    fn overlapping_cjk_grams_keep_the_better_one_only() {
        let sources = sources_from_conversation(&["缩略图网格".into()]);
        let mut df = |_: &str| 3;
        let terms = select_terms(&sources, 50, &mut df);
        let names: Vec<&str> = terms.iter().map(|t| t.term.as_str()).collect();
        // the first pick claims its span; overlapping grams are dropped, the rest is covered
        assert!(names.len() <= 3, "{names:?}");
        let covered: String = names.concat();
        for c in "缩略图网格".chars() {
            assert!(covered.contains(c), "{c} not covered by {names:?}");
        }
    }

    #[test]
    fn passage_terms_are_the_words_at_the_cursor() {
        let mut text: String = (0..40).map(|i| format!("retryBudget spendRetry {i}\n")).collect();
        text.push_str(&"headerCanonical lowerName\n".repeat(20));
        text.push_str(&(0..40).map(|i| format!("retryBudget spendRetry {i}\n")).collect::<String>());
        let cursor = 50;
        let buffer = OpenBuffer { path: "src/client.ts".into(), text, focused: true, cursor_line: Some(cursor), ..Default::default() };
        let df = |t: &str| if t.contains("retry") || t.contains("spend") { 3 } else { 5 };
        let ranking = select_terms(&sources_from_buffers(std::slice::from_ref(&buffer)), 100, &mut |t| df(t));
        let passage = select_terms(&passage_sources_from_buffers(std::slice::from_ref(&buffer)).expect("a cursor"), 100, &mut |t| df(t));
        let weight = |terms: &[SelectedTerm], word: &str| terms.iter().find(|t| t.term.contains(word)).map_or(0.0, |t| t.query_weight);
        // ranking: the words of the whole buffer lead; passages: the cursor's line does
        assert!(weight(&ranking, "retry") > weight(&ranking, "header"), "{ranking:?}");
        assert!(weight(&passage, "header") > 10.0 * weight(&passage, "retry"), "{passage:?}");
        // no cursor and no edit: no passage sources of their own
        let still = OpenBuffer { cursor_line: None, ..buffer };
        assert!(passage_sources_from_buffers(&[still]).is_none());
    }

    #[test]
    fn buffers_weigh_focus_then_recency() {
        let buffers = vec![
            OpenBuffer { path: "a.ts".into(), text: "alpha".into(), focused: false, last_focus_or_edit_order: 0, ..Default::default() },
            OpenBuffer { path: "b.ts".into(), text: "beta".into(), focused: true, last_focus_or_edit_order: 1, ..Default::default() },
            OpenBuffer { path: "c.ts".into(), text: "gamma".into(), focused: false, last_focus_or_edit_order: 2, ..Default::default() },
        ];
        let sources = sources_from_buffers(&buffers);
        assert!(sources[0].text.contains("beta") && sources[0].weight == 3.0);
        assert_eq!(knit_anchors::baseline::strip_baselines(r#"[f](a.ts#f "Reviewed knit:1MHabc-_x9") end"#), r#"[f](a.ts#f "Reviewed") end"#);
        assert!(sources[1].text.contains("alpha") && sources[1].weight == 2.0);
        assert_eq!(sources[2].weight, 1.0);
    }
}
