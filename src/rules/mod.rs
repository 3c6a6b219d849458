//! The rules core: coordinates and notation, the layered incremental board, line and combined
//! shapes, and the renju forbidden-move judge. Pure Rust, no GTK.

pub mod board;
pub mod forbidden;
pub mod line;
pub mod pos;
pub mod shape;

pub use board::{Board, Move, PlaceError};
pub use forbidden::ForbiddenKind;
pub use line::LineShape;
pub use pos::{Color, CoordError, Pos, Rule, DIRECTIONS, SIZE};
pub use shape::{LineShapePair, Shape};
