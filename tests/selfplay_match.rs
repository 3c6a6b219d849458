//! Drives `gobang-lab selfplay`: engine against engine with written records, engine against the
//! real `pbrain-gobang` binary through the Gomocup protocol, and engine against misbehaving brains
//! (illegal move, too slow, crashing, unreadable answer), which must lose with the reason recorded
//! while the tool carries on. Limits stay tiny.

use gobang::game::record::GameRecord;
use std::path::{Path, PathBuf};
use std::process::Command;

fn selfplay(args: &[&str]) -> String {
    let output = Command::new(env!("CARGO_BIN_EXE_gobang-lab"))
        .arg("selfplay")
        .args(args)
        .output()
        .expect("run gobang-lab");
    let stdout = String::from_utf8_lossy(&output.stdout).to_string();
    assert!(
        output.status.success(),
        "{args:?} failed: {stdout}{}",
        String::from_utf8_lossy(&output.stderr)
    );
    stdout
}

fn scratch_dir(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch dir");
    dir
}

#[test]
fn engine_against_engine_writes_records() {
    let dir = scratch_dir("selfplay-records");
    let out = selfplay(&[
        "engine:depth=1",
        "engine:depth=2",
        "--games",
        "4",
        "--threads",
        "2",
        "--move-time-ms",
        "2000",
        "--records",
        dir.to_str().expect("utf-8 path"),
    ]);
    assert!(out.contains("result: 4 games"), "{out}");
    assert!(out.contains("Elo A-B"), "{out}");
    assert!(out.contains("faults: none"), "{out}");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("records")
        .map(|entry| entry.expect("entry").path())
        .collect();
    files.sort();
    assert_eq!(files.len(), 4, "{files:?}");
    for path in &files {
        let record = GameRecord::load(path).expect("readable .psq");
        assert!(record.moves.len() > 3, "{}", path.display());
        assert_eq!(record.black.is_some(), record.white.is_some());
    }
    let first = GameRecord::load(&files[0]).expect("first game");
    assert_eq!(first.black.as_deref(), Some("engine:depth=1"));
    let opening: Vec<String> = first.moves[..3]
        .iter()
        .map(|m| gobang::game::record::move_notation(m.mv))
        .collect();
    assert_eq!(opening, ["h8", "h9", "h10"], "D1 Kansei opens the match");
}

#[test]
fn engine_against_the_pbrain_binary() {
    let brain = format!("brain:{}", env!("CARGO_BIN_EXE_pbrain-gobang"));
    let out = selfplay(&[
        "engine:depth=1",
        &brain,
        "--games",
        "2",
        "--threads",
        "2",
        "--move-time-ms",
        "2000",
    ]);
    assert!(out.contains("result: 2 games"), "{out}");
    assert!(out.contains("faults: none"), "{out}");
}

#[cfg(unix)]
fn write_brain(dir: &Path, name: &str, on_move: &str) -> String {
    use std::os::unix::fs::PermissionsExt;
    let path = dir.join(name);
    let script = format!(
        "#!/bin/sh\nwhile read -r line; do\n  case \"$line\" in\n    START*|RESTART*) echo OK ;;\n    \
         BEGIN*|TURN*|DONE*) {on_move} ;;\n    END*) exit 0 ;;\n  esac\ndone\n"
    );
    std::fs::write(&path, script).expect("write brain script");
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    format!("brain:{}", path.display())
}

#[cfg(unix)]
#[test]
fn misbehaving_brains_lose_and_the_match_goes_on() {
    let dir = scratch_dir("selfplay-bad-brains");
    let cases = [
        (write_brain(&dir, "illegal", "echo 7,7"), "illegal move"),
        (write_brain(&dir, "slow", "sleep 3; echo 0,0"), "timeout"),
        (write_brain(&dir, "crash", "exit 3"), "crash"),
        (
            write_brain(&dir, "garbage", "echo hello there"),
            "unreadable answer",
        ),
    ];
    for (brain, category) in &cases {
        let out = selfplay(&[
            "engine:depth=1",
            brain,
            "--games",
            "2",
            "--threads",
            "2",
            "--move-time-ms",
            "300",
            "--grace-ms",
            "200",
        ]);
        assert!(
            out.contains("A wins 2, draws 0, B wins 0"),
            "{category}: {out}"
        );
        assert!(
            out.contains(&format!("faults: B lost 2 game(s) by {category}")),
            "{category}: {out}"
        );
        assert!(out.contains("B lost: "), "the reason is printed: {out}");
    }
    let missing = dir.join("no-such-brain");
    let out = selfplay(&[
        &format!("brain:{}", missing.display()),
        "engine:depth=1",
        "--games",
        "1",
    ]);
    assert!(out.contains("faults: A lost 1 game(s) by crash"), "{out}");
}

#[test]
fn tune_writes_weights_that_selfplay_can_load() {
    let dir = scratch_dir("selfplay-tune");
    let weights = dir.join("tuned.txt");
    let output = Command::new(env!("CARGO_BIN_EXE_gobang-lab"))
        .args([
            "tune",
            "--iterations",
            "1",
            "--pairs",
            "1",
            "--check-games",
            "2",
        ])
        .args([
            "--nodes",
            "300",
            "--params",
            "own.OpenThree,opp.Four",
            "--out",
        ])
        .arg(&weights)
        .output()
        .expect("run gobang-lab tune");
    let out = String::from_utf8_lossy(&output.stdout).to_string();
    assert!(output.status.success(), "{out}");
    assert!(out.contains("iteration   1: plus vs minus"), "{out}");
    assert!(
        out.contains("check match, tuned vs start: 2 games"),
        "{out}"
    );
    let tuned = gobang::engine::Weights::load(&weights).expect("a readable weights file");
    let text = std::fs::read_to_string(&weights).expect("weights file");
    assert!(
        text.starts_with("# gobang-lab tune: SPSA over own.OpenThree, opp.Four"),
        "{text}"
    );
    assert_ne!(tuned.to_move[0].own, [0; 14]);

    let out = selfplay(&[
        &format!("engine:nodes=300,weights={}", weights.display()),
        "engine:nodes=300",
        "--games",
        "2",
    ]);
    assert!(out.contains("result: 2 games"), "{out}");
    assert!(
        out.contains(&format!(
            "A = engine:nodes=300,weights={}",
            weights.display()
        )),
        "{out}"
    );
}
