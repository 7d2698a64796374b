//! `knit cache list` and `knit cache clean`: what knit keeps under its cache folder (one
//! folder per workspace: parsed declarations, the search index, the co-change table, the
//! last check's states) and removing it. Everything there is rebuilt on demand; runs also
//! prune the folders of workspaces unused for 30 days on their own.

use crate::{PlainFormat, RootArg};
use clap::{Args, Subcommand};
use knit_workspace::housekeeping::{cache_folders, remove, CacheFolder};
use knit_workspace::{cache_base, cache_dir_for};

use crate::output::plural;

#[derive(Subcommand)]
pub enum CacheCommand {
    /// Every workspace's cache folder: its root, size and when a run last used it.
    #[command(after_help = "Exit codes: 0 listed, 2 an I/O error.\n\nThe folder is $KNIT_CACHE_DIR, else the platform cache folder (~/.cache/knit on Linux).\n\nExample:\n  knit cache list")]
    List(ListArgs),
    /// Remove this workspace's cache folder (or every workspace's, with --all).
    #[command(after_help = "Exit codes: 0 removed (or nothing to remove), 2 an I/O error. Nothing but knit's own\nworkspace folders is removed; they are rebuilt on the next run.\n\nExamples:\n  knit cache clean\n  knit cache clean --all")]
    Clean(CleanArgs),
}

#[derive(Args)]
pub struct ListArgs {
    /// Output format.
    #[arg(long, value_enum, default_value_t)]
    format: PlainFormat,
}

#[derive(Args)]
pub struct CleanArgs {
    /// Every workspace's folder, not only this one's.
    #[arg(long)]
    all: bool,
    #[command(flatten)]
    pub workspace: RootArg,
}

fn human_bytes(bytes: u64) -> String {
    match bytes {
        b if b >= 1 << 30 => format!("{:.1} GiB", b as f64 / (1u64 << 30) as f64),
        b if b >= 1 << 20 => format!("{:.1} MiB", b as f64 / (1u64 << 20) as f64),
        b if b >= 1 << 10 => format!("{:.0} KiB", b as f64 / 1024.0),
        b => format!("{b} B"),
    }
}

fn days(folder: &CacheFolder) -> String {
    match folder.idle {
        Some(idle) if idle.as_secs() < 86_400 => "today".to_string(),
        Some(idle) => format!("{} days ago", idle.as_secs() / 86_400),
        None => "never marked".to_string(),
    }
}

pub fn run(cmd: &CacheCommand, outer: &Option<std::path::PathBuf>) -> anyhow::Result<u8> {
    let base = cache_base();
    match cmd {
        CacheCommand::List(args) => {
            let folders = cache_folders(&base, true);
            match args.format {
                PlainFormat::Json => {
                    let rows: Vec<serde_json::Value> = folders
                        .iter()
                        .map(|f| serde_json::json!({"dir": f.dir, "root": f.root, "bytes": f.bytes, "idle_days": f.idle.map(|i| i.as_secs() / 86_400)}))
                        .collect();
                    println!("{}", serde_json::json!({"base": base, "workspaces": rows}));
                }
                PlainFormat::Human => {
                    let total: u64 = folders.iter().map(|f| f.bytes).sum();
                    println!("{}: {} in {}", base.display(), human_bytes(total), plural(folders.len(), "workspace folder", "workspace folders"));
                    for f in &folders {
                        println!("  {:>9}  {:<13}  {}", human_bytes(f.bytes), days(f), f.root.as_deref().unwrap_or("(root unknown)"));
                    }
                    if !folders.is_empty() {
                        println!("remove with: knit cache clean (this workspace) or knit cache clean --all");
                    }
                }
            }
            Ok(0)
        }
        CacheCommand::Clean(args) => {
            let folders = cache_folders(&base, true);
            let chosen: Vec<CacheFolder> = if args.all {
                folders
            } else {
                let root = args.workspace.or(outer).resolve()?;
                let Some(dir) = cache_dir_for(&root) else { return Ok(0) };
                folders.into_iter().filter(|f| f.dir == dir).collect()
            };
            let freed = remove(&chosen)?;
            println!("removed {} ({}) from {}", plural(chosen.len(), "workspace folder", "workspace folders"), human_bytes(freed), base.display());
            Ok(0)
        }
    }
}
