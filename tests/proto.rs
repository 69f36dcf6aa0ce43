//! AG-UI's binary transport on real bytes: captures made by the official
//! 1.0 encoder (`tests/data/proto/make-captures.mjs`) decoded as the official
//! decoder decodes them, and checked with the findings of their JSON twins.

use std::path::{Path, PathBuf};

use std::sync::LazyLock;

use agui_lint::unstable::input::proto::{decode, Decoded, FrameBody, ProtoFramer};
use agui_lint::Validator;
use serde_json::Value;

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
