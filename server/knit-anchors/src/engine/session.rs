//! One check: a [`Session`] reads each file once through the [`SourceTree`] under the
//! [`Budget`], parses through the shared [`DeclCache`], and dispatches each anchor to the
//! stage that resolves its kind of target (`ladder`, `lines`, `sections`). It also says
//! what baseline an anchor would get if recorded now.

use super::budget::{Budget, CheckConfig};
use super::lines::{lines_fingerprint, lines_now};
use super::repo_index::{body_unique, body_unique_in_container, RepoIndex};
use super::sections::doc_section;
use super::{now_of, strip_bom};
use crate::baseline::Baseline;
use crate::model::*;
use crate::source::{DeclCache, ReadError, SourceTree};
use crate::target::Target;
use knit_syntax::{FileSyntax, Lang, Resolution};
use rayon::prelude::*;
use std::collections::HashMap;
use std::sync::Arc;

/// A file as one session saw it.
#[derive(Clone)]
pub(crate) enum Seen {
    Text(Arc<str>),
    Error(ReadError),
    /// Not read: the budget ran out.
    OverBudget,
}

/// One check.
pub struct Session<'a> {
    pub tree: &'a dyn SourceTree,
    pub cache: &'a DeclCache,
    pub budget: Budget,
    pub(super) seen: HashMap<String, Seen>,
    /// Each file's declarations as this session read them, with the language they were
    /// read as. The shared cache is keyed by content, which costs a hash of the whole
    /// text per look-up: asked once per anchor, that hashed a large file once for each
    /// of its anchors (a warm re-check of zod spent 38 % of its time in blake3).
    parsed: HashMap<String, (Lang, Arc<FileSyntax>)>,
    pub(super) repo: Option<RepoIndex>,
    /// Files parsed by an earlier print scheme's rules, for baselines of that scheme.
    legacy: HashMap<(String, u8), Arc<FileSyntax>>,
    /// What each Markdown page a link's `#fragment` was looked for in names (scanned once
    /// per session, however many links point into it).
    pub(super) fragments: HashMap<String, Arc<super::sections::PageFragments>>,
    /// Front-matter slugs and ids and MyST targets of every Markdown page (read on the
    /// first route no file resolves; see `routes.rs`).
    pub(super) page_facts: Option<Arc<super::routes::PageFacts>>,
    /// Markdown pages by the last two and three segments of their route (built on the
    /// first rooted route no other rule resolves; see `routes.rs`).
    pub(super) route_tails: Option<Arc<HashMap<String, Vec<String>>>>,
    /// Markdown pages by their name without number prefixes (`10-introduction.md` →
    /// `introduction`; built on the first relative route no other rule resolves from a doc
    /// in a numbered tree; see `routes.rs`).
    pub(super) unnumbered_pages: Option<Arc<HashMap<String, Vec<String>>>>,
    /// Each file name of the tree with its one path (None when several files bear it),
    /// built on the first broken link to a missing file (see `links::suggested_dest`).
    pub(super) by_file_name: Option<Arc<HashMap<String, Option<String>>>>,
    /// Characters compared so far looking for near misses of broken sections' ids: past
    /// [`super::links::NEAR_MISS_WORK`] a check stops looking (a doc of thousands of
    /// broken links into a page of thousands of headings stays linear).
    pub(super) near_miss_work: u64,
    /// Whether the tree has Swift files (what DocC links name), once asked (see
    /// `symbol_links.rs`).
    pub(super) swift_present: Option<bool>,
    /// Whether the tree holds a `docusaurus.config.*` (see `links::from_content_root`),
    /// once asked.
    pub(super) docusaurus_present: Option<bool>,
}

impl<'a> Session<'a> {
    pub fn new(tree: &'a dyn SourceTree, cache: &'a DeclCache, cfg: CheckConfig) -> Self {
        Session { tree, cache, budget: Budget::new(cfg), seen: HashMap::new(), parsed: HashMap::new(), repo: None, legacy: HashMap::new(), fragments: HashMap::new(), page_facts: None, route_tails: None, unnumbered_pages: None, by_file_name: None, near_miss_work: 0, swift_present: None, docusaurus_present: None }
    }

    /// Reads and parses many files in parallel (the cheap pass of a check: every hinted
    /// file), under the budget, so the sequential resolution finds them warm.
    pub fn prefetch(&mut self, paths: &[String]) {
        let todo: Vec<&String> = paths.iter().filter(|p| !self.seen.contains_key(*p)).collect();
        let budget = &self.budget;
        let tree = self.tree;
        let cache = self.cache;
        let got: Vec<(String, Seen, Option<(Lang, Arc<FileSyntax>)>)> = todo
            .par_iter()
            .map(|p| {
                if !budget.admit() {
                    return ((*p).clone(), Seen::OverBudget, None);
                }
                match tree.read(p, budget.cfg.max_file_bytes) {
                    Ok(t) => {
                        budget.spend(t.len() as u64);
                        let syntax = Lang::from_path(p).map(|lang| (lang, budget.parse(cache, lang, strip_bom(&t))));
                        ((*p).clone(), Seen::Text(t), syntax)
                    }
                    Err(e) => ((*p).clone(), Seen::Error(e), None),
                }
            })
            .collect();
        for (p, s, syntax) in got {
            if matches!(s, Seen::OverBudget) {
                continue;
            }
            if let Some(syntax) = syntax {
                self.parsed.insert(p.clone(), syntax);
            }
            self.seen.insert(p, s);
        }
    }

    /// Reads a file once per session, under the budget.
    pub(crate) fn read(&mut self, path: &str) -> Seen {
        if let Some(s) = self.seen.get(path) {
            return s.clone();
        }
        let seen = if !self.budget.admit() {
            Seen::OverBudget
        } else {
            match self.tree.read(path, self.budget.cfg.max_file_bytes) {
                Ok(t) => {
                    self.budget.spend(t.len() as u64);
                    Seen::Text(t)
                }
                Err(e) => Seen::Error(e),
            }
        };
        if !matches!(seen, Seen::OverBudget) {
            self.seen.insert(path.to_string(), seen.clone());
        }
        seen
    }

    pub(super) fn parsed(&mut self, path: &str, lang: Lang) -> Result<(Arc<str>, Arc<FileSyntax>), Seen> {
        match self.read(path) {
            Seen::Text(t) => {
                if let Some((l, syntax)) = self.parsed.get(path) {
                    if *l == lang {
                        return Ok((t, syntax.clone()));
                    }
                }
                let syntax = self.budget.parse(self.cache, lang, strip_bom(&t));
                self.parsed.insert(path.to_string(), (lang, syntax.clone()));
                Ok((t, syntax))
            }
            other => Err(other),
        }
    }

    /// The declarations of `path` as `baseline`'s print scheme reads them: the current
    /// parse, or — for a declaration baseline of an earlier scheme, in a language whose
    /// prints changed since — a parse by that scheme's rules (same declarations in the
    /// same order, fingerprints as they were computed then), kept for the session.
    pub(super) fn parsed_for(&mut self, path: &str, lang: Lang, baseline: Option<&Baseline>) -> Result<(Arc<str>, Arc<FileSyntax>), Seen> {
        let (text, syn) = self.parsed(path, lang)?;
        let Some(Baseline::Declaration { scheme, .. }) = baseline else { return Ok((text, syn)) };
        if syn.timed_out || !knit_syntax::print_scheme_differs(lang, *scheme) {
            return Ok((text, syn));
        }
        let key = (path.to_string(), *scheme);
        if let Some(old) = self.legacy.get(&key) {
            return Ok((text, old.clone()));
        }
        let old = Arc::new(knit_syntax::parse_with_print_scheme(lang, strip_bom(&text), *scheme, self.budget.deadline()));
        self.legacy.insert(key, old.clone());
        Ok((text, old))
    }

    /// Resolves one anchor.
    pub fn resolve(&mut self, a: &Anchor) -> Verdict {
        let target = match &a.target {
            Err(crate::target::TargetError::Outside) => {
                return Verdict::new(State::Invalid, "outside_workspace", "the link points outside the workspace; knit never reads it")
            }
            Err(crate::target::TargetError::BadFragment(e)) => {
                return Verdict::new(State::Invalid, "bad_fragment", format!("the symbol fragment does not parse: {e}"))
            }
            Ok(t) => t.clone(),
        };
        if a.baseline_raw.is_some() && a.baseline.is_none() {
            return Verdict::new(
                State::Invalid,
                "bad_baseline",
                "the `knit:` baseline is not one this version of knit understands; record it again",
            );
        }
        match target {
            Target::Symbol { path, fragment, lang } => self.resolve_symbol(a, &path, &fragment, lang),
            Target::Lines { path, start, end } => self.resolve_lines(a, &path, start, end),
            Target::Doc { path, slug } => self.resolve_doc(a, &path, slug.as_deref()),
            Target::File { path } | Target::Page { path, .. } => {
                if self.tree.exists(&path) {
                    Verdict::new(State::Fresh, "exists", "the file exists")
                } else {
                    Verdict::new(State::Invalid, "unknown_file", format!("{path} does not exist"))
                }
            }
        }
    }

    pub(super) fn read_problem(&self, path: &str, e: Seen) -> Verdict {
        match e {
            Seen::OverBudget => Verdict::new(State::Unchecked, "budget", "not checked: the check's budget ran out"),
            Seen::Error(ReadError::Missing) => Verdict::new(State::Invalid, "unknown_file", format!("{path} does not exist")),
            Seen::Error(ReadError::Outside) => {
                Verdict::new(State::Invalid, "outside_workspace", format!("{path} resolves outside the workspace; knit never reads it"))
            }
            Seen::Error(e) => Verdict::new(State::Invalid, "unreadable", format!("{path}: {e}")),
            Seen::Text(_) => Verdict::new(State::Invalid, "unreadable", format!("{path}: unexpected")),
        }
    }

    /// The baseline `a` would get if recorded now, with where it points. None (with the
    /// verdict explaining why) when the target cannot be resolved uniquely.
    pub fn baseline_now(&mut self, a: &Anchor) -> Result<(Baseline, Option<Now>), Verdict> {
        let target = match &a.target {
            Ok(t) => t.clone(),
            Err(_) => return Err(self.resolve(a)),
        };
        match target {
            Target::Symbol { path, fragment, lang } => {
                let Some(lang) = lang else { return Err(self.resolve(a)) };
                let syn = match self.parsed(&path, lang) {
                    Ok((_, s)) => s,
                    Err(e) => return Err(self.read_problem(&path, e)),
                };
                match syn.resolve(&fragment) {
                    Resolution::Unique(i) => {
                        let d = &syn.declarations[i];
                        if d.has_error {
                            return Err(Verdict::new(State::Unchecked, "parse_error", "the declaration has a syntax error"));
                        }
                        let unique = body_unique(&syn.declarations, i);
                        let in_container = body_unique_in_container(&syn.declarations, i);
                        let now = now_of(&path, &syn, i);
                        let d = d.clone();
                        let ws = self.workspace_facts(&path, &fragment, &d);
                        Ok((Baseline::of_declaration(&d, unique, in_container, ws), Some(now)))
                    }
                    _ => {
                        let mut unrecorded = a.clone();
                        unrecorded.baseline = None;
                        unrecorded.baseline_raw = None;
                        Err(self.resolve(&unrecorded))
                    }
                }
            }
            Target::Lines { path, start, end } => {
                let text = match self.read(&path) {
                    Seen::Text(t) => t,
                    other => return Err(self.read_problem(&path, other)),
                };
                let lines: Vec<&str> = strip_bom(&text).split('\n').collect();
                if end as usize > lines.len() || (end as usize == lines.len() && lines.last() == Some(&"")) {
                    return Err(Verdict::new(State::Invalid, "range_missing", format!("lines {start}-{end} are not in {path}")));
                }
                let (fingerprint, count) = lines_fingerprint(&lines[start as usize - 1..end as usize]);
                Ok((Baseline::Lines { fingerprint, count }, Some(lines_now(&path, start, end))))
            }
            Target::Doc { path, slug } => {
                let text = match self.read(&path) {
                    Seen::Text(t) => t,
                    other => return Err(self.read_problem(&path, other)),
                };
                match doc_section(strip_bom(&text), slug.as_deref()) {
                    Some((fingerprint, _)) => Ok((Baseline::Doc { fingerprint }, None)),
                    None => Err(Verdict::new(State::Invalid, "unknown_heading", format!("{path} has no such section"))),
                }
            }
            Target::File { .. } | Target::Page { .. } => Err(Verdict::new(State::Invalid, "not_an_anchor", "plain links have no baseline")),
        }
    }

    /// Declarations of a file (for mention conversion, completion, hovers).
    pub fn declarations(&mut self, path: &str) -> Option<Arc<FileSyntax>> {
        let lang = Lang::from_path(path)?;
        self.parsed(path, lang).ok().map(|(_, s)| s)
    }
}
