//! A frame of the binary transport made a record: the event it holds as
//! JSON (what every other rule judges), and the findings of its framing and
//! decoding, each naming the frame and where it starts.

use super::record::{FrameNotes, Record};
use crate::fast::given::Given;
use crate::input::proto::fast::Member as CommonMember;
use crate::input::proto::{common, decode_owned, Common, Decoded, Frame, FrameBody, UnknownField};
use crate::rules::binary::{
    CLIENT_FRAME_LIMIT, PROTO_FRAME_TOO_LARGE, PROTO_FRAME_TRUNCATED, PROTO_INVALID_UTF8,
    PROTO_MESSAGE_INVALID, PROTO_TRAILING_BYTES, PROTO_UNKNOWN_EVENT, PROTO_UNKNOWN_FIELD,
};
use crate::text::count;
use crate::{Diagnostic, Kind, Protocol, Validator};

/// The first byte of a frame holding `RUN_STARTED` (member 12 of `Event`,
/// length-delimited): the one event whose version the stream's order needs
/// before its batch is checked.
const RUN_STARTED_TAG: u8 = 12 << 3 | 2;

impl Record {
    /// The record of a binary stream's `frame`. A frame holding a message
    /// keeps its bytes, decoded where its batch is checked
    /// ([`Record::decode_frame`], on a checker's thread), except a
    /// `RUN_STARTED`, decoded now: the version it declares judges the
    /// events after it, which is told in stream order.
    pub(crate) fn frame(frame: Frame) -> Record {
        let Frame {
            index,
            offset,
            body,
        } = frame;
        let mut findings = Vec::new();
        let mut record = Record {
            number: index,
            bytes: Vec::new(),
            length: 0,
            origins: None,
            offset,
            frame: None,
        };
        let mut undecoded = false;
        match body {
            FrameBody::Message(message) => {
                if message.len() > CLIENT_FRAME_LIMIT {
                    findings.push(too_large(message.len()));
                }
                record.length = message.len();
                record.bytes = message;
                undecoded = true;
            }
            FrameBody::Oversized { length: declared } => {
                // Measured, not held: the size limit's finding is made
                // where every oversized record's is.
                record.length = declared;
                if declared > CLIENT_FRAME_LIMIT {
                    findings.push(too_large(declared));
                }
            }
            FrameBody::Truncated {
                length: declared,
                held,
            } => findings.push(
                PROTO_FRAME_TRUNCATED
                    .diagnostic(
                        "",
                        format!(
                            "the frame declares {} bytes, but the stream ends after {}",
                            count(declared),
                            count(held)
                        ),
                    )
                    .with_help("the stream was cut short, or a frame's length is wrong"),
            ),
            FrameBody::TrailingBytes { held } => findings.push(PROTO_TRAILING_BYTES.diagnostic(
                "",
                format!("{held} byte(s) after the last frame, too few for a frame's length"),
            )),
        }
        let starts_a_run = record.bytes.first() == Some(&RUN_STARTED_TAG);
        record.frame = Some(Box::new(FrameNotes {
            findings,
            event: false,
            undecoded,
            given: None,
        }));
        if starts_a_run {
            record.decode_frame();
        }
        record
    }

    /// Decodes the frame's message, if not yet: its bytes become the JSON
    /// event the official decoder builds, and what decoding found joins the
    /// frame's findings.
    pub(crate) fn decode_frame(&mut self) {
        let Some(notes) = self.frame.as_mut().filter(|notes| notes.undecoded) else {
            return;
        };
        notes.undecoded = false;
        let message = std::mem::take(&mut self.bytes);
        self.length = 0;
        let findings = &mut notes.findings;
        match decode_owned(message.into()) {
            Ok(Decoded::Event {
                written,
                unknown,
                more_unknown,
            }) => {
                notes.event = true;
                self.bytes = written.json;
                self.length = self.bytes.len();
                if written.replaced_utf8 {
                    findings.push(PROTO_INVALID_UTF8.diagnostic(
                        "",
                        "a string is not UTF-8; receivers read its broken bytes as U+FFFD, and so is the event checked",
                    ));
                }
                if written.dropped_parts > 0 {
                    findings.push(PROTO_UNKNOWN_FIELD.diagnostic(
                        "",
                        format!(
                            "{} content part(s) of no kind AG-UI defines, which receivers drop",
                            written.dropped_parts
                        ),
                    ));
                }
                findings.extend(unknown.iter().map(unknown_field));
                if more_unknown > 0 {
                    findings.push(
                        PROTO_UNKNOWN_FIELD.diagnostic(
                            "",
                            format!("{} more unknown field(s)", count(more_unknown)),
                        ),
                    );
                }
            }
            Ok(Decoded::Later { members }) => {
                let numbers: Vec<String> = members.iter().map(u32::to_string).collect();
                findings.push(
                    PROTO_UNKNOWN_EVENT
                        .diagnostic(
                            "",
                            format!(
                                "the frame holds member {} of Event, an event type this version does not define; receivers drop it",
                                numbers.join(", ")
                            ),
                        )
                        .with_help("an event of a later AG-UI version, or of a server's own definitions"),
                );
            }
            Err(invalid) => findings.push(
                PROTO_MESSAGE_INVALID
                    .diagnostic("", format!("the frame does not decode: {}", invalid.0))
                    .with_help("@ag-ui/client fails the run at a frame it cannot decode"),
            ),
        }
    }

    /// Decodes the frame's message, if not yet, for the check of its batch:
    /// a frame of the common kinds whose event fits its shape in
    /// `protocol` as it is is kept as its members ([`GivenEvent`]), with no
    /// JSON written or read; any other is decoded to JSON.
    pub(crate) fn decode_frame_for_check(
        &mut self,
        validator: &Validator,
        kind: Option<Kind>,
        protocol: Protocol,
    ) {
        let Some(notes) = self.frame.as_mut().filter(|notes| notes.undecoded) else {
            return;
        };
        // The JSON of a frame is at most a few times its bytes: one that
        // could pass the document limit takes the JSON path, which says so.
        let small = self.bytes.len().saturating_mul(8).saturating_add(256)
            <= validator.limits().max_document_bytes;
        if small {
            if let Some(given) = common(&self.bytes).map(|c| GivenEvent::of(&c)) {
                if validator
                    .check_given(kind, given.kind, given.members(), protocol)
                    .is_some()
                {
                    notes.undecoded = false;
                    notes.event = true;
                    notes.given = Some(given);
                    self.bytes = Vec::new();
                    self.length = 0;
                    return;
                }
            }
        }
        self.decode_frame();
    }

    /// The text the stream's version is told from: nothing for a frame not
    /// decoded yet (only a `RUN_STARTED` declares one, and it is decoded
    /// when read).
    pub(crate) fn version_text(&self) -> &[u8] {
        match &self.frame {
            Some(notes) if notes.undecoded => &[],
            _ => &self.bytes,
        }
    }
}

/// A frame's event of the common kinds, kept as its members: their text
/// in one string, each member a key and a span of it.
pub(crate) struct GivenEvent {
    kind: &'static str,
    text: String,
    members: [Option<(&'static str, u32, u32, bool)>; MOST_GIVEN],
}

/// Most members a given event has: its strings and its timestamp.
const MOST_GIVEN: usize = 5;

impl GivenEvent {
    fn of(common: &Common<'_>) -> GivenEvent {
        let mut text = String::new();
        let mut members = [None; MOST_GIVEN];
        for ((key, member), slot) in common.members().zip(&mut members) {
            let start = text.len();
            let integer = match member {
                CommonMember::Str(value) => {
                    text.push_str(value);
                    false
                }
                CommonMember::Timestamp(value) => {
                    use std::fmt::Write as _;
                    let _ = write!(text, "{value}");
                    true
                }
            };
            let span = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
            *slot = Some((key, span(start), span(text.len()), integer));
        }
        GivenEvent {
            kind: common.kind(),
            text,
            members,
        }
    }

    /// The event's `type`.
    pub(crate) fn kind(&self) -> &'static str {
        self.kind
    }

    /// Its members, in the order its JSON holds them.
    pub(crate) fn members(&self) -> impl Iterator<Item = (&'static str, Given<'_>)> + '_ {
        self.members
            .iter()
            .flatten()
            .map(|&(key, start, end, integer)| {
                let value = self.text.get(start as usize..end as usize).unwrap_or("");
                let given = if integer {
                    Given::Integer(value)
                } else {
                    Given::Str(value)
                };
                (key, given)
            })
    }
}

impl FrameNotes {
    /// The frame's findings, each as serious as `protocol`, the version
    /// judging the frame, makes its rule (an unknown event is dropped in
    /// 1.x and refused before).
    pub(crate) fn findings_in(&self, protocol: Protocol) -> Vec<Diagnostic> {
        let mut findings = self.findings.clone();
        for finding in &mut findings {
            if let Some(rule) = crate::rules::rule(&finding.rule) {
                finding.severity = rule.severity_in(protocol);
            }
        }
        findings
    }
}

fn too_large(length: usize) -> Diagnostic {
    PROTO_FRAME_TOO_LARGE
        .diagnostic(
            "",
            format!(
                "the frame is {} bytes, over the {} bytes @ag-ui/client reads",
                count(length),
                count(CLIENT_FRAME_LIMIT)
            ),
        )
        .with_help("the client fails the run at this frame; send the event in smaller pieces (deltas, chunks)")
}

fn unknown_field(field: &UnknownField) -> Diagnostic {
    let place = if field.path.is_empty() {
        String::new()
    } else {
        format!(" (in {})", field.path)
    };
    PROTO_UNKNOWN_FIELD.diagnostic(
        "",
        format!(
            "field {} of {}{place} is not defined by AG-UI; receivers drop it",
            field.number, field.message
        ),
    )
}
