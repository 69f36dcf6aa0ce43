//! Tool names: unique within their list, and in the form model providers
//! accept.

use crate::diagnostic::{Diagnostic, Severity};
use crate::findings::Findings;
use crate::rules::walk::repeats;
use crate::rules::Rule;
use crate::rules::EVERY_VERSION;
use crate::text::quote;

pub(super) const DUPLICATE_TOOL_NAME: Rule = Rule {
    name: "duplicate-tool-name",
    severity: Severity::Error,
    protocols: EVERY_VERSION,
    severity_1x: None,
    summary: "Two tools in one list share a name",
    docs: r##"## What it checks
That no two tools of one list (a RunAgentInput's `tools`, a tools array,
capabilities `tools.items`) have the same `name`. The finding points at the
later tool's name, with the first as related information. Names are
compared exactly, case included.

## Why it matters
A model calls a tool by its name only, so the agent cannot tell which of
the two was meant; OpenAI and Anthropic reject a request whose tools repeat
a name.

## Invalid
```json
[{"name": "search", "description": "Search the web", "parameters": {"type": "object"}},
 {"name": "search", "description": "Search the docs", "parameters": {"type": "object"}}]
```

## Valid
```json
[{"name": "search_web", "description": "Search the web", "parameters": {"type": "object"}},
 {"name": "search_docs", "description": "Search the docs", "parameters": {"type": "object"}}]
```
"##,
};

pub(crate) const TOOL_NAME_FORMAT: Rule = Rule {
    name: "tool-name-format",
    severity: Severity::Warning,
    protocols: EVERY_VERSION,
    severity_1x: None,
    summary: "A tool name is not 1 to 64 ASCII letters, digits, '_' or '-'",
    docs: r##"## What it checks
That each tool's `name` matches `^[a-zA-Z0-9_-]{1,64}$`: not empty, at most
64 characters, only ASCII letters, digits, underscores and hyphens (no
spaces, dots, slashes or non-ASCII letters).

## Why it matters
The protocol allows any string, but the major model providers (OpenAI,
Anthropic, Gemini) reject a function name outside this form, so the run
fails once the agent forwards the tool to its model.

## Invalid
```json
{"name": "get weather", "description": "Current weather", "parameters": {"type": "object"}}
```

## Valid
```json
{"name": "get_weather", "description": "Current weather", "parameters": {"type": "object"}}
```
"##,
};

/// The longest name the major model providers accept.
const MAX_NAME_LEN: usize = 64;

/// The name rules on one list of tools: `names` are their names (when
/// strings), and tool `index` sits at `tool_at(index)`.
pub(crate) fn check_names(
    names: &[Option<&str>],
    tool_at: impl Fn(usize) -> String,
    out: &mut impl Findings,
) {
    let name_at = |index: usize| format!("{}/name", tool_at(index));
    let named = names
        .iter()
        .enumerate()
        .filter_map(|(index, name)| Some(((*name)?, index)));
    for (name, index, earlier) in repeats(named.clone()) {
        out.add(&DUPLICATE_TOOL_NAME, |rule| {
            rule.diagnostic(
                name_at(index),
                format!(
                    "tool name {} is already used by an earlier tool in this list",
                    quote(name)
                ),
            )
            .with_help(
                "the model calls a tool by name only; rename one of the tools or remove the copy",
            )
            .with_related(name_at(earlier), "first tool with this name")
        });
    }
    for (name, index) in named {
        if !is_well_formed(name) {
            out.add(&TOOL_NAME_FORMAT, |_| name_format(name, name_at(index)));
        }
    }
}

/// The finding on `name`, at `at`, which model providers would reject.
fn name_format(name: &str, at: String) -> Diagnostic {
    let mut bad: Vec<char> = Vec::new();
    for c in name.chars() {
        if !is_name_char(c) && !bad.contains(&c) {
            bad.push(c);
        }
    }
    let len = name.chars().count();
    // A name of allowed characters that is not well formed is too long.
    let problem = match (len, bad.is_empty()) {
        (0, _) => "is empty".to_string(),
        (len, true) => format!("is {len} characters long, more than {MAX_NAME_LEN}"),
        (len, false) if len <= MAX_NAME_LEN => format!("contains {}", list_chars(&bad)),
        (len, false) => format!(
            "contains {} and is {len} characters long, more than {MAX_NAME_LEN}",
            list_chars(&bad)
        ),
    };
    let mut help = format!(
        "OpenAI, Anthropic and Gemini accept only ASCII letters, digits, '_' and '-', 1 to {MAX_NAME_LEN} characters"
    );
    let suggestion = suggest(name);
    if !suggestion.is_empty() && suggestion != name {
        // Not `quote`, which would cut it: it is at most 64 safe characters.
        help.push_str(&format!(", such as '{suggestion}'"));
    }
    TOOL_NAME_FORMAT
        .diagnostic(at, format!("tool name {} {problem}", quote(name)))
        .with_help(help)
}

/// Whether `name` is in the form `tool-name-format` asks for: 1 to 64
/// ASCII letters, digits, '_' or '-'.
pub(crate) fn is_well_formed(name: &str) -> bool {
    // Every accepted character is one byte, so bytes count characters.
    (1..=MAX_NAME_LEN).contains(&name.len()) && name.chars().all(is_name_char)
}

fn is_name_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '-'
}

/// The offending characters, quoted (at most five, so that a hostile name
/// cannot blow up the message).
fn list_chars(chars: &[char]) -> String {
    let shown: Vec<String> = chars
        .iter()
        .take(5)
        .map(|c| quote(&c.to_string()))
        .collect();
    let more = if chars.len() > 5 { " and others" } else { "" };
    format!("{}{more}", shown.join(", "))
}

/// A name in the accepted form close to `name`: other characters become
/// `_`, cut to the length limit.
fn suggest(name: &str) -> String {
    name.chars()
        .map(|c| if is_name_char(c) { c } else { '_' })
        .take(MAX_NAME_LEN)
        .collect()
}

#[cfg(test)]
mod tests {
    use serde_json::{json, Value};

    use super::*;
    use crate::rules::walk::Document;
    use crate::Kind;

    fn run(kind: Kind, value: &Value) -> Vec<Diagnostic> {
        let document = Document {
            kind,
            root: value,
            limits: crate::Limits::default(),
            protocol: crate::Protocol::V0,
        };
        let mut out = Vec::new();
        for tools in document.tool_lists() {
            let names: Vec<Option<&str>> = tools.iter().map(|tool| tool.str("name")).collect();
            check_names(&names, |index| tools[index].pointer.clone(), &mut out);
        }
        out
    }

    #[test]
    fn duplicate_points_at_the_later_name_and_relates_the_first() {
        let tools = json!([{"name": "a"}, {"name": "b"}, {"name": "a"}, {"name": "a"}]);
        let out = run(Kind::Tools, &tools);
        assert_eq!(out.len(), 2);
        assert_eq!(out[0].rule, "duplicate-tool-name");
        assert_eq!(out[0].pointer, "/2/name");
        assert_eq!(out[0].related[0].pointer, "/0/name");
        assert_eq!(out[1].pointer, "/3/name");
        assert_eq!(out[1].related[0].pointer, "/0/name");
    }

    #[test]
    fn names_differing_in_case_are_distinct() {
        let tools = json!([{"name": "Search"}, {"name": "search"}]);
        assert!(run(Kind::Tools, &tools).is_empty());
    }

    #[test]
    fn name_format_edges() {
        let ok = "a".repeat(64);
        for name in ["get_weather", "get-weather", "A1", &ok] {
            let tool = json!({ "name": name });
            assert!(run(Kind::Tool, &tool).is_empty(), "{name}");
        }
        let long = "a".repeat(65);
        for (name, says) in [
            ("", "is empty"),
            ("get weather", "contains ' '"),
            ("ns.get", "contains '.'"),
            ("météo", "contains 'é'"),
            (long.as_str(), "65 characters long"),
            ("a\n", "contains '\\n'"),
        ] {
            let tool = json!({ "name": name });
            let out = run(Kind::Tool, &tool);
            assert_eq!(out.len(), 1, "{name:?}");
            assert_eq!(out[0].rule, "tool-name-format");
            assert!(out[0].message.contains(says), "{}", out[0].message);
            assert!(!out[0].message.ends_with('.'));
        }
    }

    #[test]
    fn suggestion_replaces_bad_characters() {
        let tool = json!({"name": "get weather"});
        let out = run(Kind::Tool, &tool);
        assert!(out[0]
            .help
            .as_deref()
            .is_some_and(|h| h.contains("'get_weather'")));
    }

    #[test]
    fn malformed_tools_are_skipped() {
        for tools in [
            json!([1, null, {"name": 3}, {"name": null}]),
            json!("tools"),
        ] {
            assert!(run(Kind::Tools, &tools).is_empty());
        }
    }
}
