//! Move generation, threats first.
//!
//! [`analyse`] classifies a position for the side to move: it can make five ([`Status::Win`]);
//! the opponent has two five points, or one that Black may only block on a forbidden point
//! ([`Status::Lost`]); the opponent has one five point ([`Status::Forced`]: only the block);
//! the opponent threatens to win with a non-four move, an open three or a four-three point
//! ([`Status::Threatened`]: the defences and own fours, and own open threes against a
//! four-three); or nothing is forced ([`Status::Quiet`]: the region of interest, scored by shape).
//!
//! The region of interest is every empty point within distance two along a line of an own stone or
//! next to an opponent stone (the centre on an empty board). Black never gets a forbidden point.
//! The search orders quiet moves by both sides' line-shape pairs, weights fitted to Rapfi's
//! choices, and discounts those far from the last moves ([`score_quiet_moves`]).

use crate::rules::shape::PAIR_COUNT;
use crate::rules::{Board, Color, LineShape, Pos, Shape, DIRECTIONS};
use std::sync::OnceLock;

/// What the side to move faces.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    /// Playing here makes five.
    Win(Pos),
    /// The opponent makes five next move whatever happens.
    Lost,
    /// The only move that stops the opponent's five.
    Forced(Pos),
    /// The opponent threatens an unstoppable four (open three, four-three point).
    Threatened,
    Quiet,
}

/// Whether the side to move may play on empty point `p` (Black never on a forbidden point).
#[inline]
pub fn is_playable(board: &mut Board, p: Pos) -> bool {
    !(board.rule().has_forbidden(board.side_to_move()) && board.is_forbidden_in_place(p))
}

/// The shapes from which `color` wins by force next move unless the opponent has fours.
fn threat_shape(board: &Board, color: Color, shape: Shape) -> bool {
    match shape {
        Shape::OpenFour | Shape::FourThree => true,
        Shape::DoubleFour => !board.rule().has_forbidden(color),
        _ => false,
    }
}

/// Whether `color` has a winning threat (open four, four-three or double four point), without
/// Black's forbidden points and Black's four-threes whose three is not real.
pub fn has_threat(board: &mut Board, color: Color) -> bool {
    let quick =
        board.shape_count(color, Shape::OpenFour) + board.shape_count(color, Shape::FourThree);
    if !board.rule().has_forbidden(color) {
        return quick + board.shape_count(color, Shape::DoubleFour) > 0;
    }
    if quick == 0 {
        return false;
    }
    board
        .four_or_more_points(color)
        .any(|p| is_real_threat(board, color, p))
}

/// Whether `color` playing on empty `p` threatens to win with a straight four next: an open four
/// or double four, or a four-three whose three still makes an open four once the four is blocked.
/// Black's forbidden points never count.
pub fn is_real_threat(board: &mut Board, color: Color, p: Pos) -> bool {
    let shape = board.shape(p, color);
    if !threat_shape(board, color, shape) {
        return false;
    }
    let forbid = board.rule().has_forbidden(color);
    if !forbid {
        return true;
    }
    if board.is_renju_suspect(p) && board.is_forbidden_in_place(p) {
        return false;
    }
    if shape != Shape::FourThree {
        return true;
    }
    // Play the four-three and its block, then look for a legal open-four point. A pass first
    // when `color` is not to move keeps the side to move right after the undos.
    let passed = board.side_to_move() != color;
    if passed {
        board.pass();
    }
    board.make_move(p);
    let mut real = false;
    if let Some(block) = first_five_point(board, color) {
        board.make_move(block);
        real = board.shape_count(color, Shape::OpenFour) > 0
            && board.four_or_more_points(color).any(|q| {
                board.shape(q, color) == Shape::OpenFour
                    && !(board.is_renju_suspect(q) && board.is_forbidden_in_place(q))
            });
        board.undo();
    }
    board.undo();
    if passed {
        board.undo();
    }
    real
}

/// The points where `color` would make a four (or better), without its forbidden points.
pub fn four_points(board: &mut Board, color: Color, out: &mut Vec<Pos>) {
    out.clear();
    let count: u16 = [
        Shape::Four,
        Shape::FourThree,
        Shape::OpenFour,
        Shape::DoubleFour,
    ]
    .iter()
    .map(|&s| board.shape_count(color, s))
    .sum();
    if count == 0 {
        return;
    }
    let forbid = board.rule().has_forbidden(color);
    for p in board.four_or_more_points(color) {
        if board.shape(p, color).has_four() {
            if forbid && board.is_renju_suspect(p) && board.is_forbidden_in_place(p) {
                continue;
            }
            out.push(p);
        }
    }
}

/// The first point where `color` makes five, if any.
pub fn first_five_point(board: &Board, color: Color) -> Option<Pos> {
    if board.shape_count(color, Shape::Five) == 0 {
        return None;
    }
    board
        .four_or_more_points(color)
        .find(|&p| board.shape(p, color) == Shape::Five)
}

/// Classifies the position for the side to move.
pub fn analyse(board: &mut Board) -> Status {
    let me = board.side_to_move();
    let opp = me.opponent();
    if let Some(p) = first_five_point(board, me) {
        return Status::Win(p);
    }
    match board.shape_count(opp, Shape::Five) {
        0 => {}
        1 => {
            return match first_five_point(board, opp) {
                Some(block) if is_playable(board, block) => Status::Forced(block),
                _ => Status::Lost,
            };
        }
        _ => return Status::Lost,
    }
    if has_threat(board, opp) {
        Status::Threatened
    } else {
        Status::Quiet
    }
}

/// Move-ordering value of a point's shape for the side to move.
const ORDER_OWN: [i32; 14] = [0, 3, 8, 18, 8, 24, 60, 50, 70, 900, 1200, 1000, 0, 20000];
/// Move-ordering value of a point's shape for the opponent (taking the point away from it).
const ORDER_OPP: [i32; 14] = [0, 2, 6, 14, 6, 18, 45, 40, 50, 500, 700, 600, 0, 10000];

/// Whether `shape` at a point is one of Black's forbidden shapes: no threat of Black's, so nothing
/// to take away.
pub fn is_dead_for(board: &Board, color: Color, shape: Shape) -> bool {
    board.rule().has_forbidden(color)
        && matches!(
            shape,
            Shape::DoubleThree | Shape::DoubleFour | Shape::Overline
        )
}

/// The static ordering score of `p` for the side to move, as the move generators give it (the
/// search orders quiet nodes by [`score_quiet_moves`] instead).
#[inline]
pub fn shape_score(board: &Board, p: Pos) -> i32 {
    let me = board.side_to_move();
    let opp = me.opponent();
    let own = board.shape(p, me);
    let theirs = board.shape(p, opp);
    let mut score = ORDER_OWN[own as usize];
    if !is_dead_for(board, opp, theirs) {
        score += ORDER_OPP[theirs as usize];
    }
    score
}

/// The search's quiet-move order (session 70): each point is scored by the side to move's
/// [`crate::rules::LineShapePair`] there and the opponent's, with weights fitted by `gobang-lab
/// fit-order` (a conditional logit, 25 order points a logit unit) to Rapfi's choices in 10,326
/// quiet positions of its games against this engine at 500 ms a move (sessions 67-69). Pairs no
/// example had (a double four, an overline or a five of the side to move, an opponent's
/// four-three or better) rank with the strongest seen. With the distance discount, it put
/// Rapfi's move first in 28.0% of held-out positions, against 21.3% for [`shape_score`].
const QUIET_ORDER_OWN: [i32; PAIR_COUNT] = [
    -62, -70, -67, -42, -53, -17, -41, -41, -5, 8, 3, 3, 39, 50, 93, 1, 12, 51, 57, 155, 85, 128,
    117, 125, 109, 104, 160, 160, 160, 160, 160, 160, 160, 160, 160, 160, 160, 160, 160, 160, 160,
    160, 160, 160, 160, 160, 160, 160, 160, 160, 160, 160, 160, 160, 160,
];
/// The opponent's pair at the point (taking it away); see [`QUIET_ORDER_OWN`].
const QUIET_ORDER_OPP: [i32; PAIR_COUNT] = [
    -31, -34, -41, -24, -39, -27, -18, -30, -17, -7, 21, 8, 32, 35, 73, 29, 20, 43, 45, 75, 75, 75,
    75, 75, 75, 75, 75, 75, 75, 75, 75, 75, 75, 75, 75, 75, 75, 75, 75, 75, 75, 75, 75, 75, 75, 75,
    75, 75, 75, 75, 75, 75, 75, 75, 75,
];
/// An opponent point forbidden for Black: no Black threat to take away, so its pair does not
/// count; the weight is fitted (Rapfi's White chose such points more often than empty ones).
const QUIET_ORDER_DEAD: i32 = 34;
/// Added so that every score stays above zero (the fitted weights are relative).
pub const QUIET_ORDER_BASE: i32 = 140;

/// The search's ordering score of the quiet move `p`: both sides' line-shape pairs, with weights
/// fitted to Rapfi's choices (`QUIET_ORDER_OWN` and `QUIET_ORDER_OPP`).
fn quiet_order_score(board: &Board, p: Pos) -> i32 {
    let me = board.side_to_move();
    let opp = me.opponent();
    let theirs = if is_dead_for(board, opp, board.shape(p, opp)) {
        QUIET_ORDER_DEAD
    } else {
        QUIET_ORDER_OPP[board.shape_pair(p, opp).index()]
    };
    (QUIET_ORDER_BASE + QUIET_ORDER_OWN[board.shape_pair(p, me).index()] + theirs).max(0)
}

/// Scores the moves of a quiet node (the region of interest) for the search's order: by both
/// sides' line-shape pairs (`quiet_order_score`), then [`discount_distant_moves`].
pub fn score_quiet_moves(board: &Board, moves: &mut [(Pos, i32)]) {
    for (p, score) in moves.iter_mut() {
        *score = quiet_order_score(board, *p);
    }
    discount_distant_moves(board, moves);
}

/// The moves of a quiet node as the search orders them: the region of interest, scored as
/// [`score_quiet_moves`] scores it (each point scored once, as it is generated).
pub fn generate_quiet_for_search(board: &mut Board, out: &mut Vec<(Pos, i32)>) {
    out.clear();
    region_of_interest(board, out, quiet_order_score);
    discount_distant_moves(board, out);
}

/// Moves farther than this (in king steps) from the recent moves count less in the move order.
const NEAR_RECENT: u8 = 4;

/// The point of the move `back` moves ago (1: the last one), unless that was a pass or the game
/// is shorter.
pub fn recent_stone(board: &Board, back: usize) -> Option<Pos> {
    let history = board.history();
    history
        .len()
        .checked_sub(back)
        .and_then(|index| history[index].pos())
}

/// Lowers the ordering scores of quiet moves away from where the game is being played, as
/// PentaZen orders its moves: a move farther than four king steps (`NEAR_RECENT`) from both of
/// the last two moves keeps half its score, and one that far from each of the last four a
/// quarter. In crowded positions there are shapes all over the board, and move-count pruning and
/// late-move reductions follow this order.
pub fn discount_distant_moves(board: &Board, moves: &mut [(Pos, i32)]) {
    let recent = [1, 2, 3, 4].map(|back| recent_stone(board, back));
    let far = |p: Pos, q: Option<Pos>| q.is_some_and(|q| p.distance(q) > NEAR_RECENT);
    for (p, score) in moves.iter_mut() {
        if far(*p, recent[0]) && far(*p, recent[1]) {
            *score >>= if far(*p, recent[2]) && far(*p, recent[3]) {
                2
            } else {
                1
            };
        }
    }
}

/// Generates the moves of a non-terminal position with their static ordering scores.
pub fn generate(board: &mut Board, status: Status, out: &mut Vec<(Pos, i32)>) {
    out.clear();
    match status {
        Status::Win(p) | Status::Forced(p) => out.push((p, 0)),
        Status::Lost => {}
        Status::Threatened => defences(board, out),
        Status::Quiet => region_of_interest(board, out, shape_score),
    }
}

/// Against an opponent's VCF (found by letting it move twice): the points of its line (its fours,
/// our forced blocks, its five), our own fours and open threes, and the points where a stone of
/// ours makes one of the line's forced blocks a four of ours. A defence must break that line or
/// counter-attack; moves that do neither are left out.
pub fn vcf_defences(board: &mut Board, line: &[Pos], out: &mut Vec<(Pos, i32)>) {
    out.clear();
    let me = board.side_to_move();
    for &p in line {
        if board.is_empty(p) && !marked_out(out, p) && is_playable(board, p) {
            out.push((p, shape_score(board, p) + 2000));
        }
    }
    for p in Pos::all() {
        if board.is_empty(p)
            && board.shape(p, me) >= Shape::OpenThree
            && !marked_out(out, p)
            && is_playable(board, p)
        {
            out.push((p, shape_score(board, p)));
        }
    }
    push_tempo_blocks(board, line, out);
}

/// Adds the points where a stone of the side to move makes one of its forced blocks in `line`
/// (the opponent's fours and our blocks alternately, the opponent first) a four of its own, so
/// that the block gains a tempo: a closed three onto the first block, or a two that earlier
/// blocks complete. Points already in `out`, or not playable now, are left out.
fn push_tempo_blocks(board: &mut Board, line: &[Pos], out: &mut Vec<(Pos, i32)>) {
    let me = board.side_to_move();
    let mut found: PointBits = [0; 4];
    board.pass();
    let mut played = 1;
    for pair in line.chunks_exact(2) {
        let (four, block) = (pair[0], pair[1]);
        if !board.is_empty(four) || !board.is_empty(block) {
            break;
        }
        board.make_move(four);
        played += 1;
        for (dir_index, &dir) in DIRECTIONS.iter().enumerate() {
            // Our stone and the block make a four along `dir` only where the block alone makes
            // a three there.
            if board.line_shape(block, me, dir_index) < LineShape::Three {
                continue;
            }
            for q in line_points_near(block, dir) {
                if !board.is_empty(q) {
                    continue;
                }
                board.make_move(q);
                let tempo = board.shape(block, me) >= Shape::Four;
                board.undo();
                if tempo {
                    found[q.index() >> 6] |= 1 << (q.index() & 63);
                }
            }
        }
        board.make_move(block);
        played += 1;
    }
    for _ in 0..played {
        board.undo();
    }
    for (index, mut word) in found.into_iter().enumerate() {
        while word != 0 {
            let q = Pos((index * 64 + word.trailing_zeros() as usize) as u8);
            word &= word - 1;
            if board.is_empty(q) && !marked_out(out, q) && is_playable(board, q) {
                out.push((q, shape_score(board, q)));
            }
        }
    }
}

/// The on-board points one to four steps from `p` along `dir`, nearest first, each distance's
/// two sides in turn: the points a stone on which can change `p`'s shape along that line.
fn line_points_near(p: Pos, dir: u8) -> impl Iterator<Item = Pos> {
    (1..=4).flat_map(move |distance| {
        [-1, 1].into_iter().filter_map(move |sign| {
            let q = p.step(dir, sign * distance);
            (q.is_on_board() && p.distance(q) == distance as u8).then_some(q)
        })
    })
}

/// Whether `color` has any point that makes a four.
pub fn has_four_point(board: &Board, color: Color) -> bool {
    [
        Shape::Four,
        Shape::FourThree,
        Shape::OpenFour,
        Shape::DoubleFour,
    ]
    .iter()
    .any(|&s| board.shape_count(color, s) > 0)
}

/// Points as bits of four words, bit `p.index()`.
type PointBits = [u64; 4];

/// Per point: the points it brings into the region of interest, as the side to move's own stone
/// (`[0]`: within distance two along a line) and as an opponent stone (`[1]`: next to it).
fn reach_table() -> &'static [[PointBits; 2]; 256] {
    static TABLE: OnceLock<Box<[[PointBits; 2]; 256]>> = OnceLock::new();
    TABLE.get_or_init(|| {
        let mut table = Box::new([[[0; 4]; 2]; 256]);
        for stone in Pos::all() {
            for &dir in &DIRECTIONS {
                for distance in 1..=2 {
                    for sign in [-1, 1] {
                        let q = stone.step(dir, sign * distance);
                        if q.is_on_board() && stone.distance(q) == distance as u8 {
                            let bit = 1 << (q.index() & 63);
                            table[stone.index()][0][q.index() >> 6] |= bit;
                            if distance == 1 {
                                table[stone.index()][1][q.index() >> 6] |= bit;
                            }
                        }
                    }
                }
            }
        }
        table
    })
}

/// Every empty point within distance two along a line of an own stone or next to an opponent
/// stone, excluding Black's forbidden points, in [`Pos::all`] order.
fn region_of_interest(board: &mut Board, out: &mut Vec<(Pos, i32)>, score: fn(&Board, Pos) -> i32) {
    let me = board.side_to_move();
    let reach = reach_table();
    let mut area: PointBits = [0; 4];
    let mut any_stone = false;
    for mv in board.history() {
        let Some(stone) = mv.pos() else { continue };
        any_stone = true;
        let bits = &reach[stone.index()][(board.stone(stone) != Some(me)) as usize];
        for (word, bits) in area.iter_mut().zip(bits) {
            *word |= bits;
        }
    }
    for (index, mut word) in area.into_iter().enumerate() {
        while word != 0 {
            let q = Pos((index * 64 + word.trailing_zeros() as usize) as u8);
            word &= word - 1;
            if board.is_empty(q) && is_playable(board, q) {
                out.push((q, score(board, q)));
            }
        }
    }
    if !any_stone && board.is_empty(Pos::CENTER) {
        out.push((Pos::CENTER, 0));
    }
    if out.is_empty() {
        // Stones only where nothing is reachable (or only forbidden points nearby): any legal point.
        for p in Pos::all() {
            if board.is_empty(p) && is_playable(board, p) {
                out.push((p, score(board, p)));
            }
        }
    }
}

/// Against a winning threat: the moves that leave the opponent no threat, all own fours, and,
/// when the threat has a four in it, own open threes and the closed threes its forced block
/// turns into fours.
fn defences(board: &mut Board, out: &mut Vec<(Pos, i32)>) {
    let me = board.side_to_move();
    let opp = me.opponent();
    let mut marked = [false; 256];
    // The real threat points, in a buffer on the stack (this runs at every threatened node).
    let mut threat_points = [Pos(0); 256];
    let mut threat_count = 0;
    for t in board.four_or_more_points(opp) {
        if is_real_threat(board, opp, t) {
            threat_points[threat_count] = t;
            threat_count += 1;
        }
    }
    let threats = &threat_points[..threat_count];
    // Whether some threat is a four-three or double four rather than an open four to be.
    let four_threat = threats
        .iter()
        .any(|&t| board.shape(t, opp) != Shape::OpenFour);
    for &t in threats {
        if !marked[t.index()] {
            marked[t.index()] = true;
            push_if_block(board, t, threats, out);
        }
        // Only the lines that make up the threat can be broken.
        for (dir_index, &dir) in DIRECTIONS.iter().enumerate() {
            if board.line_shape(t, opp, dir_index) < LineShape::Three {
                continue;
            }
            for q in line_points_near(t, dir) {
                if !marked[q.index()] && board.is_empty(q) {
                    marked[q.index()] = true;
                    push_if_block(board, q, threats, out);
                }
            }
        }
    }
    // Own fours gain a tempo. Own open threes only count against a four-three or double four:
    // the forced block of its four may make a four of ours out of the three. Against an open
    // three to become an open four they are no defence (a three cannot make five in one move),
    // so they are left out there, which narrows those nodes and gives more of them the extension
    // of few answers.
    let counter = if four_threat {
        Shape::OpenThree
    } else {
        Shape::Four
    };
    // Fours alone come from the board's incremental set; threes need the scan. Both run in point
    // order, so the moves come out in the same order either way.
    let scanned = four_threat.then(Pos::all).into_iter().flatten();
    let fours = (!four_threat)
        .then(|| board.four_or_more_points(me))
        .into_iter()
        .flatten();
    for p in scanned.chain(fours) {
        if board.is_empty(p)
            && !marked_out(out, p)
            && board.shape(p, me) >= counter
            && is_playable(board, p)
        {
            out.push((p, shape_score(board, p)));
        }
    }
    // A closed three counts too where the four of a four-three or double four forces our block
    // onto its four point. Only those: all closed threes were measured to play worse (session 29:
    // about 30 answers instead of 13 at such nodes).
    for &t in threats {
        if board.shape(t, opp) == Shape::OpenFour {
            continue;
        }
        let mut blocks = [Pos(0); 4];
        let mut block_count = 0;
        board.pass();
        board.make_move(t);
        for b in board.four_or_more_points(opp) {
            if board.shape(b, opp) == Shape::Five && block_count < blocks.len() {
                blocks[block_count] = b;
                block_count += 1;
            }
        }
        board.undo();
        board.undo();
        for &block in &blocks[..block_count] {
            push_tempo_blocks(board, &[t, block], out);
        }
    }
}

/// Adds empty `q` to `out` (ordered first, as a block) if the side to move may play there and
/// doing so leaves the opponent no winning threat (`threats`: its threat points now).
fn push_if_block(board: &mut Board, q: Pos, threats: &[Pos], out: &mut Vec<(Pos, i32)>) {
    if !is_playable(board, q) {
        return;
    }
    let opp = board.side_to_move().opponent();
    // A threat point that a stone on `q` leaves a threat is still one after it: no need to play
    // `q` out to see that it defends nothing. Read from the tables without playing: any threat
    // shape when the threat's side has no forbidden points; under renju, only a Black open-four
    // point that cannot be forbidden (the judge of the others could change with `q`).
    let forbid = board.rule().has_forbidden(opp);
    let survives = |t: Pos| {
        let shape = board.shape_if_blocked(t, opp, q);
        if forbid {
            shape == Shape::OpenFour && !board.is_renju_suspect_if_blocked(t, q)
        } else {
            threat_shape(board, opp, shape)
        }
    };
    if threats.iter().any(|&t| t != q && survives(t)) {
        return;
    }
    // A block gives a side without forbidden points no new threat (property-tested in
    // tests/board_properties.rs), so there a candidate that leaves no threat point defends.
    let defends = !forbid || {
        board.make_move(q);
        let defends = !has_threat(board, opp);
        board.undo();
        defends
    };
    if defends {
        out.push((q, shape_score(board, q) + 2000));
    }
}

fn marked_out(out: &[(Pos, i32)], p: Pos) -> bool {
    out.iter().any(|&(q, _)| q == p)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::{Color, Move, Rule};

    fn p(text: &str) -> Pos {
        text.parse().unwrap()
    }

    #[test]
    fn moves_far_from_the_recent_ones_are_discounted() {
        let mut b = Board::new(Rule::Renju);
        for m in ["a1", "a15", "h8", "h9"] {
            b.make_move(p(m));
        }
        // Last moves: h9, h8 (near the centre), a15, a1 (corners).
        let mut moves = vec![(p("i9"), 40), (p("n2"), 40), (p("b2"), 40), (p("o15"), 40)];
        discount_distant_moves(&b, &mut moves);
        let scores: Vec<i32> = moves.iter().map(|m| m.1).collect();
        // Near the last two: whole; far from them but near a1: half; far from all four: a quarter.
        assert_eq!(scores, [40, 10, 20, 10]);
        let mut b = Board::new(Rule::Renju);
        b.make_move(p("h8"));
        let mut moves = vec![(p("a1"), 40)];
        discount_distant_moves(&b, &mut moves);
        assert_eq!(
            moves[0].1, 40,
            "too few moves yet to call any point distant"
        );
    }

    #[test]
    fn quiet_order_takes_away_threats_but_not_forbidden_points() {
        // Black's i8 would make two open threes (g8 h8 i8 and i8 i9 i10): a double three, which
        // renju forbids Black and freestyle does not. White, to move, has nothing of its own there,
        // and its last stones are within four steps of it (no discount for distance).
        let score = |rule: Rule, point: &str| {
            let b = Board::from_points(
                rule,
                &["g8", "h8", "i9", "i10"],
                &["k12", "e5", "m6"],
                Color::White,
            );
            let mut moves = vec![(p(point), 0)];
            score_quiet_moves(&b, &mut moves);
            moves[0].1
        };
        assert!(score(Rule::Freestyle, "i8") > score(Rule::Freestyle, "h12"));
        assert!(
            score(Rule::Renju, "i8") < score(Rule::Freestyle, "i8"),
            "a point forbidden for Black is no Black threat to take away"
        );
        assert_eq!(
            score(Rule::Renju, "i8"),
            QUIET_ORDER_BASE + QUIET_ORDER_OWN[0] + QUIET_ORDER_DEAD
        );
    }

    #[test]
    fn five_wins_and_single_block_is_forced() {
        let mut b = Board::from_points(
            Rule::Renju,
            &["h8", "i8", "j8", "k8"],
            &["a1", "a2", "a3"],
            Color::Black,
        );
        assert!(matches!(analyse(&mut b), Status::Win(q) if q == p("g8") || q == p("l8")));
        let mut b = Board::from_points(
            Rule::Renju,
            &["h8", "i8", "j8", "k8"],
            &["g8", "a2", "a3"],
            Color::White,
        );
        assert_eq!(analyse(&mut b), Status::Forced(p("l8")));
        let mut b = Board::from_points(
            Rule::Renju,
            &["h8", "i8", "j8", "k8"],
            &["a1", "a2", "a3"],
            Color::White,
        );
        assert_eq!(analyse(&mut b), Status::Lost);
    }

    #[test]
    fn open_three_narrows_to_defences() {
        let mut b = Board::from_points(
            Rule::Freestyle,
            &["h8", "i8", "j8"],
            &["a1", "a2"],
            Color::White,
        );
        let status = analyse(&mut b);
        assert_eq!(status, Status::Threatened);
        let mut moves = Vec::new();
        generate(&mut b, status, &mut moves);
        let points: Vec<Pos> = moves.iter().map(|m| m.0).collect();
        for defence in ["g8", "k8"] {
            assert!(points.contains(&p(defence)), "{points:?}");
        }
        assert!(!points.contains(&p("h9")));
    }

    /// From a game lost to PentaZen (session 29, game 123 of a 500 ms match), after Black's j11 at
    /// move 21. Black threatens j9 (an open four: j8 j9 j10 j11) and h11 (a four-three: the four
    /// h8 _ h10 h11 h12 with five point h9, and the open three h11 i11 j11). White's j9 blocks the
    /// first and makes a closed three (g9 _ i9 j9, Black's k9 on the other end) whose four point h9
    /// is where the four-three forces White to block, a four-three of White's own: the game went
    /// on, and the search must not count White as lost without it. e9 (e9 _ g9 h9 i9) and i10
    /// (f7 g8 h9 i10) are closed threes onto h9 as well.
    fn closed_threes_onto_h9() -> (Board, [Pos; 3], Vec<Pos>) {
        let moves: Vec<Move> =
            "h8 i9 h10 f7 j10 h7 i7 f10 f8 g8 i11 g9 k9 l8 h12 g13 j8 l10 g5 h6 j11"
                .split_whitespace()
                .map(|m| Move::Place(p(m)))
                .collect();
        let b = Board::from_moves(Rule::Renju, &moves).unwrap();
        let onto_h9 = [p("j9"), p("e9"), p("i10")];
        // A closed three and a two: below an open three, which alone counted before.
        assert_eq!(b.shape(p("j9"), Color::White), Shape::ThreeTwo);
        // White's other closed threes, whose four points are elsewhere.
        let others: Vec<Pos> = Pos::all()
            .filter(|&q| {
                b.is_empty(q)
                    && matches!(b.shape(q, Color::White), Shape::Three | Shape::ThreeTwo)
                    && !onto_h9.contains(&q)
            })
            .collect();
        assert!(!others.is_empty());
        (b, onto_h9, others)
    }

    #[test]
    fn a_closed_three_whose_four_point_is_the_forced_block_defends_a_four_three() {
        let (mut b, onto_h9, others) = closed_threes_onto_h9();
        let status = analyse(&mut b);
        assert_eq!(status, Status::Threatened);
        let mut moves = Vec::new();
        generate(&mut b, status, &mut moves);
        for q in onto_h9 {
            assert!(moves.iter().any(|m| m.0 == q), "{q} {moves:?}");
        }
        assert!(
            others.iter().all(|&q| moves.iter().all(|m| m.0 != q)),
            "{others:?} {moves:?}"
        );
    }

    #[test]
    fn against_a_vcf_line_the_closed_threes_onto_its_blocks_count() {
        // A line given by hand: Black's four h11, White's forced block h9, Black's five k11.
        let (mut b, onto_h9, others) = closed_threes_onto_h9();
        let line = [p("h11"), p("h9"), p("k11")];
        let mut moves = Vec::new();
        vcf_defences(&mut b, &line, &mut moves);
        for q in line.iter().chain(&onto_h9) {
            assert!(moves.iter().any(|m| m.0 == *q), "{q} {moves:?}");
        }
        assert!(
            others.iter().all(|&q| moves.iter().all(|m| m.0 != q)),
            "{others:?} {moves:?}"
        );
    }

    #[test]
    fn a_two_that_the_vcf_line_blocks_make_a_four_defends() {
        // From a game lost to PentaZen (session 30, game 165 of a 500 ms match), after Black's j12
        // at move 35. Black's VCF if White passes: j11 (White blocks j9), k11 (h11), l10 (h14),
        // m9. White's g12 is none of those points, and its closed three (f11 g12 h13, Black's e10
        // behind) has no four point on the line, yet it refutes (PentaZen: +419 for White): with
        // White's i10 and the forced blocks j9 and h11 it makes the open four g12 h11 i10 j9, so
        // the line breaks at its second block.
        let moves: Vec<Move> = "h8 i9 f9 i10 g9 i8 i11 h10 g11 g10 f10 i7 i6 f11 h9 e9 h7 j5 \
                                e10 g8 d10 d12 j10 h5 h12 k9 g13 f14 i13 j14 f12 e11 j13 h13 j12"
            .split_whitespace()
            .map(|m| Move::Place(p(m)))
            .collect();
        let mut b = Board::from_moves(Rule::Renju, &moves).unwrap();
        assert_eq!(b.shape(p("g12"), Color::White), Shape::ThreeTwo);
        let line: Vec<Pos> = ["j11", "j9", "k11", "h11", "l10", "h14", "m9"]
            .iter()
            .map(|m| p(m))
            .collect();
        let mut defences = Vec::new();
        vcf_defences(&mut b, &line, &mut defences);
        assert!(defences.iter().any(|m| m.0 == p("g12")), "{defences:?}");
        // The board is left as it was.
        assert_eq!(b.history().len(), moves.len());
    }

    #[test]
    fn threatened_side_gets_defences_and_own_fours_but_not_own_threes() {
        // Black's open three h8 i8 j8 threatens an open four. White's c5 would make an open three
        // (c3 c4 c5) and g12 a four (d12 e12 f12 g12, blocked by Black's c12): the four is a
        // tempo move worth searching, the three is not (Black's open four comes first).
        let mut b = Board::from_points(
            Rule::Freestyle,
            &["h8", "i8", "j8", "c12", "n2"],
            &["c3", "c4", "d12", "e12", "f12"],
            Color::White,
        );
        let status = analyse(&mut b);
        assert_eq!(status, Status::Threatened);
        assert_eq!(b.shape(p("c5"), Color::White), Shape::OpenThree);
        assert_eq!(b.shape(p("g12"), Color::White), Shape::Four);
        let mut moves = Vec::new();
        generate(&mut b, status, &mut moves);
        let points: Vec<Pos> = moves.iter().map(|m| m.0).collect();
        for expected in ["g8", "k8", "g12"] {
            assert!(points.contains(&p(expected)), "{expected}: {points:?}");
        }
        assert!(!points.contains(&p("c5")), "{points:?}");
        assert!(!points.contains(&p("c2")), "{points:?}");
    }
}
