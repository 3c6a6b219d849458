//! The terminal mode driven by a script through the `gobang-tui` binary (play, engine move, undo,
//! record, pass, save, load), the move clock running out while nobody types, and the
//! locale-dependent drawing.

use gobang::game::record::GameRecord;
use gobang::rules::{Move, Rule};
use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

fn run_tui(args: &[&str], env: &[(&str, &str)], script: &str) -> String {
    let mut command = Command::new(env!("CARGO_BIN_EXE_gobang-tui"));
    command
        .args(args)
        .env_remove("LC_ALL")
        .env_remove("LC_CTYPE")
        .env_remove("LANG")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (name, value) in env {
        command.env(name, value);
    }
    let mut child = command.spawn().expect("start gobang-tui");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(script.as_bytes())
        .expect("write script");
    let output = child.wait_with_output().expect("gobang-tui runs");
    assert!(output.status.success(), "{output:?}");
    String::from_utf8(output.stdout).expect("UTF-8 output")
}

/// Whether `gobang-tui` started with `args` exits with an error before reading any input.
fn refuses_to_start(args: &[&str]) -> bool {
    let status = Command::new(env!("CARGO_BIN_EXE_gobang-tui"))
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .expect("gobang-tui starts");
    !status.success()
}

#[test]
fn scripted_game_plays_undoes_records_saves_and_loads() {
    let dir = std::env::temp_dir().join(format!("gobang-tui-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("game.sgf");
    let file = path.to_str().unwrap();
    let script = format!("h8\nq\nw\nq\nr\np\nsave {file}\nnew freestyle\nload {file}\nr\nquit\n");
    let out = run_tui(&["--time", "0.2", "--ascii"], &[], &script);
    assert!(out.contains("Black plays h8."), "{out}");
    assert_eq!(out.matches("White plays ").count(), 2, "{out}");
    assert!(out.contains("Took back "), "{out}");
    assert!(out.contains("Record (Renju, 2 moves): 1. h8 "), "{out}");
    assert!(out.contains("Black plays pass."), "{out}");
    assert!(
        out.contains(&format!("Saved 3 moves to {file} (SGF).")),
        "{out}"
    );
    assert!(out.contains("New Freestyle game."), "{out}");
    assert!(
        out.contains(&format!("Loaded 3 moves from {file} (Renju).")),
        "{out}"
    );
    let last_record = out.rsplit("Record (Renju, 3 moves): ").next().unwrap();
    assert!(last_record.starts_with("1. h8 "), "{out}");
    assert!(
        last_record.contains(" 2. pass\nResult: in progress"),
        "{out}"
    );

    let record = GameRecord::load(&path).unwrap();
    assert_eq!(record.rule, Rule::Renju);
    assert_eq!(record.moves.len(), 3);
    assert_eq!(record.moves[2].mv, Move::Pass);
    assert!(record.moves.iter().all(|m| m.time_ms.is_some()));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn board_uses_box_drawing_only_in_utf8_locales() {
    let utf8 = run_tui(&["--no-clock"], &[("LANG", "en_US.UTF-8")], "h8\nquit\n");
    assert!(utf8.contains("├─┼─┼"), "{utf8}");
    assert!(utf8.contains("┼[●]┼"), "{utf8}");
    let c_locale = run_tui(&["--no-clock"], &[("LANG", "C")], "h8\nquit\n");
    assert!(!c_locale.contains('┼'), "{c_locale}");
    assert!(c_locale.is_ascii(), "{c_locale}");
    assert!(c_locale.contains(" .[X]. ."), "{c_locale}");
    // LC_ALL wins over LANG, and --ascii wins over both.
    let overridden = run_tui(&[], &[("LC_ALL", "C"), ("LANG", "en_US.UTF-8")], "quit\n");
    assert!(overridden.is_ascii(), "{overridden}");
    let forced = run_tui(&["--ascii"], &[("LANG", "en_US.UTF-8")], "quit\n");
    assert!(forced.is_ascii(), "{forced}");
}

#[test]
fn startup_file_bad_rule_and_end_of_input() {
    let out = run_tui(&["--ascii", "--rule", "standard"], &[], "new\nh8\n");
    assert!(out.contains("New Standard game."), "{out}");
    assert!(out.contains("Black plays h8."), "{out}");
    let missing = run_tui(&["--ascii", "/nonexistent/game.sgf"], &[], "quit\n");
    assert!(
        missing.contains("Not loaded: /nonexistent/game.sgf:"),
        "{missing}"
    );
    let library = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/records/renlib_v3.lib"
    );
    let loaded = run_tui(&["--ascii", library], &[], "quit\n");
    assert!(loaded.contains("Loaded 51 moves from "), "{loaded}");
    assert!(
        loaded.contains("The file holds 457 lines of play; its main line is loaded."),
        "{loaded}"
    );
    assert!(refuses_to_start(&["--rule", "chess"]));
}

#[test]
fn games_start_from_a_standard_opening_by_flag_or_command() {
    let flagged = run_tui(&["--ascii", "--opening", "i13"], &[], "r\nquit\n");
    assert!(
        flagged.contains("New Renju game from the opening I13 Suisei."),
        "{flagged}"
    );
    assert!(
        flagged.contains("Record (Renju, 3 moves): 1. h8 i9 2. f6"),
        "{flagged}"
    );
    assert!(flagged.contains("move 4, White to move"), "{flagged}");

    let script = "opening\nopening d14\nh8\nopening D4\nr\nj10\nw\nw\nr\nquit\n";
    let out = run_tui(&["--rule", "standard"], &[("LANG", "C.UTF-8")], script);
    assert!(out.contains("The 26 standard renju openings"), "{out}");
    assert!(out.contains("  D1 Kansei 寒星"), "{out}");
    assert!(out.contains("I13 Suisei 彗星"), "{out}");
    assert!(
        out.contains("'d14' is not a standard opening; type opening for the list."),
        "{out}"
    );
    assert!(
        out.contains("New Standard game from the opening D4 Kagetsu 花月."),
        "{out}"
    );
    // `w` takes back moves played since, never the opening's stones.
    assert!(out.contains("Took back j10."), "{out}");
    assert!(
        out.contains("Nothing to take back: the opening's stones stay"),
        "{out}"
    );
    assert_eq!(
        out.matches("Record (Standard, 3 moves): 1. h8 h9 2. i9\n")
            .count(),
        2,
        "{out}"
    );

    assert!(
        refuses_to_start(&["--opening", "x1"]),
        "an unknown opening code is refused"
    );
}

#[test]
fn clock_flags_a_player_who_types_nothing() {
    let started = Instant::now();
    let mut child = Command::new(env!("CARGO_BIN_EXE_gobang-tui"))
        .args(["--ascii", "--move-time", "0.3"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("start gobang-tui");
    // Stdin stays open and silent until the loss is printed; a watchdog ends a hung binary.
    let stdin = child.stdin.take().expect("stdin");
    let stdout = child.stdout.take().expect("stdout");
    let (done, watchdog) = mpsc::channel::<()>();
    let id = child.id();
    let guard = std::thread::spawn(move || {
        if watchdog.recv_timeout(Duration::from_secs(10)).is_err() {
            let _ = Command::new("kill").arg(id.to_string()).status();
        }
    });
    let mut seen = String::new();
    let mut lines = BufReader::new(stdout).lines();
    for line in lines.by_ref() {
        let line = line.expect("output");
        seen.push_str(&line);
        seen.push('\n');
        if line.contains("time ran out") {
            break;
        }
    }
    let flagged = started.elapsed();
    drop(stdin);
    let rest: Vec<String> = lines.map_while(Result::ok).collect();
    let status = child.wait().expect("gobang-tui ends");
    let _ = done.send(());
    guard.join().expect("watchdog");
    assert!(status.success(), "{status:?}\n{seen}");
    assert!(
        seen.contains("Black took longer than 0.3 s for the move."),
        "{seen}"
    );
    assert!(seen.contains("White wins: time ran out."), "{seen}");
    assert_eq!(rest, ["game over> "], "{seen}");
    assert!(
        flagged >= Duration::from_millis(300) && flagged < Duration::from_secs(3),
        "{flagged:?}"
    );
}
