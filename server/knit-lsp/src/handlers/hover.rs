//! `textDocument/hover` on an anchor: its state in words, where the declaration is now
//! and what it is called, its current signature, what changed (stale containers name
//! their members) and the candidates of a lost anchor.

use super::util::{doc_at, fence_lang};
use crate::diagnostics::anchor_message;
use crate::snapshot::Snapshot;
use knit_anchors::{State, Target};
use std::fmt::Write;
use tower_lsp_server::ls_types::{Hover, HoverContents, MarkupContent, MarkupKind, Position, Uri};

pub fn hover(snap: &Snapshot, uri: &Uri, pos: Position) -> Option<Hover> {
    let at = doc_at(snap, uri, pos)?;
    let a = at.report.anchor_at(at.offset)?;
    let v = &a.verdict;
    let mut md = String::new();
    let _ = write!(md, "**knit** · `{}`", v.state.as_str());
    if v.state != State::Fresh {
        let _ = write!(md, " — {}", anchor_message(a));
    } else {
        md.push_str(" — matches the reviewed baseline");
    }
    md.push_str("\n\n");
    if let Some(now) = &v.now {
        let what = match (&now.symbol, now.lines) {
            (_, Some([s, e])) => format!("lines {s}-{e}"),
            (Some(s), _) => format!("`{s}`"),
            (None, _) => "the file".to_string(),
        };
        let kind = now.kind.as_deref().map(|k| format!(" ({k})")).unwrap_or_default();
        let _ = writeln!(md, "Now: {what}{kind} in `{}` line {}", now.path, now.line);
        if let Some(sig) = &now.signature {
            let _ = write!(md, "\n```{}\n{}\n```\n", fence_lang(&now.path), sig);
        }
    } else if let Ok(t) = &a.anchor.target {
        let _ = writeln!(md, "Target: `{}`", target_text(t));
    }
    if v.changed {
        md.push_str("\nThe declaration also changed since the doc was reviewed.\n");
    }
    if !v.members.is_empty() {
        md.push_str("\nChanged members:\n");
        for m in &v.members {
            let _ = writeln!(md, "- `{m}`");
        }
    }
    if !v.candidates.is_empty() {
        md.push_str("\nCandidates:\n");
        for c in &v.candidates {
            if c.symbol.is_empty() {
                let _ = writeln!(md, "- `{}`", c.path);
            } else {
                let _ = writeln!(md, "- `{}` in `{}` line {}", c.symbol, c.path, c.line);
            }
        }
    }
    match &a.anchor.baseline_raw {
        Some(b) => {
            let _ = write!(md, "\nBaseline `knit:{b}`");
        }
        None => md.push_str("\nNo baseline recorded yet."),
    }
    let base = at.report.base();
    let span = a.anchor.link.span.clone();
    let range = at.report.text.index.range(&at.report.text.text, span.start + base..span.end + base, snap.encoding);
    Some(Hover { contents: HoverContents::Markup(MarkupContent { kind: MarkupKind::Markdown, value: md }), range: Some(range) })
}

fn target_text(t: &Target) -> String {
    match t {
        Target::Symbol { path, fragment, .. } => format!("{path}#{fragment}"),
        Target::Lines { path, start, end } => format!("{path}#L{start}-L{end}"),
        Target::Doc { path, slug } => match slug {
            Some(s) => format!("{path}#{s}"),
            None => path.clone(),
        },
        Target::File { path } => path.clone(),
    }
}
