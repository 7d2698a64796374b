//! knit-lsp: the knit language server (`knit lsp --stdio`).
//!
//! A thin protocol layer over the pure engines (rust-analyzer / ruff_server style):
//! - [`server`]: the `LanguageServer` face — forwards notifications, serves requests
//!   from snapshots on blocking threads;
//! - [`world`]: the single writer — buffers, folders, settings, the reverse index
//!   code path → docs, and the scheduler of analysis passes;
//! - [`pass`]: one analysis pass (blocking): resolve what is dirty, build diagnostics;
//! - [`snapshot`]: the immutable view requests read;
//! - [`analysis`] / [`diagnostics`]: doc reports and their LSP diagnostics;
//! - [`document`] / [`position`]: ropes, versions, UTF-8/UTF-16 positions;
//! - [`overlay`] / [`folder`]: open buffers over the disk, one engine per folder;
//! - [`transport`]: input hardening (malformed frames get an error, never end the server);
//! - `handlers/`: one file per LSP method.
//!
//! # Protocol surface (editor clients rely on it)
//!
//! - Capabilities: `positionEncoding` (`utf-8` when offered in
//!   `general.positionEncodings`, else `utf-16`), incremental sync with save, hover,
//!   definition, references, completion (triggers `( / # .`), code actions (quickfix,
//!   source, refactor), code lens, workspace folders, `executeCommandProvider`, and
//!   `experimental.knit = { contextPack: true, didRead: true, status: true }`.
//! - Diagnostics (`source: "knit"`), `code`: `stale`, `moved`, `renamed`,
//!   `moved-renamed`, `lost`, `invalid`, `unchecked`, `unrecorded`, `broken-link`,
//!   `mention`; on code buffers `will-go-stale`. `data` = `{kind: "anchor", anchorId,
//!   state, reason, dest, now, candidates, version}` | `{kind: "broken-link", path, suggestion}` |
//!   `{kind: "mention", suggestion}`.
//! - Commands: `knit.recordFile [uri]`, `knit.checkWorkspace` (→ counts),
//!   `knit.contextPack [params]?`, `knit.pin|knit.unpin|knit.exclude|knit.restore [path|uri]`,
//!   `knit.showReferences [uri, position, locations]` (code lens); with
//!   `initializationOptions.uniqueCommandIds` advertised as `<id>/<instance>`, both accepted.
//! - Custom: request `knit/contextPack` (DESIGN 4.4), notifications `knit/didRead {uri}`
//!   (client → server) and `knit/status` (server → client: counts by state,
//!   `brokenLinks`, `mentions`, `docs`, `scanned`).
//! - Settings (`initializationOptions`, `workspace/didChangeConfiguration`, plain or under
//!   `knit`): `diagnostics.workspace` (bool, default true), `diagnostics.severity.<code>`
//!   (`error|warning|information|hint|off`), `uniqueCommandIds` (bool).

pub mod analysis;
pub mod commands;
pub mod config;
pub mod diagnostics;
pub mod document;
pub mod folder;
pub mod handle;
pub mod handlers;
pub mod notifications;
pub mod overlay;
pub mod pass;
pub mod position;
mod progress;
pub mod server;
pub mod transport;
pub mod snapshot;
pub mod world;

use std::sync::{Arc, Mutex};
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::sync::mpsc;
use tower_lsp_server::{LspService, Server};
use world::{Event, World};

/// Serves the protocol on `input`/`output` until the client sends `exit` or closes input.
/// Malformed frames get their JSON-RPC error and never stop the server.
pub async fn serve<I: AsyncRead + Unpin, O: AsyncWrite>(input: I, output: O) {
    let writer: Arc<Mutex<Option<tokio::task::JoinHandle<()>>>> = Arc::new(Mutex::new(None));
    let slot = writer.clone();
    let (service, socket) = LspService::build(move |client| {
        let (tx, rx) = mpsc::unbounded_channel();
        let world = World::new(client.clone(), tx.clone());
        let handle = tokio::spawn(main_loop(world, rx));
        if let Ok(mut g) = slot.lock() {
            *g = Some(handle);
        }
        server::Backend::new(client, tx)
    })
    .custom_method("knit/contextPack", server::Backend::context_pack)
    .custom_method("knit/didRead", server::Backend::did_read)
    .custom_method(transport::INVALID_MESSAGE, server::Backend::invalid_message)
    .finish();
    // Client bytes go through the sanitising pump (see `transport`); the pump ends at
    // end of input, which closes the pipe and lets the server finish.
    let (pipe_in, pipe_out) = tokio::io::duplex(1 << 20);
    let pump = async move {
        transport::pump(input, pipe_in).await;
        std::future::pending::<()>().await
    };
    tokio::select! {
        _ = Server::new(pipe_out, output, socket).serve(service) => {}
        _ = pump => {}
    }
    if let Some(h) = writer.lock().ok().and_then(|mut g| g.take()) {
        h.abort();
    }
}

/// `knit lsp --stdio`: a tokio runtime serving stdin/stdout.
pub fn run_stdio() -> anyhow::Result<()> {
    let rt = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
    rt.block_on(async {
        serve(tokio::io::stdin(), tokio::io::stdout()).await;
    });
    // Blocking analysis threads may still run; they hold no user data worth waiting for.
    rt.shutdown_timeout(std::time::Duration::from_millis(200));
    Ok(())
}

/// The writer loop: events in order, passes when their debounce deadline passes.
async fn main_loop(mut world: World, mut rx: mpsc::UnboundedReceiver<Event>) {
    loop {
        let next = world.next_pass_at();
        tokio::select! {
            biased;
            ev = rx.recv() => match ev {
                Some(ev) => world.handle(ev).await,
                None => break,
            },
            _ = sleep_until(next) => world.start_pass(),
        }
    }
}

async fn sleep_until(at: Option<std::time::Instant>) {
    match at {
        Some(t) => tokio::time::sleep_until(tokio::time::Instant::from_std(t)).await,
        None => std::future::pending().await,
    }
}
