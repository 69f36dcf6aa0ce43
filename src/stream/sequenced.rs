//! The last stage of a stream's check: checked batches taken in stream
//! order, their events sequenced (the rules of a stream as a whole), and
//! their documents handed on, a run of clean records as one.

use std::io;

use super::batch::{CheckedBatch, Checks};
use super::record::{end_stream, relocate, to_file_positions, File, Record};
use crate::checked::{follows_run, Checked, Sink};
use crate::{EventStream, Report};

/// The last stage of a stream's check: checked batches taken in stream
/// order, their events sequenced and their documents handed on.
pub(crate) struct Sequenced {
    stream: EventStream,
    /// The latest record, held until the next one comes or the stream
    /// ends, since the end may add findings to it.
    last: Option<(Record, Report)>,
    /// Clean records not handed over yet: the first as a document, and
    /// how many follow it. Handed over as one run when the run breaks and
    /// at the end of each batch.
    run: Option<(Checked, usize)>,
    count: usize,
    in_file_positions: bool,
}

impl Sequenced {
    /// The stage of a stream with no record yet.
    pub(crate) fn new() -> Self {
        Sequenced {
            stream: EventStream::new(),
            last: None,
            run: None,
            count: 0,
            in_file_positions: false,
        }
    }

    /// The next batch in stream order: its events' sequence findings added
    /// to their reports, and its documents handed to `sink`.
    pub(crate) fn take(&mut self, file: &File<'_>, mut batch: CheckedBatch, sink: &mut dyn Sink) {
        let stream = &mut self.stream;
        let reports = batch.with_dependent_mut(|records, checks| {
            file.sequence(stream, records, std::mem::take(checks))
        });
        let records = batch.into_owner();
        self.count += records.len();
        self.in_file_positions |= records.iter().any(|r| r.origins.is_some());
        for (record, report) in records.into_iter().zip(reports) {
            if let Some((record, report)) = self.last.replace((record, report)) {
                self.hand_over(file, record, report, sink);
            }
        }
        self.end_run(sink);
    }

    /// A record whose findings are final: a clean one that follows the
    /// current run joins it without becoming a document; any other is
    /// made one.
    fn hand_over(&mut self, file: &File<'_>, record: Record, report: Report, sink: &mut dyn Sink) {
        if report.diagnostics().is_empty() {
            if let Some((first, more)) = &mut self.run {
                // One stream, one path; an SSE event's context follows its
                // record number.
                if follows_run(first, *more, record.number, &report) {
                    *more += 1;
                    return;
                }
            }
        }
        self.end_run(sink);
        let (checked, _) = file.checked_record(record, report);
        if checked.is_clean() {
            self.run = Some((checked, 0));
        } else {
            sink.document(checked);
        }
    }

    /// The stream the events are sequenced in.
    pub(crate) fn stream_mut(&mut self) -> &mut EventStream {
        &mut self.stream
    }

    /// How many records have been taken.
    pub(crate) fn records(&self) -> usize {
        self.count
    }

    /// Hands the current run of clean records over, if any.
    fn end_run(&mut self, sink: &mut dyn Sink) {
        if let Some((first, more)) = self.run.take() {
            sink.clean_run(first, more);
        }
    }

    /// The end of the stream: its ending findings on the last document,
    /// and the read error that ended it early, if any.
    pub(crate) fn finish(
        mut self,
        file: &File<'_>,
        error: Option<io::Error>,
        sink: &mut dyn Sink,
    ) -> io::Result<()> {
        let ending = file.validator.finish_stream(&mut self.stream);
        if let Some((record, report)) = self.last.take() {
            if ending.is_empty() {
                self.hand_over(file, record, report, sink);
            } else {
                self.end_run(sink);
                let offset = record.offset;
                let is_frame = record.is_frame();
                let (mut last, text) = file.checked_record(record, report);
                // The end's findings make it a record with findings.
                last.offset = Some(offset);
                let mut ending = ending;
                if is_frame {
                    // Placed by the frame, as its other findings are.
                    let n = last.record.unwrap_or(0);
                    last.context = Some(crate::checked::Context::Frame(n, Some(offset)));
                    for finding in &mut ending {
                        crate::report::place_at(finding, super::record::FILE_START);
                    }
                }
                end_stream(last, &text, ending, sink, self.in_file_positions);
            }
        }
        self.end_run(sink);
        match error {
            Some(error) => Err(error),
            None => {
                if self.count == 0 {
                    file.empty(sink);
                }
                Ok(())
            }
        }
    }
}

impl File<'_> {
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
                        record.check_text(),
                        Some(record.number),
                        Some(record.root()),
                    );
                    if !sequence.is_empty() {
                        report.extend(sequence);
                    }
                }
                if let Some(origins) = &record.origins {
                    report.relocate(|d| to_file_positions(d, |l| relocate(origins, l)));
                }
                report
            })
            .collect()
    }
}
