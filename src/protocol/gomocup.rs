//! The Gomocup brain protocol (piskvork's `pbrain-` protocol, see Gomocup/GomocupJudge
//! `doc/GomocupProtocol.md`) with the common Yixin-Board extensions.
//!
//! Commands: `START`, `RESTART`, `BEGIN`, `TURN`, `BOARD` ... `DONE`, `TAKEBACK`, `INFO`, `ABOUT`,
//! `END`, and `YXBOARD` ... `DONE` (set a position without thinking), `YXSHOWFORBID`, `YXSTOP`,
//! `YXNBEST` (answered with the single best move), `YXHASHCLEAR`, `YXSHOWINFO`.
//!
//! A reader thread turns stdin into a queue of time-stamped lines; searches run on a worker thread
//! with a stop flag, so `YXSTOP` and `END` act at once while the engine thinks and every other
//! command waits its turn in the queue. Progress goes out as `MESSAGE` lines. Malformed lines get
//! `ERROR <reason>`, unknown commands `UNKNOWN <reason>`, and the brain keeps running.

use crate::engine::{
    Engine, EngineOptions, Limits, SearchInfo, SearchResult, DEFAULT_TURN_TIME, MAX_THREADS,
};
use crate::rules::{Board, Color, Move, Pos, Rule, SIZE};
use std::collections::VecDeque;
use std::io::{self, BufRead, Write};
use std::panic::{self, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, Sender};
use std::sync::Arc;
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

/// The `ABOUT` answer.
pub const ABOUT: &str = concat!(
    "name=\"pbrain-gobang\", version=\"",
    env!("CARGO_PKG_VERSION"),
    "\", author=\"The Gobang developers\", country=\"Unknown\""
);

/// `INFO time_left` value that means "no match limit".
const UNLIMITED_MS: i64 = 2_147_483_647;
/// Time kept back from every Gomocup limit for reading, writing and process scheduling.
const IO_MARGIN_MAX: Duration = Duration::from_millis(100);
/// The smallest turn time handed to the engine.
const MIN_TURN_TIME: Duration = Duration::from_millis(1);
/// Turn time for `INFO timeout_turn 0` ("play as fast as possible"), with a one-ply search.
const FAST_TURN_TIME: Duration = Duration::from_millis(100);
/// Memory kept back from `INFO max_memory` for everything but the engine's tables.
const MEMORY_RESERVE_MAX: usize = 32 << 20;

/// A stone of a `BOARD` / `YXBOARD` listing, seen from the brain.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Field {
    /// `1`: the brain's own stone.
    Own,
    /// `2`: the opponent's stone.
    Opponent,
    /// `3`: a continuous-game marker (winning line or forbidden point); ignored.
    Marker,
}

/// One line of a `BOARD` / `YXBOARD` listing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ListingLine {
    Stone(Pos, Field),
    Done,
}

/// An `INFO` setting.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Info {
    /// `timeout_turn` (0: play as fast as possible).
    TimeoutTurn(Duration),
    /// `timeout_match` (`None`: no match limit).
    TimeoutMatch(Option<Duration>),
    /// `time_left` (`None`: unlimited; negative values count as zero).
    TimeLeft(Option<Duration>),
    /// `max_memory` in bytes (`None`: no limit).
    MaxMemory(Option<usize>),
    /// `rule`: 0 freestyle, 1 exact five, 4 renju (and Yixin-Board's 2 for renju).
    Rule(Rule),
    /// Yixin-Board `max_depth` (`None`: no limit).
    MaxDepth(Option<u32>),
    /// Yixin-Board `max_node` (`None`: no limit).
    MaxNodes(Option<u64>),
    /// Yixin-Board `thread_num`: search threads (0 counts as 1).
    Threads(usize),
    /// Any other key (`game_type`, `folder`, `evaluate`, ...): accepted and ignored.
    Ignored(String),
}

/// A command from the manager.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Command {
    Start(i64),
    RectStart,
    Restart,
    Begin,
    Turn(Pos),
    /// `BOARD` (`think`) or `YXBOARD` (no search): stone lines up to `DONE` follow.
    Board {
        think: bool,
    },
    /// `SWAP2BOARD`: a swap2 opening request, its lines up to `DONE` are read and refused.
    Swap2Board,
    TakeBack(Pos),
    Info(Info),
    About,
    End,
    ShowForbid,
    Stop,
    NBest,
    HashClear,
    ShowInfo,
}

/// Why a line was not understood.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ParseError {
    /// Answered with `UNKNOWN`.
    #[error("unknown command '{0}'")]
    Unknown(String),
    /// Answered with `ERROR`.
    #[error("{0}")]
    Malformed(String),
}

fn malformed(message: impl Into<String>) -> ParseError {
    ParseError::Malformed(message.into())
}

/// A point in Gomocup notation, `x,y`.
pub fn format_move(p: Pos) -> String {
    let (x, y) = p.to_gomocup();
    format!("{x},{y}")
}

fn integer(text: &str, what: &str) -> Result<i64, ParseError> {
    let text = text.trim();
    text.parse()
        .map_err(|_| malformed(format!("{what}: '{text}' is not a whole number")))
}

fn non_negative(text: &str, what: &str) -> Result<u64, ParseError> {
    let value = integer(text, what)?;
    u64::try_from(value).map_err(|_| malformed(format!("{what}: {value} is negative")))
}

fn point(x: &str, y: &str) -> Result<Pos, ParseError> {
    let (x, y) = (integer(x, "x")?, integer(y, "y")?);
    Pos::from_gomocup(x, y).map_err(|_| malformed(format!("{x},{y} is off the 15x15 board")))
}

/// Parses a move `x,y` (0-based column and row from the top).
pub fn parse_move(text: &str) -> Result<Pos, ParseError> {
    match text.split(',').collect::<Vec<_>>().as_slice() {
        [x, y] => point(x, y),
        _ => Err(malformed(format!(
            "expected a move 'x,y', got '{}'",
            text.trim()
        ))),
    }
}

/// Parses one line of a `BOARD` / `YXBOARD` listing: `x,y,field` or `DONE`.
pub fn parse_listing_line(line: &str) -> Result<ListingLine, ParseError> {
    let line = line.trim();
    if line.eq_ignore_ascii_case("DONE") {
        return Ok(ListingLine::Done);
    }
    match line.split(',').collect::<Vec<_>>().as_slice() {
        [x, y, field] => {
            let p = point(x, y)?;
            let field = match field.trim() {
                "1" => Field::Own,
                "2" => Field::Opponent,
                "3" => Field::Marker,
                other => return Err(malformed(format!("field '{other}' is not 1, 2 or 3"))),
            };
            Ok(ListingLine::Stone(p, field))
        }
        _ => Err(malformed(format!(
            "expected 'x,y,field' or DONE inside a board listing, got '{line}'"
        ))),
    }
}

fn parse_info(rest: &str) -> Result<Info, ParseError> {
    let (key, value) = rest.split_once(char::is_whitespace).unwrap_or((rest, ""));
    let key = key.to_ascii_lowercase();
    let value = value.trim();
    let millis = |value: &str| non_negative(value, &key).map(Duration::from_millis);
    Ok(match key.as_str() {
        "" => return Err(malformed("INFO needs a key and a value")),
        "timeout_turn" => Info::TimeoutTurn(millis(value)?),
        "timeout_match" => Info::TimeoutMatch(Some(millis(value)?).filter(|d| !d.is_zero())),
        "time_left" => {
            let ms = integer(value, &key)?;
            Info::TimeLeft((ms < UNLIMITED_MS).then(|| Duration::from_millis(ms.max(0) as u64)))
        }
        "max_memory" => {
            let bytes = non_negative(value, &key)?;
            Info::MaxMemory((bytes > 0).then(|| usize::try_from(bytes).unwrap_or(usize::MAX)))
        }
        "rule" => {
            let bits = non_negative(value, &key)?;
            // Yixin-Board sends 2 for renju; the Gomocup bitmask uses 4.
            let rule = if bits == 2 {
                Some(Rule::Renju)
            } else {
                u32::try_from(bits).ok().and_then(Rule::from_gomocup)
            };
            Info::Rule(rule.ok_or_else(|| {
                malformed(format!(
                    "unsupported rule {bits} (supported: 0 freestyle, 1 exact five, 4 renju)"
                ))
            })?)
        }
        "max_depth" => {
            let depth = integer(value, &key)?;
            Info::MaxDepth(u32::try_from(depth).ok().filter(|&d| d > 0))
        }
        "max_node" => {
            let nodes = integer(value, &key)?;
            Info::MaxNodes(u64::try_from(nodes).ok().filter(|&n| n > 0))
        }
        "thread_num" => {
            let threads = non_negative(value, &key)?;
            Info::Threads(usize::try_from(threads).unwrap_or(usize::MAX).max(1))
        }
        _ => Info::Ignored(key),
    })
}

/// Parses one command line (outside a board listing).
pub fn parse_command(line: &str) -> Result<Command, ParseError> {
    let line = line.trim();
    let (word, rest) = line.split_once(char::is_whitespace).unwrap_or((line, ""));
    let rest = rest.trim();
    let word = word.to_ascii_uppercase();
    let no_arguments = |command: Command| {
        if rest.is_empty() {
            Ok(command)
        } else {
            Err(malformed(format!(
                "{word} takes no arguments, got '{rest}'"
            )))
        }
    };
    match word.as_str() {
        "START" => Ok(Command::Start(integer(rest, "START size")?)),
        "RECTSTART" => Ok(Command::RectStart),
        "RESTART" => no_arguments(Command::Restart),
        "BEGIN" => no_arguments(Command::Begin),
        "TURN" => Ok(Command::Turn(parse_move(rest)?)),
        "BOARD" => no_arguments(Command::Board { think: true }),
        "YXBOARD" => no_arguments(Command::Board { think: false }),
        "SWAP2BOARD" => no_arguments(Command::Swap2Board),
        "TAKEBACK" => Ok(Command::TakeBack(parse_move(rest)?)),
        "INFO" => Ok(Command::Info(parse_info(rest)?)),
        "ABOUT" => Ok(Command::About),
        "END" => Ok(Command::End),
        "YXSHOWFORBID" => Ok(Command::ShowForbid),
        "YXSTOP" => Ok(Command::Stop),
        "YXNBEST" => Ok(Command::NBest),
        "YXHASHCLEAR" => Ok(Command::HashClear),
        "YXSHOWINFO" => Ok(Command::ShowInfo),
        _ => Err(ParseError::Unknown(word.chars().take(40).collect())),
    }
}

/// The `YXSHOWFORBID` answer: Black's forbidden points when Black is to move under renju, each as
/// two-digit `x` then two-digit `y`, ending with `.`.
pub fn forbid_reply(board: &Board) -> String {
    let mut reply = String::from("FORBID ");
    if board.rule().has_forbidden(board.side_to_move()) {
        for (p, _) in board.forbidden_points() {
            let (x, y) = p.to_gomocup();
            reply.push_str(&format!("{x:02}{y:02}"));
        }
    }
    reply.push('.');
    reply
}

/// Is `p` a move the side to move may make (empty, and not forbidden for Black in renju)?
fn is_legal(board: &Board, p: Pos) -> bool {
    p.is_on_board()
        && board.is_empty(p)
        && !(board.rule().has_forbidden(board.side_to_move()) && board.is_forbidden(p))
}

/// A move when the engine gave none or an unplayable one: the legal point nearest the centre,
/// else any empty point.
fn fallback_move(board: &Board) -> Option<Pos> {
    Pos::all()
        .filter(|&p| is_legal(board, p))
        .min_by_key(|&p| p.distance(Pos::CENTER))
        .or_else(|| Pos::all().find(|&p| board.is_empty(p)))
}

/// What the reader and worker threads tell the protocol loop.
enum Event {
    Line(Instant, String),
    Eof,
    Progress(SearchInfo),
    Done {
        engine: Option<Box<Engine>>,
        result: Option<SearchResult>,
    },
}

struct RunningSearch {
    stop: Arc<AtomicBool>,
    handle: JoinHandle<()>,
    /// When the command that asked for the move arrived.
    asked_at: Instant,
}

/// A board listing being read.
struct Listing {
    think: bool,
    /// A `SWAP2BOARD` listing: its lines are skipped and `DONE` is refused.
    swap2: bool,
    asked_at: Instant,
    stones: Vec<(Pos, Field)>,
}

#[derive(PartialEq, Eq)]
enum Flow {
    Continue,
    Quit,
}

struct Brain<W: Write> {
    out: W,
    events: Sender<Event>,
    engine: Option<Box<Engine>>,
    search: Option<RunningSearch>,
    queue: VecDeque<(Instant, String)>,
    eof: bool,
    board: Option<Board>,
    rule: Rule,
    listing: Option<Listing>,
    timeout_turn: Option<Duration>,
    timeout_match: Option<Duration>,
    time_left: Option<Duration>,
    max_depth: Option<u32>,
    max_nodes: Option<u64>,
    /// `INFO max_memory` (bytes for the engine) and `INFO thread_num`, kept for a replacement
    /// engine after a failed search.
    memory_limit: Option<usize>,
    threads: usize,
}

impl<W: Write> Brain<W> {
    fn new(out: W, events: Sender<Event>) -> Brain<W> {
        Brain {
            out,
            events,
            engine: Some(Box::new(Engine::new())),
            search: None,
            queue: VecDeque::new(),
            eof: false,
            board: None,
            rule: Rule::default(),
            listing: None,
            timeout_turn: None,
            timeout_match: None,
            time_left: None,
            max_depth: None,
            max_nodes: None,
            memory_limit: None,
            threads: 1,
        }
    }

    fn send(&mut self, line: &str) -> io::Result<()> {
        writeln!(self.out, "{line}")?;
        self.out.flush()
    }

    fn error(&mut self, message: &str) -> io::Result<()> {
        self.send(&format!("ERROR {message}"))
    }

    fn on_event(&mut self, event: Event) -> io::Result<Flow> {
        match event {
            Event::Line(at, line) => {
                if self.search.is_none() {
                    return self.process(at, &line);
                }
                // `YXSTOP` acts on the running search at once; so does `END` unless commands sent
                // before it still wait for their answers.
                match parse_command(&line) {
                    Ok(Command::Stop) => self.request_stop(),
                    Ok(Command::End) if self.queue.is_empty() => return Ok(Flow::Quit),
                    _ => self.queue.push_back((at, line)),
                }
            }
            Event::Eof => self.eof = true,
            Event::Progress(info) => self.send(&progress_message(&info))?,
            Event::Done { engine, result } => {
                if self.finish_search(engine, result)? == Flow::Quit {
                    return Ok(Flow::Quit);
                }
                while self.search.is_none() {
                    let Some((at, line)) = self.queue.pop_front() else {
                        break;
                    };
                    if self.process(at, &line)? == Flow::Quit {
                        return Ok(Flow::Quit);
                    }
                }
            }
        }
        let idle = self.search.is_none() && self.queue.is_empty();
        Ok(if self.eof && idle {
            Flow::Quit
        } else {
            Flow::Continue
        })
    }

    fn request_stop(&self) {
        if let Some(search) = &self.search {
            search.stop.store(true, Ordering::Relaxed);
        }
    }

    /// Stops a running search and waits for its thread.
    fn shutdown(&mut self) {
        self.request_stop();
        if let Some(search) = self.search.take() {
            // A panicking search already reported through its own catch; nothing is left to do.
            let _ = search.handle.join();
        }
    }

    fn process(&mut self, at: Instant, line: &str) -> io::Result<Flow> {
        if line.trim().is_empty() {
            return Ok(Flow::Continue);
        }
        if let Some(listing) = &self.listing {
            if listing.swap2 {
                if parse_listing_line(line) == Ok(ListingLine::Done) {
                    self.listing = None;
                    self.error("SWAP2BOARD is not supported (no swap2 opening play)")?;
                }
                return Ok(Flow::Continue);
            }
            return self.process_listing_line(line);
        }
        match parse_command(line) {
            Ok(command) => self.execute(at, command),
            Err(ParseError::Unknown(word)) => {
                self.send(&format!("UNKNOWN unknown command '{word}'"))?;
                Ok(Flow::Continue)
            }
            Err(ParseError::Malformed(message)) => {
                self.error(&message)?;
                Ok(Flow::Continue)
            }
        }
    }

    fn process_listing_line(&mut self, line: &str) -> io::Result<Flow> {
        match parse_listing_line(line) {
            Ok(ListingLine::Done) => self.finish_listing(),
            Ok(ListingLine::Stone(_, Field::Marker)) => Ok(Flow::Continue),
            Ok(ListingLine::Stone(p, field)) => {
                let listing = self.listing.as_mut().expect("inside a listing");
                if listing.stones.iter().any(|&(q, _)| q == p) {
                    let message = format!("{} is listed twice; ignored", format_move(p));
                    self.error(&message)?;
                } else {
                    listing.stones.push((p, field));
                }
                Ok(Flow::Continue)
            }
            Err(error) => {
                if matches!(parse_command(line), Ok(Command::End)) {
                    return Ok(Flow::Quit);
                }
                self.error(&error.to_string())?;
                Ok(Flow::Continue)
            }
        }
    }

    fn finish_listing(&mut self) -> io::Result<Flow> {
        let Some(listing) = self.listing.take() else {
            return Ok(Flow::Continue);
        };
        let own = listing
            .stones
            .iter()
            .filter(|(_, f)| *f == Field::Own)
            .count();
        let opponent = listing.stones.len() - own;
        // The brain is to move: Black when both sides have as many stones, White when the
        // opponent has one more.
        let me = if own >= opponent {
            Color::Black
        } else {
            Color::White
        };
        if own != opponent && own + 1 != opponent {
            let message =
                format!("MESSAGE {own} own and {opponent} opponent stones: playing {me:?} anyway");
            self.send(&message)?;
        }
        let stones: Vec<(Pos, Color)> = listing
            .stones
            .iter()
            .map(|&(p, field)| {
                (
                    p,
                    if field == Field::Own {
                        me
                    } else {
                        me.opponent()
                    },
                )
            })
            .collect();
        match Board::from_stones(self.rule, &stones, me) {
            Ok(board) => self.board = Some(board),
            Err(error) => {
                self.error(&error.to_string())?;
                return Ok(Flow::Continue);
            }
        }
        if listing.think {
            self.think(listing.asked_at)?;
        }
        Ok(Flow::Continue)
    }

    fn execute(&mut self, at: Instant, command: Command) -> io::Result<Flow> {
        let started = self.board.is_some();
        let not_started = "no game yet: send START 15 first";
        match command {
            Command::Start(size) if size == i64::from(SIZE) => {
                self.new_game();
                // The manager waits for the answer without a clock: a good moment to make the
                // engine and map its table (done during a search, it would take from the move).
                let engine = self.engine.take().unwrap_or_else(|| self.fresh_engine());
                engine.touch_tables();
                self.engine = Some(engine);
                self.send("OK")?;
            }
            Command::Start(size) => {
                self.error(&format!("unsupported size {size} (only 15 is supported)"))?
            }
            Command::RectStart => self.error("rectangular boards are not supported")?,
            Command::Restart if started => {
                self.new_game();
                self.send("OK")?;
            }
            Command::Begin if started => {
                if self.board.as_ref().is_some_and(|b| b.stone_count() > 0) {
                    self.error("BEGIN needs an empty board")?;
                } else {
                    self.think(at)?;
                }
            }
            Command::Turn(p) if started => self.turn(at, p)?,
            Command::Board { think } if started => {
                self.listing = Some(Listing {
                    think,
                    swap2: false,
                    asked_at: at,
                    stones: Vec::new(),
                });
            }
            Command::Swap2Board => {
                self.listing = Some(Listing {
                    think: false,
                    swap2: true,
                    asked_at: at,
                    stones: Vec::new(),
                });
            }
            Command::TakeBack(p) if started => match self.take_back(p) {
                Ok(()) => self.send("OK")?,
                Err(message) => self.error(&message)?,
            },
            Command::ShowForbid if started => {
                let reply = self.board.as_ref().map(forbid_reply).unwrap_or_default();
                self.send(&reply)?;
            }
            Command::NBest if started => self.think(at)?,
            Command::Restart
            | Command::Begin
            | Command::Turn(_)
            | Command::Board { .. }
            | Command::TakeBack(_)
            | Command::ShowForbid
            | Command::NBest => self.error(not_started)?,
            Command::Info(info) => self.apply_info(info)?,
            Command::About => self.send(ABOUT)?,
            Command::End => return Ok(Flow::Quit),
            Command::Stop => {}
            Command::HashClear => {
                if let Some(engine) = self.engine.as_mut() {
                    engine.clear();
                }
                self.send("MESSAGE hash cleared")?;
            }
            Command::ShowInfo => {
                let cores = thread::available_parallelism().map_or(1, |n| n.get());
                let message = format!("MESSAGE INFO MAX_THREAD_NUM {}", cores.min(MAX_THREADS));
                self.send(&message)?
            }
        }
        Ok(Flow::Continue)
    }

    /// An engine with the memory and thread settings received so far.
    fn fresh_engine(&self) -> Box<Engine> {
        let mut engine = Engine::with_options(EngineOptions {
            threads: self.threads,
            ..EngineOptions::default()
        });
        if let Some(bytes) = self.memory_limit {
            engine.set_memory_limit(bytes);
        }
        Box::new(engine)
    }

    fn new_game(&mut self) {
        self.board = Some(Board::new(self.rule));
        self.listing = None;
        if let Some(engine) = self.engine.as_mut() {
            engine.clear();
        }
    }

    fn turn(&mut self, at: Instant, p: Pos) -> io::Result<()> {
        let Some(board) = self.board.as_mut() else {
            return Ok(());
        };
        if !board.is_empty(p) {
            let message = format!("{} is already occupied", format_move(p));
            return self.error(&message);
        }
        board.make_move(p);
        self.think(at)
    }

    fn take_back(&mut self, p: Pos) -> Result<(), String> {
        let board = self.board.as_mut().ok_or("no game")?;
        let Some(color) = board.stone(p) else {
            return Err(format!("{} is empty: nothing to take back", format_move(p)));
        };
        if board.last_move() == Some(Move::Place(p)) {
            board.undo();
            return Ok(());
        }
        let stones: Vec<(Pos, Color)> = board
            .history()
            .iter()
            .filter_map(|mv| mv.pos())
            .filter(|&q| q != p)
            .filter_map(|q| board.stone(q).map(|c| (q, c)))
            .collect();
        *board = Board::from_stones(board.rule(), &stones, color).map_err(|e| e.to_string())?;
        Ok(())
    }

    fn apply_info(&mut self, info: Info) -> io::Result<()> {
        match info {
            Info::TimeoutTurn(turn) => self.timeout_turn = Some(turn),
            Info::TimeoutMatch(limit) => self.timeout_match = limit,
            Info::TimeLeft(left) => self.time_left = left,
            Info::MaxMemory(Some(bytes)) => {
                let reserve = (bytes / 4).min(MEMORY_RESERVE_MAX);
                self.memory_limit = Some(bytes - reserve);
                if let Some(engine) = self.engine.as_mut() {
                    engine.set_memory_limit(bytes - reserve);
                }
            }
            Info::Threads(threads) => {
                self.threads = threads.min(MAX_THREADS);
                if let Some(engine) = self.engine.as_mut() {
                    engine.set_threads(threads);
                }
            }
            Info::MaxMemory(None) | Info::Ignored(_) => {}
            Info::Rule(rule) => {
                self.rule = rule;
                if let Some(board) = self.board.as_mut() {
                    if board.rule() != rule {
                        let stones: Vec<(Pos, Color)> = board
                            .history()
                            .iter()
                            .filter_map(|mv| mv.pos())
                            .filter_map(|q| board.stone(q).map(|c| (q, c)))
                            .collect();
                        match Board::from_stones(rule, &stones, board.side_to_move()) {
                            Ok(rebuilt) => *board = rebuilt,
                            Err(error) => return self.error(&error.to_string()),
                        }
                    }
                }
            }
            Info::MaxDepth(depth) => self.max_depth = depth,
            Info::MaxNodes(nodes) => self.max_nodes = nodes,
        }
        Ok(())
    }

    /// The engine's limits for a move asked for at `asked_at`.
    fn limits(&self, asked_at: Instant) -> Limits {
        let spent = asked_at.elapsed();
        let (turn, fast) = match self.timeout_turn {
            Some(turn) if turn.is_zero() => (FAST_TURN_TIME, true),
            Some(turn) => (turn, false),
            None => (DEFAULT_TURN_TIME, false),
        };
        let margin = (turn / 20).min(IO_MARGIN_MAX) + Duration::from_millis(10);
        let match_left = self
            .time_left
            .or(self.timeout_match)
            .map(|left| left.saturating_sub(margin).saturating_sub(spent));
        let mut turn_time = turn.saturating_sub(margin).saturating_sub(spent);
        if let Some(left) = match_left {
            turn_time = turn_time.min(left);
        }
        Limits {
            turn_time: turn_time.max(MIN_TURN_TIME),
            match_time_left: match_left,
            max_depth: if fast { Some(1) } else { self.max_depth },
            max_nodes: self.max_nodes,
        }
    }

    /// Starts a search for the side to move on the worker thread.
    fn think(&mut self, asked_at: Instant) -> io::Result<()> {
        let Some(board) = self.board.clone() else {
            return self.error("no game yet: send START 15 first");
        };
        if board.is_full() {
            return self.error("the board is full");
        }
        // Limits after the engine is made, so that the time that takes counts against the move.
        let mut engine = self.engine.take().unwrap_or_else(|| self.fresh_engine());
        let limits = self.limits(asked_at);
        let stop = Arc::new(AtomicBool::new(false));
        let worker_stop = Arc::clone(&stop);
        let events = self.events.clone();
        let handle = thread::spawn(move || {
            let progress = events.clone();
            let mut report = |info: &SearchInfo| {
                // The loop only stops listening when the brain quits.
                let _ = progress.send(Event::Progress(info.clone()));
            };
            let outcome = panic::catch_unwind(AssertUnwindSafe(|| {
                engine.search(&board, &limits, &worker_stop, &mut report)
            }));
            let done = match outcome {
                Ok(result) => Event::Done {
                    engine: Some(engine),
                    result: Some(result),
                },
                Err(_) => Event::Done {
                    engine: None,
                    result: None,
                },
            };
            let _ = events.send(done);
        });
        self.search = Some(RunningSearch {
            stop,
            handle,
            asked_at,
        });
        Ok(())
    }

    fn finish_search(
        &mut self,
        engine: Option<Box<Engine>>,
        result: Option<SearchResult>,
    ) -> io::Result<Flow> {
        let Some(search) = self.search.take() else {
            return Ok(Flow::Continue);
        };
        // The worker sent its last event; joining cannot block for long.
        let _ = search.handle.join();
        let failed = engine.is_none();
        self.engine = engine;
        let flow = self.answer(search.asked_at, result);
        if failed {
            // Only after answering: a new engine's tables take a while to allocate.
            self.engine = Some(self.fresh_engine());
        }
        flow
    }

    /// Plays and sends the move of a finished search (or a fallback move).
    fn answer(&mut self, asked_at: Instant, result: Option<SearchResult>) -> io::Result<Flow> {
        if let Some(left) = self.time_left.as_mut() {
            *left = left.saturating_sub(asked_at.elapsed());
        }
        let Some(board) = self.board.as_mut() else {
            return Ok(Flow::Continue);
        };
        let proposed = result.as_ref().and_then(|r| r.best_move);
        let chosen = match proposed {
            Some(p) if is_legal(board, p) => Some(p),
            _ => fallback_move(board),
        };
        if result.is_none() {
            self.send("MESSAGE the search failed; playing a fallback move")?;
        } else if proposed != chosen {
            self.send("MESSAGE the engine gave no playable move; playing a fallback move")?;
        }
        let Some(board) = self.board.as_mut() else {
            return Ok(Flow::Continue);
        };
        match chosen {
            Some(p) => {
                board.make_move(p);
                self.send(&format_move(p))?;
            }
            None => self.error("no move left: the board is full")?,
        }
        Ok(Flow::Continue)
    }
}

/// A `MESSAGE` line for one completed search depth.
fn progress_message(info: &SearchInfo) -> String {
    let pv: Vec<String> = info.pv.iter().map(|&p| format_move(p)).collect();
    format!(
        "MESSAGE depth {} ev {} nodes {} nps {} time {} pv {}",
        info.depth,
        info.score,
        info.nodes,
        info.nodes_per_second,
        info.elapsed.as_millis(),
        pv.join(" ")
    )
}

fn spawn_reader<R: BufRead + Send + 'static>(mut input: R, events: Sender<Event>) {
    thread::spawn(move || {
        let mut buffer = Vec::new();
        loop {
            buffer.clear();
            match input.read_until(b'\n', &mut buffer) {
                Ok(0) | Err(_) => break,
                Ok(_) => {
                    let line = String::from_utf8_lossy(&buffer).trim().to_string();
                    if events.send(Event::Line(Instant::now(), line)).is_err() {
                        return;
                    }
                }
            }
        }
        let _ = events.send(Event::Eof);
    });
}

/// Runs the brain: reads commands from `input` until `END` or end of input (after answering every
/// command read), writing answers to `output`.
pub fn run<R, W>(input: R, output: W) -> io::Result<()>
where
    R: BufRead + Send + 'static,
    W: Write,
{
    let (events, receiver): (Sender<Event>, Receiver<Event>) = mpsc::channel();
    spawn_reader(input, events.clone());
    let mut brain = Brain::new(output, events);
    let outcome = loop {
        let Ok(event) = receiver.recv() else {
            break Ok(());
        };
        match brain.on_event(event) {
            Ok(Flow::Continue) => {}
            Ok(Flow::Quit) => break Ok(()),
            Err(error) => break Err(error),
        }
    };
    brain.shutdown();
    outcome
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn session(script: &str) -> Vec<String> {
        let mut output = Vec::new();
        run(
            io::Cursor::new(script.to_string().into_bytes()),
            &mut output,
        )
        .expect("runs");
        String::from_utf8(output)
            .expect("utf-8")
            .lines()
            .filter(|line| !line.starts_with("MESSAGE"))
            .map(str::to_string)
            .collect()
    }

    #[test]
    fn commands_parse() {
        assert_eq!(parse_command("START 15"), Ok(Command::Start(15)));
        assert_eq!(
            parse_command("  turn 7, 8 \r"),
            Ok(Command::Turn(Pos::new(7, 8).unwrap()))
        );
        assert_eq!(
            parse_command("INFO timeout_turn 5000"),
            Ok(Command::Info(Info::TimeoutTurn(Duration::from_secs(5))))
        );
        assert_eq!(
            parse_command("INFO time_left 2147483647"),
            Ok(Command::Info(Info::TimeLeft(None)))
        );
        assert_eq!(
            parse_command("INFO time_left -20"),
            Ok(Command::Info(Info::TimeLeft(Some(Duration::ZERO))))
        );
        for (bits, rule) in [(0, Rule::Freestyle), (1, Rule::Standard), (4, Rule::Renju)] {
            assert_eq!(
                parse_command(&format!("INFO rule {bits}")),
                Ok(Command::Info(Info::Rule(rule)))
            );
        }
        assert_eq!(
            parse_command("INFO rule 2"),
            Ok(Command::Info(Info::Rule(Rule::Renju)))
        );
        assert!(matches!(
            parse_command("INFO rule 8"),
            Err(ParseError::Malformed(_))
        ));
        assert_eq!(
            parse_command("INFO thread_num 4"),
            Ok(Command::Info(Info::Threads(4)))
        );
        assert_eq!(
            parse_command("INFO thread_num 0"),
            Ok(Command::Info(Info::Threads(1)))
        );
        assert_eq!(
            parse_command("INFO folder C:\\x y"),
            Ok(Command::Info(Info::Ignored("folder".into())))
        );
        assert!(matches!(
            parse_command("TURN 15,0"),
            Err(ParseError::Malformed(_))
        ));
        assert!(matches!(
            parse_command("TURN 1"),
            Err(ParseError::Malformed(_))
        ));
        assert!(matches!(
            parse_command("TURN a,b"),
            Err(ParseError::Malformed(_))
        ));
        assert!(matches!(
            parse_command("BEGIN now"),
            Err(ParseError::Malformed(_))
        ));
        assert_eq!(
            parse_command("HELLO"),
            Err(ParseError::Unknown("HELLO".into()))
        );
        assert_eq!(
            parse_listing_line("3,4,2"),
            Ok(ListingLine::Stone(Pos::new(3, 4).unwrap(), Field::Opponent))
        );
        assert_eq!(parse_listing_line("done"), Ok(ListingLine::Done));
        assert!(parse_listing_line("3,4,5").is_err());
        assert!(parse_listing_line("3,4").is_err());
    }

    #[test]
    fn a_short_session_answers_every_command() {
        let replies = session(
            "START 20\nSTART 15\nINFO max_depth 1\nINFO timeout_turn 200\nBEGIN\n\
             TURN 7,7\nTURN 0,0\nTAKEBACK 0,0\nTAKEBACK 9,9\nABOUT\nNONSENSE\nYXSHOWFORBID\n",
        );
        assert_eq!(
            replies[0],
            "ERROR unsupported size 20 (only 15 is supported)"
        );
        assert_eq!(replies[1], "OK");
        assert_eq!(replies[2], "7,7", "first move in the centre");
        assert_eq!(replies[3], "ERROR 7,7 is already occupied");
        assert!(parse_move(&replies[4]).is_ok(), "{}", replies[4]);
        assert_eq!(replies[5], "OK");
        assert_eq!(replies[6], "ERROR 9,9 is empty: nothing to take back");
        assert_eq!(replies[7], ABOUT);
        assert_eq!(replies[8], "UNKNOWN unknown command 'NONSENSE'");
        assert_eq!(replies[9], "FORBID .");
        assert_eq!(replies.len(), 10);
        let replies = session("START 15\nSWAP2BOARD\n7,7\n8,7\n9,9\nDONE\nABOUT\n");
        assert_eq!(
            replies,
            [
                "OK",
                "ERROR SWAP2BOARD is not supported (no swap2 opening play)",
                ABOUT
            ]
        );
    }

    #[test]
    fn take_back_of_an_earlier_stone_keeps_the_rest() {
        let replies = session(
            "START 15\nINFO max_depth 1\nYXBOARD\n7,7,1\n8,8,2\n9,9,1\nDONE\nTAKEBACK 7,7\n\
             YXBOARD\n7,7,1\nDONE\nTAKEBACK 7,7\nTAKEBACK 7,7\n",
        );
        assert_eq!(
            replies,
            ["OK", "OK", "OK", "ERROR 7,7 is empty: nothing to take back"]
        );
    }

    #[test]
    fn commands_before_start_are_refused() {
        let replies = session("BEGIN\nTURN 1,1\nEND\nABOUT\n");
        assert_eq!(
            replies,
            [
                "ERROR no game yet: send START 15 first",
                "ERROR no game yet: send START 15 first"
            ]
        );
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        #[test]
        fn parsers_never_panic(line in "\\PC{0,40}") {
            let _ = parse_command(&line);
            let _ = parse_listing_line(&line);
            let _ = parse_move(&line);
        }

        #[test]
        fn protocol_like_lines_never_panic(
            word in prop::sample::select(vec![
                "START", "TURN", "BOARD", "YXBOARD", "TAKEBACK", "INFO", "DONE", "INFO rule",
                "INFO timeout_turn", "INFO max_memory", "INFO time_left", "RECTSTART",
            ]),
            x in -3i64..20,
            y in -3i64..20,
            tail in "[0-9, -]{0,6}",
        ) {
            let line = format!("{word} {x},{y}{tail}");
            let _ = parse_command(&line);
            let _ = parse_listing_line(&format!("{x},{y},{tail}"));
        }

        #[test]
        fn random_sessions_never_fail(
            lines in prop::collection::vec(
                prop_oneof![
                    Just("BEGIN".to_string()),
                    Just("BOARD".to_string()),
                    Just("YXBOARD".to_string()),
                    Just("DONE".to_string()),
                    Just("RESTART".to_string()),
                    Just("YXSHOWFORBID".to_string()),
                    Just("YXSTOP".to_string()),
                    (0i64..16, 0i64..16).prop_map(|(x, y)| format!("TURN {x},{y}")),
                    (0i64..16, 0i64..16).prop_map(|(x, y)| format!("TAKEBACK {x},{y}")),
                    (0i64..16, 0i64..16, 0u8..4).prop_map(|(x, y, f)| format!("{x},{y},{f}")),
                    prop::sample::select(vec![0u32, 1, 2, 4, 8]).prop_map(|r| format!("INFO rule {r}")),
                    "\\PC{0,12}",
                ],
                0..24,
            )
        ) {
            let script = format!("START 15\nINFO max_depth 1\n{}\n", lines.join("\n"));
            let mut output = Vec::new();
            prop_assert!(run(io::Cursor::new(script.into_bytes()), &mut output).is_ok());
        }
    }
}
