//! Gobang: Renju and Gomoku for the Linux desktop.
//!
//! ```text
//! rules     Pos/Color/Rule, layered Board (stones -> line shapes -> combined shapes), renju judge
//!   |
//! game      Game (history, undo, pass, result), records (SGF, psq, RenLib, plain text)
//!   |
//! engine    evaluation, move generation, alpha-beta + VCF search, move clock
//!   |
//! protocol  Gomocup brain (pbrain-gobang)      tui: terminal mode      ui: GTK4 window
//! ```
//!
//! Everything but `ui` is plain Rust and is tested without a display.

pub mod engine;
pub mod game;
pub mod protocol;
pub mod rules;
pub mod tui;
#[cfg(feature = "gui")]
pub mod ui;
