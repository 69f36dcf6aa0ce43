//! Generates each kind's JSON Schema (draft 2020-12) from the Rust types,
//! for each protocol version: pre-1.0 from [`crate::types::v0`], 1.0 and
//! 1.1 from [`crate::types::v1`] (1.0 less the fields marked
//! `x-agui-since: "1.1"`).

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use schemars::generate::SchemaSettings;
use schemars::transform::{transform_subschemas, Transform};
use schemars::{JsonSchema, Schema};
use serde_json::Value;

use crate::types::{v0, v1};
use crate::{Kind, Protocol};

/// The schema annotation that marks a field added after 1.0.
const SINCE: &str = "x-agui-since";

/// Generates the schema of `kind` in `protocol` as a JSON value, or `None`
/// when that version does not define the kind.
pub fn generate(protocol: Protocol, kind: Kind) -> Option<Value> {
    if !kind.is_in(protocol) {
        return None;
    }
    let schema = match protocol {
        Protocol::V0 => generate_v0(kind)?,
        Protocol::V1_0 | Protocol::V1_1 => generate_v1(protocol, kind),
    };
    let mut value = schema.to_value();
    if let Value::Object(map) = &mut value {
        // Array kinds get schemars' generic title ("Array_of_Message"); give
        // every schema a title and description that say what the file is.
        map.insert("title".into(), Value::String(kind.type_name().into()));
        let description = match kind {
            Kind::Messages => Some("An array of AG-UI messages."),
            Kind::Tools => Some("An array of AG-UI tools."),
            Kind::Events => Some("An array of AG-UI events, in the order they were sent."),
            _ => None,
        };
        if let Some(description) = description {
            map.insert("description".into(), Value::String(description.into()));
        }
    }
    canonical_order(&mut value);
    Some(value)
}

fn generate_v0(kind: Kind) -> Option<Schema> {
    Some(match kind {
        Kind::RunAgentInput => schema_for::<v0::RunAgentInput>(Protocol::V0),
        Kind::Message => schema_for::<v0::Message>(Protocol::V0),
        Kind::Messages => schema_for::<Vec<v0::Message>>(Protocol::V0),
        Kind::Tool => schema_for::<v0::Tool>(Protocol::V0),
        Kind::Tools => schema_for::<Vec<v0::Tool>>(Protocol::V0),
        Kind::ToolCall => schema_for::<v0::ToolCall>(Protocol::V0),
        Kind::Context => schema_for::<v0::Context>(Protocol::V0),
        Kind::InputContent => schema_for::<v0::InputContent>(Protocol::V0),
        Kind::Capabilities => schema_for::<v0::AgentCapabilities>(Protocol::V0),
        Kind::Event => schema_for::<v0::Event>(Protocol::V0),
        Kind::Events => schema_for::<Vec<v0::Event>>(Protocol::V0),
        Kind::ResumeEntry | Kind::Interrupt => return None,
    })
}

fn generate_v1(protocol: Protocol, kind: Kind) -> Schema {
    match kind {
        Kind::RunAgentInput => schema_for::<v1::RunAgentInput>(protocol),
        Kind::Message => schema_for::<v1::Message>(protocol),
        Kind::Messages => schema_for::<Vec<v1::Message>>(protocol),
        Kind::Tool => schema_for::<v1::Tool>(protocol),
        Kind::Tools => schema_for::<Vec<v1::Tool>>(protocol),
        Kind::ToolCall => schema_for::<v1::ToolCall>(protocol),
        Kind::Context => schema_for::<v1::Context>(protocol),
        Kind::InputContent => schema_for::<v1::ContentPart>(protocol),
        Kind::Capabilities => schema_for::<v1::AgentCapabilities>(protocol),
        Kind::Event => schema_for::<v1::Event>(protocol),
        Kind::Events => schema_for::<Vec<v1::Event>>(protocol),
        Kind::ResumeEntry => schema_for::<v1::ResumeEntry>(protocol),
        Kind::Interrupt => schema_for::<v1::Interrupt>(protocol),
    }
}

/// Orders each schema object's keywords for readers: identity first
/// (`$schema`, `title`, `description`), then the type and its constraints,
/// then subschemas, then definitions. Property names keep the order of the
/// Rust fields, which is the order of the spec's type definitions.
fn canonical_order(value: &mut Value) {
    const ORDER: [&str; 16] = [
        "$schema",
        "title",
        "description",
        "type",
        "const",
        "enum",
        "discriminator",
        "oneOf",
        "anyOf",
        "$ref",
        "properties",
        "required",
        "additionalProperties",
        "items",
        "format",
        "$defs",
    ];
    let Value::Object(map) = value else {
        return;
    };
    let rank = |key: &str| ORDER.iter().position(|k| *k == key).unwrap_or(ORDER.len());
    let mut entries: Vec<(String, Value)> = std::mem::take(map).into_iter().collect();
    entries.sort_by_key(|(key, _)| rank(key));
    for (key, mut child) in entries {
        match key.as_str() {
            // Maps from names to schemas: keep the names' order, order each schema.
            "properties" | "$defs" => {
                if let Value::Object(named) = &mut child {
                    named.values_mut().for_each(canonical_order);
                }
            }
            "oneOf" | "anyOf" | "allOf" | "prefixItems" => {
                if let Value::Array(list) = &mut child {
                    list.iter_mut().for_each(canonical_order);
                }
            }
            "items" | "additionalProperties" | "not" => canonical_order(&mut child),
            _ => {}
        }
        map.insert(key, child);
    }
}

/// Generates every kind's schema of `protocol`, in [`Kind::ALL`] order.
pub fn generate_all(protocol: Protocol) -> Vec<(Kind, Value)> {
    Kind::all_in(protocol)
        .filter_map(|kind| generate(protocol, kind).map(|schema| (kind, schema)))
        .collect()
}

/// The folder of `protocol`'s schemas under `schemas/`: `1.1`, `1.0`, `0`.
pub fn folder(protocol: Protocol) -> &'static str {
    protocol.as_str()
}

/// The text of a schema file: pretty-printed with a trailing newline.
pub fn render(schema: &Value) -> String {
    let mut text = serde_json::to_string_pretty(schema).unwrap_or_default();
    text.push('\n');
    text
}

/// Writes the schema files of `kinds` in `protocol` into `dir` (created if
/// needed) and, when every kind of the version is written, removes other
/// `*.schema.json` files there so that the folder holds exactly the
/// generated set. Kinds the version does not define are skipped. Returns
/// the paths written.
pub fn write_files(protocol: Protocol, dir: &Path, kinds: &[Kind]) -> io::Result<Vec<PathBuf>> {
    fs::create_dir_all(dir)?;
    let mut written = Vec::new();
    for &kind in kinds {
        let Some(schema) = generate(protocol, kind) else {
            continue;
        };
        let path = dir.join(kind.schema_file_name());
        fs::write(&path, render(&schema))?;
        written.push(path);
    }
    if written.len() == Kind::all_in(protocol).count() {
        for entry in fs::read_dir(dir)? {
            let path = entry?.path();
            let stale = path
                .file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.ends_with(".schema.json"))
                && !written.contains(&path);
            if stale {
                fs::remove_file(&path)?;
            }
        }
    }
    Ok(written)
}

fn schema_for<T: JsonSchema>(protocol: Protocol) -> Schema {
    let mut settings = SchemaSettings::draft2020_12();
    settings.transforms.push(Box::new(RefuseNullInOptionalKeys));
    settings.transforms.push(Box::new(KeepFieldsOf(protocol)));
    settings.into_generator().into_root_schema_for::<T>()
}

/// Drops the properties a version does not have (those marked
/// `x-agui-since` a later version) and the marks themselves, which are
/// for the generator only.
#[derive(Debug, Clone)]
struct KeepFieldsOf(Protocol);

impl Transform for KeepFieldsOf {
    fn transform(&mut self, schema: &mut Schema) {
        transform_subschemas(self, schema);
        let Some(object) = schema.as_object_mut() else {
            return;
        };
        let Some(Value::Object(properties)) = object.get_mut("properties") else {
            return;
        };
        let protocol = self.0;
        let mut dropped = Vec::new();
        properties.retain(|name, property| {
            let since = property
                .as_object_mut()
                .and_then(|p| p.remove(SINCE))
                .and_then(|v| v.as_str().and_then(|s| s.parse::<Protocol>().ok()));
            let keep = since.is_none_or(|since| since <= protocol);
            if !keep {
                dropped.push(name.clone());
            }
            keep
        });
        if let Some(Value::Array(required)) = object.get_mut("required") {
            required.retain(|r| !dropped.iter().any(|d| r == d));
        }
    }
}

/// schemars lets an `Option` key take `null`; AG-UI's optional keys
/// (`name?: string`) do not, as the TypeScript SDK rejects `null` there
/// (rule `null-for-optional`, README "Spec decisions"). Keys typed `unknown`/`any`
/// (`metadata?: unknown`) have no `type` and so still admit `null`.
#[derive(Debug, Clone)]
struct RefuseNullInOptionalKeys;

impl Transform for RefuseNullInOptionalKeys {
    fn transform(&mut self, schema: &mut Schema) {
        transform_subschemas(self, schema);
        let Some(object) = schema.as_object_mut() else {
            return;
        };
        let Some(Value::Object(properties)) = object.get_mut("properties") else {
            return;
        };
        for property in properties.values_mut() {
            let Value::Object(property) = property else {
                continue;
            };
            if let Some(Value::Array(types)) = property.get_mut("type") {
                types.retain(|t| t != "null");
                if types.len() == 1 {
                    let only = types.remove(0);
                    property.insert("type".into(), only);
                }
            }
            if let Some(Value::Array(branches)) = property.get_mut("anyOf") {
                branches.retain(|b| b.get("type").and_then(Value::as_str) != Some("null"));
                if branches.len() == 1 {
                    let only = branches.remove(0);
                    property.remove("anyOf");
                    if let Value::Object(only) = only {
                        for (key, value) in only {
                            property.entry(key).or_insert(value);
                        }
                    }
                }
            }
        }
    }
}
