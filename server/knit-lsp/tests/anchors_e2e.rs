//! End-to-end: the real server over a pipe, on a copy of `fixtures/lsp/basic`.
//! Diagnostics → code actions → edits applied → diagnostics clear; unsaved code edits;
//! moves and renames through hover, definition and rebind.

mod common;

use common::*;
use serde_json::{json, Value};

fn diag_with_code<'a>(diags: &'a [Value], code: &str) -> &'a Value {
    diags.iter().find(|d| d["code"] == code).unwrap_or_else(|| panic!("no {code} diagnostic in {diags:#?}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unrecorded_anchors_are_recorded_by_a_code_action_and_the_diagnostics_clear() {
    let (_tmp, root) = workspace("basic");
    let c = Client::start(&root).await;
    let doc = uri(&root, "docs/arch.md");
    let mut text = read(&root, "docs/arch.md");
    c.open(&doc, &text).await;
    let diags = c
        .diagnostics_codes(&doc, &["broken-link", "unrecorded", "unrecorded", "unrecorded", "unrecorded", "unrecorded"])
        .await;
    // Range = the destination; source, severity, data.
    let first = &diags.iter().find(|d| d["code"] == "unrecorded").unwrap();
    assert_eq!(first["source"], "knit");
    assert_eq!(first["severity"], 4, "unrecorded is a hint");
    assert_eq!(first["range"], range_of(&text, "../src/cart.ts#subtotal", false));
    let broken = diag_with_code(&diags, "broken-link");
    assert_eq!(broken["severity"], 2);
    assert!(broken["message"].as_str().unwrap().contains("missing.md"));

    let actions = c
        .request("textDocument/codeAction", json!({
            "textDocument": { "uri": doc },
            "range": first["range"],
            "context": { "diagnostics": [first] }
        }))
        .await
        .unwrap();
    let all = find_action(&actions, "Record baselines of all 5");
    text = apply(&text, &action_edits(all, &doc), false);
    assert_eq!(text.matches("\"knit:").count(), 5, "{text}");
    c.change_full(&doc, 2, &text).await;
    c.diagnostics_where(&doc, |p| p["version"] == 2 && codes(p) == ["broken-link"]).await;
    c.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unsaved_code_edit_turns_an_anchor_stale_and_back() {
    let (_tmp, root) = workspace("basic");
    record_on_disk(&root, "docs/arch.md");
    let c = Client::start(&root).await;
    let doc = uri(&root, "docs/arch.md");
    c.open(&doc, &read(&root, "docs/arch.md")).await;
    c.diagnostics_codes(&doc, &["broken-link"]).await;

    let code = uri(&root, "src/cart.ts");
    let original = read(&root, "src/cart.ts");
    c.open(&code, &original).await;
    // Edit the body of `subtotal` in the buffer only.
    let edited = original.replace("sum += item.price * item.quantity;", "sum += item.price * item.quantity * 2;");
    c.change(&code, 2, range_of(&original, "sum += item.price * item.quantity;", false), "sum += item.price * item.quantity * 2;").await;
    let diags = c.diagnostics_codes(&doc, &["broken-link", "stale"]).await;
    let stale = diag_with_code(&diags, "stale");
    assert!(stale["message"].as_str().unwrap().contains("`subtotal` changed"), "{stale:#}");
    assert_eq!(stale["range"], range_of(&read(&root, "docs/arch.md"), "../src/cart.ts#subtotal", false));
    let related = &stale["relatedInformation"][0];
    assert_eq!(related["location"]["uri"], code);
    assert_eq!(related["location"]["range"]["start"], pos_of(&edited, "subtotal(items", false));

    // The code buffer names the doc line that goes stale.
    let code_diags = c.diagnostics_where(&code, |p| codes(p) == ["will-go-stale"]).await;
    let d = &code_diags["diagnostics"][0];
    assert!(d["message"].as_str().unwrap().contains("docs/arch.md:3"), "{d:#}");
    assert_eq!(d["range"]["start"], pos_of(&edited, "subtotal(items", false));

    // Undo: fresh again, code diagnostic cleared.
    c.change_full(&code, 3, &original).await;
    c.diagnostics_codes(&doc, &["broken-link"]).await;
    c.diagnostics_where(&code, |p| codes(p).is_empty()).await;
    c.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn moves_and_renames_are_followed_by_hover_definition_and_rebind() {
    let (_tmp, root) = workspace("basic");
    record_on_disk(&root, "docs/arch.md");
    // Rename in place, move + rename to another file, shift a line range.
    let cart = read(&root, "src/cart.ts").replace("formatPrice", "priceLabel");
    let cart = format!("// Cart model.\n\n{cart}");
    std::fs::write(root.join("src/cart.ts"), &cart).unwrap();
    let lang = read(&root, "src/lang.ts").replace("languageForPath", "pathLanguage");
    std::fs::create_dir_all(root.join("src/util")).unwrap();
    std::fs::write(root.join("src/util/paths.ts"), &lang).unwrap();
    std::fs::remove_file(root.join("src/lang.ts")).unwrap();

    let c = Client::start(&root).await;
    let doc = uri(&root, "docs/arch.md");
    let mut text = read(&root, "docs/arch.md");
    c.open(&doc, &text).await;
    let diags = c.diagnostics_codes(&doc, &["broken-link", "moved", "moved-renamed", "renamed"]).await;
    let renamed = diag_with_code(&diags, "renamed");
    assert_eq!(renamed["message"], "`formatPrice` was renamed to `priceLabel` in src/cart.ts");
    assert_eq!(renamed["severity"], 2);
    let mr = diag_with_code(&diags, "moved-renamed");
    assert_eq!(mr["message"], "`languageForPath` was renamed to `pathLanguage` in src/util/paths.ts");
    assert_eq!(mr["relatedInformation"][0]["location"]["uri"], uri(&root, "src/util/paths.ts"));

    // Hover: state, new name and place, signature.
    let hover = c
        .request("textDocument/hover", json!({ "textDocument": { "uri": doc }, "position": pos_of(&text, "#formatPrice", false) }))
        .await
        .unwrap();
    let md = hover["contents"]["value"].as_str().unwrap();
    assert!(md.contains("`renamed`") && md.contains("`priceLabel`") && md.contains("src/cart.ts"), "{md}");
    assert!(md.contains("```typescript\nexport function priceLabel(cents: number, currency: string): string"), "{md}");

    // Definition follows the move and the rename.
    let def = c
        .request("textDocument/definition", json!({ "textDocument": { "uri": doc }, "position": pos_of(&text, "#languageForPath", false) }))
        .await
        .unwrap();
    assert_eq!(def["uri"], uri(&root, "src/util/paths.ts"));
    assert_eq!(def["range"]["start"], pos_of(&lang, "pathLanguage(", false));
    let def = c
        .request("textDocument/definition", json!({ "textDocument": { "uri": doc }, "position": pos_of(&text, "#formatPrice", false) }))
        .await
        .unwrap();
    assert_eq!(def["range"]["start"], pos_of(&cart, "priceLabel(", false));

    // Rebind both, update the line numbers: every diagnostic but the broken link clears.
    for d in [renamed, mr, diag_with_code(&diags, "moved")] {
        let actions = c
            .request("textDocument/codeAction", json!({ "textDocument": { "uri": doc }, "range": d["range"], "context": { "diagnostics": [d] } }))
            .await
            .unwrap();
        let title = if d["code"] == "moved" { "Update line numbers to 3-7" } else { "Rebind to" };
        let a = find_action(&actions, title);
        assert_eq!(a["isPreferred"], true);
        text = apply(&text, &action_edits(a, &doc), false);
    }
    assert!(text.contains("../src/cart.ts#priceLabel \"knit:"), "{text}");
    assert!(text.contains("../src/util/paths.ts#pathLanguage \"knit:"), "{text}");
    assert!(text.contains("../src/cart.ts#L3-L7 \"knit:"), "{text}");
    c.change_full(&doc, 2, &text).await;
    c.diagnostics_where(&doc, |p| p["version"] == 2 && codes(p) == ["broken-link"]).await;
    c.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lost_anchors_offer_candidates_and_removal_keeps_the_text() {
    let (_tmp, root) = workspace("basic");
    record_on_disk(&root, "docs/arch.md");
    let lang = read(&root, "src/lang.ts");
    // Two identical copies under new names: ambiguous → lost with candidates.
    let twin = lang.replace("languageForPath", "langA") + &lang.replace("languageForPath", "langB").replace("const EXTENSIONS", "const EXT2");
    std::fs::write(root.join("src/lang.ts"), twin).unwrap();
    let c = Client::start(&root).await;
    let doc = uri(&root, "docs/arch.md");
    let text = read(&root, "docs/arch.md");
    c.open(&doc, &text).await;
    let diags = c.diagnostics_codes(&doc, &["broken-link", "lost"]).await;
    let lost = diag_with_code(&diags, "lost");
    assert_eq!(lost["severity"], 1);
    let actions = c
        .request("textDocument/codeAction", json!({ "textDocument": { "uri": doc }, "range": lost["range"], "context": { "diagnostics": [lost] } }))
        .await
        .unwrap();
    find_action(&actions, "Rebind to `langB`");
    // A client that shows no picker (no `clientCommands`) is not offered one.
    assert!(!actions.as_array().unwrap().iter().any(|a| a["title"].as_str().unwrap().ends_with("to…")), "{actions:#}");
    let remove = find_action(&actions, "Remove anchor");
    let after = apply(&text, &action_edits(remove, &doc), false);
    assert!(after.contains("Languages come from languageForPath."), "{after}");
    c.change_full(&doc, 2, &after).await;
    c.diagnostics_where(&doc, |p| p["version"] == 2 && codes(p) == ["broken-link"]).await;
    // Hover on a lost anchor lists the candidates.
    c.change_full(&doc, 3, &text).await;
    let hover = c
        .request("textDocument/hover", json!({ "textDocument": { "uri": doc }, "position": pos_of(&text, "#languageForPath", false) }))
        .await
        .unwrap();
    let md = hover["contents"]["value"].as_str().unwrap();
    assert!(md.contains("Candidates") && md.contains("langA") && md.contains("langB"), "{md}");
    c.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mentions_convert_into_recorded_anchors() {
    let (_tmp, root) = workspace("basic");
    let c = Client::start(&root).await;
    let doc = uri(&root, "AGENTS.md");
    let text = read(&root, "AGENTS.md");
    c.open(&doc, &text).await;
    let diags = c.diagnostics_codes(&doc, &["mention"]).await;
    let actions = c
        .request("textDocument/codeAction", json!({ "textDocument": { "uri": doc }, "range": diags[0]["range"], "context": { "diagnostics": diags } }))
        .await
        .unwrap();
    let convert = find_action(&actions, "Convert `src/cart.ts:7-13`");
    let after = apply(&text, &action_edits(convert, &doc), false);
    assert!(after.contains("[`src/cart.ts:7-13`](src/cart.ts#subtotal \"knit:"), "{after}");
    c.change_full(&doc, 2, &after).await;
    c.diagnostics_where(&doc, |p| p["version"] == 2 && codes(p).is_empty()).await;
    c.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stale_anchors_are_confirmed_and_hover_says_what_changed() {
    let (_tmp, root) = workspace("basic");
    record_on_disk(&root, "docs/arch.md");
    let cart = read(&root, "src/cart.ts").replace("Math.max(0, raw - discount)", "Math.max(1, raw - discount)");
    std::fs::write(root.join("src/cart.ts"), cart).unwrap();
    let c = Client::start(&root).await;
    let doc = uri(&root, "docs/arch.md");
    let text = read(&root, "docs/arch.md");
    c.open(&doc, &text).await;
    let diags = c.diagnostics_codes(&doc, &["broken-link", "stale"]).await;
    let stale = diag_with_code(&diags, "stale");
    let hover: Value = c
        .request("textDocument/hover", json!({ "textDocument": { "uri": doc }, "position": pos_of(&text, "#Cart.total", false) }))
        .await
        .unwrap();
    let md = hover["contents"]["value"].as_str().unwrap();
    assert!(md.contains("`stale`") && md.contains("`Cart.total` changed"), "{md}");
    let actions = c
        .request("textDocument/codeAction", json!({ "textDocument": { "uri": doc }, "range": stale["range"], "context": { "diagnostics": [stale] } }))
        .await
        .unwrap();
    let after = apply(&text, &action_edits(find_action(&actions, "Confirm reviewed"), &doc), false);
    c.change_full(&doc, 2, &after).await;
    c.diagnostics_where(&doc, |p| p["version"] == 2 && codes(p) == ["broken-link"]).await;
    c.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn editing_a_paired_doc_turns_its_doc_anchors_stale() {
    let (_tmp, root) = workspace("basic");
    record_docs_on_disk(&root, "docs/guide.md");
    let guide = read(&root, "docs/guide.md");
    assert!(guide.contains("(arch.md \"knit:"), "{guide}");
    let c = Client::start(&root).await;
    let guide_uri = uri(&root, "docs/guide.md");
    c.open(&guide_uri, &guide).await;
    c.diagnostics_where(&guide_uri, |p| p["version"] == 1 && codes(p).is_empty()).await;
    // Edit the target doc in its (unsaved) buffer: the anchor on it goes stale.
    let arch_uri = uri(&root, "docs/arch.md");
    let arch = read(&root, "docs/arch.md");
    c.open(&arch_uri, &arch).await;
    c.change_full(&arch_uri, 2, &arch.replace("sums line items", "adds up the line items")).await;
    let p = c.diagnostics_where(&guide_uri, |p| codes(p) == ["stale"]).await;
    assert!(p["diagnostics"][0]["message"].as_str().unwrap().contains("docs/arch.md changed"), "{p:#}");
    c.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_action_confirms_every_reviewed_anchor_of_the_file() {
    let (_tmp, root) = workspace("basic");
    record_on_disk(&root, "docs/arch.md");
    // Two kinds of drift in the code buffer: subtotal's body changes, formatPrice is renamed.
    let code = uri(&root, "src/cart.ts");
    let original = read(&root, "src/cart.ts");
    let edited = original
        .replace("sum += item.price * item.quantity;", "sum += item.price * item.quantity * 2;")
        .replace("formatPrice", "formatCents");
    let c = Client::start(&root).await;
    let doc = uri(&root, "docs/arch.md");
    let mut text = read(&root, "docs/arch.md");
    c.open(&doc, &text).await;
    c.open(&code, &original).await;
    c.change_full(&code, 2, &edited).await;
    let diags = c.diagnostics_codes(&doc, &["broken-link", "renamed", "stale"]).await;
    let stale = diag_with_code(&diags, "stale");
    let actions = c
        .request("textDocument/codeAction", json!({
            "textDocument": { "uri": doc },
            "range": stale["range"],
            "context": { "diagnostics": [stale] }
        }))
        .await
        .unwrap();
    let all = find_action(&actions, "Confirm reviewed: all 2 stale, moved or renamed anchors in this file");
    text = apply(&text, &action_edits(all, &doc), false);
    assert!(text.contains("(../src/cart.ts#formatCents \"knit:"), "the renamed anchor is rebound: {text}");
    c.change_full(&doc, 2, &text).await;
    c.diagnostics_where(&doc, |p| p["version"] == 2 && codes(p) == ["broken-link"]).await;
    c.shutdown().await;
}

/// The outline of a doc: headings nested by level, each anchor under its section with its
/// state as the detail.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn document_symbols_outline_sections_and_their_anchors() {
    let (_tmp, root) = workspace("basic");
    let text = concat!(
        "# Guide\n",
        "Intro to the [subtotal](../src/cart.ts#subtotal).\n",
        "## Prices\n",
        "[formatPrice](../src/cart.ts#formatPrice) and [gone](../src/cart.ts#nope).\n",
        "### Deep\n",
        "The [fields](../src/cart.ts#L1-L5).\n",
        "## Other\n",
        "Nothing here.\n",
        "# Appendix\n",
    );
    std::fs::write(root.join("docs/outline.md"), text).unwrap();
    let c = Client::start(&root).await;
    let doc = uri(&root, "docs/outline.md");
    c.open(&doc, text).await;
    let symbols = c.request("textDocument/documentSymbol", json!({ "textDocument": { "uri": doc } })).await.unwrap();
    // name (detail) [kind] { children }
    fn outline(list: &Value) -> Vec<String> {
        list.as_array()
            .unwrap()
            .iter()
            .map(|s| {
                let kids = s.get("children").map(outline).unwrap_or_default();
                let detail = s["detail"].as_str().map(|d| format!(" ({d})")).unwrap_or_default();
                let inner = if kids.is_empty() { String::new() } else { format!(" {{ {} }}", kids.join(", ")) };
                format!("{}{} [{}]{}", s["name"].as_str().unwrap(), detail, s["kind"], inner)
            })
            .collect()
    }
    assert_eq!(
        outline(&symbols),
        vec![
            "Guide [15] { subtotal (unrecorded · ../src/cart.ts#subtotal) [12], Prices [15] { formatPrice (unrecorded · ../src/cart.ts#formatPrice) [12], gone (invalid · ../src/cart.ts#nope) [20], Deep [15] { fields (unrecorded · ../src/cart.ts#L1-L5) [16] } }, Other [15] }".to_string(),
            "Appendix [15]".to_string(),
        ]
    );
    // A section's range runs to the next heading of its level; the selection is the heading line.
    let guide = &symbols[0];
    assert_eq!(guide["selectionRange"]["start"]["line"], 0);
    assert_eq!(guide["range"]["end"]["line"], 8, "{guide:#}");
    assert!(c.init_result["capabilities"]["documentSymbolProvider"] == true);
    c.shutdown().await;
}

/// Anchored declarations are found by name from anywhere, where they are now.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn workspace_symbols_find_anchored_declarations_by_name() {
    let (_tmp, root) = workspace("basic");
    let c = Client::start(&root).await;
    // After the first scan every doc has a report.
    c.diagnostics_codes(&uri(&root, "docs/arch.md"), &["broken-link", "unrecorded", "unrecorded", "unrecorded", "unrecorded", "unrecorded"]).await;
    let found = c.request("workspace/symbol", json!({ "query": "total" })).await.unwrap();
    let names: Vec<&str> = found.as_array().unwrap().iter().map(|s| s["name"].as_str().unwrap()).collect();
    // Names starting with the query first, then the rest; each declaration once.
    assert_eq!(names, vec!["Cart.total", "subtotal"], "{found:#}");
    let total = &found[0];
    assert_eq!(total["location"]["uri"], uri(&root, "src/cart.ts"));
    let cart = read(&root, "src/cart.ts");
    let line = cart.lines().position(|l| l.trim_start().starts_with("total(")).unwrap();
    assert_eq!(total["location"]["range"]["start"]["line"], line as u64, "{total:#}");
    assert_eq!(total["kind"], 6, "a method");
    assert!(total["containerName"].as_str().unwrap().contains("described in docs/arch.md"));
    // Unrelated names are not offered; an empty query lists every anchored declaration.
    let none = c.request("workspace/symbol", json!({ "query": "zzz" })).await.unwrap();
    assert_eq!(none, json!([]));
    let all = c.request("workspace/symbol", json!({ "query": "" })).await.unwrap();
    assert!(all.as_array().unwrap().len() >= 4, "{all:#}");
    c.shutdown().await;
}

/// A heading's references are the links to its section from every doc; renaming it
/// rewrites the heading and every one of those links in one workspace edit.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn headings_have_references_and_rename_with_their_links() {
    let (_tmp, root) = workspace("basic");
    let guide = "# Guide\n\nRead the [architecture](arch.md) first.\n\n## Install the tool\n\nSteps. See [below](#install-the-tool).\n\n## Other\n";
    let readme = "# Read me\n\n[install](docs/guide.md#install-the-tool), [the guide](docs/guide.md), [other](docs/guide.md#other).\n";
    std::fs::write(root.join("docs/guide.md"), guide).unwrap();
    std::fs::write(root.join("README.md"), readme).unwrap();
    let c = Client::start(&root).await;
    c.diagnostics_codes(&uri(&root, "docs/arch.md"), &["broken-link", "unrecorded", "unrecorded", "unrecorded", "unrecorded", "unrecorded"]).await;
    let doc = uri(&root, "docs/guide.md");
    c.open(&doc, guide).await;
    let at = json!({ "line": 4, "character": 5 });
    let refs = c
        .request("textDocument/references", json!({ "textDocument": { "uri": doc }, "position": at, "context": { "includeDeclaration": true } }))
        .await
        .unwrap();
    let mut places: Vec<String> = refs.as_array().unwrap().iter().map(|l| format!("{}:{}", l["uri"].as_str().unwrap().rsplit('/').next().unwrap(), l["range"]["start"]["line"])).collect();
    places.sort();
    // The heading itself, the link within the doc, the link from README (not the others).
    assert_eq!(places, vec!["README.md:2", "guide.md:4", "guide.md:6"], "{refs:#}");

    let prep = c.request("textDocument/prepareRename", json!({ "textDocument": { "uri": doc }, "position": at })).await.unwrap();
    assert_eq!(prep["placeholder"], "Install the tool");
    assert_eq!(prep["range"]["start"], json!({ "line": 4, "character": 3 }));
    let edit = c
        .request("textDocument/rename", json!({ "textDocument": { "uri": doc }, "position": at, "newName": "Installing" }))
        .await
        .unwrap();
    let guide_after = apply(guide, edit["changes"][&doc].as_array().unwrap(), false);
    assert!(guide_after.contains("## Installing\n") && guide_after.contains("[below](#installing)"), "{guide_after}");
    let readme_uri = uri(&root, "README.md");
    let readme_after = apply(readme, edit["changes"][&readme_uri].as_array().unwrap(), false);
    assert_eq!(readme_after, "# Read me\n\n[install](docs/guide.md#installing), [the guide](docs/guide.md), [other](docs/guide.md#other).\n");
    // A name whose anchor another heading has is refused; so is renaming a line that is not a heading.
    let clash = c.request("textDocument/rename", json!({ "textDocument": { "uri": doc }, "position": at, "newName": "Other" })).await;
    assert!(clash.unwrap_err()["message"].as_str().unwrap().contains("#other"));
    let not_heading = c.request("textDocument/prepareRename", json!({ "textDocument": { "uri": doc }, "position": { "line": 2, "character": 3 } })).await.unwrap();
    assert_eq!(not_heading, Value::Null);
    c.shutdown().await;
}

fn git(dir: &std::path::Path, args: &[&str]) {
    let out = std::process::Command::new("git")
        .args(["-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false", "-c", "core.hooksPath=/dev/null"])
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .output()
        .expect("git");
    assert!(out.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
}

/// Hover on a stale anchor says what changed since review: the commit of the reviewed
/// version, the commits since that changed the declaration, and its diff.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hover_on_a_stale_anchor_shows_the_commits_and_the_diff_since_review() {
    let (_tmp, root) = workspace("basic");
    record_on_disk(&root, "docs/arch.md");
    git(&root, &["init", "-q"]);
    git(&root, &["add", "-A"]);
    git(&root, &["commit", "-qm", "Cart and its docs"]);
    let cart = read(&root, "src/cart.ts").replace("Math.max(0, raw - discount)", "Math.max(1, raw - discount)");
    std::fs::write(root.join("src/cart.ts"), cart).unwrap();
    git(&root, &["commit", "-qam", "Never charge nothing"]);
    let c = Client::start_with(&root, Options { init: json!({ "clientCommands": ["knit.changesSinceReview"] }), ..Options::default() }).await;
    let doc = uri(&root, "docs/arch.md");
    let text = read(&root, "docs/arch.md");
    c.open(&doc, &text).await;
    c.diagnostics_codes(&doc, &["broken-link", "stale"]).await;
    let hover: Value = c
        .request("textDocument/hover", json!({ "textDocument": { "uri": doc }, "position": pos_of(&text, "#Cart.total", false) }))
        .await
        .unwrap();
    let md = hover["contents"]["value"].as_str().unwrap();
    assert!(md.contains("Reviewed as of `") && md.contains("Cart and its docs"), "{md}");
    assert!(md.contains("Changed since by:") && md.contains("Never charge nothing"), "{md}");
    assert!(md.contains("```diff\n") && md.contains("-    return Math.max(0, raw - discount);") && md.contains("+    return Math.max(1, raw - discount);"), "{md}");

    // "Show changes since review": a code action whose command gives the whole diff as a
    // document for the client to open.
    let at = pos_of(&text, "#Cart.total", false);
    let actions: Value = c
        .request(
            "textDocument/codeAction",
            json!({ "textDocument": { "uri": doc }, "range": { "start": at, "end": at }, "context": { "diagnostics": [] } }),
        )
        .await
        .unwrap();
    let show = actions
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["title"].as_str().is_some_and(|t| t.starts_with("Show changes since review of `../src/cart.ts#Cart.total`")))
        .unwrap_or_else(|| panic!("no Show changes action: {actions:#}"));
    assert_eq!(show["command"]["command"], "knit.changesSinceReview", "{show:#}");
    let shown: Value =
        c.request("workspace/executeCommand", json!({ "command": "knit.changesSinceReview", "arguments": show["command"]["arguments"] })).await.unwrap();
    let body = shown["text"].as_str().unwrap_or_else(|| panic!("{shown:#}"));
    assert!(body.starts_with("Changes to ../src/cart.ts#Cart.total since it was reviewed (docs/arch.md:"), "{body}");
    assert!(body.contains("Cart and its docs") && body.contains("Changed since by:\n") && body.contains("Never charge nothing"), "{body}");
    assert!(body.contains("\n--- reviewed (") && body.contains("+    return Math.max(1, raw - discount);"), "{body}");
    // A fresh anchor has none, and says why; a position off any anchor is an error.
    let fresh = pos_of(&text, "#subtotal", false);
    let none: Value =
        c.request("workspace/executeCommand", json!({ "command": "knit.changesSinceReview", "arguments": [doc, fresh] })).await.unwrap();
    assert!(none["text"].is_null() && none["message"].as_str().unwrap().contains("only a stale, moved or renamed"), "{none:#}");
    let off = c
        .request("workspace/executeCommand", json!({ "command": "knit.changesSinceReview", "arguments": [doc, { "line": 0, "character": 0 }] }))
        .await;
    assert!(off.unwrap_err()["message"].as_str().unwrap().contains("no anchor at"));
    c.shutdown().await;
}

/// A function rewritten under another name is lost; its candidates are the declarations
/// most like it (a function that shares a word and the file, not a property that merely
/// shares a word), each saying how alike and why; "Rebind to…" lists every declaration
/// of the workspace for the client's picker, and the pick is applied with its baseline.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_lost_function_ranks_likely_targets_and_the_picker_rebinds_to_any_declaration() {
    let (_tmp, root) = workspace("basic");
    record_on_disk(&root, "docs/arch.md");
    let cart = read(&root, "src/cart.ts");
    let start = cart.find("export function formatPrice").unwrap();
    let end = start + cart[start..].find("\n}\n").unwrap() + 3;
    let rewritten = "export function renderPriceLabel(amount: number, unit: string): string {\n  return unit + \" \" + (amount / 100).toFixed(2);\n}\n";
    std::fs::write(root.join("src/cart.ts"), format!("{}{}{}", &cart[..start], rewritten, &cart[end..])).unwrap();
    let opts = Options { init: json!({ "clientCommands": ["knit.changesSinceReview", "knit.rebindCandidates"] }), ..Options::default() };
    let c = Client::start_with(&root, opts).await;
    let doc = uri(&root, "docs/arch.md");
    let text = read(&root, "docs/arch.md");
    c.open(&doc, &text).await;
    let diags = c.diagnostics_codes(&doc, &["broken-link", "lost"]).await;
    let lost = diag_with_code(&diags, "lost");
    let at = pos_of(&text, "#formatPrice", false);
    let hover = c.request("textDocument/hover", json!({ "textDocument": { "uri": doc }, "position": at })).await.unwrap();
    let md = hover["contents"]["value"].as_str().unwrap();
    let line = md.lines().find(|l| l.contains("`renderPriceLabel`")).unwrap_or_else(|| panic!("{md}"));
    assert!(line.contains("% alike: name shares `price`; same kind (function); same file"), "{line}");
    assert!(!md.contains("LineItem.price"), "a property that merely shares a word is offered: {md}");
    let actions = c
        .request("textDocument/codeAction", json!({ "textDocument": { "uri": doc }, "range": lost["range"], "context": { "diagnostics": [lost] } }))
        .await
        .unwrap();
    find_action(&actions, "Rebind to `renderPriceLabel` in src/cart.ts");
    let picker = find_action(&actions, "Rebind `../src/cart.ts#formatPrice` to…");
    assert_eq!(picker["command"]["command"], "knit.rebindCandidates");
    let list: Value =
        c.request("workspace/executeCommand", json!({ "command": "knit.rebindCandidates", "arguments": picker["command"]["arguments"] })).await.unwrap();
    let items = list["items"].as_array().unwrap();
    assert_eq!(items[0]["symbol"], "renderPriceLabel", "{list:#}");
    let symbols: Vec<&str> = items.iter().map(|i| i["symbol"].as_str().unwrap()).collect();
    for s in ["subtotal", "Cart", "Cart.total", "LineItem", "languageForPath"] {
        assert!(symbols.contains(&s), "{s} missing from the picker: {symbols:?}");
    }
    let scores: Vec<u64> = items.iter().map(|i| i["similarity"].as_u64().unwrap()).collect();
    assert!(scores.windows(2).all(|w| w[0] >= w[1]), "not best first: {scores:?}");
    // The user picks something the ranking put low: it is applied all the same.
    c.clear_notifications();
    let done: Value = c
        .request("workspace/executeCommand", json!({ "command": "knit.rebind", "arguments": [doc, at, { "path": "src/cart.ts", "symbol": "subtotal" }] }))
        .await
        .unwrap();
    assert_eq!(done["applied"], true, "{done:#}");
    let req = c.server_requests().into_iter().find(|r| r["method"] == "workspace/applyEdit").expect("applyEdit");
    let after = apply(&text, req["params"]["edit"]["changes"][&doc].as_array().unwrap(), false);
    assert!(after.contains("(../src/cart.ts#subtotal \"knit:") && !after.contains("#formatPrice"), "{after}");
    c.change_full(&doc, 2, &after).await;
    c.diagnostics_where(&doc, |p| p["version"] == 2 && codes(p) == ["broken-link"]).await;
    // A target that does not exist is refused with the reason.
    let bad = c
        .request("workspace/executeCommand", json!({ "command": "knit.rebind", "arguments": [doc, at, { "path": "src/cart.ts", "symbol": "nothingHere" }] }))
        .await;
    assert!(bad.unwrap_err()["message"].as_str().unwrap().contains("cannot rebind to src/cart.ts#nothingHere"));
    c.shutdown().await;
}

/// The `code-mention` diagnostic (off by default; a severity turns it on): inline code
/// naming exactly one declaration gets a hint, whose quick fix converts it — offered on
/// the lightbulb's automatic requests too, since the analysis already found it. Turning
/// the severity on at run time analyses the open docs again.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn code_mention_hints_are_opt_in_and_carry_their_fix() {
    let (_tmp, root) = workspace("basic");
    let c = Client::start(&root).await;
    let doc = uri(&root, "docs/mentions.md");
    let text = "# Mentions\n\nPrices print through `formatPrice()`; `config` is a word.\n";
    c.open(&doc, text).await;
    // Off by default: the doc is analysed and published without it.
    c.diagnostics_where(&doc, |p| p["version"] == 1 && codes(p).is_empty()).await;
    c.notify("workspace/didChangeConfiguration", json!({ "settings": { "knit": { "diagnostics": { "severity": { "code-mention": "hint" } } } } })).await;
    let published = c.diagnostics_where(&doc, |p| codes(p) == ["code-mention"]).await;
    let d = &published["diagnostics"][0];
    assert_eq!(d["severity"], 4, "{d:#}");
    assert_eq!(d["range"]["start"], pos_of(text, "`formatPrice()`", false));
    assert!(d["message"].as_str().unwrap().contains("../src/cart.ts#formatPrice"), "{d:#}");
    let at = pos_of(text, "formatPrice()", false);
    let auto: Value = c
        .request(
            "textDocument/codeAction",
            json!({ "textDocument": { "uri": doc }, "range": { "start": at, "end": at }, "context": { "diagnostics": [d], "triggerKind": 2 } }),
        )
        .await
        .unwrap();
    let fix = find_action(&auto, "Convert `formatPrice()` to an anchor (../src/cart.ts#formatPrice)");
    assert_eq!(fix["kind"], "quickfix");
    assert_eq!(fix["diagnostics"][0]["code"], "code-mention");
    let after = apply(text, &action_edits(fix, &doc), false);
    assert!(after.contains("[`formatPrice()`](../src/cart.ts#formatPrice \"knit:"), "{after}");
    c.change_full(&doc, 2, &after).await;
    c.diagnostics_where(&doc, |p| p["version"] == 2 && codes(p).is_empty()).await;
    c.shutdown().await;
}

/// TSDoc `{@link}` (and DocC) symbol links: hover and go-to-definition like an anchor,
/// a broken-link diagnostic with did-you-mean when the container lacks the member; no
/// baseline, so never stale.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn symbol_links_hover_define_and_report_broken_ones() {
    let (_tmp, root) = workspace("basic");
    let c = Client::start(&root).await;
    let doc = uri(&root, "docs/links.md");
    let text = "# Links\n\nThe total is {@link Cart.total}; the sum {@link Cart.totl | sums}.\n";
    c.open(&doc, text).await;
    let published = c.diagnostics_where(&doc, |p| p["version"] == 1 && codes(p) == ["broken-link"]).await;
    let d = &published["diagnostics"][0];
    assert_eq!(d["range"]["start"], pos_of(text, "{@link Cart.totl", false));
    assert!(d["message"].as_str().unwrap().contains("`Cart` has no member `totl`") && d["message"].as_str().unwrap().contains("did you mean `total`"), "{d:#}");
    assert_eq!(d["data"]["kind"], "broken-symbol-link");
    let at = pos_of(text, "Cart.total}", false);
    let hover = c.request("textDocument/hover", json!({ "textDocument": { "uri": doc }, "position": at })).await.unwrap();
    let value = hover["contents"]["value"].as_str().unwrap();
    assert!(value.contains("TSDoc") && value.contains("`Cart.total` (method) in `src/cart.ts`") && value.contains("no baseline"), "{value}");
    let def = c.request("textDocument/definition", json!({ "textDocument": { "uri": doc }, "position": at })).await.unwrap();
    assert_eq!(def["uri"], uri(&root, "src/cart.ts"), "{def:#}");
    assert_eq!(def["range"]["start"], pos_of(&read(&root, "src/cart.ts"), "total(discount", false));
    c.shutdown().await;
}

/// Inline code naming exactly one declaration converts into a recorded anchor, one or
/// all of the file's; an ambiguous or prose mention offers nothing.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn code_mentions_convert_into_recorded_anchors() {
    let (_tmp, root) = workspace("basic");
    let c = Client::start(&root).await;
    let doc = uri(&root, "docs/mentions.md");
    let text = "# Mentions\n\nPrices print through `formatPrice()`; `Cart.total` sums; `config` is a word.\n";
    c.open(&doc, text).await;
    let at = pos_of(text, "formatPrice()", false);
    let actions: Value = c
        .request("textDocument/codeAction", json!({ "textDocument": { "uri": doc }, "range": { "start": at, "end": at }, "context": { "diagnostics": [] } }))
        .await
        .unwrap();
    let one = find_action(&actions, "Convert `formatPrice()` to an anchor (../src/cart.ts#formatPrice)");
    let after_one = apply(text, &action_edits(one, &doc), false);
    assert!(after_one.contains("[`formatPrice()`](../src/cart.ts#formatPrice \"knit:") && after_one.contains("`Cart.total` sums"), "{after_one}");
    let all = find_action(&actions, "Convert all 2 code mentions in this file to anchors");
    let after_all = apply(text, &action_edits(all, &doc), false);
    assert!(after_all.contains("[`Cart.total`](../src/cart.ts#Cart.total \"knit:") && after_all.contains("`config` is a word"), "{after_all}");
    // The lightbulb's automatic requests (every cursor move) do not pay for the index.
    let auto: Value = c
        .request(
            "textDocument/codeAction",
            json!({ "textDocument": { "uri": doc }, "range": { "start": at, "end": at }, "context": { "diagnostics": [], "triggerKind": 2 } }),
        )
        .await
        .unwrap();
    assert!(!auto.as_array().map(|a| a.iter().any(|x| x["title"].as_str().unwrap_or("").starts_with("Convert"))).unwrap_or(false), "{auto:#}");
    c.change_full(&doc, 2, &after_all).await;
    // Born recorded: fresh, no diagnostic.
    c.diagnostics_where(&doc, |p| p["version"] == 2 && codes(p).is_empty()).await;
    // On a plain word: nothing to convert.
    let word = pos_of(text, "config", false);
    let none: Value = c
        .request("textDocument/codeAction", json!({ "textDocument": { "uri": doc }, "range": { "start": word, "end": word }, "context": { "diagnostics": [] } }))
        .await
        .unwrap();
    assert!(!none.as_array().map(|a| a.iter().any(|x| x["title"].as_str().unwrap_or("").starts_with("Convert `config`"))).unwrap_or(false), "{none:#}");
    c.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn broken_links_are_pointed_where_they_most_likely_meant() {
    let (_tmp, root) = workspace("basic");
    let text = "# Links\n\nRead [the guide](guide.md#Guide), [the cart](cart.ts) and [the site](example.com/docs).\n";
    std::fs::write(root.join("docs/links.md"), text).unwrap();
    let c = Client::start(&root).await;
    let doc = uri(&root, "docs/links.md");
    c.open(&doc, text).await;
    let diags = c.diagnostics_codes(&doc, &["broken-link", "broken-link", "broken-link"]).await;
    let mut fixed = text.to_string();
    for (dest, meant) in [("guide.md#Guide", "guide.md#guide"), ("cart.ts", "../src/cart.ts"), ("example.com/docs", "https://example.com/docs")] {
        let d = diags.iter().find(|d| d["range"] == range_of(text, dest, false)).unwrap_or_else(|| panic!("no diagnostic on {dest}: {diags:#?}"));
        assert!(d["message"].as_str().unwrap().contains(&format!("did you mean `{meant}`")), "{d:#}");
        assert_eq!(d["data"]["suggestion"], meant);
        let actions = c
            .request("textDocument/codeAction", json!({ "textDocument": { "uri": doc }, "range": d["range"], "context": { "diagnostics": [d] } }))
            .await
            .unwrap();
        let fix = find_action(&actions, &format!("Link `{meant}` instead"));
        assert_eq!(fix["isPreferred"], true);
        assert_eq!(fix["diagnostics"][0]["code"], "broken-link");
        let one = apply(text, &action_edits(fix, &doc), false);
        assert!(one.contains(&format!("({meant})")), "{one}");
        fixed = fixed.replace(&format!("({dest})"), &format!("({meant})"));
    }
    c.change_full(&doc, 2, &fixed).await;
    c.diagnostics_where(&doc, |p| p["version"] == 2 && codes(p).is_empty()).await;
    c.shutdown().await;
}
