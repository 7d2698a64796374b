//! Soak test: a long LSP session of random edits — code and doc buffers edited
//! incrementally (UTF-16 columns, non-ASCII text), buffers opened, saved and closed,
//! files created, changed, deleted and renamed on disk behind the editor's back — with
//! one invariant checked every 500 steps: the diagnostics the server has published equal
//! what a fresh `knit check` (the same core call the CLI makes) reports for the same
//! texts (open buffers over the disk). The process's resident memory must stay flat.
//!
//! `KNIT_SOAK_STEPS` sets the length (CI runs 2 000 steps; `KNIT_SOAK_STEPS=10000 cargo
//! test -p knit-lsp --test soak --release` is the long run), `KNIT_SOAK_SEED` the seed.

mod common;

use common::{position, Client};
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// How long the server may take to settle after a burst before the invariant fails.
const SETTLE: Duration = Duration::from_secs(30);
/// The workload is stationary — at most this many files, open buffers and lines per doc
/// — so memory that grows over the run is a leak, not a bigger workspace.
const MAX_FILES: usize = 48;
const MAX_OPEN: usize = 16;
const MAX_DOC_LINES: usize = 40;
const MAX_FUNCS: usize = 10;

/// xorshift64*: deterministic, no dependency.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
    fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }
}

/// One function of a code file, as the model knows it.
#[derive(Clone)]
struct Func {
    name: String,
    factor: u32,
    broken: bool,
}

/// A TypeScript file rendered from its functions (a non-ASCII comment per function so
/// that UTF-16 and UTF-8 columns differ).
fn render_ts(funcs: &[Func]) -> String {
    let mut s = String::from("// généré — 日本語 ✓\n");
    for f in funcs {
        s.push_str(&format!("/** {} — ü */\nexport function {}(x: number): number {{\n", f.name, f.name));
        s.push_str(&format!("  const y = x * {} + {};\n", f.factor, f.factor + 1));
        if f.broken {
            s.push_str("  return y +* ;\n");
        } else {
            s.push_str("  return y - 1;\n");
        }
        s.push_str("}\n\n");
    }
    s
}

struct Model {
    root: PathBuf,
    /// Disk contents (what a closed file is).
    disk: BTreeMap<String, String>,
    /// Open buffers: text and version.
    open: BTreeMap<String, (String, i32)>,
    /// Code files' functions on disk and in buffers are derived from text; this is the
    /// generator's memory of names it may anchor to.
    names: Vec<String>,
    next_name: usize,
}

impl Model {
    fn write_disk(&mut self, rel: &str, text: String) {
        let p = self.root.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(&p, &text).unwrap();
        self.disk.insert(rel.to_string(), text);
    }

    fn remove_disk(&mut self, rel: &str) {
        let _ = std::fs::remove_file(self.root.join(rel));
        self.disk.remove(rel);
    }

    /// Every file as the editor and the disk together show it.
    fn all_texts(&self) -> BTreeMap<String, String> {
        let mut all = self.disk.clone();
        for (k, (t, _)) in &self.open {
            all.insert(k.clone(), t.clone());
        }
        all
    }
}

fn uri(root: &Path, rel: &str) -> String {
    common::uri(root, rel)
}

/// The smallest single edit that turns `old` into `new`, as an LSP range (UTF-16) and
/// the replacement text.
fn diff_edit(old: &str, new: &str) -> (Value, String) {
    let mut pre = old.bytes().zip(new.bytes()).take_while(|(a, b)| a == b).count();
    while !old.is_char_boundary(pre) || !new.is_char_boundary(pre) {
        pre -= 1;
    }
    let max_suf = old.len().min(new.len()) - pre;
    let mut suf = old.bytes().rev().zip(new.bytes().rev()).take(max_suf).take_while(|(a, b)| a == b).count();
    while !old.is_char_boundary(old.len() - suf) || !new.is_char_boundary(new.len() - suf) {
        suf -= 1;
    }
    let range = json!({ "start": position(old, pre, false), "end": position(old, old.len() - suf, false) });
    (range, new[pre..new.len() - suf].to_string())
}

/// Parses a TS file of the shape `render_ts` writes back into functions (after renames
/// and breakage the model re-reads the text it made).
fn parse_ts(text: &str) -> Vec<Func> {
    let mut out = Vec::new();
    let mut lines = text.lines().peekable();
    while let Some(l) = lines.next() {
        if let Some(rest) = l.strip_prefix("export function ") {
            let name = rest.split('(').next().unwrap_or("").to_string();
            let factor = lines
                .next()
                .and_then(|b| b.trim().strip_prefix("const y = x * "))
                .and_then(|b| b.split(' ').next())
                .and_then(|n| n.parse().ok())
                .unwrap_or(1);
            let broken = lines.next().is_some_and(|r| r.contains("+*"));
            out.push(Func { name, factor, broken });
        }
    }
    out
}

/// What a fresh check says per doc: sorted (1-based line, code) pairs.
fn expected(texts: &BTreeMap<String, String>) -> BTreeMap<String, Vec<(u32, String)>> {
    let dir = tempfile::tempdir().unwrap();
    for (rel, t) in texts {
        let p = dir.path().join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, t).unwrap();
    }
    let tree = knit_workspace::DiskTree::new(dir.path());
    let docs: Vec<String> = texts.keys().filter(|k| k.ends_with(".md")).cloned().collect();
    let cache = knit_anchors::DeclCache::default();
    let report = knit_anchors::check(&tree, &cache, &knit_anchors::CheckConfig::default(), &docs, &knit_anchors::CheckOptions::default());
    let mut out: BTreeMap<String, Vec<(u32, String)>> = docs.iter().map(|d| (d.clone(), Vec::new())).collect();
    for a in &report.anchors {
        if a.state != knit_anchors::State::Fresh {
            out.entry(a.doc.clone()).or_default().push((a.line, a.state.as_str().to_string()));
        }
    }
    for b in &report.broken_links {
        out.entry(b.doc.clone()).or_default().push((b.line, "broken-link".into()));
    }
    for m in &report.mentions {
        out.entry(m.doc.clone()).or_default().push((m.line, "mention".into()));
    }
    for v in out.values_mut() {
        v.sort();
    }
    out
}

/// What the server has published per doc.
fn published(client: &Client, root: &Path, docs: &[String]) -> BTreeMap<String, Vec<(u32, String)>> {
    docs.iter()
        .map(|d| {
            let mut v: Vec<(u32, String)> = client
                .latest_diagnostics(&uri(root, d))
                .and_then(|p| p["diagnostics"].as_array().cloned())
                .unwrap_or_default()
                .iter()
                .map(|x| (x["range"]["start"]["line"].as_u64().unwrap_or(0) as u32 + 1, x["code"].as_str().unwrap_or("").to_string()))
                .collect();
            v.sort();
            (d.clone(), v)
        })
        .collect()
}

fn rss_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| s.lines().find(|l| l.starts_with("VmRSS:")).and_then(|l| l.split_whitespace().nth(1)?.parse().ok()))
        .unwrap_or(0)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn random_edits_keep_diagnostics_equal_to_a_fresh_check() {
    let steps: usize = std::env::var("KNIT_SOAK_STEPS").ok().and_then(|v| v.parse().ok()).unwrap_or(2000);
    let seed: u64 = std::env::var("KNIT_SOAK_SEED").ok().and_then(|v| v.parse().ok()).unwrap_or(0x5eed_1234);
    let mut rng = Rng(seed | 1);
    common::isolate_env();
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("ws");
    std::fs::create_dir_all(&root).unwrap();
    std::fs::write(root.join("knit.toml"), "").unwrap();
    let mut m = Model { root: root.clone(), disk: BTreeMap::new(), open: BTreeMap::new(), names: Vec::new(), next_name: 0 };
    let fresh_name = |m: &mut Model| {
        m.next_name += 1;
        let n = format!("fn{}", m.next_name);
        m.names.push(n.clone());
        n
    };
    for file in ["src/a.ts", "src/b.ts"] {
        let funcs: Vec<Func> = (0..4).map(|i| Func { name: fresh_name(&mut m), factor: i + 2, broken: false }).collect();
        m.write_disk(file, render_ts(&funcs));
    }
    for d in 0..3 {
        let mut doc = format!("# Doc {d} — ñ\n\n");
        for (i, n) in m.names.iter().enumerate().filter(|(i, _)| i % 3 == d) {
            let file = if i < 4 { "a" } else { "b" };
            doc.push_str(&format!("The [{n}](../src/{file}.ts#{n}) does things.\n"));
        }
        m.write_disk(&format!("docs/d{d}.md"), doc);
        common::record_on_disk(&root, &format!("docs/d{d}.md"));
        let t = std::fs::read_to_string(root.join(format!("docs/d{d}.md"))).unwrap();
        m.disk.insert(format!("docs/d{d}.md"), t);
    }

    let client = Client::start(&root).await;
    let mut rss_first = 0;
    let mut rss_last = 0;
    let mut checkpoints = 0;
    for step in 1..=steps {
        // Half the picks are docs, so docs stay busy however many code files appear.
        let files: Vec<String> = m.all_texts().keys().filter(|k| k.ends_with(".md") == rng.chance(50)).cloned().collect();
        let files = if files.is_empty() { m.all_texts().keys().cloned().collect() } else { files };
        let pick = files[rng.below(files.len())].clone();
        let is_doc = pick.ends_with(".md");
        match rng.below(100) {
            // Edit an open buffer (opening it first when needed).
            0..=54 => {
                if !m.open.contains_key(&pick) {
                    if m.open.len() >= MAX_OPEN {
                        // The editor closes a buffer (its unsaved edits are dropped).
                        let victim = m.open.keys().nth(rng.below(m.open.len())).cloned().unwrap();
                        m.open.remove(&victim);
                        client.notify("textDocument/didClose", json!({ "textDocument": { "uri": uri(&root, &victim) } })).await;
                    }
                    let text = m.disk.get(&pick).cloned().unwrap_or_default();
                    client.open(&uri(&root, &pick), &text).await;
                    m.open.insert(pick.clone(), (text, 1));
                }
                let (old, version) = m.open.get(&pick).cloned().unwrap();
                let new = if is_doc { mutate_doc(&mut rng, &old, &m.names, &live(&m)) } else { mutate_code(&mut rng, &old, &mut m) };
                let version = version + 1;
                if rng.chance(80) {
                    let (range, text) = diff_edit(&old, &new);
                    client.change(&uri(&root, &pick), version, range, &text).await;
                } else {
                    client.change_full(&uri(&root, &pick), version, &new).await;
                }
                m.open.insert(pick, (new, version));
            }
            // Save an open buffer (disk catches up) and sometimes close it.
            55..=66 => {
                if let Some((text, _)) = m.open.get(&pick).cloned() {
                    m.write_disk(&pick, text.clone());
                    client.notify("textDocument/didSave", json!({ "textDocument": { "uri": uri(&root, &pick) }, "text": text })).await;
                    watched(&client, &root, &pick, 2).await;
                    if rng.chance(50) {
                        client.notify("textDocument/didClose", json!({ "textDocument": { "uri": uri(&root, &pick) } })).await;
                        m.open.remove(&pick);
                    }
                }
            }
            // Close without saving: the disk is the truth again.
            67..=70 => {
                if m.open.remove(&pick).is_some() {
                    client.notify("textDocument/didClose", json!({ "textDocument": { "uri": uri(&root, &pick) } })).await;
                }
            }
            // Another program changes a closed file on disk.
            71..=84 => {
                if !m.open.contains_key(&pick) {
                    let old = m.disk.get(&pick).cloned().unwrap_or_default();
                    let new = if is_doc { mutate_doc(&mut rng, &old, &m.names, &live(&m)) } else { mutate_code(&mut rng, &old, &mut m) };
                    m.write_disk(&pick, new);
                    if is_doc && rng.chance(40) {
                        // `knit anchors record` ran in a terminal.
                        common::record_on_disk(&root, &pick);
                        let t = std::fs::read_to_string(root.join(&pick)).unwrap();
                        m.disk.insert(pick.clone(), t);
                    }
                    watched(&client, &root, &pick, 2).await;
                }
            }
            // A new doc on disk, anchoring a few names (recorded or not).
            85..=86 if m.disk.len() < MAX_FILES && !m.disk.contains_key(&format!("docs/new{}.md", step % 8)) => {
                // Names come from a small pool, so the set of paths stays bounded too.
                let rel = format!("docs/new{}.md", step % 8);
                let mut doc = String::from("# New — ß\n\n");
                for _ in 0..3 {
                    let n = &m.names[rng.below(m.names.len())];
                    doc.push_str(&format!("Here [{n}](../src/a.ts#{n}) and [it](/src/b.ts#{n}).\n"));
                }
                m.write_disk(&rel, doc);
                if rng.chance(50) {
                    common::record_on_disk(&root, &rel);
                    let t = std::fs::read_to_string(root.join(&rel)).unwrap();
                    m.disk.insert(rel.clone(), t);
                }
                watched(&client, &root, &rel, 1).await;
            }
            // A new code file on disk, often taking a function away from another (a move).
            87..=90 if m.disk.len() < MAX_FILES && !m.disk.contains_key(&format!("src/n{}.ts", step % 8)) && !m.open.contains_key(&format!("src/n{}.ts", step % 8)) => {
                let rel = format!("src/n{}.ts", step % 8);
                let mut funcs = vec![Func { name: fresh_name(&mut m), factor: 7, broken: false }];
                if let Some(donor) = m.disk.keys().filter(|k| k.ends_with(".ts") && !m.open.contains_key(*k)).nth(rng.below(3)).cloned() {
                    let mut dfs = parse_ts(&m.disk[&donor]);
                    if dfs.len() > 1 {
                        funcs.push(dfs.remove(rng.below(dfs.len())));
                        m.write_disk(&donor, render_ts(&dfs));
                        watched(&client, &root, &donor, 2).await;
                    }
                }
                m.write_disk(&rel, render_ts(&funcs));
                watched(&client, &root, &rel, 1).await;
            }
            // Delete or rename a closed file on disk.
            _ => {
                if !m.open.contains_key(&pick) && m.disk.len() > 4 {
                    let text = m.disk.get(&pick).cloned().unwrap_or_default();
                    m.remove_disk(&pick);
                    watched(&client, &root, &pick, 3).await;
                    let (dir, ext) = (pick.rsplit_once('/').map_or("", |p| p.0), pick.rsplit_once('.').map_or("md", |p| p.1));
                    let to = format!("{dir}/r{}.{ext}", step % 8);
                    if rng.chance(50) && !m.disk.contains_key(&to) && !m.open.contains_key(&to) {
                        m.write_disk(&to, text);
                        watched(&client, &root, &to, 1).await;
                    }
                }
            }
        }
        if step % 500 == 0 || step == steps {
            checkpoints += 1;
            let texts = m.all_texts();
            let docs: Vec<String> = texts.keys().filter(|k| k.ends_with(".md")).cloned().collect();
            let want = expected(&texts);
            // Open docs must also be stamped with their current version.
            let start = Instant::now();
            loop {
                let got = published(&client, &root, &docs);
                let versions_ok = m.open.iter().filter(|(k, _)| k.ends_with(".md")).all(|(k, (_, v))| {
                    client.latest_diagnostics(&uri(&root, k)).and_then(|p| p["version"].as_i64()) == Some(i64::from(*v))
                });
                if got == want && versions_ok {
                    break;
                }
                if start.elapsed() > SETTLE {
                    let diff: Vec<String> = docs
                        .iter()
                        .filter(|d| got.get(*d) != want.get(*d))
                        .map(|d| format!("{d} ({}):\n  published {:?}\n  fresh check {:?}\n  text:\n{}", if m.open.contains_key(d) { "open" } else { "closed" }, got.get(d), want.get(d), texts[d]))
                        .collect();
                    panic!("step {step} (seed {seed:#x}): diagnostics differ from a fresh check (versions ok: {versions_ok}):\n{}", diff.join("\n"));
                }
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
            client.clear_notifications();
            let mut states: BTreeMap<String, usize> = BTreeMap::new();
            for v in want.values() {
                for (_, code) in v {
                    *states.entry(code.clone()).or_default() += 1;
                }
            }
            let rss = rss_kib();
            if rss_first == 0 {
                rss_first = rss;
            }
            rss_last = rss;
            eprintln!("soak: step {step}: {} docs, {} files, {} open; invariant holds over {states:?}; RSS {} MiB", docs.len(), texts.len(), m.open.len(), rss / 1024);
        }
    }
    assert!(checkpoints >= 1);
    // Flat memory: whatever the first checkpoint used, the rest of the run may add at
    // most 64 MiB (caches of a few dozen small files are far below that).
    assert!(rss_last <= rss_first + 64 * 1024, "RSS grew from {} MiB to {} MiB", rss_first / 1024, rss_last / 1024);
    client.shutdown().await;
}

/// Every (file, function) that exists now, editor buffers over disk.
fn live(m: &Model) -> Vec<(String, String)> {
    m.all_texts().iter().filter(|(k, _)| k.ends_with(".ts")).flat_map(|(k, t)| parse_ts(t).into_iter().map(move |f| (k.clone(), f.name))).collect()
}

/// `workspace/didChangeWatchedFiles` for one file (1 created, 2 changed, 3 deleted).
async fn watched(client: &Client, root: &Path, rel: &str, kind: u8) {
    client.notify("workspace/didChangeWatchedFiles", json!({ "changes": [ { "uri": uri(root, rel), "type": kind } ] })).await;
}

/// A random edit of a doc: add or remove an anchor line, retarget one, break a link,
/// add a `path:lines` mention, or type garbage.
fn mutate_doc(rng: &mut Rng, old: &str, names: &[String], live: &[(String, String)]) -> String {
    let mut lines: Vec<String> = old.lines().map(str::to_string).collect();
    // Mostly a declaration that exists now (fresh, later stale/moved/renamed), sometimes
    // a name that is gone (invalid, lost).
    let (file, name) = match live.get(rng.below(live.len())).filter(|_| rng.chance(80)) {
        Some((f, n)) => (f.trim_start_matches("src/").trim_end_matches(".ts").to_string(), n.clone()),
        None => (["a", "b", "n1"][rng.below(3)].to_string(), names[rng.below(names.len())].clone()),
    };
    let at = 2 + rng.below(lines.len().saturating_sub(1).max(1));
    let full = lines.len() >= MAX_DOC_LINES;
    match if full { 1 } else { rng.below(6) } {
        0 => lines.insert(at.min(lines.len()), format!("Also [{name}](../src/{file}.ts#{name}) — é.")),
        1 if lines.len() > 3 => {
            lines.remove(at.min(lines.len() - 1));
        }
        2 => lines.insert(at.min(lines.len()), format!("A [missing page](gone{}.md) and [{name}](../src/{file}.ts#{name}Typo).", rng.below(9))),
        3 => lines.insert(at.min(lines.len()), format!("See `src/{file}.ts:{}-{}`.", 2 + rng.below(5), 8 + rng.below(5))),
        4 => {
            // Retarget an existing anchor's fragment (its baseline stays: a mismatch).
            if let Some(l) = lines.iter_mut().find(|l| l.contains(".ts#")) {
                if let Some(i) = l.find(".ts#") {
                    let end = l[i + 4..].find([')', ' ']).map_or(l.len(), |e| i + 4 + e);
                    l.replace_range(i + 4..end, &name);
                }
            }
        }
        _ => lines.insert(at.min(lines.len()), "Some prose with 日本語 and [a link](".to_string()),
    }
    let mut s = lines.join("\n");
    s.push('\n');
    s
}

/// A random edit of a code file: change a body, rename, break or fix the syntax,
/// delete or add a function, or garble the file.
fn mutate_code(rng: &mut Rng, old: &str, m: &mut Model) -> String {
    let mut funcs = parse_ts(old);
    if funcs.is_empty() {
        m.next_name += 1;
        let n = format!("fn{}", m.next_name);
        m.names.push(n.clone());
        funcs.push(Func { name: n, factor: 3, broken: false });
        return render_ts(&funcs);
    }
    let i = rng.below(funcs.len());
    match rng.below(7) {
        0 | 1 => funcs[i].factor = 2 + rng.below(6) as u32,
        2 => {
            m.next_name += 1;
            let n = format!("fn{}", m.next_name);
            m.names.push(n.clone());
            funcs[i].name = n;
        }
        3 => funcs[i].broken = !funcs[i].broken,
        4 if funcs.len() > 1 => {
            funcs.remove(i);
        }
        5 if funcs.len() < MAX_FUNCS => {
            m.next_name += 1;
            let n = format!("fn{}", m.next_name);
            m.names.push(n.clone());
            funcs.push(Func { name: n, factor: 4, broken: false });
        }
        6 if funcs.len() < MAX_FUNCS => {
            // A copy of another function's body under a new name (a twin).
            let mut twin = funcs[i].clone();
            m.next_name += 1;
            twin.name = format!("fn{}", m.next_name);
            m.names.push(twin.name.clone());
            funcs.push(twin);
        }
        _ => {
            funcs.remove(i);
        }
    }
    render_ts(&funcs)
}
