//! `gobang-tui`: the terminal mode (see `gobang::tui`).

use clap::Parser;
use gobang::tui::{self, TuiArgs};

/// Play renju or gomoku in the terminal: type points like h8, q for an engine move, help for more.
#[derive(Parser)]
#[command(version)]
struct Cli {
    #[command(flatten)]
    args: TuiArgs,
}

fn main() -> anyhow::Result<()> {
    let cli = Cli::parse();
    let stdin = std::io::BufReader::new(std::io::stdin());
    tui::run(stdin, std::io::stdout().lock(), cli.args.options())?;
    Ok(())
}
