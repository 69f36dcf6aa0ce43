//! The fast path: deciding that a RunAgentInput or an event is clean
//! without building a `serde_json::Value`, locating anything or compiling
//! the schema.
//!
//! Events ([`event`]) are most of a capture's records: each is read
//! against what its version's schema lets its type carry, and the
//! sequence rules then read it as it was read
//! ([`crate::rules::EventView`]). An event the fast path reads is one the
//! full path reports nothing about; one it does not read (a member it
//! leaves to the full path, or anything found) takes the full path.
//!
//! A server checks every request, and almost every request is valid, so a
//! valid document must not pay for diagnostics it does not produce. The
//! bytes are read straight into borrowed structs ([`borrowed`]) that refuse
//! whatever the parse layer or the schema would report but the keys no
//! version defines, their keys are held to the schema ([`shape`]), those
//! unknown keys are reported as the schema reports them ([`unknown`]), and
//! the semantic rules run on views of them ([`checks`]): the rules' one
//! implementation, which builds a
//! finding's pointer and message only when it reports one. The validator
//! takes the full path (`Value`, compiled schema, every rule, locator) only
//! for what the structs refuse: a document that is not a well-formed
//! RunAgentInput fitting its schema, which the `Value` and the schema
//! explain.
//!
//! Every protocol version is read: the document is judged by the version
//! it declares (`protocolVersion`), else by the configured default the
//! validator passes in, exactly as the full path chooses, and held to that
//! version's shape and rules. A declaration the full path would warn about
//! (newer than any known, or not a version) is left to the full path.
//!
//! The contract is an equivalence, not a shortcut: with the default
//! settings but any default version, [`judge_run_agent_input`] reports
//! what the full path reports for the same bytes, and
//! [`run_agent_input_is_clean`] is true exactly when the full path
//! reports nothing (any severity), for every document within the parser's
//! 128 levels (a deeper one is the full path's alone: the fast path says
//! it is not known clean). Tests hold the
//! two to it on every fixture and on random mutations of them, and a fuzz
//! target (`fuzz/fuzz_targets/differential.rs`) does the same. Settings
//! only ever remove findings or change their severity, so a clean verdict
//! stays right under any settings; limits are honoured as the full path
//! honours them.

mod borrowed;
mod checks;
mod event;
pub(crate) mod given;
mod members;
mod scan;
mod shape;
mod slot;
mod snapshot;
mod unknown;

pub(crate) use event::EventShapes;
pub(crate) use members::Event;

use crate::limits::{self, PARSER_DEPTH};
use crate::locate::Anchors;
use crate::protocol::Declaration;
use crate::rules::view::{AnyFound, Findings};
use crate::rules::ReadEvent;
use crate::{Limits, Protocol};

/// Checks `bytes` as a RunAgentInput within `limits`, with `default`
/// judging it unless it declares a version, when the fast path can: it
/// reports into `out` what the full path would report, and returns the
/// version it judged by. `None` sends the document to the full path: it is
/// not well-formed, does not fit the schema, or holds something else only
/// the full path reports. The messages are read one at a time, their
/// findings reported as they are read, so a message that sends the
/// document to the full path may come after findings were reported: with
/// `None`, whatever `out` holds is to be dropped.
///
/// Where each message and tool starts is noted in `anchors`, for locating
/// the findings without walking the document from its start.
pub(crate) fn judge_run_agent_input<'d>(
    bytes: &'d [u8],
    limits: Limits,
    default: Protocol,
    out: &mut impl Findings,
    anchors: &mut Anchors<'d>,
) -> Option<Protocol> {
    if bytes.len() > limits.max_document_bytes {
        return None;
    }
    // A depth limit below the parser's own is checked first, as the full
    // path does; the parser's limit is the same on both paths.
    if limits.max_depth < PARSER_DEPTH
        && limits::nesting(bytes, limits.max_depth)
            .too_deep_at
            .is_some()
    {
        return None;
    }
    let mut input = borrowed::read_input(bytes, limits.max_findings)?;
    // The version the full path judges by (`Validator::judge_version`);
    // a declaration it warns about is its to report (a request's patch
    // spelling it serves in silence, judged as its version).
    let protocol = match &input.protocol_version {
        None => default,
        Some(declared) => match Protocol::from_declaration(declared.as_str()) {
            Declaration::Known(protocol) | Declaration::Patched(protocol) => protocol,
            Declaration::Newer | Declaration::Uninterpretable => return None,
        },
    };
    if !shape::fits(&input, protocol) {
        return None;
    }
    unknown::report_input(&input, protocol, out);
    let messages = input.messages.take();
    checks::judge(&input, messages, protocol, limits, out, anchors).then_some(protocol)
}

/// Whether the full path would report nothing for `bytes` checked as a
/// RunAgentInput within `limits`, with `default` judging it unless it
/// declares a version.
pub(crate) fn run_agent_input_is_clean(bytes: &[u8], limits: Limits, default: Protocol) -> bool {
    let mut found = AnyFound::default();
    let mut anchors = Anchors::new(bytes);
    judge_run_agent_input(bytes, limits, default, &mut found, &mut anchors).is_some() && !found.0
}

/// The event `bytes` hold, judged by `protocol` (the stream's, as
/// [`crate::EventStream`] tells it, or the configured default), when the
/// full path would report nothing about it on its own: it fits `shapes`,
/// this version's event schema, with nothing for the parse layer to
/// report, within `limits`. Its findings against the events before it
/// (the sequence rules) are not judged here. `None` sends it the full
/// path, which is always right.
///
/// A `RUN_STARTED` declaring a version is judged by it (the stream tells
/// that version for it); one the full path would warn about is its to
/// report.
#[inline]
pub(crate) fn read_clean_event<'a>(
    shapes: &EventShapes,
    bytes: &'a [u8],
    limits: Limits,
    protocol: Protocol,
) -> Option<Event<'a>> {
    if !event_within(bytes, limits) {
        return None;
    }
    let event = shapes.read(bytes)?;
    if let Some(declared) = event.str("protocolVersion") {
        if Protocol::from_declaration(declared) != Declaration::Known(protocol) {
            return None;
        }
    }
    Some(event)
}

/// The event `bytes` hold, a record of a stream judged by `protocol` that
/// [`read_clean_event`] does not read, when it is a `MESSAGES_SNAPSHOT`
/// the full path would report nothing about on its own (its findings
/// against the events before it are not judged here): its messages are
/// judged as a request's are ([`snapshot`]) and kept as their text. `None`
/// sends it to the full path.
pub(crate) fn read_clean_messages_snapshot<'a>(
    shapes: &EventShapes,
    bytes: &'a [u8],
    limits: Limits,
    protocol: Protocol,
) -> Option<Event<'a>> {
    if !snapshot::is_tagged(bytes) || !event_within(bytes, limits) {
        return None;
    }
    snapshot::read_clean(shapes, bytes, limits, protocol)
}

/// Whether an event's `bytes` are within the document size and nesting
/// `limits`, as the full path holds them (the parser's own depth limit is
/// the same on both paths).
fn event_within(bytes: &[u8], limits: Limits) -> bool {
    bytes.len() <= limits.max_document_bytes
        && (limits.max_depth >= PARSER_DEPTH
            || limits::nesting(bytes, limits.max_depth)
                .too_deep_at
                .is_none())
}
