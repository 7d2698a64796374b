//! One workspace folder = one engine: its root (as the client names it and as the disk
//! resolves it), its `knit.toml`, the disk tree and the parse cache that lives as long
//! as the server. Multi-root workspaces hold several; a file belongs to the deepest
//! folder that contains it.

use knit_anchors::{CheckConfig, DeclCache};
use knit_workspace::{Config, DiskDeclStore, DiskTree};
use std::path::{Component, Path, PathBuf};
use knit_context::ContextEngine;
use std::sync::{Arc, Mutex};
use tower_lsp_server::ls_types::Uri;

pub struct Folder {
    /// The root as the client spelled it (URIs we publish use this form).
    pub root: PathBuf,
    /// The root with symlinks resolved (what the disk tree uses).
    pub canonical: PathBuf,
    pub disk: Arc<DiskTree>,
    /// Parses by content hash, shared by every check of this folder for the server's life.
    pub cache: Arc<DeclCache>,
    pub check: CheckConfig,
    /// Folders whose Markdown is never checked (`knit.toml` `check.exclude`).
    pub exclude: Vec<String>,
    /// `knit.toml` did not load (the defaults are used; the message is shown once).
    pub config_error: Option<String>,
    /// The context engine of this folder, opened on first use (it builds an index).
    pub context: Arc<ContextSlot>,
}

/// The context engine and the read evidence that arrived before it was opened.
#[derive(Default)]
pub struct ContextSlot {
    pub engine: Mutex<Option<ContextEngine>>,
    pub pending_reads: Mutex<Vec<(String, Arc<str>)>>,
}

impl ContextSlot {
    /// A file was saved, changed on disk, created or deleted: the context index, if
    /// open, updates that file (a closed index catches up when it opens).
    pub fn file_changed(&self, rel: &str, deleted: bool) {
        if let Ok(mut g) = self.engine.lock() {
            if let Some(e) = g.as_mut() {
                let _ = if deleted { e.file_removed(rel) } else { e.file_changed(rel) };
            }
        }
    }
}

impl Folder {
    pub fn open(root: &Path) -> Folder {
        let canonical = knit_workspace::files::canonical_or_self(root);
        let (config, config_error) = match Config::load(&canonical) {
            Ok(c) => (c, None),
            Err(e) => (Config::default(), Some(e.to_string())),
        };
        let cache = match knit_workspace::housekeeping::workspace_cache(&canonical) {
            Some(dir) => DeclCache::with_store(Box::new(DiskDeclStore::new(&dir))),
            None => DeclCache::default(),
        };
        Folder {
            root: root.to_path_buf(),
            disk: Arc::new(DiskTree::new(&canonical)),
            canonical,
            cache: Arc::new(cache),
            check: config.check_config(),
            exclude: config.check.exclude.clone(),
            config_error,
            context: Arc::new(ContextSlot::default()),
        }
    }

    /// The same folder with a fresh file list (after files were created or deleted) and
    /// `knit.toml` re-read; the parse cache is kept.
    pub fn refreshed(&self) -> Folder {
        let (config, config_error) = match Config::load(&self.canonical) {
            Ok(c) => (c, None),
            Err(e) => (Config::default(), Some(e.to_string())),
        };
        Folder {
            root: self.root.clone(),
            canonical: self.canonical.clone(),
            disk: Arc::new(DiskTree::new(&self.canonical)),
            cache: self.cache.clone(),
            check: config.check_config(),
            exclude: config.check.exclude.clone(),
            config_error,
            context: self.context.clone(),
        }
    }

    /// Workspace-relative `/` path of an absolute path inside this folder.
    pub fn relative(&self, path: &Path) -> Option<String> {
        let rel = path.strip_prefix(&self.root).or_else(|_| path.strip_prefix(&self.canonical)).ok()?;
        let mut parts = Vec::new();
        for c in rel.components() {
            match c {
                Component::Normal(s) => parts.push(s.to_str()?.to_string()),
                Component::CurDir => {}
                _ => return None,
            }
        }
        Some(parts.join("/"))
    }

    /// Depth of the root, to pick the deepest folder containing a file.
    pub fn depth(&self) -> usize {
        self.root.components().count()
    }

    pub fn uri_of(&self, rel: &str) -> Option<Uri> {
        Uri::from_file_path(self.root.join(rel))
    }

    /// Markdown files knit checks in this folder.
    pub fn markdown_files(&self) -> Vec<String> {
        self.disk.markdown_under(&[], &self.exclude)
    }

    pub fn is_excluded_doc(&self, rel: &str) -> bool {
        self.exclude.iter().any(|x| rel.starts_with(&format!("{}/", x.trim_end_matches('/'))))
    }
}

/// Absolute file path of a `file:` URI (None for other schemes).
pub fn uri_path(uri: &Uri) -> Option<PathBuf> {
    if uri.scheme().as_str() != "file" {
        return None;
    }
    let p = uri.to_file_path()?.into_owned();
    p.is_absolute().then_some(p)
}
