//! The one per-doc analysis every face calls: `knit check` and MCP (through
//! [`check`](super::check())), the language server's diagnostics, hovers and code actions,
//! and the context pack's freshness counts. One pass over one doc at one text: every
//! anchor with its verdict, the plain links that point nowhere, the `path:12-40` mentions
//! that could become anchors, and the facts a scheduler needs to know when to run it
//! again (which files it depends on, whether a verdict came from a repository-wide
//! search). The faces only convert the result to their own types.

use super::links::{broken_link, mention_suggestion, scan_doc};
use super::session::Session;
use super::symbol_links::SymbolLinkResult;
use super::strip_bom;
use crate::markdown::Mention;
use crate::model::*;
use crate::target::Target;
use std::collections::HashSet;

/// What of a doc to analyse.
#[derive(Clone, Copy, Debug, Default)]
pub struct Scope<'p> {
    /// Only anchors whose target path is in this set (`knit check --changed`); links and
    /// mentions are then not checked either: the question is about those targets.
    pub only_targets: Option<&'p HashSet<String>>,
    /// Anchors only: no broken-link or mention checks (freshness counts of a pack).
    pub anchors_only: bool,
}

impl Scope<'_> {
    /// Everything in the doc.
    pub const ALL: Scope<'static> = Scope { only_targets: None, anchors_only: false };
    /// The anchors' verdicts only.
    pub const ANCHORS: Scope<'static> = Scope { only_targets: None, anchors_only: true };

    fn links_and_mentions(&self) -> bool {
        !self.anchors_only && self.only_targets.is_none()
    }
}

/// One anchor and its verdict.
#[derive(Clone, Debug)]
pub struct AnchorResult {
    pub anchor: Anchor,
    pub verdict: Verdict,
}

impl AnchorResult {
    pub fn target_path(&self) -> Option<&str> {
        self.anchor.target.as_ref().ok().map(Target::path)
    }

    /// Files this verdict depends on: where the link points, where the declaration is
    /// now, and the candidates offered.
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

/// A plain link that points nowhere, and why.
#[derive(Clone, Debug)]
pub struct BrokenResult {
    pub link: PlainLink,
    pub message: String,
    /// The destination the link most likely meant (see `links::Broken`).
    pub suggestion: Option<String>,
}

/// A `path:12-40` mention and the anchor it could become.
#[derive(Clone, Debug)]
pub struct MentionResult {
    pub mention: Mention,
    pub report: MentionReport,
}

/// One doc at one text. Spans are byte offsets of the text without its byte-order mark.
#[derive(Clone, Debug, Default)]
pub struct DocAnalysis {
    pub doc: String,
    pub anchors: Vec<AnchorResult>,
    pub broken: Vec<BrokenResult>,
    pub mentions: Vec<MentionResult>,
    /// DocC and TSDoc symbol links, each with what it names (`symbol_links`).
    pub symbol_links: Vec<SymbolLinkResult>,
}

/// Analyses `doc` (workspace-relative path) at text `src`.
pub fn analyze_doc(session: &mut Session, doc: &str, src: &str, scope: Scope) -> DocAnalysis {
    analyze_scanned(session, scan_doc(doc, strip_bom(src)), scope)
}

/// [`analyze_doc`] of a doc already scanned (a whole-workspace check scans every doc in
/// parallel first, to prefetch the code files they point at).
pub fn analyze_scanned(session: &mut Session, mut scanned: DocAnchors, scope: Scope) -> DocAnalysis {
    drop_mentions_in_links(&mut scanned);
    let anchors = scanned
        .anchors
        .into_iter()
        .filter(|a| match scope.only_targets {
            None => true,
            Some(only) => a.target.as_ref().is_ok_and(|t| only.contains(t.path())),
        })
        .map(|anchor| {
            let verdict = session.resolve(&anchor);
            AnchorResult { anchor, verdict }
        })
        .collect();
    let (broken, mentions, symbol_links) = if scope.links_and_mentions() {
        let symbol_links = scanned.symbol_links.iter().map(|l| session.resolve_symbol_link(l)).collect();
        (check_links(session, scanned.links), check_mentions(session, &scanned.doc, scanned.mentions), symbol_links)
    } else {
        (Vec::new(), Vec::new(), Vec::new())
    };
    DocAnalysis { doc: scanned.doc, anchors, broken, mentions, symbol_links }
}

impl DocAnalysis {
    /// The same doc text (`src`) with the anchors `redo` selects resolved again (a code
    /// file changed); the other verdicts are kept. Links and mentions are checked again
    /// when `files_changed` (a file was created or deleted).
    pub fn reresolve(&self, session: &mut Session, src: &str, redo: &dyn Fn(&AnchorResult) -> bool, files_changed: bool) -> DocAnalysis {
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
            let mut scanned = scan_doc(&self.doc, strip_bom(src));
            drop_mentions_in_links(&mut scanned);
            (check_links(session, scanned.links), check_mentions(session, &self.doc, scanned.mentions))
        } else {
            (self.broken.clone(), self.mentions.clone())
        };
        // What a symbol link names may change with any code edit (a rename, a move).
        let symbol_links = self.symbol_links.iter().map(|r| session.resolve_symbol_link(&r.link)).collect();
        DocAnalysis { doc: self.doc.clone(), anchors, broken, mentions, symbol_links }
    }

    /// Every file a verdict or a mention of this doc depends on (the reverse index).
    pub fn dependencies(&self) -> HashSet<String> {
        let mut deps: HashSet<String> = HashSet::new();
        for a in &self.anchors {
            deps.extend(a.depends_on().map(str::to_string));
        }
        for m in &self.mentions {
            deps.insert(mention_target(&m.report));
        }
        for l in &self.symbol_links {
            deps.extend(l.targets.iter().map(|t| t.path.clone()));
        }
        deps
    }

    /// Some verdict may change when any file changes (a move, a rename, a loss, an
    /// unknown file, a broken link).
    pub fn has_global(&self) -> bool {
        self.anchors.iter().any(AnchorResult::is_global) || !self.broken.is_empty() || self.symbol_links.iter().any(|l| l.targets.is_empty())
    }

    /// How the doc's anchors stand.
    pub fn tally(&self) -> AnchorTally {
        let mut t = AnchorTally::default();
        for a in &self.anchors {
            t.add(a.verdict.state);
        }
        t
    }
}

/// An anchor that cannot be checked now (its code mid-edit, or out of budget) keeps
/// its last known state (DESIGN 1.3): it is said in the verdict and its message.
pub fn keep_previous_state(mut now: Verdict, before: &Verdict) -> Verdict {
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

/// A `path:12-40` code span that is the text of a link (what converting a mention
/// writes) is already anchored: it is not offered again.
fn drop_mentions_in_links(d: &mut DocAnchors) {
    let spans: Vec<std::ops::Range<usize>> =
        d.anchors.iter().map(|a| a.link.span.clone()).chain(d.links.iter().map(|l| l.link.span.clone())).collect();
    d.mentions.retain(|m| !spans.iter().any(|s| s.start <= m.span.start && m.span.end <= s.end));
}

/// The workspace path a mention suggestion points at.
fn mention_target(m: &MentionReport) -> String {
    let dest = m.suggestion.split('#').next().unwrap_or("");
    crate::target::join(&m.doc, dest).unwrap_or_default()
}

fn check_links(session: &mut Session, links: Vec<PlainLink>) -> Vec<BrokenResult> {
    links
        .into_iter()
        .filter_map(|l| {
            let broken = broken_link(session, &l.doc, &l.link.dest_raw, &l.path)?;
            Some(BrokenResult { link: l, message: broken.message, suggestion: broken.suggestion })
        })
        .collect()
}

fn check_mentions(session: &mut Session, doc: &str, mentions: Vec<Mention>) -> Vec<MentionResult> {
    mentions
        .into_iter()
        .filter_map(|m| {
            let report = mention_suggestion(session, doc, &m)?;
            Some(MentionResult { mention: m, report })
        })
        .collect()
}

/// How the anchors written in one doc stand (for context packs and status bars).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct AnchorTally {
    pub total: u32,
    /// stale, moved, renamed, moved-renamed.
    pub stale: u32,
    /// lost and invalid.
    pub lost: u32,
}

impl AnchorTally {
    /// Counts one anchor. The doc no longer says what the code does when the anchor is
    /// stale, moved or renamed (`stale`); it points nowhere when lost or invalid (`lost`).
    pub fn add(&mut self, state: State) {
        self.total += 1;
        match state {
            State::Stale | State::Moved | State::Renamed | State::MovedRenamed => self.stale += 1,
            State::Lost | State::Invalid => self.lost += 1,
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{check, CheckConfig, CheckOptions};
    use crate::source::{DeclCache, MemTree, SourceTree};

    fn workspace() -> MemTree {
        let mut tree = MemTree::new();
        tree.insert("src/a.ts", "export function f(): number {\n  return 1 + 2 + 3;\n}\n\nexport function g(): number {\n  return 4;\n}\n");
        tree.insert(
            "docs/a.md",
            concat!(
                "# A\n",
                "[f](../src/a.ts#f) and [gone](../src/missing.ts) and [here](../src/a.ts).\n",
                "See `src/a.ts:5-7` for g.\n",
                "[`src/a.ts:1-3`](../src/a.ts#L1-L3) is already an anchor.\n",
            ),
        );
        tree
    }

    #[test]
    fn one_doc_at_one_text() {
        let tree = workspace();
        let cache = DeclCache::default();
        let mut session = Session::new(&tree, &cache, CheckConfig::default());
        let src = tree.read("docs/a.md", 1 << 20).unwrap();
        let a = analyze_doc(&mut session, "docs/a.md", &src, Scope::ALL);
        let states: Vec<State> = a.anchors.iter().map(|r| r.verdict.state).collect();
        assert_eq!(states, vec![State::Unrecorded, State::Unrecorded]);
        assert_eq!(a.broken.len(), 1);
        assert!(a.broken[0].message.contains("src/missing.ts does not exist"), "{}", a.broken[0].message);
        // The bare mention is offered; the one that is already a link's text is not.
        assert_eq!(a.mentions.len(), 1);
        assert_eq!(a.mentions[0].report.suggestion, "../src/a.ts#g");
        let deps = a.dependencies();
        assert!(deps.contains("src/a.ts"));
        assert!(a.has_global(), "a broken link makes the doc depend on every file's existence");
        assert_eq!(a.tally(), AnchorTally { total: 2, stale: 0, lost: 0 });

        // Anchors only: no link or mention checks.
        let only = analyze_doc(&mut session, "docs/a.md", &src, Scope::ANCHORS);
        assert_eq!((only.anchors.len(), only.broken.len(), only.mentions.len()), (2, 0, 0));
    }

    #[test]
    fn the_workspace_check_is_the_per_doc_analysis() {
        let tree = workspace();
        let cache = DeclCache::default();
        let docs = vec!["docs/a.md".to_string()];
        let report = check(&tree, &cache, &CheckConfig::default(), &docs, &CheckOptions::default());
        let mut session = Session::new(&tree, &cache, CheckConfig::default());
        let src = tree.read("docs/a.md", 1 << 20).unwrap();
        let a = analyze_doc(&mut session, "docs/a.md", &src, Scope::ALL);
        let ids = |v: Vec<&str>| v.into_iter().map(str::to_string).collect::<Vec<_>>();
        assert_eq!(
            ids(report.anchors.iter().map(|r| r.id.as_str()).collect()),
            ids(a.anchors.iter().map(|r| r.anchor.id.as_str()).collect())
        );
        assert_eq!(report.anchors.iter().map(|r| r.state).collect::<Vec<_>>(), a.anchors.iter().map(|r| r.verdict.state).collect::<Vec<_>>());
        assert_eq!(
            ids(report.broken_links.iter().map(|b| b.message.as_str()).collect()),
            ids(a.broken.iter().map(|b| b.message.as_str()).collect())
        );
        assert_eq!(
            ids(report.mentions.iter().map(|m| m.suggestion.as_str()).collect()),
            ids(a.mentions.iter().map(|m| m.report.suggestion.as_str()).collect())
        );
        // `--changed`: only anchors into the changed files, no link or mention checks.
        let only: std::collections::HashSet<String> = ["src/other.ts".to_string()].into();
        let changed = check(&tree, &cache, &CheckConfig::default(), &docs, &CheckOptions { only_targets: Some(&only), previous: None });
        assert!(changed.anchors.is_empty() && changed.broken_links.is_empty() && changed.mentions.is_empty());
    }

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
