//! The `adw::Application`: one window, the style sheet, the keyboard accelerators of the window's
//! actions, and the app icon when running from the source tree.

use super::storage::Storage;
use super::window::GameWindow;
use super::APP_ID;
use adw::prelude::*;
use gtk4 as gtk;
use gtk4::glib;
use libadwaita as adw;
use std::cell::RefCell;
use std::rc::Rc;

const STYLE: &str = include_str!("../../resources/style.css");

/// Keyboard accelerators of the window actions.
pub const ACCELERATORS: [(&str, &[&str]); 10] = [
    ("win.new-game", &["<Control>n"]),
    ("win.undo", &["<Control>z"]),
    ("win.hint", &["<Control>h"]),
    ("win.pass", &["<Control>p"]),
    ("win.live", &["Escape"]),
    ("win.open", &["<Control>o"]),
    ("win.save", &["<Control>s"]),
    ("win.preferences", &["<Control>comma"]),
    ("win.show-help-overlay", &["<Control>question"]),
    ("win.quit", &["<Control>q", "<Control>w"]),
];

/// Loads the style sheet and makes the app icon findable when it is not installed.
pub fn load_style() {
    let Some(display) = gtk::gdk::Display::default() else {
        return;
    };
    let provider = gtk::CssProvider::new();
    provider.load_from_data(STYLE);
    gtk::style_context_add_provider_for_display(
        &display,
        &provider,
        gtk::STYLE_PROVIDER_PRIORITY_APPLICATION,
    );
    let theme = gtk::IconTheme::for_display(&display);
    if !theme.has_icon(APP_ID) {
        let source_icons = concat!(env!("CARGO_MANIFEST_DIR"), "/data/icons");
        if std::path::Path::new(source_icons).is_dir() {
            theme.add_search_path(source_icons);
        }
    }
}

/// Runs the app with the process arguments (GTK's own options are understood).
pub fn run(args: &[String]) -> glib::ExitCode {
    let app = adw::Application::builder().application_id(APP_ID).build();
    app.connect_startup(|app| {
        load_style();
        for (action, accels) in ACCELERATORS {
            app.set_accels_for_action(action, accels);
        }
        gtk::Window::set_default_icon_name(APP_ID);
    });
    // The window's callbacks hold it weakly; this keeps it alive as long as the app runs.
    let keeper: Rc<RefCell<Option<GameWindow>>> = Rc::default();
    app.connect_activate(move |app| {
        if let Some(window) = app.active_window() {
            window.present();
            return;
        }
        match GameWindow::new(Some(app), Storage::standard()) {
            Ok(window) => {
                window.present();
                keeper.replace(Some(window));
            }
            Err(error) => {
                eprintln!("gobang: cannot start the engine thread: {error}");
                app.quit();
            }
        }
    });
    app.run_with_args(args)
}
