//! RFC 6902 patches applied to a stream's state and activity contents
//! within a budget: what a patch may make the state grow to, and what
//! applying the stream's patches may cost in all.
//!
//! A `copy` from the root doubles the state: twenty of them, a few hundred
//! bytes of stream, ask for a megabyte per byte of the state they started
//! from. `json_patch::patch` applies whatever it is given, so the patches
//! are applied here, with the same semantics (it is the reference, and a
//! property test holds the two equal wherever both apply), each operation
//! measured before it is done:
//!
//! - **size**: the state's approximate size in bytes (its JSON text's
//!   length, within a few bytes a value) is kept as operations add and
//!   remove values; an operation that would take it over the limit is
//!   refused.
//! - **work**: what an operation costs (the values it copies, compares or
//!   measures, the items an array insertion shifts) is taken from an
//!   allowance the stream earns as it goes, so that the work of all its
//!   patches stays linear in its length whatever they ask.
//!
//! A patch that fails or is refused is undone whole, as RFC 6902 section 5
//! requires: the state is what it was before it.

use json_patch::jsonptr::{index::Index, Pointer, PointerBuf};
use json_patch::{PatchErrorKind, PatchOperation};
use serde_json::Value;
use std::sync::Arc;

use super::total::{Share, Total};

/// What applying a stream's patches may cost: the state's size limit,
/// the work left, and the stream's share of what all streams checked at
/// once may hold.
#[derive(Debug)]
pub(crate) struct Meter {
    /// The most bytes the state (and the activity contents) may take.
    pub(crate) limit: u64,
    /// Work the stream may still spend on patches.
    pub(crate) allowance: u64,
    /// What the state takes from the total of the streams checked at once.
    share: Share,
}

/// What a stream keeps of its state and activity contents: their size in
/// all (`used`), and the meter their updates are applied within.
#[derive(Debug)]
pub(crate) struct Budget {
    /// The limit and the work left.
    pub(crate) meter: Meter,
    /// The bytes the state and the activity contents take together.
    pub(crate) used: u64,
}

impl Budget {
    /// A budget of `limit` bytes, none used.
    pub(crate) fn new(limit: u64) -> Budget {
        Budget {
            meter: Meter::new(limit),
            used: 0,
        }
    }

    /// Holds the state and activity contents to `limit` bytes, and to
    /// `total` with the other streams checked at once (before the stream's
    /// first event: the work allowance starts anew when the limit changes).
    pub(crate) fn bound(&mut self, limit: u64, total: &Arc<Total>) {
        if self.meter.limit != limit {
            self.meter.limit = limit;
            self.meter.allowance = limit;
        }
        self.meter.share.move_to(total);
    }

    /// Takes `bytes` for a value that replaces one of `replaced` bytes,
    /// unless that goes over the limit or the total (and then nothing
    /// changes).
    pub(crate) fn take(&mut self, bytes: u64, replaced: u64) -> Result<(), Over> {
        let used = self.used.saturating_sub(replaced).saturating_add(bytes);
        if used > self.meter.limit {
            return Err(Over::Size);
        }
        if !self.meter.share.cover(used) {
            return Err(Over::Total);
        }
        self.used = used;
        self.meter.share.settle(used);
        Ok(())
    }

    /// Gives back `bytes` of a value dropped.
    pub(crate) fn release(&mut self, bytes: u64) {
        self.used = self.used.saturating_sub(bytes);
        self.meter.share.settle(self.used);
    }

    /// What all streams checked at once may hold, in bytes.
    pub(crate) fn total_limit(&self) -> u64 {
        self.meter.share.total().limit()
    }

    /// The total this budget takes from.
    pub(crate) fn share_total(&self) -> &Arc<Total> {
        self.meter.share.total()
    }

    /// Applies `patch` to `doc`, a value of `size` bytes within this
    /// budget, whose size is kept up to date; what the patch brings is
    /// earned first.
    pub(crate) fn apply(
        &mut self,
        doc: &mut Value,
        size: &mut u64,
        patch: &[PatchOperation],
    ) -> Result<(), Refusal> {
        self.meter.earn(patch_bytes(patch));
        let before = self.used;
        let result = apply(doc, &mut self.used, patch, &mut self.meter);
        // `apply` moved `used` by what the patch changed of `doc`, and
        // took from the total for every growth on the way.
        *size = (*size + self.used).saturating_sub(before);
        self.meter.share.settle(self.used);
        result
    }
}

/// About the length of `patch`'s JSON text.
fn patch_bytes(patch: &[PatchOperation]) -> u64 {
    patch
        .iter()
        .map(|op| {
            32 + match op {
                PatchOperation::Add(op) => op.path.as_str().len() as u64 + size(&op.value),
                PatchOperation::Remove(op) => op.path.as_str().len() as u64,
                PatchOperation::Replace(op) => op.path.as_str().len() as u64 + size(&op.value),
                PatchOperation::Move(op) => {
                    (op.path.as_str().len() + op.from.as_str().len()) as u64
                }
                PatchOperation::Copy(op) => {
                    (op.path.as_str().len() + op.from.as_str().len()) as u64
                }
                PatchOperation::Test(op) => op.path.as_str().len() as u64 + size(&op.value),
            }
        })
        .sum()
}

/// The size of `value` (see [`size_of`]).
pub(crate) fn measured(value: &Value) -> u64 {
    size(value)
}

/// How much work a byte of a stream's patches earns: enough to apply any
/// patch that copies or compares no more than its own size many times over.
const WORK_PER_PATCH_BYTE: u64 = 16;

impl Meter {
    /// A meter for a stream whose state may take `limit` bytes: the work
    /// of one state of that size to start with.
    pub(crate) fn new(limit: u64) -> Meter {
        Meter {
            limit,
            allowance: limit,
            share: Share::new(&Total::unbounded()),
        }
    }

    /// Earns the work a patch of `bytes` brings with it.
    pub(crate) fn earn(&mut self, bytes: u64) {
        self.allowance = self
            .allowance
            .saturating_add(bytes.saturating_mul(WORK_PER_PATCH_BYTE));
    }

    fn spend(&mut self, work: u64) -> Result<(), Over> {
        match self.allowance.checked_sub(work) {
            Some(left) => {
                self.allowance = left;
                Ok(())
            }
            None => {
                self.allowance = 0;
                Err(Over::Work)
            }
        }
    }
}

/// Why a patch was not applied.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Refusal {
    /// Operation `operation` does not apply (RFC 6902), as `kind` says.
    Failed {
        /// The 0-based index of the operation.
        operation: usize,
        /// Why, as `json_patch` says it.
        kind: String,
    },
    /// Operation `operation` would take the state over the size limit, or
    /// the stream's patches over their work.
    Over {
        /// The 0-based index of the operation.
        operation: usize,
        /// Which bound.
        bound: Over,
    },
}

/// The bound a patch would go over.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Over {
    /// The state's size limit.
    Size,
    /// The work the stream's patches may cost.
    Work,
    /// What all streams checked at once may hold.
    Total,
}

/// The memory `value` takes, estimated as a `serde_json::Value` lays it
/// out (each value, the text of its strings, each object member's entry
/// and key), counted without recursion, and whether it was counted whole:
/// past `visits` values the count stops.
pub(crate) fn size_of(value: &Value, visits: u64) -> (u64, bool) {
    let mut size = 0u64;
    let mut visited = 0u64;
    let mut stack = vec![value];
    while let Some(value) = stack.pop() {
        visited += 1;
        if visited > visits {
            return (size, false);
        }
        size = size.saturating_add(VALUE_BYTES);
        match value {
            Value::String(text) => size = size.saturating_add(text.len() as u64),
            Value::Array(items) => stack.extend(items),
            Value::Object(members) => {
                size = size.saturating_add(OBJECT_BYTES);
                for (key, member) in members {
                    size = size.saturating_add(slot_of_key(key));
                    stack.push(member);
                }
            }
            _ => {}
        }
    }
    (size, true)
}

/// The bytes of a `serde_json::Value` itself.
pub(super) const VALUE_BYTES: u64 = std::mem::size_of::<Value>() as u64;

/// The bytes an object's map allocates however few its members (its
/// index table and entry list): measured with a counting allocator, a
/// tree of two-member objects takes about this much more per object.
pub(super) const OBJECT_BYTES: u64 = 128;

/// The bytes an object member takes beside its value: the map's entry
/// (hash, key string, index) and the key's text.
pub(super) fn slot_of_key(key: &str) -> u64 {
    key.len() as u64 + 64
}

/// The size of `value`: values the stream sent, or that it removes, cost
/// no more to measure than they did to read.
fn size(value: &Value) -> u64 {
    size_of(value, u64::MAX).0
}

/// Applies `patch` to `doc`, whose size `size` is kept up to date, within
/// `meter`. On a refusal `doc` and `size` are as they were.
pub(crate) fn apply(
    doc: &mut Value,
    size: &mut u64,
    patch: &[PatchOperation],
    meter: &mut Meter,
) -> Result<(), Refusal> {
    let mut undo: Vec<Undo> = Vec::with_capacity(patch.len());
    let before = *size;
    let allowance = meter.allowance;
    for (operation, op) in patch.iter().enumerate() {
        if let Err(refusal) = step(doc, size, op, meter, &mut undo) {
            for inverse in undo.into_iter().rev() {
                inverse.apply(doc);
            }
            // Undoing costs what doing did: a refused delta is charged
            // twice its work, so refusals cannot be repeated for free.
            let done = allowance.saturating_sub(meter.allowance);
            meter.allowance = meter.allowance.saturating_sub(done);
            *size = before;
            return Err(match refusal {
                Step::Failed(kind) => Refusal::Failed {
                    operation,
                    kind: kind.to_string(),
                },
                Step::Over(bound) => Refusal::Over { operation, bound },
            });
        }
    }
    Ok(())
}

/// What undoes one applied operation.
enum Undo {
    /// Remove what was added at the path.
    Remove(PointerBuf),
    /// Put the value back at the path (replacing or inserting).
    Add(PointerBuf, Value),
    /// Put the value back in the place of what is at the path.
    Replace(PointerBuf, Value),
    /// Move what is at `from` back to `path`, putting back in its place
    /// the value the move replaced there, if any (the root included).
    Move {
        from: PointerBuf,
        path: PointerBuf,
        replaced: Option<Value>,
    },
}

impl Undo {
    fn apply(self, doc: &mut Value) {
        // The inverse of an applied operation always applies; a failure
        // here would leave a state no receiver has either, never a panic.
        let _ = match self {
            Undo::Remove(path) => remove(doc, &path, true).map(drop),
            Undo::Add(path, value) => add(doc, &path, value).map(drop),
            Undo::Replace(path, value) => replace(doc, &path, value).map(drop),
            // Not `mov`: the way back may lead into what was the moved
            // value's own parent (`/0/0` moved to `/0` comes back from `/0`
            // to `/0/0`), which a patch may not ask for and an undo must
            // do; and what the move replaced goes back first, so that the
            // parent the value returns into exists again.
            Undo::Move {
                from,
                path,
                replaced,
            } => match replaced {
                Some(replaced) => replace(doc, &from, replaced),
                None => remove(doc, &from, true),
            }
            .and_then(|moved| add(doc, &path, moved).map(drop)),
        };
    }
}

/// Why one operation was not applied.
enum Step {
    Failed(PatchErrorKind),
    Over(Over),
}

impl From<PatchErrorKind> for Step {
    fn from(kind: PatchErrorKind) -> Self {
        Step::Failed(kind)
    }
}

impl From<Over> for Step {
    fn from(bound: Over) -> Self {
        Step::Over(bound)
    }
}

/// The member or item `path` names: the bytes its slot takes beside its
/// value, and the work of shifting what follows it when an item is
/// inserted or removed there (an item moved is a unit).
fn slot(doc: &Value, path: &Pointer) -> (u64, u64) {
    let Some((parent, last)) = path.split_back() else {
        return (0, 0);
    };
    match doc.pointer(parent.as_str()) {
        Some(Value::Object(_)) => (slot_of_key(&last.decoded()), 0),
        // The elements an insertion or a removal at the index moves, and
        // one for the element itself: an append (`-`, or the length) costs
        // 1, an insertion at the front as many as the array holds. (Charged
        // at a fraction of the length whatever the index, 100k appends ran
        // out of work and front insertions ran quadratic far too long.)
        Some(Value::Array(items)) => {
            let len = items.len() as u64;
            let decoded = last.decoded();
            let index = match decoded.as_ref() {
                "-" => len,
                token => token.parse::<u64>().map_or(len, |i| i.min(len)),
            };
            (0, len - index + 1)
        }
        _ => (0, 0),
    }
}

/// Grows `size` by `added`, within the limit and the total.
fn grow(size: &mut u64, added: u64, meter: &mut Meter) -> Result<(), Over> {
    let grown = size.saturating_add(added);
    fits(grown, meter)?;
    *size = grown;
    Ok(())
}

/// Whether a state of `size` bytes is within the limit and the total (the
/// share taken stays until the patch is settled).
fn fits(size: u64, meter: &mut Meter) -> Result<(), Over> {
    if size > meter.limit {
        return Err(Over::Size);
    }
    if !meter.share.cover(size) {
        return Err(Over::Total);
    }
    Ok(())
}

/// Adds `value` (of `added` bytes) at `path`, keeping `size` and `undo`.
fn put(
    doc: &mut Value,
    size: &mut u64,
    path: &PointerBuf,
    value: Value,
    added: u64,
    meter: &mut Meter,
    undo: &mut Vec<Undo>,
) -> Result<(), Step> {
    let (slot, shift) = slot(doc, path);
    meter.spend(shift)?;
    grow(size, added + slot, meter)?;
    match add(doc, path, value) {
        Ok(Some(previous)) => {
            // An existing member replaced: its slot stays.
            *size = size.saturating_sub(self::size(&previous) + slot);
            undo.push(Undo::Add(path.clone(), previous));
        }
        Ok(None) => undo.push(Undo::Remove(path.clone())),
        Err(kind) => {
            *size -= added + slot;
            return Err(kind.into());
        }
    }
    Ok(())
}

fn step(
    doc: &mut Value,
    size: &mut u64,
    op: &PatchOperation,
    meter: &mut Meter,
    undo: &mut Vec<Undo>,
) -> Result<(), Step> {
    match op {
        PatchOperation::Add(op) => {
            put(
                doc,
                size,
                &op.path,
                op.value.clone(),
                self::size(&op.value),
                meter,
                undo,
            )?;
        }
        PatchOperation::Remove(op) => {
            let (slot, shift) = slot(doc, &op.path);
            meter.spend(shift)?;
            let removed = remove(doc, &op.path, false)?;
            *size = size.saturating_sub(self::size(&removed) + slot);
            undo.push(Undo::Add(op.path.clone(), removed));
        }
        PatchOperation::Replace(op) => {
            let added = self::size(&op.value);
            grow(size, added, meter)?;
            let previous = match replace(doc, &op.path, op.value.clone()) {
                Ok(previous) => previous,
                Err(kind) => {
                    *size -= added;
                    return Err(kind.into());
                }
            };
            *size = size.saturating_sub(self::size(&previous));
            undo.push(Undo::Replace(op.path.clone(), previous));
        }
        PatchOperation::Move(op) => {
            let (from_slot, from_shift) = slot(doc, &op.from);
            meter.spend(from_shift)?;
            let (to_slot, to_shift) = slot(doc, &op.path);
            meter.spend(to_shift)?;
            let previous = mov(doc, &op.from, &op.path)?;
            *size = size.saturating_sub(from_slot) + to_slot;
            // Into the root, what was left of the old root is gone.
            let replaced_slot = if op.path.is_root() { 0 } else { to_slot };
            if let Some(previous) = &previous {
                *size = size.saturating_sub(self::size(previous) + replaced_slot);
            }
            undo.push(Undo::Move {
                from: op.path.clone(),
                path: op.from.clone(),
                replaced: previous,
            });
        }
        PatchOperation::Copy(op) => {
            let source = doc
                .pointer(op.from.as_str())
                .ok_or(PatchErrorKind::InvalidFromPointer)?;
            // Copies are what make a state grow faster than its stream, so
            // they are paid for: measured before they are cloned (the
            // measure stops where the allowance does), and cloned only
            // when within the limit.
            let (copied, whole) = size_of(source, meter.allowance);
            if !whole {
                meter.allowance = 0;
                return Err(Over::Work.into());
            }
            meter.spend(copied / 8 + 1)?;
            // Refused before the clone is made, so that a copy over the
            // limit never holds the state twice.
            let (slot, _) = slot(doc, &op.path);
            fits(size.saturating_add(copied).saturating_add(slot), meter)?;
            let value = source.clone();
            put(doc, size, &op.path, value, copied, meter, undo)?;
        }
        PatchOperation::Test(op) => {
            // Comparing costs at most the patch's own value.
            let target = doc
                .pointer(op.path.as_str())
                .ok_or(PatchErrorKind::InvalidPointer)?;
            if *target != op.value {
                return Err(PatchErrorKind::TestFailed.into());
            }
        }
    }
    Ok(())
}

// The operations themselves, as `json_patch` defines them (RFC 6902
// section 4), so that a patch means here what it means there.

fn add(doc: &mut Value, path: &Pointer, value: Value) -> Result<Option<Value>, PatchErrorKind> {
    let Some((parent, last)) = path.split_back() else {
        return Ok(Some(std::mem::replace(doc, value)));
    };
    let parent = doc
        .pointer_mut(parent.as_str())
        .ok_or(PatchErrorKind::InvalidPointer)?;
    match parent {
        Value::Object(members) => Ok(members.insert(last.decoded().into_owned(), value)),
        Value::Array(items) => {
            let index = last.to_index()?.for_len_incl(items.len())?;
            items.insert(index, value);
            Ok(None)
        }
        _ => Err(PatchErrorKind::InvalidPointer),
    }
}

fn remove(doc: &mut Value, path: &Pointer, allow_last: bool) -> Result<Value, PatchErrorKind> {
    let Some((parent, last)) = path.split_back() else {
        return Err(PatchErrorKind::InvalidPointer);
    };
    let parent = doc
        .pointer_mut(parent.as_str())
        .ok_or(PatchErrorKind::InvalidPointer)?;
    match parent {
        Value::Object(members) => members
            .remove(last.decoded().as_ref())
            .ok_or(PatchErrorKind::InvalidPointer),
        Value::Array(items) if allow_last && matches!(last.to_index(), Ok(Index::Next)) => {
            items.pop().ok_or(PatchErrorKind::InvalidPointer)
        }
        Value::Array(items) => {
            let index = last.to_index()?.for_len(items.len())?;
            Ok(items.remove(index))
        }
        _ => Err(PatchErrorKind::InvalidPointer),
    }
}

fn replace(doc: &mut Value, path: &Pointer, value: Value) -> Result<Value, PatchErrorKind> {
    let target = doc
        .pointer_mut(path.as_str())
        .ok_or(PatchErrorKind::InvalidPointer)?;
    Ok(std::mem::replace(target, value))
}

fn mov(doc: &mut Value, from: &Pointer, path: &Pointer) -> Result<Option<Value>, PatchErrorKind> {
    // Not into a child of itself.
    if path.starts_with(from) && path.len() != from.len() {
        return Err(PatchErrorKind::CannotMoveInsideItself);
    }
    let value = remove(doc, from, false).map_err(|error| match error {
        PatchErrorKind::InvalidPointer => PatchErrorKind::InvalidFromPointer,
        other => other,
    })?;
    let (value, added) = match add_or_return(doc, path, value) {
        Ok(previous) => return Ok(previous),
        Err(failed) => failed,
    };
    // Put back where it was: a move that fails moves nothing.
    let _ = add(doc, from, value);
    Err(added)
}

/// As [`add`], handing the value back when it cannot be added.
fn add_or_return(
    doc: &mut Value,
    path: &Pointer,
    value: Value,
) -> Result<Option<Value>, (Value, PatchErrorKind)> {
    let Some((parent, last)) = path.split_back() else {
        return Ok(Some(std::mem::replace(doc, value)));
    };
    let Some(parent) = doc.pointer_mut(parent.as_str()) else {
        return Err((value, PatchErrorKind::InvalidPointer));
    };
    match parent {
        Value::Object(members) => Ok(members.insert(last.decoded().into_owned(), value)),
        Value::Array(items) => {
            let index = match last
                .to_index()
                .map_err(PatchErrorKind::from)
                .and_then(|index| {
                    index
                        .for_len_incl(items.len())
                        .map_err(PatchErrorKind::from)
                }) {
                Ok(index) => index,
                Err(kind) => return Err((value, kind)),
            };
            items.insert(index, value);
            Ok(None)
        }
        _ => Err((value, PatchErrorKind::InvalidPointer)),
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;
    use serde_json::json;

    use super::*;

    fn ops(value: Value) -> Vec<PatchOperation> {
        serde_json::from_value(value).expect("a patch")
    }

    fn applied(doc: &Value, patch: &Value, meter: &mut Meter) -> (Value, Result<(), Refusal>) {
        let mut doc = doc.clone();
        let mut size = size(&doc);
        let result = apply(&mut doc, &mut size, &ops(patch.clone()), meter);
        if result.is_ok() {
            assert_eq!(size, self::size(&doc), "the size kept: {doc}");
        }
        (doc, result)
    }

    #[test]
    fn copies_from_the_root_are_refused_past_the_size_limit() {
        let doc = json!({"a": "xxxxxxxxxxxxxxxx"});
        let copies: Vec<Value> = (0..30)
            .map(|k| json!({"op": "copy", "from": "", "path": format!("/c{k}")}))
            .collect();
        let mut meter = Meter::new(1 << 20);
        let (after, result) = applied(&doc, &Value::Array(copies), &mut meter);
        let Err(Refusal::Over { operation, bound }) = result else {
            panic!("{result:?}");
        };
        assert_eq!(bound, Over::Size);
        // Each copy doubles the state (a few hundred bytes held in
        // memory): about the 12th would pass 1 MiB.
        assert!((10..=14).contains(&operation), "{operation}");
        // Undone whole.
        assert_eq!(after, doc);
    }

    #[test]
    fn work_is_bounded_by_what_the_stream_earns() {
        // A state of 10,000 values; each delta copies it, then removes the
        // copy: the size stays small, the work does not.
        let big: Vec<Value> = (0..10_000).map(|i| json!(i)).collect();
        let mut doc = json!({"big": big});
        let mut size = size(&doc);
        let mut meter = Meter::new(1 << 30);
        meter.allowance = 100_000;
        let delta = ops(json!([
            {"op": "copy", "from": "/big", "path": "/copy"},
            {"op": "remove", "path": "/copy"}
        ]));
        let mut refused = 0;
        for _ in 0..100 {
            meter.earn(80);
            if let Err(refusal) = apply(&mut doc, &mut size, &delta, &mut meter) {
                assert!(matches!(
                    refusal,
                    Refusal::Over {
                        bound: Over::Work,
                        ..
                    }
                ));
                refused += 1;
            }
        }
        assert!(refused > 80, "{refused}");
        assert!(doc.get("copy").is_none());
    }

    #[test]
    fn a_move_into_its_parent_is_undone() {
        // `/0/0` moved to `/0`, then a failing operation: the way back is
        // from `/0` into `/0/0`, which a patch could not ask for.
        for (doc, from, path) in [
            (json!([[null]]), "/0/0", "/0"),
            (json!({"b": {"a": null}}), "/b/a", "/b"),
            (json!({"b": {"a": [1]}}), "/b/a", ""),
        ] {
            let patch = json!([
                {"op": "move", "from": from, "path": path},
                {"op": "remove", "path": ""}
            ]);
            let (after, result) = applied(&doc, &patch, &mut Meter::new(u64::MAX));
            assert!(
                matches!(result, Err(Refusal::Failed { operation: 1, .. })),
                "{result:?}"
            );
            assert_eq!(after, doc);
        }
    }

    #[test]
    fn sizes_follow_the_state() {
        let mut doc = json!({"a": [1, 2, 3]});
        let mut size = size(&doc);
        let mut meter = Meter::new(u64::MAX);
        let patch = ops(json!([
            {"op": "add", "path": "/b", "value": "hello"},
            {"op": "remove", "path": "/a"},
            {"op": "copy", "from": "/b", "path": "/c"},
            {"op": "move", "from": "/c", "path": "/d"},
            {"op": "replace", "path": "/d", "value": [true]},
            {"op": "test", "path": "/b", "value": "hello"}
        ]));
        apply(&mut doc, &mut size, &patch, &mut meter).expect("applies");
        assert_eq!(doc, json!({"b": "hello", "d": [true]}));
        assert_eq!(size, self::size(&doc));
    }

    /// A small random document.
    fn document() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(json!(null)),
            any::<bool>().prop_map(Value::from),
            (0u8..4).prop_map(Value::from),
            "[ab]{0,2}".prop_map(Value::from),
        ];
        leaf.prop_recursive(3, 16, 3, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..3).prop_map(Value::Array),
                prop::collection::btree_map("[ab]", inner, 0..3)
                    .prop_map(|m| Value::Object(m.into_iter().collect())),
            ]
        })
    }

    /// A pointer into documents like [`document`]'s, valid or not.
    fn path() -> impl Strategy<Value = String> {
        prop::collection::vec(
            prop_oneof![
                Just("a"),
                Just("b"),
                Just("0"),
                Just("1"),
                Just("-"),
                Just("~1")
            ],
            0..3,
        )
        .prop_map(|tokens| tokens.iter().map(|t| format!("/{t}")).collect())
    }

    fn operation() -> impl Strategy<Value = Value> {
        prop_oneof![
            (path(), document()).prop_map(|(p, v)| json!({"op": "add", "path": p, "value": v})),
            path().prop_map(|p| json!({"op": "remove", "path": p})),
            (path(), document()).prop_map(|(p, v)| json!({"op": "replace", "path": p, "value": v})),
            (path(), path()).prop_map(|(f, p)| json!({"op": "move", "from": f, "path": p})),
            (path(), path()).prop_map(|(f, p)| json!({"op": "copy", "from": f, "path": p})),
            (path(), document()).prop_map(|(p, v)| json!({"op": "test", "path": p, "value": v})),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        /// Within its budget, a patch means here what it means to
        /// `json_patch`: the same state after it, the same failing
        /// operation, and the state as it was when it fails.
        #[test]
        fn the_same_as_json_patch(doc in document(), patch in prop::collection::vec(operation(), 1..5)) {
            let patch = Value::Array(patch);
            let mut kept = doc.clone();
            let mut size = size(&kept);
            if apply(&mut kept, &mut size, &ops(patch.clone()), &mut Meter::new(u64::MAX)).is_ok() {
                prop_assert_eq!(size, self::size(&kept));
            }
            let mut reference = doc.clone();
            let operations = ops(patch.clone());
            // `json_patch` panics when it cannot undo what it applied (a
            // move into the root, then a failure); this applier undoes it.
            let expected = std::panic::catch_unwind(move || {
                let result = json_patch::patch(&mut reference, &operations);
                (result, reference)
            });
            let (ours, result) = applied(&doc, &patch, &mut Meter::new(u64::MAX));
            let Ok((expected, reference)) = expected else {
                prop_assert!(matches!(result, Err(Refusal::Failed { .. })), "{:?}", result);
                prop_assert_eq!(&ours, &doc);
                return Ok(());
            };
            match (expected, result) {
                (Ok(()), Ok(())) => prop_assert_eq!(ours, reference),
                (Err(error), Err(Refusal::Failed { operation, kind })) => {
                    prop_assert_eq!(error.operation, operation);
                    prop_assert_eq!(error.kind.to_string(), kind);
                    // Undone whole (RFC 6902 section 5). `json_patch` loses
                    // the value of a `move` whose target does not exist;
                    // here it goes back where it was.
                    prop_assert_eq!(&ours, &doc);
                }
                (expected, result) => prop_assert!(false, "{:?} against {:?}", expected, result),
            }
        }
    }
}
