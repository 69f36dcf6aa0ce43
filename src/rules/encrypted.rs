//! Opaque encrypted values: an `encryptedValueType` (AG-UI 1.1) names the
//! kind of artefact its `encryptedValue` is, so it needs one
//! (`spec/1.1/changelog.mdx`).

use super::walk::{Document, Node};
use super::Rule;
use crate::diagnostic::{Diagnostic, Severity, Target};

/// The rules of this family, in documentation order.
pub(super) const RULES: &[Rule] = &[ENCRYPTED_VALUE_TYPE_WITHOUT_VALUE];

pub(super) const ENCRYPTED_VALUE_TYPE_WITHOUT_VALUE: Rule = Rule {
    name: "encrypted-value-type-without-value",
    severity: Severity::Warning,
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

/// Whether an object with (or without) these keys has a type naming a
/// value that is not there: the rule's verdict, for the fast path.
pub(crate) fn type_without_value(has_type: bool, has_value: bool) -> bool {
    has_type && !has_value
}

/// Runs this family's checks on `document`.
pub(super) fn check(document: &Document<'_>, out: &mut Vec<Diagnostic>) {
    // The key exists since 1.1; in an older document it is an unknown key.
    if document.protocol != crate::Protocol::V1_1 {
        return;
    }
    for node in document.messages().iter().chain(&document.tool_calls()) {
        check_node(node, out);
    }
}

fn check_node(node: &Node<'_>, out: &mut Vec<Diagnostic>) {
    let Some(kind) = node.child("encryptedValueType") else {
        return;
    };
    if type_without_value(true, node.value.get("encryptedValue").is_some()) {
        out.push(
            ENCRYPTED_VALUE_TYPE_WITHOUT_VALUE
                .diagnostic(kind.pointer, "encryptedValueType without an encryptedValue")
                .with_help("send the encryptedValue it names, or leave encryptedValueType out")
                .at(Target::Key),
        );
    }
}
