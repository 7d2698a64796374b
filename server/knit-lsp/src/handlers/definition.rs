//! `textDocument/definition` on an anchor: the declaration's current location, moves
//! and renames followed. A lost anchor has no definition; an anchor whose symbol is
//! unknown still leads to its file when that exists.

use super::util::{doc_at, now_location, uri_for};
use crate::snapshot::Snapshot;
use knit_anchors::SourceTree;
use tower_lsp_server::ls_types::{GotoDefinitionResponse, Location, Position, Range, Uri};

pub fn definition(snap: &Snapshot, uri: &Uri, pos: Position) -> Option<GotoDefinitionResponse> {
    let at = doc_at(snap, uri, pos)?;
    let a = at.report.anchor_at(at.offset)?;
    let folder = at.loc.folder;
    if let Some(now) = &a.verdict.now {
        return now_location(snap, folder, at.loc.fi, now).map(GotoDefinitionResponse::Scalar);
    }
    let path = a.target_path()?;
    if a.verdict.candidates.is_empty() && folder.overlay.exists(path) {
        let uri = uri_for(snap, folder, at.loc.fi, path)?;
        return Some(GotoDefinitionResponse::Scalar(Location::new(uri, Range::default())));
    }
    None
}
