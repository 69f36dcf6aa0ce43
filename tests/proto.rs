//! AG-UI's binary transport on real bytes: captures made by the official
//! 1.0 encoder (`tests/data/proto/make-captures.mjs`) decoded as the official
//! decoder decodes them, and checked with the findings of their JSON twins.

use std::path::{Path, PathBuf};

use std::sync::LazyLock;

use agui_lint::unstable::input::proto::{decode, Decoded, FrameBody, ProtoFramer};
use agui_lint::Validator;
use serde_json::Value;

#[path = "common/proto_frames.rs"]
mod proto_frames;

fn captures() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/proto/captures");
    let mut found: Vec<PathBuf> = walkdir::WalkDir::new(&root)
        .into_iter()
        .map(|e| e.expect("walk").into_path())
        .filter(|p| p.extension().is_some_and(|e| e == "aguipb"))
        .collect();
    found.sort();
    assert!(found.len() >= 80, "{} captures", found.len());
    found
}

/// The messages of a binary capture, each whole.
fn messages(bytes: &[u8]) -> Vec<Vec<u8>> {
    let mut framer = ProtoFramer::new(usize::MAX);
    let mut out = Vec::new();
    framer.push(bytes, &mut |frame| out.push(frame));
    framer.finish(&mut |frame| out.push(frame));
    out.into_iter()
        .map(|frame| match frame.body {
            FrameBody::Message(bytes) => bytes,
            other => panic!("frame {}: {other:?}", frame.index),
        })
        .collect()
}

#[test]
fn every_frame_decodes_to_what_the_official_decoder_makes_of_it() {
    let mut frames = 0;
    for capture in captures() {
        let bytes = std::fs::read(&capture).expect("read");
        let official = std::fs::read_to_string(capture.with_extension("official.jsonl"))
            .expect("the official decoding beside it");
        let official: Vec<Value> = official
            .lines()
            .map(|l| serde_json::from_str(l).expect("JSON"))
            .collect();
        let messages = messages(&bytes);
        assert_eq!(messages.len(), official.len(), "{}", capture.display());
        for (i, (message, expected)) in messages.iter().zip(&official).enumerate() {
            frames += 1;
            let place = format!("{} frame {}", capture.display(), i + 1);
            let general = agui_lint::unstable::input::proto::decode_general(
                prost::bytes::Bytes::copy_from_slice(message),
            );
            assert_eq!(decode(message), general, "{place}: fast and general paths");
            match (decode(message), expected.get("decodeError")) {
                (
                    Ok(Decoded::Event {
                        written, unknown, ..
                    }),
                    None,
                ) => {
                    let ours: Value = serde_json::from_slice(&written.json)
                        .unwrap_or_else(|e| panic!("{place}: our JSON: {e}"));
                    assert_eq!(&ours, expected, "{place}");
                    assert!(unknown.is_empty(), "{place}: {unknown:?}");
                    assert!(!written.replaced_utf8, "{place}");
                }
                (Err(_), Some(_)) => {}
                (ours, theirs) => panic!("{place}: ours {ours:?}, official {theirs:?}"),
            }
        }
    }
    assert!(frames > 400, "{frames} frames");
}

/// The findings of a capture as (record, rule, severity), in order.
fn findings(path: &Path) -> Vec<(Option<usize>, String, String)> {
    static VALIDATOR: LazyLock<Validator> = LazyLock::new(|| Validator::new().expect("validator"));
    let mut found = Vec::new();
    agui_lint::unstable::check::check_source(
        &VALIDATOR,
        &agui_lint::unstable::input::Source::File(path.to_path_buf()),
        None,
        &mut |checked| {
            for d in checked.report.diagnostics() {
                found.push((checked.record, d.rule.clone(), d.severity.to_string()));
            }
        },
    )
    .expect("readable");
    found
}

/// The JSON capture a binary one was made from (its MANIFEST row).
fn twin(capture: &Path) -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let captures = root.join("tests/data/proto/captures");
    let manifest = std::fs::read_to_string(captures.join("MANIFEST.md")).expect("manifest");
    let name = capture
        .strip_prefix(&captures)
        .expect("under captures")
        .to_string_lossy()
        .replace('\\', "/");
    let row = manifest
        .lines()
        .find(|l| l.starts_with(&format!("| `{name}`")))
        .unwrap_or_else(|| panic!("{name} is not in the manifest"));
    let from = row.split('`').nth(3).expect("the source column");
    root.join(from)
}

/// Captures whose JSON twin holds what the binary transport cannot carry,
/// with why their findings differ.
const CANNOT_CARRY: &[(&str, &str)] = &[(
    "fixtures-1.1-invalid/state-delta-invalid-patch.aguipb",
    "a patch operation without `op` or `path` has proto3's defaults on the wire (`add`, \"\"): \
     the JSON's missing-field is a schema-violation of the operation the binary frame holds",
)];

#[test]
fn a_binary_capture_reports_what_its_json_twin_reports_frame_for_record() {
    let mut compared = 0;
    let mut with_findings = 0;
    for capture in captures() {
        let name = capture.to_string_lossy().replace('\\', "/");
        if CANNOT_CARRY.iter().any(|(n, _)| name.ends_with(n)) {
            continue;
        }
        let json = twin(&capture);
        // Within a record, findings are ordered by their place in the
        // JSON text, which a frame does not have.
        let mut ours = findings(&capture);
        let mut theirs = findings(&json);
        ours.sort();
        theirs.sort();
        assert_eq!(
            ours,
            theirs,
            "{} against {}",
            capture.display(),
            json.display()
        );
        compared += 1;
        with_findings += usize::from(!ours.is_empty());
    }
    assert!(compared >= 80, "{compared} captures compared");
    assert!(
        with_findings >= 35,
        "{with_findings} captures with findings"
    );
}

/// What `check` reports of `bytes` as a binary capture read whole, as
/// (record, context, rule, severity, message).
fn whole(validator: &Validator, bytes: &[u8]) -> Vec<(Option<usize>, String, String)> {
    let mut found = Vec::new();
    agui_lint::unstable::check::check_reader(
        validator,
        "capture.aguipb",
        agui_lint::unstable::input::Layout::Proto,
        bytes,
        None,
        &mut |checked| {
            for d in checked.report.diagnostics() {
                found.push((
                    checked.record,
                    checked.place().unwrap_or_default(),
                    format!("{}[{}] {}", d.severity, d.rule, d.message),
                ));
            }
        },
    )
    .expect("read from memory");
    found
}

/// The same, fed to a stream checker in pieces of `size` bytes.
fn in_pieces(
    validator: &Validator,
    bytes: &[u8],
    size: usize,
) -> Vec<(Option<usize>, String, String)> {
    let mut checker = agui_lint::StreamChecker::new(validator, agui_lint::Framing::Auto)
        .with_path("capture.aguipb");
    let mut documents = Vec::new();
    for piece in bytes.chunks(size) {
        documents.extend(checker.feed(piece));
    }
    documents.extend(checker.finish());
    documents
        .iter()
        .flat_map(|checked| {
            checked.report.diagnostics().iter().map(|d| {
                (
                    checked.record,
                    checked.place().unwrap_or_default(),
                    format!("{}[{}] {}", d.severity, d.rule, d.message),
                )
            })
        })
        .collect()
}

#[test]
fn a_binary_stream_fed_in_pieces_split_anywhere_is_judged_as_the_whole_file() {
    let validator = Validator::new().expect("validator");
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files: Vec<PathBuf> = ["valid", "invalid"]
        .iter()
        .flat_map(|v| {
            std::fs::read_dir(root.join("fixtures/1.1/streams").join(v))
                .expect("fixtures")
                .map(|e| e.expect("entry").path())
        })
        .filter(|p| p.extension().is_some_and(|e| e == "aguipb"))
        .collect();
    files.push(root.join("tests/data/proto/captures/every-event.aguipb"));
    assert!(files.len() >= 13);
    for file in files {
        let bytes = std::fs::read(&file).expect("read");
        let expected = whole(&validator, &bytes);
        for size in [1, 2, 3, 5, 7, 64, bytes.len()] {
            assert_eq!(
                in_pieces(&validator, &bytes, size),
                expected,
                "{} in pieces of {size}",
                file.display()
            );
        }
    }
}

/// A TEXT_MESSAGE_CONTENT frame of `delta`, as the official encoder
/// writes one.
fn content_frame(message_id: &str, delta: &[u8]) -> Vec<u8> {
    let mut fields = Vec::new();
    proto_frames::field(2, message_id.as_bytes(), &mut fields);
    proto_frames::field(3, delta, &mut fields);
    let mut frame = Vec::new();
    proto_frames::frame(2, 1, &fields, &mut frame);
    frame
}

/// The frames of `every-event.aguipb` up to its first TEXT_MESSAGE_CONTENT
/// (inside message a1), the caller's frames, and the rest; and where the
/// caller's first frame starts.
fn with_frame_inside_a_message(extra: &[u8]) -> (Vec<u8>, usize) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let bytes =
        std::fs::read(root.join("tests/data/proto/captures/every-event.aguipb")).expect("read");
    // Frame 12 is the first TEXT_MESSAGE_CONTENT of message a1.
    let mut at = 0;
    for _ in 0..11 {
        let length = u32::from_be_bytes(bytes[at..at + 4].try_into().expect("4 bytes")) as usize;
        at += 4 + length;
    }
    ([&bytes[..at], extra, &bytes[at..]].concat(), at)
}

#[test]
fn a_frame_over_the_clients_limit_is_an_error_and_still_checked() {
    let validator = Validator::new().expect("validator");
    let delta = vec![b'x'; 10 * 1024 * 1024 + 1];
    let (bytes, at) = with_frame_inside_a_message(&content_frame("a1", &delta));
    // The capture declares 1.1, which the default view (@ag-ui/client
    // 1.0.0) warns of at each run's start: another test's matter.
    let found: Vec<_> = whole(&validator, &bytes)
        .into_iter()
        .filter(|f| !f.2.contains("[client-older-than-stream]"))
        .collect();
    let rules: Vec<&str> = found.iter().map(|f| f.2.as_str()).collect();
    assert!(
        found[0].2.starts_with("error[proto-frame-too-large]"),
        "{rules:?}"
    );
    assert_eq!(found[0].1, format!("frame 12 (byte {at})"));
    // Its text was streamed into message a1: the snapshot that follows
    // no longer matches, as it would not over SSE.
    assert!(
        found[1]
            .2
            .starts_with("warning[snapshot-contradicts-stream]"),
        "{rules:?}"
    );
    assert_eq!(found.len(), 2, "{rules:?}");
    // A frame of another message is judged in the stream as any other.
    let (bytes, _) = with_frame_inside_a_message(&content_frame("zz", b"hi"));
    let found = whole(&validator, &bytes);
    assert!(
        found
            .iter()
            .any(|f| f.2.starts_with("error[event-without-start]")),
        "{found:?}"
    );
}

#[test]
fn a_frame_over_the_document_limit_is_measured_skipped_and_the_stream_goes_on() {
    let limits = agui_lint::Limits::default().with_max_document_bytes(1024);
    let validator = Validator::new()
        .expect("validator")
        .with_settings(agui_lint::Settings::default().with_limits(limits));
    let big = content_frame("a1", &[b'y'; 4096]);
    let wrong = content_frame("zz", b"hi");
    let (bytes, at) = with_frame_inside_a_message(&[big, wrong].concat());
    let found = whole(&validator, &bytes);
    let rules: Vec<(&str, &str)> = found.iter().map(|f| (f.1.as_str(), f.2.as_str())).collect();
    let big_at = format!("frame 12 (byte {at})");
    assert!(
        rules
            .iter()
            .any(|(place, r)| *place == big_at && r.starts_with("error[document-too-large]")),
        "{rules:?}"
    );
    assert!(
        rules.iter().any(|(place, r)| place.starts_with("frame 13 ")
            && r.starts_with("error[event-without-start]")),
        "{rules:?}"
    );
}

#[test]
fn garbled_frames_are_findings_never_a_crash_and_every_frame_is_accounted_for() {
    let validator = Validator::new().expect("validator");
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let clean =
        std::fs::read(root.join("tests/data/proto/captures/every-event.aguipb")).expect("read");
    // A deterministic generator: the same garbling on every run.
    let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let mut decode_failures = 0;
    for round in 0..300 {
        let mut bytes = clean.clone();
        // Garble bytes after the first frame's length, so that the frames
        // stay countable: each is still a record of its own.
        for _ in 0..1 + round % 5 {
            let at = 4 + (next() as usize) % (bytes.len() - 4);
            bytes[at] = next() as u8;
        }
        let found = whole(&validator, &bytes);
        decode_failures += found
            .iter()
            .filter(|f| f.2.contains("[proto-message-invalid]"))
            .count();
        let records: std::collections::BTreeSet<usize> = found.iter().filter_map(|f| f.0).collect();
        assert!(records.iter().all(|&r| r >= 1), "round {round}");
    }
    assert!(
        decode_failures > 50,
        "{decode_failures} frames did not decode"
    );
}

#[test]
fn a_struct_keeps_its_members_in_wire_order_and_decode_prints_it() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let capture = root.join("tests/data/proto/captures/every-event.aguipb");
    let output = assert_cmd::Command::cargo_bin("agui-lint")
        .expect("the binary")
        .args(["decode"])
        .arg(&capture)
        .output()
        .expect("run");
    assert_eq!(output.status.code(), Some(0));
    let text = String::from_utf8(output.stdout).expect("UTF-8");
    let first = text.lines().next().expect("a line");
    assert!(
        first.ends_with(r#""metadata":{"zeta":1,"alpha":{"b":[1,2.5,"x",null,true],"a":false}}}"#),
        "{first}"
    );
    assert_eq!(text.lines().count(), 41);
    // A broken capture: the frames that decode are printed, the others
    // named on standard error, and the exit code says so.
    let broken = root.join("fixtures/1.1/streams/invalid/proto-message-invalid.aguipb");
    let output = assert_cmd::Command::cargo_bin("agui-lint")
        .expect("the binary")
        .arg("decode")
        .arg(&broken)
        .output()
        .expect("run");
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("frame 2 (byte 27): does not decode"),
        "{stderr}"
    );
    assert_eq!(String::from_utf8_lossy(&output.stdout).lines().count(), 10);
}

#[test]
fn standard_input_is_told_binary_by_its_first_byte_or_its_name() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let bytes = std::fs::read(root.join("fixtures/1.1/streams/invalid/proto-unknown-event.aguipb"))
        .expect("read");
    for args in [
        &["check", "-"][..],
        &["check", "--stdin-filename", "run.aguipb", "-"],
    ] {
        let output = assert_cmd::Command::cargo_bin("agui-lint")
            .expect("the binary")
            .args(args)
            .write_stdin(bytes.clone())
            .output()
            .expect("run");
        let stdout = String::from_utf8_lossy(&output.stdout);
        assert!(
            stdout.contains("warning[proto-unknown-event]"),
            "{args:?}: {stdout}"
        );
        assert!(stdout.contains("frame 2 (byte"), "{stdout}");
        assert_eq!(output.status.code(), Some(0));
    }
}

#[test]
fn input_format_reads_a_binary_capture_under_any_name() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = tempfile::tempdir().expect("a temporary folder");
    let named = dir.path().join("capture.json");
    std::fs::copy(
        root.join("fixtures/1.1/streams/invalid/proto-trailing-bytes.aguipb"),
        &named,
    )
    .expect("copy");
    let run = |args: &[&str]| {
        let output = assert_cmd::Command::cargo_bin("agui-lint")
            .expect("the binary")
            .args(args)
            .arg(&named)
            .output()
            .expect("run");
        String::from_utf8_lossy(&output.stdout).into_owned()
    };
    // Named .json, it is read as JSON and refused as such.
    assert!(!run(&["check"]).contains("proto-trailing-bytes"));
    let forced = run(&["check", "--input-format", "proto"]);
    assert!(forced.contains("error[proto-trailing-bytes]"), "{forced}");
    assert!(forced.contains("11 documents checked"), "{forced}");
}

/// A capture of one `STATE_SNAPSHOT` whose state is `levels` objects
/// nested (`{"a":{"a":…{}}}`), written as the official encoder writes it.
fn deep_state(levels: usize) -> Vec<u8> {
    let mut value = Vec::new();
    proto_frames::field(5, &[], &mut value); // Value.struct_value: {}
    for _ in 0..levels.saturating_sub(1) {
        let mut entry = Vec::new();
        proto_frames::field(1, b"a", &mut entry); // StructEntry.key
        proto_frames::field(2, &value, &mut entry); // StructEntry.value
        let mut object = Vec::new();
        proto_frames::field(1, &entry, &mut object); // Struct.fields
        let mut outer = Vec::new();
        proto_frames::field(5, &object, &mut outer); // Value.struct_value
        value = outer;
    }
    let mut fields = Vec::new();
    proto_frames::field(2, &value, &mut fields); // StateSnapshotEvent.snapshot
    let mut capture = Vec::new();
    proto_frames::frame(7, 6, &fields, &mut capture);
    capture
}

#[test]
fn deep_state_in_a_frame_is_read_as_deep_as_json_is() {
    // prost alone refuses 100 nested messages: 33 levels of objects. The
    // same state as JSON is checked to --max-depth (512 by default).
    let dir = tempfile::tempdir().expect("temp dir");
    let rules = |levels: usize| {
        let path = dir.path().join(format!("deep-{levels}.aguipb"));
        std::fs::write(&path, deep_state(levels)).expect("write");
        let output = assert_cmd::Command::cargo_bin("agui-lint")
            .expect("the binary")
            .args(["check", "--format", "json"])
            .arg(&path)
            .output()
            .expect("run");
        let report: Value = serde_json::from_slice(&output.stdout).expect("JSON report");
        let mut rules: Vec<String> = report["documents"]
            .as_array()
            .expect("documents")
            .iter()
            .flat_map(|d| d["diagnostics"].as_array().cloned().unwrap_or_default())
            .map(|d| d["rule"].as_str().unwrap_or("").to_owned())
            .collect();
        rules.sort();
        rules.dedup();
        (rules, path)
    };
    for levels in [40, 60, 300] {
        let (found, path) = rules(levels);
        assert!(
            !found
                .iter()
                .any(|r| r == "proto-message-invalid" || r == "nesting-too-deep"),
            "{levels} levels: {found:?}"
        );
        // And `decode` prints it.
        let output = assert_cmd::Command::cargo_bin("agui-lint")
            .expect("the binary")
            .arg("decode")
            .arg(&path)
            .output()
            .expect("run");
        assert_eq!(output.status.code(), Some(0), "{levels} levels");
        let mut reader = serde_json::Deserializer::from_slice(&output.stdout);
        reader.disable_recursion_limit();
        let event = <Value as serde::Deserialize>::deserialize(&mut reader).expect("one event");
        let mut depth = 0;
        let mut at = &event["snapshot"];
        while let Some(inner) = at.get("a") {
            depth += 1;
            at = inner;
        }
        assert_eq!(depth, levels - 1);
    }
    // Past --max-depth, as JSON would be; far past what agui-lint reads,
    // one finding, never a crash.
    for levels in [1_000, 10_000] {
        let (found, _) = rules(levels);
        assert!(
            found.contains(&"nesting-too-deep".to_owned())
                && !found.contains(&"proto-message-invalid".to_owned()),
            "{levels} levels: {found:?}"
        );
    }
}
