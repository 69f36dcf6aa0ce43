//! What the schema lets one key of an event hold ([`Slot`]), read once
//! from the generated schema, and whether a value fits it ([`fits`]),
//! checked as the full path checks every value: keys unique, numbers
//! interoperable, `null` only where the schema takes it.
//!
//! The slots cover the schema subset AG-UI's events use: strings (from a
//! closed set, or JSON Pointers), bounded integers, numbers, booleans,
//! open objects, `any` values, arrays of any of these (with a least
//! length), objects of known keys holding plain values (a run's
//! interrupts, its token usage), and objects told apart by a tag (the JSON Patch operations of a
//! state delta, a run's or a subagent's outcome). Anything else is
//! [`Slot::Richer`]: an event that carries it is left to the full path.

use std::fmt;

use serde::de::{self, Deserialize, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::value::RawValue;
use serde_json::{Number, Value};

use super::borrowed::{Any, Object, Str};
use crate::rules::verdict::is_interoperable;

/// The pattern the schema gives a JSON Pointer (a patch's `path`, `from`).
const POINTER_PATTERN: &str = "^(/([^/~]|~[01])*)*$";

/// What the schema asks of one key's value.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Slot {
    /// Any string.
    Str,
    /// One of these strings.
    StrIn(Vec<String>),
    /// A string, or something richer the full path judges.
    StrOrRicher,
    /// A JSON Pointer ([`POINTER_PATTERN`]).
    Pointer,
    /// An integer within these bounds.
    Integer { min: i64, max: i64 },
    /// Any number (read as the interoperability rule reads it).
    Number,
    /// `true` or `false`.
    Bool,
    /// Any value; `null` only where `null_ok`.
    Any { null_ok: bool },
    /// An object of any members.
    Object,
    /// An array of at least `min` items, each fitting `item`.
    Array { item: Box<Slot>, min: usize },
    /// An object of these keys, each a plain value ([`Slot::is_plain`]).
    Keyed(Keys),
    /// An object told apart by a tag.
    Tagged(Tagged),
    /// Something richer: the full path reads it.
    Richer,
}

/// An object told apart by the string its `tag` key holds, which the
/// object names first (as every SDK writes it).
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Tagged {
    tag: String,
    /// Each value of the tag, with the other keys it allows.
    branches: Vec<(String, Keys)>,
}

/// The keys an object may carry.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Keys {
    /// Each key with its slot.
    pub(super) keys: Vec<(String, Slot)>,
    /// The required keys, one bit per position in `keys`.
    pub(super) required: u64,
    /// Whether other keys are allowed (with any value).
    pub(super) open: bool,
}

impl Keys {
    /// The keys of the object schema `schema` but `except`, when every
    /// key's slot is one read here and the object is closed or fully open.
    pub(super) fn of(
        schema: &Value,
        defs: &serde_json::Map<String, Value>,
        except: &str,
    ) -> Option<Keys> {
        let open = match schema.get("additionalProperties") {
            None => true,
            Some(Value::Bool(false)) => false,
            Some(_) => return None,
        };
        let properties = schema.get("properties")?.as_object()?;
        let keys: Vec<(String, Slot)> = properties
            .iter()
            .filter(|(key, _)| key.as_str() != except)
            .map(|(key, schema)| (key.clone(), Slot::of(schema, defs)))
            .collect();
        if keys.len() > 64 {
            return None;
        }
        let required_keys: Vec<&str> = schema
            .get("required")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .collect();
        let mut required = 0u64;
        for (i, (key, _)) in keys.iter().enumerate() {
            if required_keys.contains(&key.as_str()) {
                required |= 1 << i;
            }
        }
        Some(Keys {
            keys,
            required,
            open,
        })
    }

    /// The slot of `key`, now marked in `seen`: `None` for a key an open
    /// object adds (any value); refused, saying why, when the object has
    /// no such key or it came before.
    pub(super) fn slot_of(&self, key: &str, seen: &mut u64) -> Result<Option<&Slot>, &'static str> {
        match self.keys.iter().position(|(k, _)| k == key) {
            Some(index) => self.mark(index, seen).map(Some),
            None if self.open => Ok(None),
            None => Err("a key the schema does not allow"),
        }
    }

    /// Which key `text` (after a key's opening quote) spells, with its
    /// closing quote: looked for as the bytes of each key, so that the
    /// key need not be scanned first. `None` when it spells none of them
    /// plainly (it may still be one, escaped).
    pub(super) fn key_at_start(&self, text: &[u8]) -> Option<usize> {
        self.keys.iter().position(|(key, _)| {
            text.get(key.len()) == Some(&b'"') && text.starts_with(key.as_bytes())
        })
    }

    /// The slot of key `index`, now marked in `seen`; refused when the key
    /// came before.
    pub(super) fn mark(&self, index: usize, seen: &mut u64) -> Result<&Slot, &'static str> {
        let bit = 1u64 << index;
        if *seen & bit != 0 {
            return Err("a repeated key");
        }
        *seen |= bit;
        Ok(&self.keys[index].1)
    }

    /// Key `index`'s name.
    pub(super) fn name(&self, index: usize) -> &str {
        &self.keys[index].0
    }

    /// Whether the keys marked in `seen` include every required one.
    pub(super) fn has_required(&self, seen: u64) -> bool {
        seen & self.required == self.required
    }

    /// Whether any key's slot is richer than this module reads.
    fn has_richer(&self) -> bool {
        self.keys.iter().any(|(_, slot)| slot.is_richer())
    }
}

impl Slot {
    /// The slot of the property schema `schema`, whose `$ref`s point into
    /// `defs`.
    pub(super) fn of(schema: &Value, defs: &serde_json::Map<String, Value>) -> Slot {
        let schema = resolve(schema, defs);
        let Some(object) = schema.as_object() else {
            return Slot::Richer;
        };
        // Keys that do not constrain the value.
        let mut constraining: Vec<(&str, &Value)> = object
            .iter()
            .filter(|(k, _)| !matches!(k.as_str(), "description" | "title" | "x-agui-since"))
            .map(|(k, v)| (k.as_str(), v))
            .collect();
        constraining.sort_by_key(|(k, _)| *k);
        let type_is = |name: &str| object.get("type").and_then(Value::as_str) == Some(name);
        match constraining.as_slice() {
            [] => Slot::Any { null_ok: true },
            [("not", not)] if **not == serde_json::json!({"type": "null"}) => {
                Slot::Any { null_ok: false }
            }
            [("type", _)] if type_is("string") => Slot::Str,
            [("pattern", pattern), ("type", _)]
                if type_is("string") && pattern.as_str() == Some(POINTER_PATTERN) =>
            {
                Slot::Pointer
            }
            [("type", _)] if type_is("number") => Slot::Number,
            [("type", _)] if type_is("boolean") => Slot::Bool,
            [("additionalProperties", open), ("type", _)]
                if type_is("object") && **open == Value::Bool(true) =>
            {
                Slot::Object
            }
            [("items", items), ("type", _)] if type_is("array") => Slot::array(items, 0, defs),
            [("items", items), ("minItems", min), ("type", _)] if type_is("array") => {
                match min.as_u64().and_then(|min| usize::try_from(min).ok()) {
                    Some(min) => Slot::array(items, min, defs),
                    None => Slot::Richer,
                }
            }
            [("additionalProperties", _), ("properties", _), ("required", _), ("type", _)]
            | [("additionalProperties", _), ("properties", _), ("type", _)]
                if type_is("object") =>
            {
                // Only plain members: an object nesting deeper (a
                // RunAgentInput a `RUN_STARTED` embeds, whose messages the
                // rules read) is the full path's.
                match Keys::of(schema, defs, "") {
                    Some(keys) if keys.keys.iter().all(|(_, slot)| slot.is_plain()) => {
                        Slot::Keyed(keys)
                    }
                    _ => Slot::Richer,
                }
            }
            [("maximum", _), ("minimum", _), ("type", _)] if type_is("integer") => {
                match (
                    object.get("minimum").and_then(Value::as_i64),
                    object.get("maximum").and_then(Value::as_i64),
                ) {
                    (Some(min), Some(max)) => Slot::Integer { min, max },
                    _ => Slot::Richer,
                }
            }
            [("discriminator", discriminator), ("oneOf", Value::Array(branches))] => discriminator
                .get("propertyName")
                .and_then(Value::as_str)
                .and_then(|tag| Slot::of_tagged(tag, branches, defs))
                .unwrap_or(Slot::Richer),
            [(alternatives, Value::Array(branches))]
                if matches!(*alternatives, "oneOf" | "anyOf") =>
            {
                Slot::of_alternatives(branches, defs)
            }
            _ => Slot::Richer,
        }
    }

    /// The slot of an array of at least `min` items of the schema `items`.
    fn array(items: &Value, min: usize, defs: &serde_json::Map<String, Value>) -> Slot {
        match Slot::of(items, defs) {
            Slot::Richer => Slot::Richer,
            item => Slot::Array {
                item: Box::new(item),
                min,
            },
        }
    }

    /// The slot of a `oneOf` whose branches are objects each with its own
    /// string constant under `tag`, when every branch's keys are read
    /// here.
    fn of_tagged(
        tag: &str,
        branches: &[Value],
        defs: &serde_json::Map<String, Value>,
    ) -> Option<Slot> {
        let branches = branches
            .iter()
            .map(|branch| {
                let branch = resolve(branch, defs);
                let plain = branch.as_object()?.keys().all(|k| {
                    matches!(
                        k.as_str(),
                        "description" | "type" | "properties" | "required" | "additionalProperties"
                    )
                });
                let value = branch.get("properties")?.get(tag)?.get("const")?.as_str()?;
                let keys = Keys::of(branch, defs, tag)?;
                let tag_required = branch
                    .get("required")
                    .and_then(Value::as_array)
                    .is_some_and(|r| r.iter().any(|k| k == tag));
                (plain && branch.get("type")? == "object" && tag_required && !keys.has_richer())
                    .then(|| (value.to_string(), keys))
            })
            .collect::<Option<Vec<(String, Keys)>>>()?;
        Some(Slot::Tagged(Tagged {
            tag: tag.to_string(),
            branches,
        }))
    }

    /// The slot of a `oneOf`/`anyOf`: a closed set of strings when every
    /// branch is a string constant; strings or richer when one branch is
    /// any string and no other takes a string.
    fn of_alternatives(branches: &[Value], defs: &serde_json::Map<String, Value>) -> Slot {
        let branches: Vec<&Value> = branches.iter().map(|b| resolve(b, defs)).collect();
        let constant = |b: &Value| -> Option<String> {
            let object = b.as_object()?;
            let plain = object
                .keys()
                .all(|k| matches!(k.as_str(), "description" | "type" | "const"));
            (plain && object.get("type")? == "string")
                .then(|| object.get("const")?.as_str().map(str::to_string))?
        };
        let constants: Vec<String> = branches.iter().filter_map(|b| constant(b)).collect();
        if !branches.is_empty() && constants.len() == branches.len() {
            return Slot::StrIn(constants);
        }
        let any_string = |b: &Value| Slot::of(b, defs) == Slot::Str;
        let strings = branches.iter().filter(|b| any_string(b)).count();
        let others_take_strings = branches
            .iter()
            .any(|b| !any_string(b) && b.get("type").and_then(Value::as_str) != Some("array"));
        if strings == 1 && !others_take_strings {
            Slot::StrOrRicher
        } else {
            Slot::Richer
        }
    }

    /// Whether a value in this slot is a scalar or an open object, which no
    /// rule reads but as the slot does.
    fn is_plain(&self) -> bool {
        matches!(
            self,
            Slot::Str
                | Slot::StrIn(_)
                | Slot::Pointer
                | Slot::Integer { .. }
                | Slot::Number
                | Slot::Bool
                | Slot::Any { .. }
                | Slot::Object
        )
    }

    /// Whether a value in this slot is left to the full path.
    pub(super) fn is_richer(&self) -> bool {
        matches!(self, Slot::Richer)
    }
}

/// `schema`, or what its local `$ref` points at.
pub(super) fn resolve<'v>(
    schema: &'v Value,
    defs: &'v serde_json::Map<String, Value>,
) -> &'v Value {
    schema
        .get("$ref")
        .and_then(Value::as_str)
        .and_then(|r| r.strip_prefix("#/$defs/"))
        .and_then(|name| defs.get(name))
        .unwrap_or(schema)
}

/// Whether the JSON text `text` (one value) fits `slot`, with nothing for
/// the parse layer or the interoperability rules to report.
pub(super) fn fits(slot: &Slot, text: &str) -> bool {
    // Every event has a timestamp: told from its text without a reader
    // (JSON text, so `+1` or `01` never reach here).
    if let Slot::Integer { min, max } = slot {
        return is_integer_in(text, *min, *max);
    }
    let mut deserializer = serde_json::Deserializer::from_str(text);
    Fit(slot).deserialize(&mut deserializer).is_ok() && deserializer.end().is_ok()
}

/// Whether the JSON text `text` is an integer from `min` to `max`: a JSON
/// number's text is an `i64`'s exactly when it is an integer in range (no
/// fraction, no exponent).
fn is_integer_in(text: &str, min: i64, max: i64) -> bool {
    text.parse::<i64>().is_ok_and(|n| (min..=max).contains(&n))
}

/// Whether the string `text` fits `slot`, a string slot.
pub(super) fn fits_str(slot: &Slot, text: &str) -> bool {
    match slot {
        Slot::Str | Slot::StrOrRicher => true,
        Slot::StrIn(allowed) => allowed.iter().any(|a| a == text),
        Slot::Pointer => is_pointer(text),
        _ => false,
    }
}

/// Whether `text` is a JSON Pointer as [`POINTER_PATTERN`] has it: empty,
/// or starting with `/`, each `~` followed by `0` or `1`.
fn is_pointer(text: &str) -> bool {
    let bytes = text.as_bytes();
    (bytes.is_empty() || bytes[0] == b'/')
        && bytes
            .iter()
            .enumerate()
            .filter(|(_, &b)| b == b'~')
            .all(|(i, _)| matches!(bytes.get(i + 1), Some(b'0' | b'1')))
}

/// Reads a value, refusing it unless it fits the slot.
struct Fit<'s>(&'s Slot);

fn refuse<E: de::Error>(why: &str) -> E {
    E::custom(why)
}

impl<'de> DeserializeSeed<'de> for Fit<'_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        match self.0 {
            Slot::Str | Slot::StrOrRicher | Slot::StrIn(_) | Slot::Pointer => {
                if fits_str(self.0, Str::deserialize(deserializer)?.as_str()) {
                    Ok(())
                } else {
                    Err(refuse("a string the schema refuses"))
                }
            }
            Slot::Integer { min, max } => {
                if is_integer_in(<&RawValue>::deserialize(deserializer)?.get(), *min, *max) {
                    Ok(())
                } else {
                    Err(refuse("not an integer in bounds"))
                }
            }
            Slot::Number => deserializer.deserialize_any(NumberFit),
            Slot::Bool => bool::deserialize(deserializer).map(drop),
            Slot::Any { null_ok } => {
                if Any::deserialize(deserializer)?.null && !null_ok {
                    Err(refuse("null where the schema refuses it"))
                } else {
                    Ok(())
                }
            }
            Slot::Object => {
                if Object::deserialize(deserializer)?.reserved {
                    Err(refuse("the reserved metadata key"))
                } else {
                    Ok(())
                }
            }
            Slot::Array { item, min } => deserializer.deserialize_seq(Items(item, *min)),
            Slot::Keyed(keys) => deserializer.deserialize_map(KeyedFit(keys)),
            Slot::Tagged(tagged) => deserializer.deserialize_map(TaggedFit(tagged)),
            Slot::Richer => Err(refuse("a member the full path reads")),
        }
    }
}

/// A number the SDKs read alike.
struct NumberFit;

impl<'de> Visitor<'de> for NumberFit {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a number")
    }

    fn visit_i64<E: de::Error>(self, n: i64) -> Result<(), E> {
        interoperable(&Number::from(n))
    }

    fn visit_u64<E: de::Error>(self, n: u64) -> Result<(), E> {
        interoperable(&Number::from(n))
    }

    fn visit_f64<E: de::Error>(self, n: f64) -> Result<(), E> {
        Number::from_f64(n)
            .map_or_else(|| Err(refuse("not a finite number")), |n| interoperable(&n))
    }
}

fn interoperable<E: de::Error>(number: &Number) -> Result<(), E> {
    if is_interoperable(number) {
        Ok(())
    } else {
        Err(refuse("a number the SDKs read differently"))
    }
}

/// An array of at least so many items, each fitting a slot.
struct Items<'s>(&'s Slot, usize);

impl<'de> Visitor<'de> for Items<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an array")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let mut items = 0usize;
        while seq.next_element_seed(Fit(self.0))?.is_some() {
            items += 1;
        }
        if items >= self.1 {
            Ok(())
        } else {
            Err(refuse("fewer items than the schema asks"))
        }
    }
}

/// An object told apart by its tag, the first key.
struct TaggedFit<'s>(&'s Tagged);

impl<'de> Visitor<'de> for TaggedFit<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "an object tagged by '{}'", self.0.tag)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let tagged = self.0;
        match map.next_key::<Str<'de>>()? {
            Some(key) if key.as_str() == tagged.tag => {}
            _ => return Err(refuse("the tag is not the first key")),
        }
        let value: Str<'de> = map.next_value()?;
        let keys = tagged
            .branches
            .iter()
            .find(|(tag, _)| tag == value.as_str())
            .map(|(_, keys)| keys)
            .ok_or_else(|| refuse("a tag the schema does not define"))?;
        fit_keys(map, keys, Some(&tagged.tag))
    }
}

/// An object of known keys.
struct KeyedFit<'s>(&'s Keys);

impl<'de> Visitor<'de> for KeyedFit<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object")
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<(), A::Error> {
        fit_keys(map, self.0, None)
    }
}

/// Whether the rest of `map` fits `keys`: each key once (and never `tag`,
/// already read), each value fitting its slot, every required key there.
fn fit_keys<'de, A: MapAccess<'de>>(
    mut map: A,
    keys: &Keys,
    tag: Option<&str>,
) -> Result<(), A::Error> {
    let mut seen = 0u64;
    // Keys an open object adds, each at most once.
    let mut others: Vec<Str<'de>> = Vec::new();
    while let Some(key) = map.next_key::<Str<'de>>()? {
        if Some(key.as_str()) == tag {
            return Err(refuse("a repeated key"));
        }
        match keys.slot_of(key.as_str(), &mut seen).map_err(refuse)? {
            Some(slot) => map.next_value_seed(Fit(slot))?,
            None => {
                if others.contains(&key) {
                    return Err(refuse("a repeated key"));
                }
                others.push(key);
                map.next_value::<Any>()?;
            }
        }
    }
    if keys.has_required(seen) {
        Ok(())
    } else {
        Err(refuse("a required key is missing"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pointers_are_told_as_the_schema_pattern_tells_them() {
        for pointer in ["", "/", "/a", "/a~0b/~1/0", "/a b/\u{e9}"] {
            assert!(is_pointer(pointer), "{pointer:?}");
        }
        for not in ["a", "/a~", "/a~2", "~0", " /a"] {
            assert!(!is_pointer(not), "{not:?}");
        }
    }
}
