//! Per-workspace cache folder: parsed declarations by content hash (so a second
//! `knit check` parses nothing unchanged) and the last check's anchor states (so an
//! `unchecked` anchor can say what it was). Every entry is versioned; an entry that
//! fails to decode is treated as absent and rewritten — a corrupt cache is rebuilt,
//! never fatal.

use knit_anchors::DeclStore;
use knit_syntax::{FileSyntax, Lang};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// `$KNIT_CACHE_DIR/<root-hash>` or `<user cache dir>/knit/<root-hash>`.
pub fn cache_dir_for(root: &Path) -> Option<PathBuf> {
    let base = match std::env::var_os("KNIT_CACHE_DIR") {
        Some(d) => PathBuf::from(d),
        None => dirs::cache_dir()?.join("knit"),
    };
    let key = blake3::hash(root.to_string_lossy().as_bytes()).to_hex();
    Some(base.join(&key[..16]))
}

pub struct DiskDeclStore {
    dir: PathBuf,
}

impl DiskDeclStore {
    pub fn new(cache_dir: &Path) -> DiskDeclStore {
        DiskDeclStore { dir: cache_dir.join(format!("decls-v{}", knit_syntax::SCHEME_VERSION)) }
    }

    fn path(&self, lang: Lang, hash: &[u8; 32]) -> PathBuf {
        let hex: String = hash.iter().map(|b| format!("{b:02x}")).collect();
        self.dir.join(&hex[..2]).join(format!("{}-{}.bin", &hex[2..40], lang.name()))
    }
}

impl DeclStore for DiskDeclStore {
    fn load(&self, lang: Lang, hash: &[u8; 32]) -> Option<FileSyntax> {
        let bytes = std::fs::read(self.path(lang, hash)).ok()?;
        postcard::from_bytes(&bytes).ok()
    }

    fn save(&self, lang: Lang, hash: &[u8; 32], syntax: &FileSyntax) {
        let path = self.path(lang, hash);
        let Ok(bytes) = postcard::to_stdvec(syntax) else { return };
        if let Some(parent) = path.parent() {
            if std::fs::create_dir_all(parent).is_err() {
                return;
            }
        }
        // Write-then-rename: a crash never leaves a half-written entry under the name.
        let tmp = path.with_extension(format!("tmp{}", std::process::id()));
        if std::fs::write(&tmp, bytes).is_ok() {
            let _ = std::fs::rename(&tmp, &path);
        }
    }
}

/// The last check's state of every anchor, by id.
pub struct StateStore {
    path: PathBuf,
}

impl StateStore {
    pub fn new(cache_dir: &Path) -> StateStore {
        StateStore { path: cache_dir.join("states-v1.json") }
    }

    pub fn load(&self) -> HashMap<String, String> {
        std::fs::read_to_string(&self.path).ok().and_then(|t| serde_json::from_str(&t).ok()).unwrap_or_default()
    }

    /// Merges `states` in (unchecked anchors keep their previous entry).
    pub fn save(&self, states: &HashMap<String, String>) {
        let mut all = self.load();
        for (k, v) in states {
            if v != "unchecked" {
                all.insert(k.clone(), v.clone());
            }
        }
        if let Some(parent) = self.path.parent() {
            let _ = std::fs::create_dir_all(parent);
        }
        if let Ok(text) = serde_json::to_string(&all) {
            let tmp = self.path.with_extension("tmp");
            if std::fs::write(&tmp, text).is_ok() {
                let _ = std::fs::rename(&tmp, &self.path);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn corrupt_entries_are_rebuilt() {
        let dir = tempfile::tempdir().unwrap();
        let store = DiskDeclStore::new(dir.path());
        let syn = knit_syntax::parse(Lang::TypeScript, "export function f() { return 1 }");
        let key = [7u8; 32];
        store.save(Lang::TypeScript, &key, &syn);
        assert_eq!(store.load(Lang::TypeScript, &key), Some(syn.clone()));
        std::fs::write(store.path(Lang::TypeScript, &key), b"garbage").unwrap();
        assert_eq!(store.load(Lang::TypeScript, &key), None);
        store.save(Lang::TypeScript, &key, &syn);
        assert_eq!(store.load(Lang::TypeScript, &key), Some(syn));
    }
}
