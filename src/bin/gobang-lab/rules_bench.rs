//! `gobang-lab rules-bench`: speed of the rules core. Prints move+undo pairs per second over
//! midgame positions (every empty point of each position, played and taken back), and full
//! "list Black's forbidden points" calls per second over the forbidden-move fixture boards, plus a
//! deterministic checksum so that a change in behaviour shows next to a change in speed.

use gobang::rules::{Board, Color, Move, Pos, Rule};
use std::time::Instant;

/// Midgame positions as move sequences (renju openings played out by the engine, 14-40 stones).
const MIDGAMES: [&str; 4] = [
    "h8 h9 i9 g7 i7 i8 g9 j6 f10 e11 h10 j8 k8 g10 g8",
    "h8 i9 j10 g9 i10 h10 g11 j9 f10 e9 h11 i12 g8 f7 e10 g10 d11 c12 f11 h9",
    "h8 h9 j10 i9 g9 i7 i8 g8 f7 h10 h11 j8 k7 g10 f11 k9 l10 f9 e8 e10 j11 d10 g12 f13 h13 i14 k12 l13",
    "h8 i8 j8 i9 i7 h6 j9 j7 k10 l11 g7 f6 k9 l9 j11 j10 k11 i11 k12 k13 h11 g10 l12 m13 g12 f13 f11 e10 h12 j12 g13 e11 d10 h14 f12 e12 d12 c13 i13 j14",
];

#[derive(clap::Args)]
pub struct Args {
    /// How many times each measurement goes over its positions.
    #[arg(long, default_value_t = 2000)]
    rounds: u32,
}

fn midgame_boards() -> anyhow::Result<Vec<Board>> {
    MIDGAMES
        .iter()
        .map(|line| {
            let moves = line
                .split_whitespace()
                .map(|text| Ok(Move::Place(text.parse::<Pos>()?)))
                .collect::<anyhow::Result<Vec<Move>>>()?;
            Ok(Board::from_moves(Rule::Renju, &moves)?)
        })
        .collect()
}

/// Boards of the forbidden-move fixtures (the 15-line pictures between `board` and `expect`).
fn forbidden_boards() -> anyhow::Result<Vec<Board>> {
    let text = include_str!("../../../tests/fixtures/forbidden_cases.txt");
    let mut boards = Vec::new();
    let mut rows: Vec<&str> = Vec::new();
    for line in text.lines() {
        if line.len() == 15 && line.chars().all(|c| "xo.".contains(c)) {
            rows.push(line);
            if rows.len() == 15 {
                let mut stones = Vec::new();
                for (y, row) in rows.iter().enumerate() {
                    for (x, c) in row.chars().enumerate() {
                        let p =
                            Pos::new(x as u8, y as u8).ok_or_else(|| anyhow::anyhow!("bad row"))?;
                        match c {
                            'x' => stones.push((p, Color::Black)),
                            'o' => stones.push((p, Color::White)),
                            _ => {}
                        }
                    }
                }
                boards.push(Board::from_stones(Rule::Renju, &stones, Color::Black)?);
                rows.clear();
            }
        } else {
            rows.clear();
        }
    }
    Ok(boards)
}

pub fn run(args: &Args) -> anyhow::Result<()> {
    let mut boards = midgame_boards()?;
    let started = Instant::now();
    let mut pairs = 0u64;
    let mut checksum = 0u64;
    for _ in 0..args.rounds {
        for board in &mut boards {
            let empties: Vec<Pos> = Pos::all().filter(|&p| board.is_empty(p)).collect();
            for p in empties {
                board.make_move(p);
                checksum = checksum.wrapping_add(
                    board.hash()
                        ^ board.shape_count(Color::Black, gobang::rules::Shape::OpenThree) as u64,
                );
                board.undo();
                pairs += 1;
            }
        }
    }
    let seconds = started.elapsed().as_secs_f64();
    say!(
        "move+undo: {pairs} pairs in {seconds:.3} s = {:.2} M pairs/s (checksum {checksum:016x})",
        pairs as f64 / seconds / 1e6
    );

    let fixtures = forbidden_boards()?;
    let started = Instant::now();
    let mut calls = 0u64;
    let mut found = 0usize;
    for _ in 0..args.rounds {
        for board in &fixtures {
            found += board.forbidden_points().len();
            calls += 1;
        }
    }
    let seconds = started.elapsed().as_secs_f64();
    say!(
        "forbidden list: {calls} calls on {} fixture boards in {seconds:.3} s = {:.0} calls/s ({} forbidden points per round)",
        fixtures.len(),
        calls as f64 / seconds,
        found / args.rounds.max(1) as usize
    );
    Ok(())
}
