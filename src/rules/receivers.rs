//! Who receives a document, and what the official receivers do with a value
//! outside one of the protocol's closed sets: the severity of an
//! `invalid-value` finding in AG-UI 1.x.
//!
//! Severity follows the receivers that exist (`DESIGN.md`). Measured with
//! the official SDKs at 1.0.0; the differential test
//! `node/test/receivers.test.js` runs all three on one-defect variants of
//! `tests/receivers/bases.json` and keeps this true:
//!
//! - A **request** (a RunAgentInput and what it holds) is received by a
//!   server, which parses it with `@ag-ui/core`'s zod schemas or
//!   `ag-ui-protocol`'s pydantic models. Both reject a value outside any
//!   closed set (a message role, a part type, a source type, a tool call
//!   type, a resume status): the body is answered with 422. An error.
//! - A **stream** is received by `@ag-ui/client`'s inbound pipeline. Its
//!   enforcement step strips the member of a *discriminated union* whose
//!   tag names no branch (a message in `MESSAGES_SNAPSHOT` or
//!   `RUN_STARTED.input`, a content part, a part's source, a `RUN_FINISHED`
//!   or `SUBAGENT_FINISHED` outcome, a JSON Patch operation), with a
//!   warning, before the event is parsed; every other closed set (the role
//!   of `TEXT_MESSAGE_START`/`TEXT_MESSAGE_CHUNK`, `TOOL_CALL_RESULT` or
//!   `REASONING_MESSAGE_START`, a tool call's `type`, an encrypted value's
//!   `subtype`, a resume entry's `status`) is checked as a leaf by the zod
//!   parse that follows, which fails the run. Spec and client disagree on
//!   the second group (`spec/1.1/basic/processing.mdx` says strip); the
//!   finding says both.
//! - A `null` or a value of the wrong type is an error (zod rejects it,
//!   and so does the client's parse), but where the client tolerates it:
//!   in a union tag it strips, and in the slots whose `null` its
//!   compatibility boundary turns into an absent key with a deprecation
//!   warning ([`Reading::tolerated`]). A request's `state: null` is taken
//!   by both SDKs.
//! - A document that declares a version newer than agui-lint knows keeps
//!   the forward-compatible reading: a value no schema of the newest known
//!   version names may be one the newer version defines, a warning.

use serde_json::Value;

use crate::diagnostic::Severity;
use crate::{Kind, Protocol};

/// Who receives a document of a kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Receiver {
    /// A server parsing a request body with the official SDKs' schemas.
    Server,
    /// `@ag-ui/client`'s inbound event pipeline.
    Client,
}

impl Receiver {
    /// The receiver of a document of `kind`: the client for events, a
    /// server for a RunAgentInput and the pieces a request is made of.
    pub(crate) fn of(kind: Kind) -> Receiver {
        match kind {
            Kind::Event | Kind::Events => Receiver::Client,
            _ => Receiver::Server,
        }
    }
}

/// How a document is judged: the version, who receives it, and whether it
/// declared a version newer than agui-lint knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Reading {
    /// The version judging the document.
    pub(crate) protocol: Protocol,
    /// Who receives it.
    pub(crate) receiver: Receiver,
    /// Whether it declared a newer (or uninterpretable) version, judged as
    /// the newest known.
    pub(crate) newer: bool,
}

impl Reading {
    /// A document of `kind` judged by `protocol`, as declared or chosen.
    pub(crate) fn new(protocol: Protocol, kind: Kind) -> Reading {
        Reading {
            protocol,
            receiver: Receiver::of(kind),
            newer: false,
        }
    }

    /// The same, for a document that declared a newer version when `newer`.
    pub(crate) fn declaring_newer(self, newer: bool) -> Reading {
        Reading { newer, ..self }
    }

    /// What the receivers do with `found` at `at`, a value outside the
    /// closed set its place allows; `recognised`, whether the version's
    /// vocabulary knows the value elsewhere (a string some closed set of
    /// the version holds: `schema::vocabulary_recognises`, which the
    /// caller asks so that the rules do not depend on the schemas).
    pub(crate) fn outside_closed_set(self, at: &str, found: &Value, recognised: bool) -> Treatment {
        if !self.protocol.is_1x() {
            return Treatment::Rejected;
        }
        if self.newer {
            return match found {
                Value::String(_) if !recognised => Treatment::MaybeNewer,
                _ => Treatment::Rejected,
            };
        }
        match self.receiver {
            Receiver::Server => Treatment::Rejected,
            Receiver::Client if is_union_tag_in_stream(at) => Treatment::Stripped,
            Receiver::Client => match found {
                Value::String(_) if !recognised => Treatment::RunFailedSpecStrips,
                _ => Treatment::RunFailed,
            },
        }
    }
}

impl Reading {
    /// What `@ag-ui/client` does with a value of the wrong type or a `null`
    /// at `at` in an event of a stream (`document`, an event or an array
    /// of them), where it tolerates one: a union tag that matches no branch
    /// strips the member ([`Treatment::Stripped`]); a `null` its
    /// compatibility boundary converts to an absent key, with a
    /// deprecation warning, is dropped ([`Treatment::NullDropped`]).
    /// `None` where the client's parse fails the run, and for every
    /// document a server receives.
    pub(crate) fn tolerated(self, document: &Value, at: &str) -> Option<Treatment> {
        if !self.protocol.is_1x() {
            return None;
        }
        if self.receiver == Receiver::Server {
            // `state: null`: zod's `StateSchema` is any JSON and pydantic's
            // `state: Any`, so both 1.0 SDKs take it; the 1.1 schema says
            // `not null`.
            let null_state = at == "/state" && document.get("state").is_some_and(Value::is_null);
            return null_state.then_some(match self.protocol {
                Protocol::V1_0 => Treatment::AcceptedBySdks,
                _ => Treatment::AcceptedBySdksNotSchema,
            });
        }
        if is_union_tag_in_stream(at) {
            return Some(Treatment::Stripped);
        }
        let (event, tokens) = event_and_path(document, at)?;
        if !event
            .pointer(&pointer_of(&tokens))
            .is_some_and(Value::is_null)
        {
            return None;
        }
        null_dropped_by_client(event, &tokens).then_some(Treatment::NullDropped)
    }
}

/// The event `at` points into, and the tokens of `at` below it.
fn event_and_path<'d>(document: &'d Value, at: &str) -> Option<(&'d Value, Vec<String>)> {
    let mut tokens: Vec<String> = crate::pointer::tokens(at).collect();
    match document {
        Value::Array(events) => {
            let first = tokens.first()?;
            let event = events.get(first.parse::<usize>().ok()?)?;
            tokens.remove(0);
            Some((event, tokens))
        }
        _ => Some((document, tokens)),
    }
}

fn pointer_of(tokens: &[String]) -> String {
    tokens
        .iter()
        .map(|t| format!("/{}", crate::pointer::escape(t)))
        .collect()
}

/// Whether `@ag-ui/client` 1.0.0's compatibility boundary turns a `null`
/// at `tokens` of `event` into an absent key (with a `[ag-ui][compat]
/// Converting deprecated ... null to an absent field` warning) before the
/// event is parsed, rather than failing the run on it.
fn null_dropped_by_client(event: &Value, tokens: &[String]) -> bool {
    let kind = event
        .get("type")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let tokens: Vec<&str> = tokens.iter().map(String::as_str).collect();
    let media_part = |message: &str, part: &str| {
        let at = format!("/{message}/content/{part}/type");
        let at = match kind {
            "RUN_STARTED" => format!("/input/messages{at}"),
            _ => format!("/messages{at}"),
        };
        matches!(
            event.pointer(&at).and_then(Value::as_str),
            Some("image" | "audio" | "video" | "document")
        )
    };
    match (kind, tokens.as_slice()) {
        (_, ["rawEvent"]) => true,
        ("RUN_FINISHED" | "SUBAGENT_FINISHED", ["result"]) => true,
        ("TOOL_CALL_START" | "TOOL_CALL_CHUNK", ["parentMessageId"]) => true,
        ("RUN_FINISHED", ["outcome"]) => true,
        ("RUN_STARTED", ["input", "forwardedProps"]) => true,
        ("RUN_STARTED", ["input", "tools", _, "parameters"]) => true,
        ("RUN_STARTED", ["input", "resume", _, "payload"]) => true,
        ("RUN_STARTED", ["input", "messages", m, "content", p, "metadata"])
        | ("MESSAGES_SNAPSHOT", ["messages", m, "content", p, "metadata"]) => media_part(m, p),
        _ => false,
    }
}

/// What the official receivers do with a value outside its closed set.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Treatment {
    /// A server rejects the request (zod and pydantic alike).
    Rejected,
    /// The client's zod parse fails the run on a value the version knows,
    /// in a place that does not allow it (malformed, fatal by the spec too).
    RunFailed,
    /// The client's zod parse fails the run on a value the version does
    /// not know, which the spec says to strip: the reference client and
    /// the prose disagree, and the client decides what users see.
    RunFailedSpecStrips,
    /// The client strips the union member holding it, with a warning.
    Stripped,
    /// A version newer than the newest known may define it; a receiver of
    /// that version reads it.
    MaybeNewer,
    /// The client's compatibility boundary drops the `null`, with a
    /// deprecation warning.
    NullDropped,
    /// Both official SDKs at 1.0.0, which define 1.0's shapes, accept it.
    AcceptedBySdks,
    /// Both official SDKs at 1.0.0 accept it, but the normative 1.1 schema
    /// judging the document does not.
    AcceptedBySdksNotSchema,
}

impl Treatment {
    /// The severity of the finding: an error where the receiver rejects
    /// or fails, a warning where it strips or may understand.
    pub(crate) fn severity(self) -> Severity {
        match self {
            Treatment::Rejected | Treatment::RunFailed | Treatment::RunFailedSpecStrips => {
                Severity::Error
            }
            Treatment::Stripped
            | Treatment::MaybeNewer
            | Treatment::NullDropped
            | Treatment::AcceptedBySdksNotSchema => Severity::Warning,
            Treatment::AcceptedBySdks => Severity::Info,
        }
    }

    /// What the receiver does, as the finding's help says it.
    pub(crate) fn consequence(self) -> &'static str {
        match self {
            Treatment::Rejected => {
                "servers on the official SDKs (zod in @ag-ui/core, pydantic in ag-ui-protocol) reject the body"
            }
            Treatment::RunFailed => "@ag-ui/client fails the run on it",
            Treatment::RunFailedSpecStrips => {
                "@ag-ui/client fails the run on it (the 1.1 prose says to strip an unrecognised value; the reference client checks this one as a leaf)"
            }
            Treatment::Stripped => {
                "@ag-ui/client removes what holds it, with a warning, so it never reaches the application"
            }
            Treatment::NullDropped => {
                "@ag-ui/client 1.0.0 converts the null to an absent key with a deprecation warning; zod and pydantic reject it elsewhere"
            }
            Treatment::AcceptedBySdks => {
                "zod (@ag-ui/core 1.0.0) and pydantic (ag-ui-protocol 1.0.0) accept it; the normative 1.1 schema does not"
            }
            Treatment::AcceptedBySdksNotSchema => {
                "zod (@ag-ui/core 1.0.0) and pydantic (ag-ui-protocol 1.0.0) accept it, but the normative 1.1 schema does not, so a receiver built from the schema rejects it"
            }
            Treatment::MaybeNewer => {
                "the document declares a newer version, which may define it; a receiver of the newest known version strips it"
            }
        }
    }
}

/// Whether `at`, a pointer into an event (or into an array of events),
/// is the tag of a discriminated union that `@ag-ui/client` 1.0.0's
/// enforcement step strips: a message's `role` in `MESSAGES_SNAPSHOT` or
/// `RUN_STARTED.input`, a content part's `type` and its source's `type`
/// (in those messages and in `TOOL_CALL_RESULT.content`), a JSON Patch
/// `op` (`STATE_DELTA.delta`, `ACTIVITY_DELTA.patch`) and an outcome's
/// `type` (`RUN_FINISHED`, `SUBAGENT_FINISHED`).
pub(crate) fn is_union_tag_in_stream(at: &str) -> bool {
    let tokens: Vec<String> = crate::pointer::tokens(at).collect();
    let mut tokens: Vec<&str> = tokens.iter().map(String::as_str).collect();
    // An events document's pointers start at the event's index.
    if tokens.first().is_some_and(|t| is_index(t)) {
        tokens.remove(0);
    }
    // A message of RUN_STARTED.input reads as one of MESSAGES_SNAPSHOT.
    if tokens.first() == Some(&"input") {
        tokens.remove(0);
    }
    match tokens.as_slice() {
        ["messages", m, "role"] => is_index(m),
        ["messages", m, "content", p, "type"] | ["messages", m, "content", p, "source", "type"] => {
            is_index(m) && is_index(p)
        }
        ["content", p, "type"] | ["content", p, "source", "type"] => is_index(p),
        ["delta" | "patch", o, "op"] => is_index(o),
        ["outcome", "type"] => true,
        _ => false,
    }
}

fn is_index(token: &str) -> bool {
    !token.is_empty() && token.bytes().all(|b| b.is_ascii_digit())
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn union_tags_of_received_material_are_stripped() {
        for at in [
            "/messages/0/role",
            "/input/messages/3/role",
            "/messages/0/content/1/type",
            "/messages/0/content/1/source/type",
            "/content/0/type",
            "/content/2/source/type",
            "/delta/0/op",
            "/patch/4/op",
            "/outcome/type",
            "/7/messages/0/role",
            "/7/outcome/type",
        ] {
            assert!(is_union_tag_in_stream(at), "{at}");
        }
        for at in [
            "/role",
            "/subtype",
            "/messages/0/toolCalls/0/type",
            "/input/resume/0/status",
            "/7/role",
            "/messages/x/role",
            "/outcome",
        ] {
            assert!(!is_union_tag_in_stream(at), "{at}");
        }
    }

    #[test]
    fn nulls_the_client_drops() {
        let event = Reading::new(Protocol::V1_0, Kind::Event);
        let start = json!({"type": "TOOL_CALL_START", "toolCallId": "c", "toolCallName": "f", "parentMessageId": null});
        assert_eq!(
            event.tolerated(&start, "/parentMessageId"),
            Some(Treatment::NullDropped)
        );
        let finished = json!([{"type": "SUBAGENT_FINISHED", "subagentRunId": "s", "outcome": null}, {"type": "RUN_FINISHED", "threadId": "t", "runId": "r", "outcome": null}]);
        assert_eq!(event.tolerated(&finished, "/0/outcome"), None);
        assert_eq!(
            event.tolerated(&finished, "/1/outcome"),
            Some(Treatment::NullDropped)
        );
        let snapshot = json!({"type": "MESSAGES_SNAPSHOT", "messages": [{"id": "u", "role": "user", "content": [
            {"type": "text", "text": "hi", "metadata": null},
            {"type": "image", "source": {"type": "url", "value": "https://x"}, "metadata": null}]}]});
        assert_eq!(
            event.tolerated(&snapshot, "/messages/0/content/0/metadata"),
            None
        );
        assert_eq!(
            event.tolerated(&snapshot, "/messages/0/content/1/metadata"),
            Some(Treatment::NullDropped)
        );
        assert_eq!(
            event.tolerated(&snapshot, "/messages/0/role"),
            Some(Treatment::Stripped)
        );
        let request = Reading::new(Protocol::V1_0, Kind::RunAgentInput);
        assert_eq!(request.tolerated(&start, "/parentMessageId"), None);
        let input = json!({"threadId": "t", "runId": "r", "messages": [], "state": null});
        assert_eq!(
            request.tolerated(&input, "/state"),
            Some(Treatment::AcceptedBySdks)
        );
        let request = Reading::new(Protocol::V1_1, Kind::RunAgentInput);
        assert_eq!(
            request.tolerated(&input, "/state"),
            Some(Treatment::AcceptedBySdksNotSchema)
        );
    }

    #[test]
    fn severity_by_receiver() {
        let value = json!("narrator");
        let request = Reading::new(Protocol::V1_0, Kind::RunAgentInput);
        assert_eq!(
            request.outside_closed_set("/messages/0/role", &value, false),
            Treatment::Rejected
        );
        let event = Reading::new(Protocol::V1_0, Kind::Event);
        assert_eq!(
            event.outside_closed_set("/role", &value, false),
            Treatment::RunFailedSpecStrips
        );
        assert_eq!(
            event.outside_closed_set("/role", &json!("tool"), true),
            Treatment::RunFailed
        );
        assert_eq!(
            event.outside_closed_set("/messages/0/role", &value, false),
            Treatment::Stripped
        );
        let pre = Reading::new(Protocol::V0, Kind::Event);
        assert_eq!(
            pre.outside_closed_set("/messages/0/role", &value, false),
            Treatment::Rejected
        );
        let newer = request.declaring_newer(true);
        assert_eq!(
            newer.outside_closed_set("/messages/0/role", &value, false),
            Treatment::MaybeNewer
        );
        // A value the version knows, in the wrong place, is malformed.
        assert_eq!(
            newer.outside_closed_set("/messages/0/role", &json!("tool"), true),
            Treatment::Rejected
        );
    }
}
