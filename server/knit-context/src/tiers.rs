//! Tier assembly (DESIGN 4.3): a deterministic projection of the fused ranking
//! ([`crate::fusion`]) into primary / supporting / related / more. No score leaves this
//! module; every placement carries reasons that a reader can check against the files.
//!
//! - primary (cap 1): the top fused entry, when it is a lexical hit with a foothold — a
//!   task term in the title or summary (file name or path for code) — whose score is at
//!   least 30 % of the top hit's; else none (the reading order then follows the fusion).
//!   Promoting the first such hit from anywhere cost query packs a fifth of their MRR on
//!   real history (ripgrep 0.80 → 0.67, trpc 0.63 → 0.48): history and co-change often
//!   know better what a task touches first;
//! - supporting (cap 3): in fused order, hits that hold the deepest passage for a task term
//!   (seen at least twice in one passage beyond the head) and entries with a relation to
//!   the task (co-change, imports, tests, anchors, shared identifiers, a link from the best
//!   hit);
//! - related (cap 5): the next entries in fused order;
//! - more: the rest, up to the limit.
//!
//! Relations never lift an item into primary.

use std::collections::HashMap;

use crate::classify::Kind;
use crate::fusion::{Fused, SignalKind};
use crate::relations::Edge;
use crate::wire::{Provenance, RelationFact, RelationType};

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
    /// Relation facts that came with the ranking (co-change, shared identifiers).
    pub relations: Vec<RelationFact>,
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

/// Assembles the tiers from the fused ranking (best first). `hits` are the lexical hits in
/// rank order (score > 0); a fused entry that is not among them came in through a
/// relation only.
///
/// - primary: the top fused entry when it is a lexical hit with a foothold and at least
///   30 % of the top hit's score — relations alone never make an item primary;
/// - supporting: in fused order, entries that hold the deepest passage for a task term or
///   have a relation to the task (co-change, imports, tests, anchors, shared identifiers,
///   or a link from the best hit);
/// - related: the next entries in fused order; more: the rest, up to the limit.
///
/// Returns the placements and how many fused entries found no place.
pub fn assemble(fused: &[Fused], hits: &[Hit], rules: &TierRules) -> (Vec<Placement>, usize) {
    let hit_of: HashMap<&str, (usize, &Hit)> = hits.iter().enumerate().map(|(i, h)| (h.path.as_str(), (i, h))).collect();
    let top = hits.first().map(|h| h.score).unwrap_or(0.0);
    let budget = rules.limit;
    let deep = deepest_reasons(hits, rules);
    let mut placements: Vec<Placement> = Vec::new();

    let reasons_of = |f: &Fused, with_deep: bool| -> Vec<String> {
        let mut out = Vec::new();
        let hit = hit_of.get(f.path.as_str());
        if with_deep {
            if let Some(d) = hit.and_then(|(rank, _)| deep.get(rank)) {
                out.extend(d.iter().take(2).cloned());
            }
        }
        // The lexical signal's one-line reason stands for the hit's full field reasons.
        let mut lexical_done = false;
        for reason in &f.reasons {
            match hit {
                Some((_, h)) if !lexical_done && f.rank_in(SignalKind::Lexical).is_some() && is_lexical_reason(reason) => {
                    out.extend(hit_reasons(h));
                    lexical_done = true;
                }
                _ if !out.contains(reason) => out.push(reason.clone()),
                _ => {}
            }
        }
        if !lexical_done {
            if let Some((_, h)) = hit {
                out.extend(hit_reasons(h));
            }
        }
        out
    };

    // primary
    // The top of the fusion when it is a qualifying lexical hit. A relation-only entry is
    // never primary, and a hit is never promoted from further down (the reading order then
    // stays the fused order). Promoting the best hit from within the fusion's top three
    // (query packs, 2026-12-01 to 12-04) lost to this on every sample of `knit bench
    // history` once co-change followed renames and query words were matched in paths.
    let qualifies = |h: &Hit| h.has_foothold() && h.score >= rules.primary_min_share * top;
    let has_primary = rules.primary_cap > 0 && budget > 0 && fused.first().is_some_and(|f| hit_of.get(f.path.as_str()).is_some_and(|(_, h)| qualifies(h)));
    if has_primary {
        let f = &fused[0];
        placements.push(Placement { path: f.path.clone(), tier: Tier::Primary, provenance: Provenance::Retrieval, reasons: reasons_of(f, false), hit_rank: hit_of.get(f.path.as_str()).map(|(r, _)| *r), relations: f.relations.clone() });
    }
    let count = |placements: &Vec<Placement>, tier: Tier| placements.iter().filter(|p| p.tier == tier).count();
    let mut unplaced = 0usize;
    for f in fused.iter().skip(usize::from(has_primary)) {
        if placements.len() >= budget {
            unplaced += 1;
            continue;
        }
        let hit = hit_of.get(f.path.as_str());
        let is_deep = hit.is_some_and(|(rank, _)| deep.contains_key(rank));
        let tier = if (is_deep || f.has_relation()) && count(&placements, Tier::Supporting) < rules.supporting_cap {
            Tier::Supporting
        } else if count(&placements, Tier::Related) < rules.related_cap {
            Tier::Related
        } else {
            Tier::More
        };
        let provenance = if hit.is_some() { Provenance::Retrieval } else { Provenance::Relation };
        placements.push(Placement { path: f.path.clone(), tier, provenance, reasons: reasons_of(f, tier == Tier::Supporting), hit_rank: hit.map(|(r, _)| *r), relations: f.relations.clone() });
    }
    // tiers in order: primary, supporting, related, more (stable within each)
    placements.sort_by_key(|p| match p.tier {
        Tier::Primary => 0,
        Tier::Supporting => 1,
        Tier::Related => 2,
        Tier::More => 3,
    });
    (placements, unplaced)
}

/// The retrieval reasons a lexical hit gives start with these words.
fn is_lexical_reason(reason: &str) -> bool {
    ["titleMatch", "summaryMatch", "filenameMatch", "pathMatch", "bodyMatch", "lexical"].iter().any(|p| reason.starts_with(p))
}

/// `deepestHit` reasons by hit rank: the hit holding the deepest passage for a task term
/// (seen at least `deep_min_tf` times in one passage beyond the head).
fn deepest_reasons(hits: &[Hit], rules: &TierRules) -> HashMap<usize, Vec<String>> {
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
    deep_reasons
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fusion::{fuse, SignalHit, Signals, Weights};

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

    /// Fuses the hits (lexical, in order) with relation-only entries.
    fn fused(hits: &[Hit], relations: &[(SignalKind, &str, &str)]) -> Vec<Fused> {
        let mut s = Signals::default();
        for h in hits {
            s.push(SignalKind::Lexical, SignalHit { path: h.path.clone(), reason: "lexical".into(), relation: None });
        }
        for (k, p, r) in relations {
            s.push(*k, SignalHit { path: p.to_string(), reason: r.to_string(), relation: None });
        }
        fuse(&s, &Weights { k: 10.0, by_kind: [1.0, 0.9, 0.9, 0.9, 0.9, 0.9, 0.9, 0.9, 0.9, 0.9, 0.9, 0.9, 0.9, 0.9, 0.9], depth: 50 })
    }

    #[test]
    fn primary_needs_a_foothold_thirty_percent_of_the_top_and_the_top_of_the_fusion() {
        // The top of the fusion has no foothold: no primary.
        let hits = vec![hit("a.md", 10.0, &[], &["x"]), hit("b.md", 2.0, &["x"], &[])];
        let (placements, _) = assemble(&fused(&hits, &[]), &hits, &TierRules::default());
        assert!(!placements.iter().any(|p| p.tier == Tier::Primary), "{placements:?}");
        // Out of reach (only the top of the fusion may be primary): no primary, and the
        // reading order is the fused order.
        let hits = vec![hit("a.md", 10.0, &[], &["x"]), hit("c.md", 3.5, &["x"], &[])];
        let (placements, _) = assemble(&fused(&hits, &[]), &hits, &TierRules::default());
        assert!(!placements.iter().any(|p| p.tier == Tier::Primary), "{placements:?}");
        assert_eq!(placements.iter().map(|p| p.path.as_str()).collect::<Vec<_>>(), ["a.md", "c.md"]);
        let hits = vec![hit("c.md", 10.0, &["x"], &[]), hit("a.md", 3.5, &[], &["x"])];
        let (placements, _) = assemble(&fused(&hits, &[]), &hits, &TierRules::default());
        assert_eq!(tiers(&placements)[0], ("primary", "c.md"));
        // At the top of the fusion (a relation lifted it) but under 30 % of the top hit: none.
        let hits = vec![hit("a.md", 10.0, &[], &["x"]), hit("b.md", 2.0, &["x"], &[])];
        let rel = [(SignalKind::CoChange, "b.md", "changedWith: a.ts in 3 of 4 commits")];
        let f = fused(&hits, &rel);
        assert_eq!(f[0].path, "b.md");
        let (placements, _) = assemble(&f, &hits, &TierRules::default());
        assert!(!placements.iter().any(|p| p.tier == Tier::Primary), "{placements:?}");
    }

    #[test]
    fn caps_are_caps_and_more_respects_the_limit() {
        let hits: Vec<Hit> = (0..30).map(|i| hit(&format!("d{i:02}.md"), 30.0 - i as f32, &[], &["x"])).collect();
        let rules = TierRules { limit: 12, ..Default::default() };
        let (placements, truncated) = assemble(&fused(&hits, &[]), &hits, &rules);
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
        let hits = [shallow, deep];
        let (placements, _) = assemble(&fused(&hits, &[]), &hits, &TierRules::default());
        assert_eq!(tiers(&placements), vec![("primary", "top.md"), ("supporting", "deep.md")]);
        assert_eq!(placements[1].reasons[0], "deepestHit: \"x\" ×4 in lines 30–41");
    }

    #[test]
    fn relations_bring_entries_into_supporting_but_never_into_primary() {
        let hits = vec![hit("p.md", 5.0, &["x"], &[]), hit("q.md", 4.0, &[], &["x"])];
        let rel = [(SignalKind::NearTop, "linked.md", "references ← p.md:7"), (SignalKind::CoChange, "src/r.ts", "changedWith: a.ts in 3 of 4 commits")];
        let (placements, _) = assemble(&fused(&hits, &rel), &hits, &TierRules::default());
        let got = tiers(&placements);
        assert_eq!(got[0], ("primary", "p.md"));
        assert!(got.contains(&("supporting", "linked.md")) && got.contains(&("supporting", "src/r.ts")), "{got:?}");
        assert!(got.contains(&("related", "q.md")), "a plain hit without relation is related: {got:?}");
        let linked = placements.iter().find(|p| p.path == "linked.md").unwrap();
        assert_eq!(linked.reasons, vec!["references ← p.md:7".to_string()]);
        assert_eq!(linked.provenance, Provenance::Relation);
        // relation-only entries never become primary, even at the top of the fusion
        let (placements, _) = assemble(&fused(&[], &rel), &[], &TierRules::default());
        assert!(!placements.iter().any(|p| p.tier == Tier::Primary), "{placements:?}");
    }
}
