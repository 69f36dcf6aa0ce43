//! The values a version's schemas name: every string of an `enum` or a
//! `const`, in any kind's schema. It tells an unrecognised value from a
//! known one in the wrong place. In 1.x the first is material from a newer
//! version (a role, part type or outcome added after the receiver
//! shipped), stripped with a warning; the second is a malformed known
//! value, and fatal (`spec/1.1/basic/processing.mdx`, "The rule").

use std::collections::HashSet;
use std::sync::OnceLock;

use serde_json::Value;

use crate::{Kind, Protocol};

/// Whether some schema of `protocol` names `value` in an `enum` or a
/// `const`.
pub(crate) fn recognises(protocol: Protocol, value: &str) -> bool {
    static VOCABULARIES: [OnceLock<HashSet<String>>; Protocol::ALL.len()] =
        [const { OnceLock::new() }; Protocol::ALL.len()];
    VOCABULARIES[protocol.index()]
        .get_or_init(|| vocabulary(protocol))
        .contains(value)
}

fn vocabulary(protocol: Protocol) -> HashSet<String> {
    let mut names = HashSet::new();
    for kind in Kind::ALL {
        if let Some(schema) = super::generate(protocol, kind) {
            collect(&schema, &mut names);
        }
    }
    names
}

/// Adds the strings of every `enum` and `const` under `schema`.
fn collect(schema: &Value, names: &mut HashSet<String>) {
    let mut stack = vec![schema];
    while let Some(value) = stack.pop() {
        match value {
            Value::Object(members) => {
                for (key, member) in members {
                    match (key.as_str(), member) {
                        ("const", Value::String(name)) => {
                            names.insert(name.clone());
                        }
                        ("enum", Value::Array(options)) => {
                            names.extend(
                                options.iter().filter_map(Value::as_str).map(str::to_string),
                            );
                        }
                        _ => stack.push(member),
                    }
                }
            }
            Value::Array(items) => stack.extend(items),
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_the_versions_own_values_only() {
        assert!(recognises(Protocol::V1_1, "assistant"));
        assert!(recognises(Protocol::V1_1, "tool"));
        assert!(recognises(Protocol::V1_1, "replace"));
        assert!(recognises(Protocol::V1_1, "function"));
        assert!(!recognises(Protocol::V1_1, "assitant"));
        assert!(!recognises(Protocol::V1_1, "frobnicate"));
    }
}
