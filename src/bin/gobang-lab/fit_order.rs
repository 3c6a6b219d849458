//! `gobang-lab fit-order`: fits the search's quiet-move order to a player's choices. Every quiet
//! position of the given records where the named player chose a move (from `--from-move` on, so
//! no opening stone) is an example: the candidates are the region of interest the search
//! would generate, and a conditional logit (softmax over the candidates, Adam on the mean
//! cross-entropy, a small L2 pull to zero) learns weights for the side to move's line-shape pair
//! at a point, the opponent's (or "forbidden for Black"), and the king distance to the last and
//! second-last move. The pair weights, scaled to order points, are what
//! [`gobang::engine::movegen::score_quiet_moves`] uses (the distance weights are fitted alongside
//! and then dropped: the search keeps its own discount for distant moves). It prints them as
//! Rust constants, and how often each order puts the chosen move first or among the first three
//! or eight, on the training positions and on the held-out ones (the last of the examples, in
//! record order).

use gobang::engine::movegen::{
    analyse, discount_distant_moves, generate, is_dead_for, recent_stone, score_quiet_moves,
    shape_score, Status, QUIET_ORDER_BASE,
};
use gobang::game::record::GameRecord;
use gobang::rules::shape::PAIR_COUNT;
use gobang::rules::{Board, Color, Move, Pos, Rule};
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct Args {
    /// Game records, or folders of them.
    #[arg(required = true)]
    paths: Vec<PathBuf>,
    /// Only the moves of players whose name contains this (e.g. `rapfi`).
    #[arg(long)]
    player: String,
    /// First move number (1-based) that counts as a choice; earlier moves are the opening.
    #[arg(long, default_value_t = 6)]
    from_move: usize,
    /// Also leave out moves recorded as taking no time (0 ms: instant answers).
    #[arg(long)]
    skip_instant: bool,
    /// Rule the games were played under (psq files do not say).
    #[arg(long, default_value = "renju")]
    rule: Rule,
    /// Examples fitted to (the rest are held out); default four in five.
    #[arg(long)]
    train_positions: Option<usize>,
    /// Adam steps over all training examples.
    #[arg(long, default_value_t = 300)]
    steps: usize,
    /// Adam learning rate.
    #[arg(long, default_value_t = 0.05)]
    rate: f64,
    /// L2 pull of every weight towards zero.
    #[arg(long, default_value_t = 1e-4)]
    l2: f64,
    /// Order points a unit of the fitted logit is worth.
    #[arg(long, default_value_t = 25.0)]
    scale: f64,
}

/// Feature layout: own pair, opponent pair, opponent point forbidden for Black, distance to the
/// last move (1, 2, 3, 4, 5 or more), to the second-last.
const OPP: usize = PAIR_COUNT;
const DEAD: usize = 2 * PAIR_COUNT;
const LAST: usize = DEAD + 1;
const SECOND_LAST: usize = LAST + 5;
const FEATURES: usize = SECOND_LAST + 5;

/// One candidate point: its features' indices and its scores under the orders compared.
struct Candidate {
    features: [usize; 4],
    /// How far the search's distance discount shifts its score (0, 1 or 2).
    discount_shift: u32,
    shape_order: i32,
    built_in_order: i32,
}

/// One example: the candidates and which one the player chose.
struct Example {
    chosen: usize,
    candidates: Vec<Candidate>,
}

pub fn run(args: &Args) -> anyhow::Result<()> {
    let examples = examples(args)?;
    anyhow::ensure!(
        examples.len() >= 2,
        "only {} quiet choices of a player named like {:?} in those records",
        examples.len(),
        args.player
    );
    let train = args
        .train_positions
        .unwrap_or(examples.len() * 4 / 5)
        .clamp(1, examples.len() - 1);
    let (training, held_out) = examples.split_at(train);
    println!(
        "{} examples: {} fitted, {} held out",
        examples.len(),
        training.len(),
        held_out.len()
    );
    let weights = fit(training, args);
    let own: Vec<i32> = (0..PAIR_COUNT).map(|i| points(weights[i], args)).collect();
    let opp: Vec<i32> = (0..PAIR_COUNT)
        .map(|i| points(weights[OPP + i], args))
        .collect();
    let dead = points(weights[DEAD], args);
    let fitted_order = |c: &Candidate| {
        let [own_pair, opp_feature, _, _] = c.features;
        let theirs = if opp_feature == DEAD {
            dead
        } else {
            opp[opp_feature - OPP]
        };
        (QUIET_ORDER_BASE + own[own_pair] + theirs).max(0) >> c.discount_shift
    };
    for (name, set) in [("fitted", training), ("held out", held_out)] {
        println!("{name}:");
        report("  shape order (before session 70)", set, |c| c.shape_order);
        report("  built-in order", set, |c| c.built_in_order);
        report("  this fit", set, fitted_order);
    }
    println!("const QUIET_ORDER_OWN: [i32; PAIR_COUNT] = {own:?};");
    println!("const QUIET_ORDER_OPP: [i32; PAIR_COUNT] = {opp:?};");
    println!("const QUIET_ORDER_DEAD: i32 = {dead};");
    let distance =
        |from: usize| -> Vec<i32> { (0..5).map(|i| points(weights[from + i], args)).collect() };
    println!(
        "distance weights (dropped): last move {:?}, second-last {:?}",
        distance(LAST),
        distance(SECOND_LAST)
    );
    Ok(())
}

fn points(weight: f64, args: &Args) -> i32 {
    (weight * args.scale).round() as i32
}

/// The player's quiet choices in the records, in record order.
fn examples(args: &Args) -> anyhow::Result<Vec<Example>> {
    let mut examples = Vec::new();
    let mut moves = Vec::new();
    for file in crate::record_files(&args.paths)? {
        let record = match GameRecord::load(&file) {
            Ok(record) => record,
            Err(error) => {
                eprintln!("skipping {}: {error}", file.display());
                continue;
            }
        };
        let mut board = Board::new(args.rule);
        for (number, recorded) in (1..).zip(&record.moves) {
            let Move::Place(chosen) = recorded.mv else {
                board.pass();
                continue;
            };
            let mover = board.side_to_move();
            let name = match mover {
                Color::Black => &record.black,
                Color::White => &record.white,
            };
            let counts = number >= args.from_move
                && !(args.skip_instant && recorded.time_ms.unwrap_or(0) == 0)
                && name.as_deref().is_some_and(|n| n.contains(&args.player));
            if counts && analyse(&mut board) == Status::Quiet {
                generate(&mut board, Status::Quiet, &mut moves);
                if let Some(chosen) = moves.iter().position(|(p, _)| *p == chosen) {
                    examples.push(example(&board, &mut moves, chosen));
                }
            }
            if !board.is_empty(chosen) {
                eprintln!(
                    "skipping the rest of {}: a stone on an occupied point",
                    file.display()
                );
                break;
            }
            board.make_move(chosen);
        }
    }
    Ok(examples)
}

fn example(board: &Board, moves: &mut [(Pos, i32)], chosen: usize) -> Example {
    let me = board.side_to_move();
    let opp = me.opponent();
    let (last, second_last) = (recent_stone(board, 1), recent_stone(board, 2));
    let near = |p: Pos, q: Option<Pos>| q.map_or(4, |q| (p.distance(q).clamp(1, 5) - 1) as usize);
    let mut discounts: Vec<(Pos, i32)> = moves.iter().map(|&(p, _)| (p, 4)).collect();
    discount_distant_moves(board, &mut discounts);
    let mut shape_orders: Vec<(Pos, i32)> = moves
        .iter()
        .map(|&(p, _)| (p, shape_score(board, p)))
        .collect();
    discount_distant_moves(board, &mut shape_orders);
    score_quiet_moves(board, moves);
    let candidates = moves
        .iter()
        .zip(discounts.iter().zip(&shape_orders))
        .map(
            |(&(p, built_in_order), (&(_, discount), &(_, shape_order)))| Candidate {
                features: [
                    board.shape_pair(p, me).index(),
                    if is_dead_for(board, opp, board.shape(p, opp)) {
                        DEAD
                    } else {
                        OPP + board.shape_pair(p, opp).index()
                    },
                    LAST + near(p, last),
                    SECOND_LAST + near(p, second_last),
                ],
                discount_shift: (4 / discount).trailing_zeros(),
                shape_order,
                built_in_order,
            },
        )
        .collect();
    Example { chosen, candidates }
}

/// Adam over the mean cross-entropy of the softmax choice, full batch.
fn fit(examples: &[Example], args: &Args) -> Vec<f64> {
    let mut weights = vec![0.0; FEATURES];
    let (mut first_moment, mut second_moment) = (vec![0.0; FEATURES], vec![0.0; FEATURES]);
    let mut utilities = Vec::new();
    let uniform: f64 = examples
        .iter()
        .map(|e| (e.candidates.len() as f64).ln())
        .sum();
    println!(
        "loss before fitting: {:.4}",
        uniform / examples.len() as f64
    );
    for step in 1..=args.steps {
        let mut gradient: Vec<f64> = weights.iter().map(|w| args.l2 * w).collect();
        let mut loss = 0.0;
        for example in examples {
            utilities.clear();
            utilities.extend(
                example
                    .candidates
                    .iter()
                    .map(|c| c.features.iter().map(|&f| weights[f]).sum::<f64>()),
            );
            let top = utilities.iter().copied().fold(f64::MIN, f64::max);
            let total: f64 = utilities.iter().map(|u| (u - top).exp()).sum();
            loss -= utilities[example.chosen] - top - total.ln();
            for (index, (candidate, utility)) in
                example.candidates.iter().zip(&utilities).enumerate()
            {
                let probability = (utility - top).exp() / total;
                let target = if index == example.chosen { 1.0 } else { 0.0 };
                for &feature in &candidate.features {
                    gradient[feature] += (probability - target) / examples.len() as f64;
                }
            }
        }
        let first_bias = 1.0 - 0.9f64.powi(step as i32);
        let second_bias = 1.0 - 0.999f64.powi(step as i32);
        for (((weight, g), first), second) in weights
            .iter_mut()
            .zip(&gradient)
            .zip(first_moment.iter_mut())
            .zip(second_moment.iter_mut())
        {
            *first = 0.9 * *first + 0.1 * g;
            *second = 0.999 * *second + 0.001 * g * g;
            *weight -= args.rate * (*first / first_bias) / ((*second / second_bias).sqrt() + 1e-8);
        }
        if step % 50 == 0 || step == args.steps {
            println!("step {step}: loss {:.4}", loss / examples.len() as f64);
        }
    }
    weights
}

/// Prints how often `order` puts the chosen move first, in the first three and the first eight
/// (equal scores in the generated order, as the search picks them).
fn report(name: &str, examples: &[Example], order: impl Fn(&Candidate) -> i32) {
    let mut within = [0usize; 3];
    for example in examples {
        let scores: Vec<i32> = example.candidates.iter().map(&order).collect();
        let chosen = scores[example.chosen];
        let rank = scores
            .iter()
            .enumerate()
            .filter(|&(i, &s)| s > chosen || (s == chosen && i < example.chosen))
            .count();
        for (count, limit) in within.iter_mut().zip([1, 3, 8]) {
            *count += (rank < limit) as usize;
        }
    }
    let share = |count: usize| 100.0 * count as f64 / examples.len() as f64;
    println!(
        "{name}: first {:.1}%, top 3 {:.1}%, top 8 {:.1}%",
        share(within[0]),
        share(within[1]),
        share(within[2])
    );
}
