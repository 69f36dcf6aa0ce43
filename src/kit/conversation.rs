//! The conversation as `@ag-ui/client` 1.0.0 holds it, applied event by
//! event (its `defaultApplyEvents`), and what it sends back: the request's
//! messages, then what each message, reasoning, tool call and result event
//! and each `MESSAGES_SNAPSHOT` does to them, exactly as the client does
//! it, activity messages left out of what is sent. `tests/kit_client.rs`
//! and `node/test/kit-client.test.js` hold the two equal on every recorded
//! framework session.
//!
//! Chunk events reach it already expanded ([`super::chunks`]). Where the
//! client warns and skips an event (content for a message it does not
//! have), so does this.

use std::collections::HashMap;

use serde_json::{json, Map, Value};

/// The conversation so far.
pub(super) struct Conversation {
    messages: Vec<Value>,
    /// Where each message id first sits, and each tool call's entry (its
    /// message, its index in `toolCalls`): kept as messages are pushed,
    /// rebuilt after a snapshot or an insertion moves them.
    message_at: HashMap<String, usize>,
    entry_at: HashMap<String, (usize, usize)>,
    stale: bool,
    /// The work rebuilding and inserting may still take: a stream whose
    /// results all answer its first call would otherwise cost time
    /// quadratic in its length.
    allowance: u64,
    /// Why the conversation stopped being followed, when it ran out.
    over: Option<String>,
}

impl Conversation {
    /// The conversation of a request carrying `messages`, with `allowance`
    /// units of work for what moves messages.
    pub(super) fn new(messages: Vec<Value>, allowance: u64) -> Conversation {
        let mut conversation = Conversation {
            messages,
            message_at: HashMap::new(),
            entry_at: HashMap::new(),
            stale: true,
            allowance,
            over: None,
        };
        conversation.index();
        conversation
    }

    /// The messages the client sends back: activity messages left out, a
    /// `subagentRunId` of `null` removed; and why the conversation stopped
    /// being followed, if it did.
    pub(super) fn finish(self) -> (Vec<Value>, Option<String>) {
        let messages = self
            .messages
            .into_iter()
            .filter(|m| role(m) != Some("activity"))
            .map(without_null_subagent)
            .collect();
        (messages, self.over)
    }

    /// Applies `event`, of type `kind` (chunks expanded).
    pub(super) fn apply(&mut self, kind: &str, event: &Value) {
        if self.over.is_some() {
            return;
        }
        let text = |key: &str| event.get(key).and_then(Value::as_str);
        let subagent = event.get("subagentRunId").filter(|v| !v.is_null());
        match kind {
            "RUN_STARTED" => {
                let input = event.pointer("/input/messages").and_then(Value::as_array);
                for message in input.into_iter().flatten() {
                    let id = message.get("id").and_then(Value::as_str).unwrap_or("");
                    if !self.has(id) {
                        self.push(without_null_subagent(message.clone()));
                    }
                }
            }
            "TEXT_MESSAGE_START" | "REASONING_MESSAGE_START" => {
                let Some(id) = text("messageId") else { return };
                if self.has(id) {
                    return;
                }
                let mut message = Map::new();
                message.insert("id".into(), json!(id));
                let role = match kind {
                    "TEXT_MESSAGE_START" => text("role").unwrap_or("assistant"),
                    _ => "reasoning",
                };
                message.insert("role".into(), json!(role));
                message.insert("content".into(), json!(""));
                if kind == "TEXT_MESSAGE_START" {
                    if let Some(name) = event.get("name") {
                        message.insert("name".into(), name.clone());
                    }
                }
                if let Some(subagent) = subagent {
                    message.insert("subagentRunId".into(), subagent.clone());
                }
                self.push(Value::Object(message));
            }
            "TEXT_MESSAGE_CONTENT" | "REASONING_MESSAGE_CONTENT" => {
                let (Some(id), Some(delta)) = (text("messageId"), text("delta")) else {
                    return;
                };
                let Some(message) = self
                    .find(id)
                    .and_then(|at| self.messages[at].as_object_mut())
                else {
                    return;
                };
                if message.get("role").and_then(Value::as_str) == Some("activity") {
                    return;
                }
                match message.get_mut("content") {
                    Some(Value::String(content)) => content.push_str(delta),
                    _ => {
                        message.insert("content".into(), json!(delta));
                    }
                }
            }
            "TOOL_CALL_START" => {
                let Some(id) = text("toolCallId") else { return };
                let name = event.get("toolCallName").cloned().unwrap_or(Value::Null);
                if let Some(function) = self.function(id) {
                    if function.get("name") != Some(&name) {
                        function.insert("name".into(), name);
                    }
                    return;
                }
                let at = self.parent(text("parentMessageId"), id, subagent);
                let entry = json!({"id": id, "type": "function",
                    "function": {"name": name, "arguments": ""}});
                let Some(message) = self.messages[at].as_object_mut() else {
                    return;
                };
                let calls = message
                    .entry("toolCalls")
                    .or_insert_with(|| Value::Array(Vec::new()));
                if let Value::Array(calls) = calls {
                    calls.push(entry);
                    let k = calls.len() - 1;
                    if !self.stale {
                        self.entry_at.entry(id.to_owned()).or_insert((at, k));
                    }
                }
            }
            "TOOL_CALL_ARGS" => {
                let (Some(id), Some(delta)) = (text("toolCallId"), text("delta")) else {
                    return;
                };
                if let Some(Value::String(arguments)) =
                    self.function(id).and_then(|f| f.get_mut("arguments"))
                {
                    arguments.push_str(delta);
                }
            }
            "TOOL_CALL_RESULT" => {
                let (Some(id), Some(call)) = (text("messageId"), text("toolCallId")) else {
                    return;
                };
                let mut message = Map::new();
                message.insert("id".into(), json!(id));
                message.insert("toolCallId".into(), json!(call));
                message.insert("role".into(), json!(text("role").unwrap_or("tool")));
                if let Some(content) = event.get("content") {
                    message.insert("content".into(), content.clone());
                }
                if let Some(subagent) = subagent {
                    message.insert("subagentRunId".into(), subagent.clone());
                }
                self.answer(call, Value::Object(message));
            }
            // An encrypted value (a provider's reasoning the agent needs
            // back) rides on the tool call or message it names.
            "REASONING_ENCRYPTED_VALUE" => {
                let (Some(entity), Some(value)) = (text("entityId"), event.get("encryptedValue"))
                else {
                    return;
                };
                if text("subtype") == Some("tool-call") {
                    self.index();
                    let Some(&(at, k)) = self.entry_at.get(entity) else {
                        return;
                    };
                    if role(&self.messages[at]) != Some("assistant") {
                        return;
                    }
                    let call = self.messages[at]
                        .get_mut("toolCalls")
                        .and_then(|calls| calls.get_mut(k))
                        .and_then(Value::as_object_mut);
                    if let Some(call) = call {
                        call.insert("encryptedValue".into(), value.clone());
                    }
                } else if let Some(at) = self.find(entity) {
                    if role(&self.messages[at]) == Some("activity") {
                        return;
                    }
                    if let Some(message) = self.messages[at].as_object_mut() {
                        message.insert("encryptedValue".into(), value.clone());
                    }
                }
            }
            "MESSAGES_SNAPSHOT" => {
                if let Some(snapshot) = event.get("messages").and_then(Value::as_array) {
                    self.snapshot(snapshot);
                }
            }
            _ => {}
        }
    }

    /// Whether a message `id` is held.
    fn has(&mut self, id: &str) -> bool {
        self.find(id).is_some()
    }

    /// Where the first message `id` sits.
    fn find(&mut self, id: &str) -> Option<usize> {
        self.index();
        self.message_at.get(id).copied()
    }

    /// The `function` of the first tool call `id` of an assistant's
    /// message.
    fn function(&mut self, id: &str) -> Option<&mut Map<String, Value>> {
        self.index();
        let (at, k) = *self.entry_at.get(id)?;
        self.messages[at]
            .get_mut("toolCalls")?
            .get_mut(k)?
            .get_mut("function")?
            .as_object_mut()
    }

    /// The message a new tool call joins, as the client chooses it: the
    /// assistant message `parent` names, else a new assistant message
    /// (named `parent`, or after the call when `parent` names another
    /// role's message or none is given).
    fn parent(&mut self, parent: Option<&str>, call: &str, subagent: Option<&Value>) -> usize {
        let found = parent.and_then(|p| self.find(p));
        if let Some(at) = found {
            if role(&self.messages[at]) == Some("assistant") {
                return at;
            }
        }
        let id = match (parent, found) {
            (Some(parent), None) => parent,
            _ => call,
        };
        let mut message = Map::new();
        message.insert("id".into(), json!(id));
        message.insert("role".into(), json!("assistant"));
        message.insert("toolCalls".into(), json!([]));
        if let Some(subagent) = subagent {
            message.insert("subagentRunId".into(), subagent.clone());
        }
        self.push(Value::Object(message))
    }

    /// Adds a tool result after the assistant message holding its call
    /// and the tool messages that follow it, or at the end.
    fn answer(&mut self, call: &str, message: Value) {
        self.index();
        let holder = self
            .entry_at
            .get(call)
            .map(|(at, _)| *at)
            .filter(|at| role(&self.messages[*at]) == Some("assistant"));
        let Some(holder) = holder else {
            self.push(message);
            return;
        };
        let mut at = holder + 1;
        while at < self.messages.len() && role(&self.messages[at]) == Some("tool") {
            at += 1;
        }
        if at == self.messages.len() {
            self.push(message);
            return;
        }
        if !self.spend((self.messages.len() - at) as u64) {
            return;
        }
        self.messages.insert(at, message);
        if self.stale {
            return;
        }
        // The messages after it moved one place on: so do their entries.
        for moved in at + 1..self.messages.len() {
            let message = &self.messages[moved];
            if let Some(first) = self.message_at.get_mut(id_of(message)) {
                if *first == moved - 1 {
                    *first = moved;
                }
            }
            let calls = message.get("toolCalls").and_then(Value::as_array);
            for call in calls.into_iter().flatten() {
                let id = call.get("id").and_then(Value::as_str).unwrap_or("");
                if let Some(entry) = self.entry_at.get_mut(id) {
                    if entry.0 == moved - 1 {
                        entry.0 = moved;
                    }
                }
            }
        }
        let id = id_of(&self.messages[at]).to_owned();
        let first = self.message_at.entry(id).or_insert(at);
        *first = (*first).min(at);
    }

    /// A `MESSAGES_SNAPSHOT`: each held message it names is replaced by
    /// its version, held messages it does not name are dropped (but
    /// reasoning when it has none, and activity when it has none), and its
    /// messages not held are added, in its order.
    fn snapshot(&mut self, snapshot: &[Value]) {
        if !self.spend((self.messages.len() + snapshot.len()) as u64) {
            return;
        }
        let restated: Vec<Value> = snapshot
            .iter()
            .cloned()
            .map(without_null_subagent)
            .collect();
        let mut by_id: HashMap<&str, &Value> = HashMap::new();
        for message in &restated {
            // A later duplicate wins, as a Map built from the list keeps it.
            by_id.insert(id_of(message), message);
        }
        let has_activity = restated.iter().any(|m| role(m) == Some("activity"));
        let has_reasoning = restated.iter().any(|m| role(m) == Some("reasoning"));
        let kept = |m: &Value| match role(m) {
            Some("activity") => !has_activity,
            Some("reasoning") => !has_reasoning,
            _ => false,
        };
        let mut messages: Vec<Value> = std::mem::take(&mut self.messages)
            .into_iter()
            .filter(|m| by_id.contains_key(id_of(m)) || kept(m))
            .map(|m| match by_id.get(id_of(&m)) {
                Some(again) => (*again).clone(),
                None => m,
            })
            .collect();
        let held: std::collections::HashSet<String> =
            messages.iter().map(|m| id_of(m).to_owned()).collect();
        messages.extend(
            restated
                .iter()
                .filter(|m| !held.contains(id_of(m)))
                .cloned(),
        );
        self.messages = messages;
        self.stale = true;
    }

    /// Adds `message` at the end; its index.
    fn push(&mut self, message: Value) -> usize {
        self.messages.push(message);
        let at = self.messages.len() - 1;
        if !self.stale {
            self.index_one(at);
        }
        at
    }

    /// Rebuilds the indexes when a change moved messages.
    fn index(&mut self) {
        if !self.stale {
            return;
        }
        if !self.spend(self.messages.len() as u64) {
            return;
        }
        self.message_at.clear();
        self.entry_at.clear();
        self.stale = false;
        for at in 0..self.messages.len() {
            self.index_one(at);
        }
    }

    fn index_one(&mut self, at: usize) {
        let message = &self.messages[at];
        self.message_at
            .entry(id_of(message).to_owned())
            .or_insert(at);
        let calls = message.get("toolCalls").and_then(Value::as_array);
        for (k, call) in calls.into_iter().flatten().enumerate() {
            if let Some(id) = call.get("id").and_then(Value::as_str) {
                self.entry_at.entry(id.to_owned()).or_insert((at, k));
            }
        }
    }

    /// Takes `work` from the allowance; when it is spent, the
    /// conversation is no longer followed.
    fn spend(&mut self, work: u64) -> bool {
        match self.allowance.checked_sub(work) {
            Some(left) => {
                self.allowance = left;
                true
            }
            None => {
                self.over = Some(format!(
                    "the run moved its messages more than agui-lint follows ({} messages held)",
                    self.messages.len()
                ));
                false
            }
        }
    }
}

/// `message` without a `subagentRunId` of `null`, which the client drops
/// wherever a message enters or leaves it.
fn without_null_subagent(mut message: Value) -> Value {
    if let Some(object) = message.as_object_mut() {
        if object.get("subagentRunId") == Some(&Value::Null) {
            object.remove("subagentRunId");
        }
    }
    message
}

fn role(message: &Value) -> Option<&str> {
    message.get("role").and_then(Value::as_str)
}

fn id_of(message: &Value) -> &str {
    message.get("id").and_then(Value::as_str).unwrap_or("")
}
