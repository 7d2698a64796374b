//! `workspace/symbol`: the declarations the workspace's docs anchor, found by name from
//! anywhere (`:lua vim.lsp.buf.workspace_symbol("total")`, VS Code's Ctrl+T). Each is
//! where it is now (following moves and renames), with the doc that anchors it first as
//! its container, so the picker says which declarations have docs and where.

use super::util::{declaration_symbol_kind, now_location};
use crate::snapshot::Snapshot;
use std::collections::HashSet;
use knit_anchors::Now;
use tower_lsp_server::ls_types::SymbolInformation;

/// Results returned at most (a picker shows a screenful; the query narrows it).
const MAX_RESULTS: usize = 500;

pub fn workspace_symbols(snap: &Snapshot, query: &str) -> Vec<SymbolInformation> {
    let query = query.to_lowercase();
    let mut seen: HashSet<(usize, &str, &str)> = HashSet::new();
    // (folder, where the declaration is now, its name, its kind, the first doc anchoring it)
    let mut found: Vec<(usize, &Now, &str, &str, &str)> = Vec::new();
    for (fi, folder) in snap.folders.iter().enumerate() {
        let mut docs: Vec<&String> = folder.reports.keys().collect();
        docs.sort();
        for doc in docs {
            for a in &folder.reports[doc].analysis.anchors {
                let Some(now) = &a.verdict.now else { continue };
                let (Some(symbol), Some(kind)) = (now.symbol.as_deref(), now.kind.as_deref()) else { continue };
                if kind == "doc" || !matches_query(symbol, &query) {
                    continue;
                }
                if seen.insert((fi, now.path.as_str(), symbol)) {
                    found.push((fi, now, symbol, kind, doc.as_str()));
                }
            }
        }
    }
    // Closer matches first: a simple name (`total` of `Cart.total`) that starts with the
    // query, then shorter names.
    found.sort_by_key(|&(_, now, symbol, _, _)| {
        let simple = knit_syntax::decl::last_segment(symbol).to_lowercase();
        (!simple.starts_with(&query), symbol.len(), symbol, now.path.as_str())
    });
    found
        .into_iter()
        .take(MAX_RESULTS)
        .filter_map(|(fi, now, symbol, kind, doc)| {
            let location = now_location(snap, &snap.folders[fi], fi, now)?;
            #[allow(deprecated)] // `deprecated` is a required field of the type
            Some(SymbolInformation {
                name: symbol.to_string(),
                kind: declaration_symbol_kind(kind),
                tags: None,
                deprecated: None,
                location,
                container_name: Some(format!("{} · described in {doc}", now.path)),
            })
        })
        .collect()
}

/// Every character of the query appears in the name in order (case-insensitive), as
/// editors' symbol pickers match.
fn matches_query(name: &str, query: &str) -> bool {
    let mut q = query.chars().peekable();
    for c in name.chars().flat_map(char::to_lowercase) {
        if q.peek() == Some(&c) {
            q.next();
        }
    }
    q.peek().is_none()
}

#[cfg(test)]
mod tests {
    use super::matches_query;

    #[test]
    fn queries_match_in_order_ignoring_case() {
        assert!(matches_query("Cart.total", "total"));
        assert!(matches_query("Cart.total", "ctot"));
        assert!(matches_query("formatPrice", "fp"), "the caller lower-cases the query");
        assert!(matches_query("anything", ""));
        assert!(!matches_query("subtotal", "tots"));
    }
}
