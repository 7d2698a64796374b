//! `textDocument/documentSymbol` in a doc: its outline. Headings nest by level (as a
//! Markdown language server gives them) and, under the section that holds it, each
//! anchor is listed by its link text, with its state as the detail (`fresh`, `stale`,
//! `lost`, …) and a kind from what it points at — so an editor's outline or symbol picker
//! shows where a doc has drifted.

use super::util::{anchor_symbol_kind, doc_at};
use crate::snapshot::Snapshot;
use knit_anchors::markdown::{scan, Heading};
use knit_anchors::AnchorResult;
use tower_lsp_server::ls_types::{DocumentSymbol, DocumentSymbolResponse, Position, Range, SymbolKind, Uri};

pub fn document_symbols(snap: &Snapshot, uri: &Uri) -> Option<DocumentSymbolResponse> {
    let at = doc_at(snap, uri, Position::new(0, 0))?;
    let report = &at.report;
    let base = report.base();
    let text = &report.text.text;
    let src = &text[base..];
    let range = |span: std::ops::Range<usize>| report.text.index.range(text, span.start + base..span.end + base, snap.encoding);

    let headings: Vec<Heading> = scan(src).headings;
    let n = headings.len();
    // A section runs to the next heading of the same or a higher level.
    let ends: Vec<usize> =
        (0..n).map(|i| headings[i + 1..].iter().find(|h| h.level <= headings[i].level).map_or(src.len(), |h| h.start)).collect();
    // Its parent is the nearest earlier heading of a higher level.
    let parent: Vec<Option<usize>> = (0..n).map(|i| (0..i).rev().find(|&j| headings[j].level < headings[i].level)).collect();
    let mut children: Vec<Vec<DocumentSymbol>> = vec![Vec::new(); n];
    let mut top: Vec<DocumentSymbol> = Vec::new();

    for a in &report.analysis.anchors {
        let start = a.anchor.link.span.start;
        let symbol = anchor_symbol(a, range(a.anchor.link.span.clone()));
        match (0..n).rev().find(|&i| headings[i].start <= start && start < ends[i]) {
            Some(i) => children[i].push(symbol),
            None => top.push(symbol),
        }
    }
    for i in (0..n).rev() {
        let h = &headings[i];
        let line_end = src[h.start..].find('\n').map_or(src.len(), |p| h.start + p);
        let mut kids = std::mem::take(&mut children[i]);
        sort(&mut kids);
        #[allow(deprecated)] // `deprecated` is a required field of the type
        let symbol = DocumentSymbol {
            name: if h.text.trim().is_empty() { format!("H{}", h.level) } else { h.text.trim().to_string() },
            detail: None,
            kind: SymbolKind::STRING,
            tags: None,
            deprecated: None,
            range: range(h.start..ends[i].max(line_end)),
            selection_range: range(h.start..line_end),
            children: Some(kids),
        };
        match parent[i] {
            Some(p) => children[p].push(symbol),
            None => top.push(symbol),
        }
    }
    sort(&mut top);
    Some(DocumentSymbolResponse::Nested(top))
}

fn sort(symbols: &mut [DocumentSymbol]) {
    symbols.sort_by_key(|s| (s.range.start.line, s.range.start.character));
}

fn anchor_symbol(a: &AnchorResult, range: Range) -> DocumentSymbol {
    let text = a.anchor.link.text.trim();
    let name = if text.is_empty() { a.anchor.link.dest_raw.clone() } else { text.to_string() };
    #[allow(deprecated)] // `deprecated` is a required field of the type
    DocumentSymbol {
        name,
        detail: Some(format!("{} · {}", a.verdict.state.as_str(), a.anchor.link.dest_raw)),
        kind: anchor_symbol_kind(a),
        tags: None,
        deprecated: None,
        range,
        selection_range: range,
        children: None,
    }
}
