//! The server side: a probe's response, a proxy's exchange, the request
//! guard and the kit's client, each fed arbitrary bytes.

use std::sync::LazyLock;

use serde_json::json;

use crate::check::check_reader;
use crate::input::Layout;
use crate::{Kind, Settings, Validator};

use super::{within_budget, VALIDATOR};

/// A response the probe recorded, of body `data[1..]`: its archive is
/// written as the probe writes it (with `data[0]` choosing a
/// `Content-Encoding` header, a cut at the size limit, a lost
/// connection), read back, and checked. The body must come back byte for
/// byte, whether it was written as text or as base64, and the check must
/// finish within its budget.
pub fn probe_response(data: &[u8]) {
    use crate::input::har::{Delivery, DeliveryEnd};
    use crate::input::har_write::{archive, Received, Sent};
    let Some(validator) = VALIDATOR.as_ref() else {
        return;
    };
    let (flags, body) = data.split_first().map_or((0, data), |(f, b)| (*f, b));
    let mut headers = vec![("Content-Type".to_string(), "text/event-stream".to_string())];
    if flags & 1 != 0 {
        headers.push(("Content-Encoding".to_string(), "gzip".to_string()));
    }
    let sent = Sent {
        method: "POST".into(),
        url: "http://127.0.0.1:1/agent".into(),
        headers: vec![("Authorization".into(), "Bearer secret".into())],
        body: br#"{"threadId":"t","runId":"r","protocolVersion":"1.1","messages":[]}"#.to_vec(),
        at: std::time::UNIX_EPOCH,
    };
    let received = Received {
        status: Some(200),
        headers,
        body: body.to_vec(),
        head_ms: Some(1),
        total_ms: 2,
        delivery: Delivery {
            first_byte_ms: Some(1),
            first_event_ms: None,
            longest_gap_ms: 1,
            end: if flags & 4 != 0 {
                DeliveryEnd::ConnectionLost
            } else {
                DeliveryEnd::Complete
            },
            limit_ms: None,
            detail: None,
            dropped_bytes: (flags & 2 != 0).then_some(u64::from(flags)),
        },
    };
    let text = archive(&[(sent, received)], &["secret".to_string()]);
    let recorded = recorded_response(&text);
    if !body.is_empty() {
        assert_eq!(
            recorded.as_deref(),
            Some(body),
            "the body was not recorded as it came"
        );
    }
    within_budget("a recorded response", || {
        let result = check_reader(
            validator,
            "fuzz.har",
            Layout::Har,
            &text[..],
            None,
            &mut |c| {
                std::hint::black_box(c);
            },
        );
        assert!(result.is_ok(), "{result:?}");
    });
}

/// An exchange as `agui-lint proxy` watches it, of body `data[1..]`:
/// framed as `data[0]` chooses (Server-Sent Events, JSON Lines, binary
/// frames), passed in pieces of a size it chooses, each piece kept (up to
/// a limit it may set) and fed to the stream checker as it comes, then
/// the exchange archived with its secrets masked and checked as `check`
/// checks the saved session. The archive must hold the body kept, cut to
/// whole records past the limit, and no secret; every step must finish
/// within its budget.
pub fn proxy_exchange(data: &[u8]) {
    use crate::input::har::DeliveryEnd;
    use crate::input::har_write::{archive_with, Masking, Sent};
    use crate::input::receiving::{whole_records_end, Receiving};
    use crate::{Framing, StreamChecker};
    let Some(validator) = VALIDATOR.as_ref() else {
        return;
    };
    let (flags, body) = data.split_first().map_or((0, data), |(f, b)| (*f, b));
    let (framing, layout, media) = match flags % 3 {
        0 => (Framing::Sse, Layout::Sse, "text/event-stream"),
        1 => (
            Framing::JsonLines,
            Layout::JsonLines,
            "application/x-ndjson",
        ),
        _ => (
            Framing::Proto,
            Layout::Proto,
            "application/vnd.ag-ui.event+proto",
        ),
    };
    let piece = usize::from(flags >> 3) + 1;
    let keep = if flags & 4 != 0 {
        body.len() / 2
    } else {
        usize::MAX
    };
    let request = json!({"threadId": "t", "runId": "r", "messages": [], "tools": [],
        "context": [], "state": {}, "forwardedProps": {}});
    let now = std::time::Instant::now();
    let mut receiving = Receiving::new(now, now, keep);
    within_budget("an exchange watched as it passes", || {
        let mut checker = StreamChecker::new(validator, framing)
            .with_kind(Kind::Event)
            .answering(&request);
        for chunk in body.chunks(piece) {
            let kept = receiving.piece(chunk);
            if !kept.is_empty() {
                checker.feed_each(kept, |checked| {
                    std::hint::black_box(checked);
                });
            }
        }
        if !receiving.over_limit() {
            checker.finish_each(|checked| {
                std::hint::black_box(checked);
            });
        }
    });
    let over = receiving.over_limit();
    let received = receiving.finish(
        layout,
        200,
        vec![("Content-Type".into(), media.into())],
        DeliveryEnd::Complete,
        None,
        None,
    );
    let expected = if over {
        let kept = &body[..keep.min(body.len())];
        &kept[..whole_records_end(kept, layout)]
    } else {
        body
    };
    assert_eq!(received.body, expected, "the body kept is not what passed");
    let secret = "zq-fuzz-secret";
    let sent = Sent {
        method: "POST".into(),
        url: format!("http://user:{secret}@127.0.0.1:1/agent?api_key={secret}"),
        headers: vec![
            ("X-Own".into(), secret.into()),
            ("X-Api-Key".into(), secret.into()),
        ],
        body: request.to_string().into_bytes(),
        at: std::time::UNIX_EPOCH,
    };
    let text = archive_with(
        &[(sent, received)],
        &[],
        Masking::Secrets,
        &["x-own".to_string()],
    );
    if memchr::memmem::find(body, secret.as_bytes()).is_none() {
        assert!(
            memchr::memmem::find(&text, secret.as_bytes()).is_none(),
            "a secret was saved"
        );
    }
    let recorded = recorded_response(&text).unwrap_or_default();
    assert_eq!(
        recorded, expected,
        "the archive does not hold the body kept"
    );
    within_budget("an exchange checked as saved", || {
        let result = check_reader(
            validator,
            "run-1.har",
            Layout::Har,
            &text[..],
            None,
            &mut |c| {
                std::hint::black_box(c);
            },
        );
        assert!(result.is_ok(), "{result:?}");
    });
}

/// The response body of the first entry of `archive`, which must read
/// back as an HTTP Archive.
fn recorded_response(archive: &[u8]) -> Option<Vec<u8>> {
    let mut entries = crate::input::har::read(archive).expect("the archive written reads back");
    entries
        .next()
        .and_then(Result::ok)
        .and_then(|entry| entry.response_body)
        .map(|body| body.bytes)
}

/// What a server guard does with a request's body: the typed input or
/// the report, within the guards' limit of findings.
pub fn guard_body(data: &[u8]) {
    static GUARDED: LazyLock<Option<Validator>> = LazyLock::new(|| {
        let validator = Validator::new().ok()?;
        let settings =
            Settings::default().with_limits(crate::Limits::default().with_max_findings(100));
        Some(validator.with_settings(settings))
    });
    let Some(validator) = GUARDED.as_ref() else {
        return;
    };
    within_budget("a request body", || {
        if let Err(report) = validator.check_run_agent_input_with_findings(data) {
            assert!(
                report.diagnostics().len() <= 101,
                "more findings than the limit"
            );
        }
    });
}

/// A server's answers as the conformance kit reads and judges them: the
/// input is a request and its response split at the first NUL (a fixed
/// request when there is none); every built-in scenario plans its next
/// request from two such exchanges and judges them, within the budget.
pub fn kit_exchange(data: &[u8]) {
    use crate::kit::{BuiltIn, Exchange, Request};
    let Some(validator) = VALIDATOR.as_ref() else {
        return;
    };
    let (request, response) = match data.iter().position(|b| *b == 0) {
        Some(at) => (&data[..at], &data[at + 1..]),
        None => (
            &br#"{"threadId":"t","runId":"r","protocolVersion":"1.1","messages":[],"tools":[{"name":"get_weather","description":"d","parameters":{"type":"object"}}]}"#[..],
            data,
        ),
    };
    let exchange = || {
        let request = Request::new("a turn", request.to_vec());
        Exchange::answered(
            "http://127.0.0.1:1/agent",
            request,
            200,
            "text/event-stream",
            response,
        )
    };
    within_budget("a kit exchange", || {
        let done = [exchange(), exchange()];
        for scenario in BuiltIn::ALL {
            let _ = scenario.plan("t", Some("1.0"), &done[..1]);
            let _ = scenario.plan("t", Some("1.0"), &done);
            let _ = scenario.judge(validator, &done);
        }
    });
}
