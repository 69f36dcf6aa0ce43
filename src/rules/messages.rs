//! Rules over a conversation: ids, tool calls, and the tool results that
//! answer them.
//!
//! Model providers reject histories in which a tool result answers no call,
//! or a call is left unanswered before the conversation moves on; neither
//! SDK checks this, so a bad history fails only at the provider, mid-run.

use std::collections::HashMap;

use serde_json::Value;

use super::walk::{repeats, Document, Node};
use super::Rule;
use crate::diagnostic::{Diagnostic, Severity};

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
    TOOL_CALL_UNKNOWN_TOOL,
];

/// Runs this family's checks on `document`.
pub(super) fn check(document: &Document<'_>, out: &mut Vec<Diagnostic>) {
    let messages = document.messages();
    if let Some(run) = document.run_agent_input() {
        check_run_ids(&run, out);
    }
    check_message_ids(&messages, out);
    let calls = collect_calls(document, &messages);
    check_call_ids(&calls, out);
    if document.has_conversation() {
        check_results(&messages, &calls, out);
    }
    let arguments: Vec<Option<Value>> = calls
        .iter()
        .map(|call| check_arguments(&call.node, out))
        .collect();
    if let Some(tools) = document.callable_tools() {
        check_unknown_tools(&calls, &tools, out);
        check_against_parameters(
            &calls,
            &arguments,
            &tools,
            document.limits.max_tool_schema_nodes,
            out,
        );
    }
}

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

/// A tool call and the index of the message that made it.
struct Call<'a> {
    node: Node<'a>,
    /// Index of the assistant message in the conversation; `None` for a
    /// standalone tool-call document.
    message: Option<usize>,
}

impl Call<'_> {
    fn id(&self) -> Option<&str> {
        self.node.str("id")
    }
}

fn check_run_ids(run: &Node<'_>, out: &mut Vec<Diagnostic>) {
    for key in ["threadId", "runId"] {
        if let Some(id) = run.child(key).filter(|n| n.value.as_str() == Some("")) {
            out.push(EMPTY_ID.diagnostic(id.pointer, format!("'{key}' is the empty string")));
        }
    }
    if let (Some(run_id), Some(parent)) = (run.str("runId"), run.child("parentRunId")) {
        if parent.value.as_str() == Some(run_id) {
            out.push(
                PARENT_RUN_IS_SELF
                    .diagnostic(
                        parent.pointer,
                        format!("'parentRunId' is the run's own id '{run_id}'"),
                    )
                    .with_related("/runId", "the run's id")
                    .with_help("name the run that spawned this one, or leave 'parentRunId' out"),
            );
        }
    }
}

fn check_message_ids(messages: &[Node<'_>], out: &mut Vec<Diagnostic>) {
    let ids: Vec<(&str, String)> = messages
        .iter()
        .filter_map(|message| message.child("id"))
        .filter_map(|id| Some((id.value.as_str()?, id.pointer)))
        .collect();
    for (text, at) in &ids {
        if text.is_empty() {
            out.push(EMPTY_ID.diagnostic(at.clone(), "message 'id' is the empty string"));
        }
    }
    for (text, at, earlier) in repeats(ids) {
        out.push(
            DUPLICATE_MESSAGE_ID
                .diagnostic(at, format!("message id '{text}' is already used"))
                .with_related(earlier, "first message with this id"),
        );
    }
}

/// The tool calls of the conversation with the index of the message making
/// each; a standalone tool-call document has no conversation.
fn collect_calls<'a>(document: &Document<'a>, messages: &[Node<'a>]) -> Vec<Call<'a>> {
    if messages.is_empty() {
        return document
            .tool_calls()
            .into_iter()
            .map(|node| Call {
                node,
                message: None,
            })
            .collect();
    }
    let mut calls = Vec::new();
    for (index, message) in messages.iter().enumerate() {
        if message.str("role") != Some("assistant") {
            continue;
        }
        for node in message
            .child("toolCalls")
            .map(|c| c.elements())
            .unwrap_or_default()
        {
            calls.push(Call {
                node,
                message: Some(index),
            });
        }
    }
    calls
}

fn check_call_ids(calls: &[Call<'_>], out: &mut Vec<Diagnostic>) {
    let ids: Vec<(&str, String)> = calls
        .iter()
        .filter_map(|call| call.node.child("id"))
        .filter_map(|id| Some((id.value.as_str()?, id.pointer)))
        .collect();
    // An empty id is reported as such, not again as a repeat.
    let (empty, named): (Vec<_>, Vec<_>) = ids.into_iter().partition(|(text, _)| text.is_empty());
    for (_, at) in empty {
        out.push(EMPTY_ID.diagnostic(at, "tool call 'id' is the empty string"));
    }
    for (text, at, earlier) in repeats(named) {
        out.push(
            DUPLICATE_TOOL_CALL_ID
                .diagnostic(at, format!("tool call id '{text}' is already used"))
                .with_related(earlier, "first tool call with this id"),
        );
    }
}

/// Tool results against the calls they answer, in conversation order.
fn check_results(messages: &[Node<'_>], calls: &[Call<'_>], out: &mut Vec<Diagnostic>) {
    // Each call id's first call: message index and pointer.
    let mut call_at: HashMap<&str, (usize, &str)> = HashMap::new();
    for call in calls {
        if let (Some(id), Some(message)) = (call.id(), call.message) {
            call_at.entry(id).or_insert((message, &call.node.pointer));
        }
    }
    // Call id -> pointer of the first tool message answering it.
    let mut answered: HashMap<&str, String> = HashMap::new();
    for (index, message) in messages.iter().enumerate() {
        if message.str("role") != Some("tool") {
            continue;
        }
        let Some(answer) = message.child("toolCallId") else {
            continue;
        };
        let Some(id) = answer.value.as_str() else {
            continue;
        };
        match call_at.get(id) {
            None => out.push(
                TOOL_RESULT_WITHOUT_CALL
                    .diagnostic(
                        answer.pointer.clone(),
                        format!("tool message answers toolCallId '{id}', which no earlier assistant message made"),
                    )
                    .with_help("a tool message must follow the assistant message whose 'toolCalls' has this id"),
            ),
            Some((call_message, call_pointer)) if *call_message > index => out.push(
                TOOL_RESULT_WITHOUT_CALL
                    .diagnostic(
                        answer.pointer.clone(),
                        format!("tool message answers toolCallId '{id}', which is only made later"),
                    )
                    .with_related(call_pointer.to_string(), "the call, after its result")
                    .with_help("move the tool message after the assistant message that makes the call"),
            ),
            Some(_) => match answered.get(id) {
                Some(first) => out.push(
                    DUPLICATE_TOOL_RESULT
                        .diagnostic(answer.pointer.clone(), format!("tool call '{id}' is already answered"))
                        .with_related(first.clone(), "first result for this call"),
                ),
                None => {
                    answered.insert(id, answer.pointer.clone());
                }
            },
        }
    }
    check_unanswered(messages, calls, out);
}

/// A call with no result, followed by a later user or assistant message.
fn check_unanswered(messages: &[Node<'_>], calls: &[Call<'_>], out: &mut Vec<Diagnostic>) {
    // One pass each way rather than a scan of the later messages per call,
    // which grows with the square of a long conversation: for each message,
    // the first user or assistant message after it; for each call id, the
    // last tool message answering it.
    let mut next_turn: Vec<Option<usize>> = vec![None; messages.len()];
    let mut upcoming = None;
    for (index, message) in messages.iter().enumerate().rev() {
        next_turn[index] = upcoming;
        if matches!(message.str("role"), Some("user" | "assistant")) {
            upcoming = Some(index);
        }
    }
    let mut last_answer: HashMap<&str, usize> = HashMap::new();
    for (index, message) in messages.iter().enumerate() {
        if message.str("role") == Some("tool") {
            if let Some(id) = message.str("toolCallId") {
                last_answer.insert(id, index);
            }
        }
    }
    for call in calls {
        let (Some(id), Some(made_in)) = (call.id(), call.message) else {
            continue;
        };
        if last_answer.get(id).is_some_and(|&at| at > made_in) {
            continue;
        }
        if let Some(next) = next_turn.get(made_in).copied().flatten() {
            out.push(
                TOOL_CALL_WITHOUT_RESULT
                    .diagnostic(
                        call.node.pointer.clone(),
                        format!("tool call '{id}' has no result before the conversation moves on"),
                    )
                    .with_related(
                        messages[next].pointer.clone(),
                        "the next message, with no result before it",
                    )
                    .with_help("add a tool message with this toolCallId right after the call"),
            );
        }
    }
}

fn check_arguments(call: &Node<'_>, out: &mut Vec<Diagnostic>) -> Option<Value> {
    let arguments = call.child("function").and_then(|f| f.child("arguments"))?;
    let text = arguments.value.as_str()?;
    let parsed = serde_json::from_str::<Value>(text);
    match &parsed {
        Err(error) => out.push(
            TOOL_ARGUMENTS_NOT_JSON
                .diagnostic(
                    arguments.pointer,
                    format!("arguments are not JSON: {}", strip_position(error)),
                )
                .with_help(
                    "'arguments' is a JSON-encoded object, such as \"{\\\"city\\\": \\\"Lisbon\\\"}\"",
                ),
        ),
        Ok(Value::Object(_)) => {}
        Ok(other) => out.push(
            TOOL_ARGUMENTS_NOT_OBJECT
                .diagnostic(
                    arguments.pointer,
                    format!(
                        "arguments hold {}, not an object",
                        crate::text::describe(other)
                    ),
                )
                .with_help("pass named arguments as a JSON object"),
        ),
    }
    parsed.ok()
}

/// Each call's parsed arguments against the `parameters` of the tool it
/// names. A tool's schema is compiled once per document, however many calls
/// name it.
fn check_against_parameters(
    calls: &[Call<'_>],
    arguments: &[Option<Value>],
    tools: &[Node<'_>],
    budget: usize,
    out: &mut Vec<Diagnostic>,
) {
    let mut compiled: HashMap<&str, Option<std::sync::Arc<super::tools::Compiled>>> =
        HashMap::new();
    for (call, parsed) in calls.iter().zip(arguments) {
        let Some(parsed) = parsed else { continue };
        let Some(function) = call.node.child("function") else {
            continue;
        };
        let Some(name) = function.str("name") else {
            continue;
        };
        let Some(tool) = tools.iter().find(|t| t.str("name") == Some(name)) else {
            continue;
        };
        let entry = compiled.entry(name).or_insert_with(|| {
            tool.value
                .get("parameters")
                .map(|schema| super::tools::cached_arguments_validator(schema, budget))
        });
        let Some(Some(validator)) = entry.as_ref().and_then(|c| c.arguments.get()) else {
            continue;
        };
        let at = crate::pointer::push(&function.pointer, "arguments");
        for error in validator.iter_errors(parsed) {
            let inside = error.instance_path().as_str();
            let place = if inside.is_empty() {
                "arguments".to_string()
            } else {
                format!("arguments at '{inside}'")
            };
            out.push(
                TOOL_ARGUMENTS_SCHEMA_MISMATCH
                    .diagnostic(at.clone(), format!("{place}: {error}"))
                    .with_related(
                        crate::pointer::push(&tool.pointer, "parameters"),
                        format!("the parameters of tool '{name}'"),
                    ),
            );
        }
    }
}

fn strip_position(error: &serde_json::Error) -> String {
    let text = error.to_string();
    match text.rfind(" at line ") {
        Some(i) => format!("{} at column {}", &text[..i], error.column()),
        None => text,
    }
}

fn check_unknown_tools(calls: &[Call<'_>], tools: &[Node<'_>], out: &mut Vec<Diagnostic>) {
    let names: Vec<&str> = tools.iter().filter_map(|t| t.str("name")).collect();
    for call in calls {
        let Some(function) = call.node.child("function") else {
            continue;
        };
        let Some(name) = function.str("name") else {
            continue;
        };
        if names.contains(&name) {
            continue;
        }
        let diagnostic = TOOL_CALL_UNKNOWN_TOOL.diagnostic(
            crate::pointer::push(&function.pointer, "name"),
            format!("tool call names '{name}', which the run's tools do not define"),
        );
        out.push(match crate::suggest::closest(name, names.iter().copied()) {
            Some(best) => {
                diagnostic.with_help(format!("did you mean '{best}'? a backend tool is fine"))
            }
            None => diagnostic
                .with_help("fine for a backend tool; a client tool must be listed in 'tools'"),
        });
    }
}
