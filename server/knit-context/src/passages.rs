//! Splitting a file into passages: contiguous line ranges of roughly one screen, cut at
//! Markdown headings (outside fences) and blank lines, so that a match deep in a long file
//! is reported with the lines around it rather than "somewhere in this file". Code is cut
//! at declarations (a declaration keyword and its name, with the comments, attributes and
//! decorators just above it): the passage a code item reports is the function, method or
//! type that matched, not a fixed window.
//!
//! Pure: text in, ranges out. Line numbers are 1-based and inclusive.

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
        for (i, line) in lines.iter().enumerate() {
            if i > 0 && crate::symbols::declaration_on_line(line).is_some() {
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
    fn fenced_hash_lines_are_not_headings() {
        let text = "# T\n\nintro\n\n```sh\n# install\nrun\n```\nmore\n";
        let passages = split(text, Kind::Doc, 3);
        assert!(!passages.iter().any(|p| p.start_line == 6), "{passages:?}");
    }
}
