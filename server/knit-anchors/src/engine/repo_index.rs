//! The repository-wide index of declarations (by simple name, by qualified name, by
//! body), built once per session and only when some anchor is not where its link points;
//! files nearest the hinted ones are read first so a tight budget is spent where moves
//! usually land. Also the uniqueness facts a declaration baseline records: is the body
//! unique in its file, in its container, in the workspace; is the name unique.

use super::session::{Seen, Session};
use super::strip_bom;
use crate::baseline::WorkspaceFacts;
use knit_syntax::fragment::strip_labels;
use knit_syntax::{Declaration, FileSyntax, Fingerprint, Fragment, Lang};
use rayon::prelude::*;
use std::collections::HashMap;
use std::sync::Arc;

/// Declarations of every supported file of the workspace, by name and by body.
pub(super) struct RepoIndex {
    pub(super) files: Vec<(String, Arc<FileSyntax>)>,
    pub(super) by_simple_name: HashMap<String, Vec<usize>>,
    /// (file, declaration) by simple name without labels or backticks (symbol links).
    pub(super) decls_by_simple_name: HashMap<String, Vec<(usize, usize)>>,
    /// (file, declaration) by exact qualified name: the uniqueness facts of baselines.
    pub(super) by_qualified: HashMap<String, Vec<(usize, usize)>>,
    pub(super) by_body: HashMap<Fingerprint, Vec<(usize, usize)>>,
    pub(super) complete: bool,
}

impl Session<'_> {
    /// Builds the repository-wide index once, reading files nearest the hinted ones
    /// first so a tight budget is spent where moves usually land.
    pub(super) fn repo(&mut self, near: &[&str]) -> &RepoIndex {
        if self.repo.is_none() {
            let all = self.tree.files();
            let mut paths: Vec<&String> = all.iter().filter(|p| Lang::from_path(p).is_some()).collect();
            paths.sort_by_key(|p| {
                let best = near.iter().map(|n| shared_prefix_dirs(p, n)).max().unwrap_or(0);
                (std::cmp::Reverse(best), (*p).clone())
            });
            let cap = self.budget.cfg.repo_max_files as usize;
            let mut complete = paths.len() <= cap;
            paths.truncate(cap);
            let budget = &self.budget;
            let tree = self.tree;
            let cache = self.cache;
            let already: HashMap<String, Seen> = self.seen.clone();
            let results: Vec<Option<(String, Arc<FileSyntax>)>> = paths
                .par_iter()
                .map(|p| {
                    let lang = Lang::from_path(p)?;
                    let text = match already.get(*p) {
                        Some(Seen::Text(t)) => t.clone(),
                        Some(_) => return None,
                        None => {
                            if !budget.admit() {
                                return None;
                            }
                            match tree.read(p, budget.cfg.max_file_bytes) {
                                Ok(t) => {
                                    budget.spend(t.len() as u64);
                                    t
                                }
                                Err(_) => return None,
                            }
                        }
                    };
                    Some(((*p).clone(), budget.parse(cache, lang, strip_bom(&text))))
                })
                .collect();
            if budget.limit().is_some() {
                complete = false;
            }
            let files: Vec<(String, Arc<FileSyntax>)> = results.into_iter().flatten().collect();
            let mut by_simple_name: HashMap<String, Vec<usize>> = HashMap::new();
            let mut decls_by_simple_name: HashMap<String, Vec<(usize, usize)>> = HashMap::new();
            let mut by_body: HashMap<Fingerprint, Vec<(usize, usize)>> = HashMap::new();
            let mut by_qualified: HashMap<String, Vec<(usize, usize)>> = HashMap::new();
            for (fi, (_, syn)) in files.iter().enumerate() {
                for (di, d) in syn.declarations.iter().enumerate() {
                    by_qualified.entry(d.qualified_name.clone()).or_default().push((fi, di));
                    let simple = strip_labels(d.simple_name());
                    // Swift's backticked names (`` `case` ``) are linked without the backticks.
                    decls_by_simple_name.entry(simple.replace('`', "")).or_default().push((fi, di));
                    let e = by_simple_name.entry(simple).or_default();
                    if e.last() != Some(&fi) {
                        e.push(fi);
                    }
                    if let Some(b) = d.matchable_body() {
                        by_body.entry(b).or_default().push((fi, di));
                    }
                }
            }
            self.repo = Some(RepoIndex { files, by_simple_name, decls_by_simple_name, by_qualified, by_body, complete });
        }
        self.repo.as_ref().expect("built above")
    }

    /// Uniqueness of a declaration across the workspace, for its baseline. None when
    /// the workspace could not be indexed completely (the budget ran out).
    pub(super) fn workspace_facts(&mut self, path: &str, fragment: &Fragment, d: &Declaration) -> Option<WorkspaceFacts> {
        let repo = self.repo(&[path]);
        if !repo.complete {
            return None;
        }
        let body_unique = match d.matchable_body() {
            None => false,
            Some(b) => repo.by_body.get(&b).is_none_or(|v| {
                v.iter().all(|&(fi, di)| repo.files[fi].0 == path || repo.files[fi].1.declarations[di].identity != d.identity)
            }),
        };
        // Another file declaring the same qualified name with the same identity kind.
        let _ = fragment;
        let name_unique = repo.by_qualified.get(&d.qualified_name).is_none_or(|v| {
            v.iter().all(|&(fi, di)| repo.files[fi].0 == path || repo.files[fi].1.declarations[di].identity != d.identity)
        });
        Some(WorkspaceFacts { body_unique, name_unique })
    }
}

fn shared_prefix_dirs(a: &str, b: &str) -> usize {
    a.split('/').zip(b.split('/')).take_while(|(x, y)| x == y).count()
}

/// No other declaration of the same container has the same matchable body.
pub fn body_unique_in_container(decls: &[Declaration], i: usize) -> bool {
    let Some(b) = decls[i].matchable_body() else { return false };
    decls.iter().enumerate().all(|(j, d)| j == i || d.matchable_body() != Some(b) || d.container != decls[i].container)
}

/// No other declaration of the file has the same matchable body.
pub fn body_unique(decls: &[Declaration], i: usize) -> bool {
    match decls[i].matchable_body() {
        None => false,
        Some(b) => decls.iter().enumerate().all(|(j, d)| j == i || d.matchable_body() != Some(b)),
    }
}
