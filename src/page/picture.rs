//! What the page shows of one capture: its exchanges, each request's
//! messages, tools and state, each run's events, lanes and state history,
//! and every finding placed at the event (or request) it points to.
//!
//! Built from the capture read as exchanges (`recording::read_capture`)
//! and the documents `check` made of the same bytes: a finding's document
//! says which entry and which record it is, and each recorded event knows
//! its record number, so that no text is matched.

use std::collections::{BTreeMap, HashMap};

use agui_lint::unstable::kit::Streamed;
use agui_lint::unstable::recording::capture::Piece;
use agui_lint::unstable::recording::{BodyLayout, Exchange, RecordedEvent};
use agui_lint::{Checked, Context, Diagnostic, Severity};
use serde::Serialize;
use serde_json::Value;

use super::lanes::Lanes;
use super::state::{History, StateStep};
use super::text::{clip, event_summary};
use super::timeline::{positions, timeline, Timeline};

/// The most events of a run listed one by one (those with findings are
/// always listed).
const LISTED_EVENTS: usize = 500;

/// The longest text of a message or a value shown in a request.
const SHOWN_TEXT: usize = 2_000;

/// One capture as the page shows it.
#[derive(Debug, Serialize)]
pub(crate) struct SourceView {
    pub path: String,
    pub counts: Counts,
    pub exchanges: Vec<ExchangeView>,
    /// Every finding of the capture, in order.
    pub findings: Vec<FindingView>,
    /// Why the capture could not be read as exchanges, when it could not
    /// (its findings are still listed).
    pub unreadable: Option<String>,
    /// Findings not listed (past the most a table lists), by rule.
    pub findings_left_out: Vec<(String, usize)>,
}

/// Findings by severity.
#[derive(Debug, Default, Clone, Copy, Serialize)]
pub(crate) struct Counts {
    pub errors: usize,
    pub warnings: usize,
    pub infos: usize,
}

impl Counts {
    fn add(&mut self, severity: Severity) {
        match severity {
            Severity::Error => self.errors += 1,
            Severity::Warning => self.warnings += 1,
            Severity::Info => self.infos += 1,
        }
    }

    /// The most serious severity counted, as a word.
    fn worst(&self) -> &'static str {
        if self.errors > 0 {
            "error"
        } else if self.warnings > 0 {
            "warning"
        } else if self.infos > 0 {
            "info"
        } else {
            "clean"
        }
    }
}

/// One request and its response.
#[derive(Debug, Serialize)]
pub(crate) struct ExchangeView {
    /// The anchor of its section.
    pub anchor: String,
    pub title: String,
    pub status: u16,
    pub request: Option<RequestView>,
    /// Findings on the request and on the exchange as a whole.
    pub findings: Vec<usize>,
    pub runs: Vec<RunView>,
    pub worst: &'static str,
    /// The conversation `@ag-ui/client` holds after the response (what it
    /// sends back in the next request): role and content of each message.
    pub conversation: Vec<(String, String)>,
    /// Why the conversation is not shown whole, when it is not.
    pub conversation_note: Option<String>,
}

/// A run request as the page shows it.
#[derive(Debug, Serialize)]
pub(crate) struct RequestView {
    pub thread: String,
    pub run: String,
    pub protocol: Option<String>,
    pub messages: Vec<(String, String)>,
    pub tools: Vec<ToolView>,
    pub state: Option<String>,
}

/// A tool a request offers.
#[derive(Debug, Serialize)]
pub(crate) struct ToolView {
    pub name: String,
    pub description: String,
    pub parameters: String,
}

/// One run of a response.
#[derive(Debug, Serialize)]
pub(crate) struct RunView {
    pub anchor: String,
    pub title: String,
    /// How it ended: `finished`, `error`, or `open` (the stream ended
    /// first).
    pub ended: &'static str,
    pub events: Vec<EventRow>,
    /// Events not listed (past [`LISTED_EVENTS`], without findings).
    pub events_left_out: usize,
    pub event_count: usize,
    pub timeline: Timeline,
    /// The `protocolVersion` its `RUN_STARTED` declares.
    pub declared: Option<String>,
    /// The version its events were judged as (known from its findings).
    pub judged: Option<&'static str>,
    pub states: Vec<StateStep>,
    pub states_left_out: usize,
    pub worst: &'static str,
    /// Whether it is drawn whole (else one line of the outline: the page
    /// draws so many runs, and every run with findings).
    pub drawn: bool,
}

/// One event of a run.
#[derive(Debug, Serialize)]
pub(crate) struct EventRow {
    /// The 0-based index in the run.
    pub index: usize,
    pub anchor: String,
    pub origin: String,
    pub event_type: String,
    pub summary: String,
    /// Indexes of its findings in the source's list.
    pub findings: Vec<usize>,
    pub worst: &'static str,
}

/// One finding.
#[derive(Debug, Serialize)]
pub(crate) struct FindingView {
    pub anchor: String,
    pub rule: String,
    pub severity: &'static str,
    pub message: String,
    pub help: Option<String>,
    pub summary: String,
    pub link: String,
    pub place: String,
    pub line: Option<usize>,
    pub column: Option<usize>,
    pub pointer: String,
    pub source_line: Option<String>,
    /// The run it belongs to, for the table's filter.
    pub run: String,
    /// Where it is shown in place (an event's or a request's anchor).
    pub at: Option<String>,
}

/// Where a checked document sits: the archive entry, and the record of
/// the stream (or the request).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Place {
    Request(Option<usize>),
    Event(Option<usize>, usize),
    Exchange(Option<usize>),
    Capture,
}

fn place_of(checked: &Checked) -> Place {
    match &checked.context {
        Some(Context::HarRequest(_)) => Place::Request(checked.record),
        Some(
            Context::HarEvent(_, n) | Context::HarBase64Event(_, n) | Context::HarFrame(_, n, _),
        ) => Place::Event(checked.record, *n),
        Some(Context::HarResponse(_)) => Place::Exchange(checked.record),
        Some(Context::HarEntry(n)) => Place::Exchange(Some(*n)),
        Some(Context::Event(n) | Context::Frame(n, _)) => Place::Event(None, *n),
        // A JSON Lines record: its line, an event's or a request's.
        None => checked
            .record
            .map_or(Place::Capture, |line| Place::Event(None, line)),
    }
}

fn severity_word(severity: Severity) -> &'static str {
    match severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Info => "info",
    }
}

pub(super) fn worse(a: &'static str, b: &'static str) -> &'static str {
    let rank = |s: &str| match s {
        "error" => 3,
        "warning" => 2,
        "info" => 1,
        _ => 0,
    };
    if rank(b) > rank(a) {
        b
    } else {
        a
    }
}

/// The most event rows a page lists in all (rows with findings past it are
/// still listed): a capture of millions of events gets a page a browser
/// opens, each run's outline and findings whole.
const LISTED_ON_A_PAGE: usize = 20_000;

/// The most runs a page draws whole (timeline, state, events): past it,
/// a run without findings is one line of the page's outline.
const DRAWN_RUNS: usize = 300;

/// Past [`DRAWN_RUNS`], runs with errors are still drawn whole, up to this
/// many runs drawn in all.
const DRAWN_WITH_ERRORS: usize = 1_000;

/// The most text of state values a page shows in all; past it, a change
/// shows its operations alone.
const STATE_TEXT_ON_A_PAGE: usize = 8 * 1024 * 1024;

/// What the page shows so far, across its captures: the budget of rows
/// and drawings a browser can open.
#[derive(Debug, Default)]
pub(crate) struct Shown {
    /// Event rows listed.
    rows: usize,
    /// Runs drawn whole.
    runs: usize,
    /// Bytes of state values shown.
    state_text: usize,
}

/// The most findings the findings table lists for one capture; the rest
/// are counted by rule.
const LISTED_FINDINGS: usize = 10_000;

/// The largest response the client's conversation is rebuilt from.
const CONVERSATION_BODY: usize = 16 * 1024 * 1024;

/// A capture's view, built as its exchanges and events are read.
pub(crate) struct SourceBuilder {
    index: usize,
    path: String,
    counts: Counts,
    findings: Vec<FindingView>,
    /// The findings of each place, as indexes into `findings`.
    at_place: HashMap<Place, Vec<usize>>,
    /// The version each place with findings was judged as.
    judged: HashMap<Place, &'static str>,
    exchanges: Vec<ExchangeView>,
    current: Option<ExchangeBuilder>,
    /// What the page shows so far.
    shown: Shown,
    /// The capture's bytes, when they are one response's body.
    whole_body: Option<std::sync::Arc<[u8]>>,
    /// Findings past [`LISTED_FINDINGS`], by rule.
    findings_left_out: BTreeMap<String, usize>,
}

impl SourceBuilder {
    /// A view of the capture at `path` whose documents with findings are
    /// `documents`; `shown`, what the page shows before it.
    pub(crate) fn new(index: usize, path: &str, documents: &[Checked], shown: Shown) -> Self {
        let mut counts = Counts::default();
        let mut findings: Vec<FindingView> = Vec::new();
        let mut at_place: HashMap<Place, Vec<usize>> = HashMap::new();
        let mut findings_left_out: BTreeMap<String, usize> = BTreeMap::new();
        let mut judged = HashMap::new();
        for checked in documents {
            let place = place_of(checked);
            judged.insert(place, checked.report.protocol().as_str());
            for diagnostic in checked.report.diagnostics() {
                counts.add(diagnostic.severity);
                if findings.len() == LISTED_FINDINGS {
                    *findings_left_out
                        .entry(diagnostic.rule.clone())
                        .or_default() += 1;
                    continue;
                }
                at_place.entry(place).or_default().push(findings.len());
                findings.push(finding_view(index, findings.len(), checked, diagnostic));
            }
        }
        SourceBuilder {
            index,
            path: path.to_owned(),
            counts,
            findings,
            at_place,
            judged,
            exchanges: Vec::new(),
            current: None,
            shown,
            whole_body: None,
            findings_left_out,
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
                    &mut self.at_place,
                    &mut self.findings,
                ));
            }
            Piece::Event(event) => {
                if let Some(current) = self.current.as_mut() {
                    let judged = self
                        .judged
                        .get(&Place::Event(current.head.entry, event.record));
                    current.event(
                        &event,
                        &mut self.at_place,
                        &mut self.findings,
                        &mut self.shown,
                    );
                    // The run the event is in, now.
                    if let Some(run) = current.run.as_mut().filter(|run| run.judged.is_none()) {
                        run.judged = judged.copied();
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
                &mut self.findings,
            ));
        }
    }

    /// The view, and what the page shows with it; `unreadable`
    /// says why the capture could not be read as exchanges, when it could
    /// not.
    pub(crate) fn finish(mut self, unreadable: Option<String>) -> (SourceView, Shown) {
        self.end_exchange();
        let view = SourceView {
            path: self.path,
            counts: self.counts,
            exchanges: self.exchanges,
            findings: self.findings,
            unreadable,
            findings_left_out: self.findings_left_out.into_iter().collect(),
        };
        (view, self.shown)
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
        severity: severity_word(diagnostic.severity),
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
        at_place: &mut HashMap<Place, Vec<usize>>,
        findings: &mut [FindingView],
    ) -> Self {
        let anchor = format!("s{source}-x{k}");
        let request_value = head.request_value();
        let request_place = match (head.entry, head.request_line) {
            (Some(entry), _) => Some(Place::Request(Some(entry))),
            (None, Some(line)) => Some(Place::Event(None, line)),
            (None, None) => None,
        };
        let mut own: Vec<usize> = request_place
            .and_then(|place| at_place.remove(&place))
            .unwrap_or_default();
        if let Some(entry) = head.entry {
            own.extend(
                at_place
                    .remove(&Place::Exchange(Some(entry)))
                    .unwrap_or_default(),
            );
        }
        let title = match (head.entry, &head.request_line) {
            (Some(entry), _) => format!("entry {entry}"),
            (None, Some(line)) => format!("request at line {line}"),
            (None, None) => "events".to_owned(),
        };
        let mut worst = "clean";
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
            runs: Vec::new(),
            run: None,
            depth: 0,
            lines,
        }
    }

    fn event(
        &mut self,
        event: &RecordedEvent,
        at_place: &mut HashMap<Place, Vec<usize>>,
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
                self.end_run(shown, findings);
            }
            self.depth += 1;
        }
        let ends = matches!(kind, "RUN_FINISHED" | "RUN_ERROR");
        if self.run.is_none() {
            let anchor = format!("{}-r{}", self.anchor, self.runs.len());
            let state = self.request_value.as_ref().and_then(|v| v.get("state"));
            self.run = Some(RunBuilder::new(anchor, state));
        }
        if let Some(run) = self.run.as_mut() {
            run.event(event, self.head.entry, at_place, findings, shown);
        }
        if ends {
            self.depth = self.depth.saturating_sub(1);
        }
    }

    fn end_run(&mut self, shown: &mut Shown, findings: &mut [FindingView]) {
        if let Some(run) = self.run.take() {
            let run = run.finish(shown, findings);
            self.worst = worse(self.worst, run.worst);
            self.runs.push(run);
        }
    }

    fn finish(
        mut self,
        whole_body: Option<&[u8]>,
        shown: &mut Shown,
        findings: &mut [FindingView],
    ) -> ExchangeView {
        self.end_run(shown, findings);
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
            runs: self.runs,
            worst: self.worst,
            conversation,
            conversation_note,
        }
    }
}

/// A run's view, built as its events come.
struct RunBuilder {
    anchor: String,
    /// The version its records with findings were judged as, when known.
    judged: Option<&'static str>,
    title: Option<String>,
    rows: Vec<EventRow>,
    left_out: usize,
    count: usize,
    lanes: Lanes,
    history: History,
    /// Each event's `timestamp`, when it has one.
    stamps: Vec<Option<f64>>,
    event_worst: Vec<&'static str>,
    declared: Option<String>,
    last_type: String,
    worst: &'static str,
}

impl RunBuilder {
    fn new(anchor: String, state: Option<&Value>) -> Self {
        RunBuilder {
            anchor,
            judged: None,
            title: None,
            rows: Vec::new(),
            left_out: 0,
            count: 0,
            lanes: Lanes::default(),
            history: History::new(state),
            stamps: Vec::new(),
            event_worst: Vec::new(),
            declared: None,
            last_type: String::new(),
            worst: "clean",
        }
    }

    fn event(
        &mut self,
        recorded: &RecordedEvent,
        entry: Option<usize>,
        at_place: &mut HashMap<Place, Vec<usize>>,
        findings: &mut [FindingView],
        shown: &mut Shown,
    ) {
        let n = self.count;
        self.count += 1;
        let value = recorded.value.as_ref();
        let kind = recorded.event_type().unwrap_or("");
        if n == 0 {
            let run_id = value
                .and_then(|e| e.get("runId"))
                .and_then(Value::as_str)
                .filter(|_| kind == "RUN_STARTED");
            self.title = Some(run_id.map_or_else(|| "events".to_owned(), |id| format!("run {id}")));
        }
        let title = self.title.clone().unwrap_or_default();
        if kind == "RUN_STARTED" && self.declared.is_none() {
            self.declared = value
                .and_then(|e| e.get("protocolVersion"))
                .and_then(Value::as_str)
                .map(str::to_owned);
        }
        kind.clone_into(&mut self.last_type);
        let own = at_place
            .remove(&Place::Event(entry, recorded.record))
            .unwrap_or_default();
        let event_anchor = format!("{}-e{n}", self.anchor);
        let mut row_worst = "clean";
        for &f in &own {
            findings[f].at = Some(event_anchor.clone());
            findings[f].run = title.clone();
            row_worst = worse(row_worst, findings[f].severity);
        }
        self.worst = worse(self.worst, row_worst);
        self.event_worst.push(row_worst);
        self.stamps.push(
            value
                .and_then(|e| e.get("timestamp"))
                .and_then(Value::as_f64),
        );
        if let Some(value) = value {
            self.lanes.push(n, value);
            self.history.push(n, value);
        }
        if own.is_empty() && (n >= LISTED_EVENTS || shown.rows >= LISTED_ON_A_PAGE) {
            self.left_out += 1;
            return;
        }
        shown.rows += 1;
        self.rows.push(EventRow {
            index: n,
            anchor: event_anchor,
            origin: recorded.origin.clone(),
            event_type: recorded
                .event_type()
                .map_or_else(|| "(not an event)".to_owned(), str::to_owned),
            summary: value.map_or_else(
                || clip(&String::from_utf8_lossy(&recorded.raw), 200),
                event_summary,
            ),
            findings: own,
            worst: row_worst,
        });
    }

    /// The run's view: drawn whole while the page draws runs, or when it
    /// has findings; else one line of the outline (its rows given back).
    fn finish(mut self, shown: &mut Shown, findings: &mut [FindingView]) -> RunView {
        let drawn =
            shown.runs < DRAWN_RUNS || (self.worst == "error" && shown.runs < DRAWN_WITH_ERRORS);
        if drawn {
            shown.runs += 1;
        } else {
            // Its findings point at its line of the outline.
            for row in &self.rows {
                for &f in &row.findings {
                    findings[f].at = Some(self.anchor.clone());
                }
            }
            shown.rows -= self.rows.len();
            self.left_out += self.rows.len();
            self.rows = Vec::new();
        }
        let ended = match self.last_type.as_str() {
            "RUN_FINISHED" => "finished",
            "RUN_ERROR" => "error",
            _ => "open",
        };
        let (bars, bars_left_out) = if drawn {
            self.lanes.finish(self.count)
        } else {
            (Vec::new(), 0)
        };
        let (places, by_time) = positions(&self.stamps);
        let (mut states, states_left_out) = if drawn {
            self.history.finish()
        } else {
            (Vec::new(), 0)
        };
        for step in &mut states {
            let bytes = step.value.as_ref().map_or(0, String::len);
            if shown.state_text + bytes > STATE_TEXT_ON_A_PAGE {
                step.value = None;
                step.value_left_out = true;
            } else {
                shown.state_text += bytes;
            }
        }
        RunView {
            title: self.title.unwrap_or_else(|| "events".to_owned()),
            ended,
            event_count: self.count,
            timeline: timeline(
                &self.anchor,
                &bars,
                bars_left_out,
                &places,
                by_time,
                &self.event_worst,
            ),
            anchor: self.anchor,
            declared: self.declared,
            judged: self.judged,
            events: self.rows,
            events_left_out: self.left_out,
            states,
            states_left_out,
            worst: self.worst,
            drawn,
        }
    }
}

/// The conversation the official client holds after `exchange`'s
/// response (the request's messages with what the run streamed applied,
/// as it builds its next request), and why it is not shown whole.
fn conversation_of(
    exchange: &Exchange,
    body: Option<&[u8]>,
    request: Option<&Value>,
) -> (Vec<(String, String)>, Option<String>) {
    if exchange.layout == BodyLayout::Proto || exchange.other_media_type.is_some() {
        return (Vec::new(), None);
    }
    let json_lines = exchange.layout == BodyLayout::JsonLines;
    let Some(body) = body.filter(|body| body.len() <= CONVERSATION_BODY) else {
        return (
            Vec::new(),
            Some(format!(
                "not rebuilt: the response is over {} MiB",
                CONVERSATION_BODY >> 20
            )),
        );
    };
    let empty = Value::Object(serde_json::Map::new());
    let streamed = Streamed::read_within(request.unwrap_or(&empty), body, json_lines, STATE_LIMIT);
    let messages = streamed
        .messages
        .iter()
        .take(MAX_MESSAGES)
        .map(|m| (text_of(m.get("role")), message_text(m)))
        .collect();
    let note = match (
        streamed.messages.len() > MAX_MESSAGES,
        streamed.conversation_over,
    ) {
        (_, Some(why)) => Some(why),
        (true, None) => Some(format!(
            "{} more message(s) not shown",
            streamed.messages.len() - MAX_MESSAGES
        )),
        (false, None) => None,
    };
    (messages, note)
}

/// The most messages of a conversation shown.
const MAX_MESSAGES: usize = 200;

/// The most memory the client's view of a run keeps of its state.
const STATE_LIMIT: usize = 64 * 1024 * 1024;

fn text_of(value: Option<&Value>) -> String {
    value
        .and_then(Value::as_str)
        .map(str::to_owned)
        .unwrap_or_default()
}

/// A message's content as text: its string, its parts, or its tool calls.
fn message_text(message: &Value) -> String {
    let text = match message.get("content") {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Null) | None => message
            .get("toolCalls")
            .map(|calls| format!("tool calls: {calls}"))
            .unwrap_or_default(),
        Some(other) => other.to_string(),
    };
    clip(&text, SHOWN_TEXT)
}

fn request_view(request: &Value) -> RequestView {
    let text = |v: Option<&Value>| {
        v.and_then(Value::as_str)
            .map(str::to_owned)
            .unwrap_or_default()
    };
    let messages = request
        .get("messages")
        .and_then(Value::as_array)
        .map(|messages| {
            messages
                .iter()
                .map(|m| (text(m.get("role")), message_text(m)))
                .collect()
        })
        .unwrap_or_default();
    let tools = request
        .get("tools")
        .and_then(Value::as_array)
        .map(|tools| {
            tools
                .iter()
                .map(|t| ToolView {
                    name: text(t.get("name")),
                    description: clip(&text(t.get("description")), SHOWN_TEXT),
                    parameters: clip(
                        &t.get("parameters")
                            .and_then(|p| serde_json::to_string_pretty(p).ok())
                            .unwrap_or_default(),
                        SHOWN_TEXT,
                    ),
                })
                .collect()
        })
        .unwrap_or_default();
    RequestView {
        thread: text(request.get("threadId")),
        run: text(request.get("runId")),
        protocol: request
            .get("protocolVersion")
            .and_then(Value::as_str)
            .map(str::to_owned),
        messages,
        tools,
        state: request
            .get("state")
            .and_then(|s| serde_json::to_string_pretty(s).ok())
            .map(|s| clip(&s, SHOWN_TEXT)),
    }
}

/// The worst severity of a source, as a word.
pub(crate) fn worst_of(source: &SourceView) -> &'static str {
    source.counts.worst()
}
