//! Line-range anchors (`#L12-L40`): the fingerprint of the range's normalised lines,
//! and relocation when the exact block now sits elsewhere in the file exactly once.

use super::session::{Seen, Session};
use super::strip_bom;
use crate::baseline::{strip_baselines, Baseline};
use crate::model::*;
use crate::source::ReadError;
use knit_syntax::Fingerprint;

impl Session<'_> {
    pub(super) fn resolve_lines(&mut self, a: &Anchor, path: &str, start: u32, end: u32) -> Verdict {
        let text = match self.read(path) {
            Seen::Text(t) => t,
            Seen::Error(ReadError::Missing) if a.baseline.is_some() => {
                return Verdict::new(State::Lost, "file_missing", format!("{path} no longer exists"))
            }
            other => return self.read_problem(path, other),
        };
        let lines: Vec<&str> = strip_bom(&text).split('\n').collect();
        let in_file = (end as usize) <= lines.len() && !(end as usize == lines.len() && lines.last() == Some(&""));
        let baseline = a.baseline.clone();
        let Some(Baseline::Lines { fingerprint, count }) = baseline else {
            if baseline.is_some() {
                return Verdict::new(State::Invalid, "bad_baseline", "this baseline was recorded for another kind of target");
            }
            if !in_file {
                return Verdict::new(State::Invalid, "range_missing", format!("lines {start}-{end} are not in {path}"));
            }
            return Verdict::new(State::Unrecorded, "no_baseline", "no baseline recorded yet").with_now(lines_now(path, start, end));
        };
        if in_file && lines_fingerprint(&lines[start as usize - 1..end as usize]).0 == fingerprint {
            return Verdict::new(State::Fresh, "identity_matched", "fresh").with_now(lines_now(path, start, end));
        }
        // Relocation: the exact block, exactly once elsewhere.
        let found = relocate(&lines, fingerprint, count);
        if found.len() == 1 {
            let (s, e) = found[0];
            return Verdict::new(
                State::Moved,
                "range_moved",
                format!("the lines moved to {s}-{e} of {path}; update the numbers"),
            )
            .with_now(lines_now(path, s, e));
        }
        if in_file {
            Verdict::new(State::Stale, "range_changed", format!("lines {start}-{end} of {path} changed since the doc was reviewed"))
                .with_now(lines_now(path, start, end))
        } else {
            Verdict::new(State::Lost, "range_missing", format!("lines {start}-{end} are no longer in {path}"))
        }
    }
}

pub(super) fn lines_now(path: &str, start: u32, end: u32) -> Now {
    Now {
        path: path.to_string(),
        symbol: None,
        fragment: None,
        kind: None,
        line: start,
        end_line: Some(end),
        lines: Some([start, end]),
        signature: None,
        column: 0,
    }
}

/// Normalised lines: trimmed (indentation and `\r` gone), blank lines dropped, knit
/// baselines in link titles removed — they are bookkeeping, and a range that holds its
/// own anchor (a doc quoting its own lines) would otherwise change with every record.
pub fn lines_fingerprint(lines: &[&str]) -> (Fingerprint, u32) {
    let mut buf = String::new();
    let mut count = 0;
    for l in lines {
        let stripped = strip_baselines(l);
        let t = stripped.trim();
        if !t.is_empty() {
            buf.push_str(t);
            buf.push('\n');
            count += 1;
        }
    }
    (Fingerprint::of_bytes(buf.as_bytes()), count)
}

/// Every window of `count` non-blank lines whose normalised text hashes to `fp`, as
/// 1-based (first, last) line numbers.
fn relocate(lines: &[&str], fp: Fingerprint, count: u32) -> Vec<(u32, u32)> {
    let count = count as usize;
    if count == 0 {
        return Vec::new();
    }
    let nonblank: Vec<usize> = (0..lines.len()).filter(|&i| !lines[i].trim().is_empty()).collect();
    let mut found = Vec::new();
    if nonblank.len() < count {
        return found;
    }
    for w in 0..=nonblank.len() - count {
        let idx = &nonblank[w..w + count];
        let sel: Vec<&str> = idx.iter().map(|&i| lines[i]).collect();
        if lines_fingerprint(&sel).0 == fp {
            found.push((idx[0] as u32 + 1, idx[count - 1] as u32 + 1));
        }
    }
    found
}
