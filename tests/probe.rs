//! `agui-lint probe URL` end to end, against servers on 127.0.0.1 that
//! misbehave on purpose: each is a plain socket answering in the way named,
//! so the transport faults are exact (a chunked body cut mid-event, a
//! stream that stalls, CRLF framing). The session saved with `--save`
//! checks the same with `check`.

use std::io::Write;
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::Path;
use std::process::Output;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use assert_cmd::cargo::cargo_bin_cmd;
use serde_json::{json, Value};

#[path = "common/http_requests.rs"]
mod http_requests;
use http_requests::each_request;

/// How a test server answers a run.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Behaviour {
    /// A correct stream, LF framed, with comments and `event:`/`id:` fields
    /// and a last event without its blank line.
    Correct,
    /// The correct stream as `application/json`.
    WrongContentType,
    /// The correct stream with CRLF line endings.
    Crlf,
    /// A chunked body that stops in the middle of an event, the connection
    /// closed without the last chunk.
    CutMidEvent,
    /// The first event, then nothing for longer than the idle timeout.
    Stalls,
    /// `500 Internal Server Error`.
    ServerError,
    /// Reads the request and never answers.
    NeverAnswers,
    /// A keep-alive comment every 100 ms, for ever: never idle, never done.
    Trickles,
    /// A tool call for the tool the request offers; the follow-up carrying
    /// its result is answered with text.
    CallsTheTool,
    /// The correct stream with a byte that is not UTF-8 in a comment, and
    /// an event ending a message that never started.
    BadByte,
    /// A body sent with `Content-Encoding: gzip` (bytes a decoder would
    /// inflate), which the probe does not decode.
    Gzipped,
    /// An event ending a message that never started, then text content as
    /// fast as it can be sent, never ending.
    Endless,
    /// A correct run of about 300 KB.
    Long,
}

/// One request a test server received: its head and body.
#[derive(Clone, Debug)]
struct Seen {
    head: String,
    body: Value,
}

/// A server on a free port of 127.0.0.1 answering every run as
/// `behaviour`, and what it received.
fn server(behaviour: Behaviour) -> (String, Arc<Mutex<Vec<Seen>>>) {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1");
    let address: SocketAddr = listener.local_addr().expect("address");
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = seen.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(stream) = stream else { continue };
            let log = log.clone();
            std::thread::spawn(move || serve(stream, behaviour, &log));
        }
    });
    (format!("http://{address}/agent"), seen)
}

/// Answers the requests of one connection.
fn serve(stream: TcpStream, behaviour: Behaviour, log: &Mutex<Vec<Seen>>) {
    each_request(stream, |stream, incoming| {
        let body: Value = serde_json::from_slice(&incoming.body).unwrap_or(Value::Null);
        log.lock().expect("log").push(Seen {
            head: incoming.head,
            body: body.clone(),
        });
        answer(stream, behaviour, &body)
    });
}

/// The `RUN_STARTED` answering `body`, declaring the version it declared.
fn run_started(body: &Value) -> Value {
    let mut event =
        json!({"type": "RUN_STARTED", "threadId": body["threadId"], "runId": body["runId"]});
    if let Some(version) = body.get("protocolVersion") {
        event["protocolVersion"] = version.clone();
    }
    event
}

/// The events of a correct run answering `body`.
fn run_events(body: &Value, text: &str) -> Vec<Value> {
    let (thread, run) = (&body["threadId"], &body["runId"]);
    vec![
        run_started(body),
        json!({"type": "TEXT_MESSAGE_START", "messageId": "m1", "role": "assistant"}),
        json!({"type": "TEXT_MESSAGE_CONTENT", "messageId": "m1", "delta": text}),
        json!({"type": "TEXT_MESSAGE_END", "messageId": "m1"}),
        json!({"type": "RUN_FINISHED", "threadId": thread, "runId": run}),
    ]
}

/// The events answering `body` as `behaviour` has it.
fn events(behaviour: Behaviour, body: &Value) -> Vec<Value> {
    let answered_tool = body["messages"]
        .as_array()
        .is_some_and(|m| m.iter().any(|m| m["role"] == "tool"));
    let offers_tool = body["tools"].as_array().is_some_and(|t| !t.is_empty());
    if behaviour != Behaviour::CallsTheTool || answered_tool || !offers_tool {
        return run_events(
            body,
            if answered_tool {
                "It is 21 °C."
            } else {
                "Hello."
            },
        );
    }
    let (thread, run) = (&body["threadId"], &body["runId"]);
    vec![
        run_started(body),
        json!({"type": "TOOL_CALL_START", "toolCallId": "call-1", "toolCallName": "agui_lint_get_weather", "parentMessageId": "a1"}),
        json!({"type": "TOOL_CALL_ARGS", "toolCallId": "call-1", "delta": "{\"city\":\"Berlin\"}"}),
        json!({"type": "TOOL_CALL_END", "toolCallId": "call-1"}),
        json!({"type": "RUN_FINISHED", "threadId": thread, "runId": run}),
    ]
}

/// Writes the answer; whether the connection may serve another request.
fn answer(stream: &mut TcpStream, behaviour: Behaviour, body: &Value) -> bool {
    let events = events(behaviour, body);
    let sse = |newline: &str| {
        let mut text = format!(": agui-lint test server{newline}{newline}");
        for (n, event) in events.iter().enumerate() {
            let kind = event["type"].as_str().unwrap_or_default();
            text.push_str(&format!(
                "event: {kind}{newline}id: {n}{newline}data: {event}{newline}{newline}"
            ));
        }
        text
    };
    let head = |status: &str, content_type: &str, length: usize| {
        format!(
            "HTTP/1.1 {status}\r\nContent-Type: {content_type}\r\nContent-Length: {length}\r\n\r\n"
        )
    };
    let whole = |stream: &mut TcpStream, status: &str, content_type: &str, body: &str| {
        let _ = stream.write_all(head(status, content_type, body.len()).as_bytes());
        let _ = stream.write_all(body.as_bytes());
        let _ = stream.flush();
        true
    };
    match behaviour {
        Behaviour::Correct | Behaviour::CallsTheTool => {
            let mut text = sse("\n");
            // The last event without its blank line, as the official
            // client accepts at the end of a stream.
            text.truncate(text.len() - 1);
            whole(stream, "200 OK", "text/event-stream; charset=utf-8", &text)
        }
        Behaviour::WrongContentType => whole(stream, "200 OK", "application/json", &sse("\n")),
        Behaviour::BadByte => {
            let mut body = b": a comment with \xff in it\n\n".to_vec();
            let text = sse("\n");
            // The broken event just before the last one (RUN_FINISHED).
            let last = text.rfind("event: ").unwrap_or(text.len());
            body.extend_from_slice(&text.as_bytes()[..last]);
            body.extend_from_slice(
                b"data: {\"type\":\"TEXT_MESSAGE_END\",\"messageId\":\"never-started\"}\n\n",
            );
            body.extend_from_slice(&text.as_bytes()[last..]);
            let _ = stream.write_all(head("200 OK", "text/event-stream", body.len()).as_bytes());
            let _ = stream.write_all(&body);
            let _ = stream.flush();
            true
        }
        Behaviour::Gzipped => {
            // A gzip member's header, then bytes that are no event stream.
            let body: &[u8] =
                b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03\xab\xae\x05\x00\r\n\x13\x37";
            let _ = stream.write_all(
                format!(
                    "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nContent-Encoding: gzip\r\nContent-Length: {}\r\n\r\n",
                    body.len()
                )
                .as_bytes(),
            );
            let _ = stream.write_all(body);
            let _ = stream.flush();
            true
        }
        Behaviour::Crlf => whole(stream, "200 OK", "text/event-stream", &sse("\r\n")),
        Behaviour::ServerError => whole(
            stream,
            "500 Internal Server Error",
            "text/plain",
            "Internal Server Error",
        ),
        Behaviour::CutMidEvent => {
            let text = sse("\n");
            let cut = &text[..text.len() / 2];
            let _ = stream.write_all(
                b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n",
            );
            let _ = stream.write_all(format!("{:x}\r\n{cut}\r\n", cut.len()).as_bytes());
            let _ = stream.flush();
            let _ = stream.shutdown(std::net::Shutdown::Both);
            false
        }
        Behaviour::NeverAnswers => {
            std::thread::sleep(Duration::from_secs(5));
            false
        }
        Behaviour::Trickles => {
            let _ = stream.write_all(
                b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n",
            );
            let first = format!("data: {}\n\n", events[0]);
            let _ = stream.write_all(format!("{:x}\r\n{first}\r\n", first.len()).as_bytes());
            for _ in 0..50 {
                let comment = ": keep-alive\n\n";
                if stream
                    .write_all(format!("{:x}\r\n{comment}\r\n", comment.len()).as_bytes())
                    .and_then(|()| stream.flush())
                    .is_err()
                {
                    break;
                }
                std::thread::sleep(Duration::from_millis(100));
            }
            false
        }
        Behaviour::Endless => {
            let _ = stream.write_all(
                b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n",
            );
            let mut first = format!("data: {}\n\n", events[0]);
            first.push_str(
                "data: {\"type\":\"TEXT_MESSAGE_END\",\"messageId\":\"never-started\"}\n\n",
            );
            first.push_str(&format!("data: {}\n\n", events[1]));
            let _ = stream.write_all(format!("{:x}\r\n{first}\r\n", first.len()).as_bytes());
            let content = format!("data: {}\n\n", events[2]).repeat(1000);
            let chunk = format!("{:x}\r\n{content}\r\n", content.len());
            while stream.write_all(chunk.as_bytes()).is_ok() {}
            false
        }
        Behaviour::Long => {
            let mut text = format!("data: {}\n\ndata: {}\n\n", events[0], events[1]);
            let content = format!("data: {}\n\n", events[2]);
            while text.len() < 300_000 {
                text.push_str(&content);
            }
            for event in &events[3..] {
                text.push_str(&format!("data: {event}\n\n"));
            }
            whole(stream, "200 OK", "text/event-stream", &text)
        }
        Behaviour::Stalls => {
            let first = format!("data: {}\n\n", events[0]);
            let _ = stream.write_all(
                b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n",
            );
            let _ = stream.write_all(format!("{:x}\r\n{first}\r\n", first.len()).as_bytes());
            let _ = stream.flush();
            std::thread::sleep(Duration::from_secs(5));
            false
        }
    }
}

fn probe(args: &[&str]) -> Output {
    cargo_bin_cmd!("agui-lint")
        .arg("probe")
        .args(args)
        .env_remove("NO_COLOR")
        .output()
        .expect("run agui-lint")
}

fn check(args: &[&str]) -> Output {
    cargo_bin_cmd!("agui-lint")
        .arg("check")
        .args(args)
        .output()
        .expect("run agui-lint")
}

fn json(output: &Output) -> Value {
    serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
        panic!(
            "not JSON ({e}): {}\n{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        )
    })
}

/// Every finding of a JSON report, as `rule` strings.
fn rules(report: &Value) -> Vec<String> {
    report["documents"]
        .as_array()
        .expect("documents")
        .iter()
        .flat_map(|d| d["diagnostics"].as_array().expect("diagnostics").clone())
        .map(|d| d["rule"].as_str().expect("rule").to_string())
        .collect()
}

/// Probes a server behaving as `behaviour` with short timeouts; the exit
/// code and the rules found.
fn probe_server(behaviour: Behaviour, extra: &[&str]) -> (Option<i32>, Vec<String>, String) {
    let (url, _) = server(behaviour);
    let mut args = vec![
        url.as_str(),
        "--format",
        "json",
        "--idle-timeout",
        "700ms",
        "--timeout",
        "20s",
    ];
    args.extend_from_slice(extra);
    let output = probe(&args);
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    (output.status.code(), rules(&json(&output)), stderr)
}

#[test]
fn a_correct_endpoint_is_clean() {
    let (code, rules, stderr) = probe_server(Behaviour::Correct, &[]);
    assert_eq!(rules, Vec::<String>::new(), "{stderr}");
    assert_eq!(code, Some(0), "{stderr}");
    assert!(
        stderr.contains("probe: text turn: HTTP 200 text/event-stream"),
        "{stderr}"
    );
    assert!(stderr.contains("5 events"), "{stderr}");
}

#[test]
fn each_misbehaving_server_is_reported() {
    let cases: &[(Behaviour, &[&str], Option<i32>)] = &[
        (
            Behaviour::WrongContentType,
            &["unexpected-content-type"],
            Some(0),
        ),
        // @ag-ui/client 1.0.0, the default view, fails the run on it.
        (Behaviour::Crlf, &["sse-carriage-return"], Some(1)),
        (Behaviour::ServerError, &["unexpected-status"], Some(1)),
        (
            Behaviour::CutMidEvent,
            &["response-incomplete", "stream-truncated"],
            Some(1),
        ),
        (Behaviour::Stalls, &["response-incomplete"], Some(1)),
        // One byte that is not UTF-8 never hides the rest of the stream.
        (Behaviour::BadByte, &["event-without-start"], Some(1)),
        // A stream the probe cannot read is never a pass.
        (Behaviour::Gzipped, &["response-not-captured"], Some(1)),
    ];
    for (behaviour, expected, code) in cases {
        let (found_code, found, stderr) = probe_server(*behaviour, &["--scenario", "text"]);
        for rule in *expected {
            assert!(
                found.iter().any(|f| f == rule),
                "{behaviour:?}: no {rule} in {found:?}\n{stderr}"
            );
        }
        assert_eq!(found_code, *code, "{behaviour:?}: {found:?}\n{stderr}");
    }
}

#[test]
fn the_first_byte_and_total_timeouts_cut_the_exchange() {
    let (code, found, stderr) = probe_server(
        Behaviour::NeverAnswers,
        &["--scenario", "text", "--first-byte-timeout", "500ms"],
    );
    assert_eq!(found, ["response-incomplete"], "{stderr}");
    assert!(
        stderr.contains("no response (first-byte timeout)"),
        "{stderr}"
    );
    assert_eq!(code, Some(1));

    let (url, _) = server(Behaviour::Trickles);
    let output = probe(&[
        &url,
        "--scenario",
        "text",
        "--format",
        "json",
        "--timeout",
        "1s",
    ]);
    let report = json(&output);
    let messages: Vec<&str> = report["documents"]
        .as_array()
        .expect("documents")
        .iter()
        .flat_map(|d| d["diagnostics"].as_array().expect("diagnostics"))
        .filter(|d| d["rule"] == "response-incomplete")
        .filter_map(|d| d["message"].as_str())
        .collect();
    assert_eq!(
        messages,
        ["the exchange ran past the total timeout (1 s) and was cut there"],
        "{report:#}"
    );
}

#[test]
fn a_response_past_the_size_limit_is_checked_up_to_it_and_said_to_be_cut() {
    // A long, correct run: what was kept is clean, and the cut is a
    // warning, never a truncated stream blamed on the server.
    let (code, found, stderr) = probe_server(
        Behaviour::Long,
        &["--scenario", "text", "--max-response-size", "64K"],
    );
    assert_eq!(found, ["response-not-captured"], "{stderr}");
    assert_eq!(code, Some(0), "{stderr}");
    assert!(stderr.contains("not recorded"), "{stderr}");

    // An endless stream: its broken event is found, the probe stops at the
    // total timeout, and the save holds no more than the limit.
    let dir = tempfile::tempdir().expect("temp dir");
    let save = dir.path().join("session");
    let (url, _) = server(Behaviour::Endless);
    let output = probe(&[
        &url,
        "--scenario",
        "text",
        "--format",
        "json",
        "--timeout",
        "2s",
        "--max-response-size",
        "256K",
        "--save",
        save.to_str().expect("path"),
    ]);
    let report = json(&output);
    let found = rules(&report);
    for rule in [
        "event-without-start",
        "response-not-captured",
        "response-incomplete",
    ] {
        assert!(found.iter().any(|f| f == rule), "no {rule}: {report:#}");
    }
    assert!(!found.iter().any(|f| f == "invalid-json"), "{report:#}");
    assert_eq!(output.status.code(), Some(1));
    let raw = std::fs::metadata(save.join("exchange-1.response.raw")).expect("raw response");
    assert!(raw.len() <= 256 * 1024, "{}", raw.len());
    let har = std::fs::metadata(save.join("session.har")).expect("archive");
    assert!(har.len() <= 2 * 256 * 1024 + 16 * 1024, "{}", har.len());
    // The saved session checks the same.
    let again = check(&[
        "--format",
        "json",
        save.join("session.har").to_str().expect("path"),
    ]);
    assert_eq!(rules(&json(&again)), found);
}

#[test]
fn warnings_fail_with_strict() {
    let (code, found, _) = probe_server(Behaviour::Crlf, &["--scenario", "text", "--strict"]);
    assert_eq!(found, ["sse-carriage-return"]);
    assert_eq!(code, Some(1));
}

#[test]
fn a_stalled_stream_is_cut_at_the_idle_timeout_and_its_open_run_reported() {
    let (_, found, stderr) = probe_server(Behaviour::Stalls, &["--scenario", "text"]);
    assert!(stderr.contains("cut at the idle timeout"), "{stderr}");
    assert!(
        found.iter().any(|r| r != "response-incomplete"),
        "the open run is reported too: {found:?}"
    );
}

#[test]
fn a_called_client_side_tool_gets_its_result_in_a_follow_up() {
    let (url, seen) = server(Behaviour::CallsTheTool);
    let output = probe(&[&url, "--scenario", "tool", "--format", "json"]);
    let report = json(&output);
    assert_eq!(rules(&report), Vec::<String>::new(), "{report:#}");
    assert_eq!(output.status.code(), Some(0));
    let seen = seen.lock().expect("seen");
    assert_eq!(seen.len(), 2, "{seen:?}");
    let (first, second) = (&seen[0].body, &seen[1].body);
    assert_eq!(first["protocolVersion"], "1.0");
    assert_eq!(second["threadId"], first["threadId"]);
    assert_ne!(second["runId"], first["runId"]);
    let messages = second["messages"].as_array().expect("messages");
    assert_eq!(messages[1]["toolCalls"][0]["id"], "call-1");
    assert_eq!(messages[2]["role"], "tool");
    assert_eq!(messages[2]["toolCallId"], "call-1");
    for request in seen.iter() {
        let head = request.head.to_ascii_lowercase();
        assert!(head.contains("accept: text/event-stream"), "{head}");
        assert!(head.contains("content-type: application/json"), "{head}");
    }
}

#[test]
fn headers_and_the_token_are_sent_and_the_token_never_shown() {
    let (url, seen) = server(Behaviour::CallsTheTool);
    let dir = tempfile::tempdir().expect("temp dir");
    let save = dir.path().join("out");
    let output = cargo_bin_cmd!("agui-lint")
        .args(["probe", &url, "--scenario", "text", "-H", "X-Tenant: dev"])
        .args(["-H", "X-Org: org_private_9", "--secret-header", "x-org"])
        .args(["--token-env", "PROBE_TEST_TOKEN", "--save"])
        .arg(&save)
        .env("PROBE_TEST_TOKEN", "tok_very_secret")
        .output()
        .expect("run");
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    // Header names travel lower-cased (HTTP/1.1 leaves their case free).
    let head = seen.lock().expect("seen")[0].head.to_ascii_lowercase();
    assert!(
        head.contains("authorization: bearer tok_very_secret"),
        "{head}"
    );
    assert!(head.contains("x-tenant: dev"), "{head}");
    assert!(head.contains("x-org: org_private_9"), "{head}");
    for shown in [&output.stdout, &output.stderr] {
        let shown = String::from_utf8_lossy(shown);
        assert!(!shown.contains("tok_very_secret") && !shown.contains("org_private_9"));
    }
    let mut files = 0;
    for entry in std::fs::read_dir(&save).expect("saved") {
        let path = entry.expect("entry").path();
        let text = std::fs::read_to_string(&path).expect("read");
        assert!(!text.contains("tok_very_secret"), "{}", path.display());
        assert!(!text.contains("org_private_9"), "{}", path.display());
        files += usize::from(text.contains("x-org") || text.contains("X-Org"));
    }
    assert!(files > 0, "the header is saved, masked");
    let missing = probe(&[&url, "--token-env", "PROBE_TEST_TOKEN_UNSET_X"]);
    assert_eq!(missing.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&missing.stderr).contains("PROBE_TEST_TOKEN_UNSET_X"));
}

#[test]
fn a_saved_session_checks_identically() {
    for behaviour in [
        Behaviour::CallsTheTool,
        Behaviour::Crlf,
        Behaviour::CutMidEvent,
    ] {
        let (url, _) = server(behaviour);
        let dir = tempfile::tempdir().expect("temp dir");
        let save = dir.path().join("session");
        let save_arg = save.to_str().expect("UTF-8 path");
        for format in ["json", "human", "sarif"] {
            let probed = probe(&[
                &url, "--save", save_arg, "--format", format, "--color", "never",
            ]);
            let har = save.join("session.har");
            let checked = check(&[
                har.to_str().expect("path"),
                "--format",
                format,
                "--color",
                "never",
            ]);
            assert_eq!(
                String::from_utf8_lossy(&probed.stdout),
                String::from_utf8_lossy(&checked.stdout),
                "{behaviour:?} {format}"
            );
            assert_eq!(probed.status.code(), checked.status.code());
            let files: Vec<String> = std::fs::read_dir(&save)
                .expect("saved")
                .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
                .collect();
            assert!(
                files.contains(&"exchange-1.request.json".to_string()),
                "{files:?}"
            );
            assert!(
                files.contains(&"exchange-1.response.raw".to_string()),
                "{files:?}"
            );
        }
    }
}

#[test]
fn requests_and_replays_are_sent_as_given() {
    let (url, seen) = server(Behaviour::Correct);
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let request = root.join("fixtures/1.1/run-agent-input/valid");
    let one = std::fs::read_dir(&request)
        .expect("fixtures")
        .map(|e| e.expect("entry").path())
        .find(|p| p.extension().is_some_and(|e| e == "json"))
        .expect("a valid RunAgentInput");
    let output = probe(&[
        &url,
        "--request",
        one.to_str().expect("path"),
        "--format",
        "json",
    ]);
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stdout)
    );
    let sent = seen.lock().expect("seen")[0].body.clone();
    let on_disk: Value = serde_json::from_slice(&std::fs::read(&one).expect("read")).expect("JSON");
    assert_eq!(sent, on_disk);

    // Replaying the saved session sends its requests again.
    let dir = tempfile::tempdir().expect("temp dir");
    let save = dir.path().join("s");
    let first = probe(&[
        &url,
        "--scenario",
        "text",
        "--save",
        save.to_str().expect("path"),
    ]);
    assert_eq!(first.status.code(), Some(0));
    let before = seen.lock().expect("seen").len();
    let har = save.join("session.har");
    let replayed = probe(&[&url, "--replay", har.to_str().expect("path")]);
    assert_eq!(replayed.status.code(), Some(0));
    let seen = seen.lock().expect("seen");
    assert_eq!(seen.len(), before + 1);
    assert_eq!(seen[before].body, seen[before - 1].body);
}

#[test]
fn an_unreachable_endpoint_is_a_failure_of_the_tool() {
    let port = TcpListener::bind("127.0.0.1:0")
        .expect("bind")
        .local_addr()
        .expect("address")
        .port();
    let output = probe(&[
        &format!("http://127.0.0.1:{port}/agent"),
        "--connect-timeout",
        "2s",
    ]);
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("cannot reach"));
    let not_http = probe(&["ftp://127.0.0.1/agent"]);
    assert_eq!(not_http.status.code(), Some(2));
}

/// A session the user did not save has no file to point into: its findings
/// are placed by exchange and event, never at a line of the in-memory HAR;
/// a saved one points into the saved file.
#[test]
fn an_unsaved_session_places_findings_by_exchange_and_event() {
    let (url, _) = server(Behaviour::BadByte);
    let human = probe(&[&url, "--color", "never"]);
    let stdout = String::from_utf8_lossy(&human.stdout);
    assert!(stdout.contains("event-without-start"), "{stdout}");
    for line in stdout
        .lines()
        .filter(|l| l.contains("error[") || l.contains("warning["))
    {
        // `URL: severity[...]`, not `URL:35:21: ...`.
        assert!(
            line.starts_with(&format!("{url}: ")),
            "a position in {line:?}"
        );
    }
    assert!(
        stdout.contains("response event"),
        "placed by its event: {stdout}"
    );
    let report = json(&probe(&[&url, "--format", "json"]));
    for document in report["documents"].as_array().expect("documents") {
        for d in document["diagnostics"].as_array().expect("diagnostics") {
            assert!(d["line"].is_null() && d["column"].is_null(), "{d}");
        }
    }
    let dir = tempfile::tempdir().expect("temp dir");
    let save = dir.path().join("session");
    let saved = probe(&[
        &url,
        "--save",
        save.to_str().expect("path"),
        "--color",
        "never",
    ]);
    let saved = String::from_utf8_lossy(&saved.stdout);
    assert!(saved.contains("session.har:"), "{saved}");
}
