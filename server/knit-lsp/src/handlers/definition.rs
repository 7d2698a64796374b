//! `textDocument/definition` on an anchor: the declaration's current location, moves
//! and renames followed; on a DocC or TSDoc symbol link, what it names. A lost anchor has no definition; an anchor whose symbol is
//! unknown still leads to its file when that exists.

use super::util::{doc_at, now_location, uri_for};
use crate::snapshot::Snapshot;
use knit_anchors::SourceTree;
use tower_lsp_server::ls_types::{GotoDefinitionResponse, Location, Position, Range, Uri};

pub fn definition(snap: &Snapshot, uri: &Uri, pos: Position) -> Option<GotoDefinitionResponse> {
    let at = doc_at(snap, uri, pos)?;
    // A DocC or TSDoc symbol link: every declaration it names (overloads, extensions).
    if let Some(l) = at.report.symbol_link_at(at.offset) {
        let locations: Vec<Location> = l.targets.iter().filter_map(|now| now_location(snap, at.loc.folder, at.loc.fi, now)).collect();
        return match locations.len() {
            0 => None,
            1 => locations.into_iter().next().map(GotoDefinitionResponse::Scalar),
            _ => Some(GotoDefinitionResponse::Array(locations)),
        };
    }
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
