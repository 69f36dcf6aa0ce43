//! The schema's findings on their way to a document's sink, noting where
//! the schema already reported so that the interoperability rule does not
//! say it a second time. Shared by the full path and the path a message at
//! a time.

use crate::diagnostic::Diagnostic;
use crate::findings::Findings;
use crate::rules;

/// The schema's findings on their way to `inner`, each with its rule's
/// default severity, the pointers of the `schema-violation` ones noted in
/// `bounded` (up to `bound` of them).
pub(super) struct SchemaFindings<'a, F> {
    pub(super) inner: &'a mut F,
    pub(super) bounded: &'a mut foldhash::HashSet<String>,
    pub(super) bound: usize,
}

impl<F: Findings> Findings for SchemaFindings<'_, F> {
    fn add_as<R: crate::findings::RuleId>(
        &mut self,
        rule: &R,
        severity: crate::Severity,
        make: impl FnOnce(&R) -> Diagnostic,
    ) {
        self.inner.add_as(rule, severity, make);
    }

    fn add_unbuilt<R: crate::findings::RuleId>(&mut self, rule: &R, count: usize) {
        self.inner.add_unbuilt(rule, count);
    }

    fn push(&mut self, mut diagnostic: Diagnostic) {
        diagnostic.severity = rules::default_severity(&diagnostic.rule);
        if diagnostic.rule == crate::rules::SCHEMA_VIOLATION.name && self.bounded.len() < self.bound
        {
            self.bounded.insert(diagnostic.pointer.clone());
        }
        self.inner.push(diagnostic);
    }
}

/// How many `schema-violation` pointers a document keeps for leaving out
/// the interoperability warning at the same place.
pub(super) fn out_bound(max_findings: usize) -> usize {
    max_findings.saturating_mul(4).max(64)
}
