//! Where the event being checked is, and how a finding about it is made:
//! the pointer within its document, and related notes that point back at
//! earlier events (located in the same document or in the record that
//! holds them).

use std::cell::OnceCell;

use serde_json::Value;

use super::event_type::EventType;
use super::snapshot::{self, SnapshotMessage};
use super::view::EventView;
use crate::diagnostic::{Diagnostic, Related, Target};
use crate::rules::Rule;
use crate::{Location, Protocol};

/// Where an event is: for findings about it, and for notes that point back
/// at it from later events.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EventPlace {
    /// 1-based position of the event in its stream.
    pub index: usize,
    /// The record holding the event when the stream's events are separate
    /// documents (JSON Lines, SSE); `None` when they are elements of one
    /// array.
    pub record: Option<usize>,
    /// The event's pointer in its document: `""` for an event that is a
    /// document, `/3` for an element of an events array.
    pub pointer: String,
    /// Where the event starts, for notes from other records; `None` lets the
    /// validator locate the pointer in the same document.
    pub location: Option<Location>,
}

/// The event being checked, with its place.
pub(super) struct Here<'a> {
    pub(super) event: EventView<'a>,
    pub(super) place: &'a EventPlace,
    /// The event's `type` as it is written, for messages.
    pub(super) type_: &'a str,
    /// The event's `type`, read once.
    pub(super) kind: EventType,
    /// The event's `subagentRunId`, which most rules ask for: read once.
    owner: Option<&'a str>,
    /// The version judging the event.
    pub(super) protocol: Protocol,
    /// The event's `messages`, read at most once (a `MESSAGES_SNAPSHOT`'s
    /// is read by three trackers, and is the largest member an event has).
    messages: OnceCell<Option<Vec<SnapshotMessage<'a>>>>,
}

impl<'a> Here<'a> {
    /// The event `event` of type `type_` at `place`, judged by `protocol`.
    pub(super) fn new(
        event: EventView<'a>,
        type_: &'a str,
        place: &'a EventPlace,
        protocol: Protocol,
    ) -> Here<'a> {
        Here {
            event,
            place,
            type_,
            kind: EventType::of(type_),
            owner: event.str("subagentRunId"),
            protocol,
            messages: OnceCell::new(),
        }
    }

    /// No event: the stream's end, reported on its last event's `place`.
    pub(super) fn end(place: &'a EventPlace, protocol: Protocol) -> Here<'a> {
        Here {
            event: EventView::Value(&Value::Null),
            place,
            type_: "",
            kind: EventType::Other,
            owner: None,
            protocol,
            messages: OnceCell::new(),
        }
    }

    /// The event's string member `key`.
    pub(super) fn str(&self, key: &str) -> Option<&'a str> {
        self.event.str(key)
    }

    /// The event's `messages` member, as the rules read a snapshot's.
    pub(super) fn messages(&self) -> Option<&[SnapshotMessage<'a>]> {
        self.messages
            .get_or_init(|| match self.event {
                EventView::Value(value) => value.get("messages").map(snapshot::of_value),
                EventView::Read(event) => event.text("messages").map(snapshot::of_text),
            })
            .as_deref()
    }

    /// The subagent the event is attributed to (`subagentRunId`).
    pub(super) fn owner(&self) -> Option<&'a str> {
        self.owner
    }

    /// Whether a 1.x version judges the event.
    pub(super) fn is_1x(&self) -> bool {
        self.protocol.is_1x()
    }

    /// A finding of `rule` at `suffix` within this event.
    pub(super) fn finding(
        &self,
        rule: &Rule,
        suffix: &str,
        message: impl Into<String>,
    ) -> Diagnostic {
        let at = if suffix.is_empty() {
            self.place.pointer.clone()
        } else {
            format!("{}{suffix}", self.place.pointer)
        };
        let mut diagnostic = rule.diagnostic(at, message);
        if suffix.is_empty() {
            diagnostic = diagnostic.at(Target::Value);
        }
        diagnostic
    }
}

impl EventPlace {
    /// A related note `what` pointing at this event.
    pub(super) fn note(&self, what: impl Into<String>) -> Related {
        Related {
            pointer: self.pointer.clone(),
            // No count in the text: the note carries its own place (record,
            // pointer, line and column), so a message never names the event
            // by a counter other than the one its document is named by.
            message: what.into(),
            record: self.record,
            location: self.location,
            target: Target::Value,
        }
    }
}

/// Who produced an opened item, for a message: a subagent by its run id,
/// or the parent agent when it carries no attribution.
pub(super) fn owner_name(owner: Option<&str>) -> String {
    owner.map_or("the parent agent".to_string(), |o| {
        format!("subagent '{o}'")
    })
}
