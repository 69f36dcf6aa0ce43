//! `agui-lint diff` on real captures: the same run recorded twice (other
//! ids, timestamps and chunking; another transport) diffs empty, and a
//! planted change shows, with its text, in both output formats.

use std::path::{Path, PathBuf};
use std::process::Output;

use assert_cmd::Command;
use serde_json::{json, Value};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn diff(args: &[&str]) -> Output {
    Command::cargo_bin("agui-lint")
        .expect("binary")
        .arg("diff")
        .args(args)
        .output()
        .expect("run")
}

fn text(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// The events of an SSE capture, one JSON value each.
fn sse_events(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .expect("capture")
        .lines()
        .filter_map(|line| line.strip_prefix("data: "))
        .map(|data| serde_json::from_str(data).expect("event"))
        .collect()
}

/// `events` as JSON Lines in a file of `dir`.
fn write_jsonl(dir: &Path, name: &str, events: &[Value]) -> PathBuf {
    let path = dir.join(name);
    let text: String = events.iter().map(|e| format!("{e}\n")).collect();
    std::fs::write(&path, text).expect("write");
    path
}

/// Every id member's value given a new spelling, and every timestamp moved.
fn recorded_again(value: &mut Value) {
    match value {
        Value::Object(members) => {
            for (name, member) in members.iter_mut() {
                match member {
                    Value::String(id) if name == "id" || name.ends_with("Id") => {
                        *id = format!("again-{id}");
                    }
                    Value::Number(n) if name == "timestamp" => {
                        *member = Value::from(n.as_u64().expect("ms") + 86_400_000);
                    }
                    _ => recorded_again(member),
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(recorded_again),
        _ => {}
    }
}

#[test]
fn the_same_run_recorded_again_diffs_empty() {
    let dir = tempfile::tempdir().expect("temp dir");
    let original = root().join("tests/upstream/traffic-1.0/chat.response.sse");
    let mut events = sse_events(&original);
    events.iter_mut().for_each(recorded_again);
    // The text cut into other pieces: two deltas sent as one.
    let contents: Vec<usize> = (0..events.len())
        .filter(|&i| events[i]["type"] == "TEXT_MESSAGE_CONTENT")
        .collect();
    assert!(contents.len() >= 3, "{contents:?}");
    let second = events.remove(contents[1]);
    let joined = format!(
        "{}{}",
        events[contents[0]]["delta"].as_str().expect("delta"),
        second["delta"].as_str().expect("delta")
    );
    events[contents[0]]["delta"] = Value::String(joined);
    let again = write_jsonl(dir.path(), "again.jsonl", &events);
    let output = diff(&[
        original.to_str().expect("utf-8"),
        again.to_str().expect("utf-8"),
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output));
    assert!(
        text(&output).contains("the same 1 run(s)"),
        "{}",
        text(&output)
    );
}

#[test]
fn a_stream_and_its_binary_twin_diff_empty() {
    // Every valid 1.1 stream fixture against the capture the official
    // encoder made of it: another transport, the same runs, except where
    // the transport itself differs (proto3 defaults for a run's input).
    let twins = root().join("tests/data/proto/captures/fixtures-1.1-valid");
    let mut compared = 0;
    for entry in std::fs::read_dir(&twins).expect("twins") {
        let binary = entry.expect("entry").path();
        if binary.extension().is_none_or(|e| e != "aguipb") {
            continue;
        }
        let name = binary.file_stem().and_then(|s| s.to_str()).expect("name");
        let json = root().join(format!("fixtures/1.1/streams/valid/{name}.jsonl"));
        let output = diff(&[
            json.to_str().expect("utf-8"),
            binary.to_str().expect("utf-8"),
        ]);
        let expected = if name == "protocol-version-mismatch" {
            1
        } else {
            0
        };
        assert_eq!(
            output.status.code(),
            Some(expected),
            "{name}: {}",
            text(&output)
        );
        if expected == 1 {
            assert!(
                text(&output).contains("/input/tools: (absent) → []"),
                "{}",
                text(&output)
            );
        }
        compared += 1;
    }
    assert!(compared >= 30, "{compared} twins");
}

#[test]
fn a_planted_change_shows_in_both_formats() {
    let dir = tempfile::tempdir().expect("temp dir");
    let original = root().join("tests/upstream/traffic-1.0/chat.response.sse");
    let mut events = sse_events(&original);
    let at = events
        .iter()
        .position(|e| e["type"] == "TEXT_MESSAGE_CONTENT")
        .expect("content");
    let delta = events[at]["delta"]
        .as_str()
        .expect("delta")
        .replace("report", "memo");
    events[at]["delta"] = Value::String(delta);
    let end = events
        .iter()
        .position(|e| e["type"] == "TEXT_MESSAGE_END")
        .expect("end");
    events.remove(end);
    let planted = write_jsonl(dir.path(), "planted.jsonl", &events);
    let (a, b) = (
        original.to_str().expect("utf-8"),
        planted.to_str().expect("utf-8"),
    );

    let human = diff(&[a, b]);
    assert_eq!(human.status.code(), Some(1));
    let shown = text(&human);
    assert!(shown.contains("[-report-]{+memo+}"), "{shown}");
    assert!(shown.contains("- removed TEXT_MESSAGE_END"), "{shown}");

    let json = diff(&["--format", "json", a, b]);
    assert_eq!(json.status.code(), Some(1));
    let document: Value = serde_json::from_slice(&json.stdout).expect("JSON");
    assert_eq!(document["equal"], false);
    let kinds: Vec<&str> = document["diff"]["runs"][0]["changes"]
        .as_array()
        .expect("changes")
        .iter()
        .map(|c| c["kind"].as_str().expect("kind"))
        .collect();
    assert_eq!(kinds, ["changed", "removed"]);
    assert_eq!(
        document["diff"]["runs"][0]["changes"][0]["fields"][0]["pointer"],
        "/delta"
    );
}

#[test]
fn findings_one_capture_lacks_are_counted_by_rule() {
    let dir = tempfile::tempdir().expect("temp dir");
    let original = root().join("tests/upstream/traffic-1.0/chat.response.sse");
    let mut events = sse_events(&original);
    let end = events
        .iter()
        .position(|e| e["type"] == "TEXT_MESSAGE_END")
        .expect("end");
    // A second end for the same message: an error a receiver refuses.
    let twice = events[end].clone();
    events.insert(end, twice);
    let broken = write_jsonl(dir.path(), "broken.jsonl", &events);
    let (a, b) = (
        original.to_str().expect("utf-8"),
        broken.to_str().expect("utf-8"),
    );
    let output = diff(&["--findings", "--format", "json", a, b]);
    assert_eq!(output.status.code(), Some(1));
    let document: Value = serde_json::from_slice(&output.stdout).expect("JSON");
    assert_eq!(document["findings"]["onlyA"], serde_json::json!([]));
    let only_b = document["findings"]["onlyB"].as_array().expect("onlyB");
    assert!(!only_b.is_empty(), "{document}");
    assert!(only_b.iter().all(|f| f["more"].as_u64() >= Some(1)));
    let human = text(&diff(&["--findings", a, b]));
    assert!(human.contains(&format!("findings only in {b}:")), "{human}");
}

#[test]
fn an_unreadable_capture_is_a_failure_of_the_tool() {
    let output = diff(&["no-such-capture.har", "no-such-capture.har"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("cannot read"));
}

/// `--format html`: each differing run side by side, its texts diffed word
/// by word in `<del>` and `<ins>`, what only one side has on its side
/// alone, and what a capture holds shown as text.
#[test]
fn the_html_page_shows_runs_side_by_side_with_changes_marked() {
    let dir = tempfile::tempdir().expect("temp dir");
    let run = |id: &str, text: &str, extra: Option<Value>| {
        let mut events = vec![
            json!({"type": "RUN_STARTED", "threadId": "t", "runId": id}),
            json!({"type": "TEXT_MESSAGE_START", "messageId": format!("{id}-m"), "role": "assistant"}),
            json!({"type": "TEXT_MESSAGE_CONTENT", "messageId": format!("{id}-m"), "delta": text}),
            json!({"type": "TEXT_MESSAGE_END", "messageId": format!("{id}-m")}),
        ];
        events.extend(extra);
        events.push(json!({"type": "RUN_FINISHED", "threadId": "t", "runId": id}));
        events
    };
    let a = write_jsonl(
        dir.path(),
        "a.jsonl",
        &run("r1", "sunny <b>today</b>", None),
    );
    let b = write_jsonl(
        dir.path(),
        "b.jsonl",
        &run(
            "r2",
            "rainy <b>today</b>",
            Some(json!({"type": "STEP_STARTED", "stepName": "</td><script>x()</script>"})),
        ),
    );
    let page = dir.path().join("diff.html");
    let output = diff(&[
        a.to_str().expect("path"),
        b.to_str().expect("path"),
        "--format",
        "html",
        "-o",
        page.to_str().expect("path"),
    ]);
    assert_eq!(output.status.code(), Some(1), "{}", text(&output));
    let page = std::fs::read_to_string(page).expect("page");
    assert!(page.contains("<del>sunny</del><ins>rainy</ins>"), "{page}");
    assert!(page.contains("<tr class=\"row-added\">"), "{page}");
    assert!(
        !page.contains("<script>") && !page.contains("<b>today"),
        "{page}"
    );
    assert_eq!(
        page.matches("<tr class=\"row-equal\">").count(),
        4,
        "{page}"
    );
}
