//! A `MESSAGES_SNAPSHOT` judged without the schema: its members but
//! `messages` read as every event's are ([`super::event`]), its messages
//! read as a request's are ([`super::borrowed`]) and held to the same
//! message shapes and rules ([`super::shape`], [`super::checks`]).
//!
//! A snapshot restates the conversation, so it is among the largest events
//! a stream carries (a fifth of the bytes of the traffic-shaped benchmark
//! capture), and its messages are the one member the event slots do not
//! read. The full path checks it against the whole event schema and runs
//! every rule on a `Value`; this judge says, at a fraction of that, when
//! the full path would report nothing, and hands the event over as read,
//! its messages as their text, which the sequence rules read without a
//! `Value` (`crate::rules::sequence`).

use super::borrowed::read_messages;
use super::checks::judge_snapshot;
use super::event::EventShapes;
use super::members::Event;
use crate::locate::Anchors;
use crate::rules::view::AnyFound;
use crate::rules::ReadEvent;
use crate::{Limits, Protocol};

/// Whether `bytes` start as the judge reads a `MESSAGES_SNAPSHOT`: its
/// `type` first, unescaped. The one test every other record pays, so that
/// a record which is no snapshot is not scanned again.
pub(super) fn is_tagged(bytes: &[u8]) -> bool {
    fn skip(bytes: &[u8]) -> &[u8] {
        let blank = bytes
            .iter()
            .take_while(|b| matches!(b, b' ' | b'\t' | b'\n' | b'\r'))
            .count();
        &bytes[blank..]
    }
    let mut rest = bytes;
    for token in [&b"{"[..], b"\"type\"", b":", b"\"MESSAGES_SNAPSHOT\""] {
        match skip(rest).strip_prefix(token) {
            Some(after) => rest = after,
            None => return false,
        }
    }
    true
}

/// The event `bytes` hold, a record of a stream judged by `protocol` that
/// [`super::read_clean_event`] did not read, when it is a
/// `MESSAGES_SNAPSHOT` the full path reports nothing about (on its own,
/// without the sequence rules), read against `shapes` within `limits`
/// (already held to their size and nesting bounds). Its `messages` are
/// kept as their source text.
pub(super) fn read_clean<'a>(
    shapes: &EventShapes,
    bytes: &'a [u8],
    limits: Limits,
    protocol: Protocol,
) -> Option<Event<'a>> {
    let event = shapes.read_messages_snapshot(bytes)?;
    // The unknown keys are findings: one is enough to refuse.
    let messages = read_messages(event.text("messages")?, 1)?;
    let mut found = AnyFound::default();
    let mut anchors = Anchors::new(bytes);
    let fits = judge_snapshot(messages, protocol, limits, &mut found, &mut anchors);
    (fits && !found.0).then_some(event)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{schema, Kind};

    fn judged(text: &str) -> bool {
        let protocol = Protocol::V1_1;
        let schema = schema::generate(protocol, Kind::Event).expect("event schema");
        let shapes = EventShapes::of_schema(&schema);
        read_clean(&shapes, text.as_bytes(), Limits::default(), protocol).is_some()
    }

    #[test]
    fn a_snapshot_is_told_by_its_first_member() {
        assert!(is_tagged(br#"{"type":"MESSAGES_SNAPSHOT","messages":[]}"#));
        assert!(is_tagged(b" {\n \"type\" : \"MESSAGES_SNAPSHOT\"}"));
        assert!(!is_tagged(
            br#"{"type":"MESSAGES_SNAPSHOTS","messages":[]}"#
        ));
        assert!(!is_tagged(br#"{"messages":[],"type":"MESSAGES_SNAPSHOT"}"#));
        assert!(!is_tagged(br#"{"type":"STATE_SNAPSHOT"}"#));
        assert!(!is_tagged(b""));
    }

    #[test]
    fn a_clean_snapshot_is_judged_clean_and_anything_found_is_not() {
        assert!(judged(
            r#"{"type":"MESSAGES_SNAPSHOT","messages":[{"id":"u","role":"user","content":"hi"},{"id":"a","role":"assistant","toolCalls":[{"id":"c","type":"function","function":{"name":"f","arguments":"{}"}}]},{"id":"t","role":"tool","toolCallId":"c","content":"ok"}],"timestamp":1}"#
        ));
        assert!(judged(r#"{"type":"MESSAGES_SNAPSHOT","messages":[]}"#));
        for refused in [
            // Rules: a repeated message id, a result of no call, an empty
            // user message.
            r#"{"type":"MESSAGES_SNAPSHOT","messages":[{"id":"u","role":"user","content":"hi"},{"id":"u","role":"user","content":"again"}]}"#,
            r#"{"type":"MESSAGES_SNAPSHOT","messages":[{"id":"t","role":"tool","toolCallId":"nope","content":"ok"}]}"#,
            r#"{"type":"MESSAGES_SNAPSHOT","messages":[{"id":"u","role":"user","content":""}]}"#,
            // The schema: an unknown key, a missing one, a wrong type.
            r#"{"type":"MESSAGES_SNAPSHOT","messages":[{"id":"u","role":"user","content":"hi","extra":1}]}"#,
            r#"{"type":"MESSAGES_SNAPSHOT","messages":[{"role":"user","content":"hi"}]}"#,
            r#"{"type":"MESSAGES_SNAPSHOT","messages":{"id":"u"}}"#,
            r#"{"type":"MESSAGES_SNAPSHOT","messages":[],"extra":1}"#,
            r#"{"type":"MESSAGES_SNAPSHOT"}"#,
            // The parse layer: a repeated key.
            r#"{"type":"MESSAGES_SNAPSHOT","messages":[{"id":"u","id":"v","role":"user","content":"hi"}]}"#,
            // Another type.
            r#"{"type":"STATE_SNAPSHOT","snapshot":{}}"#,
        ] {
            assert!(!judged(refused), "{refused}");
        }
    }
}
