//! Every output format and every exit-code path of `agui-lint check`, run
//! as the real binary over files in a temporary directory, snapshotted with
//! the directory's path redacted.

use std::path::{Path, PathBuf};

use assert_cmd::cargo::cargo_bin_cmd;
use serde_json::Value;
use tempfile::TempDir;

/// A temporary folder of payloads and a way to run agui-lint in it.
struct Workspace {
    dir: TempDir,
}

/// What one run printed and how it ended.
#[derive(Debug)]
struct Run {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

impl Run {
    /// The run as one snapshot: exit code, stdout, stderr.
    fn transcript(&self) -> String {
        format!(
            "exit: {:?}\n--- stdout\n{}--- stderr\n{}",
            self.code, self.stdout, self.stderr
        )
    }
}

/// A tool message with its call id in snake_case: the camelCase key is
/// missing (an error), the snake_case one unknown (a warning).
const SNAKE_CASE: &str = r#"{
  "id": "m1",
  "role": "tool",
  "content": "18C",
  "tool_call_id": "c1"
}
"#;

/// Records: valid, blank, warning (snake_case key), not JSON, valid
/// without a final newline.
const CAPTURE: &str = concat!(
    r#"{"id":"m1","role":"user","content":"hi"}"#,
    "\n\n",
    r#"{"id":"m2","role":"tool","content":"18C","tool_call_id":"c1","toolCallId":"c1"}"#,
    "\n{broken\n",
    r#"[{"id":"m3","role":"user","content":"again"}]"#,
);

impl Workspace {
    fn new() -> Self {
        Workspace {
            dir: tempfile::tempdir().expect("temp dir"),
        }
    }

    /// The standard corpus: a valid file, an invalid one, a JSON Lines
    /// capture, an AG-UI message that is not JSON, and files the walk must
    /// skip.
    fn corpus() -> Self {
        let ws = Workspace::new();
        ws.write(
            "payloads/valid.json",
            r#"{"id":"m1","role":"user","content":"hi"}"#,
        );
        ws.write("payloads/snake-case.json", SNAKE_CASE);
        ws.write("payloads/capture.jsonl", CAPTURE);
        ws.write(
            "payloads/notes.json",
            "{\"role\": \"user\", \"content\": these are notes, not JSON}\n",
        );
        ws.write("payloads/README.md", "# not checked\n");
        ws.write("payloads/target/build.json", "{");
        ws.write("payloads/.cache/hidden.json", "{");
        ws
    }

    fn path(&self) -> &Path {
        self.dir.path()
    }

    fn write(&self, name: &str, text: &str) -> PathBuf {
        let path = self.path().join(name);
        std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        std::fs::write(&path, text).expect("write");
        path
    }

    fn run(&self, args: &[&str]) -> Run {
        self.run_with_stdin(args, "")
    }

    fn run_with_stdin(&self, args: &[&str], stdin: &str) -> Run {
        let output = cargo_bin_cmd!("agui-lint")
            .args(args)
            .current_dir(self.path())
            .env_remove("NO_COLOR")
            .env_remove("CLICOLOR_FORCE")
            .write_stdin(stdin)
            .output()
            .expect("run agui-lint");
        Run {
            code: output.status.code(),
            stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
        }
    }

    /// Snapshot settings that hide this run's temporary path and the
    /// crate's version, so snapshots survive both.
    fn redactions(&self) -> insta::Settings {
        let mut settings = insta::Settings::clone_current();
        let mut paths = vec![self.path().display().to_string()];
        if let Ok(real) = self.path().canonicalize() {
            paths.push(real.display().to_string());
        }
        for path in paths {
            settings.add_filter(&regex_escape(&path), "[TMP]");
        }
        let version = regex_escape(env!("CARGO_PKG_VERSION"));
        settings.add_filter(
            &format!(r#""version": ?"{version}""#),
            r#""version": "[VERSION]""#,
        );
        settings
    }
}

/// The `path` of each document of a `--format jsonl` report, as JSON text
/// (quoted).
fn jsonl_paths(report: &str) -> Vec<String> {
    report
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).expect("JSON")["path"].to_string())
        .collect()
}

fn regex_escape(text: &str) -> String {
    let mut escaped = String::new();
    for c in text.chars() {
        if "\\.+*?()|[]{}^$#&-~".contains(c) {
            escaped.push('\\');
        }
        escaped.push(c);
    }
    escaped
}

macro_rules! snapshot {
    ($ws:expr, $name:expr, $args:expr) => {{
        let run = $ws.run($args);
        $ws.redactions()
            .bind(|| insta::assert_snapshot!($name, run.transcript()));
        run
    }};
}

#[test]
fn human_format_shows_source_line_caret_help_and_summary() {
    let ws = Workspace::corpus();
    let run = snapshot!(ws, "human", &["check", "payloads"]);
    assert_eq!(run.code, Some(1));
}

#[test]
fn human_format_in_colour_when_asked() {
    let ws = Workspace::corpus();
    let run = snapshot!(
        ws,
        "human_color",
        &["check", "payloads/snake-case.json", "--color", "always"]
    );
    assert!(run.stdout.contains("\u{1b}[31m"), "{}", run.stdout);
    // Piped output is plain by default, and NO_COLOR never matters then.
    let plain = ws.run(&["check", "payloads/snake-case.json"]);
    assert!(!plain.stdout.contains('\u{1b}'));
}

#[test]
fn human_format_statistics_and_quiet() {
    let ws = Workspace::corpus();
    snapshot!(
        ws,
        "human_statistics",
        &["check", "payloads", "--statistics"]
    );
    let quiet = snapshot!(ws, "human_quiet", &["check", "payloads", "--quiet"]);
    assert!(!quiet.stdout.contains("documents checked"));
}

#[test]
fn human_summary_is_the_counts_without_the_findings() {
    let ws = Workspace::corpus();
    let full = ws.run(&["check", "payloads", "--statistics"]);
    let summary = snapshot!(ws, "human_summary", &["check", "payloads", "--summary"]);
    assert_eq!(summary.code, full.code);
    // The summary is the full report's last lines: the counts and totals.
    assert!(full.stdout.ends_with(&summary.stdout), "{}", summary.stdout);
    assert!(full.stdout.contains("error["));
    assert!(!summary.stdout.contains("error["));
    assert!(summary.stdout.contains("missing-field"));
    let json = ws.run(&["check", "payloads", "--summary", "--format", "json"]);
    assert_eq!(json.code, Some(2));
    assert!(json.stderr.contains("--summary is for the human format"));
    let quiet = ws.run(&["check", "payloads", "--summary", "--quiet"]);
    assert_eq!(quiet.code, Some(2));
}

#[test]
fn json_format_has_the_documented_shape() {
    let ws = Workspace::corpus();
    let run = snapshot!(ws, "json", &["check", "payloads", "--format", "json"]);
    let report: Value = serde_json::from_str(&run.stdout).expect("JSON");
    assert_eq!(report["summary"]["documents"], 7);
    let run = snapshot!(
        ws,
        "json_statistics_quiet",
        &[
            "check",
            "payloads",
            "--format",
            "json",
            "--statistics",
            "--quiet"
        ]
    );
    let report: Value = serde_json::from_str(&run.stdout).expect("JSON");
    // Quiet keeps only documents with findings; the summary counts all.
    assert_eq!(report["documents"].as_array().map(Vec::len), Some(4));
    assert_eq!(report["summary"]["documents"], 7);
}

#[test]
fn jsonl_format_is_one_document_per_line() {
    let ws = Workspace::corpus();
    let run = snapshot!(
        ws,
        "jsonl",
        &["check", "payloads", "--format", "jsonl", "--statistics"]
    );
    let lines: Vec<Value> = run
        .stdout
        .lines()
        .map(|l| serde_json::from_str(l).expect("each line is JSON"))
        .collect();
    assert_eq!(lines.len(), 8, "seven documents and the statistics line");
    assert!(lines[7]["statistics"].is_array());
}

#[test]
fn sarif_github_and_junit_formats() {
    let ws = Workspace::corpus();
    // The rule descriptors (every rule's full docs) are checked in
    // tests/sarif.rs; here they are cut down to their ids so the snapshot
    // shows the results.
    let sarif = ws.run(&["check", "payloads", "--format", "sarif"]);
    let mut log: Value = serde_json::from_str(&sarif.stdout).expect("SARIF is JSON");
    assert_eq!(log["version"], "2.1.0");
    let rules = &mut log["runs"][0]["tool"]["driver"]["rules"];
    let ids: Vec<Value> = rules
        .as_array()
        .expect("rules")
        .iter()
        .map(|r| r["id"].clone())
        .collect();
    *rules = Value::Array(ids);
    let shown = serde_json::to_string_pretty(&log).expect("JSON");
    ws.redactions()
        .bind(|| insta::assert_snapshot!("sarif", format!("exit: {:?}\n{shown}\n", sarif.code)));
    snapshot!(ws, "github", &["check", "payloads", "--format", "github"]);
    let junit = snapshot!(ws, "junit", &["check", "payloads", "--format", "junit"]);
    assert!(junit.stdout.starts_with("<?xml"));
    assert!(junit
        .stdout
        .contains(r#"<testsuite name="payloads/capture.jsonl" tests="4""#));
}

#[test]
fn exit_codes_follow_errors_warnings_strict_and_exit_zero() {
    let ws = Workspace::new();
    ws.write("clean.json", r#"{"id":"m1","role":"user","content":"hi"}"#);
    ws.write(
        "warning.json",
        r#"{"id":"m1","role":"user","content":"hi","timestamp":1}"#,
    );
    ws.write("error.json", SNAKE_CASE);
    snapshot!(ws, "exit_clean", &["check", "clean.json"]);
    let quiet = snapshot!(ws, "exit_clean_quiet", &["check", "clean.json", "--quiet"]);
    assert_eq!((quiet.code, quiet.stdout.as_str()), (Some(0), ""));
    let warning = snapshot!(ws, "exit_warning", &["check", "warning.json"]);
    assert_eq!(warning.code, Some(0));
    let strict = snapshot!(
        ws,
        "exit_warning_strict",
        &["check", "warning.json", "--strict"]
    );
    assert_eq!(strict.code, Some(1));
    let error = snapshot!(
        ws,
        "exit_error",
        &["check", "error.json", "--format", "github"]
    );
    assert_eq!(error.code, Some(1));
    let zero = snapshot!(
        ws,
        "exit_error_exit_zero",
        &["check", "error.json", "--exit-zero", "-q"]
    );
    assert_eq!(zero.code, Some(0));
}

#[test]
fn exit_2_when_the_tool_cannot_do_its_job() {
    let ws = Workspace::new();
    ws.write("error.json", SNAKE_CASE);
    let missing = snapshot!(ws, "exit_missing_path", &["check", "no-such.json"]);
    assert_eq!(missing.code, Some(2));
    let glob = snapshot!(ws, "exit_bad_glob", &["check", ".", "--include", "a["]);
    assert_eq!(glob.code, Some(2));
    let flag = ws.run(&["check", "--no-such-flag", "."]);
    assert_eq!(flag.code, Some(2));
    assert!(flag.stderr.contains("--no-such-flag"), "{}", flag.stderr);
    let rule = snapshot!(
        ws,
        "exit_unknown_rule",
        &["check", ".", "--select", "invalid-valeu"]
    );
    assert_eq!(rule.code, Some(2));
}

#[cfg(unix)]
#[test]
fn an_unreadable_file_exits_2_even_with_exit_zero_and_the_rest_is_reported() {
    let ws = Workspace::new();
    ws.write("ok.json", r#"{"id":"m1","role":"user","content":"hi"}"#);
    std::os::unix::fs::symlink(ws.path().join("gone.json"), ws.path().join("dangling.json"))
        .expect("symlink");
    let run = snapshot!(ws, "exit_unreadable", &["check", ".", "--exit-zero"]);
    assert_eq!(run.code, Some(2));
    assert!(run.stdout.contains("1 document checked"), "{}", run.stdout);
    let sarif = ws.run(&["check", ".", "--format", "sarif"]);
    let log: Value = serde_json::from_str(&sarif.stdout).expect("SARIF");
    let invocation = &log["runs"][0]["invocations"][0];
    assert_eq!(invocation["executionSuccessful"], false);
    assert_eq!(
        invocation["toolExecutionNotifications"][0]["locations"][0]["physicalLocation"]
            ["artifactLocation"]["uri"],
        "dangling.json"
    );
    let junit = ws.run(&["check", ".", "--format", "junit"]);
    assert!(
        junit.stdout.contains("<error message=\"cannot read"),
        "{}",
        junit.stdout
    );
}

#[cfg(unix)]
#[test]
fn a_mixed_directory_reports_every_document() {
    let ws = Workspace::corpus();
    std::os::unix::fs::symlink(
        ws.path().join("payloads/missing.json"),
        ws.path().join("payloads/unreadable.json"),
    )
    .expect("symlink");
    let run = ws.run(&["check", "payloads", "--format", "json"]);
    assert_eq!(run.code, Some(2), "{}", run.stderr);
    assert!(
        run.stderr.contains("payloads/unreadable.json: cannot read"),
        "{}",
        run.stderr
    );
    let report: Value = serde_json::from_str(&run.stdout).expect("JSON");
    let seen: Vec<(String, Option<u64>, bool)> = report["documents"]
        .as_array()
        .expect("documents")
        .iter()
        .map(|d| {
            (
                d["path"].as_str().expect("path").to_string(),
                d["record"].as_u64(),
                d["valid"].as_bool().expect("valid"),
            )
        })
        .collect();
    let expected = [
        ("payloads/capture.jsonl", Some(1), true),
        ("payloads/capture.jsonl", Some(3), true),
        ("payloads/capture.jsonl", Some(4), false),
        ("payloads/capture.jsonl", Some(5), true),
        ("payloads/notes.json", None, false),
        ("payloads/snake-case.json", None, false),
        ("payloads/valid.json", None, true),
    ];
    let expected: Vec<(String, Option<u64>, bool)> = expected
        .iter()
        .map(|(p, r, v)| (p.to_string(), *r, *v))
        .collect();
    assert_eq!(seen, expected);
    let rules: Vec<&str> = report["documents"][4]["diagnostics"]
        .as_array()
        .expect("diagnostics")
        .iter()
        .filter_map(|d| d["rule"].as_str())
        .collect();
    assert_eq!(rules, ["invalid-json"]);
}

#[test]
fn output_file_receives_the_report_and_stdout_stays_empty() {
    let ws = Workspace::corpus();
    let run = ws.run(&[
        "check",
        "payloads",
        "--format",
        "sarif",
        "--output",
        "report.sarif",
    ]);
    assert_eq!(run.code, Some(1));
    assert_eq!(run.stdout, "");
    let written = std::fs::read_to_string(ws.path().join("report.sarif")).expect("report");
    let direct = ws.run(&["check", "payloads", "--format", "sarif"]);
    assert_eq!(written, direct.stdout);
}

#[test]
fn sarif_is_written_beside_another_format_by_the_same_check() {
    let ws = Workspace::corpus();
    let direct = ws.run(&["check", "payloads", "--format", "sarif"]);
    let github = ws.run(&["check", "payloads", "--format", "github"]);
    for format in ["github", "human", "json", "junit"] {
        let run = ws.run(&[
            "check",
            "payloads",
            "--format",
            format,
            "--sarif",
            "both.sarif",
        ]);
        assert_eq!(run.code, Some(1), "{format}: {}", run.stderr);
        let written = std::fs::read_to_string(ws.path().join("both.sarif")).expect("report");
        assert_eq!(written, direct.stdout, "{format}");
        if format == "github" {
            assert_eq!(run.stdout, github.stdout);
        }
    }
    // A SARIF file that cannot be written is a failure of the tool, named.
    let run = ws.run(&[
        "check",
        "payloads",
        "--format",
        "github",
        "--sarif",
        "no/such/dir/out.sarif",
    ]);
    assert_eq!(run.code, Some(2));
    assert!(
        run.stderr.contains("cannot write no/such/dir/out.sarif"),
        "{}",
        run.stderr
    );
}

#[test]
fn stdin_named_as_jsonl_is_split_into_records() {
    let ws = Workspace::new();
    let run = ws.run_with_stdin(
        &[
            "check",
            "-",
            "--stdin-filename",
            "traffic.jsonl",
            "--format",
            "jsonl",
        ],
        CAPTURE,
    );
    let records: Vec<Value> = run
        .stdout
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON"))
        .collect();
    let numbers: Vec<u64> = records
        .iter()
        .filter_map(|r| r["record"].as_u64())
        .collect();
    assert_eq!(numbers, [1, 3, 4, 5]);
    assert!(records.iter().all(|r| r["path"] == "traffic.jsonl"));
    // Unnamed stdin is recognised as JSON Lines from its first line.
    let unnamed = ws.run_with_stdin(&["check", "-", "--format", "jsonl"], CAPTURE);
    assert_eq!(unnamed.stdout.lines().count(), 4, "{}", unnamed.stdout);
}

#[test]
fn include_and_exclude_shape_the_walk() {
    let ws = Workspace::corpus();
    ws.write(
        "payloads/extra.txt",
        r#"{"id":"m1","role":"user","content":"hi"}"#,
    );
    let run = ws.run(&[
        "check",
        "payloads",
        "--include",
        "*.txt",
        "--include",
        "*.json",
        "--exclude",
        "notes.json",
        "--format",
        "jsonl",
    ]);
    let paths = jsonl_paths(&run.stdout);
    assert_eq!(
        paths,
        [
            "\"payloads/extra.txt\"",
            "\"payloads/snake-case.json\"",
            "\"payloads/valid.json\""
        ]
    );
}

#[test]
fn output_order_is_the_same_whatever_the_thread_count() {
    let ws = Workspace::new();
    for i in 0..120 {
        let text = if i % 7 == 0 {
            SNAKE_CASE.to_string()
        } else {
            format!(r#"{{"id":"m{i}","role":"user","content":"hi","extra{i}":1}}"#)
        };
        ws.write(&format!("many/{}/{i:03}.json", i % 5), &text);
    }
    let run_with = |threads: &str| {
        cargo_bin_cmd!("agui-lint")
            .args(["check", "many", "--format", "jsonl"])
            .current_dir(ws.path())
            .env("RAYON_NUM_THREADS", threads)
            .output()
            .expect("run")
    };
    let one = run_with("1");
    let four = run_with("4");
    assert_eq!(one.stdout, four.stdout);
    // Nothing on stderr: no progress bar outside a terminal.
    assert!(
        four.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&four.stderr)
    );
    let paths = jsonl_paths(&String::from_utf8_lossy(&one.stdout));
    let mut sorted = paths.clone();
    sorted.sort();
    assert_eq!(paths, sorted);
    assert_eq!(paths.len(), 120);
}

#[test]
fn every_subcommand_help_shows_an_example_and_completions_are_generated() {
    let ws = Workspace::new();
    for command in ["check", "schema", "rule", "completions"] {
        let help = ws.run(&[command, "--help"]);
        assert_eq!(help.code, Some(0));
        assert!(
            help.stdout.contains("Examples:\n  agui-lint "),
            "{command}: {}",
            help.stdout
        );
    }
    for shell in ["bash", "zsh", "fish", "powershell", "elvish"] {
        let script = ws.run(&["completions", shell]);
        assert_eq!(script.code, Some(0), "{shell}");
        assert!(script.stdout.contains("exit-zero"), "{shell}");
    }
}

#[test]
fn a_missing_path_is_reported_and_every_other_path_is_still_checked() {
    let ws = Workspace::new();
    ws.write("good.json", r#"{"id":"m1","role":"user","content":"hi"}"#);
    ws.write("dir/error.json", SNAKE_CASE);
    let run = snapshot!(
        ws,
        "missing_path_and_others",
        &["check", "nope.json", "good.json", "dir"]
    );
    assert_eq!(run.code, Some(2));
    assert!(run
        .stdout
        .contains("nope.json: error: no such file or directory"));
    assert!(run
        .stdout
        .contains("dir/error.json:1:1: error[missing-field]"));
    assert!(run.stdout.contains("2 documents checked"), "{}", run.stdout);
    // Every format reports it; exit 2 wins over 1 and over --exit-zero.
    let json = ws.run(&["check", "good.json", "nope.json", "--format", "json"]);
    assert_eq!(json.code, Some(2));
    let report: Value = serde_json::from_str(&json.stdout).expect("JSON");
    assert_eq!(report["summary"]["documents"], 1);
    let github = ws.run(&["check", "nope.json", "good.json", "--format", "github"]);
    assert!(github
        .stdout
        .contains("::error file=nope.json,title=agui-lint::no such file or directory"));
    let zero = ws.run(&["check", "nope.json", "dir", "--exit-zero"]);
    assert_eq!(zero.code, Some(2));
}

/// The long help of `check`, and every option with a fixed set of values
/// listing them.
#[test]
fn check_help_lists_every_walked_extension_and_every_value() {
    let ws = Workspace::new();
    let help = snapshot!(ws, "check_help", &["check", "--help"]);
    let short = ws.run(&["check", "-h"]);
    let guide = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/docs/src/guides/cli.md"
    ))
    .expect("the CLI guide");
    for (extension, _) in agui_lint::unstable::input::Layout::EXTENSIONS {
        let glob = format!("*.{extension}");
        assert!(help.stdout.contains(&glob), "check --help misses {glob}");
        assert!(short.stdout.contains(&glob), "check -h misses {glob}");
        assert!(
            guide.contains(&format!("`{glob}`")),
            "docs/src/guides/cli.md misses {glob}"
        );
    }
    let values = [
        ("--kind <KIND>", "auto, run-agent-input, message, messages, tool, tools, tool-call, context, input-content, capabilities, event, events, resume-entry, interrupt"),
        ("--protocol <VERSION>", "1.1, 1.0, 0, auto"),
        ("--format <FORMAT>", "human, json, jsonl, sarif, github, junit"),
        ("--color <COLOR>", "auto, always, never"),
    ];
    for (option, list) in values {
        let line = short
            .stdout
            .lines()
            .find(|l| l.trim_start().starts_with(option))
            .unwrap_or_else(|| panic!("{option} missing from check -h"));
        assert!(
            line.contains(&format!("[possible values: {list}]")),
            "{line}"
        );
    }
    // Every kind is listed, so a new kind cannot be left out.
    for kind in agui_lint::Kind::ALL {
        assert!(values[0].1.contains(kind.as_str()), "{kind}");
    }
    let bad = ws.run(&["check", "--kind", "nope", "."]);
    assert_eq!(bad.code, Some(2));
    assert!(bad.stderr.contains(values[0].1), "{}", bad.stderr);
}

#[test]
fn rule_without_a_name_says_to_give_one_or_all_and_a_typo_gets_the_closest() {
    let ws = Workspace::new();
    let bare = snapshot!(ws, "rule_bare", &["rule"]);
    assert_eq!(bare.code, Some(2));
    assert!(bare.stderr.contains("<NAME|--all>"), "{}", bare.stderr);
    let typo = snapshot!(ws, "rule_typo", &["rule", "unknwn-field"]);
    assert_eq!(typo.code, Some(2));
    assert!(
        typo.stderr.contains("did you mean 'unknown-field'?"),
        "{}",
        typo.stderr
    );
    let far = ws.run(&["rule", "zzzzzzzzzzzz"]);
    assert_eq!(far.code, Some(2));
    assert!(!far.stderr.contains("did you mean"), "{}", far.stderr);
    let both = ws.run(&["rule", "invalid-value", "--all"]);
    assert_eq!(both.code, Some(2));
}

#[test]
fn schema_without_a_kind_is_one_json_document_of_every_kind() {
    let ws = Workspace::new();
    let run = ws.run(&["schema"]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    // from_str rejects anything after the first value.
    let all: Value = serde_json::from_str(&run.stdout).expect("one JSON document");
    let all = all.as_object().expect("an object keyed by kind");
    let kinds: Vec<&str> = all.keys().map(String::as_str).collect();
    let expected: Vec<&str> = agui_lint::Kind::ALL.iter().map(|k| k.as_str()).collect();
    assert_eq!(kinds, expected);
    for kind in agui_lint::Kind::ALL {
        let file = concat!(env!("CARGO_MANIFEST_DIR"), "/schemas/1.1/").to_string()
            + &kind.schema_file_name();
        let committed: Value =
            serde_json::from_str(&std::fs::read_to_string(&file).expect("schema")).expect("JSON");
        assert_eq!(all[kind.as_str()], committed, "{kind}");
    }
    // A version's kinds only: pre-1.0 has no interrupts.
    let run = ws.run(&["schema", "--protocol", "0"]);
    let all: Value = serde_json::from_str(&run.stdout).expect("one JSON document");
    assert_eq!(all.as_object().map(|o| o.len()), Some(11));
    assert!(all.get("interrupt").is_none());
    let missing = ws.run(&["schema", "interrupt", "--protocol", "0"]);
    assert_eq!(missing.code, Some(2));
    assert!(
        missing.stderr.contains("has no 'interrupt' documents"),
        "{}",
        missing.stderr
    );
}

/// A stream whose findings point back at whole earlier events.
const STREAM: &str = concat!(
    r#"{"type":"RUN_STARTED","threadId":"t1","runId":"r1"}"#,
    "\n",
    r#"{"type":"TOOL_CALL_START","toolCallId":"c1","toolCallName":"get_weather"}"#,
    "\n",
    r#"{"type":"TOOL_CALL_START","toolCallId":"c1","toolCallName":"get_weather"}"#,
    "\n",
);

#[test]
fn a_related_event_is_named_without_a_dangling_label_in_every_format() {
    let ws = Workspace::new();
    ws.write("stream.jsonl", STREAM);
    ws.write(
        "stream.sse",
        &STREAM
            .lines()
            .map(|l| format!("data: {l}\n\n"))
            .collect::<String>(),
    );
    let github = snapshot!(
        ws,
        "related_github",
        &["check", "stream.jsonl", "stream.sse", "--format", "github"]
    );
    assert!(
        github.stdout.contains("note: TOOL_CALL_START here (2:1)"),
        "{}",
        github.stdout
    );
    snapshot!(
        ws,
        "related_human",
        &["check", "stream.jsonl", "stream.sse"]
    );
    for format in ["human", "json", "jsonl", "sarif", "github", "junit"] {
        let run = ws.run(&["check", "stream.jsonl", "stream.sse", "--format", format]);
        assert_eq!(run.code, Some(1), "{format}: {}", run.stderr);
        assert!(run.stdout.contains("TOOL_CALL_START here"), "{format}");
        // The whole document is named as RFC 6901 does, and said to be.
        let stdout = run
            .stdout
            .replace(" at \"\" (the whole document)", " at WHOLE")
            .replace(" at \\\"\\\" (the whole document)", " at WHOLE");
        for dangling in [
            " at \n", " at %0A", " at \"", " at /\n", " at / (", " at /\"",
        ] {
            assert!(
                !stdout.contains(dangling) && !stdout.ends_with(" at "),
                "{format} prints {dangling:?}:\n{}",
                run.stdout
            );
        }
    }
}

/// Every report says which version judged each document: `protocol` in the
/// JSON formats, a SARIF property, and, in the human output, wherever it is
/// not the run's default.
#[test]
fn reports_name_the_version_that_judged_each_document() {
    let ws = Workspace::new();
    ws.write(
        "declared.json",
        r#"{"threadId":"t","runId":"r","protocolVersion":"1.0","messages":[],"state":null}"#,
    );
    ws.write(
        "undeclared.json",
        r#"{"threadId":"t","runId":"r","messages":[],"state":null}"#,
    );
    let json = ws.run(&[
        "check",
        "declared.json",
        "undeclared.json",
        "--format",
        "json",
    ]);
    let report: Value = serde_json::from_str(&json.stdout).expect("JSON");
    let protocols: Vec<&str> = report["documents"]
        .as_array()
        .expect("documents")
        .iter()
        .map(|d| d["protocol"].as_str().expect("protocol"))
        .collect();
    assert_eq!(protocols, ["1.0", "1.1"]);
    let sarif = ws.run(&["check", "declared.json", "--format", "sarif"]);
    let log: Value = serde_json::from_str(&sarif.stdout).expect("SARIF");
    assert_eq!(
        log["runs"][0]["results"][0]["properties"]["protocol"],
        "1.0"
    );
    let human = ws.run(&["check", "declared.json", "undeclared.json"]);
    let judged: Vec<&str> = human
        .stdout
        .lines()
        .filter(|l| l.contains("judged as"))
        .collect();
    assert_eq!(judged.len(), 1, "{}", human.stdout);
    assert!(
        judged[0].contains("(judged as AG-UI 1.0)"),
        "{}",
        human.stdout
    );
    // With the run's default at 1.0, the other document is the exception.
    let human = ws.run(&[
        "check",
        "declared.json",
        "undeclared.json",
        "--protocol",
        "1.0",
    ]);
    assert!(!human.stdout.contains("judged as"), "{}", human.stdout);
    let human = ws.run(&["check", "undeclared.json", "--protocol", "0"]);
    assert!(
        human.stdout.contains("missing required key 'tools'"),
        "{}",
        human.stdout
    );
}

/// A HAR of two runs, one response in plain text and one in base64, each
/// with a finding on a response event (unparsable arguments), one at the
/// end of the stream (a message never ended), and a run whose response was
/// not recorded. The request URL carries a token and the secret is in a
/// value, so the masked transcripts show what masking keeps.
fn capture_workspace() -> Workspace {
    let ws = Workspace::new();
    let input = serde_json::json!({
        "threadId": "t1", "runId": "r1", "protocolVersion": "1.1", "state": {},
        "messages": [{"id": "u1", "role": "user", "content": "sk_live_secret"}],
        "tools": [], "context": [], "forwardedProps": {}
    })
    .to_string();
    let events = [
        serde_json::json!({"type": "RUN_STARTED", "threadId": "t1", "runId": "r1", "protocolVersion": "1.1"}),
        serde_json::json!({"type": "TOOL_CALL_START", "toolCallId": "c1", "toolCallName": "lookup"}),
        serde_json::json!({"type": "TOOL_CALL_ARGS", "toolCallId": "c1", "delta": "\"pin\": 1234}"}),
        serde_json::json!({"type": "TOOL_CALL_END", "toolCallId": "c1"}),
        serde_json::json!({"type": "TEXT_MESSAGE_START", "messageId": "m1", "role": "assistant"}),
    ];
    let sse: String = events.iter().map(|e| format!("data: {e}\n\n")).collect();
    let base64 = {
        use std::fmt::Write;
        // A small base64 encoder keeps the test free of another dependency.
        const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
        let mut out = String::new();
        for chunk in sse.as_bytes().chunks(3) {
            let b = [
                chunk[0],
                *chunk.get(1).unwrap_or(&0),
                *chunk.get(2).unwrap_or(&0),
            ];
            let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
            for i in 0..4 {
                if i <= chunk.len() {
                    let _ = write!(
                        out,
                        "{}",
                        ALPHABET[((n >> (18 - 6 * i)) & 63) as usize] as char
                    );
                } else {
                    out.push('=');
                }
            }
        }
        out
    };
    let entry = |content: Value| {
        serde_json::json!({
            "request": {"method": "POST", "url": "https://agent.example/agent?token=tok_secret",
                "postData": {"mimeType": "application/json", "text": input}},
            "response": {"status": 200, "content": content}
        })
    };
    let har = serde_json::json!({"log": {"version": "1.2", "entries": [
        entry(serde_json::json!({"mimeType": "text/event-stream", "text": sse})),
        entry(serde_json::json!({"mimeType": "text/event-stream", "text": base64, "encoding": "base64"})),
        entry(serde_json::json!({"mimeType": "text/event-stream", "size": 0})),
    ]}});
    ws.write(
        "capture.har",
        &serde_json::to_string_pretty(&har).expect("JSON"),
    );
    ws.write(
        "pages.har",
        r#"{"log": {"entries": [{"request": {"method": "GET", "url": "https://app.example/"},
  "response": {"content": {"mimeType": "text/html", "text": "<html></html>"}}}]}}"#,
    );
    ws
}

/// Every format names a capture finding's place (entry, method and URL,
/// response event, and that a base64 body is placed at its start), masked
/// or not; masking hides the URL's query and the document's values and
/// keeps keys, rules, pointers, event numbers, lines and columns.
#[test]
fn every_format_keeps_a_capture_findings_place_masked_or_not() {
    let ws = capture_workspace();
    for masked in [false, true] {
        for format in ["human", "github", "junit", "sarif", "json", "jsonl"] {
            let mut args = vec!["check", "capture.har", "pages.har", "--format", format];
            if masked {
                args.push("--mask-values");
            }
            let run = ws.run(&args);
            let mut shown = run.stdout.clone();
            if format == "sarif" {
                // Rule descriptors are tests/sarif.rs's concern.
                let mut log: Value = serde_json::from_str(&shown).expect("SARIF is JSON");
                log["runs"][0]["tool"]["driver"]["rules"] = Value::Null;
                shown = serde_json::to_string_pretty(&log).expect("JSON");
            }
            for place in [
                "entry 1 (POST ",
                "response event 4",
                "response event 5",
                "entry 2 (POST ",
                "(the response is base64: placed at its start)",
                "entry 3 (POST ",
            ] {
                assert!(shown.contains(place), "{format}: no {place:?} in {shown}");
            }
            for rule in [
                "tool-call-args-not-json",
                "never-ended",
                "response-not-captured",
                "no-agui-traffic",
            ] {
                assert!(shown.contains(rule), "{format}: no {rule} in {shown}");
            }
            assert_eq!(shown.contains("tok_secret"), !masked, "{format}: {shown}");
            assert_eq!(shown.contains("1234"), !masked, "{format}: {shown}");
            assert_eq!(run.code, Some(1), "{format}");
            let name = format!("capture_{format}{}", if masked { "_masked" } else { "" });
            ws.redactions()
                .bind(|| insta::assert_snapshot!(name, shown));
        }
    }
}

/// Masking keeps the keys a finding names, so a masked report still says
/// what to fix; only the document's values go.
#[test]
fn masked_findings_name_keys_and_positions() {
    let ws = Workspace::new();
    ws.write(
        "snake.json",
        r#"{"thread_id": "t", "runId": "r", "state": {}, "tools": [], "context": [],
 "forwardedProps": {}, "messages": [{"id": "m1", "role": "user", "content": 4242}]}
"#,
    );
    let run = ws.run(&["check", "--mask-values", "snake.json"]);
    assert!(
        run.stdout.contains("missing required key 'threadId'"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout
            .contains("found 'thread_id'; the key is spelled 'threadId'"),
        "{}",
        run.stdout
    );
    assert!(run.stdout.contains("snake.json:1:2:"), "{}", run.stdout);
    assert!(!run.stdout.contains("4242"), "{}", run.stdout);
    ws.redactions()
        .bind(|| insta::assert_snapshot!("masked_keys", run.transcript()));
}

/// Standard input closed is an I/O failure (exit 2), not an empty
/// document; `< /dev/null` stays an empty one.
#[cfg(target_os = "linux")]
#[test]
fn closed_stdin_exits_2() {
    let binary = assert_cmd::cargo::cargo_bin!("agui-lint");
    let closed = std::process::Command::new("sh")
        .arg("-c")
        .arg(format!("exec '{}' check - <&-", binary.display()))
        .output()
        .expect("run through sh");
    assert_eq!(closed.status.code(), Some(2), "{closed:?}");
    assert!(String::from_utf8_lossy(&closed.stdout).contains("standard input is closed"));
    let empty = std::process::Command::new(binary)
        .args(["check", "-"])
        .stdin(std::process::Stdio::null())
        .output()
        .expect("run");
    assert_eq!(empty.status.code(), Some(1), "{empty:?}");
    assert!(String::from_utf8_lossy(&empty.stdout).contains("invalid-json"));
}

#[test]
fn a_walk_skips_json_that_is_not_ag_ui_and_counts_it() {
    let ws = Workspace::new();
    ws.write(
        "package.json",
        r#"{"name": "web", "version": "1.0.0", "scripts": {"test": "vitest"}}"#,
    );
    // As `tsc --init` writes it: comments, which are not JSON.
    ws.write(
        "tsconfig.json",
        "{\n  // Visit https://aka.ms/tsconfig\n  \"compilerOptions\": {\"strict\": true,}\n}\n",
    );
    ws.write(
        "payloads/valid.json",
        r#"{"id":"m1","role":"user","content":"hi"}"#,
    );
    // A manifest with a name and a description, and a conformance test
    // case holding a stream of events: no tool, no AG-UI document.
    ws.write(
        "web/package.json",
        r#"{"name": "web", "description": "the app", "version": "1.0.0", "main": "index.js"}"#,
    );
    ws.write(
        "cases/open-message.json",
        r#"{"name": "open-message", "area": "sequence", "description": "a message never ended",
            "stream": [{"type": "RUN_STARTED", "threadId": "t", "runId": "r"}],
            "expect": {"rule": "stream-truncated"}}"#,
    );
    // Clean AG-UI files and JSON files of other tools: clean, exit 0, the
    // skipped files counted.
    let run = ws.run(&["check", "."]);
    assert_eq!(run.code, Some(0), "{run:?}");
    assert!(
        run.stdout.ends_with(
            "1 document checked: 1 valid, 0 errors, 0 warnings, 0 infos, \
             4 files skipped as not AG-UI (--verbose lists them)\n"
        ),
        "{}",
        run.stdout
    );
    assert!(!run.stdout.contains("unknown-kind"), "{}", run.stdout);
    let verbose = ws.run(&["check", ".", "--verbose"]);
    assert!(
        verbose.stdout.contains("package.json: skipped:"),
        "{verbose:?}"
    );
    assert!(
        verbose.stdout.contains("tsconfig.json: skipped:"),
        "{verbose:?}"
    );
    let json = ws.run(&["check", ".", "--format", "json"]);
    let document: Value = serde_json::from_str(&json.stdout).expect("JSON");
    assert_eq!(document["summary"]["skipped"], 4);
    assert_eq!(document["summary"]["documents"], 1);
    assert!(
        verbose.stdout.contains("open-message.json: skipped:"),
        "{verbose:?}"
    );
    // Named, the test case is judged: of no kind, with nothing nearer.
    let named = ws.run(&["check", "cases/open-message.json"]);
    assert_eq!(named.code, Some(1), "{named:?}");
    assert!(
        named.stdout.contains("error[unknown-kind]") && !named.stdout.contains("closest"),
        "{}",
        named.stdout
    );

    // Named on the command line, or matched by an --include glob, such a
    // file is still judged: `unknown-kind`.
    for args in [
        &["check", "package.json"][..],
        &["check", ".", "--include", "*.json"][..],
    ] {
        let run = ws.run(args);
        assert_eq!(run.code, Some(1), "{args:?}: {run:?}");
        assert!(
            run.stdout.contains("package.json:1:1: error[unknown-kind]"),
            "{args:?}: {}",
            run.stdout
        );
    }
    // A walked file that looks like AG-UI (its keys, its event types) is
    // never skipped: not JSON, of a kind that cannot be told, or with
    // findings. Other tools' files that are not JSON are.
    ws.write("payloads/broken.json", r#"{"id":"m1","role":"user","#);
    ws.write("payloads/snake-case.json", SNAKE_CASE);
    ws.write("payloads/no-ids.json", r#"{"messages": [], "state": {}}"#);
    ws.write(
        ".vscode/settings.json",
        "{\n  // editor\n  \"editor.tabSize\": 2,\n}\n",
    );
    ws.write("notes/broken.json", "{\"todo\": ");
    let run = ws.run(&["check", ".", "--format", "jsonl"]);
    assert_eq!(run.code, Some(1), "{run:?}");
    let paths = jsonl_paths(&run.stdout);
    assert_eq!(
        paths,
        [
            "\"payloads/broken.json\"",
            "\"payloads/no-ids.json\"",
            "\"payloads/snake-case.json\"",
            "\"payloads/valid.json\""
        ]
    );
    let json = ws.run(&["check", ".", "--format", "json"]);
    let document: Value = serde_json::from_str(&json.stdout).expect("JSON");
    // package.json, web/package.json, the test case, tsconfig.json and
    // notes/broken.json (a walk does not enter hidden folders such as
    // .vscode/).
    assert_eq!(document["summary"]["skipped"], 5, "{document:#}");
}

#[cfg(unix)]
#[test]
fn a_link_to_a_directory_met_while_walking_is_named_on_standard_error() {
    let ws = Workspace::new();
    ws.write(
        "real/valid.json",
        r#"{"id":"m1","role":"user","content":"hi"}"#,
    );
    std::os::unix::fs::symlink(ws.path().join("real"), ws.path().join("linked")).expect("symlink");
    let run = ws.run(&["check", "."]);
    assert_eq!(run.code, Some(0), "{run:?}");
    assert!(
        run.stderr.contains(
            "agui-lint: linked: a link to a directory, not followed while walking (name it to check it)"
        ),
        "{run:?}"
    );
    assert!(run.stdout.starts_with("1 document checked"), "{run:?}");
    assert!(ws.run(&["check", ".", "--quiet"]).stderr.is_empty());
}

/// One defect repeated through a capture is shown a few times, then
/// counted in one line that says how to see every one; `--verbose` and
/// JSON Lines show them all, and the summary counts them all.
#[test]
fn the_human_report_groups_one_defect_repeated() {
    let ws = Workspace::new();
    let records: String = (0..2000)
        .map(|i| {
            format!("{{\"id\":\"m{i}\",\"role\":\"user\",\"content\":\"hi\",\"extra_key\":1}}\n")
        })
        .collect();
    ws.write("many.jsonl", &records);
    let grouped = ws.run(&["check", "many.jsonl"]);
    let headers = grouped.stdout.matches("warning[unknown-field]").count();
    assert_eq!(
        headers, 4,
        "3 shown and one line for the rest:\n{}",
        grouped.stdout
    );
    assert!(
        grouped.stdout.contains(
            "... and 1997 more warning[unknown-field] like: unknown key 'extra_key' \
             (--verbose or --format jsonl shows every one)"
        ),
        "{}",
        grouped.stdout
    );
    assert!(
        grouped.stdout.contains("2000 warnings"),
        "{}",
        grouped.stdout
    );
    assert!(grouped.stdout.lines().count() < 30, "{}", grouped.stdout);
    // Another key is another defect: shown, not folded into the group.
    ws.write(
        "more.jsonl",
        &format!(
            "{records}{{\"id\":\"x\",\"role\":\"user\",\"content\":\"hi\",\"other_key\":1}}\n"
        ),
    );
    let other = ws.run(&["check", "more.jsonl"]);
    assert!(
        other.stdout.contains("unknown key 'other_key'"),
        "{}",
        other.stdout
    );
    let verbose = ws.run(&["check", "many.jsonl", "--verbose"]);
    assert_eq!(
        verbose.stdout.matches("warning[unknown-field]").count(),
        2000
    );
    let jsonl = ws.run(&["check", "many.jsonl", "--format", "jsonl"]);
    assert_eq!(jsonl.stdout.matches("\"unknown-field\"").count(), 2000);
}
