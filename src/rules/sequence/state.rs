//! Shared state (`spec/1.1/basic/patterns/snapshots.mdx`): a run's input
//! (or the request's) and every `STATE_SNAPSHOT` give a base state, each
//! `STATE_DELTA` is a JSON Patch applied to it as a client applies it, and
//! what the state (with the activity contents, [`super::activity`]) may
//! hold and what applying the patches may cost is budgeted
//! ([`super::patch`]).

use serde_json::Value;

use super::event_type::EventType;
use super::here::Here;
use super::patch;
use crate::diagnostic::Severity;
use crate::findings::Findings;
use crate::rules::{Rule, EVERY_VERSION};

pub(super) const STATE_DELTA_INVALID_PATCH: Rule = Rule {
    name: "state-delta-invalid-patch",
    severity: Severity::Error,
    protocols: EVERY_VERSION,
    severity_1x: None,
    summary: "A STATE_DELTA's delta is not a valid JSON Patch (RFC 6902)",
    docs: r#"## What it checks
That every operation of a `STATE_DELTA`'s `delta` is an RFC 6902 JSON
Patch operation: an `op` among `add`, `remove`, `replace`, `move`, `copy`
and `test`, a `path` that is a JSON Pointer, a `from` for `move` and
`copy`, a `value` for `add`, `replace` and `test`.

In AG-UI 1.x an operation whose `op` names something RFC 6902 does not
define is not malformed but unrecognised: a consumer drops it from the
patch, with a warning, and applies the rest
(`spec/1.1/basic/patterns/snapshots.mdx`, "When a patch does not apply").
That operation is the schema's `invalid-value` warning there, not this
rule's; a malformed operation (no `path`, a `value` missing) is this
error in every version.

## Why it matters
Clients apply the patch with a JSON Patch library, which rejects the whole
delta; the client's state silently stops following the agent's.

## Invalid
```json
[{"type": "STATE_SNAPSHOT", "snapshot": {"count": 1}},
 {"type": "STATE_DELTA", "delta": [{"op": "replace", "value": 2}]}]
```

## Valid
```json
[{"type": "STATE_SNAPSHOT", "snapshot": {"count": 1}},
 {"type": "STATE_DELTA", "delta": [{"op": "replace", "path": "/count", "value": 2}]}]
```
"#,
};

pub(super) const STATE_DELTA_NOT_APPLICABLE: Rule = Rule {
    name: "state-delta-not-applicable",
    severity: Severity::Error,
    protocols: EVERY_VERSION,
    severity_1x: Some(Severity::Warning),
    summary: "A STATE_DELTA does not apply to the state built so far",
    docs: r#"## What it checks
That each `STATE_DELTA` applies to the state built from the last
`STATE_SNAPSHOT` (or the `state` of `RUN_STARTED.input`) and the deltas
since: paths exist where they must, `test` operations hold. Before 1.0,
after a delta that does not apply the state is unknown until the next
snapshot, so nothing more is reported about it.

In AG-UI 1.x this is a warning (`spec/1.1/basic/patterns/snapshots.mdx`,
"When a patch does not apply"): the consumer must surface the failure and
may carry on with its prior state, so later deltas are checked against that
state, as the consumer applies them.

## Why it matters
The client's patch fails and its state diverges from the agent's; the
spec's remedy is a fresh `STATE_SNAPSHOT`.

## Invalid
```json
[{"type": "STATE_SNAPSHOT", "snapshot": {"items": []}},
 {"type": "STATE_DELTA", "delta": [{"op": "replace", "path": "/count", "value": 2}]}]
```

## Valid
```json
[{"type": "STATE_SNAPSHOT", "snapshot": {"items": []}},
 {"type": "STATE_DELTA", "delta": [{"op": "add", "path": "/items/-", "value": "a"}]}]
```
"#,
};

pub(super) const STATE_DELTA_BEFORE_SNAPSHOT: Rule = Rule {
    name: "state-delta-before-snapshot",
    severity: Severity::Info,
    protocols: EVERY_VERSION,
    severity_1x: None,
    summary: "A STATE_DELTA comes before any state snapshot in the stream",
    docs: r#"## What it checks
Whether a `STATE_DELTA` arrives before the stream gave a base state (a
`STATE_SNAPSHOT`, or `RUN_STARTED.input.state`). An info: the client may
hold the state from an earlier run, but agui-lint cannot check the delta.

## Why it matters
A client that joins here (a reload, a second tab) has nothing to apply
the delta to; sending a snapshot first makes the stream self-contained.

## Where the official receivers differ
`@ag-ui/client` applies such a delta to the state it holds (the input's,
or `{}`) in silence. Noted as information: the 1.1 text gives state a
baseline from the input, so the delta may be right; a producer that meant
a snapshot first sees it here.

## Invalid
```json
[{"type": "RUN_STARTED", "threadId": "t1", "runId": "r1"},
 {"type": "STATE_DELTA", "delta": [{"op": "add", "path": "/count", "value": 1}]}]
```

## Valid
```json
[{"type": "RUN_STARTED", "threadId": "t1", "runId": "r1"},
 {"type": "STATE_SNAPSHOT", "snapshot": {}},
 {"type": "STATE_DELTA", "delta": [{"op": "add", "path": "/count", "value": 1}]}]
```
"#,
};

pub(super) const STATE_OVER_BUDGET: Rule = Rule {
    name: "state-over-budget",
    severity: Severity::Warning,
    protocols: EVERY_VERSION,
    severity_1x: None,
    summary:
        "A state or activity update would take what agui-lint keeps of a stream past its bounds",
    docs: r#"## What it checks
What a stream's state and activity contents grow to as snapshots and
deltas are applied: the memory they take together, as agui-lint holds
them (two to nine times their JSON text), is held to `max-state-bytes`
(by default four times the document limit, 256 MiB, which a 10 MB
snapshot of 600,000 small keys fits; `--max-state-size`, or
`max-state-bytes` under `[limits]`), and
the work of applying the
stream's patches (the values `copy` duplicates, the items an array
insertion shifts) to what the patches themselves bring, sixteen times
their size, beyond one state's worth. A `STATE_SNAPSHOT`,
`ACTIVITY_SNAPSHOT`, `STATE_DELTA` or `ACTIVITY_DELTA` past either bound
is reported and not applied, and the state (or the activity's content) is
unknown until the next snapshot, so no later delta is reported against a
state agui-lint did not build.

The argument text of open tool calls, held until each call ends to check
that it concatenates to JSON, is held to the same limit in all: the delta
that would take it past is reported, that call's text is dropped and its
arguments are not checked.

## Why it matters
Twenty `copy` operations from the root double the state twenty times: a
few hundred bytes of stream ask for a million times the state's size.
A consumer that applies them runs out of memory; so would a checker.

## Invalid
```json
[{"type": "STATE_SNAPSHOT", "snapshot": {"a": "xxxxxxxxxxxxxxxx"}},
 {"type": "STATE_DELTA", "delta": [
  {"op": "copy", "from": "", "path": "/c0"},
  {"op": "copy", "from": "", "path": "/c1"},
  {"op": "copy", "from": "", "path": "/c2"},
  {"op": "copy", "from": "", "path": "/c3"},
  {"op": "copy", "from": "", "path": "/c4"},
  {"op": "copy", "from": "", "path": "/c5"},
  {"op": "copy", "from": "", "path": "/c6"},
  {"op": "copy", "from": "", "path": "/c7"},
  {"op": "copy", "from": "", "path": "/c8"},
  {"op": "copy", "from": "", "path": "/c9"},
  {"op": "copy", "from": "", "path": "/c10"},
  {"op": "copy", "from": "", "path": "/c11"},
  {"op": "copy", "from": "", "path": "/c12"},
  {"op": "copy", "from": "", "path": "/c13"},
  {"op": "copy", "from": "", "path": "/c14"},
  {"op": "copy", "from": "", "path": "/c15"},
  {"op": "copy", "from": "", "path": "/c16"},
  {"op": "copy", "from": "", "path": "/c17"},
  {"op": "copy", "from": "", "path": "/c18"},
  {"op": "copy", "from": "", "path": "/c19"},
  {"op": "copy", "from": "", "path": "/c20"},
  {"op": "copy", "from": "", "path": "/c21"},
  {"op": "copy", "from": "", "path": "/c22"},
  {"op": "copy", "from": "", "path": "/c23"},
  {"op": "copy", "from": "", "path": "/c24"},
  {"op": "copy", "from": "", "path": "/c25"},
  {"op": "copy", "from": "", "path": "/c26"},
  {"op": "copy", "from": "", "path": "/c27"},
  {"op": "copy", "from": "", "path": "/c28"},
  {"op": "copy", "from": "", "path": "/c29"}
 ]}]
```

## Valid
```json
[{"type": "STATE_SNAPSHOT", "snapshot": {"a": "xxxxxxxxxxxxxxxx"}},
 {"type": "STATE_DELTA", "delta": [{"op": "copy", "from": "/a", "path": "/b"}]}]
```
"#,
};

/// The state of a stream as built from snapshots and deltas.
#[derive(Debug, Default)]
pub(super) struct State {
    /// The state; `None` when unknown.
    value: Option<Base>,
    /// The state's size in bytes, within the budget.
    size: u64,
    /// Whether any base state was ever given.
    had: bool,
    /// The state of the request the stream answers: a run's baseline when
    /// its `RUN_STARTED` echoes no input.
    requested: Option<Value>,
}

/// A base state: a value, or the text of a snapshot read without one,
/// built into a value when a delta first needs it ([`super::text_size`]).
#[derive(Debug)]
enum Base {
    /// The state as a value.
    Value(Value),
    /// The text of a snapshot that fit its schema.
    Text(Box<str>),
}

impl Base {
    /// The state as a value, built from its text the first time; `None`
    /// when the text is no JSON value (a snapshot is only kept as text
    /// once the fast path read it as one).
    fn value(&mut self) -> Option<&mut Value> {
        if let Base::Text(text) = self {
            *self = Base::Value(serde_json::from_str(text).ok()?);
        }
        match self {
            Base::Value(value) => Some(value),
            Base::Text(_) => None,
        }
    }
}

impl State {
    /// The request the stream answers carried `state`.
    pub(super) fn answer(&mut self, state: Option<&Value>) {
        self.requested = state.filter(|s| !s.is_null()).cloned();
    }

    /// A run starts from the state its input carries: the one its
    /// `RUN_STARTED` echoes, else the request's (`spec/1.1/basic/
    /// patterns/snapshots.mdx`, "Deltas": the state has a baseline from
    /// the input).
    pub(super) fn run_started(
        &mut self,
        at: &Here<'_>,
        budget: &mut patch::Budget,
        out: &mut impl Findings,
    ) {
        let input = at.event.get("input");
        match input.as_deref().and_then(|input| input.get("state")) {
            Some(state) => {
                let base = Some((Base::Value(state.clone()), patch::measured(state)));
                self.set(base, "/input/state", at, budget, out);
            }
            None => {
                if let Some(requested) = &self.requested {
                    let base = Some((Base::Value(requested.clone()), patch::measured(requested)));
                    self.set(base, "", at, budget, out);
                }
            }
        }
    }

    /// Follows a `STATE_SNAPSHOT` or a `STATE_DELTA`.
    pub(super) fn event(
        &mut self,
        at: &Here<'_>,
        budget: &mut patch::Budget,
        out: &mut impl Findings,
    ) {
        match at.kind {
            EventType::StateSnapshot => {
                // A read snapshot stays text until a delta needs it.
                let snapshot = match at.event.text("snapshot") {
                    Some(text) => super::text_size::size_of_text(text)
                        .map(|bytes| (Base::Text(text.into()), bytes)),
                    None => at.event.get("snapshot").map(|snapshot| {
                        let snapshot = snapshot.into_owned();
                        let bytes = patch::measured(&snapshot);
                        (Base::Value(snapshot), bytes)
                    }),
                };
                self.set(snapshot, "/snapshot", at, budget, out);
            }
            EventType::StateDelta => self.delta(at, budget, out),
            _ => {}
        }
    }

    /// The state is no longer known: its memory is given back.
    fn forget(&mut self, budget: &mut patch::Budget) {
        self.value = None;
        budget.release(std::mem::take(&mut self.size));
    }

    /// A new base state (a snapshot, or a run's input) at `pointer`, of
    /// `bytes` as a value, kept if it fits the budget; otherwise the state
    /// is unknown.
    fn set(
        &mut self,
        state: Option<(Base, u64)>,
        pointer: &str,
        at: &Here<'_>,
        budget: &mut patch::Budget,
        out: &mut impl Findings,
    ) {
        self.had = true;
        self.forget(budget);
        let Some((state, bytes)) = state else {
            return;
        };
        let Err(bound) = budget.take(bytes, 0) else {
            self.value = Some(state);
            self.size = bytes;
            return;
        };
        let total = budget.used.saturating_add(bytes);
        let (limit, help) = limit_of(bound, budget);
        out.add(&STATE_OVER_BUDGET, |rule| {
            at.finding(
                rule,
                pointer,
                format!(
                    "the state would take about {} in memory, {} with the activity contents, over {limit}: it is not kept, and deltas until the next snapshot are not checked",
                    crate::text::size(bytes),
                    crate::text::size(total),
                ),
            )
            .with_help(help)
        });
    }

    fn delta(&mut self, at: &Here<'_>, budget: &mut patch::Budget, out: &mut impl Findings) {
        let Some(patch) = at.event.patch("delta", at.is_1x()) else {
            return;
        };
        let patch = match patch {
            Ok(patch) => patch,
            Err((i, error)) => {
                out.push(
                    at.finding(
                        &STATE_DELTA_INVALID_PATCH,
                        &format!("/delta/{i}"),
                        format!("operation {i} is not a JSON Patch operation: {error}"),
                    )
                    .with_help(
                        "each operation is {\"op\": add|remove|replace|move|copy|test, \"path\": \"/json/pointer\", ...} (RFC 6902)",
                    ),
                );
                // The client rejects the whole delta; its state is no
                // longer known.
                self.forget(budget);
                return;
            }
        };
        let Some(state) = self.value.as_mut().and_then(Base::value) else {
            if !self.had {
                out.push(
                    at.finding(
                        &STATE_DELTA_BEFORE_SNAPSHOT,
                        "/delta",
                        "STATE_DELTA before any STATE_SNAPSHOT: there is no state to apply it to",
                    )
                    .with_help(
                        "send a STATE_SNAPSHOT first, so a client joining here has a base state",
                    ),
                );
                // Reported once: later deltas go unchecked until a snapshot.
                self.had = true;
            }
            return;
        };
        let (operation, kind) = match budget.apply(state, &mut self.size, &patch) {
            Ok(()) => return,
            Err(patch::Refusal::Failed { operation, kind }) => (operation, kind),
            Err(patch::Refusal::Over { operation, bound }) => {
                // Not applied, and what a consumer that did apply it holds
                // is not known here: no later delta is reported against it.
                self.forget(budget);
                let (_, help) = limit_of(bound, budget);
                out.add(&STATE_OVER_BUDGET, |rule| {
                    at.finding(
                        rule,
                        &format!("/delta/{operation}"),
                        over_budget(operation, bound, budget),
                    )
                    .with_help(format!(
                        "{help}; the state is not checked until the next STATE_SNAPSHOT"
                    ))
                });
                return;
            }
        };
        let mut finding = at
            .finding(
                &STATE_DELTA_NOT_APPLICABLE,
                &format!("/delta/{operation}"),
                format!("operation {operation} does not apply to the state built so far: {kind}"),
            )
            .with_help("the client's patch fails and its state diverges; send a STATE_SNAPSHOT to resynchronise");
        // 1.x: a well-formed patch that fails is surfaced as a warning and
        // the consumer keeps its prior value
        // (`spec/1.1/basic/patterns/snapshots.mdx`, "When a patch does not
        // apply"), which `patch::apply` has restored: later deltas are
        // checked against it, as the consumer applies them. Before 1.0 the
        // client's state is no longer known.
        if at.is_1x() {
            finding.severity = STATE_DELTA_NOT_APPLICABLE.severity_in(at.protocol);
            finding
                .message
                .push_str(": a receiver keeps its prior state and warns");
        } else {
            self.forget(budget);
        }
        out.push(finding);
    }
}

/// The message of a `state-over-budget` finding on `operation`, which
/// went over `bound` of `budget`.
pub(super) fn over_budget(operation: usize, bound: patch::Over, budget: &patch::Budget) -> String {
    match bound {
        patch::Over::Size | patch::Over::Total => format!(
            "operation {operation} would take the state and the activity contents over {}: the delta is not applied",
            limit_of(bound, budget).0
        ),
        patch::Over::Work => format!(
            "operation {operation} would cost more than the stream's patches may (copies and array insertions beyond what the stream itself sends): the delta is not applied"
        ),
    }
}

/// The limit `bound` names in a finding, and the help that says how to
/// raise it.
pub(super) fn limit_of(bound: patch::Over, budget: &patch::Budget) -> (String, &'static str) {
    match bound {
        patch::Over::Total => (
            super::total::over_total(budget.total_limit()),
            "the streams checked at once share one total; raise it with max-total-state-bytes under [limits] (--max-total-state-size) if this many such streams are expected",
        ),
        patch::Over::Size | patch::Over::Work => (
            format!("the limit of {}", crate::text::size(budget.meter.limit)),
            "raise the limit with --max-state-size (max-state-bytes under [limits]) if such a state is expected",
        ),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::super::tests::{fired, rules_fired};

    #[test]
    fn state_deltas() {
        assert_eq!(
            rules_fired(json!([
                {"type": "RUN_STARTED", "threadId": "t", "runId": "r", "protocolVersion": "1.1"},
                {"type": "STATE_DELTA", "delta": [{"op": "add", "path": "/a", "value": 1}]},
                {"type": "STATE_DELTA", "delta": [{"op": "add", "path": "/a", "value": 1}]},
                {"type": "STATE_SNAPSHOT", "snapshot": {"a": []}},
                {"type": "STATE_DELTA", "delta": [{"op": "add", "path": "/a/-", "value": 1}, {"op": "set", "path": "/a"}]},
                {"type": "STATE_SNAPSHOT", "snapshot": {"a": []}},
                {"type": "STATE_DELTA", "delta": [{"op": "add", "path": "/a/-", "value": 1}, {"op": "remove", "path": "/b"}]},
                {"type": "STATE_DELTA", "delta": [{"op": "remove", "path": "/c"}]},
                {"type": "RUN_FINISHED", "threadId": "t", "runId": "r"}
            ])),
            [
                (
                    "state-delta-before-snapshot".to_string(),
                    "/1/delta".to_string()
                ),
                (
                    "state-delta-invalid-patch".to_string(),
                    "/4/delta/1".to_string()
                ),
                (
                    "state-delta-not-applicable".to_string(),
                    "/6/delta/1".to_string()
                )
            ]
        );
        // The input's state is a base too.
        assert_eq!(
            fired(json!([
                {"type": "RUN_STARTED", "threadId": "t", "runId": "r", "input": {"state": {"n": 1}}},
                {"type": "STATE_DELTA", "delta": [{"op": "remove", "path": "/n"}]},
                {"type": "STATE_DELTA", "delta": [{"op": "remove", "path": "/n"}]},
                {"type": "RUN_FINISHED", "threadId": "t", "runId": "r"}
            ])),
            ["state-delta-not-applicable"]
        );
    }
}
