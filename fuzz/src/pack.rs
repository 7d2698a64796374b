//! Target `pack`: the context engine on a hostile workspace's content — fuzzed files (names
//! and bytes) beside `fixtures/example` in a real git repository, packed for a fuzzed query
//! and a fuzzed focus, open buffer and cursor; and the co-change table (`CoChange`: partners,
//! past commits, recent files) over a history made of the input's bytes.
//!
//! Input: byte 0 holds flags (bit 0: a query; bit 1: a focus; bit 2: the focused file is
//! also an open buffer with in-memory text; bit 3: only code items; bits 4–7: the limit,
//! 0 = none); byte 1 picks the focused file, bytes 2–3 the cursor's line and character.
//! The rest is NUL-separated parts: the query, then up to [`MAX_FILES`] files, each a path
//! line and its content. The history is drawn from the same bytes (see [`history_of`]).
//!
//! The workspace is made once per process (`git init`, the fixture and two edits of two
//! files each, so co-change has pairs to find). Per input the work tree is put back to the
//! committed files, the fuzzed files are written into it under sanitised names (never into
//! `.git`, never outside the root) and the index and history caches start empty, so a
//! replay does not depend on what ran before.
//!
//! Properties: no panic; a pack that succeeds serialises; each of its items names a file
//! that exists inside the root, once across all tiers; every passage's line range lies in
//! its file (1 ≤ start ≤ end ≤ the file's lines). For the co-change table: partners never
//! include the focus, are unique, at most the limit, `together ≤ of`, scores finite,
//! non-negative and best first; past-commit hits and recent files are unique with sane
//! counts.

use crate::common::{example_repository, git_in, split_nul};
use knit_context::cochange::CoChange;
use knit_context::{ContextEngine, EngineOptions, Focus, Kind, NoAnchorFacts, OpenBuffer, PackParams, PackResult, Position, QueryParam, TaskInput};
use knit_workspace::history::CommitFiles;
use knit_workspace::History;
use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// At most this many fuzzed files per input.
pub const MAX_FILES: usize = 8;
/// Names used for a fuzzed file whose path line sanitises to nothing.
const FALLBACK_NAMES: [&str; 8] = ["src/f.ts", "docs/f.md", "f.py", "src/f.rs", "Sources/F.swift", "README.md", "src/f.go", "test/f.test.ts"];

struct Workspace {
    root: PathBuf,
    cache: PathBuf,
    state: PathBuf,
    /// The work tree as committed (workspace-relative path, bytes), restored before every input.
    snapshot: Vec<(String, Vec<u8>)>,
}

impl Workspace {
    fn paths(&self) -> Vec<String> {
        self.snapshot.iter().map(|(p, _)| p.clone()).collect()
    }

    /// Removes everything but `.git` and writes the committed files back.
    fn restore(&self) {
        if let Ok(entries) = std::fs::read_dir(&self.root) {
            for e in entries.flatten().filter(|e| e.file_name() != ".git") {
                let p = e.path();
                let _ = if p.is_dir() && !p.is_symlink() { std::fs::remove_dir_all(&p) } else { std::fs::remove_file(&p) };
            }
        }
        for (rel, bytes) in &self.snapshot {
            let p = self.root.join(rel);
            if let Some(parent) = p.parent() {
                std::fs::create_dir_all(parent).expect("restore a fixture folder");
            }
            std::fs::write(&p, bytes).expect("restore a fixture file");
        }
    }
}

fn workspace() -> &'static Workspace {
    static WS: OnceLock<Workspace> = OnceLock::new();
    WS.get_or_init(|| {
        let (dir, root) = example_repository("pack");
        // Two commits after the fixture's own, each changing two files, so that co-change
        // has pairs to rank.
        for (n, pair) in [["src/resolve.ts", "docs/architecture.md"], ["src/resolve.ts", "src/lang.ts"]].iter().enumerate() {
            for f in pair {
                let p = root.join(f);
                let mut text = std::fs::read_to_string(&p).unwrap_or_default();
                text.push_str(&format!("\n// edit {n}\n"));
                let _ = std::fs::write(&p, text);
            }
            let _ = git_in(&root, &["commit", "-qam", &format!("resolve: edit {n}")]);
        }
        let mut files = Vec::new();
        list_files(&root, &root, &mut files);
        files.sort();
        let snapshot = files.into_iter().map(|rel| (rel.clone(), std::fs::read(root.join(&rel)).expect("read a fixture file"))).collect();
        Workspace { root, cache: dir.join("cache"), state: dir.join("state"), snapshot }
    })
}

fn list_files(root: &Path, dir: &Path, out: &mut Vec<String>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for e in entries.flatten() {
        let p = e.path();
        if e.file_name() == ".git" {
            continue;
        }
        if p.is_dir() {
            list_files(root, &p, out);
        } else if let Ok(rel) = p.strip_prefix(root) {
            out.push(rel.to_string_lossy().replace('\\', "/"));
        }
    }
}

/// A workspace-relative path made of the fuzzed path line: at most four components of
/// safe characters, none empty, `.`, `..` or `.git`-like; `None` when nothing is left.
pub fn sanitise(line: &[u8]) -> Option<String> {
    let text = String::from_utf8_lossy(line);
    let parts: Vec<String> = text
        .split(['/', '\\'])
        .map(|c| c.chars().filter(|ch| ch.is_alphanumeric() || matches!(ch, '.' | '_' | '-' | '+' | ' ' | '@')).take(40).collect::<String>())
        .map(|c| c.trim().to_string())
        .filter(|c| !c.is_empty() && c != "." && c != ".." && !c.to_ascii_lowercase().starts_with(".git"))
        .collect();
    let parts = &parts[parts.len().saturating_sub(4)..];
    (!parts.is_empty()).then(|| parts.join("/"))
}

/// The fuzzed files: (sanitised path, content), later parts overriding earlier ones.
fn files_of(parts: &[&[u8]]) -> Vec<(String, Vec<u8>)> {
    let mut out: Vec<(String, Vec<u8>)> = Vec::new();
    for (i, part) in parts.iter().take(MAX_FILES).enumerate() {
        let (line, content) = match part.iter().position(|&b| b == b'\n') {
            Some(n) => (&part[..n], &part[n + 1..]),
            None => (*part, &[][..]),
        };
        let path = sanitise(line).unwrap_or_else(|| FALLBACK_NAMES[i % FALLBACK_NAMES.len()].to_string());
        out.retain(|(p, _)| *p != path && !p.starts_with(&format!("{path}/")) && !path.starts_with(&format!("{p}/")));
        out.push((path, content.to_vec()));
    }
    out
}

/// A history made of the input: each 4-byte window is a commit whose files are the bytes'
/// picks among `paths` plus two names no file has (histories mention deleted files), each
/// once, with a subject cut from the query; one byte value past the paths gives an
/// out-of-range id, which `History::path` must absorb (a cache from a buggy or other
/// version could hold one).
pub fn history_of(data: &[u8], paths: &[String], query: &str) -> History {
    let mut h = History::default();
    h.paths = paths.to_vec();
    h.paths.extend(["gone/old.ts".to_string(), "docs/removed.md".to_string()]);
    let words: Vec<&str> = query.split_whitespace().collect();
    for (i, chunk) in data.chunks(4).take(400).enumerate() {
        // One id past the paths (every out-of-range id reads as the same empty path).
        let span = h.paths.len() as u32 + 1;
        let mut files: Vec<u32> = Vec::new();
        for id in chunk.iter().map(|&b| u32::from(b) % span) {
            if !files.contains(&id) {
                files.push(id); // the reader lists a commit's files once each
            }
        }
        let subject = if words.is_empty() { String::new() } else { words[i % words.len()..].iter().take(6).copied().collect::<Vec<_>>().join(" ") };
        h.commits.push(CommitFiles { id: format!("{i:040x}"), time: i as i64, files, subject });
    }
    h
}

fn check_cochange(h: History, query: &str) {
    let paths = h.paths.clone();
    let cc = CoChange::new(h);
    for focus in &paths {
        let partners = cc.partners(focus, &|_| true, 10);
        assert!(partners.len() <= 10, "more partners than asked: {}", partners.len());
        let mut seen = HashSet::new();
        for (i, p) in partners.iter().enumerate() {
            assert_ne!(&p.path, focus, "a file is its own co-change partner");
            assert!(seen.insert(p.path.clone()), "partner {} listed twice", p.path);
            assert!(p.together >= 1 && p.together <= p.of, "{p:?}");
            assert!(p.score.is_finite() && p.score >= 0.0, "{p:?}");
            if i > 0 {
                assert!(partners[i - 1].score >= p.score, "partners not best first: {partners:?}");
            }
        }
    }
    let terms: Vec<(String, f32)> = query.split_whitespace().take(12).map(|w| (w.to_lowercase(), 1.0)).collect();
    let hits = cc.past_commits(&terms, &|_| true, 10);
    assert!(hits.len() <= 10);
    let mut seen = HashSet::new();
    for hit in &hits {
        assert!(hit.score.is_finite() && hit.score >= 0.0, "{hit:?}");
        assert!(seen.insert(hit.path.clone()), "past-commit hit {} listed twice", hit.path);
    }
    let mut seen = HashSet::new();
    for r in cc.recent() {
        assert!(r.commits >= 1 && r.latest >= 1, "{r:?}");
        assert!(seen.insert(r.path.clone()), "recent file {} listed twice", r.path);
    }
}

/// Lines of `text` as an editor counts them: LF, CRLF and a lone CR each end one.
fn line_count(text: &[u8]) -> u32 {
    let lone_cr = text.windows(2).filter(|w| w[0] == b'\r' && w[1] != b'\n').count() + usize::from(text.last() == Some(&b'\r'));
    (text.iter().filter(|&&b| b == b'\n').count() + lone_cr + 1) as u32
}

fn check_pack(root: &Path, input: &TaskInput, pack: &PackResult) {
    serde_json::to_string(pack).expect("a pack serialises");
    let mut seen = HashSet::new();
    for item in pack.pinned.iter().chain(&pack.primary).chain(&pack.supporting).chain(&pack.related).chain(&pack.more) {
        assert!(!item.path.starts_with('/') && !item.path.split('/').any(|c| c == ".." || c == "." || c.is_empty()), "item path {:?} is not workspace-relative", item.path);
        assert!(seen.insert(item.path.clone()), "{} is in the pack twice", item.path);
        let file = root.join(&item.path);
        assert!(file.is_file(), "item {} is not a file of the workspace", item.path);
        if let Some(p) = &item.passage {
            // An open buffer's passage comes from its text, any other from the disk.
            let text = match input.buffers.iter().find(|b| b.path == item.path) {
                Some(b) => b.text.as_bytes().to_vec(),
                None => std::fs::read(&file).unwrap_or_default(),
            };
            let lines = line_count(&text);
            assert!(p.start_line >= 1 && p.start_line <= p.end_line && p.end_line <= lines.max(1), "passage {}–{} of {} outside its {lines} lines", p.start_line, p.end_line, item.path);
        }
    }
}

pub fn run(data: &[u8]) {
    let Some((&flags, rest)) = data.split_first() else { return };
    let (pick, line, character, rest) = match rest {
        [a, b, c, rest @ ..] => (*a, *b, *c, rest),
        _ => (0, 0, 0, &[][..]),
    };
    let (query_bytes, mut tail) = split_nul(rest);
    let mut parts = Vec::new();
    while !tail.is_empty() && parts.len() < MAX_FILES {
        let (part, next) = split_nul(tail);
        parts.push(part);
        tail = next;
    }
    let query = String::from_utf8_lossy(query_bytes).into_owned();
    let files = files_of(&parts);

    let ws = workspace();
    let mut all: Vec<String> = ws.paths();
    for (p, _) in &files {
        if !all.contains(p) {
            all.push(p.clone());
        }
    }
    check_cochange(history_of(rest, &all, &query), &query);

    // Fresh caches: the index and the history are built from this input alone.
    let _ = std::fs::remove_dir_all(&ws.cache);
    let _ = std::fs::remove_dir_all(&ws.state);
    ws.restore();
    for (p, content) in &files {
        // A name that collides with a folder (or a file where its folder should be) is
        // skipped: the same input always meets the same tree.
        let target = ws.root.join(p);
        if target.parent().is_some_and(|parent| std::fs::create_dir_all(parent).is_ok()) {
            let _ = std::fs::write(&target, content);
        }
    }

    let options = EngineOptions { cache_dir: Some(ws.cache.clone()), state_dir: Some(ws.state.clone()), index_threads: 1, rescan_interval: None, ..Default::default() };
    let focused = all.get(usize::from(pick) % all.len().max(1)).cloned().unwrap_or_default();
    let mut params = PackParams::default();
    if flags & 1 != 0 {
        params.query = Some(QueryParam::Text(query.clone()));
    }
    if flags & 2 != 0 {
        let uri = if pick & 0x80 != 0 { format!("file://{}/{focused}", ws.root.display()) } else { focused.clone() };
        params.focus = Some(Focus { uri, position: Some(Position { line: u32::from(line), character: u32::from(character) }) });
    }
    if flags & 8 != 0 {
        params.kinds = Some(vec![Kind::Code]);
    }
    if flags >> 4 != 0 {
        params.limit = Some(usize::from(flags >> 4));
    }
    let mut input = TaskInput::default();
    if flags & 4 != 0 {
        let text = files.iter().find(|(p, _)| *p == focused).map(|(_, c)| String::from_utf8_lossy(c).into_owned()).unwrap_or_else(|| query.clone());
        input.buffers.push(OpenBuffer {
            path: focused.clone(),
            text,
            focused: true,
            last_focus_or_edit_order: 0,
            cursor_line: Some(u32::from(line) + 1),
            recent_edit_lines: vec![u32::from(line) + 1, u32::from(character)],
        });
    }
    let mut engine = ContextEngine::open(&ws.root, options).unwrap_or_else(|e| panic!("the engine does not open on the fuzz workspace: {e:#}"));
    if let Ok(pack) = engine.pack(&params, &input, &NoAnchorFacts) {
        check_pack(&ws.root, &input, &pack);
    }
    // No restore here: the next input starts with one, so a second would be wasted work.
}
