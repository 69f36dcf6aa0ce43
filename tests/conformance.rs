//! Upstream's conformance streams as a corpus: every stream in
//! `tests/upstream/streams/` (upstream's, vendored; format in `FORMAT.md`
//! there) and every stream under
//! `fixtures/<version>/conformance/` is checked as one event stream, and
//! agui-lint must reach the outcome a conforming client must:
//!
//! - `"failed"`: at least one error;
//! - `"completed"` with `warnings`: at least one finding;
//! - `"completed"` with `noWarnings`: no error and no warning;
//! - any other `"completed"`: no error.
//!
//! Upstream writes its streams for a client of its SDKs, which speak 1.0
//! and declare it on every request (`VERSIONS.md`); a client pinned to a
//! pre-1.0 peer (`client.maxProtocolVersion` below 1.0) declares nothing
//! and judges the peer's stream as pre-1.0. The fixtures' client speaks
//! its folder's version. A stream's own `RUN_STARTED` declaration judges
//! the events after it, as everywhere.
//!
//! Fixtures are named after the sequence rule they show: `<rule>.json`
//! must report the rule, `<rule>-clean.json` shows its correct form; every
//! stream rule of the folder's version has both.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use agui_lint::{EventStream, Kind, Protocol, ProtocolChoice, Settings, Severity, Validator};
use serde_json::Value;

/// A conformance stream, with the version of the client that reads it.
struct Case {
    path: PathBuf,
    client: Protocol,
    doc: Value,
}

fn cases() -> Vec<Case> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut cases = Vec::new();
    let mut add = |dir: PathBuf, client: Protocol| {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            return;
        };
        let mut paths: Vec<PathBuf> = entries
            .map(|e| e.expect("entry").path())
            .filter(|p| p.extension().is_some_and(|e| e == "json"))
            .collect();
        paths.sort();
        for path in paths {
            let text = std::fs::read_to_string(&path).expect("read stream");
            let doc = serde_json::from_str(&text)
                .unwrap_or_else(|e| panic!("{}: not JSON: {e}", path.display()));
            cases.push(Case { path, client, doc });
        }
    };
    add(root.join("tests/upstream/streams"), Protocol::V1_0);
    for version in Protocol::ALL {
        add(
            root.join("fixtures")
                .join(version.as_str())
                .join("conformance"),
            version,
        );
    }
    cases
}

/// The version a pinned peer speaks, when the pin is below 1.0.
fn pinned_below_1_0(doc: &Value) -> bool {
    doc.pointer("/client/maxProtocolVersion")
        .and_then(Value::as_str)
        .is_some_and(|v| v.starts_with("0."))
}

/// The findings (rule, severity, message) of the case's stream.
fn check(base: &Validator, case: &Case) -> Vec<(String, Severity, String)> {
    let pinned = pinned_below_1_0(&case.doc);
    let client = if pinned { Protocol::V0 } else { case.client };
    let validator = base
        .clone()
        .with_settings(Settings::default().protocol(ProtocolChoice::Version(client)));
    let mut stream = EventStream::new();
    if !pinned && client.is_1x() {
        stream.assume_protocol(client);
        stream.expect_version(client.as_str());
    }
    let events = case
        .doc
        .get("stream")
        .and_then(Value::as_array)
        .unwrap_or_else(|| panic!("{}: no stream", case.path.display()));
    let mut found = Vec::new();
    for event in events {
        let bytes = serde_json::to_vec(event).expect("serialises");
        let report =
            validator.validate_in_stream(&mut stream, Some(Kind::Event), &bytes, None, None);
        found.extend(
            report
                .diagnostics()
                .iter()
                .map(|d| (d.rule.clone(), d.severity, d.message.clone())),
        );
    }
    found.extend(
        validator
            .finish_stream(&mut stream)
            .into_iter()
            .map(|d| (d.rule, d.severity, d.message)),
    );
    // The repository's 1.1 streams hold a 1.1 consumer to the 1.1 text; the
    // default view, @ag-ui/client 1.0.0, warns that each declares a newer
    // version than it speaks (upstream's producer-declares-newer-version-warns
    // holds that warning), which is no outcome of theirs.
    if case.client == Protocol::V1_1 {
        found.retain(|f| f.0 != "client-older-than-stream");
    }
    found
}

/// Why the case's findings miss its expected outcome, if they do.
fn verdict(case: &Case, found: &[(String, Severity, String)]) -> Option<String> {
    let expect = case.doc.get("expect").cloned().unwrap_or(Value::Null);
    let outcome = expect.get("outcome").and_then(Value::as_str);
    let errors = found.iter().filter(|f| f.1 == Severity::Error).count();
    let noisy = found.iter().filter(|f| f.1 >= Severity::Warning).count();
    let warns = expect
        .get("warnings")
        .and_then(Value::as_array)
        .is_some_and(|w| !w.is_empty());
    let quiet = expect.get("noWarnings").and_then(Value::as_bool) == Some(true);
    match outcome {
        Some("failed") if errors == 0 => Some("expected an error".into()),
        Some("failed") => None,
        Some("completed") if errors > 0 => Some("expected no error".into()),
        Some("completed") if warns && found.is_empty() => Some("expected a finding".into()),
        Some("completed") if quiet && noisy > 0 => Some("expected no warning".into()),
        Some("completed") => None,
        other => Some(format!("unknown outcome {other:?}")),
    }
}

/// The rule a fixture is named after, and whether it is the clean form.
fn named_rule(path: &Path) -> Option<(String, bool)> {
    let stem = path.file_stem()?.to_str()?;
    let (name, clean) = match stem.strip_suffix("-clean") {
        Some(name) => (name, true),
        None => (stem, false),
    };
    agui_lint::rules::rule(name).map(|r| (r.name.to_string(), clean))
}

#[test]
fn every_stream_reaches_the_outcome_a_conforming_client_must() {
    let cases = cases();
    assert!(
        cases.len() >= 17,
        "only {} conformance streams",
        cases.len()
    );
    let base = Validator::new().expect("validator");
    let mut failures = Vec::new();
    for case in &cases {
        let found = check(&base, case);
        let name = case.path.display();
        if let Some(why) = verdict(case, &found) {
            failures.push(format!("{name}: {why}; found {found:?}"));
        }
        if case
            .path
            .starts_with(Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures"))
        {
            match named_rule(&case.path) {
                Some((rule, false)) if !found.iter().any(|f| f.0 == rule) => {
                    failures.push(format!("{name}: expected rule {rule}, found {found:?}"));
                }
                Some(_) => {}
                None => failures.push(format!("{name}: not named after a rule")),
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Rules of stream captures that a conformance stream (one stream of
/// events, written as JSON) cannot show, by name prefix, with why.
const NOT_IN_ONE_STREAM: &[(&str, &str)] = &[
    (
        "proto-",
        "the binary transport's framing and decoding: bytes of frames, not events; tests/proto.rs holds every binary capture to the findings of its JSON twin",
    ),
    (
        "client-",
        "judged only through --client (a named client's profile); tests/fixtures.rs checks client-<rule>-<profile> captures through it and node/test/receivers.test.js holds them to the client itself",
    ),
    (
        "invalid-",
        "malformed JSON, HAR or encodings are bytes, not events",
    ),
    ("empty-input", "a capture with no record has no stream"),
    (
        "no-agui-traffic",
        "an HTTP Archive without a run has no stream",
    ),
    (
        "response-not-captured",
        "an HTTP Archive's run without its events has no stream",
    ),
    (
        "unknown-protocol-version",
        "a declaration rule, not a sequence rule; upstream's own version streams show it",
    ),
    (
        "resume-",
        "judges the next request of a HAR against the run before: two exchanges, not one stream",
    ),
    (
        "unexpected-",
        "an HTTP status or media type is the exchange's, not an event's",
    ),
    (
        "sse-carriage-return",
        "line endings are the SSE text's, not an event's",
    ),
    (
        "response-incomplete",
        "how a response arrived is the probe's record of the exchange, not an event",
    ),
    (
        "keep-alive-gap",
        "the time between reads is the probe's record of the exchange, not an event",
    ),
];

/// Every stream rule (a rule some capture under `fixtures/*/streams/invalid`
/// is named after) of a version has a conformance stream that reports it
/// and a clean one in that version's folder.
#[test]
fn every_stream_rule_is_covered_both_ways() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures");
    for version in [Protocol::V1_1] {
        let mut stream_rules = BTreeSet::new();
        for entry in std::fs::read_dir(root.join(version.as_str()).join("streams/invalid"))
            .expect("streams/invalid")
        {
            let path = entry.expect("entry").path();
            let stem = path.file_stem().and_then(|s| s.to_str()).expect("name");
            let rule = agui_lint::rules::all()
                .iter()
                .map(|r| r.name)
                .filter(|n| stem == *n || stem.starts_with(&format!("{n}-")))
                .max_by_key(|n| n.len())
                .expect("named after a rule");
            if !NOT_IN_ONE_STREAM
                .iter()
                .any(|(name, _)| rule.starts_with(name))
            {
                stream_rules.insert(rule.to_string());
            }
        }
        let dir = root.join(version.as_str()).join("conformance");
        for rule in stream_rules {
            for name in [format!("{rule}.json"), format!("{rule}-clean.json")] {
                assert!(
                    dir.join(&name).is_file(),
                    "no conformance stream fixtures/{version}/conformance/{name}"
                );
            }
        }
    }
}
