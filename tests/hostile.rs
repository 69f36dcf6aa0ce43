//! Hostile input end to end: limits that turn into findings, encodings,
//! schemas built to be slow, and a capture with broken records in which no
//! record may be lost.

use std::sync::mpsc;
use std::time::Duration;

use agui_lint::{EventStream, Kind, Limits, Settings, Validator};
use assert_cmd::cargo::cargo_bin_cmd;
use serde_json::{json, Value};

/// Runs `f` on another thread and fails, instead of hanging, if it has not
/// finished in a minute (a guard against hangs, not a speed target).
fn finishes<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    let (send, receive) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = send.send(f());
    });
    receive
        .recv_timeout(Duration::from_secs(60))
        .expect("finished within a minute")
}

fn rules(report: &agui_lint::Report) -> Vec<String> {
    report
        .diagnostics()
        .iter()
        .map(|d| d.rule.clone())
        .collect()
}

fn run_input(tools: Value, arguments: &str) -> Vec<u8> {
    serde_json::to_vec(&json!({
        "threadId": "t", "runId": "r", "state": {}, "forwardedProps": {}, "context": [],
        "tools": tools,
        "messages": [
            {"id": "a", "role": "assistant", "toolCalls": [{"id": "c", "type": "function",
                "function": {"name": "f", "arguments": arguments}}]},
            {"id": "t", "role": "tool", "toolCallId": "c", "content": "ok"}
        ]
    }))
    .expect("serialize")
}

#[test]
fn catastrophic_patterns_reference_cycles_and_huge_enums_finish() {
    let validator = std::sync::Arc::new(Validator::new().expect("validator"));
    // A pattern that backtracking engines take exponential time on, against
    // the string that triggers it.
    let v = validator.clone();
    let report = finishes(move || {
        let tools = json!([{"name": "f", "description": "d", "parameters": {
            "type": "object", "properties": {"s": {"type": "string", "pattern": "^(a+)+$"}}}}]);
        let arguments = json!({"s": format!("{}!", "a".repeat(5000))}).to_string();
        v.validate(Kind::RunAgentInput, &run_input(tools, &arguments))
    });
    assert_eq!(rules(&report), ["tool-arguments-schema-mismatch"]);

    // References that loop back on themselves.
    let v = validator.clone();
    let report = finishes(move || {
        let tools = json!([{"name": "f", "description": "d", "parameters": {
            "type": "object", "$ref": "#",
            "$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"$ref": "#/$defs/a"}},
            "properties": {"x": {"$ref": "#/$defs/a"}}}}]);
        v.validate(Kind::RunAgentInput, &run_input(tools, r#"{"x": 1}"#))
    });
    assert!(
        !rules(&report).iter().any(|r| r == "invalid-json"),
        "{:?}",
        rules(&report)
    );

    // An enum of nearly the whole budget is compiled; one over it is not.
    let v = validator.clone();
    let report = finishes(move || {
        let values: Vec<u32> = (0..9_990).collect();
        let tools = json!([{"name": "f", "description": "d", "parameters": {
            "type": "object", "properties": {"n": {"enum": values}}}}]);
        v.validate(Kind::RunAgentInput, &run_input(tools, r#"{"n": 9989}"#))
    });
    assert_eq!(rules(&report), Vec::<String>::new());
    let report = finishes(move || {
        let values: Vec<u32> = (0..50_000).collect();
        let tools = json!([{"name": "f", "description": "d", "parameters": {
            "type": "object", "properties": {"n": {"enum": values}}}}]);
        validator.validate(Kind::RunAgentInput, &run_input(tools, r#"{"n": 1}"#))
    });
    assert_eq!(rules(&report), ["tool-parameters-too-large"]);
}

#[test]
fn limits_are_library_settings() {
    let limits = Limits::default()
        .with_max_document_bytes(40)
        .with_max_depth(3)
        .with_max_tool_schema_nodes(4);
    let validator = Validator::new()
        .expect("validator")
        .with_settings(Settings::default().with_limits(limits));
    let long = br#"{"id": "m1", "role": "user", "content": "a longer message"}"#;
    assert_eq!(
        rules(&validator.validate(Kind::Message, long)),
        ["document-too-large"]
    );
    assert_eq!(
        rules(&validator.validate(Kind::Context, br#"{"v": [[[[1]]]]}"#)),
        ["nesting-too-deep"]
    );
    // 2,048 levels is the most a setting can allow.
    let lenient = Settings::default().with_limits(Limits::default().with_max_depth(10_000));
    assert_eq!(lenient.limits().max_depth, agui_lint::MAX_DEPTH_CAP);
    let deep = format!("{}{}", "[".repeat(5000), "]".repeat(5000));
    let report = Validator::new()
        .expect("validator")
        .with_settings(lenient)
        .validate(Kind::Messages, deep.as_bytes());
    assert_eq!(rules(&report), ["nesting-too-deep"]);
}

/// `n` objects nested, innermost `1`.
fn nested(n: usize) -> String {
    format!("{}1{}", r#"{"a":"#.repeat(n), "}".repeat(n))
}

/// Documents nested as deep as the official receivers accept them (JSON.parse
/// and zod have no limit, pydantic about 200) are parsed and checked, on a
/// thread with a 2 MiB stack as a server's worker has, in a request, a
/// stream's state (then patched) and an events document; past the limit,
/// the finding says the limit is agui-lint's. Up to the cap with the limit
/// raised.
#[test]
fn deep_documents_are_checked_as_receivers_accept_them() {
    let request = |depth: usize| {
        format!(
            r#"{{"threadId":"t","runId":"r","state":{},"messages":[],"tools":[],"context":[],"forwardedProps":{{}}}}"#,
            nested(depth)
        )
    };
    let stream = |depth: usize| {
        format!(
            "{}\n{}\n{}\n{}\n",
            r#"{"type":"RUN_STARTED","threadId":"t","runId":"r","protocolVersion":"1.0"}"#,
            format_args!(
                r#"{{"type":"STATE_SNAPSHOT","snapshot":{{"x":{}}}}}"#,
                nested(depth)
            ),
            r#"{"type":"STATE_DELTA","delta":[{"op":"add","path":"/y","value":1}]}"#,
            r#"{"type":"RUN_FINISHED","threadId":"t","runId":"r"}"#,
        )
    };
    let on_a_small_stack = |limits: Limits, depths: Vec<usize>| {
        std::thread::Builder::new()
            .stack_size(2 << 20)
            .spawn(move || {
                let validator = Validator::new()
                    .expect("validator")
                    .with_settings(Settings::default().with_limits(limits));
                depths
                    .into_iter()
                    .map(|depth| {
                        let mut found = rules(
                            &validator.validate(Kind::RunAgentInput, request(depth).as_bytes()),
                        );
                        let mut checker = agui_lint::StreamChecker::new(
                            &validator,
                            agui_lint::Framing::JsonLines,
                        );
                        let mut documents = checker.feed(stream(depth).as_bytes());
                        documents.extend(checker.finish());
                        found.extend(
                            documents
                                .iter()
                                .flat_map(|d| d.report.diagnostics())
                                .map(|d| d.rule.clone()),
                        );
                        (depth, found)
                    })
                    .collect::<Vec<_>>()
            })
            .expect("spawn")
            .join()
            .expect("no stack overflow")
    };
    for (depth, found) in on_a_small_stack(Limits::default(), vec![150, 199, 200, 300, 505]) {
        // pydantic refuses a request nested deeper than 200 levels (the
        // document counted: state nested 200 deep); zod and JSON.parse
        // take any depth, and so do the streams' receivers.
        let refused: &[&str] = if depth >= 200 {
            &["nesting-refused-by-servers"]
        } else {
            &[]
        };
        assert_eq!(found, refused, "depth {depth}");
    }
    for (depth, found) in on_a_small_stack(Limits::default(), vec![600]) {
        // The request's and the snapshot's (a delta after a snapshot that
        // was not read may be reported too).
        assert_eq!(
            found[..2],
            ["nesting-too-deep", "nesting-too-deep"],
            "depth {depth}"
        );
    }
    let report = Validator::new()
        .expect("validator")
        .validate(Kind::RunAgentInput, request(600).as_bytes());
    let finding = &report.diagnostics()[0];
    assert!(
        finding.message.contains("512 levels") && finding.message.contains("agui-lint's own limit"),
        "{}",
        finding.message
    );
    let raised = Limits::default().with_max_depth(agui_lint::MAX_DEPTH_CAP);
    for (depth, found) in on_a_small_stack(raised, vec![2040]) {
        assert_eq!(found, ["nesting-refused-by-servers"], "depth {depth}");
    }
}

#[test]
fn limits_are_command_line_flags_and_config_keys() {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(
        dir.path().join("big.json"),
        format!(
            r#"{{"id": "m1", "role": "user", "content": "{}"}}"#,
            "x".repeat(2000)
        ),
    )
    .expect("write");
    std::fs::write(
        dir.path().join("lines.jsonl"),
        format!(
            "{{\"id\": \"m1\", \"role\": \"user\", \"content\": \"hi\"}}\n{{\"id\": \"m2\", \"role\": \"user\", \"content\": \"{}\"}}\n",
            "x".repeat(2000)
        ),
    )
    .expect("write");
    let run = |args: &[&str]| {
        let output = cargo_bin_cmd!("agui-lint")
            .args(args)
            .current_dir(dir.path())
            .output()
            .expect("run");
        let report: Value = serde_json::from_slice(&output.stdout).expect("JSON");
        let found: Vec<(Option<u64>, String)> = report["documents"]
            .as_array()
            .expect("documents")
            .iter()
            .flat_map(|d| {
                d["diagnostics"]
                    .as_array()
                    .expect("diagnostics")
                    .iter()
                    .map(|x| {
                        (
                            d["record"].as_u64(),
                            x["rule"].as_str().expect("rule").to_string(),
                        )
                    })
                    .collect::<Vec<_>>()
            })
            .collect();
        (output.status.code(), found)
    };
    std::fs::write(
        dir.path().join("events.sse"),
        format!(
            "data: {{\"type\": \"RUN_ERROR\", \"message\": \"m\"}}\n\ndata: {{\"type\": \"CUSTOM\", \"name\": \"{}\", \"value\": 1}}\n\n",
            "x".repeat(2000)
        ),
    )
    .expect("write");
    let (code, found) = run(&[
        "check",
        "big.json",
        "events.sse",
        "lines.jsonl",
        "--format",
        "json",
        "--max-document-size",
        "1K",
    ]);
    assert_eq!(code, Some(1));
    assert_eq!(
        found,
        [
            (None, "document-too-large".to_string()),
            (Some(2), "document-too-large".to_string()),
            (Some(2), "document-too-large".to_string())
        ]
    );
    std::fs::write(
        dir.path().join("agui-lint.toml"),
        "[limits]\nmax-document-bytes = 1024\n",
    )
    .expect("config");
    let (_, found) = run(&["check", "big.json", "--format", "json"]);
    assert_eq!(found, [(None, "document-too-large".to_string())]);
    let bad = cargo_bin_cmd!("agui-lint")
        .args(["check", "big.json", "--max-document-size", "lots"])
        .current_dir(dir.path())
        .output()
        .expect("run");
    assert_eq!(bad.status.code(), Some(2));
}

#[test]
fn encodings_and_broken_records_in_one_capture_are_each_reported() {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut capture = Vec::new();
    capture.extend_from_slice(
        b"\xef\xbb\xbf{\"id\": \"m1\", \"role\": \"user\", \"content\": \"hi\"}\r\n",
    );
    capture.extend_from_slice(b"{\"id\": \"m2\", \"role\": \"user\", \"content\": \"caf\xe9\"}\n");
    capture.extend_from_slice(b"{\"id\": \"m3\", \"role\": \"user\",\x00 \"content\": \"hi\"}\n");
    capture.extend_from_slice(b"{\"id\": \"m4\", \"role\": \"user\", \"content\": \"hi\"}\n");
    capture.extend_from_slice(b"{\"id\": \"m5\", \"role\": \"us");
    std::fs::write(dir.path().join("capture.jsonl"), &capture).expect("write");
    let output = cargo_bin_cmd!("agui-lint")
        .args(["check", "capture.jsonl", "--format", "jsonl"])
        .current_dir(dir.path())
        .output()
        .expect("run");
    assert_eq!(output.status.code(), Some(1));
    let records: Vec<(u64, Vec<String>)> = String::from_utf8_lossy(&output.stdout)
        .lines()
        .map(|line| {
            let d: Value = serde_json::from_str(line).expect("JSON");
            let rules = d["diagnostics"]
                .as_array()
                .expect("diagnostics")
                .iter()
                .map(|x| x["rule"].as_str().expect("rule").to_string())
                .collect();
            (d["record"].as_u64().expect("record"), rules)
        })
        .collect();
    assert_eq!(
        records,
        [
            (1, vec!["byte-order-mark".to_string()]),
            (2, vec!["invalid-json".to_string()]),
            (3, vec!["invalid-json".to_string()]),
            (4, vec![]),
            (5, vec!["invalid-json".to_string()]),
        ]
    );
}

#[test]
fn ten_thousand_records_with_a_hundred_broken_lose_nothing() {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut state: u64 = 42;
    let mut broken = std::collections::BTreeSet::new();
    while broken.len() < 100 {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        broken.insert(1 + (state >> 33) % 10_000);
    }
    let mut text = String::new();
    for record in 1..=10_000u64 {
        if broken.contains(&record) {
            text.push_str(&format!(
                "{{\"id\": \"m{record}\", \"role\": \"user\", \"content\": \"hi\"\n"
            ));
        } else {
            text.push_str(&format!(
                "{{\"id\": \"m{record}\", \"role\": \"user\", \"content\": \"hi\"}}\n"
            ));
        }
    }
    std::fs::write(dir.path().join("big.jsonl"), text).expect("write");
    let output = cargo_bin_cmd!("agui-lint")
        .args(["check", "big.jsonl", "--format", "json"])
        .current_dir(dir.path())
        .output()
        .expect("run");
    assert_eq!(output.status.code(), Some(1));
    let report: Value = serde_json::from_slice(&output.stdout).expect("JSON");
    let documents = report["documents"].as_array().expect("documents");
    assert_eq!(documents.len(), 10_000);
    assert_eq!(report["summary"]["documents"], 10_000);
    for (i, document) in documents.iter().enumerate() {
        let record = document["record"].as_u64().expect("record");
        assert_eq!(record, i as u64 + 1, "records in order, none missing");
        let rules: Vec<&str> = document["diagnostics"]
            .as_array()
            .expect("diagnostics")
            .iter()
            .filter_map(|d| d["rule"].as_str())
            .collect();
        if broken.contains(&record) {
            assert_eq!(rules, ["invalid-json"], "record {record}");
        } else {
            assert!(rules.is_empty(), "record {record}: {rules:?}");
        }
    }
}

#[test]
fn findings_past_the_limit_are_counted_in_one_summary_as_serious_as_they_are() {
    let validator = Validator::new()
        .expect("validator")
        .with_settings(Settings::default().with_limits(Limits::default().with_max_findings(10)));
    // 40 messages with an empty id (warnings), and 30 repetitions of one key
    // (errors): the first ten findings are reported, the rest counted.
    let messages: Vec<String> = (0..40)
        .map(|_| r#"{"id": "", "role": "user", "content": "hi"}"#.to_string())
        .collect();
    let repeated = [r#""k": 1"#; 31].join(", ");
    let body = format!(
        r#"{{"threadId": "t", "runId": "r", "state": {{{repeated}}}, "messages": [{}]}}"#,
        messages.join(", ")
    );
    let report = validator.validate(Kind::RunAgentInput, body.as_bytes());
    let found = rules(&report);
    assert_eq!(found.len(), 11, "{found:?}");
    let summary = report
        .diagnostics()
        .iter()
        .find(|d| d.rule == "too-many-findings")
        .expect("a summary");
    // The ten kept are the parser's first ten repeated keys; 20 more of
    // them, the 40 empty ids and the 39 ids that repeat the first are
    // counted.
    assert_eq!(
        summary.message,
        "99 findings beyond the first 10 were counted, not reported: \
         40 empty-id (warning), 39 duplicate-message-id (error), 20 duplicate-key (error)"
    );
    assert_eq!(summary.severity, agui_lint::Severity::Error);
    assert!(!report.is_valid());

    // The empty ids repeat: the errors among them keep the summary an
    // error.
    let body = format!(
        r#"{{"threadId": "t", "runId": "r", "messages": [{}]}}"#,
        messages.join(", ")
    );
    let report = validator.validate(Kind::RunAgentInput, body.as_bytes());
    let summary = report
        .diagnostics()
        .iter()
        .find(|d| d.rule == "too-many-findings")
        .expect("a summary");
    assert_eq!(summary.severity, agui_lint::Severity::Error);
    assert_eq!(report.diagnostics().len(), 11);

    // Only warnings counted (the repeats ignored): the summary is a
    // warning and the document valid.
    let warnings_only = Validator::new().expect("validator").with_settings(
        Settings::default()
            .with_limits(Limits::default().with_max_findings(10))
            .ignore(["duplicate-message-id"])
            .expect("a rule"),
    );
    let report = warnings_only.validate(Kind::RunAgentInput, body.as_bytes());
    let summary = report
        .diagnostics()
        .iter()
        .find(|d| d.rule == "too-many-findings")
        .expect("a summary");
    assert_eq!(summary.severity, agui_lint::Severity::Warning);
    assert!(report.is_valid());

    // An ignored rule takes no room and is not counted.
    let quiet = Validator::new().expect("validator").with_settings(
        Settings::default()
            .with_limits(Limits::default().with_max_findings(10))
            .ignore(["empty-id", "duplicate-message-id"])
            .expect("rules"),
    );
    let report = quiet.validate(Kind::RunAgentInput, body.as_bytes());
    assert!(report.diagnostics().is_empty(), "{:?}", rules(&report));
}

/// A tool call whose arguments outgrow the stream's state limit has its
/// text dropped and is reported once (`state-over-budget`), not checked as
/// JSON; the text goes back to the budget when the call ends, so the next
/// call is held and checked again.
#[test]
fn streamed_arguments_are_held_to_the_state_limit() {
    let validator = Validator::new().expect("validator").with_settings(
        Settings::default().with_limits(Limits::default().with_max_state_bytes(1024)),
    );
    let mut stream = EventStream::new();
    let mut events = vec![
        json!({"type": "RUN_STARTED", "threadId": "t", "runId": "r"}),
        json!({"type": "TOOL_CALL_START", "toolCallId": "big", "toolCallName": "f"}),
    ];
    events.extend(
        (0..100).map(
            |_| json!({"type": "TOOL_CALL_ARGS", "toolCallId": "big", "delta": "x".repeat(100)}),
        ),
    );
    events.extend([
        json!({"type": "TOOL_CALL_END", "toolCallId": "big"}),
        json!({"type": "TOOL_CALL_START", "toolCallId": "small", "toolCallName": "f"}),
        json!({"type": "TOOL_CALL_ARGS", "toolCallId": "small", "delta": "{\"a\": "}),
        json!({"type": "TOOL_CALL_END", "toolCallId": "small"}),
        json!({"type": "RUN_FINISHED", "threadId": "t", "runId": "r"}),
    ]);
    let mut found = stream_findings(&validator, &mut stream, &events);
    found.extend(
        validator
            .finish_stream(&mut stream)
            .into_iter()
            .map(|d| (d.rule, d.message)),
    );
    let over: Vec<_> = found
        .iter()
        .filter(|(rule, _)| rule == "state-over-budget")
        .collect();
    assert_eq!(over.len(), 1, "{found:?}");
    assert!(over[0].1.contains("tool call 'big'"), "{found:?}");
    let not_json: Vec<_> = found
        .iter()
        .filter(|(rule, _)| rule == "tool-call-args-not-json")
        .collect();
    assert_eq!(not_json.len(), 1, "{found:?}");
    assert!(not_json[0].1.contains("tool call 'small'"), "{found:?}");
}

/// The default state budget counts memory and fits a 10 MB snapshot of
/// 600,000 small keys (about 82 MiB held); a state past a budget is
/// refused with the total it was compared to, not the last item's size.
#[test]
fn a_ten_megabyte_snapshot_fits_the_default_state_budget() {
    let snapshot: serde_json::Map<String, Value> = (0..600_000)
        .map(|i| (format!("state-key-{i:06}"), json!(i % 10)))
        .collect();
    let events = [
        json!({"type": "RUN_STARTED", "threadId": "t", "runId": "r"}),
        json!({"type": "STATE_SNAPSHOT", "snapshot": snapshot}),
        json!({"type": "STATE_DELTA", "delta": [{"op": "test", "path": "/state-key-000001", "value": 7}]}),
    ];
    let run = |validator: &Validator| stream_findings(validator, &mut EventStream::new(), &events);
    let bytes = serde_json::to_vec(&events[1]).expect("JSON");
    assert!(bytes.len() > 10_000_000, "{}", bytes.len());
    let found = run(&Validator::new().expect("validator"));
    let rules: Vec<&str> = found.iter().map(|(rule, _)| rule.as_str()).collect();
    assert_eq!(rules, ["state-delta-not-applicable"], "{found:?}");

    let small = Validator::new().expect("validator").with_settings(
        Settings::default().with_limits(Limits::default().with_max_state_bytes(1 << 20)),
    );
    let found = run(&small);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].0, "state-over-budget");
    assert!(
        found[0].1.contains("in memory") && found[0].1.contains("over the limit of 1 MiB"),
        "{found:?}"
    );
}

/// A snapshot the fast path reads is kept as its text until a delta
/// needs it, and charged what it would take as a value: at every budget
/// around that size, the events fed one by one (each snapshot read without
/// a value) report what the same events checked as one document (parsed
/// into values) report.
#[test]
fn a_snapshot_kept_as_text_is_charged_what_its_value_takes() {
    let events = [
        json!({"type": "RUN_STARTED", "threadId": "t", "runId": "r", "protocolVersion": "1.1"}),
        json!({"type": "STATE_SNAPSHOT", "snapshot": {"a": [1, "\u{e9}\n"], "b": {"c": null}}}),
        json!({"type": "STATE_DELTA", "delta": [{"op": "add", "path": "/a/-", "value": 2}]}),
        json!({"type": "STATE_SNAPSHOT", "snapshot": {"x": "y", "list": [true, 1.5, {}]}}),
        json!({"type": "STATE_DELTA", "delta": [{"op": "replace", "path": "/x", "value": "z"}]}),
        json!({"type": "STATE_DELTA", "delta": [{"op": "remove", "path": "/nope"}]}),
        json!({"type": "RUN_FINISHED", "threadId": "t", "runId": "r"}),
    ];
    let document = serde_json::to_vec(&events).expect("JSON");
    let mut outcomes = std::collections::BTreeSet::new();
    for limit in (200..1_400).step_by(20) {
        let validator = Validator::new().expect("validator").with_settings(
            Settings::default().with_limits(Limits::default().with_max_state_bytes(limit)),
        );
        let streamed = stream_findings(&validator, &mut EventStream::new(), &events);
        let whole: Vec<(String, String)> = validator
            .validate(Kind::Events, &document)
            .diagnostics()
            .iter()
            .map(|d| (d.rule.clone(), d.message.clone()))
            .collect();
        assert_eq!(streamed, whole, "a state limit of {limit} bytes");
        outcomes.insert(streamed);
    }
    // The budgets tried refuse both snapshots, one, and neither.
    assert!(outcomes.len() >= 3, "{outcomes:?}");
}

/// One validator holds the states of every stream it follows at once to a
/// total (`max-total-state-bytes`): with two streams each holding a state
/// within its own limit, a third is refused with a finding that names the
/// total; once one of the two is dropped, its share is given back and the
/// third stream's next snapshot is kept. Clones of the validator (a guard's
/// per-request handles) share the total.
#[test]
fn the_streams_one_validator_follows_share_one_state_total() {
    let snapshot = |n: usize| {
        let state: serde_json::Map<String, Value> = (0..n)
            .map(|i| (format!("key-{i:05}"), json!("v")))
            .collect();
        json!({"type": "STATE_SNAPSHOT", "snapshot": state})
    };
    let started = json!({"type": "RUN_STARTED", "threadId": "t", "runId": "r"});
    let validator = Validator::new().expect("validator").with_settings(
        Settings::default().with_limits(
            Limits::default()
                .with_max_state_bytes(1 << 20)
                .with_max_total_state_bytes(1 << 20),
        ),
    );
    // About 400 KiB held each: two fit the total, three do not.
    let big = [started.clone(), snapshot(3_000)];
    let (mut a, mut b, mut c) = (EventStream::new(), EventStream::new(), EventStream::new());
    assert_eq!(stream_findings(&validator, &mut a, &big), []);
    assert_eq!(stream_findings(&validator.clone(), &mut b, &big), []);
    let found = stream_findings(&validator, &mut c, &big);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].0, "state-over-budget");
    assert!(
        found[0]
            .1
            .contains("the 1 MiB the streams checked at once may hold in all"),
        "{found:?}"
    );
    // Alone, the same stream fits its own limit.
    let alone = Validator::new().expect("validator").with_settings(
        Settings::default().with_limits(Limits::default().with_max_state_bytes(1 << 20)),
    );
    assert_eq!(stream_findings(&alone, &mut EventStream::new(), &big), []);
    drop(a);
    assert_eq!(stream_findings(&validator, &mut c, &big[1..]), []);
}

/// The (rule, message) of each finding `events`, fed one by one to
/// `stream`, bring.
fn stream_findings(
    validator: &Validator,
    stream: &mut EventStream,
    events: &[Value],
) -> Vec<(String, String)> {
    let mut found = Vec::new();
    for event in events {
        let bytes = serde_json::to_vec(event).expect("JSON");
        let report = validator.validate_in_stream(stream, Some(Kind::Event), &bytes, None, None);
        found.extend(
            report
                .diagnostics()
                .iter()
                .map(|d| (d.rule.clone(), d.message.clone())),
        );
    }
    found
}

/// An archive of `runs` exchanges, each a run request and an SSE stream of
/// `events` events, the last of each run with a field no version has.
fn session(runs: usize, events: usize) -> String {
    let entries: Vec<Value> = (0..runs)
        .map(|k| {
            let (thread, run) = (format!("t{k}"), format!("r{k}"));
            let mut body = format!(
                "data: {{\"type\":\"RUN_STARTED\",\"threadId\":\"{thread}\",\"runId\":\"{run}\"}}\n\n"
            );
            for i in 0..events {
                body.push_str(&format!(
                    "data: {{\"type\":\"CUSTOM\",\"name\":\"n{i}\",\"value\":\"{}\"}}\n\n",
                    "v".repeat(100)
                ));
            }
            body.push_str(&format!(
                "data: {{\"type\":\"RUN_FINISHED\",\"threadId\":\"{thread}\",\"runId\":\"{run}\",\"notAField\":1}}\n\n"
            ));
            let request = serde_json::json!({
                "threadId": thread, "runId": run, "state": {}, "messages": [],
                "tools": [], "context": [], "forwardedProps": {}
            });
            serde_json::json!({
                "startedDateTime": "2026-01-01T00:00:00Z", "time": 1,
                "request": {"method": "POST", "url": "http://127.0.0.1/agent", "httpVersion": "HTTP/1.1",
                    "headers": [], "queryString": [], "cookies": [], "headersSize": -1, "bodySize": -1,
                    "postData": {"mimeType": "application/json", "text": request.to_string()}},
                "response": {"status": 200, "statusText": "OK", "httpVersion": "HTTP/1.1",
                    "headers": [{"name": "Content-Type", "value": "text/event-stream"}],
                    "cookies": [], "headersSize": -1, "bodySize": -1, "redirectURL": "",
                    "content": {"size": body.len(), "mimeType": "text/event-stream", "text": body}},
                "cache": {}, "timings": {"send": 0, "wait": 1, "receive": 0}
            })
        })
        .collect();
    serde_json::json!({"log": {"version": "1.2", "creator": {"name": "t", "version": "1"}, "entries": entries}})
        .to_string()
}

#[test]
fn an_archive_over_the_document_limit_is_checked_with_its_events() {
    // Eight runs of ~140 KB each against a document limit of 256 KB: the
    // archive is read whole and each body judged against the document
    // limit, as a long proxy session over 64 MiB is by default.
    let dir = tempfile::tempdir().expect("temp dir");
    let archive = session(8, 1000);
    assert!(archive.len() > 1 << 20);
    std::fs::write(dir.path().join("session.har"), &archive).expect("write");
    std::fs::write(dir.path().join("session.json"), &archive).expect("write");
    for name in ["session.har", "session.json"] {
        let output = cargo_bin_cmd!("agui-lint")
            .args([
                "check",
                name,
                "--format",
                "json",
                "--max-document-size",
                "256K",
            ])
            .current_dir(dir.path())
            .output()
            .expect("run");
        let report: Value = serde_json::from_slice(&output.stdout).expect("JSON");
        let rules: Vec<String> = report["documents"]
            .as_array()
            .expect("documents")
            .iter()
            .flat_map(|d| d["diagnostics"].as_array().cloned().unwrap_or_default())
            .map(|d| d["rule"].as_str().unwrap_or("").to_owned())
            .collect();
        assert_eq!(rules, vec!["unknown-field"; 8], "{name}");
    }
    // Past the archive limit, one finding says which limit.
    let output = cargo_bin_cmd!("agui-lint")
        .args([
            "check",
            "session.har",
            "--max-archive-size",
            "1M",
            "--max-document-size",
            "256K",
        ])
        .current_dir(dir.path())
        .output()
        .expect("run");
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(
        text.contains("document-too-large") && text.contains("the archive is"),
        "{text}"
    );
    assert!(text.contains("--max-archive-size"), "{text}");
}
