//! `gobang-lab tune`: SPSA (simultaneous perturbation stochastic approximation) over a few
//! evaluation weights, measured by self-play. Each iteration perturbs every tuned weight up or
//! down at random, plays the "plus" engine against the "minus" engine on pairs of openings (both
//! colours each), and moves the weights towards the side that scored better. At the end the tuned
//! weights play the starting ones in a check match, and both the weights file and the check
//! match's result are written, so that a tuning run is kept only if it measurably gains.

use crate::rng::Rng;
use crate::selfplay::{
    elo_text, play_match, EngineConfig, MatchSettings, NamedWeights, PlayerSpec, Tally,
};
use anyhow::{bail, Context};
use clap::Args;
use gobang::engine::Weights;
use gobang::game::openings::standard_openings;
use gobang::game::record::write_atomically;
use gobang::rules::{Rule, Shape};
use std::path::PathBuf;
use std::time::{Duration, Instant};

#[derive(Args, Debug)]
pub struct TuneArgs {
    /// Weights to tune, as `own.<Shape>` or `opp.<Shape>` (shapes as in a weights file)
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "own.OpenTwo,own.Three,own.OpenThree,own.Four,opp.OpenTwo,opp.Three,opp.OpenThree,opp.Four"
    )]
    pub params: Vec<String>,
    /// Starting weights file (default: the engine's built-in weights)
    #[arg(long)]
    pub start: Option<PathBuf>,
    /// Where to write the tuned weights
    #[arg(long, default_value = "tuned-weights.txt")]
    pub out: PathBuf,
    /// SPSA iterations
    #[arg(long, default_value_t = 20)]
    pub iterations: usize,
    /// Opening pairs (each opening from both sides) per iteration
    #[arg(long, default_value_t = 4)]
    pub pairs: usize,
    /// Node limit per move (deterministic and independent of machine load)
    #[arg(long, default_value_t = 20_000)]
    pub nodes: u64,
    /// Depth limit per move, if any
    #[arg(long)]
    pub depth: Option<u32>,
    /// Time cap per move in milliseconds (a safety net; the node limit normally ends the search)
    #[arg(long, default_value_t = 2000)]
    pub move_time_ms: u64,
    /// Perturbation, relative to each weight (SPSA c)
    #[arg(long, default_value_t = 0.15)]
    pub perturb: f64,
    /// Step: how many perturbations a clean sweep moves a weight (SPSA a)
    #[arg(long, default_value_t = 0.5)]
    pub rate: f64,
    /// Games of the final check match, tuned against start (0 skips it)
    #[arg(long, default_value_t = 52)]
    pub check_games: usize,
    /// Random seed for the perturbations
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Games played at the same time
    #[arg(long, default_value_t = 1)]
    pub threads: usize,
    /// Rule: renju, standard or freestyle
    #[arg(long, default_value = "renju")]
    pub rule: Rule,
}

/// Which weight a tuned parameter is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Param {
    own: bool,
    shape: Shape,
}

impl Param {
    fn parse(text: &str) -> anyhow::Result<Param> {
        let (side, shape) = text
            .split_once('.')
            .with_context(|| format!("'{text}' is not side.Shape (for example own.OpenThree)"))?;
        let own = match side {
            "own" => true,
            "opp" => false,
            other => bail!("'{other}' in '{text}' is not own or opp"),
        };
        let shape = Shape::ALL
            .into_iter()
            .find(|s| format!("{s:?}") == shape)
            .with_context(|| format!("unknown shape '{shape}' in '{text}'"))?;
        Ok(Param { own, shape })
    }

    /// The weight when Black is to move early in the game (SPSA tunes both colours' and both
    /// stages' together).
    fn get(self, weights: &Weights) -> i32 {
        let black = &weights.to_move[0];
        let table = if self.own { &black.own } else { &black.opp };
        table[self.shape as usize]
    }

    /// Sets the weight for both colours to move, in every stage of the game.
    fn set(self, weights: &mut Weights, value: i32) {
        let late = weights
            .late
            .iter_mut()
            .flat_map(|late| late.to_move.iter_mut());
        for side in weights.to_move.iter_mut().chain(late) {
            let table = if self.own {
                &mut side.own
            } else {
                &mut side.opp
            };
            table[self.shape as usize] = value;
        }
    }

    fn name(self) -> String {
        format!("{}.{:?}", if self.own { "own" } else { "opp" }, self.shape)
    }
}

fn weights_with(base: &Weights, params: &[Param], values: &[f64]) -> Weights {
    let mut weights = base.clone();
    for (param, value) in params.iter().zip(values) {
        param.set(&mut weights, value.round().max(0.0) as i32);
    }
    weights
}

fn engine(name: &str, weights: Weights, args: &TuneArgs) -> PlayerSpec {
    PlayerSpec::Engine(EngineConfig {
        depth: args.depth,
        nodes: Some(args.nodes),
        hash_mb: Some(16),
        weights: Some(NamedWeights {
            name: name.to_string(),
            weights: Box::new(weights),
        }),
        ..EngineConfig::default()
    })
}

fn tally_text(tally: &Tally) -> String {
    let (elo, low, high) = tally.elo();
    format!(
        "{} games, +{} ={} -{}, score {:.1}%, Elo {} (95% {} .. {})",
        tally.games(),
        tally.a_wins,
        tally.draws,
        tally.b_wins,
        100.0 * tally.score(),
        elo_text(elo),
        elo_text(low),
        elo_text(high)
    )
}

/// The `tune` subcommand.
pub fn run(args: TuneArgs) -> anyhow::Result<()> {
    let params = args
        .params
        .iter()
        .map(|p| Param::parse(p))
        .collect::<anyhow::Result<Vec<_>>>()?;
    if params.is_empty() {
        bail!("no weights to tune");
    }
    let start = match &args.start {
        Some(path) => Weights::load(path).with_context(|| format!("reading {}", path.display()))?,
        None => Weights::default(),
    };
    let openings = standard_openings().to_vec();
    let mut theta: Vec<f64> = params.iter().map(|p| f64::from(p.get(&start))).collect();
    let mut rng = Rng::new(args.seed);
    let settings_for = |openings| MatchSettings {
        rule: args.rule,
        move_time: Duration::from_millis(args.move_time_ms),
        grace: Duration::from_millis(250),
        match_time: None,
        openings,
        rounds: 1,
        max_games: None,
        threads: args.threads,
        records: None,
    };
    let names: Vec<String> = params.iter().map(|p| p.name()).collect();
    say!("tuning {} by SPSA", names.join(", "));
    say!(
        "{} iterations x {} opening pairs, {} nodes per move{}, {} rule",
        args.iterations,
        args.pairs,
        args.nodes,
        args.depth.map_or(String::new(), |d| format!(", depth {d}")),
        args.rule.name()
    );
    say!("start: {}", values_text(&theta));
    let started = Instant::now();
    // Standard SPSA gain sequences (Spall): a_k = a / (k + 1 + A)^0.602, c_k = c / (k + 1)^0.101.
    let stability = (args.iterations as f64 / 10.0).max(1.0);
    for k in 0..args.iterations {
        let kf = k as f64;
        let c_k = args.perturb / (kf + 1.0).powf(0.101);
        let a_k = args.rate * (1.0 + stability).powf(0.602) / (kf + 1.0 + stability).powf(0.602);
        let delta: Vec<f64> = params.iter().map(|_| rng.sign()).collect();
        let steps: Vec<f64> = theta.iter().map(|t| (t.abs() * c_k).max(1.0)).collect();
        let plus: Vec<f64> = (0..params.len())
            .map(|i| theta[i] + steps[i] * delta[i])
            .collect();
        let minus: Vec<f64> = (0..params.len())
            .map(|i| theta[i] - steps[i] * delta[i])
            .collect();
        let chosen = (0..args.pairs)
            .map(|j| openings[(k * args.pairs + j) % openings.len()].clone())
            .collect();
        let tally = play_match(
            &engine("plus", weights_with(&start, &params, &plus), &args),
            &engine("minus", weights_with(&start, &params, &minus), &args),
            &settings_for(chosen),
            &mut |_| {},
        )?;
        let gradient = 2.0 * tally.score() - 1.0;
        for i in 0..params.len() {
            theta[i] = (theta[i] + a_k * gradient * steps[i] * delta[i]).max(0.0);
        }
        say!(
            "iteration {:>3}: plus vs minus +{} ={} -{} -> {}  ({:.0} s)",
            k + 1,
            tally.a_wins,
            tally.draws,
            tally.b_wins,
            values_text(&theta),
            started.elapsed().as_secs_f64()
        );
    }
    let tuned = weights_with(&start, &params, &theta);
    let mut summary = format!(
        "# gobang-lab tune: SPSA over {} ({} iterations x {} opening pairs, {} nodes per move, {} rule, seed {})\n",
        names.join(", "),
        args.iterations,
        args.pairs,
        args.nodes,
        args.rule.name(),
        args.seed
    );
    if args.check_games > 0 {
        let check = MatchSettings {
            rounds: args.check_games.div_ceil(2 * openings.len()),
            max_games: Some(args.check_games),
            ..settings_for(openings.clone())
        };
        let tally = play_match(
            &engine("tuned", tuned.clone(), &args),
            &engine("start", start.clone(), &args),
            &check,
            &mut |_| {},
        )?;
        let line = format!("check match, tuned vs start: {}", tally_text(&tally));
        say!("{line}");
        summary.push_str(&format!("# {line}\n"));
    }
    for (param, value) in params.iter().zip(&theta) {
        let line = format!(
            "{}: {} -> {}",
            param.name(),
            param.get(&start),
            value.round().max(0.0)
        );
        say!("{line}");
        summary.push_str(&format!("# {line}\n"));
    }
    write_atomically(&args.out, (summary + &tuned.to_text()).as_bytes())
        .with_context(|| format!("writing {}", args.out.display()))?;
    say!(
        "wrote {} ({:.0} s)",
        args.out.display(),
        started.elapsed().as_secs_f64()
    );
    Ok(())
}

fn values_text(values: &[f64]) -> String {
    let rounded: Vec<String> = values.iter().map(|v| format!("{v:.0}")).collect();
    rounded.join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn params_parse_and_address_weights() {
        let param = Param::parse("opp.OpenThree").unwrap();
        assert_eq!(param.name(), "opp.OpenThree");
        let mut weights = Weights::default();
        param.set(&mut weights, 77);
        assert_eq!(weights.to_move[0].opp[Shape::OpenThree as usize], 77);
        assert_eq!(weights.to_move[1].opp[Shape::OpenThree as usize], 77);
        assert_eq!(param.get(&weights), 77);
        assert!(Param::parse("mine.OpenThree").is_err());
        assert!(Param::parse("own.Seven").is_err());
        assert!(Param::parse("OpenThree").is_err());
    }
}
