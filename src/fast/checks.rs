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

use super::borrowed::{Content, Message, Messages, Object, RunAgentInput, Str, Tool};
use super::shape::message_fits;
use crate::limits::PARSER_DEPTH;
use crate::locate::Anchors;
use crate::rules::content::{check_parts, check_user_content};
use crate::rules::conversation::ConversationCheck;
use crate::rules::tools::check_names;
use crate::rules::verdict::{
    carries_parts, parameters_declare_nothing, verdict_by_text, ParametersVerdict,
};
use crate::rules::view::{self, Conversation, Emptiness, Findings, Marks, Parameters, RunIds};
use crate::{Limits, Protocol};

/// How deep a tool's `parameters` sits: the input object, its `tools`
/// array and the tool object hold it.
const PARAMETERS_DEPTH: usize = 3;

/// Runs the semantic rules on `input`, whose shape but for its messages
/// already fits the schema of `protocol`, the version it is judged by,
/// into `out`, taking its `messages` (taken out of it) one at a time, and
/// noting where each message and tool starts in `anchors`. False when what it
/// holds is for the full path: a message that does not fit the schema, or
/// a tool's `parameters` text with a parse or schema finding, or nesting
/// deeper than the parser reads. What was reported into `out` by then is
/// to be dropped: the full path reports it again.
pub(super) fn judge<'a>(
    input: &RunAgentInput<'a>,
    messages: Option<Messages<'a>>,
    protocol: Protocol,
    limits: Limits,
    out: &mut impl Findings,
    anchors: &mut Anchors<'_>,
) -> bool {
    // An absent list (1.x) means none, as on the full path.
    let tools = input.tools.as_deref().unwrap_or_default();
    for (index, tool) in tools.iter().enumerate() {
        anchors.note_object("/tools", index, tool.at);
    }
    let Some(verdicts) = tool_verdicts(tools, protocol, limits) else {
        return false;
    };
    let conversation = conversation(input, protocol, verdicts, limits);
    let check = ConversationCheck::new(&conversation, out);
    let names: Vec<Option<&str>> = conversation
        .tools
        .iter()
        .flatten()
        .map(|t| t.name)
        .collect();
    check_names(&names, |index| conversation.tool_at(index), out);
    let Some(messages) = messages else {
        return true;
    };
    judge_messages(messages, &conversation, check, out, anchors)
}

/// Runs the message rules on `messages`, a `MESSAGES_SNAPSHOT`'s, as the
/// full path runs them on the conversation an event carries (no run, no
/// tools), into `out`. False when a message does not fit the schema of
/// `protocol`; what was reported by then is to be dropped.
pub(super) fn judge_snapshot(
    messages: Messages<'_>,
    protocol: Protocol,
    limits: Limits,
    out: &mut impl Findings,
    anchors: &mut Anchors<'_>,
) -> bool {
    let conversation = Conversation {
        protocol,
        run: None,
        message_places: view::list("/messages"),
        whole: true,
        tools: None,
        tool_places: view::list("/tools"),
        resume: Vec::new(),
        resume_places: view::Places::Alone,
        schema_budget: limits.max_tool_schema_nodes,
    };
    let check = ConversationCheck::new(&conversation, out);
    judge_messages(messages, &conversation, check, out, anchors)
}

/// Runs the rules on each of `messages`, of `conversation`, one at a
/// time, and ends `check`; false when a message does not fit the schema.
fn judge_messages<'c, 'a>(
    messages: Messages<'a>,
    conversation: &'c Conversation<'a>,
    mut check: ConversationCheck<'c, 'a>,
    out: &mut impl Findings,
    anchors: &mut Anchors<'_>,
) -> bool {
    let protocol = conversation.protocol;
    let read = messages.each(|index, message| {
        if !message_fits(&message, protocol) {
            return false;
        }
        anchors.note_object("/messages", index, message.at);
        super::unknown::report_message(index, &message, protocol, out);
        let (read, calls, content) = turn(index, message);
        check.message(index, &read, &calls, out);
        if let Some(role) = read.role.as_deref() {
            check_content(index, role, content.as_ref(), conversation, out);
        }
        true
    });
    if read {
        check.finish(out);
    }
    read
}

/// What the conversation rules read of `message`, message `index`, and
/// its content for the content rules.
fn turn(
    index: usize,
    message: Message<'_>,
) -> (view::Message<'_>, Vec<view::Call<'_>>, Option<Content<'_>>) {
    fn text(s: Option<Str<'_>>) -> Option<view::Text<'_>> {
        s.map(|s| s.0)
    }
    let is_assistant = has_role(&message, "assistant");
    let calls = if is_assistant {
        message
            .tool_calls
            .into_iter()
            .flatten()
            .enumerate()
            .map(|(position, call)| {
                let marks = marks(
                    &call.metadata,
                    &call.encrypted_value_type,
                    &call.encrypted_value,
                );
                let (name, arguments) = match call.function {
                    Some(function) => (text(function.name), text(function.arguments)),
                    None => (None, None),
                };
                view::Call {
                    made_in: Some((index, position)),
                    id: text(call.id),
                    name,
                    arguments,
                    marks,
                }
            })
            .collect()
    } else {
        Vec::new()
    };
    let read = view::Message {
        marks: marks(
            &message.metadata,
            &message.encrypted_value_type,
            &message.encrypted_value,
        ),
        role: text(message.role),
        id: text(message.id),
        tool_call_id: text(message.tool_call_id),
    };
    (read, calls, message.content)
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

/// The content rules on `content`, of message `index` of `role`:
/// `content-empty` on a user message, the part rules on a message whose
/// parts they judge in the conversation's version.
fn check_content(
    index: usize,
    role: &str,
    content: Option<&Content<'_>>,
    conversation: &Conversation<'_>,
    out: &mut impl Findings,
) {
    if !carries_parts(conversation.protocol, role) {
        return;
    }
    let content_at = || format!("{}/content", conversation.message_at(index));
    let emptiness = match content {
        Some(Content::Text(text)) if text.as_str().is_empty() => Emptiness::EmptyText,
        Some(Content::Parts(items)) if items.is_empty() => Emptiness::EmptyParts,
        _ => Emptiness::NotEmpty,
    };
    if role == "user" {
        check_user_content(emptiness, content_at, out);
    }
    let Some(Content::Parts(items)) = content else {
        return;
    };
    let parts: Vec<view::Part<'_>> = items
        .iter()
        .map(|part| view::Part {
            kind: part.kind.as_ref().map(Str::as_str),
            source: part.source.as_ref().map(|source| view::Source {
                kind: source.kind.as_ref().map(Str::as_str),
                value: source.value.as_ref().map(Str::as_str),
                mime_type: source.mime_type.as_ref().map(Str::as_str),
            }),
        })
        .collect();
    check_parts(
        &parts,
        |position| format!("{}/{position}", content_at()),
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
    let tools = input.tools.as_deref().unwrap_or_default();
    Conversation {
        protocol,
        run: Some(RunIds {
            thread_id: text(&input.thread_id),
            run_id: text(&input.run_id),
            parent_run_id: text(&input.parent_run_id),
        }),
        message_places: view::list("/messages"),
        whole: true,
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
