//! Drives the real `pbrain-gobang` binary through its stdin/stdout: a scripted Gomocup session
//! (START, INFO with thread_num 2, ABOUT, YXSHOWINFO, BEGIN, TURN, BOARD, TAKEBACK, YXNBEST,
//! YXBOARD + YXSHOWFORBID on the forbidden-move fixtures, YXSTOP, queued commands, malformed
//! lines, END).
//! Search limits stay tiny.

use gobang::rules::{Board, Color, Pos, Rule};
use std::collections::BTreeSet;
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver};
use std::thread;
use std::time::{Duration, Instant};

/// Long enough for a loaded CI machine; a healthy brain answers in milliseconds here.
const PATIENCE: Duration = Duration::from_secs(30);

struct Brain {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
}

impl Brain {
    fn start() -> Brain {
        let mut child = Command::new(env!("CARGO_BIN_EXE_pbrain-gobang"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("spawn pbrain-gobang");
        let stdin = child.stdin.take().expect("stdin");
        let stdout = child.stdout.take().expect("stdout");
        let (sender, lines) = mpsc::channel();
        thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if sender.send(line).is_err() {
                    break;
                }
            }
        });
        Brain {
            child,
            stdin,
            lines,
        }
    }

    fn send(&mut self, line: &str) {
        // Gomocup managers end lines with CR LF.
        write!(self.stdin, "{line}\r\n").expect("write to brain");
        self.stdin.flush().expect("flush");
    }

    /// The next line that is not a MESSAGE.
    fn reply(&mut self) -> String {
        loop {
            let line = self.lines.recv_timeout(PATIENCE).expect("brain answers");
            if !line.starts_with("MESSAGE") && !line.starts_with("DEBUG") {
                return line;
            }
        }
    }

    fn ask(&mut self, line: &str) -> String {
        self.send(line);
        self.reply()
    }

    /// Sends a line that has no answer, then checks nothing came back by asking ABOUT.
    fn tell(&mut self, line: &str) {
        self.send(line);
        assert!(
            self.ask("ABOUT").starts_with("name=\"pbrain-gobang\""),
            "{line}"
        );
    }

    fn expect_move(&mut self, line: &str) -> Pos {
        let reply = self.ask(line);
        parse_move(&reply).unwrap_or_else(|| panic!("{line} -> '{reply}' is not a move"))
    }
}

fn parse_move(text: &str) -> Option<Pos> {
    let (x, y) = text.split_once(',')?;
    Pos::from_gomocup(x.trim().parse().ok()?, y.trim().parse().ok()?).ok()
}

fn gomocup(p: Pos) -> String {
    let (x, y) = p.to_gomocup();
    format!("{x},{y}")
}

#[test]
fn scripted_session() {
    let mut brain = Brain::start();
    assert_eq!(
        brain.ask("START 19"),
        "ERROR unsupported size 19 (only 15 is supported)"
    );
    assert!(brain.ask("RECTSTART 15,20").starts_with("ERROR"));
    assert_eq!(brain.ask("START 15"), "OK");
    for info in [
        "INFO timeout_match 300000",
        "INFO timeout_turn 300",
        "INFO max_memory 83886080",
        "INFO time_left 300000",
        "INFO game_type 1",
        "INFO rule 4",
        "INFO folder /tmp",
        "INFO thread_num 2",
        "INFO some_future_key 17",
    ] {
        brain.tell(info);
    }
    brain.send("YXSHOWINFO");
    let info = brain.lines.recv_timeout(PATIENCE).expect("brain answers");
    assert!(info.starts_with("MESSAGE INFO MAX_THREAD_NUM "), "{info}");
    let about = brain.ask("ABOUT");
    for key in ["name=", "version=", "author=", "country="] {
        assert!(about.contains(key), "{about}");
    }

    // A game: the brain opens, we answer, it answers; every move is on an empty point.
    let mut board = Board::new(Rule::Renju);
    let first = brain.expect_move("BEGIN");
    board.play(first).expect("BEGIN move is playable");
    let mine = Pos::new(first.x(), first.y().saturating_sub(1)).expect("on board");
    board.play(mine).expect("our move");
    let second = brain.expect_move(&format!("TURN {}", gomocup(mine)));
    board
        .play(second)
        .expect("TURN answer is on an empty point");

    // Occupied, off-board and malformed moves are refused; the brain keeps going.
    assert_eq!(
        brain.ask(&format!("TURN {}", gomocup(first))),
        format!("ERROR {} is already occupied", gomocup(first))
    );
    assert_eq!(brain.ask("TURN 15,3"), "ERROR 15,3 is off the 15x15 board");
    assert!(brain.ask("TURN 7").starts_with("ERROR expected a move"));
    assert!(brain.ask("TURN x,y").starts_with("ERROR x: 'x' is not"));
    assert!(brain.ask("INFO timeout_turn soon").starts_with("ERROR"));
    assert!(brain
        .ask("INFO rule 8")
        .starts_with("ERROR unsupported rule 8"));
    assert!(brain.ask("FROBNICATE 1,2").starts_with("UNKNOWN"));
    assert!(brain
        .ask("\u{1}\u{7f}ÿ garbage ,,, 99999999999999999999")
        .starts_with("UNKNOWN"));

    // TAKEBACK the brain's move and ours, then replay another move.
    assert_eq!(brain.ask(&format!("TAKEBACK {}", gomocup(second))), "OK");
    assert_eq!(brain.ask(&format!("TAKEBACK {}", gomocup(mine))), "OK");
    assert!(brain
        .ask(&format!("TAKEBACK {}", gomocup(mine)))
        .starts_with("ERROR"));
    board.undo();
    board.undo();
    let other = Pos::new(first.x() + 1, first.y()).expect("on board");
    board.play(other).expect("our other move");
    let reply = brain.expect_move(&format!("TURN {}", gomocup(other)));
    board
        .play(reply)
        .expect("the brain forgot the taken-back stones");

    // BOARD: a new position, with a malformed line inside the listing.
    assert_eq!(brain.ask("RESTART"), "OK");
    brain.send("BOARD");
    brain.send("7,7,2");
    brain.send("8,8,1");
    assert!(brain.ask("1,2").starts_with("ERROR"));
    brain.send("7,8,2");
    let answer = brain.expect_move("DONE");
    assert!(
        ![(7, 7), (8, 8), (7, 8)].contains(&answer.to_gomocup()),
        "{answer:?} is occupied"
    );

    // Commands sent while it thinks are answered in order after the move.
    brain.tell("INFO timeout_turn 200");
    brain.send("RESTART");
    brain.send("BEGIN");
    brain.send("ABOUT");
    brain.send("YXSHOWFORBID");
    assert_eq!(brain.reply(), "OK");
    assert!(parse_move(&brain.reply()).is_some());
    assert!(brain.reply().starts_with("name="));
    assert_eq!(brain.reply(), "FORBID .");

    // YXNBEST answers with a move and plays it on the brain's board (as Rapfi does): taking that
    // stone back works, and a second YXNBEST never answers the same point.
    assert_eq!(brain.ask("RESTART"), "OK");
    brain.send("YXBOARD");
    brain.send("7,7,2");
    brain.send("8,8,1");
    brain.send("DONE");
    let best = brain.expect_move("YXNBEST 1");
    assert!(![(7, 7), (8, 8)].contains(&best.to_gomocup()), "{best:?}");
    let next = brain.expect_move("YXNBEST 1");
    assert_ne!(next, best, "the first YXNBEST move was not kept");
    assert_eq!(brain.ask(&format!("TAKEBACK {}", gomocup(next))), "OK");
    assert_eq!(brain.ask(&format!("TAKEBACK {}", gomocup(best))), "OK");

    // YXSTOP answers at once even with a long clock (two search threads are running).
    brain.tell("INFO timeout_turn 60000");
    brain.tell("INFO time_left 2147483647");
    assert_eq!(brain.ask("RESTART"), "OK");
    let asked = Instant::now();
    brain.send("TURN 3,3");
    brain.send("YXSTOP");
    assert!(parse_move(&brain.reply()).is_some());
    assert!(
        asked.elapsed() < Duration::from_secs(20),
        "YXSTOP was ignored"
    );

    brain.send("END");
    let deadline = Instant::now() + PATIENCE;
    loop {
        if let Some(status) = brain.child.try_wait().expect("wait") {
            assert!(status.success(), "{status}");
            break;
        }
        assert!(Instant::now() < deadline, "END did not end the brain");
        thread::sleep(Duration::from_millis(20));
    }
}

/// A forbidden-move fixture with a complete list of Black's forbidden points.
struct Case {
    id: String,
    stones: Vec<(Pos, Color)>,
    forbidden: BTreeSet<Pos>,
}

fn complete_cases() -> Vec<Case> {
    // Same file as tests/forbidden_fixtures.rs (copied from ../shared/data/forbidden/cases.txt).
    let text = include_str!("fixtures/forbidden_cases.txt");
    let mut cases = Vec::new();
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        let Some(id) = line.strip_prefix("case ") else {
            continue;
        };
        let (mut stones, mut forbidden, mut y) = (Vec::new(), None, 0u8);
        for line in lines.by_ref() {
            if line == "end" {
                break;
            }
            if line.len() == 15 && line.chars().all(|c| "xo.".contains(c)) {
                for (x, c) in line.chars().enumerate() {
                    let p = Pos::new(x as u8, y).expect("on board");
                    match c {
                        'x' => stones.push((p, Color::Black)),
                        'o' => stones.push((p, Color::White)),
                        _ => {}
                    }
                }
                y += 1;
            } else if let Some(rest) = line.strip_prefix("derived") {
                let points = rest
                    .split_whitespace()
                    .filter(|item| *item != "(none)")
                    .map(|item| {
                        let (point, _) = item.split_once('=').expect("POINT=KIND");
                        point.parse::<Pos>().expect("point")
                    });
                forbidden = Some(points.collect());
            }
        }
        if let Some(forbidden) = forbidden {
            cases.push(Case {
                id: id.to_string(),
                stones,
                forbidden,
            });
        }
    }
    cases
}

fn parse_forbid(reply: &str) -> BTreeSet<Pos> {
    let digits = reply
        .strip_prefix("FORBID ")
        .and_then(|rest| rest.strip_suffix('.'))
        .unwrap_or_else(|| panic!("bad FORBID reply '{reply}'"));
    assert_eq!(digits.len() % 4, 0, "{reply}");
    digits
        .as_bytes()
        .chunks(4)
        .map(|chunk| {
            let text = std::str::from_utf8(chunk).expect("ascii");
            let x: i64 = text[..2].parse().expect("two-digit x");
            let y: i64 = text[2..].parse().expect("two-digit y");
            Pos::from_gomocup(x, y).expect("on board")
        })
        .collect()
}

#[test]
fn yxshowforbid_lists_the_fixture_forbidden_points() {
    let cases = complete_cases();
    assert!(cases.len() >= 10, "only {} complete cases", cases.len());
    let mut brain = Brain::start();
    assert_eq!(brain.ask("START 15"), "OK");
    brain.tell("INFO rule 4");
    let mut with_points = 0;
    for case in &cases {
        // Black is the brain ("own"); with at least as many Black stones, Black is to move.
        brain.send("YXBOARD");
        for &(p, color) in &case.stones {
            let field = if color == Color::Black { 1 } else { 2 };
            brain.send(&format!("{},{field}", gomocup(p)));
        }
        brain.send("DONE");
        let black = case.stones.iter().filter(|s| s.1 == Color::Black).count();
        if black * 2 < case.stones.len() {
            continue;
        }
        let reply = brain.ask("YXSHOWFORBID");
        assert_eq!(parse_forbid(&reply), case.forbidden, "{}: {reply}", case.id);
        if case.forbidden.is_empty() {
            assert_eq!(reply, "FORBID .", "{}", case.id);
        } else {
            with_points += 1;
        }
    }
    assert!(
        with_points >= 5,
        "only {with_points} cases with forbidden points"
    );

    // Under freestyle nothing is forbidden.
    brain.tell("INFO rule 0");
    assert_eq!(brain.ask("YXSHOWFORBID"), "FORBID .");
    brain.send("END");
    assert!(brain.child.wait().expect("exit").success());
}
