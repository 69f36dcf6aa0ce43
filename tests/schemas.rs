//! The committed schemas under `schemas/` are exactly what the types
//! generate, and each is a valid draft 2020-12 schema.
//!
//! To rewrite them after changing the types:
//! `cargo run -- schema --out schemas/` (or run this test with
//! `AGUI_LINT_WRITE_SCHEMAS=1`).

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

use agui_lint::schema::{generate, generate_all, render, write_files};
use agui_lint::Kind;

fn schemas_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("schemas")
}

#[test]
fn committed_schemas_match_the_types() {
    let dir = schemas_dir();
    if std::env::var_os("AGUI_LINT_WRITE_SCHEMAS").is_some() {
        write_files(&dir, &Kind::ALL).expect("write schemas");
    }
    let mut problems = Vec::new();
    for (kind, schema) in generate_all() {
        let path = dir.join(kind.schema_file_name());
        let expected = render(&schema);
        match fs::read_to_string(&path) {
            Err(_) => problems.push(format!("missing: {}", path.display())),
            Ok(actual) if actual != expected => {
                let diff = similar::TextDiff::from_lines(&actual, &expected)
                    .unified_diff()
                    .context_radius(2)
                    .header("committed", "generated")
                    .to_string();
                problems.push(format!("stale: {}\n{diff}", path.display()));
            }
            Ok(_) => {}
        }
    }
    let expected_names: BTreeSet<String> = Kind::ALL.iter().map(|k| k.schema_file_name()).collect();
    for entry in fs::read_dir(&dir).expect("schemas/ exists") {
        let name = entry
            .expect("entry")
            .file_name()
            .to_string_lossy()
            .into_owned();
        if !expected_names.contains(&name) {
            problems.push(format!("extra: {}", dir.join(name).display()));
        }
    }
    assert!(
        problems.is_empty(),
        "schemas/ is out of date with src/types:\n{}\nRun `cargo run -- schema --out schemas/` and commit the result.",
        problems.join("\n")
    );
}

#[test]
fn committed_schemas_are_valid_draft_2020_12() {
    for kind in Kind::ALL {
        let path = schemas_dir().join(kind.schema_file_name());
        let text = fs::read_to_string(&path).expect("schema file");
        let schema: serde_json::Value = serde_json::from_str(&text).expect("schema is JSON");
        assert_eq!(
            schema["$schema"], "https://json-schema.org/draft/2020-12/schema",
            "{kind} declares draft 2020-12"
        );
        if let Err(error) = jsonschema::draft202012::meta::validate(&schema) {
            panic!("{} fails meta-validation: {error}", path.display());
        }
    }
}

#[test]
fn unions_carry_their_discriminator() {
    let message = generate(Kind::Message);
    assert_eq!(message["discriminator"]["propertyName"], "role");
    for branch in message["oneOf"].as_array().expect("oneOf") {
        assert!(
            branch["properties"]["role"]["const"].is_string(),
            "{branch}"
        );
    }
    let content = generate(Kind::InputContent);
    assert_eq!(content["discriminator"]["propertyName"], "type");
    let source = &content["$defs"]["InputContentSource"];
    assert_eq!(source["discriminator"]["propertyName"], "type");
}

#[test]
fn optional_keys_refuse_null_and_unknown_slots_admit_it() {
    let run = generate(Kind::RunAgentInput);
    assert_eq!(run["properties"]["parentRunId"]["type"], "string");
    assert!(run["properties"]["state"].get("type").is_none());
    assert!(run["properties"]["forwardedProps"].get("type").is_none());
    let required: Vec<&str> = run["required"]
        .as_array()
        .expect("required")
        .iter()
        .filter_map(|v| v.as_str())
        .collect();
    assert_eq!(
        required,
        [
            "threadId",
            "runId",
            "state",
            "messages",
            "tools",
            "context",
            "forwardedProps"
        ]
    );
    let content = generate(Kind::InputContent);
    let image = &content["oneOf"][1];
    assert!(
        image["properties"]["metadata"].get("type").is_none(),
        "{image}"
    );
    assert_eq!(run["additionalProperties"], false);
}
