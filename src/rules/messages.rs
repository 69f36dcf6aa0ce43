//! Rules over a conversation: ids, tool calls, and the tool results that
//! answer them.
//!
//! Model providers reject histories in which a tool result answers no call,
//! or a call is left unanswered before the conversation moves on; neither
//! SDK checks this, so a bad history fails only at the provider, mid-run.

use std::collections::HashMap;
use std::sync::Arc;

use serde_json::Value;

use super::tools::Compiled;
use super::view::{Call, Conversation, Findings, Message, RunIds, Text, Tool};
use super::Rule;
use crate::diagnostic::Severity;

/// The rules of this family, in documentation order.
pub(super) const RULES: &[Rule] = &[
    DUPLICATE_MESSAGE_ID,
    EMPTY_ID,
    PARENT_RUN_IS_SELF,
    DUPLICATE_TOOL_CALL_ID,
    TOOL_RESULT_WITHOUT_CALL,
    DUPLICATE_TOOL_RESULT,
    TOOL_CALL_WITHOUT_RESULT,
    TOOL_ARGUMENTS_NOT_JSON,
    TOOL_ARGUMENTS_NOT_OBJECT,
    TOOL_ARGUMENTS_SCHEMA_MISMATCH,
    TOOL_ARGUMENTS_UNCHECKED,
    TOOL_CALL_UNKNOWN_TOOL,
];

/// Subschema applications a document's tool-call arguments may cost in
/// all, before their length is counted in: `ARGUMENTS_BUDGET` plus
/// `ARGUMENTS_BUDGET_PER_BYTE` for every byte of arguments read so far
/// (the calls are checked as they are read, so a call may spend what its
/// own and the earlier calls' arguments brought, never a later call's).
const ARGUMENTS_BUDGET: u64 = 1_000_000;
/// See [`ARGUMENTS_BUDGET`].
const ARGUMENTS_BUDGET_PER_BYTE: u64 = 16;
/// Above this many applications a mismatch is reported without its
/// details: collecting them allocates an error for each failed branch.
const DETAILED_MISMATCH_BUDGET: u64 = 100_000;

const DUPLICATE_MESSAGE_ID: Rule = Rule {
    name: "duplicate-message-id",
    severity: Severity::Error,
    summary: "Two messages share an id",
    docs: r#"## What it checks
That every message of a conversation has its own `id`. The finding points
at the later message's id, with the first as related information.

## Why it matters
Clients key messages by id: a repeated id makes one message replace or hide
another in the UI, and snapshots (`MESSAGES_SNAPSHOT`) merge the wrong ones.

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

const EMPTY_ID: Rule = Rule {
    name: "empty-id",
    severity: Severity::Warning,
    summary: "An id is the empty string",
    docs: r#"## What it checks
That `threadId`, `runId`, message ids and tool call ids are not `""`.

## Why it matters
The schemas allow any string, but an empty id cannot be told from a missing
one by most code (`if (!id)`), so threads, runs or messages get merged or
dropped.

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

const DUPLICATE_TOOL_CALL_ID: Rule = Rule {
    name: "duplicate-tool-call-id",
    severity: Severity::Error,
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

const TOOL_RESULT_WITHOUT_CALL: Rule = Rule {
    name: "tool-result-without-call",
    severity: Severity::Error,
    summary: "A tool message answers no tool call of an earlier assistant message",
    docs: r#"## What it checks
That each tool message's `toolCallId` is the id of a tool call made by an
earlier assistant message. A call that only appears after its result is
reported too, and said so.

## Why it matters
Model providers reject a history whose tool result has no preceding call;
the run fails at the provider instead of at the client.

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
    summary: "A tool call is left unanswered while the conversation moves on",
    docs: r#"## What it checks
That every tool call of an assistant message is answered by a tool message
before a later user or assistant message. A call at the end of the
conversation, still waiting for its result, is fine.

## Why it matters
Model providers reject a history in which a tool call has no result and the
conversation continues.

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

const TOOL_ARGUMENTS_NOT_JSON: Rule = Rule {
    name: "tool-arguments-not-json",
    severity: Severity::Error,
    summary: "A tool call's arguments are not a JSON text",
    docs: r#"## What it checks
That `function.arguments`, a string, holds a JSON text.

An error before 1.0; in AG-UI 1.0 and 1.1 a **warning**: the schema keeps
`FunctionCall.arguments` "as written because a model can emit arguments
that are not valid JSON", and what to do with text that does not parse "is
the application's decision, not a protocol violation"
(`spec/1.1/events/tool-calls.mdx`, `TOOL_CALL_END`). The same text
streamed as `TOOL_CALL_ARGS` is `tool-call-args-not-json`, judged alike.

## Why it matters
The arguments are parsed before the tool runs; text that is not JSON
makes the call fail (a frequent result of truncated model output).

## Invalid
```json
{"id": "call_1", "type": "function", "function": {"name": "f", "arguments": "{\"city\": \"Lis"}}
```

## Valid
```json
{"id": "call_1", "type": "function", "function": {"name": "f", "arguments": "{\"city\": \"Lisbon\"}"}}
```
"#,
};

const TOOL_ARGUMENTS_NOT_OBJECT: Rule = Rule {
    name: "tool-arguments-not-object",
    severity: Severity::Warning,
    summary: "A tool call's arguments are JSON but not an object",
    docs: r#"## What it checks
That `function.arguments` holds a JSON object, as function-calling APIs
pass named arguments.

## Why it matters
Tools are declared with an object `parameters` schema; an array, string or
number as arguments cannot bind to named parameters.

## Invalid
```json
{"id": "call_1", "type": "function", "function": {"name": "f", "arguments": "[\"Lisbon\"]"}}
```

## Valid
```json
{"id": "call_1", "type": "function", "function": {"name": "f", "arguments": "{\"city\": \"Lisbon\"}"}}
```
"#,
};

const TOOL_ARGUMENTS_SCHEMA_MISMATCH: Rule = Rule {
    name: "tool-arguments-schema-mismatch",
    severity: Severity::Warning,
    summary: "A tool call's arguments do not satisfy the tool's parameters schema",
    docs: r#"## What it checks
That the arguments of each tool call satisfy the `parameters` JSON Schema of
the tool of that name in the RunAgentInput's `tools`. Each mismatch is one
finding on the call's `arguments`, naming the place inside the arguments.
Tools whose `parameters` is not a usable schema are skipped (the
`tool-parameters-*` rules report those).

## Why it matters
The tool receives arguments it did not declare: a missing required
argument or a string where a number was promised fails in the tool, or
worse, runs with the wrong input.

## Invalid
```json
{"threadId": "t", "runId": "r", "state": null, "context": [], "forwardedProps": null,
 "tools": [{"name": "get_weather", "description": "Weather",
   "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}],
 "messages": [{"id": "m1", "role": "assistant", "toolCalls": [{"id": "c1", "type": "function",
   "function": {"name": "get_weather", "arguments": "{\"town\": \"Lisbon\"}"}}]}]}
```

## Valid
```json
{"threadId": "t", "runId": "r", "state": null, "context": [], "forwardedProps": null,
 "tools": [{"name": "get_weather", "description": "Weather",
   "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}],
 "messages": [{"id": "m1", "role": "assistant", "toolCalls": [{"id": "c1", "type": "function",
   "function": {"name": "get_weather", "arguments": "{\"city\": \"Lisbon\"}"}}]}]}
```
"#,
};

const TOOL_ARGUMENTS_UNCHECKED: Rule = Rule {
    name: "tool-arguments-unchecked",
    severity: Severity::Warning,
    summary: "A tool call's arguments were not checked against its tool's parameters: the check would cost more than its budget",
    docs: r##"## What it checks
What checking tool-call arguments against the `parameters` of their tool
costs, counted on the arguments before they are checked: the number of
subschema applications a validator makes (every branch of every `anyOf`,
`oneOf` and reference, for every value of the arguments). A document's
calls share a budget of 1,000,000 applications plus 16 for every byte of
their arguments, each call's bytes counted in as it is read; a call that
would go over it, and every call after it, is reported and not checked.

## Why it matters
A schema that is small and valid can still make a check exponential:
a recursive definition whose alternatives both descend into the same
member doubles its work with every level of the arguments. A validator in
front of a server must not run what it cannot bound; the finding says
what was left unchecked rather than passing it silently.

## Invalid
```json
{"threadId": "t", "runId": "r",
 "tools": [{"name": "f", "description": "d", "parameters": {"type": "object",
   "properties": {"x": {"$ref": "#/$defs/n"}},
   "$defs": {"n": {"anyOf": [{"type": "object", "properties": {"x": {"$ref": "#/$defs/n"}}},
                             {"type": "object", "properties": {"x": {"$ref": "#/$defs/n"}}}]}}}}],
 "messages": [{"id": "m1", "role": "assistant", "toolCalls": [{"id": "c1", "type": "function",
   "function": {"name": "f", "arguments": "{\"x\":{\"x\":{\"x\":{\"x\":{\"x\":{\"x\":{\"x\":{\"x\":{\"x\":{\"x\":{\"x\":{\"x\":{\"x\":{\"x\":{\"x\":{\"x\":{\"x\":{\"x\":{\"x\":{\"x\":{}}}}}}}}}}}}}}}}}}}}}"}}]},
  {"id": "m2", "role": "tool", "toolCallId": "c1", "content": "ok"}]}
```

## Valid
```json
{"threadId": "t", "runId": "r",
 "tools": [{"name": "f", "description": "d", "parameters": {"type": "object",
   "properties": {"x": {"$ref": "#/$defs/n"}},
   "$defs": {"n": {"type": "object", "properties": {"x": {"$ref": "#/$defs/n"}}}}}}],
 "messages": [{"id": "m1", "role": "assistant", "toolCalls": [{"id": "c1", "type": "function",
   "function": {"name": "f", "arguments": "{\"x\":{\"x\":{\"x\":{}}}}"}}]},
  {"id": "m2", "role": "tool", "toolCallId": "c1", "content": "ok"}]}
```
"##,
};

const TOOL_CALL_UNKNOWN_TOOL: Rule = Rule {
    name: "tool-call-unknown-tool",
    severity: Severity::Info,
    summary: "A tool call names a function the run's tools do not define",
    docs: r#"## What it checks
That the function a tool call names is one of the RunAgentInput's `tools`.

## Why it matters
It may be a tool of the backend, which the client does not list; but if it
is a client tool, the client cannot run it.

## Invalid
```json
{"threadId": "t", "runId": "r", "state": null, "context": [], "forwardedProps": null,
 "tools": [],
 "messages": [{"id": "m1", "role": "assistant", "toolCalls": [{"id": "c1", "type": "function",
   "function": {"name": "get_weather", "arguments": "{}"}}]}]}
```

## Valid
```json
{"threadId": "t", "runId": "r", "state": null, "context": [], "forwardedProps": null,
 "tools": [{"name": "get_weather", "description": "Weather", "parameters": {"type": "object"}}],
 "messages": [{"id": "m1", "role": "assistant", "toolCalls": [{"id": "c1", "type": "function",
   "function": {"name": "get_weather", "arguments": "{}"}}]}]}
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
    message_ids: HashMap<Text<'a>, usize>,
    /// Call id -> where its first call is made.
    call_ids: HashMap<Text<'a>, (usize, usize)>,
    /// Call id -> the first tool message answering a call made before it.
    answered: HashMap<Text<'a>, usize>,
    /// Tool messages answering an id no earlier message made a call of:
    /// judged at the end, when it is known whether a later one does.
    early_results: Vec<(Text<'a>, usize)>,
    unanswered: Unanswered<'a>,
    arguments: Arguments<'c>,
}

impl<'c, 'a> MessageRules<'c, 'a> {
    /// The rules over `conversation`, before its first message.
    pub(crate) fn new(conversation: &'c Conversation<'a>) -> Self {
        MessageRules {
            conversation,
            message_ids: HashMap::new(),
            call_ids: HashMap::new(),
            answered: HashMap::new(),
            early_results: Vec::new(),
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
                    self.call_ids.entry(id.clone()).or_insert(made_in);
                }
            } else if let Some(made_in) = call.made_in {
                match self.call_ids.get(id.as_ref()) {
                    Some(&first) => out.add(&DUPLICATE_TOOL_CALL_ID, |rule| {
                        rule.diagnostic(at(), format!("tool call id '{id}' is already used"))
                            .with_related(
                                format!("{}/id", conversation.call_at(Some(first))),
                                "first tool call with this id",
                            )
                    }),
                    None => {
                        self.call_ids.insert(id.clone(), made_in);
                    }
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
        for (id, index) in &self.early_results {
            match self.call_ids.get(id.as_ref()) {
                None => out.add(&TOOL_RESULT_WITHOUT_CALL, |rule| {
                    rule
                        .diagnostic(
                            answer_at(*index),
                            format!("tool message answers toolCallId '{id}', which no earlier assistant message made"),
                        )
                        .with_help("a tool message must follow the assistant message whose 'toolCalls' has this id")
                }),
                Some(&call) => out.add(&TOOL_RESULT_WITHOUT_CALL, |rule| {
                    rule
                        .diagnostic(
                            answer_at(*index),
                            format!("tool message answers toolCallId '{id}', which is only made later"),
                        )
                        .with_related(conversation.call_at(Some(call)), "the call, after its result")
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
        match self.message_ids.get(id.as_ref()) {
            Some(&earlier) => out.add(&DUPLICATE_MESSAGE_ID, |rule| {
                rule.diagnostic(at(index), format!("message id '{id}' is already used"))
                    .with_related(at(earlier), "first message with this id")
            }),
            None => {
                self.message_ids.insert(id.clone(), index);
            }
        }
    }

    /// Tool message `index`, answering call `id`.
    fn check_result(&mut self, index: usize, id: &Text<'a>, out: &mut impl Findings) {
        self.unanswered.answered(id);
        if !self.call_ids.contains_key(id.as_ref()) {
            self.early_results.push((id.clone(), index));
            return;
        }
        let conversation = self.conversation;
        let answer_at = |index: usize| format!("{}/toolCallId", conversation.message_at(index));
        match self.answered.get(id.as_ref()) {
            Some(&first) => out.add(&DUPLICATE_TOOL_RESULT, |rule| {
                rule.diagnostic(
                    answer_at(index),
                    format!("tool call '{id}' is already answered"),
                )
                .with_related(answer_at(first), "first result for this call")
            }),
            None => {
                self.answered.insert(id.clone(), index);
            }
        }
    }
}

/// The calls no later tool message has answered yet, in the order they
/// were made: each is reported at the end if a user or assistant message
/// follows it (the conversation moved on) and no tool message after it
/// answers it, however late.
#[derive(Default)]
struct Unanswered<'a> {
    calls: Vec<Open<'a>>,
    /// Call id -> the latest open call of that id, whose `earlier` chains
    /// the others.
    latest: HashMap<Text<'a>, usize>,
    /// Calls from here on have no user or assistant message after them yet.
    awaiting_turn: usize,
    /// How many of `calls` are answered, to compact them when most are.
    answered: usize,
}

/// A call not known to be answered.
struct Open<'a> {
    id: Text<'a>,
    made_in: (usize, usize),
    /// The first user or assistant message after it.
    next_turn: Option<usize>,
    /// The open call of the same id made before it.
    earlier: Option<usize>,
    answered: bool,
}

impl<'a> Unanswered<'a> {
    /// A user or assistant message at `index`: the calls before it now
    /// have a next turn.
    fn turn(&mut self, index: usize) {
        for open in &mut self.calls[self.awaiting_turn..] {
            open.next_turn.get_or_insert(index);
        }
        self.awaiting_turn = self.calls.len();
    }

    /// A call of `id`, made where `made_in` says.
    fn made(&mut self, id: &Text<'a>, made_in: (usize, usize)) {
        let at = self.calls.len();
        let earlier = self.latest.insert(id.clone(), at);
        self.calls.push(Open {
            id: id.clone(),
            made_in,
            next_turn: None,
            earlier,
            answered: false,
        });
    }

    /// A tool message answering `id`: every call of it made so far is
    /// answered.
    fn answered(&mut self, id: &str) {
        let mut next = self.latest.remove(id);
        while let Some(at) = next {
            let open = &mut self.calls[at];
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
        self.calls.retain(|open| !open.answered);
        self.answered = 0;
        self.latest.clear();
        for (at, open) in self.calls.iter_mut().enumerate() {
            open.earlier = self.latest.insert(open.id.clone(), at);
        }
        self.awaiting_turn = self.calls.len() - awaiting;
    }

    fn finish(self, conversation: &Conversation<'_>, out: &mut impl Findings) {
        for open in self.calls.iter().filter(|open| !open.answered) {
            let Some(next) = open.next_turn else {
                continue;
            };
            let id = &open.id;
            out.add(&TOOL_CALL_WITHOUT_RESULT, |rule| {
                rule.diagnostic(
                    conversation.call_at(Some(open.made_in)),
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

/// The pointer of the arguments of the call made where `made_in` says.
fn arguments_at(conversation: &Conversation<'_>, made_in: Option<(usize, usize)>) -> String {
    format!("{}/function/arguments", conversation.call_at(made_in))
}

/// Each call's arguments, parsed, and against the `parameters` of the tool
/// it names. A tool's schema is compiled once per document, however many
/// calls name it. What each check costs is counted first, within a budget
/// the document's calls share (see [`ARGUMENTS_BUDGET`]), which grows with
/// the arguments read.
struct Arguments<'c> {
    /// The tools calls can name, when the document has such a list.
    tools: Option<&'c [Tool<'c>]>,
    /// Tool name -> the first tool of that name.
    by_name: HashMap<&'c str, usize>,
    /// Tool index -> its compiled `parameters`, once a call needed them.
    compiled: HashMap<usize, Option<Arc<Compiled>>>,
    budget: u64,
    /// Whether the budget ran out: every later call goes unchecked.
    spent: bool,
}

impl<'c> Arguments<'c> {
    fn new(tools: Option<&'c [Tool<'c>]>) -> Self {
        let mut by_name = HashMap::new();
        for (index, tool) in tools.into_iter().flatten().enumerate() {
            if let Some(name) = tool.name {
                by_name.entry(name).or_insert(index);
            }
        }
        Arguments {
            tools,
            by_name,
            compiled: HashMap::new(),
            budget: ARGUMENTS_BUDGET,
            spent: false,
        }
    }

    fn check(&mut self, conversation: &Conversation<'_>, call: &Call<'_>, out: &mut impl Findings) {
        let parsed = call.arguments.as_deref().and_then(|text| {
            self.budget = self
                .budget
                .saturating_add(ARGUMENTS_BUDGET_PER_BYTE.saturating_mul(text.len() as u64));
            parse_arguments(conversation, call, text, out)
        });
        let Some(tools) = self.tools else {
            return;
        };
        let Some(name) = call.name.as_deref() else {
            return;
        };
        let Some(&tool) = self.by_name.get(name) else {
            unknown_tool(conversation, call, name, tools, out);
            return;
        };
        let Some(parsed) = parsed else {
            return;
        };
        let entry = self
            .compiled
            .entry(tool)
            .or_insert_with(|| tools[tool].parameters.compiled(conversation.schema_budget));
        let Some(Some(checker)) = entry.as_ref().and_then(|c| c.arguments.get()) else {
            return;
        };
        let at = arguments_at(conversation, call.made_in);
        let parameters = || format!("{}/parameters", conversation.tool_at(tool));
        let cost = if self.spent {
            None
        } else {
            checker.graph.cost(&parsed, self.budget)
        };
        let Some(cost) = cost else {
            // The budget is spent: this call and every later one go
            // unchecked.
            self.spent = true;
            out.add(&TOOL_ARGUMENTS_UNCHECKED, |rule| {
                rule.diagnostic(
                    at,
                    format!("arguments were not checked against the parameters of tool '{name}': checking them would take more subschema applications than this document's budget"),
                )
                .with_help("the schema's references and unions fan out over these arguments; simplify the schema, or check these arguments elsewhere")
                .with_related(parameters(), format!("the parameters of tool '{name}'"))
            });
            return;
        };
        self.budget -= cost;
        // Most arguments are valid, and asking is much cheaper than
        // collecting the errors.
        if checker.validator.is_valid(&parsed) {
            return;
        }
        if cost > DETAILED_MISMATCH_BUDGET {
            out.add(&TOOL_ARGUMENTS_SCHEMA_MISMATCH, |rule| {
                rule.diagnostic(
                    at,
                    "arguments do not satisfy the parameters (what is wrong was not collected: the check applies too many subschemas to list their errors)",
                )
                .with_related(parameters(), format!("the parameters of tool '{name}'"))
            });
            return;
        }
        for error in checker.validator.iter_errors(&parsed) {
            let inside = error.instance_path().as_str();
            let place = if inside.is_empty() {
                "arguments".to_string()
            } else {
                format!("arguments at '{inside}'")
            };
            out.add(&TOOL_ARGUMENTS_SCHEMA_MISMATCH, |rule| {
                rule.diagnostic(at.clone(), format!("{place}: {error}"))
                    .with_related(parameters(), format!("the parameters of tool '{name}'"))
            });
        }
    }
}

/// `text`, the arguments of `call`, parsed, with what is wrong with them.
fn parse_arguments(
    conversation: &Conversation<'_>,
    call: &Call<'_>,
    text: &str,
    out: &mut impl Findings,
) -> Option<Value> {
    let parsed = serde_json::from_str::<Value>(text);
    match &parsed {
        Err(error) => out.add_as(
            &TOOL_ARGUMENTS_NOT_JSON,
            TOOL_ARGUMENTS_NOT_JSON.severity_in(conversation.protocol),
            |rule| {
                rule.diagnostic(
                arguments_at(conversation, call.made_in),
                format!("arguments are not JSON: {}", strip_position(error)),
            )
            .with_help(
                "'arguments' is a JSON-encoded object, such as \"{\\\"city\\\": \\\"Lisbon\\\"}\"",
            )
            },
        ),
        Ok(Value::Object(_)) => {}
        Ok(other) => out.add(&TOOL_ARGUMENTS_NOT_OBJECT, |rule| {
            rule.diagnostic(
                arguments_at(conversation, call.made_in),
                format!(
                    "arguments hold {}, not an object",
                    crate::text::describe(other)
                ),
            )
            .with_help("pass named arguments as a JSON object")
        }),
    }
    parsed.ok()
}

fn strip_position(error: &serde_json::Error) -> String {
    let text = error.to_string();
    match text.rfind(" at line ") {
        Some(i) => format!("{} at column {}", &text[..i], error.column()),
        None => text,
    }
}

/// A call naming `name`, which none of `tools` has.
fn unknown_tool(
    conversation: &Conversation<'_>,
    call: &Call<'_>,
    name: &str,
    tools: &[Tool<'_>],
    out: &mut impl Findings,
) {
    out.add(&TOOL_CALL_UNKNOWN_TOOL, |rule| {
        let diagnostic = rule.diagnostic(
            format!("{}/function/name", conversation.call_at(call.made_in)),
            format!("tool call names '{name}', which the run's tools do not define"),
        );
        match crate::suggest::closest(name, tools.iter().filter_map(|t| t.name)) {
            Some(best) => {
                diagnostic.with_help(format!("did you mean '{best}'? a backend tool is fine"))
            }
            None => diagnostic
                .with_help("fine for a backend tool; a client tool must be listed in 'tools'"),
        }
    });
}
