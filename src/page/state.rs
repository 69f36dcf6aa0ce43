//! A run's state and activities as they evolve: the value after each
//! snapshot and each delta (a delta shown by its operations), a patch that
//! does not apply marked and the value kept as it was, as a receiver keeps
//! it. An activity's content is followed as the state is, per message. Bounded:
//! a value is shown while its text is small, and a run shows its first
//! [`MAX_STEPS`] changes.

use agui_lint::unstable::recording::StateFollower;
use serde::Serialize;
use serde_json::Value;

use super::text::clip;

/// The most memory a run's followed state may take: a state larger than
/// this is beyond what a page shows anyway.
const STATE_LIMIT: u64 = 64 * 1024 * 1024;

/// The most changes of a run's state the page shows.
const MAX_STEPS: usize = 200;

/// The longest value text shown for one step.
const MAX_VALUE_TEXT: usize = 8_000;

/// One change of the state.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct StateStep {
    /// The 0-based index in the run of the event that made it.
    pub index: usize,
    /// `snapshot` or `delta`.
    pub kind: &'static str,
    /// What changed: `state`, or `activity ID`.
    pub subject: String,
    /// A delta's operations, one line each (`replace /a/b = 3`).
    pub operations: Vec<String>,
    /// Why the delta did not apply, when it did not.
    pub refused: Option<String>,
    /// The state after it, as indented JSON, when short enough to show.
    pub value: Option<String>,
    /// Whether the value was left out for the page's sake (it shows so
    /// much state text in all).
    pub value_left_out: bool,
}

/// A run's state history, built as its events come, from the request's
/// state on.
pub(crate) struct History {
    state: StateFollower,
    /// Each activity's content, by message id.
    activities: std::collections::HashMap<String, StateFollower>,
    steps: Vec<StateStep>,
    left_out: usize,
}

impl History {
    /// A history starting from `initial`, the request's state.
    pub(crate) fn new(initial: Option<&Value>) -> History {
        let mut state = StateFollower::new(STATE_LIMIT);
        if let Some(initial) = initial {
            // A request's state over the limit is followed from nothing.
            let _ = state.snapshot(initial.clone());
        }
        History {
            state,
            activities: std::collections::HashMap::new(),
            steps: Vec::new(),
            left_out: 0,
        }
    }

    /// Follows the run's `index`-th event.
    pub(crate) fn push(&mut self, index: usize, event: &Value) {
        let kind = event.get("type").and_then(Value::as_str).unwrap_or("");
        if matches!(kind, "ACTIVITY_SNAPSHOT" | "ACTIVITY_DELTA") {
            self.activity(index, kind, event);
            return;
        }
        let step = match kind {
            "STATE_SNAPSHOT" => StateStep {
                index,
                kind: "snapshot",
                subject: "state".to_owned(),
                operations: Vec::new(),
                refused: self
                    .state
                    .snapshot(event.get("snapshot").cloned().unwrap_or(Value::Null))
                    .err(),
                value: None,
                value_left_out: false,
            },
            "STATE_DELTA" => {
                let delta = event.get("delta").unwrap_or(&Value::Null);
                let operations = if self.steps.len() < MAX_STEPS {
                    delta
                        .as_array()
                        .map(|ops| ops.iter().map(operation_text).collect())
                        .unwrap_or_default()
                } else {
                    Vec::new()
                };
                StateStep {
                    index,
                    kind: "delta",
                    subject: "state".to_owned(),
                    operations,
                    // Applied whole or not at all, as a receiver does.
                    refused: self.state.delta(delta).err(),
                    value: None,
                    value_left_out: false,
                }
            }
            _ => return,
        };
        if self.steps.len() == MAX_STEPS {
            self.left_out += 1;
            return;
        }
        self.steps.push(StateStep {
            value: shown(self.state.state()),
            ..step
        });
    }

    /// Follows an activity's snapshot or delta (`kind`).
    fn activity(&mut self, index: usize, kind: &str, event: &Value) {
        let id = event
            .get("messageId")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_owned();
        let listing = self.steps.len() < MAX_STEPS;
        let follower = self
            .activities
            .entry(id.clone())
            .or_insert_with(|| StateFollower::new(STATE_LIMIT));
        let (kind, operations, refused) = if kind == "ACTIVITY_SNAPSHOT" {
            let content = event.get("content").cloned().unwrap_or(Value::Null);
            ("snapshot", Vec::new(), follower.snapshot(content).err())
        } else {
            let patch = event.get("patch").unwrap_or(&Value::Null);
            let operations = if listing {
                patch
                    .as_array()
                    .map(|ops| ops.iter().map(operation_text).collect())
                    .unwrap_or_default()
            } else {
                Vec::new()
            };
            ("delta", operations, follower.delta(patch).err())
        };
        if !listing {
            self.left_out += 1;
            return;
        }
        self.steps.push(StateStep {
            index,
            kind,
            subject: format!("activity {id}"),
            operations,
            refused,
            value: shown(follower.state()),
            value_left_out: false,
        });
    }

    /// The changes shown, and how many were left out.
    pub(crate) fn finish(self) -> (Vec<StateStep>, usize) {
        (self.steps, self.left_out)
    }
}

/// `state` as indented JSON, when short enough to show (measured first:
/// a large state is not written out only to be dropped).
fn shown(state: &Value) -> Option<String> {
    let (bytes, whole) =
        agui_lint::unstable::recording::follow::measure(state, MAX_VALUE_TEXT as u64);
    if !whole || bytes > MAX_VALUE_TEXT as u64 {
        return None;
    }
    let text = serde_json::to_string_pretty(state).ok()?;
    (text.len() <= MAX_VALUE_TEXT).then_some(text)
}

/// One patch operation as a line: its op, path (and from) and value.
fn operation_text(op: &Value) -> String {
    let name = op.get("op").and_then(Value::as_str).unwrap_or("?");
    let path = op.get("path").and_then(Value::as_str).unwrap_or("");
    let mut line = format!("{name} {path}");
    if let Some(from) = op.get("from").and_then(Value::as_str) {
        line = format!("{name} {from} → {path}");
    }
    if let Some(value) = op.get("value") {
        let text = clip(&value.to_string(), 200);
        line.push_str(" = ");
        line.push_str(&text);
    }
    line
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_refused_delta_keeps_the_state_as_it_was() {
        let events = [
            json!({"type": "STATE_SNAPSHOT", "snapshot": {"n": 1}}),
            json!({"type": "STATE_DELTA", "delta": [{"op": "replace", "path": "/n", "value": 2}]}),
            json!({"type": "STATE_DELTA", "delta": [{"op": "remove", "path": "/missing"}]}),
        ];
        let mut history = History::new(None);
        for (index, event) in events.iter().enumerate() {
            history.push(index, event);
        }
        let (steps, left_out) = history.finish();
        assert_eq!((steps.len(), left_out), (3, 0));
        assert_eq!(steps[1].operations, ["replace /n = 2"]);
        assert!(steps[2].refused.is_some());
        assert_eq!(steps[2].value, steps[1].value);
        assert!(steps[2]
            .value
            .as_deref()
            .is_some_and(|v| v.contains("\"n\": 2")));
    }
}
