//! Checks many sources in parallel and hands their documents over in
//! source order, a stretch at a time, without holding the run.
//!
//! Workers take sources in order. The worker on the first source not yet
//! handed over (the head) sends its documents on as they are checked; a
//! worker ahead of it holds its source's documents (compactly, as an
//! [`Outcome`]) until its turn, and waits once it holds many with findings.
//! Workers also wait before taking a source too far ahead of the head. So
//! what is held is bounded by a window of sources, each a bounded number
//! of documents with findings, whatever the number or size of the sources.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{sync_channel, SyncSender};
use std::sync::{Condvar, Mutex, PoisonError};

use super::{check_source_into, Checked, Failure, Outcome, Sink};
use crate::input::Source;
use crate::{Kind, Validator};

/// Documents with findings a worker holds for a source ahead of the head
/// before it waits for its turn.
const HELD_FINDINGS: usize = 256;
/// Sources ahead of the head, per worker, a worker may take.
const WINDOW_PER_WORKER: usize = 2;
/// Documents of the head source sent to the caller together at most, and
/// documents with findings (which keep their source lines) at most: one
/// message a document would cost a thread wake-up each, more than checking
/// a small event.
const BATCH: usize = 4096;
const BATCH_FINDINGS: usize = 16;
/// Batches on their way to the caller at most.
const CHANNEL: usize = 4;

/// What a worker sends to the caller.
enum Message {
    /// The next documents of the head source.
    Head(Outcome),
    /// Source `index` is done: what is left of it (all of it for a source
    /// that never was the head while it was checked) and its failure.
    Done(usize, Outcome),
}

/// The index of the head source, which workers wait on.
struct Head {
    index: Mutex<usize>,
    moved: Condvar,
}

impl Head {
    fn get(&self) -> usize {
        *self.index.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn set(&self, index: usize) {
        *self.index.lock().unwrap_or_else(PoisonError::into_inner) = index;
        self.moved.notify_all();
    }

    /// Waits until `ready` holds for the head's index.
    fn wait_until(&self, ready: impl Fn(usize) -> bool) {
        let guard = self.index.lock().unwrap_or_else(PoisonError::into_inner);
        let _guard = self
            .moved
            .wait_while(guard, |head| !ready(*head))
            .unwrap_or_else(PoisonError::into_inner);
    }
}

/// Lets every worker waiting on the head go when dropped by a panic (of a
/// worker, or of the caller's sink), so that the others end and the panic
/// is raised, instead of waiting for a turn that never comes.
struct Release<'a>(&'a Head);

impl Drop for Release<'_> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            self.0.set(usize::MAX / 2);
        }
    }
}

/// Checks every source, as `kind` or as detected when `None`, on as many
/// threads as rayon has, calling `progress` after each source. `sink` gets
/// every document in the order of `sources`, each source's in record
/// order, on the calling thread, as soon as its turn comes: a stretch of
/// documents at a time, as an [`Outcome`] that keeps a run of clean
/// documents as one (see [`crate::render::Writer::outcome`], which counts
/// such a run without rebuilding it). `failed` gets each source that could
/// not be read (or not to the end), in source order, once that source's
/// documents have been handed over.
pub fn check_sources_in_order(
    validator: &Validator,
    sources: &[Source],
    kind: Option<Kind>,
    progress: &(dyn Fn() + Sync),
    sink: &mut dyn FnMut(Outcome),
    failed: &mut dyn FnMut(Failure),
) {
    let workers = rayon::current_num_threads().clamp(1, sources.len().max(1));
    let window = workers * WINDOW_PER_WORKER;
    let next = AtomicUsize::new(0);
    let head = Head {
        index: Mutex::new(0),
        moved: Condvar::new(),
    };
    let (sender, receiver) = sync_channel::<Message>(CHANNEL);
    std::thread::scope(|scope| {
        for _ in 0..workers {
            let sender = sender.clone();
            let (next, head) = (&next, &head);
            scope.spawn(move || {
                let _release = Release(head);
                loop {
                    let index = next.fetch_add(1, Ordering::Relaxed);
                    let Some(source) = sources.get(index) else {
                        break;
                    };
                    head.wait_until(|head| index < head + window);
                    let done = check_one(validator, source, kind, index, head, &sender);
                    progress();
                    if sender.send(Message::Done(index, done)).is_err() {
                        break;
                    }
                }
            });
        }
        drop(sender);
        let _release = Release(&head);
        let mut at = 0;
        let mut waiting: BTreeMap<usize, Outcome> = BTreeMap::new();
        let mut hand_over = |mut outcome: Outcome, sink: &mut dyn FnMut(Outcome)| {
            let failures = std::mem::take(&mut outcome.failures);
            if !outcome.is_empty() || !outcome.skipped.is_empty() {
                sink(outcome);
            }
            failures.into_iter().for_each(&mut *failed);
        };
        for message in receiver {
            match message {
                Message::Head(outcome) => hand_over(outcome, sink),
                Message::Done(index, outcome) => {
                    waiting.insert(index, outcome);
                    let before = at;
                    while let Some(outcome) = waiting.remove(&at) {
                        hand_over(outcome, sink);
                        at += 1;
                    }
                    if at != before {
                        head.set(at);
                    }
                }
            }
        }
    });
}

/// Checks source `index`: sends its documents on (a batch at a time) once
/// it is the head, holds them until then. Returns what is left to hand
/// over.
fn check_one(
    validator: &Validator,
    source: &Source,
    kind: Option<Kind>,
    index: usize,
    head: &Head,
    sender: &SyncSender<Message>,
) -> Outcome {
    let mut held = Held {
        index,
        head,
        sender,
        outcome: Outcome::default(),
        findings: 0,
        pending: 0,
        pending_findings: 0,
        streaming: false,
    };
    if let Err(failure) = check_source_into(validator, source, kind, &mut held) {
        held.outcome.failures.push(failure);
    }
    held.outcome
}

/// What a worker holds of source `index`, and when it sends it on.
struct Held<'a> {
    index: usize,
    head: &'a Head,
    sender: &'a SyncSender<Message>,
    outcome: Outcome,
    /// Documents with findings held.
    findings: usize,
    /// Documents, and documents with findings, since the last look at the
    /// head: whether the source has become the head is asked once a batch.
    pending: usize,
    pending_findings: usize,
    /// The source is the head: its documents are sent on.
    streaming: bool,
}

impl Held<'_> {
    /// Counts `documents` more, `findings` of them with findings, and sends
    /// what is held on once a batch is full and the source is the head.
    fn added(&mut self, documents: usize, findings: usize) {
        self.findings += findings;
        self.pending += documents;
        self.pending_findings += findings;
        if self.pending < BATCH && self.pending_findings < BATCH_FINDINGS {
            return;
        }
        (self.pending, self.pending_findings) = (0, 0);
        if !self.streaming && self.findings >= HELD_FINDINGS {
            self.head.wait_until(|head| head >= self.index);
        }
        self.streaming = self.streaming || self.head.get() == self.index;
        if self.streaming {
            // A closed channel means the caller stopped: nothing to do.
            let _ = self
                .sender
                .send(Message::Head(std::mem::take(&mut self.outcome)));
            self.findings = 0;
        }
    }
}

impl Sink for Held<'_> {
    fn document(&mut self, checked: Checked) {
        let findings = usize::from(!checked.is_clean());
        self.outcome.push(checked);
        self.added(1, findings);
    }

    fn clean_run(&mut self, first: Checked, more: usize) {
        self.outcome.push_clean_run(first, more);
        self.added(1 + more, 0);
    }

    fn skipped(&mut self, path: &str) {
        self.outcome.skipped.push(path.to_string());
    }
}
