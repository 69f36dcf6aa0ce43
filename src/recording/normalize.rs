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

/// An event after normalisation, held as its text: a run of a long
/// capture costs about its size, not the size of its parsed values.
#[derive(Debug, Clone)]
pub struct NormalEvent {
    /// Where it is in its capture (the first piece's place, for joined
    /// pieces).
    pub origin: String,
    /// How many records it joins (1 unless pieces were joined).
    pub pieces: usize,
    /// Its `type`, or `?` for a record that has none.
    event_type: Box<str>,
    /// The event with ids mapped and volatile members dropped, as compact
    /// JSON in the order recorded; a record that is not JSON is held as a
    /// JSON string of its text.
    text: Box<str>,
    /// A 128-bit hash of the event's compact JSON with every object's
    /// members sorted by name: what is compared.
    pub key: u128,
}

impl NormalEvent {
    /// The event's `type`, or `?` for a record that has none.
    pub fn event_type(&self) -> &str {
        &self.event_type
    }

    /// The event with ids mapped and volatile members dropped.
    pub fn value(&self) -> Value {
        serde_json::from_str(&self.text).unwrap_or(Value::Null)
    }

    /// `value` made into one: its text kept, its key the hash of its
    /// sorted form.
    fn new(origin: String, pieces: usize, mut value: Value) -> NormalEvent {
        let event_type = value
            .get("type")
            .and_then(Value::as_str)
            .unwrap_or("?")
            .into();
        let text = serde_json::to_string(&value).unwrap_or_default().into();
        sort_members(&mut value);
        let mut hasher = Hasher(xxhash_rust::xxh3::Xxh3::new());
        let _ = serde_json::to_writer(&mut hasher, &value);
        NormalEvent {
            origin,
            pieces,
            event_type,
            text,
            key: hasher.0.digest128(),
        }
    }
}

/// Feeds what is written to a hasher.
struct Hasher(xxhash_rust::xxh3::Xxh3);

impl std::io::Write for Hasher {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0.update(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
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
    runs_of_events(
        capture.exchanges.iter().map(|exchange| {
            exchange.events.iter().map(|event| {
                let value = event.value.clone().unwrap_or_else(|| {
                    Value::String(String::from_utf8_lossy(&event.raw).into_owned())
                });
                (event.origin.clone(), value)
            })
        }),
        how,
    )
}

/// [`runs`] of a capture given up for them: each record's bytes are freed
/// as its event is normalised, so that the capture and its runs are not
/// held twice.
pub fn into_runs(capture: Capture, how: Normalization) -> Vec<Run> {
    runs_of_events(
        capture.exchanges.into_iter().map(|exchange| {
            exchange.events.into_iter().map(|event| {
                let value = event.value.unwrap_or_else(|| {
                    Value::String(String::from_utf8_lossy(&event.raw).into_owned())
                });
                (event.origin, value)
            })
        }),
        how,
    )
}

/// The runs of each exchange's events, each normalised as it ends.
fn runs_of_events<E, I>(exchanges: E, how: Normalization) -> Vec<Run>
where
    E: IntoIterator<Item = I>,
    I: IntoIterator<Item = (String, Value)>,
{
    let mut runs = Vec::new();
    for events in exchanges {
        // An exchange's events never continue the last exchange's run.
        let mut run: Vec<(String, Value)> = Vec::new();
        for (origin, value) in events {
            let starts = value.get("type").and_then(Value::as_str) == Some("RUN_STARTED");
            if starts && !run.is_empty() {
                runs.push(normalize_run(std::mem::take(&mut run), how));
            }
            run.push((origin, value));
        }
        if !run.is_empty() {
            runs.push(normalize_run(run, how));
        }
    }
    runs
}

/// One run's events, normalised.
fn normalize_run(events: Vec<(String, Value)>, how: Normalization) -> Run {
    let mut ids = IdMap::default();
    let mut out: Vec<(String, usize, Value)> = Vec::with_capacity(events.len());
    for (origin, mut value) in events {
        if let Value::Object(members) = &mut value {
            for volatile in VOLATILE {
                members.shift_remove(volatile);
            }
        }
        ids.map(&mut value, false);
        if how.join_pieces {
            if let Some((_, pieces, last)) = out.last_mut() {
                if joins(last, &value) {
                    if let (Some(Value::String(whole)), Some(Value::String(piece))) =
                        (last.get_mut("delta"), value.get("delta"))
                    {
                        whole.push_str(piece);
                        *pieces += 1;
                        continue;
                    }
                }
            }
        }
        out.push((origin, 1, value));
    }
    Run {
        events: out
            .into_iter()
            .map(|(origin, pieces, value)| NormalEvent::new(origin, pieces, value))
            .collect(),
    }
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
        let keys: Vec<String> = runs[0]
            .events
            .iter()
            .map(|e| {
                let mut value = e.value();
                sort_members(&mut value);
                value.to_string()
            })
            .collect();
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
        assert_eq!(joined[0].events[1].value()["delta"], "Hello");
        assert_eq!(joined[0].events[1].pieces, 2);
        assert_eq!(joined[0].events[1].origin, "line 2");
        let apart = runs_of(text, Normalization { join_pieces: false });
        assert_eq!(apart[0].events.len(), 4);
    }
}
