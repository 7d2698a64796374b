//! knit's own evaluation on a realistic small project (fixtures/context/): 22 task cases
//! (conversation queries) and 6 open-buffer cases. Report:
//! `cargo test -p knit-context --test own_eval -- --nocapture`.

mod common;

use std::path::Path;

use common::*;
use knit_context::{ContextEngine, NoAnchorFacts, OpenBuffer, PackParams, QueryParam, TaskInput};

fn fixture_dir() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/context")
}

#[test]
fn own_eval_on_the_tally_project() {
    let dir = fixture_dir();
    let cases: serde_json::Value = serde_json::from_slice(&std::fs::read(dir.join("cases.json")).expect("cases.json")).expect("json");
    let ws = Workspace::new();
    copy_tree(&dir.join("corpus"), &ws);
    // default options: imports come from the real syntax layer (knit_syntax::imports)
    let mut engine = ContextEngine::open(ws.path(), ws.options()).expect("open");

    let (mut top1, mut rr, mut in_pack, mut in_pack_total) = (0, 0.0, 0, 0);
    let query_cases = cases["cases"].as_array().expect("cases");
    for case in query_cases {
        let params = PackParams { query: Some(QueryParam::Conversation(strings(&case["query"]))), ..Default::default() };
        let ranking = engine.ranking(&params, &TaskInput::default()).expect("ranking");
        let expect_top = strings(&case["expectTop"]);
        let rank = ranking.files.iter().position(|f| expect_top.contains(&f.path)).map(|r| r + 1);
        if rank == Some(1) {
            top1 += 1;
        }
        rr += rank.map(|r| 1.0 / r as f64).unwrap_or(0.0);
        let result = engine.pack(&params, &TaskInput::default(), &NoAnchorFacts).expect("pack");
        let tiers: Vec<&str> = result.tier_paths().into_iter().map(|(_, p)| p).collect();
        let missing: Vec<String> = strings(&case["expectInPack"]).into_iter().filter(|p| !tiers.contains(&p.as_str())).collect();
        in_pack_total += strings(&case["expectInPack"]).len();
        in_pack += strings(&case["expectInPack"]).len() - missing.len();
        if rank != Some(1) || !missing.is_empty() {
            println!("  {}: rank {rank:?} (top {:?}), missing from tiers {missing:?}, terms {:?}", s(&case["name"]), ranking.files.first().map(|f| &f.path), ranking.terms);
        }
    }
    let n = query_cases.len();
    println!("own eval, queries: top-1 {top1}/{n}, MRR {:.3}, expected files in tiers {in_pack}/{in_pack_total}", rr / n as f64);

    let (mut open_found, mut open_total) = (0, 0);
    let open_cases = cases["openCases"].as_array().expect("open cases");
    for case in open_cases {
        let open = strings(&case["open"]);
        let count = open.len();
        let buffers: Vec<OpenBuffer> = open
            .iter()
            .enumerate()
            .map(|(i, path)| OpenBuffer {
                path: path.clone(),
                text: std::fs::read_to_string(ws.path().join(path)).expect("open file"),
                focused: i + 1 == count,
                last_focus_or_edit_order: (count - 1 - i) as u32,
                ..Default::default()
            })
            .collect();
        let result = engine.pack(&PackParams::default(), &TaskInput { buffers }, &NoAnchorFacts).expect("pack");
        let tiers: Vec<&str> = result.tier_paths().into_iter().map(|(_, p)| p).collect();
        assert!(open.iter().all(|o| !tiers.contains(&o.as_str())), "open buffers are never packed");
        let expected = strings(&case["expectInPack"]);
        let missing: Vec<&String> = expected.iter().filter(|p| !tiers.contains(&p.as_str())).collect();
        open_total += expected.len();
        open_found += expected.len() - missing.len();
        if !missing.is_empty() {
            println!("  open {}: missing {missing:?}; tiers {tiers:?}", s(&case["name"]));
        }
    }
    println!("own eval, open buffers: next files in tiers {open_found}/{open_total}");

    // floors = what this engine achieves today (19/22, 29/29, 14/15); lower means a regression
    assert!(top1 >= 19, "own-eval top-1 regressed: {top1}/{n}");
    assert_eq!(in_pack, in_pack_total, "own-eval tier recall regressed");
    assert!(open_found + 1 >= open_total, "open-buffer recall regressed: {open_found}/{open_total}");
}
