//! `agui-lint replay` on 127.0.0.1: recorded responses served as recorded
//! (a broken stream stays broken), ids fitted to the request, recordings
//! matched in order or by request, at the recorded pace, and the address
//! it listens on said.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

#[path = "common/listening.rs"]
mod listening;

use listening::{header, post, Listening};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn path(relative: &str) -> String {
    root().join(relative).to_str().expect("utf-8").to_owned()
}

fn request(thread: &str, run: &str, user: &str) -> String {
    serde_json::json!({
        "threadId": thread, "runId": run, "state": {}, "tools": [], "context": [],
        "forwardedProps": {}, "messages": [{"id": "u1", "role": "user", "content": user}]
    })
    .to_string()
}

#[test]
fn a_broken_stream_is_served_byte_for_byte() {
    // A capture that fails `check` on purpose: served as it was recorded,
    // framing and faults included.
    let capture = "tests/upstream/traffic-1.0/chat.response.sse";
    let recorded = std::fs::read(root().join(capture)).expect("capture");
    let dir = tempfile::tempdir().expect("temp dir");
    let broken = dir.path().join("broken.sse");
    let mut bytes = recorded.clone();
    bytes.truncate(bytes.len() / 2);
    std::fs::write(&broken, &bytes).expect("write");
    let server = Listening::start(&[
        "replay",
        broken.to_str().expect("utf-8"),
        "--keep-ids",
        "--listen",
        "127.0.0.1:0",
    ]);
    let seen = post(&format!("{}/agent", server.url), "{}", &[]);
    assert_eq!(seen.status, 200);
    assert_eq!(header(&seen, "content-type"), Some("text/event-stream"));
    assert_eq!(seen.body, bytes);
}

#[test]
fn ids_are_fitted_to_the_request_unless_kept() {
    let capture = path("tests/data/frameworks/langgraph/text.har");
    let server = Listening::start(&["replay", &capture, "--listen", "127.0.0.1:0"]);
    let body = post(
        &format!("{}/agent", server.url),
        &request("thread-new", "run-new", "Hi!"),
        &[],
    )
    .body;
    let text = String::from_utf8(body).expect("utf-8");
    assert!(
        text.contains(r#""threadId":"thread-new","runId":"run-new""#),
        "{text}"
    );
    let har: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&capture).expect("capture")).expect("HAR");
    let recorded: serde_json::Value = serde_json::from_str(
        har["log"]["entries"][0]["request"]["postData"]["text"]
            .as_str()
            .expect("request"),
    )
    .expect("request JSON");
    let recorded_thread = recorded["threadId"].as_str().expect("threadId");
    assert!(!text.contains(recorded_thread), "{text}");

    let kept = Listening::start(&["replay", &capture, "--keep-ids", "--listen", "127.0.0.1:0"]);
    let body = post(
        &format!("{}/agent", kept.url),
        &request("thread-new", "run-new", "Hi!"),
        &[],
    )
    .body;
    assert!(String::from_utf8(body)
        .expect("utf-8")
        .contains(recorded_thread));
}

#[test]
fn recordings_are_matched_in_order_or_by_request() {
    let dir = tempfile::tempdir().expect("temp dir");
    let capture = dir.path().join("two.jsonl");
    let run = |text: &str| {
        format!(
            "{}\n{{\"type\":\"RUN_STARTED\",\"threadId\":\"t\",\"runId\":\"r\"}}\n{{\"type\":\"CUSTOM\",\"name\":\"answer\",\"value\":\"{text}\"}}\n{{\"type\":\"RUN_FINISHED\",\"threadId\":\"t\",\"runId\":\"r\"}}\n",
            request("t", "r", text)
        )
    };
    std::fs::write(&capture, format!("{}{}", run("first"), run("second"))).expect("write");
    let capture = capture.to_str().expect("utf-8");
    let answer = |url: &str, asked: &str| {
        let seen = post(&format!("{url}/agent"), &request("t2", "r2", asked), &[]);
        assert_eq!(header(&seen, "content-type"), Some("text/event-stream"));
        let text = String::from_utf8(seen.body).expect("utf-8");
        ["first", "second"]
            .into_iter()
            .find(|n| text.contains(&format!("\"value\":\"{n}\"")))
            .expect("an answer")
    };
    let in_order = Listening::start(&["replay", capture, "--listen", "127.0.0.1:0"]);
    let picks: Vec<&str> = ["second", "second", "second"]
        .iter()
        .map(|asked| answer(&in_order.url, asked))
        .collect();
    assert_eq!(picks, ["first", "second", "first"]);
    let by_request = Listening::start(&[
        "replay",
        capture,
        "--match",
        "request",
        "--listen",
        "127.0.0.1:0",
    ]);
    assert_eq!(answer(&by_request.url, "second"), "second");
    assert_eq!(answer(&by_request.url, "first"), "first");
}

#[test]
fn the_recorded_pace_is_kept_when_asked() {
    let dir = tempfile::tempdir().expect("temp dir");
    let capture = dir.path().join("paced.jsonl");
    std::fs::write(
        &capture,
        "{\"type\":\"RUN_STARTED\",\"threadId\":\"t\",\"runId\":\"r\",\"timestamp\":1000}\n{\"type\":\"RUN_FINISHED\",\"threadId\":\"t\",\"runId\":\"r\",\"timestamp\":1600}\n",
    )
    .expect("write");
    let capture = capture.to_str().expect("utf-8");
    let paced = Listening::start(&[
        "replay",
        capture,
        "--pace",
        "recorded",
        "--listen",
        "127.0.0.1:0",
    ]);
    let started = Instant::now();
    let seen = post(&format!("{}/agent", paced.url), "{}", &[]);
    // The first event at once, the second after the recorded gap.
    assert!(
        seen.first_byte < Duration::from_millis(600),
        "{:?}",
        seen.first_byte
    );
    assert!(
        started.elapsed() >= Duration::from_millis(600),
        "{:?}",
        started.elapsed()
    );
}

#[test]
fn the_address_is_said_and_a_reachable_one_warned_of() {
    let capture = path("tests/upstream/traffic-1.0/chat.response.sse");
    let mut server = Listening::start(&["replay", &capture, "--listen", "0.0.0.0:0"]);
    assert!(server.url.starts_with("http://0.0.0.0:"), "{}", server.url);
    server.wait_for("is not a loopback address");
    let local = Listening::start(&["replay", &capture, "--listen", "127.0.0.1:0"]);
    let url = format!("{}/agent", local.url);
    post(&url, "{}", &[]);
    let mut local = local;
    local.wait_for("POST /agent");
    assert!(local
        .printed()
        .iter()
        .all(|line| !line.contains("loopback")));
    assert!(Path::new(&capture).exists());
}

/// What `agui-lint decode` prints of a binary body: one event a line.
fn decoded(body: &[u8]) -> Vec<serde_json::Value> {
    use std::io::Write;
    use std::process::{Command, Stdio};
    let mut child = Command::new(env!("CARGO_BIN_EXE_agui-lint"))
        .args(["decode", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("decode");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(body)
        .expect("write");
    let output = child.wait_with_output().expect("decode");
    assert!(output.status.success(), "a frame did not decode");
    String::from_utf8(output.stdout)
        .expect("utf-8")
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON line"))
        .collect()
}

#[test]
fn a_binary_recording_keeps_every_event_with_only_its_ids_fitted() {
    // Encoded by the official encoder; its ids (t1, r1) are shorter than
    // the request's, and their bytes occur inside other fields.
    let capture = path("tests/data/proto/captures/every-event.aguipb");
    let recorded = std::fs::read(&capture).expect("capture");
    let server = Listening::start(&["replay", &capture, "--listen", "127.0.0.1:0"]);
    let seen = post(
        &format!("{}/agent", server.url),
        &request("a-longer-thread", "run-9", "Hi!"),
        &[],
    );
    assert_eq!(
        header(&seen, "content-type"),
        Some("application/vnd.ag-ui.event+proto")
    );
    let mut expected = decoded(&recorded);
    assert_eq!(expected.len(), 41);
    for event in &mut expected {
        if !matches!(event["type"].as_str(), Some("RUN_STARTED" | "RUN_FINISHED")) {
            continue;
        }
        for (holder, name, from, to) in [
            (None, "threadId", "t1", "a-longer-thread"),
            (None, "runId", "r1", "run-9"),
            (None, "parentRunId", "r1", "run-9"),
            (Some("input"), "threadId", "t1", "a-longer-thread"),
            (Some("input"), "runId", "r1", "run-9"),
        ] {
            let place = match holder {
                Some(holder) => match event.get_mut(holder) {
                    Some(place) => place,
                    None => continue,
                },
                None => &mut *event,
            };
            if place.get(name).and_then(|v| v.as_str()) == Some(from) {
                place[name] = serde_json::json!(to);
            }
        }
    }
    assert_eq!(decoded(&seen.body), expected);
    assert!(
        expected
            .iter()
            .any(|e| e["threadId"] == "a-longer-thread" && e["type"] == "RUN_STARTED"),
        "the ids were fitted"
    );
}

#[test]
fn a_response_that_is_no_stream_is_served_as_recorded() {
    // A run whose server answered 422 with a JSON error: no events.
    let dir = tempfile::tempdir().expect("temp dir");
    let archive = dir.path().join("error.har");
    let error = r#"{"detail":[{"msg":"field required"}]}"#;
    let har = serde_json::json!({"log": {"version": "1.2", "creator": {"name": "t", "version": "1"}, "entries": [{
        "startedDateTime": "2026-01-01T00:00:00Z", "time": 1,
        "request": {"method": "POST", "url": "http://127.0.0.1/agent", "httpVersion": "HTTP/1.1",
            "headers": [], "queryString": [], "cookies": [], "headersSize": -1, "bodySize": -1,
            "postData": {"mimeType": "application/json", "text": request("t", "r", "Hi")}},
        "response": {"status": 422, "statusText": "Unprocessable Entity", "httpVersion": "HTTP/1.1",
            "headers": [], "cookies": [], "headersSize": -1, "bodySize": -1, "redirectURL": "",
            "content": {"size": error.len(), "mimeType": "application/json", "text": error}},
        "cache": {}, "timings": {"send": 0, "wait": 1, "receive": 0}
    }]}});
    std::fs::write(&archive, har.to_string()).expect("write");
    let mut server = Listening::start(&[
        "replay",
        archive.to_str().expect("utf-8"),
        "--listen",
        "127.0.0.1:0",
    ]);
    let seen = post(
        &format!("{}/agent", server.url),
        &request("t2", "r2", "Hi"),
        &[],
    );
    assert_eq!(seen.status, 422);
    assert_eq!(header(&seen, "content-type"), Some("application/json"));
    assert_eq!(seen.body, error.as_bytes());
    let said = server.wait_for("POST /agent");
    assert!(
        said.contains("a recorded 422 application/json, not an event stream"),
        "{said}"
    );
}
