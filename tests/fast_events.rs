//! The events the fast path reads without a `Value` are the events the full
//! path reports nothing about: an event it reads as clean must be clean,
//! detected as an event and judged by the same version.
//!
//! Held on every event of every stream fixture and event fixture of every
//! version folder, on upstream's conformance streams, on the real 1.0
//! traffic and on the benchmark's generated capture, each judged by every
//! version, and on edits of each (keys dropped, added, repeated, moved
//! before `type`; values nulled, retyped, pushed past the bounds). And the
//! fast path must carry the traffic: the clean events of the common types
//! are read by it.

use std::path::{Path, PathBuf};

use agui_lint::{fuzzing, Protocol};
use serde_json::{json, Map, Value};

#[path = "../benches/payloads/mod.rs"]
#[allow(dead_code)]
mod payloads;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            files(&path, out);
        } else {
            out.push(path);
        }
    }
}

/// Every event object found in the fixture corpus and the vendored
/// upstream streams and traffic, as JSON values.
fn corpus_events() -> Vec<Value> {
    let mut paths = Vec::new();
    files(&root().join("fixtures"), &mut paths);
    files(&root().join("tests/upstream"), &mut paths);
    let mut events = Vec::new();
    for path in paths {
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        let mut values = Vec::new();
        match path.extension().and_then(|e| e.to_str()) {
            Some("jsonl") | Some("ndjson") => {
                values.extend(text.lines().filter_map(|l| serde_json::from_str(l).ok()));
            }
            Some("sse") | Some("txt") => {
                values.extend(text.lines().filter_map(|l| {
                    serde_json::from_str(l.strip_prefix("data:")?.trim_start()).ok()
                }));
            }
            Some("json") | Some("har") => {
                if let Ok(value) = serde_json::from_str::<Value>(&text) {
                    collect_events(&value, &mut values);
                }
            }
            _ => {}
        }
        for value in values {
            collect_events(&value, &mut events);
        }
    }
    events
}

/// The objects within `value` that carry a string `type` naming an event
/// (upper case), wherever they are nested.
fn collect_events(value: &Value, out: &mut Vec<Value>) {
    match value {
        Value::Object(map) => {
            let is_event = map.get("type").and_then(Value::as_str).is_some_and(|t| {
                t.len() > 2 && t.chars().all(|c| c.is_ascii_uppercase() || c == '_')
            });
            if is_event {
                out.push(value.clone());
            }
            for child in map.values() {
                collect_events(child, out);
            }
        }
        Value::Array(items) => items.iter().for_each(|i| collect_events(i, out)),
        Value::String(text) if text.starts_with('{') => {
            // HAR bodies and SSE text hold events as text.
            for line in text.lines() {
                let data = line.strip_prefix("data:").map_or(line, str::trim_start);
                if let Ok(inner) = serde_json::from_str::<Value>(data) {
                    collect_events(&inner, out);
                }
            }
        }
        Value::String(text) if text.contains("data:") => {
            for line in text.lines() {
                if let Some(data) = line.strip_prefix("data:") {
                    if let Ok(inner) = serde_json::from_str::<Value>(data.trim_start()) {
                        collect_events(&inner, out);
                    }
                }
            }
        }
        _ => {}
    }
}

/// The first runs of the benchmark's generated capture, as values.
fn generated_events() -> Vec<Value> {
    let mut text = Vec::new();
    payloads::events::capture(&mut text, 1_000_000, payloads::events::Framing::JsonLines)
        .expect("generate");
    text.split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .map(|l| serde_json::from_slice(l).expect("generated JSON"))
        .collect()
}

/// Asserts the paths agree on `bytes` under every version; says whether
/// the fast path read it under `protocol`.
fn agree(bytes: &[u8], protocol: Protocol) -> bool {
    fuzzing::event_differential(bytes);
    fuzzing::fast_and_full_event(bytes, protocol)
        .expect("the validator builds")
        .0
}

/// Edits of `event` that each change one thing the schema or the parse
/// layer judges.
fn edits(event: &Map<String, Value>) -> Vec<Vec<u8>> {
    let mut edited: Vec<Vec<u8>> = Vec::new();
    let text = |map: &Map<String, Value>| serde_json::to_vec(map).expect("serialize");
    let interesting = [
        Value::Null,
        json!(""),
        json!(1.5),
        json!(-1),
        json!(9_007_199_254_740_992u64),
        json!(12_345_678_901_234_567_890u64),
        json!(true),
        json!({}),
        json!([]),
        json!({"ag-ui": 1}),
        json!("assistant"),
        json!("reasoning"),
        json!("message"),
    ];
    for key in event.keys() {
        let mut dropped = event.clone();
        dropped.remove(key);
        edited.push(text(&dropped));
        for value in &interesting {
            let mut changed = event.clone();
            changed.insert(key.clone(), value.clone());
            edited.push(text(&changed));
        }
    }
    for (key, value) in [
        ("extra", json!(1)),
        ("timestamp", json!(1_764_547_200_000u64)),
        ("timestamp", json!(1.0)),
        ("rawEvent", json!({"a": [1, null]})),
        ("rawEvent", Value::Null),
        ("metadata", json!({"source": "x"})),
        ("metadata", json!({"ag-ui": {}})),
        ("subagentRunId", json!("s-1")),
        ("protocolVersion", json!("1.0")),
        ("protocolVersion", json!("1.1")),
        ("protocolVersion", json!("9.0")),
        (
            "input",
            json!({"threadId": "t", "runId": "r", "messages": []}),
        ),
        ("outcome", json!({"type": "success"})),
    ] {
        let mut added = event.clone();
        added.insert(key.to_string(), value);
        edited.push(text(&added));
    }
    let plain = String::from_utf8(text(event)).expect("UTF-8");
    if let Some(rest) = plain.strip_prefix('{') {
        // A key repeated, a key before `type`, escapes and cuts.
        edited.push(format!("{{\"type\":\"X\",{rest}").into_bytes());
        edited.push(format!("{{\"zz\":1,{rest}").into_bytes());
        edited.push(format!("{plain} ").into_bytes());
        edited.push(format!("\u{feff}{plain}").into_bytes());
        edited.push(plain.replace("\":\"", "\":\"\\ud800").into_bytes());
        edited.push(plain.replace("\":\"", "\":\"\\u00e9").into_bytes());
        edited.push(plain.as_bytes()[..plain.len() / 2].to_vec());
        if let Some((first, _)) = event.iter().find(|(k, _)| k.as_str() != "type") {
            let repeated = format!("{{\"{first}\":\"again\",{rest}");
            edited.push(repeated.into_bytes());
            let mut value = event.get(first).cloned().unwrap_or(Value::Null);
            if value.is_string() {
                value = json!("again");
            }
            edited
                .push(format!("{},\"{first}\":{value}}}", &plain[..plain.len() - 1]).into_bytes());
        }
        for kind in [
            "TEXT_MESSAGE_CONTENT",
            "RUN_STARTED",
            "THINKING_START",
            "text_message_end",
        ] {
            let mut retyped = event.clone();
            retyped.insert("type".into(), json!(kind));
            edited.push(text(&retyped));
        }
    }
    edited
}

#[test]
fn every_corpus_event_gets_the_same_verdict_on_both_paths() {
    let events = corpus_events();
    assert!(events.len() > 300, "only {} events found", events.len());
    let mut read = 0;
    for event in &events {
        let bytes = serde_json::to_vec(event).expect("serialize");
        read += usize::from(agree(&bytes, Protocol::V1_1));
    }
    assert!(
        read > 100,
        "the fast path read only {read} of {} events",
        events.len()
    );
}

#[test]
fn edited_events_get_the_same_verdict_on_both_paths() {
    let mut seeds = corpus_events();
    seeds.extend(generated_events().into_iter().take(400));
    // One seed per event type and key set is enough: edits multiply.
    let mut seen = std::collections::HashSet::new();
    seeds.retain(|e| {
        let keys: Vec<String> = e
            .as_object()
            .map(|m| m.keys().cloned().collect())
            .unwrap_or_default();
        seen.insert((e["type"].as_str().unwrap_or("").to_string(), keys))
    });
    let mut checked = 0;
    for seed in &seeds {
        let Some(map) = seed.as_object() else {
            continue;
        };
        for bytes in edits(map) {
            agree(&bytes, Protocol::V1_1);
            checked += 1;
        }
    }
    assert!(checked > 5_000, "only {checked} edits");
}

#[test]
fn the_generated_capture_is_read_by_the_fast_path() {
    let events = generated_events();
    let mut by_type: std::collections::BTreeMap<String, (usize, usize)> = Default::default();
    for event in &events {
        let bytes = serde_json::to_vec(event).expect("serialize");
        let fast = agree(&bytes, Protocol::V1_1);
        let entry = by_type
            .entry(event["type"].as_str().unwrap_or("").to_string())
            .or_default();
        entry.0 += 1;
        entry.1 += usize::from(fast);
    }
    // Every type whose members are all plain is read by the fast path
    // whenever it is clean, as all of the generated events are.
    for kind in [
        "TEXT_MESSAGE_START",
        "TEXT_MESSAGE_CONTENT",
        "TEXT_MESSAGE_END",
        "TEXT_MESSAGE_CHUNK",
        "TOOL_CALL_START",
        "TOOL_CALL_ARGS",
        "TOOL_CALL_END",
        "TOOL_CALL_CHUNK",
        "REASONING_START",
        "REASONING_MESSAGE_START",
        "REASONING_MESSAGE_CONTENT",
        "REASONING_MESSAGE_END",
        "REASONING_MESSAGE_CHUNK",
        "REASONING_END",
        "REASONING_ENCRYPTED_VALUE",
        "STEP_STARTED",
        "STEP_FINISHED",
        "STATE_SNAPSHOT",
        "STATE_DELTA",
        "ACTIVITY_DELTA",
        "RAW",
        "CUSTOM",
        "SUBAGENT_STARTED",
        "SUBAGENT_ERROR",
        "RUN_ERROR",
        "MESSAGES_SNAPSHOT",
    ] {
        let (seen, fast) = by_type.get(kind).copied().unwrap_or_default();
        assert!(seen > 0, "the capture has no {kind}");
        assert_eq!(fast, seen, "{kind}: the fast path read {fast} of {seen}");
    }
    let total: usize = by_type.values().map(|c| c.0).sum();
    let fast: usize = by_type.values().map(|c| c.1).sum();
    assert!(
        fast * 100 >= total * 95,
        "the fast path read {fast} of {total} events: {by_type:?}"
    );
}

#[test]
fn patch_operations_and_tagged_outcomes_get_the_same_verdict_on_both_paths() {
    let clean = [
        r#"{"type":"STATE_DELTA","delta":[]}"#,
        r#"{"type":"STATE_DELTA","delta":[{"op":"add","path":"/a","value":1}]}"#,
        r#"{"type":"STATE_DELTA","delta":[{"op":"add","path":"","value":null}]}"#,
        r#"{"type":"STATE_DELTA","delta":[{"op":"remove","path":"/a~0b/~1c/0"}]}"#,
        r#"{"type":"STATE_DELTA","delta":[{"op":"replace","path":"/a","value":{"b":[1,2.5]}}]}"#,
        r#"{"type":"STATE_DELTA","delta":[{"op":"move","from":"/a","path":"/b"}]}"#,
        r#"{"type":"STATE_DELTA","delta":[{"op":"copy","path":"/b","from":"/a"}]}"#,
        r#"{"type":"STATE_DELTA","delta":[{"op":"test","path":"/a","value":"x"}]}"#,
        r#"{"type":"STATE_DELTA","delta":[{"op":"remove","path":"/a","note":"open"}]}"#,
        r#"{"type":"STATE_DELTA","delta":[{"op":"add","path":"/\u00e9","value":1}]}"#,
        r#"{"type":"ACTIVITY_DELTA","messageId":"m","activityType":"plan","patch":[{"op":"add","path":"/a","value":1}]}"#,
        r#"{"type":"SUBAGENT_FINISHED","subagentRunId":"s","outcome":{"type":"success"}}"#,
        r#"{"type":"SUBAGENT_FINISHED","subagentRunId":"s","outcome":{"type":"suspended","interruptIds":["i"]}}"#,
    ];
    for event in clean {
        assert!(agree(event.as_bytes(), Protocol::V1_1), "not read: {event}");
    }
    let edited = [
        r#"{"type":"STATE_DELTA","delta":{}}"#,
        r#"{"type":"STATE_DELTA","delta":null}"#,
        r#"{"type":"STATE_DELTA","delta":[1]}"#,
        r#"{"type":"STATE_DELTA","delta":[null]}"#,
        r#"{"type":"STATE_DELTA","delta":[{}]}"#,
        r#"{"type":"STATE_DELTA","delta":[{"path":"/a","op":"add","value":1}]}"#,
        r#"{"type":"STATE_DELTA","delta":[{"op":"set","path":"/a","value":1}]}"#,
        r#"{"type":"STATE_DELTA","delta":[{"op":null,"path":"/a"}]}"#,
        r#"{"type":"STATE_DELTA","delta":[{"op":"add","path":"a","value":1}]}"#,
        r#"{"type":"STATE_DELTA","delta":[{"op":"add","path":"/a~2","value":1}]}"#,
        r#"{"type":"STATE_DELTA","delta":[{"op":"add","path":"/a~","value":1}]}"#,
        r#"{"type":"STATE_DELTA","delta":[{"op":"add","path":"/a"}]}"#,
        r#"{"type":"STATE_DELTA","delta":[{"op":"move","path":"/a"}]}"#,
        r#"{"type":"STATE_DELTA","delta":[{"op":"move","path":"/a","from":null}]}"#,
        r#"{"type":"STATE_DELTA","delta":[{"op":"add","path":"/a","path":"/b","value":1}]}"#,
        r#"{"type":"STATE_DELTA","delta":[{"op":"add","op":"add","path":"/a","value":1}]}"#,
        r#"{"type":"STATE_DELTA","delta":[{"op":"remove","path":"/a","x":1,"x":2}]}"#,
        r#"{"type":"STATE_DELTA","delta":[{"op":"add","path":"/a","value":{"k":1,"k":2}}]}"#,
        r#"{"type":"STATE_DELTA","delta":[{"op":"add","path":"/a","value":12345678901234567890}]}"#,
        r#"{"type":"STATE_DELTA","delta":[{"op":"remove","path":"/a","x":12345678901234567890}]}"#,
        r#"{"type":"STATE_DELTA","delta":[{"op":"add","path":"/a","value":"\ud800"}]}"#,
        r#"{"type":"STATE_DELTA","delta":[{"op":"add","path":"/a","value":1},]}"#,
        r#"{"type":"SUBAGENT_FINISHED","subagentRunId":"s","outcome":{"type":"failure"}}"#,
        r#"{"type":"SUBAGENT_FINISHED","subagentRunId":"s","outcome":{"type":"success","x":1}}"#,
        r#"{"type":"SUBAGENT_FINISHED","subagentRunId":"s","outcome":{"type":"suspended","interruptIds":[1]}}"#,
        r#"{"type":"SUBAGENT_FINISHED","subagentRunId":"s","outcome":{"interruptIds":[],"type":"suspended"}}"#,
        r#"{"type":"SUBAGENT_FINISHED","subagentRunId":"s","outcome":null}"#,
    ];
    for event in edited {
        // Both paths agree, whichever way; most of these are findings.
        agree(event.as_bytes(), Protocol::V1_1);
        agree(event.as_bytes(), Protocol::V1_0);
    }
}

/// A `MESSAGES_SNAPSHOT`'s messages are judged as a request's are, with
/// the message shapes and rules: every snapshot of the corpus and of the
/// generated capture, and each with one message edited (each edit of
/// [`edits`]), gets the same verdict on both paths under every version;
/// every one the full path finds clean is read by the fast path.
#[test]
fn messages_snapshots_get_the_same_verdict_on_both_paths() {
    let mut snapshots: Vec<Value> = corpus_events()
        .into_iter()
        .chain(generated_events())
        .filter(|e| e["type"] == "MESSAGES_SNAPSHOT" && e["messages"].is_array())
        .collect();
    snapshots.dedup();
    assert!(snapshots.len() >= 20, "only {} snapshots", snapshots.len());
    let (mut read, mut clean, mut checked) = (0, 0, 0);
    for snapshot in &snapshots {
        let bytes = serde_json::to_vec(snapshot).expect("serialize");
        let read_fast = agree(&bytes, Protocol::V1_1);
        read += usize::from(read_fast);
        let (_, full) = fuzzing::fast_and_full_event(&bytes, Protocol::V1_1).expect("validator");
        clean += usize::from(full.diagnostics().is_empty());
        let messages = snapshot["messages"].as_array().expect("an array");
        // Each message edited in turn, the first three of a long snapshot.
        for (index, message) in messages.iter().enumerate().take(3) {
            let Some(map) = message.as_object() else {
                continue;
            };
            for edited in edits(map) {
                let mut text = br#"{"type":"MESSAGES_SNAPSHOT","messages":["#.to_vec();
                for (i, other) in messages.iter().enumerate() {
                    if i > 0 {
                        text.push(b',');
                    }
                    if i == index {
                        text.extend_from_slice(&edited);
                    } else {
                        text.extend(serde_json::to_vec(other).expect("serialize"));
                    }
                }
                text.extend_from_slice(b"]}");
                for protocol in Protocol::ALL {
                    agree(&text, protocol);
                }
                checked += 1;
            }
        }
    }
    assert_eq!(
        read, clean,
        "the fast path read {read} of {clean} clean snapshots"
    );
    assert!(read >= 10, "only {read} clean snapshots");
    assert!(checked > 2_000, "only {checked} edits");
}

#[test]
fn pre_1_0_and_1_0_events_are_judged_by_their_own_version() {
    let content = br#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"hi","timestamp":1}"#;
    for protocol in Protocol::ALL {
        assert!(agree(content, protocol), "{protocol}");
    }
    // Attribution to a subagent is 1.x; pre-1.0 refuses the key.
    let attributed =
        br#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"hi","subagentRunId":"s"}"#;
    assert!(agree(attributed, Protocol::V1_0));
    assert!(!agree(attributed, Protocol::V0));
    // A RUN_STARTED declaring a version is judged by it.
    let declared = br#"{"type":"RUN_STARTED","threadId":"t","runId":"r","protocolVersion":"1.0"}"#;
    assert!(agree(declared, Protocol::V1_0));
    assert!(!agree(declared, Protocol::V1_1));
    let newer = br#"{"type":"RUN_STARTED","threadId":"t","runId":"r","protocolVersion":"7.0"}"#;
    assert!(!agree(newer, Protocol::V1_1));
}

/// The sequence rules read an event the fast path read (a snapshot's
/// messages as their text, a state as its text) as they read a parsed one:
/// every JSON Lines stream of the fixtures and the vendored upstream
/// streams, fed record by record, finds what the same events checked as
/// one events document find (by rule and message), under every version.
#[test]
fn streams_fed_record_by_record_find_what_their_events_document_finds() {
    use agui_lint::{EventStream, Kind, ProtocolChoice, Settings, Validator};
    let mut paths = Vec::new();
    files(&root().join("fixtures"), &mut paths);
    files(&root().join("tests/upstream"), &mut paths);
    paths.retain(|p| p.extension().and_then(|e| e.to_str()) == Some("jsonl"));
    paths.sort();
    let validators: Vec<(Protocol, Validator)> = Protocol::ALL
        .into_iter()
        .map(|protocol| {
            let settings = Settings::default().protocol(ProtocolChoice::Version(protocol));
            let validator = Validator::new().expect("validator").with_settings(settings);
            (protocol, validator)
        })
        .collect();
    let (mut compared, mut snapshots) = (0, 0);
    for path in &paths {
        let text = std::fs::read_to_string(path).expect("read");
        let events: Option<Vec<Value>> = text
            .lines()
            .filter(|l| !l.trim().is_empty())
            .map(|l| {
                serde_json::from_str::<Value>(l)
                    .ok()
                    .filter(Value::is_object)
            })
            .collect();
        let Some(events) = events.filter(|e| !e.is_empty()) else {
            continue;
        };
        let document = serde_json::to_vec(&events).expect("serialize");
        for (protocol, validator) in &validators {
            let shown = |d: &agui_lint::Diagnostic| format!("{} {}", d.rule, d.message);
            let mut stream = EventStream::new();
            let mut streamed: Vec<String> = Vec::new();
            for event in &events {
                let bytes = serde_json::to_vec(event).expect("serialize");
                let report = validator.validate_in_stream(
                    &mut stream,
                    Some(Kind::Event),
                    &bytes,
                    None,
                    None,
                );
                streamed.extend(report.diagnostics().iter().map(shown));
            }
            streamed.extend(validator.finish_stream(&mut stream).iter().map(shown));
            let mut whole: Vec<String> = validator
                .validate(Kind::Events, &document)
                .diagnostics()
                .iter()
                .map(shown)
                .collect();
            streamed.sort();
            whole.sort();
            assert_eq!(streamed, whole, "{} as {protocol}", path.display());
            compared += 1;
        }
        snapshots += usize::from(events.iter().any(|e| e["type"] == "MESSAGES_SNAPSHOT"));
    }
    assert!(compared > 100, "only {compared} streams compared");
    assert!(
        snapshots >= 5,
        "only {snapshots} streams with a messages snapshot"
    );
}
