//! Tool `parameters` schemas seen before, with what checking them found and
//! their compiled validator for arguments.
//!
//! A server usually sends the same tools on every request; meta-validating
//! and compiling a schema costs far more than the rest of a check, so both
//! are done once per distinct schema and shared by every validator and
//! thread of the process. What is cached is a pure function of the schema
//! (and of agui-lint's fixed compile options), so sharing is invisible in
//! results. The cache is bounded: when full it starts over.

// foldhash: seeded per process, so schemas a client chooses cannot collide
// at will, and several times faster than SipHash. The map's keys are the
// structural hashes below; equal hashes are told apart by comparing values.
use foldhash::{HashMap, HashMapExt};
use std::hash::{BuildHasher, Hash, Hasher};
use std::sync::{Arc, LazyLock, OnceLock, RwLock};

use serde_json::Value;

use crate::diagnostic::Diagnostic;

/// What a call's arguments are checked with: the compiled schema, and the
/// schema as a graph, which tells what a check will cost before it runs.
pub(crate) struct Arguments {
    /// The compiled schema.
    pub(crate) validator: jsonschema::Validator,
    /// The schema's subschemas and applicators.
    pub(crate) graph: super::cost::Graph,
}

/// Distinct schemas kept at most; beyond this the cache is emptied.
pub(super) const CAPACITY: usize = 1024;

/// What is known about one schema, each part computed on first need.
#[derive(Default)]
pub(in crate::rules) struct Compiled {
    /// The findings of checking the schema, with pointers relative to the
    /// `parameters` value itself.
    pub(in crate::rules) findings: OnceLock<Vec<Diagnostic>>,
    /// What tool-call arguments are checked with, when the schema compiles
    /// and its cost can be bounded.
    pub(in crate::rules) arguments: OnceLock<Option<Arguments>>,
}

type Entries = HashMap<u64, Vec<(Value, Arc<Compiled>)>>;

static CACHE: LazyLock<RwLock<(Entries, usize)>> =
    LazyLock::new(|| RwLock::new((HashMap::new(), 0)));

/// The entry of `schema`, made empty when new.
pub(super) fn lookup(schema: &Value) -> Arc<Compiled> {
    let key = hash(schema);
    if let Ok(cache) = CACHE.read() {
        if let Some(found) = find(&cache.0, key, schema) {
            return found;
        }
    }
    let fresh = Arc::new(Compiled::default());
    // A poisoned lock (a panic elsewhere while writing) only costs caching.
    let Ok(mut cache) = CACHE.write() else {
        return fresh;
    };
    if let Some(found) = find(&cache.0, key, schema) {
        return found;
    }
    if cache.1 >= CAPACITY {
        cache.0.clear();
        cache.1 = 0;
    }
    cache
        .0
        .entry(key)
        .or_default()
        .push((schema.clone(), fresh.clone()));
    cache.1 += 1;
    fresh
}

fn find(entries: &Entries, key: u64, schema: &Value) -> Option<Arc<Compiled>> {
    entries
        .get(&key)?
        .iter()
        .find(|(known, _)| known == schema)
        .map(|(_, compiled)| compiled.clone())
}

/// The seed of [`hash`], one per process.
static SCHEMA_HASHER: LazyLock<foldhash::quality::RandomState> =
    LazyLock::new(foldhash::quality::RandomState::default);

/// A structural hash of `value`, without recursion (schemas may be deep).
fn hash(value: &Value) -> u64 {
    let mut hasher = SCHEMA_HASHER.build_hasher();
    let mut stack = vec![value];
    while let Some(value) = stack.pop() {
        match value {
            Value::Null => 0u8.hash(&mut hasher),
            Value::Bool(b) => (1u8, b).hash(&mut hasher),
            Value::Number(n) => {
                // Without formatting the number: its integer or float bits.
                2u8.hash(&mut hasher);
                match (n.as_u64(), n.as_i64(), n.as_f64()) {
                    (Some(u), _, _) => (0u8, u).hash(&mut hasher),
                    (_, Some(i), _) => (1u8, i).hash(&mut hasher),
                    (_, _, Some(f)) => (2u8, f.to_bits()).hash(&mut hasher),
                    _ => 3u8.hash(&mut hasher),
                }
            }
            Value::String(s) => (3u8, s).hash(&mut hasher),
            Value::Array(items) => {
                (4u8, items.len()).hash(&mut hasher);
                stack.extend(items.iter().rev());
            }
            Value::Object(map) => {
                (5u8, map.len()).hash(&mut hasher);
                for (key, value) in map {
                    key.hash(&mut hasher);
                    stack.push(value);
                }
            }
        }
    }
    hasher.finish()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn equal_schemas_share_an_entry_and_others_do_not() {
        let a = lookup(&json!({"type": "object", "properties": {"q": {"type": "string"}}}));
        let b = lookup(&json!({"type": "object", "properties": {"q": {"type": "string"}}}));
        let c = lookup(&json!({"type": "object", "properties": {"q": {"type": "integer"}}}));
        assert!(Arc::ptr_eq(&a, &b));
        assert!(!Arc::ptr_eq(&a, &c));
    }

    #[test]
    fn hashing_tells_structure_apart() {
        assert_ne!(hash(&json!([1, [2]])), hash(&json!([[1], 2])));
        assert_ne!(hash(&json!({"a": "b"})), hash(&json!({"b": "a"})));
        assert_eq!(
            hash(&json!({"a": [1, {"b": null}]})),
            hash(&json!({"a": [1, {"b": null}]}))
        );
    }
}
