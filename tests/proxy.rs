//! `agui-lint proxy` on 127.0.0.1, in front of the example server and of
//! `agui-lint replay` serving vendored captures: bytes pass unchanged and
//! as they come, findings are printed live, the saved archive checks with
//! the same findings, and secrets are passed on but never printed or saved.

use std::collections::BTreeMap;
use std::net::{SocketAddr, TcpListener};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::Value;

#[path = "../examples/server.rs"]
#[allow(dead_code)]
mod example;

#[path = "common/listening.rs"]
mod listening;

#[path = "common/http_requests.rs"]
mod http_requests;

use listening::{header, post, Listening};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn path(relative: &str) -> String {
    root().join(relative).to_str().expect("utf-8").to_owned()
}

/// The example server on a free port, for the rest of the test process.
fn example_server() -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    listener.set_nonblocking(true).expect("non-blocking");
    let address = listener.local_addr().expect("address");
    std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .enable_all()
            .build()
            .expect("runtime");
        runtime.block_on(async move {
            let listener = tokio::net::TcpListener::from_std(listener).expect("listener");
            let guard = example::guard().expect("validator");
            example::serve(listener, example::router(guard))
                .await
                .expect("serve");
        });
    });
    address
}

fn run_request(thread: &str) -> String {
    serde_json::json!({
        "threadId": thread, "runId": "run-1", "protocolVersion": "1.0", "state": {},
        "tools": [], "context": [], "forwardedProps": {},
        "messages": [{"id": "u1", "role": "user", "content": "Hello"}]
    })
    .to_string()
}

/// The (rule, message) of every finding, counted.
fn findings_of(items: impl Iterator<Item = (String, String)>) -> BTreeMap<(String, String), usize> {
    let mut counted = BTreeMap::new();
    for item in items {
        *counted.entry(item).or_insert(0) += 1;
    }
    counted
}

/// The JSON Lines a proxy printed with `--format jsonl`.
fn json_lines(proxy: &mut Listening) -> Vec<Value> {
    proxy
        .printed()
        .iter()
        .filter(|l| l.starts_with('{'))
        .map(|l| serde_json::from_str(l).expect("JSON line"))
        .collect()
}

/// The findings among a proxy's JSON Lines, as (rule, message) counts.
fn live_findings(printed: &[Value]) -> BTreeMap<(String, String), usize> {
    findings_of(printed.iter().filter(|v| v.get("rule").is_some()).map(|v| {
        (
            v["rule"].as_str().unwrap_or("").to_owned(),
            v["message"].as_str().unwrap_or("").to_owned(),
        )
    }))
}

/// What `check --format json` reports of `file`, as (rule, message) counts.
fn checked(file: &Path) -> BTreeMap<(String, String), usize> {
    let output = Command::new(env!("CARGO_BIN_EXE_agui-lint"))
        .args(["check", "--format", "json"])
        .arg(file)
        .output()
        .expect("check");
    let report: Value = serde_json::from_slice(&output.stdout).expect("JSON report");
    findings_of(
        report["documents"]
            .as_array()
            .expect("documents")
            .iter()
            .flat_map(|d| d["diagnostics"].as_array().cloned().unwrap_or_default())
            .map(|d| {
                (
                    d["rule"].as_str().unwrap_or("").to_owned(),
                    d["message"].as_str().unwrap_or("").to_owned(),
                )
            }),
    )
}

/// The one archive a `--save` directory holds.
fn saved(dir: &Path) -> PathBuf {
    let found: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("save dir")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "har"))
        .collect();
    assert_eq!(found.len(), 1, "{found:?}");
    found.into_iter().next().expect("archive")
}

/// A proxy on a free port of 127.0.0.1 forwarding to `address`.
fn proxy_to(address: SocketAddr) -> Listening {
    Listening::start(&[
        "proxy",
        "--to",
        &format!("http://{address}"),
        "--listen",
        "127.0.0.1:0",
    ])
}

#[test]
fn the_example_servers_answer_passes_byte_for_byte_and_clean() {
    let server = example_server();
    let dir = tempfile::tempdir().expect("temp dir");
    let mut proxy = Listening::start(&[
        "proxy",
        "--to",
        &format!("http://{server}"),
        "--listen",
        "127.0.0.1:0",
        "--save",
        dir.path().to_str().expect("utf-8"),
    ]);
    let request = run_request("thread-example");
    let direct = post(&format!("http://{server}/agent"), &request, &[]);
    let proxied = post(&format!("{}/agent", proxy.url), &request, &[]);
    assert_eq!(direct.status, 200);
    assert_eq!(proxied.status, direct.status);
    assert_eq!(proxied.body, direct.body);
    assert!(!proxied.body.is_empty());
    assert_eq!(
        header(&proxied, "content-type"),
        header(&direct, "content-type")
    );
    let summary = proxy.wait_for("run 1 (POST /agent): 5 event(s)");
    assert!(summary.contains("0 error(s), 0 warning(s)"), "{summary}");
    assert!(summary.contains("saved as entry 1"), "{summary}");
    assert!(checked(&saved(dir.path())).is_empty());
    // A request the example refuses passes as refused.
    let refused = post(&format!("{}/agent", proxy.url), "{\"threadId\": 1}", &[]);
    assert_eq!(refused.status, 422);
}

#[test]
fn a_closed_log_pipe_never_touches_the_traffic() {
    // `agui-lint proxy --format jsonl | head -c1`: the log's reader is gone
    // before the first line; every run still reaches the client whole.
    let server = example_server();
    let mut proxy = Listening::start_with_stdout_closed(&[
        "proxy",
        "--to",
        &format!("http://{server}"),
        "--listen",
        "127.0.0.1:0",
        "--format",
        "jsonl",
    ]);
    for n in 0..3 {
        let request = run_request(&format!("thread-closed-{n}"));
        let direct = post(&format!("http://{server}/agent"), &request, &[]);
        let proxied = post(&format!("{}/agent", proxy.url), &request, &[]);
        assert_eq!(proxied.status, 200, "run {n}");
        assert_eq!(proxied.body, direct.body, "run {n}");
        assert!(!proxied.body.is_empty());
    }
    assert!(
        proxy.printed().iter().all(|l| !l.contains("panicked")),
        "{:?}",
        proxy.printed()
    );
}

#[test]
fn a_stream_is_passed_on_as_it_comes() {
    // A capture whose second event comes 1.5 s after the first, served at
    // its recorded pace: the first byte reaches the client through the
    // proxy about as soon as without it, long before the second.
    let dir = tempfile::tempdir().expect("temp dir");
    let capture = dir.path().join("slow.jsonl");
    std::fs::write(
        &capture,
        "{\"type\":\"RUN_STARTED\",\"threadId\":\"t\",\"runId\":\"r\",\"timestamp\":1000}\n{\"type\":\"RUN_FINISHED\",\"threadId\":\"t\",\"runId\":\"r\",\"timestamp\":2500}\n",
    )
    .expect("write");
    let server = Listening::start(&[
        "replay",
        capture.to_str().expect("utf-8"),
        "--pace",
        "recorded",
        "--keep-ids",
        "--listen",
        "127.0.0.1:0",
    ]);
    let proxy = Listening::start(&["proxy", "--to", &server.url, "--listen", "127.0.0.1:0"]);
    let direct = post(&format!("{}/agent", server.url), "{}", &[]);
    let proxied = post(&format!("{}/agent", proxy.url), "{}", &[]);
    assert_eq!(proxied.body, direct.body);
    assert!(
        direct.first_byte < Duration::from_millis(1000),
        "{:?}",
        direct.first_byte
    );
    assert!(
        proxied.first_byte < direct.first_byte + Duration::from_millis(500),
        "first byte {:?} through the proxy, {:?} without",
        proxied.first_byte,
        direct.first_byte
    );
}

#[test]
fn findings_are_printed_live_and_the_saved_archive_checks_the_same() {
    // Broken captures (and a clean one), served as recorded.
    let captures = [
        path("fixtures/1.1/streams/invalid/duplicate-start.jsonl"),
        path("fixtures/1.1/streams/invalid/never-ended.jsonl"),
        path("tests/data/frameworks/langgraph/frontend-tool.har"),
        path("tests/data/proto/captures/fixtures-1.1-valid/full-run.aguipb"),
        path("fixtures/1.1/streams/invalid/proto-frame-truncated.aguipb"),
    ];
    let mut replay_args = vec!["replay", "--keep-ids", "--listen", "127.0.0.1:0"];
    replay_args.extend(captures.iter().map(String::as_str));
    let server = Listening::start(&replay_args);
    let dir = tempfile::tempdir().expect("temp dir");
    let mut proxy = Listening::start(&[
        "proxy",
        "--to",
        &server.url,
        "--listen",
        "127.0.0.1:0",
        "--format",
        "jsonl",
        "--save",
        dir.path().to_str().expect("utf-8"),
    ]);
    let runs = 6; // frontend-tool.har holds two exchanges.
    for run in 1..=runs {
        let seen = post(&format!("{}/agent", proxy.url), &run_request("t"), &[]);
        assert_eq!(seen.status, 200);
        proxy.wait_for(&format!(
            "{{\"run\":{run},\"request\":\"POST /agent\",\"summary\""
        ));
    }
    let printed = json_lines(&mut proxy);
    let live = live_findings(&printed);
    let rules: Vec<&str> = live.keys().map(|(rule, _)| rule.as_str()).collect();
    for expected in ["duplicate-start", "never-ended", "proto-frame-truncated"] {
        assert!(rules.contains(&expected), "{expected} not in {rules:?}");
    }
    assert_eq!(live, checked(&saved(dir.path())));
}

#[test]
fn secrets_are_passed_on_and_never_printed_or_saved_unless_asked() {
    // A server that answers with an empty stream and keeps the headers it
    // was sent.
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let address = listener.local_addr().expect("address");
    let heads = Arc::new(Mutex::new(Vec::new()));
    let kept = Arc::clone(&heads);
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(stream) = stream else { return };
            let kept = Arc::clone(&kept);
            std::thread::spawn(move || {
                http_requests::each_request(stream, |stream, incoming| {
                    kept.lock().expect("lock").push(incoming.head.clone());
                    use std::io::Write;
                    let body = "data: {\"type\":\"RUN_STARTED\",\"threadId\":\"t\",\"runId\":\"run-1\"}\n\ndata: {\"type\":\"RUN_FINISHED\",\"threadId\":\"t\",\"runId\":\"run-1\"}\n\n";
                    let _ = write!(
                        stream,
                        "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nSet-Cookie: session=cookie-secret\r\nContent-Length: {}\r\n\r\n{body}",
                        body.len()
                    );
                    true
                });
            });
        }
    });
    for save_secrets in [false, true] {
        let dir = tempfile::tempdir().expect("temp dir");
        let mut args = vec![
            "proxy".to_owned(),
            "--to".to_owned(),
            format!("http://user:url-secret@{address}"),
            "--listen".to_owned(),
            "127.0.0.1:0".to_owned(),
            "--save".to_owned(),
            dir.path().to_str().expect("utf-8").to_owned(),
            "--secret-header".to_owned(),
            "X-Tenant".to_owned(),
        ];
        if save_secrets {
            args.push("--save-secrets".to_owned());
        }
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let mut proxy = Listening::start(&args);
        let seen = post(
            &format!("{}/agent?api_key=query-secret&page=2", proxy.url),
            &run_request("t"),
            &[
                ("Authorization", "Bearer token-secret"),
                ("X-Goog-Api-Key", "goog-secret"),
                ("X-Auth-Token", "xauth-secret"),
                ("x-tenant", "tenant-secret"),
            ],
        );
        assert_eq!(seen.status, 200);
        assert_eq!(header(&seen, "set-cookie"), Some("session=cookie-secret"));
        // The server sent no Date: none is added on the way.
        assert_eq!(header(&seen, "date"), None);
        proxy.wait_for("run 1 (POST /agent?api_key=***&page=2): 2 event(s)");
        let head = heads.lock().expect("lock").pop().expect("a request");
        assert!(head.contains("Bearer token-secret"), "{head}");
        let printed = proxy.printed();
        let secrets = [
            "token-secret",
            "cookie-secret",
            "goog-secret",
            "xauth-secret",
            "url-secret",
            "query-secret",
            "tenant-secret",
        ];
        assert!(
            printed
                .iter()
                .all(|l| secrets.iter().all(|secret| !l.contains(secret))),
            "{printed:?}"
        );
        let archive = std::fs::read_to_string(saved(dir.path())).expect("archive");
        for secret in secrets {
            assert_eq!(archive.contains(secret), save_secrets, "{secret}");
        }
    }
}

#[test]
fn a_chunked_body_passes_whole_whatever_its_content_length_says() {
    // Transfer-Encoding and a Content-Length of 5 on a body of 57 bytes:
    // chunked wins (RFC 9112 section 6.3).
    let body = "data: {\"type\":\"RUN_STARTED\",\"threadId\":\"t\",\"runId\":\"r\"}\n\n";
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let address = listener.local_addr().expect("address");
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(stream) = stream else { return };
            std::thread::spawn(move || {
                http_requests::each_request(stream, |stream, _| {
                    use std::io::Write;
                    let _ = write!(
                        stream,
                        "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n{:x}\r\n{body}\r\n0\r\n\r\n",
                        body.len()
                    );
                    false
                });
            });
        }
    });
    let proxy = proxy_to(address);
    let seen = post(&format!("{}/agent", proxy.url), &run_request("t"), &[]);
    assert_eq!(seen.status, 200);
    assert_eq!(String::from_utf8_lossy(&seen.body), body);
}

#[test]
fn an_unreachable_server_is_a_bad_gateway() {
    let unused = TcpListener::bind("127.0.0.1:0").expect("bind");
    let address = unused.local_addr().expect("address");
    drop(unused);
    let mut proxy = proxy_to(address);
    let seen = post(&format!("{}/agent", proxy.url), &run_request("t"), &[]);
    assert_eq!(seen.status, 502);
    proxy.wait_for("the server cannot be reached");
}

#[test]
fn the_same_scripted_run_recorded_twice_diffs_empty() {
    // The golden-trace workflow: the probe's scripted runs against the
    // example server, recorded twice (fresh ids and times each), diff empty;
    // a run recorded through the proxy diffs empty against the same run
    // recorded by the probe, and a planted change shows.
    let server = example_server();
    let url = format!("http://{server}/agent");
    let dirs: Vec<tempfile::TempDir> = (0..2)
        .map(|_| tempfile::tempdir().expect("temp dir"))
        .collect();
    for dir in &dirs {
        let status = Command::new(env!("CARGO_BIN_EXE_agui-lint"))
            .args(["probe", &url, "--quiet", "--save"])
            .arg(dir.path())
            .status()
            .expect("probe");
        assert_eq!(status.code(), Some(0));
    }
    let session = |dir: &tempfile::TempDir| dir.path().join("session.har");
    let diff = |a: &Path, b: &Path| {
        Command::new(env!("CARGO_BIN_EXE_agui-lint"))
            .arg("diff")
            .args([a, b])
            .output()
            .expect("diff")
    };
    let (first, second) = (session(&dirs[0]), session(&dirs[1]));
    assert_ne!(
        std::fs::read(&first).expect("first"),
        std::fs::read(&second).expect("second")
    );
    let same = diff(&first, &second);
    assert_eq!(
        same.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&same.stdout)
    );
    // The probe's runs sent through the proxy: the proxy's archive is
    // another recording of the same runs.
    let saved_by_proxy = tempfile::tempdir().expect("temp dir");
    let mut proxy = Listening::start(&[
        "proxy",
        "--to",
        &format!("http://{server}"),
        "--listen",
        "127.0.0.1:0",
        "--save",
        saved_by_proxy.path().to_str().expect("utf-8"),
    ]);
    let through = tempfile::tempdir().expect("temp dir");
    let status = Command::new(env!("CARGO_BIN_EXE_agui-lint"))
        .args([
            "probe",
            &format!("{}/agent", proxy.url),
            "--quiet",
            "--save",
        ])
        .arg(through.path())
        .status()
        .expect("probe");
    assert_eq!(status.code(), Some(0));
    proxy.wait_for("run 2 (POST /agent): 5 event(s)");
    let recorded = diff(&first, &saved(saved_by_proxy.path()));
    assert_eq!(
        recorded.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&recorded.stdout)
    );
    // A change planted in the second recording's answer.
    let planted = dirs[1].path().join("planted.har");
    let text = std::fs::read_to_string(&second).expect("second");
    assert!(text.contains("agui-lint checked your input"));
    std::fs::write(
        &planted,
        text.replacen(
            "agui-lint checked your input",
            "agui-lint read your input",
            1,
        ),
    )
    .expect("write");
    let changed = diff(&first, &planted);
    assert_eq!(changed.status.code(), Some(1));
    let shown = String::from_utf8_lossy(&changed.stdout);
    assert!(shown.contains("[-checked-]{+read+}"), "{shown}");
}

#[test]
fn a_response_past_the_limit_passes_whole_and_is_judged_on_whole_events() {
    let capture = path("tests/upstream/traffic-1.0/chat.response.sse");
    let server = Listening::start(&["replay", "--keep-ids", "--listen", "127.0.0.1:0", &capture]);
    let dir = tempfile::tempdir().expect("temp dir");
    let mut proxy = Listening::start(&[
        "proxy",
        "--to",
        &server.url,
        "--listen",
        "127.0.0.1:0",
        "--format",
        "jsonl",
        "--max-response-size",
        "700",
        "--save",
        dir.path().to_str().expect("utf-8"),
    ]);
    let proxied = post(&format!("{}/agent", proxy.url), &run_request("t"), &[]);
    assert_eq!(proxied.body, std::fs::read(&capture).expect("capture"));
    proxy.wait_for("\"summary\"");
    let printed = json_lines(&mut proxy);
    let live = live_findings(&printed);
    let rules: Vec<&str> = live.keys().map(|(rule, _)| rule.as_str()).collect();
    // The archive holds the events kept whole, and says the rest was not.
    assert!(rules.contains(&"response-not-captured"), "{rules:?}");
    assert!(!rules.contains(&"invalid-json"), "{rules:?}");
    assert_eq!(live, checked(&saved(dir.path())));
}

/// An archive of one run answered with a stream, then one refused with a
/// 422 and a JSON error.
fn stream_then_refusal() -> String {
    let request = run_request("t");
    let entry = |status: u16, mime: &str, text: &str| {
        serde_json::json!({
            "startedDateTime": "2026-01-01T00:00:00Z", "time": 1,
            "request": {"method": "POST", "url": "http://127.0.0.1/agent", "httpVersion": "HTTP/1.1",
                "headers": [], "queryString": [], "cookies": [], "headersSize": -1, "bodySize": -1,
                "postData": {"mimeType": "application/json", "text": request}},
            "response": {"status": status, "statusText": "", "httpVersion": "HTTP/1.1",
                "headers": [{"name": "Content-Type", "value": mime}], "cookies": [],
                "headersSize": -1, "bodySize": -1, "redirectURL": "",
                "content": {"size": text.len(), "mimeType": mime, "text": text}},
            "cache": {}, "timings": {"send": 0, "wait": 1, "receive": 0}
        })
    };
    let stream = "data: {\"type\":\"RUN_STARTED\",\"threadId\":\"t\",\"runId\":\"run-1\",\"protocolVersion\":\"1.0\"}\n\ndata: {\"type\":\"RUN_FINISHED\",\"threadId\":\"t\",\"runId\":\"run-1\"}\n\n";
    serde_json::json!({"log": {"version": "1.2", "creator": {"name": "t", "version": "1"}, "entries": [
        entry(200, "text/event-stream", stream),
        entry(422, "application/json", r#"{"detail":"bad"}"#),
    ]}})
    .to_string()
}

#[test]
fn the_proxy_names_an_exchange_as_the_saved_archive_does_and_counts_what_it_printed() {
    let dir = tempfile::tempdir().expect("temp dir");
    let recorded = dir.path().join("recorded.har");
    std::fs::write(&recorded, stream_then_refusal()).expect("write");
    let server = Listening::start(&[
        "replay",
        recorded.to_str().expect("utf-8"),
        "--keep-ids",
        "--listen",
        "127.0.0.1:0",
    ]);
    let saves = dir.path().join("saved");
    let mut proxy = Listening::start(&[
        "proxy",
        "--to",
        &server.url,
        "--listen",
        "127.0.0.1:0",
        "--format",
        "jsonl",
        "--save",
        saves.to_str().expect("utf-8"),
    ]);
    for (run, status) in [(1, 200), (2, 422)] {
        let seen = post(&format!("{}/agent", proxy.url), &run_request("t"), &[]);
        assert_eq!(seen.status, status);
        proxy.wait_for(&format!(
            "{{\"run\":{run},\"request\":\"POST /agent\",\"summary\""
        ));
    }
    let printed = json_lines(&mut proxy);
    let refusal: Vec<&Value> = printed
        .iter()
        .filter(|v| v["run"] == 2 && v.get("rule").is_some())
        .collect();
    assert_eq!(refusal.len(), 1, "{printed:?}");
    assert_eq!(refusal[0]["rule"], "unexpected-status");
    assert!(
        refusal[0]["at"]
            .as_str()
            .is_some_and(|at| at.starts_with("entry 2 ")),
        "{:?}",
        refusal[0]
    );
    assert_eq!(refusal[0]["pointer"], "/log/entries/1/response/status");
    // `check` of the saved archive places it alike.
    let output = Command::new(env!("CARGO_BIN_EXE_agui-lint"))
        .args(["check", "--format", "json"])
        .arg(saved(&saves))
        .output()
        .expect("check");
    let report: Value = serde_json::from_slice(&output.stdout).expect("JSON report");
    let pointers: Vec<&str> = report["documents"]
        .as_array()
        .expect("documents")
        .iter()
        .flat_map(|d| d["diagnostics"].as_array().expect("diagnostics"))
        .filter_map(|d| d["pointer"].as_str())
        .collect();
    assert_eq!(pointers, ["/log/entries/1/response/status"]);
    // Each run's summary counts the findings printed for it.
    for run in [1, 2] {
        let summary = printed
            .iter()
            .find(|v| v["run"] == run && v.get("summary").is_some())
            .expect("summary");
        let counted: u64 = ["errors", "warnings", "infos"]
            .iter()
            .map(|k| summary["summary"][k].as_u64().unwrap_or(0))
            .sum();
        let lines = printed
            .iter()
            .filter(|v| v["run"] == run && v.get("rule").is_some())
            .count();
        assert_eq!(counted, lines as u64, "run {run}");
    }
}

/// `--ui`: the live view's page, and its stream of messages: a run's
/// findings as they are made and its end, sent to a page opened after the
/// run as well as during it; not forwarded to the server, and refused on
/// an address other machines reach.
#[test]
fn the_live_view_streams_each_runs_findings_and_end() {
    use std::io::{BufRead, BufReader, Write};
    let server = Listening::start(&[
        "replay",
        "--keep-ids",
        "--listen",
        "127.0.0.1:0",
        &path("fixtures/1.1/streams/invalid/duplicate-start.jsonl"),
    ]);
    let mut proxy = Listening::start(&[
        "proxy",
        "--to",
        &server.url,
        "--listen",
        "127.0.0.1:0",
        "--ui",
        "--quiet",
    ]);
    let printed = proxy.wait_for("live view at");
    assert!(
        printed.ends_with(&format!("{}/_agui-lint/live", proxy.url)),
        "{printed}"
    );
    let page = post_get(&proxy.url, "/_agui-lint/live");
    assert!(page.contains("script-src 'nonce-"), "{page}");
    assert!(
        page.contains("new EventSource('/_agui-lint/live/events')"),
        "{page}"
    );
    let seen = post(&format!("{}/agent", proxy.url), &run_request("t"), &[]);
    assert_eq!(seen.status, 200);
    // A page opened after the run is sent what it missed.
    let address = proxy.url.trim_start_matches("http://").to_owned();
    let mut stream = std::net::TcpStream::connect(&address).expect("connect");
    stream
        .set_read_timeout(Some(Duration::from_secs(20)))
        .expect("timeout");
    write!(
        stream,
        "GET /_agui-lint/live/events HTTP/1.1\r\nHost: {address}\r\n\r\n"
    )
    .expect("send");
    let mut messages: Vec<Value> = Vec::new();
    let mut reader = BufReader::new(stream);
    let mut line = String::new();
    while !messages.iter().any(|m| m["kind"] == "end") {
        line.clear();
        assert!(
            reader.read_line(&mut line).expect("read") > 0,
            "stream ended: {messages:?}"
        );
        if let Some(data) = line.trim_end().strip_prefix("data: ") {
            messages.push(serde_json::from_str(data).expect("a JSON message"));
        }
    }
    let finding = messages
        .iter()
        .find(|m| m["kind"] == "finding" && m["rule"] == "duplicate-start")
        .unwrap_or_else(|| panic!("{messages:#?}"));
    assert_eq!(finding["run"], 1);
    assert_eq!(finding["request"], "POST /agent");
    // The finding is on the response's third record, where the timeline
    // marks it.
    assert_eq!(finding["record"], 3, "{finding}");
    let end = messages.iter().find(|m| m["kind"] == "end").expect("end");
    assert!(end["errors"].as_u64() > Some(0), "{end}");
    // The timeline is told bar by bar as the events pass: the two tool
    // calls named `search`, and at the end the one no event closed, open.
    let mut bars: BTreeMap<u64, Value> = BTreeMap::new();
    for message in &messages {
        for bar in message["bars"].as_array().into_iter().flatten() {
            bars.insert(bar["at"].as_u64().expect("at"), bar.clone());
        }
    }
    let drawn: Vec<(&str, &str, u64, u64, bool)> = bars
        .values()
        .map(|b| {
            (
                b["lane"].as_str().unwrap_or(""),
                b["label"].as_str().unwrap_or(""),
                b["start"].as_u64().unwrap_or(99),
                b["end"].as_u64().unwrap_or(99),
                b["open"].as_bool().unwrap_or(false),
            )
        })
        .collect();
    assert_eq!(
        drawn,
        [
            ("tool call", "search", 1, 1, false),
            ("tool call", "search", 2, 2, true)
        ],
        "{messages:#?}"
    );
    // The ended run is drawn as `agui-lint report` draws it: its timeline
    // and its finding in place.
    assert_eq!(end["page"], "/_agui-lint/live/run/1", "{end}");
    let drawn = post_get(&proxy.url, "/_agui-lint/live/run/1");
    assert!(drawn.starts_with("HTTP/1.1 200"), "{drawn}");
    assert!(drawn.contains("<svg class=\"timeline\""), "{drawn}");
    assert!(drawn.contains("data-rule=\"duplicate-start\""), "{drawn}");
    assert!(drawn.contains("script-src 'nonce-"), "{drawn}");
    let missing = post_get(&proxy.url, "/_agui-lint/live/run/9");
    assert!(missing.starts_with("HTTP/1.1 404"), "{missing}");
    assert!(missing.contains("run 9 is not kept"), "{missing}");
    // An address other machines reach is refused.
    let refused = Command::new(env!("CARGO_BIN_EXE_agui-lint"))
        .args([
            "proxy",
            "--to",
            &server.url,
            "--listen",
            "0.0.0.0:0",
            "--ui",
        ])
        .output()
        .expect("run");
    assert_eq!(refused.status.code(), Some(2), "{refused:?}");
    assert!(String::from_utf8_lossy(&refused.stderr).contains("loopback"));
}

/// The body of `GET path` on `base`.
fn post_get(base: &str, path: &str) -> String {
    use std::io::{Read, Write};
    let address = base.trim_start_matches("http://");
    let mut stream = std::net::TcpStream::connect(address).expect("connect");
    stream
        .set_read_timeout(Some(Duration::from_secs(20)))
        .expect("timeout");
    write!(
        stream,
        "GET {path} HTTP/1.1\r\nHost: {address}\r\nConnection: close\r\n\r\n"
    )
    .expect("send");
    let mut text = String::new();
    stream.read_to_string(&mut text).expect("read");
    text
}
