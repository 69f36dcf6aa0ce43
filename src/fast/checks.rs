//! The semantic rules over the borrowed structs, each answering only "is
//! anything found?". Each function names the rules it stands for; the
//! predicates that decide a single value are the rules' own
//! ([`crate::rules::verdict`]), so both paths judge a value alike.
//!
//! Each takes the version the document is judged by: the rules a version
//! scopes out (see `crate::rules::Rule::protocols`) are not asked.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use serde_json::Value;

use super::borrowed::{Content, Message, Object, RunAgentInput, Tool};
use super::Verdict;
use crate::limits::PARSER_DEPTH;
use crate::rules::verdict::{
    carries_parts, encrypted_value_type_without_value as type_without_value, name_is_well_formed,
    parameters_declare_nothing, part_is_clean, verdict_by_text, ParametersVerdict,
};
use crate::rules::Families;
use crate::{Limits, Protocol};

/// How deep a tool's `parameters` sits: the input object, its `tools`
/// array and the tool object hold it.
const PARAMETERS_DEPTH: usize = 3;

/// What the rules find in `input`, whose shape already fits the schema of
/// `protocol`, the version it is judged by.
pub(super) fn judge(input: &RunAgentInput<'_>, protocol: Protocol, limits: Limits) -> Verdict {
    // An absent list (1.x) means none, as on the full path.
    let messages = input.messages.as_deref().unwrap_or_default();
    let tools = input.tools.as_deref().unwrap_or_default();
    // A `parameters` text may hold what the parser or the schema layer
    // reports (it was read as raw text), so a finding there is not only
    // the semantic rules'.
    let Some(verdicts) = tool_verdicts(tools, protocol, limits) else {
        return Verdict::Unknown;
    };
    let messages_are_clean = run_ids_are_clean(input)
        && message_ids_are_clean(messages)
        && calls_are_clean(messages, tools, &verdicts);
    // Each family is judged (not only up to the first finding), so that
    // the full path runs only the families that find something.
    let families = Families {
        messages: !messages_are_clean,
        tools: !tool_names_are_clean(tools),
        content: !content_is_clean(messages, protocol),
        request: !request_is_clean(input, protocol),
    };
    if families.messages || families.tools || families.content || families.request {
        Verdict::RulesFire(protocol, families)
    } else {
        Verdict::Clean(protocol)
    }
}

/// `empty-id` on the run's ids and `parent-run-is-self`.
fn run_ids_are_clean(input: &RunAgentInput<'_>) -> bool {
    let (Some(thread), Some(run)) = (&input.thread_id, &input.run_id) else {
        return false;
    };
    !thread.as_str().is_empty()
        && !run.as_str().is_empty()
        && input.parent_run_id.as_ref() != Some(run)
}

/// `empty-id` on message ids and `duplicate-message-id`.
fn message_ids_are_clean(messages: &[Message<'_>]) -> bool {
    let mut seen = HashSet::with_capacity(messages.len());
    messages.iter().all(|m| {
        m.id.as_ref()
            .is_some_and(|id| !id.as_str().is_empty() && seen.insert(id.as_str()))
    })
}

/// `duplicate-tool-name` and `tool-name-format`.
fn tool_names_are_clean(tools: &[Tool<'_>]) -> bool {
    let mut seen = HashSet::with_capacity(tools.len());
    tools.iter().all(|t| {
        t.name
            .as_ref()
            .is_some_and(|n| name_is_well_formed(n.as_str()) && seen.insert(n.as_str()))
    })
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

/// `content-empty` (on user messages) and the content part rules (on
/// the messages whose parts they judge in `protocol`).
fn content_is_clean(messages: &[Message<'_>], protocol: Protocol) -> bool {
    messages
        .iter()
        .filter(|m| {
            m.role
                .as_ref()
                .is_some_and(|r| carries_parts(protocol, r.as_str()))
        })
        .all(|m| {
            let user = has_role(m, "user");
            match &m.content {
                Some(Content::Text(text)) => !user || !text.as_str().is_empty(),
                Some(Content::Parts(parts)) => {
                    (!user || !parts.is_empty())
                        && parts.iter().all(|part| {
                            let (Some(kind), Some(source)) = (&part.kind, &part.source) else {
                                return true;
                            };
                            let (Some(source_type), Some(value)) = (&source.kind, &source.value)
                            else {
                                return true;
                            };
                            part_is_clean(
                                kind.as_str(),
                                source_type.as_str(),
                                value.as_str(),
                                source.mime_type.as_ref().map(|m| m.as_str()),
                            )
                        })
                }
                _ => true,
            }
        })
}

/// The 1.x request rules: `duplicate-resume-entry`,
/// `activity-message-in-input`, `metadata-reserved-key` (on messages, tool
/// calls, tools and resume entries) and, in 1.1,
/// `encrypted-value-type-without-value` (on messages and tool calls).
fn request_is_clean(input: &RunAgentInput<'_>, protocol: Protocol) -> bool {
    if !protocol.is_1x() {
        return true;
    }
    let reserved = |metadata: &Option<Object>| metadata.is_some_and(|m| m.reserved);
    let messages = input.messages.as_deref().unwrap_or_default();
    let resume = input.resume.as_deref().unwrap_or_default();
    let mut answered = HashSet::with_capacity(resume.len());
    let resume_is_clean = resume.iter().all(|entry| {
        !reserved(&entry.metadata)
            && entry
                .interrupt_id
                .as_ref()
                .is_none_or(|id| answered.insert(id.as_str()))
    });
    // `encryptedValueType` exists since 1.1; in 1.0 it is an unknown key.
    let encrypted_is_clean = |has_type: bool, has_value: bool| {
        protocol != Protocol::V1_1 || !type_without_value(has_type, has_value)
    };
    let messages_are_clean = messages.iter().all(|m| {
        let calls_are_clean = !has_role(m, "assistant")
            || m.tool_calls.iter().flatten().all(|call| {
                !reserved(&call.metadata)
                    && encrypted_is_clean(
                        call.encrypted_value_type.is_some(),
                        call.encrypted_value.is_some(),
                    )
            });
        !has_role(m, "activity")
            && !reserved(&m.metadata)
            && encrypted_is_clean(
                m.encrypted_value_type.is_some(),
                m.encrypted_value.is_some(),
            )
            && calls_are_clean
    });
    let tools_are_clean = input.tools.iter().flatten().all(|t| !reserved(&t.metadata));
    resume_is_clean && messages_are_clean && tools_are_clean
}

/// A tool call and the index of the assistant message that makes it.
struct Call<'m> {
    message: usize,
    id: &'m str,
    name: &'m str,
    arguments: &'m str,
}

/// `empty-id` and `duplicate-tool-call-id` on calls, the result rules
/// (`tool-result-without-call`, `duplicate-tool-result`,
/// `tool-call-without-result`) and the argument rules
/// (`tool-arguments-not-json`, `tool-arguments-not-object`,
/// `tool-call-unknown-tool`, `tool-arguments-schema-mismatch`).
fn calls_are_clean(
    messages: &[Message<'_>],
    tools: &[Tool<'_>],
    verdicts: &[Option<Arc<ParametersVerdict>>],
) -> bool {
    let mut calls: Vec<Call<'_>> = Vec::new();
    for (index, message) in messages.iter().enumerate() {
        if !has_role(message, "assistant") {
            continue;
        }
        for call in message.tool_calls.iter().flatten() {
            let (Some(id), Some(function)) = (&call.id, &call.function) else {
                return false;
            };
            let (Some(name), Some(arguments)) = (&function.name, &function.arguments) else {
                return false;
            };
            calls.push(Call {
                message: index,
                id: id.as_str(),
                name: name.as_str(),
                arguments: arguments.as_str(),
            });
        }
    }
    // Call ids: not empty, each once; where each is made.
    let mut made_in: HashMap<&str, usize> = HashMap::with_capacity(calls.len());
    for call in &calls {
        if call.id.is_empty() || made_in.insert(call.id, call.message).is_some() {
            return false;
        }
    }
    // Results: each answers a call made earlier, once.
    let mut answered: HashSet<&str> = HashSet::new();
    let mut last_answer: HashMap<&str, usize> = HashMap::new();
    let mut last_turn = None;
    for (index, message) in messages.iter().enumerate() {
        if has_role(message, "user") || has_role(message, "assistant") {
            last_turn = Some(index);
        }
        if !has_role(message, "tool") {
            continue;
        }
        let Some(answer) = &message.tool_call_id else {
            continue;
        };
        let id = answer.as_str();
        match made_in.get(id) {
            Some(&call) if call < index => {
                if !answered.insert(id) {
                    return false;
                }
                last_answer.insert(id, index);
            }
            _ => return false,
        }
    }
    // Every call answered before the conversation moves on.
    let unanswered = calls.iter().any(|call| {
        let answered_later = last_answer
            .get(call.id)
            .is_some_and(|&at| at > call.message);
        !answered_later && last_turn.is_some_and(|turn| turn > call.message)
    });
    if unanswered {
        return false;
    }
    calls
        .iter()
        .all(|call| arguments_are_clean(call, tools, verdicts))
}

fn arguments_are_clean(
    call: &Call<'_>,
    tools: &[Tool<'_>],
    verdicts: &[Option<Arc<ParametersVerdict>>],
) -> bool {
    let Ok(arguments @ Value::Object(_)) = serde_json::from_str::<Value>(call.arguments) else {
        return false;
    };
    let Some(tool) = tools
        .iter()
        .position(|t| t.name.as_ref().is_some_and(|n| n.as_str() == call.name))
    else {
        return false;
    };
    // A tool without `parameters` takes any arguments object.
    verdicts
        .get(tool)
        .is_some_and(|v| v.as_ref().is_none_or(|v| v.accepts(&arguments)))
}

fn has_role(message: &Message<'_>, role: &str) -> bool {
    message.role.as_ref().is_some_and(|r| r.as_str() == role)
}
