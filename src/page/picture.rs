//! One capture's view built as it is read: its exchanges, each with its
//! request and runs, and every finding placed at the event (or request)
//! it points to. The views are [`super::views`]; a run is built by
//! [`super::run`], a request and the client's conversation by
//! [`super::conversation`].
//!
//! Built from the capture read as exchanges (`recording::read_capture`)
//! and the documents `check` made of the same bytes: a finding's document
//! says which entry and which record it is, and each recorded event knows
//! its record number, so that no text is matched.

use std::collections::HashMap;

use agui_lint::unstable::recording::capture::Piece;
use agui_lint::unstable::recording::{Exchange, RecordedEvent};
use agui_lint::{Checked, Diagnostic};
use serde_json::Value;

use super::conversation::{conversation_of, request_view};
use super::lazy::Lazy;
use super::more::{MoreCount, MorePlaces, Placed, Tally, Target};
use super::run::RunBuilder;
use super::text::{clip, worse};
use super::views::{
    place_of, Counts, ExchangeView, FindingView, Place, RunView, Shown, SourceView,
    CONVERSATION_BODY, LISTED_FINDINGS,
};

/// A capture's view, built as its exchanges and events are read.
pub(crate) struct SourceBuilder {
    index: usize,
    path: String,
    counts: Counts,
    findings: Vec<FindingView>,
    /// Where each place's findings are.
    placed: Placed,
    /// The version each place with listed findings was judged as.
    judged: HashMap<Place, &'static str>,
    exchanges: Vec<ExchangeView>,
    current: Option<ExchangeBuilder>,
    /// What the page shows so far.
    shown: Shown,
    /// The capture's bytes, when they are one response's body.
    whole_body: Option<std::sync::Arc<[u8]>>,
    /// Every finding, by rule.
    by_rule: Vec<(String, usize)>,
    /// Findings past [`LISTED_FINDINGS`](super::views::LISTED_FINDINGS).
    more_findings: usize,
}

impl SourceBuilder {
    /// A view of the capture at `path` whose first check is `tally`;
    /// `shown`, what the page shows before it.
    pub(crate) fn new(index: usize, path: &str, tally: Tally, shown: Shown) -> Self {
        let mut findings: Vec<FindingView> = Vec::new();
        let mut listed: HashMap<Place, Vec<usize>> = HashMap::new();
        let mut judged = HashMap::new();
        for checked in &tally.listed {
            let place = place_of(checked);
            judged.insert(place, checked.report.protocol().as_str());
            for diagnostic in checked.report.diagnostics() {
                if findings.len() == LISTED_FINDINGS {
                    break;
                }
                listed.entry(place).or_default().push(findings.len());
                findings.push(finding_view(index, findings.len(), checked, diagnostic));
            }
        }
        SourceBuilder {
            index,
            path: path.to_owned(),
            counts: tally.counts,
            findings,
            placed: Placed {
                listed,
                more: tally.more,
            },
            judged,
            exchanges: Vec::new(),
            current: None,
            shown,
            whole_body: None,
            by_rule: tally.by_rule.into_iter().collect(),
            more_findings: tally.more_findings,
        }
    }

    /// The capture is one response's body, `bytes`.
    pub(crate) fn whole_body(&mut self, bytes: std::sync::Arc<[u8]>) {
        self.whole_body = Some(bytes);
    }

    /// Takes the next piece of the capture.
    pub(crate) fn piece(&mut self, piece: Piece) {
        match piece {
            Piece::Exchange(exchange) => {
                self.end_exchange();
                let k = self.exchanges.len();
                self.current = Some(ExchangeBuilder::new(
                    self.index,
                    k,
                    exchange,
                    &mut self.placed,
                    &mut self.findings,
                ));
            }
            Piece::Event(event) => {
                if let Some(current) = self.current.as_mut() {
                    let place = Place::Event(current.head.entry, event.record);
                    let judged = self
                        .judged
                        .get(&place)
                        .copied()
                        .or_else(|| self.placed.more.get(&place).map(|at| at.judged.as_str()));
                    current.event(
                        &event,
                        &mut self.placed,
                        &mut self.findings,
                        &mut self.shown,
                    );
                    // The run the event is in, now.
                    if let Some(run) = current.run.as_mut().filter(|run| run.judged.is_none()) {
                        run.judged = judged;
                    }
                }
            }
        }
    }

    fn end_exchange(&mut self) {
        if let Some(current) = self.current.take() {
            let body = self.whole_body.clone();
            self.exchanges.push(current.finish(
                body.as_deref(),
                &mut self.shown,
                &mut self.placed,
                &mut self.findings,
            ));
        }
    }

    /// The view, what the page shows with it, and where the findings past
    /// the listed ones are shown; `unreadable` says why the capture could
    /// not be read as exchanges, when it could not.
    pub(crate) fn finish(mut self, unreadable: Option<String>) -> (SourceView, Shown, MorePlaces) {
        self.end_exchange();
        let view = SourceView {
            path: self.path,
            counts: self.counts,
            exchanges: self.exchanges,
            findings: Lazy::new(self.findings),
            unreadable,
            by_rule: self.by_rule,
            more_findings: self.more_findings,
        };
        (view, self.shown, self.placed.more)
    }
}

fn finding_view(
    source: usize,
    n: usize,
    checked: &Checked,
    diagnostic: &Diagnostic,
) -> FindingView {
    let rule = agui_lint::rules::rule(&diagnostic.rule);
    let location = diagnostic.location.map(|l| checked.file_location(l));
    FindingView {
        anchor: format!("f{source}-{n}"),
        rule: diagnostic.rule.clone(),
        severity: diagnostic.severity.as_str(),
        message: diagnostic.message.clone(),
        help: diagnostic.help.clone(),
        summary: rule.map(|r| r.summary.to_owned()).unwrap_or_default(),
        link: agui_lint::rules::docs_url(&diagnostic.rule),
        place: checked.place().unwrap_or_else(|| "the document".to_owned()),
        line: location.map(|l| l.line),
        column: location.map(|l| l.column),
        pointer: diagnostic.pointer.clone(),
        source_line: location
            .and_then(|l| checked.source_lines.get(&l.line))
            .map(|text| clip(text, 300)),
        run: String::new(),
        at: None,
    }
}

/// An exchange's view, built as its events come.
struct ExchangeBuilder {
    anchor: String,
    title: String,
    head: Exchange,
    request_value: Option<Value>,
    own: Vec<usize>,
    /// Findings on the request and the exchange past the listed ones.
    more: MoreCount,
    /// Its index in the capture.
    k: usize,
    worst: &'static str,
    runs: Vec<RunView>,
    run: Option<RunBuilder>,
    /// Runs open in the current run (a subagent's run nests in it).
    depth: usize,
    /// The events' lines, for the client's conversation when the response
    /// has no body of its own (JSON Lines), while within
    /// [`CONVERSATION_BODY`].
    lines: Option<Vec<u8>>,
}

impl ExchangeBuilder {
    fn new(
        source: usize,
        k: usize,
        head: Exchange,
        placed: &mut Placed,
        findings: &mut [FindingView],
    ) -> Self {
        let anchor = format!("s{source}-x{k}");
        let request_value = head.request_value();
        let request_place = match (head.entry, head.request_line) {
            (Some(entry), _) => Some(Place::Request(Some(entry))),
            (None, Some(line)) => Some(Place::Event(None, line)),
            (None, None) => None,
        };
        let mut own: Vec<usize> = Vec::new();
        let mut more = MoreCount::default();
        let exchange_place = head.entry.map(|entry| Place::Exchange(Some(entry)));
        for place in [request_place, exchange_place].into_iter().flatten() {
            let (listed, past) = placed.take(place, Target::exchange(k));
            own.extend(listed);
            more.add(past);
        }
        let title = match (head.entry, &head.request_line) {
            (Some(entry), _) => format!("entry {entry}"),
            (None, Some(line)) => format!("request at line {line}"),
            (None, None) => "events".to_owned(),
        };
        let mut worst = more.worst;
        for &f in &own {
            findings[f].at = Some(format!("{anchor}-request"));
            findings[f].run = title.clone();
            worst = worse(worst, findings[f].severity);
        }
        let lines = head.body.is_none().then(Vec::new);
        ExchangeBuilder {
            anchor,
            title,
            head,
            request_value,
            own,
            worst,
            more,
            k,
            runs: Vec::new(),
            run: None,
            depth: 0,
            lines,
        }
    }

    fn event(
        &mut self,
        event: &RecordedEvent,
        placed: &mut Placed,
        findings: &mut [FindingView],
        shown: &mut Shown,
    ) {
        if let Some(lines) = self.lines.as_mut() {
            if lines.len() + event.raw.len() < CONVERSATION_BODY {
                lines.extend_from_slice(&event.raw);
                lines.push(b'\n');
            } else {
                self.lines = None;
            }
        }
        let kind = event.event_type().unwrap_or("");
        // A run starts at a RUN_STARTED met while no run is open; one
        // inside an open run is a subagent's, and stays in it.
        if kind == "RUN_STARTED" {
            if self.depth == 0 {
                self.end_run(shown, placed, findings);
            }
            self.depth += 1;
        }
        let ends = matches!(kind, "RUN_FINISHED" | "RUN_ERROR");
        if self.run.is_none() {
            let r = self.runs.len();
            let anchor = format!("{}-r{r}", self.anchor);
            let state = self.request_value.as_ref().and_then(|v| v.get("state"));
            self.run = Some(RunBuilder::new(anchor, (self.k, r), state, shown));
        }
        if let Some(run) = self.run.as_mut() {
            run.event(event, self.head.entry, placed, findings, shown);
        }
        if ends {
            self.depth = self.depth.saturating_sub(1);
        }
    }

    fn end_run(&mut self, shown: &mut Shown, placed: &mut Placed, findings: &mut [FindingView]) {
        if let Some(run) = self.run.take() {
            let run = run.finish(shown, placed, findings);
            self.worst = worse(self.worst, run.worst);
            self.runs.push(run);
        }
    }

    fn finish(
        mut self,
        whole_body: Option<&[u8]>,
        shown: &mut Shown,
        placed: &mut Placed,
        findings: &mut [FindingView],
    ) -> ExchangeView {
        self.end_run(shown, placed, findings);
        let body = self
            .head
            .body
            .as_deref()
            .or(whole_body)
            .or(self.lines.as_deref());
        let (conversation, conversation_note) =
            conversation_of(&self.head, body, self.request_value.as_ref());
        ExchangeView {
            request: self.request_value.as_ref().map(request_view),
            anchor: self.anchor,
            title: self.title,
            status: self.head.status,
            findings: self.own,
            more_findings: self.more.count,
            outline_runs: self.runs.iter().filter(|run| !run.drawn).count(),
            runs: Lazy::new(self.runs),
            worst: self.worst,
            conversation,
            conversation_note,
        }
    }
}

/// The worst severity of a source, as a word.
pub(crate) fn worst_of(source: &SourceView) -> &'static str {
    source.counts.worst()
}
