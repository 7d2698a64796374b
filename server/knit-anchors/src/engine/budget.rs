//! What one check may spend (DESIGN 1.4): files, bytes and time, shared by parallel
//! readers. The first limit hit is recorded and every later read is refused, so answers
//! that needed the refused reads say `unchecked`, and the report says `complete: false`.

use crate::model::BudgetReport;
use crate::source::DeclCache;
use knit_syntax::{FileSyntax, Lang};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Limits of one check (DESIGN 1.4); configurable through `knit.toml`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CheckConfig {
    pub max_files: u64,
    pub max_bytes: u64,
    pub max_millis: u64,
    pub max_file_bytes: u64,
    pub repo_max_files: u64,
}

impl Default for CheckConfig {
    fn default() -> Self {
        CheckConfig {
            max_files: 2000,
            max_bytes: 32 * 1024 * 1024,
            max_millis: 30_000,
            max_file_bytes: 1024 * 1024,
            repo_max_files: 4000,
        }
    }
}

/// Files, bytes and time spent; shared by parallel readers.
pub struct Budget {
    pub(crate) cfg: CheckConfig,
    files: AtomicU64,
    bytes: AtomicU64,
    start: Instant,
    limit: Mutex<Option<&'static str>>,
}

impl Budget {
    pub fn new(cfg: CheckConfig) -> Self {
        Budget { cfg, files: AtomicU64::new(0), bytes: AtomicU64::new(0), start: Instant::now(), limit: Mutex::new(None) }
    }

    /// Asks for one more file read; false (and the limit recorded) when exhausted.
    pub(super) fn admit(&self) -> bool {
        if self.limit().is_some() {
            return false;
        }
        let hit = if self.files.load(Ordering::Relaxed) >= self.cfg.max_files {
            Some("files")
        } else if self.bytes.load(Ordering::Relaxed) >= self.cfg.max_bytes {
            Some("bytes")
        } else if self.start.elapsed().as_millis() as u64 >= self.cfg.max_millis {
            Some("time")
        } else {
            None
        };
        if let Some(l) = hit {
            if let Ok(mut g) = self.limit.lock() {
                g.get_or_insert(l);
            }
            return false;
        }
        self.files.fetch_add(1, Ordering::Relaxed);
        true
    }

    pub(super) fn spend(&self, bytes: u64) {
        self.bytes.fetch_add(bytes, Ordering::Relaxed);
    }

    pub fn limit(&self) -> Option<&'static str> {
        self.limit.lock().ok().and_then(|g| *g)
    }

    /// When the time budget runs out (None: unlimited), for parses to stop inside a file.
    pub fn deadline(&self) -> Option<Instant> {
        self.start.checked_add(Duration::from_millis(self.cfg.max_millis))
    }

    /// Parses through `cache` under the deadline; a file cut short by it spends the time
    /// budget (recorded as the limit), so the check reports `complete: false`.
    pub(super) fn parse(&self, cache: &DeclCache, lang: Lang, text: &str) -> Arc<FileSyntax> {
        let syntax = cache.parse_until(lang, text, self.deadline());
        if syntax.timed_out {
            if let Ok(mut g) = self.limit.lock() {
                g.get_or_insert("time");
            }
        }
        syntax
    }

    pub fn report(&self) -> BudgetReport {
        BudgetReport {
            files_read: self.files.load(Ordering::Relaxed),
            bytes_read: self.bytes.load(Ordering::Relaxed),
            elapsed_ms: self.start.elapsed().as_millis() as u64,
            limit: self.limit(),
        }
    }
}
