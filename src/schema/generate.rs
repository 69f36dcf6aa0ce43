//! Generates each kind's JSON Schema (draft 2020-12) from the Rust types.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use schemars::generate::SchemaSettings;
use schemars::transform::{transform_subschemas, Transform};
use schemars::{JsonSchema, Schema};
use serde_json::Value;

use crate::types::{
    AgentCapabilities, Context, Event, InputContent, Message, RunAgentInput, Tool, ToolCall,
};
use crate::Kind;

/// Generates the schema of `kind` as a JSON value.
pub fn generate(kind: Kind) -> Value {
    let schema = match kind {
        Kind::RunAgentInput => schema_for::<RunAgentInput>(),
        Kind::Message => schema_for::<Message>(),
        Kind::Messages => schema_for::<Vec<Message>>(),
        Kind::Tool => schema_for::<Tool>(),
        Kind::Tools => schema_for::<Vec<Tool>>(),
        Kind::ToolCall => schema_for::<ToolCall>(),
        Kind::Context => schema_for::<Context>(),
        Kind::InputContent => schema_for::<InputContent>(),
        Kind::Capabilities => schema_for::<AgentCapabilities>(),
        Kind::Event => schema_for::<Event>(),
        Kind::Events => schema_for::<Vec<Event>>(),
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
    value
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

/// Generates every kind's schema, in [`Kind::ALL`] order.
pub fn generate_all() -> Vec<(Kind, Value)> {
    Kind::ALL
        .iter()
        .map(|&kind| (kind, generate(kind)))
        .collect()
}

/// The text of a schema file: pretty-printed with a trailing newline.
pub fn render(schema: &Value) -> String {
    let mut text = serde_json::to_string_pretty(schema).unwrap_or_default();
    text.push('\n');
    text
}

/// Writes the schema files of `kinds` into `dir` (created if needed) and, when
/// every kind is written, removes other `*.schema.json` files there so that
/// the folder holds exactly the generated set. Returns the paths written.
pub fn write_files(dir: &Path, kinds: &[Kind]) -> io::Result<Vec<PathBuf>> {
    fs::create_dir_all(dir)?;
    let mut written = Vec::new();
    for &kind in kinds {
        let path = dir.join(kind.schema_file_name());
        fs::write(&path, render(&generate(kind)))?;
        written.push(path);
    }
    if kinds.len() == Kind::ALL.len() {
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

fn schema_for<T: JsonSchema>() -> Schema {
    let mut settings = SchemaSettings::draft2020_12();
    settings.transforms.push(Box::new(RefuseNullInOptionalKeys));
    settings.into_generator().into_root_schema_for::<T>()
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
