//! 1.x version declarations (`spec/1.1/basic/versioning.mdx`, "Version
//! negotiation"): a run's `RUN_STARTED` declares the version it speaks,
//! the one its request declared, and the input it echoes agrees with it;
//! a run that declares none but uses what only 1.x has is reported once.

use serde_json::Value;

use super::event_type::EventType;
use super::here::{EventPlace, Here};
use crate::diagnostic::Severity;
use crate::findings::Findings;
use crate::rules::{Rule, SINCE_1_0};

pub(super) const PROTOCOL_VERSION_MISMATCH: Rule = Rule {
    name: "protocol-version-mismatch",
    severity: Severity::Warning,
    protocols: SINCE_1_0,
    severity_1x: None,
    summary:
        "RUN_STARTED declares a newer protocolVersion than the request (or the input it echoes)",
    docs: r#"## What it checks
AG-UI 1.x (`spec/1.1/basic/versioning.mdx`, "Version negotiation"): the
producer declares the version *it* speaks on `RUN_STARTED`, "its own,
never an echo of the input's". Reported when that declaration is newer
than the one its request made (in a HAR capture, the request of the same
entry) or than the `protocolVersion` of the input the event echoes, or is
not a version (handled like a newer one).

A declaration older than the request's is the negotiation working: a
producer meeting a newer minor "MUST serve the run [...] answer with its
own version", and a consumer meeting an older producer proceeds without a
warning (`@ag-ui/client` warns only of a newer or uninterpretable one).
Nothing is reported for it, so a server that passes the kit's
`newer-minor-served` is silent here too.

## Why it matters
A consumer meeting a newer declaration than its own "proceeds under the
processing model and SHOULD warn": what the newer version adds is
stripped. A producer that can speak the consumer's version may select a
downgrade to it.

## Invalid
```json
[{"type": "RUN_STARTED", "threadId": "t1", "runId": "r1", "protocolVersion": "1.1",
  "input": {"threadId": "t1", "runId": "r1", "messages": [], "protocolVersion": "1.0"}},
 {"type": "RUN_FINISHED", "threadId": "t1", "runId": "r1"}]
```

## Valid
```json
[{"type": "RUN_STARTED", "threadId": "t1", "runId": "r1", "protocolVersion": "1.1",
  "input": {"threadId": "t1", "runId": "r1", "messages": [], "protocolVersion": "1.1"}},
 {"type": "RUN_FINISHED", "threadId": "t1", "runId": "r1"}]
```
"#,
};

/// The help of a declaration newer than the consumer's.
const NEWER_HELP: &str = "the consumer proceeds under the version it speaks and warns, stripping what it does not know; a producer that can speak the consumer's version may downgrade its stream to it (spec/1.1/basic/versioning.mdx, \"Version negotiation\")";

/// Whether the producer's declaration `declared` is newer than the
/// consumer's `requested`, `MAJOR.MINOR` compared numerically; one that is
/// not a version is handled like a newer one, as the spec says. Against a
/// request that is not a version nothing can be told.
fn is_newer(declared: &str, requested: &str) -> bool {
    let parse = |v: &str| crate::protocol::parse_major_minor(v).map(|(version, _)| version);
    match (parse(declared), parse(requested)) {
        (Some(declared), Some(requested)) => declared > requested,
        (None, Some(_)) => true,
        (_, None) => false,
    }
}

/// The help of a missing declaration: what the producer must do, and why
/// this is a warning where the kit fails a MUST.
const DECLARE_HELP: &str = "an implementation of AG-UI 1.x must declare the version it speaks on RUN_STARTED (spec/1.1/basic/versioning.mdx, \"Version negotiation\"); a warning here, since a receiver proceeds, and a failed MUST (version-declared) in the conformance kit, which judges the producer";

pub(super) const PROTOCOL_VERSION_MISSING: Rule = Rule {
    name: "protocol-version-missing",
    severity: Severity::Warning,
    protocols: SINCE_1_0,
    severity_1x: None,
    summary: "A 1.x run's RUN_STARTED declares no protocolVersion, though its request did or the run uses what only 1.x has",
    docs: r#"## What it checks
AG-UI 1.x (`spec/1.1/basic/versioning.mdx`, "Version negotiation"): "an
implementation of this version MUST send its declaration" on
`RUN_STARTED.protocolVersion`. Absence means a peer from before the
protocol carried a version, so it is reported only where the stream says
otherwise: the request the run answers declared a version (in a HAR, the
request of the same entry), or the run uses something only 1.x has (a
`RUN_FINISHED` outcome or usage, subagent events, `subagentRunId`).
Where nothing tells, nothing is reported.

## Why it is a warning here and a failure in the kit
`check`, `probe` and the guards judge a stream as its receiver takes it:
a consumer that sees no declaration proceeds, treating the producer as one
from before versioning, so a missing declaration is a **warning** (exit
0). The conformance kit (`probe --suite`) judges the server as a 1.x
producer against the sentence above, so the same stream fails its MUST
check `version-declared` (exit 1). Both messages say so.

## Why it matters
A consumer that sees no declaration must treat the producer as one that
predates versioning. An adapter built on a 1.x SDK that declares nothing
(ag-ui-langgraph 0.0.47 answers every `"1.0"` request so) keeps its
consumers from noticing a downgrade.

## Invalid
```json
[{"type": "RUN_STARTED", "threadId": "t1", "runId": "r1"},
 {"type": "RUN_FINISHED", "threadId": "t1", "runId": "r1", "outcome": {"type": "success"}}]
```

## Valid
```json
[{"type": "RUN_STARTED", "threadId": "t1", "runId": "r1", "protocolVersion": "1.1"},
 {"type": "RUN_FINISHED", "threadId": "t1", "runId": "r1", "outcome": {"type": "success"}}]
```
"#,
};

/// What a stream's runs must declare.
#[derive(Debug, Default)]
pub(super) struct Versions {
    /// The version the request of a captured exchange declared.
    requested: Option<String>,
    /// 1.x, this run: where its `RUN_STARTED` was, while it declared no
    /// version and nothing has yet shown that it should have.
    undeclared: Option<EventPlace>,
}

impl Versions {
    /// The `protocolVersion` the request that asked for this stream
    /// declared.
    pub(super) fn expect(&mut self, declared: &str) {
        self.requested = Some(declared.to_string());
    }

    /// The text the request that asked for this stream declared, if known.
    pub(super) fn requested(&self) -> Option<&str> {
        self.requested.as_deref()
    }

    /// A run starts: 1.x checks what its `RUN_STARTED` declares.
    pub(super) fn run_started(&mut self, at: &Here<'_>, out: &mut impl Findings) {
        self.undeclared = None;
        if !at.is_1x() {
            return;
        }
        let declaration = crate::rules::version::declared_by_run_started(at.event);
        if declaration.is_none() {
            match &self.requested {
                Some(requested) => out.add(&PROTOCOL_VERSION_MISSING, |rule| {
                    at.finding(
                        rule,
                        "",
                        format!("RUN_STARTED declares no protocolVersion, though its request declared '{requested}'"),
                    )
                    .with_help(DECLARE_HELP)
                }),
                // Reported if the run shows it is 1.x.
                None => self.undeclared = Some(at.place.clone()),
            }
        }
        if let (Some(requested), Some((pointer, declared))) = (&self.requested, declaration) {
            if is_newer(declared, requested) {
                out.push(
                    at.finding(
                        &PROTOCOL_VERSION_MISMATCH,
                        &pointer,
                        format!("RUN_STARTED declares protocolVersion '{declared}', newer than its request's '{requested}'"),
                    )
                    .with_help(NEWER_HELP),
                );
            }
        }
        let echoed = at.event.get("input").and_then(|i| {
            i.get("protocolVersion")
                .and_then(Value::as_str)
                .map(str::to_string)
        });
        if let (Some(own), Some(input)) = (at.str("protocolVersion"), echoed) {
            if is_newer(own, &input) {
                out.push(
                    at.finding(
                        &PROTOCOL_VERSION_MISMATCH,
                        "/protocolVersion",
                        format!("RUN_STARTED declares protocolVersion '{own}', newer than the input it echoes '{input}'"),
                    )
                    .with_help(NEWER_HELP),
                );
            }
        }
    }

    /// 1.x: reports, once a run, a run that declared no version using what
    /// only 1.x has.
    pub(super) fn uses_1x(&mut self, at: &Here<'_>, out: &mut impl Findings) {
        if self.undeclared.is_none() {
            return;
        }
        let kind = at.type_;
        // Any SUBAGENT_ event, one a later version adds among them.
        let what = if kind.starts_with("SUBAGENT_") {
            Some(kind.to_string())
        } else if at.event.get("subagentRunId").is_some() {
            Some(format!("{kind}.subagentRunId"))
        } else if matches!(at.kind, EventType::RunFinished | EventType::RunError) {
            ["outcome", "usage"]
                .into_iter()
                .find(|key| at.event.get(key).is_some())
                .map(|key| format!("{kind}.{key}"))
        } else {
            None
        };
        let Some(what) = what else {
            return;
        };
        let Some(start) = self.undeclared.take() else {
            return;
        };
        out.add(&PROTOCOL_VERSION_MISSING, |rule| {
            at.finding(
                rule,
                "",
                format!("RUN_STARTED declared no protocolVersion, though this run uses {what}, which only AG-UI 1.x has"),
            )
            .with_help(DECLARE_HELP)
            .with_note(start.note("the run started here"))
        });
    }
}
