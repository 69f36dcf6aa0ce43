//! Which protocol version a document declares, and the rule about
//! declarations agui-lint cannot judge by (`spec/1.1/basic/versioning.mdx`,
//! "Version negotiation").

use serde_json::Value;

use super::{EventView, Rule};
use crate::diagnostic::{Diagnostic, Severity};
use crate::protocol::{Declaration, Protocol};
use crate::rules::EVERY_VERSION;
use crate::text::excerpt;
use crate::Kind;

/// The rules of this family, in documentation order.
pub(super) const RULES: &[Rule] = &[UNKNOWN_PROTOCOL_VERSION];

pub(super) const UNKNOWN_PROTOCOL_VERSION: Rule = Rule {
    name: "unknown-protocol-version",
    severity: Severity::Warning,
    protocols: EVERY_VERSION,
    severity_1x: None,
    summary: "A declared protocolVersion is newer than any agui-lint knows, or not a version",
    docs: r#"## What it checks
The `protocolVersion` a document declares: on a `RunAgentInput` (the
version the client speaks), on `RUN_STARTED` (the version the agent
speaks) or on `RUN_STARTED.input`. A version is `MAJOR.MINOR`, compared
numerically (`1.10` is newer than `1.9`). This rule reports a declaration
newer than the newest version agui-lint knows (1.1), one that is not a
version at all (`"draft"`, `"one"`), and an SDK's `MAJOR.MINOR.PATCH`
(`"1.0.0"`), which is judged as its `MAJOR.MINOR` but is no protocol
version: `@ag-ui/client` 1.0.0 warns that it cannot interpret it.

## Why it matters
A receiver meeting a newer minor of its line MUST serve the run and SHOULD
warn; a declaration it cannot interpret is handled like a newer one
(`spec/1.1/basic/versioning.mdx`). agui-lint does the same: it judges the
document as the newest version it knows and says so here, so that fields
the newer version added show up as `unknown-field` rather than as errors.
An uninterpretable declaration usually means the sender put a product or
package version where the protocol version belongs; the versioning text
says the value is `MAJOR.MINOR` and that a receiver SHOULD warn about one
it cannot read.

## Invalid
```json
{"threadId": "t-1", "runId": "run-1", "protocolVersion": "draft", "messages": []}
```

## Valid
```json
{"threadId": "t-1", "runId": "run-1", "protocolVersion": "1.1", "messages": []}
```
"#,
};

/// Where `value`, a document of `kind`, declares its protocol version, as
/// (pointer, declared text): a `RunAgentInput`'s `protocolVersion`; a
/// `RUN_STARTED`'s own, else its input's; for an array of events, the first
/// `RUN_STARTED` that declares one. A `protocolVersion` that is not a
/// string declares nothing (the schema reports its type).
pub(crate) fn declared(kind: Kind, value: &Value) -> Option<(String, &str)> {
    match kind {
        Kind::RunAgentInput => value
            .get("protocolVersion")
            .and_then(Value::as_str)
            .map(|v| ("/protocolVersion".to_string(), v)),
        Kind::Event => declared_by_run_started(value),
        Kind::Events => value.as_array()?.iter().enumerate().find_map(|(i, event)| {
            declared_by_run_started(event).map(|(at, v)| (format!("/{i}{at}"), v))
        }),
        _ => None,
    }
}

/// A `RUN_STARTED` event's declaration: its own `protocolVersion` (what the
/// agent speaks), else its input's. An event read without a `Value` never
/// carries an input (the fast path leaves those to the full path).
pub(crate) fn declared_by_run_started<'a>(
    event: impl Into<EventView<'a>>,
) -> Option<(String, &'a str)> {
    let event = event.into();
    if event.str("type") != Some("RUN_STARTED") {
        return None;
    }
    if let Some(own) = event.str("protocolVersion") {
        return Some(("/protocolVersion".to_string(), own));
    }
    match event {
        EventView::Value(value) => value
            .get("input")
            .and_then(|input| input.get("protocolVersion"))
            .and_then(Value::as_str)
            .map(|v| ("/input/protocolVersion".to_string(), v)),
        EventView::Read(_) => None,
    }
}

/// The `unknown-protocol-version` finding for a declaration at `pointer`
/// that agui-lint cannot judge by, if it is one.
pub(crate) fn finding(pointer: String, text: &str, declaration: Declaration) -> Option<Diagnostic> {
    let newest = Protocol::NEWEST;
    let message = match declaration {
        Declaration::Known(_) => return None,
        Declaration::Patched(version) => {
            return Some(
                UNKNOWN_PROTOCOL_VERSION
                    .diagnostic(
                        pointer,
                        format!(
                            "protocolVersion '{}' is not MAJOR.MINOR: @ag-ui/client 1.0.0 cannot interpret it and warns",
                            excerpt(text)
                        ),
                    )
                    .with_help(format!(
                        "declare \"{version}\", the protocol version, not a package's version; judged as AG-UI {version}"
                    )),
            )
        }
        Declaration::Newer => format!(
            "protocolVersion '{}' is newer than the newest version agui-lint knows ({newest})",
            excerpt(text)
        ),
        Declaration::Uninterpretable => format!(
            "protocolVersion '{}' is not a protocol version (MAJOR.MINOR)",
            excerpt(text)
        ),
    };
    Some(
        UNKNOWN_PROTOCOL_VERSION
            .diagnostic(pointer, message)
            .with_help(format!(
                "judged as AG-UI {newest}, the newest version agui-lint knows; fields of a \
                 newer version are reported as unknown-field (a receiver strips them with a warning)"
            )),
    )
}
