//! The user's own requests: RunAgentInput files (`--request`) and the
//! requests of a capture (`--replay`), an HTTP Archive's run requests or a
//! JSON Lines file's RunAgentInput lines. Each body is sent as its bytes
//! are, so that what was captured is what is sent again.

use std::path::Path;

use agui_lint::unstable::input::har;
use agui_lint::Kind;
use serde_json::Value;

/// Whether `bytes` are a RunAgentInput.
fn is_run(bytes: &[u8]) -> bool {
    serde_json::from_slice::<Value>(bytes)
        .is_ok_and(|v| Kind::detect(&v) == Ok(Kind::RunAgentInput))
}

/// The body of a `--request` file, which must be JSON (its findings, if it
/// is no valid RunAgentInput, are reported with the exchange).
pub fn request_file(path: &Path) -> Result<Vec<u8>, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    serde_json::from_slice::<serde::de::IgnoredAny>(&bytes)
        .map_err(|e| format!("{} is not JSON: {e}", path.display()))?;
    Ok(bytes)
}

/// The run requests of a capture, in order.
pub fn capture(path: &Path) -> Result<Vec<Vec<u8>>, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let extension = path.extension().and_then(|e| e.to_str()).unwrap_or("");
    let requests: Vec<Vec<u8>> = match extension {
        "har" | "json" => {
            let entries = har::read(&bytes)
                .map_err(|e| format!("{} is not an HTTP Archive: {e}", path.display()))?;
            entries
                .filter_map(Result::ok)
                .filter_map(|entry| entry.request_body)
                .map(|body| body.bytes)
                .filter(|body| is_run(body))
                .collect()
        }
        "jsonl" | "ndjson" => bytes
            .split(|&b| b == b'\n')
            .map(|line| line.strip_suffix(b"\r").unwrap_or(line))
            .filter(|line| is_run(line))
            .map(<[u8]>::to_vec)
            .collect(),
        _ => {
            return Err(format!(
                "{}: --replay reads an HTTP Archive (.har) or JSON Lines (.jsonl, .ndjson)",
                path.display()
            ))
        }
    };
    if requests.is_empty() {
        return Err(format!(
            "{} holds no RunAgentInput to replay",
            path.display()
        ));
    }
    Ok(requests)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_lines_give_their_run_requests_only() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("c.jsonl");
        let run = r#"{"threadId":"t","runId":"r","state":{},"messages":[],"tools":[],"context":[],"forwardedProps":{}}"#;
        std::fs::write(&path, format!("{run}\r\n{{\"type\":\"RUN_STARTED\",\"threadId\":\"t\",\"runId\":\"r\"}}\nnot json\n{run}\n"))
            .expect("write");
        let requests = capture(&path).expect("requests");
        assert_eq!(requests, [run.as_bytes().to_vec(), run.as_bytes().to_vec()]);
        std::fs::write(&path, "{\"type\":\"RUN_STARTED\"}\n").expect("write");
        assert!(capture(&path)
            .expect_err("none")
            .contains("no RunAgentInput"));
        assert!(capture(&dir.path().join("c.txt")).is_err());
    }
}
