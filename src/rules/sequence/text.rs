//! Text messages: `TEXT_MESSAGE_START` opens a message under its
//! `messageId`, `TEXT_MESSAGE_CONTENT` continues it and
//! `TEXT_MESSAGE_END` ends it, in the registry of [`super::open`], whose
//! rules report a content or end for no open message, a second start and
//! a message never ended. The chunked form is [`super::chunks`] (1.x) and
//! [`super::chunks_pre1`].

use super::event_type::EventType;
use super::here::Here;
use super::open::{OpenItems, Opened};
use crate::findings::Findings;

/// Opens, continues and ends the text message of a `TEXT_MESSAGE_*` event.
pub(super) fn event(at: &Here<'_>, open: &mut OpenItems, out: &mut impl Findings) {
    match at.kind {
        EventType::TextMessageStart => open.start(Opened::TextMessage, "messageId", at, out),
        EventType::TextMessageContent => open.touch(Opened::TextMessage, "messageId", at, out),
        EventType::TextMessageEnd => {
            open.end(Opened::TextMessage, "messageId", at, out);
        }
        _ => {}
    }
}
