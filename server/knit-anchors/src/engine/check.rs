//! The whole-workspace check of `knit check` and the MCP `check_anchors` tool: every doc
//! read and scanned in parallel, every hinted code file prefetched in parallel, then the
//! one per-doc analysis ([`analyze_scanned`]) over each doc, folded into a
//! [`CheckReport`].

use super::analysis::{analyze_scanned, AnchorResult, Scope};
use super::budget::CheckConfig;
use super::links::scan_doc;
use super::session::Session;
use super::strip_bom;
use crate::model::*;
use crate::source::{DeclCache, ReadError, SourceTree};
use rayon::prelude::*;
use std::collections::{HashMap, HashSet};
use std::sync::Arc;

/// Options of a whole-workspace check.
#[derive(Default)]
pub struct CheckOptions<'p> {
    /// Only anchors whose target path is in this set (`knit check --changed`).
    pub only_targets: Option<&'p HashSet<String>>,
    /// States of the previous check by anchor id: unchecked anchors keep them.
    pub previous: Option<&'p HashMap<String, String>>,
}

/// Checks every anchor of `docs` (workspace-relative Markdown paths).
pub fn check(tree: &dyn SourceTree, cache: &DeclCache, cfg: &CheckConfig, docs: &[String], opts: &CheckOptions) -> CheckReport {
    let mut session = Session::new(tree, cache, cfg.clone());
    let mut report = CheckReport { complete: true, ..Default::default() };
    let mut per_doc: Vec<(DocAnchors, Arc<str>)> = Vec::new();
    // Docs are read outside the budget (the budget bounds the code side) and scanned in
    // parallel: scanning is pure.
    let scanned: Vec<(&String, Result<(DocAnchors, Arc<str>), ReadError>)> = docs
        .par_iter()
        .map(|doc| (doc, tree.read(doc, cfg.max_file_bytes).map(|src| (scan_doc(doc, strip_bom(&src)), src))))
        .collect();
    for (doc, r) in scanned {
        match r {
            Ok(pair) => per_doc.push(pair),
            Err(ReadError::Missing) => report.skipped_docs.push((doc.clone(), "file not found".into())),
            Err(e) => report.skipped_docs.push((doc.clone(), e.to_string())),
        }
    }
    let mut hinted: Vec<String> = per_doc
        .iter()
        .flat_map(|(d, _)| d.anchors.iter())
        .filter_map(|a| a.target.as_ref().ok().map(|t| t.path().to_string()))
        .collect();
    hinted.sort();
    hinted.dedup();
    session.prefetch(&hinted);
    let scope = Scope { only_targets: opts.only_targets, anchors_only: false };
    for (scanned, src) in per_doc {
        let analysis = analyze_scanned(&mut session, scanned, scope);
        for AnchorResult { anchor: a, verdict: mut v } in analysis.anchors {
            if v.state == State::Unchecked {
                if let Some(prev) = opts.previous.and_then(|p| p.get(&a.id)) {
                    v.previous_state = Some(prev.clone());
                }
                if v.reason == "budget" {
                    report.unchecked_anchor_ids.push(a.id.clone());
                }
            }
            report.anchors.push(AnchorReport {
                line: a.line(),
                column: column_of(&src, a.link.span.start),
                target: target_report(&a, &v),
                state: v.state,
                id: a.id,
                doc: a.doc,
                detail: v,
            });
        }
        report.broken_links.extend(analysis.broken.into_iter().map(|b| BrokenLink {
            id: b.link.id,
            doc: b.link.doc,
            line: b.link.link.line,
            path: b.link.path,
            message: b.message,
            suggestion: b.suggestion,
        }));
        report.mentions.extend(analysis.mentions.into_iter().map(|m| m.report));
        for l in &analysis.symbol_links {
            let c = &mut report.symbol_links;
            match (&l.broken, l.targets.is_empty()) {
                (Some(_), _) => c.broken += 1,
                (None, false) => c.resolved += 1,
                (None, true) => c.external += 1,
            }
        }
        // A symbol link that names nothing is a broken link (it has no baseline to be stale).
        report.broken_links.extend(analysis.symbol_links.into_iter().filter_map(|l| {
            let message = l.broken?;
            Some(BrokenLink { id: format!("{}:{}:symbol{}", analysis.doc, l.link.line, l.link.span.start), doc: analysis.doc.clone(), line: l.link.line, path: l.link.target, message, suggestion: None })
        }));
    }
    report.budget = session.budget.report();
    report.complete = report.budget.limit.is_none() && report.unchecked_anchor_ids.is_empty();
    report.fallback_share = FallbackShare::of(report.anchors.iter());
    report
}

/// 1-based character column of byte `at` on its line of `src`.
fn column_of(src: &str, at: usize) -> u32 {
    let at = at.min(src.len());
    let Some(before) = src.get(..at) else { return 1 };
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    before[line_start..].chars().count() as u32 + 1
}
