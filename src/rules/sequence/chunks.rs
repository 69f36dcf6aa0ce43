//! Chunk streams as AG-UI 1.x defines them (`spec/1.1/basic/patterns/streaming.mdx`,
//! "The chunked form"): per owner lane (the parent agent's, or a
//! subagent's), which chunk opens an item and which continues it, the
//! fields a continuation may not contradict, and the events that close a
//! chunk stream (and those, such as `RAW`, that do not).
//!
//! Only what is open is kept: one item per kind per lane, and for each
//! kind the last item an event closed, to explain a continuation that
//! comes too late.

use std::sync::Arc;

use foldhash::HashMap;

use super::event_type::EventType;
use super::held::{Arguments, Pool};
use super::here::{owner_name, EventPlace, Here};
use super::open::OWNER_MISMATCH;
use super::tool_calls::check_arguments;
use crate::diagnostic::{Diagnostic, Severity};
use crate::findings::Findings;
use crate::rules::{Rule, EVERY_VERSION, SINCE_1_0};

pub(crate) const FIRST_CHUNK_WITHOUT_ID: Rule = Rule {
    name: "first-chunk-without-id",
    severity: Severity::Error,
    protocols: EVERY_VERSION,
    severity_1x: None,
    summary: "The first chunk of a message or tool call lacks its id (or a tool call its name)",
    docs: r#"## What it checks
That the first `TEXT_MESSAGE_CHUNK` and `REASONING_MESSAGE_CHUNK` of a
message carry `messageId`, and the first `TOOL_CALL_CHUNK` of a tool call
carries both `toolCallId` and `toolCallName`. Later chunks may leave them
out and continue the current message or call.

## Why it matters
The client expands the first chunk into a start event, which needs the id
(and the tool's name); without them it cannot start anything and drops
the chunk.

## Invalid
```json
[{"type": "RUN_STARTED", "threadId": "t1", "runId": "r1"},
 {"type": "TOOL_CALL_CHUNK", "toolCallId": "c1", "delta": "{}"}]
```

## Valid
```json
[{"type": "RUN_STARTED", "threadId": "t1", "runId": "r1"},
 {"type": "TOOL_CALL_CHUNK", "toolCallId": "c1", "toolCallName": "search", "delta": "{"},
 {"type": "TOOL_CALL_CHUNK", "delta": "}"}]
```
"#,
};

pub(super) const CHUNK_CONTRADICTS_OPENER: Rule = Rule {
    name: "chunk-contradicts-opener",
    severity: Severity::Error,
    protocols: SINCE_1_0,
    severity_1x: None,
    summary: "A continuation chunk repeats a field of its opener with another value",
    docs: r#"## What it checks
AG-UI 1.x (`spec/1.1/basic/patterns/streaming.mdx`, "Continuation chunks"):
a later chunk may repeat a field its first chunk established (`role` or
`name` of a text message, `toolCallName` or `parentMessageId` of a tool
call) only with the same value. A message opened without a role is an
`assistant` message, so a continuation claiming another role contradicts it.

## Why it matters
The producer said two incompatible things about one item; a consumer must
reject the stream rather than choose.

## Invalid
```json
[{"type": "RUN_STARTED", "threadId": "t1", "runId": "r1", "protocolVersion": "1.1"},
 {"type": "TEXT_MESSAGE_CHUNK", "messageId": "m1", "delta": "Hel"},
 {"type": "TEXT_MESSAGE_CHUNK", "messageId": "m1", "role": "user", "delta": "lo"},
 {"type": "RUN_FINISHED", "threadId": "t1", "runId": "r1"}]
```

## Valid
```json
[{"type": "RUN_STARTED", "threadId": "t1", "runId": "r1", "protocolVersion": "1.1"},
 {"type": "TEXT_MESSAGE_CHUNK", "messageId": "m1", "delta": "Hel"},
 {"type": "TEXT_MESSAGE_CHUNK", "messageId": "m1", "role": "assistant", "delta": "lo"},
 {"type": "RUN_FINISHED", "threadId": "t1", "runId": "r1"}]
```
"#,
};

pub(super) const CHUNK_CONTINUATION_AMBIGUOUS: Rule = Rule {
    name: "chunk-continuation-ambiguous",
    severity: Severity::Error,
    protocols: SINCE_1_0,
    severity_1x: None,
    summary: "A chunk names no item and no owner while several subagents stream one",
    docs: r#"## What it checks
AG-UI 1.x (`spec/1.1/basic/patterns/streaming.mdx`, "Closing a chunk
stream"): a chunk carrying neither its item's id nor a `subagentRunId`
continues the parent agent's open stream of its kind, else the only open
one. When several subagents have one open and the parent none, it has no
unique referent.

## Why it matters
A consumer must reject the chunk as ambiguous: appending it to either
stream could put one agent's words in another's message.

## Invalid
```json
[{"type": "RUN_STARTED", "threadId": "t1", "runId": "r1", "protocolVersion": "1.1"},
 {"type": "TEXT_MESSAGE_CHUNK", "messageId": "m1", "subagentRunId": "s1", "delta": "a"},
 {"type": "TEXT_MESSAGE_CHUNK", "messageId": "m2", "subagentRunId": "s2", "delta": "b"},
 {"type": "TEXT_MESSAGE_CHUNK", "delta": "c"},
 {"type": "RUN_FINISHED", "threadId": "t1", "runId": "r1"}]
```

## Valid
```json
[{"type": "RUN_STARTED", "threadId": "t1", "runId": "r1", "protocolVersion": "1.1"},
 {"type": "TEXT_MESSAGE_CHUNK", "messageId": "m1", "subagentRunId": "s1", "delta": "a"},
 {"type": "TEXT_MESSAGE_CHUNK", "messageId": "m2", "subagentRunId": "s2", "delta": "b"},
 {"type": "TEXT_MESSAGE_CHUNK", "subagentRunId": "s1", "delta": "c"},
 {"type": "RUN_FINISHED", "threadId": "t1", "runId": "r1"}]
```
"#,
};

/// What a chunk did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Chunked {
    /// Opened the item of this id.
    Opened(String),
    /// Continued the open item of this id.
    Continued(String),
}

/// The three chunked families.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum ChunkKind {
    Text,
    Reasoning,
    Tool,
}

impl ChunkKind {
    /// The kind of a chunk event type, if it is one.
    pub(super) fn of(kind: EventType) -> Option<ChunkKind> {
        match kind {
            EventType::TextMessageChunk => Some(ChunkKind::Text),
            EventType::ReasoningMessageChunk => Some(ChunkKind::Reasoning),
            EventType::ToolCallChunk => Some(ChunkKind::Tool),
            _ => None,
        }
    }

    fn id_key(self) -> &'static str {
        match self {
            ChunkKind::Tool => "toolCallId",
            _ => "messageId",
        }
    }

    fn type_name(self) -> &'static str {
        match self {
            ChunkKind::Text => "TEXT_MESSAGE_CHUNK",
            ChunkKind::Reasoning => "REASONING_MESSAGE_CHUNK",
            ChunkKind::Tool => "TOOL_CALL_CHUNK",
        }
    }

    fn describe(self, id: &str) -> String {
        match self {
            ChunkKind::Tool => format!("tool call '{id}'"),
            ChunkKind::Text => format!("text message '{id}'"),
            ChunkKind::Reasoning => format!("reasoning message '{id}'"),
        }
    }

    /// The fields an opener establishes and a continuation may repeat only
    /// with the same value, with the value an absent field stands for.
    fn established(self) -> &'static [(&'static str, Option<&'static str>)] {
        match self {
            ChunkKind::Text => &[("role", Some("assistant")), ("name", None)],
            ChunkKind::Reasoning => &[],
            ChunkKind::Tool => &[("toolCallName", None), ("parentMessageId", None)],
        }
    }

    fn index(self) -> usize {
        self as usize
    }
}

/// An item a chunk opened.
#[derive(Debug, Clone)]
pub(super) struct ChunkItem {
    pub(super) id: String,
    pub(super) start: EventPlace,
    /// The opener's established fields, in [`ChunkKind::established`] order.
    fields: Vec<Option<String>>,
    pub(super) arguments: Arguments,
}

/// The item an event closed, to explain a continuation after it.
#[derive(Debug, Clone)]
struct Closed {
    id: String,
    by_type: String,
    by: EventPlace,
}

#[derive(Debug, Default)]
struct Lane {
    open: [Option<ChunkItem>; 3],
    closed: [Option<Closed>; 3],
}

/// The chunk streams of one run, by owner lane (`None`: the parent agent).
#[derive(Debug)]
pub(super) struct Chunks {
    lanes: HashMap<Option<String>, Lane>,
    /// Where the chunked calls' argument text is counted.
    pool: Arc<Pool>,
}

impl Chunks {
    /// No chunk stream open; chunked calls' arguments counted in `pool`.
    pub(super) fn new(pool: &Arc<Pool>) -> Chunks {
        Chunks {
            lanes: HashMap::default(),
            pool: pool.clone(),
        }
    }

    /// Whether any lane has a chunk stream open.
    fn any_open(&self) -> bool {
        self.lanes
            .values()
            .any(|lane| lane.open.iter().any(Option::is_some))
    }

    /// Forgets every lane: a new run starts with nothing open.
    pub(super) fn clear(&mut self) {
        self.lanes.clear();
    }

    /// 1.x: the chunk streams the event at `at` closes
    /// (`spec/1.1/basic/patterns/streaming.mdx`, "Closing a chunk stream").
    pub(super) fn close_for(&mut self, at: &Here<'_>, out: &mut impl Findings) {
        let owner = at.owner();
        let type_ = at.type_;
        match at.kind {
            EventType::TextMessageChunk
            | EventType::ReasoningMessageChunk
            | EventType::ToolCallChunk => {}
            // RUN_ERROR abandons what is open: nothing is judged complete.
            EventType::RunError => self.clear(),
            EventType::RunStarted | EventType::RunFinished | EventType::MessagesSnapshot => {
                self.close(None, true, type_, at, out);
            }
            EventType::SubagentFinished | EventType::SubagentError => {
                if let Some(id) = owner {
                    self.end_owner(id, type_, at, out);
                }
            }
            EventType::TextMessageStart
            | EventType::TextMessageContent
            | EventType::TextMessageEnd
            | EventType::ToolCallStart
            | EventType::ToolCallArgs
            | EventType::ToolCallEnd
            | EventType::ToolCallResult
            | EventType::StepStarted
            | EventType::StepFinished
            | EventType::StateSnapshot
            | EventType::StateDelta
            | EventType::Custom
            | EventType::ReasoningStart
            | EventType::ReasoningEnd
            | EventType::ReasoningMessageStart
            | EventType::ReasoningMessageContent
            | EventType::ReasoningMessageEnd => {
                self.close(owner, false, type_, at, out);
            }
            // RAW, ACTIVITY_*, REASONING_ENCRYPTED_VALUE and
            // SUBAGENT_STARTED stand aside; unknown events are dropped.
            EventType::Raw
            | EventType::ActivitySnapshot
            | EventType::ActivityDelta
            | EventType::ReasoningEncryptedValue
            | EventType::SubagentStarted
            | EventType::Other => {}
        }
    }

    /// `type_` closes every chunk stream of `owner`'s lane, or of every lane
    /// when `owner` is `None` and `all` is set.
    fn close(
        &mut self,
        owner: Option<&str>,
        all: bool,
        type_: &str,
        at: &Here<'_>,
        out: &mut impl Findings,
    ) {
        // Most events close nothing: no chunk stream is open.
        if !self.any_open() {
            return;
        }
        if all {
            for lane in self.lanes.values_mut() {
                close_lane(lane, type_, at, out);
            }
        } else if let Some(lane) = self.lanes.get_mut(&owner.map(str::to_string)) {
            close_lane(lane, type_, at, out);
        }
    }

    /// Drops a terminated subagent's lane after closing it.
    fn end_owner(&mut self, owner: &str, type_: &str, at: &Here<'_>, out: &mut impl Findings) {
        if let Some(mut lane) = self.lanes.remove(&Some(owner.to_string())) {
            close_lane(&mut lane, type_, at, out);
        }
    }

    /// A chunk of `kind`: continues an open item or opens one. Hands back
    /// which item, and whether it opened it.
    pub(super) fn chunk(
        &mut self,
        kind: ChunkKind,
        at: &Here<'_>,
        out: &mut impl Findings,
    ) -> Option<Chunked> {
        let k = kind.index();
        let tag = at.owner().map(str::to_string);
        let id = at.str(kind.id_key());
        // The lane whose open item this chunk continues, if any.
        let holding = |lanes: &HashMap<Option<String>, Lane>, id: &str| {
            lanes
                .iter()
                .find(|(_, lane)| lane.open[k].as_ref().is_some_and(|item| item.id == id))
                .map(|(owner, _)| owner.clone())
        };
        let continues: Option<Option<String>> = match (&tag, id) {
            (Some(owner), Some(id)) => {
                let in_own = self
                    .lanes
                    .get(&tag)
                    .and_then(|lane| lane.open[k].as_ref())
                    .is_some_and(|item| item.id == id);
                if in_own {
                    Some(tag.clone())
                } else if let Some(other) = holding(&self.lanes, id) {
                    out.push(owner_mismatch(
                        kind,
                        id,
                        owner,
                        other.as_deref(),
                        at,
                        &self.lanes,
                        k,
                    ));
                    Some(other)
                } else {
                    None
                }
            }
            (None, Some(id)) => holding(&self.lanes, id),
            (Some(_), None) => self
                .lanes
                .get(&tag)
                .filter(|lane| lane.open[k].is_some())
                .map(|_| tag.clone()),
            (None, None) => {
                let parent_open = self
                    .lanes
                    .get(&None)
                    .is_some_and(|lane| lane.open[k].is_some());
                if parent_open {
                    Some(None)
                } else {
                    let open: Vec<&Option<String>> = self
                        .lanes
                        .iter()
                        .filter(|(_, lane)| lane.open[k].is_some())
                        .map(|(owner, _)| owner)
                        .collect();
                    match open.as_slice() {
                        [one] => Some((*one).clone()),
                        [] => None,
                        many => {
                            let mut names: Vec<&str> =
                                many.iter().filter_map(|o| o.as_deref()).collect();
                            names.sort_unstable();
                            out.push(
                                at.finding(
                                    &CHUNK_CONTINUATION_AMBIGUOUS,
                                    "",
                                    format!(
                                        "{} carries neither {} nor subagentRunId while subagents {} each have one open",
                                        kind.type_name(),
                                        kind.id_key(),
                                        names.iter().map(|n| format!("'{n}'")).collect::<Vec<_>>().join(", ")
                                    ),
                                )
                                .with_help("a producer running parallel subagents must attribute its continuations (subagentRunId) or name the item"),
                            );
                            return None;
                        }
                    }
                }
            }
        };
        if let Some(owner) = continues {
            let lane = self.lanes.entry(owner).or_default();
            close_other_kinds(lane, kind, at, out);
            if let Some(item) = lane.open[k].as_mut() {
                contradictions(kind, item, at, out);
                if let Some(delta) = at.str("delta") {
                    item.arguments.push(&item.id, delta, at, out);
                }
                return Some(Chunked::Continued(item.id.clone()));
            }
            return None;
        }
        // A new item, in the lane its tag names.
        let lane = self.lanes.entry(tag).or_default();
        close_other_kinds(lane, kind, at, out);
        if let Some(item) = lane.open[k].take() {
            close_item(kind, &item, at, out);
        }
        let name_missing = kind == ChunkKind::Tool && at.str("toolCallName").is_none();
        let Some(id) = id.filter(|_| !name_missing) else {
            let missing = match (id, name_missing) {
                (None, true) => "toolCallId and toolCallName".to_string(),
                (None, false) => kind.id_key().to_string(),
                _ => "toolCallName".to_string(),
            };
            let mut finding = at.finding(
                &FIRST_CHUNK_WITHOUT_ID,
                "",
                match &lane.closed[k] {
                    Some(closed) if id.is_none() => format!(
                        "{} has no {missing}, and the chunk stream of {} it would continue was closed by {}",
                        kind.type_name(),
                        kind.describe(&closed.id),
                        closed.by_type
                    ),
                    _ => format!(
                        "the first {} of an item has no {missing}",
                        kind.type_name()
                    ),
                },
            )
            .with_help(match kind {
                ChunkKind::Tool => "give the first chunk of each tool call its toolCallId and toolCallName; any event but RAW, ACTIVITY_*, REASONING_ENCRYPTED_VALUE and SUBAGENT_STARTED ends a chunk stream",
                _ => "give the first chunk of each message its messageId; any event but RAW, ACTIVITY_*, REASONING_ENCRYPTED_VALUE and SUBAGENT_STARTED ends a chunk stream",
            });
            if let (Some(closed), None) = (&lane.closed[k], id) {
                finding = finding.with_note(
                    closed
                        .by
                        .note(format!("{} closed the chunk stream here", closed.by_type)),
                );
            }
            out.push(finding);
            return None;
        };
        lane.closed[k] = None;
        let fields = kind
            .established()
            .iter()
            .map(|(key, default)| {
                at.str(key)
                    .map(str::to_string)
                    .or_else(|| default.map(str::to_string))
            })
            .collect();
        let mut item = ChunkItem {
            id: id.to_string(),
            start: at.place.clone(),
            fields,
            arguments: Arguments::new(&self.pool),
        };
        if let Some(delta) = at.str("delta") {
            item.arguments.push(id, delta, at, out);
        }
        lane.open[k] = Some(item);
        Some(Chunked::Opened(id.to_string()))
    }

    /// Ends the stream or the run: every open item closes, tool calls
    /// checked, with nothing remembered.
    pub(super) fn finish(&mut self, at: &Here<'_>, out: &mut impl Findings) {
        for lane in self.lanes.values_mut() {
            if let Some(item) = lane.open[ChunkKind::Tool.index()].take() {
                close_item(ChunkKind::Tool, &item, at, out);
            }
        }
        self.lanes.clear();
    }
}

fn close_lane(lane: &mut Lane, type_: &str, at: &Here<'_>, out: &mut impl Findings) {
    for kind in [ChunkKind::Text, ChunkKind::Reasoning, ChunkKind::Tool] {
        close_kind(lane, kind, type_, at, out);
    }
}

fn close_other_kinds(lane: &mut Lane, kind: ChunkKind, at: &Here<'_>, out: &mut impl Findings) {
    for other in [ChunkKind::Text, ChunkKind::Reasoning, ChunkKind::Tool] {
        if other != kind {
            close_kind(lane, other, kind.type_name(), at, out);
        }
    }
}

fn close_kind(
    lane: &mut Lane,
    kind: ChunkKind,
    type_: &str,
    at: &Here<'_>,
    out: &mut impl Findings,
) {
    if let Some(item) = lane.open[kind.index()].take() {
        close_item(kind, &item, at, out);
        lane.closed[kind.index()] = Some(Closed {
            id: item.id,
            by_type: type_.to_string(),
            by: at.place.clone(),
        });
    }
}

/// A closing tool call's arguments must be JSON by now.
fn close_item(kind: ChunkKind, item: &ChunkItem, at: &Here<'_>, out: &mut impl Findings) {
    if kind == ChunkKind::Tool {
        check_arguments(
            &item.id,
            item.arguments.text(),
            &item.start,
            "TOOL_CALL_CHUNK",
            at,
            out,
        );
    }
}

/// A continuation may repeat what its opener established, with the same
/// value only.
fn contradictions(kind: ChunkKind, item: &ChunkItem, at: &Here<'_>, out: &mut impl Findings) {
    for ((key, _), established) in kind.established().iter().zip(&item.fields) {
        let (Some(found), Some(established)) = (at.str(key), established) else {
            continue;
        };
        if found != established {
            out.push(
                at.finding(
                    &CHUNK_CONTRADICTS_OPENER,
                    &format!("/{key}"),
                    format!(
                        "{} for {} has {key} '{found}', its first chunk established '{established}'",
                        kind.type_name(),
                        kind.describe(&item.id)
                    ),
                )
                .with_help(format!(
                    "repeat {key} with the opener's value or leave it out; to start another item give the chunk a new {}",
                    kind.id_key()
                ))
                .with_note(item.start.note("the first chunk here")),
            );
        }
    }
}

fn owner_mismatch(
    kind: ChunkKind,
    id: &str,
    tag: &str,
    owner: Option<&str>,
    at: &Here<'_>,
    lanes: &HashMap<Option<String>, Lane>,
    k: usize,
) -> Diagnostic {
    let opener = owner_name(owner);
    let mut finding = at
        .finding(
            &OWNER_MISMATCH,
            "/subagentRunId",
            format!(
                "{} for {} is attributed to subagent '{tag}', but {opener} opened it",
                kind.type_name(),
                kind.describe(id)
            ),
        )
        .with_help("a continuation carries its opener's subagentRunId or none");
    if let Some(item) = lanes
        .get(&owner.map(str::to_string))
        .and_then(|lane| lane.open[k].as_ref())
    {
        finding = finding.with_note(item.start.note("the first chunk here"));
    }
    finding
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::super::tests::{fired_at, rules_fired_at};
    use crate::Protocol;

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
}
