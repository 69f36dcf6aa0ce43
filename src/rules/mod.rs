//! The rule registry: every rule agui-lint can report, with its stable name,
//! default severity, one-line summary and documentation.
//!
//! Names read as the violation and never change once released. The registry
//! is one list ([`RULES`]); each rule family keeps its rules' metadata next to
//! its checks.

mod schema;

use crate::diagnostic::Severity;

/// A rule: what it is called, how serious it is by default, and its docs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rule {
    /// Stable kebab-case name, e.g. `missing-field`.
    pub name: &'static str,
    /// Severity unless configured otherwise.
    pub severity: Severity,
    /// One line saying what the rule reports.
    pub summary: &'static str,
    /// Markdown documentation: what it checks, why it matters, an invalid
    /// and a valid example.
    pub docs: &'static str,
}

/// Every registered rule, in documentation order.
pub static RULES: &[Rule] = &[
    schema::INVALID_JSON,
    schema::DUPLICATE_KEY,
    schema::UNKNOWN_KIND,
    schema::MISSING_FIELD,
    schema::WRONG_TYPE,
    schema::INVALID_VALUE,
    schema::NULL_FOR_OPTIONAL,
    schema::UNKNOWN_FIELD,
    schema::SCHEMA_VIOLATION,
];

/// The rule named `name`, if registered.
pub fn rule(name: &str) -> Option<&'static Rule> {
    RULES.iter().find(|r| r.name == name)
}

/// The default severity of the rule named `name`.
///
/// # Panics
///
/// Never for a name the crate itself reports: a test checks that every rule
/// the crate reports is registered. Unknown names are treated as errors.
pub(crate) fn default_severity(name: &str) -> Severity {
    rule(name).map_or(Severity::Error, |r| r.severity)
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use super::*;

    #[test]
    fn names_are_unique_kebab_case() {
        let mut seen = HashSet::new();
        for rule in RULES {
            assert!(seen.insert(rule.name), "{} registered twice", rule.name);
            assert!(
                rule.name
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c == '-'),
                "{} is not kebab-case",
                rule.name
            );
        }
    }

    #[test]
    fn every_rule_is_documented_with_both_examples() {
        for rule in RULES {
            assert!(!rule.summary.is_empty(), "{} has no summary", rule.name);
            for section in [
                "## What it checks",
                "## Why it matters",
                "## Invalid",
                "## Valid",
            ] {
                assert!(
                    rule.docs.contains(section),
                    "{} docs lack '{section}'",
                    rule.name
                );
            }
        }
    }
}
