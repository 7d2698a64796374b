//! `textDocument/completion` inside a Markdown link destination: workspace paths
//! (relative to the doc, or root-relative after a leading `/`), then, after `#`, the
//! declarations of that file (exact fragments, kind prefixes and `~N` where needed) or
//! the headings of a Markdown file. An accepted symbol completion is born recorded: its
//! edit writes the `"knit:<baseline>"` title computed from what the fragment resolves to
//! now.
//!
//! Every item replaces only the segment being typed — the path segment after the last
//! `/`, the member after the last `.` of a fragment — and its filter text is that segment.
//! Clients that insert at their own word start (Neovim 0.7's omnifunc, where `/`, `.` and
//! `#` end a word) then insert exactly what a client honouring the edit range would.
//! Paths come one folder level at a time, folders with a trailing `/`: files the doc
//! already anchors first, then files open in the editor (most recent first), then by name.

use crate::analysis::strip_bom;
use crate::document::FileKind;
use crate::position::byte_in_line;
use crate::snapshot::{Located, Snapshot};
use knit_anchors::markdown::{DocLink, LinkForm};
use knit_anchors::target::{classify, join};
use knit_anchors::{Anchor, Session, SourceTree};
use knit_syntax::fragment::exact_fragment;
use percent_encoding::percent_decode_str;
use tower_lsp_server::ls_types::{
    CompletionItem, CompletionItemKind, CompletionList, CompletionResponse, CompletionTextEdit, Position, Range, TextEdit,
    Uri,
};

const MAX_ITEMS: usize = 300;

pub fn completion(snap: &Snapshot, uri: &Uri, pos: Position) -> Option<CompletionResponse> {
    let loc = snap.file(uri)?;
    if loc.kind != FileKind::Markdown {
        return None;
    }
    let text = &loc.text.text;
    let ix = &loc.text.index;
    let (ls, le) = ix.line_span(text, pos.line as usize);
    let line = &text[ls..le];
    let cursor = byte_in_line(line, pos.character, snap.encoding);
    let ctx = dest_context(line, cursor)?;
    let partial = &line[ctx.start..cursor];
    // The destination token continues after the cursor up to `)`, a space or a quote.
    let tail = line[cursor..].find(|c: char| c == ')' || c.is_whitespace() || c == '"' || c == '>').map_or(line.len(), |i| cursor + i);
    let has_title = {
        let rest = line[tail..].trim_start();
        rest.starts_with('"') || rest.starts_with('\'') || (rest.starts_with('(') && ctx.reference)
    };
    let items = match partial.split_once('#') {
        Some((path_part, frag)) => {
            let frag_start = ctx.start + path_part.len() + 1;
            // the member being typed: after the fragment's last `.`
            let member_start = frag_start + frag.rfind('.').map_or(0, |i| i + 1);
            let range = lsp_range(snap, &loc, ls, member_start, tail);
            symbol_items(&loc, path_part, frag, range, !has_title)
        }
        None => {
            // the path segment being typed: after the last `/`, up to the next `/` or `#`
            let segment_start = ctx.start + partial.rfind('/').map_or(0, |i| i + 1);
            let segment_end = line[cursor..tail].find(['/', '#']).map_or(tail, |i| cursor + i);
            let range = lsp_range(snap, &loc, ls, segment_start, segment_end);
            // open buffers of this folder, most recently focused or edited first
            let recent: Vec<String> = snap
                .recency
                .iter()
                .filter_map(|u| snap.docs.get(u).and_then(|d| d.loc.as_ref()))
                .filter(|(fi, _)| *fi == loc.fi)
                .map(|(_, rel)| rel.clone())
                .collect();
            path_items(&loc, text, partial, range, &recent)
        }
    };
    let incomplete = items.len() >= MAX_ITEMS;
    Some(CompletionResponse::List(CompletionList { is_incomplete: incomplete, items }))
}

struct DestContext {
    /// Byte offset in the line where the destination starts.
    start: usize,
    reference: bool,
}

/// Is the cursor inside a link destination? `[text](dest…` or `[label]: dest…`.
fn dest_context(line: &str, cursor: usize) -> Option<DestContext> {
    let before = &line[..cursor];
    if let Some(open) = before.rfind("](") {
        let mut start = open + 2;
        let dest = &before[start..];
        if dest.starts_with('<') {
            start += 1;
        } else if dest.contains(char::is_whitespace) || dest.contains(')') {
            return None;
        }
        if !before[start..].contains('>') {
            return Some(DestContext { start, reference: false });
        }
    }
    let trimmed = before.trim_start();
    let indent = before.len() - trimmed.len();
    if indent <= 3 && trimmed.starts_with('[') {
        let close = trimmed.find("]:")?;
        let after = &trimmed[close + 2..];
        let lead = after.len() - after.trim_start().len();
        let mut start = indent + close + 2 + lead;
        if line[start..cursor].starts_with('<') {
            start += 1;
        }
        if line[start..cursor].contains(char::is_whitespace) {
            return None;
        }
        return Some(DestContext { start, reference: true });
    }
    None
}

fn lsp_range(snap: &Snapshot, loc: &Located, line_start: usize, a: usize, b: usize) -> Range {
    loc.text.index.range(&loc.text.text, line_start + a..line_start + b, snap.encoding)
}

/// One folder level of the workspace under what is typed: the entries of that folder
/// whose name starts with the typed segment (case ignored), folders as `name/`. Order:
/// what the doc already links to, then what is open in the editor (most recently
/// focused or edited first; `recent`), then by name.
fn path_items(loc: &Located, doc_text: &str, partial: &str, range: Range, recent: &[String]) -> Vec<CompletionItem> {
    let (dir_typed, segment) = partial.rsplit_once('/').map_or(("", partial), |(d, s)| (d, s));
    let rooted = partial.starts_with('/');
    // the workspace folder the typed directory names (`..` past the root: nothing)
    let dir = if dir_typed.is_empty() && !rooted {
        loc.rel.rsplit_once('/').map(|(d, _)| d.to_string()).unwrap_or_default()
    } else {
        let decoded = percent_decode_str(dir_typed).decode_utf8_lossy().to_string();
        // `join` resolves a file path: name a file `x` in the folder and drop it
        match join(&loc.rel, &format!("{decoded}/x")) {
            Some(p) => p.strip_suffix('x').unwrap_or("").trim_end_matches('/').to_string(),
            None => return Vec::new(),
        }
    };
    let prefix = if dir.is_empty() { String::new() } else { format!("{dir}/") };
    // files this doc already links to: their folders and names come first
    let linked: Vec<String> = knit_anchors::markdown::scan(strip_bom(doc_text))
        .links
        .iter()
        .filter_map(|l| join(&loc.rel, &percent_decode_str(l.dest_raw.split('#').next().unwrap_or("")).decode_utf8_lossy()))
        .collect();
    let lower = segment.to_lowercase();
    let mut entries: Vec<(String, bool, bool, usize)> = Vec::new(); // (name, is folder, linked, recency rank)
    for f in loc.folder.overlay.files().iter() {
        let Some(rest) = f.strip_prefix(&prefix) else { continue };
        if *f == loc.rel || rest.is_empty() {
            continue;
        }
        let (name, folder) = match rest.split_once('/') {
            Some((d, _)) => (format!("{d}/"), true),
            None => (rest.to_string(), false),
        };
        if !name.to_lowercase().starts_with(&lower) || entries.iter().any(|(n, ..)| *n == name) {
            continue;
        }
        let full = format!("{prefix}{}", name.trim_end_matches('/'));
        let under = |p: &String| *p == full || p.starts_with(&format!("{full}/"));
        let is_linked = linked.iter().any(under);
        let opened = recent.iter().position(under).unwrap_or(usize::MAX);
        entries.push((name, folder, is_linked, opened));
    }
    entries.sort_by(|a, b| b.2.cmp(&a.2).then(a.3.cmp(&b.3)).then(a.0.to_lowercase().cmp(&b.0.to_lowercase())));
    entries
        .into_iter()
        .take(MAX_ITEMS)
        .enumerate()
        .map(|(rank, (name, folder, ..))| {
            let full = format!("{prefix}{}", name.trim_end_matches('/'));
            let kind = if folder {
                CompletionItemKind::FOLDER
            } else {
                match FileKind::of(&full, None) {
                    FileKind::Markdown => CompletionItemKind::REFERENCE,
                    _ => CompletionItemKind::FILE,
                }
            };
            let insert = knit_anchors::target::encode_path(&name);
            CompletionItem {
                label: name.clone(),
                kind: Some(kind),
                detail: Some(full),
                filter_text: Some(insert.clone()),
                sort_text: Some(format!("{rank:05}")),
                text_edit: Some(CompletionTextEdit::Edit(TextEdit { range, new_text: insert })),
                // a folder opens the next level at once (clients that know the command)
                command: folder.then(|| tower_lsp_server::ls_types::Command { title: "next level".into(), command: "editor.action.triggerSuggest".into(), arguments: None }),
                ..Default::default()
            }
        })
        .collect()
}

fn symbol_items(loc: &Located, path_part: &str, typed: &str, range: Range, add_title: bool) -> Vec<CompletionItem> {
    let decoded = percent_decode_str(path_part).decode_utf8_lossy().to_string();
    let Some(path) = join(&loc.rel, &decoded) else { return Vec::new() };
    let mut session = loc.folder.session();
    // A docs-site route (`/guide/ui#`): the headings of the page the site serves for it.
    let path = match knit_anchors::target::is_page_route(&decoded) {
        true => match session.resolve_route(&loc.rel, path_part, &path, decoded.starts_with('/')) {
            Some(page) => page,
            None => return Vec::new(),
        },
        false => path,
    };
    let mut items = Vec::new();
    let born = |session: &mut Session, frag: &str, insert: &str| -> String {
        if !add_title {
            return insert.to_string();
        }
        let Some(probe) = probe_anchor(&loc.rel, &format!("{path_part}#{frag}")) else { return insert.to_string() };
        match session.baseline_now(&probe) {
            Ok((b, _)) => format!("{insert} \"knit:{}\"", b.encode()),
            Err(_) => insert.to_string(),
        }
    };
    if FileKind::of(&path, None) == FileKind::Markdown {
        let Ok(text) = loc.folder.overlay.read(&path, loc.folder.folder.check.max_file_bytes) else { return Vec::new() };
        for h in knit_anchors::markdown::scan(strip_bom(&text)).headings {
            let new_text = born(&mut session, &h.slug, &h.slug);
            items.push(CompletionItem {
                label: h.slug.clone(),
                kind: Some(CompletionItemKind::REFERENCE),
                detail: Some(format!("{} {}", "#".repeat(h.level as usize), h.text)),
                filter_text: Some(h.slug.clone()),
                text_edit: Some(CompletionTextEdit::Edit(TextEdit { range, new_text })),
                ..Default::default()
            });
        }
        return items;
    }
    let Some(syn) = session.declarations(&path) else { return Vec::new() };
    // What is typed before the member: `Cart.` keeps Cart's members, and each item inserts
    // only the rest of its fragment (the range starts after that last `.`).
    let container = typed.rfind('.').map(|i| &typed[..=i]).unwrap_or("");
    for (i, d) in syn.declarations.iter().enumerate() {
        if items.len() >= MAX_ITEMS {
            break;
        }
        let frag = exact_fragment(&syn, i);
        let Some(rest) = frag.strip_prefix(container) else { continue };
        if rest.is_empty() {
            continue;
        }
        let new_text = born(&mut session, &frag, rest);
        items.push(CompletionItem {
            label: frag.clone(),
            kind: Some(symbol_kind(&d.kind)),
            detail: Some(format!("{} · {}:{}", d.kind, path, d.name_line)),
            documentation: Some(tower_lsp_server::ls_types::Documentation::MarkupContent(tower_lsp_server::ls_types::MarkupContent {
                kind: tower_lsp_server::ls_types::MarkupKind::Markdown,
                value: format!("```{}\n{}\n```", super::util::fence_lang(&path), d.signature),
            })),
            filter_text: Some(rest.to_string()),
            sort_text: Some(format!("{:05}", i)),
            text_edit: Some(CompletionTextEdit::Edit(TextEdit { range, new_text })),
            ..Default::default()
        });
    }
    items
}

/// An anchor as if `dest` were written in `doc` (for baselines of completions).
pub fn probe_anchor(doc: &str, dest: &str) -> Option<Anchor> {
    let target = classify(doc, dest).ok().flatten()?;
    let link = DocLink {
        form: LinkForm::Inline,
        line: 1,
        ordinal: 1,
        span: 0..0,
        text: String::new(),
        text_span: 0..0,
        dest_raw: dest.to_string(),
        dest_span: 0..0,
        title: None,
        title_span: None,
    };
    Some(Anchor { id: String::new(), doc: doc.to_string(), link, target: Ok(target), baseline_raw: None, baseline: None })
}

/// The completion icon of a declaration kind (the languages' own kind names). LSP has no
/// kind for a type alias: it shows as an interface, never as a type *parameter*, which is
/// what it is not.
fn symbol_kind(kind: &str) -> CompletionItemKind {
    match kind {
        "function" | "macro" => CompletionItemKind::FUNCTION,
        "method" | "get" | "set" | "subscript" => CompletionItemKind::METHOD,
        "class" | "actor" | "object" => CompletionItemKind::CLASS,
        "interface" | "protocol" | "trait" | "type" | "typealias" => CompletionItemKind::INTERFACE,
        "enum" => CompletionItemKind::ENUM,
        "case" | "variant" | "member" | "entry" => CompletionItemKind::ENUM_MEMBER,
        "struct" => CompletionItemKind::STRUCT,
        "property" => CompletionItemKind::PROPERTY,
        "field" | "key" => CompletionItemKind::FIELD,
        "variable" | "const" | "let" | "static" => CompletionItemKind::VARIABLE,
        "init" | "constructor" | "deinit" => CompletionItemKind::CONSTRUCTOR,
        "module" | "namespace" | "extension" | "impl" => CompletionItemKind::MODULE,
        _ => CompletionItemKind::REFERENCE,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn types_are_never_type_parameters() {
        for kind in ["interface", "type", "typealias", "protocol", "trait"] {
            assert_eq!(symbol_kind(kind), CompletionItemKind::INTERFACE, "{kind}");
        }
        assert_eq!(symbol_kind("case"), CompletionItemKind::ENUM_MEMBER);
        assert_eq!(symbol_kind("constructor"), CompletionItemKind::CONSTRUCTOR);
        assert_eq!(symbol_kind("field"), CompletionItemKind::FIELD);
    }
}
