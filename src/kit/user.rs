//! Users' own scenarios, from JSON files: a conversation of steps, each a
//! request template and what its run must show, so that an agent whose
//! tools and prompts differ from the built-in scenarios' can be driven.
//!
//! ```json
//! {"name": "refund approval",
//!  "steps": [
//!   {"label": "ask for a refund",
//!    "request": {"threadId": "{{threadId}}", "runId": "{{runId}}",
//!                "messages": [{"id": "{{id}}", "role": "user", "content": "Refund order 42"}],
//!                "tools": [], "context": [], "state": {}, "forwardedProps": {}},
//!    "needs": ["TOOL_CALL_START"],
//!    "expect": {"events": ["TOOL_CALL_START"], "outcome": "success"}},
//!   {"label": "the approval",
//!    "request": {"threadId": "{{threadId}}", "runId": "{{runId}}", "state": "{{state}}",
//!                "messages": ["{{history}}", {"id": "{{id}}", "role": "tool",
//!                             "toolCallId": "{{toolCallId}}", "content": "approved"}],
//!                "tools": [], "context": [], "forwardedProps": {}}}]}
//! ```
//!
//! Placeholders, in any string of a request: `{{threadId}}` (the
//! scenario's thread), `{{runId}}` (fresh for each step), `{{id}}` (fresh
//! at each use), `{{toolCallId}}` and `{{interruptId}}` (the first tool
//! call the previous run left unanswered, the first interrupt it ended
//! on). As a whole value: `"{{state}}"`, the state the previous run left,
//! and, as an element of an array, `"{{history}}"`, the conversation the
//! previous run left (the request's messages with the streamed ones), as
//! `@ag-ui/client` sends it. A step whose placeholder the previous run
//! gives nothing for, or whose `needs` the run did not stream, leaves the
//! rest of the scenario not exercised.

use std::path::Path;

use serde::Deserialize;
use serde_json::{json, Map, Value};

use super::checks::{self, Judged, Verdict};
use super::exchange::{Exchange, Request};
use super::judge;
use super::requests::fresh_id;
use super::streamed::Ending;
use crate::Validator;

/// A user's scenario.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UserScenario {
    /// Its name in reports.
    pub name: String,
    steps: Vec<Step>,
}

/// One request of a user's scenario and what its answer must show.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct Step {
    #[serde(default)]
    label: Option<String>,
    request: Value,
    #[serde(default)]
    headers: Map<String, Value>,
    /// Event types without which the agent did not act as the step needs:
    /// the rest of the scenario is then not exercised.
    #[serde(default)]
    needs: Vec<String>,
    #[serde(default)]
    expect: Expect,
}

/// What a step's answer must show.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct Expect {
    /// The HTTP status; when absent, the run must be served.
    #[serde(default)]
    status: Option<u16>,
    /// Event types the run must stream.
    #[serde(default)]
    events: Vec<String>,
    /// How the run must end: `success`, `interrupt`, `cancelled`, `error`.
    #[serde(default)]
    outcome: Option<String>,
}

/// Why a scenario file cannot be used.
#[derive(Debug, thiserror::Error)]
#[error("{path}: {message}")]
pub struct UserScenarioError {
    path: String,
    message: String,
}

impl UserScenario {
    /// Reads the scenario file at `path`.
    pub fn read(path: &Path) -> Result<UserScenario, UserScenarioError> {
        let error = |message: String| UserScenarioError {
            path: path.display().to_string(),
            message,
        };
        let text = std::fs::read(path).map_err(|e| error(e.to_string()))?;
        UserScenario::parse(&text).map_err(error)
    }

    /// Reads the text of a scenario file.
    pub fn parse(text: &[u8]) -> Result<UserScenario, String> {
        let scenario: UserScenario = serde_json::from_slice(text).map_err(|e| e.to_string())?;
        if scenario.steps.is_empty() {
            return Err("the scenario has no steps".into());
        }
        for (n, step) in scenario.steps.iter().enumerate() {
            if let Some(outcome) = &step.expect.outcome {
                if !["success", "interrupt", "cancelled", "error"].contains(&outcome.as_str()) {
                    return Err(format!(
                        "step {}: outcome '{outcome}' is not success, interrupt, cancelled or error",
                        n + 1
                    ));
                }
            }
        }
        Ok(scenario)
    }

    /// The next request, after `done`.
    pub fn plan(&self, thread: &str, done: &[Exchange]) -> Option<Request> {
        let step = self.steps.get(done.len())?;
        if let Some(previous) = done.last() {
            self.needs_met(done.len() - 1, previous).ok()?;
        }
        let input = fill(&step.request, thread, done.last()).ok()?;
        let label = step
            .label
            .clone()
            .unwrap_or_else(|| format!("step {}", done.len() + 1));
        let mut request = Request::json(label, &input);
        for (name, value) in &step.headers {
            let value = value
                .as_str()
                .map_or_else(|| value.to_string(), str::to_owned);
            request = request.with_header(name, &value);
        }
        Some(request)
    }

    /// Whether the `n`-th step's run streamed what it `needs`.
    fn needs_met(&self, n: usize, exchange: &Exchange) -> Result<(), String> {
        let needs = &self.steps[n].needs;
        if needs.is_empty() {
            return Ok(());
        }
        let Some(streamed) = &exchange.streamed else {
            return Err(format!(
                "{} was not answered with a stream",
                exchange.name(n)
            ));
        };
        match needs.iter().find(|kind| !streamed.streams(kind)) {
            Some(_) if exchange.agent_error().is_some() => Err(format!(
                "{}: the agent failed: {}",
                exchange.name(n),
                exchange.agent_error().unwrap_or_default()
            )),
            Some(kind) => Err(format!(
                "{}: the agent streamed no {kind} (the step needs it); the run streamed {}",
                exchange.name(n),
                judge::event_types(streamed)
            )),
            None => Ok(()),
        }
    }

    /// The verdicts after `done`.
    pub fn judge(&self, validator: &Validator, done: &[Exchange]) -> Vec<Judged> {
        let runs: Vec<(usize, &Exchange)> = done.iter().enumerate().collect();
        let stream = judge::StreamFindings::of(validator, &runs);
        vec![
            Judged {
                check: checks::EXPECTATION_MET,
                verdict: self.expectations(done),
            },
            Judged {
                check: checks::STREAM_CONFORMS,
                verdict: stream.conforms(),
            },
            Judged {
                check: checks::STREAM_AS_RECEIVED,
                verdict: stream.as_received(),
            },
            Judged {
                check: checks::IDS_ECHOED,
                verdict: judge::ids_echoed(&runs),
            },
            Judged {
                check: checks::IDS_UNIQUE_ACROSS_RUNS,
                verdict: judge::ids_unique(done),
            },
        ]
    }

    fn expectations(&self, done: &[Exchange]) -> Verdict {
        for (n, exchange) in done.iter().enumerate() {
            // A step whose run lacks what it needs leaves the scenario
            // not exercised: the agent did not act, nothing was judged.
            if let Err(why) = self.needs_met(n, exchange) {
                return Verdict::NotExercised(why);
            }
            let expect = &self.steps[n].expect;
            if let Some(status) = expect.status {
                if exchange.status() != status {
                    return Verdict::Failed(format!(
                        "{}: HTTP {}, not {status}",
                        exchange.name(n),
                        exchange.status()
                    ));
                }
                if !(200..300).contains(&status) {
                    continue;
                }
            }
            let outcome = expect.outcome.as_deref();
            let streamed = match exchange.served() {
                Ok(streamed) => streamed,
                Err(why) => return Verdict::Failed(format!("{}: {why}", exchange.name(n))),
            };
            // A run that failed where the step did not expect it to is the
            // agent's failure: nothing it should have done can be judged.
            if let (Some(error), false) = (exchange.agent_error(), outcome == Some("error")) {
                return Verdict::NotExercised(format!(
                    "{}: the agent failed: {error}",
                    exchange.name(n)
                ));
            }
            if let Some(kind) = expect.events.iter().find(|k| !streamed.streams(k)) {
                return Verdict::Failed(format!(
                    "{}: the run streamed no {kind}; it streamed {}",
                    exchange.name(n),
                    judge::event_types(streamed)
                ));
            }
            let ended = match &streamed.ending {
                Ending::Success => "success",
                Ending::Interrupt => "interrupt",
                Ending::Cancelled => "cancelled",
                Ending::Error(_) => "error",
                Ending::Open => "open",
            };
            if let Some(outcome) = outcome.filter(|o| *o != ended) {
                return Verdict::Failed(format!(
                    "{}: the run ended as {ended}, not {outcome}",
                    exchange.name(n)
                ));
            }
        }
        if done.len() < self.steps.len() {
            let n = done.len();
            let why = match done.last() {
                Some(previous) => match self.needs_met(n - 1, previous) {
                    Err(why) => why,
                    Ok(()) => match fill(&self.steps[n].request, "", Some(previous)) {
                        Err(why) => format!("step {}: {why}", n + 1),
                        Ok(_) => format!("step {} was not sent", n + 1),
                    },
                },
                None => "no request was sent".into(),
            };
            return Verdict::NotExercised(why);
        }
        Verdict::Passed
    }
}

/// `template` with its placeholders filled from the previous exchange.
fn fill(template: &Value, thread: &str, previous: Option<&Exchange>) -> Result<Value, String> {
    let streamed = previous.and_then(|p| p.streamed.as_ref());
    let run_id = fresh_id("run");
    let fill_text = |text: &str| -> Result<String, String> {
        let mut out = text
            .replace("{{threadId}}", thread)
            .replace("{{runId}}", &run_id);
        while out.contains("{{id}}") {
            out = out.replacen("{{id}}", &fresh_id("message"), 1);
        }
        if out.contains("{{toolCallId}}") {
            let offered = previous
                .map(|p| super::requests::offered(&p.input))
                .unwrap_or_default();
            let call = streamed
                .and_then(|s| {
                    s.pending_calls(&offered)
                        .next()
                        .or_else(|| s.calls.iter().find(|c| !c.answered))
                })
                .ok_or("the previous run left no tool call unanswered for {{toolCallId}}")?;
            out = out.replace("{{toolCallId}}", &call.id);
        }
        if out.contains("{{interruptId}}") {
            let id = streamed
                .and_then(|s| s.interrupts.first())
                .and_then(|i| i.get("id"))
                .and_then(Value::as_str)
                .ok_or("the previous run ended on no interrupt for {{interruptId}}")?;
            out = out.replace("{{interruptId}}", id);
        }
        Ok(out)
    };
    fn walk(
        value: &Value,
        fill_text: &dyn Fn(&str) -> Result<String, String>,
        history: &[Value],
        state: &Value,
    ) -> Result<Value, String> {
        Ok(match value {
            Value::String(text) if text == "{{state}}" => state.clone(),
            Value::String(text) => Value::String(fill_text(text)?),
            Value::Array(items) => {
                let mut out = Vec::new();
                for item in items {
                    if item.as_str() == Some("{{history}}") {
                        out.extend(history.iter().cloned());
                    } else {
                        out.push(walk(item, fill_text, history, state)?);
                    }
                }
                Value::Array(out)
            }
            Value::Object(map) => {
                let mut out = Map::new();
                for (key, item) in map {
                    out.insert(key.clone(), walk(item, fill_text, history, state)?);
                }
                Value::Object(out)
            }
            other => other.clone(),
        })
    }
    let (history, state) = match streamed {
        Some(s) => (s.messages.clone(), s.state.clone()),
        None => (Vec::new(), json!({})),
    };
    walk(template, &fill_text, &history, &state)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholders_are_filled_and_a_missing_call_is_said() {
        let template = json!({"threadId": "{{threadId}}", "runId": "{{runId}}",
            "messages": ["{{history}}", {"id": "{{id}}", "role": "user", "content": "{{id}}"}],
            "state": "{{state}}"});
        let filled = fill(&template, "t1", None).expect("fills");
        assert_eq!(filled["threadId"], "t1");
        assert!(filled["runId"]
            .as_str()
            .is_some_and(|r| r.starts_with("agui-lint-run-")));
        assert_eq!(filled["messages"].as_array().map(Vec::len), Some(1));
        assert_ne!(
            filled["messages"][0]["id"],
            filled["messages"][0]["content"]
        );
        assert_eq!(filled["state"], json!({}));
        let call = json!({"toolCallId": "{{toolCallId}}"});
        assert!(fill(&call, "t", None).unwrap_err().contains("no tool call"));
    }

    #[test]
    fn a_scenario_file_is_read_and_refused_with_reasons() {
        let text = br#"{"name": "n", "steps": [{"request": {}, "expect": {"outcome": "done"}}]}"#;
        assert!(UserScenario::parse(text).unwrap_err().contains("'done'"));
        assert!(UserScenario::parse(br#"{"name": "n", "steps": []}"#)
            .unwrap_err()
            .contains("no steps"));
        assert!(UserScenario::parse(br#"{"name": "n", "stepz": []}"#).is_err());
        let ok = br#"{"name": "n", "steps": [{"request": {"threadId": "{{threadId}}"}}]}"#;
        let scenario = UserScenario::parse(ok).expect("parses");
        let request = scenario.plan("t9", &[]).expect("a request");
        assert!(String::from_utf8_lossy(&request.body).contains("t9"));
    }
}
