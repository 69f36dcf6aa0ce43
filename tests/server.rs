//! The server guard end to end (feature `axum`): the router of
//! `examples/server.rs`, served on 127.0.0.1 on a free port, answers real
//! HTTP requests; the tower layer and the warning settings are checked on
//! routers built the same way.

#[path = "../examples/server.rs"]
#[allow(dead_code)] // its `main` runs only as the example
mod example;

use std::fmt::Write as _;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use agui_lint::server::{Guard, Validated, ValidatedRunAgentInput, Warnings};
use agui_lint::{EventStream, Kind, Settings, Validator};
use axum::body::Body;
use axum::extract::Request;
use axum::routing;
use axum::Router;
use http_body_util::BodyExt;
use serde_json::{json, Value};
use tower::Service;

#[path = "common/recorder.rs"]
mod recorder;
use recorder::Recorder;

/// Serves `router` on 127.0.0.1, on a port the system picks, for the rest
/// of the test process.
fn serve(router: Router) -> SocketAddr {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1");
    listener
        .set_nonblocking(true)
        .expect("non-blocking listener");
    let address = listener.local_addr().expect("local address");
    std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .enable_all()
            .build()
            .expect("tokio runtime");
        runtime.block_on(async move {
            let listener = tokio::net::TcpListener::from_std(listener).expect("tokio listener");
            example::serve(listener, router).await.expect("serve");
        });
    });
    address
}

/// The example's endpoint, as `cargo run --example server` serves it.
fn example_server() -> SocketAddr {
    serve(example::router(example::guard().expect("validator")))
}

/// An HTTP answer.
#[derive(Debug)]
struct Answer {
    status: u16,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

impl Answer {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }

    fn json(&self) -> Value {
        serde_json::from_slice(&self.body)
            .unwrap_or_else(|e| panic!("not JSON ({e}): {}", self.text()))
    }
}

/// POSTs `body` to `/agent` over HTTP/1.1 with a plain socket. Bodies over
/// 1 MiB are announced with `Expect: 100-continue` and sent only if the
/// server asks for them, as curl does, so a refusal by length arrives
/// before any of the body is sent.
fn post(address: SocketAddr, content_type: Option<&str>, body: &[u8]) -> Answer {
    let mut stream = TcpStream::connect(address).expect("connect");
    stream
        .set_read_timeout(Some(Duration::from_secs(60)))
        .expect("timeout");
    let expect = body.len() > 1 << 20;
    let mut head = format!(
        "POST /agent HTTP/1.1\r\nHost: {address}\r\nConnection: close\r\nContent-Length: {}\r\n",
        body.len()
    );
    if let Some(content_type) = content_type {
        let _ = write!(head, "Content-Type: {content_type}\r\n");
    }
    if expect {
        head.push_str("Expect: 100-continue\r\n");
    }
    head.push_str("\r\n");
    stream.write_all(head.as_bytes()).expect("send head");
    let mut reader = BufReader::new(stream.try_clone().expect("clone socket"));
    if !expect {
        stream.write_all(body).expect("send body");
    }
    let (mut status, mut headers) = read_head(&mut reader);
    if status == 100 {
        stream.write_all(body).expect("send body");
        (status, headers) = read_head(&mut reader);
    }
    let chunked = headers
        .iter()
        .any(|(n, v)| n.eq_ignore_ascii_case("transfer-encoding") && v.contains("chunked"));
    let body = if chunked {
        read_chunked(&mut reader)
    } else {
        let mut body = Vec::new();
        reader.read_to_end(&mut body).expect("read body");
        body
    };
    Answer {
        status,
        headers,
        body,
    }
}

fn read_line(reader: &mut impl BufRead) -> String {
    let mut line = String::new();
    reader.read_line(&mut line).expect("read line");
    line.trim_end_matches(['\r', '\n']).to_string()
}

fn read_head(reader: &mut impl BufRead) -> (u16, Vec<(String, String)>) {
    let status_line = read_line(reader);
    let status = status_line
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("status line {status_line:?}"));
    let mut headers = Vec::new();
    loop {
        let line = read_line(reader);
        if line.is_empty() {
            return (status, headers);
        }
        let (name, value) = line.split_once(':').expect("header line");
        headers.push((name.trim().to_string(), value.trim().to_string()));
    }
}

fn read_chunked(reader: &mut impl BufRead) -> Vec<u8> {
    let mut body = Vec::new();
    loop {
        let size_line = read_line(reader);
        let size = usize::from_str_radix(size_line.split(';').next().unwrap_or("").trim(), 16)
            .unwrap_or_else(|_| panic!("chunk size {size_line:?}"));
        if size == 0 {
            while !read_line(reader).is_empty() {}
            return body;
        }
        let mut chunk = vec![0; size];
        reader.read_exact(&mut chunk).expect("chunk");
        body.extend_from_slice(&chunk);
        read_line(reader);
    }
}

/// The `data` of each event of a Server-Sent Events body.
fn sse_data(text: &str) -> Vec<String> {
    text.split("\n\n")
        .filter_map(|block| {
            let data: Vec<&str> = block
                .lines()
                .filter_map(|line| line.strip_prefix("data:"))
                .map(|d| d.strip_prefix(' ').unwrap_or(d))
                .collect();
            (!data.is_empty()).then(|| data.join("\n"))
        })
        .collect()
}

fn run_input(thread_id: &str, run_id: &str, messages: Value) -> Vec<u8> {
    json!({
        "threadId": thread_id, "runId": run_id, "state": {}, "messages": messages,
        "tools": [], "context": [], "forwardedProps": {}
    })
    .to_string()
    .into_bytes()
}

fn valid_input(run_id: &str) -> Vec<u8> {
    run_input(
        "thread-1",
        run_id,
        json!([{"id": "m1", "role": "user", "content": "What is AG-UI?"}]),
    )
}

/// A tool message answering `call_id`, which no assistant message made.
fn unanswered_result(call_id: &str) -> Vec<u8> {
    run_input(
        "thread-1",
        "run-1",
        json!([
            {"id": "m1", "role": "user", "content": "hi"},
            {"id": "m2", "role": "tool", "toolCallId": call_id, "content": "42"}
        ]),
    )
}

/// The findings of a 422 answer, after checking the document's shape.
fn findings(answer: &Answer) -> Vec<Value> {
    assert_eq!(answer.status, 422, "{}", answer.text());
    assert_eq!(answer.header("content-type"), Some("application/json"));
    let document = answer.json();
    assert_eq!(document["tool"], "agui-lint");
    assert_eq!(document["summary"]["documents"], 1);
    let documents = document["documents"].as_array().expect("documents");
    assert_eq!(documents.len(), 1);
    assert_eq!(documents[0]["path"], "/agent");
    assert_eq!(documents[0]["valid"], false);
    documents[0]["diagnostics"]
        .as_array()
        .expect("diagnostics")
        .clone()
}

/// Asserts `events` are a valid AG-UI stream for one run of `run_id`.
fn assert_valid_stream(events: &[String], run_id: &str) {
    let validator = Validator::new().expect("validator");
    let mut stream = EventStream::new();
    let mut found = Vec::new();
    for event in events {
        let report = validator.validate_in_stream(
            &mut stream,
            Some(Kind::Event),
            event.as_bytes(),
            None,
            None,
        );
        found.extend(report.into_diagnostics());
    }
    found.extend(validator.finish_stream(&mut stream));
    assert!(found.is_empty(), "{found:#?}");
    let types: Vec<Value> = events
        .iter()
        .map(|e| serde_json::from_str::<Value>(e).expect("event JSON")["type"].clone())
        .collect();
    assert_eq!(
        types,
        [
            "RUN_STARTED",
            "TEXT_MESSAGE_START",
            "TEXT_MESSAGE_CONTENT",
            "TEXT_MESSAGE_END",
            "RUN_FINISHED"
        ]
    );
    for event in [&events[0], &events[4]] {
        let event: Value = serde_json::from_str(event).expect("event JSON");
        assert_eq!(event["threadId"], "thread-1");
        assert_eq!(event["runId"], run_id);
    }
}

/// The official 1.0 client's real requests (`tests/upstream/traffic-1.0/`)
/// reach the handler: each is judged by the version it declares.
#[test]
fn every_request_of_the_official_1_0_client_is_served() {
    let server = example_server();
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/upstream/traffic-1.0");
    let mut served = 0;
    for entry in std::fs::read_dir(&dir).expect("the vendored traffic") {
        let path = entry.expect("entry").path();
        if !path.to_string_lossy().ends_with(".request.json") {
            continue;
        }
        let body = std::fs::read(&path).expect("request");
        let answer = post(server, Some("application/json"), &body);
        assert_eq!(answer.status, 200, "{}: {}", path.display(), answer.text());
        assert!(answer.text().contains("RUN_STARTED"), "{}", path.display());
        served += 1;
    }
    assert_eq!(served, 3, "the three requests of the vendored traffic");
}

#[test]
fn a_valid_input_gets_an_event_stream() {
    let server = example_server();
    let answer = post(server, Some("application/json"), &valid_input("run-7"));
    assert_eq!(answer.status, 200, "{}", answer.text());
    assert_eq!(answer.header("content-type"), Some("text/event-stream"));
    assert_valid_stream(&sse_data(&answer.text()), "run-7");
}

#[test]
fn a_tool_result_for_an_unknown_call_gets_422_naming_the_rule_and_pointer() {
    let server = example_server();
    let answer = post(
        server,
        Some("application/json"),
        &unanswered_result("call_9"),
    );
    let findings = findings(&answer);
    let finding = findings
        .iter()
        .find(|d| d["rule"] == "tool-result-without-call")
        .unwrap_or_else(|| panic!("{findings:#?}"));
    assert_eq!(finding["severity"], "error");
    assert_eq!(finding["pointer"], "/messages/1/toolCallId");
    assert!(finding["message"].as_str().unwrap().contains("'call_9'"));
    assert_eq!(finding["line"], 1);
    assert!(finding["column"].as_u64().unwrap() > 1, "{finding}");
}

#[test]
fn a_body_that_is_not_json_gets_422_invalid_json() {
    let server = example_server();
    let answer = post(server, Some("application/json"), b"{\"threadId\": ");
    let findings = findings(&answer);
    assert_eq!(findings.len(), 1, "{findings:#?}");
    assert_eq!(findings[0]["rule"], "invalid-json");
    assert_eq!(findings[0]["pointer"], "");
    assert_eq!(findings[0]["line"], 1);
}

#[test]
fn a_content_type_other_than_json_gets_415() {
    let server = example_server();
    for content_type in [
        Some("text/plain"),
        Some("application/x-www-form-urlencoded"),
        None,
    ] {
        let answer = post(server, content_type, &valid_input("run-1"));
        assert_eq!(answer.status, 415, "{content_type:?}: {}", answer.text());
        assert!(answer.json()["error"]
            .as_str()
            .unwrap()
            .contains("application/json"));
    }
    let answer = post(
        server,
        Some("application/json; charset=utf-8"),
        &valid_input("run-1"),
    );
    assert_eq!(answer.status, 200);
}

#[test]
fn a_body_over_the_limit_gets_413() {
    let server = example_server();
    // Valid JSON, padded past the default 2 MiB limit.
    let mut input: Value = serde_json::from_slice(&valid_input("run-1")).unwrap();
    input["state"] = json!({ "padding": "x".repeat(3 << 20) });
    let answer = post(
        server,
        Some("application/json"),
        input.to_string().as_bytes(),
    );
    assert_eq!(answer.status, 413, "{}", answer.text());
    assert!(answer.json()["error"].as_str().unwrap().contains("2 MiB"));
}

#[test]
fn two_hundred_concurrent_requests_share_one_validator() {
    let server = example_server();
    let clients: Vec<_> = (0..200)
        .map(|i| {
            std::thread::spawn(move || {
                if i % 2 == 0 {
                    let run_id = format!("run-{i}");
                    let answer = post(server, Some("application/json"), &valid_input(&run_id));
                    assert_eq!(answer.status, 200, "request {i}: {}", answer.text());
                    assert_valid_stream(&sse_data(&answer.text()), &run_id);
                } else {
                    let call_id = format!("call-{i}");
                    let answer = post(
                        server,
                        Some("application/json"),
                        &unanswered_result(&call_id),
                    );
                    let findings = findings(&answer);
                    assert!(
                        findings
                            .iter()
                            .any(|d| d["rule"] == "tool-result-without-call"
                                && d["message"]
                                    .as_str()
                                    .unwrap()
                                    .contains(&format!("'{call_id}'"))),
                        "request {i}: {findings:#?}"
                    );
                }
            })
        })
        .collect();
    for (i, client) in clients.into_iter().enumerate() {
        client
            .join()
            .unwrap_or_else(|_| panic!("request {i} failed"));
    }
}

/// An input with findings that do not block it: an unknown key, and a tool
/// call left unanswered whose id and arguments hold `secret` and a large
/// number.
fn input_with_warnings(secret: &str) -> Vec<u8> {
    json!({
        "threadId": "t", "runId": "r", "state": {}, "context": [], "forwardedProps": {},
        "tools": [{"name": "lookup", "description": "looks up", "parameters": {
            "type": "object", "properties": {"pin": {"type": "string"}}}}],
        "messages": [
            {"id": "m1", "role": "user", "content": "hi", "colour": "blue"},
            {"id": "m2", "role": "assistant", "toolCalls": [{"id": secret, "type": "function",
                "function": {"name": "lookup", "arguments": "{\"pin\": 9007199254740993}"}}]},
            {"id": "m3", "role": "user", "content": "and?"}
        ]
    })
    .to_string()
    .into_bytes()
}

/// Calls `router` in this process with a JSON POST of `body` to `/agent`.
async fn call(router: &mut Router, body: Body) -> (u16, axum::http::HeaderMap, Vec<u8>) {
    let request = axum::http::Request::post("/agent")
        .header("content-type", "application/json")
        .body(body)
        .expect("request");
    std::future::poll_fn(|cx| <Router as Service<Request>>::poll_ready(router, cx))
        .await
        .expect("ready");
    let response = router.call(request).await.expect("infallible");
    let status = response.status().as_u16();
    let headers = response.headers().clone();
    let body = response
        .into_body()
        .collect()
        .await
        .expect("body")
        .to_bytes()
        .to_vec();
    (status, headers, body)
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("tokio runtime")
}

#[test]
fn the_layer_guards_a_plain_handler_and_returns_warnings_in_a_header() {
    async fn plain(request: Request) -> String {
        let validated = request
            .extensions()
            .get::<Validated>()
            .cloned()
            .expect("the layer's result");
        let body = request
            .into_body()
            .collect()
            .await
            .expect("body")
            .to_bytes();
        // The handler still gets the body, unchanged.
        let reread: Value = serde_json::from_slice(&body).expect("JSON body");
        format!(
            "{} {} {}",
            validated.input.run_id,
            validated.findings.len(),
            reread["runId"]
        )
    }
    let guard = Guard::shared().with_warnings(Warnings::Header);
    let router = Router::new().route("/agent", routing::post(plain).layer(guard.layer()));
    let server = serve(router);

    let answer = post(
        server,
        Some("application/json"),
        &input_with_warnings("call_1"),
    );
    assert_eq!(answer.status, 200, "{}", answer.text());
    assert_eq!(answer.text(), "r 3 \"r\"");
    assert_eq!(answer.header("agui-lint-warning-count"), Some("3"));
    let warnings: Value =
        serde_json::from_str(answer.header("agui-lint-warnings").expect("header")).unwrap();
    let rules: Vec<&str> = warnings
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["rule"].as_str().unwrap())
        .collect();
    assert_eq!(
        rules,
        [
            "unknown-field",
            "tool-call-without-result",
            "tool-arguments-schema-mismatch"
        ]
    );
    assert_eq!(warnings[0]["pointer"], "/messages/0/colour");

    let findings = findings(&post(
        server,
        Some("application/json"),
        &unanswered_result("x"),
    ));
    assert!(findings
        .iter()
        .any(|d| d["rule"] == "tool-result-without-call"));
    assert_eq!(post(server, Some("text/plain"), b"{}").status, 415);
    // A clean input carries no warning headers.
    let answer = post(server, Some("application/json"), &valid_input("run-1"));
    assert_eq!(answer.status, 200);
    assert_eq!(answer.header("agui-lint-warnings"), None);
}

#[test]
fn the_extractor_behind_the_layer_takes_the_layers_result() {
    async fn agent(ValidatedRunAgentInput(input): ValidatedRunAgentInput) -> String {
        input.run_id
    }
    let guard = Guard::shared().with_warnings(Warnings::Header);
    let router = Router::new()
        .route("/agent", routing::post(agent))
        .route_layer(guard.layer());
    runtime().block_on(async {
        let mut router = router;
        let (status, headers, body) =
            call(&mut router, Body::from(input_with_warnings("call_1"))).await;
        assert_eq!((status, body.as_slice()), (200, b"r".as_slice()));
        assert_eq!(headers["agui-lint-warning-count"], "3");
    });
}

#[test]
fn a_streamed_body_over_the_limit_gets_413_without_a_length() {
    let guard = example::guard().expect("validator").with_body_limit(1024);
    let chunks = (0..4).map(|_| Ok::<_, std::convert::Infallible>(vec![b' '; 512]));
    runtime().block_on(async {
        let mut router = example::router(guard);
        let body = Body::from_stream(futures_util::stream::iter(chunks));
        let (status, _, body) = call(&mut router, body).await;
        assert_eq!(status, 413, "{}", String::from_utf8_lossy(&body));
        // Within the limit, the same route checks the body.
        let (status, _, _) = call(&mut router, Body::from(valid_input("run-1"))).await;
        assert_eq!(status, 200);
    });
}

#[test]
fn masked_findings_are_logged_and_answered_without_the_requests_values() {
    const SECRET: &str = "sk_live_51HxSecret";
    let records = Arc::new(Mutex::new(Vec::new()));
    for masked in [false, true] {
        records.lock().unwrap().clear();
        let validator = Validator::new()
            .expect("validator")
            .with_settings(Settings::default().mask_values(masked));
        let mut router = example::router(Guard::new(validator));
        let (accepted, rejected) =
            tracing::subscriber::with_default(Recorder::new(records.clone(), "agui_lint"), || {
                runtime().block_on(async {
                    let accepted = call(&mut router, Body::from(input_with_warnings(SECRET))).await;
                    let rejected = call(&mut router, Body::from(unanswered_result(SECRET))).await;
                    (accepted, rejected)
                })
            });
        assert_eq!(accepted.0, 200);
        let logged = records.lock().unwrap().join("\n");
        assert_eq!(logged.lines().count(), 3, "{logged}");
        assert!(
            logged.contains("rule=tool-call-without-result pointer=/messages/1/toolCalls/0 "),
            "{logged}"
        );
        assert_eq!(rejected.0, 422);
        let answered = String::from_utf8_lossy(&rejected.2).into_owned();
        assert!(
            answered.contains("\"tool-result-without-call\""),
            "{answered}"
        );
        assert!(
            answered.contains("\"/messages/1/toolCallId\""),
            "{answered}"
        );
        for shown in [&logged, &answered] {
            assert_eq!(shown.contains(SECRET), !masked, "{shown}");
        }
        assert_eq!(logged.contains("9007199254740993"), !masked, "{logged}");
    }
}

/// A `tracing_subscriber` writer into a shared buffer.
#[derive(Clone)]
struct Captured(Arc<Mutex<Vec<u8>>>);

impl Write for Captured {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[test]
fn the_examples_logger_prints_the_warnings_of_an_accepted_request() {
    let buffer = Arc::new(Mutex::new(Vec::new()));
    let writer = Captured(buffer.clone());
    let logger = example::logger(move || writer.clone());
    let guard = example::guard().expect("validator");
    let mut router = example::router(guard.clone());
    let (status, _, _) = tracing::subscriber::with_default(logger, || {
        runtime().block_on(async {
            let answer = call(&mut router, Body::from(input_with_warnings("call_1"))).await;
            // The response's check runs beside its stream: let it end.
            for _ in 0..100_000 {
                if guard.response_stats().checking == 0 {
                    break;
                }
                tokio::task::yield_now().await;
            }
            answer
        })
    });
    assert_eq!(status, 200);
    let printed = String::from_utf8(buffer.lock().unwrap().clone()).expect("UTF-8");
    let lines: Vec<&str> = printed.lines().collect();
    // The request's three warnings, then the check of the agent's own
    // response stream (the example's guard checks responses too).
    assert_eq!(lines.len(), 4, "{printed}");
    for line in &lines[..3] {
        assert!(line.contains(" WARN agui_lint: "), "{line}");
    }
    assert!(
        lines[3].contains(
            " INFO agui_lint::response: response stream checked: 0 errors, 0 warnings in 5 events"
        ),
        "{}",
        lines[3]
    );
    assert!(
        printed
            .contains("unknown key 'colour' rule=unknown-field pointer=/messages/0/colour line=1"),
        "{printed}"
    );
}

/// Hostile bodies of every kind the guard has met: each must be answered,
/// not take the server down.
fn hostile_bodies() -> Vec<(&'static str, Vec<u8>)> {
    // References that fan out: each link refers to the next twice.
    let mut defs = serde_json::Map::new();
    for i in 0..30 {
        let next = format!("#/$defs/a{}", i + 1);
        defs.insert(
            format!("a{i}"),
            json!({"oneOf": [{"$ref": next}, {"$ref": next}]}),
        );
    }
    defs.insert("a30".into(), json!({"type": "string"}));
    let fan_out = serde_json::to_vec(&json!({
        "threadId": "t", "runId": "r",
        "tools": [{"name": "f", "description": "d", "parameters": {
            "type": "object", "$defs": defs, "properties": {"x": {"$ref": "#/$defs/a0"}}}}],
        "messages": [{"id": "m", "role": "assistant", "toolCalls": [{"id": "c", "type": "function",
            "function": {"name": "f", "arguments": "{\"x\": 5}"}}]}]
    }))
    .expect("JSON");
    let repeated = format!(
        r#"{{"threadId":"t","runId":"r","state":{{{}}}}}"#,
        vec![r#""a":0"#; 150_000].join(",")
    );
    let roles = format!(
        r#"{{"threadId":"t","runId":"r","messages":[{}]}}"#,
        (0..10_000)
            .map(|i| format!(r#"{{"id":"m{i}","role":"assitant","content":"hi"}}"#))
            .collect::<Vec<_>>()
            .join(",")
    );
    let unknown = format!(
        r#"{{"threadId":"t","runId":"r"{}}}"#,
        (0..50_000)
            .map(|i| format!(r#","k{i}":0"#))
            .collect::<String>()
    );
    let ids = format!(
        r#"{{"threadId":"t","runId":"r","messages":[{}]}}"#,
        vec![r#"{"id":"m","role":"user","content":"hi"}"#; 20_000].join(",")
    );
    let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
    vec![
        ("fan-out", fan_out),
        ("repeated keys", repeated.into_bytes()),
        ("misspelt roles", roles.into_bytes()),
        ("unknown keys", unknown.into_bytes()),
        ("repeated ids", ids.into_bytes()),
        ("deep nesting", deep.into_bytes()),
    ]
}

/// Sends a request whose body never finishes arriving: the head announces
/// `length` bytes, and one byte follows every 200 ms until `stop`.
fn slow_body(address: SocketAddr, length: usize, stop: Arc<std::sync::atomic::AtomicBool>) -> u16 {
    let mut stream = TcpStream::connect(address).expect("connect");
    stream
        .set_read_timeout(Some(Duration::from_secs(60)))
        .expect("timeout");
    let head = format!(
        "POST /agent HTTP/1.1\r\nHost: {address}\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: {length}\r\n\r\n"
    );
    stream.write_all(head.as_bytes()).expect("send head");
    let mut reader = BufReader::new(stream.try_clone().expect("clone socket"));
    let writer = std::thread::spawn(move || {
        for _ in 0..length {
            if stop.load(std::sync::atomic::Ordering::Relaxed) || stream.write_all(b" ").is_err() {
                return;
            }
            std::thread::sleep(Duration::from_millis(200));
        }
    });
    let (status, _) = read_head(&mut reader);
    drop(writer);
    status
}

#[test]
fn a_valid_request_is_answered_promptly_while_eight_hostile_ones_are_in_flight() {
    let guard = example::guard()
        .expect("validator")
        .with_body_timeout(Duration::from_secs(3));
    let address = serve(example::router(guard));
    // Warm up: the first request compiles the schemas it needs.
    assert_eq!(
        post(address, Some("application/json"), &valid_input("warm")).status,
        200
    );
    let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let mut hostile = Vec::new();
    for (name, body) in hostile_bodies() {
        hostile.push(std::thread::spawn(move || {
            (name, post(address, Some("application/json"), &body).status)
        }));
    }
    for _ in 0..2 {
        let stop = stop.clone();
        hostile.push(std::thread::spawn(move || {
            ("slow body", slow_body(address, 1000, stop))
        }));
    }
    // Let them arrive and start being checked.
    std::thread::sleep(Duration::from_millis(300));
    let mut best = Duration::MAX;
    for attempt in 0..3 {
        let started = std::time::Instant::now();
        let answer = post(
            address,
            Some("application/json"),
            &valid_input(&format!("v{attempt}")),
        );
        assert_eq!(answer.status, 200, "{}", answer.text());
        best = best.min(started.elapsed());
    }
    eprintln!("a valid request took {best:?} while eight hostile ones were in flight");
    assert!(
        best < Duration::from_millis(100),
        "a valid request took {best:?} while hostile ones were in flight"
    );
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    for handle in hostile {
        let (name, status) = handle.join().expect("a hostile request was answered");
        // Every hostile request gets an answer: accepted with warnings
        // (200: the fan-out is a valid request whose arguments are left
        // unchecked), refused (422), too slow to arrive (408) or to check
        // (503); never a dropped connection.
        assert!([200, 408, 422, 503].contains(&status), "{name}: {status}");
    }
    // And the server is still up.
    assert_eq!(
        post(address, Some("application/json"), &valid_input("after")).status,
        200
    );
}

#[test]
fn a_compressed_body_gets_415_naming_the_encoding() {
    let address = example_server();
    let mut stream = TcpStream::connect(address).expect("connect");
    let body = valid_input("gz");
    let head = format!(
        "POST /agent HTTP/1.1\r\nHost: {address}\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Encoding: gzip\r\nContent-Length: {}\r\n\r\n",
        body.len()
    );
    stream.write_all(head.as_bytes()).expect("send head");
    stream.write_all(&body).expect("send body");
    let mut reader = BufReader::new(stream);
    let (status, _) = read_head(&mut reader);
    let mut text = String::new();
    reader.read_to_string(&mut text).expect("body");
    assert_eq!(status, 415);
    assert!(text.contains("Content-Encoding 'gzip'"), "{text}");
}

#[test]
fn a_body_that_does_not_arrive_in_time_gets_408() {
    let guard = example::guard()
        .expect("validator")
        .with_body_timeout(Duration::from_millis(300));
    let address = serve(example::router(guard));
    let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let started = std::time::Instant::now();
    assert_eq!(slow_body(address, 100, stop.clone()), 408);
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    assert!(started.elapsed() < Duration::from_secs(5));
}

#[test]
fn a_check_over_its_budget_gets_503_naming_the_rule() {
    let guard = example::guard()
        .expect("validator")
        .with_check_timeout(Duration::ZERO);
    let address = serve(example::router(guard));
    // A body past the size checked on the executor's thread.
    let messages: Vec<Value> = (0..2000)
        .map(|i| json!({"id": format!("m{i}"), "role": "user", "content": "hello"}))
        .collect();
    let answer = post(
        address,
        Some("application/json"),
        &run_input("t", "r", json!(messages)),
    );
    assert_eq!(answer.status, 503, "{}", answer.text());
    assert_eq!(answer.json()["rule"], "check-timed-out");
    // A small one is checked on the spot, whatever the budget.
    assert_eq!(
        post(address, Some("application/json"), &valid_input("small")).status,
        200
    );
}

#[test]
fn a_guards_answer_reports_at_most_a_hundred_findings() {
    let address = example_server();
    let messages: Vec<Value> = (0..500)
        .map(|_| json!({"id": "", "role": "user", "content": "hi"}))
        .collect();
    let answer = post(
        address,
        Some("application/json"),
        &run_input("t", "r", json!(messages)),
    );
    assert_eq!(answer.status, 422);
    let found = findings(&answer);
    assert_eq!(found.len(), 101, "100 findings and the summary");
    assert!(found.iter().any(|f| f["rule"] == "too-many-findings"));
}

/// A masked guard's 422 still says what to fix: the keys it names stay,
/// the request's values go.
#[test]
fn a_masked_422_names_the_missing_key() {
    let validator = Validator::new()
        .expect("validator")
        .with_settings(Settings::default().mask_values(true));
    let mut router = example::router(Guard::new(validator));
    let body = r#"{"thread_id":"t","run_id":"r","state":{},"tools":[],"context":[],"forwardedProps":{},
        "messages":[{"id":"m","role":"user","content":"sk_live_51HxSecret"},{"id":"m2","role":"tool","content":"x","tool_call_id":"call_secret"}]}"#;
    let (status, _, answer) = runtime().block_on(call(&mut router, Body::from(body)));
    assert_eq!(status, 422);
    let answer = String::from_utf8_lossy(&answer).into_owned();
    for named in [
        "missing required key 'threadId'",
        "found 'thread_id'; the key is spelled 'threadId'",
        "missing required key 'toolCallId'",
        "\"/messages/1/tool_call_id\"",
    ] {
        assert!(answer.contains(named), "no {named} in {answer}");
    }
    assert!(!answer.contains("call_secret"), "{answer}");
}

/// `agui-lint probe` finds the example's endpoint clean: both built-in
/// runs, in 1.0 (as `@ag-ui/client` 1.0 declares) and in 1.1, request and
/// response, transport and events.
#[test]
fn the_probe_finds_the_example_endpoint_clean() {
    let address = example_server();
    let url = format!("http://{address}/agent");
    for protocol in ["1.0", "1.1", "0"] {
        let output = assert_cmd::cargo::cargo_bin_cmd!("agui-lint")
            .args([
                "probe",
                &url,
                "--format",
                "json",
                "--strict",
                "--protocol",
                protocol,
            ])
            .output()
            .expect("run agui-lint probe");
        let report: Value = serde_json::from_slice(&output.stdout).expect("JSON report");
        assert_eq!(
            report["summary"]["errors"]
                .as_u64()
                .zip(report["summary"]["warnings"].as_u64()),
            Some((0, 0)),
            "{protocol}: {report:#}"
        );
        // Two exchanges: each a request and five events.
        assert_eq!(report["summary"]["documents"], 12, "{protocol}: {report:#}");
        assert_eq!(output.status.code(), Some(0), "{protocol}");
    }
}

/// The example server passes its own kit, and its response guard stays
/// silent on every answer the kit judges conformant: one story for one
/// behaviour (a request declaring a newer minor answered with the server's
/// own version passes `newer-minor-served` and is no mismatch either).
#[test]
fn the_example_server_passes_its_own_kit_with_its_guard_silent() {
    let guard = example::guard().expect("validator");
    let address = serve(example::router(guard.clone()));
    let url = format!("http://{address}/agent");
    let output = assert_cmd::cargo::cargo_bin_cmd!("agui-lint")
        .args(["probe", &url, "--suite", "--format", "json", "--quiet"])
        .output()
        .expect("run agui-lint probe --suite");
    let report: Value = serde_json::from_slice(&output.stdout).expect("JSON report");
    let verdicts: Vec<String> = report["scenarios"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|s| {
            s["checks"]
                .as_array()
                .into_iter()
                .flatten()
                .map(move |c| format!("{}/{}: {}", s["name"], c["check"], c["verdict"]))
        })
        .collect();
    assert!(
        verdicts
            .iter()
            .any(|v| v.contains("newer-minor-served") && v.ends_with("\"passed\"")),
        "{verdicts:#?}"
    );
    assert!(
        !verdicts.iter().any(|v| v.ends_with("\"failed\"")),
        "{verdicts:#?}"
    );
    assert_eq!(output.status.code(), Some(0), "{report:#}");
    let stats = guard.response_stats();
    assert!(stats.streams > 5, "{stats:?}");
    assert_eq!((stats.errors, stats.warnings), (0, 0), "{stats:?}");
}
