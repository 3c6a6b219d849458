//! The GTK4/libadwaita desktop app: the application and its accelerators ([`application`]), the
//! main window ([`window`]), the board widget and its pure Cairo drawing ([`board_view`],
//! [`render`]), the engine worker thread ([`engine_bridge`]), dialogs and what is kept between
//! runs ([`storage`]).

pub mod application;
pub mod board_view;
pub mod dialogs;
pub mod engine_bridge;
pub mod render;
pub mod storage;
pub mod window;

pub use application::run;

/// The application id: also the name of the desktop file, the metainfo and the icon.
pub const APP_ID: &str = "org.gobang.Gobang";
