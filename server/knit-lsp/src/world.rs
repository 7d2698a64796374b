//! The single writer's state. Every change to server state — buffer edits, saves,
//! watched files, settings, folders, finished analysis passes — is applied here, in the
//! order the client sent it, by one task (`main_loop`). Readers get immutable
//! [`Snapshot`]s. The scheduler half decides what a pass must redo (dirty docs, changed
//! code files through the reverse index target path → docs, repository-wide verdicts on
//! file-system changes), keeps at most one pass in flight, and drops results that a
//! later edit made stale (tower-lsp issue #284: never trust arrival order of results).

use crate::analysis::{Counts, DocReport};
use crate::config::Settings;
use crate::document::{Document, FileKind};
use crate::folder::{uri_path, Folder};
use crate::overlay::OverlayTree;
use crate::pass::{self, FolderJob, PassJob, PassOutcome};
use crate::position::Encoding;
use crate::snapshot::{locate, ClientCaps, FolderSnap, OpenDoc, Snapshot};
use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::{mpsc, oneshot};
use tower_lsp_server::ls_types::{FileChangeType, FileEvent, TextDocumentContentChangeEvent, Uri};
use tower_lsp_server::Client;

/// Quiet time after a keystroke in a doc before its anchors are checked again.
pub const DOC_DELAY: Duration = Duration::from_millis(10);
/// Quiet time after a keystroke in a code buffer (its anchors are re-resolved).
pub const CODE_DELAY: Duration = Duration::from_millis(100);
/// Saves and file-system events.
pub const FS_DELAY: Duration = Duration::from_millis(20);
/// Quiet time on disk before the server's own watch reports a batch of changes (a
/// checkout writes many files in a burst).
pub const WATCH_QUIET: Duration = Duration::from_millis(150);

/// Everything the writer is told, in order.
pub enum Event {
    Init { folders: Vec<std::path::PathBuf>, encoding: Encoding, settings: Settings, caps: ClientCaps, instance: String },
    Initialized,
    Open { uri: Uri, version: i32, language_id: String, text: String },
    Change { uri: Uri, version: i32, changes: Vec<TextDocumentContentChangeEvent> },
    Save { uri: Uri },
    Close { uri: Uri },
    Watched(Vec<FileEvent>),
    /// The server's own watch of a folder (when the client does not watch files) saw
    /// changes on disk.
    DiskChanged { root: std::path::PathBuf, batch: knit_workspace::watch::Batch },
    Config(Option<serde_json::Value>),
    Folders { added: Vec<std::path::PathBuf>, removed: Vec<std::path::PathBuf> },
    /// Barrier: replies with a snapshot that reflects every event sent before it.
    Snapshot(oneshot::Sender<Arc<Snapshot>>),
    /// Re-check every doc of every folder; replies with the counts once done.
    CheckWorkspace(oneshot::Sender<Counts>),
    PassDone(Box<PassOutcome>),
    PassFailed(String),
}

struct Entry {
    doc: Document,
    loc: Option<(usize, String)>,
}

pub struct FolderState {
    pub folder: Arc<Folder>,
    reports: Arc<HashMap<String, Arc<DocReport>>>,
    /// Code path → docs with a verdict depending on it.
    reverse: HashMap<String, HashSet<String>>,
    deps: HashMap<String, HashSet<String>>,
    /// Docs with verdicts that depend on the whole repository.
    global_docs: HashSet<String>,
    dirty_docs: HashSet<String>,
    dirty_code: HashSet<String>,
    global: bool,
    files_changed: bool,
    scan: bool,
    republish: bool,
    /// Docs not open whose diagnostics were published (to clear them later).
    published: HashSet<String>,
    pub scanned: bool,
    /// The server's own watch of the folder, when the client does not watch files.
    watch: Option<knit_workspace::watch::FolderWatch>,
}

impl FolderState {
    fn new(folder: Folder) -> FolderState {
        FolderState {
            folder: Arc::new(folder),
            reports: Arc::new(HashMap::new()),
            reverse: HashMap::new(),
            deps: HashMap::new(),
            global_docs: HashSet::new(),
            dirty_docs: HashSet::new(),
            dirty_code: HashSet::new(),
            global: false,
            files_changed: false,
            scan: false,
            republish: false,
            published: HashSet::new(),
            scanned: false,
            watch: None,
        }
    }

    fn has_work(&self) -> bool {
        self.scan || self.republish || !self.dirty_docs.is_empty() || !self.dirty_code.is_empty() || self.global || self.files_changed
    }

    fn set_report(&mut self, rel: &str, report: Option<Arc<DocReport>>) {
        if let Some(old) = self.deps.remove(rel) {
            for d in old {
                if let Some(set) = self.reverse.get_mut(&d) {
                    set.remove(rel);
                    if set.is_empty() {
                        self.reverse.remove(&d);
                    }
                }
            }
        }
        self.global_docs.remove(rel);
        match report {
            Some(r) => {
                let deps = r.analysis.dependencies();
                for d in &deps {
                    self.reverse.entry(d.clone()).or_default().insert(rel.to_string());
                }
                self.deps.insert(rel.to_string(), deps);
                if r.analysis.has_global() || !r.analysis.mentions.is_empty() {
                    self.global_docs.insert(rel.to_string());
                }
                Arc::make_mut(&mut self.reports).insert(rel.to_string(), r);
            }
            None => {
                Arc::make_mut(&mut self.reports).remove(rel);
            }
        }
    }
}

pub struct World {
    client: Client,
    tx: mpsc::UnboundedSender<Event>,
    encoding: Encoding,
    settings: Arc<Settings>,
    caps: ClientCaps,
    instance: String,
    docs: HashMap<Uri, Entry>,
    folders: Vec<FolderState>,
    recency: Vec<Uri>,
    snapshot: Option<Arc<Snapshot>>,
    in_flight: bool,
    due: Option<Instant>,
    pass_seq: u64,
    initialized: bool,
    /// Code buffers with published diagnostics.
    code_published: HashSet<Uri>,
    last_counts: Option<Counts>,
    waiters: Vec<(u64, oneshot::Sender<Counts>)>,
}

impl World {
    pub fn new(client: Client, tx: mpsc::UnboundedSender<Event>) -> World {
        World {
            client,
            tx,
            encoding: Encoding::Utf16,
            settings: Arc::new(Settings::default()),
            caps: ClientCaps::default(),
            instance: String::new(),
            docs: HashMap::new(),
            folders: Vec::new(),
            recency: Vec::new(),
            snapshot: None,
            in_flight: false,
            due: None,
            pass_seq: 0,
            initialized: false,
            code_published: HashSet::new(),
            last_counts: None,
            waiters: Vec::new(),
        }
    }

    /// When the next pass should start (None: nothing to do, or one is running).
    pub fn next_pass_at(&self) -> Option<Instant> {
        if self.in_flight {
            return None;
        }
        self.due.filter(|_| self.folders.iter().any(FolderState::has_work))
    }

    fn schedule(&mut self, delay: Duration) {
        let at = Instant::now() + delay;
        self.due = Some(match self.due {
            Some(d) if d > at => d,
            _ => at,
        });
    }

    fn touch(&mut self, uri: &Uri) {
        self.recency.retain(|u| u != uri);
        self.recency.insert(0, uri.clone());
    }

    pub async fn handle(&mut self, ev: Event) {
        match ev {
            Event::Init { folders, encoding, settings, caps, instance } => {
                self.encoding = encoding;
                self.settings = Arc::new(settings);
                self.caps = caps;
                self.instance = instance;
                for root in folders {
                    self.folders.push(FolderState::new(Folder::open(&root)));
                }
                self.snapshot = None;
            }
            Event::Initialized => {
                self.initialized = true;
                for f in &mut self.folders {
                    f.scan = true;
                }
                for fi in 0..self.folders.len() {
                    self.start_watch(fi).await;
                }
                self.schedule(Duration::ZERO);
                self.announce_config_errors().await;
            }
            Event::Open { uri, version, language_id, text } => self.open(uri, version, &language_id, text),
            Event::Change { uri, version, changes } => self.change(uri, version, &changes),
            Event::Save { uri } => {
                if let Some((fi, rel)) = self.docs.get(&uri).and_then(|e| e.loc.clone()) {
                    let f = &mut self.folders[fi];
                    f.dirty_code.insert(rel);
                    f.global = true;
                    self.schedule(FS_DELAY);
                }
            }
            Event::Close { uri } => self.close(uri).await,
            Event::Watched(events) => self.watched(events).await,
            Event::DiskChanged { root, batch } => self.disk_changed(&root, batch).await,
            Event::Config(v) => {
                let mut s = (*self.settings).clone();
                s.merge(v.as_ref());
                let workspace_off = self.settings.workspace_diagnostics && !s.workspace_diagnostics;
                // Code mentions are computed with a doc's analysis only while their
                // diagnostic is on: turning it on analyses every doc again.
                let mentions_on = self.settings.severity("code-mention").is_none() && s.severity("code-mention").is_some();
                self.settings = Arc::new(s);
                self.snapshot = None;
                if workspace_off {
                    self.clear_workspace_diagnostics().await;
                }
                for f in &mut self.folders {
                    f.republish = true;
                    if mentions_on {
                        let docs: Vec<String> = f.reports.keys().cloned().collect();
                        f.dirty_docs.extend(docs);
                    }
                }
                self.schedule(Duration::ZERO);
            }
            Event::Folders { added, removed } => self.change_folders(added, removed).await,
            Event::Snapshot(reply) => {
                let _ = reply.send(self.snapshot());
            }
            Event::CheckWorkspace(reply) => {
                for f in &mut self.folders {
                    f.scan = true;
                    f.global = true;
                    let docs: Vec<String> = f.reports.keys().cloned().collect();
                    f.dirty_docs.extend(docs);
                }
                self.waiters.push((self.pass_seq + 1, reply));
                self.schedule(Duration::ZERO);
                if self.folders.is_empty() {
                    self.reply_waiters(u64::MAX);
                }
            }
            Event::PassDone(outcome) => self.apply(*outcome).await,
            Event::PassFailed(msg) => {
                self.in_flight = false;
                self.client.log_message(tower_lsp_server::ls_types::MessageType::ERROR, format!("knit: analysis failed: {msg}")).await;
            }
        }
    }

    async fn announce_config_errors(&self) {
        for f in &self.folders {
            if let Some(e) = &f.folder.config_error {
                self.client
                    .show_message(tower_lsp_server::ls_types::MessageType::WARNING, format!("knit: {e} (using defaults)"))
                    .await;
            }
        }
    }

    /// Folder of a URI; with no folder at all, the file's own root becomes one (single
    /// file mode).
    fn locate(&mut self, uri: &Uri) -> Option<(usize, String)> {
        if let Some(l) = locate(self.folders.iter().map(|f| &*f.folder), uri) {
            return Some(l);
        }
        if self.folders.is_empty() {
            let path = uri_path(uri)?;
            let root = knit_workspace::find_root(path.parent()?);
            self.folders.push(FolderState::new(Folder::open(&root)));
            if self.initialized {
                if let Some(f) = self.folders.last_mut() {
                    f.scan = true;
                }
            }
            return locate(self.folders.iter().map(|f| &*f.folder), uri);
        }
        None
    }

    fn mark_dirty(&mut self, loc: &Option<(usize, String)>, kind: FileKind) {
        let Some((fi, rel)) = loc else { return };
        let f = &mut self.folders[*fi];
        match kind {
            FileKind::Markdown => {
                f.dirty_docs.insert(rel.clone());
                // Docs anchored to this one (paired docs) depend on it like on code.
                f.dirty_code.insert(rel.clone());
                self.schedule(DOC_DELAY);
            }
            _ => {
                f.dirty_code.insert(rel.clone());
                self.schedule(CODE_DELAY);
            }
        }
    }

    fn open(&mut self, uri: Uri, version: i32, language_id: &str, text: String) {
        let loc = self.locate(&uri);
        let kind = FileKind::of(uri.path().as_str(), Some(language_id));
        match self.docs.get_mut(&uri) {
            Some(e) => e.doc.replace(version, &text),
            None => {
                self.docs.insert(uri.clone(), Entry { doc: Document::new(version, kind, &text), loc: loc.clone() });
            }
        }
        self.touch(&uri);
        self.snapshot = None;
        self.mark_dirty(&loc, kind);
    }

    fn change(&mut self, uri: Uri, version: i32, changes: &[TextDocumentContentChangeEvent]) {
        let enc = self.encoding;
        let Some(e) = self.docs.get_mut(&uri) else { return };
        // Replayed or out-of-order batches are dropped: applying an old incremental
        // change to a newer text would corrupt it.
        if version <= e.doc.version {
            return;
        }
        e.doc.apply(version, changes, enc);
        let (loc, kind) = (e.loc.clone(), e.doc.kind);
        self.touch(&uri);
        self.snapshot = None;
        self.mark_dirty(&loc, kind);
    }

    async fn close(&mut self, uri: Uri) {
        let Some(e) = self.docs.remove(&uri) else { return };
        self.recency.retain(|u| u != &uri);
        self.snapshot = None;
        if self.code_published.remove(&uri) {
            self.client.publish_diagnostics(uri.clone(), Vec::new(), None).await;
        }
        let Some((fi, rel)) = e.loc else { return };
        let f = &mut self.folders[fi];
        match e.doc.kind {
            FileKind::Markdown => {
                if self.settings.workspace_diagnostics {
                    // Back to the disk text.
                    f.dirty_docs.insert(rel);
                } else {
                    f.set_report(&rel, None);
                    self.client.publish_diagnostics(uri, Vec::new(), None).await;
                }
                self.schedule(DOC_DELAY);
            }
            _ => {
                f.dirty_code.insert(rel);
                self.schedule(FS_DELAY);
            }
        }
    }

    async fn watched(&mut self, events: Vec<FileEvent>) {
        let mut refresh: HashSet<usize> = HashSet::new();
        for ev in events {
            let Some((fi, rel)) = locate(self.folders.iter().map(|f| &*f.folder), &ev.uri) else { continue };
            let open = self.docs.values().any(|e| e.loc.as_ref() == Some(&(fi, rel.clone())));
            let f = &mut self.folders[fi];
            if ev.typ != FileChangeType::CHANGED || rel == "knit.toml" || rel == ".gitignore" {
                refresh.insert(fi);
                f.files_changed = true;
            }
            f.global = true;
            if rel == "knit.toml" {
                f.scan = true;
            }
            if open {
                continue; // the buffer is the truth for open files
            }
            match FileKind::of(&rel, None) {
                FileKind::Markdown => {
                    f.dirty_docs.insert(rel.clone());
                    f.dirty_code.insert(rel);
                }
                _ => {
                    f.dirty_code.insert(rel);
                }
            }
        }
        for fi in refresh {
            let f = &mut self.folders[fi];
            f.folder = Arc::new(f.folder.refreshed());
        }
        self.snapshot = None;
        self.schedule(FS_DELAY);
    }

    /// Watches folder `fi` on disk when the client does not watch files for the server
    /// (no `didChangeWatchedFiles` dynamic registration, e.g. Neovim 0.7), so a checkout
    /// or another program's edit reaches the diagnostics without reopening buffers. The
    /// context index is told from the watch's own thread; the rest goes through `watched`
    /// like the client's events, where open buffers still win over the disk.
    async fn start_watch(&mut self, fi: usize) {
        if self.caps.watch_dynamic || self.folders[fi].watch.is_some() {
            return;
        }
        let folder = self.folders[fi].folder.clone();
        let tx = self.tx.clone();
        let root = folder.root.clone();
        let slot = folder.context.clone();
        let on_batch = move |batch: knit_workspace::watch::Batch| {
            for (rel, change) in &batch.changes {
                slot.file_changed(rel, *change == knit_workspace::watch::Change::Deleted);
            }
            let _ = tx.send(Event::DiskChanged { root: root.clone(), batch });
        };
        let policy = knit_workspace::walk::WalkPolicy::default();
        let (kind, message) = match knit_workspace::watch::watch_folder(&folder.canonical, &policy, WATCH_QUIET, on_batch) {
            Ok(w) => {
                let msg = format!("knit: watching {} folders of {} for changes on disk (the client does not watch files)", w.watched_dirs, folder.root.display());
                self.folders[fi].watch = Some(w);
                (tower_lsp_server::ls_types::MessageType::INFO, msg)
            }
            Err(e) => (
                tower_lsp_server::ls_types::MessageType::WARNING,
                format!("knit: cannot watch {} ({e}); changes made outside the editor show after a save or :e", folder.root.display()),
            ),
        };
        self.client.log_message(kind, message).await;
    }

    /// Changes the server's own watch saw on disk.
    async fn disk_changed(&mut self, root: &std::path::Path, batch: knit_workspace::watch::Batch) {
        let Some(fi) = self.folders.iter().position(|f| f.folder.root == root) else { return };
        if batch.overflow {
            // Too many changes to list, or the kernel dropped events: check everything again.
            let f = &mut self.folders[fi];
            f.folder = Arc::new(f.folder.refreshed());
            f.scan = true;
            f.global = true;
            f.files_changed = true;
            let docs: Vec<String> = f.reports.keys().cloned().collect();
            f.dirty_docs.extend(docs);
            self.snapshot = None;
            self.schedule(FS_DELAY);
            return;
        }
        let folder = self.folders[fi].folder.clone();
        let events: Vec<FileEvent> = batch
            .changes
            .iter()
            .filter_map(|(rel, change)| {
                let typ = match change {
                    knit_workspace::watch::Change::Created => FileChangeType::CREATED,
                    knit_workspace::watch::Change::Changed => FileChangeType::CHANGED,
                    knit_workspace::watch::Change::Deleted => FileChangeType::DELETED,
                };
                Some(FileEvent { uri: folder.uri_of(rel)?, typ })
            })
            .collect();
        if !events.is_empty() {
            self.watched(events).await;
        }
    }

    async fn change_folders(&mut self, added: Vec<std::path::PathBuf>, removed: Vec<std::path::PathBuf>) {
        let mut keep = Vec::new();
        for f in std::mem::take(&mut self.folders) {
            if removed.iter().any(|r| *r == f.folder.root) {
                for rel in &f.published {
                    if let Some(uri) = f.folder.uri_of(rel) {
                        self.client.publish_diagnostics(uri, Vec::new(), None).await;
                    }
                }
            } else {
                keep.push(f);
            }
        }
        self.folders = keep;
        for root in added {
            if self.folders.iter().all(|f| f.folder.root != root) {
                let mut f = FolderState::new(Folder::open(&root));
                f.scan = self.initialized;
                self.folders.push(f);
                if self.initialized {
                    self.start_watch(self.folders.len() - 1).await;
                }
            }
        }
        // Folder indexes moved: locate every open buffer again.
        let uris: Vec<Uri> = self.docs.keys().cloned().collect();
        for uri in uris {
            let loc = locate(self.folders.iter().map(|f| &*f.folder), &uri);
            let kind = self.docs.get(&uri).map(|e| e.doc.kind).unwrap_or(FileKind::Other);
            if let Some(e) = self.docs.get_mut(&uri) {
                e.loc = loc.clone();
            }
            self.mark_dirty(&loc, kind);
        }
        self.snapshot = None;
        self.schedule(Duration::ZERO);
    }

    async fn clear_workspace_diagnostics(&mut self) {
        for f in &mut self.folders {
            for rel in std::mem::take(&mut f.published) {
                if let Some(uri) = f.folder.uri_of(&rel) {
                    self.client.publish_diagnostics(uri, Vec::new(), None).await;
                }
            }
        }
    }

    pub fn snapshot(&mut self) -> Arc<Snapshot> {
        if let Some(s) = &self.snapshot {
            return s.clone();
        }
        let mut docs = HashMap::new();
        let mut buffers: Vec<HashMap<String, Arc<str>>> = vec![HashMap::new(); self.folders.len()];
        for (uri, e) in self.docs.iter_mut() {
            let text = e.doc.snapshot();
            if let Some((fi, rel)) = &e.loc {
                if let Some(b) = buffers.get_mut(*fi) {
                    b.insert(rel.clone(), text.text.clone());
                }
            }
            docs.insert(
                uri.clone(),
                OpenDoc { uri: uri.clone(), kind: e.doc.kind, text, loc: e.loc.clone(), recent_edit_lines: e.doc.recent_edit_lines() },
            );
        }
        let folders = self
            .folders
            .iter()
            .zip(buffers)
            .map(|(f, b)| FolderSnap {
                folder: f.folder.clone(),
                overlay: Arc::new(OverlayTree::new(f.folder.disk.clone(), Arc::new(b))),
                reports: f.reports.clone(),
            })
            .collect();
        let s = Arc::new(Snapshot {
            encoding: self.encoding,
            settings: self.settings.clone(),
            caps: self.caps.clone(),
            docs,
            folders,
            recency: self.recency.clone(),
            instance: self.instance.clone(),
        });
        self.snapshot = Some(s.clone());
        s
    }

    /// Starts a pass over whatever is dirty (called when the debounce deadline passes).
    pub fn start_pass(&mut self) {
        self.due = None;
        if self.in_flight || !self.initialized && self.folders.iter().all(|f| f.dirty_docs.is_empty() && f.dirty_code.is_empty()) {
            return;
        }
        let snap = self.snapshot();
        let mut jobs = Vec::new();
        for (fi, f) in self.folders.iter_mut().enumerate() {
            if !f.has_work() {
                continue;
            }
            // Before `initialized` only open docs are checked; the scan waits.
            let scan = f.scan && self.initialized;
            let fsnap = &snap.folders[fi];
            let open_docs: HashMap<String, Uri> = snap
                .docs
                .values()
                .filter_map(|d| match &d.loc {
                    Some((i, rel)) if *i == fi && d.kind == FileKind::Markdown => Some((rel.clone(), d.uri.clone())),
                    _ => None,
                })
                .collect();
            let open_text = |rel: &str| {
                open_docs.get(rel).and_then(|u| snap.docs.get(u)).map(|d| d.text.clone())
            };
            let full: Vec<(String, Option<_>)> = f.dirty_docs.drain().map(|rel| {
                let t = open_text(&rel);
                (rel, t)
            }).collect();
            let full_set: HashSet<&str> = full.iter().map(|(r, _)| r.as_str()).collect();
            let mut affected: HashSet<String> = HashSet::new();
            for c in &f.dirty_code {
                if let Some(docs) = f.reverse.get(c) {
                    affected.extend(docs.iter().cloned());
                }
            }
            if f.global || f.files_changed {
                affected.extend(f.global_docs.iter().cloned());
            }
            let partial: Vec<Arc<DocReport>> = affected
                .iter()
                .filter(|rel| !full_set.contains(rel.as_str()))
                .filter_map(|rel| f.reports.get(rel).cloned())
                .collect();
            let republish: Vec<Arc<DocReport>> = if f.republish { f.reports.values().cloned().collect() } else { Vec::new() };
            let code_buffers = snap
                .docs
                .values()
                .filter_map(|d| match (&d.loc, d.kind) {
                    (Some((i, rel)), FileKind::Code(_)) if *i == fi => {
                        Some((rel.clone(), d.uri.clone(), d.text.clone(), f.reverse.get(rel).cloned().unwrap_or_default()))
                    }
                    _ => None,
                })
                .collect();
            jobs.push(FolderJob {
                fi,
                folder: f.folder.clone(),
                overlay: fsnap.overlay.clone(),
                reports: f.reports.clone(),
                scan,
                full,
                partial,
                code_changed: std::mem::take(&mut f.dirty_code),
                global: std::mem::take(&mut f.global),
                files_changed: std::mem::take(&mut f.files_changed),
                republish,
                code_buffers,
                open_docs,
            });
            if scan {
                f.scan = false;
            }
            f.republish = false;
        }
        if jobs.is_empty() {
            self.reply_waiters(self.pass_seq + 1);
            return;
        }
        self.pass_seq += 1;
        self.in_flight = true;
        let progress = if jobs.iter().any(|j| j.scan) && self.caps.work_done_progress {
            Some(crate::progress::start(self.client.clone(), self.pass_seq))
        } else {
            None
        };
        let job = PassJob { seq: self.pass_seq, folders: jobs, settings: self.settings.clone(), encoding: self.encoding, progress };
        let tx = self.tx.clone();
        tokio::spawn(async move {
            match tokio::task::spawn_blocking(move || pass::run(job)).await {
                Ok(outcome) => {
                    let _ = tx.send(Event::PassDone(Box::new(outcome)));
                }
                Err(e) => {
                    let _ = tx.send(Event::PassFailed(e.to_string()));
                }
            }
        });
    }

    async fn apply(&mut self, outcome: PassOutcome) {
        self.in_flight = false;
        let docs: usize = outcome.folders.iter().map(|f| f.updated.len()).sum();
        // The client's log shows what each pass cost (and benchmarks read it).
        self.client
            .log_message(
                tower_lsp_server::ls_types::MessageType::LOG,
                format!("knit: pass {} checked {docs} docs in {:.3} ms", outcome.seq, outcome.micros as f64 / 1000.0),
            )
            .await;
        let mut scanned_any = false;
        for fo in outcome.folders {
            let Some(fi) = self.folders.iter().position(|f| f.folder.root == fo.folder.root) else { continue };
            scanned_any |= fo.scanned;
            for rel in fo.removed {
                let open = self.docs.values().any(|e| e.loc.as_ref() == Some(&(fi, rel.clone())));
                if open {
                    continue;
                }
                let f = &mut self.folders[fi];
                f.set_report(&rel, None);
                if f.published.remove(&rel) {
                    if let Some(uri) = f.folder.uri_of(&rel) {
                        self.client.publish_diagnostics(uri, Vec::new(), None).await;
                    }
                }
            }
            for (report, diags) in fo.updated {
                let rel = report.rel.clone();
                let open = self.docs.iter().find(|(_, e)| e.loc.as_ref() == Some(&(fi, rel.clone())));
                let publish_to = match (report.version, open) {
                    (Some(v), Some((uri, e))) if e.doc.version == v => Some((uri.clone(), Some(v))),
                    (None, None) if !self.folders[fi].dirty_docs.contains(&rel) => {
                        self.folders[fi].folder.uri_of(&rel).map(|u| (u, None))
                    }
                    // The text changed since: a newer pass is already due for this doc.
                    _ => continue,
                };
                let f = &mut self.folders[fi];
                f.set_report(&rel, Some(report));
                if fo.scanned {
                    f.scanned = true;
                }
                let Some((uri, version)) = publish_to else { continue };
                if version.is_some() {
                    self.client.publish_diagnostics(uri, diags, version).await;
                } else if self.settings.workspace_diagnostics {
                    if diags.is_empty() && !f.published.contains(&rel) {
                        continue;
                    }
                    if diags.is_empty() {
                        f.published.remove(&rel);
                    } else {
                        f.published.insert(rel);
                    }
                    self.client.publish_diagnostics(uri, diags, None).await;
                }
            }
            if fo.scanned {
                self.folders[fi].scanned = true;
            }
            for (uri, version, diags) in fo.code {
                let current = self.docs.get(&uri).map(|e| e.doc.version);
                if current != Some(version) {
                    continue;
                }
                if diags.is_empty() && !self.code_published.contains(&uri) {
                    continue;
                }
                if diags.is_empty() {
                    self.code_published.remove(&uri);
                } else {
                    self.code_published.insert(uri.clone());
                }
                self.client.publish_diagnostics(uri, diags, Some(version)).await;
            }
        }
        self.snapshot = None;
        let counts = self.counts();
        if scanned_any || self.last_counts != Some(counts) {
            self.last_counts = Some(counts);
            crate::notifications::status(&self.client, &counts, self.folders.iter().all(|f| f.scanned)).await;
        }
        self.reply_waiters(outcome.seq);
        if self.caps.code_lens_refresh && docs > 0 {
            let client = self.client.clone();
            tokio::spawn(async move {
                let _ = client.code_lens_refresh().await;
            });
        }
        if self.folders.iter().any(FolderState::has_work) {
            self.schedule(Duration::ZERO);
        }
    }

    fn reply_waiters(&mut self, seq: u64) {
        if self.waiters.iter().all(|(s, _)| *s > seq) {
            return;
        }
        let counts = self.counts();
        let (ready, rest): (Vec<_>, Vec<_>) = std::mem::take(&mut self.waiters).into_iter().partition(|(s, _)| *s <= seq);
        self.waiters = rest;
        for (_, tx) in ready {
            let _ = tx.send(counts);
        }
    }

    pub fn counts(&self) -> Counts {
        let mut c = Counts::default();
        for f in &self.folders {
            for r in f.reports.values() {
                r.counts(&mut c);
                c.docs += 1;
            }
        }
        c
    }
}
