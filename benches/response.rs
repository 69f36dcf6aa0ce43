//! The cost of checking a response stream in the server guard's layer
//! (`ResponseMode::Report`) against the same endpoint with the check off:
//! an agent streaming 10,000 SSE events, one event a frame as axum's `Sse`
//! writes them, called in this process (no network, so the layer's share
//! is as large as it gets). The two take turns; medians of each are
//! compared: the time to stream the whole body, and the time to its first
//! frame. A third endpoint checks with `Lagging::Stop`, whose stream never
//! waits for a check that falls behind.
//!
//! `cargo bench --bench response --features axum`

use std::convert::Infallible;
use std::time::{Duration, Instant};

use agui_lint::server::{Guard, Lagging, ResponseMode};
use agui_lint::Validator;
use axum::body::Body;
use axum::extract::Request;
use axum::http::header::CONTENT_TYPE;
use axum::response::Response;
use axum::routing;
use axum::serve::ListenerExt;
use axum::Router;
use bytes::Bytes;
use http_body_util::BodyExt;
use serde_json::json;
use tower::Service;

const EVENTS: usize = 10_000;
const ROUNDS: usize = 31;
const PACED_ROUNDS: usize = 11;

/// A run of `EVENTS` events: text messages of deltas, a tool call now and
/// then, each event one SSE frame.
fn frames() -> Vec<Bytes> {
    let mut events = vec![
        json!({"type": "RUN_STARTED", "threadId": "t", "runId": "r", "protocolVersion": "1.1"}),
    ];
    let mut message = 0;
    // A message, its deltas and a tool call: 26 events.
    while events.len() + 26 < EVENTS {
        let id = format!("m{message}");
        events.push(json!({"type": "TEXT_MESSAGE_START", "messageId": id, "role": "assistant"}));
        for i in 0..20 {
            events.push(json!({"type": "TEXT_MESSAGE_CONTENT", "messageId": id, "delta": format!("word {i} of a reply that streams ")}));
        }
        events.push(json!({"type": "TEXT_MESSAGE_END", "messageId": id}));
        let call = format!("c{message}");
        events.push(json!({"type": "TOOL_CALL_START", "toolCallId": call, "toolCallName": "lookup", "parentMessageId": id}));
        events.push(
            json!({"type": "TOOL_CALL_ARGS", "toolCallId": call, "delta": "{\"q\": \"weather\"}"}),
        );
        events.push(json!({"type": "TOOL_CALL_END", "toolCallId": call}));
        message += 1;
    }
    let mut tick = 0;
    while events.len() < EVENTS - 1 {
        events.push(json!({"type": "CUSTOM", "name": "tick", "value": tick}));
        tick += 1;
    }
    events.push(json!({"type": "RUN_FINISHED", "threadId": "t", "runId": "r"}));
    events
        .iter()
        .map(|e| Bytes::from(format!("data: {e}\n\n")))
        .collect()
}

/// Events a paced agent sends a millisecond: 64,000 a second, faster than
/// any model streams tokens, slower than the check.
const PACE: usize = 64;

fn router(guard: &Guard, frames: &[Bytes]) -> Router {
    let frames = frames.to_vec();
    let agent = move || {
        let frames = frames.clone();
        async move {
            let stream = futures_util::stream::iter(frames.into_iter().map(Ok::<_, Infallible>));
            Response::builder()
                .header(CONTENT_TYPE, "text/event-stream")
                .body(Body::from_stream(stream))
                .expect("response")
        }
    };
    Router::new()
        .route("/agent", routing::post(agent))
        .route_layer(guard.layer())
}

/// The endpoint of [`router`] with an agent that sends [`PACE`] events a
/// millisecond.
fn paced_router(guard: &Guard, frames: &[Bytes]) -> Router {
    let frames = frames.to_vec();
    let agent = move || {
        let frames = frames.clone();
        async move {
            let start = Instant::now();
            let stream = futures_util::stream::unfold(0, move |i| {
                let frames = frames.clone();
                async move {
                    let frame = frames.get(i)?.clone();
                    // Event i is due at i / PACE milliseconds: spin until
                    // then (tokio's timer is a millisecond coarse, and a
                    // sleep leaves small writes to the network's timers).
                    let due = Duration::from_micros((i * 1000 / PACE) as u64);
                    while start.elapsed() < due {
                        std::hint::spin_loop();
                    }
                    Some((Ok::<_, Infallible>(frame), i + 1))
                }
            });
            Response::builder()
                .header(CONTENT_TYPE, "text/event-stream")
                .body(Body::from_stream(stream))
                .expect("response")
        }
    };
    Router::new()
        .route("/agent", routing::post(agent))
        .route_layer(guard.layer())
}

/// One exchange: the time to the body's first frame, and to its end.
async fn exchange(router: &mut Router, request: &Bytes) -> (Duration, Duration, usize) {
    let start = Instant::now();
    let http = axum::http::Request::post("/agent")
        .header(CONTENT_TYPE, "application/json")
        .body(Body::from(request.clone()))
        .expect("request");
    std::future::poll_fn(|cx| <Router as Service<Request>>::poll_ready(router, cx))
        .await
        .expect("ready");
    let response = router.call(http).await.expect("infallible");
    let mut body = response.into_body();
    let mut first = None;
    let mut bytes = 0;
    while let Some(frame) = body.frame().await {
        let frame = frame.expect("frame");
        first.get_or_insert_with(|| start.elapsed());
        bytes += frame.data_ref().map_or(0, Bytes::len);
    }
    (first.unwrap_or_default(), start.elapsed(), bytes)
}

/// One exchange over HTTP/1.1 on 127.0.0.1 with the server at `address`,
/// from a blocking client: the time to the response's first byte, and to
/// its last.
fn exchange_tcp(address: std::net::SocketAddr, request: &[u8]) -> (Duration, Duration, usize) {
    use std::io::{Read, Write};
    let start = Instant::now();
    let mut stream = std::net::TcpStream::connect(address).expect("connect");
    stream.set_nodelay(true).expect("nodelay");
    let head = format!(
        "POST /agent HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
        request.len()
    );
    stream.write_all(head.as_bytes()).expect("write");
    stream.write_all(request).expect("write");
    let mut buffer = vec![0; 64 * 1024];
    let mut first = None;
    let mut bytes = 0;
    loop {
        let n = stream.read(&mut buffer).expect("read");
        if n == 0 {
            break;
        }
        first.get_or_insert_with(|| start.elapsed());
        bytes += n;
    }
    (first.unwrap_or_default(), start.elapsed(), bytes)
}

fn median(mut times: Vec<Duration>) -> Duration {
    times.sort();
    times[times.len() / 2]
}

fn main() {
    let frames = frames();
    let request = Bytes::from(
        json!({"threadId": "t", "runId": "r", "protocolVersion": "1.1", "state": {},
               "messages": [], "tools": [], "context": [], "forwardedProps": {}})
        .to_string(),
    );
    let validator = Validator::new().expect("validator");
    let off = Guard::new(validator.clone());
    let report = Guard::new(validator.clone()).with_responses(ResponseMode::Report);
    let stop = Guard::new(validator)
        .with_responses(ResponseMode::Report)
        .with_lagging_response_check(Lagging::Stop);
    let mut routers = [
        router(&off, &frames),
        router(&report, &frames),
        router(&stop, &frames),
    ];
    let checking = || report.response_stats().checking + stop.response_stats().checking;
    // Each round runs the three in another order.
    let order = |round: usize| [round % 3, (round + 1) % 3, (round + 2) % 3];
    // Two workers, as a server on this 2-core machine has: a report-mode
    // check runs on a task of its own, beside the stream.
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    let mut first = [Vec::new(), Vec::new(), Vec::new()];
    let mut whole = [Vec::new(), Vec::new(), Vec::new()];
    let mut checked = Vec::new();
    runtime.block_on(async {
        // Warm up both.
        for router in &mut routers {
            exchange(router, &request).await;
        }
        for round in 0..ROUNDS {
            for i in order(round) {
                let start = Instant::now();
                let (to_first, to_end, bytes) = exchange(&mut routers[i], &request).await;
                assert!(bytes > 0);
                first[i].push(to_first);
                whole[i].push(to_end);
                // The check beside the stream may finish after it: wait,
                // so that rounds do not overlap, and time it.
                while checking() > 0 {
                    tokio::task::yield_now().await;
                }
                if i == 1 {
                    checked.push(start.elapsed());
                }
            }
        }
    });
    // The same two endpoints served over HTTP on 127.0.0.1, the client a
    // thread of its own.
    let mut tcp_first = [Vec::new(), Vec::new(), Vec::new()];
    let mut tcp_whole = [Vec::new(), Vec::new(), Vec::new()];
    let addresses: Vec<std::net::SocketAddr> = runtime.block_on(async {
        let mut addresses = Vec::new();
        for router in &routers {
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
                .await
                .expect("bind");
            addresses.push(listener.local_addr().expect("address"));
            let router = router.clone();
            let listener = listener.tap_io(|tcp| {
                let _ = tcp.set_nodelay(true);
            });
            tokio::spawn(async move { axum::serve(listener, router).await });
        }
        addresses
    });
    let settle = || {
        while checking() > 0 {
            std::thread::sleep(Duration::from_micros(50));
        }
    };
    for address in &addresses {
        exchange_tcp(*address, &request);
    }
    settle();
    for round in 0..ROUNDS {
        for i in order(round) {
            let (to_first, to_end, bytes) = exchange_tcp(addresses[i], &request);
            assert!(bytes > 0);
            tcp_first[i].push(to_first);
            tcp_whole[i].push(to_end);
            settle();
        }
    }
    // Paced agents, over HTTP.
    let paced: Vec<std::net::SocketAddr> = runtime.block_on(async {
        let mut addresses = Vec::new();
        for guard in [&off, &report] {
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
                .await
                .expect("bind");
            addresses.push(listener.local_addr().expect("address"));
            let router = paced_router(guard, &frames);
            let listener = listener.tap_io(|tcp| {
                let _ = tcp.set_nodelay(true);
            });
            tokio::spawn(async move { axum::serve(listener, router).await });
        }
        addresses
    });
    let mut paced_whole = [Vec::new(), Vec::new()];
    for round in 0..PACED_ROUNDS {
        let order = if round % 2 == 0 { [0, 1] } else { [1, 0] };
        for i in order {
            let (_, to_end, bytes) = exchange_tcp(paced[i], &request);
            assert!(bytes > 0);
            paced_whole[i].push(to_end);
            settle();
        }
    }
    let stats = report.response_stats();
    assert_eq!(
        stats.errors, 0,
        "the benchmark's stream must be clean: {stats:?}"
    );
    assert_eq!(
        stats.events,
        ((2 * (ROUNDS + 1) + PACED_ROUNDS) * EVENTS) as u64
    );
    let [first_off, first_report, first_stop] = first.map(median);
    let [whole_off, whole_report, whole_stop] = whole.map(median);
    let checked = median(checked);
    let [tcp_first_off, tcp_first_report, tcp_first_stop] = tcp_first.map(median);
    let [paced_off, paced_report] = paced_whole.map(median);
    let [tcp_whole_off, tcp_whole_report, tcp_whole_stop] = tcp_whole.map(median);
    let outpaced = stop.response_stats();
    let bytes: usize = frames.iter().map(Bytes::len).sum();
    println!("response stream: {EVENTS} events, {bytes} bytes, {ROUNDS} rounds each, interleaved, medians");
    println!("in process (the router called directly, the body collected):");
    ratio("to stream them:", whole_off, whole_report);
    println!(
        "  report, to its check's end: {:>9.3} ms ({:.0} events/s checked, beside the stream; waits for room: {})",
        checked.as_secs_f64() * 1e3,
        EVENTS as f64 / checked.as_secs_f64(),
        stats.waits
    );
    difference("to first frame:", first_off, first_report);
    println!("  with Lagging::Stop, the stream never waiting:");
    ratio("to stream them:", whole_off, whole_stop);
    difference("to first frame:", first_off, first_stop);
    println!("over HTTP/1.1 on 127.0.0.1 (axum::serve, a client reading the socket):");
    ratio("to stream them:", tcp_whole_off, tcp_whole_report);
    difference("to first byte:", tcp_first_off, tcp_first_report);
    println!("  with Lagging::Stop, the stream never waiting:");
    ratio("to stream them:", tcp_whole_off, tcp_whole_stop);
    difference("to first byte:", tcp_first_off, tcp_first_stop);
    println!(
        "  Lagging::Stop: {} of {} streams left their check behind; {:.0} events checked a stream",
        outpaced.streams_outpaced,
        outpaced.streams,
        outpaced.events as f64 / outpaced.streams.max(1) as f64
    );
    println!(
        "over HTTP, an agent sending {} events a second:",
        PACE * 1000
    );
    ratio("to stream them:", paced_off, paced_report);
}

/// A line of the report: the two medians and their ratio.
fn ratio(what: &str, off: Duration, report: Duration) {
    println!(
        "  {what:<16} off {:>9.3} ms   report {:>9.3} ms   report / off {:.3}",
        off.as_secs_f64() * 1e3,
        report.as_secs_f64() * 1e3,
        report.as_secs_f64() / off.as_secs_f64()
    );
}

/// A line of the report: the two medians and their difference.
fn difference(what: &str, off: Duration, report: Duration) {
    println!(
        "  {what:<16} off {:>9.3} ms   report {:>9.3} ms   difference {:+.3} ms",
        off.as_secs_f64() * 1e3,
        report.as_secs_f64() * 1e3,
        (report.as_secs_f64() - off.as_secs_f64()) * 1e3
    );
}
