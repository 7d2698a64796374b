//! A tiny LSP client for end-to-end tests: it runs the real server (`knit_lsp::serve`)
//! over an in-memory duplex pipe, frames JSON-RPC with Content-Length headers, answers
//! the server's own requests (applyEdit, configuration, progress, registration), and
//! keeps every notification for the test to wait on.

#![allow(dead_code)]

use serde_json::{json, Value};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt, DuplexStream, ReadHalf, WriteHalf};
use tokio::sync::{oneshot, Notify};

pub const TIMEOUT: Duration = Duration::from_secs(10);

/// Cache and state folders of the engines, shared by every test of the process. They live
/// under cargo's target/tmp, one folder per test binary emptied when the binary starts: a
/// temp dir held in a static is never dropped, so every run had left one in /tmp.
pub fn isolate_env() {
    static DIRS: OnceLock<PathBuf> = OnceLock::new();
    let d = DIRS.get_or_init(|| {
        let exe = std::env::current_exe().ok().and_then(|p| p.file_stem().map(|s| s.to_string_lossy().into_owned())).unwrap_or_else(|| "lsp-tests".into());
        // (the bench example shares this file; cargo gives target/tmp to tests only)
        let base = option_env!("CARGO_TARGET_TMPDIR").map(PathBuf::from).unwrap_or_else(std::env::temp_dir);
        let dir = base.join(format!("knit-{exe}"));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("test cache folder");
        dir
    });
    // Same values from every thread: the race is benign.
    std::env::set_var("KNIT_CACHE_DIR", d.join("cache"));
    std::env::set_var("KNIT_STATE_DIR", d.join("state"));
}

/// A copy of `fixtures/lsp/<name>` in a temporary folder.
pub fn workspace(name: &str) -> (tempfile::TempDir, PathBuf) {
    isolate_env();
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/lsp").join(name);
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path().join("ws");
    copy_dir(&src, &root);
    (dir, root)
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let p = e.path();
        if p.is_dir() {
            copy_dir(&p, &to.join(e.file_name()));
        } else {
            std::fs::copy(&p, to.join(e.file_name())).unwrap();
        }
    }
}

/// Writes baselines into every unrecorded anchor of `doc` on disk (test setup, through
/// the core, not the server).
pub fn record_on_disk(root: &Path, doc: &str) {
    record_with(root, doc, false)
}

/// Same, also turning links to Markdown files into recorded doc anchors.
pub fn record_docs_on_disk(root: &Path, doc: &str) {
    record_with(root, doc, true)
}

fn record_with(root: &Path, doc: &str, include_docs: bool) {
    let tree = knit_workspace::DiskTree::new(root);
    let cache = knit_anchors::DeclCache::default();
    let mut session = knit_anchors::Session::new(&tree, &cache, knit_anchors::CheckConfig::default());
    let path = root.join(doc);
    let src = std::fs::read_to_string(&path).unwrap();
    let (edits, _) = knit_anchors::edit::record(&mut session, doc, &src, include_docs);
    std::fs::write(&path, knit_anchors::edit::apply_edits(&src, &edits)).unwrap();
}

pub fn uri(root: &Path, rel: &str) -> String {
    let p = root.join(rel);
    format!("file://{}", p.to_string_lossy().replace(' ', "%20"))
}

pub fn read(root: &Path, rel: &str) -> String {
    std::fs::read_to_string(root.join(rel)).unwrap()
}

#[derive(Default)]
struct Inbox {
    notifications: Vec<Value>,
    /// Latest `publishDiagnostics` params by URI.
    diagnostics: HashMap<String, Value>,
    server_requests: Vec<Value>,
}

pub struct Client {
    writer: Arc<tokio::sync::Mutex<WriteHalf<DuplexStream>>>,
    pending: Arc<Mutex<HashMap<i64, oneshot::Sender<Value>>>>,
    inbox: Arc<Mutex<Inbox>>,
    notify: Arc<Notify>,
    next_id: Mutex<i64>,
    pub utf8: bool,
    pub init_result: Value,
    server: tokio::task::JoinHandle<()>,
    reader: tokio::task::JoinHandle<()>,
}

pub struct Options {
    pub utf8: bool,
    pub init: Value,
    pub folders: Vec<PathBuf>,
    pub progress: bool,
    /// The client offers `didChangeWatchedFiles` dynamic registration (Neovim 0.7 does not).
    pub watches_files: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options { utf8: false, init: json!({}), folders: Vec::new(), progress: true, watches_files: true }
    }
}

impl Client {
    /// Starts the server and runs `initialize` + `initialized` for `root`.
    pub async fn start(root: &Path) -> Client {
        Client::start_with(root, Options::default()).await
    }

    pub async fn start_with(root: &Path, opts: Options) -> Client {
        let mut c = Client::spawn(opts.utf8);
        let folders: Vec<Value> = if opts.folders.is_empty() { vec![root.to_path_buf()] } else { opts.folders.clone() }
            .iter()
            .map(|f| json!({ "uri": format!("file://{}", f.to_string_lossy()), "name": "ws" }))
            .collect();
        let encodings = if opts.utf8 { json!(["utf-8", "utf-16"]) } else { json!(["utf-16"]) };
        let res = c
            .request(
                "initialize",
                json!({
                    "processId": null,
                    "rootUri": format!("file://{}", root.to_string_lossy()),
                    "workspaceFolders": folders,
                    "initializationOptions": opts.init,
                    "capabilities": {
                        "general": { "positionEncodings": encodings },
                        "window": { "workDoneProgress": opts.progress },
                        "workspace": {
                            "didChangeWatchedFiles": { "dynamicRegistration": opts.watches_files },
                            "workspaceEdit": { "documentChanges": false },
                            "configuration": true
                        }
                    }
                }),
            )
            .await
            .expect("initialize");
        c.init_result = res;
        c.notify("initialized", json!({})).await;
        c
    }

    /// The server on a pipe, without the handshake.
    pub fn spawn(utf8: bool) -> Client {
        isolate_env();
        let (client_end, server_end) = tokio::io::duplex(1 << 20);
        let (sr, sw) = tokio::io::split(server_end);
        let server = tokio::spawn(knit_lsp::serve(sr, sw));
        let (cr, cw) = tokio::io::split(client_end);
        let pending: Arc<Mutex<HashMap<i64, oneshot::Sender<Value>>>> = Arc::default();
        let inbox: Arc<Mutex<Inbox>> = Arc::default();
        let notify = Arc::new(Notify::new());
        let writer = Arc::new(tokio::sync::Mutex::new(cw));
        // The reader answers the server's requests through the same writer.
        let reader = tokio::spawn(read_loop(cr, pending.clone(), inbox.clone(), notify.clone(), writer.clone()));
        Client {
            writer,
            pending,
            inbox,
            notify,
            next_id: Mutex::new(1),
            utf8,
            init_result: Value::Null,
            server,
            reader,
        }
    }

    pub async fn send_raw(&self, body: &[u8]) {
        write_frame(&self.writer, body).await;
    }

    /// Bytes as they are, no framing added (for malformed-input tests).
    pub async fn send_bytes(&self, bytes: &[u8]) {
        let mut w = self.writer.lock().await;
        w.write_all(bytes).await.unwrap();
        w.flush().await.unwrap();
    }

    pub async fn send(&self, msg: &Value) {
        self.send_raw(msg.to_string().as_bytes()).await;
    }

    pub fn next_id(&self) -> i64 {
        let mut g = self.next_id.lock().unwrap();
        *g += 1;
        *g
    }

    /// Sends a request and waits for its response: Ok(result) or Err(error object).
    pub async fn request(&self, method: &str, params: Value) -> Result<Value, Value> {
        let id = self.next_id();
        let rx = self.expect_response(id);
        self.send(&json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params })).await;
        Client::response(rx).await
    }

    pub fn expect_response(&self, id: i64) -> oneshot::Receiver<Value> {
        let (tx, rx) = oneshot::channel();
        self.pending.lock().unwrap().insert(id, tx);
        rx
    }

    pub async fn response(rx: oneshot::Receiver<Value>) -> Result<Value, Value> {
        let msg = tokio::time::timeout(TIMEOUT, rx).await.expect("response timed out").expect("reader gone");
        match msg.get("error") {
            Some(e) => Err(e.clone()),
            None => Ok(msg.get("result").cloned().unwrap_or(Value::Null)),
        }
    }

    pub async fn notify(&self, method: &str, params: Value) {
        self.send(&json!({ "jsonrpc": "2.0", "method": method, "params": params })).await;
    }

    pub async fn open(&self, uri: &str, text: &str) {
        let lang = if uri.ends_with(".md") { "markdown" } else { "typescript" };
        self.notify("textDocument/didOpen", json!({ "textDocument": { "uri": uri, "languageId": lang, "version": 1, "text": text } }))
            .await;
    }

    pub async fn change_full(&self, uri: &str, version: i32, text: &str) {
        self.notify("textDocument/didChange", json!({ "textDocument": { "uri": uri, "version": version }, "contentChanges": [ { "text": text } ] }))
            .await;
    }

    pub async fn change(&self, uri: &str, version: i32, range: Value, text: &str) {
        self.notify(
            "textDocument/didChange",
            json!({ "textDocument": { "uri": uri, "version": version }, "contentChanges": [ { "range": range, "text": text } ] }),
        )
        .await;
    }

    /// Waits until the latest diagnostics published for `uri` satisfy `pred`.
    pub async fn diagnostics_where(&self, uri: &str, pred: impl Fn(&Value) -> bool) -> Value {
        let wait = async {
            loop {
                let notified = self.notify.notified();
                if let Some(p) = self.inbox.lock().unwrap().diagnostics.get(uri) {
                    if pred(p) {
                        return p.clone();
                    }
                }
                notified.await;
            }
        };
        match tokio::time::timeout(TIMEOUT, wait).await {
            Ok(v) => v,
            Err(_) => panic!("diagnostics for {uri} never matched; latest: {:#}", self.inbox.lock().unwrap().diagnostics.get(uri).cloned().unwrap_or(Value::Null)),
        }
    }

    /// Waits for diagnostics with exactly these codes (sorted), returns the list.
    pub async fn diagnostics_codes(&self, uri: &str, want: &[&str]) -> Vec<Value> {
        let mut want: Vec<String> = want.iter().map(|s| s.to_string()).collect();
        want.sort();
        let p = self.diagnostics_where(uri, |p| codes(p) == want).await;
        p["diagnostics"].as_array().cloned().unwrap_or_default()
    }

    /// Waits until some notification satisfies `pred`.
    pub async fn notification_where(&self, pred: impl Fn(&Value) -> bool) -> Value {
        let wait = async {
            loop {
                let notified = self.notify.notified();
                if let Some(n) = self.inbox.lock().unwrap().notifications.iter().find(|n| pred(n)) {
                    return n.clone();
                }
                notified.await;
            }
        };
        tokio::time::timeout(TIMEOUT, wait).await.expect("notification never arrived")
    }

    pub fn notifications(&self) -> Vec<Value> {
        self.inbox.lock().unwrap().notifications.clone()
    }

    /// Forgets the notifications received so far (long sessions keep memory flat); the
    /// latest diagnostics per URI are kept.
    pub fn clear_notifications(&self) {
        let mut g = self.inbox.lock().unwrap();
        g.notifications.clear();
        g.server_requests.clear();
    }

    pub fn server_requests(&self) -> Vec<Value> {
        self.inbox.lock().unwrap().server_requests.clone()
    }

    pub fn latest_diagnostics(&self, uri: &str) -> Option<Value> {
        self.inbox.lock().unwrap().diagnostics.get(uri).cloned()
    }

    pub async fn shutdown(self) {
        let _ = self.request("shutdown", Value::Null).await;
        self.notify("exit", Value::Null).await;
        let _ = tokio::time::timeout(TIMEOUT, self.server).await;
        self.reader.abort();
    }
}

/// Sorted diagnostic codes of a publishDiagnostics params.
pub fn codes(p: &Value) -> Vec<String> {
    let mut c: Vec<String> = p["diagnostics"]
        .as_array()
        .map(|a| a.iter().map(|d| d["code"].as_str().unwrap_or("").to_string()).collect())
        .unwrap_or_default();
    c.sort();
    c
}

async fn read_loop(
    mut r: ReadHalf<DuplexStream>,
    pending: Arc<Mutex<HashMap<i64, oneshot::Sender<Value>>>>,
    inbox: Arc<Mutex<Inbox>>,
    notify: Arc<Notify>,
    writer: Arc<tokio::sync::Mutex<WriteHalf<DuplexStream>>>,
) {
    let mut buf: Vec<u8> = Vec::new();
    let mut chunk = vec![0u8; 1 << 16];
    loop {
        // Parse as many complete frames as the buffer holds.
        while let Some((msg, used)) = frame(&buf) {
            buf.drain(..used);
            let is_response = msg.get("method").is_none();
            if is_response {
                if let Some(id) = msg.get("id").and_then(Value::as_i64) {
                    if let Some(tx) = pending.lock().unwrap().remove(&id) {
                        let _ = tx.send(msg);
                    }
                } else {
                    // id null: a parse error response; keep it for inspection.
                    inbox.lock().unwrap().notifications.push(msg);
                    notify.notify_waiters();
                }
                continue;
            }
            let method = msg["method"].as_str().unwrap_or("").to_string();
            if msg.get("id").is_some() {
                inbox.lock().unwrap().server_requests.push(msg.clone());
                let result = match method.as_str() {
                    "workspace/applyEdit" => json!({ "applied": true }),
                    "workspace/configuration" => json!([null]),
                    _ => Value::Null,
                };
                let reply = json!({ "jsonrpc": "2.0", "id": msg["id"], "result": result });
                write_frame(&writer, reply.to_string().as_bytes()).await;
            } else {
                let mut g = inbox.lock().unwrap();
                if method == "textDocument/publishDiagnostics" {
                    let uri = msg["params"]["uri"].as_str().unwrap_or("").to_string();
                    g.diagnostics.insert(uri, msg["params"].clone());
                }
                g.notifications.push(msg);
            }
            notify.notify_waiters();
        }
        match r.read(&mut chunk).await {
            Ok(0) | Err(_) => return,
            Ok(n) => buf.extend_from_slice(&chunk[..n]),
        }
    }
}

async fn write_frame(writer: &tokio::sync::Mutex<WriteHalf<DuplexStream>>, body: &[u8]) {
    let mut w = writer.lock().await;
    let head = format!("Content-Length: {}\r\n\r\n", body.len());
    let _ = w.write_all(head.as_bytes()).await;
    let _ = w.write_all(body).await;
    let _ = w.flush().await;
}

/// One Content-Length frame from the start of `buf`.
fn frame(buf: &[u8]) -> Option<(Value, usize)> {
    let head_end = buf.windows(4).position(|w| w == b"\r\n\r\n")?;
    let head = std::str::from_utf8(&buf[..head_end]).ok()?;
    let len: usize = head
        .lines()
        .find_map(|l| l.strip_prefix("Content-Length:").map(|v| v.trim().parse().ok()))??;
    let start = head_end + 4;
    if buf.len() < start + len {
        return None;
    }
    let v = serde_json::from_slice(&buf[start..start + len]).unwrap_or(Value::Null);
    Some((v, start + len))
}

/// Byte offset of an LSP position in `text` (lines split on `\n`).
pub fn offset(text: &str, pos: &Value, utf8: bool) -> usize {
    let line = pos["line"].as_u64().unwrap() as usize;
    let ch = pos["character"].as_u64().unwrap() as usize;
    let mut start = 0;
    for _ in 0..line {
        match text[start..].find('\n') {
            Some(i) => start += i + 1,
            None => return text.len(),
        }
    }
    let end = text[start..].find('\n').map_or(text.len(), |i| start + i);
    let l = &text[start..end];
    if utf8 {
        return start + ch.min(l.len());
    }
    let mut units = 0;
    for (i, c) in l.char_indices() {
        if units >= ch {
            return start + i;
        }
        units += c.len_utf16();
    }
    end
}

/// LSP position of a byte offset.
pub fn position(text: &str, off: usize, utf8: bool) -> Value {
    let before = &text[..off];
    let line = before.matches('\n').count();
    let ls = before.rfind('\n').map_or(0, |i| i + 1);
    let col = if utf8 { off - ls } else { text[ls..off].chars().map(|c| c.len_utf16()).sum() };
    json!({ "line": line, "character": col })
}

/// Applies LSP text edits (non-overlapping) to `text`.
pub fn apply(text: &str, edits: &[Value], utf8: bool) -> String {
    let mut spans: Vec<(usize, usize, String)> = edits
        .iter()
        .map(|e| {
            (
                offset(text, &e["range"]["start"], utf8),
                offset(text, &e["range"]["end"], utf8),
                e["newText"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    spans.sort_by_key(|s| std::cmp::Reverse(s.0));
    let mut out = text.to_string();
    for (s, e, t) in spans {
        out.replace_range(s..e, &t);
    }
    out
}

/// The edits a code action makes to `uri`.
pub fn action_edits(action: &Value, uri: &str) -> Vec<Value> {
    action["edit"]["changes"][uri].as_array().cloned().unwrap_or_default()
}

pub fn find_action<'a>(actions: &'a Value, title_part: &str) -> &'a Value {
    actions
        .as_array()
        .and_then(|a| a.iter().find(|x| x["title"].as_str().is_some_and(|t| t.contains(title_part))))
        .unwrap_or_else(|| panic!("no action containing {title_part:?} in {actions:#}"))
}

/// Range of the first occurrence of `needle` in `text`.
pub fn range_of(text: &str, needle: &str, utf8: bool) -> Value {
    let s = text.find(needle).unwrap_or_else(|| panic!("{needle:?} not in text"));
    json!({ "start": position(text, s, utf8), "end": position(text, s + needle.len(), utf8) })
}

pub fn pos_of(text: &str, needle: &str, utf8: bool) -> Value {
    position(text, text.find(needle).unwrap_or_else(|| panic!("{needle:?} not in text")), utf8)
}
