//! Meta-validation: a `parameters` schema against its draft's meta-schema,
//! each error said in the words of the keyword it breaks.

use crate::diagnostic::Diagnostic;
use crate::text::{describe, expected_types, quote};
use jsonschema::error::ValidationErrorKind;
use jsonschema::{Draft, ValidationError};
use serde_json::Value;

use super::dialect::*;
use super::patterns::*;
use super::rules::*;

/// Meta-validates `schema` against `draft`'s meta-schema: one diagnostic
/// per location (the meta-schemas' `anyOf`s report one place many times),
/// with the pointer relative to `parameters`.
pub(super) fn meta_validate(schema: &Value, draft: Draft, base: &str) -> Vec<(String, Diagnostic)> {
    // Only the draft-specific meta validators: `jsonschema::meta::validate`
    // looks `$schema` up itself and panics on one it cannot resolve.
    let validator = match draft {
        Draft::Draft4 => jsonschema::draft4::meta::validator(),
        Draft::Draft6 => jsonschema::draft6::meta::validator(),
        Draft::Draft7 => jsonschema::draft7::meta::validator(),
        Draft::Draft201909 => jsonschema::draft201909::meta::validator(),
        _ => jsonschema::draft202012::meta::validator(),
    };
    let mut found: Vec<(String, Diagnostic)> = Vec::new();
    for error in validator.iter_errors(schema) {
        let at = error.instance_path().as_str().to_string();
        if found.iter().any(|(seen, _)| *seen == at) {
            continue;
        }
        let (message, help) = meta_message(&error, &at);
        let help = help.unwrap_or_else(|| {
            format!(
                "parameters must be a valid {} JSON Schema; see its meta-schema at '{}'",
                draft_name(draft),
                draft_uri(draft)
            )
        });
        let diagnostic = TOOL_PARAMETERS_INVALID_SCHEMA
            .diagnostic(format!("{base}{at}"), message)
            .with_help(help);
        found.push((at, diagnostic));
    }
    found
}

/// A message (and specific help, if any) for one meta-validation error.
pub(super) fn meta_message(error: &ValidationError<'_>, at: &str) -> (String, Option<String>) {
    let subject = subject(at);
    let instance = error.instance();
    match error.kind() {
        ValidationErrorKind::Type { kind } => (
            format!(
                "{subject} is {}, expected {}",
                describe(instance),
                expected_types(kind)
            ),
            None,
        ),
        ValidationErrorKind::Enum { options } => enum_message(&subject, instance, options),
        ValidationErrorKind::AnyOf { context } | ValidationErrorKind::OneOfNotValid { context } => {
            // `type` is `anyOf: [simpleTypes, array of simpleTypes]`: the
            // enum branch says what was meant.
            let options = context.iter().flatten().find_map(|e| match e.kind() {
                ValidationErrorKind::Enum { options }
                    if e.instance_path().as_str() == error.instance_path().as_str() =>
                {
                    Some(options)
                }
                _ => None,
            });
            match options {
                Some(options) => enum_message(&subject, instance, options),
                None => (generic_message(&subject, error), None),
            }
        }
        ValidationErrorKind::Minimum { limit } => (
            format!(
                "{subject} is {}, less than the minimum of {limit}",
                describe(instance)
            ),
            None,
        ),
        ValidationErrorKind::Format { format } if format == "regex" => {
            let (message, help) = regex_problem(at, instance.as_str().unwrap_or_default());
            (message, Some(help))
        }
        ValidationErrorKind::Required { property } => (
            format!(
                "{subject} has no key {}, which the meta-schema requires beside the keys it has",
                quote(property.as_str().unwrap_or_default())
            ),
            None,
        ),
        _ => (generic_message(&subject, error), None),
    }
}

pub(super) fn enum_message(
    subject: &str,
    instance: &Value,
    options: &Value,
) -> (String, Option<String>) {
    let allowed: Vec<&str> = options
        .as_array()
        .map(|items| items.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let list = allowed
        .iter()
        .map(|a| format!("'{a}'"))
        .collect::<Vec<_>>()
        .join(", ");
    let help = match instance
        .as_str()
        .and_then(|word| crate::suggest::closest(word, allowed.iter().copied()))
    {
        Some(best) => format!("did you mean '{best}'? expected one of {list}"),
        None => format!("expected one of {list}"),
    };
    (
        format!(
            "{subject} is {}, not one of the allowed values",
            describe(instance)
        ),
        Some(help),
    )
}

/// `jsonschema`'s own sentence, cut short: it quotes the whole offending
/// value, which may be large.
pub(super) fn generic_message(subject: &str, error: &ValidationError<'_>) -> String {
    const LIMIT: usize = 120;
    let text = error.to_string();
    let mut short: String = text.chars().take(LIMIT).collect();
    if text.chars().count() > LIMIT {
        short.push_str("...");
    }
    format!("{subject} is not valid here: {short}")
}
