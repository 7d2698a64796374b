//! Tier assembly (DESIGN 4.3): a deterministic projection of the ranking plus relation
//! facts into primary / supporting / related / more. No score leaves this module; every
//! placement carries reasons that a reader can check against the files.
//!
//! - primary (cap 1): the first hit in rank order with a foothold — a task term in the title
//!   or summary (file name or path for code) — whose score is at least 30 % of the top;
//! - supporting (cap 3): hits that hold the deepest passage for a task term (seen at least
//!   twice in one passage beyond the head), then relations of the primary, then relations
//!   of the focused buffer;
//! - related (cap 5): the other hits, then zero-hit neighbours of the primary / focused buffer;
//! - more: the next hits, up to the limit.
//!
//! Relations never lift an item into primary.

use std::collections::{HashMap, HashSet};

use crate::classify::Kind;
use crate::relations::{Edge, RelationGraph};
use crate::wire::{Provenance, RelationType};

#[derive(Debug, Clone, PartialEq)]
pub struct Hit {
    pub path: String,
    pub kind: Kind,
    pub score: f32,
    pub title_terms: Vec<String>,
    pub summary_terms: Vec<String>,
    pub body_terms: Vec<String>,
    /// (term, frequency, start line, end line) of the deepest non-head passage per term.
    pub deepest: Vec<(String, u32, u32, u32)>,
}

impl Hit {
    fn has_foothold(&self) -> bool {
        !self.title_terms.is_empty() || !self.summary_terms.is_empty()
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Tier {
    Primary,
    Supporting,
    Related,
    More,
}

impl Tier {
    pub fn as_str(self) -> &'static str {
        match self {
            Tier::Primary => "primary",
            Tier::Supporting => "supporting",
            Tier::Related => "related",
            Tier::More => "more",
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Placement {
    pub path: String,
    pub tier: Tier,
    pub provenance: Provenance,
    pub reasons: Vec<String>,
    /// Rank among hits, when the item is a hit.
    pub hit_rank: Option<usize>,
}

#[derive(Debug, Clone, Copy)]
pub struct TierRules {
    pub primary_cap: usize,
    pub supporting_cap: usize,
    pub related_cap: usize,
    pub primary_min_share: f32,
    pub deep_min_tf: u32,
    /// Items in the tiers plus `more`.
    pub limit: usize,
}

impl Default for TierRules {
    fn default() -> Self {
        TierRules { primary_cap: 1, supporting_cap: 3, related_cap: 5, primary_min_share: 0.30, deep_min_tf: 2, limit: 20 }
    }
}

fn quoted(terms: &[String], max: usize) -> String {
    terms.iter().take(max).map(|t| format!("\"{t}\"")).collect::<Vec<_>>().join(", ")
}

/// The retrieval facts of a hit, strongest field first.
pub fn hit_reasons(hit: &Hit) -> Vec<String> {
    let mut reasons = Vec::new();
    let (title_label, summary_label) = match hit.kind {
        Kind::Doc => ("titleMatch", "summaryMatch"),
        Kind::Code | Kind::Media => ("filenameMatch", "pathMatch"),
    };
    if !hit.title_terms.is_empty() {
        reasons.push(format!("{title_label}: {}", quoted(&hit.title_terms, 4)));
    }
    if !hit.summary_terms.is_empty() {
        reasons.push(format!("{summary_label}: {}", quoted(&hit.summary_terms, 4)));
    }
    let body_only: Vec<String> = hit.body_terms.iter().filter(|t| !hit.title_terms.contains(t) && !hit.summary_terms.contains(t)).cloned().collect();
    if !body_only.is_empty() {
        reasons.push(format!("bodyMatch: {}", quoted(&body_only, 5)));
    }
    reasons
}

/// How an edge reads from the point of view of `item`.
pub fn relation_reason(edge: &Edge, item: &str) -> String {
    let incoming = edge.to == item && edge.from != item;
    if edge.kind == RelationType::Documents && incoming {
        if let (Some(symbol), Some(line)) = (&edge.symbol, edge.line) {
            return format!("anchors: {}:{} → {}", edge.from, line, symbol);
        }
    }
    let kind = edge.kind.as_str();
    if incoming {
        match edge.line {
            Some(line) => format!("{kind} ← {}:{line}", edge.from),
            None => format!("{kind} ← {}", edge.from),
        }
    } else {
        match edge.line {
            Some(line) => format!("{kind} → {} (line {line})", edge.to),
            None => format!("{kind} → {}", edge.to),
        }
    }
}

fn relation_priority(kind: RelationType) -> u8 {
    match kind {
        RelationType::References => 0,
        RelationType::Documents => 1,
        RelationType::Imports => 2,
        RelationType::Tests => 3,
    }
}

/// Neighbours of `anchor` in a stable order: hits by rank first, then the rest by
/// relation type and path.
fn ordered_neighbours<'g>(graph: &'g RelationGraph, anchor: &str, hit_rank: &HashMap<&str, usize>) -> Vec<(&'g Edge, String)> {
    let mut list: Vec<(&Edge, String)> = graph.neighbours(anchor).into_iter().map(|(e, other)| (e, other.to_string())).filter(|(_, other)| other != anchor).collect();
    list.sort_by(|a, b| {
        let ra = hit_rank.get(a.1.as_str()).copied().unwrap_or(usize::MAX);
        let rb = hit_rank.get(b.1.as_str()).copied().unwrap_or(usize::MAX);
        ra.cmp(&rb).then(relation_priority(a.0.kind).cmp(&relation_priority(b.0.kind))).then(a.1.cmp(&b.1))
    });
    list
}

/// Assembles the tiers. `hits` are in rank order (score > 0); `allowed` says whether a
/// zero-hit neighbour may be listed (exists, not excluded, not open, not pinned, kind ok).
pub fn assemble(hits: &[Hit], graph: &RelationGraph, focused: Option<&str>, allowed: &dyn Fn(&str) -> bool, rules: &TierRules) -> (Vec<Placement>, usize) {
    let mut placements: Vec<Placement> = Vec::new();
    let mut placed: HashSet<String> = HashSet::new();
    let hit_rank: HashMap<&str, usize> = hits.iter().enumerate().map(|(i, h)| (h.path.as_str(), i)).collect();
    let top = hits.first().map(|h| h.score).unwrap_or(0.0);
    let budget = rules.limit;

    // primary
    let mut primary: Option<&Hit> = None;
    if rules.primary_cap > 0 && budget > 0 {
        primary = hits.iter().find(|h| h.has_foothold() && h.score >= rules.primary_min_share * top);
        if let Some(p) = primary {
            placements.push(Placement { path: p.path.clone(), tier: Tier::Primary, provenance: Provenance::Retrieval, reasons: hit_reasons(p), hit_rank: hit_rank.get(p.path.as_str()).copied() });
            placed.insert(p.path.clone());
        }
    }
    let room = |placements: &Vec<Placement>, tier: Tier, cap: usize| placements.iter().filter(|p| p.tier == tier).count() < cap && placements.len() < budget;

    // supporting (a): the deepest passage for a task term
    let mut deepest_holder: HashMap<&str, (usize, u32, u32, u32)> = HashMap::new();
    for (rank, hit) in hits.iter().enumerate() {
        for (term, tf, start, end) in &hit.deepest {
            if *tf < rules.deep_min_tf {
                continue;
            }
            let better = match deepest_holder.get(term.as_str()) {
                None => true,
                Some(&(_, best_tf, _, _)) => *tf > best_tf,
            };
            if better {
                deepest_holder.insert(term.as_str(), (rank, *tf, *start, *end));
            }
        }
    }
    let mut deep_reasons: HashMap<usize, Vec<String>> = HashMap::new();
    let mut deep_terms: Vec<(&&str, &(usize, u32, u32, u32))> = deepest_holder.iter().collect();
    deep_terms.sort_by(|a, b| b.1 .1.cmp(&a.1 .1).then(a.0.cmp(b.0)));
    for (term, &(rank, tf, start, end)) in deep_terms {
        deep_reasons.entry(rank).or_default().push(format!("deepestHit: \"{term}\" ×{tf} in lines {start}–{end}"));
    }
    for (rank, hit) in hits.iter().enumerate() {
        if !room(&placements, Tier::Supporting, rules.supporting_cap) {
            break;
        }
        if placed.contains(&hit.path) {
            continue;
        }
        if let Some(deep) = deep_reasons.get(&rank) {
            let mut reasons = deep.iter().take(2).cloned().collect::<Vec<_>>();
            reasons.extend(hit_reasons(hit));
            placements.push(Placement { path: hit.path.clone(), tier: Tier::Supporting, provenance: Provenance::Retrieval, reasons, hit_rank: Some(rank) });
            placed.insert(hit.path.clone());
        }
    }

    // supporting (b, c): relations of the primary, then of the focused buffer
    let anchors: Vec<&str> = primary.map(|p| p.path.as_str()).into_iter().chain(focused).collect();
    let mut neighbour_queue: Vec<(String, Vec<String>, Option<usize>)> = Vec::new();
    for anchor in &anchors {
        for (edge, other) in ordered_neighbours(graph, anchor, &hit_rank) {
            let rank = hit_rank.get(other.as_str()).copied();
            if rank.is_none() && !allowed(&other) {
                continue;
            }
            let reason = relation_reason(edge, &other);
            if let Some(existing) = neighbour_queue.iter_mut().find(|(p, _, _)| *p == other) {
                if !existing.1.contains(&reason) {
                    existing.1.push(reason);
                }
            } else {
                neighbour_queue.push((other, vec![reason], rank));
            }
        }
    }
    for (path, reasons, rank) in &neighbour_queue {
        if !room(&placements, Tier::Supporting, rules.supporting_cap) {
            break;
        }
        if placed.contains(path) {
            continue;
        }
        let mut all = reasons.clone();
        let provenance = match rank {
            Some(r) => {
                all.extend(hit_reasons(&hits[*r]));
                Provenance::Retrieval
            }
            None => Provenance::Relation,
        };
        placements.push(Placement { path: path.clone(), tier: Tier::Supporting, provenance, reasons: all, hit_rank: *rank });
        placed.insert(path.clone());
    }

    // related: other hits in rank order, then zero-hit neighbours
    for (rank, hit) in hits.iter().enumerate() {
        if !room(&placements, Tier::Related, rules.related_cap) {
            break;
        }
        if placed.contains(&hit.path) {
            continue;
        }
        let reasons = hit_reasons(hit);
        placements.push(Placement { path: hit.path.clone(), tier: Tier::Related, provenance: Provenance::Retrieval, reasons, hit_rank: Some(rank) });
        placed.insert(hit.path.clone());
    }
    for (path, reasons, rank) in &neighbour_queue {
        if !room(&placements, Tier::Related, rules.related_cap) {
            break;
        }
        if placed.contains(path) || rank.is_some() {
            continue;
        }
        placements.push(Placement { path: path.clone(), tier: Tier::Related, provenance: Provenance::Relation, reasons: reasons.clone(), hit_rank: None });
        placed.insert(path.clone());
    }

    // more: next hits up to the limit
    for (rank, hit) in hits.iter().enumerate() {
        if placements.len() >= budget {
            break;
        }
        if placed.contains(&hit.path) {
            continue;
        }
        placements.push(Placement { path: hit.path.clone(), tier: Tier::More, provenance: Provenance::Retrieval, reasons: hit_reasons(hit), hit_rank: Some(rank) });
        placed.insert(hit.path.clone());
    }

    // items placed on retrieval merit also show their relations to the primary / focus
    for placement in placements.iter_mut() {
        if let Some((_, relation_reasons, _)) = neighbour_queue.iter().find(|(p, _, _)| *p == placement.path) {
            for reason in relation_reasons {
                if !placement.reasons.contains(reason) {
                    placement.reasons.push(reason.clone());
                }
            }
        }
    }

    let unplaced_hits = hits.iter().filter(|h| !placed.contains(&h.path)).count();
    let unplaced_neighbours = neighbour_queue.iter().filter(|(p, _, r)| r.is_none() && !placed.contains(p)).count();
    (placements, unplaced_hits + unplaced_neighbours)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hit(path: &str, score: f32, title: &[&str], body: &[&str]) -> Hit {
        Hit {
            path: path.into(),
            kind: Kind::Doc,
            score,
            title_terms: title.iter().map(|s| s.to_string()).collect(),
            summary_terms: vec![],
            body_terms: body.iter().map(|s| s.to_string()).collect(),
            deepest: vec![],
        }
    }

    fn tiers(placements: &[Placement]) -> Vec<(&str, &str)> {
        placements.iter().map(|p| (p.tier.as_str(), p.path.as_str())).collect()
    }

    #[test]
    fn primary_needs_a_foothold_and_thirty_percent_of_the_top() {
        let hits = vec![hit("a.md", 10.0, &[], &["x"]), hit("b.md", 2.0, &["x"], &[]), hit("c.md", 3.5, &["x"], &[])];
        let (placements, _) = assemble(&hits, &RelationGraph::default(), None, &|_| true, &TierRules::default());
        assert_eq!(tiers(&placements)[0], ("primary", "c.md"));
        assert!(placements[0].reasons[0].starts_with("titleMatch: \"x\""));
        let hits = vec![hit("a.md", 10.0, &[], &["x"]), hit("b.md", 2.0, &["x"], &[])];
        let (placements, _) = assemble(&hits, &RelationGraph::default(), None, &|_| true, &TierRules::default());
        assert!(!placements.iter().any(|p| p.tier == Tier::Primary), "{placements:?}");
    }

    #[test]
    fn caps_are_caps_and_more_respects_the_limit() {
        let hits: Vec<Hit> = (0..30).map(|i| hit(&format!("d{i:02}.md"), 30.0 - i as f32, &[], &["x"])).collect();
        let rules = TierRules { limit: 12, ..Default::default() };
        let (placements, truncated) = assemble(&hits, &RelationGraph::default(), None, &|_| true, &rules);
        assert_eq!(placements.iter().filter(|p| p.tier == Tier::Related).count(), 5);
        assert_eq!(placements.iter().filter(|p| p.tier == Tier::Supporting).count(), 0, "no deep hit, no relation: supporting stays empty");
        assert_eq!(placements.len(), 12);
        assert_eq!(truncated, 18);
    }

    #[test]
    fn deepest_hit_goes_to_supporting_with_its_lines() {
        let mut deep = hit("deep.md", 3.0, &[], &["x"]);
        deep.deepest = vec![("x".into(), 4, 30, 41)];
        let mut shallow = hit("top.md", 9.0, &["x"], &["x"]);
        shallow.deepest = vec![("x".into(), 1, 1, 3)];
        let (placements, _) = assemble(&[shallow, deep], &RelationGraph::default(), None, &|_| true, &TierRules::default());
        assert_eq!(tiers(&placements), vec![("primary", "top.md"), ("supporting", "deep.md")]);
        assert_eq!(placements[1].reasons[0], "deepestHit: \"x\" ×4 in lines 30–41");
    }

    #[test]
    fn relations_bring_neighbours_in_but_never_into_primary() {
        let graph = RelationGraph::from_edges(vec![
            Edge { kind: RelationType::References, from: "p.md".into(), to: "linked.md".into(), line: Some(7), symbol: None },
            Edge { kind: RelationType::Documents, from: "p.md".into(), to: "src/r.ts".into(), line: Some(9), symbol: Some("Resolver.run".into()) },
        ]);
        let hits = vec![hit("p.md", 5.0, &["x"], &[])];
        let (placements, _) = assemble(&hits, &graph, None, &|_| true, &TierRules::default());
        assert_eq!(tiers(&placements), vec![("primary", "p.md"), ("supporting", "linked.md"), ("supporting", "src/r.ts")]);
        assert_eq!(placements[1].reasons, vec!["references ← p.md:7".to_string()]);
        assert_eq!(placements[2].reasons, vec!["anchors: p.md:9 → Resolver.run".to_string()]);
        assert_eq!(placements[1].provenance, Provenance::Relation);
        // a neighbour the caller does not allow (excluded, pinned, open) is not listed
        let (placements, _) = assemble(&hits, &graph, None, &|p| p != "linked.md", &TierRules::default());
        assert!(!placements.iter().any(|p| p.path == "linked.md"));
    }

    #[test]
    fn focused_buffer_relations_fill_supporting_then_related() {
        let graph = RelationGraph::from_edges(vec![
            Edge { kind: RelationType::Tests, from: "src/a.test.ts".into(), to: "src/a.ts".into(), line: None, symbol: None },
            Edge { kind: RelationType::Imports, from: "src/a.ts".into(), to: "src/b.ts".into(), line: Some(2), symbol: None },
        ]);
        let (placements, _) = assemble(&[], &graph, Some("src/a.ts"), &|_| true, &TierRules::default());
        let got = tiers(&placements);
        assert!(got.contains(&("supporting", "src/b.ts")) && got.contains(&("supporting", "src/a.test.ts")), "{got:?}");
        let b = placements.iter().find(|p| p.path == "src/b.ts").map(|p| p.reasons.clone());
        assert_eq!(b, Some(vec!["imports ← src/a.ts:2".to_string()]));
    }
}
