//! `gobang-lab fit --hidden N`: fits a network ([`gobang::engine::network`]) on top of a stage's
//! linear weights, to the same examples as the linear fit.
//!
//! The prediction is `sigmoid(linear / scale + offsets + network)`: the linear sum stays as it
//! starts (its weights are not moved), the players' offsets start where the baseline fit left
//! them and move along, and the network (output weights starting at zero, so that the fit starts
//! exactly at the baseline) learns what the sum misses. Mini-batch Adam over shuffled examples,
//! with a step size falling linearly to a tenth of its start and an L2 pull of the network's
//! weights towards zero; the training and held-out losses are reported after every epoch. The network is written in evaluation units (its output layer
//! multiplied by the scale), so the engine adds it to the sum as it is.

use super::{sigmoid, Example, FitArgs};
use crate::rng::Rng;
use gobang::engine::eval::SIDE_COUNT;
use gobang::engine::network::{ColourNetwork, Network, INPUTS, MAX_HIDDEN};
use gobang::engine::Weights;

/// One example as the network sees it.
struct NetExample {
    /// Colour to move (index).
    colour: usize,
    /// The linear sum (which the fit does not move), in logistic units.
    linear: f64,
    /// The players' offset features, `(player, sign)`.
    offsets: Vec<(usize, f64)>,
    /// The network's non-zero inputs, `(input, count)`.
    inputs: Vec<(usize, f64)>,
    target: f64,
}

impl NetExample {
    fn new(example: &Example, linear_weights: &[f64], scale: f64) -> NetExample {
        // The colour to move is the block its features fall in (an example without any counts as
        // Black's: its network then sees no inputs anyway).
        let mut colour = 0;
        let mut linear = 0.0;
        let mut offsets = Vec::new();
        let mut inputs = Vec::new();
        for &(index, value) in &example.features {
            let index = index as usize;
            if index < Weights::COUNT {
                colour = index / SIDE_COUNT;
                linear += value * linear_weights[index];
                inputs.push((index % SIDE_COUNT, value.abs()));
            } else {
                offsets.push((index - Weights::COUNT, value));
            }
        }
        NetExample {
            colour,
            linear: linear / scale,
            offsets,
            inputs,
            target: example.target,
        }
    }
}

/// Where each parameter lives in one flat vector: per colour the first layer (input-major), the
/// biases, the output weights and the output bias; then the players' offsets.
struct Layout {
    hidden: usize,
}

impl Layout {
    fn colour_size(&self) -> usize {
        INPUTS * self.hidden + 2 * self.hidden + 1
    }
    fn first(&self, colour: usize, input: usize) -> usize {
        colour * self.colour_size() + input * self.hidden
    }
    fn bias(&self, colour: usize) -> usize {
        colour * self.colour_size() + INPUTS * self.hidden
    }
    fn out(&self, colour: usize) -> usize {
        self.bias(colour) + self.hidden
    }
    fn out_bias(&self, colour: usize) -> usize {
        self.out(colour) + self.hidden
    }
    fn offset(&self, player: usize) -> usize {
        2 * self.colour_size() + player
    }
    /// Whether parameter `index` is a weight pulled towards zero (not a bias or an offset).
    fn decays(&self, index: usize) -> bool {
        if index >= 2 * self.colour_size() {
            return false;
        }
        let within = index % self.colour_size();
        within < INPUTS * self.hidden
            || (INPUTS * self.hidden + self.hidden..INPUTS * self.hidden + 2 * self.hidden)
                .contains(&within)
    }
}

/// The prediction's logit for `example`, with the hidden units' sums left in `sums`.
fn logit(example: &NetExample, params: &[f64], layout: &Layout, sums: &mut [f64]) -> f64 {
    let c = example.colour;
    sums.copy_from_slice(&params[layout.bias(c)..][..layout.hidden]);
    for &(input, value) in &example.inputs {
        let row = &params[layout.first(c, input)..][..layout.hidden];
        for (sum, weight) in sums.iter_mut().zip(row) {
            *sum += value * weight;
        }
    }
    let out = &params[layout.out(c)..][..layout.hidden];
    let network: f64 = sums
        .iter()
        .zip(out)
        .map(|(sum, weight)| sum.max(0.0) * weight)
        .sum();
    let offsets: f64 = example
        .offsets
        .iter()
        .map(|&(player, sign)| sign * params[layout.offset(player)])
        .sum();
    example.linear + offsets + network + params[layout.out_bias(c)]
}

/// Mean cross-entropy over `examples`.
fn loss(examples: &[NetExample], params: &[f64], layout: &Layout) -> f64 {
    let mut sums = vec![0.0; layout.hidden];
    let total: f64 = examples
        .iter()
        .map(|example| {
            let p = sigmoid(logit(example, params, layout, &mut sums)).clamp(1e-12, 1.0 - 1e-12);
            -(example.target * p.ln() + (1.0 - example.target) * (1.0 - p).ln())
        })
        .sum();
    total / examples.len().max(1) as f64
}

/// Adds `example`'s loss gradient to `gradient`.
fn add_gradient(example: &NetExample, params: &[f64], layout: &Layout, gradient: &mut [f64]) {
    let c = example.colour;
    let hidden = layout.hidden;
    let mut sums = [0.0; MAX_HIDDEN];
    let sums = &mut sums[..hidden];
    let error = sigmoid(logit(example, params, layout, sums)) - example.target;
    let out = layout.out(c);
    let mut unit_errors = [0.0; MAX_HIDDEN];
    for unit in 0..hidden {
        if sums[unit] > 0.0 {
            gradient[out + unit] += error * sums[unit];
            unit_errors[unit] = error * params[out + unit];
        }
    }
    gradient[layout.out_bias(c)] += error;
    let bias = layout.bias(c);
    for unit in 0..hidden {
        gradient[bias + unit] += unit_errors[unit];
    }
    for &(input, value) in &example.inputs {
        let row = &mut gradient[layout.first(c, input)..][..hidden];
        for (slot, unit_error) in row.iter_mut().zip(&unit_errors[..hidden]) {
            *slot += value * unit_error;
        }
    }
    for &(player, sign) in &example.offsets {
        gradient[layout.offset(player)] += error * sign;
    }
}

/// A fitted network and its losses (training, held-out) before and after the fit.
pub struct NetworkFit {
    pub network: Network,
    pub start_losses: (f64, f64),
    pub fitted_losses: (f64, f64),
}

/// Fits a network of `args.hidden` units on top of the linear weights `linear` (in
/// [`Weights::to_vector`] order) with the players' offsets `offsets` (evaluation units) as they
/// start; returns it in evaluation units.
pub fn fit(
    train: &[Example],
    validation: &[Example],
    linear: &[f64],
    offsets: &[f64],
    scale: f64,
    args: &FitArgs,
) -> NetworkFit {
    let layout = Layout {
        hidden: usize::from(args.hidden),
    };
    let train: Vec<NetExample> = train
        .iter()
        .map(|e| NetExample::new(e, linear, scale))
        .collect();
    let validation: Vec<NetExample> = validation
        .iter()
        .map(|e| NetExample::new(e, linear, scale))
        .collect();
    let mut params = vec![0.0; layout.offset(offsets.len())];
    for (player, offset) in offsets.iter().enumerate() {
        params[layout.offset(player)] = offset / scale;
    }
    // First-layer weights drawn so that a unit's sum has about unit spread over the examples.
    let mean_square_inputs = train
        .iter()
        .map(|e| e.inputs.iter().map(|(_, v)| v * v).sum::<f64>())
        .sum::<f64>()
        / train.len().max(1) as f64;
    let spread = (3.0 / mean_square_inputs.max(1.0)).sqrt();
    let mut rng = Rng::new(args.seed);
    for colour in 0..2 {
        for input in 0..INPUTS {
            for unit in 0..layout.hidden {
                let uniform = (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
                params[layout.first(colour, input) + unit] = spread * (2.0 * uniform - 1.0);
            }
        }
    }
    let report = |epoch: usize, params: &[f64]| {
        let losses = (
            loss(&train, params, &layout),
            loss(&validation, params, &layout),
        );
        say!(
            "network: epoch {epoch:>3}, training loss {:.5}, held-out loss {:.5}",
            losses.0,
            losses.1
        );
        losses
    };
    let start_losses = report(0, &params);
    let mut fitted_losses = start_losses;
    let (beta1, beta2, epsilon) = (0.9, 0.999, 1e-8);
    let mut first = vec![0.0; params.len()];
    let mut second = vec![0.0; params.len()];
    let mut gradient = vec![0.0; params.len()];
    let mut order: Vec<usize> = (0..train.len()).collect();
    let mut step = 0;
    let batch_size = args.batch.max(1);
    let total_steps = (args.epochs * order.len().div_ceil(batch_size)).max(1);
    for epoch in 1..=args.epochs {
        for i in (1..order.len()).rev() {
            order.swap(i, rng.below(i + 1));
        }
        for batch in order.chunks(batch_size) {
            gradient.fill(0.0);
            for &index in batch {
                add_gradient(&train[index], &params, &layout, &mut gradient);
            }
            // The step size falls linearly to a tenth of `--net-rate` over the fit.
            let rate = args.net_rate * (1.0 - 0.9 * f64::from(step) / total_steps as f64);
            step += 1;
            let n = batch.len() as f64;
            for i in 0..params.len() {
                let mut g = gradient[i] / n;
                if layout.decays(i) {
                    g += 2.0 * args.net_l2 * params[i];
                }
                first[i] = beta1 * first[i] + (1.0 - beta1) * g;
                second[i] = beta2 * second[i] + (1.0 - beta2) * g * g;
                let corrected_first = first[i] / (1.0 - beta1.powi(step));
                let corrected_second = second[i] / (1.0 - beta2.powi(step));
                params[i] -= rate * corrected_first / (corrected_second.sqrt() + epsilon);
            }
        }
        fitted_losses = report(epoch, &params);
    }
    let colour = |c: usize| ColourNetwork {
        first: params[layout.first(c, 0)..][..INPUTS * layout.hidden]
            .iter()
            .map(|&w| w as f32)
            .collect(),
        bias: params[layout.bias(c)..][..layout.hidden]
            .iter()
            .map(|&w| w as f32)
            .collect(),
        out: params[layout.out(c)..][..layout.hidden]
            .iter()
            .map(|&w| (w * scale) as f32)
            .collect(),
        out_bias: (params[layout.out_bias(c)] * scale) as f32,
    };
    NetworkFit {
        network: Network::new([colour(0), colour(1)])
            .expect("the fit's layers have the sizes its layout gives them"),
        start_losses,
        fitted_losses,
    }
}
