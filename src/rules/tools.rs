//! Rules over tool definitions: names, and whether `parameters` is a usable JSON Schema.
//!
//! They run on every place a Tool appears ([`Document::tool_lists`]): the
//! client's `RunAgentInput.tools`, a tools array, the agent's capabilities
//! `tools.items` and a single tool document. Names are checked in
//! [`names`], the `parameters` schema in [`parameters`], whose references
//! are found by [`references`].

mod cache;
mod cost;
pub(crate) mod names;
pub(crate) mod parameters;
mod references;
mod verdict;

pub(super) use cache::Compiled;
pub(crate) use names::check_names;
pub(super) use parameters::cached_arguments_validator;
pub(crate) use parameters::declare_nothing as parameters_declare_nothing;
pub(crate) use verdict::{verdict_by_text, ParametersVerdict};

use super::walk::Document;
use super::Rule;
use crate::findings::Findings;

/// The rules of this family, in documentation order.
pub(super) const RULES: &[Rule] = &[
    names::DUPLICATE_TOOL_NAME,
    names::TOOL_NAME_FORMAT,
    parameters::TOOL_PARAMETERS_INVALID_SCHEMA,
    parameters::TOOL_PARAMETERS_REMOTE_REF,
    parameters::TOOL_PARAMETERS_UNKNOWN_DRAFT,
    parameters::TOOL_PARAMETERS_NOT_OBJECT,
    parameters::TOOL_PARAMETERS_TOO_LARGE,
    parameters::TOOL_PARAMETERS_TOO_COMPLEX,
    parameters::TOOL_PARAMETERS_UNSUPPORTED_PATTERN,
];

/// Runs this family's checks on `document`.
pub(super) fn check(document: &Document<'_>, out: &mut impl Findings) {
    let mut found = Vec::new();
    for tools in document.tool_lists() {
        let names: Vec<Option<&str>> = tools.iter().map(|tool| tool.str("name")).collect();
        names::check_names(&names, |index| tools[index].pointer.clone(), out);
        for tool in &tools {
            // A bounded number of findings per tool.
            parameters::check_tool(
                tool,
                document.protocol,
                document.limits.max_tool_schema_nodes,
                &mut found,
            );
            for diagnostic in found.drain(..) {
                out.push(diagnostic);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The JSON example under `heading` in `docs`.
    fn example<'d>(docs: &'d str, heading: &str) -> &'d str {
        let section = docs.split(heading).nth(1).expect("section");
        let start = section.find("```json").expect("json block") + "```json".len();
        let end = section[start..].find("```").expect("end of block");
        &section[start..start + end]
    }

    #[test]
    fn docs_examples_fire_and_pass() {
        // The size budget's example stands for a schema of thousands of
        // values; a budget of 8 makes the example itself too large.
        let small_budget = crate::Settings::default().with_limits(crate::Limits {
            max_tool_schema_nodes: 8,
            ..crate::Limits::default()
        });
        for rule in RULES {
            let settings = if rule.name == parameters::TOOL_PARAMETERS_TOO_LARGE.name {
                small_budget.clone()
            } else {
                crate::Settings::default()
            };
            let validator = crate::Validator::new()
                .expect("validator")
                .with_settings(settings);
            for (heading, fires) in [("## Invalid", true), ("## Valid", false)] {
                let text = example(rule.docs, heading);
                let kind = if text.trim_start().starts_with('[') {
                    crate::Kind::Tools
                } else {
                    crate::Kind::Tool
                };
                let report = validator.validate(kind, text.as_bytes());
                let noisy: Vec<_> = report
                    .diagnostics()
                    .iter()
                    .filter(|d| d.severity >= crate::Severity::Warning)
                    .collect();
                if fires {
                    assert!(
                        noisy.iter().any(|d| d.rule == rule.name),
                        "{} {heading}: {noisy:#?}",
                        rule.name
                    );
                } else {
                    assert!(noisy.is_empty(), "{} {heading}: {noisy:#?}", rule.name);
                }
            }
        }
    }
}
