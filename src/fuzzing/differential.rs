//! The fast paths held to the full path: the same bytes judged both
//! ways must give the same report, for RunAgentInputs (whole and a
//! message at a time) and for events.

use serde_json::Value;

use crate::{Kind, Protocol, Validator};

use super::{judging_as, VALIDATOR};

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
