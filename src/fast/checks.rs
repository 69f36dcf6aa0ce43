//! The semantic rules on a RunAgentInput read into the borrowed structs:
//! the views the rules read ([`crate::rules::view`]) are built from the
//! structs, and the rules themselves run on them, the same code the full
//! path runs, reporting into the sink the caller gives: every finding for the
//! validator, only whether there is one for a yes-or-no question
//! ([`crate::rules::view::AnyFound`]).
//!
//! Each family is asked in the version the document is judged by: the
//! rules a version scopes out (see `crate::rules::Rule::protocols`) do not
//! report in it.

use std::sync::Arc;

use super::borrowed::{Content, Message, Object, RunAgentInput, Str, Tool};
use crate::limits::PARSER_DEPTH;
use crate::rules::content::{check_parts, check_user_content};
use crate::rules::tools::check_names;
use crate::rules::verdict::{
    carries_parts, parameters_declare_nothing, verdict_by_text, ParametersVerdict,
};
use crate::rules::view::{self, Conversation, Emptiness, Findings, Marks, Parameters, RunIds};
use crate::rules::{encrypted, messages, request};
use crate::{Limits, Protocol};

/// How deep a tool's `parameters` sits: the input object, its `tools`
/// array and the tool object hold it.
const PARAMETERS_DEPTH: usize = 3;

/// Runs the semantic rules on `input`, whose shape already fits the
/// schema of `protocol`, the version it is judged by, into `out`. False
/// (and nothing reported) when a tool's `parameters` text holds what only
/// the full path reports: a parse or schema finding, or nesting deeper than
/// the parser reads.
pub(super) fn judge(
    input: &RunAgentInput<'_>,
    protocol: Protocol,
    limits: Limits,
    out: &mut impl Findings,
) -> bool {
    // An absent list (1.x) means none, as on the full path.
    let messages = input.messages.as_deref().unwrap_or_default();
    let tools = input.tools.as_deref().unwrap_or_default();
    let Some(verdicts) = tool_verdicts(tools, protocol, limits) else {
        return false;
    };
    let conversation = conversation(input, protocol, verdicts, limits);
    messages::check(&conversation, out);
    request::check(&conversation, out);
    encrypted::check(&conversation, out);
    let names: Vec<Option<&str>> = conversation
        .tools
        .iter()
        .flatten()
        .map(|t| t.name)
        .collect();
    check_names(&names, |index| conversation.tool_at(index), out);
    check_content(messages, &conversation, out);
    true
}

/// The verdict on each tool's `parameters` (the `tool-parameters-*` rules,
/// and the parse and interoperability rules inside it), `None` for a tool
/// whose `parameters` declare nothing in `protocol` (absent, or in 1.x
/// empty), or `None` in all when one is not clean or nests deeper than the
/// parser reads.
fn tool_verdicts(
    tools: &[Tool<'_>],
    protocol: Protocol,
    limits: Limits,
) -> Option<Vec<Option<Arc<ParametersVerdict>>>> {
    tools
        .iter()
        .map(|tool| {
            let Some(parameters) = tool.parameters else {
                return Some(None);
            };
            if parameters_declare_nothing(protocol, is_empty_object(parameters.get())) {
                return Some(None);
            }
            let verdict = verdict_by_text(parameters.get(), limits.max_tool_schema_nodes);
            // The parser refuses its 128th level of nesting.
            let fits = PARAMETERS_DEPTH + verdict.depth < PARSER_DEPTH;
            (verdict.clean && fits).then_some(Some(verdict))
        })
        .collect()
}

/// Whether `text`, the source of a JSON value, is an empty object.
fn is_empty_object(text: &str) -> bool {
    text.strip_prefix('{')
        .and_then(|inside| inside.strip_suffix('}'))
        .is_some_and(|inside| inside.bytes().all(|b| b.is_ascii_whitespace()))
}

/// The content rules on `messages`, which `conversation` is of:
/// `content-empty` on user messages, the part rules on the messages whose
/// parts they judge in its version.
fn check_content(
    messages: &[Message<'_>],
    conversation: &Conversation<'_>,
    out: &mut impl Findings,
) {
    let content_at = |index: usize| format!("{}/content", conversation.message_at(index));
    let mut parts = Vec::new();
    for (index, message) in messages.iter().enumerate() {
        let Some(role) = message.role.as_ref().map(Str::as_str) else {
            continue;
        };
        if !carries_parts(conversation.protocol, role) {
            continue;
        }
        let emptiness = match &message.content {
            Some(Content::Text(text)) if text.as_str().is_empty() => Emptiness::EmptyText,
            Some(Content::Parts(items)) if items.is_empty() => Emptiness::EmptyParts,
            _ => Emptiness::NotEmpty,
        };
        if role == "user" {
            check_user_content(emptiness, || content_at(index), out);
        }
        if let Some(Content::Parts(items)) = &message.content {
            parts.extend(items.iter().enumerate().map(|(position, part)| {
                let read = view::Part {
                    kind: part.kind.as_ref().map(Str::as_str),
                    source: part.source.as_ref().map(|source| view::Source {
                        kind: source.kind.as_ref().map(Str::as_str),
                        value: source.value.as_ref().map(Str::as_str),
                        mime_type: source.mime_type.as_ref().map(Str::as_str),
                    }),
                };
                (read, (index, position))
            }));
        }
    }
    let (parts, places): (Vec<_>, Vec<_>) = parts.into_iter().unzip();
    check_parts(
        &parts,
        |index| {
            let (message, position) = places[index];
            format!("{}/{position}", content_at(message))
        },
        out,
    );
}

/// What the message rules read of `input`, whose tools' `parameters`
/// were judged as `verdicts` say.
fn conversation<'r>(
    input: &'r RunAgentInput<'_>,
    protocol: Protocol,
    verdicts: Vec<Option<Arc<ParametersVerdict>>>,
    limits: Limits,
) -> Conversation<'r> {
    let text = |s: &'r Option<Str<'_>>| s.as_ref().map(Str::as_str);
    let messages = input.messages.as_deref().unwrap_or_default();
    let mut calls = Vec::new();
    for (index, message) in messages.iter().enumerate() {
        if !has_role(message, "assistant") {
            continue;
        }
        for (position, call) in message.tool_calls.iter().flatten().enumerate() {
            let function = call.function.as_ref();
            calls.push(view::Call {
                made_in: Some((index, position)),
                id: text(&call.id),
                name: function.and_then(|f| text(&f.name)),
                arguments: function.and_then(|f| text(&f.arguments)),
                marks: marks(
                    &call.metadata,
                    &call.encrypted_value_type,
                    &call.encrypted_value,
                ),
            });
        }
    }
    let tools = input.tools.as_deref().unwrap_or_default();
    Conversation {
        protocol,
        run: Some(RunIds {
            thread_id: text(&input.thread_id),
            run_id: text(&input.run_id),
            parent_run_id: text(&input.parent_run_id),
        }),
        messages: messages
            .iter()
            .map(|message| view::Message {
                role: text(&message.role),
                id: text(&message.id),
                tool_call_id: text(&message.tool_call_id),
                marks: marks(
                    &message.metadata,
                    &message.encrypted_value_type,
                    &message.encrypted_value,
                ),
            })
            .collect(),
        message_places: view::list("/messages"),
        whole: true,
        calls,
        tools: Some(
            tools
                .iter()
                .zip(verdicts)
                .map(|(tool, verdict)| view::Tool {
                    name: text(&tool.name),
                    parameters: verdict.map_or(Parameters::None, Parameters::Judged),
                    marks: marks(&tool.metadata, &None, &None),
                })
                .collect(),
        ),
        tool_places: view::list("/tools"),
        resume: input
            .resume
            .iter()
            .flatten()
            .map(|entry| view::ResumeEntry {
                interrupt_id: text(&entry.interrupt_id),
                marks: marks(&entry.metadata, &None, &None),
            })
            .collect(),
        resume_places: view::list("/resume"),
        schema_budget: limits.max_tool_schema_nodes,
    }
}

/// The marks of an object with this `metadata`, `encryptedValueType` and
/// `encryptedValue`.
fn marks(metadata: &Option<Object>, kind: &Option<Str<'_>>, value: &Option<Str<'_>>) -> Marks {
    Marks {
        reserved_metadata: metadata.is_some_and(|m| m.reserved),
        encrypted_value_type: kind.is_some(),
        encrypted_value: value.is_some(),
    }
}

fn has_role(message: &Message<'_>, role: &str) -> bool {
    message.role.as_ref().is_some_and(|r| r.as_str() == role)
}
