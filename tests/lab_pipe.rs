//! `gobang-lab` piped into a reader that stops early (`gobang-lab bench | head -1`) must end
//! quietly, as `cat` does, rather than panic with "Broken pipe". (Brains that die under `selfplay`
//! are `tests/selfplay_match.rs`'s: a closed pipe to one must not end the match.)

use std::io::{BufRead, BufReader, Read};
use std::process::{Command, Stdio};

#[test]
fn lab_ends_quietly_when_its_reader_goes_away() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_gobang-lab"))
        .args(["bench", "--depth", "4"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run gobang-lab");
    let stdout = child.stdout.take().expect("piped stdout");
    let mut first_line = String::new();
    BufReader::new(stdout)
        .read_line(&mut first_line)
        .expect("read the first line");
    assert!(first_line.starts_with("position  1"), "{first_line}");
    // The reader is gone now (dropped with the BufReader); the next line bench prints hits a
    // closed pipe.
    let mut stderr = String::new();
    child
        .stderr
        .take()
        .expect("piped stderr")
        .read_to_string(&mut stderr)
        .expect("read stderr");
    let status = child.wait().expect("wait for gobang-lab");
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(status.success(), "{status:?} {stderr}");
}
