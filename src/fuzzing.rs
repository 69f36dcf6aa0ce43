//! Entry points for the fuzz targets under `fuzz/` and for the smoke test
//! that runs them in `cargo test`: each takes arbitrary bytes and must
//! return without panicking, whatever they hold. Not a stable API.

use std::sync::LazyLock;

use serde_json::{json, Value};

use crate::check::check_reader;
use crate::diagnostic::Target;
use crate::input::Layout;
use crate::locate::Locator;
use crate::{Kind, Protocol, ProtocolChoice, Settings, Validator};

static VALIDATOR: LazyLock<Option<Validator>> = LazyLock::new(|| Validator::new().ok());

/// The validators the fast path is held to, by [`Protocol::index`]: each
/// judges undeclared documents as one version (the fast path reads every
/// version, and must choose the judged one as the full path does).
static BY_DEFAULT: LazyLock<Option<Vec<Validator>>> = LazyLock::new(|| {
    let validator = Validator::new().ok()?;
    Some(
        Protocol::ALL
            .into_iter()
            .map(|protocol| {
                validator
                    .clone()
                    .with_settings(Settings::default().protocol(ProtocolChoice::Version(protocol)))
            })
            .collect(),
    )
});

/// The validator that judges undeclared documents as `protocol`.
fn judging_as(protocol: Protocol) -> Option<&'static Validator> {
    BY_DEFAULT.as_ref()?.get(protocol.index())
}

/// Validates `data` as every kind, and as detected.
pub fn validate(data: &[u8]) {
    let Some(validator) = VALIDATOR.as_ref() else {
        return;
    };
    for kind in Kind::ALL {
        let report = validator.validate(kind, data);
        std::hint::black_box(report);
    }
    std::hint::black_box(validator.validate_detected(data));
}

/// Reads `data` as JSON Lines, SSE, a HAR archive and one JSON document,
/// checking every record. The checked documents must account for every
/// record the layout holds.
pub fn readers(data: &[u8]) {
    let Some(validator) = VALIDATOR.as_ref() else {
        return;
    };
    for layout in [Layout::JsonLines, Layout::Sse, Layout::Har, Layout::Json] {
        let mut documents = 0usize;
        let result = check_reader(validator, "fuzz", layout, data, None, &mut |checked| {
            documents += 1;
            std::hint::black_box(checked);
        });
        // Reading from memory cannot fail.
        assert!(result.is_ok(), "{layout:?}: {result:?}");
        if layout == Layout::JsonLines {
            let lines = data
                .split(|&b| b == b'\n')
                .filter(|l| !l.iter().all(u8::is_ascii_whitespace))
                .count();
            // An empty capture is one `empty-input` finding.
            assert_eq!(documents, lines.max(1), "a JSON Lines record was lost");
        }
    }
}

/// Uses `data`, when it is JSON, as a tool's `parameters`: the schema is
/// checked and compiled, and a call's arguments are validated against it.
pub fn tool_parameters(data: &[u8]) {
    let Some(validator) = VALIDATOR.as_ref() else {
        return;
    };
    let Ok(parameters) = serde_json::from_slice::<Value>(data) else {
        return;
    };
    let input = json!({
        "threadId": "t", "runId": "r", "state": null, "forwardedProps": null, "context": [],
        "tools": [{"name": "f", "description": "d", "parameters": parameters}],
        "messages": [
            {"id": "a", "role": "assistant", "toolCalls": [{"id": "c", "type": "function",
                "function": {"name": "f", "arguments": "{\"a\": [1, \"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!\"]}"}}]},
            {"id": "t", "role": "tool", "toolCallId": "c", "content": "ok"}
        ]
    });
    let Ok(bytes) = serde_json::to_vec(&input) else {
        return;
    };
    std::hint::black_box(validator.validate(Kind::RunAgentInput, &bytes));
}

/// Locates a pointer in a text: `data`'s first line is the pointer, the
/// rest the text (any bytes, not only JSON).
pub fn locate(data: &[u8]) {
    let split = data.iter().position(|&b| b == b'\n').unwrap_or(data.len());
    let (pointer, text) = data.split_at(split);
    let (Ok(pointer), Ok(text)) = (std::str::from_utf8(pointer), std::str::from_utf8(text)) else {
        return;
    };
    for locator in [Locator::new(text), Locator::with_unique_keys(text)] {
        for target in [Target::Value, Target::Key, Target::RepeatedKey(1)] {
            let location = locator.locate(pointer, target);
            assert!(location.line >= 1 && location.column >= 1);
        }
    }
}

/// The fast path's verdict and the full path's report on `data` as a
/// RunAgentInput, with `default` judging it unless it declares a version:
/// whether the fast path says clean, and what the full path (parse,
/// schema, every rule) reports.
pub fn fast_and_full(data: &[u8], default: Protocol) -> Option<(bool, crate::Report)> {
    let validator = judging_as(default)?;
    let fast = crate::fast::run_agent_input_is_clean(data, validator.limits(), default);
    Some((fast, validator.full_report(Some(Kind::RunAgentInput), data)))
}

/// Panics unless the full path's report on `data` as a RunAgentInput is
/// the same parsed whole as parsed a message at a time (when it can be):
/// the same findings, judged by the same version. Past the finding limit
/// the paths may keep different findings of the same total.
fn whole_and_by_message_agree(validator: &Validator, data: &[u8], default: Protocol) {
    let Some(apart) = validator.full_report_as(data, false) else {
        return;
    };
    let Some(whole) = validator.full_report_as(data, true) else {
        return;
    };
    assert_eq!(
        apart.protocol(),
        whole.protocol(),
        "judged by default as {default}"
    );
    let over = |report: &crate::Report| {
        report
            .diagnostics()
            .iter()
            .any(|d| d.rule == crate::findings::TOO_MANY_FINDINGS)
    };
    if over(&whole) || over(&apart) {
        assert_eq!(
            apart.is_valid(),
            whole.is_valid(),
            "judged by default as {default}"
        );
        assert_eq!(
            apart.diagnostics().len(),
            whole.diagnostics().len(),
            "judged by default as {default}"
        );
        return;
    }
    assert_eq!(
        apart.diagnostics(),
        whole.diagnostics(),
        "judged by default as {default}: the full path parsed a message at a time reports otherwise than parsed whole"
    );
}

/// Whether the fast path judges `data` as a RunAgentInput itself, with
/// `default` judging it unless it declares a version, rather than leaving
/// it to the full path.
pub fn fast_judges(data: &[u8], default: Protocol) -> bool {
    judging_as(default).is_some_and(|validator| {
        let mut found = crate::findings::AnyFound::default();
        let mut anchors = crate::locate::Anchors::new(data);
        crate::fast::judge_run_agent_input(
            data,
            validator.limits(),
            default,
            &mut found,
            &mut anchors,
        )
        .is_some()
    })
}

/// Checks `data` on both paths, under each configured default version,
/// and panics when they disagree: the fast path must say clean exactly
/// when the full path reports nothing, and the validator's report (which
/// takes the fast path first) must be the full path's, judged by the same
/// version.
pub fn differential(data: &[u8]) {
    for default in Protocol::ALL {
        differential_as(data, default);
    }
}

/// [`differential`] with `default` judging undeclared documents.
pub fn differential_as(data: &[u8], default: Protocol) {
    let Some((fast, full)) = fast_and_full(data, default) else {
        return;
    };
    if let Some(validator) = judging_as(default) {
        let report = validator.validate(Kind::RunAgentInput, data);
        assert_eq!(
            report.diagnostics(),
            full.diagnostics(),
            "judged by default as {default}: the validator's report is not the full path's"
        );
        assert_eq!(
            report.protocol(),
            full.protocol(),
            "judged by default as {default}: the validator's report names another version"
        );
    }
    if let Some(validator) = judging_as(default) {
        whole_and_by_message_agree(validator, data, default);
    }
    let full_is_clean = full.diagnostics().is_empty();
    if beyond_the_fast_path(data) {
        assert!(
            !fast,
            "the fast path read a document nested past the parser's depth"
        );
        return;
    }
    assert_eq!(
        fast,
        full_is_clean,
        "judged by default as {default}: the fast path says {} but the full path reports {:?}",
        if fast { "clean" } else { "not clean" },
        full.diagnostics()
            .iter()
            .map(|d| (&d.rule, &d.pointer, &d.message))
            .collect::<Vec<_>>()
    );
}

/// Whether `data` reaches the parser's 128th level of nesting: a document the
/// fast path leaves to the full path (which checks it on a stack grown for
/// it), so that its "not clean" there means "not known".
pub fn beyond_the_fast_path(data: &[u8]) -> bool {
    // The parser refuses its 128th level.
    crate::limits::nesting(data, crate::limits::PARSER_DEPTH - 1)
        .too_deep_at
        .is_some()
}

/// Whether the fast path reads `data`, the next record of a stream whose
/// events are judged by `protocol`, as a clean event, and what the full
/// path reports on the same record.
pub fn fast_and_full_event(data: &[u8], protocol: Protocol) -> Option<(bool, crate::Report)> {
    let validator = VALIDATOR.as_ref()?;
    let fast = validator.reads_clean_event(data, protocol);
    Some((fast, validator.full_record_report(data, protocol)))
}

/// Checks `data` as the next record of a stream judged by each version
/// in turn, and panics when the paths disagree: an event the fast path
/// reads as clean is one the full path reports nothing about, detects as
/// an event and judges by the same version; and the version a
/// `RUN_STARTED`'s text declares is the one its `Value` declares.
pub fn event_differential(data: &[u8]) {
    let by_value = serde_json::from_slice::<Value>(data)
        .ok()
        .and_then(|event| {
            (event.get("type").and_then(Value::as_str) == Some("RUN_STARTED")).then(|| {
                crate::rules::version::declared_by_run_started(&event).map(|(_, v)| v.to_string())
            })
        });
    assert_eq!(
        crate::validator::declared_by_run_started(data),
        by_value,
        "the declaration read from the text"
    );
    for protocol in Protocol::ALL {
        let Some((fast, full)) = fast_and_full_event(data, protocol) else {
            return;
        };
        if !fast {
            continue;
        }
        assert!(
            full.diagnostics().is_empty(),
            "judged as {protocol}: the fast path reads a clean event but the full path reports {:?}",
            full.diagnostics()
                .iter()
                .map(|d| (&d.rule, &d.pointer, &d.message))
                .collect::<Vec<_>>()
        );
        assert_eq!(full.kind(), Some(Kind::Event), "judged as {protocol}");
        assert_eq!(full.protocol(), protocol, "judged as {protocol}");
    }
}

/// How long one run of a fuzz target may take on the bytes libFuzzer
/// sends (at most a few hundred kilobytes): every check is linear, so a
/// run that takes longer is a bug worth a crash report, not a slow input.
/// Memory is bounded by libFuzzer's `-rss_limit_mb` (see `fuzz/README.md`).
const RUN_BUDGET: std::time::Duration = std::time::Duration::from_secs(5);

/// Panics when `run` takes longer than [`RUN_BUDGET`]: libFuzzer's own
/// `-timeout` kills the process, this names what was slow.
fn within_budget(what: &str, run: impl FnOnce()) {
    let started = std::time::Instant::now();
    run();
    let took = started.elapsed();
    assert!(took < RUN_BUDGET, "{what} took {took:?}, over its budget");
}

/// `data` as the plain and the base64 response of a HAR entry whose
/// request is a RunAgentInput, and as a HAR file itself.
pub fn har(data: &[u8]) {
    use base64::Engine as _;
    let Some(validator) = VALIDATOR.as_ref() else {
        return;
    };
    let request = r#"{"threadId":"t","runId":"r","protocolVersion":"1.1","messages":[]}"#;
    let text = String::from_utf8_lossy(data);
    let plain = json!({"mimeType": "text/event-stream", "text": text});
    let encoded = json!({"mimeType": "text/event-stream", "encoding": "base64",
        "text": base64::engine::general_purpose::STANDARD.encode(data)});
    for content in [plain, encoded] {
        let har = json!({"log": {"entries": [{
            "request": {"method": "POST", "url": "http://127.0.0.1/agent",
                        "postData": {"mimeType": "application/json", "text": request}},
            "response": {"status": 200, "content": content}}]}});
        let Ok(bytes) = serde_json::to_vec(&har) else {
            return;
        };
        within_budget("a HAR response", || {
            let result = check_reader(
                validator,
                "fuzz.har",
                Layout::Har,
                &bytes[..],
                None,
                &mut |c| {
                    std::hint::black_box(c);
                },
            );
            assert!(result.is_ok(), "{result:?}");
        });
    }
    within_budget("a HAR file", || {
        let _ = check_reader(validator, "fuzz.har", Layout::Har, data, None, &mut |c| {
            std::hint::black_box(c);
        });
    });
}

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

/// A stream whose state deltas come from `data`: its first line is a
/// state snapshot, each further line a patch (or any event), so that the
/// patch applier meets arbitrary patches against arbitrary states.
pub fn stream(data: &[u8]) {
    let Some(validator) = VALIDATOR.as_ref() else {
        return;
    };
    let mut lines = data.split(|&b| b == b'\n');
    let snapshot = lines.next().unwrap_or_default();
    let mut capture = Vec::new();
    capture.extend_from_slice(
        br#"{"type":"RUN_STARTED","threadId":"t","runId":"r","protocolVersion":"1.1"}"#,
    );
    capture.extend_from_slice(b"\n{\"type\":\"STATE_SNAPSHOT\",\"snapshot\":");
    capture.extend_from_slice(if snapshot.is_empty() { b"{}" } else { snapshot });
    capture.extend_from_slice(b"}\n");
    for line in lines {
        if line.first() == Some(&b'[') {
            capture.extend_from_slice(b"{\"type\":\"STATE_DELTA\",\"delta\":");
            capture.extend_from_slice(line);
            capture.extend_from_slice(b"}\n");
        } else {
            capture.extend_from_slice(line);
            capture.push(b'\n');
        }
    }
    within_budget("a stream of patches", || {
        let result = check_reader(
            validator,
            "fuzz.jsonl",
            Layout::JsonLines,
            &capture[..],
            None,
            &mut |c| {
                std::hint::black_box(c);
            },
        );
        assert!(result.is_ok(), "{result:?}");
    });
}

/// `data` split at its first NUL into a tool's `parameters` and a call's
/// arguments, checked together: the schema's cost analysis, the budget on
/// the call, and the validator they bound.
pub fn tool_arguments(data: &[u8]) {
    let Some(validator) = VALIDATOR.as_ref() else {
        return;
    };
    let split = data.iter().position(|&b| b == 0).unwrap_or(data.len());
    let (schema, arguments) = data.split_at(split);
    let Ok(parameters) = serde_json::from_slice::<Value>(schema) else {
        return;
    };
    let arguments = String::from_utf8_lossy(arguments.get(1..).unwrap_or_default());
    let input = json!({
        "threadId": "t", "runId": "r", "protocolVersion": "1.1",
        "tools": [{"name": "f", "description": "d", "parameters": parameters}],
        "messages": [
            {"id": "a", "role": "assistant", "toolCalls": [{"id": "c", "type": "function",
                "function": {"name": "f", "arguments": arguments}}]},
            {"id": "t", "role": "tool", "toolCallId": "c", "content": "ok"}
        ]
    });
    let Ok(bytes) = serde_json::to_vec(&input) else {
        return;
    };
    within_budget("a tool call against its parameters", || {
        std::hint::black_box(validator.validate(Kind::RunAgentInput, &bytes));
    });
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

/// `data` as AG-UI's binary transport: as one frame's message (decoded to
/// JSON that must parse, or refused with a reason), as a capture of frames
/// (every frame a record, the checker's output the same in pieces as
/// whole), and as a run's response in a HAR entry.
pub fn proto(data: &[u8]) {
    use crate::input::proto::{decode, write_frame, Decoded};
    let Some(validator) = PROTO_VALIDATOR.as_ref() else {
        return;
    };
    within_budget("a frame decoded", || {
        let decoded = decode(data);
        if let Ok(Decoded::Event { written, .. }) = &decoded {
            let parsed = serde_json::from_slice::<Value>(&written.json);
            assert!(parsed.is_ok(), "decoded JSON does not parse: {parsed:?}");
        }
        // The fast path of common events writes what prost's path writes.
        let general =
            crate::input::proto::decode_general(prost::bytes::Bytes::copy_from_slice(data));
        assert_eq!(decoded, general, "the fast path and prost's path disagree");
    });
    let mut framed = Vec::new();
    write_frame(data, &mut framed);
    for capture in [&framed[..], data] {
        within_budget("a binary capture", || {
            let whole = proto_findings(validator, capture, None);
            let pieces = proto_findings(validator, capture, Some(7));
            assert_eq!(whole, pieces, "fed in pieces, the capture reads otherwise");
        });
    }
}

/// The validator of [`proto`]: states held to 1 MiB, so that a stream of
/// patches copying its state (which the `stream` target covers) does not
/// spend the frame reader's budget, checked four times over.
static PROTO_VALIDATOR: LazyLock<Option<Validator>> = LazyLock::new(|| {
    let limits = crate::Limits::default().with_max_state_bytes(1024 * 1024);
    Some(
        Validator::new()
            .ok()?
            .with_settings(Settings::default().with_limits(limits)),
    )
});

/// The findings of `capture` read as binary frames, whole or fed to a
/// stream checker `piece` bytes at a time.
fn proto_findings(validator: &Validator, capture: &[u8], piece: Option<usize>) -> Vec<String> {
    let mut found = Vec::new();
    let mut take = |checked: crate::Checked| {
        for d in checked.report.diagnostics() {
            found.push(format!("{:?} {} {}", checked.record, d.rule, d.message));
        }
    };
    match piece {
        None => {
            let result = check_reader(validator, "-", Layout::Proto, capture, None, &mut take);
            assert!(result.is_ok(), "{result:?}");
        }
        Some(size) => {
            let mut checker = crate::StreamChecker::new(validator, crate::Framing::Proto);
            for chunk in capture.chunks(size.max(1)) {
                checker.feed(chunk).into_iter().for_each(&mut take);
            }
            checker.finish().into_iter().for_each(&mut take);
        }
    }
    found
}

/// `data` as a recording (`agui-lint diff`, `replay`): read as each kind of
/// capture, its runs diffed against themselves (nothing may differ) and
/// against the runs of the same bytes read otherwise, and each exchange
/// served again as recorded (the pieces must be its body, byte for byte)
/// and with its ids fitted to a request.
pub fn recordings(data: &[u8]) {
    use crate::recording::diff::diff;
    use crate::recording::normalize::{runs, Normalization};
    use crate::recording::playback::{playback, Pace};
    use crate::recording::read_capture;
    let request = json!({"threadId": "fuzz-thread", "runId": "fuzz-run"});
    let mut all: Vec<Vec<crate::recording::normalize::Run>> = Vec::new();
    for name in ["c.jsonl", "c.sse", "c.har", "c.aguipb", "c.json", "-"] {
        within_budget("a recording", || {
            let Ok(capture) = read_capture(data, std::path::Path::new(name)) else {
                return;
            };
            for how in [
                Normalization::default(),
                Normalization { join_pieces: false },
            ] {
                let read = runs(&capture, how);
                assert!(
                    diff(&read, &read).is_empty(),
                    "{name}: a capture differs from itself"
                );
                if let Some(other) = all.last() {
                    let _ = diff(other.as_slice(), &read);
                }
                all.push(read);
            }
            for exchange in &capture.exchanges {
                let kept = playback(exchange, None, true, Pace::Fast);
                if let Some(body) = &exchange.body {
                    let served: Vec<u8> =
                        kept.pieces.iter().flat_map(|p| p.bytes.clone()).collect();
                    if !body.is_empty() {
                        assert_eq!(
                            &served, body,
                            "{name}: a recording is not served as recorded"
                        );
                    }
                }
                let fitted = playback(exchange, Some(&request), false, Pace::Recorded);
                if exchange.layout == crate::recording::BodyLayout::Proto {
                    // Ids fitted or not, every frame is served: as many
                    // as were recorded, each as long as it says.
                    let served: Vec<u8> =
                        fitted.pieces.iter().flat_map(|p| p.bytes.clone()).collect();
                    let recorded = exchange.body.as_deref().unwrap_or_default();
                    assert_eq!(
                        frames_in(&served),
                        frames_in(recorded),
                        "{name}: replay lost or broke a frame"
                    );
                }
            }
        });
    }
}

/// The frames of a binary body, whole or not, by the official framing.
fn frames_in(body: &[u8]) -> usize {
    let mut framer = crate::input::proto::ProtoFramer::new(usize::MAX);
    let mut frames = 0;
    framer.push(body, &mut |_| frames += 1);
    framer.finish(&mut |_| frames += 1);
    frames
}
