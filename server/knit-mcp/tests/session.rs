//! MCP sessions against the library over in-memory pipes: the happy path an agent takes
//! (initialize → initialized → tools/list → tools/call for every tool) on a workspace with a
//! stale anchor, version negotiation, and malformed input that must be answered (or
//! ignored) without ending the session.

use knit_anchors::edit::{apply_edits, record};
use knit_anchors::{CheckConfig, DeclCache, Session};
use knit_mcp::{serve, ServerOptions};
use knit_workspace::DiskTree;
use serde_json::{json, Value};
use std::fs;
use std::path::Path;

const RESOLVER_TS: &str = r##"import { parseLink } from "./links";

export class AnchorResolver {
  resolve(link: string, depth: number): string {
    const parsed = parseLink(link);
    if (depth > 3) {
      return parsed.path + "#" + parsed.symbol;
    }
    return parsed.path;
  }
}
"##;

const LINKS_TS: &str = r##"export function parseLink(link: string) {
  const [path, symbol] = link.split("#");
  return { path, symbol };
}
"##;

const ARCH_MD: &str = "# Architecture\n\nHow anchors resolve.\n\nThe [resolver](../src/resolve.ts#AnchorResolver.resolve) walks the ladder.\n";

struct Workspace {
    _tmp: tempfile::TempDir,
    root: std::path::PathBuf,
    options: ServerOptions,
}

/// A workspace whose one anchor is recorded, then made stale by a body change.
fn stale_workspace() -> Workspace {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("ws");
    fs::create_dir_all(root.join("src")).unwrap();
    fs::create_dir_all(root.join("docs")).unwrap();
    fs::write(root.join("knit.toml"), "").unwrap();
    fs::write(root.join("src/resolve.ts"), RESOLVER_TS).unwrap();
    fs::write(root.join("src/links.ts"), LINKS_TS).unwrap();
    fs::write(root.join("docs/arch.md"), ARCH_MD).unwrap();
    let root = root.canonicalize().unwrap();
    let tree = DiskTree::new(&root);
    let cache = DeclCache::default();
    let mut session = Session::new(&tree, &cache, CheckConfig::default());
    let (edits, failed) = record(&mut session, "docs/arch.md", ARCH_MD, false);
    assert!(failed.is_empty(), "record failed: {:?}", failed.iter().map(|(_, v)| v.message.clone()).collect::<Vec<_>>());
    assert_eq!(edits.len(), 1);
    fs::write(root.join("docs/arch.md"), apply_edits(ARCH_MD, &edits)).unwrap();
    git(&root, &["init", "-q"]);
    git(&root, &["add", "."]);
    git(&root, &["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "recorded"]);
    fs::write(root.join("src/resolve.ts"), RESOLVER_TS.replace("depth > 3", "depth > 4")).unwrap();
    let options = ServerOptions { cache_dir: Some(tmp.path().join("cache")), state_dir: Some(tmp.path().join("state")) };
    Workspace { _tmp: tmp, root, options }
}

fn git(root: &Path, args: &[&str]) {
    let status = std::process::Command::new("git").current_dir(root).args(args).status().expect("git runs");
    assert!(status.success(), "git {args:?}");
}

/// Feeds `input` to a session and returns every line it wrote, parsed.
fn run(ws: &Workspace, input: &[u8]) -> Vec<Value> {
    let mut out = Vec::new();
    serve(&ws.root, ws.options.clone(), input, &mut out).unwrap();
    String::from_utf8(out).unwrap().lines().map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON ({e}): {l}"))).collect()
}

fn lines(messages: &[Value]) -> Vec<u8> {
    let mut out = Vec::new();
    for m in messages {
        out.extend_from_slice(m.to_string().as_bytes());
        out.push(b'\n');
    }
    out
}

fn by_id(replies: &[Value], id: i64) -> &Value {
    replies.iter().find(|r| r["id"] == json!(id)).unwrap_or_else(|| panic!("no reply with id {id} in {replies:#?}"))
}

fn text_of(result: &Value, index: usize) -> &str {
    result["content"][index]["text"].as_str().unwrap_or_else(|| panic!("no text content #{index} in {result:#}"))
}

#[test]
fn agent_session_checks_anchors_and_packs_context() {
    let ws = stale_workspace();
    let replies = run(
        &ws,
        &lines(&[
            json!({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"test","version":"0"}}}),
            json!({"jsonrpc":"2.0","method":"notifications/initialized"}),
            json!({"jsonrpc":"2.0","id":2,"method":"tools/list"}),
            json!({"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"check_anchors","arguments":{}}}),
            json!({"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"context_pack","arguments":{"query":"how does the anchor resolver resolve a link"}}}),
            json!({"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"check_anchors","arguments":{"paths":["docs"],"changed":true}}}),
            json!({"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"mark_read","arguments":{"paths":["docs/arch.md"]}}}),
            json!({"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"context_pack","arguments":{"query":["anchor resolver", "resolve a link"],"limit":5}}}),
            json!({"jsonrpc":"2.0","id":"p","method":"ping"}),
        ]),
    );
    // one reply per request, none for the notification
    assert_eq!(replies.len(), 8, "{replies:#?}");

    let init = &by_id(&replies, 1)["result"];
    assert_eq!(init["protocolVersion"], "2025-06-18");
    assert_eq!(init["serverInfo"]["name"], "knit");
    assert!(init["capabilities"]["tools"].is_object());

    let tools: Vec<&str> = by_id(&replies, 2)["result"]["tools"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(tools, ["check_anchors", "context_pack", "mark_read"]);
    for t in by_id(&replies, 2)["result"]["tools"].as_array().unwrap() {
        assert_eq!(t["inputSchema"]["type"], "object", "{t}");
        assert!(t["description"].as_str().unwrap().len() > 40);
    }

    // check_anchors: the stale anchor, as text (summary + JSON) and structured content
    let check = &by_id(&replies, 3)["result"];
    assert_eq!(check["isError"], false, "{check:#}");
    let summary = text_of(check, 0);
    assert!(summary.contains("docs/arch.md:5  stale"), "{summary}");
    let report: Value = serde_json::from_str(text_of(check, 1)).unwrap();
    assert_eq!(report, check["structuredContent"]);
    let anchors = report["anchors"].as_array().unwrap();
    assert_eq!(anchors.len(), 1);
    assert_eq!(anchors[0]["doc"], "docs/arch.md");
    assert_eq!(anchors[0]["line"], 5);
    assert_eq!(anchors[0]["state"], "stale");
    assert_eq!(anchors[0]["target"]["symbol"], "AnchorResolver.resolve");
    assert_eq!(report["complete"], true);

    // context_pack: the knit/contextPack shape; the doc about the resolver carries its stale anchor
    let pack = &by_id(&replies, 4)["result"];
    assert_eq!(pack["isError"], false, "{pack:#}");
    let data = &pack["structuredContent"];
    for key in ["task", "epoch", "stats", "pinned", "primary", "supporting", "related", "more"] {
        assert!(data.get(key).is_some(), "pack lacks {key}: {data:#}");
    }
    assert_eq!(data["task"]["source"], "query");
    let all: Vec<&Value> = ["primary", "supporting", "related", "more"].iter().flat_map(|t| data[*t].as_array().unwrap()).collect();
    let paths: Vec<&str> = all.iter().map(|i| i["path"].as_str().unwrap()).collect();
    assert!(paths.contains(&"src/resolve.ts"), "{paths:?}");
    let doc = all.iter().find(|i| i["path"] == "docs/arch.md").unwrap_or_else(|| panic!("docs/arch.md not packed: {paths:?}"));
    assert_eq!(doc["anchors"], json!({"total": 1, "stale": 1, "lost": 0}));
    assert_eq!(doc["lifecycle"], "unread");
    assert!(text_of(pack, 0).contains("src/resolve.ts"), "{}", text_of(pack, 0));

    // changed: the anchored file differs from HEAD, so its anchor is checked
    let changed = &by_id(&replies, 5)["result"];
    assert_eq!(changed["isError"], false, "{changed:#}");
    assert!(text_of(changed, 0).contains("describing changed code"), "{}", text_of(changed, 0));
    assert_eq!(changed["structuredContent"]["anchors"][0]["state"], "stale");

    let read = &by_id(&replies, 6)["result"];
    assert_eq!(read["structuredContent"], json!({"read": ["docs/arch.md"]}));

    let pack2 = &by_id(&replies, 7)["result"]["structuredContent"];
    assert_eq!(pack2["task"]["source"], "conversation");
    let doc2 = ["pinned", "primary", "supporting", "related", "more"].iter().flat_map(|t| pack2[*t].as_array().unwrap()).find(|i| i["path"] == "docs/arch.md");
    assert_eq!(doc2.map(|d| d["lifecycle"].clone()), Some(json!("read")), "{pack2:#}");

    let ping = replies.iter().find(|r| r["id"] == "p").unwrap();
    assert_eq!(ping["result"], json!({}));
}

#[test]
fn changed_only_skips_anchors_on_untouched_code() {
    let ws = stale_workspace();
    git(&ws.root, &["checkout", "-q", "--", "src/resolve.ts"]);
    fs::write(ws.root.join("src/links.ts"), LINKS_TS.replace("split", "splitAt")).unwrap();
    let replies = run(&ws, &lines(&[json!({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"check_anchors","arguments":{"changed":true}}})]));
    let r = &by_id(&replies, 1)["result"];
    assert_eq!(r["isError"], false, "{r:#}");
    assert_eq!(r["structuredContent"]["anchors"], json!([]), "{r:#}");
    assert!(text_of(r, 0).contains("All anchors are fresh"), "{}", text_of(r, 0));
}

#[test]
fn a_session_with_its_own_cache_keeps_the_check_state_and_parses_there() {
    let ws = stale_workspace();
    let replies = run(&ws, &lines(&[json!({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"check_anchors","arguments":{}}})]));
    assert_eq!(by_id(&replies, 1)["result"]["isError"], false);
    // Under the session's cache folder, not the user's (tests and embedders never touch it).
    let own = ws.options.cache_dir.as_ref().unwrap().join(knit_workspace::workspace_key(&ws.root));
    let entries: Vec<String> = fs::read_dir(&own).map(|d| d.filter_map(|e| e.ok()).map(|e| e.file_name().to_string_lossy().into_owned()).collect()).unwrap_or_default();
    assert!(entries.iter().any(|e| e.starts_with("decls-")), "no parse cache in {}: {entries:?}", own.display());
    let default = knit_workspace::cache_dir_for(&ws.root).unwrap();
    assert_ne!(default, own);
    assert!(!default.exists(), "the session wrote into {}", default.display());
}

#[test]
fn negotiates_protocol_versions() {
    let ws = stale_workspace();
    let replies = run(
        &ws,
        &lines(&[
            json!({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2024-11-05","capabilities":{},"clientInfo":{"name":"old","version":"0"}}}),
            json!({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"check_anchors","arguments":{"paths":["docs/arch.md"]}}}),
        ]),
    );
    assert_eq!(by_id(&replies, 1)["result"]["protocolVersion"], "2024-11-05");
    // 2024-11-05 has no structuredContent: the report travels as text only
    let check = &by_id(&replies, 2)["result"];
    assert!(check.get("structuredContent").is_none(), "{check:#}");
    assert!(text_of(check, 1).contains("\"stale\""));

    let replies = run(&ws, &lines(&[json!({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"1999-01-01"}})]));
    assert_eq!(by_id(&replies, 1)["result"]["protocolVersion"], "2025-06-18");
}

#[test]
fn malformed_input_is_answered_and_the_session_goes_on() {
    let ws = stale_workspace();
    let mut input = Vec::new();
    for raw in [
        &b"{not json"[..],
        b"\xff\xfe\xfd",
        b"[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}]",
        b"42",
        b"{\"jsonrpc\":\"1.0\",\"id\":10,\"method\":\"ping\"}",
        b"{\"jsonrpc\":\"2.0\",\"id\":11,\"method\":\"no/such/method\"}",
        b"{\"jsonrpc\":\"2.0\",\"id\":12,\"method\":\"tools/call\",\"params\":{\"name\":\"no_such_tool\"}}",
        b"{\"jsonrpc\":\"2.0\",\"id\":13,\"method\":\"tools/call\",\"params\":{\"arguments\":{}}}",
        b"{\"jsonrpc\":\"2.0\",\"id\":14,\"method\":\"tools/call\",\"params\":{\"name\":\"check_anchors\",\"arguments\":[1]}}",
        b"{\"jsonrpc\":\"2.0\",\"id\":15,\"method\":\"tools/call\",\"params\":{\"name\":\"check_anchors\",\"arguments\":{\"paths\":[\"../../etc\"]}}}",
        b"{\"jsonrpc\":\"2.0\",\"id\":16,\"method\":\"tools/call\",\"params\":{\"name\":\"check_anchors\",\"arguments\":{\"paths\":\"docs\"}}}",
        b"{\"jsonrpc\":\"2.0\",\"id\":17,\"method\":\"tools/call\",\"params\":{\"name\":\"context_pack\",\"arguments\":{\"limit\":\"many\"}}}",
        b"{\"jsonrpc\":\"2.0\",\"id\":18,\"method\":\"tools/call\",\"params\":{\"name\":\"context_pack\",\"arguments\":{\"focus\":{\"uri\":\"file:///nowhere/x.ts\",\"position\":{\"line\":99999999}}}}}",
        b"{\"jsonrpc\":\"2.0\",\"id\":19,\"method\":\"tools/call\",\"params\":{\"name\":\"mark_read\",\"arguments\":{\"paths\":[]}}}",
        b"{\"jsonrpc\":\"2.0\",\"id\":20,\"method\":\"tools/call\",\"params\":{\"name\":\"check_anchors\",\"arguments\":{\"paths\":[\"docs/missing.md\"]}}}",
        b"{\"jsonrpc\":\"2.0\",\"id\":{\"x\":1},\"method\":\"ping\"}",
        b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":3}}",
        b"{\"jsonrpc\":\"2.0\",\"id\":99,\"result\":{}}",
        b"",
        b"{\"jsonrpc\":\"2.0\",\"id\":21,\"method\":\"ping\"}",
    ] {
        input.extend_from_slice(raw);
        input.push(b'\n');
    }
    // a final message without its newline still counts
    input.extend_from_slice(b"{\"jsonrpc\":\"2.0\",\"id\":22,\"method\":\"ping\"}");
    let replies = run(&ws, &input);

    let codes: Vec<i64> = replies.iter().take(4).map(|r| r["error"]["code"].as_i64().unwrap()).collect();
    assert_eq!(codes, [-32700, -32700, -32600, -32600]);
    assert!(replies.iter().take(4).all(|r| r["id"].is_null()));
    assert_eq!(by_id(&replies, 10)["error"]["code"], -32600);
    assert_eq!(by_id(&replies, 11)["error"]["code"], -32601);
    assert_eq!(by_id(&replies, 12)["error"]["code"], -32602);
    assert_eq!(by_id(&replies, 13)["error"]["code"], -32602);
    assert_eq!(by_id(&replies, 14)["error"]["code"], -32602);
    // bad tool arguments are tool errors (isError), so the agent sees the reason
    for id in [15, 16, 17, 19, 20] {
        let r = &by_id(&replies, id)["result"];
        assert_eq!(r["isError"], true, "id {id}: {r:#}");
        assert!(!text_of(r, 0).is_empty());
    }
    assert!(text_of(&by_id(&replies, 15)["result"], 0).contains("outside the workspace"));
    // a focus outside the workspace is ignored, not fatal
    assert_eq!(by_id(&replies, 18)["result"]["isError"], false, "{:#}", by_id(&replies, 18));
    assert_eq!(by_id(&replies, 21)["result"], json!({}));
    assert_eq!(by_id(&replies, 22)["result"], json!({}));
    // notifications and responses get no reply; everything else exactly one
    assert_eq!(replies.len(), 18, "{replies:#?}");
}

#[test]
fn refuses_a_root_that_is_not_a_folder() {
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("f");
    fs::write(&file, "x").unwrap();
    assert!(knit_mcp::McpServer::new(&file, ServerOptions::default()).is_err());
    assert!(knit_mcp::McpServer::new(Path::new("/definitely/not/here"), ServerOptions::default()).is_err());
}
