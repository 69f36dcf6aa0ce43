//! A conformance kit run on the page: the kit's JSON report (`probe
//! --suite --format json`) read back, each scenario's checks with their
//! level, verdict, the requirement's sentences and links, and the
//! scenario's saved session (`--save DIR` writes `DIR/SCENARIO.har`) when
//! the page shows it too.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// A kit run as the page shows it.
#[derive(Debug, Serialize)]
pub(crate) struct KitView {
    pub path: String,
    pub anchor: String,
    pub summary: Summary,
    pub agent_failure: Option<String>,
    pub unmatched: Vec<String>,
    pub scenarios: Vec<ScenarioView>,
    /// Whether the run fails (a check that fails it, or an expected
    /// failure that names nothing).
    pub fails: bool,
}

/// The kit's counts.
#[derive(Debug, Default, Serialize, Deserialize)]
#[serde(rename_all(deserialize = "camelCase"), default)]
pub(crate) struct Summary {
    pub passed: usize,
    pub failed: usize,
    pub warnings: usize,
    pub same_cause: usize,
    pub not_exercised: usize,
    pub expected_failures: usize,
    pub fixed_but_listed: usize,
}

/// One scenario.
#[derive(Debug, Serialize)]
pub(crate) struct ScenarioView {
    pub name: String,
    pub checks: Vec<CheckRow>,
    /// The anchor of its saved session on the page, when shown.
    pub session: Option<String>,
    pub fails: bool,
}

/// One check of a scenario, as the kit's JSON report says it.
#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all(deserialize = "camelCase"))]
pub(crate) struct CheckRow {
    pub check: String,
    pub level: String,
    #[serde(default)]
    pub spec: String,
    pub verdict: String,
    #[serde(default)]
    pub fails: bool,
    #[serde(default)]
    pub requires: String,
    #[serde(default)]
    pub rests_on: Vec<Sentence>,
    #[serde(default)]
    pub why: Option<String>,
    #[serde(default)]
    pub reason: Option<String>,
    #[serde(default)]
    pub again: Option<String>,
    #[serde(default)]
    pub to_exercise: Option<String>,
}

/// A sentence of the spec a check rests on.
#[derive(Debug, Serialize, Deserialize)]
pub(crate) struct Sentence {
    pub text: String,
    #[serde(default)]
    pub url: String,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Document {
    scenarios: Vec<Scenario>,
    #[serde(default)]
    summary: Summary,
    #[serde(default)]
    agent_failure: Option<String>,
    #[serde(default)]
    unmatched_expected_failures: Vec<String>,
}

#[derive(Deserialize)]
struct Scenario {
    name: String,
    checks: Vec<CheckRow>,
}

/// Whether `value` is a kit's JSON report.
pub(crate) fn is_kit_report(value: &Value) -> bool {
    value.get("tool").and_then(Value::as_str) == Some("agui-lint")
        && value.get("scenarios").is_some_and(Value::is_array)
}

/// The view of the kit report `value` read from `path`; `session` names
/// the anchor of a scenario's saved session on the page, if shown.
pub(crate) fn kit_view(
    index: usize,
    path: &str,
    value: Value,
    session: impl Fn(&str) -> Option<String>,
) -> Result<KitView, String> {
    let document: Document =
        serde_json::from_value(value).map_err(|e| format!("{path}: not a kit report: {e}"))?;
    let scenarios: Vec<ScenarioView> = document
        .scenarios
        .into_iter()
        .map(|scenario| ScenarioView {
            session: session(&scenario.name),
            fails: scenario.checks.iter().any(|c| c.fails),
            name: scenario.name,
            checks: scenario.checks,
        })
        .collect();
    Ok(KitView {
        path: path.to_owned(),
        anchor: format!("k{index}"),
        fails: scenarios.iter().any(|s| s.fails)
            || !document.unmatched_expected_failures.is_empty(),
        summary: document.summary,
        agent_failure: document.agent_failure,
        unmatched: document.unmatched_expected_failures,
        scenarios,
    })
}
