//! Custom notifications knit sends: `knit/status` — anchor counts by state after every
//! workspace scan and whenever they change (clients show it in a status bar).

use crate::analysis::Counts;
use serde::Serialize;
use tower_lsp_server::ls_types::notification::Notification;
use tower_lsp_server::Client;

/// `knit/status` params.
#[derive(Clone, Debug, Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StatusParams {
    pub fresh: usize,
    pub stale: usize,
    pub moved: usize,
    pub renamed: usize,
    pub moved_renamed: usize,
    pub lost: usize,
    pub invalid: usize,
    pub unrecorded: usize,
    pub unchecked: usize,
    pub broken_links: usize,
    pub mentions: usize,
    pub docs: usize,
    /// Every folder's first workspace scan is done.
    pub scanned: bool,
}

pub enum KnitStatus {}

impl Notification for KnitStatus {
    type Params = StatusParams;
    const METHOD: &'static str = "knit/status";
}

pub async fn status(client: &Client, c: &Counts, scanned: bool) {
    let p = StatusParams {
        fresh: c.fresh,
        stale: c.stale,
        moved: c.moved,
        renamed: c.renamed,
        moved_renamed: c.moved_renamed,
        lost: c.lost,
        invalid: c.invalid,
        unrecorded: c.unrecorded,
        unchecked: c.unchecked,
        broken_links: c.broken_links,
        mentions: c.mentions,
        docs: c.docs,
        scanned,
    };
    client.send_notification::<KnitStatus>(p).await;
}
