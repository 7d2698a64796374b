//! `knit pack`: a context pack for a query, a conversation (repeated `--query`, oldest
//! first) or simulated open buffers (`--open FILE`, the last one focused). Human output
//! lists the tiers with their reasons; `--format json` prints exactly the
//! `knit/contextPack` result object (DESIGN 4.4).
//!
//! Exit codes: 0 for a pack (even an empty or degraded one), 2 for usage errors.

use std::path::{Path, PathBuf};

use crate::check::Workspace;
use knit_workspace::Confined;
use knit_context::{ContextEngine, EngineOptions, Item, Kind, OpenBuffer, PackParams, PackResult, QueryParam, TaskInput, TreeAnchorFacts};

#[derive(clap::Args, Clone, Default)]
pub struct PackArgs {
    /// Task text; repeat for a conversation, oldest message first (the last weighs most).
    #[arg(long)]
    pub query: Vec<String>,
    /// A file to treat as an open editor buffer; repeatable, the last one is focused.
    #[arg(long)]
    pub open: Vec<PathBuf>,
    /// Items in the tiers plus `more` (default 20).
    #[arg(long)]
    pub limit: Option<usize>,
    /// Restrict candidates to these kinds: doc, code, media (repeatable or comma-separated).
    #[arg(long)]
    pub kinds: Vec<String>,
    /// Output format (`json`: the `knit/contextPack` result object, as the LSP returns it).
    #[arg(long, value_enum, default_value_t)]
    pub format: crate::PlainFormat,
    #[command(flatten)]
    pub workspace: crate::RootArg,
}

fn parse_kinds(raw: &[String]) -> Result<Vec<Kind>, String> {
    let mut kinds = Vec::new();
    for value in raw.iter().flat_map(|v| v.split(',')).map(str::trim).filter(|v| !v.is_empty()) {
        let kind = match value {
            "doc" | "docs" => Kind::Doc,
            "code" => Kind::Code,
            "media" => Kind::Media,
            other => return Err(format!("unknown kind `{other}` (expected doc, code or media)")),
        };
        if !kinds.contains(&kind) {
            kinds.push(kind);
        }
    }
    Ok(kinds)
}

/// `--open` files become buffers: the last one focused and most recent. They are read
/// like any workspace file: regular files inside the root, at most the per-file limit.
fn open_buffers(files_io: &Confined, files: &[PathBuf], max_bytes: u64) -> Result<Vec<OpenBuffer>, String> {
    let count = files.len();
    let mut buffers = Vec::new();
    for (i, file) in files.iter().enumerate() {
        let rel = files_io.relative(file).filter(|r| !r.is_empty()).ok_or_else(|| format!("--open {}: outside the workspace {}", file.display(), files_io.root().display()))?;
        let bytes = files_io.read_bytes(&rel, max_bytes).map_err(|e| format!("--open {}: {e}", file.display()))?;
        let text = String::from_utf8_lossy(&bytes).into_owned();
        buffers.push(OpenBuffer {
            path: rel,
            text,
            focused: i + 1 == count,
            last_focus_or_edit_order: (count - 1 - i) as u32,
            cursor_line: None,
            recent_edit_lines: Vec::new(),
        });
    }
    Ok(buffers)
}

pub fn run(args: &PackArgs, ws: &Workspace, json: bool) -> anyhow::Result<i32> {
    let root: &Path = &ws.root;
    let kinds = match parse_kinds(&args.kinds) {
        Ok(k) => k,
        Err(message) => {
            eprintln!("knit pack: {message}");
            return Ok(2);
        }
    };
    if args.limit == Some(0) {
        eprintln!("knit pack: --limit must be at least 1");
        return Ok(2);
    }
    let buffers = match open_buffers(ws.tree.confined(), &args.open, ws.config.check.max_file_bytes) {
        Ok(b) => b,
        Err(message) => {
            eprintln!("knit pack: {message}");
            return Ok(2);
        }
    };
    let query = match args.query.len() {
        0 => None,
        1 => Some(QueryParam::Text(args.query[0].clone())),
        _ => Some(QueryParam::Conversation(args.query.clone())),
    };
    let params = PackParams { query, focus: None, kinds: if kinds.is_empty() { None } else { Some(kinds) }, limit: args.limit };
    let mut engine = ContextEngine::open(root, EngineOptions::default())?;
    // Doc items report their anchors' freshness, counted by the anchor engine.
    let facts = TreeAnchorFacts::new(&ws.tree, &ws.cache, ws.config.check_config());
    let result = engine.pack(&params, &TaskInput { buffers }, &facts)?;
    if json {
        println!("{}", serde_json::to_string_pretty(&result)?);
    } else {
        print!("{}", render_human(&result));
    }
    Ok(0)
}

/// A reason as a person reads it: the wire's reason kind (`summaryMatch: …`, stable for
/// tools and the JSON output) becomes plain words; an unknown kind is split into words.
fn plain_reason(reason: &str) -> String {
    let Some((kind, rest)) = reason.split_once(": ") else { return reason.to_string() };
    let words = match kind {
        "titleMatch" => "title mentions",
        "summaryMatch" => "summary mentions",
        "filenameMatch" => "file name matches",
        "pathMatch" => "folder matches",
        "bodyMatch" => "text mentions",
        "deepestHit" => "most occurrences of",
        "anchors" => "anchored by",
        "changedWith" => "changed together with",
        "pastCommit" => "past commit",
        "recent" => "recent work",
        "sameFolder" => "same folder",
        "pathWords" => "its path spells",
        "sharesName" => "shares name words",
        "declares" => "declares",
        "uses" => "uses",
        "mentions" => "mentions",
        "modified" => "modified",
        other if other.chars().all(|c| c.is_ascii_alphabetic()) => {
            let mut spaced = String::new();
            for c in other.chars() {
                if c.is_ascii_uppercase() {
                    spaced.push(' ');
                }
                spaced.push(c.to_ascii_lowercase());
            }
            return format!("{spaced}: {rest}");
        }
        _ => return reason.to_string(),
    };
    format!("{words} {rest}")
}

fn render_item(out: &mut String, label: &str, item: &Item) {
    let role = serde_json::to_value(item.role).ok().and_then(|v| v.as_str().map(str::to_string)).unwrap_or_default();
    out.push_str(&format!("  {label} {} — {}  [{} · {role}]\n", item.path, item.title, item.kind.as_str()));
    if !item.summary.is_empty() {
        out.push_str(&format!("     {}\n", item.summary));
    }
    if !item.reasons.is_empty() {
        let reasons: Vec<String> = item.reasons.iter().map(|r| plain_reason(r)).collect();
        out.push_str(&format!("     why: {}\n", reasons.join("; ")));
    }
    if !item.relations.is_empty() {
        let relations: Vec<String> = item
            .relations
            .iter()
            .map(|r| {
                let arrow = if r.dir == "in" { "←" } else { "→" };
                let line = r.line.map(|l| format!(":{l}")).unwrap_or_default();
                let symbol = r.symbol.as_ref().map(|s| format!(" #{s}")).unwrap_or_default();
                format!("{} {arrow} {}{line}{symbol}", r.kind.as_str(), r.other)
            })
            .collect();
        out.push_str(&format!("     relations: {}\n", relations.join("; ")));
    }
    if let Some(p) = &item.passage {
        out.push_str(&format!("     match: lines {}–{} — {}\n", p.start_line, p.end_line, p.text));
    }
    if let Some(a) = &item.anchors {
        out.push_str(&format!("     anchors: {} total, {} stale, {} lost\n", a.total, a.stale, a.lost));
    }
    if let Some(lifecycle) = item.lifecycle {
        let state = serde_json::to_value(lifecycle).ok().and_then(|v| v.as_str().map(str::to_string)).unwrap_or_default();
        if state != "unread" {
            out.push_str(&format!("     {state}\n"));
        }
    }
}

/// The human rendering: tiers in reading order, numbered across tiers; pinned and more
/// unnumbered.
pub fn render_human(result: &PackResult) -> String {
    let mut out = String::new();
    match &result.task.text {
        Some(text) => out.push_str(&format!("Task ({}): {text}\n", result.task.source)),
        None => out.push_str(&format!("Task ({})\n", result.task.source)),
    }
    if !result.task.open_buffers.is_empty() {
        out.push_str(&format!("Open: {}\n", result.task.open_buffers.join(", ")));
    }
    if !result.task.terms.is_empty() {
        out.push_str(&format!("Terms: {}\n", result.task.terms.join(", ")));
    }
    if let Some(d) = &result.degraded {
        out.push_str(&format!("Note: {}\n", d.detail));
    }
    let mut number = 0;
    for (title, items, numbered) in [
        ("Pinned", &result.pinned, false),
        ("Primary — read first", &result.primary, true),
        ("Supporting — evidence and next steps", &result.supporting, true),
        ("Related — background", &result.related, true),
        ("More", &result.more, false),
    ] {
        if items.is_empty() {
            continue;
        }
        out.push_str(&format!("\n{title}\n"));
        for item in items {
            let label = if numbered {
                number += 1;
                format!("{number}.")
            } else {
                "·".to_string()
            };
            render_item(&mut out, &label, item);
        }
    }
    if result.primary.is_empty() && result.supporting.is_empty() && result.related.is_empty() && result.more.is_empty() && result.pinned.is_empty() {
        out.push_str("\nNo file matched the task.\n");
    }
    let s = &result.stats;
    out.push_str(&format!(
        "\n{} files collected, {} excluded, {} matched, {} packed, {} pinned, {} left out · epoch {}",
        s.collected, s.excluded, s.candidates, s.packed, s.pinned, s.truncated, result.epoch
    ));
    if let Some(delta) = &result.delta {
        out.push_str(&format!(" (+{} −{} ~{})", delta.entered.len(), delta.left.len(), delta.changed_tier.len()));
    }
    out.push('\n');
    out
}
