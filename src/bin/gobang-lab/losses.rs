//! `gobang-lab losses`: where each finished game was lost. For every game with a winner it finds
//! the loser's first move (from `--from-move` on) after which the winner has a VCT that the VCT
//! solver finds within a node budget, and then asks whether the loser had a move there that did
//! not allow one: each move the move generator offers in that position is tried the same way
//! ("safe": the solver finished without finding a VCT; "unknown": it ran out of nodes). A four is
//! counted apart ("fours"): the winner must block it first, and the solver, which starts with the
//! attacker to move, cannot judge that, so a four that only delays would read as safe. A game
//! whose turning point had no safe move was already lost earlier, beyond what the solver finds.
//!
//! With `--missed` it asks the other question: the loser's first turn (from `--from-move` on)
//! where it had a VCT of its own, a win it did not take.

use crate::{Look, Solver};
use anyhow::Context as _;
use gobang::engine::movegen::{analyse, generate, Status};
use gobang::game::record::move_notation;
use gobang::game::Game;
use gobang::rules::{Board, Color, Move, Pos, Rule};
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct Args {
    /// Game records, or folders of them.
    #[arg(required = true)]
    paths: Vec<PathBuf>,
    /// Rule the games were played under (renju, standard or freestyle).
    #[arg(long, default_value = "renju")]
    rule: Rule,
    /// First move number (1-based) that counts as the loser's choice; earlier moves are the
    /// opening.
    #[arg(long, default_value_t = 6)]
    from_move: usize,
    /// Nodes each VCT look may visit.
    #[arg(long, default_value_t = 1_000_000)]
    nodes: u64,
    /// Most attacker moves in a VCT.
    #[arg(long, default_value_t = 14)]
    depth: i32,
    /// Report the loser's first turn where it had a VCT of its own instead.
    #[arg(long)]
    missed: bool,
}

/// The loser's first move that allowed a VCT, with the verdicts on the alternatives.
struct TurningPoint {
    move_number: usize,
    played: Pos,
    alternatives: usize,
    /// Alternatives after which the solver finished without finding a VCT.
    safe: Vec<Pos>,
    unknown: usize,
    /// Alternatives that make a four (not judged).
    fours: usize,
}

/// The turning point of `game` (a legal game, as [`crate::load_game`] checks) for `loser`.
fn turning_point(
    game: &Game,
    loser: Color,
    args: &Args,
    solver: &mut Solver,
) -> Option<TurningPoint> {
    let mut board = Board::new(game.rule());
    for (index, &mv) in game.moves().iter().enumerate() {
        let mover = board.side_to_move();
        let Move::Place(played) = mv else {
            board.pass();
            continue;
        };
        board.make_move(played);
        if mover != loser || index + 1 < args.from_move || solver.look(&mut board) != Look::Win {
            continue;
        }
        board.undo();
        let mut candidates = Vec::new();
        let status = analyse(&mut board);
        generate(&mut board, status, &mut candidates);
        let (mut safe, mut unknown, mut fours) = (Vec::new(), 0, 0);
        for &(p, _) in &candidates {
            board.make_move(p);
            match analyse(&mut board) {
                Status::Forced(_) => fours += 1,
                // The loser's move makes two five points (or one the winner may not block).
                Status::Lost => safe.push(p),
                _ => match solver.look(&mut board) {
                    Look::Win => {}
                    Look::NoWin => safe.push(p),
                    Look::OutOfBudget => unknown += 1,
                },
            }
            board.undo();
        }
        return Some(TurningPoint {
            move_number: index + 1,
            played,
            alternatives: candidates.len(),
            safe,
            unknown,
            fours,
        });
    }
    None
}

/// The loser's first turn (1-based move number, from `--from-move` on) where it had a VCT, and
/// the move it played there.
fn missed_win(
    game: &Game,
    loser: Color,
    args: &Args,
    solver: &mut Solver,
) -> Option<(usize, Move)> {
    let mut board = Board::new(game.rule());
    for (index, &mv) in game.moves().iter().enumerate() {
        if board.side_to_move() == loser
            && index + 1 >= args.from_move
            && solver.look(&mut board) == Look::Win
        {
            return Some((index + 1, mv));
        }
        match mv {
            Move::Place(p) => board.make_move(p),
            Move::Pass => board.pass(),
        }
    }
    None
}

pub fn run(args: &Args) -> anyhow::Result<()> {
    let rule = args.rule;
    let mut solver = Solver::new(args.nodes, args.depth);
    let (mut lost, mut found, mut with_safe_move) = (0, 0, 0);
    for path in crate::record_files(&args.paths)? {
        let game =
            crate::load_game(&path, rule).with_context(|| format!("reading {}", path.display()));
        let game = match game {
            Ok(game) => game,
            Err(error) => {
                eprintln!("skipped: {error:#}");
                continue;
            }
        };
        let Some(loser) = game.result().and_then(|result| result.loser()) else {
            say!("{}: no loser", path.display());
            continue;
        };
        lost += 1;
        if args.missed {
            match missed_win(&game, loser, args, &mut solver) {
                Some((move_number, played)) => {
                    found += 1;
                    say!(
                        "{}: {} lost; had a VCT at move {} and played {}",
                        path.display(),
                        loser.name(),
                        move_number,
                        move_notation(played)
                    );
                }
                None => say!(
                    "{}: {} lost; had no VCT found within {} nodes",
                    path.display(),
                    loser.name(),
                    args.nodes
                ),
            }
            continue;
        }
        match turning_point(&game, loser, args, &mut solver) {
            Some(point) => {
                found += 1;
                if !point.safe.is_empty() {
                    with_safe_move += 1;
                }
                let safe_moves: Vec<String> = point.safe.iter().map(Pos::to_string).collect();
                say!(
                    "{}: {} lost; move {} ({}) of {} allowed a VCT; {} moves there: {} safe{}, {} unknown, {} fours",
                    path.display(),
                    loser.name(),
                    point.move_number,
                    point.played,
                    game.moves().len(),
                    point.alternatives,
                    safe_moves.len(),
                    if safe_moves.is_empty() {
                        String::new()
                    } else {
                        format!(" ({})", safe_moves.join(" "))
                    },
                    point.unknown,
                    point.fours
                );
            }
            None => say!(
                "{}: {} lost; no move of theirs allowed a VCT found within {} nodes",
                path.display(),
                loser.name(),
                args.nodes
            ),
        }
    }
    if args.missed {
        say!("{lost} games lost: {found} where the loser had a VCT of its own");
    } else {
        say!(
            "{lost} games lost: {found} with a move that allowed a VCT, {with_safe_move} of them with a safe move instead"
        );
    }
    Ok(())
}
