//! One frame's message decoded: prost reads it, the walk of [`super::unknown`]
//! finds what prost passes over, and [`super::json`] writes the event as the
//! official decoder builds it.

use prost::bytes::Bytes;
use prost::Message as _;

use super::json::{self, Invalid, Written};
use super::known::EVENT;
use super::unknown::{scan, Scan, UnknownField};
use super::wire;

/// What a frame's message holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decoded {
    /// An event, as JSON, and the fields of the frame AG-UI does not define.
    Event {
        /// The event.
        written: Written,
        /// Unknown fields, the first few.
        unknown: Vec<UnknownField>,
        /// Unknown fields beyond those listed.
        more_unknown: usize,
    },
    /// Only members of `Event` this version does not define: an event of a
    /// later version, which 1.x receivers drop.
    Later {
        /// Their numbers.
        members: Vec<u32>,
    },
    /// Messages nested deeper than [`DEEPEST_MESSAGES`]: more levels of
    /// JSON than agui-lint ever checks (`--max-depth` at most 2,048), not
    /// decoded.
    TooDeep,
}

pub use super::depth::DEEPEST_MESSAGES;

/// Nesting up to which a frame is decoded on the caller's stack (prost's
/// own default limit); deeper, on a stack grown for it.
const ON_THE_STACK: usize = 100;

/// The stack a frame nested [`DEEPEST_MESSAGES`] deep is decoded on.
const GROWN_STACK: usize = 128 * 1024 * 1024;

/// Decodes one frame's message, or says why the official decoder refuses it.
pub fn decode(bytes: &[u8]) -> Result<Decoded, Invalid> {
    decode_owned(Bytes::copy_from_slice(bytes))
}

/// [`decode`] of a frame's own buffer, whose strings the decoded message
/// then borrows instead of copying.
pub fn decode_owned(bytes: Bytes) -> Result<Decoded, Invalid> {
    if let Some(json) = super::fast::event(&bytes) {
        return Ok(Decoded::Event {
            written: Written {
                json,
                replaced_utf8: false,
                dropped_parts: 0,
            },
            unknown: Vec::new(),
            more_unknown: 0,
        });
    }
    decode_general(bytes)
}

/// [`decode_owned`] through prost, for every frame: what the fast path of
/// common events does not take, and what it is held to.
pub fn decode_general(bytes: Bytes) -> Result<Decoded, Invalid> {
    match super::depth::message_depth(&bytes, EVENT, DEEPEST_MESSAGES) {
        depth if depth > DEEPEST_MESSAGES => Ok(Decoded::TooDeep),
        depth if depth > ON_THE_STACK => stacker::grow(GROWN_STACK, || decode_walked(bytes)),
        _ => decode_walked(bytes),
    }
}

/// [`decode_general`] of a frame nested no deeper than
/// [`DEEPEST_MESSAGES`].
fn decode_walked(bytes: Bytes) -> Result<Decoded, Invalid> {
    let size = bytes.len();
    let event = wire::Event::decode(bytes.clone())
        .map_err(|e| Invalid(format!("the bytes are not an AG-UI event message: {e}")))?;
    // prost writes what it read in the fewest bytes and drops what it does
    // not know: a frame it writes back at its own length has no unknown
    // field and no oneof given twice, and needs no walk.
    let found = if event.encoded_len() == size {
        Scan::default()
    } else {
        scan(&bytes, EVENT)
    };
    if let Some(path) = found.conflicting {
        return Err(Invalid(format!(
            "the frame gives {path} two different members of one oneof"
        )));
    }
    let Some(arm) = event.event else {
        if found.arms.is_empty() && !found.unknown_arms.is_empty() {
            return Ok(Decoded::Later {
                members: found.unknown_arms,
            });
        }
        return Err(Invalid("the frame holds no event".into()));
    };
    let written = json::event(&arm, size)?;
    Ok(Decoded::Event {
        written,
        unknown: found.unknown,
        more_unknown: found.more_unknown,
    })
}
