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
    /// A buffer's cursor, as a 1-based line of `text`; None for messages.
    pub cursor_line: Option<u32>,
    /// A buffer's recently edited lines, 1-based lines of `text`; empty for messages.
    pub edit_lines: Vec<u32>,
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
        .map(|(i, text)| Source { text: text.clone(), weight: message_weight(n - 1 - i), cursor_line: None, edit_lines: Vec::new() })
        .collect()
}

/// How the lines near a cursor or a recent edit count.
#[derive(Debug, Clone, Copy)]
pub struct Near {
    /// Lines on each side of the cursor.
    cursor_lines: u32,
    /// Lines on each side of a recent edit.
    edit_lines: u32,
    /// Their weight against the rest of the buffer's lines (1).
    boost: f32,
}

/// For ranking files: the lines near the cursor and recent edits count double (the whole
/// buffer says what the task is about).
pub const RANKING_NEAR: Near = Near { cursor_lines: CURSOR_WINDOW_LINES, edit_lines: EDIT_WINDOW_LINES, boost: 2.0 };

/// For choosing each item's passage: the words a few lines around the cursor (and recent
/// edits) decide, and the rest of the buffers only fill the term list when those lines hold
/// few words. A file's passage should be the part that goes with what the user is doing at
/// the cursor, not with the whole open file. Chosen on the development halves of real
/// history (`knit bench history`, open mode; README): passages overlap the lines the
/// commit changed in 0.464 of the found files, against 0.395 with the ranking's terms (an
/// experiment build's sweep of the window's half-width: 0, 2, 4, 8, 15, 30 and 60 lines gave
/// 0.461, 0.464, 0.466, 0.467, 0.452, 0.450, 0.434).
pub const PASSAGE_NEAR: Near = Near { cursor_lines: 8, edit_lines: EDIT_WINDOW_LINES, boost: 1000.0 };

/// True when some buffer has a cursor or a recent edit: an open-buffer pack's passages are
/// then chosen with [`PASSAGE_NEAR`]; otherwise the ranking's terms choose them too.
pub fn located(buffers: &[OpenBuffer]) -> bool {
    buffers.iter().any(|b| b.cursor_line.is_some() || !b.recent_edit_lines.is_empty())
}

/// Open buffers → sources: focused first (3), then by recency (2, 1, 1…). How much the
/// lines near the cursor and recent edits count is chosen when terms are selected
/// ([`Near`]), so one set of sources serves the ranking and the passages.
pub fn sources_from_buffers(buffers: &[OpenBuffer]) -> Vec<Source> {
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
            // the buffer's own file name words describe the task too ("resolver.ts")
            let name = buffer.path.rsplit('/').next().unwrap_or(&buffer.path);
            let stem = name.split('.').next().unwrap_or(name);
            let mut text = String::with_capacity(buffer.text.len().min(200_000));
            text.push_str(stem);
            text.push('\n');
            // line 1 of the buffer is line 2 here
            for (i, line) in lines.iter().enumerate() {
                if i < first || i >= last {
                    text.push('\n');
                } else {
                    // Anchor baselines (`knit:1MH…`) are opaque hashes, never task words.
                    text.push_str(&knit_anchors::baseline::strip_baselines(line));
                    text.push('\n');
                }
            }
            Source { text, weight, cursor_line: buffer.cursor_line.map(|c| c.saturating_add(1)), edit_lines: buffer.recent_edit_lines.iter().map(|e| e.saturating_add(1)).collect() }
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
    /// Weighted count under each of the [`Near`] weightings asked for, in their order.
    weighted: Vec<f32>,
    is_cjk: bool,
    /// (source, char_start, char_end)
    spans: Vec<(usize, usize, usize)>,
}

impl Near {
    /// How much a word on 1-based `line` of `source` counts: `boost` within the window
    /// around the cursor or a recent edit, 1 elsewhere (and always 1 in a message).
    fn factor(&self, source: &Source, line: u32) -> f32 {
        // (windows are clipped at the buffer's first line, which is `text`'s line 2)
        let within = |at: u32, half: u32| (at.saturating_sub(1).saturating_sub(half) + 1..=at.saturating_add(half)).contains(&line);
        let near = source.cursor_line.is_some_and(|c| within(c, self.cursor_lines)) || source.edit_lines.iter().any(|&e| within(e, self.edit_lines));
        if near {
            self.boost.max(1.0)
        } else {
            1.0
        }
    }
}

/// Collects candidate terms with their spans and weighted counts under each of `nears`:
/// each source is tokenized once however many weightings are asked for.
fn candidates(sources: &[Source], nears: &[Near]) -> HashMap<String, Candidate> {
    let mut out: HashMap<String, Candidate> = HashMap::new();
    for (s, source) in sources.iter().enumerate() {
        let occurrences: Vec<TermOccurrence> = analysis::task_occurrences(&source.text);
        let located = source.cursor_line.is_some() || !source.edit_lines.is_empty();
        let line_starts: Vec<usize> = if located {
            let mut starts = vec![0];
            starts.extend(source.text.chars().enumerate().filter(|(_, c)| *c == '\n').map(|(i, _)| i + 1));
            starts
        } else {
            Vec::new()
        };
        for occurrence in occurrences {
            let line = if line_starts.is_empty() {
                None
            } else {
                Some(match line_starts.binary_search(&occurrence.char_start) {
                    Ok(i) => i + 1,
                    Err(i) => i,
                } as u32)
            };
            let entry = out.entry(occurrence.term).or_insert_with(|| Candidate { weighted: vec![0.0; nears.len()], is_cjk: occurrence.is_cjk, spans: Vec::new() });
            for (weighted, near) in entry.weighted.iter_mut().zip(nears) {
                let factor = line.map_or(1.0, |line| near.factor(source, line));
                *weighted += source.weight * factor;
            }
            entry.spans.push((s, occurrence.char_start, occurrence.char_end));
        }
    }
    out
}

/// The terms of a task, selected by IDF, with the lines near a buffer's cursor and recent
/// edits weighed as the ranking weighs them ([`RANKING_NEAR`]). `doc_freq(term)` = files
/// containing the term; `n_files` = files in the pool. Terms absent from the workspace are
/// never selected.
pub fn select_terms(sources: &[Source], n_files: usize, doc_freq: &mut dyn FnMut(&str) -> u32) -> Vec<SelectedTerm> {
    select_terms_under(sources, &[RANKING_NEAR], n_files, doc_freq).pop().unwrap_or_default()
}

/// [`select_terms`] under several weightings of the lines near the cursor, one term list
/// per weighting in `nears`' order. The sources are tokenized once and each candidate's
/// document frequency is asked once: an open-buffer pack needs the ranking's terms and
/// its passages' terms from the same buffers.
pub fn select_terms_under(sources: &[Source], nears: &[Near], n_files: usize, doc_freq: &mut dyn FnMut(&str) -> u32) -> Vec<Vec<SelectedTerm>> {
    let candidates = candidates(sources, nears);
    let n = n_files.max(1) as f32;
    // (term, df, idf, candidate) of the terms that can rank
    let mut rankable: Vec<(&String, u32, f32, &Candidate)> = Vec::new();
    for (term, candidate) in &candidates {
        let df = doc_freq(term);
        // absent terms cannot rank; terms in more than half of the files say nothing about
        // which file the task is about (their Robertson IDF would be negative)
        // (in a handful of files IDF alone orders terms; dropping would leave nothing)
        if df == 0 || (n_files >= 12 && df as usize * 2 > n_files) {
            continue;
        }
        let idf = (1.0 + (n - df as f32 + 0.5) / (df as f32 + 0.5)).ln();
        rankable.push((term, df, idf, candidate));
    }
    (0..nears.len()).map(|k| pick_terms(&rankable, k)).collect()
}

/// The strongest terms under the `k`-th weighting, CJK grams that overlap a stronger one
/// dropped.
fn pick_terms(rankable: &[(&String, u32, f32, &Candidate)], k: usize) -> Vec<SelectedTerm> {
    let mut scored: Vec<(&String, f32, u32, &Candidate)> = rankable.iter().map(|&(term, df, idf, candidate)| (term, candidate.weighted[k] * idf, df, candidate)).collect();
    // strongest first; ties: longer, then lexicographic (deterministic)
    scored.sort_by(|a, b| {
        b.1.partial_cmp(&a.1)
            .unwrap_or(std::cmp::Ordering::Equal)
            .then_with(|| b.0.chars().count().cmp(&a.0.chars().count()))
            .then_with(|| a.0.cmp(b.0))
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
        picked.push((term.clone(), df, candidate.weighted[k]));
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
        let sources = sources_from_buffers(std::slice::from_ref(&buffer));
        let mut asked = Vec::new();
        let mut lists = select_terms_under(&sources, &[RANKING_NEAR, PASSAGE_NEAR], 100, &mut |t| {
            asked.push(t.to_string());
            df(t)
        });
        let passage = lists.pop().expect("two lists");
        let ranking = lists.pop().expect("two lists");
        // one tokenization, one document-frequency question per word for both lists
        let distinct: std::collections::HashSet<&String> = asked.iter().collect();
        assert_eq!(distinct.len(), asked.len());
        assert_eq!(ranking, select_terms(&sources, 100, &mut |t| df(t)));
        let weight = |terms: &[SelectedTerm], word: &str| terms.iter().find(|t| t.term.contains(word)).map_or(0.0, |t| t.query_weight);
        // ranking: the words of the whole buffer lead; passages: the cursor's line does
        assert!(weight(&ranking, "retry") > weight(&ranking, "header"), "{ranking:?}");
        assert!(weight(&passage, "header") > 10.0 * weight(&passage, "retry"), "{passage:?}");
        // no cursor and no edit: no passage terms of their own
        assert!(located(std::slice::from_ref(&buffer)));
        let still = OpenBuffer { cursor_line: None, ..buffer };
        assert!(!located(&[still]));
    }

    #[test]
    fn cursor_and_edit_lines_at_the_ends_of_u32_weigh_without_overflow() {
        // a client may send any u32; the windows saturate instead of wrapping or panicking
        let buffer = OpenBuffer { path: "a.ts".into(), text: "retryBudget\nspendRetry\n".into(), focused: true, cursor_line: Some(u32::MAX), recent_edit_lines: vec![0, u32::MAX], ..Default::default() };
        let lists = select_terms_under(&sources_from_buffers(&[buffer]), &[RANKING_NEAR, PASSAGE_NEAR], 10, &mut |_| 1);
        assert_eq!(lists.len(), 2);
        // line 0 ("edited") is the buffer's first line's window: both words there are near it
        assert!(lists[1].iter().all(|t| t.weighted_count >= PASSAGE_NEAR.boost), "{:?}", lists[1]);
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
