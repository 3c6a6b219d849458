//! Every position of the shared forbidden-move collection (85 positions from mintaka, quintet,
//! AlphaGomoku and the RenjuNet advanced tutorial; see `fixtures/forbidden_cases.txt`): each
//! asserted point must match, each completely labelled board must match at every empty point, and
//! the labels derived by two reference judges must match everywhere.

use gobang::rules::{Board, Color, ForbiddenKind, Pos, Rule};
use std::collections::BTreeMap;

struct Case {
    id: String,
    rows: Vec<String>,
    expects: Vec<(Pos, String)>,
    complete: bool,
    derived: BTreeMap<Pos, String>,
}

fn parse_cases() -> Vec<Case> {
    let text = include_str!("fixtures/forbidden_cases.txt");
    let mut cases = Vec::new();
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        let Some(id) = line.strip_prefix("case ") else {
            continue;
        };
        let mut case = Case {
            id: id.to_string(),
            rows: Vec::new(),
            expects: Vec::new(),
            complete: false,
            derived: BTreeMap::new(),
        };
        for line in lines.by_ref() {
            if line == "end" {
                break;
            } else if line == "board" {
                continue;
            } else if let Some(rest) = line.strip_prefix("expect ") {
                let (point, kind) = rest.split_once(' ').expect("expect POINT KIND");
                case.expects
                    .push((point.parse().expect("point"), kind.to_string()));
            } else if let Some(rest) = line.strip_prefix("complete ") {
                case.complete = rest == "yes";
            } else if let Some(rest) = line.strip_prefix("derived") {
                for item in rest.split_whitespace().filter(|item| *item != "(none)") {
                    let (point, kind) = item.split_once('=').expect("POINT=KIND");
                    case.derived
                        .insert(point.parse().expect("point"), kind.to_string());
                }
            } else if line.len() == 15 && line.chars().all(|c| "xo.".contains(c)) {
                case.rows.push(line.to_string());
            }
        }
        assert_eq!(case.rows.len(), 15, "{}", case.id);
        cases.push(case);
    }
    cases
}

fn board_of(case: &Case) -> Board {
    let mut stones = Vec::new();
    for (y, row) in case.rows.iter().enumerate() {
        for (x, c) in row.chars().enumerate() {
            let p = Pos::new(x as u8, y as u8).expect("on board");
            match c {
                'x' => stones.push((p, Color::Black)),
                'o' => stones.push((p, Color::White)),
                _ => {}
            }
        }
    }
    Board::from_stones(Rule::Renju, &stones, Color::Black).expect("valid position")
}

fn kind_name(kind: Option<ForbiddenKind>) -> &'static str {
    match kind {
        None => "legal",
        Some(ForbiddenKind::DoubleThree) => "double-three",
        Some(ForbiddenKind::DoubleFour) => "double-four",
        Some(ForbiddenKind::Overline) => "overline",
    }
}

fn matches(expected: &str, actual: Option<ForbiddenKind>) -> bool {
    match expected {
        "forbidden" => actual.is_some(),
        kind => kind == kind_name(actual),
    }
}

#[test]
fn fixture_file_has_every_case() {
    let cases = parse_cases();
    assert_eq!(cases.len(), 85);
    assert_eq!(cases.iter().map(|c| c.expects.len()).sum::<usize>(), 143);
    assert_eq!(cases.iter().filter(|c| c.complete).count(), 18);
}

#[test]
fn every_asserted_point_matches() {
    let mut failures = Vec::new();
    for case in parse_cases() {
        let board = board_of(&case);
        for (p, expected) in &case.expects {
            let actual = board.forbidden_kind(*p);
            if !matches(expected, actual) {
                failures.push(format!(
                    "{} {p}: expected {expected}, got {}",
                    case.id,
                    kind_name(actual)
                ));
            }
        }
        board
            .verify_layers()
            .expect("layers consistent after judging");
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn complete_boards_match_at_every_point() {
    let mut failures = Vec::new();
    for case in parse_cases().iter().filter(|c| c.complete) {
        let board = board_of(case);
        let listed: BTreeMap<Pos, ForbiddenKind> = board.forbidden_points().into_iter().collect();
        let asserted: BTreeMap<Pos, &str> = case
            .expects
            .iter()
            .filter(|(_, kind)| kind != "legal")
            .map(|(p, kind)| (*p, kind.as_str()))
            .collect();
        let listed_points: Vec<Pos> = listed.keys().copied().collect();
        let asserted_points: Vec<Pos> = asserted.keys().copied().collect();
        if listed_points != asserted_points {
            failures.push(format!(
                "{}: forbidden points {listed_points:?}, expected {asserted_points:?}",
                case.id
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn derived_labels_match_at_every_empty_point() {
    let mut failures = Vec::new();
    for case in parse_cases() {
        let board = board_of(&case);
        for p in Pos::all() {
            if !board.is_empty(p) {
                continue;
            }
            let actual = board.forbidden_kind(p);
            let expected = case.derived.get(&p).map(String::as_str).unwrap_or("legal");
            if expected != kind_name(actual) {
                failures.push(format!(
                    "{} {p}: derived {expected}, got {}",
                    case.id,
                    kind_name(actual)
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// 240 random crowded positions labelled point by point by an independent judge (the Piskvork
/// renju judge as ported in the PyPI package `renju`; see the fixture's header). The engine's
/// in-place judge gives the same verdicts and leaves the board as it found it.
#[test]
fn random_positions_match_the_piskvork_judge() {
    let text = include_str!("fixtures/piskvork_judge_random.txt");
    let mut lines = text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty());
    let mut positions = 0;
    let mut forbidden_seen = 0;
    let mut failures = Vec::new();
    while let Some(header) = lines.next() {
        assert!(header.starts_with("position"), "{header}");
        let rows: Vec<&str> = lines.by_ref().take(15).collect();
        assert_eq!(lines.next(), Some("labels"));
        let labels: Vec<&str> = lines.by_ref().take(15).collect();
        let case = Case {
            id: header.to_string(),
            rows: rows.iter().map(|r| r.to_string()).collect(),
            expects: Vec::new(),
            complete: false,
            derived: BTreeMap::new(),
        };
        let board = board_of(&case);
        // The engine's judge works on the board itself and must leave it as it was.
        let mut in_place = board.clone();
        for p in Pos::all() {
            let expected = labels[p.y() as usize].as_bytes()[p.x() as usize];
            let kind = board.forbidden_kind(p);
            if in_place.is_forbidden_in_place(p) != kind.is_some() {
                failures.push(format!("{header} {p}: the in-place judge disagrees"));
            }
            let actual = match kind {
                None if board.is_empty(p) => b'0',
                None => b'-',
                Some(ForbiddenKind::DoubleThree) => b'1',
                Some(ForbiddenKind::DoubleFour) => b'2',
                Some(ForbiddenKind::Overline) => b'3',
            };
            forbidden_seen += usize::from(matches!(expected, b'1'..=b'3'));
            if actual != expected {
                failures.push(format!(
                    "{header} {p}: judge {}, ours {}",
                    expected as char, actual as char
                ));
            }
        }
        if let Err(difference) = in_place.verify_layers() {
            failures.push(format!("{header}: after the in-place judge, {difference}"));
        }
        if in_place.hash() != board.hash() {
            failures.push(format!("{header}: the in-place judge changed the key"));
        }
        positions += 1;
    }
    assert_eq!(positions, 240);
    assert!(
        forbidden_seen > 1000,
        "fixture has {forbidden_seen} forbidden points"
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
