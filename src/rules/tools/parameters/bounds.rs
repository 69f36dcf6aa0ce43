//! How large and how costly a `parameters` schema may be before it is
//! refused rather than meta-validated or compiled.

use super::rules::*;
use crate::diagnostic::Diagnostic;
use crate::rules::tools::cost;
use jsonschema::Draft;
use serde_json::Value;

/// The most subschemas one value may be checked against through in-place
/// applicators and references before a schema is `too-complex`.
pub(super) const MAX_FAN_OUT: u64 = 10_000;

/// The deepest `parameters` handed to `jsonschema`, whose meta-validation
/// and compile recurse. The same as `serde_json`'s parse limit, so only a
/// value built in memory (`Validator::validate_value`) can go deeper.
pub(super) const MAX_DEPTH: usize = 128;

/// The `tool-parameters-too-complex` finding on `schema` (one that
/// compiles), if checking a value against it cannot be bounded.
pub(super) fn complexity(schema: &Value, draft: Draft, base: &str) -> Option<Diagnostic> {
    complexity_of(cost::Graph::of(schema, draft).as_ref(), base)
}

/// [`complexity`] from the schema's graph, made once for this and for the
/// arguments of calls.
pub(super) fn complexity_of(
    graph: Result<&cost::Graph, &cost::Unbounded>,
    base: &str,
) -> Option<Diagnostic> {
    let message = match graph.map_err(|why| *why).and_then(cost::Graph::fan_out) {
        Ok(fan_out) if fan_out <= MAX_FAN_OUT => return None,
        Ok(fan_out) => format!(
            "one value would be checked against {} subschemas at once: its references and allOf, anyOf or oneOf fan out",
            if fan_out == u64::MAX { "more than 10^19".to_string() } else { crate::text::count(usize::try_from(fan_out).unwrap_or(usize::MAX)) }
        ),
        Err(cost::Unbounded::Unresolved) => "it refers to a subschema in a way agui-lint does not follow itself, so the cost of checking arguments against it cannot be bounded".to_string(),
        Err(cost::Unbounded::TooLarge) => "it has more subschemas, or more paths between them, than agui-lint analyses".to_string(),
    };
    Some(
        TOOL_PARAMETERS_TOO_COMPLEX
            .diagnostic(base, format!("parameters is too complex to check arguments against: {message}"))
            .with_help(format!(
                "the arguments of calls to this tool are not checked; refer to each definition from one place, or keep unions of references small (at most {} subschemas for one value)",
                crate::text::count(MAX_FAN_OUT as usize)
            )),
    )
}

/// Whether `value` nests arrays and objects more than `limit` levels deep;
/// without recursion, as the value may be deeper than our stack allows.
pub(super) fn deeper_than(value: &Value, limit: usize) -> bool {
    let mut stack = vec![(value, 0_usize)];
    while let Some((value, depth)) = stack.pop() {
        if depth > limit {
            return true;
        }
        match value {
            Value::Array(items) => stack.extend(items.iter().map(|v| (v, depth + 1))),
            Value::Object(members) => stack.extend(members.values().map(|v| (v, depth + 1))),
            _ => {}
        }
    }
    false
}
