//! Plain coordinate notation as RenjuNet, RenLib and most renju programs print it: `h8 h9 j10`,
//! case-insensitive, separated by spaces, commas or semicolons, also compact (`h8h9j10`) and
//! numbered (`1. h8 h9 2. j10`). `pass` (or `--`) is a pass; `#` starts a comment to the end of
//! the line. Only the moves are kept.

use super::RecordedMove;
use super::{
    decode_text, move_notation, too_many_moves, GameRecord, Location, RecordError, RecordFormat,
    MAX_MOVES,
};
use crate::rules::{Move, Pos, SIZE};

fn syntax(line: usize, column: usize, message: String) -> RecordError {
    RecordError::Syntax {
        format: RecordFormat::Text,
        location: Location::Line { line, column },
        message,
    }
}

/// Reads one token: a single point, a pass, or several points written together.
fn token_moves(token: &str) -> Option<Vec<Move>> {
    let lower = token.to_ascii_lowercase();
    if lower == "pass" || lower == "--" {
        return Some(vec![Move::Pass]);
    }
    let mut moves = Vec::new();
    let bytes = lower.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let column = bytes[i];
        if !(b'a'..b'a' + SIZE).contains(&column) {
            return None;
        }
        i += 1;
        let first = bytes.get(i).filter(|b| b.is_ascii_digit())?;
        let mut row = first - b'0';
        i += 1;
        if let Some(second) = bytes.get(i).filter(|b| b.is_ascii_digit()) {
            let two = row * 10 + (second - b'0');
            if row == 1 && two <= SIZE {
                row = two;
                i += 1;
            }
        }
        if row == 0 {
            return None;
        }
        moves.push(Move::Place(Pos::new(column - b'a', SIZE - row)?));
    }
    Some(moves)
}

/// Strips a move number such as `12.` from the front of a token.
fn strip_number(token: &str) -> &str {
    let digits = token.bytes().take_while(u8::is_ascii_digit).count();
    if digits > 0 && token[digits..].starts_with('.') {
        token[digits + 1..].trim_start_matches('.')
    } else {
        token
    }
}

pub(super) fn parse(bytes: &[u8]) -> Result<GameRecord, RecordError> {
    let text = decode_text(bytes);
    let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
    let mut record = GameRecord::default();
    for (line_index, line) in text.lines().enumerate() {
        let line = line.split('#').next().unwrap_or_default();
        let mut column = 0;
        for token in line.split(|c: char| c.is_whitespace() || c == ',' || c == ';') {
            let token_column = column + 1;
            column += token.len() + 1;
            let move_text = strip_number(token);
            if move_text.is_empty() {
                continue;
            }
            let moves = token_moves(move_text).ok_or_else(|| {
                syntax(
                    line_index + 1,
                    token_column,
                    format!("'{token}' is not a move (expected points like h8, or pass)"),
                )
            })?;
            record
                .moves
                .extend(moves.into_iter().map(RecordedMove::new));
            if record.moves.len() > MAX_MOVES {
                return Err(syntax(line_index + 1, token_column, too_many_moves()));
            }
        }
    }
    Ok(record)
}

/// Whether `bytes` reads as plain notation with at least one move.
pub(super) fn looks_like_notation(bytes: &[u8]) -> bool {
    parse(bytes).is_ok_and(|record| !record.moves.is_empty())
}

pub(super) fn write(record: &GameRecord) -> Vec<u8> {
    let mut text = record
        .moves
        .iter()
        .map(|m| move_notation(m.mv))
        .collect::<Vec<_>>()
        .join(" ");
    text.push('\n');
    text.into_bytes()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn notation(text: &str) -> Result<String, String> {
        GameRecord::parse(text.as_bytes(), RecordFormat::Text)
            .map(|r| {
                r.moves
                    .iter()
                    .map(|m| move_notation(m.mv))
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .map_err(|e| e.to_string())
    }

    #[test]
    fn spellings_players_use() {
        let expected = Ok("h8 h9 j10 a1 o15 pass".to_string());
        assert_eq!(notation("h8 h9 j10 a1 o15 pass"), expected);
        assert_eq!(notation("H8,H9,J10, A1;O15 PASS\n"), expected);
        assert_eq!(notation("h8h9j10a1o15 --"), expected);
        assert_eq!(notation("1. h8 h9 2. j10 a1\n3.o15 pass # done"), expected);
        assert_eq!(notation("\u{feff}h8h9\nj10a1o15\n\npass"), expected);
        assert_eq!(notation("h1h11h15a10"), Ok("h1 h11 h15 a10".to_string()));
        assert_eq!(notation(""), Ok(String::new()));
    }

    #[test]
    fn bad_tokens_are_located() {
        assert_eq!(
            notation("h8 h9\nj10 z5"),
            Err(
                "plain notation record, line 2, column 5: 'z5' is not a move (expected \
                 points like h8, or pass)"
                    .to_string()
            )
        );
        for bad in ["h16", "h0", "h", "8h", "h8x", "p1", "h8\u{e9}"] {
            assert!(notation(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn writes_one_line() {
        let record = GameRecord::parse(b"h8 h9 pass j10", RecordFormat::Text).unwrap();
        assert_eq!(
            record.write(RecordFormat::Text).unwrap(),
            b"h8 h9 pass j10\n"
        );
    }
}
