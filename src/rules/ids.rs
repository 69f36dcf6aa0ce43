//! The ids the conversation rules remember across messages, kept compactly.
//!
//! A conversation of a million messages has up to a million distinct ids,
//! each remembered until its end (the first message of each id, the first
//! call, the first result). A `HashMap<Cow<str>, usize>` takes 32 bytes a
//! slot and twice the slots while it grows: about 100 MB for a million
//! ids. Here the ids' text is copied once into one buffer and the table
//! holds where each is (two `u32`s) and its value, 12 to 16 bytes a slot:
//! a third of that. Lookups compare the text itself, so two ids are never
//! taken for one.

use std::hash::BuildHasher;

use hashbrown::HashTable;

/// A map from id text to a small value.
pub(crate) struct IdMap<V> {
    /// Every id kept, one after another.
    text: String,
    table: HashTable<Entry<V>>,
    // foldhash: seeded per process, so ids a client chooses cannot collide
    // at will.
    hasher: foldhash::fast::RandomState,
}

/// Where one id's text sits in [`IdMap::text`], and its value.
#[derive(Clone, Copy)]
struct Entry<V> {
    start: u32,
    len: u32,
    value: V,
}

impl<V> std::fmt::Debug for IdMap<V> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("IdMap")
            .field("ids", &self.table.len())
            .field("text_bytes", &self.text.len())
            .finish()
    }
}

impl<V> Default for IdMap<V> {
    fn default() -> Self {
        IdMap {
            text: String::new(),
            table: HashTable::new(),
            hasher: foldhash::fast::RandomState::default(),
        }
    }
}

impl<V: Copy> IdMap<V> {
    fn text_of<'t>(text: &'t str, entry: &Entry<V>) -> &'t str {
        let start = entry.start as usize;
        text.get(start..start + entry.len as usize)
            .unwrap_or_default()
    }

    /// The value of `id`, if it is in the map.
    pub(crate) fn get(&self, id: &str) -> Option<V> {
        let hash = self.hasher.hash_one(id);
        self.table
            .find(hash, |entry| Self::text_of(&self.text, entry) == id)
            .map(|entry| entry.value)
    }

    /// Whether `id` is in the map.
    pub(crate) fn contains(&self, id: &str) -> bool {
        self.get(id).is_some()
    }

    /// The value of `id` when it is in the map; else `id` is put in with
    /// `value`, and `None` is returned.
    pub(crate) fn first_or_insert(&mut self, id: &str, value: V) -> Option<V> {
        let hash = self.hasher.hash_one(id);
        if let Some(entry) = self
            .table
            .find(hash, |entry| Self::text_of(&self.text, entry) == id)
        {
            return Some(entry.value);
        }
        self.put(hash, id, value);
        None
    }

    /// Puts `id` in with `value`, handing back the value it replaces.
    pub(crate) fn insert(&mut self, id: &str, value: V) -> Option<V> {
        let hash = self.hasher.hash_one(id);
        if let Some(entry) = self
            .table
            .find_mut(hash, |entry| Self::text_of(&self.text, entry) == id)
        {
            return Some(std::mem::replace(&mut entry.value, value));
        }
        self.put(hash, id, value);
        None
    }

    /// Takes `id` out, handing back its value. (Its text stays in the
    /// buffer until [`IdMap::clear`].)
    pub(crate) fn remove(&mut self, id: &str) -> Option<V> {
        let hash = self.hasher.hash_one(id);
        let text = &self.text;
        self.table
            .find_entry(hash, |entry| Self::text_of(text, entry) == id)
            .ok()
            .map(|found| found.remove().0.value)
    }

    /// Empties the map.
    pub(crate) fn clear(&mut self) {
        self.table.clear();
        self.text.clear();
    }

    fn put(&mut self, hash: u64, id: &str, value: V) {
        // A buffer past 4 GiB (a document's ids are at most its size, far
        // above any document limit) is not grown: an id not kept is one
        // fewer repeat found, never one made up.
        let (Ok(start), Ok(len)) = (u32::try_from(self.text.len()), u32::try_from(id.len())) else {
            return;
        };
        if start.checked_add(len).is_none() {
            return;
        }
        self.text.push_str(id);
        let (text, hasher) = (&self.text, &self.hasher);
        self.table
            .insert_unique(hash, Entry { start, len, value }, |entry| {
                hasher.hash_one(Self::text_of(text, entry))
            });
    }
}

/// `index` as a `u32`: a document has fewer than 2^32 messages (each takes
/// at least two bytes, and documents are far smaller than 8 GiB).
pub(crate) fn small(index: usize) -> u32 {
    u32::try_from(index).unwrap_or(u32::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_told_apart_by_their_text() {
        let mut map = IdMap::default();
        assert_eq!(map.first_or_insert("a", 1), None);
        assert_eq!(map.first_or_insert("ab", 2), None);
        assert_eq!(map.first_or_insert("a", 3), Some(1));
        assert_eq!(map.get("b"), None);
        assert!(map.contains("ab"));
        assert_eq!(map.insert("ab", 4), Some(2));
        assert_eq!(map.get("ab"), Some(4));
        assert_eq!(map.remove("a"), Some(1));
        assert_eq!(map.get("a"), None);
        assert_eq!(map.insert("a", 5), None);
        assert_eq!(map.get("a"), Some(5));
        map.clear();
        assert!(!map.contains("ab"));
        // Many ids, across growth of the table.
        for i in 0..10_000u32 {
            assert_eq!(map.first_or_insert(&format!("m{i}"), i), None);
        }
        for i in 0..10_000u32 {
            assert_eq!(map.get(&format!("m{i}")), Some(i));
        }
        assert_eq!(map.get(""), None);
        assert_eq!(map.first_or_insert("", 7), None);
        assert_eq!(map.get(""), Some(7));
    }
}
