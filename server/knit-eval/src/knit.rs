//! knit as a ranker, through its public API only: a `ContextEngine` on the workspace (its
//! index and state in the run's temporary folders; the run opens a fresh one per commit),
//! `refresh()` once the workspace is at the parent, then `pack()` for each task exactly as
//! an editor would call it.
//!
//! The pack is read as ONE list in reading order — pinned, primary, supporting, related,
//! more — cut at [`LIMIT`]; the open file never counts. Each item's passage
//! (`startLine`–`endLine`) is kept for the passage-hit metric.

use std::path::Path;

use anyhow::Result;
use knit_context::{ContextEngine, EngineOptions, Focus, NoAnchorFacts, OpenBuffer, PackParams, PackResult, Position, QueryParam, TaskInput};
use serde::{Deserialize, Serialize};

use crate::metrics::Ranked;
use crate::rankers::LIMIT;

pub struct KnitRanker {
    engine: ContextEngine,
}

/// What knit answered besides the ranked list: the task terms it chose, a degraded
/// reason, and the tier of each listed item.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct KnitDetail {
    pub terms: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub degraded: Option<String>,
    pub tiers: Vec<String>,
    /// The evidence lists knit fused (signal name → paths, best first), so that fusion
    /// weights can be fitted offline on the development half (`bench/history/fit.py`).
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub evidence: std::collections::BTreeMap<String, Vec<String>>,
    /// The co-change list's reasons (`changedWith: F in 14 of 20 commits`), parallel to
    /// `evidence["cochange"]`: the counts let an offline fit weigh strong and weak
    /// co-change apart.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub cochange_reasons: Vec<String>,
    /// Paths knit's lexical signal saw as hits with a foothold at ≥ 30 % of the top
    /// score (the ones allowed to be primary).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub primary_eligible: Vec<String>,
}

impl KnitRanker {
    pub fn open(root: &Path, cache_dir: &Path, state_dir: &Path) -> Result<KnitRanker> {
        let options = EngineOptions {
            cache_dir: Some(cache_dir.to_path_buf()),
            state_dir: Some(state_dir.to_path_buf()),
            // the harness refreshes after each move; no timed rescans in between
            rescan_interval: None,
            ..EngineOptions::default()
        };
        Ok(KnitRanker { engine: ContextEngine::open(root, options)? })
    }

    /// Re-reads the workspace (incremental: changed files only). Returns files updated +
    /// removed.
    pub fn refresh(&mut self) -> Result<usize> {
        let report = self.engine.refresh()?;
        Ok(report.updated + report.removed)
    }

    /// Open mode: `path` is the open, focused buffer with `text`, the cursor on the 1-based
    /// `cursor_line`; no query.
    pub fn rank_open(&mut self, path: &str, text: &str, cursor_line: u32) -> Result<(Ranked, KnitDetail)> {
        let params = PackParams {
            query: None,
            focus: Some(Focus { uri: path.to_string(), position: Some(Position { line: cursor_line.saturating_sub(1), character: 0 }) }),
            kinds: None,
            limit: Some(LIMIT),
        };
        let input = TaskInput {
            buffers: vec![OpenBuffer { path: path.to_string(), text: text.to_string(), focused: true, last_focus_or_edit_order: 0, cursor_line: Some(cursor_line), recent_edit_lines: Vec::new() }],
        };
        let result = self.engine.pack(&params, &input, &NoAnchorFacts)?;
        let (ranked, mut detail) = read_pack(&result, Some(path));
        detail.evidence = self.evidence();
        detail.cochange_reasons = self.cochange_reasons();
        Ok((ranked, detail))
    }

    /// Query mode: the cleaned commit message is the query; no buffer is open.
    pub fn rank_query(&mut self, query: &str) -> Result<(Ranked, KnitDetail)> {
        let params = PackParams { query: Some(QueryParam::Text(query.to_string())), focus: None, kinds: None, limit: Some(LIMIT) };
        let result = self.engine.pack(&params, &TaskInput::default(), &NoAnchorFacts)?;
        let (ranked, mut detail) = read_pack(&result, None);
        detail.evidence = self.evidence();
        detail.cochange_reasons = self.cochange_reasons();
        Ok((ranked, detail))
    }

    fn cochange_reasons(&self) -> Vec<String> {
        let Some(e) = self.engine.last_evidence() else { return Vec::new() };
        e.list(knit_context::fusion::SignalKind::CoChange).iter().map(|h| h.reason.clone()).collect()
    }

    fn evidence(&self) -> std::collections::BTreeMap<String, Vec<String>> {
        let Some(e) = self.engine.last_evidence() else { return Default::default() };
        e.lists.iter().map(|(k, list)| (k.as_str().to_string(), list.iter().map(|h| h.path.clone()).collect())).collect()
    }
}

/// The pack as one list (see the module header).
pub fn read_pack(result: &PackResult, open: Option<&str>) -> (Ranked, KnitDetail) {
    let mut ranked = Ranked { paths: Vec::new(), passages: Some(Vec::new()) };
    let mut detail = KnitDetail { terms: result.task.terms.clone(), degraded: result.degraded.as_ref().map(|d| d.reason.clone()), ..KnitDetail::default() };
    let sections = [("pinned", &result.pinned), ("primary", &result.primary), ("supporting", &result.supporting), ("related", &result.related), ("more", &result.more)];
    for (tier, items) in sections {
        for item in items {
            if Some(item.path.as_str()) == open || ranked.paths.contains(&item.path) || ranked.paths.len() >= LIMIT {
                continue;
            }
            ranked.paths.push(item.path.clone());
            if let Some(p) = ranked.passages.as_mut() {
                p.push(item.passage.as_ref().map(|p| (p.start_line, p.end_line)));
            }
            detail.tiers.push(tier.to_string());
        }
    }
    (ranked, detail)
}
