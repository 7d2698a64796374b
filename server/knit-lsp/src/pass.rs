//! One analysis pass: the blocking half of the scheduler. The writer (`world`) decides
//! *what* is dirty and hands over immutable inputs; a pass resolves exactly that (whole
//! docs whose text changed, only the affected anchors of docs whose code changed, every
//! doc on the first workspace scan) and returns new reports with their diagnostics. It
//! never touches server state: the writer applies the outcome, dropping whatever went
//! stale meanwhile.

use crate::analysis::{AnchorResult, DocReport};
use crate::config::Settings;
use crate::diagnostics::{doc_diagnostics, will_go_stale, CodeLines, Describer};
use crate::document::DocText;
use crate::folder::Folder;
use crate::overlay::OverlayTree;
use crate::position::{position_of_line_col, Encoding};
use knit_anchors::{Session, SourceTree, State};
use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use tokio::sync::mpsc::UnboundedSender;
use tower_lsp_server::ls_types::{Diagnostic, Range, Uri};

/// Work for one folder.
pub struct FolderJob {
    pub fi: usize,
    pub folder: Arc<Folder>,
    pub overlay: Arc<OverlayTree>,
    pub reports: Arc<HashMap<String, Arc<DocReport>>>,
    /// Analyse every Markdown file of the folder (first scan, `knit.checkWorkspace`).
    pub scan: bool,
    /// Docs to analyse from scratch: open ones carry their buffer, others are read.
    pub full: Vec<(String, Option<Arc<DocText>>)>,
    /// Docs to re-resolve partially (their text did not change).
    pub partial: Vec<Arc<DocReport>>,
    /// Code files that changed since the last pass.
    pub code_changed: HashSet<String>,
    /// Re-resolve verdicts that depend on the whole repository.
    pub global: bool,
    /// Files were created or deleted: links and mentions are re-checked too.
    pub files_changed: bool,
    /// Docs whose diagnostics are to be rebuilt without resolving (settings changed).
    pub republish: Vec<Arc<DocReport>>,
    /// Open code buffers (rel, uri, text) with the docs whose anchors point into them.
    pub code_buffers: Vec<(String, Uri, Arc<DocText>, HashSet<String>)>,
    /// Open docs: rel → uri (diagnostics of open docs use the client's URI).
    pub open_docs: HashMap<String, Uri>,
}

pub struct PassJob {
    pub seq: u64,
    pub folders: Vec<FolderJob>,
    pub settings: Arc<Settings>,
    pub encoding: Encoding,
    /// (done, total) while scanning.
    pub progress: Option<UnboundedSender<(usize, usize)>>,
}

pub struct FolderOutcome {
    pub fi: usize,
    pub folder: Arc<Folder>,
    pub scanned: bool,
    /// New reports with their diagnostics.
    pub updated: Vec<(Arc<DocReport>, Vec<Diagnostic>)>,
    /// Docs that no longer exist (or are no longer readable as text).
    pub removed: Vec<String>,
    /// Diagnostics of open code buffers (uri, version, diagnostics).
    pub code: Vec<(Uri, i32, Vec<Diagnostic>)>,
}

pub struct PassOutcome {
    pub seq: u64,
    pub folders: Vec<FolderOutcome>,
    /// Engine time of the pass (resolution and diagnostics), microseconds.
    pub micros: u128,
}

pub fn run(job: PassJob) -> PassOutcome {
    let start = std::time::Instant::now();
    let total: usize = job.folders.iter().map(|f| f.full.len() + f.partial.len()).sum::<usize>()
        + job.folders.iter().filter(|f| f.scan).map(|f| f.folder.markdown_files().len()).sum::<usize>();
    let mut done = 0usize;
    let mut folders = Vec::new();
    for f in &job.folders {
        folders.push(run_folder(f, &job, total, &mut done));
    }
    PassOutcome { seq: job.seq, folders, micros: start.elapsed().as_micros() }
}

fn run_folder(f: &FolderJob, job: &PassJob, total: usize, done: &mut usize) -> FolderOutcome {
    let tree: &dyn SourceTree = &*f.overlay;
    let mut session = Session::new(tree, &f.folder.cache, f.folder.check.clone());
    let mut out = FolderOutcome { fi: f.fi, folder: f.folder.clone(), scanned: f.scan, updated: Vec::new(), removed: Vec::new(), code: Vec::new() };
    let mut reports: Vec<Arc<DocReport>> = Vec::new();
    let mut handled: HashSet<String> = HashSet::new();
    let open_text: HashMap<&str, &Arc<DocText>> =
        f.full.iter().filter_map(|(rel, t)| t.as_ref().map(|t| (rel.as_str(), t))).collect();
    let mut full: Vec<(String, Option<Arc<DocText>>)> = f.full.clone();
    if f.scan {
        let on_disk = f.folder.markdown_files();
        for rel in &on_disk {
            if !open_text.contains_key(rel.as_str()) && !f.full.iter().any(|(r, _)| r == rel) {
                full.push((rel.clone(), None));
            }
        }
        // Reports of docs that vanished from the disk listing (and are not open).
        for rel in f.reports.keys() {
            if !f.open_docs.contains_key(rel) && on_disk.binary_search(rel).is_err() {
                out.removed.push(rel.clone());
            }
        }
    }
    let report_progress = |done: usize| {
        if let Some(p) = &job.progress {
            let _ = p.send((done, total));
        }
    };
    for (rel, text) in full {
        *done += 1;
        if (*done).is_multiple_of(16) {
            report_progress(*done);
        }
        handled.insert(rel.clone());
        let (version, text) = match text {
            Some(t) => (Some(t.version), t),
            None => match tree.read(&rel, f.folder.check.max_file_bytes) {
                Ok(t) => (None, Arc::new(DocText::new(0, t))),
                Err(_) => {
                    out.removed.push(rel);
                    continue;
                }
            },
        };
        // Open buffers are not size-checked by a read: the same per-file limit applies.
        if text.text.len() as u64 > f.folder.check.max_file_bytes {
            reports.push(Arc::new(DocReport::empty(&rel, version, text)));
            continue;
        }
        reports.push(Arc::new(DocReport::analyze(&mut session, &rel, version, text, job.settings.severity("code-mention").is_some())));
    }
    let changed = &f.code_changed;
    let global = f.global;
    let redo = |a: &AnchorResult| a.depends_on().any(|p| changed.contains(p)) || (global && a.is_global());
    for prev in &f.partial {
        if handled.contains(&prev.rel) {
            continue;
        }
        *done += 1;
        handled.insert(prev.rel.clone());
        reports.push(Arc::new(prev.reresolve(&mut session, &redo, f.files_changed)));
    }
    report_progress(*done);
    for r in &f.republish {
        if !handled.contains(&r.rel) {
            reports.push(r.clone());
        }
    }
    let folder = &f.folder;
    let uri_of = |rel: &str| folder.uri_of(rel);
    let mut lines = CodeLines::new(tree, folder.check.max_file_bytes);
    for r in reports {
        let diags = doc_diagnostics(&r, &job.settings, job.encoding, &uri_of, &mut lines);
        out.updated.push((r, diags));
    }
    // Code side: unsaved edits that turn anchors stale.
    let updated: HashMap<&str, &Arc<DocReport>> = out.updated.iter().map(|(r, _)| (r.rel.as_str(), r)).collect();
    for (rel, uri, text, docs) in &f.code_buffers {
        let diags = code_buffer_diagnostics(f, job, rel, text, docs, &updated);
        out.code.push((uri.clone(), text.version, diags));
    }
    out
}

/// Diagnostics on the declarations of an open code buffer that an unsaved edit makes
/// stale: the anchor is not fresh with the buffer but is fresh with the file on disk.
fn code_buffer_diagnostics(
    f: &FolderJob,
    job: &PassJob,
    rel: &str,
    text: &Arc<DocText>,
    docs: &HashSet<String>,
    updated: &HashMap<&str, &Arc<DocReport>>,
) -> Vec<Diagnostic> {
    let Some(severity) = job.settings.severity("will-go-stale") else { return Vec::new() };
    let max = f.folder.check.max_file_bytes;
    match f.folder.disk.read(rel, max) {
        Ok(disk) if *disk == *text.text => return Vec::new(),
        Err(_) => return Vec::new(),
        Ok(_) => {}
    }
    let mut disk_session = Session::new(&*f.folder.disk, &f.folder.cache, f.folder.check.clone());
    // Declaration (line, column, name) → doc lines.
    let mut by_decl: Vec<((u32, u32, String), Vec<Describer>)> = Vec::new();
    let mut docs: Vec<&String> = docs.iter().collect();
    docs.sort();
    for doc in docs {
        let Some(report) = updated.get(doc.as_str()).copied().or_else(|| f.reports.get(doc)) else { continue };
        for a in &report.analysis.anchors {
            if a.target_path() != Some(rel) || a.anchor.baseline.is_none() {
                continue;
            }
            if !matches!(a.verdict.state, State::Stale | State::Renamed | State::Lost | State::Moved | State::MovedRenamed) {
                continue;
            }
            let on_disk = disk_session.resolve(&a.anchor);
            if on_disk.state != State::Fresh {
                continue;
            }
            // Where the declaration is in the buffer (or was, on disk).
            let now = a.verdict.now.as_ref().filter(|n| n.path == rel).or(on_disk.now.as_ref());
            let Some(now) = now else { continue };
            let name = now.symbol.clone().unwrap_or_else(|| format!("lines {}-{}", now.line, now.end_line.unwrap_or(now.line)));
            let key = (now.line, now.column, name);
            let Some(doc_uri) = f.open_docs.get(doc).cloned().or_else(|| f.folder.uri_of(doc)) else { continue };
            let link = &a.anchor.link;
            let dix = &report.text.index;
            let base = report.base();
            let range = dix.range(&report.text.text, link.span.start + base..link.span.end + base, job.encoding);
            let d = Describer { doc_uri, doc_rel: doc.clone(), doc_line: a.anchor.line(), range };
            match by_decl.iter_mut().find(|(k, _)| *k == key) {
                Some((_, v)) => v.push(d),
                None => by_decl.push((key, vec![d])),
            }
        }
    }
    by_decl
        .into_iter()
        .map(|((line, col, name), describers)| {
            let simple = knit_syntax::decl::last_segment(&name).len() as u32;
            let start = position_of_line_col(&text.text, &text.index, line, col, job.encoding);
            let end = position_of_line_col(&text.text, &text.index, line, col + simple, job.encoding);
            will_go_stale(&name, Range::new(start, end), &describers, severity)
        })
        .collect()
}
