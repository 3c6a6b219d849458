//! A game in progress: the board under its rule, legality of each move (occupied points, Black's
//! forbidden points), the result and its reason, undo and passes. Front ends (window, terminal,
//! Gomocup brain) and the record formats all go through [`Game`]; the engine works on its
//! [`Board`].

pub mod clock;
pub mod openings;
pub mod record;

use crate::rules::{Board, Color, ForbiddenKind, Move, PlaceError, Pos, Rule};
use std::fmt;

/// Why a game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EndReason {
    /// The winner made five in a row (exactly five where the rule needs it).
    Five,
    /// Black played a forbidden point (renju) and lost.
    Forbidden(ForbiddenKind),
    /// The loser ran out of time.
    Timeout,
    /// The loser resigned.
    Resignation,
    /// Both sides passed in a row: a draw.
    BothPassed,
    /// The board is full: a draw.
    BoardFull,
    /// The players agreed to a draw.
    Agreement,
}

impl fmt::Display for EndReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EndReason::Five => write!(f, "five in a row"),
            EndReason::Forbidden(kind) => write!(f, "forbidden move ({kind})"),
            EndReason::Timeout => write!(f, "time ran out"),
            EndReason::Resignation => write!(f, "resignation"),
            EndReason::BothPassed => write!(f, "both players passed"),
            EndReason::BoardFull => write!(f, "the board is full"),
            EndReason::Agreement => write!(f, "agreed by the players"),
        }
    }
}

/// The outcome of a finished game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GameResult {
    /// `None` for a draw.
    pub winner: Option<Color>,
    pub reason: EndReason,
}

impl GameResult {
    /// The side that lost, `None` for a draw.
    pub fn loser(&self) -> Option<Color> {
        self.winner.map(Color::opponent)
    }
}

impl fmt::Display for GameResult {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.winner {
            Some(color) => write!(f, "{} wins: {}", color.name(), self.reason),
            None => write!(f, "Draw: {}", self.reason),
        }
    }
}

/// What happens when Black plays a forbidden point in renju.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum ForbiddenPolicy {
    /// The move is refused with an explanation (friendly play).
    #[default]
    Refuse,
    /// The move is played and Black loses (tournament play).
    Lose,
}

/// Why a move was not accepted.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum MoveError {
    #[error("the game is over")]
    GameOver,
    #[error(transparent)]
    Place(#[from] PlaceError),
    #[error("{0} is forbidden for Black ({1})")]
    Forbidden(Pos, ForbiddenKind),
}

/// A game: board, rule, result, and how many of its first stones are the opening it started
/// from (undo does not take those back).
#[derive(Clone, Debug)]
pub struct Game {
    board: Board,
    result: Option<GameResult>,
    forbidden_policy: ForbiddenPolicy,
    opening_stones: usize,
}

impl Game {
    pub fn new(rule: Rule) -> Game {
        Game {
            board: Board::new(rule),
            result: None,
            forbidden_policy: ForbiddenPolicy::default(),
            opening_stones: 0,
        }
    }

    /// A game from the stones of an opening (Black first), which undo then leaves in place; the
    /// first stone that cannot be played is refused with the reason.
    pub fn from_opening(rule: Rule, stones: &[Pos]) -> Result<Game, (Pos, MoveError)> {
        let moves: Vec<Move> = stones.iter().map(|&p| Move::Place(p)).collect();
        let game =
            Game::from_moves(rule, &moves).map_err(|(index, error)| (stones[index], error))?;
        Ok(game.with_opening_stones(stones.len()))
    }

    /// The same game with its first `count` moves (at most all of them) kept from undo.
    pub fn with_opening_stones(mut self, count: usize) -> Game {
        self.opening_stones = count.min(self.moves().len());
        self
    }

    /// How many of the first moves are the opening's stones, which undo does not take back.
    pub fn opening_stones(&self) -> usize {
        self.opening_stones
    }

    /// Replays `moves` from the start, checking each one like [`Game::play`].
    pub fn from_moves(rule: Rule, moves: &[Move]) -> Result<Game, (usize, MoveError)> {
        let mut game = Game::new(rule);
        for (index, &mv) in moves.iter().enumerate() {
            match mv {
                Move::Place(p) => game.play(p).map(|_| ()),
                Move::Pass => game.pass().map(|_| ()),
            }
            .map_err(|error| (index, error))?;
        }
        Ok(game)
    }

    pub fn with_forbidden_policy(mut self, policy: ForbiddenPolicy) -> Game {
        self.forbidden_policy = policy;
        self
    }

    pub fn set_forbidden_policy(&mut self, policy: ForbiddenPolicy) {
        self.forbidden_policy = policy;
    }

    pub fn forbidden_policy(&self) -> ForbiddenPolicy {
        self.forbidden_policy
    }

    pub fn board(&self) -> &Board {
        &self.board
    }

    pub fn rule(&self) -> Rule {
        self.board.rule()
    }

    pub fn moves(&self) -> &[Move] {
        self.board.history()
    }

    pub fn side_to_move(&self) -> Color {
        self.board.side_to_move()
    }

    pub fn result(&self) -> Option<GameResult> {
        self.result
    }

    pub fn is_over(&self) -> bool {
        self.result.is_some()
    }

    /// Whether `p` is forbidden for the side to move (always `false` for White or outside renju).
    pub fn forbidden_kind(&self, p: Pos) -> Option<ForbiddenKind> {
        if !self.rule().has_forbidden(self.side_to_move()) {
            return None;
        }
        self.board.forbidden_kind(p)
    }

    /// Black's forbidden points, when Black is to move in renju (empty otherwise).
    pub fn forbidden_points(&self) -> Vec<(Pos, ForbiddenKind)> {
        if !self.rule().has_forbidden(self.side_to_move()) || self.is_over() {
            return Vec::new();
        }
        self.board.forbidden_points()
    }

    /// The winning five, if the game was won by one.
    pub fn winning_line(&self) -> Option<Vec<Pos>> {
        match self.result {
            Some(GameResult {
                reason: EndReason::Five,
                ..
            }) => self
                .board
                .last_move()
                .and_then(Move::pos)
                .and_then(|p| self.board.winning_line(p)),
            _ => None,
        }
    }

    /// Plays `p` for the side to move. Returns the result if the move ended the game.
    pub fn play(&mut self, p: Pos) -> Result<Option<GameResult>, MoveError> {
        if self.is_over() {
            return Err(MoveError::GameOver);
        }
        if !p.is_on_board() {
            return Err(PlaceError::OffBoard(p).into());
        }
        if !self.board.is_empty(p) {
            return Err(PlaceError::Occupied(p).into());
        }
        let color = self.side_to_move();
        let forbidden = if self.rule().has_forbidden(color) {
            self.board.forbidden_kind(p)
        } else {
            None
        };
        if let (Some(kind), ForbiddenPolicy::Refuse) = (forbidden, self.forbidden_policy) {
            return Err(MoveError::Forbidden(p, kind));
        }
        self.board.play(p)?;
        self.result = if let Some(kind) = forbidden {
            Some(GameResult {
                winner: Some(color.opponent()),
                reason: EndReason::Forbidden(kind),
            })
        } else if self.board.winning_line(p).is_some() {
            Some(GameResult {
                winner: Some(color),
                reason: EndReason::Five,
            })
        } else if self.board.is_full() {
            Some(GameResult {
                winner: None,
                reason: EndReason::BoardFull,
            })
        } else {
            None
        };
        Ok(self.result)
    }

    /// Passes for the side to move; a second pass in a row draws the game.
    pub fn pass(&mut self) -> Result<Option<GameResult>, MoveError> {
        if self.is_over() {
            return Err(MoveError::GameOver);
        }
        let previous_was_pass = self.board.last_move() == Some(Move::Pass);
        self.board.pass();
        if previous_was_pass {
            self.result = Some(GameResult {
                winner: None,
                reason: EndReason::BothPassed,
            });
        }
        Ok(self.result)
    }

    /// Ends the game with `loser` losing on time.
    pub fn lose_on_time(&mut self, loser: Color) {
        if !self.is_over() {
            self.result = Some(GameResult {
                winner: Some(loser.opponent()),
                reason: EndReason::Timeout,
            });
        }
    }

    /// Ends the game with `loser` resigning.
    pub fn resign(&mut self, loser: Color) {
        if !self.is_over() {
            self.result = Some(GameResult {
                winner: Some(loser.opponent()),
                reason: EndReason::Resignation,
            });
        }
    }

    /// Ends the game in a draw the players agreed to.
    pub fn agree_draw(&mut self) {
        if !self.is_over() {
            self.result = Some(GameResult {
                winner: None,
                reason: EndReason::Agreement,
            });
        }
    }

    /// Takes back the last move (and reopens the game if it had ended), unless it is one of the
    /// opening's stones.
    pub fn undo(&mut self) -> Option<Move> {
        if self.moves().len() <= self.opening_stones {
            return None;
        }
        let mv = self.board.undo()?;
        self.result = None;
        Some(mv)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn moves(text: &str) -> Vec<Move> {
        text.split_whitespace()
            .map(|m| Move::Place(m.parse().unwrap()))
            .collect()
    }

    #[test]
    fn undo_leaves_the_opening_stones_in_place() {
        let stones = ["h8", "h9", "i9"].map(|p| p.parse().unwrap());
        let mut game = Game::from_opening(Rule::Renju, &stones).unwrap();
        assert_eq!(game.opening_stones(), 3);
        game.play("g7".parse().unwrap()).unwrap();
        assert_eq!(game.undo(), Some(Move::Place("g7".parse().unwrap())));
        assert_eq!(game.undo(), None);
        assert_eq!(game.moves().len(), 3);
        let occupied = ["h8", "h8"].map(|p| p.parse().unwrap());
        assert!(matches!(
            Game::from_opening(Rule::Renju, &occupied),
            Err((p, MoveError::Place(_))) if p == occupied[1]
        ));
    }

    #[test]
    fn five_wins_under_every_rule() {
        for rule in [Rule::Freestyle, Rule::Standard, Rule::Renju] {
            let mut game = Game::from_moves(rule, &moves("h8 a1 i8 a2 j8 a3 k8 a4")).unwrap();
            let result = game.play("l8".parse().unwrap()).unwrap();
            assert_eq!(
                result,
                Some(GameResult {
                    winner: Some(Color::Black),
                    reason: EndReason::Five
                })
            );
            assert_eq!(game.winning_line().map(|l| l.len()), Some(5));
            assert_eq!(game.play("c3".parse().unwrap()), Err(MoveError::GameOver));
            game.undo();
            assert!(!game.is_over());
        }
    }

    #[test]
    fn overline_for_each_colour_under_each_rule() {
        // Black: h8 i8 j8 l8 m8 then k8 makes six.
        let black_six = "h8 a1 i8 a3 j8 a5 l8 a7 m8 a9";
        let six_point: Pos = "k8".parse().unwrap();
        let mut freestyle = Game::from_moves(Rule::Freestyle, &moves(black_six)).unwrap();
        assert_eq!(
            freestyle.play(six_point).unwrap().map(|r| r.winner),
            Some(Some(Color::Black))
        );
        let mut standard = Game::from_moves(Rule::Standard, &moves(black_six)).unwrap();
        assert_eq!(standard.play(six_point).unwrap(), None);
        let mut renju = Game::from_moves(Rule::Renju, &moves(black_six)).unwrap();
        assert_eq!(
            renju.play(six_point),
            Err(MoveError::Forbidden(six_point, ForbiddenKind::Overline))
        );
        renju.set_forbidden_policy(ForbiddenPolicy::Lose);
        assert_eq!(
            renju.play(six_point).unwrap(),
            Some(GameResult {
                winner: Some(Color::White),
                reason: EndReason::Forbidden(ForbiddenKind::Overline)
            })
        );
        // White: six in row 1 wins in renju and freestyle, not in standard.
        let white_six = "h8 a1 h10 b1 h12 c1 h14 e1 m13 f1 m11";
        let white_point: Pos = "d1".parse().unwrap();
        for (rule, wins) in [
            (Rule::Renju, true),
            (Rule::Freestyle, true),
            (Rule::Standard, false),
        ] {
            let mut game = Game::from_moves(rule, &moves(white_six)).unwrap();
            let winner = game.play(white_point).unwrap().and_then(|r| r.winner);
            assert_eq!(winner == Some(Color::White), wins, "{rule:?}");
        }
    }

    #[test]
    fn two_passes_draw_and_undo_reopens() {
        let mut game = Game::new(Rule::Renju);
        game.play(Pos::CENTER).unwrap();
        assert_eq!(game.pass().unwrap(), None);
        let result = game.pass().unwrap().unwrap();
        assert_eq!(result.winner, None);
        assert_eq!(result.reason, EndReason::BothPassed);
        game.undo();
        assert!(!game.is_over());
        assert_eq!(game.side_to_move(), Color::Black);
        game.agree_draw();
        let result = game.result().unwrap();
        assert_eq!((result.winner, result.reason), (None, EndReason::Agreement));
        assert_eq!(result.to_string(), "Draw: agreed by the players");
        assert_eq!(game.pass(), Err(MoveError::GameOver));
    }

    #[test]
    fn illegal_moves_are_reported() {
        let mut game = Game::new(Rule::Renju);
        game.play(Pos::CENTER).unwrap();
        assert_eq!(
            game.play(Pos::CENTER),
            Err(MoveError::Place(PlaceError::Occupied(Pos::CENTER)))
        );
        assert!(matches!(game.play(Pos(0xff)), Err(MoveError::Place(_))));
        let (index, _) = Game::from_moves(Rule::Renju, &moves("h8 h8")).expect_err("occupied");
        assert_eq!(index, 1);
    }
}
