//! A document's arrays checked item by item against the schema.
//!
//! The `jsonschema` validator gathers every error of a document before it
//! hands back the first, with, for each union, the errors of every branch
//! it tried: a RunAgentInput of a million messages with one wrong type each
//! took 12 GB and 85 s to report. So the arrays a schema gives an item
//! schema (`messages`, `tools`, `context` of a RunAgentInput, the events of
//! an events document) are checked one item at a time, with a validator of
//! the item's schema, and the rest of the document with those arrays left
//! empty. One item's errors are held at a time, and the findings past the
//! document's limit are counted and never built, as everywhere. An item
//! of a discriminated union (a message by its `role`, an event by its
//! `type`) is checked against the branch its tag names, whose errors are
//! what the refiner reports of the whole union anyway.
//!
//! The verdicts are the same: these schemas put nothing on such an array
//! but its items (no `minItems`, no `uniqueItems`, no `contains`), which
//! [`ItemSchema::of`] checks before it splits anything.

use jsonschema::Draft;
use serde_json::{Map, Value};

use super::refine_errors;
use crate::findings::{Findings, Prefixed};
use crate::rules::receivers::Reading;

/// The item schema of an array and its validator.
pub(crate) struct ItemSchema {
    /// The item's schema, with the document schema's definitions beside
    /// it so that its references resolve.
    schema: Value,
    validator: jsonschema::Validator,
    /// When the item is one of a discriminated union, the validator of
    /// each branch, by its tag.
    union: Option<Union>,
}

/// A discriminated union's branches, each compiled alone: an item is
/// checked against the branch its tag names, which is what the findings
/// of the whole union come down to (the refiner reports the selected
/// branch's errors), without the errors of every other branch that the
/// union's validator would gather first (a wrong type in an event cost
/// 30 branches' errors).
struct Union {
    tag_key: String,
    branches: foldhash::HashMap<String, jsonschema::Validator>,
}

impl Union {
    /// The union `schema` (in `document`, at `path`) is, when it is one:
    /// a `oneOf` with a discriminator whose every branch has a `const` tag.
    fn of(schema: &Value, path: &str, document: &Value) -> Option<Union> {
        let tag_key = schema.pointer("/discriminator/propertyName")?.as_str()?;
        let options = schema.get("oneOf")?.as_array()?;
        let mut branches = foldhash::HashMap::default();
        for (k, branch) in options.iter().enumerate() {
            let tag = branch
                .pointer(&format!("/properties/{tag_key}/const"))?
                .as_str()?;
            let validator = compile(&with_definitions(
                document,
                [("$ref", Value::String(format!("#{path}/oneOf/{k}")))],
            ))?;
            branches.insert(tag.to_string(), validator);
        }
        Some(Union {
            tag_key: tag_key.to_string(),
            branches,
        })
    }

    /// The validator of the branch `item` names, if it names one.
    fn branch(&self, item: &Value) -> Option<&jsonschema::Validator> {
        self.branches.get(item.get(&self.tag_key)?.as_str()?)
    }
}

/// A schema whose root is a discriminated union (an event, a message),
/// with its branches compiled as those of an array's items are: the union
/// is copied among the definitions, where the branches are referenced
/// from.
struct RootUnion {
    /// The schema with the union among its definitions, which the
    /// branches' errors point into.
    schema: Value,
    union: Union,
}

/// The name the root union is copied under.
const ROOT_UNION: &str = "agui-lint-root-union";

impl RootUnion {
    /// The root union of `document`, when it is one.
    fn of(document: &Value) -> Option<RootUnion> {
        document.get("discriminator")?;
        let union: Map<String, Value> = document
            .as_object()?
            .iter()
            .filter(|(key, _)| !matches!(key.as_str(), "$schema" | "$defs" | "definitions"))
            .map(|(key, value)| (key.clone(), value.clone()))
            .collect();
        let mut schema = document.clone();
        schema
            .as_object_mut()?
            .entry("$defs")
            .or_insert_with(|| Value::Object(Map::new()))
            .as_object_mut()?
            .insert(ROOT_UNION.to_string(), Value::Object(union));
        let path = format!("/$defs/{ROOT_UNION}");
        let union = Union::of(schema.pointer(&path)?, &path, &schema)?;
        Some(RootUnion { schema, union })
    }

    /// The findings of `value`, a document the union `schema` (whose
    /// `validator` is given) is the root of, known not to be valid: the
    /// errors of the branch its tag names, or, when it names none, the
    /// union's one finding about the tag, which is all the refiner makes
    /// of the whole union's errors. That finding reads the tag alone, so
    /// the union is shown an object of the tag alone: an object of another
    /// kind (a RunAgentInput sent as an event) costs every branch's errors
    /// on a copy of it otherwise.
    fn check_root(
        &self,
        schema: &Value,
        validator: &jsonschema::Validator,
        value: &Value,
        reading: Reading,
        out: &mut impl Findings,
    ) {
        if let Some(branch) = self.union.branch(value) {
            return refine_errors(&self.schema, value, reading, branch.iter_errors(value), out);
        }
        let Value::Object(object) = value else {
            return refine_errors(schema, value, reading, validator.iter_errors(value), out);
        };
        let tag_alone: Map<String, Value> = object
            .get(&self.union.tag_key)
            .map(|tag| (self.union.tag_key.clone(), tag.clone()))
            .into_iter()
            .collect();
        let tag_alone = Value::Object(tag_alone);
        refine_errors(
            schema,
            &tag_alone,
            reading,
            validator.iter_errors(&tag_alone),
            out,
        );
    }
}

/// A schema of `members` with `document`'s dialect and definitions beside
/// them, so that its references resolve as in the document.
fn with_definitions(
    document: &Value,
    members: impl IntoIterator<Item = (&'static str, Value)>,
) -> Value {
    let mut schema = Map::new();
    for key in ["$schema", "$defs", "definitions"] {
        if let Some(value) = document.get(key) {
            schema.insert(key.to_string(), value.clone());
        }
    }
    for (key, value) in members {
        schema.insert(key.to_string(), value);
    }
    Value::Object(schema)
}

/// `schema` compiled as agui-lint's own schemas are.
fn compile(schema: &Value) -> Option<jsonschema::Validator> {
    jsonschema::options()
        .with_draft(Draft::Draft202012)
        .offline()
        .build(schema)
        .ok()
}

/// How one kind's documents are split: by the root properties that are
/// arrays of items, or, for a document that is an array, by its items.
pub(crate) struct Split {
    members: Vec<(String, ItemSchema)>,
    root: Option<ItemSchema>,
    /// When the schema is a discriminated union (an event, a message), its
    /// branches.
    union: Option<RootUnion>,
}

/// The keywords an array's schema may hold beside `items` for its items to
/// be checked alone: annotations, `type: array`, and at a document's root
/// its dialect and definitions.
const ARRAY_ONLY: [&str; 8] = [
    "type",
    "items",
    "description",
    "title",
    "default",
    "$schema",
    "$defs",
    "definitions",
];

impl ItemSchema {
    /// The item schema of `array` (a subschema of `document`), when the
    /// array's schema says nothing of the array but its items' schema.
    fn of(array: &Value, document: &Value) -> Option<ItemSchema> {
        let array = array.as_object()?;
        if array.get("type").and_then(Value::as_str) != Some("array")
            || array.keys().any(|key| !ARRAY_ONLY.contains(&key.as_str()))
        {
            return None;
        }
        let Value::Object(items) = array.get("items")? else {
            return None;
        };
        let mut schema = with_definitions(document, []);
        if let Value::Object(members) = &mut schema {
            members.extend(items.iter().map(|(k, v)| (k.clone(), v.clone())));
        }
        let validator = compile(&schema)?;
        // An item that is a reference to a union of the definitions.
        let union = items
            .get("$ref")
            .and_then(Value::as_str)
            .and_then(|r| r.strip_prefix('#'))
            .and_then(|path| Union::of(document.pointer(path)?, path, document));
        Some(ItemSchema {
            schema,
            validator,
            union,
        })
    }

    /// The findings of `item`, at `prefix` (its pointer in the document).
    fn check(&self, item: &Value, prefix: &str, reading: Reading, out: &mut impl Findings) {
        if self.validator.is_valid(item) {
            return;
        }
        let mut at = Prefixed { inner: out, prefix };
        // The branch the item's tag names, when it names one that rejects
        // it (any other case is the whole union's to explain).
        let validator = self
            .union
            .as_ref()
            .and_then(|union| union.branch(item))
            .filter(|branch| !branch.is_valid(item))
            .unwrap_or(&self.validator);
        refine_errors(
            &self.schema,
            item,
            reading,
            validator.iter_errors(item),
            &mut at,
        );
    }
}

impl Split {
    /// How documents of `schema` are split (nothing, for a schema whose
    /// arrays carry constraints of their own).
    pub(crate) fn of(schema: &Value) -> Split {
        let members = schema
            .get("properties")
            .and_then(Value::as_object)
            .map(|properties| {
                properties
                    .iter()
                    .filter_map(|(key, array)| Some((key.clone(), ItemSchema::of(array, schema)?)))
                    .collect()
            })
            .unwrap_or_default();
        Split {
            members,
            root: ItemSchema::of(schema, schema),
            union: RootUnion::of(schema),
        }
    }

    /// Whether the items of the root property `member` are checked one
    /// at a time.
    pub(crate) fn splits(&self, member: &str) -> bool {
        self.members.iter().any(|(key, _)| key == member)
    }

    /// The findings of `item`, at `prefix`, an item of the root property
    /// `member` (one [`Split::splits`]), as [`Split::check`] reports them.
    pub(crate) fn check_item(
        &self,
        member: &str,
        item: &Value,
        prefix: &str,
        reading: Reading,
        out: &mut impl Findings,
    ) {
        if let Some((_, items)) = self.members.iter().find(|(key, _)| key == member) {
            items.check(item, prefix, reading, out);
        }
    }

    /// The schema's findings on `value` (already known not to be valid),
    /// its split arrays checked item by item.
    pub(crate) fn check(
        &self,
        schema: &Value,
        validator: &jsonschema::Validator,
        value: &Value,
        reading: Reading,
        out: &mut impl Findings,
    ) {
        if let (Some(items), Value::Array(values)) = (&self.root, value) {
            for (i, item) in values.iter().enumerate() {
                items.check(item, &format!("/{i}"), reading, out);
            }
            return;
        }
        let split: Vec<(&str, &ItemSchema, &Vec<Value>)> = match value {
            Value::Object(members) => self
                .members
                .iter()
                .filter_map(|(key, items)| match members.get(key) {
                    Some(Value::Array(values)) if !values.is_empty() => {
                        Some((key.as_str(), items, values))
                    }
                    _ => None,
                })
                .collect(),
            _ => Vec::new(),
        };
        if split.is_empty() {
            if let Some(union) = &self.union {
                return union.check_root(schema, validator, value, reading, out);
            }
            return refine_errors(schema, value, reading, validator.iter_errors(value), out);
        }
        // The rest of the document, its split arrays empty (the arrays
        // themselves are not copied).
        let rest: Map<String, Value> = value
            .as_object()
            .into_iter()
            .flatten()
            .map(|(key, member)| {
                let emptied = split.iter().any(|(name, _, _)| name == key);
                let member = if emptied {
                    Value::Array(Vec::new())
                } else {
                    member.clone()
                };
                (key.clone(), member)
            })
            .collect();
        let rest = Value::Object(rest);
        if !validator.is_valid(&rest) {
            refine_errors(schema, &rest, reading, validator.iter_errors(&rest), out);
        }
        for (key, items, values) in split {
            let key = key.replace('~', "~0").replace('/', "~1");
            for (i, item) in values.iter().enumerate() {
                items.check(item, &format!("/{key}/{i}"), reading, out);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;
    use crate::diagnostic::Diagnostic;
    use crate::schema::Schemas;
    use crate::{Kind, Protocol};

    /// The findings of `value` as the whole schema's validator gives them,
    /// and as the split check gives them, each sorted.
    fn both(
        compiled: &super::super::compiled::CompiledSchema,
        value: &Value,
        reading: Reading,
    ) -> (Vec<String>, Vec<String>) {
        let show = |found: Vec<Diagnostic>| {
            let mut shown: Vec<String> = found
                .iter()
                .map(|d| format!("{} {} {} {:?}", d.pointer, d.rule, d.message, d.help))
                .collect();
            shown.sort();
            shown
        };
        let mut whole = Vec::new();
        refine_errors(
            &compiled.schema,
            value,
            reading,
            compiled.validator.iter_errors(value),
            &mut whole,
        );
        let mut split = Vec::new();
        compiled.check(value, reading, &mut split);
        (show(whole), show(split))
    }

    /// On every invalid fixture of every version, as its version and as
    /// the kind its folder names (or the one detected), the split check
    /// finds what the whole schema's validator finds.
    #[test]
    fn the_split_check_finds_what_the_whole_schema_finds() {
        let schemas = Schemas::new();
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures");
        let mut compared = 0;
        for entry in walkdir::WalkDir::new(&root) {
            let path = entry.expect("walk").into_path();
            if path.extension().and_then(|e| e.to_str()) != Some("json")
                || !path.components().any(|c| c.as_os_str() == "invalid")
            {
                continue;
            }
            let relative = path.strip_prefix(&root).expect("under fixtures");
            let mut parts = relative
                .components()
                .map(|c| c.as_os_str().to_string_lossy());
            let Some(Ok(protocol)) = parts.next().map(|v| v.parse::<Protocol>()) else {
                continue;
            };
            let Ok(text) = std::fs::read_to_string(&path) else {
                continue;
            };
            let Ok(value) = serde_json::from_str::<Value>(&text) else {
                continue;
            };
            let kind = parts
                .next()
                .and_then(|k| k.parse::<Kind>().ok())
                .or_else(|| Kind::detect(&value).ok());
            let Some(kind) = kind else { continue };
            let Ok(Some(compiled)) = schemas.get(protocol, kind) else {
                continue;
            };
            if compiled.validator.is_valid(&value) {
                continue;
            }
            let (whole, split) = both(compiled, &value, Reading::new(protocol, kind));
            assert_eq!(whole, split, "{}", path.display());
            compared += 1;
        }
        assert!(compared >= 80, "only {compared} fixtures compared");
    }

    /// A single event or message, as each version's union of them: one of
    /// another kind, one whose tag names no branch, one whose branch
    /// rejects it.
    #[test]
    fn a_union_document_is_checked_as_the_whole_union_checks_it() {
        let schemas = Schemas::new();
        let input = serde_json::json!({"threadId": "t", "runId": "r", "messages": [
            {"id": "u", "role": "user", "content": "hi"}], "tools": [], "context": [], "state": {}});
        let documents = [
            (Kind::Event, input.clone()),
            (
                Kind::Event,
                serde_json::json!({"type": "NO_SUCH_EVENT", "delta": 5}),
            ),
            (
                Kind::Event,
                serde_json::json!({"type": "THINKING_START", "x": [1, 2]}),
            ),
            (
                Kind::Event,
                serde_json::json!({"type": 7, "messageId": "m"}),
            ),
            (
                Kind::Event,
                serde_json::json!({"type": "TEXT_MESSAGE_CONTENT", "messageId": 1, "delta": "x", "extra": true}),
            ),
            (
                Kind::Event,
                serde_json::json!({"type": "RUN_STARTED", "threadId": "t", "runId": "r", "input": {"messages": 3}}),
            ),
            (Kind::Event, serde_json::json!([1, 2])),
            (
                Kind::Message,
                serde_json::json!({"id": "a", "content": "no role", "toolCalls": 5}),
            ),
            (
                Kind::Message,
                serde_json::json!({"id": "a", "role": "assistant", "toolCalls": [{"id": 5}]}),
            ),
            (
                Kind::Message,
                serde_json::json!({"id": "a", "role": "robot"}),
            ),
        ];
        let mut compared = 0;
        for protocol in Protocol::ALL {
            for (kind, value) in &documents {
                let Ok(Some(compiled)) = schemas.get(protocol, *kind) else {
                    continue;
                };
                if compiled.validator.is_valid(value) {
                    continue;
                }
                let (whole, split) = both(compiled, value, Reading::new(protocol, *kind));
                assert_eq!(whole, split, "{protocol} {kind:?} {value}");
                assert!(!split.is_empty(), "{protocol} {kind:?} {value}");
                compared += 1;
            }
        }
        assert!(compared >= 25, "only {compared} documents compared");
    }

    #[test]
    fn one_wrong_item_among_many_is_found_at_its_place() {
        let schemas = Schemas::new();
        let compiled = schemas
            .get(Protocol::V1_1, Kind::Events)
            .expect("compiles")
            .expect("1.1 has events documents");
        let mut events: Vec<Value> = (0..50)
            .map(|_| serde_json::json!({"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": "x"}))
            .collect();
        events[37] =
            serde_json::json!({"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": 5});
        events[41] = serde_json::json!({"type": "NO_SUCH_EVENT"});
        let value = Value::Array(events);
        let (whole, split) = both(compiled, &value, Reading::new(Protocol::V1_1, Kind::Events));
        assert_eq!(whole, split);
        assert!(
            split.iter().any(|s| s.starts_with("/37/delta wrong-type")),
            "{split:?}"
        );
        assert!(
            split
                .iter()
                .any(|s| s.starts_with("/41/type unknown-event-type")),
            "{split:?}"
        );
    }
}
