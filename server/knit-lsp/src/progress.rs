//! Work-done progress of the workspace scan. The pass runs on a blocking thread and only
//! sends `(done, total)` into a channel; this task talks to the client, so a client that
//! is slow to answer `window/workDoneProgress/create` never stalls the writer.

use tokio::sync::mpsc;
use tower_lsp_server::ls_types::NumberOrString;
use tower_lsp_server::Client;

pub fn start(client: Client, seq: u64) -> mpsc::UnboundedSender<(usize, usize)> {
    let (tx, mut rx) = mpsc::unbounded_channel::<(usize, usize)>();
    tokio::spawn(async move {
        let token = NumberOrString::String(format!("knit-scan-{seq}"));
        if client.create_work_done_progress(token.clone()).await.is_err() {
            // The client refused the token: drain quietly.
            while rx.recv().await.is_some() {}
            return;
        }
        let progress = client.progress(token, "knit: checking docs").with_percentage(0).begin().await;
        let mut last = 0;
        while let Some((done, total)) = rx.recv().await {
            let pct = (done * 100).checked_div(total).unwrap_or(100).min(100) as u32;
            if pct != last {
                last = pct;
                progress.report_with_message(format!("{done}/{total} docs"), pct).await;
            }
        }
        progress.finish_with_message("done").await;
    });
    tx
}
