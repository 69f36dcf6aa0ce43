//! Agreement with upstream's normative AG-UI schemas (vendored under
//! `tests/upstream/`, see its README).
//!
//! - 1.1: agui-lint's generated schemas accept and reject exactly what
//!   upstream's `schema.json` does, over one document per name of
//!   upstream's fixture manifest and every event of upstream's conformance
//!   streams. The validator agrees too: an upstream-valid document gets no
//!   shape finding, an upstream-invalid one an error or a warning of a
//!   shape rule (the deliberate difference: receivers strip an unknown key,
//!   an unrecognised value or a retired shape with a warning, so it is not
//!   an error here; counted as a rejection).
//! - 1.0: the same field sets, required sets and enums as the JSON Schemas
//!   exported from the zod validators of the 1.0.0 TypeScript SDK.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

use agui_lint::{Kind, Protocol, ProtocolChoice, Settings, Severity, Validator};
use serde_json::{json, Value};

fn upstream_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/upstream")
}

fn read_json(path: &Path) -> Value {
    let text = fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Upstream's 1.1 schema with its root pointed at one of its definitions.
struct Upstream {
    schema: Value,
}

impl Upstream {
    fn load() -> Self {
        Upstream {
            schema: read_json(&upstream_dir().join("1.1/schema.json")),
        }
    }

    fn accepts(&self, definition: &str, document: &Value) -> bool {
        let mut schema = self.schema.clone();
        assert!(
            schema["$defs"].get(definition).is_some(),
            "upstream has no $defs/{definition}"
        );
        schema["$ref"] = json!(format!("#/$defs/{definition}"));
        jsonschema::options()
            .with_draft(jsonschema::Draft::Draft202012)
            .build(&schema)
            .unwrap_or_else(|e| panic!("upstream $defs/{definition}: {e}"))
            .is_valid(document)
    }
}

/// agui-lint's committed schema of `kind` for a version.
fn ours(protocol: Protocol, kind: Kind) -> jsonschema::Validator {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("schemas")
        .join(protocol.as_str())
        .join(kind.schema_file_name());
    jsonschema::options()
        .with_draft(jsonschema::Draft::Draft202012)
        .build(&read_json(&path))
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// How a document of upstream definition `definition` is checked as one of
/// agui-lint's kinds: the kind, the document (wrapped in the smallest
/// document of that kind when the definition is not a kind of its own),
/// and the upstream definition the wrapped document is judged against.
fn as_kind(definition: &str, document: &Value) -> (Kind, Value, &'static str) {
    let doc = document.clone();
    match definition {
        "RunAgentInput" => (Kind::RunAgentInput, doc, "RunAgentInput"),
        "Tool" => (Kind::Tool, doc, "Tool"),
        "Interrupt" => (Kind::Interrupt, doc, "Interrupt"),
        "ResumeEntry" => (Kind::ResumeEntry, doc, "ResumeEntry"),
        "AgentCapabilities" => (Kind::Capabilities, doc, "AgentCapabilities"),
        "ExecutionCapabilities" => (
            Kind::Capabilities,
            json!({"execution": doc}),
            "AgentCapabilities",
        ),
        "MultiAgentCapabilities" => (
            Kind::Capabilities,
            json!({"multiAgent": doc}),
            "AgentCapabilities",
        ),
        "SubagentInfo" => (
            Kind::Capabilities,
            json!({"multiAgent": {"subagents": [doc]}}),
            "AgentCapabilities",
        ),
        "FileSource" => (
            Kind::InputContent,
            json!({"type": "image", "source": doc}),
            "ContentPart",
        ),
        name if name.ends_with("Message") => (Kind::Message, doc, "Message"),
        name if name.ends_with("Event") => (Kind::Event, doc, "Event"),
        other => panic!("no kind for upstream definition {other}"),
    }
}

fn validator(protocol: Protocol) -> Validator {
    Validator::new()
        .expect("validator")
        .with_settings(Settings::default().protocol(ProtocolChoice::Version(protocol)))
}

/// Whether agui-lint's validator rejects the shape of `document` as
/// `kind`: a finding of a shape rule, an error or a warning. A warning
/// is what a 1.x receiver strips (an unknown key, an unrecognised value,
/// a retired shape), which upstream's schema rejects as not of this
/// version. (The semantic rules judge more than shape: a tool whose
/// `parameters` is a string fits both schemas and is still not a JSON
/// Schema.)
fn validator_rejects(validator: &Validator, kind: Kind, document: &Value) -> (bool, String) {
    let report = validator.validate(kind, document.to_string().as_bytes());
    let rejected = report
        .diagnostics()
        .iter()
        .any(|d| SHAPE_RULES.contains(&d.rule.as_str()) && d.severity >= Severity::Warning);
    let findings = report
        .diagnostics()
        .iter()
        .map(|d| format!("{}[{}] {} {}", d.severity, d.rule, d.pointer, d.message))
        .collect::<Vec<_>>()
        .join("; ");
    (rejected, findings)
}

/// The rules that judge a document's shape: a valid document gets none of
/// them at any severity.
const SHAPE_RULES: [&str; 7] = [
    "retired-shape",
    "missing-field",
    "wrong-type",
    "invalid-value",
    "unknown-field",
    "null-for-optional",
    "schema-violation",
];

#[test]
fn generated_1_1_schemas_agree_with_upstream_on_every_manifest_fixture() {
    let upstream = Upstream::load();
    let validator = validator(Protocol::V1_1);
    let manifest = fs::read_to_string(upstream_dir().join("1.1/fixtures-MANIFEST.txt"))
        .expect("the vendored manifest");
    let names: Vec<&str> = manifest
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty() && !l.ends_with(".expect.json"))
        .collect();
    assert!(names.len() >= 200, "only {} manifest names", names.len());
    let mut ours_by_kind: BTreeMap<Kind, jsonschema::Validator> = BTreeMap::new();
    let mut disagreements = Vec::new();
    for name in &names {
        let path = upstream_dir().join("1.1/fixtures").join(name);
        let document = read_json(&path);
        let mut parts = name.split('/');
        let (definition, folder) = (parts.next().expect("type"), parts.next().expect("folder"));
        let expected_valid = folder == "valid";
        if upstream.accepts(definition, &document) != expected_valid {
            disagreements.push(format!("{name}: upstream's verdict is not its folder's"));
            continue;
        }
        let (kind, wrapped, wrapper) = as_kind(definition, &document);
        let theirs = upstream.accepts(wrapper, &wrapped);
        let schema = ours_by_kind
            .entry(kind)
            .or_insert_with(|| ours(Protocol::V1_1, kind));
        let mine = schema.is_valid(&wrapped);
        if theirs != mine || theirs != expected_valid {
            disagreements.push(format!(
                "{name}: upstream {} it, agui-lint's {kind} schema {} it",
                verdict(theirs),
                verdict(mine)
            ));
        }
        let (rejected, findings) = validator_rejects(&validator, kind, &wrapped);
        if rejected == expected_valid {
            disagreements.push(format!(
                "{name}: the validator {} it: {findings}",
                if rejected { "rejects" } else { "accepts" }
            ));
        }
        if expected_valid {
            let report = validator.validate(kind, wrapped.to_string().as_bytes());
            for d in report.diagnostics() {
                if SHAPE_RULES.contains(&d.rule.as_str()) {
                    disagreements.push(format!("{name}: valid, yet {}: {}", d.rule, d.message));
                }
            }
        }
    }
    assert!(
        disagreements.is_empty(),
        "{} of {} fixtures disagree:\n{}",
        disagreements.len(),
        names.len(),
        disagreements.join("\n")
    );
}

fn verdict(accepts: bool) -> &'static str {
    if accepts {
        "accepts"
    } else {
        "rejects"
    }
}

#[test]
fn every_manifest_name_has_its_document() {
    let manifest = fs::read_to_string(upstream_dir().join("1.1/fixtures-MANIFEST.txt"))
        .expect("the vendored manifest");
    let named: BTreeSet<String> = manifest
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty() && !l.ends_with(".expect.json"))
        .map(str::to_string)
        .collect();
    let root = upstream_dir().join("1.1/fixtures");
    let written: BTreeSet<String> = walkdir::WalkDir::new(&root)
        .into_iter()
        .map(|e| e.expect("walk"))
        .filter(|e| e.path().extension().is_some_and(|x| x == "json"))
        .map(|e| {
            e.path()
                .strip_prefix(&root)
                .expect("under root")
                .to_string_lossy()
                .replace('\\', "/")
        })
        .collect();
    assert_eq!(named, written);
}

#[test]
fn generated_1_1_event_schema_agrees_with_upstream_on_every_stream_event() {
    let upstream = Upstream::load();
    let ours = ours(Protocol::V1_1, Kind::Event);
    let mut events = 0;
    let mut disagreements = Vec::new();
    let streams = upstream_dir().join("streams");
    for entry in fs::read_dir(&streams).expect("the vendored streams") {
        let path = entry.expect("entry").path();
        if path.extension().is_none_or(|x| x != "json") {
            continue;
        }
        let fixture = read_json(&path);
        for (i, event) in fixture["stream"]
            .as_array()
            .expect("stream")
            .iter()
            .enumerate()
        {
            events += 1;
            let (theirs, mine) = (upstream.accepts("Event", event), ours.is_valid(event));
            if theirs != mine {
                disagreements.push(format!(
                    "{} event {i}: upstream {}, agui-lint {}: {event}",
                    path.display(),
                    verdict(theirs),
                    verdict(mine)
                ));
            }
        }
    }
    assert!(events >= 50, "only {events} events");
    assert!(disagreements.is_empty(), "{}", disagreements.join("\n"));
}

/// Every definition of agui-lint's 1.0 schemas by name: the `$defs` of
/// every kind's schema and each kind's root under its title.
fn our_1_0_definitions() -> BTreeMap<String, Value> {
    let mut found = BTreeMap::new();
    for kind in Kind::all_in(Protocol::V1_0) {
        let schema = agui_lint::unstable::schema::generate(Protocol::V1_0, kind).expect("1.0 kind");
        if let Some(defs) = schema["$defs"].as_object() {
            for (name, def) in defs {
                found.insert(name.clone(), def.clone());
            }
        }
        if let Some(title) = schema["title"].as_str() {
            found.entry(title.to_string()).or_insert(schema.clone());
        }
    }
    // Each event is a branch of the `Event` union, named by its `type`.
    let event = agui_lint::unstable::schema::generate(Protocol::V1_0, Kind::Event).expect("event");
    for branch in event["oneOf"].as_array().expect("events") {
        let Some(tag) = branch["properties"]["type"]["const"].as_str() else {
            continue;
        };
        found.insert(event_definition_name(tag), branch.clone());
    }
    let message = &found["Message"].clone();
    for branch in message["oneOf"].as_array().expect("messages") {
        let role = branch["properties"]["role"]["const"]
            .as_str()
            .expect("role");
        let mut name = role[..1].to_uppercase();
        name.push_str(&role[1..]);
        found.insert(format!("{name}Message"), branch.clone());
    }
    found
}

/// `TEXT_MESSAGE_START` → `TextMessageStartEvent`.
fn event_definition_name(tag: &str) -> String {
    let mut name: String = tag
        .split('_')
        .map(|word| {
            let lower = word.to_lowercase();
            let mut chars = lower.chars();
            chars
                .next()
                .map(|c| c.to_uppercase().chain(chars).collect::<String>())
                .unwrap_or_default()
        })
        .collect();
    name.push_str("Event");
    name
}

fn key_set(schema: &Value, key: &str) -> BTreeSet<String> {
    match &schema[key] {
        Value::Object(map) => map.keys().cloned().collect(),
        Value::Array(items) => items
            .iter()
            .filter_map(|v| v.as_str().map(str::to_string))
            .collect(),
        _ => BTreeSet::new(),
    }
}

/// The values a string schema allows, through a `$ref` into `defs`.
fn allowed_values(schema: &Value, defs: &BTreeMap<String, Value>) -> BTreeSet<String> {
    if let Some(reference) = schema["$ref"].as_str() {
        let name = reference.rsplit('/').next().unwrap_or_default();
        return defs
            .get(name)
            .map(|d| allowed_values(d, defs))
            .unwrap_or_default();
    }
    let mut values: BTreeSet<String> = schema["enum"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|v| v.as_str().map(str::to_string))
        .collect();
    values.extend(schema["const"].as_str().map(str::to_string));
    for branch in schema["oneOf"].as_array().into_iter().flatten() {
        values.extend(allowed_values(branch, defs));
    }
    values
}

#[test]
fn generated_1_0_schemas_have_the_sdks_fields_required_keys_and_enums() {
    let zod = read_json(&upstream_dir().join("1.0/sdk-zod-1.0.0.schemas.json"));
    let zod = zod["schemas"].as_object().expect("schemas");
    let ours = our_1_0_definitions();
    let mut compared = 0;
    let mut problems = Vec::new();
    for (name, theirs) in zod {
        let Some(mine) = ours.get(name) else {
            continue;
        };
        if theirs["type"] == "object" {
            compared += 1;
            for key in ["properties", "required"] {
                let (a, b) = (key_set(theirs, key), key_set(mine, key));
                if a != b {
                    problems.push(format!("{name} {key}: SDK {a:?}, agui-lint {b:?}"));
                }
            }
            let Some(properties) = theirs["properties"].as_object() else {
                continue;
            };
            for (property, their_property) in properties {
                let their_values = allowed_values(their_property, &BTreeMap::new());
                if their_values.is_empty() {
                    continue;
                }
                let my_values = allowed_values(&mine["properties"][property], &ours);
                if their_values != my_values {
                    problems.push(format!(
                        "{name}.{property}: SDK allows {their_values:?}, agui-lint {my_values:?}"
                    ));
                }
            }
        } else if theirs["enum"].is_array() {
            compared += 1;
            let (a, b) = (
                allowed_values(theirs, &BTreeMap::new()),
                allowed_values(mine, &ours),
            );
            if a != b {
                problems.push(format!("{name}: SDK {a:?}, agui-lint {b:?}"));
            }
        }
    }
    // The event types, which agui-lint's schemas hold as the union's tags.
    let their_types = allowed_values(&zod["EventType"], &BTreeMap::new());
    let my_types: BTreeSet<String> = agui_lint::types::v1::EVENT_TYPES
        .iter()
        .map(|t| t.to_string())
        .collect();
    if their_types != my_types {
        problems.push(format!(
            "EventType: SDK {their_types:?}, agui-lint {my_types:?}"
        ));
    }
    assert!(compared >= 60, "only {compared} definitions compared");
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
