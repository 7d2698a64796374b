//! Target `lsp_session`: arbitrary bytes into a real in-process language server.
//!
//! Per input: `knit_lsp::serve` on an in-memory duplex pipe, a valid `initialize` +
//! `initialized` for a copy of `fixtures/lsp/basic` (at the fixed path [`ROOT`], so that
//! seeds can name its files), then the input's bytes, then one valid `textDocument/hover`.
//! A small client answers the server's own requests (configuration, progress, registration,
//! applyEdit) with `null`, as a minimal editor would.
//!
//! Only the input's complete frames are sent (computed with the server's own framing,
//! `transport::next_frame`): an unfinished frame at the end would legitimately swallow
//! the final request as its body.
//!
//! Properties: no panic anywhere in the server (libFuzzer aborts on any panic, caught or
//! not); the final request is answered within [`ANSWER_WITHIN`], unless the input sent
//! `exit`, in which case the server must have stopped.

use crate::common::{copy_dir, fixtures, private_dir};
use knit_lsp::transport::{next_frame, sanitize, Frame};
use serde_json::{json, Value};
use std::path::Path;
use std::sync::{Arc, OnceLock};
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt, DuplexStream, ReadHalf, WriteHalf};
use tokio::sync::{oneshot, Mutex};

/// Where the fixture workspace lives (seeds use `file:///tmp/knit-fuzz-lsp/ws/…` URIs).
pub const ROOT: &str = "/tmp/knit-fuzz-lsp/ws";
const ANSWER_WITHIN: Duration = Duration::from_secs(8);
const INIT_ID: &str = "knit-fuzz-init";
const FINAL_ID: &str = "knit-fuzz-final";

pub fn run(data: &[u8]) {
    setup();
    let (prefix, exits) = complete_frames(data);
    runtime().block_on(session(prefix, exits));
}

/// The longest prefix of `data` that the server's framing consumes whole, and whether one
/// of its frames is an `exit` notification.
fn complete_frames(data: &[u8]) -> (&[u8], bool) {
    let mut buf = data.to_vec();
    let mut exits = false;
    while let Some(f) = next_frame(&mut buf) {
        if let Frame::Body(body) = f {
            let forwarded = sanitize(&body);
            exits |= serde_json::from_slice::<tower_lsp_server::jsonrpc::Request>(&forwarded).is_ok_and(|r| r.method() == "exit");
        }
    }
    (&data[..data.len() - buf.len()], exits)
}

async fn session(input: &[u8], exits: bool) {
    let (client, server) = tokio::io::duplex(1 << 20);
    let (sr, sw) = tokio::io::split(server);
    let server_task = tokio::spawn(knit_lsp::serve(sr, sw));
    let (cr, cw) = tokio::io::split(client);
    let writer = Arc::new(Mutex::new(cw));
    let (init_tx, init_rx) = oneshot::channel();
    let (final_tx, final_rx) = oneshot::channel();
    let reader = tokio::spawn(read_loop(cr, writer.clone(), init_tx, final_tx));

    let root_uri = format!("file://{ROOT}");
    send(
        &writer,
        &json!({ "jsonrpc": "2.0", "id": INIT_ID, "method": "initialize", "params": {
            "processId": null,
            "rootUri": root_uri,
            "workspaceFolders": [ { "uri": root_uri, "name": "ws" } ],
            "capabilities": {
                "general": { "positionEncodings": ["utf-16"] },
                "window": { "workDoneProgress": true },
                "workspace": { "didChangeWatchedFiles": { "dynamicRegistration": true }, "configuration": true }
            }
        } }),
    )
    .await;
    tokio::time::timeout(ANSWER_WITHIN, init_rx).await.expect("no answer to initialize").expect("client reader ended");
    send(&writer, &json!({ "jsonrpc": "2.0", "method": "initialized", "params": {} })).await;
    {
        let mut w = writer.lock().await;
        let _ = w.write_all(input).await;
        let _ = w.flush().await;
    }
    let hover = json!({ "jsonrpc": "2.0", "id": FINAL_ID, "method": "textDocument/hover", "params": {
        "textDocument": { "uri": format!("{root_uri}/docs/guide.md") }, "position": { "line": 2, "character": 12 }
    } });
    send(&writer, &hover).await;
    match tokio::time::timeout(ANSWER_WITHIN, final_rx).await {
        Ok(Ok(())) => {}
        // The reader ends when the server closes its output, which it does when it stops.
        Ok(Err(_)) => assert!(exits, "the server stopped (closed its output) without being sent `exit`"),
        Err(_) => panic!("the server did not answer a valid request within {ANSWER_WITHIN:?} after the input"),
    }
    // End of input (the reader holds the other handle of the writer): the pump ends, the
    // server follows.
    reader.abort();
    let _ = reader.await;
    drop(writer);
    let abort = server_task.abort_handle();
    let _ = tokio::time::timeout(Duration::from_secs(2), server_task).await;
    abort.abort();
}

async fn send(writer: &Mutex<WriteHalf<DuplexStream>>, msg: &Value) {
    let body = msg.to_string();
    let mut w = writer.lock().await;
    let _ = w.write_all(format!("Content-Length: {}\r\n\r\n{body}", body.len()).as_bytes()).await;
    let _ = w.flush().await;
}

/// Reads the server's frames: answers its requests with `null`, reports our two answers.
async fn read_loop(
    mut r: ReadHalf<DuplexStream>,
    writer: Arc<Mutex<WriteHalf<DuplexStream>>>,
    init: oneshot::Sender<()>,
    done: oneshot::Sender<()>,
) {
    let (mut init, mut done) = (Some(init), Some(done));
    let mut buf: Vec<u8> = Vec::new();
    let mut chunk = vec![0u8; 1 << 16];
    loop {
        while let Some(head_end) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            let head = String::from_utf8_lossy(&buf[..head_end]).to_string();
            let len: usize = head
                .lines()
                .find_map(|l| l.strip_prefix("Content-Length: "))
                .and_then(|n| n.trim().parse().ok())
                .unwrap_or_else(|| panic!("the server wrote a frame header without Content-Length: {head:?}"));
            if buf.len() < head_end + 4 + len {
                break;
            }
            let msg: Value = serde_json::from_slice(&buf[head_end + 4..head_end + 4 + len]).expect("the server wrote a frame that is not JSON");
            buf.drain(..head_end + 4 + len);
            match (msg.get("id"), msg.get("method")) {
                (Some(id), Some(_)) => send(&writer, &json!({ "jsonrpc": "2.0", "id": id, "result": null })).await,
                (Some(id), None) if id == INIT_ID => {
                    if let Some(tx) = init.take() {
                        let _ = tx.send(());
                    }
                }
                (Some(id), None) if id == FINAL_ID => {
                    if let Some(tx) = done.take() {
                        let _ = tx.send(());
                    }
                }
                _ => {}
            }
        }
        match r.read(&mut chunk).await {
            Ok(0) | Err(_) => return,
            Ok(n) => buf.extend_from_slice(&chunk[..n]),
        }
    }
}

fn runtime() -> &'static tokio::runtime::Runtime {
    static RT: OnceLock<tokio::runtime::Runtime> = OnceLock::new();
    RT.get_or_init(|| tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().expect("tokio runtime"))
}

/// Once per process: the fixture workspace at [`ROOT`] and private cache/state folders.
fn setup() {
    static DONE: OnceLock<()> = OnceLock::new();
    DONE.get_or_init(|| {
        let root = Path::new(ROOT);
        if !root.join("docs/guide.md").is_file() {
            // Built aside and renamed into place: parallel fuzz jobs never see half a copy.
            let aside = root.with_file_name(format!("ws.{}", std::process::id()));
            let _ = std::fs::remove_dir_all(&aside);
            copy_dir(&fixtures().join("lsp/basic"), &aside);
            if std::fs::rename(&aside, root).is_err() {
                let _ = std::fs::remove_dir_all(&aside);
            }
        }
        let state = private_dir("lsp");
        std::env::set_var("KNIT_CACHE_DIR", state.join("cache"));
        std::env::set_var("KNIT_STATE_DIR", state.join("state"));
    });
}

