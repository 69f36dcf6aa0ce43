//! One exchange checked as it passes: the run request when it arrives, the
//! response's events as they stream (the library's stream checker, paired
//! with the request), each finding printed as it occurs; and at the end
//! the exchange checked as `check` checks a saved archive's entry (status,
//! Content-Type, delivery), whose findings not already printed are printed
//! then, with the run's summary. What was printed is what `check` of the
//! saved archive reports.

use std::collections::HashMap;
use std::sync::Arc;

use agui_lint::unstable::check::check_source;
use agui_lint::unstable::input::har_write::{archive_with, Masking, Received, Sent};
use agui_lint::unstable::input::Source;
use agui_lint::unstable::recording::BodyLayout;
use agui_lint::{Checked, Diagnostic, Framing, Kind, Severity, StreamChecker};
use serde_json::{json, Value};

use super::timeline::LiveTimeline;
use super::Proxy;
use crate::cli::ProxyFormat;

/// What one exchange has shown so far.
pub(crate) struct Watch {
    proxy: Arc<Proxy>,
    run: usize,
    label: String,
    request: Option<Value>,
    checker: Option<StreamChecker>,
    /// (rule, message) of each finding printed, counted.
    printed: HashMap<(String, String), usize>,
    /// Findings printed, by severity (info, warning, error).
    counts: [usize; 3],
    /// Events the live view was last told of.
    live_records: usize,
    /// The run's timeline as the live view draws it, when there is one.
    timeline: Option<LiveTimeline>,
}

impl Watch {
    /// Starts watching run `run` (`label`: `METHOD /path`), checking its
    /// request body when it is a RunAgentInput.
    pub(crate) fn new(proxy: Arc<Proxy>, run: usize, label: &str, body: &[u8]) -> Self {
        let request = serde_json::from_slice::<Value>(body)
            .ok()
            .filter(|v| Kind::detect(v) == Ok(Kind::RunAgentInput));
        let mut watch = Watch {
            proxy,
            run,
            label: label.to_owned(),
            request,
            checker: None,
            printed: HashMap::new(),
            counts: [0; 3],
            live_records: 0,
            timeline: None,
        };
        if watch.request.is_some() {
            let report = watch.proxy.validator.validate(Kind::RunAgentInput, body);
            for diagnostic in report.diagnostics() {
                watch.print_finding("request body", diagnostic);
            }
        }
        watch
    }

    /// The response's head came: an event stream is checked as it comes.
    pub(crate) fn response(&mut self, status: u16, content_type: Option<&str>) {
        let layout = content_type.and_then(BodyLayout::of_media_type);
        let framing = match layout {
            Some(BodyLayout::Sse) => Framing::Sse,
            Some(BodyLayout::Proto) => Framing::Proto,
            Some(BodyLayout::JsonLines) => Framing::JsonLines,
            None => {
                self.note(&format!(
                    "{status} {}, not an event stream",
                    content_type.unwrap_or("(no Content-Type)")
                ));
                return;
            }
        };
        self.note(&format!(
            "{status} {}",
            content_type.unwrap_or("(no Content-Type)")
        ));
        let mut checker = StreamChecker::new(&self.proxy.validator, framing).with_kind(Kind::Event);
        if let Some(request) = &self.request {
            checker = checker.answering(request);
        }
        self.checker = Some(checker);
        if self.proxy.live.is_some() {
            self.timeline = layout.map(LiveTimeline::new);
        }
    }

    /// A piece of the response's body.
    pub(crate) fn feed(&mut self, piece: &[u8]) {
        let Some(checker) = self.checker.as_mut() else {
            return;
        };
        let mut found = Vec::new();
        checker.feed_each(piece, |checked| found.push(checked));
        let records = checker.records();
        found.iter().for_each(|checked| self.print_checked(checked));
        let bars = self
            .timeline
            .as_mut()
            .map(|timeline| timeline.feed(piece))
            .unwrap_or_default();
        if let Some(live) = &self.proxy.live {
            if records != self.live_records || !bars.is_empty() {
                self.live_records = records;
                live.send(&json!({
                    "kind": "events", "run": self.run, "request": self.label, "events": records,
                    "bars": bars,
                }));
            }
        }
    }

    /// The exchange ended: the rest of the stream's findings, the
    /// exchange's own, and the summary. `entry` is the exchange's place in
    /// the saved archive; `over_limit` says that the stream's end was not
    /// kept (its last record checked may be half of one: the stream's end
    /// is judged from the archive's entry, cut to whole records).
    pub(crate) fn finish(
        mut self,
        sent: &Sent,
        received: &Received,
        entry: Option<usize>,
        over_limit: bool,
    ) {
        let events = if let Some(checker) = self.checker.take() {
            let records = checker.records();
            if !over_limit {
                let mut found = Vec::new();
                checker.finish_each(|checked| found.push(checked));
                found.iter().for_each(|checked| self.print_checked(checked));
            }
            records
        } else {
            0
        };
        // The exchange as `check` reads it from a saved archive.
        let har = archive_with(
            &[(sent.clone(), received.clone())],
            &[],
            Masking::Nothing,
            &[],
        );
        let source = Source::Memory {
            name: format!("run-{}.har", self.run).into(),
            bytes: Arc::from(har),
        };
        let mut all: Vec<(String, Diagnostic)> = Vec::new();
        let _ = check_source(&self.proxy.validator, &source, None, &mut |checked| {
            let place = as_saved(&checked.place().unwrap_or_default(), entry);
            for mut diagnostic in checked.report.into_diagnostics() {
                // The one-entry archive checked here is entry `entry` of
                // the saved one: the pointer says so, as `check` of the
                // saved file will.
                if let (Some(entry), Some(rest)) =
                    (entry, diagnostic.pointer.strip_prefix("/log/entries/0"))
                {
                    if rest.is_empty() || rest.starts_with('/') {
                        diagnostic.pointer = format!("/log/entries/{}{rest}", entry - 1);
                    }
                }
                all.push((place.clone(), diagnostic));
            }
        });
        for (place, diagnostic) in &all {
            let key = (diagnostic.rule.clone(), diagnostic.message.clone());
            match self.printed.get_mut(&key) {
                Some(n) if *n > 0 => *n -= 1,
                _ => self.print_finding(place, diagnostic),
            }
        }
        // The summary counts what was printed, live or at the end.
        let counts = self.counts;
        let bars = self
            .timeline
            .take()
            .map(LiveTimeline::finish)
            .unwrap_or_default();
        if let Some(live) = &self.proxy.live {
            let page = live.keep_run(self.run, sent, received);
            live.send(&json!({
                "kind": "end",
                "page": page,
                "run": self.run,
                "request": self.label,
                "events": events,
                "errors": counts[2],
                "warnings": counts[1],
                "ms": received.total_ms,
                "ended": received.delivery.detail.as_ref().map_or_else(|| "whole".to_owned(), |d| format!("cut: {d}")),
                "entry": entry,
                "bars": bars,
            }));
        }
        if self.proxy.quiet {
            return;
        }
        let ended = match (&received.delivery.detail, received.delivery.end) {
            (Some(detail), _) => format!(", cut: {detail}"),
            (None, _) => String::new(),
        };
        let saved = entry.map_or(String::new(), |n| format!(", saved as entry {n}"));
        match self.proxy.format {
            ProxyFormat::Human => self.line(&format!(
                "agui-lint proxy: run {} ({}): {} event(s), {} error(s), {} warning(s), {} ms{ended}{saved}",
                self.run, self.label, events, counts[2], counts[1], received.total_ms
            )),
            ProxyFormat::Jsonl => self.line(
                &json!({
                    "run": self.run,
                    "request": self.label,
                    "summary": {
                        "status": received.status,
                        "events": events,
                        "errors": counts[2],
                        "warnings": counts[1],
                        "infos": counts[0],
                        "ms": received.total_ms,
                        "end": received.delivery.end,
                        "entry": entry,
                    }
                })
                .to_string(),
            ),
        }
    }

    fn print_checked(&mut self, checked: &Checked) {
        let place = checked.place().unwrap_or_default();
        for diagnostic in checked.report.diagnostics() {
            self.print_finding_at(&place, checked.record, diagnostic);
        }
    }

    fn print_finding(&mut self, place: &str, diagnostic: &Diagnostic) {
        self.print_finding_at(place, None, diagnostic);
    }

    /// Prints a finding at `place`; `record`, the 1-based number of the
    /// response's record it is on, when it is on one (where the live
    /// view's timeline marks it).
    fn print_finding_at(&mut self, place: &str, record: Option<usize>, diagnostic: &Diagnostic) {
        self.counts[severity_index(diagnostic.severity)] += 1;
        *self
            .printed
            .entry((diagnostic.rule.clone(), diagnostic.message.clone()))
            .or_default() += 1;
        if let Some(live) = &self.proxy.live {
            live.send(&json!({
                "kind": "finding",
                "run": self.run,
                "request": self.label,
                "at": place,
                "record": record,
                "rule": diagnostic.rule,
                "severity": diagnostic.severity,
                "message": diagnostic.message,
                "pointer": diagnostic.pointer,
                "link": agui_lint::rules::docs_url(&diagnostic.rule),
            }));
        }
        let text = match self.proxy.format {
            ProxyFormat::Human => format!(
                "agui-lint proxy: run {} ({}), {place}: {}[{}] {}{}",
                self.run,
                self.label,
                diagnostic.severity.as_str(),
                diagnostic.rule,
                diagnostic.message,
                if diagnostic.pointer.is_empty() {
                    String::new()
                } else {
                    format!(" (at {})", diagnostic.pointer)
                }
            ),
            ProxyFormat::Jsonl => json!({
                "run": self.run,
                "request": self.label,
                "at": place,
                "rule": diagnostic.rule,
                "severity": diagnostic.severity,
                "message": diagnostic.message,
                "pointer": diagnostic.pointer,
            })
            .to_string(),
        };
        self.line(&text);
    }

    /// A line about the run (not a finding), unless quiet.
    pub(crate) fn note(&self, what: &str) {
        if let Some(live) = &self.proxy.live {
            live.send(
                &json!({"kind": "note", "run": self.run, "request": self.label, "note": what}),
            );
        }
        if self.proxy.quiet {
            return;
        }
        match self.proxy.format {
            ProxyFormat::Human => self.line(&format!(
                "agui-lint proxy: run {} ({}): {what}",
                self.run, self.label
            )),
            ProxyFormat::Jsonl => self
                .line(&json!({"run": self.run, "request": self.label, "note": what}).to_string()),
        }
    }

    fn line(&self, text: &str) {
        let _one_at_a_time = self.proxy.out.lock();
        match self.proxy.format {
            ProxyFormat::Human => crate::console::say(text),
            ProxyFormat::Jsonl => crate::console::out(text),
        }
    }
}

/// `place`, a place in the one-entry archive checked at the end, as a
/// place in the saved archive, where the exchange is entry `entry`.
fn as_saved(place: &str, entry: Option<usize>) -> String {
    match (entry, place.strip_prefix("entry 1")) {
        (Some(entry), Some(rest)) if !rest.starts_with(|c: char| c.is_ascii_digit()) => {
            format!("entry {entry}{rest}")
        }
        _ => place.to_owned(),
    }
}

fn severity_index(severity: Severity) -> usize {
    match severity {
        Severity::Info => 0,
        Severity::Warning => 1,
        Severity::Error => 2,
    }
}
