//! `agui-lint proxy` under load and faults, on 127.0.0.1: a path that never
//! answers does not wedge the others, a client that leaves ends its
//! exchange and the connection to the server, past its bound the proxy
//! answers 503 at once, each step with the server has a timeout, and a
//! stream the proxy cannot finish reaches the client broken, never as a
//! whole one.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

#[path = "common/listening.rs"]
#[allow(dead_code)]
mod listening;

#[path = "common/http_requests.rs"]
mod http_requests;

use listening::Listening;

const EVENT: &str = "data: {\"type\":\"RUN_STARTED\",\"threadId\":\"t\",\"runId\":\"r\"}\n\n";
const LAST: &str = "data: {\"type\":\"RUN_FINISHED\",\"threadId\":\"t\",\"runId\":\"r\"}\n\n";

/// A test server: `/hang` reads the request and never answers, `/stall`
/// sends one event and then nothing, `/cut` sends one event and closes its
/// connection mid-body, any other path answers a whole run. It counts the
/// connections of `/hang` its clients closed.
struct Server {
    address: SocketAddr,
    hangs_closed: Arc<AtomicUsize>,
}

fn server() -> Server {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let address = listener.local_addr().expect("address");
    let hangs_closed = Arc::new(AtomicUsize::new(0));
    let counted = Arc::clone(&hangs_closed);
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(stream) = stream else { return };
            let counted = Arc::clone(&counted);
            std::thread::spawn(move || answer(stream, &counted));
        }
    });
    Server {
        address,
        hangs_closed,
    }
}

fn answer(stream: TcpStream, hangs_closed: &AtomicUsize) {
    http_requests::each_request(stream, |stream, incoming| {
        let path = incoming.head.split(' ').nth(1).unwrap_or("/").to_owned();
        let head = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n";
        let chunk = |text: &str| format!("{:x}\r\n{text}\r\n", text.len());
        // Until the proxy closes the connection.
        let until_closed = |stream: &mut TcpStream| {
            let _ = stream.read_to_end(&mut Vec::new());
        };
        match path.as_str() {
            "/hang" => {
                until_closed(stream);
                hangs_closed.fetch_add(1, Ordering::SeqCst);
            }
            "/stall" => {
                let _ = write!(stream, "{head}{}", chunk(EVENT));
                until_closed(stream);
            }
            "/cut" => {
                let _ = write!(stream, "{head}{}", chunk(EVENT));
                let _ = stream.shutdown(std::net::Shutdown::Both);
            }
            _ => {
                let _ = write!(stream, "{head}{}{}0\r\n\r\n", chunk(EVENT), chunk(LAST));
            }
        }
        false
    });
}

fn proxy(server: &Server, extra: &[&str]) -> Listening {
    let to = format!("http://{}", server.address);
    let mut args = vec!["proxy", "--to", &to, "--listen", "127.0.0.1:0", "--quiet"];
    args.extend_from_slice(extra);
    Listening::start(&args)
}

/// A connection to the proxy with a run request to `path` sent on it.
fn send(proxy: &Listening, path: &str) -> TcpStream {
    let address = proxy.url.trim_start_matches("http://");
    let mut stream = TcpStream::connect(address).expect("connect");
    stream
        .set_read_timeout(Some(Duration::from_secs(20)))
        .expect("timeout");
    let body = "{\"threadId\":\"t\",\"runId\":\"r\",\"messages\":[],\"tools\":[],\"context\":[],\"state\":{},\"forwardedProps\":{}}";
    write!(
        stream,
        "POST {path} HTTP/1.1\r\nHost: {address}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .expect("send");
    stream
}

/// Everything the proxy sent on `stream` until it closed it, and whether
/// the connection ended cleanly (end of file) rather than reset or timed
/// out.
fn all_of(mut stream: TcpStream) -> (String, bool) {
    let mut seen = Vec::new();
    let mut piece = [0u8; 4096];
    loop {
        match stream.read(&mut piece) {
            Ok(0) => return (String::from_utf8_lossy(&seen).into_owned(), true),
            Ok(n) => seen.extend_from_slice(&piece[..n]),
            Err(_) => return (String::from_utf8_lossy(&seen).into_owned(), false),
        }
    }
}

fn status_of(response: &str) -> Option<u16> {
    response.split(' ').nth(1)?.parse().ok()
}

#[test]
fn clients_that_leave_a_path_that_never_answers_wedge_nothing() {
    let server = server();
    let proxy = proxy(&server, &["--max-exchanges", "4"]);
    // Ten times the bound: each client sends its run and leaves.
    for _ in 0..40 {
        let stream = send(&proxy, "/hang");
        std::thread::sleep(Duration::from_millis(20));
        drop(stream);
    }
    // Each departed client's connection to the server is closed.
    let waited = Instant::now();
    while server.hangs_closed.load(Ordering::SeqCst) < 40 {
        assert!(
            waited.elapsed() < Duration::from_secs(20),
            "{} of 40 connections to the server closed",
            server.hangs_closed.load(Ordering::SeqCst)
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    // And other paths are served.
    let (response, clean) = all_of(send(&proxy, "/agent"));
    assert_eq!(status_of(&response), Some(200), "{response}");
    assert!(response.contains("RUN_FINISHED") && clean, "{response}");
}

#[test]
fn past_its_bound_the_proxy_answers_busy_at_once_and_serves_again_after() {
    let server = server();
    let proxy = proxy(&server, &["--max-exchanges", "2"]);
    let held: Vec<TcpStream> = (0..2).map(|_| send(&proxy, "/hang")).collect();
    std::thread::sleep(Duration::from_millis(300));
    let asked = Instant::now();
    let (response, _) = all_of(send(&proxy, "/agent"));
    assert_eq!(status_of(&response), Some(503), "{response}");
    assert!(response.contains("--max-exchanges"), "{response}");
    assert!(asked.elapsed() < Duration::from_secs(5));
    drop(held);
    let waited = Instant::now();
    loop {
        let (response, _) = all_of(send(&proxy, "/agent"));
        if status_of(&response) == Some(200) {
            break;
        }
        assert!(
            waited.elapsed() < Duration::from_secs(20),
            "still busy: {response}"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[test]
fn a_server_that_does_not_answer_is_a_gateway_timeout() {
    let server = server();
    let proxy = proxy(&server, &["--first-byte-timeout", "500ms"]);
    let asked = Instant::now();
    let (response, _) = all_of(send(&proxy, "/hang"));
    assert_eq!(status_of(&response), Some(504), "{response}");
    assert!(response.contains("no response within 0.5 s"), "{response}");
    assert!(asked.elapsed() < Duration::from_secs(10));
}

/// The client got the head and the first event, and then a connection
/// that ended without the chunked body's last chunk: a broken stream.
fn assert_broken(response: &str) {
    assert_eq!(status_of(response), Some(200), "{response}");
    assert!(response.contains("RUN_STARTED"), "{response}");
    assert!(!response.ends_with("0\r\n\r\n"), "ended whole: {response}");
}

#[test]
fn a_stream_the_proxy_cannot_finish_reaches_the_client_broken() {
    let server = server();
    let proxy = proxy(&server, &["--idle-timeout", "500ms"]);
    // Silent past the idle timeout.
    let (response, _) = all_of(send(&proxy, "/stall"));
    assert_broken(&response);
    // Cut by the server mid-body.
    let (response, _) = all_of(send(&proxy, "/cut"));
    assert_broken(&response);
    // A whole one ends whole.
    let (response, clean) = all_of(send(&proxy, "/agent"));
    assert!(response.ends_with("0\r\n\r\n") && clean, "{response}");
}

#[test]
fn a_body_sent_too_slowly_or_past_the_memory_budget_is_refused() {
    let server = server();
    let proxy = proxy(&server, &["--body-timeout", "500ms", "--max-memory", "1K"]);
    let address = proxy.url.trim_start_matches("http://").to_owned();
    // Ten bytes of a hundred, then nothing.
    let mut slow = TcpStream::connect(&address).expect("connect");
    write!(
        slow,
        "POST /agent HTTP/1.1\r\nHost: {address}\r\nContent-Length: 100\r\n\r\n{{\"threadId"
    )
    .expect("send");
    let (response, _) = all_of(slow);
    assert_eq!(status_of(&response), Some(408), "{response}");
    // Two kilobytes against a budget of one.
    let mut large = TcpStream::connect(&address).expect("connect");
    let body = format!("{{\"pad\":\"{}\"}}", "x".repeat(2048));
    write!(
        large,
        "POST /agent HTTP/1.1\r\nHost: {address}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .expect("send");
    let (response, _) = all_of(large);
    assert_eq!(status_of(&response), Some(503), "{response}");
    assert!(response.contains("--max-memory"), "{response}");
}

/// A request's body reaches the server as it arrives, framed as the
/// client framed it: the server reads the first half of a body while the
/// client still holds the second, and gets the body's `Content-Length`,
/// not chunks.
#[test]
fn a_request_is_passed_on_as_it_arrives() {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let address = listener.local_addr().expect("address");
    let body = format!(
        "{{\"threadId\":\"t\",\"runId\":\"r\",\"messages\":[],\"tools\":[],\"context\":[],\"state\":{{\"pad\":\"{}\"}},\"forwardedProps\":{{}}}}",
        "x".repeat(100_000)
    );
    let half = body.len() / 2;
    let (first_seen, first_seen_here) = std::sync::mpsc::channel();
    let (head_seen, head_seen_here) = std::sync::mpsc::channel();
    let server = std::thread::spawn(move || {
        let (mut stream, _) = listener.accept().expect("accept");
        let mut seen = Vec::new();
        let mut piece = [0u8; 8192];
        let head_end = loop {
            let n = stream.read(&mut piece).expect("read");
            assert!(n > 0, "the proxy closed the connection");
            seen.extend_from_slice(&piece[..n]);
            if let Some(at) = seen.windows(4).position(|w| w == b"\r\n\r\n") {
                break at + 4;
            }
        };
        head_seen
            .send(String::from_utf8_lossy(&seen[..head_end]).into_owned())
            .expect("signal");
        while seen.len() < head_end + half {
            let n = stream.read(&mut piece).expect("read");
            assert!(n > 0, "the proxy closed the connection");
            seen.extend_from_slice(&piece[..n]);
        }
        first_seen.send(()).expect("signal");
        let mut rest = seen.split_off(head_end);
        while rest.len() < body_len_of(&seen) {
            let n = stream.read(&mut piece).expect("read");
            assert!(n > 0, "the proxy closed the connection");
            rest.extend_from_slice(&piece[..n]);
        }
        write!(
            stream,
            "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nContent-Length: {}\r\n\r\n{EVENT}{LAST}",
            EVENT.len() + LAST.len()
        )
        .expect("answer");
        rest
    });
    let proxy = Listening::start(&[
        "proxy",
        "--to",
        &format!("http://{address}"),
        "--listen",
        "127.0.0.1:0",
        "--quiet",
    ]);
    let to = proxy.url.trim_start_matches("http://");
    let mut client = TcpStream::connect(to).expect("connect");
    client
        .set_read_timeout(Some(Duration::from_secs(20)))
        .expect("timeout");
    write!(
        client,
        "POST /agent HTTP/1.1\r\nHost: {to}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{}",
        body.len(),
        &body[..half]
    )
    .expect("send");
    let head = head_seen_here
        .recv_timeout(Duration::from_secs(10))
        .expect("the server got the request's head before its body was whole");
    first_seen_here
        .recv_timeout(Duration::from_secs(10))
        .expect("the server got the first half while the client held the second");
    client.write_all(&body.as_bytes()[half..]).expect("send");
    let (response, clean) = all_of(client);
    assert!(response.contains("RUN_FINISHED") && clean, "{response}");
    let received = server.join().expect("server");
    assert_eq!(received, body.as_bytes());
    let head = head.to_ascii_lowercase();
    assert!(
        head.contains(&format!("content-length: {}\r\n", body.len())),
        "{head}"
    );
    assert!(!head.contains("transfer-encoding"), "{head}");
}

/// The `Content-Length` a request head read so far declares (0 without).
fn body_len_of(seen: &[u8]) -> usize {
    String::from_utf8_lossy(seen)
        .lines()
        .find_map(|l| {
            let (name, value) = l.split_once(':')?;
            name.eq_ignore_ascii_case("content-length")
                .then(|| value.trim().parse().ok())?
        })
        .unwrap_or(0)
}
