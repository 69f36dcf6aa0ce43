//! A tool call's arguments: JSON, an object, naming one of the run's
//! tools, and satisfying that tool's `parameters`, within a budget the
//! document's calls share.

// foldhash: seeded per process, so keys a client chooses cannot collide at
// will, and several times faster than SipHash on short keys.
use foldhash::{HashMap, HashMapExt};
use std::sync::Arc;

use serde_json::Value;

use super::tools::Compiled;
use super::view::{Call, Conversation, Findings, Tool};
use super::Rule;
use crate::diagnostic::Severity;
use crate::rules::EVERY_VERSION;

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

pub(super) const TOOL_ARGUMENTS_NOT_JSON: Rule = Rule {
    name: "tool-arguments-not-json",
    severity: Severity::Error,
    protocols: EVERY_VERSION,
    severity_1x: Some(Severity::Warning),
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

pub(super) const TOOL_ARGUMENTS_NOT_OBJECT: Rule = Rule {
    name: "tool-arguments-not-object",
    severity: Severity::Warning,
    protocols: EVERY_VERSION,
    severity_1x: None,
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

pub(crate) const TOOL_ARGUMENTS_SCHEMA_MISMATCH: Rule = Rule {
    name: "tool-arguments-schema-mismatch",
    severity: Severity::Warning,
    protocols: EVERY_VERSION,
    severity_1x: None,
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

pub(super) const TOOL_ARGUMENTS_UNCHECKED: Rule = Rule {
    name: "tool-arguments-unchecked",
    severity: Severity::Warning,
    protocols: EVERY_VERSION,
    severity_1x: None,
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

pub(super) const TOOL_CALL_UNKNOWN_TOOL: Rule = Rule {
    name: "tool-call-unknown-tool",
    severity: Severity::Info,
    protocols: EVERY_VERSION,
    severity_1x: None,
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

/// The pointer of the arguments of the call made where `made_in` says.
fn arguments_at(conversation: &Conversation<'_>, made_in: Option<(usize, usize)>) -> String {
    format!("{}/function/arguments", conversation.call_at(made_in))
}

/// Each call's arguments, parsed, and against the `parameters` of the tool
/// it names. A tool's schema is compiled once per document, however many
/// calls name it. What each check costs is counted first, within a budget
/// the document's calls share (see [`ARGUMENTS_BUDGET`]), which grows with
/// the arguments read.
pub(super) struct Arguments<'c> {
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
    /// The check of calls that can name `tools`, before the first call.
    pub(super) fn new(tools: Option<&'c [Tool<'c>]>) -> Self {
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

    /// The next `call` of `conversation`.
    pub(super) fn check(
        &mut self,
        conversation: &Conversation<'_>,
        call: &Call<'_>,
        out: &mut impl Findings,
    ) {
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
        // Pointers are built for a finding only: most calls have none.
        let at = || arguments_at(conversation, call.made_in);
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
                    at(),
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
                    at(),
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
                rule.diagnostic(at(), format!("{place}: {error}"))
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
