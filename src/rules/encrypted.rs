//! Encrypted reasoning artefacts in AG-UI 1.1 (`spec/1.1/events/reasoning.mdx`,
//! "encryptedValueType"): a type describes one value and never travels
//! without it, on a message or on a tool call.

use super::walk::Document;
use super::Rule;
use crate::diagnostic::{Diagnostic, Severity};
use crate::Protocol;

/// The rules of this family, in documentation order.
pub(super) const RULES: &[Rule] = &[ENCRYPTED_VALUE_TYPE_WITHOUT_VALUE];

pub(super) const ENCRYPTED_VALUE_TYPE_WITHOUT_VALUE: Rule = Rule {
    name: "encrypted-value-type-without-value",
    severity: Severity::Error,
    summary: "encryptedValueType on a message or tool call that carries no encryptedValue",
    docs: r#"## What it checks
AG-UI 1.1 (`spec/1.1/events/reasoning.mdx`, "encryptedValueType"): the type
names the kind of one encrypted artefact, and a producer must not send
`encryptedValueType` without `encryptedValue`. Checked on messages and tool
calls wherever they appear: a request's conversation, a
`MESSAGES_SNAPSHOT`, the input a `RUN_STARTED` echoes. (In 1.0 the key does
not exist: `unknown-field`.)

## Why it matters
A type without its value labels nothing; a consumer returning it would
pair it with whatever value it stores next, mislabelling those bytes.

## Invalid
```json
{"id": "r1", "role": "reasoning", "content": "", "encryptedValueType": "anthropic.redacted_thinking"}
```

## Valid
```json
{"id": "r1", "role": "reasoning", "content": "", "encryptedValue": "EuYBCkQ…",
 "encryptedValueType": "anthropic.redacted_thinking"}
```
"#,
};

/// Reports every message and tool call of a 1.1 document that has a type
/// for an encrypted value it does not carry.
pub(super) fn check(document: &Document<'_>, out: &mut Vec<Diagnostic>) {
    if document.protocol != Protocol::V1_1 {
        return;
    }
    let messages = document.messages();
    let calls = document.tool_calls();
    for node in messages.iter().chain(&calls) {
        let typed = node.value.get("encryptedValueType").is_some();
        if typed && node.value.get("encryptedValue").is_none() {
            out.push(
                ENCRYPTED_VALUE_TYPE_WITHOUT_VALUE
                    .diagnostic(
                        format!("{}/encryptedValueType", node.pointer),
                        "encryptedValueType without the encryptedValue it describes",
                    )
                    .with_help("send the type only beside its value, or leave both out"),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::Kind;

    fn fired(protocol: Protocol, kind: Kind, value: serde_json::Value) -> usize {
        let document = Document {
            kind,
            protocol,
            root: &value,
            limits: crate::Limits::default(),
        };
        let mut out = Vec::new();
        check(&document, &mut out);
        out.len()
    }

    #[test]
    fn a_type_needs_its_value_in_1_1_only() {
        let message = json!({"id": "a", "role": "assistant", "content": "x", "encryptedValueType": "t",
            "toolCalls": [{"id": "c", "type": "function", "function": {"name": "f", "arguments": "{}"},
                "encryptedValueType": "t"}]});
        assert_eq!(fired(Protocol::V1_1, Kind::Message, message.clone()), 2);
        assert_eq!(fired(Protocol::V1_0, Kind::Message, message), 0);
        let paired = json!({"id": "a", "role": "assistant", "content": "x",
            "encryptedValue": "v", "encryptedValueType": "t"});
        assert_eq!(fired(Protocol::V1_1, Kind::Message, paired), 0);
    }
}
