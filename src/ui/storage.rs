//! What the app keeps between runs: the preferences (under the user's config directory) and the
//! game in progress with its evaluation graph (autosaved under the user's data directory after
//! every move, by the [`Autosaver`] thread so that a slow disk never stalls the window). Both
//! are small `key=value` text files written atomically (a synced temporary file, then a
//! rename), so a crash never leaves half a file behind; an autosave that cannot be read is kept
//! aside, not overwritten.

use crate::game::record::{self, RecordError};
use crate::game::{EndReason, ForbiddenPolicy, Game};
use crate::rules::{Color, Move, Pos, Rule};
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::thread;
use std::time::Duration;

/// Who plays which side.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Mode {
    /// The human plays Black against the engine.
    #[default]
    HumanBlack,
    /// The human plays White against the engine.
    HumanWhite,
    /// Two humans at one board.
    TwoPlayers,
    /// The engine plays both sides.
    AiVsAi,
}

impl Mode {
    pub const ALL: [Mode; 4] = [
        Mode::HumanBlack,
        Mode::HumanWhite,
        Mode::TwoPlayers,
        Mode::AiVsAi,
    ];

    pub fn key(self) -> &'static str {
        match self {
            Mode::HumanBlack => "human-black",
            Mode::HumanWhite => "human-white",
            Mode::TwoPlayers => "two-players",
            Mode::AiVsAi => "ai-vs-ai",
        }
    }

    pub fn from_key(key: &str) -> Option<Mode> {
        Mode::ALL.into_iter().find(|mode| mode.key() == key)
    }

    /// How the mode is named in the interface.
    pub fn label(self) -> &'static str {
        match self {
            Mode::HumanBlack => "You (Black) vs AI",
            Mode::HumanWhite => "You (White) vs AI",
            Mode::TwoPlayers => "Two players",
            Mode::AiVsAi => "AI vs AI",
        }
    }

    /// Whether the engine plays `color`.
    pub fn engine_plays(self, color: crate::rules::Color) -> bool {
        use crate::rules::Color;
        match self {
            Mode::HumanBlack => color == Color::White,
            Mode::HumanWhite => color == Color::Black,
            Mode::TwoPlayers => false,
            Mode::AiVsAi => true,
        }
    }
}

/// The user's preferences.
#[derive(Clone, Debug, PartialEq)]
pub struct Preferences {
    /// A human who runs out of the 15 s loses.
    pub clock_enabled: bool,
    /// What happens when Black plays a forbidden point.
    pub forbidden_policy: ForbiddenPolicy,
    /// Show move numbers on the stones.
    pub move_numbers: bool,
    /// Mark Black's forbidden points.
    pub show_forbidden: bool,
    /// The engine's time per move.
    pub ai_time: Duration,
    /// The mode and rule of the next new game.
    pub mode: Mode,
    pub rule: Rule,
}

/// The longest the engine may think: the move clock.
pub const MAX_AI_TIME: Duration = crate::game::clock::DEFAULT_MOVE_TIME;

impl Default for Preferences {
    fn default() -> Preferences {
        Preferences {
            clock_enabled: true,
            forbidden_policy: ForbiddenPolicy::Refuse,
            move_numbers: false,
            show_forbidden: true,
            ai_time: Duration::from_secs(5),
            mode: Mode::HumanBlack,
            rule: Rule::Renju,
        }
    }
}

fn parse_bool(value: &str) -> Option<bool> {
    match value {
        "true" => Some(true),
        "false" => Some(false),
        _ => None,
    }
}

fn rule_key(rule: Rule) -> &'static str {
    match rule {
        Rule::Freestyle => "freestyle",
        Rule::Standard => "standard",
        Rule::Renju => "renju",
    }
}

/// `key=value` lines; blank lines, comments and malformed lines are skipped.
fn pairs(text: &str) -> impl Iterator<Item = (&str, &str)> {
    text.lines()
        .filter(|line| !line.trim_start().starts_with('#'))
        .filter_map(|line| line.split_once('='))
        .map(|(key, value)| (key.trim(), value.trim()))
}

impl Preferences {
    /// Reads preferences; unknown keys and bad values keep their defaults.
    pub fn parse(text: &str) -> Preferences {
        let mut prefs = Preferences::default();
        for (key, value) in pairs(text) {
            match key {
                "clock-enabled" => {
                    prefs.clock_enabled = parse_bool(value).unwrap_or(prefs.clock_enabled)
                }
                "forbidden-loses" => {
                    if let Some(lose) = parse_bool(value) {
                        prefs.forbidden_policy = if lose {
                            ForbiddenPolicy::Lose
                        } else {
                            ForbiddenPolicy::Refuse
                        };
                    }
                }
                "move-numbers" => {
                    prefs.move_numbers = parse_bool(value).unwrap_or(prefs.move_numbers)
                }
                "show-forbidden" => {
                    prefs.show_forbidden = parse_bool(value).unwrap_or(prefs.show_forbidden)
                }
                "ai-time-ms" => {
                    if let Ok(ms) = value.parse::<u64>() {
                        prefs.ai_time = Duration::from_millis(ms)
                            .clamp(Duration::from_millis(200), MAX_AI_TIME);
                    }
                }
                "mode" => prefs.mode = Mode::from_key(value).unwrap_or(prefs.mode),
                "rule" => prefs.rule = value.parse().unwrap_or(prefs.rule),
                _ => {}
            }
        }
        prefs
    }

    pub fn to_text(&self) -> String {
        format!(
            "# Gobang preferences\nclock-enabled={}\nforbidden-loses={}\nmove-numbers={}\nshow-forbidden={}\nai-time-ms={}\nmode={}\nrule={}\n",
            self.clock_enabled,
            self.forbidden_policy == ForbiddenPolicy::Lose,
            self.move_numbers,
            self.show_forbidden,
            self.ai_time.as_millis(),
            self.mode.key(),
            rule_key(self.rule),
        )
    }
}

/// A game as autosaved: the mode, the rule, the moves, how it ended when the moves alone do
/// not say (time, resignation, agreement), and the engine's evaluations.
#[derive(Clone, Debug, PartialEq)]
pub struct SavedGame {
    pub mode: Mode,
    pub rule: Rule,
    pub moves: Vec<Move>,
    /// How many of the first moves are the stones of the opening the game started from: undo
    /// does not take them back.
    pub setup: usize,
    pub ending: Option<Ending>,
    /// The evaluation graph: `evals[n]` after `n` moves, if the engine gave one; never longer
    /// than the moves plus one.
    pub evals: Vec<Option<f64>>,
}

/// An end of a game that is not a move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ending {
    /// This side lost on time.
    Timeout(Color),
    /// This side resigned.
    Resignation(Color),
    /// A draw by agreement.
    Agreement,
}

impl Ending {
    fn of(game: &Game) -> Option<Ending> {
        let result = game.result()?;
        match (result.reason, result.loser()) {
            (EndReason::Timeout, Some(loser)) => Some(Ending::Timeout(loser)),
            (EndReason::Resignation, Some(loser)) => Some(Ending::Resignation(loser)),
            (EndReason::Agreement, _) => Some(Ending::Agreement),
            _ => None,
        }
    }

    fn to_text(self) -> String {
        let side = |color: Color| color.name().to_lowercase();
        match self {
            Ending::Timeout(loser) => format!("timeout {}", side(loser)),
            Ending::Resignation(loser) => format!("resignation {}", side(loser)),
            Ending::Agreement => "agreement".to_string(),
        }
    }

    fn parse(text: &str) -> Option<Ending> {
        let side = |name: &str| match name {
            "black" => Some(Color::Black),
            "white" => Some(Color::White),
            _ => None,
        };
        match text.split_whitespace().collect::<Vec<_>>().as_slice() {
            ["timeout", loser] => side(loser).map(Ending::Timeout),
            ["resignation", loser] => side(loser).map(Ending::Resignation),
            ["agreement"] => Some(Ending::Agreement),
            _ => None,
        }
    }

    fn apply(self, game: &mut Game) {
        match self {
            Ending::Timeout(loser) => game.lose_on_time(loser),
            Ending::Resignation(loser) => game.resign(loser),
            Ending::Agreement => game.agree_draw(),
        }
    }
}

impl SavedGame {
    pub fn from_game(mode: Mode, game: &Game) -> SavedGame {
        SavedGame {
            mode,
            rule: game.rule(),
            moves: game.moves().to_vec(),
            setup: game.opening_stones(),
            ending: Ending::of(game),
            evals: Vec::new(),
        }
    }

    /// The same game with these evaluations (those past the last position are dropped).
    pub fn with_evals(mut self, evals: &[Option<f64>]) -> SavedGame {
        self.evals = evals.iter().take(self.moves.len() + 1).copied().collect();
        self
    }

    pub fn to_text(&self) -> String {
        let moves: Vec<String> = self
            .moves
            .iter()
            .map(|&mv| record::move_notation(mv))
            .collect();
        let ending = self
            .ending
            .map(|ending| format!("ended={}\n", ending.to_text()))
            .unwrap_or_default();
        // `{}` writes the shortest text that reads back as the same f64.
        let evals: Vec<String> = self
            .evals
            .iter()
            .map(|value| value.map_or_else(|| "-".to_string(), |value| value.to_string()))
            .collect();
        format!(
            "# Gobang game in progress\nmode={}\nrule={}\nmoves={}\nsetup={}\n{ending}evals={}\n",
            self.mode.key(),
            rule_key(self.rule),
            moves.join(" "),
            self.setup,
            evals.join(" ")
        )
    }

    /// Reads an autosave; `None` if it is damaged. The evaluations and the opening's length are
    /// optional: a missing or unreadable `evals` line only loses the graph, a `setup` line only
    /// undo's stop at the opening, not the game.
    pub fn parse(text: &str) -> Option<SavedGame> {
        let mut mode = None;
        let mut rule = None;
        let mut moves = None;
        let mut ending = None;
        let mut evals = None;
        let mut setup = 0;
        for (key, value) in pairs(text) {
            match key {
                "setup" => setup = value.parse().unwrap_or(0),
                "ended" => ending = Some(Ending::parse(value)?),
                "evals" => evals = parse_evals(value),
                "mode" => mode = Mode::from_key(value),
                "rule" => rule = value.parse().ok(),
                "moves" => {
                    moves = value
                        .split_whitespace()
                        .map(|m| match m {
                            "pass" => Some(Move::Pass),
                            _ => Pos::from_notation(m).ok().map(Move::Place),
                        })
                        .collect::<Option<Vec<Move>>>()
                }
                _ => {}
            }
        }
        let moves: Vec<Move> = moves?;
        let saved = SavedGame {
            mode: mode?,
            rule: rule?,
            setup: setup.min(moves.len()),
            moves,
            ending,
            evals: Vec::new(),
        };
        Some(saved.with_evals(&evals.unwrap_or_default()))
    }

    /// Replays the moves (the forbidden policy is applied to the replayed game too).
    pub fn to_game(&self, policy: ForbiddenPolicy) -> Option<Game> {
        // A forbidden move is only ever recorded when it lost the game, so the moves are
        // replayed under that policy whatever the preference is now.
        let mut game = Game::new(self.rule).with_forbidden_policy(ForbiddenPolicy::Lose);
        for &mv in &self.moves {
            let played = match mv {
                Move::Place(p) => game.play(p),
                Move::Pass => game.pass(),
            };
            played.ok()?;
        }
        if let Some(ending) = self.ending {
            ending.apply(&mut game);
        }
        game.set_forbidden_policy(policy);
        Some(game.with_opening_stones(self.setup))
    }
}

/// Space-separated evaluations, `-` for a position without one; `None` unless every one is a
/// finite number or `-`.
fn parse_evals(text: &str) -> Option<Vec<Option<f64>>> {
    text.split_whitespace()
        .map(|value| match value {
            "-" => Some(None),
            _ => value
                .parse::<f64>()
                .ok()
                .filter(|v| v.is_finite())
                .map(Some),
        })
        .collect()
}

/// Where the files live.
#[derive(Clone, Debug)]
pub struct Storage {
    pub preferences: PathBuf,
    pub autosave: PathBuf,
}

impl Storage {
    /// The standard places: `$XDG_CONFIG_HOME/org.gobang.Gobang/preferences` and
    /// `$XDG_DATA_HOME/org.gobang.Gobang/autosave`.
    pub fn standard() -> Storage {
        Storage {
            preferences: gtk4::glib::user_config_dir()
                .join(super::APP_ID)
                .join("preferences"),
            autosave: gtk4::glib::user_data_dir()
                .join(super::APP_ID)
                .join("autosave"),
        }
    }

    /// Both files inside one directory (tests).
    pub fn in_dir(dir: &Path) -> Storage {
        Storage {
            preferences: dir.join("preferences"),
            autosave: dir.join("autosave"),
        }
    }

    pub fn load_preferences(&self) -> Preferences {
        fs::read_to_string(&self.preferences)
            .map(|text| Preferences::parse(&text))
            .unwrap_or_default()
    }

    pub fn save_preferences(&self, prefs: &Preferences) -> Result<(), RecordError> {
        write_atomically(&self.preferences, &prefs.to_text())
    }

    /// The autosaved game, replayed under `policy`, with its evaluations. An autosave that
    /// cannot be read or replayed is renamed to `autosave.damaged`, so that the next autosave
    /// does not destroy what is left of it.
    pub fn restore_game(&self, policy: ForbiddenPolicy) -> Restored {
        let Ok(text) = fs::read_to_string(&self.autosave) else {
            return Restored::Nothing;
        };
        let replayed = SavedGame::parse(&text).and_then(|saved| {
            let game = saved.to_game(policy)?;
            Some((saved.mode, game, saved.evals))
        });
        if let Some((mode, game, evals)) = replayed {
            return Restored::Game(mode, Box::new(game), evals);
        }
        let kept = self.autosave.with_extension("damaged");
        Restored::Damaged(fs::rename(&self.autosave, &kept).is_ok().then_some(kept))
    }

    pub fn save_game(&self, game: &SavedGame) -> Result<(), RecordError> {
        write_atomically(&self.autosave, &game.to_text())
    }
}

/// What the autosave held at start.
pub enum Restored {
    /// There was no autosave.
    Nothing,
    /// The game in progress, who played it, and its evaluations (as in [`SavedGame::evals`]).
    Game(Mode, Box<Game>, Vec<Option<f64>>),
    /// The autosave could not be read or replayed; it is kept at this path, if it could be
    /// moved there.
    Damaged(Option<PathBuf>),
}

/// Writes `text` to `path` atomically, creating the directory first.
fn write_atomically(path: &Path, text: &str) -> Result<(), RecordError> {
    if let Some(dir) = path.parent() {
        fs::create_dir_all(dir).map_err(|error| RecordError::io(path, error))?;
    }
    record::write_atomically(path, text.as_bytes())
}

/// Writes the autosave on a thread of its own: [`Autosaver::save`] only queues the game, the
/// thread writes the newest one queued. Dropping the autosaver (or [`Autosaver::finish`]) waits
/// until everything queued is on disk.
pub struct Autosaver {
    games: Option<mpsc::Sender<SavedGame>>,
    writer: Option<thread::JoinHandle<()>>,
}

impl Autosaver {
    /// Starts the writer thread; the outcome of every write (an error message or `None`) is
    /// sent on `outcomes`.
    pub fn new(
        storage: Storage,
        outcomes: async_channel::Sender<Option<String>>,
    ) -> std::io::Result<Autosaver> {
        let (games, queued) = mpsc::channel::<SavedGame>();
        let writer = thread::Builder::new()
            .name("gobang-autosave".into())
            .spawn(move || {
                while let Ok(mut game) = queued.recv() {
                    // Only the newest game matters.
                    while let Ok(newer) = queued.try_recv() {
                        game = newer;
                    }
                    let outcome = storage.save_game(&game).err().map(|e| e.to_string());
                    let _ = outcomes.send_blocking(outcome);
                }
            })?;
        Ok(Autosaver {
            games: Some(games),
            writer: Some(writer),
        })
    }

    /// Queues `game` to be written; returns at once. Does nothing after [`Autosaver::finish`].
    pub fn save(&self, game: SavedGame) {
        if let Some(games) = &self.games {
            // The writer only stops when the sender is dropped.
            let _ = games.send(game);
        }
    }

    /// Waits until every queued game is written and stops the thread.
    pub fn finish(&mut self) {
        self.games = None;
        if let Some(writer) = self.writer.take() {
            let _ = writer.join();
        }
    }
}

impl Drop for Autosaver {
    fn drop(&mut self) {
        self.finish();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An empty directory of this test's own (what an earlier run left there is removed) and
    /// the storage in it.
    fn fresh_storage(name: &str) -> (PathBuf, Storage) {
        let dir = std::env::temp_dir().join(format!("gobang-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        let storage = Storage::in_dir(&dir);
        (dir, storage)
    }

    #[test]
    fn preferences_round_trip() {
        let prefs = Preferences {
            clock_enabled: false,
            forbidden_policy: ForbiddenPolicy::Lose,
            move_numbers: true,
            show_forbidden: false,
            ai_time: Duration::from_millis(2500),
            mode: Mode::AiVsAi,
            rule: Rule::Standard,
        };
        assert_eq!(Preferences::parse(&prefs.to_text()), prefs);
        assert_eq!(
            Preferences::parse("garbage\nai-time-ms=99999"),
            Preferences {
                ai_time: MAX_AI_TIME,
                ..Preferences::default()
            }
        );
    }

    #[test]
    fn saved_game_round_trip_and_damage() {
        let mut game = Game::new(Rule::Renju);
        game.play(Pos::CENTER).unwrap();
        game.pass().unwrap();
        game.play("j9".parse().unwrap()).unwrap();
        let saved = SavedGame::from_game(Mode::HumanWhite, &game);
        let parsed = SavedGame::parse(&saved.to_text()).unwrap();
        assert_eq!(parsed, saved);
        let replayed = parsed.to_game(ForbiddenPolicy::Refuse).unwrap();
        assert_eq!(replayed.moves(), game.moves());
        assert_eq!(
            SavedGame::parse("mode=ai-vs-ai\nrule=renju\nmoves=h8 z99"),
            None
        );
        assert_eq!(SavedGame::parse("rule=renju\nmoves=h8"), None);
        let occupied = SavedGame::parse("mode=ai-vs-ai\nrule=renju\nmoves=h8 h8").unwrap();
        assert!(occupied.to_game(ForbiddenPolicy::Refuse).is_none());
        assert_eq!(
            SavedGame::parse("mode=ai-vs-ai\nrule=renju\nmoves=h8\nended=timeout red"),
            None
        );
    }

    #[test]
    fn saved_game_keeps_how_many_stones_were_the_opening() {
        let stones = ["h8", "h9", "i9"].map(|p| p.parse().unwrap());
        let mut game = Game::from_opening(Rule::Renju, &stones).unwrap();
        game.play("g7".parse().unwrap()).unwrap();
        let saved = SavedGame::from_game(Mode::HumanBlack, &game);
        assert!(saved.to_text().contains("\nsetup=3\n"));
        let parsed = SavedGame::parse(&saved.to_text()).unwrap();
        assert_eq!(parsed.setup, 3);
        let replayed = parsed.to_game(ForbiddenPolicy::Refuse).unwrap();
        assert_eq!(replayed.opening_stones(), 3);
        let all = game.clone().with_opening_stones(9);
        assert_eq!(SavedGame::from_game(Mode::HumanBlack, &all).setup, 4);
        let older = SavedGame::parse("mode=human-black\nrule=renju\nmoves=h8 h9").unwrap();
        assert_eq!(older.setup, 0, "autosaves without the line have no opening");
        // A damaged line loses the stop at the opening, not the game.
        for (line, setup) in [("setup=3", 2), ("setup=x", 0), ("setup=-1", 0)] {
            let text = format!("mode=human-black\nrule=renju\nmoves=h8 h9\n{line}");
            let parsed = SavedGame::parse(&text).expect("the game is kept");
            assert_eq!((parsed.moves.len(), parsed.setup), (2, setup), "{line}");
        }
    }

    #[test]
    fn saved_game_round_trips_its_evaluations() {
        let mut game = Game::new(Rule::Renju);
        for p in ["h8", "h9", "j8"] {
            game.play(p.parse().unwrap()).unwrap();
        }
        // As the window computes them (v / (|v| + 400)), one per position, and one too many.
        let evals = [
            Some(0.0),
            None,
            Some(-137.0 / 537.0),
            Some(1.0 / 3.0),
            Some(0.5),
        ];
        let saved = SavedGame::from_game(Mode::HumanBlack, &game).with_evals(&evals);
        assert_eq!(saved.evals, evals[..4], "no longer than the moves plus one");
        let text = saved.to_text();
        assert!(
            text.contains("\nevals=0 - -0.25512104283054005 0.3333333333333333\n"),
            "{text}"
        );
        let parsed = SavedGame::parse(&text).unwrap();
        assert_eq!(parsed, saved);
        assert_eq!(parsed.evals, evals[..4], "every value reads back exactly");

        let (dir, storage) = fresh_storage("evals");
        storage.save_game(&saved).unwrap();
        let Restored::Game(_, restored, restored_evals) =
            storage.restore_game(ForbiddenPolicy::Refuse)
        else {
            panic!("the autosave was not restored");
        };
        assert_eq!(restored.moves(), game.moves());
        assert_eq!(restored_evals, evals[..4]);
        let _ = fs::remove_dir_all(&dir);
    }

    #[test]
    fn an_autosave_without_evaluations_still_restores() {
        let (dir, storage) = fresh_storage("old-autosave");
        // As written before the evaluations were saved.
        fs::write(
            &storage.autosave,
            "# Gobang game in progress\nmode=human-white\nrule=renju\nmoves=h8 h9\n",
        )
        .unwrap();
        let Restored::Game(mode, game, evals) = storage.restore_game(ForbiddenPolicy::Refuse)
        else {
            panic!("an autosave without evaluations is restored");
        };
        assert_eq!(mode, Mode::HumanWhite);
        assert_eq!(game.moves().len(), 2);
        assert!(evals.is_empty());
        let _ = fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_malformed_evals_line_only_loses_the_evaluations() {
        for evals in ["0.5 abc", "0.1 NaN", "inf", "-1e400", "0,5", "0.1 -- 0.2"] {
            let text = format!("mode=two-players\nrule=renju\nmoves=h8 h9\nevals={evals}\n");
            let saved = SavedGame::parse(&text).unwrap();
            assert_eq!(saved.moves.len(), 2, "{evals}");
            assert!(saved.evals.is_empty(), "{evals}");
        }
        // Values past the last position are dropped.
        let saved =
            SavedGame::parse("mode=two-players\nrule=renju\nmoves=h8\nevals=0.1 - 0.3").unwrap();
        assert_eq!(saved.evals, [Some(0.1), None]);

        let (dir, storage) = fresh_storage("bad-evals");
        fs::write(
            &storage.autosave,
            "mode=two-players\nrule=renju\nmoves=h8 h9\nevals=0.1 oops\n",
        )
        .unwrap();
        let Restored::Game(_, game, evals) = storage.restore_game(ForbiddenPolicy::Refuse) else {
            panic!("a malformed evals line does not damage the autosave");
        };
        assert_eq!(game.moves().len(), 2);
        assert!(evals.is_empty());
        assert!(storage.autosave.exists(), "not kept aside");
        let _ = fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_game_that_ended_off_the_board_stays_ended() {
        let mut game = Game::new(Rule::Renju);
        game.play(Pos::CENTER).unwrap();
        game.lose_on_time(Color::White);
        let saved = SavedGame::from_game(Mode::HumanWhite, &game);
        assert!(saved.to_text().contains("ended=timeout white"));
        let restored = SavedGame::parse(&saved.to_text())
            .and_then(|saved| saved.to_game(ForbiddenPolicy::Refuse))
            .unwrap();
        assert_eq!(restored.result(), game.result());

        let mut game = Game::new(Rule::Standard);
        game.agree_draw();
        let restored = SavedGame::parse(&SavedGame::from_game(Mode::TwoPlayers, &game).to_text())
            .and_then(|saved| saved.to_game(ForbiddenPolicy::Refuse))
            .unwrap();
        assert_eq!(restored.result(), game.result());

        // Black lost by a forbidden move under the tournament rule, then the preference changed.
        let mut game = Game::new(Rule::Renju).with_forbidden_policy(ForbiddenPolicy::Lose);
        for m in ["f8", "a1", "g8", "a3", "h6", "a5", "h7", "a7", "h8"] {
            let _ = game.play(m.parse().unwrap());
        }
        assert!(game.result().is_some());
        let restored = SavedGame::from_game(Mode::TwoPlayers, &game)
            .to_game(ForbiddenPolicy::Refuse)
            .unwrap();
        assert_eq!(restored.result(), game.result());
        assert_eq!(restored.moves(), game.moves());
    }

    #[test]
    fn atomic_write_replaces_the_file() {
        let dir = std::env::temp_dir().join(format!("gobang-storage-{}", std::process::id()));
        let storage = Storage::in_dir(&dir);
        let prefs = Preferences {
            move_numbers: true,
            ..Preferences::default()
        };
        storage.save_preferences(&prefs).unwrap();
        storage.save_preferences(&prefs).unwrap();
        assert_eq!(storage.load_preferences(), prefs);
        let names: Vec<_> = fs::read_dir(&dir)
            .unwrap()
            .map(|entry| entry.unwrap().file_name())
            .collect();
        assert_eq!(names, ["preferences"], "no temporary file is left");
        let _ = fs::remove_dir_all(&dir);
    }

    #[test]
    fn the_autosaver_writes_the_newest_game_before_it_finishes() {
        let (dir, storage) = fresh_storage("autosaver");
        let (outcomes, reports) = async_channel::unbounded();
        let mut autosaver = Autosaver::new(storage.clone(), outcomes).unwrap();
        let mut game = Game::new(Rule::Renju);
        for p in ["h8", "h9", "j8", "j9"] {
            game.play(p.parse().unwrap()).unwrap();
            autosaver.save(SavedGame::from_game(Mode::TwoPlayers, &game));
        }
        autosaver.finish();
        let Restored::Game(mode, restored, _) = storage.restore_game(ForbiddenPolicy::Refuse)
        else {
            panic!("the autosave was not restored");
        };
        assert_eq!(mode, Mode::TwoPlayers);
        assert_eq!(restored.moves(), game.moves());
        assert!(!reports.is_empty());
        while let Ok(outcome) = reports.try_recv() {
            assert_eq!(outcome, None);
        }
        let _ = fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_damaged_autosave_is_kept_aside() {
        let (dir, storage) = fresh_storage("damaged");
        fs::write(
            &storage.autosave,
            "mode=two-players\nrule=renju\nmoves=h8 z99",
        )
        .unwrap();
        let Restored::Damaged(Some(kept)) = storage.restore_game(ForbiddenPolicy::Refuse) else {
            panic!("a damaged autosave is reported and kept");
        };
        assert_eq!(kept, dir.join("autosave.damaged"));
        assert!(!storage.autosave.exists());
        assert!(fs::read_to_string(&kept).unwrap().contains("z99"));
        // One that reads but cannot be replayed (h8 twice) is kept too.
        fs::write(
            &storage.autosave,
            "mode=two-players\nrule=renju\nmoves=h8 h8",
        )
        .unwrap();
        assert!(matches!(
            storage.restore_game(ForbiddenPolicy::Refuse),
            Restored::Damaged(_)
        ));
        assert!(matches!(
            storage.restore_game(ForbiddenPolicy::Refuse),
            Restored::Nothing
        ));
        let _ = fs::remove_dir_all(&dir);
    }
}
