//! The built-in scenarios: each a scripted conversation of one or more
//! runs, planned a request at a time from the exchanges so far, and judged
//! once it has ended.

use serde_json::{json, Value};

use super::checks::{self, Check, Judged, Verdict};
use super::exchange::{Exchange, Request};
use super::judge;
use super::requests::{self, fresh_id, offered, TIME_TOOL, UNKNOWN_RESUME, WEATHER_TOOL};
use super::streamed::Ending;
use crate::Validator;

/// A built-in scenario.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BuiltIn {
    /// One user message, no tool.
    Text,
    /// Two turns: the second carries the history the first streamed.
    MultiTurn,
    /// A client-side tool the agent calls, and the follow-up carrying its
    /// result.
    Tool,
    /// Two client-side tools called in one run, and their results.
    ParallelTools,
    /// State sent, changed by the run, and carried into the next one.
    State,
    /// A run that ends on an interrupt, a resume answering it, and a
    /// resume naming an interrupt never raised (1.1).
    Interrupt,
    /// A run the client cancels by closing the connection, then the next.
    Cancellation,
    /// Requests declaring 1.0 and 1.2.
    Version,
    /// Invalid JSON, snake_case keys and a wrong Content-Type.
    BadRequests,
}

impl BuiltIn {
    /// Every built-in scenario, in the order run.
    pub const ALL: [BuiltIn; 9] = [
        BuiltIn::Text,
        BuiltIn::MultiTurn,
        BuiltIn::Tool,
        BuiltIn::ParallelTools,
        BuiltIn::State,
        BuiltIn::Interrupt,
        BuiltIn::Cancellation,
        BuiltIn::Version,
        BuiltIn::BadRequests,
    ];

    /// The scenario's name, as `--scenario` takes it and reports show it.
    pub fn name(self) -> &'static str {
        match self {
            BuiltIn::Text => "text",
            BuiltIn::MultiTurn => "multi-turn",
            BuiltIn::Tool => "tool",
            BuiltIn::ParallelTools => "parallel-tools",
            BuiltIn::State => "state",
            BuiltIn::Interrupt => "interrupt",
            BuiltIn::Cancellation => "cancellation",
            BuiltIn::Version => "version",
            BuiltIn::BadRequests => "bad-requests",
        }
    }

    /// The scenario named `name`.
    pub fn by_name(name: &str) -> Option<BuiltIn> {
        BuiltIn::ALL.into_iter().find(|s| s.name() == name)
    }

    /// The checks the scenario judges, in report order.
    pub fn checks(self) -> Vec<Check> {
        use checks::*;
        let runs = |specific: &[Check]| {
            let mut all = vec![RUN_SERVED];
            all.extend_from_slice(specific);
            all.extend([STREAM_CONFORMS, STREAM_AS_RECEIVED, IDS_ECHOED]);
            all
        };
        match self {
            BuiltIn::Text => runs(&[]),
            BuiltIn::MultiTurn => runs(&[
                HISTORY_TAKEN_BACK,
                IDS_UNIQUE_ACROSS_RUNS,
                SNAPSHOT_KEEPS_HISTORY,
            ]),
            BuiltIn::Tool => runs(&[TOOL_RESULT_TAKEN_BACK, IDS_UNIQUE_ACROSS_RUNS]),
            BuiltIn::ParallelTools => runs(&[PARALLEL_CALLS_TAKEN_BACK, IDS_UNIQUE_ACROSS_RUNS]),
            BuiltIn::State => runs(&[STATE_DELTAS_APPLY, STATE_CONTINUITY]),
            BuiltIn::Interrupt => runs(&[RESUME_ACCEPTED, UNKNOWN_RESUME_HANDLED]),
            BuiltIn::Cancellation => vec![
                SERVED_AFTER_CANCEL,
                STREAM_CONFORMS,
                STREAM_AS_RECEIVED,
                IDS_ECHOED,
            ],
            BuiltIn::Version => vec![
                VERSION_DECLARED,
                NEWER_MINOR_SERVED,
                STREAM_CONFORMS,
                STREAM_AS_RECEIVED,
                IDS_ECHOED,
            ],
            BuiltIn::BadRequests => vec![
                INVALID_JSON_REJECTED,
                SNAKE_CASE_REJECTED,
                WRONG_CONTENT_TYPE_REJECTED,
            ],
        }
    }

    /// The next request, after `done`; `None` when the scenario has ended.
    /// `version` is what first requests declare.
    pub fn plan(self, thread: &str, version: Option<&str>, done: &[Exchange]) -> Option<Request> {
        // A first request of the thread: `text` from the user, `tools`
        // offered, `state` sent.
        let first = |label: &str, text: &str, tools: Vec<Value>, state: Value| {
            let input = requests::first_request(thread, text, tools, state, version);
            Request::json(label, &input)
        };
        let text = |label: &str, text: &str| first(label, text, vec![], json!({}));
        let declaring = |label: &str, thread: &str, version: &str| {
            let text = "Reply with one short sentence.";
            let input = requests::first_request(thread, text, vec![], json!({}), Some(version));
            Request::json(label, &input)
        };
        match (self, done.len()) {
            (BuiltIn::Text, 0) => Some(text(
                "a text turn",
                "Reply with one short sentence: what can you do?",
            )),
            (BuiltIn::MultiTurn, 0) => Some(text(
                "the first turn",
                "Remember the word 'teal'. Reply with one short sentence.",
            )),
            (BuiltIn::MultiTurn, 1) => follow(
                &done[0],
                "the second turn, carrying the first's history",
                vec![requests::user(
                    "Which word did I ask you to remember? Reply with the word only.",
                )],
            ),
            (BuiltIn::Tool, 0) => Some(first(
                "a turn offering a client-side tool",
                &format!("What is the weather in Berlin right now? Use the {WEATHER_TOOL} tool."),
                vec![requests::tool(WEATHER_TOOL)],
                json!({}),
            )),
            (BuiltIn::ParallelTools, 0) => Some(first(
                "a turn offering two client-side tools",
                &format!(
                    "Call {WEATHER_TOOL} and {TIME_TOOL} for Berlin, both at once, in parallel."
                ),
                vec![requests::tool(WEATHER_TOOL), requests::tool(TIME_TOOL)],
                json!({}),
            )),
            (BuiltIn::Tool | BuiltIn::ParallelTools, 1) => {
                let streamed = done[0].served().ok()?;
                let next = requests::with_tool_results(&done[0].input, streamed)?;
                Some(Request::json(
                    "the follow-up carrying the tools' results",
                    &next,
                ))
            }
            (BuiltIn::State, 0) => Some(first(
                "a turn sending state",
                "Add 'pears' to the shopping list in the shared state (state.items).",
                vec![],
                json!({"items": ["apples"], "turn": 1}),
            )),
            (BuiltIn::State, 1) => follow(
                &done[0],
                "the next turn, carrying the state the first left",
                vec![requests::user("Add 'plums' too.")],
            ),
            (BuiltIn::Interrupt, 0) => {
                let text = "Before you do anything, ask me for approval: interrupt the run and wait for my answer.";
                let input = requests::first_request(thread, text, vec![], json!({}), Some("1.1"));
                Some(Request::json(
                    "a turn asking for an interrupt (1.1)",
                    &input,
                ))
            }
            (BuiltIn::Interrupt, 1) => {
                let streamed = done[0].served().ok()?;
                if streamed.ending != Ending::Interrupt {
                    return unknown_resume(&done[0]);
                }
                let resume: Vec<Value> = streamed
                    .interrupts
                    .iter()
                    .filter_map(|i| i.get("id"))
                    .map(|id| json!({"interruptId": id, "status": "resolved", "payload": {"approved": true}}))
                    .collect();
                let mut next = next_input(&done[0], vec![])?;
                next["resume"] = Value::Array(resume);
                Some(Request::json(RESUME, &next))
            }
            (BuiltIn::Interrupt, 2) if done[1].request.label == RESUME => unknown_resume(&done[1]),
            (BuiltIn::Cancellation, 0) => Some(
                text(
                    "a long turn the client cancels after its second event",
                    "Count from 1 to 300, one number per line.",
                )
                .cancelled_after(2),
            ),
            (BuiltIn::Cancellation, 1) => {
                let first = &done[0].input;
                let mut messages = first.get("messages")?.as_array()?.clone();
                messages.push(requests::user("Reply with one short sentence."));
                let next = requests::next(first, &[], &json!({}), messages);
                Some(Request::json("the next run of the thread", &next).waiting(1000))
            }
            (BuiltIn::Version, 0) => Some(declaring("a turn declaring 1.0", thread, "1.0")),
            (BuiltIn::Version, 1) => Some(declaring(
                "a turn declaring 1.2",
                &fresh_id("thread"),
                "1.2",
            )),
            (BuiltIn::BadRequests, 0) => Some(Request::new(
                "a body that is not JSON",
                br#"{"threadId": "t", "runId": "r", "messages": ["#.to_vec(),
            )),
            (BuiltIn::BadRequests, 1) => Some(Request::json(
                "snake_case keys",
                &json!({
                    "thread_id": thread, "run_id": fresh_id("run"), "state": {},
                    "messages": [requests::user("Reply with one short sentence.")],
                    "tools": [], "context": [], "forwarded_props": {}
                }),
            )),
            (BuiltIn::BadRequests, 2) => Some(
                text("Content-Type: text/plain", "Reply with one short sentence.")
                    .with_header("Content-Type", "text/plain"),
            ),
            _ => None,
        }
    }

    /// The verdict on each of the scenario's checks after `done`.
    pub fn judge(self, validator: &Validator, done: &[Exchange]) -> Vec<Judged> {
        // Exchanges that answered a run request the server should serve:
        // all but a cancelled one (cut on purpose).
        let runs: Vec<(usize, &Exchange)> = done
            .iter()
            .enumerate()
            .filter(|(_, e)| e.request.cancel_after_events.is_none())
            .collect();
        let stream = judge::StreamFindings::of(validator, &runs);
        let mut judged: Vec<Judged> = self
            .checks()
            .into_iter()
            .map(|check| Judged {
                check,
                verdict: self.verdict(check, &stream, &runs, done),
            })
            .collect();
        judge::one_cause(&mut judged, &stream);
        judged
    }

    fn verdict(
        self,
        check: Check,
        stream: &judge::StreamFindings,
        runs: &[(usize, &Exchange)],
        done: &[Exchange],
    ) -> Verdict {
        use checks::*;
        let first_served = || {
            done.first()
                .ok_or_else(|| "no request was sent".to_string())
                .and_then(Exchange::served)
        };
        match check.id {
            id if id == RUN_SERVED.id => match first_served() {
                Ok(_) => Verdict::Passed,
                Err(why) => Verdict::Failed(format!(
                    "{}: {why}",
                    done.first().map_or_else(String::new, |e| e.name(0))
                )),
            },
            id if id == STREAM_CONFORMS.id => stream.conforms(),
            id if id == STREAM_AS_RECEIVED.id => stream.as_received(),
            id if id == IDS_ECHOED.id => judge::ids_echoed(runs),
            id if id == IDS_UNIQUE_ACROSS_RUNS.id => judge::ids_unique(done),
            id if id == SNAPSHOT_KEEPS_HISTORY.id => judge::snapshot_keeps_history(done),
            id if id == HISTORY_TAKEN_BACK.id
                || id == TOOL_RESULT_TAKEN_BACK.id
                || id == PARALLEL_CALLS_TAKEN_BACK.id =>
            {
                self.follow_up_served(done)
            }
            id if id == STATE_DELTAS_APPLY.id => judge::state_deltas_apply(done.first(), 0),
            id if id == STATE_CONTINUITY.id => judge::state_continuity(done),
            id if id == RESUME_ACCEPTED.id => judge::resume_accepted(done),
            id if id == UNKNOWN_RESUME_HANDLED.id => judge::unknown_resume_handled(done),
            id if id == SERVED_AFTER_CANCEL.id => judge::served_after_cancel(done),
            id if id == VERSION_DECLARED.id => judge::version_declared(done.first()),
            id if id == NEWER_MINOR_SERVED.id => judge::newer_minor_served(done),
            id if id == INVALID_JSON_REJECTED.id => judge::rejected(done.first(), 0),
            id if id == SNAKE_CASE_REJECTED.id => judge::rejected(done.get(1), 1),
            id if id == WRONG_CONTENT_TYPE_REJECTED.id => judge::rejected(done.get(2), 2),
            _ => Verdict::NotExercised(format!(
                "the {} scenario does not judge {}",
                self.name(),
                check.id
            )),
        }
    }

    /// Whether the follow-up of the scenario's first run was served; not
    /// exercised when the agent did not act so that there was one.
    fn follow_up_served(self, done: &[Exchange]) -> Verdict {
        let Some(first) = done.first() else {
            return Verdict::NotExercised("no request was sent".into());
        };
        let streamed = match first.acted() {
            Ok(streamed) => streamed,
            Err(why) => return why.setup(&first.name(0)),
        };
        if self == BuiltIn::ParallelTools {
            let calls = streamed.pending_calls(&offered(&first.input)).count();
            if calls < 2 {
                return Verdict::NotExercised(format!(
                    "the agent made {calls} call{} of the offered tools in one run, not two or more",
                    if calls == 1 { "" } else { "s" }
                ));
            }
        }
        let Some(second) = done.get(1) else {
            if let Some(why) = &streamed.conversation_over {
                return Verdict::NotExercised(format!("{}: {why}", first.name(0)));
            }
            return Verdict::NotExercised(match self {
                BuiltIn::Tool | BuiltIn::ParallelTools if judge::snapshot_calls(first, streamed) => format!(
                    "the agent's calls of the offered tools came only in a MESSAGES_SNAPSHOT, not as TOOL_CALL_START events, on which a client runs its tools; the run streamed {}",
                    judge::event_types(streamed)
                ),
                BuiltIn::Tool | BuiltIn::ParallelTools => format!(
                    "the agent did not call an offered tool ({}); the run streamed {}",
                    offered(&first.input).join(", "),
                    judge::event_types(streamed)
                ),
                _ => "there was no second request".into(),
            });
        };
        match second.acted() {
            Ok(_) => Verdict::Passed,
            Err(why) => why.judged(&second.name(1)),
        }
    }
}

/// The label of the request resuming every interrupt of the first run.
const RESUME: &str = "the resume answering every interrupt";

/// The next input of `previous`'s thread with the conversation and state
/// its run left, and `more` messages; `None` when it was not served.
fn next_input(previous: &Exchange, more: Vec<Value>) -> Option<Value> {
    let streamed = previous.served().ok()?;
    if streamed.conversation_over.is_some() {
        return None;
    }
    Some(requests::next(
        &previous.input,
        &streamed.messages,
        &streamed.state,
        more,
    ))
}

/// [`next_input`] as a request labelled `label`.
fn follow(previous: &Exchange, label: &str, more: Vec<Value>) -> Option<Request> {
    Some(Request::json(label, &next_input(previous, more)?))
}

/// A request continuing `previous`'s thread whose resume names an
/// interrupt nobody raised: `previous`'s own request (served, or at least
/// sent) with a fresh `runId` and that resume, so that the entry is all
/// that differs from a request the server has already been sent.
fn unknown_resume(previous: &Exchange) -> Option<Request> {
    let messages = previous.input.get("messages")?.as_array()?.clone();
    let state = previous.input.get("state").cloned().unwrap_or(json!({}));
    let mut next = requests::next(&previous.input, &messages, &state, vec![]);
    next["protocolVersion"] = json!("1.1");
    next["resume"] = json!([{"interruptId": fresh_id("unknown-interrupt"), "status": "resolved", "payload": {"approved": true}}]);
    Some(Request::json(UNKNOWN_RESUME, &next))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_requests_are_valid_run_agent_inputs_but_the_bad_ones() {
        let validator = Validator::new().expect("validator");
        for scenario in BuiltIn::ALL {
            for version in [Some("1.0"), Some("1.1"), None] {
                let request = scenario.plan("t", version, &[]).expect("a first request");
                let report = validator.validate(crate::Kind::RunAgentInput, &request.body);
                if scenario == BuiltIn::BadRequests {
                    assert!(!report.is_valid(), "{scenario:?}");
                } else {
                    assert!(
                        report.diagnostics().is_empty(),
                        "{scenario:?} {version:?}: {:?}",
                        report.diagnostics()
                    );
                }
            }
            assert_eq!(BuiltIn::by_name(scenario.name()), Some(scenario));
            assert!(!scenario.checks().is_empty());
        }
    }
}
