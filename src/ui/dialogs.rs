//! The secondary windows: New Game (an `adw::MessageDialog` with players, rule, opening and AI
//! time), Preferences (`adw::PreferencesWindow`), About (`adw::AboutWindow`) and error messages.

use super::storage::{Mode, Preferences, MAX_AI_TIME};
use super::APP_ID;
use crate::game::openings::{standard_openings, Opening};
use crate::game::ForbiddenPolicy;
use crate::rules::Rule;
use adw::prelude::*;
use gtk4 as gtk;
use libadwaita as adw;
use std::time::Duration;

const RULES: [Rule; 3] = [Rule::Renju, Rule::Standard, Rule::Freestyle];

fn rule_label(rule: Rule) -> &'static str {
    match rule {
        Rule::Renju => "Renju (forbidden moves for Black)",
        Rule::Standard => "Standard gomoku (exactly five)",
        Rule::Freestyle => "Freestyle gomoku (five or more)",
    }
}

/// A row with a spin button for the AI's time per move, in seconds.
fn ai_time_row(title: &str, subtitle: &str, time: Duration) -> (adw::ActionRow, gtk::SpinButton) {
    let row = adw::ActionRow::builder()
        .title(title)
        .subtitle(subtitle)
        .build();
    let spin = gtk::SpinButton::with_range(0.5, MAX_AI_TIME.as_secs_f64(), 0.5);
    spin.set_digits(1);
    spin.set_value(time.as_secs_f64());
    spin.set_valign(gtk::Align::Center);
    row.add_suffix(&spin);
    (row, spin)
}

/// Asks for the players, the rule, the opening and the AI's time, then calls `on_start` (with
/// `None` for an empty board).
pub fn new_game<F: Fn(Mode, Rule, Option<&'static Opening>, Duration) + 'static>(
    parent: &adw::ApplicationWindow,
    prefs: &Preferences,
    on_start: F,
) {
    let dialog = adw::MessageDialog::new(
        Some(parent),
        Some("New Game"),
        Some("Choose the players, the rule and where to start. Every move has 15 seconds."),
    );
    let group = adw::PreferencesGroup::new();
    group.set_width_request(360);
    let players = adw::ComboRow::builder()
        .title("Players")
        .model(&gtk::StringList::new(&Mode::ALL.map(Mode::label)))
        .build();
    let mode_index = Mode::ALL.iter().position(|&m| m == prefs.mode).unwrap_or(0);
    players.set_selected(mode_index as u32);
    let rules = adw::ComboRow::builder()
        .title("Rule")
        .model(&gtk::StringList::new(&RULES.map(rule_label)))
        .build();
    let rule_index = RULES.iter().position(|&r| r == prefs.rule).unwrap_or(0);
    rules.set_selected(rule_index as u32);
    let opening_labels: Vec<String> = std::iter::once("Empty board".to_string())
        .chain(standard_openings().iter().map(Opening::label))
        .collect();
    let opening_refs: Vec<&str> = opening_labels.iter().map(String::as_str).collect();
    let openings = adw::ComboRow::builder()
        .title("Opening")
        .subtitle("Or one of the 26 standard renju openings")
        .model(&gtk::StringList::new(&opening_refs))
        .build();
    let (time_row, spin) = ai_time_row(
        "AI time per move",
        "Seconds; longer is stronger",
        prefs.ai_time,
    );
    group.add(&players);
    group.add(&rules);
    group.add(&openings);
    group.add(&time_row);
    dialog.set_extra_child(Some(&group));
    dialog.add_responses(&[("cancel", "_Cancel"), ("start", "_Start")]);
    dialog.set_response_appearance("start", adw::ResponseAppearance::Suggested);
    dialog.set_default_response(Some("start"));
    dialog.set_close_response("cancel");
    dialog.connect_response(None, move |_, response| {
        if response != "start" {
            return;
        }
        let mode = Mode::ALL
            .get(players.selected() as usize)
            .copied()
            .unwrap_or_default();
        let rule = RULES
            .get(rules.selected() as usize)
            .copied()
            .unwrap_or_default();
        // Item 0 is the empty board; item i the (i-1)-th standard opening.
        let opening = (openings.selected() as usize)
            .checked_sub(1)
            .and_then(|index| standard_openings().get(index));
        let time = Duration::from_secs_f64(spin.value().clamp(0.5, MAX_AI_TIME.as_secs_f64()));
        on_start(mode, rule, opening, time);
    });
    dialog.present();
}

fn switch_row(title: &str, subtitle: &str, active: bool) -> (adw::ActionRow, gtk::Switch) {
    let row = adw::ActionRow::builder()
        .title(title)
        .subtitle(subtitle)
        .build();
    let switch = gtk::Switch::new();
    switch.set_active(active);
    switch.set_valign(gtk::Align::Center);
    row.add_suffix(&switch);
    row.set_activatable_widget(Some(&switch));
    (row, switch)
}

/// Shows the preferences; every change is passed to `on_change` at once.
pub fn preferences<F: Fn(Preferences) + 'static>(
    parent: &adw::ApplicationWindow,
    prefs: &Preferences,
    on_change: F,
) {
    let window = adw::PreferencesWindow::builder()
        .transient_for(parent)
        .modal(true)
        .search_enabled(false)
        .default_width(520)
        .default_height(520)
        .build();
    let page = adw::PreferencesPage::new();
    let game = adw::PreferencesGroup::builder().title("Game").build();
    let (clock_row, clock) = switch_row(
        "Move clock",
        "A player who takes more than 15 seconds loses",
        prefs.clock_enabled,
    );
    let (forbidden_row, forbidden_loses) = switch_row(
        "Forbidden moves lose",
        "Tournament rule: Black loses by playing a forbidden point instead of being stopped",
        prefs.forbidden_policy == ForbiddenPolicy::Lose,
    );
    game.add(&clock_row);
    game.add(&forbidden_row);
    let board = adw::PreferencesGroup::builder().title("Board").build();
    let (numbers_row, numbers) = switch_row(
        "Move numbers",
        "Number the stones in play order",
        prefs.move_numbers,
    );
    let (marks_row, marks) = switch_row(
        "Mark forbidden points",
        "Show where Black may not play (3x3, 4x4, overline)",
        prefs.show_forbidden,
    );
    board.add(&numbers_row);
    board.add(&marks_row);
    let engine = adw::PreferencesGroup::builder().title("AI").build();
    let (time_row, spin) = ai_time_row(
        "Time per move",
        "Seconds the AI thinks (at most 15)",
        prefs.ai_time,
    );
    engine.add(&time_row);
    page.add(&game);
    page.add(&board);
    page.add(&engine);
    window.add(&page);

    let current = std::rc::Rc::new(std::cell::RefCell::new(prefs.clone()));
    let on_change = std::rc::Rc::new(on_change);
    let update = {
        let current = current.clone();
        let clock = clock.clone();
        let forbidden_loses = forbidden_loses.clone();
        let numbers = numbers.clone();
        let marks = marks.clone();
        let spin = spin.clone();
        move || {
            let prefs = {
                let mut prefs = current.borrow_mut();
                prefs.clock_enabled = clock.is_active();
                prefs.forbidden_policy = if forbidden_loses.is_active() {
                    ForbiddenPolicy::Lose
                } else {
                    ForbiddenPolicy::Refuse
                };
                prefs.move_numbers = numbers.is_active();
                prefs.show_forbidden = marks.is_active();
                prefs.ai_time =
                    Duration::from_secs_f64(spin.value().clamp(0.5, MAX_AI_TIME.as_secs_f64()));
                prefs.clone()
            };
            on_change(prefs);
        }
    };
    let update = std::rc::Rc::new(update);
    for switch in [&clock, &forbidden_loses, &numbers, &marks] {
        let update = update.clone();
        switch.connect_active_notify(move |_| update());
    }
    spin.connect_value_changed(move |_| update());
    window.present();
}

/// The About window.
pub fn about(parent: &adw::ApplicationWindow) {
    let about = adw::AboutWindow::builder()
        .transient_for(parent)
        .modal(true)
        .application_name("Gobang")
        .application_icon(APP_ID)
        .developer_name("The Gobang developers")
        .version(env!("CARGO_PKG_VERSION"))
        .comments(
            "Renju and Gomoku against a strong engine, with a 15-second move clock. \
             Black's forbidden moves (double three, double four, overline) are shown on the board.",
        )
        .license_type(gtk::License::Gpl30)
        .build();
    about.present();
}

/// A modal error message naming the problem.
pub fn error(parent: &adw::ApplicationWindow, heading: &str, body: &str) {
    let dialog = adw::MessageDialog::new(Some(parent), Some(heading), Some(body));
    dialog.add_response("close", "_Close");
    dialog.set_default_response(Some("close"));
    dialog.present();
}
