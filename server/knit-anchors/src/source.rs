//! The only door to the outside world: the engine reads files through [`SourceTree`]
//! and caches parses through [`DeclCache`]. The CLI backs the tree with the disk, the
//! language server with open buffers over the disk, tests with [`MemTree`].

use knit_syntax::{FileSyntax, Lang};
use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};
use std::time::Instant;

/// Why a file could not be read as text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ReadError {
    Missing,
    /// Larger than the per-file limit (size in bytes).
    TooLarge(u64),
    /// Contains NUL bytes.
    Binary,
    NotUtf8,
    /// Resolves outside the workspace root (through a symlink).
    Outside,
    Io(String),
}

impl std::fmt::Display for ReadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ReadError::Missing => write!(f, "file not found"),
            ReadError::TooLarge(n) => write!(f, "file is too large ({n} bytes)"),
            ReadError::Binary => write!(f, "binary file"),
            ReadError::NotUtf8 => write!(f, "file is not valid UTF-8"),
            ReadError::Outside => write!(f, "path resolves outside the workspace"),
            ReadError::Io(e) => write!(f, "cannot read file: {e}"),
        }
    }
}

/// A workspace as the engine sees it. Paths are workspace-relative with `/` separators.
pub trait SourceTree: Sync {
    /// Every file knit may consider (ignore rules applied), sorted.
    fn files(&self) -> Arc<Vec<String>>;
    /// Reads a file as UTF-8 text, refusing files over `max_bytes`.
    fn read(&self, path: &str, max_bytes: u64) -> Result<Arc<str>, ReadError>;
    /// Whether a file or folder exists at `path` (inside the workspace).
    fn exists(&self, path: &str) -> bool;
    /// The ignore file (`docs/.gitignore`) whose rules cover `path`, when one does: a
    /// link to such a path that does not exist most likely names a generated file (a
    /// docs build writes it). None where the tree has no ignore rules.
    fn ignored_by(&self, _path: &str) -> Option<String> {
        None
    }
}

/// Parsed files by content, shared across checks: a second check parses nothing
/// unchanged. An optional [`DeclStore`] persists entries across processes.
#[derive(Default)]
pub struct DeclCache {
    map: Mutex<LruMap>,
    store: Option<Box<dyn DeclStore>>,
    /// Look-ups so far (each hashes the whole text): tests hold a check to one per file.
    #[cfg(test)]
    lookups: std::sync::atomic::AtomicU64,
}

/// At most this many parses are kept in memory. Above the repository-wide stages' file
/// budget (4 000) so one check never evicts what it still needs, and small enough that a
/// long editor session — every keystroke is new content — keeps flat memory.
pub const DECL_CACHE_ENTRIES: usize = 8192;

/// Parses by content with a use clock: when full, the least recently used half goes.
#[derive(Default)]
struct LruMap {
    entries: HashMap<(Lang, [u8; 32]), (Arc<FileSyntax>, u64)>,
    clock: u64,
}

impl LruMap {
    fn get(&mut self, key: &(Lang, [u8; 32])) -> Option<Arc<FileSyntax>> {
        self.clock += 1;
        let now = self.clock;
        self.entries.get_mut(key).map(|(v, used)| {
            *used = now;
            v.clone()
        })
    }

    fn insert(&mut self, key: (Lang, [u8; 32]), value: Arc<FileSyntax>) {
        if self.entries.len() >= DECL_CACHE_ENTRIES {
            let mut ages: Vec<u64> = self.entries.values().map(|(_, used)| *used).collect();
            let mid = ages.len() / 2;
            let (_, cut, _) = ages.select_nth_unstable(mid);
            let cut = *cut;
            self.entries.retain(|_, (_, used)| *used > cut);
        }
        self.clock += 1;
        self.entries.insert(key, (value, self.clock));
    }

    #[cfg(test)]
    fn len(&self) -> usize {
        self.entries.len()
    }
}

/// Persistence for [`DeclCache`] (the CLI keeps it in the user's cache directory).
pub trait DeclStore: Send + Sync {
    fn load(&self, lang: Lang, content_hash: &[u8; 32]) -> Option<FileSyntax>;
    fn save(&self, lang: Lang, content_hash: &[u8; 32], syntax: &FileSyntax);
}

impl DeclCache {
    pub fn with_store(store: Box<dyn DeclStore>) -> Self {
        DeclCache { store: Some(store), ..DeclCache::default() }
    }

    /// The declarations of `text` parsed as `lang`, from cache when possible.
    pub fn parse(&self, lang: Lang, text: &str) -> Arc<FileSyntax> {
        self.parse_until(lang, text, None)
    }

    /// [`DeclCache::parse`] under a deadline (a check's time budget): parsing and
    /// extraction stop inside the file once it passes, and the result is then marked
    /// [`FileSyntax::timed_out`]. A file cut short is never cached, in memory or in the
    /// store: the next check reads it again.
    pub fn parse_until(&self, lang: Lang, text: &str, deadline: Option<Instant>) -> Arc<FileSyntax> {
        #[cfg(test)]
        self.lookups.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let key = *blake3::hash(text.as_bytes()).as_bytes();
        if let Some(hit) = self.map.lock().ok().and_then(|mut m| m.get(&(lang, key))) {
            return hit;
        }
        let stored = self.store.as_ref().and_then(|s| s.load(lang, &key)).filter(|f| !f.timed_out);
        let syntax = match stored {
            Some(s) => s,
            None => {
                let parsed = knit_syntax::parse_with_deadline(lang, text, deadline);
                if parsed.timed_out {
                    return Arc::new(parsed);
                }
                if let Some(s) = &self.store {
                    s.save(lang, &key, &parsed);
                }
                parsed
            }
        };
        let syntax = Arc::new(syntax);
        if let Ok(mut m) = self.map.lock() {
            m.insert((lang, key), syntax.clone());
        }
        syntax
    }
}

/// An in-memory workspace (tests, fixtures, the LSP's overlay building block).
#[derive(Clone, Default, Debug)]
pub struct MemTree {
    pub files: BTreeMap<String, Vec<u8>>,
}

impl MemTree {
    pub fn new() -> Self {
        Self::default()
    }
    pub fn insert(&mut self, path: &str, content: impl Into<Vec<u8>>) {
        self.files.insert(path.to_string(), content.into());
    }
    pub fn remove(&mut self, path: &str) {
        self.files.remove(path);
    }
    pub fn text(&self, path: &str) -> Option<&str> {
        self.files.get(path).and_then(|b| std::str::from_utf8(b).ok())
    }
}

/// Shared validation of raw bytes into text (used by every tree implementation).
pub fn bytes_to_text(bytes: Vec<u8>) -> Result<Arc<str>, ReadError> {
    if bytes.contains(&0) {
        return Err(ReadError::Binary);
    }
    String::from_utf8(bytes).map(Arc::from).map_err(|_| ReadError::NotUtf8)
}

impl SourceTree for MemTree {
    fn files(&self) -> Arc<Vec<String>> {
        Arc::new(self.files.keys().cloned().collect())
    }
    fn read(&self, path: &str, max_bytes: u64) -> Result<Arc<str>, ReadError> {
        let bytes = self.files.get(path).ok_or(ReadError::Missing)?;
        if bytes.len() as u64 > max_bytes {
            return Err(ReadError::TooLarge(bytes.len() as u64));
        }
        // Validated in place, then copied once (not cloned and then copied into the Arc).
        if bytes.contains(&0) {
            return Err(ReadError::Binary);
        }
        std::str::from_utf8(bytes).map(Arc::from).map_err(|_| ReadError::NotUtf8)
    }
    fn exists(&self, path: &str) -> bool {
        let p = path.trim_end_matches('/');
        self.files.contains_key(p) || self.files.keys().any(|k| k.starts_with(&format!("{p}/")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_check_looks_a_file_up_in_the_parse_cache_once_however_many_anchors_it_has() {
        // The cache is keyed by a hash of the whole text: asked once per anchor, a check
        // of a file anchored everywhere hashed it once per anchor (quadratic).
        let mut tree = MemTree::new();
        tree.insert("src/a.ts", (0..40).map(|i| format!("export function f{i}() {{ return {i}; }}\n")).collect::<String>());
        tree.insert("docs/a.md", (0..40).map(|i| format!("- [f{i}](../src/a.ts#f{i})\n")).collect::<String>());
        let cache = DeclCache::default();
        let cfg = crate::engine::CheckConfig::default();
        let report = crate::engine::check(&tree, &cache, &cfg, &["docs/a.md".to_string()], &Default::default());
        assert_eq!(report.anchors.len(), 40);
        assert!(report.anchors.iter().all(|a| a.detail.now.as_ref().is_some_and(|n| n.path == "src/a.ts")), "every anchor resolved");
        assert_eq!(cache.lookups.load(std::sync::atomic::Ordering::Relaxed), 1);
    }

    #[test]
    fn the_parse_cache_is_bounded_and_keeps_what_is_used() {
        let cache = DeclCache::default();
        let hot = "export function hot() { return 1 }";
        cache.parse(Lang::TypeScript, hot);
        for i in 0..(DECL_CACHE_ENTRIES + 100) {
            cache.parse(Lang::TypeScript, &format!("export const v{i} = {i};"));
            if i % 64 == 0 {
                cache.parse(Lang::TypeScript, hot);
            }
        }
        let m = cache.map.lock().unwrap();
        assert!(m.len() <= DECL_CACHE_ENTRIES, "{} entries", m.len());
        let key = (Lang::TypeScript, *blake3::hash(hot.as_bytes()).as_bytes());
        assert!(m.entries.contains_key(&key), "a recently used parse was evicted");
    }

    /// Counts what reaches the persistent store.
    #[derive(Default)]
    struct Saves(Arc<Mutex<u32>>);

    impl DeclStore for Saves {
        fn load(&self, _: Lang, _: &[u8; 32]) -> Option<FileSyntax> {
            None
        }
        fn save(&self, _: Lang, _: &[u8; 32], _: &FileSyntax) {
            *self.0.lock().unwrap() += 1;
        }
    }

    #[test]
    fn a_parse_cut_short_by_the_deadline_is_never_cached() {
        let saves = Arc::new(Mutex::new(0));
        let cache = DeclCache::with_store(Box::new(Saves(saves.clone())));
        let text = "export function f() { return 1 }\n".repeat(2000);
        let past = Instant::now();
        let cut = cache.parse_until(Lang::TypeScript, &text, Some(past));
        assert!(cut.timed_out && cut.declarations.is_empty());
        assert_eq!(*saves.lock().unwrap(), 0, "a file cut short reached the store");
        // Not in memory either: the next parse without a deadline reads the whole file.
        let full = cache.parse(Lang::TypeScript, &text);
        assert!(!full.timed_out);
        assert_eq!(full.declarations.len(), 2000);
        assert_eq!(*saves.lock().unwrap(), 1);
        // A complete result is served from memory, even under a deadline already passed.
        assert!(!cache.parse_until(Lang::TypeScript, &text, Some(past)).timed_out);
    }
}
