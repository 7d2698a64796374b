//! `textDocument/codeLens` in a code file: on every declaration some doc anchors, a
//! lens listing the doc lines that describe it. The lens command is
//! `knit.showReferences [uri, position, locations]` (the shape of VS Code's
//! `editor.action.showReferences`, for clients to map onto their references view).
//! With `codeLens.undocumented` on, a public declaration no doc anchors gets a
//! "not documented" lens (the same rule as `knit coverage`).

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
    let described: std::collections::HashSet<(u32, u32)> = groups.keys().map(|(l, c, _)| (*l, *c)).collect();
    let mut lenses: Vec<CodeLens> = groups
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
    if snap.settings.undocumented_lens {
        // Through the folder's session: its parse cache already holds this text's
        // declarations (lenses are asked for on every edit and scroll).
        let syntax = loc.folder.session().declarations(&loc.rel);
        if let Some(syntax) = syntax {
            lenses.extend(undocumented(&loc.rel, text, ix, snap, &syntax, &described));
        }
    }
    Some(lenses)
}

/// "not documented" lenses: public declarations (knit_syntax::visibility) of the file
/// that no anchor describes. Title only: there is nothing to run.
fn undocumented(
    rel: &str,
    text: &str,
    ix: &LineIndex,
    snap: &Snapshot,
    syntax: &knit_syntax::FileSyntax,
    described: &std::collections::HashSet<(u32, u32)>,
) -> Vec<CodeLens> {
    let Some(lang) = knit_syntax::Lang::from_path(rel) else { return Vec::new() };
    let source = text.strip_prefix('\u{feff}').unwrap_or(text);
    if syntax.timed_out || syntax.over_budget {
        return Vec::new();
    }
    let flags = knit_syntax::visibility::public_flags(lang, source, syntax);
    syntax
        .declarations
        .iter()
        .zip(flags)
        .filter(|(d, public)| *public && knit_syntax::visibility::is_listed_kind(&d.kind) && !described.contains(&(d.name_line, d.name_column)))
        .map(|(d, _)| {
            let pos = position_of_line_col(text, ix, d.name_line, d.name_column, snap.encoding);
            CodeLens {
                range: Range::new(pos, pos),
                command: Some(Command { title: format!("not documented: no doc anchors {}", d.qualified_name), command: String::new(), arguments: None }),
                data: None,
            }
        })
        .collect()
}
