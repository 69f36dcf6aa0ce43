//! Expected failures: a file listing the checks a server is known to fail,
//! each with a reason. A run fails on a failure the file does not list,
//! and also on a listed one that now passes, so the list never goes stale.
//!
//! ```toml
//! [[expected]]
//! scenario = "interrupt"
//! check = "resume-accepted"
//! reason = "resume lands with the next release"
//! ```

use std::path::Path;

use serde::Deserialize;

use super::checks::{by_id, ScenarioResult, Verdict, ALL};
use super::scenarios::BuiltIn;

/// The expected failures of a server.
#[derive(Debug, Clone, Default)]
pub struct Expected {
    entries: Vec<Entry>,
}

/// One known failure.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct Entry {
    scenario: String,
    check: String,
    reason: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    #[serde(default)]
    expected: Vec<Entry>,
}

/// Why an expected-failures file cannot be used.
#[derive(Debug, thiserror::Error)]
#[error("{path}: {message}")]
pub struct ExpectedError {
    path: String,
    message: String,
}

/// A check's verdict with the expected failures applied.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Status {
    /// Passed, and not listed.
    Passed,
    /// Failed, and not listed: fails the run.
    Failed(String),
    /// Not exercised (listed or not): never a pass, never a failure.
    NotExercised(String),
    /// Failed for a cause reported under another check (listed or not):
    /// the pointer to it (`reported under ids-unique-across-runs: …`).
    SameCause(String),
    /// Failed as listed, with the listed reason: does not fail the run.
    ExpectedFailure {
        /// Why it failed this time.
        why: String,
        /// Why the file says it fails.
        reason: String,
    },
    /// Listed, but passed: fails the run until the entry is removed.
    FixedButListed {
        /// Why the file said it fails.
        reason: String,
    },
}

impl Status {
    /// Whether this status fails the run.
    pub fn fails(&self) -> bool {
        matches!(self, Status::Failed(_) | Status::FixedButListed { .. })
    }
}

impl Expected {
    /// Reads the file at `path`.
    pub fn read(path: &Path) -> Result<Expected, ExpectedError> {
        let error = |message: String| ExpectedError {
            path: path.display().to_string(),
            message,
        };
        let text = std::fs::read_to_string(path).map_err(|e| error(e.to_string()))?;
        Expected::parse(&text).map_err(error)
    }

    /// Reads the text of an expected-failures file.
    pub fn parse(text: &str) -> Result<Expected, String> {
        let file: File = toml::from_str(text).map_err(|e| e.to_string())?;
        for entry in &file.expected {
            if by_id(&entry.check).is_none() {
                let near = crate::suggest::closest(&entry.check, ALL.iter().map(|c| c.id));
                return Err(format!(
                    "'{}' is not a check of the kit{}",
                    entry.check,
                    near.map_or_else(String::new, |n| format!(" (did you mean '{n}'?)"))
                ));
            }
            if entry.reason.trim().is_empty() {
                return Err(format!(
                    "the entry for {} / {} gives no reason",
                    entry.scenario, entry.check
                ));
            }
        }
        Ok(Expected {
            entries: file.expected,
        })
    }

    /// Refuses an entry naming a scenario that is neither built in nor one
    /// of `user` (the scenario files given): a misspelt scenario would
    /// otherwise never match, and its failure would fail the run.
    pub fn refuse_unknown_scenarios(&self, user: &[super::UserScenario]) -> Result<(), String> {
        let known: Vec<&str> = BuiltIn::ALL
            .iter()
            .map(|s| s.name())
            .chain(user.iter().map(|s| s.name.as_str()))
            .collect();
        match self
            .entries
            .iter()
            .find(|e| !known.contains(&e.scenario.as_str()))
        {
            None => Ok(()),
            Some(entry) => Err(format!(
                "'{}' is not a scenario of the kit or of a scenario file{} (the scenarios: {})",
                entry.scenario,
                crate::suggest::closest(&entry.scenario, known.iter().copied())
                    .map_or_else(String::new, |n| format!("; did you mean '{n}'?")),
                known.join(", ")
            )),
        }
    }

    /// The status of `verdict`, the verdict of `check` in `scenario`.
    pub fn status(&self, scenario: &str, check: &str, verdict: &Verdict) -> Status {
        let listed = self
            .entries
            .iter()
            .find(|e| e.scenario == scenario && e.check == check)
            .map(|e| e.reason.clone());
        match (verdict, listed) {
            (Verdict::Passed, None) => Status::Passed,
            (Verdict::Passed, Some(reason)) => Status::FixedButListed { reason },
            (Verdict::Failed(why), None) => Status::Failed(why.clone()),
            (Verdict::Failed(why), Some(reason)) => Status::ExpectedFailure {
                why: why.clone(),
                reason,
            },
            (Verdict::NotExercised(why), _) => Status::NotExercised(why.clone()),
            (Verdict::SameCause { check, why }, _) => {
                Status::SameCause(format!("reported under {check}: {why}"))
            }
        }
    }

    /// The entries naming a scenario that ran but a check it does not
    /// have: a check of another scenario, or one since renamed.
    pub fn unmatched(&self, results: &[ScenarioResult]) -> Vec<String> {
        self.entries
            .iter()
            .filter(|e| {
                results.iter().any(|r| r.scenario == e.scenario)
                    && !results
                        .iter()
                        .any(|r| r.scenario == e.scenario && r.checks.contains(&e.check.as_str()))
            })
            .map(|e| format!("{} / {}", e.scenario, e.check))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const FILE: &str = r#"
[[expected]]
scenario = "interrupt"
check = "resume-accepted"
reason = "not yet"
"#;

    #[test]
    fn a_listed_failure_does_not_fail_and_a_listed_pass_does() {
        let expected = Expected::parse(FILE).expect("parses");
        let failed = Verdict::Failed("HTTP 500".into());
        assert!(!expected
            .status("interrupt", "resume-accepted", &failed)
            .fails());
        assert!(expected.status("text", "resume-accepted", &failed).fails());
        let fixed = expected.status("interrupt", "resume-accepted", &Verdict::Passed);
        assert_eq!(
            fixed,
            Status::FixedButListed {
                reason: "not yet".into()
            }
        );
        assert!(fixed.fails());
        let idle = Verdict::NotExercised("no interrupt".into());
        assert!(!expected
            .status("interrupt", "resume-accepted", &idle)
            .fails());
    }

    #[test]
    fn unknown_checks_and_missing_reasons_are_refused() {
        let unknown = FILE.replace("resume-accepted", "resume-acepted");
        assert!(Expected::parse(&unknown).unwrap_err().contains(
            "'resume-acepted' is not a check of the kit (did you mean 'resume-accepted'?)"
        ));
        let scenario = FILE.replace("\"interrupt\"", "\"interupt\"");
        let refused = Expected::parse(&scenario)
            .expect("parses")
            .refuse_unknown_scenarios(&[])
            .unwrap_err();
        assert!(
            refused.starts_with("'interupt' is not a scenario of the kit or of a scenario file; did you mean 'interrupt'?"),
            "{refused}"
        );
        assert!(Expected::parse(FILE)
            .expect("parses")
            .refuse_unknown_scenarios(&[])
            .is_ok());
        let no_reason = FILE.replace("not yet", " ");
        assert!(Expected::parse(&no_reason)
            .unwrap_err()
            .contains("no reason"));
        assert!(Expected::parse("[[expected]]\nscenario = 1\n").is_err());
    }
}
