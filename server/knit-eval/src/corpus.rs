//! The candidate set every ranker works over, and the baselines' per-file statistics.
//!
//! Candidates are the files knit's own walk finds (`knit_context::fsio::walk_workspace`:
//! `.gitignore` respected, hidden and noise folders skipped) of kind doc or code that read
//! as text within knit's size limit — the files knit could put in a pack with content.
//! (knit also lists media by name; those are never ground truth here.)
//!
//! Per file the corpus keeps the text (for grep), term frequencies and length (for BM25)
//! and whole-identifier counts (for the open-file query), plus document frequencies over
//! the workspace. It is updated incrementally: a file is analysed again only when its
//! content identity changed — its git blob id when known, else its size and mtime.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;

use knit_context::fsio::{self, ReadOutcome};
use knit_context::Kind;

use crate::tokens;

pub struct FileEntry {
    /// Content identity: blob id, or `mtime:size`.
    identity: String,
    /// Lowercased text (grep is case-insensitive).
    pub lower: String,
    /// (term id, count), sorted by id.
    pub terms: Vec<(u32, u32)>,
    /// Total term count.
    pub length: u32,
    /// (identifier id, count), sorted by id.
    pub idents: Vec<(u32, u32)>,
}

impl FileEntry {
    pub fn tf(&self, term: u32) -> u32 {
        self.terms.binary_search_by_key(&term, |e| e.0).map(|i| self.terms[i].1).unwrap_or(0)
    }
}

#[derive(Default)]
pub struct Corpus {
    vocab: HashMap<String, u32>,
    names: Vec<String>,
    files: BTreeMap<String, FileEntry>,
    term_df: Vec<u32>,
    ident_df: Vec<u32>,
    total_length: u64,
}

/// What one refresh changed.
#[derive(Debug, Clone, Copy, Default)]
pub struct CorpusRefresh {
    pub analysed: usize,
    pub removed: usize,
}

fn counted(items: impl IntoIterator<Item = u32>) -> Vec<(u32, u32)> {
    let mut map: HashMap<u32, u32> = HashMap::new();
    for id in items {
        *map.entry(id).or_default() += 1;
    }
    let mut v: Vec<(u32, u32)> = map.into_iter().collect();
    v.sort_unstable();
    v
}

impl Corpus {
    fn intern(&mut self, term: String) -> u32 {
        if let Some(&id) = self.vocab.get(&term) {
            return id;
        }
        let id = self.names.len() as u32;
        self.names.push(term.clone());
        self.vocab.insert(term, id);
        self.term_df.push(0);
        self.ident_df.push(0);
        id
    }

    pub fn id(&self, term: &str) -> Option<u32> {
        self.vocab.get(term).copied()
    }

    fn analyse(&mut self, text: String, identity: String) -> FileEntry {
        let mut term_ids = Vec::new();
        tokens::terms(&text, |t| term_ids.push(t));
        let term_ids: Vec<u32> = term_ids.into_iter().map(|t| self.intern(t)).collect();
        let mut ident_ids = Vec::new();
        tokens::identifiers(&text, |lower, _| ident_ids.push(lower));
        let ident_ids: Vec<u32> = ident_ids.into_iter().map(|t| self.intern(t)).collect();
        FileEntry { identity, lower: text.to_lowercase(), length: term_ids.len() as u32, terms: counted(term_ids), idents: counted(ident_ids) }
    }

    fn account(&mut self, entry: &FileEntry, sign: i64) {
        for &(id, _) in &entry.terms {
            self.term_df[id as usize] = (self.term_df[id as usize] as i64 + sign) as u32;
        }
        for &(id, _) in &entry.idents {
            self.ident_df[id as usize] = (self.ident_df[id as usize] as i64 + sign) as u32;
        }
        self.total_length = (self.total_length as i64 + sign * entry.length as i64) as u64;
    }

    /// Brings the corpus in line with the files under `root`; `blobs` (path → git blob id)
    /// identifies contents without reading them.
    pub fn refresh(&mut self, root: &Path, blobs: &HashMap<String, String>) -> CorpusRefresh {
        let mut report = CorpusRefresh::default();
        let files = knit_workspace::files::Confined::new(root);
        let walked: Vec<fsio::WalkedFile> = fsio::walk_workspace(&files).into_iter().filter(|w| matches!(w.kind, Kind::Doc | Kind::Code)).collect();
        let present: std::collections::HashSet<&str> = walked.iter().map(|w| w.rel.as_str()).collect();
        let gone: Vec<String> = self.files.keys().filter(|p| !present.contains(p.as_str())).cloned().collect();
        for path in gone {
            if let Some(old) = self.files.remove(&path) {
                self.account(&old, -1);
                report.removed += 1;
            }
        }
        for w in &walked {
            let identity = blobs.get(&w.rel).cloned().unwrap_or_else(|| format!("{}:{}", w.mtime_ms, w.size));
            if self.files.get(&w.rel).is_some_and(|e| e.identity == identity) {
                continue;
            }
            if let Some(old) = self.files.remove(&w.rel) {
                self.account(&old, -1);
                report.removed += 1;
            }
            if let ReadOutcome::Text(text) = fsio::read_text(&files, &w.rel, fsio::MAX_FILE_BYTES) {
                let entry = self.analyse(text, identity);
                self.account(&entry, 1);
                self.files.insert(w.rel.clone(), entry);
                report.analysed += 1;
            }
        }
        report
    }

    pub fn len(&self) -> usize {
        self.files.len()
    }

    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }

    pub fn contains(&self, path: &str) -> bool {
        self.files.contains_key(path)
    }

    pub fn get(&self, path: &str) -> Option<&FileEntry> {
        self.files.get(path)
    }

    /// Files in path order.
    pub fn files(&self) -> impl Iterator<Item = (&String, &FileEntry)> {
        self.files.iter()
    }

    pub fn avg_length(&self) -> f64 {
        if self.files.is_empty() {
            1.0
        } else {
            (self.total_length as f64 / self.files.len() as f64).max(1.0)
        }
    }

    pub fn term_df(&self, id: u32) -> u32 {
        self.term_df.get(id as usize).copied().unwrap_or(0)
    }

    pub fn ident_df(&self, id: u32) -> u32 {
        self.ident_df.get(id as usize).copied().unwrap_or(0)
    }

    pub fn term(&self, id: u32) -> Option<&str> {
        self.names.get(id as usize).map(String::as_str)
    }
}
