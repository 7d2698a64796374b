//! Per-workspace cache folder: parsed declarations by content hash (so a second
//! `knit check` parses nothing unchanged) and the last check's anchor states (so an
//! `unchecked` anchor can say what it was). Every entry is versioned; an entry that
//! fails to decode is treated as absent and rewritten — a corrupt cache is rebuilt,
//! never fatal.

use crate::files;
use knit_anchors::DeclStore;
use knit_syntax::{FileSyntax, Lang};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// `$KNIT_CACHE_DIR`, else the platform cache dir + `knit` (the temp dir when the
/// platform has none).
pub fn cache_base() -> PathBuf {
    if let Some(dir) = std::env::var_os("KNIT_CACHE_DIR").filter(|v| !v.is_empty()) {
        return PathBuf::from(dir);
    }
    dirs::cache_dir().unwrap_or_else(std::env::temp_dir).join("knit")
}

/// `$KNIT_STATE_DIR`, else the platform state dir (falling back to local data) + `knit`.
pub fn state_base() -> PathBuf {
    if let Some(dir) = std::env::var_os("KNIT_STATE_DIR").filter(|v| !v.is_empty()) {
        return PathBuf::from(dir);
    }
    dirs::state_dir().or_else(dirs::data_local_dir).unwrap_or_else(std::env::temp_dir).join("knit")
}

/// 16 hex chars of blake3 over the canonical root: one cache/state folder per workspace.
pub fn workspace_key(root: &Path) -> String {
    let canonical = root.canonicalize().unwrap_or_else(|_| root.to_path_buf());
    blake3::hash(canonical.to_string_lossy().as_bytes()).to_hex()[..16].to_string()
}

/// `<cache base>/<workspace key>`.
pub fn cache_dir_for(root: &Path) -> Option<PathBuf> {
    Some(cache_base().join(workspace_key(root)))
}

pub struct DiskDeclStore {
    dir: PathBuf,
}

impl DiskDeclStore {
    pub fn new(cache_dir: &Path) -> DiskDeclStore {
        // `-c`: entries carry a checksum; a folder of its own so an older knit never
        // decodes them as its unchecked format.
        DiskDeclStore { dir: cache_dir.join(format!("decls-v{}-c", knit_syntax::SCHEME_VERSION)) }
    }

    fn path(&self, lang: Lang, hash: &[u8; 32]) -> PathBuf {
        let hex: String = hash.iter().map(|b| format!("{b:02x}")).collect();
        self.dir.join(&hex[..2]).join(format!("{}-{}.bin", &hex[2..40], lang.name()))
    }
}

/// Bytes of the checksum that precedes every parse-cache entry.
const CHECKSUM_BYTES: usize = 16;
/// Entries larger than this are not read back (a parse of a ≤ 1 MiB file is far smaller).
const MAX_ENTRY_BYTES: u64 = 64 << 20;

impl DeclStore for DiskDeclStore {
    /// An entry whose checksum does not match its payload (a bit flip, a torn write, a
    /// planted file) is treated as absent: a corrupt cache never changes an answer.
    fn load(&self, lang: Lang, hash: &[u8; 32]) -> Option<FileSyntax> {
        let bytes = files::own_read(&self.path(lang, hash), MAX_ENTRY_BYTES)?;
        if bytes.len() < CHECKSUM_BYTES {
            return None;
        }
        let (sum, payload) = bytes.split_at(CHECKSUM_BYTES);
        if blake3::hash(payload).as_bytes()[..CHECKSUM_BYTES] != *sum {
            return None;
        }
        postcard::from_bytes(payload).ok()
    }

    fn save(&self, lang: Lang, hash: &[u8; 32], syntax: &FileSyntax) {
        let path = self.path(lang, hash);
        let Ok(payload) = postcard::to_stdvec(syntax) else { return };
        let mut bytes = Vec::with_capacity(payload.len() + CHECKSUM_BYTES);
        bytes.extend_from_slice(&blake3::hash(&payload).as_bytes()[..CHECKSUM_BYTES]);
        bytes.extend_from_slice(&payload);
        // Write-then-rename: a crash never leaves a half-written entry under the name.
        let _ = files::own_write(&path, &bytes);
    }
}

/// The states file is refused beyond this size (and then starts afresh).
const MAX_STATES_BYTES: u64 = 64 << 20;

/// The last check's state of every anchor, by id.
pub struct StateStore {
    path: PathBuf,
}

impl StateStore {
    pub fn new(cache_dir: &Path) -> StateStore {
        StateStore { path: cache_dir.join("states-v1.json") }
    }

    pub fn load(&self) -> HashMap<String, String> {
        files::own_read(&self.path, MAX_STATES_BYTES).and_then(|b| serde_json::from_slice(&b).ok()).unwrap_or_default()
    }

    /// Merges `states` in (unchecked anchors keep their previous entry).
    pub fn save(&self, states: &HashMap<String, String>) {
        let mut all = self.load();
        for (k, v) in states {
            if v != "unchecked" {
                all.insert(k.clone(), v.clone());
            }
        }
        if let Ok(text) = serde_json::to_vec(&all) {
            let _ = files::own_write(&self.path, &text);
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
        // A single flipped bit anywhere in a valid entry is caught by the checksum, even
        // where the payload would still decode (a changed fingerprint byte).
        store.save(Lang::TypeScript, &key, &syn);
        let path = store.path(Lang::TypeScript, &key);
        let good = std::fs::read(&path).unwrap();
        for i in 0..good.len() {
            let mut bad = good.clone();
            bad[i] ^= 0x10;
            std::fs::write(&path, &bad).unwrap();
            assert_eq!(store.load(Lang::TypeScript, &key), None, "flip at byte {i}");
        }
        store.save(Lang::TypeScript, &key, &syn);
        assert_eq!(store.load(Lang::TypeScript, &key), Some(syn));
    }
}
