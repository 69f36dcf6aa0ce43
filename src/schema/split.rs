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
//! document's limit are counted and never built, as everywhere.
//!
//! The verdicts are the same: these schemas put nothing on such an array
//! but its items (no `minItems`, no `uniqueItems`, no `contains`), which
//! [`ItemSchema::of`] checks before it splits anything.

use jsonschema::Draft;
use serde_json::{Map, Value};

use super::refine_errors;
use crate::diagnostic::Diagnostic;
use crate::findings::{Findings, RuleId};
use crate::{Protocol, Severity};

/// The item schema of an array and its validator.
pub(crate) struct ItemSchema {
    /// The item's schema, with the document schema's definitions beside
    /// it so that its references resolve.
    schema: Value,
    validator: jsonschema::Validator,
}

/// How one kind's documents are split: by the root properties that are
/// arrays of items, or, for a document that is an array, by its items.
pub(crate) struct Split {
    members: Vec<(String, ItemSchema)>,
    root: Option<ItemSchema>,
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
        let mut schema = Map::new();
        for key in ["$schema", "$defs", "definitions"] {
            if let Some(value) = document.get(key) {
                schema.insert(key.to_string(), value.clone());
            }
        }
        for (key, value) in items {
            schema.insert(key.clone(), value.clone());
        }
        let schema = Value::Object(schema);
        let validator = jsonschema::options()
            .with_draft(Draft::Draft202012)
            .offline()
            .build(&schema)
            .ok()?;
        Some(ItemSchema { schema, validator })
    }

    /// The findings of `item`, at `prefix` (its pointer in the document).
    fn check(&self, item: &Value, prefix: &str, protocol: Protocol, out: &mut impl Findings) {
        if self.validator.is_valid(item) {
            return;
        }
        let mut at = Prefixed { inner: out, prefix };
        refine_errors(
            &self.schema,
            item,
            protocol,
            self.validator.iter_errors(item),
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
        }
    }

    /// The schema's findings on `value` (already known not to be valid),
    /// its split arrays checked item by item.
    pub(crate) fn check(
        &self,
        schema: &Value,
        validator: &jsonschema::Validator,
        value: &Value,
        protocol: Protocol,
        out: &mut impl Findings,
    ) {
        if let (Some(items), Value::Array(values)) = (&self.root, value) {
            for (i, item) in values.iter().enumerate() {
                items.check(item, &format!("/{i}"), protocol, out);
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
            return refine_errors(schema, value, protocol, validator.iter_errors(value), out);
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
            refine_errors(schema, &rest, protocol, validator.iter_errors(&rest), out);
        }
        for (key, items, values) in split {
            let key = key.replace('~', "~0").replace('/', "~1");
            for (i, item) in values.iter().enumerate() {
                items.check(item, &format!("/{key}/{i}"), protocol, out);
            }
        }
    }
}

/// Findings of an item, moved to its place in the document.
struct Prefixed<'a, F> {
    inner: &'a mut F,
    prefix: &'a str,
}

/// `diagnostic` of an item, with its pointers moved under `prefix`.
fn moved(prefix: &str, mut diagnostic: Diagnostic) -> Diagnostic {
    diagnostic.pointer.insert_str(0, prefix);
    for related in &mut diagnostic.related {
        related.pointer.insert_str(0, prefix);
    }
    diagnostic
}

impl<F: Findings> Findings for Prefixed<'_, F> {
    fn add_as<R: RuleId>(
        &mut self,
        rule: &R,
        severity: Severity,
        make: impl FnOnce(&R) -> Diagnostic,
    ) {
        let prefix = self.prefix;
        self.inner
            .add_as(rule, severity, |rule| moved(prefix, make(rule)));
    }

    fn push(&mut self, diagnostic: Diagnostic) {
        self.inner.push(moved(self.prefix, diagnostic));
    }
}
