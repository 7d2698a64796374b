//! The anchor conformance suite: every case under `fixtures/anchors/<group>/<case>/` is
//! a before/after workspace plus expected states (see `fixtures/anchors/README.md`).
//! The driver records every anchor in `before/`, applies `after/`, checks, and compares.
//! `KNIT_CASE=substring` runs only matching cases.

use knit_anchors::edit::{apply_edits, record};
use knit_anchors::{check, CheckConfig, CheckOptions, DeclCache, MemTree, Session};
use serde::Deserialize;

mod common;
use common::load_dir;
use std::path::{Path, PathBuf};

#[derive(Deserialize)]
struct Case {
    #[allow(dead_code)]
    description: String,
    #[serde(default)]
    delete: Vec<String>,
    #[serde(default = "yes")]
    record: bool,
    #[serde(default)]
    expect: Vec<Expect>,
    /// Text replaced in a doc after recording (a link pointed elsewhere, its title kept).
    #[serde(default)]
    replace: Vec<Replace>,
}

#[derive(Deserialize)]
struct Replace {
    doc: String,
    from: String,
    to: String,
}

fn yes() -> bool {
    true
}

#[derive(Deserialize, Debug)]
struct Expect {
    doc: String,
    line: u32,
    #[serde(default = "one")]
    ordinal: usize,
    state: String,
    changed: Option<bool>,
    now_path: Option<String>,
    now_symbol: Option<String>,
    now_lines: Option<[u32; 2]>,
    reason: Option<String>,
    candidates_min: Option<usize>,
    /// The first candidate's symbol (candidates are ranked, best first).
    first_candidate: Option<String>,
    /// Symbols that must not be offered as candidates.
    #[serde(default)]
    not_candidates: Vec<String>,
    #[serde(default)]
    members: Vec<String>,
}

fn one() -> usize {
    1
}

fn docs_of(tree: &MemTree) -> Vec<String> {
    tree.files.keys().filter(|p| p.ends_with(".md")).cloned().collect()
}

struct Observed {
    doc: String,
    line: u32,
    ordinal: u32,
    state: String,
    detail: serde_json::Value,
}

fn run_case(dir: &Path) -> Result<(), String> {
    let case: Case = toml::from_str(&std::fs::read_to_string(dir.join("case.toml")).map_err(|e| e.to_string())?)
        .map_err(|e| format!("case.toml: {e}"))?;
    let mut tree = MemTree::new();
    load_dir(&mut tree, &dir.join("before"), &dir.join("before"));
    let cache = DeclCache::default();
    let cfg = CheckConfig::default();
    if case.record {
        for doc in docs_of(&tree) {
            let src = tree.text(&doc).unwrap_or("").to_string();
            let mut session = Session::new(&tree, &cache, cfg.clone());
            let (edits, _) = record(&mut session, &doc, &src, true);
            let new = apply_edits(&src, &edits);
            tree.insert(&doc, new);
        }
    }
    let after = dir.join("after");
    if after.is_dir() {
        load_dir(&mut tree, &after, &after);
    }
    for d in &case.delete {
        tree.remove(d);
    }
    for r in &case.replace {
        let text = tree.text(&r.doc).ok_or(format!("replace: no doc {}", r.doc))?.to_string();
        if !text.contains(&r.from) {
            return Err(format!("replace: {} does not contain {:?}", r.doc, r.from));
        }
        tree.insert(&r.doc, text.replacen(&r.from, &r.to, 1));
    }
    let docs = docs_of(&tree);
    let report = check(&tree, &cache, &cfg, &docs, &CheckOptions::default());
    let json = serde_json::to_value(&report).unwrap();
    let mut observed: Vec<Observed> = Vec::new();
    for a in json["anchors"].as_array().unwrap() {
        observed.push(Observed {
            doc: a["doc"].as_str().unwrap().into(),
            line: a["line"].as_u64().unwrap() as u32,
            ordinal: a["id"].as_str().unwrap().rsplit(':').next().unwrap().parse().unwrap(),
            state: a["state"].as_str().unwrap().into(),
            detail: a["detail"].clone(),
        });
    }
    for b in json["broken_links"].as_array().unwrap() {
        observed.push(Observed {
            doc: b["doc"].as_str().unwrap().into(),
            line: b["line"].as_u64().unwrap() as u32,
            ordinal: b["id"].as_str().unwrap().rsplit(':').next().unwrap().parse().unwrap(),
            state: "invalid".into(),
            detail: serde_json::json!({"reason": "broken_link", "message": b["message"]}),
        });
    }
    observed.sort_by(|a, b| (&a.doc, a.line, a.ordinal).cmp(&(&b.doc, b.line, b.ordinal)));
    let mut used = vec![false; observed.len()];
    let mut errors = Vec::new();
    for e in &case.expect {
        let on_line: Vec<usize> =
            (0..observed.len()).filter(|&i| observed[i].doc == e.doc && observed[i].line == e.line).collect();
        let Some(&i) = on_line.get(e.ordinal - 1) else {
            errors.push(format!("{}:{} #{}: no anchor there (expected {})", e.doc, e.line, e.ordinal, e.state));
            continue;
        };
        used[i] = true;
        let o = &observed[i];
        let d = &o.detail;
        let mut wrong = Vec::new();
        if o.state != e.state {
            wrong.push(format!("state {} (expected {})", o.state, e.state));
        }
        if let Some(c) = e.changed {
            if d["changed"].as_bool().unwrap_or(false) != c {
                wrong.push(format!("changed {} (expected {c})", d["changed"]));
            }
        }
        if let Some(p) = &e.now_path {
            if d["now"]["path"].as_str() != Some(p) {
                wrong.push(format!("now.path {} (expected {p})", d["now"]["path"]));
            }
        }
        if let Some(s) = &e.now_symbol {
            if d["now"]["symbol"].as_str() != Some(s) {
                wrong.push(format!("now.symbol {} (expected {s})", d["now"]["symbol"]));
            }
        }
        if let Some([s, en]) = e.now_lines {
            if d["now"]["lines"] != serde_json::json!([s, en]) {
                wrong.push(format!("now.lines {} (expected [{s},{en}])", d["now"]["lines"]));
            }
        }
        if let Some(r) = &e.reason {
            if d["reason"].as_str() != Some(r) {
                wrong.push(format!("reason {} (expected {r})", d["reason"]));
            }
        }
        if let Some(min) = e.candidates_min {
            let n = d["candidates"].as_array().map(|a| a.len()).unwrap_or(0);
            if n < min {
                wrong.push(format!("{n} candidates (expected ≥ {min})"));
            }
        }
        let cands: Vec<&str> = d["candidates"].as_array().map(|a| a.iter().filter_map(|c| c["symbol"].as_str()).collect()).unwrap_or_default();
        if let Some(first) = &e.first_candidate {
            if cands.first() != Some(&first.as_str()) {
                wrong.push(format!("candidates {cands:?} (expected {first} first)"));
            }
        }
        for not in &e.not_candidates {
            if cands.contains(&not.as_str()) {
                wrong.push(format!("candidates {cands:?} offer {not}"));
            }
        }
        for m in &e.members {
            let has = d["members"].as_array().is_some_and(|a| a.iter().any(|x| x.as_str() == Some(m)));
            if !has {
                wrong.push(format!("members {} lack {m}", d["members"]));
            }
        }
        if !wrong.is_empty() {
            errors.push(format!("{}:{} #{}: {} — {}", e.doc, e.line, e.ordinal, wrong.join("; "), d["message"]));
        }
    }
    for (i, o) in observed.iter().enumerate() {
        if !used[i] {
            errors.push(format!("{}:{} #{}: unexpected anchor ({}: {})", o.doc, o.line, o.ordinal, o.state, o.detail["message"]));
        }
    }
    if errors.is_empty() {
        Ok(())
    } else {
        Err(errors.join("\n    "))
    }
}

fn fixtures_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/anchors")
}

#[test]
fn conformance() {
    let filter = std::env::var("KNIT_CASE").ok();
    let mut groups: Vec<PathBuf> = std::fs::read_dir(fixtures_root()).unwrap().flatten().map(|e| e.path()).filter(|p| p.is_dir()).collect();
    groups.sort();
    let mut failures = Vec::new();
    let mut total = 0;
    let mut summary = Vec::new();
    for g in groups {
        let mut cases: Vec<PathBuf> = std::fs::read_dir(&g).unwrap().flatten().map(|e| e.path()).filter(|p| p.join("case.toml").is_file()).collect();
        cases.sort();
        let mut passed = 0;
        let mut ran = 0;
        for c in cases {
            let name = format!("{}/{}", g.file_name().unwrap().to_string_lossy(), c.file_name().unwrap().to_string_lossy());
            if filter.as_ref().is_some_and(|f| !name.contains(f.as_str())) {
                continue;
            }
            ran += 1;
            total += 1;
            match run_case(&c) {
                Ok(()) => passed += 1,
                Err(e) => failures.push(format!("{name}\n    {e}")),
            }
        }
        summary.push(format!("{}: {passed}/{ran}", g.file_name().unwrap().to_string_lossy()));
    }
    eprintln!("conformance: {}", summary.join(", "));
    assert!(total > 0, "no conformance cases found");
    assert!(failures.is_empty(), "{} of {total} cases failed:\n{}", failures.len(), failures.join("\n"));
}
