//! Checking the response stream of a request the guard let through: the
//! events an agent streams back (SSE, or JSON Lines), checked with a
//! [`StreamChecker`] as their bytes pass, paired with the request they
//! answer (its tools' calls, its declared version, its state).
//!
//! The bytes pass unchanged and unbuffered: each frame the agent's body
//! yields is handed on at once. Under [`ResponseMode::Report`] the check
//! runs beside the stream, on a task of its own fed the frames (shared,
//! not copied) through a bounded queue, so the stream does not wait for
//! it; only an agent faster than the check (more than [`QUEUE_FRAMES`]
//! frames ahead of it) is held back to the check's pace, so that memory
//! stays bounded and every frame is checked. Under [`ResponseMode::Enforce`], which must know of an
//! error before passing on what follows it, each frame is checked before
//! it is handed on, which holds it no longer than its own check takes. A record's findings are final
//! once the next record has come (the stream's end may add to the last),
//! so they are reported then. What becomes of them is [`ResponseMode`].

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll};

use axum::http::header::CONTENT_TYPE;
use axum::http::{HeaderMap, Response};
use bytes::{Buf, Bytes};
use http_body::{Body, Frame, SizeHint};

use tokio::sync::mpsc;

use super::Guard;
use crate::{Checked, Diagnostic, Framing, Severity, StreamChecker, Validator};

/// What the guard does with the response streams of the requests it let
/// through ([`Guard::with_responses`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum ResponseMode {
    /// Responses are not looked at (the default).
    #[default]
    Off,
    /// Each finding is logged through `tracing` (target
    /// `agui_lint::response`: rule, severity, pointer, event, byte offset,
    /// the run's and thread's ids), with a summary when the stream ends,
    /// and counted ([`Guard::response_stats`]). The stream is not changed.
    Report,
    /// As [`ResponseMode::Report`], and the first error ends the stream: a
    /// `RUN_ERROR` event naming the rule is sent after the bytes that
    /// carried it, and the agent's body is dropped. For development and
    /// tests: a client (or a test reading the stream) sees the run fail
    /// with the rule in its `code` and `message`, whichever client it is,
    /// where a test harness the guard does not know of could not be
    /// failed.
    Enforce,
}

/// Frames a report-mode check may fall behind its stream before the
/// stream waits for it: what its queue holds at most (the frames
/// themselves are the response's, shared).
pub const QUEUE_FRAMES: usize = 1024;

/// How a guard's response checks have gone, since it was built (guards
/// cloned from one share its counts): for a service to export as metrics.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ResponseStats {
    /// Response streams checked.
    pub streams: u64,
    /// Response streams left unchecked by sampling
    /// ([`Guard::with_response_sampling`]).
    pub sampled_out: u64,
    /// Events (records) checked.
    pub events: u64,
    /// Error findings reported.
    pub errors: u64,
    /// Warning findings reported (infos are logged, not counted).
    pub warnings: u64,
    /// Streams with at least one error.
    pub streams_with_errors: u64,
    /// Streams [`ResponseMode::Enforce`] ended with a `RUN_ERROR`.
    pub streams_ended: u64,
    /// Streams whose body was dropped before it ended (a client that went
    /// away): their open runs are not reported.
    pub streams_abandoned: u64,
    /// Times a stream waited for its report-mode check, which had fallen
    /// [`QUEUE_FRAMES`] frames behind.
    pub waits: u64,
    /// Streams being checked now (a gauge): started and not yet done.
    pub checking: u64,
}

/// The counters behind [`ResponseStats`].
#[derive(Debug, Default)]
struct Counters {
    streams: AtomicU64,
    sampled_out: AtomicU64,
    events: AtomicU64,
    errors: AtomicU64,
    warnings: AtomicU64,
    streams_with_errors: AtomicU64,
    streams_ended: AtomicU64,
    streams_abandoned: AtomicU64,
    waits: AtomicU64,
    checking: AtomicU64,
    /// Responses seen, for sampling.
    seen: AtomicU64,
}

/// A guard's response settings and counts; clones share the counts.
#[derive(Debug, Clone)]
pub(super) struct Responses {
    mode: ResponseMode,
    /// One stream in this many is checked.
    every: u64,
    counters: Arc<Counters>,
}

impl Responses {
    /// What becomes of response streams.
    pub(super) fn mode(&self) -> ResponseMode {
        self.mode
    }
}

impl Default for Responses {
    fn default() -> Self {
        Responses {
            mode: ResponseMode::Off,
            every: 1,
            counters: Arc::new(Counters::default()),
        }
    }
}

impl Guard {
    /// Checks the response streams of the requests the guard lets through
    /// (through [`Guard::layer`]): see [`ResponseMode`]. Only successful
    /// responses whose `Content-Type` is `text/event-stream` (SSE) or a
    /// JSON Lines type (`application/jsonl`, `application/x-ndjson`) are
    /// checked; others pass as they are.
    #[must_use]
    pub fn with_responses(mut self, mode: ResponseMode) -> Self {
        self.responses.mode = mode;
        self
    }

    /// Checks one response stream in `every` (at least 1, the default):
    /// for production, where checking every stream costs more than a
    /// sample tells.
    #[must_use]
    pub fn with_response_sampling(mut self, every: u64) -> Self {
        self.responses.every = every.max(1);
        self
    }

    /// What the guard does with response streams.
    pub fn responses(&self) -> ResponseMode {
        self.responses.mode
    }

    /// The response checks' counts so far.
    pub fn response_stats(&self) -> ResponseStats {
        let c = &self.responses.counters;
        let get = |counter: &AtomicU64| counter.load(Ordering::Relaxed);
        ResponseStats {
            streams: get(&c.streams),
            sampled_out: get(&c.sampled_out),
            events: get(&c.events),
            errors: get(&c.errors),
            warnings: get(&c.warnings),
            streams_with_errors: get(&c.streams_with_errors),
            streams_ended: get(&c.streams_ended),
            streams_abandoned: get(&c.streams_abandoned),
            waits: get(&c.waits),
            checking: get(&c.checking),
        }
    }

    /// `response`, answering the request whose body was `request` (a
    /// `RunAgentInput` the guard let through) at `path`, with its body
    /// checked as it streams when the guard checks responses, the
    /// response is a successful event stream and it is sampled.
    pub(super) fn check_response<B: Body>(
        &self,
        response: Response<B>,
        path: &str,
        request: &[u8],
    ) -> Response<CheckedBody<B>> {
        let check = self.response_check(&response, path, request);
        response.map(|body| CheckedBody::new(body, check))
    }

    fn response_check<B>(
        &self,
        response: &Response<B>,
        path: &str,
        request: &[u8],
    ) -> Option<Checking> {
        let responses = &self.responses;
        if responses.mode == ResponseMode::Off || !response.status().is_success() {
            return None;
        }
        let framing = framing_of(response.headers())?;
        let validator = self.validator()?;
        let counters = &responses.counters;
        if counters.seen.fetch_add(1, Ordering::Relaxed) % responses.every != 0 {
            counters.sampled_out.fetch_add(1, Ordering::Relaxed);
            return None;
        }
        counters.streams.fetch_add(1, Ordering::Relaxed);
        counters.checking.fetch_add(1, Ordering::Relaxed);
        let check = Box::new(Check::new(
            validator,
            framing,
            path,
            request,
            responses.clone(),
        ));
        match tokio::runtime::Handle::try_current() {
            Ok(runtime) if responses.mode == ResponseMode::Report => {
                Some(Checking::Beside(Beside::spawn(&runtime, check)))
            }
            // Enforce, or no runtime to run a task on: checked in line.
            _ => Some(Checking::InLine(check)),
        }
    }
}

/// The framing a response's `Content-Type` names, if it is an event
/// stream.
fn framing_of(headers: &HeaderMap) -> Option<Framing> {
    let text = headers.get(CONTENT_TYPE)?.to_str().ok()?;
    let essence = text.split(';').next()?.trim().to_ascii_lowercase();
    match essence.as_str() {
        "text/event-stream" => Some(Framing::Sse),
        "application/jsonl"
        | "application/x-ndjson"
        | "application/x-jsonlines"
        | "application/jsonlines" => Some(Framing::JsonLines),
        _ => None,
    }
}

/// The check of one response stream.
struct Check {
    checker: Option<StreamChecker>,
    framing: Framing,
    responses: Responses,
    /// The run's ids, from the request it answers, for the log.
    thread_id: Option<String>,
    run_id: Option<String>,
    path: String,
    errors: u64,
    warnings: u64,
    /// The last two bytes passed, to start an event of the guard's own at
    /// a record boundary.
    tail: [u8; 2],
    /// [`ResponseMode::Enforce`]: the `RUN_ERROR` to send, once an error
    /// was found.
    closing: Option<Bytes>,
}

impl Check {
    fn new(
        validator: &Validator,
        framing: Framing,
        path: &str,
        request: &[u8],
        responses: Responses,
    ) -> Check {
        let mut checker = StreamChecker::new(validator, framing).with_path(path);
        let mut thread_id = None;
        let mut run_id = None;
        if let Ok(input) = serde_json::from_slice::<serde_json::Value>(request) {
            let id = |key: &str| input.get(key).and_then(|v| v.as_str()).map(str::to_string);
            thread_id = id("threadId");
            run_id = id("runId");
            checker = checker.answering(&input);
        }
        Check {
            checker: Some(checker),
            framing,
            responses,
            thread_id,
            run_id,
            path: path.to_string(),
            errors: 0,
            warnings: 0,
            tail: *b"\n\n",
            closing: None,
        }
    }

    /// The bytes of a frame passing.
    fn feed(&mut self, bytes: &[u8]) {
        let Some(checker) = &mut self.checker else {
            return;
        };
        let found = checker.feed(bytes);
        match bytes {
            [.., a, b] => self.tail = [*a, *b],
            [b] => self.tail = [self.tail[1], *b],
            [] => {}
        }
        self.report(found);
    }

    /// The stream was dropped before its end (a client that went away):
    /// what its run left open is not reported.
    fn abandon(&mut self) {
        if self.checker.take().is_none() {
            return;
        }
        let counters = &self.responses.counters;
        counters.streams_abandoned.fetch_add(1, Ordering::Relaxed);
        tracing::debug!(
            target: "agui_lint::response",
            path = %self.path,
            run_id = self.run_id.as_deref(),
            "response stream dropped before its end"
        );
        counters.checking.fetch_sub(1, Ordering::Relaxed);
    }

    /// Enforce ended the stream at an error: counted, and what was open
    /// then is not reported.
    fn end_early(&mut self) {
        let counters = &self.responses.counters;
        counters.streams_ended.fetch_add(1, Ordering::Relaxed);
        let Some(checker) = self.checker.take() else {
            return;
        };
        let events = checker.records() as u64;
        counters.events.fetch_add(events, Ordering::Relaxed);
        counters.streams_with_errors.fetch_add(1, Ordering::Relaxed);
        counters.checking.fetch_sub(1, Ordering::Relaxed);
        tracing::info!(
            target: "agui_lint::response",
            path = %self.path,
            thread_id = self.thread_id.as_deref(),
            run_id = self.run_id.as_deref(),
            events,
            errors = self.errors,
            warnings = self.warnings,
            "response stream ended at its first error, after {events} events",
        );
    }

    /// The agent's body ended: what the stream's end finds, and the
    /// summary.
    fn finish(&mut self) {
        let Some(checker) = self.checker.take() else {
            return;
        };
        let events = checker.records() as u64;
        let found = checker.finish();
        self.report(found);
        self.responses
            .counters
            .events
            .fetch_add(events, Ordering::Relaxed);
        if self.errors > 0 {
            self.responses
                .counters
                .streams_with_errors
                .fetch_add(1, Ordering::Relaxed);
        }
        tracing::info!(
            target: "agui_lint::response",
            path = %self.path,
            thread_id = self.thread_id.as_deref(),
            run_id = self.run_id.as_deref(),
            events,
            errors = self.errors,
            warnings = self.warnings,
            "response stream checked: {} errors, {} warnings in {events} events",
            self.errors,
            self.warnings,
        );
        // Last: a caller waiting for the checks to end sees their counts.
        self.responses
            .counters
            .checking
            .fetch_sub(1, Ordering::Relaxed);
    }

    /// Logs and counts the findings of `documents`; under enforce, the
    /// first error prepares the stream's end.
    fn report(&mut self, documents: Vec<Checked>) {
        let (mut errors, mut warnings) = (0, 0);
        for document in &documents {
            for finding in document.report.diagnostics() {
                self.log(document, finding);
                match finding.severity {
                    Severity::Error => errors += 1,
                    Severity::Warning => warnings += 1,
                    Severity::Info => {}
                }
                if finding.severity == Severity::Error
                    && self.responses.mode == ResponseMode::Enforce
                    && self.closing.is_none()
                {
                    self.closing = Some(self.run_error(finding));
                }
            }
        }
        self.errors += errors;
        self.warnings += warnings;
        let counters = &self.responses.counters;
        counters.errors.fetch_add(errors, Ordering::Relaxed);
        counters.warnings.fetch_add(warnings, Ordering::Relaxed);
    }

    fn log(&self, document: &Checked, d: &Diagnostic) {
        let (line, column) = d
            .location
            .map_or((None, None), |l| (Some(l.line), Some(l.column)));
        macro_rules! log_at {
            ($level:ident) => {
                tracing::$level!(
                    target: "agui_lint::response",
                    rule = %d.rule,
                    severity = d.severity.as_str(),
                    pointer = %d.pointer,
                    event = document.record,
                    offset = document.offset,
                    line,
                    column,
                    path = %self.path,
                    thread_id = self.thread_id.as_deref(),
                    run_id = self.run_id.as_deref(),
                    "{}",
                    d.message
                )
            };
        }
        match d.severity {
            Severity::Error => log_at!(error),
            Severity::Warning => log_at!(warn),
            Severity::Info => log_at!(info),
        }
    }

    /// The `RUN_ERROR` that ends a stream over `finding`, framed as the
    /// stream is and starting at a record boundary.
    fn run_error(&self, finding: &Diagnostic) -> Bytes {
        let event = serde_json::json!({
            "type": "RUN_ERROR",
            "message": format!("agui-lint: {} at {}: {}", finding.rule, finding.pointer, finding.message),
            "code": format!("agui-lint/{}", finding.rule),
        });
        let mut text = String::new();
        match self.framing {
            Framing::JsonLines => {
                if self.tail[1] != b'\n' {
                    text.push('\n');
                }
                text.push_str(&event.to_string());
                text.push('\n');
            }
            _ => {
                // An SSE event ends at a blank line: end the one in
                // progress, if any, first.
                match self.tail {
                    [b'\n', b'\n'] | [b'\r', b'\r'] => {}
                    [_, b'\n'] | [_, b'\r'] => text.push('\n'),
                    _ => text.push_str("\n\n"),
                }
                text.push_str("data: ");
                text.push_str(&event.to_string());
                text.push_str("\n\n");
            }
        }
        Bytes::from(text)
    }
}

/// How a stream is checked.
enum Checking {
    /// Each frame before it is handed on (enforce, or no tokio runtime).
    InLine(Box<Check>),
    /// On a task of its own (report).
    Beside(Beside),
}

/// What a frame of a stream checked beside it is to its check.
enum Fed {
    Frame(Bytes),
    /// The agent's body ended.
    End,
}

/// The wait for room in a check's queue.
type Room = Pin<
    Box<dyn Future<Output = Result<mpsc::OwnedPermit<Fed>, mpsc::error::SendError<()>>> + Send>,
>;

/// A check running on a task of its own, fed through a bounded queue.
struct Beside {
    /// `None` once the stream ended, or while waiting for room.
    queue: Option<mpsc::Sender<Fed>>,
    /// What waits for room in the queue, and the wait.
    waiting: Option<(Fed, Room)>,
    counters: Arc<Counters>,
}

impl Beside {
    fn spawn(runtime: &tokio::runtime::Handle, mut check: Box<Check>) -> Beside {
        let (queue, mut frames) = mpsc::channel(QUEUE_FRAMES);
        let counters = check.responses.counters.clone();
        runtime.spawn(async move {
            while let Some(fed) = frames.recv().await {
                match fed {
                    Fed::Frame(bytes) => check.feed(&bytes),
                    Fed::End => return check.finish(),
                }
            }
            check.abandon();
        });
        Beside {
            queue: Some(queue),
            waiting: None,
            counters,
        }
    }

    /// Hands `fed` to the check: ready at once while the queue has room,
    /// else once it has.
    fn offer(&mut self, fed: Fed, cx: &mut Context<'_>) -> Poll<()> {
        let Some(queue) = self.queue.take() else {
            return Poll::Ready(());
        };
        match queue.try_send(fed) {
            Ok(()) => {
                self.queue = Some(queue);
                Poll::Ready(())
            }
            // The check has ended (its task is gone): nothing to feed.
            Err(mpsc::error::TrySendError::Closed(_)) => Poll::Ready(()),
            Err(mpsc::error::TrySendError::Full(fed)) => {
                self.counters.waits.fetch_add(1, Ordering::Relaxed);
                self.waiting = Some((fed, Box::pin(queue.reserve_owned())));
                self.wait(cx)
            }
        }
    }

    /// Waits for room for what waits, then queues it.
    fn wait(&mut self, cx: &mut Context<'_>) -> Poll<()> {
        let Some((_, room)) = &mut self.waiting else {
            return Poll::Ready(());
        };
        let Poll::Ready(permit) = room.as_mut().poll(cx) else {
            return Poll::Pending;
        };
        let waited = self.waiting.take();
        if let (Ok(permit), Some((fed, _))) = (permit, waited) {
            self.queue = Some(permit.send(fed));
        }
        Poll::Ready(())
    }
}

/// A response body that passes the agent's frames on unchanged, checking
/// them on the way when the guard checks responses; made by
/// [`Guard::layer`].
pub struct CheckedBody<B> {
    /// The agent's body; `None` once [`ResponseMode::Enforce`] ended the
    /// stream (dropping it stops the agent's work for it).
    inner: Option<Pin<Box<B>>>,
    check: Option<Checking>,
}

impl<B> std::fmt::Debug for CheckedBody<B> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CheckedBody")
            .field("checked", &self.check.is_some())
            .field("ended", &self.inner.is_none())
            .finish()
    }
}

impl<B> CheckedBody<B> {
    fn new(body: B, check: Option<Checking>) -> Self {
        CheckedBody {
            inner: Some(Box::pin(body)),
            check,
        }
    }
}

impl<B: From<Bytes>> From<Bytes> for CheckedBody<B> {
    fn from(bytes: Bytes) -> Self {
        CheckedBody::new(B::from(bytes), None)
    }
}

impl<B> Body for CheckedBody<B>
where
    B: Body,
{
    type Data = Bytes;
    type Error = B::Error;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Self::Data>, Self::Error>>> {
        let this = self.get_mut();
        if let Some(Checking::Beside(beside)) = &mut this.check {
            // A frame (or the end) waiting for room in the check's queue
            // is handed on once it is queued.
            if let Some((fed, _)) = &beside.waiting {
                let frame = match fed {
                    Fed::Frame(bytes) => Some(bytes.clone()),
                    Fed::End => None,
                };
                if beside.wait(cx).is_pending() {
                    return Poll::Pending;
                }
                return Poll::Ready(frame.map(|bytes| Ok(Frame::data(bytes))));
            }
        }
        if let Some(Checking::InLine(check)) = &mut this.check {
            if let Some(closing) = check.closing.take() {
                // Enforce: the agent's body goes; the RUN_ERROR is the last
                // frame.
                this.inner = None;
                check.end_early();
                return Poll::Ready(Some(Ok(Frame::data(closing))));
            }
        }
        let Some(inner) = &mut this.inner else {
            return Poll::Ready(None);
        };
        match inner.as_mut().poll_frame(cx) {
            Poll::Pending => Poll::Pending,
            Poll::Ready(Some(Ok(frame))) => {
                let frame = frame.map_data(|mut data| data.copy_to_bytes(data.remaining()));
                if let Some(bytes) = frame.data_ref() {
                    let waiting = match &mut this.check {
                        Some(Checking::InLine(check)) => {
                            check.feed(bytes);
                            false
                        }
                        Some(Checking::Beside(beside)) => {
                            beside.offer(Fed::Frame(bytes.clone()), cx).is_pending()
                        }
                        None => false,
                    };
                    if waiting {
                        // Handed on once queued (above).
                        return Poll::Pending;
                    }
                }
                Poll::Ready(Some(Ok(frame)))
            }
            Poll::Ready(Some(Err(error))) => Poll::Ready(Some(Err(error))),
            Poll::Ready(None) => {
                this.inner = None;
                let waiting = match &mut this.check {
                    Some(Checking::InLine(check)) => {
                        check.finish();
                        if let Some(closing) = check.closing.take() {
                            check.end_early();
                            return Poll::Ready(Some(Ok(Frame::data(closing))));
                        }
                        false
                    }
                    Some(Checking::Beside(beside)) => beside.offer(Fed::End, cx).is_pending(),
                    None => false,
                };
                if waiting {
                    return Poll::Pending;
                }
                Poll::Ready(None)
            }
        }
    }

    fn is_end_stream(&self) -> bool {
        match (&self.inner, &self.check) {
            (None, Some(Checking::InLine(check))) => check.closing.is_none(),
            (None, Some(Checking::Beside(beside))) => beside.waiting.is_none(),
            (None, None) => true,
            // The end is seen by polling, so that the stream's end is
            // checked.
            (Some(_), Some(_)) => false,
            (Some(inner), None) => inner.is_end_stream(),
        }
    }

    fn size_hint(&self) -> SizeHint {
        match (&self.inner, &self.check) {
            (Some(inner), None | Some(Checking::Beside(_))) => inner.size_hint(),
            (None, Some(Checking::InLine(check))) if check.closing.is_some() => SizeHint::default(),
            (None, _) => SizeHint::with_exact(0),
            // An enforced body may end early or carry a RUN_ERROR of its own.
            (Some(_), Some(Checking::InLine(_))) => SizeHint::default(),
        }
    }
}

impl<B> Drop for CheckedBody<B> {
    fn drop(&mut self) {
        // A check beside the stream sees its queue close without an end.
        if let Some(Checking::InLine(check)) = &mut self.check {
            check.abandon();
        }
    }
}
