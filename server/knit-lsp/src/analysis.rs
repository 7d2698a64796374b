//! The language server's view of one doc at one text ([`DocReport`]): the core's
//! [`DocAnalysis`] (every anchor with its verdict, broken links, convertible mentions,
//! dependencies — computed by the anchor engine's one per-doc analysis, as for `knit
//! check`) stamped with the buffer version and text it was computed for, plus what the
//! protocol needs of it: byte offsets of the buffer (a byte-order mark shifts the core's
//! spans) and the counts of `knit/status`.

use crate::document::DocText;
pub use knit_anchors::AnchorResult;
use knit_anchors::engine::Suggestion;
use knit_anchors::{analyze_doc, DocAnalysis, Scope, Session, State};
use std::sync::Arc;

/// One doc at one text.
#[derive(Debug)]
pub struct DocReport {
    pub rel: String,
    /// The buffer version this report was computed for (None: read from disk).
    pub version: Option<i32>,
    pub text: Arc<DocText>,
    pub analysis: DocAnalysis,
    /// Inline code naming exactly one declaration or file (`knit anchors suggest`), when
    /// the `code-mention` diagnostic is on (it needs the repository-wide index); None
    /// when it is off.
    pub code_mentions: Option<Vec<Suggestion>>,
}

impl DocReport {
    /// Analyses the doc at `text` (the anchor engine's [`analyze_doc`]), and its code
    /// mentions when `code_mentions` (the engine's `Session::suggest`).
    pub fn analyze(session: &mut Session, rel: &str, version: Option<i32>, text: Arc<DocText>, code_mentions: bool) -> DocReport {
        let analysis = analyze_doc(session, rel, &text.text, Scope::ALL);
        let code_mentions = code_mentions.then(|| suggestions(session, rel, &text.text));
        DocReport { rel: rel.to_string(), version, text, analysis, code_mentions }
    }

    /// A doc knit does not check (larger than the per-file limit): no findings.
    pub fn empty(rel: &str, version: Option<i32>, text: Arc<DocText>) -> DocReport {
        DocReport { rel: rel.to_string(), version, text, analysis: DocAnalysis { doc: rel.to_string(), ..Default::default() }, code_mentions: None }
    }

    /// The same doc text with the anchors `redo` selects resolved again (see
    /// [`DocAnalysis::reresolve`]).
    pub fn reresolve(&self, session: &mut Session, redo: &dyn Fn(&AnchorResult) -> bool, files_changed: bool) -> DocReport {
        let analysis = self.analysis.reresolve(session, &self.text.text, redo, files_changed);
        // Code changed: what a mention names may have too.
        let code_mentions = self.code_mentions.as_ref().map(|_| suggestions(session, &self.rel, &self.text.text));
        DocReport { rel: self.rel.clone(), version: self.version, text: self.text.clone(), analysis, code_mentions }
    }

    /// The anchor whose link covers byte `offset` (ends inclusive, so a cursor right
    /// after the closing parenthesis still finds it).
    pub fn anchor_at(&self, offset: usize) -> Option<&AnchorResult> {
        let base = bom_len(&self.text.text);
        self.analysis
            .anchors
            .iter()
            .find(|a| a.anchor.link.span.start + base <= offset && offset <= a.anchor.link.span.end + base)
    }

    /// The DocC or TSDoc symbol link covering byte `offset`.
    pub fn symbol_link_at(&self, offset: usize) -> Option<&knit_anchors::engine::SymbolLinkResult> {
        let base = bom_len(&self.text.text);
        self.analysis.symbol_links.iter().find(|l| l.link.span.start + base <= offset && offset <= l.link.span.end + base)
    }

    /// Byte offset of the doc text where core spans start (a BOM is not content).
    pub fn base(&self) -> usize {
        bom_len(&self.text.text)
    }

    pub fn counts(&self, into: &mut Counts) {
        for a in &self.analysis.anchors {
            into.add(a.verdict.state);
        }
        into.broken_links += self.analysis.broken.len() + self.analysis.symbol_links.iter().filter(|l| l.broken.is_some()).count();
        into.mentions += self.analysis.mentions.len();
    }
}

/// The convertible code mentions of a doc (spans relative to the text without its BOM).
fn suggestions(session: &mut Session, rel: &str, text: &str) -> Vec<Suggestion> {
    session.suggest(rel, strip_bom(text)).into_iter().filter(|s| s.dest.is_some()).collect()
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
