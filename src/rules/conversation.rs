//! The rules over a conversation, fed one message at a time.
//!
//! Both paths read a document's messages in order and hand each, with the
//! tool calls it makes, to a [`ConversationCheck`]: the full path from the
//! parsed `Value` ([`super::view::turns`]), the fast path straight from the
//! bytes, one message read and dropped after another. Nothing here holds
//! the messages, so a conversation costs what the rules remember by id and
//! what they find, not its length.

use super::view::{Call, Conversation, Findings, Message};
use super::{encrypted, messages, request};

/// The conversation rules of one document, between its first message and
/// its last.
pub(crate) struct ConversationCheck<'c, 'a> {
    conversation: &'c Conversation<'a>,
    messages: messages::MessageRules<'c, 'a>,
}

impl<'c, 'a> ConversationCheck<'c, 'a> {
    /// The check of `conversation`, whose own parts (the run's ids, its
    /// resume entries and tools) are checked here, before any message.
    pub(crate) fn new(conversation: &'c Conversation<'a>, out: &mut impl Findings) -> Self {
        if let Some(run) = &conversation.run {
            messages::check_run_ids(run, out);
        }
        request::check(conversation, out);
        ConversationCheck {
            conversation,
            messages: messages::MessageRules::new(conversation),
        }
    }

    /// Message `index`, the next in order, which makes `calls`.
    pub(crate) fn message(
        &mut self,
        index: usize,
        message: &Message<'a>,
        calls: &[Call<'a>],
        out: &mut impl Findings,
    ) {
        self.messages.message(index, message, calls, out);
        request::check_message(self.conversation, index, message, calls, out);
        encrypted::check_message(self.conversation, Some((index, message)), calls, out);
    }

    /// The tool call the document is.
    pub(crate) fn lone_call(&mut self, call: &Call<'a>, out: &mut impl Findings) {
        self.messages.call(call, out);
        encrypted::check_message(self.conversation, None, std::slice::from_ref(call), out);
    }

    /// What only the whole conversation tells.
    pub(crate) fn finish(self, out: &mut impl Findings) {
        self.messages.finish(out);
    }
}
