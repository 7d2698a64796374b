//! End-to-end tests of the `knit` CLI: the real binary on real folders.

use knit_e2e::{git, git_first_commit, knit_bin, knit_cmd, states, Ws};
use std::process::Command;

const RESOLVE: &str = "export class Resolver {\n  resolve(path: string): string {\n    const parts = path.split(\"/\");\n    return parts[parts.length - 1] ?? path;\n  }\n}\n";

/// `knit check ARGS --root ROOT` on a folder of this repository, with a fresh cache.
fn check_folder(root: &std::path::Path, args: &[&str]) -> std::process::Output {
    let cache = tempfile::tempdir().unwrap();
    Command::new(knit_bin()).arg("check").args(args).arg("--root").arg(root).env("KNIT_CACHE_DIR", cache.path()).env("KNIT_STATE_DIR", cache.path()).output().unwrap()
}

fn recorded_ws() -> Ws {
    let ws = Ws::new();
    ws.write("src/resolve.ts", RESOLVE);
    ws.write("docs/guide.md", "# Guide\n\nThe [resolver](../src/resolve.ts#Resolver.resolve) splits paths.\n");
    let out = ws.knit(&["anchors", "record"]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    ws
}

#[test]
fn example_workspace_reports_drift_with_exit_code_1() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/example");
    let out = check_folder(&root, &["--format", "json"]);
    assert_eq!(out.status.code(), Some(1));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let s = states(&report);
    assert!(s.contains(&("docs/architecture.md:3".into(), "stale".into())), "{s:?}");
    assert!(s.contains(&("docs/architecture.md:6".into(), "moved-renamed".into())), "{s:?}");
    let moved = report["anchors"].as_array().unwrap().iter().find(|a| a["state"] == "moved-renamed").unwrap();
    assert_eq!(moved["detail"]["now"]["path"], "src/util/paths.ts");
    assert_eq!(moved["detail"]["now"]["symbol"], "pathLanguage");
    assert_eq!(moved["id"], "docs/architecture.md:6:1");
    assert_eq!(moved["column"], 27, "the link's column on its line");
    assert_eq!(moved["target"]["symbol"], "languageForPath");
    // The documented top-level shape.
    for key in ["complete", "budget", "anchors", "unchecked_anchor_ids", "fallback_share"] {
        assert!(report.get(key).is_some(), "missing {key}");
    }
    assert_eq!(report["fallback_share"]["fallback"], 1);
    assert!(report["budget"]["files_read"].as_u64().unwrap() >= 3);
    assert_eq!(report["mentions"][0]["suggestion"], "../src/lang.ts#LanguageRegistry.lookup");
}

/// The human report of the bundled example, whole: findings in line order, aligned, each
/// with the step that resolves it, then the summary and the next step (a snapshot: change
/// it when the wording changes on purpose).
#[test]
fn example_workspace_human_report() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/example");
    let out = check_folder(&root, &[]);
    assert_eq!(out.status.code(), Some(1));
    let expected = "docs/architecture.md:3   stale          `AnchorResolver.resolve` changed since the doc was reviewed
                                        → review the text, then: knit anchors confirm docs/architecture.md:3
docs/architecture.md:6   moved-renamed  `languageForPath` was renamed to `pathLanguage` in src/util/paths.ts
                                        → knit anchors confirm docs/architecture.md:6  (rewrites the link to where the code went)
docs/architecture.md:11  mention        `src/lang.ts:13-16` could be an anchor
                                        → link it: [src/lang.ts:13-16](../src/lang.ts#LanguageRegistry.lookup), then knit anchors record docs/architecture.md
docs/architecture.md:13  unrecorded     `src/resolve.ts#Anchor` has no baseline yet
                                        → knit anchors record docs/architecture.md
6 anchors in 2 docs: 3 fresh, 1 moved-renamed, 1 stale, 1 unrecorded (1 to line ranges rather than declarations)
next: review the 2 findings above and confirm each, e.g. knit anchors confirm docs/architecture.md:3
";
    assert_eq!(String::from_utf8_lossy(&out.stdout), expected);
    // An explicit root without Markdown is a usage error that names the folder.
    let empty = tempfile::tempdir().unwrap();
    let out = check_folder(empty.path(), &[]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no Markdown files under"), "{}", String::from_utf8_lossy(&out.stderr));
}

#[test]
fn record_then_check_is_fresh_and_an_edit_makes_it_stale() {
    let ws = recorded_ws();
    assert!(ws.read("docs/guide.md").contains(&format!("\"knit:{}", knit_syntax::PRINT_SCHEME)), "{}", ws.read("docs/guide.md"));
    let (code, report) = ws.check_json(&[]);
    assert_eq!(code, 0, "{report}");
    assert_eq!(states(&report), vec![("docs/guide.md:3".to_string(), "fresh".to_string())]);
    // Formatter-only rewrite: still fresh.
    ws.write("src/resolve.ts", "export class Resolver {\n    resolve(path: string): string {\n        const parts = path.split('/')\n        return parts[parts.length - 1] ?? path\n    }\n}\n");
    assert_eq!(ws.check_json(&[]).0, 0);
    // Behavioural edit: stale, exit 1.
    ws.write("src/resolve.ts", RESOLVE.replace("- 1]", "- 2]"));
    let (code, report) = ws.check_json(&[]);
    assert_eq!(code, 1);
    assert_eq!(report["anchors"][0]["state"], "stale");
    // Confirm re-baselines: fresh again. It counts anchors, not the edits behind them.
    let out = ws.knit(&["anchors", "confirm", "docs/guide.md:3"]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "confirmed 1 anchor");
    assert_eq!(ws.check_json(&[]).0, 0);
}

#[test]
fn confirm_follows_a_rename_and_rewrites_the_destination() {
    let ws = recorded_ws();
    ws.write("src/resolve.ts", RESOLVE.replace("resolve(", "lastSegment("));
    let (_, report) = ws.check_json(&[]);
    assert_eq!(report["anchors"][0]["state"], "renamed");
    let out = ws.knit(&["anchors", "confirm", "docs/guide.md:3"]);
    assert_eq!(out.status.code(), Some(0));
    assert!(ws.read("docs/guide.md").contains("(../src/resolve.ts#Resolver.lastSegment \"knit:"), "{}", ws.read("docs/guide.md"));
    assert_eq!(ws.check_json(&[]).0, 0);
    // A rename is two edits (destination and baseline) but one anchor.
    ws.write("src/resolve.ts", RESOLVE.replace("resolve(", "finalPart("));
    let out = ws.knit(&["anchors", "confirm", "--format", "json", "docs/guide.md:3"]);
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["confirmed"], 1, "{json}");
}

#[test]
fn each_command_documents_only_its_own_options_and_its_exit_codes() {
    let help_with = |args: &[&str], flag: &str| -> String {
        let out = Command::new(knit_bin()).args(args).arg(flag).output().unwrap();
        assert_eq!(out.status.code(), Some(0));
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let help = |args: &[&str]| help_with(args, "--help");
    for command in [&["check"][..], &["anchors", "record"], &["anchors", "confirm"], &["pack"], &["cache", "list"], &["cache", "clean"], &["lsp"], &["mcp"], &["bench"], &["coverage"]] {
        let text = help(command);
        assert!(text.contains("Exit codes:") && text.contains("Example"), "{command:?}:\n{text}");
        if !matches!(command[0], "cache" | "lsp" | "mcp" | "bench") {
            assert!(text.contains("--root <DIR>") && text.contains("--format"), "{command:?}:\n{text}");
        }
        assert!(!text.contains("DESIGN"), "{command:?} cites a file the repository does not have:\n{text}");
    }
    assert!(help(&["check"]).contains("sarif"));
    assert!(!help(&["pack"]).contains("sarif"));
    for command in [&["lsp"][..], &["mcp"], &["anchors"], &["bench"], &["bench", "anchors"]] {
        assert!(!help(command).contains("--format"), "{command:?} lists a format it does not have");
    }
    assert!(!help(&["lsp"]).contains("--root"));
    // Every argument says what it is for (the short help puts it on the argument's line).
    for command in [&["check"][..], &["anchors", "record"], &["anchors", "confirm"], &["pack"], &["lsp"], &["mcp"], &["cache", "list"], &["cache", "clean"]] {
        let text = help_with(command, "-h");
        let undocumented: Vec<&str> = text.lines().filter(|l| l.trim_start().starts_with('-') || l.trim_start().starts_with('[') || l.trim_start().starts_with('<')).filter(|l| l.trim().split_whitespace().count() < 2).collect();
        assert!(undocumented.is_empty(), "{command:?}: {undocumented:?}\n{text}");
    }
    // `--root` before the command still works, and the command's own wins.
    let ws = recorded_ws();
    let out = Command::new(knit_bin()).arg("--root").arg(ws.dir.path()).args(["check", "--format", "json"]).env("KNIT_CACHE_DIR", ws.cache.path()).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
}

#[test]
fn bench_coverage_names_a_missing_repository_instead_of_reporting_it_empty() {
    let ws = recorded_ws();
    let missing = ws.dir.path().join("no-such-repo");
    let out = Command::new(knit_bin()).args(["bench", "coverage", "--repo"]).arg(&missing).env("KNIT_CACHE_DIR", ws.cache.path()).output().unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", String::from_utf8_lossy(&out.stdout));
    assert!(String::from_utf8_lossy(&out.stderr).contains("not a folder"), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(out.stdout.is_empty(), "no table for a repository that is not there");
    // a real folder: one table row per language read, and its sites with --sites
    let out = Command::new(knit_bin()).args(["bench", "coverage", "--sites", "--repo"]).arg(ws.dir.path()).env("KNIT_CACHE_DIR", ws.cache.path()).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stdout).contains("| typescript |"), "{}", String::from_utf8_lossy(&out.stdout));
}

/// `knit coverage`: the public declarations no doc anchors, per folder and overall;
/// an anchor that followed a move counts where the declaration went; `--min` gates.
#[test]
fn coverage_lists_public_declarations_no_doc_anchors() {
    let ws = Ws::new();
    ws.write("src/api.ts", "export function documented() {\n  return 1;\n}\n\nexport function forgotten() {\n  return 2;\n}\n\nfunction internalHelper() {\n  return 3;\n}\n");
    ws.write("src/core/engine.rs", "pub struct Engine;\n\nimpl Engine {\n    pub fn start(&self) -> u8 {\n        let a = 1;\n        a + 1\n    }\n    fn private(&self) {}\n}\n\npub(crate) fn crate_only() {}\n");
    ws.write("docs/api.md", "# API\n\n[documented](../src/api.ts#documented) returns one; the [engine](../src/core/engine.rs#Engine.start) starts.\n");
    assert_eq!(ws.knit(&["anchors", "record"]).status.code(), Some(0));
    // the method moves to another file: its anchor is `moved`, and still documents it
    ws.write("src/core/engine.rs", "pub struct Engine;\n\nimpl Engine {\n    fn private(&self) {}\n}\n\npub(crate) fn crate_only() {}\n");
    ws.write("src/core/start.rs", "use super::engine::Engine;\n\nimpl Engine {\n    pub fn start(&self) -> u8 {\n        let a = 1;\n        a + 1\n    }\n}\n");
    let out = ws.knit(&["coverage"]);
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert_eq!(out.status.code(), Some(0), "{text}{}", String::from_utf8_lossy(&out.stderr));
    assert!(text.contains("src/api.ts:5") && text.contains("function forgotten"), "{text}");
    assert!(text.contains("src/core/engine.rs:1") && text.contains("struct Engine"), "{text}");
    assert!(!text.contains("internalHelper") && !text.contains("crate_only") && !text.contains("Engine.private"), "{text}");
    assert!(!text.contains("function documented") && !text.contains("method Engine.start"), "documented ones are not listed:\n{text}");
    assert!(text.contains("overall") && text.contains("50.0 %  2 of 4 public declarations documented"), "{text}");
    let json: serde_json::Value = serde_json::from_slice(&ws.knit(&["coverage", "--format", "json"]).stdout).unwrap();
    let start = json["declarations"].as_array().unwrap().iter().find(|d| d["symbol"] == "Engine.start").expect("Engine.start listed");
    assert_eq!(start["path"], "src/core/start.rs");
    assert_eq!(start["documented_by"], serde_json::json!(["docs/api.md:3"]));
    assert_eq!(json["folders"]["src/core"]["public"], 2);
    // only the folder asked for
    let only: serde_json::Value = serde_json::from_slice(&ws.knit(&["coverage", "src/core", "--format", "json"]).stdout).unwrap();
    assert_eq!(only["total"], serde_json::json!({"public": 2, "documented": 1}));
    let sarif: serde_json::Value = serde_json::from_slice(&ws.knit(&["coverage", "--format", "sarif"]).stdout).unwrap();
    assert_eq!(sarif["runs"][0]["results"].as_array().unwrap().len(), 2);
    assert_eq!(ws.knit(&["coverage", "--min", "60"]).status.code(), Some(1));
    assert_eq!(ws.knit(&["coverage", "--min", "50"]).status.code(), Some(0));
    assert_eq!(ws.knit(&["coverage", "--min", "150"]).status.code(), Some(2));
    assert_eq!(ws.knit(&["coverage", "no/such/folder"]).status.code(), Some(2));
}

/// DocC and TSDoc symbol links are resolved against the workspace: a link to a member
/// its (workspace) container lacks is a broken link with did-you-mean; one to a symbol
/// the workspace does not declare at all is external and not judged; the rest resolve.
/// They are never recorded nor stale.
#[test]
fn docc_and_tsdoc_symbol_links_are_checked() {
    let ws = Ws::new();
    ws.write("Sources/Deques/Deque.swift", "public struct Deque {\n    public func append(_ x: Int) {}\n    public var count: Int { 0 }\n    public subscript(position: Int) -> Int { position }\n}\npublic enum Op: Sendable {\n    case push(id: Int)\n}\n");
    ws.write(
        "Sources/Deques/Deques.docc/Deque.md",
        "# ``Deques/Deque``\n\n- ``append(_:)``\n- ``count-swift.property``\n- ``subscript(position:)``\n- ``Deque/appendd(_:)``\n- ``InlineArray``\n- ``apend(_:)``\n- `code`, ``` ``not a link`` ```\n- ``Op/push(id:)``, ``Op/hashValue``\n",
    );
    ws.write("src/router.ts", "export class Router {\n  add(path: string) {\n    return path;\n  }\n}\n");
    // reStructuredText-style code in a Python project's docs: no DocC link
    ws.write("tools/hello.py", "def hello():\n    pass\n");
    ws.write("docs/router.md", "# Router\n\nUse {@link Router.add | add} or {@linkcode Router#remove}; see {@link https://example.com}.\n\nRun ``hello.py``.\n");
    let out = ws.knit(&["check", "--format", "json"]);
    assert_eq!(out.status.code(), Some(1), "broken links: {}", String::from_utf8_lossy(&out.stdout));
    let r: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    // ``Op/push(id:)`` is the enum case; ``Op/hashValue`` is what `Op` inherits from a
    // protocol outside the workspace (not judged)
    assert_eq!(r["symbol_links"], serde_json::json!({"resolved": 5, "broken": 3, "external": 2}), "{r:#}");
    let broken: Vec<(String, String)> = r["broken_links"].as_array().unwrap().iter().map(|b| (format!("{}:{}", b["doc"].as_str().unwrap(), b["line"]), b["message"].as_str().unwrap().to_string())).collect();
    assert_eq!(broken.len(), 3, "{broken:?}");
    assert_eq!(broken[0].0, "Sources/Deques/Deques.docc/Deque.md:6");
    assert!(broken[0].1.contains("`Deque` has no member `appendd`") && broken[0].1.contains("did you mean `append(_:)`"), "{broken:?}");
    // on the Deque page, a near miss of one of its members is a typo (``InlineArray`` is
    // no near miss: another module's, not judged)
    assert_eq!(broken[1].0, "Sources/Deques/Deques.docc/Deque.md:8");
    assert!(broken[1].1.contains("has no member `apend`") && broken[1].1.contains("did you mean `append(_:)`"), "{broken:?}");
    assert_eq!(broken[2].0, "docs/router.md:3");
    assert!(broken[2].1.contains("{@link Router#remove}: `Router` has no member `remove`"), "{broken:?}");
    // Nothing to record: symbol links carry no baseline.
    let before = ws.read("docs/router.md");
    assert_eq!(ws.knit(&["anchors", "record"]).status.code(), Some(0));
    assert_eq!(ws.read("docs/router.md"), before);
    // The DocC links are not code mentions for `anchors suggest` to rewrite.
    let s: serde_json::Value = serde_json::from_slice(&ws.knit(&["anchors", "suggest", "--format", "json"]).stdout).unwrap();
    assert!(s["suggestions"].as_array().unwrap().iter().all(|x| !x["text"].as_str().unwrap().contains("append")), "{s:#}");
}

#[test]
fn cache_list_names_the_workspace_and_clean_removes_only_its_folder() {
    let ws = recorded_ws();
    assert_eq!(ws.check_json(&[]).0, 0);
    let other = recorded_ws();
    // the second workspace's run, but in the first one's cache base
    let out = Command::new(knit_bin()).args(["check"]).current_dir(other.dir.path()).env("KNIT_CACHE_DIR", ws.cache.path()).output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    let list = |ws: &Ws| -> serde_json::Value { serde_json::from_slice(&ws.knit(&["cache", "list", "--format", "json"]).stdout).unwrap() };
    let listed = list(&ws);
    let roots: Vec<String> = listed["workspaces"].as_array().unwrap().iter().filter_map(|w| w["root"].as_str().map(str::to_string)).collect();
    let here = ws.dir.path().canonicalize().unwrap().to_string_lossy().into_owned();
    assert!(roots.contains(&here), "{listed}");
    assert_eq!(roots.len(), 2, "{listed}");
    assert!(listed["workspaces"].as_array().unwrap().iter().all(|w| w["bytes"].as_u64().unwrap() > 0), "{listed}");
    let out = ws.knit(&["cache", "clean"]);
    assert_eq!(out.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&out.stdout).starts_with("removed 1 workspace folder"), "{}", String::from_utf8_lossy(&out.stdout));
    let after = list(&ws);
    let left: Vec<&str> = after["workspaces"].as_array().unwrap().iter().filter_map(|w| w["root"].as_str()).collect();
    assert_eq!(left.len(), 1, "{after}");
    assert_ne!(left[0], here);
    // the check still works: the cache is rebuilt
    assert_eq!(ws.check_json(&[]).0, 0);
    assert_eq!(ws.knit(&["cache", "clean", "--all"]).status.code(), Some(0));
    assert_eq!(list(&ws)["workspaces"].as_array().unwrap().len(), 0);
}

#[test]
fn confirming_a_rename_renames_link_text_that_was_the_old_name() {
    let ws = Ws::new();
    ws.write("src/resolve.ts", RESOLVE);
    ws.write("docs/guide.md", "# Guide\n\n[`Resolver.resolve`](../src/resolve.ts#Resolver.resolve) and [resolve()](../src/resolve.ts#Resolver.resolve) split paths; [the resolver](../src/resolve.ts#Resolver.resolve) too.\n");
    assert_eq!(ws.knit(&["anchors", "record"]).status.code(), Some(0));
    ws.write("src/resolve.ts", RESOLVE.replace("resolve(", "lastSegment("));
    let out = ws.knit(&["anchors", "confirm", "docs/guide.md:3"]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "confirmed 3 anchors");
    let doc = ws.read("docs/guide.md");
    assert!(doc.contains("[`Resolver.lastSegment`](../src/resolve.ts#Resolver.lastSegment \"knit:"), "{doc}");
    assert!(doc.contains("[lastSegment()](../src/resolve.ts#Resolver.lastSegment \"knit:"), "{doc}");
    // prose is the author's: kept
    assert!(doc.contains("[the resolver](../src/resolve.ts#Resolver.lastSegment \"knit:"), "{doc}");
    assert_eq!(ws.check_json(&[]).0, 0);
}

#[test]
fn sarif_and_human_formats() {
    let ws = recorded_ws();
    ws.write("src/resolve.ts", RESOLVE.replace("- 1]", "- 2]"));
    let out = ws.knit(&["check", "--format", "sarif"]);
    assert_eq!(out.status.code(), Some(1));
    let sarif: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(sarif["version"], "2.1.0");
    assert_eq!(sarif["runs"][0]["results"][0]["ruleId"], "stale");
    assert_eq!(sarif["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["region"]["startLine"], 3);
    let out = ws.knit(&["check"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("docs/guide.md:3  stale"), "{text}");
    assert!(text.contains("→ review the text, then: knit anchors confirm docs/guide.md:3"), "{text}");
}

#[test]
fn usage_and_configuration_errors_exit_2() {
    let ws = Ws::new();
    assert_eq!(ws.knit(&["check", "--format", "yaml"]).status.code(), Some(2));
    assert_eq!(ws.knit(&["anchors", "confirm", "nope"]).status.code(), Some(2));
    assert_eq!(ws.knit(&["check", "missing-folder"]).status.code(), Some(2));
    ws.write("knit.toml", "[check]\nmax_filez = 1\n");
    let out = ws.knit(&["check"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("max_filez"));
}

#[test]
fn budget_exhaustion_is_incomplete_and_never_lost() {
    let ws = recorded_ws();
    // The declaration moves away, and the budget allows a single read.
    ws.write("src/other.ts", RESOLVE);
    ws.write("src/resolve.ts", "export const unrelated = 1;\n");
    ws.write("knit.toml", "[check]\nmax_files = 1\n");
    let (code, report) = ws.check_json(&[]);
    assert_eq!(code, 1);
    assert_eq!(report["complete"], false);
    assert_eq!(report["budget"]["limit"], "files");
    assert_eq!(report["anchors"][0]["state"], "unchecked");
    assert_eq!(report["unchecked_anchor_ids"][0], "docs/guide.md:3:1");
    // With the default budget the move is found.
    ws.write("knit.toml", "");
    let (_, report) = ws.check_json(&[]);
    assert_eq!(report["anchors"][0]["state"], "moved");
    assert_eq!(report["anchors"][0]["detail"]["now"]["path"], "src/other.ts");
}

#[test]
fn bad_input_gets_clear_states_never_a_crash() {
    let ws = Ws::new();
    ws.write("src/bin.ts", [0u8, 159, 146, 150, 0]);
    ws.write("src/latin1.ts", [0x63, 0x6f, 0x6e, 0x73, 0x74, 0x20, 0xe9, 0x3d, 0x31]);
    ws.write("src/huge.ts", "x".repeat(1_100_000));
    ws.write(
        "docs/bad.md",
        "[a](../src/bin.ts#f) [b](../src/latin1.ts#f) [c](../src/huge.ts#f) [d](../../outside.ts#f) [e](../src/missing.ts#f)\n\n[[[[ ]]]] ((( [x](<unclosed \n```\nfence never closed [y](../src/missing.ts#g)\n",
    );
    let (code, report) = ws.check_json(&[]);
    assert_eq!(code, 1);
    let reasons: Vec<&str> = report["anchors"].as_array().unwrap().iter().map(|a| a["detail"]["reason"].as_str().unwrap()).collect();
    assert_eq!(reasons, vec!["unreadable", "unreadable", "unreadable", "outside_workspace", "unknown_file"], "{report}");
    assert!(report["anchors"].as_array().unwrap().iter().all(|a| a["state"] == "invalid"));
    // A "Markdown" file holding NUL bytes is skipped with a reason, and says so.
    ws.write("docs/binary.md", [b'#', 0, b'x']);
    let (code, report) = ws.check_json(&[]);
    assert_eq!(code, 1);
    assert_eq!(report["skipped_docs"][0], serde_json::json!(["docs/binary.md", "binary file"]));
}

#[test]
fn record_keeps_bom_crlf_and_other_title_words() {
    let ws = Ws::new();
    ws.write("src/resolve.ts", RESOLVE);
    ws.write("docs/guide.md", "\u{feff}# Guide\r\n\r\nThe [resolver](../src/resolve.ts#Resolver.resolve \"Reviewed by Ana\").\r\n");
    assert_eq!(ws.knit(&["anchors", "record"]).status.code(), Some(0));
    let text = ws.read("docs/guide.md");
    assert!(text.starts_with('\u{feff}'));
    assert!(text.contains(&format!("\"Reviewed by Ana knit:{}", knit_syntax::PRINT_SCHEME)), "{text}");
    assert!(text.ends_with(").\r\n"), "{text:?}");
    assert_eq!(ws.check_json(&[]).0, 0);
}

#[test]
fn changed_limits_the_check_to_targets_git_reports() {
    let ws = recorded_ws();
    ws.write("src/untouched.ts", "export function keep(): number { return 1 + 2 + 3 + 4; }\n");
    ws.write("docs/keep.md", "[keep](../src/untouched.ts#keep)\n");
    assert_eq!(ws.knit(&["anchors", "record"]).status.code(), Some(0));
    git_first_commit(ws.path(), "init");
    let (code, report) = ws.check_json(&["--changed"]);
    assert_eq!(code, 0);
    assert_eq!(report["anchors"].as_array().unwrap().len(), 0);
    ws.write("src/resolve.ts", RESOLVE.replace("- 1]", "- 2]"));
    let (code, report) = ws.check_json(&["--changed"]);
    assert_eq!(code, 1);
    assert_eq!(states(&report), vec![("docs/guide.md:3".to_string(), "stale".to_string())]);
    assert_eq!(ws.check_json(&["--changed", "HEAD"]).1["anchors"].as_array().unwrap().len(), 1);
    assert_eq!(ws.knit(&["check", "--changed", "no-such-rev"]).status.code(), Some(2));
}

/// A pack's items read as one list: primary, supporting, related, more.
fn pack_items(pack: &serde_json::Value) -> Vec<&serde_json::Value> {
    ["primary", "supporting", "related", "more"].iter().flat_map(|t| pack[*t].as_array().unwrap().iter()).collect()
}

/// The pack item for `path` (panics, showing the pack, when it is not packed).
fn pack_item<'p>(pack: &'p serde_json::Value, path: &str) -> &'p serde_json::Value {
    pack_items(pack).into_iter().find(|i| i["path"] == path).unwrap_or_else(|| panic!("{path} is not packed: {pack}"))
}

/// `knit pack ARGS` in `ws`, as JSON and as the human rendering.
fn pack_both_ways(ws: &Ws, args: &[&str]) -> (serde_json::Value, String) {
    let json = ws.knit(&[&["pack"], args, &["--format", "json"]].concat());
    let pack = serde_json::from_slice(&json.stdout).unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&json.stderr)));
    let text = String::from_utf8_lossy(&ws.knit(&[&["pack"], args].concat()).stdout).to_string();
    (pack, text)
}

fn has_reason(item: &serde_json::Value, reason: &str) -> bool {
    item["reasons"].as_array().unwrap().iter().any(|r| r == reason)
}

#[test]
fn pack_prints_the_context_pack_object_with_anchor_freshness() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/example");
    let cache = tempfile::tempdir().unwrap();
    let pack_cmd = |args: &[&str]| Command::new(knit_bin()).arg("pack").args(args).arg("--root").arg(&root).env("KNIT_CACHE_DIR", cache.path()).env("KNIT_STATE_DIR", cache.path()).output().unwrap();
    let out = pack_cmd(&["--format", "json", "--query", "which resolver does an anchor use"]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let pack: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    for key in ["task", "epoch", "stats", "pinned", "primary", "supporting", "related", "more"] {
        assert!(pack.get(key).is_some(), "missing {key}: {pack}");
    }
    assert_eq!(pack["task"]["source"], "query");
    assert_eq!(pack["primary"].as_array().unwrap().len(), 1, "{pack}");
    let arch = pack_item(&pack, "docs/architecture.md");
    // Counted by the anchor engine: 1 stale + 1 moved-renamed, nothing lost, 6 anchors.
    assert_eq!(arch["anchors"], serde_json::json!({"total": 6, "stale": 2, "lost": 0}));
    // No scores anywhere: reasons are facts.
    assert!(!out.stdout.windows(5).any(|w| w == b"score"));
    // The human rendering says the same facts in plain words, not the wire's reason kinds.
    let text = String::from_utf8_lossy(&pack_cmd(&["--query", "which resolver does an anchor use"]).stdout).to_string();
    assert!(text.contains("why: summary mentions \"resolver\""), "{text}");
    for wire in ["summaryMatch", "titleMatch", "bodyMatch", "deepestHit", "changedWith"] {
        assert!(!text.contains(wire), "{wire} in:\n{text}");
    }
    // A query word a file's path spells is a reason of its own (`pathWords` on the wire).
    let pack: serde_json::Value = serde_json::from_slice(&pack_cmd(&["--format", "json", "--query", "normalise the paths"]).stdout).unwrap();
    let paths_item = pack_item(&pack, "src/util/paths.ts");
    assert!(has_reason(paths_item, "pathWords: paths"), "{paths_item}");
    let text = String::from_utf8_lossy(&pack_cmd(&["--query", "normalise the paths"]).stdout).to_string();
    assert!(text.contains("its path spells paths") && !text.contains("pathWords"), "{text}");
}

#[test]
fn an_open_file_pack_lists_files_elsewhere_named_like_it() {
    let ws = Ws::new();
    ws.write("src/retry.ts", "export function retryDelay(attempt: number) { return attempt * 100; }\n");
    ws.write("tests/unit/retry-policy.test.ts", "it('waits', () => {});\n");
    ws.write("docs/guides/retry.md", "# Waiting between attempts\n\nNothing here names the code.\n");
    for (i, name) in ["client", "hooks", "errors", "options", "body", "headers"].iter().enumerate() {
        ws.write(&format!("src/{name}.ts"), format!("export const n{i} = {i};\n"));
    }
    let (pack, text) = pack_both_ways(&ws, &["--open", "src/retry.ts"]);
    for path in ["tests/unit/retry-policy.test.ts", "docs/guides/retry.md"] {
        let item = pack_item(&pack, path);
        assert!(has_reason(item, "sharesName: retry (like retry.ts)"), "{item}");
    }
    assert!(text.contains("shares name words retry (like retry.ts)") && !text.contains("sharesName"), "{text}");
}

#[test]
fn a_type_test_and_a_monorepo_test_find_their_subjects() {
    // tsd's and vitest's type tests (`index.test-d.ts`) check the declaration file; a test
    // in one package of a monorepo tests that package's file, not a namesake elsewhere; a
    // Python test finds the private module of its name.
    let ws = Ws::new();
    ws.write("index.d.ts", "export declare function ky(input: string): Promise<unknown>;\n");
    ws.write("index.js", "export default function ky(input) { return fetch(input); }\n");
    ws.write("index.test-d.ts", "import ky from './index.js';\nexpectType<Promise<unknown>>(ky('x'));\n");
    ws.write("packages/client/src/link.ts", "export function clientLink() { return 1; }\n");
    ws.write("packages/server/src/link.ts", "export function serverLink() { return 2; }\n");
    ws.write("packages/client/test/link.test.ts", "it('links', () => {});\n");
    ws.write("httpx/_client.py", "class Client:\n    pass\n");
    ws.write("tests/client/test_client.py", "def test_get():\n    assert True\n");
    let (pack, text) = pack_both_ways(&ws, &["--open", "index.test-d.ts"]);
    assert!(has_reason(pack_item(&pack, "index.d.ts"), "tests ← index.test-d.ts"), "{pack}");
    assert!(text.contains("why: tests ← index.test-d.ts"), "{text}");
    let (pack, _) = pack_both_ways(&ws, &["--open", "packages/client/test/link.test.ts"]);
    assert!(has_reason(pack_item(&pack, "packages/client/src/link.ts"), "tests ← packages/client/test/link.test.ts"), "{pack}");
    let server = pack_items(&pack).into_iter().find(|i| i["path"] == "packages/server/src/link.ts");
    assert!(server.is_none_or(|i| !i["reasons"].as_array().unwrap().iter().any(|r| r.as_str().unwrap().starts_with("tests"))), "{pack}");
    // a Python test finds the private module of its name
    let (pack, _) = pack_both_ways(&ws, &["--open", "tests/client/test_client.py"]);
    assert!(has_reason(pack_item(&pack, "httpx/_client.py"), "tests ← tests/client/test_client.py"), "{pack}");
}

#[test]
fn a_query_pack_names_the_files_declaring_what_the_query_writes_as_code() {
    let ws = Ws::new();
    ws.write("src/backoff.ts", "export function computeDelay(attempt: number) { return attempt * 100; }\n");
    ws.write("src/client.ts", "import { computeDelay } from './backoff';\nexport const wait = computeDelay(2);\n");
    ws.write("src/hooks.ts", "export function beforeRequest() { return 1; }\n");
    let (pack, text) = pack_both_ways(&ws, &["--query", "Cap computeDelay at a minute"]);
    // The declaring file says so; the file that only calls it does not.
    assert!(has_reason(pack_item(&pack, "src/backoff.ts"), "declares: computeDelay (named in the query)"), "{pack}");
    assert!(!pack_item(&pack, "src/client.ts")["reasons"].as_array().unwrap().iter().any(|r| r.as_str().unwrap().contains("named in the query")), "{pack}");
    assert!(text.contains("declares computeDelay (named in the query)"), "{text}");
}

#[test]
fn an_open_file_pack_says_in_words_what_history_knows() {
    // The history reasons (changedWith, recent) read as sentences in the human output.
    let ws = Ws::new();
    ws.write("src/retry.ts", "export function retryDelay(attempt: number) { return attempt * 100; }\n");
    ws.write("docs/changelog.md", "# Changelog\n\nNothing yet.\n");
    ws.write("src/unrelated.ts", "export const other = 1;\n");
    git_first_commit(ws.path(), "init");
    for i in 1..3 {
        ws.write("src/retry.ts", format!("export function retryDelay(attempt: number) {{ return attempt * {i}00; }}\n"));
        ws.write("docs/changelog.md", format!("# Changelog\n\nRetry change {i}.\n"));
        git(ws.path(), &["commit", "-qam", "retry change"]);
    }
    let text = String::from_utf8_lossy(&ws.knit(&["pack", "--open", "src/retry.ts"]).stdout).to_string();
    assert!(text.contains("docs/changelog.md") && text.contains("changed together with src/retry.ts in ") && !text.contains("changedWith:"), "{text}");
    assert!(text.contains("recent work changed in ") && !text.contains("recent: "), "{text}");
}

#[test]
fn recording_a_paired_doc_does_not_make_anchors_to_it_stale() {
    let ws = Ws::new();
    ws.write("src/resolve.ts", RESOLVE);
    // a.md pairs with b.md's "Resolving" section; b.md anchors code. Both are recorded in
    // one run, a.md first: b.md gains a baseline after a.md hashed its section.
    ws.write("docs/a.md", "# Human guide\n\nSee [how resolving works](b.md#resolving).\n");
    ws.write("docs/b.md", "# Tech notes\n\n## Resolving\n\nThe [resolver](../src/resolve.ts#Resolver.resolve) splits paths.\n");
    assert_eq!(ws.knit(&["anchors", "record", "--docs"]).status.code(), Some(0));
    assert!(ws.read("docs/a.md").contains("\"knit:1"));
    assert!(ws.read("docs/b.md").contains(&format!("\"knit:{}", knit_syntax::PRINT_SCHEME)));
    let (code, report) = ws.check_json(&[]);
    assert_eq!(code, 0, "{report}");
    // A real edit of the section is still seen.
    ws.write("docs/b.md", ws.read("docs/b.md").replace("splits paths", "splits paths on slashes"));
    let (_, report) = ws.check_json(&[]);
    assert_eq!(states(&report)[0], ("docs/a.md:3".to_string(), "stale".to_string()));
}

/// A link pointed at another declaration after its review keeps the old `knit:` title:
/// the check says the baseline belongs to the old target (not "changed since review"),
/// and `knit anchors record` replaces it, leaving reviewed anchors alone.
#[test]
fn a_retargeted_link_is_recorded_again_not_reported_stale() {
    let ws = Ws::new();
    ws.write(
        "src/cart.ts",
        "export function subtotal(items: number[]): number {\n  let sum = 0;\n  for (const i of items) sum += i;\n  return sum;\n}\n\nexport function tax(cents: number): number {\n  return Math.round(cents * 0.2);\n}\n",
    );
    ws.write("docs/cart.md", "# Cart\n\nThe [total](../src/cart.ts#subtotal) adds up; [tax](../src/cart.ts#tax) too.\n");
    assert_eq!(ws.knit(&["anchors", "record"]).status.code(), Some(0));
    let recorded = ws.read("docs/cart.md");
    ws.write("docs/cart.md", &recorded.replacen("src/cart.ts#subtotal", "src/cart.ts#tax", 1));
    let out = ws.knit(&["check"]);
    let human = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{human}");
    assert!(human.contains("the baseline was recorded for `subtotal`, not `tax`"), "{human}");
    assert!(human.contains("knit anchors record docs/cart.md"), "{human}");
    assert_eq!(ws.knit(&["anchors", "record", "docs/cart.md"]).status.code(), Some(0));
    let after = ws.read("docs/cart.md");
    // The second anchor's reviewed baseline is untouched; the first got tax's.
    let titles: Vec<&str> = after.split("\"knit:").skip(1).map(|t| t.split('"').next().unwrap()).collect();
    assert_eq!(titles.len(), 2);
    assert_eq!(titles[0], titles[1], "both now hold tax's baseline: {after}");
    assert!(after.contains(recorded.split("\"knit:").nth(2).unwrap().split('"').next().unwrap()));
    let out = ws.knit(&["check"]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stdout));
}

/// `knit check --explain`: a stale anchor says which commit holds the reviewed version,
/// which later commits changed the declaration (not the ones that touched only its
/// neighbours), and the declaration's diff; JSON carries it as `detail.since`.
#[test]
fn explain_says_what_changed_since_review_from_git_history() {
    let ws = recorded_ws();
    ws.write("src/other.ts", "export const unrelated = 1;\n");
    git_first_commit(ws.path(), "Add the resolver and its guide");
    ws.write("src/resolve.ts", RESOLVE.replace("- 1]", "- 2]"));
    git(ws.path(), &["commit", "-qam", "Take the parent folder instead"]);
    ws.write("src/other.ts", "export const unrelated = 2;\n");
    git(ws.path(), &["commit", "-qam", "Touch something else"]);
    let (code, report) = ws.check_json(&["--explain"]);
    assert_eq!(code, 1);
    let since = &report["anchors"][0]["detail"]["since"];
    assert_eq!(since["reviewed_as_of"]["subject"], "Add the resolver and its guide", "{report:#}");
    assert_eq!(since["reviewed_as_of"]["commit"].as_str().unwrap().len(), 12);
    let changed: Vec<&str> = since["changed_by"].as_array().unwrap().iter().map(|c| c["subject"].as_str().unwrap()).collect();
    assert_eq!(changed, vec!["Take the parent folder instead"]);
    let diff = since["diff"].as_str().unwrap();
    assert!(diff.contains("-    return parts[parts.length - 1] ?? path;\n+    return parts[parts.length - 2] ?? path;"), "{diff}");
    // Without --explain nothing is read from history.
    assert!(ws.check_json(&[]).1["anchors"][0]["detail"].get("since").is_none());
    // The human report shows the same.
    let out = ws.knit(&["check", "--explain"]);
    let human = String::from_utf8_lossy(&out.stdout);
    assert!(human.contains("reviewed as of ") && human.contains("\"Add the resolver and its guide\""), "{human}");
    assert!(human.contains("changed by ") && human.contains("Take the parent folder instead"), "{human}");
    assert!(!human.contains("Touch something else"), "{human}");
    // An uncommitted change: the reviewed version is HEAD's, and nothing committed changed it.
    ws.write("src/resolve.ts", RESOLVE.replace("- 1]", "- 3]"));
    git(ws.path(), &["reset", "-q", "--hard", "HEAD~2"]);
    ws.write("src/resolve.ts", RESOLVE.replace("- 1]", "- 3]"));
    let human = String::from_utf8_lossy(&ws.knit(&["check", "--explain"]).stdout).to_string();
    assert!(human.contains("no commit changed it since: the change is not committed yet"), "{human}");
}

/// Without git history, --explain says so plainly and the check works as without it.
#[test]
fn explain_without_history_says_so() {
    let ws = recorded_ws();
    ws.write("src/resolve.ts", RESOLVE.replace("- 1]", "- 2]"));
    let out = ws.knit(&["check", "--explain"]);
    assert_eq!(out.status.code(), Some(1));
    let human = String::from_utf8_lossy(&out.stdout);
    assert!(human.contains("no commit holds the reviewed version"), "{human}");
    let (_, report) = ws.check_json(&["--explain"]);
    assert_eq!(report["anchors"][0]["detail"]["since_missing"], "not_in_history", "{report:#}");
}

/// In a partial clone (`git clone --filter=blob:none`) the history names the reviewed
/// version but does not hold its content: --explain says so, not "no commit holds it".
#[test]
fn explain_in_a_partial_clone_says_the_versions_are_not_in_it() {
    let ws = recorded_ws();
    git_first_commit(ws.path(), "Add the resolver and its guide");
    ws.write("src/resolve.ts", RESOLVE.replace("- 1]", "- 2]"));
    git(ws.path(), &["commit", "-qam", "Take the parent folder instead"]);
    // the reviewed version's blob, as a blob-less clone lacks it (loose in a fresh repository)
    let out = std::process::Command::new("git").args(["rev-parse", "HEAD~1:src/resolve.ts"]).current_dir(ws.path()).output().expect("git");
    let blob = String::from_utf8_lossy(&out.stdout).trim().to_string();
    std::fs::remove_file(ws.path().join(".git/objects").join(&blob[..2]).join(&blob[2..])).expect("a loose blob");
    let (code, report) = ws.check_json(&["--explain"]);
    assert_eq!(code, 1);
    assert_eq!(report["anchors"][0]["detail"]["since_missing"], "history_not_in_clone", "{report:#}");
    let human = String::from_utf8_lossy(&ws.knit(&["check", "--explain"]).stdout).to_string();
    assert!(human.contains("not in this clone (a partial clone"), "{human}");
}

/// `knit anchors rebind`: any declaration, not only the candidates knit offered.
#[test]
fn rebind_points_an_anchor_at_any_declaration_and_records_it() {
    let ws = recorded_ws();
    ws.write("src/util.ts", "export function basename(p: string): string {\n  return p.split(\"/\").pop() ?? p;\n}\n");
    let out = ws.knit(&["anchors", "rebind", "docs/guide.md:3", "src/util.ts#basename"]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stdout).contains("rebound docs/guide.md:3 to ../src/util.ts#basename"));
    let doc = ws.read("docs/guide.md");
    assert!(doc.contains("[resolver](../src/util.ts#basename \"knit:"), "{doc}");
    let (code, report) = ws.check_json(&[]);
    assert_eq!(code, 0, "{report:#}");
    // A fragment alone stays in the anchor's own file.
    assert_eq!(ws.knit(&["anchors", "rebind", "docs/guide.md:3", "basename"]).status.code(), Some(0));
    // A target that does not resolve: exit 1, with why; the doc is untouched.
    let before = ws.read("docs/guide.md");
    let out = ws.knit(&["anchors", "rebind", "docs/guide.md:3", "src/util.ts#basenam"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("did you mean `basename`"), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(ws.read("docs/guide.md"), before);
    // No anchor on the line, or a malformed DOC:LINE: usage errors.
    assert_eq!(ws.knit(&["anchors", "rebind", "docs/guide.md:1", "basename"]).status.code(), Some(2));
    assert_eq!(ws.knit(&["anchors", "rebind", "docs/guide.md", "basename"]).status.code(), Some(2));
}

/// A lost anchor's human report lists its likeliest targets with how alike and why, and
/// says how to rebind it.
#[test]
fn a_lost_anchor_lists_ranked_candidates_and_the_rebind_command() {
    let ws = recorded_ws();
    // `Resolver.resolve` rewritten under another name: nothing has its name or body.
    ws.write("src/resolve.ts", "export class Resolver {\n  resolvePath(p: string): string {\n    return p.split(\"/\").pop() ?? p;\n  }\n}\n");
    let out = ws.knit(&["check"]);
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("lost"), "{text}");
    assert!(text.contains("candidate: src/resolve.ts#Resolver.resolvePath (line 2) — "), "{text}");
    assert!(text.contains("% alike: name shares `resolve`; in `Resolver`; same kind (method); same file"), "{text}");
    assert!(text.contains("knit anchors rebind docs/guide.md:3 PATH#NAME"), "{text}");
}

/// `knit anchors suggest`: code mentions naming exactly one declaration or file become
/// anchors with --write (born fresh); ambiguous ones and prose are left alone.
#[test]
fn suggest_turns_unique_code_mentions_into_anchors_and_leaves_the_rest() {
    let ws = Ws::new();
    ws.write("src/cart.ts", "export interface LineItem {\n  price: number;\n}\n\nexport function formatPrice(cents: number): string {\n  return (cents / 100).toFixed(2);\n}\n\nexport class Cart {\n  add(item: LineItem): void {}\n  total(): number {\n    return 0;\n  }\n}\n");
    ws.write("src/ui/a.ts", "export function render(): string {\n  return \"a\";\n}\n");
    ws.write("src/b.ts", "export function render(): string {\n  return \"b\";\n}\n");
    let doc = "# Mentions\n\nUse `formatPrice()` to print, `Cart.total` for the sum and `Cart#add` to add one.\nA `LineItem` is one row; `src/cart.ts` holds it all.\nThe `subtotal` word, `config`, `true` and `npm install` are prose.\n`render()` is drawn twice, and `cart.total` is an instance.\n";
    ws.write("docs/m.md", doc);
    let out = ws.knit(&["anchors", "suggest", "--format", "json"]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let dests: Vec<(String, String)> = report["suggestions"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|s| Some((s["text"].as_str()?.to_string(), s["dest"].as_str()?.to_string())))
        .collect();
    let want = [
        ("formatPrice()", "../src/cart.ts#formatPrice"),
        ("Cart.total", "../src/cart.ts#Cart.total"),
        ("Cart#add", "../src/cart.ts#Cart.add"),
        ("LineItem", "../src/cart.ts#LineItem"),
        ("src/cart.ts", "../src/cart.ts"),
    ];
    assert_eq!(dests, want.iter().map(|(a, b)| (a.to_string(), b.to_string())).collect::<Vec<_>>(), "{report:#}");
    let ambiguous: Vec<&serde_json::Value> = report["suggestions"].as_array().unwrap().iter().filter(|s| s["kind"] == "ambiguous").collect();
    assert_eq!(ambiguous.len(), 1, "{report:#}");
    assert_eq!(ambiguous[0]["text"], "render()");
    assert_eq!(ambiguous[0]["candidates"].as_array().unwrap().len(), 2);
    // Listing writes nothing; --write converts the five, each born fresh.
    assert_eq!(ws.read("docs/m.md"), doc);
    let out = ws.knit(&["anchors", "suggest", "--write"]);
    assert!(String::from_utf8_lossy(&out.stdout).contains("5 written"), "{}", String::from_utf8_lossy(&out.stdout));
    let after = ws.read("docs/m.md");
    assert!(after.contains("[`Cart#add`](../src/cart.ts#Cart.add \"knit:"), "{after}");
    assert!(after.contains("`render()` is drawn twice, and `cart.total`") && after.contains("The `subtotal` word, `config`, `true`"), "{after}");
    let (code, report) = ws.check_json(&[]);
    assert_eq!(code, 0, "{report:#}");
    // Converted mentions are links now: a second run finds only the ambiguous one.
    let again: serde_json::Value = serde_json::from_slice(&ws.knit(&["anchors", "suggest", "--format", "json"]).stdout).unwrap();
    assert_eq!((again["suggested"].as_u64(), again["ambiguous"].as_u64()), (Some(0), Some(1)), "{again:#}");
}

/// `knit bench history` on a small real history, saved as JSON and re-rendered with
/// `--from`: the tables carry the miss ratio's interval (per repository and averaged) and
/// knit's passage hit beside its first-passage baseline.
#[test]
fn bench_history_reports_intervals_and_a_passage_baseline_and_rerenders_saved_runs() {
    let ws = Ws::new();
    let repo = ws.path().join("repo");
    std::fs::create_dir_all(repo.join("src")).unwrap();
    let write = |path: &str, text: String| std::fs::write(repo.join(path), text).unwrap();
    let lexer = |n: u32| (0..=n).map(|i| format!("export function readToken{i}(input: string) {{\n  return input.slice({i})\n}}\n\n")).collect::<String>();
    let parser = |n: u32| (0..=n).map(|i| format!("import {{ readToken{i} }} from './lexer'\nexport function parseRule{i}(input: string) {{\n  return readToken{i}(input)\n}}\n\n")).collect::<String>();
    write("src/lexer.ts", lexer(0));
    write("src/parser.ts", parser(0));
    write("CHANGELOG.md", "# Changelog\n\n## Unreleased\n\n- first rule\n".into());
    // a file that shares no word with the others and changes with them now and then: the
    // first time, every baseline misses it, so the best baseline's misses are not zero and
    // the miss ratio (and its interval) exists
    write("src/clamp.ts", "export const clampLow = (x: number) => Math.max(0, x)\n".into());
    git_first_commit(&repo, "Initial import");
    for n in 1..=14 {
        write("src/lexer.ts", lexer(n));
        write("src/parser.ts", parser(n));
        if n % 4 == 3 {
            write("src/clamp.ts", format!("export const clampLow = (x: number) => Math.max({n}, x)\n"));
        }
        if n % 2 == 0 {
            let entries: String = (0..n).map(|i| format!("- rule {i} parses tokens\n")).collect();
            write("CHANGELOG.md", format!("# Changelog\n\n## Unreleased\n\n{entries}"));
        }
        git(&repo, &["add", "-A"]);
        git(&repo, &["commit", "-qm", &format!("Parse rule {n} with its own token reader")]);
    }
    let repo_arg = repo.to_str().unwrap();
    let saved = ws.path().join("run.json");
    let run = knit_cmd(&ws, &["bench", "history", "--repo", repo_arg, "--repo", repo_arg, "--max-tasks", "14", "--format", "json", "--out", saved.to_str().unwrap()]).output().unwrap();
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    let rendered = knit_cmd(&ws, &["bench", "history", "--from", saved.to_str().unwrap(), "--format", "markdown"]).output().unwrap();
    assert!(rendered.status.success(), "{}", String::from_utf8_lossy(&rendered.stderr));
    let text = String::from_utf8_lossy(&rendered.stdout);
    assert!(text.contains("Passage hit (first passage)") && text.contains("Miss ratio [95 % CI]"), "{text}");
    // every miss ratio the saved groups have is shown with its interval, and so is the
    // averaged one the re-render computes
    let json: serde_json::Value = serde_json::from_slice(&std::fs::read(&saved).unwrap()).unwrap();
    let mut shown = 0;
    for group in json["repositories"][0]["groups"].as_array().unwrap() {
        let target = &group["target"];
        if let (Some(ratio), Some(interval)) = (target["ratio"].as_f64(), target["ratio_interval"].as_array()) {
            let cell = format!("{ratio:.2} [{:.2}, {:.2}]", interval[0].as_f64().unwrap(), interval[1].as_f64().unwrap());
            assert!(text.contains(&cell), "{cell} not in {text}");
            shown += 1;
        }
    }
    assert!(shown > 0, "no group had a miss ratio to show: {json}");
    let averaged = text.lines().filter(|l| l.starts_with("| *average* |")).filter(|l| l.split('|').nth(4).is_some_and(|cell| cell.contains(" ["))).count();
    assert!(averaged > 0, "no averaged miss ratio with its interval: {text}");
    let knit_metrics = &json["repositories"][0]["tasks"][0]["results"]["knit"]["metrics"];
    assert!(knit_metrics["first_passage_hits"].is_u64(), "{knit_metrics}");
    let with_baseline = text.lines().filter(|l| l.contains("| **knit** |")).filter(|l| l.split('|').nth(9).is_some_and(|cell| cell.trim().ends_with(')'))).count();
    assert!(with_baseline > 0, "no knit passage hit beside its first-passage baseline: {text}");
}

/// A docs site's sources (VitePress here) link pages by route — `/guide/ui`,
/// `./runner#hooks`, `../../config/`, `bail.html#bail-option` — and name sections by
/// explicit ids and the site generator's slugs. `knit check` reads them as the site
/// serves them and reports only the links the site would break too. Before, each such
/// route with a fragment read as a symbol anchor ("knit cannot read declarations of
/// guide") and each without one as a missing file: vitest's docs gave 1 423 findings.
#[test]
fn a_docs_sites_routes_and_section_ids_are_read_as_the_site_serves_them() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/anchors/docs/010-docs-site-links/before");
    let out = check_folder(&root, &["--format", "json"]);
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["anchors"].as_array().unwrap().len(), 0, "no route is an anchor: {:#}", report["anchors"]);
    let broken: Vec<(String, String)> = report["broken_links"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| (format!("{}:{}", b["doc"].as_str().unwrap(), b["line"]), b["message"].as_str().unwrap().to_string()))
        .collect();
    let doc = "docs/api/advanced/plugin.md";
    assert_eq!(
        broken,
        vec![
            (format!("{doc}:10"), "broken link: /guide/nowhere does not exist, nor a Markdown page a docs site would serve for it".to_string()),
            (format!("{doc}:10"), "broken link: docs/guide/ui.md has no section `#toolbar`".to_string()),
            (format!("{doc}:11"), "broken link: docs/api/advanced/runner.md has no section `#Hooks`; did you mean `./runner#hooks`?".to_string()),
            (format!("{doc}:11"), "broken link: docs/api/advanced/reporters does not exist, nor a Markdown page a docs site would serve for it".to_string()),
        ]
    );
}

/// `knit check` of a docs conformance case's `before/` workspace, through the binary:
/// its broken links as `doc:line message` (it must find some: exit code 1).
fn broken_links_of_case(case: &str) -> Vec<String> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/anchors/docs").join(case).join("before");
    let out = check_folder(&root, &["--format", "json"]);
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    report["broken_links"].as_array().unwrap().iter().map(|b| format!("{}:{} {}", b["doc"].as_str().unwrap(), b["line"], b["message"].as_str().unwrap())).collect()
}

/// What real sites do beyond their generator's documented rules (TanStack Router's
/// `/router/latest/docs/…` routes, FastAPI's pages only English has, pydantic's
/// attribute-list ids and mkdocstrings pages), checked through the binary: only the links
/// those sites break too are reported, and a reference definition nothing uses (`[_]: _`)
/// is not. Before, this workspace gave 16 findings.
#[test]
fn real_sites_route_tails_translations_and_generated_ids() {
    assert_eq!(
        broken_links_of_case("012-site-tails-translations-attribute-lists-api-pages"),
        [
            "docs/start/guide/routing.md:5 broken link: /router/latest/docs/framework/react/guide/data-loading does not exist, nor a Markdown page a docs site would serve for it",
            "docs/start/guide/routing.md:6 broken link: /query/latest does not exist, nor a Markdown page a docs site would serve for it",
            "docs/start/guide/routing.md:11 broken link: docs/start/guide/old-page.md does not exist",
            "i18n/de/docs/help.md:4 broken link: i18n/de/docs/newsletter.md does not exist",
            "site/migration.md:7 broken link: site/api/config.md has no section `#pydantic.fields`",
            "site/migration.md:8 broken link: site/concepts/validators.md has no section `#model-after-validator`",
            "web/src/content/blog/v5-release.md:4 broken link: /6x/api does not exist, nor a Markdown page a docs site would serve for it",
        ]
    );
}

/// A VitePress site that writes section ids as `%{#id}%` (markdown-it-attrs with the
/// delimiters pinia's translated docs set) is checked through the binary: its ids and
/// GitHub's slugs of the whole heading line resolve, and a missing section is suggested
/// the one heading whose names fit, by its id. Before, pinia's docs gave 222 broken
/// links, 219 of them `%{#id}%` sections; 5 now, each a section its site lacks too.
#[test]
fn sections_named_by_markdown_it_attrs_with_custom_delimiters() {
    assert_eq!(
        broken_links_of_case("013-markdown-it-attrs-with-vitepress-delimiters"),
        [
            "docs/zh/cookbook/options-api.md:6 broken link: docs/zh/core-concepts/state.md has no section `#options-api`; did you mean `../core-concepts/state.md#usage-with-the-options-api`?",
            "docs/zh/cookbook/options-api.md:7 broken link: docs/zh/core-concepts/state.md has no section `#subscribing-to-the-state`",
        ]
    );
}

/// svelte.dev's routes without number prefixes, checked through the binary: a section
/// missing from a page reached that way gets no suggestion (the site keeps case and
/// punctuation in its ids, so a GitHub-style id would break the link there), while a
/// GitHub-style file link into the same page is offered the lowercase id.
#[test]
fn routes_without_number_prefixes_and_their_sections() {
    assert_eq!(
        broken_links_of_case("016-pages-served-without-number-prefixes"),
        [
            "documentation/docs/10-getting-started/10-introduction.md:6 broken link: documentation/docs/30-advanced/20-hooks.md has no section `#Universal-hooks-transport`",
            "documentation/docs/10-getting-started/10-introduction.md:7 broken link: documentation/docs/10-getting-started/no-such-page does not exist, nor a Markdown page a docs site would serve for it",
            "documentation/docs/10-getting-started/10-introduction.md:8 broken link: documentation/docs/10-getting-started/overview does not exist, nor a Markdown page a docs site would serve for it",
            "documentation/docs/10-getting-started/10-introduction.md:10 broken link: documentation/docs/60-appendix/60-glossary.md has no section `#SSR`; did you mean `../60-appendix/60-glossary.md#ssr`?",
            "documentation/docs/10-getting-started/10-introduction.md:13 broken link: /docs/4.x/api/glossary does not exist, nor a Markdown page a docs site would serve for it",
            "documentation/docs/7.deploy/aws.md:4 broken link: /nothing does not exist, nor a Markdown page a docs site would serve for it",
        ]
    );
}

/// `--root DIR` with a doc path relative to DIR (run from elsewhere, as a script or an
/// agent does): the path is taken from the root when the current folder is outside the
/// workspace, where before it was refused as "outside the workspace". A path that is
/// inside the workspace from the current folder keeps that reading. An ambiguous bare
/// file name lists its candidates as paths (it printed `config.json#`).
#[test]
fn paths_relative_to_the_root_and_file_candidates_without_a_symbol() {
    let ws = Ws::new();
    ws.write("src/a.ts", "export function a() { return 1; }\n");
    ws.write("config.json", "{}\n");
    ws.write("sub/config.json", "{}\n");
    ws.write("AGENTS.md", "# Agents\n\nStart at `src/a.ts`; settings live in `config.json`.\n");
    let run = |cwd: &std::path::Path, args: &[&str]| {
        Command::new(knit_bin()).args(args).current_dir(cwd).env("KNIT_CACHE_DIR", ws.cache_path()).env("KNIT_STATE_DIR", ws.cache_path()).output().unwrap()
    };
    let root = ws.path().to_str().unwrap();
    let out = run(ws.outside_dir(), &["anchors", "suggest", "--root", root, "AGENTS.md"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{text}{}", String::from_utf8_lossy(&out.stderr));
    assert!(text.contains("`src/a.ts` → src/a.ts"), "{text}");
    assert!(text.contains("could be config.json\n") && text.contains("could be sub/config.json\n"), "{text}");
    assert!(!text.contains("json#"), "{text}");
    let out = run(ws.outside_dir(), &["check", "--root", root, "AGENTS.md"]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    // From inside the workspace a relative path is read from the current folder.
    let out = run(&ws.path().join("sub"), &["check", "--root", root, "AGENTS.md"]);
    assert_eq!(out.status.code(), Some(2), "sub/AGENTS.md does not exist");
    assert!(String::from_utf8_lossy(&out.stderr).contains("AGENTS.md does not exist"), "{}", String::from_utf8_lossy(&out.stderr));
}

/// A broken link says what it most likely meant, when exactly one thing fits: a web
/// address written without `https://` (lit's READMEs link `eslint.org`), a file that moved
/// (tRPC's CONTRIBUTING.md links `packages/server/src/core/initTRPC.ts`, which now lives
/// elsewhere), a section id that differs in case, is qualified by its page's prefix
/// (vitest's `/config/coverage#exclude` for the heading `coverage.exclude`) or is one edit
/// off. Two ids that fit, or another version's section, get no guess. (And prettier's
/// link to a release post by its dated route is no broken link at all.)
#[test]
fn broken_links_say_what_they_most_likely_meant() {
    let ws = Ws::new();
    ws.write("packages/server/src/unstable-core/initTRPC.ts", "export const initTRPC = 1;\n");
    ws.write("docs/config/coverage.md", "# coverage\n\n## coverage.exclude\n\nx\n\n## coverage.include\n\ny\n");
    ws.write("docs/api/hooks.md", "# Hooks\n\n## beforeEach\n\n## afterEach\n\n## test.each\n\n## bench.each\n");
    ws.write("docs/guide/migration.md", "# Migration\n\n## Vitest 5\n");
    // a Docusaurus blog serves a dated post at a dated route, its version dots no extension
    ws.write("website/blog/2023-11-13-3.1.0.md", "# Prettier 3.1\n");
    ws.write("website/blog/2023-11-13-curious-ternaries.md", "# Ternaries\n\n_For a quick tl;dr, [see the release post](/blog/2023/11/13/3.1.0)._\n");
    ws.write(
        "CONTRIBUTING.md",
        "# Contributing\n\nLint with [ESLint](eslint.org); start at [`initTRPC`](packages/server/src/core/initTRPC.ts).\n\
         See [exclude](docs/config/coverage.md#exclude), [hooks](docs/api/hooks.md#beforeach) and [Hooks](docs/api/hooks.md#BeforeEach).\n\
         No guess for [each](docs/api/hooks.md#each) or [Vitest 3](docs/guide/migration.md#vitest-3).\n",
    );
    let out = check_folder(ws.path(), &["--format", "json"]);
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let found: Vec<String> = report["broken_links"].as_array().unwrap().iter().map(|b| format!("{} -> {}", b["path"].as_str().unwrap(), b["suggestion"].as_str().unwrap_or("none"))).collect();
    assert_eq!(
        found,
        [
            "eslint.org -> https://eslint.org",
            "packages/server/src/core/initTRPC.ts -> packages/server/src/unstable-core/initTRPC.ts",
            "docs/config/coverage.md -> docs/config/coverage.md#coverage-exclude",
            "docs/api/hooks.md -> docs/api/hooks.md#beforeeach",
            "docs/api/hooks.md -> docs/api/hooks.md#beforeeach",
            "docs/api/hooks.md -> none",
            "docs/guide/migration.md -> none",
        ]
    );
    let human = check_folder(ws.path(), &[]);
    let text = String::from_utf8_lossy(&human.stdout);
    assert!(text.contains("eslint.org does not exist; did you mean `https://eslint.org`?"), "{text}");
    assert!(text.contains("→ link `https://eslint.org` instead (the editor's quick fix writes it), or fix the path, or remove the link"), "{text}");
}

/// A DocC-looking span (``` ``backtick`` ```, as prettier's Markdown test fixtures write in
/// image alts) in a tree with no Swift file names nothing the tree could declare: it is
/// external without indexing the repository, whose files would run the check's budget out
/// and mark a check of zero anchors incomplete. (A TSDoc link is still looked up: it may
/// name a declaration of any language.)
#[test]
fn symbol_links_in_a_tree_without_their_language_index_nothing() {
    let ws = Ws::new();
    for i in 0..12 {
        ws.write(&format!("src/m{i}.py"), &format!("def f{i}():\n    return {i}\n"));
    }
    ws.write("knit.toml", "[check]\nmax_files = 6\n");
    ws.write("docs/alt.md", "# Alt\n\n- ![   Image alt with ``backtick``   ](a.png)\n- ![   and ``another``   ](a.png)\n");
    ws.write("docs/a.png", "png");
    let out = check_folder(ws.path(), &["--format", "json"]);
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(out.status.code(), Some(0), "{report:#}");
    assert_eq!(report["complete"], true, "{report:#}");
    assert_eq!(report["symbol_links"]["external"], 2, "{report:#}");
    assert!(report["budget"]["files_read"].as_u64().unwrap() < 6, "{report:#}");
    // a TSDoc link names a Python declaration all the same
    ws.write("knit.toml", "[check]\nmax_files = 100\n");
    ws.write("docs/api.md", "# API\n\nCall {@link f3} first.\n");
    let out = check_folder(ws.path(), &["--format", "json"]);
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["symbol_links"]["resolved"], 1, "{report:#}");
}
