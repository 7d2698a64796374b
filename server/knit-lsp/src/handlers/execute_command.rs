//! `workspace/executeCommand`: `knit.recordFile [uri]`, `knit.checkWorkspace`,
//! `knit.contextPack [params]`, `knit.pin|unpin|exclude|restore [path]` and the lens
//! command `knit.showReferences`, and `knit.changesSinceReview [uri, position]` (see
//! `changes_since_review`), the "Rebind to…" picker's `knit.rebindCandidates` and
//! `knit.rebind` (see `rebind_picker`). Ids may carry the per-instance suffix.

use super::{changes_since_review, context_pack, rebind_picker};
use super::util::{lsp_edits, workspace_edit};
use crate::analysis::strip_bom;
use crate::commands::{self, base};
use crate::document::FileKind;
use crate::handle::ServerHandle;
use crate::world::Event;
use knit_anchors::edit::record;
use serde_json::{json, Value};
use tower_lsp_server::jsonrpc::{Error, Result};
use tower_lsp_server::ls_types::{ExecuteCommandParams, Uri};

pub async fn execute(b: &ServerHandle, p: ExecuteCommandParams) -> Result<Option<Value>> {
    let args = p.arguments;
    match base(&p.command) {
        commands::RECORD_FILE => record_file(b, args.first()).await.map(Some),
        commands::CHECK_WORKSPACE => {
            let (tx, rx) = tokio::sync::oneshot::channel();
            b.tx.send(Event::CheckWorkspace(tx)).map_err(|_| Error::internal_error())?;
            let counts = rx.await.map_err(|_| Error::internal_error())?;
            Ok(Some(json!(counts)))
        }
        commands::CONTEXT_PACK => {
            let snap = b.snapshot().await?;
            let params = args.into_iter().next().unwrap_or(Value::Null);
            context_pack::pack(b, snap, params).await.map(Some)
        }
        c @ (commands::PIN | commands::UNPIN | commands::EXCLUDE | commands::RESTORE) => {
            let snap = b.snapshot().await?;
            let c: &'static str = commands::ALL.iter().copied().find(|x| *x == c).unwrap_or(commands::RESTORE);
            context_pack::control(b, snap, c, args.first()).await.map(Some)
        }
        commands::SHOW_REFERENCES => Ok(args.get(2).cloned()),
        commands::CHANGES_SINCE_REVIEW => changes_since_review::changes(b, &args).await.map(Some),
        commands::REBIND_CANDIDATES => rebind_picker::candidates(b, &args).await.map(Some),
        commands::REBIND => rebind_picker::rebind(b, &args).await.map(Some),
        other => Err(Error::invalid_params(format!("unknown command {other}"))),
    }
}

/// Records every unrecorded anchor of a doc through `workspace/applyEdit`.
async fn record_file(b: &ServerHandle, arg: Option<&Value>) -> Result<Value> {
    let uri: Uri = arg
        .and_then(Value::as_str)
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| Error::invalid_params("knit.recordFile takes the URI of a Markdown file"))?;
    let snap = b.snapshot().await?;
    let target = uri.clone();
    let computed = b
        .blocking(move || {
            let loc = snap.file(&target)?;
            if loc.kind != FileKind::Markdown {
                return None;
            }
            let mut session = loc.folder.session();
            let (edits, failed) = record(&mut session, &loc.rel, strip_bom(&loc.text.text), false);
            let report = snap.doc_report(&loc);
            let lsp = lsp_edits(&snap, &report, &edits);
            let reasons: Vec<Value> =
                failed.iter().map(|(a, v)| json!({ "anchor": a.id, "state": v.state.as_str(), "message": v.message })).collect();
            Some((workspace_edit(&snap, &target, loc.version, lsp), edits.len(), reasons))
        })
        .await?;
    let (edit, recorded, failed) = computed.ok_or_else(|| Error::invalid_params(format!("{} is not a Markdown file of the workspace", uri.as_str())))?;
    let applied = if recorded == 0 {
        true
    } else {
        b.client.apply_edit(edit).await.map(|r| r.applied).unwrap_or(false)
    };
    Ok(json!({ "recorded": if applied { recorded } else { 0 }, "applied": applied, "failed": failed }))
}
