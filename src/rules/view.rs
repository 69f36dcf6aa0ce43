//! The document as the semantic rules read it: the strings they judge,
//! borrowed, each with where it sits, and a sink for what they find.
//!
//! Both paths build these views and run the same rules on them, so each
//! rule is implemented once. The full path builds them from the parsed
//! `Value` ([`Conversation::of_document`]); the fast path
//! ([`crate::fast`]) from the structs it reads straight from the bytes.
//! The rules report through [`Findings`]: the full path collects every
//! diagnostic, the fast path only learns whether there is one
//! ([`AnyFound`]), so that a clean document never has a pointer or a
//! message built for it. Pointers are made from [`Places`] only when a
//! finding is reported.

use std::borrow::Cow;
use std::sync::Arc;

use serde_json::Value;

use super::tools::{cached_arguments_validator, Compiled, ParametersVerdict};
use super::walk::Document;
pub(crate) use crate::findings::{AnyFound, Findings};
use crate::spec::RESERVED_METADATA_KEY;
use crate::{Kind, Protocol};

/// Where the items of a list sit in the document.
#[derive(Debug, Clone)]
pub(crate) enum Places {
    /// Item `i` is at `{base}/{i}`.
    List(Cow<'static, str>),
    /// The document itself is the only item.
    Alone,
}

impl Places {
    /// The pointer of item `index`.
    pub(crate) fn at(&self, index: usize) -> String {
        match self {
            Places::List(base) => format!("{base}/{index}"),
            Places::Alone => String::new(),
        }
    }
}

/// A RunAgentInput's own ids.
#[derive(Debug, Default)]
pub(crate) struct RunIds<'a> {
    /// `threadId`, when a string.
    pub thread_id: Option<&'a str>,
    /// `runId`, when a string.
    pub run_id: Option<&'a str>,
    /// `parentRunId`, when a string.
    pub parent_run_id: Option<&'a str>,
}

/// What the request rules read on a message, a tool call, a tool or a
/// resume entry.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct Marks {
    /// Whether its `metadata` holds the key the protocol reserves.
    pub reserved_metadata: bool,
    /// Whether it has an `encryptedValueType`.
    pub encrypted_value_type: bool,
    /// Whether it has an `encryptedValue`.
    pub encrypted_value: bool,
}

impl Marks {
    /// The marks of `value`, a parsed object.
    fn of(value: &Value) -> Self {
        Marks {
            reserved_metadata: value
                .get("metadata")
                .and_then(|metadata| metadata.get(RESERVED_METADATA_KEY))
                .is_some(),
            encrypted_value_type: value.get("encryptedValueType").is_some(),
            encrypted_value: value.get("encryptedValue").is_some(),
        }
    }
}

/// What the rules read of an answer to an interrupt.
#[derive(Debug, Default)]
pub(crate) struct ResumeEntry<'a> {
    /// `interruptId`, when a string.
    pub interrupt_id: Option<&'a str>,
    /// Its marks.
    pub marks: Marks,
}

/// A string of the document, borrowed from it unless reading it had to
/// copy it (a string with escapes, read straight from the bytes). The
/// rules keep ids across messages, so they hold what outlives the message
/// read.
pub(crate) type Text<'a> = Cow<'a, str>;

/// What the conversation rules read of a message.
#[derive(Debug, Default)]
pub(crate) struct Message<'a> {
    /// `role`, when a string.
    pub role: Option<Text<'a>>,
    /// `id`, when a string.
    pub id: Option<Text<'a>>,
    /// `toolCallId`, when a string.
    pub tool_call_id: Option<Text<'a>>,
    /// Its marks.
    pub marks: Marks,
}

impl Message<'_> {
    /// Whether the message has `role`.
    pub(crate) fn is(&self, role: &str) -> bool {
        self.role.as_deref() == Some(role)
    }
}

/// What the conversation rules read of a tool call.
#[derive(Debug, Default)]
pub(crate) struct Call<'a> {
    /// The index of the assistant message making it and the call's
    /// position in that message's `toolCalls`; `None` when the document
    /// is the call itself.
    pub made_in: Option<(usize, usize)>,
    /// `id`, when a string.
    pub id: Option<Text<'a>>,
    /// `function.name`, when a string.
    pub name: Option<Text<'a>>,
    /// `function.arguments`, when a string.
    pub arguments: Option<Text<'a>>,
    /// Its marks.
    pub marks: Marks,
}

/// What the conversation rules read of a tool a call can name.
pub(crate) struct Tool<'a> {
    /// `name`, when a string.
    pub name: Option<&'a str>,
    /// Its `parameters`, which a call's arguments are checked against.
    pub parameters: Parameters<'a>,
    /// Its marks.
    pub marks: Marks,
}

/// A tool's `parameters`, as the path that read it holds them.
pub(crate) enum Parameters<'a> {
    /// None to check arguments against.
    None,
    /// The parsed schema.
    Value(&'a Value),
    /// The fast path's verdict on the schema's source text.
    Judged(Arc<ParametersVerdict>),
}

impl Parameters<'_> {
    /// The compiled schema, shared with every tool of the same schema,
    /// judged within `budget` values.
    pub(super) fn compiled(&self, budget: usize) -> Option<Arc<Compiled>> {
        match self {
            Parameters::None => None,
            Parameters::Value(schema) => Some(cached_arguments_validator(schema, budget)),
            Parameters::Judged(verdict) => verdict.compiled(),
        }
    }
}

/// What a document's conversation rules read besides its messages: the
/// run, the tools calls can name, the resume entries, and where each
/// sits. The messages themselves, and the tool calls they make, are fed
/// to the rules one at a time ([`super::conversation::ConversationCheck`]),
/// so that a conversation of a million messages is never held as a list.
pub(crate) struct Conversation<'a> {
    /// The version the document is judged by.
    pub protocol: Protocol,
    /// The run's ids, when the document is a RunAgentInput.
    pub run: Option<RunIds<'a>>,
    /// Where the messages sit.
    pub message_places: Places,
    /// Whether the messages are a whole conversation, so that a missing
    /// counterpart (a result without its call) is a finding; a single
    /// message is seen out of its conversation.
    pub whole: bool,
    /// The tools calls can be matched against (a RunAgentInput's
    /// `tools`), or `None` when the document has no such list.
    pub tools: Option<Vec<Tool<'a>>>,
    /// Where the tools sit.
    pub tool_places: Places,
    /// The resume entries (a RunAgentInput's `resume`, or the document
    /// when it is one entry).
    pub resume: Vec<ResumeEntry<'a>>,
    /// Where the resume entries sit.
    pub resume_places: Places,
    /// The schema budget tool `parameters` are compiled within.
    pub schema_budget: usize,
}

impl<'a> Conversation<'a> {
    /// The conversation of a parsed `document`, without its messages
    /// ([`turns`] reads those).
    pub(crate) fn of_document(document: &Document<'a>) -> Self {
        let root = document.root;
        let message_places = match document.kind {
            Kind::RunAgentInput => list("/messages"),
            Kind::Messages => list(""),
            _ => Places::Alone,
        };
        let is_run = document.kind == Kind::RunAgentInput;
        let (resume, resume_places) = match document.kind {
            Kind::RunAgentInput => (items(root.get("resume")), list("/resume")),
            Kind::ResumeEntry => (vec![root], Places::Alone),
            _ => (Vec::new(), Places::Alone),
        };
        Conversation {
            protocol: document.protocol,
            run: (is_run && root.is_object()).then(|| RunIds {
                thread_id: string(root, "threadId"),
                run_id: string(root, "runId"),
                parent_run_id: string(root, "parentRunId"),
            }),
            message_places,
            whole: matches!(document.kind, Kind::RunAgentInput | Kind::Messages),
            tools: is_run.then(|| {
                items(root.get("tools"))
                    .into_iter()
                    .map(|tool| Tool {
                        name: string(tool, "name"),
                        parameters: tool
                            .get("parameters")
                            .map_or(Parameters::None, Parameters::Value),
                        marks: Marks::of(tool),
                    })
                    .collect()
            }),
            tool_places: list("/tools"),
            resume: resume
                .into_iter()
                .map(|entry| ResumeEntry {
                    interrupt_id: string(entry, "interruptId"),
                    marks: Marks::of(entry),
                })
                .collect(),
            resume_places,
            schema_budget: document.limits.max_tool_schema_nodes,
        }
    }

    /// The pointer of message `index`.
    pub(crate) fn message_at(&self, index: usize) -> String {
        self.message_places.at(index)
    }

    /// The pointer of the call made where `made_in` says (`None`: the
    /// document is the call).
    pub(crate) fn call_at(&self, made_in: Option<(usize, usize)>) -> String {
        match made_in {
            Some((message, position)) => {
                format!("{}/toolCalls/{position}", self.message_at(message))
            }
            None => String::new(),
        }
    }

    /// The pointer of tool `index`.
    pub(crate) fn tool_at(&self, index: usize) -> String {
        self.tool_places.at(index)
    }

    /// The pointer of resume entry `index`.
    pub(crate) fn resume_at(&self, index: usize) -> String {
        self.resume_places.at(index)
    }
}

/// What the content rules read of a content part.
#[derive(Debug, Default)]
pub(crate) struct Part<'a> {
    /// `type`, when a string.
    pub kind: Option<&'a str>,
    /// `source`, when an object.
    pub source: Option<Source<'a>>,
}

impl<'a> Part<'a> {
    /// What the content rules read of `value`, a parsed part.
    pub(crate) fn of(value: &'a Value) -> Self {
        Part {
            kind: string(value, "type"),
            source: value
                .get("source")
                .filter(|source| source.is_object())
                .map(|source| Source {
                    kind: string(source, "type"),
                    value: string(source, "value"),
                    mime_type: string(source, "mimeType"),
                }),
        }
    }
}

/// What the content rules read of a media part's source.
#[derive(Debug, Default)]
pub(crate) struct Source<'a> {
    /// `type`, when a string.
    pub kind: Option<&'a str>,
    /// `value`, when a string.
    pub value: Option<&'a str>,
    /// `mimeType`, when a string.
    pub mime_type: Option<&'a str>,
}

/// A message's `content`, as far as `content-empty` asks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Emptiness {
    /// The empty string.
    EmptyText,
    /// The empty array.
    EmptyParts,
    /// Anything else.
    NotEmpty,
}

impl Emptiness {
    /// Whether `content`, a parsed value, is empty, and how.
    pub(crate) fn of(content: &Value) -> Self {
        match content {
            Value::String(text) if text.is_empty() => Emptiness::EmptyText,
            Value::Array(items) if items.is_empty() => Emptiness::EmptyParts,
            _ => Emptiness::NotEmpty,
        }
    }
}

/// Items at `{base}/{i}`.
pub(crate) fn list(base: &'static str) -> Places {
    Places::List(Cow::Borrowed(base))
}

/// The string at `key` of `value`, if it is one.
fn string<'a>(value: &'a Value, key: &str) -> Option<&'a str> {
    value.get(key).and_then(Value::as_str)
}

/// The string at `key` of `value`, if it is one, as the rules keep it.
fn text<'a>(value: &'a Value, key: &str) -> Option<Text<'a>> {
    string(value, key).map(Cow::Borrowed)
}

/// The items of `value`, when it is an array.
fn items(value: Option<&Value>) -> Vec<&Value> {
    value
        .and_then(Value::as_array)
        .map(|items| items.iter().collect())
        .unwrap_or_default()
}

/// What the rules read of a tool call `value`, made where `made_in` says.
fn call(value: &Value, made_in: Option<(usize, usize)>) -> Call<'_> {
    let function = value.get("function");
    Call {
        made_in,
        id: text(value, "id"),
        name: function.and_then(|f| text(f, "name")),
        arguments: function.and_then(|f| text(f, "arguments")),
        marks: Marks::of(value),
    }
}

/// The messages of a parsed `document`, in order, each with its index
/// and the tool calls it makes, for the conversation rules to be fed.
pub(crate) fn turns<'a>(
    document: &Document<'a>,
) -> impl Iterator<Item = (usize, Message<'a>, Vec<Call<'a>>)> {
    let root = document.root;
    let messages = match document.kind {
        Kind::RunAgentInput => items(root.get("messages")),
        Kind::Messages => items(Some(root)),
        Kind::Message => vec![root],
        _ => Vec::new(),
    };
    messages.into_iter().enumerate().map(|(index, message)| {
        let (read, calls) = turn(index, message);
        (index, read, calls)
    })
}

/// What the conversation rules read of `message`, message `index`, and
/// the tool calls it makes.
fn turn(index: usize, message: &Value) -> (Message<'_>, Vec<Call<'_>>) {
    let calls = if string(message, "role") == Some("assistant") {
        items(message.get("toolCalls"))
            .into_iter()
            .enumerate()
            .map(|(position, made)| call(made, Some((index, position))))
            .collect()
    } else {
        Vec::new()
    };
    let read = Message {
        role: text(message, "role"),
        id: text(message, "id"),
        tool_call_id: text(message, "toolCallId"),
        marks: Marks::of(message),
    };
    (read, calls)
}

/// [`turn`] for a message parsed on its own and dropped once read: its
/// strings copied, as the rules keep ids across messages.
pub(crate) fn owned_turn(index: usize, message: &Value) -> (Message<'static>, Vec<Call<'static>>) {
    fn owned(text: Option<Text<'_>>) -> Option<Text<'static>> {
        text.map(|t| Cow::Owned(t.into_owned()))
    }
    let (read, calls) = turn(index, message);
    let read = Message {
        role: owned(read.role),
        id: owned(read.id),
        tool_call_id: owned(read.tool_call_id),
        marks: read.marks,
    };
    let calls = calls
        .into_iter()
        .map(|call| Call {
            made_in: call.made_in,
            id: owned(call.id),
            name: owned(call.name),
            arguments: owned(call.arguments),
            marks: call.marks,
        })
        .collect();
    (read, calls)
}

/// The tool call a parsed `document` is, when it is one.
pub(crate) fn lone_call<'a>(document: &Document<'a>) -> Option<Call<'a>> {
    (document.kind == Kind::ToolCall).then(|| call(document.root, None))
}
