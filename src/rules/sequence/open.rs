//! What a run opens and ends by id — text messages, tool calls, reasoning
//! phases and messages, steps, subagent invocations — in one registry, in
//! the order the items opened, so that what is still open at a run's or
//! the stream's end is reported in that order. The trackers of each family
//! ([`super::text`], [`super::tool_calls`], [`super::reasoning`],
//! [`super::steps`], [`super::subagents`]) open, continue and end their
//! items here; the rules of this file are the ones they share.

use std::borrow::Cow;
use std::sync::Arc;

use foldhash::HashMap;

use super::held::{self, Arguments};
use super::here::{owner_name, EventPlace, Here, RelatedPlace};
use crate::diagnostic::{Diagnostic, Severity};
use crate::findings::Findings;
use crate::rules::{Rule, EVERY_VERSION, SINCE_1_0};

pub(crate) const EVENT_WITHOUT_START: Rule = Rule {
    name: "event-without-start",
    severity: Severity::Error,
    protocols: EVERY_VERSION,
    severity_1x: None,
    summary: "A content, arguments or end event names a message, tool call or reasoning block that is not open",
    docs: r#"## What it checks
That `TEXT_MESSAGE_CONTENT`/`TEXT_MESSAGE_END`, `TOOL_CALL_ARGS`/
`TOOL_CALL_END`, `REASONING_MESSAGE_CONTENT`/`REASONING_MESSAGE_END` and
`REASONING_END` name an id whose start event came before and whose end
has not.

## Why it matters
Clients look the id up among open messages and tool calls; content for an
unknown id is dropped (or throws in the TypeScript client), and an end
for one already ended says the agent lost track of its own stream.

## Invalid
```json
[{"type": "RUN_STARTED", "threadId": "t1", "runId": "r1"},
 {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m1", "delta": "Hello"}]
```

## Valid
```json
[{"type": "RUN_STARTED", "threadId": "t1", "runId": "r1"},
 {"type": "TEXT_MESSAGE_START", "messageId": "m1", "role": "assistant"},
 {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m1", "delta": "Hello"},
 {"type": "TEXT_MESSAGE_END", "messageId": "m1"}]
```
"#,
};

pub(crate) const DUPLICATE_START: Rule = Rule {
    name: "duplicate-start",
    severity: Severity::Error,
    protocols: EVERY_VERSION,
    severity_1x: None,
    summary: "A start event names a message, tool call or reasoning block that is already open",
    docs: r#"## What it checks
That `TEXT_MESSAGE_START`, `TOOL_CALL_START`, `REASONING_START` and
`REASONING_MESSAGE_START` do not name an id that is open already. The
finding names the first start.

## Why it matters
Two streams under one id interleave into one garbled message or one
tool call with two argument texts run together.

## Invalid
```json
[{"type": "RUN_STARTED", "threadId": "t1", "runId": "r1"},
 {"type": "TOOL_CALL_START", "toolCallId": "c1", "toolCallName": "search"},
 {"type": "TOOL_CALL_START", "toolCallId": "c1", "toolCallName": "search"}]
```

## Valid
```json
[{"type": "RUN_STARTED", "threadId": "t1", "runId": "r1"},
 {"type": "TOOL_CALL_START", "toolCallId": "c1", "toolCallName": "search"},
 {"type": "TOOL_CALL_END", "toolCallId": "c1"},
 {"type": "TOOL_CALL_START", "toolCallId": "c2", "toolCallName": "search"}]
```
"#,
};

pub(crate) const NEVER_ENDED: Rule = Rule {
    name: "never-ended",
    severity: Severity::Error,
    protocols: EVERY_VERSION,
    severity_1x: None,
    summary: "A message, tool call or reasoning block is still open when the stream ends",
    docs: r#"## What it checks
That every text message, tool call, reasoning phase and reasoning message
started in the stream has ended when the stream ends: in practice, a stream
cut off mid-message (which is also `stream-truncated`). Chunk events close
themselves, and `RUN_ERROR` ends a run with whatever is open, so neither
is reported. The finding is on the last event and names the start.

## Why it matters
The client keeps showing the message as in progress and never runs the
tool call.

## Invalid
```json
[{"type": "RUN_STARTED", "threadId": "t1", "runId": "r1"},
 {"type": "TEXT_MESSAGE_START", "messageId": "m1", "role": "assistant"},
 {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m1", "delta": "Hel"}]
```

## Valid
```json
[{"type": "RUN_STARTED", "threadId": "t1", "runId": "r1"},
 {"type": "TEXT_MESSAGE_START", "messageId": "m1", "role": "assistant"},
 {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m1", "delta": "Hel"},
 {"type": "RUN_ERROR", "message": "cancelled"}]
```
"#,
};

pub(crate) const OWNER_MISMATCH: Rule = Rule {
    name: "continuation-owner-mismatch",
    severity: Severity::Error,
    protocols: SINCE_1_0,
    severity_1x: None,
    summary: "A content or end event is attributed to another subagent than its opener",
    docs: r#"## What it checks
AG-UI 1.x (`spec/1.1/events/subagents.mdx`, "Ownership"): once a message,
reasoning message or tool call is opened under an owner, every event
continuing it carries that owner's `subagentRunId` or none. A continuation
naming another owner is reported (an untagged one is fine).

## Why it matters
A consumer must reject it: accepting it would append one producer's content
to another producer's message, which nobody can detect afterwards.

## Invalid
```json
[{"type": "RUN_STARTED", "threadId": "t1", "runId": "r1", "protocolVersion": "1.1"},
 {"type": "TEXT_MESSAGE_START", "messageId": "m1", "role": "assistant", "subagentRunId": "s1"},
 {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m1", "delta": "hi", "subagentRunId": "s2"},
 {"type": "TEXT_MESSAGE_END", "messageId": "m1"},
 {"type": "RUN_FINISHED", "threadId": "t1", "runId": "r1"}]
```

## Valid
```json
[{"type": "RUN_STARTED", "threadId": "t1", "runId": "r1", "protocolVersion": "1.1"},
 {"type": "TEXT_MESSAGE_START", "messageId": "m1", "role": "assistant", "subagentRunId": "s1"},
 {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m1", "delta": "hi", "subagentRunId": "s1"},
 {"type": "TEXT_MESSAGE_END", "messageId": "m1"},
 {"type": "RUN_FINISHED", "threadId": "t1", "runId": "r1"}]
```
"#,
};

/// The rules an item family reports its items by: one started again while
/// open, one continued or ended while not open, one never ended.
#[derive(Debug, Clone, Copy)]
pub(super) struct ItemRules {
    /// A start for an id already open.
    pub(super) twice: &'static Rule,
    /// A continuation or end for an id not open.
    pub(super) not_open: &'static Rule,
    /// An item still open when the stream ends.
    pub(super) never_ended: &'static Rule,
}

/// The rules of every family but steps ([`super::steps::STEP_RULES`]).
pub(super) const ITEM_RULES: ItemRules = ItemRules {
    twice: &DUPLICATE_START,
    not_open: &EVENT_WITHOUT_START,
    never_ended: &NEVER_ENDED,
};

/// What kind of thing is open.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(super) enum Opened {
    TextMessage,
    ToolCall,
    ReasoningPhase,
    ReasoningMessage,
    Step,
    Subagent,
}

impl Opened {
    /// The item, named for a message.
    pub(super) fn describe(self, id: &str) -> String {
        match self {
            Opened::TextMessage => format!("text message '{id}'"),
            Opened::ToolCall => format!("tool call '{id}'"),
            Opened::ReasoningPhase => format!("reasoning phase '{id}'"),
            Opened::ReasoningMessage => format!("reasoning message '{id}'"),
            Opened::Step => format!("step '{id}'"),
            Opened::Subagent => format!("subagent '{id}'"),
        }
    }

    /// The event that would have opened it.
    fn start_event(self) -> &'static str {
        match self {
            Opened::TextMessage => "TEXT_MESSAGE_START",
            Opened::ToolCall => "TOOL_CALL_START",
            Opened::ReasoningPhase => "REASONING_START",
            Opened::ReasoningMessage => "REASONING_MESSAGE_START",
            Opened::Step => "STEP_STARTED",
            Opened::Subagent => "SUBAGENT_STARTED",
        }
    }

    /// The event that would have ended it.
    pub(super) fn end_event(self) -> &'static str {
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
pub(super) struct Open {
    pub(super) kind: Opened,
    pub(super) id: String,
    pub(super) start: EventPlace,
    pub(super) start_type: String,
    /// The subagent the opener is attributed to (1.x).
    pub(super) owner: Option<String>,
    /// Argument text of a tool call, concatenated so far.
    pub(super) arguments: Arguments,
}

/// The items open in the current run.
#[derive(Debug)]
pub(super) struct OpenItems {
    /// Open items by kind and id, in the order they opened (for reports).
    open: Vec<Open>,
    /// Positions in `open`, by kind and id: looked up by `&str` on every
    /// content event, without allocating.
    index: Index,
    /// What the open tool calls' argument text may hold, in all.
    pool: Arc<held::Pool>,
    /// The rules steps are reported by; every other kind's are
    /// [`ITEM_RULES`].
    step_rules: ItemRules,
}

impl OpenItems {
    /// Nothing open; tool calls' argument text held within `pool`; steps
    /// reported by `step_rules`.
    pub(super) fn new(pool: &Arc<held::Pool>, step_rules: ItemRules) -> OpenItems {
        OpenItems {
            open: Vec::new(),
            index: Index::default(),
            pool: Arc::clone(pool),
            step_rules,
        }
    }

    /// The rules items of `kind` are reported by.
    fn rules(&self, kind: Opened) -> ItemRules {
        if kind == Opened::Step {
            self.step_rules
        } else {
            ITEM_RULES
        }
    }

    /// Forgets what is open: a run ended, or a new one started.
    pub(super) fn clear(&mut self) {
        self.open.clear();
        self.index.clear();
    }

    /// Hands over what is open, in the order it opened, and forgets it.
    pub(super) fn take(&mut self) -> Vec<Open> {
        self.index.clear();
        std::mem::take(&mut self.open)
    }

    /// The open item of `kind` whose id is `id`, if there is one.
    pub(super) fn get(&self, kind: Opened, id: &str) -> Option<&Open> {
        self.index.of(kind).get(id).and_then(|&i| self.open.get(i))
    }

    /// Whether an item of `kind` whose id is `id` is open.
    pub(super) fn contains(&self, kind: Opened, id: &str) -> bool {
        self.index.of(kind).contains_key(id)
    }

    /// Opens the item of `kind` whose id is the event's `key`; an item
    /// already open under that id is reported.
    pub(super) fn start(
        &mut self,
        kind: Opened,
        key: &str,
        at: &Here<'_>,
        out: &mut impl Findings,
    ) {
        let Some(id) = at.str(key) else {
            return;
        };
        let type_ = at.type_;
        let lookup = key_of(kind, id, at);
        if let Some(&i) = self.index.of(kind).get(lookup.as_ref()) {
            let rule = self.rules(kind).twice;
            let message = if kind == Opened::Step {
                format!("step '{id}' is started again while it runs")
            } else {
                format!("{type_} for {}, which is already open", kind.describe(id))
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
            arguments: Arguments::new(&self.pool),
        });
    }

    /// A content or arguments event: its id must be open. A tool call's
    /// argument text is held with it.
    pub(super) fn touch(
        &mut self,
        kind: Opened,
        key: &str,
        at: &Here<'_>,
        out: &mut impl Findings,
    ) {
        let Some(id) = at.str(key) else {
            return;
        };
        let lookup = key_of(kind, id, at);
        match self.index.of(kind).get(lookup.as_ref()) {
            Some(&i) => {
                if let Some(open) = self.open.get(i) {
                    check_owner(open, at, out);
                }
                if let (Some(open), Some(delta)) = (self.open.get_mut(i), at.str("delta")) {
                    if kind == Opened::ToolCall {
                        open.arguments.push(id, delta, at, out);
                    }
                }
            }
            None => out.push(not_open(self.rules(kind), kind, key, id, at)),
        }
    }

    /// An end event: its id must be open; hands back what it closed.
    pub(super) fn end(
        &mut self,
        kind: Opened,
        key: &str,
        at: &Here<'_>,
        out: &mut impl Findings,
    ) -> Option<Open> {
        let id = at.str(key)?;
        let lookup = key_of(kind, id, at).into_owned();
        let Some(i) = self.index.of_mut(kind).remove(&lookup) else {
            out.push(not_open(self.rules(kind), kind, key, id, at));
            return None;
        };
        let closed = self.open.remove(i);
        if kind != Opened::Subagent {
            check_owner(&closed, at, out);
        }
        // Positions after the removed entry shift down by one.
        for position in self.index.positions_mut() {
            if *position > i {
                *position -= 1;
            }
        }
        Some(closed)
    }

    /// The stream ends: what is still open is reported, at `at` (its last
    /// event).
    pub(super) fn finish(&mut self, at: &Here<'_>, out: &mut impl Findings) {
        for open in self.take() {
            let rule = self.rules(open.kind).never_ended;
            let help = if open.kind == Opened::Step {
                "send STEP_FINISHED with the same stepName".to_string()
            } else {
                format!("send {} before the stream ends", open.kind.end_event())
            };
            let finding = at
                .finding(
                    rule,
                    "",
                    format!(
                        "{} is never ended: the stream ends first",
                        open.kind.describe(&open.id)
                    ),
                )
                .with_help(help);
            out.push(finding.with_related_place(&open.start, format!("{} here", open.start_type)));
        }
    }
}

/// The key an item is open under: its id, and for a 1.x step its owner
/// too (steps are per owner, `spec/1.1/events/subagents.mdx`).
fn key_of<'a>(kind: Opened, id: &'a str, at: &Here<'_>) -> Cow<'a, str> {
    match at.owner() {
        Some(owner) if kind == Opened::Step && at.is_1x() => {
            Cow::Owned(format!("{id}\u{0}{owner}"))
        }
        _ => Cow::Borrowed(id),
    }
}

/// 1.x: a continuation's attribution must agree with its opener's
/// (`spec/1.1/events/subagents.mdx`, "Ownership").
fn check_owner(open: &Open, at: &Here<'_>, out: &mut impl Findings) {
    if !at.is_1x() || open.kind == Opened::Step {
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
                "{} for {} is attributed to subagent '{tag}', but {opener} opened it",
                at.type_,
                open.kind.describe(&open.id)
            ),
        )
        .with_help("a continuation carries its opener's subagentRunId or none")
        .with_related_place(&open.start, format!("{} here", open.start_type)),
    );
}

/// The finding for a continuation or an end of `kind` whose id (`key`,
/// `id`) is not open.
fn not_open(rules: ItemRules, kind: Opened, key: &str, id: &str, at: &Here<'_>) -> Diagnostic {
    let message = if kind == Opened::Step {
        format!("STEP_FINISHED for step '{id}', which is not running")
    } else {
        format!("{} for {}, which is not open", at.type_, kind.describe(id))
    };
    at.finding(rules.not_open, &format!("/{key}"), message)
        .with_help(format!(
            "send {} first; an id stays open until its {}",
            kind.start_event(),
            kind.end_event()
        ))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::super::tests::fired;

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
                crate::rules::sequence::steps::STEP_STARTED_TWICE.name,
                crate::rules::sequence::steps::STEP_FINISHED_WITHOUT_START.name,
                crate::rules::sequence::lifecycle::RUN_FINISHED_WHILE_OPEN.name,
                crate::rules::sequence::lifecycle::RUN_FINISHED_WHILE_OPEN.name
            ]
        );
        assert_eq!(
            fired(json!([
                {"type": "RUN_STARTED", "threadId": "t", "runId": "r", "protocolVersion": "1.1"},
                {"type": "REASONING_START", "messageId": "p"},
                {"type": "STEP_STARTED", "stepName": "s"}
            ])),
            [
                crate::rules::sequence::lifecycle::STREAM_TRUNCATED.name,
                "never-ended",
                crate::rules::sequence::steps::STEP_NEVER_FINISHED.name
            ]
        );
    }
}
