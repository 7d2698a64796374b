//! The workspace as the engine sees it from the editor: open buffers (unsaved edits
//! count) over the disk. A [`SourceTree`] that is immutable once built, so a check runs
//! on one consistent state while the writer moves on.

use knit_anchors::{ReadError, SourceTree};
use knit_workspace::DiskTree;
use std::collections::HashMap;
use std::sync::{Arc, OnceLock};

pub struct OverlayTree {
    pub disk: Arc<DiskTree>,
    /// Workspace-relative path → buffer text.
    pub buffers: Arc<HashMap<String, Arc<str>>>,
    files: OnceLock<Arc<Vec<String>>>,
}

impl OverlayTree {
    pub fn new(disk: Arc<DiskTree>, buffers: Arc<HashMap<String, Arc<str>>>) -> OverlayTree {
        OverlayTree { disk, buffers, files: OnceLock::new() }
    }
}

impl SourceTree for OverlayTree {
    fn files(&self) -> Arc<Vec<String>> {
        self.files
            .get_or_init(|| {
                let disk = self.disk.files();
                // Unsaved new files exist for the engine too.
                let extra: Vec<&String> = self.buffers.keys().filter(|p| disk.binary_search(p).is_err()).collect();
                if extra.is_empty() {
                    return disk;
                }
                let mut all: Vec<String> = disk.iter().cloned().chain(extra.into_iter().cloned()).collect();
                all.sort();
                Arc::new(all)
            })
            .clone()
    }

    fn read(&self, path: &str, max_bytes: u64) -> Result<Arc<str>, ReadError> {
        match self.buffers.get(path) {
            Some(t) if t.len() as u64 > max_bytes => Err(ReadError::TooLarge(t.len() as u64)),
            Some(t) => Ok(t.clone()),
            None => self.disk.read(path, max_bytes),
        }
    }

    fn exists(&self, path: &str) -> bool {
        self.buffers.contains_key(path) || self.disk.exists(path)
    }

    fn ignored_by(&self, path: &str) -> Option<String> {
        self.disk.ignored_by(path)
    }
}
