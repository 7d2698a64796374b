//! Verdicts → LSP diagnostics. Doc side: one diagnostic per anchor that is not fresh,
//! per broken link and per convertible mention, on the link's destination, with a
//! stable `code`, the verdict's words, the code location as related information and
//! `data` for code actions. Code side: on a declaration an unsaved buffer edit is about
//! to make stale, naming the doc lines that describe it.

use crate::analysis::{AnchorResult, DocReport};
use crate::config::{code_of, Settings};
use crate::position::{position_of_line_col, Encoding, LineIndex};
use knit_anchors::{Now, SourceTree, State};
use serde_json::json;
use std::collections::HashMap;
use std::sync::Arc;
use tower_lsp_server::ls_types::{
    Diagnostic, DiagnosticRelatedInformation, DiagnosticSeverity, Location, NumberOrString, Position, Range, Uri,
};

pub const SOURCE: &str = "knit";

/// Line indexes of code files read while building diagnostics (one pass, one tree).
pub struct CodeLines<'a> {
    tree: &'a dyn SourceTree,
    max_bytes: u64,
    cache: HashMap<String, Option<(Arc<str>, LineIndex)>>,
}

impl<'a> CodeLines<'a> {
    pub fn new(tree: &'a dyn SourceTree, max_bytes: u64) -> Self {
        CodeLines { tree, max_bytes, cache: HashMap::new() }
    }

    /// Range of a declaration's name (or the first line of a range) in the encoding.
    pub fn now_range(&mut self, now: &Now, enc: Encoding) -> Range {
        let name_len = now.symbol.as_deref().map(|s| knit_syntax::decl::last_segment(s).len()).unwrap_or(0) as u32;
        let entry = self
            .cache
            .entry(now.path.clone())
            .or_insert_with(|| self.tree.read(&now.path, self.max_bytes).ok().map(|t| {
                let ix = LineIndex::new(&t);
                (t, ix)
            }));
        match entry {
            Some((text, ix)) => {
                let start = position_of_line_col(text, ix, now.line, now.column, enc);
                let end = if now.lines.is_some() || now.symbol.is_none() {
                    let last = now.end_line.unwrap_or(now.line);
                    position_of_line_col(text, ix, last, u32::MAX, enc)
                } else {
                    position_of_line_col(text, ix, now.line, now.column + name_len, enc)
                };
                Range::new(start, end)
            }
            None => {
                let p = Position::new(now.line.saturating_sub(1), 0);
                Range::new(p, p)
            }
        }
    }
}

/// Diagnostics of one doc.
pub fn doc_diagnostics(
    report: &DocReport,
    settings: &Settings,
    enc: Encoding,
    uri_of: &dyn Fn(&str) -> Option<Uri>,
    code: &mut CodeLines,
) -> Vec<Diagnostic> {
    let text = &report.text.text;
    let ix = &report.text.index;
    let base = report.base();
    let mut out = Vec::new();
    for a in &report.analysis.anchors {
        let Some(code_str) = code_of(a.verdict.state) else { continue };
        let Some(severity) = settings.severity(code_str) else { continue };
        let link = &a.anchor.link;
        let span = if link.dest_span.start < link.dest_span.end { link.dest_span.clone() } else { link.span.clone() };
        let range = ix.range(text, span.start + base..span.end + base, enc);
        let related = related_info(a, uri_of, code, enc);
        out.push(Diagnostic {
            range,
            severity: Some(severity),
            code: Some(NumberOrString::String(code_str.to_string())),
            source: Some(SOURCE.to_string()),
            message: anchor_message(a),
            related_information: (!related.is_empty()).then_some(related),
            data: Some(json!({
                "kind": "anchor",
                "anchorId": a.anchor.id,
                "state": a.verdict.state.as_str(),
                "reason": a.verdict.reason,
                "dest": a.anchor.link.dest_raw,
                "now": a.verdict.now,
                "candidates": a.verdict.candidates,
                "version": report.version,
            })),
            ..Default::default()
        });
    }
    if let Some(severity) = settings.severity("broken-link") {
        for b in &report.analysis.broken {
            let link = &b.link.link;
            let span = if link.dest_span.start < link.dest_span.end { link.dest_span.clone() } else { link.span.clone() };
            out.push(Diagnostic {
                range: ix.range(text, span.start + base..span.end + base, enc),
                severity: Some(severity),
                code: Some(NumberOrString::String("broken-link".into())),
                source: Some(SOURCE.to_string()),
                message: b.message.clone(),
                data: Some(json!({ "kind": "broken-link", "path": b.link.path, "suggestion": b.suggestion, "version": report.version })),
                ..Default::default()
            });
        }
    }
    if let Some(severity) = settings.severity("broken-link") {
        for l in &report.analysis.symbol_links {
            let Some(why) = &l.broken else { continue };
            let span = &l.link.span;
            out.push(Diagnostic {
                range: ix.range(text, span.start + base..span.end + base, enc),
                severity: Some(severity),
                code: Some(NumberOrString::String("broken-link".into())),
                source: Some(SOURCE.to_string()),
                message: why.clone(),
                data: Some(json!({ "kind": "broken-symbol-link", "symbol": l.link.target, "version": report.version })),
                ..Default::default()
            });
        }
    }
    if let (Some(severity), Some(found)) = (settings.severity("code-mention"), &report.code_mentions) {
        for m in found {
            let dest = m.dest.as_deref().unwrap_or("");
            out.push(Diagnostic {
                range: ix.range(text, m.span.start + base..m.span.end + base, enc),
                severity: Some(severity),
                code: Some(NumberOrString::String("code-mention".into())),
                source: Some(SOURCE.to_string()),
                message: format!("`{}` names {dest} ({}): as an anchor, knit would tell when that code changes", m.text, m.why),
                data: Some(json!({ "kind": "code-mention", "dest": dest, "version": report.version })),
                ..Default::default()
            });
        }
    }
    if let Some(severity) = settings.severity("mention") {
        for m in &report.analysis.mentions {
            let span = &m.mention.span;
            out.push(Diagnostic {
                range: ix.range(text, span.start + base..span.end + base, enc),
                severity: Some(severity),
                code: Some(NumberOrString::String("mention".into())),
                source: Some(SOURCE.to_string()),
                message: format!(
                    "`{}` can be an anchor ({}): knit would then tell when that code changes",
                    m.report.text, m.report.suggestion
                ),
                data: Some(json!({ "kind": "mention", "suggestion": m.report.suggestion, "version": report.version })),
                ..Default::default()
            });
        }
    }
    out
}

/// The message of an anchor's diagnostic: the verdict's words, made to stand alone.
pub fn anchor_message(a: &AnchorResult) -> String {
    let v = &a.verdict;
    match v.state {
        State::Unrecorded if v.reason == "no_baseline" => {
            format!("`{}` has no recorded baseline yet: record it so knit can tell when the code changes", a.anchor.link.dest_raw)
        }
        State::Lost if !v.candidates.is_empty() => format!(
            "{} (candidates: {})",
            v.message,
            v.candidates.iter().map(|c| format!("{}#{}", c.path, c.symbol)).collect::<Vec<_>>().join(", ")
        ),
        State::Unchecked => match &v.previous_state {
            Some(p) => format!("{} (was {p})", v.message),
            None => v.message.clone(),
        },
        _ => v.message.clone(),
    }
}

fn related_info(a: &AnchorResult, uri_of: &dyn Fn(&str) -> Option<Uri>, code: &mut CodeLines, enc: Encoding) -> Vec<DiagnosticRelatedInformation> {
    let mut out = Vec::new();
    if let Some(now) = &a.verdict.now {
        if let Some(uri) = uri_of(&now.path) {
            let what = match &now.symbol {
                Some(s) => format!("`{s}` is here now"),
                None => "the lines are here now".to_string(),
            };
            out.push(DiagnosticRelatedInformation { location: Location::new(uri, code.now_range(now, enc)), message: what });
        }
    }
    for c in a.verdict.candidates.iter().take(8) {
        if let Some(uri) = uri_of(&c.path) {
            let p = Position::new(c.line.saturating_sub(1), 0);
            let label = if c.symbol.is_empty() { c.path.clone() } else { format!("candidate `{}`", c.symbol) };
            out.push(DiagnosticRelatedInformation { location: Location::new(uri, Range::new(p, p)), message: label });
        }
    }
    out
}

/// One doc line that describes a declaration of a code buffer.
pub struct Describer {
    pub doc_uri: Uri,
    pub doc_rel: String,
    pub doc_line: u32,
    pub range: Range,
}

/// A code-side diagnostic on a declaration an unsaved edit makes stale.
pub fn will_go_stale(name: &str, range: Range, describers: &[Describer], severity: DiagnosticSeverity) -> Diagnostic {
    let lines: Vec<String> = describers.iter().map(|d| format!("{}:{}", d.doc_rel, d.doc_line)).collect();
    Diagnostic {
        range,
        severity: Some(severity),
        code: Some(NumberOrString::String("will-go-stale".into())),
        source: Some(SOURCE.to_string()),
        message: format!("unsaved edit of `{name}` makes {} stale: {}", if lines.len() == 1 { "this doc line" } else { "these doc lines" }, lines.join(", ")),
        related_information: Some(
            describers
                .iter()
                .map(|d| DiagnosticRelatedInformation {
                    location: Location::new(d.doc_uri.clone(), d.range),
                    message: format!("{}:{} describes `{name}`", d.doc_rel, d.doc_line),
                })
                .collect(),
        ),
        ..Default::default()
    }
}
