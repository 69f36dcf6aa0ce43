//! The judgments the scenarios share: each reads a scenario's exchanges
//! and gives one check's verdict, with the request and event that decided
//! it.

use std::collections::{HashMap, HashSet};

use serde_json::Value;

use super::around::events_around;
use super::checks::{self, Check, Judged, Verdict};
use super::exchange::{body_excerpt, media_type, request_named, Exchange, NotActed};
use super::streamed::{Ending, Streamed};
use crate::rules::sequence::{lifecycle, open, owned_by_the_kit};
use crate::rules::{messages, transport, Rule};
use crate::{Framing, Severity, StreamChecker, Validator};

/// One finding of the stream checker on a served run: the request it
/// answers (0-based), its rule, and how a verdict shows it.
#[derive(Debug, Clone)]
pub struct StreamFinding {
    request: usize,
    rule: String,
    text: String,
    /// The events around it, for the first finding of its request.
    around: String,
}

/// The stream checker's findings on each served run of a scenario, paired
/// with its request, read once for the checks that show them. Rules
/// another check of the kit judges are left to it, so that a server
/// breaking one requirement fails one check.
#[derive(Debug, Clone, Default)]
pub struct StreamFindings {
    /// How many runs were read.
    judged: usize,
    errors: Vec<StreamFinding>,
    warnings: Vec<StreamFinding>,
}

impl StreamFindings {
    /// Checks the stream of each of `runs`.
    pub fn of(validator: &Validator, runs: &[(usize, &Exchange)]) -> StreamFindings {
        let mut found = StreamFindings::default();
        for (n, exchange) in runs {
            if exchange.streamed.is_none() {
                continue;
            }
            found.judged += 1;
            let framing = if media_type(&exchange.received).contains("event-stream") {
                Framing::Sse
            } else {
                Framing::JsonLines
            };
            let mut checker = StreamChecker::new(validator, framing);
            if exchange.input.is_object() {
                checker = checker.answering(&exchange.input);
            }
            let mut documents = checker.feed(&exchange.received.body);
            documents.extend(checker.finish());
            // One window a request and severity: each costs a read of
            // its body.
            let (mut error_shown, mut warning_shown) = (false, false);
            for checked in &documents {
                for finding in checked.report.diagnostics() {
                    if owned_by_the_kit(&finding.rule) {
                        continue;
                    }
                    let at = checked
                        .record
                        .map_or_else(String::new, |r| format!(", event {r}"));
                    let shown = match finding.severity {
                        Severity::Error => &mut error_shown,
                        Severity::Warning => &mut warning_shown,
                        _ => continue,
                    };
                    let around = match checked.record {
                        Some(record) if !*shown => {
                            *shown = true;
                            events_around(&exchange.received.body, framing, record)
                        }
                        _ => String::new(),
                    };
                    let found_one = StreamFinding {
                        request: *n,
                        around,
                        rule: finding.rule.to_string(),
                        text: format!(
                            "{}{at}: {}[{}] {}",
                            exchange.name(*n),
                            finding.severity.as_str(),
                            finding.rule,
                            finding.message
                        ),
                    };
                    match finding.severity {
                        Severity::Error => found.errors.push(found_one),
                        Severity::Warning => found.warnings.push(found_one),
                        _ => {}
                    }
                }
            }
        }
        found
    }

    /// The verdict of `stream-conforms`: no error finding.
    pub fn conforms(&self) -> Verdict {
        self.verdict(&self.errors)
    }

    /// The verdict of `stream-as-received`: no warning finding.
    pub fn as_received(&self) -> Verdict {
        self.verdict(&self.warnings)
    }

    /// The first few of `findings`, with where they are.
    fn verdict(&self, findings: &[StreamFinding]) -> Verdict {
        const SHOWN: usize = 3;
        if self.judged == 0 {
            return Verdict::NotExercised("no request was answered with an event stream".into());
        }
        if findings.is_empty() {
            return Verdict::Passed;
        }
        let shown = &findings[..findings.len().min(SHOWN)];
        // A finding with the events around it takes lines of its own.
        let apart = if shown.iter().any(|f| !f.around.is_empty()) {
            "\n"
        } else {
            "; "
        };
        let mut why = shown
            .iter()
            .map(|f| {
                if f.around.is_empty() {
                    f.text.clone()
                } else {
                    format!("{}\n{}", f.text, f.around)
                }
            })
            .collect::<Vec<_>>()
            .join(apart);
        if findings.len() > SHOWN {
            why.push_str(&format!(" (and {} more)", findings.len() - SHOWN));
        }
        Verdict::Failed(why)
    }

    /// The check whose failure reports the cause of every error finding,
    /// when one does: a run cut short is `run-served`'s (or the follow-up
    /// check's) failure, an id reopened is `ids-unique-across-runs`', a
    /// run id changed mid-run `ids-echoed`'. `judged` holds the scenario's
    /// other verdicts.
    pub fn same_cause(&self, judged: &[Judged]) -> Option<&'static str> {
        let mut under = None;
        for finding in &self.errors {
            let rule = finding.rule.as_str();
            let candidates: &[Check] = if CUT_SHORT.iter().any(|r| r.name == rule) {
                &[
                    checks::RUN_SERVED,
                    checks::HISTORY_TAKEN_BACK,
                    checks::TOOL_RESULT_TAKEN_BACK,
                    checks::PARALLEL_CALLS_TAKEN_BACK,
                    checks::STATE_CONTINUITY,
                    checks::RESUME_ACCEPTED,
                    checks::SERVED_AFTER_CANCEL,
                    checks::VERSION_DECLARED,
                    checks::NEWER_MINOR_SERVED,
                ]
            } else if REOPENED.iter().any(|r| r.name == rule) {
                &[checks::IDS_UNIQUE_ACROSS_RUNS]
            } else if RUN_ID_CHANGED.iter().any(|r| r.name == rule) {
                &[checks::IDS_ECHOED]
            } else {
                return None;
            };
            let failed = judged.iter().find(|j| {
                candidates.contains(&j.check)
                    && matches!(&j.verdict, Verdict::Failed(why) if request_named(why) == Some(finding.request))
            })?;
            under.get_or_insert(failed.check.id);
        }
        under
    }
}

/// The stream checker's rules for a run that was cut short: the run's
/// serving check of that request reports it.
const CUT_SHORT: [Rule; 4] = [
    lifecycle::STREAM_TRUNCATED,
    open::NEVER_ENDED,
    transport::RESPONSE_INCOMPLETE,
    lifecycle::EVENT_BEFORE_RUN_STARTED,
];

/// Its rules for an id opened again: `ids-unique-across-runs` reports it.
const REOPENED: [Rule; 3] = [
    messages::DUPLICATE_MESSAGE_ID,
    messages::DUPLICATE_TOOL_CALL_ID,
    open::DUPLICATE_START,
];

/// Its rules for a run's ids changed: `ids-echoed` reports it.
const RUN_ID_CHANGED: [Rule; 2] = [
    lifecycle::RUN_FINISHED_ID_MISMATCH,
    lifecycle::RUN_STARTED_OTHER_THREAD,
];

/// Reports one cause once: `stream-conforms`, failing only for what
/// another failed check of the scenario reports, points to it.
pub fn one_cause(judged: &mut [Judged], stream: &StreamFindings) {
    let Some(under) = stream.same_cause(judged) else {
        return;
    };
    for j in judged.iter_mut() {
        if j.check == checks::STREAM_CONFORMS {
            if let Verdict::Failed(why) = &j.verdict {
                j.verdict = Verdict::SameCause {
                    check: under,
                    why: why.clone(),
                };
            }
        }
    }
}

/// `RUN_STARTED` and `RUN_FINISHED` of every served run carry the ids its
/// request sent.
pub fn ids_echoed(runs: &[(usize, &Exchange)]) -> Verdict {
    let mut judged = 0;
    for (n, exchange) in runs {
        let Some(streamed) = &exchange.streamed else {
            continue;
        };
        for key in ["threadId", "runId"] {
            let Some(sent) = exchange.input.get(key).and_then(Value::as_str) else {
                continue;
            };
            for kind in ["RUN_STARTED", "RUN_FINISHED"] {
                for event in streamed.of_type(kind) {
                    judged += 1;
                    match event.get(key) {
                        Some(Value::String(got)) if got == sent => {}
                        Some(got) => {
                            return Verdict::Failed(format!(
                                "{}: {kind} carries {key} {got}, not '{sent}' as sent",
                                exchange.name(*n)
                            ))
                        }
                        None => {
                            return Verdict::Failed(format!(
                                "{}: {kind} has no {key} ('{sent}' was sent)",
                                exchange.name(*n)
                            ))
                        }
                    }
                }
            }
        }
    }
    if judged == 0 {
        return Verdict::NotExercised("no run started or finished".into());
    }
    Verdict::Passed
}

/// No run after the first opens a message or tool call under an id the
/// thread's history (its request's messages) already has.
pub fn ids_unique(done: &[Exchange]) -> Verdict {
    let mut judged = false;
    for (n, exchange) in done.iter().enumerate().skip(1) {
        let Some(streamed) = &exchange.streamed else {
            continue;
        };
        judged = true;
        let known = history_ids(&exchange.input);
        if let Some(id) = streamed
            .opened_ids
            .iter()
            .find(|id| known.contains(id.as_str()))
        {
            return Verdict::Failed(format!(
                "{}: the run opens '{id}', an id the thread's history already has",
                exchange.name(n)
            ));
        }
    }
    if judged {
        Verdict::Passed
    } else {
        Verdict::NotExercised("no later run of the thread was served".into())
    }
}

/// The ids of a request's messages and of their tool calls.
fn history_ids(input: &Value) -> HashSet<&str> {
    let mut ids = HashSet::new();
    for message in input
        .get("messages")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        ids.extend(message.get("id").and_then(Value::as_str));
        for call in message
            .get("toolCalls")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            ids.extend(call.get("id").and_then(Value::as_str));
        }
    }
    ids
}

/// A `MESSAGES_SNAPSHOT` of a later run restates each message the request
/// carried, by id, with the same role and content.
pub fn snapshot_keeps_history(done: &[Exchange]) -> Verdict {
    let mut judged = false;
    for (n, exchange) in done.iter().enumerate().skip(1) {
        let Some(streamed) = &exchange.streamed else {
            continue;
        };
        let carried: &[Value] = exchange
            .input
            .get("messages")
            .and_then(Value::as_array)
            .map_or(&[], Vec::as_slice);
        for snapshot in streamed.of_type("MESSAGES_SNAPSHOT") {
            judged = true;
            let restated: HashMap<&str, &Value> = snapshot
                .get("messages")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(|m| Some((m.get("id")?.as_str()?, m)))
                .collect();
            for message in carried {
                let id = message.get("id");
                let Some(again) = id.and_then(Value::as_str).and_then(|i| restated.get(i)) else {
                    continue;
                };
                for key in ["role", "content"] {
                    if !same_member(message.get(key), again.get(key)) {
                        return Verdict::Failed(format!(
                            "{}: MESSAGES_SNAPSHOT restates message {} with {key} {} where the request carried {}",
                            exchange.name(n),
                            id.map_or_else(String::new, Value::to_string),
                            again.get(key).map_or_else(|| "absent".into(), Value::to_string),
                            message.get(key).map_or_else(|| "none".into(), Value::to_string),
                        ));
                    }
                }
            }
        }
    }
    if judged {
        return Verdict::Passed;
    }
    match done
        .iter()
        .enumerate()
        .skip(1)
        .find_map(|(n, e)| Some((n, e.agent_error()?)))
    {
        Some((n, error)) => Verdict::NotExercised(format!(
            "no later run sent a MESSAGES_SNAPSHOT; {}: the agent failed: {error}",
            done[n].name(n)
        )),
        None => Verdict::NotExercised("no later run sent a MESSAGES_SNAPSHOT".into()),
    }
}

/// Whether a message's member restated is the one carried: an empty text
/// and none are the same content, as `@ag-ui/client` holds them.
fn same_member(carried: Option<&Value>, restated: Option<&Value>) -> bool {
    let empty = |v: Option<&Value>| v.is_none_or(|v| v.as_str() == Some(""));
    carried == restated || (empty(carried) && empty(restated))
}

/// The deltas of the `n`-th exchange's run apply to the state its request
/// sent.
pub fn state_deltas_apply(exchange: Option<&Exchange>, n: usize) -> Verdict {
    let Some(exchange) = exchange else {
        return Verdict::NotExercised("no request was sent".into());
    };
    let Some(streamed) = &exchange.streamed else {
        return Verdict::NotExercised(format!(
            "{} was not answered with a stream",
            exchange.name(n)
        ));
    };
    if streamed.of_type("STATE_DELTA").next().is_none() {
        if let Some(error) = exchange.agent_error() {
            return Verdict::NotExercised(format!(
                "{}: the agent failed: {error}",
                exchange.name(n)
            ));
        }
        return Verdict::NotExercised(format!(
            "the agent sent no STATE_DELTA; the run streamed {}",
            event_types(streamed)
        ));
    }
    if let Some((event, why)) = &streamed.state_over {
        return Verdict::NotExercised(format!(
            "{}, event {}: {why}, as agui-lint's budget counts it (--max-state-size): the deltas after it are not applied",
            exchange.name(n),
            event + 1
        ));
    }
    match &streamed.state_error {
        Some((event, why)) => Verdict::Failed(format!(
            "{}, event {}: STATE_DELTA does not apply to the state the request sent: {why}",
            exchange.name(n),
            event + 1
        )),
        None => Verdict::Passed,
    }
}

/// The second run takes the state the first left: its request is served
/// and its deltas apply to that state.
pub fn state_continuity(done: &[Exchange]) -> Verdict {
    let Some(first) = done.first() else {
        return Verdict::NotExercised("no request was sent".into());
    };
    let streamed = match first.acted() {
        Ok(streamed) => streamed,
        Err(why) => return why.setup(&first.name(0)),
    };
    if !streamed.state_events {
        return Verdict::NotExercised(format!(
            "the first run sent no state event; it streamed {}",
            event_types(streamed)
        ));
    }
    let Some(second) = done.get(1) else {
        return Verdict::NotExercised("there was no second request".into());
    };
    if let Err(why) = second.acted() {
        return why.judged(&format!(
            "{}, carrying the state the first run left",
            second.name(1)
        ));
    }
    match state_deltas_apply(Some(second), 1) {
        Verdict::NotExercised(_) => Verdict::Passed,
        verdict => verdict,
    }
}

/// The resume answering every interrupt of the first run is served, and
/// its run does not raise an answered interrupt again.
pub fn resume_accepted(done: &[Exchange]) -> Verdict {
    let Some(first) = done.first() else {
        return Verdict::NotExercised("no request was sent".into());
    };
    let streamed = match first.acted() {
        Ok(streamed) => streamed,
        Err(why) => return why.setup(&first.name(0)),
    };
    if streamed.ending != Ending::Interrupt {
        return Verdict::NotExercised(format!(
            "the agent did not interrupt (no RUN_FINISHED with the interrupt outcome); the run streamed {}",
            event_types(streamed)
        ));
    }
    let Some(resume) = done.get(1) else {
        return Verdict::NotExercised("the resume was not sent".into());
    };
    let resumed = match resume.acted() {
        Ok(resumed) => resumed,
        Err(why) => return why.judged(&resume.name(1)),
    };
    let answered: HashSet<&str> = streamed
        .interrupts
        .iter()
        .filter_map(|i| i.get("id")?.as_str())
        .collect();
    if let Some(again) = resumed
        .interrupts
        .iter()
        .filter_map(|i| i.get("id")?.as_str())
        .find(|id| answered.contains(id))
    {
        return Verdict::Failed(format!(
            "{}: the run raises interrupt '{again}' again, which the resume answered",
            resume.name(1)
        ));
    }
    Verdict::Passed
}

/// The run whose resume names an interrupt never raised proceeds without
/// the entry: rejecting the request or failing the run over it fails the
/// SHOULD, unless the agent fails every run anyway.
pub fn unknown_resume_handled(done: &[Exchange]) -> Verdict {
    let Some((n, exchange)) = done
        .iter()
        .enumerate()
        .find(|(_, e)| e.request.label == super::requests::UNKNOWN_RESUME)
    else {
        return Verdict::NotExercised("the resume naming an unknown interrupt was not sent".into());
    };
    let name = exchange.name(n);
    match exchange.acted() {
        Ok(_) => Verdict::Passed,
        // The run failed, and so did the thread's first, which no resume
        // entry could have upset: the agent fails whatever it is sent.
        Err(NotActed::AgentFailed(error))
            if n > 0 && done.first().and_then(Exchange::agent_error).is_some() =>
        {
            Verdict::NotExercised(format!(
                "{name}: the agent failed: {error}, as it did on the thread's first run"
            ))
        }
        Err(NotActed::AgentFailed(error)) => Verdict::Failed(format!(
            "{name}: the run failed over an answer it never asked for: {error}"
        )),
        Err(NotActed::NotServed(why)) => Verdict::Failed(format!("{name}: {why}")),
    }
}

/// After the client closed the connection mid-run, the next run is served.
pub fn served_after_cancel(done: &[Exchange]) -> Verdict {
    let Some(first) = done.first() else {
        return Verdict::NotExercised("no request was sent".into());
    };
    match &first.streamed {
        None => {
            return Verdict::NotExercised(format!(
                "the run to cancel was not served: HTTP {}{}",
                first.status(),
                body_excerpt(&first.received.body)
            ))
        }
        Some(streamed) if streamed.ending != Ending::Open => {
            return Verdict::NotExercised(format!(
                "the run ended after {} events, before the client closed the connection: nothing was cancelled",
                streamed.count
            ))
        }
        Some(_) => {}
    }
    let Some(next) = done.get(1) else {
        return Verdict::NotExercised("there was no next request".into());
    };
    match next.served() {
        Ok(_) => Verdict::Passed,
        Err(why) => Verdict::Failed(format!("{}: {why}", next.name(1))),
    }
}

/// The run answering a request that declared 1.0 declares a version on
/// `RUN_STARTED`.
pub fn version_declared(exchange: Option<&Exchange>) -> Verdict {
    let Some(exchange) = exchange else {
        return Verdict::NotExercised("no request was sent".into());
    };
    let streamed = match exchange.served() {
        Ok(streamed) => streamed,
        Err(why) => return Verdict::Failed(format!("{}: {why}", exchange.name(0))),
    };
    if !exchange.started() {
        return Verdict::NotExercised(format!(
            "{}: the run failed before it started, with no RUN_STARTED to declare a version: {}",
            exchange.name(0),
            exchange.agent_error().unwrap_or_default()
        ));
    }
    match streamed
        .of_type("RUN_STARTED")
        .next()
        .and_then(|e| e.get("protocolVersion"))
    {
        Some(Value::String(_)) => Verdict::Passed,
        Some(other) => Verdict::Failed(format!(
            "{}: RUN_STARTED.protocolVersion is {other}, not a version",
            exchange.name(0)
        )),
        None => Verdict::Failed(format!(
            "{}: RUN_STARTED declares no protocolVersion (a MUST of the producer; `check` reports the same stream as the warning protocol-version-missing, since a receiver proceeds)",
            exchange.name(0)
        )),
    }
}

/// The request declaring a newer minor (the scenario's second) is served.
/// A stream that fails before it starts, after the same server started
/// the run declaring 1.0, rejected the request for its version; when the
/// 1.0 run failed too, the agent fails whatever it is sent.
pub fn newer_minor_served(done: &[Exchange]) -> Verdict {
    let Some(exchange) = done.get(1) else {
        return Verdict::NotExercised("the request declaring 1.2 was not sent".into());
    };
    let name = exchange.name(1);
    if let Err(why) = exchange.served() {
        return Verdict::Failed(format!("{name}: {why}"));
    }
    match exchange.agent_error() {
        Some(error) if !exchange.started() => {
            if done.first().is_some_and(Exchange::started) {
                Verdict::Failed(format!(
                    "{name}: rejected before RUN_STARTED ({error}), where the request declaring 1.0 was served"
                ))
            } else {
                Verdict::NotExercised(format!(
                    "{name}: the agent failed before the run started: {error}, as it did on the request declaring 1.0"
                ))
            }
        }
        _ => Verdict::Passed,
    }
}

/// The `n`-th bad request is answered with a 4xx and a body.
pub fn rejected(exchange: Option<&Exchange>, n: usize) -> Verdict {
    let Some(exchange) = exchange else {
        return Verdict::NotExercised("the request was not sent".into());
    };
    let status = exchange.status();
    let name = exchange.name(n);
    if exchange.received.status.is_none() {
        if let Err(why) = exchange.served() {
            return Verdict::Failed(format!("{name}: {why}"));
        }
    }
    if (400..500).contains(&status) {
        if exchange.received.body.iter().all(u8::is_ascii_whitespace) {
            return Verdict::Failed(format!("{name}: HTTP {status} with an empty body: say why"));
        }
        return Verdict::Passed;
    }
    if let Some(streamed) = &exchange.streamed {
        // A stream opening with RUN_ERROR rejects the input before any
        // run starts, as the transport's own rejection does
        // (`spec/1.1/basic/patterns/interrupt-resume.mdx`).
        if streamed.first_type.as_deref() == Some("RUN_ERROR") && !exchange.started() {
            return Verdict::Passed;
        }
        if streamed.of_type("RUN_STARTED").next().is_some() {
            return Verdict::Failed(format!("{name}: HTTP {status}, and a run was served"));
        }
    }
    Verdict::Failed(format!(
        "{name}: HTTP {status}{}",
        body_excerpt(&exchange.received.body)
    ))
}

/// Whether the conversation a run left has calls of a tool its request
/// offers that the run streamed no `TOOL_CALL_START` for (a snapshot
/// carrying them alone).
pub fn snapshot_calls(exchange: &Exchange, streamed: &Streamed) -> bool {
    let offered = super::requests::offered(&exchange.input);
    let known = history_ids(&exchange.input);
    let streamed_calls: HashSet<&str> = streamed.calls.iter().map(|c| c.id.as_str()).collect();
    streamed
        .messages
        .iter()
        .filter_map(|m| m.get("toolCalls").and_then(Value::as_array))
        .flatten()
        .any(|call| {
            let id = call.get("id").and_then(Value::as_str).unwrap_or("");
            let name = call
                .pointer("/function/name")
                .and_then(Value::as_str)
                .unwrap_or("");
            offered.iter().any(|o| o == name) && !known.contains(id) && !streamed_calls.contains(id)
        })
}

/// The event types a run streamed, for a reason: `RUN_STARTED, TEXT_MESSAGE_START, …`.
pub fn event_types(streamed: &Streamed) -> String {
    const MOST: usize = 8;
    let types = &streamed.types;
    if types.is_empty() {
        return "no event".into();
    }
    let more = types.len().saturating_sub(MOST);
    let mut text = types[..types.len().min(MOST)].join(", ");
    if more > 0 {
        text.push_str(&format!(" and {more} more types"));
    }
    text
}
