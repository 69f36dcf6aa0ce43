//! What a 1.x run streamed for each message, tool call and tool result, to
//! hold a later `MESSAGES_SNAPSHOT` of the same run to it
//! (`snapshot-contradicts-stream`).
//!
//! A `MESSAGES_SNAPSHOT` replaces a consumer's copy of each message by id
//! (`spec/1.1/events/state.mdx`, "MESSAGES_SNAPSHOT"), and "MAY restate the
//! message wholesale" (`events/text-messages.mdx`, "TEXT_MESSAGE_END"): a
//! snapshot that completes a message still streaming, or restates what an
//! earlier run streamed, is history superseded. What is reported is a
//! snapshot of the same run saying otherwise about what the run itself
//! streamed and closed: another role or tool name, other text, other
//! arguments (compared as JSON where both parse), another result. A client
//! that built the conversation from the events and one that took the
//! snapshot then disagree.
//!
//! Memory is bounded: text is held as its length and a digest fed piece by
//! piece, so a long message costs what a short one does, and a run holds
//! at most [`MAX_ITEMS`] messages, calls and results each. Arguments are
//! also kept as text, within [`MAX_KEPT`] a run, because they are compared
//! as JSON (spacing and key order aside), which a digest cannot do; past
//! the bound, arguments whose bytes differ are not compared.

use foldhash::{HashMap, HashSet};
use serde_json::Value;
use xxhash_rust::xxh3::xxh3_64;

use super::rolling::Rolling;

use super::event_type::EventType;
use super::here::{EventPlace, Here};
use super::snapshot::{self, SnapshotCall, SnapshotMessage};
use crate::diagnostic::Severity;
use crate::findings::Findings;
use crate::rules::{Rule, SINCE_1_0};

pub(super) const SNAPSHOT_CONTRADICTS_STREAM: Rule = Rule {
    name: "snapshot-contradicts-stream",
    severity: Severity::Warning,
    protocols: SINCE_1_0,
    severity_1x: None,
    summary: "A MESSAGES_SNAPSHOT says otherwise than the run streamed about the same message or tool call",
    docs: r#"## What it checks
AG-UI 1.x: a `MESSAGES_SNAPSHOT` replaces a consumer's copy of each message
by id (`spec/1.1/events/state.mdx`, "MESSAGES_SNAPSHOT"). Reported when a
snapshot entry contradicts what the same run streamed for that id and
closed: another role (`TEXT_MESSAGE_START`), other text
(`TEXT_MESSAGE_CONTENT`), another tool name or other arguments
(`TOOL_CALL_START`, `TOOL_CALL_ARGS`; arguments compared as JSON where both
parse, none streamed being the same as `{}`), or another tool result
(`TOOL_CALL_RESULT`). A snapshot that completes a message still streaming,
or restates what an earlier run streamed, is history superseded (a
snapshot "MAY restate the message wholesale", `events/text-messages.mdx`),
and is not reported. A run keeps at most 4 MiB of streamed text for the
comparison, and the first 16,384 messages, tool calls and tool results
(each); what does not fit is not compared.

## Why it matters
A client that builds the conversation from the events and one that takes
the snapshot now hold different conversations. ag-ui-langgraph 0.0.47
streams a backend tool call with no `TOOL_CALL_ARGS` while its own
snapshot carries the arguments: a client applying the events calls the
tool with none.

## Invalid
```json
[{"type": "RUN_STARTED", "threadId": "t1", "runId": "r1", "protocolVersion": "1.1"},
 {"type": "TOOL_CALL_START", "toolCallId": "c1", "toolCallName": "get_weather", "parentMessageId": "m1"},
 {"type": "TOOL_CALL_END", "toolCallId": "c1"},
 {"type": "MESSAGES_SNAPSHOT", "messages": [{"id": "m1", "role": "assistant", "toolCalls": [
   {"id": "c1", "type": "function", "function": {"name": "get_weather", "arguments": "{\"city\": \"Berlin\"}"}}]}]},
 {"type": "RUN_FINISHED", "threadId": "t1", "runId": "r1"}]
```

## Valid
```json
[{"type": "RUN_STARTED", "threadId": "t1", "runId": "r1", "protocolVersion": "1.1"},
 {"type": "TOOL_CALL_START", "toolCallId": "c1", "toolCallName": "get_weather", "parentMessageId": "m1"},
 {"type": "TOOL_CALL_ARGS", "toolCallId": "c1", "delta": "{\"city\":\"Berlin\"}"},
 {"type": "TOOL_CALL_END", "toolCallId": "c1"},
 {"type": "MESSAGES_SNAPSHOT", "messages": [{"id": "m1", "role": "assistant", "toolCalls": [
   {"id": "c1", "type": "function", "function": {"name": "get_weather", "arguments": "{\"city\": \"Berlin\"}"}}]}]},
 {"type": "RUN_FINISHED", "threadId": "t1", "runId": "r1"}]
```
"#,
};

pub(super) const SNAPSHOT_DROPS_STREAMING: Rule = Rule {
    name: "snapshot-drops-streaming",
    severity: Severity::Warning,
    protocols: SINCE_1_0,
    severity_1x: None,
    summary: "A MESSAGES_SNAPSHOT omits a message or tool call still streaming, which the client then drops",
    docs: r#"## What it checks
AG-UI 1.x: a `MESSAGES_SNAPSHOT` that arrives while a text message
(`TEXT_MESSAGE_START` without its `TEXT_MESSAGE_END` yet) or a tool call
(`TOOL_CALL_START` without its `TOOL_CALL_END`) is streaming, and holds no
message of that id, no tool call of that id. A consumer MUST replace its
copy with the snapshot (`spec/1.1/basic/patterns/snapshots.mdx`), so the
item being streamed is gone: `@ag-ui/client` 1.0.0 drops it with the text
or arguments streamed so far, and warns at each of its later events ("No
message found with ID"). A snapshot that omits a message already ended
replaces it as the snapshot may, and is not reported; reasoning messages,
which the client keeps when a snapshot omits them, are not either.

## Why it matters
The answer the user was reading, or the tool call about to run,
disappears mid-stream: the rest of its text or arguments has nowhere to
go. A producer that snapshots mid-stream includes the item being streamed,
or ends it first.

## Invalid
```json
[{"type": "RUN_STARTED", "threadId": "t1", "runId": "r1", "protocolVersion": "1.1"},
 {"type": "TEXT_MESSAGE_START", "messageId": "m1", "role": "assistant"},
 {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m1", "delta": "Hel"},
 {"type": "MESSAGES_SNAPSHOT", "messages": []},
 {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m1", "delta": "lo"},
 {"type": "TEXT_MESSAGE_END", "messageId": "m1"},
 {"type": "RUN_FINISHED", "threadId": "t1", "runId": "r1"}]
```

## Valid
```json
[{"type": "RUN_STARTED", "threadId": "t1", "runId": "r1", "protocolVersion": "1.1"},
 {"type": "TEXT_MESSAGE_START", "messageId": "m1", "role": "assistant"},
 {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m1", "delta": "Hel"},
 {"type": "MESSAGES_SNAPSHOT", "messages": [{"id": "m1", "role": "assistant", "content": "Hel"}]},
 {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m1", "delta": "lo"},
 {"type": "TEXT_MESSAGE_END", "messageId": "m1"},
 {"type": "RUN_FINISHED", "threadId": "t1", "runId": "r1"}]
```
"#,
};

/// The most argument text, and structured tool results, a run keeps for
/// comparing as JSON.
const MAX_KEPT: usize = 1 << 20;

/// The digest of text still streaming, or of text complete.
#[derive(Debug)]
enum Digest {
    Streaming(Rolling),
    Complete(u64),
}

/// Text streamed in pieces, as far as it is known.
#[derive(Debug)]
struct Text {
    /// Its length in bytes and characters.
    bytes: usize,
    chars: usize,
    /// `None` once a piece arrived after the text was complete: what the
    /// stream holds is then no longer one text.
    digest: Option<Digest>,
    /// The text itself, where it is kept.
    kept: Option<String>,
}

impl Text {
    fn new(keep: bool) -> Text {
        Text {
            bytes: 0,
            chars: 0,
            digest: Some(Digest::Streaming(Rolling::default())),
            kept: keep.then(String::new),
        }
    }

    /// Appends `piece`, keeping the text while `budget` (the run's bytes
    /// kept so far) allows.
    fn append(&mut self, piece: &str, budget: &mut usize) {
        match &mut self.digest {
            Some(Digest::Streaming(digest)) => digest.update(piece.as_bytes()),
            _ => {
                self.digest = None;
                self.kept = None;
                return;
            }
        }
        self.bytes += piece.len();
        self.chars += piece.chars().count();
        if let Some(kept) = &mut self.kept {
            if *budget + piece.len() > MAX_KEPT {
                *budget -= kept.len();
                self.kept = None;
            } else {
                *budget += piece.len();
                kept.push_str(piece);
            }
        }
    }

    /// The text is complete: its digest is all that is needed of it.
    fn complete(&mut self) {
        if let Some(Digest::Streaming(digest)) = &self.digest {
            self.digest = Some(Digest::Complete(digest.digest()));
        }
    }

    /// Whether `said` is this text, byte for byte; `None` when the text is
    /// not known.
    fn is(&self, said: &str) -> Option<bool> {
        let digest = match self.digest.as_ref()? {
            Digest::Streaming(digest) => digest.digest(),
            Digest::Complete(digest) => *digest,
        };
        Some(said.len() == self.bytes && Rolling::of(said.as_bytes()) == digest)
    }

    /// Whether `said` begins with this text; `None` when the text is not
    /// known.
    fn begins(&self, said: &str) -> Option<bool> {
        match said.get(..self.bytes) {
            Some(head) => self.is(head),
            None => self.digest.as_ref().map(|_| false),
        }
    }
}

#[derive(Debug)]
struct Message {
    role: Option<String>,
    text: Text,
    ended: bool,
    /// Streaming since a `TEXT_MESSAGE_START` (not a chunk), not ended.
    by_start: bool,
    start: EventPlace,
}

#[derive(Debug)]
struct Call {
    name: Option<String>,
    arguments: Text,
    ended: bool,
    /// Streaming since a `TOOL_CALL_START` (not a chunk), not ended.
    by_start: bool,
    start: EventPlace,
}

#[derive(Debug)]
struct ToolResult {
    call: String,
    content: Content,
    place: EventPlace,
}

/// A tool result's content: text by its digest, anything else as it was,
/// since JSON values are equal whatever the order of their members.
#[derive(Debug)]
enum Content {
    Text(u64),
    Structured(Value),
}

impl Content {
    fn is(&self, said: &snapshot::Content<'_>) -> bool {
        match (self, said.as_str()) {
            (Content::Text(digest), Some(text)) => xxh3_64(text.as_bytes()) == *digest,
            (Content::Structured(content), _) => said.value().is_some_and(|said| *content == *said),
            _ => false,
        }
    }
}

/// The most messages, tool calls and tool results (each) a run holds a
/// snapshot to. A run streaming more leaves the rest uncompared: memory
/// stays bounded (about 300 bytes each) whatever a stream sends.
const MAX_ITEMS: usize = 1 << 14;

/// What the current run streamed.
#[derive(Debug, Default)]
pub(super) struct Streamed {
    messages: HashMap<String, Message>,
    calls: HashMap<String, Call>,
    results: HashMap<String, ToolResult>,
    /// Bytes of argument text and structured results kept.
    kept: usize,
    /// How many messages and tool calls opened by their start event are
    /// not yet ended (`snapshot-drops-streaming`; chunks are ended by the
    /// client before any other event): a snapshot looks for them only when
    /// there are some.
    streaming: usize,
}

impl Streamed {
    /// A run starts: what the last one streamed is history.
    pub(super) fn clear(&mut self) {
        *self = Streamed::default();
    }

    /// 1.x: keeps what the run's messages, tool calls and results stream,
    /// and holds a `MESSAGES_SNAPSHOT` to it. (Chunks feed it through the
    /// dispatcher, which knows what a chunk opened.)
    pub(super) fn event(&mut self, at: &Here<'_>, out: &mut impl Findings) {
        let place = at.place;
        match at.kind {
            EventType::MessagesSnapshot => {
                if let Some(messages) = at.messages() {
                    self.compare(messages, at, out);
                    self.dropped(messages, at, out);
                }
            }
            EventType::ToolCallResult => {
                // The content, the largest member, is read only for a
                // result that names both ids.
                if let (Some(id), Some(message)) = (at.str("toolCallId"), at.str("messageId")) {
                    if let Some(content) = at.event.get("content") {
                        self.result(message, id, &content, place);
                    }
                }
            }
            EventType::ToolCallStart => {
                if let Some(id) = at.str("toolCallId") {
                    self.call_started(id, at.str("toolCallName"), place);
                    if let Some(call) = self.calls.get_mut(id) {
                        self.streaming += usize::from(!call.by_start);
                        call.by_start = true;
                    }
                }
            }
            EventType::ToolCallArgs => {
                if let (Some(id), Some(delta)) = (at.str("toolCallId"), at.str("delta")) {
                    self.call_delta(id, delta);
                }
            }
            EventType::ToolCallEnd => {
                if let Some(id) = at.str("toolCallId") {
                    self.call_ended(id);
                }
            }
            EventType::TextMessageStart => {
                if let Some(id) = at.str("messageId") {
                    self.message_started(id, at.str("role"), place);
                    if let Some(message) = self.messages.get_mut(id) {
                        self.streaming += usize::from(!message.by_start);
                        message.by_start = true;
                    }
                }
            }
            EventType::TextMessageContent => {
                if let (Some(id), Some(delta)) = (at.str("messageId"), at.str("delta")) {
                    self.message_delta(id, delta);
                }
            }
            EventType::TextMessageEnd => {
                if let Some(id) = at.str("messageId") {
                    self.message_ended(id);
                }
            }
            _ => {}
        }
    }

    /// `TEXT_MESSAGE_START`, or the first chunk of a message.
    pub(super) fn message_started(&mut self, id: &str, role: Option<&str>, at: &EventPlace) {
        if self.messages.len() >= MAX_ITEMS && !self.messages.contains_key(id) {
            return;
        }
        self.messages
            .entry(id.to_string())
            .or_insert_with(|| Message {
                role: Some(role.unwrap_or("assistant").to_string()),
                text: Text::new(false),
                ended: false,
                by_start: false,
                start: at.clone(),
            })
            .ended = false;
    }

    /// A piece of a message's text.
    pub(super) fn message_delta(&mut self, id: &str, delta: &str) {
        if let Some(message) = self.messages.get_mut(id) {
            message.text.append(delta, &mut self.kept);
        }
    }

    /// `TEXT_MESSAGE_END`.
    fn message_ended(&mut self, id: &str) {
        if let Some(message) = self.messages.get_mut(id) {
            message.ended = true;
            message.text.complete();
            if std::mem::take(&mut message.by_start) {
                self.streaming -= 1;
            }
        }
    }

    /// `TOOL_CALL_START`, or the first chunk of a call.
    pub(super) fn call_started(&mut self, id: &str, name: Option<&str>, at: &EventPlace) {
        if self.calls.len() >= MAX_ITEMS && !self.calls.contains_key(id) {
            return;
        }
        self.calls
            .entry(id.to_string())
            .or_insert_with(|| Call {
                name: name.map(str::to_string),
                arguments: Text::new(true),
                ended: false,
                by_start: false,
                start: at.clone(),
            })
            .ended = false;
    }

    /// A piece of a call's arguments.
    pub(super) fn call_delta(&mut self, id: &str, delta: &str) {
        if let Some(call) = self.calls.get_mut(id) {
            call.arguments.append(delta, &mut self.kept);
        }
    }

    /// `TOOL_CALL_END`.
    fn call_ended(&mut self, id: &str) {
        if let Some(call) = self.calls.get_mut(id) {
            call.ended = true;
            call.arguments.complete();
            if std::mem::take(&mut call.by_start) {
                self.streaming -= 1;
            }
        }
    }

    /// `TOOL_CALL_RESULT`: the tool message `message` with `content`
    /// answering `call`.
    fn result(&mut self, message: &str, call: &str, content: &Value, at: &EventPlace) {
        if self.results.len() >= MAX_ITEMS && !self.results.contains_key(message) {
            return;
        }
        let content = match content {
            Value::String(text) => Content::Text(xxh3_64(text.as_bytes())),
            structured => {
                let room = MAX_KEPT.saturating_sub(self.kept);
                let (size, whole) = super::patch::size_of(structured, room as u64);
                let size = usize::try_from(size).unwrap_or(usize::MAX);
                if !whole || size > room {
                    return;
                }
                self.kept += size;
                Content::Structured(structured.clone())
            }
        };
        self.results.insert(
            message.to_string(),
            ToolResult {
                call: call.to_string(),
                content,
                place: at.clone(),
            },
        );
    }

    /// Holds `messages`, a `MESSAGES_SNAPSHOT`'s, to what the run streamed.
    fn compare(&self, messages: &[SnapshotMessage<'_>], at: &Here<'_>, out: &mut impl Findings) {
        if self.messages.is_empty() && self.calls.is_empty() && self.results.is_empty() {
            return;
        }
        for (index, message) in messages.iter().enumerate() {
            // Made only for a message the run streamed.
            let here = || format!("/messages/{index}");
            let Some(id) = message.id.as_deref() else {
                continue;
            };
            let role = message.role.as_deref();
            if let Some(streamed) = self.messages.get(id) {
                self.compare_message(message, streamed, role, &here(), at, out);
            }
            if role == Some("tool") {
                if let Some(result) = self.results.get(id) {
                    compare_result(message, result, &here(), at, out);
                }
            }
            for (position, call) in message.tool_calls.iter().enumerate() {
                let Some(streamed) = call.id.as_deref().and_then(|id| self.calls.get(id)) else {
                    continue;
                };
                compare_call(
                    call,
                    streamed,
                    &format!("{}/toolCalls/{position}", here()),
                    at,
                    out,
                );
            }
        }
    }

    /// Reports each text message and tool call still streaming that
    /// `messages`, a `MESSAGES_SNAPSHOT`'s, omits: the client drops it.
    fn dropped(&self, messages: &[SnapshotMessage<'_>], at: &Here<'_>, out: &mut impl Findings) {
        if self.streaming == 0 {
            return;
        }
        let held: HashSet<&str> = messages.iter().filter_map(|m| m.id.as_deref()).collect();
        let calls: HashSet<&str> = messages
            .iter()
            .flat_map(|m| m.tool_calls.iter().filter_map(|c| c.id.as_deref()))
            .collect();
        let mut omitted: Vec<(&str, &str, &EventPlace)> = self
            .messages
            .iter()
            .filter(|(id, m)| m.by_start && !held.contains(id.as_str()))
            .map(|(id, m)| ("message", id.as_str(), &m.start))
            .chain(
                self.calls
                    .iter()
                    .filter(|(id, c)| c.by_start && !calls.contains(id.as_str()))
                    .map(|(id, c)| ("tool call", id.as_str(), &c.start)),
            )
            .collect();
        // In the order they started, whatever the maps'.
        omitted.sort_by_key(|(_, _, place)| place.index);
        for (what, id, started) in omitted {
            let lost = if what == "message" {
                "text"
            } else {
                "arguments"
            };
            out.add(&SNAPSHOT_DROPS_STREAMING, |rule| {
                at.finding(
                    rule,
                    "/messages",
                    format!("the snapshot omits {what} '{id}', still streaming: @ag-ui/client drops it with its {lost} so far, and the rest has nowhere to go"),
                )
                .with_help(format!("include the {what} being streamed in the snapshot, or end it before the snapshot"))
                .with_note(started.note("it started streaming here"))
            });
        }
    }

    fn compare_message(
        &self,
        message: &SnapshotMessage<'_>,
        streamed: &Message,
        role: Option<&str>,
        here: &str,
        at: &Here<'_>,
        out: &mut impl Findings,
    ) {
        if let (Some(said), Some(was)) = (role, &streamed.role) {
            if said != was {
                report(at, out, &format!("{here}/role"), format!("the snapshot gives message '{}' role '{said}', the stream streamed it as '{was}'", id_of(message)), &streamed.start);
                return;
            }
        }
        let Some(content) = message.content.as_ref().and_then(snapshot::Content::as_str) else {
            return;
        };
        let text = &streamed.text;
        let agrees = if streamed.ended {
            text.is(content)
        } else {
            // A message still streaming may be completed by the snapshot.
            text.begins(content)
        };
        if agrees == Some(false) {
            report(
                at,
                out,
                &format!("{here}/content"),
                format!(
                    "the snapshot's content of message '{}' ({} characters) is not the text the run streamed for it ({} characters)",
                    id_of(message),
                    content.chars().count(),
                    text.chars
                ),
                &streamed.start,
            );
        }
    }
}

fn id_of<'m>(message: &'m SnapshotMessage<'_>) -> &'m str {
    message.id.as_deref().unwrap_or_default()
}

fn compare_call(
    call: &SnapshotCall<'_>,
    streamed: &Call,
    here: &str,
    at: &Here<'_>,
    out: &mut impl Findings,
) {
    let id = call.id.as_deref().unwrap_or_default();
    let function = call.function.as_ref();
    let name = function.and_then(|f| f.name.as_deref());
    if let (Some(said), Some(was)) = (name, &streamed.name) {
        if said != was {
            report(
                at,
                out,
                &format!("{here}/function/name"),
                format!("the snapshot names tool call '{id}' '{said}', the stream '{was}'"),
                &streamed.start,
            );
            return;
        }
    }
    let Some(said) = function.and_then(|f| f.arguments.as_deref()) else {
        return;
    };
    let was = &streamed.arguments;
    let agrees = match (&was.kept, streamed.ended) {
        (Some(kept), true) => Some(same_arguments(said, kept)),
        (Some(kept), false) => Some(said.starts_with(kept.as_str())),
        // Without the text, only the same bytes are known to agree.
        (None, true) => was.is(said).filter(|same| *same),
        (None, false) => was.begins(said),
    };
    if agrees == Some(false) {
        let streamed_text = match &was.kept {
            Some(kept) if kept.is_empty() => "no arguments (no TOOL_CALL_ARGS)".to_string(),
            Some(kept) => format!("arguments '{}'", crate::text::excerpt(kept)),
            None => format!("{} bytes of arguments that do not begin it", was.bytes),
        };
        report(
            at,
            out,
            &format!("{here}/function/arguments"),
            format!(
                "the snapshot gives tool call '{id}' the arguments '{}', the run streamed {streamed_text}",
                crate::text::excerpt(said)
            ),
            &streamed.start,
        );
    }
}

/// Whether `said` and `was`, argument texts, mean the same: equal as JSON
/// where both parse (spacing and key order aside), else as text; no
/// arguments streamed is the same as an empty object.
fn same_arguments(said: &str, was: &str) -> bool {
    if said == was {
        return true;
    }
    let parse = |text: &str| serde_json::from_str::<Value>(text).ok();
    match (parse(said), parse(was)) {
        (Some(a), Some(b)) => a == b,
        (Some(Value::Object(members)), None) if was.trim().is_empty() => members.is_empty(),
        _ => false,
    }
}

fn compare_result(
    message: &SnapshotMessage<'_>,
    result: &ToolResult,
    here: &str,
    at: &Here<'_>,
    out: &mut impl Findings,
) {
    let id = id_of(message);
    if let Some(call) = message.tool_call_id.as_deref() {
        if call != result.call {
            report(
                at,
                out,
                &format!("{here}/toolCallId"),
                format!("the snapshot's tool message '{id}' answers tool call '{call}', the stream's TOOL_CALL_RESULT '{}'", result.call),
                &result.place,
            );
            return;
        }
    }
    if let Some(content) = &message.content {
        if !result.content.is(content) {
            report(
                at,
                out,
                &format!("{here}/content"),
                format!("the snapshot's content of tool message '{id}' is not the TOOL_CALL_RESULT the run streamed for it"),
                &result.place,
            );
        }
    }
}

fn report(
    at: &Here<'_>,
    out: &mut impl Findings,
    pointer: &str,
    message: String,
    streamed: &EventPlace,
) {
    out.add(&SNAPSHOT_CONTRADICTS_STREAM, |rule| {
        at.finding(rule, pointer, message)
            .with_help("a client that built the conversation from the events now holds something else than one that took the snapshot; stream what the snapshot says, or snapshot what was streamed")
            .with_note(streamed.note("what the stream said began here"))
    });
}
