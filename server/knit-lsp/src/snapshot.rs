//! The immutable view request handlers work on: open buffers at one version, every
//! folder's overlay tree and its latest doc reports, the settings and the negotiated
//! encoding. Built by the writer (`world`) on demand and shared by `Arc`; a handler never
//! sees a half-applied change.

use crate::analysis::DocReport;
use crate::config::Settings;
use crate::document::{DocText, FileKind};
use crate::folder::{uri_path, Folder};
use crate::overlay::OverlayTree;
use crate::position::Encoding;
use knit_anchors::{Anchor, CheckConfig, Session, SourceTree, Verdict};
use std::collections::HashMap;
use std::sync::Arc;
use tower_lsp_server::ls_types::Uri;

/// What the client can do (from `initialize`).
#[derive(Clone, Debug, Default)]
pub struct ClientCaps {
    pub work_done_progress: bool,
    pub watch_dynamic: bool,
    pub document_changes: bool,
    pub code_lens_refresh: bool,
}

#[derive(Clone)]
pub struct OpenDoc {
    pub uri: Uri,
    pub kind: FileKind,
    pub text: Arc<DocText>,
    /// Folder index and workspace-relative path (None: outside every folder).
    pub loc: Option<(usize, String)>,
    /// 1-based lines edited recently (for the context pack's task).
    pub recent_edit_lines: Vec<u32>,
}

pub struct FolderSnap {
    pub folder: Arc<Folder>,
    pub overlay: Arc<OverlayTree>,
    pub reports: Arc<HashMap<String, Arc<DocReport>>>,
}

impl FolderSnap {
    pub fn session(&self) -> Session<'_> {
        Session::new(&*self.overlay, &self.folder.cache, self.check())
    }
    pub fn check(&self) -> CheckConfig {
        self.folder.check.clone()
    }
}

pub struct Snapshot {
    pub encoding: Encoding,
    pub settings: Arc<Settings>,
    pub caps: ClientCaps,
    pub docs: HashMap<Uri, OpenDoc>,
    pub folders: Vec<FolderSnap>,
    /// Open buffers, most recently focused or edited first.
    pub recency: Vec<Uri>,
    /// Suffix of command ids when `uniqueCommandIds` is on.
    pub instance: String,
}

/// A file a request is about: its folder, path and text.
pub struct Located<'s> {
    pub folder: &'s FolderSnap,
    pub fi: usize,
    pub rel: String,
    pub kind: FileKind,
    pub text: Arc<DocText>,
    /// Buffer version (None: read from disk).
    pub version: Option<i32>,
}

impl Snapshot {
    /// Folder index and relative path of a URI: the deepest folder that contains it.
    pub fn locate_uri(&self, uri: &Uri) -> Option<(usize, String)> {
        if let Some(d) = self.docs.get(uri) {
            return d.loc.clone();
        }
        locate(self.folders.iter().map(|f| &*f.folder), uri)
    }

    /// The file of a request: open buffer, else read from disk (through the folder's
    /// root-confined tree, so files outside the workspace are never read).
    pub fn file(&self, uri: &Uri) -> Option<Located<'_>> {
        let (fi, rel) = self.locate_uri(uri)?;
        let folder = self.folders.get(fi)?;
        if let Some(d) = self.docs.get(uri) {
            return Some(Located { folder, fi, rel, kind: d.kind, version: Some(d.text.version), text: d.text.clone() });
        }
        let text = folder.overlay.read(&rel, folder.folder.check.max_file_bytes).ok()?;
        let kind = FileKind::of(&rel, None);
        Some(Located { folder, fi, rel, kind, version: None, text: Arc::new(DocText::new(0, text)) })
    }

    /// The report of a doc if it was computed for exactly this text.
    pub fn report_for(&self, loc: &Located) -> Option<Arc<DocReport>> {
        let r = loc.folder.reports.get(&loc.rel)?;
        (Arc::ptr_eq(&r.text.text, &loc.text.text) || *r.text.text == *loc.text.text).then(|| r.clone())
    }

    /// The report of a doc at its current text, computed now if the stored one is older.
    pub fn doc_report(&self, loc: &Located) -> Arc<DocReport> {
        if let Some(r) = self.report_for(loc) {
            return r;
        }
        if loc.text.text.len() as u64 > loc.folder.folder.check.max_file_bytes {
            return Arc::new(DocReport::empty(&loc.rel, loc.version, loc.text.clone()));
        }
        let mut session = loc.folder.session();
        Arc::new(DocReport::analyze(&mut session, &loc.rel, loc.version, loc.text.clone(), self.settings.severity("code-mention").is_some()))
    }

    pub fn command(&self, id: &str) -> String {
        if self.settings.unique_command_ids {
            format!("{id}/{}", self.instance)
        } else {
            id.to_string()
        }
    }
}

/// The deepest folder containing `uri`'s path, with the relative path.
pub fn locate<'a>(folders: impl Iterator<Item = &'a Folder>, uri: &Uri) -> Option<(usize, String)> {
    let path = uri_path(uri)?;
    folders
        .enumerate()
        .filter_map(|(i, f)| f.relative(&path).map(|rel| (i, rel, f.depth())))
        .filter(|(_, rel, _)| !rel.is_empty())
        .max_by_key(|(_, _, depth)| *depth)
        .map(|(i, rel, _)| (i, rel))
}

/// Resolves `a` freshly (used when no stored verdict matches the text).
pub fn resolve_now(folder: &FolderSnap, a: &Anchor) -> Verdict {
    folder.session().resolve(a)
}
