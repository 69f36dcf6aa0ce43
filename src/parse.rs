//! Bytes to a JSON value, noticing what `serde_json::Value` hides.
//!
//! A plain `serde_json::from_slice::<Value>` silently keeps the last of two
//! equal keys in one object; parsers disagree on which wins, so a repeated
//! key is reported (`duplicate-key`). The value is built by our own visitor,
//! which tracks the path so each repetition can be pointed at.

use std::collections::HashSet;
use std::fmt;

use serde::de::{self, DeserializeSeed, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};

use crate::pointer;

/// A parsed document and what the parser noticed on the way.
#[derive(Debug, Clone, PartialEq)]
pub struct Parsed {
    /// The document, with the last of any repeated keys kept (as
    /// `serde_json` does).
    pub value: Value,
    /// Each repeated key: the pointer of the key and which repetition it is
    /// (1 for the second occurrence).
    pub repeated_keys: Vec<(String, usize)>,
}

/// Why bytes are not a JSON document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SyntaxError {
    /// What is wrong, as the parser says it.
    pub message: String,
    /// 1-based line of the offending byte.
    pub line: usize,
    /// 1-based byte column within the line, as the parser counts it.
    pub byte_column: usize,
}

/// Parses one JSON document.
pub fn parse(bytes: &[u8]) -> Result<Parsed, SyntaxError> {
    let mut deserializer = serde_json::Deserializer::from_slice(bytes);
    let mut state = State::default();
    let result = ValueSeed { state: &mut state }
        .deserialize(&mut deserializer)
        .and_then(|value| deserializer.end().map(|()| value));
    match result {
        Ok(value) => Ok(Parsed {
            value,
            repeated_keys: state.repeated,
        }),
        Err(error) => Err(SyntaxError {
            message: strip_position(&error.to_string()),
            line: error.line(),
            byte_column: error.column(),
        }),
    }
}

/// serde_json appends " at line L column C"; the location is reported on
/// its own.
fn strip_position(message: &str) -> String {
    match message.rfind(" at line ") {
        Some(i) => message[..i].to_string(),
        None => message.to_string(),
    }
}

#[derive(Default)]
struct State {
    path: Vec<String>,
    repeated: Vec<(String, usize)>,
}

impl State {
    fn pointer_to(&self, key: &str) -> String {
        let mut out = String::new();
        for token in &self.path {
            out.push('/');
            out.push_str(&pointer::escape(token));
        }
        pointer::push(&out, key)
    }
}

struct ValueSeed<'s> {
    state: &'s mut State,
}

impl<'de> DeserializeSeed<'de> for ValueSeed<'_> {
    type Value = Value;

    fn deserialize<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for ValueSeed<'_> {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }

    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        Ok(Number::from_f64(v).map_or(Value::Null, Value::Number))
    }

    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_owned()))
    }

    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0));
        loop {
            self.state.path.push(items.len().to_string());
            let next = seq.next_element_seed(ValueSeed {
                state: &mut *self.state,
            });
            self.state.path.pop();
            match next? {
                Some(item) => items.push(item),
                None => break,
            }
        }
        Ok(Value::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut object = Map::new();
        // Counts repetitions only for keys seen more than once.
        let mut seen: HashSet<String> = HashSet::new();
        let mut repeats: Vec<(String, usize)> = Vec::new();
        while let Some(key) = map.next_key::<String>()? {
            if !seen.insert(key.clone()) {
                let count = match repeats.iter_mut().find(|(k, _)| *k == key) {
                    Some((_, n)) => {
                        *n += 1;
                        *n
                    }
                    None => {
                        repeats.push((key.clone(), 1));
                        1
                    }
                };
                let at = self.state.pointer_to(&key);
                self.state.repeated.push((at, count));
            }
            self.state.path.push(key.clone());
            let value = map.next_value_seed(ValueSeed {
                state: &mut *self.state,
            });
            self.state.path.pop();
            let value = value?;
            // Like serde_json, the last occurrence wins, but in the position
            // of the first so that document order is kept.
            object.insert(key, value);
        }
        Ok(Value::Object(object))
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn parses_like_serde_json() {
        let text = br#"{"a": [1, -2, 3.5, true, null, "x"], "b": {"c": {}}}"#;
        let parsed = parse(text).unwrap();
        assert_eq!(parsed.value, serde_json::from_slice::<Value>(text).unwrap());
        assert!(parsed.repeated_keys.is_empty());
    }

    #[test]
    fn notices_repeated_keys_with_their_pointers() {
        let parsed = parse(br#"{"a": 1, "b": [{"x/y": 1, "x/y": 2, "x/y": 3}], "a": 2}"#).unwrap();
        assert_eq!(parsed.value, json!({"a": 2, "b": [{"x/y": 3}]}));
        assert_eq!(
            parsed.repeated_keys,
            vec![
                ("/b/0/x~1y".to_string(), 1),
                ("/b/0/x~1y".to_string(), 2),
                ("/a".to_string(), 1)
            ]
        );
    }

    #[test]
    fn reports_syntax_errors_with_position() {
        let error = parse(b"{\n  \"a\": 1,\n}").unwrap_err();
        assert_eq!((error.line, error.byte_column), (3, 1));
        assert_eq!(error.message, "trailing comma");
        assert!(parse(b"{} x").is_err());
        assert!(parse(b"").is_err());
    }
}
