//! Shared by the anchor engine's integration tests: loading a folder on disk into an
//! in-memory workspace (the engine itself never touches the disk).

use knit_anchors::MemTree;
use std::path::Path;

/// Adds every file under `dir` to `tree`, keyed by its `/`-separated path relative to `root`.
pub fn load_dir(tree: &mut MemTree, root: &Path, dir: &Path) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            load_dir(tree, root, &p);
        } else if let Ok(bytes) = std::fs::read(&p) {
            let rel = p.strip_prefix(root).unwrap().to_string_lossy().replace('\\', "/");
            tree.insert(&rel, bytes);
        }
    }
}
