//! Rules over an agent's capability declaration (concepts-capabilities.md):
//! flags their category's switch turns off, execution limits, and the
//! identity and output values clients parse.

use serde_json::Number;
use url::Url;

use super::mime::parse_mime_type;
use super::walk::{Document, Node};
use super::Rule;
use crate::diagnostic::{Diagnostic, Related, Severity, Target};
use crate::rules::{EVERY_VERSION, PRE_1_0};
use crate::text::excerpt;
use crate::Protocol;

/// The rules of this family, in documentation order.
pub(super) const RULES: &[Rule] = &[
    CAPABILITY_CONTRADICTION,
    CAPABILITY_INVALID_LIMIT,
    CAPABILITY_INVALID_URL,
    CAPABILITY_INVALID_VERSION,
    CAPABILITY_INVALID_MIME_TYPE,
];

pub(super) const CAPABILITY_CONTRADICTION: Rule = Rule {
    name: "capability-contradiction",
    severity: Severity::Warning,
    protocols: EVERY_VERSION,
    severity_1x: None,
    summary: "A capability is declared while its category's switch turns it off",
    docs: r#"## What it checks
That no capability is declared on while the switch it depends on is off:

- `tools.items` non-empty, `tools.parallelCalls: true` or
  `tools.clientProvided: true` with `tools.supported: false`;
- `reasoning.streaming` or `reasoning.encrypted` true with
  `reasoning.supported: false`;
- `multiAgent.delegation` or `multiAgent.handoffs` true, or
  `multiAgent.subAgents` (1.x: `multiAgent.subagents`) non-empty, with
  `multiAgent.supported: false`;
- `humanInTheLoop.approvals`, `interventions`, `feedback`, `interrupts` or
  `approveWithEdits` true with `humanInTheLoop.supported: false`;
- `execution.sandboxed: true` without `execution.codeExecution: true`
  (absent or `false`), and `humanInTheLoop.approveWithEdits: true` without
  `humanInTheLoop.interrupts: true`: concepts-capabilities.md calls each
  "only meaningful when" the other is `true`.

A `supported` switch that is absent means "not declared", not "off", so
only an explicit `false` counts there. Each contradicting key is one
finding, pointing at its value, with the switch as related information.

## Why it matters
Clients check the switch first (`if (capabilities?.reasoning?.supported)`)
and never look at the flags under a switch that is off, so a declared
capability silently disappears, or clients that read the flags directly
and those that read the switch disagree about what the agent can do. For
`tools`, concepts-capabilities.md allows listing `items` while
`supported` is `false` to say tool calling is disabled on purpose; when
that is the intent, this warning can be ignored for that key.

## Invalid
```json
{"reasoning": {"supported": false, "streaming": true}}
```

## Valid
```json
{"reasoning": {"supported": true, "streaming": true}}
```
"#,
};

pub(super) const CAPABILITY_INVALID_LIMIT: Rule = Rule {
    name: "capability-invalid-limit",
    severity: Severity::Error,
    protocols: PRE_1_0,
    severity_1x: None,
    summary: "An execution limit is negative or not a whole number",
    docs: r#"## What it checks
Pre-1.0 only (since 1.0 the schema itself bounds both to an integer from 0
to 2^53 − 1, reported as `wrong-type` and `schema-violation`): that
`execution.maxIterations` (a count) and `execution.maxExecutionTime`
(milliseconds) are whole numbers of zero or more. `2.5` and `-1` are
reported. A whole number written as a float (`3.0`) is accepted: JSON does
not tell `3.0` from `3`, JavaScript reads both as `3`, and Pydantic accepts
a float with no fractional part for an integer field. A value of another
JSON type is reported by `wrong-type` instead.

## Why it matters
The TypeScript type is `number`, so the schema admits any number, but a
limit is a count of iterations or milliseconds: clients that show progress
or set timeouts from it (`Array(maxIterations)`, `setTimeout`) fail or
misbehave on a negative or fractional value, and a Python peer that models
it as `int` rejects the declaration.

## Invalid
```json
{"execution": {"maxIterations": 2.5, "maxExecutionTime": -1}}
```

## Valid
```json
{"execution": {"maxIterations": 25, "maxExecutionTime": 300000}}
```
"#,
};

pub(super) const CAPABILITY_INVALID_URL: Rule = Rule {
    name: "capability-invalid-url",
    severity: Severity::Warning,
    protocols: EVERY_VERSION,
    severity_1x: None,
    summary: "identity.documentationUrl is not an absolute URL",
    docs: r#"## What it checks
That `identity.documentationUrl` is an absolute URL (WHATWG URL syntax,
with a scheme), such as `https://docs.example.com/agent`.

## Why it matters
Discovery UIs and agent marketplaces render it as a link. A relative
reference has no base to resolve against in the client, so the link
points at the client's own site or nowhere.

## Invalid
```json
{"identity": {"name": "travel-concierge", "documentationUrl": "docs/travel-concierge"}}
```

## Valid
```json
{"identity": {"name": "travel-concierge", "documentationUrl": "https://docs.example.com/travel-concierge"}}
```
"#,
};

pub(super) const CAPABILITY_INVALID_VERSION: Rule = Rule {
    name: "capability-invalid-version",
    severity: Severity::Info,
    protocols: EVERY_VERSION,
    severity_1x: None,
    summary: "identity.version is not a semantic version",
    docs: r#"## What it checks
That `identity.version` is a semantic version (semver.org 2.0.0):
`MAJOR.MINOR.PATCH` with optional `-prerelease` and `+build`, such as
`1.2.0` or `2.0.0-rc.1`. One leading lowercase `v` (`v1.2.0`) is accepted,
as npm's `semver` and Python's `packaging` both accept it. Leading zeros,
missing parts (`1.2`) and surrounding whitespace are reported.

## Why it matters
concepts-capabilities.md describes the field as "Semantic version of the
agent (e.g., "1.2.0"). Useful for compatibility checks." A client can only
compare versions it can parse; any string is allowed, hence only an info.

## Invalid
```json
{"identity": {"name": "travel-concierge", "version": "2.3"}}
```

## Valid
```json
{"identity": {"name": "travel-concierge", "version": "2.3.0"}}
```
"#,
};

pub(super) const CAPABILITY_INVALID_MIME_TYPE: Rule = Rule {
    name: "capability-invalid-mime-type",
    severity: Severity::Warning,
    protocols: EVERY_VERSION,
    severity_1x: None,
    summary: "An output.supportedMimeTypes entry is not a MIME type",
    docs: r#"## What it checks
That every entry of `output.supportedMimeTypes` is a MIME type:
`type/subtype` with both names in RFC 6838 section 4.2 syntax, optionally
followed by `; name=value` parameters. The syntax is the one
`content-mime-type-mismatch` applies to content sources. Wildcards such
as `image/*` and file extensions such as `json` are reported.

## Why it matters
Clients match the types the agent can produce against the types they can
render, by MIME type. An entry that is not one never matches, so the
client treats the format as unsupported.

## Invalid
```json
{"output": {"supportedMimeTypes": ["text/plain", "json"]}}
```

## Valid
```json
{"output": {"supportedMimeTypes": ["text/plain", "application/json"]}}
```
"#,
};

/// Runs this family's checks on `document`.
pub(super) fn check(document: &Document<'_>, out: &mut Vec<Diagnostic>) {
    let Some(capabilities) = document.capabilities() else {
        return;
    };
    let category = |name: &str| capabilities.child(name).filter(|c| c.value.is_object());
    check_contradictions(&category, document.protocol, out);
    // Since 1.0 the schema bounds the limits itself (an integer from 0 to
    // 2^53 − 1), and reports them as it reports every number.
    let execution = category("execution").filter(|_| !document.protocol.is_1x());
    if let Some(execution) = execution {
        for key in ["maxIterations", "maxExecutionTime"] {
            if let Some(limit) = execution.child(key) {
                check_limit(key, &limit, out);
            }
        }
    }
    if let Some(identity) = category("identity") {
        check_identity(&identity, out);
    }
    if let Some(types) = category("output").and_then(|o| o.child("supportedMimeTypes")) {
        for entry in types.elements() {
            check_mime_type(&entry, out);
        }
    }
}

/// A category whose `supported: false` turns off the capabilities under it.
struct Switched {
    /// The versions whose capabilities have this category in this shape.
    protocols: &'static [Protocol],
    category: &'static str,
    /// Boolean flags that contradict the switch when `true`.
    flags: &'static [&'static str],
    /// Lists that contradict the switch when non-empty.
    lists: &'static [&'static str],
}

const ALL: [Protocol; 3] = Protocol::ALL;

const SWITCHED: &[Switched] = &[
    Switched {
        protocols: &ALL,
        category: "tools",
        flags: &["parallelCalls", "clientProvided"],
        lists: &["items"],
    },
    Switched {
        protocols: &ALL,
        category: "reasoning",
        flags: &["streaming", "encrypted"],
        lists: &[],
    },
    Switched {
        protocols: &[Protocol::V0],
        category: "multiAgent",
        flags: &["delegation", "handoffs"],
        lists: &["subAgents"],
    },
    // 1.0 renamed the list (`spec/1.1/changelog.mdx`).
    Switched {
        protocols: &[Protocol::V1_0, Protocol::V1_1],
        category: "multiAgent",
        flags: &["delegation", "handoffs"],
        lists: &["subagents"],
    },
    Switched {
        protocols: &ALL,
        category: "humanInTheLoop",
        flags: &[
            "approvals",
            "interventions",
            "feedback",
            "interrupts",
            "approveWithEdits",
        ],
        lists: &[],
    },
];

/// A flag that is "only meaningful when" another flag of its category is
/// `true` (concepts-capabilities.md), as (category, flag, required flag).
const REQUIRES: &[(&str, &str, &str)] = &[
    ("execution", "sandboxed", "codeExecution"),
    ("humanInTheLoop", "approveWithEdits", "interrupts"),
];

fn check_contradictions<'a>(
    category: &dyn Fn(&str) -> Option<Node<'a>>,
    protocol: Protocol,
    out: &mut Vec<Diagnostic>,
) {
    let mut found: Vec<Diagnostic> = Vec::new();
    let switched_in = |switched: &&Switched| switched.protocols.contains(&protocol);
    for switched in SWITCHED.iter().filter(switched_in) {
        let Some(node) = category(switched.category) else {
            continue;
        };
        // Absent means "not declared" (concepts-capabilities.md, "Absent =
        // unknown"), so only an explicit false turns the category off.
        let Some(switch) = node
            .child("supported")
            .filter(|s| s.value.as_bool() == Some(false))
        else {
            continue;
        };
        let name = switched.category;
        for &flag in switched.flags {
            let Some(value) = node.child(flag).filter(|v| v.value.as_bool() == Some(true)) else {
                continue;
            };
            found.push(
                CAPABILITY_CONTRADICTION
                    .diagnostic(
                        value.pointer,
                        format!("{name}.{flag} is true but {name}.supported is false"),
                    )
                    .with_help(format!(
                        "clients that check {name}.supported never use {name}.{flag}; set supported to true or leave {flag} out"
                    ))
                    .with_related(switch.pointer.clone(), format!("{name}.supported is false here")),
            );
        }
        for &list in switched.lists {
            let Some(value) = node.child(list) else {
                continue;
            };
            let Some(count) = value.value.as_array().map(Vec::len).filter(|&n| n > 0) else {
                continue;
            };
            let entries = if count == 1 { "entry" } else { "entries" };
            found.push(
                CAPABILITY_CONTRADICTION
                    .diagnostic(
                        value.pointer,
                        format!("{name}.{list} has {count} {entries} but {name}.supported is false"),
                    )
                    .with_help(format!(
                        "clients that check {name}.supported ignore {name}.{list}; set supported to true, or ignore this if the category is switched off on purpose"
                    ))
                    .with_related(switch.pointer.clone(), format!("{name}.supported is false here")),
            );
        }
    }
    for &(name, flag, required) in REQUIRES {
        let Some(node) = category(name) else {
            continue;
        };
        let Some(value) = node.child(flag).filter(|v| v.value.as_bool() == Some(true)) else {
            continue;
        };
        let (state, related) = match node.child(required) {
            None => ("is not set", node.pointer.clone()),
            Some(r) if r.value.as_bool() == Some(false) => ("is false", r.pointer),
            // True, or of another type, which `wrong-type` reports.
            Some(_) => continue,
        };
        let related_message = format!("{name}.{required} {state} here");
        // One finding per key: approveWithEdits may already contradict
        // humanInTheLoop.supported; the second reason joins that finding.
        if let Some(existing) = found.iter_mut().find(|d| d.pointer == value.pointer) {
            existing.related.push(Related {
                pointer: related,
                message: related_message,
                record: None,
                location: None,
                target: Target::Value,
            });
            continue;
        }
        found.push(
            CAPABILITY_CONTRADICTION
                .diagnostic(
                    value.pointer,
                    format!("{name}.{flag} is true but {name}.{required} {state}"),
                )
                .with_help(format!(
                    "{name}.{flag} is only meaningful when {name}.{required} is true; set {required} to true or leave {flag} out"
                ))
                .with_related(related, related_message),
        );
    }
    out.append(&mut found);
}

/// Why a limit is not a whole number of zero or more, if it is not.
fn limit_problem(number: &Number) -> Option<&'static str> {
    if number.is_u64() {
        return None;
    }
    if number.is_i64() {
        // Not a u64, so below zero.
        return Some("which is negative");
    }
    let value = number.as_f64()?;
    // A float with no fractional part is accepted (`3.0`); `-0.0` is zero.
    match (value.fract() != 0.0, value < 0.0) {
        (true, true) => Some("which is negative and not a whole number"),
        (true, false) => Some("which is not a whole number"),
        (false, true) => Some("which is negative"),
        (false, false) => None,
    }
}

fn check_limit(key: &str, limit: &Node<'_>, out: &mut Vec<Diagnostic>) {
    // Another JSON type is a `wrong-type` finding of the schema layer.
    let Some(number) = limit.value.as_number() else {
        return;
    };
    let Some(problem) = limit_problem(number) else {
        return;
    };
    let unit = if key == "maxExecutionTime" {
        "milliseconds"
    } else {
        "iterations"
    };
    out.push(
        CAPABILITY_INVALID_LIMIT
            .diagnostic(
                limit.pointer.clone(),
                format!("execution.{key} is {number}, {problem}"),
            )
            .with_help(format!("give a whole number of {unit}, 0 or more")),
    );
}

fn check_identity(identity: &Node<'_>, out: &mut Vec<Diagnostic>) {
    if let Some(url) = identity.child("documentationUrl") {
        if let Some(text) = url.value.as_str() {
            if let Err(error) = Url::parse(text) {
                out.push(
                    CAPABILITY_INVALID_URL
                        .diagnostic(
                            url.pointer.clone(),
                            format!(
                                "identity.documentationUrl '{}' is not an absolute URL: {error}",
                                excerpt(text)
                            ),
                        )
                        .with_help(
                            "give an absolute URL with its scheme, such as 'https://docs.example.com/agent'",
                        ),
                );
            }
        }
    }
    if let Some(version) = identity.child("version") {
        if let Some(text) = version.value.as_str() {
            if let Err(error) = parse_version(text) {
                out.push(
                    CAPABILITY_INVALID_VERSION
                        .diagnostic(
                            version.pointer.clone(),
                            format!(
                                "identity.version '{}' is not a semantic version: {error}",
                                excerpt(text)
                            ),
                        )
                        .with_help("use MAJOR.MINOR.PATCH, such as '1.2.0' (semver.org)"),
                );
            }
        }
    }
}

/// A semantic version, allowing one leading `v` as npm's `semver` and
/// Python's `packaging` do.
fn parse_version(text: &str) -> Result<semver::Version, semver::Error> {
    semver::Version::parse(text.strip_prefix('v').unwrap_or(text))
}

fn check_mime_type(entry: &Node<'_>, out: &mut Vec<Diagnostic>) {
    let Some(text) = entry.value.as_str() else {
        return;
    };
    if let Err(reason) = parse_mime_type(text) {
        out.push(
            CAPABILITY_INVALID_MIME_TYPE
                .diagnostic(
                    entry.pointer.clone(),
                    format!(
                        "output.supportedMimeTypes entry '{}' is not a MIME type: {reason}",
                        excerpt(text)
                    ),
                )
                .with_help("write type/subtype (RFC 6838), such as 'application/json'"),
        );
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{json, Value};

    use super::*;
    use crate::Kind;

    fn run(value: &Value) -> Vec<Diagnostic> {
        let mut out = Vec::new();
        check(
            &Document {
                kind: Kind::Capabilities,
                root: value,
                limits: crate::Limits::default(),
                protocol: crate::Protocol::V0,
            },
            &mut out,
        );
        out
    }

    fn found(value: &Value) -> Vec<(String, String)> {
        run(value)
            .into_iter()
            .map(|d| (d.rule, d.pointer))
            .collect()
    }

    fn pairs(items: &[(&str, &str)]) -> Vec<(String, String)> {
        items
            .iter()
            .map(|(r, p)| (r.to_string(), p.to_string()))
            .collect()
    }

    #[test]
    fn switched_off_categories_contradict_their_flags() {
        let caps = json!({
            "tools": {"supported": false, "items": [{"name": "t"}], "parallelCalls": true,
                      "clientProvided": false},
            "reasoning": {"supported": false, "streaming": true, "encrypted": true},
            "multiAgent": {"supported": false, "delegation": false, "handoffs": true,
                           "subAgents": [{"name": "a"}, {"name": "b"}]},
            "humanInTheLoop": {"supported": false, "approvals": true, "interventions": true,
                               "feedback": true, "interrupts": true}
        });
        let c = "capability-contradiction";
        assert_eq!(
            found(&caps),
            pairs(&[
                (c, "/tools/parallelCalls"),
                (c, "/tools/items"),
                (c, "/reasoning/streaming"),
                (c, "/reasoning/encrypted"),
                (c, "/multiAgent/handoffs"),
                (c, "/multiAgent/subAgents"),
                (c, "/humanInTheLoop/approvals"),
                (c, "/humanInTheLoop/interventions"),
                (c, "/humanInTheLoop/feedback"),
                (c, "/humanInTheLoop/interrupts"),
            ])
        );
        let first = &run(&caps)[0];
        assert_eq!(first.related[0].pointer, "/tools/supported");
        assert_eq!(
            first.message,
            "tools.parallelCalls is true but tools.supported is false"
        );
        assert_eq!(
            run(&caps)[1].message,
            "tools.items has 1 entry but tools.supported is false"
        );
    }

    #[test]
    fn absent_or_true_switches_contradict_nothing() {
        for caps in [
            json!({"reasoning": {"streaming": true, "encrypted": true}}),
            json!({"reasoning": {"supported": true, "streaming": true}}),
            json!({"tools": {"supported": false, "items": [], "parallelCalls": false}}),
            json!({"multiAgent": {"supported": "no", "handoffs": true}}),
            json!({"execution": {"codeExecution": true, "sandboxed": true}}),
            json!({"execution": {"sandboxed": false}}),
            json!({"humanInTheLoop": {"interrupts": true, "approveWithEdits": true}}),
        ] {
            assert!(run(&caps).is_empty(), "{caps}");
        }
    }

    #[test]
    fn flags_that_need_another_flag() {
        let caps = json!({
            "execution": {"sandboxed": true},
            "humanInTheLoop": {"interrupts": false, "approveWithEdits": true}
        });
        let diagnostics = run(&caps);
        assert_eq!(diagnostics.len(), 2);
        assert_eq!(diagnostics[0].pointer, "/execution/sandboxed");
        assert_eq!(
            diagnostics[0].message,
            "execution.sandboxed is true but execution.codeExecution is not set"
        );
        assert_eq!(diagnostics[0].related[0].pointer, "/execution");
        assert_eq!(diagnostics[1].pointer, "/humanInTheLoop/approveWithEdits");
        assert_eq!(
            diagnostics[1].related[0].pointer,
            "/humanInTheLoop/interrupts"
        );
    }

    #[test]
    fn one_finding_per_key_with_both_reasons() {
        let caps = json!({"humanInTheLoop": {"supported": false, "approveWithEdits": true}});
        let diagnostics = run(&caps);
        assert_eq!(diagnostics.len(), 1);
        let related: Vec<&str> = diagnostics[0]
            .related
            .iter()
            .map(|r| r.pointer.as_str())
            .collect();
        assert_eq!(related, ["/humanInTheLoop/supported", "/humanInTheLoop"]);
    }

    #[test]
    fn limits_are_whole_numbers_of_zero_or_more() {
        let limit = |value: Value| {
            let caps =
                json!({"execution": {"maxIterations": value.clone(), "maxExecutionTime": value}});
            run(&caps)
                .into_iter()
                .map(|d| d.message)
                .collect::<Vec<_>>()
        };
        for ok in [
            json!(0),
            json!(25),
            json!(3.0),
            json!(-0.0),
            json!(u64::MAX),
            json!("x"),
        ] {
            assert!(limit(ok.clone()).is_empty(), "{ok}");
        }
        assert_eq!(
            limit(json!(2.5)),
            [
                "execution.maxIterations is 2.5, which is not a whole number",
                "execution.maxExecutionTime is 2.5, which is not a whole number"
            ]
        );
        assert_eq!(
            limit(json!(-1))[0],
            "execution.maxIterations is -1, which is negative"
        );
        assert_eq!(
            limit(json!(-3.0))[0],
            "execution.maxIterations is -3.0, which is negative"
        );
        assert_eq!(
            limit(json!(-0.5))[0],
            "execution.maxIterations is -0.5, which is negative and not a whole number"
        );
    }

    #[test]
    fn identity_url_and_version() {
        let caps = |url: &str, version: &str| json!({"identity": {"documentationUrl": url, "version": version}});
        assert!(run(&caps("https://docs.example.com/a", "1.2.0")).is_empty());
        assert!(run(&caps("mailto:agents@example.com", "v1.2.0-rc.1+build.5")).is_empty());
        let c = |r: &str, p: &str| (r.to_string(), p.to_string());
        assert_eq!(
            found(&caps("docs/agent", "1.2")),
            vec![
                c("capability-invalid-url", "/identity/documentationUrl"),
                c("capability-invalid-version", "/identity/version")
            ]
        );
        for bad in ["V1.2.0", " 1.2.0", "01.2.0", "vv1.2.0", "latest", ""] {
            assert_eq!(run(&caps("https://x.example", bad)).len(), 1, "{bad}");
        }
        let diagnostics = run(&caps("example.com", "1.2.0"));
        assert_eq!(diagnostics[0].severity, Severity::Warning);
        assert_eq!(
            diagnostics[0].message,
            "identity.documentationUrl 'example.com' is not an absolute URL: relative URL without a base"
        );
    }

    #[test]
    fn output_mime_types() {
        let caps = json!({"output": {"supportedMimeTypes":
            ["text/plain", "json", 7, "image/*", "text/markdown; charset=utf-8"]}});
        assert_eq!(
            found(&caps),
            pairs(&[
                (
                    "capability-invalid-mime-type",
                    "/output/supportedMimeTypes/1"
                ),
                (
                    "capability-invalid-mime-type",
                    "/output/supportedMimeTypes/3"
                ),
            ])
        );
    }

    #[test]
    fn malformed_shapes_are_skipped() {
        for caps in [
            json!(null),
            json!([]),
            json!({"tools": [], "execution": 5, "identity": "x", "output": {"supportedMimeTypes": "a"}}),
            json!({"humanInTheLoop": {"supported": false, "approvals": "yes"}}),
            json!({"tools": {"supported": false, "items": "many"}}),
        ] {
            assert!(run(&caps).is_empty(), "{caps}");
        }
    }
}
