//! The real app — the `gobang` binary through `ui::run`, not a window built by a test — under
//! Xvfb, driven with `xdotool` as a user would: a click on the board plays a stone, Ctrl+Q quits
//! with the game autosaved, and the next start restores the game and plays on. (The widget tests
//! hold their window themselves, so they cannot see a window the app fails to keep alive.)
#![cfg(feature = "gui")]

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::thread::sleep;
use std::time::{Duration, Instant};

const DEADLINE: Duration = Duration::from_secs(30);

fn xdotool(args: &[&str]) -> Option<String> {
    let output = Command::new("xdotool").args(args).output().ok()?;
    output
        .status
        .success()
        .then(|| String::from_utf8_lossy(&output.stdout).trim().to_string())
}

/// The app, started with its preferences and autosave under `home`.
struct App {
    child: Child,
    window: String,
}

impl App {
    fn start(home: &Path) -> App {
        let mut child = Command::new(env!("CARGO_BIN_EXE_gobang"))
            .env("XDG_CONFIG_HOME", home.join("config"))
            .env("XDG_DATA_HOME", home.join("data"))
            .env("GSK_RENDERER", "cairo")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("gobang starts");
        let end = Instant::now() + DEADLINE;
        let window = loop {
            let found = xdotool(&["search", "--onlyvisible", "--name", "^Gobang$"]);
            if let Some(id) = found.and_then(|ids| ids.lines().next().map(str::to_string)) {
                break id;
            }
            if Instant::now() > end || child.try_wait().ok().flatten().is_some() {
                let _ = child.kill();
                panic!("the Gobang window never appeared");
            }
            sleep(Duration::from_millis(100));
        };
        // Let it draw and settle before clicking.
        sleep(Duration::from_millis(1500));
        App { child, window }
    }

    /// A left click at window coordinates.
    fn click(&self, x: u32, y: u32) {
        let (x, y) = (x.to_string(), y.to_string());
        xdotool(&["mousemove", "--window", &self.window, &x, &y, "click", "1"])
            .expect("xdotool clicks");
        sleep(Duration::from_millis(700));
    }

    /// Ctrl+Q, then waits for the process to end; returns whether it exited successfully.
    fn quit(mut self) -> bool {
        xdotool(&["key", "ctrl+q"]).expect("xdotool types");
        let end = Instant::now() + DEADLINE;
        while Instant::now() < end {
            if let Ok(Some(status)) = self.child.try_wait() {
                return status.success();
            }
            sleep(Duration::from_millis(100));
        }
        let _ = self.child.kill();
        false
    }
}

fn autosaved_moves(home: &Path) -> Vec<String> {
    let path = home.join("data/org.gobang.Gobang/autosave");
    let text = std::fs::read_to_string(&path).unwrap_or_default();
    text.lines()
        .find_map(|line| line.strip_prefix("moves="))
        .map(|moves| moves.split_whitespace().map(str::to_string).collect())
        .unwrap_or_default()
}

#[test]
fn the_app_plays_a_click_quits_with_ctrl_q_and_restores_the_game() {
    assert!(
        std::env::var_os("DISPLAY").is_some(),
        "no DISPLAY: run the GUI tests under xvfb-run, as `./dev.sh test` does"
    );
    let home = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("gobang-app-test-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&home);
    let config = home.join("config/org.gobang.Gobang");
    std::fs::create_dir_all(&config).expect("config directory");
    std::fs::write(config.join("preferences"), "mode=two-players\n").expect("preferences");

    // The default window is 1060x760 with the board on the left: (330, 400) is near its centre.
    let app = App::start(&home);
    app.click(330, 400);
    assert!(app.quit(), "Ctrl+Q ends the app cleanly");
    let first = autosaved_moves(&home);
    assert_eq!(first.len(), 1, "one stone was played: {first:?}");

    let app = App::start(&home);
    app.click(200, 250);
    assert!(app.quit(), "Ctrl+Q ends the app cleanly");
    let second = autosaved_moves(&home);
    assert_eq!(
        second.len(),
        2,
        "the game was restored and played on: {second:?}"
    );
    assert_eq!(second[0], first[0]);
    assert_ne!(second[1], first[0]);
    let _ = std::fs::remove_dir_all(&home);
}
