//! Recorded exchanges as an HTTP Archive (HAR 1.2), as `agui-lint probe`
//! writes its session: each exchange with its request, its response's
//! head and body as they came, its timings, and how the body arrived
//! (`_aguiLint`), which [`super::har`] reads back. Secrets in request
//! headers are masked before anything is written.

use crate::secrets::{is_secret_name, mask_url, MASKED};
use std::time::{SystemTime, UNIX_EPOCH};

use base64::Engine as _;
use serde_json::{json, Value};

use super::har::Delivery;

/// A request as sent.
#[derive(Debug, Clone)]
pub struct Sent {
    /// The method (`POST` for a run).
    pub method: String,
    /// The URL.
    pub url: String,
    /// Every header sent, in order, secrets included (the archive masks
    /// them).
    pub headers: Vec<(String, String)>,
    /// The body.
    pub body: Vec<u8>,
    /// When it was sent.
    pub at: SystemTime,
}

/// A response as received, whole or in part.
#[derive(Debug, Clone)]
pub struct Received {
    /// The status, when the response's head came.
    pub status: Option<u16>,
    /// The response's headers.
    pub headers: Vec<(String, String)>,
    /// The body bytes that came, unchanged.
    pub body: Vec<u8>,
    /// Milliseconds from sending to the response's head.
    pub head_ms: Option<u64>,
    /// Milliseconds from sending to the last byte read.
    pub total_ms: u64,
    /// How the body came and ended.
    pub delivery: Delivery,
}

/// The archive of `exchanges`, as pretty-printed JSON text; the values of
/// secret headers, and any header value containing one of `secrets`, are
/// masked.
pub fn archive(exchanges: &[(Sent, Received)], secrets: &[String]) -> Vec<u8> {
    archive_with(exchanges, secrets, Masking::Secrets, &[])
}

/// Whether an archive masks secrets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Masking {
    /// Secret headers (`Authorization`, `Cookie`, any whose name says
    /// token, key, secret, password, auth, session ...),
    /// header values holding a given secret, and a URL's user information
    /// and secret query values.
    Secrets,
    /// Nothing: every header as it was sent (asked for by the user).
    Nothing,
}

/// [`archive`], masking as told, the headers called one of
/// `secret_headers` (any case) masked too.
pub fn archive_with(
    exchanges: &[(Sent, Received)],
    secrets: &[String],
    masking: Masking,
    secret_headers: &[String],
) -> Vec<u8> {
    let entries: Vec<Value> = exchanges
        .iter()
        .map(|(sent, received)| entry(sent, received, secrets, masking, secret_headers))
        .collect();
    let har = json!({"log": {
        "version": "1.2",
        "creator": {"name": "agui-lint", "version": env!("CARGO_PKG_VERSION")},
        "entries": entries
    }});
    let mut text = serde_json::to_vec_pretty(&har).unwrap_or_default();
    text.push(b'\n');
    text
}

/// An archive written an exchange at a time: [`Appended::head`], then
/// each entry's text from [`Appended::entry`], separated by `,`, then
/// [`Appended::TAIL`]. A writer that keeps the tail at the file's end (and
/// overwrites it with the next entry) leaves a whole archive after every
/// exchange, at the cost of that exchange alone.
pub struct Appended;

impl Appended {
    /// What closes the entries and the archive.
    pub const TAIL: &'static [u8] = b"\n]}}\n";

    /// The archive's beginning, up to its first entry.
    pub fn head() -> Vec<u8> {
        let creator = json!({"name": "agui-lint", "version": env!("CARGO_PKG_VERSION")});
        format!("{{\"log\": {{\"version\": \"1.2\", \"creator\": {creator}, \"entries\": [\n")
            .into_bytes()
    }

    /// One exchange's entry, as pretty-printed JSON text; see
    /// [`archive_with`].
    pub fn entry(
        sent: &Sent,
        received: &Received,
        secrets: &[String],
        masking: Masking,
        secret_headers: &[String],
    ) -> Vec<u8> {
        serde_json::to_vec_pretty(&entry(sent, received, secrets, masking, secret_headers))
            .unwrap_or_default()
    }
}

/// One exchange as a HAR entry.
fn entry(
    sent: &Sent,
    received: &Received,
    secrets: &[String],
    masking: Masking,
    secret_headers: &[String],
) -> Value {
    let secret_name = |name: &str| {
        is_secret_name(name) || secret_headers.iter().any(|n| n.eq_ignore_ascii_case(name))
    };
    let request_headers: Vec<Value> = sent
        .headers
        .iter()
        .map(|(name, value)| {
            let secret = masking == Masking::Secrets
                && (secret_name(name)
                    || secrets
                        .iter()
                        .any(|s| !s.is_empty() && value.contains(s.as_str())));
            json!({"name": name, "value": if secret { MASKED } else { value }})
        })
        .collect();
    let header = |name: &str| {
        received
            .headers
            .iter()
            .find(|(known, _)| known.eq_ignore_ascii_case(name))
            .map(|(_, value)| value.clone())
    };
    let response_headers: Vec<Value> = received
        .headers
        .iter()
        .map(|(name, value)| {
            let secret = masking == Masking::Secrets && secret_name(name);
            json!({"name": name, "value": if secret { MASKED } else { value }})
        })
        .collect();
    // Browsers write `x-unknown` for a response without a Content-Type.
    let mime_type = header("content-type").unwrap_or_else(|| "x-unknown".to_string());
    let mut content = json!({"size": received.body.len(), "mimeType": mime_type});
    if received.status.is_some() {
        // Text as text, as browsers write it, unless escaping it for JSON
        // would double it (a body of control bytes is six times its size
        // escaped): the archive stays within twice the bodies it holds.
        match std::str::from_utf8(&received.body) {
            Ok(text) if escaped_len(text) <= 2 * text.len() => content["text"] = json!(text),
            _ => {
                content["text"] =
                    json!(base64::engine::general_purpose::STANDARD.encode(&received.body));
                content["encoding"] = json!("base64");
            }
        }
    }
    let wait = received.head_ms.unwrap_or(received.total_ms);
    json!({
        "startedDateTime": rfc3339(sent.at),
        "time": received.total_ms,
        "request": {
            "method": sent.method,
            "url": match masking {
                Masking::Secrets => mask_url(&sent.url),
                Masking::Nothing => sent.url.as_str().into(),
            },
            "httpVersion": "HTTP/1.1",
            "cookies": [],
            "headers": request_headers,
            "queryString": [],
            "postData": post_data(sent),
            "headersSize": -1,
            "bodySize": sent.body.len()
        },
        "response": {
            "status": received.status.unwrap_or(0),
            "statusText": "",
            "httpVersion": "HTTP/1.1",
            "cookies": [],
            "headers": response_headers,
            "content": content,
            "redirectURL": header("location").unwrap_or_default(),
            "headersSize": -1,
            "bodySize": received.body.len() as u64 + received.delivery.dropped_bytes.unwrap_or(0)
        },
        "cache": {},
        "timings": {"send": 0, "wait": wait, "receive": received.total_ms.saturating_sub(wait)},
        "_aguiLint": received.delivery
    })
}

/// A request's body as sent: its text, or its bytes in base64 when they
/// are not UTF-8 (never a character replaced), with the media type its
/// `Content-Type` said.
fn post_data(sent: &Sent) -> Value {
    let mime_type = sent
        .headers
        .iter()
        .find(|(name, _)| name.eq_ignore_ascii_case("content-type"))
        .map_or("application/json", |(_, value)| value.as_str());
    match std::str::from_utf8(&sent.body) {
        Ok(text) => json!({"mimeType": mime_type, "text": text}),
        Err(_) => json!({
            "mimeType": mime_type,
            "text": base64::engine::general_purpose::STANDARD.encode(&sent.body),
            "encoding": "base64",
        }),
    }
}

/// The length of `text` written as a JSON string's contents.
fn escaped_len(text: &str) -> usize {
    text.bytes()
        .map(|byte| match byte {
            b'"' | b'\\' | b'\n' | b'\r' | b'\t' | 0x08 | 0x0c => 2,
            0..0x20 => 6,
            _ => 1,
        })
        .sum()
}

/// `at` as an RFC 3339 UTC timestamp with milliseconds.
fn rfc3339(at: SystemTime) -> String {
    let since = at.duration_since(UNIX_EPOCH).unwrap_or_default();
    let seconds = since.as_secs();
    let (days, rest) = (seconds / 86_400, seconds % 86_400);
    let (year, month, day) = civil_from_days(i64::try_from(days).unwrap_or(0));
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{:03}Z",
        rest / 3600,
        rest % 3600 / 60,
        rest % 60,
        since.subsec_millis()
    )
}

/// The proleptic Gregorian date `days` after 1970-01-01 (Howard Hinnant's
/// `civil_from_days`).
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = u32::try_from(doy - (153 * mp + 2) / 5 + 1).unwrap_or(1);
    let month = u32::try_from(if mp < 10 { mp + 3 } else { mp - 9 }).unwrap_or(1);
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::har::DeliveryEnd;
    use std::time::Duration;

    #[test]
    fn dates_are_utc() {
        assert_eq!(rfc3339(UNIX_EPOCH), "1970-01-01T00:00:00.000Z");
        let at = UNIX_EPOCH + Duration::from_millis(1_764_756_000_123);
        assert_eq!(rfc3339(at), "2025-12-03T10:00:00.123Z");
        let leap = UNIX_EPOCH + Duration::from_secs(951_782_400);
        assert_eq!(rfc3339(leap), "2000-02-29T00:00:00.000Z");
    }

    fn exchange(body: &[u8]) -> (Sent, Received) {
        let sent = Sent {
            method: "POST".into(),
            url: "http://127.0.0.1:1/agent".into(),
            headers: vec![
                ("Authorization".into(), "Bearer tok_secret".into()),
                ("X-Trace".into(), "tok_secret-2".into()),
                ("X-Other".into(), "plain".into()),
            ],
            body: b"{}".to_vec(),
            at: UNIX_EPOCH,
        };
        let received = Received {
            status: Some(200),
            headers: vec![("content-type".into(), "text/event-stream".into())],
            body: body.to_vec(),
            head_ms: Some(2),
            total_ms: 5,
            delivery: Delivery {
                first_byte_ms: Some(3),
                first_event_ms: Some(3),
                longest_gap_ms: 2,
                end: DeliveryEnd::Complete,
                limit_ms: None,
                detail: None,
                dropped_bytes: None,
            },
        };
        (sent, received)
    }

    #[test]
    fn bodies_that_escaping_would_inflate_are_base64() {
        // Escaped, 6,000 bytes; base64, 1,336; the rest of the entry is
        // about 1,700.
        let text = archive(&[exchange(&[1u8; 1000])], &[]);
        assert!(text.len() < 4_000, "{}", text.len());
        let har: Value = serde_json::from_slice(&text).expect("JSON");
        let content = &har["log"]["entries"][0]["response"]["content"];
        assert_eq!(content["encoding"], "base64");
        let quoted = archive(&[exchange(br#"data: {"type":"RUN_STARTED"}"#)], &[]);
        let har: Value = serde_json::from_slice(&quoted).expect("JSON");
        let content = &har["log"]["entries"][0]["response"]["content"];
        assert_eq!(content["text"], r#"data: {"type":"RUN_STARTED"}"#);
        assert_eq!(escaped_len("a\u{1}\"\n"), 11);
    }

    #[test]
    fn a_request_body_is_saved_as_it_was_sent() {
        // Not UTF-8: base64, read back byte for byte, no character
        // replaced; the media type is the request's own.
        let (mut sent, received) = exchange(b"data: {}\n\n");
        sent.body = b"{\"a\":\"\xff\xfe\"}".to_vec();
        sent.headers.push((
            "Content-Type".into(),
            "application/json; charset=latin1".into(),
        ));
        let text = archive(&[(sent.clone(), received)], &[]);
        let har: Value = serde_json::from_slice(&text).expect("JSON");
        let post = &har["log"]["entries"][0]["request"]["postData"];
        assert_eq!(post["encoding"], "base64");
        assert_eq!(post["mimeType"], "application/json; charset=latin1");
        let mut entries = crate::input::har::read(&text).expect("an archive");
        let body = entries
            .next()
            .and_then(Result::ok)
            .and_then(|entry| entry.request_body)
            .expect("a request body");
        assert_eq!(body.bytes, sent.body);
    }

    #[test]
    fn secrets_are_masked_and_bodies_kept() {
        let text = archive(&[exchange(b"data: {}\r\n\r\n")], &["tok_secret".into()]);
        let text = String::from_utf8(text).expect("UTF-8");
        assert!(!text.contains("tok_secret"), "{text}");
        assert!(text.contains("plain"));
        let har: Value = serde_json::from_str(&text).expect("JSON");
        let entry = &har["log"]["entries"][0];
        assert_eq!(entry["response"]["content"]["text"], "data: {}\r\n\r\n");
        assert_eq!(entry["_aguiLint"]["end"], "complete");
        assert_eq!(entry["timings"]["wait"], 2);
    }

    #[test]
    fn credentials_of_every_family_and_in_the_url_are_masked_unless_kept() {
        let (mut sent, received) = exchange(b"data: {}\n\n");
        sent.url = "http://user:hunter2@127.0.0.1:1/agent?api_key=k_secret&page=2".into();
        // Saved with the method it was sent with, not as a POST.
        sent.method = "DELETE".into();
        sent.headers = [
            "X-Auth-Token",
            "X-Goog-Api-Key",
            "Ocp-Apim-Subscription-Key",
            "Private-Token",
            "X-Amz-Security-Token",
        ]
        .iter()
        .enumerate()
        .map(|(n, name)| (name.to_string(), format!("secret-{n}")))
        .collect();
        let masked =
            String::from_utf8(archive(&[(sent.clone(), received.clone())], &[])).expect("UTF-8");
        for secret in ["hunter2", "k_secret", "secret-0", "secret-4"] {
            assert!(!masked.contains(secret), "{secret}: {masked}");
        }
        assert!(masked.contains("http://***@127.0.0.1:1/agent?api_key=***&page=2"));
        assert!(masked.contains(r#""method": "DELETE""#), "{masked}");
        let kept = String::from_utf8(archive_with(
            &[(sent, received)],
            &[],
            Masking::Nothing,
            &[],
        ))
        .expect("UTF-8");
        assert!(kept.contains("hunter2") && kept.contains("secret-4"));
    }

    #[test]
    fn a_body_that_is_not_text_is_base64() {
        let har: Value =
            serde_json::from_slice(&archive(&[exchange(&[0xff, 0, 1])], &[])).expect("JSON");
        let content = &har["log"]["entries"][0]["response"]["content"];
        assert_eq!(content["encoding"], "base64");
        assert_eq!(content["text"], "/wAB");
    }

    #[test]
    fn an_archive_appended_entry_by_entry_is_the_archive_whole() {
        let exchanges = [exchange(b"data: {}\n\n"), exchange(b"data: []\n\n")];
        let mut appended = Appended::head();
        for (k, (sent, received)) in exchanges.iter().enumerate() {
            if k > 0 {
                appended.extend_from_slice(b",\n");
            }
            appended.extend(Appended::entry(sent, received, &[], Masking::Nothing, &[]));
        }
        appended.extend_from_slice(Appended::TAIL);
        let whole: Value =
            serde_json::from_slice(&archive_with(&exchanges, &[], Masking::Nothing, &[]))
                .expect("JSON");
        let pieces: Value = serde_json::from_slice(&appended).expect("JSON");
        assert_eq!(pieces, whole);
        let text = String::from_utf8(appended).expect("UTF-8");
        assert!(text.contains("tok_secret"));
        let masked = Appended::entry(&exchanges[0].0, &exchanges[0].1, &[], Masking::Secrets, &[]);
        assert!(!String::from_utf8_lossy(&masked).contains("Bearer tok_secret"));
    }
}
