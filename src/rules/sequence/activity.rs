//! Activity messages of AG-UI 1.x (`spec/1.1/events/activity.mdx`): the
//! content each `ACTIVITY_SNAPSHOT` sets, and each `ACTIVITY_DELTA` patch
//! applied to it as `STATE_DELTA` is applied to the state, within the
//! same budget as the state (`state-over-budget`).

// foldhash: seeded per process, so keys a client chooses cannot collide at
// will, and several times faster than SipHash on short keys.
use foldhash::HashMap;

use serde_json::Value;

use super::event_type::EventType;
use super::here::Here;
use super::patch::{self, Budget, Refusal};
use super::snapshot::SnapshotMessage;
use super::state::{limit_of, over_budget, STATE_OVER_BUDGET};
use crate::diagnostic::Severity;
use crate::findings::Findings;
use crate::rules::{Rule, SINCE_1_0};

pub(super) const ACTIVITY_DELTA_WITHOUT_SNAPSHOT: Rule = Rule {
    name: "activity-delta-without-snapshot",
    severity: Severity::Warning,
    protocols: SINCE_1_0,
    severity_1x: None,
    summary: "ACTIVITY_DELTA for an activity message no ACTIVITY_SNAPSHOT created",
    docs: r#"## What it checks
AG-UI 1.x (`spec/1.1/events/activity.mdx`, `ACTIVITY_DELTA`): a producer
must not send a delta for an activity message it has not created with a
snapshot (or restated in a `MESSAGES_SNAPSHOT`).

## Why it matters
A consumer skips the delta with a warning and must not fail the run; the
activity it was meant to update never shows the change.

## Invalid
```json
[{"type": "RUN_STARTED", "threadId": "t1", "runId": "r1", "protocolVersion": "1.1"},
 {"type": "ACTIVITY_DELTA", "messageId": "a1", "activityType": "search",
  "patch": [{"op": "replace", "path": "/found", "value": 3}]},
 {"type": "RUN_FINISHED", "threadId": "t1", "runId": "r1"}]
```

## Valid
```json
[{"type": "RUN_STARTED", "threadId": "t1", "runId": "r1", "protocolVersion": "1.1"},
 {"type": "ACTIVITY_SNAPSHOT", "messageId": "a1", "activityType": "search", "content": {"found": 0}},
 {"type": "ACTIVITY_DELTA", "messageId": "a1", "activityType": "search",
  "patch": [{"op": "replace", "path": "/found", "value": 3}]},
 {"type": "RUN_FINISHED", "threadId": "t1", "runId": "r1"}]
```
"#,
};

pub(super) const ACTIVITY_DELTA_NOT_APPLICABLE: Rule = Rule {
    name: "activity-delta-not-applicable",
    severity: Severity::Warning,
    protocols: SINCE_1_0,
    severity_1x: None,
    summary: "An ACTIVITY_DELTA patch does not apply to the activity's content",
    docs: r#"## What it checks
AG-UI 1.x (`spec/1.1/events/activity.mdx`): each `ACTIVITY_DELTA` patch is
applied to the content its activity message has so far (built from its
snapshot and earlier deltas), as `STATE_DELTA` is applied to the state.

## Why it matters
A well-formed patch that does not apply is skipped with a warning; producer
and consumer now disagree about the activity until its next snapshot.

## Invalid
```json
[{"type": "RUN_STARTED", "threadId": "t1", "runId": "r1", "protocolVersion": "1.1"},
 {"type": "ACTIVITY_SNAPSHOT", "messageId": "a1", "activityType": "search", "content": {"found": 0}},
 {"type": "ACTIVITY_DELTA", "messageId": "a1", "activityType": "search",
  "patch": [{"op": "remove", "path": "/results"}]},
 {"type": "RUN_FINISHED", "threadId": "t1", "runId": "r1"}]
```

## Valid
```json
[{"type": "RUN_STARTED", "threadId": "t1", "runId": "r1", "protocolVersion": "1.1"},
 {"type": "ACTIVITY_SNAPSHOT", "messageId": "a1", "activityType": "search", "content": {"found": 0}},
 {"type": "ACTIVITY_DELTA", "messageId": "a1", "activityType": "search",
  "patch": [{"op": "add", "path": "/results", "value": []}]},
 {"type": "RUN_FINISHED", "threadId": "t1", "runId": "r1"}]
```
"#,
};

pub(super) const ACTIVITY_CONTENT_NOT_OBJECT: Rule = Rule {
    name: "activity-content-not-object",
    severity: Severity::Warning,
    protocols: SINCE_1_0,
    severity_1x: None,
    summary: "An ACTIVITY_DELTA patch makes the activity's content something other than an object",
    docs: r#"## What it checks
AG-UI 1.x (`spec/1.1/events/activity.mdx`): the patched content must still
be an object; a producer must not send a patch (a root replacement, say)
whose application makes it anything else. A warning: the duty is the
producer's, and "a consumer is not required to detect the violation", so
a conforming consumer need not fail the run for it.

## Why it matters
Activity content is an object by schema: the consumer now holds an
activity message no schema accepts.

## Invalid
```json
[{"type": "RUN_STARTED", "threadId": "t1", "runId": "r1", "protocolVersion": "1.1"},
 {"type": "ACTIVITY_SNAPSHOT", "messageId": "a1", "activityType": "search", "content": {"found": 0}},
 {"type": "ACTIVITY_DELTA", "messageId": "a1", "activityType": "search",
  "patch": [{"op": "replace", "path": "", "value": [1, 2]}]},
 {"type": "RUN_FINISHED", "threadId": "t1", "runId": "r1"}]
```

## Valid
```json
[{"type": "RUN_STARTED", "threadId": "t1", "runId": "r1", "protocolVersion": "1.1"},
 {"type": "ACTIVITY_SNAPSHOT", "messageId": "a1", "activityType": "search", "content": {"found": 0}},
 {"type": "ACTIVITY_DELTA", "messageId": "a1", "activityType": "search",
  "patch": [{"op": "replace", "path": "", "value": {"found": 2}}]},
 {"type": "RUN_FINISHED", "threadId": "t1", "runId": "r1"}]
```
"#,
};

/// What is known of one activity message's content: the content and its
/// size in bytes, or `None` once it is no longer known (a patch failed, or
/// it did not fit the budget).
type Content = Option<(Value, u64)>;

/// The activity messages of a stream by `messageId`.
#[derive(Debug, Default)]
pub(super) struct Activities {
    content: HashMap<String, Content>,
}

impl Activities {
    /// Sets the content of activity `id` to `content`, within `budget`;
    /// what it had is given back first.
    fn set(
        &mut self,
        id: &str,
        content: Value,
        budget: &mut Budget,
        at: &Here<'_>,
        pointer: &str,
        out: &mut impl Findings,
    ) {
        let slot = self.content.entry(id.to_string()).or_insert(None);
        if let Some((_, bytes)) = slot.take() {
            budget.release(bytes);
        }
        let bytes = patch::measured(&content);
        let Err(bound) = budget.take(bytes, 0) else {
            *slot = Some((content, bytes));
            return;
        };
        let total = budget.used.saturating_add(bytes);
        let (limit, help) = limit_of(bound, budget);
        out.add(&STATE_OVER_BUDGET, |rule| {
            at.finding(
                rule,
                pointer,
                format!(
                    "the content of activity '{id}' would take about {} in memory, {} with the state and the other activities, over {limit}: it is not kept, and its deltas until its next snapshot are not checked",
                    crate::text::size(bytes),
                    crate::text::size(total),
                ),
            )
            .with_help(help)
        });
    }

    /// 1.x: follows `ACTIVITY_SNAPSHOT`, `ACTIVITY_DELTA` and the activity
    /// messages a `MESSAGES_SNAPSHOT` restates.
    pub(super) fn event(&mut self, at: &Here<'_>, budget: &mut Budget, out: &mut impl Findings) {
        match at.kind {
            EventType::ActivitySnapshot => self.snapshot(at, budget, out),
            EventType::ActivityDelta => self.delta(at, budget, out),
            EventType::MessagesSnapshot => {
                if let Some(messages) = at.messages() {
                    self.restate(messages, budget, at, out);
                }
            }
            _ => {}
        }
    }

    /// `ACTIVITY_SNAPSHOT` creates or replaces an activity message; with
    /// `replace: false` an existing one stands as it is.
    fn snapshot(&mut self, at: &Here<'_>, budget: &mut Budget, out: &mut impl Findings) {
        let (Some(id), Some(content)) = (at.str("messageId"), at.event.get("content")) else {
            return;
        };
        let keep = at.event.get("replace").and_then(|r| r.as_bool()) == Some(false)
            && self.content.contains_key(id);
        if !keep {
            self.set(id, content.into_owned(), budget, at, "/content", out);
        }
    }

    /// A `MESSAGES_SNAPSHOT` restates activity messages by id.
    fn restate(
        &mut self,
        messages: &[SnapshotMessage<'_>],
        budget: &mut Budget,
        at: &Here<'_>,
        out: &mut impl Findings,
    ) {
        for (index, message) in messages.iter().enumerate() {
            if message.role.as_deref() != Some("activity") {
                continue;
            }
            let content = message.content.as_ref().and_then(|c| c.value());
            if let (Some(id), Some(content)) = (message.id.as_deref(), content) {
                let pointer = format!("/messages/{index}/content");
                self.set(id, content.into_owned(), budget, at, &pointer, out);
            }
        }
    }

    /// `ACTIVITY_DELTA`: an RFC 6902 patch against the activity's content.
    fn delta(&mut self, at: &Here<'_>, budget: &mut Budget, out: &mut impl Findings) {
        let (Some(id), Some(patch)) = (at.str("messageId"), at.event.patch("patch", true)) else {
            return;
        };
        let Some(slot) = self.content.get_mut(id) else {
            out.push(
                at.finding(
                    &ACTIVITY_DELTA_WITHOUT_SNAPSHOT,
                    "/messageId",
                    format!("ACTIVITY_DELTA for activity message '{id}', which no ACTIVITY_SNAPSHOT created: a consumer skips it"),
                )
                .with_help("send an ACTIVITY_SNAPSHOT for the messageId before its deltas"),
            );
            return;
        };
        let Some((content, size)) = slot else {
            return;
        };
        // A malformed operation is the schema's finding.
        let Ok(patch) = patch else {
            budget.release(*size);
            *slot = None;
            return;
        };
        match budget.apply(content, size, &patch) {
            Ok(()) => {}
            Err(Refusal::Failed { operation, kind }) => {
                out.push(
                    at.finding(
                        &ACTIVITY_DELTA_NOT_APPLICABLE,
                        &format!("/patch/{operation}"),
                        format!(
                            "operation {operation} does not apply to activity '{id}' as built so far: {kind}; a consumer skips the delta"
                        ),
                    )
                    .with_help("the consumer's activity diverges; send a fresh ACTIVITY_SNAPSHOT of the messageId to resynchronise"),
                );
                // The consumer skips the delta and keeps the content it
                // had, which `patch::apply` has restored.
                return;
            }
            Err(Refusal::Over { operation, bound }) => {
                budget.release(*size);
                *slot = None;
                let (_, help) = limit_of(bound, budget);
                out.add(&STATE_OVER_BUDGET, |rule| {
                    at.finding(
                        rule,
                        &format!("/patch/{operation}"),
                        format!("activity '{id}': {}", over_budget(operation, bound, budget)),
                    )
                    .with_help(format!(
                        "{help}; the activity is not checked until its next ACTIVITY_SNAPSHOT"
                    ))
                });
                return;
            }
        }
        if !content.is_object() {
            out.push(
                at.finding(
                    &ACTIVITY_CONTENT_NOT_OBJECT,
                    "/patch",
                    format!("the patch makes the content of activity '{id}' something other than an object"),
                )
                .with_help("activity content is an object: patch its members, never the root with a non-object"),
            );
            budget.release(*size);
            *slot = None;
        }
    }
}
