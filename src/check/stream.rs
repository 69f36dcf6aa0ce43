//! A capture's records checked as one stream of events, in stages that
//! overlap: the source's thread reads records in batches and tells which
//! version judges each; checker threads, one a core, take the batches in
//! turn and check their records; the source's thread takes the checked
//! batches back in stream order, runs the sequence rules over their events
//! and hands their documents on (a run of clean records as one, see
//! [`Sink`]), and reads the next batches while the checkers work.
//!
//! The checkers are threads of their own that block on channels, not
//! tasks of the thread pool: a pool's idle threads spin and yield between
//! batches, which on two cores cost more than checking the events did.
//! Reading and sequencing share a thread because together they weigh
//! about what the checks do, and a record is then freed on the thread
//! that allocated it. A capture that fits in one batch is checked on the
//! calling thread alone, without starting a thread.
//!
//! At most two batches a checker are on their way (waiting for it, being
//! checked, or waiting to be taken back), besides the batch being read and
//! the one being sequenced, so memory stays a few batches' worth whatever
//! the file's size.

use std::io;
use std::sync::mpsc::{sync_channel, Receiver};

use super::{FileCheck, Sink};
use crate::stream::batch::{check_batch, protocols, CheckedBatch};
use crate::stream::record::Record;
use crate::stream::sequenced::Sequenced;
use crate::validator::StreamVersions;
use crate::{Kind, Protocol};

/// Records checked together at most, and their bytes at most. A batch is
/// what one hand-over between threads carries, so it holds hundreds of
/// events: each hand-over costs a wake-up. Large records fill a batch by
/// bytes first, which bounds memory (a batch's events take a few times
/// their bytes once read, and two batches a checker are on their way).
const BATCH_RECORDS: usize = 4096;
const BATCH_BYTES: usize = 128 * 1024;

/// The next records to check together.
struct Batch {
    /// Up to [`BATCH_RECORDS`] records, or fewer once they hold
    /// [`BATCH_BYTES`] (one record is always taken).
    records: Vec<Record>,
    /// The read error that ended the input, if any (the readers report an
    /// error once, then end).
    error: Option<io::Error>,
    /// Whether the input ended with this batch.
    last: bool,
}

/// Reads the next batch of `records`, room made for `expected` of them
/// (the size of the batch before, which records of a capture mostly
/// repeat: growing the list a batch at a time cost as much as reading).
fn next_batch(records: &mut impl Iterator<Item = io::Result<Record>>, expected: usize) -> Batch {
    let mut batch = Vec::with_capacity(expected.min(BATCH_RECORDS));
    let mut bytes = 0;
    while batch.len() < BATCH_RECORDS && bytes < BATCH_BYTES {
        match records.next() {
            Some(Ok(record)) => {
                bytes += record.bytes.len();
                batch.push(record);
            }
            Some(Err(error)) => {
                return Batch {
                    records: batch,
                    error: Some(error),
                    last: true,
                }
            }
            None => {
                return Batch {
                    records: batch,
                    error: None,
                    last: true,
                }
            }
        }
    }
    Batch {
        records: batch,
        error: None,
        last: false,
    }
}

impl FileCheck<'_> {
    /// The records of a capture, its events one stream: read, checked and
    /// sequenced in overlapping stages (see the module's documentation).
    pub(super) fn stream(
        &self,
        mut records: impl Iterator<Item = io::Result<Record>>,
        kind: Option<Kind>,
        sink: &mut dyn Sink,
    ) -> io::Result<()> {
        let mut versions = StreamVersions::default();
        let mut sequenced = Sequenced::new();
        let first = next_batch(&mut records, 256);
        if first.last {
            let protocols = protocols(self, &first.records, &mut versions);
            sequenced.take(
                self,
                check_batch(self, first.records, protocols, kind),
                sink,
            );
            return sequenced.finish(self, first.error, sink);
        }
        // A checker a core: with fewer, a capture of large records (whose
        // check outweighs their sequencing) is checked on one core.
        let checkers = rayon::current_num_threads().max(1);
        std::thread::scope(|scope| {
            let mut to_check = Vec::with_capacity(checkers);
            let mut checked: Vec<Receiver<CheckedBatch>> = Vec::with_capacity(checkers);
            for _ in 0..checkers {
                let (send_batch, batches) = sync_channel::<(Vec<Record>, Vec<Protocol>)>(1);
                let (send_checked, receive_checked) = sync_channel(1);
                scope.spawn(move || {
                    for (batch, protocols) in batches {
                        // A closed channel means the caller stopped.
                        if send_checked
                            .send(check_batch(self, batch, protocols, kind))
                            .is_err()
                        {
                            break;
                        }
                    }
                });
                to_check.push(send_batch);
                checked.push(receive_checked);
            }
            // Batch `n` goes to checker `n % checkers`, and is taken back
            // from it in the same turn, which keeps stream order. Each
            // checker has at most two batches: one it checks (or hands
            // back), one waiting; so sending never waits on taking back.
            let most_ahead = 2 * checkers;
            let (mut sent, mut taken) = (0usize, 0usize);
            let mut next = Some(first);
            let mut error = None;
            loop {
                while sent - taken < most_ahead {
                    let Some(batch) = next.take() else {
                        break;
                    };
                    // Which version judges each record's events is told in
                    // stream order (a RUN_STARTED declares it for the
                    // events after it) before the records are checked.
                    let protocols = protocols(self, &batch.records, &mut versions);
                    let size = batch.records.len();
                    // A closed channel means a checker stopped (it panicked).
                    if to_check[sent % checkers]
                        .send((batch.records, protocols))
                        .is_err()
                    {
                        break;
                    }
                    sent += 1;
                    if batch.last {
                        error = batch.error;
                    } else {
                        next = Some(next_batch(&mut records, size));
                    }
                }
                if taken == sent {
                    break;
                }
                let Ok(batch) = checked[taken % checkers].recv() else {
                    break;
                };
                taken += 1;
                sequenced.take(self, batch, sink);
            }
            drop(to_check);
            sequenced.finish(self, error, sink)
        })
    }
}

#[cfg(test)]
mod tests {
    use std::io::{BufReader, Read};

    use super::*;
    use crate::check::Checked;
    use crate::input::Layout;
    use crate::Validator;

    /// A run of `runs` complete runs of events as JSON Lines, each run a
    /// few hundred bytes: many batches' worth for a few hundred runs.
    fn capture(runs: usize) -> Vec<u8> {
        let mut text = String::new();
        for run in 0..runs {
            let m = format!("m{run}");
            for event in [
                format!(r#"{{"type":"RUN_STARTED","threadId":"t","runId":"r{run}"}}"#),
                format!(r#"{{"type":"TEXT_MESSAGE_START","messageId":"{m}","role":"assistant"}}"#),
                format!(r#"{{"type":"TEXT_MESSAGE_CONTENT","messageId":"{m}","delta":"a"}}"#),
                format!(r#"{{"type":"TEXT_MESSAGE_CONTENT","messageId":"{m}","delta":"b"}}"#),
                format!(r#"{{"type":"TEXT_MESSAGE_END","messageId":"{m}"}}"#),
                format!(r#"{{"type":"RUN_FINISHED","threadId":"t","runId":"r{run}"}}"#),
            ] {
                text.push_str(&event);
                text.push('\n');
            }
        }
        text.into_bytes()
    }

    /// Each checked document's record number and rules, and how the check
    /// ended.
    fn check(reader: impl io::BufRead) -> (Vec<(usize, Vec<String>)>, io::Result<()>) {
        let validator = Validator::new().expect("validator");
        let mut documents = Vec::new();
        let result = crate::check::check_reader(
            &validator,
            "capture.jsonl",
            Layout::JsonLines,
            reader,
            None,
            &mut |checked| {
                let record = checked.record.unwrap_or(0);
                assert_eq!(checked.line_offset + 1, record, "a line's offset");
                let rules = checked
                    .report
                    .diagnostics()
                    .iter()
                    .map(|d| d.rule.clone())
                    .collect();
                documents.push((checked.record.unwrap_or(0), rules));
            },
        );
        (documents, result)
    }

    #[test]
    fn a_capture_of_many_batches_is_handed_on_in_order_and_sequenced_in_order() {
        let mut bytes = capture(BATCH_BYTES / 40);
        assert!(bytes.len() > 4 * BATCH_BYTES, "several batches a checker");
        let records = bytes.iter().filter(|&&b| b == b'\n').count();
        // Content for a message that never started, late in the file: the
        // one finding, on its own record, if the events were sequenced in
        // stream order across batches and checkers.
        let stray = br#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"nowhere","delta":"x"}"#;
        let at = bytes.len() - 100;
        let line_end = at + bytes[at..].iter().position(|&b| b == b'\n').expect("line");
        bytes.splice(
            line_end + 1..line_end + 1,
            stray.iter().chain(b"\n").copied(),
        );
        let stray_record = bytes[..=line_end].iter().filter(|&&b| b == b'\n').count() + 1;
        let (documents, result) = check(bytes.as_slice());
        assert!(result.is_ok());
        let numbers: Vec<usize> = documents.iter().map(|(n, _)| *n).collect();
        assert_eq!(numbers, (1..=records + 1).collect::<Vec<_>>());
        let with_findings: Vec<&(usize, Vec<String>)> = documents
            .iter()
            .filter(|(_, rules)| !rules.is_empty())
            .collect();
        assert_eq!(with_findings.len(), 1, "{with_findings:?}");
        assert_eq!(with_findings[0].0, stray_record);
    }

    /// What a sink was handed, call by call: a document (its record and
    /// whether it is clean), or a run (its first record and how many
    /// follow).
    #[derive(Debug, Default)]
    struct Calls(Vec<(&'static str, usize, usize)>);

    impl Sink for Calls {
        fn document(&mut self, checked: Checked) {
            let findings = checked.report.diagnostics().len();
            self.0
                .push(("document", checked.record.unwrap_or(0), findings));
        }

        fn clean_run(&mut self, first: Checked, more: usize) {
            assert!(first.is_clean());
            self.0.push(("run", first.record.unwrap_or(0), more));
        }
    }

    #[test]
    fn clean_records_are_handed_over_as_runs_that_rebuild_every_document() {
        let mut bytes = capture(BATCH_BYTES / 40);
        // A stray event (a finding) and a blank line (no record: the record
        // numbers jump) well inside the first batch break runs.
        let tenth_line_end = bytes
            .iter()
            .enumerate()
            .filter(|(_, &b)| b == b'\n')
            .nth(9)
            .map(|(at, _)| at)
            .expect("ten lines");
        bytes.insert(tenth_line_end, b'\n');
        let stray = b"\n{\"type\":\"TEXT_MESSAGE_CONTENT\",\"messageId\":\"x\",\"delta\":\"x\"}\n";
        bytes.splice(0..0, stray.iter().copied());
        let validator = Validator::new().expect("validator");
        let mut calls = Calls::default();
        let result = crate::check::read_into(
            &validator,
            "capture.jsonl",
            Layout::JsonLines,
            crate::check::Opened {
                reader: bytes.as_slice(),
                size: None,
                skips_unknown_kinds: false,
            },
            None,
            &mut calls,
        );
        assert!(result.is_ok());
        let runs = calls.0.iter().filter(|(call, ..)| *call == "run").count();
        assert!(runs >= 3, "a run a batch, and one more at the blank line");
        assert!(
            runs < 100,
            "{runs} runs: runs are not broken record by record"
        );
        // Rebuilt, the runs and documents give every record once, in order:
        // every line but the blank ones, the stray event's with findings.
        let mut rebuilt = Vec::new();
        for &(call, record, n) in &calls.0 {
            match call {
                "run" => rebuilt.extend((record..=record + n).map(|r| (r, false))),
                _ => rebuilt.push((record, n > 0)),
            }
        }
        let expected: Vec<(usize, bool)> = bytes
            .split(|&b| b == b'\n')
            .enumerate()
            .filter(|(_, line)| !line.is_empty())
            .map(|(i, _)| (i + 1, i + 1 == 2))
            .collect();
        let first_difference = rebuilt.iter().zip(&expected).position(|(a, b)| a != b);
        assert!(
            rebuilt == expected,
            "{} documents rebuilt for {} records, first difference at {first_difference:?}",
            rebuilt.len(),
            expected.len()
        );
        let blank_lines = expected.windows(2).filter(|w| w[1].0 != w[0].0 + 1);
        assert_eq!(blank_lines.count(), 1);
        // The sink of every document gets the same, rebuilt.
        let (documents, _) = check(bytes.as_slice());
        let each: Vec<(usize, bool)> = documents
            .iter()
            .map(|(record, rules)| (*record, !rules.is_empty()))
            .collect();
        assert!(each == expected, "the sink of every document differs");
    }

    /// A source that fails once `fail_at` bytes have been read.
    struct FailingAfter {
        bytes: Vec<u8>,
        at: usize,
        fail_at: usize,
    }

    impl Read for FailingAfter {
        fn read(&mut self, buffer: &mut [u8]) -> io::Result<usize> {
            if self.at >= self.fail_at {
                return Err(io::Error::other("the disk went away"));
            }
            let end = self.fail_at.min(self.at + buffer.len());
            let n = end - self.at;
            buffer[..n].copy_from_slice(&self.bytes[self.at..end]);
            self.at = end;
            Ok(n)
        }
    }

    #[test]
    fn a_read_error_ends_the_capture_after_every_record_read_before_it() {
        let bytes = capture(BATCH_BYTES / 40);
        let fail_at = bytes.len() * 2 / 3;
        let complete = bytes[..fail_at].iter().filter(|&&b| b == b'\n').count();
        let reader = BufReader::with_capacity(
            4096,
            FailingAfter {
                bytes,
                at: 0,
                fail_at,
            },
        );
        let (documents, result) = check(reader);
        let error = result.expect_err("the read error");
        assert_eq!(error.to_string(), "the disk went away");
        // Every complete line before the error, and the part of a line it
        // cut, which is reported as a record of its own.
        let numbers: Vec<usize> = documents.iter().map(|(n, _)| *n).collect();
        assert!(numbers.starts_with(&(1..=complete).collect::<Vec<_>>()));
        assert!(numbers.len() <= complete + 1, "{}", numbers.len());
    }
}
