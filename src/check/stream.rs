//! A capture's records checked as one stream of events, in three stages
//! that overlap: records are read in batches and each batch's records are
//! checked in parallel on the thread pool; the sequence rules see the
//! checked events in stream order on a thread of their own; the calling
//! thread hands each record's document on. While the sequence rules run
//! over one batch, the next is being checked.
//!
//! Every stage holds at most a batch, and at most [`BATCHES_AHEAD`] wait
//! between two stages, so memory stays a few batches' worth whatever the
//! file's size.

use std::io;
use std::sync::mpsc::SyncSender;

use rayon::prelude::*;

use super::Checked;
use super::{File, Pending, Record};
use crate::validator::{StreamEvent, StreamVersions};
use crate::{Diagnostic, EventStream, Kind, Protocol, Report};

/// Records checked together in parallel at most, and their bytes at most.
/// Events are small and quick to read, so a batch holds many: handing a
/// few dozen to the thread pool cost more than checking them. Large
/// records fill a batch by bytes first, which bounds memory.
const BATCH_RECORDS: usize = 1024;
const BATCH_BYTES: usize = 128 * 1024;
/// Tasks a batch's check is split into, at least.
const TASKS_PER_BATCH: usize = 16;
/// Batches waiting between two stages at most.
const BATCHES_AHEAD: usize = 1;

/// The next records to check together: up to [`BATCH_RECORDS`] records,
/// or fewer once they hold [`BATCH_BYTES`] (one record is always taken),
/// and the read error that stopped the batch early, if any (the readers
/// report an error once, then end).
fn next_batch(
    records: &mut impl Iterator<Item = io::Result<Record>>,
) -> (Vec<Record>, Option<io::Error>) {
    let mut batch = Vec::with_capacity(BATCH_RECORDS.min(256));
    let mut bytes = 0;
    while batch.len() < BATCH_RECORDS && bytes < BATCH_BYTES {
        match records.next() {
            Some(Ok(record)) => {
                bytes += record.bytes.len();
                batch.push(record);
            }
            Some(Err(error)) => return (batch, Some(error)),
            None => break,
        }
    }
    (batch, None)
}

/// What the check of one record found: its report and, for an event, the
/// event as the check read it (borrowing the record's bytes).
type Checks<'a> = Vec<(Report, Option<StreamEvent<'a>>)>;

self_cell::self_cell!(
    /// A batch of records together with what their checks found, so that
    /// it can wait for the sequence rules while the next batch is checked.
    struct CheckedBatch {
        owner: Vec<Record>,
        #[covariant]
        dependent: Checks,
    }
);

impl File<'_> {
    /// The records of a capture, its events one stream: read, checked and
    /// sequenced in overlapping stages (see the module's documentation).
    pub(super) fn stream(
        &self,
        mut records: impl Iterator<Item = io::Result<Record>> + Send,
        kind: Option<Kind>,
        sink: &mut dyn FnMut(Checked),
    ) -> io::Result<()> {
        std::thread::scope(|scope| {
            let (sender, checked) = std::sync::mpsc::sync_channel(BATCHES_AHEAD);
            scope.spawn(move || {
                let mut versions = StreamVersions::default();
                loop {
                    let (batch, error) = next_batch(&mut records);
                    let last = batch.is_empty() || error.is_some();
                    let batch = self.check_batch(batch, &mut versions, kind);
                    // A closed channel means a later stage stopped early.
                    if sender.send((batch, error)).is_err() || last {
                        break;
                    }
                }
            });
            let (sender, sequenced) = std::sync::mpsc::sync_channel(BATCHES_AHEAD);
            let sequencer = scope.spawn(move || self.sequence_batches(checked.into_iter(), sender));
            let mut pending = Pending::default();
            let mut count = 0usize;
            let mut in_file_positions = false;
            for (records, reports) in sequenced {
                count += records.len();
                in_file_positions |= records.iter().any(|r: &Record| r.origins.is_some());
                for (record, report) in records.into_iter().zip(reports) {
                    let (checked, text) = self.checked_record(record, report);
                    pending.push(checked, text, sink);
                }
            }
            // Every batch is handed on: the end of the stream, and the read
            // error that ended it early, if any.
            let (ending, error) = sequencer
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
            pending.finish(ending, sink, in_file_positions);
            match error {
                Some(error) => Err(error),
                None => {
                    if count == 0 {
                        self.empty(sink);
                    }
                    Ok(())
                }
            }
        })
    }

    /// A batch's records checked in parallel, each event judged by the
    /// version its stream position gives it.
    fn check_batch(
        &self,
        batch: Vec<Record>,
        versions: &mut StreamVersions,
        kind: Option<Kind>,
    ) -> CheckedBatch {
        // Which version judges each record's events is told in stream
        // order (a RUN_STARTED declares it for the events after it)
        // before the records are checked out of order.
        let default = self.validator.settings().default_protocol();
        let protocols: Vec<Protocol> = batch
            .iter()
            .map(|record| versions.protocol_for(&record.bytes, default))
            .collect();
        CheckedBatch::new(batch, |records| {
            // A batch is split into a few tasks a thread, not down to one
            // record: a task costs the pool more than reading an event.
            let per_task = (records.len() / TASKS_PER_BATCH).max(1);
            records
                .par_iter()
                .zip(protocols)
                .with_min_len(per_task)
                .map(|(record, protocol)| {
                    if record.is_oversized() {
                        (self.validator.oversized(record.length), None)
                    } else {
                        self.validator.check_record(kind, &record.bytes, protocol)
                    }
                })
                .collect()
        })
    }

    /// What [`Self::stream`] does with the checked batches: each batch's
    /// events fed to the sequence rules in order, and its records sent on
    /// with their reports. Returns the findings of the stream's end and
    /// the read error that ended it early, if any.
    fn sequence_batches(
        &self,
        batches: impl Iterator<Item = (CheckedBatch, Option<io::Error>)>,
        sequenced: SyncSender<(Vec<Record>, Vec<Report>)>,
    ) -> (Vec<Diagnostic>, Option<io::Error>) {
        let mut stream = EventStream::new();
        for (mut batch, error) in batches {
            let done = batch.borrow_owner().is_empty();
            let reports = batch.with_dependent_mut(|records, checks| {
                self.sequence(&mut stream, records, std::mem::take(checks))
            });
            // A closed channel means the caller stopped.
            if sequenced.send((batch.into_owner(), reports)).is_err() {
                break;
            }
            // A read error ends the file, after the records read before it.
            if error.is_some() {
                return (self.validator.finish_stream(&mut stream), error);
            }
            if done {
                break;
            }
        }
        (self.validator.finish_stream(&mut stream), None)
    }

    /// The reports of a batch's records, with the sequence findings of
    /// their events (in stream order) added and, for SSE events, every
    /// finding moved to file positions.
    fn sequence(
        &self,
        stream: &mut EventStream,
        records: &[Record],
        checks: Checks<'_>,
    ) -> Vec<Report> {
        records
            .iter()
            .zip(checks)
            .map(|(record, (mut report, event))| {
                if let Some(event) = event {
                    let protocol = report.protocol();
                    let sequence = self.validator.continue_stream(
                        stream,
                        event.view(),
                        protocol,
                        &record.bytes,
                        Some(record.number),
                        Some(record.root()),
                    );
                    if !sequence.is_empty() {
                        report.extend(sequence);
                    }
                }
                if let Some(origins) = &record.origins {
                    report
                        .relocate(|d| super::to_file_positions(d, |l| super::relocate(origins, l)));
                }
                report
            })
            .collect()
    }
}
