//! Links to a doc's sections, across the workspace: what `textDocument/references` on a
//! heading lists and what renaming a heading rewrites. Every doc of the folder is read
//! as the snapshot holds it (open buffers as typed) with the one Markdown scan, and a
//! link counts when it designates that doc's section — `guide.md#install` from another
//! doc, `#install` within the doc itself, anchors (with a `knit:` baseline) as well as
//! plain links.

use crate::analysis::DocReport;
use crate::snapshot::{FolderSnap, Snapshot};
use knit_anchors::markdown::{scan, DocLink, Heading};
use knit_anchors::target::{classify, Target};
use std::sync::Arc;
use tower_lsp_server::ls_types::{Position, Range};

/// The heading on the cursor's line of a doc, if any.
pub fn heading_at(report: &DocReport, pos: Position) -> Option<Heading> {
    let src = &report.text.text[report.base()..];
    scan(src).headings.into_iter().find(|h| h.line == pos.line + 1)
}

/// One link to the section: the doc it is written in, the link, and that doc's report.
pub struct SectionLink {
    pub doc: String,
    pub report: Arc<DocReport>,
    pub link: DocLink,
}

impl SectionLink {
    /// The byte range of the destination's `#slug` part in the doc text (BOM included).
    pub fn slug_span(&self) -> Option<std::ops::Range<usize>> {
        let base = self.report.base();
        let text = &self.report.text.text[base..];
        let dest = text.get(self.link.dest_span.clone())?;
        let hash = dest.rfind('#')?;
        let end = if dest.ends_with('>') { dest.len() - 1 } else { dest.len() };
        (hash < end).then(|| base + self.link.dest_span.start + hash + 1..base + self.link.dest_span.start + end)
    }

    pub fn range(&self, span: std::ops::Range<usize>, snap: &Snapshot) -> Range {
        self.report.text.index.range(&self.report.text.text, span, snap.encoding)
    }
}

/// Every link of the folder's docs to section `slug` of doc `target`, whose report at the
/// text the request is about is `current` (it may be newer than the folder's, or not in
/// it yet: a doc created since the last scan).
pub fn links_to_section(folder: &FolderSnap, target: &str, current: &Arc<DocReport>, slug: &str) -> Vec<SectionLink> {
    let mut docs: Vec<&String> = folder.reports.keys().filter(|d| d.as_str() != target).collect();
    docs.sort();
    let reports = std::iter::once((target, current)).chain(docs.into_iter().map(|d| (d.as_str(), &folder.reports[d])));
    let mut out = Vec::new();
    for (doc, report) in reports {
        let src = &report.text.text[report.base()..];
        for link in scan(src).links {
            let dest = link.dest_raw.trim();
            let designated = match dest.strip_prefix('#') {
                Some(own) => doc == target && own == slug,
                None => matches!(classify(doc, dest), Ok(Some(Target::Doc { path, slug: Some(s) })) if path == target && s == slug),
            };
            if designated {
                out.push(SectionLink { doc: doc.to_string(), report: report.clone(), link });
            }
        }
    }
    out
}
