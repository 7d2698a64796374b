//! What changed since an anchor was reviewed (DESIGN: a stale anchor should say what
//! changed, not only that something did). Given the versions of the linked file along the
//! history (newest first, read by the caller — knit-workspace reads git), the reviewed
//! version is the newest one whose declaration has the baseline's fingerprint; the
//! commits after it that changed the declaration, and a unified diff of the declaration
//! from then to now, tell the reviewer what to check. Pure: no I/O here.

use super::session::{Seen, Session};
use crate::baseline::Baseline;
use crate::model::{Anchor, CommitRef, SinceReview, State, Verdict};
use crate::source::DeclCache;
use crate::target::Target;
use knit_syntax::{Fingerprint, Fragment, Lang, Resolution};
use std::sync::Arc;

/// A version of a workspace file as the history reader hands it over.
#[derive(Clone, Debug)]
pub struct FileVersion {
    pub commit: String,
    pub time: i64,
    pub subject: String,
    pub text: Arc<str>,
}

/// The versions of a file the history reader found, newest first, and whether it read
/// back to the file's first commit (false: a bound on commits or time stopped it).
#[derive(Clone, Debug, Default)]
pub struct FileHistory {
    pub versions: Vec<FileVersion>,
    pub complete: bool,
    /// Some versions' contents are not in the repository (a partial clone, `git clone
    /// --filter=blob:none`, keeps only the blobs it checked out): one of them may be the
    /// reviewed version.
    pub missing_contents: bool,
}

/// Why there is no [`SinceReview`] for an anchor that could have one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NoSince {
    /// Not a stale, moved or renamed declaration anchor: nothing to explain.
    NotApplicable,
    /// No version in the whole history has the reviewed declaration (a baseline recorded
    /// on uncommitted code, a shallow clone, no git).
    NotInHistory,
    /// The reader stopped (time or commit bound) before it found the reviewed version.
    CutShort,
    /// Older versions of the file are named by the history but their contents are not in
    /// this clone (a partial clone): knit never fetches, so it cannot look at them.
    NotInClone,
}

impl NoSince {
    const ALL: [NoSince; 4] = [NoSince::NotApplicable, NoSince::NotInHistory, NoSince::CutShort, NoSince::NotInClone];

    /// The reason a report's `since_missing` word names.
    pub fn from_word(word: &str) -> Option<NoSince> {
        NoSince::ALL.into_iter().find(|why| why.as_str() == word)
    }

    /// Why, in words, for every face (the CLI, hovers, the changes document): each adds its
    /// own ending (what to do there).
    pub fn explanation(self) -> &'static str {
        match self {
            NoSince::NotApplicable => "only a stale, moved or renamed declaration anchor has changes since review",
            NoSince::NotInHistory => "no commit holds the reviewed version (not committed yet, a shallow clone, or no git history)",
            NoSince::CutShort => "the reviewed version was not found within the time bound of reading history",
            NoSince::NotInClone => "older versions of the file are not in this clone (a partial clone: `git clone --filter`); `git log -p` on the file fetches them",
        }
    }

    /// The `since_missing` word of a report.
    pub fn as_str(self) -> &'static str {
        match self {
            NoSince::NotApplicable => "not_applicable",
            NoSince::NotInHistory => "not_in_history",
            NoSince::CutShort => "history_cut_short",
            NoSince::NotInClone => "history_not_in_clone",
        }
    }
}

/// What changed since `a` was reviewed, for a stale, moved, renamed or moved-renamed
/// symbol anchor with a declaration baseline (`v` is its verdict now). `history(path)`
/// gives the versions of a workspace file: the link's file is searched, then the file
/// the declaration is in now. The diff keeps at most `max_diff_lines` lines
/// ([`MAX_DIFF_LINES`] for a hover or a terminal, more for a diff opened on its own).
pub fn explain(
    session: &mut Session,
    a: &Anchor,
    v: &Verdict,
    history: &mut dyn FnMut(&str) -> FileHistory,
    max_diff_lines: usize,
) -> Result<SinceReview, NoSince> {
    use NoSince::NotApplicable;
    if !matches!(v.state, State::Stale | State::Moved | State::Renamed | State::MovedRenamed) {
        return Err(NotApplicable);
    }
    let Ok(Target::Symbol { path, fragment, lang: Some(lang) }) = &a.target else { return Err(NotApplicable) };
    let Some(Baseline::Declaration { fingerprint, scheme, .. }) = &a.baseline else { return Err(NotApplicable) };
    // The declaration's text today.
    let now = v.now.as_ref().ok_or(NotApplicable)?;
    let now_text = match session.read(&now.path) {
        Seen::Text(t) => t,
        _ => return Err(NotApplicable),
    };
    let syntax = session.declarations(&now.path).ok_or(NotApplicable)?;
    let decl = syntax
        .declarations
        .iter()
        .find(|d| Some(&d.qualified_name) == now.symbol.as_ref() && d.name_line == now.line)
        .ok_or(NotApplicable)?;
    let body = declaration_text(now_text.strip_prefix('\u{feff}').unwrap_or(&now_text), decl.start_byte, decl.end_byte).ok_or(NotApplicable)?.to_string();
    let mut paths = vec![path.clone()];
    if now.path != *path {
        paths.push(now.path.clone());
    }
    let mut why = NoSince::NotInHistory;
    for p in paths {
        let read = history(&p);
        let versions: Vec<Version> =
            read.versions.iter().map(|f| Version { commit: &f.commit, time: f.time, subject: &f.subject, text: &f.text }).collect();
        if let Some(s) = since_review(session.cache, *lang, fragment, (*fingerprint, *scheme), &versions, &body, max_diff_lines) {
            return Ok(s);
        }
        if read.missing_contents {
            why = NoSince::NotInClone;
        } else if !read.complete && why == NoSince::NotInHistory {
            why = NoSince::CutShort;
        }
    }
    Err(why)
}

/// One version of a file: the commit that made it, when, its subject, its text.
pub struct Version<'a> {
    pub commit: &'a str,
    pub time: i64,
    pub subject: &'a str,
    pub text: &'a str,
}

/// Lines of diff kept for a hover or a terminal (they show the start; the whole diff is
/// [`changes_document`]'s or git's).
pub const MAX_DIFF_LINES: usize = 80;

/// Lines of diff kept in the document "Show changes since review" opens: a declaration
/// rewritten past this is better read with git.
pub const MAX_DOCUMENT_DIFF_LINES: usize = 5000;

/// The reviewed version among `versions` (newest first) of the declaration `fragment`
/// designates — the one whose print, by the baseline's print scheme, is the baseline's
/// fingerprint — and what changed after it; `now` is the declaration's text today. None
/// when no version has the baseline's fingerprint (a baseline never committed, a shallow
/// history, a file moved since).
pub fn since_review(
    cache: &DeclCache,
    lang: Lang,
    fragment: &Fragment,
    (baseline, scheme): (Fingerprint, u8),
    versions: &[Version],
    now: &str,
    max_diff_lines: usize,
) -> Option<SinceReview> {
    // The declaration in each version: (fingerprint, text), None when absent or ambiguous.
    let mut seen: Vec<Option<(Fingerprint, String)>> = Vec::with_capacity(versions.len());
    let mut reviewed = None;
    for (k, v) in versions.iter().enumerate() {
        let text = v.text.strip_prefix('\u{feff}').unwrap_or(v.text);
        let syntax = if knit_syntax::print_scheme_differs(lang, scheme) {
            Arc::new(knit_syntax::parse_with_print_scheme(lang, text, scheme, None))
        } else {
            cache.parse_until(lang, text, None)
        };
        let decl = match syntax.resolve(fragment) {
            Resolution::Unique(i) => {
                let d = &syntax.declarations[i];
                let body = declaration_text(v.text.strip_prefix('\u{feff}').unwrap_or(v.text), d.start_byte, d.end_byte).unwrap_or("");
                Some((d.fingerprint, body.to_string()))
            }
            _ => None,
        };
        let hit = decl.as_ref().is_some_and(|(fp, _)| *fp == baseline);
        seen.push(decl);
        if hit {
            reviewed = Some(k);
            break;
        }
    }
    let k = reviewed?;
    let commit = |v: &Version| CommitRef { commit: v.commit.chars().take(12).collect(), time: v.time, subject: v.subject.to_string() };
    // A newer version changed the declaration when it differs from the next older one.
    let changed_by = (0..k)
        .filter(|&j| seen[j].as_ref().map(|d| d.0) != seen[j + 1].as_ref().map(|d| d.0))
        .map(|j| commit(&versions[j]))
        .collect();
    let then = seen[k].as_ref().map(|d| d.1.as_str()).unwrap_or("");
    let (diff, diff_truncated) = unified_diff(then, now, &commit(&versions[k]).commit, max_diff_lines);
    Some(SinceReview { reviewed_as_of: commit(&versions[k]), changed_by, diff, diff_truncated })
}

fn unified_diff(then: &str, now: &str, reviewed: &str, max_lines: usize) -> (String, bool) {
    let then = with_final_newline(then);
    let now = with_final_newline(now);
    let diff = similar::TextDiff::from_lines(then.as_str(), now.as_str());
    let text = diff.unified_diff().context_radius(3).header(&format!("reviewed ({reviewed})"), "now").to_string();
    let lines: Vec<&str> = text.lines().collect();
    if lines.len() <= max_lines {
        return (text, false);
    }
    (lines[..max_lines].join("\n") + "\n", true)
}

/// The text of the "Show changes since review" document: which anchor, the reviewed
/// commit, the commits since that changed the declaration, then the declaration's
/// unified diff (a `.diff` file: the lines before `---` are its header, so every diff
/// viewer highlights it). `anchor` names the link target, `at` the doc line.
pub fn changes_document(anchor: &str, at: &str, s: &SinceReview) -> String {
    let r = &s.reviewed_as_of;
    let mut out = format!("Changes to {anchor} since it was reviewed ({at})\n\n");
    out.push_str(&format!("Reviewed as of {} ({}) {}\n", r.commit, day(r.time), r.subject));
    if s.changed_by.is_empty() {
        out.push_str("No commit changed it since: the change is not committed yet.\n");
    } else {
        out.push_str("Changed since by:\n");
        for c in &s.changed_by {
            out.push_str(&format!("  {} ({}) {}\n", c.commit, day(c.time), c.subject));
        }
    }
    out.push('\n');
    out.push_str(&s.diff);
    if s.diff_truncated {
        out.push_str(&format!("\n(cut; the whole change: git diff {} -- <file>)\n", r.commit));
    }
    out
}

/// `YYYY-MM-DD` (UTC) of seconds since the Unix epoch (civil-from-days, proleptic Gregorian).
pub fn day(secs: i64) -> String {
    let z = secs.div_euclid(86_400) + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{y:04}-{m:02}-{d:02}")
}

/// A declaration's text for the diff, from the start of its first line when only
/// indentation precedes it there, so the first line is indented like the rest.
fn declaration_text(text: &str, start: u32, end: u32) -> Option<&str> {
    let (start, end) = (start as usize, end as usize);
    let line_start = text.get(..start)?.rfind('\n').map_or(0, |i| i + 1);
    let from = if text[line_start..start].chars().all(|c| c == ' ' || c == '\t') { line_start } else { start };
    text.get(from..end)
}

fn with_final_newline(s: &str) -> String {
    if s.ends_with('\n') {
        s.to_string()
    } else {
        format!("{s}\n")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const V1: &str = "export function total(xs: number[]): number {\n  return xs.reduce((a, b) => a + b, 0);\n}\n";
    const V2: &str = "export function total(xs: number[]): number {\n  return xs.reduce((a, b) => a + b, 1);\n}\n\nexport const other = 1;\n";
    const V3: &str = "export function total(xs: number[]): number {\n  return xs.reduce((a, b) => a + b, 1);\n}\n\nexport const other = 2;\n";

    #[test]
    fn every_reason_word_reads_back_and_has_its_words() {
        for why in NoSince::ALL {
            assert_eq!(NoSince::from_word(why.as_str()), Some(why));
            assert!(!why.explanation().is_empty());
        }
        assert_eq!(NoSince::from_word("no_such_reason"), None);
    }

    #[test]
    fn the_reviewed_version_the_commits_after_it_and_the_diff() {
        let cache = DeclCache::default();
        let fragment = Fragment::parse("total").unwrap();
        let fp = |text: &str| {
            let syn = cache.parse_until(Lang::TypeScript, text, None);
            syn.declarations.iter().find(|d| d.qualified_name == "total").unwrap().fingerprint
        };
        let versions = [
            Version { commit: "c3c3c3c3c3c3c3c3", time: 3, subject: "touch other", text: V3 },
            Version { commit: "c2c2c2c2c2c2c2c2", time: 2, subject: "start at one", text: V2 },
            Version { commit: "c1c1c1c1c1c1c1c1", time: 1, subject: "add total", text: V1 },
        ];
        let now = "export function total(xs: number[]): number {\n  return xs.reduce((a, b) => a + b, 1);\n}";
        let s = since_review(&cache, Lang::TypeScript, &fragment, (fp(V1), knit_syntax::PRINT_SCHEME), &versions, now, MAX_DIFF_LINES).unwrap();
        assert_eq!(s.reviewed_as_of.commit, "c1c1c1c1c1c1");
        assert_eq!(s.reviewed_as_of.subject, "add total");
        // Only the commit that changed `total` (not the one that touched `other`).
        assert_eq!(s.changed_by.iter().map(|c| c.subject.as_str()).collect::<Vec<_>>(), vec!["start at one"]);
        assert!(s.diff.contains("-  return xs.reduce((a, b) => a + b, 0);\n+  return xs.reduce((a, b) => a + b, 1);"), "{}", s.diff);
        assert!(s.diff.starts_with("--- reviewed (c1c1c1c1c1c1)\n+++ now\n"), "{}", s.diff);
        // A baseline no version has: nothing to say.
        let unknown = Fingerprint::of_bytes(b"never committed");
        assert!(since_review(&cache, Lang::TypeScript, &fragment, (unknown, knit_syntax::PRINT_SCHEME), &versions, now, MAX_DIFF_LINES).is_none());
        // The document "Show changes since review" opens: header, then the whole diff.
        let doc = changes_document("src/t.ts#total", "docs/a.md:3", &s);
        assert!(doc.starts_with("Changes to src/t.ts#total since it was reviewed (docs/a.md:3)\n\nReviewed as of c1c1c1c1c1c1 (1970-01-01) add total\n"), "{doc}");
        assert!(doc.contains("Changed since by:\n  c2c2c2c2c2c2 (1970-01-01) start at one\n\n--- reviewed"), "{doc}");
        assert!(!doc.contains("(cut;"), "{doc}");
        // A diff longer than the bound is cut, and says so.
        let long_now: String = (0..30).map(|i| format!("// line {i}\n")).collect::<String>() + now;
        let cut = since_review(&cache, Lang::TypeScript, &fragment, (fp(V1), knit_syntax::PRINT_SCHEME), &versions, &long_now, 10).unwrap();
        assert!(cut.diff_truncated && cut.diff.lines().count() == 10, "{}", cut.diff);
        assert!(changes_document("t", "a.md:3", &cut).contains("(cut; the whole change: git diff c1c1c1c1c1c1 -- <file>)"));
    }

    #[test]
    fn days_are_utc_dates() {
        assert_eq!(day(0), "1970-01-01");
        assert_eq!(day(951_782_400), "2000-02-29");
        assert_eq!(day(1_796_083_200), "2026-12-01");
        assert_eq!(day(-86_400), "1969-12-31");
    }
}
