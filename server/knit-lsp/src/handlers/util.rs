//! Helpers shared by handlers: finding the anchor under the cursor, converting the
//! core's byte-range edits into a `WorkspaceEdit`, and code locations.

use crate::analysis::DocReport;
use crate::diagnostics::CodeLines;
use crate::document::FileKind;
use crate::snapshot::{FolderSnap, Located, Snapshot};
use knit_anchors::{AnchorResult, Now, Target};
use std::collections::HashMap;
use std::sync::Arc;
use tower_lsp_server::ls_types::{
    DocumentChanges, Location, OneOf, OptionalVersionedTextDocumentIdentifier, Position, SymbolKind, TextDocumentEdit, TextEdit,
    Uri, WorkspaceEdit,
};

/// A Markdown file under a request, with its report and the byte offset of `pos`.
pub struct DocAt<'s> {
    pub loc: Located<'s>,
    pub report: Arc<DocReport>,
    pub offset: usize,
}

pub fn doc_at<'s>(snap: &'s Snapshot, uri: &Uri, pos: Position) -> Option<DocAt<'s>> {
    let loc = snap.file(uri)?;
    if loc.kind != FileKind::Markdown {
        return None;
    }
    let offset = loc.text.index.offset(&loc.text.text, pos, snap.encoding);
    let report = snap.doc_report(&loc);
    Some(DocAt { loc, report, offset })
}

/// Core edits (byte ranges of the BOM-less doc) → LSP edits of the buffer.
pub fn lsp_edits(snap: &Snapshot, report: &DocReport, edits: &[knit_anchors::TextEdit]) -> Vec<TextEdit> {
    let base = report.base();
    let text = &report.text.text;
    edits
        .iter()
        .map(|e| TextEdit {
            range: report.text.index.range(text, e.range.start + base..e.range.end + base, snap.encoding),
            new_text: e.new_text.clone(),
        })
        .collect()
}

/// A workspace edit of one document, versioned when the client supports it (so an edit
/// computed for an older text is refused rather than misapplied).
pub fn workspace_edit(snap: &Snapshot, uri: &Uri, version: Option<i32>, edits: Vec<TextEdit>) -> WorkspaceEdit {
    if snap.caps.document_changes {
        WorkspaceEdit {
            document_changes: Some(DocumentChanges::Edits(vec![TextDocumentEdit {
                text_document: OptionalVersionedTextDocumentIdentifier { uri: uri.clone(), version },
                edits: edits.into_iter().map(OneOf::Left).collect(),
            }])),
            ..Default::default()
        }
    } else {
        let mut changes = HashMap::new();
        changes.insert(uri.clone(), edits);
        WorkspaceEdit { changes: Some(changes), ..Default::default() }
    }
}

/// The URI to use for a workspace path: the open buffer's own URI when open.
pub fn uri_for(snap: &Snapshot, folder: &FolderSnap, fi: usize, rel: &str) -> Option<Uri> {
    snap.docs
        .values()
        .find(|d| d.loc.as_ref().is_some_and(|(i, r)| *i == fi && r == rel))
        .map(|d| d.uri.clone())
        .or_else(|| folder.folder.uri_of(rel))
}

/// Where a declaration (or line range, or doc section) is now.
pub fn now_location(snap: &Snapshot, folder: &FolderSnap, fi: usize, now: &Now) -> Option<Location> {
    let uri = uri_for(snap, folder, fi, &now.path)?;
    let mut lines = CodeLines::new(&*folder.overlay, folder.folder.check.max_file_bytes);
    Some(Location::new(uri, lines.now_range(now, snap.encoding)))
}

/// Fence language of a code file, for hovers.
pub fn fence_lang(path: &str) -> &'static str {
    match path.rsplit('.').next().unwrap_or("") {
        "ts" | "mts" | "cts" => "typescript",
        "tsx" => "tsx",
        "js" | "mjs" | "cjs" => "javascript",
        "jsx" => "jsx",
        "swift" => "swift",
        "rs" => "rust",
        "py" => "python",
        "go" => "go",
        "kt" | "kts" => "kotlin",
        "md" | "markdown" => "markdown",
        _ => "",
    }
}

/// What the anchor points at, as a symbol kind: the declaration's kind where it resolved.
pub fn anchor_symbol_kind(a: &AnchorResult) -> SymbolKind {
    match &a.anchor.target {
        Ok(Target::Lines { .. }) => SymbolKind::NUMBER,
        Ok(Target::Doc { .. }) => SymbolKind::STRING,
        Ok(Target::File { .. } | Target::Page { .. }) => SymbolKind::FILE,
        Ok(Target::Symbol { .. }) => match a.verdict.now.as_ref().and_then(|n| n.kind.as_deref()) {
            Some(kind) => declaration_symbol_kind(kind),
            None => SymbolKind::KEY,
        },
        Err(_) => SymbolKind::KEY,
    }
}

/// A declaration's exact kind (`function`, `class`, …) as an LSP symbol kind.
pub fn declaration_symbol_kind(kind: &str) -> SymbolKind {
    match kind {
        "function" | "macro" => SymbolKind::FUNCTION,
        "method" | "get" | "set" | "subscript" | "init" => SymbolKind::METHOD,
        "class" | "actor" | "object" => SymbolKind::CLASS,
        "interface" | "protocol" | "trait" | "type" | "typealias" => SymbolKind::INTERFACE,
        "enum" => SymbolKind::ENUM,
        "case" | "variant" | "member" | "entry" => SymbolKind::ENUM_MEMBER,
        "struct" => SymbolKind::STRUCT,
        "property" | "field" => SymbolKind::PROPERTY,
        "const" | "constant" => SymbolKind::CONSTANT,
        "module" | "namespace" | "mod" | "extension" | "impl" => SymbolKind::NAMESPACE,
        _ => SymbolKind::VARIABLE,
    }
}

/// What changed since `a` was reviewed, reading the folder's git history for at most
/// `budget` and `max_commits` commits (see `knit_anchors::engine::since::explain`).
pub fn explain_since(
    folder: &crate::snapshot::FolderSnap,
    a: &knit_anchors::AnchorResult,
    budget: std::time::Duration,
    max_commits: usize,
    max_diff_lines: usize,
) -> Result<knit_anchors::SinceReview, knit_anchors::engine::since::NoSince> {
    let limits = knit_workspace::VersionLimits {
        max_commits,
        max_versions: 200,
        max_bytes: folder.folder.check.max_file_bytes,
        deadline: std::time::Instant::now() + budget,
    };
    let root = folder.folder.canonical.clone();
    let mut history = |path: &str| knit_workspace::file_history(&root, path, limits);
    let mut session = folder.session();
    knit_anchors::engine::since::explain(&mut session, &a.anchor, &a.verdict, &mut history, max_diff_lines)
}

/// Where rebinding `a` to the candidate `c` points it: a declaration by its exact
/// fragment, or (no symbol) the same fragment in another file.
pub fn now_of_candidate(a: &knit_anchors::Anchor, c: &knit_anchors::Candidate) -> Now {
    let fragment = if c.symbol.is_empty() {
        match &a.target {
            Ok(Target::Symbol { fragment, .. }) => Some(fragment.to_string()),
            _ => None,
        }
    } else {
        Some(c.symbol.clone())
    };
    Now {
        path: c.path.clone(),
        symbol: (!c.symbol.is_empty()).then(|| c.symbol.clone()),
        fragment,
        kind: None,
        line: c.line,
        end_line: None,
        lines: None,
        signature: None,
        column: 0,
    }
}

/// The `[uri, position, …]` arguments of a command about a place in a doc; `usage` is the
/// error when they are missing or malformed.
pub fn uri_and_position(args: &[serde_json::Value], usage: &str) -> tower_lsp_server::jsonrpc::Result<(Uri, Position)> {
    let bad = || tower_lsp_server::jsonrpc::Error::invalid_params(usage.to_string());
    let uri: Uri = args.first().and_then(serde_json::Value::as_str).and_then(|s| s.parse().ok()).ok_or_else(bad)?;
    let pos: Position = args.get(1).cloned().and_then(|v| serde_json::from_value(v).ok()).ok_or_else(bad)?;
    Ok((uri, pos))
}
