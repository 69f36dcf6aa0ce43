//! What a 1.x client owes in the `RunAgentInput` it sends: one resume entry
//! per interrupt (`spec/1.1/basic/patterns/interrupt-resume.mdx`), no
//! activity messages (`spec/1.1/basic/run-input.mdx`), and the reserved
//! `ag-ui` metadata key left to the protocol (`spec/1.1/basic/metadata.mdx`).

use super::view::{Call, Conversation, Findings, Marks, Message};
use super::walk::repeats;
use super::Rule;
use crate::diagnostic::{Severity, Target};
use crate::rules::SINCE_1_0;
use crate::spec::RESERVED_METADATA_KEY;
use crate::text::excerpt;

/// The rules of this family, in documentation order.
pub(super) const RULES: &[Rule] = &[
    DUPLICATE_RESUME_ENTRY,
    ACTIVITY_MESSAGE_IN_INPUT,
    METADATA_RESERVED_KEY,
];

pub(super) const DUPLICATE_RESUME_ENTRY: Rule = Rule {
    name: "duplicate-resume-entry",
    severity: Severity::Error,
    protocols: SINCE_1_0,
    severity_1x: None,
    summary: "Two resume entries answer the same interrupt",
    docs: r#"## What it checks
That each entry of a `RunAgentInput`'s `resume` list answers its own
interrupt: no two entries share an `interruptId`. The finding points at the
later entry's `interruptId`, with the first as related information.

## Why it matters
The resume list carries one `ResumeEntry` per interrupt answered, and it is
the consumer's complete statement of what was decided
(`spec/1.1/basic/patterns/interrupt-resume.mdx`). Two entries for one
interrupt, one `resolved` and one `cancelled` or with two payloads,
contradict each other: the agent cannot tell which decision stands, and
what it does is up to whichever entry its code happens to read last.

## Invalid
```json
{"threadId": "t-1", "runId": "run-2", "messages": [],
 "resume": [{"interruptId": "int-1", "status": "resolved", "payload": {"approved": true}},
            {"interruptId": "int-1", "status": "cancelled"}]}
```

## Valid
```json
{"threadId": "t-1", "runId": "run-2", "messages": [],
 "resume": [{"interruptId": "int-1", "status": "resolved", "payload": {"approved": true}},
            {"interruptId": "int-2", "status": "cancelled"}]}
```
"#,
};

pub(super) const ACTIVITY_MESSAGE_IN_INPUT: Rule = Rule {
    name: "activity-message-in-input",
    severity: Severity::Warning,
    protocols: SINCE_1_0,
    severity_1x: None,
    summary: "A 1.x RunAgentInput sends an activity message back to the agent",
    docs: r#"## What it checks
That the `messages` of a 1.x `RunAgentInput` hold no message with role
`activity`.

## Why it matters
Activity messages never travel back to the producer: a consumer MUST strip
them from `messages` before sending (`spec/1.1/basic/run-input.mdx`). They
are the client's rendering material (progress cards, plans), not
conversation the agent resumes from; an agent handed one has no use for it,
and one that forwards the history to a model sends it content in a role
the model does not know.

## Invalid
```json
{"threadId": "t-1", "runId": "run-2", "messages": [
  {"id": "u-1", "role": "user", "content": "Plan my trip"},
  {"id": "act-1", "role": "activity", "activityType": "plan", "content": {"steps": 3}}]}
```

## Valid
```json
{"threadId": "t-1", "runId": "run-2", "messages": [
  {"id": "u-1", "role": "user", "content": "Plan my trip"}]}
```
"#,
};

pub(crate) const METADATA_RESERVED_KEY: Rule = Rule {
    name: "metadata-reserved-key",
    severity: Severity::Warning,
    protocols: SINCE_1_0,
    severity_1x: None,
    summary: "A client writes the protocol's reserved `ag-ui` metadata key",
    docs: r#"## What it checks
The `metadata` objects a client writes in a 1.x `RunAgentInput` (on
messages, tool calls, tools and resume entries) and in a resume entry on
its own: none has the key `ag-ui`.

## Why it matters
`metadata` is open by key, but the `ag-ui` key is reserved for the
protocol's own use; every other key is application space, and producers
SHOULD prefix keys they invent with a vendor or application name
(`spec/1.1/basic/metadata.mdx`). Application data under `ag-ui` collides
with what the protocol puts there, and a later version may give the key a
meaning the data contradicts.

## Invalid
```json
{"id": "u-1", "role": "user", "content": "hi", "metadata": {"ag-ui": {"client": "web"}}}
```

## Valid
```json
{"id": "u-1", "role": "user", "content": "hi", "metadata": {"acme.client": "web"}}
```
"#,
};

/// Runs this family's checks on what `conversation` holds besides its
/// messages: 1.x requests only.
pub(crate) fn check(conversation: &Conversation<'_>, out: &mut impl Findings) {
    if !conversation.protocol.is_1x() {
        return;
    }
    check_resume_ids(conversation, out);
    for (index, entry) in conversation.resume.iter().enumerate() {
        check_metadata(entry.marks, || conversation.resume_at(index), out);
    }
    // The rest is about what a RunAgentInput carries.
    if conversation.run.is_none() {
        return;
    }
    for (index, tool) in conversation.tools.iter().flatten().enumerate() {
        check_metadata(tool.marks, || conversation.tool_at(index), out);
    }
}

/// Runs this family's checks on message `index` of `conversation`, which
/// makes `calls`: 1.x requests only.
pub(crate) fn check_message(
    conversation: &Conversation<'_>,
    index: usize,
    message: &Message<'_>,
    calls: &[Call<'_>],
    out: &mut impl Findings,
) {
    if !conversation.protocol.is_1x() || conversation.run.is_none() {
        return;
    }
    if message.is("activity") {
        out.add(&ACTIVITY_MESSAGE_IN_INPUT, |rule| {
            rule
                .diagnostic(
                    conversation.message_at(index),
                    "activity message sent back to the agent",
                )
                .with_help(
                    "a client strips activity messages from messages before sending: they are its rendering material, not conversation",
                )
        });
    }
    check_metadata(message.marks, || conversation.message_at(index), out);
    for call in calls {
        check_metadata(call.marks, || conversation.call_at(call.made_in), out);
    }
}

/// Two resume entries for one interrupt.
fn check_resume_ids(conversation: &Conversation<'_>, out: &mut impl Findings) {
    let at = |index: usize| format!("{}/interruptId", conversation.resume_at(index));
    let ids = conversation
        .resume
        .iter()
        .enumerate()
        .filter_map(|(index, entry)| Some((entry.interrupt_id?, index)));
    for (text, index, earlier) in repeats(ids) {
        out.add(&DUPLICATE_RESUME_ENTRY, |rule| {
            rule.diagnostic(
                at(index),
                format!("interrupt '{}' is answered twice", excerpt(text)),
            )
            .with_help(
                "send one resume entry per interrupt: resolved with its payload, or cancelled",
            )
            .with_related(at(earlier), "first entry for this interrupt")
        });
    }
}

/// The reserved key in the `metadata` of what `marks` are of, which sits
/// at `at()`.
fn check_metadata(marks: Marks, at: impl FnOnce() -> String, out: &mut impl Findings) {
    if marks.reserved_metadata {
        out.add(&METADATA_RESERVED_KEY, |rule| {
            rule
                .diagnostic(
                    format!("{}/metadata/{RESERVED_METADATA_KEY}", at()),
                    "metadata key 'ag-ui' is reserved for the protocol",
                )
                .with_help("put application data under a key of its own, prefixed with a vendor or application name")
                .at(Target::Key)
        });
    }
}
