//! `knit lsp --stdio` as an editor starts it: the real binary on pipes. Initialize,
//! open a doc, get its diagnostics, survive a malformed frame, hover, shut down and exit
//! with status 0.

use knit_e2e::{lsp_frame as frame, lsp_reader as reader};
use serde_json::{json, Value};
use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::mpsc::{channel, Receiver};
use std::time::{Duration, Instant};

const WAIT: Duration = Duration::from_secs(30);

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        if e.path().is_dir() {
            copy_dir(&e.path(), &to.join(e.file_name()));
        } else {
            std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
        }
    }
}


fn wait_for(rx: &Receiver<Value>, what: &str, pred: impl Fn(&Value) -> bool) -> Value {
    let deadline = Instant::now() + WAIT;
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        match rx.recv_timeout(left) {
            Ok(m) if pred(&m) => return m,
            Ok(_) => {}
            Err(_) => panic!("timed out waiting for {what}"),
        }
    }
}

#[test]
fn knit_lsp_stdio_serves_diagnostics_and_exits_cleanly() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("ws");
    copy_dir(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/lsp/basic"), &root);
    let mut child = Command::new(env!("CARGO_BIN_EXE_knit"))
        .args(["lsp", "--stdio"])
        .current_dir(&root)
        .env("KNIT_CACHE_DIR", tmp.path().join("cache"))
        .env("KNIT_STATE_DIR", tmp.path().join("state"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn knit lsp");
    let mut stdin = child.stdin.take().unwrap();
    let rx = reader(child.stdout.take().unwrap());
    let root_uri = format!("file://{}", root.display());
    let doc_uri = format!("{root_uri}/docs/arch.md");
    let text = std::fs::read_to_string(root.join("docs/arch.md")).unwrap();

    stdin.write_all(&frame(&json!({ "jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "processId": null, "rootUri": root_uri, "capabilities": {},
        "workspaceFolders": [ { "uri": root_uri, "name": "ws" } ] } }))).unwrap();
    let init = wait_for(&rx, "initialize", |m| m["id"] == 1);
    assert_eq!(init["result"]["capabilities"]["positionEncoding"], "utf-16");
    assert_eq!(init["result"]["capabilities"]["experimental"]["knit"]["contextPack"], true);
    stdin.write_all(&frame(&json!({ "jsonrpc": "2.0", "method": "initialized", "params": {} }))).unwrap();
    stdin.write_all(&frame(&json!({ "jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {
        "textDocument": { "uri": doc_uri, "languageId": "markdown", "version": 1, "text": text } } }))).unwrap();
    stdin.flush().unwrap();
    let diags = wait_for(&rx, "diagnostics of arch.md", |m| {
        m["method"] == "textDocument/publishDiagnostics" && m["params"]["uri"] == doc_uri && m["params"]["version"] == 1
    });
    let mut codes: Vec<&str> = diags["params"]["diagnostics"].as_array().unwrap().iter().map(|d| d["code"].as_str().unwrap()).collect();
    codes.sort();
    assert_eq!(codes, ["broken-link", "unrecorded", "unrecorded", "unrecorded", "unrecorded", "unrecorded"]);

    // A malformed frame gets a parse error; the server keeps serving.
    stdin.write_all(b"Content-Length: 5\r\n\r\n{oops").unwrap();
    let line = text.lines().position(|l| l.contains("#subtotal")).unwrap();
    let col = text.lines().nth(line).unwrap().find("#subtotal").unwrap();
    stdin.write_all(&frame(&json!({ "jsonrpc": "2.0", "id": 2, "method": "textDocument/hover", "params": {
        "textDocument": { "uri": doc_uri }, "position": { "line": line, "character": col } } }))).unwrap();
    stdin.flush().unwrap();
    wait_for(&rx, "parse error", |m| m["error"]["code"] == -32700);
    let hover = wait_for(&rx, "hover", |m| m["id"] == 2);
    assert!(hover["result"]["contents"]["value"].as_str().unwrap().contains("`unrecorded`"), "{hover:#}");

    stdin.write_all(&frame(&json!({ "jsonrpc": "2.0", "id": 3, "method": "shutdown" }))).unwrap();
    wait_for(&rx, "shutdown", |m| m["id"] == 3);
    stdin.write_all(&frame(&json!({ "jsonrpc": "2.0", "method": "exit" }))).unwrap();
    stdin.flush().unwrap();
    drop(stdin);
    // A watchdog kills a server that ignores `exit` (a hang guard, not a speed check):
    // a killed process then fails the exit-status assertion below.
    let child = std::sync::Arc::new(std::sync::Mutex::new(child));
    let guard = child.clone();
    let (done_tx, done_rx) = channel::<()>();
    std::thread::spawn(move || {
        if done_rx.recv_timeout(WAIT).is_err() {
            let _ = guard.lock().map(|mut c| c.kill());
        }
    });
    let status = loop {
        if let Some(status) = child.lock().unwrap().try_wait().unwrap() {
            break status;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let _ = done_tx.send(());
    assert!(status.success(), "knit lsp did not exit cleanly after `exit`: {status}");
}
