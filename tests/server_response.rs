//! The server guard on the response side (feature `axum`): the tower
//! layer checks the event stream an agent answers with, as it passes,
//! paired with the request it answers, without changing a byte
//! (`ResponseMode::Report`) or ending it with a `RUN_ERROR` at the first
//! error (`ResponseMode::Enforce`).

use std::convert::Infallible;
use std::sync::{Arc, Mutex};

use agui_lint::server::{Guard, Lagging, ResponseMode, ResponseStats};
use agui_lint::Validator;
use axum::body::Body;
use axum::extract::Request;
use axum::http::header::CONTENT_TYPE;
use axum::response::Response;
use axum::routing;
use axum::Router;
use http_body_util::BodyExt;
use serde_json::{json, Value};
use tower::Service;

#[path = "common/recorder.rs"]
mod recorder;
use recorder::Recorder;

/// A request the guard lets through: thread `t`, run `r`, one earlier
/// tool call `c0` in its messages, declaring `version`.
fn request(version: &str) -> Vec<u8> {
    json!({
        "threadId": "t", "runId": "r", "protocolVersion": version,
        "state": {}, "context": [], "forwardedProps": {}, "tools": [],
        "messages": [
            {"id": "m1", "role": "user", "content": "hi"},
            {"id": "m2", "role": "assistant", "toolCalls": [{"id": "c0", "type": "function",
                "function": {"name": "lookup", "arguments": "{}"}}]},
        ]
    })
    .to_string()
    .into_bytes()
}

/// `events` as SSE, split into chunks of `size` bytes (events cut
/// anywhere, as a server's writes may).
fn sse_chunks(events: &[Value], size: usize) -> (Vec<u8>, Vec<Vec<u8>>) {
    let text: String = events.iter().map(|e| format!("data: {e}\n\n")).collect();
    let bytes = text.into_bytes();
    let chunks = bytes.chunks(size).map(<[u8]>::to_vec).collect();
    (bytes, chunks)
}

/// A router whose agent answers every request with `chunks` as a body of
/// `content_type`, behind `guard`'s layer.
fn router(guard: &Guard, content_type: &'static str, chunks: Vec<Vec<u8>>) -> Router {
    let agent = move || {
        let chunks = chunks.clone();
        async move {
            let stream = futures_util::stream::iter(
                chunks
                    .into_iter()
                    .map(|chunk| Ok::<_, Infallible>(bytes::Bytes::from(chunk))),
            );
            Response::builder()
                .header(CONTENT_TYPE, content_type)
                .body(Body::from_stream(stream))
                .expect("response")
        }
    };
    Router::new()
        .route("/agent", routing::post(agent))
        .route_layer(guard.layer())
}

/// Runs `work` on a runtime of its own, with what it logs under
/// `agui_lint::response` recorded.
fn recording<T>(work: impl std::future::Future<Output = T>) -> (T, Vec<String>) {
    let records = Arc::new(Mutex::new(Vec::new()));
    let done = tracing::subscriber::with_default(
        Recorder::new(records.clone(), "agui_lint::response"),
        || {
            tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .expect("runtime")
                .block_on(work)
        },
    );
    let logged = records.lock().expect("records").clone();
    (done, logged)
}

/// POSTs `body` to `router` in this process.
async fn call(router: &mut Router, body: Vec<u8>) -> Response<Body> {
    let request = axum::http::Request::post("/agent")
        .header(CONTENT_TYPE, "application/json")
        .body(Body::from(body))
        .expect("request");
    std::future::poll_fn(|cx| <Router as Service<Request>>::poll_ready(router, cx))
        .await
        .expect("ready");
    router.call(request).await.expect("infallible")
}

/// Waits for `guard`'s checks to end (a report-mode check runs beside its
/// stream, on a task of its own).
async fn settle(guard: &Guard) {
    for _ in 0..100_000 {
        if guard.response_stats().checking == 0 {
            return;
        }
        tokio::task::yield_now().await;
    }
    panic!("a check never ended: {:?}", guard.response_stats());
}

/// POSTs `body` to `router` (behind `guard`) in this process; the status
/// and the response body's bytes, with what was logged under
/// `agui_lint::response` once the guard's check of it is done.
fn exchange(router: &mut Router, guard: &Guard, body: Vec<u8>) -> (u16, Vec<u8>, Vec<String>) {
    let ((status, bytes), logged) = recording(async {
        let response = call(router, body).await;
        let status = response.status().as_u16();
        let bytes = response
            .into_body()
            .collect()
            .await
            .expect("body")
            .to_bytes()
            .to_vec();
        settle(guard).await;
        (status, bytes)
    });
    (status, bytes, logged)
}

fn guard(mode: ResponseMode) -> Guard {
    Guard::new(Validator::new().expect("validator")).with_responses(mode)
}

/// The rules the findings logged name, in order.
fn rules(logged: &[String]) -> Vec<String> {
    logged
        .iter()
        .filter_map(|line| line.split(" rule=").nth(1))
        .map(|rest| rest.split(' ').next().unwrap_or_default().to_string())
        .collect()
}

/// A 1.1 stream an agent gets wrong three ways: arguments after its tool
/// call ended, a message never ended, and `RUN_FINISHED` with it open.
fn broken_events() -> Vec<Value> {
    vec![
        json!({"type": "RUN_STARTED", "threadId": "t", "runId": "r", "protocolVersion": "1.1"}),
        json!({"type": "TOOL_CALL_START", "toolCallId": "c1", "toolCallName": "lookup"}),
        json!({"type": "TOOL_CALL_END", "toolCallId": "c1"}),
        json!({"type": "TOOL_CALL_ARGS", "toolCallId": "c1", "delta": "{}"}),
        json!({"type": "TEXT_MESSAGE_START", "messageId": "m", "role": "assistant"}),
        json!({"type": "RUN_FINISHED", "threadId": "t", "runId": "r"}),
    ]
}

#[test]
fn report_passes_every_byte_and_logs_each_finding_with_the_run() {
    for size in [1, 7, 64, 4096] {
        let (sent, chunks) = sse_chunks(&broken_events(), size);
        let guard = guard(ResponseMode::Report);
        let mut router = router(&guard, "text/event-stream", chunks);
        let (status, received, logged) = exchange(&mut router, &guard, request("1.1"));
        assert_eq!(status, 200);
        assert_eq!(received, sent, "chunks of {size}: the bytes changed");
        assert_eq!(
            rules(&logged),
            ["event-without-start", "run-finished-while-open"],
            "chunks of {size}: {logged:#?}"
        );
        let finding = &logged[0];
        for field in [
            "severity=\"error\"",
            "pointer=/toolCallId",
            "event=4",
            "thread_id=\"t\"",
            "run_id=\"r\"",
        ] {
            assert!(finding.contains(field), "{field} missing: {finding}");
        }
        let summary = logged.last().expect("a summary");
        assert!(
            summary.contains("events=6") && summary.contains("errors=2"),
            "{summary}"
        );
        assert_eq!(
            guard.response_stats(),
            ResponseStats {
                streams: 1,
                events: 6,
                errors: 2,
                streams_with_errors: 1,
                ..ResponseStats::default()
            }
        );
    }
}

#[test]
fn a_correct_stream_passes_with_only_its_summary() {
    let events = vec![
        json!({"type": "RUN_STARTED", "threadId": "t", "runId": "r", "protocolVersion": "1.1"}),
        // Answers the call the request's messages made.
        json!({"type": "TOOL_CALL_RESULT", "messageId": "m3", "toolCallId": "c0", "content": "ok"}),
        json!({"type": "TEXT_MESSAGE_START", "messageId": "m", "role": "assistant"}),
        json!({"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": "hello"}),
        json!({"type": "TEXT_MESSAGE_END", "messageId": "m"}),
        json!({"type": "RUN_FINISHED", "threadId": "t", "runId": "r"}),
    ];
    let (sent, chunks) = sse_chunks(&events, 10);
    let guard = guard(ResponseMode::Enforce);
    let mut router = router(&guard, "text/event-stream; charset=utf-8", chunks);
    let (status, received, logged) = exchange(&mut router, &guard, request("1.1"));
    assert_eq!(status, 200);
    assert_eq!(received, sent);
    assert!(rules(&logged).is_empty(), "{logged:#?}");
    assert_eq!(logged.len(), 1, "{logged:#?}");
    assert_eq!(guard.response_stats().errors, 0);
}

#[test]
fn the_request_is_paired_with_its_response() {
    // The request declared 1.0; its run declares 1.1, newer than the
    // request and than @ag-ui/client 1.0.0 speaks: the consumer strips what
    // it does not know, and warns.
    let events = vec![
        json!({"type": "RUN_STARTED", "threadId": "t", "runId": "r", "protocolVersion": "1.1"}),
        json!({"type": "RUN_FINISHED", "threadId": "t", "runId": "r"}),
    ];
    let (sent, chunks) = sse_chunks(&events, 3);
    let guard = guard(ResponseMode::Report);
    let mut router = router(&guard, "text/event-stream", chunks.clone());
    let (_, received, logged) = exchange(&mut router, &guard, request("1.0"));
    assert_eq!(received, sent);
    assert_eq!(
        rules(&logged),
        ["client-older-than-stream", "protocol-version-mismatch"],
        "{logged:#?}"
    );
    assert_eq!(guard.response_stats().warnings, 2);
    // A request declaring a newer minor answered with the server's own
    // version, as the spec has it (the kit's newer-minor-served): silent.
    let quiet =
        Guard::new(Validator::new().expect("validator")).with_responses(ResponseMode::Report);
    let mut served = self::router(&quiet, "text/event-stream", chunks);
    let (_, _, logged) = exchange(&mut served, &quiet, request("1.2"));
    assert!(rules(&logged).is_empty(), "{logged:#?}");
    assert_eq!(quiet.response_stats().warnings, 0);
}

#[test]
fn enforce_ends_the_stream_with_a_run_error_naming_the_rule() {
    let (sent, chunks) = sse_chunks(&broken_events(), 5);
    let guard = guard(ResponseMode::Enforce);
    let mut router = router(&guard, "text/event-stream", chunks);
    let (status, received, _) = exchange(&mut router, &guard, request("1.1"));
    assert_eq!(status, 200);
    let text = String::from_utf8(received).expect("UTF-8");
    let (passed, closing) = text.rsplit_once("data: ").expect("a last event");
    // What passed is the agent's own bytes, unchanged, up to where the
    // guard stepped in (a record boundary, or the end of a cut record).
    let passed = passed.trim_end_matches('\n');
    assert!(
        String::from_utf8_lossy(&sent).starts_with(passed),
        "{passed:?}"
    );
    assert!(passed.len() < sent.len());
    let run_error: Value = serde_json::from_str(closing.trim_end()).expect("RUN_ERROR is JSON");
    assert_eq!(run_error["type"], "RUN_ERROR");
    assert_eq!(run_error["code"], "agui-lint/event-without-start");
    assert!(closing.ends_with("\n\n"));
    // The RUN_FINISHED the agent would have sent never reached the client.
    assert!(!text.contains("RUN_FINISHED"), "{text}");
    assert_eq!(guard.response_stats().streams_ended, 1);
}

#[test]
fn json_lines_responses_are_checked_and_ended_as_json_lines() {
    let lines: String = broken_events().iter().map(|e| format!("{e}\n")).collect();
    let chunks = lines
        .as_bytes()
        .chunks(9)
        .map(<[u8]>::to_vec)
        .collect::<Vec<_>>();
    let report = guard(ResponseMode::Report);
    let mut router_report = router(&report, "application/jsonl", chunks.clone());
    let (_, received, logged) = exchange(&mut router_report, &report, request("1.1"));
    assert_eq!(received, lines.as_bytes());
    assert_eq!(
        rules(&logged),
        ["event-without-start", "run-finished-while-open"]
    );
    let enforce = guard(ResponseMode::Enforce);
    let mut router_enforce = router(&enforce, "application/x-ndjson", chunks);
    let (_, received, _) = exchange(&mut router_enforce, &enforce, request("1.1"));
    let text = String::from_utf8(received).expect("UTF-8");
    let last: Value = serde_json::from_str(text.lines().last().expect("a line")).expect("JSON");
    assert_eq!(last["code"], "agui-lint/event-without-start");
    assert!(text.ends_with('\n'));
}

#[test]
fn off_other_content_types_and_unsampled_streams_pass_unchecked() {
    let (sent, chunks) = sse_chunks(&broken_events(), 64);
    // Off (the default).
    let off = Guard::new(Validator::new().expect("validator"));
    let (_, received, logged) = exchange(
        &mut router(&off, "text/event-stream", chunks.clone()),
        &off,
        request("1.1"),
    );
    assert_eq!(received, sent);
    assert!(logged.is_empty());
    assert_eq!(off.response_stats(), ResponseStats::default());
    // A body that is not an event stream.
    let report = guard(ResponseMode::Report);
    let (_, received, logged) = exchange(
        &mut router(&report, "application/json", chunks.clone()),
        &report,
        request("1.1"),
    );
    assert_eq!(received, sent);
    assert!(logged.is_empty());
    // One stream in three.
    let sampled = guard(ResponseMode::Report).with_response_sampling(3);
    let mut router = router(&sampled, "text/event-stream", chunks);
    for _ in 0..6 {
        let (_, received, _) = exchange(&mut router, &sampled, request("1.1"));
        assert_eq!(received, sent);
    }
    let stats = sampled.response_stats();
    assert_eq!((stats.streams, stats.sampled_out), (2, 4), "{stats:?}");
    assert_eq!(stats.errors, 4);
}

/// A stream far longer than a check's queue, all of it ready at once, with
/// an error in its last events; its SSE bytes and its frames, one an event.
fn a_fast_agents_stream() -> (Vec<Value>, Vec<u8>, Vec<Vec<u8>>) {
    let mut events = vec![
        json!({"type": "RUN_STARTED", "threadId": "t", "runId": "r", "protocolVersion": "1.1"}),
        json!({"type": "TEXT_MESSAGE_START", "messageId": "m", "role": "assistant"}),
    ];
    for i in 0..3 * agui_lint::server::QUEUE_FRAMES {
        events.push(
            json!({"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": format!("{i} ")}),
        );
    }
    // The error is in the stream's last events, after the queue filled.
    events.push(json!({"type": "TEXT_MESSAGE_END", "messageId": "m"}));
    events.push(json!({"type": "TEXT_MESSAGE_END", "messageId": "m"}));
    events.push(json!({"type": "RUN_FINISHED", "threadId": "t", "runId": "r"}));
    let text: String = events.iter().map(|e| format!("data: {e}\n\n")).collect();
    let frames: Vec<Vec<u8>> = events
        .iter()
        .map(|e| format!("data: {e}\n\n").into_bytes())
        .collect();
    (events, text.into_bytes(), frames)
}

#[test]
fn an_agent_faster_than_the_check_is_held_to_its_pace_and_fully_checked() {
    // Far more frames than the check's queue holds, all ready at once: the
    // stream waits for the check rather than leave frames unchecked.
    let (events, sent, frames) = a_fast_agents_stream();
    let guard = guard(ResponseMode::Report);
    let mut router = router(&guard, "text/event-stream", frames);
    let (_, received, logged) = exchange(&mut router, &guard, request("1.1"));
    assert_eq!(received, sent);
    assert_eq!(rules(&logged), ["event-without-start"], "{logged:#?}");
    let stats = guard.response_stats();
    assert_eq!(stats.events, events.len() as u64);
    assert!(stats.waits > 0, "{stats:?}");
}

#[test]
fn an_agent_faster_than_the_check_can_leave_it_behind_and_never_wait() {
    // `Lagging::Stop`: the stream never waits; the check reads what it
    // queued, then stops and says so, and the rest passes unchecked.
    let (events, sent, frames) = a_fast_agents_stream();
    let guard = guard(ResponseMode::Report).with_lagging_response_check(Lagging::Stop);
    let mut router = router(&guard, "text/event-stream", frames);
    let (_, received, logged) = exchange(&mut router, &guard, request("1.1"));
    assert_eq!(received, sent);
    // The error came after the queue filled: it went unchecked.
    assert_eq!(rules(&logged), Vec::<String>::new(), "{logged:#?}");
    assert!(
        logged
            .iter()
            .any(|l| l.contains("fell 1024 frames behind its stream")),
        "{logged:#?}"
    );
    let stats = guard.response_stats();
    assert_eq!(
        (stats.streams_outpaced, stats.waits, stats.checking),
        (1, 0, 0),
        "{stats:?}"
    );
    assert!(
        (agui_lint::server::QUEUE_FRAMES as u64..events.len() as u64).contains(&stats.events),
        "{stats:?}"
    );
    assert_eq!(stats.streams_abandoned, 0);
}

#[test]
fn a_body_dropped_before_its_end_is_abandoned_not_reported() {
    let (_, chunks) = sse_chunks(&broken_events()[..2], 8);
    for mode in [ResponseMode::Report, ResponseMode::Enforce] {
        let guard = guard(mode);
        let mut router = router(&guard, "text/event-stream", chunks.clone());
        let ((), logged) = recording(async {
            let response = call(&mut router, request("1.1")).await;
            let mut body = response.into_body();
            // The client reads one frame and goes away.
            body.frame().await.expect("a frame").expect("data");
            drop(body);
            settle(&guard).await;
        });
        let stats = guard.response_stats();
        assert_eq!(
            (stats.streams_abandoned, stats.checking, stats.errors),
            (1, 0, 0),
            "{mode:?}: {stats:?}"
        );
        assert!(rules(&logged).is_empty(), "{logged:#?}");
    }
}
