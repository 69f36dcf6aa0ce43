//! Opaque encrypted values: an `encryptedValueType` (AG-UI 1.1) names the
//! kind of artefact its `encryptedValue` is, so it needs one
//! (`spec/1.1/changelog.mdx`).

use super::view::{Call, Conversation, Findings, Marks, Message};
use super::Rule;
use crate::diagnostic::{Severity, Target};
use crate::rules::SINCE_1_1;

/// The rules of this family, in documentation order.
pub(super) const RULES: &[Rule] = &[ENCRYPTED_VALUE_TYPE_WITHOUT_VALUE];

pub(super) const ENCRYPTED_VALUE_TYPE_WITHOUT_VALUE: Rule = Rule {
    name: "encrypted-value-type-without-value",
    severity: Severity::Warning,
    protocols: SINCE_1_1,
    severity_1x: None,
    summary: "An encryptedValueType names the kind of an encryptedValue that is not there",
    docs: r#"## What it checks
Messages and tool calls of AG-UI 1.1: an `encryptedValueType` only beside an
`encryptedValue`.

## Why it matters
AG-UI 1.1 added `encryptedValueType` beside every `encryptedValue`: the
producer's own name for what kind of artefact the opaque value is, stored
and returned with it and never interpreted by a consumer
(`spec/1.1/changelog.mdx`). Without the value it describes, it describes
nothing: usually the value was dropped on the way (a client that stores
messages without their artefacts), and the provider that minted it will
not get it back on the next turn.

## Invalid
```json
{"id": "r-1", "role": "reasoning", "content": "Thinking", "encryptedValueType": "anthropic.thinking"}
```

## Valid
```json
{"id": "r-1", "role": "reasoning", "content": "Thinking", "encryptedValue": "EqQBCkgIARAB", "encryptedValueType": "anthropic.thinking"}
```
"#,
};

/// Runs this family's checks on message `index` of `conversation`, which
/// makes `calls` (or, with no message, on `calls` alone: the document is
/// a call).
pub(crate) fn check_message(
    conversation: &Conversation<'_>,
    message: Option<(usize, &Message<'_>)>,
    calls: &[Call<'_>],
    out: &mut impl Findings,
) {
    // The key exists since 1.1; in an older document it is an unknown key.
    if conversation.protocol != crate::Protocol::V1_1 {
        return;
    }
    if let Some((index, message)) = message {
        check_marks(message.marks, || conversation.message_at(index), out);
    }
    for call in calls {
        check_marks(call.marks, || conversation.call_at(call.made_in), out);
    }
}

/// An `encryptedValueType` without its value on what `marks` are of,
/// which sits at `at()`.
fn check_marks(marks: Marks, at: impl FnOnce() -> String, out: &mut impl Findings) {
    if marks.encrypted_value_type && !marks.encrypted_value {
        out.add(&ENCRYPTED_VALUE_TYPE_WITHOUT_VALUE, |rule| {
            rule.diagnostic(
                format!("{}/encryptedValueType", at()),
                "encryptedValueType without an encryptedValue",
            )
            .with_help("send the encryptedValue it names, or leave encryptedValueType out")
            .at(Target::Key)
        });
    }
}
