//! Drives `gobang-lab puzzles --solver-nodes` over two goal-only problems: one the VCT solver
//! proves (a move that stops the opponent's open three and makes two open threes), and one where
//! the attacker has a single stone against that three, with no VCT to find.

use std::process::Command;

/// A freestyle VCT problem: Black to move with stones at g6 and i6 (`row6`) and g5 and h5
/// (`row5`), against White's open three d4 e4 f4.
fn problem(name: &str, row6: &str, row5: &str) -> String {
    let mut board = vec!["..............."; 15];
    board[9] = row6;
    board[10] = row5;
    board[11] = "...ooo.........";
    format!(
        "puzzle test/{name}\nrule freestyle\nside_to_move black\ngoal VCT\nboard\n{}\nend\n",
        board.join("\n")
    )
}

#[test]
fn the_solver_alone_proves_the_vct_and_only_that() {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("lab-puzzles");
    std::fs::create_dir_all(&dir).expect("scratch dir");
    let problems = dir.join("problems.txt");
    let text = problem("double-three#1", "......x.x......", "......xx.......")
        + &problem("single-stone#1", "...............", "......x........");
    std::fs::write(&problems, text).expect("write problems");
    let solutions = dir.join("no-solutions.txt");
    std::fs::write(&solutions, "").expect("write solutions");
    let output = Command::new(env!("CARGO_BIN_EXE_gobang-lab"))
        .args(["puzzles", "--solver-nodes", "100000", "--verbose"])
        .arg("--problems")
        .arg(&problems)
        .arg("--solutions")
        .arg(&solutions)
        .output()
        .expect("run gobang-lab");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stdout}{stderr}");
    assert!(
        stdout.contains("proven by the VCT solver alone within 100000 nodes each"),
        "{stdout}"
    );
    assert!(stdout.contains("unsolved: test/single-stone#1"), "{stdout}");
    assert!(
        !stdout.contains("unsolved: test/double-three#1"),
        "{stdout}"
    );
    let by_goal = stdout
        .lines()
        .skip_while(|l| !l.contains("by goal"))
        .nth(1)
        .unwrap_or_default();
    assert!(
        by_goal.contains("VCT") && by_goal.contains("1/2"),
        "{stdout}"
    );
}
