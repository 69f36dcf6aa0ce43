//! One HTTP exchange with the endpoint: the request sent as given, the
//! response's body read as it streams, and when each part came.
//!
//! The client is `ureq` (blocking, rustls): the probe makes one request at
//! a time and reads one stream, which needs no async runtime, and rustls
//! needs no system OpenSSL. Each of the four timeouts is one of ureq's:
//! connect, the response's head (first byte), every read of the body
//! (idle) and the whole exchange (total).

use std::io::Read;
use std::time::{Duration, Instant, SystemTime};

pub use agui_lint::unstable::input::har_write::{Received, Sent};

use agui_lint::unstable::input::har::{Delivery, DeliveryEnd};
use agui_lint::unstable::input::receiving::Receiving;
use agui_lint::unstable::input::sse::SseFramer;
use agui_lint::unstable::input::Layout;
use ureq::http::header::{HeaderName, HeaderValue};

/// How long each part of an exchange may take.
#[derive(Debug, Clone, Copy)]
pub struct Timeouts {
    /// To open the connection (TCP and TLS).
    pub connect: Duration,
    /// From sending the request to the response's head.
    pub first_byte: Duration,
    /// Between two reads of the body.
    pub idle: Duration,
    /// For the whole exchange.
    pub total: Duration,
}

/// The client: one per probe, so that connections to the endpoint are
/// kept alive between its exchanges as a browser keeps them.
pub struct Client {
    agent: ureq::Agent,
    timeouts: Timeouts,
    /// The most of one response's body recorded; what comes after is read
    /// to the response's end (or a timeout) and counted, not kept.
    keep: usize,
}

/// Why no exchange took place: nothing reached the endpoint's server, or
/// it ended the exchange before answering.
#[derive(Debug)]
pub struct Unreachable {
    /// What the client reported.
    pub why: String,
    /// Whether no connection was made at all (refused, no such host, the
    /// connect timeout): nothing listens there, as opposed to a server
    /// that took the request and closed or reset the connection.
    pub never_connected: bool,
}

impl Unreachable {
    fn before_sending(why: String) -> Unreachable {
        Unreachable {
            why,
            never_connected: true,
        }
    }

    fn of(error: &ureq::Error) -> Unreachable {
        let never_connected = match error {
            ureq::Error::Io(io) => io.kind() == std::io::ErrorKind::ConnectionRefused,
            ureq::Error::HostNotFound
            | ureq::Error::ConnectionFailed
            | ureq::Error::Timeout(ureq::Timeout::Connect | ureq::Timeout::Resolve) => true,
            _ => false,
        };
        Unreachable {
            why: error.to_string(),
            never_connected,
        }
    }
}

impl Client {
    /// A client with these timeouts, recording at most `keep` bytes of
    /// each response, following no redirect and using no proxy: it
    /// connects to the URL given and nowhere else.
    pub fn new(timeouts: Timeouts, keep: usize) -> Self {
        let config = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .max_redirects(0)
            .proxy(None)
            .user_agent(concat!("agui-lint/", env!("CARGO_PKG_VERSION")))
            .timeout_connect(Some(timeouts.connect))
            .timeout_recv_response(Some(timeouts.first_byte))
            .timeout_per_read(Some(timeouts.idle))
            .timeout_global(Some(timeouts.total))
            .build();
        Client {
            agent: config.into(),
            timeouts,
            keep,
        }
    }

    /// POSTs `body` to `url` with `headers` (after the two an AG-UI client
    /// sends) and reads the response to its end, a timeout or a failure.
    pub fn post(
        &self,
        url: &str,
        headers: &[(String, String)],
        body: Vec<u8>,
    ) -> Result<(Sent, Received), Unreachable> {
        self.post_until(url, headers, body, None)
    }

    /// [`Self::post`], closing the connection once `stop_after_events`
    /// events have come, as a client cancelling the run does.
    pub fn post_until(
        &self,
        url: &str,
        headers: &[(String, String)],
        body: Vec<u8>,
        stop_after_events: Option<usize>,
    ) -> Result<(Sent, Received), Unreachable> {
        let mut sent_headers = vec![
            ("Content-Type".to_string(), "application/json".to_string()),
            ("Accept".to_string(), "text/event-stream".to_string()),
        ];
        for (name, value) in headers {
            sent_headers.retain(|(known, _)| !known.eq_ignore_ascii_case(name));
            sent_headers.push((name.clone(), value.clone()));
        }
        let mut request = self.agent.post(url);
        for (name, value) in &sent_headers {
            let name = HeaderName::from_bytes(name.as_bytes()).map_err(|_| {
                Unreachable::before_sending(format!("'{name}' is not a header name"))
            })?;
            let value = HeaderValue::from_str(value).map_err(|_| {
                Unreachable::before_sending(format!("the value of header '{name}' is not valid"))
            })?;
            request = request.header(name, value);
        }
        let sent = Sent {
            method: "POST".to_owned(),
            url: url.to_string(),
            headers: sent_headers,
            body,
            at: SystemTime::now(),
        };
        let started = Instant::now();
        let ms =
            |at: Instant| u64::try_from(at.duration_since(started).as_millis()).unwrap_or(u64::MAX);
        let mut response = match request.send(&sent.body[..]) {
            Ok(response) => response,
            Err(ureq::Error::Timeout(ureq::Timeout::RecvResponse | ureq::Timeout::Global)) => {
                let limit = self.timeouts.first_byte.min(self.timeouts.total);
                let received = Received {
                    status: None,
                    headers: Vec::new(),
                    body: Vec::new(),
                    head_ms: None,
                    total_ms: ms(Instant::now()),
                    delivery: Delivery {
                        first_byte_ms: None,
                        first_event_ms: None,
                        longest_gap_ms: ms(Instant::now()),
                        end: DeliveryEnd::FirstByteTimeout,
                        limit_ms: Some(millis(limit)),
                        detail: None,
                        dropped_bytes: None,
                    },
                };
                return Ok((sent, received));
            }
            Err(error) => return Err(Unreachable::of(&error)),
        };
        let head_at = Instant::now();
        let status = response.status().as_u16();
        let response_headers = response
            .headers()
            .iter()
            .map(|(name, value)| {
                (
                    name.as_str().to_string(),
                    String::from_utf8_lossy(value.as_bytes()).into_owned(),
                )
            })
            .collect();
        // No limit on what is read, only on what is kept: a response of
        // any length is read to its end or a timeout, and its size known.
        let mut reader = response.body_mut().with_config().limit(u64::MAX).reader();
        let mut receiving = Receiving::new(started, head_at, self.keep);
        let mut chunk = vec![0; 64 * 1024];
        // Counts the events of a run to cancel as they come, without
        // reading the body again at each chunk.
        let (mut framer, mut dispatched) = (SseFramer::new(1024), 0usize);
        let (end, limit_ms, detail) = loop {
            match reader.read(&mut chunk) {
                Ok(0) => break (DeliveryEnd::Complete, None, None),
                Ok(n) => {
                    receiving.piece(&chunk[..n]);
                    if let Some(events) = stop_after_events {
                        framer.push(&chunk[..n], &mut |_| dispatched += 1);
                        if dispatched >= events {
                            // The client reads no further than the event it
                            // stops at, however much the read brought.
                            let end = end_of_event(receiving.body(), events);
                            receiving.truncate(end);
                            break (
                                DeliveryEnd::ConnectionLost,
                                None,
                                Some(format!("closed by the client after {events} events")),
                            );
                        }
                    }
                }
                Err(error) if error.kind() == std::io::ErrorKind::Interrupted => {}
                Err(error) => {
                    receiving.ended_now();
                    break self.ended_by(&error);
                }
            }
        };
        let received =
            receiving.finish(Layout::Sse, status, response_headers, end, limit_ms, detail);
        Ok((sent, received))
    }

    /// How a read that failed ended the body: a timeout (with its limit)
    /// or a lost connection (with what it reported).
    fn ended_by(&self, error: &std::io::Error) -> (DeliveryEnd, Option<u64>, Option<String>) {
        let timeout = error
            .get_ref()
            .and_then(|inner| inner.downcast_ref::<ureq::Error>())
            .and_then(|e| match e {
                ureq::Error::Timeout(which) => Some(*which),
                _ => None,
            });
        match timeout {
            Some(ureq::Timeout::PerRead) => (
                DeliveryEnd::IdleTimeout,
                Some(millis(self.timeouts.idle)),
                None,
            ),
            Some(_) => (
                DeliveryEnd::TotalTimeout,
                Some(millis(self.timeouts.total)),
                None,
            ),
            None if error.kind() == std::io::ErrorKind::TimedOut => (
                DeliveryEnd::IdleTimeout,
                Some(millis(self.timeouts.idle)),
                None,
            ),
            None => (DeliveryEnd::ConnectionLost, None, Some(error.to_string())),
        }
    }
}

/// Where the `n`-th Server-Sent Event of `body` ends: just after the
/// line break of the blank line that dispatches it (the whole body when
/// it holds fewer).
fn end_of_event(body: &[u8], n: usize) -> usize {
    let mut framer = SseFramer::new(1024);
    let mut dispatched = 0;
    for (at, byte) in body.iter().enumerate() {
        framer.push(std::slice::from_ref(byte), &mut |_| dispatched += 1);
        if dispatched >= n {
            // A CR dispatches; its LF, when one follows, belongs to it.
            let lf = *byte == b'\r' && body.get(at + 1) == Some(&b'\n');
            return at + 1 + usize::from(lf);
        }
    }
    body.len()
}

/// A duration in whole milliseconds.
fn millis(duration: Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_cancelled_run_is_recorded_to_the_event_it_stopped_at() {
        let body = b"data: 1\r\n\r\n: c\n\ndata: 2\n\ndata: 3\n\n";
        assert_eq!(super::end_of_event(body, 1), 11);
        assert_eq!(super::end_of_event(body, 2), 25);
        assert_eq!(super::end_of_event(body, 9), body.len());
    }
}
