//! Steps: `STEP_STARTED` and `STEP_FINISHED` bracket a named step of a run.
//! A step is open under its `stepName` (and, in 1.x, its owner: each
//! subagent runs steps of its own), in the registry of [`super::open`],
//! which reports a step that never finishes with this file's rule.

use super::event_type::EventType;
use super::here::Here;
use super::open::{ItemRules, OpenItems, Opened};
use crate::diagnostic::Severity;
use crate::findings::Findings;
use crate::rules::{Rule, EVERY_VERSION};

pub(crate) const STEP_FINISHED_WITHOUT_START: Rule = Rule {
    name: "step-finished-without-start",
    severity: Severity::Error,
    protocols: EVERY_VERSION,
    severity_1x: None,
    summary: "STEP_FINISHED names a step that is not running",
    docs: r#"## What it checks
That `STEP_FINISHED` names a step whose `STEP_STARTED` came before and
that has not finished yet: "the `stepName` must match the corresponding
`StepStarted` event".

## Why it matters
Progress UIs pair starts and ends by name; an end without its start
finishes nothing, and the real step stays shown as running.

## Invalid
```json
[{"type": "RUN_STARTED", "threadId": "t1", "runId": "r1"},
 {"type": "STEP_STARTED", "stepName": "plan"},
 {"type": "STEP_FINISHED", "stepName": "planning"}]
```

## Valid
```json
[{"type": "RUN_STARTED", "threadId": "t1", "runId": "r1"},
 {"type": "STEP_STARTED", "stepName": "plan"},
 {"type": "STEP_FINISHED", "stepName": "plan"}]
```
"#,
};

pub(crate) const STEP_STARTED_TWICE: Rule = Rule {
    name: "step-started-twice",
    severity: Severity::Error,
    protocols: EVERY_VERSION,
    severity_1x: None,
    summary: "STEP_STARTED names a step that is already running",
    docs: r#"## What it checks
That a step is not started again before it finishes. The finding names
the first start.

## Why it matters
Steps are paired by name; with two starts open, one `STEP_FINISHED` leaves
the UI unsure which ended, and one of them never does.

## Invalid
```json
[{"type": "RUN_STARTED", "threadId": "t1", "runId": "r1"},
 {"type": "STEP_STARTED", "stepName": "search"},
 {"type": "STEP_STARTED", "stepName": "search"}]
```

## Valid
```json
[{"type": "RUN_STARTED", "threadId": "t1", "runId": "r1"},
 {"type": "STEP_STARTED", "stepName": "search"},
 {"type": "STEP_FINISHED", "stepName": "search"},
 {"type": "STEP_STARTED", "stepName": "search"}]
```
"#,
};

pub(crate) const STEP_NEVER_FINISHED: Rule = Rule {
    name: "step-never-finished",
    severity: Severity::Warning,
    protocols: EVERY_VERSION,
    severity_1x: None,
    summary: "A step is still running when the stream ends",
    docs: r#"## What it checks
That every `STEP_STARTED` is followed by its `STEP_FINISHED` before the
stream ends (a stream cut off mid-step). A step open at `RUN_FINISHED` is
`run-finished-while-open`; `RUN_ERROR` ends a run with whatever is open.
A warning: steps are optional progress information.

## Why it matters
The progress UI shows the step as running forever.

## Invalid
```json
[{"type": "RUN_STARTED", "threadId": "t1", "runId": "r1"},
 {"type": "STEP_STARTED", "stepName": "plan"}]
```

## Valid
```json
[{"type": "RUN_STARTED", "threadId": "t1", "runId": "r1"},
 {"type": "STEP_STARTED", "stepName": "plan"},
 {"type": "STEP_FINISHED", "stepName": "plan"}]
```
"#,
};

/// The rules the registry reports steps by.
pub(super) const STEP_RULES: ItemRules = ItemRules {
    twice: &STEP_STARTED_TWICE,
    not_open: &STEP_FINISHED_WITHOUT_START,
    never_ended: &STEP_NEVER_FINISHED,
};

/// Opens and ends the steps of a `STEP_STARTED` or `STEP_FINISHED`.
pub(super) fn event(at: &Here<'_>, open: &mut OpenItems, out: &mut impl Findings) {
    match at.kind {
        EventType::StepStarted => open.start(Opened::Step, "stepName", at, out),
        EventType::StepFinished => {
            open.end(Opened::Step, "stepName", at, out);
        }
        _ => {}
    }
}
