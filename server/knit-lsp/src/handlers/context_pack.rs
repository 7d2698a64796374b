//! Context packs (DESIGN 4): `knit/contextPack` and its `knit.contextPack` command twin,
//! `knit/didRead`, pin/unpin/exclude/restore, and the feed of the context engine (read
//! evidence from `didOpen`, file changes for its incremental index). Ranking is entirely
//! `knit_context::ContextEngine`'s; this file only supplies the task (open buffers,
//! focus by recency) and the anchors' freshness, and keeps engine work off the reader
//! loop. The engine is opened on first use per folder (it builds or loads an index).

use crate::folder::{ContextSlot, Folder};
use crate::handle::ServerHandle;
use crate::snapshot::Snapshot;
use knit_context::{AnchorCounts, AnchorFacts, ContextEngine, EngineOptions, OpenBuffer, PackParams, TaskInput};
use serde_json::{json, Value};
use std::collections::HashMap;
use std::sync::Arc;
use tower_lsp_server::jsonrpc::{Error, Result};
use tower_lsp_server::ls_types::Uri;

/// Runs `f` on the folder's engine, opening it first if needed (and replaying the read
/// evidence that arrived before).
fn with_engine<T>(folder: &Folder, f: impl FnOnce(&mut ContextEngine) -> anyhow::Result<T>) -> anyhow::Result<T> {
    let slot: &ContextSlot = &folder.context;
    let mut guard = slot.engine.lock().map_err(|_| anyhow::anyhow!("context engine lock poisoned"))?;
    if guard.is_none() {
        // the default options parse imports with knit-syntax (`relations::syntax_imports`)
        let options = EngineOptions::default();
        let mut engine = ContextEngine::open(&folder.canonical, options)?;
        let pending = slot.pending_reads.lock().map(|mut p| std::mem::take(&mut *p)).unwrap_or_default();
        for (rel, text) in pending {
            let _ = engine.did_open(&rel, Some(&text));
        }
        *guard = Some(engine);
    }
    match guard.as_mut() {
        Some(e) => f(e),
        None => Err(anyhow::anyhow!("context engine unavailable")),
    }
}

/// Runs `f` only if the engine is already open (file events must not open it).
fn if_open(folder: &Folder, f: impl FnOnce(&mut ContextEngine)) {
    if let Ok(mut g) = folder.context.engine.lock() {
        if let Some(e) = g.as_mut() {
            f(e);
        }
    }
}

fn internal(e: impl std::fmt::Display) -> Error {
    let mut err = Error::internal_error();
    err.message = format!("knit: {e}").into();
    err
}

/// `didOpen` is read evidence.
pub fn after_open(b: &ServerHandle, uri: Uri) {
    let tx = b.tx.clone();
    tokio::spawn(async move {
        let Ok(snap) = crate::handle::snapshot_from(&tx).await else { return };
        let Some(doc) = snap.docs.get(&uri) else { return };
        let Some((fi, rel)) = doc.loc.clone() else { return };
        let folder = snap.folders[fi].folder.clone();
        let text = doc.text.text.clone();
        let _ = tokio::task::spawn_blocking(move || {
            let mut opened = false;
            if_open(&folder, |e| {
                opened = true;
                let _ = e.did_open(&rel, Some(&text));
            });
            if !opened {
                if let Ok(mut p) = folder.context.pending_reads.lock() {
                    if p.len() < 512 {
                        p.push((rel, text));
                    }
                }
            }
        })
        .await;
    });
}

/// Saves and watched-file events update the engine's index incrementally.
pub fn file_changed(b: &ServerHandle, uri: Uri, deleted: bool) {
    let tx = b.tx.clone();
    tokio::spawn(async move {
        let Ok(snap) = crate::handle::snapshot_from(&tx).await else { return };
        let Some((fi, rel)) = snap.locate_uri(&uri) else { return };
        let folder = snap.folders[fi].folder.clone();
        let _ = tokio::task::spawn_blocking(move || folder.context.file_changed(&rel, deleted))
        .await;
    });
}

/// Anchor freshness per doc, from the latest reports.
struct Facts(HashMap<String, AnchorCounts>);

impl AnchorFacts for Facts {
    fn anchor_counts(&self, doc_path: &str) -> Option<AnchorCounts> {
        self.0.get(doc_path).copied()
    }
}

/// The folder a pack is for: the focus, else the most recent buffer, else the first.
fn pack_folder(snap: &Snapshot, params: &PackParams) -> Option<usize> {
    if let Some(f) = &params.focus {
        if let Ok(uri) = f.uri.parse::<Uri>() {
            if let Some((fi, _)) = snap.locate_uri(&uri) {
                return Some(fi);
            }
        }
    }
    snap.recency.iter().find_map(|u| snap.docs.get(u).and_then(|d| d.loc.as_ref()).map(|(fi, _)| *fi)).or((!snap.folders.is_empty()).then_some(0))
}

pub async fn pack(b: &ServerHandle, snap: Arc<Snapshot>, params: Value) -> Result<Value> {
    let params: PackParams = if params.is_null() {
        PackParams::default()
    } else {
        serde_json::from_value(params).map_err(|e| Error::invalid_params(format!("knit/contextPack params: {e}")))?
    };
    let Some(fi) = pack_folder(&snap, &params) else {
        return Err(Error::invalid_params("knit/contextPack: no workspace folder"));
    };
    // Open buffers of that folder, most recently focused or edited first.
    let mut buffers = Vec::new();
    for (order, uri) in snap.recency.iter().enumerate() {
        let Some(d) = snap.docs.get(uri) else { continue };
        let Some((dfi, rel)) = &d.loc else { continue };
        if *dfi != fi {
            continue;
        }
        buffers.push(OpenBuffer {
            path: rel.clone(),
            text: d.text.text.to_string(),
            focused: buffers.is_empty() && params.focus.is_none(),
            last_focus_or_edit_order: order as u32,
            // The cursor comes with `params.focus.position` (the engine applies it).
            cursor_line: None,
            recent_edit_lines: d.recent_edit_lines.clone(),
        });
    }
    let mut facts = HashMap::new();
    for (doc, r) in snap.folders[fi].reports.iter() {
        // The same tally as `knit pack` and the MCP tool (knit_anchors::AnchorTally).
        let t = r.analysis.tally();
        facts.insert(doc.clone(), AnchorCounts { total: t.total, stale: t.stale, lost: t.lost });
    }
    let folder = snap.folders[fi].folder.clone();
    let result = b
        .blocking(move || {
            with_engine(&folder, |e| e.pack(&params, &TaskInput { buffers }, &Facts(facts)))
                .and_then(|r| serde_json::to_value(r).map_err(anyhow::Error::from))
        })
        .await?;
    result.map_err(internal)
}

pub async fn did_read(b: &ServerHandle, snap: Arc<Snapshot>, params: Value) {
    let Some(uri) = params.get("uri").and_then(Value::as_str).and_then(|u| u.parse::<Uri>().ok()) else { return };
    let Some((fi, rel)) = snap.locate_uri(&uri) else { return };
    let folder = snap.folders[fi].folder.clone();
    let _ = b.blocking(move || with_engine(&folder, |e| e.did_read(&rel))).await;
}

/// `knit.pin` / `knit.unpin` / `knit.exclude` / `knit.restore` with a URI or a
/// workspace-relative path.
pub async fn control(b: &ServerHandle, snap: Arc<Snapshot>, command: &'static str, arg: Option<&Value>) -> Result<Value> {
    let raw = arg.and_then(Value::as_str).ok_or_else(|| Error::invalid_params(format!("{command} takes a path or URI")))?;
    let (fi, rel) = match raw.parse::<Uri>().ok().filter(|u| u.scheme().as_str() == "file") {
        Some(uri) => snap.locate_uri(&uri).ok_or_else(|| Error::invalid_params(format!("{raw} is outside the workspace")))?,
        None => {
            let rel = knit_anchors::target::join("", raw).filter(|r| !r.is_empty());
            (0, rel.ok_or_else(|| Error::invalid_params(format!("{raw} is outside the workspace")))?)
        }
    };
    let folder = snap.folders.get(fi).ok_or_else(|| Error::invalid_params("no workspace folder"))?.folder.clone();
    let out = b
        .blocking(move || {
            with_engine(&folder, |e| {
                let changed = match command {
                    crate::commands::PIN => e.pin(&rel)?,
                    crate::commands::UNPIN => e.unpin(&rel)?,
                    crate::commands::EXCLUDE => e.exclude(&rel)?,
                    _ => e.restore(&rel)?,
                };
                Ok(json!({ "path": rel, "changed": changed, "pinned": e.pinned(), "excluded": e.excluded() }))
            })
        })
        .await?;
    out.map_err(internal)
}
