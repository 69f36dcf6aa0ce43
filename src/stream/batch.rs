//! A batch of a stream's records checked: each told the version that
//! judges it, in stream order, then checked on its own. Batches are what
//! the CLI's threads hand each other, and what a [`super::StreamChecker`]
//! makes of each chunk.

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
    mut batch: Vec<Record>,
    protocols: Vec<Protocol>,
    kind: Option<Kind>,
) -> CheckedBatch {
    // A binary stream's frames are decoded here, on the checker's thread.
    for (record, &protocol) in batch.iter_mut().zip(&protocols) {
        record.decode_frame_for_check(file.validator, kind, protocol);
    }
    CheckedBatch::new(batch, |records| {
        records
            .iter()
            .zip(protocols)
            .map(|(record, protocol)| {
                let given = record.frame.as_ref().and_then(|n| n.given.as_ref());
                let (mut report, event) = if let Some(given) = given {
                    // Taken as it is when decoded: the same members fit
                    // the same shape now.
                    match file
                        .validator
                        .check_given(kind, given.kind(), given.members(), protocol)
                    {
                        Some((report, event)) => (report, Some(event)),
                        None => (file.validator.report_of(Vec::new()), None),
                    }
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
                    let found = file.validator.report_of(notes.findings_in(protocol));
                    report.extend(found.into_diagnostics());
                }
                (report, event)
            })
            .collect()
    })
}
