//! The HTTP exchange of an HTTP Archive entry that is an AG-UI run, judged
//! apart from its events: the response's status and media type, its
//! Server-Sent Events line endings, and, for an entry `agui-lint probe`
//! recorded, how its body arrived. `agui-lint probe` checks its own
//! exchanges through this code, so a saved session checks the same later.

use crate::client::Client;
use crate::input::har::{DeliveryEnd, HarEntry};
use crate::input::line_endings::LineEndings;
use crate::rules::transport::{
    essence, EVENT_STREAM, KEEP_ALIVE_GAP, KEEP_ALIVE_LIMIT_MS, PROTO_EVENT_STREAM,
    RESPONSE_INCOMPLETE, UNEXPECTED_CONTENT_TYPE, UNEXPECTED_STATUS,
};
use crate::rules::RESPONSE_NOT_CAPTURED;
use crate::Diagnostic;

/// What the exchange says before its events are read.
pub(super) struct Judged {
    /// Findings about the exchange, in the order the rules are listed.
    pub findings: Vec<Diagnostic>,
    /// Whether the response's body is the run's event stream, to be read
    /// as such; not after an error status (the client reads no event) or
    /// when no response came.
    pub read_events: bool,
}

/// Judges the exchange of `entry`, a run, as `client` (the `--client`
/// profile; unset, @ag-ui/client 1.0.0) would receive it.
pub(super) fn judge(entry: &HarEntry, client: Client) -> Judged {
    let response = format!("{}/response", entry.pointer);
    let mut findings = Vec::new();
    let mut read_events = true;
    if let Some(status) = entry.status.filter(|s| !(200..300).contains(s)) {
        read_events = false;
        let help = if (400..500).contains(&status) {
            "the endpoint refused the request: check the URL, the headers (authentication) and what a request guard's body says"
        } else if status >= 500 {
            "the agent failed while answering: its log says why"
        } else {
            "an AG-UI endpoint answers a run with 200 and the event stream; the official client follows no redirect of a POST it did not expect"
        };
        findings.push(
            UNEXPECTED_STATUS
                .diagnostic(
                    format!("{response}/status"),
                    format!(
                        "the run was answered with HTTP {status}: @ag-ui/client raises an error and reads no event"
                    ),
                )
                .with_help(help),
        );
    } else if let (Some(_), Some(media_type)) = (entry.status, &entry.response_mime_type) {
        let found = essence(media_type);
        if found != EVENT_STREAM && found != PROTO_EVENT_STREAM && !found.is_empty() {
            let what = if found == "x-unknown" {
                "has no Content-Type".to_string()
            } else {
                format!("is served as {found}")
            };
            findings.push(
                UNEXPECTED_CONTENT_TYPE
                    .diagnostic(
                        format!("{response}/content/mimeType"),
                        format!("the run's event stream {what}, not {EVENT_STREAM}"),
                    )
                    .with_help(format!(
                        "send the stream with `Content-Type: {EVENT_STREAM}`; proxies and browsers buffer or compress other types whole"
                    )),
            );
        }
    }
    // An undecoded body is not text, nor is a binary (protobuf) stream:
    // their bytes say nothing of line endings.
    let binary = entry
        .response_mime_type
        .as_deref()
        .is_some_and(|m| essence(m) == PROTO_EVENT_STREAM);
    let text_body = entry.undecoded_encoding().is_none() && !binary;
    if let Some(body) = entry
        .response_body
        .as_ref()
        .filter(|_| read_events && text_body)
    {
        // As the client splits the body: CR framing of more than one
        // event reaches it as one block that fails to parse.
        let mut endings = LineEndings::new();
        endings.watch(&body.bytes);
        if let Some(mut finding) = endings.finding(client) {
            finding.pointer = body.pointer.clone();
            finding.location = None;
            findings.push(finding);
        }
    }
    if let Some(delivery) = &entry.delivery {
        let pointer = format!("{}/_aguiLint", entry.pointer);
        let limit = delivery
            .limit_ms
            .map_or_else(String::new, |ms| format!(" ({})", duration(ms)));
        let why = match delivery.end {
            DeliveryEnd::Complete => None,
            DeliveryEnd::FirstByteTimeout => {
                read_events = false;
                Some(format!(
                    "no response came within the first-byte timeout{limit}"
                ))
            }
            DeliveryEnd::IdleTimeout => Some(format!(
                "the response sent nothing for the idle timeout{limit} and was cut there"
            )),
            DeliveryEnd::TotalTimeout => Some(format!(
                "the exchange ran past the total timeout{limit} and was cut there"
            )),
            DeliveryEnd::ConnectionLost => Some(match &delivery.detail {
                Some(detail) => {
                    format!("the connection was lost before the response ended: {detail}")
                }
                None => "the connection was lost before the response ended".to_string(),
            }),
        };
        if let Some(why) = why {
            findings.push(
                RESPONSE_INCOMPLETE
                    .diagnostic(pointer.clone(), why)
                    .with_help(
                        "the events that arrived are checked; the end of the run never came",
                    ),
            );
        }
        if let Some(dropped) = delivery.dropped_bytes {
            let kept = entry
                .response_body
                .as_ref()
                .map_or(0, |body| body.bytes.len());
            findings.push(
                RESPONSE_NOT_CAPTURED
                    .diagnostic(
                        pointer.clone(),
                        format!(
                            "the recorder kept the first {} of the response: {} more arrived and is not checked",
                            crate::text::size(kept as u64),
                            crate::text::size(dropped)
                        ),
                    )
                    .with_help("the events recorded are checked; raise --max-response-size to check more of a response this long"),
            );
        }
        // A stall the probe gave up on is the finding above already.
        let stalled = matches!(
            delivery.end,
            DeliveryEnd::IdleTimeout | DeliveryEnd::FirstByteTimeout
        );
        if delivery.longest_gap_ms >= KEEP_ALIVE_LIMIT_MS && !stalled {
            findings.push(
                KEEP_ALIVE_GAP
                    .diagnostic(
                        pointer,
                        format!(
                            "the stream sent nothing for {}: proxies commonly close a connection idle for 30 to 60 s",
                            duration(delivery.longest_gap_ms)
                        ),
                    )
                    .with_help("send a comment line (`: keep-alive` and a blank line) every few seconds while the agent works"),
            );
        }
    }
    Judged {
        findings,
        read_events,
    }
}

/// A duration for a message: `250 ms`, `1.5 s`, `40 s`.
/// Whether `body`, whose first CR is at `first_cr`, frames more than one
/// event with CR line endings: a blank line of CRs is followed by more
/// than whitespace.
fn duration(ms: u64) -> String {
    if ms < 1_000 {
        format!("{ms} ms")
    } else if ms < 10_000 && ms % 1_000 != 0 {
        format!("{:.1} s", ms as f64 / 1_000.0)
    } else {
        format!("{} s", ms / 1_000)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnostic::Severity;
    use crate::input::har::{Delivery, HarBody};

    fn entry(status: Option<u16>, mime: &str, body: &[u8]) -> HarEntry {
        HarEntry {
            index: 1,
            pointer: "/log/entries/0".into(),
            method: "POST".into(),
            url: "http://127.0.0.1:1/agent".into(),
            request_body: None,
            response_body: Some(HarBody {
                bytes: body.to_vec(),
                pointer: "/log/entries/0/response/content/text".into(),
                mime_type: Some(mime.into()),
                base64: false,
                offset: None,
            }),
            response_offset: None,
            status,
            response_mime_type: Some(mime.into()),
            response_content_encoding: None,
            delivery: None,
        }
    }

    fn rules(judged: &Judged) -> Vec<&str> {
        judged.findings.iter().map(|d| d.rule.as_str()).collect()
    }

    #[test]
    fn a_clean_exchange_has_no_finding() {
        let judged = judge(
            &entry(
                Some(200),
                "text/event-stream; charset=utf-8",
                b"data: {}\n\n",
            ),
            Client::V1_0_0,
        );
        assert!(judged.findings.is_empty());
        assert!(judged.read_events);
    }

    #[test]
    fn an_error_status_stops_the_events() {
        for status in [301, 401, 500] {
            let judged = judge(
                &entry(Some(status), "text/plain", b"oops\r\n"),
                Client::V1_0_0,
            );
            assert_eq!(
                rules(&judged),
                [crate::rules::transport::UNEXPECTED_STATUS.name],
                "{status}"
            );
            assert!(!judged.read_events);
        }
    }

    #[test]
    fn other_media_types_warn_and_are_still_read() {
        let judged = judge(
            &entry(Some(200), "application/json", b"data: {}\n\n"),
            Client::V1_0_0,
        );
        assert_eq!(
            rules(&judged),
            [crate::rules::transport::UNEXPECTED_CONTENT_TYPE.name]
        );
        assert!(judged.read_events);
        let missing = judge(
            &entry(Some(200), "x-unknown", b"data: {}\n\n"),
            Client::V1_0_0,
        );
        assert!(missing.findings[0].message.contains("has no Content-Type"));
        let proto = judge(
            &entry(Some(200), PROTO_EVENT_STREAM, b"\0\0\0\0"),
            Client::V1_0_0,
        );
        assert!(proto.findings.is_empty());
    }

    #[test]
    fn carriage_returns_are_named() {
        // Seen through the official client: one event framed with CR still
        // parses at the stream's end, two are one block that fails the run.
        let client = Client::V1_0_0;
        for one in [&b"data: {}\r\n\r\n"[..], b"data: {}\r\r"] {
            assert!(judge(&entry(Some(200), EVENT_STREAM, one), client)
                .findings
                .is_empty());
        }
        let two = b"data: {}\r\n\r\ndata: {}\r\n\r\n";
        let two = judge(&entry(Some(200), EVENT_STREAM, two), client);
        assert_eq!(two.findings[0].severity, Severity::Error);
        assert!(two.findings[0].message.contains("the run fails"));
    }

    #[test]
    fn deliveries_say_how_the_body_ended() {
        let mut stalled = entry(Some(200), EVENT_STREAM, b"data: {}\n\n");
        stalled.delivery = Some(Delivery {
            first_byte_ms: Some(3),
            first_event_ms: Some(3),
            longest_gap_ms: 20_000,
            end: DeliveryEnd::IdleTimeout,
            limit_ms: Some(20_000),
            detail: None,
            dropped_bytes: None,
        });
        let judged = judge(&stalled, Client::V1_0_0);
        assert_eq!(
            rules(&judged),
            [crate::rules::transport::RESPONSE_INCOMPLETE.name]
        );
        assert!(judged.findings[0].message.contains("idle timeout (20 s)"));

        let mut slow = stalled.clone();
        slow.delivery = Some(Delivery {
            end: DeliveryEnd::Complete,
            limit_ms: None,
            ..stalled.delivery.clone().expect("delivery")
        });
        assert_eq!(
            rules(&judge(&slow, Client::V1_0_0)),
            [crate::rules::transport::KEEP_ALIVE_GAP.name]
        );

        let mut silent = entry(None, "x-unknown", b"");
        silent.response_body = None;
        silent.delivery = Some(Delivery {
            first_byte_ms: None,
            first_event_ms: None,
            longest_gap_ms: 0,
            end: DeliveryEnd::FirstByteTimeout,
            limit_ms: Some(1_500),
            detail: None,
            dropped_bytes: None,
        });
        let judged = judge(&silent, Client::V1_0_0);
        assert!(!judged.read_events);
        assert!(judged.findings[0].message.contains("(1.5 s)"));
    }
}
