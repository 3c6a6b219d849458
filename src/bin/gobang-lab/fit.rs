//! `gobang-lab fit`: fits the evaluation weights to finished games (the "Texel" method).
//!
//! Every position of every game (after the opening plies, with no five to make for either side)
//! becomes one example: the evaluation's features (see [`eval::features`]) and whether the side to
//! move went on to win (1), draw (½) or lose (0). The predicted score is `sigmoid(eval / scale)`:
//! the scale is first chosen to fit the starting weights best, then the weights are moved by Adam
//! on the mean cross-entropy, with an L2 pull towards the starting values. About one opening in
//! `holdout` (a game's first `opening-plies` moves) is kept out of the fit with all its games and
//! reported separately, so that over-fitting shows. The split is by opening rather than by game
//! because match records repeat themselves: deterministic engines replay the same game from the
//! same opening run after run, and a held-out copy of a training game measures memory, not
//! judgement. The result is a weights file; whether it plays better is for `selfplay` to measure.
//!
//! With `--leaves` only the positions a search scores with the evaluation at its horizon are
//! used, as the Texel method fits chess evaluations to quiet positions: those with a five to make
//! are always left out, and then also those the side to move wins by VCF (the search's leaves look
//! for one, so the evaluation never has to recognise them).
//!
//! Weights with a late stage (`--late-from`, or a starting file that has one) are fitted one stage
//! at a time (`--stage early` or `--stage late`), each to its own positions alone; the other
//! stage's weights are written back as they started.
//!
//! Positions can also come labelled (`--labels`): a target score per position, such as a deeper
//! search's value turned into an expected score, instead of the game's result (distillation
//! rather than the Texel method). Labelled positions are split by their first moves the same way.
//!
//! Games between players of unequal strength would teach the weights to recognise the stronger
//! player's style rather than good positions. So when the records name their players, each player
//! gets a strength offset of its own, fitted along with the weights (added to the evaluation of
//! the positions where it is to move, subtracted where its opponent is) and then thrown away.
//!
//! With `--hidden N` the stage's linear weights stay as they start and a network of `N` hidden
//! units is fitted on top of them instead (see [`network`]).

mod network;

use anyhow::{bail, Context};
use clap::Args;
use gobang::engine::eval::{self, LateStage, Stage, Weights};
use gobang::engine::movegen::has_four_point;
use gobang::engine::network::MAX_HIDDEN;
use gobang::engine::time::TimeControl;
use gobang::engine::vcf::{Fours, Vcf};
use gobang::engine::Limits;
use gobang::game::record::{write_atomically, GameRecord};
use gobang::rules::{Board, Move, Pos, Rule, Shape};
use std::ops::RangeInclusive;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::time::Duration;

#[derive(Args, Debug)]
pub struct FitArgs {
    /// Game records (files, or folders whose record files are all read)
    #[arg(required_unless_present = "labels")]
    pub records: Vec<PathBuf>,
    /// Labelled positions: lines `TARGET MOVES...`, the side to move's expected score (0 to 1,
    /// e.g. from a deeper search) and the moves from the empty board (`h8 h9 ...`); `#` comments
    #[arg(long)]
    pub labels: Vec<PathBuf>,
    /// Rule the games were played under (psq files do not say)
    #[arg(long, default_value = "renju")]
    pub rule: Rule,
    /// Starting weights file (default: the engine's built-in weights)
    #[arg(long)]
    pub start: Option<PathBuf>,
    /// Where to write the fitted weights
    #[arg(long, default_value = "fitted-weights.txt")]
    pub out: PathBuf,
    /// Positions with fewer stones than this are left out
    #[arg(long, default_value_t = 6)]
    pub min_stones: usize,
    /// Give the starting weights a late stage from this many stones on (its weights starting
    /// as the early ones when the starting weights have no late stage)
    #[arg(long, value_parser = clap::value_parser!(u16).range(1..))]
    pub late_from: Option<u16>,
    /// The stage whose weights are fitted, to its positions alone (`early` or `late`); needed
    /// when the weights have a late stage
    #[arg(long)]
    pub stage: Option<Stage>,
    /// Only the pair weights move (the shape weights stay as they start)
    #[arg(long)]
    pub pairs_only: bool,
    /// Keep every point's value (shape + pair weight) at zero or more
    #[arg(long)]
    pub non_negative: bool,
    /// Adam steps over the whole training set
    #[arg(long, default_value_t = 1000)]
    pub steps: usize,
    /// Adam step size, in weight units
    #[arg(long, default_value_t = 0.5)]
    pub rate: f64,
    /// L2 pull towards the starting weights (per squared weight unit)
    #[arg(long, default_value_t = 1e-7)]
    pub l2: f64,
    /// About one opening in this many is kept out of the fit, with every game and labelled
    /// position that starts with it, to validate the fit (0: none)
    #[arg(long, default_value_t = 10)]
    pub holdout: usize,
    /// How many first moves make a game's opening for `--holdout`: games (and labelled
    /// positions) that share them land on the same side of the split
    #[arg(long, default_value_t = 5)]
    pub opening_plies: usize,
    /// Keep only the positions the search scores statically at its horizon: besides those with
    /// a five to make, leave out those the side to move wins by VCF (its leaves look for one)
    #[arg(long)]
    pub leaves: bool,
    /// Nodes of each `--leaves` VCF look
    #[arg(long, default_value_t = 10_000)]
    pub leaf_vcf_nodes: u64,
    /// Fit a network of this many hidden units on top of the stage's linear weights (which stay
    /// as they start) instead of the linear weights themselves (0: the linear fit)
    #[arg(long, default_value_t = 0, value_parser = clap::value_parser!(u16).range(0..=MAX_HIDDEN as i64))]
    pub hidden: u16,
    /// Passes over the training examples of the network fit
    #[arg(long, default_value_t = 20)]
    pub epochs: usize,
    /// Examples per Adam step of the network fit
    #[arg(long, default_value_t = 256)]
    pub batch: usize,
    /// Adam step size of the network fit
    #[arg(long, default_value_t = 0.001)]
    pub net_rate: f64,
    /// L2 pull of the network's weights towards zero
    #[arg(long, default_value_t = 1e-5)]
    pub net_l2: f64,
    /// Seed of the network's starting weights and of the order of its examples
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
}

/// The starting weights (with the late stage `--late-from` asks for), the stage to fit and the
/// stone counts of its positions.
fn starting_point(args: &FitArgs) -> anyhow::Result<(Weights, Stage, RangeInclusive<usize>)> {
    let mut start = crate::weights_or_default(args.start.as_deref())?;
    if let Some(from_stones) = args.late_from {
        let to_move = start.stage(Stage::Late).clone();
        start.late = Some(LateStage {
            from_stones: usize::from(from_stones),
            to_move,
            network: None,
        });
    }
    let stage = match (args.stage, &start.late) {
        (Some(stage), _) => stage,
        (None, None) => Stage::Early,
        (None, Some(late)) => bail!(
            "the weights have a late stage (from {} stones): say which stage to fit with --stage early or --stage late",
            late.from_stones
        ),
    };
    if stage == Stage::Late && start.late.is_none() {
        bail!("--stage late needs weights with a late stage (or --late-from)");
    }
    let stage_stones = start.stage_stones(stage);
    let stones = args.min_stones.max(*stage_stones.start())..=*stage_stones.end();
    Ok((start, stage, stones))
}

/// Which positions become examples: every one with no five to make, or with `--leaves` only
/// those a search would score with the evaluation at its horizon.
struct Selection {
    /// With `--leaves`: the solver that rules out positions the side to move wins by fours.
    leaf_vcf: Option<Vcf>,
    vcf_nodes: u64,
}

impl Selection {
    fn new(args: &FitArgs) -> Selection {
        Selection {
            leaf_vcf: args.leaves.then(Vcf::new),
            vcf_nodes: args.leaf_vcf_nodes,
        }
    }

    fn keeps(&mut self, board: &mut Board) -> bool {
        let me = board.side_to_move();
        if board.shape_count(me, Shape::Five) > 0
            || board.shape_count(me.opponent(), Shape::Five) > 0
        {
            return false;
        }
        let Some(vcf) = &mut self.leaf_vcf else {
            return true;
        };
        if !has_four_point(board, me) {
            return true;
        }
        let stop = AtomicBool::new(false);
        let limits = Limits::turn_time(Duration::from_secs(24 * 3600));
        let mut clock = TimeControl::new(&limits, &stop);
        vcf.clear();
        vcf.solve(
            board,
            Fours::All,
            MAX_VCF_FOURS,
            self.vcf_nodes,
            &mut clock,
            0,
        )
        .is_none()
    }
}

/// Fours a `--leaves` VCF look may play in a line.
const MAX_VCF_FOURS: i32 = 30;

/// One position: its non-zero features (the weights', then the players' offsets at
/// [`Weights::COUNT`] + player number) and the side to move's final score.
struct Example {
    features: Vec<(u32, f64)>,
    target: f64,
}

#[derive(Default)]
struct Dataset {
    train: Vec<Example>,
    validation: Vec<Example>,
    games: usize,
    /// Labelled positions read (from `--labels` files).
    positions: usize,
    skipped: usize,
    /// Player names, numbered in order of appearance.
    players: Vec<String>,
}

impl Dataset {
    /// The offset feature of player `name`.
    fn player_feature(&mut self, name: &str) -> u32 {
        let number = match self.players.iter().position(|p| p == name) {
            Some(number) => number,
            None => {
                self.players.push(name.to_string());
                self.players.len() - 1
            }
        };
        (Weights::COUNT + number) as u32
    }
}

/// The example of one position: its evaluation features and `target`, or `None` when `selection`
/// leaves it out (a five can be made: the game is decided there, whatever the shapes say).
fn position_example(board: &mut Board, target: f64, selection: &mut Selection) -> Option<Example> {
    selection.keeps(board).then(|| Example {
        features: eval::features(board)
            .into_iter()
            .enumerate()
            .filter(|(_, value)| *value != 0.0)
            .map(|(index, value)| (index as u32, value))
            .collect(),
        target,
    })
}

/// The examples of one game and its moves, or why it cannot be used.
fn game_examples(
    path: &Path,
    rule: Rule,
    stones: &RangeInclusive<usize>,
    selection: &mut Selection,
    data: &mut Dataset,
) -> anyhow::Result<(Vec<Example>, Vec<Move>)> {
    let mut record = GameRecord::load(path)?;
    record.rule = rule;
    let offsets = match (&record.black, &record.white) {
        (Some(black), Some(white)) => {
            Some([data.player_feature(black), data.player_feature(white)])
        }
        _ => None,
    };
    let game = record.to_game()?;
    let Some(result) = game.result() else {
        bail!("the game is not finished");
    };
    let mut board = Board::new(rule);
    let mut examples = Vec::new();
    for &mv in game.moves() {
        let me = board.side_to_move();
        let target = match result.winner {
            Some(winner) if winner == me => 1.0,
            Some(_) => 0.0,
            None => 0.5,
        };
        if stones.contains(&board.stone_count()) {
            if let Some(mut example) = position_example(&mut board, target, selection) {
                if let Some(offsets) = offsets {
                    example.features.push((offsets[me.index()], 1.0));
                    example
                        .features
                        .push((offsets[me.opponent().index()], -1.0));
                }
                examples.push(example);
            }
        }
        match mv {
            Move::Place(p) if board.is_empty(p) => board.make_move(p),
            Move::Place(_) => bail!("a move on an occupied point"),
            Move::Pass => board.pass(),
        }
    }
    Ok((examples, game.moves().to_vec()))
}

/// The example of one labels-file line (`TARGET MOVES...`) with the line's moves, `Ok(None)` for a
/// position whose stone count is outside `stones` or one `selection` leaves out.
fn labelled_example(
    line: &str,
    rule: Rule,
    stones: &RangeInclusive<usize>,
    selection: &mut Selection,
) -> anyhow::Result<Option<(Example, Vec<Move>)>> {
    let mut words = line.split_whitespace();
    let target: f64 = match words.next() {
        Some(word) => word
            .parse()
            .with_context(|| format!("'{word}' is not a target score"))?,
        None => bail!("empty line"),
    };
    if !(0.0..=1.0).contains(&target) {
        bail!("target {target} is not between 0 and 1");
    }
    let mut board = Board::new(rule);
    for word in words {
        let p: Pos = word.parse()?;
        if !board.is_empty(p) {
            bail!("{p} is played twice");
        }
        board.make_move(p);
    }
    if !stones.contains(&board.stone_count()) {
        return Ok(None);
    }
    let moves = board.history().to_vec();
    Ok(position_example(&mut board, target, selection).map(|example| (example, moves)))
}

/// Whether the game or position that starts with `moves` belongs to a held-out opening: its first
/// `opening_plies` moves, hashed (FNV-1a), fall on one residue in `holdout` (never when
/// `holdout` is 0).
fn is_held_out(moves: &[Move], holdout: usize, opening_plies: usize) -> bool {
    if holdout == 0 {
        return false;
    }
    let hash = moves
        .iter()
        .take(opening_plies)
        .map(|mv| mv.pos().map_or(u8::MAX, |p| p.0))
        .fold(0xcbf2_9ce4_8422_2325_u64, |hash, byte| {
            (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3)
        });
    hash % holdout as u64 == 0
}

/// Every usable line of the labels files, those of held-out openings into validation.
fn load_labels(
    args: &FitArgs,
    stones: &RangeInclusive<usize>,
    selection: &mut Selection,
    data: &mut Dataset,
) -> anyhow::Result<()> {
    for path in &args.labels {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("cannot read labels file {}", path.display()))?;
        for (number, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            match labelled_example(line, args.rule, stones, selection) {
                Ok(Some((example, moves))) => {
                    data.positions += 1;
                    if is_held_out(&moves, args.holdout, args.opening_plies) {
                        data.validation.push(example);
                    } else {
                        data.train.push(example);
                    }
                }
                Ok(None) => {}
                Err(error) => {
                    data.skipped += 1;
                    eprintln!("skipped {} line {}: {error:#}", path.display(), number + 1);
                }
            }
        }
    }
    Ok(())
}

/// The examples of the records and labels, positions with stone counts in `stones` only.
fn load(args: &FitArgs, stones: &RangeInclusive<usize>) -> anyhow::Result<Dataset> {
    let mut data = Dataset::default();
    let mut selection = Selection::new(args);
    load_labels(args, stones, &mut selection, &mut data)?;
    for path in crate::record_files(&args.records)? {
        match game_examples(&path, args.rule, stones, &mut selection, &mut data) {
            Ok((examples, moves)) => {
                data.games += 1;
                if is_held_out(&moves, args.holdout, args.opening_plies) {
                    data.validation.extend(examples);
                } else {
                    data.train.extend(examples);
                }
            }
            Err(error) => {
                data.skipped += 1;
                eprintln!("skipped {}: {error:#}", path.display());
            }
        }
    }
    Ok(data)
}

/// The logistic function: an evaluation over the scale to an expected score (also `label`'s).
pub(crate) fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

fn evaluation(example: &Example, weights: &[f64]) -> f64 {
    example
        .features
        .iter()
        .map(|&(index, value)| value * weights[index as usize])
        .sum()
}

/// Mean cross-entropy of `sigmoid(eval / scale)` against the targets.
fn loss(examples: &[Example], weights: &[f64], scale: f64) -> f64 {
    let total: f64 = examples
        .iter()
        .map(|example| {
            let p = sigmoid(evaluation(example, weights) / scale).clamp(1e-12, 1.0 - 1e-12);
            -(example.target * p.ln() + (1.0 - example.target) * (1.0 - p).ln())
        })
        .sum();
    total / examples.len().max(1) as f64
}

/// The scale that fits `weights` best (golden-section search on its logarithm).
fn best_scale(examples: &[Example], weights: &[f64]) -> f64 {
    let ratio = (5f64.sqrt() - 1.0) / 2.0;
    let (mut low, mut high) = (10f64.ln(), 10_000f64.ln());
    for _ in 0..40 {
        let a = high - ratio * (high - low);
        let b = low + ratio * (high - low);
        if loss(examples, weights, a.exp()) < loss(examples, weights, b.exp()) {
            high = b;
        } else {
            low = a;
        }
    }
    ((low + high) / 2.0).exp()
}

/// Adam on the training loss plus the L2 pull on the weights (the players' offsets move freely);
/// `movable[i]` says whether weight `i` may change.
/// Progress lines start with `label`.
fn adam(
    label: &str,
    data: &[Example],
    start: &[f64],
    movable: &[bool],
    scale: f64,
    args: &FitArgs,
) -> Vec<f64> {
    let (beta1, beta2, epsilon) = (0.9, 0.999, 1e-8);
    let mut weights = start.to_vec();
    let mut first = vec![0.0; weights.len()];
    let mut second = vec![0.0; weights.len()];
    let n = data.len().max(1) as f64;
    for step in 1..=args.steps {
        let mut gradient = vec![0.0; weights.len()];
        for example in data {
            let error = sigmoid(evaluation(example, &weights) / scale) - example.target;
            for &(index, value) in &example.features {
                gradient[index as usize] += error * value / scale;
            }
        }
        for i in 0..weights.len() {
            if !movable[i] {
                continue;
            }
            let pull = if i < Weights::COUNT { args.l2 } else { 0.0 };
            let g = gradient[i] / n + 2.0 * pull * (weights[i] - start[i]);
            first[i] = beta1 * first[i] + (1.0 - beta1) * g;
            second[i] = beta2 * second[i] + (1.0 - beta2) * g * g;
            let corrected_first = first[i] / (1.0 - beta1.powi(step as i32));
            let corrected_second = second[i] / (1.0 - beta2.powi(step as i32));
            weights[i] -= args.rate * corrected_first / (corrected_second.sqrt() + epsilon);
        }
        if args.non_negative && movable[..Weights::COUNT].iter().any(|&m| m) {
            eval::raise_negative_point_values(&mut weights);
        }
        if step % 500 == 0 || step == args.steps {
            say!(
                "{label}: step {step:>5}, training loss {:.5}",
                loss(data, &weights, scale)
            );
        }
    }
    weights
}

/// What a fit was fitted to, for the header of the file it writes: the data, the rule and the stage.
fn fit_description(args: &FitArgs, start: &Weights, stage: Stage, data: &Dataset) -> String {
    format!(
        "{} games, {} labelled positions ({} examples), rule {}, {}",
        data.games,
        data.positions,
        data.train.len() + data.validation.len(),
        args.rule.name(),
        match (stage, &start.late) {
            (Stage::Late, Some(late)) => format!("late stage (from {} stones)", late.from_stones),
            (Stage::Early, Some(late)) =>
                format!("early stage (under {} stones)", late.from_stones),
            (_, None) => "one stage".to_string(),
        }
    )
}

/// The network fit (`--hidden`): a network on top of `start`'s weights for `stage`, from the
/// baseline's players' offsets, written with `start`'s weights to `args.out`.
fn fit_network(
    args: &FitArgs,
    start: &Weights,
    stage: Stage,
    data: &Dataset,
    baseline: &[f64],
    scale: f64,
) -> anyhow::Result<()> {
    let (linear, offsets) = baseline.split_at(Weights::COUNT);
    let fit = network::fit(&data.train, &data.validation, linear, offsets, scale, args);
    let weights = start.with_network(stage, Some(fit.network));
    let mut header = format!(
        "# gobang-lab fit --hidden {}: {}, {} epochs of batches of {}, rate {}, L2 {}\n",
        args.hidden,
        fit_description(args, start, stage, data),
        args.epochs,
        args.batch,
        args.net_rate,
        args.net_l2,
    );
    for (name, (start, fitted)) in [
        ("training", (fit.start_losses.0, fit.fitted_losses.0)),
        ("validation", (fit.start_losses.1, fit.fitted_losses.1)),
    ] {
        let line = format!("{name:>10} loss: start {start:.5}, fitted {fitted:.5}");
        say!("{line}");
        header.push_str(&format!("# {}\n", line.trim_start()));
    }
    write_atomically(&args.out, (header + &weights.to_text()).as_bytes())
        .with_context(|| format!("writing {}", args.out.display()))?;
    say!("fitted network written to {}", args.out.display());
    Ok(())
}

pub fn run(args: &FitArgs) -> anyhow::Result<()> {
    let (start, stage, stones) = starting_point(args)?;
    let data = load(args, &stones)?;
    if data.train.is_empty() {
        bail!("no usable positions in the records and labels given");
    }
    say!(
        "{} games, {} labelled positions ({} skipped): {} training positions, {} validation positions",
        data.games,
        data.positions,
        data.skipped,
        data.train.len(),
        data.validation.len()
    );
    let mut start_vector = start.to_vector(stage);
    if args.non_negative {
        eval::raise_negative_point_values(&mut start_vector);
    }
    start_vector.resize(Weights::COUNT + data.players.len(), 0.0);
    let scale = best_scale(&data.train, &start_vector);
    say!("scale {scale:.1} (eval units per logistic unit)");
    // The baseline: the starting weights with only the players' offsets fitted.
    let offsets_only: Vec<bool> = (0..start_vector.len())
        .map(|i| i >= Weights::COUNT)
        .collect();
    let baseline = adam(
        "offsets only",
        &data.train,
        &start_vector,
        &offsets_only,
        scale,
        args,
    );
    if args.hidden > 0 {
        return fit_network(args, &start, stage, &data, &baseline, scale);
    }
    let movable: Vec<bool> = (0..start_vector.len())
        .map(|i| !args.pairs_only || i >= Weights::COUNT || Weights::is_pair_index(i))
        .collect();
    let fitted = adam("weights", &data.train, &start_vector, &movable, scale, args);
    for (name, offset) in data.players.iter().zip(&fitted[Weights::COUNT..]) {
        say!("player offset {offset:>7.1}  {name}");
    }
    let fitted_weights = start.with_vector(stage, &fitted[..Weights::COUNT]);
    let mut rounded = fitted_weights.to_vector(stage);
    rounded.extend_from_slice(&fitted[Weights::COUNT..]);
    let mut header = format!(
        "# gobang-lab fit: {}, {} steps, rate {}, L2 {}{}{}\n",
        fit_description(args, &start, stage, &data),
        args.steps,
        args.rate,
        args.l2,
        if args.non_negative {
            ", non-negative"
        } else {
            ""
        },
        if args.pairs_only { ", pairs only" } else { "" },
    );
    for (name, examples) in [("training", &data.train), ("validation", &data.validation)] {
        if !examples.is_empty() {
            let line = format!(
                "{name:>10} loss: start {:.5}, fitted {:.5}",
                loss(examples, &baseline, scale),
                loss(examples, &rounded, scale)
            );
            say!("{line}");
            header.push_str(&format!("# {}\n", line.trim_start()));
        }
    }
    let text = header + &fitted_weights.to_text();
    write_atomically(&args.out, text.as_bytes())
        .with_context(|| format!("writing {}", args.out.display()))?;
    say!("fitted weights written to {}", args.out.display());
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn moves(text: &str) -> Vec<Move> {
        text.split_whitespace()
            .map(|m| Move::Place(m.parse().expect("test move")))
            .collect()
    }

    #[test]
    fn games_that_share_an_opening_are_split_together() {
        let opening = "h8 h9 h10 j10 l12";
        for holdout in [2, 3, 10] {
            let first = is_held_out(&moves(&format!("{opening} g8 g9")), holdout, 5);
            let second = is_held_out(&moves(&format!("{opening} f6 k11 k12")), holdout, 5);
            assert_eq!(first, second, "holdout {holdout}");
        }
        assert!(
            !is_held_out(&moves(opening), 0, 5),
            "holdout 0 keeps none out"
        );
        assert!(
            is_held_out(&moves(opening), 1, 5),
            "holdout 1 keeps all out"
        );
    }

    #[test]
    fn about_one_opening_in_holdout_is_kept_out() {
        let columns = "abcdefghijklmno";
        let mut held_out = 0;
        let mut openings = 0;
        for (x4, x5) in (0..15).flat_map(|a| (0..15).map(move |b| (a, b))) {
            if x4 == x5 {
                continue;
            }
            let (c4, c5) = (&columns[x4..=x4], &columns[x5..=x5]);
            openings += 1;
            held_out += usize::from(is_held_out(
                &moves(&format!("h8 h9 h10 {c4}2 {c5}14")),
                10,
                5,
            ));
        }
        // 210 openings: a tenth is 21; a fair split stays well within 10..=35.
        assert!((10..=35).contains(&held_out), "{held_out} of {openings}");
    }
}
