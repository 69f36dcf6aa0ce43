//! Reasoning: `REASONING_START` and `REASONING_END` bracket a reasoning
//! phase, `REASONING_MESSAGE_START`, `_CONTENT` and `_END` a reasoning
//! message within it, each open under its `messageId` in the registry of
//! [`super::open`], whose rules report what is continued or ended without
//! being open, started twice or never ended. The chunked form is
//! [`super::chunks`] (1.x) and [`super::chunks_pre1`];
//! `REASONING_ENCRYPTED_VALUE` stands aside (no sequence rule reads it).

use super::event_type::EventType;
use super::here::Here;
use super::open::{OpenItems, Opened};
use crate::findings::Findings;

/// Opens, continues and ends the phase or message of a `REASONING_*` event.
pub(super) fn event(at: &Here<'_>, open: &mut OpenItems, out: &mut impl Findings) {
    match at.kind {
        EventType::ReasoningStart => open.start(Opened::ReasoningPhase, "messageId", at, out),
        EventType::ReasoningEnd => {
            open.end(Opened::ReasoningPhase, "messageId", at, out);
        }
        EventType::ReasoningMessageStart => {
            open.start(Opened::ReasoningMessage, "messageId", at, out);
        }
        EventType::ReasoningMessageContent => {
            open.touch(Opened::ReasoningMessage, "messageId", at, out);
        }
        EventType::ReasoningMessageEnd => {
            open.end(Opened::ReasoningMessage, "messageId", at, out);
        }
        _ => {}
    }
}
