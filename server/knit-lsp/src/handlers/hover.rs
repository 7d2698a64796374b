//! `textDocument/hover` on an anchor: its state in words, where the declaration is now
//! and what it is called, its current signature, what changed (stale containers name
//! their members; stale, moved and renamed anchors say which commit holds the reviewed
//! version, the commits since that changed the declaration, and its diff, read from git
//! history within a short time bound) and the candidates of a lost anchor, each with
//! why it was offered and, when ranked by likeness, how alike it is.

use super::util::{doc_at, explain_since, fence_lang};
use crate::diagnostics::anchor_message;
use crate::snapshot::Snapshot;
use knit_anchors::engine::since::day;
use knit_anchors::{State, Target};
use std::fmt::Write;
use tower_lsp_server::ls_types::{Hover, HoverContents, MarkupContent, MarkupKind, Position, Uri};

pub fn hover(snap: &Snapshot, uri: &Uri, pos: Position) -> Option<Hover> {
    let at = doc_at(snap, uri, pos)?;
    if let Some(l) = at.report.symbol_link_at(at.offset) {
        return Some(symbol_link_hover(snap, &at, l));
    }
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
    if matches!(v.state, State::Stale | State::Moved | State::Renamed | State::MovedRenamed) {
        since_review(&at, a, &mut md);
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
                let _ = write!(md, "- `{}`", c.path);
            } else {
                let _ = write!(md, "- `{}` in `{}` line {}", c.symbol, c.path, c.line);
            }
            match (c.similarity, c.why.is_empty()) {
                (Some(p), false) => writeln!(md, " — {p}% alike: {}", c.why),
                (Some(p), true) => writeln!(md, " — {p}% alike"),
                (None, false) => writeln!(md, " — {}", c.why),
                (None, true) => writeln!(md),
            }
            .ok();
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
        Target::Doc { path, slug } | Target::Page { path, slug, .. } => match slug {
            Some(s) => format!("{path}#{s}"),
            None => path.clone(),
        },
        Target::File { path } => path.clone(),
    }
}

/// How long a hover may spend reading history (the rest of the hover does not wait longer).
const HISTORY_BUDGET: std::time::Duration = std::time::Duration::from_millis(400);

/// "Reviewed as of …", the commits since, and the declaration's diff.
fn since_review(at: &super::util::DocAt, a: &knit_anchors::AnchorResult, md: &mut String) {
    use knit_anchors::engine::since::{NoSince, MAX_DIFF_LINES};
    let s = match explain_since(at.loc.folder, a, HISTORY_BUDGET, 2000, MAX_DIFF_LINES) {
        Ok(s) => s,
        Err(NoSince::NotApplicable) => return,
        Err(why) => {
            // a hover reads history for a short time only; the check reads further
            let further = if why == NoSince::CutShort { "; `knit check --explain` reads further" } else { "" };
            let mut text = why.explanation().chars();
            let first = text.next().map(|c| c.to_uppercase().to_string()).unwrap_or_default();
            md.push_str(&format!("\n{first}{}{further}.\n", text.as_str()));
            return;
        }
    };
    let r = &s.reviewed_as_of;
    let _ = writeln!(md, "\nReviewed as of `{}` ({}, {})", r.commit, day(r.time), r.subject);
    if s.changed_by.is_empty() {
        md.push_str("\nNo commit changed it since: the change is not committed yet.\n");
    } else {
        md.push_str("\nChanged since by:\n");
        for c in &s.changed_by {
            let _ = writeln!(md, "- `{}` ({}) {}", c.commit, day(c.time), c.subject);
        }
    }
    let _ = write!(md, "\n```diff\n{}```\n", s.diff);
    if s.diff_truncated {
        let _ = writeln!(md, "(cut; the whole change: `git diff {}`)", r.commit);
    }
}

/// A DocC or TSDoc symbol link: what it names, or why nothing. It carries no baseline
/// (its syntax has no place for one), so it is never stale — said in the hover.
fn symbol_link_hover(snap: &Snapshot, at: &super::util::DocAt, l: &knit_anchors::engine::SymbolLinkResult) -> Hover {
    let syntax = match l.link.kind {
        knit_anchors::markdown::SymbolLinkKind::DocC => "DocC symbol link",
        knit_anchors::markdown::SymbolLinkKind::TsDoc => "TSDoc `{@link}`",
    };
    let mut md = format!("**knit** · {syntax} `{}`\n\n", l.link.target);
    if let Some(why) = &l.broken {
        let _ = writeln!(md, "{why}");
    } else if l.targets.is_empty() {
        md.push_str("Names nothing this workspace declares (the standard library or another package?): not checked.\n");
    }
    for now in l.targets.iter().take(5) {
        let kind = now.kind.as_deref().map(|k| format!(" ({k})")).unwrap_or_default();
        let _ = writeln!(md, "`{}`{kind} in `{}` line {}", now.symbol.as_deref().unwrap_or(""), now.path, now.line);
        if let Some(sig) = &now.signature {
            let _ = write!(md, "\n```{}\n{}\n```\n", fence_lang(&now.path), sig);
        }
    }
    if l.targets.len() > 5 {
        let _ = writeln!(md, "\n… and {} more", l.targets.len() - 5);
    }
    md.push_str("\nSymbol links have no baseline: knit checks where they point, never whether the prose is still true (use an anchor for that).");
    let base = at.report.base();
    let span = &l.link.span;
    let range = at.report.text.index.range(&at.report.text.text, span.start + base..span.end + base, snap.encoding);
    Hover { contents: HoverContents::Markup(MarkupContent { kind: MarkupKind::Markdown, value: md }), range: Some(range) }
}
