//! How a RunAgentInput's `messages` are read: held with the rest of the
//! document when there are few; past that, the rest are only skimmed in
//! the document's reading and read one at a time afterwards, so that a
//! document's memory does not grow with its messages and no message is
//! read in full twice.

use std::cell::Cell;
use std::fmt;

use serde::de::{Deserialize, Deserializer, SeqAccess, Visitor};
use serde_json::value::RawValue;

use super::{Message, RunAgentInput};
use crate::limits::{self, PARSER_DEPTH};

/// The most messages a RunAgentInput's reading holds. Up to here, holding
/// them (a few hundred bytes each, their text borrowed) spares reading
/// their text twice; the messages after them are skimmed and left as
/// their source text ([`Messages::Split`]).
const HELD_MESSAGES: usize = 4096;

thread_local! {
    /// The address of the document [`read_input`] reads, so that the
    /// reading of `messages` can tell where in it the messages it leaves
    /// as text lie. A thread-local, not a seed, because the reader of
    /// every object is [`object!`]'s derive-like `Deserialize`.
    static DOCUMENT_AT: Cell<usize> = const { Cell::new(0) };
    /// Where in the document the messages past [`HELD_MESSAGES`] lie,
    /// from the first's start to the last's end, when there are any.
    static REST_AT: Cell<Option<(usize, usize)>> = const { Cell::new(None) };
}

/// Reads `bytes` as a RunAgentInput, `None` when they are not one the
/// structs take. Its first [`HELD_MESSAGES`] messages are held and the
/// rest left as their text; of the unknown keys of each object, the first
/// `keep` are kept (the findings a document reports).
pub(in crate::fast) fn read_input(bytes: &[u8], keep: usize) -> Option<RunAgentInput<'_>> {
    DOCUMENT_AT.set(bytes.as_ptr() as usize);
    REST_AT.set(None);
    super::KEPT_UNKNOWN.set(keep);
    let mut input: RunAgentInput<'_> = serde_json::from_slice(bytes).ok()?;
    if let Some((start, end)) = REST_AT.take() {
        let Some(Messages::Split { rest, .. }) = &mut input.messages else {
            return None;
        };
        *rest = bytes.get(start..end)?;
    }
    Some(input)
}

/// Reads `text`, the source of a `messages` array outside a RunAgentInput
/// (a `MESSAGES_SNAPSHOT`'s, two levels down as a request's are), as
/// [`read_input`] reads a request's; of the unknown keys of each object,
/// the first `keep` are kept.
pub(in crate::fast) fn read_messages(text: &str, keep: usize) -> Option<Messages<'_>> {
    DOCUMENT_AT.set(text.as_ptr() as usize);
    REST_AT.set(None);
    super::KEPT_UNKNOWN.set(keep);
    let mut messages: Messages<'_> = serde_json::from_str(text).ok()?;
    if let Some((start, end)) = REST_AT.take() {
        let Messages::Split { rest, .. } = &mut messages else {
            return None;
        };
        *rest = text.as_bytes().get(start..end)?;
    }
    Some(messages)
}

/// A RunAgentInput's `messages`, as [`read_input`] read them.
pub(in crate::fast) enum Messages<'a> {
    /// All of them, read with the rest of the document.
    Held(Vec<Message<'a>>),
    /// More than [`HELD_MESSAGES`]: those, read with the document, and
    /// the source text of the rest, from the start of the first to the
    /// end of the last (commas between them), read one at a time.
    Split {
        /// The first [`HELD_MESSAGES`].
        held: Vec<Message<'a>>,
        /// The text of the others.
        rest: &'a [u8],
    },
}

impl<'a> Messages<'a> {
    /// Hands each message in turn, with its index, to `each`, which says
    /// whether to go on. False when the messages are not an array of
    /// messages (as the schema and parse layer see it) or `each` stopped.
    pub(in crate::fast) fn each(self, mut each: impl FnMut(usize, Message<'a>) -> bool) -> bool {
        let (held, rest) = match self {
            Messages::Held(held) => (held, None),
            Messages::Split { held, rest } => (held, Some(rest)),
        };
        let from = held.len();
        held.into_iter()
            .enumerate()
            .all(|(index, message)| each(index, message))
            && rest.is_none_or(|rest| read_rest(rest, from, each))
    }
}

impl<'de> Deserialize<'de> for Messages<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_seq(MessagesVisitor)
    }
}

/// Reads an array of messages, holding the first [`HELD_MESSAGES`].
struct MessagesVisitor;

impl<'de> Visitor<'de> for MessagesVisitor {
    type Value = Messages<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an array of messages")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut held = Vec::new();
        while held.len() < HELD_MESSAGES {
            match seq.next_element::<Message<'de>>()? {
                Some(message) => held.push(message),
                None => return Ok(Messages::Held(held)),
            }
        }
        // Past what is held, each message is skimmed (its JSON checked,
        // nothing kept) and only the span they take is remembered.
        let Some(first) = seq.next_element::<&RawValue>()? else {
            return Ok(Messages::Held(held));
        };
        let mut last = first;
        while let Some(message) = seq.next_element::<&RawValue>()? {
            last = message;
        }
        let document = DOCUMENT_AT.get();
        let start = (first.get().as_ptr() as usize).wrapping_sub(document);
        let end = (last.get().as_ptr() as usize + last.get().len()).wrapping_sub(document);
        REST_AT.set(Some((start, end)));
        Ok(Messages::Split { held, rest: &[] })
    }
}

/// Reads `rest`, the source text of messages past the first `from` of a
/// RunAgentInput's `messages` (values with commas between them), handing
/// each in turn, with its index, to `each`, which says whether to go on.
/// False when the text is not such messages (as the schema and parse
/// layer see them) or `each` stopped.
///
/// Each message is read on its own, as if it were a document, so its
/// nesting is held here to what the parser allows it where it sits: three
/// levels down, in the array under the input object.
fn read_rest<'a>(
    rest: &'a [u8],
    from: usize,
    mut each: impl FnMut(usize, Message<'a>) -> bool,
) -> bool {
    /// Levels above each message: the input object and the array.
    const ABOVE: usize = 2;
    // Too deep takes at least that many opening brackets, each closed.
    let could_be_too_deep = rest.len() >= 2 * (PARSER_DEPTH - ABOVE);
    if could_be_too_deep
        && limits::nesting(rest, PARSER_DEPTH - ABOVE - 1)
            .too_deep_at
            .is_some()
    {
        return false;
    }
    let mut at = 0;
    let mut index = from;
    loop {
        let Some(text) = rest.get(at..) else {
            return false;
        };
        let mut messages = serde_json::Deserializer::from_slice(text).into_iter::<Message<'a>>();
        let Some(Ok(message)) = messages.next() else {
            return false;
        };
        if !each(index, message) {
            return false;
        }
        index += 1;
        at += messages.byte_offset();
        // The document's reading has already checked what lies between.
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = rest.get(at) {
            at += 1;
        }
        match rest.get(at) {
            None => return true,
            Some(b',') => at += 1,
            Some(_) => return false,
        }
    }
}
