//! An event given as its members rather than as JSON text: what a binary
//! frame of the common kinds holds once decoded (strings and a timestamp).
//! It is held to its version's shape exactly as [`super::scan`] holds the
//! same event read from its text, so that it is read only when the text
//! would have been: anything the shape does not take leaves the frame to
//! the JSON path, which reports it.

use std::borrow::Cow;

use super::borrowed::Str;
use super::members::{Event, Member, Members};
use super::slot;
use super::EventShapes;

/// One member of a given event.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Given<'a> {
    /// A string.
    Str(&'a str),
    /// An integer, as its decimal text.
    Integer(&'a str),
}

/// The event of type `kind` with `members` (in the order its JSON would
/// hold them), if it fits its shape in `shapes` with nothing to report.
pub(crate) fn event<'a>(
    shapes: &EventShapes,
    kind: &'static str,
    members: impl Iterator<Item = (&'static str, Given<'a>)>,
) -> Option<Event<'a>> {
    let shape = shapes.shape(kind)?;
    let mut read = Members::default();
    let mut seen = 0u64;
    for (key, given) in members {
        let slot = shape.slot_of(key, &mut seen).ok()?;
        let member = match (slot, given) {
            (Some(slot), Given::Str(text)) if slot::fits_str(slot, text) => {
                Member::Str(Str(Cow::Borrowed(text)))
            }
            (Some(slot), Given::Integer(text)) if slot::fits(slot, text) => Member::Text(text),
            _ => return None,
        };
        read.push((Str(Cow::Borrowed(key)), member));
    }
    if !shape.has_required(seen) {
        return None;
    }
    Some(Event {
        kind: Str(Cow::Borrowed(kind)),
        members: read,
    })
}
