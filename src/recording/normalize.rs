//! A capture's events as runs, with what differs between any two
//! recordings of the same run taken out: ids become `#1`, `#2` … in the
//! order they first appear in the run, and `timestamp` and `rawEvent` are
//! dropped. Text and tool-call arguments streamed in pieces are joined
//! (unless asked not to), because two recordings of one answer cut it into
//! different pieces.

use std::collections::HashMap;

use serde_json::Value;

use super::capture::Capture;

/// One run of a capture: the events from a `RUN_STARTED` to the next (the
/// events before a capture's first `RUN_STARTED` are a run of their own).
#[derive(Debug, Clone)]
pub struct Run {
    /// The events, normalised.
    pub events: Vec<NormalEvent>,
}

/// An event after normalisation.
#[derive(Debug, Clone)]
pub struct NormalEvent {
    /// Where it is in its capture (the first piece's place, for joined
    /// pieces).
    pub origin: String,
    /// How many records it joins (1 unless pieces were joined).
    pub pieces: usize,
    /// The event with ids mapped and volatile members dropped; a record
    /// that is not JSON is held as its text.
    pub value: Value,
    /// `value` as compact JSON text, members sorted by name: what is
    /// compared.
    pub key: String,
}

impl NormalEvent {
    /// The event's `type`, or `?` for a record that has none.
    pub fn event_type(&self) -> &str {
        self.value
            .get("type")
            .and_then(Value::as_str)
            .unwrap_or("?")
    }
}

/// How events are normalised.
#[derive(Debug, Clone, Copy)]
pub struct Normalization {
    /// Join consecutive pieces of one message's text, one tool call's
    /// arguments, one reasoning message's text.
    pub join_pieces: bool,
}

impl Default for Normalization {
    fn default() -> Self {
        Normalization { join_pieces: true }
    }
}

/// Members whose values differ between any two recordings of a run.
const VOLATILE: [&str; 2] = ["timestamp", "rawEvent"];

/// The events that carry a piece of something streamed, and the member
/// that says which thing it belongs to.
const PIECES: [(&str, &str); 5] = [
    ("TEXT_MESSAGE_CONTENT", "messageId"),
    ("TEXT_MESSAGE_CHUNK", "messageId"),
    ("TOOL_CALL_ARGS", "toolCallId"),
    ("TOOL_CALL_CHUNK", "toolCallId"),
    ("REASONING_MESSAGE_CONTENT", "messageId"),
];

/// The runs of `capture`, each normalised on its own.
pub fn runs(capture: &Capture, how: Normalization) -> Vec<Run> {
    let mut runs: Vec<Vec<(String, Value)>> = Vec::new();
    for exchange in &capture.exchanges {
        // An exchange's events never continue the last exchange's run.
        let mut run: Vec<(String, Value)> = Vec::new();
        for event in &exchange.events {
            let value = event
                .value
                .clone()
                .unwrap_or_else(|| Value::String(String::from_utf8_lossy(&event.raw).into_owned()));
            let starts = value.get("type").and_then(Value::as_str) == Some("RUN_STARTED");
            if starts && !run.is_empty() {
                runs.push(std::mem::take(&mut run));
            }
            run.push((event.origin.clone(), value));
        }
        if !run.is_empty() {
            runs.push(run);
        }
    }
    runs.into_iter()
        .map(|events| normalize_run(events, how))
        .collect()
}

/// One run's events, normalised.
fn normalize_run(events: Vec<(String, Value)>, how: Normalization) -> Run {
    let mut ids = IdMap::default();
    let mut out: Vec<NormalEvent> = Vec::with_capacity(events.len());
    for (origin, mut value) in events {
        if let Value::Object(members) = &mut value {
            for volatile in VOLATILE {
                members.shift_remove(volatile);
            }
        }
        ids.map(&mut value, false);
        if how.join_pieces {
            if let Some(last) = out.last_mut() {
                if joins(&last.value, &value) {
                    if let (Some(Value::String(whole)), Some(Value::String(piece))) =
                        (last.value.get_mut("delta"), value.get("delta"))
                    {
                        whole.push_str(piece);
                        last.pieces += 1;
                        continue;
                    }
                }
            }
        }
        out.push(NormalEvent {
            origin,
            pieces: 1,
            value,
            key: String::new(),
        });
    }
    for event in &mut out {
        let mut sorted = event.value.clone();
        sort_members(&mut sorted);
        event.key = serde_json::to_string(&sorted).unwrap_or_default();
    }
    Run { events: out }
}

/// Sorts every object's members by name, so that two events that differ
/// only in the order of their members compare equal (no receiver reads
/// meaning into that order).
fn sort_members(value: &mut Value) {
    match value {
        Value::Object(members) => {
            members.sort_keys();
            members.values_mut().for_each(sort_members);
        }
        Value::Array(items) => items.iter_mut().for_each(sort_members),
        _ => {}
    }
}

/// Whether `next` is the next piece of what `last` streams: the same
/// type of piece, of the same thing, and nothing else differing.
fn joins(last: &Value, next: &Value) -> bool {
    let (Some(Value::String(kind)), Some(Value::String(next_kind))) =
        (last.get("type"), next.get("type"))
    else {
        return false;
    };
    if kind != next_kind {
        return false;
    }
    let Some(&(_, owner)) = PIECES.iter().find(|(piece, _)| piece == kind) else {
        return false;
    };
    let (Value::Object(last), Value::Object(next)) = (last, next) else {
        return false;
    };
    if last.get(owner).is_none() || last.get(owner) != next.get(owner) {
        return false;
    }
    // Every other member of the next piece must be the same in the first
    // (a continuing chunk may leave out its role or name), so that joining
    // loses nothing.
    next.iter()
        .filter(|(name, _)| name.as_str() != "delta")
        .all(|(name, value)| last.get(name) == Some(value))
}

/// Ids named by first appearance.
#[derive(Debug, Default)]
struct IdMap {
    names: HashMap<String, String>,
}

impl IdMap {
    /// Replaces, everywhere in `value`, each string held by an id member
    /// (`id`, or a name ending in `Id`) with its name.
    fn map(&mut self, value: &mut Value, is_id: bool) {
        match value {
            Value::String(id) if is_id => {
                let next = self.names.len() + 1;
                let name = self
                    .names
                    .entry(std::mem::take(id))
                    .or_insert_with(|| format!("#{next}"));
                id.clone_from(name);
            }
            Value::Array(items) => {
                for item in items {
                    self.map(item, is_id);
                }
            }
            Value::Object(members) => {
                for (name, member) in members.iter_mut() {
                    self.map(member, name == "id" || name.ends_with("Id"));
                }
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::recording::capture::read_capture;
    use std::path::Path;

    fn runs_of(text: &str, how: Normalization) -> Vec<Run> {
        let capture = read_capture(text.as_bytes(), Path::new("c.jsonl")).expect("capture");
        runs(&capture, how)
    }

    #[test]
    fn ids_are_named_by_first_appearance_and_volatile_members_dropped() {
        let text = r#"{"type":"RUN_STARTED","threadId":"th-9","runId":"r-1","timestamp":17}
{"type":"TEXT_MESSAGE_START","messageId":"m-x","role":"assistant","rawEvent":{"a":1}}
{"type":"TEXT_MESSAGE_END","messageId":"m-x"}
{"type":"RUN_FINISHED","threadId":"th-9","runId":"r-1"}
"#;
        let runs = runs_of(text, Normalization::default());
        assert_eq!(runs.len(), 1);
        let keys: Vec<&str> = runs[0].events.iter().map(|e| e.key.as_str()).collect();
        assert_eq!(
            keys,
            [
                r##"{"runId":"#2","threadId":"#1","type":"RUN_STARTED"}"##,
                r##"{"messageId":"#3","role":"assistant","type":"TEXT_MESSAGE_START"}"##,
                r##"{"messageId":"#3","type":"TEXT_MESSAGE_END"}"##,
                r##"{"runId":"#2","threadId":"#1","type":"RUN_FINISHED"}"##,
            ]
        );
    }

    #[test]
    fn pieces_of_one_message_are_joined_unless_asked_not_to() {
        let text = r#"{"type":"RUN_STARTED","threadId":"t","runId":"r"}
{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"Hel"}
{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"lo"}
{"type":"TEXT_MESSAGE_CONTENT","messageId":"n","delta":"!"}
{"type":"RUN_STARTED","threadId":"t","runId":"r2"}
"#;
        let joined = runs_of(text, Normalization::default());
        assert_eq!(joined.len(), 2);
        assert_eq!(joined[0].events.len(), 3);
        assert_eq!(joined[0].events[1].value["delta"], "Hello");
        assert_eq!(joined[0].events[1].pieces, 2);
        assert_eq!(joined[0].events[1].origin, "line 2");
        let apart = runs_of(text, Normalization { join_pieces: false });
        assert_eq!(apart[0].events.len(), 4);
    }
}
