//! Opening files and the 26 standard renju openings: each opening is a code, a name and the
//! first stones (Black first) in human notation, one opening a line (`D4 Kagetsu 花月 H8 H9 I9`),
//! with `#` comment lines. The app starts games from them and the match tools play them from
//! both sides.

use crate::rules::Pos;
use std::sync::OnceLock;

/// The 26 standard renju openings (see the file's header for its sources).
const RENJU_26: &str = include_str!("../../data/openings/renju_26_openings.txt");

/// A starting position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Opening {
    pub code: String,
    pub name: String,
    pub moves: Vec<Pos>,
}

impl Opening {
    /// The code and name, as a menu shows them (`D4 Kagetsu 花月`).
    pub fn label(&self) -> String {
        if self.name.is_empty() {
            self.code.clone()
        } else {
            format!("{} {}", self.code, self.name)
        }
    }

    /// One line of an opening file, as [`parse_openings`] reads it: code, name, then the moves.
    pub fn line(&self) -> String {
        let moves: Vec<String> = self.moves.iter().map(|p| p.to_notation()).collect();
        format!("{} {}", self.label(), moves.join(" "))
    }
}

/// What is wrong with an opening file.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub enum OpeningsError {
    #[error("opening line {line}: no moves in '{text}'")]
    NoMoves { line: usize, text: String },
    #[error("no openings found")]
    Empty,
}

/// Reads an opening file: `#` comments; each other line is an optional code and name followed by
/// the moves in human notation.
pub fn parse_openings(text: &str) -> Result<Vec<Opening>, OpeningsError> {
    let mut openings = Vec::new();
    for (number, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let tokens: Vec<&str> = line.split_whitespace().collect();
        let first_move = tokens
            .iter()
            .rposition(|t| t.parse::<Pos>().is_err())
            .map_or(0, |last_word| last_word + 1);
        let moves: Vec<Pos> = tokens[first_move..]
            .iter()
            .filter_map(|t| t.parse().ok())
            .collect();
        if moves.is_empty() {
            return Err(OpeningsError::NoMoves {
                line: number + 1,
                text: line.to_string(),
            });
        }
        let words = &tokens[..first_move];
        openings.push(Opening {
            code: words
                .first()
                .map_or_else(|| format!("#{}", openings.len() + 1), |w| w.to_string()),
            name: words.iter().skip(1).copied().collect::<Vec<_>>().join(" "),
            moves,
        });
    }
    if openings.is_empty() {
        return Err(OpeningsError::Empty);
    }
    Ok(openings)
}

/// The 26 standard renju openings, D1 (Kansei) to I13 (Suisei).
pub fn standard_openings() -> &'static [Opening] {
    static OPENINGS: OnceLock<Vec<Opening>> = OnceLock::new();
    OPENINGS.get_or_init(|| parse_openings(RENJU_26).unwrap_or_default())
}

/// The standard opening with this code (`D4`, `i13`; any case), if there is one.
pub fn standard_opening(code: &str) -> Option<&'static Opening> {
    standard_openings()
        .iter()
        .find(|opening| opening.code.eq_ignore_ascii_case(code.trim()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::Game;
    use crate::rules::Rule;

    fn p(text: &str) -> Pos {
        text.parse().expect("point")
    }

    #[test]
    fn the_standard_openings_are_the_26_with_three_stones_each() {
        let openings = standard_openings();
        assert_eq!(openings.len(), 26);
        assert_eq!(openings[0].label(), "D1 Kansei 寒星");
        assert_eq!(openings[0].moves, vec![p("h8"), p("h9"), p("h10")]);
        assert_eq!(openings[3].label(), "D4 Kagetsu 花月");
        assert_eq!(openings[13].code, "I1");
        for (index, opening) in openings.iter().enumerate() {
            let direct = index < 13;
            let code = format!("{}{}", if direct { 'D' } else { 'I' }, index % 13 + 1);
            assert_eq!(opening.code, code);
            let [first, second, third] = opening.moves[..] else {
                panic!("{} has {} moves", opening.code, opening.moves.len());
            };
            assert_eq!(first, p("h8"), "{code} starts at the centre");
            // Direct openings put White's stone straight beside Black's, indirect diagonally.
            let (dx, dy) = (
                i32::from(second.x()) - i32::from(first.x()),
                i32::from(second.y()) - i32::from(first.y()),
            );
            let steps = if direct { 1 } else { 2 };
            assert_eq!(dx.abs() + dy.abs(), steps, "{code}'s second stone");
            assert_eq!(dx.abs().max(dy.abs()), 1, "{code}'s second stone");
            assert!(third != first && third != second && first.distance(third) <= 2);
            let mut game = Game::new(Rule::Renju);
            for &stone in &opening.moves {
                assert_eq!(game.play(stone), Ok(None), "{code}");
            }
        }
    }

    #[test]
    fn a_standard_opening_is_found_by_its_code_in_any_case() {
        assert_eq!(
            standard_opening("d4").map(Opening::label).as_deref(),
            Some("D4 Kagetsu 花月")
        );
        assert_eq!(
            standard_opening(" I13 ").map(|o| o.code.as_str()),
            Some("I13")
        );
        assert_eq!(standard_opening("D14"), None);
        assert_eq!(standard_opening(""), None);
    }

    #[test]
    fn an_opening_line_reads_back_and_a_line_without_moves_is_an_error() {
        let openings = parse_openings("# comment\n\nX1 Test name h8 h9 i9\nh8 i9\n").unwrap();
        assert_eq!(openings.len(), 2);
        assert_eq!(openings[0].line(), "X1 Test name h8 h9 i9");
        assert_eq!(openings[1].code, "#2");
        assert_eq!(parse_openings(&openings[0].line()).unwrap()[0], openings[0]);
        assert_eq!(
            parse_openings("X1 name\n"),
            Err(OpeningsError::NoMoves {
                line: 1,
                text: "X1 name".to_string()
            })
        );
        assert_eq!(parse_openings("# nothing\n"), Err(OpeningsError::Empty));
    }
}
