//! The "Rebind to…" picker (`workspace/executeCommand`):
//! `knit.rebindCandidates [uri, position]` ranks every declaration of the workspace as a
//! new target for the symbol anchor at `position` — where the check found a moved or
//! renamed one and a lost one's candidates first, then `Session::rebind_targets`'
//! ranking, each with its similarity and why — and `knit.rebind [uri, position, { path, symbol }]` rebinds it to the one
//! the user picked, through `workspace/applyEdit`, its baseline re-recorded from the new
//! target. Clients show the list (VS Code a quick pick, Neovim `vim.ui.select`); the CLI's
//! twin is `knit anchors rebind DOC:LINE TARGET`.

use super::util::{doc_at, lsp_edits, now_of_candidate, uri_and_position, workspace_edit};
use crate::handle::ServerHandle;
use knit_anchors::edit::rebind_to;
use knit_anchors::{Candidate, State, Target};
use serde_json::{json, Value};
use tower_lsp_server::jsonrpc::{Error, Result};

/// How many targets the picker lists: the client filters them as the user types.
const MAX_TARGETS: usize = 500;

/// `{ anchor, doc, items: [{ label, description, detail, path, symbol, line, kind, similarity, why }] }`, best first.
pub async fn candidates(b: &ServerHandle, args: &[Value]) -> Result<Value> {
    let (uri, pos) = uri_and_position(args, "knit.rebindCandidates takes [uri, position] of a symbol anchor in a Markdown file")?;
    let snap = b.snapshot().await?;
    b.blocking(move || {
        let at = doc_at(&snap, &uri, pos).ok_or_else(|| Error::invalid_params(format!("{} is not a Markdown file of the workspace", uri.as_str())))?;
        let a = at.report.anchor_at(at.offset).ok_or_else(|| Error::invalid_params(format!("no anchor at {}:{}", at.report.rel, pos.line + 1)))?;
        if !matches!(a.anchor.target, Ok(Target::Symbol { .. })) {
            return Err(Error::invalid_params(format!("`{}` does not name a declaration", a.anchor.link.dest_raw)));
        }
        let mut session = at.loc.folder.session();
        // What the check itself found comes first: where a moved or renamed declaration
        // is now, then a lost anchor's candidates; then every declaration by likeness.
        let mut first: Vec<Candidate> = Vec::new();
        if let Some(now) = &a.verdict.now {
            // A stale anchor's `now` is its own target: rebinding there is confirming.
            let moved = matches!(a.verdict.state, State::Moved | State::Renamed | State::MovedRenamed);
            if let Some(symbol) = now.symbol.clone().filter(|_| moved) {
                let why = format!("where the check found it ({})", a.verdict.state.as_str());
                first.push(Candidate { kind: now.kind.clone().unwrap_or_default(), ..Candidate::new(now.path.clone(), symbol, now.line, why) });
            }
        }
        first.extend(a.verdict.candidates.iter().filter(|c| !c.symbol.is_empty()).cloned());
        let ranked = session.rebind_targets(&a.anchor, MAX_TARGETS);
        let seen = |c: &Candidate, list: &[Candidate]| list.iter().any(|f| f.path == c.path && f.symbol == c.symbol);
        let mut all = first.clone();
        all.extend(ranked.into_iter().filter(|c| !seen(c, &first)));
        all.truncate(MAX_TARGETS);
        let items: Vec<Value> = all.iter().map(item).collect();
        Ok(json!({ "anchor": a.anchor.link.dest_raw, "doc": format!("{}:{}", a.anchor.doc, a.anchor.line()), "items": items }))
    })
    .await?
}

fn item(c: &Candidate) -> Value {
    // Found by the check (moved, renamed, a lost anchor's twin) says why, not how alike.
    let detail = match c.similarity {
        Some(p) => format!("{p}% alike: {}", if c.why.is_empty() { "nothing in common but the workspace" } else { &c.why }),
        None => c.why.clone(),
    };
    json!({
        "label": c.symbol,
        "description": format!("{}:{} · {}", c.path, c.line, c.kind),
        "detail": detail,
        "path": c.path,
        "symbol": c.symbol,
        "line": c.line,
        "kind": c.kind,
        "similarity": c.similarity,
        "why": c.why,
    })
}

/// Rebinds the anchor at `[uri, position]` to `{ path, symbol }` (a workspace-relative
/// path, a fragment); `{ applied, anchor, target }`.
pub async fn rebind(b: &ServerHandle, args: &[Value]) -> Result<Value> {
    let usage = "knit.rebind takes [uri, position, { path, symbol }]";
    let (uri, pos) = uri_and_position(args, usage)?;
    let target = args.get(2).ok_or_else(|| Error::invalid_params(usage))?;
    let path = target.get("path").and_then(Value::as_str).ok_or_else(|| Error::invalid_params(usage))?.to_string();
    let symbol = target.get("symbol").and_then(Value::as_str).unwrap_or("").to_string();
    let snap = b.snapshot().await?;
    let (edit, anchor) = b
        .blocking(move || {
            let at = doc_at(&snap, &uri, pos).ok_or_else(|| Error::invalid_params(format!("{} is not a Markdown file of the workspace", uri.as_str())))?;
            let a = at.report.anchor_at(at.offset).ok_or_else(|| Error::invalid_params(format!("no anchor at {}:{}", at.report.rel, pos.line + 1)))?;
            let c = Candidate::new(path.clone(), symbol.clone(), 1, "");
            let mut session = at.loc.folder.session();
            let edits = rebind_to(&mut session, &a.anchor, &now_of_candidate(&a.anchor, &c))
                .map_err(|v| Error::invalid_params(format!("cannot rebind to {path}#{symbol}: {}", v.message)))?;
            let lsp = lsp_edits(&snap, &at.report, &edits);
            Ok::<_, Error>((workspace_edit(&snap, &uri, at.loc.version, lsp), a.anchor.link.dest_raw.clone()))
        })
        .await??;
    let applied = b.client.apply_edit(edit).await.map(|r| r.applied).unwrap_or(false);
    Ok(json!({ "applied": applied, "anchor": anchor, "target": args[2] }))
}
