//! Event captures shaped like traffic (issue 52): the runs of the real
//! exchanges the repository vendors — the official 1.0 client and server's
//! (`tests/upstream/traffic-1.0/`) and five framework adapters'
//! (`tests/data/frameworks/*/*.har`) — replayed again and again with their
//! ids renamed and their clocks moved on, up to the size asked for: their
//! ids, timestamps, text and unicode as the servers sent them, their mix
//! of long text streams and short lifecycle events as they came.

use std::path::Path;

use serde_json::Value;

use super::events::{Framing, Written};

/// Every recorded response stream, each a list of event JSON texts.
fn recorded_streams() -> Vec<Vec<String>> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut streams = Vec::new();
    let traffic = root.join("tests/upstream/traffic-1.0");
    let mut files: Vec<_> = std::fs::read_dir(&traffic)
        .expect("traffic-1.0")
        .map(|e| e.expect("entry").path())
        .collect();
    files.sort();
    for file in files {
        let text = std::fs::read_to_string(&file).expect("capture");
        match file.extension().and_then(|e| e.to_str()) {
            Some("jsonl") => streams.push(text.lines().map(str::to_owned).collect()),
            Some("sse") => streams.push(sse_events(&text)),
            _ => {}
        }
    }
    let frameworks = root.join("tests/data/frameworks");
    let mut hars: Vec<_> = walkdir::WalkDir::new(&frameworks)
        .into_iter()
        .map(|e| e.expect("entry").into_path())
        .filter(|p| p.extension().is_some_and(|e| e == "har"))
        .collect();
    hars.sort();
    for har in hars {
        let value: Value =
            serde_json::from_slice(&std::fs::read(&har).expect("HAR")).expect("HAR JSON");
        for entry in value["log"]["entries"].as_array().expect("entries") {
            if let Some(body) = entry["response"]["content"]["text"].as_str() {
                streams.push(sse_events(body));
            }
        }
    }
    streams.retain(|s| !s.is_empty());
    assert!(streams.len() >= 40, "{} recorded streams", streams.len());
    streams
}

/// The `data:` of each event of an SSE body (one line of data each, as
/// these servers send them).
fn sse_events(body: &str) -> Vec<String> {
    body.lines()
        .filter_map(|line| line.strip_prefix("data:"))
        .map(|data| data.strip_prefix(' ').unwrap_or(data).to_owned())
        .filter(|data| !data.is_empty())
        .collect()
}

/// `event` of copy `copy`: each id (a member `id` or ending in `Id`)
/// suffixed with the copy's number, each timestamp moved on by `shift`,
/// and every thread named [`THREAD`]: one capture is one stream, and a
/// stream's runs are runs of one conversation (`run-started-other-thread`).
fn renamed(event: &str, copy: usize, shift: u64) -> Option<Value> {
    let mut value = serde_json::from_str::<Value>(event).ok()?;
    fn walk(value: &mut Value, copy: usize, shift: u64) {
        match value {
            Value::Object(members) => {
                for (name, member) in members.iter_mut() {
                    match member {
                        Value::String(thread) if name == "threadId" => {
                            *thread = THREAD.to_owned();
                        }
                        Value::String(id) if name == "id" || name.ends_with("Id") => {
                            id.push_str(&format!("-{copy}"));
                        }
                        Value::Number(n) if name == "timestamp" => {
                            if let Some(ms) = n.as_u64() {
                                *member = Value::from(ms + shift);
                            }
                        }
                        _ => walk(member, copy, shift),
                    }
                }
            }
            Value::Array(items) => items.iter_mut().for_each(|item| walk(item, copy, shift)),
            _ => {}
        }
    }
    walk(&mut value, copy, shift);
    Some(value)
}

/// The one thread of the capture's runs.
const THREAD: &str = "thread-traffic";

/// The recorded streams, copy after copy, about `target` bytes, framed as
/// `framing`.
pub fn capture(
    out: &mut impl std::io::Write,
    target: usize,
    framing: Framing,
) -> std::io::Result<Written> {
    let streams = recorded_streams();
    let mut written = Written {
        bytes: 0,
        events: 0,
        largest: 0,
    };
    let mut copy = 0usize;
    while written.bytes < target {
        let shift = copy as u64 * 60_000;
        // A result whose call its run did not carry (it came in the
        // request's messages, or before an interrupt) answers nothing once
        // the streams are one: it is left out rather than made an error of.
        let mut started = std::collections::HashSet::new();
        for stream in &streams {
            for event in stream {
                let Some(value) = renamed(event, copy, shift) else {
                    continue;
                };
                let call = value["toolCallId"].as_str().map(str::to_owned);
                match (value["type"].as_str(), call) {
                    (Some("RUN_STARTED"), _) => started.clear(),
                    (Some("TOOL_CALL_START" | "TOOL_CALL_CHUNK"), Some(call)) => {
                        started.insert(call);
                    }
                    (Some("TOOL_CALL_RESULT"), Some(call)) if !started.contains(&call) => continue,
                    _ => {}
                }
                let event = value.to_string();
                written.largest = written.largest.max(event.len());
                written.events += 1;
                written.bytes += framing.write(&event, out)?;
            }
        }
        copy += 1;
    }
    Ok(written)
}
