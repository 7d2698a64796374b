//! The vocabulary of a check: anchors found in docs, states, verdicts, and the report
//! whose JSON shape DESIGN section 2 fixes.

use crate::baseline::Baseline;
use crate::markdown::{DocLink, Mention};
use crate::target::{Target, TargetError};
use serde::Serialize;

/// An anchor's state (DESIGN 1.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, PartialOrd, Ord)]
#[serde(rename_all = "kebab-case")]
pub enum State {
    Fresh,
    Stale,
    Moved,
    Renamed,
    MovedRenamed,
    Lost,
    Invalid,
    Unchecked,
    Unrecorded,
}

impl State {
    pub fn as_str(self) -> &'static str {
        match self {
            State::Fresh => "fresh",
            State::Stale => "stale",
            State::Moved => "moved",
            State::Renamed => "renamed",
            State::MovedRenamed => "moved-renamed",
            State::Lost => "lost",
            State::Invalid => "invalid",
            State::Unchecked => "unchecked",
            State::Unrecorded => "unrecorded",
        }
    }
    pub fn parse(s: &str) -> Option<State> {
        Some(match s {
            "fresh" => State::Fresh,
            "stale" => State::Stale,
            "moved" => State::Moved,
            "renamed" => State::Renamed,
            "moved-renamed" => State::MovedRenamed,
            "lost" => State::Lost,
            "invalid" => State::Invalid,
            "unchecked" => State::Unchecked,
            "unrecorded" => State::Unrecorded,
            _ => return None,
        })
    }
}

/// A link of a doc that knit checks: a symbol, line-range or doc anchor (recorded or
/// not), or a link whose destination is refused.
#[derive(Clone, Debug)]
pub struct Anchor {
    /// `doc:line:ordinal`, stable for an unchanged doc.
    pub id: String,
    pub doc: String,
    pub link: DocLink,
    pub target: Result<Target, TargetError>,
    /// The raw `knit:` token, if any.
    pub baseline_raw: Option<String>,
    /// The decoded baseline (None when absent or of an unknown scheme).
    pub baseline: Option<Baseline>,
}

impl Anchor {
    pub fn line(&self) -> u32 {
        self.link.line
    }
    pub fn is_line_range(&self) -> bool {
        matches!(self.target, Ok(Target::Lines { .. }))
    }
}

/// A link that is only checked for existence.
#[derive(Clone, Debug)]
pub struct PlainLink {
    pub id: String,
    pub doc: String,
    pub link: DocLink,
    pub path: String,
}

/// What one doc holds.
#[derive(Clone, Debug, Default)]
pub struct DocAnchors {
    pub doc: String,
    pub anchors: Vec<Anchor>,
    pub links: Vec<PlainLink>,
    pub mentions: Vec<Mention>,
    /// DocC and TSDoc symbol links (checked, never baselined).
    pub symbol_links: Vec<crate::markdown::SymbolLink>,
}

/// Where a declaration (or block) is now.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Now {
    pub path: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub symbol: Option<String>,
    /// The exact fragment that designates it now (kind prefix / `~N` when needed).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fragment: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    pub line: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub end_line: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lines: Option<[u32; 2]>,
    /// The declaration's header, for hovers.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub signature: Option<String>,
    /// 0-based byte column of the name (go-to-definition).
    #[serde(skip)]
    pub column: u32,
}

/// A place an anchor could be rebound to, and why it was offered.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Candidate {
    pub path: String,
    /// The exact fragment that designates it (empty for a whole file).
    pub symbol: String,
    pub line: u32,
    /// Its declaration kind (`function`, `class`, …), when a declaration.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub kind: String,
    /// How alike it is to what the anchor named, in percent (ranked candidates only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub similarity: Option<u8>,
    /// Why it was offered, in checkable words ("same name and body as reviewed",
    /// "name shares `resolve`, `anchor`; same kind (method); same file").
    pub why: String,
}

impl Candidate {
    pub fn new(path: impl Into<String>, symbol: impl Into<String>, line: u32, why: impl Into<String>) -> Self {
        Candidate { path: path.into(), symbol: symbol.into(), line, kind: String::new(), similarity: None, why: why.into() }
    }
}

/// The outcome of resolving one anchor.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Verdict {
    #[serde(skip)]
    pub state: State,
    pub reason: &'static str,
    /// What happened, in words.
    pub message: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub now: Option<Now>,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub changed: bool,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub candidates: Vec<Candidate>,
    /// For stale containers: members whose tokens are not in the baseline.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub members: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub previous_state: Option<String>,
    /// What changed since review, from the linked file's history (`knit check --explain`,
    /// hovers; computed by `engine::since`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub since: Option<SinceReview>,
    /// Why `since` is absent when it was asked for: `not_in_history` (no commit holds the
    /// reviewed version), `history_cut_short` (the time or commit bound stopped the read)
    /// or `history_not_in_clone` (older versions' contents are not in this partial clone).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub since_missing: Option<&'static str>,
}

impl Verdict {
    pub fn new(state: State, reason: &'static str, message: impl Into<String>) -> Self {
        Verdict {
            state,
            reason,
            message: message.into(),
            now: None,
            changed: false,
            candidates: Vec::new(),
            members: Vec::new(),
            previous_state: None,
            since: None,
            since_missing: None,
        }
    }
    pub fn with_now(mut self, now: Now) -> Self {
        self.now = Some(now);
        self
    }
    pub fn with_candidates(mut self, c: Vec<Candidate>) -> Self {
        self.candidates = c;
        self
    }
}

/// `target` of the JSON report.
#[derive(Clone, Debug, Serialize)]
pub struct TargetReport {
    pub path: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub symbol: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lines: Option<[u32; 2]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub section: Option<String>,
}

#[derive(Clone, Debug, Serialize)]
pub struct AnchorReport {
    pub id: String,
    pub doc: String,
    pub line: u32,
    /// 1-based column (in characters) where the link starts on its line.
    pub column: u32,
    pub target: TargetReport,
    pub state: State,
    pub detail: Verdict,
}

#[derive(Clone, Debug, Serialize)]
pub struct BrokenLink {
    pub id: String,
    pub doc: String,
    pub line: u32,
    pub path: String,
    pub message: String,
    /// The destination the link most likely meant, when exactly one fits
    /// (`https://eslint.org` for `eslint.org`, `#coverage-exclude` for `#exclude`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub suggestion: Option<String>,
}

#[derive(Clone, Debug, Serialize)]
pub struct MentionReport {
    pub doc: String,
    pub line: u32,
    pub text: String,
    /// The anchor destination knit suggests (doc-relative).
    pub suggestion: String,
    pub kind: &'static str,
}

#[derive(Clone, Debug, Default, Serialize)]
pub struct BudgetReport {
    pub files_read: u64,
    pub bytes_read: u64,
    pub elapsed_ms: u64,
    pub limit: Option<&'static str>,
}

#[derive(Clone, Debug, Default, Serialize)]
pub struct FallbackShare {
    pub total: usize,
    pub fallback: usize,
    pub share: f64,
}

impl FallbackShare {
    pub fn of<'a>(anchors: impl Iterator<Item = &'a AnchorReport>) -> Self {
        let mut total = 0;
        let mut fallback = 0;
        for a in anchors {
            total += 1;
            if a.target.lines.is_some() {
                fallback += 1;
            }
        }
        let share = if total == 0 { 0.0 } else { ((fallback as f64 / total as f64) * 10_000.0).round() / 10_000.0 };
        FallbackShare { total, fallback, share }
    }
}

/// The object `knit check --format json` prints.
#[derive(Clone, Debug, Default, Serialize)]
pub struct CheckReport {
    pub complete: bool,
    pub budget: BudgetReport,
    pub anchors: Vec<AnchorReport>,
    pub unchecked_anchor_ids: Vec<String>,
    pub fallback_share: FallbackShare,
    pub broken_links: Vec<BrokenLink>,
    pub mentions: Vec<MentionReport>,
    /// Docs that could not be read (binary, not UTF-8, too large), with the reason.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub skipped_docs: Vec<(String, String)>,
    /// DocC and TSDoc symbol links: how many name a workspace declaration, how many are
    /// broken (also in `broken_links`), how many name nothing the workspace declares.
    pub symbol_links: SymbolLinkCounts,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct SymbolLinkCounts {
    pub resolved: usize,
    pub broken: usize,
    pub external: usize,
}

impl CheckReport {
    /// Every anchor fresh, no broken link, no doc skipped.
    pub fn all_fresh(&self) -> bool {
        self.anchors.iter().all(|a| a.state == State::Fresh) && self.broken_links.is_empty() && self.skipped_docs.is_empty()
    }
}

/// Baseline helper for the report: the symbol text a target shows.
pub fn target_report(a: &Anchor, verdict: &Verdict) -> TargetReport {
    match &a.target {
        Ok(Target::Symbol { path, fragment, .. }) => TargetReport {
            path: path.clone(),
            symbol: Some(fragment.name.clone()),
            kind: fragment.kind.clone().or_else(|| verdict.now.as_ref().and_then(|n| n.kind.clone())),
            lines: None,
            section: None,
        },
        Ok(Target::Lines { path, start, end }) => {
            TargetReport { path: path.clone(), symbol: None, kind: None, lines: Some([*start, *end]), section: None }
        }
        Ok(Target::Doc { path, slug }) => {
            TargetReport { path: path.clone(), symbol: None, kind: Some("doc".into()), lines: None, section: slug.clone() }
        }
        Ok(Target::File { path }) => TargetReport { path: path.clone(), symbol: None, kind: None, lines: None, section: None },
        Ok(Target::Page { path, slug, .. }) => {
            TargetReport { path: path.clone(), symbol: None, kind: None, lines: None, section: slug.clone() }
        }
        Err(_) => TargetReport {
            path: crate::target::join(&a.doc, a.link.dest_raw.split('#').next().unwrap_or(""))
                .unwrap_or_else(|| a.link.dest_raw.clone()),
            symbol: None,
            kind: None,
            lines: None,
            section: None,
        },
    }
}

/// A commit, as a reviewer reads it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct CommitRef {
    /// 12 hex digits.
    pub commit: String,
    /// Seconds since the Unix epoch.
    pub time: i64,
    pub subject: String,
}

/// The reviewed version of a declaration and what came after it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SinceReview {
    /// The commit whose version of the declaration is the one the doc was reviewed against.
    pub reviewed_as_of: CommitRef,
    /// Later commits that changed the declaration, newest first.
    pub changed_by: Vec<CommitRef>,
    /// Unified diff of the declaration, reviewed version → now, at most [`MAX_DIFF_LINES`](crate::engine::since::MAX_DIFF_LINES).
    pub diff: String,
    /// The diff was cut at [`MAX_DIFF_LINES`](crate::engine::since::MAX_DIFF_LINES).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub diff_truncated: bool,
}
