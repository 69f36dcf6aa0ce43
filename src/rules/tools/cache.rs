//! Tool `parameters` schemas seen before, with what checking them found and
//! their compiled validator for arguments.
//!
//! A server usually sends the same tools on every request; meta-validating
//! and compiling a schema costs far more than the rest of a check, so both
//! are done once per distinct schema and shared by every validator and
//! thread of the process. What is cached is a pure function of the schema
//! (and of agui-lint's fixed compile options), so sharing is invisible in
//! results. The cache is bounded: when full it starts over.
//!
//! Schemas that differ only in their annotations (a `description`, `title`
//! or `$comment` string, as an application writes the user's workspace or
//! today's date into its tools) share an entry ([`annotations`]): the
//! compiled validator is the same, and so are the findings of checking the
//! schema, unless a finding quotes a subschema, which only a broken schema
//! has; an entry's findings, computed from the schema that made it, are
//! taken for another schema only when there are none.

// foldhash: seeded per process, so schemas a client chooses cannot collide
// at will, and several times faster than SipHash. The map's keys are the
// hashes of `annotations::hash`; equal hashes are told apart by comparing
// schemas.
use foldhash::{HashMap, HashMapExt};
use std::sync::{Arc, LazyLock, OnceLock, RwLock};

use serde_json::Value;

use crate::diagnostic::Diagnostic;

mod annotations;

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
    /// The schema that made the entry, which the parts are computed from;
    /// others of the entry differ from it in annotations alone.
    pub(in crate::rules) schema: Value,
    /// The findings of checking the schema, with pointers relative to the
    /// `parameters` value itself.
    pub(in crate::rules) findings: OnceLock<Vec<Diagnostic>>,
    /// What tool-call arguments are checked with, when the schema compiles
    /// and its cost can be bounded.
    pub(in crate::rules) arguments: OnceLock<Option<Arguments>>,
}

type Entries = HashMap<u64, Vec<Arc<Compiled>>>;

static CACHE: LazyLock<RwLock<(Entries, usize)>> =
    LazyLock::new(|| RwLock::new((HashMap::new(), 0)));

/// The entry of `schema`, made empty when new.
pub(super) fn lookup(schema: &Value) -> Arc<Compiled> {
    let key = annotations::hash(schema);
    if let Ok(cache) = CACHE.read() {
        if let Some(found) = find(&cache.0, key, schema) {
            return found;
        }
    }
    let fresh = Arc::new(Compiled {
        schema: schema.clone(),
        ..Compiled::default()
    });
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
    cache.0.entry(key).or_default().push(fresh.clone());
    cache.1 += 1;
    fresh
}

fn find(entries: &Entries, key: u64, schema: &Value) -> Option<Arc<Compiled>> {
    entries
        .get(&key)?
        .iter()
        .find(|compiled| annotations::same(&compiled.schema, schema))
        .cloned()
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
    fn schemas_that_differ_in_annotations_share_an_entry_made_by_the_first() {
        let first = json!({"type": "object", "description": "ws-1", "properties": {"annotated": {"type": "string", "title": "Query in ws-1"}}});
        let second = json!({"type": "object", "description": "ws-2", "properties": {"annotated": {"type": "string", "title": "Query in ws-2"}}});
        let a = lookup(&first);
        let b = lookup(&second);
        assert!(Arc::ptr_eq(&a, &b));
        assert_eq!(b.schema, first);
        // A property named `description` is no annotation.
        let c =
            lookup(&json!({"type": "object", "properties": {"description": {"type": "string"}}}));
        let d = lookup(&json!({"type": "object", "properties": {"title": {"type": "string"}}}));
        assert!(!Arc::ptr_eq(&c, &d));
    }
}
