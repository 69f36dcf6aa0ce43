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
//!    (`tool-parameters-invalid-schema`);
//! 4. the root describes an object (`tool-parameters-not-object`).

use jsonschema::error::ValidationErrorKind;
use jsonschema::{Draft, PatternOptions, ReferencingError, ValidationError};
use serde_json::{json, Map, Value};
use url::Url;

use super::cache;
use super::cost;
use super::references::{self, Outside, Reference, Target};
use crate::diagnostic::{Diagnostic, Severity};
use crate::limits::values_over;
use crate::pointer;
use crate::rules::walk::Node;
use crate::rules::Rule;
use crate::rules::EVERY_VERSION;
use crate::text::{describe, expected_types, preview, quote};
use crate::Protocol;

pub(super) const TOOL_PARAMETERS_INVALID_SCHEMA: Rule = Rule {
    name: "tool-parameters-invalid-schema",
    severity: Severity::Error,
    protocols: EVERY_VERSION,
    severity_1x: None,
    summary: "A tool's parameters is not a valid JSON Schema",
    docs: r##"## What it checks
That a tool's `parameters` is a valid JSON Schema of its draft: the draft
its `$schema` names (2020-12 when there is none; 2019-09, draft-07,
draft-06 and draft-04 are also supported), checked against that draft's
meta-schema. When that passes, the schema is also compiled, offline, which
finds what the meta-schema cannot: a local `$ref` that points at nothing
(`"#/$defs/missing"`, an undeclared anchor) and a `pattern` or
`patternProperties` key that is not a regular expression. Each problem
points at its place inside `parameters`.

Patterns are compiled with a linear-time engine and never run. A pattern
only a backtracking engine supports (look-around, back-references) is
valid JSON Schema and is not reported; one whose compiled form exceeds
1 MiB (large nested repetition counts) is reported as too large. A schema
nested more than 128 levels deep is reported and not compiled.

## Why it matters
The agent hands `parameters` to its model provider, which rejects an
invalid schema and fails the run; a client or agent that validates tool
arguments against it fails too.

## Invalid
```json
{"name": "get_weather", "description": "Current weather",
 "parameters": {"type": "object",
                "properties": {"city": {"type": "strin"},
                               "unit": {"$ref": "#/$defs/unit"}}}}
```

## Valid
```json
{"name": "get_weather", "description": "Current weather",
 "parameters": {"type": "object",
                "properties": {"city": {"type": "string"},
                               "unit": {"$ref": "#/$defs/unit"}},
                "$defs": {"unit": {"enum": ["celsius", "fahrenheit"]}}}}
```
"##,
};

pub(super) const TOOL_PARAMETERS_REMOTE_REF: Rule = Rule {
    name: "tool-parameters-remote-ref",
    severity: Severity::Error,
    protocols: EVERY_VERSION,
    severity_1x: None,
    summary: "A tool's parameters refers to a schema outside itself",
    docs: r##"## What it checks
That every `$ref`, `$dynamicRef` and `$recursiveRef` in a tool's
`parameters` stays inside it: a `#...` fragment, or a URI that an `$id`
inside `parameters` declares. A reference to an `http://`, `https://` or
`file://` URI, to another scheme (`urn:`), or a relative one such as
`"address.json"` (which has no base URI to resolve against) is reported.
So is a `$schema` naming a custom meta-schema by an `http(s)` or `file`
URI. `$schema` naming one of the supported drafts
(`https://json-schema.org/draft/2020-12/schema`,
`https://json-schema.org/draft/2019-09/schema`,
`http://json-schema.org/draft-07/schema#`, draft-06, draft-04; `http` or
`https`, with or without the trailing `#`) is fine.

agui-lint never fetches or reads what is referenced. The rest of the schema
is still checked as if the reference were absent.

## Why it matters
The tool is sent to model providers that do not resolve remote references,
and a peer that does would let a payload make it fetch URLs or read files
(server-side request forgery). A tool's parameters must be self-contained.

## Invalid
```json
{"name": "book_trip", "description": "Book a trip",
 "parameters": {"type": "object",
                "properties": {"to": {"$ref": "https://example.com/address.json"}}}}
```

## Valid
```json
{"name": "book_trip", "description": "Book a trip",
 "parameters": {"type": "object",
                "properties": {"to": {"$ref": "#/$defs/address"}},
                "$defs": {"address": {"type": "object",
                                      "properties": {"city": {"type": "string"}}}}}}
```
"##,
};

pub(super) const TOOL_PARAMETERS_UNKNOWN_DRAFT: Rule = Rule {
    name: "tool-parameters-unknown-draft",
    severity: Severity::Error,
    protocols: EVERY_VERSION,
    severity_1x: None,
    summary: "A tool's parameters names a JSON Schema draft agui-lint does not support",
    docs: r##"## What it checks
That a `$schema` in a tool's `parameters`, when present, names a supported
draft: 2020-12, 2019-09, draft-07, draft-06 or draft-04 by its canonical
URI (`http` or `https`, with or without a trailing `#`). Reported: a
`$schema` that is not a string, not a URI (`"draft-07"`), names another
json-schema.org meta-schema (draft-03, the version-less
`https://json-schema.org/schema`, whose meaning changes with each draft),
or any other non-retrievable URI (`urn:...`). A custom meta-schema at an
`http(s)` or `file` URI is `tool-parameters-remote-ref` instead.

When the root `$schema` is not supported, the tool's parameters are not
meta-validated or compiled: the finding says what was not checked.

## Why it matters
The draft decides what the keywords mean (`exclusiveMinimum`, `items`,
`$id`, ...); a peer that does not know the draft guesses, or rejects the
tool.

## Invalid
```json
{"name": "get_weather", "description": "Current weather",
 "parameters": {"$schema": "http://json-schema.org/draft-03/schema#", "type": "object"}}
```

## Valid
```json
{"name": "get_weather", "description": "Current weather",
 "parameters": {"$schema": "http://json-schema.org/draft-07/schema#", "type": "object"}}
```
"##,
};

pub(super) const TOOL_PARAMETERS_TOO_LARGE: Rule = Rule {
    name: "tool-parameters-too-large",
    severity: Severity::Warning,
    protocols: EVERY_VERSION,
    severity_1x: None,
    summary: "A tool's parameters schema is too large to check",
    docs: r#"## What it checks
Whether a tool's `parameters` holds more JSON values than the compile
budget, `max-tool-schema-nodes` (default 10,000; `--max-tool-schema-nodes`,
or `[limits]` in `agui-lint.toml`). Such a schema is not meta-validated or
compiled, and the arguments of calls to it are not checked: the finding
says what was left unchecked.

## Why it matters
Compiling a schema costs time and memory in proportion to its size; a
validator in front of a server must bound what one request can cost. Real
tool schemas are a few hundred values.

## Invalid
```json
{"name": "huge", "description": "d", "parameters": {"type": "object", "properties": {
  "p0": {"type": "string"}, "p1": {"type": "string"}, "p2": {"type": "string"},
  "p3": {"type": "string"}}}}
```
(standing for a schema with 20,000 such properties)

## Valid
```json
{"name": "search", "description": "d", "parameters": {"type": "object", "properties": {"q": {"type": "string"}}}}
```
"#,
};

pub(super) const TOOL_PARAMETERS_TOO_COMPLEX: Rule = Rule {
    name: "tool-parameters-too-complex",
    severity: Severity::Warning,
    protocols: EVERY_VERSION,
    severity_1x: None,
    summary: "A tool's parameters would check one value against too many subschemas",
    docs: r##"## What it checks
How many subschemas checking one value against a tool's `parameters`
applies through its in-place applicators (`allOf`, `anyOf`, `oneOf`,
`not`, `if`/`then`/`else`) and references: each path through them is
applied, so a chain of `oneOf`s whose branches refer to the same next link
doubles with every link. Past 10,000 the schema is reported and the
arguments of calls to it are not checked. Also reported: a schema whose
references agui-lint cannot follow itself, so that it cannot bound what a
check against it costs (the arguments are not checked then either).

Every call is also held to a budget of its own, counted on its arguments
before they are checked (`tool-arguments-unchecked`).

## Why it matters
A 2 KB schema of 24 such links asks a validator to apply 16 million
subschemas to one argument: enough to exhaust a server's memory. A
validator in front of a server must not run what it cannot bound; no real
tool schema fans out this far.

## Invalid
```json
{"name": "f", "description": "d", "parameters": {"type": "object",
  "properties": {"x": {"$ref": "#/$defs/a0"}},
  "$defs": {
    "a0": {"anyOf": [{"$ref": "#/$defs/a1"}, {"$ref": "#/$defs/a1"}, {"$ref": "#/$defs/a1"}, {"$ref": "#/$defs/a1"}]},
    "a1": {"anyOf": [{"$ref": "#/$defs/a2"}, {"$ref": "#/$defs/a2"}, {"$ref": "#/$defs/a2"}, {"$ref": "#/$defs/a2"}]},
    "a2": {"anyOf": [{"$ref": "#/$defs/a3"}, {"$ref": "#/$defs/a3"}, {"$ref": "#/$defs/a3"}, {"$ref": "#/$defs/a3"}]},
    "a3": {"anyOf": [{"$ref": "#/$defs/a4"}, {"$ref": "#/$defs/a4"}, {"$ref": "#/$defs/a4"}, {"$ref": "#/$defs/a4"}]},
    "a4": {"anyOf": [{"$ref": "#/$defs/a5"}, {"$ref": "#/$defs/a5"}, {"$ref": "#/$defs/a5"}, {"$ref": "#/$defs/a5"}]},
    "a5": {"anyOf": [{"$ref": "#/$defs/a6"}, {"$ref": "#/$defs/a6"}, {"$ref": "#/$defs/a6"}, {"$ref": "#/$defs/a6"}]},
    "a6": {"anyOf": [{"$ref": "#/$defs/a7"}, {"$ref": "#/$defs/a7"}, {"$ref": "#/$defs/a7"}, {"$ref": "#/$defs/a7"}]},
    "a7": {"type": "string"}}}}
```

## Valid
```json
{"name": "f", "description": "d", "parameters": {"type": "object",
  "properties": {"x": {"$ref": "#/$defs/a0"}},
  "$defs": {"a0": {"anyOf": [{"type": "string"}, {"type": "number"}]}}}}
```
"##,
};

pub(super) const TOOL_PARAMETERS_UNSUPPORTED_PATTERN: Rule = Rule {
    name: "tool-parameters-unsupported-pattern",
    severity: Severity::Warning,
    protocols: EVERY_VERSION,
    severity_1x: None,
    summary: "A pattern of a tool's parameters uses look-around or a back-reference, which agui-lint does not run",
    docs: r##"## What it checks
Whether a `pattern` or a `patternProperties` key of a tool's `parameters`
uses look-around (`(?=`, `(?!`, `(?<=`, `(?<!`) or a back-reference
(`\1`). They are valid ECMA-262 regular expressions, but agui-lint matches
arguments with a linear-time engine, which has neither: a `pattern` using
them is left out when the arguments of calls are checked (the rest of the
schema still is), and a schema with such a `patternProperties` key is not
used at all (leaving the key out would hand its members to
`additionalProperties`).

## Why it matters
These features are what makes a backtracking engine take exponential time
(`^(a+)+$` against a long run of `a`s): a validator in front of a server
cannot run them on the arguments a model produced. The finding says which
constraint was not enforced, rather than passing it silently.

## Invalid
```json
{"name": "set_password", "description": "d", "parameters": {"type": "object",
  "properties": {"password": {"type": "string", "pattern": "^(?=.*\\d).{8,}$"}}}}
```

## Valid
```json
{"name": "set_password", "description": "d", "parameters": {"type": "object",
  "properties": {"password": {"type": "string", "minLength": 8, "pattern": "\\d"}}}}
```
"##,
};

/// The most subschemas one value may be checked against through in-place
/// applicators and references before a schema is `too-complex`.
const MAX_FAN_OUT: u64 = 10_000;

pub(super) const TOOL_PARAMETERS_NOT_OBJECT: Rule = Rule {
    name: "tool-parameters-not-object",
    severity: Severity::Warning,
    protocols: EVERY_VERSION,
    severity_1x: None,
    summary: "A tool's parameters does not declare \"type\": \"object\" at its root",
    docs: r##"## What it checks
That the root of a tool's `parameters` is an object schema with exactly
`"type": "object"`. Reported:
- no `type` at the root, even with `properties` (or only a `$ref`,
  `allOf`, ... that leads to an object schema);
- another type, or a list of types such as `["object", "null"]` (`null`
  arguments are not a tool call), or even `["object"]`;
- a boolean schema: `true` accepts any value, `false` none.

A `parameters` that is not a schema at all (a string, a number, `null`),
or whose `type` is not a JSON Schema type, is
`tool-parameters-invalid-schema` instead.

## Why it matters
Tool arguments are a JSON object of named parameters. The function-calling
APIs check the root literally: OpenAI rejects a function whose schema root
is not `type: "object"`, and Anthropic requires `"type": "object"` in a
tool's `input_schema`.

## Invalid
```json
{"name": "get_weather", "description": "Current weather",
 "parameters": {"properties": {"city": {"type": "string"}}}}
```

## Valid
```json
{"name": "get_weather", "description": "Current weather",
 "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}}
```
"##,
};

/// The supported drafts by their canonical URI, without scheme and
/// trailing `#`.
const DRAFTS: [(&str, Draft); 5] = [
    ("json-schema.org/draft/2020-12/schema", Draft::Draft202012),
    ("json-schema.org/draft/2019-09/schema", Draft::Draft201909),
    ("json-schema.org/draft-07/schema", Draft::Draft7),
    ("json-schema.org/draft-06/schema", Draft::Draft6),
    ("json-schema.org/draft-04/schema", Draft::Draft4),
];

/// The draft of a `parameters` without `$schema`: the one the spec's
/// examples and the current JSON Schema use.
const DEFAULT_DRAFT: Draft = Draft::Draft202012;

/// Bounds on the size of a compiled pattern (bytes), for both the program
/// and the lazy DFA's cache, so that `a{1000}{1000}` costs no more than a
/// small pattern. `regex` defaults to 10 MiB.
const REGEX_SIZE_LIMIT: usize = 1 << 20;

/// `jsonschema` stops compiling at the first problem; each round reports
/// one and removes it from a copy. Bounded, so that a schema with
/// thousands of problems costs a bounded number of compiles.
const MAX_COMPILE_ROUNDS: usize = 16;

/// The deepest `parameters` handed to `jsonschema`, whose meta-validation
/// and compile recurse. The same as `serde_json`'s parse limit, so only a
/// value built in memory (`Validator::validate_value`) can go deeper.
const MAX_DEPTH: usize = 128;

/// What a `$schema` value names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum MetaSchema {
    /// A supported draft.
    Draft(Draft),
    /// A custom meta-schema that would have to be retrieved (over the
    /// network or from a file).
    Outside(Outside),
    /// Anything else.
    Unknown,
}

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

/// The findings about `parameters`, whose pointer is `base`.
fn check_parameters(parameters: &Value, base: &str, budget: usize, out: &mut Vec<Diagnostic>) {
    // Cloning, comparing and dropping a schema recurses: one too deep for
    // that is checked (and refused) without the cache.
    if deeper_than(parameters, MAX_DEPTH) {
        return check_schema(parameters, base, out);
    }
    if let Some(count) = values_over(parameters, budget) {
        out.push(
            TOOL_PARAMETERS_TOO_LARGE
                .diagnostic(base, format!("parameters has more than {budget} values ({count} counted before stopping)"))
                .with_help("it was not meta-validated or compiled, nor were the arguments of calls to it checked; raise --max-tool-schema-nodes (max-tool-schema-nodes under [limits]) if it is expected"),
        );
        return;
    }
    let compiled = cache::lookup(parameters);
    let findings = compiled.findings.get_or_init(|| {
        let mut findings = Vec::new();
        check_schema(parameters, "", &mut findings);
        findings
    });
    out.extend(findings.iter().map(|finding| {
        let mut finding = finding.clone();
        finding.pointer.insert_str(0, base);
        for related in &mut finding.related {
            related.pointer.insert_str(0, base);
        }
        finding
    }));
}

/// What the fast path needs to know about a tool's `parameters`, read
/// from its source text: whether the full path would report anything in
/// it, how deep it nests, and the validator for arguments of calls.
pub(crate) struct ParametersVerdict {
    /// No finding of any rule falls inside the text: no repeated key, no
    /// unpaired surrogate escape, no non-interoperable number, no finding
    /// of this module within the schema budget it was judged with.
    pub(crate) clean: bool,
    /// How many arrays and objects nest in the text (0 for a scalar).
    pub(crate) depth: usize,
    /// The parsed schema, when the text is clean.
    schema: Option<Value>,
    /// The schema budget the verdict was reached with.
    budget: usize,
    arguments: std::sync::OnceLock<std::sync::Arc<super::cache::Compiled>>,
}

impl ParametersVerdict {
    /// The schema budget the verdict was reached with.
    pub(super) fn budget(&self) -> usize {
        self.budget
    }

    /// The compiled schema that arguments of calls to the tool are
    /// checked against, when the text is clean.
    pub(in crate::rules) fn compiled(&self) -> Option<std::sync::Arc<super::cache::Compiled>> {
        let schema = self.schema.as_ref()?;
        Some(
            self.arguments
                .get_or_init(|| cached_arguments_validator(schema, self.budget))
                .clone(),
        )
    }
}

/// Judges the `parameters` whose source text is `text` (see
/// [`ParametersVerdict`]), as the full path would within `budget`.
pub(super) fn judge_text(text: &str, budget: usize) -> ParametersVerdict {
    let mut verdict = ParametersVerdict {
        clean: false,
        depth: 0,
        schema: None,
        budget,
        arguments: std::sync::OnceLock::new(),
    };
    let Ok(parsed) = crate::parse::parse(text.as_bytes()) else {
        return verdict;
    };
    verdict.depth = depth_of(&parsed.value);
    let mut findings = Vec::new();
    check_parameters(&parsed.value, "", budget, &mut findings);
    verdict.clean = findings.is_empty()
        && parsed.repeated_keys.is_empty()
        && parsed.lone_surrogates.is_empty()
        && crate::rules::interop::all_interoperable(&parsed.value);
    if verdict.clean {
        verdict.schema = Some(parsed.value);
    }
    verdict
}

/// How many arrays and objects nest in `value`, without recursion.
fn depth_of(value: &Value) -> usize {
    let mut deepest = 0;
    let mut stack = vec![(value, 0_usize)];
    while let Some((value, depth)) = stack.pop() {
        let children: Box<dyn Iterator<Item = &Value>> = match value {
            Value::Array(items) => Box::new(items.iter()),
            Value::Object(members) => Box::new(members.values()),
            _ => continue,
        };
        deepest = deepest.max(depth + 1);
        stack.extend(children.map(|v| (v, depth + 1)));
    }
    deepest
}

/// The compiled validator for arguments of a tool with `schema` as its
/// `parameters`, shared with every other tool of the same schema.
pub(in crate::rules) fn cached_arguments_validator(
    schema: &Value,
    budget: usize,
) -> std::sync::Arc<super::cache::Compiled> {
    if deeper_than(schema, MAX_DEPTH) || values_over(schema, budget).is_some() {
        // Never compiled (see `arguments_validator` and `check_tool`), and
        // not cached.
        let compiled = super::cache::Compiled::default();
        compiled.arguments.get_or_init(|| None);
        return std::sync::Arc::new(compiled);
    }
    let compiled = cache::lookup(schema);
    compiled
        .arguments
        .get_or_init(|| arguments_validator(schema));
    compiled
}

/// Checks the `parameters` schema `schema`, whose pointer is `base`.
fn check_schema(schema: &Value, base: &str, out: &mut Vec<Diagnostic>) {
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
    let too_deep = deeper_than(schema, MAX_DEPTH);
    if too_deep {
        out.push(
            TOOL_PARAMETERS_INVALID_SCHEMA
                .diagnostic(base, format!("parameters is nested more than {MAX_DEPTH} levels deep"))
                .with_help("agui-lint does not meta-validate or compile a schema this deep; no model provider accepts one"),
        );
    }
    if let Some(draft) = draft.filter(|_| !too_deep) {
        // An embedded resource of another draft is checked against its own
        // meta-schema by `jsonschema`'s compile; checking the whole document
        // against the root's would report keywords of the other draft.
        if !other_dialect_inside {
            for (at, diagnostic) in meta_validate(schema, draft, base) {
                meta_errors.push(at);
                out.push(diagnostic);
            }
        }
        // The compile costs more than the rest together (it builds a
        // registry and a validator); most tool schemas have nothing only
        // it can find.
        if meta_errors.is_empty() && scan.needs_compile {
            let mut copy = without_outside_references(schema, &scan);
            let compiled = compile_problems(&mut copy, draft);
            let compiles = compiled.problems.is_empty();
            for (at, message, help) in compiled.problems {
                out.push(
                    TOOL_PARAMETERS_INVALID_SCHEMA
                        .diagnostic(format!("{base}{at}"), message)
                        .with_help(help),
                );
            }
            for at in &compiled.unsupported {
                out.push(unsupported_pattern(schema, at, base));
            }
            // Fan-out needs references; a schema without any applies at
            // most as many subschemas as it has.
            if compiles && !scan.references.is_empty() {
                if let Some(finding) = complexity(&copy, draft, base) {
                    out.push(finding);
                }
            }
        }
    }

    check_object_root(schema, base, &meta_errors, out);
}

/// The `tool-parameters-unsupported-pattern` finding on the pattern at
/// `at` (a `pattern` keyword, or a key under `patternProperties`).
fn unsupported_pattern(schema: &Value, at: &str, base: &str) -> Diagnostic {
    let is_key = parent_keyword(at) == Some("patternProperties");
    let pattern = if is_key {
        pointer::last(at).unwrap_or_default()
    } else {
        schema
            .pointer(at)
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string()
    };
    let why = if backtracks(&pattern) {
        "uses look-around or a back-reference, which agui-lint's linear-time regex engine does not run"
    } else {
        "compiles to more than agui-lint's linear-time regex engine takes (1 MiB)"
    };
    let (message, help) = if is_key {
        (
            format!(
                "patternProperties key {} {why}: the arguments of calls to this tool are not checked",
                quote(&pattern)
            ),
            "leaving the key out would hand its members to additionalProperties; express the constraint without look-around, or smaller, to have arguments checked",
        )
    } else {
        (
            format!(
                "pattern {} {why}: arguments are checked without it",
                quote(&pattern)
            ),
            "look-around and back-references are what make a backtracking engine exponential; express the constraint without them (minLength, several patterns under allOf), or smaller, to have it checked",
        )
    };
    TOOL_PARAMETERS_UNSUPPORTED_PATTERN
        .diagnostic(format!("{base}{at}"), message)
        .with_help(help)
}

/// Whether `pattern` uses what only a backtracking engine runs:
/// look-around or a back-reference (by number or by name).
fn backtracks(pattern: &str) -> bool {
    let bytes = pattern.as_bytes();
    ["(?=", "(?!", "(?<=", "(?<!", "\\k<"]
        .iter()
        .any(|syntax| pattern.contains(syntax))
        || bytes
            .windows(2)
            .any(|pair| pair[0] == b'\\' && (b'1'..=b'9').contains(&pair[1]))
}

/// The keyword `at` sits under: `patternProperties` for
/// `/properties/x/patternProperties/^a`.
fn parent_keyword(at: &str) -> Option<&str> {
    let (parent, _) = at.rsplit_once('/')?;
    parent.rsplit('/').next()
}

/// The `tool-parameters-too-complex` finding on `schema` (one that
/// compiles), if checking a value against it cannot be bounded.
fn complexity(schema: &Value, draft: Draft, base: &str) -> Option<Diagnostic> {
    let message = match cost::Graph::of(schema, draft).and_then(|graph| graph.fan_out()) {
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
fn deeper_than(value: &Value, limit: usize) -> bool {
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

/// What `value` (of a `$schema` keyword) names.
fn classify(value: &Value) -> MetaSchema {
    let Some(uri) = value.as_str() else {
        return MetaSchema::Unknown;
    };
    if let Some(draft) = known_draft(uri) {
        return MetaSchema::Draft(draft);
    }
    match Url::parse(uri) {
        // Another meta-schema of the JSON Schema project (draft-03, the
        // version-less URI): a draft, though not a supported one, rather
        // than a custom meta-schema to fetch.
        Ok(url) if url.host_str() == Some("json-schema.org") => MetaSchema::Unknown,
        Ok(url) if matches!(url.scheme(), "http" | "https") => {
            MetaSchema::Outside(Outside::Network)
        }
        Ok(url) if url.scheme() == "file" => MetaSchema::Outside(Outside::File),
        _ => MetaSchema::Unknown,
    }
}

/// The supported draft `uri` names, by its canonical URI with `http` or
/// `https` and with or without the trailing empty fragment.
fn known_draft(uri: &str) -> Option<Draft> {
    let rest = uri
        .strip_prefix("https://")
        .or_else(|| uri.strip_prefix("http://"))?;
    let rest = rest.strip_suffix('#').unwrap_or(rest);
    DRAFTS
        .iter()
        .find(|(name, _)| *name == rest)
        .map(|(_, draft)| *draft)
}

fn draft_name(draft: Draft) -> &'static str {
    match draft {
        Draft::Draft4 => "draft-04",
        Draft::Draft6 => "draft-06",
        Draft::Draft7 => "draft-07",
        Draft::Draft201909 => "2019-09",
        _ => "2020-12",
    }
}

/// The canonical URI of `draft`, as written in its meta-schema's `$id`.
fn draft_uri(draft: Draft) -> &'static str {
    match draft {
        Draft::Draft4 => "http://json-schema.org/draft-04/schema#",
        Draft::Draft6 => "http://json-schema.org/draft-06/schema#",
        Draft::Draft7 => "http://json-schema.org/draft-07/schema#",
        Draft::Draft201909 => "https://json-schema.org/draft/2019-09/schema",
        _ => "https://json-schema.org/draft/2020-12/schema",
    }
}

/// Reports a `$schema` that names no supported draft, at `at`.
fn report_meta_schema(
    meta: MetaSchema,
    value: &Value,
    at: &str,
    root: bool,
    out: &mut Vec<Diagnostic>,
) {
    let skipped = if root {
        "; this tool's parameters were not meta-validated or compiled"
    } else {
        ""
    };
    match meta {
        MetaSchema::Draft(_) => {}
        MetaSchema::Outside(outside) => {
            let uri = value.as_str().unwrap_or_default();
            let how = outside.describe();
            out.push(
                TOOL_PARAMETERS_REMOTE_REF
                    .diagnostic(
                        at,
                        format!("'$schema' {} names a custom meta-schema, which {how}", quote(uri)),
                    )
                    .with_help(format!(
                        "agui-lint never fetches it{skipped}; name a supported draft, such as '{}', or leave '$schema' out for 2020-12",
                        draft_uri(DEFAULT_DRAFT)
                    )),
            );
        }
        MetaSchema::Unknown => {
            let message = match value {
                Value::String(uri) => format!("'$schema' {} names no supported draft", quote(uri)),
                other => format!("'$schema' is {}, not a URI naming a draft", describe(other)),
            };
            let mut help = String::from(
                "supported: 2020-12 (the default without '$schema'), 2019-09, draft-07, draft-06 and draft-04",
            );
            if value.as_str().is_some_and(is_version_less) {
                help.push_str("; the version-less URI means another draft each time JSON Schema changes: name one");
            } else if let Some(draft) = value.as_str().and_then(intended_draft) {
                help.push_str(&format!(
                    "; for {} write '{}'",
                    draft_name(draft),
                    draft_uri(draft)
                ));
            }
            help.push_str(skipped);
            out.push(
                TOOL_PARAMETERS_UNKNOWN_DRAFT
                    .diagnostic(at, message)
                    .with_help(help),
            );
        }
    }
}

/// Whether `uri` is json-schema.org's URI of "the current draft".
fn is_version_less(uri: &str) -> bool {
    let rest = uri
        .strip_prefix("https://")
        .or_else(|| uri.strip_prefix("http://"))
        .unwrap_or_default();
    rest.strip_suffix('#').unwrap_or(rest) == "json-schema.org/schema"
}

/// The supported draft a malformed `$schema` seems to mean
/// (`"draft-07"`, `"https://json-schema.org/draft-07/schema/"`).
fn intended_draft(text: &str) -> Option<Draft> {
    let text = text.to_ascii_lowercase();
    [
        ("2020-12", Draft::Draft202012),
        ("2019-09", Draft::Draft201909),
        ("draft-07", Draft::Draft7),
        ("draft-7", Draft::Draft7),
        ("draft-06", Draft::Draft6),
        ("draft-6", Draft::Draft6),
        ("draft-04", Draft::Draft4),
        ("draft-4", Draft::Draft4),
    ]
    .into_iter()
    .find(|(token, _)| text.contains(token))
    .map(|(_, draft)| draft)
}

fn remote_reference(reference: &Reference, outside: Outside, base: &str) -> Diagnostic {
    TOOL_PARAMETERS_REMOTE_REF
        .diagnostic(
            format!("{base}{}", reference.pointer),
            format!(
                "'{}' {} {}",
                reference.keyword,
                quote(&reference.raw),
                outside.describe()
            ),
        )
        .with_help(
            "agui-lint never retrieves references, and model providers do not either; \
             put the schema under '$defs' and refer to it as '#/$defs/NAME'",
        )
}

/// Meta-validates `schema` against `draft`'s meta-schema: one diagnostic
/// per location (the meta-schemas' `anyOf`s report one place many times),
/// with the pointer relative to `parameters`.
fn meta_validate(schema: &Value, draft: Draft, base: &str) -> Vec<(String, Diagnostic)> {
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

/// How the place at `at` (inside `parameters`) is named in a message.
fn subject(at: &str) -> String {
    match pointer::last(at) {
        Some(token) => quote(&token),
        None => "parameters".to_string(),
    }
}

/// A message (and specific help, if any) for one meta-validation error.
fn meta_message(error: &ValidationError<'_>, at: &str) -> (String, Option<String>) {
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
            regex_problem(at, instance.as_str().unwrap_or_default(), false)
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

fn enum_message(subject: &str, instance: &Value, options: &Value) -> (String, Option<String>) {
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
fn generic_message(subject: &str, error: &ValidationError<'_>) -> String {
    const LIMIT: usize = 120;
    let text = error.to_string();
    let mut short: String = text.chars().take(LIMIT).collect();
    if text.chars().count() > LIMIT {
        short.push_str("...");
    }
    format!("{subject} is not valid here: {short}")
}

/// The message and help for a pattern at `at` that does not compile:
/// invalid, or (`too_large`) valid but over [`REGEX_SIZE_LIMIT`] compiled.
fn regex_problem(at: &str, pattern: &str, too_large: bool) -> (String, Option<String>) {
    let mut tokens: Vec<String> = pointer::tokens(at).collect();
    tokens.pop();
    let what = if tokens.last().is_some_and(|t| t == "patternProperties") {
        format!("'patternProperties' key {}", quote(pattern))
    } else {
        format!("{} {}", subject(at), quote(pattern))
    };
    if too_large {
        return (
            format!("{what} is too large to compile"),
            Some(format!(
                "its compiled form exceeds agui-lint's limit of {} KiB, set so that a pattern cannot exhaust a server; use smaller repetition counts, or 'maxLength' for a length",
                REGEX_SIZE_LIMIT / 1024
            )),
        );
    }
    (
        format!("{what} is not a valid regular expression"),
        Some(
            "patterns are ECMA-262 regular expressions: check brackets, groups, quantifiers and \
             escapes (a backslash is written '\\\\' inside a JSON string)"
                .to_string(),
        ),
    )
}

/// `pattern` with every counted repetition (`{1000}`, `{2,}`, `{3,9}`)
/// cut to a count of one, or `None` when it has none. A pattern that then
/// compiles failed for its size, not its syntax. Escapes and character
/// classes are skipped, so `\{` and `[{]` stay literal.
fn shrink_counts(pattern: &str) -> Option<String> {
    let chars: Vec<char> = pattern.chars().collect();
    let mut out = String::with_capacity(pattern.len());
    let mut changed = false;
    let mut in_class = false;
    let mut i = 0;
    while let Some(&c) = chars.get(i) {
        match c {
            '\\' => {
                out.push(c);
                if let Some(&next) = chars.get(i + 1) {
                    out.push(next);
                }
                i += 2;
                continue;
            }
            '[' => in_class = true,
            ']' => in_class = false,
            '{' if !in_class => {
                if let Some((shrunk, len)) = shrink_quantifier(&chars[i..]) {
                    out.push_str(shrunk);
                    changed = true;
                    i += len;
                    continue;
                }
            }
            _ => {}
        }
        out.push(c);
        i += 1;
    }
    changed.then_some(out)
}

/// The quantifier at the start of `chars` (`{n}`, `{n,}`, `{n,m}` with
/// n <= m) cut to a count of one, with the number of chars it spans.
fn shrink_quantifier(chars: &[char]) -> Option<(&'static str, usize)> {
    let end = chars.iter().position(|c| *c == '}')?;
    let inner: String = chars.get(1..end)?.iter().collect();
    let (min, max) = match inner.split_once(',') {
        Some((min, max)) => (min, Some(max)),
        None => (inner.as_str(), None),
    };
    let number = |text: &str| {
        (!text.is_empty() && text.chars().all(|c| c.is_ascii_digit()))
            .then(|| text.parse::<u128>().unwrap_or(u128::MAX))
    };
    let min = number(min)?;
    let shrunk = match max {
        None => "{1}",
        Some("") => "{1,}",
        // An inverted range is a syntax error; keep it so that it stays one.
        Some(max) if number(max)? >= min => "{1,1}",
        Some(_) => return None,
    };
    Some((shrunk, end + 1))
}

/// A copy of `schema` without what step 2 reported: references that leave
/// `parameters` and `$schema`s naming no supported draft, so that the
/// compile reports only other causes and has nothing to retrieve.
fn without_outside_references(schema: &Value, scan: &references::Scan<'_>) -> Value {
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
fn remove_member(value: &mut Value, at: &str) -> bool {
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

/// Which regex engine a compile uses.
#[derive(Clone, Copy)]
enum Engine {
    /// `regex`: linear time in the input, no look-around.
    Linear,
    /// `fancy-regex`: backtracking. Only to tell whether a pattern the
    /// linear engine rejects is valid; such a compile is never run.
    Backtracking,
}

fn compile(schema: &Value, draft: Draft, engine: Engine) -> Result<(), ValidationError<'static>> {
    build(schema, draft, engine).map(drop)
}

/// A validator of tool arguments against `parameters`, or `None` when
/// `parameters` is not a schema that compiles offline (the rules of this
/// module then say why). Patterns use the linear-time engine, as the
/// arguments are matched against them.
fn arguments_validator(schema: &Value) -> Option<Arguments> {
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
                .any(|at| parent_keyword(at) == Some("patternProperties"));
            if !compiled.problems.is_empty() || compiled.unsupported.is_empty() || keyed {
                return None;
            }
            build(&copy, draft, Engine::Linear).ok()?
        }
    };
    Some(Arguments { validator, graph })
}

/// What a call's arguments are checked with: the compiled schema, and the
/// schema as a graph, which tells what a check will cost before it runs.
pub(crate) struct Arguments {
    /// The compiled schema.
    pub(crate) validator: jsonschema::Validator,
    /// The schema's subschemas and applicators.
    pub(crate) graph: cost::Graph,
}

fn build(
    schema: &Value,
    draft: Draft,
    engine: Engine,
) -> Result<jsonschema::Validator, ValidationError<'static>> {
    let options = jsonschema::options().with_draft(draft).offline();
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

/// Whether `pattern` compiles with either engine: the linear one, or the
/// backtracking one for what only it supports (look-around,
/// back-references). Compile only: nothing is ever matched against it.
fn pattern_compiles(pattern: &str) -> bool {
    let schema = json!({ "pattern": pattern });
    [Engine::Linear, Engine::Backtracking]
        .into_iter()
        .any(|engine| compile(&schema, DEFAULT_DRAFT, engine).is_ok())
}

/// The problems an offline compile of `schema` (meta-valid, references to
/// the outside removed) finds, as (pointer inside parameters, message,
/// help). `schema` is changed: each problem found is removed from it so
/// that the next compile can find the next.
fn compile_problems(schema: &mut Value, draft: Draft) -> CompileProblems {
    let mut found = CompileProblems::default();
    for _ in 0..MAX_COMPILE_ROUNDS {
        let Err(error) = compile(schema, draft, Engine::Linear) else {
            return found;
        };
        let (problem, fixed) = explain_compile_error(&error, schema, draft);
        let unsupported = problem.is_none();
        found.problems.extend(problem);
        match fixed {
            Some(at) if remove_member(schema, &at) => {
                if unsupported {
                    found.unsupported.push(at);
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
/// `pattern` or a `patternProperties` key), each removed from the copy.
#[derive(Debug, Default)]
struct CompileProblems {
    problems: Vec<(String, String, String)>,
    unsupported: Vec<String>,
}

/// One compile error as (problem to report, if any; member to remove from
/// the copy before compiling again, if it can be found).
fn explain_compile_error(
    error: &ValidationError<'_>,
    schema: &Value,
    draft: Draft,
) -> (Option<(String, String, String)>, Option<String>) {
    let at = error.instance_path().as_str().to_string();
    match error.kind() {
        ValidationErrorKind::Format { format } if format == "regex" => {
            let pattern = match error.instance().as_str() {
                Some(pattern) => pattern.to_string(),
                None => pointer::last(&at).unwrap_or_default(),
            };
            if pattern_compiles(&pattern) {
                // Look-around or a back-reference: valid ECMA-262, beyond
                // the linear engine; nothing to report.
                return (None, Some(at));
            }
            let too_large = shrink_counts(&pattern).is_some_and(|small| pattern_compiles(&small));
            let (message, help) = regex_problem(&at, &pattern, too_large);
            (
                Some((at.clone(), message, help.unwrap_or_default())),
                Some(at),
            )
        }
        ValidationErrorKind::Referencing(cause) => {
            let scan = references::scan(schema, draft);
            match locate_reference(cause, &scan.references) {
                Some(reference) => {
                    let (message, help) = reference_problem(cause, reference);
                    (
                        Some((reference.pointer.clone(), message, help)),
                        Some(reference.pointer.clone()),
                    )
                }
                None => (
                    Some((
                        String::new(),
                        generic_message("parameters", error),
                        "agui-lint could not tell which reference this is".to_string(),
                    )),
                    None,
                ),
            }
        }
        _ => (
            Some((
                at.clone(),
                generic_message(&subject(&at), error),
                format!(
                    "parameters must compile as a {} JSON Schema",
                    draft_name(draft)
                ),
            )),
            None,
        ),
    }
}

/// The reference a referencing error is about: `jsonschema` names the
/// pointer, anchor or URI that failed, not where the reference is.
fn locate_reference<'r>(
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

fn reference_problem(cause: &ReferencingError, reference: &Reference) -> (String, String) {
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

/// Warns when the root of `schema` is not `"type": "object"`. Skips what
/// `tool-parameters-invalid-schema` already reported: a `parameters` that
/// is no schema, or a root `type` that is no JSON Schema type.
fn check_object_root(
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

#[cfg(test)]
mod tests {
    use std::time::{Duration, Instant};

    use serde_json::json;

    use super::*;
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
        assert_eq!(rules, ["tool-parameters-unknown-draft"]);
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
            [pair("tool-parameters-remote-ref", "/parameters/$schema")]
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
                "tool-parameters-invalid-schema",
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
                    "tool-parameters-invalid-schema",
                    "/parameters/properties/a/$ref",
                    "'$ref' '#/nope' points at nothing in parameters"
                ),
                (
                    "tool-parameters-invalid-schema",
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
                    "tool-parameters-remote-ref",
                    "/parameters/properties/a/$ref"
                ),
                (
                    "tool-parameters-remote-ref",
                    "/parameters/properties/b/$ref"
                ),
                (
                    "tool-parameters-invalid-schema",
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
                "tool-parameters-invalid-schema",
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
                    "tool-parameters-unsupported-pattern",
                    "/parameters/properties/password/pattern"
                ),
                pair(
                    "tool-parameters-unsupported-pattern",
                    "/parameters/properties/twice/pattern"
                ),
                pair(
                    "tool-parameters-unsupported-pattern",
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
            .contains("more than agui-lint's linear-time regex engine takes"));
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
                "d": {"type": "string", "pattern": "(\\p{L}{500}){500}"}
            }
        }));
        let elapsed = start.elapsed();
        assert!(elapsed < Duration::from_secs(5), "{elapsed:?}");
        let messages: Vec<_> = out.iter().map(|d| d.message.as_str()).collect();
        assert_eq!(
            messages,
            [
                "'pattern' '(?=(a{1000}){1000})x' is too large to compile",
                "'pattern' '((a{100}){100}){100}(?=b)' is too large to compile",
                "'pattern' '(\\w{1000}){1000}(?!x)' is too large to compile",
                "'pattern' '(\\p{L}{500}){500}' is too large to compile",
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
            [pair("tool-parameters-not-object", "/parameters")]
        );
        assert_eq!(
            findings(json!(false)),
            [pair("tool-parameters-not-object", "/parameters")]
        );
        for not_a_schema in [json!(null), json!("object"), json!(3), json!([])] {
            assert_eq!(
                findings(not_a_schema.clone()),
                [pair("tool-parameters-invalid-schema", "/parameters")],
                "{not_a_schema}"
            );
        }
    }

    #[test]
    fn not_object_edge_cases() {
        assert_eq!(
            findings(json!({"properties": {"a": {}}})),
            [pair("tool-parameters-not-object", "/parameters")]
        );
        assert_eq!(
            findings(json!({})),
            [pair("tool-parameters-not-object", "/parameters")]
        );
        for types in [json!(["object", "null"]), json!(["object"]), json!("array")] {
            assert_eq!(
                findings(json!({ "type": types })),
                [pair("tool-parameters-not-object", "/parameters/type")]
            );
        }
        // A `type` that is no type at all is one finding, of the schema.
        assert_eq!(
            findings(json!({"type": "objet"})),
            [pair("tool-parameters-invalid-schema", "/parameters/type")]
        );
        // A root `$ref` to an object schema still lacks the root type.
        assert_eq!(
            findings(json!({"$ref": "#/$defs/a", "$defs": {"a": {"type": "object"}}})),
            [pair("tool-parameters-not-object", "/parameters")]
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
        assert_eq!(got, [("tool-parameters-invalid-schema", "/parameters")]);
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
