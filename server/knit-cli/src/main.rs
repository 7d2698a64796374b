//! The `knit` binary: CLI and language server, two thin faces of the same core.
//!
//! Exit codes: 0 success / all fresh, 1 findings, 2 usage or configuration error.

mod bench;
mod check;
mod output;
mod pack;

use clap::{Args, Parser, Subcommand, ValueEnum};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Parser)]
#[command(name = "knit", version, about = "Keeps Markdown docs honest about the code they describe, and packs the few files that matter for a task.")]
struct Cli {
    #[command(flatten)]
    global: GlobalArgs,
    #[command(subcommand)]
    command: Command,
}

#[derive(Args, Clone)]
pub struct GlobalArgs {
    /// Workspace root (default: nearest folder holding .git or knit.toml, else the current folder).
    #[arg(long, global = true)]
    pub root: Option<PathBuf>,
    /// Output format (`sarif` for `check` only, `markdown` for `bench history` only).
    #[arg(long = "format", global = true, value_enum, default_value_t = FormatArg::Human)]
    pub format_arg: FormatArg,
    /// The format for commands without Markdown output (set from `format_arg` in `main`).
    #[arg(skip = Format::Human)]
    pub format: Format,
}

#[derive(Copy, Clone, PartialEq, Eq)]
pub enum Format {
    Human,
    Json,
    Sarif,
}

/// `--format` as typed: `markdown` exists for `bench history` only.
#[derive(Copy, Clone, PartialEq, Eq, ValueEnum)]
pub enum FormatArg {
    Human,
    Json,
    Sarif,
    Markdown,
}

#[derive(Subcommand)]
enum Command {
    /// Check every anchor in the Markdown under PATHs (default: the whole root).
    Check(check::CheckArgs),
    /// Record or confirm baselines.
    #[command(subcommand)]
    Anchors(AnchorsCommand),
    /// Benchmarks (see README "Benchmarks").
    #[command(subcommand)]
    Bench(bench::BenchCommand),
    /// A context pack: the few files worth reading for a task (DESIGN 4).
    Pack(pack::PackArgs),
    /// The language server on stdio (`--stdio` is accepted: clients append it).
    Lsp { #[arg(long)] stdio: bool },
    /// An MCP server on stdio for coding agents: tools check_anchors, context_pack, mark_read.
    Mcp,
}

#[derive(Subcommand)]
enum AnchorsCommand {
    /// Write baselines into unrecorded anchors (never touches recorded ones).
    Record(check::RecordArgs),
    /// Explicit review: re-baseline the anchors on DOC:LINE (follows moves and renames).
    Confirm(check::ConfirmArgs),
}

fn main() -> ExitCode {
    let mut cli = Cli::parse();
    cli.global.format = match cli.global.format_arg {
        FormatArg::Human => Format::Human,
        FormatArg::Json => Format::Json,
        FormatArg::Sarif => Format::Sarif,
        FormatArg::Markdown if matches!(cli.command, Command::Bench(bench::BenchCommand::History(_))) => Format::Human,
        FormatArg::Markdown => {
            eprintln!("knit: --format markdown is only for `knit bench history`");
            return ExitCode::from(2);
        }
    };
    let result = match &cli.command {
        Command::Check(a) => check::run_check(&cli.global, a),
        Command::Anchors(AnchorsCommand::Record(a)) => check::run_record(&cli.global, a),
        Command::Anchors(AnchorsCommand::Confirm(a)) => check::run_confirm(&cli.global, a),
        Command::Bench(b) => bench::run(&cli.global, b),
        Command::Lsp { .. } => knit_lsp::run_stdio().map(|()| 0),
        Command::Mcp => check::Workspace::open(&cli.global).and_then(|ws| knit_mcp::run_stdio(&ws.root)).map(|()| 0),
        Command::Pack(a) => check::Workspace::open(&cli.global)
            .and_then(|ws| pack::run(a, &ws, cli.global.format == Format::Json))
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
