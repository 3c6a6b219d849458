//! Terminal mode: the board drawn with coordinates, the last move and Black's forbidden points,
//! and one command per line (`h8` plays, `q` asks the engine, `w` undoes, `r` shows the record,
//! `p` passes, `save`/`load`/`new`/`opening`/`help`/`quit`). It reads any [`BufRead`] (on its own
//! thread, so that the move clock can run out while nobody types) and writes any [`Write`], so it
//! works the same on a terminal, on piped input and in tests. Box drawing is used when the locale
//! is UTF-8, plain ASCII otherwise.

use crate::engine::{Engine, Limits, SearchResult};
use crate::game::clock::{MoveClock, DEFAULT_MOVE_TIME};
use crate::game::openings::{standard_opening, standard_openings, Opening};
use crate::game::record::{move_notation, GameRecord, RecordFormat};
use crate::game::{Game, GameResult};
use crate::rules::{Color, Move, Pos, Rule, SIZE};
use std::io::{self, BufRead, Write};
use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

/// How the terminal mode starts.
#[derive(Clone, Debug)]
pub struct Options {
    pub rule: Rule,
    /// Draw with plain ASCII instead of box-drawing characters.
    pub ascii: bool,
    /// Whether the per-move clock applies to the human player.
    pub clock: bool,
    /// Time per move: the human's clock and the engine's default thinking time.
    pub move_time: Duration,
    /// The engine's thinking time, when it should differ from `move_time`.
    pub engine_time: Option<Duration>,
    /// A record to load at start.
    pub load: Option<std::path::PathBuf>,
    /// A standard opening to start from (when no record is loaded).
    pub opening: Option<&'static Opening>,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            rule: Rule::default(),
            ascii: !locale_is_utf8(),
            clock: true,
            move_time: DEFAULT_MOVE_TIME,
            engine_time: None,
            load: None,
            opening: None,
        }
    }
}

/// Command-line arguments of the terminal mode, for `gobang-tui` and `gobang --tui`.
#[derive(Clone, Debug, clap::Args)]
pub struct TuiArgs {
    /// Rule: renju, standard or freestyle.
    #[arg(long, default_value = "renju", value_parser = parse_rule)]
    pub rule: Rule,
    /// Draw the board with plain ASCII even in a UTF-8 locale.
    #[arg(long)]
    pub ascii: bool,
    /// Do not apply the per-move clock to the human player.
    #[arg(long)]
    pub no_clock: bool,
    /// Seconds per move on the clock (default 15).
    #[arg(long, value_name = "SECONDS", value_parser = parse_seconds)]
    pub move_time: Option<Duration>,
    /// Seconds the engine thinks per move (default: the 15-second move clock).
    #[arg(long, value_name = "SECONDS", value_parser = parse_seconds)]
    pub time: Option<Duration>,
    /// Start from one of the 26 standard renju openings, by its code (D1-D13, I1-I13).
    #[arg(long, value_name = "CODE", value_parser = parse_opening, conflicts_with = "file")]
    pub opening: Option<&'static Opening>,
    /// A record (.sgf, .psq, .lib, .txt) to load at start.
    #[arg(value_name = "FILE")]
    pub file: Option<std::path::PathBuf>,
}

fn parse_rule(text: &str) -> Result<Rule, String> {
    text.parse()
}

fn parse_opening(text: &str) -> Result<&'static Opening, String> {
    standard_opening(text).ok_or_else(|| {
        format!(
            "'{text}' is not a standard opening: the codes are D1-D13 (direct) and I1-I13 \
             (indirect)"
        )
    })
}

fn parse_seconds(text: &str) -> Result<Duration, String> {
    let seconds: f64 = text
        .parse()
        .map_err(|_| format!("'{text}' is not a number of seconds"))?;
    if !(0.01..=3600.0).contains(&seconds) {
        return Err(format!("{seconds} s is out of range (0.01 to 3600)"));
    }
    Ok(Duration::from_secs_f64(seconds))
}

impl TuiArgs {
    pub fn options(&self) -> Options {
        Options {
            rule: self.rule,
            ascii: self.ascii || !locale_is_utf8(),
            clock: !self.no_clock,
            move_time: self.move_time.unwrap_or(DEFAULT_MOVE_TIME),
            engine_time: self.time,
            load: self.file.clone(),
            opening: self.opening,
        }
    }
}

/// Whether the locale (the first set of `LC_ALL`, `LC_CTYPE`, `LANG`) asks for UTF-8.
pub fn locale_is_utf8() -> bool {
    locale_value_is_utf8(
        ["LC_ALL", "LC_CTYPE", "LANG"]
            .iter()
            .filter_map(|name| std::env::var(name).ok())
            .find(|value| !value.is_empty())
            .as_deref(),
    )
}

fn locale_value_is_utf8(value: Option<&str>) -> bool {
    value.is_some_and(|v| {
        let v = v.to_ascii_lowercase();
        v.contains("utf-8") || v.contains("utf8")
    })
}

/// The characters the board is drawn with.
struct Glyphs {
    black: char,
    white: char,
    forbidden: char,
    /// Rows: top, middle, bottom; each: left edge, inside, right edge.
    grid: [[char; 3]; 3],
    line: char,
}

const UTF8_GLYPHS: Glyphs = Glyphs {
    black: '●',
    white: '○',
    forbidden: '×',
    grid: [['┌', '┬', '┐'], ['├', '┼', '┤'], ['└', '┴', '┘']],
    line: '─',
};

const ASCII_GLYPHS: Glyphs = Glyphs {
    black: 'X',
    white: 'O',
    forbidden: '*',
    grid: [['.'; 3]; 3],
    line: ' ',
};

/// The board as text: columns a-o, rows 15 (top) to 1, the last move in brackets, Black's
/// forbidden points marked when Black is to move in renju, then a legend (which mentions
/// forbidden points only under renju).
pub fn render_board(game: &Game, ascii: bool) -> String {
    let glyphs = if ascii { &ASCII_GLYPHS } else { &UTF8_GLYPHS };
    let forbidden: Vec<Pos> = game
        .forbidden_points()
        .into_iter()
        .map(|(p, _)| p)
        .collect();
    let last = game.board().last_move().and_then(Move::pos);
    let columns: String = (0..SIZE)
        .map(|x| format!(" {}", char::from(b'a' + x)))
        .collect();
    let mut out = format!("   {columns}\n");
    for y in 0..SIZE {
        let row = SIZE - y;
        let mut line = format!("{row:>2} ");
        for x in 0..SIZE {
            let Some(p) = Pos::new(x, y) else { continue };
            let before = if Some(p) == last {
                '['
            } else if x > 0 && Pos::new(x - 1, y) == last {
                ']'
            } else if x == 0 {
                ' '
            } else {
                glyphs.line
            };
            line.push(before);
            let cell = match game.board().stone(p) {
                Some(Color::Black) => glyphs.black,
                Some(Color::White) => glyphs.white,
                None if forbidden.contains(&p) => glyphs.forbidden,
                None => {
                    let r = if y == 0 {
                        0
                    } else if y == SIZE - 1 {
                        2
                    } else {
                        1
                    };
                    let c = if x == 0 {
                        0
                    } else if x == SIZE - 1 {
                        2
                    } else {
                        1
                    };
                    glyphs.grid[r][c]
                }
            };
            line.push(cell);
        }
        let after = match last {
            Some(p) if p.y() == y && p.x() == SIZE - 1 => ']',
            _ => ' ',
        };
        line.push(after);
        out.push_str(line.trim_end());
        out.push_str(&format!(" {row}\n"));
    }
    out.push_str(&format!("   {columns}\n"));
    let forbidden_legend = if game.rule().has_forbidden(Color::Black) {
        format!("{} forbidden for Black  ", glyphs.forbidden)
    } else {
        String::new()
    };
    out.push_str(&format!(
        "   {} Black  {} White  {forbidden_legend}[ ] last move\n",
        glyphs.black, glyphs.white
    ));
    out
}

const HELP: &str = "\
Commands (one per line):
  h8, H8        play that point (columns a-o, rows 1-15)
  q             the engine plays for the side to move
  w             take back the last move (not the stones of an opening)
  p             pass (two passes in a row draw)
  r             show the record
  b             show the board again
  resign        the side to move resigns
  draw          end the game in a draw both players agreed to
  save FILE     save the game (.sgf, .psq or .txt)
  load FILE     load a game (.sgf, .psq, .lib or .txt)
  new [RULE]    new game (renju, standard or freestyle)
  opening [CODE]  list the 26 standard openings, or start a new game from one (like opening d4)
  help          this list
  quit          leave
";

/// The terminal session: game, per-move times, clock, engine.
struct Session<W: Write> {
    out: W,
    options: Options,
    game: Game,
    times: Vec<Option<u64>>,
    clock: MoveClock,
    engine: Engine,
}

/// Reads `input` line by line on its own thread (bytes that are not UTF-8 become U+FFFD, so a
/// stray byte is a bad command, not the end of the session). The thread ends at the end of the
/// input or at the first read error (which is passed on); a thread still blocked on a terminal
/// when the session ends is left behind and goes with the process.
fn spawn_reader(mut input: impl BufRead + Send + 'static) -> Receiver<io::Result<String>> {
    let (sender, receiver) = mpsc::channel();
    std::thread::spawn(move || loop {
        let mut bytes = Vec::new();
        let line = match input.read_until(b'\n', &mut bytes) {
            Ok(0) => break,
            Ok(_) => Ok(String::from_utf8_lossy(&bytes)
                .trim_end_matches(['\n', '\r'])
                .to_string()),
            Err(error) if error.kind() == io::ErrorKind::Interrupted => continue,
            Err(error) => Err(error),
        };
        let failed = line.is_err();
        if sender.send(line).is_err() || failed {
            break;
        }
    });
    receiver
}

/// Runs the terminal mode until `quit` or the end of `input`. While a player is on the clock the
/// wait for their line ends at the deadline: they lose on time even if they type nothing.
pub fn run(
    input: impl BufRead + Send + 'static,
    output: impl Write,
    options: Options,
) -> io::Result<()> {
    let mut clock = MoveClock::new(options.move_time);
    clock.set_enabled(options.clock);
    let mut session = Session {
        out: output,
        game: Game::new(options.rule),
        options,
        times: Vec::new(),
        clock,
        engine: Engine::new(),
    };
    writeln!(
        session.out,
        "Gobang terminal mode. Type help for the commands."
    )?;
    if let Some(path) = session.options.load.clone() {
        session.load(&path.to_string_lossy())?;
    } else if let Some(opening) = session.options.opening {
        session.start_opening(opening)?;
    } else {
        session.new_game(session.options.rule)?;
    }
    session.prompt()?;
    let lines = spawn_reader(input);
    loop {
        let line = match session.deadline() {
            Some(deadline) => {
                match lines.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
                    Ok(line) => Some(line),
                    Err(RecvTimeoutError::Timeout) => {
                        if session.check_clock(true)? {
                            session.prompt()?;
                        }
                        continue;
                    }
                    Err(RecvTimeoutError::Disconnected) => None,
                }
            }
            None => lines.recv().ok(),
        };
        // End of input: finish the prompt's line and leave.
        let Some(line) = line else {
            writeln!(session.out)?;
            break;
        };
        let line = line?;
        session.check_clock(false)?;
        if !session.command(line.trim())? {
            break;
        }
        session.prompt()?;
    }
    session.out.flush()
}

impl<W: Write> Session<W> {
    fn show(&mut self) -> io::Result<()> {
        let board = render_board(&self.game, self.options.ascii);
        self.out.write_all(board.as_bytes())?;
        let moves = self.game.moves().len();
        match self.game.result() {
            Some(result) => writeln!(self.out, "{result}. Type new, load or w.")?,
            None => {
                let clock = if self.options.clock {
                    format!("{} s per move", self.clock.limit().as_secs_f64())
                } else {
                    "no clock".to_string()
                };
                let last = self
                    .game
                    .board()
                    .last_move()
                    .map(|mv| format!(", last move {}", move_notation(mv)))
                    .unwrap_or_default();
                writeln!(
                    self.out,
                    "{} ({clock}), move {}, {} to move{last}",
                    self.game.rule().name(),
                    moves + 1,
                    self.game.side_to_move().name()
                )?
            }
        }
        Ok(())
    }

    fn prompt(&mut self) -> io::Result<()> {
        let who = if self.game.is_over() {
            "game over"
        } else {
            self.game.side_to_move().name()
        };
        write!(self.out, "{who}> ")?;
        self.out.flush()
    }

    fn restart_clock(&mut self) {
        if self.game.is_over() {
            self.clock.stop();
        } else {
            self.clock.start(Instant::now());
        }
    }

    /// When the player to move runs out of time, if the clock applies to them.
    fn deadline(&self) -> Option<Instant> {
        if self.game.is_over() || !self.clock.is_enabled() || !self.clock.is_running() {
            return None;
        }
        let now = Instant::now();
        Some(now + self.clock.remaining(now))
    }

    /// A player whose clock ran out loses on time; `waiting` says the prompt is still open (the
    /// player typed nothing), so the message starts on a new line. Returns whether time ran out.
    fn check_clock(&mut self, waiting: bool) -> io::Result<bool> {
        if !self.game.is_over() && self.clock.is_expired(Instant::now()) {
            let loser = self.game.side_to_move();
            self.game.lose_on_time(loser);
            self.clock.stop();
            if waiting {
                writeln!(self.out)?;
            }
            writeln!(
                self.out,
                "{} took longer than {} s for the move.",
                loser.name(),
                self.clock.limit().as_secs_f64()
            )?;
            self.show()?;
            return Ok(true);
        }
        Ok(false)
    }

    /// Executes one command line; `false` ends the session.
    fn command(&mut self, line: &str) -> io::Result<bool> {
        let (word, rest) = match line.split_once(char::is_whitespace) {
            Some((word, rest)) => (word, rest.trim()),
            None => (line, ""),
        };
        // A point typed with a space, like "H 8", is still a point (not "h", the help).
        let compact: String = line.split_whitespace().collect();
        if !rest.is_empty()
            && rest.chars().all(|c| c.is_ascii_digit())
            && looks_like_point(&compact)
        {
            return self.point_command(&compact).map(|()| true);
        }
        let word = word.to_ascii_lowercase();
        let takes_nothing = matches!(
            word.as_str(),
            "quit"
                | "exit"
                | "help"
                | "h"
                | "?"
                | "q"
                | "w"
                | "undo"
                | "p"
                | "pass"
                | "r"
                | "record"
                | "resign"
                | "draw"
                | "board"
                | "b"
        );
        if !rest.is_empty() && takes_nothing {
            writeln!(
                self.out,
                "'{line}': {word} takes nothing after it (type help for the commands)."
            )?;
            return Ok(true);
        }
        match word.as_str() {
            "" => {}
            "quit" | "exit" => return Ok(false),
            "help" | "h" | "?" => self.out.write_all(HELP.as_bytes())?,
            "q" => self.engine_move()?,
            "w" | "undo" => self.undo()?,
            "p" | "pass" => self.play(Move::Pass, None)?,
            "r" | "record" => self.show_record()?,
            "resign" | "draw" => self.end_by_players(word.eq_ignore_ascii_case("draw"))?,
            "board" | "b" => self.show()?,
            "save" => self.save(rest)?,
            "load" => self.load(rest)?,
            "opening" | "openings" => match rest {
                "" => self.list_openings()?,
                code => match standard_opening(code) {
                    Some(opening) => self.start_opening(opening)?,
                    None => writeln!(
                        self.out,
                        "'{code}' is not a standard opening; type opening for the list."
                    )?,
                },
            },
            "new" => match rest {
                "" => self.new_game(self.game.rule())?,
                rule => match rule.parse() {
                    Ok(rule) => self.new_game(rule)?,
                    Err(message) => writeln!(self.out, "{message}")?,
                },
            },
            _ => self.point_command(line)?,
        }
        Ok(true)
    }

    /// Plays the point `text` names, or says why it is not one.
    fn point_command(&mut self, text: &str) -> io::Result<()> {
        match Pos::from_notation(text) {
            Ok(p) => self.play(Move::Place(p), None),
            Err(_) if looks_like_point(text) => writeln!(
                self.out,
                "'{text}' is not on the board: columns a-o, rows 1-15 (like h8)."
            ),
            Err(_) => writeln!(
                self.out,
                "Unknown command '{text}': type a point like h8, or help for the commands."
            ),
        }
    }

    fn new_game(&mut self, rule: Rule) -> io::Result<()> {
        self.game = Game::new(rule);
        self.times.clear();
        self.engine.clear();
        self.restart_clock();
        writeln!(self.out, "New {} game.", rule.name())?;
        self.show()
    }

    /// A new game, under the current rule, from the stones of `opening`.
    fn start_opening(&mut self, opening: &Opening) -> io::Result<()> {
        let rule = self.game.rule();
        let label = self.opening_label(opening);
        match Game::from_opening(rule, &opening.moves) {
            Ok(game) => {
                self.game = game;
                self.times = vec![None; opening.moves.len()];
                self.engine.clear();
                self.restart_clock();
                writeln!(
                    self.out,
                    "New {} game from the opening {label}.",
                    rule.name()
                )?;
                self.show()
            }
            Err((p, error)) => writeln!(
                self.out,
                "The opening {label} could not be set up: {p}: {error}."
            ),
        }
    }

    fn list_openings(&mut self) -> io::Result<()> {
        writeln!(
            self.out,
            "The 26 standard renju openings (type opening CODE to start one):"
        )?;
        for opening in standard_openings() {
            let label = self.opening_label(opening);
            let moves: Vec<String> = opening.moves.iter().map(|p| p.to_notation()).collect();
            writeln!(self.out, "  {label:<22} {}", moves.join(" "))?;
        }
        Ok(())
    }

    /// The opening's code and name; in ASCII mode without the name's Japanese characters.
    fn opening_label(&self, opening: &Opening) -> String {
        if !self.options.ascii {
            return opening.label();
        }
        std::iter::once(opening.code.as_str())
            .chain(
                opening
                    .name
                    .split_whitespace()
                    .filter(|word| word.is_ascii()),
            )
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// Plays `mv` for the side to move; `time_ms` is the engine's time, else the clock's.
    fn play(&mut self, mv: Move, time_ms: Option<u64>) -> io::Result<()> {
        let time_ms =
            time_ms.or_else(|| Some(self.clock.elapsed(Instant::now()).as_millis() as u64));
        let who = self.game.side_to_move();
        let outcome = match mv {
            Move::Place(p) => self.game.play(p),
            Move::Pass => self.game.pass(),
        };
        match outcome {
            Ok(_) => {
                self.times.push(time_ms);
                writeln!(self.out, "{} plays {}.", who.name(), move_notation(mv))?;
                self.restart_clock();
                self.show()
            }
            Err(error) => writeln!(self.out, "Not played: {error}."),
        }
    }

    fn engine_move(&mut self) -> io::Result<()> {
        if self.game.is_over() {
            return writeln!(self.out, "Not played: the game is over.");
        }
        let limit = self.options.engine_time.unwrap_or(self.options.move_time);
        writeln!(
            self.out,
            "{} (engine) thinks for up to {} s...",
            self.game.side_to_move().name(),
            limit.as_secs_f64()
        )?;
        self.out.flush()?;
        let limits = Limits::turn_time(limit);
        let stop = AtomicBool::new(false);
        let started = Instant::now();
        let result: SearchResult =
            self.engine
                .search(self.game.board(), &limits, &stop, &mut |_| {});
        let spent = started.elapsed();
        writeln!(
            self.out,
            "Engine: depth {}, {}, {} nodes, {:.2} s.",
            result.depth,
            result.score.for_side(self.game.side_to_move()),
            result.nodes,
            spent.as_secs_f64()
        )?;
        let mv = result.best_move.map_or(Move::Pass, Move::Place);
        self.play(mv, Some(spent.as_millis() as u64))
    }

    /// Ends the game by the players' decision: an agreed draw, or the side to move resigns.
    fn end_by_players(&mut self, draw: bool) -> io::Result<()> {
        if self.game.is_over() {
            return writeln!(self.out, "The game is already over.");
        }
        if draw {
            self.game.agree_draw();
        } else {
            self.game.resign(self.game.side_to_move());
        }
        self.clock.stop();
        self.show()
    }

    fn undo(&mut self) -> io::Result<()> {
        match self.game.undo() {
            Some(mv) => {
                self.times.pop();
                writeln!(self.out, "Took back {}.", move_notation(mv))?;
                self.restart_clock();
                self.show()
            }
            None if self.game.opening_stones() > 0 => writeln!(
                self.out,
                "Nothing to take back: the opening's stones stay (new starts an empty board)."
            ),
            None => writeln!(self.out, "Nothing to take back."),
        }
    }

    fn record(&self) -> GameRecord {
        let mut record = GameRecord::from_game(&self.game);
        for (recorded, time_ms) in record.moves.iter_mut().zip(&self.times) {
            recorded.time_ms = *time_ms;
        }
        record
    }

    fn show_record(&mut self) -> io::Result<()> {
        let record = self.record();
        let mut text = String::new();
        for (index, recorded) in record.moves.iter().enumerate() {
            if index % 2 == 0 {
                text.push_str(&format!("{}. ", index / 2 + 1));
            }
            text.push_str(&move_notation(recorded.mv));
            text.push(' ');
        }
        writeln!(
            self.out,
            "Record ({}, {} moves): {}",
            record.rule.name(),
            record.moves.len(),
            text.trim_end()
        )?;
        let result = record
            .result
            .map_or("in progress".to_string(), |r: GameResult| r.to_string());
        writeln!(self.out, "Result: {result}")
    }

    fn save(&mut self, path: &str) -> io::Result<()> {
        if path.is_empty() {
            return writeln!(self.out, "save needs a file name, like save game.sgf.");
        }
        let Some(format) = RecordFormat::from_path(Path::new(path)) else {
            return writeln!(
                self.out,
                "Cannot tell the format of '{path}': use a name ending in .sgf, .psq or .txt."
            );
        };
        match self.record().save(path, format) {
            Ok(()) => writeln!(
                self.out,
                "Saved {} moves to {path} ({format}).",
                self.game.moves().len()
            ),
            Err(error) => writeln!(self.out, "Not saved: {error}."),
        }
    }

    fn load(&mut self, path: &str) -> io::Result<()> {
        if path.is_empty() {
            return writeln!(self.out, "load needs a file name, like load game.sgf.");
        }
        let loaded = GameRecord::load(path).and_then(|record| {
            let game = record.to_game()?;
            Ok((record, game))
        });
        match loaded {
            Ok((record, game)) => {
                self.game = game;
                self.times = record.moves.iter().map(|m| m.time_ms).collect();
                self.engine.clear();
                self.restart_clock();
                writeln!(
                    self.out,
                    "Loaded {} moves from {path} ({}).",
                    record.moves.len(),
                    record.rule.name()
                )?;
                if let Some(tree) = &record.tree {
                    writeln!(
                        self.out,
                        "The file holds {} lines of play; its main line is loaded.",
                        tree.leaves().count()
                    )?;
                }
                self.show()
            }
            Err(error) => writeln!(self.out, "Not loaded: {error}."),
        }
    }
}

/// A letter followed by digits: meant as a point even if off the board.
fn looks_like_point(text: &str) -> bool {
    let mut chars = text.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && chars.as_str().chars().all(|c| c.is_ascii_digit())
        && !chars.as_str().is_empty()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn session_output(script: &'static str, options: Options) -> String {
        let mut out = Vec::new();
        run(script.as_bytes(), &mut out, options).unwrap();
        String::from_utf8(out).unwrap()
    }

    fn options() -> Options {
        Options {
            ascii: true,
            clock: false,
            engine_time: Some(Duration::from_millis(100)),
            ..Options::default()
        }
    }

    #[test]
    fn locale_detection() {
        assert!(locale_value_is_utf8(Some("en_US.UTF-8")));
        assert!(locale_value_is_utf8(Some("C.utf8")));
        assert!(!locale_value_is_utf8(Some("C")));
        assert!(!locale_value_is_utf8(Some("POSIX")));
        assert!(!locale_value_is_utf8(None));
    }

    #[test]
    fn board_marks_last_move_and_forbidden_points() {
        let moves: Vec<Move> = ["h8", "a1", "i8", "a3", "j10", "a5", "j9", "a7"]
            .iter()
            .map(|m| Move::Place(m.parse().unwrap()))
            .collect();
        let game = Game::from_moves(Rule::Renju, &moves).unwrap();
        let ascii = render_board(&game, true);
        let lines: Vec<&str> = ascii.lines().collect();
        assert_eq!(lines[0], "    a b c d e f g h i j k l m n o");
        // Row 8: black h8 i8 and the forbidden double three at j8.
        assert_eq!(lines[8], " 8  . . . . . . . X X * . . . . . 8");
        // Row 7: white a7 is the last move.
        assert_eq!(lines[9], " 7 [O]. . . . . . . . . . . . . . 7");
        let utf8 = render_board(&game, false);
        let lines: Vec<&str> = utf8.lines().collect();
        assert_eq!(lines[1], "15  ┌─┬─┬─┬─┬─┬─┬─┬─┬─┬─┬─┬─┬─┬─┐ 15");
        assert_eq!(lines[8], " 8  ├─┼─┼─┼─┼─┼─┼─●─●─×─┼─┼─┼─┼─┤ 8");
        assert_eq!(lines[15], " 1  ○─┴─┴─┴─┴─┴─┴─┴─┴─┴─┴─┴─┴─┴─┘ 1");
        assert!(lines[17].contains("× forbidden for Black"), "{utf8}");
        let freestyle = Game::from_moves(Rule::Freestyle, &moves).unwrap();
        let freestyle = render_board(&freestyle, true);
        assert!(
            freestyle.ends_with("   X Black  O White  [ ] last move\n"),
            "{freestyle}"
        );
    }

    #[test]
    fn bad_commands_get_one_line() {
        let out = session_output(
            "z5\nfoo bar\nnew chess\nh8\nh8\nsave\nsave x.doc\n",
            options(),
        );
        assert!(
            out.contains("'z5' is not on the board: columns a-o"),
            "{out}"
        );
        assert!(out.contains("Unknown command 'foo bar'"), "{out}");
        assert!(out.contains("unknown rule 'chess'"), "{out}");
        assert!(out.contains("Not played: h8 is already occupied."), "{out}");
        assert!(out.contains("save needs a file name"), "{out}");
        assert!(out.contains("Cannot tell the format of 'x.doc'"), "{out}");
        let mut out = Vec::new();
        run(&b"\xff\xfe\r\nh8"[..], &mut out, options()).unwrap();
        let out = String::from_utf8(out).unwrap();
        assert!(out.contains("Unknown command '\u{fffd}\u{fffd}'"), "{out}");
        assert!(out.contains("Black plays h8."), "{out}");
        let spaced = session_output("H 8\nh\nq 5\nr all\n", options());
        assert!(spaced.contains("'q5' is not on the board"), "{spaced}");
        assert!(
            spaced.contains("'r all': r takes nothing after it"),
            "{spaced}"
        );
        assert!(spaced.contains("Black plays h8."), "{spaced}");
        assert!(spaced.contains("Commands (one per line):"), "{spaced}");
    }

    #[test]
    fn players_agree_a_draw_or_resign() {
        let out = session_output("h8\ndraw\ndraw\nr\nw\nResign\nr\n", options());
        assert!(
            out.contains("Draw: agreed by the players. Type new"),
            "{out}"
        );
        assert!(out.contains("The game is already over."), "{out}");
        assert!(out.contains("Result: Draw: agreed by the players"), "{out}");
        assert!(out.contains("Took back h8."), "{out}");
        assert!(out.contains("Result: White wins: resignation"), "{out}");
    }

    #[test]
    fn clock_runs_out_while_nobody_types() {
        let mut options = options();
        options.clock = true;
        options.move_time = Duration::from_millis(30);
        // The only line arrives long after the clock ran out.
        let slow = SlowReader {
            inner: io::Cursor::new("h8\n"),
            delay: Duration::from_millis(300),
        };
        let mut out = Vec::new();
        run(io::BufReader::new(slow), &mut out, options).unwrap();
        let out = String::from_utf8(out).unwrap();
        let lost = out.find("Black> \nBlack took longer than 0.03 s for the move.");
        let refused = out.find("game over> Not played: the game is over.");
        assert!(lost.is_some() && lost < refused, "{out}");
        assert!(out.contains("White wins: time ran out"), "{out}");
        assert_eq!(out.matches("took longer").count(), 1, "{out}");
    }

    struct SlowReader<R> {
        inner: R,
        delay: Duration,
    }

    impl<R: io::Read> io::Read for SlowReader<R> {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            std::thread::sleep(self.delay);
            self.inner.read(buf)
        }
    }
}
