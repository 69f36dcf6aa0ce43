//! The event the sequence rules read: parsed into a `Value` by the full
//! path, or read without one by the fast path ([`crate::fast`]). The rules
//! ask it for string members, and for the few members they need whole (a
//! state snapshot, an outcome) as values.

use std::borrow::Cow;

use json_patch::PatchOperation;
use serde_json::Value;

/// An event read without a `Value` (the fast path's, [`crate::fast`]),
/// as the sequence rules ask it for its members. Defined here, with the
/// rules, so that the fast path depends on the rules' views and never the
/// other way.
pub(crate) trait ReadEvent: std::fmt::Debug {
    /// The string member `key`, if the event has it (`type` included).
    fn str(&self, key: &str) -> Option<&str>;

    /// The source text of the member `key`, if the event has it and it is
    /// not a string.
    fn text(&self, key: &str) -> Option<&str>;

    /// The member `key` as a value, if the event has it.
    fn value(&self, key: &str) -> Option<Value>;
}

/// An event as the sequence rules read it: parsed into a `Value` by the
/// full path, or read without one.
#[derive(Debug, Clone, Copy)]
pub(crate) enum EventView<'a> {
    /// A parsed value (an object, or anything the schema reported).
    Value(&'a Value),
    /// An event read without a `Value`.
    Read(&'a dyn ReadEvent),
}

impl<'a> EventView<'a> {
    /// The string member `key`.
    pub(crate) fn str(self, key: &str) -> Option<&'a str> {
        match self {
            EventView::Value(value) => value.get(key).and_then(Value::as_str),
            EventView::Read(event) => event.str(key),
        }
    }

    /// The source text of the member `key` of a read event, when it is
    /// not a string; `None` for a parsed event, whose members are values.
    pub(crate) fn text(self, key: &str) -> Option<&'a str> {
        match self {
            EventView::Value(_) => None,
            EventView::Read(event) => event.text(key),
        }
    }

    /// The member `key`, as a value: borrowed from a parsed event, built
    /// for a read one (only the few members the sequence rules read whole
    /// are ever asked for).
    pub(crate) fn get(self, key: &str) -> Option<Cow<'a, Value>> {
        match self {
            EventView::Value(value) => value.get(key).map(Cow::Borrowed),
            EventView::Read(event) => event.value(key).map(Cow::Owned),
        }
    }
}

/// The operations of a JSON Patch, or the index of the first that is not
/// one and why.
pub(crate) type Patch = Result<Vec<PatchOperation>, (usize, serde_json::Error)>;

impl EventView<'_> {
    /// The member `key` read as a JSON Patch, when it is an array; with
    /// `drop_unknown` (1.x), without the operations whose `op` is a name
    /// RFC 6902 does not define, which a 1.x consumer drops from the patch
    /// (`spec/1.1/basic/patterns/snapshots.mdx`, "When a patch does not
    /// apply"; the schema's `invalid-value` names them).
    ///
    /// A read event's patch is read from its text at once, without a
    /// `Value` first: a state delta is among the largest events a stream
    /// carries, and it is read on the one thread that sequences them. A
    /// text that is not a patch is read again through a `Value`, which
    /// tells which operation is not one.
    pub(crate) fn patch(self, key: &str, drop_unknown: bool) -> Option<Patch> {
        if let EventView::Read(event) = self {
            if let Some(Ok(patch)) = event.text(key).map(serde_json::from_str) {
                return Some(Ok(patch));
            }
        }
        let member = self.get(key)?;
        let operations = member.as_array()?;
        Some(
            operations
                .iter()
                .enumerate()
                .filter(|(_, op)| !(drop_unknown && has_unknown_op(op)))
                .map(|(i, op)| serde_json::from_value(op.clone()).map_err(|e| (i, e)))
                .collect(),
        )
    }
}

/// Whether `operation`'s `op` is none RFC 6902 defines: another name, or
/// no name at all (absent, `null`, a number). `@ag-ui/client` strips such
/// an operation as a union member it does not recognise, with a warning,
/// and applies the rest (`crate::rules::receivers`).
fn has_unknown_op(operation: &Value) -> bool {
    !operation
        .get("op")
        .and_then(Value::as_str)
        .is_some_and(|op| ["add", "remove", "replace", "move", "copy", "test"].contains(&op))
}

impl<'a> From<&'a Value> for EventView<'a> {
    fn from(value: &'a Value) -> Self {
        EventView::Value(value)
    }
}
