//! `check --write-baseline` and `check --baseline`: adopting agui-lint on a
//! corpus with findings, failing only on new ones.

use std::path::Path;

use assert_cmd::cargo::cargo_bin_cmd;
use serde_json::Value;

/// A tool message with its call id in snake_case: an error
/// (`missing-field`) and a warning (`unknown-field`).
const SNAKE_CASE: &str = r#"{"id":"m1","role":"tool","content":"18C","tool_call_id":"c1"}"#;
const USER: &str = r#"{"id":"m2","role":"user","content":"hi"}"#;

struct Run {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

fn run(dir: &Path, args: &[&str]) -> Run {
    let output = cargo_bin_cmd!("agui-lint")
        .args(args)
        .current_dir(dir)
        .output()
        .expect("run agui-lint");
    Run {
        code: output.status.code(),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

fn write(dir: &Path, name: &str, text: &str) {
    let path = dir.join(name);
    std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
    std::fs::write(path, text).expect("write");
}

/// The rules of the findings a JSON report holds, in order.
fn rules(report: &str) -> Vec<String> {
    let report: Value = serde_json::from_str(report).expect("JSON report");
    report["documents"]
        .as_array()
        .expect("documents")
        .iter()
        .flat_map(|d| d["diagnostics"].as_array().cloned().unwrap_or_default())
        .map(|d| d["rule"].as_str().expect("rule").to_string())
        .collect()
}

/// A corpus with findings: a capture and a document.
fn corpus() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temp dir");
    write(
        dir.path(),
        "captures/chat.jsonl",
        &format!("{SNAKE_CASE}\n{USER}\n"),
    );
    write(dir.path(), "payloads/tool.json", SNAKE_CASE);
    dir
}

#[test]
fn a_baseline_records_todays_findings_and_a_check_against_it_passes() {
    let dir = corpus();
    let before = run(dir.path(), &["check", ".", "--format", "json"]);
    assert_eq!(before.code, Some(1));
    assert_eq!(rules(&before.stdout).len(), 4, "{}", before.stdout);

    // Writing the baseline reports as usual and exits 0.
    let written = run(
        dir.path(),
        &["check", ".", "--write-baseline", "agui-lint-baseline.json"],
    );
    assert_eq!(written.code, Some(0), "{}", written.stderr);
    assert!(
        written.stdout.contains("error[missing-field]"),
        "{}",
        written.stdout
    );
    assert!(
        written.stderr.contains("4 findings recorded"),
        "{}",
        written.stderr
    );
    let baseline: Value = serde_json::from_str(
        &std::fs::read_to_string(dir.path().join("agui-lint-baseline.json")).expect("baseline"),
    )
    .expect("baseline is JSON");
    assert_eq!(baseline["agui-lint-baseline"], 1);
    let entries = baseline["findings"].as_array().expect("findings");
    assert_eq!(entries.len(), 4);
    // No value of the documents is written into it, only a fingerprint.
    let text = baseline.to_string();
    assert!(!text.contains("18C") && !text.contains("c1"), "{text}");

    let against = run(
        dir.path(),
        &[
            "check",
            ".",
            "--baseline",
            "agui-lint-baseline.json",
            "--format",
            "json",
        ],
    );
    assert_eq!(against.code, Some(0), "{}", against.stdout);
    assert_eq!(rules(&against.stdout), Vec::<String>::new());
    assert!(
        against.stderr.contains("4 findings left out"),
        "{}",
        against.stderr
    );
}

#[test]
fn edits_elsewhere_keep_old_findings_left_out_and_a_new_finding_still_fails() {
    let dir = corpus();
    let written = run(dir.path(), &["check", ".", "--write-baseline", "base.json"]);
    assert_eq!(written.code, Some(0), "{}", written.stderr);

    // Records added before the old finding (its line and record number
    // move), the document reformatted over several lines: still matched.
    write(
        dir.path(),
        "captures/chat.jsonl",
        &format!("{USER}\n{USER}\n\n{SNAKE_CASE}\n{USER}\n"),
    );
    write(
        dir.path(),
        "payloads/tool.json",
        "{\n  \"id\": \"m1\",\n  \"role\": \"tool\",\n  \"content\": \"18C\",\n  \"tool_call_id\": \"c1\"\n}\n",
    );
    let edited = run(
        dir.path(),
        &["check", ".", "--baseline", "base.json", "--format", "json"],
    );
    assert_eq!(edited.code, Some(0), "{}", edited.stdout);
    assert_eq!(rules(&edited.stdout), Vec::<String>::new());

    // A new finding of another rule fails.
    write(
        dir.path(),
        "captures/chat.jsonl",
        &format!("{USER}\n{SNAKE_CASE}\n{{\"id\":\"m3\",\"role\":\"user\"}}\n"),
    );
    let new = run(
        dir.path(),
        &["check", ".", "--baseline", "base.json", "--format", "json"],
    );
    assert_eq!(new.code, Some(1), "{}", new.stdout);
    assert_eq!(rules(&new.stdout), ["missing-field"]);

    // The same rule at the same pointer, over another value: new.
    write(
        dir.path(),
        "captures/chat.jsonl",
        &format!(
            "{SNAKE_CASE}\n{}\n",
            SNAKE_CASE.replace("tool_call_id", "toolcallid")
        ),
    );
    let other = run(
        dir.path(),
        &["check", ".", "--baseline", "base.json", "--format", "json"],
    );
    assert_eq!(other.code, Some(1), "{}", other.stdout);
    assert_eq!(rules(&other.stdout), ["missing-field", "unknown-field"]);

    // The same finding once more than the baseline holds it: the second
    // one is new.
    write(
        dir.path(),
        "captures/chat.jsonl",
        &format!("{SNAKE_CASE}\n{SNAKE_CASE}\n"),
    );
    let twice = run(
        dir.path(),
        &["check", ".", "--baseline", "base.json", "--format", "json"],
    );
    assert_eq!(twice.code, Some(1), "{}", twice.stdout);
    assert_eq!(rules(&twice.stdout), ["missing-field", "unknown-field"]);
}

#[test]
fn fixed_findings_are_counted_so_the_baseline_can_be_pruned() {
    let dir = corpus();
    run(dir.path(), &["check", ".", "--write-baseline", "base.json"]);
    write(dir.path(), "payloads/tool.json", USER);
    let fixed = run(dir.path(), &["check", ".", "--baseline", "base.json"]);
    assert_eq!(fixed.code, Some(0), "{}", fixed.stdout);
    assert!(
        fixed
            .stderr
            .contains("2 findings of the baseline no longer occur; --write-baseline rewrites it"),
        "{}",
        fixed.stderr
    );
    let pruned = run(dir.path(), &["check", ".", "--write-baseline", "base.json"]);
    assert!(
        pruned.stderr.contains("2 findings recorded"),
        "{}",
        pruned.stderr
    );
    let again = run(dir.path(), &["check", ".", "--baseline", "base.json"]);
    assert!(
        !again.stderr.contains("no longer occur"),
        "{}",
        again.stderr
    );
}

#[test]
fn a_baseline_that_cannot_be_read_is_a_failure_of_the_tool() {
    let dir = corpus();
    let missing = run(dir.path(), &["check", ".", "--baseline", "none.json"]);
    assert_eq!(missing.code, Some(2));
    assert!(
        missing.stderr.contains("cannot read baseline none.json"),
        "{}",
        missing.stderr
    );
    write(dir.path(), "not-a-baseline.json", r#"{"findings": 3}"#);
    let wrong = run(
        dir.path(),
        &["check", "captures", "--baseline", "not-a-baseline.json"],
    );
    assert_eq!(wrong.code, Some(2));
    assert!(
        wrong.stderr.contains("is not an agui-lint baseline"),
        "{}",
        wrong.stderr
    );
    let both = run(
        dir.path(),
        &[
            "check",
            ".",
            "--baseline",
            "a.json",
            "--write-baseline",
            "b.json",
        ],
    );
    assert_eq!(both.code, Some(2), "{}", both.stderr);
}

/// The ways one folder of the corpus is typed from each working directory:
/// the directory (relative to the corpus root) and the path arguments.
fn vantage_points(root: &Path) -> Vec<(&'static str, Vec<String>)> {
    let absolute = root.join("payloads").display().to_string();
    vec![
        ("", vec!["payloads".to_string()]),
        ("", vec!["./payloads/".to_string()]),
        ("", vec![absolute.clone()]),
        ("payloads", vec![".".to_string()]),
        ("payloads", vec![absolute.clone()]),
        ("captures", vec!["../payloads".to_string()]),
        ("captures", vec![absolute]),
    ]
}

#[test]
fn a_baseline_matches_from_any_working_directory_however_paths_are_typed() {
    let dir = corpus();
    write(dir.path(), "payloads/sub/more.json", SNAKE_CASE);
    let root = dir.path().canonicalize().expect("root");
    let baseline = root.join("base.json").display().to_string();
    let written = run(
        &root,
        &["check", "payloads", "--write-baseline", "base.json"],
    );
    assert!(
        written.stderr.contains("4 findings recorded"),
        "{}",
        written.stderr
    );
    for (cwd, paths) in vantage_points(&root) {
        let from = root.join(cwd);
        let relative_baseline = if cwd.is_empty() {
            "base.json"
        } else {
            "../base.json"
        };
        for base in [relative_baseline, baseline.as_str()] {
            let mut args = vec!["check"];
            args.extend(paths.iter().map(String::as_str));
            args.extend(["--baseline", base, "--format", "json"]);
            let matched = run(&from, &args);
            assert_eq!(
                (matched.code, rules(&matched.stdout).len()),
                (Some(0), 0),
                "from {cwd:?}, {args:?}: {}",
                matched.stderr
            );
            assert!(
                matched
                    .stderr
                    .contains("4 findings left out as in the baseline")
                    && !matched.stderr.contains("no longer occur"),
                "from {cwd:?}, {args:?}: {}",
                matched.stderr
            );
        }
    }
}

#[test]
fn findings_of_files_a_run_did_not_check_are_not_said_to_no_longer_occur() {
    let dir = corpus();
    run(dir.path(), &["check", ".", "--write-baseline", "base.json"]);
    // A run over one folder matches its findings and says nothing of the
    // other folder's, which still occur.
    let part = run(
        dir.path(),
        &["check", "payloads", "--baseline", "base.json"],
    );
    assert_eq!(part.code, Some(0), "{}", part.stderr);
    assert!(!part.stderr.contains("no longer occur"), "{}", part.stderr);
    // One finding fixed in the folder checked: counted, and the advice
    // says a rewrite must cover every file of the baseline.
    write(dir.path(), "payloads/tool.json", USER);
    let fixed = run(
        dir.path(),
        &["check", "payloads", "--baseline", "base.json"],
    );
    assert!(
        fixed.stderr.contains(
            "2 findings of the baseline no longer occur; \
             --write-baseline over all of its files rewrites it without them"
        ),
        "{}",
        fixed.stderr
    );
    // A file deleted since is counted as fixed even when not named.
    std::fs::remove_file(dir.path().join("captures/chat.jsonl")).expect("rm");
    let deleted = run(
        dir.path(),
        &["check", "payloads", "--baseline", "base.json"],
    );
    assert!(
        deleted.stderr.contains(
            "4 findings of the baseline no longer occur; --write-baseline rewrites it without them"
        ),
        "{}",
        deleted.stderr
    );
}
