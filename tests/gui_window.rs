//! Widget tests of the main window under Xvfb (`GSK_RENDERER=cairo xvfb-run -a cargo test`):
//! clicks place stones, undo, the AI's reply through the channel, a game from a standard
//! opening, hints, forbidden clicks, closing during a search, and a midgame screenshot in `target/screenshots/`.
//! Every wait has a deadline, so a broken build fails instead of hanging.
#![cfg(feature = "gui")]

use gobang::game::openings::standard_openings;
use gobang::game::record::GameRecord;
use gobang::rules::{Color, Move, Pos, Rule};
use gobang::ui::storage::{Ending, Mode, Preferences, SavedGame, Storage};
use gobang::ui::window::GameWindow;
use gtk4 as gtk;
use gtk4::glib;
use gtk4::prelude::*;
use libadwaita as adw;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

const DEADLINE: Duration = Duration::from_secs(20);

fn p(text: &str) -> Pos {
    text.parse().expect("test coordinate")
}

/// Runs the main loop until `done` or the deadline; returns whether `done` became true.
fn wait_until(timeout: Duration, mut done: impl FnMut() -> bool) -> bool {
    let context = glib::MainContext::default();
    let end = Instant::now() + timeout;
    while Instant::now() < end {
        if done() {
            return true;
        }
        while context.iteration(false) {}
        std::thread::sleep(Duration::from_millis(2));
    }
    done()
}

/// A fresh directory for the preferences and the autosave of one test.
fn temp_storage() -> (Storage, PathBuf) {
    static COUNTER: AtomicUsize = AtomicUsize::new(0);
    let dir = std::env::temp_dir().join(format!(
        "gobang-gui-test-{}-{}",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed)
    ));
    let _ = std::fs::remove_dir_all(&dir);
    (Storage::in_dir(&dir), dir)
}

/// A shown window with a new game in `mode` and the AI thinking `ai_ms` per move.
fn open_window(mode: Mode, rule: Rule, ai_ms: u64) -> (GameWindow, PathBuf) {
    adw::init().expect("libadwaita");
    gobang::ui::application::load_style();
    let (storage, dir) = temp_storage();
    storage
        .save_preferences(&Preferences {
            ai_time: Duration::from_millis(ai_ms),
            mode,
            rule,
            ..Preferences::default()
        })
        .expect("preferences");
    let window = GameWindow::new(None, storage).expect("window");
    window.window().set_default_size(1060, 760);
    window.present();
    let area = window.board_area().clone();
    assert!(
        wait_until(DEADLINE, || area.width() > 200 && area.height() > 200),
        "the board was never allocated"
    );
    (window, dir)
}

fn close(window: GameWindow, dir: PathBuf) {
    window.window().close();
    wait_until(Duration::from_millis(50), || false);
    let _ = std::fs::remove_dir_all(dir);
}

/// Clicks the board where `pos` is drawn.
fn click(window: &GameWindow, pos: Pos) {
    let layout = gobang::ui::board_view::layout(window.board_area());
    let (x, y) = layout.center(pos);
    window.click_at(x + 3.0, y - 2.0);
}

fn activate(window: &GameWindow, action: &str) {
    WidgetExt::activate_action(window.window(), action, None).expect("the action exists");
}

#[gtk::test]
fn a_click_places_a_stone_and_undo_removes_it() {
    let (window, dir) = open_window(Mode::TwoPlayers, Rule::Renju, 500);
    click(&window, p("h8"));
    assert_eq!(window.moves(), vec![Move::Place(p("h8"))]);
    let scene = window.scene();
    assert_eq!(scene.stones, vec![(p("h8"), Color::Black, 1)]);
    assert_eq!(scene.last_move, Some(p("h8")));
    click(&window, p("h8"));
    assert_eq!(window.moves().len(), 1, "an occupied point is not played");
    click(&window, p("i9"));
    assert_eq!(window.moves().len(), 2);
    activate(&window, "win.undo");
    assert_eq!(window.moves(), vec![Move::Place(p("h8"))]);
    activate(&window, "win.undo");
    assert!(window.moves().is_empty());
    assert!(window.scene().stones.is_empty());
    close(window, dir);
}

#[gtk::test]
fn the_ai_reply_arrives_through_the_channel_and_is_drawn() {
    let (window, dir) = open_window(Mode::HumanBlack, Rule::Renju, 300);
    click(&window, p("h8"));
    assert!(
        wait_until(DEADLINE, || window.moves().len() == 2),
        "the AI did not answer"
    );
    let scene = window.scene();
    assert_eq!(scene.stones.len(), 2);
    assert_eq!(scene.stones[1].1, Color::White);
    assert!(!window.is_thinking());
    // White's answer to a lone central stone comes from the opening book, and the engine panel
    // says so instead of showing a search depth.
    assert_eq!(window.moves()[1], Move::Place(p("h7")));
    assert_eq!(window.engine_depth_label(), "book move (direct opening)");
    // Undo takes back the AI's move and ours.
    activate(&window, "win.undo");
    assert!(window.moves().is_empty());
    close(window, dir);
}

#[gtk::test]
fn a_new_game_can_start_from_a_standard_opening() {
    let (window, dir) = open_window(Mode::HumanBlack, Rule::Renju, 300);
    let kagetsu = &standard_openings()[3];
    window.start_new_game(Mode::HumanBlack, Rule::Renju, Some(kagetsu));
    let stones: Vec<Move> = ["h8", "h9", "i9"].map(|s| Move::Place(p(s))).to_vec();
    assert_eq!(window.moves()[..3], stones[..]);
    assert_eq!(
        window.last_toast().as_deref(),
        Some("Opening D4 Kagetsu 花月")
    );
    // White (the AI) is to move after the three stones, and answers.
    assert!(
        wait_until(DEADLINE, || window.moves().len() == 4),
        "the AI did not answer the opening"
    );
    assert_eq!(window.scene().stones.len(), 4);
    // Undo takes back moves, never the opening's stones: with only the AI's answer played
    // since, there is nothing of ours to take back.
    activate(&window, "win.undo");
    assert_eq!(window.moves().len(), 4, "the opening stays on the board");
    let answer = window.moves()[3];
    let ours = ["j10", "g10", "j8", "g8"]
        .map(p)
        .into_iter()
        .find(|&q| Move::Place(q) != answer)
        .expect("a free point");
    click(&window, ours);
    assert!(
        wait_until(DEADLINE, || window.moves().len() == 6),
        "the AI did not answer our move"
    );
    activate(&window, "win.undo");
    assert_eq!(
        window.moves().len(),
        4,
        "our move and the AI's answer are taken back"
    );
    let autosave = Storage::in_dir(&dir).autosave;
    assert!(
        wait_until(DEADLINE, || std::fs::read_to_string(&autosave)
            .is_ok_and(|text| text.contains("\nsetup=3\n"))),
        "the autosave says how many stones were the opening"
    );
    close(window, dir);
}

#[gtk::test]
fn a_hint_marks_a_point_without_playing_it() {
    let (window, dir) = open_window(Mode::TwoPlayers, Rule::Renju, 300);
    click(&window, p("h8"));
    click(&window, p("i9"));
    activate(&window, "win.hint");
    assert!(
        wait_until(DEADLINE, || window.scene().hint.is_some()),
        "no hint came"
    );
    let hint = window.scene().hint.expect("hint");
    assert_eq!(hint.color, Color::Black);
    assert_eq!(window.moves().len(), 2, "a hint does not play");
    assert!(window.last_toast().unwrap_or_default().starts_with("Hint:"));
    // The hint's evaluation (move 2's bar of the graph) is autosaved at once.
    let autosave = Storage::in_dir(&dir).autosave;
    let hint_eval_saved = || {
        std::fs::read_to_string(&autosave).is_ok_and(|text| {
            text.lines()
                .find_map(|line| line.strip_prefix("evals="))
                .and_then(|evals| evals.split_whitespace().nth(2))
                .is_some_and(|value| value.parse::<f64>().is_ok())
        })
    };
    assert!(
        wait_until(DEADLINE, hint_eval_saved),
        "the hint's evaluation was not autosaved"
    );
    // Playing a move clears the hint.
    click(&window, hint.pos);
    assert_eq!(window.moves().len(), 3);
    assert!(window.scene().hint.is_none());
    close(window, dir);
}

#[gtk::test]
fn a_forbidden_click_as_black_is_refused_with_a_toast() {
    let (window, dir) = open_window(Mode::TwoPlayers, Rule::Renju, 300);
    // Black f8 g8 h6 h7 with h8 empty: h8 makes two open threes.
    for m in ["f8", "a1", "g8", "a3", "h6", "a5", "h7", "a7"] {
        click(&window, p(m));
    }
    assert_eq!(window.moves().len(), 8);
    let scene = window.scene();
    assert!(
        scene.forbidden.iter().any(|&(q, _)| q == p("h8")),
        "h8 is marked: {:?}",
        scene.forbidden
    );
    click(&window, p("h8"));
    assert_eq!(
        window.moves().len(),
        8,
        "the forbidden point was not played"
    );
    let toast = window.last_toast().unwrap_or_default();
    assert!(
        toast.contains("forbidden") && toast.contains("3x3"),
        "{toast}"
    );
    // The tournament preference makes the same click lose.
    let mut prefs = window.preferences();
    prefs.forbidden_policy = gobang::game::ForbiddenPolicy::Lose;
    window.set_preferences(prefs);
    click(&window, p("h8"));
    let result = window.result().expect("the game is over");
    assert_eq!(result.winner, Some(Color::White));
    close(window, dir);
}

#[gtk::test]
fn closing_during_a_search_exits_cleanly() {
    // The AI plays Black and thinks up to 15 s: close while it does.
    let (window, dir) = open_window(Mode::HumanWhite, Rule::Renju, 15_000);
    assert!(window.is_thinking() || !window.moves().is_empty());
    let started = Instant::now();
    window.window().close();
    let closing = started.elapsed();
    assert!(
        closing < Duration::from_secs(2),
        "closing took {closing:?}: the search was not stopped"
    );
    assert!(!window.is_thinking());
    wait_until(Duration::from_millis(100), || false);
    let _ = std::fs::remove_dir_all(dir);
}

#[gtk::test]
fn the_game_is_autosaved_and_restored() {
    let (window, dir) = open_window(Mode::TwoPlayers, Rule::Standard, 300);
    for m in ["h8", "h9", "j8"] {
        click(&window, p(m));
    }
    window.window().close();
    wait_until(Duration::from_millis(50), || false);
    let restored = GameWindow::new(None, Storage::in_dir(&dir)).expect("window");
    assert_eq!(restored.moves(), window.moves());
    restored.window().close();
    wait_until(Duration::from_millis(50), || false);
    let _ = std::fs::remove_dir_all(dir);
}

#[gtk::test]
fn a_damaged_autosave_is_kept_aside_and_reported() {
    adw::init().expect("libadwaita");
    let (storage, dir) = temp_storage();
    std::fs::create_dir_all(&dir).expect("directory");
    std::fs::write(
        &storage.autosave,
        "mode=two-players\nrule=renju\nmoves=h8 ??",
    )
    .expect("file");
    let window = GameWindow::new(None, storage).expect("window");
    assert!(window.moves().is_empty(), "a new game instead");
    let toast = window.last_toast().unwrap_or_default();
    assert!(toast.contains("autosave.damaged"), "{toast}");
    let kept = std::fs::read_to_string(dir.join("autosave.damaged")).expect("kept");
    assert!(kept.contains("h8 ??"));
    close(window, dir);
}

#[gtk::test]
fn save_and_open_use_the_record_formats_and_a_bad_file_keeps_the_game() {
    let (window, dir) = open_window(Mode::TwoPlayers, Rule::Renju, 300);
    for m in ["h8", "i9", "j10"] {
        click(&window, p(m));
    }
    let played = window.moves();
    let (sgf, psq) = (dir.join("game.sgf"), dir.join("game.psq"));
    window.save_record(&sgf);
    window.save_record(&psq);
    assert!(window.last_toast().unwrap_or_default().starts_with("Saved"));
    let text = std::fs::read_to_string(&sgf).expect("the SGF was written");
    assert!(text.contains("GM[4]"), "{text}");
    let saved = GameRecord::load(&sgf)
        .and_then(|record| record.to_game())
        .expect("the SGF reads back");
    assert_eq!(saved.moves(), played.as_slice());

    window.start_new_game(Mode::TwoPlayers, Rule::Renju, None);
    assert!(window.moves().is_empty());
    window.open_record(&psq);
    assert_eq!(window.moves(), played, "the .psq record was opened");
    assert_eq!(window.scene().stones.len(), 3);

    let bad = dir.join("bad.sgf");
    std::fs::write(&bad, "(;GM[4]FF[4];B[hh];W[zz])").expect("bad file");
    window.open_record(&bad);
    let (heading, text) = window.last_error().expect("an error dialog");
    assert!(heading.contains("bad.sgf"), "{heading}");
    assert!(text.contains("kept"), "{text}");
    assert_eq!(window.moves(), played, "the current game is kept");

    window.open_record(&dir.join("missing.sgf"));
    let (heading, _) = window.last_error().expect("an error dialog");
    assert!(heading.contains("missing.sgf"), "{heading}");
    assert_eq!(window.moves(), played);

    window.save_record(&dir.join("no-such-directory").join("game.sgf"));
    let (heading, _) = window.last_error().expect("an error dialog");
    assert!(heading.starts_with("Could not save"), "{heading}");
    close(window, dir);
}

#[gtk::test]
fn the_clock_stops_while_a_dialog_is_open() {
    let (window, dir) = open_window(Mode::HumanBlack, Rule::Renju, 300);
    wait_until(Duration::from_millis(300), || false);
    assert!(!window.clock_paused());
    activate(&window, "win.about");
    assert!(
        wait_until(Duration::from_secs(2), || window.clock_paused()),
        "the About window pauses the clock"
    );
    let main: gtk::Window = window.window().clone().upcast();
    for dialog in gtk::Window::list_toplevels() {
        if let Ok(dialog) = dialog.downcast::<gtk::Window>() {
            if dialog.transient_for().as_ref() == Some(&main) {
                dialog.close();
            }
        }
    }
    assert!(
        wait_until(Duration::from_secs(2), || !window.clock_paused()),
        "closing it lets the clock run again"
    );
    close(window, dir);
}

/// A window opened on a fresh storage holding `game` as its autosave.
fn open_saved(game: &SavedGame) -> (GameWindow, PathBuf) {
    let (storage, dir) = temp_storage();
    storage.save_game(game).expect("autosave");
    adw::init().expect("libadwaita");
    let window = GameWindow::new(None, Storage::in_dir(&dir)).expect("window");
    window.present();
    (window, dir)
}

#[gtk::test]
fn a_game_lost_on_time_shows_the_losers_clock_at_zero() {
    let game = SavedGame {
        mode: Mode::HumanBlack,
        rule: Rule::Renju,
        moves: vec![Move::Place(p("h8")), Move::Place(p("h9"))],
        setup: 0,
        ending: Some(Ending::Timeout(Color::Black)),
        evals: Vec::new(),
    };
    let (window, dir) = open_saved(&game);
    assert_eq!(window.moves().len(), 2);
    assert!(
        wait_until(DEADLINE, || window.clock_labels()[0] == "0.0 s"),
        "Black's clock after Black lost on time: {:?}",
        window.clock_labels()
    );
    assert_eq!(window.clock_labels()[1], "15 s", "White's clock is full");
    close(window, dir);
}

#[gtk::test]
fn a_restored_game_keeps_its_opening_out_of_reach_of_undo() {
    let game = SavedGame {
        mode: Mode::TwoPlayers,
        rule: Rule::Renju,
        moves: ["h8", "h9", "i9", "g7"].map(|s| Move::Place(p(s))).to_vec(),
        setup: 3,
        ending: None,
        evals: Vec::new(),
    };
    let (window, dir) = open_saved(&game);
    assert_eq!(window.moves().len(), 4);
    activate(&window, "win.undo");
    assert_eq!(window.moves().len(), 3);
    activate(&window, "win.undo");
    assert_eq!(window.moves(), game.moves[..3], "the opening's stones stay");
    close(window, dir);
}

#[gtk::test]
fn the_clock_waits_for_the_first_move() {
    let (window, dir) = open_window(Mode::TwoPlayers, Rule::Renju, 300);
    wait_until(Duration::from_millis(200), || false);
    assert!(!window.clock_running(), "no clock runs before a move");
    click(&window, p("h8"));
    assert!(
        wait_until(DEADLINE, || window.moves().len() == 1),
        "the click plays"
    );
    assert!(
        window.clock_running(),
        "White's clock runs after Black's move"
    );
    window.start_new_game(Mode::TwoPlayers, Rule::Renju, None);
    assert!(!window.clock_running(), "a new game waits again");
    close(window, dir);
}

/// Renders the whole window into a PNG; false while the window has nothing drawn to render
/// (between a change and the next frame).
fn screenshot(window: &gtk::Widget, path: &std::path::Path) -> bool {
    let paintable = gtk::WidgetPaintable::new(Some(window));
    let (width, height) = (window.width(), window.height());
    let snapshot = gtk::Snapshot::new();
    paintable.snapshot(&snapshot, f64::from(width), f64::from(height));
    let Some(node) = snapshot.to_node() else {
        return false;
    };
    let native = window.native().expect("a native widget");
    let renderer = native.renderer().expect("a renderer");
    let texture = renderer.render_texture(&node, None);
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).expect("screenshot directory");
    }
    texture.save_to_png(path).expect("png written");
    true
}

#[gtk::test]
fn a_midgame_screenshot_is_written() {
    let (window, dir) = open_window(Mode::TwoPlayers, Rule::Renju, 400);
    for m in [
        "h8", "i9", "g9", "i7", "i8", "g7", "j9", "f8", "h10", "g10", "h9", "h7", "j7",
    ] {
        click(&window, p(m));
    }
    assert_eq!(window.moves().len(), 13);
    activate(&window, "win.hint");
    wait_until(DEADLINE, || window.scene().hint.is_some());
    wait_until(Duration::from_millis(300), || false);
    let path = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .parent()
        .map(|target| target.join("screenshots").join("midgame.png"))
        .expect("target directory");
    assert!(
        wait_until(DEADLINE, || screenshot(window.window().upcast_ref(), &path)),
        "the window never had anything drawn to render"
    );
    let size = std::fs::metadata(&path).expect("screenshot").len();
    assert!(size > 10_000, "{size} bytes");
    println!("screenshot: {}", path.display());
    close(window, dir);
}

/// Records the longest gap between 5 ms main-loop ticks: how long the window stalled.
struct StallMeter {
    /// (previous tick, longest gap, when it ended, ticks)
    gaps: std::rc::Rc<std::cell::RefCell<(Instant, Duration, Instant, u32)>>,
    tick: glib::SourceId,
    started: Instant,
}

impl StallMeter {
    fn start() -> StallMeter {
        let started = Instant::now();
        let gaps = std::rc::Rc::new(std::cell::RefCell::new((
            started,
            Duration::ZERO,
            started,
            0,
        )));
        let tick = glib::timeout_add_local(Duration::from_millis(5), {
            let gaps = gaps.clone();
            move || {
                let mut gaps = gaps.borrow_mut();
                let now = Instant::now();
                if now - gaps.0 > gaps.1 {
                    gaps.1 = now - gaps.0;
                    gaps.2 = now;
                }
                gaps.0 = now;
                gaps.3 += 1;
                glib::ControlFlow::Continue
            }
        });
        StallMeter {
            gaps,
            tick,
            started,
        }
    }

    /// Stops measuring; says what was measured.
    fn report(self, what: &str) {
        self.tick.remove();
        let (_, longest, ended, ticks) = *self.gaps.borrow();
        println!(
            "{what}: {:?}, {ticks} ticks, longest main-loop stall {longest:?} (ending {:?} after the start)",
            self.started.elapsed(),
            ended - self.started,
        );
    }
}

/// A window that has drawn itself and settled, as it has when a user starts clicking.
fn settled_window(mode: Mode, ai_ms: u64) -> (GameWindow, PathBuf) {
    let (window, dir) = open_window(mode, Rule::Renju, ai_ms);
    wait_until(Duration::from_secs(1), || false);
    (window, dir)
}

/// Not a test but a measurement: the longest main-loop stall from a click on the settled
/// window, through the engine's full 15 s search, to its move being drawn (and the same once
/// more, when the engine's tables are warm). Run with
/// `GSK_RENDERER=cairo xvfb-run -a cargo test --test gui_window -- --ignored --nocapture`.
#[gtk::test]
#[ignore]
fn measure_main_loop_stall_during_a_15_second_search() {
    let (window, dir) = settled_window(Mode::HumanBlack, 15_000);
    for (round, (name, point)) in [("first", "h8"), ("second", "h10")].into_iter().enumerate() {
        let meter = StallMeter::start();
        click(&window, p(point));
        let answered = wait_until(Duration::from_secs(17), || {
            window.moves().len() == 2 * (round + 1)
        });
        wait_until(Duration::from_millis(300), || false);
        meter.report(&format!(
            "{name} move against a 15 s engine (answered: {answered})"
        ));
    }
    close(window, dir);
}

/// Not a test but a measurement, the baseline for the two above: the longest main-loop stall
/// over 3 s of a settled window where nothing happens but the clock ticking.
#[gtk::test]
#[ignore]
fn measure_main_loop_stall_while_nothing_happens() {
    let (window, dir) = settled_window(Mode::TwoPlayers, 1_000);
    let meter = StallMeter::start();
    wait_until(Duration::from_secs(3), || false);
    meter.report("3 s of a settled window, the clock ticking");
    close(window, dir);
}

/// Not a test but a measurement: the longest main-loop stall over 30 moves of a two-player
/// game, one every 100 ms (the cost of a move to the window, without the engine).
#[gtk::test]
#[ignore]
fn measure_main_loop_stall_while_moves_are_played() {
    let (window, dir) = settled_window(Mode::TwoPlayers, 1_000);
    let meter = StallMeter::start();
    for i in 0..30u8 {
        let pos = Pos::new(i % 15, 2 + i / 15 * 4).expect("on the board");
        click(&window, pos);
        wait_until(Duration::from_millis(100), || false);
    }
    meter.report("30 moves of a two-player game");
    assert_eq!(window.moves().len(), 30);
    close(window, dir);
}
