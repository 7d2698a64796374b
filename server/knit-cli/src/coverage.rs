//! `knit coverage`: which public declarations of the code under PATHs the docs anchor
//! (the engine's `Session::coverage` over a check of every doc), per folder and overall,
//! as a terminal report, JSON or SARIF; `--min N` fails below N percent.

use crate::check::Workspace;
use crate::RootArg;
use anyhow::bail;
use clap::{Args, ValueEnum};
use knit_anchors::{check, CheckOptions, Coverage, Session, SourceTree};
use serde_json::json;
use std::path::PathBuf;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub enum CoverageFormat {
    /// Per-folder percentages and the undocumented declarations
    #[default]
    Human,
    /// Every public declaration with the doc lines that anchor it
    Json,
    /// SARIF 2.1.0: one note per undocumented public declaration
    Sarif,
}

#[derive(Args)]
pub struct CoverageArgs {
    /// Code files or folders whose public API is counted (default: the whole root).
    paths: Vec<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t)]
    format: CoverageFormat,
    /// Exit 1 when less than this percentage of the public declarations is documented.
    #[arg(long, value_name = "PERCENT")]
    min: Option<f64>,
    #[command(flatten)]
    pub workspace: RootArg,
}

pub fn run(root: &RootArg, args: &CoverageArgs) -> anyhow::Result<u8> {
    if let Some(min) = args.min {
        if !(0.0..=100.0).contains(&min) {
            bail!("--min {min}: a percentage from 0 to 100");
        }
    }
    let ws = Workspace::open(root)?;
    let rel = ws.relative_paths(&args.paths)?;
    for (p, r) in args.paths.iter().zip(&rel) {
        if !ws.tree.exists(r) && !ws.tree.files().iter().any(|f| f.starts_with(&format!("{}/", r.trim_end_matches('/')))) {
            bail!("{} does not exist", p.display());
        }
    }
    let exclude = &ws.config.check.exclude;
    let code = ws.tree.files_under(&rel, exclude, |f| knit_syntax::Lang::from_path(f).is_some());
    // Every doc counts, whatever PATHs name: a declaration is documented by any doc.
    let docs = ws.tree.markdown_under(&[], exclude);
    let cfg = ws.config.check_config();
    let report = check(&ws.tree, &ws.cache, &cfg, &docs, &CheckOptions::default());
    let mut session = Session::new(&ws.tree, &ws.cache, cfg);
    let coverage = session.coverage(&code, &report);
    match args.format {
        CoverageFormat::Json => println!("{}", serde_json::to_string_pretty(&coverage)?),
        CoverageFormat::Sarif => println!("{}", serde_json::to_string_pretty(&sarif(&coverage))?),
        CoverageFormat::Human => print!("{}", human(&coverage, args.min)),
    }
    Ok(match args.min {
        Some(min) if coverage.total.percent() + 1e-9 < min => 1,
        _ => 0,
    })
}

fn human(c: &Coverage, min: Option<f64>) -> String {
    let mut out = String::new();
    let undocumented: Vec<_> = c.declarations.iter().filter(|d| d.documented_by.is_empty()).collect();
    if !undocumented.is_empty() {
        out.push_str("not documented (no doc anchors them):\n");
        let width = undocumented.iter().map(|d| format!("{}:{}", d.path, d.line).len()).max().unwrap_or(0);
        for d in &undocumented {
            out.push_str(&format!("  {:width$}  {} {}\n", format!("{}:{}", d.path, d.line), d.kind, d.symbol));
        }
        out.push('\n');
    }
    let width = c.folders.keys().map(|f| f.len()).max().unwrap_or(0).max("overall".len());
    for (folder, t) in &c.folders {
        out.push_str(&format!("{folder:width$}  {:>6.1} %  {} of {}\n", t.percent(), t.documented, t.public));
    }
    out.push_str(&format!("{:width$}  {:>6.1} %  {} of {} public declarations documented\n", "overall", c.total.percent(), c.total.documented, c.total.public));
    for (path, why) in &c.unread {
        out.push_str(&format!("not read: {path}: {why}\n"));
    }
    if let Some(min) = min {
        if c.total.percent() + 1e-9 < min {
            out.push_str(&format!("below --min {min} %\n"));
        }
    }
    out
}

/// SARIF 2.1.0: one `note` per undocumented public declaration, at its name.
fn sarif(c: &Coverage) -> serde_json::Value {
    let results: Vec<_> = c
        .declarations
        .iter()
        .filter(|d| d.documented_by.is_empty())
        .map(|d| {
            json!({
                "ruleId": "undocumented",
                "level": "note",
                "message": {"text": format!("public {} `{}` is not anchored by any doc", d.kind, d.symbol)},
                "locations": [{"physicalLocation": {"artifactLocation": {"uri": d.path}, "region": {"startLine": d.line.max(1)}}}],
                "partialFingerprints": {"knitSymbol": format!("{}#{}", d.path, d.symbol)},
            })
        })
        .collect();
    json!({
        "version": "2.1.0",
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "runs": [{
            "tool": {"driver": {"name": "knit", "version": env!("CARGO_PKG_VERSION"), "rules": [
                {"id": "undocumented", "name": "undocumented", "shortDescription": {"text": "a public declaration no doc anchors"}}
            ]}},
            "results": results,
        }]
    })
}
