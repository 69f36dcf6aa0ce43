//! Where each protocol type sits inside a document of a given kind, so that
//! every rule runs on every place its type appears (a Tool inside
//! capabilities gets the tool rules too).
//!
//! Rules run after the schema check and may meet malformed data: every
//! accessor here skips what does not have the expected JSON shape.

// foldhash: seeded per process, so keys a client chooses cannot collide at
// will, and several times faster than SipHash on short keys.
use foldhash::{HashMap, HashMapExt};

use serde_json::Value;

use crate::pointer;
use crate::{Kind, Protocol};

/// A node together with an owned pointer.
#[derive(Debug, Clone)]
pub(crate) struct Node<'a> {
    /// The node.
    pub value: &'a Value,
    /// Its pointer from the document root.
    pub pointer: String,
}

impl<'a> Node<'a> {
    fn new(value: &'a Value, pointer: String) -> Self {
        Node { value, pointer }
    }

    /// The child at `key`, with its pointer.
    pub fn child(&self, key: &str) -> Option<Node<'a>> {
        self.value
            .get(key)
            .map(|v| Node::new(v, pointer::push(&self.pointer, key)))
    }

    /// The elements of this node, when it is an array.
    pub fn elements(&self) -> Vec<Node<'a>> {
        self.value
            .as_array()
            .map(|items| {
                items
                    .iter()
                    .enumerate()
                    .map(|(i, v)| Node::new(v, format!("{}/{i}", self.pointer)))
                    .collect()
            })
            .unwrap_or_default()
    }

    /// The string at `key`, if it is one.
    pub fn str(&self, key: &str) -> Option<&'a str> {
        self.value.get(key).and_then(Value::as_str)
    }
}

/// Whether the content of a message of `role`, judged by `protocol`, may
/// be a list of parts that the content rules judge: a user message's, and
/// since 1.0 a tool message's.
pub(crate) fn carries_parts(protocol: Protocol, role: &str) -> bool {
    role == "user" || (protocol.is_1x() && role == "tool")
}

/// One document, seen through the protocol's types.
pub(crate) struct Document<'a> {
    /// The kind the document is checked as.
    pub kind: Kind,
    /// The protocol version the document is judged by.
    pub protocol: Protocol,
    /// The whole document.
    pub root: &'a Value,
    /// The limits the document is checked within.
    pub limits: crate::Limits,
}

impl<'a> Document<'a> {
    /// The whole document as a node.
    pub fn root_node(&self) -> Node<'a> {
        Node::new(self.root, String::new())
    }

    /// The conversation (in order), when the document has one: the messages
    /// of a RunAgentInput, a messages array, or a single message.
    pub fn messages(&self) -> Vec<Node<'a>> {
        match self.kind {
            Kind::RunAgentInput => self
                .root_node()
                .child("messages")
                .map(|m| m.elements())
                .unwrap_or_default(),
            Kind::Messages => self.root_node().elements(),
            Kind::Message => vec![self.root_node()],
            _ => Vec::new(),
        }
    }

    /// Each list of tools in the document, as (list node, tools): the
    /// client's `tools` of a RunAgentInput, a tools array, the agent's
    /// `tools.items` of capabilities, or a single tool as a list of one.
    pub fn tool_lists(&self) -> Vec<Vec<Node<'a>>> {
        let root = self.root_node();
        match self.kind {
            Kind::RunAgentInput => root
                .child("tools")
                .map(|t| vec![t.elements()])
                .unwrap_or_default(),
            Kind::Tools => vec![root.elements()],
            Kind::Tool => vec![vec![root]],
            Kind::Capabilities => root
                .child("tools")
                .and_then(|t| t.child("items"))
                .map(|items| vec![items.elements()])
                .unwrap_or_default(),
            _ => Vec::new(),
        }
    }

    /// Every multimodal content part: those of user messages (and, since
    /// 1.0, of tool messages and `TOOL_CALL_RESULT` events, whose content
    /// may be parts too), or the document itself when it is one.
    pub fn content_parts(&self) -> Vec<Node<'a>> {
        if self.kind == Kind::InputContent {
            return vec![self.root_node()];
        }
        let carries_parts =
            |role: Option<&str>| role.is_some_and(|r| carries_parts(self.protocol, r));
        let results = match self.kind {
            Kind::Event if self.protocol.is_1x() => vec![self.root_node()],
            Kind::Events if self.protocol.is_1x() => self.root_node().elements(),
            _ => Vec::new(),
        };
        let results = results
            .into_iter()
            .filter(|event| event.str("type") == Some("TOOL_CALL_RESULT"));
        self.messages()
            .into_iter()
            .filter(|m| carries_parts(m.str("role")))
            .chain(results)
            .filter_map(|m| m.child("content"))
            .flat_map(|content| content.elements())
            .collect()
    }

    /// Payloads carried inside events, as (kind, node, pointer of the
    /// node): `RUN_STARTED.input` is a RunAgentInput, `MESSAGES_SNAPSHOT`'s
    /// `messages` a conversation.
    pub fn embedded(&self) -> Vec<(Kind, Node<'a>, String)> {
        let root = self.root_node();
        let events = match self.kind {
            Kind::Event => vec![root],
            Kind::Events => root.elements(),
            _ => Vec::new(),
        };
        let mut found = Vec::new();
        for event in events {
            let (kind, key) = match event.str("type") {
                Some("RUN_STARTED") => (Kind::RunAgentInput, "input"),
                Some("MESSAGES_SNAPSHOT") => (Kind::Messages, "messages"),
                _ => continue,
            };
            if let Some(payload) = event.child(key) {
                let at = payload.pointer.clone();
                found.push((kind, payload, at));
            }
        }
        found
    }

    /// The capabilities declaration, when the document is one.
    pub fn capabilities(&self) -> Option<Node<'a>> {
        (self.kind == Kind::Capabilities && self.root.is_object()).then(|| self.root_node())
    }
}

/// The repeats among `values`, strings with where they are (a pointer or
/// an index), in document order: each one met before, as (value, place,
/// place of its first occurrence). Ids, tool names and interrupt ids that
/// must be unique are judged by it.
pub(crate) fn repeats<'a, P: Clone>(
    values: impl IntoIterator<Item = (&'a str, P)>,
) -> Vec<(&'a str, P, P)> {
    let mut first: HashMap<&str, P> = HashMap::new();
    let mut found = Vec::new();
    for (value, at) in values {
        match first.get(value) {
            Some(earlier) => found.push((value, at, earlier.clone())),
            None => {
                first.insert(value, at);
            }
        }
    }
    found
}
