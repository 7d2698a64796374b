//! What knit knows about one doc at one text: every anchor with its verdict, broken
//! links and convertible mentions ([`DocReport`]), plus the two questions the scheduler
//! asks of it — which code files it depends on (the reverse index) and whether some of
//! its verdicts depend on the whole repository (moves, renames, losses, unknown files).
//!
//! Pure over a [`SourceTree`]: the LSP types appear only in `diagnostics`.

use crate::document::DocText;
use knit_anchors::engine::{broken_link, mention_suggestion};
use knit_anchors::markdown::Mention;
use knit_anchors::{scan_doc, Anchor, MentionReport, PlainLink, Session, State, Target, Verdict};
use std::collections::HashSet;
use std::sync::Arc;

#[derive(Clone, Debug)]
pub struct AnchorResult {
    pub anchor: Anchor,
    pub verdict: Verdict,
}

impl AnchorResult {
    pub fn target_path(&self) -> Option<&str> {
        self.anchor.target.as_ref().ok().map(Target::path)
    }

    /// Code files this verdict depends on: where the link points, where the declaration
    /// is now, and the candidates offered.
    pub fn depends_on(&self) -> impl Iterator<Item = &str> {
        self.target_path()
            .into_iter()
            .chain(self.verdict.now.as_ref().map(|n| n.path.as_str()))
            .chain(self.verdict.candidates.iter().map(|c| c.path.as_str()))
    }

    /// The verdict came from (or may change through) a repository-wide search.
    pub fn is_global(&self) -> bool {
        matches!(
            self.verdict.state,
            State::Moved | State::Renamed | State::MovedRenamed | State::Lost | State::Invalid | State::Unchecked
        )
    }
}

#[derive(Clone, Debug)]
pub struct BrokenResult {
    pub link: PlainLink,
    pub message: String,
}

#[derive(Clone, Debug)]
pub struct MentionResult {
    pub mention: Mention,
    pub report: MentionReport,
}

/// One doc at one text.
#[derive(Debug)]
pub struct DocReport {
    pub rel: String,
    /// The buffer version this report was computed for (None: read from disk).
    pub version: Option<i32>,
    pub text: Arc<DocText>,
    pub anchors: Vec<AnchorResult>,
    pub broken: Vec<BrokenResult>,
    pub mentions: Vec<MentionResult>,
}

/// An anchor that cannot be checked now (its code mid-edit, or out of budget) keeps
/// its last known state (DESIGN 1.3): it is said in the verdict and its message.
fn keep_previous_state(mut now: Verdict, before: &Verdict) -> Verdict {
    if now.state == State::Unchecked {
        let previous = if before.state == State::Unchecked {
            before.previous_state.clone()
        } else {
            Some(before.state.as_str().to_string())
        };
        if let Some(p) = &previous {
            now.message = format!("{} (last checked: {p})", now.message);
        }
        now.previous_state = previous;
    }
    now
}

impl DocReport {
    /// Scans and resolves everything in the doc. `cancelled` is polled between anchors.
    pub fn analyze(session: &mut Session, rel: &str, version: Option<i32>, text: Arc<DocText>) -> DocReport {
        let src = strip_bom(&text.text);
        let mut scanned = scan_doc(rel, src);
        drop_mentions_in_links(&mut scanned);
        let anchors = scanned
            .anchors
            .into_iter()
            .map(|anchor| {
                let verdict = session.resolve(&anchor);
                AnchorResult { anchor, verdict }
            })
            .collect();
        let broken = check_links(session, scanned.links);
        let mentions = check_mentions(session, rel, src, scanned.mentions);
        DocReport { rel: rel.to_string(), version, text, anchors, broken, mentions }
    }

    /// A doc knit does not check (larger than the per-file limit): no findings.
    pub fn empty(rel: &str, version: Option<i32>, text: Arc<DocText>) -> DocReport {
        DocReport { rel: rel.to_string(), version, text, anchors: Vec::new(), broken: Vec::new(), mentions: Vec::new() }
    }

    /// The same doc text with the anchors `redo` selects resolved again (a code file
    /// changed); the other verdicts are kept. Links and mentions are re-checked when
    /// `files_changed` (a file was created or deleted).
    pub fn reresolve(&self, session: &mut Session, redo: &dyn Fn(&AnchorResult) -> bool, files_changed: bool) -> DocReport {
        let anchors = self
            .anchors
            .iter()
            .map(|r| {
                if redo(r) {
                    let verdict = keep_previous_state(session.resolve(&r.anchor), &r.verdict);
                    AnchorResult { anchor: r.anchor.clone(), verdict }
                } else {
                    r.clone()
                }
            })
            .collect();
        let (broken, mentions) = if files_changed {
            let src = strip_bom(&self.text.text);
            let mut scanned = scan_doc(&self.rel, src);
            drop_mentions_in_links(&mut scanned);
            (check_links(session, scanned.links), check_mentions(session, &self.rel, src, scanned.mentions))
        } else {
            (self.broken.clone(), self.mentions.clone())
        };
        DocReport { rel: self.rel.clone(), version: self.version, text: self.text.clone(), anchors, broken, mentions }
    }

    /// Every code (or other) file a verdict of this doc depends on.
    pub fn dependencies(&self) -> HashSet<String> {
        let mut deps: HashSet<String> = HashSet::new();
        for a in &self.anchors {
            deps.extend(a.depends_on().map(str::to_string));
        }
        for m in &self.mentions {
            deps.insert(mention_target(&m.report));
        }
        deps
    }

    /// Some verdict may change when any file changes (a move, a rename, a loss, an
    /// unknown file, a broken link).
    pub fn has_global(&self) -> bool {
        self.anchors.iter().any(AnchorResult::is_global) || !self.broken.is_empty()
    }

    /// The anchor whose link covers byte `offset` (ends inclusive, so a cursor right
    /// after the closing parenthesis still finds it).
    pub fn anchor_at(&self, offset: usize) -> Option<&AnchorResult> {
        let base = bom_len(&self.text.text);
        self.anchors
            .iter()
            .find(|a| a.anchor.link.span.start + base <= offset && offset <= a.anchor.link.span.end + base)
    }

    /// Byte offset of the doc text where core spans start (a BOM is not content).
    pub fn base(&self) -> usize {
        bom_len(&self.text.text)
    }

    pub fn counts(&self, into: &mut Counts) {
        for a in &self.anchors {
            into.add(a.verdict.state);
        }
        into.broken_links += self.broken.len();
        into.mentions += self.mentions.len();
    }
}

/// Anchors by state over a set of docs (`knit/status`, `knit.checkWorkspace`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Counts {
    pub fresh: usize,
    pub stale: usize,
    pub moved: usize,
    pub renamed: usize,
    pub moved_renamed: usize,
    pub lost: usize,
    pub invalid: usize,
    pub unrecorded: usize,
    pub unchecked: usize,
    pub broken_links: usize,
    pub mentions: usize,
    pub docs: usize,
}

impl Counts {
    pub fn add(&mut self, s: State) {
        match s {
            State::Fresh => self.fresh += 1,
            State::Stale => self.stale += 1,
            State::Moved => self.moved += 1,
            State::Renamed => self.renamed += 1,
            State::MovedRenamed => self.moved_renamed += 1,
            State::Lost => self.lost += 1,
            State::Invalid => self.invalid += 1,
            State::Unrecorded => self.unrecorded += 1,
            State::Unchecked => self.unchecked += 1,
        }
    }
}

/// A `path:12-40` code span that is the text of a link (what converting a mention
/// writes) is already anchored: it is not offered again.
fn drop_mentions_in_links(d: &mut knit_anchors::DocAnchors) {
    let spans: Vec<std::ops::Range<usize>> =
        d.anchors.iter().map(|a| a.link.span.clone()).chain(d.links.iter().map(|l| l.link.span.clone())).collect();
    d.mentions.retain(|m| !spans.iter().any(|s| s.start <= m.span.start && m.span.end <= s.end));
}

/// The workspace path a mention suggestion points at.
fn mention_target(m: &MentionReport) -> String {
    let dest = m.suggestion.split('#').next().unwrap_or("");
    knit_anchors::target::join(&m.doc, dest).unwrap_or_default()
}

fn check_links(session: &mut Session, links: Vec<PlainLink>) -> Vec<BrokenResult> {
    links
        .into_iter()
        .filter_map(|l| {
            let message = broken_link(session, &l.doc, &l.link.dest_raw, &l.path)?;
            Some(BrokenResult { link: l, message })
        })
        .collect()
}

fn check_mentions(session: &mut Session, doc: &str, src: &str, mentions: Vec<Mention>) -> Vec<MentionResult> {
    mentions
        .into_iter()
        .filter_map(|m| {
            let report = mention_suggestion(session, doc, &m, src)?;
            Some(MentionResult { mention: m, report })
        })
        .collect()
}

/// The engine scans docs without their byte-order mark; spans are shifted back by this.
pub fn bom_len(s: &str) -> usize {
    if s.starts_with('\u{feff}') {
        '\u{feff}'.len_utf8()
    } else {
        0
    }
}

pub fn strip_bom(s: &str) -> &str {
    &s[bom_len(s)..]
}

#[cfg(test)]
mod previous_state_tests {
    use super::*;

    #[test]
    fn unchecked_keeps_the_last_known_state() {
        let fresh = Verdict::new(State::Fresh, "identity_matched", "fresh");
        let mid_edit = Verdict::new(State::Unchecked, "parse_error", "syntax error");
        let kept = keep_previous_state(mid_edit.clone(), &fresh);
        assert_eq!(kept.previous_state.as_deref(), Some("fresh"));
        assert!(kept.message.ends_with("(last checked: fresh)"));
        // Still mid-edit on the next keystroke: the state before the edit is kept.
        let again = keep_previous_state(mid_edit, &kept);
        assert_eq!(again.previous_state.as_deref(), Some("fresh"));
        // A checked verdict is untouched.
        let stale = Verdict::new(State::Stale, "body_changed", "changed");
        assert_eq!(keep_previous_state(stale.clone(), &fresh), stale);
    }
}
