//! The evaluation's optional network: one hidden layer of ReLU units over the side to move's
//! layer 3 counts, added to a stage's linear sum ([`super::eval`]).
//!
//! A weighted sum values each shape the same whatever else is on the board; the network adds
//! what the combinations are worth (two open threes for the side to move are more than twice
//! one). Its inputs are the counts the linear sum weighs, seen from the side to move: its own
//! shape counts, the opponent's shape counts, its own pair counts and the opponent's pair counts
//! ([`INPUTS`] in all, the order of one colour's block of [`super::eval::Weights::to_vector`]),
//! with the same renju forbidden shapes left out for Black. One network per colour to move, as
//! for the weights; the output is in evaluation units. Most counts are zero, so the first layer
//! adds one row per non-zero count (a few dozen rows of `hidden` numbers a position).
//!
//! In a weights file a network is one line per hidden unit, `net.<colour>.unit <n> <bias> <out>
//! <w0> ... <w137>` (the unit's bias, its output weight and its weight for each input), and one
//! `net.<colour>.out_bias <value>` line; `late.net.` lines give the late stage's network.

use super::eval::{COLOUR_NAMES, SIDE_COUNT};
use crate::rules::shape::PAIR_COUNT;
use crate::rules::{Board, Color, Shape};
use std::fmt::Write as _;

const SHAPES: usize = Shape::ALL.len();
/// Number of inputs: own shapes, opponent shapes, own pairs, opponent pairs (one colour's block
/// of the evaluation's weights).
pub const INPUTS: usize = SIDE_COUNT;
/// The most hidden units a network may have (the first layer's sums live on the stack).
pub const MAX_HIDDEN: usize = 64;

/// The network of one colour to move.
#[derive(Clone, Debug, PartialEq)]
pub struct ColourNetwork {
    /// Input-major first layer: input `i`'s weight to every unit at `[i * hidden..][..hidden]`.
    pub first: Vec<f32>,
    /// Each unit's bias.
    pub bias: Vec<f32>,
    /// Each unit's output weight, in evaluation units.
    pub out: Vec<f32>,
    /// Added to the output, in evaluation units.
    pub out_bias: f32,
}

/// One network per colour to move ([`Color::index`] order), all with the same number of units.
#[derive(Clone, Debug, PartialEq)]
pub struct Network {
    hidden: usize,
    to_move: [ColourNetwork; 2],
}

impl Network {
    /// A network from its two colours' layers, checked for consistent sizes.
    pub fn new(to_move: [ColourNetwork; 2]) -> Result<Network, String> {
        let hidden = to_move[0].bias.len();
        if hidden == 0 || hidden > MAX_HIDDEN {
            return Err(format!(
                "a network needs 1 to {MAX_HIDDEN} hidden units, not {hidden}"
            ));
        }
        for (name, colour) in COLOUR_NAMES.iter().zip(&to_move) {
            if colour.bias.len() != hidden
                || colour.out.len() != hidden
                || colour.first.len() != hidden * INPUTS
            {
                return Err(format!(
                    "the {name} network's layers do not match {hidden} hidden units of {INPUTS} inputs"
                ));
            }
        }
        Ok(Network { hidden, to_move })
    }

    pub fn hidden(&self) -> usize {
        self.hidden
    }

    /// The network used when `colour` is to move.
    pub fn colour(&self, colour: Color) -> &ColourNetwork {
        &self.to_move[colour.index()]
    }

    /// The output for `colour` to move from its non-zero inputs `(input, value)`: the plain
    /// definition, for tools and tests ([`Network::board_output`] is the engine's fast path).
    pub fn output(&self, colour: Color, inputs: &[(usize, f32)]) -> f32 {
        let net = self.colour(colour);
        let mut total = net.out_bias;
        for unit in 0..self.hidden {
            let sum: f32 = net.bias[unit]
                + inputs
                    .iter()
                    .map(|&(input, value)| value * net.first[input * self.hidden + unit])
                    .sum::<f32>();
            total += sum.max(0.0) * net.out[unit];
        }
        total
    }

    /// The output for the side to move of `board`, straight from the board's counts. The
    /// inputs the evaluation leaves out (see [`Network::keeping_inputs`]) must have zero rows.
    #[inline]
    pub fn board_output(&self, board: &Board) -> f32 {
        let me = board.side_to_move();
        let net = &self.to_move[me.index()];
        let hidden = self.hidden;
        let mut sums = [0f32; MAX_HIDDEN];
        let sums = &mut sums[..hidden];
        sums.copy_from_slice(&net.bias);
        let mut add = |input: usize, count: u16| {
            if count != 0 {
                let count = f32::from(count);
                let row = &net.first[input * hidden..][..hidden];
                for (sum, weight) in sums.iter_mut().zip(row) {
                    *sum += count * weight;
                }
            }
        };
        for (side, color) in [me, me.opponent()].into_iter().enumerate() {
            for (index, &shape) in Shape::ALL.iter().enumerate().skip(1) {
                add(side * SHAPES + index, board.shape_count(color, shape));
            }
            let pairs = 2 * SHAPES + side * PAIR_COUNT;
            for (index, &count) in board.pair_counts(color).iter().enumerate().skip(1) {
                add(pairs + index, u16::from(count));
            }
        }
        sums.iter()
            .zip(&net.out)
            .map(|(sum, out)| sum.max(0.0) * out)
            .sum::<f32>()
            + net.out_bias
    }

    /// This network with the rows of the inputs `keep(colour to move, input)` rejects set to
    /// zero, so that [`Network::board_output`] ignores those counts.
    pub fn keeping_inputs(&self, keep: impl Fn(Color, usize) -> bool) -> Network {
        let mut network = self.clone();
        for colour in [Color::Black, Color::White] {
            let net = &mut network.to_move[colour.index()];
            for input in 0..INPUTS {
                if !keep(colour, input) {
                    net.first[input * self.hidden..][..self.hidden].fill(0.0);
                }
            }
        }
        network
    }

    /// Writes the network's lines, names prefixed with `prefix` (`late.` for the late stage).
    pub fn write(&self, text: &mut String, prefix: &str) {
        for (name, net) in COLOUR_NAMES.iter().zip(&self.to_move) {
            for unit in 0..self.hidden {
                let _ = write!(
                    text,
                    "{prefix}net.{name}.unit {unit} {} {}",
                    net.bias[unit], net.out[unit]
                );
                for input in 0..INPUTS {
                    let _ = write!(text, " {}", net.first[input * self.hidden + unit]);
                }
                text.push('\n');
            }
            let _ = writeln!(text, "{prefix}net.{name}.out_bias {}", net.out_bias);
        }
    }
}

/// A network being read from a weights file, line by line.
#[derive(Clone, Debug, Default)]
pub struct NetworkReader {
    /// Per colour: each unit's bias, output weight and input weights, in unit order.
    units: [Vec<(f32, f32, Vec<f32>)>; 2],
    out_bias: [f32; 2],
}

impl NetworkReader {
    /// Reads one line whose name (after `net.`) is `what` (`black.unit`, `white.out_bias`, ...)
    /// and whose values are `values`.
    pub fn read(&mut self, what: &str, values: &[&str]) -> Result<(), String> {
        let (colour, field) = what.split_once('.').ok_or_else(|| {
            format!("'net.{what}' is not 'net.<colour>.unit' or 'net.<colour>.out_bias'")
        })?;
        let colour = COLOUR_NAMES
            .iter()
            .position(|&name| name == colour)
            .ok_or_else(|| format!("unknown colour '{colour}' (black or white)"))?;
        let numbers = values
            .iter()
            .map(|value| {
                value
                    .parse::<f32>()
                    .ok()
                    .filter(|number| number.is_finite())
                    .ok_or_else(|| format!("'{value}' is not a number"))
            })
            .collect::<Result<Vec<f32>, String>>()?;
        match field {
            "out_bias" => match numbers[..] {
                [value] => self.out_bias[colour] = value,
                _ => return Err("'out_bias' takes one value".to_string()),
            },
            "unit" => {
                let expected = self.units[colour].len();
                match numbers[..] {
                    [unit, bias, out, ref weights @ ..] if weights.len() == INPUTS => {
                        if unit != expected as f32 {
                            return Err(format!("unit {unit} out of order (expected {expected})"));
                        }
                        self.units[colour].push((bias, out, weights.to_vec()));
                    }
                    _ => {
                        return Err(format!(
                            "a unit line needs its number, bias, output weight and {INPUTS} input weights"
                        ))
                    }
                }
            }
            other => {
                return Err(format!(
                    "unknown network field '{other}' (unit or out_bias)"
                ))
            }
        }
        Ok(())
    }

    /// The network the lines described.
    pub fn finish(self) -> Result<Network, String> {
        let [black, white] = self.units;
        let colour = |units: Vec<(f32, f32, Vec<f32>)>, out_bias: f32| {
            let hidden = units.len();
            let mut first = vec![0.0; hidden * INPUTS];
            for (unit, (_, _, weights)) in units.iter().enumerate() {
                for (input, &weight) in weights.iter().enumerate() {
                    first[input * hidden + unit] = weight;
                }
            }
            ColourNetwork {
                first,
                bias: units.iter().map(|unit| unit.0).collect(),
                out: units.iter().map(|unit| unit.1).collect(),
                out_bias,
            }
        };
        Network::new([
            colour(black, self.out_bias[0]),
            colour(white, self.out_bias[1]),
        ])
    }
}
