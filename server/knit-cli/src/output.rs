//! Human and SARIF renderings of a check report (JSON is the report itself).

use knit_anchors::{CheckReport, State};
use serde_json::{json, Value};
use std::collections::BTreeMap;

/// `1 anchor`, `2 anchors`: counts in plain words for every human output.
pub fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// One line of the human report, before alignment.
struct Finding {
    doc: String,
    line: u32,
    label: &'static str,
    message: String,
    /// Indented lines under the finding (candidates).
    notes: Vec<String>,
    /// What resolves it, as a command when there is one.
    action: String,
}

/// What an anchor points at, as the doc would write it: `path#Symbol`, `path#L3-L9`,
/// `path#section` or the path.
fn target_label(t: &knit_anchors::TargetReport) -> String {
    match (&t.symbol, t.lines, &t.section) {
        (Some(symbol), _, _) => format!("`{}#{symbol}`", t.path),
        (None, Some([start, end]), _) => format!("`{}#L{start}-L{end}`", t.path),
        (None, None, Some(section)) => format!("`{}#{section}`", t.path),
        _ => format!("`{}`", t.path),
    }
}

/// The one step that resolves a finding of `state` on `doc:line`.
fn action_for(state: State, doc: &str, line: u32) -> String {
    match state {
        State::Stale => format!("review the text, then: knit anchors confirm {doc}:{line}"),
        State::Moved | State::Renamed | State::MovedRenamed => format!("knit anchors confirm {doc}:{line}  (rewrites the link to where the code went)"),
        State::Lost => format!("point it at the code it meant: knit anchors rebind {doc}:{line} PATH#NAME (candidates above), or remove it"),
        State::Invalid => "fix the link's destination".to_string(),
        State::Unrecorded => format!("knit anchors record {doc}"),
        State::Unchecked => "not judged this time: check again once the file parses, or raise the budget in knit.toml".to_string(),
        State::Fresh => String::new(),
    }
}

/// Colour only on a terminal, and never when `NO_COLOR` is set to anything non-empty
/// (no-color.org).
pub fn wants_colour(stdout_is_terminal: bool, no_color: Option<&std::ffi::OsStr>) -> bool {
    stdout_is_terminal && no_color.is_none_or(|v| v.is_empty())
}

/// ANSI colour for a finding's label when stdout is a terminal and `NO_COLOR` is unset.
fn paint(label: &str, colour: bool) -> String {
    if !colour {
        return label.to_string();
    }
    let code = match label {
        "lost" | "invalid" | "broken-link" => "31",
        "stale" | "moved" | "renamed" | "moved-renamed" => "33",
        _ => "36",
    };
    format!("\x1b[{code}m{label}\x1b[0m")
}

/// `--explain`: the reviewed version, the commits after it that changed the declaration,
/// and the declaration's diff; or, plainly, why there is none.
fn since_notes(since: Option<&knit_anchors::SinceReview>, missing: Option<&str>) -> Vec<String> {
    use knit_anchors::engine::since::day;
    let Some(s) = since else {
        let why = missing.map(|word| knit_anchors::engine::since::NoSince::from_word(word).unwrap_or(knit_anchors::engine::since::NoSince::NotInHistory));
        return why.map(|why| vec![format!("{}: compare by hand", why.explanation())]).unwrap_or_default();
    };
    let r = &s.reviewed_as_of;
    let mut out = vec![format!("reviewed as of {} ({}, \"{}\")", r.commit, day(r.time), r.subject)];
    if s.changed_by.is_empty() {
        out.push("no commit changed it since: the change is not committed yet".to_string());
    }
    for c in &s.changed_by {
        out.push(format!("changed by {} ({}) {}", c.commit, day(c.time), c.subject));
    }
    out.extend(s.diff.lines().map(|l| format!("  {l}")));
    if s.diff_truncated {
        out.push(format!("  … (cut; the whole change: git diff {} -- <file>)", r.commit));
    }
    out
}

/// The human report: findings in doc and line order, aligned, each with the step that
/// resolves it; then a summary and the next step. `root` is named when there was nothing
/// to check.
pub fn human(report: &CheckReport, docs: usize, root: &std::path::Path, colour: bool, explained: bool) -> String {
    let mut findings: Vec<Finding> = Vec::new();
    for a in report.anchors.iter().filter(|a| a.state != State::Fresh) {
        let mut notes: Vec<String> = a
            .detail
            .candidates
            .iter()
            .map(|c| {
                let at = if c.symbol.is_empty() { format!("candidate: {}", c.path) } else { format!("candidate: {}#{} (line {})", c.path, c.symbol, c.line) };
                match (c.similarity, c.why.is_empty()) {
                    (Some(p), false) => format!("{at} — {p}% alike: {}", c.why),
                    (Some(p), true) => format!("{at} — {p}% alike"),
                    (None, false) => format!("{at} — {}", c.why),
                    (None, true) => at,
                }
            })
            .collect();
        if explained && matches!(a.state, State::Stale | State::Moved | State::Renamed | State::MovedRenamed) {
            notes.extend(since_notes(a.detail.since.as_ref(), a.detail.since_missing));
        }
        // Several unrecorded anchors on one line would read alike: name each one's target.
        let message = if a.state == State::Unrecorded && a.detail.reason == "no_baseline" {
            format!("{} has no baseline yet", target_label(&a.target))
        } else {
            a.detail.message.clone()
        };
        findings.push(Finding { doc: a.doc.clone(), line: a.line, label: a.state.as_str(), message, notes, action: action_for(a.state, &a.doc, a.line) });
    }
    for b in &report.broken_links {
        let action = match &b.suggestion {
            Some(s) => format!("link `{s}` instead (the editor's quick fix writes it), or fix the path, or remove the link"),
            None => "fix the path, or remove the link".to_string(),
        };
        findings.push(Finding { doc: b.doc.clone(), line: b.line, label: "broken-link", message: b.message.clone(), notes: Vec::new(), action });
    }
    for m in &report.mentions {
        findings.push(Finding {
            doc: m.doc.clone(),
            line: m.line,
            label: "mention",
            message: format!("`{}` could be an anchor", m.text),
            notes: Vec::new(),
            action: format!("link it: [{}]({}), then knit anchors record {}", m.text.trim_matches('`'), m.suggestion, m.doc),
        });
    }
    findings.sort_by(|a, b| a.doc.cmp(&b.doc).then(a.line.cmp(&b.line)));
    let location = |f: &Finding| format!("{}:{}", f.doc, f.line);
    let width = findings.iter().map(|f| location(f).chars().count()).chain(report.skipped_docs.iter().map(|(d, _)| d.chars().count())).max().unwrap_or(0);
    let label_width = findings.iter().map(|f| f.label.len()).max().unwrap_or(0).max("skipped".len());
    let mut out = String::new();
    for f in &findings {
        let pad = " ".repeat(label_width - f.label.len());
        out.push_str(&format!("{:<width$}  {}{pad}  {}\n", location(f), paint(f.label, colour), f.message));
        let indent = " ".repeat(width + 2 + label_width + 2);
        for note in &f.notes {
            out.push_str(&format!("{indent}{note}\n"));
        }
        if !f.action.is_empty() {
            out.push_str(&format!("{indent}→ {}\n", f.action));
        }
    }
    for (doc, why) in &report.skipped_docs {
        let pad = " ".repeat(label_width - "skipped".len());
        out.push_str(&format!("{doc:<width$}  {}{pad}  not checked: {why}\n", paint("skipped", colour)));
    }

    if report.anchors.is_empty() && report.broken_links.is_empty() && report.mentions.is_empty() {
        out.push_str(&format!(
            "no anchors in {} under {}: link a doc to code (`[parse](src/parse.ts#parse)`), then run `knit anchors record`\n",
            plural(docs, "Markdown file", "Markdown files"),
            root.display()
        ));
        return out;
    }
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    for a in &report.anchors {
        *counts.entry(a.state.as_str()).or_default() += 1;
    }
    let summary: Vec<String> = counts.iter().map(|(k, v)| format!("{v} {k}")).collect();
    let fs = &report.fallback_share;
    out.push_str(&format!(
        "{} in {}: {}{}{}\n",
        plural(report.anchors.len(), "anchor", "anchors"),
        plural(docs, "doc", "docs"),
        if summary.is_empty() { "none".to_string() } else { summary.join(", ") },
        if report.broken_links.is_empty() { String::new() } else { format!(", {}", plural(report.broken_links.len(), "broken link", "broken links")) },
        if fs.fallback == 0 { String::new() } else { format!(" ({} to line ranges rather than declarations)", fs.fallback) },
    ));
    if let Some(limit) = report.budget.limit {
        out.push_str(&format!("INCOMPLETE: the {limit} budget ran out; {} not checked (raise it in knit.toml)\n", plural(report.unchecked_anchor_ids.len(), "anchor", "anchors")));
    }
    let to_review = findings.iter().filter(|f| matches!(f.label, "stale" | "moved" | "renamed" | "moved-renamed")).count();
    let next = if report.all_fresh() && findings.iter().all(|f| f.label == "mention") {
        "every anchor is fresh".to_string()
    } else if to_review > 0 {
        let first = findings.iter().find(|f| matches!(f.label, "stale" | "moved" | "renamed" | "moved-renamed")).map(location).unwrap_or_default();
        format!("next: review the {} above and confirm each, e.g. knit anchors confirm {first}", plural(to_review, "finding", "findings"))
    } else {
        "next: resolve the findings above (each says how), then run knit check again".to_string()
    };
    out.push_str(&next);
    out.push('\n');
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
                "locations": [{"physicalLocation": {"artifactLocation": {"uri": a.doc}, "region": {"startLine": a.line, "startColumn": a.column}}}],
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

#[cfg(test)]
mod tests {
    use super::*;


    #[test]
    fn colour_follows_the_terminal_and_no_color() {
        assert!(wants_colour(true, None));
        assert!(wants_colour(true, Some(std::ffi::OsStr::new(""))));
        assert!(!wants_colour(true, Some(std::ffi::OsStr::new("1"))));
        assert!(!wants_colour(false, None));
        assert_eq!(paint("stale", false), "stale");
        assert_eq!(paint("stale", true), "\x1b[33mstale\x1b[0m");
        assert_eq!(paint("lost", true), "\x1b[31mlost\x1b[0m");
    }
}
