//! `textDocument/completion` inside a Markdown link destination: workspace paths
//! (relative to the doc, or root-relative after a leading `/`), then, after `#`, the
//! declarations of that file (exact fragments, kind prefixes and `~N` where needed) or
//! the headings of a Markdown file. An accepted symbol completion is born recorded: its
//! edit writes the `"knit:<baseline>"` title computed from what the fragment resolves to
//! now.

use crate::analysis::strip_bom;
use crate::document::FileKind;
use crate::position::byte_in_line;
use crate::snapshot::{Located, Snapshot};
use knit_anchors::markdown::{DocLink, LinkForm};
use knit_anchors::target::{classify, join, relative_dest};
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
            let range = lsp_range(snap, &loc, ls, frag_start, tail);
            symbol_items(snap, &loc, path_part, frag, range, !has_title)
        }
        None => {
            let range = lsp_range(snap, &loc, ls, ctx.start, tail);
            path_items(&loc, partial, range)
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

fn path_items(loc: &Located, partial: &str, range: Range) -> Vec<CompletionItem> {
    let rooted = partial.starts_with('/');
    let lower = partial.to_lowercase();
    let files = loc.folder.overlay.files();
    let mut items = Vec::new();
    for f in files.iter() {
        if *f == loc.rel {
            continue;
        }
        let dest = if rooted { format!("/{}", knit_anchors::target::encode_path(f)) } else { relative_dest(&loc.rel, f) };
        if !dest.to_lowercase().starts_with(&lower) {
            continue;
        }
        let kind = match FileKind::of(f, None) {
            FileKind::Code(_) => CompletionItemKind::FILE,
            FileKind::Markdown => CompletionItemKind::REFERENCE,
            FileKind::Other => CompletionItemKind::FILE,
        };
        items.push(CompletionItem {
            label: dest.clone(),
            kind: Some(kind),
            detail: Some(f.clone()),
            filter_text: Some(dest.clone()),
            sort_text: Some(format!("{}{dest}", if matches!(FileKind::of(f, None), FileKind::Other) { 1 } else { 0 })),
            text_edit: Some(CompletionTextEdit::Edit(TextEdit { range, new_text: dest })),
            ..Default::default()
        });
        if items.len() >= MAX_ITEMS {
            break;
        }
    }
    items
}

fn symbol_items(snap: &Snapshot, loc: &Located, path_part: &str, _frag: &str, range: Range, add_title: bool) -> Vec<CompletionItem> {
    let decoded = percent_decode_str(path_part).decode_utf8_lossy().to_string();
    let Some(path) = join(&loc.rel, &decoded) else { return Vec::new() };
    let mut session = loc.folder.session();
    let mut items = Vec::new();
    let born = |session: &mut Session, frag: &str| -> Option<String> {
        if !add_title {
            return None;
        }
        let probe = probe_anchor(&loc.rel, &format!("{path_part}#{frag}"))?;
        let (b, _) = session.baseline_now(&probe).ok()?;
        Some(format!("{frag} \"knit:{}\"", b.encode()))
    };
    if FileKind::of(&path, None) == FileKind::Markdown {
        let Ok(text) = loc.folder.overlay.read(&path, loc.folder.folder.check.max_file_bytes) else { return Vec::new() };
        for h in knit_anchors::markdown::scan(strip_bom(&text)).headings {
            let new_text = born(&mut session, &h.slug).unwrap_or_else(|| h.slug.clone());
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
    for (i, d) in syn.declarations.iter().enumerate().take(MAX_ITEMS) {
        let frag = exact_fragment(&syn.declarations, i);
        let new_text = born(&mut session, &frag).unwrap_or_else(|| frag.clone());
        items.push(CompletionItem {
            label: frag.clone(),
            kind: Some(symbol_kind(&d.kind)),
            detail: Some(format!("{} · {}:{}", d.kind, path, d.name_line)),
            documentation: Some(tower_lsp_server::ls_types::Documentation::MarkupContent(tower_lsp_server::ls_types::MarkupContent {
                kind: tower_lsp_server::ls_types::MarkupKind::Markdown,
                value: format!("```{}\n{}\n```", super::util::fence_lang(&path), d.signature),
            })),
            filter_text: Some(frag.clone()),
            sort_text: Some(format!("{:05}", i)),
            text_edit: Some(CompletionTextEdit::Edit(TextEdit { range, new_text })),
            ..Default::default()
        });
    }
    let _ = snap;
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
