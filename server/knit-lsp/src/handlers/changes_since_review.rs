//! `knit.changesSinceReview [uri, position]` (`workspace/executeCommand`): the document
//! "Show changes since review" opens for the stale, moved or renamed anchor at `position`
//! of a Markdown file — the reviewed commit, the commits since that changed the
//! declaration and its whole diff (`since::changes_document`) — or, plainly, why there is
//! none. The server only computes it; clients show it (VS Code as a `knit-diff:` virtual
//! document, Neovim in a scratch buffer), since LSP has no request to open a new text.

use super::util::{doc_at, explain_since, uri_and_position};
use crate::handle::ServerHandle;
use knit_anchors::engine::since::{changes_document, NoSince, MAX_DOCUMENT_DIFF_LINES};
use serde_json::{json, Value};
use tower_lsp_server::jsonrpc::{Error, Result};

/// Reading history for a diff the user asked for may take longer than a hover may.
const HISTORY_BUDGET: std::time::Duration = std::time::Duration::from_secs(5);

/// `{ anchor, doc, title, text }` where `text` is the diff document, or `text: null` and a
/// `message` saying why there is none.
pub async fn changes(b: &ServerHandle, args: &[Value]) -> Result<Value> {
    let (uri, pos) = uri_and_position(args, "knit.changesSinceReview takes [uri, position] of an anchor in a Markdown file")?;
    let snap = b.snapshot().await?;
    b.blocking(move || {
        let at = doc_at(&snap, &uri, pos).ok_or_else(|| Error::invalid_params(format!("{} is not a Markdown file of the workspace", uri.as_str())))?;
        let a = at
            .report
            .anchor_at(at.offset)
            .ok_or_else(|| Error::invalid_params(format!("no anchor at {}:{}", at.report.rel, pos.line + 1)))?;
        let anchor = a.anchor.link.dest_raw.clone();
        let doc = format!("{}:{}", a.anchor.doc, a.anchor.line());
        let title = format!("Changes since review: {anchor}");
        let explained = explain_since(at.loc.folder, a, HISTORY_BUDGET, 5000, MAX_DOCUMENT_DIFF_LINES);
        Ok(match explained {
            Ok(s) => json!({ "anchor": anchor, "doc": doc, "title": title, "text": changes_document(&anchor, &doc, &s) }),
            Err(why) => {
                let message = match why {
                    NoSince::NotApplicable => format!("`{anchor}` is {}: {}", a.verdict.state.as_str(), why.explanation()),
                    other => format!("`{anchor}`: {}", other.explanation()),
                };
                json!({ "anchor": anchor, "doc": doc, "title": title, "text": Value::Null, "message": message, "reason": why.as_str() })
            }
        })
    })
    .await?
}
