//! End-to-end protocol behaviour: position encodings, ordering of rapid edits,
//! cancellation, malformed input and hostile paths, completion, the code side,
//! commands, workspace-wide diagnostics, watched files and multi-root folders.

mod common;

use common::*;
use serde_json::{json, Value};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn utf16_and_utf8_columns_on_cjk_and_emoji_lines() {
    for utf8 in [false, true] {
        let (_tmp, root) = workspace("basic");
        let c = Client::start_with(&root, Options { utf8, ..Default::default() }).await;
        assert_eq!(c.init_result["capabilities"]["positionEncoding"], if utf8 { "utf-8" } else { "utf-16" });
        let doc = uri(&root, "docs/unicode.md");
        let text = read(&root, "docs/unicode.md");
        c.open(&doc, &text).await;
        let diags = c.diagnostics_codes(&doc, &["unrecorded", "unrecorded"]).await;
        let mut starts: Vec<Value> = diags.iter().map(|d| d["range"]["start"].clone()).collect();
        starts.sort_by_key(|s| s["character"].as_u64());
        // "説明 😀𝒳 [合計](" is 3 + 1 + 2 + 2 + 1 + 4 = 13 UTF-16 units, 6+1+4+4+1+1+6+2 = 25 bytes.
        let expect = if utf8 { 25 } else { 13 };
        assert_eq!(starts[0], json!({ "line": 2, "character": expect }), "utf8={utf8}");
        assert_eq!(starts[0], position(&text, text.find("../src/cart.ts#subtotal").unwrap(), utf8));

        // A code action's edit lands at the right bytes in either encoding.
        let d = diags.iter().find(|d| d["range"]["start"] == starts[1]).unwrap();
        let actions = c
            .request("textDocument/codeAction", json!({ "textDocument": { "uri": doc }, "range": d["range"], "context": { "diagnostics": [d] } }))
            .await
            .unwrap();
        let after = apply(&text, &action_edits(find_action(&actions, "Record baseline of"), &doc), utf8);
        assert!(after.contains("[価格](../src/cart.ts#formatPrice \"knit:"), "{after}");
        c.change_full(&doc, 2, &after).await;
        c.diagnostics_where(&doc, |p| p["version"] == 2 && codes(p) == ["unrecorded"]).await;
        // Incremental edits in the negotiated encoding: insert after the emoji.
        let at = position(&after, after.find("𝒳").unwrap() + "𝒳".len(), utf8);
        c.change(&doc, 3, json!({ "start": at, "end": at }), "!").await;
        let expected = after.replacen("𝒳", "𝒳!", 1);
        c.diagnostics_where(&doc, |p| p["version"] == 3 && codes(p) == ["unrecorded"]).await;
        // The server's text equals ours: hover lands on the same link at our position.
        let hover = c
            .request("textDocument/hover", json!({ "textDocument": { "uri": doc }, "position": pos_of(&expected, "formatPrice \"", utf8) }))
            .await
            .unwrap();
        assert!(hover["contents"]["value"].as_str().unwrap().contains("`fresh`"), "{hover:#}");
        assert_eq!(hover["range"]["start"], pos_of(&expected, "[価格]", utf8));
        c.shutdown().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rapid_burst_of_changes_ends_in_the_final_state() {
    let (_tmp, root) = workspace("basic");
    let c = Client::start(&root).await;
    let doc = uri(&root, "docs/arch.md");
    let mut text = read(&root, "docs/arch.md");
    c.open(&doc, &text).await;
    c.diagnostics_codes(&doc, &["broken-link", "unrecorded", "unrecorded", "unrecorded", "unrecorded", "unrecorded"]).await;
    // Type "Typo" into the fragment `subtotal` one char at a time, then a sentence.
    let mut version = 1;
    let start = text.find("#subtotal").unwrap() + "#subtotal".len();
    for (at, ch) in (start..).zip("Typo".chars()) {
        let p = position(&text, at, false);
        version += 1;
        c.change(&doc, version, json!({ "start": p, "end": p }), &ch.to_string()).await;
        text.insert(at, ch);
    }
    for i in 0..40 {
        let p = position(&text, text.len(), false);
        version += 1;
        let s = format!("w{i} ");
        c.change(&doc, version, json!({ "start": p, "end": p }), &s).await;
        text.push_str(&s);
    }
    // A replayed old version must be ignored.
    c.change(&doc, 3, json!({ "start": {"line":0,"character":0}, "end": {"line":0,"character":0} }), "JUNK").await;
    let p = c.diagnostics_where(&doc, |p| p["version"] == version).await;
    assert_eq!(codes(&p), ["broken-link", "invalid", "unrecorded", "unrecorded", "unrecorded", "unrecorded"]);
    let invalid = p["diagnostics"].as_array().unwrap().iter().find(|d| d["code"] == "invalid").unwrap().clone();
    assert!(invalid["message"].as_str().unwrap().contains("subtotalTypo"), "{invalid:#}");
    assert_eq!(invalid["range"], range_of(&text, "../src/cart.ts#subtotalTypo", false));
    // No publish for a version newer than the last one sent, none after it with a lower one.
    let versions: Vec<i64> = c
        .notifications()
        .iter()
        .filter(|n| n["method"] == "textDocument/publishDiagnostics" && n["params"]["uri"] == doc)
        .filter_map(|n| n["params"]["version"].as_i64())
        .collect();
    assert!(versions.windows(2).all(|w| w[0] <= w[1]), "{versions:?}");
    c.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cancelled_request_gets_the_cancellation_error() {
    let (_tmp, root) = workspace("basic");
    // Enough docs that a full re-check is still running when the cancel arrives.
    for i in 0..60 {
        std::fs::write(root.join(format!("docs/gen{i}.md")), "See [s](../src/cart.ts#subtotal) and [t](../src/cart.ts#Cart.total).\n".repeat(10)).unwrap();
    }
    let c = Client::start(&root).await;
    let id = c.next_id();
    let rx = c.expect_response(id);
    let req = json!({ "jsonrpc": "2.0", "id": id, "method": "workspace/executeCommand", "params": { "command": "knit.checkWorkspace", "arguments": [] } });
    let cancel = json!({ "jsonrpc": "2.0", "method": "$/cancelRequest", "params": { "id": id } });
    // Both in one write: the cancel is read right behind the request.
    let mut bytes = Vec::new();
    for m in [req, cancel] {
        let body = m.to_string();
        bytes.extend_from_slice(format!("Content-Length: {}\r\n\r\n{body}", body.len()).as_bytes());
    }
    c.send_bytes(&bytes).await;
    let err = Client::response(rx).await.expect_err("cancelled");
    assert_eq!(err["code"], -32800);
    // The server is still alive and answers the same command when not cancelled.
    let counts = c.request("workspace/executeCommand", json!({ "command": "knit.checkWorkspace", "arguments": [] })).await.unwrap();
    assert_eq!(counts["unrecorded"].as_u64().unwrap(), 1200 + 5 + 2 + 1, "{counts:#}");
    c.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn malformed_input_hostile_paths_and_bad_positions_never_break_the_server() {
    let (_tmp, root) = workspace("basic");
    std::fs::write(root.join("docs/binary.md"), [0u8, 159, 146, 150, 0, 1]).unwrap();
    std::fs::write(root.join("docs/latin1.md"), [b'#', b' ', 0xe9, b'\n']).unwrap();
    std::fs::write(root.join("big.ts"), "export const x = 1;\n".repeat(60_000)).unwrap();
    std::fs::write(
        root.join("docs/hostile.md"),
        "[up](../../../etc/passwd#root) [abs](/../../x.ts#f) [big](../big.ts#x) [bin](binary.md#x \"knit:1AAAA\") [bad](../src/cart.ts#a..b)\n",
    )
    .unwrap();
    let c = Client::start(&root).await;
    // Garbage body, invalid JSON-RPC, unknown method.
    c.send_raw(b"{ this is not json").await;
    c.send_raw(br#"{"jsonrpc":"2.0","id":"x","method":42}"#).await;
    let unknown = c.request("knit/noSuchMethod", json!({})).await.expect_err("unknown method");
    assert_eq!(unknown["code"], -32601);
    c.notification_where(|n| n.get("error").is_some_and(|e| e["code"] == -32700)).await;

    let doc = uri(&root, "docs/hostile.md");
    let text = read(&root, "docs/hostile.md");
    c.open(&doc, &text).await;
    let p = c.diagnostics_where(&doc, |p| !codes(p).is_empty()).await;
    assert!(codes(&p).iter().all(|c| c == "invalid"), "{p:#}");
    assert!(p["diagnostics"].as_array().unwrap().iter().any(|d| d["message"].as_str().unwrap().contains("outside the workspace")));
    assert!(p["diagnostics"].as_array().unwrap().iter().any(|d| d["message"].as_str().unwrap().contains("too large")));

    // Out-of-range positions, unknown and foreign URIs, a file outside the root.
    let far = json!({ "line": 99999, "character": 99999 });
    let outside = "file:///definitely/not/here.md";
    for (method, params) in [
        ("textDocument/hover", json!({ "textDocument": { "uri": doc }, "position": far })),
        ("textDocument/definition", json!({ "textDocument": { "uri": doc }, "position": far })),
        ("textDocument/completion", json!({ "textDocument": { "uri": doc }, "position": far })),
        ("textDocument/hover", json!({ "textDocument": { "uri": outside }, "position": {"line":0,"character":0} })),
        ("textDocument/hover", json!({ "textDocument": { "uri": "untitled:Untitled-1" }, "position": {"line":0,"character":0} })),
        ("textDocument/references", json!({ "textDocument": { "uri": outside }, "position": far, "context": { "includeDeclaration": true } })),
        ("textDocument/codeLens", json!({ "textDocument": { "uri": uri(&root, "docs/binary.md") } })),
        ("textDocument/codeAction", json!({ "textDocument": { "uri": doc }, "range": { "start": far, "end": far }, "context": { "diagnostics": [] } })),
    ] {
        let r = c.request(method, params).await;
        assert!(matches!(&r, Ok(v) if v.is_null() || v.as_array().is_some_and(|a| a.is_empty()) || v["items"].as_array().is_some_and(|a| a.is_empty())), "{method}: {r:?}");
    }
    // Edits to unknown documents and out-of-range edits are ignored or clamped.
    c.change(outside, 2, json!({ "start": far, "end": far }), "x").await;
    c.change(&doc, 2, json!({ "start": far, "end": far }), " tail").await;
    c.diagnostics_where(&doc, |p| p["version"] == 2).await;
    let bad_cmd = c.request("workspace/executeCommand", json!({ "command": "knit.recordFile", "arguments": [outside] })).await;
    assert!(bad_cmd.is_err());
    let bad_cmd = c.request("workspace/executeCommand", json!({ "command": "knit.pin", "arguments": ["../../etc/passwd"] })).await;
    assert!(bad_cmd.is_err());
    let bad_pack = c.request("knit/contextPack", json!({ "limit": "many" })).await.expect_err("bad params");
    assert_eq!(bad_pack["code"], -32602);
    // Still serving.
    let h = c.request("textDocument/hover", json!({ "textDocument": { "uri": doc }, "position": pos_of(&text, "passwd", false) })).await.unwrap();
    assert!(h["contents"]["value"].as_str().unwrap().contains("`invalid`"));
    c.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn requests_before_initialize_are_refused() {
    let c = Client::spawn(false);
    let err = c.request("textDocument/hover", json!({ "textDocument": { "uri": "file:///x.md" }, "position": {"line":0,"character":0} })).await.expect_err("not initialized");
    assert_eq!(err["code"], -32002);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn completion_offers_paths_then_symbols_born_recorded() {
    let (_tmp, root) = workspace("basic");
    let c = Client::start(&root).await;
    let doc = uri(&root, "docs/new.md");
    let mut text = String::from("# New\n\nSee [sum](../src/c");
    c.open(&doc, &text).await;
    let end = position(&text, text.len(), false);
    let r = c.request("textDocument/completion", json!({ "textDocument": { "uri": doc }, "position": end })).await.unwrap();
    let items = r["items"].as_array().unwrap();
    // one folder level, only the segment being typed is replaced
    let labels: Vec<&str> = items.iter().filter_map(|i| i["label"].as_str()).collect();
    assert_eq!(labels, ["cart.ts"], "{r:#}");
    let cart = &items[0];
    assert_eq!(cart["textEdit"]["range"]["start"], position(&text, text.len() - 1, false));
    assert_eq!(cart["textEdit"]["newText"], "cart.ts");
    assert_eq!(cart["filterText"], "cart.ts");
    text = apply(&text, &[cart["textEdit"].clone()], false);
    assert!(text.ends_with("[sum](../src/cart.ts"), "{text}");
    text.push_str("#Cart.");
    text.push(')');
    c.change_full(&doc, 2, &text).await;
    let at = position(&text, text.len() - 1, false);
    let r = c.request("textDocument/completion", json!({ "textDocument": { "uri": doc }, "position": at })).await.unwrap();
    let items = r["items"].as_array().unwrap();
    let labels: Vec<&str> = items.iter().filter_map(|i| i["label"].as_str()).collect();
    // after `Cart.`: Cart's members only, each inserting the member
    assert!(labels.contains(&"Cart.total") && !labels.contains(&"subtotal") && !labels.contains(&"LineItem"), "{labels:?}");
    let total = items.iter().find(|i| i["label"] == "Cart.total").unwrap();
    let new_text = total["textEdit"]["newText"].as_str().unwrap();
    assert!(new_text.starts_with("total \"knit:"), "{new_text}");
    assert_eq!(total["filterText"], "total");
    assert_eq!(total["textEdit"]["range"]["start"], position(&text, text.len() - 1, false));
    text = apply(&text, &[total["textEdit"].clone()], false);
    assert!(text.contains("[sum](../src/cart.ts#Cart.total \"knit:"), "{text}");
    c.change_full(&doc, 3, &text).await;
    // Born recorded: fresh, no diagnostic at all.
    c.diagnostics_where(&doc, |p| p["version"] == 3 && codes(p).is_empty()).await;
    // A folder level: `../` from docs/ is the root; folders end in `/`.
    let text1 = "[x](../";
    c.change_full(&doc, 4, text1).await;
    let r = c.request("textDocument/completion", json!({ "textDocument": { "uri": doc }, "position": position(text1, text1.len(), false) })).await.unwrap();
    let labels: Vec<String> = r["items"].as_array().unwrap().iter().filter_map(|i| i["label"].as_str().map(str::to_string)).collect();
    assert!(labels.contains(&"src/".to_string()) && labels.contains(&"README.md".to_string()) && !labels.iter().any(|l| l.contains("cart")), "{labels:?}");
    // Order within a level: linked from this doc, then open in the editor, then by name.
    let lang = uri(&root, "src/lang.ts");
    c.open(&lang, &read(&root, "src/lang.ts")).await;
    let labels_at = |r: &Value| -> Vec<String> { r["items"].as_array().unwrap().iter().filter_map(|i| i["label"].as_str().map(str::to_string)).collect() };
    let text_open = "[x](../src/";
    c.change_full(&doc, 41, text_open).await;
    let r = c.request("textDocument/completion", json!({ "textDocument": { "uri": doc }, "position": position(text_open, text_open.len(), false) })).await.unwrap();
    assert_eq!(labels_at(&r), ["lang.ts", "cart.ts"], "the open file first");
    let text_linked = "[a](../src/cart.ts#Cart)\n[x](../src/";
    c.change_full(&doc, 42, text_linked).await;
    let r = c.request("textDocument/completion", json!({ "textDocument": { "uri": doc }, "position": position(text_linked, text_linked.len(), false) })).await.unwrap();
    assert_eq!(labels_at(&r), ["cart.ts", "lang.ts"], "the file the doc links to first");
    // Headings of a Markdown target.
    let text2 = "[g](guide.md#";
    c.change_full(&doc, 43, text2).await;
    let r = c.request("textDocument/completion", json!({ "textDocument": { "uri": doc }, "position": position(text2, text2.len(), false) })).await.unwrap();
    assert!(r["items"].as_array().unwrap().iter().any(|i| i["label"] == "guide"), "{r:#}");
    // A docs-site route names the page a site serves for it: its headings too.
    let text3 = "[g](guide#";
    c.change_full(&doc, 44, text3).await;
    let r = c.request("textDocument/completion", json!({ "textDocument": { "uri": doc }, "position": position(text3, text3.len(), false) })).await.unwrap();
    assert!(r["items"].as_array().unwrap().iter().any(|i| i["label"] == "guide" && i["textEdit"]["newText"] == "guide"), "{r:#}");
    c.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_code_side_lists_the_docs_that_describe_a_declaration() {
    let (_tmp, root) = workspace("basic");
    record_on_disk(&root, "docs/arch.md");
    record_on_disk(&root, "docs/unicode.md");
    let c = Client::start(&root).await;
    // Wait for the workspace scan (status notification).
    let status = c.notification_where(|n| n["method"] == "knit/status" && n["params"]["scanned"] == true).await;
    assert_eq!(status["params"]["fresh"], 7, "{status:#}");
    assert_eq!(status["params"]["brokenLinks"], 1);
    let code = uri(&root, "src/cart.ts");
    let src = read(&root, "src/cart.ts");
    c.open(&code, &src).await;
    let refs = c
        .request("textDocument/references", json!({ "textDocument": { "uri": code }, "position": pos_of(&src, "sum = 0", false), "context": { "includeDeclaration": false } }))
        .await
        .unwrap();
    let mut docs: Vec<&str> = refs.as_array().unwrap().iter().map(|l| l["uri"].as_str().unwrap()).collect();
    docs.sort();
    // The nested doc's anchor is unrecorded but resolves: it describes `subtotal` too.
    assert_eq!(docs, [uri(&root, "docs/arch.md"), uri(&root, "docs/unicode.md"), uri(&root, "sub/docs/nested.md")]);
    let arch = read(&root, "docs/arch.md");
    let l = refs.as_array().unwrap().iter().find(|l| l["uri"] == uri(&root, "docs/arch.md")).unwrap();
    assert_eq!(l["range"]["start"], pos_of(&arch, "[subtotal]", false));

    let lenses = c.request("textDocument/codeLens", json!({ "textDocument": { "uri": code } })).await.unwrap();
    let titles: Vec<&str> = lenses.as_array().unwrap().iter().map(|l| l["command"]["title"].as_str().unwrap()).collect();
    assert!(titles.contains(&"described by 3 doc lines: docs/arch.md:3, docs/unicode.md:3, sub/docs/nested.md:3"), "{titles:?}");
    let total_lens = lenses.as_array().unwrap().iter().find(|l| l["command"]["title"] == "described by 1 doc line: docs/arch.md:4").unwrap();
    assert_eq!(total_lens["range"]["start"], pos_of(&src, "total(discount", false));
    assert_eq!(total_lens["command"]["command"], "knit.showReferences");
    c.shutdown().await;
}

/// `codeLens.undocumented`: public declarations no doc anchors get a "not documented"
/// lens (the rule of `knit coverage`); off by default.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn public_declarations_no_doc_anchors_get_a_lens_when_asked() {
    let (_tmp, root) = workspace("basic");
    record_on_disk(&root, "docs/arch.md");
    let undocumented = |lenses: &Value| -> Vec<String> {
        lenses
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|l| l["command"]["title"].as_str())
            .filter_map(|t| t.strip_prefix("not documented: no doc anchors "))
            .map(str::to_string)
            .collect()
    };
    let code = uri(&root, "src/cart.ts");
    let src = read(&root, "src/cart.ts");
    for (init, expected) in [
        (json!({}), vec![]),
        (json!({ "codeLens": { "undocumented": true } }), vec!["LineItem", "LineItem.sku", "LineItem.price", "LineItem.quantity", "Cart", "Cart.add"]),
    ] {
        let c = Client::start_with(&root, Options { init, ..Default::default() }).await;
        c.notification_where(|n| n["method"] == "knit/status" && n["params"]["scanned"] == true).await;
        c.open(&code, &src).await;
        let lenses = c.request("textDocument/codeLens", json!({ "textDocument": { "uri": code } })).await.unwrap();
        assert_eq!(undocumented(&lenses), expected, "{lenses:#}");
        if !expected.is_empty() {
            let cart = lenses.as_array().unwrap().iter().find(|l| l["command"]["title"] == "not documented: no doc anchors Cart").unwrap();
            assert_eq!(cart["range"]["start"], pos_of(&src, "Cart {", false));
        }
        c.shutdown().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn commands_status_and_unique_ids() {
    let (_tmp, root) = workspace("basic");
    let c = Client::start_with(&root, Options { init: json!({ "uniqueCommandIds": true }), ..Default::default() }).await;
    let cmds: Vec<String> = c.init_result["capabilities"]["executeCommandProvider"]["commands"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap().to_string())
        .collect();
    let record = cmds.iter().find(|c| c.starts_with("knit.recordFile/")).expect("suffixed id").clone();
    for id in ["knit.checkWorkspace/", "knit.contextPack/", "knit.pin/", "knit.unpin/", "knit.exclude/", "knit.restore/"] {
        assert!(cmds.iter().any(|c| c.starts_with(id)), "{cmds:?}");
    }
    assert_eq!(c.init_result["capabilities"]["experimental"]["knit"]["contextPack"], true);
    assert_eq!(c.init_result["capabilities"]["experimental"]["knit"]["didRead"], true);
    let status = c.notification_where(|n| n["method"] == "knit/status" && n["params"]["scanned"] == true).await;
    assert_eq!(status["params"]["unrecorded"], 8, "{status:#}");
    assert_eq!(status["params"]["mentions"], 1);

    let doc = uri(&root, "docs/arch.md");
    let r = c.request("workspace/executeCommand", json!({ "command": record, "arguments": [doc] })).await.unwrap();
    assert_eq!(r["recorded"], 5, "{r:#}");
    let apply_req = c.server_requests().into_iter().find(|r| r["method"] == "workspace/applyEdit").expect("applyEdit");
    let edits = apply_req["params"]["edit"]["changes"][&doc].as_array().unwrap().clone();
    let after = apply(&read(&root, "docs/arch.md"), &edits, false);
    assert_eq!(after.matches("\"knit:").count(), 5);
    // Plain ids are accepted too.
    let counts = c.request("workspace/executeCommand", json!({ "command": "knit.checkWorkspace", "arguments": [] })).await.unwrap();
    assert_eq!(counts["unrecorded"], 8);
    assert_eq!(counts["brokenLinks"], 1);
    let unknown = c.request("workspace/executeCommand", json!({ "command": "knit.nope" })).await;
    assert!(unknown.is_err());
    // Work-done progress was offered for the scan.
    assert!(c.server_requests().iter().any(|r| r["method"] == "window/workDoneProgress/create"));
    assert!(c.server_requests().iter().any(|r| r["method"] == "client/registerCapability"
        && r["params"]["registrations"][0]["method"] == "workspace/didChangeWatchedFiles"));
    c.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn workspace_diagnostics_watched_files_and_configuration() {
    let (_tmp, root) = workspace("basic");
    record_on_disk(&root, "docs/arch.md");
    let c = Client::start(&root).await;
    let arch = uri(&root, "docs/arch.md");
    let agents = uri(&root, "AGENTS.md");
    // Not opened, yet published after the first scan.
    c.diagnostics_codes(&arch, &["broken-link"]).await;
    c.diagnostics_codes(&agents, &["mention"]).await;
    // A code change on disk reaches docs through didChangeWatchedFiles.
    let cart = read(&root, "src/cart.ts").replace("let sum = 0;", "let sum = 1;");
    std::fs::write(root.join("src/cart.ts"), cart).unwrap();
    c.notify("workspace/didChangeWatchedFiles", json!({ "changes": [ { "uri": uri(&root, "src/cart.ts"), "type": 2 } ] })).await;
    let p = c.diagnostics_codes(&arch, &["broken-link", "stale"]).await;
    assert!(p.iter().any(|d| d["message"].as_str().unwrap().contains("`subtotal`")));
    // Creating the missing page fixes the broken link.
    std::fs::write(root.join("docs/missing.md"), "# Missing\n").unwrap();
    c.notify("workspace/didChangeWatchedFiles", json!({ "changes": [ { "uri": uri(&root, "docs/missing.md"), "type": 1 } ] })).await;
    c.diagnostics_codes(&arch, &["stale"]).await;
    // Severity override and workspace diagnostics off.
    c.notify("workspace/didChangeConfiguration", json!({ "settings": { "knit": { "diagnostics": { "severity": { "stale": "error" } } } } })).await;
    c.diagnostics_where(&arch, |p| p["diagnostics"][0]["severity"] == 1).await;
    c.notify("workspace/didChangeConfiguration", json!({ "settings": { "knit": { "diagnostics": { "workspace": false } } } })).await;
    c.diagnostics_where(&arch, |p| codes(p).is_empty()).await;
    c.diagnostics_where(&agents, |p| codes(p).is_empty()).await;
    c.shutdown().await;
}

/// A client that does not watch files (Neovim 0.7): the server watches the folder itself,
/// so edits made outside the editor reach the diagnostics with no event from the client.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_server_watches_files_when_the_client_does_not() {
    let (_tmp, root) = workspace("basic");
    record_on_disk(&root, "docs/arch.md");
    let c = Client::start_with(&root, Options { watches_files: false, ..Default::default() }).await;
    let arch = uri(&root, "docs/arch.md");
    c.diagnostics_codes(&arch, &["broken-link"]).await;
    assert!(
        !c.server_requests().iter().any(|r| r["method"] == "client/registerCapability"),
        "nothing to register with a client that does not watch files"
    );
    c.notification_where(|n| n["method"] == "window/logMessage" && n["params"]["message"].as_str().is_some_and(|m| m.contains("watching"))).await;
    // Changed behind the editor's back: no didChangeWatchedFiles is sent.
    let cart = read(&root, "src/cart.ts").replace("let sum = 0;", "let sum = 1;");
    std::fs::write(root.join("src/cart.ts"), cart).unwrap();
    let p = c.diagnostics_codes(&arch, &["broken-link", "stale"]).await;
    assert!(p.iter().any(|d| d["message"].as_str().unwrap().contains("`subtotal`")));
    // A file created on disk fixes a broken link too.
    std::fs::write(root.join("docs/missing.md"), "# Missing\n").unwrap();
    c.diagnostics_codes(&arch, &["stale"]).await;
    c.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_doc_belongs_to_the_deepest_folder_that_contains_it() {
    let (_tmp, root) = workspace("basic");
    let sub = root.join("sub");
    let c = Client::start_with(&root, Options { folders: vec![root.clone(), sub.clone()], ..Default::default() }).await;
    let nested = uri(&root, "sub/docs/nested.md");
    c.open(&nested, &read(&root, "sub/docs/nested.md")).await;
    // In folder `sub`, ../../src escapes the root.
    let p = c.diagnostics_codes(&nested, &["invalid"]).await;
    assert!(p[0]["message"].as_str().unwrap().contains("outside the workspace"), "{p:#?}");
    let arch = uri(&root, "docs/arch.md");
    c.open(&arch, &read(&root, "docs/arch.md")).await;
    c.diagnostics_codes(&arch, &["broken-link", "unrecorded", "unrecorded", "unrecorded", "unrecorded", "unrecorded"]).await;
    // Removing the nested folder hands the doc to the outer one.
    c.notify("workspace/didChangeWorkspaceFolders", json!({ "event": { "added": [], "removed": [ { "uri": format!("file://{}", sub.display()), "name": "sub" } ] } })).await;
    c.diagnostics_codes(&nested, &["unrecorded"]).await;
    c.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn context_packs_rank_the_workspace_for_the_task() {
    let (_tmp, root) = workspace("basic");
    let c = Client::start(&root).await;
    let code = uri(&root, "src/cart.ts");
    c.open(&code, &read(&root, "src/cart.ts")).await;
    let pack = c.request("knit/contextPack", json!({ "query": "how is the cart subtotal computed" })).await.unwrap();
    for key in ["task", "epoch", "stats", "pinned", "primary", "supporting", "related", "more"] {
        assert!(pack.get(key).is_some(), "{key} missing in {pack:#}");
    }
    assert_eq!(pack["task"]["source"], "query");
    assert!(pack["task"]["openBuffers"].as_array().unwrap().iter().any(|b| b == "src/cart.ts"), "{pack:#}");
    // The command twin, with no arguments: the task comes from the open buffers.
    let twin = c.request("workspace/executeCommand", json!({ "command": "knit.contextPack" })).await.unwrap();
    assert_eq!(twin["task"]["source"], "openBuffers");
    c.notify("knit/didRead", json!({ "uri": uri(&root, "docs/arch.md") })).await;
    let pinned = c.request("workspace/executeCommand", json!({ "command": "knit.pin", "arguments": ["docs/guide.md"] })).await.unwrap();
    assert_eq!(pinned["pinned"], json!(["docs/guide.md"]));
    let pack = c.request("knit/contextPack", json!({ "query": "cart subtotal" })).await.unwrap();
    assert!(pack["pinned"].as_array().unwrap().iter().any(|i| i["path"] == "docs/guide.md"), "{pack:#}");
    c.shutdown().await;
}
