//! `textDocument/references` in a code file: the doc links that describe the
//! declaration under the cursor (anchors that resolve to it now, moves and renames
//! followed), or the line-range anchors covering the cursor line. On a doc's heading: the
//! links of every doc to that section (`section_links`), and the heading itself when the
//! client asks for the declaration too.

use super::section_links::{heading_at, links_to_section};
use super::util::uri_for;
use crate::document::FileKind;
use crate::snapshot::{FolderSnap, Snapshot};
use knit_anchors::Now;
use tower_lsp_server::ls_types::{Location, Position, Uri};

/// One doc link that describes something in a code file.
pub struct Describer {
    pub now: Now,
    pub doc_rel: String,
    pub doc_line: u32,
    pub location: Location,
}

/// Every anchor of the folder that resolves into `rel`.
pub fn describers(snap: &Snapshot, folder: &FolderSnap, fi: usize, rel: &str) -> Vec<Describer> {
    let mut out = Vec::new();
    let mut docs: Vec<&String> = folder.reports.keys().collect();
    docs.sort();
    for doc in docs {
        let report = &folder.reports[doc];
        for a in &report.analysis.anchors {
            let Some(now) = a.verdict.now.as_ref().filter(|n| n.path == rel) else { continue };
            let Some(uri) = uri_for(snap, folder, fi, doc) else { continue };
            let base = report.base();
            let span = a.anchor.link.span.clone();
            let range = report.text.index.range(&report.text.text, span.start + base..span.end + base, snap.encoding);
            out.push(Describer { now: now.clone(), doc_rel: doc.clone(), doc_line: a.anchor.line(), location: Location::new(uri, range) });
        }
    }
    out
}

pub fn references(snap: &Snapshot, uri: &Uri, pos: Position, with_heading: bool) -> Option<Vec<Location>> {
    let loc = snap.file(uri)?;
    if loc.kind == FileKind::Markdown {
        let report = snap.doc_report(&loc);
        let Some(h) = heading_at(&report, pos) else { return Some(Vec::new()) };
        let mut out = Vec::new();
        if with_heading {
            let start = report.base() + h.start;
            let end = report.text.text[start..].find('\n').map_or(report.text.text.len(), |p| start + p);
            out.push(Location::new(uri.clone(), report.text.index.range(&report.text.text, start..end, snap.encoding)));
        }
        for l in links_to_section(loc.folder, &loc.rel, &report, &h.slug) {
            let Some(doc_uri) = uri_for(snap, loc.folder, loc.fi, &l.doc) else { continue };
            let base = l.report.base();
            out.push(Location::new(doc_uri, l.range(l.link.span.start + base..l.link.span.end + base, snap)));
        }
        return Some(out);
    }
    let line1 = pos.line + 1;
    let all = describers(snap, loc.folder, loc.fi, &loc.rel);
    if all.is_empty() {
        return Some(Vec::new());
    }
    // The innermost declaration containing the cursor line.
    let decl = loc.folder.session().declarations(&loc.rel).and_then(|syn| {
        syn.declarations
            .iter()
            .filter(|d| d.start_line <= line1 && line1 <= d.end_line)
            .min_by_key(|d| d.end_line - d.start_line)
            .map(|d| d.qualified_name.clone())
    });
    let hits = all
        .into_iter()
        .filter(|d| match (&d.now.lines, &d.now.symbol) {
            (Some([s, e]), _) => *s <= line1 && line1 <= *e,
            (None, Some(sym)) => decl.as_deref() == Some(sym.as_str()),
            _ => false,
        })
        .map(|d| d.location)
        .collect();
    Some(hits)
}
