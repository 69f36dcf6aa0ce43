//! Whether the root of a `parameters` schema describes an object.

use crate::diagnostic::Diagnostic;
use crate::pointer;
use crate::text::{preview, quote};
use serde_json::Value;

use super::rules::*;

/// Warns when the root of `schema` is not `"type": "object"`. Skips what
/// `tool-parameters-invalid-schema` already reported: a `parameters` that
/// is no schema, or a root `type` that is no JSON Schema type.
pub(super) fn check_object_root(
    schema: &Value,
    base: &str,
    meta_errors: &[String],
    out: &mut Vec<Diagnostic>,
) {
    let object = match schema {
        Value::Bool(accepts) => {
            let what = if *accepts { "any value" } else { "no value" };
            out.push(
                TOOL_PARAMETERS_NOT_OBJECT
                    .diagnostic(
                        base,
                        format!("parameters is the boolean schema {accepts}, which accepts {what}, not an object schema"),
                    )
                    .with_help(
                        "function-calling APIs require \"type\": \"object\" at the root; a tool without arguments is {\"type\": \"object\", \"properties\": {}}",
                    ),
            );
            return;
        }
        Value::Object(object) => object,
        _ => return,
    };
    if meta_errors.iter().any(|at| at.is_empty() || at == "/type") {
        return;
    }
    match object.get("type") {
        Some(Value::String(t)) if t == "object" => {}
        None => out.push(
            TOOL_PARAMETERS_NOT_OBJECT
                .diagnostic(
                    base,
                    "parameters has no 'type', so it does not say that the arguments are an object",
                )
                .with_help(
                    "add \"type\": \"object\" at the root; OpenAI rejects a function schema whose root type is not \"object\", even when 'properties' is given",
                ),
        ),
        Some(other) => {
            let help = match other.as_array() {
                Some(types) if types.iter().any(|t| t == "object") => {
                    "write exactly \"type\": \"object\": arguments are always an object, never null, and function-calling APIs check the root type literally"
                }
                _ => {
                    "arguments are an object of named parameters: put the value under a property, as in {\"type\": \"object\", \"properties\": {\"value\": {\"type\": \"string\"}}}"
                }
            };
            let shown = match other {
                Value::String(s) => quote(s),
                other => preview(other),
            };
            out.push(
                TOOL_PARAMETERS_NOT_OBJECT
                    .diagnostic(
                        pointer::push(base, "type"),
                        format!("parameters has type {shown}, not 'object'"),
                    )
                    .with_help(help),
            );
        }
    }
}
