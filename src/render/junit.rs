//! `--format junit`: JUnit XML, which CI systems show as test results: a
//! testsuite per file, a testcase per document, a failure carrying the
//! findings of each document that fails.

use quick_junit::{NonSuccessKind, Report, TestCase, TestCaseStatus, TestSuite};

use super::{plural, Options};
use crate::check::{Checked, Outcome};
use crate::Severity;

/// The JUnit report of `outcome`. A document fails on an error, or on a
/// warning under `--strict`; findings of a passing document are kept in
/// its `system-out`. An unreadable file is a testsuite whose one testcase
/// has an `error`.
pub fn render(outcome: &Outcome, options: &Options) -> String {
    let mut report = Report::new("agui-lint");
    let mut documents = outcome.documents().peekable();
    while let Some(first) = documents.next() {
        let mut suite = TestSuite::new(&*first.path);
        suite.add_test_case(test_case(&first, options));
        while let Some(next) = documents.next_if(|d| d.path == first.path) {
            suite.add_test_case(test_case(&next, options));
        }
        report.add_test_suite(suite);
    }
    for failure in &outcome.failures {
        let mut status = TestCaseStatus::non_success(NonSuccessKind::Error);
        status.set_message(failure.message.as_str());
        let mut case = TestCase::new(failure.path.as_str(), status);
        case.set_classname(failure.path.as_str());
        let mut suite = TestSuite::new(failure.path.as_str());
        suite.add_test_case(case);
        report.add_test_suite(suite);
    }
    report.to_string().unwrap_or_default()
}

fn test_case(document: &Checked, options: &Options) -> TestCase {
    let name = document
        .place()
        .unwrap_or_else(|| document.path.to_string());
    let findings = findings(document);
    let status = if document.fails(options.strict) {
        let mut status = TestCaseStatus::non_success(NonSuccessKind::Failure);
        status.set_message(counts(document));
        if let Some(first) = document
            .report
            .diagnostics()
            .iter()
            .find(|d| d.severity == Severity::Error)
            .or_else(|| document.report.diagnostics().first())
        {
            status.set_type(first.rule.as_str());
        }
        status.set_description(findings.as_str());
        status
    } else {
        TestCaseStatus::success()
    };
    let mut case = TestCase::new(name, status);
    case.set_classname(&*document.path);
    if !document.fails(options.strict) && !findings.is_empty() {
        case.set_system_out(findings);
    }
    case
}

/// "2 errors, 1 warning": what a failure's message says.
fn counts(document: &Checked) -> String {
    [Severity::Error, Severity::Warning, Severity::Info]
        .into_iter()
        .filter_map(|severity| {
            let n = document.report.count(severity);
            (n > 0).then(|| format!("{n} {severity}{}", plural(n)))
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// One line per finding, `line:col: severity[rule] message (at pointer)`,
/// and an indented `note:` line per related place.
fn findings(document: &Checked) -> String {
    let mut text = String::new();
    for d in document.report.diagnostics() {
        if let Some(location) = d.location.map(|l| document.file_location(l)) {
            text.push_str(&format!("{}:{}: ", location.line, location.column));
        }
        text.push_str(&format!("{}[{}] {}", d.severity, d.rule, d.message));
        if !d.pointer.is_empty() {
            text.push_str(&format!(" (at {})", d.pointer));
        }
        text.push('\n');
        for related in &d.related {
            let position = document.related_file_location(related);
            text.push_str(&format!(
                "  note: {}\n",
                super::related_text(related, position)
            ));
        }
    }
    text
}
