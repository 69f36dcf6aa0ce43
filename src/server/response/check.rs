//! The check of one response stream: its findings logged and counted, and
//! under [`super::ResponseMode::Enforce`] the `RUN_ERROR` that ends it.

use std::sync::atomic::Ordering;

use bytes::Bytes;

use super::{ResponseMode, Responses};
use crate::{Checked, Diagnostic, Framing, Severity, StreamChecker, Validator};

/// The check of one response stream.
pub(super) struct Check {
    pub(super) checker: Option<StreamChecker>,
    pub(super) framing: Framing,
    pub(super) responses: Responses,
    /// The run's ids, from the request it answers, for the log.
    pub(super) thread_id: Option<String>,
    pub(super) run_id: Option<String>,
    pub(super) path: String,
    pub(super) errors: u64,
    pub(super) warnings: u64,
    /// The last two bytes passed, to start an event of the guard's own at
    /// a record boundary.
    pub(super) tail: [u8; 2],
    /// [`ResponseMode::Enforce`]: the `RUN_ERROR` to send, once an error
    /// was found.
    pub(super) closing: Option<Bytes>,
}

impl Check {
    pub(super) fn new(
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
    pub(super) fn feed(&mut self, bytes: &[u8]) {
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
    pub(super) fn abandon(&mut self) {
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

    /// The check fell [`super::QUEUE_FRAMES`] frames behind its stream
    /// under [`super::Lagging::Stop`] and stops after the frames queued:
    /// counted, logged, and the rest of the stream passes unchecked.
    pub(super) fn outpaced(&mut self) {
        let Some(checker) = self.checker.take() else {
            return;
        };
        let counters = &self.responses.counters;
        let events = checker.records() as u64;
        counters.events.fetch_add(events, Ordering::Relaxed);
        counters.streams_outpaced.fetch_add(1, Ordering::Relaxed);
        tracing::warn!(
            target: "agui_lint::response",
            path = %self.path,
            run_id = self.run_id.as_deref(),
            thread_id = self.thread_id.as_deref(),
            events,
            "the response check fell {} frames behind its stream and stopped; the rest of the stream passes unchecked",
            super::QUEUE_FRAMES
        );
        counters.checking.fetch_sub(1, Ordering::Relaxed);
    }

    /// Enforce ended the stream at an error: counted, and what was open
    /// then is not reported.
    pub(super) fn end_early(&mut self) {
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
    pub(super) fn finish(&mut self) {
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
