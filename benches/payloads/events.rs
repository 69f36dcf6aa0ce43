//! Deterministic AG-UI 1.1 event streams, shaped like the official SDKs'
//! traffic: most events are text deltas, and every run also streams
//! reasoning, chunked messages and tool calls, tool results, state
//! snapshots and deltas, activity snapshots and deltas, a subagent,
//! raw and custom events, and ends completed, interrupted or in error. Every
//! event type of 1.1 appears in every run but the retired THINKING_* ones.

use serde_json::{json, Value};

use super::{sentence, Lcg};

/// How a capture's events are framed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Framing {
    /// One event per line.
    JsonLines,
    /// One `data:` line per event, events separated by a blank line.
    Sse,
}

impl Framing {
    /// Writes `record` to `out` framed, and says how many bytes that took.
    pub fn write(self, record: &str, out: &mut impl std::io::Write) -> std::io::Result<usize> {
        let framed = match self {
            Framing::JsonLines => format!("{record}\n"),
            Framing::Sse => format!("data: {record}\n\n"),
        };
        out.write_all(framed.as_bytes())?;
        Ok(framed.len())
    }
}

/// What a written capture holds.
pub struct Written {
    /// Bytes written.
    pub bytes: usize,
    /// Events written.
    pub events: usize,
    /// The largest event's length.
    pub largest: usize,
}

/// One run of events, each a JSON text, in order.
fn run(rng: &mut Lcg, run: u64, clock: &mut u64) -> Vec<String> {
    let thread = "thread-capture";
    let run_id = format!("run-{run}");
    let mut events: Vec<Value> = Vec::with_capacity(400);
    let mut push = |mut event: Value, clock: &mut u64| {
        *clock += 1 + rng_step(run, events.len() as u64);
        event["timestamp"] = json!(*clock);
        events.push(event);
    };
    let mut started = json!({"type": "RUN_STARTED", "threadId": thread, "runId": run_id, "protocolVersion": "1.1"});
    if run % 8 == 0 {
        started["input"] = json!({
            "threadId": thread, "runId": run_id, "protocolVersion": "1.1",
            "messages": [{"id": format!("u-{run}"), "role": "user", "content": sentence(rng, 12)}],
            "tools": [], "context": [], "state": {"turn": run}, "forwardedProps": {}
        });
    }
    push(started, clock);
    push(json!({"type": "STEP_STARTED", "stepName": "think"}), clock);

    // Reasoning, streamed then chunked, with its encrypted form.
    let reasoning = format!("reason-{run}");
    push(
        json!({"type": "REASONING_START", "messageId": reasoning}),
        clock,
    );
    push(
        json!({"type": "REASONING_MESSAGE_START", "messageId": reasoning, "role": "reasoning"}),
        clock,
    );
    for _ in 0..(8 + rng.below(16)) {
        push(
            json!({"type": "REASONING_MESSAGE_CONTENT", "messageId": reasoning, "delta": sentence(rng, 3)}),
            clock,
        );
    }
    push(
        json!({"type": "REASONING_MESSAGE_END", "messageId": reasoning}),
        clock,
    );
    let chunked_reasoning = format!("reason-{run}-b");
    push(
        json!({"type": "REASONING_MESSAGE_CHUNK", "messageId": chunked_reasoning, "delta": sentence(rng, 3)}),
        clock,
    );
    push(
        json!({"type": "REASONING_MESSAGE_CHUNK", "delta": sentence(rng, 3)}),
        clock,
    );
    push(
        json!({"type": "REASONING_ENCRYPTED_VALUE", "subtype": "message", "entityId": reasoning,
                "encryptedValue": "gAAAAABnX0x9c2VjcmV0LXJlYXNvbmluZy10cmFjZQ==", "encryptedValueType": "openai"}),
        clock,
    );
    push(
        json!({"type": "REASONING_END", "messageId": reasoning}),
        clock,
    );
    push(json!({"type": "STEP_FINISHED", "stepName": "think"}), clock);

    // The answer, streamed: most of a capture's events.
    let message = format!("msg-{run}");
    push(
        json!({"type": "TEXT_MESSAGE_START", "messageId": message, "role": "assistant"}),
        clock,
    );
    for _ in 0..(150 + rng.below(150)) {
        let words = 1 + rng.below(4) as usize;
        push(
            json!({"type": "TEXT_MESSAGE_CONTENT", "messageId": message, "delta": sentence(rng, words)}),
            clock,
        );
    }
    push(
        json!({"type": "TEXT_MESSAGE_END", "messageId": message}),
        clock,
    );

    // A tool call, streamed, and its result.
    let call = format!("call-{run}");
    push(
        json!({"type": "TOOL_CALL_START", "toolCallId": call, "toolCallName": "get_weather", "parentMessageId": message}),
        clock,
    );
    for piece in ["{\"city\":", "\"Oslo\",", "\"days\":", "3}"] {
        push(
            json!({"type": "TOOL_CALL_ARGS", "toolCallId": call, "delta": piece}),
            clock,
        );
    }
    push(json!({"type": "TOOL_CALL_END", "toolCallId": call}), clock);
    push(
        json!({"type": "TOOL_CALL_RESULT", "messageId": format!("tool-{run}"), "toolCallId": call, "role": "tool",
                "content": [{"type": "text", "text": "rain, 12 degrees"}]}),
        clock,
    );

    // A chunked message and a chunked tool call.
    let chunked = format!("msg-{run}-b");
    push(
        json!({"type": "TEXT_MESSAGE_CHUNK", "messageId": chunked, "role": "assistant", "delta": sentence(rng, 2)}),
        clock,
    );
    for _ in 0..(10 + rng.below(20)) {
        push(
            json!({"type": "TEXT_MESSAGE_CHUNK", "delta": sentence(rng, 2)}),
            clock,
        );
    }
    let chunked_call = format!("call-{run}-b");
    push(
        json!({"type": "TOOL_CALL_CHUNK", "toolCallId": chunked_call, "toolCallName": "search", "parentMessageId": chunked, "delta": "{\"q\":"}),
        clock,
    );
    push(
        json!({"type": "TOOL_CALL_CHUNK", "delta": "\"rain\"}"}),
        clock,
    );
    push(
        json!({"type": "TOOL_CALL_RESULT", "messageId": format!("tool-{run}-b"), "toolCallId": chunked_call, "content": sentence(rng, 6)}),
        clock,
    );

    // State and activity.
    push(
        json!({"type": "STATE_SNAPSHOT", "snapshot": {"turn": run, "city": "Oslo", "items": [1, 2, 3], "done": false}}),
        clock,
    );
    for k in 0..(3 + rng.below(5)) {
        push(
            json!({"type": "STATE_DELTA", "delta": [{"op": "replace", "path": "/turn", "value": run + k},
                                                     {"op": "add", "path": "/items/-", "value": k}]}),
            clock,
        );
    }
    let activity = format!("activity-{run}");
    push(
        json!({"type": "ACTIVITY_SNAPSHOT", "messageId": activity, "activityType": "search", "content": {"found": 0, "query": "rain"}}),
        clock,
    );
    push(
        json!({"type": "ACTIVITY_DELTA", "messageId": activity, "activityType": "search",
                "patch": [{"op": "replace", "path": "/found", "value": 3}]}),
        clock,
    );

    // A subagent whose events carry its id, and one that fails.
    let subagent = format!("sub-{run}");
    push(
        json!({"type": "SUBAGENT_STARTED", "subagentRunId": subagent, "name": "researcher",
                "description": "looks things up", "parentToolCallId": call}),
        clock,
    );
    let sub_message = format!("sub-msg-{run}");
    push(
        json!({"type": "TEXT_MESSAGE_START", "messageId": sub_message, "role": "assistant", "subagentRunId": subagent}),
        clock,
    );
    for _ in 0..(5 + rng.below(10)) {
        push(
            json!({"type": "TEXT_MESSAGE_CONTENT", "messageId": sub_message, "delta": sentence(rng, 2), "subagentRunId": subagent}),
            clock,
        );
    }
    push(
        json!({"type": "TEXT_MESSAGE_END", "messageId": sub_message, "subagentRunId": subagent}),
        clock,
    );
    push(
        json!({"type": "SUBAGENT_FINISHED", "subagentRunId": subagent, "outcome": {"type": "success"}, "result": {"found": 3}}),
        clock,
    );
    let failing = format!("sub-{run}-b");
    push(
        json!({"type": "SUBAGENT_STARTED", "subagentRunId": failing, "name": "mailer"}),
        clock,
    );
    push(
        json!({"type": "SUBAGENT_ERROR", "subagentRunId": failing, "message": "mail server unreachable", "code": "unavailable"}),
        clock,
    );

    push(
        json!({"type": "RAW", "event": {"provider": "openai", "id": format!("chatcmpl-{run}")}, "source": "openai"}),
        clock,
    );
    push(
        json!({"type": "CUSTOM", "name": "progress", "value": {"percent": 100}}),
        clock,
    );
    if run % 16 == 5 {
        push(
            json!({"type": "MESSAGES_SNAPSHOT", "messages": [
                {"id": format!("u-{run}"), "role": "user", "content": sentence(rng, 8)},
                {"id": message, "role": "assistant", "content": sentence(rng, 20),
                 "toolCalls": [{"id": call, "type": "function", "function": {"name": "get_weather", "arguments": "{\"city\":\"Oslo\",\"days\":3}"}}]},
                {"id": format!("tool-{run}"), "role": "tool", "toolCallId": call, "content": "rain, 12 degrees"}
            ]}),
            clock,
        );
    }

    match run % 10 {
        // Interrupted, waiting for an approval.
        3 => push(
            json!({"type": "RUN_FINISHED", "threadId": thread, "runId": run_id,
                          "outcome": {"type": "interrupt", "interrupts": [{"id": format!("int-{run}"), "reason": "approval",
                                                                            "message": "send the mail?"}]}}),
            clock,
        ),
        // Failed.
        7 => push(
            json!({"type": "RUN_ERROR", "message": "model overloaded", "code": "overloaded"}),
            clock,
        ),
        _ => push(
            json!({"type": "RUN_FINISHED", "threadId": thread, "runId": run_id, "outcome": {"type": "success"},
                          "usage": [{"provider": "openai", "model": "gpt-4o", "inputTokens": 812, "outputTokens": 233}]}),
            clock,
        ),
    }
    events.into_iter().map(|e| e.to_string()).collect()
}

/// A small deterministic step for the clock, so timestamps vary.
fn rng_step(run: u64, index: u64) -> u64 {
    (run.wrapping_mul(31).wrapping_add(index.wrapping_mul(17))) % 40
}

/// Runs of events, about `target` bytes of them, framed as `framing` and
/// written to `out` a run at a time.
pub fn capture(
    out: &mut impl std::io::Write,
    target: usize,
    framing: Framing,
) -> std::io::Result<Written> {
    capture_with_errors(out, target, framing, 0)
}

/// [`capture`] whose every event carries a key no event defines, as a
/// server that adds its own field everywhere sends it: a warning on every
/// event, a finding for every hundred bytes or so.
pub fn capture_with_warnings(
    out: &mut impl std::io::Write,
    target: usize,
    framing: Framing,
) -> std::io::Result<Written> {
    capture_runs(out, target, framing, 13, |n, events| {
        for event in events.iter_mut() {
            if let Some(open) = event.strip_suffix('}') {
                *event = format!("{open},\"traceTag\":{n}}}");
            }
        }
    })
}

/// [`capture`] where one run in `broken_every` (0: none) loses its first
/// `TEXT_MESSAGE_END`, as a server that forgets to end a message sends
/// it: errors in a few percent of runs, the rest clean.
pub fn capture_with_errors(
    out: &mut impl std::io::Write,
    target: usize,
    framing: Framing,
    broken_every: u64,
) -> std::io::Result<Written> {
    capture_runs(out, target, framing, 11, |n, events| {
        if broken_every > 0 && n % broken_every == broken_every / 2 {
            if let Some(end) = events
                .iter()
                .position(|e| e.contains("\"type\":\"TEXT_MESSAGE_END\""))
            {
                events.remove(end);
            }
        }
    })
}

/// Runs of events, about `target` bytes of them, framed as `framing`,
/// drawn from a generator seeded with `seed`; `edit` changes run `n`'s
/// events before they are written.
fn capture_runs(
    out: &mut impl std::io::Write,
    target: usize,
    framing: Framing,
    seed: u64,
    mut edit: impl FnMut(u64, &mut Vec<String>),
) -> std::io::Result<Written> {
    let mut rng = Lcg::new(seed);
    let mut clock = 1_764_547_200_000u64;
    let mut written = Written {
        bytes: 0,
        events: 0,
        largest: 0,
    };
    let mut n = 0;
    while written.bytes < target {
        let mut events = run(&mut rng, n, &mut clock);
        edit(n, &mut events);
        for event in events {
            written.largest = written.largest.max(event.len());
            written.events += 1;
            written.bytes += framing.write(&event, out)?;
        }
        n += 1;
    }
    Ok(written)
}
