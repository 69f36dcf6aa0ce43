//! `agui-lint.toml` and the command line mean the same: `include`,
//! `exclude` and `[per-file-ignores]`, and `--show-settings` says what a
//! check runs with and where each setting came from.

use std::path::Path;

use assert_cmd::cargo::cargo_bin_cmd;
use serde_json::Value;

const SNAKE_CASE: &str = r#"{"id":"m1","role":"tool","content":"18C","tool_call_id":"c1"}"#;

fn write(dir: &Path, name: &str, text: &str) {
    let path = dir.join(name);
    std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
    std::fs::write(path, text).expect("write");
}

/// The JSON report of `check` run in `dir`: each document's path with the
/// rules of its findings.
fn findings(dir: &Path, args: &[&str]) -> Vec<(String, Vec<String>)> {
    let output = cargo_bin_cmd!("agui-lint")
        .args(["check"])
        .args(args)
        .args(["--format", "json"])
        .current_dir(dir)
        .output()
        .expect("run agui-lint");
    let report: Value = serde_json::from_slice(&output.stdout).expect("JSON report");
    report["documents"]
        .as_array()
        .expect("documents")
        .iter()
        .map(|d| {
            let rules = d["diagnostics"]
                .as_array()
                .cloned()
                .unwrap_or_default()
                .iter()
                .map(|f| f["rule"].as_str().expect("rule").to_string())
                .collect();
            (d["path"].as_str().expect("path").to_string(), rules)
        })
        .collect()
}

fn corpus() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temp dir");
    write(dir.path(), "captures/new.jsonl", &format!("{SNAKE_CASE}\n"));
    write(
        dir.path(),
        "captures/old/run.jsonl",
        &format!("{SNAKE_CASE}\n"),
    );
    write(dir.path(), "legacy/tool.json", SNAKE_CASE);
    write(dir.path(), "notes/tool.txt", SNAKE_CASE);
    dir
}

#[test]
fn include_and_exclude_in_the_config_walk_as_the_flags_do() {
    let dir = corpus();
    let flags = findings(
        dir.path(),
        &[
            ".",
            "--include",
            "*.jsonl",
            "--include",
            "*.txt",
            "--exclude",
            "captures/old/**",
        ],
    );
    write(
        dir.path(),
        "agui-lint.toml",
        "include = [\"*.jsonl\", \"*.txt\"]\nexclude = [\"captures/old/**\"]\n",
    );
    let config = findings(dir.path(), &["."]);
    assert_eq!(config, flags);
    let paths: Vec<&str> = config.iter().map(|(path, _)| path.as_str()).collect();
    assert_eq!(paths, ["captures/new.jsonl", "notes/tool.txt"]);

    // --include replaces the configuration's; --exclude adds to its own.
    let replaced = findings(dir.path(), &[".", "--include", "*.json"]);
    let paths: Vec<&str> = replaced.iter().map(|(path, _)| path.as_str()).collect();
    assert_eq!(paths, ["legacy/tool.json"]);
    let added = findings(dir.path(), &[".", "--exclude", "notes"]);
    let paths: Vec<&str> = added.iter().map(|(path, _)| path.as_str()).collect();
    assert_eq!(paths, ["captures/new.jsonl"]);
}

#[test]
fn per_file_ignores_turn_rules_off_for_the_files_a_glob_matches() {
    let dir = corpus();
    write(
        dir.path(),
        "agui-lint.toml",
        "[per-file-ignores]\n\"legacy/**\" = [\"unknown-field\", \"missing-field\"]\n\
         \"run.jsonl\" = [\"unknown-field\"]\n",
    );
    let found = findings(dir.path(), &["."]);
    let both = vec!["missing-field".to_string(), "unknown-field".to_string()];
    assert_eq!(
        found,
        [
            ("captures/new.jsonl".to_string(), both),
            (
                "captures/old/run.jsonl".to_string(),
                vec!["missing-field".to_string()]
            ),
            ("legacy/tool.json".to_string(), vec![]),
        ]
    );
    // A rule name that does not exist is refused, with the closest.
    write(
        dir.path(),
        "agui-lint.toml",
        "[per-file-ignores]\n\"legacy/**\" = [\"unknown-feild\"]\n",
    );
    let output = cargo_bin_cmd!("agui-lint")
        .args(["check", "."])
        .current_dir(dir.path())
        .output()
        .expect("run");
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("did you mean 'unknown-field'"), "{stderr}");
}

#[test]
fn show_settings_prints_each_setting_with_where_it_came_from() {
    let dir = corpus();
    write(
        dir.path(),
        "agui-lint.toml",
        "protocol = \"1.0\"\nignore = [\"empty-id\"]\nexclude = [\"old\"]\n\
         [severity]\nunknown-field = \"error\"\n[limits]\nmax-findings = 50\n\
         [per-file-ignores]\n\"legacy/**\" = [\"missing-field\"]\n",
    );
    let output = cargo_bin_cmd!("agui-lint")
        .args([
            "check",
            "--show-settings",
            "--exclude",
            "tmp",
            "--max-depth",
            "64",
        ])
        .current_dir(dir.path())
        .output()
        .expect("run");
    assert_eq!(output.status.code(), Some(0));
    let shown = String::from_utf8_lossy(&output.stdout);
    let origin = |line_start: &str| -> String {
        let line = shown
            .lines()
            .find(|l| l.starts_with(line_start))
            .unwrap_or_else(|| panic!("no line {line_start:?} in\n{shown}"));
        line.split_once(" # ")
            .expect("an origin")
            .1
            .trim()
            .to_string()
    };
    assert_eq!(origin("protocol = \"1.0\""), "agui-lint.toml");
    assert_eq!(origin("ignore = [\"empty-id\"]"), "agui-lint.toml");
    assert_eq!(
        origin("exclude = [\"old\", \"tmp\"]"),
        "agui-lint.toml, then --exclude"
    );
    assert_eq!(origin("unknown-field = \"error\""), "agui-lint.toml");
    assert_eq!(origin("max-findings = 50"), "agui-lint.toml");
    assert_eq!(origin("max-depth = 64"), "--max-depth");
    assert_eq!(origin("max-document-bytes = 67108864"), "default");
    assert_eq!(origin("mask-values = false"), "default");
    assert_eq!(
        origin("\"legacy/**\" = [\"missing-field\"]"),
        "agui-lint.toml"
    );
    // What it prints is itself a configuration file.
    let parsed: toml::Table = shown.parse().expect("TOML");
    assert_eq!(parsed["protocol"].as_str(), Some("1.0"));
}

#[test]
fn per_file_ignore_globs_are_relative_to_the_config_file_from_any_working_directory() {
    let dir = corpus();
    write(
        dir.path(),
        "agui-lint.toml",
        "[per-file-ignores]\n\"captures/old/**\" = [\"unknown-field\"]\n",
    );
    let root = dir.path().canonicalize().expect("root");
    let absolute = root.join("captures").display().to_string();
    let ways = [
        ("", "captures"),
        ("", "./captures"),
        ("", absolute.as_str()),
        ("captures", "."),
        ("captures/old", ".."),
        ("captures/old", absolute.as_str()),
        ("legacy", "../captures"),
    ];
    for (cwd, path) in ways {
        let found = findings(&root.join(cwd), &[path]);
        let rules: Vec<&Vec<String>> = found.iter().map(|(_, rules)| rules).collect();
        assert_eq!(
            rules,
            [
                &vec!["missing-field".to_string(), "unknown-field".to_string()],
                &vec!["missing-field".to_string()],
            ],
            "from {cwd:?} checking {path:?}: {found:?}"
        );
    }
}
