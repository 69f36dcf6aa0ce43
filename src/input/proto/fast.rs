//! The frames most of a stream is made of (text and reasoning deltas, tool
//! call arguments, the starts and ends around them) written as JSON straight
//! from their bytes: events whose fields are strings and whose base event
//! holds only its type and timestamp. A frame with anything else (another
//! field, a field given twice, broken UTF-8, a type that does not match)
//! is left to prost and `json.rs`, which also judge it; for the
//! frames taken here both write the same bytes (`tests/proto.rs` holds
//! them to it on every capture, and the `proto` fuzz target on any input).

/// One event read here: its member of `Event`, the type its base event
/// must declare, and its string fields by number: the JSON key (quoted,
/// with its colon) and whether it is written when absent (as `""`).
struct Shape {
    member: u64,
    event_type: u64,
    type_name: &'static str,
    type_json: &'static str,
    fields: &'static [(u64, &'static str, &'static str, bool)],
}

macro_rules! shape {
    ($member:literal, $type_number:literal, $type_name:literal, [$(($number:literal, $key:literal, $always:literal)),* $(,)?]) => {
        Shape {
            member: $member,
            event_type: $type_number,
            type_name: $type_name,
            type_json: concat!("{\"type\":\"", $type_name, "\""),
            fields: &[$(($number, $key, concat!(",\"", $key, "\":"), $always)),*],
        }
    };
}

/// The shapes read here, by member. Each field list is in wire order, the
/// order [`super::json`] writes them in.
const SHAPES: [Shape; 9] = [
    shape!(
        1,
        0,
        "TEXT_MESSAGE_START",
        [
            (2, "messageId", true),
            (3, "role", false),
            (4, "name", false),
            (5, "subagentRunId", false)
        ]
    ),
    shape!(
        2,
        1,
        "TEXT_MESSAGE_CONTENT",
        [
            (2, "messageId", true),
            (3, "delta", true),
            (4, "subagentRunId", false)
        ]
    ),
    shape!(
        3,
        2,
        "TEXT_MESSAGE_END",
        [(2, "messageId", true), (3, "subagentRunId", false)]
    ),
    shape!(
        4,
        3,
        "TOOL_CALL_START",
        [
            (2, "toolCallId", true),
            (3, "toolCallName", true),
            (4, "parentMessageId", false),
            (5, "subagentRunId", false)
        ]
    ),
    shape!(
        5,
        4,
        "TOOL_CALL_ARGS",
        [
            (2, "toolCallId", true),
            (3, "delta", true),
            (4, "subagentRunId", false)
        ]
    ),
    shape!(
        6,
        5,
        "TOOL_CALL_END",
        [(2, "toolCallId", true), (3, "subagentRunId", false)]
    ),
    shape!(
        26,
        25,
        "REASONING_MESSAGE_START",
        [
            (2, "subagentRunId", false),
            (3, "messageId", true),
            (4, "role", true)
        ]
    ),
    shape!(
        27,
        26,
        "REASONING_MESSAGE_CONTENT",
        [
            (2, "subagentRunId", false),
            (3, "messageId", true),
            (4, "delta", true)
        ]
    ),
    shape!(
        28,
        27,
        "REASONING_MESSAGE_END",
        [(2, "subagentRunId", false), (3, "messageId", true)]
    ),
];

use super::writer::MAX_SAFE_INTEGER;

/// Most string fields an event read here has.
const MOST_FIELDS: usize = 4;

/// A frame of the common kinds, read: its shape, its strings by field
/// (UTF-8, borrowed from the frame) and its timestamp.
pub struct Common<'a> {
    shape: &'static Shape,
    strings: [Option<&'a str>; MOST_FIELDS],
    timestamp: Option<i64>,
}

impl<'a> Common<'a> {
    /// The event's `type`.
    pub fn kind(&self) -> &'static str {
        self.shape.type_name
    }

    /// Its timestamp, if it has one.
    pub fn timestamp(&self) -> Option<i64> {
        self.timestamp
    }

    /// Its members as its JSON holds them, in order: each field (a field
    /// not given but always written as `""`), then the timestamp.
    pub fn members(&self) -> impl Iterator<Item = (&'static str, Member<'a>)> + '_ {
        let strings = self.shape.fields.iter().zip(self.strings).filter_map(
            |(&(_, key, _, always), text)| match text {
                Some(text) => Some((key, Member::Str(text))),
                None if always => Some((key, Member::Str(""))),
                None => None,
            },
        );
        strings.chain(self.timestamp.map(|t| ("timestamp", Member::Timestamp(t))))
    }
}

/// A member of a [`Common`] frame.
#[derive(Debug, Clone, Copy)]
pub enum Member<'a> {
    /// A string.
    Str(&'a str),
    /// The timestamp.
    Timestamp(i64),
}

/// The frame read, when it is one of the common kinds with nothing that
/// needs prost's path; `None` leaves it to that path.
pub fn common(bytes: &[u8]) -> Option<Common<'_>> {
    let (tag, at) = varint(bytes, 0)?;
    if tag & 7 != 2 {
        return None;
    }
    let shape = SHAPES.iter().find(|s| s.member == tag >> 3)?;
    let (length, at) = varint(bytes, at)?;
    // The member is the whole frame: nothing beside it, nothing after.
    if usize::try_from(length).ok()? != bytes.len().checked_sub(at)? {
        return None;
    }
    let event = &bytes[at..];
    let mut strings: [Option<&str>; MOST_FIELDS] = [None; MOST_FIELDS];
    let mut base: Option<(u64, Option<i64>)> = None;
    let mut at = 0;
    while at < event.len() {
        let (tag, next) = varint(event, at)?;
        if tag & 7 != 2 {
            return None;
        }
        let (length, next) = varint(event, next)?;
        let end = next.checked_add(usize::try_from(length).ok()?)?;
        let payload = event.get(next..end)?;
        at = end;
        let number = tag >> 3;
        if number == 1 {
            if base.is_some() {
                return None;
            }
            base = Some(base_event(payload)?);
            continue;
        }
        let slot = shape.fields.iter().position(|f| f.0 == number)?;
        if strings[slot].is_some() {
            return None;
        }
        strings[slot] = Some(std::str::from_utf8(payload).ok()?);
    }
    let (event_type, timestamp) = base?;
    if event_type != shape.event_type {
        return None;
    }
    Some(Common {
        shape,
        strings,
        timestamp,
    })
}

/// The frame's event as JSON, when it is one read here; `None` leaves it
/// to the general path.
pub(super) fn event(bytes: &[u8]) -> Option<Vec<u8>> {
    let common = common(bytes)?;
    let shape = common.shape;
    let mut out = Vec::with_capacity(bytes.len() * 2 + 64);
    out.extend_from_slice(shape.type_json.as_bytes());
    for (i, &(_, _, key, always)) in shape.fields.iter().enumerate() {
        match common.strings[i] {
            Some(text) => {
                out.extend_from_slice(key.as_bytes());
                super::writer::escape(text, &mut out);
            }
            None if always => {
                out.extend_from_slice(key.as_bytes());
                out.extend_from_slice(b"\"\"");
            }
            None => {}
        }
    }
    if let Some(timestamp) = common.timestamp {
        out.extend_from_slice(b",\"timestamp\":");
        out.extend_from_slice(timestamp.to_string().as_bytes());
    }
    out.push(b'}');
    Some(out)
}

/// A base event holding its type and timestamp alone, each at most once;
/// `None` for anything else.
fn base_event(bytes: &[u8]) -> Option<(u64, Option<i64>)> {
    let (mut event_type, mut timestamp) = (None, None);
    let mut at = 0;
    while at < bytes.len() {
        let (tag, next) = varint(bytes, at)?;
        let (value, next) = varint(bytes, next)?;
        at = next;
        match tag {
            0x08 if event_type.is_none() => event_type = Some(value),
            0x10 if timestamp.is_none() => {
                // An int64 is its two's complement, as 64 bits.
                let value = value as i64;
                if !(-MAX_SAFE_INTEGER..=MAX_SAFE_INTEGER).contains(&value) {
                    return None;
                }
                timestamp = Some(value);
            }
            _ => return None,
        }
    }
    Some((event_type.unwrap_or(0), timestamp))
}

/// The varint at `at` and where it ends; `None` when the bytes end first
/// or it runs past ten bytes.
#[inline]
pub(super) fn varint(bytes: &[u8], at: usize) -> Option<(u64, usize)> {
    let mut value = 0u64;
    for (i, &byte) in bytes.get(at..)?.iter().take(10).enumerate() {
        // The tenth byte holds the 64th bit alone (prost refuses more).
        if i == 9 && byte > 1 {
            return None;
        }
        value |= u64::from(byte & 0x7F) << (7 * i);
        if byte & 0x80 == 0 {
            return Some((value, at + i + 1));
        }
    }
    None
}
