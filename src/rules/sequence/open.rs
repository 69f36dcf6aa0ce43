//! What a run opens and ends by id — text messages, tool calls, reasoning
//! phases and messages, steps, subagent invocations — in one registry, in
//! the order the items opened, so that what is still open at a run's or
//! the stream's end is reported in that order. The trackers of each family
//! ([`super::text`], [`super::tool_calls`], [`super::reasoning`],
//! [`super::steps`], [`super::subagents`]) open, continue and end their
//! items here; the rules of this file are the ones they share.

use std::borrow::Cow;
use std::sync::Arc;

use super::held;
use super::here::{owner_name, Here};
pub(super) use super::open_item::{Open, Opened};
use super::open_slots::{NewItem, Slots};
use crate::diagnostic::{Diagnostic, Severity};
use crate::findings::Findings;
use crate::rules::{Rule, EVERY_VERSION, SINCE_1_0};

pub(crate) const EVENT_WITHOUT_START: Rule = Rule {
    name: "event-without-start",
    severity: Severity::Error,
    protocols: EVERY_VERSION,
    severity_1x: None,
    summary: "A content, arguments or end event names a message, tool call or reasoning block that is not open",
    docs: r#"## What it checks
That `TEXT_MESSAGE_CONTENT`/`TEXT_MESSAGE_END`, `TOOL_CALL_ARGS`/
`TOOL_CALL_END`, `REASONING_MESSAGE_CONTENT`/`REASONING_MESSAGE_END` and
`REASONING_END` name an id whose start event came before and whose end
has not.

## Why it matters
Clients look the id up among open messages and tool calls; content for an
unknown id is dropped (or throws in the TypeScript client), and an end
for one already ended says the agent lost track of its own stream.

## Invalid
```json
[{"type": "RUN_STARTED", "threadId": "t1", "runId": "r1"},
 {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m1", "delta": "Hello"}]
```

## Valid
```json
[{"type": "RUN_STARTED", "threadId": "t1", "runId": "r1"},
 {"type": "TEXT_MESSAGE_START", "messageId": "m1", "role": "assistant"},
 {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m1", "delta": "Hello"},
 {"type": "TEXT_MESSAGE_END", "messageId": "m1"}]
```
"#,
};

pub(crate) const DUPLICATE_START: Rule = Rule {
    name: "duplicate-start",
    severity: Severity::Error,
    protocols: EVERY_VERSION,
    severity_1x: None,
    summary: "A start event names a message, tool call or reasoning block that is already open",
    docs: r#"## What it checks
That `TEXT_MESSAGE_START`, `TOOL_CALL_START`, `REASONING_START` and
`REASONING_MESSAGE_START` do not name an id that is open already. The
finding names the first start.

## Why it matters
Two streams under one id interleave into one garbled message or one
tool call with two argument texts run together.

## Invalid
```json
[{"type": "RUN_STARTED", "threadId": "t1", "runId": "r1"},
 {"type": "TOOL_CALL_START", "toolCallId": "c1", "toolCallName": "search"},
 {"type": "TOOL_CALL_START", "toolCallId": "c1", "toolCallName": "search"}]
```

## Valid
```json
[{"type": "RUN_STARTED", "threadId": "t1", "runId": "r1"},
 {"type": "TOOL_CALL_START", "toolCallId": "c1", "toolCallName": "search"},
 {"type": "TOOL_CALL_END", "toolCallId": "c1"},
 {"type": "TOOL_CALL_START", "toolCallId": "c2", "toolCallName": "search"}]
```
"#,
};

pub(crate) const NEVER_ENDED: Rule = Rule {
    name: "never-ended",
    severity: Severity::Error,
    protocols: EVERY_VERSION,
    severity_1x: None,
    summary: "A message, tool call or reasoning block is still open when the stream ends",
    docs: r#"## What it checks
That every text message, tool call, reasoning phase and reasoning message
started in the stream has ended when the stream ends: in practice, a stream
cut off mid-message (which is also `stream-truncated`). Chunk events close
themselves, and `RUN_ERROR` ends a run with whatever is open, so neither
is reported. The finding is on the last event and names the start.

## Why it matters
The client keeps showing the message as in progress and never runs the
tool call.

## Invalid
```json
[{"type": "RUN_STARTED", "threadId": "t1", "runId": "r1"},
 {"type": "TEXT_MESSAGE_START", "messageId": "m1", "role": "assistant"},
 {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m1", "delta": "Hel"}]
```

## Valid
```json
[{"type": "RUN_STARTED", "threadId": "t1", "runId": "r1"},
 {"type": "TEXT_MESSAGE_START", "messageId": "m1", "role": "assistant"},
 {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m1", "delta": "Hel"},
 {"type": "RUN_ERROR", "message": "cancelled"}]
```
"#,
};

pub(crate) const OWNER_MISMATCH: Rule = Rule {
    name: "continuation-owner-mismatch",
    severity: Severity::Error,
    protocols: SINCE_1_0,
    severity_1x: None,
    summary: "A content or end event is attributed to another subagent than its opener",
    docs: r#"## What it checks
AG-UI 1.x (`spec/1.1/events/subagents.mdx`, "Ownership"): once a message,
reasoning message or tool call is opened under an owner, every event
continuing it carries that owner's `subagentRunId` or none. A continuation
naming another owner is reported (an untagged one is fine).

## Why it matters
A consumer must reject it: accepting it would append one producer's content
to another producer's message, which nobody can detect afterwards.

## Invalid
```json
[{"type": "RUN_STARTED", "threadId": "t1", "runId": "r1", "protocolVersion": "1.1"},
 {"type": "TEXT_MESSAGE_START", "messageId": "m1", "role": "assistant", "subagentRunId": "s1"},
 {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m1", "delta": "hi", "subagentRunId": "s2"},
 {"type": "TEXT_MESSAGE_END", "messageId": "m1"},
 {"type": "RUN_FINISHED", "threadId": "t1", "runId": "r1"}]
```

## Valid
```json
[{"type": "RUN_STARTED", "threadId": "t1", "runId": "r1", "protocolVersion": "1.1"},
 {"type": "TEXT_MESSAGE_START", "messageId": "m1", "role": "assistant", "subagentRunId": "s1"},
 {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m1", "delta": "hi", "subagentRunId": "s1"},
 {"type": "TEXT_MESSAGE_END", "messageId": "m1"},
 {"type": "RUN_FINISHED", "threadId": "t1", "runId": "r1"}]
```
"#,
};

pub(crate) const OPEN_ITEMS_OVER_LIMIT: Rule = Rule {
    name: "open-items-over-limit",
    severity: Severity::Warning,
    protocols: EVERY_VERSION,
    severity_1x: None,
    summary: "A run holds more items open at once than agui-lint tracks",
    docs: r#"## What it checks
How many text messages, tool calls, reasoning phases and messages, steps
and subagent invocations one run holds open at once. agui-lint tracks
100,000 (about 100 bytes each); the start that would open one more is
reported, once a run, and nothing it or later starts of the run open is
tracked: their continuations and ends are not reported as unopened, and
what the run keeps open past the limit is not reported as never ended.
The items opened before it are still checked. A new run starts afresh.

## Why it matters
No agent keeps a hundred thousand items open; a stream that does is
broken, or hostile, and a validator in front of a client must not let it
take memory without bound. The finding says the rest of the run's
pairing was not checked, rather than passing it silently.

## Invalid
A run of 100,001 `TOOL_CALL_START` events, none ended.

## Valid
```json
[{"type": "RUN_STARTED", "threadId": "t1", "runId": "r1"},
 {"type": "TOOL_CALL_START", "toolCallId": "c1", "toolCallName": "search"},
 {"type": "TOOL_CALL_END", "toolCallId": "c1"},
 {"type": "RUN_FINISHED", "threadId": "t1", "runId": "r1"}]
```
"#,
};

/// How many items one run may hold open at once before the rest are not
/// tracked (`open-items-over-limit`).
pub(super) const MAX_OPEN_ITEMS: usize = 100_000;

/// The rules an item family reports its items by: one started again while
/// open, one continued or ended while not open, one never ended.
#[derive(Debug, Clone, Copy)]
pub(super) struct ItemRules {
    /// A start for an id already open.
    pub(super) twice: &'static Rule,
    /// A continuation or end for an id not open.
    pub(super) not_open: &'static Rule,
    /// An item still open when the stream ends.
    pub(super) never_ended: &'static Rule,
}

/// The rules of every family but steps ([`super::steps::STEP_RULES`]).
pub(super) const ITEM_RULES: ItemRules = ItemRules {
    twice: &DUPLICATE_START,
    not_open: &EVENT_WITHOUT_START,
    never_ended: &NEVER_ENDED,
};

/// The items open in the current run.
#[derive(Debug)]
pub(super) struct OpenItems {
    /// Open items by kind and id, in the order they opened (for reports),
    /// held compactly.
    slots: Slots,
    /// The rules steps are reported by; every other kind's are
    /// [`ITEM_RULES`].
    step_rules: ItemRules,
    /// How many items may be open at once ([`MAX_OPEN_ITEMS`]).
    limit: usize,
    /// Whether the run went past `limit`: what it opens is no longer
    /// tracked, so an id not open may be one of those.
    overflowed: bool,
}

impl OpenItems {
    /// Nothing open; tool calls' argument text held within `pool`; steps
    /// reported by `step_rules`.
    pub(super) fn new(pool: &Arc<held::Pool>, step_rules: ItemRules) -> OpenItems {
        OpenItems {
            slots: Slots::new(pool),
            step_rules,
            limit: MAX_OPEN_ITEMS,
            overflowed: false,
        }
    }

    /// As [`OpenItems::new`], tracking at most `limit` open items.
    #[cfg(test)]
    fn with_limit(pool: &Arc<held::Pool>, limit: usize) -> OpenItems {
        OpenItems {
            limit,
            ..OpenItems::new(pool, ITEM_RULES)
        }
    }

    /// The rules items of `kind` are reported by.
    fn rules(&self, kind: Opened) -> ItemRules {
        if kind == Opened::Step {
            self.step_rules
        } else {
            ITEM_RULES
        }
    }

    /// Forgets what is open: a run ended, or a new one started.
    pub(super) fn clear(&mut self) {
        self.slots.clear();
        self.overflowed = false;
    }

    /// Hands each open item to `each`, in the order it opened, and forgets
    /// them.
    pub(super) fn drain(&mut self, each: impl FnMut(Open)) {
        self.slots.drain(each);
        self.overflowed = false;
    }

    /// The finding for an id of `kind` that is not open, unless it may be
    /// one the run opened past the limit.
    fn not_open(&self, kind: Opened, key: &str, id: &str, at: &Here<'_>, out: &mut impl Findings) {
        if !self.overflowed {
            out.push(not_open(self.rules(kind), kind, key, id, at));
        }
    }

    /// The open item of `kind` whose id is `id`, if there is one.
    pub(super) fn get(&self, kind: Opened, id: &str) -> Option<Open> {
        self.slots.find(kind, id).and_then(|i| self.slots.get(i))
    }

    /// Whether an item of `kind` whose id is `id` is open.
    pub(super) fn contains(&self, kind: Opened, id: &str) -> bool {
        self.slots.find(kind, id).is_some()
    }

    /// Opens the item of `kind` whose id is the event's `key`; an item
    /// already open under that id is reported.
    pub(super) fn start(
        &mut self,
        kind: Opened,
        key: &str,
        at: &Here<'_>,
        out: &mut impl Findings,
    ) {
        let Some(id) = at.str(key) else {
            return;
        };
        let type_ = at.type_;
        let lookup = key_of(kind, id, at);
        if let Some(i) = self.slots.find(kind, lookup.as_ref()) {
            let rule = self.rules(kind).twice;
            let message = if kind == Opened::Step {
                format!("step '{id}' is started again while it runs")
            } else {
                format!("{type_} for {}, which is already open", kind.describe(id))
            };
            if let Some(first) = self.slots.get(i) {
                out.push(
                    at.finding(rule, &format!("/{key}"), message)
                        .with_help(format!(
                            "end it with {} first, or use another id",
                            kind.end_event()
                        ))
                        .with_note(first.start.note(format!("{} here", first.start_type))),
                );
            }
            return;
        }
        if self.slots.len() >= self.limit {
            if !self.overflowed {
                self.overflowed = true;
                let limit = self.limit;
                out.add(&OPEN_ITEMS_OVER_LIMIT, |rule| {
                    at.finding(
                        rule,
                        &format!("/{key}"),
                        format!(
                            "{type_} would open {} while the run holds {} items open: it and what the run opens after it are not tracked",
                            kind.describe(id),
                            crate::text::count(limit)
                        ),
                    )
                    .with_help("end items as they complete; the run's continuations and ends are no longer checked against their starts")
                });
            }
            return;
        }
        self.slots.open(&NewItem {
            kind,
            key: lookup.as_ref(),
            id,
            owner: at.owner(),
            start_type: type_,
            place: at.place,
        });
    }

    /// A content or arguments event: its id must be open. A tool call's
    /// argument text is held with it.
    pub(super) fn touch(
        &mut self,
        kind: Opened,
        key: &str,
        at: &Here<'_>,
        out: &mut impl Findings,
    ) {
        let Some(id) = at.str(key) else {
            return;
        };
        let lookup = key_of(kind, id, at);
        match self.slots.find(kind, lookup.as_ref()) {
            Some(i) => {
                self.check_owner(kind, i, at, out);
                if let (true, Some(delta)) = (kind == Opened::ToolCall, at.str("delta")) {
                    if let Some((id, arguments)) = self.slots.arguments_mut(i) {
                        arguments.push(id, delta, at, out);
                    }
                }
            }
            None => self.not_open(kind, key, id, at, out),
        }
    }

    /// 1.x: a continuation's attribution (an item of `kind` in slot `i`)
    /// must agree with its opener's.
    fn check_owner(&self, kind: Opened, i: usize, at: &Here<'_>, out: &mut impl Findings) {
        if !at.is_1x() || kind == Opened::Step {
            return;
        }
        let Some(tag) = at.owner() else {
            return;
        };
        if self.slots.owner(i) == Some(tag) {
            return;
        }
        if let Some(open) = self.slots.get(i) {
            check_owner(&open, at, out);
        }
    }

    /// An end event: its id must be open; hands back what it closed.
    pub(super) fn end(
        &mut self,
        kind: Opened,
        key: &str,
        at: &Here<'_>,
        out: &mut impl Findings,
    ) -> Option<Open> {
        let id = at.str(key)?;
        let lookup = key_of(kind, id, at);
        let Some(closed) = self.slots.close(kind, lookup.as_ref()) else {
            self.not_open(kind, key, id, at, out);
            return None;
        };
        if kind != Opened::Subagent {
            check_owner(&closed, at, out);
        }
        Some(closed)
    }

    /// The stream ends: what is still open is reported, at `at` (its last
    /// event).
    pub(super) fn finish(&mut self, at: &Here<'_>, out: &mut impl Findings) {
        let step_rules = self.step_rules;
        self.overflowed = false;
        self.slots.drain(|open| {
            let rule = if open.kind == Opened::Step {
                step_rules.never_ended
            } else {
                ITEM_RULES.never_ended
            };
            out.add(rule, |rule| {
                let help = if open.kind == Opened::Step {
                    "send STEP_FINISHED with the same stepName".to_string()
                } else {
                    format!("send {} before the stream ends", open.kind.end_event())
                };
                at.finding(
                    rule,
                    "",
                    format!(
                        "{} is never ended: the stream ends first",
                        open.kind.describe(&open.id)
                    ),
                )
                .with_help(help)
                .with_note(open.start.note(format!("{} here", open.start_type)))
            });
        });
    }
}

/// The key an item is open under: its id, and for a 1.x step its owner
/// too (steps are per owner, `spec/1.1/events/subagents.mdx`).
fn key_of<'a>(kind: Opened, id: &'a str, at: &Here<'_>) -> Cow<'a, str> {
    match at.owner() {
        Some(owner) if kind == Opened::Step && at.is_1x() => {
            Cow::Owned(format!("{id}\u{0}{owner}"))
        }
        _ => Cow::Borrowed(id),
    }
}

/// 1.x: a continuation's attribution must agree with its opener's
/// (`spec/1.1/events/subagents.mdx`, "Ownership").
fn check_owner(open: &Open, at: &Here<'_>, out: &mut impl Findings) {
    if !at.is_1x() || open.kind == Opened::Step {
        return;
    }
    let Some(tag) = at.owner() else {
        return;
    };
    if open.owner.as_deref() == Some(tag) {
        return;
    }
    let opener = owner_name(open.owner.as_deref());
    out.push(
        at.finding(
            &OWNER_MISMATCH,
            "/subagentRunId",
            format!(
                "{} for {} is attributed to subagent '{tag}', but {opener} opened it",
                at.type_,
                open.kind.describe(&open.id)
            ),
        )
        .with_help("a continuation carries its opener's subagentRunId or none")
        .with_note(open.start.note(format!("{} here", open.start_type))),
    );
}

/// The finding for a continuation or an end of `kind` whose id (`key`,
/// `id`) is not open.
fn not_open(rules: ItemRules, kind: Opened, key: &str, id: &str, at: &Here<'_>) -> Diagnostic {
    let message = if kind == Opened::Step {
        format!("STEP_FINISHED for step '{id}', which is not running")
    } else {
        format!("{} for {}, which is not open", at.type_, kind.describe(id))
    };
    at.finding(rules.not_open, &format!("/{key}"), message)
        .with_help(format!(
            "send {} first; an id stays open until its {}",
            kind.start_event(),
            kind.end_event()
        ))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::super::here::{EventPlace, Here};
    use super::super::tests::fired;
    use super::super::view::EventView;
    use super::*;

    #[test]
    fn a_run_past_the_limit_is_reported_once_and_its_later_ends_are_not_judged() {
        let pool = held::Pool::new(1 << 20);
        let mut open = OpenItems::with_limit(&pool, 3);
        let mut out: Vec<Diagnostic> = Vec::new();
        let event = |open: &mut OpenItems, out: &mut Vec<Diagnostic>, type_: &str, id: &str| {
            let place = EventPlace {
                index: 1,
                record: None,
                pointer: String::new(),
                location: None,
            };
            let value = json!({"type": type_, "toolCallId": id});
            let at = Here::new(
                EventView::Value(&value),
                type_,
                &place,
                crate::Protocol::NEWEST,
            );
            match type_ {
                "TOOL_CALL_START" => open.start(Opened::ToolCall, "toolCallId", &at, out),
                "TOOL_CALL_ARGS" => open.touch(Opened::ToolCall, "toolCallId", &at, out),
                _ => {
                    open.end(Opened::ToolCall, "toolCallId", &at, out);
                }
            }
        };
        for id in ["a", "b", "c", "d", "e"] {
            event(&mut open, &mut out, "TOOL_CALL_START", id);
        }
        let rules: Vec<_> = out.iter().map(|d| d.rule.as_str()).collect();
        assert_eq!(rules, [OPEN_ITEMS_OVER_LIMIT.name]);
        assert!(
            out[0].message.contains("tool call 'd'"),
            "{}",
            out[0].message
        );
        // "e" was never tracked: its end is not judged, and "a" still is.
        event(&mut open, &mut out, "TOOL_CALL_ARGS", "e");
        event(&mut open, &mut out, "TOOL_CALL_END", "e");
        event(&mut open, &mut out, "TOOL_CALL_END", "a");
        assert_eq!(out.len(), 1);
        assert!(open.contains(Opened::ToolCall, "b"));
        assert!(!open.contains(Opened::ToolCall, "a"));
        // A new run starts afresh.
        open.clear();
        event(&mut open, &mut out, "TOOL_CALL_END", "zz");
        assert_eq!(
            out.last().map(|d| d.rule.as_str()),
            Some(EVENT_WITHOUT_START.name)
        );
    }

    #[test]
    fn open_and_close() {
        assert_eq!(
            fired(json!([
                {"type": "RUN_STARTED", "threadId": "t", "runId": "r", "protocolVersion": "1.1"},
                {"type": "TEXT_MESSAGE_END", "messageId": "m"},
                {"type": "TOOL_CALL_START", "toolCallId": "c", "toolCallName": "f"},
                {"type": "TOOL_CALL_START", "toolCallId": "c", "toolCallName": "f"},
                {"type": "STEP_STARTED", "stepName": "s"},
                {"type": "STEP_STARTED", "stepName": "s"},
                {"type": "STEP_FINISHED", "stepName": "x"},
                {"type": "RUN_FINISHED", "threadId": "t", "runId": "r"}
            ])),
            [
                "event-without-start",
                "duplicate-start",
                crate::rules::sequence::steps::STEP_STARTED_TWICE.name,
                crate::rules::sequence::steps::STEP_FINISHED_WITHOUT_START.name,
                crate::rules::sequence::lifecycle::RUN_FINISHED_WHILE_OPEN.name,
                crate::rules::sequence::lifecycle::RUN_FINISHED_WHILE_OPEN.name
            ]
        );
        assert_eq!(
            fired(json!([
                {"type": "RUN_STARTED", "threadId": "t", "runId": "r", "protocolVersion": "1.1"},
                {"type": "REASONING_START", "messageId": "p"},
                {"type": "STEP_STARTED", "stepName": "s"}
            ])),
            [
                crate::rules::sequence::lifecycle::STREAM_TRUNCATED.name,
                "never-ended",
                crate::rules::sequence::steps::STEP_NEVER_FINISHED.name
            ]
        );
    }
}
