//! A tool's `parameters`: a JSON Schema that is valid for its draft,
//! compiles without leaving the document, and describes an object.
//!
//! `parameters` is user data (README, "Hostile input"): nothing here fetches a
//! `$ref` or `$schema` from the network or the disk (`jsonschema` is built
//! without its HTTP and file features and every compile is `.offline()`),
//! patterns are compiled with the linear-time `regex` engine under size
//! limits and never run (one it rejects is compiled again by the
//! backtracking engine, still never run, only to tell look-around from a
//! syntax error), and an unknown `$schema` never reaches `jsonschema`'s
//! meta-schema lookup, which panics when it cannot resolve one.
//!
//! Order of the checks, so that each cause is reported once:
//! 1. the dialect, from the root `$schema` (`tool-parameters-unknown-draft`
//!    or, for a custom meta-schema by URL, `tool-parameters-remote-ref`);
//! 2. references that leave `parameters` (`tool-parameters-remote-ref`);
//! 3. meta-validation against the dialect's meta-schema, then, when that
//!    passes, an offline compile of a copy without the references of step 2
//!    (`tool-parameters-invalid-schema`); a schema with nothing to leave
//!    out of the copy is compiled first, and when it compiles it is
//!    meta-valid (the compile meta-validates it against the same
//!    meta-schema) and its compile is kept for the arguments of calls;
//! 4. the root describes an object (`tool-parameters-not-object`).
//!
//! Each job has its file: the rules' metadata ([`rules`]), the dialect
//! ([`dialect`]), meta-validation ([`meta`]), patterns ([`patterns`]), the
//! offline compile ([`compile`]) and the object root ([`object_root`]);
//! this file runs them in that order and caches what they find.

mod bounds;
mod compile;
mod dialect;
mod meta;
mod object_root;
mod patterns;
pub(crate) mod rules;

use crate::diagnostic::Diagnostic;
use crate::limits::values_over;
use crate::pointer;
use crate::rules::tools::references::{self, Target};
use crate::rules::tools::{cache, cost};
use crate::rules::walk::Node;
use crate::Protocol;
use serde_json::{Map, Value};

use bounds::*;
use compile::*;
use dialect::*;
use meta::*;
use object_root::*;
use patterns::*;
use rules::*;

pub(super) use rules::{
    TOOL_PARAMETERS_INVALID_SCHEMA, TOOL_PARAMETERS_NOT_OBJECT, TOOL_PARAMETERS_REMOTE_REF,
    TOOL_PARAMETERS_TOO_COMPLEX, TOOL_PARAMETERS_TOO_LARGE, TOOL_PARAMETERS_UNKNOWN_DRAFT,
    TOOL_PARAMETERS_UNSUPPORTED_PATTERN,
};

/// Checks the `parameters` of `tool`: once per distinct schema, whose
/// findings are then placed under this tool's pointer. A schema of more
/// than `budget` values is reported and neither meta-validated nor
/// compiled.
pub(super) fn check_tool(
    tool: &Node<'_>,
    protocol: Protocol,
    budget: usize,
    out: &mut Vec<Diagnostic>,
) {
    let Some(parameters) = tool.child("parameters") else {
        return;
    };
    let empty = parameters.value.as_object().is_some_and(Map::is_empty);
    if declare_nothing(protocol, empty) {
        return;
    }
    check_parameters(parameters.value, &parameters.pointer, budget, out);
}

/// Whether `parameters` (an empty object when `empty_object`) declares no
/// arguments at all, so that no parameters rule applies: since 1.0 "an
/// absent schema and an empty one mean the same thing to an agent" (the 1.1
/// schema's `Tool.parameters`), and no tool without `parameters` is
/// reported. Pre-1.0, `{}` is a schema like any other.
pub(crate) fn declare_nothing(protocol: Protocol, empty_object: bool) -> bool {
    protocol.is_1x() && empty_object
}

/// The findings about `parameters`, whose pointer is `base`; returns the
/// cache entry of `parameters` when it has one (a schema within the depth
/// and the budget), which the arguments of calls are then checked with.
pub(super) fn check_parameters(
    parameters: &Value,
    base: &str,
    budget: usize,
    out: &mut Vec<Diagnostic>,
) -> Option<std::sync::Arc<cache::Compiled>> {
    // Cloning, comparing and dropping a schema recurses: one too deep for
    // that is checked (and refused) without the cache.
    if deeper_than(parameters, MAX_DEPTH) {
        check_schema(parameters, base, out);
        return None;
    }
    if let Some(count) = values_over(parameters, budget) {
        out.push(
            TOOL_PARAMETERS_TOO_LARGE
                .diagnostic(base, format!("parameters has more than {budget} values ({count} counted before stopping)"))
                .with_help("it was not meta-validated or compiled, nor were the arguments of calls to it checked; raise --max-tool-schema-nodes (max-tool-schema-nodes under [limits]) if it is expected"),
        );
        return None;
    }
    let compiled = cache::lookup(parameters);
    let findings = compiled.findings.get_or_init(|| {
        let mut findings = Vec::new();
        let arguments = check_schema(&compiled.schema, "", &mut findings);
        // The check's compile, when it compiled the schema as the
        // arguments of calls are checked against it, is kept for them.
        if let Some(arguments) = arguments {
            let _ = compiled.arguments.set(arguments);
        }
        findings
    });
    // The entry's findings are its first schema's; a finding may quote a
    // subschema, annotations and all, so another schema of the entry with
    // findings has them made anew.
    if !findings.is_empty() && compiled.schema != *parameters {
        check_schema(parameters, base, out);
        return Some(compiled);
    }
    out.extend(findings.iter().map(|finding| {
        let mut finding = finding.clone();
        finding.pointer.insert_str(0, base);
        for related in &mut finding.related {
            related.pointer.insert_str(0, base);
        }
        finding
    }));
    Some(compiled)
}

/// `entry` with its validator for arguments made, when not made yet.
pub(in crate::rules) fn with_arguments(
    entry: std::sync::Arc<cache::Compiled>,
) -> std::sync::Arc<cache::Compiled> {
    entry
        .arguments
        .get_or_init(|| arguments_validator(&entry.schema));
    entry
}

/// The compiled validator for arguments of a tool with `schema` as its
/// `parameters`, shared with every other tool of the same schema.
pub(in crate::rules) fn cached_arguments_validator(
    schema: &Value,
    budget: usize,
) -> std::sync::Arc<crate::rules::tools::cache::Compiled> {
    if deeper_than(schema, MAX_DEPTH) || values_over(schema, budget).is_some() {
        // Never compiled (see `arguments_validator` and `check_tool`), and
        // not cached.
        let compiled = crate::rules::tools::cache::Compiled::default();
        compiled.arguments.get_or_init(|| None);
        return std::sync::Arc::new(compiled);
    }
    let compiled = cache::lookup(schema);
    compiled
        .arguments
        .get_or_init(|| arguments_validator(&compiled.schema));
    compiled
}

/// Checks the `parameters` schema `schema`, whose pointer is `base`;
/// returns what arguments of calls are checked with when the check
/// compiled the schema as [`arguments_validator`] would (as given, nothing
/// removed, with the linear engine), so that it is not compiled again;
/// `None` when it did not compile it so.
fn check_schema(
    schema: &Value,
    base: &str,
    out: &mut Vec<Diagnostic>,
) -> Option<Option<cache::Arguments>> {
    let root_meta = match schema.get("$schema") {
        Some(value) => {
            let meta = classify(value);
            report_meta_schema(meta, value, &pointer::push(base, "$schema"), true, out);
            meta
        }
        None => MetaSchema::Draft(DEFAULT_DRAFT),
    };
    let draft = match root_meta {
        MetaSchema::Draft(draft) => Some(draft),
        _ => None,
    };

    let scan = references::scan(schema, draft.unwrap_or(DEFAULT_DRAFT));
    for reference in &scan.references {
        if let Target::Outside(outside) = &reference.target {
            out.push(remote_reference(reference, *outside, base));
        }
    }
    let mut other_dialect_inside = false;
    for (at, value) in &scan.nested_schemas {
        let meta = classify(value);
        if let MetaSchema::Draft(nested) = meta {
            other_dialect_inside |= Some(nested) != draft;
        }
        report_meta_schema(meta, value, &format!("{base}{at}"), false, out);
    }

    let mut meta_errors: Vec<String> = Vec::new();
    let mut arguments = None;
    let too_deep = deeper_than(schema, MAX_DEPTH);
    if too_deep {
        out.push(
            TOOL_PARAMETERS_TOO_COMPLEX
                .diagnostic(base, format!("parameters is nested more than {MAX_DEPTH} levels deep, deeper than agui-lint checks"))
                .with_help("the schema was not meta-validated or compiled, nor were the arguments of calls to this tool checked; no real tool schema nests this deep"),
        );
    }
    if let Some(draft) = draft.filter(|_| !too_deep) {
        // `arguments_validator` compiles only a schema of its own dialect
        // with no reference leaving it, as given.
        let as_given = scan.nested_schemas.is_empty()
            && !scan
                .references
                .iter()
                .any(|r| matches!(r.target, Target::Outside(_)));
        // Such a schema that compiles is meta-valid (the compile checks it
        // against the same meta-schema first), has nothing the compile
        // would find, and its compile is the one its calls' arguments are
        // checked with: a schema seen for the first time is compiled and
        // meta-validated once. Any other is checked step by step below.
        let compiled = if as_given && scan.needs_compile {
            build(schema, draft, Engine::Linear).ok()
        } else {
            None
        };
        if let Some(validator) = compiled {
            let graph = cost::Graph::of(schema, draft);
            // Fan-out needs references; a schema without any applies at
            // most as many subschemas as it has.
            if !scan.references.is_empty() {
                if let Some(finding) = complexity_of(graph.as_ref(), base) {
                    out.push(finding);
                }
            }
            arguments = Some(arguments_with(graph, validator));
        } else {
            check_step_by_step(
                schema,
                base,
                draft,
                &scan,
                other_dialect_inside,
                &mut meta_errors,
                out,
            );
        }
    }

    check_object_root(schema, base, &meta_errors, out);
    arguments
}

/// Meta-validation, then the offline compile with each problem it stops
/// at explained (see the module's order of checks), for a schema of
/// dialect `draft` that did not compile as given.
fn check_step_by_step(
    schema: &Value,
    base: &str,
    draft: jsonschema::Draft,
    scan: &references::Scan<'_>,
    other_dialect_inside: bool,
    meta_errors: &mut Vec<String>,
    out: &mut Vec<Diagnostic>,
) {
    // An embedded resource of another draft is checked against its own
    // meta-schema by `jsonschema`'s compile; checking the whole document
    // against the root's would report keywords of the other draft.
    if !other_dialect_inside {
        for (at, diagnostic) in meta_validate(schema, draft, base) {
            meta_errors.push(at);
            out.push(diagnostic);
        }
    }
    // The compile costs more than the rest together (it builds a registry
    // and a validator); most tool schemas have nothing only it can find.
    if !meta_errors.is_empty() || !scan.needs_compile {
        return;
    }
    let mut copy = without_outside_references(schema, scan);
    let compiled = compile_problems(&mut copy, draft);
    let compiles = compiled.problems.is_empty();
    for (at, message, help) in compiled.problems {
        out.push(
            TOOL_PARAMETERS_INVALID_SCHEMA
                .diagnostic(format!("{base}{at}"), message)
                .with_help(help),
        );
    }
    for (at, why) in &compiled.unsupported {
        out.push(unsupported_pattern(schema, at, *why, base));
    }
    // Fan-out needs references; a schema without any applies at most as
    // many subschemas as it has.
    if compiles && !scan.references.is_empty() {
        if let Some(finding) = complexity(&copy, draft, base) {
            out.push(finding);
        }
    }
}

#[cfg(test)]
mod tests {
    use std::time::{Duration, Instant};

    use serde_json::json;

    use jsonschema::Draft;

    use super::*;
    use crate::rules::tools::references::Outside;
    use crate::rules::walk::Document;
    use crate::Kind;

    /// The findings for a tool document whose parameters is `parameters`.
    fn run(parameters: Value) -> Vec<Diagnostic> {
        run_on(&tool(parameters))
    }

    /// A tool with `parameters`; built by hand, as `json!` would serialize
    /// `parameters` again, recursively.
    fn tool(parameters: Value) -> Value {
        let mut tool = serde_json::Map::new();
        tool.insert("name".to_string(), json!("t"));
        tool.insert("description".to_string(), json!("d"));
        tool.insert("parameters".to_string(), parameters);
        Value::Object(tool)
    }

    fn run_on(tool: &Value) -> Vec<Diagnostic> {
        let document = Document {
            kind: Kind::Tool,
            root: tool,
            limits: crate::Limits::default(),
            protocol: crate::Protocol::V0,
        };
        let mut out = Vec::new();
        for tools in document.tool_lists() {
            for tool in &tools {
                check_tool(
                    tool,
                    document.protocol,
                    document.limits.max_tool_schema_nodes,
                    &mut out,
                );
            }
        }
        out
    }

    fn findings(parameters: Value) -> Vec<(String, String)> {
        run(parameters)
            .into_iter()
            .map(|d| (d.rule, d.pointer))
            .collect()
    }

    fn pair(rule: &str, pointer: &str) -> (String, String) {
        (rule.to_string(), pointer.to_string())
    }

    #[test]
    fn a_plain_object_schema_is_clean() {
        assert!(run(json!({"type": "object", "properties": {"a": {"type": "string"}}})).is_empty());
    }

    #[test]
    fn weird_schema_values_never_panic() {
        let values = [
            json!(42),
            json!(null),
            json!(""),
            json!("#"),
            json!("http://json-schema.org/draft-07/schema"),
            json!("https://json-schema.org/draft-07/schema#"),
            json!("HTTP://JSON-SCHEMA.ORG/draft-07/schema#"),
            json!("https://json-schema.org/draft/2020-12/schema#"),
            json!("http://json-schema.org/draft/2019-09/schema"),
            json!("http://json-schema.org/draft-04/schema#"),
            json!("http://json-schema.org/draft-06/schema"),
            json!("http://json-schema.org/draft-03/schema#"),
            json!("https://json-schema.org/schema"),
            json!("https://json-schema.org/draft/2020-12/schema##"),
            json!("https://json-schema.org/draft/2020-12/schema#/x"),
            json!("https://example.com/meta#"),
            json!("http://127.0.0.1:1/x.json"),
            json!("file:///etc/passwd"),
            json!("urn:example:meta"),
            json!("draft-07"),
            json!("http://[bad"),
            json!("\u{0}"),
            json!(["https://json-schema.org/draft/2020-12/schema"]),
            json!({"$ref": "#"}),
        ];
        for value in values {
            let root = run(json!({"$schema": value.clone(), "type": "object"}));
            let nested = run(json!({
                "type": "object",
                "properties": {"a": {"$id": "https://example.com/a", "$schema": value.clone()}}
            }));
            for d in root.iter().chain(&nested) {
                assert!(!d.message.ends_with('.'), "{value}: {}", d.message);
            }
        }
    }

    #[test]
    fn schema_uris_are_classified() {
        for (uri, draft) in [
            (
                "https://json-schema.org/draft/2020-12/schema",
                Draft::Draft202012,
            ),
            (
                "http://json-schema.org/draft/2020-12/schema#",
                Draft::Draft202012,
            ),
            (
                "https://json-schema.org/draft/2019-09/schema",
                Draft::Draft201909,
            ),
            ("http://json-schema.org/draft-07/schema#", Draft::Draft7),
            ("https://json-schema.org/draft-07/schema", Draft::Draft7),
            ("http://json-schema.org/draft-06/schema#", Draft::Draft6),
            ("http://json-schema.org/draft-04/schema#", Draft::Draft4),
        ] {
            assert_eq!(classify(&json!(uri)), MetaSchema::Draft(draft), "{uri}");
        }
        for uri in [
            json!("http://json-schema.org/draft-03/schema#"),
            json!("https://json-schema.org/schema"),
            json!("draft-07"),
            json!(""),
            json!("urn:x"),
            json!(7),
        ] {
            assert_eq!(classify(&uri), MetaSchema::Unknown, "{uri}");
        }
        assert_eq!(
            classify(&json!("https://example.com/meta")),
            MetaSchema::Outside(Outside::Network)
        );
        assert_eq!(
            classify(&json!("file:///meta.json")),
            MetaSchema::Outside(Outside::File)
        );
    }

    #[test]
    fn unknown_draft_skips_meta_validation_and_compile() {
        let out = run(json!({
            "$schema": "http://json-schema.org/draft-03/schema#",
            "type": "object",
            "properties": {"a": {"type": "strin", "$ref": "#/nope"}}
        }));
        let rules: Vec<_> = out.iter().map(|d| d.rule.as_str()).collect();
        assert_eq!(
            rules,
            [crate::rules::tools::parameters::rules::TOOL_PARAMETERS_UNKNOWN_DRAFT.name]
        );
        assert!(out[0]
            .help
            .as_deref()
            .is_some_and(|h| h.contains("not meta-validated")));
    }

    #[test]
    fn unknown_draft_suggests_the_uri() {
        let out = run(json!({"$schema": "draft-07", "type": "object"}));
        assert_eq!(out.len(), 1);
        assert!(out[0]
            .help
            .as_deref()
            .is_some_and(|h| h.contains("'http://json-schema.org/draft-07/schema#'")));
        let out = run(json!({"$schema": 42, "type": "object"}));
        assert_eq!(
            out[0].message,
            "'$schema' is number 42, not a URI naming a draft"
        );
    }

    #[test]
    fn remote_schema_is_a_remote_ref_not_an_unknown_draft() {
        assert_eq!(
            findings(json!({"$schema": "http://127.0.0.1:1/x.json", "type": "object"})),
            [pair(
                crate::rules::tools::parameters::rules::TOOL_PARAMETERS_REMOTE_REF.name,
                "/parameters/$schema"
            )]
        );
    }

    #[test]
    fn meta_errors_point_inside_parameters() {
        let out = run(json!({
            "type": "object",
            "properties": {"a": {"type": "strin"}, "b": {"minLength": -1}},
            "required": "a"
        }));
        let got: Vec<_> = out
            .iter()
            .map(|d| (d.pointer.as_str(), d.message.as_str()))
            .collect();
        assert_eq!(
            got,
            [
                (
                    "/parameters/properties/a/type",
                    "'type' is string 'strin', not one of the allowed values"
                ),
                (
                    "/parameters/properties/b/minLength",
                    "'minLength' is number -1, less than the minimum of 0"
                ),
                (
                    "/parameters/required",
                    "'required' is string 'a', expected an array"
                ),
            ]
        );
        assert!(out[0]
            .help
            .as_deref()
            .is_some_and(|h| h.contains("did you mean 'string'?")));
    }

    #[test]
    fn the_draft_of_schema_decides_meta_validation() {
        // Valid in draft-04, not in 2020-12 (where exclusiveMinimum is a number).
        let draft4 = json!({
            "$schema": "http://json-schema.org/draft-04/schema#",
            "type": "object",
            "properties": {"n": {"type": "number", "minimum": 0, "exclusiveMinimum": true}}
        });
        assert!(run(draft4).is_empty());
        let draft2020 = json!({
            "type": "object",
            "properties": {"n": {"type": "number", "minimum": 0, "exclusiveMinimum": true}}
        });
        assert_eq!(
            findings(draft2020),
            [pair(
                crate::rules::tools::parameters::rules::TOOL_PARAMETERS_INVALID_SCHEMA.name,
                "/parameters/properties/n/exclusiveMinimum"
            )]
        );
    }

    #[test]
    fn unresolvable_local_refs_are_found_by_the_compile() {
        let out = run(json!({
            "type": "object",
            "properties": {
                "a": {"$ref": "#/nope"},
                "b": {"$ref": "#missing"},
                "c": {"items": {"$ref": "#/$defs/c"}},
                "d": {"$ref": "#/$defs/a%20b"}
            },
            "$defs": {"c": {"type": "string"}, "a b": {}}
        }));
        let got: Vec<_> = out
            .iter()
            .map(|d| (d.rule.as_str(), d.pointer.as_str(), d.message.as_str()))
            .collect();
        assert_eq!(
            got,
            [
                (
                    crate::rules::tools::parameters::rules::TOOL_PARAMETERS_INVALID_SCHEMA.name,
                    "/parameters/properties/a/$ref",
                    "'$ref' '#/nope' points at nothing in parameters"
                ),
                (
                    crate::rules::tools::parameters::rules::TOOL_PARAMETERS_INVALID_SCHEMA.name,
                    "/parameters/properties/b/$ref",
                    "'$ref' '#missing' names anchor 'missing', which no subschema declares"
                ),
            ]
        );
    }

    #[test]
    fn nested_refs_and_ids_resolve_inside_parameters() {
        let schema = json!({
            "$id": "https://example.com/trip.json",
            "type": "object",
            "properties": {
                "from": {"$ref": "#/$defs/place"},
                "to": {"$ref": "https://example.com/trip.json#/$defs/place"},
                "via": {"type": "array", "items": {"$ref": "#place"}},
                "tree": {"$ref": "#/$defs/node"}
            },
            "$defs": {
                "place": {"$anchor": "place", "type": "object", "properties": {"city": {"type": "string"}}},
                "node": {"type": "object", "properties": {"children": {"type": "array", "items": {"$ref": "#/$defs/node"}}}}
            }
        });
        assert!(run(schema).is_empty());
    }

    #[test]
    fn remote_refs_are_reported_once_and_the_rest_still_compiles() {
        let out = run(json!({
            "type": "object",
            "properties": {
                "a": {"$ref": "http://127.0.0.1:1/x.json"},
                "b": {"$ref": "other.json"},
                "c": {"$ref": "#/nope"}
            }
        }));
        let got: Vec<_> = out
            .iter()
            .map(|d| (d.rule.as_str(), d.pointer.as_str()))
            .collect();
        assert_eq!(
            got,
            [
                (
                    crate::rules::tools::parameters::rules::TOOL_PARAMETERS_REMOTE_REF.name,
                    "/parameters/properties/a/$ref"
                ),
                (
                    crate::rules::tools::parameters::rules::TOOL_PARAMETERS_REMOTE_REF.name,
                    "/parameters/properties/b/$ref"
                ),
                (
                    crate::rules::tools::parameters::rules::TOOL_PARAMETERS_INVALID_SCHEMA.name,
                    "/parameters/properties/c/$ref"
                ),
            ]
        );
    }

    #[test]
    fn invalid_patterns_are_reported_where_they_are() {
        let out = run(json!({
            "type": "object",
            "properties": {"a": {"type": "string", "pattern": "(a+"}, "b": {"pattern": "[z-a]"}},
            "patternProperties": {"^x/(": {}}
        }));
        let got: Vec<_> = out
            .iter()
            .map(|d| (d.pointer.as_str(), d.message.as_str()))
            .collect();
        assert_eq!(
            got,
            [
                (
                    "/parameters/properties/a/pattern",
                    "'pattern' '(a+' is not a valid regular expression"
                ),
                (
                    "/parameters/properties/b/pattern",
                    "'pattern' '[z-a]' is not a valid regular expression"
                ),
                (
                    "/parameters/patternProperties/^x~1(",
                    "'patternProperties' key '^x/(' is not a valid regular expression"
                ),
            ]
        );
    }

    #[test]
    fn draft_07_meta_validation_reports_a_bad_pattern_once() {
        assert_eq!(
            findings(json!({
                "$schema": "http://json-schema.org/draft-07/schema#",
                "type": "object",
                "properties": {"a": {"pattern": "(a+"}}
            })),
            [pair(
                crate::rules::tools::parameters::rules::TOOL_PARAMETERS_INVALID_SCHEMA.name,
                "/parameters/properties/a/pattern"
            )]
        );
    }

    #[test]
    fn look_around_patterns_are_valid_and_said_to_be_unchecked() {
        let schema = json!({
            "type": "object",
            "properties": {
                "password": {"type": "string", "pattern": "^(?=.*\\d)(?=.*[a-z]).{8,}$"},
                "word": {"type": "string", "pattern": "^(?!tmp_)\\w+$"},
                "twice": {"type": "string", "pattern": "^(a)\\1$"}
            }
        });
        let out = run(schema.clone());
        // Valid ECMA-262: no `invalid-schema`, but each is said to be left
        // out of the arguments' check.
        let mut found: Vec<(String, String)> = out
            .iter()
            .map(|d| (d.rule.clone(), d.pointer.clone()))
            .collect();
        found.sort();
        assert_eq!(
            found,
            [
                pair(
                    crate::rules::tools::parameters::rules::TOOL_PARAMETERS_UNSUPPORTED_PATTERN
                        .name,
                    "/parameters/properties/password/pattern"
                ),
                pair(
                    crate::rules::tools::parameters::rules::TOOL_PARAMETERS_UNSUPPORTED_PATTERN
                        .name,
                    "/parameters/properties/twice/pattern"
                ),
                pair(
                    crate::rules::tools::parameters::rules::TOOL_PARAMETERS_UNSUPPORTED_PATTERN
                        .name,
                    "/parameters/properties/word/pattern"
                ),
            ]
        );
        assert!(out
            .iter()
            .all(|d| d.message.contains("look-around or a back-reference")));
        // The rest of the schema still checks arguments.
        let arguments = arguments_validator(&schema).expect("compiles without the patterns");
        assert!(!arguments.validator.is_valid(&json!({"word": 3})));
        assert!(arguments.validator.is_valid(&json!({"word": "tmp_x"})));
        // A patternProperties key: no arguments check at all.
        let keyed = json!({"type": "object", "patternProperties": {"^(?=x)": {"type": "string"}},
                           "additionalProperties": false});
        assert!(arguments_validator(&keyed).is_none());
        let out = run(keyed);
        assert_eq!(out.len(), 1, "{out:#?}");
        assert!(
            out[0].message.contains("are not checked"),
            "{}",
            out[0].message
        );
    }

    #[test]
    fn catastrophic_patterns_compile_quickly() {
        let start = Instant::now();
        let out = run(json!({
            "type": "object",
            "properties": {
                "a": {"type": "string", "pattern": "^(a+)+$"},
                "b": {"type": "string", "pattern": "^(a|aa)*b$"},
                "c": {"type": "string", "pattern": "(x+x+)+y"},
                "d": {"type": "string", "pattern": "a{1000}{1000}"}
            }
        }));
        // The last compiles only for a backtracking engine: too large for
        // the linear one, and said so.
        assert_eq!(out.len(), 1, "{out:#?}");
        assert_eq!(out[0].pointer, "/parameters/properties/d/pattern");
        assert!(out[0]
            .message
            .contains("more than agui-lint's regex engine takes"));
        assert!(
            start.elapsed() < Duration::from_secs(5),
            "{:?}",
            start.elapsed()
        );
    }

    #[test]
    fn huge_patterns_compile_within_limits() {
        let start = Instant::now();
        let out = run(json!({
            "type": "object",
            "properties": {
                "a": {"type": "string", "pattern": "(?=(a{1000}){1000})x"},
                "b": {"type": "string", "pattern": "((a{100}){100}){100}(?=b)"},
                "c": {"type": "string", "pattern": "(\\w{1000}){1000}(?!x)"},
                "d": {"type": "string", "pattern": "(\\p{L}{500}){500}"},
                "e": {"type": "string", "pattern": "^(a{1000}){1000}$"}
            }
        }));
        let elapsed = start.elapsed();
        assert!(elapsed < Duration::from_secs(5), "{elapsed:?}");
        // Valid patterns, declined for their size: never invalid-schema.
        let messages: Vec<_> = out
            .iter()
            .map(|d| (d.rule.as_str(), d.message.as_str()))
            .collect();
        let declined = |pattern: &str| {
            format!("pattern {pattern} compiles to more than agui-lint's regex engine takes (1024 KiB, a limit set so that a pattern cannot exhaust a server): arguments are checked without it")
        };
        let unsupported = TOOL_PARAMETERS_UNSUPPORTED_PATTERN.name;
        assert_eq!(
            messages,
            [
                (unsupported, declined("'(?=(a{1000}){1000})x'").as_str()),
                (
                    unsupported,
                    declined("'((a{100}){100}){100}(?=b)'").as_str()
                ),
                (unsupported, declined("'(\\w{1000}){1000}(?!x)'").as_str()),
                (unsupported, declined("'(\\p{L}{500}){500}'").as_str()),
                (unsupported, declined("'^(a{1000}){1000}$'").as_str()),
            ]
        );
    }

    #[test]
    fn counted_repetitions_shrink_outside_classes_and_escapes() {
        assert_eq!(
            shrink_counts("a{1000}b{2,}c{3,9}").as_deref(),
            Some("a{1}b{1,}c{1,1}")
        );
        assert_eq!(shrink_counts("\\{1000}[{5}]\\p{L}"), None);
        assert_eq!(shrink_counts("a{9,3}"), None);
        assert_eq!(
            shrink_counts("a{99999999999999999999999999999999999999999}").as_deref(),
            Some("a{1}")
        );
        assert_eq!(shrink_counts("{"), None);
        assert_eq!(shrink_counts("é{2}"), Some("é{1}".to_string()));
    }

    #[test]
    fn compile_rounds_are_bounded() {
        let properties: serde_json::Map<String, Value> = (0..40)
            .map(|i| (format!("p{i}"), json!({"$ref": format!("#/nope{i}")})))
            .collect();
        let out = run(json!({"type": "object", "properties": properties}));
        assert_eq!(out.len(), MAX_COMPILE_ROUNDS + 1);
        assert_eq!(out[MAX_COMPILE_ROUNDS].pointer, "/parameters");
    }

    #[test]
    fn boolean_and_non_object_roots() {
        assert_eq!(
            findings(json!(true)),
            [pair(
                crate::rules::tools::parameters::rules::TOOL_PARAMETERS_NOT_OBJECT.name,
                "/parameters"
            )]
        );
        assert_eq!(
            findings(json!(false)),
            [pair(
                crate::rules::tools::parameters::rules::TOOL_PARAMETERS_NOT_OBJECT.name,
                "/parameters"
            )]
        );
        for not_a_schema in [json!(null), json!("object"), json!(3), json!([])] {
            assert_eq!(
                findings(not_a_schema.clone()),
                [pair(
                    crate::rules::tools::parameters::rules::TOOL_PARAMETERS_INVALID_SCHEMA.name,
                    "/parameters"
                )],
                "{not_a_schema}"
            );
        }
    }

    #[test]
    fn not_object_edge_cases() {
        assert_eq!(
            findings(json!({"properties": {"a": {}}})),
            [pair(
                crate::rules::tools::parameters::rules::TOOL_PARAMETERS_NOT_OBJECT.name,
                "/parameters"
            )]
        );
        assert_eq!(
            findings(json!({})),
            [pair(
                crate::rules::tools::parameters::rules::TOOL_PARAMETERS_NOT_OBJECT.name,
                "/parameters"
            )]
        );
        for types in [json!(["object", "null"]), json!(["object"]), json!("array")] {
            assert_eq!(
                findings(json!({ "type": types })),
                [pair(
                    crate::rules::tools::parameters::rules::TOOL_PARAMETERS_NOT_OBJECT.name,
                    "/parameters/type"
                )]
            );
        }
        // A `type` that is no type at all is one finding, of the schema.
        assert_eq!(
            findings(json!({"type": "objet"})),
            [pair(
                crate::rules::tools::parameters::rules::TOOL_PARAMETERS_INVALID_SCHEMA.name,
                "/parameters/type"
            )]
        );
        // A root `$ref` to an object schema still lacks the root type.
        assert_eq!(
            findings(json!({"$ref": "#/$defs/a", "$defs": {"a": {"type": "object"}}})),
            [pair(
                crate::rules::tools::parameters::rules::TOOL_PARAMETERS_NOT_OBJECT.name,
                "/parameters"
            )]
        );
    }

    #[test]
    fn too_deep_schemas_are_reported_not_compiled() {
        let mut deep = json!({"$ref": "#/nope"});
        for _ in 0..10_000 {
            // Not `json!`, which would serialize the nested value recursively.
            let mut wrapper = serde_json::Map::new();
            wrapper.insert("not".to_string(), deep);
            deep = Value::Object(wrapper);
        }
        let mut parameters = serde_json::Map::new();
        parameters.insert("type".to_string(), json!("object"));
        parameters.insert("properties".to_string(), json!({}));
        parameters.insert("allOf".to_string(), Value::Array(vec![deep]));
        let tool = tool(Value::Object(parameters));
        let out = run_on(&tool);
        let got: Vec<_> = out
            .iter()
            .map(|d| (d.rule.as_str(), d.pointer.as_str()))
            .collect();
        assert_eq!(
            got,
            [(
                crate::rules::tools::parameters::rules::TOOL_PARAMETERS_TOO_COMPLEX.name,
                "/parameters"
            )]
        );
        assert!(out[0].message.contains("more than 128 levels"));
        // Dropping a deep Value recurses inside serde_json (not our code).
        std::mem::forget(tool);
    }

    #[test]
    fn depth_is_measured_exactly() {
        assert!(!deeper_than(&json!({"a": [1]}), 2));
        assert!(deeper_than(&json!({"a": [[1]]}), 2));
    }

    #[test]
    fn refs_inside_data_keywords_are_not_references() {
        assert!(run(json!({
            "type": "object",
            "properties": {"$ref": {"type": "string", "default": "x"}},
            "examples": [{"$ref": "http://example.com/x"}]
        }))
        .is_empty());
    }

    #[test]
    fn messages_never_echo_huge_values() {
        let huge = "x".repeat(100_000);
        for d in run(
            json!({"type": "object", "properties": {"a": {"type": huge.clone(), "pattern": "("}}}),
        ) {
            assert!(d.message.len() < 300, "{}", d.message.len());
        }
        for d in run(
            json!({"$schema": huge.clone(), "type": "object", "properties": {"b": {"$ref": huge}}}),
        ) {
            assert!(d.message.len() < 300, "{}", d.message.len());
        }
    }
}
