//! Text protocols that let other programs drive the engine: the Gomocup (piskvork) brain protocol
//! with the common Yixin-Board extensions, used by `pbrain-gobang` and by the self-play tool when
//! it plays against external brains.

pub mod gomocup;
