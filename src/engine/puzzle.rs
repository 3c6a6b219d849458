//! Reader for the puzzle files the engine is tested and measured on (`puzzle ... end` blocks with
//! `rule`, `side_to_move`, `goal`, optional `solution` / `final_five_point`, and a 15-line `board`
//! picture, first line = row 15, `x` black, `o` white).

use crate::rules::{Board, Color, PlaceError, Pos, Rule};

/// One puzzle: a position and what the side to move can force.
#[derive(Clone, Debug)]
pub struct Puzzle {
    pub name: String,
    pub rule: Rule,
    pub to_move: Color,
    /// `VCF`, `VCT` or `VCT3` (the first word of the `goal` line).
    pub goal: String,
    /// The known solution line (attacker first), if given.
    pub solution: Vec<Pos>,
    /// The five point the solution ends on, if given.
    pub final_five: Option<Pos>,
    pub stones: Vec<(Pos, Color)>,
}

impl Puzzle {
    /// The collection: the name up to `#` (`lfz084/黑先VCF_puzzle#12` -> `lfz084/黑先VCF_puzzle`).
    pub fn collection(&self) -> &str {
        self.name.split('#').next().unwrap_or(&self.name)
    }

    pub fn board(&self) -> Result<Board, PlaceError> {
        Board::from_stones(self.rule, &self.stones, self.to_move)
    }
}

/// A puzzle file that could not be read.
#[derive(Debug, thiserror::Error)]
#[error("line {line}: {reason}")]
pub struct PuzzleError {
    pub line: usize,
    pub reason: String,
}

/// Parses every puzzle in `text`.
pub fn parse(text: &str) -> Result<Vec<Puzzle>, PuzzleError> {
    let mut puzzles = Vec::new();
    let mut lines = text.lines().enumerate();
    while let Some((number, line)) = lines.next() {
        let Some(name) = line.strip_prefix("puzzle ") else {
            continue;
        };
        let error = |line: usize, reason: String| PuzzleError {
            line: line + 1,
            reason,
        };
        let mut puzzle = Puzzle {
            name: name.trim().to_string(),
            rule: Rule::Renju,
            to_move: Color::Black,
            goal: String::new(),
            solution: Vec::new(),
            final_five: None,
            stones: Vec::new(),
        };
        let mut row = None;
        loop {
            let Some((number, line)) = lines.next() else {
                return Err(error(number, format!("puzzle '{name}' has no 'end'")));
            };
            if let Some(y) = row {
                if y < 15 {
                    let cells: Vec<char> = line.trim().chars().collect();
                    if cells.len() != 15 {
                        return Err(error(number, "a board line needs 15 cells".to_string()));
                    }
                    for (x, cell) in cells.iter().enumerate() {
                        let color = match cell {
                            'x' | 'X' => Color::Black,
                            'o' | 'O' => Color::White,
                            _ => continue,
                        };
                        let p = Pos::new(x as u8, y)
                            .ok_or_else(|| error(number, "board point out of range".to_string()))?;
                        puzzle.stones.push((p, color));
                    }
                    row = Some(y + 1);
                    continue;
                }
            }
            let (word, rest) = line.split_once(' ').unwrap_or((line, ""));
            let first = rest.split_whitespace().next().unwrap_or("");
            match word.trim() {
                "end" => break,
                "board" => row = Some(0),
                "rule" => {
                    puzzle.rule = first
                        .parse()
                        .map_err(|reason: String| error(number, reason))?
                }
                "side_to_move" => {
                    puzzle.to_move = match first {
                        "black" => Color::Black,
                        "white" => Color::White,
                        other => return Err(error(number, format!("unknown side '{other}'"))),
                    }
                }
                "goal" => puzzle.goal = first.split('(').next().unwrap_or("").to_string(),
                "solution" => {
                    puzzle.solution = rest
                        .split_whitespace()
                        .map(|m| m.parse::<Pos>())
                        .collect::<Result<_, _>>()
                        .map_err(|e| error(number, e.to_string()))?
                }
                "final_five_point" => {
                    puzzle.final_five = Some(
                        first
                            .parse()
                            .map_err(|e: crate::rules::CoordError| error(number, e.to_string()))?,
                    )
                }
                _ => {}
            }
        }
        if row != Some(15) {
            return Err(error(number, format!("puzzle '{name}' has no full board")));
        }
        puzzles.push(puzzle);
    }
    Ok(puzzles)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_a_puzzle() {
        let mut text = String::from(
            "# comment\npuzzle t/a#3\nrule renju\nside_to_move white (inferred)\ngoal VCT3(x)\n\
             solution H8 I9\nboard\n",
        );
        for y in 0..15 {
            text.push_str(if y == 7 {
                ".......x.......\n"
            } else {
                "...............\n"
            });
        }
        text.push_str("end\n");
        let puzzles = parse(&text).unwrap();
        assert_eq!(puzzles.len(), 1);
        let puzzle = &puzzles[0];
        assert_eq!(puzzle.collection(), "t/a");
        assert_eq!(puzzle.to_move, Color::White);
        assert_eq!(puzzle.goal, "VCT3");
        assert_eq!(puzzle.solution.len(), 2);
        assert_eq!(puzzle.stones, vec![(Pos::CENTER, Color::Black)]);
        assert!(parse("puzzle x\nboard\n...\nend\n").is_err());
    }
}
