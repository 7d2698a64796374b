//! What a request or notification handler may use of the running server: the client
//! (to apply edits, send notifications), the channel to the single writer (to ask for a
//! snapshot or post an event) and blocking threads for work off the reader loop.
//! Handlers receive this handle and a snapshot, never the `Backend`, so they do not
//! depend on the protocol face that calls them.

use crate::snapshot::Snapshot;
use crate::world::Event;
use std::sync::Arc;
use tokio::sync::{mpsc, oneshot};
use tower_lsp_server::jsonrpc::{Error, Result};
use tower_lsp_server::Client;

pub struct ServerHandle {
    pub(crate) client: Client,
    pub(crate) tx: mpsc::UnboundedSender<Event>,
    /// Distinguishes this server's command ids from another instance's in one client.
    pub(crate) instance: String,
}

impl ServerHandle {
    pub(crate) fn new(client: Client, tx: mpsc::UnboundedSender<Event>) -> ServerHandle {
        ServerHandle { client, tx, instance: instance_id() }
    }

    /// Posts an event to the single writer (dropped when the server is shutting down).
    pub(crate) fn send(&self, ev: Event) {
        let _ = self.tx.send(ev);
    }

    /// A snapshot reflecting every notification received before this request.
    pub(crate) async fn snapshot(&self) -> Result<Arc<Snapshot>> {
        snapshot_from(&self.tx).await
    }

    /// Runs `f` on a blocking thread. A panic inside becomes an internal error
    /// response, never a dead server.
    pub(crate) async fn blocking<T: Send + 'static>(&self, f: impl FnOnce() -> T + Send + 'static) -> Result<T> {
        tokio::task::spawn_blocking(f).await.map_err(|e| {
            let mut err = Error::internal_error();
            err.message = format!("knit: request failed: {e}").into();
            err
        })
    }
}

/// A snapshot from the single writer, for work spawned off a handler that holds only a
/// clone of the channel: it reflects every event posted before the call.
pub(crate) async fn snapshot_from(writer: &mpsc::UnboundedSender<Event>) -> Result<Arc<Snapshot>> {
    let (tx, rx) = oneshot::channel();
    writer.send(Event::Snapshot(tx)).map_err(|_| gone())?;
    rx.await.map_err(|_| gone())
}

fn gone() -> Error {
    let mut e = Error::internal_error();
    e.message = "knit: the server is shutting down".into();
    e
}

fn instance_id() -> String {
    use std::sync::atomic::{AtomicU32, Ordering};
    static N: AtomicU32 = AtomicU32::new(0);
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.subsec_nanos()).unwrap_or(0);
    format!("{:x}{:x}{}", std::process::id(), nanos & 0xffff, N.fetch_add(1, Ordering::Relaxed))
}
