//! Runs the CLI's `knit pack` implementation (server/knit-cli/src/pack.rs) against this
//! crate, so the subcommand can be exercised before the CLI wires it in:
//! `cargo run -p knit-context --example pack -- --root DIR [--format json] --query "…"`.

#[path = "../../knit-cli/src/pack.rs"]
mod pack;

use clap::Parser;

#[derive(Parser)]
struct Cli {
    #[arg(long, default_value = ".")]
    root: std::path::PathBuf,
    #[arg(long, default_value = "human")]
    format: String,
    #[command(flatten)]
    pack: pack::PackArgs,
}

fn main() {
    let cli = Cli::parse();
    let code = match pack::run(&cli.pack, &cli.root, cli.format == "json") {
        Ok(code) => code,
        Err(error) => {
            eprintln!("knit pack: {error:#}");
            2
        }
    };
    std::process::exit(code);
}
