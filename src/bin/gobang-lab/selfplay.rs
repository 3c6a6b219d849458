//! `gobang-lab selfplay`: a match between two players, each either an in-process engine
//! configuration or an external Gomocup brain executable driven through the protocol. Every
//! opening (by default the 26 standard renju openings) is played from both sides, games run in
//! parallel, and the result is reported as wins/draws/losses, score and Elo difference with a 95%
//! interval. Besides the time per move, each player may have a match clock (time for all its
//! moves in a game), as in Gomocup tournaments. An illegal or forbidden move, a timeout, a crash
//! or an unreadable answer loses the game for that player and the reason is recorded; games can
//! be written as `.psq`/SGF/text.

use anyhow::Context;
use clap::Args;
use gobang::engine::{Engine, EngineOptions, Limits, Weights, DEFAULT_HASH_BYTES};
use gobang::game::openings::{parse_openings, standard_openings, Opening};
use gobang::game::record::{GameRecord, RecordFormat};
use gobang::game::{EndReason, ForbiddenPolicy, Game};
use gobang::protocol::gomocup::{format_move, parse_move};
use gobang::rules::{Color, Move, Pos, Rule};
use std::collections::BTreeMap;
use std::fmt;
use std::io::{BufRead, BufReader, Write};
use std::panic::{self, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::str::FromStr;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::thread;
use std::time::{Duration, Instant};

/// How long an external brain may take to start and answer `START`.
const START_PATIENCE: Duration = Duration::from_secs(10);
/// How long an external brain gets to exit after `END` before it is killed.
const END_PATIENCE: Duration = Duration::from_millis(500);

#[derive(Args, Debug)]
pub struct SelfplayArgs {
    /// Player A: `engine[:depth=N,nodes=N,time=MS,hash=MB,threads=N,weights=FILE]` or
    /// `brain:PATH` (a Gomocup brain executable)
    pub a: PlayerSpec,
    /// Player B, same forms as A
    pub b: PlayerSpec,
    /// Time per move in milliseconds (an engine's `time=` overrides it for that engine)
    #[arg(long, default_value_t = 1000)]
    pub move_time_ms: u64,
    /// Extra time a move may take before it counts as lost on time, in milliseconds
    #[arg(long, default_value_t = 250)]
    pub grace_ms: u64,
    /// Time for all of a player's moves in one game, in milliseconds (Gomocup `timeout_match`;
    /// players are told what is left before every move, and a move may take no more than that
    /// nor the time per move). Default: no match clock
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    pub match_time_ms: Option<u64>,
    /// Rule: renju, standard or freestyle
    #[arg(long, default_value = "renju")]
    pub rule: Rule,
    /// Opening file (one opening a line: optional code and name, then moves like `h8 h9 j10`);
    /// default: the 26 standard renju openings
    #[arg(long)]
    pub openings: Option<PathBuf>,
    /// How many times to play every opening from both sides
    #[arg(long, default_value_t = 1)]
    pub rounds: usize,
    /// Stop after this many games (default: all of them)
    #[arg(long)]
    pub games: Option<usize>,
    /// Games played at the same time
    #[arg(long, default_value_t = default_threads())]
    pub threads: usize,
    /// Write every game into this directory
    #[arg(long)]
    pub records: Option<PathBuf>,
    /// Format of the written games: psq, sgf or txt
    #[arg(long, default_value = "psq", value_parser = parse_format)]
    pub format: RecordFormat,
}

fn default_threads() -> usize {
    thread::available_parallelism().map_or(1, |n| n.get())
}

fn parse_format(text: &str) -> Result<RecordFormat, String> {
    match text.to_ascii_lowercase().as_str() {
        "psq" => Ok(RecordFormat::Psq),
        "sgf" => Ok(RecordFormat::Sgf),
        "txt" | "text" => Ok(RecordFormat::Text),
        other => Err(format!("unknown format '{other}' (psq, sgf or txt)")),
    }
}

/// Evaluation weights with the name they are shown under (a file name, or a tuner's label).
#[derive(Clone, Debug, PartialEq)]
pub struct NamedWeights {
    pub name: String,
    pub weights: Box<Weights>,
}

/// An in-process engine configuration.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct EngineConfig {
    pub depth: Option<u32>,
    pub nodes: Option<u64>,
    /// Overrides the match's time per move.
    pub move_time: Option<Duration>,
    /// Memory for the transposition table, in MiB.
    pub hash_mb: Option<u64>,
    /// Search threads (Lazy SMP).
    pub threads: Option<usize>,
    /// Evaluation weights (default: the engine's built-in ones).
    pub weights: Option<NamedWeights>,
}

/// Who plays.
#[derive(Clone, Debug, PartialEq)]
pub enum PlayerSpec {
    Engine(EngineConfig),
    /// An external Gomocup brain executable.
    Brain(PathBuf),
}

impl FromStr for PlayerSpec {
    type Err = String;

    fn from_str(text: &str) -> Result<PlayerSpec, String> {
        if let Some(path) = text.strip_prefix("brain:") {
            if path.is_empty() {
                return Err("brain: needs the path of a Gomocup brain executable".into());
            }
            return Ok(PlayerSpec::Brain(PathBuf::from(path)));
        }
        let options = match text.split_once(':') {
            Some(("engine", options)) => options,
            None if text == "engine" => "",
            _ => {
                return Err(format!(
                "'{text}' is not a player (engine[:depth=N,nodes=N,time=MS,hash=MB,threads=N,weights=FILE] or brain:PATH)"
            ))
            }
        };
        let mut config = EngineConfig::default();
        for option in options.split(',').filter(|o| !o.is_empty()) {
            let (key, value) = option
                .split_once('=')
                .ok_or_else(|| format!("engine option '{option}' is not key=value"))?;
            let number = |value: &str| {
                value
                    .parse::<u64>()
                    .map_err(|_| format!("engine option {key}: '{value}' is not a whole number"))
            };
            match key {
                "depth" => config.depth = Some(number(value)?.try_into().unwrap_or(u32::MAX)),
                "nodes" => config.nodes = Some(number(value)?),
                "time" => config.move_time = Some(Duration::from_millis(number(value)?)),
                "hash" => {
                    let mb = number(value)?;
                    if !(1..=crate::MAX_HASH_MB).contains(&mb) {
                        return Err(format!(
                            "engine option hash: {mb} MiB is not between 1 and {}",
                            crate::MAX_HASH_MB
                        ));
                    }
                    config.hash_mb = Some(mb);
                }
                "threads" => config.threads = Some(number(value)?.try_into().unwrap_or(usize::MAX)),
                "weights" => {
                    let weights = Weights::load(Path::new(value))
                        .map_err(|e| format!("engine option weights={value}: {e}"))?;
                    config.weights = Some(NamedWeights {
                        name: value.to_string(),
                        weights: Box::new(weights),
                    });
                }
                _ => return Err(format!("unknown engine option '{key}'")),
            }
        }
        Ok(PlayerSpec::Engine(config))
    }
}

impl fmt::Display for PlayerSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PlayerSpec::Brain(path) => write!(f, "brain:{}", path.display()),
            PlayerSpec::Engine(config) => {
                let mut options = Vec::new();
                if let Some(depth) = config.depth {
                    options.push(format!("depth={depth}"));
                }
                if let Some(nodes) = config.nodes {
                    options.push(format!("nodes={nodes}"));
                }
                if let Some(time) = config.move_time {
                    options.push(format!("time={}", time.as_millis()));
                }
                if let Some(hash) = config.hash_mb {
                    options.push(format!("hash={hash}"));
                }
                if let Some(threads) = config.threads {
                    options.push(format!("threads={threads}"));
                }
                if let Some(weights) = &config.weights {
                    options.push(format!("weights={}", weights.name));
                }
                if options.is_empty() {
                    write!(f, "engine")
                } else {
                    write!(f, "engine:{}", options.join(","))
                }
            }
        }
    }
}

/// The openings of an opening file, or the 26 standard renju openings when no file is given.
pub fn read_openings(path: Option<&Path>) -> anyhow::Result<Vec<Opening>> {
    match path {
        Some(path) => {
            let text = std::fs::read_to_string(path)
                .with_context(|| format!("reading {}", path.display()))?;
            parse_openings(&text).with_context(|| format!("reading {}", path.display()))
        }
        None => Ok(standard_openings().to_vec()),
    }
}

/// One of the two players of a match.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Side {
    A,
    B,
}

impl Side {
    fn other(self) -> Side {
        match self {
            Side::A => Side::B,
            Side::B => Side::A,
        }
    }
}

/// Why a player lost other than on the board.
#[derive(Debug)]
enum Fault {
    Timeout(Duration),
    Crashed(String),
    Refused(String),
    Unreadable(String),
}

impl fmt::Display for Fault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Fault::Timeout(waited) => write!(f, "no answer within {} ms", waited.as_millis()),
            Fault::Crashed(why) => write!(f, "crashed: {why}"),
            Fault::Refused(line) => write!(f, "refused to move: '{line}'"),
            Fault::Unreadable(line) => write!(f, "unreadable answer '{line}'"),
        }
    }
}

/// The time a player has for one move.
#[derive(Clone, Copy, Debug)]
struct MoveClock {
    /// The time per move.
    turn: Duration,
    /// What is left of the player's match time, if there is a match clock.
    match_left: Option<Duration>,
    /// Tolerance after the limit before the move is lost on time.
    grace: Duration,
}

impl MoveClock {
    /// The move's limit: the time per move, or less if the match clock has less left.
    fn limit(&self) -> Duration {
        self.match_left
            .map_or(self.turn, |left| left.min(self.turn))
    }
}

trait Player {
    /// The move for the side to move in `game`, `None` if the player has none, within `clock`.
    fn reply(&mut self, game: &Game, clock: MoveClock) -> Result<Option<Pos>, Fault>;
}

struct EnginePlayer {
    engine: Engine,
    config: EngineConfig,
}

impl EnginePlayer {
    fn new(config: &EngineConfig) -> EnginePlayer {
        let options = EngineOptions {
            weights: config
                .weights
                .as_ref()
                .map(|named| (*named.weights).clone())
                .unwrap_or_default(),
            hash_bytes: config.hash_mb.map_or(DEFAULT_HASH_BYTES, crate::hash_bytes),
            threads: config.threads.unwrap_or(1),
            ..EngineOptions::default()
        };
        EnginePlayer {
            engine: Engine::with_options(options),
            config: config.clone(),
        }
    }
}

impl Player for EnginePlayer {
    fn reply(&mut self, game: &Game, clock: MoveClock) -> Result<Option<Pos>, Fault> {
        let limits = Limits {
            turn_time: clock.turn,
            match_time_left: clock.match_left,
            max_depth: self.config.depth,
            max_nodes: self.config.nodes,
        };
        let stop = AtomicBool::new(false);
        let engine = &mut self.engine;
        panic::catch_unwind(AssertUnwindSafe(|| {
            engine.search(game.board(), &limits, &stop, &mut |_| {})
        }))
        .map(|result| result.best_move)
        .map_err(|_| Fault::Crashed("the engine panicked".into()))
    }
}

/// An external Gomocup brain, one process per game.
struct BrainPlayer {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
    /// How many moves of the current game the brain has seen (its own included).
    known: usize,
}

impl BrainPlayer {
    fn start(
        path: &Path,
        rule: Rule,
        move_time: Duration,
        match_time: Option<Duration>,
    ) -> Result<BrainPlayer, Fault> {
        let mut child = Command::new(path)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| Fault::Crashed(format!("cannot start {}: {e}", path.display())))?;
        let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            let _ = child.kill();
            let _ = child.wait();
            return Err(Fault::Crashed("no pipes to the brain".into()));
        };
        let (sender, lines) = mpsc::channel();
        thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            let mut buffer = Vec::new();
            loop {
                buffer.clear();
                match reader.read_until(b'\n', &mut buffer) {
                    Ok(0) | Err(_) => break,
                    Ok(_) => {
                        let line = String::from_utf8_lossy(&buffer).trim().to_string();
                        if sender.send(line).is_err() {
                            break;
                        }
                    }
                }
            }
        });
        let mut brain = BrainPlayer {
            child,
            stdin,
            lines,
            known: 0,
        };
        brain.send("START 15")?;
        let answer = brain.answer(Instant::now() + START_PATIENCE)?;
        if answer != "OK" {
            return Err(Fault::Refused(answer));
        }
        let rule_bits = rule.to_gomocup();
        let (timeout_match, time_left) = match match_time {
            Some(time) => (time.as_millis(), time.as_millis()),
            None => (0, i32::MAX as u128),
        };
        for info in [
            format!("INFO timeout_turn {}", move_time.as_millis()),
            format!("INFO timeout_match {timeout_match}"),
            format!("INFO time_left {time_left}"),
            "INFO game_type 1".to_string(),
            format!("INFO rule {rule_bits}"),
        ] {
            brain.send(&info)?;
        }
        Ok(brain)
    }

    fn send(&mut self, line: &str) -> Result<(), Fault> {
        write!(self.stdin, "{line}\r\n")
            .and_then(|()| self.stdin.flush())
            .map_err(|e| Fault::Crashed(format!("cannot write to the brain: {e}")))
    }

    /// The next answer line (skipping `MESSAGE`/`DEBUG`) before `deadline`.
    fn answer(&mut self, deadline: Instant) -> Result<String, Fault> {
        let asked = Instant::now();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) => {
                    let word = line.split_whitespace().next().unwrap_or("");
                    match word.to_ascii_uppercase().as_str() {
                        "" | "MESSAGE" | "DEBUG" => {}
                        "ERROR" | "UNKNOWN" => return Err(Fault::Refused(line)),
                        _ => return Ok(line),
                    }
                }
                Err(RecvTimeoutError::Timeout) => return Err(Fault::Timeout(asked.elapsed())),
                Err(RecvTimeoutError::Disconnected) => {
                    return Err(Fault::Crashed("the brain exited".into()))
                }
            }
        }
    }
}

impl Player for BrainPlayer {
    fn reply(&mut self, game: &Game, clock: MoveClock) -> Result<Option<Pos>, Fault> {
        let deadline = Instant::now() + clock.limit() + clock.grace;
        if let Some(left) = clock.match_left {
            self.send(&format!("INFO time_left {}", left.as_millis()))?;
        }
        let history = game.moves();
        match (self.known, history.last()) {
            (known, Some(&Move::Place(last))) if known > 0 && history.len() == known + 1 => {
                self.send(&format!("TURN {}", format_move(last)))?;
            }
            _ => {
                if self.known > 0 {
                    self.send("RESTART")?;
                    let answer = self.answer(deadline)?;
                    if answer != "OK" {
                        return Err(Fault::Refused(answer));
                    }
                }
                if history.is_empty() {
                    self.send("BEGIN")?;
                } else {
                    self.send("BOARD")?;
                    let me = game.side_to_move();
                    for p in history.iter().filter_map(|mv| mv.pos()) {
                        let field = if game.board().stone(p) == Some(me) {
                            1
                        } else {
                            2
                        };
                        self.send(&format!("{},{field}", format_move(p)))?;
                    }
                    self.send("DONE")?;
                }
            }
        }
        let answer = self.answer(deadline)?;
        let p = parse_move(&answer).map_err(|_| Fault::Unreadable(answer))?;
        self.known = history.len() + 1;
        Ok(Some(p))
    }
}

impl Drop for BrainPlayer {
    fn drop(&mut self) {
        let _ = self.send("END");
        let deadline = Instant::now() + END_PATIENCE;
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            thread::sleep(Duration::from_millis(10));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Everything a match needs besides its two players.
#[derive(Clone, Debug)]
pub struct MatchSettings {
    pub rule: Rule,
    pub move_time: Duration,
    pub grace: Duration,
    /// Each player's time for all its moves in a game, if there is a match clock.
    pub match_time: Option<Duration>,
    pub openings: Vec<Opening>,
    pub rounds: usize,
    pub max_games: Option<usize>,
    pub threads: usize,
    pub records: Option<(PathBuf, RecordFormat)>,
}

impl MatchSettings {
    pub fn game_count(&self) -> usize {
        let all = self.openings.len() * 2 * self.rounds;
        self.max_games.map_or(all, |cap| cap.min(all))
    }
}

/// One finished game.
#[derive(Clone, Debug)]
pub struct GameReport {
    pub index: usize,
    pub opening: String,
    pub a_color: Color,
    /// `None` for a draw.
    pub winner: Option<Side>,
    /// Why the game ended, in words.
    pub reason: String,
    /// The loser's fault category when the game was not decided on the board.
    pub fault: Option<&'static str>,
    pub moves: usize,
    /// Per side (A, B): the moves it made, the time they took, how many came after the move limit
    /// (grace aside), and the longest time past the limit.
    pub timing: [MoveTiming; 2],
}

/// How one side's answers compared with the move limit.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct MoveTiming {
    pub moves: usize,
    pub spent: Duration,
    pub late: usize,
    pub worst_late: Duration,
}

impl MoveTiming {
    fn add(&mut self, spent: Duration, limit: Duration) {
        self.moves += 1;
        self.spent += spent;
        if spent > limit {
            self.late += 1;
            self.worst_late = self.worst_late.max(spent - limit);
        }
    }

    fn merge(&mut self, other: &MoveTiming) {
        self.moves += other.moves;
        self.spent += other.spent;
        self.late += other.late;
        self.worst_late = self.worst_late.max(other.worst_late);
    }
}

fn new_player(
    spec: &PlayerSpec,
    settings: &MatchSettings,
) -> (Result<Box<dyn Player>, Fault>, Duration) {
    match spec {
        PlayerSpec::Engine(config) => {
            let time = config.move_time.unwrap_or(settings.move_time);
            (Ok(Box::new(EnginePlayer::new(config))), time)
        }
        PlayerSpec::Brain(path) => {
            let player =
                BrainPlayer::start(path, settings.rule, settings.move_time, settings.match_time)
                    .map(|b| Box::new(b) as Box<dyn Player>);
            (player, settings.move_time)
        }
    }
}

fn fault_category(fault: &Fault) -> &'static str {
    match fault {
        Fault::Timeout(_) => "timeout",
        Fault::Crashed(_) => "crash",
        Fault::Refused(_) => "refused",
        Fault::Unreadable(_) => "unreadable answer",
    }
}

/// Whether the side to move has a point it may play (Black may have only forbidden ones left).
fn has_legal_move(game: &Game) -> bool {
    Pos::all().any(|p| game.board().is_empty(p) && game.forbidden_kind(p).is_none())
}

/// Plays game `index` of the match: opening `index / 2`, A is Black in even games.
fn play_game(
    index: usize,
    players: [&PlayerSpec; 2],
    settings: &MatchSettings,
) -> anyhow::Result<GameReport> {
    let opening = &settings.openings[(index / 2) % settings.openings.len()];
    let a_color = if index % 2 == 0 {
        Color::Black
    } else {
        Color::White
    };
    let side_of = |color: Color| if color == a_color { Side::A } else { Side::B };
    let mut game = Game::new(settings.rule).with_forbidden_policy(ForbiddenPolicy::Lose);
    for &p in &opening.moves {
        game.play(p)
            .with_context(|| format!("opening {} is not playable", opening.code))?;
    }
    let mut times: Vec<Option<u64>> = vec![None; opening.moves.len()];
    let mut seats = [
        new_player(players[0], settings),
        new_player(players[1], settings),
    ];
    let mut note = None;
    let mut fault = None;
    let mut timing = [MoveTiming::default(); 2];
    let mut match_left = [settings.match_time; 2];
    while !game.is_over() {
        if !has_legal_move(&game) {
            // Only Black's forbidden points are left: the rules let Black pass rather than lose.
            game.pass().context("passing without a legal move")?;
            times.push(None);
            continue;
        }
        let color = game.side_to_move();
        let side = side_of(color);
        let (player, time) = &mut seats[side as usize];
        let clock = MoveClock {
            turn: *time,
            match_left: match_left[side as usize],
            grace: settings.grace,
        };
        let started = Instant::now();
        let answer = match player {
            Ok(player) => player.reply(&game, clock),
            Err(error) => Err(Fault::Crashed(format!("did not start ({error})"))),
        };
        let spent = started.elapsed();
        timing[side as usize].add(spent, clock.limit());
        if let Some(left) = &mut match_left[side as usize] {
            *left = left.saturating_sub(spent);
        }
        match answer {
            Ok(_) if spent > clock.limit() + clock.grace => {
                game.lose_on_time(color);
                note = Some(format!(
                    "took {} ms, limit {} ms",
                    spent.as_millis(),
                    clock.limit().as_millis()
                ));
                fault = Some("timeout");
            }
            Ok(Some(p)) => match game.play(p) {
                Ok(_) => times.push(Some(spent.as_millis().try_into().unwrap_or(u64::MAX))),
                Err(error) => {
                    game.resign(color);
                    note = Some(format!("illegal move {}: {error}", format_move(p)));
                    fault = Some("illegal move");
                }
            },
            Ok(None) => {
                game.resign(color);
                note = Some("no move to play".into());
                fault = Some("no move");
            }
            Err(error) => {
                if matches!(error, Fault::Timeout(_)) {
                    game.lose_on_time(color);
                } else {
                    game.resign(color);
                }
                fault = Some(fault_category(&error));
                note = Some(error.to_string());
            }
        }
    }
    let result = game.result().context("the game ended")?;
    if matches!(result.reason, EndReason::Forbidden(_)) {
        fault = Some("forbidden move");
    }
    let winner = result.winner.map(side_of);
    let reason = match (&note, winner) {
        (Some(note), Some(winner)) => format!("{:?} lost: {note}", winner.other()),
        _ => result.reason.to_string(),
    };
    if let Some((dir, format)) = &settings.records {
        let mut record = GameRecord::from_game(&game);
        let name = |side: Side| players[side as usize].to_string();
        record.black = Some(name(side_of(Color::Black)));
        record.white = Some(name(side_of(Color::White)));
        for (recorded, time) in record.moves.iter_mut().zip(&times) {
            recorded.time_ms = *time;
        }
        record.comment = Some(format!(
            "opening {} {}; {reason}",
            opening.code, opening.name
        ));
        // A .psq file cannot hold a pass: such a game is written as SGF.
        let format = if *format == RecordFormat::Psq && game.moves().contains(&Move::Pass) {
            RecordFormat::Sgf
        } else {
            *format
        };
        let path = dir.join(format!(
            "game-{:04}-{}.{}",
            index + 1,
            opening.code,
            format.extension()
        ));
        record
            .save(&path, format)
            .with_context(|| format!("writing {}", path.display()))?;
    }
    Ok(GameReport {
        index,
        opening: format!("{} {}", opening.code, opening.name),
        a_color,
        winner,
        reason,
        fault,
        moves: game.moves().len(),
        timing,
    })
}

/// Wins, draws and losses from A's point of view, with the reasons for non-board losses.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Tally {
    pub a_wins: usize,
    pub draws: usize,
    pub b_wins: usize,
    /// A's wins, draws, losses when A had Black.
    pub a_black: [usize; 3],
    /// (loser, category) -> count for losses not decided by a five (forbidden moves included).
    pub faults: BTreeMap<(Side, &'static str), usize>,
    /// A's and B's move times against the limit.
    pub timing: [MoveTiming; 2],
}

impl Tally {
    pub fn add(&mut self, report: &GameReport) {
        let slot = match report.winner {
            Some(Side::A) => {
                self.a_wins += 1;
                0
            }
            None => {
                self.draws += 1;
                1
            }
            Some(Side::B) => {
                self.b_wins += 1;
                2
            }
        };
        if report.a_color == Color::Black {
            self.a_black[slot] += 1;
        }
        if let (Some(category), Some(winner)) = (report.fault, report.winner) {
            *self.faults.entry((winner.other(), category)).or_default() += 1;
        }
        for (total, game) in self.timing.iter_mut().zip(&report.timing) {
            total.merge(game);
        }
    }

    pub fn games(&self) -> usize {
        self.a_wins + self.draws + self.b_wins
    }

    /// A's score in [0, 1].
    pub fn score(&self) -> f64 {
        (self.a_wins as f64 + 0.5 * self.draws as f64) / self.games().max(1) as f64
    }

    /// A's Elo advantage and its 95% interval (trinomial normal approximation).
    pub fn elo(&self) -> (f64, f64, f64) {
        let n = self.games().max(1) as f64;
        let s = self.score();
        let variance = (self.a_wins as f64 * (1.0 - s).powi(2)
            + self.draws as f64 * (0.5 - s).powi(2)
            + self.b_wins as f64 * s.powi(2))
            / n;
        let margin = 1.96 * (variance / n).sqrt();
        (elo_of(s), elo_of(s - margin), elo_of(s + margin))
    }
}

/// The Elo difference that gives an expected score `score`.
pub fn elo_of(score: f64) -> f64 {
    if score <= 0.0 {
        f64::NEG_INFINITY
    } else if score >= 1.0 {
        f64::INFINITY
    } else {
        -400.0 * (1.0 / score - 1.0).log10()
    }
}

/// An Elo figure for printing (`+35`, `0`, `-inf`).
pub fn elo_text(elo: f64) -> String {
    if elo.is_infinite() {
        if elo > 0.0 { "+inf" } else { "-inf" }.to_string()
    } else if elo.abs() < 0.5 {
        "0".to_string()
    } else {
        format!("{elo:+.0}")
    }
}

/// Plays the whole match, calling `on_game` as each game ends (in completion order).
pub fn play_match(
    a: &PlayerSpec,
    b: &PlayerSpec,
    settings: &MatchSettings,
    on_game: &mut dyn FnMut(&GameReport),
) -> anyhow::Result<Tally> {
    for opening in &settings.openings {
        let mut game = Game::new(settings.rule);
        for &p in &opening.moves {
            game.play(p).with_context(|| {
                format!(
                    "opening {} is not playable under {:?}",
                    opening.code, settings.rule
                )
            })?;
        }
    }
    if let Some((dir, _)) = &settings.records {
        std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    }
    let total = settings.game_count();
    let next = AtomicUsize::new(0);
    let mut tally = Tally::default();
    thread::scope(|scope| -> anyhow::Result<()> {
        let (sender, receiver) = mpsc::channel();
        for _ in 0..settings.threads.clamp(1, total.max(1)) {
            let sender = sender.clone();
            let next = &next;
            scope.spawn(move || loop {
                let index = next.fetch_add(1, Ordering::Relaxed);
                if index >= total {
                    break;
                }
                if sender.send(play_game(index, [a, b], settings)).is_err() {
                    break;
                }
            });
        }
        drop(sender);
        for report in receiver {
            let report = report.inspect_err(|_| next.store(total, Ordering::Relaxed))?;
            tally.add(&report);
            on_game(&report);
        }
        Ok(())
    })?;
    Ok(tally)
}

/// The `selfplay` subcommand.
pub fn run(args: SelfplayArgs) -> anyhow::Result<()> {
    let openings = read_openings(args.openings.as_deref())?;
    let settings = MatchSettings {
        rule: args.rule,
        move_time: Duration::from_millis(args.move_time_ms),
        grace: Duration::from_millis(args.grace_ms),
        match_time: args.match_time_ms.map(Duration::from_millis),
        openings,
        rounds: args.rounds,
        max_games: args.games,
        threads: args.threads,
        records: args.records.clone().map(|dir| (dir, args.format)),
    };
    let total = settings.game_count();
    say!("A = {}", args.a);
    say!("B = {}", args.b);
    let match_clock = settings
        .match_time
        .map(|time| format!(", {} ms a game each", time.as_millis()))
        .unwrap_or_default();
    say!(
        "{total} games, {} rule, {} ms per move (+{} ms grace){match_clock}, {} at a time",
        settings.rule.name(),
        settings.move_time.as_millis(),
        settings.grace.as_millis(),
        settings.threads
    );
    let started = Instant::now();
    let mut done = 0;
    let tally = play_match(&args.a, &args.b, &settings, &mut |report| {
        done += 1;
        let outcome = match report.winner {
            Some(side) => format!("{side:?} wins"),
            None => "draw".to_string(),
        };
        say!(
            "game {:>3}/{total} ({done} done)  {:<22} A {:<5}  {outcome}: {} after {} moves",
            report.index + 1,
            report.opening,
            report.a_color.name(),
            report.reason,
            report.moves
        );
    })?;
    print_summary(&tally, started.elapsed());
    Ok(())
}

fn print_summary(tally: &Tally, elapsed: Duration) {
    let (elo, low, high) = tally.elo();
    let [bw, bd, bl] = tally.a_black;
    say!(
        "result: {} games in {:.1} s: A wins {}, draws {}, B wins {} (A as Black {bw}-{bd}-{bl}, as White {}-{}-{})",
        tally.games(),
        elapsed.as_secs_f64(),
        tally.a_wins,
        tally.draws,
        tally.b_wins,
        tally.a_wins - bw,
        tally.draws - bd,
        tally.b_wins - bl
    );
    say!(
        "score A {:.1}%, Elo A-B {} (95% interval {} .. {})",
        100.0 * tally.score(),
        elo_text(elo),
        elo_text(low),
        elo_text(high)
    );
    for (side, timing) in [Side::A, Side::B].iter().zip(&tally.timing) {
        say!(
            "moves {side:?}: {} (mean {:.0} ms), {} after the move limit (grace aside), worst {:.1} ms past it",
            timing.moves,
            timing.spent.as_secs_f64() * 1e3 / timing.moves.max(1) as f64,
            timing.late,
            timing.worst_late.as_secs_f64() * 1e3
        );
    }
    if tally.faults.is_empty() {
        say!("faults: none");
    }
    for ((side, category), count) in &tally.faults {
        say!("faults: {side:?} lost {count} game(s) by {category}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_104_varied_openings_extend_the_26() {
        let standard = standard_openings();
        let text = include_str!("../../../data/openings/renju_26_varied_104.txt");
        let varied = parse_openings(text).unwrap();
        assert_eq!(varied.len(), 104);
        for (index, opening) in varied.iter().enumerate() {
            let base = &standard[index / 4];
            assert_eq!(opening.code, format!("{}v{}", base.code, index % 4 + 1));
            assert_eq!(opening.moves.len(), 5, "{}", opening.code);
            assert_eq!(opening.moves[..3], base.moves[..], "{}", opening.code);
            let mut game = Game::new(Rule::Renju);
            for &p in &opening.moves {
                assert_eq!(game.play(p), Ok(None), "{}", opening.code);
            }
        }
        let mut lines: Vec<_> = varied.iter().map(|o| o.moves.clone()).collect();
        lines.sort();
        lines.dedup();
        assert_eq!(lines.len(), 104);
    }

    #[test]
    fn the_free_starts_leave_the_engines_their_first_moves() {
        let text = include_str!("../../../data/openings/free_starts.txt");
        let starts = parse_openings(text).unwrap();
        let codes: Vec<_> = starts.iter().map(|o| o.code.as_str()).collect();
        assert_eq!(codes, ["F1", "F2", "F3", "F4"]);
        assert_eq!(starts[0].moves, [Pos::CENTER]);
        assert!(starts[1..].iter().all(|o| o.moves.len() == 2));
    }

    #[test]
    fn player_specs_parse_and_print() {
        for text in [
            "engine",
            "engine:depth=4,time=200",
            "engine:nodes=1000,hash=16",
            "engine:time=100,threads=2",
            "brain:/x/pbrain-y",
        ] {
            let spec: PlayerSpec = text.parse().unwrap();
            assert_eq!(spec.to_string(), text);
        }
        assert!("engine:depth".parse::<PlayerSpec>().is_err());
        assert!("engine:weights=/no/such/file"
            .parse::<PlayerSpec>()
            .is_err());
        assert!("engine:speed=3".parse::<PlayerSpec>().is_err());
        assert!("engine:depth=x".parse::<PlayerSpec>().is_err());
        assert!("engine:hash=0".parse::<PlayerSpec>().is_err());
        assert!("engine:hash=100000".parse::<PlayerSpec>().is_err());
        assert!("brain:".parse::<PlayerSpec>().is_err());
        assert!("human".parse::<PlayerSpec>().is_err());
    }

    #[test]
    fn a_move_may_take_no_more_than_the_match_clock_has_left() {
        let clock = MoveClock {
            turn: Duration::from_millis(500),
            match_left: None,
            grace: Duration::ZERO,
        };
        assert_eq!(clock.limit(), Duration::from_millis(500));
        let short = MoveClock {
            match_left: Some(Duration::from_millis(120)),
            ..clock
        };
        assert_eq!(short.limit(), Duration::from_millis(120));
        let long = MoveClock {
            match_left: Some(Duration::from_secs(60)),
            ..clock
        };
        assert_eq!(long.limit(), Duration::from_millis(500));
    }

    #[test]
    fn an_empty_match_clock_makes_every_move_late_but_the_grace_still_counts() {
        // No match time at all: every move's limit is zero, so all of them count as late, and
        // none is lost within the (long) grace.
        let settings = MatchSettings {
            rule: Rule::Renju,
            move_time: Duration::from_secs(1),
            grace: Duration::from_secs(30),
            match_time: Some(Duration::ZERO),
            openings: standard_openings().to_vec(),
            rounds: 1,
            max_games: Some(1),
            threads: 1,
            records: None,
        };
        let player: PlayerSpec = "engine:depth=1".parse().unwrap();
        let report = play_game(0, [&player, &player], &settings).unwrap();
        assert_eq!(report.fault, None, "{}", report.reason);
        for timing in &report.timing {
            assert!(timing.moves > 1);
            assert_eq!(timing.late, timing.moves);
        }
    }

    #[test]
    fn move_timing_adds_up_the_time_spent_and_the_late_moves() {
        let limit = Duration::from_millis(100);
        let mut first = MoveTiming::default();
        first.add(Duration::from_millis(40), limit);
        first.add(Duration::from_millis(130), limit);
        let mut second = MoveTiming::default();
        second.add(Duration::from_millis(110), limit);
        first.merge(&second);
        assert_eq!(first.moves, 3);
        assert_eq!(first.spent, Duration::from_millis(280));
        assert_eq!(first.late, 2);
        assert_eq!(first.worst_late, Duration::from_millis(30));
    }

    #[test]
    fn elo_and_interval() {
        let tally = Tally {
            a_wins: 60,
            draws: 0,
            b_wins: 40,
            ..Tally::default()
        };
        let (elo, low, high) = tally.elo();
        assert!((tally.score() - 0.6).abs() < 1e-12);
        assert!((elo - 70.4).abs() < 0.1, "{elo}");
        // Score 0.6 +- 1.96 * sqrt(0.24 / 100) = 0.504 .. 0.696.
        assert!((low - elo_of(0.6 - 1.96 * 0.049)).abs() < 0.5, "{low}");
        assert!((high - elo_of(0.6 + 1.96 * 0.049)).abs() < 0.5, "{high}");
        assert_eq!(elo_of(0.5), 0.0);
        assert_eq!(elo_text(elo_of(1.0)), "+inf");
        let even = Tally {
            draws: 10,
            ..Tally::default()
        };
        assert_eq!(even.elo(), (0.0, 0.0, 0.0));
    }
}
