//! What checking a value against a tool's `parameters` costs, counted
//! before anything is checked, so that no schema can make a check grow
//! beyond its budget.
//!
//! A JSON Schema validator applies subschemas to the values of an
//! instance: `allOf`, `anyOf`, `oneOf`, `not`, `if`/`then`/`else` and
//! references apply theirs to the same value, `properties`, `items` and
//! their kin to its members. Through references the same subschema can be
//! reached by many paths, and each path is applied: a chain of `oneOf`s
//! whose two branches both refer to the next link applies 2^n schemas to
//! one value, which no validator survives for n ≈ 30 (2 KB of schema). The
//! `jsonschema` crate has no budget of its own, and cannot be stopped once
//! started (its custom keywords run after a node's applicators), so the
//! bound is kept here, before it is asked:
//!
//! - [`Graph`] is the schema as subschemas and the edges between them,
//!   references resolved as `referencing` resolves them (base URIs from
//!   `$id`, JSON Pointer fragments, anchors).
//! - [`Graph::fan_out`] is the most subschemas that apply to one value by
//!   way of in-place applicators and references alone: a property of the
//!   schema, reported as `tool-parameters-too-complex`.
//! - [`Graph::cost`] walks an actual instance (the parsed arguments of a
//!   call) and counts the subschema applications a validator makes,
//!   summing the paths that reach the same subschema at the same value
//!   instead of following each: exact where the validator is exponential.
//!   It stops at its budget; a call over it is `tool-arguments-unchecked`.
//!
//! The count is an upper bound on what the validator does: every branch of
//! every applicator is counted, whatever the instance, as an error report
//! visits them all.

// foldhash: seeded per process, so keys a client chooses cannot collide at
// will, and several times faster than SipHash on short keys.
use foldhash::{HashMap, HashMapExt};

use jsonschema::Draft;
use serde_json::Value;
use url::Url;

use super::references::{document_of, fragment, id_of, DEFAULT_BASE};
use crate::pointer;

/// Keywords that apply one subschema (or an array of them) to the same
/// value.
const IN_PLACE_SINGLE: &[&str] = &["not", "if", "then", "else"];
/// Keywords that apply an array of subschemas to the same value.
const IN_PLACE_ARRAY: &[&str] = &["allOf", "anyOf", "oneOf"];
/// Keywords that apply an object of subschemas to the same value.
const IN_PLACE_OBJECT: &[&str] = &["dependentSchemas", "dependencies"];
/// Keywords whose subschema applies to any member of an object.
const ANY_KEY: &[&str] = &[
    "additionalProperties",
    "unevaluatedProperties",
    "propertyNames",
];
/// Keywords whose subschema applies to any item of an array.
const ANY_ITEM: &[&str] = &["additionalItems", "contains", "unevaluatedItems"];
/// Keywords that only hold subschemas to be referred to.
const DEFINITIONS: &[&str] = &["$defs", "definitions"];

/// The most distinct subschemas a [`Graph`] is built for; beyond this the
/// schema is too large to bound (and larger than any tool needs).
const MAX_NODES: usize = 100_000;

/// The most entries the in-place closures of a [`Graph`] may hold in all,
/// so that analysing a schema is itself bounded.
const MAX_CLOSURE_ENTRIES: usize = 1_000_000;

/// One subschema and where its applicators lead.
#[derive(Debug, Default)]
struct Node {
    /// Subschemas applied to the same value.
    in_place: Vec<usize>,
    /// `properties`: the subschema applied to the member of each name.
    keys: HashMap<String, Vec<usize>>,
    /// Subschemas applied to every member (`patternProperties` counted for
    /// every member too, as an upper bound).
    any_key: Vec<usize>,
    /// `prefixItems` (or an `items` array before 2020-12): by position.
    positions: Vec<Vec<usize>>,
    /// Subschemas applied to every item.
    any_item: Vec<usize>,
}

/// Where a node sends one member or item: the subschemas for it alone
/// (by name or position), and those for every one.
type Edges<'e> = dyn Fn(&Node) -> (Option<&Vec<usize>>, &Vec<usize>) + 'e;

/// The subschemas one applies in place (itself included), each with the
/// number of paths that lead to it.
type Closure = Vec<(usize, u64)>;

/// A `parameters` schema as a graph of its subschemas, with every
/// reference resolved.
#[derive(Debug)]
pub(crate) struct Graph {
    nodes: Vec<Node>,
    /// Per node, the subschemas it applies in place (itself included) and
    /// by how many paths, computed on first need.
    closures: std::sync::OnceLock<Option<Vec<Closure>>>,
}

/// Why a schema's cost cannot be bounded here.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Unbounded {
    /// A reference this analysis does not follow (the validator may).
    Unresolved,
    /// More subschemas, or longer closures, than an analysis takes.
    TooLarge,
}

impl Graph {
    /// The graph of `schema`, of dialect `draft`.
    pub(crate) fn of(schema: &Value, draft: Draft) -> Result<Graph, Unbounded> {
        Builder::new(draft).build(schema)
    }

    /// The in-place closure of every node, or `None` when it is larger
    /// than an analysis takes.
    fn closures(&self) -> Option<&Vec<Closure>> {
        self.closures.get_or_init(|| closures(&self.nodes)).as_ref()
    }

    /// The most subschemas applied to one value through in-place
    /// applicators and references (paths counted, saturating), or
    /// `Err(TooLarge)` when that cannot be counted within bounds.
    pub(crate) fn fan_out(&self) -> Result<u64, Unbounded> {
        let closures = self.closures().ok_or(Unbounded::TooLarge)?;
        Ok(closures
            .iter()
            .map(|closure| {
                closure
                    .iter()
                    .fold(0u64, |sum, (_, n)| sum.saturating_add(*n))
            })
            .max()
            .unwrap_or(0))
    }

    /// How many subschema applications checking `instance` against the
    /// schema takes, or `None` when more than `budget`.
    pub(crate) fn cost(&self, instance: &Value, budget: u64) -> Option<u64> {
        let closures = self.closures()?;
        let mut total = 0u64;
        // Every call's arguments are costed, so nothing here is allocated
        // per value: the applications waiting for each value sit in one
        // list (`waiting`), a value's range at its end when it is taken
        // (the stack is last in, first out), and a value's applications
        // are merged by node in one map, cleared for the next (sized by
        // what a value reaches, never by the schema).
        let mut stack: Vec<(&Value, usize)> = vec![(instance, 0)];
        let mut waiting: Vec<(usize, u64)> = vec![(0, 1)];
        let mut merged: HashMap<usize, u64> = HashMap::new();
        while let Some((value, from)) = stack.pop() {
            merged.clear();
            for &(node, count) in &waiting[from..] {
                for &(reached, more) in &closures[node] {
                    let count = count.saturating_mul(more);
                    total = total.saturating_add(count);
                    if total > budget {
                        return None;
                    }
                    let entry = merged.entry(reached).or_insert(0);
                    *entry = entry.saturating_add(count);
                }
            }
            waiting.truncate(from);
            // The applications one member or item gets from this value's,
            // through `edges`: where they start in `waiting`, if any.
            let mut next = |edges: &Edges<'_>| {
                let start = waiting.len();
                for (&node, &paths) in &merged {
                    let (own, every) = edges(&self.nodes[node]);
                    for &child in own.into_iter().flatten().chain(every) {
                        waiting.push((child, paths));
                    }
                }
                (waiting.len() > start).then_some(start)
            };
            match value {
                Value::Object(members) => {
                    for (key, member) in members {
                        if let Some(start) =
                            next(&|node| (node.keys.get(key.as_str()), &node.any_key))
                        {
                            stack.push((member, start));
                        }
                    }
                }
                Value::Array(items) => {
                    for (index, item) in items.iter().enumerate() {
                        if let Some(start) =
                            next(&|node| (node.positions.get(index), &node.any_item))
                        {
                            stack.push((item, start));
                        }
                    }
                }
                _ => {}
            }
        }
        Some(total)
    }
}

/// The in-place closure of each node: the nodes it applies to the same
/// value (itself first) with the number of paths to each. A path that
/// comes back to a node it left is cut there, as the validator cuts it
/// (it would otherwise never end). `None` when the closures hold more
/// than [`MAX_CLOSURE_ENTRIES`] entries.
fn closures(nodes: &[Node]) -> Option<Vec<Closure>> {
    let mut done: Vec<Option<Closure>> = (0..nodes.len()).map(|_| None).collect();
    let mut entries = 0usize;
    let mut on_path = vec![false; nodes.len()];
    for start in 0..nodes.len() {
        if done[start].is_some() {
            continue;
        }
        // Depth-first, children before parents, without recursion.
        let mut stack: Vec<(usize, usize)> = vec![(start, 0)];
        on_path[start] = true;
        while let Some(top) = stack.last_mut() {
            let (node, next) = *top;
            if let Some(&child) = nodes[node].in_place.get(next) {
                top.1 += 1;
                if done[child].is_none() && !on_path[child] {
                    on_path[child] = true;
                    stack.push((child, 0));
                }
                continue;
            }
            stack.pop();
            on_path[node] = false;
            let mut closure: HashMap<usize, u64> = HashMap::new();
            closure.insert(node, 1);
            for &child in &nodes[node].in_place {
                // A child still on the path is a cycle back: cut.
                let Some(reached) = done[child].as_ref() else {
                    continue;
                };
                for &(other, paths) in reached {
                    let entry = closure.entry(other).or_insert(0);
                    *entry = entry.saturating_add(paths);
                }
            }
            let mut closure: Vec<(usize, u64)> = closure.into_iter().collect();
            closure.sort_unstable();
            entries += closure.len();
            if entries > MAX_CLOSURE_ENTRIES {
                return None;
            }
            done[node] = Some(closure);
        }
    }
    done.into_iter().collect()
}

/// A reference found while walking, resolved once every resource and
/// anchor is known.
struct Pending {
    from: usize,
    resolved: Url,
    dynamic: bool,
}

/// Builds a [`Graph`]: every subschema a node, in document order.
struct Builder {
    draft: Draft,
    nodes: Vec<Node>,
    /// Node ids by the pointer of their subschema.
    by_pointer: HashMap<String, usize>,
    /// Resources (documents without fragment) by URI: their node and
    /// pointer.
    resources: HashMap<String, (usize, String)>,
    /// Anchors (`$anchor`, `$dynamicAnchor`, draft-04..07 fragment ids) by
    /// their resource's URI and name.
    anchors: HashMap<(String, String), usize>,
    /// `$dynamicAnchor` names (and `$recursiveAnchor: true` as ""), each
    /// with the nodes declaring it.
    dynamic_anchors: HashMap<String, Vec<usize>>,
    pending: Vec<Pending>,
}

impl Builder {
    fn new(draft: Draft) -> Builder {
        Builder {
            draft,
            nodes: Vec::new(),
            by_pointer: HashMap::new(),
            resources: HashMap::new(),
            anchors: HashMap::new(),
            dynamic_anchors: HashMap::new(),
            pending: Vec::new(),
        }
    }

    fn build(mut self, root: &Value) -> Result<Graph, Unbounded> {
        let base = Url::parse(DEFAULT_BASE).map_err(|_| Unbounded::Unresolved)?;
        self.resources
            .insert(document_of(&base), (0, String::new()));
        // (value, its pointer, the base URI it is read against, its node,
        // the pointer of its resource)
        let mut stack: Vec<(&Value, String, Url, String)> =
            vec![(root, String::new(), base, String::new())];
        while let Some((value, at, base, resource)) = stack.pop() {
            let id = self.node_at(&at)?;
            let Some(object) = value.as_object() else {
                continue;
            };
            let (base, resource) = match id_of(object, self.draft).and_then(|i| base.join(i).ok()) {
                Some(mut uri) => {
                    uri.set_fragment(None);
                    self.resources.insert(uri.to_string(), (id, at.clone()));
                    (uri, at.clone())
                }
                None => (base, resource),
            };
            self.anchors_of(object, id, &base);
            // Before 2019-09 a reference replaces its object: the other
            // keywords beside it are ignored.
            let ignores_siblings =
                matches!(self.draft, Draft::Draft4 | Draft::Draft6 | Draft::Draft7)
                    && object.contains_key("$ref");
            for (keyword, dynamic) in [
                ("$ref", false),
                ("$dynamicRef", true),
                ("$recursiveRef", true),
            ] {
                if let Some(raw) = object.get(keyword).and_then(Value::as_str) {
                    let resolved = base.join(raw).map_err(|_| Unbounded::Unresolved)?;
                    self.pending.push(Pending {
                        from: id,
                        resolved,
                        dynamic,
                    });
                }
            }
            let mut children: Vec<(&Value, String, Edge)> = Vec::new();
            for (key, child) in object {
                if ignores_siblings && key != "$ref" && !DEFINITIONS.contains(&key.as_str()) {
                    continue;
                }
                let here = pointer::push(&at, key);
                let keyword = key.as_str();
                if IN_PLACE_SINGLE.contains(&keyword) {
                    children.push((child, here, Edge::InPlace));
                } else if IN_PLACE_ARRAY.contains(&keyword) {
                    for (i, item) in child.as_array().into_iter().flatten().enumerate() {
                        children.push((item, format!("{here}/{i}"), Edge::InPlace));
                    }
                } else if IN_PLACE_OBJECT.contains(&keyword) {
                    for (name, member) in child.as_object().into_iter().flatten() {
                        // `dependencies` also holds arrays of names.
                        if member.is_object() || member.is_boolean() {
                            children.push((member, pointer::push(&here, name), Edge::InPlace));
                        }
                    }
                } else if keyword == "properties" {
                    for (name, member) in child.as_object().into_iter().flatten() {
                        children.push((
                            member,
                            pointer::push(&here, name),
                            Edge::Key(name.clone()),
                        ));
                    }
                } else if keyword == "patternProperties" {
                    for (name, member) in child.as_object().into_iter().flatten() {
                        children.push((member, pointer::push(&here, name), Edge::AnyKey));
                    }
                } else if ANY_KEY.contains(&keyword) {
                    children.push((child, here, Edge::AnyKey));
                } else if keyword == "prefixItems" {
                    for (i, item) in child.as_array().into_iter().flatten().enumerate() {
                        children.push((item, format!("{here}/{i}"), Edge::Position(i)));
                    }
                } else if keyword == "items" {
                    match child {
                        Value::Array(items) => {
                            for (i, item) in items.iter().enumerate() {
                                children.push((item, format!("{here}/{i}"), Edge::Position(i)));
                            }
                        }
                        other => children.push((other, here, Edge::AnyItem)),
                    }
                } else if ANY_ITEM.contains(&keyword) {
                    children.push((child, here, Edge::AnyItem));
                } else if DEFINITIONS.contains(&keyword) {
                    for (name, member) in child.as_object().into_iter().flatten() {
                        children.push((member, pointer::push(&here, name), Edge::None));
                    }
                }
            }
            for (child, here, edge) in children.into_iter().rev() {
                if !(child.is_object() || child.is_boolean()) {
                    continue;
                }
                let target = self.node_at(&here)?;
                let node = &mut self.nodes[id];
                match edge {
                    Edge::InPlace => node.in_place.push(target),
                    Edge::Key(name) => node.keys.entry(name).or_default().push(target),
                    Edge::AnyKey => node.any_key.push(target),
                    Edge::Position(i) => {
                        if node.positions.len() <= i {
                            node.positions.resize_with(i + 1, Vec::new);
                        }
                        node.positions[i].push(target);
                    }
                    Edge::AnyItem => node.any_item.push(target),
                    Edge::None => {}
                }
                stack.push((child, here, base.clone(), resource.clone()));
            }
        }
        let pending = std::mem::take(&mut self.pending);
        for reference in pending {
            for target in self.resolve(&reference)? {
                self.nodes[reference.from].in_place.push(target);
            }
        }
        Ok(Graph {
            nodes: self.nodes,
            closures: std::sync::OnceLock::new(),
        })
    }

    /// The node of the subschema at `at`, made when new.
    fn node_at(&mut self, at: &str) -> Result<usize, Unbounded> {
        if let Some(&id) = self.by_pointer.get(at) {
            return Ok(id);
        }
        if self.nodes.len() >= MAX_NODES {
            return Err(Unbounded::TooLarge);
        }
        let id = self.nodes.len();
        self.nodes.push(Node::default());
        self.by_pointer.insert(at.to_string(), id);
        Ok(id)
    }

    /// Records the anchors `object` (node `id`, read against `base`)
    /// declares.
    fn anchors_of(&mut self, object: &serde_json::Map<String, Value>, id: usize, base: &Url) {
        let document = document_of(base);
        let mut names: Vec<&str> = Vec::new();
        if let Some(anchor) = object.get("$anchor").and_then(Value::as_str) {
            names.push(anchor);
        }
        if let Some(anchor) = object.get("$dynamicAnchor").and_then(Value::as_str) {
            names.push(anchor);
            self.dynamic_anchors
                .entry(anchor.to_string())
                .or_default()
                .push(id);
        }
        if object.get("$recursiveAnchor").and_then(Value::as_bool) == Some(true) {
            self.dynamic_anchors
                .entry(String::new())
                .or_default()
                .push(id);
        }
        // Before 2019-09, an identifier that is only a fragment is an anchor.
        let keyword = if self.draft == Draft::Draft4 {
            "id"
        } else {
            "$id"
        };
        if let Some(name) = object
            .get(keyword)
            .and_then(Value::as_str)
            .and_then(|id| id.strip_prefix('#'))
        {
            names.push(name);
        }
        for name in names {
            self.anchors
                .insert((document.clone(), name.to_string()), id);
        }
    }

    /// The nodes a reference leads to: its target, and for a dynamic
    /// reference every node declaring its dynamic anchor (which one applies
    /// depends on the path taken; all are counted).
    fn resolve(&self, reference: &Pending) -> Result<Vec<usize>, Unbounded> {
        let document = document_of(&reference.resolved);
        let (resource, resource_at) = self.resources.get(&document).ok_or(Unbounded::Unresolved)?;
        let raw = reference.resolved.as_str();
        let fragment = fragment(raw).unwrap_or_default();
        let mut targets = Vec::new();
        if fragment.is_empty() {
            targets.push(*resource);
        } else if fragment.starts_with('/') {
            let at = format!("{resource_at}{fragment}");
            targets.push(*self.by_pointer.get(&at).ok_or(Unbounded::Unresolved)?);
        } else {
            targets.push(
                *self
                    .anchors
                    .get(&(document, fragment.clone()))
                    .ok_or(Unbounded::Unresolved)?,
            );
        }
        if reference.dynamic {
            let name = if raw.ends_with('#') {
                ""
            } else {
                fragment.as_str()
            };
            targets.extend(self.dynamic_anchors.get(name).into_iter().flatten());
        }
        Ok(targets)
    }
}

/// How a subschema is reached from the one holding it.
enum Edge {
    /// Applied to the same value.
    InPlace,
    /// Applied to the member of this name.
    Key(String),
    /// Applied to any member.
    AnyKey,
    /// Applied to the item at this position.
    Position(usize),
    /// Applied to any item.
    AnyItem,
    /// Not applied by its holder (a definition).
    None,
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    /// `a_i = {kw: [$ref a_{i+1}, $ref a_{i+1}]}`, `a_n` a string, and a
    /// property `x` referring to `a_0`.
    fn fan(n: usize, keyword: &str) -> Value {
        let mut defs = serde_json::Map::new();
        for i in 0..n {
            let next = format!("#/$defs/a{}", i + 1);
            defs.insert(
                format!("a{i}"),
                json!({keyword: [{"$ref": next}, {"$ref": next}]}),
            );
        }
        defs.insert(format!("a{n}"), json!({"type": "string"}));
        json!({"type": "object", "$defs": defs, "properties": {"x": {"$ref": "#/$defs/a0"}}})
    }

    fn graph(schema: &Value) -> Graph {
        Graph::of(schema, Draft::Draft202012).expect("bounded")
    }

    #[test]
    fn a_fan_of_references_is_counted_by_its_paths() {
        for keyword in ["oneOf", "anyOf", "allOf"] {
            let g = graph(&fan(20, keyword));
            // a0 reaches a20 by 2^20 paths; with the ref nodes between, the
            // closure of a0 counts them all.
            assert!(g.fan_out().unwrap() > 1 << 20, "{keyword}");
            let args = json!({"x": 5});
            assert_eq!(g.cost(&args, 1000), None, "{keyword}");
            // A schema that does not fan out costs a few applications.
            let small = graph(&fan(2, keyword));
            assert!(small.cost(&args, 1000).unwrap() < 20);
        }
    }

    #[test]
    fn recursion_through_members_costs_what_the_instance_holds() {
        // A tree: left and right are different members, so each value is
        // checked against a few subschemas however deep it nests.
        let tree = json!({"$defs": {"node": {"anyOf": [
            {"type": "number"},
            {"type": "object", "properties": {"left": {"$ref": "#/$defs/node"}, "right": {"$ref": "#/$defs/node"}}}
        ]}}, "$ref": "#/$defs/node"});
        let g = graph(&tree);
        assert!(g.fan_out().unwrap() < 10);
        let mut value = json!(1);
        for _ in 0..100 {
            value = json!({"left": value, "right": 2});
        }
        let cost = g.cost(&value, 1_000_000).expect("within budget");
        assert!(cost < 100 * 40, "{cost}");
        // The same member named twice: each level doubles.
        let doubling = json!({"$defs": {"node": {"anyOf": [
            {"properties": {"x": {"$ref": "#/$defs/node"}}},
            {"properties": {"x": {"$ref": "#/$defs/node"}}}
        ]}}, "$ref": "#/$defs/node"});
        let g = graph(&doubling);
        let mut value = json!(1);
        for _ in 0..40 {
            value = json!({ "x": value });
        }
        assert_eq!(g.cost(&value, 1_000_000), None);
    }

    #[test]
    fn every_item_and_every_member_is_counted() {
        let schema = json!({"type": "object", "additionalProperties": {"allOf": [{"type": "integer"}, {"minimum": 0}]},
                            "properties": {"list": {"items": {"type": "string"}}}});
        let g = graph(&schema);
        let value = json!({"a": 1, "b": 2, "list": ["x", "y", "z"]});
        // Root, then each of a, b (its schema and two allOf branches) and
        // list (additionalProperties applies too, and its branches), then
        // each item.
        assert_eq!(g.cost(&value, 1000), Some(1 + 3 + 3 + (1 + 3) + 3));
    }

    #[test]
    fn references_resolve_through_ids_anchors_and_cycles() {
        let schema = json!({
            "$id": "https://example.com/root.json",
            "$defs": {
                "a": {"$id": "a.json", "$defs": {"inner": {"$anchor": "in", "type": "string"}},
                      "properties": {"p": {"$ref": "#in"}}},
                "loop": {"allOf": [{"$ref": "#/$defs/loop"}]}
            },
            "properties": {"x": {"$ref": "a.json"}, "y": {"$ref": "#/$defs/loop"}}
        });
        let g = graph(&schema);
        let cost = g
            .cost(&json!({"x": {"p": "s"}, "y": 1}), 1000)
            .expect("bounded");
        assert!(cost < 20, "{cost}");
        // A reference to nothing this analysis knows cannot be bounded.
        assert_eq!(
            Graph::of(&json!({"$ref": "#/nowhere"}), Draft::Draft202012).err(),
            Some(Unbounded::Unresolved)
        );
    }

    #[test]
    fn before_2019_a_reference_hides_its_siblings() {
        let schema = json!({"definitions": {"s": {"type": "string"}},
                            "properties": {"x": {"$ref": "#/definitions/s", "allOf": [{}, {}, {}]}}});
        let draft7 = Graph::of(&schema, Draft::Draft7).expect("bounded");
        let draft2020 = Graph::of(&schema, Draft::Draft202012).expect("bounded");
        let value = json!({"x": "s"});
        assert!(draft7.cost(&value, 100).unwrap() < draft2020.cost(&value, 100).unwrap());
    }
}
