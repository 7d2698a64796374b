//! Custom notifications knit sends: `knit/status` — anchor counts by state after every
//! workspace scan and whenever they change (clients show it in a status bar).

use crate::analysis::Counts;
use serde::Serialize;
use tower_lsp_server::ls_types::notification::Notification;
use tower_lsp_server::Client;

/// `knit/status` params: the counts, flattened, plus whether the first scan is done.
#[derive(Clone, Debug, Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StatusParams {
    #[serde(flatten)]
    pub counts: Counts,
    /// Every folder's first workspace scan is done.
    pub scanned: bool,
}

pub enum KnitStatus {}

impl Notification for KnitStatus {
    type Params = StatusParams;
    const METHOD: &'static str = "knit/status";
}

pub async fn status(client: &Client, c: &Counts, scanned: bool) {
    let p = StatusParams { counts: *c, scanned };
    client.send_notification::<KnitStatus>(p).await;
}
