//! Pre-1.0 shapes inside a 1.x document: what 1.0 retired, and what
//! replaces each (`spec/1.1/changelog.mdx`; `spec/1.1/basic/versioning.mdx`,
//! "Retired shapes").

use super::Rule;
use crate::diagnostic::{Diagnostic, Severity, Target};
use crate::pointer;
use crate::rules::SINCE_1_0;

/// The rules of this family, in documentation order.
pub(super) const RULES: &[Rule] = &[RETIRED_SHAPE, RETIRED_EVENT];

pub(super) const RETIRED_SHAPE: Rule = Rule {
    name: "retired-shape",
    severity: Severity::Warning,
    protocols: SINCE_1_0,
    severity_1x: None,
    summary: "A 1.x document uses a shape that 1.0 retired",
    docs: r#"## What it checks
Shapes of the pre-1.0 protocol that AG-UI 1.0 retired, met in a document
judged as 1.0 or 1.1, each reported with what replaced it (the retired
`THINKING_*` events are `retired-event`):

- the legacy `binary` content part (`{"type": "binary", "mimeType", "data"}`),
  replaced by an `image`, `audio`, `video` or `document` part whose
  `source` is `{"type": "data", "value", "mimeType"}`;
- `multiAgent.subAgents` in capabilities, renamed `multiAgent.subagents`.

In a pre-1.0 document these are judged by the pre-1.0 reference instead.

## Why it matters
A 1.x receiver judges against the current protocol, where a retired shape
is simply unrecognised: the part is dropped and `subAgents` is not read, so
the media or the subagent list never arrives
(`spec/1.1/basic/versioning.mdx`). The normative 1.1 schema rejects them;
a warning, as `retired-event` is, because a receiver strips or translates
what it does not recognise rather than failing the run.
An SDK upgraded to 1.0 no longer sends them; a producer or client still
sending them was built against the pre-1.0 SDKs.

## Invalid
```json
{"id": "u-1", "role": "user", "content": [{"type": "binary", "mimeType": "image/png", "data": "iVBORw0KGgo="}]}
```

## Valid
```json
{"id": "u-1", "role": "user", "content": [{"type": "image", "source": {"type": "data", "value": "iVBORw0KGgo=", "mimeType": "image/png"}}]}
```
"#,
};

pub(super) const RETIRED_EVENT: Rule = Rule {
    name: "retired-event",
    severity: Severity::Warning,
    protocols: SINCE_1_0,
    severity_1x: None,
    summary: "A 1.x stream sends a THINKING_* event, which 1.0 retired",
    docs: r#"## What it checks
Events of a type AG-UI 1.0 retired, in a document or stream judged as 1.0
or 1.1: `THINKING_START`, `THINKING_END`, `THINKING_TEXT_MESSAGE_START`,
`THINKING_TEXT_MESSAGE_CONTENT` and `THINKING_TEXT_MESSAGE_END`, each
reported with the `REASONING_*` event that replaced it.

## Why it matters
A retired shape is not deleted: older producers still send it, and a
consumer SHOULD translate it into its replacement, in middleware before
enforcement, rather than drop it (`spec/1.1/basic/versioning.mdx`,
"Retired shapes"). The official clients translate `THINKING_*` events into
`REASONING_*` ones; a receiver without the translation drops them as
unknown, and the reasoning with them. Either way the producer was built
against a pre-1.0 SDK. A warning, as the receiver carries on.

## Invalid
```json
{"type": "THINKING_START", "title": "Planning"}
```

## Valid
```json
{"type": "REASONING_START", "messageId": "r-1"}
```
"#,
};

/// The retired event types and their replacements.
const RETIRED_EVENT_TYPES: [(&str, &str); 5] = [
    ("THINKING_START", "REASONING_START"),
    ("THINKING_END", "REASONING_END"),
    ("THINKING_TEXT_MESSAGE_START", "REASONING_MESSAGE_START"),
    ("THINKING_TEXT_MESSAGE_CONTENT", "REASONING_MESSAGE_CONTENT"),
    ("THINKING_TEXT_MESSAGE_END", "REASONING_MESSAGE_END"),
];

/// The `retired-shape` finding for a union member tagged `tag_key: tag` at
/// `at`, if 1.0 retired that member.
pub(crate) fn retired_tag(at: &str, tag_key: &str, tag: &str) -> Option<Diagnostic> {
    if tag_key != "type" {
        return None;
    }
    let (message, help) = if let Some((_, new)) =
        RETIRED_EVENT_TYPES.iter().find(|(old, _)| *old == tag)
    {
        return Some(
            RETIRED_EVENT
                .diagnostic(
                    pointer::push(at, tag_key),
                    format!("event type '{tag}' was retired in AG-UI 1.0"),
                )
                .with_help(format!(
                    "send '{new}' instead; a 1.x receiver translates {tag} into {new} where it can, and drops it as unknown where it cannot"
                )),
        );
    } else if tag == "binary" {
        (
            "the 'binary' content part was retired in AG-UI 1.0".to_string(),
            "send an image, audio, video or document part whose source is {\"type\": \"data\", \"value\": <base64>, \"mimeType\": ...}; a 1.x receiver drops a binary part as unknown".to_string(),
        )
    } else {
        return None;
    };
    Some(
        RETIRED_SHAPE
            .diagnostic(pointer::push(at, tag_key), message)
            .with_help(help),
    )
}

/// The `retired-shape` finding for key `key` of the object at `at`, if it
/// is a key 1.0 retired.
pub(crate) fn retired_key(at: &str, key: &str) -> Option<Diagnostic> {
    let parent = pointer::last(at);
    if key != "subAgents" || parent.as_deref() != Some("multiAgent") {
        return None;
    }
    Some(
        RETIRED_SHAPE
            .diagnostic(
                pointer::push(at, key),
                "multiAgent.subAgents was renamed multiAgent.subagents in AG-UI 1.0",
            )
            .with_help(
                "rename the key to 'subagents'; a 1.x receiver does not read 'subAgents', so the subagents are not declared",
            )
            .at(Target::Key),
    )
}
