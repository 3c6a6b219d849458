//! Game records: a [`GameRecord`] (rule, players, moves with times and comments, result) read from
//! and written to the formats players use: SGF, Piskvork `.psq`, RenLib `.lib` (read only, with
//! its whole [`MoveTree`]) and plain coordinate notation. Parsers never panic and refuse oversized input; errors say what is
//! wrong and where (line, byte offset or move number). Saving is atomic.

mod psq;
mod renlib;
mod sgf;
mod text;
mod tree;

pub use tree::MoveTree;

use super::{EndReason, ForbiddenPolicy, Game, GameResult, MoveError};
use crate::rules::{Color, Move, Rule};
use encoding_rs::Encoding;
use std::fmt;
use std::fs::{self, File, OpenOptions};
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// Records larger than this are refused before parsing.
pub const MAX_RECORD_BYTES: usize = 16 * 1024 * 1024;

/// No game on a 15x15 board is longer (225 stones, and two passes in a row end the game).
pub const MAX_MOVES: usize = 1000;

fn too_many_moves() -> String {
    format!("more than {MAX_MOVES} moves, longer than any game on a 15x15 board")
}

/// One move of a record, with the optional time spent on it and a comment.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RecordedMove {
    pub mv: Move,
    /// Thinking time in milliseconds, when known.
    pub time_ms: Option<u64>,
    pub comment: Option<String>,
}

impl RecordedMove {
    pub fn new(mv: Move) -> RecordedMove {
        RecordedMove {
            mv,
            time_ms: None,
            comment: None,
        }
    }
}

/// A whole game as stored in a file. Which fields survive depends on the format: SGF keeps all
/// of them; `.psq` keeps moves, times and player names; plain text keeps the moves.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct GameRecord {
    pub rule: Rule,
    pub black: Option<String>,
    pub white: Option<String>,
    pub moves: Vec<RecordedMove>,
    pub result: Option<GameResult>,
    /// Date as written in the file (SGF `DT`, free form).
    pub date: Option<String>,
    /// Comment on the whole game.
    pub comment: Option<String>,
    /// Every line of play, when the file holds a tree (RenLib libraries); `moves` is its main
    /// line. `None` for the other formats, and for libraries over [`MoveTree::MAX_NODES`].
    pub tree: Option<MoveTree>,
}

/// The file formats a record can be read from or written to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RecordFormat {
    /// Smart Game Format (`.sgf`), written as `FF[4] GM[4]`.
    Sgf,
    /// Piskvork / Gomocup game record (`.psq`).
    Psq,
    /// RenLib binary library (`.lib`), read only.
    RenLib,
    /// Plain coordinate notation (`.txt`): `h8 h9 j10 ...`.
    Text,
}

impl RecordFormat {
    pub const ALL: [RecordFormat; 4] = [
        RecordFormat::Sgf,
        RecordFormat::Psq,
        RecordFormat::RenLib,
        RecordFormat::Text,
    ];

    /// The format a file name's extension stands for (`.sgf`, `.psq`, `.lib`, `.txt`).
    pub fn from_path(path: &Path) -> Option<RecordFormat> {
        let ext = path.extension()?.to_str()?.to_ascii_lowercase();
        match ext.as_str() {
            "sgf" => Some(RecordFormat::Sgf),
            "psq" => Some(RecordFormat::Psq),
            "lib" => Some(RecordFormat::RenLib),
            "txt" => Some(RecordFormat::Text),
            _ => None,
        }
    }

    /// Guesses the format from the content.
    pub fn detect(bytes: &[u8]) -> Option<RecordFormat> {
        if bytes.starts_with(renlib::MAGIC) || bytes.first() == Some(&renlib::OLD_FIRST_BYTE) {
            return Some(RecordFormat::RenLib);
        }
        let start = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
        let trimmed = start.trim_ascii_start();
        if trimmed.starts_with(b"(") {
            Some(RecordFormat::Sgf)
        } else if trimmed.starts_with(b"Piskvorky") {
            Some(RecordFormat::Psq)
        } else if !trimmed.is_empty() && text::looks_like_notation(trimmed) {
            Some(RecordFormat::Text)
        } else {
            None
        }
    }

    /// The usual file extension, without the dot.
    pub fn extension(self) -> &'static str {
        match self {
            RecordFormat::Sgf => "sgf",
            RecordFormat::Psq => "psq",
            RecordFormat::RenLib => "lib",
            RecordFormat::Text => "txt",
        }
    }

    /// Whether [`GameRecord::write`] supports this format.
    pub fn is_writable(self) -> bool {
        self != RecordFormat::RenLib
    }
}

impl fmt::Display for RecordFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            RecordFormat::Sgf => "SGF",
            RecordFormat::Psq => "Piskvork .psq",
            RecordFormat::RenLib => "RenLib .lib",
            RecordFormat::Text => "plain notation",
        })
    }
}

/// Where in the input a problem was found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Location {
    /// 1-based line and column (text formats).
    Line { line: usize, column: usize },
    /// 0-based byte offset (binary formats, SGF).
    Byte(usize),
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Location::Line { line, column } => write!(f, "line {line}, column {column}"),
            Location::Byte(offset) => write!(f, "byte {offset}"),
        }
    }
}

/// Why a record could not be read, replayed or written.
#[derive(Debug, thiserror::Error)]
pub enum RecordError {
    #[error("{format} record, {location}: {message}")]
    Syntax {
        format: RecordFormat,
        location: Location,
        message: String,
    },
    #[error("{format} record, move {number} ({mv}): {problem}")]
    BadMove {
        format: RecordFormat,
        /// 1-based move number.
        number: usize,
        mv: String,
        problem: String,
    },
    // The causes of `Illegal` and `Io` are part of their messages, so they are not also the
    // errors' `source`: a chain of errors would print them twice.
    #[error("move {number} ({mv}) cannot be replayed: {cause}")]
    Illegal {
        /// 1-based move number.
        number: usize,
        mv: String,
        cause: MoveError,
    },
    #[error("the record is {size} bytes; records over {MAX_RECORD_BYTES} bytes are refused")]
    TooLarge { size: u64 },
    #[error("{0} records can only be read, not written")]
    ReadOnly(RecordFormat),
    #[error("{format} cannot record {what}")]
    Unsupported { format: RecordFormat, what: String },
    #[error("cannot tell the record format of {0} (expected .sgf, .psq, .lib or .txt)")]
    UnknownFormat(PathBuf),
    #[error("{path}: {cause}")]
    Io { path: PathBuf, cause: io::Error },
}

impl RecordError {
    pub(crate) fn io(path: &Path, cause: io::Error) -> RecordError {
        RecordError::Io {
            path: path.to_path_buf(),
            cause,
        }
    }
}

/// Notation for a move in messages: `h8` or `pass`.
pub fn move_notation(mv: Move) -> String {
    match mv {
        Move::Place(p) => p.to_notation(),
        Move::Pass => "pass".to_string(),
    }
}

impl GameRecord {
    pub fn new(rule: Rule) -> GameRecord {
        GameRecord {
            rule,
            ..GameRecord::default()
        }
    }

    /// The record of `game`: rule, moves and result (no times, names or comments).
    pub fn from_game(game: &Game) -> GameRecord {
        GameRecord {
            rule: game.rule(),
            moves: game
                .moves()
                .iter()
                .copied()
                .map(RecordedMove::new)
                .collect(),
            result: game.result(),
            ..GameRecord::default()
        }
    }

    /// The moves alone.
    pub fn move_list(&self) -> Vec<Move> {
        self.moves.iter().map(|m| m.mv).collect()
    }

    /// Replays the record under its rule, checking every move. A forbidden move by Black is
    /// accepted only as the losing last move; a resignation, loss on time or agreed draw in the
    /// record ends the game the same way. The returned game refuses forbidden moves from then on.
    pub fn to_game(&self) -> Result<Game, RecordError> {
        let mut game = Game::new(self.rule).with_forbidden_policy(ForbiddenPolicy::Lose);
        for (index, recorded) in self.moves.iter().enumerate() {
            let outcome = match recorded.mv {
                Move::Place(p) => game.play(p),
                Move::Pass => game.pass(),
            };
            if let Err(cause) = outcome {
                return Err(RecordError::Illegal {
                    number: index + 1,
                    mv: move_notation(recorded.mv),
                    cause,
                });
            }
        }
        if let (None, Some(result)) = (game.result(), self.result) {
            match (result.winner, result.reason) {
                (Some(winner), EndReason::Resignation) => game.resign(winner.opponent()),
                (Some(winner), EndReason::Timeout) => game.lose_on_time(winner.opponent()),
                (None, EndReason::Agreement) => game.agree_draw(),
                _ => {}
            }
        }
        game.set_forbidden_policy(ForbiddenPolicy::Refuse);
        Ok(game)
    }

    /// Reads a record in `format`.
    pub fn parse(bytes: &[u8], format: RecordFormat) -> Result<GameRecord, RecordError> {
        if bytes.len() > MAX_RECORD_BYTES {
            return Err(RecordError::TooLarge {
                size: bytes.len() as u64,
            });
        }
        let mut record = match format {
            RecordFormat::Sgf => sgf::parse(bytes)?,
            RecordFormat::Psq => psq::parse(bytes)?,
            RecordFormat::RenLib => renlib::parse(bytes)?,
            RecordFormat::Text => text::parse(bytes)?,
        };
        record.refine_result();
        Ok(record)
    }

    /// Writes the record in `format`.
    pub fn write(&self, format: RecordFormat) -> Result<Vec<u8>, RecordError> {
        match format {
            RecordFormat::Sgf => Ok(sgf::write(self)),
            RecordFormat::Psq => psq::write(self),
            RecordFormat::RenLib => Err(RecordError::ReadOnly(RecordFormat::RenLib)),
            RecordFormat::Text => Ok(text::write(self)),
        }
    }

    /// Reads a record file; the format comes from the extension, else from the content.
    pub fn load(path: impl AsRef<Path>) -> Result<GameRecord, RecordError> {
        let path = path.as_ref();
        let bytes = read_capped(path)?;
        let format = RecordFormat::from_path(path)
            .or_else(|| RecordFormat::detect(&bytes))
            .ok_or_else(|| RecordError::UnknownFormat(path.to_path_buf()))?;
        GameRecord::parse(&bytes, format)
    }

    /// Writes a record file atomically: a temporary file in the same directory is written and
    /// synced, then renamed over `path`, so a crash never leaves a half-written record.
    pub fn save(&self, path: impl AsRef<Path>, format: RecordFormat) -> Result<(), RecordError> {
        let bytes = self.write(format)?;
        write_atomically(path.as_ref(), &bytes)
    }

    /// The winner and coarse reason come from the file; where replaying the moves shows how the
    /// game ended (five, forbidden point, full board, two passes), that more precise reason is
    /// kept. A record whose result the moves prove is completed the same way.
    fn refine_result(&mut self) {
        let Ok(game) = self.to_game() else {
            return;
        };
        let Some(proven) = game.result() else {
            // A win the board does not show: the loser gave up.
            if let Some(stated) = &mut self.result {
                if matches!(stated.reason, EndReason::Five | EndReason::Forbidden(_)) {
                    stated.reason = EndReason::Resignation;
                }
            }
            return;
        };
        let by_board = matches!(
            proven.reason,
            EndReason::Five
                | EndReason::Forbidden(_)
                | EndReason::BoardFull
                | EndReason::BothPassed
        );
        match self.result {
            None if by_board => self.result = Some(proven),
            Some(stated) if by_board && stated.winner == proven.winner => {
                self.result = Some(proven)
            }
            _ => {}
        }
    }
}

/// Which colour plays move `index` (0-based) when moves alternate from Black.
pub(crate) fn color_of(index: usize) -> Color {
    if index % 2 == 0 {
        Color::Black
    } else {
        Color::White
    }
}

/// The encoding of text in a file that does not say: UTF-8 when all of `bytes` is valid UTF-8,
/// otherwise GBK (the superset of GB2312 that Chinese renju programs write).
pub(crate) fn guess_encoding(bytes: &[u8]) -> &'static Encoding {
    if std::str::from_utf8(bytes).is_ok() {
        encoding_rs::UTF_8
    } else {
        encoding_rs::GBK
    }
}

/// `bytes` in `encoding`; sequences invalid in it become U+FFFD, so decoding never fails.
pub(crate) fn decode_as(bytes: &[u8], encoding: &'static Encoding) -> String {
    encoding.decode_without_bom_handling(bytes).0.into_owned()
}

/// Text in an unknown encoding: UTF-8 when it is valid UTF-8, otherwise GBK.
pub(crate) fn decode_text(bytes: &[u8]) -> String {
    decode_as(bytes, guess_encoding(bytes))
}

fn read_capped(path: &Path) -> Result<Vec<u8>, RecordError> {
    let file = File::open(path).map_err(|e| RecordError::io(path, e))?;
    let mut bytes = Vec::new();
    file.take(MAX_RECORD_BYTES as u64 + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| RecordError::io(path, e))?;
    if bytes.len() > MAX_RECORD_BYTES {
        let size = fs::metadata(path)
            .map(|m| m.len())
            .unwrap_or(bytes.len() as u64);
        return Err(RecordError::TooLarge { size });
    }
    Ok(bytes)
}

/// Writes `bytes` to `path` through a synced temporary file in the same directory and a rename.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> Result<(), RecordError> {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let dir = match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let name = path
        .file_name()
        .ok_or_else(|| {
            RecordError::io(
                path,
                io::Error::new(io::ErrorKind::InvalidInput, "not a file name"),
            )
        })?
        .to_string_lossy();
    let temp = dir.join(format!(
        ".{name}.{}.{}.tmp",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed)
    ));
    let result = (|| {
        let mut file = OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&temp)?;
        file.write_all(bytes)?;
        file.sync_all()?;
        drop(file);
        fs::rename(&temp, path)?;
        // Make the rename itself durable; not every platform can open a directory.
        if let Ok(dir) = File::open(&dir) {
            let _ = dir.sync_all();
        }
        Ok(())
    })();
    result.map_err(|e| {
        let _ = fs::remove_file(&temp);
        RecordError::io(path, e)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::Pos;

    fn game(text: &str) -> Game {
        let moves: Vec<Move> = text
            .split_whitespace()
            .map(|m| Move::Place(m.parse().unwrap()))
            .collect();
        Game::from_moves(Rule::Renju, &moves).unwrap()
    }

    #[test]
    fn formats_from_extension_and_content() {
        assert_eq!(
            RecordFormat::from_path(Path::new("a/b.SGF")),
            Some(RecordFormat::Sgf)
        );
        assert_eq!(
            RecordFormat::from_path(Path::new("x.psq")),
            Some(RecordFormat::Psq)
        );
        assert_eq!(
            RecordFormat::from_path(Path::new("x.lib")),
            Some(RecordFormat::RenLib)
        );
        assert_eq!(
            RecordFormat::from_path(Path::new("x.txt")),
            Some(RecordFormat::Text)
        );
        assert_eq!(RecordFormat::from_path(Path::new("x")), None);
        assert_eq!(RecordFormat::detect(b"\n (;GM[4]"), Some(RecordFormat::Sgf));
        assert_eq!(
            RecordFormat::detect(b"Piskvorky 15x15, 11:11, 0\n"),
            Some(RecordFormat::Psq)
        );
        assert_eq!(
            RecordFormat::detect(b"\xffRenLib\xff\x03\x00"),
            Some(RecordFormat::RenLib)
        );
        assert_eq!(
            RecordFormat::detect(b"1. h8 h9 2. j10"),
            Some(RecordFormat::Text)
        );
        assert_eq!(RecordFormat::detect(b"\x00\x01junk"), None);
        assert_eq!(RecordFormat::detect(b""), None);
    }

    #[test]
    fn replay_names_the_bad_move() {
        let mut record = GameRecord::from_game(&game("h8 h9 j10"));
        record
            .moves
            .push(RecordedMove::new(Move::Place(Pos::CENTER)));
        let error = record.to_game().expect_err("occupied");
        assert!(matches!(error, RecordError::Illegal { number: 4, .. }));
        assert_eq!(
            error.to_string(),
            "move 4 (h8) cannot be replayed: h8 is already occupied"
        );
    }

    #[test]
    fn resignation_and_forbidden_loss_replay() {
        let mut record = GameRecord::from_game(&game("h8 h9 j10"));
        record.result = Some(GameResult {
            winner: Some(Color::Black),
            reason: EndReason::Resignation,
        });
        assert_eq!(record.to_game().unwrap().result(), record.result);
        // Black's double three at j8 ends the game with White winning.
        let mut forbidden = Game::new(Rule::Renju).with_forbidden_policy(ForbiddenPolicy::Lose);
        for m in ["h8", "a1", "i8", "a3", "j10", "a5", "j9", "a7"] {
            forbidden.play(m.parse().unwrap()).unwrap();
        }
        let result = forbidden.play("j8".parse().unwrap()).unwrap();
        assert!(matches!(
            result,
            Some(GameResult {
                reason: EndReason::Forbidden(_),
                ..
            })
        ));
        let record = GameRecord::from_game(&forbidden);
        let replayed = record.to_game().unwrap();
        assert_eq!(replayed.result(), result);
        assert_eq!(replayed.forbidden_policy(), ForbiddenPolicy::Refuse);
        let mut extended = record.clone();
        extended
            .moves
            .push(RecordedMove::new(Move::Place("o15".parse().unwrap())));
        let error = extended.to_game().expect_err("over");
        assert!(matches!(error, RecordError::Illegal { number: 10, .. }));
    }

    #[test]
    fn atomic_save_replaces_and_leaves_no_temp_files() {
        let dir = std::env::temp_dir().join(format!("gobang-record-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        let path = dir.join("game.sgf");
        fs::write(&path, b"old").unwrap();
        let record = GameRecord::from_game(&game("h8 h9 j10"));
        record.save(&path, RecordFormat::Sgf).unwrap();
        assert_eq!(GameRecord::load(&path).unwrap(), record);
        let names: Vec<_> = fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names.len(), 1, "{names:?}");
        let error = record
            .save(dir.join("missing/x.sgf"), RecordFormat::Sgf)
            .expect_err("no directory");
        assert!(error.to_string().contains("missing"), "{error}");
        assert!(matches!(
            record.save(dir.join("x.lib"), RecordFormat::RenLib),
            Err(RecordError::ReadOnly(RecordFormat::RenLib))
        ));
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn overlong_games_are_refused() {
        let inputs = [
            (RecordFormat::Text, "a1 ".repeat(MAX_MOVES + 1)),
            (
                RecordFormat::Sgf,
                format!("({})", ";B[];W[]".repeat(MAX_MOVES)),
            ),
            (
                RecordFormat::Psq,
                format!("{}\n{}", psq::HEADER, "1,1,0\n".repeat(MAX_MOVES + 1)),
            ),
        ];
        for (format, input) in inputs {
            let error = GameRecord::parse(input.as_bytes(), format).expect_err("too long");
            assert!(
                error.to_string().contains("more than 1000 moves"),
                "{error}"
            );
        }
        let mut lib = renlib::MAGIC.to_vec();
        lib.extend_from_slice(&[3, 0]);
        lib.resize(20, 0xFF);
        lib.extend(std::iter::repeat_n([0x78, 0], MAX_MOVES + 1).flatten());
        let error = GameRecord::parse(&lib, RecordFormat::RenLib).expect_err("too long");
        assert!(
            error.to_string().contains("more than 1000 moves"),
            "{error}"
        );
        let empty_nodes = format!("({})", ";".repeat(200_000));
        let error =
            GameRecord::parse(empty_nodes.as_bytes(), RecordFormat::Sgf).expect_err("nodes");
        assert!(error.to_string().contains("nodes"), "{error}");
    }

    #[test]
    fn oversized_input_is_refused() {
        let big = vec![b' '; MAX_RECORD_BYTES + 1];
        for format in RecordFormat::ALL {
            assert!(matches!(
                GameRecord::parse(&big, format),
                Err(RecordError::TooLarge { .. })
            ));
        }
    }
}
