//! Where a document's findings go, and the bound on how many it keeps.
//!
//! Every check reports through a [`Findings`] sink, which is told the rule
//! of a finding before the finding is built: a sink that only asks whether
//! there is one ([`AnyFound`]) builds nothing, and one whose room is used
//! up ([`Capped`]) counts the finding by rule and builds nothing either. A
//! document with a million findings therefore costs the memory of the
//! first [`crate::Limits::max_findings`] and a count per rule
//! (`too-many-findings`), and no pointer or message of the rest is made.

use std::borrow::Cow;

use crate::diagnostic::{Diagnostic, Severity};

/// The rule of a finding, as far as a sink needs to know it before the
/// finding is built.
pub(crate) trait RuleId {
    /// The rule's stable name.
    fn name(&self) -> &'static str;
    /// Its default severity.
    fn severity(&self) -> Severity;
}

/// Where the rules' findings go.
pub(crate) trait Findings {
    /// Records the finding of `rule` that `make` builds. A sink that only
    /// asks whether there is one, or has no room left, does not call it.
    fn add<R: RuleId>(&mut self, rule: &R, make: impl FnOnce(&R) -> Diagnostic) {
        self.add_as(rule, rule.severity(), make);
    }

    /// As [`Findings::add`], for a finding whose severity is not its
    /// rule's default (it depends on the version judging, say): the built
    /// finding takes `severity`.
    fn add_as<R: RuleId>(
        &mut self,
        rule: &R,
        severity: Severity,
        make: impl FnOnce(&R) -> Diagnostic,
    );

    /// Records a finding already built.
    fn push(&mut self, diagnostic: Diagnostic);

    /// Records `count` findings of `rule` that were never built, because
    /// they lie past the document's limit (the reader of the fast path
    /// keeps no more of an object's unknown keys than a document reports).
    fn add_unbuilt<R: RuleId>(&mut self, rule: &R, count: usize);
}

impl Findings for Vec<Diagnostic> {
    fn add_as<R: RuleId>(
        &mut self,
        rule: &R,
        severity: Severity,
        make: impl FnOnce(&R) -> Diagnostic,
    ) {
        let mut diagnostic = make(rule);
        diagnostic.severity = severity;
        self.push(diagnostic);
    }

    fn push(&mut self, diagnostic: Diagnostic) {
        Vec::push(self, diagnostic);
    }

    /// A list keeps everything, so nothing reaches it unbuilt; were
    /// something to, it is dropped rather than made up.
    fn add_unbuilt<R: RuleId>(&mut self, _: &R, _: usize) {}
}

/// Whether anything was found, without what.
#[derive(Debug, Default)]
pub(crate) struct AnyFound(pub bool);

impl Findings for AnyFound {
    fn add_as<R: RuleId>(&mut self, _: &R, _: Severity, _: impl FnOnce(&R) -> Diagnostic) {
        self.0 = true;
    }

    fn push(&mut self, _: Diagnostic) {
        self.0 = true;
    }

    fn add_unbuilt<R: RuleId>(&mut self, _: &R, count: usize) {
        self.0 |= count > 0;
    }
}

/// Which findings a document reports, and how seriously: the settings'
/// `select`, `ignore` and severity overrides, asked before a finding is
/// built so that a rule nobody reports costs nothing.
pub(crate) trait Policy {
    /// Whether findings of `rule` are reported at all.
    fn reports(&self, rule: &str) -> bool;
    /// The severity a finding of `rule` is reported with, `severity` being
    /// the one it was made with.
    fn severity_of(&self, rule: &str, severity: Severity) -> Severity;
}

/// The name of the summary finding of a document with more findings than
/// it keeps.
pub(crate) const TOO_MANY_FINDINGS: &str = "too-many-findings";

/// The findings of one document: the first `limit` that `policy` reports
/// are kept, the rest counted by rule and severity. A finding that is
/// counted is never built.
pub(crate) struct Capped<'p, P: Policy> {
    policy: &'p P,
    limit: usize,
    kept: Vec<Diagnostic>,
    /// The findings past the limit: (rule, severity, how many), in the
    /// order their rules were first met.
    over: Vec<(Cow<'static, str>, Severity, usize)>,
}

impl<'p, P: Policy> Capped<'p, P> {
    /// A sink keeping at most `limit` findings that `policy` reports.
    pub(crate) fn new(policy: &'p P, limit: usize) -> Self {
        Capped {
            policy,
            limit,
            kept: Vec::new(),
            over: Vec::new(),
        }
    }

    /// Whether a finding would still be kept rather than counted.
    pub(crate) fn has_room(&self) -> bool {
        self.kept.len() < self.limit
    }

    /// Counts `count` findings of `rule`, made with `severity`, that were
    /// never built (a parser's repeated keys past the limit, say).
    pub(crate) fn count(&mut self, rule: &'static str, severity: Severity, count: usize) {
        if count == 0 || !self.policy.reports(rule) {
            return;
        }
        self.tally(Cow::Borrowed(rule), severity, count);
    }

    fn tally(&mut self, rule: Cow<'static, str>, severity: Severity, count: usize) {
        let severity = self.policy.severity_of(&rule, severity);
        match self
            .over
            .iter_mut()
            .find(|(name, level, _)| *name == rule && *level == severity)
        {
            Some((_, _, n)) => *n += count,
            None => self.over.push((rule, severity, count)),
        }
    }

    /// The kept findings, and, when some were only counted, the
    /// `too-many-findings` finding that says how many of which rules, as
    /// serious as the most serious of them (so that a document whose
    /// errors were only counted is still invalid).
    pub(crate) fn finish(self) -> Vec<Diagnostic> {
        let mut kept = self.kept;
        if let Some(summary) = summary(self.limit, self.over) {
            if self.policy.reports(TOO_MANY_FINDINGS) {
                kept.push(summary);
            }
        }
        kept
    }
}

/// The `too-many-findings` finding for the findings `over` the `limit`.
fn summary(
    limit: usize,
    mut over: Vec<(Cow<'static, str>, Severity, usize)>,
) -> Option<Diagnostic> {
    let total: usize = over.iter().map(|(_, _, n)| n).sum();
    let severity = over.iter().map(|(_, s, _)| *s).max()?;
    // Most frequent first, then by name, so the text is the same however
    // the findings were met.
    over.sort_by(|a, b| {
        b.2.cmp(&a.2)
            .then_with(|| a.0.cmp(&b.0))
            .then(b.1.cmp(&a.1))
    });
    let listed: Vec<String> = over
        .iter()
        .take(MAX_LISTED_RULES)
        .map(|(rule, severity, n)| format!("{} {rule} ({severity})", crate::text::count(*n)))
        .collect();
    let rest = over.len().saturating_sub(MAX_LISTED_RULES);
    let tail = if rest > 0 {
        format!(" and {rest} more rules")
    } else {
        String::new()
    };
    let mut diagnostic = Diagnostic::new(
        TOO_MANY_FINDINGS,
        severity,
        "",
        format!(
            "{} beyond the first {} {} counted, not reported: {}{tail}",
            crate::text::counted(total, "finding"),
            crate::text::count(limit),
            if total == 1 { "was" } else { "were" },
            listed.join(", ")
        ),
    )
    .with_help(
        "raise the limit with --max-findings (max-findings under [limits]) to see them; \
         the document was checked whole",
    );
    diagnostic.location = Some(crate::diagnostic::Location { line: 1, column: 1 });
    Some(diagnostic)
}

/// How many rules the summary names before it says how many more.
const MAX_LISTED_RULES: usize = 8;

impl<P: Policy> Findings for Capped<'_, P> {
    fn add_as<R: RuleId>(
        &mut self,
        rule: &R,
        severity: Severity,
        make: impl FnOnce(&R) -> Diagnostic,
    ) {
        if !self.policy.reports(rule.name()) {
            return;
        }
        if self.has_room() {
            let mut diagnostic = make(rule);
            diagnostic.severity = severity;
            self.kept.push(diagnostic);
        } else {
            self.tally(Cow::Borrowed(rule.name()), severity, 1);
        }
    }

    fn push(&mut self, diagnostic: Diagnostic) {
        if !self.policy.reports(&diagnostic.rule) {
            return;
        }
        if self.has_room() {
            self.kept.push(diagnostic);
        } else {
            let Diagnostic { rule, severity, .. } = diagnostic;
            self.tally(Cow::Owned(rule), severity, 1);
        }
    }

    fn add_unbuilt<R: RuleId>(&mut self, rule: &R, count: usize) {
        if count > 0 && self.policy.reports(rule.name()) {
            self.tally(Cow::Borrowed(rule.name()), rule.severity(), count);
        }
    }
}

/// A sink that places every finding (and its related notes) under
/// `prefix`, for a document embedded in another (a `RUN_STARTED`'s
/// `input`), whose findings are made relative to itself.
pub(crate) struct Prefixed<'a, F> {
    /// Where the findings go.
    pub(crate) inner: &'a mut F,
    /// The pointer of the embedded document.
    pub(crate) prefix: &'a str,
}

fn under(prefix: &str, mut diagnostic: Diagnostic) -> Diagnostic {
    diagnostic.pointer.insert_str(0, prefix);
    for related in &mut diagnostic.related {
        related.pointer.insert_str(0, prefix);
    }
    diagnostic
}

impl<F: Findings> Findings for Prefixed<'_, F> {
    fn add_as<R: RuleId>(
        &mut self,
        rule: &R,
        severity: Severity,
        make: impl FnOnce(&R) -> Diagnostic,
    ) {
        let prefix = self.prefix;
        self.inner
            .add_as(rule, severity, |rule| under(prefix, make(rule)));
    }

    fn add_unbuilt<R: RuleId>(&mut self, rule: &R, count: usize) {
        self.inner.add_unbuilt(rule, count);
    }

    fn push(&mut self, diagnostic: Diagnostic) {
        self.inner.push(under(self.prefix, diagnostic));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Rule(&'static str, Severity);

    impl RuleId for Rule {
        fn name(&self) -> &'static str {
            self.0
        }
        fn severity(&self) -> Severity {
            self.1
        }
    }

    /// Every rule reported with the severity it was made with.
    struct Everything;

    impl Policy for Everything {
        fn reports(&self, _: &str) -> bool {
            true
        }
        fn severity_of(&self, _: &str, severity: Severity) -> Severity {
            severity
        }
    }

    fn counted<P: Policy>(sink: &Capped<'_, P>) -> usize {
        sink.over.iter().map(|(_, _, n)| n).sum()
    }

    const A: Rule = Rule(crate::rules::messages::EMPTY_ID.name, Severity::Warning);
    const B: Rule = Rule(
        crate::rules::messages::DUPLICATE_MESSAGE_ID.name,
        Severity::Error,
    );

    /// Ignores `empty-id`.
    struct Ignoring;

    impl Policy for Ignoring {
        fn reports(&self, rule: &str) -> bool {
            rule != crate::rules::messages::EMPTY_ID.name
        }
        fn severity_of(&self, _: &str, severity: Severity) -> Severity {
            severity
        }
    }

    #[test]
    fn findings_past_the_limit_are_counted_and_never_built() {
        let mut built = 0;
        let mut sink = Capped::new(&Everything, 3);
        for _ in 0..5 {
            sink.add(&A, |rule| {
                built += 1;
                Diagnostic::new(rule.name(), rule.severity(), "/a", "empty")
            });
        }
        sink.push(Diagnostic::new(
            crate::rules::messages::DUPLICATE_MESSAGE_ID.name,
            Severity::Error,
            "/b",
            "again",
        ));
        sink.count(
            crate::rules::schema::DUPLICATE_KEY.name,
            Severity::Error,
            10,
        );
        assert_eq!(built, 3);
        assert_eq!(counted(&sink), 13);
        let findings = sink.finish();
        assert_eq!(findings.len(), 4);
        let summary = &findings[3];
        assert_eq!(summary.rule, TOO_MANY_FINDINGS);
        // The most serious of what was counted: an error was among them.
        assert_eq!(summary.severity, Severity::Error);
        assert_eq!(
            summary.message,
            "13 findings beyond the first 3 were counted, not reported: \
             10 duplicate-key (error), 2 empty-id (warning), 1 duplicate-message-id (error)"
        );
    }

    #[test]
    fn a_document_within_the_limit_has_no_summary() {
        let mut sink = Capped::new(&Everything, 2);
        sink.add(&B, |rule| {
            Diagnostic::new(rule.name(), rule.severity(), "", "x")
        });
        sink.add(&A, |rule| {
            Diagnostic::new(rule.name(), rule.severity(), "", "y")
        });
        assert!(!sink.has_room());
        let findings = sink.finish();
        assert_eq!(findings.len(), 2);
        assert!(findings.iter().all(|d| d.rule != TOO_MANY_FINDINGS));
    }

    #[test]
    fn rules_nobody_reports_take_no_room_and_are_not_counted() {
        let mut sink = Capped::new(&Ignoring, 1);
        for _ in 0..3 {
            sink.add(&A, |_| unreachable!("an ignored rule is never built"));
        }
        sink.add(&B, |rule| {
            Diagnostic::new(rule.name(), rule.severity(), "", "x")
        });
        sink.add(&B, |rule| {
            Diagnostic::new(rule.name(), rule.severity(), "", "x")
        });
        sink.count(crate::rules::messages::EMPTY_ID.name, Severity::Warning, 7);
        assert_eq!(counted(&sink), 1);
        let findings = sink.finish();
        assert_eq!(
            findings[0].rule,
            crate::rules::messages::DUPLICATE_MESSAGE_ID.name
        );
        assert!(findings[1]
            .message
            .starts_with("1 finding beyond the first 1 was counted"));
    }

    #[test]
    fn a_severity_given_with_the_finding_wins() {
        let mut sink = Capped::new(&Everything, 1);
        sink.add_as(&B, Severity::Warning, |rule| {
            Diagnostic::new(rule.name(), rule.severity(), "", "x")
        });
        sink.add_as(&B, Severity::Warning, |_| unreachable!());
        let findings = sink.finish();
        assert_eq!(findings[0].severity, Severity::Warning);
        assert_eq!(findings[1].severity, Severity::Warning);
    }
}
