//! README, "Hostile input": a tool's `parameters` is user data, and agui-lint
//! never fetches a `$ref` or `$schema` from the network or reads one from
//! the disk. A listener on a local port proves that no connection is made;
//! a `file://` reference to an existing file is reported, and nothing of the
//! file shows in any finding.

use std::io::ErrorKind;
use std::net::TcpListener;
use std::path::Path;

use agui_lint::{Diagnostic, Kind, Report, Validator};
use serde_json::{json, Value};

/// A listener on a free local port that never blocks on `accept`.
fn listener() -> (TcpListener, u16) {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind a local port");
    listener
        .set_nonblocking(true)
        .expect("make the listener non-blocking");
    let port = listener.local_addr().expect("local address").port();
    (listener, port)
}

/// Panics if anything connected to `listener`.
fn assert_never_connected(listener: &TcpListener) {
    match listener.accept() {
        Err(e) if e.kind() == ErrorKind::WouldBlock => {}
        Ok((_, peer)) => panic!("agui-lint connected to the listener from {peer}"),
        Err(e) => panic!("accept failed: {e}"),
    }
}

fn validate(kind: Kind, document: &Value) -> Report {
    let validator = Validator::new().expect("validator");
    let bytes = serde_json::to_vec(document).expect("serialize");
    validator.validate(kind, &bytes)
}

fn findings<'r>(report: &'r Report, rule: &str) -> Vec<&'r Diagnostic> {
    report
        .diagnostics()
        .iter()
        .filter(|d| d.rule == rule)
        .collect()
}

fn tool(parameters: Value) -> Value {
    json!({"name": "lookup", "description": "Look something up.", "parameters": parameters})
}

#[test]
fn a_remote_ref_is_reported_and_never_fetched() {
    let (listener, port) = listener();
    let url = format!("http://127.0.0.1:{port}/x.json");
    let document = tool(json!({
        "type": "object",
        "properties": {"a": {"$ref": url}, "b": {"items": {"$dynamicRef": url}}}
    }));
    let report = validate(Kind::Tool, &document);
    let remote = findings(&report, "tool-parameters-remote-ref");
    let pointers: Vec<&str> = remote.iter().map(|d| d.pointer.as_str()).collect();
    assert_eq!(
        pointers,
        [
            "/parameters/properties/a/$ref",
            "/parameters/properties/b/items/$dynamicRef"
        ],
        "{report:#?}"
    );
    // One finding per cause: the compile failure the reference would cause
    // is not reported again.
    assert!(
        findings(&report, "tool-parameters-invalid-schema").is_empty(),
        "{report:#?}"
    );
    assert_never_connected(&listener);
}

#[test]
fn a_remote_schema_is_reported_and_never_fetched() {
    let (listener, port) = listener();
    for uri in [
        format!("http://127.0.0.1:{port}/x.json"),
        format!("http://127.0.0.1:{port}/x.json#"),
        format!("https://127.0.0.1:{port}/meta"),
    ] {
        let document = json!({
            "threadId": "t", "runId": "r", "state": null, "messages": [],
            "context": [], "forwardedProps": null,
            "tools": [tool(json!({"$schema": uri, "type": "object"}))]
        });
        let report = validate(Kind::RunAgentInput, &document);
        let remote = findings(&report, "tool-parameters-remote-ref");
        assert_eq!(remote.len(), 1, "{uri}: {report:#?}");
        assert_eq!(remote[0].pointer, "/tools/0/parameters/$schema");
        assert!(findings(&report, "tool-parameters-unknown-draft").is_empty());
    }
    assert_never_connected(&listener);
}

#[test]
fn a_remote_ref_in_capabilities_is_never_fetched() {
    let (listener, port) = listener();
    let document = json!({"tools": {"supported": true, "items": [tool(json!({
        "$id": format!("http://127.0.0.1:{port}/root.json"),
        "type": "object",
        "properties": {"a": {"$ref": "item.json"}}
    }))]}});
    let report = validate(Kind::Capabilities, &document);
    let remote = findings(&report, "tool-parameters-remote-ref");
    assert_eq!(remote.len(), 1, "{report:#?}");
    assert_eq!(
        remote[0].pointer,
        "/tools/items/0/parameters/properties/a/$ref"
    );
    assert_never_connected(&listener);
}

#[test]
fn a_file_ref_is_reported_and_never_read() {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR")).join("Cargo.toml");
    let contents = std::fs::read_to_string(&manifest).expect("read Cargo.toml");
    let url = format!("file://{}", manifest.display());
    for parameters in [
        json!({"type": "object", "properties": {"a": {"$ref": url}}}),
        json!({"$schema": url, "type": "object"}),
    ] {
        let report = validate(Kind::Tools, &json!([tool(parameters)]));
        let remote = findings(&report, "tool-parameters-remote-ref");
        assert_eq!(remote.len(), 1, "{report:#?}");
        assert!(
            remote[0].message.contains("file system"),
            "{}",
            remote[0].message
        );
        // Nothing of the file may show: the reference was never read.
        let texts: Vec<&str> = report
            .diagnostics()
            .iter()
            .flat_map(|d| {
                [d.message.as_str(), d.help.as_deref().unwrap_or_default()]
                    .into_iter()
                    .chain(d.related.iter().map(|r| r.message.as_str()))
            })
            .collect();
        for line in contents.lines().map(str::trim).filter(|l| l.len() > 8) {
            for text in &texts {
                assert!(!text.contains(line), "finding shows '{line}': {text}");
            }
        }
    }
}

#[test]
fn captures_reach_nothing_either() {
    // A HAR capture whose request carries a tool with a remote `$ref` and
    // `$schema` and a `file://` reference, and whose SSE response embeds
    // the same input in RUN_STARTED: checked through the capture readers,
    // nothing is fetched and nothing of the file shows.
    let (listener, port) = listener();
    let secret = Path::new(env!("CARGO_MANIFEST_DIR")).join("Cargo.toml");
    let file_url = format!("file://{}", secret.display());
    let parameters = json!({
        "$schema": format!("http://127.0.0.1:{port}/meta.json"),
        "type": "object",
        "properties": {"a": {"$ref": format!("http://127.0.0.1:{port}/a.json")}, "b": {"$ref": file_url}}
    });
    let input = json!({
        "threadId": "t", "runId": "r", "state": {}, "messages": [], "context": [],
        "forwardedProps": {}, "tools": [tool(parameters)]
    });
    let events = format!(
        "data: {}\n\ndata: {}\n\n",
        json!({"type": "RUN_STARTED", "threadId": "t", "runId": "r", "input": input}),
        json!({"type": "RUN_FINISHED", "threadId": "t", "runId": "r"})
    );
    let har = json!({"log": {"entries": [{
        "request": {"method": "POST", "url": "https://agent.example/run",
            "postData": {"mimeType": "application/json", "text": input.to_string()}},
        "response": {"content": {"mimeType": "text/event-stream", "text": events}}
    }]}});
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("capture.har");
    std::fs::write(&path, har.to_string()).expect("write");
    let validator = Validator::new().expect("validator");
    let mut rules = Vec::new();
    agui_lint::unstable::check::check_source(
        &validator,
        &agui_lint::unstable::input::Source::File(path),
        None,
        &mut |checked| {
            for d in checked.report.diagnostics() {
                assert!(!d.message.contains("[package]"), "{d:?}");
                rules.push(d.rule.clone());
            }
        },
    )
    .expect("readable");
    // `$schema`, the http `$ref` and the `file://` one, each reported in
    // the request body and in the event that embeds it.
    assert_eq!(
        rules
            .iter()
            .filter(|r| *r == "tool-parameters-remote-ref")
            .count(),
        6,
        "{rules:?}"
    );
    assert_never_connected(&listener);
}
