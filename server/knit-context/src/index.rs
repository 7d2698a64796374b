//! The persistent tantivy index of one workspace and the BM25 scoring over it.
//!
//! One tantivy document per file (`title` / `summary` / `body`; for code the slots hold the
//! file name, the directory path and the content; media have a name only). Passages are
//! not indexed: the pack re-splits its few candidate files and scores their passages
//! (`passages::best_passages`) with IDF from the file documents. The file's metadata (title, summary, hashes,
//! links, imports) is stored with the file document, so the index alone is the truth and
//! two processes that share it never disagree about a file table.
//!
//! Scoring is BM25F with **one IDF per term over the whole file** (df = files that contain
//! the term in any field), not tantivy's per-field IDF: a per-field IDF would make a project
//! name that appears in every body but in few titles look rare, which is exactly the
//! high-frequency trap the seed's evaluation checks.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use anyhow::{anyhow, Context, Result};
use serde::{Deserialize, Serialize};
use tantivy::directory::MmapDirectory;
use tantivy::indexer::NoMergePolicy;
use tantivy::postings::Postings;
use tantivy::schema::{Field, IndexRecordOption, NumericOptions, Schema, TextFieldIndexing, TextOptions, Value, STORED};
use tantivy::{DocSet, Index, IndexReader, IndexWriter, ReloadPolicy, TantivyDocument, Term, TERMINATED};

use crate::analysis::KnitTokenizer;
use crate::classify::{Kind, Role};
use crate::markdown::LinkRef;
use crate::passages::PassageStats;

/// Bump when the schema, the analyzer or the stored metadata change (8: encoded data —
/// base64 chunks — yields no terms; 7: code summaries from the file header or a top-level
/// doc comment only): the folder name changes with it, so an old index is never opened
/// by new code.
pub const INDEX_VERSION: u32 = 8;
const TOKENIZER: &str = "knit";
const SIGNATURE_FILE: &str = "knit-index.json";

/// Arena per indexing thread for the first build of an index: a 10 000-file, 65 MB
/// workspace fits in about four segments on two threads, within the memory target.
const BULK_ARENA_BYTES: usize = 64_000_000;

const DOC_TYPE_FILE: u64 = 0;
const DOC_TYPE_SKIPPED: u64 = 2;

/// BM25 saturation and, per field, weight and length normalisation (title, summary, body).
const K1: f32 = 1.2;
const FIELD_WEIGHTS: [f32; 3] = [4.0, 2.0, 1.0];
const FIELD_B: [f32; 3] = [0.3, 0.5, 0.75];

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum SkipReason {
    Huge,
    Binary,
    NotUtf8,
}

/// An import as the syntax layer reports it (`knit_syntax::imports` has this shape), as a
/// file record keeps it; `relations` resolves it to an `imports` edge.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ImportRef {
    #[serde(rename = "s")]
    pub specifier: String,
    #[serde(rename = "l")]
    pub line: u32,
}

/// Everything knit remembers about one file besides its postings.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileRecord {
    pub path: String,
    pub kind: Kind,
    pub role: Role,
    pub title: String,
    pub summary: String,
    pub mtime_ms: u64,
    pub size: u64,
    /// Content hash of the indexed text ("" for media and skipped files).
    pub hash: String,
    /// Last line of a document's title/summary head (0 when none).
    #[serde(default)]
    pub head_end_line: u32,
    #[serde(default)]
    pub links: Vec<LinkRef>,
    #[serde(default)]
    pub imports: Vec<ImportRef>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub skipped: Option<SkipReason>,
    /// Names the file declares (code files; keyword scan, see `symbols`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub decls: Vec<String>,
    /// How many passages `passages::split` cuts the indexed text into (for the average
    /// passage length that passage scoring normalises by).
    #[serde(default)]
    pub passages: u32,
}

impl FileRecord {
    pub fn file_id(&self) -> u64 {
        file_id(&self.path)
    }
}

pub fn file_id(path: &str) -> u64 {
    let hash = blake3::hash(path.as_bytes());
    let mut bytes = [0u8; 8];
    bytes.copy_from_slice(&hash.as_bytes()[..8]);
    u64::from_le_bytes(bytes)
}

/// A file ready to be written: its record and the three field texts.
#[derive(Debug, Clone)]
pub struct PreparedFile {
    pub record: FileRecord,
    pub title_text: String,
    pub summary_text: String,
    pub body_text: String,
}

#[derive(Clone, Copy)]
struct Fields {
    file_id: Field,
    doc_type: Field,
    title: Field,
    summary: Field,
    body: Field,
    meta: Field,
}

fn build_schema() -> (Schema, Fields) {
    let mut builder = Schema::builder();
    let indexed_text = TextOptions::default().set_indexing_options(
        TextFieldIndexing::default().set_tokenizer(TOKENIZER).set_index_option(IndexRecordOption::WithFreqs),
    );
    let fast_u64 = NumericOptions::default().set_fast();
    let fields = Fields {
        file_id: builder.add_u64_field("file_id", NumericOptions::default().set_fast().set_indexed()),
        doc_type: builder.add_u64_field("doc_type", fast_u64),
        title: builder.add_text_field("title", indexed_text.clone()),
        summary: builder.add_text_field("summary", indexed_text.clone()),
        body: builder.add_text_field("body", indexed_text),
        meta: builder.add_text_field("meta", STORED),
    };
    (builder.build(), fields)
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
struct Signature {
    version: u32,
    imports: bool,
}

/// Per-segment lookup tables, rebuilt on every reader reload.
struct SegmentMap {
    /// doc → file slot for file documents; `u32::MAX` otherwise.
    doc_to_file: Vec<u32>,
}

/// Per-term, per-file field hits of one scoring run.
#[derive(Debug, Clone, Default)]
pub struct FileScores {
    /// BM25F score per file slot (0 when no term matched).
    pub scores: Vec<f32>,
    /// Bit i set when term i hit the title / summary / body of the file.
    pub title_mask: Vec<u32>,
    pub summary_mask: Vec<u32>,
    pub body_mask: Vec<u32>,
    /// Files (among the eligible) that contain each term in any field.
    pub df: Vec<u32>,
    pub eligible_count: usize,
}

pub struct WorkspaceIndex {
    dir: PathBuf,
    index: Index,
    reader: IndexReader,
    fields: Fields,
    /// Slots are stable for the life of the process (removal leaves a hole).
    slots: Vec<Option<FileRecord>>,
    slot_by_id: HashMap<u64, u32>,
    segments: Vec<SegmentMap>,
    committed_opstamp: u64,
    writer: Option<IndexWriter>,
    pending_records: Vec<FileRecord>,
    pending_removals: Vec<String>,
    /// The current writer was made for the first build (see [`writer`](Self::writer)).
    bulk_build: bool,
}

impl WorkspaceIndex {
    /// Opens the index in `dir`, creating it when absent. Any problem with an existing
    /// index (other version, unreadable, failed checksum) deletes it and starts afresh.
    pub fn open_or_rebuild(dir: &Path, with_imports: bool) -> Result<(Self, bool)> {
        match Self::try_open(dir, with_imports) {
            Ok(index) => Ok((index, false)),
            Err(_) => {
                crate::fsio::remove_dir_all_if_exists(dir)?;
                Ok((Self::try_open(dir, with_imports).context("creating a fresh index")?, true))
            }
        }
    }

    fn try_open(dir: &Path, with_imports: bool) -> Result<Self> {
        crate::fsio::create_dir_all(dir)?;
        let signature_path = dir.join(SIGNATURE_FILE);
        let expected = Signature { version: INDEX_VERSION, imports: with_imports };
        let has_meta = crate::fsio::own_exists(&dir.join("meta.json"));
        if has_meta {
            let found: Option<Signature> = crate::fsio::read_own(&signature_path).and_then(|b| serde_json::from_slice(&b).ok());
            if found.as_ref() != Some(&expected) {
                return Err(anyhow!("index signature differs"));
            }
        }
        let (schema, fields) = build_schema();
        let directory = MmapDirectory::open(dir).map_err(|e| anyhow!("{e}"))?;
        let index = Index::open_or_create(directory, schema.clone())?;
        if index.schema() != schema {
            return Err(anyhow!("index schema differs"));
        }
        if has_meta {
            let damaged = index.validate_checksum()?;
            if !damaged.is_empty() {
                return Err(anyhow!("damaged index files: {damaged:?}"));
            }
        }
        crate::fsio::write_json(&signature_path, &expected)?;
        index.tokenizers().register(TOKENIZER, KnitTokenizer::default());
        let reader = index.reader_builder().reload_policy(ReloadPolicy::Manual).try_into()?;
        let mut this = WorkspaceIndex {
            dir: dir.to_path_buf(),
            index,
            reader,
            fields,
            slots: Vec::new(),
            slot_by_id: HashMap::new(),
            segments: Vec::new(),
            committed_opstamp: 0,
            writer: None,
            pending_records: Vec::new(),
            pending_removals: Vec::new(),
            bulk_build: false,
        };
        this.reload_everything()?;
        Ok(this)
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Re-reads the file table from stored fields and rebuilds the segment maps.
    fn reload_everything(&mut self) -> Result<()> {
        self.reader.reload()?;
        let searcher = self.reader.searcher();
        let mut slots = Vec::new();
        let mut slot_by_id = HashMap::new();
        for segment in searcher.segment_readers() {
            let store = segment.get_store_reader(64)?;
            let doc_type = segment.fast_fields().u64("doc_type")?;
            for doc in 0..segment.max_doc() {
                if segment.is_deleted(doc) {
                    continue;
                }
                if !matches!(doc_type.first(doc), Some(DOC_TYPE_FILE | DOC_TYPE_SKIPPED)) {
                    continue;
                }
                let stored: TantivyDocument = store.get(doc)?;
                let meta = stored.get_first(self.fields.meta).and_then(|v| v.as_str().map(str::to_string)).context("file document without metadata")?;
                let record: FileRecord = serde_json::from_str(&meta).context("unreadable file metadata")?;
                let id = record.file_id();
                if slot_by_id.contains_key(&id) {
                    continue;
                }
                slot_by_id.insert(id, slots.len() as u32);
                slots.push(Some(record));
            }
        }
        self.slots = slots;
        self.slot_by_id = slot_by_id;
        self.rebuild_segment_maps()?;
        self.committed_opstamp = self.index.load_metas()?.opstamp;
        Ok(())
    }

    fn rebuild_segment_maps(&mut self) -> Result<()> {
        let searcher = self.reader.searcher();
        let mut maps = Vec::new();
        for segment in searcher.segment_readers() {
            let ids = segment.fast_fields().u64("file_id")?;
            let types = segment.fast_fields().u64("doc_type")?;
            let mut map = SegmentMap { doc_to_file: vec![u32::MAX; segment.max_doc() as usize] };
            for doc in 0..segment.max_doc() {
                if segment.is_deleted(doc) || types.first(doc) != Some(DOC_TYPE_FILE) {
                    continue;
                }
                if let Some(slot) = ids.first(doc).and_then(|id| self.slot_by_id.get(&id).copied()) {
                    map.doc_to_file[doc as usize] = slot;
                }
            }
            maps.push(map);
        }
        self.segments = maps;
        Ok(())
    }

    /// True when another process committed since we last looked; reloads if so.
    pub fn sync_with_disk(&mut self) -> Result<bool> {
        let opstamp = self.index.load_metas()?.opstamp;
        if opstamp != self.committed_opstamp {
            self.reload_everything()?;
            return Ok(true);
        }
        Ok(false)
    }

    pub fn records(&self) -> impl Iterator<Item = (u32, &FileRecord)> {
        self.slots.iter().enumerate().filter_map(|(i, r)| r.as_ref().map(|r| (i as u32, r)))
    }

    pub fn record(&self, slot: u32) -> Option<&FileRecord> {
        self.slots.get(slot as usize).and_then(Option::as_ref)
    }

    pub fn slot_of(&self, path: &str) -> Option<u32> {
        self.slot_by_id.get(&file_id(path)).copied().filter(|&s| self.record(s).is_some())
    }

    pub fn slot_count(&self) -> usize {
        self.slots.len()
    }

    /// The writer, created on first use and then kept: tantivy merges segments in the
    /// background, so a later one-file commit never waits for a big merge. `None` when
    /// another process holds the writer lock (the caller keeps the committed state).
    ///
    /// `bulk` (the first build of an empty index) gets a larger arena and no merging until
    /// [`commit`](Self::commit): with 24 MB and the default policy a 10 000-file build wrote
    /// ~16 small segments and then spent a quarter of its CPU merging them, building every
    /// term dictionary again. With the larger arena the build writes a few big segments
    /// once; fewer than the log policy's 8 of a size, so they are not merged afterwards.
    fn writer(&mut self, threads: usize, bulk: bool) -> Result<Option<&mut IndexWriter>> {
        if self.writer.is_none() {
            // 24 MB per indexing thread keeps peak memory low for incremental updates
            let per_thread = if bulk { BULK_ARENA_BYTES } else { 24_000_000 };
            let budget = per_thread * threads.max(1);
            match self.index.writer_with_num_threads(threads.max(1), budget) {
                Ok(w) => {
                    if bulk {
                        w.set_merge_policy(Box::new(NoMergePolicy));
                        self.bulk_build = true;
                    }
                    self.writer = Some(w)
                }
                Err(tantivy::TantivyError::LockFailure(..)) => return Ok(None),
                Err(e) => return Err(e.into()),
            }
        }
        Ok(self.writer.as_mut())
    }

    /// Drops the writer (and its lock), e.g. before the index folder is deleted.
    pub fn release_writer(&mut self) {
        self.writer = None;
        self.pending_records.clear();
        self.pending_removals.clear();
        self.bulk_build = false;
    }

    /// Queues upserts, skipped-file records and removals; nothing is visible before
    /// [`commit`](Self::commit). Returns false when the writer lock is held elsewhere.
    pub fn stage(&mut self, upserts: Vec<PreparedFile>, skipped: Vec<FileRecord>, removals: Vec<String>, threads: usize) -> Result<bool> {
        if upserts.is_empty() && skipped.is_empty() && removals.is_empty() {
            return Ok(true);
        }
        let f = self.fields;
        let bulk = self.writer.is_none() && self.slots.iter().all(Option::is_none) && self.pending_records.is_empty();
        let Some(writer) = self.writer(threads, bulk)? else { return Ok(false) };
        for path in &removals {
            writer.delete_term(Term::from_field_u64(f.file_id, file_id(path)));
        }
        for record in &skipped {
            writer.delete_term(Term::from_field_u64(f.file_id, record.file_id()));
            let mut doc = TantivyDocument::default();
            doc.add_u64(f.file_id, record.file_id());
            doc.add_u64(f.doc_type, DOC_TYPE_SKIPPED);
            doc.add_text(f.meta, serde_json::to_string(record)?);
            writer.add_document(doc)?;
        }
        for prepared in &upserts {
            let id = prepared.record.file_id();
            writer.delete_term(Term::from_field_u64(f.file_id, id));
            let mut doc = TantivyDocument::default();
            doc.add_u64(f.file_id, id);
            doc.add_u64(f.doc_type, DOC_TYPE_FILE);
            doc.add_text(f.title, &prepared.title_text);
            doc.add_text(f.summary, &prepared.summary_text);
            doc.add_text(f.body, &prepared.body_text);
            doc.add_text(f.meta, serde_json::to_string(&prepared.record)?);
            writer.add_document(doc)?;
        }
        self.pending_removals.extend(removals);
        self.pending_records.extend(skipped);
        self.pending_records.extend(upserts.into_iter().map(|p| p.record));
        Ok(true)
    }

    /// Commits what was staged and brings the file table and readers up to date.
    pub fn commit(&mut self) -> Result<()> {
        if self.pending_records.is_empty() && self.pending_removals.is_empty() {
            return Ok(());
        }
        let Some(writer) = self.writer.as_mut() else { return Ok(()) };
        writer.commit()?;
        if std::mem::take(&mut self.bulk_build) {
            // The build was one commit and nothing is merging. Later updates get a writer of
            // their own, with the small arena and tantivy's default (log) merge policy.
            self.writer = None;
        }
        for path in std::mem::take(&mut self.pending_removals) {
            if let Some(slot) = self.slot_by_id.get(&file_id(&path)).copied() {
                self.slots[slot as usize] = None;
            }
        }
        for record in std::mem::take(&mut self.pending_records) {
            let id = record.file_id();
            match self.slot_by_id.get(&id).copied() {
                Some(slot) => self.slots[slot as usize] = Some(record),
                None => {
                    self.slot_by_id.insert(id, self.slots.len() as u32);
                    self.slots.push(Some(record));
                }
            }
        }
        self.reader.reload()?;
        self.rebuild_segment_maps()?;
        self.committed_opstamp = self.index.load_metas()?.opstamp;
        Ok(())
    }

    fn text_fields(&self) -> [Field; 3] {
        [self.fields.title, self.fields.summary, self.fields.body]
    }

    /// Number of files whose title, summary or body contain `term` (upper bound by field;
    /// cheap: dictionary look-ups only). Used to select distinctive task terms.
    pub fn doc_freq_estimate(&self, term: &str) -> Result<u32> {
        let searcher = self.reader.searcher();
        let mut best = 0u32;
        for field in self.text_fields() {
            let df = searcher.doc_freq(&Term::from_field_text(field, term))?;
            best = best.max(df as u32);
        }
        Ok(best)
    }

    /// Slots of the eligible files whose content (body) holds `term`, at most `max + 1`
    /// (the caller treats more than `max` as "too common to relate files"). The term is
    /// an index term: the analyser's form of a word or whole identifier.
    pub fn files_with_term(&self, term: &str, eligible: &[bool], max: usize) -> Result<Vec<u32>> {
        let searcher = self.reader.searcher();
        let mut out = Vec::new();
        for (segment, map) in searcher.segment_readers().iter().zip(&self.segments) {
            let inverted = segment.inverted_index(self.fields.body)?;
            let Some(mut postings) = inverted.read_postings(&Term::from_field_text(self.fields.body, term), IndexRecordOption::Basic)? else { continue };
            let mut doc = postings.doc();
            while doc != TERMINATED {
                let slot = map.doc_to_file.get(doc as usize).copied().unwrap_or(u32::MAX);
                if slot != u32::MAX && eligible.get(slot as usize).copied().unwrap_or(false) && !segment.is_deleted(doc) {
                    out.push(slot);
                    if out.len() > max {
                        return Ok(out);
                    }
                }
                doc = postings.advance();
            }
        }
        Ok(out)
    }

    /// BM25F over file documents for `terms` (term, query weight). Only slots with
    /// `eligible[slot]` count: they alone form N, df and the scores.
    pub fn score_files(&self, terms: &[(String, f32)], eligible: &[bool]) -> Result<FileScores> {
        let n_slots = self.slots.len();
        let mut out = FileScores {
            scores: vec![0.0; n_slots],
            title_mask: vec![0; n_slots],
            summary_mask: vec![0; n_slots],
            body_mask: vec![0; n_slots],
            df: vec![0; terms.len()],
            eligible_count: eligible.iter().filter(|&&e| e).count(),
        };
        if out.eligible_count == 0 || terms.is_empty() {
            return Ok(out);
        }
        let searcher = self.reader.searcher();
        let fields = self.text_fields();
        // average field length over file documents
        let mut total_tokens = [0u64; 3];
        let mut file_docs = 0u64;
        for (segment, map) in searcher.segment_readers().iter().zip(&self.segments) {
            for (k, field) in fields.iter().enumerate() {
                total_tokens[k] += segment.inverted_index(*field)?.total_num_tokens();
            }
            file_docs += map.doc_to_file.iter().filter(|&&s| s != u32::MAX).count() as u64;
        }
        let avgdl: Vec<f32> = total_tokens.iter().map(|&t| if file_docs == 0 { 1.0 } else { (t as f32 / file_docs as f32).max(1.0) }).collect();
        let mut seen_stamp: Vec<u32> = vec![u32::MAX; n_slots];
        // entries per term: (slot, field, tf, fieldnorm)
        let mut entries: Vec<(u32, u8, u32, u32)> = Vec::new();
        for (t, (term, query_weight)) in terms.iter().enumerate() {
            entries.clear();
            for (segment, map) in searcher.segment_readers().iter().zip(&self.segments) {
                for (k, field) in fields.iter().enumerate() {
                    let inverted = segment.inverted_index(*field)?;
                    let Some(mut postings) = inverted.read_postings(&Term::from_field_text(*field, term), IndexRecordOption::WithFreqs)? else { continue };
                    let norms = segment.get_fieldnorms_reader(*field)?;
                    let mut doc = postings.doc();
                    while doc != TERMINATED {
                        let slot = map.doc_to_file.get(doc as usize).copied().unwrap_or(u32::MAX);
                        if slot != u32::MAX && eligible.get(slot as usize).copied().unwrap_or(false) && !segment.is_deleted(doc) {
                            entries.push((slot, k as u8, postings.term_freq(), norms.fieldnorm(doc)));
                        }
                        doc = postings.advance();
                    }
                }
            }
            let mut df = 0u32;
            for &(slot, _, _, _) in &entries {
                if seen_stamp[slot as usize] != t as u32 {
                    seen_stamp[slot as usize] = t as u32;
                    df += 1;
                }
            }
            out.df[t] = df;
            if df == 0 {
                continue;
            }
            let n = out.eligible_count as f32;
            let idf = (1.0 + (n - df as f32 + 0.5) / (df as f32 + 0.5)).ln();
            // Each field saturates on its own and adds its weighted share (title ×4,
            // summary ×2, body ×1): a task word in a file's name or title is strong evidence
            // that the file is *about* it. (A single-saturation BM25F was measured too: it
            // let files that mention many incidental words once outrank the one titled
            // after the task; see the crate README notes in the final report.)
            let bit = 1u32 << (t.min(31));
            for &(slot, k, tf, len) in &entries {
                let k = k as usize;
                let norm = 1.0 - FIELD_B[k] + FIELD_B[k] * len as f32 / avgdl[k];
                let tf = tf as f32;
                out.scores[slot as usize] += query_weight * idf * FIELD_WEIGHTS[k] * tf * (K1 + 1.0) / (tf + K1 * norm);
                match k {
                    0 => out.title_mask[slot as usize] |= bit,
                    1 => out.summary_mask[slot as usize] |= bit,
                    _ => out.body_mask[slot as usize] |= bit,
                }
            }
        }
        Ok(out)
    }

    /// What passage scoring needs for each list of terms in `term_lists`: per term its IDF
    /// over the live file documents (df = files whose body holds it) and the average
    /// passage length in index terms (the body terms of all files over the passages they
    /// are cut into, summed once for all the lists).
    pub fn passage_stats(&self, term_lists: &[&[(String, f32)]]) -> Result<Vec<PassageStats>> {
        let searcher = self.reader.searcher();
        let mut total_tokens = 0u64;
        let mut body_docs = 0u64;
        for (segment, map) in searcher.segment_readers().iter().zip(&self.segments) {
            total_tokens += segment.inverted_index(self.fields.body)?.total_num_tokens();
            body_docs += map.doc_to_file.iter().filter(|&&s| s != u32::MAX).count() as u64;
        }
        // (total_num_tokens counts deleted documents too, as the file scoring's averages do)
        let passages: u64 = self.records().map(|(_, r)| r.passages as u64).sum();
        let avg_len = if passages == 0 { 1.0 } else { (total_tokens as f32 / passages as f32).max(1.0) };
        let n = body_docs.max(1) as f32;
        let mut out = Vec::with_capacity(term_lists.len());
        for terms in term_lists {
            let mut idf = Vec::with_capacity(terms.len());
            for (term, _) in terms.iter() {
                let df = (searcher.doc_freq(&Term::from_field_text(self.fields.body, term))? as f32).min(n);
                idf.push(if df == 0.0 { 0.0 } else { (1.0 + (n - df + 0.5) / (df + 0.5)).ln() });
            }
            out.push(PassageStats::new(terms, idf, avg_len));
        }
        Ok(out)
    }
}
