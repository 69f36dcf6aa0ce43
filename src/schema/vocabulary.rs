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

/// Whether `word` is one of the protocol's own words in some version: a
/// key its schemas define, or a value they name in an `enum` or a `const`.
/// Such a word says nothing about a document, so masking keeps it
/// ([`crate::mask`]).
pub(crate) fn is_protocol_word(word: &str) -> bool {
    static WORDS: OnceLock<HashSet<String>> = OnceLock::new();
    WORDS
        .get_or_init(|| {
            let mut words = HashSet::new();
            for protocol in Protocol::ALL {
                for kind in Kind::ALL {
                    if let Some(schema) = super::generate(protocol, kind) {
                        collect(&schema, &mut words, true);
                    }
                }
            }
            words
        })
        .contains(word)
}

fn vocabulary(protocol: Protocol) -> HashSet<String> {
    let mut names = HashSet::new();
    for kind in Kind::ALL {
        if let Some(schema) = super::generate(protocol, kind) {
            collect(&schema, &mut names, false);
        }
    }
    names
}

/// Adds the strings of every `enum` and `const` under `schema`, and with
/// `keys` the names of every property (`properties`, `required`).
fn collect(schema: &Value, names: &mut HashSet<String>, keys: bool) {
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
                        ("properties", Value::Object(properties)) if keys => {
                            names.extend(properties.keys().cloned());
                            stack.push(member);
                        }
                        ("required", Value::Array(required)) if keys => {
                            names.extend(
                                required
                                    .iter()
                                    .filter_map(Value::as_str)
                                    .map(str::to_string),
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

    #[test]
    fn protocol_words_are_keys_and_values_of_every_version() {
        for word in [
            "threadId",
            "toolCalls",
            "assistant",
            "RUN_STARTED",
            "outcome",
        ] {
            assert!(is_protocol_word(word), "{word}");
        }
        // A pre-1.0 key, gone in 1.x, is still the protocol's.
        assert!(is_protocol_word("delta"));
        assert!(!is_protocol_word("thread_id"));
        assert!(!is_protocol_word("sk_live_7f3a"));
    }
}
