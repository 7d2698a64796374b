//! Shared helpers for the integration tests: temp workspaces with their own cache and state
//! folders (never the user's), and the seed's evaluation data read at run time.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

use knit_context::{ContextEngine, EngineOptions, ImportRef, NoAnchorFacts, PackParams, PackResult, QueryParam, TaskInput};
use tempfile::TempDir;

pub struct Workspace {
    pub root: TempDir,
    pub cache: TempDir,
    pub state: TempDir,
}

impl Workspace {
    pub fn new() -> Self {
        Workspace { root: tempfile::tempdir().expect("temp root"), cache: tempfile::tempdir().expect("temp cache"), state: tempfile::tempdir().expect("temp state") }
    }

    pub fn path(&self) -> &Path {
        self.root.path()
    }

    pub fn write(&self, rel: &str, content: impl AsRef<[u8]>) {
        let path = self.root.path().join(rel);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).expect("mkdir");
        }
        std::fs::write(path, content).expect("write");
    }

    pub fn options(&self) -> EngineOptions {
        EngineOptions { cache_dir: Some(self.cache.path().to_path_buf()), state_dir: Some(self.state.path().to_path_buf()), index_threads: 1, ..Default::default() }
    }

    pub fn engine(&self) -> ContextEngine {
        ContextEngine::open(self.root.path(), self.options()).expect("engine opens")
    }
}

/// A Markdown file as the seed's records describe it: `# title`, summary paragraph, body.
pub fn doc_text(title: &str, summary: &str, body: &str) -> String {
    let mut text = String::new();
    if !title.is_empty() {
        text.push_str(&format!("# {title}\n\n"));
    }
    if !summary.is_empty() {
        text.push_str(summary);
        text.push_str("\n\n");
    }
    text.push_str(body);
    text
}

pub fn query(messages_oldest_first: &[&str]) -> PackParams {
    PackParams { query: Some(QueryParam::Conversation(messages_oldest_first.iter().map(|s| s.to_string()).collect())), ..Default::default() }
}

pub fn pack(engine: &mut ContextEngine, params: &PackParams) -> PackResult {
    engine.pack(params, &TaskInput::default(), &NoAnchorFacts).expect("pack")
}

pub fn eval_path() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/context/seed-eval/knit-eval.json")
}

pub fn eval_json() -> serde_json::Value {
    let bytes = std::fs::read(eval_path()).expect("the seed's eval data (fixtures/context/seed-eval/knit-eval.json)");
    serde_json::from_slice(&bytes).expect("eval json parses")
}

pub fn s(v: &serde_json::Value) -> String {
    v.as_str().unwrap_or_default().to_string()
}

pub fn strings(v: &serde_json::Value) -> Vec<String> {
    v.as_array().map(|a| a.iter().map(s).collect()).unwrap_or_default()
}

pub fn all_items(result: &PackResult) -> Vec<&knit_context::Item> {
    result.pinned.iter().chain(&result.primary).chain(&result.supporting).chain(&result.related).chain(&result.more).collect()
}

/// Test double for the syntax layer (`knit_syntax::imports` is not in the workspace yet):
/// reads single-line `import … from './x'` statements. The engine only sees the signature.
pub fn fake_imports(_path: &str, source: &str) -> Vec<ImportRef> {
    source
        .lines()
        .enumerate()
        .filter_map(|(i, line)| {
            let spec = line.strip_prefix("import ")?.rsplit_once(" from ")?.1.trim().trim_matches(|c| c == '\'' || c == '"' || c == ';');
            Some(ImportRef { specifier: spec.to_string(), line: i as u32 + 1 })
        })
        .collect()
}

/// Copies a fixture folder into a fresh workspace.
pub fn copy_tree(from: &Path, ws: &Workspace) {
    for entry in ignore::WalkBuilder::new(from).hidden(false).build().flatten() {
        if entry.file_type().is_some_and(|t| t.is_file()) {
            if let Ok(rel) = entry.path().strip_prefix(from) {
                ws.write(&rel.to_string_lossy(), std::fs::read(entry.path()).expect("read fixture"));
            }
        }
    }
}
