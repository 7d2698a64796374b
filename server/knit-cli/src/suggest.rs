//! `knit anchors suggest`: the code mentions of the docs that name exactly one
//! declaration or file (the engine's `Session::suggest`), listed, and with `--write`
//! turned into anchor links with their baselines recorded. Ambiguous mentions are listed
//! with their candidates and never written.

use crate::check::{read_doc, write_doc, Workspace};
use crate::{output, PlainFormat, RootArg};
use clap::Args;
use knit_anchors::edit::{apply_edits, convert_suggestion};
use knit_anchors::Session;
use std::path::PathBuf;

#[derive(Args)]
pub struct SuggestArgs {
    /// Convert each suggestion into an anchor link, its baseline recorded (ambiguous
    /// mentions are left as they are).
    #[arg(long)]
    write: bool,
    /// Markdown files or folders to read (default: the whole root).
    paths: Vec<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t)]
    format: PlainFormat,
    #[command(flatten)]
    pub workspace: RootArg,
}

pub fn run(root: &RootArg, args: &SuggestArgs) -> anyhow::Result<u8> {
    let ws = Workspace::open(root)?;
    let docs = ws.docs(&args.paths)?;
    // One session: the repository-wide index of declarations is built once.
    let mut session = Session::new(&ws.tree, &ws.cache, ws.config.check_config());
    let mut all = Vec::new();
    let mut written = 0;
    let mut refused = Vec::new();
    for doc in &docs {
        let Ok(d) = read_doc(&ws, doc) else { continue };
        let found = session.suggest(doc, &d.text);
        if args.write {
            let edits: Vec<_> = found.iter().filter(|s| s.dest.is_some()).filter_map(|s| convert_suggestion(&mut session, &d.text, s)).collect();
            if !edits.is_empty() {
                match write_doc(&ws, &d, &apply_edits(&d.text, &edits)) {
                    Ok(()) => written += edits.len(),
                    Err(e) => refused.push(format!("{doc}: not written: {e}")),
                }
            }
        }
        all.extend(found);
    }
    let suggested = all.iter().filter(|s| s.dest.is_some()).count();
    let ambiguous = all.len() - suggested;
    match args.format {
        PlainFormat::Json => println!(
            "{}",
            serde_json::json!({ "suggestions": all, "suggested": suggested, "ambiguous": ambiguous, "written": written, "not_written": refused })
        ),
        PlainFormat::Human => {
            let width = all.iter().map(|s| format!("{}:{}", s.doc, s.line).len()).max().unwrap_or(0);
            for s in &all {
                let at = format!("{}:{}", s.doc, s.line);
                match &s.dest {
                    Some(dest) => println!("{at:width$}  `{}` → {dest}  ({})", s.text, s.why),
                    None => {
                        println!("{at:width$}  `{}` left alone: {}", s.text, s.why);
                        for c in &s.candidates {
                            // A file candidate (a bare file name several files share) has no symbol.
                            match c.symbol.as_str() {
                                "" => println!("{:width$}    could be {}", "", c.path),
                                symbol => println!("{:width$}    could be {}#{symbol} (line {})", "", c.path, c.line),
                            }
                        }
                    }
                }
            }
            let verb = if args.write { format!("{written} written") } else { "run with --write to convert them".to_string() };
            println!(
                "{} to make anchors, {} left alone; {verb}",
                output::plural(suggested, "mention", "mentions"),
                output::plural(ambiguous, "ambiguous mention", "ambiguous mentions"),
            );
        }
    }
    for r in &refused {
        eprintln!("knit: {r}");
    }
    Ok(if refused.is_empty() { 0 } else { 2 })
}
