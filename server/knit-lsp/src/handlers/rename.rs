//! `textDocument/prepareRename` and `textDocument/rename` on a doc's heading: the heading
//! text changes, and every link in the workspace to its section (`guide.md#old-title`,
//! `#old-title` in the doc itself, anchors included) gets the new slug, in one workspace
//! edit. The new slug is the one the scan gives the renamed heading (duplicates
//! numbered as GitHub numbers them); a name whose slug another heading of the doc
//! already has is refused, as is a heading whose written text is not plain (markup,
//! setext underlines), which knit would not rewrite exactly.

use super::section_links::{heading_at, links_to_section};
use super::util::uri_for;
use crate::analysis::DocReport;
use crate::document::FileKind;
use crate::snapshot::Snapshot;
use knit_anchors::markdown::{scan, Heading};
use std::collections::HashMap;
use std::sync::Arc;
use tower_lsp_server::ls_types::{
    DocumentChanges, OneOf, OptionalVersionedTextDocumentIdentifier, Position, PrepareRenameResponse, Range, TextDocumentEdit,
    TextEdit, Uri, WorkspaceEdit,
};

/// A heading that can be renamed: its doc and report, the heading, the byte span of its text.
type Renamable<'s> = (crate::snapshot::Located<'s>, Arc<DocReport>, Heading, std::ops::Range<usize>);

/// The heading under the cursor and the byte span of its text in the doc (BOM included).
fn renamable<'s>(snap: &'s Snapshot, uri: &Uri, pos: Position) -> Result<Renamable<'s>, String> {
    let loc = snap.file(uri).ok_or("not a file of the workspace")?;
    if loc.kind != FileKind::Markdown {
        return Err("knit renames doc headings; rename code with its own language server".into());
    }
    let report = snap.doc_report(&loc);
    let h = heading_at(&report, pos).ok_or("no heading on this line")?;
    let base = report.base();
    let text = &report.text.text;
    let line_start = base + h.start;
    let line_end = text[line_start..].find('\n').map_or(text.len(), |p| line_start + p);
    let line = &text[line_start..line_end];
    // An ATX heading: `#`s, blanks, the text as written (optionally closing `#`s).
    let after_hashes = line.trim_start_matches('#');
    let lead = line.len() - after_hashes.len() + (after_hashes.len() - after_hashes.trim_start().len());
    let written = after_hashes.trim_start().trim_end().trim_end_matches('#').trim_end();
    if !line.starts_with('#') || written != h.text {
        return Err("this heading's text has markup or is not an ATX heading; rename it by hand".into());
    }
    let span = line_start + lead..line_start + lead + written.len();
    Ok((loc, report, h, span))
}

pub fn prepare_rename(snap: &Snapshot, uri: &Uri, pos: Position) -> Option<PrepareRenameResponse> {
    let (loc, _, h, span) = renamable(snap, uri, pos).ok()?;
    let range = loc.text.index.range(&loc.text.text, span, snap.encoding);
    Some(PrepareRenameResponse::RangeWithPlaceholder { range, placeholder: h.text })
}

pub fn rename(snap: &Snapshot, uri: &Uri, pos: Position, new_name: &str) -> Result<Option<WorkspaceEdit>, String> {
    let new_name = new_name.trim();
    if new_name.is_empty() || new_name.contains('\n') {
        return Err("a heading is one non-empty line".into());
    }
    let (loc, report, h, span) = renamable(snap, uri, pos)?;
    // The slug the renamed heading gets, read from the doc as it would be.
    let mut renamed = loc.text.text.to_string();
    renamed.replace_range(span.clone(), new_name);
    let base = if renamed.starts_with('\u{feff}') { '\u{feff}'.len_utf8() } else { 0 };
    let headings = scan(&renamed[base..]).headings;
    let new_slug = headings.iter().find(|n| n.line == h.line).map(|n| n.slug.clone()).ok_or("the new name does not make a heading")?;
    // Duplicate names are numbered in order (`other`, `other-1`): a name another heading
    // has would take its anchor or renumber it, and break the links to it.
    let before = scan(&loc.text.text[base..]).headings;
    let others_moved = before.iter().zip(&headings).any(|(b, a)| b.line != h.line && b.slug != a.slug);
    if others_moved || headings.iter().any(|n| n.line != h.line && n.slug == new_slug) {
        return Err(format!("another heading of this doc already has the anchor #{new_slug}"));
    }
    let mut edits: HashMap<Uri, (Option<i32>, Vec<TextEdit>)> = HashMap::new();
    let heading_range = loc.text.index.range(&loc.text.text, span, snap.encoding);
    edits.entry(uri.clone()).or_insert((loc.version, Vec::new())).1.push(TextEdit { range: heading_range, new_text: new_name.to_string() });
    if new_slug != h.slug {
        for l in links_to_section(loc.folder, &loc.rel, &report, &h.slug) {
            let (Some(doc_uri), Some(slug_span)) = (uri_for(snap, loc.folder, loc.fi, &l.doc), l.slug_span()) else { continue };
            let range: Range = l.range(slug_span, snap);
            let version = snap.docs.get(&doc_uri).map(|d| d.text.version);
            edits.entry(doc_uri).or_insert((version, Vec::new())).1.push(TextEdit { range, new_text: new_slug.clone() });
        }
    }
    Ok(Some(workspace_edit(snap, edits)))
}

fn workspace_edit(snap: &Snapshot, edits: HashMap<Uri, (Option<i32>, Vec<TextEdit>)>) -> WorkspaceEdit {
    let mut by_doc: Vec<(Uri, (Option<i32>, Vec<TextEdit>))> = edits.into_iter().collect();
    by_doc.sort_by(|a, b| a.0.as_str().cmp(b.0.as_str()));
    if snap.caps.document_changes {
        WorkspaceEdit {
            document_changes: Some(DocumentChanges::Edits(
                by_doc
                    .into_iter()
                    .map(|(uri, (version, edits))| TextDocumentEdit {
                        text_document: OptionalVersionedTextDocumentIdentifier { uri, version },
                        edits: edits.into_iter().map(OneOf::Left).collect(),
                    })
                    .collect(),
            )),
            ..Default::default()
        }
    } else {
        WorkspaceEdit { changes: Some(by_doc.into_iter().map(|(uri, (_, edits))| (uri, edits)).collect()), ..Default::default() }
    }
}
