//! The kit's client is `@ag-ui/client` 1.0.0: for every recorded framework
//! session (`tests/data/frameworks/*/*.har`, each exchange), every
//! exchange of the kit's own scenarios run against real adapters
//! (`tests/data/kit-client/sessions/*/*.har`, `sessions/record.py`) and
//! every case of `tests/data/kit-client/cases.json`, what the kit sends back after the
//! run (the next request's messages and state) is written to
//! `tests/data/kit-client/kit.json`; `node/test/kit-client.test.js` runs
//! `HttpAgent` on the same requests and responses and fails listing any
//! difference. This test fails when `kit.json` is not what the kit builds
//! today: `AGUI_LINT_WRITE_KIT_CLIENT=1 cargo test --test kit_client`
//! rewrites it.

use std::path::{Path, PathBuf};

use agui_lint::unstable::kit::{next_input, Streamed};
use base64::Engine as _;
use serde_json::{json, Value};

fn data() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data")
}

/// Every case: its name, request and response body, and whether the body
/// is JSON Lines.
fn cases() -> Vec<(String, Value, Vec<u8>, bool)> {
    let mut cases = sessions(&data().join("frameworks"), "");
    let recorded = cases.len();
    assert!(recorded >= 40, "{recorded} recorded framework exchanges");
    // The kit's own scenarios run end to end against real adapters
    // (sessions/record.py); a body that is not a run input (the
    // bad-requests scenario's) is no case.
    let kit_sessions = sessions(&data().join("kit-client/sessions"), "kit/");
    assert!(
        kit_sessions.len() >= 40,
        "{} kit exchanges",
        kit_sessions.len()
    );
    cases.extend(kit_sessions);
    let synthetic: Value = serde_json::from_slice(
        &std::fs::read(data().join("kit-client/cases.json")).expect("cases.json"),
    )
    .expect("JSON");
    for case in synthetic["cases"].as_array().expect("cases") {
        cases.push((
            case["name"].as_str().expect("name").to_owned(),
            case["request"].clone(),
            case["body"].as_str().expect("body").as_bytes().to_vec(),
            false,
        ));
    }
    cases
}

/// Each exchange of the HARs in the folders of `root` whose request is a
/// run input answered with 200, named `PREFIXFOLDER/FILE#K`.
fn sessions(root: &Path, prefix: &str) -> Vec<(String, Value, Vec<u8>, bool)> {
    let mut cases = Vec::new();
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(root)
        .expect("a folder of sessions")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    for dir in dirs {
        let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
            .expect("a server's sessions")
            .map(|e| e.expect("entry").path())
            .filter(|p| p.extension().is_some_and(|e| e == "har"))
            .collect();
        files.sort();
        for file in files {
            let har: Value =
                serde_json::from_slice(&std::fs::read(&file).expect("a HAR")).expect("JSON");
            let name = format!(
                "{prefix}{}/{}",
                dir.file_name().expect("name").to_string_lossy(),
                file.file_name().expect("name").to_string_lossy()
            );
            for (k, entry) in har["log"]["entries"]
                .as_array()
                .expect("entries")
                .iter()
                .enumerate()
            {
                let request: Value = entry["request"]["postData"]["text"]
                    .as_str()
                    .and_then(|text| serde_json::from_str(text).ok())
                    .unwrap_or(Value::Null);
                if !request["threadId"].is_string()
                    || !request["messages"].is_array()
                    || entry["response"]["status"] != 200
                {
                    continue;
                }
                let content = &entry["response"]["content"];
                let text = content["text"].as_str().unwrap_or("");
                let body = if content["encoding"] == "base64" {
                    base64::engine::general_purpose::STANDARD
                        .decode(text)
                        .expect("base64")
                } else {
                    text.as_bytes().to_vec()
                };
                let json_lines = content["mimeType"]
                    .as_str()
                    .is_some_and(|m| m.contains("ndjson") || m.contains("jsonl"));
                cases.push((format!("{name}#{k}"), request, body, json_lines));
            }
        }
    }
    cases
}

/// What the kit sends back after each case's run.
fn kit_view() -> Value {
    let cases: Vec<Value> = cases()
        .into_iter()
        .map(|(name, request, body, json_lines)| {
            let streamed = Streamed::read(&request, &body, json_lines);
            let next = next_input(&request, &streamed.messages, &streamed.state, vec![]);
            json!({"name": name, "messages": next["messages"], "state": next["state"]})
        })
        .collect();
    json!({
        "about": "What agui-lint's kit sends back after each run: written by `AGUI_LINT_WRITE_KIT_CLIENT=1 cargo test --test kit_client`, held to @ag-ui/client's HttpAgent by node/test/kit-client.test.js",
        "cases": cases
    })
}

#[test]
fn the_kits_follow_ups_are_written_down() {
    let path = data().join("kit-client/kit.json");
    let mut text = serde_json::to_string_pretty(&kit_view()).expect("JSON");
    text.push('\n');
    if std::env::var_os("AGUI_LINT_WRITE_KIT_CLIENT").is_some() {
        std::fs::write(&path, &text).expect("write kit.json");
        return;
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == text,
        "{} is not what the kit builds today: run `AGUI_LINT_WRITE_KIT_CLIENT=1 cargo test --test kit_client`, then the Node test that holds it to HttpAgent",
        path.display()
    );
    assert!(kit_view()["cases"]
        .as_array()
        .is_some_and(|c| c.len() >= 50));
}
