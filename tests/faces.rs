//! The three faces of the context engine give the same pack for the same inputs: `knit
//! pack --open F`, the MCP tool `context_pack {open: [F]}` and the language server's
//! `knit/contextPack` with F open and focused — on a git workspace, so co-change and the
//! symbol signals take part — and the same for a typed query (`--query Q`, `{query: Q}`).
//! Compared: every tier's paths in order, and each item's reasons and passage lines.

use knit_e2e::{git, git_first_commit, knit_bin, lsp_frame, lsp_reader, Ws};
use serde_json::{json, Value};
use std::io::Write;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn project() -> Ws {
    let ws = Ws::new();
    ws.write("src/router.ts", "export function matchRoute(path: string) {\n  return path.split('/')\n}\n");
    ws.write("src/handler.ts", "import { matchRoute } from './router'\nexport function dispatchRequest(r: string) {\n  return matchRoute(r)\n}\n");
    ws.write("src/router.test.ts", "import { matchRoute } from './router'\ntest('routes', () => matchRoute('/a'))\n");
    ws.write("src/config.ts", "export const timeoutMillis = 1000\n");
    ws.write("docs/routing.md", "# Routing\n\nHow [matchRoute](../src/router.ts#matchRoute) splits paths into routes.\n");
    ws.write("docs/changelog.md", "# Changelog\n\nNothing yet.\n");
    git_first_commit(ws.path(), "init");
    for i in 0..3 {
        ws.write("src/router.ts", format!("export function matchRoute(path: string) {{\n  return path.split('/').slice({i})\n}}\n"));
        ws.write("docs/changelog.md", format!("# Changelog\n\nRouting change {i}.\n"));
        git(ws.path(), &["commit", "-qam", "routing change"]);
    }
    ws
}

/// One item as the faces are compared: tier, path, reasons and passage lines.
type Row = (String, String, Vec<String>, Option<(u64, u64)>);

/// Every item in reading order.
fn tiers(pack: &Value) -> Vec<Row> {
    let mut out = Vec::new();
    for tier in ["pinned", "primary", "supporting", "related", "more"] {
        for item in pack[tier].as_array().cloned().unwrap_or_default() {
            let reasons = item["reasons"].as_array().map(|r| r.iter().filter_map(|x| x.as_str().map(str::to_string)).collect()).unwrap_or_default();
            let passage = item["passage"]["startLine"].as_u64().zip(item["passage"]["endLine"].as_u64());
            out.push((tier.to_string(), item["path"].as_str().unwrap_or("").to_string(), reasons, passage));
        }
    }
    out
}

/// What the pack is asked for, the same on every face.
#[derive(Clone, Copy)]
enum Task<'a> {
    /// `src/router.ts` open and focused, no query.
    OpenRouter,
    /// A typed query, nothing open.
    Query(&'a str),
}

fn cli_pack(ws: &Ws, task: Task<'_>) -> Value {
    let args: Vec<&str> = match task {
        Task::OpenRouter => vec!["pack", "--open", "src/router.ts", "--format", "json"],
        Task::Query(q) => vec!["pack", "--query", q, "--format", "json"],
    };
    let out = ws.knit(&args);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

fn mcp_pack(ws: &Ws, task: Task<'_>) -> Value {
    let mut child = Command::new(knit_bin())
        .arg("mcp")
        .current_dir(ws.path())
        .env("KNIT_CACHE_DIR", ws.cache_path())
        .env("KNIT_STATE_DIR", ws.cache_path())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let lines = [
        json!({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}),
        json!({"jsonrpc":"2.0","method":"notifications/initialized"}),
        json!({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"context_pack","arguments":match task {
            Task::OpenRouter => json!({"open":["src/router.ts"]}),
            Task::Query(q) => json!({"query": q}),
        }}}),
    ];
    let mut input = String::new();
    for l in lines {
        input.push_str(&l.to_string());
        input.push('\n');
    }
    child.stdin.take().unwrap().write_all(input.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    let reply = String::from_utf8_lossy(&out.stdout).lines().filter_map(|l| serde_json::from_str::<Value>(l).ok()).find(|v| v["id"] == 2).expect("tools/call reply");
    reply["result"]["structuredContent"].clone()
}

fn lsp_pack(ws: &Ws, task: Task<'_>) -> Value {
    let mut child = Command::new(knit_bin())
        .args(["lsp", "--stdio"])
        .current_dir(ws.path())
        .env("KNIT_CACHE_DIR", ws.cache_path())
        .env("KNIT_STATE_DIR", ws.cache_path())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let stdout = child.stdout.take().unwrap();
    let rx = lsp_reader(stdout);
    let root = ws.path().canonicalize().unwrap();
    let root_uri = format!("file://{}", root.display());
    let file_uri = format!("{root_uri}/src/router.ts");
    let mut send = |v: Value| {
        stdin.write_all(&lsp_frame(&v)).unwrap();
        stdin.flush().unwrap();
    };
    send(json!({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"processId":null,"rootUri":root_uri,"capabilities":{},"workspaceFolders":[{"uri":root_uri,"name":"ws"}]}}));
    // The server answers nothing else before `initialize` is done.
    let until = Instant::now() + Duration::from_secs(30);
    while Instant::now() < until && rx.recv_timeout(Duration::from_millis(200)).map(|v| v["id"] != 1).unwrap_or(true) {}
    send(json!({"jsonrpc":"2.0","method":"initialized","params":{}}));
    let params = match task {
        Task::OpenRouter => {
            let text = ws.read("src/router.ts");
            send(json!({"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":file_uri,"languageId":"typescript","version":1,"text":text}}}));
            json!({"focus":{"uri":file_uri}})
        }
        Task::Query(q) => json!({"query": q}),
    };
    send(json!({"jsonrpc":"2.0","id":7,"method":"knit/contextPack","params":params}));
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut result = Value::Null;
    while Instant::now() < deadline {
        if let Ok(v) = rx.recv_timeout(Duration::from_millis(200)) {
            if v["id"] == 7 {
                assert!(v.get("error").is_none(), "knit/contextPack failed: {v}");
                result = v["result"].clone();
                break;
            }
        }
    }
    send(json!({"jsonrpc":"2.0","id":8,"method":"shutdown"}));
    send(json!({"jsonrpc":"2.0","method":"exit"}));
    let _ = child.wait();
    assert!(!result.is_null(), "no knit/contextPack answer");
    result
}

#[test]
fn cli_mcp_and_lsp_give_the_same_pack() {
    let ws = project();
    let cli = cli_pack(&ws, Task::OpenRouter);
    let mcp = mcp_pack(&ws, Task::OpenRouter);
    let lsp = lsp_pack(&ws, Task::OpenRouter);
    let cli_t = tiers(&cli);
    assert!(cli_t.iter().any(|(_, p, r, _)| p == "docs/changelog.md" && r.iter().any(|x| x.starts_with("changedWith: src/router.ts"))), "{cli_t:?}");
    assert!(cli_t.iter().any(|(_, p, _, passage)| p == "src/handler.ts" && passage.is_some()), "{cli_t:?}");
    assert_eq!(tiers(&mcp), cli_t, "MCP differs from the CLI");
    assert_eq!(tiers(&lsp), cli_t, "the language server differs from the CLI");
    assert_eq!(cli["task"]["terms"], lsp["task"]["terms"]);
}

#[test]
fn cli_mcp_and_lsp_give_the_same_query_pack() {
    let ws = project();
    // Every query signal takes part: words in text and paths (`routing`), an identifier
    // written as code (`dispatchRequest`), co-change of the best hits and recent work.
    let query = "Make dispatchRequest follow routing changes";
    let cli = cli_pack(&ws, Task::Query(query));
    let cli_t = tiers(&cli);
    assert!(cli_t.iter().any(|(_, p, r, _)| p == "src/handler.ts" && r.iter().any(|x| x == "declares: dispatchRequest (named in the query)")), "{cli_t:?}");
    assert_eq!(tiers(&mcp_pack(&ws, Task::Query(query))), cli_t, "MCP differs from the CLI");
    let lsp = lsp_pack(&ws, Task::Query(query));
    assert_eq!(tiers(&lsp), cli_t, "the language server differs from the CLI");
    assert_eq!(cli["task"]["terms"], lsp["task"]["terms"]);
    assert_eq!(lsp["task"]["source"], "query");
}
