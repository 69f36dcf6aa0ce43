//! The `agui-lint` binary end to end: exit codes, JSON output shape, the
//! schema and rule subcommands.

use std::path::{Path, PathBuf};
use std::process::Output;

use assert_cmd::cargo::cargo_bin_cmd;
use serde_json::Value;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn agui_lint(args: &[&str]) -> Output {
    cargo_bin_cmd!("agui-lint")
        .args(args)
        .current_dir(root())
        .output()
        .expect("run agui-lint")
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

#[test]
fn all_fixtures_exit_1_and_report_every_invalid_fixture() {
    for version in ["0", "1.0", "1.1"] {
        every_invalid_fixture_reports(version);
    }
}

/// Invalid fixtures a directory walk skips as not AG-UI: JSON whose kind
/// cannot be told and that holds none of AG-UI's own keys or event types
/// (`src/check/walked.rs`); named, each is reported.
const WALK_SKIPS: &[&str] = &[
    "unknown-kind-greeting.json",
    "unknown-kind-scalar.json",
    "unknown-kind-metadata-only.json",
    "missing-field-value.json",
    "missing-field-reason.json",
];

/// `fixtures/<version>/`, checked with undeclared documents judged as
/// `version`.
fn every_invalid_fixture_reports(version: &str) {
    let folder = format!("fixtures/{version}/");
    let output = agui_lint(&["check", &folder, "--protocol", version, "--format", "json"]);
    let invalid_exists = walkdir::WalkDir::new(root().join(&folder))
        .into_iter()
        .any(|e| e.is_ok_and(|e| e.file_name() == "invalid"));
    assert_eq!(
        output.status.code(),
        Some(if invalid_exists { 1 } else { 0 }),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let report: Value = serde_json::from_str(&stdout(&output)).expect("JSON output");
    let documents = report["documents"].as_array().expect("documents");
    // A capture's records are documents of one file: the file must report
    // something, not each record.
    let mut findings_per_invalid_fixture: std::collections::BTreeMap<&str, usize> =
        std::collections::BTreeMap::new();
    for document in documents {
        let path = document["path"].as_str().expect("path");
        // A `client-<rule>-<profile>` fixture reports its rule only seen
        // through that client (tests/fixtures.rs and the --client test).
        let needs_client = Path::new(path)
            .file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| n.starts_with("client-"));
        let is_invalid_fixture = !needs_client
            && Path::new(path)
                .parent()
                .and_then(|p| p.file_name())
                .is_some_and(|n| n == "invalid");
        if is_invalid_fixture {
            *findings_per_invalid_fixture.entry(path).or_default() += document["diagnostics"]
                .as_array()
                .expect("diagnostics")
                .len();
        }
    }
    for (path, findings) in &findings_per_invalid_fixture {
        assert!(*findings > 0, "{path} reports nothing");
    }
    // Walked, every invalid fixture is reported but those a walk cannot
    // tell from another tool's JSON (of no kind, with nothing AG-UI's).
    for entry in walkdir::WalkDir::new(root().join(&folder)) {
        let path = entry.expect("entry").into_path();
        let name = path
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or_default();
        let in_invalid = path
            .parent()
            .and_then(|p| p.file_name())
            .is_some_and(|n| n == "invalid");
        if !in_invalid || name.starts_with("client-") || WALK_SKIPS.contains(&name) {
            continue;
        }
        let relative = path
            .strip_prefix(root())
            .expect("under the root")
            .display()
            .to_string();
        assert!(
            findings_per_invalid_fixture.contains_key(relative.as_str()),
            "{relative} is not reported when its folder is walked"
        );
    }
    let invalid_fixtures = findings_per_invalid_fixture.len();
    assert!(invalid_fixtures > 0 || version == "1.0");
    assert_eq!(
        report["summary"]["documents"].as_u64(),
        Some(documents.len() as u64)
    );
}

#[test]
fn valid_fixtures_exit_0() {
    for version in ["0", "1.0", "1.1"] {
        let mut args = vec!["check".to_string(), "--protocol".into(), version.into()];
        for entry in std::fs::read_dir(root().join("fixtures").join(version)).expect("fixtures") {
            let valid = entry.expect("entry").path().join("valid");
            if valid.is_dir() {
                args.push(valid.display().to_string());
            }
        }
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let output = agui_lint(&args);
        assert_eq!(
            output.status.code(),
            Some(0),
            "{version}: {}",
            stdout(&output)
        );
        assert!(stdout(&output).contains("0 errors"), "{version}");
    }
}

#[test]
fn role_typo_is_exactly_one_located_invalid_value() {
    let output = agui_lint(&[
        "check",
        "--format",
        "json",
        "--protocol",
        "0",
        "fixtures/0/run-agent-input/invalid/invalid-value-role-typo.json",
    ]);
    assert_eq!(output.status.code(), Some(1));
    let report: Value = serde_json::from_str(&stdout(&output)).expect("JSON output");
    assert_eq!(report["tool"], "agui-lint");
    let document = &report["documents"][0];
    assert_eq!(document["record"], Value::Null);
    assert_eq!(document["kind"], "run-agent-input");
    assert_eq!(document["valid"], false);
    let diagnostics = document["diagnostics"].as_array().expect("diagnostics");
    assert_eq!(diagnostics.len(), 1, "{diagnostics:#?}");
    let d = &diagnostics[0];
    assert_eq!(d["rule"], "invalid-value");
    assert_eq!(d["severity"], "error");
    assert_eq!(d["pointer"], "/messages/0/role");
    assert!(d["line"].as_u64().is_some() && d["column"].as_u64().is_some());
    assert!(d["help"]
        .as_str()
        .expect("help")
        .contains("did you mean 'assistant'"));
    assert_eq!(
        report["summary"],
        serde_json::json!({"documents": 1, "valid": 0, "errors": 1, "warnings": 0, "infos": 0})
    );
}

/// In 1.x the same role typo is judged by who receives it: in a request
/// every server on the official SDKs rejects it (an error, exit 1); in a
/// `MESSAGES_SNAPSHOT` the client strips the message with a warning (exit 0).
#[test]
fn role_typo_is_judged_by_its_receiver_in_1_x() {
    for version in ["1.0", "1.1"] {
        let output = agui_lint(&[
            "check",
            "--format",
            "json",
            "--protocol",
            version,
            "fixtures/0/run-agent-input/invalid/invalid-value-role-typo.json",
        ]);
        assert_eq!(output.status.code(), Some(1), "{version}");
        let report: Value = serde_json::from_str(&stdout(&output)).expect("JSON output");
        let d = &report["documents"][0]["diagnostics"][0];
        assert_eq!(d["rule"], "invalid-value", "{version}");
        assert_eq!(d["severity"], "error", "{version}");
        assert_eq!(d["pointer"], "/messages/0/role", "{version}");
        assert!(
            d["help"]
                .as_str()
                .expect("help")
                .contains("reject the body"),
            "{d}"
        );

        let snapshot = r#"{"type": "MESSAGES_SNAPSHOT", "messages": [{"id": "m1", "role": "assitant", "content": "hi"}]}"#;
        let output = cargo_bin_cmd!("agui-lint")
            .args(["check", "--format", "json", "--protocol", version, "-"])
            .write_stdin(snapshot)
            .output()
            .expect("run agui-lint");
        assert_eq!(output.status.code(), Some(0), "{version}");
        let report: Value = serde_json::from_str(&stdout(&output)).expect("JSON output");
        let d = &report["documents"][0]["diagnostics"][0];
        assert_eq!(d["rule"], "invalid-value", "{version}");
        assert_eq!(d["severity"], "warning", "{version}");
        assert_eq!(d["pointer"], "/messages/0/role", "{version}");
    }
}

#[test]
fn stdin_is_read_with_dash() {
    let output = cargo_bin_cmd!("agui-lint")
        .args(["check", "--kind", "context", "-"])
        .write_stdin(r#"{"description": "d", "value": 3}"#)
        .output()
        .expect("run agui-lint");
    assert_eq!(output.status.code(), Some(1));
    assert!(
        stdout(&output).starts_with("-:1:31: error[wrong-type]"),
        "{}",
        stdout(&output)
    );
}

#[test]
fn warnings_alone_exit_0() {
    let output = agui_lint(&[
        "check",
        "fixtures/0/message/invalid/unknown-field-timestamp.json",
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", stdout(&output));
    assert!(stdout(&output).contains("warning[unknown-field]"));
}

#[test]
fn usage_and_io_failures_exit_2() {
    assert_eq!(agui_lint(&["check"]).status.code(), Some(2));
    assert_eq!(
        agui_lint(&["check", "--kind", "nope", "fixtures/0/"])
            .status
            .code(),
        Some(2)
    );
    let missing = agui_lint(&["check", "no/such/file.json"]);
    assert_eq!(missing.status.code(), Some(2));
    // Reported once: by the human report on standard output, not again on
    // standard error; a report for machines leaves it to standard error.
    let (stdout, stderr) = (
        String::from_utf8_lossy(&missing.stdout),
        String::from_utf8_lossy(&missing.stderr),
    );
    assert_eq!(stdout.matches("no/such/file.json").count(), 1, "{stdout}");
    assert!(!stderr.contains("no/such/file.json"), "{stderr}");
    let missing = agui_lint(&["check", "no/such/file.json", "--format", "json"]);
    assert_eq!(missing.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&missing.stderr).contains("no/such/file.json"));
    assert_eq!(agui_lint(&["rule", "no-such-rule"]).status.code(), Some(2));
}

#[test]
fn schema_command_writes_exactly_the_committed_files() {
    let dir = std::env::temp_dir().join(format!("agui-lint-schemas-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    std::fs::create_dir_all(dir.join("1.1")).expect("version dir");
    std::fs::write(dir.join("1.1/stale.schema.json"), "{}").expect("write stale file");
    let output = agui_lint(&["schema", "--out", dir.to_str().expect("utf-8 path")]);
    assert_eq!(output.status.code(), Some(0));
    let files = |base: &Path| -> Vec<String> {
        let mut names: Vec<String> = walkdir::WalkDir::new(base)
            .into_iter()
            .map(|e| e.expect("entry"))
            .filter(|e| e.file_type().is_file())
            .map(|e| {
                e.path()
                    .strip_prefix(base)
                    .expect("under base")
                    .to_string_lossy()
                    .into_owned()
            })
            .collect();
        names.sort();
        names
    };
    let written = files(&dir);
    let committed = files(&root().join("schemas"));
    assert_eq!(written, committed);
    for name in &written {
        let a = std::fs::read(dir.join(name)).expect("written");
        let b = std::fs::read(root().join("schemas").join(name)).expect("committed");
        assert!(a == b, "{name} differs from the committed file");
    }
    let _ = std::fs::remove_dir_all(&dir);
    let one = agui_lint(&["schema", "tool-call"]);
    let schema: Value = serde_json::from_slice(&one.stdout).expect("one schema");
    assert_eq!(schema["title"], "ToolCall");
}

#[test]
fn rule_command_documents_every_rule() {
    let all = stdout(&agui_lint(&["rule", "--all"]));
    for rule in agui_lint::rules::all() {
        assert!(
            all.contains(rule.name),
            "{} missing from rule --all",
            rule.name
        );
        let doc = agui_lint(&["rule", rule.name]);
        assert_eq!(doc.status.code(), Some(0));
        assert!(stdout(&doc).contains("## Invalid"));
    }
}

#[test]
fn select_ignore_and_severity_flags_shape_the_report() {
    let file = "fixtures/0/message/invalid/unknown-field-timestamp.json";
    let ignored = agui_lint(&["check", "--ignore", "unknown-field", file]);
    assert_eq!(ignored.status.code(), Some(0));
    assert!(
        !stdout(&ignored).contains("unknown-field"),
        "{}",
        stdout(&ignored)
    );

    let raised = agui_lint(&["check", "--severity", "unknown-field=error", file]);
    assert_eq!(raised.status.code(), Some(1));
    assert!(stdout(&raised).contains("error[unknown-field]"));

    let selected = agui_lint(&[
        "check",
        "--select",
        "missing-field",
        "fixtures/0/run-agent-input/invalid/invalid-value-role-typo.json",
    ]);
    assert_eq!(selected.status.code(), Some(0), "{}", stdout(&selected));

    // A list written with spaces, as the Action's inputs are.
    let spaced = agui_lint(&["check", "--ignore", "empty-id, unknown-field", file]);
    assert_eq!(spaced.status.code(), Some(0), "{spaced:?}");

    let typo = agui_lint(&["check", "--ignore", "unknown-feild", file]);
    assert_eq!(typo.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&typo.stderr).contains("did you mean 'unknown-field'"));
}

#[test]
fn config_file_is_found_upward_and_can_be_named() {
    let dir = std::env::temp_dir().join(format!("agui-lint-config-{}", std::process::id()));
    let nested = dir.join("payloads/deeper");
    std::fs::create_dir_all(&nested).expect("temp dirs");
    std::fs::write(
        dir.join("agui-lint.toml"),
        "[severity]\nunknown-field = \"error\"\n",
    )
    .expect("config");
    let payload = nested.join("message.json");
    std::fs::copy(
        root().join("fixtures/0/message/invalid/unknown-field-timestamp.json"),
        &payload,
    )
    .expect("copy fixture");
    let run_in = |cwd: &Path, extra: &[&str]| {
        cargo_bin_cmd!("agui-lint")
            .arg("check")
            .args(extra)
            .arg(&payload)
            .current_dir(cwd)
            .output()
            .expect("run agui-lint")
    };
    // Found from a folder below the config file: the warning became an error.
    assert_eq!(run_in(&nested, &[]).status.code(), Some(1));
    // An explicit --config wins over discovery.
    let other = dir.join("other.toml");
    std::fs::write(&other, "ignore = [\"unknown-field\"]\n").expect("config");
    let named = run_in(&nested, &["--config", other.to_str().expect("utf-8")]);
    assert_eq!(named.status.code(), Some(0));
    assert!(!stdout(&named).contains("unknown-field"));
    // A broken config file is a usage failure that names the file.
    std::fs::write(&other, "ignore = [\"no-such-rule\"]\n").expect("config");
    let broken = run_in(&nested, &["--config", other.to_str().expect("utf-8")]);
    assert_eq!(broken.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&broken.stderr).contains("other.toml"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn rule_list_as_json_has_every_rule() {
    let output = agui_lint(&["rule", "--all", "--format", "json"]);
    assert_eq!(output.status.code(), Some(0));
    let list: Value = serde_json::from_str(&stdout(&output)).expect("JSON");
    let names: Vec<&str> = list
        .as_array()
        .expect("array")
        .iter()
        .filter_map(|r| r["name"].as_str())
        .collect();
    let registered: Vec<&str> = agui_lint::rules::all().iter().map(|r| r.name).collect();
    assert_eq!(names, registered);
}

#[test]
fn pre_commit_hook_entry_runs_on_the_files_pre_commit_passes() {
    let hooks = std::fs::read_to_string(root().join(".pre-commit-hooks.yaml")).expect("hooks");
    assert!(hooks.contains("- id: agui-lint"));
    let entry = hooks
        .lines()
        .find_map(|l| l.trim().strip_prefix("entry: "))
        .expect("an entry line");
    let mut words = entry.split_whitespace();
    assert_eq!(words.next(), Some("agui-lint"));
    let mut args: Vec<&str> = words.collect();
    // pre-commit appends the staged file names.
    args.push("fixtures/0/message/valid/assistant-text.json");
    args.push("fixtures/1.1/run-agent-input/invalid/wrong-type-metadata-string.json");
    let output = agui_lint(&args);
    assert_eq!(output.status.code(), Some(1), "{}", stdout(&output));
    assert!(stdout(&output).contains("2 documents checked"));
}

#[test]
fn mask_values_keeps_the_payloads_values_out_of_every_format() {
    const SECRET: &str = "sk_live_51HxSecret";
    let dir = tempfile::tempdir().expect("temp dir");
    let payload = serde_json::json!({
        "threadId": "t", "runId": "r", "state": {}, "tools": [], "context": [],
        "forwardedProps": {},
        "messages": [
            {"id": "m1", "role": format!("assitant-{SECRET}"), "content": "hi"},
            {"id": "m2", "role": "tool", "toolCallId": SECRET, "content": SECRET},
            {"id": "m3", "role": "user", "content": 4_242_424_242_u64}
        ]
    });
    // Pretty-printed, so that the human format would quote the lines.
    std::fs::write(
        dir.path().join("payload.json"),
        serde_json::to_string_pretty(&payload).expect("JSON"),
    )
    .expect("payload");
    // A HAR export whose request URL is content too.
    std::fs::copy(
        root().join("fixtures/0/streams/invalid/invalid-value-har-request-role.har"),
        dir.path().join("capture.har"),
    )
    .expect("copy fixture");
    let path = dir.path().to_str().expect("utf-8");
    let url = "https://agent.example/agent";

    let plain = agui_lint(&["check", "--format", "json", path]);
    assert!(stdout(&plain).contains(SECRET) && stdout(&plain).contains(url));

    let masked = agui_lint(&["check", "--format", "json", "--mask-values", path]);
    assert_eq!(masked.status.code(), Some(1));
    let text = stdout(&masked);
    for hidden in [SECRET, "4242424242", url] {
        assert!(!text.contains(hidden), "{hidden} shown: {text}");
    }
    let report: Value = serde_json::from_str(&text).expect("JSON output");
    let findings: Vec<&Value> = report["documents"]
        .as_array()
        .expect("documents")
        .iter()
        .flat_map(|d| d["diagnostics"].as_array().expect("diagnostics"))
        .collect();
    // Rules, pointers and positions stay.
    let result = findings
        .iter()
        .find(|d| d["rule"] == "tool-result-without-call")
        .expect("tool-result-without-call");
    assert_eq!(result["pointer"], "/messages/1/toolCallId");
    assert_eq!(
        result["message"],
        "tool message answers toolCallId '***', which no earlier assistant message made"
    );
    assert!(result["line"].as_u64().is_some() && result["column"].as_u64().is_some());
    assert!(findings
        .iter()
        .any(|d| d["rule"] == "invalid-value" && d["pointer"] == "/messages/0/role"));
    assert!(findings.iter().any(|d| d["rule"] == "wrong-type"));

    for format in ["human", "jsonl", "sarif", "github", "junit"] {
        let output = agui_lint(&["check", "--format", format, "--mask-values", path]);
        let text = stdout(&output);
        assert!(
            text.contains("tool-result-without-call"),
            "{format}: {text}"
        );
        for hidden in [SECRET, "4242424242", url] {
            assert!(!text.contains(hidden), "{format} shows {hidden}: {text}");
        }
    }

    // The same from the configuration file.
    let config = dir.path().join("agui-lint.toml");
    std::fs::write(&config, "mask-values = true\n").expect("config");
    let configured = agui_lint(&[
        "check",
        "--config",
        config.to_str().expect("utf-8"),
        "--format",
        "human",
        path,
    ]);
    assert!(
        stdout(&configured).contains("'***'"),
        "{}",
        stdout(&configured)
    );
    assert!(!stdout(&configured).contains(SECRET));
}

#[test]
fn an_oversized_document_states_its_size_in_kib_and_mib() {
    let dir = tempfile::tempdir().expect("temp dir");
    let big = dir.path().join("big.json");
    std::fs::write(&big, format!("[\"{}\"]", "x".repeat(3 * 1024))).expect("write");
    let path = big.to_str().expect("UTF-8 path");
    let output = agui_lint(&["check", path, "--max-document-size", "1K"]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        stdout.contains("the document is 3 KiB, over the limit of 1 KiB"),
        "{stdout}"
    );
    // One byte over a round limit rounds alike: the exact counts are shown.
    std::fs::write(&big, format!("\"{}\"", "x".repeat(1023))).expect("write");
    let output = agui_lint(&["check", path, "--max-document-size", "1K"]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        stdout.contains("the document is 1,025 bytes, over the limit of 1,024 bytes"),
        "{stdout}"
    );
}

/// A HAR of one run whose response frames two events with CRLF.
fn crlf_har() -> String {
    let request = r#"{"threadId": "t1", "runId": "r1", "protocolVersion": "1.0", "messages": [{"id": "u1", "role": "user", "content": "hi"}]}"#;
    let response = "data: {\"type\":\"RUN_STARTED\",\"threadId\":\"t1\",\"runId\":\"r1\",\"protocolVersion\":\"1.0\"}\r\n\r\n\
                    data: {\"type\":\"RUN_FINISHED\",\"threadId\":\"t1\",\"runId\":\"r1\"}\r\n\r\n";
    serde_json::json!({"log": {"version": "1.2", "creator": {"name": "test", "version": "1"}, "entries": [{
        "request": {"method": "POST", "url": "https://agent.example/agent", "headers": [],
                    "postData": {"mimeType": "application/json", "text": request}},
        "response": {"status": 200, "headers": [], "content": {"mimeType": "text/event-stream", "text": response}}
    }]}})
    .to_string()
}

/// `--client` sees a capture through the official client, and without it
/// the view is @ag-ui/client 1.0.0's: CRLF framing fails its run (an
/// error), a client pinned to an older peer drops subagent events or
/// flattens content (warnings), and a name it does not know is a usage
/// error.
#[test]
fn client_profiles_say_what_the_official_client_does() {
    let dir = tempfile::tempdir().expect("temp dir");
    let har = dir.path().join("crlf.har");
    std::fs::write(&har, crlf_har()).expect("write the HAR");
    let har = har.to_str().expect("UTF-8 path");

    // Without --client the view is @ag-ui/client 1.0.0's, the client every
    // user has: the same report as naming it.
    let plain = agui_lint(&["check", "--format", "json", har]);
    assert_eq!(plain.status.code(), Some(1), "{}", stdout(&plain));
    let seen = agui_lint(&["check", "--format", "json", "--client", "1.0.0", har]);
    assert_eq!(seen.status.code(), Some(1), "{}", stdout(&seen));
    assert_eq!(stdout(&plain), stdout(&seen));
    let report: Value = serde_json::from_str(&stdout(&seen)).expect("JSON output");
    let crlf: Vec<&Value> = report["documents"]
        .as_array()
        .expect("documents")
        .iter()
        .flat_map(|d| d["diagnostics"].as_array().expect("diagnostics"))
        .filter(|d| d["rule"] == "sse-carriage-return")
        .collect();
    assert_eq!(crlf.len(), 1, "{report}");
    assert_eq!(crlf[0]["severity"], "error");
    assert!(
        crlf[0]["message"]
            .as_str()
            .expect("message")
            .contains("the run fails"),
        "{}",
        crlf[0]
    );

    let subagents = "fixtures/1.1/streams/invalid/client-drops-event-0.0.57.jsonl";
    let rules = |output: &Output| -> Vec<String> {
        let report: Value = serde_json::from_str(&stdout(output)).expect("JSON output");
        report["documents"]
            .as_array()
            .expect("documents")
            .iter()
            .flat_map(|d| d["diagnostics"].as_array().expect("diagnostics").clone())
            .map(|d| d["rule"].as_str().expect("rule").to_string())
            .collect()
    };
    // Any version is judged as its era's profile, as the client compares
    // versions (a lock file's 0.0.47 drops subagent events as 0.0.57 does,
    // 0.0.58 is past every shim), and the run says which profile it took.
    for (client, dropped) in [
        ("1.0.0", 0),
        ("0.0.57", 2),
        ("0.0.45", 2),
        ("0.0.39", 2),
        ("0.0.47", 2),
        ("0.0.58", 0),
        ("^0.0.40", 2),
    ] {
        let output = agui_lint(&["check", "--format", "json", "--client", client, subagents]);
        assert_eq!(output.status.code(), Some(0), "{client}");
        let said = String::from_utf8_lossy(&output.stderr);
        if ["1.0.0", "0.0.57", "0.0.45", "0.0.39"].contains(&client) {
            assert!(said.is_empty(), "{client}: {said}");
        } else {
            assert!(
                said.contains(&format!("client {client} is judged as the ")),
                "{client}: {said}"
            );
        }
        let found = rules(&output);
        assert_eq!(
            found.iter().filter(|r| *r == "client-drops-event").count(),
            dropped,
            "{client}: {found:?}"
        );
    }
    let content = "fixtures/1.1/run-agent-input/invalid/client-flattens-content-0.0.39.json";
    for (client, flattened) in [("0.0.45", 0), ("0.0.39", 1)] {
        let output = agui_lint(&["check", "--format", "json", "--client", client, content]);
        let found = rules(&output);
        assert_eq!(
            found
                .iter()
                .filter(|r| *r == "client-flattens-content")
                .count(),
            flattened,
            "{client}: {found:?}"
        );
    }

    // A raw SSE capture framed with CRLF, alike.
    let sse = dir.path().join("crlf.sse");
    let events = "data: {\"type\":\"RUN_STARTED\",\"threadId\":\"t1\",\"runId\":\"r1\"}\r\n\r\n\
                  data: {\"type\":\"RUN_FINISHED\",\"threadId\":\"t1\",\"runId\":\"r1\"}\r\n\r\n";
    std::fs::write(&sse, events).expect("write the capture");
    let sse = sse.to_str().expect("UTF-8 path");
    assert_eq!(agui_lint(&["check", sse]).status.code(), Some(1));
    let seen = agui_lint(&["check", "--format", "json", "--client", "1.0.0", sse]);
    assert_eq!(seen.status.code(), Some(1), "{}", stdout(&seen));
    assert!(
        rules(&seen).contains(&"sse-carriage-return".to_string()),
        "{}",
        stdout(&seen)
    );

    // The same profile from agui-lint.toml, and a name that is none.
    std::fs::write(dir.path().join("agui-lint.toml"), "client = \"1.0.0\"\n").expect("config");
    let configured = cargo_bin_cmd!("agui-lint")
        .current_dir(dir.path())
        .args(["check", "crlf.har"])
        .output()
        .expect("run agui-lint");
    assert_eq!(configured.status.code(), Some(1), "{}", stdout(&configured));
    let unknown = agui_lint(&["check", "--client", "latest", har]);
    assert_eq!(unknown.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&unknown.stderr)
        .contains("'latest' is not a version of @ag-ui/client"));
}

/// One byte that is not UTF-8 never hides the rest of a stream, in a HAR's
/// base64 body as in a raw SSE file; a body recorded still encoded
/// (`Content-Encoding: gzip`) is an error, never a pass, and its bytes are
/// no line endings to judge.
#[test]
fn a_bad_byte_hides_nothing_and_an_undecoded_body_fails() {
    use base64::Engine as _;
    let dir = tempfile::tempdir().expect("temp dir");
    let events = [
        r#"{"type":"RUN_STARTED","threadId":"t1","runId":"r1"}"#,
        r#"{"type":"TEXT_MESSAGE_END","messageId":"never-started"}"#,
        r#"{"type":"RUN_FINISHED","threadId":"t1","runId":"r1"}"#,
    ];
    let mut body = b": keep-alive \xff\n\n".to_vec();
    for event in events {
        body.extend_from_slice(format!("data: {event}\n\n").as_bytes());
    }
    let har = |content: Value, headers: Value| {
        serde_json::json!({"log": {"version": "1.2", "creator": {"name": "test", "version": "1"}, "entries": [{
            "request": {"method": "POST", "url": "https://agent.example/agent", "headers": [],
                        "postData": {"mimeType": "application/json", "text": r#"{"threadId": "t1", "runId": "r1", "messages": []}"#}},
            "response": {"status": 200, "headers": headers, "content": content}
        }]}})
        .to_string()
    };
    let base64 = base64::engine::general_purpose::STANDARD;
    let bad = dir.path().join("bad-byte.har");
    std::fs::write(
        &bad,
        har(
            serde_json::json!({"mimeType": "text/event-stream", "text": base64.encode(&body), "encoding": "base64"}),
            serde_json::json!([]),
        ),
    )
    .expect("write");
    let sse = dir.path().join("bad-byte.sse");
    std::fs::write(&sse, &body).expect("write");
    for path in [&bad, &sse] {
        let output = agui_lint(&["check", "--format", "json", path.to_str().expect("path")]);
        assert_eq!(output.status.code(), Some(1), "{}", stdout(&output));
        let report: Value = serde_json::from_str(&stdout(&output)).expect("JSON output");
        let rules: Vec<&str> = report["documents"]
            .as_array()
            .expect("documents")
            .iter()
            .flat_map(|d| d["diagnostics"].as_array().expect("diagnostics"))
            .filter_map(|d| d["rule"].as_str())
            .collect();
        assert!(
            rules.contains(&"event-without-start"),
            "{}: {rules:?}",
            path.display()
        );
        assert!(!rules.contains(&"response-not-captured"), "{rules:?}");
    }

    let gzip = dir.path().join("gzip.har");
    let encoded: &[u8] = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03\xab\xae\x05\x00\r\n\x13\x37";
    std::fs::write(
        &gzip,
        har(
            serde_json::json!({"mimeType": "text/event-stream", "text": base64.encode(encoded), "encoding": "base64"}),
            serde_json::json!([{"name": "Content-Encoding", "value": "gzip"}]),
        ),
    )
    .expect("write");
    let output = agui_lint(&["check", "--format", "json", gzip.to_str().expect("path")]);
    assert_eq!(output.status.code(), Some(1), "{}", stdout(&output));
    let report: Value = serde_json::from_str(&stdout(&output)).expect("JSON output");
    let found: Vec<(&str, &str)> = report["documents"]
        .as_array()
        .expect("documents")
        .iter()
        .flat_map(|d| d["diagnostics"].as_array().expect("diagnostics"))
        .map(|d| {
            (
                d["rule"].as_str().unwrap_or(""),
                d["severity"].as_str().unwrap_or(""),
            )
        })
        .collect();
    assert!(
        found.contains(&("response-not-captured", "error")),
        "{found:?}"
    );
    assert!(
        !found.iter().any(|(rule, _)| *rule == "sse-carriage-return"),
        "{found:?}"
    );
}

/// Every limit's default the help states is the one the code runs with,
/// as `--show-settings` prints it: the help is the generated reference's
/// source, so the book says so too.
#[test]
fn the_help_states_each_limits_default_as_the_code_has_it() {
    let help = stdout(&agui_lint(&["check", "--help"]));
    let settings = stdout(&agui_lint(&["check", "--show-settings", "x.json"]));
    let size = |text: &str| -> u64 {
        let (digits, unit) = text.split_at(
            text.find(|c: char| !c.is_ascii_digit())
                .unwrap_or(text.len()),
        );
        let n: u64 = digits.parse().unwrap_or_else(|_| panic!("{text}"));
        n << match unit {
            "K" => 10,
            "M" => 20,
            "G" => 30,
            "" => 0,
            other => panic!("unit {other}"),
        }
    };
    let mut checked = 0;
    for (flag, key) in [
        ("--max-document-size", "max-document-bytes"),
        ("--max-archive-size", "max-archive-bytes"),
        ("--max-depth", "max-depth"),
        ("--max-tool-schema-nodes", "max-tool-schema-nodes"),
        ("--max-state-size", "max-state-bytes"),
        ("--max-total-state-size", "max-total-state-bytes"),
        ("--max-findings", "max-findings"),
    ] {
        let text = help
            .split(&format!("      {flag} <"))
            .nth(1)
            .and_then(|rest| rest.split("\n\n").next())
            .unwrap_or_else(|| panic!("{flag} in the help"));
        let stated = text
            .split("(default ")
            .nth(1)
            .and_then(|rest| rest.split([',', ':', ')', ';']).next())
            .unwrap_or_else(|| panic!("{flag}'s default: {text}"));
        let runs = settings
            .lines()
            .find_map(|line| {
                line.trim_start_matches("# ")
                    .strip_prefix(&format!("{key} = "))
                    .map(|rest| rest.split([' ', ':']).next().unwrap_or_default().to_owned())
            })
            .unwrap_or_else(|| panic!("{key} in --show-settings: {settings}"));
        assert_eq!(
            size(stated),
            runs.parse::<u64>().expect("a number"),
            "{flag}: {text}"
        );
        checked += 1;
    }
    assert_eq!(checked, 7);
}

/// A rule reports one severity per protocol version, the one its header
/// states (`rule`, the book, SARIF): `error`, or `error (warning in 1.0,
/// 1.1)`. Only the rules whose severity follows the receiver's treatment of
/// each value (what it rejects, strips or tolerates), which their pages
/// explain finding by finding, report more than one.
#[test]
fn each_rule_reports_the_severity_its_header_states_for_the_version() {
    const BY_TREATMENT: &[&str] = &[
        "content-url-invalid",
        "invalid-value",
        "null-for-optional",
        "missing-field",
        "wrong-type",
        "unknown-field",
        "schema-violation",
    ];
    let mut judged = 0;
    for version in ["1.1", "1.0", "0"] {
        let output = agui_lint(&["check", "--format", "jsonl", &format!("fixtures/{version}")]);
        for line in stdout(&output).lines() {
            let document: Value = serde_json::from_str(line).expect("a JSON line");
            let Some(protocol) = document["protocol"]
                .as_str()
                .and_then(|p| p.parse::<agui_lint::Protocol>().ok())
            else {
                continue;
            };
            for finding in document["diagnostics"].as_array().into_iter().flatten() {
                let name = finding["rule"].as_str().expect("rule");
                if BY_TREATMENT.contains(&name) {
                    continue;
                }
                let rule = agui_lint::rules::all()
                    .iter()
                    .find(|r| r.name == name)
                    .expect("a registered rule");
                assert_eq!(
                    finding["severity"].as_str(),
                    Some(rule.severity_in(protocol).as_str()),
                    "{name} in {protocol}: its header says {}; {line}",
                    rule.severity_text()
                );
                judged += 1;
            }
        }
    }
    assert!(judged > 300, "only {judged} findings judged");
}
