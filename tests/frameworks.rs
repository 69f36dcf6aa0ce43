//! Real AG-UI adapters' traffic (`tests/data/frameworks/`: pydantic-ai,
//! ag-ui-langgraph, ag-ui-strands, ag-ui-adk, agent-framework-ag-ui, each
//! in several scenarios, captured by `regenerate.py`): the verdict on each
//! file is pinned, and the corpus as a whole holds no error and only the
//! warnings its README names as the adapters' real defects.

use std::collections::BTreeMap;
use std::fmt::Write;
use std::path::{Path, PathBuf};

use agui_lint::unstable::check::{check_source, Checked};
use agui_lint::unstable::input::Source;
use agui_lint::{Severity, Validator};

fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/frameworks")
}

fn check(validator: &Validator, path: &Path) -> Vec<Checked> {
    let mut documents = Vec::new();
    check_source(
        validator,
        &Source::File(path.to_path_buf()),
        None,
        &mut |c| documents.push(c),
    )
    .expect("capture is readable");
    documents
}

/// Each finding of a capture with its file position and place, then how
/// many documents were checked.
fn verdict(documents: &[Checked]) -> String {
    let mut out = String::new();
    for document in documents {
        for d in document.report.diagnostics() {
            let at = d
                .location
                .map(|l| document.file_location(l))
                .map_or(String::new(), |l| format!("{}:{} ", l.line, l.column));
            let _ = writeln!(
                out,
                "{at}{}[{}] {}\n  in {} (judged as AG-UI {})",
                d.severity,
                d.rule,
                d.message,
                document.place().unwrap_or_default(),
                document.report.protocol()
            );
        }
    }
    let _ = writeln!(out, "{} documents checked", documents.len());
    out
}

#[test]
fn every_adapters_capture_keeps_its_verdict() {
    let validator = Validator::new().expect("validator");
    let mut seen = 0;
    insta::glob!("data/frameworks", "*/*.har", |path| {
        seen += 1;
        insta::assert_snapshot!(verdict(&check(&validator, path)));
    });
    assert!(seen >= 38, "only {seen} captures");
}

/// What the corpus may report: no error anywhere; as warnings only
/// ag-ui-langgraph's missing `RUN_STARTED.protocolVersion` (it answers a
/// request declaring "1.0" without a declaration, which
/// `spec/1.1/basic/versioning.mdx` requires of 1.x); as infos only calls to
/// the agent's own backend tools, which the request's `tools` do not list.
#[test]
fn the_corpus_holds_no_error_and_only_known_defects() {
    let validator = Validator::new().expect("validator");
    let mut adapters: BTreeMap<String, usize> = BTreeMap::new();
    let mut langgraph_warnings = 0;
    for entry in walkdir::WalkDir::new(corpus()) {
        let path = entry.expect("walk").into_path();
        if path.extension().and_then(|e| e.to_str()) != Some("har") {
            continue;
        }
        let adapter = path
            .parent()
            .and_then(Path::file_name)
            .and_then(|n| n.to_str())
            .expect("adapter folder")
            .to_string();
        *adapters.entry(adapter.clone()).or_default() += 1;
        let documents = check(&validator, &path);
        assert!(documents.len() > 2, "{}: no run checked", path.display());
        for document in &documents {
            for d in document.report.diagnostics() {
                let known = match d.severity {
                    Severity::Error => false,
                    Severity::Warning => {
                        adapter == "langgraph" && d.rule == "protocol-version-missing"
                    }
                    Severity::Info => d.rule == "tool-call-unknown-tool",
                };
                assert!(known, "{}: {d:?}", path.display());
                langgraph_warnings += usize::from(d.severity == Severity::Warning);
            }
        }
    }
    let names: Vec<&str> = adapters.keys().map(String::as_str).collect();
    assert_eq!(
        names,
        [
            "adk",
            "agent-framework",
            "langgraph",
            "pydantic-ai",
            "strands"
        ]
    );
    assert!(adapters.values().all(|&n| n >= 7), "{adapters:?}");
    // One per run of every langgraph capture: the defect is named each time.
    assert_eq!(langgraph_warnings, 10);
}

/// The defect reported against ag-ui-langgraph's streamed tool calls,
/// rebuilt on its real capture: without its `TOOL_CALL_ARGS`, the backend
/// call is streamed with empty arguments while the run's
/// `MESSAGES_SNAPSHOT` says `{"city": "Berlin"}`. agui-lint names the
/// snapshot's entry and, as related, where the stream built the call.
#[test]
fn a_tool_call_streamed_without_its_arguments_contradicts_the_snapshot() {
    let original =
        std::fs::read_to_string(corpus().join("langgraph/backend-tool.har")).expect("capture");
    let mut har: serde_json::Value = serde_json::from_str(&original).expect("HAR");
    let content = &mut har["log"]["entries"][0]["response"]["content"]["text"];
    let text = content.as_str().expect("response text").to_string();
    let kept: Vec<&str> = text
        .split_inclusive("\n\n")
        .filter(|event| !event.contains(r#""type":"TOOL_CALL_ARGS""#))
        .collect();
    assert_eq!(kept.len() + 1, text.split_inclusive("\n\n").count());
    *content = serde_json::Value::String(kept.concat());
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("backend-tool-without-args.har");
    std::fs::write(&path, serde_json::to_string_pretty(&har).expect("JSON")).expect("write");

    let documents = check(&Validator::new().expect("validator"), &path);
    let (document, finding) = documents
        .iter()
        .find_map(|c| {
            c.report
                .diagnostics()
                .iter()
                .find(|d| d.rule == "snapshot-contradicts-stream")
                .map(|d| (c, d))
        })
        .expect("snapshot-contradicts-stream");
    assert_eq!(finding.severity, Severity::Warning);
    assert!(finding.message.contains("call_backend_1"), "{finding:?}");
    assert_eq!(
        finding.pointer,
        "/messages/1/toolCalls/0/function/arguments"
    );
    assert!(
        document
            .place()
            .is_some_and(|p| p.starts_with("entry 1 (POST ")),
        "{:?}",
        document.place()
    );
    assert!(
        finding
            .related
            .iter()
            .any(|r| r.message.ends_with("here") && r.location.is_some()),
        "{finding:?}"
    );
}
