//! `knit check`, `knit anchors record`, `knit anchors confirm`: workspace setup, then
//! one call into the engine, then output. Docs are rewritten atomically and only
//! through the engine's text edits.

use crate::output;
use crate::{CheckFormat, PlainFormat, RootArg};
use anyhow::{bail, Context};
use clap::Args;
use knit_anchors::edit::{apply_edits, confirm, record};
use knit_anchors::{check, CheckOptions, DeclCache, Session, SourceTree, State};
use knit_workspace::{changed_files, Config, DiskDeclStore, DiskTree, EditSnapshot, StateStore, WriteError};
use std::collections::HashMap;
use std::path::PathBuf;

#[derive(Args)]
pub struct CheckArgs {
    /// Only anchors whose targets changed in the working tree, or since REV.
    #[arg(long, num_args = 0..=1, default_missing_value = "", value_name = "REV")]
    changed: Option<String>,
    /// For stale, moved and renamed anchors, say what changed since review: the commit
    /// of the reviewed version, the commits that changed the declaration after it, and
    /// its diff (read from git history; JSON: `detail.since`).
    #[arg(long)]
    explain: bool,
    /// Markdown files or folders to check (default: the whole root).
    paths: Vec<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t)]
    format: CheckFormat,
    #[command(flatten)]
    pub workspace: RootArg,
}

#[derive(Args)]
pub struct RecordArgs {
    /// Also record links to Markdown files as doc anchors (paired docs).
    #[arg(long)]
    docs: bool,
    /// Markdown files or folders whose new anchors to record (default: the whole root).
    paths: Vec<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t)]
    format: PlainFormat,
    #[command(flatten)]
    pub workspace: RootArg,
}

#[derive(Args)]
pub struct ConfirmArgs {
    /// DOC:LINE, e.g. docs/arch.md:12
    #[arg(required = true, value_name = "DOC:LINE")]
    targets: Vec<String>,
    /// Output format.
    #[arg(long, value_enum, default_value_t)]
    format: PlainFormat,
    #[command(flatten)]
    pub workspace: RootArg,
}

#[derive(Args)]
pub struct RebindArgs {
    /// The anchor: DOC:LINE, or DOC:LINE:N for the N-th anchor on the line.
    #[arg(value_name = "DOC:LINE[:N]")]
    anchor: String,
    /// What it should point at: `path#Fragment` (workspace-relative) or `Fragment` (same file).
    #[arg(value_name = "TARGET")]
    target: String,
    /// Output format.
    #[arg(long, value_enum, default_value_t)]
    format: PlainFormat,
    #[command(flatten)]
    pub workspace: RootArg,
}

/// The workspace of one command: root, config, disk tree and parse cache.
pub struct Workspace {
    pub root: PathBuf,
    pub config: Config,
    pub tree: DiskTree,
    pub cache: DeclCache,
    pub cache_dir: Option<PathBuf>,
}

impl Workspace {
    pub fn open(root: &RootArg) -> anyhow::Result<Workspace> {
        let root = root.resolve()?;
        let config = Config::load(&root)?;
        let tree = DiskTree::new(&root);
        let cache_dir = knit_workspace::housekeeping::workspace_cache(tree.root());
        let cache = match &cache_dir {
            Some(d) => DeclCache::with_store(Box::new(DiskDeclStore::new(d))),
            None => DeclCache::default(),
        };
        Ok(Workspace { root, config, tree, cache, cache_dir })
    }

    /// Workspace-relative forms of command-line paths (must be inside the root). A
    /// relative path is read from the current folder; when that lies outside the
    /// workspace (`knit check --root ../site docs/`), from the root instead.
    pub fn relative_paths(&self, paths: &[PathBuf]) -> anyhow::Result<Vec<String>> {
        paths
            .iter()
            .map(|p| {
                let cwd = std::env::current_dir()?;
                let abs = if p.is_absolute() {
                    p.clone()
                } else if self.tree.relative(&cwd.join(p)).is_none() && knit_workspace::files::canonical_dir(&cwd).ok().and_then(|c| self.tree.relative(&c.join(p))).is_none() {
                    self.root.join(p)
                } else {
                    cwd.join(p)
                };
                // The folder is resolved (a cwd reached through a symlink), the file name is
                // kept: a doc named through a symlink is that link, which a write refuses.
                let abs = match (abs.parent(), abs.file_name()) {
                    (Some(dir), Some(name)) => match knit_workspace::files::canonical_dir(dir) {
                        Ok(real) => real.join(name),
                        Err(_) => abs,
                    },
                    _ => abs,
                };
                self.tree.relative(&abs).with_context(|| format!("{} is outside the workspace {}", p.display(), self.root.display()))
            })
            .collect()
    }

    pub fn docs(&self, paths: &[PathBuf]) -> anyhow::Result<Vec<String>> {
        let rel = self.relative_paths(paths)?;
        for (p, r) in paths.iter().zip(&rel) {
            if !self.tree.exists(r) {
                bail!("{} does not exist", p.display());
            }
        }
        Ok(self.tree.markdown_under(&rel, &self.config.check.exclude))
    }
}

pub fn run_check(root: &RootArg, args: &CheckArgs) -> anyhow::Result<u8> {
    let ws = Workspace::open(root)?;
    let docs = ws.docs(&args.paths)?;
    // An explicit root without a single Markdown file is almost always the wrong folder.
    if docs.is_empty() && args.paths.is_empty() && root.root.is_some() {
        bail!("no Markdown files under {} (is --root the folder you meant?)", ws.root.display());
    }
    let changed = match &args.changed {
        None => None,
        Some(rev) => {
            let rev = if rev.is_empty() { None } else { Some(rev.as_str()) };
            Some(changed_files(&ws.root, rev).map_err(|e| anyhow::anyhow!("--changed: {e}"))?)
        }
    };
    let states = ws.cache_dir.as_deref().map(StateStore::new);
    let previous = states.as_ref().map(|s| s.load()).unwrap_or_default();
    let opts = CheckOptions { only_targets: changed.as_ref(), previous: Some(&previous) };
    let mut report = check(&ws.tree, &ws.cache, &ws.config.check_config(), &docs, &opts);
    if args.explain {
        explain_report(&ws, &mut report);
    }
    if let Some(s) = &states {
        let now: HashMap<String, String> = report.anchors.iter().map(|a| (a.id.clone(), a.state.as_str().to_string())).collect();
        s.save(&now);
    }
    match args.format {
        CheckFormat::Json => println!("{}", serde_json::to_string_pretty(&report)?),
        CheckFormat::Sarif => println!("{}", serde_json::to_string_pretty(&output::sarif(&report))?),
        CheckFormat::Human => {
            use std::io::IsTerminal;
            let colour = output::wants_colour(std::io::stdout().is_terminal(), std::env::var_os("NO_COLOR").as_deref());
            print!("{}", output::human(&report, docs.len(), &ws.root, colour, args.explain))
        }
    }
    Ok(if report.all_fresh() { 0 } else { 1 })
}

/// Fills `detail.since` of the stale, moved and renamed anchors from git history, within
/// the check's time budget (`[check] max_millis`, 30 s by default) spent again: what is
/// not reached by then says `history_cut_short`.
fn explain_report(ws: &Workspace, report: &mut knit_anchors::CheckReport) {
    use knit_anchors::engine::since::{explain, NoSince};
    let deadline = std::time::Instant::now() + std::time::Duration::from_millis(ws.config.check_config().max_millis);
    let limits = knit_workspace::VersionLimits { max_commits: 5000, max_versions: 200, max_bytes: ws.config.check_config().max_file_bytes, deadline };
    let mut versions: HashMap<String, knit_workspace::FileHistory> = HashMap::new();
    let mut history = |path: &str| -> knit_workspace::FileHistory {
        versions.entry(path.to_string()).or_insert_with(|| knit_workspace::file_history(&ws.root, path, limits)).clone()
    };
    let mut session = Session::new(&ws.tree, &ws.cache, ws.config.check_config());
    let mut scanned: HashMap<String, Vec<knit_anchors::Anchor>> = HashMap::new();
    for a in report.anchors.iter_mut() {
        if !matches!(a.state, State::Stale | State::Moved | State::Renamed | State::MovedRenamed) {
            continue;
        }
        if std::time::Instant::now() >= deadline {
            a.detail.since_missing = Some(NoSince::CutShort.as_str());
            continue;
        }
        let anchors = scanned.entry(a.doc.clone()).or_insert_with(|| {
            ws.tree.read(&a.doc, ws.config.check_config().max_file_bytes).map(|src| knit_anchors::scan_doc(&a.doc, src.strip_prefix('\u{feff}').unwrap_or(&src)).anchors).unwrap_or_default()
        });
        let Some(anchor) = anchors.iter().find(|x| x.id == a.id) else { continue };
        match explain(&mut session, anchor, &a.detail, &mut history, knit_anchors::engine::since::MAX_DIFF_LINES) {
            Ok(s) => a.detail.since = Some(s),
            Err(NoSince::NotApplicable) => {}
            Err(why) => a.detail.since_missing = Some(why.as_str()),
        }
    }
}

/// A doc read for editing: its text (BOM removed) and the snapshot the write checks against.
pub(crate) struct DocForEdit {
    snapshot: EditSnapshot,
    bom: bool,
    pub(crate) text: String,
}

/// Reads a doc for a rewrite. It must be a regular file inside the root, not a link.
pub(crate) fn read_doc(ws: &Workspace, rel: &str) -> anyhow::Result<DocForEdit> {
    let snapshot = ws.tree.confined().read_for_edit(rel, ws.config.check.max_file_bytes).map_err(|e| anyhow::anyhow!("{rel}: {e}"))?;
    let text = String::from_utf8(snapshot.bytes.clone()).map_err(|_| anyhow::anyhow!("{rel}: file is not valid UTF-8"))?;
    Ok(match text.strip_prefix('\u{feff}') {
        Some(t) => DocForEdit { bom: true, text: t.to_string(), snapshot },
        None => DocForEdit { bom: false, text, snapshot },
    })
}

/// Writes a doc back atomically, keeping a byte-order mark if it had one, and only if it
/// is still exactly what was read (see `Confined::replace`).
pub(crate) fn write_doc(ws: &Workspace, doc: &DocForEdit, text: &str) -> Result<(), WriteError> {
    let mut bytes = Vec::with_capacity(text.len() + 3);
    if doc.bom {
        bytes.extend_from_slice("\u{feff}".as_bytes());
    }
    bytes.extend_from_slice(text.as_bytes());
    ws.tree.confined().replace(&doc.snapshot, &bytes)
}

pub fn run_record(root: &RootArg, args: &RecordArgs) -> anyhow::Result<u8> {
    let ws = Workspace::open(root)?;
    let docs = ws.docs(&args.paths)?;
    let mut recorded = 0;
    let mut files = 0;
    let mut problems = Vec::new();
    // One session for every doc: the repository-wide index (for the uniqueness facts of
    // each baseline) is built once.
    let mut session = Session::new(&ws.tree, &ws.cache, ws.config.check_config());
    let mut refused = Vec::new();
    for doc in &docs {
        let Ok(d) = read_doc(&ws, doc) else { continue };
        let (edits, failed) = record(&mut session, doc, &d.text, args.docs);
        for (a, v) in failed {
            problems.push(serde_json::json!({"id": a.id, "doc": a.doc, "line": a.line(), "state": v.state.as_str(), "message": v.message}));
        }
        if !edits.is_empty() {
            match write_doc(&ws, &d, &apply_edits(&d.text, &edits)) {
                Ok(()) => {
                    recorded += edits.len();
                    files += 1;
                }
                Err(e) => refused.push(format!("{doc}: not written: {e}")),
            }
        }
    }
    match args.format {
        PlainFormat::Json => println!("{}", serde_json::json!({"recorded": recorded, "docs": files, "not_recorded": problems, "not_written": refused})),
        _ => {
            println!("recorded {} in {}", output::plural(recorded, "baseline", "baselines"), output::plural(files, "doc", "docs"));
            for p in &problems {
                println!("  not recorded {}:{}  {}  {}", p["doc"].as_str().unwrap_or(""), p["line"], p["state"].as_str().unwrap_or(""), p["message"].as_str().unwrap_or(""));
            }
        }
    }
    for r in &refused {
        eprintln!("knit: {r}");
    }
    // A doc knit refused to write is an error (exit 2): nothing of it was changed.
    Ok(if !refused.is_empty() {
        2
    } else if problems.is_empty() {
        0
    } else {
        1
    })
}

pub fn run_confirm(root: &RootArg, args: &ConfirmArgs) -> anyhow::Result<u8> {
    let ws = Workspace::open(root)?;
    let mut by_doc: Vec<(String, Vec<u32>)> = Vec::new();
    for t in &args.targets {
        let (doc, line) = t.rsplit_once(':').with_context(|| format!("expected DOC:LINE, got {t}"))?;
        let line: u32 = line.parse().with_context(|| format!("expected DOC:LINE, got {t}"))?;
        let rel = ws.relative_paths(&[PathBuf::from(doc)])?.remove(0);
        if !ws.tree.exists(&rel) {
            bail!("{doc} does not exist");
        }
        match by_doc.iter_mut().find(|(d, _)| *d == rel) {
            Some((_, lines)) => lines.push(line),
            None => by_doc.push((rel, vec![line])),
        }
    }
    let mut confirmed = 0;
    let mut problems = Vec::new();
    let mut refused = Vec::new();
    for (doc, lines) in by_doc {
        let d = read_doc(&ws, &doc)?;
        let src = d.text.as_str();
        let mut all = Vec::new();
        let mut anchors = 0;
        for line in lines {
            let mut session = Session::new(&ws.tree, &ws.cache, ws.config.check_config());
            let done = confirm(&mut session, &doc, src, line);
            if done.edits.is_empty() && done.failed.is_empty() {
                problems.push(format!("{doc}:{line}: no anchor on that line"));
            }
            for (a, v) in done.failed {
                problems.push(format!("{}:{}: cannot confirm a {} anchor: {}", a.doc, a.line(), v.state.as_str(), v.message));
            }
            anchors += done.anchors;
            all.extend(done.edits);
        }
        if !all.is_empty() {
            match write_doc(&ws, &d, &apply_edits(src, &all)) {
                Ok(()) => confirmed += anchors,
                Err(e) => refused.push(format!("{doc}: not written: {e}")),
            }
        }
    }
    match args.format {
        PlainFormat::Json => println!("{}", serde_json::json!({"confirmed": confirmed, "not_confirmed": problems, "not_written": refused})),
        PlainFormat::Human => {
            println!("confirmed {}", output::plural(confirmed, "anchor", "anchors"));
            for p in &problems {
                eprintln!("  {p}");
            }
        }
    }
    for r in &refused {
        eprintln!("knit: {r}");
    }
    Ok(if !refused.is_empty() {
        2
    } else if problems.is_empty() {
        0
    } else {
        1
    })
}

/// `knit anchors rebind DOC:LINE[:N] TARGET`.
pub fn run_rebind(root: &RootArg, args: &RebindArgs) -> anyhow::Result<u8> {
    let ws = Workspace::open(root)?;
    let usage = || anyhow::anyhow!("expected DOC:LINE or DOC:LINE:N, got {}", args.anchor);
    let mut parts = args.anchor.rsplitn(3, ':').collect::<Vec<_>>();
    parts.reverse();
    let (doc, line, ordinal) = match parts.as_slice() {
        [doc, line, n] if n.parse::<u32>().is_ok() && line.parse::<u32>().is_ok() => (doc.to_string(), line.parse::<u32>()?, Some(n.parse::<u32>()?)),
        [a, b, line] if line.parse::<u32>().is_ok() => (format!("{a}:{b}"), line.parse::<u32>()?, None),
        [doc, line] => (doc.to_string(), line.parse::<u32>().map_err(|_| usage())?, None),
        _ => return Err(usage()),
    };
    let rel = ws.relative_paths(&[PathBuf::from(&doc)])?.remove(0);
    if !ws.tree.exists(&rel) {
        bail!("{doc} does not exist");
    }
    let d = read_doc(&ws, &rel)?;
    let anchors: Vec<knit_anchors::Anchor> = knit_anchors::scan_doc(&rel, &d.text).anchors.into_iter().filter(|a| a.line() == line).collect();
    let anchor = match (anchors.as_slice(), ordinal) {
        ([], _) => bail!("{rel}:{line}: no anchor on that line"),
        ([a], None) => a.clone(),
        (_, Some(n)) => anchors.iter().find(|a| a.link.ordinal == n).cloned().with_context(|| format!("{rel}:{line}: no anchor number {n} on that line"))?,
        (many, None) => bail!("{rel}:{line} holds {} anchors: say which with {rel}:{line}:N", many.len()),
    };
    // `path#Fragment` from the root, or `Fragment` of the anchor's own file.
    let (path, fragment) = match args.target.split_once('#') {
        Some((p, f)) => (p.trim_start_matches("./").to_string(), f.to_string()),
        None => match &anchor.target {
            Ok(t) => (t.path().to_string(), args.target.clone()),
            Err(_) => bail!("the anchor's own target is not a workspace file: give TARGET as path#Fragment"),
        },
    };
    let dest = format!("{}#{fragment}", knit_anchors::target::relative_dest(&rel, &path));
    let target = match knit_anchors::target::classify(&rel, &dest) {
        Ok(Some(t)) => t,
        _ => bail!("{} is not a target in the workspace", args.target),
    };
    let probe = knit_anchors::Anchor { target: Ok(target), baseline: None, baseline_raw: None, ..anchor.clone() };
    let mut session = Session::new(&ws.tree, &ws.cache, ws.config.check_config());
    let (baseline, _) = match session.baseline_now(&probe) {
        Ok(b) => b,
        Err(v) => {
            let why = format!("{rel}:{line}: cannot point the anchor at {}: {}", args.target, v.message);
            match args.format {
                PlainFormat::Json => println!("{}", serde_json::json!({ "rebound": false, "why": why })),
                PlainFormat::Human => eprintln!("{why}"),
            }
            return Ok(1);
        }
    };
    let edits = knit_anchors::edit::rebind(&anchor, &dest, Some(&baseline));
    if let Err(e) = write_doc(&ws, &d, &apply_edits(&d.text, &edits)) {
        eprintln!("knit: {rel}: not written: {e}");
        return Ok(2);
    }
    match args.format {
        PlainFormat::Json => println!("{}", serde_json::json!({ "rebound": true, "doc": rel, "line": line, "destination": dest })),
        PlainFormat::Human => println!("rebound {rel}:{line} to {dest} (baseline recorded)"),
    }
    Ok(0)
}
