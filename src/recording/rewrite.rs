//! A recorded stream fitted to the request it now answers: the recording's
//! thread and run ids become the incoming request's, wherever an event
//! carries them (`threadId`, `runId`, `parentRunId`), so that a client that
//! checks a run's ids against its request accepts the replayed run.

use serde_json::Value;

/// The ids a recorded run used, and the ids the request being answered
/// gave.
#[derive(Debug, Clone, Default)]
pub struct IdRewrite {
    /// (recorded, incoming) thread ids.
    thread: Option<(String, String)>,
    /// (recorded, incoming) run ids.
    run: Option<(String, String)>,
}

impl IdRewrite {
    /// The rewrite from the `recorded` run's ids (those of its request, or
    /// else of its first `RUN_STARTED`) to those of the `incoming` request.
    pub fn new(recorded: Option<&Value>, first_event: Option<&Value>, incoming: &Value) -> Self {
        let id = |value: Option<&Value>, name: &str| {
            value
                .and_then(|v| v.get(name))
                .and_then(Value::as_str)
                .map(str::to_owned)
        };
        let pair = |name: &str| {
            let from = id(recorded, name).or_else(|| id(first_event, name))?;
            let to = id(Some(incoming), name)?;
            (from != to).then_some((from, to))
        };
        IdRewrite {
            thread: pair("threadId"),
            run: pair("runId"),
        }
    }

    /// Whether nothing is rewritten.
    pub fn is_identity(&self) -> bool {
        self.thread.is_none() && self.run.is_none()
    }

    /// Rewrites the ids of `event` in place; whether any changed.
    pub fn apply(&self, event: &mut Value) -> bool {
        let mut changed = false;
        self.walk(event, &mut changed);
        changed
    }

    fn walk(&self, value: &mut Value, changed: &mut bool) {
        match value {
            Value::Object(members) => {
                for (name, member) in members.iter_mut() {
                    let pair = match name.as_str() {
                        "threadId" => self.thread.as_ref(),
                        "runId" | "parentRunId" => self.run.as_ref(),
                        _ => None,
                    };
                    match (pair, &mut *member) {
                        (Some((from, to)), Value::String(id)) if id == from => {
                            id.clone_from(to);
                            *changed = true;
                        }
                        _ => self.walk(member, changed),
                    }
                }
            }
            Value::Array(items) => {
                for item in items {
                    self.walk(item, changed);
                }
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_recorded_ids_become_the_requests() {
        let recorded = json!({"threadId": "t-old", "runId": "r-old"});
        let incoming = json!({"threadId": "t-new", "runId": "r-new"});
        let rewrite = IdRewrite::new(Some(&recorded), None, &incoming);
        let mut event = json!({"type": "RUN_STARTED", "threadId": "t-old", "runId": "r-old", "parentRunId": "other"});
        assert!(rewrite.apply(&mut event));
        assert_eq!(
            event,
            json!({"type": "RUN_STARTED", "threadId": "t-new", "runId": "r-new", "parentRunId": "other"})
        );
        // Without a recorded request, the first event tells the ids.
        let first = json!({"type": "RUN_STARTED", "threadId": "t-old", "runId": "r-old"});
        let rewrite = IdRewrite::new(None, Some(&first), &incoming);
        let mut event = json!({"type": "RUN_FINISHED", "threadId": "t-old", "runId": "r-old"});
        assert!(rewrite.apply(&mut event));
        assert_eq!(event["runId"], "r-new");
        assert!(IdRewrite::new(Some(&incoming), None, &incoming).is_identity());
    }
}
