//! The library API a server uses: typed entry point, parsed values, sharing.

use std::sync::Arc;

use agui_lint::{Kind, Protocol, ProtocolChoice, Settings, Severity, Validator};
use serde_json::json;

/// A validator judging undeclared documents as pre-1.0, the profile the
/// documents of the first tests here are written in.
fn pre_1_0() -> Validator {
    Validator::new()
        .expect("validator")
        .with_settings(Settings::default().protocol(ProtocolChoice::Version(Protocol::V0)))
}

/// A pre-1.0 RunAgentInput with a key (`resume`) that came with 1.0.
const VALID: &[u8] = br#"{"threadId":"t1","runId":"r1","state":null,
  "messages":[{"id":"m1","role":"user","content":"hi"}],
  "tools":[],"context":[],"forwardedProps":{},"resume":{}}"#;

#[test]
fn typed_entry_point_returns_the_input_or_the_report() {
    let validator = pre_1_0();
    let input = validator
        .check_run_agent_input(VALID)
        .expect("valid with a warning");
    assert_eq!(input.thread_id, "t1");
    assert_eq!(input.messages.len(), 1);
    assert_eq!(input.messages[0].id(), "m1");

    let report = validator
        .check_run_agent_input(br#"{"threadId":"t1"}"#)
        .expect_err("missing keys");
    assert!(!report.is_valid());
    assert!(report
        .diagnostics()
        .iter()
        .all(|d| d.rule == "missing-field"));
    assert_eq!(report.count(Severity::Error), 6);
}

#[test]
fn typed_entry_point_can_hand_back_the_warnings() {
    let validator = pre_1_0();
    let (input, findings) = validator
        .check_run_agent_input_with_findings(VALID)
        .expect("valid with a warning");
    assert_eq!(input.run_id, "r1");
    assert_eq!(findings.len(), 1);
    assert_eq!(findings[0].rule, "unknown-field");
    assert_eq!(findings[0].pointer, "/resume");
}

#[test]
fn warnings_do_not_make_a_document_invalid() {
    let validator = pre_1_0();
    let report = validator.validate(Kind::RunAgentInput, VALID);
    assert!(report.is_valid());
    assert_eq!(report.count(Severity::Warning), 1);
    assert_eq!(report.diagnostics()[0].rule, "unknown-field");
    assert_eq!(report.diagnostics()[0].pointer, "/resume");
}

#[test]
fn parsed_values_are_checked_without_locations() {
    let validator = Validator::new().expect("validator");
    let report = validator.validate_value(
        Kind::Message,
        &json!({"id": "m", "role": "tool", "content": "x", "tool_call_id": "c"}),
    );
    let rules: Vec<&str> = report
        .diagnostics()
        .iter()
        .map(|d| d.rule.as_str())
        .collect();
    assert_eq!(rules, ["missing-field", "unknown-field"]);
    assert!(report.diagnostics().iter().all(|d| d.location.is_none()));
    let help = report.diagnostics()[0].help.as_deref().unwrap_or_default();
    assert!(help.contains("tool_call_id"), "{help}");
}

#[test]
fn one_validator_serves_many_threads() {
    let validator = Arc::new(Validator::new().expect("validator"));
    let handles: Vec<_> = (0..4)
        .map(|i| {
            let validator = Arc::clone(&validator);
            std::thread::spawn(move || {
                let body = format!(r#"{{"id":"m{i}","role":"user","content":{i}}}"#);
                validator.validate(Kind::Message, body.as_bytes())
            })
        })
        .collect();
    for handle in handles {
        let report = handle.join().expect("thread");
        assert_eq!(report.diagnostics().len(), 1);
        assert_eq!(report.diagnostics()[0].rule, "wrong-type");
    }
}

#[test]
fn invalid_json_points_at_the_offending_character() {
    let validator = Validator::new().expect("validator");
    let report = validator.validate(
        Kind::Context,
        "{\n  \"description\": \"é\",\n  \"value\": x\n}".as_bytes(),
    );
    let d = &report.diagnostics()[0];
    assert_eq!(d.rule, "invalid-json");
    let location = d.location.expect("located");
    assert_eq!((location.line, location.column), (3, 12));
    assert_eq!(report.kind(), Some(Kind::Context));
}

#[test]
fn nested_unions_report_only_the_selected_branch() {
    let validator = Validator::new().expect("validator");
    let report = validator.validate_value(
        Kind::Message,
        &json!({"id": "m", "role": "user", "content": [
            {"type": "text", "text": "look"},
            {"type": "image", "source": {"type": "url"}},
            {"type": "video", "source": {"type": "data", "value": "AAAA", "mimeType": null}}
        ]}),
    );
    let found: Vec<(&str, &str)> = report
        .diagnostics()
        .iter()
        .map(|d| (d.rule.as_str(), d.pointer.as_str()))
        .collect();
    assert_eq!(
        found,
        [
            ("missing-field", "/content/1/source"),
            ("wrong-type", "/content/2/source/mimeType"),
        ]
    );
}

#[test]
fn a_lone_surrogate_does_not_blur_the_other_locations() {
    let validator = Validator::new().expect("validator");
    let body = br#"{"id":"m1","role":"user","content":"a\ud800b","name":5}"#;
    let report = validator.validate(Kind::Message, body);
    let found: Vec<(&str, usize)> = report
        .diagnostics()
        .iter()
        .map(|d| (d.rule.as_str(), d.location.map_or(0, |l| l.column)))
        .collect();
    assert_eq!(found, [("lone-surrogate", 38), ("wrong-type", 54)]);
}

/// A 1.x request is judged by the version it declares, and read into the
/// 1.x types; the same request undeclared is judged as the newest version.
#[test]
fn typed_entry_point_reads_1x_requests_by_their_declared_version() {
    let validator = pre_1_0();
    let body = br#"{"threadId":"t1","runId":"r1","protocolVersion":"1.0",
      "messages":[{"id":"m1","role":"user","content":"hi","metadata":{"client":"web"}}],
      "resume":[{"interruptId":"i1","status":"resolved","payload":{"ok":true}}]}"#;
    let (input, findings) = validator
        .check_run_agent_input_with_findings(body)
        .expect("valid 1.0");
    assert!(findings.is_empty(), "{findings:?}");
    assert_eq!(input.protocol_version.as_deref(), Some("1.0"));
    assert_eq!(input.resume.as_ref().map(Vec::len), Some(1));
    assert_eq!(
        validator.validate(Kind::RunAgentInput, body).protocol(),
        Protocol::V1_0
    );

    let undeclared = br#"{"threadId":"t1","runId":"r1","messages":[]}"#;
    let newest = Validator::new().expect("validator");
    let report = newest.validate(Kind::RunAgentInput, undeclared);
    assert_eq!(report.protocol(), Protocol::V1_1);
    assert!(
        report.diagnostics().is_empty(),
        "{:?}",
        report.diagnostics()
    );
    // The pre-1.0 profile requires what 1.x made optional.
    let report = validator.validate(Kind::RunAgentInput, undeclared);
    assert_eq!(report.protocol(), Protocol::V0);
    assert_eq!(report.count(Severity::Error), 4);
}
