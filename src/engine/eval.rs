//! Static evaluation: a weighted sum of the layer 3 counts of both sides.
//!
//! The board keeps, per side, how many empty points would make each combined [`Shape`]
//! (five, open four, four-three, open three, ...) and how many have each [`LineShapePair`] (the
//! point's two strongest line shapes, a finer class: a four with an open two beside it is worth
//! more than a bare four), and updates those counts on every move and undo. A weighted sum over
//! them is therefore incremental for free: evaluating costs 138 multiplications whatever the
//! position. A point's value is its shape's weight plus its pair's weight. Weights differ for the
//! side to move (its threats are tempo) and for the opponent (its threats must be answered), and
//! can differ by the colour to move (under renju, Black and White play different games). Black's
//! double-three, double-four and overline points are forbidden under renju, so they carry no
//! weight for Black. The weights may also change with the stage of the game: from a number of
//! stones on (20 in the defaults) a late set applies, fitted to the positions of that stage.
//!
//! [`Weights`] can be read from and written to a small text file (`black.own.OpenThree 40` lines
//! for shapes, `white.opp.Four+OpenTwo 12` for pairs, `late.from 20` and `late.`-prefixed lines
//! for a late stage), so that tuning tools can measure weights rather than guess them; the
//! defaults are such a file, `data/weights/default.txt`, fitted to games by `gobang-lab fit`.
//!
//! A stage may also carry a small [`Network`] over the same counts, whose output is added to the
//! sum (`net.` lines in the file; `gobang-lab fit --hidden` fits one). The default weights have
//! none.

use super::network::{Network, NetworkReader};
use crate::rules::shape::PAIR_COUNT;
use crate::rules::{Board, Color, LineShapePair, Rule, Shape};
use std::fmt::Write as _;
use std::path::Path;
use std::sync::OnceLock;

/// What each shape and pair is worth when one colour is to move.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SideWeights {
    /// Value of one empty point where the side to move would make the shape.
    pub own: [i32; SHAPE_WEIGHTS],
    /// Value (subtracted) of one empty point where the opponent would make the shape.
    pub opp: [i32; SHAPE_WEIGHTS],
    /// Added to `own` per [`LineShapePair`] (by index).
    pub own_pair: [i32; PAIR_COUNT],
    /// Added to `opp` per [`LineShapePair`] (by index).
    pub opp_pair: [i32; PAIR_COUNT],
}

impl SideWeights {
    fn zero() -> SideWeights {
        SideWeights {
            own: [0; SHAPE_WEIGHTS],
            opp: [0; SHAPE_WEIGHTS],
            own_pair: [0; PAIR_COUNT],
            opp_pair: [0; PAIR_COUNT],
        }
    }

    /// The shape and pair tables of `own` or `opp`.
    fn side_mut(&mut self, own: bool) -> (&mut [i32], &mut [i32]) {
        if own {
            (&mut self.own, &mut self.own_pair)
        } else {
            (&mut self.opp, &mut self.opp_pair)
        }
    }
}

/// Evaluation weights for each colour to move ([`Color::index`] order: Black, then White). Under
/// renju the two colours play different games (Black's forbidden points), so their weights may
/// differ, and the default ones do (each colour's were fitted to its own positions). The weights
/// may also change with the stage of the game: from a number of stones on, a late set applies
/// (fitted to the positions of that stage alone).
#[derive(Clone, Debug, PartialEq)]
pub struct Weights {
    /// The weights of every position, or with a late stage of those before it.
    pub to_move: [SideWeights; 2],
    /// A network added to `to_move`'s sum ([`network`](super::network)), if any.
    pub network: Option<Network>,
    pub late: Option<LateStage>,
}

/// The weights of the positions with at least `from_stones` stones.
#[derive(Clone, Debug, PartialEq)]
pub struct LateStage {
    pub from_stones: usize,
    pub to_move: [SideWeights; 2],
    /// A network added to the late stage's sum, if any.
    pub network: Option<Network>,
}

/// A stage of the game, for the tools that fit one stage's weights.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    /// Every position, or those before the late stage.
    Early,
    /// The positions with at least the late stage's number of stones.
    Late,
}

impl std::str::FromStr for Stage {
    type Err = String;

    fn from_str(text: &str) -> Result<Stage, String> {
        match text {
            "early" => Ok(Stage::Early),
            "late" => Ok(Stage::Late),
            other => Err(format!("unknown stage '{other}' (early or late)")),
        }
    }
}

/// The default weights, as a weights file (written by `gobang-lab fit`; see its header).
const DEFAULT_WEIGHTS: &str = include_str!("../../data/weights/default.txt");

impl Default for Weights {
    /// The fitted weights of `data/weights/default.txt`.
    fn default() -> Weights {
        static PARSED: OnceLock<Weights> = OnceLock::new();
        PARSED
            .get_or_init(|| {
                Weights::zero()
                    .with_text(DEFAULT_WEIGHTS)
                    .expect("data/weights/default.txt is a valid weights file (unit-tested)")
            })
            .clone()
    }
}

/// A weights file that could not be read.
#[derive(Debug, thiserror::Error)]
pub enum WeightsError {
    #[error("line {line}: {reason}")]
    Syntax { line: usize, reason: String },
    #[error("cannot read weights file: {0}")]
    Io(#[from] std::io::Error),
}

fn shape_name(shape: Shape) -> String {
    format!("{shape:?}")
}

fn pair_name(pair: LineShapePair) -> String {
    format!("{:?}+{:?}", pair.strongest, pair.second)
}

/// Which weight a name in a weights file is: a shape's or a pair's, by index.
enum WeightName {
    Shape(usize),
    Pair(usize),
}

impl WeightName {
    fn parse(name: &str) -> Option<WeightName> {
        if name.contains('+') {
            LineShapePair::all()
                .position(|pair| pair_name(pair) == name)
                .map(WeightName::Pair)
        } else {
            Shape::ALL
                .iter()
                .position(|&s| shape_name(s) == name)
                .map(WeightName::Shape)
        }
    }
}

/// The colours' names in weights files, in [`Color::index`] order.
pub(super) const COLOUR_NAMES: [&str; 2] = ["black", "white"];

impl Weights {
    fn zero() -> Weights {
        Weights {
            to_move: [SideWeights::zero(), SideWeights::zero()],
            network: None,
            late: None,
        }
    }

    /// The text form: one `<colour>.<side>.<Shape> <value>` line per shape weight and one
    /// `<colour>.<side>.<Line>+<Line> <value>` line per pair weight; colour `black` or `white`
    /// (the colour to move), side `own` or `opp`. A late stage follows as a `late.from <stones>`
    /// line and the same lines prefixed with `late.`. `#` starts a comment.
    pub fn to_text(&self) -> String {
        let mut text = String::from(
            "# gobang evaluation weights: <colour>.<side>.<shape> <value>, \
             <colour>.<side>.<line>+<line> <value>; late.from <stones>, late.<colour>...\n",
        );
        write_stage(&mut text, "", &self.to_move);
        if let Some(network) = &self.network {
            network.write(&mut text, "");
        }
        if let Some(late) = &self.late {
            let _ = writeln!(text, "late.from {}", late.from_stones);
            write_stage(&mut text, "late.", &late.to_move);
            if let Some(network) = &late.network {
                network.write(&mut text, "late.");
            }
        }
        text
    }

    /// Reads the text form. Weights not mentioned keep their default values; a name without a
    /// colour (`own.OpenThree 40`, as older files have) sets both colours. A file has a late
    /// stage only if it says so (`late.from`); the late weights start as the ones above that line.
    pub fn from_text(text: &str) -> Result<Weights, WeightsError> {
        let one_stage = Weights {
            network: None,
            late: None,
            ..Weights::default()
        };
        one_stage.with_text(text)
    }

    /// The weights of one stage (without a late stage, the late positions use the early weights).
    pub fn stage(&self, stage: Stage) -> &[SideWeights; 2] {
        match (stage, &self.late) {
            (Stage::Late, Some(late)) => &late.to_move,
            _ => &self.to_move,
        }
    }

    /// The stone counts of the positions whose weights are `stage`'s.
    pub fn stage_stones(&self, stage: Stage) -> std::ops::RangeInclusive<usize> {
        let late_from = self
            .late
            .as_ref()
            .map_or(usize::MAX, |late| late.from_stones);
        match stage {
            Stage::Early => 0..=late_from.saturating_sub(1),
            Stage::Late => late_from..=usize::MAX,
        }
    }

    /// These weights with the ones `text` names replaced.
    fn with_text(mut self, text: &str) -> Result<Weights, WeightsError> {
        // The networks being read (early, late) and the line of each one's last line.
        let mut networks: [Option<(NetworkReader, usize)>; 2] = [None, None];
        for (number, raw) in text.lines().enumerate() {
            let line = raw.split('#').next().unwrap_or("").trim();
            if line.is_empty() {
                continue;
            }
            let syntax = |reason: String| WeightsError::Syntax {
                line: number + 1,
                reason,
            };
            let mut words = line.split_whitespace();
            let name = words.next().unwrap_or("");
            let (late_line, unstaged) = match name.strip_prefix("late.") {
                Some(rest) => (true, rest),
                None => (false, name),
            };
            if let Some(what) = unstaged.strip_prefix("net.") {
                if late_line && self.late.is_none() {
                    return Err(syntax(format!("'{name}' before a 'late.from' line")));
                }
                let values: Vec<&str> = words.collect();
                let (reader, last_line) = networks[usize::from(late_line)]
                    .get_or_insert_with(|| (NetworkReader::default(), 0));
                *last_line = number + 1;
                reader.read(what, &values).map_err(syntax)?;
                continue;
            }
            let value: i32 = words
                .next()
                .ok_or_else(|| syntax(format!("'{name}' has no value")))?
                .parse()
                .map_err(|_| syntax(format!("'{name}' needs an integer value")))?;
            if words.next().is_some() {
                return Err(syntax(
                    "expected '<colour>.<side>.<shape> <value>'".to_string(),
                ));
            }
            let (stage, name) = match (late_line, unstaged) {
                (true, "from") => {
                    let from_stones = usize::try_from(value)
                        .ok()
                        .filter(|&stones| stones > 0)
                        .ok_or_else(|| {
                            syntax(format!("late.from {value}: need 1 stone or more"))
                        })?;
                    self.late = Some(LateStage {
                        from_stones,
                        to_move: self.to_move.clone(),
                        network: None,
                    });
                    continue;
                }
                (true, rest) => match &mut self.late {
                    Some(late) => (&mut late.to_move, rest),
                    None => return Err(syntax(format!("'{name}' before a 'late.from' line"))),
                },
                (false, name) => (&mut self.to_move, name),
            };
            let parts: Vec<&str> = name.split('.').collect();
            let (colours, side, shape) = match parts[..] {
                [side, shape] => (&[0, 1][..], side, shape),
                [colour, side, shape] => match COLOUR_NAMES.iter().position(|&c| c == colour) {
                    Some(index) => (&[0, 1][index..=index], side, shape),
                    None => {
                        return Err(syntax(format!(
                            "unknown colour '{colour}' (black or white)"
                        )))
                    }
                },
                _ => return Err(syntax(format!("'{name}' is not '<colour>.<side>.<shape>'"))),
            };
            let weight = WeightName::parse(shape)
                .ok_or_else(|| syntax(format!("unknown shape or pair '{shape}'")))?;
            let own = match side {
                "own" => true,
                "opp" => false,
                other => return Err(syntax(format!("unknown side '{other}' (own or opp)"))),
            };
            for &colour in colours {
                let (shapes, pairs) = stage[colour].side_mut(own);
                match weight {
                    WeightName::Shape(index) => shapes[index] = value,
                    WeightName::Pair(index) => pairs[index] = value,
                }
            }
        }
        for (stage, read) in [Stage::Early, Stage::Late].into_iter().zip(networks) {
            if let Some((reader, last_line)) = read {
                let network = reader.finish().map_err(|reason| WeightsError::Syntax {
                    line: last_line,
                    reason,
                })?;
                self = self.with_network(stage, Some(network));
            }
        }
        Ok(self)
    }

    /// The network of one stage, if it has one (without a late stage, the late positions use
    /// the early one).
    pub fn stage_network(&self, stage: Stage) -> Option<&Network> {
        match (stage, &self.late) {
            (Stage::Late, Some(late)) => late.network.as_ref(),
            _ => self.network.as_ref(),
        }
    }

    /// These weights with one stage's network replaced (without a late stage, [`Stage::Late`]
    /// sets the early network).
    pub fn with_network(&self, stage: Stage, network: Option<Network>) -> Weights {
        let mut weights = self.clone();
        match (stage, &mut weights.late) {
            (Stage::Late, Some(late)) => late.network = network,
            _ => weights.network = network,
        }
        weights
    }

    /// Number of entries of [`Weights::to_vector`] and [`features`].
    pub const COUNT: usize = 2 * SIDE_COUNT;

    /// Every weight of one stage in one vector: for Black to move then White to move, own
    /// shapes, opponent shapes, own pairs, opponent pairs.
    pub fn to_vector(&self, stage: Stage) -> Vec<f64> {
        self.stage(stage)
            .iter()
            .flat_map(|w| [&w.own[..], &w.opp, &w.own_pair, &w.opp_pair].concat())
            .map(f64::from)
            .collect()
    }

    /// Whether entry `index` of [`Weights::to_vector`] is a pair weight (not a shape weight).
    pub fn is_pair_index(index: usize) -> bool {
        index < Weights::COUNT && index % SIDE_COUNT >= 2 * SHAPE_WEIGHTS
    }

    /// These weights with one stage's set from a vector in [`Weights::to_vector`]'s order,
    /// rounded to integers (without a late stage, [`Stage::Late`] sets the early weights).
    pub fn with_vector(&self, stage: Stage, vector: &[f64]) -> Weights {
        let mut weights = self.clone();
        let sides = match (stage, &mut weights.late) {
            (Stage::Late, Some(late)) => &mut late.to_move,
            _ => &mut weights.to_move,
        };
        let mut values = vector.iter();
        for side in sides.iter_mut() {
            let targets: [&mut [i32]; 4] = [
                &mut side.own,
                &mut side.opp,
                &mut side.own_pair,
                &mut side.opp_pair,
            ];
            for target in targets {
                for (slot, value) in target.iter_mut().zip(values.by_ref()) {
                    *slot = value.round() as i32;
                }
            }
        }
        weights
    }

    pub fn load(path: &Path) -> Result<Weights, WeightsError> {
        Weights::from_text(&std::fs::read_to_string(path)?)
    }
}

/// Writes one stage's weight lines, names prefixed with `prefix`.
fn write_stage(text: &mut String, prefix: &str, stage: &[SideWeights; 2]) {
    for (colour, weights) in COLOUR_NAMES.iter().zip(stage) {
        for (side, values, pairs) in [
            ("own", &weights.own, &weights.own_pair),
            ("opp", &weights.opp, &weights.opp_pair),
        ] {
            for shape in Shape::ALL {
                let name = shape_name(shape);
                let _ = writeln!(
                    text,
                    "{prefix}{colour}.{side}.{name} {}",
                    values[shape as usize]
                );
            }
            for pair in LineShapePair::all() {
                let name = pair_name(pair);
                let _ = writeln!(
                    text,
                    "{prefix}{colour}.{side}.{name} {}",
                    pairs[pair.index()]
                );
            }
        }
    }
}

const SHAPE_WEIGHTS: usize = Shape::ALL.len();
/// Number of weights of one colour to move ([`SideWeights`]).
pub const SIDE_COUNT: usize = 2 * (SHAPE_WEIGHTS + PAIR_COUNT);

/// The evaluation is linear in the weights: the dot product of this vector with
/// [`Weights::to_vector`] is [`Evaluator::evaluate`] (before clamping). Entry `i` is how many times
/// weight `i` counts for the side to move (negative for the opponent's weights; zero for the
/// weights of the colour not to move), with the renju forbidden shapes and pairs left out for
/// Black, and the empty points with nothing at all (shape `None`, pair `None+None`) not counted.
/// Tuning tools fit weights with it.
pub fn features(board: &Board) -> Vec<f64> {
    let me = board.side_to_move();
    let rule = board.rule();
    let mut vector = vec![0.0; me.index() * SIDE_COUNT];
    for (color, sign) in [(me, 1.0), (me.opponent(), -1.0)] {
        vector.extend(Shape::ALL.iter().map(|&shape| {
            if weighed(rule, color, shape) {
                sign * f64::from(board.shape_count(color, shape))
            } else {
                0.0
            }
        }));
    }
    for (color, sign) in [(me, 1.0), (me.opponent(), -1.0)] {
        vector.extend(LineShapePair::all().map(|pair| {
            if weighed(rule, color, pair.shape()) {
                sign * f64::from(board.pair_count(color, pair))
            } else {
                0.0
            }
        }));
    }
    vector.resize(Weights::COUNT, 0.0);
    vector
}

/// The inputs of a [`Network`] for the side to move of `board`, the non-zero ones as
/// `(input, value)`: one colour's block of [`features`] without its signs.
pub fn network_inputs(board: &Board) -> Vec<(usize, f32)> {
    let block = board.side_to_move().index() * SIDE_COUNT;
    features(board)[block..block + SIDE_COUNT]
        .iter()
        .enumerate()
        .filter(|(_, value)| **value != 0.0)
        .map(|(input, value)| (input, value.abs() as f32))
        .collect()
}

/// Whose counts network input `input` is when `me` is to move (see
/// [`INPUTS`](super::network::INPUTS)).
fn input_colour(me: Color, input: usize) -> Color {
    let own = if input < 2 * SHAPE_WEIGHTS {
        input < SHAPE_WEIGHTS
    } else {
        input < 2 * SHAPE_WEIGHTS + PAIR_COUNT
    };
    if own {
        me
    } else {
        me.opponent()
    }
}

/// The combined shape network input `input` counts (for a pair, the pair's own shape).
fn input_shape(input: usize) -> Shape {
    if input < 2 * SHAPE_WEIGHTS {
        Shape::ALL[input % SHAPE_WEIGHTS]
    } else {
        LineShapePair::from_index((input - 2 * SHAPE_WEIGHTS) % PAIR_COUNT).shape()
    }
}

/// Raises pair weights in a [`Weights::to_vector`] vector so that no point is worth less than
/// nothing to its side: for each colour to move, side and pair, shape weight + pair weight >= 0.
pub fn raise_negative_point_values(vector: &mut [f64]) {
    for (colour, side) in [(0, 0), (0, 1), (1, 0), (1, 1)] {
        let shapes = colour * SIDE_COUNT + side * SHAPE_WEIGHTS;
        let pairs = colour * SIDE_COUNT + 2 * SHAPE_WEIGHTS + side * PAIR_COUNT;
        for pair in LineShapePair::all().skip(1) {
            let shape_weight = vector[shapes + pair.shape() as usize];
            let pair_weight = &mut vector[pairs + pair.index()];
            *pair_weight = pair_weight.max(-shape_weight);
        }
    }
}

/// Whether `color`'s points of `shape` carry weight under `rule`: not the points with nothing,
/// nor Black's renju-forbidden double-three, double-four and overline points.
fn weighed(rule: Rule, color: Color, shape: Shape) -> bool {
    let forbidden = matches!(
        shape,
        Shape::DoubleThree | Shape::DoubleFour | Shape::Overline
    );
    shape != Shape::None && !(rule.has_forbidden(color) && forbidden)
}

/// Per-colour weight tables with the renju adjustments applied, ready for the hot path.
#[derive(Clone, Debug)]
struct Tables {
    /// `[side to move][colour whose counts are weighted][shape]`, signed from the side to move's
    /// point of view.
    table: [[[i32; Shape::ALL.len()]; 2]; 2],
    /// The same for pairs: `[side to move][colour][pair index]`.
    pair_table: [[[i32; PAIR_COUNT]; 2]; 2],
    /// The stage's network, with the inputs the sum leaves out zeroed.
    network: Option<Network>,
}

impl Tables {
    fn new(weights: &[SideWeights; 2], network: Option<&Network>, rule: Rule) -> Tables {
        let mut table = [[[0; Shape::ALL.len()]; 2]; 2];
        let mut pair_table = [[[0; PAIR_COUNT]; 2]; 2];
        for me in [Color::Black, Color::White] {
            let mine = &weights[me.index()];
            for color in [Color::Black, Color::White] {
                let (shapes, pairs, sign) = if color == me {
                    (&mine.own, &mine.own_pair, 1)
                } else {
                    (&mine.opp, &mine.opp_pair, -1)
                };
                for shape in Shape::ALL {
                    if weighed(rule, color, shape) {
                        table[me.index()][color.index()][shape as usize] =
                            sign * shapes[shape as usize];
                    }
                }
                for pair in LineShapePair::all() {
                    if weighed(rule, color, pair.shape()) {
                        pair_table[me.index()][color.index()][pair.index()] =
                            sign * pairs[pair.index()];
                    }
                }
            }
        }
        let network = network.map(|network| {
            network.keeping_inputs(|me, input| {
                weighed(rule, input_colour(me, input), input_shape(input))
            })
        });
        Tables {
            table,
            pair_table,
            network,
        }
    }
}

/// The weight tables of each stage of the game, ready for the hot path.
#[derive(Clone, Debug)]
pub struct Evaluator {
    early: Tables,
    late: Tables,
    /// Positions with at least this many stones use the late tables.
    late_from: usize,
}

impl Evaluator {
    pub fn new(weights: &Weights, rule: Rule) -> Evaluator {
        let early = Tables::new(&weights.to_move, weights.network.as_ref(), rule);
        match &weights.late {
            Some(late) => Evaluator {
                early,
                late: Tables::new(&late.to_move, late.network.as_ref(), rule),
                late_from: late.from_stones,
            },
            None => Evaluator {
                late: early.clone(),
                early,
                late_from: usize::MAX,
            },
        }
    }

    /// The evaluation of `board` for the side to move (positive is good for it).
    #[inline]
    pub fn evaluate(&self, board: &Board) -> i32 {
        let tables = if board.stone_count() >= self.late_from {
            &self.late
        } else {
            &self.early
        };
        let me = board.side_to_move();
        let mut total = 0;
        for color in [Color::Black, Color::White] {
            let weights = &tables.table[me.index()][color.index()];
            for shape in &Shape::ALL[1..] {
                total += weights[*shape as usize] * board.shape_count(color, *shape) as i32;
            }
            let pair_weights = &tables.pair_table[me.index()][color.index()];
            for (weight, &count) in pair_weights.iter().zip(board.pair_counts(color)).skip(1) {
                total += weight * count as i32;
            }
        }
        match &tables.network {
            Some(network) => total + network.board_output(board).round() as i32,
            None => total,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::network;

    #[test]
    fn text_round_trip() {
        let mut weights = Weights::default();
        weights.to_move[0].own[Shape::OpenThree as usize] = 123;
        weights.to_move[1].opp[Shape::Four as usize] = -7;
        weights.to_move[1].own_pair[5] = 11;
        weights.to_move[0].opp_pair[PAIR_COUNT - 1] = -3;
        assert!(weights.to_text().contains("white.own.OpenTwo+OpenTwo 11"));
        assert_eq!(Weights::from_text(&weights.to_text()).unwrap(), weights);
    }

    #[test]
    fn the_default_weights_file_is_complete() {
        let names = DEFAULT_WEIGHTS
            .lines()
            .filter(|l| !l.trim_start().starts_with('#') && !l.trim().is_empty())
            .count();
        let stages = 1 + usize::from(Weights::default().late.is_some());
        assert_eq!(names, stages * Weights::COUNT + stages - 1);
        assert_eq!(
            Weights::zero().with_text(DEFAULT_WEIGHTS).unwrap(),
            Weights::default()
        );
    }

    #[test]
    fn every_weights_file_kept_in_the_repository_loads() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/weights");
        let mut loaded = 0;
        for entry in std::fs::read_dir(&dir).expect("data/weights") {
            let path = entry.expect("a directory entry").path();
            let weights =
                Weights::load(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            assert_eq!(Weights::from_text(&weights.to_text()).unwrap(), weights);
            loaded += 1;
        }
        assert!(loaded >= 3, "default, default-s25 and spsa-run1 at least");
    }

    #[test]
    fn a_late_stage_reads_and_writes_with_its_own_weights() {
        let text = "black.own.OpenThree 50\nlate.from 20\nlate.black.own.OpenThree 70\n";
        let weights = Weights::from_text(text).unwrap();
        let late = weights.late.as_ref().expect("a late stage");
        assert_eq!(late.from_stones, 20);
        assert_eq!(weights.to_move[0].own[Shape::OpenThree as usize], 50);
        assert_eq!(late.to_move[0].own[Shape::OpenThree as usize], 70);
        // The late weights the file does not name start as the early ones above `late.from`.
        assert_eq!(late.to_move[1], weights.to_move[1]);
        assert_eq!(weights.stage_stones(Stage::Early), 0..=19);
        assert_eq!(weights.stage_stones(Stage::Late), 20..=usize::MAX);
        assert!(Weights::from_text("late.from 0\n").is_err());
        assert_eq!(Weights::from_text(&weights.to_text()).unwrap(), weights);
        // A file that does not mention a late stage has none, whatever the defaults have.
        assert_eq!(Weights::from_text("own.Five 3000\n").unwrap().late, None);
        let error = Weights::from_text("late.black.own.Five 1\n").unwrap_err();
        assert!(
            error.to_string().contains("before a 'late.from' line"),
            "{error}"
        );
        assert!(Weights::from_text("late.from -3\n").is_err());
    }

    #[test]
    fn a_name_without_colour_sets_both_colours() {
        let weights = Weights::from_text("own.OpenThree 55\nwhite.opp.Four+OpenTwo 9\n").unwrap();
        assert_eq!(weights.to_move[0].own[Shape::OpenThree as usize], 55);
        assert_eq!(weights.to_move[1].own[Shape::OpenThree as usize], 55);
        let pair = LineShapePair {
            strongest: crate::rules::LineShape::Four,
            second: crate::rules::LineShape::OpenTwo,
        };
        assert_eq!(weights.to_move[1].opp_pair[pair.index()], 9);
        assert_eq!(
            weights.to_move[0].opp_pair[pair.index()],
            Weights::default().to_move[0].opp_pair[pair.index()]
        );
    }

    #[test]
    fn bad_text_is_reported_with_its_line() {
        let error = Weights::from_text("own.Five 3\nown.Six 4\n").unwrap_err();
        assert!(error.to_string().starts_with("line 2"), "{error}");
        assert!(Weights::from_text("own.Five x").is_err());
        assert!(Weights::from_text("both.Five 1").is_err());
        assert!(Weights::from_text("red.own.Five 1").is_err());
        assert!(Weights::from_text("black.own.Five.x 1").is_err());
        assert!(Weights::from_text("own.Five 1 2").is_err());
    }

    #[test]
    fn features_dotted_with_the_weights_give_the_evaluation() {
        let mut weights = Weights::default();
        let late_from = 9;
        weights.late = Some(LateStage {
            from_stones: late_from,
            to_move: weights.to_move.clone(),
            network: None,
        });
        let late = weights.late.as_mut().map(|late| &mut late.to_move);
        for (stage, sides) in [&mut weights.to_move].into_iter().chain(late).enumerate() {
            for (colour, side) in sides.iter_mut().enumerate() {
                for (index, value) in side.own_pair.iter_mut().enumerate() {
                    *value = (index + colour + stage) as i32 % 7 - 3;
                }
                for (index, value) in side.opp_pair.iter_mut().enumerate() {
                    *value = (index + 2 * colour + 3 * stage) as i32 % 5;
                }
            }
        }
        assert_ne!(weights.to_move, weights.stage(Stage::Late).clone());
        for stage in [Stage::Early, Stage::Late] {
            assert_eq!(
                weights.with_vector(stage, &weights.to_vector(stage)),
                weights
            );
        }
        let pair_entries = (0..Weights::COUNT)
            .filter(|&i| Weights::is_pair_index(i))
            .count();
        assert_eq!(pair_entries, 4 * PAIR_COUNT);
        assert!(!Weights::is_pair_index(SIDE_COUNT + Shape::Four as usize));
        for rule in [Rule::Renju, Rule::Freestyle] {
            let evaluator = Evaluator::new(&weights, rule);
            let mut board = Board::new(rule);
            // A spiral of stones with threes, fours and (for Black in renju) forbidden points;
            // the late weights apply from the ninth stone on.
            for notation in [
                "h8", "h9", "i8", "i9", "g8", "j9", "g7", "g9", "f6", "k9", "j8", "f9", "e5",
            ] {
                board.make_move(notation.parse().expect("valid point"));
                let stage = if board.stone_count() >= late_from {
                    Stage::Late
                } else {
                    Stage::Early
                };
                let dot: f64 = features(&board)
                    .iter()
                    .zip(&weights.to_vector(stage))
                    .map(|(f, w)| f * w)
                    .sum();
                assert_eq!(
                    dot as i32,
                    evaluator.evaluate(&board),
                    "{rule:?} {notation}"
                );
            }
        }
    }

    /// A network with every weight set from a formula (mixed signs, so that some units are off).
    fn patterned_network(hidden: usize, seed: usize) -> Network {
        let value = |i: usize| ((i * 37 + seed * 11) % 23) as f32 / 23.0 - 0.45;
        let colour = |c: usize| network::ColourNetwork {
            first: (0..hidden * network::INPUTS)
                .map(|i| value(i + c) * 0.3)
                .collect(),
            bias: (0..hidden).map(|i| value(i * 7 + c)).collect(),
            out: (0..hidden).map(|i| 40.0 * value(i * 3 + c + 1)).collect(),
            out_bias: 5.0 * value(c),
        };
        Network::new([colour(0), colour(1)]).expect("consistent sizes")
    }

    #[test]
    fn a_network_adds_its_output_to_the_sum_of_its_stage() {
        let linear = Weights::default();
        let late_from = linear
            .late
            .as_ref()
            .expect("the defaults have a late stage")
            .from_stones;
        let weights = linear
            .with_network(Stage::Early, Some(patterned_network(8, 1)))
            .with_network(Stage::Late, Some(patterned_network(5, 2)));
        for rule in [Rule::Renju, Rule::Freestyle] {
            let plain = Evaluator::new(&linear, rule);
            let with_network = Evaluator::new(&weights, rule);
            let mut board = Board::new(rule);
            let mut differences = 0;
            // Stones in a diagonal band, with threes, fours and (for Black in renju) forbidden
            // points along the way, far enough to reach the late stage.
            for n in 0..24u8 {
                let (x, y) = ((n * 7) % 15, (n * 5 + n / 3) % 15);
                let p = crate::rules::Pos::new(x, y).expect("on the board");
                if !board.is_empty(p) {
                    continue;
                }
                board.make_move(p);
                let stage = if board.stone_count() >= late_from {
                    Stage::Late
                } else {
                    Stage::Early
                };
                let network = weights.stage_network(stage).expect("both stages have one");
                let masked = network.keeping_inputs(|me, input| {
                    weighed(rule, input_colour(me, input), input_shape(input))
                });
                let reference = masked.output(board.side_to_move(), &network_inputs(&board));
                let expected = plain.evaluate(&board) + reference.round() as i32;
                let got = with_network.evaluate(&board);
                assert!(
                    (got - expected).abs() <= 1,
                    "{rule:?} {p}: {got} vs {expected}"
                );
                differences += usize::from(got != plain.evaluate(&board));
            }
            assert!(
                differences > 10,
                "the network changed only {differences} values"
            );
        }
    }

    #[test]
    fn networks_read_and_write_with_their_stage() {
        let weights = Weights::default()
            .with_network(Stage::Early, Some(patterned_network(3, 4)))
            .with_network(Stage::Late, Some(patterned_network(2, 5)));
        let text = weights.to_text();
        assert!(text.contains("\nnet.white.unit 2 "), "three early units");
        assert!(text.contains("\nlate.net.black.unit 1 "), "two late units");
        assert_eq!(Weights::from_text(&text).unwrap(), weights);
        // Without network lines, a file has no network.
        assert_eq!(Weights::from_text("own.Five 3000\n").unwrap().network, None);
    }

    #[test]
    fn bad_network_lines_are_reported_with_their_line() {
        let unit = |n: usize, inputs: usize| {
            format!(
                "net.black.unit {n} 0.5 2 {}\n",
                vec!["0.1"; inputs].join(" ")
            )
        };
        let white = unit(0, network::INPUTS).replace("black", "white");
        let good = format!("{}{white}", unit(0, network::INPUTS));
        assert!(Weights::from_text(&good).unwrap().network.is_some());
        for (text, expected) in [
            (unit(0, 5), "line 1: a unit line needs"),
            (
                format!("{}{}", unit(0, network::INPUTS), unit(2, network::INPUTS)),
                "line 2: unit 2 out of order",
            ),
            (unit(0, network::INPUTS), "do not match"),
            (
                format!("{good}net.red.out_bias 1\n"),
                "line 3: unknown colour 'red'",
            ),
            (
                format!("{good}net.black.out_bias x\n"),
                "line 3: 'x' is not a number",
            ),
            (
                format!("{good}net.black.out_bias inf\n"),
                "line 3: 'inf' is not a number",
            ),
            (
                format!("{good}net.black.weight 1\n"),
                "line 3: unknown network field",
            ),
            (
                format!("late.{good}"),
                "line 1: 'late.net.black.unit' before a 'late.from' line",
            ),
        ] {
            let error = Weights::from_text(&text).unwrap_err().to_string();
            assert!(error.contains(expected), "{error} (expected {expected})");
        }
    }

    #[test]
    fn an_open_three_is_worth_most_to_its_side_when_it_is_to_move() {
        // Black has a three in the centre, White two scattered stones; then a pass.
        let moves: Vec<crate::rules::Move> = ["h8", "a1", "i8", "o15", "j8"]
            .iter()
            .map(|p| crate::rules::Move::Place(p.parse().expect("valid point")))
            .collect();
        let mut board = Board::from_moves(Rule::Renju, &moves).expect("legal");
        let evaluator = Evaluator::new(&Weights::default(), Rule::Renju);
        let white_view = evaluator.evaluate(&board);
        board.pass();
        let black_view = evaluator.evaluate(&board);
        assert!(black_view > 0, "{black_view}");
        // With the move, Black's open three is a threat to make an open four at once: worth
        // more to Black than it is against White when White is to move and can block it.
        assert!(black_view > -white_view, "{black_view} vs {white_view}");
    }
}
