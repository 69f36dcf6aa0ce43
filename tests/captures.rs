//! Captured traffic end to end: an HTTP Archive with two AG-UI runs, one
//! clean and one whose stream answers an unknown tool call and is cut off.

use std::collections::BTreeSet;
use std::path::PathBuf;

use agui_lint::unstable::check::{check_source, Checked};
use agui_lint::unstable::input::Source;
use agui_lint::Validator;

fn capture(name: &str) -> (PathBuf, Vec<Checked>) {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(name);
    let validator = Validator::new().expect("validator");
    let mut documents = Vec::new();
    check_source(&validator, &Source::File(path.clone()), None, &mut |c| {
        documents.push(c)
    })
    .expect("readable");
    (path, documents)
}

#[test]
fn har_reports_the_broken_run_with_entry_url_and_position_and_nothing_for_the_clean_one() {
    let (path, documents) =
        capture("fixtures/0/streams/invalid/tool-call-result-without-start-har-truncated.har");
    let text = std::fs::read_to_string(&path).expect("read");
    let lines: Vec<&str> = text.lines().collect();

    let (clean, broken): (Vec<&Checked>, Vec<&Checked>) =
        documents.iter().partition(|d| d.record == Some(1));
    assert_eq!(clean.len(), 6, "request body and five events");
    assert!(clean.iter().all(|d| d.report.diagnostics().is_empty()));

    let mut rules = BTreeSet::new();
    for document in &broken {
        let place = document.place().expect("named");
        assert!(
            place.starts_with("entry 2 (POST https://agent.example/agent)"),
            "{place}"
        );
        for d in document.report.diagnostics() {
            rules.insert(d.rule.as_str());
            let location = document.file_location(d.location.expect("located"));
            let line = lines
                .get(location.line - 1)
                .expect("a line of the HAR file");
            assert!(location.column <= line.chars().count(), "{location:?}");
            // A base64 body: findings point at its string in the HAR file.
            assert!(line.trim_start().starts_with("\"text\""), "{line}");
        }
    }
    assert_eq!(
        rules,
        BTreeSet::from([
            "never-ended",
            "stream-truncated",
            "tool-call-result-without-start"
        ])
    );
    let result = broken
        .iter()
        .find(|d| {
            d.report
                .diagnostics()
                .iter()
                .any(|x| x.rule == "tool-call-result-without-start")
        })
        .expect("the result's event");
    assert_eq!(
        result.place().as_deref(),
        Some("entry 2 (POST https://agent.example/agent), response event 2 (the response is base64: placed at its start)")
    );
}

#[test]
fn a_plain_text_body_locates_findings_at_the_character_in_the_har_file() {
    let (path, documents) =
        capture("fixtures/0/streams/invalid/invalid-value-har-request-role.har");
    let text = std::fs::read_to_string(&path).expect("read");
    let finding = documents
        .iter()
        .flat_map(|d| d.report.diagnostics().iter().map(move |x| (d, x)))
        .find(|(_, d)| d.rule == "invalid-value")
        .expect("the role typo");
    let location = finding
        .0
        .file_location(finding.1.location.expect("located"));
    let line = text.lines().nth(location.line - 1).expect("line");
    let at: String = line.chars().skip(location.column - 1).take(8).collect();
    assert_eq!(at, r#"\"usr\","#);
}
