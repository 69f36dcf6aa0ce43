//! A batch of a stream's records checked: each told the version that
//! judges it, in stream order, then checked on its own. Batches are what
//! the CLI's threads hand each other, and what a [`super::StreamChecker`]
//! makes of each chunk.

use super::frame::in_version;
use super::record::{File, Record};
use crate::validator::{StreamEvent, StreamVersions};
use crate::{Kind, Protocol, Report};

/// What the check of one record found: its report and, for an event, the
/// event as the check read it (borrowing the record's bytes).
pub(crate) type Checks<'a> = Vec<(Report, Option<StreamEvent<'a>>)>;

self_cell::self_cell!(
    /// A batch of records together with what their checks found, so that
    /// it can wait for the sequence rules while the next batch is checked.
    pub(crate) struct CheckedBatch {
        owner: Vec<Record>,
        #[covariant]
        dependent: Checks,
    }
);

/// The version that judges each record's events, told in stream order.
pub(crate) fn protocols(
    file: &File<'_>,
    records: &[Record],
    versions: &mut StreamVersions,
) -> Vec<Protocol> {
    let default = file.validator.settings().default_protocol();
    records
        .iter()
        .map(|record| versions.protocol_for(record.version_text(), default))
        .collect()
}

/// A batch's records checked, each event judged by `protocols`.
pub(crate) fn check_batch(
    file: &File<'_>,
    batch: Vec<Record>,
    protocols: Vec<Protocol>,
    kind: Option<Kind>,
) -> CheckedBatch {
    CheckedBatch::new(batch, |records| {
        records
            .iter()
            .zip(protocols)
            .map(|(record, protocol)| {
                // A binary stream's frames are decoded here, on a checker's
                // thread.
                let undecoded = record.check_undecoded(file.validator, kind, protocol);
                let (mut report, event) = if let Some((mut report, event, found)) = undecoded {
                    if !found.is_empty() {
                        let found = file.validator.report_of(in_version(found, protocol));
                        report.extend(found.into_diagnostics());
                    }
                    (report, event)
                } else if record.is_oversized() {
                    (file.validator.oversized(record.length), None)
                } else if record.holds_no_event() {
                    (
                        file.validator.report_of(Vec::new()).with_protocol(protocol),
                        None,
                    )
                } else {
                    file.validator.check_record(kind, &record.bytes, protocol)
                };
                if let Some(notes) = record.frame.as_ref().filter(|n| !n.findings.is_empty()) {
                    // The framing's findings, made when the frame was read.
                    let found = file.validator.report_of(notes.findings_in(protocol));
                    report.extend(found.into_diagnostics());
                }
                (report, event)
            })
            .collect()
    })
}
