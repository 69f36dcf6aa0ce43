//! The offline compile of a `parameters` schema: each problem `jsonschema`
//! stops at, explained and removed from a copy, and the validator that
//! tool-call arguments are checked with.

use crate::pointer;
use crate::rules::tools::cache::Arguments;
use crate::rules::tools::cost;
use crate::rules::tools::references::{self, Reference, Target};
use crate::text::quote;
use jsonschema::error::ValidationErrorKind;
use jsonschema::{Draft, PatternCache, PatternOptions, ReferencingError, ValidationError};
use serde_json::{json, Value};
use std::sync::{LazyLock, Mutex, PoisonError};

use super::bounds::*;
use super::dialect::*;
use super::meta::*;
use super::patterns::*;
use super::rules::*;

/// `jsonschema` stops compiling at the first problem; each round reports
/// one and removes it from a copy. Bounded, so that a schema with
/// thousands of problems costs a bounded number of compiles.
pub(super) const MAX_COMPILE_ROUNDS: usize = 16;

/// A copy of `schema` without what step 2 reported: references that leave
/// `parameters` and `$schema`s naming no supported draft, so that the
/// compile reports only other causes and has nothing to retrieve.
pub(super) fn without_outside_references(schema: &Value, scan: &references::Scan<'_>) -> Value {
    let mut copy = schema.clone();
    for reference in &scan.references {
        if matches!(reference.target, Target::Outside(_)) {
            remove_member(&mut copy, &reference.pointer);
        }
    }
    for (at, value) in &scan.nested_schemas {
        if !matches!(classify(value), MetaSchema::Draft(_)) {
            remove_member(&mut copy, at);
        }
    }
    copy
}

/// Removes the object member at `at`; false when there is none.
pub(super) fn remove_member(value: &mut Value, at: &str) -> bool {
    let Some(split) = at.rfind('/') else {
        return false;
    };
    let key = pointer::unescape(&at[split + 1..]);
    value
        .pointer_mut(&at[..split])
        .and_then(Value::as_object_mut)
        .and_then(|object| object.remove(&key))
        .is_some()
}

/// A validator of tool arguments against `parameters`, or `None` when
/// `parameters` is not a schema that compiles offline (the rules of this
/// module then say why). Patterns use the linear-time engine, as the
/// arguments are matched against them.
pub(super) fn arguments_validator(schema: &Value) -> Option<Arguments> {
    let draft = match schema.get("$schema").map(classify) {
        None => DEFAULT_DRAFT,
        Some(MetaSchema::Draft(draft)) => draft,
        Some(_) => return None,
    };
    if deeper_than(schema, MAX_DEPTH) {
        return None;
    }
    let scan = references::scan(schema, draft);
    let leaves = scan
        .references
        .iter()
        .any(|r| matches!(r.target, Target::Outside(_)));
    if leaves || !scan.nested_schemas.is_empty() {
        return None;
    }
    let graph = cost::Graph::of(schema, draft).ok()?;
    if graph.fan_out().ok()? > MAX_FAN_OUT {
        return None;
    }
    let validator = match build(schema, draft, Engine::Linear) {
        Ok(validator) => validator,
        // Patterns the linear engine does not run are left out (each is
        // `tool-parameters-unsupported-pattern`), unless one is a
        // `patternProperties` key, whose members would otherwise fall to
        // `additionalProperties`.
        Err(_) => {
            let mut copy = schema.clone();
            let compiled = compile_problems(&mut copy, draft);
            let keyed = compiled
                .unsupported
                .iter()
                .any(|(at, _)| parent_keyword(at) == Some("patternProperties"));
            if !compiled.problems.is_empty() || compiled.unsupported.is_empty() || keyed {
                return None;
            }
            build(&copy, draft, Engine::Linear).ok()?
        }
    };
    Some(Arguments { validator, graph })
}

/// What arguments are checked with, from `validator`, compiled from a
/// schema as [`arguments_validator`] compiles it, and the schema's
/// `graph`: the schema checked compiles it once, and the arguments of
/// calls to it use that compile (a schema seen for the first time was
/// compiled twice, which was most of its cost).
pub(super) fn arguments_with(
    graph: Result<cost::Graph, cost::Unbounded>,
    validator: jsonschema::Validator,
) -> Option<Arguments> {
    let graph = graph.ok()?;
    if graph.fan_out().ok()? > MAX_FAN_OUT {
        return None;
    }
    Some(Arguments { validator, graph })
}

pub(super) fn build(
    schema: &Value,
    draft: Draft,
    engine: Engine,
) -> Result<jsonschema::Validator, ValidationError<'static>> {
    let options = jsonschema::options()
        .with_draft(draft)
        .offline()
        .with_pattern_cache(shared_patterns());
    let options = match engine {
        Engine::Linear => options.with_pattern_options(
            PatternOptions::regex()
                .size_limit(REGEX_SIZE_LIMIT)
                .dfa_size_limit(REGEX_SIZE_LIMIT),
        ),
        Engine::Backtracking => options.with_pattern_options(
            PatternOptions::fancy_regex()
                .size_limit(REGEX_SIZE_LIMIT)
                .dfa_size_limit(REGEX_SIZE_LIMIT),
        ),
    };
    options.build(schema)
}

/// Compiles every schema shares its regular expressions with the others
/// (tools of different schemas repeat the same patterns: a language code,
/// an id's shape), up to [`PATTERNS_SHARED_BY`] compiles; then the next
/// compiles start a new cache, so that what it holds stays bounded (as the
/// schema cache, which holds that many compiled schemas). A compile's
/// result is a function of the pattern and the engine's options alone,
/// so sharing is invisible in results.
fn shared_patterns() -> PatternCache {
    static SHARED: LazyLock<Mutex<(PatternCache, usize)>> =
        LazyLock::new(|| Mutex::new((PatternCache::new(), 0)));
    let mut shared = SHARED.lock().unwrap_or_else(PoisonError::into_inner);
    if shared.1 >= PATTERNS_SHARED_BY {
        *shared = (PatternCache::new(), 0);
    }
    shared.1 += 1;
    shared.0.clone()
}

/// How many compiles share one cache of regular expressions.
const PATTERNS_SHARED_BY: usize = crate::rules::tools::cache::CAPACITY;

/// The problems an offline compile of `schema` (meta-valid, references to
/// the outside removed) finds, as (pointer inside parameters, message,
/// help). `schema` is changed: each problem found is removed from it so
/// that the next compile can find the next.
pub(super) fn compile_problems(schema: &mut Value, draft: Draft) -> CompileProblems {
    let mut found = CompileProblems::default();
    for _ in 0..MAX_COMPILE_ROUNDS {
        let Err(error) = compile(schema, draft, Engine::Linear) else {
            return found;
        };
        let (explained, fixed) = explain_compile_error(&error, schema, draft);
        let declined = match explained {
            Some(Explained::Problem(problem)) => {
                found.problems.push(problem);
                None
            }
            Some(Explained::Declined(why)) => Some(why),
            None => None,
        };
        match fixed {
            Some(at) if remove_member(schema, &at) => {
                if let Some(why) = declined {
                    found.unsupported.push((at, why));
                }
            }
            _ => return found,
        }
    }
    if compile(schema, draft, Engine::Linear).is_err() {
        found.problems.push((
            String::new(),
            format!(
                "parameters has more than {MAX_COMPILE_ROUNDS} problems that stop it compiling"
            ),
            "agui-lint stopped looking; fix these and check again".to_string(),
        ));
    }
    found
}

/// What compiling a schema found: problems to report as (pointer, message,
/// help), and the patterns the linear engine does not run (pointers of a
/// `pattern` or a `patternProperties` key, and why), each removed from the
/// copy.
#[derive(Debug, Default)]
pub(super) struct CompileProblems {
    /// Each problem: where, what, and the help.
    pub(super) problems: Vec<(String, String, String)>,
    /// Where a valid pattern is one agui-lint declines to run, and why.
    pub(super) unsupported: Vec<(String, Declined)>,
}

/// What one compile error is: a problem of the schema to report (where,
/// what, help), or a valid pattern agui-lint declines to run.
#[derive(Debug)]
pub(super) enum Explained {
    /// The schema does not compile: (pointer, message, help).
    Problem((String, String, String)),
    /// The pattern is valid; agui-lint does not run it.
    Declined(Declined),
}

/// One compile error as (what it is, if it can be told; member to remove
/// from the copy before compiling again, if it can be found).
pub(super) fn explain_compile_error(
    error: &ValidationError<'_>,
    schema: &Value,
    draft: Draft,
) -> (Option<Explained>, Option<String>) {
    let at = error.instance_path().as_str().to_string();
    match error.kind() {
        ValidationErrorKind::Format { format } if format == "regex" => {
            let pattern = match error.instance().as_str() {
                Some(pattern) => pattern.to_string(),
                None => pointer::last(&at).unwrap_or_default(),
            };
            if pattern_compiles(&pattern) {
                // Valid, beyond the linear engine: look-around or a
                // back-reference, or a size only the other engine takes.
                let why = if backtracks(&pattern) {
                    Declined::Backtracking
                } else {
                    Declined::TooLarge
                };
                return (Some(Explained::Declined(why)), Some(at));
            }
            if shrink_counts(&pattern).is_some_and(|small| pattern_compiles(&small)) {
                // Valid with smaller counts: it failed for its size, which
                // is agui-lint's limit, not the schema's fault.
                return (Some(Explained::Declined(Declined::TooLarge)), Some(at));
            }
            let (message, help) = regex_problem(&at, &pattern);
            (
                Some(Explained::Problem((at.clone(), message, help))),
                Some(at),
            )
        }
        ValidationErrorKind::Referencing(cause) => {
            let scan = references::scan(schema, draft);
            match locate_reference(cause, &scan.references) {
                Some(reference) => {
                    let (message, help) = reference_problem(cause, reference);
                    (
                        Some(Explained::Problem((
                            reference.pointer.clone(),
                            message,
                            help,
                        ))),
                        Some(reference.pointer.clone()),
                    )
                }
                None => (
                    Some(Explained::Problem((
                        String::new(),
                        generic_message("parameters", error),
                        "agui-lint could not tell which reference this is".to_string(),
                    ))),
                    None,
                ),
            }
        }
        _ => (
            Some(Explained::Problem((
                at.clone(),
                generic_message(&subject(&at), error),
                format!(
                    "parameters must compile as a {} JSON Schema",
                    draft_name(draft)
                ),
            ))),
            None,
        ),
    }
}

/// The reference a referencing error is about: `jsonschema` names the
/// pointer, anchor or URI that failed, not where the reference is.
pub(super) fn locate_reference<'r>(
    cause: &ReferencingError,
    references: &'r [Reference],
) -> Option<&'r Reference> {
    let fragment_is =
        |wanted: &str, r: &Reference| references::fragment(&r.raw).is_some_and(|f| f == wanted);
    match cause {
        ReferencingError::PointerToNowhere { pointer }
        | ReferencingError::InvalidPercentEncoding { pointer, .. }
        | ReferencingError::InvalidArrayIndex { pointer, .. } => references
            .iter()
            .find(|r| fragment_is(pointer, r))
            // The error may name a pointer reached through another
            // reference; take one on its way.
            .or_else(|| {
                references.iter().find(|r| {
                    references::fragment(&r.raw).is_some_and(|f| {
                        !f.is_empty()
                            && (pointer.starts_with(&f) || f.starts_with(pointer.as_str()))
                    })
                })
            }),
        ReferencingError::NoSuchAnchor { anchor } | ReferencingError::InvalidAnchor { anchor } => {
            references.iter().find(|r| fragment_is(anchor, r))
        }
        ReferencingError::Unretrievable { uri, .. } => references.iter().find(|r| {
            let document = r.raw.split('#').next().unwrap_or_default();
            r.raw == *uri || (!document.is_empty() && uri.ends_with(document))
        }),
        ReferencingError::InvalidUri(_) => {
            references.iter().find(|r| r.target == Target::Malformed)
        }
        _ => None,
    }
}

pub(super) fn reference_problem(
    cause: &ReferencingError,
    reference: &Reference,
) -> (String, String) {
    let named = format!("'{}' {}", reference.keyword, quote(&reference.raw));
    match cause {
        ReferencingError::PointerToNowhere { pointer } => (
            format!("{named} points at nothing in parameters"),
            format!(
                "no location {} exists in this schema; fix the pointer or define the target, for example under '$defs'",
                quote(pointer)
            ),
        ),
        ReferencingError::NoSuchAnchor { anchor } => (
            format!("{named} names anchor {}, which no subschema declares", quote(anchor)),
            format!(
                "declare it with \"$anchor\": {} in the subschema (\"$id\": \"#...\" before 2019-09), or refer to it by JSON pointer",
                quote(anchor)
            ),
        ),
        ReferencingError::InvalidUri(_) => (
            format!("{named} is not a valid URI reference"),
            "write a fragment such as '#/$defs/NAME'".to_string(),
        ),
        ReferencingError::Unretrievable { .. } => (
            format!("{named} names a document that parameters does not contain"),
            "agui-lint never retrieves references; put the schema under '$defs' and refer to it as '#/$defs/NAME'"
                .to_string(),
        ),
        other => (
            format!("{named} cannot be resolved"),
            format!("the reference does not resolve inside parameters: {other}"),
        ),
    }
}

/// Whether `pattern` compiles with either engine: the linear one, or the
/// backtracking one for what only it supports (look-around,
/// back-references). Compile only: nothing is ever matched against it.
pub(super) fn pattern_compiles(pattern: &str) -> bool {
    let schema = json!({ "pattern": pattern });
    [Engine::Linear, Engine::Backtracking]
        .into_iter()
        .any(|engine| compile(&schema, DEFAULT_DRAFT, engine).is_ok())
}

/// Which regex engine a compile uses.
#[derive(Clone, Copy)]
pub(super) enum Engine {
    /// `regex`: linear time in the input, no look-around.
    Linear,
    /// `fancy-regex`: backtracking. Only to tell whether a pattern the
    /// linear engine rejects is valid; such a compile is never run.
    Backtracking,
}

/// Compiles `schema` with `engine`, for its errors alone.
pub(super) fn compile(
    schema: &Value,
    draft: Draft,
    engine: Engine,
) -> Result<(), ValidationError<'static>> {
    build(schema, draft, engine).map(drop)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Compiles that share a pattern get what each would alone: the
    /// same verdicts on arguments, the same refusal of a pattern the
    /// linear engine does not run, however many compiles came before.
    #[test]
    fn a_shared_pattern_is_invisible_in_results() {
        let schema = |extra: &str| {
            json!({"type": "object", "properties": {
                "lang": {"type": "string", "pattern": "^[a-z]{2}(-[A-Z]{2})?$"},
                extra: {"type": "string"}
            }})
        };
        for n in 0..3 * PATTERNS_SHARED_BY / 2 {
            let validator = build(
                &schema(&format!("p{n}")),
                Draft::Draft202012,
                Engine::Linear,
            )
            .expect("compiles");
            assert!(validator.is_valid(&json!({"lang": "en-GB"})), "compile {n}");
            assert!(
                !validator.is_valid(&json!({"lang": "english"})),
                "compile {n}"
            );
        }
        let lookaround = json!({"type": "string", "pattern": "^(?!x)a"});
        let first = build(&lookaround, Draft::Draft202012, Engine::Linear)
            .err()
            .map(|e| e.to_string());
        let again = build(&lookaround, Draft::Draft202012, Engine::Linear)
            .err()
            .map(|e| e.to_string());
        assert!(first.is_some(), "the linear engine runs no lookaround");
        assert_eq!(first, again);
        let backtracking = build(&lookaround, Draft::Draft202012, Engine::Backtracking)
            .expect("the backtracking engine does");
        assert!(backtracking.is_valid(&json!("ab")));
        assert!(!backtracking.is_valid(&json!("xa")));
    }
}
