//! Human and SARIF renderings of a check report (JSON is the report itself).

use knit_anchors::{CheckReport, State};
use serde_json::{json, Value};
use std::collections::BTreeMap;

pub fn human(report: &CheckReport, docs: usize) -> String {
    let mut out = String::new();
    for a in &report.anchors {
        if a.state == State::Fresh {
            continue;
        }
        out.push_str(&format!("{}:{}  {:<13} {}\n", a.doc, a.line, a.state.as_str(), a.detail.message));
        for c in &a.detail.candidates {
            if c.symbol.is_empty() {
                out.push_str(&format!("      candidate: {}\n", c.path));
            } else {
                out.push_str(&format!("      candidate: {}#{} (line {})\n", c.path, c.symbol, c.line));
            }
        }
    }
    for b in &report.broken_links {
        out.push_str(&format!("{}:{}  {:<13} {}\n", b.doc, b.line, "broken-link", b.message));
    }
    for (doc, why) in &report.skipped_docs {
        out.push_str(&format!("{doc}  {:<13} not checked: {why}\n", "skipped"));
    }
    for m in &report.mentions {
        out.push_str(&format!("{}:{}  {:<13} `{}` could be an anchor: {}\n", m.doc, m.line, "mention", m.text, m.suggestion));
    }
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    for a in &report.anchors {
        *counts.entry(a.state.as_str()).or_default() += 1;
    }
    let summary: Vec<String> = counts.iter().map(|(k, v)| format!("{v} {k}")).collect();
    let fs = &report.fallback_share;
    out.push_str(&format!(
        "{} anchor(s) in {docs} doc(s): {}{} · line-range fallback {}/{} ({:.1}%) · {} files read in {} ms{}\n",
        report.anchors.len(),
        if summary.is_empty() { "none".to_string() } else { summary.join(", ") },
        if report.broken_links.is_empty() { String::new() } else { format!(", {} broken link(s)", report.broken_links.len()) },
        fs.fallback,
        fs.total,
        fs.share * 100.0,
        report.budget.files_read,
        report.budget.elapsed_ms,
        match report.budget.limit {
            Some(l) => format!(" · INCOMPLETE: {l} budget ran out, {} anchor(s) unchecked", report.unchecked_anchor_ids.len()),
            None => String::new(),
        }
    ));
    out
}

fn level(state: State) -> &'static str {
    match state {
        State::Lost | State::Invalid => "error",
        State::Stale | State::Moved | State::Renamed | State::MovedRenamed => "warning",
        _ => "note",
    }
}

/// SARIF 2.1.0: one rule per state, one result per non-fresh anchor or broken link.
pub fn sarif(report: &CheckReport) -> Value {
    let states = ["stale", "moved", "renamed", "moved-renamed", "lost", "invalid", "unchecked", "unrecorded", "broken-link"];
    let rules: Vec<Value> = states
        .iter()
        .map(|s| json!({"id": s, "name": s, "shortDescription": {"text": format!("knit anchor state: {s}")}}))
        .collect();
    let mut results: Vec<Value> = report
        .anchors
        .iter()
        .filter(|a| a.state != State::Fresh)
        .map(|a| {
            let mut related = Vec::new();
            if let Some(now) = &a.detail.now {
                related.push(json!({"id": 1, "physicalLocation": {"artifactLocation": {"uri": now.path}, "region": {"startLine": now.line.max(1)}}}));
            }
            json!({
                "ruleId": a.state.as_str(),
                "level": level(a.state),
                "message": {"text": a.detail.message},
                "locations": [{"physicalLocation": {"artifactLocation": {"uri": a.doc}, "region": {"startLine": a.line}}}],
                "relatedLocations": related,
                "partialFingerprints": {"knitAnchorId": a.id},
            })
        })
        .collect();
    results.extend(report.broken_links.iter().map(|b| {
        json!({
            "ruleId": "broken-link",
            "level": "error",
            "message": {"text": b.message},
            "locations": [{"physicalLocation": {"artifactLocation": {"uri": b.doc}, "region": {"startLine": b.line}}}],
        })
    }));
    json!({
        "version": "2.1.0",
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "runs": [{
            "tool": {"driver": {"name": "knit", "version": env!("CARGO_PKG_VERSION"), "rules": rules}},
            "results": results,
        }]
    })
}
