//! Piskvork / Gomocup `.psq` game records: a `Piskvorky 15x15, 11:11, 0` header, one `x,y,ms`
//! line per move (1-based column and row, the row counted from the top, thinking time in
//! milliseconds), then optional trailer lines (the players' names, an exit code, tournament
//! tags such as `0,Freestyle15_1`). Keeps moves, times and names; the rule is read from a
//! tournament tag when there is one, else freestyle (Gomocup's usual rule). No passes.

use super::{
    decode_text, too_many_moves, GameRecord, Location, RecordError, RecordFormat, RecordedMove,
    MAX_MOVES,
};
use crate::rules::{Move, Pos, Rule};

/// The header Piskvork writes for a 15x15 board.
pub const HEADER: &str = "Piskvorky 15x15, 11:11, 0";

/// Written for a missing player name, read back as none.
const NO_NAME: &str = "-";

fn syntax(line: usize, message: String) -> RecordError {
    RecordError::Syntax {
        format: RecordFormat::Psq,
        location: Location::Line { line, column: 1 },
        message,
    }
}

/// `x,y` or `x,y,ms` as integers.
fn move_fields(line: &str) -> Option<Vec<i64>> {
    let fields: Vec<&str> = line.split(',').map(str::trim).collect();
    if !(2..=3).contains(&fields.len()) {
        return None;
    }
    fields.iter().map(|f| f.parse().ok()).collect()
}

/// The rule of a tournament tag line (`<number>,<name>` such as `0,Standard15_1`). Other lines,
/// player names among them (`pbrain-renju`), are no tag.
fn rule_tag(line: &str) -> Option<Rule> {
    let (number, name) = line.split_once(',')?;
    number.trim().parse::<i64>().ok()?;
    let lower = name.to_ascii_lowercase();
    if lower.contains("renju") {
        Some(Rule::Renju)
    } else if lower.contains("standard") {
        Some(Rule::Standard)
    } else if lower.contains("freestyle") {
        Some(Rule::Freestyle)
    } else {
        None
    }
}

pub(super) fn parse(bytes: &[u8]) -> Result<GameRecord, RecordError> {
    let text = decode_text(bytes);
    let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
    let mut lines = text.lines().enumerate().map(|(i, l)| (i + 1, l.trim()));
    let header = lines.next().map(|(_, l)| l).unwrap_or_default();
    let Some(rest) = header.strip_prefix("Piskvorky") else {
        return Err(syntax(
            1,
            format!("expected the header 'Piskvorky 15x15, ...', found '{header}'"),
        ));
    };
    let size = rest.split(',').next().unwrap_or_default().trim();
    if size != "15x15" {
        return Err(syntax(
            1,
            format!("board size '{size}' is not supported (only 15x15)"),
        ));
    }
    let mut record = GameRecord::new(Rule::Freestyle);
    let mut names = Vec::new();
    let mut trailer_start: Option<usize> = None;
    for (line_number, line) in lines {
        if line.is_empty() {
            continue;
        }
        match (move_fields(line), trailer_start) {
            (Some(fields), None) => {
                let number = record.moves.len() + 1;
                if number > MAX_MOVES {
                    return Err(syntax(line_number, too_many_moves()));
                }
                let (x, y) = (fields[0], fields[1]);
                let pos =
                    Pos::from_gomocup(x.saturating_sub(1), y.saturating_sub(1)).map_err(|_| {
                        syntax(
                            line_number,
                            format!("move {number}: ({x}, {y}) is off the 15x15 board (1-15)"),
                        )
                    })?;
                let time_ms = match fields.get(2) {
                    Some(&ms) => Some(u64::try_from(ms).map_err(|_| {
                        syntax(line_number, format!("move {number}: negative time {ms}"))
                    })?),
                    None => None,
                };
                record.moves.push(RecordedMove {
                    mv: Move::Place(pos),
                    time_ms,
                    comment: None,
                });
            }
            (Some(fields), Some(start)) if fields.len() == 3 => {
                return Err(syntax(
                    line_number,
                    format!("a move after the end of the move list (line {start})"),
                ));
            }
            _ => {
                trailer_start.get_or_insert(line_number);
                if let Some(rule) = rule_tag(line) {
                    record.rule = rule;
                } else if line.parse::<i64>().is_err() && !line.contains(',') {
                    names.push(line);
                }
            }
        }
    }
    let name = |i: usize| {
        names
            .get(i)
            .filter(|n| **n != NO_NAME)
            .map(|n| n.to_string())
    };
    record.black = name(0);
    record.white = name(1);
    Ok(record)
}

pub(super) fn write(record: &GameRecord) -> Result<Vec<u8>, RecordError> {
    let mut out = format!("{HEADER}\n");
    for (index, recorded) in record.moves.iter().enumerate() {
        let Move::Place(p) = recorded.mv else {
            return Err(RecordError::Unsupported {
                format: RecordFormat::Psq,
                what: format!("a pass (move {})", index + 1),
            });
        };
        let (x, y) = p.to_gomocup();
        out.push_str(&format!(
            "{},{},{}\n",
            x + 1,
            y + 1,
            recorded.time_ms.unwrap_or(0)
        ));
    }
    if record.black.is_some() || record.white.is_some() {
        for name in [&record.black, &record.white] {
            let name = name.as_deref().map(str::trim).unwrap_or(NO_NAME);
            out.push_str(if name.is_empty() { NO_NAME } else { name });
            out.push('\n');
        }
    }
    Ok(out.into_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_moves_times_names_and_rule_tag() {
        let text = "Piskvorky 15x15, 11:11, 0\n8,8,1000\n9,7,250\n10,10\n\
                    pbrain-a.zip\npbrain-b.zip\n-1\n0,Standard15_1\n";
        let record = GameRecord::parse(text.as_bytes(), RecordFormat::Psq).unwrap();
        let moves: Vec<String> = record
            .moves
            .iter()
            .map(|m| super::super::move_notation(m.mv))
            .collect();
        assert_eq!(moves, ["h8", "i9", "j6"]);
        assert_eq!(record.moves[0].time_ms, Some(1000));
        assert_eq!(record.moves[2].time_ms, None);
        assert_eq!(record.black.as_deref(), Some("pbrain-a.zip"));
        assert_eq!(record.white.as_deref(), Some("pbrain-b.zip"));
        assert_eq!(record.rule, Rule::Standard);
    }

    #[test]
    fn a_player_named_after_a_rule_is_a_name() {
        let text = "Piskvorky 15x15, 11:11, 0\n8,8,0\npbrain-slowrenju2\nFreestyle master\n";
        let record = GameRecord::parse(text.as_bytes(), RecordFormat::Psq).unwrap();
        assert_eq!(record.black.as_deref(), Some("pbrain-slowrenju2"));
        assert_eq!(record.white.as_deref(), Some("Freestyle master"));
        assert_eq!(record.rule, Rule::Freestyle);
    }

    #[test]
    fn errors_name_the_line() {
        let cases = [
            ("", "line 1, column 1: expected the header"),
            (
                "Piskvorky 20x20, 11:11, 0\n",
                "board size '20x20' is not supported",
            ),
            (
                "Piskvorky 15x15, 11:11, 0\n8,8,0\n16,1,0\n",
                "line 3, column 1: move 2: (16, 1) is off the 15x15 board",
            ),
            ("Piskvorky 15x15, 11:11, 0\n0,1,0\n", "(0, 1) is off"),
            ("Piskvorky 15x15, 11:11, 0\n8,8,-5\n", "negative time -5"),
            (
                "Piskvorky 15x15, 11:11, 0\n8,8,0\nname\n9,9,0\n",
                "line 4, column 1: a move after the end of the move list (line 3)",
            ),
        ];
        for (text, expected) in cases {
            let error = GameRecord::parse(text.as_bytes(), RecordFormat::Psq).expect_err(text);
            let message = error.to_string();
            assert!(message.contains(expected), "{text}: {message}");
        }
    }

    #[test]
    fn passes_cannot_be_written() {
        let mut record = GameRecord::new(Rule::Freestyle);
        record
            .moves
            .push(RecordedMove::new(Move::Place(Pos::CENTER)));
        record.moves.push(RecordedMove::new(Move::Pass));
        let error = record.write(RecordFormat::Psq).expect_err("pass");
        assert_eq!(
            error.to_string(),
            "Piskvork .psq cannot record a pass (move 2)"
        );
    }
}
