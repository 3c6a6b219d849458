//! RenLib `.lib` libraries (read only): a 20-byte header (`FF "RenLib" FF`, major and minor
//! version) and a pre-order stream of 2-byte nodes `(pos, flags)`, optionally followed by two
//! bytes of extended flags and by NUL-terminated comment and board-text payloads. `pos` is
//! `x + 16 * y` with `x` 1..15 the column and `y` 0..14 the row from the top; 0 is the root or a
//! pass. A node flagged RIGHT ends a line, so the main line (first child at every branch) is the
//! run of nodes up to the first such node. The rest of the tree is checked and skipped. Comments
//! are GBK, or Windows-1252 when they are not valid GBK.

use super::{
    decode_as, too_many_moves, GameRecord, Location, RecordError, RecordFormat, RecordedMove,
    MAX_MOVES,
};
use crate::rules::{Move, Pos, Rule};

/// The first eight bytes of a RenLib file with a header.
pub(super) const MAGIC: &[u8] = b"\xFFRenLib\xFF";
/// Very old libraries have no header and start with the centre move.
pub(super) const OLD_FIRST_BYTE: u8 = 0x78;

const HEADER_SIZE: usize = 20;
/// The newest file version RenLib's own reader accepts (3.4).
const NEWEST_VERSION: (u8, u8) = (3, 4);

const RIGHT: u8 = 0x40;
const OLD_COMMENT: u8 = 0x20;
const COMMENT: u8 = 0x08;
const EXTENSION: u8 = 0x01;
/// In the extended flags (the two extra bytes, low byte second).
const BOARD_TEXT: u16 = 0x0001;

fn syntax(offset: usize, message: String) -> RecordError {
    RecordError::Syntax {
        format: RecordFormat::RenLib,
        location: Location::Byte(offset),
        message,
    }
}

/// Reads a NUL-terminated payload stored in 2-byte chunks, starting at `*at`.
fn payload(bytes: &[u8], at: &mut usize, what: &str) -> Result<Vec<u8>, RecordError> {
    let start = *at;
    let mut text = Vec::new();
    loop {
        let chunk = bytes.get(*at..*at + 2).ok_or_else(|| {
            syntax(
                start,
                format!("the {what} starting here is cut off (truncated file?)"),
            )
        })?;
        *at += 2;
        if chunk[0] == 0 {
            return Ok(text);
        }
        text.push(chunk[0]);
        if chunk[1] == 0 {
            return Ok(text);
        }
        text.push(chunk[1]);
    }
}

/// RenLib is a Windows program that stores comments in the "ANSI" code page of the machine that
/// wrote them: GBK for the Chinese libraries that are most common today, Windows-1252 for the
/// Western ones (text that is not valid GBK).
fn decode_comment(bytes: &[u8]) -> String {
    match encoding_rs::GBK.decode_without_bom_handling_and_without_replacement(bytes) {
        Some(text) => text.into_owned(),
        None => decode_as(bytes, encoding_rs::WINDOWS_1252),
    }
}

pub(super) fn parse(bytes: &[u8]) -> Result<GameRecord, RecordError> {
    let mut at = if bytes.starts_with(MAGIC) {
        if bytes.len() < HEADER_SIZE {
            return Err(syntax(
                bytes.len(),
                format!("the {HEADER_SIZE}-byte header is cut off"),
            ));
        }
        let version = (bytes[8], bytes[9]);
        if version > NEWEST_VERSION {
            return Err(syntax(
                8,
                format!(
                    "library version {}.{} is newer than the supported {}.{}",
                    version.0, version.1, NEWEST_VERSION.0, NEWEST_VERSION.1
                ),
            ));
        }
        HEADER_SIZE
    } else if bytes.first() == Some(&OLD_FIRST_BYTE) {
        0
    } else {
        return Err(syntax(
            0,
            "not a RenLib library (no 'RenLib' header)".to_string(),
        ));
    };
    let mut record = GameRecord::new(Rule::Renju);
    let mut in_main_line = true;
    let mut first = true;
    while at < bytes.len() {
        let node_at = at;
        let Some(&[pos, flags]) = bytes.get(at..at + 2) else {
            return Err(syntax(
                at,
                "a node is cut off (truncated file?)".to_string(),
            ));
        };
        at += 2;
        let mut extended = 0u16;
        if flags & EXTENSION != 0 {
            let Some(&[high, low]) = bytes.get(at..at + 2) else {
                return Err(syntax(
                    node_at,
                    "the node's extended flags are cut off (truncated file?)".to_string(),
                ));
            };
            extended = u16::from_be_bytes([high, low]);
            at += 2;
        }
        let is_root = first && pos == 0;
        first = false;
        let mv = if pos == 0 {
            Move::Pass
        } else {
            let (x, y) = (pos % 16, pos / 16);
            if x == 0 {
                return Err(syntax(
                    node_at,
                    format!("node position {pos:#04x} is off the 15x15 board"),
                ));
            }
            Move::Place(Pos::new(x - 1, y).ok_or_else(|| {
                syntax(
                    node_at,
                    format!("node position {pos:#04x} is off the 15x15 board"),
                )
            })?)
        };
        if flags & OLD_COMMENT != 0 {
            return Err(syntax(
                node_at,
                "old-style comments (libraries from before RenLib 3) are not supported".to_string(),
            ));
        }
        let comment = if flags & COMMENT != 0 {
            Some(decode_comment(&payload(bytes, &mut at, "comment")?))
        } else {
            None
        };
        if extended & BOARD_TEXT != 0 {
            payload(bytes, &mut at, "board text")?;
        }
        if is_root {
            record.comment = comment.filter(|c| !c.is_empty());
        } else if in_main_line {
            if record.moves.len() >= MAX_MOVES {
                return Err(syntax(node_at, too_many_moves()));
            }
            record.moves.push(RecordedMove {
                mv,
                time_ms: None,
                comment: comment.filter(|c| !c.is_empty()),
            });
        }
        if flags & RIGHT != 0 {
            in_main_line = false;
        }
    }
    Ok(record)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn library(nodes: &[u8]) -> Vec<u8> {
        let mut bytes = MAGIC.to_vec();
        bytes.extend_from_slice(&[3, 0]);
        bytes.resize(HEADER_SIZE, 0xFF);
        bytes.extend_from_slice(&[0, 0]);
        bytes.extend_from_slice(nodes);
        bytes
    }

    #[test]
    fn main_line_stops_at_the_first_leaf() {
        // h8, h9 (comment "hi"), then a leaf j10; a sibling line follows.
        let bytes = library(&[
            0x78, 0x80, 0x68, COMMENT, b'h', b'i', 0, 0, 0x5a, RIGHT, 0x69, RIGHT,
        ]);
        let record = GameRecord::parse(&bytes, RecordFormat::RenLib).unwrap();
        let moves: Vec<String> = record
            .moves
            .iter()
            .map(|m| super::super::move_notation(m.mv))
            .collect();
        assert_eq!(moves, ["h8", "h9", "j10"]);
        assert_eq!(record.moves[1].comment.as_deref(), Some("hi"));
    }

    #[test]
    fn comments_are_gbk_or_windows_1252() {
        // h8 "黑先" in GBK, h9 "Jö" in Windows-1252 (not valid GBK).
        let bytes = library(&[
            0x78, COMMENT, 0xba, 0xda, 0xcf, 0xc8, 0, 0, 0x68, COMMENT, b'J', 0xf6, 0, 0,
        ]);
        let record = GameRecord::parse(&bytes, RecordFormat::RenLib).unwrap();
        assert_eq!(record.moves[0].comment.as_deref(), Some("黑先"));
        assert_eq!(record.moves[1].comment.as_deref(), Some("Jö"));
    }

    #[test]
    fn malformed_libraries_are_located() {
        let cases: [(Vec<u8>, &str); 6] = [
            (MAGIC.to_vec(), "header is cut off"),
            (library(&[0x78]), "byte 22: a node is cut off"),
            (
                library(&[0x78, EXTENSION, 0]),
                "byte 22: the node's extended flags",
            ),
            (
                library(&[0x78, COMMENT, b'a', b'b']),
                "byte 24: the comment",
            ),
            (library(&[0x10, 0]), "byte 22: node position 0x10 is off"),
            (b"junk".to_vec(), "not a RenLib library"),
        ];
        for (bytes, expected) in cases {
            let error = GameRecord::parse(&bytes, RecordFormat::RenLib).expect_err(expected);
            let message = error.to_string();
            assert!(message.contains(expected), "{message}");
        }
        let mut newer = library(&[]);
        newer[8] = 4;
        let error = GameRecord::parse(&newer, RecordFormat::RenLib).expect_err("version");
        assert!(
            error.to_string().contains("version 4.0 is newer"),
            "{error}"
        );
    }
}
