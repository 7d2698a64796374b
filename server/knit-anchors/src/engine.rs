//! The resolution ladder and the check orchestration (DESIGN 1.3–1.4).
//!
//! A [`Session`] is one check: it reads through the [`SourceTree`] under a [`Budget`],
//! parses through the shared [`DeclCache`], and builds the repository-wide index only
//! when some anchor is not found where its link points. Answers that depend on a
//! repository-wide pass that ran out of budget are `unchecked`, never `lost` or a guess.

use crate::baseline::{baseline_in_title, sketch_has, strip_baselines, Baseline, WorkspaceFacts};
use crate::markdown::{self, LineIndex};
use crate::model::*;
use crate::source::{DeclCache, ReadError, SourceTree};
use crate::target::{classify, relative_dest, Target};
use knit_syntax::fragment::{exact_fragment, strip_labels, suggestions};
use knit_syntax::{Declaration, FileSyntax, Fingerprint, Fragment, Lang, Resolution};
use rayon::prelude::*;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Limits of one check (DESIGN 1.4); configurable through `knit.toml`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CheckConfig {
    pub max_files: u64,
    pub max_bytes: u64,
    pub max_millis: u64,
    pub max_file_bytes: u64,
    pub repo_max_files: u64,
}

impl Default for CheckConfig {
    fn default() -> Self {
        CheckConfig {
            max_files: 2000,
            max_bytes: 32 * 1024 * 1024,
            max_millis: 30_000,
            max_file_bytes: 1024 * 1024,
            repo_max_files: 4000,
        }
    }
}

/// What a declaration baseline recorded, as the ladder needs it.
struct Recorded {
    fingerprint: Fingerprint,
    body: Option<Fingerprint>,
    body_unique: bool,
    container_unique: bool,
    identity: knit_syntax::IdentityKind,
    workspace: Option<WorkspaceFacts>,
}

/// Files, bytes and time spent; shared by parallel readers.
pub struct Budget {
    cfg: CheckConfig,
    files: AtomicU64,
    bytes: AtomicU64,
    start: Instant,
    limit: Mutex<Option<&'static str>>,
}

impl Budget {
    pub fn new(cfg: CheckConfig) -> Self {
        Budget { cfg, files: AtomicU64::new(0), bytes: AtomicU64::new(0), start: Instant::now(), limit: Mutex::new(None) }
    }

    /// Asks for one more file read; false (and the limit recorded) when exhausted.
    fn admit(&self) -> bool {
        if self.limit().is_some() {
            return false;
        }
        let hit = if self.files.load(Ordering::Relaxed) >= self.cfg.max_files {
            Some("files")
        } else if self.bytes.load(Ordering::Relaxed) >= self.cfg.max_bytes {
            Some("bytes")
        } else if self.start.elapsed().as_millis() as u64 >= self.cfg.max_millis {
            Some("time")
        } else {
            None
        };
        if let Some(l) = hit {
            if let Ok(mut g) = self.limit.lock() {
                g.get_or_insert(l);
            }
            return false;
        }
        self.files.fetch_add(1, Ordering::Relaxed);
        true
    }

    fn spend(&self, bytes: u64) {
        self.bytes.fetch_add(bytes, Ordering::Relaxed);
    }

    pub fn limit(&self) -> Option<&'static str> {
        self.limit.lock().ok().and_then(|g| *g)
    }

    /// When the time budget runs out (None: unlimited), for parses to stop inside a file.
    pub fn deadline(&self) -> Option<Instant> {
        self.start.checked_add(Duration::from_millis(self.cfg.max_millis))
    }

    /// Parses through `cache` under the deadline; a file cut short by it spends the time
    /// budget (recorded as the limit), so the check reports `complete: false`.
    fn parse(&self, cache: &DeclCache, lang: Lang, text: &str) -> Arc<FileSyntax> {
        let syntax = cache.parse_until(lang, text, self.deadline());
        if syntax.timed_out {
            if let Ok(mut g) = self.limit.lock() {
                g.get_or_insert("time");
            }
        }
        syntax
    }

    pub fn report(&self) -> BudgetReport {
        BudgetReport {
            files_read: self.files.load(Ordering::Relaxed),
            bytes_read: self.bytes.load(Ordering::Relaxed),
            elapsed_ms: self.start.elapsed().as_millis() as u64,
            limit: self.limit(),
        }
    }
}

/// A file as one session saw it.
#[derive(Clone)]
pub(crate) enum Seen {
    Text(Arc<str>),
    Error(ReadError),
    /// Not read: the budget ran out.
    OverBudget,
}

/// Strips a UTF-8 byte-order mark: it is not content.
fn strip_bom(s: &str) -> &str {
    s.strip_prefix('\u{feff}').unwrap_or(s)
}

/// Declarations of every supported file of the workspace, by name and by body.
struct RepoIndex {
    files: Vec<(String, Arc<FileSyntax>)>,
    by_simple_name: HashMap<String, Vec<usize>>,
    /// (file, declaration) by exact qualified name: the uniqueness facts of baselines.
    by_qualified: HashMap<String, Vec<(usize, usize)>>,
    by_body: HashMap<Fingerprint, Vec<(usize, usize)>>,
    complete: bool,
}

/// One check.
pub struct Session<'a> {
    pub tree: &'a dyn SourceTree,
    pub cache: &'a DeclCache,
    pub budget: Budget,
    seen: HashMap<String, Seen>,
    repo: Option<RepoIndex>,
}

impl<'a> Session<'a> {
    pub fn new(tree: &'a dyn SourceTree, cache: &'a DeclCache, cfg: CheckConfig) -> Self {
        Session { tree, cache, budget: Budget::new(cfg), seen: HashMap::new(), repo: None }
    }

    /// Reads and parses many files in parallel (the cheap pass of a check: every hinted
    /// file), under the budget, so the sequential resolution finds them warm.
    pub fn prefetch(&mut self, paths: &[String]) {
        let todo: Vec<&String> = paths.iter().filter(|p| !self.seen.contains_key(*p)).collect();
        let budget = &self.budget;
        let tree = self.tree;
        let cache = self.cache;
        let got: Vec<(String, Seen)> = todo
            .par_iter()
            .map(|p| {
                if !budget.admit() {
                    return ((*p).clone(), Seen::OverBudget);
                }
                let seen = match tree.read(p, budget.cfg.max_file_bytes) {
                    Ok(t) => {
                        budget.spend(t.len() as u64);
                        if let Some(lang) = Lang::from_path(p) {
                            budget.parse(cache, lang, strip_bom(&t));
                        }
                        Seen::Text(t)
                    }
                    Err(e) => Seen::Error(e),
                };
                ((*p).clone(), seen)
            })
            .collect();
        for (p, s) in got {
            if !matches!(s, Seen::OverBudget) {
                self.seen.insert(p, s);
            }
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

    fn parsed(&mut self, path: &str, lang: Lang) -> Result<(Arc<str>, Arc<FileSyntax>), Seen> {
        match self.read(path) {
            Seen::Text(t) => {
                let syntax = self.budget.parse(self.cache, lang, strip_bom(&t));
                Ok((t, syntax))
            }
            other => Err(other),
        }
    }

    /// Builds the repository-wide index once, reading files nearest the hinted ones
    /// first so a tight budget is spent where moves usually land.
    fn repo(&mut self, near: &[&str]) -> &RepoIndex {
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
            let mut by_body: HashMap<Fingerprint, Vec<(usize, usize)>> = HashMap::new();
            let mut by_qualified: HashMap<String, Vec<(usize, usize)>> = HashMap::new();
            for (fi, (_, syn)) in files.iter().enumerate() {
                for (di, d) in syn.declarations.iter().enumerate() {
                    by_qualified.entry(d.qualified_name.clone()).or_default().push((fi, di));
                    let e = by_simple_name.entry(strip_labels(d.simple_name())).or_default();
                    if e.last() != Some(&fi) {
                        e.push(fi);
                    }
                    if let Some(b) = d.matchable_body() {
                        by_body.entry(b).or_default().push((fi, di));
                    }
                }
            }
            self.repo = Some(RepoIndex { files, by_simple_name, by_qualified, by_body, complete });
        }
        self.repo.as_ref().expect("built above")
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
            Target::File { path } => {
                if self.tree.exists(&path) {
                    Verdict::new(State::Fresh, "exists", "the file exists")
                } else {
                    Verdict::new(State::Invalid, "unknown_file", format!("{path} does not exist"))
                }
            }
        }
    }

    fn read_problem(&self, path: &str, e: Seen) -> Verdict {
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

    /// [`resolve_symbol_in`](Self::resolve_symbol_in), with DESIGN 1.3a's guarantee kept
    /// last: an anchor into a file with syntax errors is never `lost` — where the search
    /// found nothing, the error might have hidden it, so it is `unchecked`. A search that
    /// did find the declaration (moved, renamed) stands.
    fn resolve_symbol(&mut self, a: &Anchor, path: &str, fragment: &Fragment, lang: Option<Lang>) -> Verdict {
        let v = self.resolve_symbol_in(a, path, fragment, lang);
        if v.state != State::Lost {
            return v;
        }
        let has_error = lang.is_some_and(|lang| self.parsed(path, lang).is_ok_and(|(_, syn)| syn.has_error));
        if !has_error {
            return v;
        }
        Verdict::new(State::Unchecked, "parse_error", format!("{path} has syntax errors and `{fragment}` was not found in it or elsewhere; not checked until it parses"))
    }

    fn resolve_symbol_in(&mut self, a: &Anchor, path: &str, fragment: &Fragment, lang: Option<Lang>) -> Verdict {
        let Some(lang) = lang else {
            return Verdict::new(
                State::Invalid,
                "unsupported_language",
                format!("knit cannot read declarations of {path}; anchor it by lines (#L12-L40) instead"),
            );
        };
        let baseline = a.baseline.clone();
        if let Some(b) = &baseline {
            if !matches!(b, Baseline::Declaration { .. }) {
                return Verdict::new(State::Invalid, "bad_baseline", "this baseline was recorded for another kind of target");
            }
        }
        let mut text: Arc<str> = Arc::from("");
        let hinted = match self.parsed(path, lang) {
            Ok((t, syn)) => {
                text = t;
                Some(syn)
            }
            Err(Seen::Error(ReadError::Missing)) if baseline.is_some() => None,
            Err(e) => {
                let mut v = self.read_problem(path, e);
                if v.reason == "unknown_file" {
                    v.candidates = self.similar_files(path);
                }
                return v;
            }
        };
        if let Some(syn) = &hinted {
            if syn.timed_out {
                return Verdict::new(
                    State::Unchecked,
                    "budget",
                    format!("not checked: the check's time budget ran out while reading {path}"),
                );
            }
            match fragment.resolve(&syn.declarations) {
                Resolution::Unique(i) => {
                    let d = &syn.declarations[i];
                    let now = now_of(path, &syn.declarations, i);
                    if d.has_error {
                        return Verdict::new(
                            State::Unchecked,
                            "parse_error",
                            format!("`{}` has a syntax error in {path}; not checked until it parses", d.qualified_name),
                        )
                        .with_now(now);
                    }
                    let Some(Baseline::Declaration { fingerprint, sketch, .. }) = baseline else {
                        return Verdict::new(State::Unrecorded, "no_baseline", "no baseline recorded yet").with_now(now);
                    };
                    if fingerprint == d.fingerprint {
                        return Verdict::new(State::Fresh, "identity_matched", "fresh").with_now(now);
                    }
                    let mut v = Verdict::new(
                        State::Stale,
                        "body_changed",
                        format!("`{}` changed since the doc was reviewed", d.qualified_name),
                    )
                    .with_now(now);
                    if let Some(sk) = sketch {
                        v.members = d
                            .members
                            .iter()
                            .filter(|(n, fp)| !sketch_has(sk, n, fp))
                            .map(|(n, _)| format!("{}.{}", d.qualified_name, n))
                            .collect();
                        if !v.members.is_empty() {
                            v.message = format!(
                                "`{}` changed since the doc was reviewed (members: {})",
                                d.qualified_name,
                                v.members.join(", ")
                            );
                        }
                    }
                    return v;
                }
                Resolution::Ambiguous(list) => {
                    let frags: Vec<String> = list.iter().map(|(_, f)| f.clone()).collect();
                    return Verdict::new(
                        State::Invalid,
                        "ambiguous_fragment",
                        format!("`{fragment}` matches several declarations in {path}; use one of: {}", frags.join(", ")),
                    )
                    .with_candidates(
                        list.iter()
                            .map(|(i, f)| Candidate {
                                path: path.to_string(),
                                symbol: f.clone(),
                                line: syn.declarations[*i].name_line,
                            })
                            .collect(),
                    );
                }
                Resolution::NotFound => {
                    if syn.over_budget {
                        return Verdict::new(
                            State::Unchecked,
                            "too_costly",
                            format!(
                                "`{fragment}` not checked: {path} holds more syntax or nesting per byte than knit parses (its work and memory bound for the file's size)"
                            ),
                        );
                    }
                    // A syntax error can hide a declaration only if its name is still in the
                    // file: a name the text no longer holds anywhere is gone however the file
                    // parses, so where it went is searched for as in a clean file (moved,
                    // renamed); finding nothing is still `unchecked` (see `resolve_symbol`).
                    if syn.has_error && mentions_word(&text, &strip_labels(fragment.simple_name())) {
                        return Verdict::new(
                            State::Unchecked,
                            "parse_error",
                            format!("{path} has syntax errors and `{fragment}` was not found; not checked until it parses"),
                        );
                    }
                    if let Some(r) = syn.too_deep.first() {
                        return Verdict::new(
                            State::Unchecked,
                            "too_deep",
                            format!(
                                "`{fragment}` was not found in {path}, which nests declarations deeper than knit reads ({} levels) or holds more or longer-named declarations than it reads for its size, from line {}; not checked",
                                knit_syntax::MAX_DECL_DEPTH,
                                r.start_line
                            ),
                        );
                    }
                    if baseline.is_none() {
                        let c = suggestions(&fragment.name, &syn.declarations, 5)
                            .into_iter()
                            .map(|i| Candidate {
                                path: path.to_string(),
                                symbol: exact_fragment(&syn.declarations, i),
                                line: syn.declarations[i].name_line,
                            })
                            .collect::<Vec<_>>();
                        let hint = if c.is_empty() {
                            String::new()
                        } else {
                            format!("; did you mean {}?", c.iter().map(|c| format!("`{}`", c.symbol)).collect::<Vec<_>>().join(", "))
                        };
                        return Verdict::new(
                            State::Invalid,
                            "unknown_symbol",
                            format!("no declaration `{fragment}` in {path}{hint}"),
                        )
                        .with_candidates(c);
                    }
                }
            }
        }
        let Some(Baseline::Declaration { fingerprint, body, body_unique, container_unique, identity, workspace, .. }) = baseline else {
            return Verdict::new(State::Invalid, "unknown_file", format!("{path} does not exist"));
        };
        let facts = Recorded { fingerprint, body, body_unique, container_unique, identity, workspace };
        self.ladder(path, fragment, hinted, &facts)
    }

    /// Uniqueness of a declaration across the workspace, for its baseline. None when
    /// the workspace could not be indexed completely (the budget ran out).
    fn workspace_facts(&mut self, path: &str, fragment: &Fragment, d: &Declaration) -> Option<WorkspaceFacts> {
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

    /// Stages 2–5 of the ladder.
    fn ladder(&mut self, path: &str, fragment: &Fragment, hinted: Option<Arc<FileSyntax>>, rec: &Recorded) -> Verdict {
        let Recorded { fingerprint, identity, workspace, .. } = *rec;
        // Stage 3 needs a body that was unique in its file, stage 4 one that was unique
        // in the workspace, when recorded: an identical twin makes a body match a guess.
        let body = rec.body.filter(|_| rec.body_unique);
        let body_elsewhere_trusted = workspace.is_some_and(|w| w.body_unique);
        let namesake_trusted = workspace.is_some_and(|w| w.name_unique);
        let old = fragment.name.clone();
        let repo = self.repo(&[path]);
        if !repo.complete {
            return Verdict::new(
                State::Unchecked,
                "budget",
                format!("`{old}` is not in {path}; the repository-wide search ran out of budget before it could say where it went"),
            );
        }
        // Stage 2: same identity, other file.
        let mut stage2: Vec<(usize, usize)> = Vec::new();
        if let Some(files) = repo.by_simple_name.get(&strip_labels(fragment.simple_name())) {
            for &fi in files {
                let (p, syn) = &repo.files[fi];
                if p == path {
                    continue;
                }
                for di in fragment.designates(&syn.declarations) {
                    if syn.declarations[di].identity == identity {
                        stage2.push((fi, di));
                    }
                }
            }
        }
        // Stages 3 and 4: same body, other name.
        let mut stage3: Vec<usize> = Vec::new();
        let mut stage4: Vec<(usize, usize)> = Vec::new();
        if let Some(bfp) = body {
            if let Some(h) = &hinted {
                for (di, d) in h.declarations.iter().enumerate() {
                    if d.matchable_body() == Some(bfp) && d.identity == identity && d.qualified_name != old {
                        stage3.push(di);
                    }
                }
            }
        } else if let (Some(bfp), true, Some(h)) = (rec.body, rec.container_unique, &hinted) {
            // The body had a twin elsewhere in the file but none in its own container:
            // uniqueness is judged within the container (DESIGN 1.3a), so a rename inside
            // it is found, and a twin in another container is never taken for it.
            let container = container_of(&old);
            for (di, d) in h.declarations.iter().enumerate() {
                if d.matchable_body() == Some(bfp) && d.identity == identity && d.qualified_name != old && d.container.as_deref().unwrap_or("") == container {
                    stage3.push(di);
                }
            }
        }
        if let Some(bfp) = rec.body.filter(|_| rec.body_unique && body_elsewhere_trusted) {
            if let Some(list) = repo.by_body.get(&bfp) {
                for &(fi, di) in list {
                    let (p, syn) = &repo.files[fi];
                    let d = &syn.declarations[di];
                    if p != path && d.identity == identity && d.qualified_name != old {
                        stage4.push((fi, di));
                    }
                }
            }
        }
        let cand = |fi: usize, di: usize| -> Candidate {
            let (p, syn) = &repo.files[fi];
            Candidate { path: p.clone(), symbol: exact_fragment(&syn.declarations, di), line: syn.declarations[di].name_line }
        };
        let now_at = |fi: usize, di: usize| -> Now {
            let (p, syn) = &repo.files[fi];
            now_of(p, &syn.declarations, di)
        };
        let exact2: Vec<(usize, usize)> =
            stage2.iter().copied().filter(|&(fi, di)| repo.files[fi].1.declarations[di].fingerprint == fingerprint).collect();
        if exact2.len() == 1 {
            let now = now_at(exact2[0].0, exact2[0].1);
            return Verdict::new(State::Moved, "moved", format!("`{old}` moved to {}", now.path)).with_now(now);
        }
        if exact2.len() > 1 {
            return Verdict::new(
                State::Lost,
                "ambiguous",
                format!("`{old}` now exists unchanged in {} files; pick one to rebind", exact2.len()),
            )
            .with_candidates(exact2.iter().map(|&(f, d)| cand(f, d)).collect());
        }
        if let Some(h) = &hinted {
            if stage3.len() == 1 {
                let now = now_of(path, &h.declarations, stage3[0]);
                let new = now.symbol.clone().unwrap_or_default();
                return Verdict::new(State::Renamed, "body_matched", format!("`{old}` was renamed to `{new}` in {path}"))
                    .with_now(now);
            }
            if stage3.len() > 1 {
                return Verdict::new(
                    State::Lost,
                    "ambiguous",
                    format!("`{old}` is gone; {} declarations in {path} have its body", stage3.len()),
                )
                .with_candidates(
                    stage3
                        .iter()
                        .map(|&di| Candidate {
                            path: path.to_string(),
                            symbol: exact_fragment(&h.declarations, di),
                            line: h.declarations[di].name_line,
                        })
                        .collect(),
                );
            }
        }
        match (stage2.len(), stage4.len()) {
            (1, 0) if !namesake_trusted => {
                let c = cand(stage2[0].0, stage2[0].1);
                Verdict::new(
                    State::Lost,
                    "ambiguous",
                    format!(
                        "`{old}` is gone from {path}; {} already declared `{}` when the doc was reviewed, so it is not known to be where it went",
                        c.path, c.symbol
                    ),
                )
                .with_candidates(vec![c])
            }
            (1, 0) => {
                let now = now_at(stage2[0].0, stage2[0].1);
                let mut v = Verdict::new(
                    State::Moved,
                    "moved",
                    format!("`{old}` moved to {} and changed since the doc was reviewed", now.path),
                )
                .with_now(now);
                v.changed = true;
                v
            }
            (0, 1) => {
                let now = now_at(stage4[0].0, stage4[0].1);
                let new = now.symbol.clone().unwrap_or_default();
                Verdict::new(State::MovedRenamed, "body_matched", format!("`{old}` was renamed to `{new}` in {}", now.path))
                    .with_now(now)
            }
            (0, 0) => {
                let (reason, what) = if hinted.is_some() {
                    ("declaration_missing", format!("`{old}` is no longer in {path} and was not found elsewhere"))
                } else {
                    ("file_missing", format!("{path} no longer exists and `{old}` was not found elsewhere"))
                };
                let mut c = Vec::new();
                if let Some(h) = &hinted {
                    c = suggestions(&old, &h.declarations, 3)
                        .into_iter()
                        .map(|i| Candidate {
                            path: path.to_string(),
                            symbol: exact_fragment(&h.declarations, i),
                            line: h.declarations[i].name_line,
                        })
                        .collect();
                }
                Verdict::new(State::Lost, reason, what).with_candidates(c)
            }
            _ => {
                let mut c: Vec<Candidate> = stage2.iter().map(|&(f, d)| cand(f, d)).collect();
                c.extend(stage4.iter().map(|&(f, d)| cand(f, d)));
                Verdict::new(
                    State::Lost,
                    "ambiguous",
                    format!("`{old}` is gone from {path}; {} places could be it — pick one to rebind", c.len()),
                )
                .with_candidates(c)
            }
        }
    }

    fn similar_files(&self, path: &str) -> Vec<Candidate> {
        let name = path.rsplit('/').next().unwrap_or(path);
        self.tree
            .files()
            .iter()
            .filter(|p| p.rsplit('/').next() == Some(name))
            .take(5)
            .map(|p| Candidate { path: p.clone(), symbol: String::new(), line: 1 })
            .collect()
    }

    fn resolve_lines(&mut self, a: &Anchor, path: &str, start: u32, end: u32) -> Verdict {
        let text = match self.read(path) {
            Seen::Text(t) => t,
            Seen::Error(ReadError::Missing) if a.baseline.is_some() => {
                return Verdict::new(State::Lost, "file_missing", format!("{path} no longer exists"))
            }
            other => return self.read_problem(path, other),
        };
        let lines: Vec<&str> = strip_bom(&text).split('\n').collect();
        let in_file = (end as usize) <= lines.len() && !(end as usize == lines.len() && lines.last() == Some(&""));
        let baseline = a.baseline.clone();
        let Some(Baseline::Lines { fingerprint, count }) = baseline else {
            if baseline.is_some() {
                return Verdict::new(State::Invalid, "bad_baseline", "this baseline was recorded for another kind of target");
            }
            if !in_file {
                return Verdict::new(State::Invalid, "range_missing", format!("lines {start}-{end} are not in {path}"));
            }
            return Verdict::new(State::Unrecorded, "no_baseline", "no baseline recorded yet").with_now(lines_now(path, start, end));
        };
        if in_file && lines_fingerprint(&lines[start as usize - 1..end as usize]).0 == fingerprint {
            return Verdict::new(State::Fresh, "identity_matched", "fresh").with_now(lines_now(path, start, end));
        }
        // Relocation: the exact block, exactly once elsewhere.
        let found = relocate(&lines, fingerprint, count);
        if found.len() == 1 {
            let (s, e) = found[0];
            return Verdict::new(
                State::Moved,
                "range_moved",
                format!("the lines moved to {s}-{e} of {path}; update the numbers"),
            )
            .with_now(lines_now(path, s, e));
        }
        if in_file {
            Verdict::new(State::Stale, "range_changed", format!("lines {start}-{end} of {path} changed since the doc was reviewed"))
                .with_now(lines_now(path, start, end))
        } else {
            Verdict::new(State::Lost, "range_missing", format!("lines {start}-{end} are no longer in {path}"))
        }
    }

    fn resolve_doc(&mut self, a: &Anchor, path: &str, slug: Option<&str>) -> Verdict {
        let text = match self.read(path) {
            Seen::Text(t) => t,
            Seen::Error(ReadError::Missing) if a.baseline.is_some() => {
                return Verdict::new(State::Lost, "file_missing", format!("{path} no longer exists"))
            }
            other => return self.read_problem(path, other),
        };
        let Some((fp, line)) = doc_section(strip_bom(&text), slug) else {
            let slug = slug.unwrap_or("");
            return if a.baseline.is_some() {
                Verdict::new(State::Lost, "heading_missing", format!("{path} has no section `#{slug}` any more"))
            } else {
                Verdict::new(State::Invalid, "unknown_heading", format!("{path} has no section `#{slug}`"))
            };
        };
        let now = Now {
            path: path.to_string(),
            symbol: slug.map(str::to_string),
            fragment: None,
            kind: Some("doc".into()),
            line,
            end_line: None,
            lines: None,
            signature: None,
            column: 0,
        };
        match a.baseline {
            Some(Baseline::Doc { fingerprint }) if fingerprint == fp => {
                Verdict::new(State::Fresh, "identity_matched", "fresh").with_now(now)
            }
            Some(Baseline::Doc { .. }) => Verdict::new(
                State::Stale,
                "section_changed",
                format!("{}{} changed since this doc was reviewed", path, slug.map(|s| format!("#{s}")).unwrap_or_default()),
            )
            .with_now(now),
            Some(_) => Verdict::new(State::Invalid, "bad_baseline", "this baseline was recorded for another kind of target"),
            None => Verdict::new(State::Unrecorded, "no_baseline", "no baseline recorded yet").with_now(now),
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
                match fragment.resolve(&syn.declarations) {
                    Resolution::Unique(i) => {
                        let d = &syn.declarations[i];
                        if d.has_error {
                            return Err(Verdict::new(State::Unchecked, "parse_error", "the declaration has a syntax error"));
                        }
                        let unique = body_unique(&syn.declarations, i);
                        let in_container = body_unique_in_container(&syn.declarations, i);
                        let now = now_of(&path, &syn.declarations, i);
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
            Target::File { .. } => Err(Verdict::new(State::Invalid, "not_an_anchor", "plain links have no baseline")),
        }
    }

    /// Declarations of a file (for mention conversion, completion, hovers).
    pub fn declarations(&mut self, path: &str) -> Option<Arc<FileSyntax>> {
        let lang = Lang::from_path(path)?;
        self.parsed(path, lang).ok().map(|(_, s)| s)
    }
}

fn shared_prefix_dirs(a: &str, b: &str) -> usize {
    a.split('/').zip(b.split('/')).take_while(|(x, y)| x == y).count()
}

/// The container part of a fragment's name, as `Declaration::container` holds it for a
/// declaration (`Invoice.toJson` → `Invoice`; empty at top level).
fn container_of(qualified: &str) -> &str {
    let last = knit_syntax::decl::last_segment(qualified);
    qualified[..qualified.len() - last.len()].trim_end_matches('.')
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

pub(crate) fn now_of(path: &str, decls: &[Declaration], i: usize) -> Now {
    let d = &decls[i];
    Now {
        path: path.to_string(),
        symbol: Some(d.qualified_name.clone()),
        fragment: Some(exact_fragment(decls, i)),
        kind: Some(d.kind.clone()),
        line: d.name_line,
        end_line: Some(d.end_line),
        lines: None,
        signature: Some(d.signature.clone()),
        column: d.name_column,
    }
}

fn lines_now(path: &str, start: u32, end: u32) -> Now {
    Now {
        path: path.to_string(),
        symbol: None,
        fragment: None,
        kind: None,
        line: start,
        end_line: Some(end),
        lines: Some([start, end]),
        signature: None,
        column: 0,
    }
}

/// Normalised lines: trimmed (indentation and `\r` gone), blank lines dropped, knit
/// baselines in link titles removed — they are bookkeeping, and a range that holds its
/// own anchor (a doc quoting its own lines) would otherwise change with every record.
pub fn lines_fingerprint(lines: &[&str]) -> (Fingerprint, u32) {
    let mut buf = String::new();
    let mut count = 0;
    for l in lines {
        let stripped = strip_baselines(l);
        let t = stripped.trim();
        if !t.is_empty() {
            buf.push_str(t);
            buf.push('\n');
            count += 1;
        }
    }
    (Fingerprint::of_bytes(buf.as_bytes()), count)
}

/// Every window of `count` non-blank lines whose normalised text hashes to `fp`, as
/// 1-based (first, last) line numbers.
fn relocate(lines: &[&str], fp: Fingerprint, count: u32) -> Vec<(u32, u32)> {
    let count = count as usize;
    if count == 0 {
        return Vec::new();
    }
    let nonblank: Vec<usize> = (0..lines.len()).filter(|&i| !lines[i].trim().is_empty()).collect();
    let mut found = Vec::new();
    if nonblank.len() < count {
        return found;
    }
    for w in 0..=nonblank.len() - count {
        let idx = &nonblank[w..w + count];
        let sel: Vec<&str> = idx.iter().map(|&i| lines[i]).collect();
        if lines_fingerprint(&sel).0 == fp {
            found.push((idx[0] as u32 + 1, idx[count - 1] as u32 + 1));
        }
    }
    found
}

/// Fingerprint and 1-based line of a doc section (whole doc when `slug` is None).
pub fn doc_section(text: &str, slug: Option<&str>) -> Option<(Fingerprint, u32)> {
    let lines: Vec<&str> = text.split('\n').collect();
    let (first, last, line) = match slug {
        None => (0, lines.len(), 1),
        Some(s) => {
            let scan = markdown::scan(text);
            let idx = scan.headings.iter().position(|h| h.slug == s)?;
            let h = &scan.headings[idx];
            let end = scan.headings[idx + 1..]
                .iter()
                .find(|n| n.level <= h.level)
                .map(|n| n.line as usize - 1)
                .unwrap_or(lines.len());
            (h.line as usize - 1, end, h.line)
        }
    };
    // Baselines written into the section are bookkeeping, not content (lines_fingerprint
    // drops them): recording the anchors of a paired doc must not make the anchors
    // pointing at it stale.
    let (fp, _) = lines_fingerprint(lines.get(first..last.min(lines.len()))?);
    Some((fp, line))
}

/// Finds the anchors, plain links and mentions of one doc.
pub fn scan_doc(doc: &str, src: &str) -> DocAnchors {
    let scan = markdown::scan(src);
    let mut out = DocAnchors { doc: doc.to_string(), mentions: scan.mentions, ..Default::default() };
    let mut last_line = 0;
    let mut ordinal = 0;
    for mut link in scan.links {
        let target = match classify(doc, &link.dest_raw) {
            Ok(None) => continue,
            Ok(Some(t)) => Ok(t),
            Err(e) => Err(e),
        };
        // Ordinals count workspace links only: an external URL earlier on the line does
        // not shift ids.
        if link.line != last_line {
            last_line = link.line;
            ordinal = 0;
        }
        ordinal += 1;
        link.ordinal = ordinal;
        let id = format!("{doc}:{}:{}", link.line, link.ordinal);
        let baseline_raw = link.title.as_deref().and_then(baseline_in_title).map(str::to_string);
        let baseline = baseline_raw.as_deref().and_then(Baseline::decode);
        let is_anchor = match &target {
            Ok(Target::File { .. }) => false,
            Ok(Target::Doc { .. }) => baseline_raw.is_some(),
            _ => true,
        };
        if is_anchor {
            out.anchors.push(Anchor { id, doc: doc.to_string(), link, target, baseline_raw, baseline });
        } else if let Ok(t) = target {
            out.links.push(PlainLink { id, doc: doc.to_string(), path: t.path().to_string(), link });
        }
    }
    out
}

/// Why a plain link is broken (missing file, or a missing `#heading` in a Markdown
/// file), or None.
pub fn broken_link(session: &mut Session, doc: &str, dest: &str, path: &str) -> Option<String> {
    if !session.tree.exists(path) {
        return Some(format!("broken link: {path} does not exist"));
    }
    if let Ok(Some(Target::Doc { slug: Some(slug), .. })) = classify(doc, dest) {
        if let Seen::Text(t) = session.read(path) {
            if doc_section(strip_bom(&t), Some(&slug)).is_none() {
                return Some(format!("broken link: {path} has no section `#{slug}`"));
            }
        }
    }
    None
}

/// How the anchors written in one doc stand (for context packs and status bars).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct AnchorTally {
    pub total: u32,
    /// stale, moved, renamed, moved-renamed.
    pub stale: u32,
    /// lost and invalid.
    pub lost: u32,
}

impl AnchorTally {
    /// Counts one anchor. The doc no longer says what the code does when the anchor is
    /// stale, moved or renamed (`stale`); it points nowhere when lost or invalid (`lost`).
    pub fn add(&mut self, state: State) {
        self.total += 1;
        match state {
            State::Stale | State::Moved | State::Renamed | State::MovedRenamed => self.stale += 1,
            State::Lost | State::Invalid => self.lost += 1,
            _ => {}
        }
    }
}

/// Resolves every anchor of `doc` (its text `src`) and tallies the states.
pub fn tally_doc(session: &mut Session, doc: &str, src: &str) -> AnchorTally {
    let mut t = AnchorTally::default();
    for a in scan_doc(doc, strip_bom(src)).anchors {
        t.add(session.resolve(&a).state);
    }
    t
}

/// Options of a whole-workspace check.
#[derive(Default)]
pub struct CheckOptions<'p> {
    /// Only anchors whose target path is in this set (`knit check --changed`).
    pub only_targets: Option<&'p std::collections::HashSet<String>>,
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
    for (doc_anchors, src) in &per_doc {
        for a in &doc_anchors.anchors {
            if let Some(only) = opts.only_targets {
                match &a.target {
                    Ok(t) if only.contains(t.path()) => {}
                    _ => continue,
                }
            }
            let mut v = session.resolve(a);
            if v.state == State::Unchecked {
                if let Some(prev) = opts.previous.and_then(|p| p.get(&a.id)) {
                    v.previous_state = Some(prev.clone());
                }
                if v.reason == "budget" {
                    report.unchecked_anchor_ids.push(a.id.clone());
                }
            }
            report.anchors.push(AnchorReport {
                id: a.id.clone(),
                doc: a.doc.clone(),
                line: a.line(),
                column: column_of(src, a.link.span.start),
                target: target_report(a, &v),
                state: v.state,
                detail: v,
            });
        }
        if opts.only_targets.is_none() {
            for l in &doc_anchors.links {
                if let Some(message) = broken_link(&mut session, &l.doc, &l.link.dest_raw, &l.path) {
                    report.broken_links.push(BrokenLink {
                        id: l.id.clone(),
                        doc: l.doc.clone(),
                        line: l.link.line,
                        path: l.path.clone(),
                        message,
                    });
                }
                if false {
                    report.broken_links.push(BrokenLink {
                        id: l.id.clone(),
                        doc: l.doc.clone(),
                        line: l.link.line,
                        path: l.path.clone(),
                        message: format!("broken link: {} does not exist", l.path),
                    });
                }
            }
            for m in &doc_anchors.mentions {
                if let Some(s) = mention_suggestion(&mut session, &doc_anchors.doc, m, src) {
                    report.mentions.push(s);
                }
            }
        }
    }
    report.budget = session.budget.report();
    report.complete = report.budget.limit.is_none() && report.unchecked_anchor_ids.is_empty();
    report.fallback_share = FallbackShare::of(report.anchors.iter());
    report
}

/// For a `path:12-40` mention: the anchor destination knit would write (symbol anchor
/// when the range covers exactly one declaration, line-range anchor otherwise).
pub fn mention_suggestion(session: &mut Session, doc: &str, m: &markdown::Mention, _src: &str) -> Option<MentionReport> {
    let doc_path = doc;
    // AGENTS.md style mentions are root-relative; fall back to doc-relative.
    let candidates = [m.path.trim_start_matches("./").to_string(), crate::target::join(doc_path, &m.path).unwrap_or_default()];
    let path = candidates.into_iter().find(|p| !p.is_empty() && session.tree.exists(p))?;
    let dest_path = relative_dest(doc_path, &path);
    let (dest, kind) = match session.declarations(&path) {
        Some(syn) => match covering_declaration(&syn.declarations, m.start, m.end) {
            Some(i) => (format!("{dest_path}#{}", exact_fragment(&syn.declarations, i)), "symbol"),
            None => (line_dest(&dest_path, m.start, m.end), "lines"),
        },
        None => (line_dest(&dest_path, m.start, m.end), "lines"),
    };
    Some(MentionReport {
        doc: doc_path.to_string(),
        line: m.line,
        text: format!("{}:{}-{}", m.path, m.start, m.end),
        suggestion: dest,
        kind,
    })
}

/// `word` occurs in `text` as a whole identifier (not inside a longer one).
fn mentions_word(text: &str, word: &str) -> bool {
    if word.is_empty() {
        return true;
    }
    let is_ident = |c: char| c.is_alphanumeric() || c == '_' || c == '$';
    text.match_indices(word).any(|(at, _)| {
        let before = text[..at].chars().next_back();
        let after = text[at + word.len()..].chars().next();
        !before.is_some_and(is_ident) && !after.is_some_and(is_ident)
    })
}

/// 1-based character column of byte `at` on its line of `src`.
fn column_of(src: &str, at: usize) -> u32 {
    let at = at.min(src.len());
    let Some(before) = src.get(..at) else { return 1 };
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    before[line_start..].chars().count() as u32 + 1
}

fn line_dest(path: &str, s: u32, e: u32) -> String {
    if s == e {
        format!("{path}#L{s}")
    } else {
        format!("{path}#L{s}-L{e}")
    }
}

/// The single outermost declaration lying inside `[start, end]` that covers most of it.
pub fn covering_declaration(decls: &[Declaration], start: u32, end: u32) -> Option<usize> {
    let inside: Vec<usize> = (0..decls.len()).filter(|&i| decls[i].start_line >= start && decls[i].end_line <= end).collect();
    let outer: Vec<usize> = inside
        .iter()
        .copied()
        .filter(|&i| !inside.iter().any(|&j| j != i && decls[j].start_byte <= decls[i].start_byte && decls[j].end_byte >= decls[i].end_byte && (decls[j].start_byte, decls[j].end_byte) != (decls[i].start_byte, decls[i].end_byte)))
        .collect();
    // Several declarations sharing one span (Swift `let a = 1, b = 2`) cannot be told apart by range.
    match outer.as_slice() {
        [i] => {
            let d = &decls[*i];
            let covered = d.end_line - d.start_line + 1;
            (covered * 2 >= end - start + 1).then_some(*i)
        }
        _ => None,
    }
}

/// 1-based line → byte offset helper re-exported for edit code.
pub fn line_index(src: &str) -> LineIndex {
    LineIndex::new(src)
}

#[cfg(test)]
mod tests {
    use crate::baseline::strip_baselines;

    #[test]
    fn baselines_are_not_section_content() {
        assert_eq!(strip_baselines(r#"See [f](a.ts#f "knit:1MHabc_-9") now"#), "See [f](a.ts#f) now");
        assert_eq!(strip_baselines(r#"See [f](a.ts#f "Reviewed knit:1MHabc") now"#), r#"See [f](a.ts#f "Reviewed") now"#);
        assert_eq!(strip_baselines("[r]: a.ts#f 'knit:1x'"), "[r]: a.ts#f");
        assert_eq!(strip_baselines("no tokens here"), "no tokens here");
    }
}
