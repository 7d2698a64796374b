//! A hostile workspace against the real `knit` binary (SECURITY.md): each test plants
//! what an attacker could ship in a repository and checks that knit neither writes nor
//! reads outside the root, runs nothing from the repository, loses no edit, and neither
//! hangs nor blows up on pathological input. Every test here reproduces a finding of the
//! hardening issue and failed before its fix.
//!
//! Hang detection uses generous watchdogs (tens of seconds on inputs that now take
//! milliseconds); they detect hangs and runaway super-linear costs, they are not
//! performance assertions — the figures live in `knit bench`.

use knit_e2e::{git, git_first_commit, knit_bin, knit_cmd, states, Ws};
use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

/// Generous: a hang or a quadratic blow-up, not a slow machine.
const WATCHDOG: Duration = Duration::from_secs(60);

fn doc_with_anchor() -> &'static str {
    "# Arch\n\nThe [resolver](../src/a.ts#resolve) resolves.\n"
}

fn source() -> &'static str {
    "export function resolve(x: number): number {\n  const y = x * 2;\n  return y + 1;\n}\n"
}

/// Waits for `child` with a watchdog; kills it and fails the test on timeout. Its pipes
/// are drained meanwhile, so a large answer never blocks the child.
fn wait_with_watchdog(mut child: Child, what: &str) -> Output {
    fn drain(pipe: Option<impl std::io::Read + Send + 'static>) -> std::thread::JoinHandle<Vec<u8>> {
        std::thread::spawn(move || {
            let mut buf = Vec::new();
            if let Some(mut p) = pipe {
                let _ = p.read_to_end(&mut buf);
            }
            buf
        })
    }
    let out = drain(child.stdout.take());
    let err = drain(child.stderr.take());
    let start = Instant::now();
    loop {
        match child.try_wait().expect("wait") {
            Some(status) => return Output { status, stdout: out.join().unwrap(), stderr: err.join().unwrap() },
            None if start.elapsed() > WATCHDOG => {
                let _ = child.kill();
                panic!("{what}: no answer after {WATCHDOG:?} (hang or super-linear cost)");
            }
            None => std::thread::sleep(Duration::from_millis(20)),
        }
    }
}

// ---- 1. writes outside the root ----------------------------------------------------

#[cfg(unix)]
#[test]
fn a_planted_temp_symlink_never_redirects_a_doc_write() {
    let ws = Ws::new();
    ws.write("src/a.ts", source());
    ws.write("docs/arch.md", doc_with_anchor());
    let outside = ws.outside_dir().join("victim.txt");
    std::fs::write(&outside, "precious\n").unwrap();
    // The old fixed temp name, and a few plausible others, all pointing outside.
    for name in ["docs/arch.md.knit-tmp", "docs/.arch.md.knit-tmp", "docs/arch.knit-tmp"] {
        std::os::unix::fs::symlink(&outside, ws.path().join(name)).unwrap();
    }
    let out = ws.knit(&["anchors", "record"]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(std::fs::read_to_string(&outside).unwrap(), "precious\n", "a file outside the workspace was overwritten");
    let meta = std::fs::symlink_metadata(ws.path().join("docs/arch.md")).unwrap();
    assert!(meta.file_type().is_file(), "the doc was replaced by something that is not a regular file");
    assert!(ws.read("docs/arch.md").contains("\"knit:"), "the baseline was recorded in the doc itself");
    let (_, report) = ws.check_json(&[]);
    assert_eq!(states(&report), vec![("docs/arch.md:3".to_string(), "fresh".to_string())]);
    // No temp file is left behind beside the doc.
    let left: Vec<String> = std::fs::read_dir(ws.path().join("docs")).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).filter(|n| n.contains("knit-tmp") && !n.starts_with("arch")).filter(|n| n != ".arch.md.knit-tmp").collect();
    assert!(left.is_empty(), "temp files left: {left:?}");
}

#[cfg(unix)]
#[test]
fn links_read_only_and_hard_linked_docs_are_refused_and_untouched() {
    use std::os::unix::fs::PermissionsExt;
    let ws = Ws::new();
    ws.write("src/a.ts", source());
    ws.write("docs/real.md", doc_with_anchor());
    std::os::unix::fs::symlink("real.md", ws.path().join("docs/link.md")).unwrap();
    // Confirming through a link: refused, exit 2, nothing written anywhere.
    let out = ws.knit(&["anchors", "confirm", "docs/link.md:3"]);
    assert_eq!(out.status.code(), Some(2), "{}", String::from_utf8_lossy(&out.stdout));
    assert!(String::from_utf8_lossy(&out.stderr).contains("symbolic link"), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(ws.read("docs/real.md"), doc_with_anchor());
    assert!(std::fs::symlink_metadata(ws.path().join("docs/link.md")).unwrap().file_type().is_symlink());

    // A read-only doc is not replaced.
    ws.write("docs/ro.md", doc_with_anchor());
    std::fs::set_permissions(ws.path().join("docs/ro.md"), std::fs::Permissions::from_mode(0o444)).unwrap();
    let out = ws.knit(&["anchors", "record", "docs/ro.md"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("read-only"), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(ws.read("docs/ro.md"), doc_with_anchor());

    // A hard-linked doc keeps its link.
    ws.write("docs/hard.md", doc_with_anchor());
    std::fs::hard_link(ws.path().join("docs/hard.md"), ws.outside_dir().join("hard-copy.md")).unwrap();
    let out = ws.knit(&["anchors", "record", "docs/hard.md"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("hard link"), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(std::fs::read_to_string(ws.outside_dir().join("hard-copy.md")).unwrap(), doc_with_anchor());

    // A private doc stays private after a rewrite.
    ws.write("docs/private.md", doc_with_anchor());
    std::fs::set_permissions(ws.path().join("docs/private.md"), std::fs::Permissions::from_mode(0o600)).unwrap();
    let out = ws.knit(&["anchors", "record", "docs/private.md"]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(ws.read("docs/private.md").contains("\"knit:"));
    assert_eq!(std::fs::metadata(ws.path().join("docs/private.md")).unwrap().permissions().mode() & 0o777, 0o600);
}

#[test]
fn an_editor_save_during_record_is_never_lost() {
    // A doc large enough that `record` takes a while; an "editor" saves new text into it
    // while knit works. Whatever the interleaving, the saved text must survive: either
    // knit read it (and recorded into it), or knit noticed the change and wrote nothing.
    let ws = Ws::new();
    let mut src = String::new();
    for i in 0..400 {
        src.push_str(&format!("export function f{i}(x: number): number {{\n  const y = x * {i};\n  return y + {i};\n}}\n"));
    }
    ws.write("src/a.ts", &src);
    let mut doc = String::from("# Many\n\n");
    for i in 0..4000 {
        doc.push_str(&format!("- [f{}](../src/a.ts#f{}) line {i}\n", i % 400, i % 400));
    }
    ws.write("docs/big.md", &doc);
    let saved = format!("{doc}\nSAVED BY THE EDITOR\n");
    let mut lost = 0;
    for delay_ms in [0u64, 20, 60, 150, 300] {
        ws.write("docs/big.md", &doc);
        let child = knit_cmd(&ws, &["anchors", "record", "docs/big.md"]).stdout(Stdio::null()).stderr(Stdio::piped()).spawn().unwrap();
        std::thread::sleep(Duration::from_millis(delay_ms));
        ws.write("docs/big.md", &saved);
        let out = wait_with_watchdog(child, "record");
        let now = ws.read("docs/big.md");
        if !now.contains("SAVED BY THE EDITOR") {
            lost += 1;
        }
        // Refused writes say why and exit 2; successful ones exit 0.
        match out.status.code() {
            Some(0) => {}
            Some(2) => assert!(String::from_utf8_lossy(&out.stderr).contains("changed on disk"), "{}", String::from_utf8_lossy(&out.stderr)),
            other => panic!("unexpected exit {other:?}: {}", String::from_utf8_lossy(&out.stderr)),
        }
    }
    assert_eq!(lost, 0, "an editor's save was overwritten by knit");
}

// ---- 3. repository programs ------------------------------------------------------

/// A git workspace whose configuration names a filter driver, fsmonitor and textconv
/// programs that would leave a marker file if run.
fn booby_trapped_repo() -> (Ws, std::path::PathBuf) {
    let ws = Ws::new();
    ws.write("src/a.ts", source());
    ws.write("docs/arch.md", doc_with_anchor());
    git_first_commit(ws.path(), "init");
    let out = ws.knit(&["anchors", "record"]);
    assert_eq!(out.status.code(), Some(0));
    git(ws.path(), &["commit", "-qam", "record"]);
    let marker = ws.outside_dir().join("PWNED");
    let script = ws.outside_dir().join("evil.sh");
    std::fs::write(&script, format!("#!/bin/sh\necho ran >> '{}'\ncat\n", marker.display())).unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let s = script.display();
    let mut config = std::fs::read_to_string(ws.path().join(".git/config")).unwrap();
    config.push_str(&format!(
        "[filter \"evil\"]\n\tclean = {s}\n\tsmudge = {s}\n\tprocess = {s}\n\trequired = true\n[diff \"evil\"]\n\ttextconv = {s}\n\tcommand = {s}\n[core]\n\tfsmonitor = {s}\n\tpager = {s}\n[log]\n\tshowSignature = true\n[gpg]\n\tprogram = {s}\n"
    ));
    std::fs::write(ws.path().join(".git/config"), config).unwrap();
    ws.write(".gitattributes", "*.ts filter=evil diff=evil\n*.md filter=evil\n");
    std::fs::create_dir_all(ws.path().join(".git/info")).unwrap();
    std::fs::write(ws.path().join(".git/info/attributes"), "* filter=evil diff=evil\n").unwrap();
    (ws, marker)
}

#[test]
fn changed_runs_no_filter_driver_and_still_sees_the_change() {
    let (ws, marker) = booby_trapped_repo();
    ws.write("src/a.ts", &source().replace("x * 2", "x * 3"));
    // Touch the doc's mtime too, so a stat-based shortcut cannot skip hashing it.
    ws.write("docs/arch.md", doc_with_anchor_recorded(&ws));
    let (code, report) = ws.check_json(&["--changed"]);
    assert!(!marker.exists(), "a repository program ran: {}", std::fs::read_to_string(&marker).unwrap_or_default());
    assert_eq!(code, 1, "{report}");
    assert_eq!(states(&report), vec![("docs/arch.md:3".to_string(), "stale".to_string())]);
    // Since a revision, too.
    let (code, report) = ws.check_json(&["--changed", "HEAD~1"]);
    assert!(!marker.exists(), "a repository program ran");
    assert_eq!(code, 1);
    assert_eq!(states(&report).len(), 1);
    // And through the MCP tool the agent hook uses.
    let replies = mcp(&ws, &[json!({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"check_anchors","arguments":{"changed":true}}})]);
    assert!(!marker.exists(), "a repository program ran through MCP");
    assert_eq!(replies[1]["result"]["isError"], false, "{}", replies[1]);
}

fn doc_with_anchor_recorded(ws: &Ws) -> String {
    ws.read("docs/arch.md")
}

#[test]
fn changed_is_an_error_when_git_cannot_be_read() {
    // Not a git repository: exit 2 with a message, never "0 anchors, exit 0".
    let ws = Ws::new();
    ws.write("src/a.ts", source());
    ws.write("docs/arch.md", doc_with_anchor());
    let out = ws.knit(&["check", "--changed"]);
    assert_eq!(out.status.code(), Some(2), "{}", String::from_utf8_lossy(&out.stdout));
    assert!(String::from_utf8_lossy(&out.stderr).contains("git"), "{}", String::from_utf8_lossy(&out.stderr));
    // A broken repository: same.
    git(ws.path(), &["init", "-q"]);
    // HEAD names a commit the repository does not have.
    std::fs::create_dir_all(ws.path().join(".git/refs/heads")).unwrap();
    std::fs::write(ws.path().join(".git/HEAD"), "ref: refs/heads/main\n").unwrap();
    std::fs::write(ws.path().join(".git/refs/heads/main"), "0123456789012345678901234567890123456789\n").unwrap();
    let out = ws.knit(&["check", "--changed"]);
    assert_eq!(out.status.code(), Some(2), "{}", String::from_utf8_lossy(&out.stdout));
    let out = ws.knit(&["check", "--changed", "no-such-rev"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn changed_sees_files_whose_names_git_would_quote() {
    let ws = Ws::new();
    let name = "src/ünïcode file.ts";
    ws.write(name, source());
    ws.write("docs/arch.md", "# Arch\n\nThe [resolver](<../src/ünïcode file.ts#resolve>) resolves.\n");
    git(ws.path(), &["init", "-q"]);
    let out = ws.knit(&["anchors", "record"]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    git(ws.path(), &["add", "-A"]);
    git(ws.path(), &["commit", "-qm", "init"]);
    let (code, report) = ws.check_json(&["--changed"]);
    assert_eq!((code, states(&report).len()), (0, 0), "nothing changed: {report}");
    ws.write(name, &source().replace("x * 2", "x * 5"));
    let (code, report) = ws.check_json(&["--changed"]);
    assert_eq!(code, 1, "{report}");
    assert_eq!(states(&report), vec![("docs/arch.md:3".to_string(), "stale".to_string())]);
}

// ---- 4. super-linear time ------------------------------------------------------------

#[test]
fn a_markdown_line_of_many_link_openers_packs_quickly() {
    let ws = Ws::new();
    // 1 MiB - a little: one line of `x](` with no closing parenthesis.
    ws.write("docs/evil.md", format!("# Evil\n\n{}\n", "x](".repeat(340_000)));
    ws.write("docs/guide.md", "# Guide\n\nHow the resolver resolves.\n");
    let child = knit_cmd(&ws, &["pack", "--query", "resolver", "--format", "json"]).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    let out = wait_with_watchdog(child, "pack");
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
}

#[test]
fn an_lsp_header_that_never_ends_is_dropped() {
    let ws = Ws::new();
    ws.write("docs/a.md", "# A\n");
    let mut child = knit_cmd(&ws, &["lsp", "--stdio"]).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::null()).spawn().unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let stdout = child.stdout.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut r = BufReader::new(stdout);
        while let Some(v) = read_frame(&mut r) {
            if tx.send(v).is_err() {
                return;
            }
        }
    });
    // 32 MiB of a header without its blank line, in chunks, then a real request.
    let chunk = vec![b'x'; 1 << 20];
    stdin.write_all(b"Content-Length: 12\r\n").unwrap();
    for _ in 0..32 {
        stdin.write_all(&chunk).unwrap();
    }
    let init = json!({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"processId":null,"rootUri":null,"capabilities":{}}});
    let body = init.to_string();
    stdin.write_all(format!("Content-Length: {}\r\n\r\n{body}", body.len()).as_bytes()).unwrap();
    stdin.flush().unwrap();
    let deadline = Instant::now() + WATCHDOG;
    let mut answered = false;
    while Instant::now() < deadline {
        match rx.recv_timeout(Duration::from_millis(200)) {
            Ok(v) if v["id"] == 1 => {
                answered = v["result"]["capabilities"].is_object();
                break;
            }
            _ => {}
        }
    }
    let _ = child.kill();
    assert!(answered, "initialize after a 32 MiB unterminated header got no answer within {WATCHDOG:?}");
}

fn read_frame(r: &mut impl BufRead) -> Option<Value> {
    let mut len = 0usize;
    loop {
        let mut line = String::new();
        if r.read_line(&mut line).ok()? == 0 {
            return None;
        }
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        if let Some(v) = line.strip_prefix("Content-Length:") {
            len = v.trim().parse().ok()?;
        }
    }
    let mut body = vec![0u8; len];
    r.read_exact(&mut body).ok()?;
    serde_json::from_slice(&body).ok()
}

// ---- 5. reads outside the root, and hangs (MCP) --------------------------------------

/// Runs `knit mcp` with an initialize handshake followed by `calls`; returns every reply.
fn mcp(ws: &Ws, calls: &[Value]) -> Vec<Value> {
    let mut child = knit_cmd(ws, &["mcp"]).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::null()).spawn().unwrap();
    let mut input = String::new();
    input.push_str(&json!({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}).to_string());
    input.push('\n');
    input.push_str(&json!({"jsonrpc":"2.0","method":"notifications/initialized"}).to_string());
    input.push('\n');
    for c in calls {
        input.push_str(&c.to_string());
        input.push('\n');
    }
    child.stdin.take().unwrap().write_all(input.as_bytes()).unwrap();
    let out = wait_with_watchdog(child, "knit mcp");
    String::from_utf8_lossy(&out.stdout).lines().filter_map(|l| serde_json::from_str(l).ok()).collect()
}

#[cfg(unix)]
#[test]
fn mark_read_never_reads_through_a_link_out_of_the_root_nor_blocks_on_a_fifo() {
    let ws = Ws::new();
    ws.write("docs/a.md", "# A\n\nInside.\n");
    let secret = ws.outside_dir().join("secret.txt");
    std::fs::write(&secret, "outside").unwrap();
    std::os::unix::fs::symlink(&secret, ws.path().join("docs/file-link.md")).unwrap();
    std::os::unix::fs::symlink(ws.outside_dir(), ws.path().join("dir-link")).unwrap();
    std::os::unix::fs::symlink("/proc/self/fd/0", ws.path().join("docs/stdin.md")).unwrap();
    let fifo = ws.path().join("docs/pipe.md");
    let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    assert_eq!(unsafe { libc_mkfifo(c.as_ptr(), 0o644) }, 0);
    let secret_abs = ws.path().join("dir-link/secret.txt");
    let cases: Vec<String> = vec![
        "docs/file-link.md".into(),
        "dir-link/secret.txt".into(),
        format!("file://{}", secret_abs.display()),
        secret_abs.display().to_string(),
        "docs/stdin.md".into(),
        "docs/pipe.md".into(),
    ];
    let mut calls = Vec::new();
    for (i, p) in cases.iter().enumerate() {
        calls.push(json!({"jsonrpc":"2.0","id":10 + i,"method":"tools/call","params":{"name":"mark_read","arguments":{"paths":[p]}}}));
    }
    calls.push(json!({"jsonrpc":"2.0","id":99,"method":"tools/call","params":{"name":"mark_read","arguments":{"paths":["docs/a.md"]}}}));
    let replies = mcp(&ws, &calls);
    for (i, p) in cases.iter().enumerate() {
        let r = replies.iter().find(|r| r["id"] == 10 + i).unwrap_or_else(|| panic!("no reply for {p}"));
        assert_eq!(r["result"]["isError"], true, "{p} was accepted: {r}");
    }
    let ok = replies.iter().find(|r| r["id"] == 99).unwrap();
    assert_eq!(ok["result"]["isError"], false, "{ok}");
    // Nothing outside the root made it into the read evidence.
    let reads = find_file(ws.cache_path(), "reads.json").map(|p| std::fs::read_to_string(p).unwrap()).unwrap_or_default();
    assert!(reads.contains("docs/a.md") && !reads.contains("secret") && !reads.contains("pipe"), "{reads}");
}

#[test]
fn mark_read_of_many_paths_is_one_call() {
    let ws = Ws::new();
    let mut paths = Vec::new();
    for i in 0..2000 {
        let p = format!("docs/d{i}.md");
        ws.write(&p, format!("# D{i}\n"));
        paths.push(p);
    }
    let replies = mcp(&ws, &[json!({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"mark_read","arguments":{"paths":paths}}})]);
    let r = replies.iter().find(|r| r["id"] == 2).unwrap();
    assert_eq!(r["result"]["isError"], false, "{r}");
    assert_eq!(r["result"]["structuredContent"]["read"].as_array().map(Vec::len), Some(2000), "{r}");
}

#[cfg(unix)]
extern "C" {
    #[link_name = "mkfifo"]
    fn libc_mkfifo(path: *const std::os::raw::c_char, mode: u32) -> i32;
}

fn find_file(dir: &Path, name: &str) -> Option<std::path::PathBuf> {
    for e in std::fs::read_dir(dir).ok()?.flatten() {
        let p = e.path();
        if p.is_dir() {
            if let Some(f) = find_file(&p, name) {
                return Some(f);
            }
        } else if p.file_name().is_some_and(|n| n == name) {
            return Some(p);
        }
    }
    None
}

// ---- 7. smaller findings ------------------------------------------------------------

#[test]
fn pack_works_without_a_usable_cache_folder() {
    let ws = Ws::new();
    ws.write("docs/guide.md", "# Guide\n\nHow the resolver resolves.\n");
    // The cache "folder" is a regular file: nothing can be created in it.
    let blocker = ws.outside_dir().join("not-a-folder");
    std::fs::write(&blocker, "x").unwrap();
    let out = Command::new(knit_bin())
        .args(["pack", "--query", "resolver", "--format", "json"])
        .current_dir(ws.path())
        .env("KNIT_CACHE_DIR", &blocker)
        .env("KNIT_STATE_DIR", ws.cache_path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let pack: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(pack["primary"][0]["path"], "docs/guide.md", "{pack}");
    assert_eq!(pack["degraded"]["reason"], "cacheUnusable", "{pack}");
}

#[test]
fn ignore_files_above_the_root_are_not_read() {
    let ws = Ws::new();
    // The workspace is `ws/inner`; a .gitignore above it would hide every doc.
    ws.write(".gitignore", "*.md\n*.ts\n");
    ws.write("inner/knit.toml", "");
    ws.write("inner/src/a.ts", source());
    ws.write("inner/docs/arch.md", doc_with_anchor());
    let out = knit_cmd(&ws, &["check", "--root", "inner", "--format", "json"]).output().unwrap();
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(states(&report), vec![("docs/arch.md:3".to_string(), "unrecorded".to_string())], "{report}");
}

// ---- 7. smaller findings ---------------------------------------------------------------

#[test]
fn a_line_range_anchor_into_its_own_doc_is_fresh_after_record_and_confirm() {
    let ws = Ws::new();
    ws.write("knit.toml", "");
    ws.write("docs/notes.md", "# Notes\n\nSome text here.\nMore text.\n\nSee [the notes](notes.md#L3-L6).\n");
    let record = knit_cmd(&ws, &["anchors", "record"]).output().unwrap();
    assert!(record.status.success(), "{}", String::from_utf8_lossy(&record.stderr));
    let check = || -> Vec<(String, String)> {
        let out = knit_cmd(&ws, &["check", "--format", "json"]).output().unwrap();
        states(&serde_json::from_slice(&out.stdout).unwrap())
    };
    // Recording wrote the baseline into line 6, inside the range: still fresh.
    assert_eq!(check(), vec![("docs/notes.md:6".to_string(), "fresh".to_string())]);
    let confirm = knit_cmd(&ws, &["anchors", "confirm", "docs/notes.md:6"]).output().unwrap();
    assert!(confirm.status.success(), "{}", String::from_utf8_lossy(&confirm.stderr));
    assert_eq!(check(), vec![("docs/notes.md:6".to_string(), "fresh".to_string())]);
    // A real change inside the range is still seen.
    let text = ws.read("docs/notes.md").replace("More text.", "Other text.");
    ws.write("docs/notes.md", &text);
    assert_eq!(check(), vec![("docs/notes.md:6".to_string(), "stale".to_string())]);
}
