//! Sequence rules: how the events of a stream must follow each other
//! (`spec/concepts-events.md`, and the state and reasoning pages).
//!
//! A stream is checked in one pass by a set of trackers, each in its own
//! file with its state, its rules and what it checks:
//!
//! | tracker | follows |
//! |---|---|
//! | [`lifecycle`] | runs: `RUN_STARTED`, `RUN_FINISHED`, `RUN_ERROR`, the stream's end |
//! | [`versions`] | 1.x: the `protocolVersion` a run declares |
//! | [`subagents`] | 1.x: subagent invocations and what is attributed to them |
//! | [`chunks`] | 1.x: chunk streams per owner lane |
//! | [`chunks_pre1`] | chunk events before 1.0 |
//! | [`streamed`] | 1.x: what a run streamed, against its messages snapshot |
//! | [`activity`] | 1.x: activity messages, their snapshots and deltas |
//! | [`text`], [`tool_calls`], [`reasoning`], [`steps`] | items opened and ended by id, in the registry of [`open`] |
//! | [`state`] | the shared state: snapshots and deltas |
//! | [`outcome`] | 1.x: a run's outcome, its interrupts and the next request's resume |
//!
//! [`Sequence`] is the dispatcher: it reads an event's type once
//! ([`event_type`]) and hands the event to the trackers in the order of
//! [`Sequence::event`]'s steps, which is fixed because one tracker's
//! verdict can depend on what another did first (a chunk stream is closed
//! before the event that closes it is judged; a run's start forgets what
//! the run before it left open before its own events are seen). What a
//! run forgets when it ends or another starts is in one place,
//! [`Sequence::forget_run`].
//!
//! Only what is open (the run, messages, tool calls with their argument
//! text, steps, reasoning blocks) and the state built from snapshots and
//! deltas is kept, so memory is bounded by that open state and never by
//! the length of the capture.
//!
//! Each event is judged by the protocol version its report names. The
//! pre-1.0 profile keeps the rules it was written with; AG-UI 1.0 and 1.1
//! add the normative processing rules (`spec/1.1/basic/`, `spec/1.1/events/`).
//!
//! Findings about an event point at it; the earlier event involved (the
//! start that was never ended, the run that is still active) is a related
//! note, located in the same document or, for a stream of separate
//! documents, in the record that holds it ([`here`]).
//!
//! A stream rule is a constant in its tracker's file, next to the code
//! that reports it, with its documentation and an invalid and a valid
//! example (run by this module's tests); [`RULES`] lists them.

use std::sync::Arc;

use serde_json::Value;

mod activity;
pub(crate) mod chunks;
mod chunks_pre1;
mod event_type;
mod held;
mod here;
pub(crate) mod lifecycle;
pub(crate) mod open;
mod open_item;
mod open_slots;
mod outcome;
pub(crate) mod patch;
mod reasoning;
mod rolling;
mod snapshot;
mod state;
pub(crate) mod steps;
mod streamed;
mod subagents;
mod text;
mod text_size;
pub(crate) mod tool_calls;
pub(crate) mod total;
mod versions;
mod view;

pub(crate) use here::EventPlace;
pub(crate) use outcome::{check_resume, Interrupted};
pub(crate) use view::{EventView, ReadEvent};

use super::Rule;
use crate::findings::Findings;
use crate::Protocol;
use chunks::{ChunkKind, Chunked};
use here::Here;
use lifecycle::Boundary;

/// Whether `rule` is one the conformance kit judges by a check of its own
/// (`src/kit/`), so that its `stream-conforms` and `stream-as-received`
/// leave it out: a server breaking one requirement then fails one check.
pub(crate) fn owned_by_the_kit(rule: &str) -> bool {
    [
        state::STATE_DELTA_NOT_APPLICABLE.name,
        versions::PROTOCOL_VERSION_MISSING.name,
        // The kit sends a newer minor on purpose; answering with the
        // producer's own version is what `newer-minor-served` requires.
        versions::PROTOCOL_VERSION_MISMATCH.name,
    ]
    .contains(&rule)
}

/// The rules of this family, in documentation order.
pub(super) const RULES: &[Rule] = &[
    lifecycle::EVENT_BEFORE_RUN_STARTED,
    lifecycle::RUN_STARTED_WHILE_ACTIVE,
    lifecycle::EVENT_AFTER_RUN_ERROR,
    lifecycle::EVENT_AFTER_RUN_FINISHED,
    lifecycle::RUN_FINISHED_ID_MISMATCH,
    lifecycle::RUN_FINISHED_WHILE_OPEN,
    lifecycle::STREAM_TRUNCATED,
    open::EVENT_WITHOUT_START,
    open::DUPLICATE_START,
    open::NEVER_ENDED,
    open::OPEN_ITEMS_OVER_LIMIT,
    tool_calls::TOOL_CALL_ARGS_NOT_JSON,
    tool_calls::TOOL_CALL_RESULT_WITHOUT_START,
    steps::STEP_FINISHED_WITHOUT_START,
    steps::STEP_STARTED_TWICE,
    steps::STEP_NEVER_FINISHED,
    chunks::FIRST_CHUNK_WITHOUT_ID,
    state::STATE_DELTA_INVALID_PATCH,
    state::STATE_DELTA_NOT_APPLICABLE,
    state::STATE_DELTA_BEFORE_SNAPSHOT,
    state::STATE_OVER_BUDGET,
    lifecycle::RUN_STARTED_OTHER_THREAD,
    lifecycle::RUN_ID_REUSED,
    versions::PROTOCOL_VERSION_MISMATCH,
    versions::PROTOCOL_VERSION_MISSING,
    streamed::SNAPSHOT_CONTRADICTS_STREAM,
    streamed::SNAPSHOT_DROPS_STREAMING,
    chunks::CHUNK_CONTRADICTS_OPENER,
    chunks::CHUNK_CONTINUATION_AMBIGUOUS,
    open::OWNER_MISMATCH,
    subagents::SUBAGENT_STARTED_LATE,
    subagents::SUBAGENT_ID_REUSED,
    subagents::SUBAGENT_PARENT_NOT_STARTED,
    outcome::INTERRUPT_ID_DUPLICATE,
    outcome::OUTCOME_TOOL_CALL_ANSWERED,
    outcome::RESUME_MISSING_INTERRUPT,
    outcome::RESUME_UNKNOWN_INTERRUPT,
    activity::ACTIVITY_DELTA_WITHOUT_SNAPSHOT,
    activity::ACTIVITY_DELTA_NOT_APPLICABLE,
    activity::ACTIVITY_CONTENT_NOT_OBJECT,
];

/// How many ids of earlier runs (run ids) or of unannounced subagents a
/// stream remembers: memory stays bounded on a capture of any length.
const REMEMBERED_IDS: usize = 4096;

/// The open state of one event stream, fed event by event: the trackers,
/// and what several of them share.
#[derive(Debug)]
pub struct Sequence {
    lifecycle: lifecycle::Lifecycle,
    versions: versions::Versions,
    /// What the current run opened by id, in the order it opened.
    open: open::OpenItems,
    /// 1.x: the chunk streams of the current run, by owner lane.
    chunks: chunks::Chunks,
    /// Before 1.0: the items chunk events continue.
    chunks_pre1: chunks_pre1::PreChunks,
    tool_calls: tool_calls::ToolCalls,
    subagents: subagents::Subagents,
    /// 1.x, this run: what it streamed for each message and tool call.
    streamed: streamed::Streamed,
    state: state::State,
    /// 1.x: activity messages and their content, across runs (messages
    /// accumulate).
    activities: activity::Activities,
    /// What the state and the activity contents may take, and what
    /// applying the stream's patches may cost.
    budget: patch::Budget,
    /// What the open tool calls' argument text may hold, in all.
    arguments: Arc<held::Pool>,
    /// How the latest 1.x run finished, for the next request's resume.
    interrupted: Option<Interrupted>,
    last: Option<EventPlace>,
    /// The version that judged the latest event.
    protocol: Protocol,
}

impl Default for Sequence {
    fn default() -> Self {
        Sequence::new()
    }
}

impl Sequence {
    /// An empty stream.
    pub fn new() -> Self {
        let limit = crate::Limits::default().state_limit() as u64;
        let arguments = held::Pool::new(limit);
        Sequence {
            lifecycle: lifecycle::Lifecycle::default(),
            versions: versions::Versions::default(),
            open: open::OpenItems::new(&arguments, steps::STEP_RULES),
            chunks: chunks::Chunks::new(&arguments),
            chunks_pre1: chunks_pre1::PreChunks::new(&arguments),
            tool_calls: tool_calls::ToolCalls::default(),
            subagents: subagents::Subagents::default(),
            streamed: streamed::Streamed::default(),
            state: state::State::default(),
            activities: activity::Activities::default(),
            budget: patch::Budget::new(limit),
            arguments,
            interrupted: None,
            last: None,
            protocol: Protocol::NEWEST,
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
        self.tool_calls.answer(input);
        self.state.answer(input.get("state"));
    }

    /// Holds the state and the activity contents to `bytes` in all, and
    /// to `total` with every other stream checked at once (see
    /// `state-over-budget`); set before the stream's first event.
    pub(crate) fn bound_state(&mut self, bytes: usize, total: &Arc<total::Total>) {
        let bytes = bytes as u64;
        if self.budget.meter.limit == bytes && Arc::ptr_eq(self.budget.share_total(), total) {
            return;
        }
        self.arguments.bound(bytes, total);
        self.budget.bound(bytes, total);
    }

    /// How the stream's latest 1.x run finished or failed, if one did.
    pub fn interrupted(&self) -> Option<&Interrupted> {
        self.interrupted.as_ref()
    }

    /// The `protocolVersion` the request that asked for this stream
    /// declared: a 1.x `RUN_STARTED` declaring another is reported.
    pub fn expect_version(&mut self, declared: &str) {
        self.versions.expect(declared);
    }

    /// The `protocolVersion` the request this stream answers declared, if
    /// it is known.
    pub(crate) fn requested_version(&self) -> Option<&str> {
        self.versions.requested()
    }

    /// Checks one event, judged by `protocol`, against those before it.
    /// Events that are not objects with a string `type` are skipped: the
    /// schema reports them.
    ///
    /// The trackers see the event in this order:
    ///
    /// 1. 1.x: the chunk streams it closes ([`chunks`]), before anything
    ///    judges the event itself;
    /// 2. the run boundary it crosses ([`lifecycle`]), and what the
    ///    trackers forget or start from there;
    /// 3. 1.x: whether an undeclared run shows it is 1.x ([`versions`]),
    ///    then its subagent attribution ([`subagents`]); a chunk event
    ///    then goes to its chunk stream and no further;
    /// 4. 1.x: what the run streamed ([`streamed`]), then activity
    ///    messages ([`activity`]); before 1.0, chunk events
    ///    ([`chunks_pre1`]);
    /// 5. items opened and ended by id: text messages, tool calls,
    ///    reasoning, steps;
    /// 6. the state ([`state`]).
    pub fn event<'e>(
        &mut self,
        event: impl Into<EventView<'e>>,
        protocol: Protocol,
        place: &EventPlace,
        out: &mut impl Findings,
    ) {
        let event = event.into();
        let Some(type_) = event.str("type") else {
            return;
        };
        self.protocol = protocol;
        let at = Here::new(event, type_, place, protocol);
        let v1 = protocol.is_1x();
        if v1 {
            self.chunks.close_for(&at, out);
        }
        match self.lifecycle.event(&at, out) {
            Some(Boundary::Started) => self.run_started(&at, out),
            Some(Boundary::Finished { thread }) => self.run_finished(thread, &at, out),
            Some(Boundary::Errored) => self.forget_run(),
            None => {}
        }
        if v1 {
            self.versions.uses_1x(&at, out);
            self.subagents.event(&at, &mut self.open, out);
            if let Some(chunk) = ChunkKind::of(at.kind) {
                self.chunk(chunk, &at, out);
                self.last = Some(place.clone());
                return;
            }
            self.streamed.event(&at, out);
            self.activities.event(&at, &mut self.budget, out);
        } else {
            self.chunks_pre1.event(&at, &mut self.tool_calls, out);
        }
        text::event(&at, &mut self.open, out);
        self.tool_calls.event(&at, &mut self.open, out);
        reasoning::event(&at, &mut self.open, out);
        steps::event(&at, &mut self.open, out);
        self.state.event(&at, &mut self.budget, out);
        self.last = Some(place.clone());
    }

    /// Ends the stream: what is still open is reported on the last event.
    pub fn finish(&mut self, out: &mut impl Findings) {
        let Some(last) = self.last.clone() else {
            return;
        };
        let at = Here::end(&last, self.protocol);
        self.chunks_pre1.close_tool(&at, out);
        self.chunks.finish(&at, out);
        self.lifecycle.finish_stream(&at, out);
        self.open.finish(&at, out);
    }

    /// A run started (the lifecycle has checked its ids): what the run
    /// before it left is forgotten, and the run starts from its input.
    fn run_started(&mut self, at: &Here<'_>, out: &mut impl Findings) {
        self.forget_run();
        self.versions.run_started(at, out);
        self.streamed.clear();
        self.tool_calls.run_started(at);
        self.state.run_started(at, &mut self.budget, out);
    }

    /// The active run finished on `thread`: a chunked call ends, 1.x checks
    /// its outcome, and what is still open is reported.
    fn run_finished(&mut self, thread: Option<String>, at: &Here<'_>, out: &mut impl Findings) {
        self.chunks_pre1.close_tool(at, out);
        if at.is_1x() {
            // A read event's outcome is built into a value once.
            let outcome = at.event.get("outcome");
            outcome::check(at, outcome.as_deref(), self.tool_calls.answered(), out);
            self.interrupted = Some(Interrupted {
                thread,
                ids: outcome::interrupt_ids(outcome.as_deref()),
            });
        }
        lifecycle::finished_while_open(&mut self.open, at, out);
        self.forget_run();
    }

    /// Forgets what a run opened: it ended, or a new one started. (What a
    /// run streamed is forgotten when the next one starts; the state,
    /// activity messages, thread and run ids outlive runs.)
    fn forget_run(&mut self) {
        self.open.clear();
        self.chunks_pre1.clear();
        self.chunks.clear();
        self.subagents.clear();
        self.tool_calls.clear_run();
    }

    /// 1.x: a chunk event, through its chunk stream; what it opened or
    /// continued is what the run streamed.
    fn chunk(&mut self, chunk: ChunkKind, at: &Here<'_>, out: &mut impl Findings) {
        let chunked = self.chunks.chunk(chunk, at, out);
        let delta = at.str("delta").unwrap_or_default();
        let place = at.place;
        match (chunk, chunked) {
            (ChunkKind::Tool, Some(Chunked::Opened(id))) => {
                self.streamed
                    .call_started(&id, at.str("toolCallName"), place);
                self.streamed.call_delta(&id, delta);
                self.tool_calls.started(&id);
            }
            (ChunkKind::Tool, Some(Chunked::Continued(id))) => {
                self.streamed.call_delta(&id, delta);
            }
            (ChunkKind::Text, Some(Chunked::Opened(id))) => {
                self.streamed.message_started(&id, at.str("role"), place);
                self.streamed.message_delta(&id, delta);
            }
            (ChunkKind::Text, Some(Chunked::Continued(id))) => {
                self.streamed.message_delta(&id, delta);
            }
            _ => {}
        }
    }
}

#[cfg(test)]
pub(super) mod tests {
    use serde_json::json;

    use super::*;
    use crate::{pointer, Location};

    pub(super) fn element(index: usize) -> String {
        pointer::push("", &index.to_string())
    }

    /// Runs an events array through the pre-1.0 sequence rules.
    pub(super) fn rules_fired(events: Value) -> Vec<(String, String)> {
        rules_fired_at(Protocol::V0, events)
    }

    /// Runs an events array through the sequence rules of `protocol`.
    pub(super) fn rules_fired_at(protocol: Protocol, events: Value) -> Vec<(String, String)> {
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

    pub(super) fn fired(events: Value) -> Vec<String> {
        rules_fired(events).into_iter().map(|(r, _)| r).collect()
    }

    pub(super) fn fired_at(protocol: Protocol, events: Value) -> Vec<String> {
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

    /// The JSON block under `heading` in a rule's docs.
    pub(super) fn example(docs: &str, heading: &str) -> Value {
        let section = docs.split(heading).nth(1).expect("section");
        let block = section.split("```json").nth(1).expect("code block");
        let json = block.split("```").next().expect("block end");
        serde_json::from_str(json).expect("example is JSON")
    }

    #[test]
    fn every_rule_fires_on_its_invalid_example_and_not_on_its_valid_one() {
        // The resume rules judge a request against the run before it: their
        // examples are checked in `resume_entries_answer_the_interrupts`.
        // The open-items limit's example is 100,001 events: it is checked
        // in `open`'s tests, with a lower limit.
        let elsewhere = |rule: &Rule| {
            rule.name.starts_with("resume-") || rule.name == open::OPEN_ITEMS_OVER_LIMIT.name
        };
        for rule in RULES.iter().filter(|r| !elsewhere(r)) {
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
        // The note names no counter of its own: its record and location say
        // where the event is.
        assert_eq!(related.message, "the run started here");
    }
}
