//! The main window: header bar actions, the board, the side panel (clocks, status, engine,
//! evaluation graph, move list) and the game logic that ties them to [`Game`], the engine bridge,
//! the move clock and the autosave. The widget tree comes from `resources/window.ui`.

use super::board_view::{self, BoardHandler};
use super::dialogs;
use super::engine_bridge::{EngineBridge, Reply, RequestId};
use super::render::{self, HintMark, Scene};
use super::storage::{Autosaver, Mode, Preferences, Restored, SavedGame, Storage};
use crate::engine::{Limits, Score, SearchInfo};
use crate::game::clock::MoveClock;
use crate::game::openings::Opening;
use crate::game::record::{move_notation, GameRecord, RecordFormat};
use crate::game::{EndReason, Game, GameResult, MoveError};
use crate::rules::{Color, ForbiddenKind, Move, Pos, Rule};
use adw::prelude::*;
use gtk4 as gtk;
use gtk4::{gio, glib};
use libadwaita as adw;
use std::cell::RefCell;
use std::rc::{Rc, Weak};
use std::time::{Duration, Instant};

const WINDOW_UI: &str = include_str!("../../resources/window.ui");
const SHORTCUTS_UI: &str = include_str!("../../resources/shortcuts.ui");
/// How often the clocks are redrawn and checked.
const CLOCK_TICK: Duration = Duration::from_millis(100);
/// A hint never takes longer than this (it runs on the human's own clock).
const MAX_HINT_TIME: Duration = Duration::from_secs(5);
/// Under this much time left, the clock turns red.
const LOW_TIME: Duration = Duration::from_secs(5);

/// What the running search is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Task {
    Move,
    Hint,
}

/// The engine's latest report, shown in the side panel.
struct EngineReport {
    /// The side the engine was searching for.
    side: Color,
    info: SearchInfo,
    /// The opening the move makes when the opening book chose it (no search ran then).
    book_opening: Option<&'static str>,
}

/// The widgets the window updates.
struct Widgets {
    title: adw::WindowTitle,
    toasts: adw::ToastOverlay,
    banner: gtk::Revealer,
    banner_label: gtk::Label,
    banner_button: gtk::Button,
    board: gtk::DrawingArea,
    names: [gtk::Label; 2],
    clocks: [gtk::Label; 2],
    bars: [gtk::ProgressBar; 2],
    cards: [gtk::Box; 2],
    status: gtk::Label,
    forbidden_legend: gtk::Label,
    spinner: gtk::Spinner,
    engine_depth: gtk::Label,
    engine_eval: gtk::Label,
    engine_speed: gtk::Label,
    engine_line: gtk::Label,
    graph: gtk::DrawingArea,
    moves: gtk::ListBox,
    moves_scroller: gtk::ScrolledWindow,
}

/// The window's actions, kept to switch them on and off.
struct Actions {
    undo: gio::SimpleAction,
    hint: gio::SimpleAction,
    pass: gio::SimpleAction,
    live: gio::SimpleAction,
    save: gio::SimpleAction,
}

struct State {
    game: Game,
    mode: Mode,
    prefs: Preferences,
    clock: MoveClock,
    /// No move has been played since the window opened, a new game began or a record was
    /// opened: the clock waits for the first one, so that nobody loses on time before sitting
    /// down to play.
    clock_waiting: bool,
    /// Showing the position after this many moves instead of the live game.
    view: Option<usize>,
    hover: Option<Pos>,
    hint: Option<HintMark>,
    forbidden: Vec<(Pos, ForbiddenKind)>,
    task: Option<Task>,
    /// The latest engine report.
    info: Option<EngineReport>,
    /// Evaluation for Black in -1..1, by number of moves played (autosaved with the game).
    evals: Vec<Option<f64>>,
    /// The moves the list shows.
    listed: Vec<Move>,
    last_toast: Option<String>,
    /// Heading and text of the latest error dialog.
    last_error: Option<(String, String)>,
    autosave_failed: bool,
    closed: bool,
    tick: Option<glib::SourceId>,
}

struct Inner {
    window: adw::ApplicationWindow,
    ui: Widgets,
    actions: Actions,
    state: RefCell<State>,
    bridge: RefCell<EngineBridge>,
    storage: Storage,
    autosaver: RefCell<Autosaver>,
}

/// The main window and its game.
#[derive(Clone)]
pub struct GameWindow {
    inner: Rc<Inner>,
}

fn object<T: IsA<glib::Object>>(builder: &gtk::Builder, id: &str) -> T {
    // The ids come from our own template, so a missing one is a programming error.
    builder
        .object(id)
        .unwrap_or_else(|| panic!("window.ui has no object '{id}'"))
}

/// The `black_<what>` and `white_<what>` objects of the template, indexed by [`Color::index`].
fn per_side<T: IsA<glib::Object>>(builder: &gtk::Builder, what: &str) -> [T; 2] {
    [Color::Black, Color::White]
        .map(|color| object(builder, &format!("{}_{what}", color.name().to_lowercase())))
}

impl GameWindow {
    /// Builds the window (for `app`, if any), restoring the autosaved game from `storage`.
    pub fn new(app: Option<&adw::Application>, storage: Storage) -> std::io::Result<GameWindow> {
        let builder = gtk::Builder::from_string(WINDOW_UI);
        let window: adw::ApplicationWindow = object(&builder, "window");
        if let Some(app) = app {
            window.set_application(Some(app));
        }
        let ui = Widgets {
            title: object(&builder, "title"),
            toasts: object(&builder, "toasts"),
            banner: object(&builder, "banner"),
            banner_label: object(&builder, "banner_label"),
            banner_button: object(&builder, "banner_button"),
            board: object(&builder, "board"),
            names: per_side(&builder, "name"),
            clocks: per_side(&builder, "clock"),
            bars: per_side(&builder, "bar"),
            cards: per_side(&builder, "card"),
            status: object(&builder, "status"),
            forbidden_legend: object(&builder, "forbidden_legend"),
            spinner: object(&builder, "spinner"),
            engine_depth: object(&builder, "engine_depth"),
            engine_eval: object(&builder, "engine_eval"),
            engine_speed: object(&builder, "engine_speed"),
            engine_line: object(&builder, "engine_line"),
            graph: object(&builder, "graph"),
            moves: object(&builder, "moves"),
            moves_scroller: object(&builder, "moves_scroller"),
        };
        let shortcuts = gtk::Builder::from_string(SHORTCUTS_UI);
        let help: gtk::ShortcutsWindow = object(&shortcuts, "help_overlay");
        window.set_help_overlay(Some(&help));

        let prefs = storage.load_preferences();
        let fresh = || Game::new(prefs.rule).with_forbidden_policy(prefs.forbidden_policy);
        let (mode, game, evals, notice) = match storage.restore_game(prefs.forbidden_policy) {
            Restored::Game(mode, game, evals) => (mode, *game, evals, None),
            Restored::Nothing => (prefs.mode, fresh(), Vec::new(), None),
            Restored::Damaged(kept) => (
                prefs.mode,
                fresh(),
                Vec::new(),
                Some(match kept {
                    Some(kept) => format!(
                        "The saved game could not be read; it is kept in {}",
                        kept.display()
                    ),
                    None => "The saved game could not be read, nor kept aside".to_string(),
                }),
            ),
        };
        let mut clock = MoveClock::default();
        clock.set_enabled(prefs.clock_enabled);
        let (bridge, replies) = EngineBridge::new()?;
        let (outcomes, autosave_outcomes) = async_channel::unbounded();
        let autosaver = Autosaver::new(storage.clone(), outcomes)?;
        let actions = Actions {
            undo: gio::SimpleAction::new("undo", None),
            hint: gio::SimpleAction::new("hint", None),
            pass: gio::SimpleAction::new("pass", None),
            live: gio::SimpleAction::new("live", None),
            save: gio::SimpleAction::new("save", None),
        };
        let inner = Rc::new(Inner {
            window,
            ui,
            actions,
            state: RefCell::new(State {
                game,
                mode,
                prefs,
                clock,
                clock_waiting: true,
                view: None,
                hover: None,
                hint: None,
                forbidden: Vec::new(),
                task: None,
                info: None,
                // Sized to the moves by `position_changed` below.
                evals,
                listed: Vec::new(),
                last_toast: None,
                last_error: None,
                autosave_failed: false,
                closed: false,
                tick: None,
            }),
            bridge: RefCell::new(bridge),
            storage,
            autosaver: RefCell::new(autosaver),
        });
        Inner::setup(&inner, replies, autosave_outcomes);
        inner.position_changed();
        if let Some(notice) = notice {
            inner.toast(&notice);
        }
        Ok(GameWindow { inner })
    }

    pub fn window(&self) -> &adw::ApplicationWindow {
        &self.inner.window
    }

    pub fn present(&self) {
        self.inner.window.present();
    }

    /// The board widget.
    pub fn board_area(&self) -> &gtk::DrawingArea {
        &self.inner.ui.board
    }

    /// The moves of the live game.
    pub fn moves(&self) -> Vec<Move> {
        self.inner.state.borrow().game.moves().to_vec()
    }

    pub fn result(&self) -> Option<GameResult> {
        self.inner.state.borrow().game.result()
    }

    /// What the board draws now.
    pub fn scene(&self) -> Scene {
        self.inner.scene()
    }

    /// The text of the latest toast.
    pub fn last_toast(&self) -> Option<String> {
        self.inner.state.borrow().last_toast.clone()
    }

    /// Whether the move clock is paused (it is while a dialog is open).
    pub fn clock_paused(&self) -> bool {
        self.inner.state.borrow().clock.is_paused()
    }

    /// What the two clocks show (Black's, then White's).
    pub fn clock_labels(&self) -> [String; 2] {
        self.inner
            .ui
            .clocks
            .clone()
            .map(|label| label.label().to_string())
    }

    /// What the engine panel shows as the depth of the latest search ("book move (...)" when
    /// the opening book chose the move).
    pub fn engine_depth_label(&self) -> String {
        self.inner.ui.engine_depth.label().to_string()
    }

    /// Whether the move clock is counting down a move.
    pub fn clock_running(&self) -> bool {
        self.inner.state.borrow().clock.is_running()
    }

    /// The heading and text of the latest error dialog.
    pub fn last_error(&self) -> Option<(String, String)> {
        self.inner.state.borrow().last_error.clone()
    }

    /// Opens the game record at `path` (what Open does once a file is chosen).
    pub fn open_record(&self, path: &std::path::Path) {
        self.inner.open_record(path);
    }

    /// Saves the game to `path` (what Save does once a file is chosen).
    pub fn save_record(&self, path: &std::path::Path) {
        self.inner.save_record(path);
    }

    /// Whether a search (move or hint) is running.
    pub fn is_thinking(&self) -> bool {
        self.inner.state.borrow().task.is_some()
    }

    /// A click at widget coordinates of the board (what the click gesture does).
    pub fn click_at(&self, x: f64, y: f64) {
        if let Some(p) = board_view::layout(&self.inner.ui.board).pos_at(x, y) {
            self.inner.play_at(p);
        }
    }

    /// Starts a new game at once (what the New Game dialog does on Start).
    pub fn start_new_game(&self, mode: Mode, rule: Rule, opening: Option<&Opening>) {
        self.inner.start_new_game(mode, rule, opening);
    }

    /// Changes the preferences as the Preferences window does.
    pub fn set_preferences(&self, prefs: Preferences) {
        self.inner.apply_preferences(prefs);
    }

    pub fn preferences(&self) -> Preferences {
        self.inner.state.borrow().prefs.clone()
    }
}

fn nodes_per_second(nps: u64) -> String {
    match nps {
        0 => "–".to_string(),
        n if n >= 1_000_000 => format!("{:.1} M nodes/s", n as f64 / 1e6),
        n if n >= 1_000 => format!("{:.0} k nodes/s", n as f64 / 1e3),
        n => format!("{n} nodes/s"),
    }
}

/// Time left on a clock: whole seconds (rounded up), tenths under [`LOW_TIME`].
fn clock_text(left: Duration) -> String {
    if left < LOW_TIME {
        format!("{:.1} s", left.as_secs_f64())
    } else {
        format!("{} s", left.as_secs_f64().ceil())
    }
}

/// The score as a number in -1..1 for Black.
fn black_value(score: Score, mover: Color) -> f64 {
    let value = match score {
        Score::Eval(v) => {
            let v = f64::from(v);
            v / (v.abs() + 400.0)
        }
        Score::WinIn(_) => 1.0,
        Score::LossIn(_) => -1.0,
    };
    match mover {
        Color::Black => value,
        Color::White => -value,
    }
}

fn line_text(pv: &[Pos]) -> String {
    pv.iter()
        .take(10)
        .map(|p| p.to_notation())
        .collect::<Vec<_>>()
        .join(" ")
}

/// The colour that played the `index`-th move (0-based; passes count as moves).
fn mover(index: usize) -> Color {
    if index % 2 == 0 {
        Color::Black
    } else {
        Color::White
    }
}

fn result_text(mode: Mode, result: &GameResult) -> String {
    match (result.winner, mode) {
        (Some(winner), Mode::HumanBlack | Mode::HumanWhite) => {
            // The winner with its verb, and the loser as subject and as possessive.
            let (winner_name, verb, loser, losers) = if mode.engine_plays(winner) {
                ("The AI", "wins", "you", "your")
            } else {
                ("You", "win", "the AI", "the AI's")
            };
            let reason = match result.reason {
                EndReason::Timeout => format!("{losers} time ran out"),
                EndReason::Resignation => format!("{loser} resigned"),
                EndReason::Forbidden(kind) => {
                    format!("{losers} move was forbidden ({})", kind.description())
                }
                reason => reason.to_string(),
            };
            format!("{winner_name} ({}) {verb}: {reason}", winner.name())
        }
        _ => result.to_string(),
    }
}

/// Hands what arrives on `receiver` to `handle` on the main loop, as long as the window lives.
fn forward<T: 'static>(
    window: &Weak<Inner>,
    receiver: async_channel::Receiver<T>,
    handle: fn(&Rc<Inner>, T),
) {
    let window = window.clone();
    glib::spawn_future_local(async move {
        while let Ok(message) = receiver.recv().await {
            let Some(inner) = window.upgrade() else {
                break;
            };
            handle(&inner, message);
        }
    });
}

impl Inner {
    fn setup(
        self: &Rc<Self>,
        replies: async_channel::Receiver<Reply>,
        autosave_outcomes: async_channel::Receiver<Option<String>>,
    ) {
        let weak = Rc::downgrade(self);
        board_view::attach(&self.ui.board, self);

        self.ui.graph.set_draw_func({
            let weak = weak.clone();
            move |_, cr, width, height| {
                if let Some(inner) = weak.upgrade() {
                    let state = inner.state.borrow();
                    let shown = state.view.unwrap_or(state.game.moves().len());
                    let _ = render::draw_eval_graph(
                        cr,
                        f64::from(width),
                        f64::from(height),
                        &state.evals,
                        shown,
                    );
                }
            }
        });

        self.ui.moves.connect_row_activated({
            let weak = weak.clone();
            move |_, row| {
                if let (Some(inner), Ok(index)) = (weak.upgrade(), usize::try_from(row.index())) {
                    inner.view_position(index + 1);
                }
            }
        });

        self.install_actions();

        // Keep the newest move in sight: the list only grows or shrinks when moves change, and
        // its new height is known once it has been laid out. Scrolling from inside the layout
        // is not redrawn, so it waits for the layout to end.
        self.ui
            .moves_scroller
            .vadjustment()
            .connect_changed(|adjustment| {
                let adjustment = adjustment.clone();
                glib::idle_add_local_once(move || {
                    adjustment.set_value(adjustment.upper() - adjustment.page_size());
                });
            });

        forward(&weak, replies, Inner::on_reply);
        forward(&weak, autosave_outcomes, |inner, outcome| {
            inner.on_autosaved(outcome)
        });

        let tick = glib::timeout_add_local(CLOCK_TICK, {
            let weak = weak.clone();
            move || match weak.upgrade() {
                Some(inner) => {
                    inner.on_tick();
                    glib::ControlFlow::Continue
                }
                None => glib::ControlFlow::Break,
            }
        });
        self.state.borrow_mut().tick = Some(tick);

        self.window.connect_close_request(move |_| {
            if let Some(inner) = weak.upgrade() {
                inner.shutdown();
            }
            glib::Propagation::Proceed
        });
    }

    fn install_actions(self: &Rc<Self>) {
        let weak = Rc::downgrade(self);
        let add = |action: &gio::SimpleAction, handler: fn(&Rc<Inner>)| {
            let weak = weak.clone();
            action.connect_activate(move |_, _| {
                if let Some(inner) = weak.upgrade() {
                    handler(&inner);
                }
            });
            self.window.add_action(action);
        };
        add(&self.actions.undo, |inner| inner.undo());
        add(&self.actions.hint, |inner| inner.hint());
        add(&self.actions.pass, |inner| inner.pass());
        add(&self.actions.live, |inner| inner.view_live());
        add(&self.actions.save, |inner| inner.save_dialog());
        let simple = [
            (
                "new-game",
                (|inner| inner.new_game_dialog()) as fn(&Rc<Inner>),
            ),
            ("open", |inner| inner.open_dialog()),
            ("preferences", |inner| inner.preferences_dialog()),
            ("about", |inner| dialogs::about(&inner.window)),
            ("quit", |inner| inner.window.close()),
        ];
        for (name, handler) in simple {
            add(&gio::SimpleAction::new(name, None), handler);
        }
    }

    fn error(&self, heading: &str, text: &str) {
        self.state.borrow_mut().last_error = Some((heading.to_string(), text.to_string()));
        dialogs::error(&self.window, heading, text);
    }

    fn toast(&self, text: &str) {
        self.state.borrow_mut().last_toast = Some(text.to_string());
        let toast = adw::Toast::new(text);
        toast.set_timeout(4);
        self.ui.toasts.add_toast(toast);
    }

    /// The engine plays the side to move in the live game.
    fn engine_to_move(state: &State) -> bool {
        !state.game.is_over() && state.mode.engine_plays(state.game.side_to_move())
    }

    /// How many moves the live game keeps after an undo: the last position before the latest
    /// one where a person is to move, never inside the opening the game started from; `None`
    /// when there is none.
    fn undo_target(state: &State) -> Option<usize> {
        let played = state.game.moves().len();
        // After `moves` moves, the side to move is the one that plays move number `moves`.
        (state.game.opening_stones()..played)
            .rev()
            .find(|&moves| !state.mode.engine_plays(mover(moves)))
    }

    fn can_undo(state: &State) -> bool {
        Inner::undo_target(state).is_some()
    }

    /// After every move, undo, new game or opened file: restart the clock, save, let the engine
    /// move if it is its turn, refresh everything.
    fn position_changed(self: &Rc<Self>) {
        let over = {
            let mut guard = self.state.borrow_mut();
            let state = &mut *guard;
            state.hint = None;
            state.view = None;
            state.evals.resize(state.game.moves().len() + 1, None);
            state.forbidden = state.game.forbidden_points();
            if state.game.is_over() || state.clock_waiting {
                state.clock.stop();
            } else {
                state.clock.start(Instant::now());
            }
            state.game.is_over()
        };
        self.autosave();
        self.maybe_start_engine();
        self.refresh();
        if over {
            let text = {
                let state = self.state.borrow();
                state.game.result().map(|r| result_text(state.mode, &r))
            };
            if let Some(text) = text {
                self.toast(&text);
            }
        }
    }

    fn maybe_start_engine(&self) {
        let mut state = self.state.borrow_mut();
        if state.closed || !Inner::engine_to_move(&state) {
            return;
        }
        let limits = Limits::turn_time(state.prefs.ai_time);
        self.bridge.borrow_mut().start(state.game.board(), limits);
        state.task = Some(Task::Move);
        state.info = None;
    }

    fn stop_search(&self) {
        self.bridge.borrow_mut().stop();
        self.state.borrow_mut().task = None;
    }

    /// Queues the live game and its evaluations for the autosave thread.
    fn autosave(&self) {
        let saved = {
            let state = self.state.borrow();
            SavedGame::from_game(state.mode, &state.game).with_evals(&state.evals)
        };
        self.autosaver.borrow().save(saved);
    }

    /// What the autosave thread reports: a failure is shown once, until a save works again.
    fn on_autosaved(&self, error: Option<String>) {
        let already_failed = std::mem::replace(
            &mut self.state.borrow_mut().autosave_failed,
            error.is_some(),
        );
        if let (Some(error), false) = (error, already_failed) {
            self.toast(&format!("Could not save the game in progress: {error}"));
        }
    }

    fn play_at(self: &Rc<Self>, p: Pos) {
        let played = {
            let mut state = self.state.borrow_mut();
            if state.view.is_some() {
                drop(state);
                self.toast("This is an earlier position: go back to the game to play");
                return;
            }
            if state.game.is_over() || Inner::engine_to_move(&state) {
                return;
            }
            state.game.play(p)
        };
        match played {
            Ok(_) => {
                self.state.borrow_mut().clock_waiting = false;
                self.stop_search();
                self.position_changed();
            }
            Err(MoveError::Forbidden(p, kind)) => {
                self.toast(&format!(
                    "{p} is forbidden for Black: {} ({})",
                    kind.description(),
                    kind.label()
                ));
            }
            Err(_) => {}
        }
    }

    fn undo(self: &Rc<Self>) {
        {
            let mut state = self.state.borrow_mut();
            let Some(target) = Inner::undo_target(&state) else {
                return;
            };
            while state.game.moves().len() > target && state.game.undo().is_some() {}
        }
        self.stop_search();
        self.state.borrow_mut().info = None;
        self.position_changed();
    }

    fn pass(self: &Rc<Self>) {
        let passed = {
            let mut state = self.state.borrow_mut();
            if state.view.is_some() || Inner::engine_to_move(&state) {
                return;
            }
            state.game.pass().is_ok()
        };
        if passed {
            self.state.borrow_mut().clock_waiting = false;
            self.stop_search();
            self.position_changed();
        }
    }

    fn hint(&self) {
        let mut state = self.state.borrow_mut();
        if state.view.is_some()
            || state.game.is_over()
            || state.task.is_some()
            || Inner::engine_to_move(&state)
        {
            return;
        }
        let left = state.clock.remaining(Instant::now());
        let mut time = state.prefs.ai_time.min(MAX_HINT_TIME);
        if state.prefs.clock_enabled {
            time = time.min(left.saturating_sub(Duration::from_millis(500)));
        }
        let time = time.max(Duration::from_millis(100));
        self.bridge
            .borrow_mut()
            .start(state.game.board(), Limits::turn_time(time));
        state.task = Some(Task::Hint);
        state.hint = None;
        state.info = None;
        drop(state);
        self.refresh();
    }

    fn on_reply(self: &Rc<Self>, reply: Reply) {
        if self.bridge.borrow().current() != Some(reply.id()) {
            return;
        }
        match reply {
            Reply::Info(_, info) => {
                let mut state = self.state.borrow_mut();
                let side = state.game.side_to_move();
                let ply = state.game.moves().len();
                if let Some(slot) = state.evals.get_mut(ply) {
                    *slot = Some(black_value(info.score, side));
                }
                state.info = Some(EngineReport {
                    side,
                    info,
                    book_opening: None,
                });
                drop(state);
                self.refresh_engine();
                self.ui.graph.queue_draw();
            }
            Reply::Done(id, result) => self.on_done(id, result),
        }
    }

    fn on_done(self: &Rc<Self>, id: RequestId, result: crate::engine::SearchResult) {
        self.bridge.borrow_mut().finish(id);
        let mut state = self.state.borrow_mut();
        let task = state.task.take();
        let side = state.game.side_to_move();
        let ply = state.game.moves().len();
        if let Some(slot) = state.evals.get_mut(ply) {
            *slot = Some(black_value(result.score, side));
        }
        let nodes_per_second = state
            .info
            .as_ref()
            .map(|report| report.info.nodes_per_second)
            .unwrap_or_default();
        state.info = Some(EngineReport {
            side,
            info: SearchInfo {
                depth: result.depth,
                score: result.score,
                nodes: result.nodes,
                nodes_per_second,
                elapsed: result.elapsed,
                pv: result.pv.clone(),
            },
            book_opening: result.book_opening,
        });
        match task {
            Some(Task::Move) => {
                let played = match result.best_move {
                    Some(p) => state.game.play(p),
                    None => state.game.pass(),
                };
                let failed = played.err().map(|error| {
                    // Only an engine bug gets here; passing keeps the game going.
                    let _ = state.game.pass();
                    format!("The AI tried an illegal move ({error}) and passed")
                });
                state.clock_waiting = false;
                drop(state);
                if let Some(text) = failed {
                    self.toast(&text);
                }
                self.position_changed();
            }
            Some(Task::Hint) => {
                let text = match result.best_move {
                    Some(p) => {
                        state.hint = Some(HintMark {
                            pos: p,
                            line: result.pv.iter().skip(1).copied().collect(),
                            color: side,
                        });
                        match result.book_opening {
                            Some(opening) => format!(
                                "Hint: {p} (book move: {opening}; {})",
                                result.score.for_side(side)
                            ),
                            None => format!("Hint: {p} ({})", result.score.for_side(side)),
                        }
                    }
                    None => "The AI has no move to suggest".to_string(),
                };
                drop(state);
                // The hint's evaluation went into the graph: keep it even if the app dies now.
                self.autosave();
                self.toast(&text);
                self.refresh();
            }
            None => {}
        }
    }

    /// Whether one of the window's dialogs (new game, preferences, file chooser, about, an
    /// error, the shortcuts) is showing.
    fn dialog_open(&self) -> bool {
        let main: &gtk::Window = self.window.upcast_ref();
        gtk::Window::list_toplevels()
            .into_iter()
            .filter_map(|widget| widget.downcast::<gtk::Window>().ok())
            .any(|window| window.is_visible() && window.transient_for().as_ref() == Some(main))
    }

    fn on_tick(self: &Rc<Self>) {
        let dialog_open = self.dialog_open();
        let expired = {
            let mut state = self.state.borrow_mut();
            let now = Instant::now();
            // Time spent in a dialog is not thinking time.
            state.clock.set_paused(dialog_open, now);
            if state.game.is_over() || !state.clock.is_expired(now) {
                None
            } else {
                let loser = state.game.side_to_move();
                state.game.lose_on_time(loser);
                Some(loser)
            }
        };
        if expired.is_some() {
            self.stop_search();
            self.position_changed();
        } else {
            self.refresh_clocks();
        }
    }

    fn view_position(self: &Rc<Self>, moves: usize) {
        {
            let mut state = self.state.borrow_mut();
            let live = state.game.moves().len();
            state.view = (moves < live).then_some(moves);
        }
        self.refresh();
    }

    fn view_live(self: &Rc<Self>) {
        let live = self.state.borrow().game.moves().len();
        self.view_position(live);
    }

    fn start_new_game(self: &Rc<Self>, mode: Mode, rule: Rule, opening: Option<&Opening>) {
        self.stop_search();
        self.bridge.borrow_mut().clear_tables();
        let refused = {
            let mut state = self.state.borrow_mut();
            let stones = opening.map_or(&[][..], |opening| &opening.moves[..]);
            let (game, refused) = match Game::from_opening(rule, stones) {
                Ok(game) => (game, None),
                Err(refused) => (Game::new(rule), Some(refused)),
            };
            state.game = game.with_forbidden_policy(state.prefs.forbidden_policy);
            state.clock_waiting = true;
            state.mode = mode;
            state.evals.clear();
            state.info = None;
            state.prefs.mode = mode;
            state.prefs.rule = rule;
            refused
        };
        self.save_preferences();
        self.position_changed();
        match (opening, refused) {
            (Some(opening), Some((p, error))) => self.toast(&format!(
                "The opening {} could not be set up: {p}: {error}",
                opening.label()
            )),
            (Some(opening), None) => self.toast(&format!("Opening {}", opening.label())),
            (None, _) => {}
        }
    }

    fn apply_preferences(self: &Rc<Self>, prefs: Preferences) {
        {
            let mut state = self.state.borrow_mut();
            state.game.set_forbidden_policy(prefs.forbidden_policy);
            state.clock.set_enabled(prefs.clock_enabled);
            state.prefs = prefs;
        }
        self.save_preferences();
        self.refresh();
    }

    fn save_preferences(&self) {
        let prefs = self.state.borrow().prefs.clone();
        if let Err(error) = self.storage.save_preferences(&prefs) {
            self.toast(&format!("Could not save the preferences: {error}"));
        }
    }

    fn new_game_dialog(self: &Rc<Self>) {
        let prefs = self.state.borrow().prefs.clone();
        let weak = Rc::downgrade(self);
        dialogs::new_game(&self.window, &prefs, move |mode, rule, opening, ai_time| {
            if let Some(inner) = weak.upgrade() {
                let mut prefs = inner.state.borrow().prefs.clone();
                prefs.ai_time = ai_time;
                inner.apply_preferences(prefs);
                inner.start_new_game(mode, rule, opening);
            }
        });
    }

    fn preferences_dialog(self: &Rc<Self>) {
        let prefs = self.state.borrow().prefs.clone();
        let weak: Weak<Inner> = Rc::downgrade(self);
        dialogs::preferences(&self.window, &prefs, move |prefs| {
            if let Some(inner) = weak.upgrade() {
                inner.apply_preferences(prefs);
            }
        });
    }

    fn open_dialog(self: &Rc<Self>) {
        self.choose_file(
            gtk::FileChooserAction::Open,
            "Open Game Record",
            "_Open",
            |inner, path| inner.open_record(&path),
        );
    }

    fn save_dialog(self: &Rc<Self>) {
        self.choose_file(
            gtk::FileChooserAction::Save,
            "Save Game Record",
            "_Save",
            |inner, path| inner.save_record(&path),
        );
    }

    /// Shows a native file chooser and hands the chosen path to `chosen`.
    fn choose_file(
        self: &Rc<Self>,
        action: gtk::FileChooserAction,
        title: &str,
        accept: &str,
        chosen: fn(&Rc<Inner>, std::path::PathBuf),
    ) {
        let chooser = gtk::FileChooserNative::new(
            Some(title),
            Some(&self.window),
            action,
            Some(accept),
            Some("_Cancel"),
        );
        if action == gtk::FileChooserAction::Save {
            chooser.set_current_name("game.sgf");
        } else {
            let records = gtk::FileFilter::new();
            records.set_name(Some("Game records (SGF, Piskvork, RenLib, text)"));
            for pattern in ["*.sgf", "*.psq", "*.lib", "*.txt"] {
                records.add_pattern(pattern);
                records.add_pattern(&pattern.to_uppercase());
            }
            let everything = gtk::FileFilter::new();
            everything.set_name(Some("All files"));
            everything.add_pattern("*");
            chooser.add_filter(&records);
            chooser.add_filter(&everything);
        }
        let weak = Rc::downgrade(self);
        // The dialog is kept alive by its own handler until it answers.
        let keep = chooser.clone();
        chooser.connect_response(move |_, response| {
            let path = (response == gtk::ResponseType::Accept)
                .then(|| keep.file().and_then(|file| file.path()))
                .flatten();
            keep.destroy();
            if let (Some(inner), Some(path)) = (weak.upgrade(), path) {
                chosen(&inner, path);
            }
        });
        chooser.show();
    }

    /// Replaces the game with the record at `path`; on error the current game is kept.
    fn open_record(self: &Rc<Self>, path: &std::path::Path) {
        let loaded = GameRecord::load(path).and_then(|record| record.to_game());
        match loaded {
            Ok(game) => {
                self.stop_search();
                {
                    let mut state = self.state.borrow_mut();
                    let policy = state.prefs.forbidden_policy;
                    state.game = game.with_forbidden_policy(policy);
                    state.clock_waiting = true;
                    state.evals.clear();
                    state.info = None;
                }
                self.position_changed();
                self.toast(&format!("Opened {}", path.display()));
            }
            Err(error) => self.error(
                &format!("Could not open {}", file_name(path)),
                &format!("{error}.\nThe current game is kept."),
            ),
        }
    }

    /// Writes the live game to `path` (format from the extension, SGF otherwise), atomically.
    fn save_record(self: &Rc<Self>, path: &std::path::Path) {
        let format = RecordFormat::from_path(path).unwrap_or(RecordFormat::Sgf);
        let record = GameRecord::from_game(&self.state.borrow().game);
        match record.save(path, format) {
            Ok(()) => self.toast(&format!("Saved {}", path.display())),
            Err(error) => self.error(
                &format!("Could not save {}", file_name(path)),
                &format!("{error}."),
            ),
        }
    }

    fn shutdown(&self) {
        let tick = {
            let mut state = self.state.borrow_mut();
            state.closed = true;
            state.task = None;
            state.tick.take()
        };
        if let Some(tick) = tick {
            tick.remove();
        }
        self.bridge.borrow_mut().shutdown();
        self.autosave();
        self.autosaver.borrow_mut().finish();
    }

    fn scene(&self) -> Scene {
        let state = self.state.borrow();
        let moves = state.game.moves();
        let shown = state.view.unwrap_or(moves.len()).min(moves.len());
        let stones = moves[..shown]
            .iter()
            .enumerate()
            .filter_map(|(i, mv)| mv.pos().map(|p| (p, mover(i), i + 1)))
            .collect();
        let last_move = moves[..shown].last().and_then(|mv| mv.pos());
        let mut scene = Scene {
            stones,
            last_move,
            show_numbers: state.prefs.move_numbers,
            ..Scene::default()
        };
        if state.view.is_none() {
            let side = state.game.side_to_move();
            let human = !state.game.is_over() && !state.mode.engine_plays(side);
            scene.ghost = state
                .hover
                .filter(|&p| human && state.game.board().is_empty(p))
                .filter(|&p| !state.forbidden.iter().any(|&(q, _)| q == p))
                .map(|p| (p, side));
            scene.winning_line = state.game.winning_line().unwrap_or_default();
            scene.hint = state.hint.clone();
            if state.prefs.show_forbidden {
                scene.forbidden = state.forbidden.clone();
            }
        }
        scene
    }

    fn refresh(&self) {
        self.ui.board.queue_draw();
        self.ui.graph.queue_draw();
        self.refresh_header();
        self.refresh_clocks();
        self.refresh_engine();
        self.refresh_moves();
        self.refresh_banner();
        self.refresh_actions();
    }

    fn player_name(mode: Mode, color: Color) -> String {
        let who = match mode {
            Mode::TwoPlayers => return color.name().to_string(),
            _ if mode.engine_plays(color) => "AI",
            _ => "You",
        };
        format!("{} · {who}", color.name())
    }

    fn refresh_header(&self) {
        let state = self.state.borrow();
        self.ui.title.set_subtitle(&format!(
            "{} · {}",
            state.game.rule().name(),
            state.mode.label()
        ));
        for color in [Color::Black, Color::White] {
            self.ui.names[color.index()].set_label(&Inner::player_name(state.mode, color));
        }
        let side = state.game.side_to_move();
        let status = match state.game.result() {
            Some(result) => result_text(state.mode, &result),
            None if state.task == Some(Task::Move) => {
                format!("The AI ({}) is thinking…", side.name())
            }
            None if state.task == Some(Task::Hint) => "Looking for a good move…".to_string(),
            None => match state.mode {
                Mode::HumanBlack | Mode::HumanWhite => format!("Your move ({})", side.name()),
                _ => format!("{} to move", side.name()),
            },
        };
        self.ui.status.set_label(&status);
        let legend =
            if state.view.is_none() && state.prefs.show_forbidden && !state.forbidden.is_empty() {
                let points: Vec<String> = state
                    .forbidden
                    .iter()
                    .map(|(p, kind)| format!("{p} ({})", kind.label()))
                    .collect();
                Some(format!("✕ Forbidden for Black: {}", points.join(", ")))
            } else {
                None
            };
        self.ui.forbidden_legend.set_visible(legend.is_some());
        self.ui
            .forbidden_legend
            .set_label(legend.as_deref().unwrap_or_default());
    }

    fn refresh_clocks(&self) {
        let state = self.state.borrow();
        let now = Instant::now();
        let side = state.game.side_to_move();
        let limit = state.clock.limit();
        // After a loss on time the loser's clock stays at zero rather than showing a full move.
        let out_of_time = state
            .game
            .result()
            .filter(|result| result.reason == EndReason::Timeout)
            .and_then(|result| result.loser());
        for color in [Color::Black, Color::White] {
            let i = color.index();
            let to_move = color == side && !state.game.is_over();
            let left = if to_move {
                state.clock.remaining(now)
            } else if out_of_time == Some(color) {
                Duration::ZERO
            } else {
                limit
            };
            let text = clock_text(left);
            // Setting a label re-lays the window out; only do it when the text changes.
            if self.ui.clocks[i].label() != text {
                self.ui.clocks[i].set_label(&text);
            }
            self.ui.bars[i].set_fraction(left.as_secs_f64() / limit.as_secs_f64().max(0.001));
            let card = &self.ui.cards[i];
            if to_move {
                card.add_css_class("to-move");
            } else {
                card.remove_css_class("to-move");
            }
            if to_move && state.prefs.clock_enabled && left < LOW_TIME {
                card.add_css_class("low-time");
            } else {
                card.remove_css_class("low-time");
            }
        }
    }

    fn refresh_engine(&self) {
        let state = self.state.borrow();
        let thinking = state.task.is_some();
        self.ui.spinner.set_spinning(thinking);
        match &state.info {
            Some(EngineReport {
                side,
                info,
                book_opening,
            }) => {
                let depth = match book_opening {
                    Some(opening) => format!("book move ({opening})"),
                    None => info.depth.to_string(),
                };
                self.ui.engine_depth.set_label(&depth);
                self.ui.engine_eval.set_label(&info.score.for_side(*side));
                self.ui
                    .engine_speed
                    .set_label(&nodes_per_second(info.nodes_per_second));
                self.ui.engine_line.set_label(&line_text(&info.pv));
            }
            None => {
                for label in [
                    &self.ui.engine_depth,
                    &self.ui.engine_eval,
                    &self.ui.engine_speed,
                    &self.ui.engine_line,
                ] {
                    label.set_label("–");
                }
            }
        }
    }

    fn refresh_moves(&self) {
        let mut state = self.state.borrow_mut();
        let moves = state.game.moves().to_vec();
        if moves != state.listed {
            let keep = state
                .listed
                .iter()
                .zip(&moves)
                .take_while(|(a, b)| a == b)
                .count();
            while let Some(row) = self.ui.moves.row_at_index(keep as i32) {
                self.ui.moves.remove(&row);
            }
            for (i, mv) in moves.iter().enumerate().skip(keep) {
                self.ui.moves.append(&move_row(i, *mv));
            }
            state.listed = moves;
        }
        // Only an earlier position is selected (and scrolled to); the live game follows the end.
        let row = state
            .view
            .and_then(|shown| shown.checked_sub(1))
            .and_then(|i| self.ui.moves.row_at_index(i as i32));
        self.ui.moves.select_row(row.as_ref());
    }

    fn refresh_banner(&self) {
        let state = self.state.borrow();
        let (text, button, action) = if let Some(view) = state.view {
            (
                format!("Viewing move {view} of {}", state.game.moves().len()),
                "Back to Game",
                "win.live",
            )
        } else if let Some(result) = state.game.result() {
            (result_text(state.mode, &result), "New Game", "win.new-game")
        } else {
            self.ui.banner.set_reveal_child(false);
            return;
        };
        self.ui.banner_label.set_label(&text);
        self.ui.banner_button.set_label(button);
        self.ui.banner_button.set_action_name(Some(action));
        self.ui.banner.set_reveal_child(true);
    }

    fn refresh_actions(&self) {
        let state = self.state.borrow();
        let live = state.view.is_none();
        let playing = !state.game.is_over();
        let human = playing && !state.mode.engine_plays(state.game.side_to_move());
        self.actions.undo.set_enabled(Inner::can_undo(&state));
        self.actions
            .hint
            .set_enabled(live && human && state.task.is_none());
        self.actions.pass.set_enabled(live && human);
        self.actions.live.set_enabled(!live);
        self.actions
            .save
            .set_enabled(!state.game.moves().is_empty());
    }
}

/// The last component of `path`, for messages.
fn file_name(path: &std::path::Path) -> String {
    path.file_name()
        .unwrap_or(path.as_os_str())
        .to_string_lossy()
        .into_owned()
}

fn move_row(index: usize, mv: Move) -> gtk::ListBoxRow {
    let row_box = gtk::Box::new(gtk::Orientation::Horizontal, 10);
    let number = gtk::Label::new(Some(&format!("{}.", index + 1)));
    number.set_width_chars(4);
    number.set_xalign(1.0);
    number.add_css_class("dim-label");
    number.add_css_class("numeric");
    let stone = gtk::Label::new(Some(match mover(index) {
        Color::Black => "●",
        Color::White => "○",
    }));
    let notation = gtk::Label::new(Some(&move_notation(mv)));
    notation.set_xalign(0.0);
    notation.add_css_class("numeric");
    row_box.append(&number);
    row_box.append(&stone);
    row_box.append(&notation);
    let row = gtk::ListBoxRow::new();
    row.set_child(Some(&row_box));
    row.set_tooltip_text(Some("Show the position after this move"));
    row
}

impl BoardHandler for Inner {
    fn scene(&self) -> Scene {
        Inner::scene(self)
    }

    fn clicked(self: &Rc<Self>, p: Pos) {
        self.play_at(p);
    }

    fn hovered(&self, p: Option<Pos>) {
        let changed = {
            let mut state = self.state.borrow_mut();
            let changed = state.hover != p;
            state.hover = p;
            changed
        };
        if changed {
            self.ui.board.queue_draw();
        }
    }

    fn tooltip(&self, p: Pos) -> Option<String> {
        let state = self.state.borrow();
        if state.view.is_some() || !state.prefs.show_forbidden {
            return None;
        }
        state
            .forbidden
            .iter()
            .find(|&&(q, _)| q == p)
            .map(|&(_, kind)| {
                format!(
                    "{p}: forbidden for Black ({}, {})",
                    kind.description(),
                    kind.label()
                )
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clocks_show_whole_seconds_then_tenths_when_time_is_low() {
        let ms = Duration::from_millis;
        assert_eq!(clock_text(ms(15_000)), "15 s");
        assert_eq!(clock_text(ms(12_001)), "13 s");
        assert_eq!(clock_text(ms(5_000)), "5 s");
        assert_eq!(clock_text(ms(4_999)), "5.0 s");
        assert_eq!(clock_text(ms(1_250)), "1.2 s");
        assert_eq!(clock_text(Duration::ZERO), "0.0 s");
    }

    #[test]
    fn results_name_the_winner_and_whose_fault_the_loss_was() {
        let result = |winner, reason| GameResult {
            winner: Some(winner),
            reason,
        };
        assert_eq!(
            result_text(Mode::HumanBlack, &result(Color::White, EndReason::Timeout)),
            "The AI (White) wins: your time ran out"
        );
        assert_eq!(
            result_text(Mode::HumanWhite, &result(Color::White, EndReason::Timeout)),
            "You (White) win: the AI's time ran out"
        );
        assert_eq!(
            result_text(
                Mode::HumanBlack,
                &result(
                    Color::White,
                    EndReason::Forbidden(ForbiddenKind::DoubleThree)
                )
            ),
            "The AI (White) wins: your move was forbidden (double three)"
        );
        assert_eq!(
            result_text(Mode::HumanBlack, &result(Color::Black, EndReason::Five)),
            "You (Black) win: five in a row"
        );
        assert_eq!(
            result_text(
                Mode::HumanWhite,
                &result(Color::Black, EndReason::Resignation)
            ),
            "The AI (Black) wins: you resigned"
        );
        assert_eq!(
            result_text(Mode::TwoPlayers, &result(Color::White, EndReason::Timeout)),
            "White wins: time ran out"
        );
    }
}
