//! Engine behaviour end to end on small temp workspaces: persistence, lifecycle, epochs,
//! recovery from a corrupt index, noise and unreadable files, relations and the wire shape.

mod common;

use common::*;
use knit_context::{AnchorCounts, AnchorFacts, ContextEngine, EngineOptions, ImportRef, Lifecycle, OpenBuffer, PackParams, QueryParam, TaskInput};

fn small_project(ws: &Workspace) {
    ws.write("docs/resolver.md", "# Anchor resolver\n\nHow the resolver walks the ladder.\n\nThe [resolver](../src/resolver.ts#AnchorResolver.resolve) tries stages in order.\nSee also [the guide](guide.md).\n");
    ws.write("docs/guide.md", "# Guide\n\nInstalling and configuring the tool.\n\nRun the installer, then open settings.\n");
    ws.write("src/resolver.ts", "import { hash } from './fingerprint'\n\n// Resolves anchors through the ladder of stages.\nexport class AnchorResolver {\n  resolve() { return hash('ladder') }\n}\n");
    ws.write("src/fingerprint.ts", "// Token fingerprints with blake3.\nexport function hash(s: string) { return s }\n");
    ws.write("src/resolver.test.ts", "import { AnchorResolver } from './resolver'\ntest('stages', () => new AnchorResolver())\n");
    ws.write("notes/unrelated.md", "# Cooking\n\nPasta recipes.\n");
}

fn q(text: &str) -> PackParams {
    PackParams { query: Some(QueryParam::Text(text.into())), ..Default::default() }
}

/// Test double for the syntax layer: reads `import … from './x'` lines. The real extractor
/// (knit_syntax::imports) walks the syntax tree; the engine only sees this signature.
fn fake_imports(_path: &str, source: &str) -> Vec<ImportRef> {
    source
        .lines()
        .enumerate()
        .filter_map(|(i, line)| {
            let spec = line.strip_prefix("import ")?.rsplit_once(" from ")?.1.trim().trim_matches('\'');
            Some(ImportRef { specifier: spec.to_string(), line: i as u32 + 1 })
        })
        .collect()
}

struct FakeAnchors;
impl AnchorFacts for FakeAnchors {
    fn anchor_counts(&self, doc: &str) -> Option<AnchorCounts> {
        (doc == "docs/resolver.md").then_some(AnchorCounts { total: 1, stale: 1, lost: 0 })
    }
}

#[test]
fn primary_reasons_passages_and_anchor_relations() {
    let ws = Workspace::new();
    small_project(&ws);
    let mut engine = ws.engine();
    let result = engine.pack(&q("how does the anchor resolver ladder work"), &TaskInput::default(), &FakeAnchors).expect("pack");
    // Primary is the top of the fusion when it is a hit with a foothold: the resolver's
    // code (its name, the query's words in its path, a link from the best lexical hit)
    // edges out the doc that explains it, which leads supporting with its own facts.
    assert_eq!(result.primary.first().map(|i| i.path.as_str()), Some("src/resolver.ts"), "{result:#?}");
    let resolver = &result.primary[0];
    assert!(resolver.reasons.iter().any(|r| r == "filenameMatch: \"resolver\""), "{:?}", resolver.reasons);
    assert!(resolver.reasons.iter().any(|r| r == "anchors: docs/resolver.md:5 → AnchorResolver.resolve") || resolver.relations.iter().any(|r| r.symbol.as_deref() == Some("AnchorResolver.resolve")), "{resolver:?}");
    let doc = result.supporting.first().filter(|i| i.path == "docs/resolver.md").expect("the doc leads supporting");
    assert!(doc.reasons.iter().any(|r| r.starts_with("titleMatch: ")), "{:?}", doc.reasons);
    assert!(doc.reasons.iter().any(|r| r.starts_with("deepestHit: ")), "{:?}", doc.reasons);
    assert_eq!(doc.anchors, Some(AnchorCounts { total: 1, stale: 1, lost: 0 }));
    assert!(doc.passage.as_ref().is_some_and(|p| p.text.chars().count() <= 200 && p.start_line >= 1));
    assert!(!result.primary.iter().chain(&result.supporting).chain(&result.related).any(|i| i.path == "notes/unrelated.md"));
}

#[test]
fn wire_shape_uses_the_contract_names() {
    let ws = Workspace::new();
    small_project(&ws);
    let mut engine = ws.engine();
    let result = engine.pack(&q("resolver ladder"), &TaskInput::default(), &FakeAnchors).expect("pack");
    let json = serde_json::to_value(&result).expect("serialize");
    let keys: Vec<&str> = json.as_object().map(|o| o.keys().map(String::as_str).collect()).unwrap_or_default();
    for key in ["task", "epoch", "stats", "pinned", "primary", "supporting", "related", "more"] {
        assert!(keys.contains(&key), "{key} missing in {keys:?}");
    }
    let stats: Vec<&str> = json["stats"].as_object().map(|o| o.keys().map(String::as_str).collect()).unwrap_or_default();
    let mut sorted = stats.clone();
    sorted.sort();
    assert_eq!(sorted, vec!["candidates", "collected", "excluded", "packed", "pinned", "relations", "truncated"]);
    assert!(json["task"].get("openBuffers").is_some());
    let item = &json["primary"][0];
    for key in ["path", "kind", "role", "title", "summary", "provenance", "reasons", "relations"] {
        assert!(item.get(key).is_some(), "item.{key} missing: {item}");
    }
    assert!(item["passage"].get("startLine").is_some() && item["passage"].get("endLine").is_some());
    assert!(!json.to_string().contains("score"), "no scores on the wire");
}

#[test]
fn pin_and_exclude_persist_across_restarts() {
    let ws = Workspace::new();
    small_project(&ws);
    {
        let mut engine = ws.engine();
        assert!(engine.pin("notes/unrelated.md").expect("pin"));
        assert!(engine.exclude("docs/resolver.md").expect("exclude"));
    }
    let mut engine = ws.engine();
    assert_eq!(engine.pinned(), vec!["notes/unrelated.md".to_string()]);
    let result = pack(&mut engine, &q("anchor resolver ladder"));
    assert_eq!(result.pinned.len(), 1);
    assert_eq!(result.pinned[0].provenance, knit_context::wire::Provenance::Manual);
    assert!(all_items(&result).iter().all(|i| i.path != "docs/resolver.md"), "excluded items never appear");
    assert_eq!(result.stats.excluded, 1);
    assert_eq!(result.stats.pinned, 1);
    assert!(engine.restore("docs/resolver.md").expect("restore"));
    let result = pack(&mut engine, &q("anchor resolver ladder"));
    assert!(all_items(&result).iter().any(|i| i.path == "docs/resolver.md"));
}

#[test]
fn lifecycle_follows_reads_and_edits() {
    let ws = Workspace::new();
    small_project(&ws);
    let mut engine = ws.engine();
    let lifecycle = |engine: &mut ContextEngine| {
        let result = pack(engine, &q("anchor resolver ladder"));
        all_items(&result).into_iter().find(|i| i.path == "docs/resolver.md").and_then(|i| i.lifecycle)
    };
    assert_eq!(lifecycle(&mut engine), Some(Lifecycle::Unread));
    engine.did_read("docs/resolver.md").expect("read");
    assert_eq!(lifecycle(&mut engine), Some(Lifecycle::Read));
    ws.write("docs/resolver.md", "# Anchor resolver\n\nHow the resolver walks the ladder, now with stage five.\n");
    engine.file_changed("docs/resolver.md").expect("changed");
    assert_eq!(lifecycle(&mut engine), Some(Lifecycle::UpdatedAfterRead));
    engine.did_read(&ws.path().join("docs/resolver.md").to_string_lossy()).expect("absolute path read");
    assert_eq!(lifecycle(&mut engine), Some(Lifecycle::RereadAfterUpdate));
    drop(engine);
    let mut engine = ws.engine();
    assert_eq!(lifecycle(&mut engine), Some(Lifecycle::RereadAfterUpdate), "read evidence persists");
}

#[test]
fn epochs_change_only_with_membership() {
    let ws = Workspace::new();
    small_project(&ws);
    let mut engine = ws.engine();
    let first = pack(&mut engine, &q("anchor resolver ladder"));
    let again = pack(&mut engine, &q("anchor resolver ladder"));
    assert_eq!(first.epoch, again.epoch);
    assert!(again.delta.is_none());
    let other = pack(&mut engine, &q("installing configuring guide settings"));
    assert_eq!(other.epoch, first.epoch + 1);
    let delta = other.delta.expect("delta");
    assert!(delta.entered.contains(&"docs/guide.md".to_string()) || delta.changed_tier.iter().any(|c| c.path == "docs/guide.md"), "{delta:?}");
    assert!(!delta.left.is_empty());
}

#[test]
fn corrupt_index_is_rebuilt_not_fatal() {
    let ws = Workspace::new();
    small_project(&ws);
    let (index_dir, primary_before) = {
        let mut engine = ws.engine();
        let result = pack(&mut engine, &q("anchor resolver ladder"));
        (engine.index_dir().to_path_buf(), result.primary.first().map(|i| i.path.clone()))
    };
    assert!(primary_before.is_some());
    let mut damaged = 0;
    for entry in std::fs::read_dir(&index_dir).expect("index dir").flatten() {
        let path = entry.path();
        if path.is_file() {
            std::fs::write(&path, b"\x00garbage\xff not an index").expect("damage");
            damaged += 1;
        }
    }
    assert!(damaged > 2);
    let mut engine = ws.engine();
    assert!(engine.index_stats().rebuilt);
    let result = pack(&mut engine, &q("anchor resolver ladder"));
    // The rebuilt index answers as the intact one did.
    assert_eq!(result.primary.first().map(|i| i.path.clone()), primary_before);
}

#[test]
fn noise_binary_huge_and_non_utf8_files_are_never_candidates() {
    let ws = Workspace::new();
    ws.write("docs/real.md", "# Zebra notes\n\nzebra stripes explained.\n");
    for noise in ["node_modules/zebra/index.js", "dist/zebra.js", "build/zebra.js", "coverage/zebra.js", "out/zebra.js", "app.min.js", "zebra.js.map", "package-lock.json", "styles.min.css", "Cargo.lock", "target/zebra.rs"] {
        ws.write(noise, "zebra zebra zebra stripes");
    }
    ws.write(".gitignore", "ignored/\n");
    ws.write("ignored/zebra.md", "# zebra\n\nzebra");
    let mut binary = b"zebra".to_vec();
    binary.extend([0u8; 64]);
    ws.write("src/zebra.ts", binary);
    ws.write("src/latin1.ts", b"// zebra \xe9\xff\n".to_vec());
    ws.write("src/huge.ts", format!("// zebra\n{}", "x".repeat(1024 * 1024 + 10)));
    let mut engine = ws.engine();
    let result = pack(&mut engine, &PackParams { query: Some(QueryParam::Text("zebra stripes".into())), limit: Some(100), ..Default::default() });
    let paths: Vec<&str> = all_items(&result).iter().map(|i| i.path.as_str()).collect::<Vec<_>>();
    assert_eq!(paths, vec!["docs/real.md"], "{paths:?}");
    let stats = engine.index_stats();
    assert_eq!((stats.skipped_binary, stats.skipped_non_utf8, stats.skipped_huge), (1, 1, 1), "{stats:?}");
}

#[test]
fn incremental_updates_follow_changes_and_removals() {
    let ws = Workspace::new();
    small_project(&ws);
    let mut engine = ContextEngine::open(ws.path(), EngineOptions { rescan_interval: None, ..ws.options() }).expect("open");
    assert!(pack(&mut engine, &q("quokka")).primary.is_empty());
    ws.write("docs/quokka.md", "# Quokka\n\nThe quokka module.\n");
    engine.file_changed("docs/quokka.md").expect("changed");
    assert_eq!(pack(&mut engine, &q("quokka")).primary.first().map(|i| i.path.clone()), Some("docs/quokka.md".into()));
    std::fs::remove_file(ws.path().join("docs/quokka.md")).expect("rm");
    engine.file_removed("docs/quokka.md").expect("removed");
    let after = pack(&mut engine, &q("quokka"));
    assert!(all_items(&after).iter().all(|i| i.path != "docs/quokka.md"));
    assert!(after.degraded.is_some(), "the term is gone from the workspace");
    // a fresh process sees the same committed index without re-reading unchanged files
    drop(engine);
    let mut engine = ws.engine();
    let report = engine.refresh().expect("refresh");
    assert_eq!((report.updated, report.removed), (0, 0), "{report:?}");
}

#[test]
fn open_buffers_are_the_task_and_bring_their_relations() {
    let ws = Workspace::new();
    small_project(&ws);
    let options = EngineOptions { import_extractor: Some(fake_imports), ..ws.options() };
    let mut engine = ContextEngine::open(ws.path(), options).expect("open");
    let result = pack_open(&mut engine, ws.path(), "src/resolver.ts");
    assert_eq!(result.task.source, "openBuffers");
    assert_eq!(result.task.open_buffers, vec!["src/resolver.ts".to_string()]);
    let listed: Vec<&str> = result.primary.iter().chain(&result.supporting).chain(&result.related).map(|i| i.path.as_str()).collect();
    assert!(!all_items(&result).iter().any(|i| i.path == "src/resolver.ts"), "open buffers are never packed");
    for expected in ["docs/resolver.md", "src/fingerprint.ts", "src/resolver.test.ts"] {
        assert!(listed.contains(&expected), "{expected} missing from {listed:?}");
    }
    let fingerprint = all_items(&result).into_iter().find(|i| i.path == "src/fingerprint.ts").expect("import target");
    assert!(fingerprint.reasons.iter().any(|r| r == "imports ← src/resolver.ts:1"), "{:?}", fingerprint.reasons);
    let test = all_items(&result).into_iter().find(|i| i.path == "src/resolver.test.ts").expect("test");
    assert!(test.reasons.iter().any(|r| r == "tests → src/resolver.ts"), "{:?}", test.reasons);
}

#[test]
fn too_few_terms_degrades_to_recency() {
    let ws = Workspace::new();
    small_project(&ws);
    let mut engine = ws.engine();
    let result = pack(&mut engine, &q("the and of it"));
    let degraded = result.degraded.expect("degraded");
    assert_eq!(degraded.reason, "tooFewTerms");
    assert!(result.primary.is_empty() && !result.more.is_empty());
    assert!(result.more[0].reasons[0].starts_with("modified: "));
}

/// Packs for `path` open and focused (its text read from disk), no query.
fn pack_open(engine: &mut ContextEngine, root: &std::path::Path, path: &str) -> knit_context::wire::PackResult {
    let text = std::fs::read_to_string(root.join(path)).expect("read the open file");
    let input = TaskInput { buffers: vec![OpenBuffer { path: path.into(), text, focused: true, ..Default::default() }] };
    engine.pack(&PackParams::default(), &input, &knit_context::NoAnchorFacts).expect("pack")
}

/// Makes `dir` a repository whose first commit holds every file in it.
fn git_first_commit(dir: &std::path::Path) {
    git(dir, &["init", "-q"]);
    git(dir, &["add", "-A"]);
    git(dir, &["commit", "-qm", "init"]);
}

/// Runs git in `dir` for test setup (never knit's code path: knit reads git in-process).
fn git(dir: &std::path::Path, args: &[&str]) {
    let ok = std::process::Command::new("git")
        .args(["-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false", "-c", "core.hooksPath=/dev/null"])
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .status()
        .expect("git")
        .success();
    assert!(ok, "git {args:?}");
}

#[test]
fn open_buffers_bring_co_changed_and_symbol_related_files_with_their_facts() {
    let ws = Workspace::new();
    // Three unrelated-looking files by words; history and identifiers relate them.
    ws.write("src/router.ts", "export function matchRoute(path: string) {\n  return path.split('/')\n}\n");
    ws.write("src/handler.ts", "export function dispatchRequest(r: string) {\n  return matchRoute(r)\n}\n");
    ws.write("src/config.ts", "export const timeoutMillis = 1000\n");
    ws.write("docs/changelog.md", "# Changelog\n\nNothing yet.\n");
    git_first_commit(ws.path());
    for i in 0..3 {
        ws.write("src/router.ts", format!("export function matchRoute(path: string) {{\n  return path.split('/').slice({i})\n}}\n"));
        ws.write("docs/changelog.md", format!("# Changelog\n\nChange {i}.\n"));
        git(ws.path(), &["commit", "-qam", "routing change"]);
    }
    let mut engine = ws.engine();
    let result = pack_open(&mut engine, ws.path(), "src/router.ts");
    assert!(result.degraded.as_ref().is_none_or(|d| d.reason != "noHistory"), "{:?}", result.degraded);
    let items = all_items(&result);
    let changelog = items.iter().find(|i| i.path == "docs/changelog.md").expect("co-changed doc listed");
    assert!(changelog.reasons.iter().any(|r| r == "changedWith: src/router.ts in 4 of 4 commits"), "{:?}", changelog.reasons);
    assert!(changelog.relations.iter().any(|r| r.kind.as_str() == "changedWith" && r.other == "src/router.ts"), "{:?}", changelog.relations);
    let handler = items.iter().find(|i| i.path == "src/handler.ts").expect("user of a declared name listed");
    assert!(handler.reasons.iter().any(|r| r == "uses: matchRoute (declared in src/router.ts)"), "{:?}", handler.reasons);
    assert!(handler.relations.iter().any(|r| r.kind.as_str() == "uses" && r.symbol.as_deref() == Some("matchRoute")), "{:?}", handler.relations);
    let json = serde_json::to_value(changelog).unwrap();
    assert!(json["relations"].as_array().unwrap().iter().any(|r| r["type"] == "changedWith"), "{json}");

    // Without git the pack still works and says what it lacks.
    let plain = Workspace::new();
    plain.write("src/router.ts", "export function matchRoute(path: string) { return path }\n");
    plain.write("src/handler.ts", "export const h = () => matchRoute('x')\n");
    let mut engine = plain.engine();
    let result = pack_open(&mut engine, plain.path(), "src/router.ts");
    assert_eq!(result.degraded.as_ref().map(|d| d.reason.as_str()), Some("noHistory"), "{:?}", result.degraded);
    assert!(all_items(&result).iter().any(|i| i.path == "src/handler.ts"));
}

#[test]
fn an_item_ranked_by_history_past_the_lexical_depth_still_gets_its_passage() {
    // Fifty files say "ladder" often (among two hundred, so the word stays distinctive);
    // src/stages.ts says it once, in its second function, so it is far down the lexical
    // list, but it changed with the open file in every commit: co-change lists it, and its
    // passage is the function with the word.
    let ws = Workspace::new();
    for i in 0..50 {
        ws.write(&format!("src/rung{i:02}.ts"), format!("// ladder ladder ladder rung {i}\nexport const rung{i} = 'ladder ladder'\n"));
    }
    for i in 0..150 {
        ws.write(&format!("lib/part{i:03}.ts"), format!("export const part{i} = {i}\n"));
    }
    let filler: String = (0..40).map(|i| format!("  const step{i} = {i}\n")).collect();
    let stages = |n: u32| format!("export function first() {{\n{filler}  return {n}\n}}\n\nexport function second() {{\n  return 'ladder'\n}}\n");
    ws.write("src/stages.ts", stages(0));
    ws.write("src/climb.ts", "export function climb() {\n  return 'ladder ladder ladder'\n}\n");
    git_first_commit(ws.path());
    for n in 1..4 {
        ws.write("src/stages.ts", stages(n));
        ws.write("src/climb.ts", format!("export function climb() {{\n  return 'ladder ladder ladder {n}'\n}}\n"));
        git(ws.path(), &["commit", "-qam", "climb and stages"]);
    }
    let mut engine = ws.engine();
    let result = pack_open(&mut engine, ws.path(), "src/climb.ts");
    let items = all_items(&result);
    let stages_item = items.iter().find(|i| i.path == "src/stages.ts").expect("co-changed file listed");
    assert!(stages_item.reasons.iter().any(|r| r.starts_with("changedWith: src/climb.ts")), "{:?}", stages_item.reasons);
    let passage = stages_item.passage.as_ref().unwrap_or_else(|| panic!("no passage; task terms {:?}", result.task.terms));
    let second_at = stages(0).lines().position(|l| l.contains("function second")).unwrap() as u32 + 1;
    assert!(passage.start_line <= second_at + 1 && passage.end_line >= second_at + 1, "{passage:?} (second() at line {second_at})");
}

#[test]
fn a_changelogs_passage_is_its_newest_release_not_the_old_entry_that_matches() {
    // The query's words sit in an old release's entry; the change being made lands under
    // the release being prepared, so that is where the changelog item opens.
    let ws = Workspace::new();
    ws.write("src/retry.ts", "// Retries a request with exponential backoff.\nexport function retryWithBackoff(attempts: number) { return attempts }\n");
    let filler: String = (0..30).map(|i| format!("- fixed issue {i}\n")).collect();
    let changelog = format!("# Changelog\n\n## [Unreleased]\n\n### Fixed\n\n- headers are kept on redirect\n\n## [2.0.0] - 2024-03-01\n\n{filler}\n## [1.0.0] - 2023-01-01\n\n- retry with exponential backoff added\n- backoff retry jitter\n");
    ws.write("CHANGELOG.md", &changelog);
    ws.write("docs/retry.md", "# Retry\n\nRetries use exponential backoff.\n");
    let mut engine = ws.engine();
    let result = engine.pack(&q("retry backoff jitter"), &TaskInput::default(), &knit_context::NoAnchorFacts).expect("pack");
    let items: Vec<&knit_context::Item> = result.primary.iter().chain(&result.supporting).chain(&result.related).chain(&result.more).collect();
    let item = items.iter().find(|i| i.path == "CHANGELOG.md").unwrap_or_else(|| panic!("the changelog is listed: {result:#?}"));
    let passage = item.passage.as_ref().expect("a passage");
    let unreleased = changelog.lines().position(|l| l.starts_with("## [Unreleased]")).unwrap() as u32 + 1;
    let release_2 = changelog.lines().position(|l| l.starts_with("## [2.0.0]")).unwrap() as u32 + 1;
    assert_eq!((passage.start_line, passage.end_line), (unreleased, release_2 - 1), "{passage:?}");
    assert!(passage.text.contains("Unreleased") || passage.text.contains("redirect"), "{passage:?}");
    // other docs keep their scored passages
    let doc = items.iter().find(|i| i.path == "docs/retry.md").expect("the doc is listed");
    assert!(doc.passage.as_ref().is_some_and(|p| p.start_line >= 1 && p.end_line <= 3), "{:?}", doc.passage);
}

#[test]
fn an_open_buffers_passages_follow_the_words_at_the_cursor() {
    // The open file is mostly about retry budgets; the cursor sits in its small header
    // function. The related file holds one function of each: its passage is the header
    // one, the part that goes with the lines being worked on, although the whole buffer's
    // words favour the retry one.
    let ws = Workspace::new();
    for i in 0..20 {
        ws.write(&format!("lib/other{i:02}.ts"), format!("export const other{i} = 'plain value {i}'\n"));
    }
    let retry_body: String = (0..12).map(|i| format!("  budget.retryBudget.spendRetry({i})\n")).collect();
    let middle: String = (0..12).map(|i| format!("  const plain{i} = {i}\n")).collect();
    let open_text = format!(
        "export function sendWithRetry(budget) {{\n{retry_body}  return budget.retryBudget\n}}\n\nexport function constants() {{\n{middle}}}\n\nexport function canonicalHeader(name) {{\n  return headerCanonical(name.toLowerCase())\n}}\n"
    );
    ws.write("src/client.ts", &open_text);
    let filler = |tag: &str| -> String { (0..30).map(|i| format!("  const {tag}{i} = {i}\n")).collect() };
    let helpers = format!(
        "export function retryLoop(retryBudget) {{\n{}  return retryBudget.spendRetry(retryBudget.retryBudget)\n}}\n\nexport function headerCanonical(header) {{\n{}  return header.split('-').map(canonicalHeader).join('-')\n}}\n",
        filler("r"),
        filler("h")
    );
    ws.write("src/helpers.ts", &helpers);
    let cursor = open_text.lines().position(|l| l.contains("headerCanonical(name")).unwrap() as u32 + 1;
    let mut engine = ws.engine();
    let input = TaskInput { buffers: vec![OpenBuffer { path: "src/client.ts".into(), text: open_text.clone(), focused: true, cursor_line: Some(cursor), ..Default::default() }] };
    let result = engine.pack(&PackParams::default(), &input, &knit_context::NoAnchorFacts).expect("pack");
    let items = all_items(&result);
    let item = items.iter().find(|i| i.path == "src/helpers.ts").unwrap_or_else(|| panic!("the helpers are listed: {result:#?}"));
    let passage = item.passage.as_ref().expect("a passage");
    let header_at = helpers.lines().position(|l| l.contains("function headerCanonical")).unwrap() as u32 + 1;
    assert!(passage.start_line <= header_at && passage.end_line > header_at, "{passage:?} (headerCanonical at line {header_at}); terms {:?}", result.task.terms);
    assert!(passage.text.contains("headerCanonical"), "{passage:?}");

    // Without a cursor, the whole buffer's words choose: the retry function.
    let input = TaskInput { buffers: vec![OpenBuffer { path: "src/client.ts".into(), text: open_text, focused: true, ..Default::default() }] };
    let result = engine.pack(&PackParams::default(), &input, &knit_context::NoAnchorFacts).expect("pack");
    let items = all_items(&result);
    let passage = items.iter().find(|i| i.path == "src/helpers.ts").and_then(|i| i.passage.clone()).expect("a passage");
    assert!(passage.end_line < header_at, "{passage:?}");
}
