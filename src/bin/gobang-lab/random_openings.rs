//! `gobang-lab random-openings`: writes an opening file of many different starting positions for
//! training data, where the 26 standard openings (or the 104 varied ones) would replay the same
//! few games. Each opening is one of a base file's openings, turned by one of the board's eight
//! symmetries, plus a few random stones (alternating colours, each within two points of a stone,
//! none making an open three or more, so none is forbidden and nobody starts with a threat).
//! Positions are distinct, and the same seed writes the same file.

use crate::rng::Rng;
use crate::selfplay::read_openings;
use anyhow::{bail, Context};
use gobang::game::openings::Opening;
use gobang::rules::{Board, Pos, Rule, Shape, SIZE};
use std::collections::HashSet;
use std::path::PathBuf;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// How many openings to write
    #[arg(long, default_value_t = 1000)]
    count: usize,
    /// Seed of the random choices (the same seed writes the same openings)
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Openings to start from (default: the 26 standard renju openings)
    #[arg(long)]
    base: Option<PathBuf>,
    /// Fewest random stones added to a base opening
    #[arg(long, default_value_t = 1)]
    min_stones: usize,
    /// Most random stones added to a base opening
    #[arg(long, default_value_t = 4)]
    max_stones: usize,
    /// Rule the openings are for (renju keeps Black's stones off forbidden points)
    #[arg(long, default_value = "renju")]
    rule: Rule,
}

/// How many times a position may come out as one already written before the run gives up (a
/// small base with few random stones has only so many distinct positions).
const MAX_REPEATS: usize = 10_000;

/// The most random stones `--max-stones` accepts (a board has 225 points).
const MAX_ADDED_STONES: usize = 100;

pub fn run(args: &Args) -> anyhow::Result<()> {
    let base = read_openings(args.base.as_deref())?;
    let openings = random_openings(&base, args)?;
    say!(
        "# {} random openings (gobang-lab random-openings --count {} --seed {} --min-stones {} --max-stones {} --rule {}{})",
        openings.len(),
        args.count,
        args.seed,
        args.min_stones,
        args.max_stones,
        args.rule.name().to_ascii_lowercase(),
        args.base
            .as_ref()
            .map_or(String::new(), |path| format!(" --base {}", path.display()))
    );
    say!("# code, then base opening/symmetry+added stones, then the moves");
    for opening in &openings {
        say!("{}", opening.line());
    }
    Ok(())
}

fn random_openings(base: &[Opening], args: &Args) -> anyhow::Result<Vec<Opening>> {
    if args.max_stones > MAX_ADDED_STONES {
        bail!("--max-stones is at most {MAX_ADDED_STONES}");
    }
    if args.min_stones > args.max_stones {
        bail!(
            "--min-stones ({}) is more than --max-stones ({})",
            args.min_stones,
            args.max_stones
        );
    }
    let mut rng = Rng::new(args.seed);
    let mut seen = HashSet::new();
    let mut openings = Vec::new();
    let mut repeats = 0;
    while openings.len() < args.count {
        let from = &base[rng.below(base.len())];
        let symmetry = rng.below(8);
        let stones = args.min_stones + rng.below(args.max_stones - args.min_stones + 1);
        let mut board = Board::new(args.rule);
        let mut moves = Vec::new();
        for &p in &from.moves {
            let turned = transform(p, symmetry);
            board
                .play(turned)
                .with_context(|| format!("base opening {} is not playable", from.code))?;
            moves.push(turned);
        }
        for _ in 0..stones {
            let candidates = quiet_points_near_stones(&board);
            if candidates.is_empty() {
                break;
            }
            let p = candidates[rng.below(candidates.len())];
            board.make_move(p);
            moves.push(p);
        }
        if seen.insert(board.hash()) {
            openings.push(Opening {
                code: format!("R{}", openings.len() + 1),
                name: format!(
                    "{}/s{}+{}",
                    from.code,
                    symmetry,
                    moves.len() - from.moves.len()
                ),
                moves,
            });
        } else {
            repeats += 1;
            if repeats > MAX_REPEATS {
                bail!(
                    "only {} distinct openings found; allow more random stones or give a larger base",
                    openings.len()
                );
            }
        }
    }
    Ok(openings)
}

/// Empty points within two points of a stone where the side to move makes less than an open
/// three (so no four, no five, and for Black in renju nothing forbidden).
fn quiet_points_near_stones(board: &Board) -> Vec<Pos> {
    let me = board.side_to_move();
    let stones: Vec<Pos> = Pos::all().filter(|&p| !board.is_empty(p)).collect();
    Pos::all()
        .filter(|&p| board.is_empty(p))
        .filter(|&p| stones.iter().any(|&s| s.distance(p) <= 2))
        .filter(|&p| board.shape(p, me) < Shape::OpenThree)
        .collect()
}

/// One of the board's eight symmetries (0: identity), about the centre point.
fn transform(p: Pos, symmetry: usize) -> Pos {
    let last = SIZE - 1;
    let (x, y) = (p.x(), p.y());
    let (x, y) = if symmetry & 4 != 0 { (y, x) } else { (x, y) };
    let x = if symmetry & 1 != 0 { last - x } else { x };
    let y = if symmetry & 2 != 0 { last - y } else { y };
    Pos::new(x, y).expect("a symmetry of an on-board point is on the board")
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;
    use gobang::game::openings::{parse_openings, standard_openings};

    #[derive(Parser)]
    struct Cli {
        #[command(flatten)]
        args: Args,
    }

    fn args(extra: &[&str]) -> Args {
        Cli::parse_from(std::iter::once("random-openings").chain(extra.iter().copied())).args
    }

    #[test]
    fn the_eight_symmetries_are_distinct_and_keep_the_centre() {
        let p = Pos::new(9, 4).unwrap();
        let images: HashSet<Pos> = (0..8).map(|s| transform(p, s)).collect();
        assert_eq!(images.len(), 8);
        assert!((0..8).all(|s| transform(Pos::CENTER, s) == Pos::CENTER));
        assert_eq!(transform(p, 0), p);
    }

    #[test]
    fn openings_are_legal_quiet_distinct_and_reproducible() {
        let base = standard_openings();
        let settings = args(&["--count", "300", "--seed", "5"]);
        let openings = random_openings(base, &settings).unwrap();
        assert_eq!(openings.len(), 300);
        assert_eq!(openings, random_openings(base, &settings).unwrap());
        let mut positions = HashSet::new();
        for opening in &openings {
            let added = opening.moves.len() - 3;
            assert!((1..=4).contains(&added), "{opening:?}");
            let mut board = Board::new(Rule::Renju);
            for &p in &opening.moves {
                let me = board.side_to_move();
                assert!(board.shape(p, me) < Shape::OpenThree, "{opening:?}");
                assert!(!board.is_forbidden(p), "{opening:?}");
                board.play(p).unwrap();
            }
            assert!(positions.insert(board.hash()), "{opening:?}");
        }
        let other = random_openings(base, &args(&["--count", "300", "--seed", "6"])).unwrap();
        assert_ne!(openings, other);
    }

    #[test]
    fn written_openings_read_back_and_impossible_requests_are_refused() {
        let base = parse_openings("X1 h8 h9 i9\n").unwrap();
        let openings = random_openings(&base, &args(&["--count", "20"])).unwrap();
        let text: String = openings.iter().map(|o| o.line() + "\n").collect();
        assert_eq!(parse_openings(&text).unwrap(), openings);
        let too_many = args(&["--count", "100", "--min-stones", "0", "--max-stones", "0"]);
        assert!(random_openings(&base, &too_many).is_err());
        assert!(
            random_openings(&base, &args(&["--min-stones", "3", "--max-stones", "2"])).is_err()
        );
        assert!(random_openings(&base, &args(&["--max-stones", "101"])).is_err());
    }
}
