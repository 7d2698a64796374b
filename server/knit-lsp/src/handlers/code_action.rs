//! `textDocument/codeAction` on a doc: plain `WorkspaceEdit`s built with the core's
//! `edit` functions — record, confirm, rebind (to the new location, or to a candidate),
//! update line numbers, remove the anchor, convert a `path:12-40` mention. Each action
//! re-hashes what the destination resolves to *now*, so applying it clears the
//! diagnostic on the next publish. Stale, moved and renamed declarations also get "Show
//! changes since review", a command whose diff the client opens. Inline code that names
//! exactly one declaration or file converts into an anchor (one, or all of the file's). A
//! broken link with one likely destination is pointed at it.

use super::util::{lsp_edits, now_of_candidate, workspace_edit};
use crate::analysis::{strip_bom, AnchorResult};
use crate::commands;
use crate::document::FileKind;
use crate::snapshot::Snapshot;
use knit_anchors::edit::{confirm_anchor, convert_mention, convert_suggestion, rebind_to, record, remove_anchor, set_baseline, update_lines};
use knit_anchors::{Session, State, Target};
use tower_lsp_server::ls_types::{
    CodeAction, CodeActionKind, CodeActionOrCommand, CodeActionParams, CodeActionResponse, CodeActionTriggerKind, Command, Diagnostic,
    NumberOrString,
};
use serde_json::json;

pub fn code_actions(snap: &Snapshot, p: &CodeActionParams) -> Option<CodeActionResponse> {
    let uri = &p.text_document.uri;
    let loc = snap.file(uri)?;
    if loc.kind != FileKind::Markdown {
        return None;
    }
    let report = snap.doc_report(&loc);
    let text = &loc.text.text;
    let ix = &loc.text.index;
    let base = report.base();
    let lo = ix.offset(text, p.range.start, snap.encoding);
    let hi = ix.offset(text, p.range.end, snap.encoding).max(lo);
    let src = strip_bom(text);
    let mut session = loc.folder.session();
    let mut out: Vec<CodeAction> = Vec::new();
    let touches = |span: &std::ops::Range<usize>| span.start + base <= hi && span.end + base >= lo;
    let diags_for = |id: &str| -> Vec<Diagnostic> {
        p.context
            .diagnostics
            .iter()
            .filter(|d| d.data.as_ref().and_then(|v| v.get("anchorId")).and_then(|v| v.as_str()) == Some(id))
            .cloned()
            .collect()
    };
    // The client's diagnostics of `code` on a doc line (1-based), which a quick fix clears.
    let diags_on_line = |code: &str, line: u32| -> Vec<Diagnostic> {
        let code = NumberOrString::String(code.to_string());
        p.context.diagnostics.iter().filter(|d| d.code.as_ref() == Some(&code) && d.range.start.line + 1 == line).cloned().collect()
    };
    let mut action = |title: String, kind: CodeActionKind, preferred: bool, edits: &[knit_anchors::TextEdit], diags: Vec<Diagnostic>| {
        if edits.is_empty() {
            return;
        }
        let edit = workspace_edit(snap, uri, loc.version, lsp_edits(snap, &report, edits));
        out.push(CodeAction {
            title,
            kind: Some(kind),
            diagnostics: (!diags.is_empty()).then_some(diags),
            edit: Some(edit),
            is_preferred: preferred.then_some(true),
            ..Default::default()
        });
    };
    let unrecorded = report.analysis.anchors.iter().filter(|a| a.verdict.state == State::Unrecorded).count();
    let touched: Vec<&AnchorResult> = report.analysis.anchors.iter().filter(|a| touches(&a.anchor.link.span)).collect();
    for a in &touched {
        let diags = diags_for(&a.anchor.id);
        anchor_actions(&mut session, a, src, unrecorded, &diags, &mut action, &report.rel);
    }
    // Before confirming a stale, moved or renamed declaration: what changed since review
    // (a command, the client opens the diff the server computes; see commands.rs).
    // And "Rebind to…" any declaration of the workspace, for an anchor that lost its
    // target or points elsewhere now. Both are commands whose result the client shows (a
    // diff, a picker): offered only to clients that say they do (`clientCommands`).
    let mut shows: Vec<CodeAction> = Vec::new();
    for a in &touched {
        let span = a.anchor.link.span.clone();
        let at = report.text.index.range(text, span.start + base..span.end + base, snap.encoding).start;
        let mut show = |title: String, id: &str| {
            if snap.settings.client_shows(id) {
                shows.push(CodeAction {
                    title,
                    kind: Some(CodeActionKind::QUICKFIX),
                    diagnostics: Some(diags_for(&a.anchor.id)).filter(|d| !d.is_empty()),
                    command: Some(Command { title: id.to_string(), command: snap.command(id), arguments: Some(vec![json!(uri.as_str()), json!(at)]) }),
                    ..Default::default()
                });
            }
        };
        if has_changes_since_review(a) {
            show(format!("Show changes since review of `{}`", a.anchor.link.dest_raw), commands::CHANGES_SINCE_REVIEW);
        }
        if matches!(a.anchor.target, Ok(Target::Symbol { .. })) && !matches!(a.verdict.state, State::Fresh | State::Unrecorded | State::Unchecked) {
            show(format!("Rebind `{}` to…", a.anchor.link.dest_raw), commands::REBIND_CANDIDATES);
        }
    }
    // After reading the whole doc against the code: one action confirms every anchor of the
    // file that a review can confirm (stale, moved, renamed), as record has for new ones.
    let reviewable: Vec<&AnchorResult> = report.analysis.anchors.iter().filter(|a| is_reviewable(a.verdict.state)).collect();
    if reviewable.len() > 1 && touched.iter().any(|a| is_reviewable(a.verdict.state)) {
        let mut edits = Vec::new();
        let mut confirmed = 0;
        for a in &reviewable {
            let (e, refused) = confirm_anchor(&mut session, &a.anchor);
            if refused.is_none() && !e.is_empty() {
                confirmed += 1;
                edits.extend(e);
            }
        }
        if confirmed > 1 {
            action(format!("Confirm reviewed: all {confirmed} stale, moved or renamed anchors in this file"), CodeActionKind::QUICKFIX, false, &edits, Vec::new());
        }
    }
    // Inline code naming exactly one declaration or file (`knit anchors suggest`): it
    // needs the repository-wide index, so only when asked for (not the lightbulb's
    // automatic requests on every cursor move) and when the range is on a code span.
    // With the `code-mention` diagnostic on, the doc's analysis already found them: each
    // is a quick fix of its diagnostic, on every request.
    let automatic = p.context.trigger_kind == Some(CodeActionTriggerKind::AUTOMATIC);
    let spans = if automatic || report.code_mentions.is_some() { Vec::new() } else { knit_anchors::markdown::scan(src).code_spans };
    let found = match &report.code_mentions {
        Some(found) if found.iter().any(|s| touches(&s.span)) => found.clone(),
        None if spans.iter().any(|c| touches(&c.span)) => session.suggest(&report.rel, src),
        _ => Vec::new(),
    };
    if !found.is_empty() {
        let convertible: Vec<(&knit_anchors::engine::Suggestion, knit_anchors::TextEdit)> =
            found.iter().filter_map(|s| convert_suggestion(&mut session, src, s).map(|e| (s, e))).collect();
        for (s, e) in convertible.iter().filter(|(s, _)| touches(&s.span)) {
            let dest = s.dest.as_deref().unwrap_or("");
            let diags = diags_on_line("code-mention", s.line);
            let kind = if diags.is_empty() { CodeActionKind::REFACTOR_REWRITE } else { CodeActionKind::QUICKFIX };
            action(format!("Convert `{}` to an anchor ({dest})", s.text), kind, !diags.is_empty(), std::slice::from_ref(e), diags);
        }
        if convertible.len() > 1 {
            let all: Vec<knit_anchors::TextEdit> = convertible.iter().map(|(_, e)| e.clone()).collect();
            action(format!("Convert all {} code mentions in this file to anchors", all.len()), CodeActionKind::REFACTOR_REWRITE, false, &all, Vec::new());
        }
    }
    for m in report.analysis.mentions.iter().filter(|m| touches(&m.mention.span)) {
        if let Some(e) = convert_mention(&mut session, &report.rel, src, &m.mention) {
            let diags = diags_on_line("mention", m.mention.line);
            action(format!("Convert `{}` to an anchor ({})", m.report.text, m.report.suggestion), CodeActionKind::QUICKFIX, true, &[e], diags);
        }
    }
    // A broken link whose intended destination is plain (a section id that differs in
    // case or qualification, a moved file, a web address without its scheme): one edit
    // writes it.
    for b in report.analysis.broken.iter().filter(|b| touches(&b.link.link.span)) {
        let (Some(suggestion), span) = (&b.suggestion, &b.link.link.dest_span) else { continue };
        if span.start >= span.end {
            continue;
        }
        let diags = diags_on_line("broken-link", b.link.link.line);
        let edit = knit_anchors::TextEdit { range: span.clone(), new_text: suggestion.clone() };
        action(format!("Link `{suggestion}` instead"), CodeActionKind::QUICKFIX, true, &[edit], diags);
    }
    out.extend(shows);
    if let Some(only) = &p.context.only {
        out.retain(|a| a.kind.as_ref().is_some_and(|k| only.iter().any(|o| k.as_str().starts_with(o.as_str()))));
    }
    Some(out.into_iter().map(CodeActionOrCommand::CodeAction).collect())
}

/// A stale, moved or renamed anchor of a declaration with a declaration baseline: the
/// kind `since::explain` can find in history.
fn has_changes_since_review(a: &AnchorResult) -> bool {
    is_reviewable(a.verdict.state)
        && matches!(a.anchor.target, Ok(Target::Symbol { .. }))
        && matches!(a.anchor.baseline, Some(knit_anchors::Baseline::Declaration { .. }))
}

fn is_reviewable(state: State) -> bool {
    matches!(state, State::Stale | State::Moved | State::Renamed | State::MovedRenamed)
}

type Emit<'a> = dyn FnMut(String, CodeActionKind, bool, &[knit_anchors::TextEdit], Vec<Diagnostic>) + 'a;

fn anchor_actions(session: &mut Session, a: &AnchorResult, src: &str, unrecorded: usize, diags: &[Diagnostic], emit: &mut Emit, doc: &str) {
    let v = &a.verdict;
    let name = a.anchor.link.dest_raw.as_str();
    match v.state {
        State::Unrecorded => {
            if let Ok((b, _)) = session.baseline_now(&a.anchor) {
                emit(format!("Record baseline of `{name}`"), CodeActionKind::QUICKFIX, true, &[set_baseline(&a.anchor, &b)], diags.to_vec());
            }
            if unrecorded > 1 {
                let (edits, _) = record(session, doc, src, false);
                if edits.len() > 1 {
                    emit(format!("Record baselines of all {} unrecorded anchors in this file", edits.len()), CodeActionKind::QUICKFIX, false, &edits, Vec::new());
                }
            }
        }
        State::Stale => {
            if let Ok((b, _)) = session.baseline_now(&a.anchor) {
                emit(format!("Confirm reviewed: `{name}` (re-record its baseline)"), CodeActionKind::QUICKFIX, true, &[set_baseline(&a.anchor, &b)], diags.to_vec());
            }
        }
        State::Moved if a.anchor.is_line_range() => {
            if let (Some(edits), Some([s, e])) = (update_lines(session, &a.anchor), v.now.as_ref().and_then(|n| n.lines)) {
                emit(format!("Update line numbers to {s}-{e}"), CodeActionKind::QUICKFIX, true, &edits, diags.to_vec());
            }
        }
        State::Moved | State::Renamed | State::MovedRenamed => {
            if let Some(now) = &v.now {
                if let Ok(edits) = rebind_to(session, &a.anchor, now) {
                    let what = now.symbol.as_deref().unwrap_or(&now.path);
                    let title = if v.changed {
                        format!("Rebind to `{what}` in {} and confirm reviewed", now.path)
                    } else {
                        format!("Rebind to `{what}` in {}", now.path)
                    };
                    emit(title, CodeActionKind::QUICKFIX, true, &edits, diags.to_vec());
                }
            }
        }
        _ => {}
    }
    if matches!(v.state, State::Lost | State::Invalid) {
        for c in &v.candidates {
            let now = now_of_candidate(&a.anchor, c);
            if let Ok(edits) = rebind_to(session, &a.anchor, &now) {
                let title = if c.symbol.is_empty() {
                    format!("Rebind to {}", c.path)
                } else {
                    format!("Rebind to `{}` in {}:{}", c.symbol, c.path, c.line)
                };
                emit(title, CodeActionKind::QUICKFIX, false, &edits, diags.to_vec());
            }
        }
    }
    let (kind, attach) = if v.state == State::Fresh {
        (CodeActionKind::REFACTOR_REWRITE, Vec::new())
    } else {
        (CodeActionKind::QUICKFIX, diags.to_vec())
    };
    emit(format!("Remove anchor `{name}` (keep the text)"), kind, false, &remove_anchor(&a.anchor, src), attach);
}
