//! The evidence lists of one task, one per [`SignalKind`], each best first with the fact
//! behind every entry. The engine hands in what it knows (lexical hits, the relation
//! graph, the co-change table, the symbol table, a term look-up); fusion happens in
//! [`crate::fusion`].
//!
//! Pure apart from the term look-up closure, which reads the index.

use std::collections::{BTreeMap, HashMap, HashSet};

use crate::analysis::{self, MAX_PATH_WORDS};
use crate::classify;
use crate::cochange::CoChange;
use crate::fusion::{SignalHit, SignalKind, Signals};
use crate::index::FileRecord;
use crate::relations::RelationGraph;
use crate::tiers::relation_reason;
use crate::wire::{RelationFact, RelationType};

/// The signals of one task, as kept for evaluation: lists of paths per signal name.
pub type Evidence = Signals;

/// Names declared by more files than this say nothing about which one is meant.
const MAX_DECLARERS: usize = 4;
/// A focus identifier found in more files than this is vocabulary, not a link.
pub const MAX_USERS: usize = 40;
/// At most this many of the focus file's declared names are looked up.
const MAX_FOCUS_NAMES: usize = 96;
/// The best lexical hits whose co-change partners form the `CoChangeTop` signal.
const TOP_HITS_FOR_COCHANGE: usize = 3;
/// Entries kept per signal list.
const LIST_DEPTH: usize = 60;

/// Which files declare which names (from the index records' keyword scan), which files
/// each folder holds, and every path lowercased (for words a path may spell: a query's,
/// the focused file's name).
///
/// Compact on purpose: a workspace of 10 000 files declares some 350 000 names, and a map
/// from each name to its files' paths took ~90 MB. Here a name is its 64-bit hash, kept
/// with a file number in one sorted vector (~16 bytes a declaration). Two names sharing a
/// hash would link a file wrongly; among a million names the chance is ~3·10⁻⁸.
#[derive(Debug, Default, Clone)]
pub struct SymbolTable {
    paths: Vec<String>,
    /// (name hash, index into `paths`), sorted; names declared by more than
    /// `MAX_DECLARERS` files are left out (they say nothing about which file is meant).
    declared: Vec<(u64, u32)>,
    by_folder: HashMap<String, Vec<u32>>,
    /// `paths` lowercased and joined by newlines (no path holds one), searched in one pass
    /// for a query's words; `path_starts[i]` is where path i begins.
    lower_paths: String,
    path_starts: Vec<u32>,
}

fn name_hash(name: &str) -> u64 {
    use std::hash::{Hash, Hasher};
    // SipHash with fixed keys: the same on every run.
    let mut h = std::collections::hash_map::DefaultHasher::new();
    name.hash(&mut h);
    h.finish()
}

impl SymbolTable {
    pub fn build(records: &[&FileRecord]) -> SymbolTable {
        let mut paths = Vec::with_capacity(records.len());
        let mut declared: Vec<(u64, u32)> = Vec::new();
        let mut by_folder: HashMap<String, Vec<u32>> = HashMap::new();
        for r in records {
            let i = paths.len() as u32;
            paths.push(r.path.clone());
            by_folder.entry(folder_of(&r.path).to_string()).or_default().push(i);
            declared.extend(r.decls.iter().map(|name| (name_hash(name), i)));
        }
        declared.sort_unstable();
        declared.dedup();
        // Drop the names too many files declare.
        let mut kept = Vec::with_capacity(declared.len());
        for group in declared.chunk_by(|a, b| a.0 == b.0) {
            if group.len() <= MAX_DECLARERS {
                kept.extend_from_slice(group);
            }
        }
        kept.shrink_to_fit();
        for files in by_folder.values_mut() {
            files.sort_by(|&a, &b| paths[a as usize].cmp(&paths[b as usize]));
        }
        let mut lower_paths = String::new();
        let mut path_starts = Vec::with_capacity(paths.len());
        for p in &paths {
            path_starts.push(lower_paths.len() as u32);
            lower_paths.push_str(&p.to_lowercase().replace('\n', " "));
            lower_paths.push('\n');
        }
        SymbolTable { paths, declared: kept, by_folder, lower_paths, path_starts }
    }

    /// The files declaring `name` (none when more than `MAX_DECLARERS` do), by path.
    pub fn declarers(&self, name: &str) -> Vec<&str> {
        let h = name_hash(name);
        let start = self.declared.partition_point(|&(x, _)| x < h);
        self.declared[start..].iter().take_while(|&&(x, _)| x == h).map(|&(_, i)| self.paths[i as usize].as_str()).collect()
    }

    /// Files whose path contains any of `words` (lowercase), with the words it contains:
    /// most words first, then the shorter path (`src/retry.ts` before
    /// `src/retry/backoff/policy.ts`), then by path. A word in more than half of the paths
    /// (`docs` in a docs folder, `src`) says nothing about which file is meant and is not
    /// counted. Words after the [`MAX_PATH_WORDS`]th are ignored (one bit each of a `u32`).
    pub fn paths_with_words<'w>(&self, words: &'w [String]) -> Vec<(&str, Vec<&'w str>)> {
        const _: () = assert!(MAX_PATH_WORDS <= 32);
        let words = &words[..words.len().min(MAX_PATH_WORDS)];
        if words.is_empty() {
            return Vec::new();
        }
        // One Aho-Corasick pass over every path (10 000 paths × 10 words by `contains`
        // cost about a millisecond a pack); words hold no newline, so no match spans paths.
        let Ok(automaton) = aho_corasick::AhoCorasick::new(words) else { return Vec::new() };
        let mut masks = vec![0u32; self.paths.len()];
        for m in automaton.find_overlapping_iter(&self.lower_paths) {
            let path = self.path_starts.partition_point(|&start| start as usize <= m.start()) - 1;
            masks[path] |= 1 << m.pattern().as_usize();
        }
        let mut df = [0usize; MAX_PATH_WORDS];
        for &mask in &masks {
            let mut bits = mask;
            while bits != 0 {
                df[bits.trailing_zeros() as usize] += 1;
                bits &= bits - 1;
            }
        }
        let telling = (0..words.len()).filter(|&i| df[i] * 2 <= self.paths.len()).fold(0u32, |m, i| m | 1 << i);
        let mut found: Vec<(&str, Vec<&'w str>)> = Vec::new();
        for (path, mask) in self.paths.iter().zip(masks) {
            let mask = mask & telling;
            if mask != 0 {
                found.push((path.as_str(), words.iter().enumerate().filter(|(i, _)| mask & 1 << i != 0).map(|(_, w)| w.as_str()).collect()));
            }
        }
        found.sort_by(|a, b| b.1.len().cmp(&a.1.len()).then(a.0.len().cmp(&b.0.len())).then(a.0.cmp(b.0)));
        found
    }

    /// The files of `folder` (`""`: the root), sorted by path.
    pub fn in_folder(&self, folder: &str) -> Vec<&str> {
        self.by_folder.get(folder).map(|ids| ids.iter().map(|&i| self.paths[i as usize].as_str()).collect()).unwrap_or_default()
    }
}

fn folder_of(path: &str) -> &str {
    path.rsplit_once('/').map_or("", |(d, _)| d)
}

/// The name stem that related files share: `OrderedSet` of `OrderedSet+Hashable.swift`,
/// `client` of `client.test.ts` or `client_utils.py`. None when shorter than 3 bytes.
fn name_stem(path: &str) -> Option<&str> {
    let name = path.rsplit_once('/').map_or(path, |(_, n)| n);
    let stem = name.split(['.', '+', '_', '-']).next().unwrap_or("");
    (stem.len() >= 3).then_some(stem)
}

/// The focused file as the task sees it.
pub struct Focus<'a> {
    pub path: &'a str,
    pub text: &'a str,
    /// Its exact declared names (knit-syntax), most specific first.
    pub declared: &'a [String],
}

/// Everything [`collect`] reads.
pub struct Inputs<'a> {
    pub focus: Option<Focus<'a>>,
    /// The other open buffers, most recent first (their co-change partners count too).
    pub other_open: Vec<&'a str>,
    /// Lexical hits in rank order with their reasons.
    pub lexical: Vec<(String, Vec<String>)>,
    /// The task's weighted terms (for matching past commits' subject lines).
    pub terms: &'a [(String, f32)],
    /// The identifiers a query writes as code ([`analysis::code_names`]); empty for
    /// open-buffer tasks.
    pub code_names: &'a [String],
    /// The words of a query that may name a file ([`analysis::path_words`]); empty for
    /// open-buffer tasks, whose words are the buffer's, not the user's.
    pub path_words: &'a [String],
    pub graph: &'a RelationGraph,
    pub cochange: Option<&'a CoChange>,
    pub symbols: &'a SymbolTable,
    /// May this path be listed (exists, eligible, not open, not pinned)?
    pub allowed: &'a dyn Fn(&str) -> bool,
    pub is_doc: &'a dyn Fn(&str) -> bool,
}

/// Builds every signal list for the task.
pub fn collect(inp: &Inputs<'_>, files_with_term: &mut dyn FnMut(&str) -> Vec<String>) -> Signals {
    let mut s = Signals::default();
    for (path, reasons) in &inp.lexical {
        s.push(SignalKind::Lexical, SignalHit { path: path.clone(), reason: reasons.first().cloned().unwrap_or_else(|| "lexical match".into()), relation: None });
    }
    if let Some(focus) = &inp.focus {
        shares_name(&mut s, inp, focus.path);
        cochange(&mut s, inp, focus.path, &inp.other_open);
        relations_of(&mut s, inp, focus.path);
        declares(&mut s, inp, focus);
        uses(&mut s, inp, focus, files_with_term);
    }
    // Partners in history of the best lexical hits (each hit's list interleaved by rank,
    // the better hit first).
    if let Some(cc) = inp.cochange {
        let lists: Vec<(String, Vec<crate::cochange::Partner>)> = inp
            .lexical
            .iter()
            .take(TOP_HITS_FOR_COCHANGE)
            .map(|(p, _)| (p.clone(), cc.partners(p, inp.allowed, 20)))
            .collect();
        for rank in 0..20 {
            for (hit, partners) in &lists {
                if let Some(p) = partners.get(rank) {
                    if inp.lexical.iter().take(TOP_HITS_FOR_COCHANGE).any(|(h, _)| *h == p.path) {
                        continue;
                    }
                    s.push(SignalKind::CoChangeTop, SignalHit { path: p.path.clone(), reason: format!("changedWith: {hit} in {} of {} commits", p.together, p.of), relation: Some(changed_with(hit)) });
                }
            }
        }
    }
    named_in_query(&mut s, inp);
    // Files whose path spells the task's words.
    for (path, words) in inp.symbols.paths_with_words(inp.path_words).into_iter().filter(|(p, _)| (inp.allowed)(p)).take(LIST_DEPTH) {
        let reason = format!("pathWords: {}", words.join(", "));
        s.push(SignalKind::InPath, SignalHit { path: path.to_string(), reason, relation: None });
    }
    // Files changed by past commits whose subjects match the task's words.
    if let Some(cc) = inp.cochange {
        for hit in cc.past_commits(inp.terms, inp.allowed, LIST_DEPTH) {
            let reason = format!("pastCommit: {} \"{}\" changed it", hit.commit, hit.subject);
            s.push(SignalKind::PastCommits, SignalHit { path: hit.path, reason, relation: None });
        }
    }
    // Work in progress: files of the newest commits.
    if let Some(cc) = inp.cochange {
        for r in cc.recent().iter().filter(|r| (inp.allowed)(&r.path)).take(LIST_DEPTH) {
            let reason = format!("recent: changed in {} of the last {} commits (latest: {} commit{} ago)", r.commits, crate::cochange::RECENT_COMMITS, r.latest, if r.latest == 1 { "" } else { "s" });
            s.push(SignalKind::Recent, SignalHit { path: r.path.clone(), reason, relation: None });
        }
    }
    // The folder of the focused file, else of the best lexical hit.
    let anchor = inp.focus.as_ref().map(|f| f.path.to_string()).or_else(|| inp.lexical.first().map(|(p, _)| p.clone()));
    if let Some(anchor) = anchor {
        same_folder(&mut s, inp, &anchor);
    }
    // Neighbours of the best lexical hit (the primary-to-be).
    if let Some((top, _)) = inp.lexical.first() {
        let mut near: Vec<(u8, String, String)> = inp
            .graph
            .neighbours(top)
            .into_iter()
            .filter(|(_, other)| *other != top && (inp.allowed)(other))
            .map(|(e, other)| (priority(e.kind), other.to_string(), relation_reason(e, other)))
            .collect();
        near.sort();
        for (_, path, reason) in near {
            s.push(SignalKind::NearTop, SignalHit { path, reason, relation: None });
        }
    }
    for list in s.lists.values_mut() {
        list.truncate(LIST_DEPTH);
    }
    s
}

/// Files next to `anchor`: those sharing its name stem first, then by how recently they
/// changed (never-changed files last), then by path.
fn same_folder(s: &mut Signals, inp: &Inputs<'_>, anchor: &str) {
    let files = inp.symbols.in_folder(folder_of(anchor));
    let stem = name_stem(anchor);
    let mut ranked: Vec<(bool, u32, &str)> = files
        .into_iter()
        .filter(|f| *f != anchor && (inp.allowed)(f))
        .map(|f| {
            let shares = stem.is_some() && name_stem(f) == stem;
            let last = inp.cochange.and_then(|cc| cc.last_changed(f)).unwrap_or(u32::MAX);
            (!shares, last, f)
        })
        .collect();
    ranked.sort();
    for (not_shared, last, path) in ranked.into_iter().take(LIST_DEPTH) {
        let mut reason = format!("sameFolder: next to {anchor}");
        if !not_shared {
            reason.push_str(&format!(", shares the name \"{}\"", stem.unwrap_or_default()));
        }
        if last != u32::MAX {
            // Counted as the recency signal counts: the newest commit is "1 commit ago".
            let ago = last + 1;
            reason.push_str(&format!(" (last changed {ago} commit{} ago)", if ago == 1 { "" } else { "s" }));
        }
        s.push(SignalKind::SameFolder, SignalHit { path: path.to_string(), reason, relation: None });
    }
}

/// Files elsewhere whose path spells a word of the focused file's name: its tests, docs,
/// mirrors and siblings in other folders (`OrderedSet+Codable.swift` →
/// `Tests/…/OrderedSet Codable Tests.swift`), most shared words first, then shorter paths.
fn shares_name(s: &mut Signals, inp: &Inputs<'_>, focus: &str) {
    let words = analysis::name_words(focus);
    for (path, shared) in inp.symbols.paths_with_words(&words).into_iter().filter(|(p, _)| *p != focus && (inp.allowed)(p)).take(LIST_DEPTH) {
        let reason = format!("sharesName: {} (like {})", shared.join(", "), classify::file_name(focus));
        s.push(SignalKind::SharesName, SignalHit { path: path.to_string(), reason, relation: None });
    }
}

/// The relation fact of a co-change with `other` (counts are in the reason).
fn changed_with(other: &str) -> RelationFact {
    RelationFact { kind: RelationType::ChangedWith, dir: "out".into(), other: other.to_string(), line: None, symbol: None }
}

fn priority(kind: RelationType) -> u8 {
    match kind {
        RelationType::Documents => 0,
        RelationType::References => 1,
        RelationType::Imports => 2,
        RelationType::Tests => 3,
        _ => 4,
    }
}

fn cochange(s: &mut Signals, inp: &Inputs<'_>, focus: &str, others: &[&str]) {
    let Some(cc) = inp.cochange else { return };
    for (i, f) in std::iter::once(&focus).chain(others.iter()).enumerate() {
        // The focused file's partners first, then the other buffers', each best first.
        let limit = if i == 0 { LIST_DEPTH } else { 10 };
        for p in cc.partners(f, inp.allowed, limit) {
            s.push(SignalKind::CoChange, SignalHit { path: p.path, reason: format!("changedWith: {f} in {} of {} commits", p.together, p.of), relation: Some(changed_with(f)) });
        }
    }
}

fn relations_of(s: &mut Signals, inp: &Inputs<'_>, focus: &str) {
    // (exact anchor first, line, path): a stable order within each kind
    let mut edges: Vec<(bool, u32, String, String, SignalKind)> = Vec::new();
    for (e, other) in inp.graph.neighbours(focus) {
        if other == focus || !(inp.allowed)(other) {
            continue;
        }
        let kind = match e.kind {
            RelationType::Imports => SignalKind::Imports,
            RelationType::Tests => SignalKind::Tests,
            RelationType::Documents | RelationType::References => SignalKind::Documents,
            _ => continue,
        };
        edges.push((e.symbol.is_none(), e.line.unwrap_or(0), other.to_string(), relation_reason(e, other), kind));
    }
    edges.sort();
    for (_, _, path, reason, kind) in edges {
        s.push(kind, SignalHit { path, reason, relation: None });
    }
}

/// Files with their summed name weights and the first names that linked them, heaviest
/// first, ties by path: one order for the `declares` and `uses` lists.
fn heaviest_first(found: BTreeMap<String, (f32, Vec<String>)>) -> Vec<(String, Vec<String>)> {
    let mut list: Vec<(String, f32, Vec<String>)> = found.into_iter().map(|(p, (w, n))| (p, w, n)).collect();
    list.sort_by(|a, b| b.1.partial_cmp(&a.1).unwrap_or(std::cmp::Ordering::Equal).then(a.0.cmp(&b.0)));
    list.into_iter().map(|(p, _, n)| (p, n)).collect()
}

/// Adds `weight` to `path`'s tally, keeping the first four names that linked it.
fn credit(found: &mut BTreeMap<String, (f32, Vec<String>)>, path: String, weight: f32, name: &str) {
    let e = found.entry(path).or_default();
    e.0 += weight;
    if e.1.len() < 4 {
        e.1.push(name.to_string());
    }
}

/// The files declaring `names` (never `skip`, only allowed ones), each name weighing one
/// over the number of files declaring it, heaviest first: the `declares` and `named` lists.
fn declarers_of(inp: &Inputs<'_>, names: impl IntoIterator<Item = String>, skip: Option<&str>) -> Vec<(String, Vec<String>)> {
    let mut found: BTreeMap<String, (f32, Vec<String>)> = BTreeMap::new();
    for name in names {
        let files = inp.symbols.declarers(&name);
        let weight = 1.0 / files.len().max(1) as f32;
        for f in files {
            if Some(f) != skip && (inp.allowed)(f) {
                credit(&mut found, f.to_string(), weight, &name);
            }
        }
    }
    heaviest_first(found)
}

/// Files that declare identifiers the focus uses (and does not declare itself).
fn declares(s: &mut Signals, inp: &Inputs<'_>, focus: &Focus<'_>) {
    let own: HashSet<&str> = focus.declared.iter().map(String::as_str).collect();
    let used = crate::symbols::used_identifiers(focus.text, 4000).into_iter().filter(|name| !own.contains(name.as_str()));
    for (path, names) in declarers_of(inp, used, Some(focus.path)) {
        let relation = RelationFact { kind: RelationType::UsedBy, dir: "in".into(), other: focus.path.to_string(), line: None, symbol: names.first().cloned() };
        s.push(SignalKind::Declares, SignalHit { reason: format!("declares: {} (used in {})", names.join(", "), focus.path), path, relation: Some(relation) });
    }
}

/// Files that declare the identifiers a query names as code ("Add request to HTTPError" →
/// the file declaring `HTTPError`), a name declared by fewer files weighing more (as in
/// [`declares`]). Only names written as code count ([`analysis::code_names`]): with plain
/// words too (`search`, `binary`, which name functions in ripgrep) half the queries of some
/// repositories named something, mostly not what the commit changed.
fn named_in_query(s: &mut Signals, inp: &Inputs<'_>) {
    for (path, names) in declarers_of(inp, inp.code_names.iter().cloned(), None) {
        s.push(SignalKind::Named, SignalHit { reason: format!("declares: {} (named in the query)", names.join(", ")), path, relation: None });
    }
}

/// Files that use identifiers the focus declares (docs: mention them).
fn uses(s: &mut Signals, inp: &Inputs<'_>, focus: &Focus<'_>, files_with_term: &mut dyn FnMut(&str) -> Vec<String>) {
    let mut found: BTreeMap<String, (f32, Vec<String>)> = BTreeMap::new();
    for name in focus.declared.iter().take(MAX_FOCUS_NAMES) {
        // The index term of the whole identifier (the analyser's first term for it).
        let Some(term) = analysis::terms_of(name).into_iter().next() else { continue };
        let files = files_with_term(&term);
        if files.len() > MAX_USERS || files.is_empty() {
            continue;
        }
        let weight = 1.0 / (1.0 + files.len() as f32).ln().max(0.5);
        for f in files {
            if f == focus.path || !(inp.allowed)(&f) {
                continue;
            }
            credit(&mut found, f, weight, name);
        }
    }
    for (path, names) in heaviest_first(found) {
        let verb = if (inp.is_doc)(&path) { "mentions" } else { "uses" };
        let relation = RelationFact { kind: RelationType::Uses, dir: "out".into(), other: focus.path.to_string(), line: None, symbol: names.first().cloned() };
        s.push(SignalKind::Uses, SignalHit { reason: format!("{verb}: {} (declared in {})", names.join(", "), focus.path), path, relation: Some(relation) });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::classify::{Kind, Role};

    fn record(path: &str) -> FileRecord {
        FileRecord { path: path.into(), kind: Kind::Code, role: Role::Impl, title: String::new(), summary: String::new(), mtime_ms: 0, size: 0, hash: String::new(), head_end_line: 0, links: vec![], imports: vec![], skipped: None, decls: vec![], passages: 0 }
    }

    #[test]
    fn the_symbol_table_finds_declarers_and_drops_names_declared_everywhere() {
        let mut records: Vec<FileRecord> = (0..7).map(|i| record(&format!("src/f{i}.ts"))).collect();
        records[2].decls = vec!["parseConfig".into(), "parseConfig".into(), "init".into()];
        records[5].decls = vec!["parseConfig".into(), "init".into()];
        for r in records.iter_mut() {
            r.decls.push("init".into()); // seven files: too many to say which is meant
        }
        let refs: Vec<&FileRecord> = records.iter().collect();
        let table = SymbolTable::build(&refs);
        assert_eq!(table.declarers("parseConfig"), ["src/f2.ts", "src/f5.ts"]);
        assert!(table.declarers("init").is_empty());
        assert!(table.declarers("missing").is_empty());
        assert_eq!(table.in_folder("src").len(), 7);
    }

    #[test]
    fn named_lists_the_declarers_of_names_a_query_writes_as_code_rarest_first() {
        let mut records: Vec<FileRecord> = ["src/errors.ts", "src/ky.ts", "src/types/options.ts", "src/types/hooks.ts", "src/search.ts", "test/errors.ts"].iter().map(|p| record(p)).collect();
        records[0].decls = vec!["HTTPError".into(), "TimeoutError".into()];
        records[1].decls = vec!["beforeRetry".into()];
        records[2].decls = vec!["beforeRetry".into(), "NormalizedOptions".into()];
        records[3].decls = vec!["beforeRetry".into()];
        records[4].decls = vec!["search".into()];
        records[5].decls = vec!["TimeoutError".into()];
        let refs: Vec<&FileRecord> = records.iter().collect();
        let symbols = SymbolTable::build(&refs);
        let graph = RelationGraph::default();
        let allowed = |p: &str| p != "test/errors.ts";
        let is_doc = |_: &str| false;
        let named = |query: Option<&str>| -> Vec<(String, String)> {
            let code_names = query.map(crate::analysis::code_names).unwrap_or_default();
            let inputs = Inputs {
                focus: None,
                other_open: vec![],
                code_names: &code_names,
                lexical: vec![],
                terms: &[],
                path_words: &[],
                graph: &graph,
                cochange: None,
                symbols: &symbols,
                allowed: &allowed,
                is_doc: &is_doc,
            };
            collect(&inputs, &mut |_| Vec::new()).list(SignalKind::Named).iter().map(|h| (h.path.clone(), h.reason.clone())).collect()
        };
        let list = named(Some("Fix `search` of HTTPError, NormalizedOptions and beforeRetry; search HTTPError again"));
        // A name one file declares weighs 1, one of three files ⅓: options.ts holds one of
        // each; `search` counts between backticks, not as the plain word it also is.
        let paths: Vec<&str> = list.iter().map(|(p, _)| p.as_str()).collect();
        assert_eq!(paths, ["src/types/options.ts", "src/errors.ts", "src/search.ts", "src/ky.ts", "src/types/hooks.ts"]);
        assert_eq!(list[0].1, "declares: NormalizedOptions, beforeRetry (named in the query)");
        assert_eq!(list[1].1, "declares: HTTPError (named in the query)");
        // Plain words name nothing; a file that may not be listed is never listed; an
        // open-buffer task (no query) has no list.
        assert!(named(Some("Fix search of timeouts")).is_empty());
        assert_eq!(named(Some("TimeoutError")).iter().map(|(p, _)| p.as_str()).collect::<Vec<_>>(), ["src/errors.ts"]);
        assert!(named(None).is_empty());
        // Retrieval, not a relation: it never lifts a file into supporting on its own.
        assert!(!SignalKind::Named.is_relation());
    }

    /// The signals of a task over `paths` (no history, no graph), one of them not listable.
    fn signals_over(paths: &[&str], focus: Option<&str>, words: &[String], not_allowed: &str) -> Signals {
        let records: Vec<FileRecord> = paths.iter().map(|p| record(p)).collect();
        let refs: Vec<&FileRecord> = records.iter().collect();
        let symbols = SymbolTable::build(&refs);
        let graph = RelationGraph::default();
        let allowed = |p: &str| p != not_allowed;
        let is_doc = |_: &str| false;
        let inputs = Inputs {
            focus: focus.map(|path| Focus { path, text: "", declared: &[] }),
            other_open: vec![],
            code_names: &[],
            lexical: vec![],
            terms: &[],
            path_words: words,
            graph: &graph,
            cochange: None,
            symbols: &symbols,
            allowed: &allowed,
            is_doc: &is_doc,
        };
        collect(&inputs, &mut |_| Vec::new())
    }

    #[test]
    fn in_path_lists_files_spelling_most_query_words_first_then_shorter_paths() {
        let paths = ["src/retry.ts", "src/retry/backoff.ts", "src/retry/backoff/policy.ts", "docs/Retry-Backoff.md", "src/hooks.ts", "src/retry.test.ts", "src/client.ts", "src/errors.ts", "README.md", "package.json"];
        let words = crate::analysis::path_words("Fix retry backoff in src");
        let s = signals_over(&paths, None, &words, "src/retry.test.ts");
        let list: Vec<&str> = s.list(SignalKind::InPath).iter().map(|h| h.path.as_str()).collect();
        // Two words (case folded) before one; shorter paths first; unmatched and
        // not-allowed files never; `src`, in 8 of the 10 paths, counts for none.
        assert_eq!(list, ["src/retry/backoff.ts", "docs/Retry-Backoff.md", "src/retry/backoff/policy.ts", "src/retry.ts"]);
        assert_eq!(s.list(SignalKind::InPath)[0].reason, "pathWords: retry, backoff");
        // Without words (an open-buffer task) there is no list.
        assert!(signals_over(&paths, None, &[], "").list(SignalKind::InPath).is_empty());
    }

    #[test]
    fn shares_name_lists_files_anywhere_whose_path_spells_the_focused_name() {
        let paths = ["Sources/OrderedSet/OrderedSet+Codable.swift", "Sources/OrderedSet/OrderedSet.swift", "Sources/OrderedDictionary/OrderedDictionary+Codable.swift", "Tests/OrderedSet Codable Tests.swift", "Documentation/OrderedSet.md", "Sources/Heap/Heap.swift", "Sources/Deque/Deque.swift", "Sources/Deque/Deque+Codable.swift", "Package.swift", "README.md", "Sources/Heap/Heap+Codable.swift"];
        let s = signals_over(&paths, Some("Sources/OrderedSet/OrderedSet+Codable.swift"), &[], "Sources/Heap/Heap+Codable.swift");
        let list: Vec<&str> = s.list(SignalKind::SharesName).iter().map(|h| h.path.as_str()).collect();
        // Both words first (its test, in another folder), then one word, shorter paths
        // first; never the focused file itself or a file that may not be listed.
        assert_eq!(list, ["Tests/OrderedSet Codable Tests.swift", "Documentation/OrderedSet.md", "Sources/Deque/Deque+Codable.swift", "Sources/OrderedSet/OrderedSet.swift", "Sources/OrderedDictionary/OrderedDictionary+Codable.swift"]);
        assert_eq!(s.list(SignalKind::SharesName)[0].reason, "sharesName: orderedset, codable (like OrderedSet+Codable.swift)");
    }

    #[test]
    fn same_folder_lists_files_sharing_the_name_stem_first_and_never_the_anchor() {
        let paths = ["Sources/A/OrderedSet.swift", "Sources/A/Heap.swift", "Sources/A/OrderedSet+Hashable.swift", "Sources/A/Deque.swift", "Sources/B/OrderedSet+Codable.swift"];
        let s = signals_over(&paths, Some("Sources/A/OrderedSet.swift"), &[], "Sources/A/Heap.swift");
        let list: Vec<&str> = s.list(SignalKind::SameFolder).iter().map(|h| h.path.as_str()).collect();
        // Stem first; another folder's file and a file that may not be listed never appear.
        assert_eq!(list, ["Sources/A/OrderedSet+Hashable.swift", "Sources/A/Deque.swift"]);
        assert!(s.list(SignalKind::SameFolder)[0].reason.contains("shares the name \"OrderedSet\""), "{:?}", s.list(SignalKind::SameFolder)[0]);
    }
}
