//! The semantic rules over the borrowed structs, each answering only "is
//! anything found?". Each function names the rules it stands for; the
//! predicates that decide a single value are the rules' own
//! ([`crate::rules::verdict`]), so both paths judge a value alike.
//!
//! Each takes the version the document is judged by: the rules a version
//! scopes out (see `crate::rules::Rule::protocols`) are not asked.

use std::collections::HashSet;
use std::sync::Arc;

use super::borrowed::{Content, Message, Object, RunAgentInput, Str, Tool};
use super::Verdict;
use crate::limits::PARSER_DEPTH;
use crate::rules::messages::check_conversation;
use crate::rules::verdict::{
    carries_parts, encrypted_value_type_without_value as type_without_value, name_is_well_formed,
    parameters_declare_nothing, part_is_clean, verdict_by_text, ParametersVerdict,
};
use crate::rules::view::{self, AnyFound, Conversation, Parameters, RunIds};
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
    let mut found = AnyFound::default();
    check_conversation(&conversation(input, verdicts, limits), &mut found);
    // Each family is judged (not only up to the first finding), so that
    // the full path runs only the families that find something.
    let families = Families {
        messages: found.0,
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

/// What the message rules read of `input`, whose tools' `parameters`
/// were judged as `verdicts` say.
fn conversation<'r>(
    input: &'r RunAgentInput<'_>,
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
            });
        }
    }
    let tools = input.tools.as_deref().unwrap_or_default();
    Conversation {
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
                })
                .collect(),
        ),
        tool_places: view::list("/tools"),
        schema_budget: limits.max_tool_schema_nodes,
    }
}

fn has_role(message: &Message<'_>, role: &str) -> bool {
    message.role.as_ref().is_some_and(|r| r.as_str() == role)
}
