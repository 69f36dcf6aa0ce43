//! The size a value's text would take parsed ([`super::patch::size_of`]),
//! counted from the text without building the value.
//!
//! A stream's state snapshots are kept as their text until a delta needs
//! the state as a value ([`super::state`]): most snapshots are followed by
//! another snapshot, not a delta, and building each into a `Value` on the
//! one thread that sequences a stream cost more than checking it. The
//! budget is still charged what the value would take, so that what is
//! reported does not depend on when the value is built.

use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};

use super::patch::{slot_of_key, OBJECT_BYTES, VALUE_BYTES};

/// What [`super::patch::size_of`] counts for the value `text` holds, or
/// `None` when `text` is not one JSON value.
pub(super) fn size_of_text(text: &str) -> Option<u64> {
    let mut size = 0u64;
    let mut deserializer = serde_json::Deserializer::from_str(text);
    Counted { size: &mut size }
        .deserialize(&mut deserializer)
        .ok()?;
    deserializer.end().ok()?;
    Some(size)
}

/// Adds the size of the value it reads to `size`.
struct Counted<'s> {
    size: &'s mut u64,
}

impl Counted<'_> {
    fn add(&mut self, bytes: u64) {
        *self.size = self.size.saturating_add(bytes);
    }
}

impl<'de> DeserializeSeed<'de> for Counted<'_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_any(self)
    }
}

/// A member's key, counted as an object's entry for it.
struct Key<'s> {
    size: &'s mut u64,
}

impl<'de> DeserializeSeed<'de> for Key<'_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_str(self)
    }
}

impl Visitor<'_> for Key<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a key")
    }

    fn visit_str<E: de::Error>(self, key: &str) -> Result<(), E> {
        *self.size = self.size.saturating_add(slot_of_key(key));
        Ok(())
    }
}

impl<'de> Visitor<'de> for Counted<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E: de::Error>(mut self, _: bool) -> Result<(), E> {
        self.add(VALUE_BYTES);
        Ok(())
    }

    fn visit_i64<E: de::Error>(mut self, _: i64) -> Result<(), E> {
        self.add(VALUE_BYTES);
        Ok(())
    }

    fn visit_u64<E: de::Error>(mut self, _: u64) -> Result<(), E> {
        self.add(VALUE_BYTES);
        Ok(())
    }

    fn visit_f64<E: de::Error>(mut self, _: f64) -> Result<(), E> {
        self.add(VALUE_BYTES);
        Ok(())
    }

    fn visit_unit<E: de::Error>(mut self) -> Result<(), E> {
        self.add(VALUE_BYTES);
        Ok(())
    }

    fn visit_str<E: de::Error>(mut self, text: &str) -> Result<(), E> {
        self.add(VALUE_BYTES.saturating_add(text.len() as u64));
        Ok(())
    }

    fn visit_seq<A: SeqAccess<'de>>(mut self, mut seq: A) -> Result<(), A::Error> {
        self.add(VALUE_BYTES);
        while seq
            .next_element_seed(Counted {
                size: &mut *self.size,
            })?
            .is_some()
        {}
        Ok(())
    }

    fn visit_map<A: MapAccess<'de>>(mut self, mut map: A) -> Result<(), A::Error> {
        self.add(VALUE_BYTES.saturating_add(OBJECT_BYTES));
        while map
            .next_key_seed(Key {
                size: &mut *self.size,
            })?
            .is_some()
        {
            map.next_value_seed(Counted {
                size: &mut *self.size,
            })?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;
    use serde_json::{json, Value};

    use super::super::patch::size_of;
    use super::*;

    fn from_value(value: &Value) -> u64 {
        size_of(value, u64::MAX).0
    }

    #[test]
    fn counts_what_the_value_would_take() {
        for value in [
            json!(null),
            json!(true),
            json!(-3),
            json!(1.5),
            json!(18_446_744_073_709_551_615u64),
            json!("déjà"),
            json!([]),
            json!({}),
            json!({"a": [1, "two", {"three": null}], "é\n": {"b": {"c": [[]]}}}),
        ] {
            let text = serde_json::to_string(&value).expect("serialize");
            assert_eq!(size_of_text(&text), Some(from_value(&value)), "{text}");
        }
        // Escapes are counted as the text they stand for.
        let escaped = r#"{"k\u00e9y": "a\nb\u0041"}"#;
        let value: Value = serde_json::from_str(escaped).expect("JSON");
        assert_eq!(size_of_text(escaped), Some(from_value(&value)));
        assert_eq!(size_of_text("{\"a\": 1} x"), None);
        assert_eq!(size_of_text("[1,"), None);
    }

    fn any_value() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::from),
            any::<i64>().prop_map(Value::from),
            any::<f64>()
                .prop_filter("finite", |f| f.is_finite())
                .prop_map(Value::from),
            ".{0,12}".prop_map(Value::from),
        ];
        leaf.prop_recursive(4, 48, 6, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
                prop::collection::btree_map(".{0,6}", inner, 0..6)
                    .prop_map(|m| Value::Object(m.into_iter().collect())),
            ]
        })
    }

    proptest! {
        #[test]
        fn text_and_value_agree(value in any_value()) {
            let text = serde_json::to_string(&value).expect("serialize");
            prop_assert_eq!(size_of_text(&text), Some(from_value(&value)));
        }
    }
}
