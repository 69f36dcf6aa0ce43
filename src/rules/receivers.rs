//! Who receives a document, and what the official receivers do with a value
//! outside one of the protocol's closed sets: the severity of an
//! `invalid-value` finding in AG-UI 1.x.
//!
//! Severity follows the receivers that exist (`DESIGN.md`). Measured with
//! the official SDKs at 1.0.0 (the differential test in
//! `node/test/receivers.test.js` and `python/tests/test_receivers.py` keeps
//! this true):
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
    /// closed set its place allows.
    pub(crate) fn outside_closed_set(self, at: &str, found: &Value) -> Treatment {
        if !self.protocol.is_1x() {
            return Treatment::Rejected;
        }
        if self.newer {
            return match found {
                Value::String(value)
                    if !crate::schema::vocabulary_recognises(self.protocol, value) =>
                {
                    Treatment::MaybeNewer
                }
                _ => Treatment::Rejected,
            };
        }
        match self.receiver {
            Receiver::Server => Treatment::Rejected,
            Receiver::Client if is_union_tag_in_stream(at) => Treatment::Stripped,
            Receiver::Client => match found {
                Value::String(value)
                    if !crate::schema::vocabulary_recognises(self.protocol, value) =>
                {
                    Treatment::RunFailedSpecStrips
                }
                _ => Treatment::RunFailed,
            },
        }
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
}

impl Treatment {
    /// The severity of the finding: an error where the receiver rejects
    /// or fails, a warning where it strips or may understand.
    pub(crate) fn severity(self) -> Severity {
        match self {
            Treatment::Rejected | Treatment::RunFailed | Treatment::RunFailedSpecStrips => {
                Severity::Error
            }
            Treatment::Stripped | Treatment::MaybeNewer => Severity::Warning,
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
    fn severity_by_receiver() {
        let value = json!("narrator");
        let request = Reading::new(Protocol::V1_0, Kind::RunAgentInput);
        assert_eq!(
            request.outside_closed_set("/messages/0/role", &value),
            Treatment::Rejected
        );
        let event = Reading::new(Protocol::V1_0, Kind::Event);
        assert_eq!(
            event.outside_closed_set("/role", &value),
            Treatment::RunFailedSpecStrips
        );
        assert_eq!(
            event.outside_closed_set("/role", &json!("tool")),
            Treatment::RunFailed
        );
        assert_eq!(
            event.outside_closed_set("/messages/0/role", &value),
            Treatment::Stripped
        );
        let pre = Reading::new(Protocol::V0, Kind::Event);
        assert_eq!(
            pre.outside_closed_set("/messages/0/role", &value),
            Treatment::Rejected
        );
        let newer = request.declaring_newer(true);
        assert_eq!(
            newer.outside_closed_set("/messages/0/role", &value),
            Treatment::MaybeNewer
        );
        // A value the version knows, in the wrong place, is malformed.
        assert_eq!(
            newer.outside_closed_set("/messages/0/role", &json!("tool")),
            Treatment::Rejected
        );
    }
}
