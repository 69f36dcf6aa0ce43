//! The fast path and the full path must agree: for any bytes checked as a
//! RunAgentInput, the fast path says "clean" exactly when the full path
//! (parse, schema, every rule) reports nothing, judged by the same
//! protocol version.
//!
//! Held on every fixture of every version folder (`fixtures/<version>/`,
//! judged with the folder's version as the configured default;
//! RunAgentInput fixtures as they are, the fixtures of the types it holds
//! wrapped into one), on the benchmark's payloads of each version,
//! on boundary cases written here, and on random mutations of all of them
//! (proptest): structural edits of the parsed document (keys removed,
//! added, values nulled, copied from elsewhere so ids collide, replaced by
//! interesting strings and numbers) and textual ones (repeated keys,
//! unpaired surrogate escapes, byte order marks, cuts).

use std::path::{Path, PathBuf};
use std::sync::LazyLock;

use agui_lint::{fuzzing, Protocol};
use proptest::prelude::*;
use serde_json::{json, Value};

#[path = "../benches/payloads/mod.rs"]
#[allow(dead_code)]
mod payloads;

/// A document to start from, and the version undeclared documents are
/// judged as while it is checked.
struct Seed {
    name: String,
    bytes: Vec<u8>,
    default: Protocol,
}

/// Asserts the paths agree on `bytes` with `default` judging undeclared
/// documents, and says which way they went.
fn agree(bytes: &[u8], default: Protocol, what: &str) -> bool {
    let (fast, full) = fuzzing::fast_and_full(bytes, default).expect("the validator builds");
    if fuzzing::beyond_the_fast_path(bytes) {
        // Past the parser's depth, the full path alone judges.
        assert!(
            !fast,
            "{what}: the fast path read a document past the parser's depth"
        );
        return full.diagnostics().is_empty();
    }
    let reported: Vec<_> = full
        .diagnostics()
        .iter()
        .map(|d| format!("{} at '{}': {}", d.rule, d.pointer, d.message))
        .collect();
    assert_eq!(
        fast,
        reported.is_empty(),
        "{what} (default {default}): the fast path says {}, the full path reports {reported:#?}\n{}",
        if fast { "clean" } else { "not clean" },
        String::from_utf8_lossy(&bytes[..bytes.len().min(2000)])
    );
    // And the validator, which takes the fast path first, reports what
    // the full path reports, to the last position and note.
    fuzzing::differential_as(bytes, default);
    fast
}

/// A RunAgentInput holding `messages` and `tools`.
fn input_with(messages: Value, tools: Value) -> Value {
    json!({"threadId": "thread-1", "runId": "run-1", "state": {"step": 1},
           "messages": messages, "tools": tools, "context": [],
           "forwardedProps": {}})
}

/// Every document the tests start from: the fixtures of every version
/// folder, RunAgentInputs made of the fixtures of the types it holds, and
/// the benchmark payloads of each version.
static SEEDS: LazyLock<Vec<Seed>> = LazyLock::new(|| {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures");
    let mut files: Vec<PathBuf> = walkdir::WalkDir::new(&root)
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_file())
        .map(walkdir::DirEntry::into_path)
        .collect();
    files.sort();
    let mut seeds = Vec::new();
    for path in files {
        let Ok(bytes) = std::fs::read(&path) else {
            continue;
        };
        let name = path
            .strip_prefix(&root)
            .unwrap_or(&path)
            .display()
            .to_string();
        // fixtures/<version>/<kind>/...: every file is in a version folder.
        let (folder, within) = name.split_once('/').expect("a version folder");
        let default: Protocol = folder.parse().expect("a version folder's name");
        let is = |kind: &str| within.starts_with(&format!("{kind}/"));
        let parsed = serde_json::from_slice::<Value>(&bytes).ok();
        let wrapped = match parsed {
            Some(message) if is("message") => Some(input_with(json!([message]), json!([]))),
            Some(messages) if is("messages") => Some(input_with(messages, json!([]))),
            Some(tool) if is("tool") => Some(input_with(json!([]), json!([tool]))),
            Some(tools) if is("tools") => Some(input_with(json!([]), tools)),
            Some(part) if is("input-content") => Some(input_with(
                json!([{"id": "m1", "role": "user", "content": [part]}]),
                json!([]),
            )),
            Some(context) if is("context") => {
                let mut input = input_with(json!([]), json!([]));
                input["context"] = json!([context]);
                Some(input)
            }
            Some(entry) if is("resume-entry") => {
                let mut input = input_with(json!([]), json!([]));
                input["resume"] = json!([entry]);
                Some(input)
            }
            _ => None,
        };
        let seed = |name: String, bytes: Vec<u8>| Seed {
            name,
            bytes,
            default,
        };
        if let Some(wrapped) = wrapped {
            seeds.push(seed(format!("{name} (wrapped)"), payloads::bytes(&wrapped)));
        }
        if name.ends_with(".jsonl") {
            for (i, line) in bytes.split(|&b| b == b'\n').enumerate() {
                if !line.is_empty() {
                    seeds.push(seed(format!("{name} line {}", i + 1), line.to_vec()));
                }
            }
        }
        seeds.push(seed(name, bytes));
    }
    for (name, payload, default) in [
        ("small", payloads::small(), Protocol::V0),
        ("medium", payloads::medium(), Protocol::V0),
        ("1.1 small", payloads::small_1_1(), Protocol::V1_1),
        ("1.1 medium", payloads::medium_1_1(), Protocol::V1_1),
    ] {
        let one_error = payloads::with_one_error(payload.clone());
        seeds.push(Seed {
            name: format!("bench {name}"),
            bytes: payloads::bytes(&payload),
            default,
        });
        seeds.push(Seed {
            name: format!("bench {name} one-error"),
            bytes: payloads::bytes(&one_error),
            default,
        });
    }
    seeds
});

#[test]
fn every_fixture_and_payload_gets_the_same_verdict() {
    let mut clean = 0;
    let mut clean_by_version = [0; 3];
    for seed in SEEDS.iter() {
        if agree(&seed.bytes, seed.default, &seed.name) {
            clean += 1;
            let declared = serde_json::from_slice::<Value>(&seed.bytes)
                .ok()
                .and_then(|v| v["protocolVersion"].as_str().map(str::to_owned));
            let judged = declared
                .map(|d| Protocol::from_declaration(&d).judged_as())
                .unwrap_or(seed.default);
            let at = Protocol::ALL.iter().position(|&p| p == judged);
            if let Some(at) = at {
                clean_by_version[at] += 1;
            }
        }
    }
    println!(
        "{} seeds, {clean} clean (by version 1.1, 1.0, 0: {clean_by_version:?})",
        SEEDS.len()
    );
    // Both verdicts are exercised: many seeds are clean RunAgentInputs,
    // of every version.
    assert!(
        clean >= 60,
        "only {clean} of {} seeds are clean",
        SEEDS.len()
    );
    assert!(SEEDS.len() - clean >= 100);
    assert!(
        clean_by_version.iter().all(|&n| n >= 3),
        "clean seeds by version (1.1, 1.0, 0): {clean_by_version:?}"
    );
}

#[test]
fn the_large_payloads_get_the_same_verdict() {
    for (large, default) in [
        (payloads::large(), Protocol::V0),
        (payloads::large_1_1(), Protocol::V1_1),
    ] {
        assert!(agree(&payloads::bytes(&large), default, "bench large"));
        assert!(!agree(
            &payloads::bytes(&payloads::with_one_error(large)),
            default,
            "bench large one-error"
        ));
    }
}

#[test]
fn clean_1x_requests_take_the_fast_path() {
    // The official client's requests are clean and judged by the version
    // they declare, whatever the configured default.
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/1.0/run-agent-input/valid");
    let mut official = 0;
    for entry in std::fs::read_dir(dir).expect("the 1.0 fixtures") {
        let path = entry.expect("an entry").path();
        if !path.display().to_string().contains("official-client-") {
            continue;
        }
        let bytes = std::fs::read(&path).expect("a fixture");
        for default in Protocol::ALL {
            let (fast, full) = fuzzing::fast_and_full(&bytes, default).expect("validator");
            assert!(fast, "{} under {default}", path.display());
            assert_eq!(full.protocol(), Protocol::V1_0);
        }
        official += 1;
    }
    assert!(official >= 3, "{official} official client requests");
    let small = payloads::bytes(&payloads::small_1_1());
    for default in Protocol::ALL {
        assert!(
            fuzzing::fast_and_full(&small, default)
                .expect("validator")
                .0
        );
    }
}

/// A clean input whose only tool's `parameters` nests `depth` levels.
fn nested_parameters(depth: usize) -> Vec<u8> {
    let mut parameters = String::from("{\"type\":\"object\"}");
    for _ in 1..depth {
        parameters = format!("{{\"type\":\"object\",\"properties\":{{\"a\":{parameters}}}}}");
    }
    let text = format!(
        r#"{{"threadId":"t","runId":"r","state":null,"messages":[],"context":[],"forwardedProps":null,
            "tools":[{{"name":"deep","description":"d","parameters":{parameters}}}]}}"#
    );
    text.into_bytes()
}

/// A clean 1.1 input of `count` user messages, the first with
/// `metadata` nesting `depth` objects (the document itself, the messages
/// array and the message are three more levels).
fn nested_metadata(depth: usize, count: usize, nested_at: usize) -> Vec<u8> {
    let metadata = format!("{}1{}", r#"{"a":"#.repeat(depth), "}".repeat(depth));
    let messages: Vec<String> = (0..count)
        .map(|i| {
            let extra = if i == nested_at {
                format!(r#","metadata":{metadata}"#)
            } else {
                String::new()
            };
            format!(r#"{{"id":"m{i}","role":"user","content":"hi"{extra}}}"#)
        })
        .collect();
    format!(
        r#"{{"threadId":"t","runId":"r","protocolVersion":"1.1","messages":[{}]}}"#,
        messages.join(",")
    )
    .into_bytes()
}

#[test]
fn message_nesting_at_the_parsers_limit_gets_the_same_verdict() {
    // With few messages, and with more than the fast path holds: the
    // first message is then held, the last read from its text on its own
    // (counting the levels above it).
    for (count, nested_at) in [(1, 0), (5000, 0), (5000, 4999)] {
        for depth in [123, 124, 125, 126] {
            let bytes = nested_metadata(depth, count, nested_at);
            let clean = agree(
                &bytes,
                Protocol::V1_1,
                &format!("metadata nested {depth} in message {nested_at} of {count}"),
            );
            // Within agui-lint's depth limit every one is clean: past the
            // parser's 128th level the full path checks it on a grown stack.
            assert!(clean, "{depth} in message {nested_at} of {count}");
            // The fast path reads 3 + 124 levels and leaves a 128th to the
            // full path.
            let (fast, _) = fuzzing::fast_and_full(&bytes, Protocol::V1_1).expect("validator");
            assert_eq!(
                fast,
                depth <= 124,
                "{depth} in message {nested_at} of {count}"
            );
        }
    }
}

#[test]
fn boundary_cases_get_the_same_verdict() {
    // Depth of `parameters` around the parser's limit (two levels per
    // `properties` step, counted in `nested_parameters`).
    for depth in [1, 30, 61, 62, 63, 64, 65] {
        agree(
            &nested_parameters(depth),
            Protocol::V0,
            &format!("parameters nested {depth}"),
        );
    }
    let cases: &[&str] = &[
        // Repeated keys: typed, in `any` slots, in parameters.
        r#"{"threadId":"t","threadId":"t","runId":"r","state":null,"messages":[],"tools":[],"context":[],"forwardedProps":null}"#,
        r#"{"threadId":"t","runId":"r","state":{"a":1,"a":2},"messages":[],"tools":[],"context":[],"forwardedProps":null}"#,
        r#"{"threadId":"t","runId":"r","state":null,"messages":[],"tools":[{"name":"a","description":"d","parameters":{"type":"object","type":"object"}}],"context":[],"forwardedProps":null}"#,
        // A repeated key among many (past the linear scan).
        r#"{"threadId":"t","runId":"r","state":{"a":1,"b":1,"c":1,"d":1,"e":1,"f":1,"g":1,"h":1,"i":1,"j":1,"k":1,"l":1,"m":1,"n":1,"o":1,"p":1,"q":1,"r":1,"a":1},"messages":[],"tools":[],"context":[],"forwardedProps":null}"#,
        // Escaped keys are the keys they spell.
        r#"{"\u0074hreadId":"t","runId":"r","state":null,"messages":[],"tools":[],"context":[],"forwardedProps":null}"#,
        r#"{"threadId":"t","runId":"r","state":{"a":1,"\u0061":2},"messages":[],"tools":[],"context":[],"forwardedProps":null}"#,
        // Numbers at the edge of the interoperable range, everywhere.
        r#"{"threadId":"t","runId":"r","state":{"n":9007199254740991,"m":-9007199254740991,"f":1.5},"messages":[],"tools":[],"context":[],"forwardedProps":null}"#,
        r#"{"threadId":"t","runId":"r","state":{"n":9007199254740992},"messages":[],"tools":[],"context":[],"forwardedProps":null}"#,
        r#"{"threadId":"t","runId":"r","state":null,"messages":[],"tools":[],"context":[],"forwardedProps":[1e300]}"#,
        r#"{"threadId":"t","runId":"r","state":null,"messages":[],"tools":[{"name":"a","description":"d","parameters":{"type":"object","maxProperties":18446744073709551615}}],"context":[],"forwardedProps":null}"#,
        // Unpaired surrogates, typed and in parameters.
        r#"{"threadId":"t\ud800","runId":"r","state":null,"messages":[],"tools":[],"context":[],"forwardedProps":null}"#,
        r#"{"threadId":"t","runId":"r","state":null,"messages":[],"tools":[{"name":"a","description":"\ud83d\ude00","parameters":{"type":"object","title":"\udc00"}}],"context":[],"forwardedProps":null}"#,
        // An array where an object belongs (serde's derive would take it).
        r#"{"threadId":"t","runId":"r","state":null,"messages":[["m1","user","hi"]],"tools":[],"context":[],"forwardedProps":null}"#,
        r#"["t","r",null,[],[],[],null]"#,
        // null in optional and in `any` keys.
        r#"{"threadId":"t","runId":"r","parentRunId":null,"state":null,"messages":[],"tools":[],"context":[],"forwardedProps":null}"#,
        r#"{"threadId":"t","runId":"r","state":null,"messages":[{"id":"m","role":"assistant","content":null}],"tools":[],"context":[],"forwardedProps":null}"#,
        r#"{"threadId":"t","runId":"r","state":null,"messages":[],"tools":[{"name":"a","description":"d","parameters":null}],"context":[],"forwardedProps":null}"#,
        // Activity content must be an object; metadata may be anything.
        r#"{"threadId":"t","runId":"r","state":null,"messages":[{"id":"m","role":"activity","activityType":"x","content":{"a":[1,{"b":null}]}}],"tools":[],"context":[],"forwardedProps":null}"#,
        r#"{"threadId":"t","runId":"r","state":null,"messages":[{"id":"m","role":"activity","activityType":"x","content":"text"}],"tools":[],"context":[],"forwardedProps":null}"#,
        r#"{"threadId":"t","runId":"r","state":null,"messages":[{"id":"m","role":"user","content":[{"type":"image","source":{"type":"url","value":"https://x.test/a.png"},"metadata":null}]}],"tools":[],"context":[],"forwardedProps":null}"#,
        // Byte order mark, whitespace, trailing text, empty input.
        "\u{feff}{\"threadId\":\"t\",\"runId\":\"r\",\"state\":null,\"messages\":[],\"tools\":[],\"context\":[],\"forwardedProps\":null}",
        " \n{\"threadId\":\"t\",\"runId\":\"r\",\"state\":null,\"messages\":[],\"tools\":[],\"context\":[],\"forwardedProps\":null}\r\n ",
        r#"{"threadId":"t","runId":"r","state":null,"messages":[],"tools":[],"context":[],"forwardedProps":null} {}"#,
        "",
        // A result before its call; a call never answered.
        r#"{"threadId":"t","runId":"r","state":null,"messages":[{"id":"m0","role":"tool","toolCallId":"c","content":"x"},{"id":"m1","role":"assistant","toolCalls":[{"id":"c","type":"function","function":{"name":"f","arguments":"{}"}}]}],"tools":[],"context":[],"forwardedProps":null}"#,
        r#"{"threadId":"t","runId":"r","state":null,"messages":[{"id":"m1","role":"assistant","toolCalls":[{"id":"c","type":"function","function":{"name":"f","arguments":"{}"}}]},{"id":"m2","role":"user","content":"next"}],"tools":[{"name":"f","description":"d","parameters":{"type":"object"}}],"context":[],"forwardedProps":null}"#,
        r#"{"threadId":"t","runId":"r","state":null,"messages":[{"id":"m1","role":"assistant","toolCalls":[{"id":"c","type":"function","function":{"name":"f","arguments":"{\"n\":1}"}}]},{"id":"m2","role":"tool","toolCallId":"c","content":"ok"}],"tools":[{"name":"f","description":"d","parameters":{"type":"object","properties":{"n":{"type":"string"}}}}],"context":[],"forwardedProps":null}"#,
        r#"{"threadId":"t","runId":"r","state":null,"messages":[{"id":"m1","role":"assistant","toolCalls":[{"id":"c","type":"function","function":{"name":"f","arguments":"{\"n\":\"1\"}"}}]},{"id":"m2","role":"tool","toolCallId":"c","content":"ok"}],"tools":[{"name":"f","description":"d","parameters":{"type":"object","properties":{"n":{"type":"string"}}}}],"context":[],"forwardedProps":null}"#,
        // 1.x: declarations, judged by the declared version.
        r#"{"threadId":"t","runId":"r","protocolVersion":"1.1","messages":[]}"#,
        r#"{"threadId":"t","runId":"r","protocolVersion":"1.0.0","messages":[]}"#,
        r#"{"threadId":"t","runId":"r","protocolVersion":"0.0.57","state":null,"messages":[],"tools":[],"context":[],"forwardedProps":null}"#,
        r#"{"threadId":"t","runId":"r","protocolVersion":"2.0","messages":[]}"#,
        r#"{"threadId":"t","runId":"r","protocolVersion":"draft","messages":[]}"#,
        r#"{"threadId":"t","runId":"r","protocolVersion":1.1,"messages":[]}"#,
        r#"{"threadId":"t","runId":"r","protocolVersion":null,"messages":[]}"#,
        r#"{"threadId":"t","runId":"r","messages":[]}"#,
        // 1.x: null refused in the any slots.
        r#"{"threadId":"t","runId":"r","protocolVersion":"1.1","state":null,"messages":[]}"#,
        r#"{"threadId":"t","runId":"r","protocolVersion":"1.1","forwardedProps":null,"messages":[]}"#,
        r#"{"threadId":"t","runId":"r","protocolVersion":"1.1","messages":[],"tools":[{"name":"a","description":"d","parameters":null}]}"#,
        r#"{"threadId":"t","runId":"r","protocolVersion":"1.1","messages":[],"resume":[{"interruptId":"i","status":"resolved","payload":null}]}"#,
        r#"{"threadId":"t","runId":"r","protocolVersion":"1.1","messages":[{"id":"m","role":"user","content":[{"type":"text","text":"x","metadata":null}]}]}"#,
        r#"{"threadId":"t","runId":"r","protocolVersion":"1.1","messages":[{"id":"m","role":"user","content":"x","metadata":null}]}"#,
        r#"{"threadId":"t","runId":"r","protocolVersion":"1.1","messages":[{"id":"m","role":"user","content":"x","metadata":"web"}]}"#,
        r#"{"threadId":"t","runId":"r","protocolVersion":"1.1","messages":[{"id":"m","role":"user","content":"x","metadata":{"a":{"a":1,"a":2}}}]}"#,
        // 1.x: resume entries.
        r#"{"threadId":"t","runId":"r","protocolVersion":"1.1","messages":[],"resume":[{"interruptId":"i","status":"cancelled"}]}"#,
        r#"{"threadId":"t","runId":"r","protocolVersion":"1.1","messages":[],"resume":[{"interruptId":"i","status":"done"}]}"#,
        r#"{"threadId":"t","runId":"r","protocolVersion":"1.1","messages":[],"resume":[{"interruptId":"i","status":"resolved"},{"interruptId":"i","status":"cancelled"}]}"#,
        r#"{"threadId":"t","runId":"r","protocolVersion":"1.1","messages":[],"resume":[{"interruptId":"i","status":"resolved","metadata":{"ag-ui":{"x":1}}}]}"#,
        // 1.x: encryptedValueType is 1.1's; with and without its value.
        r#"{"threadId":"t","runId":"r","protocolVersion":"1.0","messages":[{"id":"m","role":"reasoning","content":"x","encryptedValue":"e","encryptedValueType":"k"}]}"#,
        r#"{"threadId":"t","runId":"r","protocolVersion":"1.1","messages":[{"id":"m","role":"reasoning","content":"x","encryptedValue":"e","encryptedValueType":"k"}]}"#,
        r#"{"threadId":"t","runId":"r","protocolVersion":"1.1","messages":[{"id":"m","role":"reasoning","content":"x","encryptedValueType":"k"}]}"#,
        // 1.x: tools without parameters, called; an activity message.
        r#"{"threadId":"t","runId":"r","protocolVersion":"1.1","messages":[{"id":"m1","role":"assistant","toolCalls":[{"id":"c","type":"function","function":{"name":"f","arguments":"{\"n\":1}"}}]},{"id":"m2","role":"tool","toolCallId":"c","content":"ok"}],"tools":[{"name":"f","description":"d","metadata":{"k":1}}]}"#,
        r#"{"threadId":"t","runId":"r","protocolVersion":"1.1","messages":[{"id":"m1","role":"assistant","toolCalls":[{"id":"c","type":"function","function":{"name":"f","arguments":"[]"}}]},{"id":"m2","role":"tool","toolCallId":"c","content":"ok"}],"tools":[{"name":"f","description":"d"}]}"#,
        r#"{"threadId":"t","runId":"r","protocolVersion":"1.1","messages":[{"id":"m","role":"activity","activityType":"x","content":{"a":1}}]}"#,
        // An empty `parameters` declares nothing since 1.0.
        r#"{"threadId":"t","runId":"r","protocolVersion":"1.1","messages":[{"id":"m1","role":"assistant","toolCalls":[{"id":"c","type":"function","function":{"name":"f","arguments":"{\"n\":1}"}}]},{"id":"m2","role":"tool","toolCallId":"c","content":"ok"}],"tools":[{"name":"f","description":"d","parameters":{ }}]}"#,
        r#"{"threadId":"t","runId":"r","state":null,"messages":[],"tools":[{"name":"f","description":"d","parameters":{}}],"context":[],"forwardedProps":null}"#,
        // 1.x: tool results of parts, sources of files, part ids.
        r#"{"threadId":"t","runId":"r","protocolVersion":"1.1","messages":[{"id":"m1","role":"assistant","toolCalls":[{"id":"c","type":"function","function":{"name":"f","arguments":"{}"}}]},{"id":"m2","role":"tool","toolCallId":"c","content":[{"type":"text","id":"p","text":"ok"},{"type":"image","source":{"type":"data","value":"aGVsbG8","mimeType":"image/png"}}]}],"tools":[{"name":"f","description":"d"}]}"#,
        r#"{"threadId":"t","runId":"r","protocolVersion":"1.1","messages":[{"id":"m1","role":"assistant","toolCalls":[{"id":"c","type":"function","function":{"name":"f","arguments":"{}"}}]},{"id":"m2","role":"tool","toolCallId":"c","content":[]}],"tools":[{"name":"f","description":"d"}]}"#,
        r#"{"threadId":"t","runId":"r","protocolVersion":"1.1","messages":[{"id":"m","role":"user","content":[{"type":"document","id":"p","source":{"type":"file","value":"f-1","provider":"openai","mimeType":"application/pdf"}}]}]}"#,
        r#"{"threadId":"t","runId":"r","protocolVersion":"1.1","messages":[{"id":"m","role":"user","content":[{"type":"document","source":{"type":"file","value":"f-1","mimeType":"image/png"}}]}]}"#,
        r#"{"threadId":"t","runId":"r","protocolVersion":"1.1","messages":[{"id":"m","role":"user","content":[{"type":"image","source":{"type":"url","value":"https://x.test/a.png","provider":"openai"}}]}]}"#,
        r#"{"threadId":"t","runId":"r","state":null,"messages":[{"id":"m","role":"user","content":[{"type":"text","id":"p","text":"x"}]}],"tools":[],"context":[],"forwardedProps":null}"#,
        r#"{"threadId":"t","runId":"r","protocolVersion":"1.1","messages":[{"id":"m","role":"user","content":"x","metadata":{"ag-ui":{"x":1}},"subagentRunId":"s"}]}"#,
    ];
    for (i, case) in cases.iter().enumerate() {
        for default in Protocol::ALL {
            agree(case.as_bytes(), default, &format!("boundary case {i}"));
        }
    }
}

#[test]
fn a_tighter_depth_limit_is_honoured_on_both_paths() {
    // The validator used by the fuzzing entry points has the default
    // limits; a tighter one is checked through the public API.
    let validator = agui_lint::Validator::new()
        .expect("validator")
        .with_settings(
            // `nested_parameters` writes a pre-1.0 input.
            agui_lint::Settings::default()
                .protocol(agui_lint::ProtocolChoice::Version(Protocol::V0))
                .with_limits(agui_lint::Limits::default().with_max_depth(4)),
        );
    let deep = nested_parameters(3);
    let report = validator.validate(agui_lint::Kind::RunAgentInput, &deep);
    assert!(report
        .diagnostics()
        .iter()
        .any(|d| d.rule == "nesting-too-deep"));
    let shallow = nested_parameters(1);
    assert!(validator
        .validate(agui_lint::Kind::RunAgentInput, &shallow)
        .diagnostics()
        .is_empty());
}

/// Strings and numbers that rules care about.
const STRINGS: &[&str] = &[
    "",
    "x",
    "m1",
    "call_1",
    "user",
    "assistant",
    "tool",
    "activity",
    "text",
    "image",
    "data",
    "url",
    "function",
    "get weather",
    "image/png",
    "text/plain",
    "audio/wav",
    "not a mime",
    "aGVsbG8=",
    "aGVsbG8",
    "data:image/png;base64,aGVsbG8=",
    "https://example.test/a.png",
    "ftp://example.test/a",
    "relative/path",
    "{}",
    "[]",
    "{\"city\":\"Lisbon\"}",
    "{\"n\":1}",
    "not json",
    "1.0",
    "1.1",
    "0.0.57",
    "2.0",
    "file",
    "resolved",
    "cancelled",
    "reasoning",
];

const NUMBERS: &[&str] = &[
    "0",
    "-1",
    "1.5",
    "9007199254740991",
    "9007199254740993",
    "-9007199254740993",
    "1e300",
];

const KEYS: &[&str] = &[
    "extra",
    "id",
    "role",
    "type",
    "content",
    "name",
    "toolCalls",
    "toolCallId",
    "parameters",
    "metadata",
    "mimeType",
    "parentRunId",
    "encryptedValue",
    "encryptedValueType",
    "protocolVersion",
    "subagentRunId",
    "provider",
    "interruptId",
    "status",
    "payload",
    "resume",
    "ag-ui",
];

/// One edit of a document.
#[derive(Debug, Clone)]
enum Edit {
    Remove(usize),
    Null(usize),
    String(usize, usize),
    Number(usize, usize),
    Copy(usize, usize),
    AddKey(usize, usize, usize),
    DuplicateElement(usize),
    RepeatKey(usize),
    LoneSurrogate(usize),
    Cut(usize),
}

fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        3 => any::<usize>().prop_map(Edit::Remove),
        2 => any::<usize>().prop_map(Edit::Null),
        4 => (any::<usize>(), 0..STRINGS.len()).prop_map(|(a, b)| Edit::String(a, b)),
        2 => (any::<usize>(), 0..NUMBERS.len()).prop_map(|(a, b)| Edit::Number(a, b)),
        4 => (any::<usize>(), any::<usize>()).prop_map(|(a, b)| Edit::Copy(a, b)),
        2 => (any::<usize>(), 0..KEYS.len(), 0..STRINGS.len())
            .prop_map(|(a, b, c)| Edit::AddKey(a, b, c)),
        2 => any::<usize>().prop_map(Edit::DuplicateElement),
        1 => any::<usize>().prop_map(Edit::RepeatKey),
        1 => any::<usize>().prop_map(Edit::LoneSurrogate),
        1 => any::<usize>().prop_map(Edit::Cut),
    ]
}

/// The pointer of every node of `value`, root first.
fn pointers(value: &Value) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![(value, String::new())];
    while let Some((value, at)) = stack.pop() {
        match value {
            Value::Object(map) => {
                for (key, child) in map {
                    let key = key.replace('~', "~0").replace('/', "~1");
                    stack.push((child, format!("{at}/{key}")));
                }
            }
            Value::Array(items) => {
                for (i, child) in items.iter().enumerate() {
                    stack.push((child, format!("{at}/{i}")));
                }
            }
            _ => {}
        }
        out.push(at);
    }
    out
}

fn parent_and_last(at: &str) -> Option<(&str, String)> {
    let (parent, last) = at.rsplit_once('/')?;
    Some((parent, last.replace("~1", "/").replace("~0", "~")))
}

/// Applies the structural edits to `value`; the textual ones are applied
/// to `text` afterwards.
fn apply(value: &mut Value, edits: &[Edit]) -> Vec<Edit> {
    let mut textual = Vec::new();
    for edit in edits {
        let all = pointers(value);
        let pick = |i: usize| all[i % all.len()].clone();
        match *edit {
            Edit::Remove(i) => {
                if let Some((parent, last)) = parent_and_last(&pick(i)) {
                    match value.pointer_mut(parent) {
                        Some(Value::Object(map)) => {
                            map.shift_remove(&last);
                        }
                        Some(Value::Array(items)) => {
                            if let Ok(n) = last.parse::<usize>() {
                                if n < items.len() {
                                    items.remove(n);
                                }
                            }
                        }
                        _ => {}
                    }
                }
            }
            Edit::Null(i) => {
                if let Some(node) = value.pointer_mut(&pick(i)) {
                    *node = Value::Null;
                }
            }
            Edit::String(i, s) => {
                if let Some(node) = value.pointer_mut(&pick(i)) {
                    *node = Value::String(STRINGS[s].to_owned());
                }
            }
            Edit::Number(i, n) => {
                if let Some(node) = value.pointer_mut(&pick(i)) {
                    *node = serde_json::from_str(NUMBERS[n]).expect("a number");
                }
            }
            Edit::Copy(from, to) => {
                let copied = value.pointer(&pick(from)).cloned();
                if let (Some(copied), Some(node)) = (copied, value.pointer_mut(&pick(to))) {
                    *node = copied;
                }
            }
            Edit::AddKey(i, k, s) => {
                if let Some(Value::Object(map)) = value.pointer_mut(&pick(i)) {
                    map.insert(KEYS[k].to_owned(), Value::String(STRINGS[s].to_owned()));
                }
            }
            Edit::DuplicateElement(i) => {
                if let Some(Value::Array(items)) = value.pointer_mut(&pick(i)) {
                    if let Some(first) = items.first().cloned() {
                        items.push(first);
                    }
                }
            }
            Edit::RepeatKey(_) | Edit::LoneSurrogate(_) | Edit::Cut(_) => {
                textual.push(edit.clone())
            }
        }
    }
    textual
}

fn apply_textual(text: &mut Vec<u8>, edits: &[Edit]) {
    for edit in edits {
        match *edit {
            Edit::RepeatKey(i) => {
                // Repeat the first member of the i-th object.
                let opens: Vec<usize> = (0..text.len())
                    .filter(|&p| text[p] == b'{' && text.get(p + 1) == Some(&b'"'))
                    .collect();
                if let Some(&open) = opens.get(i % opens.len().max(1)) {
                    if let Some(colon) = text[open..].iter().position(|&b| b == b':') {
                        let key = text[open + 1..open + colon].to_vec();
                        let mut insert = key;
                        insert.extend_from_slice(b":0,");
                        text.splice(open + 1..open + 1, insert);
                    }
                }
            }
            Edit::LoneSurrogate(i) => {
                let quotes: Vec<usize> = (0..text.len()).filter(|&p| text[p] == b'"').collect();
                if let Some(&quote) = quotes.get(i % quotes.len().max(1)) {
                    text.splice(quote + 1..quote + 1, b"\\ud800".iter().copied());
                }
            }
            Edit::Cut(i) => {
                let at = i % (text.len() + 1);
                text.truncate(at);
            }
            _ => {}
        }
    }
}

/// The seeds the full path finds clean: mutations of them reach the fast
/// path's deeper checks, where most mutations of a broken seed stop early.
static CLEAN_SEEDS: LazyLock<Vec<&'static Seed>> = LazyLock::new(|| {
    SEEDS
        .iter()
        .filter(|seed| {
            fuzzing::fast_and_full(&seed.bytes, seed.default)
                .is_some_and(|(_, full)| full.diagnostics().is_empty())
        })
        .collect()
});

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 2000,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn mutated_documents_get_the_same_verdict(
        seed in any::<usize>(),
        from_clean in proptest::bool::weighted(0.8),
        edits in proptest::collection::vec(edit(), 1..4),
        pretty in any::<bool>(),
    ) {
        let Seed { name, bytes, default } = if from_clean {
            CLEAN_SEEDS[seed % CLEAN_SEEDS.len()]
        } else {
            &SEEDS[seed % SEEDS.len()]
        };
        let mut text = match serde_json::from_slice::<Value>(bytes) {
            Ok(mut value) => {
                let textual = apply(&mut value, &edits);
                let mut text = if pretty {
                    serde_json::to_vec_pretty(&value).expect("serialize")
                } else {
                    serde_json::to_vec(&value).expect("serialize")
                };
                apply_textual(&mut text, &textual);
                text
            }
            Err(_) => {
                let mut text = bytes.clone();
                apply_textual(&mut text, &edits);
                text
            }
        };
        if text.is_empty() {
            text.push(b' ');
        }
        agree(&text, *default, &format!("{name} after {edits:?}"));
    }
}

/// A 1.1 input with `extra` members added to the input itself, and a
/// conversation with a tool call, a tool result, a tool, context and a
/// resume entry, each given members from `at`.
fn with_unknown_keys(at: &[(&str, Value)]) -> Vec<u8> {
    let mut input = json!({
        "threadId": "t", "runId": "r", "protocolVersion": "1.1",
        "messages": [
            {"id": "m1", "role": "user", "content": "hi"},
            {"id": "m2", "role": "assistant",
             "toolCalls": [{"id": "c1", "type": "function",
                            "function": {"name": "search", "arguments": "{}"}}]},
            {"id": "m3", "role": "tool", "toolCallId": "c1", "content": "done"}
        ],
        "tools": [{"name": "search", "description": "d",
                   "parameters": {"type": "object"}}],
        "context": [{"description": "d", "value": "v"}],
        "resume": [{"interruptId": "i1", "status": "resolved"}]
    });
    for (pointer, members) in at {
        let target = input.pointer_mut(pointer).expect("a place of the input");
        for (key, value) in members.as_object().expect("members") {
            target[key] = value.clone();
        }
    }
    payloads::bytes(&input)
}

#[test]
fn unknown_keys_are_reported_on_the_fast_path_as_on_the_full_path() {
    let extra = json!({"extra": {"nested": [1, "two", null]}, "tool_call_id": null});
    let places = [
        "",
        "/messages/0",
        "/messages/1",
        "/messages/1/toolCalls/0",
        "/messages/1/toolCalls/0/function",
        "/messages/2",
        "/tools/0",
        "/context/0",
        "/resume/0",
    ];
    for place in places {
        let bytes = with_unknown_keys(&[(place, extra.clone())]);
        assert!(!agree(&bytes, Protocol::V1_1, place), "{place}");
        assert!(fuzzing::fast_judges(&bytes, Protocol::V1_1), "{place}");
    }
    // All at once, and a snake_case spelling of a defined key.
    let everywhere: Vec<(&str, Value)> = places.iter().map(|p| (*p, extra.clone())).collect();
    let bytes = with_unknown_keys(&everywhere);
    assert!(fuzzing::fast_judges(&bytes, Protocol::V1_1));
    let (_, full) = fuzzing::fast_and_full(&bytes, Protocol::V1_1).expect("validator");
    assert_eq!(full.diagnostics().len(), 2 * places.len());
    agree(&bytes, Protocol::V1_1, "everywhere");
    let snake = with_unknown_keys(&[("", json!({"parent_run_id": "p"}))]);
    agree(&snake, Protocol::V1_1, "snake_case");
    // Pre-1.0 judges its own keys: `resume` is not one.
    let v0 = payloads::bytes(&json!({
        "threadId": "t", "runId": "r", "state": {}, "messages": [], "tools": [],
        "context": [], "forwardedProps": {}, "runID": "r"
    }));
    assert!(fuzzing::fast_judges(&v0, Protocol::V0));
    agree(&v0, Protocol::V0, "pre-1.0");
}

#[test]
fn what_the_fast_path_leaves_about_unknown_keys_gets_the_same_verdict() {
    // A repeated unknown key, an unknown key in a part or a source, a
    // value the parse layer reports: the full path's.
    let repeated = br#"{"threadId":"t","runId":"r","messages":[],"x":1,"x":2}"#;
    let part = with_unknown_keys(&[(
        "/messages/0",
        json!({"content": [{"type": "text", "text": "t", "extra": 1}]}),
    )]);
    let source = with_unknown_keys(&[(
        "/messages/0",
        json!({"content": [{"type": "image",
                            "source": {"type": "url", "value": "https://a/b.png", "extra": 1}}]}),
    )]);
    let huge = br#"{"threadId":"t","runId":"r","messages":[],"x":1e400}"#;
    for (name, bytes) in [
        ("repeated", &repeated[..]),
        ("part", &part),
        ("source", &source),
        ("huge", &huge[..]),
    ] {
        assert!(!agree(bytes, Protocol::V1_1, name), "{name}");
        assert!(!fuzzing::fast_judges(bytes, Protocol::V1_1), "{name}");
    }
}

#[test]
fn unknown_keys_past_the_finding_limit_are_counted_alike() {
    // More unknown keys in one object than a document reports, and one in
    // each of more messages than the first reading holds.
    let mut top =
        String::from(r#"{"threadId":"t","runId":"r","protocolVersion":"1.1","messages":[]"#);
    for i in 0..2500 {
        top.push_str(&format!(r#","k{i}":0"#));
    }
    top.push('}');
    let messages: Vec<Value> = (0..5000)
        .map(|i| json!({"id": format!("m{i}"), "role": "user", "content": "hi", "extra": i}))
        .collect();
    let many = json!({"threadId": "t", "runId": "r", "messages": messages});
    // Compact, and with white space between the messages the first
    // reading leaves as text.
    let compact = payloads::bytes(&many);
    let pretty = serde_json::to_vec_pretty(&many).expect("JSON");
    for (name, bytes) in [
        ("top", top.as_bytes()),
        ("messages", &compact[..]),
        ("messages, pretty", &pretty[..]),
    ] {
        assert!(fuzzing::fast_judges(bytes, Protocol::V1_1), "{name}");
        let (_, full) = fuzzing::fast_and_full(bytes, Protocol::V1_1).expect("validator");
        let summary = full
            .diagnostics()
            .iter()
            .find(|d| d.rule == "too-many-findings")
            .expect("a summary");
        assert!(
            summary.message.contains("unknown-field"),
            "{}",
            summary.message
        );
        agree(bytes, Protocol::V1_1, name);
    }
}
