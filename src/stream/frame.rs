//! A frame of the binary transport made a record: the event it holds as
//! JSON (what every other rule judges), and the findings of its framing and
//! decoding, each naming the frame and where it starts.

use std::sync::OnceLock;

use super::record::{FrameNotes, Record};
use crate::fast::given::Given;
use crate::input::proto::fast::Member as CommonMember;
use crate::input::proto::{
    common, decode_owned, Decoded, Frame, FrameBody, Invalid, UnknownField, DEEPEST_MESSAGES,
};
use crate::rules::binary::{
    CLIENT_FRAME_LIMIT, PROTO_FRAME_TOO_LARGE, PROTO_FRAME_TRUNCATED, PROTO_INVALID_UTF8,
    PROTO_MESSAGE_INVALID, PROTO_TRAILING_BYTES, PROTO_UNKNOWN_EVENT, PROTO_UNKNOWN_FIELD,
};
use crate::text::count;
use crate::validator::StreamEvent;
use crate::{Diagnostic, Kind, Protocol, Report, Validator};
use prost::bytes::Bytes;

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
            json: OnceLock::new(),
            digits: OnceLock::new(),
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
        let (json, found) = decoded(decode_owned(message.into()));
        notes.findings.extend(found);
        if let Some(json) = json {
            notes.event = true;
            self.bytes = json;
            self.length = self.bytes.len();
        }
    }

    /// The check of a frame not decoded yet (on a checker's thread): a
    /// frame of the common kinds whose event fits its shape as it is goes
    /// to the sequence rules as its members, read from the frame's bytes
    /// with no JSON written or read; any other is decoded to JSON (kept in
    /// the frame's notes) and checked as JSON is. `None` for a record that
    /// is not such a frame. The findings of the decoding come with it.
    pub(crate) fn check_undecoded<'a>(
        &'a self,
        validator: &Validator,
        kind: Option<Kind>,
        protocol: Protocol,
    ) -> Option<(Report, Option<StreamEvent<'a>>, Vec<Diagnostic>)> {
        let notes = self.frame.as_deref().filter(|notes| notes.undecoded)?;
        let message = &self.bytes[..];
        // The JSON of a frame is at most a few times its bytes: one that
        // could pass the document limit takes the JSON path, which says so.
        let small = message.len().saturating_mul(8).saturating_add(256)
            <= validator.limits().max_document_bytes;
        if let Some(frame) = common(message).filter(|_| small) {
            let digits = frame
                .timestamp()
                .map(|t| notes.digits.get_or_init(|| t.to_string()).as_str());
            let members = frame.members().map(|(key, member)| {
                let given = match member {
                    CommonMember::Str(text) => Given::Str(text),
                    CommonMember::Timestamp(_) => Given::Integer(digits.unwrap_or("")),
                };
                (key, given)
            });
            if let Some((report, event)) =
                validator.check_given(kind, frame.kind(), members, protocol)
            {
                return Some((report, Some(event), Vec::new()));
            }
        }
        let (json, found) = decoded(decode_owned(Bytes::copy_from_slice(message)));
        let Some(json) = json else {
            let report = validator.report_of(Vec::new()).with_protocol(protocol);
            return Some((report, None, found));
        };
        let json = notes.json.get_or_init(|| json);
        let (report, event) = validator.check_record(kind, json, protocol);
        Some((report, event, found))
    }

    /// The text the record's findings are located in: a frame's JSON, when
    /// it was written, else nothing (a frame's findings have no line).
    pub(crate) fn check_text(&self) -> &[u8] {
        match self.frame.as_deref() {
            Some(notes) if notes.undecoded => notes.json.get().map_or(&[], Vec::as_slice),
            _ => &self.bytes,
        }
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

impl FrameNotes {
    /// The frame's findings, each as serious as `protocol`, the version
    /// judging the frame, makes its rule (an unknown event is dropped in
    /// 1.x and refused before).
    pub(crate) fn findings_in(&self, protocol: Protocol) -> Vec<Diagnostic> {
        in_version(self.findings.clone(), protocol)
    }
}

/// A frame's `findings`, each as serious as `protocol`, the version judging
/// the frame, makes its rule.
pub(crate) fn in_version(mut findings: Vec<Diagnostic>, protocol: Protocol) -> Vec<Diagnostic> {
    for finding in &mut findings {
        if let Some(rule) = crate::rules::rule(&finding.rule) {
            finding.severity = rule.severity_in(protocol);
        }
    }
    findings
}

/// What decoding a frame gave: the event's JSON, if it holds one, and the
/// findings of its decoding.
fn decoded(result: Result<Decoded, Invalid>) -> (Option<Vec<u8>>, Vec<Diagnostic>) {
    let mut findings = Vec::new();
    match result {
        Ok(Decoded::Event {
            written,
            unknown,
            more_unknown,
        }) => {
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
                    PROTO_UNKNOWN_FIELD
                        .diagnostic("", format!("{} more unknown field(s)", count(more_unknown))),
                );
            }
            (Some(written.json), findings)
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
            (None, findings)
        }
        Ok(Decoded::TooDeep) => {
            findings.push(
                crate::rules::NESTING_TOO_DEEP
                    .diagnostic(
                        "",
                        format!(
                            "the frame nests messages more than {} levels deep, deeper than agui-lint reads (--max-depth {} levels of JSON at most): agui-lint's own limit, not the protocol's",
                            count(DEEPEST_MESSAGES),
                            count(crate::limits::MAX_DEPTH_CAP)
                        ),
                    )
                    .with_help("the frame was not checked; @ag-ui/client's decoder recurses once a message and fails the run far sooner"),
            );
            (None, findings)
        }
        Err(invalid) => {
            findings.push(
                PROTO_MESSAGE_INVALID
                    .diagnostic("", format!("the frame does not decode: {}", invalid.0))
                    .with_help("@ag-ui/client fails the run at a frame it cannot decode"),
            );
            (None, findings)
        }
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
