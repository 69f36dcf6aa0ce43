//! Finds the references (`$ref`, `$dynamicRef`, `$recursiveRef`) and the
//! `$schema` keywords inside a tool's `parameters`, and tells which
//! references name a document outside `parameters`, and so would need the
//! network, the file system or some other retrieval.
//!
//! The walk follows only keywords that hold subschemas (as the `referencing`
//! crate under `jsonschema` does), so a `"$ref"` inside `const`, `enum`,
//! `default` or `examples` is data, not a reference, and a property *named*
//! `$ref` under `properties` is a name. It uses an explicit stack, so the
//! depth of a hostile schema cannot overflow ours.

// foldhash: seeded per process, so keys a client chooses cannot collide at
// will, and several times faster than SipHash on short keys.
use foldhash::{HashSet, HashSetExt};

use jsonschema::Draft;
use serde_json::Value;
use url::Url;

use crate::pointer;

/// The base URI of a schema without `$id`: the one `jsonschema` uses, so
/// that a relative reference resolves here exactly as it would there.
pub(super) const DEFAULT_BASE: &str = "json-schema:///";

/// The reference keywords of every supported draft.
const REFERENCE_KEYWORDS: [&str; 3] = ["$ref", "$dynamicRef", "$recursiveRef"];

/// Keywords whose value is one subschema (or, for `items` before 2020-12,
/// possibly an array of them).
const SINGLE: &[&str] = &[
    "additionalItems",
    "additionalProperties",
    "contains",
    "contentSchema",
    "else",
    "if",
    "items",
    "not",
    "propertyNames",
    "then",
    "unevaluatedItems",
    "unevaluatedProperties",
];

/// Keywords whose value is an array of subschemas.
const ARRAY: &[&str] = &["allOf", "anyOf", "oneOf", "prefixItems"];

/// Keywords whose value is an object of subschemas. `dependencies` mixes
/// subschemas and arrays of names; only its object members are schemas.
const OBJECT: &[&str] = &[
    "$defs",
    "definitions",
    "dependentSchemas",
    "dependencies",
    "patternProperties",
    "properties",
];

/// Keywords only a compile can check beyond the meta-schema: references
/// and identifiers (do they resolve, are they URIs), vocabularies, and
/// patterns (are they regular expressions). A schema without any is
/// checked completely by meta-validation.
const COMPILE_KEYWORDS: &[&str] = &[
    "$ref",
    "$dynamicRef",
    "$recursiveRef",
    "$id",
    "id",
    "$anchor",
    "$dynamicAnchor",
    "$recursiveAnchor",
    "$vocabulary",
    "pattern",
    "patternProperties",
];

/// One reference keyword in `parameters`.
#[derive(Debug, Clone)]
pub(super) struct Reference {
    /// Pointer to the keyword's value, relative to `parameters`.
    pub pointer: String,
    /// `$ref`, `$dynamicRef` or `$recursiveRef`.
    pub keyword: &'static str,
    /// The reference as written.
    pub raw: String,
    /// Where it leads.
    pub target: Target,
}

/// Where a reference leads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Target {
    /// Into `parameters` itself (a `#...` fragment, or a URI that an `$id`
    /// inside `parameters` declares).
    Local,
    /// Outside `parameters`.
    Outside(Outside),
    /// Not a URI reference at all; the compile step reports it.
    Malformed,
}

/// How a reference outside `parameters` would have to be retrieved.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Outside {
    /// An `http` or `https` URI.
    Network,
    /// A `file` URI.
    File,
    /// A relative reference with no `$id` to resolve it against.
    Relative,
    /// Any other absolute URI (`urn:`, ...), known to no registry here.
    Other,
}

impl Outside {
    /// How the retrieval is described in a message.
    pub fn describe(self) -> &'static str {
        match self {
            Outside::Network => "would be fetched over the network",
            Outside::File => "would be read from the file system",
            Outside::Relative => {
                "names another document, and parameters has no base URI to resolve it against"
            }
            Outside::Other => "names a document outside parameters",
        }
    }
}

/// Everything the walk found.
#[derive(Debug, Default)]
pub(super) struct Scan<'a> {
    /// The references, in document order.
    pub references: Vec<Reference>,
    /// Each `$schema` below the root, with the pointer to its value.
    pub nested_schemas: Vec<(String, &'a Value)>,
    /// Whether a schema object has a keyword only a compile checks.
    pub needs_compile: bool,
}

/// Walks `root` (a `parameters` schema of dialect `draft`).
pub(super) fn scan(root: &Value, draft: Draft) -> Scan<'_> {
    let mut scan = Scan::default();
    // The default base always parses; without it nothing can be resolved,
    // and the compile step still reports what does not resolve.
    let Ok(default_base) = Url::parse(DEFAULT_BASE) else {
        return scan;
    };
    let mut resources: HashSet<String> = HashSet::new();
    resources.insert(document_of(&default_base));
    let mut pending: Vec<(&str, String, Url, &'static str)> = Vec::new();
    let mut stack: Vec<(&Value, String, Url)> = vec![(root, String::new(), default_base)];
    while let Some((value, at, base)) = stack.pop() {
        let Some(object) = value.as_object() else {
            continue;
        };
        scan.needs_compile |= COMPILE_KEYWORDS.iter().any(|k| object.contains_key(*k));
        let base = match id_of(object, draft).and_then(|id| base.join(id).ok()) {
            Some(mut resource) => {
                resource.set_fragment(None);
                resources.insert(resource.to_string());
                resource
            }
            None => base,
        };
        for keyword in REFERENCE_KEYWORDS {
            if let Some(raw) = object.get(keyword).and_then(Value::as_str) {
                pending.push((raw, pointer::push(&at, keyword), base.clone(), keyword));
            }
        }
        if !at.is_empty() {
            if let Some(schema) = object.get("$schema") {
                scan.nested_schemas
                    .push((pointer::push(&at, "$schema"), schema));
            }
        }
        // Pushed in reverse so that the stack pops in document order.
        let mut children: Vec<(&Value, String)> = Vec::new();
        for (key, child) in object {
            let here = pointer::push(&at, key);
            if SINGLE.contains(&key.as_str()) {
                match child {
                    Value::Array(items) => children.extend(
                        items
                            .iter()
                            .enumerate()
                            .map(|(i, item)| (item, format!("{here}/{i}"))),
                    ),
                    other => children.push((other, here)),
                }
            } else if ARRAY.contains(&key.as_str()) {
                if let Value::Array(items) = child {
                    children.extend(
                        items
                            .iter()
                            .enumerate()
                            .map(|(i, item)| (item, format!("{here}/{i}"))),
                    );
                }
            } else if OBJECT.contains(&key.as_str()) {
                if let Value::Object(members) = child {
                    children.extend(
                        members
                            .iter()
                            .map(|(name, member)| (member, pointer::push(&here, name))),
                    );
                }
            }
        }
        for (child, here) in children.into_iter().rev() {
            stack.push((child, here, base.clone()));
        }
    }
    // Resolved after the walk: a reference may name a resource whose `$id`
    // comes later in the document.
    scan.references = pending
        .into_iter()
        .map(|(raw, at, base, keyword)| Reference {
            pointer: at,
            keyword,
            target: target_of(raw, &base, &resources),
            raw: raw.to_string(),
        })
        .collect();
    scan
}

/// The identifier of a schema object, as `referencing` reads it: `id` in
/// draft-04, `$id` after; before 2019-09 an identifier that is only a
/// fragment is an anchor, and one beside `$ref` is ignored.
pub(super) fn id_of(object: &serde_json::Map<String, Value>, draft: Draft) -> Option<&str> {
    match draft {
        Draft::Draft4 | Draft::Draft6 | Draft::Draft7 => {
            let keyword = if draft == Draft::Draft4 { "id" } else { "$id" };
            let id = object.get(keyword)?.as_str()?;
            (!object.contains_key("$ref") && !id.starts_with('#')).then_some(id)
        }
        _ => object.get("$id")?.as_str(),
    }
}

fn target_of(raw: &str, base: &Url, resources: &HashSet<String>) -> Target {
    let Ok(resolved) = base.join(raw) else {
        return Target::Malformed;
    };
    if resources.contains(&document_of(&resolved)) {
        return Target::Local;
    }
    Target::Outside(match resolved.scheme() {
        "http" | "https" => Outside::Network,
        "file" => Outside::File,
        "json-schema" => Outside::Relative,
        _ => Outside::Other,
    })
}

/// `url` without its fragment: the document it names.
pub(super) fn document_of(url: &Url) -> String {
    let mut document = url.clone();
    document.set_fragment(None);
    document.to_string()
}

/// The fragment of a reference as written (after the first `#`),
/// percent-decoded, as `jsonschema` reports it in its errors.
pub(super) fn fragment(raw: &str) -> Option<String> {
    let (_, fragment) = raw.split_once('#')?;
    let bytes = fragment.as_bytes();
    let mut decoded = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while let Some(&byte) = bytes.get(i) {
        let escaped = match (byte, bytes.get(i + 1), bytes.get(i + 2)) {
            (b'%', Some(&high), Some(&low)) => hex(high).zip(hex(low)),
            _ => None,
        };
        match escaped {
            Some((high, low)) => {
                decoded.push(high * 16 + low);
                i += 3;
            }
            None => {
                decoded.push(byte);
                i += 1;
            }
        }
    }
    Some(String::from_utf8_lossy(&decoded).into_owned())
}

fn hex(digit: u8) -> Option<u8> {
    match digit {
        b'0'..=b'9' => Some(digit - b'0'),
        b'a'..=b'f' => Some(digit - b'a' + 10),
        b'A'..=b'F' => Some(digit - b'A' + 10),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn targets(schema: &Value, draft: Draft) -> Vec<(String, Target)> {
        scan(schema, draft)
            .references
            .into_iter()
            .map(|r| (r.pointer, r.target))
            .collect()
    }

    #[test]
    fn fragments_are_local_everything_else_outside() {
        let schema = json!({
            "properties": {
                "a": {"$ref": "#/$defs/a"},
                "b": {"$ref": "#anchor"},
                "c": {"$ref": "http://127.0.0.1:9/x.json"},
                "d": {"$ref": "file:///etc/passwd"},
                "e": {"$ref": "other.json#/x"},
                "f": {"$ref": "urn:example:thing"},
                "g": {"$dynamicRef": "#meta"},
                "h": {"$ref": "http://[bad"},
                "i": {"$ref": ""}
            }
        });
        assert_eq!(
            targets(&schema, Draft::Draft202012),
            vec![
                ("/properties/a/$ref".into(), Target::Local),
                ("/properties/b/$ref".into(), Target::Local),
                (
                    "/properties/c/$ref".into(),
                    Target::Outside(Outside::Network)
                ),
                ("/properties/d/$ref".into(), Target::Outside(Outside::File)),
                (
                    "/properties/e/$ref".into(),
                    Target::Outside(Outside::Relative)
                ),
                ("/properties/f/$ref".into(), Target::Outside(Outside::Other)),
                ("/properties/g/$dynamicRef".into(), Target::Local),
                ("/properties/h/$ref".into(), Target::Malformed),
                ("/properties/i/$ref".into(), Target::Local),
            ]
        );
    }

    #[test]
    fn an_id_inside_parameters_makes_its_uri_local() {
        let schema = json!({
            "$id": "https://example.com/tool.json",
            "properties": {
                "a": {"$ref": "https://example.com/tool.json#/$defs/a"},
                "b": {"$ref": "#/$defs/a"},
                "c": {"$ref": "item.json"},
                "d": {"$ref": "https://example.com/later.json"},
                "e": {"$id": "https://example.com/later.json"}
            }
        });
        assert_eq!(
            targets(&schema, Draft::Draft202012),
            vec![
                ("/properties/a/$ref".into(), Target::Local),
                ("/properties/b/$ref".into(), Target::Local),
                (
                    "/properties/c/$ref".into(),
                    Target::Outside(Outside::Network)
                ),
                ("/properties/d/$ref".into(), Target::Local),
            ]
        );
    }

    #[test]
    fn draft_04_uses_id_and_fragment_ids_are_anchors() {
        let schema = json!({
            "id": "http://example.com/root.json",
            "properties": {"a": {"$ref": "item.json"}, "b": {"id": "#b"}}
        });
        assert_eq!(
            targets(&schema, Draft::Draft4),
            vec![(
                "/properties/a/$ref".into(),
                Target::Outside(Outside::Network)
            )]
        );
        // Under 2020-12 `id` means nothing: the reference is relative.
        assert_eq!(
            targets(&schema, Draft::Draft202012),
            vec![(
                "/properties/a/$ref".into(),
                Target::Outside(Outside::Relative)
            )]
        );
    }

    #[test]
    fn only_subschema_keywords_are_walked() {
        let schema = json!({
            "const": {"$ref": "http://example.com/a"},
            "default": {"$ref": "http://example.com/b"},
            "examples": [{"$ref": "http://example.com/c"}],
            "x-vendor": {"$ref": "http://example.com/d"},
            "properties": {"$ref": {"type": "string"}, "$schema": {"type": "string"}},
            "items": [{"$ref": "#/a"}],
            "dependencies": {"a": ["b"], "c": {"$ref": "#/c"}},
            "allOf": [{"not": {"$schema": "urn:x"}}]
        });
        let found = scan(&schema, Draft::Draft7);
        let pointers: Vec<_> = found
            .references
            .iter()
            .map(|r| r.pointer.as_str())
            .collect();
        assert_eq!(pointers, ["/items/0/$ref", "/dependencies/c/$ref"]);
        let schemas: Vec<_> = found
            .nested_schemas
            .iter()
            .map(|(p, _)| p.as_str())
            .collect();
        assert_eq!(schemas, ["/allOf/0/not/$schema"]);
    }

    #[test]
    fn keys_are_escaped_in_pointers() {
        let schema = json!({"properties": {"a/b~c": {"$ref": "http://example.com/"}}});
        assert_eq!(
            scan(&schema, Draft::Draft202012).references[0].pointer,
            "/properties/a~1b~0c/$ref"
        );
    }

    #[test]
    fn deep_schemas_do_not_overflow_the_stack() {
        let mut schema = json!({"$ref": "http://example.com/"});
        for _ in 0..5_000 {
            // Not `json!`, which would serialize the nested value recursively.
            let mut wrapper = serde_json::Map::new();
            wrapper.insert("not".to_string(), schema);
            schema = Value::Object(wrapper);
        }
        assert_eq!(scan(&schema, Draft::Draft202012).references.len(), 1);
        // Dropping a deep Value recurses inside serde_json (not our code);
        // leak it so that the test measures only the walk.
        std::mem::forget(schema);
    }

    #[test]
    fn fragments_are_percent_decoded() {
        assert_eq!(fragment("#/$defs/a%20b").as_deref(), Some("/$defs/a b"));
        assert_eq!(fragment("x.json#/a%2"), Some("/a%2".into()));
        assert_eq!(fragment("#%e9"), Some("\u{fffd}".into()));
        assert_eq!(fragment("x.json"), None);
    }
}
