//! AG-UI's binary transport (`application/vnd.ag-ui.event+proto`): a
//! stream of length-prefixed frames ([`frames`]), each one `Event` message
//! decoded with prost ([`decode`]) into the JSON event the official decoder
//! builds of it, so that every rule judges it as it judges SSE and JSON
//! Lines.
//!
//! The definitions are `proto/ag_ui.proto` (upstream's frozen 1.1 wire
//! numbers); the Rust code prost-build makes of them is committed
//! (`wire.rs`, `known.rs`) and held to the file by
//! `tests/proto_definitions.rs`, so building agui-lint needs no `protoc`.
//!
//! What the binary transport cannot carry: JSON members an event has beyond
//! its definition (an encoder drops them, where SSE keeps them for
//! `unknown-field`), `null` for an optional field (absent on the wire), an
//! integer past JavaScript's safe range in `timestamp` or token counts, and
//! any number's spelling (`1.0` and `1` are one double).

mod decode;
mod depth;
pub mod fast;
pub mod frames;
mod json;
#[allow(clippy::all, clippy::pedantic)]
mod known;
mod table;
mod unknown;
#[allow(clippy::all, clippy::pedantic, missing_docs)]
mod wire;
mod writer;

pub use decode::{decode, decode_general, decode_owned, Decoded, DEEPEST_MESSAGES};
pub use fast::{common, Common};
pub use frames::{write_frame, Frame, FrameBody, ProtoFramer};
pub use json::{Invalid, Written};
pub use unknown::UnknownField;

/// The file extension of a binary capture: a stream of frames, not one
/// protobuf message, so neither `.pb` nor `.binpb` (which name one message,
/// and which a directory of other projects' files holds) but a name of its
/// own that a directory walk keeps.
pub const EXTENSION: &str = "aguipb";
