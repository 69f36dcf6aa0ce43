//! The capture readers: HAR files, event streams read in pieces, binary
//! frames and recorded sessions.

use serde_json::{json, Value};

use crate::check::check_reader;
use crate::input::Layout;
use crate::Validator;

use super::{within_budget, PROTO_VALIDATOR, VALIDATOR};

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
