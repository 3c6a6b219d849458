//! RenLib `.lib` libraries (read only): a 20-byte header (`FF "RenLib" FF`, major and minor
//! version) and a pre-order stream of 2-byte nodes `(pos, flags)`, optionally followed by two
//! bytes of extended flags and by NUL-terminated comment and board-text payloads. `pos` is
//! `x + 16 * y` with `x` 1..15 the column and `y` 0..14 the row from the top; 0 is the root or a
//! pass. A node flagged RIGHT ends a line, so the main line (first child at every branch) is the
//! run of nodes up to the first such node; the whole tree is kept as a [`MoveTree`]. Comments
//! are GBK, or Windows-1252 when they are not valid GBK; old-style (pre-3.0) comments are skipped.

use super::{
    decode_as, too_many_moves, GameRecord, Location, MoveTree, RecordError, RecordFormat,
    RecordedMove, MAX_MOVES,
};
use crate::rules::{Move, Pos, Rule};

/// The first eight bytes of a RenLib file with a header.
pub(super) const MAGIC: &[u8] = b"\xFFRenLib\xFF";
/// Very old libraries have no header and start with the centre move.
pub(super) const OLD_FIRST_BYTE: u8 = 0x78;

const HEADER_SIZE: usize = 20;
/// The newest file version RenLib's own reader accepts (3.4).
const NEWEST_VERSION: (u8, u8) = (3, 4);

const DOWN: u8 = 0x80;
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

/// Skips an old-style comment: 2-byte chunks up to the first chunk with a byte whose high bit is
/// set. RenLib's reader drops these comments too; only their length is known.
fn old_comment(bytes: &[u8], at: &mut usize) -> Result<(), RecordError> {
    let start = *at;
    loop {
        let chunk = bytes.get(*at..*at + 2).ok_or_else(|| {
            syntax(
                start,
                "the old-style comment starting here is cut off (truncated file?)".to_string(),
            )
        })?;
        *at += 2;
        if chunk.iter().any(|b| b & 0x80 != 0) {
            return Ok(());
        }
    }
}

/// Rebuilds the tree the way RenLib does: each node is a child of the current one (merged with
/// an existing child playing the same point); a DOWN node remembers its parent, to which the
/// next RIGHT node (the end of a line) returns.
#[derive(Default)]
struct TreeBuilder {
    tree: MoveTree,
    current: Option<usize>,
    branches: Vec<Option<usize>>,
}

impl TreeBuilder {
    /// Adds one node; `false` when the tree is full.
    fn add(&mut self, mv: Move, comment: Option<String>, flags: u8) -> bool {
        let parent = self.current;
        let node = match self.tree.child(parent, mv) {
            Some(node) => node,
            None => match self.tree.push(parent, mv) {
                Some(node) => node,
                None => return false,
            },
        };
        if comment.is_some() && self.tree.comment(node).is_none() {
            self.tree.set_comment(node, comment);
        }
        self.current = Some(node);
        if flags & DOWN != 0 {
            self.branches.push(parent);
        }
        if flags & RIGHT != 0 {
            if let Some(branch) = self.branches.pop() {
                self.current = branch;
            }
        }
        true
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
    let mut tree = Some(TreeBuilder::default());
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
        let comment = if flags & OLD_COMMENT != 0 {
            old_comment(bytes, &mut at)?;
            None
        } else if flags & COMMENT != 0 {
            Some(decode_comment(&payload(bytes, &mut at, "comment")?))
        } else {
            None
        };
        if extended & BOARD_TEXT != 0 {
            payload(bytes, &mut at, "board text")?;
        }
        let comment = comment.filter(|c| !c.is_empty());
        if is_root {
            record.comment = comment;
            continue;
        }
        if in_main_line {
            if record.moves.len() >= MAX_MOVES {
                return Err(syntax(node_at, too_many_moves()));
            }
            record.moves.push(RecordedMove {
                mv,
                time_ms: None,
                comment: comment.clone(),
            });
        }
        if let Some(builder) = &mut tree {
            if !builder.add(mv, comment, flags) {
                tree = None;
            }
        }
        if flags & RIGHT != 0 {
            in_main_line = false;
        }
    }
    record.tree = tree.map(|builder| builder.tree);
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
        // The tree: h8 (h9, j10) and the sibling first move i9.
        let tree = record.tree.expect("tree");
        assert_eq!(tree.len(), 4);
        assert_eq!(
            tree.main_line(),
            record.moves.iter().map(|m| m.mv).collect::<Vec<_>>()
        );
        let roots: Vec<_> = tree.children(None).filter_map(|n| tree.mv(n)).collect();
        assert_eq!(
            roots,
            [
                Move::Place("h8".parse().unwrap()),
                Move::Place("i9".parse().unwrap())
            ]
        );
        assert_eq!(tree.comment(1), Some("hi"));
        assert_eq!(tree.leaves().count(), 2);
    }

    #[test]
    fn old_comments_are_skipped() {
        // h8 with an old-style comment (the chunk with a high bit ends it), then h9.
        let bytes = library(&[0x78, OLD_COMMENT, b'a', b'b', b'c' | 0x80, 0, 0x68, RIGHT]);
        let record = GameRecord::parse(&bytes, RecordFormat::RenLib).unwrap();
        assert_eq!(record.moves.len(), 2);
        assert_eq!(record.moves[0].comment, None);
        let error = GameRecord::parse(
            &library(&[0x78, OLD_COMMENT, b'a', b'b']),
            RecordFormat::RenLib,
        )
        .expect_err("cut off");
        assert!(
            error
                .to_string()
                .contains("byte 24: the old-style comment starting here is cut off"),
            "{error}"
        );
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
