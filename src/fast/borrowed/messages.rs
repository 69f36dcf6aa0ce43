//! How a RunAgentInput's `messages` are read: held with the rest of the
//! document when there are few, else kept as their text and read one at
//! a time, so that a document's memory does not grow with its messages.

use std::cell::Cell;
use std::fmt;

use serde::de::{self, Deserialize, Deserializer, SeqAccess, Visitor};
use serde_json::value::RawValue;

use super::{Message, RunAgentInput};
use crate::limits::{self, PARSER_DEPTH};

/// The most messages a RunAgentInput's first reading holds. A document
/// with more is read a second time with its messages kept as text
/// ([`Messages::Text`]), so that its memory does not grow with them; up
/// to here, holding them (a few hundred bytes each, their text borrowed)
/// spares reading their text twice.
const HELD_MESSAGES: usize = 4096;

thread_local! {
    /// How [`read_input`] has `messages` read: held (false) or kept as
    /// text (true). A thread-local, not a seed, because the reader of
    /// every object is [`object!`]'s derive-like `Deserialize`, and this
    /// is the one choice a reading makes.
    static MESSAGES_AS_TEXT: Cell<bool> = const { Cell::new(false) };
    /// Set by a held reading that met more than [`HELD_MESSAGES`].
    static TOO_MANY_TO_HOLD: Cell<bool> = const { Cell::new(false) };
}

/// Reads `bytes` as a RunAgentInput, `None` when they are not one the
/// structs take. Its messages are held when there are at most
/// [`HELD_MESSAGES`], else kept as their text; of the unknown keys of each
/// object, the first `keep` are kept (the findings a document reports).
pub(in crate::fast) fn read_input(bytes: &[u8], keep: usize) -> Option<RunAgentInput<'_>> {
    TOO_MANY_TO_HOLD.set(false);
    super::KEPT_UNKNOWN.set(keep);
    match serde_json::from_slice(bytes) {
        Ok(input) => Some(input),
        Err(_) if TOO_MANY_TO_HOLD.replace(false) => {
            /// Puts the held reading back however the second one ends.
            struct Held;
            impl Drop for Held {
                fn drop(&mut self) {
                    MESSAGES_AS_TEXT.set(false);
                }
            }
            let _held = Held;
            MESSAGES_AS_TEXT.set(true);
            serde_json::from_slice(bytes).ok()
        }
        Err(_) => None,
    }
}

/// A RunAgentInput's `messages`, as [`read_input`] read them.
pub(in crate::fast) enum Messages<'a> {
    /// Read with the rest of the document.
    Held(Vec<Message<'a>>),
    /// The array's source text, read one message at a time.
    Text(&'a RawValue),
}

impl<'a> Messages<'a> {
    /// Hands each message in turn, with its index, to `each`, which says
    /// whether to go on. False when the messages are not an array of
    /// messages (as the schema and parse layer see it) or `each` stopped.
    pub(in crate::fast) fn each(self, mut each: impl FnMut(usize, Message<'a>) -> bool) -> bool {
        match self {
            Messages::Held(messages) => messages
                .into_iter()
                .enumerate()
                .all(|(index, message)| each(index, message)),
            Messages::Text(text) => read_messages(text, each),
        }
    }
}

impl<'de> Deserialize<'de> for Messages<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        if MESSAGES_AS_TEXT.get() {
            return <&RawValue>::deserialize(deserializer).map(Messages::Text);
        }
        struct HeldVisitor;
        impl<'de> Visitor<'de> for HeldVisitor {
            type Value = Messages<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an array of messages")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                let mut messages = Vec::new();
                while let Some(message) = seq.next_element::<Message<'de>>()? {
                    if messages.len() == HELD_MESSAGES {
                        TOO_MANY_TO_HOLD.set(true);
                        return Err(de::Error::custom("more messages than are held"));
                    }
                    messages.push(message);
                }
                Ok(Messages::Held(messages))
            }
        }
        deserializer.deserialize_seq(HeldVisitor)
    }
}

/// Reads `messages`, the source text of a RunAgentInput's `messages`, as
/// an array of messages, handing each in turn, with its index, to `each`,
/// which says whether to go on. False when the text is not such an array
/// (as the schema and parse layer see it) or `each` stopped.
///
/// The text is read on its own, as if it were a document, so its nesting
/// is held here to what the parser allows it where it sits: two levels
/// down, under the input object.
fn read_messages<'a>(messages: &'a RawValue, each: impl FnMut(usize, Message<'a>) -> bool) -> bool {
    /// Levels above the messages array: the input object.
    const ABOVE: usize = 1;
    let text = messages.get();
    // Too deep takes at least that many opening brackets, each closed.
    let could_be_too_deep = text.len() >= 2 * (PARSER_DEPTH - ABOVE);
    if could_be_too_deep
        && limits::nesting(text.as_bytes(), PARSER_DEPTH - ABOVE - 1)
            .too_deep_at
            .is_some()
    {
        return false;
    }
    let mut deserializer = serde_json::Deserializer::from_str(text);
    deserializer
        .deserialize_seq(EachMessage(each))
        .and_then(|()| deserializer.end())
        .is_ok()
}

/// Hands each message of an array to its function.
struct EachMessage<F>(F);

impl<'de, F: FnMut(usize, Message<'de>) -> bool> Visitor<'de> for EachMessage<F> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an array of messages")
    }

    fn visit_seq<A: SeqAccess<'de>>(mut self, mut seq: A) -> Result<(), A::Error> {
        let mut index = 0;
        while let Some(message) = seq.next_element::<Message<'de>>()? {
            if !(self.0)(index, message) {
                return Err(de::Error::custom("a message the fast path does not take"));
            }
            index += 1;
        }
        Ok(())
    }
}
