//! Tool schemas compared and hashed without their annotations: a string
//! `description`, `title` or `$comment` where a schema (not a property
//! name, not a value) holds it, which no validator reads.
//!
//! A schema is read as a sequence of tokens, without recursion (schemas may
//! be deep), each value's position told from its parent's keyword: the
//! values of `properties` are schemas, those of `enum` are not.

use std::hash::{BuildHasher, Hash, Hasher};
use std::sync::LazyLock;

use serde_json::{Number, Value};

/// The annotations left out, when their value is a string.
const ANNOTATIONS: [&str; 3] = ["description", "title", "$comment"];

/// The seed of [`hash`], one per process.
static SCHEMA_HASHER: LazyLock<foldhash::quality::RandomState> =
    LazyLock::new(foldhash::quality::RandomState::default);

/// A hash of `schema` without its annotations: schemas [`same`] holds
/// equal hash equally.
pub(super) fn hash(schema: &Value) -> u64 {
    let mut hasher = SCHEMA_HASHER.build_hasher();
    for token in Tokens::of(schema) {
        token.hash(&mut hasher);
    }
    hasher.finish()
}

/// Whether `a` and `b` are the same schema but for their annotations (and
/// the order of their keys, which only costs a miss).
pub(super) fn same(a: &Value, b: &Value) -> bool {
    Tokens::of(a).eq(Tokens::of(b))
}

/// What a value's position in a schema says of it.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Position {
    /// A schema, whose annotations are left out.
    Schema,
    /// An object whose every value is a schema (`properties`).
    Schemas,
    /// A schema or a list of schemas (`items`, `anyOf`).
    SchemaOrList,
    /// Anything else: kept whole.
    Plain,
}

/// The position of the value of keyword `key` of a schema.
fn position_of(key: &str) -> Position {
    match key {
        "properties" | "patternProperties" | "$defs" | "definitions" | "dependentSchemas"
        | "dependencies" => Position::Schemas,
        "items" | "prefixItems" | "allOf" | "anyOf" | "oneOf" | "additionalItems" => {
            Position::SchemaOrList
        }
        // A `not` schema is kept whole: an argument it refuses is
        // reported with the schema quoted.
        "not" => Position::Plain,
        "additionalProperties"
        | "if"
        | "then"
        | "else"
        | "contains"
        | "propertyNames"
        | "unevaluatedProperties"
        | "unevaluatedItems"
        | "contentSchema" => Position::Schema,
        _ => Position::Plain,
    }
}

/// One step of reading a value.
#[derive(PartialEq, Hash)]
enum Token<'a> {
    Null,
    Bool(bool),
    Number(NumberBits),
    Str(&'a str),
    Array(usize),
    Object(usize),
    Key(&'a str),
}

/// A number as its integer or float bits, without formatting it.
#[derive(PartialEq, Eq, Hash)]
enum NumberBits {
    Unsigned(u64),
    Signed(i64),
    Float(u64),
    Other,
}

impl NumberBits {
    fn of(n: &Number) -> NumberBits {
        match (n.as_u64(), n.as_i64(), n.as_f64()) {
            (Some(u), _, _) => NumberBits::Unsigned(u),
            (_, Some(i), _) => NumberBits::Signed(i),
            (_, _, Some(f)) => NumberBits::Float(f.to_bits()),
            _ => NumberBits::Other,
        }
    }
}

/// What is left to read.
enum Frame<'a> {
    Value(&'a Value, Position),
    Key(&'a str),
}

/// The tokens of a schema, annotations left out.
struct Tokens<'a> {
    stack: Vec<Frame<'a>>,
}

impl<'a> Tokens<'a> {
    fn of(schema: &'a Value) -> Tokens<'a> {
        Tokens {
            stack: vec![Frame::Value(schema, Position::Schema)],
        }
    }
}

impl<'a> Iterator for Tokens<'a> {
    type Item = Token<'a>;

    fn next(&mut self) -> Option<Token<'a>> {
        let (value, position) = match self.stack.pop()? {
            Frame::Key(key) => return Some(Token::Key(key)),
            Frame::Value(value, position) => (value, position),
        };
        Some(match value {
            Value::Null => Token::Null,
            Value::Bool(b) => Token::Bool(*b),
            Value::Number(n) => Token::Number(NumberBits::of(n)),
            Value::String(s) => Token::Str(s),
            Value::Array(items) => {
                let inner = match position {
                    Position::SchemaOrList => Position::Schema,
                    _ => Position::Plain,
                };
                for item in items.iter().rev() {
                    self.stack.push(Frame::Value(item, inner));
                }
                Token::Array(items.len())
            }
            Value::Object(members) => {
                let in_schema = matches!(position, Position::Schema | Position::SchemaOrList);
                let kept = |(key, member): &(&'a String, &'a Value)| {
                    !(in_schema && ANNOTATIONS.contains(&key.as_str()) && member.is_string())
                };
                // Counted, then stacked last first: no list of the kept.
                let count = members.iter().filter(kept).count();
                for (key, member) in members.iter().rev().filter(kept) {
                    let inner = match position {
                        Position::Schema | Position::SchemaOrList => position_of(key),
                        Position::Schemas => Position::Schema,
                        Position::Plain => Position::Plain,
                    };
                    self.stack.push(Frame::Value(member, inner));
                    self.stack.push(Frame::Key(key));
                }
                Token::Object(count)
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn annotations_are_left_out_where_a_schema_holds_them() {
        let a = json!({"type": "object", "description": "a", "properties": {
            "q": {"type": "string", "title": "Q", "$comment": "c"},
            "list": {"type": "array", "items": [{"description": "first"}], "anyOf": [{"title": "x"}]}
        }});
        let b = json!({"type": "object", "description": "b", "properties": {
            "q": {"type": "string", "title": "Other"},
            "list": {"type": "array", "items": [{"description": "second"}], "anyOf": [{}]}
        }});
        assert!(same(&a, &b));
        assert_eq!(hash(&a), hash(&b));
    }

    #[test]
    fn what_is_not_an_annotation_is_kept() {
        // A property named `description`, a value in `enum` or `const`, a
        // description that is not a string, and structure.
        let pairs = [
            (
                json!({"properties": {"description": {}}}),
                json!({"properties": {"title": {}}}),
            ),
            (
                json!({"enum": [{"description": "a"}]}),
                json!({"enum": [{"description": "b"}]}),
            ),
            (
                json!({"const": {"title": "a"}}),
                json!({"const": {"title": "b"}}),
            ),
            (json!({"description": 1}), json!({"description": 2})),
            (
                json!({"required": ["description"]}),
                json!({"required": ["title"]}),
            ),
            (json!([1, [2]]), json!([[1], 2])),
            (json!({"a": "b"}), json!({"b": "a"})),
            (
                json!({"not": {"description": "a"}}),
                json!({"not": {"description": "b"}}),
            ),
            (json!({"type": "string"}), json!({"type": "integer"})),
        ];
        for (a, b) in &pairs {
            assert!(!same(a, b), "{a} {b}");
            assert_ne!(hash(a), hash(b), "{a} {b}");
        }
        let deep = json!({"a": [1, {"b": null, "c": 1.5}]});
        assert!(same(&deep, &deep.clone()));
        assert_eq!(hash(&deep), hash(&deep.clone()));
    }
}
