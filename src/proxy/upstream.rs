//! One exchange with the server: the client's request sent as it came
//! (hop-by-hop headers aside), the response's head handed back at once,
//! and its body passed on a piece at a time, each piece before it is
//! checked, so that checking never delays what the client receives.

use std::io::{self, Read};
use std::time::{Instant, SystemTime};

use agui_lint::unstable::input::har::DeliveryEnd;
use agui_lint::unstable::input::har_write::Sent;
use agui_lint::unstable::input::receiving::Receiving;
use agui_lint::unstable::input::Layout;
use agui_lint::unstable::recording::BodyLayout;
use bytes::Bytes;
use tokio::sync::{mpsc, oneshot};

use super::watch::Watch;
use super::Proxy;

/// A request to forward.
pub(crate) struct Forward {
    /// The run's number in the session (1-based).
    pub run: usize,
    pub method: String,
    /// The server's URL for it.
    pub url: String,
    /// `METHOD /path` as the client asked.
    pub label: String,
    /// The client's headers that are forwarded.
    pub headers: Vec<(String, Vec<u8>)>,
    pub body: Vec<u8>,
}

/// The response's status and the headers passed back to the client.
pub(crate) type Head = (u16, Vec<(String, Vec<u8>)>);

/// Headers of one connection (RFC 9110 §7.6.1), and those the client and
/// the server each set for their own connection: not passed on. The
/// client's `Accept-Encoding` is not passed on either, so that the server
/// answers in a form the proxy can check (what the client receives is
/// still exactly what the server sent).
const NOT_FORWARDED: [&str; 11] = [
    "connection",
    "keep-alive",
    "proxy-connection",
    "proxy-authenticate",
    "proxy-authorization",
    "te",
    "trailer",
    "transfer-encoding",
    "upgrade",
    "host",
    "content-length",
];

/// Whether a client's request header is passed on to the server.
pub(crate) fn forwarded(name: &str) -> bool {
    !NOT_FORWARDED.iter().any(|n| name.eq_ignore_ascii_case(n))
        && !name.eq_ignore_ascii_case("accept-encoding")
}

/// Whether a server's response header is passed back to the client (its
/// framing is hyper's to write for the client's connection).
fn passed_back(name: &str) -> bool {
    !NOT_FORWARDED[..9]
        .iter()
        .any(|n| name.eq_ignore_ascii_case(n))
}

/// Forwards `forward`, hands the response's head to `head` and its body's
/// pieces to `pieces`, checks both, and records the exchange.
pub(crate) fn exchange(
    proxy: &Proxy,
    forward: Forward,
    head: oneshot::Sender<Result<Head, String>>,
    pieces: mpsc::Sender<io::Result<Bytes>>,
) {
    let mut watch = Watch::new(proxy, forward.run, &forward.label, &forward.body);
    let sent = Sent {
        method: forward.method.clone(),
        url: forward.url.clone(),
        headers: forward
            .headers
            .iter()
            .map(|(n, v)| (n.clone(), String::from_utf8_lossy(v).into_owned()))
            .collect(),
        body: forward.body.clone(),
        at: SystemTime::now(),
    };
    let started = Instant::now();
    let mut builder = ureq::http::Request::builder()
        .method(forward.method.as_str())
        .uri(forward.url.as_str());
    for (name, value) in &forward.headers {
        builder = builder.header(name.as_str(), value.as_slice());
    }
    let sent_request = match builder.body(forward.body) {
        Ok(request) => request,
        Err(e) => {
            let _ = head.send(Err(e.to_string()));
            watch.unreachable(&e.to_string());
            return;
        }
    };
    let mut response = match proxy.agent.run(sent_request) {
        Ok(response) => response,
        Err(e) => {
            let _ = head.send(Err(e.to_string()));
            watch.unreachable(&e.to_string());
            return;
        }
    };
    let head_at = Instant::now();
    let status = response.status().as_u16();
    let all_headers: Vec<(String, Vec<u8>)> = response
        .headers()
        .iter()
        .map(|(n, v)| (n.as_str().to_owned(), v.as_bytes().to_vec()))
        .collect();
    let text_headers: Vec<(String, String)> = all_headers
        .iter()
        .map(|(n, v)| (n.clone(), String::from_utf8_lossy(v).into_owned()))
        .collect();
    let content_type = text_headers
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case("content-type"))
        .map(|(_, v)| v.clone());
    // A body framed by Transfer-Encoding is read as chunks whatever its
    // Content-Length says (RFC 9112 section 6.3): that length is not the
    // body's, and is not passed back.
    let chunked = all_headers
        .iter()
        .any(|(n, _)| n.eq_ignore_ascii_case("transfer-encoding"));
    let back = all_headers
        .into_iter()
        .filter(|(n, _)| passed_back(n) && !(chunked && n.eq_ignore_ascii_case("content-length")))
        .collect();
    if head.send(Ok((status, back))).is_err() {
        return;
    }
    watch.response(status, content_type.as_deref());
    let mut reader = response.body_mut().with_config().limit(u64::MAX).reader();
    let mut receiving = Receiving::new(started, head_at, proxy.keep);
    let mut chunk = vec![0; 64 * 1024];
    let (end, detail) = loop {
        match reader.read(&mut chunk) {
            Ok(0) => break (DeliveryEnd::Complete, None),
            Ok(n) => {
                // The client first; the check after.
                if pieces
                    .blocking_send(Ok(Bytes::copy_from_slice(&chunk[..n])))
                    .is_err()
                {
                    receiving.ended_now();
                    break (
                        DeliveryEnd::ConnectionLost,
                        Some("closed by the client".to_owned()),
                    );
                }
                let kept = receiving.piece(&chunk[..n]);
                if !kept.is_empty() {
                    watch.feed(kept);
                }
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => {
                // The client's connection is cut as the server's was.
                let _ = pieces.blocking_send(Err(io::Error::other(e.to_string())));
                receiving.ended_now();
                break (DeliveryEnd::ConnectionLost, Some(e.to_string()));
            }
        }
    };
    drop(pieces);
    let layout = match content_type.as_deref().and_then(BodyLayout::of_media_type) {
        Some(BodyLayout::Proto) => Layout::Proto,
        Some(BodyLayout::JsonLines) => Layout::JsonLines,
        _ => Layout::Sse,
    };
    // Past the limit, the stream's last piece kept may be half a record:
    // what the archive holds (cut to whole records) is judged instead.
    let over_limit = receiving.over_limit();
    let received = receiving.finish(layout, status, text_headers, end, None, detail);
    let entry = proxy
        .session
        .as_ref()
        .and_then(|session| session.lock().ok().map(|mut s| s.record(&sent, &received)));
    watch.finish(&sent, &received, entry, over_limit);
}
