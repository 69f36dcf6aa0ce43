//! Sequence rules: how the events of a stream must follow each other
//! (`spec/concepts-events.md`, and the state and reasoning pages).
//!
//! A stream is checked in one pass. [`Sequence`] keeps only what is open (the
//! run, messages, tool calls with their argument text, steps, reasoning
//! blocks) and the state built from snapshots and deltas, so memory is
//! bounded by that open state and never by the length of the capture.
//!
//! Each event is judged by the protocol version its report names. The
//! pre-1.0 profile keeps the rules it was written with; AG-UI 1.0 and 1.1
//! add the normative processing rules (`spec/1.1/basic/`, `spec/1.1/events/`):
//! runs after `RUN_ERROR`, ids across the runs of one stream, chunk streams
//! per owner lane ([`chunks`]), subagents, interrupts ([`outcome`]) and
//! activity messages ([`activity`]). Everything a run opens is forgotten when
//! it ends, so no finding carries one run's state into the next.
//!
//! Findings about an event point at it; the earlier event involved (the
//! start that was never ended, the run that is still active) is a related
//! note, located in the same document or, for a stream of separate
//! documents, in the record that holds it.

use foldhash::{HashMap, HashSet};
use std::borrow::Cow;

use serde_json::Value;

mod activity;
mod catalog;
mod catalog_v1;
mod chunks;
mod held;
mod outcome;
mod patch;
mod streamed;
mod view;

pub(crate) use outcome::check_resume;
pub(crate) use view::{EventView, ReadEvent};

use catalog::*;
use catalog_v1::*;

use super::Rule;
use crate::diagnostic::{Diagnostic, Related, Target};
use crate::findings::Findings;
use crate::{Location, Protocol};

/// The rules of this family, in documentation order.
pub(super) const RULES: &[Rule] = &[
    EVENT_BEFORE_RUN_STARTED,
    RUN_STARTED_WHILE_ACTIVE,
    EVENT_AFTER_RUN_ERROR,
    EVENT_AFTER_RUN_FINISHED,
    RUN_FINISHED_ID_MISMATCH,
    RUN_FINISHED_WHILE_OPEN,
    STREAM_TRUNCATED,
    EVENT_WITHOUT_START,
    DUPLICATE_START,
    NEVER_ENDED,
    TOOL_CALL_ARGS_NOT_JSON,
    TOOL_CALL_RESULT_WITHOUT_START,
    STEP_FINISHED_WITHOUT_START,
    STEP_STARTED_TWICE,
    STEP_NEVER_FINISHED,
    FIRST_CHUNK_WITHOUT_ID,
    STATE_DELTA_INVALID_PATCH,
    STATE_DELTA_NOT_APPLICABLE,
    STATE_DELTA_BEFORE_SNAPSHOT,
    STATE_OVER_BUDGET,
    RUN_STARTED_OTHER_THREAD,
    RUN_ID_REUSED,
    PROTOCOL_VERSION_MISMATCH,
    PROTOCOL_VERSION_MISSING,
    SNAPSHOT_CONTRADICTS_STREAM,
    CHUNK_CONTRADICTS_OPENER,
    CHUNK_CONTINUATION_AMBIGUOUS,
    OWNER_MISMATCH,
    SUBAGENT_STARTED_LATE,
    SUBAGENT_ID_REUSED,
    SUBAGENT_PARENT_NOT_STARTED,
    INTERRUPT_ID_DUPLICATE,
    OUTCOME_TOOL_CALL_ANSWERED,
    RESUME_MISSING_INTERRUPT,
    RESUME_UNKNOWN_INTERRUPT,
    ACTIVITY_DELTA_WITHOUT_SNAPSHOT,
    ACTIVITY_DELTA_NOT_APPLICABLE,
    ACTIVITY_CONTENT_NOT_OBJECT,
];

/// How many ids of earlier runs (run ids) or of unannounced subagents a
/// stream remembers: memory stays bounded on a capture of any length.
const REMEMBERED_IDS: usize = 4096;

/// How the latest 1.x run of a stream finished: the interrupts the next
/// request on its thread must answer (none after a run that finished
/// otherwise).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Interrupted {
    /// The run's thread, when its `RUN_STARTED` named one.
    pub thread: Option<String>,
    /// The ids of the interrupts its `RUN_FINISHED` outcome carried.
    pub ids: Vec<String>,
}

/// Where an event is: for findings about it, and for notes that point back
/// at it from later events.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EventPlace {
    /// 1-based position of the event in its stream.
    pub index: usize,
    /// The record holding the event when the stream's events are separate
    /// documents (JSON Lines, SSE); `None` when they are elements of one
    /// array.
    pub record: Option<usize>,
    /// The event's pointer in its document: `""` for an event that is a
    /// document, `/3` for an element of an events array.
    pub pointer: String,
    /// Where the event starts, for notes from other records; `None` lets the
    /// validator locate the pointer in the same document.
    pub location: Option<Location>,
}

/// What kind of thing is open.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Opened {
    TextMessage,
    ToolCall,
    ReasoningPhase,
    ReasoningMessage,
    Step,
    Subagent,
}

impl Opened {
    fn describe(self, id: &str) -> String {
        match self {
            Opened::TextMessage => format!("text message '{id}'"),
            Opened::ToolCall => format!("tool call '{id}'"),
            Opened::ReasoningPhase => format!("reasoning phase '{id}'"),
            Opened::ReasoningMessage => format!("reasoning message '{id}'"),
            Opened::Step => format!("step '{id}'"),
            Opened::Subagent => format!("subagent '{id}'"),
        }
    }

    /// The event that would have ended it.
    fn end_event(self) -> &'static str {
        match self {
            Opened::TextMessage => "TEXT_MESSAGE_END",
            Opened::ToolCall => "TOOL_CALL_END",
            Opened::ReasoningPhase => "REASONING_END",
            Opened::ReasoningMessage => "REASONING_MESSAGE_END",
            Opened::Step => "STEP_FINISHED",
            Opened::Subagent => "SUBAGENT_FINISHED",
        }
    }
}

/// Positions of open items, one map per kind.
#[derive(Debug, Default)]
struct Index([HashMap<String, usize>; 6]);

impl Index {
    fn of(&self, kind: Opened) -> &HashMap<String, usize> {
        &self.0[kind as usize]
    }

    fn of_mut(&mut self, kind: Opened) -> &mut HashMap<String, usize> {
        &mut self.0[kind as usize]
    }

    fn positions_mut(&mut self) -> impl Iterator<Item = &mut usize> {
        self.0.iter_mut().flat_map(HashMap::values_mut)
    }

    fn clear(&mut self) {
        for map in &mut self.0 {
            map.clear();
        }
    }
}

/// Something open, and the event that opened it.
#[derive(Debug, Clone)]
struct Open {
    kind: Opened,
    id: String,
    start: EventPlace,
    start_type: String,
    /// The subagent the opener is attributed to (1.x).
    owner: Option<String>,
    /// Argument text of a tool call, concatenated so far.
    arguments: held::Arguments,
}

/// Where the stream's runs are.
#[derive(Debug, Clone)]
enum Run {
    /// No event yet.
    Empty,
    /// Events came, none of them started a run.
    NotStarted,
    Active {
        thread_id: Option<String>,
        run_id: Option<String>,
        start: EventPlace,
    },
    Finished {
        end: EventPlace,
        reported: bool,
    },
    Errored {
        end: EventPlace,
        reported: bool,
    },
}

/// The open state of one event stream, fed event by event.
#[derive(Debug)]
pub struct Sequence {
    run: Run,
    /// Open items by kind and id, in the order they opened (for reports).
    open: Vec<Open>,
    /// Positions in `open`, by kind and id: looked up by `&str` on every
    /// content event, without allocating.
    index: Index,
    /// Every tool call id started in the stream, for TOOL_CALL_RESULT.
    started_calls: HashSet<String>,
    /// The message or tool call that chunk events currently continue.
    text_chunk: Option<String>,
    reasoning_chunk: Option<String>,
    tool_chunk: Option<Open>,
    /// The state as built from snapshots and deltas; `None` when unknown.
    state: Option<Value>,
    /// The state's size in bytes, within `budget`.
    state_size: u64,
    /// Whether any base state was ever given.
    had_state: bool,
    /// What the state and the activity contents may take, and what
    /// applying the stream's patches may cost.
    budget: patch::Budget,
    last: Option<EventPlace>,
    /// The version that judged the latest event.
    protocol: Protocol,
    /// 1.x: the chunk streams of the current run, by owner lane.
    chunks: chunks::Chunks,
    /// What the open tool calls' argument text may hold, in all.
    arguments: std::sync::Arc<held::Pool>,
    /// 1.x: the thread the stream's latest run named, and where.
    thread: Option<(String, EventPlace)>,
    /// 1.x: the run ids of the stream's runs so far (at most
    /// [`REMEMBERED_IDS`]).
    run_ids: HashSet<String>,
    /// 1.x, this run: subagent invocations that finished, by id.
    subagents_done: HashMap<String, EventPlace>,
    /// 1.x, this run: subagent ids events were attributed to before any
    /// announcement.
    attributed: HashSet<String>,
    /// 1.x, this run: tool calls a TOOL_CALL_RESULT answered.
    answered: HashSet<String>,
    /// 1.x: activity messages and their content, across runs (messages
    /// accumulate).
    activities: activity::Activities,
    /// The version the request of a captured exchange declared.
    requested: Option<String>,
    /// What the request the stream answers tells: the tool calls its
    /// messages made and the state it carried (a run's baseline when its
    /// `RUN_STARTED` echoes no input).
    request: Option<Request>,
    /// 1.x, this run: where its `RUN_STARTED` was, while it declared no
    /// version and nothing has yet shown that it should have.
    undeclared: Option<EventPlace>,
    /// 1.x, this run: what it streamed for each message and tool call.
    streamed: streamed::Streamed,
    /// How the latest 1.x run finished, for the next request's resume.
    interrupted: Option<Interrupted>,
}

impl Default for Sequence {
    fn default() -> Self {
        Sequence::new()
    }
}

impl Sequence {
    /// An empty stream.
    pub fn new() -> Self {
        let arguments = held::Pool::new(crate::Limits::default().state_limit() as u64);
        Sequence {
            run: Run::Empty,
            open: Vec::new(),
            index: Index::default(),
            started_calls: HashSet::default(),
            text_chunk: None,
            reasoning_chunk: None,
            tool_chunk: None,
            state: None,
            state_size: 0,
            had_state: false,
            budget: patch::Budget::new(crate::Limits::default().state_limit() as u64),
            last: None,
            protocol: Protocol::NEWEST,
            chunks: chunks::Chunks::new(&arguments),
            arguments,
            thread: None,
            run_ids: HashSet::default(),
            subagents_done: HashMap::default(),
            attributed: HashSet::default(),
            answered: HashSet::default(),
            activities: activity::Activities::default(),
            requested: None,
            request: None,
            undeclared: None,
            streamed: streamed::Streamed::default(),
            interrupted: None,
        }
    }

    /// Pairs the stream with the `RunAgentInput` it answers: the tool calls
    /// its messages made are calls a result may answer, its state is the
    /// baseline of a run whose `RUN_STARTED` echoes no input, and its
    /// `protocolVersion` is what `RUN_STARTED` must declare.
    pub fn answer(&mut self, input: &Value) {
        if let Some(declared) = input.get("protocolVersion").and_then(Value::as_str) {
            self.expect_version(declared);
        }
        let mut calls: HashSet<String> = HashSet::default();
        for id in input
            .get("messages")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter(|m| m.get("role").and_then(Value::as_str) == Some("assistant"))
            .filter_map(|m| m.get("toolCalls").and_then(Value::as_array))
            .flatten()
            .filter_map(|c| c.get("id").and_then(Value::as_str))
        {
            calls.insert(id.to_string());
        }
        // Before 1.0 the calls a stream started are never forgotten.
        self.started_calls.extend(calls.iter().cloned());
        self.request = Some(Request {
            calls,
            state: input.get("state").filter(|s| !s.is_null()).cloned(),
        });
    }

    /// Holds the state and the activity contents to `bytes` in all (see
    /// `state-over-budget`); set before the stream's first event.
    pub fn limit_state(&mut self, bytes: usize) {
        let bytes = bytes as u64;
        self.arguments.set_limit(bytes);
        if self.budget.meter.limit != bytes {
            self.budget.meter = patch::Meter::new(bytes);
        }
    }

    /// How the stream's latest 1.x run finished or failed, if one did.
    pub fn interrupted(&self) -> Option<&Interrupted> {
        self.interrupted.as_ref()
    }

    /// The `protocolVersion` the request that asked for this stream
    /// declared: a 1.x `RUN_STARTED` declaring another is reported.
    pub fn expect_version(&mut self, declared: &str) {
        self.requested = Some(declared.to_string());
    }

    /// Checks one event, judged by `protocol`, against those before it.
    /// Events that are not objects with a string `type` are skipped: the
    /// schema reports them.
    pub fn event<'e>(
        &mut self,
        event: impl Into<EventView<'e>>,
        protocol: Protocol,
        place: &EventPlace,
        out: &mut impl Findings,
    ) {
        let event = event.into();
        let Some(kind) = event.str("type") else {
            return;
        };
        self.protocol = protocol;
        let v1 = protocol.is_1x();
        let at = Here {
            event,
            place,
            owner: event.str("subagentRunId"),
            protocol,
        };
        if v1 {
            self.close_chunks(kind, &at, out);
        }
        self.check_run(kind, &at, out);
        if v1 {
            self.uses_1x(kind, &at, out);
            self.attribution(kind, &at, out);
            if let Some(chunk) = chunks::ChunkKind::of(kind) {
                let chunked = self.chunks.chunk(chunk, &at, out);
                let delta = at.str("delta").unwrap_or_default();
                match (chunk, chunked) {
                    (chunks::ChunkKind::Tool, Some(chunks::Chunked::Opened(id))) => {
                        self.streamed
                            .call_started(&id, at.str("toolCallName"), place);
                        self.streamed.call_delta(&id, delta);
                        self.started_calls.insert(id);
                    }
                    (chunks::ChunkKind::Tool, Some(chunks::Chunked::Continued(id))) => {
                        self.streamed.call_delta(&id, delta);
                    }
                    (chunks::ChunkKind::Text, Some(chunks::Chunked::Opened(id))) => {
                        self.streamed.message_started(&id, at.str("role"), place);
                        self.streamed.message_delta(&id, delta);
                    }
                    (chunks::ChunkKind::Text, Some(chunks::Chunked::Continued(id))) => {
                        self.streamed.message_delta(&id, delta);
                    }
                    _ => {}
                }
                self.last = Some(place.clone());
                return;
            }
            match kind {
                "SUBAGENT_STARTED" => self.subagent_started(&at, out),
                "SUBAGENT_FINISHED" | "SUBAGENT_ERROR" => self.subagent_ended(kind, &at, out),
                "ACTIVITY_SNAPSHOT" => self.activities.snapshot(&at, &mut self.budget, out),
                "ACTIVITY_DELTA" => self.activities.delta(&at, &mut self.budget, out),
                "MESSAGES_SNAPSHOT" => {
                    if let Some(messages) = event.get("messages") {
                        self.streamed.compare(&messages, &at, out);
                        self.activities
                            .restate(&messages, &mut self.budget, &at, out);
                    }
                }
                "TOOL_CALL_RESULT" => {
                    if let Some(id) = at.str("toolCallId") {
                        self.answered.insert(id.to_string());
                        if let (Some(message), Some(content)) =
                            (at.str("messageId"), event.get("content"))
                        {
                            self.streamed.result(message, id, &content, place);
                        }
                    }
                }
                "TOOL_CALL_START" => {
                    self.tool_call_owner(&at, out);
                    if let Some(id) = at.str("toolCallId") {
                        self.streamed
                            .call_started(id, at.str("toolCallName"), place);
                    }
                }
                "TOOL_CALL_ARGS" => {
                    if let (Some(id), Some(delta)) = (at.str("toolCallId"), at.str("delta")) {
                        self.streamed.call_delta(id, delta);
                    }
                }
                "TOOL_CALL_END" => {
                    if let Some(id) = at.str("toolCallId") {
                        self.streamed.call_ended(id);
                    }
                }
                "TEXT_MESSAGE_START" => {
                    if let Some(id) = at.str("messageId") {
                        self.streamed.message_started(id, at.str("role"), place);
                    }
                }
                "TEXT_MESSAGE_CONTENT" => {
                    if let (Some(id), Some(delta)) = (at.str("messageId"), at.str("delta")) {
                        self.streamed.message_delta(id, delta);
                    }
                }
                "TEXT_MESSAGE_END" => {
                    if let Some(id) = at.str("messageId") {
                        self.streamed.message_ended(id);
                    }
                }
                _ => {}
            }
        }
        match kind {
            "TEXT_MESSAGE_START" => self.start(Opened::TextMessage, "messageId", kind, &at, out),
            "TEXT_MESSAGE_CONTENT" => self.touch(Opened::TextMessage, "messageId", kind, &at, out),
            "TEXT_MESSAGE_END" => {
                self.end(Opened::TextMessage, "messageId", kind, &at, out);
            }
            "TOOL_CALL_START" => {
                if let Some(id) = at.str("toolCallId") {
                    self.started_calls.insert(id.to_string());
                }
                self.start(Opened::ToolCall, "toolCallId", kind, &at, out);
            }
            "TOOL_CALL_ARGS" => self.touch(Opened::ToolCall, "toolCallId", kind, &at, out),
            "TOOL_CALL_END" => {
                if let Some(call) = self.end(Opened::ToolCall, "toolCallId", kind, &at, out) {
                    check_open_arguments(&call, &at, out);
                }
            }
            "REASONING_START" => self.start(Opened::ReasoningPhase, "messageId", kind, &at, out),
            "REASONING_END" => {
                self.end(Opened::ReasoningPhase, "messageId", kind, &at, out);
            }
            "REASONING_MESSAGE_START" => {
                self.start(Opened::ReasoningMessage, "messageId", kind, &at, out);
            }
            "REASONING_MESSAGE_CONTENT" => {
                self.touch(Opened::ReasoningMessage, "messageId", kind, &at, out);
            }
            "REASONING_MESSAGE_END" => {
                self.end(Opened::ReasoningMessage, "messageId", kind, &at, out);
            }
            "STEP_STARTED" => self.start(Opened::Step, "stepName", kind, &at, out),
            "STEP_FINISHED" => {
                self.end(Opened::Step, "stepName", kind, &at, out);
            }
            "TEXT_MESSAGE_CHUNK" => message_chunk(kind, &mut self.text_chunk, &at, out),
            "REASONING_MESSAGE_CHUNK" => {
                message_chunk(kind, &mut self.reasoning_chunk, &at, out);
            }
            "TOOL_CALL_CHUNK" => self.tool_chunk(&at, out),
            "TOOL_CALL_RESULT" => self.tool_result(&at, out),
            "MESSAGES_SNAPSHOT" => self.messages_snapshot(&at),
            "STATE_SNAPSHOT" => {
                let snapshot = event.get("snapshot").map(Cow::into_owned);
                self.set_state(snapshot, "/snapshot", &at, out);
            }
            "STATE_DELTA" => self.state_delta(&at, out),
            _ => {}
        }
        self.last = Some(place.clone());
    }

    /// Ends the stream: what is still open is reported on the last event.
    pub fn finish(&mut self, out: &mut impl Findings) {
        let Some(last) = self.last.clone() else {
            return;
        };
        let at = Here {
            event: EventView::Value(&Value::Null),
            place: &last,
            owner: None,
            protocol: self.protocol,
        };
        self.close_tool_chunk(&at, out);
        self.chunks.finish(&at, out);
        if let Run::Active { start, .. } = &self.run {
            out.push(
                at.finding(
                    &STREAM_TRUNCATED,
                    "",
                    "the stream ends while a run is active",
                )
                .with_help("end every run with RUN_FINISHED, or RUN_ERROR when it cannot finish")
                .with_related_place(start, "the run started here"),
            );
        }
        for open in std::mem::take(&mut self.open) {
            let (rule, help) = if open.kind == Opened::Step {
                (
                    &STEP_NEVER_FINISHED,
                    "send STEP_FINISHED with the same stepName",
                )
            } else {
                (&NEVER_ENDED, "")
            };
            let mut finding = at.finding(
                rule,
                "",
                format!(
                    "{} is never ended: the stream ends first",
                    open.kind.describe(&open.id)
                ),
            );
            finding = if help.is_empty() {
                finding.with_help(format!(
                    "send {} before the stream ends",
                    open.kind.end_event()
                ))
            } else {
                finding.with_help(help)
            };
            out.push(finding.with_related_place(&open.start, format!("{} here", open.start_type)));
        }
        self.index.clear();
    }

    /// Run boundaries: what may come first, after an error, after a finish.
    fn check_run(&mut self, kind: &str, at: &Here<'_>, out: &mut impl Findings) {
        match (&mut self.run, kind) {
            (Run::Empty, "RUN_STARTED") | (Run::NotStarted, "RUN_STARTED") => {
                self.start_run(at, out);
            }
            (Run::Empty, "RUN_ERROR") => {
                self.run = Run::Errored {
                    end: at.place.clone(),
                    reported: false,
                };
            }
            (Run::Empty, _) => {
                out.push(
                    at.finding(
                        &EVENT_BEFORE_RUN_STARTED,
                        "/type",
                        format!("the stream starts with {kind}, not RUN_STARTED"),
                    )
                    .with_help("start every run with RUN_STARTED (threadId, runId)"),
                );
                self.run = Run::NotStarted;
            }
            (Run::NotStarted, _) => {}
            (Run::Active { start, .. }, "RUN_STARTED") => {
                let start = start.clone();
                out.push(
                    at.finding(
                        &RUN_STARTED_WHILE_ACTIVE,
                        "/type",
                        "RUN_STARTED while the run before it is still active",
                    )
                    .with_help(
                        "end the run with RUN_FINISHED or RUN_ERROR before starting the next",
                    )
                    .with_related_place(&start, "the active run started here"),
                );
                self.start_run(at, out);
            }
            (Run::Active { .. }, "RUN_FINISHED") => self.finish_run(at, out),
            (Run::Active { .. }, "RUN_ERROR") => {
                self.clear_open();
                self.run = Run::Errored {
                    end: at.place.clone(),
                    reported: false,
                };
            }
            (Run::Active { .. }, _) => {}
            (Run::Finished { .. }, "RUN_STARTED") => self.start_run(at, out),
            // 1.x: a RUN_ERROR ends a run and a later RUN_STARTED begins a
            // new one; a RUN_ERROR after RUN_FINISHED reports a late
            // failure (`spec/1.1/events/lifecycle.mdx`, "After a run closes").
            (Run::Errored { .. }, "RUN_STARTED") if self.protocol.is_1x() => {
                self.start_run(at, out);
            }
            (Run::Finished { .. }, "RUN_ERROR") if self.protocol.is_1x() => {
                self.run = Run::Errored {
                    end: at.place.clone(),
                    reported: false,
                };
            }
            (Run::Finished { end, reported }, _) => {
                if !*reported {
                    *reported = true;
                    let end = end.clone();
                    out.push(
                        at.finding(
                            &EVENT_AFTER_RUN_FINISHED,
                            "/type",
                            format!("{kind} after RUN_FINISHED"),
                        )
                        .with_help("after RUN_FINISHED only a new RUN_STARTED may follow")
                        .with_related_place(&end, "the run finished here"),
                    );
                }
            }
            (Run::Errored { end, reported }, _) => {
                if !*reported {
                    *reported = true;
                    let end = end.clone();
                    let help = if at.protocol.is_1x() {
                        "RUN_ERROR ends the run: only a new run's RUN_STARTED may follow it"
                    } else {
                        "RUN_ERROR ends the run: nothing may follow it"
                    };
                    out.push(
                        at.finding(
                            &EVENT_AFTER_RUN_ERROR,
                            "/type",
                            format!("{kind} after RUN_ERROR"),
                        )
                        .with_help(help)
                        .with_related_place(&end, "the run ended with an error here"),
                    );
                }
            }
        }
    }

    fn start_run(&mut self, at: &Here<'_>, out: &mut impl Findings) {
        self.clear_open();
        self.undeclared = None;
        self.streamed.clear();
        if self.protocol.is_1x() {
            self.started_calls.clear();
            if let Some(request) = &self.request {
                self.started_calls.extend(request.calls.iter().cloned());
            }
            self.run_ids_and_thread(at, out);
        }
        self.run = Run::Active {
            thread_id: at.str("threadId").map(str::to_string),
            run_id: at.str("runId").map(str::to_string),
            start: at.place.clone(),
        };
        // The run's input carries the state the run starts from: the one
        // its RUN_STARTED echoes, else the request's (`spec/1.1/basic/
        // patterns/snapshots.mdx`, "Deltas": the state has a baseline from
        // the input).
        let input = at.event.get("input");
        match input.as_deref().and_then(|input| input.get("state")) {
            Some(state) => self.set_state(Some(state.clone()), "/input/state", at, out),
            None => {
                let requested = self.request.as_ref().and_then(|r| r.state.clone());
                if requested.is_some() {
                    self.set_state(requested, "", at, out);
                }
            }
        }
        if let Some(messages) = input.as_deref().and_then(|input| input.get("messages")) {
            self.remember_calls(messages);
        }
    }

    fn finish_run(&mut self, at: &Here<'_>, out: &mut impl Findings) {
        let Run::Active {
            thread_id,
            run_id,
            start,
        } = &self.run
        else {
            return;
        };
        for (key, expected) in [("threadId", thread_id), ("runId", run_id)] {
            let (Some(expected), Some(found)) = (expected, at.str(key)) else {
                continue;
            };
            if expected != found {
                out.push(
                    at.finding(
                        &RUN_FINISHED_ID_MISMATCH,
                        &format!("/{key}"),
                        format!("RUN_FINISHED has {key} '{found}', its RUN_STARTED '{expected}'"),
                    )
                    .with_help(format!("end the run with the {key} it started with"))
                    .with_related_place(start, "the run started here"),
                );
            }
        }
        let thread = thread_id.clone();
        self.close_tool_chunk(at, out);
        if self.protocol.is_1x() {
            outcome::check(at, &self.answered, out);
            self.interrupted = Some(Interrupted {
                thread,
                ids: outcome::interrupt_ids(at.event),
            });
        }
        for open in std::mem::take(&mut self.open) {
            out.push(
                at.finding(
                    &RUN_FINISHED_WHILE_OPEN,
                    "/type",
                    format!(
                        "RUN_FINISHED while {} is open",
                        open.kind.describe(&open.id)
                    ),
                )
                .with_help(format!(
                    "send {} before RUN_FINISHED",
                    open.kind.end_event()
                ))
                .with_related_place(&open.start, format!("{} here", open.start_type)),
            );
        }
        self.clear_open();
        self.run = Run::Finished {
            end: at.place.clone(),
            reported: false,
        };
    }

    /// Forgets what is open: a run ended, or a new one started.
    fn clear_open(&mut self) {
        self.open.clear();
        self.index.clear();
        self.text_chunk = None;
        self.reasoning_chunk = None;
        self.tool_chunk = None;
        self.chunks.clear();
        self.subagents_done.clear();
        self.attributed.clear();
        self.answered.clear();
    }

    /// 1.x: the runs of one stream are runs on one thread, each with its
    /// own id (`spec/1.1/events/lifecycle.mdx`, "Several runs on one
    /// stream"); a run declares the version its request asked for.
    fn run_ids_and_thread(&mut self, at: &Here<'_>, out: &mut impl Findings) {
        if let Some(thread) = at.str("threadId") {
            // Compared with the run before, so that a stream re-homed once
            // is reported once.
            match &self.thread {
                Some((first, place)) if first != thread => out.push(
                    at.finding(
                        &RUN_STARTED_OTHER_THREAD,
                        "/threadId",
                        format!("RUN_STARTED names thread '{thread}', the run before it thread '{first}'"),
                    )
                    .with_help("a stream carries runs of one thread; start a run on another thread in a stream of its own")
                    .with_related_place(place, "the run before started here"),
                ),
                _ => {}
            }
            self.thread = Some((thread.to_string(), at.place.clone()));
        }
        if let Some(run) = at.str("runId") {
            if self.run_ids.contains(run) {
                out.push(
                    at.finding(
                        &RUN_ID_REUSED,
                        "/runId",
                        format!("RUN_STARTED reuses runId '{run}' of an earlier run in the stream"),
                    )
                    .with_help("give every run its own runId: clients key a run's events and outcome by it"),
                );
            } else if self.run_ids.len() < REMEMBERED_IDS {
                self.run_ids.insert(run.to_string());
            }
        }
        let declaration = crate::rules::version::declared_by_run_started(at.event);
        if declaration.is_none() {
            match &self.requested {
                Some(requested) => out.add(&PROTOCOL_VERSION_MISSING, |rule| {
                    at.finding(
                        rule,
                        "",
                        format!("RUN_STARTED declares no protocolVersion, though its request declared '{requested}'"),
                    )
                    .with_help("an implementation of AG-UI 1.x must declare the version it speaks on RUN_STARTED (spec/1.1/basic/versioning.mdx, \"Version negotiation\")")
                }),
                // Reported if the run shows it is 1.x.
                None => self.undeclared = Some(at.place.clone()),
            }
        }
        if let (Some(requested), Some((pointer, declared))) = (&self.requested, declaration) {
            if requested != declared {
                out.push(
                    at.finding(
                        &PROTOCOL_VERSION_MISMATCH,
                        &pointer,
                        format!("RUN_STARTED declares protocolVersion '{declared}', its request '{requested}'"),
                    )
                    .with_help("the consumer proceeds under the version it speaks and warns; answer in the version the request declared"),
                );
            }
        }
        let echoed = at.event.get("input").and_then(|i| {
            i.get("protocolVersion")
                .and_then(Value::as_str)
                .map(str::to_string)
        });
        if let (Some(own), Some(input)) = (at.str("protocolVersion"), echoed) {
            if own != input {
                out.push(
                    at.finding(
                        &PROTOCOL_VERSION_MISMATCH,
                        "/protocolVersion",
                        format!("RUN_STARTED declares protocolVersion '{own}', the input it echoes '{input}'"),
                    )
                    .with_help("the producer declares its own version; echo the input as the consumer sent it"),
                );
            }
        }
    }

    /// 1.x: which chunk streams `type_` closes
    /// (`spec/1.1/basic/patterns/streaming.mdx`, "Closing a chunk stream").
    fn close_chunks(&mut self, type_: &str, at: &Here<'_>, out: &mut impl Findings) {
        let owner = at.owner();
        match type_ {
            "TEXT_MESSAGE_CHUNK" | "REASONING_MESSAGE_CHUNK" | "TOOL_CALL_CHUNK" => {}
            // RUN_ERROR abandons what is open: nothing is judged complete.
            "RUN_ERROR" => self.chunks.clear(),
            "RUN_STARTED" | "RUN_FINISHED" | "MESSAGES_SNAPSHOT" => {
                self.chunks.close(None, true, type_, at, out);
            }
            "SUBAGENT_FINISHED" | "SUBAGENT_ERROR" => {
                if let Some(id) = owner {
                    self.chunks.end_owner(id, type_, at, out);
                }
            }
            "TEXT_MESSAGE_START"
            | "TEXT_MESSAGE_CONTENT"
            | "TEXT_MESSAGE_END"
            | "TOOL_CALL_START"
            | "TOOL_CALL_ARGS"
            | "TOOL_CALL_END"
            | "TOOL_CALL_RESULT"
            | "STEP_STARTED"
            | "STEP_FINISHED"
            | "STATE_SNAPSHOT"
            | "STATE_DELTA"
            | "CUSTOM"
            | "REASONING_START"
            | "REASONING_END"
            | "REASONING_MESSAGE_START"
            | "REASONING_MESSAGE_CONTENT"
            | "REASONING_MESSAGE_END" => {
                self.chunks.close(owner, false, type_, at, out);
            }
            // RAW, ACTIVITY_*, REASONING_ENCRYPTED_VALUE and
            // SUBAGENT_STARTED stand aside; unknown events are dropped.
            _ => {}
        }
    }

    /// 1.x: an event attributed to a subagent invocation
    /// (`spec/1.1/events/subagents.mdx`).
    fn attribution(&mut self, type_: &str, at: &Here<'_>, out: &mut impl Findings) {
        if type_.starts_with("SUBAGENT_") {
            return;
        }
        let Some(id) = at.owner() else {
            return;
        };
        if let Some(done) = self.subagents_done.get(id) {
            out.push(
                at.finding(
                    &SUBAGENT_ID_REUSED,
                    "/subagentRunId",
                    format!("{type_} is attributed to subagent '{id}', whose invocation already finished in this run"),
                )
                .with_help("a finished invocation sends nothing more; a second invocation gets its own subagentRunId")
                .with_related_place(done, "the invocation finished here"),
            );
        } else if !self.index.of(Opened::Subagent).contains_key(id)
            && self.attributed.len() < REMEMBERED_IDS
        {
            self.attributed.insert(id.to_string());
        }
    }

    /// `SUBAGENT_FINISHED` or `SUBAGENT_ERROR` (`type_`) ends an active
    /// invocation, whose id this run may not use again.
    fn subagent_ended(&mut self, type_: &str, at: &Here<'_>, out: &mut impl Findings) {
        let ended = self.end(Opened::Subagent, "subagentRunId", type_, at, out);
        if let (Some(_), Some(id)) = (ended, at.owner()) {
            self.subagents_done.insert(id.to_string(), at.place.clone());
        }
    }

    fn subagent_started(&mut self, at: &Here<'_>, out: &mut impl Findings) {
        let Some(id) = at.owner() else {
            return;
        };
        if let Some(done) = self.subagents_done.get(id) {
            out.push(
                at.finding(
                    &SUBAGENT_ID_REUSED,
                    "/subagentRunId",
                    format!("SUBAGENT_STARTED reuses subagentRunId '{id}' of an invocation that finished in this run"),
                )
                .with_help("each invocation gets its own subagentRunId; an id reappears only in a later run, continuing a suspended invocation")
                .with_related_place(done, "the invocation finished here"),
            );
        } else if self.attributed.contains(id) {
            out.push(
                at.finding(
                    &SUBAGENT_STARTED_LATE,
                    "/subagentRunId",
                    format!(
                        "SUBAGENT_STARTED for '{id}' comes after events already attributed to it"
                    ),
                )
                .with_help(
                    "announce an invocation before any event attributed to it, or not at all",
                ),
            );
        }
        if let Some(parent) = at.str("parentSubagentRunId") {
            let announced = self.index.of(Opened::Subagent).contains_key(parent)
                || self.subagents_done.contains_key(parent);
            if !announced {
                out.push(
                    at.finding(
                        &SUBAGENT_PARENT_NOT_STARTED,
                        "/parentSubagentRunId",
                        format!("SUBAGENT_STARTED names parent invocation '{parent}', which this run never announced"),
                    )
                    .with_help("announce the parent with SUBAGENT_STARTED first, or leave parentSubagentRunId out for the parent agent"),
                );
            }
        }
        self.start(
            Opened::Subagent,
            "subagentRunId",
            "SUBAGENT_STARTED",
            at,
            out,
        );
    }

    fn start(
        &mut self,
        kind: Opened,
        key: &str,
        type_: &str,
        at: &Here<'_>,
        out: &mut impl Findings,
    ) {
        let Some(id) = at.str(key) else {
            return;
        };
        let lookup = self.key_of(kind, id, at);
        if let Some(&i) = self.index.of(kind).get(lookup.as_ref()) {
            let (rule, message) = if kind == Opened::Step {
                (
                    &STEP_STARTED_TWICE,
                    format!("step '{id}' is started again while it runs"),
                )
            } else {
                (
                    &DUPLICATE_START,
                    format!("{type_} for {}, which is already open", kind.describe(id)),
                )
            };
            if let Some(first) = self.open.get(i) {
                out.push(
                    at.finding(rule, &format!("/{key}"), message)
                        .with_help(format!(
                            "end it with {} first, or use another id",
                            kind.end_event()
                        ))
                        .with_related_place(&first.start, format!("{} here", first.start_type)),
                );
            }
            return;
        }
        let position = self.open.len();
        self.index
            .of_mut(kind)
            .insert(lookup.into_owned(), position);
        self.open.push(Open {
            kind,
            id: id.to_string(),
            start: at.place.clone(),
            start_type: type_.to_string(),
            owner: at.owner().map(str::to_string),
            arguments: held::Arguments::new(&self.arguments),
        });
    }

    /// A content or arguments event: its id must be open.
    fn touch(
        &mut self,
        kind: Opened,
        key: &str,
        type_: &str,
        at: &Here<'_>,
        out: &mut impl Findings,
    ) {
        let Some(id) = at.str(key) else {
            return;
        };
        let lookup = self.key_of(kind, id, at);
        match self.index.of(kind).get(lookup.as_ref()) {
            Some(&i) => {
                if let Some(open) = self.open.get(i) {
                    self.check_owner(open, type_, at, out);
                }
                if let (Some(open), Some(delta)) = (self.open.get_mut(i), at.str("delta")) {
                    if kind == Opened::ToolCall {
                        open.arguments.push(id, delta, at, out);
                    }
                }
            }
            None => out.push(not_open(kind, key, type_, id, at)),
        }
    }

    /// An end event: its id must be open; hands back what it closed.
    fn end(
        &mut self,
        kind: Opened,
        key: &str,
        type_: &str,
        at: &Here<'_>,
        out: &mut impl Findings,
    ) -> Option<Open> {
        let id = at.str(key)?;
        let lookup = self.key_of(kind, id, at).into_owned();
        let Some(i) = self.index.of_mut(kind).remove(&lookup) else {
            out.push(not_open(kind, key, type_, id, at));
            return None;
        };
        let closed = self.open.remove(i);
        if kind != Opened::Subagent {
            self.check_owner(&closed, type_, at, out);
        }
        // Positions after the removed entry shift down by one.
        for position in self.index.positions_mut() {
            if *position > i {
                *position -= 1;
            }
        }
        Some(closed)
    }

    /// The key an item is open under: its id, and for a 1.x step its
    /// owner too (steps are per owner, `spec/1.1/events/subagents.mdx`).
    fn key_of<'a>(&self, kind: Opened, id: &'a str, at: &Here<'_>) -> Cow<'a, str> {
        match at.owner() {
            Some(owner) if kind == Opened::Step && self.protocol.is_1x() => {
                Cow::Owned(format!("{id}\u{0}{owner}"))
            }
            _ => Cow::Borrowed(id),
        }
    }

    /// 1.x: a tool call inherits the attribution of the message holding
    /// it, and may not name another owner (`spec/1.1/events/subagents.mdx`,
    /// "Ownership").
    fn tool_call_owner(&self, at: &Here<'_>, out: &mut impl Findings) {
        let (Some(tag), Some(parent)) = (at.owner(), at.str("parentMessageId")) else {
            return;
        };
        let Some(message) = self
            .index
            .of(Opened::TextMessage)
            .get(parent)
            .and_then(|&i| self.open.get(i))
        else {
            return;
        };
        if message.owner.as_deref() == Some(tag) {
            return;
        }
        let owner = owner_name(message.owner.as_deref());
        out.push(
            at.finding(
                &OWNER_MISMATCH,
                "/subagentRunId",
                format!(
                    "TOOL_CALL_START is attributed to subagent '{tag}', but its message '{parent}' belongs to {owner}"
                ),
            )
            .with_help("a tool call carries the attribution of the message that holds it, or none")
            .with_related_place(&message.start, format!("{} here", message.start_type)),
        );
    }

    /// 1.x: a continuation's attribution must agree with its opener's.
    fn check_owner(&self, open: &Open, type_: &str, at: &Here<'_>, out: &mut impl Findings) {
        if !self.protocol.is_1x() || open.kind == Opened::Step {
            return;
        }
        let Some(tag) = at.owner() else {
            return;
        };
        if open.owner.as_deref() == Some(tag) {
            return;
        }
        let opener = owner_name(open.owner.as_deref());
        out.push(
            at.finding(
                &OWNER_MISMATCH,
                "/subagentRunId",
                format!(
                    "{type_} for {} is attributed to subagent '{tag}', but {opener} opened it",
                    open.kind.describe(&open.id)
                ),
            )
            .with_help("a continuation carries its opener's subagentRunId or none")
            .with_related_place(&open.start, format!("{} here", open.start_type)),
        );
    }

    fn tool_chunk(&mut self, at: &Here<'_>, out: &mut impl Findings) {
        let id = at.str("toolCallId");
        let continues = match (&self.tool_chunk, id) {
            (Some(current), Some(id)) => current.id == id,
            (Some(_), None) => true,
            (None, _) => false,
        };
        if !continues {
            self.close_tool_chunk(at, out);
            let name = at.str("toolCallName");
            let Some(id) = id.filter(|_| name.is_some()) else {
                let missing = match (id, name) {
                    (None, None) => "toolCallId and toolCallName",
                    (None, Some(_)) => "toolCallId",
                    _ => "toolCallName",
                };
                out.push(
                    at.finding(
                        &FIRST_CHUNK_WITHOUT_ID,
                        "",
                        format!("the first TOOL_CALL_CHUNK of a tool call has no {missing}"),
                    )
                    .with_help(
                        "give the first chunk of each tool call its toolCallId and toolCallName",
                    ),
                );
                return;
            };
            self.started_calls.insert(id.to_string());
            self.tool_chunk = Some(Open {
                kind: Opened::ToolCall,
                id: id.to_string(),
                start: at.place.clone(),
                start_type: "TOOL_CALL_CHUNK".into(),
                owner: None,
                arguments: held::Arguments::new(&self.arguments),
            });
        }
        if let (Some(call), Some(delta)) = (&mut self.tool_chunk, at.str("delta")) {
            call.arguments.push(&call.id, delta, at, out);
        }
    }

    /// The current chunked tool call ends (another starts, the run or the
    /// stream ends): its arguments must be JSON by now.
    fn close_tool_chunk(&mut self, at: &Here<'_>, out: &mut impl Findings) {
        if let Some(call) = self.tool_chunk.take() {
            check_open_arguments(&call, at, out);
        }
    }

    fn tool_result(&mut self, at: &Here<'_>, out: &mut impl Findings) {
        let Some(id) = at.str("toolCallId") else {
            return;
        };
        if !self.started_calls.contains(id) {
            out.push(
                at.finding(
                    &TOOL_CALL_RESULT_WITHOUT_START,
                    "/toolCallId",
                    format!(
                        "TOOL_CALL_RESULT for tool call '{id}', which the stream never started"
                    ),
                )
                .with_help(
                    "send TOOL_CALL_START (or a TOOL_CALL_CHUNK) for the call before its result",
                ),
            );
        }
    }

    /// A snapshot of the conversation makes its tool calls known.
    fn messages_snapshot(&mut self, at: &Here<'_>) {
        if let Some(messages) = at.event.get("messages").as_deref() {
            self.remember_calls(messages);
        }
    }

    fn remember_calls(&mut self, messages: &Value) {
        let calls = messages
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|m| m.get("toolCalls").and_then(Value::as_array))
            .flatten()
            .filter_map(|c| c.get("id").and_then(Value::as_str));
        for id in calls {
            self.started_calls.insert(id.to_string());
        }
    }

    /// 1.x: reports, once a run, a run that declared no version using what
    /// only 1.x has.
    fn uses_1x(&mut self, kind: &str, at: &Here<'_>, out: &mut impl Findings) {
        if self.undeclared.is_none() {
            return;
        }
        let what = if kind.starts_with("SUBAGENT_") {
            Some(kind.to_string())
        } else if at.event.get("subagentRunId").is_some() {
            Some(format!("{kind}.subagentRunId"))
        } else if matches!(kind, "RUN_FINISHED" | "RUN_ERROR") {
            ["outcome", "usage"]
                .into_iter()
                .find(|key| at.event.get(key).is_some())
                .map(|key| format!("{kind}.{key}"))
        } else {
            None
        };
        let Some(what) = what else {
            return;
        };
        let Some(start) = self.undeclared.take() else {
            return;
        };
        out.add(&PROTOCOL_VERSION_MISSING, |rule| {
            at.finding(
                rule,
                "",
                format!("RUN_STARTED declared no protocolVersion, though this run uses {what}, which only AG-UI 1.x has"),
            )
            .with_help("an implementation of AG-UI 1.x must declare the version it speaks on RUN_STARTED (spec/1.1/basic/versioning.mdx, \"Version negotiation\")")
            .with_related_place(&start, "the run started here")
        });
    }

    /// The state is no longer known: its memory is given back.
    fn forget_state(&mut self) {
        self.state = None;
        self.budget.release(std::mem::take(&mut self.state_size));
    }

    /// A new base state (a snapshot, or a run's input) at `pointer`, kept
    /// if it fits the budget; otherwise the state is unknown.
    fn set_state(
        &mut self,
        state: Option<Value>,
        pointer: &str,
        at: &Here<'_>,
        out: &mut impl Findings,
    ) {
        self.had_state = true;
        self.forget_state();
        let Some(state) = state else {
            return;
        };
        let bytes = patch::measured(&state);
        if self.budget.take(bytes, 0).is_ok() {
            self.state = Some(state);
            self.state_size = bytes;
            return;
        }
        let limit = self.budget.meter.limit;
        out.add(&STATE_OVER_BUDGET, |rule| {
            at.finding(
                rule,
                pointer,
                format!(
                    "the state would take about {} with the activity contents, over the limit of {}: it is not kept, and deltas until the next snapshot are not checked",
                    crate::text::size(bytes),
                    crate::text::size(limit)
                ),
            )
            .with_help("raise the limit with --max-state-size (max-state-bytes under [limits]) if such a state is expected")
        });
    }

    fn state_delta(&mut self, at: &Here<'_>, out: &mut impl Findings) {
        let Some(patch) = at.event.patch("delta", at.protocol.is_1x()) else {
            return;
        };
        let patch = match patch {
            Ok(patch) => patch,
            Err((i, error)) => {
                out.push(
                    at.finding(
                        &STATE_DELTA_INVALID_PATCH,
                        &format!("/delta/{i}"),
                        format!("operation {i} is not a JSON Patch operation: {error}"),
                    )
                    .with_help(
                        "each operation is {\"op\": add|remove|replace|move|copy|test, \"path\": \"/json/pointer\", ...} (RFC 6902)",
                    ),
                );
                // The client rejects the whole delta; its state is no
                // longer known.
                self.forget_state();
                return;
            }
        };
        let Some(state) = &mut self.state else {
            if !self.had_state {
                out.push(
                    at.finding(
                        &STATE_DELTA_BEFORE_SNAPSHOT,
                        "/delta",
                        "STATE_DELTA before any STATE_SNAPSHOT: there is no state to apply it to",
                    )
                    .with_help(
                        "send a STATE_SNAPSHOT first, so a client joining here has a base state",
                    ),
                );
                // Reported once: later deltas go unchecked until a snapshot.
                self.had_state = true;
            }
            return;
        };
        let (operation, kind) = match self.budget.apply(state, &mut self.state_size, &patch) {
            Ok(()) => return,
            Err(patch::Refusal::Failed { operation, kind }) => (operation, kind),
            Err(patch::Refusal::Over { operation, bound }) => {
                // Not applied, and what a consumer that did apply it holds
                // is not known here: no later delta is reported against it.
                self.forget_state();
                let limit = self.budget.meter.limit;
                out.add(&STATE_OVER_BUDGET, |rule| {
                    at.finding(rule, &format!("/delta/{operation}"), over_budget(operation, bound, limit))
                        .with_help("raise the limit with --max-state-size (max-state-bytes under [limits]) if such a state is expected; the state is not checked until the next STATE_SNAPSHOT")
                });
                return;
            }
        };
        {
            let mut finding = at
                .finding(
                    &STATE_DELTA_NOT_APPLICABLE,
                    &format!("/delta/{operation}"),
                    format!(
                        "operation {operation} does not apply to the state built so far: {kind}"
                    ),
                )
                .with_help("the client's patch fails and its state diverges; send a STATE_SNAPSHOT to resynchronise");
            // 1.x: a well-formed patch that fails is surfaced as a warning
            // and the consumer keeps its prior value
            // (`spec/1.1/basic/patterns/snapshots.mdx`, "When a patch does
            // not apply"), which `patch::apply` has restored: later deltas
            // are checked against it, as the consumer applies them. Before
            // 1.0 the client's state is no longer known.
            if self.protocol.is_1x() {
                finding.severity = crate::diagnostic::Severity::Warning;
                finding
                    .message
                    .push_str(": a receiver keeps its prior state and warns");
            } else {
                self.forget_state();
            }
            out.push(finding);
        }
    }
}

/// What the request a stream answers tells it (see [`Sequence::answer`]).
#[derive(Debug)]
struct Request {
    /// The ids of the tool calls its messages made.
    calls: HashSet<String>,
    /// Its state, when it carried one.
    state: Option<Value>,
}

/// The message of a `state-over-budget` finding on `operation`, which
/// went over `bound` of a budget of `limit` bytes.
fn over_budget(operation: usize, bound: patch::Over, limit: u64) -> String {
    match bound {
        patch::Over::Size => format!(
            "operation {operation} would take the state and the activity contents over the limit of {}: the delta is not applied",
            crate::text::size(limit)
        ),
        patch::Over::Work => format!(
            "operation {operation} would cost more than the stream's patches may (copies and array insertions beyond what the stream itself sends): the delta is not applied"
        ),
    }
}

/// A `TEXT_MESSAGE_CHUNK` or `REASONING_MESSAGE_CHUNK` (`type_`): it
/// continues the current message, or names the one it starts.
fn message_chunk(
    type_: &str,
    current: &mut Option<String>,
    at: &Here<'_>,
    out: &mut impl Findings,
) {
    match (at.str("messageId"), current.as_ref()) {
        (Some(id), _) => *current = Some(id.to_string()),
        (None, Some(_)) => {}
        (None, None) => out.push(
            at.finding(
                &FIRST_CHUNK_WITHOUT_ID,
                "",
                format!("the first {type_} of a message has no messageId"),
            )
            .with_help("give the first chunk of each message its messageId"),
        ),
    }
    // A reasoning chunk with an empty delta "implicitly closes the message".
    if type_ == "REASONING_MESSAGE_CHUNK" && at.str("delta") == Some("") {
        *current = None;
    }
}

fn not_open(kind: Opened, key: &str, type_: &str, id: &str, at: &Here<'_>) -> Diagnostic {
    let start = match kind {
        Opened::TextMessage => "TEXT_MESSAGE_START",
        Opened::ToolCall => "TOOL_CALL_START",
        Opened::ReasoningPhase => "REASONING_START",
        Opened::ReasoningMessage => "REASONING_MESSAGE_START",
        Opened::Step => "STEP_STARTED",
        Opened::Subagent => "SUBAGENT_STARTED",
    };
    let (rule, message) = if kind == Opened::Step {
        (
            &STEP_FINISHED_WITHOUT_START,
            format!("STEP_FINISHED for step '{id}', which is not running"),
        )
    } else {
        (
            &EVENT_WITHOUT_START,
            format!("{type_} for {}, which is not open", kind.describe(id)),
        )
    };
    at.finding(rule, &format!("/{key}"), message)
        .with_help(format!(
            "send {start} first; an id stays open until its {}",
            kind.end_event()
        ))
}

/// The concatenated arguments of a closed tool call must be JSON.
fn check_open_arguments(call: &Open, at: &Here<'_>, out: &mut impl Findings) {
    check_arguments(
        &call.id,
        call.arguments.text(),
        &call.start,
        &call.start_type,
        at,
        out,
    );
}

/// The concatenated `arguments` of tool call `id`, opened at `start` by
/// `start_type`, must be JSON when any argument text arrived (and was
/// held: see [`held`]).
fn check_arguments(
    id: &str,
    arguments: Option<&str>,
    start: &EventPlace,
    start_type: &str,
    at: &Here<'_>,
    out: &mut impl Findings,
) {
    let Some(arguments) = arguments else {
        return;
    };
    if let Err(error) = serde_json::from_str::<serde::de::IgnoredAny>(arguments) {
        // AG-UI 1.x carries argument text "and does not validate it": text
        // that does not parse is "not a protocol violation"
        // (`spec/1.1/events/tool-calls.mdx`, "TOOL_CALL_ARGS" and
        // "TOOL_CALL_END"); before 1.0 clients parse it to run the tool.
        let severity = TOOL_CALL_ARGS_NOT_JSON.severity_in(at.protocol);
        out.add_as(&TOOL_CALL_ARGS_NOT_JSON, severity, |rule| {
            at.finding(
                rule,
                "",
                format!("the arguments of tool call '{id}' are not JSON: {error}"),
            )
            .with_help(format!(
                "the argument deltas concatenate to {}",
                crate::text::excerpt(arguments)
            ))
            .with_related_place(start, format!("{start_type} here"))
        });
    }
}

/// The event being checked, with its place.
struct Here<'a> {
    event: EventView<'a>,
    place: &'a EventPlace,
    /// The event's `subagentRunId`, which most rules ask for: read once.
    owner: Option<&'a str>,
    /// The version judging the event.
    protocol: Protocol,
}

impl<'a> Here<'a> {
    fn str(&self, key: &str) -> Option<&'a str> {
        self.event.str(key)
    }

    /// The subagent the event is attributed to (`subagentRunId`).
    fn owner(&self) -> Option<&'a str> {
        self.owner
    }

    /// A finding of `rule` at `suffix` within this event.
    fn finding(&self, rule: &Rule, suffix: &str, message: impl Into<String>) -> Diagnostic {
        let at = if suffix.is_empty() {
            self.place.pointer.clone()
        } else {
            format!("{}{suffix}", self.place.pointer)
        };
        let mut diagnostic = rule.diagnostic(at, message);
        if suffix.is_empty() {
            diagnostic = diagnostic.at(Target::Value);
        }
        diagnostic
    }
}

/// Related notes that point at another event.
trait RelatedPlace {
    fn with_related_place(self, place: &EventPlace, what: impl Into<String>) -> Self;
}

impl RelatedPlace for Diagnostic {
    fn with_related_place(mut self, place: &EventPlace, what: impl Into<String>) -> Self {
        self.related.push(Related {
            pointer: place.pointer.clone(),
            message: format!("{} (event {})", what.into(), place.index),
            record: place.record,
            location: place.location,
            target: Target::Value,
        });
        self
    }
}

/// Who produced an opened item, for a message: a subagent by its run id,
/// or the parent agent when it carries no attribution.
fn owner_name(owner: Option<&str>) -> String {
    owner.map_or("the parent agent".to_string(), |o| {
        format!("subagent '{o}'")
    })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::pointer;

    fn element(index: usize) -> String {
        pointer::push("", &index.to_string())
    }

    /// Runs an events array through the pre-1.0 sequence rules.
    fn rules_fired(events: Value) -> Vec<(String, String)> {
        rules_fired_at(Protocol::V0, events)
    }

    /// Runs an events array through the sequence rules of `protocol`.
    fn rules_fired_at(protocol: Protocol, events: Value) -> Vec<(String, String)> {
        let mut sequence = Sequence::new();
        let mut out = Vec::new();
        for (i, event) in events.as_array().expect("array").iter().enumerate() {
            let place = EventPlace {
                index: i + 1,
                record: None,
                pointer: element(i),
                location: None,
            };
            sequence.event(event, protocol, &place, &mut out);
        }
        sequence.finish(&mut out);
        out.into_iter().map(|d| (d.rule, d.pointer)).collect()
    }

    fn fired(events: Value) -> Vec<String> {
        rules_fired(events).into_iter().map(|(r, _)| r).collect()
    }

    fn fired_at(protocol: Protocol, events: Value) -> Vec<String> {
        rules_fired_at(protocol, events)
            .into_iter()
            .map(|(r, _)| r)
            .collect()
    }

    #[test]
    fn a_clean_run_reports_nothing() {
        let events = json!([
            {"type": "RUN_STARTED", "threadId": "t", "runId": "r", "protocolVersion": "1.1"},
            {"type": "STEP_STARTED", "stepName": "s"},
            {"type": "TEXT_MESSAGE_START", "messageId": "m", "role": "assistant"},
            {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": "hi"},
            {"type": "TEXT_MESSAGE_END", "messageId": "m"},
            {"type": "TOOL_CALL_START", "toolCallId": "c", "toolCallName": "f"},
            {"type": "TOOL_CALL_ARGS", "toolCallId": "c", "delta": "{\"a\":"},
            {"type": "TOOL_CALL_ARGS", "toolCallId": "c", "delta": "1}"},
            {"type": "TOOL_CALL_END", "toolCallId": "c"},
            {"type": "TOOL_CALL_RESULT", "messageId": "m2", "toolCallId": "c", "content": "ok"},
            {"type": "STATE_SNAPSHOT", "snapshot": {"n": 1}},
            {"type": "STATE_DELTA", "delta": [{"op": "replace", "path": "/n", "value": 2}]},
            {"type": "STATE_DELTA", "delta": [{"op": "test", "path": "/n", "value": 2}]},
            {"type": "STEP_FINISHED", "stepName": "s"},
            {"type": "RUN_FINISHED", "threadId": "t", "runId": "r"},
            {"type": "RUN_STARTED", "threadId": "t", "runId": "r2", "protocolVersion": "1.1"},
            {"type": "TEXT_MESSAGE_CHUNK", "messageId": "m3", "delta": "a"},
            {"type": "TEXT_MESSAGE_CHUNK", "delta": "b"},
            {"type": "TOOL_CALL_CHUNK", "toolCallId": "c2", "toolCallName": "f", "delta": "{"},
            {"type": "TOOL_CALL_CHUNK", "delta": "}"},
            {"type": "RUN_FINISHED", "threadId": "t", "runId": "r2"}
        ]);
        assert_eq!(rules_fired(events), []);
    }

    #[test]
    fn run_boundaries() {
        assert_eq!(
            fired(json!([{"type": "TEXT_MESSAGE_START", "messageId": "m", "role": "assistant"}])),
            ["event-before-run-started", "never-ended"]
        );
        assert_eq!(
            fired(json!([{"type": "RUN_ERROR", "message": "x"}])),
            Vec::<String>::new()
        );
        assert_eq!(
            fired(json!([
                {"type": "RUN_STARTED", "threadId": "t", "runId": "r", "protocolVersion": "1.1"},
                {"type": "RUN_ERROR", "message": "x"},
                {"type": "RUN_STARTED", "threadId": "t", "runId": "r", "protocolVersion": "1.1"},
                {"type": "RUN_STARTED", "threadId": "t", "runId": "r", "protocolVersion": "1.1"}
            ])),
            ["event-after-run-error"]
        );
        assert_eq!(
            rules_fired(json!([
                {"type": "RUN_STARTED", "threadId": "t", "runId": "r", "protocolVersion": "1.1"},
                {"type": "RUN_STARTED", "threadId": "t", "runId": "r2", "protocolVersion": "1.1"},
                {"type": "RUN_FINISHED", "threadId": "t", "runId": "r"}
            ])),
            [
                (
                    "run-started-while-active".to_string(),
                    "/1/type".to_string()
                ),
                (
                    "run-finished-id-mismatch".to_string(),
                    "/2/runId".to_string()
                )
            ]
        );
        assert_eq!(
            fired(json!([
                {"type": "RUN_STARTED", "threadId": "t", "runId": "r", "protocolVersion": "1.1"},
                {"type": "RUN_FINISHED", "threadId": "t", "runId": "r"},
                {"type": "CUSTOM", "name": "n", "value": 1},
                {"type": "CUSTOM", "name": "n", "value": 2}
            ])),
            ["event-after-run-finished"]
        );
        assert_eq!(
            fired(
                json!([{"type": "RUN_STARTED", "threadId": "t", "runId": "r", "protocolVersion": "1.1"}])
            ),
            ["stream-truncated"]
        );
    }

    #[test]
    fn open_and_close() {
        assert_eq!(
            fired(json!([
                {"type": "RUN_STARTED", "threadId": "t", "runId": "r", "protocolVersion": "1.1"},
                {"type": "TEXT_MESSAGE_END", "messageId": "m"},
                {"type": "TOOL_CALL_START", "toolCallId": "c", "toolCallName": "f"},
                {"type": "TOOL_CALL_START", "toolCallId": "c", "toolCallName": "f"},
                {"type": "STEP_STARTED", "stepName": "s"},
                {"type": "STEP_STARTED", "stepName": "s"},
                {"type": "STEP_FINISHED", "stepName": "x"},
                {"type": "RUN_FINISHED", "threadId": "t", "runId": "r"}
            ])),
            [
                "event-without-start",
                "duplicate-start",
                "step-started-twice",
                "step-finished-without-start",
                "run-finished-while-open",
                "run-finished-while-open"
            ]
        );
        assert_eq!(
            fired(json!([
                {"type": "RUN_STARTED", "threadId": "t", "runId": "r", "protocolVersion": "1.1"},
                {"type": "REASONING_START", "messageId": "p"},
                {"type": "STEP_STARTED", "stepName": "s"}
            ])),
            ["stream-truncated", "never-ended", "step-never-finished"]
        );
    }

    #[test]
    fn tool_calls_and_chunks() {
        assert_eq!(
            fired(json!([
                {"type": "RUN_STARTED", "threadId": "t", "runId": "r", "protocolVersion": "1.1"},
                {"type": "TOOL_CALL_START", "toolCallId": "c", "toolCallName": "f"},
                {"type": "TOOL_CALL_ARGS", "toolCallId": "c", "delta": "{\"a\""},
                {"type": "TOOL_CALL_END", "toolCallId": "c"},
                {"type": "TOOL_CALL_RESULT", "messageId": "m", "toolCallId": "zz", "content": ""},
                {"type": "TOOL_CALL_CHUNK", "toolCallId": "d", "delta": "{}"},
                {"type": "TEXT_MESSAGE_CHUNK", "delta": "x"},
                {"type": "TOOL_CALL_CHUNK", "toolCallId": "e", "toolCallName": "f", "delta": "nope"},
                {"type": "RUN_FINISHED", "threadId": "t", "runId": "r"}
            ])),
            [
                "tool-call-args-not-json",
                "tool-call-result-without-start",
                "first-chunk-without-id",
                "first-chunk-without-id",
                "tool-call-args-not-json"
            ]
        );
    }

    #[test]
    fn results_for_calls_of_a_messages_snapshot_are_known() {
        assert_eq!(
            fired(json!([
                {"type": "RUN_STARTED", "threadId": "t", "runId": "r", "protocolVersion": "1.1"},
                {"type": "MESSAGES_SNAPSHOT", "messages": [{"id": "a", "role": "assistant",
                    "toolCalls": [{"id": "c", "type": "function", "function": {"name": "f", "arguments": "{}"}}]}]},
                {"type": "TOOL_CALL_RESULT", "messageId": "m", "toolCallId": "c", "content": ""},
                {"type": "RUN_FINISHED", "threadId": "t", "runId": "r"}
            ])),
            Vec::<String>::new()
        );
    }

    #[test]
    fn state_deltas() {
        assert_eq!(
            rules_fired(json!([
                {"type": "RUN_STARTED", "threadId": "t", "runId": "r", "protocolVersion": "1.1"},
                {"type": "STATE_DELTA", "delta": [{"op": "add", "path": "/a", "value": 1}]},
                {"type": "STATE_DELTA", "delta": [{"op": "add", "path": "/a", "value": 1}]},
                {"type": "STATE_SNAPSHOT", "snapshot": {"a": []}},
                {"type": "STATE_DELTA", "delta": [{"op": "add", "path": "/a/-", "value": 1}, {"op": "set", "path": "/a"}]},
                {"type": "STATE_SNAPSHOT", "snapshot": {"a": []}},
                {"type": "STATE_DELTA", "delta": [{"op": "add", "path": "/a/-", "value": 1}, {"op": "remove", "path": "/b"}]},
                {"type": "STATE_DELTA", "delta": [{"op": "remove", "path": "/c"}]},
                {"type": "RUN_FINISHED", "threadId": "t", "runId": "r"}
            ])),
            [
                (
                    "state-delta-before-snapshot".to_string(),
                    "/1/delta".to_string()
                ),
                (
                    "state-delta-invalid-patch".to_string(),
                    "/4/delta/1".to_string()
                ),
                (
                    "state-delta-not-applicable".to_string(),
                    "/6/delta/1".to_string()
                )
            ]
        );
        // The input's state is a base too.
        assert_eq!(
            fired(json!([
                {"type": "RUN_STARTED", "threadId": "t", "runId": "r", "input": {"state": {"n": 1}}},
                {"type": "STATE_DELTA", "delta": [{"op": "remove", "path": "/n"}]},
                {"type": "STATE_DELTA", "delta": [{"op": "remove", "path": "/n"}]},
                {"type": "RUN_FINISHED", "threadId": "t", "runId": "r"}
            ])),
            ["state-delta-not-applicable"]
        );
    }

    #[test]
    fn runs_after_run_error_begin_anew_in_1x() {
        let events = json!([
            {"type": "RUN_STARTED", "threadId": "t", "runId": "r1", "protocolVersion": "1.1"},
            {"type": "TOOL_CALL_CHUNK", "toolCallId": "c", "toolCallName": "f", "delta": "{\"a\":"},
            {"type": "RUN_ERROR", "message": "x"},
            {"type": "RUN_STARTED", "threadId": "t", "runId": "r2", "protocolVersion": "1.1"},
            {"type": "TOOL_CALL_CHUNK", "toolCallId": "c", "toolCallName": "f", "delta": "{}"},
            {"type": "RUN_FINISHED", "threadId": "t", "runId": "r2"},
            {"type": "RUN_ERROR", "message": "late"},
            {"type": "RUN_STARTED", "threadId": "t", "runId": "r3", "protocolVersion": "1.1"},
            {"type": "TEXT_MESSAGE_START", "messageId": "m", "role": "assistant"}
        ]);
        assert_eq!(
            fired_at(Protocol::V1_0, events.clone()),
            ["stream-truncated", "never-ended"]
        );
        // The pre-1.0 profile keeps its rules.
        assert_eq!(
            fired_at(Protocol::V0, events),
            ["event-after-run-error", "never-ended"]
        );
    }

    #[test]
    fn chunk_streams_close_on_custom_not_on_raw() {
        let closed = json!([
            {"type": "RUN_STARTED", "threadId": "t", "runId": "r", "protocolVersion": "1.1"},
            {"type": "TEXT_MESSAGE_CHUNK", "messageId": "m", "delta": "a"},
            {"type": "CUSTOM", "name": "n", "value": 1},
            {"type": "TEXT_MESSAGE_CHUNK", "delta": "b"},
            {"type": "RUN_FINISHED", "threadId": "t", "runId": "r"}
        ]);
        assert_eq!(
            rules_fired_at(Protocol::V1_1, closed),
            [("first-chunk-without-id".to_string(), "/3".to_string())]
        );
        let open = json!([
            {"type": "RUN_STARTED", "threadId": "t", "runId": "r", "protocolVersion": "1.1"},
            {"type": "TEXT_MESSAGE_CHUNK", "messageId": "m", "delta": "a"},
            {"type": "RAW", "event": {}},
            {"type": "ACTIVITY_SNAPSHOT", "messageId": "a", "activityType": "x", "content": {}},
            {"type": "TEXT_MESSAGE_CHUNK", "delta": "b"},
            {"type": "TOOL_CALL_CHUNK", "toolCallId": "c", "toolCallName": "f", "parentMessageId": "m", "delta": "{"},
            {"type": "TOOL_CALL_CHUNK", "toolCallId": "c", "toolCallName": "g", "delta": "}"},
            {"type": "RUN_FINISHED", "threadId": "t", "runId": "r"}
        ]);
        assert_eq!(fired_at(Protocol::V1_1, open), ["chunk-contradicts-opener"]);
    }

    #[test]
    fn subagents_are_bracketed_and_own_their_items() {
        assert_eq!(
            fired_at(
                Protocol::V1_1,
                json!([
                    {"type": "RUN_STARTED", "threadId": "t", "runId": "r", "protocolVersion": "1.1"},
                    {"type": "SUBAGENT_FINISHED", "subagentRunId": "x"},
                    {"type": "SUBAGENT_STARTED", "subagentRunId": "s", "name": "n"},
                    {"type": "SUBAGENT_STARTED", "subagentRunId": "s", "name": "n"},
                    {"type": "STEP_STARTED", "stepName": "p", "subagentRunId": "s"},
                    {"type": "STEP_STARTED", "stepName": "p"},
                    {"type": "STEP_FINISHED", "stepName": "p", "subagentRunId": "s"},
                    {"type": "STEP_FINISHED", "stepName": "p"},
                    {"type": "RUN_FINISHED", "threadId": "t", "runId": "r"}
                ])
            ),
            [
                "event-without-start",
                "duplicate-start",
                "run-finished-while-open"
            ]
        );
        assert_eq!(
            fired_at(
                Protocol::V1_1,
                json!([
                    {"type": "RUN_STARTED", "threadId": "t", "runId": "r", "protocolVersion": "1.1"},
                    {"type": "TEXT_MESSAGE_START", "messageId": "m", "role": "assistant", "subagentRunId": "s"},
                    {"type": "TOOL_CALL_START", "toolCallId": "c", "toolCallName": "f", "parentMessageId": "m", "subagentRunId": "x"},
                    {"type": "TOOL_CALL_START", "toolCallId": "d", "toolCallName": "f", "parentMessageId": "m"},
                    {"type": "TOOL_CALL_END", "toolCallId": "c"},
                    {"type": "TOOL_CALL_END", "toolCallId": "d"},
                    {"type": "TEXT_MESSAGE_END", "messageId": "m"},
                    {"type": "RUN_FINISHED", "threadId": "t", "runId": "r"}
                ])
            ),
            ["continuation-owner-mismatch"]
        );
    }

    #[test]
    fn resume_entries_answer_the_interrupts() {
        for rule in [&RESUME_MISSING_INTERRUPT, &RESUME_UNKNOWN_INTERRUPT] {
            for (heading, fires) in [("## Invalid", true), ("## Valid", false)] {
                let example = example(rule.docs, heading);
                let run = &example["previous run"];
                let previous = Interrupted {
                    thread: run["threadId"].as_str().map(str::to_string),
                    ids: outcome::interrupt_ids(run),
                };
                let mut out = Vec::new();
                outcome::check_resume(&example["next request"], &previous, &mut out);
                let rules: Vec<&str> = out.iter().map(|d| d.rule.as_str()).collect();
                assert_eq!(
                    rules.contains(&rule.name),
                    fires,
                    "{} {heading}: {rules:?}",
                    rule.name
                );
                if !fires {
                    assert!(rules.is_empty(), "{} {heading}: {rules:?}", rule.name);
                }
            }
        }
    }

    /// The JSON block under `heading` in a rule's docs.
    fn example(docs: &str, heading: &str) -> Value {
        let section = docs.split(heading).nth(1).expect("section");
        let block = section.split("```json").nth(1).expect("code block");
        let json = block.split("```").next().expect("block end");
        serde_json::from_str(json).expect("example is JSON")
    }

    #[test]
    fn every_rule_fires_on_its_invalid_example_and_not_on_its_valid_one() {
        // The resume rules judge a request against the run before it: their
        // examples are checked in `resume_entries_answer_the_interrupts`.
        for rule in RULES.iter().filter(|r| !r.name.starts_with("resume-")) {
            for &protocol in rule.protocols() {
                let invalid = fired_at(protocol, example(rule.docs, "## Invalid"));
                assert!(
                    invalid.contains(&rule.name.to_string()),
                    "{} at {protocol}: {invalid:?}",
                    rule.name
                );
                let valid = fired_at(protocol, example(rule.docs, "## Valid"));
                // The 1.x rules' valid examples are whole clean streams.
                let clean = if rule.protocols().len() == Protocol::ALL.len() {
                    !valid.contains(&rule.name.to_string())
                } else {
                    valid.is_empty()
                };
                assert!(clean, "{} at {protocol}: {valid:?}", rule.name);
            }
        }
    }

    #[test]
    fn related_notes_name_the_earlier_event() {
        let mut sequence = Sequence::new();
        let mut out = Vec::new();
        let first = EventPlace {
            index: 1,
            record: Some(3),
            pointer: String::new(),
            location: Some(Location { line: 1, column: 1 }),
        };
        sequence.event(
            &json!({"type": "RUN_STARTED", "threadId": "t", "runId": "r", "protocolVersion": "1.1"}),
            Protocol::V0,
            &first,
            &mut out,
        );
        sequence.finish(&mut out);
        assert_eq!(out.len(), 1);
        let related = &out[0].related[0];
        assert_eq!(related.record, Some(3));
        assert_eq!(related.location, Some(Location { line: 1, column: 1 }));
        assert_eq!(related.message, "the run started here (event 1)");
    }
}
