//! `agui-lint probe URL --suite`, the conformance kit, end to end against
//! a reference agent server on 127.0.0.1 that acts as every scenario
//! needs (calls offered tools, changes state, interrupts when asked), and
//! against variants of it that each break one requirement across
//! requests: each fails exactly the check for it, and nothing the agent
//! did not do is counted as passed.

use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::io::Write;
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::Path;
use std::process::Output;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use assert_cmd::cargo::cargo_bin_cmd;
use serde_json::{json, Value};

#[path = "common/http_requests.rs"]
mod http_requests;
use http_requests::each_request;

/// What a server variant gets wrong; `None` for the reference server.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Fault {
    /// Nothing.
    None,
    /// `RUN_STARTED` and `RUN_FINISHED` carry a runId of its own.
    OwnRunId,
    /// Every message it streams is `msg-1`, run after run.
    ReusesIds,
    /// Answers a request carrying an assistant's text with 400.
    RejectsHistory,
    /// A second turn restates the user's first message with other text in
    /// a `MESSAGES_SNAPSHOT`.
    RewritesHistory,
    /// Computes its state deltas against the state it started the thread
    /// with, not the state the request carries.
    ForgetsState,
    /// A resume gets the interrupts it answered raised again.
    RaisesAnsweredInterrupt,
    /// Once a client has closed a connection mid-run, answers 500.
    DiesAfterCancel,
    /// `RUN_STARTED` declares no version.
    NoVersion,
    /// Rejects a request declaring 1.2 with 400.
    RejectsNewerMinor,
    /// Answers a body that is not JSON with 500.
    CrashesOnBadJson,
    /// Never calls a tool, never interrupts, never touches state.
    Passive,
    /// Every run it starts ends with `RUN_ERROR` (a model out of quota).
    AgentFails,
    /// Fails the run over a resume entry naming an interrupt it never
    /// raised.
    FailsOverUnknownResume,
    /// Streams its text as `TEXT_MESSAGE_CHUNK`, the triad's compact
    /// spelling.
    Chunks,
    /// Dies on a body that is not JSON: that connection and every later
    /// one is closed without an answer.
    DiesOnBadJson,
    /// Serves a body whatever its Content-Type says.
    AnyContentType,
    /// Loses the first piece of every tool call's arguments.
    LosesFirstArgumentPiece,
    /// Ends every stream before its run's end, the message open.
    CutsRuns,
}

/// What a server keeps across requests.
#[derive(Default)]
struct Memory {
    /// Interrupt ids raised, by thread.
    raised: BTreeMap<String, Vec<String>>,
    /// Whether a client closed a connection mid-run.
    cancelled: AtomicBool,
    /// Whether the server has died (`Fault::DiesOnBadJson`).
    dead: AtomicBool,
    counter: AtomicUsize,
}

/// A server on a free port of 127.0.0.1 with `fault`.
fn server(fault: Fault) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1");
    let address: SocketAddr = listener.local_addr().expect("address");
    let memory = Arc::new(Mutex::new(Memory::default()));
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(stream) = stream else { continue };
            let memory = memory.clone();
            std::thread::spawn(move || serve(stream, fault, &memory));
        }
    });
    format!("http://{address}/agent")
}

/// Answers the requests of one connection.
fn serve(stream: TcpStream, fault: Fault, memory: &Mutex<Memory>) {
    each_request(stream, |stream, incoming| {
        let content_type = incoming.header("content-type").unwrap_or_default();
        answer(stream, fault, memory, &content_type, &incoming.body)
    });
}

fn whole(stream: &mut TcpStream, status: &str, content_type: &str, body: &str) -> bool {
    let _ = stream.write_all(
        format!(
            "HTTP/1.1 {status}\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        )
        .as_bytes(),
    );
    let _ = stream.flush();
    true
}

/// Writes the answer to one request; whether the connection may serve
/// another.
fn answer(
    stream: &mut TcpStream,
    fault: Fault,
    memory: &Mutex<Memory>,
    content_type: &str,
    body: &[u8],
) -> bool {
    let error = |stream: &mut TcpStream, status: &str, why: &str| {
        whole(
            stream,
            status,
            "application/json",
            &json!({"detail": why}).to_string(),
        )
    };
    if fault == Fault::DiesAfterCancel
        && memory
            .lock()
            .expect("memory")
            .cancelled
            .load(Ordering::SeqCst)
    {
        return error(stream, "500 Internal Server Error", "worker lost");
    }
    let dead = |memory: &Mutex<Memory>| memory.lock().expect("memory").dead.load(Ordering::SeqCst);
    if dead(memory) {
        return false;
    }
    let Ok(input) = serde_json::from_slice::<Value>(body) else {
        if fault == Fault::DiesOnBadJson {
            memory
                .lock()
                .expect("memory")
                .dead
                .store(true, Ordering::SeqCst);
            return false;
        }
        if fault == Fault::CrashesOnBadJson {
            return whole(
                stream,
                "500 Internal Server Error",
                "text/plain",
                "Traceback ...",
            );
        }
        return error(stream, "400 Bad Request", "the body is not JSON");
    };
    if !content_type.starts_with("application/json") && fault != Fault::AnyContentType {
        return error(
            stream,
            "415 Unsupported Media Type",
            "send application/json",
        );
    }
    let (Some(thread), Some(run)) = (input["threadId"].as_str(), input["runId"].as_str()) else {
        return error(
            stream,
            "422 Unprocessable Entity",
            "threadId and runId are required",
        );
    };
    let (thread, run) = (thread.to_string(), run.to_string());
    let messages = input["messages"].as_array().cloned().unwrap_or_default();
    if fault == Fault::RejectsHistory
        && messages
            .iter()
            .any(|m| m["role"] == "assistant" && m["content"].is_string())
    {
        return error(
            stream,
            "400 Bad Request",
            "assistant messages are not accepted",
        );
    }
    let declared = input["protocolVersion"]
        .as_str()
        .unwrap_or("1.0")
        .to_string();
    if fault == Fault::RejectsNewerMinor && declared == "1.2" {
        return error(stream, "400 Bad Request", "unsupported protocolVersion");
    }
    let fresh = |what: &str| {
        let n = memory
            .lock()
            .expect("memory")
            .counter
            .fetch_add(1, Ordering::SeqCst);
        if fault == Fault::ReusesIds {
            "msg-1".to_string()
        } else {
            format!("{what}-{n}")
        }
    };
    let run_id = if fault == Fault::OwnRunId {
        "server-run".to_string()
    } else {
        run.clone()
    };
    let mut started = json!({"type": "RUN_STARTED", "threadId": thread, "runId": run_id});
    if fault != Fault::NoVersion {
        started["protocolVersion"] = json!(if declared == "1.0" { "1.0" } else { "1.1" });
    }
    let mut events = vec![started];
    if fault == Fault::AgentFails {
        events.push(
            json!({"type": "RUN_ERROR", "message": "model unavailable: quota", "code": "QUOTA"}),
        );
        return stream_events(stream, memory, events, false);
    }
    let mut finished = json!({"type": "RUN_FINISHED", "threadId": thread, "runId": run_id});
    let last_user = messages
        .iter()
        .rev()
        .find(|m| m["role"] == "user")
        .and_then(|m| m["content"].as_str())
        .unwrap_or("")
        .to_string();
    let answered_tools = messages.last().is_some_and(|m| m["role"] == "tool");
    let tools: Vec<String> = input["tools"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|t| t["name"].as_str().map(str::to_string))
        .collect();
    let resume = input["resume"].as_array().cloned().unwrap_or_default();
    let passive = fault == Fault::Passive;
    let text = |events: &mut Vec<Value>, id: String, content: &str| {
        if fault == Fault::Chunks {
            events.push(json!({"type": "TEXT_MESSAGE_CHUNK", "messageId": id, "role": "assistant", "delta": content}));
            return;
        }
        events.push(json!({"type": "TEXT_MESSAGE_START", "messageId": id, "role": "assistant"}));
        events.push(json!({"type": "TEXT_MESSAGE_CONTENT", "messageId": id, "delta": content}));
        events.push(json!({"type": "TEXT_MESSAGE_END", "messageId": id}));
    };
    let mut slow = false;
    if !resume.is_empty() {
        let mut kept = memory.lock().expect("memory");
        let raised = kept.raised.entry(thread.clone()).or_default();
        let known: Vec<String> = resume
            .iter()
            .filter_map(|r| r["interruptId"].as_str())
            .filter(|id| raised.contains(&id.to_string()))
            .map(str::to_string)
            .collect();
        drop(kept);
        if fault == Fault::FailsOverUnknownResume && known.len() < resume.len() {
            events.push(json!({"type": "RUN_ERROR", "message": "unknown interrupt"}));
            return stream_events(stream, memory, events, false);
        }
        if fault == Fault::RaisesAnsweredInterrupt && !known.is_empty() {
            finished["outcome"] = json!({"type": "interrupt",
                "interrupts": known.iter().map(|id| json!({"id": id, "reason": "approval"})).collect::<Vec<_>>()});
        } else {
            text(&mut events, fresh("msg"), "Done, as approved.");
        }
    } else if last_user.contains("approval") && declared != "1.0" && !passive {
        let id = fresh("interrupt");
        memory
            .lock()
            .expect("memory")
            .raised
            .entry(thread.clone())
            .or_default()
            .push(id.clone());
        finished["outcome"] = json!({"type": "interrupt", "interrupts": [{"id": id, "reason": "approval", "message": "Approve?"}]});
    } else if !tools.is_empty() && !answered_tools && !passive {
        for name in &tools {
            let call = fresh("call");
            events
                .push(json!({"type": "TOOL_CALL_START", "toolCallId": call, "toolCallName": name}));
            if fault != Fault::LosesFirstArgumentPiece {
                events.push(
                    json!({"type": "TOOL_CALL_ARGS", "toolCallId": call, "delta": "{\"city\":"}),
                );
            }
            events.push(
                json!({"type": "TOOL_CALL_ARGS", "toolCallId": call, "delta": "\"Berlin\"}"}),
            );
            events.push(json!({"type": "TOOL_CALL_END", "toolCallId": call}));
        }
    } else if last_user.contains("shopping list") || last_user.contains("'plums'") {
        if !passive {
            let turn = if fault == Fault::ForgetsState {
                1
            } else {
                input["state"]["turn"].as_u64().unwrap_or(1)
            };
            let item = if last_user.contains("plums") {
                "plums"
            } else {
                "pears"
            };
            events.push(json!({"type": "STATE_DELTA", "delta": [
                {"op": "test", "path": "/turn", "value": turn},
                {"op": "replace", "path": "/turn", "value": turn + 1},
                {"op": "add", "path": "/items/-", "value": item}]}));
        }
    } else if last_user.contains("Count from 1") {
        slow = true;
        let id = fresh("msg");
        events.push(json!({"type": "TEXT_MESSAGE_START", "messageId": id, "role": "assistant"}));
        for n in 1..=300 {
            events.push(
                json!({"type": "TEXT_MESSAGE_CONTENT", "messageId": id, "delta": format!("{n}\n")}),
            );
        }
        events.push(json!({"type": "TEXT_MESSAGE_END", "messageId": id}));
    } else {
        // A later turn restates the conversation it was given.
        if messages.len() > 1 {
            let mut restated = messages.clone();
            if fault == Fault::RewritesHistory {
                restated[0]["content"] = json!("something else");
            }
            events.push(json!({"type": "MESSAGES_SNAPSHOT", "messages": restated}));
        }
        text(&mut events, fresh("msg"), "I can answer questions.");
    }
    if fault == Fault::CutsRuns {
        events.truncate(events.len() - 1);
        return stream_events(stream, memory, events, slow);
    }
    events.push(finished);
    stream_events(stream, memory, events, slow)
}

/// Writes `events` as a chunked SSE response, each event after a pause
/// when `slow`; whether the connection may serve another request.
fn stream_events(
    stream: &mut TcpStream,
    memory: &Mutex<Memory>,
    events: Vec<Value>,
    slow: bool,
) -> bool {
    let _ = stream.write_all(
        b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n",
    );
    for event in events {
        let data = format!("data: {event}\n\n");
        let sent = stream
            .write_all(format!("{:x}\r\n{data}\r\n", data.len()).as_bytes())
            .and_then(|()| stream.flush());
        if sent.is_err() {
            memory
                .lock()
                .expect("memory")
                .cancelled
                .store(true, Ordering::SeqCst);
            return false;
        }
        if slow {
            std::thread::sleep(Duration::from_millis(10));
        }
    }
    let _ = stream.write_all(b"0\r\n\r\n");
    let _ = stream.flush();
    true
}

fn kit(url: &str, args: &[&str]) -> Output {
    cargo_bin_cmd!("agui-lint")
        .args([
            "probe",
            url,
            "--suite",
            "--timeout",
            "20s",
            "--idle-timeout",
            "5s",
        ])
        .args(args)
        .output()
        .expect("run agui-lint")
}

/// The JSON report of the kit against a server with `fault`: its exit
/// code, and each (scenario, check) with its verdict.
fn run_kit(fault: Fault, args: &[&str]) -> (Option<i32>, BTreeMap<(String, String), String>) {
    let url = server(fault);
    let mut all = vec!["--format", "json"];
    all.extend_from_slice(args);
    let output = kit(&url, &all);
    let report: Value = serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
        panic!(
            "not JSON ({e}): {}\n{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        )
    });
    let mut verdicts = BTreeMap::new();
    for scenario in report["scenarios"].as_array().expect("scenarios") {
        for check in scenario["checks"].as_array().expect("checks") {
            verdicts.insert(
                (
                    scenario["name"].as_str().expect("name").to_string(),
                    check["check"].as_str().expect("check").to_string(),
                ),
                format!(
                    "{}{}",
                    // A failure that does not fail the run (a SHOULD, advice)
                    // is the warning it is shown as.
                    match (check["verdict"].as_str().expect("verdict"), &check["fails"]) {
                        ("failed", Value::Bool(false)) => "warning",
                        (verdict, _) => verdict,
                    },
                    check["why"]
                        .as_str()
                        .map_or_else(String::new, |w| format!(": {w}"))
                ),
            );
        }
    }
    (output.status.code(), verdicts)
}

/// The (scenario, check) pairs not passed.
fn not_passed(verdicts: &BTreeMap<(String, String), String>) -> BTreeMap<String, String> {
    verdicts
        .iter()
        .filter(|(_, v)| *v != "passed")
        .map(|((s, c), v)| (format!("{s}/{c}"), v.clone()))
        .collect()
}

#[test]
fn the_reference_server_passes_every_check_of_every_scenario() {
    let (code, verdicts) = run_kit(Fault::None, &[]);
    assert_eq!(not_passed(&verdicts), BTreeMap::new());
    assert_eq!(code, Some(0));
    let scenarios: HashSet<&str> = verdicts.keys().map(|(s, _)| s.as_str()).collect();
    assert_eq!(scenarios.len(), 9, "{scenarios:?}");
    assert!(verdicts.len() > 30, "{}", verdicts.len());
}

#[test]
fn a_server_breaking_one_requirement_fails_exactly_its_check() {
    // A server that dies after a cancelled run fails every later run:
    // its case runs the cancellation scenario alone.
    let cases: &[(Fault, &[&str])] = &[
        (Fault::OwnRunId, &["ids-echoed"]),
        (Fault::ReusesIds, &["ids-unique-across-runs"]),
        (Fault::RejectsHistory, &["multi-turn/history-taken-back"]),
        (
            Fault::RewritesHistory,
            &["multi-turn/snapshot-keeps-history"],
        ),
        (Fault::ForgetsState, &["state/state-continuity"]),
        (
            Fault::RaisesAnsweredInterrupt,
            &["interrupt/resume-accepted"],
        ),
        (
            Fault::DiesAfterCancel,
            &["cancellation/served-after-cancel"],
        ),
        (Fault::NoVersion, &["version/version-declared"]),
        (Fault::RejectsNewerMinor, &["version/newer-minor-served"]),
        (
            Fault::CrashesOnBadJson,
            &["bad-requests/invalid-json-rejected"],
        ),
    ];
    for (fault, checks) in cases {
        let alone: &[&str] = if *fault == Fault::DiesAfterCancel {
            &["--scenario", "cancellation"]
        } else {
            &[]
        };
        let (code, verdicts) = run_kit(*fault, alone);
        let failed: Vec<String> = not_passed(&verdicts)
            .into_iter()
            .filter(|(_, v)| v.starts_with("failed"))
            .map(|(k, _)| k)
            .collect();
        assert!(!failed.is_empty(), "{fault:?} failed nothing");
        for key in &failed {
            assert!(
                checks
                    .iter()
                    .any(|c| key == c || key.ends_with(&format!("/{c}"))),
                "{fault:?} failed {key}, not only {checks:?}: {:?}",
                not_passed(&verdicts)
            );
        }
        assert_eq!(code, Some(1), "{fault:?}");
    }
}

#[test]
fn what_the_agent_did_not_do_is_not_exercised_never_passed() {
    let (code, verdicts) = run_kit(Fault::Passive, &[]);
    let idle = not_passed(&verdicts);
    for key in [
        "tool/tool-result-taken-back",
        "parallel-tools/parallel-calls-taken-back",
        "state/state-deltas-apply",
        "state/state-continuity",
        "interrupt/resume-accepted",
    ] {
        let verdict = idle
            .get(key)
            .unwrap_or_else(|| panic!("{key} passed: {idle:?}"));
        assert!(verdict.starts_with("not-exercised: "), "{key}: {verdict}");
    }
    assert!(idle["tool/tool-result-taken-back"].contains("did not call an offered tool"));
    // Each says what would exercise it.
    let human = kit(&server(Fault::Passive), &["--scenario", "tool"]);
    let text = String::from_utf8_lossy(&human.stdout);
    assert!(
        text.contains("to exercise it: an agent that calls the tool it is offered: prompt it to call agui_lint_get_weather"),
        "{text}"
    );
    assert!(idle.values().all(|v| !v.starts_with("failed")), "{idle:?}");
    assert_eq!(code, Some(0));
}

#[test]
fn an_agent_that_fails_every_run_fails_no_check_and_the_report_says_why() {
    let url = server(Fault::AgentFails);
    let output = kit(&url, &["--format", "json"]);
    let report: Value = serde_json::from_slice(&output.stdout).expect("JSON");
    assert_eq!(output.status.code(), Some(0), "{report}");
    let mut idle = 0;
    for scenario in report["scenarios"].as_array().expect("scenarios") {
        for check in scenario["checks"].as_array().expect("checks") {
            let (name, verdict) = (&check["check"], &check["verdict"]);
            assert_ne!(verdict, "failed", "{}/{name}: {check}", scenario["name"]);
            if verdict == "not-exercised"
                && check["why"].as_str().is_some_and(|w| {
                    w.contains(
                        "the agent failed: RUN_ERROR 'model unavailable: quota' (code 'QUOTA')",
                    )
                })
            {
                idle += 1;
            }
        }
    }
    // Every check that needs the agent to act says what stopped it.
    assert!(idle >= 8, "{idle}: {report}");
    let failure = report["agentFailure"].as_str().expect("agentFailure");
    assert!(
        failure.starts_with("the agent failed every one of the")
            && failure.contains("RUN_ERROR 'model unavailable: quota'")
            && failure.contains("agui_lint_get_weather"),
        "{failure}"
    );
    // What did come is judged: the runs started, declared their version,
    // were served after a cancel and when declaring a newer minor.
    let (_, verdicts) = run_kit(Fault::AgentFails, &[]);
    for key in [
        ("text", "run-served"),
        ("version", "version-declared"),
        ("version", "newer-minor-served"),
        ("text", "stream-conforms"),
        ("text", "ids-echoed"),
    ] {
        assert_eq!(
            verdicts[&(key.0.to_string(), key.1.to_string())],
            "passed",
            "{key:?}"
        );
    }
    // The human report says so first.
    let human = kit(&url, &["--scenario", "text"]);
    let text = String::from_utf8_lossy(&human.stdout);
    assert!(
        text.starts_with("the agent failed the one run the server served"),
        "{text}"
    );
    // A server whose agent acts says nothing of the kind.
    let (_, fine) = run_kit(Fault::None, &["--scenario", "text"]);
    assert_eq!(not_passed(&fine), BTreeMap::new());
    let clean = kit(
        &server(Fault::None),
        &["--scenario", "text", "--format", "json"],
    );
    let clean: Value = serde_json::from_slice(&clean.stdout).expect("JSON");
    assert_eq!(clean["agentFailure"], Value::Null);
}

#[test]
fn a_run_failed_over_an_unknown_resume_entry_fails_that_check() {
    let (code, verdicts) = run_kit(Fault::FailsOverUnknownResume, &["--scenario", "interrupt"]);
    // A SHOULD failure is a warning: the exit code is 1 only with --strict.
    assert_eq!(code, Some(0), "{verdicts:?}");
    let (code, _) = run_kit(
        Fault::FailsOverUnknownResume,
        &["--scenario", "interrupt", "--strict"],
    );
    assert_eq!(code, Some(1));
    let human = kit(
        &server(Fault::FailsOverUnknownResume),
        &["--scenario", "interrupt"],
    );
    let text = String::from_utf8_lossy(&human.stdout);
    assert!(
        text.contains("  warning          SHOULD unknown-resume-handled: request 3"),
        "{text}"
    );
    // The failure quotes the sentence it rests on, with its link.
    assert!(
        text.contains("SHOULD: \"An unrecognised entry — one naming an interrupt the producer did not raise: the run SHOULD proceed without the entry")
            && text.contains("(https://docs.ag-ui.com/spec/1.1/basic/patterns/interrupt-resume#resuming)"),
        "{text}"
    );
    assert!(
        text.contains(", 1 warning (SHOULD or advice; --strict fails on a SHOULD)"),
        "{text}"
    );
    let failed = not_passed(&verdicts);
    assert_eq!(
        failed.keys().collect::<Vec<_>>(),
        ["interrupt/unknown-resume-handled"],
        "{failed:?}"
    );
    assert!(
        failed["interrupt/unknown-resume-handled"].contains(
            "the run failed over an answer it never asked for: RUN_ERROR 'unknown interrupt'"
        ),
        "{failed:?}"
    );
}

#[test]
fn a_chunked_text_message_streams_the_triad_a_scenario_expects() {
    let dir = tempfile::tempdir().expect("temp dir");
    let file = dir.path().join("text.json");
    let scenario = json!({"name": "chunks", "steps": [
        {"request": {"threadId": "{{threadId}}", "runId": "{{runId}}", "state": {},
            "messages": [{"id": "{{id}}", "role": "user", "content": "Hello"}],
            "tools": [], "context": [], "forwardedProps": {}},
         "needs": ["TEXT_MESSAGE_CONTENT"],
         "expect": {"events": ["TEXT_MESSAGE_START", "TEXT_MESSAGE_END"]}}]});
    std::fs::write(&file, scenario.to_string()).expect("write");
    let args = [
        "--scenario",
        "text",
        "--scenario-file",
        file.to_str().expect("path"),
    ];
    let (code, verdicts) = run_kit(Fault::Chunks, &args);
    for check in ["expectation-met", "stream-conforms"] {
        assert_eq!(
            verdicts[&("chunks".into(), check.into())],
            "passed",
            "{verdicts:?}"
        );
    }
    assert_eq!(code, Some(0));
    // A type the chunk does not expand into is still missed.
    let missing = scenario
        .to_string()
        .replace("\"TEXT_MESSAGE_END\"", "\"TOOL_CALL_START\"");
    std::fs::write(&file, missing).expect("write");
    let (code, verdicts) = run_kit(Fault::Chunks, &args);
    assert_eq!(code, Some(1));
    assert!(
        verdicts[&("chunks".into(), "expectation-met".into())]
            .contains("the run streamed no TOOL_CALL_START"),
        "{verdicts:?}"
    );
}

#[test]
fn a_server_that_dies_fails_the_check_of_that_request_and_the_report_is_whole() {
    let dir = tempfile::tempdir().expect("temp dir");
    let save = dir.path().join("session");
    let url = server(Fault::DiesOnBadJson);
    let scenarios = ["--scenario", "text,bad-requests,version"];
    let mut args = scenarios.to_vec();
    args.extend(["--format", "json", "--save", save.to_str().expect("path")]);
    let output = kit(&url, &args);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    let report: Value = serde_json::from_slice(&output.stdout).expect("a JSON report");
    let verdict = |scenario: &str, check: &str| {
        report["scenarios"]
            .as_array()
            .and_then(|all| all.iter().find(|s| s["name"] == scenario))
            .and_then(|s| s["checks"].as_array())
            .and_then(|checks| checks.iter().find(|c| c["check"] == check))
            .map(|c| format!("{}: {}", c["verdict"], c["why"]))
            .unwrap_or_else(|| panic!("{scenario}/{check}: {report}"))
    };
    assert!(verdict("text", "run-served").starts_with("\"passed\""));
    let died = verdict("bad-requests", "invalid-json-rejected");
    assert!(
        died.starts_with("\"failed\": \"request 1 (a body that is not JSON): no response came: "),
        "{died}"
    );
    let gone = verdict("version", "version-declared");
    assert_eq!(
        gone,
        "\"not-exercised\": \"the server stopped answering after request 1 of the suite\""
    );
    assert!(stderr.contains("the rest is not exercised"), "{stderr}");
    // The failure says how to send its request again, from what --save
    // kept: the exact body, its Content-Type.
    let again = report["scenarios"]
        .as_array()
        .and_then(|all| all.iter().find(|s| s["name"] == "bad-requests"))
        .and_then(|s| s["checks"].as_array())
        .and_then(|checks| {
            checks
                .iter()
                .find(|c| c["check"] == "invalid-json-rejected")
        })
        .and_then(|c| c["again"].as_str())
        .expect("a command")
        .to_owned();
    let body = save.join("bad-requests-1.json");
    assert!(
        again.starts_with(&format!(
            "curl -sN {url} -H 'Content-Type: application/json'"
        )) && again.ends_with(&format!("--data-binary @{}", body.display())),
        "{again}"
    );
    assert_eq!(
        std::fs::read(&body).expect("the body sent"),
        br#"{"threadId": "t", "runId": "r", "messages": ["#
    );
    // Each scenario that sent a request is saved, the dead one too, and
    // check reads it.
    for name in ["text", "bad-requests"] {
        assert!(save.join(format!("{name}.har")).is_file(), "{name}.har");
    }
    let check = cargo_bin_cmd!("agui-lint")
        .args(["check", "--format", "json"])
        .arg(save.join("bad-requests.har"))
        .output()
        .expect("run agui-lint");
    assert_ne!(
        check.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&check.stderr)
    );
    // The other formats are written too.
    for format in ["human", "junit"] {
        let mut args = scenarios.to_vec();
        args.extend(["--format", format]);
        let output = kit(&server(Fault::DiesOnBadJson), &args);
        assert_eq!(output.status.code(), Some(1), "{format}");
        let text = String::from_utf8_lossy(&output.stdout);
        assert!(text.contains("invalid-json-rejected"), "{format}: {text}");
        assert!(
            text.contains("the server stopped answering after request 1"),
            "{format}: {text}"
        );
    }
    // Nothing listening at all is the kit's usage: exit 2.
    let closed = {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
        listener.local_addr().expect("address")
    };
    let output = kit(&format!("http://{closed}/agent"), &["--scenario", "text"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("cannot reach"));
}

#[test]
fn what_the_client_acts_on_otherwise_is_a_warning_beside_the_verdict() {
    let (code, verdicts) = run_kit(Fault::LosesFirstArgumentPiece, &["--scenario", "tool"]);
    assert_eq!(code, Some(0), "{verdicts:?}");
    let warned = &verdicts[&("tool".to_string(), "stream-as-received".to_string())];
    assert!(
        warned.starts_with("warning: request 1 (a turn offering a client-side tool), event 4: warning[tool-call-args-not-json]"),
        "{warned}"
    );
    assert_eq!(
        verdicts[&("tool".to_string(), "stream-conforms".to_string())],
        "passed"
    );
    // What came back around the fault: the call's start two events
    // before it, and the faulty one marked.
    let around: Vec<&str> = warned.lines().skip(1).collect();
    assert!(
        around
            .iter()
            .any(|l| l.starts_with("     2 {") && l.contains("TOOL_CALL_START")),
        "{warned}"
    );
    assert!(
        around
            .iter()
            .any(|l| l.starts_with("→    4 {") && l.contains("TOOL_CALL_END")),
        "{warned}"
    );
    // A person reads them under the check, indented.
    let human = kit(
        &server(Fault::LosesFirstArgumentPiece),
        &["--scenario", "tool"],
    );
    let human = String::from_utf8_lossy(&human.stdout);
    assert!(human.contains(&format!("\n{:19}→    4 {{", "")), "{human}");
    let (_, clean) = run_kit(Fault::None, &["--scenario", "tool"]);
    assert_eq!(
        clean[&("tool".to_string(), "stream-as-received".to_string())],
        "passed"
    );
}

#[test]
fn one_cause_is_reported_once_the_others_pointing_to_it() {
    let output = kit(
        &server(Fault::CutsRuns),
        &["--scenario", "text", "--format", "json"],
    );
    assert_eq!(output.status.code(), Some(1));
    let report: Value = serde_json::from_slice(&output.stdout).expect("JSON");
    let checks = report["scenarios"][0]["checks"].as_array().expect("checks");
    let row = |id: &str| {
        checks
            .iter()
            .find(|c| c["check"] == id)
            .cloned()
            .unwrap_or_else(|| panic!("{id}: {report}"))
    };
    assert_eq!(row("run-served")["verdict"], "failed", "{report}");
    let pointer = row("stream-conforms");
    assert_eq!(pointer["verdict"], "same-cause", "{report}");
    assert_eq!(pointer["fails"], false);
    assert!(
        pointer["why"]
            .as_str()
            .is_some_and(|w| w.starts_with("reported under run-served: request 1 (a text turn)")),
        "{pointer}"
    );
    assert_eq!(report["summary"]["failed"], 1, "{report}");
    assert_eq!(report["summary"]["sameCause"], 1, "{report}");
    // A stream error of its own still fails stream-conforms.
    let (_, verdicts) = run_kit(Fault::ReusesIds, &["--scenario", "multi-turn"]);
    assert!(
        !verdicts.values().any(|v| v.starts_with("same-cause")),
        "{verdicts:?}"
    );
}

#[test]
fn advice_is_shown_and_never_fails() {
    for strict in [false, true] {
        let mut args = vec!["--scenario", "bad-requests", "--format", "json"];
        if strict {
            args.push("--strict");
        }
        let output = kit(&server(Fault::AnyContentType), &args);
        assert_eq!(output.status.code(), Some(0), "strict: {strict}");
        let report: Value = serde_json::from_slice(&output.stdout).expect("JSON");
        let row = report["scenarios"][0]["checks"]
            .as_array()
            .and_then(|checks| {
                checks
                    .iter()
                    .find(|c| c["check"] == "wrong-content-type-rejected")
            })
            .cloned()
            .expect("the row");
        assert_eq!(row["level"], "ADVICE");
        assert_eq!(row["verdict"], "failed");
        assert_eq!(row["fails"], false);
        assert_eq!(row["restsOn"], json!([]));
        assert_eq!(report["summary"]["warnings"], 1);
        // A MUST row names the sentences it rests on.
        let must = report["scenarios"][0]["checks"][0].clone();
        assert_eq!(must["check"], "invalid-json-rejected");
        assert!(
            must["restsOn"][0]["text"]
                .as_str()
                .is_some_and(|t| t.contains("MUST")),
            "{must}"
        );
        assert!(must["restsOn"][0]["url"]
            .as_str()
            .is_some_and(|u| u.starts_with("https://docs.ag-ui.com/spec/1.1/basic/processing#")));
    }
}

#[test]
fn level_must_judges_only_the_musts() {
    let (_, verdicts) = run_kit(Fault::None, &["--level", "must"]);
    assert!(!verdicts.is_empty());
    for (scenario, check) in verdicts.keys() {
        assert!(
            !["unknown-resume-handled", "wrong-content-type-rejected"].contains(&check.as_str()),
            "{scenario}/{check} is no MUST"
        );
    }
    let (_, all) = run_kit(Fault::None, &[]);
    assert!(all.len() > verdicts.len());
    // An expected failure of a SHOULD check is not stale in a MUST run.
    let dir = tempfile::tempdir().expect("temp dir");
    let file = dir.path().join("expected.toml");
    std::fs::write(
        &file,
        "[[expected]]\nscenario = \"bad-requests\"\ncheck = \"wrong-content-type-rejected\"\nreason = \"served\"\n",
    )
    .expect("write");
    let listed = [
        "--level",
        "must",
        "--scenario",
        "bad-requests",
        "--expected-failures",
    ];
    let mut args = listed.to_vec();
    args.push(file.to_str().expect("path"));
    let (code, verdicts) = run_kit(Fault::None, &args);
    assert_eq!(code, Some(0), "{verdicts:?}");
    // A check the scenario does not have is stale whatever the level.
    std::fs::write(
        &file,
        "[[expected]]\nscenario = \"bad-requests\"\ncheck = \"ids-echoed\"\nreason = \"r\"\n",
    )
    .expect("write");
    let (code, _) = run_kit(Fault::None, &args);
    assert_eq!(code, Some(1));
}

#[test]
fn expected_failures_hold_on_a_listed_failure_and_fail_on_a_new_or_fixed_one() {
    let dir = tempfile::tempdir().expect("temp dir");
    let file = dir.path().join("expected.toml");
    let listed = |check: &str| {
        format!("[[expected]]\nscenario = \"version\"\ncheck = \"{check}\"\nreason = \"we declare no version yet\"\n")
    };
    std::fs::write(&file, listed("version-declared")).expect("write");
    let file_arg = file.to_str().expect("path");
    let scenario = ["--scenario", "version", "--expected-failures", file_arg];
    let (code, verdicts) = run_kit(Fault::NoVersion, &scenario);
    assert_eq!(code, Some(0), "{verdicts:?}");
    assert!(
        verdicts[&("version".into(), "version-declared".into())].starts_with("expected-failure: ")
    );
    // The listed failure fixed: the entry must go.
    let (code, verdicts) = run_kit(Fault::None, &scenario);
    assert_eq!(code, Some(1));
    assert!(
        verdicts[&("version".into(), "version-declared".into())].starts_with("fixed-but-listed: ")
    );
    // A failure the file does not list.
    let (code, _) = run_kit(Fault::RejectsNewerMinor, &scenario);
    assert_eq!(code, Some(1));
    // A file naming no check of the kit is refused.
    std::fs::write(&file, listed("version-declard")).expect("write");
    let output = kit(&server(Fault::None), &scenario);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&output.stderr).contains(
            "'version-declard' is not a check of the kit (did you mean 'version-declared'?)"
        ),
        "{output:?}"
    );
    // So is one naming no scenario of the kit or of a scenario file: its
    // entry would never match.
    std::fs::write(
        &file,
        listed("version-declared").replace("\"version\"", "\"versoin\""),
    )
    .expect("write");
    let output = kit(&server(Fault::None), &scenario);
    assert_eq!(output.status.code(), Some(2), "{output:?}");
    let said = String::from_utf8_lossy(&output.stderr);
    assert!(
        said.contains(
            "'versoin' is not a scenario of the kit or of a scenario file; did you mean 'version'?"
        ),
        "{said}"
    );
}

#[test]
fn the_human_and_junit_reports_have_a_line_and_a_case_per_check() {
    let url = server(Fault::NoVersion);
    let human = kit(&url, &["--scenario", "text,version"]);
    let text = String::from_utf8_lossy(&human.stdout);
    assert_eq!(human.status.code(), Some(1));
    assert!(text.starts_with("text\n  passed"), "{text}");
    assert!(
        text.contains("  failed           MUST   version-declared: request 1 (a turn declaring 1.0): RUN_STARTED declares no protocolVersion"),
        "{text}"
    );
    assert!(
        text.contains("kit: 8 passed, 1 failed, 0 not exercised (9 checks in 2 scenarios)"),
        "{text}"
    );
    let junit = kit(&url, &["--scenario", "text,version", "--format", "junit"]);
    let xml = String::from_utf8_lossy(&junit.stdout);
    assert_eq!(xml.matches("<testcase ").count(), 9, "{xml}");
    assert_eq!(xml.matches("<failure").count(), 1, "{xml}");
    // The failure carries the sentence it rests on and its link.
    assert!(
        xml.contains("An implementation of this version MUST send its declaration")
            && xml.contains("https://docs.ag-ui.com/spec/1.1/basic/versioning#version-negotiation"),
        "{xml}"
    );
    assert!(xml.contains("<testsuite name=\"version\""), "{xml}");
}

#[test]
fn each_scenario_is_saved_as_an_archive_that_check_reads() {
    let dir = tempfile::tempdir().expect("temp dir");
    let save = dir.path().join("session");
    let url = server(Fault::None);
    let output = kit(
        &url,
        &[
            "--scenario",
            "tool,bad-requests",
            "--save",
            save.to_str().expect("path"),
        ],
    );
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stdout)
    );
    for name in ["tool", "bad-requests"] {
        assert!(
            Path::new(&save.join(format!("{name}.har"))).is_file(),
            "{name}.har"
        );
    }
    let check = cargo_bin_cmd!("agui-lint")
        .args(["check", "--format", "json"])
        .arg(save.join("tool.har"))
        .output()
        .expect("run agui-lint");
    assert_eq!(
        check.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&check.stdout)
    );
    let report: Value = serde_json::from_slice(&check.stdout).expect("JSON");
    assert!(
        report["summary"]["documents"].as_u64() > Some(4),
        "{report}"
    );
}

#[test]
fn a_user_scenario_file_drives_the_agent_and_reports_its_expectations() {
    let dir = tempfile::tempdir().expect("temp dir");
    let file = dir.path().join("weather.json");
    let request = |messages: Value| {
        json!({"threadId": "{{threadId}}", "runId": "{{runId}}", "state": "{{state}}",
            "messages": messages, "tools": [{"name": "lookup", "description": "Looks up",
            "parameters": {"type": "object"}}], "context": [], "forwardedProps": {}})
    };
    let scenario = json!({"name": "lookup round trip", "steps": [
        {"label": "ask", "request": request(json!([{"id": "{{id}}", "role": "user", "content": "Look it up"}])),
         "needs": ["TOOL_CALL_START"], "expect": {"events": ["TOOL_CALL_START"], "outcome": "success"}},
        {"label": "answer", "request": request(json!(["{{history}}",
            {"id": "{{id}}", "role": "tool", "toolCallId": "{{toolCallId}}", "content": "42"}])),
         "expect": {"events": ["TEXT_MESSAGE_START"]}}
    ]});
    std::fs::write(&file, scenario.to_string()).expect("write");
    // The file's scenario runs after the built-in ones, all of them...
    let alone = ["--scenario-file", file.to_str().expect("path")];
    let (_, verdicts) = run_kit(Fault::None, &alone);
    let ran: BTreeSet<&str> = verdicts.keys().map(|(s, _)| s.as_str()).collect();
    for scenario in ["text", "tool", "state", "lookup round trip"] {
        assert!(ran.contains(scenario), "{scenario}: {ran:?}");
    }
    // ... or those --scenario names.
    let file_arg = [
        "--scenario",
        "text",
        "--scenario-file",
        file.to_str().expect("path"),
    ];
    let (code, verdicts) = run_kit(Fault::None, &file_arg);
    assert_eq!(not_passed(&verdicts), BTreeMap::new());
    assert_eq!(code, Some(0));
    let ran: BTreeSet<&str> = verdicts.keys().map(|(s, _)| s.as_str()).collect();
    assert_eq!(ran, BTreeSet::from(["text", "lookup round trip"]));
    assert!(verdicts.contains_key(&("lookup round trip".into(), "expectation-met".into())));
    // An agent that does not call the tool: the scenario is not exercised.
    let (_, verdicts) = run_kit(Fault::Passive, &file_arg);
    assert!(
        verdicts[&("lookup round trip".into(), "expectation-met".into())]
            .starts_with("not-exercised: request 1 (ask): the agent streamed no TOOL_CALL_START")
    );
    // An expectation the server does not meet fails.
    let strict = scenario.to_string().replace("\"success\"", "\"interrupt\"");
    std::fs::write(&file, strict).expect("write");
    let (code, verdicts) = run_kit(Fault::None, &file_arg);
    assert_eq!(code, Some(1));
    assert!(
        verdicts[&("lookup round trip".into(), "expectation-met".into())]
            .contains("ended as success, not interrupt")
    );
}

/// `agui-lint report` of a kit run: the kit's JSON report beside the
/// sessions it saved shows each scenario's checks with their level,
/// verdict and requirement, and links each scenario to its exchanges.
#[test]
fn a_kit_run_is_shown_on_the_report_page_with_its_sessions() {
    let dir = tempfile::tempdir().expect("temp dir");
    let save = dir.path().join("session");
    let json = dir.path().join("kit.json");
    let url = server(Fault::OwnRunId);
    let output = kit(
        &url,
        &[
            "--scenario",
            "tool",
            "--save",
            save.to_str().expect("path"),
            "--format",
            "json",
            "--output",
            json.to_str().expect("path"),
        ],
    );
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    let page = dir.path().join("kit.html");
    let output = cargo_bin_cmd!("agui-lint")
        .current_dir(dir.path())
        .args(["report", "kit.json", "session", "-o"])
        .arg(&page)
        .output()
        .expect("run agui-lint");
    assert!(output.status.success(), "{output:?}");
    let page = std::fs::read_to_string(page).expect("page");
    assert!(
        page.contains("Kit run kit.json: <span class=\"sev sev-error\">fails</span>"),
        "{page}"
    );
    let scenario = page
        .split("scenario <code>tool</code>")
        .nth(1)
        .expect("the scenario");
    // Linked to its saved session, shown on the same page.
    let session = scenario
        .split("<a href=\"#")
        .nth(1)
        .and_then(|rest| rest.split('"').next())
        .expect("a link to its exchanges");
    assert!(
        page.contains(&format!("<section id=\"{session}\"")),
        "{session}"
    );
    assert!(
        page.contains("session&#x2f;tool.har"),
        "the session's capture"
    );
    // The failed check, with its level and the sentence it rests on.
    assert!(
        scenario.contains("<td class=\"sev sev-error\">failed</td>"),
        "{scenario}"
    );
    assert!(
        scenario.contains("<td>MUST</td>") || scenario.contains("<td>must</td>"),
        "{scenario}"
    );
    assert!(scenario.contains("<blockquote"), "{scenario}");
}
