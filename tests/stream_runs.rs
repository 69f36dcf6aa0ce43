//! State per run (issue 14): in an AG-UI 1.x stream of several runs, some
//! ending in `RUN_ERROR`, the last perhaps truncated, each run's findings
//! are exactly those of the run checked alone. Nothing one run leaves open
//! (argument text, chunk streams, steps, subagents) leaks into the next.

use agui_lint::{Kind, Validator};
use proptest::prelude::*;
use serde_json::{json, Value};

/// One piece of a run's body; ids repeat across runs on purpose, so that
/// anything a run leaked would meet the same ids in the next.
#[derive(Debug, Clone)]
enum Piece {
    Text { closed: bool },
    TextChunks { parts: usize },
    Tool { json: bool, closed: bool },
    ToolChunks { json: bool },
    Step { closed: bool },
    Subagent { closed: bool },
    Custom,
    OrphanContent,
}

/// How a run ends.
#[derive(Debug, Clone, Copy)]
enum End {
    Finished,
    Errored,
    Truncated,
}

fn piece() -> impl Strategy<Value = Piece> {
    prop_oneof![
        any::<bool>().prop_map(|closed| Piece::Text { closed }),
        (1usize..4).prop_map(|parts| Piece::TextChunks { parts }),
        (any::<bool>(), any::<bool>()).prop_map(|(json, closed)| Piece::Tool { json, closed }),
        any::<bool>().prop_map(|json| Piece::ToolChunks { json }),
        any::<bool>().prop_map(|closed| Piece::Step { closed }),
        any::<bool>().prop_map(|closed| Piece::Subagent { closed }),
        Just(Piece::Custom),
        Just(Piece::OrphanContent),
    ]
}

fn run_events(index: usize, pieces: &[Piece], end: End) -> Vec<Value> {
    let run = format!("r{index}");
    let mut events = vec![json!({"type": "RUN_STARTED", "threadId": "t", "runId": run})];
    for piece in pieces {
        match piece {
            Piece::Text { closed } => {
                events.push(
                    json!({"type": "TEXT_MESSAGE_START", "messageId": "m", "role": "assistant"}),
                );
                events
                    .push(json!({"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": "hi"}));
                if *closed {
                    events.push(json!({"type": "TEXT_MESSAGE_END", "messageId": "m"}));
                }
            }
            Piece::TextChunks { parts } => {
                events.push(json!({"type": "TEXT_MESSAGE_CHUNK", "messageId": "mc", "delta": "a"}));
                for _ in 1..*parts {
                    events.push(json!({"type": "TEXT_MESSAGE_CHUNK", "delta": "b"}));
                }
            }
            Piece::Tool { json, closed } => {
                events.push(
                    json!({"type": "TOOL_CALL_START", "toolCallId": "c", "toolCallName": "f"}),
                );
                let delta = if *json { "{\"a\":1}" } else { "{\"a\":" };
                events.push(json!({"type": "TOOL_CALL_ARGS", "toolCallId": "c", "delta": delta}));
                if *closed {
                    events.push(json!({"type": "TOOL_CALL_END", "toolCallId": "c"}));
                }
            }
            Piece::ToolChunks { json } => {
                events.push(json!({"type": "TOOL_CALL_CHUNK", "toolCallId": "k", "toolCallName": "f", "delta": "{\"a\":"}));
                let rest = if *json { "1}" } else { "" };
                events.push(json!({"type": "TOOL_CALL_CHUNK", "toolCallId": "k", "delta": rest}));
            }
            Piece::Step { closed } => {
                events.push(json!({"type": "STEP_STARTED", "stepName": "s"}));
                if *closed {
                    events.push(json!({"type": "STEP_FINISHED", "stepName": "s"}));
                }
            }
            Piece::Subagent { closed } => {
                events
                    .push(json!({"type": "SUBAGENT_STARTED", "subagentRunId": "sa", "name": "n"}));
                events.push(
                    json!({"type": "CUSTOM", "name": "x", "value": 1, "subagentRunId": "sa"}),
                );
                if *closed {
                    events.push(json!({"type": "SUBAGENT_FINISHED", "subagentRunId": "sa"}));
                }
            }
            Piece::Custom => events.push(json!({"type": "CUSTOM", "name": "x", "value": 1})),
            Piece::OrphanContent => {
                events.push(
                    json!({"type": "TEXT_MESSAGE_CONTENT", "messageId": "orphan", "delta": "x"}),
                );
            }
        }
    }
    match end {
        End::Finished => {
            events.push(json!({"type": "RUN_FINISHED", "threadId": "t", "runId": run}))
        }
        End::Errored => events.push(json!({"type": "RUN_ERROR", "message": "failed"})),
        End::Truncated => {}
    }
    events
}

/// The findings of a stream as (record, rule), records counted from 0.
fn findings(validator: &Validator, events: &[Value]) -> Vec<(usize, String)> {
    let mut stream = agui_lint::EventStream::new();
    let mut out = Vec::new();
    for (i, event) in events.iter().enumerate() {
        let bytes = serde_json::to_vec(event).expect("serialises");
        let report =
            validator.validate_in_stream(&mut stream, Some(Kind::Event), &bytes, None, None);
        for d in report.diagnostics() {
            out.push((i, d.rule.clone()));
        }
    }
    let last = events.len().saturating_sub(1);
    for d in validator.finish_stream(&mut stream) {
        out.push((last, d.rule));
    }
    out.sort();
    out
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn each_run_is_judged_as_if_alone(
        runs in prop::collection::vec(
            (prop::collection::vec(piece(), 0..6), any::<bool>()),
            2..5,
        ),
        truncated in any::<bool>(),
    ) {
        let validator = Validator::new().expect("validator");
        let count = runs.len();
        let mut whole = Vec::new();
        let mut expected = Vec::new();
        for (i, (pieces, errored)) in runs.iter().enumerate() {
            let end = if i + 1 == count && truncated {
                End::Truncated
            } else if *errored {
                End::Errored
            } else {
                End::Finished
            };
            let events = run_events(i, pieces, end);
            let offset = whole.len();
            expected.extend(
                findings(&validator, &events)
                    .into_iter()
                    .map(|(record, rule)| (record + offset, rule)),
            );
            whole.extend(events);
        }
        expected.sort();
        prop_assert_eq!(findings(&validator, &whole), expected);
    }
}

/// The repro of issue 14: an error run, then twice a run with a chunked
/// tool call. Only the stream's own problems are found: the second run's
/// other thread and the third run's reused run id, nothing from the error.
#[test]
fn error_run_then_chunked_runs() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/upstream/traffic-1.0/");
    let read = |name: &str| std::fs::read_to_string(format!("{dir}{name}")).expect("traffic file");
    let text = [
        read("events-error.jsonl"),
        read("events-chunks.jsonl"),
        read("events-chunks.jsonl"),
    ]
    .concat();
    let events: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON line"))
        .collect();
    let validator = Validator::new().expect("validator");
    assert_eq!(
        findings(&validator, &events),
        [
            (7, "run-started-other-thread".to_string()),
            (16, "run-id-reused".to_string()),
        ]
    );
}

/// 1.x: a delta that does not apply is skipped and the consumer keeps its
/// prior state (`spec/1.1/basic/patterns/snapshots.mdx`), so the deltas
/// after it are checked against that state; before 1.0 the state is
/// unknown after it, and nothing more is said about it.
#[test]
fn after_a_delta_that_does_not_apply_later_deltas_meet_the_prior_state() {
    let events = json!([
        {"type": "RUN_STARTED", "threadId": "t", "runId": "r", "protocolVersion": "1.1"},
        {"type": "STATE_SNAPSHOT", "snapshot": {"count": 0}},
        {"type": "STATE_DELTA", "delta": [{"op": "replace", "path": "/missing", "value": 1}]},
        {"type": "STATE_DELTA", "delta": [{"op": "replace", "path": "/count", "value": 1}]},
        {"type": "STATE_DELTA", "delta": [{"op": "test", "path": "/count", "value": 2}]},
        {"type": "RUN_FINISHED", "threadId": "t", "runId": "r"}
    ]);
    let validator = Validator::new().expect("validator");
    let report = validator.validate(Kind::Events, events.to_string().as_bytes());
    let failed: Vec<&str> = report
        .diagnostics()
        .iter()
        .filter(|d| d.rule == "state-delta-not-applicable")
        .map(|d| d.pointer.as_str())
        .collect();
    assert_eq!(
        failed,
        ["/2/delta/0", "/4/delta/0"],
        "{:?}",
        report.diagnostics()
    );

    let mut pre_1_0 = events;
    pre_1_0[0]
        .as_object_mut()
        .expect("object")
        .remove("protocolVersion");
    let validator = validator.with_settings(
        agui_lint::Settings::default()
            .protocol(agui_lint::ProtocolChoice::Version(agui_lint::Protocol::V0)),
    );
    let report = validator.validate(Kind::Events, pre_1_0.to_string().as_bytes());
    let failed = report
        .diagnostics()
        .iter()
        .filter(|d| d.rule == "state-delta-not-applicable")
        .count();
    assert_eq!(failed, 1, "{:?}", report.diagnostics());
}
