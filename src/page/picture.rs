//! What the page shows of one capture: its exchanges, each request's
//! messages, tools and state, each run's events, lanes and state history,
//! and every finding placed at the event (or request) it points to.
//!
//! Built from the capture read as exchanges (`recording::read_capture`)
//! and the documents `check` made of the same bytes: a finding's document
//! says which entry and which record it is, and each recorded event knows
//! its record number, so that no text is matched.

use std::collections::HashMap;

use agui_lint::unstable::kit::Streamed;
use agui_lint::unstable::recording::{BodyLayout, Capture, Exchange};
use agui_lint::{Checked, Context, Diagnostic, Severity};
use serde::Serialize;
use serde_json::Value;

use super::lanes::{self, Bar};
use super::state::{self, StateStep};

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
    pub states: Vec<StateStep>,
    pub states_left_out: usize,
    pub worst: &'static str,
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

/// A run's lanes, laid out for drawing.
#[derive(Debug, Serialize)]
pub(crate) struct Timeline {
    pub width: u32,
    pub height: u32,
    pub rows: Vec<Row>,
    /// Events drawn as ticks on the run's own row: `(x, severity, anchor)`
    /// of those with findings.
    pub marks: Vec<Mark>,
    /// Whether the axis is the events' own clock (their `timestamp`s)
    /// rather than their order.
    pub by_time: bool,
}

/// One bar's row.
#[derive(Debug, Serialize)]
pub(crate) struct Row {
    pub y: u32,
    pub x: u32,
    pub width: u32,
    pub lane: &'static str,
    pub lane_class: String,
    pub label: String,
    pub open: bool,
    pub pieces: usize,
    pub text: String,
    pub anchor: String,
    pub worst: &'static str,
}

/// A finding's mark on the timeline.
#[derive(Debug, Serialize)]
pub(crate) struct Mark {
    pub x: u32,
    pub y: u32,
    pub worst: &'static str,
    pub anchor: String,
    pub title: String,
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

fn worse(a: &'static str, b: &'static str) -> &'static str {
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

/// The view of the capture at `path`, read as `capture` (or not, and
/// why), whose documents with findings are `documents`.
pub(crate) fn source_view(
    index: usize,
    path: &str,
    capture: Result<Capture, String>,
    documents: &[Checked],
) -> SourceView {
    let mut counts = Counts::default();
    let mut findings: Vec<FindingView> = Vec::new();
    // The findings of each place, as indexes into `findings`.
    let mut at_place: HashMap<Place, Vec<usize>> = HashMap::new();
    for checked in documents {
        let place = place_of(checked);
        for diagnostic in checked.report.diagnostics() {
            counts.add(diagnostic.severity);
            at_place.entry(place).or_default().push(findings.len());
            findings.push(finding_view(index, findings.len(), checked, diagnostic));
        }
    }
    let (exchanges, unreadable) = match capture {
        Ok(capture) => (
            capture
                .exchanges
                .iter()
                .enumerate()
                .map(|(k, exchange)| {
                    exchange_view(index, k, exchange, &mut at_place, &mut findings)
                })
                .collect(),
            None,
        ),
        Err(why) => (Vec::new(), Some(why)),
    };
    SourceView {
        path: path.to_owned(),
        counts,
        exchanges,
        findings,
        unreadable,
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

fn exchange_view(
    source: usize,
    k: usize,
    exchange: &Exchange,
    at_place: &mut HashMap<Place, Vec<usize>>,
    findings: &mut [FindingView],
) -> ExchangeView {
    let anchor = format!("s{source}-x{k}");
    let request_value = exchange.request_value();
    let request_place = match (exchange.entry, exchange.request_line) {
        (Some(entry), _) => Some(Place::Request(Some(entry))),
        (None, Some(line)) => Some(Place::Event(None, line)),
        (None, None) => None,
    };
    let mut own: Vec<usize> = request_place
        .and_then(|place| at_place.remove(&place))
        .unwrap_or_default();
    if let Some(entry) = exchange.entry {
        own.extend(
            at_place
                .remove(&Place::Exchange(Some(entry)))
                .unwrap_or_default(),
        );
    }
    let title = match (exchange.entry, &exchange.request_line) {
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
    let runs = runs_of(exchange)
        .into_iter()
        .enumerate()
        .map(|(r, events)| {
            let run = run_view(
                &format!("{anchor}-r{r}"),
                exchange,
                &events,
                request_value.as_ref().and_then(|v| v.get("state")),
                at_place,
                findings,
            );
            worst = worse(worst, run.worst);
            run
        })
        .collect();
    let (conversation, conversation_note) = conversation_of(exchange, request_value.as_ref());
    ExchangeView {
        conversation,
        conversation_note,
        title,
        status: exchange.status,
        request: request_value.as_ref().map(request_view),
        findings: own,
        runs,
        worst,
        anchor,
    }
}

/// The conversation the official client holds after `exchange`'s
/// response (the request's messages with what the run streamed applied,
/// as it builds its next request), and why it is not shown whole.
fn conversation_of(
    exchange: &Exchange,
    request: Option<&Value>,
) -> (Vec<(String, String)>, Option<String>) {
    if exchange.layout == BodyLayout::Proto || exchange.other_media_type.is_some() {
        return (Vec::new(), None);
    }
    let json_lines = exchange.layout == BodyLayout::JsonLines;
    let rebuilt;
    let body: &[u8] = match &exchange.body {
        Some(body) => body,
        None => {
            rebuilt = exchange
                .events
                .iter()
                .flat_map(|e| e.raw.iter().copied().chain([b'\n']))
                .collect::<Vec<u8>>();
            &rebuilt
        }
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

/// The exchange's events split into runs: a run starts at a
/// `RUN_STARTED` met while no run is open (one inside an open run is a
/// subagent's, and stays in it); events before the first start a run of
/// their own.
fn runs_of(exchange: &Exchange) -> Vec<Vec<usize>> {
    let mut runs: Vec<Vec<usize>> = Vec::new();
    let mut depth = 0usize;
    for (i, event) in exchange.events.iter().enumerate() {
        let kind = event.event_type().unwrap_or("");
        if kind == "RUN_STARTED" {
            if depth == 0 {
                runs.push(Vec::new());
            }
            depth += 1;
        }
        match runs.last_mut() {
            Some(run) => run.push(i),
            None => runs.push(vec![i]),
        }
        if matches!(kind, "RUN_FINISHED" | "RUN_ERROR") {
            depth = depth.saturating_sub(1);
        }
    }
    runs
}

fn run_view(
    anchor: &str,
    exchange: &Exchange,
    indexes: &[usize],
    initial_state: Option<&Value>,
    at_place: &mut HashMap<Place, Vec<usize>>,
    findings: &mut [FindingView],
) -> RunView {
    let events: Vec<Option<&Value>> = indexes
        .iter()
        .map(|&i| exchange.events[i].value.as_ref())
        .collect();
    let first = events.first().copied().flatten();
    let run_id = first
        .and_then(|e| e.get("runId"))
        .and_then(Value::as_str)
        .unwrap_or("");
    let title = if run_id.is_empty() {
        "events".to_owned()
    } else {
        format!("run {run_id}")
    };
    let last_type = events
        .last()
        .copied()
        .flatten()
        .and_then(|e| e.get("type"))
        .and_then(Value::as_str)
        .unwrap_or("");
    let ended = match last_type {
        "RUN_FINISHED" => "finished",
        "RUN_ERROR" => "error",
        _ => "open",
    };
    let mut worst = "clean";
    let mut rows = Vec::new();
    let mut left_out = 0;
    let mut event_worst = vec!["clean"; indexes.len()];
    for (n, &i) in indexes.iter().enumerate() {
        let recorded = &exchange.events[i];
        let own = at_place
            .remove(&Place::Event(exchange.entry, recorded.record))
            .unwrap_or_default();
        let event_anchor = format!("{anchor}-e{n}");
        let mut row_worst = "clean";
        for &f in &own {
            findings[f].at = Some(event_anchor.clone());
            findings[f].run = title.clone();
            row_worst = worse(row_worst, findings[f].severity);
        }
        worst = worse(worst, row_worst);
        event_worst[n] = row_worst;
        if n >= LISTED_EVENTS && own.is_empty() {
            left_out += 1;
            continue;
        }
        let value = recorded.value.as_ref();
        rows.push(EventRow {
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
    let bars = lanes::bars(&events);
    let (places, by_time) = positions(&events);
    let declared = events
        .iter()
        .flatten()
        .find(|e| e.get("type").and_then(Value::as_str) == Some("RUN_STARTED"))
        .and_then(|e| e.get("protocolVersion"))
        .and_then(Value::as_str)
        .map(str::to_owned);
    let (states, states_left_out) = state::history(initial_state, &events);
    RunView {
        anchor: anchor.to_owned(),
        title,
        ended,
        event_count: indexes.len(),
        timeline: timeline(anchor, &bars, &places, by_time, &event_worst),
        declared,
        events: rows,
        events_left_out: left_out,
        states,
        states_left_out,
        worst,
    }
}

/// Width of the drawing, and of the labels' column, in SVG units.
const WIDTH: u32 = 960;
const LABELS: u32 = 200;
const ROW: u32 = 22;
/// The most bars drawn for a run.
const MAX_ROWS: usize = 300;

/// Where each event sits on the time axis, from 0 to 1: by the events'
/// own `timestamp`s when every event has one and they do not go back
/// (the capture's clock), else by their order. And which it was.
fn positions(events: &[Option<&Value>]) -> (Vec<f64>, bool) {
    let stamps: Option<Vec<f64>> = events
        .iter()
        .map(|e| e.and_then(|e| e.get("timestamp")).and_then(Value::as_f64))
        .collect();
    if let Some(stamps) = stamps.filter(|s| s.len() > 1 && s.windows(2).all(|w| w[0] <= w[1])) {
        let (first, last) = (stamps[0], stamps[stamps.len() - 1]);
        if last > first {
            return (
                stamps
                    .iter()
                    .map(|t| (t - first) / (last - first))
                    .collect(),
                true,
            );
        }
    }
    let n = events.len().max(1) as f64;
    ((0..events.len()).map(|i| i as f64 / n).collect(), false)
}

fn timeline(
    anchor: &str,
    bars: &[Bar],
    places: &[f64],
    by_time: bool,
    event_worst: &[&'static str],
) -> Timeline {
    let events = places.len();
    let span = (WIDTH - LABELS - 10) as f64;
    let x_of = |index: usize| {
        let at = places.get(index).copied().unwrap_or(if by_time {
            1.0
        } else {
            index as f64 / events.max(1) as f64
        });
        LABELS + (at * span) as u32
    };
    // Row 0 is the run itself, where findings are marked.
    let rows: Vec<Row> = bars
        .iter()
        .take(MAX_ROWS)
        .enumerate()
        .map(|(k, bar)| {
            let x = x_of(bar.start);
            let end = x_of(bar.end + 1).max(x_of(bar.end) + 3);
            let worst = event_worst[bar.start..=bar.end.min(events.saturating_sub(1))]
                .iter()
                .fold("clean", |a, b| worse(a, b));
            Row {
                y: (k as u32 + 1) * ROW,
                x,
                width: end.saturating_sub(x).max(3),
                lane: bar.lane.title(),
                lane_class: bar.lane.title().replace(' ', "-"),
                label: clip(
                    &if bar.label.is_empty() {
                        bar.id.clone()
                    } else {
                        format!("{} {}", bar.label, bar.id)
                    },
                    24,
                ),
                open: bar.open,
                pieces: bar.pieces,
                text: bar.text.clone(),
                anchor: format!("{anchor}-e{}", bar.start),
                worst,
            }
        })
        .collect();
    let marks = event_worst
        .iter()
        .enumerate()
        .filter(|(_, w)| **w != "clean")
        .map(|(n, w)| Mark {
            x: x_of(n),
            y: 0,
            worst: w,
            anchor: format!("{anchor}-e{n}"),
            title: format!("event {}: {w}", n + 1),
        })
        .collect();
    Timeline {
        width: WIDTH,
        height: (rows.len() as u32 + 2) * ROW,
        rows,
        marks,
        by_time,
    }
}

/// A line saying what an event carries: its ids and its text.
fn event_summary(event: &Value) -> String {
    let mut parts = Vec::new();
    for field in [
        "runId",
        "messageId",
        "toolCallId",
        "toolCallName",
        "stepName",
        "role",
        "delta",
        "content",
        "message",
        "code",
    ] {
        if let Some(value) = event.get(field) {
            let text = match value {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            parts.push(format!("{field}: {}", clip(&text, 120)));
        }
    }
    parts.join(" · ")
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

/// `text` cut to at most `max` bytes, on a character boundary, `…` added
/// when cut.
fn clip(text: &str, max: usize) -> String {
    if text.len() <= max {
        return text.to_owned();
    }
    let mut cut = max;
    while !text.is_char_boundary(cut) {
        cut -= 1;
    }
    format!("{}…", &text[..cut])
}

/// The worst severity of a source, as a word.
pub(crate) fn worst_of(source: &SourceView) -> &'static str {
    source.counts.worst()
}
