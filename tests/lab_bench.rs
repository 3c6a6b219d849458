//! `gobang-lab bench`: its node-count signature is deterministic with one thread, and
//! `--hash-mb` sizes the transposition table it searches with.

use std::process::Command;

/// The bench's output, run with `args`.
fn bench(args: &[&str]) -> String {
    let output = Command::new(env!("CARGO_BIN_EXE_gobang-lab"))
        .arg("bench")
        .args(args)
        .output()
        .expect("run gobang-lab bench");
    assert!(output.status.success(), "{output:?}");
    String::from_utf8(output.stdout).expect("UTF-8 output")
}

/// The value printed after `label` (e.g. `signature`).
fn field<'a>(output: &'a str, label: &str) -> &'a str {
    output
        .lines()
        .find_map(|line| line.strip_prefix(label))
        .map(str::trim)
        .unwrap_or_else(|| panic!("no '{label}' line in:\n{output}"))
}

#[test]
fn bench_signature_repeats_and_hash_size_is_honoured() {
    let default_table = bench(&["--depth", "4"]);
    assert_eq!(field(&default_table, "hash (MiB)"), "64");
    let again = bench(&["--depth", "4"]);
    assert_eq!(
        field(&default_table, "signature"),
        field(&again, "signature")
    );
    let small_table = bench(&["--depth", "4", "--hash-mb", "1"]);
    assert_eq!(field(&small_table, "hash (MiB)"), "1");
    let nodes: u64 = field(&small_table, "signature").parse().expect("a count");
    assert!(nodes > 0);
    for size in ["0", "100000"] {
        let refused = Command::new(env!("CARGO_BIN_EXE_gobang-lab"))
            .args(["bench", "--hash-mb", size])
            .output()
            .expect("run gobang-lab bench");
        assert!(!refused.status.success(), "--hash-mb {size} accepted");
        assert!(String::from_utf8_lossy(&refused.stderr).contains("--hash-mb"));
    }
}
