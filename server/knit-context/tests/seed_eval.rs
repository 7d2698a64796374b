//! The seed's own evaluation (fixtures/context/seed-eval/knit-eval.json), run against knit's
//! real pipeline: each corpus is written to a temp workspace, indexed, and queried through
//! `ContextEngine`. Report: `cargo test -p knit-context --test seed_eval -- --nocapture`.
//!
//! Floors are asserted so that regressions fail; they are what this engine achieves, not
//! the seed's numbers copied in.

mod common;

use common::*;
use knit_context::{PackParams, QueryParam, TaskInput};
use serde_json::Value;

fn write_records(ws: &Workspace, records: &[Value]) {
    for r in records {
        let rel = s(&r["rel"]);
        match r["kind"].as_str() {
            Some("image") => {
                let mut png = vec![0x89, b'P', b'N', b'G', 0x0d, 0x0a, 0x1a, 0x0a];
                png.resize(2048, 0);
                ws.write(&rel, png);
            }
            Some("code") => ws.write(&rel, s(&r["body"])),
            _ => ws.write(&rel, doc_text(&s(&r["title"]), &s(&r["summary"]), &s(&r["body"]))),
        }
    }
}

/// messages[0] is the NEWEST message in the data; knit takes conversations oldest first.
fn oldest_first(messages: &Value) -> Vec<String> {
    let mut m = strings(messages);
    m.reverse();
    m
}

struct CaseOutcome {
    name: String,
    rank: Option<usize>,
    degenerate: bool,
    tied_top: bool,
    top: String,
    trap_hit: Option<String>,
}

fn run_cases(ws: &Workspace, cases: &[Value]) -> Vec<CaseOutcome> {
    let mut engine = ws.engine();
    let mut out = Vec::new();
    for case in cases {
        let params = PackParams { query: Some(QueryParam::Conversation(oldest_first(&case["messages"]))), ..Default::default() };
        let ranking = engine.ranking(&params, &TaskInput::default()).expect("ranking");
        let expect = s(&case["expect"]);
        let rank = ranking.files.iter().position(|f| f.path == expect).map(|r| r + 1);
        let top = ranking.files.first().map(|f| f.path.clone()).unwrap_or_default();
        if std::env::var_os("KNIT_EVAL_DEBUG").is_some() {
            println!("  {} terms={:?} top5={:?}", s(&case["name"]), ranking.terms, ranking.files.iter().take(5).map(|f| f.path.as_str()).collect::<Vec<_>>());
        }
        let trap_hit = strings(&case["notTop"]).into_iter().find(|t| *t == top);
        out.push(CaseOutcome {
            name: s(&case["name"]),
            rank,
            degenerate: ranking.files.len() <= 1,
            tied_top: ranking.files.get(1).is_some_and(|f| f.tied),
            top,
            trap_hit,
        });
    }
    out
}

fn summarize(label: &str, outcomes: &[CaseOutcome]) -> (usize, f64, usize) {
    let top1 = outcomes.iter().filter(|o| o.rank == Some(1)).count();
    let mrr = outcomes.iter().map(|o| o.rank.map(|r| 1.0 / r as f64).unwrap_or(0.0)).sum::<f64>() / outcomes.len().max(1) as f64;
    let traps = outcomes.iter().filter(|o| o.trap_hit.is_some()).count();
    let degenerate: Vec<&CaseOutcome> = outcomes.iter().filter(|o| o.degenerate || o.tied_top).collect();
    let degenerate_top1 = degenerate.iter().filter(|o| o.rank == Some(1)).count();
    let ranked_top1 = top1 - degenerate_top1;
    println!(
        "{label}: top-1 {top1}/{} ({:.1} %), MRR {mrr:.3}, trap violations {traps}; decided by ranking {ranked_top1}/{}, by ≤1 hit or a tie {degenerate_top1}/{}",
        outcomes.len(),
        100.0 * top1 as f64 / outcomes.len().max(1) as f64,
        outcomes.len() - degenerate.len(),
        degenerate.len()
    );
    for o in outcomes {
        if o.rank != Some(1) || o.trap_hit.is_some() {
            println!("  miss: {} → rank {:?}, top {}{}", o.name, o.rank, o.top, o.trap_hit.as_ref().map(|t| format!(" (TRAP {t})")).unwrap_or_default());
        }
    }
    (top1, mrr, traps)
}

#[test]
fn retrieval_eval_21_cases() {
    let data = eval_json();
    let r = &data["retrieval_eval"];
    let ws = Workspace::new();
    write_records(&ws, r["corpus"].as_array().expect("corpus"));
    let outcomes = run_cases(&ws, r["cases"].as_array().expect("cases"));
    assert_eq!(outcomes.len(), 21);
    let (top1, mrr, traps) = summarize("retrieval_eval (21 cases)", &outcomes);
    assert_eq!(traps, 0, "trap violations must be 0");
    assert!(top1 >= 21, "top-1 regressed: {top1}/21");
    assert!(mrr >= 0.999, "MRR regressed: {mrr}");
}

#[test]
fn v019_code_arm_and_noise() {
    let data = eval_json();
    let r = &data["retrieval_eval"];
    let arm = &r["v019_code_arm"];
    let ws = Workspace::new();
    write_records(&ws, r["corpus"].as_array().expect("corpus"));
    write_records(&ws, arm["V019_DOCS"].as_array().expect("docs"));
    write_records(&ws, arm["CODE_CORPUS"].as_array().expect("code"));
    let noise = strings(&arm["NOISE_RELS_never_in_corpus"]);
    for rel in &noise {
        // noise files carry every query word, so only the noise rules keep them out
        ws.write(rel, "plugin loader metadata session context React Component state 相关性排序 knit");
    }
    let mut cases: Vec<Value> = r["cases"].as_array().expect("cases").clone();
    cases.extend(arm["CODE_CASES"].as_array().expect("code cases").iter().cloned());
    let outcomes = run_cases(&ws, &cases);
    let (doc_outcomes, code_outcomes) = outcomes.split_at(21);
    let (doc_top1, _, doc_traps) = summarize("v0.19 arm, docs (21 cases, 24 records + noise)", doc_outcomes);
    let (code_top1, code_mrr, code_traps) = summarize("v0.19 arm, code (3 cases)", code_outcomes);

    // noise never appears, in any list of any pack
    let mut engine = ws.engine();
    let mut noise_seen = Vec::new();
    for case in &cases {
        let result = pack(&mut engine, &PackParams { query: Some(QueryParam::Conversation(oldest_first(&case["messages"]))), limit: Some(200), ..Default::default() });
        for item in all_items(&result) {
            if noise.contains(&item.path) {
                noise_seen.push(item.path.clone());
            }
        }
    }
    println!("v0.19 arm: noise rate {}/{} packs", noise_seen.len(), cases.len());
    assert!(noise_seen.is_empty(), "noise in packs: {noise_seen:?}");
    assert_eq!(doc_traps + code_traps, 0);
    assert!(doc_top1 >= 21, "docs top-1 with code present: {doc_top1}/21");
    assert_eq!(code_top1, 3, "code top-1");
    assert!(code_mrr >= 0.999);
}

#[test]
fn context_eval_12_tier_tasks() {
    let data = eval_json();
    let c = &data["context_eval"];
    let ws = Workspace::new();
    for r in c["corpus"].as_array().expect("corpus") {
        ws.write(&s(&r["rel"]), doc_text(&s(&r["title"]), &s(&r["summary"]), &s(&r["text"])));
    }
    let mut engine = ws.engine();
    let mut passed = 0;
    let mut failures = Vec::new();
    let cases = c["cases"].as_array().expect("cases");
    let (mut primary_ok, mut primary_total, mut supporting_found, mut supporting_total) = (0, 0, 0, 0);
    for case in cases {
        let result = pack(&mut engine, &PackParams { query: Some(QueryParam::Conversation(oldest_first(&case["messages"]))), ..Default::default() });
        let tier = |name: &str| -> Vec<String> {
            let items = match name {
                "primary" => &result.primary,
                "supporting" => &result.supporting,
                _ => &result.related,
            };
            items.iter().map(|i| i.path.clone()).collect()
        };
        let (primary, supporting, related) = (tier("primary"), tier("supporting"), tier("related"));
        let mut problems = Vec::new();
        for (name, expected, actual) in [("primary", "expectPrimary", &primary), ("supporting", "expectSupporting", &supporting), ("related", "expectRelated", &related)] {
            for e in strings(&case[expected]) {
                if name == "primary" {
                    primary_total += 1;
                }
                if name == "supporting" {
                    supporting_total += 1;
                }
                if actual.contains(&e) {
                    if name == "primary" {
                        primary_ok += 1;
                    }
                    if name == "supporting" {
                        supporting_found += 1;
                    }
                } else {
                    problems.push(format!("{e} not in {name}"));
                }
            }
        }
        for n in strings(&case["notPrimary"]) {
            if primary.contains(&n) {
                problems.push(format!("{n} must not be primary"));
            }
        }
        let one_of = strings(&case["expectPrimaryOneOf"]);
        if !one_of.is_empty() {
            primary_total += 1;
            if primary.len() == 1 && one_of.contains(&primary[0]) {
                primary_ok += 1;
            } else {
                problems.push(format!("primary {primary:?} not exactly one of {one_of:?}"));
            }
        }
        let mut all: Vec<&String> = primary.iter().chain(&supporting).chain(&related).collect();
        let total = all.len();
        all.sort();
        all.dedup();
        if all.len() != total {
            problems.push("tiers overlap".into());
        }
        if problems.is_empty() {
            passed += 1;
        } else {
            failures.push(format!("  {}: {} | P={primary:?} S={supporting:?} R={related:?} terms={:?}", s(&case["name"]), problems.join("; "), result.task.terms));
        }
    }
    println!("context_eval: {passed}/{} tasks pass; primary {primary_ok}/{primary_total}, supporting recall {supporting_found}/{supporting_total}", cases.len());
    for f in &failures {
        println!("{f}");
    }
    assert!(passed >= 11, "tier tasks regressed: {passed}/12");
}

#[test]
fn deep_eval_passages() {
    let data = eval_json();
    let d = &data["deep_eval"];
    let mut found = 0;
    let mut passage_hits = 0;
    let cases = d["cases"].as_array().expect("cases");
    for case in cases {
        let ws = Workspace::new();
        for file in d["makeWorkspace_base_files_also_present"].as_array().expect("base") {
            let rel = s(&file[0]);
            if rel.ends_with(".png") {
                let mut png = vec![0x89, b'P', b'N', b'G', 0x0d, 0x0a, 0x1a, 0x0a];
                png.resize(2048, 0);
                ws.write(&rel, png);
            } else if rel.ends_with(".mp4") {
                ws.write(&rel, vec![0x21u8; 4096]);
            } else {
                ws.write(&rel, s(&file[1]));
            }
        }
        for file in case["files"].as_array().expect("files").iter().chain(d["extra_files_added_to_every_case_workspace"].as_array().expect("extra")) {
            ws.write(&s(&file[0]), s(&file[1]));
        }
        let mut engine = ws.engine();
        let result = pack(&mut engine, &PackParams { query: Some(QueryParam::Text(s(&case["query"]))), ..Default::default() });
        let target = s(&case["target"]["rel"]);
        let mut lines: Vec<u64> = case["targetLines"].as_array().map(|a| a.iter().filter_map(Value::as_u64).collect()).unwrap_or_default();
        if lines.is_empty() {
            lines.push(case["target"]["line"].as_u64().unwrap_or(0));
        }
        let ranking = engine.ranking(&PackParams { query: Some(QueryParam::Text(s(&case["query"]))), ..Default::default() }, &TaskInput::default()).expect("ranking");
        let first = ranking.files.first().map(|f| f.path.clone()).unwrap_or_default();
        let item = all_items(&result).into_iter().find(|i| i.path == target).cloned();
        let passage = item.as_ref().and_then(|i| i.passage.clone());
        let contains = passage.as_ref().is_some_and(|p| lines.iter().any(|&l| (p.start_line as u64..=p.end_line as u64).contains(&l)));
        if first == target {
            found += 1;
        }
        if contains {
            passage_hits += 1;
        }
        println!(
            "  deep {}: top {first}, passage {:?}, target lines {lines:?} → {}",
            s(&case["id"]),
            passage.as_ref().map(|p| (p.start_line, p.end_line)),
            if contains { "hit" } else { "MISS" }
        );
    }
    println!("deep_eval: target ranked first {found}/{}, best passage contains the target line {passage_hits}/{}", cases.len(), cases.len());
    assert_eq!(found, cases.len());
    assert_eq!(passage_hits, cases.len());
}

/// The seed's scale generator (knit-eval.json `scale_benchmark.generator`).
fn scale_corpus(data: &Value, n: usize) -> Vec<(String, String, String)> {
    let sb = &data["scale_benchmark"];
    let topics: Vec<(String, String)> = sb["topics"].as_array().expect("topics").iter().map(|t| (s(&t[0]), s(&t[1]))).collect();
    let noise = strings(&sb["noise"]);
    let mut docs = Vec::new();
    for (i, (topic, detail)) in topics.iter().enumerate() {
        let rel = if i % 2 == 0 { format!("docs/{topic}.md") } else { format!("notes/{}.md", 20260901 + i) };
        let head: String = detail.chars().take(12).collect();
        let body = format!("Knit 的{topic}：{detail}。Knit 里{topic}这件事只在这一篇讲清楚。再说一遍{topic}的要点：{head}。");
        docs.push((rel, topic.clone(), body));
    }
    let mut i = 0;
    while docs.len() < n {
        let rel = format!("notes/filler-{i}.md");
        if i % 3 == 0 {
            let mut body = String::from("Knit 历史归档。");
            for (topic, _) in &topics {
                body.push_str(&format!("{topic}改过几次。").repeat(5));
            }
            body.push_str(&"Knit 这只是一份流水账，每条都只提一句，没有展开。".repeat(6));
            docs.push((rel, format!("归档 {i}"), body));
        } else {
            let body = format!("Knit 随手记 {i}。{}。{}", noise[i % 4], "Knit 这个是临时记录，内容比较杂。".repeat(10));
            docs.push((rel, format!("随手记 {i}"), body));
        }
        i += 1;
    }
    docs
}

#[test]
fn scale_benchmark_quality() {
    let data = eval_json();
    let sb = &data["scale_benchmark"];
    // the generator must reproduce the materialised N=20 corpus exactly
    let generated = scale_corpus(&data, 20);
    for (doc, expected) in generated.iter().zip(sb["materialized_N20_docs"].as_array().expect("n20")) {
        assert_eq!((doc.0.as_str(), doc.1.as_str(), doc.2.as_str()), (expected["rel"].as_str().unwrap_or(""), expected["title"].as_str().unwrap_or(""), expected["body"].as_str().unwrap_or("")));
    }
    let cases = sb["cases"].as_array().expect("cases");
    for n in sb["sizes"].as_array().expect("sizes").iter().filter_map(Value::as_u64) {
        let ws = Workspace::new();
        let docs = scale_corpus(&data, n as usize);
        for (rel, title, body) in &docs {
            ws.write(rel, doc_text(title, "", body));
        }
        let mut engine = ws.engine();
        let (mut knit_rr, mut grep_rr, mut name_rr) = (0.0, 0.0, 0.0);
        let (mut descriptive_top1, mut opaque_top1) = (0, 0);
        for case in cases {
            let want = s(&case["want"]);
            let ranking = engine.ranking(&PackParams { query: Some(QueryParam::Text(s(&case["query"]))), ..Default::default() }, &TaskInput::default()).expect("ranking");
            let rank = ranking.files.iter().position(|f| f.path == want).map(|r| r + 1);
            knit_rr += rank.map(|r| 1.0 / r as f64).unwrap_or(0.0);
            if rank == Some(1) {
                if case["descriptive"].as_bool().unwrap_or(false) {
                    descriptive_top1 += 1;
                } else {
                    opaque_top1 += 1;
                }
            }
            // baselines over the same terms, without the project name (as the seed did)
            let terms: Vec<String> = ranking.terms.iter().filter(|t| *t != "knit").cloned().collect();
            let rank_by = |score: &dyn Fn(&(String, String, String)) -> usize| -> f64 {
                let mut scored: Vec<(usize, &String)> = docs.iter().map(|d| (score(d), &d.0)).collect();
                scored.sort_by(|a, b| b.0.cmp(&a.0)); // stable: input order breaks ties
                scored.iter().position(|(_, rel)| **rel == want).map(|r| 1.0 / (r + 1) as f64).unwrap_or(0.0)
            };
            grep_rr += rank_by(&|d| terms.iter().map(|t| format!("{} {}", d.1, d.2).to_lowercase().matches(t.as_str()).count()).sum());
            name_rr += rank_by(&|d| terms.iter().filter(|t| d.0.to_lowercase().contains(t.as_str())).count());
        }
        let k = cases.len() as f64;
        println!(
            "scale N={n}: knit top-1 {descriptive_top1}/6 descriptive, {opaque_top1}/6 opaque, MRR {:.3} | grep -c MRR {:.3} | filename MRR {:.3}",
            knit_rr / k,
            grep_rr / k,
            name_rr / k
        );
        assert_eq!(descriptive_top1 + opaque_top1, 12, "scale N={n}");
    }
}
