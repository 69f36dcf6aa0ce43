//! The kit's report: one line per scenario and check, in the human format,
//! JSON and JUnit (one test case per check), with the expected failures
//! applied.

use std::fmt::Write as _;

use quick_junit::{NonSuccessKind, Report, TestCase, TestCaseStatus, TestSuite};
use serde_json::{json, Value};

use super::checks::{Check, Level, ScenarioResult};
use super::exchange::request_named;
use super::expected::{Expected, Status};

/// The kit's output formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// Lines for a person.
    Human,
    /// One JSON document.
    Json,
    /// JUnit XML: a test suite per scenario, a test case per check.
    Junit,
}

/// A run of the kit judged: every scenario's checks with their status.
#[derive(Debug, Clone)]
pub struct Outcome {
    rows: Vec<(String, Check, Status)>,
    /// Expected-failure entries that match no check a run scenario judged.
    unmatched: Vec<String>,
    /// When every run the server served ended with `RUN_ERROR`: how many
    /// and the first error.
    agent_failed: Option<(usize, String)>,
    /// Whether a SHOULD failure fails the run (`--strict`).
    strict: bool,
    /// The command that sends each request again, when the driver saved
    /// them.
    again: Again,
}

/// The commands that send a suite's requests again, by scenario and
/// request (0-based), as a driver that saved them writes them.
#[derive(Debug, Clone, Default)]
pub struct Again {
    commands: std::collections::HashMap<(String, usize), String>,
}

impl Again {
    /// `command` sends the `n`-th request of `scenario` again.
    pub fn insert(&mut self, scenario: &str, n: usize, command: String) {
        self.commands.insert((scenario.to_owned(), n), command);
    }

    /// The command for the request a verdict's reason names first
    /// (`request 2 (…): …`).
    fn for_reason(&self, scenario: &str, why: &str) -> Option<&str> {
        self.commands
            .get(&(scenario.to_owned(), request_named(why)?))
            .map(String::as_str)
    }
}

/// How a check's status counts: the report's words and tallies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Tally {
    Passed,
    /// Failed, and fails the run.
    Failed,
    /// Failed, but at a level that does not fail the run (a SHOULD
    /// without `--strict`, advice): a warning.
    Warning,
    NotExercised,
    /// Failed for a cause reported under another check.
    SameCause,
    ExpectedFailure,
    FixedButListed,
}

impl Outcome {
    /// `results` with `expected` applied.
    pub fn new(results: &[ScenarioResult], expected: &Expected) -> Outcome {
        let rows = results
            .iter()
            .flat_map(|result| {
                result.judged.iter().map(|judged| {
                    (
                        result.scenario.clone(),
                        judged.check,
                        expected.status(&result.scenario, judged.check.id, &judged.verdict),
                    )
                })
            })
            .collect();
        let runs: usize = results.iter().map(|r| r.runs).sum();
        let mut errors = results.iter().flat_map(|r| &r.agent_errors);
        let agent_failed = match errors.next() {
            Some(first) if runs > 0 && errors.count() + 1 == runs => Some((runs, first.clone())),
            _ => None,
        };
        Outcome {
            rows,
            unmatched: expected.unmatched(results),
            agent_failed,
            strict: false,
            again: Again::default(),
        }
    }

    /// The outcome with the commands that send each request again, shown
    /// under the failure whose reason names the request.
    pub fn again(mut self, again: Again) -> Outcome {
        self.again = again;
        self
    }

    /// The outcome with SHOULD failures failing the run too (`strict`),
    /// as `--strict` asks; advice never fails it.
    pub fn strict(mut self, strict: bool) -> Outcome {
        self.strict = strict;
        self
    }

    fn tally(&self, check: &Check, status: &Status) -> Tally {
        match status {
            Status::Passed => Tally::Passed,
            Status::Failed(_) if check.level.fails(self.strict) => Tally::Failed,
            Status::Failed(_) => Tally::Warning,
            Status::NotExercised(_) => Tally::NotExercised,
            Status::SameCause(_) => Tally::SameCause,
            Status::ExpectedFailure { .. } => Tally::ExpectedFailure,
            Status::FixedButListed { .. } => Tally::FixedButListed,
        }
    }

    /// When every run the server served ended with `RUN_ERROR`, what the
    /// report says first: the agent failed, not the protocol.
    pub fn agent_failure(&self) -> Option<String> {
        let (runs, first) = self.agent_failed.as_ref()?;
        let every = if *runs == 1 {
            "the one run the server served".to_owned()
        } else {
            format!("every one of the {runs} runs the server served")
        };
        Some(format!(
            "the agent failed {every} (the first: {first}): checks that need it to act are not exercised. \
             Look at the agent's model and its credentials, and whether a tool of the agent's own \
             is named {} or {}, as the kit's are",
            super::requests::WEATHER_TOOL,
            super::requests::TIME_TOOL
        ))
    }

    /// Whether the run fails: a MUST failure not listed (a SHOULD one
    /// too when strict), a listed one that now passes, or a listed one
    /// that names no check run.
    pub fn fails(&self) -> bool {
        !self.unmatched.is_empty()
            || self.rows.iter().any(|(_, check, status)| {
                matches!(
                    self.tally(check, status),
                    Tally::Failed | Tally::FixedButListed
                )
            })
    }

    /// Whether the row of `check` with `status` fails the run.
    pub fn row_fails(&self, check: &Check, status: &Status) -> bool {
        matches!(
            self.tally(check, status),
            Tally::Failed | Tally::FixedButListed
        )
    }

    /// Each scenario, check and status, in order.
    pub fn rows(&self) -> impl Iterator<Item = (&str, &Check, &Status)> {
        self.rows.iter().map(|(s, c, st)| (s.as_str(), c, st))
    }

    /// The report in `format`.
    pub fn render(&self, format: Format) -> String {
        match format {
            Format::Human => self.human(),
            Format::Json => {
                let mut text = serde_json::to_string_pretty(&self.json()).unwrap_or_default();
                text.push('\n');
                text
            }
            Format::Junit => self.junit(),
        }
    }

    /// How many checks ended in each tally: passed, failed, warnings,
    /// not exercised, expected failures, fixed but listed, same cause.
    fn counts(&self) -> [usize; 7] {
        let mut counts = [0; 7];
        for (_, check, status) in &self.rows {
            counts[match self.tally(check, status) {
                Tally::Passed => 0,
                Tally::Failed => 1,
                Tally::Warning => 2,
                Tally::NotExercised => 3,
                Tally::ExpectedFailure => 4,
                Tally::FixedButListed => 5,
                Tally::SameCause => 6,
            }] += 1;
        }
        counts
    }

    fn human(&self) -> String {
        let mut text = String::new();
        if let Some(failure) = self.agent_failure() {
            let _ = writeln!(text, "{failure}");
        }
        let mut scenario = None;
        for (name, check, status) in &self.rows {
            if scenario != Some(name) {
                let _ = writeln!(text, "{name}");
                scenario = Some(name);
            }
            let tally = self.tally(check, status);
            let (word, why) = words(tally, status);
            let _ = write!(
                text,
                "  {word:<16} {:<6} {}",
                check.level.as_str(),
                check.id
            );
            if let Some(why) = &why {
                // The events around a fault follow on lines of their own,
                // under the check.
                let _ = write!(text, ": {}", why.replace('\n', &format!("\n{:19}", "")));
            }
            text.push('\n');
            // A failure shows what it rests on, so it can be acted on, and
            // how to send its request again.
            if tally == Tally::NotExercised && !check.exercised_by.is_empty() {
                let _ = writeln!(text, "{:19}to exercise it: {}", "", check.exercised_by);
            }
            if matches!(tally, Tally::Failed | Tally::Warning) {
                let _ = writeln!(text, "{:19}{}", "", requirement(check));
                if let Some(command) = why.as_deref().and_then(|w| self.again.for_reason(name, w)) {
                    let _ = writeln!(text, "{:19}again: {command}", "");
                }
            }
        }
        for entry in &self.unmatched {
            let _ = writeln!(
                text,
                "expected failure {entry} names no check its scenario judged: remove it or correct it"
            );
        }
        let [passed, failed, warnings, idle, expected, fixed, same] = self.counts();
        let scenarios = {
            let mut names: Vec<&String> = self.rows.iter().map(|(s, _, _)| s).collect();
            names.dedup();
            names.len()
        };
        let _ = write!(text, "kit: {passed} passed, {failed} failed");
        if warnings > 0 {
            let _ = write!(
                text,
                ", {warnings} warning{} (SHOULD or advice; --strict fails on a SHOULD)",
                if warnings == 1 { "" } else { "s" }
            );
        }
        let _ = write!(text, ", {idle} not exercised");
        if same > 0 {
            let _ = write!(text, ", {same} reported under another check");
        }
        if expected > 0 {
            let _ = write!(text, ", {expected} expected failures");
        }
        if fixed > 0 {
            let _ = write!(
                text,
                ", {fixed} listed as expected failures now pass (remove them from the file)"
            );
        }
        let _ = writeln!(
            text,
            " ({} checks in {scenarios} scenarios)",
            self.rows.len()
        );
        text
    }

    fn json(&self) -> Value {
        let mut scenarios: Vec<Value> = Vec::new();
        for (name, check, status) in &self.rows {
            if scenarios.last().and_then(|s| s["name"].as_str()) != Some(name) {
                scenarios.push(json!({"name": name, "checks": []}));
            }
            let tally = self.tally(check, status);
            let (word, why) = words(tally, status);
            // The verdict is the check's; whether it fails the run is the
            // level's, said apart.
            let verdict = match tally {
                Tally::Warning => "failed",
                _ => word,
            };
            let mut row = json!({
                "check": check.id,
                "level": check.level.as_str(),
                "spec": check.url(),
                "verdict": verdict.replace(' ', "-"),
                "fails": self.row_fails(check, status),
                "requires": check.requires,
                "restsOn": check.rests_on.iter().map(|q| json!({"text": q.text, "url": q.url()})).collect::<Vec<_>>(),
            });
            if let Some(command) = why.as_deref().and_then(|w| self.again.for_reason(name, w)) {
                row["again"] = json!(command);
            }
            if tally == Tally::NotExercised && !check.exercised_by.is_empty() {
                row["toExercise"] = json!(check.exercised_by);
            }
            if let Some(why) = why {
                row["why"] = json!(why);
            }
            if let Status::ExpectedFailure { reason, .. } | Status::FixedButListed { reason } =
                status
            {
                row["reason"] = json!(reason);
            }
            if let Some(checks) = scenarios
                .last_mut()
                .and_then(|s| s["checks"].as_array_mut())
            {
                checks.push(row);
            }
        }
        let [passed, failed, warnings, idle, expected, fixed, same] = self.counts();
        json!({
            "tool": "agui-lint",
            "version": env!("CARGO_PKG_VERSION"),
            "scenarios": scenarios,
            "unmatchedExpectedFailures": self.unmatched,
            "agentFailure": self.agent_failure(),
            "summary": {
                "passed": passed,
                "failed": failed,
                "warnings": warnings,
                "sameCause": same,
                "notExercised": idle,
                "expectedFailures": expected,
                "fixedButListed": fixed,
            }
        })
    }

    fn junit(&self) -> String {
        let mut report = Report::new("agui-lint kit");
        let mut suites: Vec<TestSuite> = Vec::new();
        for (name, check, status) in &self.rows {
            if suites.last().map(|s| s.name.as_str()) != Some(name.as_str()) {
                suites.push(TestSuite::new(name.as_str()));
            }
            let tally = self.tally(check, status);
            let (word, why) = words(tally, status);
            let mut case_status = match tally {
                Tally::Passed => TestCaseStatus::success(),
                Tally::Failed | Tally::FixedButListed => {
                    TestCaseStatus::non_success(NonSuccessKind::Failure)
                }
                Tally::Warning
                | Tally::NotExercised
                | Tally::SameCause
                | Tally::ExpectedFailure => TestCaseStatus::skipped(),
            };
            if let Some(why) = &why {
                case_status.set_message(format!("{word}: {why}"));
            }
            if matches!(tally, Tally::Failed | Tally::Warning) {
                let mut description = requirement(check);
                if let Some(command) = why.as_deref().and_then(|w| self.again.for_reason(name, w)) {
                    description.push_str(&format!("\nagain: {command}"));
                }
                case_status.set_description(description);
            }
            let mut case = TestCase::new(check.id, case_status);
            case.set_classname(format!("{name} ({})", check.level.as_str()));
            if let Some(suite) = suites.last_mut() {
                suite.add_test_case(case);
            }
        }
        if let (Some(failure), Some(first)) = (self.agent_failure(), suites.first_mut()) {
            first.set_system_out(failure);
        }
        report.add_test_suites(suites);
        report.to_string().unwrap_or_default()
    }
}

/// The word a status is shown as, and its reason.
fn words(tally: Tally, status: &Status) -> (&'static str, Option<String>) {
    match status {
        Status::Passed => ("passed", None),
        Status::Failed(why) if tally == Tally::Warning => ("warning", Some(why.clone())),
        Status::Failed(why) => ("failed", Some(why.clone())),
        Status::NotExercised(why) => ("not exercised", Some(why.clone())),
        Status::SameCause(why) => ("same cause", Some(why.clone())),
        Status::ExpectedFailure { why, reason } => (
            "expected failure",
            Some(format!("{why} (listed: {reason})")),
        ),
        Status::FixedButListed { reason } => (
            "fixed but listed",
            Some(format!(
                "passes, but the expected failures list it ({reason}): remove the entry"
            )),
        ),
    }
}

/// What a check rests on, in a line: `MUST: "…" (URL)`, or for advice
/// what it follows.
fn requirement(check: &Check) -> String {
    match (check.level, check.rests_on.first()) {
        (Level::Advice, _) | (_, None) => {
            format!(
                "{}: {} ({})",
                check.level.as_str(),
                check.requires,
                check.url()
            )
        }
        (level, Some(quote)) => format!("{}: \"{}\" ({})", level.as_str(), quote.text, quote.url()),
    }
}
