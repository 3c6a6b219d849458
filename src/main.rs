//! `gobang`: the desktop app, or the terminal mode with `--tui` (which takes the same options as
//! `gobang-tui`).

use clap::Parser;
use gobang::tui::{self, TuiArgs};
use gtk4::glib::ExitCode;

/// The terminal mode's command line, after `--tui`.
#[derive(Parser)]
#[command(name = "gobang --tui", version)]
struct TuiCli {
    #[command(flatten)]
    args: TuiArgs,
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().collect();
    let Some(index) = args.iter().position(|arg| arg == "--tui") else {
        return gobang::ui::run(&args);
    };
    let mut tui_args = args;
    tui_args.remove(index);
    let cli = TuiCli::parse_from(tui_args);
    let stdin = std::io::BufReader::new(std::io::stdin());
    match tui::run(stdin, std::io::stdout().lock(), cli.args.options()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("gobang: {error}");
            ExitCode::FAILURE
        }
    }
}
