//! One request a scenario sent and the response it got, with what the
//! judgments read from it: the parsed request, whether the response is an
//! event stream, and what that stream carried.

use serde_json::Value;

use super::checks::Verdict;
use super::streamed::{Ending, Streamed};
use crate::input::har_write::{Received, Sent};

/// A request a scenario asks its driver to send.
#[derive(Debug, Clone)]
pub struct Request {
    /// What the request is for, as the report shows it.
    pub label: String,
    /// Headers that replace the driver's defaults (`Content-Type:
    /// application/json`, `Accept: text/event-stream`) or add to them.
    pub headers: Vec<(String, String)>,
    /// The body, as sent.
    pub body: Vec<u8>,
    /// Close the connection once this many events have come (cancelling
    /// the run), instead of reading the response to its end.
    pub cancel_after_events: Option<usize>,
    /// Milliseconds to wait before sending: after a cancelled run, the
    /// time a user takes to send again, in which a server notices the
    /// closed connection.
    pub wait_before_ms: u64,
}

impl Request {
    /// A request labelled `label` sending `body`, with the default headers,
    /// read to its end, sent at once.
    pub fn new(label: impl Into<String>, body: Vec<u8>) -> Request {
        Request {
            label: label.into(),
            headers: Vec::new(),
            body,
            cancel_after_events: None,
            wait_before_ms: 0,
        }
    }

    /// A request labelled `label` sending `input` as JSON.
    pub fn json(label: impl Into<String>, input: &Value) -> Request {
        Request::new(label, serde_json::to_vec(input).unwrap_or_default())
    }

    /// The request, sent with the header `name: value` too.
    pub fn with_header(mut self, name: &str, value: &str) -> Request {
        self.headers.push((name.to_owned(), value.to_owned()));
        self
    }

    /// The request, its connection closed after `events` events.
    pub fn cancelled_after(mut self, events: usize) -> Request {
        self.cancel_after_events = Some(events);
        self
    }

    /// The request, sent `ms` milliseconds after the last response.
    pub fn waiting(mut self, ms: u64) -> Request {
        self.wait_before_ms = ms;
        self
    }
}

/// One exchange of a scenario.
#[derive(Debug, Clone)]
pub struct Exchange {
    /// The request as the scenario planned it.
    pub request: Request,
    /// The request as sent.
    pub sent: Sent,
    /// The response as received.
    pub received: Received,
    /// The request's body, parsed (`Null` when it is not JSON).
    pub input: Value,
    /// What the response streamed, when it is an event stream.
    pub streamed: Option<Streamed>,
}

impl Exchange {
    /// The exchange of `request` sent to `url`, answered with `status`,
    /// `content_type` and `body` read whole: an exchange a driver that
    /// measured nothing hands over.
    pub fn answered(
        url: &str,
        request: Request,
        status: u16,
        content_type: &str,
        body: &[u8],
    ) -> Exchange {
        let sent = sent(url, &request, &[]);
        let headers = vec![("Content-Type".to_owned(), content_type.to_owned())];
        let received = received(Some(status), headers, body.to_vec(), true);
        Exchange::new(request, sent, received)
    }

    /// Reads `received`, the answer to `request`, its state kept within
    /// the default state limit.
    pub fn new(request: Request, sent: Sent, received: Received) -> Exchange {
        let limit = crate::Limits::default().state_limit();
        Exchange::within(request, sent, received, limit)
    }

    /// [`Self::new`], the run's state kept within `state_limit` bytes
    /// ([`Streamed::read_within`]).
    pub fn within(
        request: Request,
        sent: Sent,
        received: Received,
        state_limit: usize,
    ) -> Exchange {
        let input = serde_json::from_slice(&request.body).unwrap_or(Value::Null);
        let media = media_type(&received);
        let stream = received.status.is_some_and(|s| (200..300).contains(&s))
            && (media.contains("text/event-stream") || is_json_lines(&media));
        let streamed = stream.then(|| {
            Streamed::read_within(&input, &received.body, is_json_lines(&media), state_limit)
        });
        Exchange {
            request,
            sent,
            received,
            input,
            streamed,
        }
    }

    /// Whether the run was served: a 2xx event stream that opens with
    /// `RUN_STARTED` (or `RUN_ERROR`, a run that failed before it began)
    /// and closes the run, with `RUN_FINISHED` or `RUN_ERROR`; else why
    /// not. A run that ends with `RUN_ERROR` was served: the producer
    /// reported that its work did not succeed, as the protocol lets it
    /// (`spec/1.1/events/lifecycle.mdx`, "`RUN_ERROR`").
    pub fn served(&self) -> Result<&Streamed, String> {
        let Some(status) = self.received.status else {
            let delivery = &self.received.delivery;
            return Err(match (&delivery.detail, delivery.end, delivery.limit_ms) {
                (_, crate::input::har::DeliveryEnd::FirstByteTimeout, Some(limit)) => {
                    format!("no response came within the first-byte timeout ({limit} ms)")
                }
                (Some(detail), _, _) => format!("no response came: {detail}"),
                (None, _, _) => "no response came".into(),
            });
        };
        let Some(streamed) = &self.streamed else {
            return Err(format!(
                "HTTP {status} {}{}",
                or_none(&media_type(&self.received)),
                body_excerpt(&self.received.body)
            ));
        };
        match (&streamed.first_type, &streamed.ending) {
            (None, _) => Err(format!("HTTP {status}, an event stream with no event")),
            (Some(first), _) if first != "RUN_STARTED" && first != "RUN_ERROR" => {
                Err(format!("the stream opens with {first}, not RUN_STARTED"))
            }
            (_, Ending::Open) => Err("the stream ended with the run open".into()),
            _ => Ok(streamed),
        }
    }

    /// Whether the agent acted on the request: its run was served and
    /// did not end with `RUN_ERROR`. A check that needs the agent to have
    /// done something reads the run through this.
    pub fn acted(&self) -> Result<&Streamed, NotActed> {
        let streamed = self.served().map_err(NotActed::NotServed)?;
        match self.agent_error() {
            Some(error) => Err(NotActed::AgentFailed(error)),
            None => Ok(streamed),
        }
    }

    /// The agent's failure, when its run was served and ended with
    /// `RUN_ERROR`: `RUN_ERROR 'model unavailable' (code 'QUOTA')`.
    pub fn agent_error(&self) -> Option<String> {
        let streamed = self.served().ok()?;
        let Ending::Error(message) = &streamed.ending else {
            return None;
        };
        let code = streamed
            .of_type("RUN_ERROR")
            .last()
            .and_then(|e| e.get("code"))
            .and_then(Value::as_str)
            .map_or_else(String::new, |code| format!(" (code '{code}')"));
        Some(format!("RUN_ERROR '{message}'{code}"))
    }

    /// Whether the run's stream opened with `RUN_STARTED` (and so a run
    /// began, whatever became of it).
    pub fn started(&self) -> bool {
        self.streamed
            .as_ref()
            .is_some_and(|s| s.first_type.as_deref() == Some("RUN_STARTED"))
    }

    /// The status, or 0 when no response came.
    pub fn status(&self) -> u16 {
        self.received.status.unwrap_or(0)
    }

    /// The label, numbered: `request 2 (the tool's result)`.
    pub fn name(&self, n: usize) -> String {
        format!("request {} ({})", n + 1, self.request.label)
    }
}

/// The request (0-based) a verdict's reason names first, when it opens
/// with an exchange's [`Exchange::name`] (`request 2 (…): …`).
pub fn request_named(why: &str) -> Option<usize> {
    let (number, _) = why.strip_prefix("request ")?.split_once(" (")?;
    number.parse::<usize>().ok()?.checked_sub(1)
}

/// Why a run cannot show what the agent did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NotActed {
    /// The run was not served, and why: a failure of the server.
    NotServed(String),
    /// The run was served and ended with `RUN_ERROR` (described): the
    /// agent's failure, not the protocol's.
    AgentFailed(String),
}

impl NotActed {
    /// The verdict on a check whose run under test is `name`'s: not being
    /// served fails it; the agent failing leaves it not exercised.
    pub fn judged(self, name: &str) -> Verdict {
        match self {
            NotActed::NotServed(why) => Verdict::Failed(format!("{name}: {why}")),
            NotActed::AgentFailed(error) => {
                Verdict::NotExercised(format!("{name}: the agent failed: {error}"))
            }
        }
    }

    /// The verdict on a check that needed `name`'s run to set it up:
    /// not exercised either way, with why.
    pub fn setup(self, name: &str) -> Verdict {
        match self {
            NotActed::NotServed(why) => {
                Verdict::NotExercised(format!("{name} was not served: {why}"))
            }
            NotActed::AgentFailed(error) => {
                Verdict::NotExercised(format!("{name}: the agent failed: {error}"))
            }
        }
    }
}

/// The response's media type, lowercased, without parameters.
pub fn media_type(received: &Received) -> String {
    received
        .headers
        .iter()
        .find(|(name, _)| name.eq_ignore_ascii_case("content-type"))
        .map(|(_, value)| {
            value
                .split(';')
                .next()
                .unwrap_or("")
                .trim()
                .to_ascii_lowercase()
        })
        .unwrap_or_default()
}

fn is_json_lines(media: &str) -> bool {
    matches!(
        media,
        "application/jsonl" | "application/x-ndjson" | "application/json-lines"
    )
}

fn or_none(media: &str) -> &str {
    if media.is_empty() {
        "(no Content-Type)"
    } else {
        media
    }
}

/// The start of a body, for a verdict's reason: `: "…"`, or nothing.
pub fn body_excerpt(body: &[u8]) -> String {
    let text = one_line(body, 120);
    if text.is_empty() {
        return String::new();
    }
    format!(": \"{text}\"")
}

/// `bytes` as text on one line, whitespace runs collapsed, cut at `most`
/// characters (`…` where it was cut); only the first `4 × most` bytes are
/// read.
pub fn one_line(bytes: &[u8], most: usize) -> String {
    let read = &bytes[..bytes.len().min(most * 4)];
    let text = String::from_utf8_lossy(read);
    let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
    let cut: String = text.chars().take(most).collect();
    if cut.len() < text.len() || read.len() < bytes.len() {
        format!("{cut}…")
    } else {
        cut
    }
}

/// A response as a driver that measured nothing of its timing hands it
/// over: `status`, `headers` and the `body` read, whole (`complete`) or
/// until the driver closed the connection.
pub fn received(
    status: Option<u16>,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
    complete: bool,
) -> Received {
    use crate::input::har::{Delivery, DeliveryEnd};
    Received {
        status,
        headers,
        body,
        head_ms: None,
        total_ms: 0,
        delivery: Delivery {
            first_byte_ms: None,
            first_event_ms: None,
            longest_gap_ms: 0,
            end: if complete {
                DeliveryEnd::Complete
            } else {
                DeliveryEnd::ConnectionLost
            },
            limit_ms: None,
            detail: (!complete).then(|| "closed by the client".to_owned()),
            dropped_bytes: None,
        },
    }
}

/// A request that got no response at all: the connection was refused,
/// reset or closed before a status came, as `detail` says. The exchange is
/// recorded so that the check of that request fails with what happened.
pub fn unanswered(detail: impl Into<String>) -> Received {
    let mut received = received(None, Vec::new(), Vec::new(), false);
    received.delivery.detail = Some(detail.into());
    received
}

/// The request as a driver sent it to `url`: the kit's default headers,
/// `extra` (a driver's `-H`) over them, and the request's own last (a
/// scenario sending a wrong Content-Type on purpose means it).
pub fn sent(url: &str, request: &Request, extra: &[(String, String)]) -> Sent {
    let mut headers = vec![
        ("Content-Type".to_string(), "application/json".to_string()),
        ("Accept".to_string(), "text/event-stream".to_string()),
    ];
    for (name, value) in extra.iter().chain(&request.headers) {
        headers.retain(|(known, _)| !known.eq_ignore_ascii_case(name));
        headers.push((name.clone(), value.clone()));
    }
    Sent {
        method: "POST".to_owned(),
        url: url.to_owned(),
        headers,
        body: request.body.clone(),
        at: std::time::SystemTime::now(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reason_names_the_request_its_exchange_named() {
        let exchange = Exchange::answered(
            "http://127.0.0.1:1/agent",
            Request::new("a turn", b"{}".to_vec()),
            200,
            "text/event-stream",
            b"",
        );
        let why = format!("{}: HTTP 500", exchange.name(11));
        assert_eq!(request_named(&why), Some(11));
        assert_eq!(request_named("request 0 (x): y"), None);
        assert_eq!(request_named("requested 2 (x)"), None);
        assert_eq!(request_named("no request was sent"), None);
    }
}
