//! The `knit` binary: CLI and language server, two thin faces of the same core.
//!
//! Exit codes: 0 success / all fresh, 1 findings, 2 usage or configuration error.

mod bench;
mod cache;
mod check;
mod coverage;
mod output;
mod pack;
mod suggest;

use clap::{Args, Parser, Subcommand, ValueEnum};
use std::path::PathBuf;
use std::process::ExitCode;

/// Ends `knit --help`: what the exit codes mean and the first commands to try.
const TOP_HELP: &str = "\
Exit codes: 0 success (every anchor fresh), 1 findings (an anchor is stale, lost, unchecked
or a link broken), 2 usage, configuration or I/O error.

Examples:
  knit check                              check every doc of the workspace
  knit anchors record docs/arch.md        write baselines into a doc's new anchors
  knit anchors confirm docs/arch.md:12    accept the code as it is now, after review
  knit anchors rebind docs/arch.md:12 src/a.ts#f   point an anchor at another declaration
  knit pack --query \"how are anchors resolved\"   the files worth reading for a task";

const COVERAGE_HELP: &str = "\
Public declarations: TypeScript/JavaScript `export`, Rust `pub`, Swift `public`/`open`,
Python names without a leading underscore, Go capitalised names, Kotlin non-private — and
the members of public types. A declaration is documented when an anchor of any doc
designates it (where a moved or renamed one went; not a lost one).

Exit codes: 0 the report was made (and met --min), 1 below --min, 2 usage, configuration
or I/O error.

Examples:
  knit coverage                      every public declaration of the workspace
  knit coverage src --min 60         fail below 60 % documented
  knit coverage --format sarif       undocumented declarations for code scanning";

const CHECK_HELP: &str = "\
Exit codes: 0 every anchor fresh, 1 findings (stale, lost, unchecked or broken), 2 usage,
configuration or I/O error.

Examples:
  knit check                           the whole workspace
  knit check docs/ README.md           some docs only
  knit check --changed main            anchors whose code changed since `main`
  knit check --format sarif > knit.sarif";

const RECORD_HELP: &str = "\
Exit codes: 0 every new anchor recorded, 1 some could not be (their target is missing or
unreadable: listed), 2 usage error or a doc knit refused to write (nothing of it changed).

Example:
  knit anchors record docs/architecture.md";

const CONFIRM_HELP: &str = "\
Exit codes: 0 every anchor on the lines confirmed, 1 a line held no anchor or one that
cannot be confirmed (listed), 2 usage error or a doc knit refused to write.

Example:
  knit anchors confirm docs/architecture.md:12 docs/architecture.md:40";

const REBIND_HELP: &str = "\
TARGET is what the anchor should point at now: `path#Fragment` (workspace-relative, e.g.
src/cart.ts#Cart.total, or src/cart.ts#L12-L40), or just `Fragment` for another
declaration of the same file. The destination is rewritten relative to the doc and the
baseline recorded from the target as it is now.

Exit codes: 0 rebound, 1 the target does not resolve to exactly one declaration (why is
said, with did-you-mean), 2 usage error or a doc knit refused to write.

Examples:
  knit anchors rebind docs/architecture.md:12 src/util/paths.ts#pathLanguage
  knit anchors rebind docs/architecture.md:12:2 resolveAll";

const SUGGEST_HELP: &str = "\
Reads inline code in the docs — qualified names (`Router.add`, `Type#method`,
`Type::method`, `Type/member`), calls (`createFactory()`), file paths — and suggests an
anchor where exactly one declaration or file of the workspace matches: by qualified name,
or by a name no other declaration has. The files a doc already links to, then its own
folder, break ties, and only ties. Plain words (`config`) are not read as names.
Ambiguous mentions are listed with what they could be, and never written.

Exit codes: 0 listed (or written), 2 usage error or a doc knit refused to write.

Examples:
  knit anchors suggest
  knit anchors suggest docs/guide.md --write
  knit anchors suggest --format json";

const PACK_HELP: &str = "\
Exit codes: 0 a pack was printed (even an empty or degraded one), 2 usage error.

Examples:
  knit pack --query \"where are baselines written\"
  knit pack --open src/router.ts        as if the file were open in an editor
  knit pack --query \"retry logic\" --kinds code --limit 10 --format json";

#[derive(Parser)]
#[command(name = "knit", version, about = "Keeps Markdown docs honest about the code they describe, and packs the few files that matter for a task.", after_help = TOP_HELP)]
struct Cli {
    /// Workspace root, for every command that reads one (the command's own `--root` wins).
    #[arg(long, value_name = "DIR")]
    root: Option<PathBuf>,
    #[command(subcommand)]
    command: Command,
}

/// `--root`, for the commands that read a workspace.
#[derive(Args, Clone, Default)]
pub struct RootArg {
    /// Workspace root (default: the nearest folder holding .git or knit.toml, else the current folder).
    #[arg(long, value_name = "DIR")]
    pub root: Option<PathBuf>,
}

impl RootArg {
    /// The command's `--root`, else the one given before the command.
    pub fn or(&self, outer: &Option<PathBuf>) -> RootArg {
        RootArg { root: self.root.clone().or_else(|| outer.clone()) }
    }

    /// The workspace root this names: the given folder (canonical), else the nearest one
    /// above the current folder holding .git or knit.toml.
    pub fn resolve(&self) -> anyhow::Result<PathBuf> {
        match &self.root {
            Some(r) => knit_workspace::files::canonical_dir(r).map_err(|_| anyhow::anyhow!("--root {} is not a folder", r.display())),
            None => Ok(knit_workspace::find_root(&std::env::current_dir()?)),
        }
    }
}

/// `--format` of `check`.
#[derive(Copy, Clone, PartialEq, Eq, Default, ValueEnum)]
pub enum CheckFormat {
    /// Aligned findings for a terminal
    #[default]
    Human,
    /// Every anchor with its state, reason and location, as JSON
    Json,
    /// SARIF 2.1.0, for code-scanning tools
    Sarif,
}

/// `--format` of the commands that print a human summary or JSON.
#[derive(Copy, Clone, PartialEq, Eq, Default, ValueEnum)]
pub enum PlainFormat {
    #[default]
    Human,
    Json,
}

#[derive(Subcommand)]
enum Command {
    /// Check every anchor in the Markdown under PATHs (default: the whole root).
    #[command(after_help = CHECK_HELP)]
    Check(check::CheckArgs),
    /// Record or confirm baselines.
    #[command(subcommand)]
    Anchors(AnchorsCommand),
    /// Benchmarks (see README "Benchmarks").
    #[command(subcommand, after_help = "Exit codes: 0 the benchmark ran (its figures say whether targets are met), 2 usage or I/O error.\n\nExamples:\n  knit bench anchors --files 2000\n  knit bench history --repo ../zod --max-tasks 120")]
    Bench(bench::BenchCommand),
    /// A context pack: the few files worth reading for a task, in tiers, each with its reasons.
    #[command(after_help = PACK_HELP)]
    Pack(pack::PackArgs),
    /// Which public declarations of the code under PATHs (default: the whole root) the
    /// docs anchor, per folder and overall.
    #[command(after_help = COVERAGE_HELP)]
    Coverage(coverage::CoverageArgs),
    /// The language server on stdio (editors start it; the workspace comes from the client).
    #[command(after_help = "Exit codes: 0 after the client's exit notification, 2 if stdio fails.\n\nEditors start it themselves (see editors/README.md).\n\nExample:\n  knit lsp --stdio")]
    Lsp {
        /// Accepted and ignored: clients append it (stdio is the only transport).
        #[arg(long)]
        stdio: bool,
    },
    /// An MCP server on stdio for coding agents: tools check_anchors, context_pack, mark_read.
    #[command(after_help = "Exit codes: 0 when the client closes stdin, 2 if the root is not a folder.\n\nAgents start it from their MCP configuration.\n\nExample:\n  knit mcp --root /path/to/repo")]
    Mcp(RootArg),
    /// What knit keeps in its cache folder, and removing it (it is rebuilt on demand).
    #[command(subcommand)]
    Cache(cache::CacheCommand),
}

#[derive(Subcommand)]
enum AnchorsCommand {
    /// Write baselines into unrecorded anchors (never touches recorded ones).
    #[command(after_help = RECORD_HELP)]
    Record(check::RecordArgs),
    /// Explicit review: re-baseline the anchors on DOC:LINE (follows moves and renames).
    #[command(after_help = CONFIRM_HELP)]
    Confirm(check::ConfirmArgs),
    /// Point the anchor on DOC:LINE at another target, and record it (any declaration,
    /// not only the candidates knit offered).
    #[command(after_help = REBIND_HELP)]
    Rebind(check::RebindArgs),
    /// Turn code mentions (`Router.add`, `createFactory()`, `src/a.ts`) that name exactly
    /// one declaration or file into anchors: listed, or written with --write.
    #[command(after_help = SUGGEST_HELP)]
    Suggest(suggest::SuggestArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let outer = &cli.root;
    let result = match &cli.command {
        Command::Check(a) => check::run_check(&a.workspace.or(outer), a),
        Command::Anchors(AnchorsCommand::Record(a)) => check::run_record(&a.workspace.or(outer), a),
        Command::Anchors(AnchorsCommand::Confirm(a)) => check::run_confirm(&a.workspace.or(outer), a),
        Command::Anchors(AnchorsCommand::Rebind(a)) => check::run_rebind(&a.workspace.or(outer), a),
        Command::Anchors(AnchorsCommand::Suggest(a)) => suggest::run(&a.workspace.or(outer), a),
        Command::Coverage(a) => coverage::run(&a.workspace.or(outer), a),
        Command::Bench(b) => bench::run(b),
        Command::Cache(c) => cache::run(c, outer),
        Command::Lsp { .. } => knit_lsp::run_stdio().map(|()| 0),
        Command::Mcp(root) => check::Workspace::open(&root.or(outer)).and_then(|ws| knit_mcp::run_stdio(&ws.root)).map(|()| 0),
        Command::Pack(a) => check::Workspace::open(&a.workspace.or(outer))
            .and_then(|ws| pack::run(a, &ws, a.format == PlainFormat::Json))
            .map(|code| code.clamp(0, 255) as u8),
    };
    match result {
        Ok(code) => ExitCode::from(code),
        Err(e) => {
            eprintln!("knit: {e:#}");
            ExitCode::from(2)
        }
    }
}
