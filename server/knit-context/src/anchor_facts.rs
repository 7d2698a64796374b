//! [`TreeAnchorFacts`]: anchor freshness of docs straight from the anchor engine, for
//! callers that have a [`SourceTree`] but no running check (the CLI's `knit pack`, the
//! MCP tool). Docs are checked lazily, one at a time, and memoised: a pack touches a
//! handful of docs, a whole-workspace check per pack would be wasted work.

use crate::engine::AnchorFacts;
use crate::wire::AnchorCounts;
use knit_anchors::{analyze_doc, CheckConfig, DeclCache, Scope, Session, SourceTree};
use std::collections::HashMap;
use std::sync::Mutex;

pub struct TreeAnchorFacts<'a> {
    tree: &'a dyn SourceTree,
    cache: &'a DeclCache,
    cfg: CheckConfig,
    memo: Mutex<HashMap<String, Option<AnchorCounts>>>,
}

impl<'a> TreeAnchorFacts<'a> {
    pub fn new(tree: &'a dyn SourceTree, cache: &'a DeclCache, cfg: CheckConfig) -> Self {
        TreeAnchorFacts { tree, cache, cfg, memo: Mutex::new(HashMap::new()) }
    }
}

impl AnchorFacts for TreeAnchorFacts<'_> {
    fn anchor_counts(&self, doc_path: &str) -> Option<AnchorCounts> {
        if let Some(hit) = self.memo.lock().ok().and_then(|m| m.get(doc_path).copied()) {
            return hit;
        }
        let counts = self.tree.read(doc_path, self.cfg.max_file_bytes).ok().map(|src| {
            let mut session = Session::new(self.tree, self.cache, self.cfg.clone());
            let t = analyze_doc(&mut session, doc_path, &src, Scope::ANCHORS).tally();
            AnchorCounts { total: t.total, stale: t.stale, lost: t.lost }
        });
        if let Ok(mut m) = self.memo.lock() {
            m.insert(doc_path.to_string(), counts);
        }
        counts
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use knit_anchors::MemTree;

    #[test]
    fn counts_come_from_the_anchor_engine() {
        let mut tree = MemTree::new();
        tree.insert("src/a.ts", "export function f(): number { return 1 + 2 + 3; }\n");
        tree.insert("docs/a.md", "[f](../src/a.ts#f) [g](../src/a.ts#g) [x](../src/missing.ts#x)\n");
        let cache = DeclCache::default();
        let facts = TreeAnchorFacts::new(&tree, &cache, CheckConfig::default());
        // f is unrecorded (counted, neither stale nor lost); g and x cannot resolve.
        assert_eq!(facts.anchor_counts("docs/a.md"), Some(AnchorCounts { total: 3, stale: 0, lost: 2 }));
        assert_eq!(facts.anchor_counts("docs/none.md"), None);
    }
}
