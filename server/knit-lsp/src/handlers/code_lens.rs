//! `textDocument/codeLens` in a code file: on every declaration some doc anchors, a
//! lens listing the doc lines that describe it. The lens command is
//! `knit.showReferences [uri, position, locations]` (the shape of VS Code's
//! `editor.action.showReferences`, for clients to map onto their references view).

use super::references::describers;
use crate::commands;
use crate::position::{position_of_line_col, LineIndex};
use crate::snapshot::Snapshot;
use serde_json::json;
use std::collections::BTreeMap;
use tower_lsp_server::ls_types::{CodeLens, Command, Location, Range, Uri};

pub fn code_lens(snap: &Snapshot, uri: &Uri) -> Option<Vec<CodeLens>> {
    let loc = snap.file(uri)?;
    let text = &loc.text.text;
    let ix: &LineIndex = &loc.text.index;
    // (line, column, name) → describing links (doc, line, location)
    type Links = Vec<(String, u32, Location)>;
    let mut groups: BTreeMap<(u32, u32, String), Links> = BTreeMap::new();
    for d in describers(snap, loc.folder, loc.fi, &loc.rel) {
        let name = d.now.symbol.clone().unwrap_or_else(|| {
            let [s, e] = d.now.lines.unwrap_or([d.now.line, d.now.line]);
            format!("lines {s}-{e}")
        });
        groups.entry((d.now.line, d.now.column, name)).or_default().push((d.doc_rel, d.doc_line, d.location));
    }
    let lenses = groups
        .into_iter()
        .map(|((line, col, _name), links)| {
            let pos = position_of_line_col(text, ix, line, col, snap.encoding);
            let list: Vec<String> = links.iter().take(3).map(|(doc, l, _)| format!("{doc}:{l}")).collect();
            let more = if links.len() > 3 { format!(" +{}", links.len() - 3) } else { String::new() };
            let title = format!(
                "described by {} doc line{}: {}{more}",
                links.len(),
                if links.len() == 1 { "" } else { "s" },
                list.join(", ")
            );
            let locations: Vec<Location> = links.into_iter().map(|(_, _, l)| l).collect();
            CodeLens {
                range: Range::new(pos, pos),
                command: Some(Command {
                    title,
                    command: snap.command(commands::SHOW_REFERENCES),
                    arguments: Some(vec![json!(uri), json!(pos), json!(locations)]),
                }),
                data: None,
            }
        })
        .collect();
    Some(lenses)
}
