//! A decoded frame written as the JSON event the official decoder
//! (`decode` of `@ag-ui/proto` 1.0.0) builds of it, so that the shape rules,
//! the sequence rules and the pairing with the request judge it unchanged:
//!
//! - a proto3 string without presence is always there (`""` when the
//!   frame left it out), an `optional` one only when the frame holds it;
//! - a repeated field is an array, empty or not, except where the decoder
//!   drops an empty one (a message's `toolCalls`, a run's `usage`);
//! - `google.protobuf.Value` slots hold any JSON (a `Value` of no kind is
//!   absent), `Struct` slots an object, members in wire order;
//! - `type` comes from the event's member of the `Event` oneof, and a
//!   patch's `op` from its enum (lower-cased; an unknown number as text);
//! - a run's and a subagent's `outcome` string and the lists beside it
//!   become the outcome object; a message's `contentParts` or
//!   `activityContent` become its `content` as its role says.
//!
//! What the decoder refuses (a base event of another type, an `int64`
//! beyond JavaScript's safe integers, content in two forms) is an
//! [`Invalid`] with the reason.

use super::wire::{
    self, event::Event as Arm, input_content::Part, input_content_source::Source, EventType,
    JsonPatchOperationType,
};
use super::writer::{k, Json, Object, MAX_SAFE_INTEGER};

/// Why the official decoder refuses a frame.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Invalid(pub String);

/// A frame's event as JSON.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Written {
    /// The event's JSON text, one line.
    pub json: Vec<u8>,
    /// Some string was not UTF-8: the decoder replaced its broken bytes
    /// with U+FFFD, and so did this text.
    pub replaced_utf8: bool,
    /// Content parts of no known kind, which the decoder drops.
    pub dropped_parts: usize,
}

/// The event `arm` holds, as JSON.
pub(crate) fn event(arm: &Arm, size: usize) -> Result<Written, Invalid> {
    let (base, expected) = base_of(arm);
    let Some(base) = base else {
        return Err(Invalid("the event holds no base_event".into()));
    };
    if base.r#type != expected as i32 {
        let declared = EventType::try_from(base.r#type)
            .map_or_else(|_| base.r#type.to_string(), |t| t.as_str_name().to_string());
        return Err(Invalid(format!(
            "the frame holds a {} event but its base_event declares {declared}",
            expected.as_str_name()
        )));
    }
    // JSON spells out the keys a frame numbers: about twice its bytes.
    let mut json = Json {
        out: Vec::with_capacity(size * 2 + 64),
        ..Json::default()
    };
    let mut o = Object::open(&mut json);
    o.key(k!("type")).literal_string(expected.as_str_name());
    fields(&mut o, arm)?;
    if let Some(timestamp) = base.timestamp {
        o.key(k!("timestamp")).integer(safe(timestamp)?);
    }
    o.value(k!("rawEvent"), base.raw_event.as_ref());
    if let Some(metadata) = &base.metadata {
        o.key(k!("metadata")).object(metadata);
    }
    o.close();
    Ok(Written {
        json: json.out,
        replaced_utf8: json.replaced_utf8,
        dropped_parts: json.dropped_parts,
    })
}

/// The event's base and the type its `Event` member stands for.
fn base_of(arm: &Arm) -> (Option<&wire::BaseEvent>, EventType) {
    macro_rules! arms {
        ($($member:ident),* $(,)?) => {
            match arm {
                $(Arm::$member(e) => (e.base_event.as_ref(), EventType::$member),)*
            }
        };
    }
    arms!(
        TextMessageStart,
        TextMessageContent,
        TextMessageEnd,
        TextMessageChunk,
        ToolCallStart,
        ToolCallArgs,
        ToolCallEnd,
        ToolCallChunk,
        ToolCallResult,
        StateSnapshot,
        StateDelta,
        MessagesSnapshot,
        ActivitySnapshot,
        ActivityDelta,
        Raw,
        Custom,
        RunStarted,
        RunFinished,
        RunError,
        StepStarted,
        StepFinished,
        ReasoningStart,
        ReasoningMessageStart,
        ReasoningMessageContent,
        ReasoningMessageEnd,
        ReasoningMessageChunk,
        ReasoningEnd,
        ReasoningEncryptedValue,
        SubagentStarted,
        SubagentFinished,
        SubagentError,
    )
}

/// The event's own fields, in their wire order.
fn fields(o: &mut Object<'_>, arm: &Arm) -> Result<(), Invalid> {
    match arm {
        Arm::TextMessageStart(e) => {
            o.string(k!("messageId"), &e.message_id);
            o.optional(k!("role"), &e.role);
            o.optional(k!("name"), &e.name);
            o.optional(k!("subagentRunId"), &e.subagent_run_id);
        }
        Arm::TextMessageContent(e) => {
            o.string(k!("messageId"), &e.message_id);
            o.string(k!("delta"), &e.delta);
            o.optional(k!("subagentRunId"), &e.subagent_run_id);
        }
        Arm::TextMessageEnd(e) => {
            o.string(k!("messageId"), &e.message_id);
            o.optional(k!("subagentRunId"), &e.subagent_run_id);
        }
        Arm::TextMessageChunk(e) => {
            o.optional(k!("messageId"), &e.message_id);
            o.optional(k!("role"), &e.role);
            o.optional(k!("delta"), &e.delta);
            o.optional(k!("name"), &e.name);
            o.optional(k!("subagentRunId"), &e.subagent_run_id);
        }
        Arm::ToolCallStart(e) => {
            o.string(k!("toolCallId"), &e.tool_call_id);
            o.string(k!("toolCallName"), &e.tool_call_name);
            o.optional(k!("parentMessageId"), &e.parent_message_id);
            o.optional(k!("subagentRunId"), &e.subagent_run_id);
        }
        Arm::ToolCallArgs(e) => {
            o.string(k!("toolCallId"), &e.tool_call_id);
            o.string(k!("delta"), &e.delta);
            o.optional(k!("subagentRunId"), &e.subagent_run_id);
        }
        Arm::ToolCallEnd(e) => {
            o.string(k!("toolCallId"), &e.tool_call_id);
            o.optional(k!("subagentRunId"), &e.subagent_run_id);
        }
        Arm::ToolCallChunk(e) => {
            o.optional(k!("toolCallId"), &e.tool_call_id);
            o.optional(k!("toolCallName"), &e.tool_call_name);
            o.optional(k!("parentMessageId"), &e.parent_message_id);
            o.optional(k!("delta"), &e.delta);
            o.optional(k!("subagentRunId"), &e.subagent_run_id);
        }
        Arm::ToolCallResult(e) => {
            o.optional(k!("subagentRunId"), &e.subagent_run_id);
            o.string(k!("messageId"), &e.message_id);
            o.string(k!("toolCallId"), &e.tool_call_id);
            match &e.content {
                Some(_) if !e.content_parts.is_empty() => {
                    return Err(Invalid(
                        "the tool result carries both string content and content parts".into(),
                    ))
                }
                Some(content) => o.string(k!("content"), content),
                None => o.key(k!("content")).parts(&e.content_parts)?,
            }
            o.optional(k!("role"), &e.role);
        }
        Arm::StateSnapshot(e) => {
            o.value(k!("snapshot"), e.snapshot.as_ref());
            o.optional(k!("subagentRunId"), &e.subagent_run_id);
        }
        Arm::StateDelta(e) => {
            o.key(k!("delta")).patch(&e.delta);
            o.optional(k!("subagentRunId"), &e.subagent_run_id);
        }
        Arm::MessagesSnapshot(e) => {
            o.key(k!("messages")).messages(&e.messages)?;
        }
        Arm::ActivitySnapshot(e) => {
            o.optional(k!("subagentRunId"), &e.subagent_run_id);
            o.string(k!("messageId"), &e.message_id);
            o.string(k!("activityType"), &e.activity_type);
            if let Some(content) = &e.content {
                o.key(k!("content")).object(content);
            }
            if let Some(replace) = e.replace {
                o.key(k!("replace"))
                    .literal(if replace { "true" } else { "false" });
            }
        }
        Arm::ActivityDelta(e) => {
            o.optional(k!("subagentRunId"), &e.subagent_run_id);
            o.string(k!("messageId"), &e.message_id);
            o.string(k!("activityType"), &e.activity_type);
            o.key(k!("patch")).patch(&e.patch);
        }
        Arm::Raw(e) => {
            o.value(k!("event"), e.event.as_ref());
            o.optional(k!("source"), &e.source);
            o.optional(k!("subagentRunId"), &e.subagent_run_id);
        }
        Arm::Custom(e) => {
            o.string(k!("name"), &e.name);
            o.value(k!("value"), e.value.as_ref());
            o.optional(k!("subagentRunId"), &e.subagent_run_id);
        }
        Arm::RunStarted(e) => {
            o.string(k!("threadId"), &e.thread_id);
            o.string(k!("runId"), &e.run_id);
            o.optional(k!("parentRunId"), &e.parent_run_id);
            if let Some(input) = &e.input {
                o.key(k!("input")).run_agent_input(input)?;
            }
            o.optional(k!("protocolVersion"), &e.protocol_version);
        }
        Arm::RunFinished(e) => {
            o.string(k!("threadId"), &e.thread_id);
            o.string(k!("runId"), &e.run_id);
            o.value(k!("result"), e.result.as_ref());
            if !e.usage.is_empty() {
                o.key(k!("usage")).usage(&e.usage)?;
            }
            let pending = &e.pending_tool_call_ids;
            let interrupts = &e.interrupts;
            if e.outcome.is_empty() {
                if !pending.is_empty() {
                    o.key(k!("pendingToolCallIds")).strings(pending);
                }
                if !interrupts.is_empty() {
                    o.key(k!("interrupts")).interrupts(interrupts);
                }
            } else {
                let mut outcome = Object::open(o.key(k!("outcome")));
                outcome.string(k!("type"), &e.outcome);
                // An interrupt outcome always lists its interrupts.
                if e.outcome[..] == b"interrupt"[..] {
                    outcome.key(k!("interrupts")).interrupts(interrupts);
                    if !pending.is_empty() {
                        outcome.key(k!("pendingToolCallIds")).strings(pending);
                    }
                } else {
                    if !pending.is_empty() {
                        outcome.key(k!("pendingToolCallIds")).strings(pending);
                    }
                    if !interrupts.is_empty() {
                        outcome.key(k!("interrupts")).interrupts(interrupts);
                    }
                }
                outcome.close();
            }
        }
        Arm::RunError(e) => {
            o.optional(k!("code"), &e.code);
            o.string(k!("message"), &e.message);
            if !e.usage.is_empty() {
                o.key(k!("usage")).usage(&e.usage)?;
            }
        }
        Arm::StepStarted(e) => {
            o.string(k!("stepName"), &e.step_name);
            o.optional(k!("subagentRunId"), &e.subagent_run_id);
        }
        Arm::StepFinished(e) => {
            o.string(k!("stepName"), &e.step_name);
            o.optional(k!("subagentRunId"), &e.subagent_run_id);
        }
        Arm::ReasoningStart(e) => {
            o.optional(k!("subagentRunId"), &e.subagent_run_id);
            o.string(k!("messageId"), &e.message_id);
        }
        Arm::ReasoningMessageStart(e) => {
            o.optional(k!("subagentRunId"), &e.subagent_run_id);
            o.string(k!("messageId"), &e.message_id);
            o.string(k!("role"), &e.role);
        }
        Arm::ReasoningMessageContent(e) => {
            o.optional(k!("subagentRunId"), &e.subagent_run_id);
            o.string(k!("messageId"), &e.message_id);
            o.string(k!("delta"), &e.delta);
        }
        Arm::ReasoningMessageEnd(e) => {
            o.optional(k!("subagentRunId"), &e.subagent_run_id);
            o.string(k!("messageId"), &e.message_id);
        }
        Arm::ReasoningMessageChunk(e) => {
            o.optional(k!("subagentRunId"), &e.subagent_run_id);
            o.optional(k!("messageId"), &e.message_id);
            o.optional(k!("delta"), &e.delta);
        }
        Arm::ReasoningEnd(e) => {
            o.optional(k!("subagentRunId"), &e.subagent_run_id);
            o.string(k!("messageId"), &e.message_id);
        }
        Arm::ReasoningEncryptedValue(e) => {
            o.optional(k!("subagentRunId"), &e.subagent_run_id);
            o.string(k!("subtype"), &e.subtype);
            o.string(k!("entityId"), &e.entity_id);
            o.string(k!("encryptedValue"), &e.encrypted_value);
            o.optional(k!("encryptedValueType"), &e.encrypted_value_type);
        }
        Arm::SubagentStarted(e) => {
            o.string(k!("subagentRunId"), &e.subagent_run_id);
            o.string(k!("name"), &e.name);
            o.optional(k!("description"), &e.description);
            o.optional(k!("parentSubagentRunId"), &e.parent_subagent_run_id);
            o.optional(k!("parentToolCallId"), &e.parent_tool_call_id);
            o.optional(k!("parentMessageId"), &e.parent_message_id);
        }
        Arm::SubagentFinished(e) => {
            o.string(k!("subagentRunId"), &e.subagent_run_id);
            o.value(k!("result"), e.result.as_ref());
            if e.outcome.is_empty() {
                if !e.interrupt_ids.is_empty() {
                    o.key(k!("interruptIds")).strings(&e.interrupt_ids);
                }
            } else {
                let mut outcome = Object::open(o.key(k!("outcome")));
                outcome.string(k!("type"), &e.outcome);
                if !e.interrupt_ids.is_empty() {
                    outcome.key(k!("interruptIds")).strings(&e.interrupt_ids);
                }
                outcome.close();
            }
        }
        Arm::SubagentError(e) => {
            o.string(k!("subagentRunId"), &e.subagent_run_id);
            o.string(k!("message"), &e.message);
            o.optional(k!("code"), &e.code);
        }
    }
    Ok(())
}

/// The roles a message of the wire may have, for telling an unknown role
/// from a known one misused.
const KNOWN_ROLES: [&[u8]; 7] = [
    b"developer",
    b"system",
    b"assistant",
    b"user",
    b"tool",
    b"activity",
    b"reasoning",
];

impl Json {
    fn patch(&mut self, operations: &[wire::JsonPatchOperation]) {
        self.out.push(b'[');
        for (i, operation) in operations.iter().enumerate() {
            if i > 0 {
                self.out.push(b',');
            }
            let mut o = Object::open(self);
            match JsonPatchOperationType::try_from(operation.op) {
                Ok(op) => o
                    .key(k!("op"))
                    .literal_string(&op.as_str_name().to_ascii_lowercase()),
                Err(_) => o.key(k!("op")).literal_string(&operation.op.to_string()),
            }
            o.string(k!("path"), &operation.path);
            o.optional(k!("from"), &operation.from);
            o.value(k!("value"), operation.value.as_ref());
            o.close();
        }
        self.out.push(b']');
    }

    fn usage(&mut self, usage: &[wire::Usage]) -> Result<(), Invalid> {
        self.out.push(b'[');
        for (i, entry) in usage.iter().enumerate() {
            if i > 0 {
                self.out.push(b',');
            }
            let mut o = Object::open(self);
            o.optional(k!("provider"), &entry.provider);
            o.optional(k!("model"), &entry.model);
            for (key, count) in [
                (k!("inputTokens"), entry.input_tokens),
                (k!("outputTokens"), entry.output_tokens),
                (k!("totalTokens"), entry.total_tokens),
                (k!("reasoningTokens"), entry.reasoning_tokens),
                (k!("cachedInputTokens"), entry.cached_input_tokens),
                (k!("cacheWriteInputTokens"), entry.cache_write_input_tokens),
            ] {
                if let Some(count) = count {
                    o.key(key).integer(safe(count)?);
                }
            }
            o.close();
        }
        self.out.push(b']');
        Ok(())
    }

    fn interrupts(&mut self, interrupts: &[wire::Interrupt]) {
        self.out.push(b'[');
        for (i, interrupt) in interrupts.iter().enumerate() {
            if i > 0 {
                self.out.push(b',');
            }
            let mut o = Object::open(self);
            o.string(k!("id"), &interrupt.id);
            o.string(k!("reason"), &interrupt.reason);
            o.optional(k!("message"), &interrupt.message);
            o.optional(k!("toolCallId"), &interrupt.tool_call_id);
            o.value(k!("responseSchema"), interrupt.response_schema.as_ref());
            o.optional(k!("expiresAt"), &interrupt.expires_at);
            o.value(k!("metadata"), interrupt.metadata.as_ref());
            o.optional(k!("subagentRunId"), &interrupt.subagent_run_id);
            o.close();
        }
        self.out.push(b']');
    }

    /// Content parts as a `content` array, those of no known kind dropped.
    fn parts(&mut self, parts: &[wire::InputContent]) -> Result<(), Invalid> {
        self.out.push(b'[');
        let mut first = true;
        for part in parts {
            let Some(part) = &part.part else {
                self.dropped_parts += 1;
                continue;
            };
            let (kind, id, source, metadata) = match part {
                Part::Text(text) => {
                    if !first {
                        self.out.push(b',');
                    }
                    first = false;
                    let mut o = Object::open(self);
                    o.key(k!("type")).literal_string("text");
                    o.optional(k!("id"), &text.id);
                    o.string(k!("text"), &text.text);
                    o.value(k!("metadata"), text.metadata.as_ref());
                    o.close();
                    continue;
                }
                Part::Image(p) => ("image", &p.id, &p.source, &p.metadata),
                Part::Audio(p) => ("audio", &p.id, &p.source, &p.metadata),
                Part::Video(p) => ("video", &p.id, &p.source, &p.metadata),
                Part::Document(p) => ("document", &p.id, &p.source, &p.metadata),
            };
            // A source of no known kind drops its part.
            if source.as_ref().is_some_and(|s| s.source.is_none()) {
                self.dropped_parts += 1;
                continue;
            }
            if !first {
                self.out.push(b',');
            }
            first = false;
            let mut o = Object::open(self);
            o.key(k!("type")).literal_string(kind);
            o.optional(k!("id"), id);
            if let Some(source) = source.as_ref().and_then(|s| s.source.as_ref()) {
                let mut s = Object::open(o.key(k!("source")));
                match source {
                    Source::Data(data) => {
                        s.key(k!("type")).literal_string("data");
                        s.string(k!("value"), &data.value);
                        s.string(k!("mimeType"), &data.mime_type);
                    }
                    Source::Url(url) => {
                        s.key(k!("type")).literal_string("url");
                        s.string(k!("value"), &url.value);
                        s.optional(k!("mimeType"), &url.mime_type);
                    }
                    Source::File(file) => {
                        s.key(k!("type")).literal_string("file");
                        s.string(k!("value"), &file.value);
                        s.optional(k!("provider"), &file.provider);
                        s.optional(k!("mimeType"), &file.mime_type);
                    }
                }
                s.close();
            }
            o.value(k!("metadata"), metadata.as_ref());
            o.close();
        }
        self.out.push(b']');
        Ok(())
    }

    fn messages(&mut self, messages: &[wire::Message]) -> Result<(), Invalid> {
        self.out.push(b'[');
        for (i, message) in messages.iter().enumerate() {
            if i > 0 {
                self.out.push(b',');
            }
            self.message(message)?;
        }
        self.out.push(b']');
        Ok(())
    }

    /// A message of the wire's one `Message`, whose content field its role
    /// chooses (the decoder's `fromWireMessage`).
    fn message(&mut self, m: &wire::Message) -> Result<(), Invalid> {
        let known = KNOWN_ROLES.contains(&&m.role[..]);
        let has_parts = !m.content_parts.is_empty();
        let uses_parts = if known {
            m.role[..] == b"user"[..] || m.role[..] == b"tool"[..]
        } else {
            has_parts
        };
        let uses_map = if known {
            m.role[..] == b"activity"[..]
        } else {
            !uses_parts && m.activity_content.is_some()
        };
        let forms = usize::from(m.content.is_some())
            + usize::from(has_parts)
            + usize::from(m.activity_content.is_some());
        let refused = if !known && forms > 1 {
            Some("a message carries more than one content form")
        } else if known && !uses_parts && has_parts {
            Some("a message carries content parts for a role that has none")
        } else if known && m.activity_content.is_some() && !uses_map {
            Some("a message carries activity content for a non-activity role")
        } else if known && uses_map && m.content.is_some() {
            Some("activity content cannot ride with other content forms")
        } else if known && uses_parts && m.content.is_some() && has_parts {
            Some("a message carries both string content and content parts")
        } else {
            None
        };
        if let Some(reason) = refused {
            return Err(Invalid(reason.into()));
        }
        let mut o = Object::open(self);
        o.string(k!("id"), &m.id);
        o.string(k!("role"), &m.role);
        match (&m.content, &m.activity_content) {
            (Some(content), _) => o.string(k!("content"), content),
            (None, _) if uses_parts => o.key(k!("content")).parts(&m.content_parts)?,
            (None, Some(activity)) if uses_map => o.key(k!("content")).object(activity),
            (None, _) => {}
        }
        o.optional(k!("name"), &m.name);
        if !m.tool_calls.is_empty() {
            let json = o.key(k!("toolCalls"));
            json.out.push(b'[');
            for (i, call) in m.tool_calls.iter().enumerate() {
                if i > 0 {
                    json.out.push(b',');
                }
                let mut c = Object::open(json);
                c.string(k!("id"), &call.id);
                c.string(k!("type"), &call.r#type);
                if let Some(function) = &call.function {
                    let mut f = Object::open(c.key(k!("function")));
                    f.string(k!("name"), &function.name);
                    f.string(k!("arguments"), &function.arguments);
                    f.close();
                }
                if let Some(metadata) = &call.metadata {
                    c.key(k!("metadata")).object(metadata);
                }
                c.optional(k!("encryptedValue"), &call.encrypted_value);
                c.optional(k!("encryptedValueType"), &call.encrypted_value_type);
                c.close();
            }
            json.out.push(b']');
        }
        o.optional(k!("toolCallId"), &m.tool_call_id);
        o.optional(k!("error"), &m.error);
        if let Some(metadata) = &m.metadata {
            o.key(k!("metadata")).object(metadata);
        }
        o.optional(k!("subagentRunId"), &m.subagent_run_id);
        o.optional(k!("encryptedValue"), &m.encrypted_value);
        o.optional(k!("activityType"), &m.activity_type);
        o.optional(k!("encryptedValueType"), &m.encrypted_value_type);
        o.close();
        Ok(())
    }

    /// A run's input (the decoder's `fromWireRunAgentInput`).
    fn run_agent_input(&mut self, input: &wire::RunAgentInput) -> Result<(), Invalid> {
        let mut o = Object::open(self);
        o.string(k!("threadId"), &input.thread_id);
        o.string(k!("runId"), &input.run_id);
        o.optional(k!("protocolVersion"), &input.protocol_version);
        o.optional(k!("parentRunId"), &input.parent_run_id);
        o.value(k!("state"), input.state.as_ref());
        o.key(k!("messages")).messages(&input.messages)?;
        let json = o.key(k!("tools"));
        json.out.push(b'[');
        for (i, tool) in input.tools.iter().enumerate() {
            if i > 0 {
                json.out.push(b',');
            }
            let mut t = Object::open(json);
            t.string(k!("name"), &tool.name);
            t.string(k!("description"), &tool.description);
            t.value(k!("parameters"), tool.parameters.as_ref());
            if let Some(metadata) = &tool.metadata {
                t.key(k!("metadata")).object(metadata);
            }
            t.close();
        }
        json.out.push(b']');
        let json = o.key(k!("context"));
        json.out.push(b'[');
        for (i, context) in input.context.iter().enumerate() {
            if i > 0 {
                json.out.push(b',');
            }
            let mut c = Object::open(json);
            c.string(k!("description"), &context.description);
            c.string(k!("value"), &context.value);
            c.close();
        }
        json.out.push(b']');
        o.value(k!("forwardedProps"), input.forwarded_props.as_ref());
        let json = o.key(k!("resume"));
        json.out.push(b'[');
        for (i, entry) in input.resume.iter().enumerate() {
            if i > 0 {
                json.out.push(b',');
            }
            let mut r = Object::open(json);
            r.string(k!("interruptId"), &entry.interrupt_id);
            r.string(k!("status"), &entry.status);
            r.value(k!("payload"), entry.payload.as_ref());
            if let Some(metadata) = &entry.metadata {
                r.key(k!("metadata")).object(metadata);
            }
            r.close();
        }
        json.out.push(b']');
        o.close();
        Ok(())
    }
}

/// `value`, an `int64`, unless beyond JavaScript's safe integers, which the
/// official decoder refuses.
fn safe(value: i64) -> Result<i64, Invalid> {
    if (-MAX_SAFE_INTEGER..=MAX_SAFE_INTEGER).contains(&value) {
        Ok(value)
    } else {
        Err(Invalid(format!(
            "the integer {value} is beyond JavaScript's safe integers"
        )))
    }
}
