//! Replays what Helix sends to `knit lsp` (editors/helix/languages.toml): Helix's
//! initialize capabilities (UTF-8 position encoding first, code action literals with
//! resolve support, no custom requests), then the requests behind its native features on
//! the example workspace — diagnostics on open, hover on a renamed anchor, the rebind code
//! action applied as Helix applies it (an incremental change), go to definition — and
//! `:lsp-workspace-command knit.contextPack`, which Helix sends without arguments.

use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

/// Upper bound for any single wait: a hung server fails the test instead of hanging it.
const WAIT: Duration = Duration::from_secs(60);

/// `config` of `[language-server.knit]` in editors/helix/languages.toml (checked there by
/// editors/helix/test/check_languages_toml.py).
fn helix_config() -> Value {
    json!({ "diagnostics": { "workspace": true } })
}

fn helix_capabilities() -> Value {
    json!({
        "workspace": {
            "configuration": true,
            "didChangeConfiguration": { "dynamicRegistration": false },
            "workspaceFolders": true,
            "applyEdit": true,
            "symbol": { "dynamicRegistration": false },
            "executeCommand": { "dynamicRegistration": false },
            "inlayHint": { "refreshSupport": false },
            "workspaceEdit": {
                "documentChanges": true,
                "resourceOperations": ["create", "rename", "delete"],
                "failureHandling": "abort",
                "normalizesLineEndings": false
            },
            "didChangeWatchedFiles": { "dynamicRegistration": true, "relativePatternSupport": false },
            "fileOperations": { "willRename": true, "didRename": true }
        },
        "textDocument": {
            "completion": {
                "completionItem": {
                    "snippetSupport": true,
                    "resolveSupport": { "properties": ["documentation", "detail", "additionalTextEdits"] },
                    "insertReplaceSupport": true,
                    "deprecatedSupport": true,
                    "tagSupport": { "valueSet": [1] }
                },
                "completionItemKind": {}
            },
            "hover": { "contentFormat": ["markdown"] },
            "signatureHelp": {
                "signatureInformation": {
                    "documentationFormat": ["markdown"],
                    "parameterInformation": { "labelOffsetSupport": true },
                    "activeParameterSupport": true
                }
            },
            "rename": { "dynamicRegistration": false, "prepareSupport": true, "honorsChangeAnnotations": false },
            "formatting": { "dynamicRegistration": false },
            "codeAction": {
                "codeActionLiteralSupport": { "codeActionKind": { "valueSet": [
                    "", "quickfix", "refactor", "refactor.extract", "refactor.inline", "refactor.rewrite", "source", "source.organizeImports"
                ] } },
                "isPreferredSupport": true,
                "disabledSupport": true,
                "dataSupport": true,
                "resolveSupport": { "properties": ["edit", "command"] }
            },
            "publishDiagnostics": { "versionSupport": true, "tagSupport": { "valueSet": [1, 2] } },
            "inlayHint": { "dynamicRegistration": false }
        },
        "window": { "workDoneProgress": true },
        "general": { "positionEncodings": ["utf-8", "utf-32", "utf-16"] }
    })
}

struct Session {
    child: Child,
    stdin: ChildStdin,
    rx: Receiver<Value>,
    next_id: i64,
    /// Notifications received while waiting for responses, oldest first.
    notifications: Vec<Value>,
    /// Edits the server asked Helix to apply (`workspace/applyEdit`).
    applied: Vec<Value>,
}

fn read_message(reader: &mut impl BufRead) -> Option<Value> {
    let mut length = None;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).ok()? == 0 {
            return None;
        }
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        if let Some(v) = line.strip_prefix("Content-Length:") {
            length = v.trim().parse::<usize>().ok();
        }
    }
    let mut body = vec![0; length?];
    reader.read_exact(&mut body).ok()?;
    serde_json::from_slice(&body).ok()
}

impl Session {
    fn start(root: &Path, state: &Path) -> Session {
        let mut child = Command::new(env!("CARGO_BIN_EXE_knit"))
            .arg("lsp")
            .current_dir(root)
            .env("KNIT_CACHE_DIR", state.join("cache"))
            .env("KNIT_STATE_DIR", state.join("state"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("knit lsp starts");
        let stdin = child.stdin.take().unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, rx) = channel();
        std::thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            while let Some(msg) = read_message(&mut reader) {
                if tx.send(msg).is_err() {
                    break;
                }
            }
        });
        Session { child, stdin, rx, next_id: 0, notifications: Vec::new(), applied: Vec::new() }
    }

    fn send(&mut self, msg: Value) {
        let body = msg.to_string();
        write!(self.stdin, "Content-Length: {}\r\n\r\n{}", body.len(), body).unwrap();
        self.stdin.flush().unwrap();
    }

    fn notify(&mut self, method: &str, params: Value) {
        self.send(json!({ "jsonrpc": "2.0", "method": method, "params": params }));
    }

    /// Answers a server → client request as Helix would.
    fn answer(&mut self, msg: &Value) {
        let method = msg["method"].as_str().unwrap_or("");
        let result = match method {
            "workspace/configuration" => {
                let n = msg["params"]["items"].as_array().map(Vec::len).unwrap_or(1);
                Value::Array(vec![helix_config(); n])
            }
            "workspace/applyEdit" => {
                self.applied.push(msg["params"]["edit"].clone());
                json!({ "applied": true })
            }
            "workspace/workspaceFolders" => Value::Null,
            // window/workDoneProgress/create, client/registerCapability, …
            _ => Value::Null,
        };
        self.send(json!({ "jsonrpc": "2.0", "id": msg["id"].clone(), "result": result }));
    }

    fn recv(&mut self, deadline: Instant) -> Option<Value> {
        let left = deadline.saturating_duration_since(Instant::now());
        match self.rx.recv_timeout(left) {
            Ok(msg) => Some(msg),
            Err(RecvTimeoutError::Timeout) => None,
            Err(RecvTimeoutError::Disconnected) => panic!("knit lsp closed its output"),
        }
    }

    /// Handles one incoming message: answers requests, keeps notifications.
    fn pump(&mut self, msg: Value) -> Option<Value> {
        if msg.get("method").is_some() && msg.get("id").is_some() {
            self.answer(&msg);
            None
        } else if msg.get("method").is_some() {
            self.notifications.push(msg);
            None
        } else {
            Some(msg)
        }
    }

    fn request(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        self.send(json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params }));
        let deadline = Instant::now() + WAIT;
        loop {
            let msg = self.recv(deadline).unwrap_or_else(|| panic!("no answer to {method}"));
            if let Some(resp) = self.pump(msg) {
                if resp["id"] == json!(id) {
                    assert!(resp.get("error").is_none(), "{method} failed: {resp:#}");
                    return resp["result"].clone();
                }
            }
        }
    }

    /// Waits for a `publishDiagnostics` of `uri` that satisfies `pred`; returns its diagnostics.
    fn diagnostics_until(&mut self, uri: &str, what: &str, pred: impl Fn(&[Value]) -> bool) -> Vec<Value> {
        let deadline = Instant::now() + WAIT;
        let mut last = Vec::new();
        loop {
            for n in self.notifications.drain(..).collect::<Vec<_>>() {
                if n["method"] == "textDocument/publishDiagnostics" && n["params"]["uri"] == uri {
                    last = n["params"]["diagnostics"].as_array().cloned().unwrap_or_default();
                    if pred(&last) {
                        return last;
                    }
                }
            }
            match self.recv(deadline) {
                Some(msg) => {
                    self.pump(msg);
                }
                None => panic!("timed out waiting for diagnostics ({what}) of {uri}; last: {last:#?}"),
            }
        }
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let dest = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &dest);
        } else {
            std::fs::copy(entry.path(), &dest).unwrap();
        }
    }
}

fn file_uri(p: &Path) -> String {
    format!("file://{}", p.display())
}

fn has_code(diags: &[Value], code: &str, line: u64) -> bool {
    diags.iter().any(|d| d["code"] == code && d["source"] == "knit" && d["range"]["start"]["line"] == line)
}

/// Applies LSP text edits (ASCII text, so every position encoding agrees) and returns the
/// changes as Helix sends them: ranged, last edit first so earlier positions stay valid.
fn apply(text: &str, edits: &[Value]) -> (String, Vec<Value>) {
    let offset = |pos: &Value| -> usize {
        let line = pos["line"].as_u64().unwrap() as usize;
        let ch = pos["character"].as_u64().unwrap() as usize;
        text.split_inclusive('\n').take(line).map(str::len).sum::<usize>() + ch
    };
    let mut sorted: Vec<&Value> = edits.iter().collect();
    sorted.sort_by_key(|e| std::cmp::Reverse(offset(&e["range"]["start"])));
    let mut out = text.to_string();
    let mut changes = Vec::new();
    for e in sorted {
        let (s, t) = (offset(&e["range"]["start"]), offset(&e["range"]["end"]));
        let new = e["newText"].as_str().unwrap();
        out.replace_range(s..t, new);
        changes.push(json!({ "range": e["range"].clone(), "text": new }));
    }
    (out, changes)
}

/// The text edits of `uri` in a WorkspaceEdit (`changes` or `documentChanges`).
fn edits_for(edit: &Value, uri: &str) -> Vec<Value> {
    if let Some(list) = edit["changes"][uri].as_array() {
        return list.clone();
    }
    edit["documentChanges"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|dc| dc["textDocument"]["uri"] == uri)
        .flat_map(|dc| dc["edits"].as_array().cloned().unwrap_or_default())
        .collect()
}

fn example() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/example")
}

#[test]
fn helix_session_on_the_example_workspace() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("example");
    copy_dir(&example(), &root);
    let root = root.canonicalize().unwrap();
    let mut s = Session::start(&root, tmp.path());

    let init = s.request(
        "initialize",
        json!({
            "processId": std::process::id(),
            "workspaceFolders": [{ "uri": file_uri(&root), "name": "example" }],
            "rootPath": root.display().to_string(),
            "rootUri": file_uri(&root),
            "initializationOptions": helix_config(),
            "capabilities": helix_capabilities(),
            "clientInfo": { "name": "helix", "version": "25.07.1" }
        }),
    );
    let caps = &init["capabilities"];
    let encoding = caps["positionEncoding"].as_str().unwrap_or("utf-16");
    assert!(["utf-8", "utf-32", "utf-16"].contains(&encoding), "{encoding}");
    assert!(caps["hoverProvider"].as_bool().unwrap_or(caps["hoverProvider"].is_object()), "{caps:#}");
    assert!(!caps["definitionProvider"].is_null() && !caps["codeActionProvider"].is_null(), "{caps:#}");
    let commands: Vec<&str> = caps["executeCommandProvider"]["commands"].as_array().unwrap().iter().filter_map(Value::as_str).collect();
    // Helix sends no uniqueCommandIds: `:lsp-workspace-command` shows the plain ids
    assert!(commands.contains(&"knit.contextPack"), "{commands:?}");
    s.notify("initialized", json!({}));
    s.notify("workspace/didChangeConfiguration", json!({ "settings": helix_config() }));

    let doc_path = root.join("docs/architecture.md");
    let doc_uri = file_uri(&doc_path);
    let text = std::fs::read_to_string(&doc_path).unwrap();
    s.notify("textDocument/didOpen", json!({ "textDocument": { "uri": doc_uri, "languageId": "markdown", "version": 0, "text": text } }));

    // diagnostics: the stale resolver (line 3) and the renamed languageForPath (line 6)
    let diags = s.diagnostics_until(&doc_uri, "stale + moved-renamed", |d| has_code(d, "stale", 2) && has_code(d, "moved-renamed", 5));
    let renamed = diags.iter().find(|d| d["code"] == "moved-renamed").unwrap().clone();
    assert!(renamed["message"].as_str().unwrap().contains("pathLanguage"), "{renamed:#}");

    // hover on the renamed anchor names the declaration's new name and place
    let line5 = text.lines().nth(5).unwrap();
    let col = line5.find("[languageForPath]").unwrap() as u64 + 3;
    let hover = s.request("textDocument/hover", json!({ "textDocument": { "uri": doc_uri }, "position": { "line": 5, "character": col } }));
    let hover_text = hover["contents"]["value"].as_str().map(str::to_string).unwrap_or_else(|| hover["contents"].to_string());
    assert!(hover_text.contains("pathLanguage") && hover_text.contains("src/util/paths.ts"), "{hover:#}");

    // go to definition follows the rename
    let def = s.request("textDocument/definition", json!({ "textDocument": { "uri": doc_uri }, "position": { "line": 5, "character": col } }));
    let def = if def.is_array() { def[0].clone() } else { def };
    let target = def["uri"].as_str().or(def["targetUri"].as_str()).unwrap_or_default().to_string();
    assert!(target.ends_with("src/util/paths.ts"), "{def:#}");

    // code actions at the cursor, with the diagnostics under it (Helix's request shape)
    let range = json!({ "start": { "line": 5, "character": col }, "end": { "line": 5, "character": col } });
    let actions = s.request(
        "textDocument/codeAction",
        json!({ "textDocument": { "uri": doc_uri }, "range": range, "context": { "diagnostics": [renamed], "triggerKind": 1 } }),
    );
    let actions = actions.as_array().cloned().unwrap_or_default();
    let titles: Vec<&str> = actions.iter().filter_map(|a| a["title"].as_str()).collect();
    let rebind = actions
        .iter()
        .find(|a| a["title"].as_str().is_some_and(|t| t.starts_with("Rebind")))
        .unwrap_or_else(|| panic!("no Rebind action in {titles:?}"))
        .clone();
    let rebind = if rebind.get("edit").is_some() { rebind } else { s.request("codeAction/resolve", rebind) };
    let edits = edits_for(&rebind["edit"], &doc_uri);
    assert!(!edits.is_empty(), "{rebind:#}");
    let (new_text, changes) = apply(&text, &edits);
    assert!(new_text.contains("paths.ts#pathLanguage"), "{new_text}");
    s.notify("textDocument/didChange", json!({ "textDocument": { "uri": doc_uri, "version": 1 }, "contentChanges": changes }));
    let after = s.diagnostics_until(&doc_uri, "rename fixed", |d| !has_code(d, "moved-renamed", 5) && !d.iter().any(|x| x["code"] == "moved-renamed"));
    assert!(has_code(&after, "stale", 2), "the stale anchor stays: {after:#?}");

    // `:lsp-workspace-command knit.contextPack` (no arguments): a pack for the open doc
    let pack = s.request("workspace/executeCommand", json!({ "command": "knit.contextPack" }));
    for key in ["task", "epoch", "stats", "pinned", "primary", "supporting", "related", "more"] {
        assert!(pack.get(key).is_some(), "pack lacks {key}: {pack:#}");
    }
    let listed: Vec<&str> = ["primary", "supporting", "related", "more"]
        .iter()
        .flat_map(|t| pack[*t].as_array().into_iter().flatten())
        .filter_map(|i| i["path"].as_str())
        .collect();
    assert!(listed.iter().any(|p| p.starts_with("src/")), "{pack:#}");
    assert!(!listed.contains(&"docs/architecture.md"), "open buffers are the task, never packed: {listed:?}");
    let pack = s.request("workspace/executeCommand", json!({ "command": "knit.contextPack", "arguments": [{ "query": "language registry lookup" }] }));
    assert_eq!(pack["task"]["source"], "query", "{pack:#}");

    let _ = s.request("shutdown", Value::Null);
    s.notify("exit", Value::Null);
    let deadline = Instant::now() + WAIT;
    loop {
        if let Some(status) = s.child.try_wait().unwrap() {
            assert!(status.success(), "knit lsp exited with {status}");
            break;
        }
        if Instant::now() >= deadline {
            panic!("knit lsp did not exit after `exit`");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}
