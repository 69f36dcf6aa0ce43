//! The items a run holds open, stored compactly: what [`super::open`]
//! registers, kept so that a run may hold a million open items at about a
//! hundred bytes each, and end any of them in constant time.
//!
//! An item's strings (its key, id and owner, the pointer of the event that
//! opened it) are copied once into one buffer; a slot holds where they
//! are, the numbers of its place, and its tool call's argument text once
//! any arrives. The slots stay in the order the items opened, for reports;
//! an ended item leaves a hole, and once holes outnumber the open items the
//! slots and the buffer are rebuilt without them, so ending an item costs
//! constant time amortised and what was ended is given back. Lookups by id
//! go through one hash table per kind, holding only slot numbers.

use std::hash::BuildHasher;

use hashbrown::HashTable;

use super::held::{Arguments, Pool};
use super::here::EventPlace;
use super::open_item::{Open, Opened};
use crate::Location;

/// How many kinds of item there are ([`Opened`]).
const KINDS: usize = 6;

/// The fewest holes that make the slots worth rebuilding.
const MIN_HOLES: usize = 1024;

/// Where a string sits in [`Slots::text`].
#[derive(Debug, Clone, Copy)]
struct Span {
    start: u32,
    len: u32,
}

/// One item, open or ended (a hole).
#[derive(Debug)]
struct Slot {
    kind: Opened,
    /// Whether the item is still open.
    live: bool,
    /// The opening event's `type`: an index into [`Slots::types`].
    start_type: u16,
    /// What the item is looked up by: its id, and for a 1.x step its owner
    /// too (see `key_of` in [`super::open`]).
    key: Span,
    id: Span,
    owner: Option<Span>,
    /// The opening event's place: its pointer's text, and its numbers.
    pointer: Span,
    index: usize,
    record: Option<usize>,
    location: Option<Location>,
    /// A tool call's argument text, from its first delta on.
    arguments: Option<Box<Arguments>>,
}

/// The strings of an item being opened.
pub(super) struct NewItem<'a> {
    pub(super) kind: Opened,
    pub(super) key: &'a str,
    pub(super) id: &'a str,
    pub(super) owner: Option<&'a str>,
    pub(super) start_type: &'a str,
    pub(super) place: &'a EventPlace,
}

/// The open items of a run, in the order they opened.
#[derive(Debug)]
pub(super) struct Slots {
    slots: Vec<Slot>,
    /// How many slots are open (the rest are holes).
    live: usize,
    /// Every string the slots name, one after another.
    text: String,
    /// The opening events' types, each kept once.
    types: Vec<Box<str>>,
    /// Slot numbers by key, one table per kind.
    tables: [HashTable<u32>; KINDS],
    // foldhash: seeded per process, so ids a stream chooses cannot collide
    // at will.
    hasher: foldhash::fast::RandomState,
    /// What tool calls' argument text is counted against.
    pool: std::sync::Arc<Pool>,
}

impl Slots {
    /// No items; argument text counted in `pool`.
    pub(super) fn new(pool: &std::sync::Arc<Pool>) -> Slots {
        Slots {
            slots: Vec::new(),
            live: 0,
            text: String::new(),
            types: Vec::new(),
            tables: Default::default(),
            hasher: foldhash::fast::RandomState::default(),
            pool: std::sync::Arc::clone(pool),
        }
    }

    /// How many items are open.
    pub(super) fn len(&self) -> usize {
        self.live
    }

    fn str_of(text: &str, span: Span) -> &str {
        let start = span.start as usize;
        text.get(start..start + span.len as usize)
            .unwrap_or_default()
    }

    /// The key of slot `number`, as the tables hash and compare it.
    fn key_of<'t>(slots: &'t [Slot], text: &'t str, number: u32) -> &'t str {
        slots
            .get(number as usize)
            .map_or("", |slot| Self::str_of(text, slot.key))
    }

    /// The slot of the open item of `kind` whose key is `key`.
    pub(super) fn find(&self, kind: Opened, key: &str) -> Option<usize> {
        let hash = self.hasher.hash_one(key);
        let (slots, text) = (&self.slots, &self.text);
        self.tables[kind as usize]
            .find(hash, |&i| Self::key_of(slots, text, i) == key)
            .map(|&i| i as usize)
    }

    /// Copies `s` into the buffer; `None` past 4 GiB of text.
    fn keep(&mut self, s: &str) -> Option<Span> {
        let start = u32::try_from(self.text.len()).ok()?;
        let len = u32::try_from(s.len()).ok()?;
        start.checked_add(len)?;
        self.text.push_str(s);
        Some(Span { start, len })
    }

    /// The index of `start_type` in [`Slots::types`], adding it.
    fn type_index(&mut self, start_type: &str) -> u16 {
        if let Some(i) = self.types.iter().position(|t| &**t == start_type) {
            return i as u16;
        }
        // Only start events open items, so there are a handful of types;
        // past that many, the kind's own start event names it.
        if self.types.len() >= usize::from(u16::MAX) {
            return u16::MAX;
        }
        self.types.push(start_type.into());
        (self.types.len() - 1) as u16
    }

    /// Opens `item` (whose key is not open); `false` when it cannot be
    /// kept (its strings would take the buffer past 4 GiB).
    pub(super) fn open(&mut self, item: &NewItem<'_>) -> bool {
        let Ok(number) = u32::try_from(self.slots.len()) else {
            return false;
        };
        let mark = self.text.len();
        let spans = (|| {
            let key = self.keep(item.key)?;
            let id = self.keep(item.id)?;
            let owner = match item.owner {
                Some(owner) => Some(self.keep(owner)?),
                None => None,
            };
            let pointer = self.keep(&item.place.pointer)?;
            Some((key, id, owner, pointer))
        })();
        let Some((key, id, owner, pointer)) = spans else {
            self.text.truncate(mark);
            return false;
        };
        let start_type = self.type_index(item.start_type);
        self.slots.push(Slot {
            kind: item.kind,
            live: true,
            start_type,
            key,
            id,
            owner,
            pointer,
            index: item.place.index,
            record: item.place.record,
            location: item.place.location,
            arguments: None,
        });
        self.live += 1;
        let hash = self.hasher.hash_one(item.key);
        let (slots, text, hasher) = (&self.slots, &self.text, &self.hasher);
        self.tables[item.kind as usize].insert_unique(hash, number, |&i| {
            hasher.hash_one(Self::key_of(slots, text, i))
        });
        true
    }

    /// The owner of the item in slot `i`.
    pub(super) fn owner(&self, i: usize) -> Option<&str> {
        let slot = self.slots.get(i)?;
        slot.owner.map(|span| Self::str_of(&self.text, span))
    }

    /// The argument text of the tool call in slot `i`, made on first use.
    pub(super) fn arguments_mut(&mut self, i: usize) -> Option<(&str, &mut Arguments)> {
        let slot = self.slots.get_mut(i)?;
        let pool = &self.pool;
        let arguments = slot
            .arguments
            .get_or_insert_with(|| Box::new(Arguments::new(pool)));
        Some((Self::str_of(&self.text, slot.id), arguments))
    }

    /// The item in slot `i`, as an [`Open`]; its argument text stays here.
    pub(super) fn get(&self, i: usize) -> Option<Open> {
        let slot = self.slots.get(i).filter(|slot| slot.live)?;
        Some(self.describe(slot, Arguments::new(&self.pool)))
    }

    fn describe(&self, slot: &Slot, arguments: Arguments) -> Open {
        let start_type = match self.types.get(usize::from(slot.start_type)) {
            Some(t) => t.to_string(),
            None => slot.kind.start_event().to_string(),
        };
        Open {
            kind: slot.kind,
            id: Self::str_of(&self.text, slot.id).to_string(),
            start: EventPlace {
                index: slot.index,
                record: slot.record,
                pointer: Self::str_of(&self.text, slot.pointer).to_string(),
                location: slot.location,
            },
            start_type,
            owner: slot
                .owner
                .map(|span| Self::str_of(&self.text, span).to_string()),
            arguments,
        }
    }

    /// Ends the open item of `kind` whose key is `key`, handing it back.
    pub(super) fn close(&mut self, kind: Opened, key: &str) -> Option<Open> {
        let hash = self.hasher.hash_one(key);
        let (slots, text) = (&self.slots, &self.text);
        let (number, _) = self.tables[kind as usize]
            .find_entry(hash, |&i| Self::key_of(slots, text, i) == key)
            .ok()?
            .remove();
        let slot = self.slots.get_mut(number as usize)?;
        slot.live = false;
        let arguments = slot.arguments.take();
        self.live -= 1;
        let slot = &self.slots[number as usize];
        let arguments = arguments.map_or_else(|| Arguments::new(&self.pool), |boxed| *boxed);
        let closed = self.describe(slot, arguments);
        self.tidy();
        Some(closed)
    }

    /// Hands each open item to `each`, in the order they opened, and
    /// forgets them all.
    pub(super) fn drain(&mut self, mut each: impl FnMut(Open)) {
        let slots = std::mem::take(&mut self.slots);
        for mut slot in slots.into_iter().filter(|slot| slot.live) {
            let arguments = slot
                .arguments
                .take()
                .map_or_else(|| Arguments::new(&self.pool), |boxed| *boxed);
            each(self.describe(&slot, arguments));
        }
        self.clear();
    }

    /// Forgets every item.
    pub(super) fn clear(&mut self) {
        self.slots.clear();
        self.text.clear();
        self.live = 0;
        for table in &mut self.tables {
            table.clear();
        }
    }

    /// Drops the holes once they outnumber the open items: the slots and
    /// the buffer are rebuilt from the open ones, and the tables with them.
    fn tidy(&mut self) {
        if self.live == 0 {
            self.clear();
            return;
        }
        let holes = self.slots.len() - self.live;
        if holes < MIN_HOLES || holes <= self.live {
            return;
        }
        let old_text = std::mem::take(&mut self.text);
        let old_slots = std::mem::take(&mut self.slots);
        let mut text = String::with_capacity(old_text.len() / 2);
        let mut move_span = |span: Span| {
            let s = Self::str_of(&old_text, span);
            // Never past 4 GiB: the new buffer holds part of the old one.
            let start = u32::try_from(text.len()).unwrap_or(u32::MAX);
            text.push_str(s);
            Span {
                start,
                len: span.len,
            }
        };
        let mut slots = Vec::with_capacity(self.live * 2);
        for mut slot in old_slots.into_iter().filter(|slot| slot.live) {
            slot.key = move_span(slot.key);
            slot.id = move_span(slot.id);
            slot.owner = slot.owner.map(&mut move_span);
            slot.pointer = move_span(slot.pointer);
            slots.push(slot);
        }
        self.text = text;
        self.slots = slots;
        for table in &mut self.tables {
            table.clear();
        }
        let (slots, text, hasher) = (&self.slots, &self.text, &self.hasher);
        let hash_of = |&i: &u32| hasher.hash_one(Self::key_of(slots, text, i));
        for (number, slot) in slots.iter().enumerate() {
            let hash = hasher.hash_one(Self::str_of(text, slot.key));
            // Fewer slots than before, each below 2^32.
            let number = u32::try_from(number).unwrap_or(u32::MAX);
            self.tables[slot.kind as usize].insert_unique(hash, number, hash_of);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn place(index: usize) -> EventPlace {
        EventPlace {
            index,
            record: Some(index),
            pointer: format!("/{index}"),
            location: None,
        }
    }

    fn open(slots: &mut Slots, kind: Opened, id: &str, index: usize) {
        assert!(slots.open(&NewItem {
            kind,
            key: id,
            id,
            owner: (index % 2 == 0).then_some("s"),
            start_type: kind.start_event(),
            place: &place(index),
        }));
    }

    #[test]
    fn items_end_in_any_order_and_the_rest_stay_in_order() {
        let pool = Pool::new(1 << 20);
        let mut slots = Slots::new(&pool);
        let n = 5_000;
        for i in 0..n {
            open(&mut slots, Opened::ToolCall, &format!("c{i}"), i);
        }
        open(&mut slots, Opened::TextMessage, "c1", n);
        // Ending the first ones leaves holes that the slots drop as they go.
        for i in 0..n - 10 {
            let closed = slots
                .close(Opened::ToolCall, &format!("c{i}"))
                .expect("open");
            assert_eq!(closed.id, format!("c{i}"));
            assert_eq!(closed.start.pointer, format!("/{i}"));
            assert_eq!(closed.owner.as_deref(), (i % 2 == 0).then_some("s"));
        }
        assert!(
            slots.slots.len() < 2 * MIN_HOLES + 11,
            "{}",
            slots.slots.len()
        );
        assert_eq!(slots.close(Opened::ToolCall, "c0").map(|o| o.id), None);
        assert!(slots.find(Opened::TextMessage, "c1").is_some());
        assert!(slots.find(Opened::ToolCall, "c1").is_none());
        assert!(slots
            .find(Opened::ToolCall, &format!("c{}", n - 1))
            .is_some());
        let mut left = Vec::new();
        slots.drain(|open| left.push((open.kind, open.id, open.start.index)));
        let mut expected: Vec<_> = (n - 10..n)
            .map(|i| (Opened::ToolCall, format!("c{i}"), i))
            .collect();
        expected.push((Opened::TextMessage, "c1".to_string(), n));
        assert_eq!(left, expected);
        assert_eq!(slots.len(), 0);
        assert!(slots.text.is_empty());
    }

    #[test]
    fn argument_text_is_kept_with_its_call_and_given_back() {
        let pool = Pool::new(1 << 20);
        let mut slots = Slots::new(&pool);
        open(&mut slots, Opened::ToolCall, "c", 1);
        let i = slots.find(Opened::ToolCall, "c").expect("open");
        assert_eq!(slots.get(i).map(|o| o.id), Some("c".to_string()));
        assert_eq!(slots.owner(i), None);
        let (id, arguments) = slots.arguments_mut(i).expect("slot");
        assert_eq!(id, "c");
        let at_place = place(2);
        let event = serde_json::json!({"type": "TOOL_CALL_ARGS"});
        let at = super::super::here::Here::new(
            super::super::view::EventView::Value(&event),
            "TOOL_CALL_ARGS",
            &at_place,
            crate::Protocol::NEWEST,
        );
        let mut out: Vec<crate::diagnostic::Diagnostic> = Vec::new();
        arguments.push("c", "{}", &at, &mut out);
        let closed = slots.close(Opened::ToolCall, "c").expect("open");
        assert_eq!(closed.arguments.text(), Some("{}"));
        assert!(out.is_empty());
    }
}
