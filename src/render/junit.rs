//! `--format junit`: JUnit XML, which CI systems show as test results: a
//! testsuite per file, a testcase per document, a failure carrying the
//! findings of each document that fails.

use std::io::{self, Write};
use std::sync::Arc;

use quick_junit::{NonSuccessKind, Report, TestCase, TestCaseStatus, TestSuite};

use super::pieces::Spool;
use super::{plural, Emit, Options, Tally};
use crate::check::{Checked, Failure};
use crate::Severity;

/// The JUnit report. A document fails on an error, or on a warning under
/// `--strict`; findings of a passing document are kept in its
/// `system-out`. An unreadable file is a testsuite whose one testcase has
/// an `error`.
///
/// The report's and each testsuite's opening tags carry counts known only
/// once their documents are all in, so each testcase is spooled as its
/// document arrives, a testsuite is spooled whole once the next file
/// begins, and the report is written at the end. Every piece is written by
/// quick_junit, cut out of a report holding just that piece.
pub(super) struct Junit {
    options: Options,
    /// The testsuite being filled: its file and counts.
    suite: Option<Suite>,
    /// The open testsuite's testcases.
    cases: Spool,
    /// The closed testsuites.
    suites: Spool,
    /// Testcases and failing ones over the closed testsuites.
    tests: usize,
    failures: usize,
    /// A clean testcase of the open testsuite cut around its name, which
    /// is all that changes from one clean document of a file to the next.
    clean: Option<(String, String)>,
}

/// The name a clean testcase's template is written with, then replaced.
const NAME_MARK: &str = "agui-lint-testcase-name";

/// A testsuite's file and counts.
struct Suite {
    path: Arc<str>,
    tests: usize,
    failures: usize,
}

impl Junit {
    pub(super) fn new(options: &Options) -> Self {
        Junit {
            options: *options,
            suite: None,
            cases: Spool::default(),
            suites: Spool::default(),
            tests: 0,
            failures: 0,
            clean: None,
        }
    }

    /// Moves the open testsuite, with its testcases, to the closed ones.
    fn close_suite(&mut self) -> io::Result<()> {
        let Some(open) = self.suite.take() else {
            return Ok(());
        };
        self.clean = None;
        let mut suite = TestSuite::new(&*open.path);
        // A testcase, so that the testsuite is written as an opening tag
        // rather than an empty element; the counts are then set.
        suite.add_test_case(TestCase::new("", TestCaseStatus::success()));
        suite.tests = open.tests;
        suite.failures = open.failures;
        let text = report_of(suite)?;
        // The opening tag is on the report's third line (the declaration
        // and `<testsuites ...>` hold no line break); quick_xml escapes `>`
        // in attribute values, so the first `>` closes the tag.
        let start = nth_line_break(&text, 2)?;
        let end = text[start..]
            .find('>')
            .map(|i| start + i + 1)
            .ok_or_else(broken)?;
        self.suites.write_all(&text.as_bytes()[start..end])?;
        self.cases.drain_to(&mut self.suites)?;
        self.suites.write_all(SUITE_END.as_bytes())?;
        self.tests += open.tests;
        self.failures += open.failures;
        Ok(())
    }
}

/// How quick_junit closes a testsuite, then the report.
const SUITE_END: &str = "\n    </testsuite>";
const REPORT_END: &str = "\n</testsuites>\n";

impl Emit for Junit {
    fn begin(&mut self, _: &mut dyn Write) -> io::Result<()> {
        Ok(())
    }

    fn document(&mut self, _: &mut dyn Write, document: &Checked) -> io::Result<()> {
        if self
            .suite
            .as_ref()
            .is_some_and(|suite| suite.path != document.path)
        {
            self.close_suite()?;
        }
        let suite = self.suite.get_or_insert_with(|| Suite {
            path: document.path.clone(),
            tests: 0,
            failures: 0,
        });
        suite.tests += 1;
        suite.failures += usize::from(document.fails(self.options.strict));
        // Most documents of a long capture are clean, and a clean testcase
        // differs from the last only in its name; a name quick_xml would
        // escape takes the long way.
        let plain = |name: &str| {
            !name
                .chars()
                .any(|c| matches!(c, '<' | '>' | '&' | '\'' | '"') || c.is_control())
        };
        if document.is_clean() {
            let name = document.place();
            if let Some(name) = name.as_deref().filter(|name| plain(name)) {
                if self.clean.is_none() {
                    let mut case = TestCase::new(NAME_MARK, TestCaseStatus::success());
                    case.set_classname(&*document.path);
                    let text = case_text(case)?;
                    let (before, after) = text
                        .split_once(&format!("name=\"{NAME_MARK}\""))
                        .ok_or_else(broken)?;
                    self.clean = Some((format!("{before}name=\""), format!("\"{after}")));
                }
                if let Some((before, after)) = &self.clean {
                    self.cases.write_all(before.as_bytes())?;
                    self.cases.write_all(name.as_bytes())?;
                    return self.cases.write_all(after.as_bytes());
                }
            }
        }
        let case = case_text(test_case(document, &self.options))?;
        self.cases.write_all(case.as_bytes())
    }

    fn finish(&mut self, out: &mut dyn Write, _: &Tally, failures: &[Failure]) -> io::Result<()> {
        self.close_suite()?;
        for failure in failures {
            let mut status = TestCaseStatus::non_success(NonSuccessKind::Error);
            status.set_message(failure.message.as_str());
            let mut case = TestCase::new(failure.path.as_str(), status);
            case.set_classname(failure.path.as_str());
            let mut suite = TestSuite::new(failure.path.as_str());
            suite.add_test_case(case);
            let text = report_of(suite)?;
            let start = nth_line_break(&text, 2)?;
            let piece = text[start..].strip_suffix(REPORT_END).ok_or_else(broken)?;
            self.suites.write_all(piece.as_bytes())?;
        }
        let mut report = Report::new("agui-lint");
        report.tests = self.tests + failures.len();
        report.failures = self.failures;
        report.errors = failures.len();
        let text = report.to_string().map_err(io::Error::other)?;
        let head = text.strip_suffix(REPORT_END).ok_or_else(broken)?;
        out.write_all(head.as_bytes())?;
        self.suites.drain_to(out)?;
        out.write_all(REPORT_END.as_bytes())
    }

    fn shows_clean(&self) -> bool {
        true
    }

    #[cfg(test)]
    fn held(&self) -> usize {
        self.cases.held() + self.suites.held()
    }
}

/// A testcase as quick_junit writes it in a testsuite.
fn case_text(case: TestCase) -> io::Result<String> {
    let mut holder = TestSuite::new("s");
    holder.add_test_case(case);
    let text = report_of(holder)?;
    // The testcase starts on the report's fourth line and ends where its
    // testsuite does.
    let start = nth_line_break(&text, 3)?;
    text[start..]
        .strip_suffix(&format!("{SUITE_END}{REPORT_END}"))
        .map(str::to_string)
        .ok_or_else(broken)
}

/// The report holding `suite` alone, as quick_junit writes it.
fn report_of(suite: TestSuite) -> io::Result<String> {
    let mut report = Report::new("agui-lint");
    report.add_test_suite(suite);
    report.to_string().map_err(io::Error::other)
}

/// The byte offset of the `n`-th line break of `text` (1-based).
fn nth_line_break(text: &str, n: usize) -> io::Result<usize> {
    text.match_indices('\n')
        .nth(n - 1)
        .map(|(i, _)| i)
        .ok_or_else(broken)
}

/// quick_junit wrote a report of another shape than the one cut here.
fn broken() -> io::Error {
    io::Error::other("unexpected JUnit report shape")
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

/// One line per finding, `line:col: severity[rule] message`, then indented
/// lines for where it is (`at POINTER in PLACE`), its help and each related
/// place.
fn findings(document: &Checked) -> String {
    let mut text = String::new();
    for d in document.report.diagnostics() {
        if let Some(location) = d.location.map(|l| document.file_location(l)) {
            text.push_str(&format!("{}:{}: ", location.line, location.column));
        }
        text.push_str(&format!("{}[{}] {}\n", d.severity, d.rule, d.message));
        text.push_str(&format!("  {}\n", super::where_text(document, d)));
        if let Some(help) = &d.help {
            text.push_str(&format!("  help: {help}\n"));
        }
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
