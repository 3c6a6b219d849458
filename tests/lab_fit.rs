//! Drives `gobang-lab fit`: games are played with `gobang-lab selfplay` into a folder (with one
//! unreadable record beside them), then fitted; the fit must lower the training loss, skip the bad
//! file with a message, and write a weights file the engine can load. A labels file (positions
//! with target scores, two of its lines malformed) is fitted the same way, and again with only the
//! positions a search scores at its horizon (`--leaves`). The default weights have two stages of
//! the game, so each fit names the stage it fits, and leaves the other as it was. A network fit
//! (`--hidden`) adds a network to a stage and leaves its linear weights as they were. `label`
//! writes labels from the engine's own search for `fit --labels`. `fit-order` fits the quiet-move
//! order to one player's choices in played games.

use gobang::engine::Weights;
use std::path::{Path, PathBuf};
use std::process::Command;

fn lab(args: &[&str]) -> (String, String) {
    let output = Command::new(env!("CARGO_BIN_EXE_gobang-lab"))
        .args(args)
        .output()
        .expect("run gobang-lab");
    let stdout = String::from_utf8_lossy(&output.stdout).to_string();
    let stderr = String::from_utf8_lossy(&output.stderr).to_string();
    assert!(output.status.success(), "{args:?} failed: {stdout}{stderr}");
    (stdout, stderr)
}

/// The two numbers of a `<name> loss: start X, fitted Y` line.
fn losses(out: &str, name: &str) -> (f64, f64) {
    let line = out
        .lines()
        .find(|l| l.trim_start().starts_with(&format!("{name} loss")))
        .unwrap_or_else(|| panic!("no {name} loss line in {out}"));
    let numbers: Vec<f64> = line
        .split(|c: char| c == ',' || c.is_whitespace())
        .filter_map(|word| word.parse().ok())
        .collect();
    assert_eq!(numbers.len(), 2, "{line}");
    (numbers[0], numbers[1])
}

/// `fit` of the early stage to the labels file `labels` alone (nothing held out), written to
/// `out`, with `extra` arguments.
fn fit_labels_early(labels: &Path, out: &Path, extra: &[&str]) -> (String, String) {
    let mut args = vec![
        "fit",
        "--labels",
        labels.to_str().expect("utf-8 path"),
        "--stage",
        "early",
        "--holdout",
        "0",
        "--out",
        out.to_str().expect("utf-8 path"),
    ];
    args.extend_from_slice(extra);
    lab(&args)
}

/// A fresh scratch folder `name` with `games` games of a depth-1 against a depth-2 engine played
/// into its `records` folder, and one unreadable record beside them. Returns the folder and the
/// records folder.
fn scratch_with_games(name: &str, games: &str) -> (PathBuf, PathBuf) {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch dir");
    let records = dir.join("records");
    lab(&[
        "selfplay",
        "engine:depth=1",
        "engine:depth=2",
        "--games",
        games,
        "--threads",
        "2",
        "--move-time-ms",
        "2000",
        "--records",
        records.to_str().expect("utf-8 path"),
    ]);
    std::fs::write(
        records.join("broken.psq"),
        "Piskvorky 15x15, 11:11, 0\n8,8\n99,1\n",
    )
    .expect("write a broken record");
    (dir, records)
}

#[test]
fn fitting_played_games_lowers_the_loss_and_writes_weights() {
    let (dir, records) = scratch_with_games("fit-games", "12");
    let weights = dir.join("fitted.txt");
    let (out, err) = lab(&[
        "fit",
        records.to_str().expect("utf-8 path"),
        "--stage",
        "early",
        "--steps",
        "300",
        "--holdout",
        "4",
        "--out",
        weights.to_str().expect("utf-8 path"),
    ]);
    assert!(
        out.contains("12 games, 0 labelled positions (1 skipped)"),
        "{out}"
    );
    assert!(err.contains("broken.psq"), "{err}");
    assert!(out.contains("player offset"), "{out}");
    let (start, fitted) = losses(&out, "training");
    assert!(fitted < start, "training loss did not drop: {out}");
    losses(&out, "validation");
    let fitted_weights = Weights::load(&weights).expect("the engine reads the fitted weights");
    let defaults = Weights::default();
    assert_ne!(fitted_weights.to_move, defaults.to_move);
    assert_eq!(
        fitted_weights.late, defaults.late,
        "the late stage is left alone"
    );

    // Then the late stage, from the first fit's weights: the early stage stays as it came.
    let late_weights = dir.join("fitted-late.txt");
    let (out, _) = lab(&[
        "fit",
        records.to_str().expect("utf-8 path"),
        "--start",
        weights.to_str().expect("utf-8 path"),
        "--stage",
        "late",
        "--steps",
        "100",
        "--out",
        late_weights.to_str().expect("utf-8 path"),
    ]);
    assert!(out.contains("training positions"), "{out}");
    let text = std::fs::read_to_string(&late_weights).expect("the fitted weights");
    assert!(text.contains("late stage (from 20 stones)"), "{text}");
    let both = Weights::load(&late_weights).expect("the engine reads the fitted weights");
    assert_eq!(both.to_move, fitted_weights.to_move);
    assert_ne!(both.late, fitted_weights.late);

    // A network on top of the early stage's weights: the linear weights stay, the loss drops,
    // and the engine plays with the file.
    let network_weights = dir.join("fitted-network.txt");
    let (out, _) = lab(&[
        "fit",
        records.to_str().expect("utf-8 path"),
        "--start",
        late_weights.to_str().expect("utf-8 path"),
        "--stage",
        "early",
        "--hidden",
        "6",
        "--epochs",
        "30",
        "--batch",
        "16",
        "--net-rate",
        "0.01",
        "--holdout",
        "4",
        "--out",
        network_weights.to_str().expect("utf-8 path"),
    ]);
    assert!(out.contains("network: epoch  30"), "{out}");
    let (start, fitted) = losses(&out, "training");
    assert!(fitted < start, "training loss did not drop: {out}");
    let with_network = Weights::load(&network_weights).expect("the engine reads the network");
    assert_eq!(with_network.to_move, both.to_move);
    assert_eq!(with_network.late, both.late);
    let network = with_network
        .network
        .as_ref()
        .expect("an early-stage network");
    assert_eq!(network.hidden(), 6);
    let spec = format!("engine:depth=2,weights={}", network_weights.display());
    let (out, _) = lab(&["selfplay", &spec, "engine:depth=2", "--games", "2"]);
    assert!(out.contains("fitted-network.txt"), "{out}");

    // Weights with two stages need to be told which one to fit.
    let output = Command::new(env!("CARGO_BIN_EXE_gobang-lab"))
        .args(["fit", records.to_str().expect("utf-8 path")])
        .output()
        .expect("run gobang-lab");
    assert!(!output.status.success());
    let err = String::from_utf8_lossy(&output.stderr);
    assert!(err.contains("say which stage to fit"), "{err}");
}

#[test]
fn fitting_labelled_positions_lowers_the_loss_and_skips_bad_lines() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("fit-labels");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch dir");
    let labels = dir.join("labels.txt");
    // Black's open three against White's scattered stones: good for Black whoever moves, so
    // high when Black is to move and low when White is.
    let mut text = String::from("# target, then the moves from the empty board\n");
    for (target, moves) in [
        (0.9, "h8 a1 i8 a15 j8 o1"),
        (0.1, "h8 a1 i8 a15 j8 o1 a3"),
        (0.8, "h8 h9 i8 i9 f8 o15"),
        (0.3, "h8 h9 i8 i9 f8 o15 a1"),
        (0.6, "h8 g7 g8 f9 i9 j10"),
        (0.5, "h8 g7 g8 f9 i9 j10 a1"),
    ] {
        text.push_str(&format!("{target} {moves}\n"));
    }
    text.push_str("1.5 h8 h9 h10 h11 h12 h13\n");
    text.push_str("0.5 h8 h9 h8 h10 h11 h12\n");
    std::fs::write(&labels, text).expect("write the labels");
    let weights = dir.join("fitted.txt");
    let (out, err) = fit_labels_early(&labels, &weights, &["--steps", "300"]);
    assert!(
        out.contains("0 games, 6 labelled positions (2 skipped)"),
        "{out}"
    );
    assert!(err.contains("line 8: target 1.5"), "{err}");
    assert!(err.contains("line 9: h8 is played twice"), "{err}");
    let (start, fitted) = losses(&out, "training");
    assert!(fitted < start, "training loss did not drop: {out}");
    Weights::load(&weights).expect("the engine reads the fitted weights");

    // With `--leaves` the two positions Black wins by VCF (its open three becomes an open four)
    // are left out: a search never scores them with the evaluation.
    let (out, _) = fit_labels_early(&labels, &weights, &["--leaves", "--steps", "50"]);
    assert!(
        out.contains("0 games, 4 labelled positions (2 skipped): 4 training positions"),
        "{out}"
    );
}

/// `label` searches positions of played games and writes `TARGET MOVES...` lines that `fit
/// --labels` reads; shards of the games together give the same labels as one run, and an
/// unreadable record is skipped with a message.
#[test]
fn labelling_games_by_search_writes_labels_that_fit_reads() {
    let (dir, records) = scratch_with_games("label-games", "4");
    let label = |out: &Path, shard: &str| {
        lab(&[
            "label",
            records.to_str().expect("utf-8 path"),
            "--depth",
            "2",
            "--every",
            "2",
            "--shard",
            shard,
            "--out",
            out.to_str().expect("utf-8 path"),
        ])
    };
    let all = dir.join("labels.txt");
    let (out, err) = label(&all, "0/1");
    assert!(out.contains("4 games (1 skipped)"), "{out}");
    assert!(err.contains("broken.psq"), "{err}");
    let text = std::fs::read_to_string(&all).expect("the labels");
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines.len() >= 8, "{text}");
    for line in &lines {
        let mut words = line.split_whitespace();
        let target: f64 = words.next().expect("a target").parse().expect("a number");
        assert!((0.0..=1.0).contains(&target), "{line}");
        assert!(words.count() >= 6, "positions start at six stones: {line}");
    }

    let mut sharded = Vec::new();
    for shard in ["0/2", "1/2"] {
        let part = dir.join(format!("labels-{}.txt", &shard[..1]));
        label(&part, shard);
        sharded.extend(
            std::fs::read_to_string(&part)
                .expect("a shard's labels")
                .lines()
                .map(str::to_owned),
        );
    }
    let mut whole: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
    whole.sort();
    sharded.sort();
    assert_eq!(sharded, whole);

    let (out, _) = fit_labels_early(&all, &dir.join("fitted.txt"), &["--steps", "50"]);
    assert!(out.contains("labelled positions (0 skipped)"), "{out}");
    let (start, fitted) = losses(&out, "training");
    assert!(fitted < start, "training loss did not drop: {out}");
}

#[test]
fn fitting_the_move_order_to_a_players_choices_lowers_the_loss() {
    let (_, records) = scratch_with_games("fit-order-games", "6");
    let records = records.to_str().expect("utf-8 path");
    let (out, err) = lab(&[
        "fit-order",
        records,
        "--player",
        "depth=2",
        "--steps",
        "100",
    ]);
    let loss = |prefix: &str| -> f64 {
        let line = out
            .lines()
            .find(|l| l.starts_with(prefix))
            .unwrap_or_else(|| panic!("no {prefix} line in {out}"));
        line.rsplit(' ')
            .next()
            .and_then(|w| w.parse().ok())
            .expect(line)
    };
    let (before, after) = (loss("loss before fitting:"), loss("step 100:"));
    assert!(after < before, "{before} -> {after}\n{out}");
    for table in ["QUIET_ORDER_OWN", "QUIET_ORDER_OPP"] {
        let line = out
            .lines()
            .find(|l| l.contains(table))
            .unwrap_or_else(|| panic!("no {table} table in {out}"));
        assert_eq!(line.matches(',').count(), 54, "55 pair weights: {line}");
    }
    assert_eq!(out.matches("this fit: first").count(), 2, "{out}");
    assert!(err.contains("broken.psq"), "the bad record is named: {err}");

    let output = Command::new(env!("CARGO_BIN_EXE_gobang-lab"))
        .args(["fit-order", records, "--player", "nobody"])
        .output()
        .expect("run gobang-lab");
    assert!(!output.status.success());
    let err = String::from_utf8_lossy(&output.stderr);
    assert!(err.contains("nobody"), "{err}");
}
