//! Turns the `jsonschema` crate's errors into agui-lint diagnostics.
//!
//! Each error kind maps to a rule (`missing-field`, `wrong-type`,
//! `invalid-value`, `unknown-field`, `null-for-optional`, else
//! `schema-violation`). Unions are refined through their discriminator: a
//! message with role `assistant` reports only AssistantMessage's errors, and
//! an unknown role is one `invalid-value` naming the allowed roles, never a
//! bare "not valid under any of the schemas listed in oneOf".

use jsonschema::error::{TypeKind, ValidationErrorKind};
use jsonschema::ValidationError;
use serde_json::Value;

use super::unknown::{quoted_list, unknown_field};
use crate::diagnostic::Diagnostic;
use crate::findings::Findings;
use crate::pointer;
use crate::rules::receivers::{Reading, Treatment};
use crate::rules::retired;
use crate::suggest;
use crate::text::{self, article, describe, preview};
use crate::types::v0::DEPRECATED_EVENT_TYPES;
use crate::Protocol;

/// Lists longer than this are summed up in help texts rather than spelled
/// out.
const MAX_LISTED_VALUES: usize = 10;

/// Maps schema errors of `instance`, validated against `schema` of the
/// version `reading` judges by, to diagnostics.
pub(crate) fn refine_errors<'a>(
    schema: &Value,
    instance: &Value,
    reading: Reading,
    errors: impl IntoIterator<Item = ValidationError<'a>>,
    out: &mut impl Findings,
) {
    let refiner = Refiner {
        schema,
        instance,
        protocol: reading.protocol,
        reading,
    };
    for error in errors {
        refiner.refine(&error, out);
    }
}

struct Refiner<'s> {
    /// The version judging: a pre-1.0 shape in a 1.x document is named as
    /// retired.
    protocol: Protocol,
    /// Who receives the document, which decides what a value outside a
    /// closed set costs ([`Reading::outside_closed_set`]).
    reading: Reading,
    schema: &'s Value,
    instance: &'s Value,
}

/// The warning for a 1.x event whose `type` is `tag`, a type the receiver
/// does not know, which it drops.
fn dropped_event(pointer: String, tag: &str, allowed: &[&str]) -> Diagnostic {
    let diagnostic = crate::rules::UNKNOWN_EVENT_TYPE.diagnostic(
        pointer,
        format!("unknown event type '{tag}': a receiver drops the event, with a warning"),
    );
    match suggest::closest(tag, allowed.iter().copied()) {
        Some(best) => diagnostic.with_help(format!(
            "did you mean '{best}'? an event type from a newer version is dropped; private signals go in CUSTOM or RAW"
        )),
        None => diagnostic.with_help(
            "an event type from a newer version is dropped; private signals go in CUSTOM or RAW",
        ),
    }
}

/// 2^53 − 1, the bound of the 1.x schemas' integers.
const SAFE_INTEGER: u64 = 9_007_199_254_740_991;

/// The pattern of a JSON Pointer in the 1.x schemas (`JsonPointer`).
const JSON_POINTER: &str = "^(/([^/~]|~[01])*)*$";

impl Refiner<'_> {
    fn refine(&self, error: &ValidationError<'_>, out: &mut impl Findings) {
        let at = error.instance_path().as_str();
        let schema_path = error.schema_path().as_str();
        match error.kind() {
            ValidationErrorKind::AdditionalProperties { unexpected } => {
                let parent = self.schema_at(parent_path(schema_path));
                for key in unexpected {
                    let retired = self
                        .protocol
                        .is_1x()
                        .then(|| retired::retired_key(at, key))
                        .flatten();
                    match retired {
                        Some(retired) => out.push(retired),
                        // A document can hold a million unknown keys; the
                        // suggestion for one is only made if it is reported.
                        None => out.add(&crate::rules::UNKNOWN_FIELD, |_| {
                            self.unknown_field(at, key, parent)
                        }),
                    }
                }
            }
            ValidationErrorKind::Required { property } => {
                let key = property.as_str().unwrap_or_default();
                out.push(self.missing_field(at, key));
            }
            ValidationErrorKind::Type { kind } => {
                let parent = self.schema_at(parent_path(parent_path(parent_path(schema_path))));
                self.push_judged(self.wrong_type(at, kind, parent), at, out);
            }
            ValidationErrorKind::Constant { expected_value } => {
                self.invalid_value(at, std::slice::from_ref(expected_value.as_ref()), out);
            }
            ValidationErrorKind::Enum { options } => {
                let options = options.as_array().map(Vec::as_slice).unwrap_or_default();
                self.invalid_value(at, options, out);
            }
            ValidationErrorKind::OneOfNotValid { context } => {
                self.refine_one_of(error, context, out);
            }
            ValidationErrorKind::AnyOf { context } => {
                self.refine_any_of(error, context, out);
            }
            // JSON Patch paths (1.x), the only `pattern` the schemas use.
            ValidationErrorKind::Pattern { pattern } if pattern.as_str() == JSON_POINTER => {
                let found = self
                    .instance_at(at)
                    .and_then(Value::as_str)
                    .map(text::excerpt)
                    .unwrap_or_default();
                out.push(
                    crate::rules::SCHEMA_VIOLATION.diagnostic(
                        at,
                        format!("'{found}' is not a JSON Pointer"),
                    )
                    .with_help(
                        "a JSON Pointer (RFC 6901) is empty (the whole document) or '/'-prefixed \
                         tokens, with '~' written '~0' and '/' written '~1'",
                    ),
                );
            }
            // Timestamps and counts (1.x), bounded to what a JSON number
            // keeps exactly.
            ValidationErrorKind::Maximum { limit } | ValidationErrorKind::Minimum { limit }
                if limit.as_i64().map(i64::unsigned_abs) == Some(SAFE_INTEGER) =>
            {
                out.push(
                    crate::rules::SCHEMA_VIOLATION.diagnostic(at, error.to_string())
                        .with_help(
                            "the schema bounds it to ±(2^53 − 1), the integers a JSON number keeps exactly: a larger one reads back as another number in JavaScript",
                        ),
                );
            }
            // The 1.x slots that take any JSON value but `null`.
            ValidationErrorKind::Not { schema }
                if *schema == serde_json::json!({"type": "null"}) =>
            {
                let parent = self.schema_at(parent_path(parent_path(parent_path(schema_path))));
                let instance = self.instance_at(at).unwrap_or(&Value::Null);
                self.push_judged(
                    self.null_for_optional(at, instance, parent)
                        .unwrap_or_else(|| {
                            self.null_or_wrong_type(at, instance, "any value but null")
                        }),
                    at,
                    out,
                );
            }
            _ => out.push(crate::rules::SCHEMA_VIOLATION.diagnostic(at, error.to_string())),
        }
    }

    fn schema_at(&self, path: &str) -> Option<&Value> {
        self.schema.pointer(path)
    }

    fn instance_at(&self, at: &str) -> Option<&Value> {
        self.instance.pointer(at)
    }

    /// A `oneOf` over a discriminated union: report the errors of the branch
    /// that the discriminator selects, or one finding about the
    /// discriminator itself.
    fn refine_one_of(
        &self,
        error: &ValidationError<'_>,
        context: &[Vec<ValidationError<'static>>],
        out: &mut impl Findings,
    ) {
        let at = error.instance_path().as_str();
        let union = self.schema_at(parent_path(error.schema_path().as_str()));
        let branches = union
            .and_then(|u| u.get("oneOf"))
            .and_then(Value::as_array)
            .map(Vec::as_slice)
            .unwrap_or_default();
        let tag_key = union
            .and_then(|u| u.pointer("/discriminator/propertyName"))
            .and_then(Value::as_str);
        // An enum whose values are documented one by one is a `oneOf` of
        // `const`s: one `invalid-value` listing them.
        let consts: Vec<Value> = branches
            .iter()
            .filter_map(|b| b.get("const"))
            .cloned()
            .collect();
        if tag_key.is_none() && !consts.is_empty() && consts.len() == branches.len() {
            self.invalid_value(at, &consts, out);
            return;
        }
        let (Some(tag_key), Some(instance)) = (tag_key, self.instance_at(at)) else {
            out.push(crate::rules::SCHEMA_VIOLATION.diagnostic(at, error.to_string()));
            return;
        };
        let allowed: Vec<&str> = branches
            .iter()
            .filter_map(|b| b.pointer(&format!("/properties/{tag_key}/const")))
            .filter_map(Value::as_str)
            .collect();
        let Value::Object(object) = instance else {
            self.push_judged(
                crate::rules::WRONG_TYPE
                    .diagnostic(
                        at,
                        format!("expected an object, found {}", describe(instance)),
                    )
                    .with_help(format!(
                        "each entry is an object told apart by its '{tag_key}'"
                    )),
                at,
                out,
            );
            return;
        };
        let list = quoted_list(&allowed);
        match object.get(tag_key) {
            None => self.push_judged(
                crate::rules::MISSING_FIELD
                    .diagnostic(at, format!("missing required key '{tag_key}'"))
                    .with_help(format!(
                        "'{tag_key}' tells which kind of object this is: one of {list}"
                    )),
                &pointer::push(at, tag_key),
                out,
            ),
            Some(Value::String(tag)) => {
                match allowed.iter().position(|a| a == tag) {
                    Some(_) => {
                        // The branch whose discriminator matches; `context` is
                        // in branch order.
                        let branch = branches.iter().position(|b| {
                            b.pointer(&format!("/properties/{tag_key}/const"))
                                .and_then(Value::as_str)
                                == Some(tag.as_str())
                        });
                        if let Some(errors) = branch.and_then(|i| context.get(i)) {
                            for inner in errors {
                                self.refine(inner, out);
                            }
                        }
                    }
                    // 1.x: an event of a type the receiver does not know is
                    // dropped with a warning, never fatal
                    // (`spec/1.1/basic/processing.mdx`, "The rule").
                    // (A retired THINKING_* event is `retired-shape`'s.)
                    None if self.protocol.is_1x()
                        && tag_key == "type"
                        && allowed.contains(&"RUN_STARTED")
                        && retired::retired_tag(at, tag_key, tag).is_none() =>
                    {
                        out.push(dropped_event(pointer::push(at, tag_key), tag, &allowed));
                    }
                    None => {
                        let retired = self
                            .protocol
                            .is_1x()
                            .then(|| retired::retired_tag(at, tag_key, tag))
                            .flatten();
                        if let Some(retired) = retired {
                            out.push(retired);
                            return;
                        }
                        let pointer = pointer::push(at, tag_key);
                        let found = object.get(tag_key).unwrap_or(&Value::Null);
                        let treatment = self.reading.outside_closed_set(
                            &pointer,
                            found,
                            recognised(self.reading.protocol, found),
                        );
                        out.add_as(&crate::rules::INVALID_VALUE, treatment.severity(), |_| {
                        let replacement = DEPRECATED_EVENT_TYPES
                            .iter()
                            .find(|(old, _)| tag_key == "type" && old == tag);
                        let mut diagnostic = crate::rules::INVALID_VALUE.diagnostic(
                            pointer,
                            match replacement {
                                Some(_) => format!("event type '{tag}' is deprecated"),
                                None => format!("unknown {tag_key} '{tag}'"),
                            },
                        );
                        // A long list (28 event types) buries the advice;
                        // the schema lists them for whoever needs all.
                        let expected = if allowed.len() > MAX_LISTED_VALUES {
                            format!("one of the {} {tag_key}s the schema lists", allowed.len())
                        } else {
                            format!("one of {list}")
                        };
                        diagnostic = match (replacement, suggest::closest(tag, allowed.iter().copied())) {
                            (Some((_, new)), _) => diagnostic.with_help(format!(
                                "use '{new}' instead: the THINKING_* events are replaced by REASONING_* ones and go away in protocol 1.0.0"
                            )),
                            (None, Some(best)) => diagnostic.with_help(format!(
                                "did you mean '{best}'? expected {expected}"
                            )),
                            (None, None) => diagnostic.with_help(format!("expected {expected}")),
                        };
                        self.with_consequence(diagnostic, treatment)
                        });
                    }
                }
            }
            Some(other) => self.push_judged(
                crate::rules::WRONG_TYPE
                    .diagnostic(
                        pointer::push(at, tag_key),
                        format!("expected a string, found {}", describe(other)),
                    )
                    .with_help(format!("'{tag_key}' is one of {list}")),
                &pointer::push(at, tag_key),
                out,
            ),
        }
    }

    /// An `anyOf` over alternatives of different JSON types (user content is
    /// a string or an array of parts): report the errors of the alternative
    /// of the document's type, or one `wrong-type`.
    fn refine_any_of(
        &self,
        error: &ValidationError<'_>,
        context: &[Vec<ValidationError<'static>>],
        out: &mut impl Findings,
    ) {
        let at = error.instance_path().as_str();
        let branches = self
            .schema_at(error.schema_path().as_str())
            .and_then(Value::as_array)
            .map(Vec::as_slice)
            .unwrap_or_default();
        let Some(instance) = self.instance_at(at) else {
            out.push(crate::rules::SCHEMA_VIOLATION.diagnostic(at, error.to_string()));
            return;
        };
        let types: Vec<&str> = branches.iter().map(|b| self.json_type_of(b)).collect();
        let matching: Vec<usize> = (0..types.len())
            .filter(|&i| type_matches(types[i], instance))
            .collect();
        match matching.as_slice() {
            [] => {
                let expected: Vec<String> = types.iter().map(|t| article(t)).collect();
                out.push(self.null_or_wrong_type(at, instance, &expected.join(" or ")));
            }
            [only] => {
                for inner in context.get(*only).into_iter().flatten() {
                    self.refine(inner, out);
                }
            }
            _ => out.push(crate::rules::SCHEMA_VIOLATION.diagnostic(at, error.to_string())),
        }
    }

    /// The JSON type a branch schema demands, following a local `$ref`.
    fn json_type_of<'v>(&'v self, branch: &'v Value) -> &'v str {
        if let Some(t) = branch.get("type").and_then(Value::as_str) {
            return t;
        }
        if let Some(target) = branch
            .get("$ref")
            .and_then(Value::as_str)
            .and_then(|r| r.strip_prefix('#'))
            .and_then(|p| self.schema.pointer(p))
        {
            if let Some(t) = target.get("type").and_then(Value::as_str) {
                return t;
            }
            if target.get("oneOf").is_some() {
                return "object";
            }
        }
        "value"
    }

    fn unknown_field(&self, at: &str, key: &str, parent: Option<&Value>) -> Diagnostic {
        let known: Vec<&str> = parent
            .and_then(|p| p.get("properties"))
            .and_then(Value::as_object)
            .map(|p| p.keys().map(String::as_str).collect())
            .unwrap_or_default();
        unknown_field(self.protocol, at, key, &known)
    }

    fn missing_field(&self, at: &str, key: &str) -> Diagnostic {
        let diagnostic =
            crate::rules::MISSING_FIELD.diagnostic(at, format!("missing required key '{key}'"));
        let present = self.instance_at(at).and_then(Value::as_object);
        let near = present.and_then(|object| {
            object
                .keys()
                .find(|k| suggest::closest(k, [key]).is_some())
                .cloned()
        });
        match near {
            Some(found) => {
                diagnostic.with_help(format!("found '{found}'; the key is spelled '{key}'"))
            }
            None => diagnostic,
        }
    }

    fn wrong_type(&self, at: &str, kind: &TypeKind, parent: Option<&Value>) -> Diagnostic {
        let instance = self.instance_at(at).unwrap_or(&Value::Null);
        let expected = text::expected_types(kind);
        self.null_for_optional(at, instance, parent)
            .unwrap_or_else(|| self.null_or_wrong_type(at, instance, &expected))
    }

    /// The `null-for-optional` finding when `instance` at `at` is `null`
    /// under a key its object (`parent`) declares and does not require.
    fn null_for_optional(
        &self,
        at: &str,
        instance: &Value,
        parent: Option<&Value>,
    ) -> Option<Diagnostic> {
        let key = pointer::last(at);
        let optional = key.as_deref().is_some_and(|key| {
            parent.is_some_and(|p| {
                p.pointer(&format!("/properties/{}", pointer::escape(key)))
                    .is_some()
                    && !p
                        .get("required")
                        .and_then(Value::as_array)
                        .is_some_and(|r| r.iter().any(|k| k == key))
            })
        });
        if !(instance.is_null() && optional) {
            return None;
        }
        let key = key.unwrap_or_default();
        Some(
            crate::rules::NULL_FOR_OPTIONAL.diagnostic(
                at,
                format!("optional key '{key}' is null"),
            )
            .with_help(format!(
                "omit '{key}' instead: the TypeScript SDK rejects null for an optional key, the Python SDK accepts it, so this payload works with one peer and fails with the other"
            )),
        )
    }

    fn null_or_wrong_type(&self, at: &str, instance: &Value, expected: &str) -> Diagnostic {
        crate::rules::WRONG_TYPE.diagnostic(
            at,
            format!("expected {expected}, found {}", describe(instance)),
        )
    }

    /// Reports the value at `at` as not among `allowed`, with the
    /// severity of what the receivers do with it
    /// ([`Reading::outside_closed_set`]; added as such, so that it is not
    /// reset to the rule's default).
    fn invalid_value(&self, at: &str, allowed: &[Value], out: &mut impl Findings) {
        let instance = self.instance_at(at).unwrap_or(&Value::Null);
        let treatment = self.reading.outside_closed_set(
            at,
            instance,
            recognised(self.reading.protocol, instance),
        );
        out.add_as(&crate::rules::INVALID_VALUE, treatment.severity(), |_| {
            self.with_consequence(self.invalid_value_finding(at, instance, allowed), treatment)
        });
    }

    /// Adds `diagnostic`, about the value at `at`, as a warning where the
    /// client tolerates that value ([`Reading::tolerated`]), saying what it
    /// does; else as it is.
    fn push_judged(&self, diagnostic: Diagnostic, at: &str, out: &mut impl Findings) {
        let tolerated = self.reading.tolerated(self.instance, at);
        match (tolerated, crate::rules::rule(&diagnostic.rule)) {
            // Added with its severity, so that it is not reset to the
            // rule's default.
            // A `null` the receivers take: the generic help (the
            // TypeScript SDK rejects it) is not what happens here.
            (Some(treatment), Some(rule)) if rule == &crate::rules::NULL_FOR_OPTIONAL => {
                let key = pointer::last(at).unwrap_or_default();
                out.add_as(rule, treatment.severity(), |_| {
                    diagnostic
                        .with_help(format!("omit '{key}' instead: {}", treatment.consequence()))
                })
            }
            (Some(treatment), Some(rule)) => out.add_as(rule, treatment.severity(), |_| {
                self.with_consequence(diagnostic, treatment)
            }),
            _ => out.push(diagnostic),
        }
    }

    /// `diagnostic` with what the 1.x receivers do with its value added to
    /// its help (the pre-1.0 SDKs reject every such value alike).
    fn with_consequence(&self, diagnostic: Diagnostic, treatment: Treatment) -> Diagnostic {
        if !self.protocol.is_1x() {
            return diagnostic;
        }
        let help = match &diagnostic.help {
            Some(help) => format!("{help}; {}", treatment.consequence()),
            None => treatment.consequence().to_string(),
        };
        diagnostic.with_help(help)
    }

    fn invalid_value_finding(&self, at: &str, instance: &Value, allowed: &[Value]) -> Diagnostic {
        let names: Vec<String> = allowed
            .iter()
            .map(|v| match v {
                Value::String(s) => format!("'{s}'"),
                other => other.to_string(),
            })
            .collect();
        let strings: Vec<&str> = allowed.iter().filter_map(Value::as_str).collect();
        // "invalid type 'func'" reads better than "invalid value" when the
        // value belongs to a named key.
        let what = pointer::last(at)
            .filter(|k| k.parse::<usize>().is_err())
            .unwrap_or_else(|| "value".to_string());
        let diagnostic = crate::rules::INVALID_VALUE
            .diagnostic(at, format!("invalid {what} {}", preview(instance)));
        let list = names.join(", ");
        match instance
            .as_str()
            .and_then(|s| suggest::closest(s, strings.iter().copied()))
        {
            Some(best) => {
                diagnostic.with_help(format!("did you mean '{best}'? expected one of {list}"))
            }
            None if allowed.len() == 1 => diagnostic.with_help(format!("expected {list}")),
            None => diagnostic.with_help(format!("expected one of {list}")),
        }
    }
}

/// The schema path one keyword up (`/a/b/type` → `/a/b`).
fn parent_path(path: &str) -> &str {
    path.rfind('/').map_or("", |i| &path[..i])
}

fn type_matches(expected: &str, value: &Value) -> bool {
    match expected {
        "string" => value.is_string(),
        "array" => value.is_array(),
        "object" => value.is_object(),
        "boolean" => value.is_boolean(),
        "null" => value.is_null(),
        "number" => value.is_number(),
        "integer" => value.is_i64() || value.is_u64(),
        _ => false,
    }
}

/// Whether `found` is a string the vocabulary of `protocol` knows (in some
/// closed set of the version), for [`Reading::outside_closed_set`].
fn recognised(protocol: crate::Protocol, found: &Value) -> bool {
    found
        .as_str()
        .is_some_and(|value| super::vocabulary_recognises(protocol, value))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn refine(schema: Value, instance: Value) -> Vec<Diagnostic> {
        let validator = jsonschema::options()
            .offline()
            .build(&schema)
            .expect("schema compiles");
        let mut out = Vec::new();
        refine_errors(
            &schema,
            &instance,
            Reading::new(Protocol::V0, crate::Kind::RunAgentInput),
            validator.iter_errors(&instance),
            &mut out,
        );
        out
    }

    #[test]
    fn keywords_without_a_narrower_rule_are_schema_violations() {
        let found = refine(json!({"type": "integer", "minimum": 0}), json!(-1));
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].rule, crate::rules::schema::SCHEMA_VIOLATION.name);
        assert!(found[0].message.contains("minimum"), "{}", found[0].message);
    }

    #[test]
    fn ambiguous_alternatives_are_schema_violations() {
        let found = refine(
            json!({"anyOf": [{"type": "string", "minLength": 5}, {"type": "string", "pattern": "^a"}]}),
            json!("b"),
        );
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].rule, crate::rules::schema::SCHEMA_VIOLATION.name);
    }

    #[test]
    fn enums_of_documented_values_are_one_invalid_value() {
        let found = refine(
            json!({"properties": {"kind": {"oneOf": [{"const": "function"}, {"const": "other"}]}}}),
            json!({"kind": "funtion"}),
        );
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].rule, crate::rules::schema::INVALID_VALUE.name);
        assert_eq!(found[0].pointer, "/kind");
        assert!(found[0]
            .help
            .as_deref()
            .unwrap_or_default()
            .contains("did you mean 'function'"));
    }
}
