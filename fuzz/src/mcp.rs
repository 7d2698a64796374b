//! Target `mcp`: `knit mcp`'s session on arbitrary lines — bounded line reading
//! (`protocol::read_message`), message classification, dispatch, and the tools
//! (`check_anchors`, `context_pack`, `mark_read`) with whatever `tools/call` arguments the
//! input holds, over a copy of `fixtures/example` (a git repository, so `changed`/`since`
//! reach the in-process git reader).
//!
//! Per input: `knit_mcp::serve` reads the input's lines followed by one valid `ping`.
//!
//! Properties: no panic (the tools' own `catch_unwind` does not hide one: libFuzzer aborts
//! on any panic); the session ends without an I/O error; every line written is one JSON-RPC
//! 2.0 response with exactly one of `result` and `error`; the final `ping` is answered; and
//! `read_message` with a small limit splits the input exactly as a plain split on `\n`
//! would (trailing `\r` removed, blank lines skipped, long lines reported as too large).

use crate::common::example_repository;
use knit_mcp::protocol::{read_message, ReadOutcome};
use knit_mcp::ServerOptions;
use serde_json::Value;
use std::path::PathBuf;
use std::sync::OnceLock;

const FINAL: &str = r#"{"jsonrpc":"2.0","id":"knit-fuzz-final","method":"ping"}"#;

struct Workspace {
    root: PathBuf,
    options: ServerOptions,
}

/// Once per process: the fixture workspace (committed to a fresh git repository when git
/// is available) and private cache/state folders.
fn workspace() -> &'static Workspace {
    static WS: OnceLock<Workspace> = OnceLock::new();
    WS.get_or_init(|| {
        let (dir, root) = example_repository("mcp");
        let options = ServerOptions { cache_dir: Some(dir.join("cache")), state_dir: Some(dir.join("state")) };
        Workspace { root, options }
    })
}

pub fn run(data: &[u8]) {
    let ws = workspace();
    let mut input = data.to_vec();
    input.push(b'\n');
    input.extend_from_slice(FINAL.as_bytes());
    input.push(b'\n');
    let mut out: Vec<u8> = Vec::new();
    knit_mcp::serve(&ws.root, ws.options.clone(), &input[..], &mut out).expect("the session ends without an error");
    let text = std::str::from_utf8(&out).expect("the server writes UTF-8");
    let mut last = None;
    for line in text.lines() {
        let v: Value = serde_json::from_str(line).unwrap_or_else(|e| panic!("reply {line:?} is not JSON: {e}"));
        assert_eq!(v["jsonrpc"], "2.0", "{line}");
        assert!(v.get("id").is_some(), "reply without id: {line}");
        assert!(v.get("result").is_some() != v.get("error").is_some(), "reply needs exactly one of result/error: {line}");
        last = Some(v);
    }
    let last = last.expect("no reply at all");
    assert_eq!(last["id"], "knit-fuzz-final", "the final ping was not answered last: {last}");
    assert!(last.get("result").is_some(), "{last}");

    let limit = 8 + usize::from(data.first().copied().unwrap_or(0) % 64);
    let mut reader = data;
    let mut got = Vec::new();
    loop {
        match read_message(&mut reader, limit).expect("reading from memory cannot fail") {
            ReadOutcome::Eof => break,
            o => got.push(o),
        }
    }
    assert_eq!(got, plain_split(data, limit), "read_message disagrees with a plain split (limit {limit})");
}

/// What `read_message` must return, by the plainest reading of its contract.
fn plain_split(data: &[u8], limit: usize) -> Vec<ReadOutcome> {
    let mut segments: Vec<&[u8]> = data.split(|&b| b == b'\n').collect();
    if segments.last().is_some_and(|s| s.is_empty()) {
        segments.pop(); // what follows the last `\n` is no line
    }
    let mut out = Vec::new();
    for s in segments {
        if s.len() > limit {
            out.push(ReadOutcome::TooLarge);
            continue;
        }
        let s = s.strip_suffix(b"\r").unwrap_or(s);
        if !s.iter().all(u8::is_ascii_whitespace) {
            out.push(ReadOutcome::Line(s.to_vec()));
        }
    }
    out
}
