//! The committed schemas under `schemas/<version>/` are exactly what the
//! types generate, for every protocol version, and each is a valid draft
//! 2020-12 schema.
//!
//! To rewrite them after changing the types:
//! `cargo run -- schema --out schemas/` (or run this test with
//! `AGUI_LINT_WRITE_SCHEMAS=1`).

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

use agui_lint::unstable::schema::{folder, generate_all, render, write_files};
use agui_lint::{Kind, Protocol};

fn schemas_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("schemas")
}

/// The generated schema of `kind` in `protocol`, which must exist.
fn generate(protocol: Protocol, kind: Kind) -> serde_json::Value {
    agui_lint::unstable::schema::generate(protocol, kind).expect("the version has the kind")
}

#[test]
fn committed_schemas_match_the_types() {
    let mut problems = Vec::new();
    for protocol in Protocol::ALL {
        problems.extend(stale_schemas(protocol));
    }
    let folders: BTreeSet<String> = Protocol::ALL
        .iter()
        .map(|p| folder(*p).to_string())
        .collect();
    for entry in fs::read_dir(schemas_dir()).expect("schemas/ exists") {
        let name = entry
            .expect("entry")
            .file_name()
            .to_string_lossy()
            .into_owned();
        if !folders.contains(&name) {
            problems.push(format!("extra: {}", schemas_dir().join(name).display()));
        }
    }
    assert!(
        problems.is_empty(),
        "schemas/ is out of date with src/types:\n{}\nRun `cargo run -- schema --out schemas/` and commit the result.",
        problems.join("\n")
    );
}

fn stale_schemas(protocol: Protocol) -> Vec<String> {
    let dir = schemas_dir().join(folder(protocol));
    if std::env::var_os("AGUI_LINT_WRITE_SCHEMAS").is_some() {
        write_files(protocol, &dir, &Kind::ALL).expect("write schemas");
    }
    let mut problems = Vec::new();
    for (kind, schema) in generate_all(protocol) {
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
    let expected_names: BTreeSet<String> = Kind::all_in(protocol)
        .map(|k| k.schema_file_name())
        .collect();
    match fs::read_dir(&dir) {
        Err(_) => problems.push(format!("missing: {}", dir.display())),
        Ok(entries) => {
            for entry in entries {
                let name = entry
                    .expect("entry")
                    .file_name()
                    .to_string_lossy()
                    .into_owned();
                if !expected_names.contains(&name) {
                    problems.push(format!("extra: {}", dir.join(name).display()));
                }
            }
        }
    }
    problems
}

#[test]
fn every_version_has_its_kinds() {
    assert_eq!(generate_all(Protocol::V0).len(), 11);
    for protocol in [Protocol::V1_0, Protocol::V1_1] {
        let kinds: Vec<Kind> = generate_all(protocol).into_iter().map(|(k, _)| k).collect();
        assert_eq!(kinds, Kind::ALL, "{protocol}");
    }
    assert!(agui_lint::unstable::schema::generate(Protocol::V0, Kind::Interrupt).is_none());
}

#[test]
fn encrypted_value_type_is_1_1_only() {
    for kind in [Kind::Message, Kind::ToolCall, Kind::Event] {
        let v1_1 = agui_lint::unstable::schema::render(&generate(Protocol::V1_1, kind));
        let v1_0 = agui_lint::unstable::schema::render(&generate(Protocol::V1_0, kind));
        assert!(v1_1.contains("\"encryptedValueType\""), "{kind}");
        assert!(!v1_0.contains("encryptedValueType"), "{kind}");
        assert!(
            !v1_1.contains("x-agui-since"),
            "{kind}: the mark is for the generator"
        );
    }
}

#[test]
fn committed_schemas_are_valid_draft_2020_12() {
    for protocol in Protocol::ALL {
        for kind in Kind::all_in(protocol) {
            meta_validate(
                &schemas_dir()
                    .join(folder(protocol))
                    .join(kind.schema_file_name()),
            );
        }
    }
}

fn meta_validate(path: &Path) {
    let text = fs::read_to_string(path).expect("schema file");
    let schema: serde_json::Value = serde_json::from_str(&text).expect("schema is JSON");
    assert_eq!(
        schema["$schema"],
        "https://json-schema.org/draft/2020-12/schema",
        "{} declares draft 2020-12",
        path.display()
    );
    if let Err(error) = jsonschema::draft202012::meta::validate(&schema) {
        panic!("{} fails meta-validation: {error}", path.display());
    }
}

#[test]
fn unions_carry_their_discriminator() {
    let message = generate(Protocol::V0, Kind::Message);
    assert_eq!(message["discriminator"]["propertyName"], "role");
    for branch in message["oneOf"].as_array().expect("oneOf") {
        assert!(
            branch["properties"]["role"]["const"].is_string(),
            "{branch}"
        );
    }
    let content = generate(Protocol::V0, Kind::InputContent);
    assert_eq!(content["discriminator"]["propertyName"], "type");
    let source = &content["$defs"]["InputContentSource"];
    assert_eq!(source["discriminator"]["propertyName"], "type");
    let content = generate(Protocol::V1_1, Kind::InputContent);
    assert_eq!(content["discriminator"]["propertyName"], "type");
    let source = &content["$defs"]["PartSource"];
    assert_eq!(source["discriminator"]["propertyName"], "type");
    assert_eq!(source["oneOf"].as_array().map(Vec::len), Some(3));
}

#[test]
fn optional_keys_refuse_null_and_unknown_slots_admit_it() {
    let run = generate(Protocol::V0, Kind::RunAgentInput);
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
    let content = generate(Protocol::V0, Kind::InputContent);
    let image = &content["oneOf"][1];
    assert!(
        image["properties"]["metadata"].get("type").is_none(),
        "{image}"
    );
    assert_eq!(run["additionalProperties"], false);
}

#[test]
fn in_1x_only_three_keys_are_required_and_any_slots_refuse_null() {
    let run = generate(Protocol::V1_1, Kind::RunAgentInput);
    assert_eq!(
        run["required"],
        serde_json::json!(["threadId", "runId", "messages"])
    );
    for slot in ["state", "forwardedProps"] {
        assert_eq!(
            run["properties"][slot]["not"],
            serde_json::json!({"type": "null"}),
            "{slot}"
        );
    }
    let tool = generate(Protocol::V1_1, Kind::Tool);
    assert_eq!(tool["required"], serde_json::json!(["name", "description"]));
}
