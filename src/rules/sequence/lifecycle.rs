//! The run lifecycle (`spec/1.1/events/lifecycle.mdx`): a stream starts
//! with `RUN_STARTED` (or `RUN_ERROR`), runs do not nest, nothing but a new
//! run follows `RUN_FINISHED`, nothing (1.x: nothing but a new run)
//! follows `RUN_ERROR`, a run finishes with the ids it started with and
//! with nothing open, and the stream does not end inside a run. In 1.x the
//! runs of one stream are runs of one thread, each with its own id.
//!
//! [`Lifecycle::event`] tells the dispatcher where a run began or ended;
//! what the other trackers forget then is decided there, in one place.

use foldhash::HashSet;

use super::event_type::EventType;
use super::here::{EventPlace, Here};
use super::open::OpenItems;
use super::REMEMBERED_IDS;
use crate::diagnostic::Severity;
use crate::findings::Findings;
use crate::rules::{Rule, EVERY_VERSION, SINCE_1_0};

pub(crate) const EVENT_BEFORE_RUN_STARTED: Rule = Rule {
    name: "event-before-run-started",
    severity: Severity::Error,
    protocols: EVERY_VERSION,
    severity_1x: None,
    summary: "A stream's first event is not RUN_STARTED (or RUN_ERROR)",
    docs: r#"## What it checks
That a stream begins with `RUN_STARTED`. `RUN_ERROR` may come first too: an
agent that fails before starting reports it that way. Only the first event
out of place is reported.

## Why it matters
Clients create the run's context (its ids, loading state) on
`RUN_STARTED`; events before it belong to no run and clients drop or
misattribute them.

## Invalid
```json
[{"type": "TEXT_MESSAGE_START", "messageId": "m1", "role": "assistant"}]
```

## Valid
```json
[{"type": "RUN_STARTED", "threadId": "t1", "runId": "r1"},
 {"type": "TEXT_MESSAGE_START", "messageId": "m1", "role": "assistant"}]
```
"#,
};

pub(super) const RUN_STARTED_WHILE_ACTIVE: Rule = Rule {
    name: "run-started-while-active",
    severity: Severity::Error,
    protocols: EVERY_VERSION,
    severity_1x: None,
    summary: "RUN_STARTED arrives while a run is still active",
    docs: r#"## What it checks
That a run ends (`RUN_FINISHED` or `RUN_ERROR`) before the next
`RUN_STARTED`. The finding names the run that is still active.

## Why it matters
Runs do not nest: every run is bounded by its start and its end. A second
start leaves the first run without an end, and clients mix up the events
of both.

## Invalid
```json
[{"type": "RUN_STARTED", "threadId": "t1", "runId": "r1"},
 {"type": "RUN_STARTED", "threadId": "t1", "runId": "r2"}]
```

## Valid
```json
[{"type": "RUN_STARTED", "threadId": "t1", "runId": "r1"},
 {"type": "RUN_FINISHED", "threadId": "t1", "runId": "r1"},
 {"type": "RUN_STARTED", "threadId": "t1", "runId": "r2"}]
```
"#,
};

pub(super) const EVENT_AFTER_RUN_ERROR: Rule = Rule {
    name: "event-after-run-error",
    severity: Severity::Error,
    protocols: EVERY_VERSION,
    severity_1x: None,
    summary: "An event follows RUN_ERROR",
    docs: r#"## What it checks
That nothing follows `RUN_ERROR`: "after a RunError event, no further
processing will occur". Since 1.0 a new run may: "a producer MUST NOT emit
anything after `RUN_ERROR` except `RUN_STARTED`"
(`spec/1.1/events/lifecycle.mdx`), so in 1.x only a `RUN_STARTED` may
follow; before 1.0 nothing may. Only the first event after it is reported.

## Why it matters
Clients tear the run down on `RUN_ERROR`; what follows is lost or, worse,
applied to the next run.

## Invalid
```json
[{"type": "RUN_STARTED", "threadId": "t1", "runId": "r1"},
 {"type": "RUN_ERROR", "message": "model unavailable"},
 {"type": "TEXT_MESSAGE_START", "messageId": "m1", "role": "assistant"}]
```

## Valid
```json
[{"type": "RUN_STARTED", "threadId": "t1", "runId": "r1"},
 {"type": "RUN_ERROR", "message": "model unavailable"}]
```
"#,
};

pub(super) const EVENT_AFTER_RUN_FINISHED: Rule = Rule {
    name: "event-after-run-finished",
    severity: Severity::Error,
    protocols: EVERY_VERSION,
    severity_1x: None,
    summary: "An event other than RUN_STARTED follows RUN_FINISHED",
    docs: r#"## What it checks
That after `RUN_FINISHED` the only event is a new `RUN_STARTED`. Only the
first event out of place after each finished run is reported.

## Why it matters
`RUN_FINISHED` closes the run's context; later events belong to no run.

## Invalid
```json
[{"type": "RUN_STARTED", "threadId": "t1", "runId": "r1"},
 {"type": "RUN_FINISHED", "threadId": "t1", "runId": "r1"},
 {"type": "STATE_SNAPSHOT", "snapshot": {}}]
```

## Valid
```json
[{"type": "RUN_STARTED", "threadId": "t1", "runId": "r1"},
 {"type": "STATE_SNAPSHOT", "snapshot": {}},
 {"type": "RUN_FINISHED", "threadId": "t1", "runId": "r1"}]
```
"#,
};

pub(crate) const RUN_FINISHED_ID_MISMATCH: Rule = Rule {
    name: "run-finished-id-mismatch",
    severity: Severity::Error,
    protocols: EVERY_VERSION,
    severity_1x: None,
    summary: "RUN_FINISHED names another thread or run than its RUN_STARTED",
    docs: r#"## What it checks
That `RUN_FINISHED` carries the `threadId` and `runId` of the
`RUN_STARTED` it ends.

## Why it matters
Clients match the end to the start by these ids; a mismatch leaves the
started run open and finishes one that does not exist.

## Invalid
```json
[{"type": "RUN_STARTED", "threadId": "t1", "runId": "r1"},
 {"type": "RUN_FINISHED", "threadId": "t1", "runId": "r2"}]
```

## Valid
```json
[{"type": "RUN_STARTED", "threadId": "t1", "runId": "r1"},
 {"type": "RUN_FINISHED", "threadId": "t1", "runId": "r1"}]
```
"#,
};

pub(crate) const RUN_FINISHED_WHILE_OPEN: Rule = Rule {
    name: "run-finished-while-open",
    severity: Severity::Error,
    protocols: EVERY_VERSION,
    severity_1x: None,
    summary: "RUN_FINISHED arrives while a message, tool call, step or reasoning block is open",
    docs: r#"## What it checks
That every text message, tool call, step, reasoning phase and reasoning
message started in a run has ended when `RUN_FINISHED` arrives. One
finding per open item, naming where it started. (`RUN_ERROR` may end a run
with items open: the error explains why.)

## Why it matters
A successful run that leaves a message open shows a message that never
stops loading; a tool call left open is never executed or answered.

## Invalid
```json
[{"type": "RUN_STARTED", "threadId": "t1", "runId": "r1"},
 {"type": "TEXT_MESSAGE_START", "messageId": "m1", "role": "assistant"},
 {"type": "RUN_FINISHED", "threadId": "t1", "runId": "r1"}]
```

## Valid
```json
[{"type": "RUN_STARTED", "threadId": "t1", "runId": "r1"},
 {"type": "TEXT_MESSAGE_START", "messageId": "m1", "role": "assistant"},
 {"type": "TEXT_MESSAGE_END", "messageId": "m1"},
 {"type": "RUN_FINISHED", "threadId": "t1", "runId": "r1"}]
```
"#,
};

pub(crate) const STREAM_TRUNCATED: Rule = Rule {
    name: "stream-truncated",
    severity: Severity::Error,
    protocols: EVERY_VERSION,
    severity_1x: None,
    summary: "The stream ends while a run is active",
    docs: r#"## What it checks
That the last run of a stream has ended (`RUN_FINISHED` or `RUN_ERROR`)
when the stream ends. The finding is on the last event and names the run's
`RUN_STARTED`.

## Why it matters
A stream cut off mid-run (a proxy timeout, a crashed agent, a capture
stopped early) leaves the client waiting forever; `RUN_ERROR` is how an
agent says it cannot go on.

## Where the official receivers differ
@ag-ui/client 1.0.0 ends such a run without an error: `runAgent()`
resolves as if the run had finished. agui-lint reports it as the 1.1 HTTP
binding does, which makes a stream that ends with its run open fatal, and
as upstream's conformance suite requires of every client
(`truncated-stream-fails-the-run`): an application on today's client
shows a cut answer as a whole one.

## Invalid
```json
[{"type": "RUN_STARTED", "threadId": "t1", "runId": "r1"},
 {"type": "STEP_STARTED", "stepName": "plan"},
 {"type": "STEP_FINISHED", "stepName": "plan"}]
```

## Valid
```json
[{"type": "RUN_STARTED", "threadId": "t1", "runId": "r1"},
 {"type": "STEP_STARTED", "stepName": "plan"},
 {"type": "STEP_FINISHED", "stepName": "plan"},
 {"type": "RUN_FINISHED", "threadId": "t1", "runId": "r1"}]
```
"#,
};

pub(crate) const RUN_STARTED_OTHER_THREAD: Rule = Rule {
    name: "run-started-other-thread",
    severity: Severity::Error,
    protocols: SINCE_1_0,
    severity_1x: None,
    summary: "A run of a stream names another thread than the run before it",
    docs: r#"## What it checks
AG-UI 1.x (`spec/1.1/events/lifecycle.mdx`, "Several runs on one stream"): a
stream may carry several runs in sequence, but they are runs of one
conversation, so every `RUN_STARTED` of a stream carries the `threadId` of
the run before it (a stream re-homed once is reported once).

## Why it matters
A consumer rejects a second run on another thread rather than quietly
re-homing the stream: its messages and state belong to the first thread.

## Invalid
```json
[{"type": "RUN_STARTED", "threadId": "t1", "runId": "r1", "protocolVersion": "1.1"},
 {"type": "RUN_FINISHED", "threadId": "t1", "runId": "r1"},
 {"type": "RUN_STARTED", "threadId": "t2", "runId": "r2", "protocolVersion": "1.1"},
 {"type": "RUN_FINISHED", "threadId": "t2", "runId": "r2"}]
```

## Valid
```json
[{"type": "RUN_STARTED", "threadId": "t1", "runId": "r1", "protocolVersion": "1.1"},
 {"type": "RUN_FINISHED", "threadId": "t1", "runId": "r1"},
 {"type": "RUN_STARTED", "threadId": "t1", "runId": "r2", "protocolVersion": "1.1"},
 {"type": "RUN_FINISHED", "threadId": "t1", "runId": "r2"}]
```
"#,
};

pub(super) const RUN_ID_REUSED: Rule = Rule {
    name: "run-id-reused",
    severity: Severity::Warning,
    protocols: SINCE_1_0,
    severity_1x: None,
    summary: "A run of a stream reuses the runId of an earlier run",
    docs: r#"## What it checks
AG-UI 1.x: every run a stream carries is a new run (`spec/1.1/events/lifecycle.mdx`,
"After a run closes": "a producer MAY emit RUN_STARTED to begin a new run"),
and each run has its own `runId`. A `RUN_STARTED` repeating the `runId` of
an earlier run of the stream is reported.

## Why it matters
Clients key a run's events, outcome and usage by its `runId`; two runs
under one id merge in their history. A consumer carries on, hence a
warning.

## Invalid
```json
[{"type": "RUN_STARTED", "threadId": "t1", "runId": "r1", "protocolVersion": "1.1"},
 {"type": "RUN_FINISHED", "threadId": "t1", "runId": "r1"},
 {"type": "RUN_STARTED", "threadId": "t1", "runId": "r1", "protocolVersion": "1.1"},
 {"type": "RUN_FINISHED", "threadId": "t1", "runId": "r1"}]
```

## Valid
```json
[{"type": "RUN_STARTED", "threadId": "t1", "runId": "r1", "protocolVersion": "1.1"},
 {"type": "RUN_FINISHED", "threadId": "t1", "runId": "r1"},
 {"type": "RUN_STARTED", "threadId": "t1", "runId": "r2", "protocolVersion": "1.1"},
 {"type": "RUN_FINISHED", "threadId": "t1", "runId": "r2"}]
```
"#,
};

/// Where the stream's runs are.
#[derive(Debug, Clone)]
enum Run {
    /// No event yet.
    Empty,
    /// Events came, none of them started a run.
    NotStarted,
    Active {
        thread_id: Option<String>,
        run_id: Option<String>,
        start: EventPlace,
    },
    Finished {
        end: EventPlace,
        reported: bool,
    },
    Errored {
        end: EventPlace,
        reported: bool,
    },
}

/// A run boundary an event crossed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Boundary {
    /// A run started (the one before it, if still active, is abandoned).
    Started,
    /// The active run finished; it started on this thread.
    Finished { thread: Option<String> },
    /// The active run ended with an error.
    Errored,
}

/// The runs of a stream.
#[derive(Debug)]
pub(super) struct Lifecycle {
    run: Run,
    /// 1.x: the thread the stream's latest run named, and where.
    thread: Option<(String, EventPlace)>,
    /// 1.x: the run ids of the stream's runs so far (at most
    /// [`REMEMBERED_IDS`]).
    run_ids: HashSet<String>,
}

impl Default for Lifecycle {
    fn default() -> Self {
        Lifecycle {
            run: Run::Empty,
            thread: None,
            run_ids: HashSet::default(),
        }
    }
}

impl Lifecycle {
    /// Run boundaries: what may come first, after an error, after a
    /// finish. Returns the boundary the event crossed, if it crossed one.
    pub(super) fn event(&mut self, at: &Here<'_>, out: &mut impl Findings) -> Option<Boundary> {
        let kind = at.type_;
        match (&mut self.run, at.kind) {
            (Run::Empty | Run::NotStarted, EventType::RunStarted) => {
                self.start(at, out);
                return Some(Boundary::Started);
            }
            (Run::Empty, EventType::RunError) => {
                self.run = Run::Errored {
                    end: at.place.clone(),
                    reported: false,
                };
            }
            (Run::Empty, _) => {
                out.push(
                    at.finding(
                        &EVENT_BEFORE_RUN_STARTED,
                        "/type",
                        format!("the stream starts with {kind}, not RUN_STARTED"),
                    )
                    .with_help("start every run with RUN_STARTED (threadId, runId)"),
                );
                self.run = Run::NotStarted;
            }
            (Run::NotStarted, _) => {}
            (Run::Active { start, .. }, EventType::RunStarted) => {
                let start = start.clone();
                out.push(
                    at.finding(
                        &RUN_STARTED_WHILE_ACTIVE,
                        "/type",
                        "RUN_STARTED while the run before it is still active",
                    )
                    .with_help(
                        "end the run with RUN_FINISHED or RUN_ERROR before starting the next",
                    )
                    .with_note(start.note("the active run started here")),
                );
                self.start(at, out);
                return Some(Boundary::Started);
            }
            (Run::Active { .. }, EventType::RunFinished) => return Some(self.finish(at, out)),
            (Run::Active { .. }, EventType::RunError) => {
                self.run = Run::Errored {
                    end: at.place.clone(),
                    reported: false,
                };
                return Some(Boundary::Errored);
            }
            (Run::Active { .. }, _) => {}
            (Run::Finished { .. }, EventType::RunStarted) => {
                self.start(at, out);
                return Some(Boundary::Started);
            }
            // 1.x: a RUN_ERROR ends a run and a later RUN_STARTED begins a
            // new one; a RUN_ERROR after RUN_FINISHED reports a late
            // failure (`spec/1.1/events/lifecycle.mdx`, "After a run closes").
            (Run::Errored { .. }, EventType::RunStarted) if at.is_1x() => {
                self.start(at, out);
                return Some(Boundary::Started);
            }
            (Run::Finished { .. }, EventType::RunError) if at.is_1x() => {
                self.run = Run::Errored {
                    end: at.place.clone(),
                    reported: false,
                };
            }
            (Run::Finished { end, reported }, _) => {
                if !*reported {
                    *reported = true;
                    let end = end.clone();
                    out.push(
                        at.finding(
                            &EVENT_AFTER_RUN_FINISHED,
                            "/type",
                            format!("{kind} after RUN_FINISHED"),
                        )
                        .with_help("after RUN_FINISHED only a new RUN_STARTED may follow")
                        .with_note(end.note("the run finished here")),
                    );
                }
            }
            (Run::Errored { end, reported }, _) => {
                if !*reported {
                    *reported = true;
                    let end = end.clone();
                    let help = if at.is_1x() {
                        "RUN_ERROR ends the run: only a new run's RUN_STARTED may follow it"
                    } else {
                        "RUN_ERROR ends the run: nothing may follow it"
                    };
                    out.push(
                        at.finding(
                            &EVENT_AFTER_RUN_ERROR,
                            "/type",
                            format!("{kind} after RUN_ERROR"),
                        )
                        .with_help(help)
                        .with_note(end.note("the run ended with an error here")),
                    );
                }
            }
        }
        None
    }

    fn start(&mut self, at: &Here<'_>, out: &mut impl Findings) {
        if at.is_1x() {
            self.thread_and_run_id(at, out);
        }
        self.run = Run::Active {
            thread_id: at.str("threadId").map(str::to_string),
            run_id: at.str("runId").map(str::to_string),
            start: at.place.clone(),
        };
    }

    fn finish(&mut self, at: &Here<'_>, out: &mut impl Findings) -> Boundary {
        let end = Run::Finished {
            end: at.place.clone(),
            reported: false,
        };
        let Run::Active {
            thread_id,
            run_id,
            start,
        } = std::mem::replace(&mut self.run, end)
        else {
            return Boundary::Finished { thread: None };
        };
        for (key, expected) in [("threadId", &thread_id), ("runId", &run_id)] {
            let (Some(expected), Some(found)) = (expected, at.str(key)) else {
                continue;
            };
            if expected != found {
                out.push(
                    at.finding(
                        &RUN_FINISHED_ID_MISMATCH,
                        &format!("/{key}"),
                        format!("RUN_FINISHED has {key} '{found}', its RUN_STARTED '{expected}'"),
                    )
                    .with_help(format!("end the run with the {key} it started with"))
                    .with_note(start.note("the run started here")),
                );
            }
        }
        Boundary::Finished { thread: thread_id }
    }

    /// The stream ends: a run still active is reported at `at`.
    pub(super) fn finish_stream(&self, at: &Here<'_>, out: &mut impl Findings) {
        if let Run::Active { start, .. } = &self.run {
            out.push(
                at.finding(
                    &STREAM_TRUNCATED,
                    "",
                    "the stream ends while a run is active",
                )
                .with_help("end every run with RUN_FINISHED, or RUN_ERROR when it cannot finish")
                .with_note(start.note("the run started here")),
            );
        }
    }

    /// 1.x: the runs of one stream are runs on one thread, each with its
    /// own id (`spec/1.1/events/lifecycle.mdx`, "Several runs on one
    /// stream").
    fn thread_and_run_id(&mut self, at: &Here<'_>, out: &mut impl Findings) {
        if let Some(thread) = at.str("threadId") {
            // Compared with the run before, so that a stream re-homed once
            // is reported once.
            match &self.thread {
                Some((first, place)) if first != thread => out.push(
                    at.finding(
                        &RUN_STARTED_OTHER_THREAD,
                        "/threadId",
                        format!("RUN_STARTED names thread '{thread}', the run before it thread '{first}'"),
                    )
                    .with_help("a stream carries runs of one thread; start a run on another thread in a stream of its own")
                    .with_note(place.note("the run before started here")),
                ),
                _ => {}
            }
            self.thread = Some((thread.to_string(), at.place.clone()));
        }
        if let Some(run) = at.str("runId") {
            if self.run_ids.contains(run) {
                out.push(
                    at.finding(
                        &RUN_ID_REUSED,
                        "/runId",
                        format!("RUN_STARTED reuses runId '{run}' of an earlier run in the stream"),
                    )
                    .with_help("give every run its own runId: clients key a run's events and outcome by it"),
                );
            } else if self.run_ids.len() < REMEMBERED_IDS {
                self.run_ids.insert(run.to_string());
            }
        }
    }
}

/// `RUN_FINISHED` (at `at`) while items of its run are still `open`: each
/// is reported, in the order it opened, and forgotten.
pub(super) fn finished_while_open(open: &mut OpenItems, at: &Here<'_>, out: &mut impl Findings) {
    open.drain(|open| {
        out.add(&RUN_FINISHED_WHILE_OPEN, |rule| {
            at.finding(
                rule,
                "/type",
                format!(
                    "RUN_FINISHED while {} is open",
                    open.kind.describe(&open.id)
                ),
            )
            .with_help(format!(
                "send {} before RUN_FINISHED",
                open.kind.end_event()
            ))
            .with_note(open.start.note(format!("{} here", open.start_type)))
        });
    });
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::super::tests::{fired, fired_at, rules_fired};
    use crate::Protocol;

    #[test]
    fn run_boundaries() {
        assert_eq!(
            fired(json!([{"type": "TEXT_MESSAGE_START", "messageId": "m", "role": "assistant"}])),
            [
                "event-before-run-started",
                crate::rules::sequence::open::NEVER_ENDED.name
            ]
        );
        assert_eq!(
            fired(json!([{"type": "RUN_ERROR", "message": "x"}])),
            Vec::<String>::new()
        );
        assert_eq!(
            fired(json!([
                {"type": "RUN_STARTED", "threadId": "t", "runId": "r", "protocolVersion": "1.1"},
                {"type": "RUN_ERROR", "message": "x"},
                {"type": "RUN_STARTED", "threadId": "t", "runId": "r", "protocolVersion": "1.1"},
                {"type": "RUN_STARTED", "threadId": "t", "runId": "r", "protocolVersion": "1.1"}
            ])),
            ["event-after-run-error"]
        );
        assert_eq!(
            rules_fired(json!([
                {"type": "RUN_STARTED", "threadId": "t", "runId": "r", "protocolVersion": "1.1"},
                {"type": "RUN_STARTED", "threadId": "t", "runId": "r2", "protocolVersion": "1.1"},
                {"type": "RUN_FINISHED", "threadId": "t", "runId": "r"}
            ])),
            [
                (
                    "run-started-while-active".to_string(),
                    "/1/type".to_string()
                ),
                (
                    "run-finished-id-mismatch".to_string(),
                    "/2/runId".to_string()
                )
            ]
        );
        assert_eq!(
            fired(json!([
                {"type": "RUN_STARTED", "threadId": "t", "runId": "r", "protocolVersion": "1.1"},
                {"type": "RUN_FINISHED", "threadId": "t", "runId": "r"},
                {"type": "CUSTOM", "name": "n", "value": 1},
                {"type": "CUSTOM", "name": "n", "value": 2}
            ])),
            ["event-after-run-finished"]
        );
        assert_eq!(
            fired(
                json!([{"type": "RUN_STARTED", "threadId": "t", "runId": "r", "protocolVersion": "1.1"}])
            ),
            ["stream-truncated"]
        );
    }

    #[test]
    fn runs_after_run_error_begin_anew_in_1x() {
        let events = json!([
            {"type": "RUN_STARTED", "threadId": "t", "runId": "r1", "protocolVersion": "1.1"},
            {"type": "TOOL_CALL_CHUNK", "toolCallId": "c", "toolCallName": "f", "delta": "{\"a\":"},
            {"type": "RUN_ERROR", "message": "x"},
            {"type": "RUN_STARTED", "threadId": "t", "runId": "r2", "protocolVersion": "1.1"},
            {"type": "TOOL_CALL_CHUNK", "toolCallId": "c", "toolCallName": "f", "delta": "{}"},
            {"type": "RUN_FINISHED", "threadId": "t", "runId": "r2"},
            {"type": "RUN_ERROR", "message": "late"},
            {"type": "RUN_STARTED", "threadId": "t", "runId": "r3", "protocolVersion": "1.1"},
            {"type": "TEXT_MESSAGE_START", "messageId": "m", "role": "assistant"}
        ]);
        assert_eq!(
            fired_at(Protocol::V1_0, events.clone()),
            [
                "stream-truncated",
                crate::rules::sequence::open::NEVER_ENDED.name
            ]
        );
        // The pre-1.0 profile keeps its rules.
        assert_eq!(
            fired_at(Protocol::V0, events),
            [
                "event-after-run-error",
                crate::rules::sequence::open::NEVER_ENDED.name
            ]
        );
    }
}
