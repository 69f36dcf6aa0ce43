//! The rules of a tool's `parameters`: their metadata, and the finding
//! of a reference that leaves the document, which several checks make.

use crate::diagnostic::{Diagnostic, Severity};
use crate::pointer;
use crate::rules::tools::references::{Outside, Reference};
use crate::rules::Rule;
use crate::rules::EVERY_VERSION;
use crate::text::quote;

pub(crate) const TOOL_PARAMETERS_INVALID_SCHEMA: Rule = Rule {
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

Patterns are compiled with a linear-time engine and never run. A valid
pattern agui-lint declines to run (look-around, back-references, or a
compiled form over 1 MiB from large repetition counts) is not an invalid
schema: it is `tool-parameters-unsupported-pattern`. A schema nested more
than 128 levels deep is not checked either: `tool-parameters-too-complex`.
Only what the schema's own draft rejects is reported here.

## Why it matters
The agent hands `parameters` to its model provider, which rejects an
invalid schema and fails the run; a client or agent that validates tool
arguments against it fails too.

## Where the official receivers differ
The official receivers take any object as `parameters`; none checks it
as JSON Schema. The agent's model provider does, and fails the run: the
error is the provider's, reported where the tool is defined.

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

pub(crate) const TOOL_PARAMETERS_REMOTE_REF: Rule = Rule {
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

pub(crate) const TOOL_PARAMETERS_UNKNOWN_DRAFT: Rule = Rule {
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

pub(in crate::rules) const TOOL_PARAMETERS_TOO_LARGE: Rule = Rule {
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

pub(in crate::rules) const TOOL_PARAMETERS_TOO_COMPLEX: Rule = Rule {
    name: "tool-parameters-too-complex",
    severity: Severity::Warning,
    protocols: EVERY_VERSION,
    severity_1x: None,
    summary: "A tool's parameters would check one value against too many subschemas, or nests deeper than agui-lint checks",
    docs: r##"## What it checks
How many subschemas checking one value against a tool's `parameters`
applies through its in-place applicators (`allOf`, `anyOf`, `oneOf`,
`not`, `if`/`then`/`else`) and references: each path through them is
applied, so a chain of `oneOf`s whose branches refer to the same next link
doubles with every link. Past 10,000 the schema is reported and the
arguments of calls to it are not checked. Also reported: a schema whose
references agui-lint cannot follow itself, so that it cannot bound what a
check against it costs (the arguments are not checked then either), and
one nested more than 128 levels deep, which is neither meta-validated nor
compiled.

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

pub(crate) const TOOL_PARAMETERS_UNSUPPORTED_PATTERN: Rule = Rule {
    name: "tool-parameters-unsupported-pattern",
    severity: Severity::Warning,
    protocols: EVERY_VERSION,
    severity_1x: None,
    summary: "A pattern of a tool's parameters is valid, but one agui-lint declines to run",
    docs: r##"## What it checks
Whether a `pattern` or a `patternProperties` key of a tool's `parameters`
is a valid regular expression that agui-lint will not run, and why:

- it uses look-around (`(?=`, `(?!`, `(?<=`, `(?<!`) or a back-reference
  (`\1`): valid ECMA-262, but agui-lint matches arguments with a
  linear-time engine, which has neither;
- it compiles to more than 1 MiB (`^(a{1000}){1000}$`): large counted
  repetitions, valid, beyond the size agui-lint compiles.

A `pattern` it declines is left out when the arguments of calls are
checked (the rest of the schema still is), and a schema with such a
`patternProperties` key is not used at all (leaving the key out would hand
its members to `additionalProperties`). A pattern that is not a regular
expression at all is `tool-parameters-invalid-schema`.

## Why it matters
These features are what makes a backtracking engine take exponential time
(`^(a+)+$` against a long run of `a`s): a validator in front of a server
cannot run them on the arguments a model produced, nor compile a pattern
of any size it is sent. The finding says which constraint was not
enforced, rather than passing it silently, and is a warning: the schema is
valid, and the limit is agui-lint's.

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

pub(crate) const TOOL_PARAMETERS_NOT_OBJECT: Rule = Rule {
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

pub(super) fn remote_reference(reference: &Reference, outside: Outside, base: &str) -> Diagnostic {
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

/// How the place at `at` (inside `parameters`) is named in a message.
pub(super) fn subject(at: &str) -> String {
    match pointer::last(at) {
        Some(token) => quote(&token),
        None => "parameters".to_string(),
    }
}
