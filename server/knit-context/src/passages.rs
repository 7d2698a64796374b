//! Splitting a file into passages: contiguous line ranges of roughly one screen, cut at
//! Markdown headings (outside fences) and blank lines, so that a match deep in a long file
//! is reported with the lines around it rather than "somewhere in this file". Code is cut
//! at declarations (a declaration keyword and its name, with the comments, attributes and
//! decorators just above it): the passage a code item reports is the function, method or
//! type that matched, not a fixed window.
//!
//! Passages are not indexed: [`best_passages`] re-splits a candidate file at pack time and
//! scores its passages with BM25 against the task terms, so the index holds one document
//! per file and a cold index analyses each byte once (one document per declaration had
//! made the first build of a 10 000-file workspace twice as slow).
//!
//! Pure: text in, ranges out. Line numbers are 1-based and inclusive.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, OnceLock};

use crate::analysis;
use crate::classify::Kind;

/// Target size of a passage; a passage grows past it only inside a single long line.
const PASSAGE_TARGET_CHARS: usize = 1200;
/// Passages smaller than this are merged into the next one when both fit the target.
const PASSAGE_MIN_CHARS: usize = 300;
/// Code passages of at most this many lines (a constant, an import) merge into the next.
const CODE_MERGE_LINES: u32 = 2;
/// Hard cap on lines per passage (code with many short lines).
const PASSAGE_MAX_LINES: usize = 60;
/// Bound on passages per file; larger files get proportionally larger passages.
const MAX_PASSAGES_PER_FILE: usize = 400;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Passage {
    pub start_line: u32,
    pub end_line: u32,
    /// The title/summary head of a document: a foothold, not a deep hit.
    pub is_head: bool,
}

fn is_fence(line: &str) -> bool {
    let t = line.trim_start();
    t.starts_with("```") || t.starts_with("~~~")
}

/// A comment, attribute or decorator line that introduces the declaration below it.
fn is_preamble(line: &str) -> bool {
    let t = line.trim_start();
    !t.is_empty() && (t.starts_with("//") || t.starts_with("/*") || t.starts_with('*') || t.starts_with("#[") || t.starts_with('@') || t.starts_with("///") || (t.starts_with('#') && !t.starts_with("#!")))
}

fn is_heading(line: &str) -> bool {
    let t = line.trim_start();
    let level = t.chars().take_while(|&c| c == '#').count();
    (1..=6).contains(&level) && t[level..].starts_with([' ', '\t'])
}

/// Splits `text` into passages. `head_end_line` (docs) forces a cut after the head.
pub fn split(text: &str, kind: Kind, head_end_line: u32) -> Vec<Passage> {
    let declaration_lines: Vec<usize> = match kind {
        Kind::Doc => Vec::new(),
        _ => crate::symbols::declarations(text).into_iter().map(|(line, _)| line).collect(),
    };
    split_at(text, kind, head_end_line, &declaration_lines)
}

/// [`split`] with the code's declaration lines (0-based, ascending) already found.
pub fn split_at(text: &str, kind: Kind, head_end_line: u32, declaration_lines: &[usize]) -> Vec<Passage> {
    let lines: Vec<&str> = text.lines().collect();
    if lines.is_empty() {
        return Vec::new();
    }
    let total_chars: usize = lines.iter().map(|l| l.len() + 1).sum();
    let target = PASSAGE_TARGET_CHARS.max(total_chars / MAX_PASSAGES_PER_FILE + 1);
    let max_lines = PASSAGE_MAX_LINES.max(lines.len() / MAX_PASSAGES_PER_FILE + 1);

    // 1. hard section boundaries (0-based line index where a new section starts)
    let mut boundaries = vec![0usize];
    if head_end_line > 0 && (head_end_line as usize) < lines.len() {
        boundaries.push(head_end_line as usize);
    }
    if kind == Kind::Doc {
        let mut in_fence = false;
        for (i, line) in lines.iter().enumerate() {
            if is_fence(line) {
                in_fence = !in_fence;
            } else if !in_fence && i > 0 && is_heading(line) {
                boundaries.push(i);
            }
        }
    } else {
        for &i in declaration_lines {
            if i > 0 && i < lines.len() {
                // The doc comment, attributes and decorators above belong to it.
                let mut start = i;
                while start > 0 && is_preamble(lines[start - 1]) {
                    start -= 1;
                }
                boundaries.push(start);
            }
        }
    }
    boundaries.sort_unstable();
    boundaries.dedup();
    boundaries.push(lines.len());

    // 2. within each section, cut at the last blank line once the target size is reached
    let mut ranges: Vec<(usize, usize)> = Vec::new(); // [start, end) 0-based
    for window in boundaries.windows(2) {
        let (section_start, section_end) = (window[0], window[1]);
        let mut start = section_start;
        let mut chars = 0usize;
        let mut last_blank: Option<usize> = None;
        let mut i = section_start;
        while i < section_end {
            chars += lines[i].len() + 1;
            if lines[i].trim().is_empty() && i > start {
                last_blank = Some(i);
            }
            let too_big = chars >= target || i + 1 - start >= max_lines;
            if too_big && i + 1 < section_end {
                let cut = match last_blank {
                    Some(b) if b > start && (b - start) * 2 >= (i + 1 - start) => b + 1,
                    _ => i + 1,
                };
                ranges.push((start, cut));
                start = cut;
                chars = lines[start..=i].iter().map(|l| l.len() + 1).sum();
                last_blank = None;
            }
            i += 1;
        }
        if start < section_end {
            ranges.push((start, section_end));
        }
    }

    // 3. trim blank edges, drop empty ranges, merge small neighbours
    let mut out: Vec<Passage> = Vec::new();
    let mut out_chars: Vec<usize> = Vec::new();
    for (start, end) in ranges {
        let mut s = start;
        let mut e = end;
        while s < e && lines[s].trim().is_empty() {
            s += 1;
        }
        while e > s && lines[e - 1].trim().is_empty() {
            e -= 1;
        }
        if s >= e {
            continue;
        }
        let is_head = head_end_line > 0 && e <= head_end_line as usize;
        let chars: usize = lines[s..e].iter().map(|l| l.len() + 1).sum();
        if let (Some(prev), Some(prev_chars)) = (out.last_mut(), out_chars.last_mut()) {
            // Code keeps one declaration per passage; only one- or two-liners (imports,
            // constants) merge into the next, so a file of 500 constants is not 500 passages.
            let small = match kind {
                Kind::Doc => *prev_chars < PASSAGE_MIN_CHARS,
                _ => prev.end_line + 1 - prev.start_line <= CODE_MERGE_LINES,
            };
            let mergeable = !prev.is_head && !is_head && small && *prev_chars + chars <= target;
            if mergeable {
                prev.end_line = e as u32;
                *prev_chars += chars;
                continue;
            }
        }
        out.push(Passage { start_line: s as u32 + 1, end_line: e as u32, is_head });
        out_chars.push(chars);
    }
    out
}

/// BM25 saturation and length normalisation of passage scoring.
const K1: f32 = 1.2;
const PASSAGE_B: f32 = 0.75;

/// The best passage of a file and its per-term passage frequencies.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PassageDetail {
    pub best: Option<(u32, u32)>,
    /// Indexes (into the task terms) of the terms the best passage holds.
    pub best_terms: Vec<usize>,
    /// Per term: the highest frequency in any non-head passage, with that passage's lines.
    pub deepest: Vec<Option<(u32, u32, u32)>>,
}

/// What passage scoring needs to know of the workspace and the task, made once per pack:
/// per task term its IDF (over the workspace's files), the average passage length in
/// index terms, and the matcher of the terms' probes (see [`probe_counts`]).
#[derive(Debug, Clone)]
pub struct PassageStats {
    pub idf: Vec<f32>,
    pub avg_len: f32,
    /// `None` when a scored term is not ASCII (lowercasing may move bytes): nothing is
    /// bounded then, every passage is scored.
    probes: Option<Probes>,
}

#[derive(Debug, Clone)]
struct Probes {
    /// `None` when no term is scored.
    matcher: Option<aho_corasick::AhoCorasick>,
    /// pattern → term index
    term_of: Vec<usize>,
}

impl PassageStats {
    pub fn new(terms: &[(String, f32)], idf: Vec<f32>, avg_len: f32) -> PassageStats {
        let mut patterns: Vec<&str> = Vec::new();
        let mut term_of = Vec::new();
        let mut ascii = true;
        for (t, (term, _)) in terms.iter().enumerate() {
            if idf.get(t).is_none_or(|&v| v <= 0.0) {
                continue;
            }
            ascii &= term.is_ascii();
            // analysis lowercases a word and at most drops a plural ending (`entries` →
            // `entry`): an ASCII term minus a final `y` is a substring of every word it
            // comes from
            patterns.push(match term.strip_suffix('y') {
                Some(stem) if !stem.is_empty() => stem,
                _ => term,
            });
            term_of.push(t);
        }
        let probes = if !ascii {
            None
        } else if patterns.is_empty() {
            Some(Probes { matcher: None, term_of })
        } else {
            aho_corasick::AhoCorasick::builder().ascii_case_insensitive(true).build(&patterns).ok().map(|m| Probes { matcher: Some(m), term_of })
        };
        PassageStats { idf, avg_len, probes }
    }
}

/// Splits `text` as the index would and scores every passage with BM25 over `terms`
/// (term, query weight): the best passage (ties: the earliest) with the terms it holds,
/// and per term the non-head passage where it is most frequent. `head_end_line` as for
/// [`split`].
pub fn best_passages(text: &str, kind: Kind, head_end_line: u32, terms: &[(String, f32)], stats: &PassageStats) -> PassageDetail {
    best_passages_of(text, &PassageCut::new(text, kind, head_end_line), terms, stats)
}

/// The passages [`split`] cuts from one text, with the byte range of each, and each
/// passage's terms once a pack has scored it exactly: what passage scoring needs besides
/// the query. A pack keeps it per file content (the same candidates come back pack after
/// pack), so a file's declarations are scanned, its line starts found and a passage
/// tokenized once, not at every pack.
#[derive(Debug)]
pub struct PassageCut {
    pub passages: Vec<Passage>,
    /// Per passage, its bytes in the text: from its first line's start to the next line's.
    pub bytes: Vec<(usize, usize)>,
    terms: Vec<OnceLock<PassageTerms>>,
    /// Every distinct term of the passages tokenized so far, with its id in this cut: a
    /// passage counts its terms by id, so a pack asks for each query term's id once per
    /// file and then reads each passage's counts without hashing a string.
    vocab: Mutex<rustc_hash::FxHashMap<Box<str>, u32>>,
    /// Approximate heap bytes of the terms filled in so far (the keeper's budget).
    filled_bytes: AtomicUsize,
    /// The newest release section, found the first time a changelog's cut is asked for it
    /// (see [`newest_release`]): a changelog is a candidate of pack after pack.
    newest_release: OnceLock<Option<(u32, u32)>>,
}

/// A passage's terms as the index counts them: how many, and each distinct one's count.
#[derive(Debug, Default)]
struct PassageTerms {
    len: u32,
    /// The cut's vocabulary size when this passage was tokenized: every id it holds is
    /// below it, so ids asked when the vocabulary was at least this large are complete
    /// for it — whichever pack (another thread's included) added its words.
    vocab_end: u32,
    /// (term id in the cut's vocabulary, count), by id.
    tf: Vec<(u32, u32)>,
}

impl PassageTerms {
    /// The count of the term with id `id` (0 for None: a term no tokenized passage of the
    /// cut holds).
    fn count_of(&self, id: Option<u32>) -> u32 {
        id.and_then(|id| self.tf.binary_search_by_key(&id, |&(term, _)| term).ok()).map_or(0, |at| self.tf[at].1)
    }
}

/// The query terms that can score (IDF above 0), each at its index in the query.
type Wanted<'a> = rustc_hash::FxHashMap<&'a str, usize>;

/// Per query term, whether it scores at its index: it has IDF, and a term listed twice
/// counts once, at the index `wanted` keeps. Asked once per file rather than once per
/// passage and term: the look-up hashed and compared every term of every passage.
fn scorable(terms: &[(String, f32)], wanted: &Wanted<'_>) -> Vec<bool> {
    terms.iter().enumerate().map(|(t, (term, _))| wanted.get(term.as_str()) == Some(&t)).collect()
}

impl PassageCut {
    pub fn new(text: &str, kind: Kind, head_end_line: u32) -> PassageCut {
        let passages = split(text, kind, head_end_line);
        let mut line_starts = vec![0usize];
        line_starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        let bytes: Vec<(usize, usize)> = passages
            .iter()
            .map(|p| {
                let from = line_starts.get(p.start_line.saturating_sub(1) as usize).copied().unwrap_or(text.len());
                let to = line_starts.get(p.end_line as usize).copied().unwrap_or(text.len()).max(from);
                (from, to)
            })
            .collect();
        let terms = bytes.iter().map(|_| OnceLock::new()).collect();
        PassageCut { passages, bytes, terms, vocab: Mutex::default(), filled_bytes: AtomicUsize::new(0), newest_release: OnceLock::new() }
    }

    /// [`newest_release`] of `text` (the text this cut was made of), found once per cut.
    pub fn newest_release(&self, text: &str) -> Option<(u32, u32)> {
        *self.newest_release.get_or_init(|| newest_release(text))
    }

    /// Heap bytes this cut holds, about (passages and the terms filled in so far).
    pub fn heap_bytes(&self) -> usize {
        self.passages.len() * (std::mem::size_of::<Passage>() + 2 * std::mem::size_of::<usize>() + std::mem::size_of::<OnceLock<PassageTerms>>()) + self.filled_bytes.load(Ordering::Relaxed)
    }

    /// Passage `p`'s terms, tokenized from `text` (the text this cut was made of) the first
    /// time they are asked for.
    fn terms_of(&self, text: &str, p: usize) -> &PassageTerms {
        self.terms[p].get_or_init(|| {
            let mut vocab = self.vocab.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
            let mut len = 0u32;
            let mut counts: rustc_hash::FxHashMap<u32, u32> = rustc_hash::FxHashMap::default();
            let mut new_bytes = 0usize;
            analysis::for_each_term_ref(text.get(self.bytes[p].0..self.bytes[p].1).unwrap_or(""), |t| {
                len += 1;
                let id = match vocab.get(t.term) {
                    Some(&id) => id,
                    None => {
                        let id = vocab.len() as u32;
                        vocab.insert(t.term.into(), id);
                        // the boxed text with its allocation header, and the table's slot
                        // (key, id, control byte) at its load factor
                        new_bytes += t.term.len() + 48;
                        id
                    }
                };
                *counts.entry(id).or_insert(0) += 1;
            });
            let vocab_end = vocab.len() as u32;
            drop(vocab);
            let mut tf: Vec<(u32, u32)> = counts.into_iter().collect();
            tf.sort_unstable();
            self.filled_bytes.fetch_add(new_bytes + tf.len() * std::mem::size_of::<(u32, u32)>(), Ordering::Relaxed);
            PassageTerms { len, vocab_end, tf }
        })
    }

    /// Per query term, its id in this cut's vocabulary when it scores (`scorable`) and a
    /// tokenized passage holds it: fills the entries of `ids` that are None (ids never
    /// change once given, so only the missing ones are asked again after a passage
    /// brought new words), and says the vocabulary's size it read them from.
    fn fill_term_ids(&self, terms: &[(String, f32)], scorable: &[bool], ids: &mut [Option<u32>]) -> u32 {
        let vocab = self.vocab.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        for ((id, (term, _)), &scores) in ids.iter_mut().zip(terms).zip(scorable) {
            if scores && id.is_none() {
                *id = vocab.get(term.as_str()).copied();
            }
        }
        vocab.len() as u32
    }
}

/// [`best_passages`] over `cut`, what [`PassageCut::new`] made of `text`.
pub fn best_passages_of(text: &str, cut: &PassageCut, terms: &[(String, f32)], stats: &PassageStats) -> PassageDetail {
    let passages = &cut.passages[..];
    let mut detail = PassageDetail { deepest: vec![None; terms.len()], ..Default::default() };
    let wanted: Wanted<'_> = terms.iter().enumerate().filter(|(i, _)| stats.idf.get(*i).is_some_and(|&v| v > 0.0)).map(|(i, (t, _))| (t.as_str(), i)).collect();
    if wanted.is_empty() {
        return detail;
    }
    let n_terms = terms.len();
    // Exact scoring tokenizes a passage; most of a large file's passages cannot win, so
    // they are bounded first from substring counts and tokenized only while they could.
    let scorable = scorable(terms, &wanted);
    // the query terms' ids in the cut, asked again whenever a passage holds words added
    // to the vocabulary since (by this pack or a concurrent one: the cut is shared)
    let mut ids: Vec<Option<u32>> = vec![None; n_terms];
    let mut ids_known = cut.fill_term_ids(terms, &scorable, &mut ids);
    let counts = probe_counts(text, cut, terms, &ids, ids_known, stats);
    let saturation = |tf: f32, norm: f32| tf * (K1 + 1.0) / (tf + K1 * norm);
    // Upper bound of a passage's score: every probe hit a real occurrence, and the
    // shortest length normalisation (a passage cannot be shorter than zero terms).
    let bound = |p: usize| -> f32 {
        match &counts {
            None => f32::INFINITY,
            Some(c) => (0..n_terms).filter(|&t| c[p * n_terms + t] > 0).map(|t| terms[t].1 * stats.idf[t] * saturation(c[p * n_terms + t] as f32, 1.0 - PASSAGE_B)).sum(),
        }
    };
    let count = |p: usize, t: usize| -> u32 { counts.as_ref().map_or(u32::MAX, |c| c[p * n_terms + t]) };
    // passage → (score, exact tf per term), computed at most once
    let mut exact: HashMap<usize, (f32, Vec<u32>)> = HashMap::new();
    let mut score_exactly = |p: usize| -> (f32, Vec<u32>) {
        exact
            .entry(p)
            .or_insert_with(|| {
                let passage_terms = cut.terms_of(text, p);
                if passage_terms.vocab_end > ids_known {
                    ids_known = cut.fill_term_ids(terms, &scorable, &mut ids);
                }
                let len = passage_terms.len;
                let tf: Vec<u32> = ids.iter().map(|&id| passage_terms.count_of(id)).collect();
                let norm = 1.0 - PASSAGE_B + PASSAGE_B * len as f32 / stats.avg_len.max(1.0);
                let score = (0..n_terms).filter(|&t| tf[t] > 0).map(|t| terms[t].1 * stats.idf[t] * saturation(tf[t] as f32, norm)).sum();
                (score, tf)
            })
            .clone()
    };

    // The best passage: highest score, the earliest on ties.
    let mut order: Vec<(f32, usize)> = (0..passages.len()).map(|p| (bound(p), p)).filter(|&(b, _)| b > 0.0).collect();
    order.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    let mut best: Option<(f32, usize)> = None;
    for &(upper, p) in &order {
        if best.is_some_and(|(score, at)| upper < score || (upper == score && p > at)) {
            break;
        }
        let (score, tf) = score_exactly(p);
        if tf.iter().all(|&f| f == 0) {
            continue;
        }
        if best.is_none_or(|(b, at)| score > b || (score == b && p < at)) {
            best = Some((score, p));
        }
    }
    if let Some((_, p)) = best {
        let (_, tf) = score_exactly(p);
        detail.best = Some((passages[p].start_line, passages[p].end_line));
        detail.best_terms = (0..n_terms).filter(|&t| tf[t] > 0).collect();
    }

    // Per term, the non-head passage where it is most frequent (the earliest on ties).
    for t in 0..n_terms {
        if stats.idf[t] <= 0.0 || !wanted.contains_key(terms[t].0.as_str()) {
            continue;
        }
        let mut candidates: Vec<usize> = (0..passages.len()).filter(|&p| !passages[p].is_head && count(p, t) > 0).collect();
        candidates.sort_by(|&a, &b| count(b, t).cmp(&count(a, t)).then(a.cmp(&b)));
        let mut deepest: Option<(u32, usize)> = None;
        for p in candidates {
            if deepest.is_some_and(|(tf, at)| count(p, t) < tf || (count(p, t) == tf && p > at)) {
                break;
            }
            let tf = score_exactly(p).1[t];
            if tf > 0 && deepest.is_none_or(|(d, at)| tf > d || (tf == d && p < at)) {
                deepest = Some((tf, p));
            }
        }
        detail.deepest[t] = deepest.map(|(tf, p)| (tf, passages[p].start_line, passages[p].end_line));
    }
    detail
}

/// Per passage and term (row-major, `passages × terms`), an upper bound of the term's
/// frequency in the passage: the exact count where the cut already holds the passage's
/// terms, else how often the term's probe occurs in it, ASCII case ignored (see
/// [`PassageStats::new`]). Terms that do not score (see [`scorable`]) count 0, and so do
/// terms no passage tokenized so far holds (`ids`, from [`PassageCut::fill_term_ids`], read
/// when the vocabulary had `ids_known` words);
/// `None` when the terms have no probes (not ASCII).
fn probe_counts(text: &str, cut: &PassageCut, terms: &[(String, f32)], ids: &[Option<u32>], ids_known: u32, stats: &PassageStats) -> Option<Vec<u32>> {
    let probes = stats.probes.as_ref()?;
    let n_terms = terms.len();
    let mut counts = vec![0u32; cut.bytes.len() * n_terms];
    let Some(matcher) = &probes.matcher else { return Some(counts) };
    for (p, &(start, end)) in cut.bytes.iter().enumerate() {
        // a passage a concurrent pack tokenized after `ids` were read may hold words they
        // miss: it is probed like an untokenized one
        if let Some(known) = cut.terms[p].get().filter(|known| known.vocab_end <= ids_known) {
            for (t, &id) in ids.iter().enumerate() {
                if id.is_some() {
                    counts[p * n_terms + t] = known.count_of(id);
                }
            }
            continue;
        }
        // overlapping, so a probe inside another's match still counts; no term spans a
        // line end, so a passage's matches lie inside its bytes
        for found in matcher.find_overlapping_iter(text.get(start..end).unwrap_or("")) {
            counts[p * n_terms + probes.term_of[found.pattern().as_usize()]] += 1;
        }
    }
    Some(counts)
}

/// Whether `path` names a changelog (`CHANGELOG.md`, `CHANGES.md`, `HISTORY.md`,
/// `NEWS.md`, `RELEASES.md`, `RELEASE_NOTES.md`, any case): a doc that grows at its top, one
/// section per release, newest first.
pub fn is_changelog(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path).to_ascii_lowercase();
    let stem = name.split('.').next().unwrap_or("");
    matches!(stem, "changelog" | "changes" | "history" | "news" | "releases" | "release-notes" | "release_notes" | "releasenotes")
}

/// Lines of a changelog read to find its newest release: it sits at the top, and a long
/// changelog is not parsed whole for each pack that lists it.
const CHANGELOG_SCAN_LINES: usize = 1000;

/// The newest release section of a changelog: from the first heading that names a version,
/// a date or a pending release (`## [Unreleased]`, `TBD` / `===`, `## 2.1.0 (2024-01-06)`)
/// to the line before the next heading of its level or above, at most
/// [`PASSAGE_MAX_LINES`] lines (1-based, inclusive). A change to the project lands there —
/// a new entry under the release being prepared — whatever words the task shares with
/// older entries, so that is the passage a changelog item reports. `None` when the top of
/// the file has no such heading (a changelog kept as a table, say).
pub fn newest_release(text: &str) -> Option<(u32, u32)> {
    let prefix_end = text.match_indices('\n').nth(CHANGELOG_SCAN_LINES).map(|(i, _)| i + 1).unwrap_or(text.len());
    let prefix = &text[..prefix_end];
    let headings = knit_anchors::markdown::scan(prefix).headings;
    let names_a_release = |heading: &str| {
        let lower = heading.to_lowercase();
        heading.chars().any(|c| c.is_ascii_digit()) || lower.contains("in progress") || lower.split(|c: char| !c.is_alphanumeric()).any(|word| matches!(word, "unreleased" | "upcoming" | "tbd" | "next" | "pending"))
    };
    let at = headings.iter().position(|h| names_a_release(&h.text))?;
    let start = headings[at].line;
    let last_line = prefix.lines().count() as u32;
    let end = headings[at + 1..].iter().find(|h| h.level <= headings[at].level).map(|h| h.line.saturating_sub(1)).unwrap_or(last_line);
    // one passage's worth of lines at most, and never ending before its own heading
    let end = end.min(start + PASSAGE_MAX_LINES as u32 - 1).max(start);
    Some((start, end))
}

/// Indexes of the `terms` that `section` holds, as the index tokenizes it (whole words,
/// plurals folded: `entries` holds `entry`, `tokenizer` does not hold `token`): the terms a
/// passage that scoring did not pick (a changelog's newest release) highlights.
pub fn held_terms(section: &str, terms: &[(String, f32)]) -> Vec<usize> {
    let mut in_section: std::collections::HashSet<String> = std::collections::HashSet::new();
    analysis::for_each_term_ref(section, |t| {
        if !in_section.contains(t.term) {
            in_section.insert(t.term.to_string());
        }
    });
    terms.iter().enumerate().filter(|(_, (term, _))| in_section.contains(term.as_str())).map(|(i, _)| i).collect()
}

/// The text of lines `start..=end` (1-based) of `text`.
pub fn lines_text(text: &str, start_line: u32, end_line: u32) -> String {
    text.lines()
        .skip(start_line.saturating_sub(1) as usize)
        .take((end_line + 1).saturating_sub(start_line) as usize)
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn held_terms_are_whole_index_terms() {
        let terms: Vec<(String, f32)> = ["entry", "token", "parse", "absent"].iter().map(|t| (t.to_string(), 1.0)).collect();
        // `entries` folds to `entry`; `tokenizer` and `parser` are not `token` and `parse`
        assert_eq!(held_terms("- New entries: the tokenizer and the parser grew", &terms), vec![0]);
        assert_eq!(held_terms("- parse each token", &terms), vec![1, 2]);
    }

    #[test]
    fn changelogs_are_known_by_name() {
        for path in ["CHANGELOG.md", "packages/server/CHANGELOG.md", "Changes.md", "HISTORY.md", "NEWS", "docs/release-notes.md", "RELEASES.md"] {
            assert!(is_changelog(path), "{path}");
        }
        for path in ["README.md", "docs/changelog-format/intro.md", "changelogs.md", "src/news/feed.md"] {
            assert!(!is_changelog(path), "{path}");
        }
    }

    #[test]
    fn a_changelogs_passage_is_its_newest_release() {
        // keep-a-changelog: a title, an intro, then releases newest first
        let keep = "# Changelog\n\nAll notable changes.\n\n## [Unreleased]\n\n### Fixed\n\n- retry on timeout\n\n## [1.2.0] - 2024-01-06\n\n- retry added\n";
        assert_eq!(newest_release(keep), Some((5, 10)), "from `## [Unreleased]` to the line before `## [1.2.0]`, its `### Fixed` inside");
        // setext headings, no title (ripgrep's style)
        let setext = "TBD\n===\nUnreleased changes.\n\n* new flag\n\n14.1.0 (2024-01-06)\n===================\n* old flag\n";
        assert_eq!(newest_release(setext), Some((1, 6)));
        // a section longer than a passage is cut at the passage cap
        let long = format!("# Changes\n\n## 2.0.0\n\n{}\n## 1.0.0\n", "- entry\n".repeat(200));
        assert_eq!(newest_release(&long), Some((3, 3 + PASSAGE_MAX_LINES as u32 - 1)));
        // the only release runs to the end of the file
        assert_eq!(newest_release("# Changelog\n\n## v0.1\n\n- first\n"), Some((3, 5)));
        // no release heading near the top: no section (the scored passage stays)
        assert_eq!(newest_release("# Changelog\n\n| version | notes |\n|---|---|\n| 3 | new |\n"), None);
        assert_eq!(newest_release(""), None);
        // headings inside fences are not releases
        assert_eq!(newest_release("# Changelog\n\n```\n## 9.9.9\n```\n"), None);
    }

    #[test]
    fn a_kept_cut_scores_as_a_fresh_one_when_later_packs_bring_new_words() {
        // A cut is kept from pack to pack and tokenizes a passage only when it could win, so
        // a later pack's words may first appear in a passage it tokenizes midway.
        let filler = "filler words that pad each section past the smallest passage size\n".repeat(6);
        let text = &format!("# Title\n\nSummary line.\n\n## A\nalpha alpha gamma\n{filler}\n## B\nbeta delta\n{filler}\n## C\nbeta beta delta\n{filler}");
        let kept = PassageCut::new(text, Kind::Doc, 3);
        let sections: Vec<(u32, u32)> = kept.passages.iter().filter(|p| !p.is_head).map(|p| (p.start_line, p.end_line)).collect();
        assert_eq!(sections.len(), 3, "{sections:?}");
        let ask = |words: &[&str]| -> (Vec<(String, f32)>, PassageStats) {
            let terms: Vec<(String, f32)> = words.iter().map(|w| (w.to_string(), 1.0)).collect();
            let stats = PassageStats::new(&terms, vec![1.0; terms.len()], 4.0);
            (terms, stats)
        };
        for words in [&["alpha"][..], &["beta"], &["delta", "beta"], &["alpha", "delta"], &["gamma", "beta", "alpha"]] {
            let (terms, stats) = ask(words);
            let from_kept = best_passages_of(text, &kept, &terms, &stats);
            let fresh = best_passages(text, Kind::Doc, 3, &terms, &stats);
            assert_eq!(from_kept, fresh, "{words:?}");
            assert!(from_kept.best.is_some(), "{words:?}");
        }
        // "beta" first appeared in B and C, tokenized by the second pack only
        let (terms, stats) = ask(&["beta"]);
        assert_eq!(best_passages_of(text, &kept, &terms, &stats).best, Some(sections[2]));
    }

    #[test]
    fn ids_read_before_another_pack_tokenized_a_passage_are_asked_again() {
        // The cut is shared between concurrent packs: another pack may tokenize a passage,
        // adding words, after this one read its ids. The passage says so (vocab_end), and
        // neither the probe counts nor the scoring may read it with the stale ids.
        let filler = "filler words that pad each section past the smallest passage size\n".repeat(6);
        let text = &format!("# Title\n\nSummary line.\n\n## A\nalpha\n{filler}\n## B\nbeta beta\n{filler}");
        let cut = PassageCut::new(text, Kind::Doc, 3);
        let terms = vec![("beta".to_string(), 1.0)];
        let mut ids = vec![None];
        let known = cut.fill_term_ids(&terms, &[true], &mut ids);
        assert_eq!((ids[0], known), (None, 0));
        let b = cut.passages.iter().position(|p| !p.is_head && p.start_line > 6).expect("section B");
        // "another pack" tokenizes B now
        assert_eq!(cut.terms_of(text, b).count_of(None), 0);
        assert!(cut.terms_of(text, b).vocab_end > known);
        let stats = PassageStats::new(&terms, vec![1.0], 4.0);
        let counts = probe_counts(text, &cut, &terms, &ids, known, &stats).expect("ASCII probes");
        assert_eq!(counts[b], 2, "the stale ids would have read 0 from the tokenized passage");
        let again = cut.fill_term_ids(&terms, &[true], &mut ids);
        assert!(ids[0].is_some() && again >= cut.terms_of(text, b).vocab_end);
        assert_eq!(cut.terms_of(text, b).count_of(ids[0]), 2);
    }

    #[test]
    fn headings_cut_docs_and_head_is_separate() {
        let text = "# Title\n\nSummary line.\n\n## A\nalpha\n\n## B\nbeta\n";
        let passages = split(text, Kind::Doc, 3);
        assert_eq!(passages[0], Passage { start_line: 1, end_line: 3, is_head: true });
        assert!(passages.iter().any(|p| p.start_line == 5), "{passages:?}");
    }

    #[test]
    fn long_files_are_split_near_the_target_size() {
        let text: String = (1..=300).map(|i| format!("line {i} with some words to make it longer than usual\n")).collect();
        let passages = split(&text, Kind::Code, 0);
        assert!(passages.len() >= 5, "{passages:?}");
        assert_eq!(passages.first().map(|p| p.start_line), Some(1));
        assert_eq!(passages.last().map(|p| p.end_line), Some(300));
        for pair in passages.windows(2) {
            assert_eq!(pair[0].end_line + 1, pair[1].start_line);
        }
    }

    #[test]
    fn code_is_cut_at_declarations_with_their_comments() {
        let text = "import x from './x'\n\n/** Adds. */\nexport function add(a, b) {\n  return a + b\n}\n\n// Subtracts.\n@logged\nexport function subtract(a, b) {\n  return a - b\n}\n";
        let passages = split(text, Kind::Code, 0);
        // the one-line import joins the first function; the second function is its own
        assert_eq!(passages.iter().map(|p| (p.start_line, p.end_line)).collect::<Vec<_>>(), vec![(1, 6), (8, 12)], "{passages:?}");
    }

    #[test]
    fn the_best_passage_is_the_declaration_holding_the_rare_term() {
        let text = "export function parse(input) {\n  return tokens(input)\n}\n\nexport function render(tree) {\n  return tree.nodes.map(render)\n}\n";
        let terms = vec![("render".to_string(), 1.0), ("input".to_string(), 1.0)];
        let stats = PassageStats::new(&terms, vec![2.0, 0.5], 8.0);
        let detail = best_passages(text, Kind::Code, 0, &terms, &stats);
        assert_eq!(detail.best, Some((5, 7)));
        assert_eq!(detail.best_terms, vec![0]);
        assert_eq!(detail.deepest[0], Some((2, 5, 7)));
        assert_eq!(detail.deepest[1], Some((2, 1, 3)));
        // a term with no IDF (in every file) neither scores nor counts as deepest
        let flat = PassageStats::new(&terms, vec![0.0, 0.0], 8.0);
        assert_eq!(best_passages(text, Kind::Code, 0, &terms, &flat), PassageDetail { deepest: vec![None, None], ..Default::default() });
    }

    /// Scores every passage: what [`best_passages`] must equal, without its bounds.
    fn best_passages_by_brute_force(text: &str, kind: Kind, terms: &[(String, f32)], stats: &PassageStats) -> PassageDetail {
        let mut detail = PassageDetail { deepest: vec![None; terms.len()], ..Default::default() };
        let mut best = 0.0f32;
        for passage in split(text, kind, 0) {
            let body = lines_text(text, passage.start_line, passage.end_line);
            let words = analysis::terms_of(&body);
            let norm = 1.0 - PASSAGE_B + PASSAGE_B * words.len() as f32 / stats.avg_len;
            let mut score = 0.0;
            let mut matched = Vec::new();
            for (t, (term, weight)) in terms.iter().enumerate() {
                let tf = words.iter().filter(|w| *w == term).count() as u32;
                if tf == 0 || stats.idf[t] <= 0.0 {
                    continue;
                }
                score += weight * stats.idf[t] * tf as f32 * (K1 + 1.0) / (tf as f32 + K1 * norm);
                matched.push(t);
                if detail.deepest[t].is_none_or(|(d, _, _)| tf > d) {
                    detail.deepest[t] = Some((tf, passage.start_line, passage.end_line));
                }
            }
            if !matched.is_empty() && (detail.best.is_none() || score > best) {
                best = score;
                detail.best = Some((passage.start_line, passage.end_line));
                detail.best_terms = matched;
            }
        }
        detail
    }

    #[test]
    fn bounded_scoring_equals_scoring_every_passage() {
        // identifiers that share prefixes (parse/parser/sparse), plurals (entries/entry),
        // camel case and stop words, in many declarations
        let words = ["parse", "parser", "sparse", "Entries", "entry", "entrance", "getEntry", "parseEntries", "the", "does", "HTTPRange", "range", "value", "values", "Größe"];
        let mut state = 7u64;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        for round in 0..40 {
            let mut text = String::new();
            for f in 0..(5 + next() % 20) {
                text.push_str(&format!("export function f{f}(x) {{\n"));
                for _ in 0..(1 + next() % 6) {
                    let line: Vec<&str> = (0..(1 + next() % 8)).map(|_| words[(next() % words.len() as u64) as usize]).collect();
                    text.push_str(&format!("  {}\n", line.join(" ")));
                }
                text.push_str("}\n\n");
            }
            // every seventh round a term that is not ASCII: nothing bounded, all scored
            let vocabulary: &[&str] = if round % 7 == 0 { &["parse", "entry", "größe", "value"] } else { &["parse", "entry", "range", "value", "http"] };
            let terms: Vec<(String, f32)> = vocabulary.iter().map(|t| (t.to_string(), 1.0 + (next() % 3) as f32)).collect();
            let idf: Vec<f32> = (0..terms.len()).map(|i| if round % 5 == 0 && i == 1 { 0.0 } else { 0.5 + (next() % 4) as f32 }).collect();
            let stats = PassageStats::new(&terms, idf, 6.0);
            let expected = best_passages_by_brute_force(&text, Kind::Code, &terms, &stats);
            assert_eq!(best_passages(&text, Kind::Code, 0, &terms, &stats), expected, "round {round}:\n{text}");
            // a kept cut scores from the terms an earlier pack tokenized: the same answer,
            // for the same query and for another one
            let cut = PassageCut::new(&text, Kind::Code, 0);
            let empty = cut.heap_bytes();
            let reversed: Vec<(String, f32)> = terms.iter().rev().cloned().collect();
            let reversed_stats = PassageStats::new(&reversed, stats.idf.iter().rev().copied().collect(), 6.0);
            assert_eq!(best_passages_of(&text, &cut, &reversed, &reversed_stats), best_passages_by_brute_force(&text, Kind::Code, &reversed, &reversed_stats), "round {round}, reversed");
            assert!(cut.heap_bytes() > empty, "scoring fills the cut's terms");
            assert_eq!(best_passages_of(&text, &cut, &terms, &stats), expected, "round {round}, kept cut");
        }
    }

    #[test]
    fn fenced_hash_lines_are_not_headings() {
        let text = "# T\n\nintro\n\n```sh\n# install\nrun\n```\nmore\n";
        let passages = split(text, Kind::Doc, 3);
        assert!(!passages.iter().any(|p| p.start_line == 6), "{passages:?}");
    }
}
