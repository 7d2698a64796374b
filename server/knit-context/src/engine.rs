//! `ContextEngine`: the one object the CLI and the language server hold per workspace. It
//! keeps the index fresh (full scan on open and when stale, single-file updates on change
//! notifications), turns a request into a task, ranks, assembles tiers and dresses the
//! result in the wire shape. Corrupt or outdated indexes are rebuilt, never fatal.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use anyhow::{anyhow, Result};
use percent_encoding::percent_decode_str;
use rayon::prelude::*;

use crate::classify::{self, file_name, Kind};
use crate::control::{ControlState, EpochState, ReadState};
use crate::cochange::CoChange;
use crate::fsio::{self, ReadOutcome, WalkedFile};
use crate::fusion::{self, FusionWeights};
use crate::signals::{self, SymbolTable};
use knit_workspace::{History, HistoryLimits};
use knit_workspace::files::Confined;
use crate::index::{self, FileRecord, PreparedFile, SkipReason, WorkspaceIndex};
use crate::markdown;
use crate::passages::{self, PassageDetail};
use crate::relations::{self, ImportExtractor, RelationGraph};
use crate::task::{self, OpenBuffer, SelectedTerm, TaskInput};
use crate::tiers::{self, Hit, Placement, Tier, TierRules};
use crate::wire::{AnchorCounts, Degraded, Item, PackParams, PackResult, PassageOut, Provenance, QueryParam, RelationFact, Stats, TaskInfo};

/// Anchor freshness per document, supplied by the caller (the anchor engine).
pub trait AnchorFacts {
    /// `{total, stale, lost}` for the anchors written in `doc_path`, or `None` when unknown.
    fn anchor_counts(&self, doc_path: &str) -> Option<AnchorCounts>;
}

/// For callers without an anchor engine: items carry no `anchors` field.
pub struct NoAnchorFacts;

impl AnchorFacts for NoAnchorFacts {
    fn anchor_counts(&self, _doc_path: &str) -> Option<AnchorCounts> {
        None
    }
}

#[derive(Debug, Clone)]
pub struct EngineOptions {
    /// Base cache folder (default `$KNIT_CACHE_DIR` or the platform cache dir + `knit`).
    pub cache_dir: Option<PathBuf>,
    /// Base state folder (default `$KNIT_STATE_DIR` or the platform state dir + `knit`).
    pub state_dir: Option<PathBuf>,
    /// Import extraction, by default from the syntax tree (`knit_syntax::imports`);
    /// `None` = no `imports` relations.
    pub import_extractor: Option<ImportExtractor>,
    /// A pack rescans the workspace when the last scan is older than this; `None` = only on
    /// open and through `file_changed` / `file_removed` / `refresh`.
    pub rescan_interval: Option<Duration>,
    /// Indexing threads (tantivy writer and file preparation).
    pub index_threads: usize,
    pub max_file_bytes: u64,
    /// The rank-fusion weights (frozen defaults; evaluations may override them).
    pub fusion: FusionWeights,
    /// How much git history the co-change signal reads; `None` turns it off.
    pub history: Option<HistoryLimits>,
}

impl Default for EngineOptions {
    fn default() -> Self {
        EngineOptions {
            cache_dir: None,
            state_dir: None,
            import_extractor: Some(relations::syntax_imports),
            rescan_interval: Some(Duration::from_secs(30)),
            index_threads: std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1).min(4),
            max_file_bytes: fsio::MAX_FILE_BYTES,
            fusion: FusionWeights::default(),
            history: Some(HistoryLimits::default()),
        }
    }
}

/// What the index holds, for status lines and the CLI.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct IndexStats {
    pub docs: usize,
    pub code: usize,
    pub media: usize,
    pub skipped_huge: usize,
    pub skipped_binary: usize,
    pub skipped_non_utf8: usize,
    /// Bytes of the docs and code files indexed (their text, as read).
    pub text_bytes: u64,
    /// True when the index was (re)built from scratch by this process.
    pub rebuilt: bool,
}

/// Result of one refresh.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RefreshReport {
    pub updated: usize,
    pub removed: usize,
    /// False when another process held the index writer; the committed index was used.
    pub written: bool,
}

/// One ranked hit (see [`ContextEngine::ranking`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RankedFile {
    pub path: String,
    pub tied: bool,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ranking {
    pub terms: Vec<String>,
    pub files: Vec<RankedFile>,
}

struct Retrieval {
    limit: usize,
    buffers: Vec<OpenBuffer>,
    open_paths: Vec<String>,
    focused: Option<String>,
    open_set: HashSet<String>,
    pinned_set: HashSet<String>,
    source: &'static str,
    text: Option<String>,
    eligible: Vec<bool>,
    collected: usize,
    excluded: usize,
    terms: Vec<SelectedTerm>,
    /// An open-buffer pack's passage terms, when a buffer has a cursor or recent edits
    /// (the words near them decide, see [`task::PASSAGE_NEAR`]).
    passage_terms: Option<Vec<SelectedTerm>>,
    weighted: Vec<(String, f32)>,
    degraded_by_terms: bool,
    scores: index::FileScores,
    ranked: Vec<u32>,
}

pub struct ContextEngine {
    root: PathBuf,
    /// Every read of the workspace goes through here (confined to `root`).
    files: Confined,
    options: EngineOptions,
    index_dir: PathBuf,
    state_dir: PathBuf,
    index: WorkspaceIndex,
    control: ControlState,
    reads: ReadState,
    epochs: EpochState,
    graph: Option<RelationGraph>,
    /// Who declares which names; rebuilt with the graph.
    symbol_table: Option<SymbolTable>,
    /// The co-change table of the workspace's git history (`None`: no usable history,
    /// see `history_note`).
    cochange: Option<CoChange>,
    /// Why co-change is missing or partial (reported in `degraded`).
    history_note: Option<String>,
    /// Focused files' exact declared names, by path and content hash: one parse per
    /// content, and switching back to a tab parses nothing (emptied at [`FOCUS_DECLS_KEPT`]).
    focus_decls: HashMap<(String, String), Vec<String>>,
    /// Passage cuts of the files packs have scored, by content (see [`PassageCuts`]).
    passage_cuts: PassageCuts,
    /// The evidence lists behind the last pack (for evaluations and debugging).
    last_evidence: Option<signals::Evidence>,
    last_scan: Option<Instant>,
    rebuilt: bool,
    /// The private folder the index lives in when the cache folder was unusable (removed
    /// when the engine is dropped).
    #[allow(dead_code)]
    temp_index: Option<knit_workspace::files::TempDir>,
    /// Why the cache folder could not be used, reported in every pack's `degraded`.
    cache_problem: Option<String>,
}

/// What scoring a pack's passages needs, borrowed from the engine's parts (not the engine:
/// the pack's closures hold the index while it scores): each file is read once — an open
/// buffer's text, else the file — cut once per content and scored against the task's
/// weighted terms.
struct PassageScoring<'a> {
    index: &'a WorkspaceIndex,
    files: &'a Confined,
    max_file_bytes: u64,
    buffers: &'a [OpenBuffer],
    weighted: &'a [(String, f32)],
    stats: passages::PassageStats,
}

/// A file's text as one pack read it (its open buffer first, else the disk), with its
/// passage cut: the ranking's passages and the cursor's passages of the same pack share
/// both (one read, one content hash).
struct PackText {
    text: String,
    cut: std::sync::Arc<passages::PassageCut>,
}

impl PassageScoring<'_> {
    /// Scores the files at `slots` that have no detail yet, into `details`; each file's
    /// text is read and cut once into `texts` (a second scoring of the same pack reuses it).
    fn score(&self, slots: &[u32], cuts: &mut PassageCuts, details: &mut HashMap<u32, PassageDetail>, texts: &mut HashMap<u32, PackText>) {
        for &slot in slots {
            let Some(record) = self.index.record(slot) else { continue };
            if details.contains_key(&slot) || record.kind == Kind::Media {
                continue;
            }
            let known = match texts.entry(slot) {
                std::collections::hash_map::Entry::Occupied(known) => known.into_mut(),
                std::collections::hash_map::Entry::Vacant(room) => {
                    let text = match self.buffers.iter().find(|b| b.path == record.path) {
                        Some(b) => b.text.clone(),
                        None => match fsio::read_text(self.files, &record.path, self.max_file_bytes) {
                            ReadOutcome::Text(t) => t,
                            _ => continue,
                        },
                    };
                    let cut = cuts.get(&text, record.kind, record.head_end_line);
                    room.insert(PackText { text, cut })
                }
            };
            let (text, cut): (&str, &passages::PassageCut) = (&known.text, &known.cut);
            let mut detail = passages::best_passages_of(text, cut, self.weighted, &self.stats);
            // A changelog grows at its top: the change being worked on lands in its newest
            // release, not in the older entry that shares most words with the task.
            if record.kind == Kind::Doc && passages::is_changelog(&record.path) {
                if let Some((start, end)) = cut.newest_release(text) {
                    detail.best = Some((start, end));
                    detail.best_terms = passages::held_terms(&passages::lines_text(text, start, end), self.weighted);
                }
            }
            details.insert(slot, detail);
        }
    }
}

/// Where each file a pack scored splits into passages and, once scored, each passage's
/// terms, by content hash, kind and head: the same popular files are candidates of most
/// packs, and cutting them (a declaration scan of every line, then its line starts) and
/// tokenizing their passages was most of an open-buffer pack. Bounded by
/// [`PassageCuts::MAX_FILES`] and [`PassageCuts::MAX_BYTES`]: past either it is emptied,
/// so it never grows with time.
#[derive(Default)]
struct PassageCuts {
    by_content: HashMap<(String, Kind, u32), std::sync::Arc<passages::PassageCut>>,
    /// Look-ups since the byte budget was last checked.
    since_check: usize,
}

impl PassageCuts {
    const MAX_FILES: usize = 4096;
    const MAX_BYTES: usize = 48 << 20;

    fn get(&mut self, text: &str, kind: Kind, head_end_line: u32) -> std::sync::Arc<passages::PassageCut> {
        // the terms of a cut fill in as packs score it, so the budget is checked now and then
        self.since_check += 1;
        if self.since_check >= 64 {
            self.since_check = 0;
            if self.heap_bytes() > Self::MAX_BYTES {
                self.by_content.clear();
            }
        }
        let key = (fsio::content_hash(text), kind, head_end_line);
        if let Some(cuts) = self.by_content.get(&key) {
            return cuts.clone();
        }
        make_room(&mut self.by_content, Self::MAX_FILES);
        let cuts = std::sync::Arc::new(passages::PassageCut::new(text, kind, head_end_line));
        self.by_content.insert(key, cuts.clone());
        cuts
    }

    fn heap_bytes(&self) -> usize {
        self.by_content.iter().map(|((hash, _, _), cut)| hash.len() + cut.heap_bytes()).sum()
    }
}

/// Focused contents whose declared names are kept (a parse each otherwise).
const FOCUS_DECLS_KEPT: usize = 64;

/// Before one more entry goes into a by-content keeper: empties it when it holds `max`.
/// Emptying, not evicting one by one: what packs use comes back within a pack or two, and
/// the keeper stays a plain map.
fn make_room<K, V>(keeper: &mut HashMap<K, V>, max: usize) {
    if keeper.len() >= max {
        keeper.clear();
    }
}

/// Lexical hits considered for fusion and tiers (beyond the pack's limit: a hit ranked
/// 30th by words may be first by co-change).
const LEXICAL_DEPTH: usize = 40;

/// Files prepared (read and analysed) at a time during a scan: bounds peak memory.
const PREPARE_BATCH: usize = 256;

/// The co-change history's cache file, beside the index. Its version moves whenever the
/// stored form changes meaning (v3: older commits' paths under their newest names), so a
/// cache from an older knit is never read as if it were current; older files are removed.
const HISTORY_CACHE: &str = "history-v3.bin";
const OLD_HISTORY_CACHES: [&str; 2] = ["history-v1.bin", "history-v2.bin"];

fn now_ms() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_millis() as u64).unwrap_or(0)
}


fn parent_dir(path: &str) -> &str {
    path.rfind('/').map(|i| &path[..i]).unwrap_or("")
}

enum Prepared {
    File(Box<PreparedFile>),
    Skipped(FileRecord),
    Gone,
}

/// Reads and analyses one file (or the given text) into what the index stores.
fn prepare(walked: &WalkedFile, files: &Confined, text_override: Option<&str>, extractor: Option<ImportExtractor>, max_bytes: u64) -> Prepared {
    let rel = &walked.rel;
    let name = file_name(rel).to_string();
    let dir = parent_dir(rel).to_string();
    let role = classify::role_of(rel, walked.kind);
    let base = FileRecord {
        path: rel.clone(),
        kind: walked.kind,
        role,
        title: name.clone(),
        summary: String::new(),
        mtime_ms: walked.mtime_ms,
        size: walked.size,
        hash: format!("{}:{}", walked.size, walked.mtime_ms),
        head_end_line: 0,
        links: Vec::new(),
        imports: Vec::new(),
        skipped: None,
        decls: Vec::new(),
        passages: 0,
    };
    if walked.kind == Kind::Media {
        return Prepared::File(Box::new(PreparedFile { record: base, title_text: name, summary_text: dir, body_text: String::new() }));
    }
    let outcome = match text_override {
        Some(text) => fsio::classify_bytes(text.as_bytes().to_vec(), max_bytes),
        None => fsio::read_text(files, rel, max_bytes),
    };
    let text = match outcome {
        ReadOutcome::Text(text) => text,
        ReadOutcome::Missing => return Prepared::Gone,
        other => {
            let reason = match other {
                ReadOutcome::Huge => SkipReason::Huge,
                ReadOutcome::Binary => SkipReason::Binary,
                _ => SkipReason::NotUtf8,
            };
            return Prepared::Skipped(FileRecord { skipped: Some(reason), ..base });
        }
    };
    let mut record = FileRecord { hash: fsio::content_hash(&text), ..base };
    let (title_text, summary_text, passage_count) = if walked.kind == Kind::Doc {
        let stem = name.rsplit_once('.').map(|(s, _)| s).unwrap_or(&name);
        let head = markdown::doc_head(&text, stem);
        if classify::is_markdown(rel) {
            record.links = markdown::link_refs(&knit_anchors::markdown::scan(&text));
        }
        record.title = head.title.clone();
        record.summary = head.summary.clone();
        record.head_end_line = head.head_end_line;
        (head.title, head.summary, passages::split(&text, Kind::Doc, head.head_end_line).len())
    } else {
        let head = markdown::code_head(&text, &name);
        record.summary = head.summary;
        if let Some(extract) = extractor {
            record.imports = relations::relative_imports(extract, rel, &text);
        }
        let declarations = crate::symbols::declarations(&text);
        record.decls = crate::symbols::names_of(&declarations);
        let declaration_lines: Vec<usize> = declarations.iter().map(|&(line, _)| line).collect();
        (name.clone(), dir, passages::split_at(&text, Kind::Code, 0, &declaration_lines).len())
    };
    record.passages = passage_count as u32;
    Prepared::File(Box::new(PreparedFile { record, title_text, summary_text, body_text: text }))
}

/// Adds one more reason a pack is weaker than usual: the first reason keeps the code,
/// every detail is kept.
fn add_degradation(current: Option<Degraded>, reason: &str, detail: &str) -> Degraded {
    match current {
        None => Degraded { reason: reason.to_string(), detail: detail.to_string() },
        Some(d) => Degraded { reason: d.reason, detail: format!("{}; {detail}", d.detail) },
    }
}

/// A ≤ 200-char excerpt of `text` that starts a little before the first task term.
pub fn snippet(text: &str, terms: &[String]) -> String {
    const MAX: usize = 200;
    const LEAD: usize = 40;
    let flat: Vec<char> = text.split_whitespace().collect::<Vec<_>>().join(" ").chars().collect();
    if flat.len() <= MAX {
        return flat.into_iter().collect();
    }
    let lower: String = flat.iter().collect::<String>().to_lowercase();
    let lower_chars: Vec<char> = lower.chars().collect();
    let first_hit = terms
        .iter()
        .filter_map(|t| {
            let needle: Vec<char> = t.chars().collect();
            if needle.is_empty() || lower_chars.len() != flat.len() {
                return None;
            }
            lower_chars.windows(needle.len()).position(|w| w == needle.as_slice())
        })
        .min()
        .unwrap_or(0);
    let start = first_hit.saturating_sub(LEAD).min(flat.len().saturating_sub(MAX - 2));
    let lead = if start > 0 { "…" } else { "" };
    let budget = MAX - lead.chars().count();
    let end = (start + budget).min(flat.len());
    let tail = if end < flat.len() { "…" } else { "" };
    let end = if tail.is_empty() { end } else { end - 1 };
    format!("{lead}{}{tail}", flat[start..end].iter().collect::<String>())
}

impl ContextEngine {
    /// Opens (or builds) the index for `root`. The first pack scans the workspace.
    pub fn open(root: &Path, options: EngineOptions) -> Result<Self> {
        let root = knit_workspace::files::canonical_dir(root).map_err(|e| anyhow!("workspace root {}: {e}", root.display()))?;
        let key = fsio::workspace_key(&root);
        let cache_base = options.cache_dir.clone().unwrap_or_else(fsio::default_cache_base);
        let state_base = options.state_dir.clone().unwrap_or_else(fsio::default_state_base);
        let index_dir = cache_base.join(&key).join(format!("index-v{}", index::INDEX_VERSION));
        let state_dir = state_base.join(&key);
        // An unusable cache folder (read-only, full, a file where a folder should be) must
        // not stop the pack: index in a private temporary folder and say so.
        let (index, rebuilt, index_dir, temp_index, cache_problem) = match WorkspaceIndex::open_or_rebuild(&index_dir, options.import_extractor.is_some()) {
            Ok((index, rebuilt)) => (index, rebuilt, index_dir, None, None),
            Err(e) => {
                let temp = knit_workspace::files::own_temp_dir().map_err(|t| anyhow!("the index cache {} is unusable ({e:#}) and no temporary folder could be made: {t}", index_dir.display()))?;
                let dir = temp.path().join("index");
                let (index, _) = WorkspaceIndex::open_or_rebuild(&dir, options.import_extractor.is_some())?;
                let problem = format!("the index cache {} is unusable ({e:#}); this session indexes in a temporary folder, so the first pack is slower", index_dir.display());
                (index, true, dir, Some(temp), Some(problem))
            }
        };
        Ok(ContextEngine {
            temp_index,
            cache_problem,
            control: fsio::read_json(&state_dir.join("control.json")),
            reads: fsio::read_json(&state_dir.join("reads.json")),
            epochs: fsio::read_json(&state_dir.join("session.json")),
            files: Confined::new_unchecked(&root),
            root,
            options,
            index_dir,
            state_dir,
            index,
            graph: None,
            symbol_table: None,
            cochange: None,
            history_note: None,
            focus_decls: HashMap::new(),
            passage_cuts: PassageCuts::default(),
            last_evidence: None,
            last_scan: None,
            rebuilt,
        })
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    pub fn index_dir(&self) -> &Path {
        &self.index_dir
    }

    pub fn state_dir(&self) -> &Path {
        &self.state_dir
    }

    /// Brings the co-change table up to the repository's HEAD: from the cached history
    /// when there is one (only new commits are read), else from scratch. A folder
    /// without git, or an unreadable repository, leaves co-change off and says why.
    fn update_history(&mut self) {
        let Some(limits) = self.options.history else {
            self.cochange = None;
            self.history_note = None;
            return;
        };
        let cache = self.index_dir.with_file_name(HISTORY_CACHE);
        for old in OLD_HISTORY_CACHES {
            // Best effort: a leftover older cache is only wasted space.
            let _ = fsio::remove_own_file(&self.index_dir.with_file_name(old));
        }
        let previous = match self.cochange.take() {
            Some(cc) => Some(cc.into_history()),
            None => History::load(&cache),
        };
        let read = match previous {
            Some(h) => h.update(&self.root, limits),
            None => History::read(&self.root, limits),
        };
        match read {
            Ok(h) => {
                h.save(&cache);
                self.history_note = if h.shallow {
                    Some(format!("shallow clone: co-change uses the {} commits available", h.walked))
                } else if h.head.is_none() {
                    Some("the repository has no commits yet: no co-change".to_string())
                } else {
                    None
                };
                self.cochange = Some(CoChange::new(h));
            }
            Err(e) => {
                self.cochange = None;
                self.history_note = Some(format!("no git history ({e}): co-change not used"));
            }
        }
    }

    /// The evidence lists (one per signal, best first) behind the last pack: what the
    /// fusion weighed. Evaluations fit the fusion weights from these.
    pub fn last_evidence(&self) -> Option<&signals::Evidence> {
        self.last_evidence.as_ref()
    }

    /// The focused file's exact declared names, parsed once per content.
    fn focus_declarations(&mut self, path: &str, text: &str) -> Vec<String> {
        let key = (path.to_string(), fsio::content_hash(text));
        if let Some(names) = self.focus_decls.get(&key) {
            return names.clone();
        }
        make_room(&mut self.focus_decls, FOCUS_DECLS_KEPT);
        let names = crate::symbols::exact_declared_names(path, text);
        self.focus_decls.insert(key, names.clone());
        names
    }

    /// Drops the index and builds it again from the workspace.
    fn rebuild(&mut self) -> Result<()> {
        self.index.release_writer();
        fsio::remove_dir_all_if_exists(&self.index_dir)?;
        let (index, _) = WorkspaceIndex::open_or_rebuild(&self.index_dir, self.options.import_extractor.is_some())?;
        self.index = index;
        self.graph = None;
        self.symbol_table = None;
        self.rebuilt = true;
        self.scan_and_apply()?;
        Ok(())
    }

    /// Runs `f`; on an index error rebuilds once and retries (a corrupt index is never fatal).
    fn with_recovery<T>(&mut self, f: impl Fn(&mut Self) -> Result<T>) -> Result<T> {
        match f(self) {
            Ok(v) => Ok(v),
            Err(_) => {
                self.rebuild()?;
                f(self)
            }
        }
    }

    /// Full scan: index new and changed files (mtime + size, then content hash), drop removed.
    pub fn refresh(&mut self) -> Result<RefreshReport> {
        self.with_recovery(|engine| engine.scan_and_apply())
    }

    fn scan_and_apply(&mut self) -> Result<RefreshReport> {
        self.index.sync_with_disk()?;
        let walked = fsio::walk_workspace(&self.files);
        let seen: HashSet<&str> = walked.iter().map(|w| w.rel.as_str()).collect();
        let removals: Vec<String> = self.index.records().filter(|(_, r)| !seen.contains(r.path.as_str())).map(|(_, r)| r.path.clone()).collect();
        let changed: Vec<&WalkedFile> = walked
            .iter()
            .filter(|w| match self.index.slot_of(&w.rel).and_then(|s| self.index.record(s)) {
                Some(r) => r.mtime_ms != w.mtime_ms || r.size != w.size || r.kind != w.kind,
                None => true,
            })
            .collect();
        let files = self.files.clone();
        let extractor = self.options.import_extractor;
        let max_bytes = self.options.max_file_bytes;
        let threads = self.options.index_threads.max(1);
        // One thread prepares on the calling thread: a pool of one only adds a thread to
        // start and stop per refresh (whose exit can outlive the refresh).
        let pool = if threads > 1 { rayon::ThreadPoolBuilder::new().num_threads(threads).build().ok() } else { None };
        // prepare and stage in batches so memory stays bounded on a cold index
        let mut report = RefreshReport { updated: 0, removed: 0, written: true };
        for batch in changed.chunks(PREPARE_BATCH) {
            let prepare_batch = || batch.par_iter().map(|w| prepare(w, &files, None, extractor, max_bytes)).collect::<Vec<_>>();
            let prepared: Vec<Prepared> = match &pool {
                Some(pool) => pool.install(prepare_batch),
                None => batch.iter().map(|w| prepare(w, &files, None, extractor, max_bytes)).collect(),
            };
            let staged = self.stage_prepared(prepared, Vec::new())?;
            report.updated += staged.updated;
            report.written &= staged.written;
        }
        let staged = self.stage_prepared(Vec::new(), removals)?;
        report.removed = staged.removed;
        report.written &= staged.written;
        self.index.commit()?;
        if report.updated + report.removed > 0 && report.written {
            self.graph = None;
            self.symbol_table = None;
        }
        self.last_scan = Some(Instant::now());
        self.update_history();
        Ok(report)
    }

    fn stage_prepared(&mut self, prepared: Vec<Prepared>, mut removals: Vec<String>) -> Result<RefreshReport> {
        let mut upserts = Vec::new();
        let mut skipped = Vec::new();
        for p in prepared {
            match p {
                Prepared::File(f) => upserts.push(*f),
                Prepared::Skipped(r) => skipped.push(r),
                Prepared::Gone => {}
            }
        }
        // unchanged content (only the mtime moved) still rewrites the record: cheap and simple
        let updated = upserts.len() + skipped.len();
        removals.retain(|p| self.index.slot_of(p).is_some());
        let removed = removals.len();
        let written = self.index.stage(upserts, skipped, removals, self.options.index_threads)?;
        Ok(RefreshReport { updated, removed, written })
    }

    fn apply_prepared(&mut self, prepared: Vec<Prepared>, removals: Vec<String>) -> Result<RefreshReport> {
        let report = self.stage_prepared(prepared, removals)?;
        self.index.commit()?;
        if report.updated + report.removed > 0 && report.written {
            self.graph = None;
            self.symbol_table = None;
        }
        Ok(report)
    }

    /// Normalises a path, `file://` URI or workspace-relative path to a workspace-relative
    /// `/` path; `None` when it is outside the workspace.
    pub fn relative(&self, path_or_uri: &str) -> Option<String> {
        let raw = if let Some(rest) = path_or_uri.strip_prefix("file://") {
            percent_decode_str(rest).decode_utf8().ok()?.to_string()
        } else {
            path_or_uri.to_string()
        };
        let path = Path::new(&raw);
        if path.is_absolute() {
            // Lexically first; then the real path, for clients that name the root through
            // a symlink. Reads stay confined whatever this returns.
            fsio::relative_path(&self.root, path).or_else(|| fsio::relative_path(&self.root, &knit_workspace::files::canonical_or_self(path)))
        } else {
            relations::join_normalized("", &raw.replace('\\', "/"))
        }
    }

    /// The LSP calls this on save / watched-file change (and may pass the buffer text).
    pub fn file_changed(&mut self, path: &str) -> Result<RefreshReport> {
        let Some(rel) = self.relative(path) else { return Ok(RefreshReport::default()) };
        self.with_recovery(|engine| {
            let Some(walked) = fsio::stat_file(&engine.files, &rel) else {
                return engine.apply_prepared(Vec::new(), vec![rel.clone()]);
            };
            let prepared = prepare(&walked, &engine.files, None, engine.options.import_extractor, engine.options.max_file_bytes);
            engine.apply_prepared(vec![prepared], Vec::new())
        })
    }

    pub fn file_removed(&mut self, path: &str) -> Result<RefreshReport> {
        let Some(rel) = self.relative(path) else { return Ok(RefreshReport::default()) };
        self.with_recovery(|engine| engine.apply_prepared(Vec::new(), vec![rel.clone()]))
    }

    pub fn index_stats(&self) -> IndexStats {
        let mut stats = IndexStats { rebuilt: self.rebuilt, ..Default::default() };
        for (_, record) in self.index.records() {
            match (record.skipped, record.kind) {
                (Some(SkipReason::Huge), _) => stats.skipped_huge += 1,
                (Some(SkipReason::Binary), _) => stats.skipped_binary += 1,
                (Some(SkipReason::NotUtf8), _) => stats.skipped_non_utf8 += 1,
                (None, Kind::Doc) => stats.docs += 1,
                (None, Kind::Code) => stats.code += 1,
                (None, Kind::Media) => stats.media += 1,
            }
            if record.skipped.is_none() && record.kind != Kind::Media {
                stats.text_bytes += record.size;
            }
        }
        stats
    }

    fn save_control(&self) -> Result<()> {
        fsio::write_json(&self.state_dir.join("control.json"), &self.control)
    }

    pub fn pinned(&self) -> Vec<String> {
        self.control.pinned.iter().map(|r| r.path.clone()).collect()
    }

    pub fn excluded(&self) -> Vec<String> {
        self.control.excluded.iter().map(|r| r.path.clone()).collect()
    }

    fn control_change(&mut self, path: &str, change: impl FnOnce(&mut ControlState, &str, u64) -> bool) -> Result<bool> {
        let rel = self.relative(path).ok_or_else(|| anyhow!("{path} is outside the workspace"))?;
        let changed = change(&mut self.control, &rel, now_ms());
        if changed {
            self.save_control()?;
        }
        Ok(changed)
    }

    pub fn pin(&mut self, path: &str) -> Result<bool> {
        self.control_change(path, |c, p, now| c.pin(p, now))
    }

    pub fn unpin(&mut self, path: &str) -> Result<bool> {
        self.control_change(path, |c, p, _| c.unpin(p))
    }

    pub fn exclude(&mut self, path: &str) -> Result<bool> {
        self.control_change(path, |c, p, now| c.exclude(p, now))
    }

    pub fn restore(&mut self, path: &str) -> Result<bool> {
        self.control_change(path, |c, p, _| c.restore(p))
    }

    /// Read evidence (`knit/didRead` from agents). The content hash read now is remembered.
    pub fn did_read(&mut self, path: &str) -> Result<()> {
        self.did_read_many(&[path]).map(|_| ())
    }

    /// Read evidence for several files, saved once (one fsync, however many paths).
    /// Each path must name a regular file inside the workspace: a symlink out of the
    /// root, a FIFO or a device is refused before anything is read from it. Returns the
    /// workspace-relative paths marked.
    pub fn did_read_many(&mut self, paths: &[&str]) -> Result<Vec<String>> {
        let mut marked = Vec::with_capacity(paths.len());
        let now = now_ms();
        for path in paths {
            let rel = self.relative(path).ok_or_else(|| anyhow!("{path} is outside the workspace"))?;
            let Some(hash) = fsio::hash_file(&self.files, &rel) else {
                return Err(anyhow!("{path} is not a readable file inside the workspace"));
            };
            marked.push((rel, hash));
        }
        for (rel, hash) in &marked {
            self.reads.record_read(rel, hash, now);
        }
        fsio::write_json(&self.state_dir.join("reads.json"), &self.reads)?;
        Ok(marked.into_iter().map(|(rel, _)| rel).collect())
    }

    /// Read evidence from an editor `didOpen`, with the text the editor shows.
    pub fn did_open(&mut self, path: &str, text: Option<&str>) -> Result<()> {
        let rel = self.relative(path).ok_or_else(|| anyhow!("{path} is outside the workspace"))?;
        let hash = match text {
            Some(t) => Some(fsio::content_hash(t)),
            None => fsio::hash_file(&self.files, &rel),
        };
        let Some(hash) = hash else { return Ok(()) };
        self.reads.record_read(&rel, &hash, now_ms());
        fsio::write_json(&self.state_dir.join("reads.json"), &self.reads)
    }

    /// Builds a context pack. `input` carries open buffers; `anchors` the docs' anchor facts.
    pub fn pack(&mut self, params: &PackParams, input: &TaskInput, anchors: &dyn AnchorFacts) -> Result<PackResult> {
        let due = match (self.last_scan, self.options.rescan_interval) {
            (None, _) => true,
            (Some(at), Some(interval)) => at.elapsed() >= interval,
            (Some(_), None) => false,
        };
        if due {
            self.refresh()?;
        }
        self.with_recovery(|engine| {
            engine.index.sync_with_disk()?;
            engine.pack_now(params, input, anchors)
        })
    }

    /// The retrieval half of a pack: buffers, task, pool, terms and the ranked hits.
    fn retrieve(&self, params: &PackParams, input: &TaskInput) -> Result<Retrieval> {
        let limit = params.limit.unwrap_or(20).clamp(1, 200);
        let kinds: Option<HashSet<Kind>> = params.kinds.as_ref().filter(|k| !k.is_empty()).map(|k| k.iter().copied().collect());

        // open buffers: normalise paths; the focus param names (or supplies) the focused one
        let mut buffers: Vec<OpenBuffer> = input.buffers.iter().filter_map(|b| self.relative(&b.path).map(|rel| OpenBuffer { path: rel, ..b.clone() })).collect();
        if let Some(focus) = &params.focus {
            if let Some(rel) = self.relative(&focus.uri) {
                let cursor = focus.position.map(|p| p.line + 1);
                buffers.iter_mut().for_each(|b| b.focused = b.path == rel);
                match buffers.iter_mut().find(|b| b.path == rel) {
                    Some(b) => b.cursor_line = cursor.or(b.cursor_line),
                    None => {
                        if let ReadOutcome::Text(text) = fsio::read_text(&self.files, &rel, self.options.max_file_bytes) {
                            buffers.push(OpenBuffer { path: rel, text, focused: true, last_focus_or_edit_order: 0, cursor_line: cursor, recent_edit_lines: Vec::new() });
                        }
                    }
                }
            }
        }
        let open_paths: Vec<String> = {
            let mut ordered: Vec<&OpenBuffer> = buffers.iter().collect();
            ordered.sort_by_key(|b| (!b.focused, b.last_focus_or_edit_order, b.path.clone()));
            ordered.iter().map(|b| b.path.clone()).collect()
        };
        let focused: Option<String> = buffers.iter().find(|b| b.focused).map(|b| b.path.clone());
        let open_set: HashSet<String> = open_paths.iter().cloned().collect();

        // the task
        let (source, text, sources) = match &params.query {
            Some(QueryParam::Text(q)) if !q.trim().is_empty() => ("query", Some(q.clone()), task::sources_from_conversation(std::slice::from_ref(q))),
            Some(QueryParam::Conversation(messages)) if messages.iter().any(|m| !m.trim().is_empty()) => {
                ("conversation", messages.iter().rev().find(|m| !m.trim().is_empty()).cloned(), task::sources_from_conversation(messages))
            }
            _ if !buffers.is_empty() => ("openBuffers", None, task::sources_from_buffers(&buffers)),
            _ => ("none", None, Vec::new()),
        };

        // the pool: indexed, readable, not excluded, of the requested kinds
        let slot_count = self.index.slot_count();
        let mut eligible = vec![false; slot_count];
        let mut collected = 0usize;
        let mut excluded = 0usize;
        for (slot, record) in self.index.records() {
            if record.skipped.is_some() || kinds.as_ref().is_some_and(|k| !k.contains(&record.kind)) {
                continue;
            }
            collected += 1;
            if self.control.is_excluded(&record.path) {
                excluded += 1;
                continue;
            }
            eligible[slot as usize] = true;
        }
        let pool = eligible.iter().filter(|&&e| e).count();

        // An open-buffer pack's passage terms come from the same buffers, weighed for the
        // lines at the cursor: both lists are selected from one tokenization.
        let nears: &[task::Near] = if source == "openBuffers" && task::located(&buffers) { &[task::RANKING_NEAR, task::PASSAGE_NEAR] } else { &[task::RANKING_NEAR] };
        let index = &self.index;
        let mut lists = task::select_terms_under(&sources, nears, pool, &mut |t| index.doc_freq_estimate(t).unwrap_or(0));
        let passage_terms = if lists.len() > 1 { lists.pop() } else { None };
        let terms: Vec<SelectedTerm> = lists.pop().unwrap_or_default();
        let weighted: Vec<(String, f32)> = terms.iter().map(|t| (t.term.clone(), t.query_weight)).collect();
        let degraded_by_terms = task::too_few_terms(&terms, pool);

        let scores = if degraded_by_terms { index::FileScores::default() } else { self.index.score_files(&weighted, &eligible)? };
        let pinned_set: HashSet<String> = self.control.pinned.iter().map(|r| r.path.clone()).collect();
        let mut ranked: Vec<u32> = (0..scores.scores.len() as u32)
            .filter(|&s| scores.scores[s as usize] > 0.0)
            .filter(|&s| self.index.record(s).is_some_and(|r| !open_set.contains(r.path.as_str()) && !pinned_set.contains(r.path.as_str())))
            .collect();
        let path_of = |s: u32| self.index.record(s).map(|r| r.path.as_str()).unwrap_or("");
        ranked.sort_by(|&a, &b| scores.scores[b as usize].partial_cmp(&scores.scores[a as usize]).unwrap_or(std::cmp::Ordering::Equal).then_with(|| path_of(a).cmp(path_of(b))));
        Ok(Retrieval {
            limit,
            buffers,
            open_paths,
            focused,
            open_set,
            pinned_set,
            source,
            text,
            eligible,
            collected,
            excluded,
            terms,
            passage_terms,
            weighted,
            degraded_by_terms,
            scores,
            ranked,
        })
    }

    /// The ranked hits of a request, best first, for evaluation and debugging. `tied` marks
    /// a file whose score equals the one before it (its place is decided by path order).
    pub fn ranking(&mut self, params: &PackParams, input: &TaskInput) -> Result<Ranking> {
        if self.last_scan.is_none() {
            self.refresh()?;
        }
        let r = self.retrieve(params, input)?;
        let mut files = Vec::new();
        let mut previous: Option<f32> = None;
        for &slot in &r.ranked {
            let score = r.scores.scores[slot as usize];
            if let Some(record) = self.index.record(slot) {
                files.push(RankedFile { path: record.path.clone(), tied: previous == Some(score) });
            }
            previous = Some(score);
        }
        Ok(Ranking { terms: r.terms.iter().map(|t| t.term.clone()).collect(), files })
    }

    fn pack_now(&mut self, params: &PackParams, input: &TaskInput, anchors: &dyn AnchorFacts) -> Result<PackResult> {
        let Retrieval { limit, buffers, open_paths, focused, open_set, pinned_set, source, text, eligible, collected, excluded, terms, passage_terms, weighted, degraded_by_terms, scores, ranked } = self.retrieve(params, input)?;
        let candidates = ranked.len();
        let focus_decls: Vec<String> = match focused.as_deref().and_then(|f| buffers.iter().find(|b| b.path == f)) {
            Some(b) => self.focus_declarations(&b.path, &b.text),
            None => Vec::new(),
        };
        let considered: Vec<u32> = ranked.iter().copied().take(limit.max(LEXICAL_DEPTH)).collect();
        let pinned_slots: Vec<u32> = self.control.pinned.iter().filter_map(|r| self.index.slot_of(&r.path)).filter(|&s| eligible[s as usize]).collect();
        let mut detail_slots = considered.clone();
        detail_slots.extend(pinned_slots.iter().copied().filter(|s| scores.scores.get(*s as usize).is_some_and(|&v| v > 0.0)));
        // Passages are scored here, on the candidates' current text (open buffers first),
        // not indexed; the texts are kept for the items' passage excerpts.
        let mut texts: HashMap<u32, PackText> = HashMap::new();
        let mut details: HashMap<u32, PassageDetail> = HashMap::new();
        let scores_passages = !weighted.is_empty() && !degraded_by_terms;
        // The passage each item shows: in a pack ranked from open buffers, the one that best
        // matches the words at the cursor and recent edits (`passage_terms`), else the one
        // the ranking's terms chose. The ranking's own passage detail (`deepest`, below) is
        // untouched, so passages never move an item.
        let near_weighted: Vec<(String, f32)> = match passage_terms {
            Some(passage_terms) if scores_passages => passage_terms.into_iter().map(|t| (t.term, t.query_weight)).collect(),
            _ => Vec::new(),
        };
        let (scoring, near) = if scores_passages {
            let mut stats = self.index.passage_stats(&[&weighted, &near_weighted])?.into_iter();
            let (ranking_stats, near_stats) = (stats.next(), stats.next());
            let scoring = |weighted, stats| PassageScoring { index: &self.index, files: &self.files, max_file_bytes: self.options.max_file_bytes, buffers: &buffers, weighted, stats };
            (ranking_stats.map(|stats| scoring(&weighted, stats)), near_stats.filter(|_| !near_weighted.is_empty()).map(|stats| scoring(&near_weighted, stats)))
        } else {
            (None, None)
        };
        if let Some(scoring) = &scoring {
            scoring.score(&detail_slots, &mut self.passage_cuts, &mut details, &mut texts);
        }

        let terms_of_mask = |mask: u32| -> Vec<String> { weighted.iter().enumerate().filter(|(i, _)| *i < 32 && mask & (1 << i) != 0).map(|(_, (t, _))| t.clone()).collect() };
        let hit_for = |slot: u32| -> Option<Hit> {
            let record = self.index.record(slot)?;
            let detail = details.get(&slot);
            let deepest = detail
                .map(|d| d.deepest.iter().enumerate().filter_map(|(i, v)| v.map(|(tf, s, e)| (weighted[i].0.clone(), tf, s, e))).collect())
                .unwrap_or_default();
            Some(Hit {
                path: record.path.clone(),
                kind: record.kind,
                score: scores.scores[slot as usize],
                title_terms: terms_of_mask(scores.title_mask[slot as usize]),
                summary_terms: terms_of_mask(scores.summary_mask[slot as usize]),
                body_terms: terms_of_mask(scores.body_mask[slot as usize]),
                deepest,
            })
        };
        let hits: Vec<Hit> = considered.iter().filter_map(|&s| hit_for(s)).collect();
        let pinned_hits: HashMap<u32, Hit> = pinned_slots.iter().filter(|&&s| scores.scores.get(s as usize).is_some_and(|&v| v > 0.0)).filter_map(|&s| hit_for(s).map(|h| (s, h))).collect();

        // tiers
        let rules = TierRules { limit, ..Default::default() };
        let allowed = |path: &str| -> bool {
            !open_set.contains(path) && !pinned_set.contains(path) && self.index.slot_of(path).is_some_and(|slot| eligible.get(slot as usize).copied().unwrap_or(false))
        };
        let focused_ref = focused.as_deref();
        // the graph is rebuilt only after the index changed; packs borrow it
        let (graph, symbol_table) = match (self.graph.take(), self.symbol_table.take()) {
            (Some(graph), Some(table)) => (graph, table),
            _ => {
                let records: Vec<&FileRecord> = self.index.records().map(|(_, r)| r).collect();
                (relations::build_graph(&records), SymbolTable::build(&records))
            }
        };
        // Every signal's list, then their fusion (see `signals` and `fusion`).
        let focus_text = focused_ref.and_then(|f| buffers.iter().find(|b| b.path == f)).map(|b| b.text.as_str());
        let other_open: Vec<&str> = open_paths.iter().map(String::as_str).filter(|p| Some(*p) != focused_ref).collect();
        let is_doc = |p: &str| self.index.slot_of(p).and_then(|s| self.index.record(s)).is_some_and(|r| r.kind == Kind::Doc);
        // Only a user's own words (a query) name files and, written as code, declarations;
        // an open buffer's words are its code's.
        let (path_words, code_names): (Vec<String>, Vec<String>) = match text.as_deref() {
            Some(t) if source != "openBuffers" => (crate::analysis::path_words(t), crate::analysis::code_names(t)),
            _ => Default::default(),
        };
        let inputs = signals::Inputs {
            focus: match (focused_ref, focus_text) {
                (Some(path), Some(text)) => Some(signals::Focus { path, text, declared: &focus_decls }),
                _ => None,
            },
            other_open,
            code_names: &code_names,
            lexical: hits.iter().map(|h| (h.path.clone(), tiers::hit_reasons(h))).collect(),
            terms: &weighted,
            path_words: &path_words,
            graph: &graph,
            cochange: self.cochange.as_ref(),
            symbols: &symbol_table,
            allowed: &allowed,
            is_doc: &is_doc,
        };
        let index = &self.index;
        let mut files_with_term = |term: &str| -> Vec<String> {
            index.files_with_term(term, &eligible, signals::MAX_USERS).unwrap_or_default().into_iter().filter_map(|s| index.record(s).map(|r| r.path.clone())).collect()
        };
        let evidence = signals::collect(&inputs, &mut files_with_term);
        let weights = if source == "openBuffers" { self.options.fusion.open } else { self.options.fusion.query };
        let fused = fusion::fuse(&evidence, &weights);
        // Primary is the top of the fusion when it is a qualifying lexical hit (`tiers`).
        let (mut placements, mut truncated) = tiers::assemble(&fused, &hits, &rules);
        truncated += candidates.saturating_sub(considered.len());
        // Items the other signals brought in from beyond the lexical depth (co-change,
        // recent work, shared names) get their best passage for the task's terms as well,
        // when they hold any: the reader still opens them at the lines that matter.
        let placed: Vec<u32> = placements.iter().filter_map(|p| self.index.slot_of(&p.path)).collect();
        if let Some(scoring) = &scoring {
            scoring.score(&placed, &mut self.passage_cuts, &mut details, &mut texts);
        }
        // every file whose item can show a passage: the placed ones and the pinned hits
        let shown: Vec<u32> = placed.iter().copied().chain(pinned_slots.iter().copied().filter(|s| details.contains_key(s))).collect();
        let mut near_details: HashMap<u32, PassageDetail> = HashMap::new();
        if let Some(near) = &near {
            near.score(&shown, &mut self.passage_cuts, &mut near_details, &mut texts);
        }
        let shown_passage = |slot: u32| -> Option<((u32, u32), Vec<String>)> {
            let named = |detail: &PassageDetail, terms: &[(String, f32)]| detail.best.map(|range| (range, detail.best_terms.iter().filter_map(|&i| terms.get(i).map(|w| w.0.clone())).collect()));
            near_details.get(&slot).and_then(|d| named(d, &near_weighted)).or_else(|| details.get(&slot).and_then(|d| named(d, &weighted)))
        };

        let mut degraded = None;
        if degraded_by_terms {
            let detail = if source == "none" {
                "no query and no open buffer: listing the most recently modified files".to_string()
            } else {
                format!("too few distinctive terms ({} found in the workspace): listing the most recently modified files instead of ranking", terms.iter().filter(|t| t.df > 0).count())
            };
            degraded = Some(Degraded { reason: if source == "none" { "noTask".into() } else { "tooFewTerms".into() }, detail });
            let placed: HashSet<String> = placements.iter().map(|p| p.path.clone()).collect();
            let mut recent: Vec<&FileRecord> = self.index.records().filter(|(_, r)| allowed(&r.path) && !placed.contains(&r.path)).map(|(_, r)| r).collect();
            recent.sort_by(|a, b| b.mtime_ms.cmp(&a.mtime_ms).then(a.path.cmp(&b.path)));
            let room = limit.saturating_sub(placements.len());
            truncated = recent.len().saturating_sub(room);
            for record in recent.into_iter().take(room) {
                placements.push(Placement { path: record.path.clone(), tier: Tier::More, provenance: Provenance::Retrieval, reasons: vec![format!("modified: {}", format_time(record.mtime_ms))], hit_rank: None, relations: Vec::new() });
            }
        }

        // dress the items
        let placed_paths: HashSet<String> = placements.iter().map(|p| p.path.clone()).chain(pinned_slots.iter().filter_map(|&s| self.index.record(s).map(|r| r.path.clone()))).collect();
        let context_paths: Vec<String> = placements.iter().filter(|p| p.tier == Tier::Primary).map(|p| p.path.clone()).chain(focused.clone()).collect();
        let mut relation_count = 0usize;
        let make_item = |path: &str, provenance: Provenance, reasons: Vec<String>, extra: &[RelationFact], relation_count: &mut usize| -> Option<Item> {
            let slot = self.index.slot_of(path)?;
            let record = self.index.record(slot)?;
            let mut edges: Vec<&relations::Edge> = graph.edges_of(path);
            // relations with the pack's own items and the task first, then the rest
            edges.sort_by_key(|e| {
                let other = if e.from == path { &e.to } else { &e.from };
                (!context_paths.contains(other), !placed_paths.contains(other), e.kind, other.clone(), e.line)
            });
            // The ranking's own facts (co-change, shared identifiers) first, then the graph's.
            let mut relations: Vec<RelationFact> = extra.iter().take(3).cloned().collect();
            for e in edges {
                if relations.len() >= 6 {
                    break;
                }
                let incoming = e.to == path && e.from != path;
                let fact = RelationFact { kind: e.kind, dir: if incoming { "in".into() } else { "out".into() }, other: if incoming { e.from.clone() } else { e.to.clone() }, line: e.line, symbol: e.symbol.clone() };
                if !relations.contains(&fact) {
                    relations.push(fact);
                }
            }
            *relation_count += relations.len();
            let passage = shown_passage(slot).map(|((start, end), matched)| {
                let text = texts.get(&slot).map(|t| passages::lines_text(&t.text, start, end)).unwrap_or_default();
                PassageOut { start_line: start, end_line: end, text: snippet(&text, &matched) }
            });
            Some(Item {
                path: record.path.clone(),
                kind: record.kind,
                role: record.role,
                title: record.title.clone(),
                summary: record.summary.clone(),
                provenance,
                reasons,
                relations,
                passage,
                anchors: if record.kind == Kind::Doc { anchors.anchor_counts(&record.path) } else { None },
                lifecycle: Some(self.reads.lifecycle(&record.path, Some(&record.hash))),
            })
        };

        let mut result_tiers: [Vec<Item>; 4] = Default::default();
        for placement in &placements {
            let slot = match placement.tier {
                Tier::Primary => 0,
                Tier::Supporting => 1,
                Tier::Related => 2,
                Tier::More => 3,
            };
            if let Some(item) = make_item(&placement.path, placement.provenance, placement.reasons.clone(), &placement.relations, &mut relation_count) {
                result_tiers[slot].push(item);
            }
        }
        let mut pinned_items = Vec::new();
        for slot in &pinned_slots {
            let Some(record) = self.index.record(*slot) else { continue };
            let mut reasons = vec!["pinned".to_string()];
            if let Some(hit) = pinned_hits.get(slot) {
                reasons.extend(tiers::hit_reasons(hit));
            }
            if let Some(item) = make_item(&record.path, Provenance::Manual, reasons, &[], &mut relation_count) {
                pinned_items.push(item);
            }
        }
        let [primary, supporting, related, more] = result_tiers;

        // epoch and delta: membership of the pinned section and the three tiers
        let mut members: BTreeMap<String, String> = BTreeMap::new();
        for (tier, items) in [("pinned", &pinned_items), ("primary", &primary), ("supporting", &supporting), ("related", &related)] {
            for item in items {
                members.insert(item.path.clone(), tier.to_string());
            }
        }
        let delta = self.epochs.advance(members);
        if delta.is_some() {
            // the epoch is advisory: failing to persist it must not fail the pack
            let _ = fsio::write_json(&self.state_dir.join("session.json"), &self.epochs);
        }

        self.graph = Some(graph);
        self.symbol_table = Some(symbol_table);
        self.last_evidence = Some(evidence);
        if let Some(problem) = &self.cache_problem {
            degraded = Some(add_degradation(degraded, "cacheUnusable", problem));
        }
        if let (Some(note), true) = (&self.history_note, focused.is_some()) {
            // Only open-buffer packs lean on co-change; a query pack is not weaker without it.
            degraded = Some(add_degradation(degraded, "noHistory", note));
        }
        let stats = Stats {
            collected,
            excluded,
            candidates,
            relations: relation_count,
            pinned: pinned_items.len(),
            packed: primary.len() + supporting.len() + related.len(),
            truncated,
        };
        let task_text = text.map(|t| {
            let flat = t.split_whitespace().collect::<Vec<_>>().join(" ");
            if flat.chars().count() > 200 {
                format!("{}…", flat.chars().take(199).collect::<String>())
            } else {
                flat
            }
        });
        Ok(PackResult {
            task: TaskInfo { source: source.to_string(), text: task_text, terms: terms.iter().map(|t| t.term.clone()).collect(), open_buffers: open_paths },
            epoch: self.epochs.epoch,
            delta,
            stats,
            pinned: pinned_items,
            primary,
            supporting,
            related,
            more,
            degraded,
        })
    }
}

/// `YYYY-MM-DD HH:MM UTC` from unix milliseconds (no time-zone database needed).
pub fn format_time(ms: u64) -> String {
    let secs = ms / 1000;
    let days = (secs / 86_400) as i64;
    let (hour, minute) = ((secs % 86_400) / 3600, (secs % 3600) / 60);
    // civil-from-days (Howard Hinnant's algorithm)
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + if month <= 2 { 1 } else { 0 };
    format!("{year:04}-{month:02}-{day:02} {hour:02}:{minute:02} UTC")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passage_cuts_follow_the_content_and_stay_bounded() {
        let mut cuts = PassageCuts::default();
        let one = "pub fn alpha() {\n    1\n}\n\npub fn beta() {\n    2\n}\n".repeat(20);
        let first = cuts.get(&one, Kind::Code, 0);
        assert_eq!(first.passages, passages::split(&one, Kind::Code, 0));
        assert!(std::sync::Arc::ptr_eq(&first, &cuts.get(&one, Kind::Code, 0)), "the second look-up is served from the cache");
        // an edit is new content: cut afresh, never the stale cuts
        let two = format!("// a new head line\n{one}");
        assert_eq!(cuts.get(&two, Kind::Code, 0).passages, passages::split(&two, Kind::Code, 0));
        assert_ne!(cuts.get(&two, Kind::Code, 0).passages, first.passages);
        for i in 0..PassageCuts::MAX_FILES + 10 {
            cuts.get(&format!("fn f{i}() {{}}\n"), Kind::Code, 0);
        }
        assert!(cuts.by_content.len() <= PassageCuts::MAX_FILES);
    }

    #[test]
    fn snippets_are_bounded_and_start_near_the_hit() {
        let text = format!("{} needle {}", "a ".repeat(200), "b ".repeat(200));
        let s = snippet(&text, &["needle".to_string()]);
        assert!(s.chars().count() <= 200, "{}", s.chars().count());
        assert!(s.contains("needle") && s.starts_with('…'));
    }

    #[test]
    fn time_formatting() {
        assert_eq!(format_time(0), "1970-01-01 00:00 UTC");
        assert_eq!(format_time(1_760_000_000_000), "2025-10-09 08:53 UTC");
    }
}
