//! Rules over a conversation: ids, tool calls, and the tool results that
//! answer them.
//!
//! Model providers reject histories in which a tool result answers no call,
//! or a call is left unanswered before the conversation moves on; neither
//! SDK checks this, so a bad history fails only at the provider, mid-run.

use super::arguments::{self, Arguments};
use super::ids::{small, IdMap};
use super::view::{Call, Conversation, Findings, Message, RunIds, Text};
use super::Rule;
use crate::diagnostic::Severity;
use crate::rules::EVERY_VERSION;

/// The rules of this family, in documentation order.
pub(super) const RULES: &[Rule] = &[
    DUPLICATE_MESSAGE_ID,
    EMPTY_ID,
    PARENT_RUN_IS_SELF,
    DUPLICATE_TOOL_CALL_ID,
    TOOL_RESULT_WITHOUT_CALL,
    DUPLICATE_TOOL_RESULT,
    TOOL_CALL_WITHOUT_RESULT,
    arguments::TOOL_ARGUMENTS_NOT_JSON,
    arguments::TOOL_ARGUMENTS_NOT_OBJECT,
    arguments::TOOL_ARGUMENTS_SCHEMA_MISMATCH,
    arguments::TOOL_ARGUMENTS_UNCHECKED,
    arguments::TOOL_CALL_UNKNOWN_TOOL,
];

pub(crate) const DUPLICATE_MESSAGE_ID: Rule = Rule {
    name: "duplicate-message-id",
    severity: Severity::Error,
    protocols: EVERY_VERSION,
    severity_1x: None,
    summary: "Two messages share an id",
    docs: r#"## What it checks
That every message of a conversation has its own `id`. The finding points
at the later message's id, with the first as related information.

## Why it matters
Clients key messages by id: a repeated id makes one message replace or hide
another in the UI, and snapshots (`MESSAGES_SNAPSHOT`) merge the wrong ones.

## Where the official receivers differ
zod, pydantic and `@ag-ui/client` accept two messages with one id; the
client then keys them as one, so one replaces or hides the other. An
error where the receivers say nothing, because what they do with it loses
a message.

## Invalid
```json
[{"id": "m1", "role": "user", "content": "hi"},
 {"id": "m1", "role": "assistant", "content": "hello"}]
```

## Valid
```json
[{"id": "m1", "role": "user", "content": "hi"},
 {"id": "m2", "role": "assistant", "content": "hello"}]
```
"#,
};

pub(crate) const EMPTY_ID: Rule = Rule {
    name: "empty-id",
    severity: Severity::Warning,
    protocols: EVERY_VERSION,
    severity_1x: None,
    summary: "An id is the empty string",
    docs: r#"## What it checks
That `threadId`, `runId`, message ids and tool call ids are not `""`.

## Why it matters
The schemas allow any string, but an empty id cannot be told from a missing
one by most code (`if (!id)`), so threads, runs or messages get merged or
dropped.

## Where the official receivers differ
Every official receiver accepts an empty id (the schemas allow any
string); `@ag-ui/client` then treats it as missing where it keys by id. A
warning, since nothing refuses it, where the receivers say nothing: what
they do with it is the loss this rule names.

## Invalid
```json
{"id": "", "role": "user", "content": "hi"}
```

## Valid
```json
{"id": "msg-1", "role": "user", "content": "hi"}
```
"#,
};

const PARENT_RUN_IS_SELF: Rule = Rule {
    name: "parent-run-is-self",
    severity: Severity::Error,
    protocols: EVERY_VERSION,
    severity_1x: None,
    summary: "A run names itself as its parent",
    docs: r#"## What it checks
That `parentRunId`, when given, differs from `runId`.

## Why it matters
`parentRunId` names the run that spawned this one. A run that is its own
parent makes run trees cyclic; code that walks up the tree never stops.

## Invalid
```json
{"threadId": "t1", "runId": "r1", "parentRunId": "r1", "state": null,
 "messages": [], "tools": [], "context": [], "forwardedProps": null}
```

## Valid
```json
{"threadId": "t1", "runId": "r2", "parentRunId": "r1", "state": null,
 "messages": [], "tools": [], "context": [], "forwardedProps": null}
```
"#,
};

pub(crate) const DUPLICATE_TOOL_CALL_ID: Rule = Rule {
    name: "duplicate-tool-call-id",
    severity: Severity::Error,
    protocols: EVERY_VERSION,
    severity_1x: None,
    summary: "Two tool calls share an id",
    docs: r#"## What it checks
That every tool call across the messages has its own `id`.

## Why it matters
A tool message answers a call by its id (`toolCallId`). With two calls of
one id, a result cannot be matched to its call, and model providers reject
the history.

## Invalid
```json
{"id": "m2", "role": "assistant", "toolCalls": [
  {"id": "call_1", "type": "function", "function": {"name": "a", "arguments": "{}"}},
  {"id": "call_1", "type": "function", "function": {"name": "b", "arguments": "{}"}}]}
```

## Valid
```json
{"id": "m2", "role": "assistant", "toolCalls": [
  {"id": "call_1", "type": "function", "function": {"name": "a", "arguments": "{}"}},
  {"id": "call_2", "type": "function", "function": {"name": "b", "arguments": "{}"}}]}
```
"#,
};

pub(crate) const TOOL_RESULT_WITHOUT_CALL: Rule = Rule {
    name: "tool-result-without-call",
    severity: Severity::Error,
    protocols: EVERY_VERSION,
    severity_1x: None,
    summary: "A tool message answers no tool call of an earlier assistant message",
    docs: r#"## What it checks
That each tool message's `toolCallId` is the id of a tool call made by an
earlier assistant message. A call that only appears after its result is
reported too, and said so.

## Why it matters
Model providers reject a history whose tool result has no preceding call;
the run fails at the provider instead of at the client.

## Where the official receivers differ
No official receiver checks a conversation: zod, pydantic and
`@ag-ui/client` take a tool message answering no call. Model providers
refuse such a history when the agent sends it on, which fails the run
there: the error is theirs, reported where the history is made.

## Invalid
```json
[{"id": "m1", "role": "user", "content": "weather?"},
 {"id": "m2", "role": "tool", "toolCallId": "call_9", "content": "18°C"}]
```

## Valid
```json
[{"id": "m1", "role": "user", "content": "weather?"},
 {"id": "m2", "role": "assistant", "toolCalls": [{"id": "call_9", "type": "function",
   "function": {"name": "get_weather", "arguments": "{}"}}]},
 {"id": "m3", "role": "tool", "toolCallId": "call_9", "content": "18°C"}]
```
"#,
};

const DUPLICATE_TOOL_RESULT: Rule = Rule {
    name: "duplicate-tool-result",
    severity: Severity::Warning,
    protocols: EVERY_VERSION,
    severity_1x: None,
    summary: "Two tool messages answer the same tool call",
    docs: r#"## What it checks
That each tool call is answered by at most one tool message.

## Why it matters
Providers expect exactly one result per call; which of two results the
model sees depends on the integration.

## Invalid
```json
[{"id": "m2", "role": "assistant", "toolCalls": [{"id": "call_1", "type": "function",
   "function": {"name": "f", "arguments": "{}"}}]},
 {"id": "m3", "role": "tool", "toolCallId": "call_1", "content": "a"},
 {"id": "m4", "role": "tool", "toolCallId": "call_1", "content": "b"}]
```

## Valid
```json
[{"id": "m2", "role": "assistant", "toolCalls": [{"id": "call_1", "type": "function",
   "function": {"name": "f", "arguments": "{}"}}]},
 {"id": "m3", "role": "tool", "toolCallId": "call_1", "content": "a"}]
```
"#,
};

const TOOL_CALL_WITHOUT_RESULT: Rule = Rule {
    name: "tool-call-without-result",
    severity: Severity::Warning,
    protocols: EVERY_VERSION,
    severity_1x: None,
    summary: "A tool call is left unanswered while the conversation moves on",
    docs: r#"## What it checks
That every tool call of an assistant message is answered by a tool message
before a later user or assistant message. A call at the end of the
conversation, still waiting for its result, is fine.

## Why it matters
Model providers reject a history in which a tool call has no result and the
conversation continues.

## Where the official receivers differ
No official receiver checks a conversation: a call left unanswered
passes zod, pydantic and `@ag-ui/client`. Providers that require every
call answered refuse the next turn; a warning, since some accept it.

## Invalid
```json
[{"id": "m2", "role": "assistant", "toolCalls": [{"id": "call_1", "type": "function",
   "function": {"name": "f", "arguments": "{}"}}]},
 {"id": "m3", "role": "user", "content": "never mind"}]
```

## Valid
```json
[{"id": "m2", "role": "assistant", "toolCalls": [{"id": "call_1", "type": "function",
   "function": {"name": "f", "arguments": "{}"}}]},
 {"id": "m3", "role": "tool", "toolCallId": "call_1", "content": "done"},
 {"id": "m4", "role": "user", "content": "thanks"}]
```
"#,
};

/// The run's own ids: checked once per RunAgentInput.
pub(crate) fn check_run_ids(run: &RunIds<'_>, out: &mut impl Findings) {
    for (key, id) in [("threadId", run.thread_id), ("runId", run.run_id)] {
        if id == Some("") {
            out.add(&EMPTY_ID, |rule| {
                rule.diagnostic(format!("/{key}"), format!("'{key}' is the empty string"))
            });
        }
    }
    if let (Some(run_id), Some(parent)) = (run.run_id, run.parent_run_id) {
        if parent == run_id {
            out.add(&PARENT_RUN_IS_SELF, |rule| {
                rule.diagnostic(
                    "/parentRunId",
                    format!("'parentRunId' is the run's own id '{run_id}'"),
                )
                .with_related("/runId", "the run's id")
                .with_help("name the run that spawned this one, or leave 'parentRunId' out")
            });
        }
    }
}

/// This family's rules over a conversation fed one message at a time, in
/// order: what they must remember across messages is kept by id (the
/// first message and call of each id, the calls still unanswered, the
/// results that came before any call of theirs), never the messages
/// themselves, so that a conversation of a million messages costs its
/// distinct ids and its findings.
pub(crate) struct MessageRules<'c, 'a> {
    conversation: &'c Conversation<'a>,
    /// Message id -> the first message with it.
    message_ids: IdMap<u32>,
    /// Call id -> where its first call is made.
    call_ids: IdMap<(u32, u32)>,
    /// Call id -> the first tool message answering a call made before it.
    answered: IdMap<u32>,
    /// Tool messages answering an id no earlier message made a call of:
    /// judged at the end, when it is known whether a later one does.
    early_results: Ids,
    unanswered: Unanswered,
    arguments: Arguments<'c>,
}

impl<'c, 'a> MessageRules<'c, 'a> {
    /// The rules over `conversation`, before its first message.
    pub(crate) fn new(conversation: &'c Conversation<'a>) -> Self {
        MessageRules {
            conversation,
            message_ids: IdMap::default(),
            call_ids: IdMap::default(),
            answered: IdMap::default(),
            early_results: Ids::default(),
            unanswered: Unanswered::default(),
            arguments: Arguments::new(conversation.tools.as_deref()),
        }
    }

    /// Message `index`, which makes `calls` (in order).
    pub(crate) fn message(
        &mut self,
        index: usize,
        message: &Message<'a>,
        calls: &[Call<'a>],
        out: &mut impl Findings,
    ) {
        self.check_message_id(index, message, out);
        if self.conversation.whole {
            if message.is("user") || message.is("assistant") {
                self.unanswered.turn(index);
            }
            if message.is("tool") {
                if let Some(id) = &message.tool_call_id {
                    self.check_result(index, id, out);
                }
            }
        }
        for call in calls {
            self.call(call, out);
        }
    }

    /// A tool call: one made by the message just fed, or the document
    /// itself.
    pub(crate) fn call(&mut self, call: &Call<'a>, out: &mut impl Findings) {
        let conversation = self.conversation;
        if let Some(id) = &call.id {
            let at = || format!("{}/id", conversation.call_at(call.made_in));
            // An empty id is reported as such, not again as a repeat.
            if id.is_empty() {
                out.add(&EMPTY_ID, |rule| {
                    rule.diagnostic(at(), "tool call 'id' is the empty string")
                });
                if let Some(made_in) = call.made_in {
                    self.call_ids.first_or_insert(id, pair(made_in));
                }
            } else if let Some(made_in) = call.made_in {
                if let Some(first) = self.call_ids.first_or_insert(id, pair(made_in)) {
                    out.add(&DUPLICATE_TOOL_CALL_ID, |rule| {
                        rule.diagnostic(at(), format!("tool call id '{id}' is already used"))
                            .with_related(
                                format!("{}/id", conversation.call_at(Some(unpair(first)))),
                                "first tool call with this id",
                            )
                    });
                }
            }
            if conversation.whole {
                if let Some(made_in) = call.made_in {
                    self.unanswered.made(id, made_in);
                }
            }
        }
        self.arguments.check(conversation, call, out);
    }

    /// What only the end of the conversation tells: results whose call is
    /// made after them, or never, and calls the conversation moved on
    /// from without a result.
    pub(crate) fn finish(self, out: &mut impl Findings) {
        let conversation = self.conversation;
        let answer_at = |index: usize| format!("{}/toolCallId", conversation.message_at(index));
        for (id, index) in self.early_results.iter() {
            let index = &(index as usize);
            match self.call_ids.get(id) {
                None => out.add(&TOOL_RESULT_WITHOUT_CALL, |rule| {
                    rule
                        .diagnostic(
                            answer_at(*index),
                            format!("tool message answers toolCallId '{id}', which no earlier assistant message made"),
                        )
                        .with_help("a tool message must follow the assistant message whose 'toolCalls' has this id")
                }),
                Some(call) => out.add(&TOOL_RESULT_WITHOUT_CALL, |rule| {
                    rule
                        .diagnostic(
                            answer_at(*index),
                            format!("tool message answers toolCallId '{id}', which is only made later"),
                        )
                        .with_related(conversation.call_at(Some(unpair(call))), "the call, after its result")
                        .with_help("move the tool message after the assistant message that makes the call")
                }),
            }
        }
        self.unanswered.finish(conversation, out);
    }

    fn check_message_id(&mut self, index: usize, message: &Message<'a>, out: &mut impl Findings) {
        let Some(id) = &message.id else {
            return;
        };
        let conversation = self.conversation;
        let at = |index: usize| format!("{}/id", conversation.message_at(index));
        if id.is_empty() {
            out.add(&EMPTY_ID, |rule| {
                rule.diagnostic(at(index), "message 'id' is the empty string")
            });
        }
        if let Some(earlier) = self.message_ids.first_or_insert(id, small(index)) {
            out.add(&DUPLICATE_MESSAGE_ID, |rule| {
                rule.diagnostic(at(index), format!("message id '{id}' is already used"))
                    .with_related(at(earlier as usize), "first message with this id")
            });
        }
    }

    /// Tool message `index`, answering call `id`.
    fn check_result(&mut self, index: usize, id: &Text<'a>, out: &mut impl Findings) {
        self.unanswered.answered(id);
        if !self.call_ids.contains(id) {
            self.early_results.push(id, small(index));
            return;
        }
        let conversation = self.conversation;
        let answer_at = |index: usize| format!("{}/toolCallId", conversation.message_at(index));
        if let Some(first) = self.answered.first_or_insert(id, small(index)) {
            out.add(&DUPLICATE_TOOL_RESULT, |rule| {
                rule.diagnostic(
                    answer_at(index),
                    format!("tool call '{id}' is already answered"),
                )
                .with_related(answer_at(first as usize), "first result for this call")
            });
        }
    }
}

/// Ids in order, repeats and all, their text in one buffer.
#[derive(Default)]
struct Ids {
    text: String,
    /// Where each id's text starts and ends, and its value.
    items: Vec<(u32, u32, u32)>,
}

impl Ids {
    /// Adds `id` with `value`. (An id past 4 GiB of them is dropped: one
    /// finding fewer, never one made up.)
    fn push(&mut self, id: &str, value: u32) {
        let (Ok(start), Ok(end)) = (
            u32::try_from(self.text.len()),
            u32::try_from(self.text.len() + id.len()),
        ) else {
            return;
        };
        self.text.push_str(id);
        self.items.push((start, end, value));
    }

    /// Each id with its value, in order.
    fn iter(&self) -> impl Iterator<Item = (&str, u32)> {
        self.items.iter().map(|&(start, end, value)| {
            let id = self.text.get(start as usize..end as usize);
            (id.unwrap_or_default(), value)
        })
    }
}

/// `made_in` kept small.
fn pair((index, position): (usize, usize)) -> (u32, u32) {
    (small(index), small(position))
}

/// `made_in` as the views give it.
fn unpair((index, position): (u32, u32)) -> (usize, usize) {
    (index as usize, position as usize)
}

/// The calls no later tool message has answered yet, in the order they
/// were made: each is reported at the end if a user or assistant message
/// follows it (the conversation moved on) and no tool message after it
/// answers it, however late.
#[derive(Default)]
struct Unanswered {
    calls: Vec<Open>,
    /// The ids of `calls`, each at the place its call says.
    ids: String,
    /// Call id -> the latest open call of that id, whose `earlier` chains
    /// the others.
    latest: IdMap<u32>,
    /// Calls from here on have no user or assistant message after them yet.
    awaiting_turn: usize,
    /// How many of `calls` are answered, to compact them when most are.
    answered: usize,
}

/// No call: the end of a chain of `earlier` calls, or no next turn yet.
const NONE: u32 = u32::MAX;

/// A call not known to be answered.
struct Open {
    /// Where its id's text is in [`Unanswered::ids`].
    id: (u32, u32),
    made_in: (u32, u32),
    /// The first user or assistant message after it, or [`NONE`].
    next_turn: u32,
    /// The open call of the same id made before it, or [`NONE`].
    earlier: u32,
    answered: bool,
}

impl Unanswered {
    /// A user or assistant message at `index`: the calls before it now
    /// have a next turn.
    fn turn(&mut self, index: usize) {
        for open in &mut self.calls[self.awaiting_turn..] {
            if open.next_turn == NONE {
                open.next_turn = small(index);
            }
        }
        self.awaiting_turn = self.calls.len();
    }

    /// The id of `open`.
    fn id_of<'s>(ids: &'s str, open: &Open) -> &'s str {
        ids.get(open.id.0 as usize..open.id.1 as usize)
            .unwrap_or_default()
    }

    /// A call of `id`, made where `made_in` says.
    fn made(&mut self, id: &str, made_in: (usize, usize)) {
        let (Ok(at), Ok(start), Ok(end)) = (
            u32::try_from(self.calls.len()),
            u32::try_from(self.ids.len()),
            u32::try_from(self.ids.len() + id.len()),
        ) else {
            // Past 4 GiB of open calls' ids: not followed (a finding
            // fewer, never one made up).
            return;
        };
        let earlier = self.latest.insert(id, at).unwrap_or(NONE);
        self.ids.push_str(id);
        self.calls.push(Open {
            id: (start, end),
            made_in: pair(made_in),
            next_turn: NONE,
            earlier,
            answered: false,
        });
    }

    /// A tool message answering `id`: every call of it made so far is
    /// answered.
    fn answered(&mut self, id: &str) {
        let mut next = self.latest.remove(id).unwrap_or(NONE);
        while let Some(open) = self.calls.get_mut(next as usize) {
            open.answered = true;
            self.answered += 1;
            next = open.earlier;
        }
        // Keep the list to what is open, in linear time overall.
        if self.answered > 64 && self.answered * 2 > self.calls.len() {
            self.compact();
        }
    }

    fn compact(&mut self) {
        let awaiting = self.calls[self.awaiting_turn..]
            .iter()
            .filter(|open| !open.answered)
            .count();
        let old = std::mem::take(&mut self.ids);
        self.calls.retain(|open| !open.answered);
        self.answered = 0;
        self.latest.clear();
        for (at, open) in self.calls.iter_mut().enumerate() {
            let id = Self::id_of(&old, open);
            // Fewer calls and ids than before: these fit.
            let start = small(self.ids.len());
            self.ids.push_str(id);
            open.id = (start, small(self.ids.len()));
            open.earlier = self.latest.insert(id, small(at)).unwrap_or(NONE);
        }
        self.awaiting_turn = self.calls.len() - awaiting;
    }

    fn finish(self, conversation: &Conversation<'_>, out: &mut impl Findings) {
        for open in self.calls.iter().filter(|open| !open.answered) {
            if open.next_turn == NONE {
                continue;
            }
            let next = open.next_turn as usize;
            let id = Self::id_of(&self.ids, open);
            out.add(&TOOL_CALL_WITHOUT_RESULT, |rule| {
                rule.diagnostic(
                    conversation.call_at(Some(unpair(open.made_in))),
                    format!("tool call '{id}' has no result before the conversation moves on"),
                )
                .with_related(
                    conversation.message_at(next),
                    "the next message, with no result before it",
                )
                .with_help("add a tool message with this toolCallId right after the call")
            });
        }
    }
}
