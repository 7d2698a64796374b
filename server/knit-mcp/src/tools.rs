//! The MCP tools: their JSON schemas and their implementations over the knit crates.
//!
//! - `check_anchors` = `knit check`: the anchor engine ([`knit_anchors::check`]) over the
//!   disk tree ([`knit_workspace::DiskTree`]), with `knit.toml` budgets, `--changed` via
//!   git, and the previous states kept for anchors a budget left unchecked.
//! - `context_pack` = `knit/contextPack`: the context engine ([`knit_context::ContextEngine`]),
//!   opened on first use and kept for the session; doc items carry anchor counts from
//!   [`knit_context::TreeAnchorFacts`] (the anchor engine's tally, as in `knit pack`).
//! - `mark_read` = `knit/didRead`: read evidence for the packs' lifecycle marks.
//!
//! A tool that fails reports `isError: true` with the reason (MCP tool-error convention);
//! a panic inside an engine is caught, reported the same way, and the engine reopened.

use crate::ServerOptions;
use knit_anchors::{check, CheckOptions, CheckReport, DeclCache, State};
use knit_context::{ContextEngine, EngineOptions, OpenBuffer, PackParams, PackResult, TaskInput, TreeAnchorFacts};
use knit_workspace::{cache_dir_for, changed_files, workspace_key, Config, DiskDeclStore, DiskTree, SourceTree, StateStore};
use serde_json::{json, Value};
use std::collections::{BTreeMap, HashMap};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};

/// Findings listed one per line in a tool's text summary before it says "… and N more".
const SUMMARY_LINES: usize = 40;

/// A tool's answer before it is dressed as a `tools/call` result.
pub struct ToolOutcome {
    pub summary: String,
    pub data: Option<Value>,
    pub is_error: bool,
}

impl ToolOutcome {
    fn ok(summary: String, data: Value) -> Self {
        ToolOutcome { summary, data: Some(data), is_error: false }
    }

    fn error(message: impl Into<String>) -> Self {
        ToolOutcome { summary: message.into(), data: None, is_error: true }
    }

    /// `{content: [summary, JSON], structuredContent?, isError}`; `structured` adds
    /// `structuredContent` (protocol 2025-06-18 and later).
    pub fn into_result(self, structured: bool) -> Value {
        let mut content = vec![json!({ "type": "text", "text": self.summary })];
        if let Some(data) = &self.data {
            let text = serde_json::to_string_pretty(data).unwrap_or_else(|_| data.to_string());
            content.push(json!({ "type": "text", "text": text }));
        }
        let mut result = json!({ "content": content, "isError": self.is_error });
        if structured {
            if let Some(data) = self.data {
                result["structuredContent"] = data;
            }
        }
        result
    }
}

pub struct Tools {
    root: PathBuf,
    options: ServerOptions,
    /// Parsed declarations by content, shared by every check of the session.
    decls: DeclCache,
    engine: Option<ContextEngine>,
}

impl Tools {
    pub fn new(root: PathBuf, options: ServerOptions) -> Tools {
        let decls = match workspace_cache_dir(&root, &options) {
            Some(dir) => DeclCache::with_store(Box::new(DiskDeclStore::new(&dir))),
            None => DeclCache::default(),
        };
        Tools { root, options, decls, engine: None }
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The `tools/list` entries.
    pub fn list() -> Value {
        json!([
            {
                "name": "check_anchors",
                "title": "Check doc anchors",
                "description": "Checks the code anchors in the workspace's Markdown docs (links like [x](src/a.ts#Foo.bar \"knit:…\")) against the code, like `knit check --format json`. Reports every anchor that is not fresh: stale (the code changed since the doc was reviewed), moved, renamed, lost, invalid, unrecorded, plus broken links. Use `changed: true` after editing code to see which doc lines describe what you changed.",
                "inputSchema": {
                    "type": "object",
                    "properties": {
                        "paths": { "type": "array", "items": { "type": "string" }, "description": "Markdown files or folders to check, relative to the workspace root (default: all)." },
                        "changed": { "type": "boolean", "description": "Only anchors whose target code changed in the working tree (git: staged, unstaged, untracked)." },
                        "since": { "type": "string", "description": "With `changed`: compare against this git revision instead of HEAD." }
                    },
                    "additionalProperties": false
                },
                "annotations": { "readOnlyHint": true, "openWorldHint": false }
            },
            {
                "name": "context_pack",
                "title": "Context pack",
                "description": "Returns the few workspace files worth reading for a task, in tiers: primary (read first), supporting, related, plus pinned and `more`. Every item carries checkable reasons (title/path matches, imports, tests, doc anchors), the best passage's line range and, for docs, how many of its anchors are stale or lost. Same result as the `knit/contextPack` LSP request and `knit pack --format json`.",
                "inputSchema": {
                    "type": "object",
                    "properties": {
                        "query": {
                            "description": "The task: one string, or the conversation as a list of messages, oldest first (the newest weighs most).",
                            "anyOf": [ { "type": "string" }, { "type": "array", "items": { "type": "string" } } ]
                        },
                        "focus": {
                            "type": "object",
                            "description": "The file being worked on (URI or workspace-relative path) and optionally the cursor (0-based line).",
                            "properties": {
                                "uri": { "type": "string" },
                                "position": { "type": "object", "properties": { "line": { "type": "integer", "minimum": 0 }, "character": { "type": "integer", "minimum": 0 } }, "required": ["line"] }
                            },
                            "required": ["uri"]
                        },
                        "open": { "type": "array", "items": { "type": "string" }, "description": "Files open in the editor or being edited (workspace-relative), most recent first; they are the task when there is no query, and are never packed." },
                        "kinds": { "type": "array", "items": { "type": "string", "enum": ["doc", "code", "media"] } },
                        "limit": { "type": "integer", "minimum": 1, "maximum": 200, "description": "Items in all tiers plus `more` (default 20)." }
                    },
                    "additionalProperties": false
                },
                "annotations": { "readOnlyHint": true, "openWorldHint": false }
            },
            {
                "name": "mark_read",
                "title": "Mark files read",
                "description": "Records that you read these files now (read evidence). Later packs mark each item unread / read / updated-after-read / reread-after-update, so you can tell which files changed since you read them.",
                "inputSchema": {
                    "type": "object",
                    "properties": { "paths": { "type": "array", "items": { "type": "string" }, "minItems": 1 } },
                    "required": ["paths"],
                    "additionalProperties": false
                },
                "annotations": { "readOnlyHint": false, "destructiveHint": false, "idempotentHint": true, "openWorldHint": false }
            }
        ])
    }

    /// Runs a tool; `None` for an unknown tool name.
    pub fn call(&mut self, name: &str, args: &Value) -> Option<ToolOutcome> {
        let run: fn(&mut Tools, &Value) -> ToolOutcome = match name {
            "check_anchors" => Tools::check_anchors,
            "context_pack" => Tools::context_pack,
            "mark_read" => Tools::mark_read,
            _ => return None,
        };
        let outcome = catch_unwind(AssertUnwindSafe(|| run(self, args))).unwrap_or_else(|panic| {
            // The engine may be half-updated: drop it, the next call reopens (and repairs) it.
            self.engine = None;
            let what = panic.downcast_ref::<&str>().map(|s| s.to_string()).or_else(|| panic.downcast_ref::<String>().cloned()).unwrap_or_default();
            ToolOutcome::error(format!("knit failed inside `{name}` ({what}); this is a bug in knit, please report it"))
        });
        Some(outcome)
    }

    /// Workspace-relative forms of the `paths` argument; refuses paths outside the root.
    fn relative_paths(&self, tree: &DiskTree, args: &Value, key: &str) -> Result<Vec<String>, String> {
        let Some(raw) = args.get(key) else { return Ok(Vec::new()) };
        let list = raw.as_array().ok_or_else(|| format!("`{key}` must be an array of strings"))?;
        let mut out = Vec::new();
        for v in list {
            let p = v.as_str().ok_or_else(|| format!("`{key}` must be an array of strings"))?;
            let p = p.strip_prefix("file://").unwrap_or(p);
            let abs = self.root.join(p);
            let abs = knit_workspace::files::canonical_or_self(&abs);
            let rel = tree.relative(&abs).ok_or_else(|| format!("{p} is outside the workspace {}", self.root.display()))?;
            out.push(rel);
        }
        Ok(out)
    }

    fn check_anchors(&mut self, args: &Value) -> ToolOutcome {
        let config = match Config::load(&self.root) {
            Ok(c) => c,
            Err(e) => return ToolOutcome::error(format!("knit.toml: {e}")),
        };
        let tree = DiskTree::new(&self.root);
        let paths = match self.relative_paths(&tree, args, "paths") {
            Ok(p) => p,
            Err(e) => return ToolOutcome::error(e),
        };
        if let Some(missing) = paths.iter().find(|p| !p.is_empty() && !tree.exists(p)) {
            return ToolOutcome::error(format!("{missing} does not exist"));
        }
        let changed = match args.get("changed") {
            None | Some(Value::Null) | Some(Value::Bool(false)) => None,
            Some(Value::Bool(true)) => {
                let since = match args.get("since") {
                    None | Some(Value::Null) => None,
                    Some(Value::String(s)) if !s.is_empty() => Some(s.as_str()),
                    Some(_) => return ToolOutcome::error("`since` must be a non-empty string (a git revision)"),
                };
                match changed_files(&self.root, since) {
                    Ok(set) => Some(set),
                    Err(e) => return ToolOutcome::error(format!("changed: {e}")),
                }
            }
            Some(_) => return ToolOutcome::error("`changed` must be a boolean"),
        };
        let docs = tree.markdown_under(&paths, &config.check.exclude);
        let states = workspace_cache_dir(tree.root(), &self.options).map(|d| StateStore::new(&d));
        let previous = states.as_ref().map(|s| s.load()).unwrap_or_default();
        let opts = CheckOptions { only_targets: changed.as_ref(), previous: Some(&previous) };
        let report = check(&tree, &self.decls, &config.check_config(), &docs, &opts);
        if let Some(s) = &states {
            let now: HashMap<String, String> = report.anchors.iter().map(|a| (a.id.clone(), a.state.as_str().to_string())).collect();
            s.save(&now);
        }
        let data = match serde_json::to_value(&report) {
            Ok(v) => v,
            Err(e) => return ToolOutcome::error(format!("cannot serialise the report: {e}")),
        };
        ToolOutcome::ok(check_summary(&report, docs.len(), changed.is_some()), data)
    }

    fn context_pack(&mut self, args: &Value) -> ToolOutcome {
        let mut params_json = args.clone();
        let open = match params_json.as_object_mut().and_then(|o| o.remove("open")) {
            None | Some(Value::Null) => Vec::new(),
            Some(Value::Array(list)) if list.iter().all(Value::is_string) => list.iter().filter_map(|v| v.as_str().map(str::to_string)).collect(),
            Some(_) => return ToolOutcome::error("`open` must be an array of strings"),
        };
        let params: PackParams = match serde_json::from_value(params_json) {
            Ok(p) => p,
            Err(e) => return ToolOutcome::error(format!("invalid context_pack arguments: {e}")),
        };
        let root = self.root.clone();
        let tree = DiskTree::new(&root);
        let cfg = Config::load(&root).map(|c| c.check_config()).unwrap_or_default();
        let mut buffers = Vec::new();
        for (order, path) in open.iter().enumerate() {
            let Some(rel) = tree.relative(&root.join(path)) else {
                return ToolOutcome::error(format!("{path} is outside the workspace {}", root.display()));
            };
            match tree.read(&rel, cfg.max_file_bytes) {
                Ok(text) => buffers.push(OpenBuffer {
                    path: rel,
                    text: text.to_string(),
                    focused: order == 0 && params.focus.is_none(),
                    last_focus_or_edit_order: order as u32,
                    cursor_line: None,
                    recent_edit_lines: Vec::new(),
                }),
                Err(e) => return ToolOutcome::error(format!("{path}: {e}")),
            }
        }
        let input = TaskInput { buffers };
        // Doc items report their anchors' freshness, tallied by the anchor engine exactly
        // as `knit pack` and the language server tally it.
        let facts = TreeAnchorFacts::new(&tree, &self.decls, cfg);
        let engine = match open_engine(&mut self.engine, &root, &self.options) {
            Ok(e) => e,
            Err(e) => return ToolOutcome::error(format!("cannot open the context index: {e:#}")),
        };
        match engine.pack(&params, &input, &facts) {
            Ok(pack) => match serde_json::to_value(&pack) {
                Ok(data) => ToolOutcome::ok(pack_summary(&pack), data),
                Err(e) => ToolOutcome::error(format!("cannot serialise the pack: {e}")),
            },
            Err(e) => ToolOutcome::error(format!("context pack failed: {e:#}")),
        }
    }

    fn mark_read(&mut self, args: &Value) -> ToolOutcome {
        let Some(list) = args.get("paths").and_then(Value::as_array).filter(|l| !l.is_empty() && l.iter().all(Value::is_string)) else {
            return ToolOutcome::error("`paths` must be a non-empty array of strings");
        };
        let engine = match open_engine(&mut self.engine, &self.root, &self.options) {
            Ok(e) => e,
            Err(e) => return ToolOutcome::error(format!("cannot open the context index: {e:#}")),
        };
        let paths: Vec<&str> = list.iter().filter_map(Value::as_str).collect();
        // All or nothing: one bad path marks none, and the state is saved once.
        let marked = match engine.did_read_many(&paths) {
            Ok(m) => m,
            Err(e) => return ToolOutcome::error(format!("{e:#}")),
        };
        ToolOutcome::ok(format!("marked {} file(s) read: {}", marked.len(), marked.join(", ")), json!({ "read": marked }))
    }
}

/// This workspace's cache folder: under the session's cache base when one was given (so a
/// session with its own folders never writes into the user's cache), else the default.
fn workspace_cache_dir(root: &Path, options: &ServerOptions) -> Option<PathBuf> {
    match &options.cache_dir {
        Some(base) => Some(base.join(workspace_key(root))),
        None => cache_dir_for(root),
    }
}

/// The session's context engine, opened on first use.
fn open_engine<'e>(slot: &'e mut Option<ContextEngine>, root: &Path, options: &ServerOptions) -> anyhow::Result<&'e mut ContextEngine> {
    if slot.is_none() {
        let options = EngineOptions {
            cache_dir: options.cache_dir.clone(),
            state_dir: options.state_dir.clone(),
            ..EngineOptions::default()
        };
        *slot = Some(ContextEngine::open(root, options)?);
    }
    Ok(slot.as_mut().expect("opened above"))
}

fn check_summary(report: &CheckReport, docs: usize, changed_only: bool) -> String {
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    for a in &report.anchors {
        *counts.entry(a.state.as_str()).or_default() += 1;
    }
    let states: Vec<String> = counts.iter().map(|(k, v)| format!("{v} {k}")).collect();
    let mut out = format!(
        "{} anchor(s) in {docs} doc(s){}: {}",
        report.anchors.len(),
        if changed_only { " describing changed code" } else { "" },
        if states.is_empty() { "none".to_string() } else { states.join(", ") }
    );
    if !report.broken_links.is_empty() {
        out.push_str(&format!(", {} broken link(s)", report.broken_links.len()));
    }
    if !report.complete {
        out.push_str(&format!(
            " — INCOMPLETE: the {} budget ran out, {} anchor(s) unchecked",
            report.budget.limit.unwrap_or("check"),
            report.unchecked_anchor_ids.len()
        ));
    }
    out.push('\n');
    let mut findings: Vec<String> = report
        .anchors
        .iter()
        .filter(|a| a.state != State::Fresh)
        .map(|a| format!("{}:{}  {}  {}", a.doc, a.line, a.state.as_str(), a.detail.message))
        .collect();
    findings.extend(report.broken_links.iter().map(|b| format!("{}:{}  broken-link  {}", b.doc, b.line, b.message)));
    if findings.is_empty() {
        out.push_str("All anchors are fresh.\n");
    } else {
        for f in findings.iter().take(SUMMARY_LINES) {
            out.push_str(f);
            out.push('\n');
        }
        if findings.len() > SUMMARY_LINES {
            out.push_str(&format!("… and {} more (see the JSON report)\n", findings.len() - SUMMARY_LINES));
        }
    }
    out
}

fn pack_summary(pack: &PackResult) -> String {
    let mut out = format!("Task ({}): {}\n", pack.task.source, if pack.task.terms.is_empty() { "no terms".to_string() } else { pack.task.terms.join(", ") });
    if let Some(d) = &pack.degraded {
        out.push_str(&format!("Degraded ({}): {}\n", d.reason, d.detail));
    }
    for (tier, items) in [("pinned", &pack.pinned), ("primary", &pack.primary), ("supporting", &pack.supporting), ("related", &pack.related), ("more", &pack.more)] {
        if items.is_empty() {
            continue;
        }
        out.push_str(&format!("{tier}:\n"));
        for item in items {
            let lines = item.passage.as_ref().map(|p| format!(":{}-{}", p.start_line, p.end_line)).unwrap_or_default();
            let anchors = item.anchors.filter(|a| a.stale + a.lost > 0).map(|a| format!(" [anchors: {} stale, {} lost of {}]", a.stale, a.lost, a.total)).unwrap_or_default();
            out.push_str(&format!("  {}{lines}  {}{anchors}", item.path, item.title));
            if !item.reasons.is_empty() {
                out.push_str(&format!(" — {}", item.reasons.join("; ")));
            }
            out.push('\n');
        }
    }
    out
}
