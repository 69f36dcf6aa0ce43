//! Checking the response stream of a request the guard let through: the
//! events an agent streams back (SSE, or JSON Lines), checked with a
//! [`crate::StreamChecker`] as their bytes pass, paired with the request
//! they answer (its tools' calls, its declared version, its state).
//!
//! The bytes pass unchanged and unbuffered: each frame the agent's body
//! yields is handed on at once. Under [`ResponseMode::Report`] the check
//! runs beside the stream, on a task of its own fed the frames (shared,
//! not copied) through a bounded queue, so the stream does not wait for
//! it; only an agent faster than the check (more than [`QUEUE_FRAMES`]
//! frames ahead of it) is held back to the check's pace, so that memory
//! stays bounded and every frame is checked. Under
//! [`ResponseMode::Enforce`], which must know of an error before passing
//! on what follows it, each frame is checked before it is handed on, which
//! holds it no longer than its own check takes. A record's findings are
//! final once the next record has come (the stream's end may add to the
//! last), so they are reported then. What becomes of them is
//! [`ResponseMode`].

mod beside;
mod body;
mod check;

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use axum::http::header::CONTENT_TYPE;
use axum::http::{HeaderMap, Response};
use http_body::Body;

pub use body::CheckedBody;

use super::Guard;
use crate::Framing;
use beside::Beside;
use body::Checking;
use check::Check;

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
/// stream waits for it (or leaves it behind, [`Lagging::Stop`]): what its
/// queue holds at most (the frames themselves are the response's, shared).
pub const QUEUE_FRAMES: usize = 1024;

/// What a stream does when its [`ResponseMode::Report`] check has fallen
/// [`QUEUE_FRAMES`] frames behind it, which happens only to an agent that
/// has its events ready faster than the check reads them (about 1.5 to
/// 2.3 µs an event on one core): a replay, a cached answer
/// ([`Guard::with_lagging_response_check`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Lagging {
    /// The stream waits for its check (the default): every frame is
    /// checked, at the cost of holding such an agent to the check's pace.
    #[default]
    Wait,
    /// The stream never waits: the check reads what it has queued, then
    /// stops, logs a warning and counts the stream
    /// ([`ResponseStats::streams_outpaced`]); the rest of the stream
    /// passes unchecked. For production, with sampling, where a response
    /// must never be slowed.
    Stop,
}

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
    /// Streams that left their report-mode check [`QUEUE_FRAMES`] frames
    /// behind under [`Lagging::Stop`]: the rest of each passed unchecked.
    pub streams_outpaced: u64,
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
    streams_outpaced: AtomicU64,
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
    /// What a stream does when its check falls behind.
    lagging: Lagging,
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
            lagging: Lagging::Wait,
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

    /// What a stream does when its report-mode check has fallen
    /// [`QUEUE_FRAMES`] frames behind: waits for it (the default) or leaves
    /// it behind; see [`Lagging`].
    #[must_use]
    pub fn with_lagging_response_check(mut self, lagging: Lagging) -> Self {
        self.responses.lagging = lagging;
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
            streams_outpaced: get(&c.streams_outpaced),
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
