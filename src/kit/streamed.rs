//! What one run's response streamed, read as `@ag-ui/client` 1.0.0 reads
//! it to build the next request: chunks expanded ([`super::chunks`]), the
//! conversation the client sends back ([`super::conversation`]), the state
//! (the request's, with snapshots and deltas applied within the stream
//! checker's budget), the calls of offered tools left unanswered, the
//! interrupts the run ended on, and the ids the run introduced.
//!
//! This is not the conformance check (the stream checker is): it reads
//! leniently, skipping what it cannot use, because the conversation must
//! go on even where the stream is wrong.

use std::collections::HashMap;

use serde_json::{json, Value};

use super::chunks::Chunks;
use super::conversation::Conversation;
use crate::input::sse::SseFramer;
use crate::rules::sequence::patch::{self, Budget, Refusal};

/// How a run's stream ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Ending {
    /// `RUN_FINISHED` with no outcome or the success outcome.
    Success,
    /// `RUN_FINISHED` with the interrupt outcome.
    Interrupt,
    /// `RUN_FINISHED` with the cancelled outcome.
    Cancelled,
    /// `RUN_ERROR`, with its message.
    Error(String),
    /// Neither: the stream ended (or was cut) with the run open, or never
    /// started one.
    Open,
}

/// One tool call the run made.
#[derive(Debug, Clone, Default)]
pub struct Call {
    /// `toolCallId`.
    pub id: String,
    /// `toolCallName`.
    pub name: String,
    /// The arguments, as streamed.
    pub arguments: String,
    /// Whether the run answered it itself (`TOOL_CALL_RESULT`).
    pub answered: bool,
}

/// What a run streamed.
#[derive(Debug, Clone)]
pub struct Streamed {
    /// The events the kit's judgments read (run boundaries,
    /// messages snapshots, state deltas), in order; the rest are applied
    /// and not kept, so that a long stream of content costs its text, not
    /// its parsed events.
    pub events: Vec<Value>,
    /// The type of every event that parsed as a JSON object, each once, in
    /// the order first seen.
    pub types: Vec<String>,
    /// How many events parsed as JSON objects.
    pub count: usize,
    /// The conversation after the run, as the official client sends it
    /// back (`kit/conversation.rs`).
    pub messages: Vec<Value>,
    /// Why the conversation was not followed to the run's end (it moved
    /// its messages more than the kit follows), when it was not.
    pub conversation_over: Option<String>,
    /// The state after the run: the request's with every snapshot and
    /// delta applied in order.
    pub state: Value,
    /// The first delta that did not apply, its event index (0-based) and
    /// why; the state stays as it was before it.
    pub state_error: Option<(usize, String)>,
    /// Where the state went over the stream checker's budget (its size
    /// limit, or the work its patches may cost), its event index and why:
    /// the state is kept as it was before, and later deltas are not
    /// applied.
    pub state_over: Option<(usize, String)>,
    /// Whether the run sent any state event.
    pub state_events: bool,
    /// The tool calls the run made, in order.
    pub calls: Vec<Call>,
    /// The interrupts of the run's `RUN_FINISHED`, when it ended on them.
    pub interrupts: Vec<Value>,
    /// How the run ended.
    pub ending: Ending,
    /// The ids of messages and tool calls the run opened (start events and
    /// results), in order.
    pub opened_ids: Vec<String>,
    /// The first event's `type`.
    pub first_type: Option<String>,
}

impl Streamed {
    /// Reads `body`, the response to `request` (a parsed RunAgentInput).
    /// SSE unless `json_lines`. The state is kept within the default state
    /// limit ([`crate::Limits::state_limit`]).
    pub fn read(request: &Value, body: &[u8], json_lines: bool) -> Streamed {
        let limit = crate::Limits::default().state_limit();
        Streamed::read_within(request, body, json_lines, limit)
    }

    /// [`Self::read`], the state kept within `state_limit` bytes and its
    /// patches within the work the stream checker allows them: the same
    /// budget, applied the same way, so that no state a server sends can
    /// take the kit further than `check`.
    pub fn read_within(
        request: &Value,
        body: &[u8],
        json_lines: bool,
        state_limit: usize,
    ) -> Streamed {
        // Moving messages (a snapshot, a result placed after its call) may
        // take work of the body's length in all (a unit a message moved or
        // indexed), and no more: the client's own way with a stream whose
        // every result answers its first call is quadratic.
        let allowance = (body.len() as u64).saturating_add(1 << 16);
        let mut reader = Reader::new(request, state_limit, allowance);
        let mut read = Read::default();
        let mut apply = |event: Value| {
            if !event.is_object() {
                return;
            }
            let kind = event.get("type").and_then(Value::as_str).unwrap_or("");
            read.saw(kind);
            for expanded in reader.chunks.expand(kind, &event) {
                reader.apply(read.count - 1, &expanded);
            }
            if KEPT.contains(&kind) {
                read.events.push(event);
            }
        };
        if json_lines {
            for line in body.split(|b| *b == b'\n') {
                if let Ok(event) = serde_json::from_slice::<Value>(line) {
                    apply(event);
                }
            }
        } else {
            for event in SseFramer::read(body) {
                let Ok(event) = event else { break };
                if let Ok(event) = serde_json::from_slice::<Value>(&event.data) {
                    apply(event);
                }
            }
        }
        let (messages, conversation_over) = reader.conversation.finish();
        Streamed {
            first_type: read.first_type,
            events: read.events,
            types: read.types,
            count: read.count,
            messages,
            conversation_over,
            state: reader.state,
            state_error: reader.state_error,
            state_over: reader.state_over,
            state_events: reader.state_events,
            calls: reader.calls,
            interrupts: reader.interrupts,
            ending: reader.ending,
            opened_ids: reader.opened_ids,
        }
    }

    /// The events of `type`: a run boundary, a messages snapshot or a
    /// state delta (the events kept).
    pub fn of_type<'a>(&'a self, kind: &'a str) -> impl Iterator<Item = &'a Value> + 'a {
        self.events
            .iter()
            .filter(move |e| e.get("type").and_then(Value::as_str) == Some(kind))
    }

    /// Whether the run streamed an event of `kind`, reading each chunk
    /// event as the events a consumer MUST expand it into
    /// (`spec/1.1/basic/patterns/streaming.mdx`): a `TEXT_MESSAGE_CHUNK`
    /// streams `TEXT_MESSAGE_START`, its `CONTENT` and `END`, and the
    /// same for tool calls and reasoning messages.
    pub fn streams(&self, kind: &str) -> bool {
        if self.types.iter().any(|t| t == kind) {
            return true;
        }
        let chunk = ["TEXT_MESSAGE", "TOOL_CALL", "REASONING_MESSAGE"]
            .into_iter()
            .find_map(|family| {
                let part = kind.strip_prefix(family)?.strip_prefix('_')?;
                let parts: &[&str] = if family == "TOOL_CALL" {
                    &["START", "ARGS", "END"]
                } else {
                    &["START", "CONTENT", "END"]
                };
                parts.contains(&part).then(|| format!("{family}_CHUNK"))
            });
        chunk.is_some_and(|chunk| self.types.contains(&chunk))
    }

    /// The calls of a tool `offered` that the run left unanswered.
    pub fn pending_calls<'a>(&'a self, offered: &'a [String]) -> impl Iterator<Item = &'a Call> {
        self.calls
            .iter()
            .filter(move |c| !c.answered && offered.contains(&c.name))
    }
}

/// The event types whose events a [`Streamed`] keeps.
const KEPT: &[&str] = &[
    "RUN_STARTED",
    "RUN_FINISHED",
    "RUN_ERROR",
    "MESSAGES_SNAPSHOT",
    "STATE_DELTA",
];

/// What was read of a stream's events: the kept ones, the types seen, the
/// count and the first type.
#[derive(Default)]
struct Read {
    events: Vec<Value>,
    types: Vec<String>,
    seen: std::collections::HashSet<String>,
    count: usize,
    first_type: Option<String>,
}

impl Read {
    /// Counts an event of type `kind`.
    fn saw(&mut self, kind: &str) {
        self.count += 1;
        if self.first_type.is_none() {
            self.first_type = Some(match kind {
                "" => "an event with no type".to_owned(),
                kind => kind.to_owned(),
            });
        }
        if !kind.is_empty() && self.seen.insert(kind.to_owned()) {
            self.types.push(kind.to_owned());
        }
    }
}

/// The state of reading one stream.
struct Reader {
    conversation: Conversation,
    chunks: Chunks,
    state: Value,
    state_error: Option<(usize, String)>,
    state_over: Option<(usize, String)>,
    state_events: bool,
    /// The state's size, as the budget counts it, and the budget.
    state_size: u64,
    budget: Budget,
    calls: Vec<Call>,
    interrupts: Vec<Value>,
    ending: Ending,
    opened_ids: Vec<String>,
    /// Where each call sits in `calls`.
    call_at: HashMap<String, usize>,
}

impl Reader {
    fn new(request: &Value, state_limit: usize, allowance: u64) -> Reader {
        let messages = request
            .get("messages")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        let mut reader = Reader {
            conversation: Conversation::new(messages, allowance),
            chunks: Chunks::default(),
            state: json!({}),
            state_error: None,
            state_over: None,
            state_events: false,
            state_size: 0,
            budget: Budget::new(u64::try_from(state_limit).unwrap_or(u64::MAX)),
            calls: Vec::new(),
            interrupts: Vec::new(),
            ending: Ending::Open,
            opened_ids: Vec::new(),
            call_at: HashMap::new(),
        };
        if let Some(state) = request.get("state") {
            reader.set_state(0, state);
        }
        reader
    }

    /// Applies event `n` (a chunk expanded): to the conversation, and to
    /// what the kit's judgments read (the calls, the ids opened, the state,
    /// how the run ended).
    fn apply(&mut self, n: usize, event: &Value) {
        let kind = event.get("type").and_then(Value::as_str).unwrap_or("");
        self.conversation.apply(kind, event);
        let text = |key: &str| event.get(key).and_then(Value::as_str).map(str::to_owned);
        match kind {
            "RUN_STARTED" => self.ending = Ending::Open,
            "RUN_FINISHED" => {
                let outcome = event.get("outcome");
                self.ending = match outcome.and_then(|o| o.get("type")).and_then(Value::as_str) {
                    Some("interrupt") => {
                        self.interrupts = outcome
                            .and_then(|o| o.get("interrupts"))
                            .and_then(Value::as_array)
                            .cloned()
                            .unwrap_or_default();
                        Ending::Interrupt
                    }
                    Some("cancelled") => Ending::Cancelled,
                    _ => Ending::Success,
                };
            }
            "RUN_ERROR" => self.ending = Ending::Error(text("message").unwrap_or_default()),
            // A start opens its message, even under an id the history has
            // (which is what `ids-unique-across-runs` looks for).
            "TEXT_MESSAGE_START" | "REASONING_MESSAGE_START" => {
                self.opened_ids.extend(text("messageId"));
            }
            "TOOL_CALL_START" => {
                let Some(id) = text("toolCallId") else { return };
                if !self.call_at.contains_key(&id) {
                    self.opened_ids.push(id.clone());
                    self.call_at.insert(id.clone(), self.calls.len());
                    self.calls.push(Call {
                        id: id.clone(),
                        ..Call::default()
                    });
                }
                if let (Some(name), Some(&at)) = (text("toolCallName"), self.call_at.get(&id)) {
                    self.calls[at].name = name;
                }
            }
            "TOOL_CALL_ARGS" => {
                if let (Some(id), Some(delta)) = (text("toolCallId"), text("delta")) {
                    if let Some(&at) = self.call_at.get(&id) {
                        self.calls[at].arguments.push_str(&delta);
                    }
                }
            }
            "TOOL_CALL_RESULT" => {
                let (Some(call), Some(id)) = (text("toolCallId"), text("messageId")) else {
                    return;
                };
                if let Some(&at) = self.call_at.get(&call) {
                    self.calls[at].answered = true;
                }
                self.opened_ids.push(id);
            }
            "STATE_SNAPSHOT" => {
                self.state_events = true;
                if let Some(snapshot) = event.get("snapshot") {
                    self.set_state(n, snapshot);
                }
            }
            "STATE_DELTA" => {
                self.state_events = true;
                self.delta(n, event);
            }
            _ => {}
        }
    }

    /// A `STATE_DELTA` applied as the client applies it: a patch that does
    /// not apply leaves the state as it was and later ones still apply
    /// (the first failure is kept, for `state-deltas-apply`); within the
    /// stream checker's budget, whose refusal ends the state's following.
    fn delta(&mut self, n: usize, event: &Value) {
        if self.state_over.is_some() {
            return;
        }
        let patch = event.get("delta").cloned().unwrap_or(Value::Null);
        let patch = match serde_json::from_value::<json_patch::Patch>(patch) {
            Ok(patch) => patch,
            Err(e) => {
                self.state_error
                    .get_or_insert((n, format!("not a JSON Patch: {e}")));
                return;
            }
        };
        // Applied in place; a patch that fails or is refused is undone
        // whole.
        match self
            .budget
            .apply(&mut self.state, &mut self.state_size, &patch.0)
        {
            Ok(()) => {}
            Err(Refusal::Failed { operation, kind }) => {
                self.state_error
                    .get_or_insert((n, format!("operation {operation}: {kind}")));
            }
            Err(Refusal::Over { operation, bound }) => {
                let what = match bound {
                    patch::Over::Size | patch::Over::Total => {
                        "would take the state over its size limit"
                    }
                    patch::Over::Work => {
                        "would take the stream's patches over the work they may cost"
                    }
                };
                self.state_over = Some((n, format!("operation {operation} {what}")));
            }
        }
    }

    /// Takes `state` (the request's, or a snapshot at event `n`) as the
    /// state, within the budget; a state over it is not kept, and says so.
    fn set_state(&mut self, n: usize, state: &Value) {
        let bytes = patch::measured(state);
        self.budget.release(std::mem::take(&mut self.state_size));
        if self.budget.take(bytes, 0).is_ok() {
            self.state = state.clone();
            self.state_size = bytes;
            self.state_over = None;
        } else {
            self.state = json!({});
            self.state_over = Some((
                n,
                format!(
                    "a state of about {} is over the limit of {}",
                    crate::text::size(bytes),
                    crate::text::size(self.budget.meter.limit)
                ),
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sse(events: &[Value]) -> Vec<u8> {
        events
            .iter()
            .map(|e| format!("data: {e}\n\n"))
            .collect::<String>()
            .into_bytes()
    }

    #[test]
    fn a_run_is_read_into_the_next_requests_conversation_and_state() {
        let request = json!({"threadId": "t", "runId": "r", "state": {"n": 1},
            "messages": [{"id": "u1", "role": "user", "content": "hi"}]});
        let body = sse(&[
            json!({"type": "RUN_STARTED", "threadId": "t", "runId": "r"}),
            json!({"type": "TEXT_MESSAGE_START", "messageId": "a1", "role": "assistant"}),
            json!({"type": "TEXT_MESSAGE_CONTENT", "messageId": "a1", "delta": "Checking."}),
            json!({"type": "TEXT_MESSAGE_END", "messageId": "a1"}),
            json!({"type": "TOOL_CALL_START", "toolCallId": "c1", "toolCallName": "get_weather", "parentMessageId": "a1"}),
            json!({"type": "TOOL_CALL_ARGS", "toolCallId": "c1", "delta": "{\"city\":"}),
            json!({"type": "TOOL_CALL_ARGS", "toolCallId": "c1", "delta": "\"Berlin\"}"}),
            json!({"type": "TOOL_CALL_END", "toolCallId": "c1"}),
            json!({"type": "STATE_DELTA", "delta": [{"op": "replace", "path": "/n", "value": 2}]}),
            json!({"type": "STATE_DELTA", "delta": [{"op": "remove", "path": "/missing"}]}),
            json!({"type": "RUN_FINISHED", "threadId": "t", "runId": "r"}),
        ]);
        let streamed = Streamed::read(&request, &body, false);
        assert_eq!(streamed.ending, Ending::Success);
        assert_eq!(streamed.messages.len(), 2);
        assert_eq!(streamed.messages[1]["content"], "Checking.");
        assert_eq!(
            streamed.messages[1]["toolCalls"][0]["function"]["arguments"],
            "{\"city\":\"Berlin\"}"
        );
        assert_eq!(
            streamed.messages[1]["toolCalls"][0]["function"]["name"],
            "get_weather"
        );
        assert_eq!(streamed.state, json!({"n": 2}));
        assert_eq!(streamed.state_error.as_ref().map(|e| e.0), Some(9));
        assert_eq!(streamed.opened_ids, ["a1", "c1"]);
        let offered = ["get_weather".to_owned()];
        assert_eq!(streamed.pending_calls(&offered).count(), 1);
        assert_eq!(streamed.first_type.as_deref(), Some("RUN_STARTED"));
    }

    #[test]
    fn a_state_is_kept_within_the_checkers_budget_and_never_panics() {
        // A move into the root, then a failing test: the patch is undone
        // whole (json_patch's own undo of it panics).
        let request = json!({"state": {"a": {"b": 1}, "c": 2}, "messages": []});
        let body = sse(&[
            json!({"type": "RUN_STARTED", "threadId": "t", "runId": "r"}),
            json!({"type": "STATE_DELTA", "delta": [
                {"op": "move", "from": "/a", "path": ""},
                {"op": "test", "path": "/x", "value": 1}]}),
            json!({"type": "RUN_FINISHED", "threadId": "t", "runId": "r"}),
        ]);
        let streamed = Streamed::read(&request, &body, false);
        assert_eq!(streamed.state, json!({"a": {"b": 1}, "c": 2}));
        assert_eq!(streamed.state_error.as_ref().map(|e| e.0), Some(1));
        // Root-copying deltas double the state each time: the budget
        // refuses them long before memory runs out.
        let mut events = vec![json!({"type": "RUN_STARTED", "threadId": "t", "runId": "r"})];
        for i in 0..40 {
            events.push(json!({"type": "STATE_DELTA",
                "delta": [{"op": "copy", "from": "", "path": format!("/c{i}")}]}));
        }
        let request = json!({"state": {"seed": "x".repeat(1000)}, "messages": []});
        let streamed = Streamed::read_within(&request, &sse(&events), false, 1 << 20);
        let (at, why) = streamed.state_over.expect("over the budget");
        assert!(at < 40, "{at}");
        assert!(why.contains("over"), "{why}");
        assert!(streamed.state.to_string().len() < 1 << 21);
        // A request's state over the limit is not kept either.
        let big = json!({"state": {"seed": "x".repeat(4096)}, "messages": []});
        let streamed = Streamed::read_within(&big, b"", false, 1024);
        assert!(streamed.state_over.is_some());
        assert_eq!(streamed.state, json!({}));
    }

    #[test]
    fn a_conversation_that_moves_too_much_is_no_longer_followed() {
        let mut events = vec![
            json!({"type": "RUN_STARTED", "threadId": "t", "runId": "r"}),
            json!({"type": "TOOL_CALL_START", "toolCallId": "c", "toolCallName": "f", "parentMessageId": "a"}),
            json!({"type": "TOOL_CALL_END", "toolCallId": "c"}),
        ];
        for i in 0..3000 {
            events.push(json!({"type": "TEXT_MESSAGE_START", "messageId": format!("m{i}")}));
        }
        for i in 0..3000 {
            events.push(json!({"type": "TOOL_CALL_RESULT", "messageId": format!("r{i}"), "toolCallId": "c", "content": ""}));
        }
        let streamed = Streamed::read(&json!({"messages": []}), &sse(&events), false);
        let why = streamed.conversation_over.expect("over");
        assert!(why.contains("moved its messages"), "{why}");
        // A few results are placed as the client places them.
        let short = Streamed::read(&json!({"messages": []}), &sse(&events[..10]), false);
        assert_eq!(short.conversation_over, None);
        assert_eq!(short.messages.len(), 8);
    }

    #[test]
    fn interrupts_errors_and_snapshots_are_read() {
        let request = json!({"messages": []});
        let body = sse(&[
            json!({"type": "RUN_STARTED", "threadId": "t", "runId": "r"}),
            json!({"type": "MESSAGES_SNAPSHOT", "messages": [{"id": "m", "role": "user", "content": "x"}]}),
            json!({"type": "RUN_FINISHED", "threadId": "t", "runId": "r",
                "outcome": {"type": "interrupt", "interrupts": [{"id": "i1", "reason": "approval"}]}}),
        ]);
        let streamed = Streamed::read(&request, &body, false);
        assert_eq!(streamed.ending, Ending::Interrupt);
        assert_eq!(streamed.interrupts[0]["id"], "i1");
        assert_eq!(streamed.messages.len(), 1);
        let failed = Streamed::read(
            &request,
            br#"{"type":"RUN_ERROR","message":"no key"}"#,
            true,
        );
        assert_eq!(failed.ending, Ending::Error("no key".into()));
        assert_eq!(Streamed::read(&request, b"", false).ending, Ending::Open);
    }
}
