//! Target `check`: the whole anchor engine on garbage — a fuzzed doc and a fuzzed source
//! file in an in-memory workspace (`MemTree`), checked by `knit_anchors::check` (scan,
//! classification, prefetch, the five-stage ladder, broken links, mentions), then
//! recorded with `edit::record` and checked again.
//!
//! Input: byte 0 picks the language (low three bits) and the layout (bit 3: a copy of the
//! source under `lib/`, so stages 2 and 4 have a candidate elsewhere; bit 4: a copy of the
//! doc as `docs/b.md`, for doc anchors); the rest is `doc NUL source`. The doc is
//! `docs/a.md`, the source `src/a.<ext>`.
//!
//! Properties: no panic; the report serialises; record's edits slice the doc and applying
//! them is a fixpoint (recording the recorded doc changes nothing — else every `record`
//! would add another title); every anchor recorded just now is `fresh` (or `unchecked`)
//! when checked right after, unless it points into the recorded doc itself.

use crate::common::{ext_of, lang_of, split_nul};
use knit_anchors::{check, edit, engine::scan_doc, CheckConfig, CheckOptions, DeclCache, MemTree, Session, State};
use std::collections::HashSet;

const DOC: &str = "docs/a.md";

pub fn run(data: &[u8]) {
    let Some((&selector, rest)) = data.split_first() else { return };
    let lang = lang_of(selector);
    let (doc, code) = split_nul(rest);
    let mut tree = MemTree::new();
    tree.insert(DOC, doc);
    tree.insert(&format!("src/a.{}", ext_of(lang)), code);
    if selector & 8 != 0 {
        tree.insert(&format!("lib/b.{}", ext_of(lang)), code);
    }
    if selector & 16 != 0 {
        tree.insert("docs/b.md", doc);
    }
    let cache = DeclCache::default();
    let cfg = CheckConfig::default();
    let docs = vec![DOC.to_string()];
    let report = check(&tree, &cache, &cfg, &docs, &CheckOptions::default());
    serde_json::to_string(&report).expect("a check report serialises");

    let Ok(text) = std::str::from_utf8(doc) else { return };
    let mut session = Session::new(&tree, &cache, cfg.clone());
    let (edits, _) = edit::record(&mut session, DOC, text, true);
    for e in &edits {
        assert!(text.get(e.range.clone()).is_some(), "record edit {e:?} does not slice the doc");
    }
    let unrecorded: HashSet<String> = scan_doc(DOC, text).anchors.into_iter().filter(|a| a.baseline_raw.is_none()).map(|a| a.id).collect();
    let recorded = edit::apply_edits(text, &edits);
    tree.insert(DOC, recorded.as_bytes());
    let mut session = Session::new(&tree, &cache, cfg.clone());
    let (again, _) = edit::record(&mut session, DOC, &recorded, true);
    assert!(again.is_empty(), "recording the recorded doc edits it again: {again:?}\nrecorded doc: {recorded:?}");

    let just_recorded: HashSet<String> =
        scan_doc(DOC, &recorded).anchors.into_iter().filter(|a| a.baseline_raw.is_some() && unrecorded.contains(&a.id)).map(|a| a.id).collect();
    let report = check(&tree, &cache, &cfg, &docs, &CheckOptions::default());
    for a in report.anchors.iter().filter(|a| just_recorded.contains(&a.id)) {
        if a.target.path == DOC {
            continue;
        }
        assert!(
            matches!(a.state, State::Fresh | State::Unchecked),
            "anchor {} is {} right after being recorded: {:?}\nrecorded doc: {recorded:?}",
            a.id,
            a.state.as_str(),
            a.detail
        );
    }
}
