//! The SARIF output checked structurally over the whole fixture corpus: it
//! validates against the SARIF 2.1.0 schema, every result's rule is in
//! `tool.driver.rules` and only those rules are, levels map from
//! severities, every region is a real 1-based line and column of a real
//! file, and a log's size follows its findings.

use std::path::PathBuf;

use assert_cmd::cargo::cargo_bin_cmd;
use serde_json::Value;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn run(format: &str) -> Value {
    let output = cargo_bin_cmd!("agui-lint")
        .args(["check", "fixtures/", "--format", format])
        .current_dir(root())
        .output()
        .expect("run agui-lint");
    assert_eq!(output.status.code(), Some(1), "the corpus has errors");
    serde_json::from_slice(&output.stdout).expect("JSON output")
}

fn level_of(severity: &str) -> &'static str {
    match severity {
        "error" => "error",
        "warning" => "warning",
        "info" => "note",
        other => panic!("unknown severity {other}"),
    }
}

#[test]
fn sarif_matches_the_sarif_2_1_0_schema() {
    let log = run("sarif");
    let schema_text =
        std::fs::read_to_string(root().join("tests/data/sarif-schema-2.1.0.json")).expect("schema");
    // The published schema's `language` patterns have a stray `]` that the
    // meta-schema's `format: regex` rejects; use the pattern they mean.
    let stray = r#""^[a-zA-Z]{2}|^[a-zA-Z]{2}-[a-zA-Z]{2}]?$""#;
    assert!(schema_text.contains(stray));
    let schema_text = schema_text.replace(stray, r#""^[a-zA-Z]{2}(-[a-zA-Z]{2})?$""#);
    let schema: Value = serde_json::from_str(&schema_text).expect("schema JSON");
    let validator = jsonschema::draft7::options()
        .offline()
        .build(&schema)
        .expect("SARIF schema compiles");
    let errors: Vec<String> = validator
        .iter_errors(&log)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .take(10)
        .collect();
    assert!(errors.is_empty(), "{errors:#?}");
    // The schema has teeth: a level SARIF does not define is refused.
    let mut broken = log.clone();
    broken["runs"][0]["results"][0]["level"] = Value::from("fatal");
    assert!(!validator.is_valid(&broken));
}

#[test]
fn every_referenced_rule_is_described_once_and_every_result_references_one() {
    let log = run("sarif");
    assert_eq!(log["version"], "2.1.0");
    let run0 = &log["runs"][0];
    assert_eq!(run0["columnKind"], "unicodeCodePoints");
    let rules = run0["tool"]["driver"]["rules"].as_array().expect("rules");
    let results = run0["results"].as_array().expect("results");
    let referenced: std::collections::BTreeSet<&str> = results
        .iter()
        .map(|r| r["ruleId"].as_str().expect("ruleId"))
        .collect();
    let described: Vec<&str> = rules
        .iter()
        .map(|d| d["id"].as_str().expect("id"))
        .collect();
    assert_eq!(
        described
            .iter()
            .copied()
            .collect::<std::collections::BTreeSet<_>>(),
        referenced,
        "the rules described are the rules referenced"
    );
    assert_eq!(described.len(), referenced.len(), "each described once");
    for descriptor in rules {
        let rule = agui_lint::rules::all()
            .iter()
            .find(|r| r.name == descriptor["id"])
            .expect("a registered rule");
        assert_eq!(descriptor["shortDescription"]["text"], rule.summary);
        assert!(descriptor["fullDescription"]["text"]
            .as_str()
            .is_some_and(|t| !t.is_empty()));
        assert_eq!(
            descriptor["helpUri"],
            agui_lint::rules::docs_url(rule.name).as_str()
        );
        assert!(descriptor.get("help").is_none(), "no full docs inline");
        assert_eq!(
            descriptor["defaultConfiguration"]["level"],
            level_of(rule.severity.as_str())
        );
    }

    // The JSON report of the same run lists the same findings in the same
    // order: each result's rule and level must come from its diagnostic.
    let report = run("json");
    // JSON gives a JSON Lines record's positions within its line (README, "Output formats");
    // SARIF gives file lines.
    let diagnostics: Vec<(&Value, u64)> = report["documents"]
        .as_array()
        .expect("documents")
        .iter()
        .flat_map(|d| {
            let path = d["path"].as_str().expect("path");
            let offset = if path.ends_with(".jsonl") {
                d["record"].as_u64().map_or(0, |r| r - 1)
            } else {
                0
            };
            d["diagnostics"]
                .as_array()
                .expect("diagnostics")
                .iter()
                .map(move |diagnostic| (diagnostic, offset))
        })
        .collect();
    assert_eq!(results.len(), diagnostics.len());
    assert!(!results.is_empty());
    for (result, (diagnostic, offset)) in results.iter().zip(diagnostics) {
        let index = result["ruleIndex"].as_u64().expect("ruleIndex") as usize;
        assert_eq!(rules[index]["id"], result["ruleId"]);
        assert_eq!(result["ruleId"], diagnostic["rule"]);
        let severity = diagnostic["severity"].as_str().expect("severity");
        assert_eq!(result["level"], level_of(severity));
        let region = &result["locations"][0]["physicalLocation"]["region"];
        let line = diagnostic["line"].as_u64().expect("line") + offset;
        assert_eq!(region["startLine"], line);
        assert_eq!(region["startColumn"], diagnostic["column"]);
    }
}

#[test]
fn every_region_is_a_real_line_and_column_of_a_real_file() {
    let log = run("sarif");
    let results = log["runs"][0]["results"].as_array().expect("results");
    let mut checked = 0;
    for result in results {
        let locations = result["locations"]
            .as_array()
            .into_iter()
            .flatten()
            .chain(result["relatedLocations"].as_array().into_iter().flatten());
        for location in locations {
            let physical = &location["physicalLocation"];
            let artifact = &physical["artifactLocation"];
            assert_eq!(artifact["uriBaseId"], "%SRCROOT%");
            let uri = artifact["uri"].as_str().expect("uri");
            let bytes = std::fs::read(root().join(uri))
                .unwrap_or_else(|e| panic!("{uri} is not a readable file: {e}"));
            // Fixtures in other encodings are read as editors show them.
            let text = String::from_utf8_lossy(&bytes);
            let line = physical["region"]["startLine"].as_u64().expect("startLine") as usize;
            let column = physical["region"]["startColumn"]
                .as_u64()
                .expect("startColumn") as usize;
            assert!(line >= 1 && column >= 1, "{uri}: regions are 1-based");
            let lines: Vec<&str> = text.split('\n').collect();
            assert!(line <= lines.len(), "{uri}: line {line} past the end");
            let width = lines[line - 1].trim_end_matches('\r').chars().count();
            assert!(
                column <= width + 1,
                "{uri}:{line}: column {column} past the end ({width} characters)"
            );
            checked += 1;
        }
    }
    assert!(checked >= results.len());
}

#[test]
fn a_log_of_two_findings_is_small() {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(
        dir.path().join("tool.json"),
        r#"{"id":"m1","role":"tool","content":"18C","tool_call_id":"c1"}"#,
    )
    .expect("write");
    let output = cargo_bin_cmd!("agui-lint")
        .args(["check", "tool.json", "--format", "sarif"])
        .current_dir(dir.path())
        .output()
        .expect("run agui-lint");
    let log: Value = serde_json::from_slice(&output.stdout).expect("SARIF");
    assert_eq!(
        log["runs"][0]["results"].as_array().map(Vec::len),
        Some(2),
        "{log}"
    );
    assert_eq!(
        log["runs"][0]["tool"]["driver"]["rules"]
            .as_array()
            .map(Vec::len),
        Some(2)
    );
    assert!(
        output.stdout.len() < 50_000,
        "{} bytes for 2 findings",
        output.stdout.len()
    );
}
