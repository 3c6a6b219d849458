//! SGF (FF[4]) for gomoku and renju: written as `GM[4]`, read also from the `GM[1]` and `GM[5]`
//! files other renju programs write. The main line (the first variation at each branch) is the
//! game; when there are other variations, a second pass keeps every line as a [`MoveTree`] (a
//! variation it cannot read drops the tree, not the game), and a tree is written back as
//! variations. Per-move thinking time
//! is kept in the private property `TU` (milliseconds). Text is read in the root's `CA[]` charset
//! when it names one, else as UTF-8 when the whole file is valid UTF-8, else as GBK (GB2312 files
//! from Chinese renju programs often carry no `CA`); it is always written as UTF-8, `CA[UTF-8]`.

use super::{
    color_of, decode_as, decode_text, guess_encoding, too_many_moves, GameRecord, Location,
    MoveTree, RecordError, RecordFormat, RecordedMove, MAX_MOVES,
};
use crate::game::{EndReason, GameResult};
use crate::rules::{Color, Move, Pos, Rule};
use encoding_rs::Encoding;

/// One property with its (unescaped) values and the byte offset of its identifier.
struct Property {
    ident: String,
    values: Vec<Vec<u8>>,
    offset: usize,
}

type Node = Vec<Property>;

/// Main lines longer than this are refused (a game has at most [`MAX_MOVES`] moves; some
/// programs add empty nodes, but not this many).
const MAX_NODES: usize = 20 * MAX_MOVES;

struct Parser<'a> {
    bytes: &'a [u8],
    pos: usize,
}

fn syntax(offset: usize, message: impl Into<String>) -> RecordError {
    RecordError::Syntax {
        format: RecordFormat::Sgf,
        location: Location::Byte(offset),
        message: message.into(),
    }
}

impl<'a> Parser<'a> {
    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    fn skip_whitespace(&mut self) {
        while self.peek().is_some_and(|b| b.is_ascii_whitespace()) {
            self.pos += 1;
        }
    }

    /// The nodes of the first game tree's main line.
    fn main_line(&mut self) -> Result<Vec<Node>, RecordError> {
        if self.bytes.starts_with(b"\xEF\xBB\xBF") {
            self.pos = 3;
        }
        self.skip_whitespace();
        if self.peek() != Some(b'(') {
            return Err(syntax(self.pos, "expected '(' to open the game tree"));
        }
        self.pos += 1;
        let mut nodes = Vec::new();
        let mut depth = 1usize;
        loop {
            self.skip_whitespace();
            match self.peek() {
                Some(b';') => {
                    if nodes.len() >= MAX_NODES {
                        return Err(syntax(
                            self.pos,
                            format!("more than {MAX_NODES} nodes in the main line"),
                        ));
                    }
                    self.pos += 1;
                    nodes.push(self.node()?);
                }
                Some(b'(') => {
                    self.pos += 1;
                    depth += 1;
                }
                Some(b')') => {
                    self.pos += 1;
                    depth -= 1;
                    break;
                }
                Some(other) => {
                    return Err(syntax(
                        self.pos,
                        format!("unexpected '{}' between nodes", char::from(other)),
                    ))
                }
                None => return Err(self.unterminated()),
            }
        }
        if nodes.is_empty() {
            return Err(syntax(self.pos, "the game tree has no nodes"));
        }
        self.skip_variations(depth)?;
        Ok(nodes)
    }

    fn unterminated(&self) -> RecordError {
        syntax(
            self.pos,
            "the file ends inside the game tree (missing ')': truncated?)",
        )
    }

    /// Skips the rest of the tree (other variations) until `depth` open brackets are closed.
    fn skip_variations(&mut self, mut depth: usize) -> Result<(), RecordError> {
        while depth > 0 {
            match self.peek() {
                Some(b'(') => depth += 1,
                Some(b')') => depth -= 1,
                Some(b'[') => {
                    self.value()?;
                    continue;
                }
                Some(_) => {}
                None => return Err(self.unterminated()),
            }
            self.pos += 1;
        }
        Ok(())
    }

    fn node(&mut self) -> Result<Node, RecordError> {
        let mut node = Vec::new();
        loop {
            self.skip_whitespace();
            let offset = self.pos;
            match self.peek() {
                Some(b) if b.is_ascii_alphabetic() => {
                    let mut ident = String::new();
                    while let Some(b) = self.peek().filter(u8::is_ascii_alphabetic) {
                        // FF[3] identifiers may contain lower-case letters, which FF[4] ignores.
                        if b.is_ascii_uppercase() {
                            ident.push(char::from(b));
                        }
                        self.pos += 1;
                    }
                    let mut values = Vec::new();
                    loop {
                        self.skip_whitespace();
                        if self.peek() != Some(b'[') {
                            break;
                        }
                        values.push(self.value()?);
                    }
                    if values.is_empty() {
                        return Err(syntax(offset, format!("property {ident} has no value")));
                    }
                    node.push(Property {
                        ident,
                        values,
                        offset,
                    });
                }
                Some(b';' | b'(' | b')') => return Ok(node),
                Some(other) => {
                    return Err(syntax(
                        offset,
                        format!("unexpected '{}' in a node", char::from(other)),
                    ))
                }
                None => return Err(self.unterminated()),
            }
        }
    }

    /// Reads `[...]` at the current position, resolving escapes and soft line breaks.
    fn value(&mut self) -> Result<Vec<u8>, RecordError> {
        let start = self.pos;
        self.pos += 1;
        let mut value = Vec::new();
        loop {
            match self.peek() {
                Some(b']') => {
                    self.pos += 1;
                    return Ok(value);
                }
                Some(b'\\') => {
                    self.pos += 1;
                    match self.peek() {
                        Some(b'\n') => {
                            self.pos += 1;
                            if self.peek() == Some(b'\r') {
                                self.pos += 1;
                            }
                        }
                        Some(b'\r') => {
                            self.pos += 1;
                            if self.peek() == Some(b'\n') {
                                self.pos += 1;
                            }
                        }
                        Some(b) => {
                            value.push(b);
                            self.pos += 1;
                        }
                        None => {}
                    }
                }
                Some(b) => {
                    value.push(b);
                    self.pos += 1;
                }
                None => {
                    return Err(syntax(
                        start,
                        "the value opened here is never closed with ']' (truncated?)",
                    ))
                }
            }
        }
    }
}

fn text_value(value: &[u8], encoding: &'static Encoding) -> Option<String> {
    let text = decode_as(value, encoding);
    let text = text.trim();
    (!text.is_empty()).then(|| text.to_string())
}

fn parse_result(value: &[u8]) -> Option<GameResult> {
    let text = decode_text(value).trim().to_ascii_uppercase();
    if text == "0" || text == "DRAW" || text == "D" {
        // A full board or two passes are recovered from the moves by `refine_result`.
        return Some(GameResult {
            winner: None,
            reason: EndReason::Agreement,
        });
    }
    let (winner, rest) = if let Some(rest) = text.strip_prefix("B+") {
        (Color::Black, rest)
    } else if let Some(rest) = text.strip_prefix("W+") {
        (Color::White, rest)
    } else {
        return None;
    };
    let reason = match rest {
        "R" | "RESIGN" => EndReason::Resignation,
        "T" | "TIME" => EndReason::Timeout,
        // A five or a forbidden point shows on the board; `refine_result` confirms it.
        _ => EndReason::Five,
    };
    Some(GameResult {
        winner: Some(winner),
        reason,
    })
}

fn parse_rule(value: &[u8]) -> Option<Rule> {
    let text = decode_text(value).to_ascii_lowercase();
    if text.contains("renju") || text.contains("rif") {
        Some(Rule::Renju)
    } else if text.contains("standard") || text.contains("exact") || text.trim() == "gomoku" {
        Some(Rule::Standard)
    } else if text.contains("free") {
        Some(Rule::Freestyle)
    } else {
        None
    }
}

fn first_value(property: &Property) -> &[u8] {
    property.values.first().map(Vec::as_slice).unwrap_or(&[])
}

/// The charset the root node's `CA[]` names, if it names one `encoding_rs` knows.
fn declared_encoding(root: &Node) -> Option<&'static Encoding> {
    let charset = root.iter().find(|property| property.ident == "CA")?;
    Encoding::for_label(decode_text(first_value(charset)).trim().as_bytes())
}

/// What the tree walk does next.
enum Step {
    Open,
    Close,
    Node { index: usize, depth: usize },
}

impl Parser<'_> {
    /// Every line of the first game tree, when it has more than one. `None` also when a
    /// variation cannot be read (the main line was, and is kept) or the tree is too big.
    fn tree(&mut self, encoding: &'static Encoding) -> Option<MoveTree> {
        if self.bytes.starts_with(b"\xEF\xBB\xBF") {
            self.pos = 3;
        }
        self.skip_whitespace();
        if self.peek() != Some(b'(') {
            return None;
        }
        self.pos += 1;
        let mut tree = MoveTree::new();
        let mut current: Option<usize> = None;
        let mut branches: Vec<Option<usize>> = Vec::new();
        loop {
            self.skip_whitespace();
            match self.peek()? {
                b';' => {
                    self.pos += 1;
                    let node = self.node().ok()?;
                    let mut comment = None;
                    let mut mv = None;
                    for property in &node {
                        let value = first_value(property);
                        match property.ident.as_str() {
                            "B" | "W" => {
                                mv = Some(match value {
                                    b"" | b"tt" => Move::Pass,
                                    _ => Move::Place(Pos::from_sgf(&decode_text(value)).ok()?),
                                })
                            }
                            "C" => comment = Some(decode_as(value, encoding)),
                            _ => {}
                        }
                    }
                    if let Some(mv) = mv {
                        current = Some(match tree.child(current, mv) {
                            Some(child) => child,
                            None => tree.push(current, mv)?,
                        });
                    }
                    let comment = comment.filter(|c| !c.is_empty());
                    if let (Some(node), Some(comment)) = (current, comment) {
                        let joined = join(tree.comment(node).map(str::to_string), Some(comment));
                        tree.set_comment(node, joined);
                    }
                }
                b'(' => {
                    self.pos += 1;
                    branches.push(current);
                }
                b')' => {
                    self.pos += 1;
                    match branches.pop() {
                        Some(branch) => current = branch,
                        None => break,
                    }
                }
                _ => return None,
            }
        }
        let branches = tree.leaves().nth(1).is_some();
        branches.then_some(tree)
    }
}

pub(super) fn parse(bytes: &[u8]) -> Result<GameRecord, RecordError> {
    let nodes = Parser { bytes, pos: 0 }.main_line()?;
    let encoding = nodes
        .first()
        .and_then(declared_encoding)
        .unwrap_or_else(|| guess_encoding(bytes));
    let mut record = GameRecord::default();
    let mut game_comment: Option<String> = None;
    for node in &nodes {
        let mut node_move: Option<RecordedMove> = None;
        let mut node_comment: Option<String> = None;
        let mut node_time: Option<u64> = None;
        for property in node {
            let value = first_value(property);
            match property.ident.as_str() {
                "B" | "W" => {
                    let number = record.moves.len() + 1;
                    let raw = decode_text(value);
                    let bad = |problem: String| RecordError::BadMove {
                        format: RecordFormat::Sgf,
                        number,
                        mv: format!("{}[{raw}]", property.ident),
                        problem: format!("{problem} (byte {})", property.offset),
                    };
                    if number > MAX_MOVES {
                        return Err(syntax(property.offset, too_many_moves()));
                    }
                    if node_move.is_some() {
                        return Err(bad("a second move in the same node".into()));
                    }
                    let color = if property.ident == "B" {
                        Color::Black
                    } else {
                        Color::White
                    };
                    let expected = color_of(record.moves.len());
                    if color != expected {
                        return Err(bad(format!(
                            "{} moves, but it is {}'s turn",
                            color.name(),
                            expected.name()
                        )));
                    }
                    let mv = match value {
                        b"" | b"tt" => Move::Pass,
                        _ => Move::Place(Pos::from_sgf(&raw).map_err(|e| bad(e.to_string()))?),
                    };
                    node_move = Some(RecordedMove::new(mv));
                }
                "C" => node_comment = Some(decode_as(value, encoding)).filter(|c| !c.is_empty()),
                "TU" => {
                    let text = decode_text(value);
                    node_time = Some(text.trim().parse().map_err(|_| {
                        syntax(
                            property.offset,
                            format!("TU[{text}] is not a time in milliseconds"),
                        )
                    })?);
                }
                "GM" => {
                    let text = decode_text(value);
                    if !matches!(text.trim(), "1" | "4" | "5") {
                        return Err(syntax(
                            property.offset,
                            format!(
                                "GM[{text}] is not a gomoku or renju game (expected GM[4], or \
                                 GM[1]/GM[5] as renju programs write)"
                            ),
                        ));
                    }
                }
                "SZ" => {
                    let text = decode_text(value);
                    if !matches!(text.trim(), "15" | "15:15") {
                        return Err(syntax(
                            property.offset,
                            format!("board size SZ[{text}] is not supported (only 15x15)"),
                        ));
                    }
                }
                "AB" | "AW" | "AE" => {
                    return Err(syntax(
                        property.offset,
                        format!(
                            "set-up stones ({}) are not supported: a record must be a sequence \
                             of moves",
                            property.ident
                        ),
                    ))
                }
                "PB" => record.black = text_value(value, encoding),
                "PW" => record.white = text_value(value, encoding),
                "DT" => record.date = text_value(value, encoding),
                "RE" => record.result = parse_result(value),
                "RU" => record.rule = parse_rule(value).unwrap_or(record.rule),
                _ => {}
            }
        }
        match (node_move, record.moves.last_mut()) {
            (Some(mut mv), _) => {
                mv.comment = node_comment;
                mv.time_ms = node_time;
                record.moves.push(mv);
            }
            (None, Some(last)) if node_comment.is_some() => {
                last.comment = join(last.comment.take(), node_comment)
            }
            (None, _) => game_comment = join(game_comment, node_comment),
        }
    }
    record.comment = game_comment;
    record.tree = Parser { bytes, pos: 0 }.tree(encoding);
    Ok(record)
}

fn join(a: Option<String>, b: Option<String>) -> Option<String> {
    match (a, b) {
        (Some(a), Some(b)) => Some(format!("{a}\n{b}")),
        (a, b) => a.or(b),
    }
}

fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if c == ']' || c == '\\' {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

fn result_value(result: GameResult) -> String {
    match result.winner {
        None => "0".to_string(),
        Some(winner) => {
            let side = if winner == Color::Black { 'B' } else { 'W' };
            let reason = match result.reason {
                EndReason::Resignation => "R",
                EndReason::Timeout => "T",
                EndReason::Forbidden(_) => "F",
                EndReason::Five
                | EndReason::BothPassed
                | EndReason::BoardFull
                | EndReason::Agreement => "",
            };
            format!("{side}+{reason}")
        }
    }
}

pub(super) fn write(record: &GameRecord) -> Vec<u8> {
    let mut out = format!(
        "(;FF[4]GM[4]CA[UTF-8]AP[Gobang:{}]SZ[15]RU[{}]",
        env!("CARGO_PKG_VERSION"),
        record.rule.name()
    );
    let info = [
        ("PB", &record.black),
        ("PW", &record.white),
        ("DT", &record.date),
        ("C", &record.comment),
    ];
    for (ident, value) in info {
        if let Some(value) = value {
            out.push_str(&format!("{ident}[{}]", escape(value)));
        }
    }
    if let Some(result) = record.result {
        out.push_str(&format!("RE[{}]", result_value(result)));
    }
    match &record.tree {
        Some(tree) if tree.main_line() == record.move_list() => write_tree(&mut out, record, tree),
        _ => {
            for (index, recorded) in record.moves.iter().enumerate() {
                write_node(
                    &mut out,
                    index,
                    recorded.mv,
                    recorded.time_ms,
                    &recorded.comment,
                );
            }
        }
    }
    out.push_str(")\n");
    out.into_bytes()
}

/// One move node: `;B[hh]`, its time and comment.
fn write_node(
    out: &mut String,
    index: usize,
    mv: Move,
    time_ms: Option<u64>,
    comment: &Option<String>,
) {
    let side = if color_of(index) == Color::Black {
        'B'
    } else {
        'W'
    };
    let point = mv.pos().map(Pos::to_sgf).unwrap_or_default();
    out.push_str(&format!("\n;{side}[{point}]"));
    if let Some(ms) = time_ms {
        out.push_str(&format!("TU[{ms}]"));
    }
    if let Some(comment) = comment {
        out.push_str(&format!("C[{}]", escape(comment)));
    }
}

/// The whole tree as SGF variations (without recursion: libraries can be deep). Main-line
/// nodes take their times and comments from `record.moves`.
fn write_tree(out: &mut String, record: &GameRecord, tree: &MoveTree) {
    let mut on_main_line = true;
    let mut steps: Vec<Step> = Vec::new();
    let push_children = |steps: &mut Vec<Step>, parent: Option<usize>, depth: usize| {
        let children: Vec<usize> = tree.children(parent).collect();
        if let [only] = children[..] {
            steps.push(Step::Node { index: only, depth });
        } else {
            for &child in children.iter().rev() {
                steps.push(Step::Close);
                steps.push(Step::Node {
                    index: child,
                    depth,
                });
                steps.push(Step::Open);
            }
        }
    };
    push_children(&mut steps, None, 0);
    while let Some(step) = steps.pop() {
        match step {
            Step::Open => out.push_str("\n("),
            Step::Close => {
                out.push(')');
                on_main_line = false;
            }
            Step::Node { index, depth } => {
                let mv = tree.mv(index).unwrap_or(Move::Pass);
                match record.moves.get(depth).filter(|_| on_main_line) {
                    Some(recorded) => {
                        write_node(out, depth, mv, recorded.time_ms, &recorded.comment)
                    }
                    None => {
                        let comment = tree.comment(index).map(str::to_string);
                        write_node(out, depth, mv, None, &comment)
                    }
                }
                push_children(&mut steps, Some(index), depth + 1);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn moves(record: &GameRecord) -> String {
        record
            .moves
            .iter()
            .map(|m| super::super::move_notation(m.mv))
            .collect::<Vec<_>>()
            .join(" ")
    }

    #[test]
    fn reads_main_line_and_properties() {
        let text = "(;GM[1]FF[4]SZ[15]PB[Alice]PW[Bob]DT[2024-04-25]RE[W+R]RU[Standard]C[game]\
                    ;B[hh]C[centre];W[hg]TU[1500](;B[ii];W[];B[tt])(;B[jj]))";
        let record = GameRecord::parse(text.as_bytes(), RecordFormat::Sgf).unwrap();
        assert_eq!(moves(&record), "h8 h9 i7 pass pass");
        assert_eq!(record.black.as_deref(), Some("Alice"));
        assert_eq!(record.white.as_deref(), Some("Bob"));
        assert_eq!(record.date.as_deref(), Some("2024-04-25"));
        assert_eq!(record.rule, Rule::Standard);
        assert_eq!(record.comment.as_deref(), Some("game"));
        assert_eq!(record.moves[0].comment.as_deref(), Some("centre"));
        assert_eq!(record.moves[1].time_ms, Some(1500));
        assert_eq!(
            record.result,
            Some(GameResult {
                winner: Some(Color::White),
                reason: EndReason::Resignation
            })
        );
    }

    #[test]
    fn trees_are_written_as_variations() {
        let mv = |text: &str| Move::Place(text.parse().unwrap());
        let mut tree = MoveTree::new();
        let h8 = tree.push(None, mv("h8")).unwrap();
        let h9 = tree.push(Some(h8), mv("h9")).unwrap();
        let i9 = tree.push(Some(h8), mv("i9")).unwrap();
        tree.push(Some(h9), mv("j10")).unwrap();
        tree.set_comment(i9, Some("other".into()));
        let mut record = GameRecord::new(Rule::Renju);
        record.moves = tree
            .main_line()
            .into_iter()
            .map(RecordedMove::new)
            .collect();
        record.moves[1].time_ms = Some(7);
        record.tree = Some(tree);
        let bytes = record.write(RecordFormat::Sgf).unwrap();
        let text = String::from_utf8(bytes.clone()).unwrap();
        assert!(
            text.ends_with("\n;B[hh]\n(\n;W[hg]TU[7]\n;B[jf])\n(\n;W[ig]C[other]))\n"),
            "{text}"
        );
        assert_eq!(
            GameRecord::parse(&bytes, RecordFormat::Sgf).unwrap(),
            record
        );
        // A tree that does not match the moves is not written.
        record.moves.pop();
        let text = String::from_utf8(record.write(RecordFormat::Sgf).unwrap()).unwrap();
        assert!(text.ends_with("\n;B[hh]\n;W[hg]TU[7])\n"), "{text}");
    }

    #[test]
    fn errors_say_what_and_where() {
        let cases = [
            (
                "(;SZ[19];B[hh])",
                "byte 2: board size SZ[19] is not supported",
            ),
            ("(;GM[2];B[hh])", "byte 2: GM[2] is not a gomoku"),
            (
                "(;B[hh];B[ii])",
                "move 2 (B[ii]): Black moves, but it is White's turn",
            ),
            ("(;B[hz])", "move 1 (B[hz]): 'hz' is not an SGF point"),
            ("(;B[hh];W[ii]", "missing ')'"),
            (
                "(;B[hh];W[ii",
                "byte 9: the value opened here is never closed",
            ),
            ("(;B[hh](;W[ii])(;W[jj]", "missing ')'"),
            ("(;AB[hh][ii])", "set-up stones (AB) are not supported"),
            ("junk", "byte 0: expected '('"),
            ("()", "no nodes"),
            ("(;B[hh]W)", "property W has no value"),
            ("(;B[hh]\x01)", "unexpected"),
        ];
        for (text, expected) in cases {
            let error = GameRecord::parse(text.as_bytes(), RecordFormat::Sgf).expect_err(text);
            let message = error.to_string();
            assert!(message.contains(expected), "{text}: {message}");
        }
    }

    #[test]
    fn results_and_rules_are_written_and_read_back() {
        let mut record = GameRecord::new(Rule::Freestyle);
        record.moves = ["h8", "a1", "i8"]
            .iter()
            .map(|m| RecordedMove::new(Move::Place(m.parse().unwrap())))
            .collect();
        record.comment = Some("a ] and a \\ and\nlines".into());
        for (winner, reason, value) in [
            (Some(Color::Black), EndReason::Resignation, "B+R"),
            (Some(Color::White), EndReason::Timeout, "W+T"),
            (None, EndReason::Agreement, "0"),
        ] {
            record.result = Some(GameResult { winner, reason });
            let bytes = record.write(RecordFormat::Sgf).unwrap();
            let text = String::from_utf8(bytes.clone()).unwrap();
            assert!(text.contains(&format!("RE[{value}]")), "{text}");
            assert!(text.starts_with("(;FF[4]GM[4]"), "{text}");
            let read = GameRecord::parse(&bytes, RecordFormat::Sgf).unwrap();
            assert_eq!(read, record);
            assert_eq!(read.to_game().unwrap().result(), record.result);
        }
        let draw = GameRecord::parse(b"(;RE[Draw];B[hh];W[ii])", RecordFormat::Sgf).unwrap();
        assert_eq!(draw.result.map(|r| r.reason), Some(EndReason::Agreement));
        // Two passes prove how the draw came about.
        let passed = GameRecord::parse(b"(;RE[0];B[hh];W[];B[])", RecordFormat::Sgf).unwrap();
        assert_eq!(passed.result.map(|r| r.reason), Some(EndReason::BothPassed));
    }

    #[test]
    fn text_is_read_in_the_declared_or_guessed_charset() {
        // "李四" and "黑胜" in GBK; the same file without CA, and with a Latin-1 declaration.
        let gbk = b"(;CA[gb2312]PB[\xc0\xee\xcb\xc4]C[\xba\xda\xca\xa4];B[hh])";
        let record = GameRecord::parse(gbk, RecordFormat::Sgf).unwrap();
        assert_eq!(record.black.as_deref(), Some("李四"));
        assert_eq!(record.comment.as_deref(), Some("黑胜"));
        let guessed = b"(;PB[\xc0\xee\xcb\xc4];B[hh])";
        let record = GameRecord::parse(guessed, RecordFormat::Sgf).unwrap();
        assert_eq!(record.black.as_deref(), Some("李四"));
        let latin1 = b"(;CA[ISO-8859-1]PB[J\xf6rgen];B[hh])";
        let record = GameRecord::parse(latin1, RecordFormat::Sgf).unwrap();
        assert_eq!(record.black.as_deref(), Some("Jörgen"));
        // Bytes invalid in the declared charset are replaced, never refused.
        let bad = b"(;CA[UTF-8]PB[\xff\xfe];B[hh])";
        let record = GameRecord::parse(bad, RecordFormat::Sgf).unwrap();
        assert_eq!(record.black.as_deref(), Some("\u{fffd}\u{fffd}"));
        let written = String::from_utf8(record.write(RecordFormat::Sgf).unwrap()).unwrap();
        assert!(written.contains("CA[UTF-8]"), "{written}");
    }
}
