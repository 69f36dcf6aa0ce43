//! An event read without a `Value`, found to fit its version's schema:
//! its `type` and its other members in the order they came, as the
//! sequence rules read it ([`ReadEvent`]). What the scanner and the serde
//! reader of `event.rs` both build.

use serde_json::Value;

use super::borrowed::Str;
use crate::rules::ReadEvent;

/// A member of an event as read.
#[derive(Debug)]
pub(super) enum Member<'a> {
    /// A string.
    Str(Str<'a>),
    /// Any other value, as its source text.
    Text(&'a str),
}

/// An event's members other than `type`, in the order they came.
///
/// The first four, which make most events whole, are held inline, the rest
/// on the heap. An event is read on a checker thread and sequenced and
/// dropped on the source's thread ([`crate::check`]): a heap block freed on
/// another thread than the one that allocated it costs the allocator more
/// than reading a small event does.
#[derive(Debug, Default)]
pub(super) struct Members<'a> {
    first: arrayvec::ArrayVec<(Str<'a>, Member<'a>), 4>,
    more: Vec<(Str<'a>, Member<'a>)>,
}

impl<'a> Members<'a> {
    /// Adds the next member.
    pub(super) fn push(&mut self, member: (Str<'a>, Member<'a>)) {
        if let Err(full) = self.first.try_push(member) {
            self.more.push(full.element());
        }
    }

    /// The members in the order they came.
    pub(super) fn iter(&self) -> impl Iterator<Item = &(Str<'a>, Member<'a>)> {
        self.first.iter().chain(&self.more)
    }
}

/// An event, read and found to fit its version's schema: its `type` and
/// its other members in the order they came.
#[derive(Debug)]
pub(crate) struct Event<'a> {
    pub(super) kind: Str<'a>,
    pub(super) members: Members<'a>,
}

impl<'a> Event<'a> {
    /// The event's `type`.
    pub(crate) fn kind(&self) -> &str {
        self.kind.as_str()
    }
}

impl ReadEvent for Event<'_> {
    /// The string member `key`, if the event has it.
    fn str(&self, key: &str) -> Option<&str> {
        if key == "type" {
            return Some(self.kind());
        }
        self.members.iter().find_map(|(k, m)| match m {
            Member::Str(s) if k.as_str() == key => Some(s.as_str()),
            _ => None,
        })
    }

    /// The source text of the member `key`, if the event has it and it is
    /// not a string.
    fn text(&self, key: &str) -> Option<&str> {
        self.members.iter().find_map(|(k, m)| match m {
            Member::Text(text) if k.as_str() == key => Some(*text),
            _ => None,
        })
    }

    /// The member `key` as a value, if the event has it.
    fn value(&self, key: &str) -> Option<Value> {
        if key == "type" {
            return Some(Value::from(self.kind()));
        }
        self.members
            .iter()
            .find(|(k, _)| k.as_str() == key)
            .and_then(|(_, m)| match m {
                Member::Str(s) => Some(Value::from(s.as_str())),
                Member::Text(text) => serde_json::from_str(text).ok(),
            })
    }
}
