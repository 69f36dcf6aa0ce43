//! What the page shows, as the template reads it: one capture's view,
//! its exchanges, requests, runs, events and findings, with the budgets
//! that keep a page of any capture one a browser opens. Built by
//! [`super::picture`] (a capture and its exchanges), [`super::run`] (a
//! run) and [`super::conversation`] (a request and the client's
//! conversation).

use agui_lint::{Checked, Context, Severity};
use serde::Serialize;

use super::lazy::Lazy;
use super::state::StateStep;
use super::timeline::Timeline;

/// The most events of a run listed one by one (those with findings are
/// always listed).
pub(super) const LISTED_EVENTS: usize = 500;

/// One capture as the page shows it.
#[derive(Debug, Serialize)]
pub(crate) struct SourceView {
    pub path: String,
    pub counts: Counts,
    pub exchanges: Vec<ExchangeView>,
    /// The capture's first findings, in order (at most
    /// [`LISTED_FINDINGS`]).
    pub findings: Lazy<FindingView>,
    /// Why the capture could not be read as exchanges, when it could not
    /// (its findings are still listed).
    pub unreadable: Option<String>,
    /// Every finding, by rule.
    pub by_rule: Vec<(String, usize)>,
    /// Findings past the most a table lists
    /// ([`LISTED_FINDINGS`]): in the page's data, which its script
    /// pages through.
    pub more_findings: usize,
}

/// Findings by severity.
#[derive(Debug, Default, Clone, Copy, Serialize)]
pub(crate) struct Counts {
    pub errors: usize,
    pub warnings: usize,
    pub infos: usize,
}

impl Counts {
    pub(super) fn add(&mut self, severity: Severity) {
        match severity {
            Severity::Error => self.errors += 1,
            Severity::Warning => self.warnings += 1,
            Severity::Info => self.infos += 1,
        }
    }

    /// The most serious severity counted, as a word.
    pub(super) fn worst(&self) -> &'static str {
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
    /// More of them, past the listed ones.
    pub more_findings: usize,
    pub runs: Lazy<RunView>,
    /// How many of them are lines of the outline (not drawn whole).
    pub outline_runs: usize,
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
    pub events: Lazy<EventRow>,
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
    /// More of them, past the listed ones.
    pub more_findings: usize,
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
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(super) enum Place {
    Request(Option<usize>),
    Event(Option<usize>, usize),
    Exchange(Option<usize>),
    Capture,
}

pub(super) fn place_of(checked: &Checked) -> Place {
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

/// The most event rows a page lists in all (rows with findings past it are
/// still listed): a capture of millions of events gets a page a browser
/// opens, each run's outline and findings whole.
pub(super) const LISTED_ON_A_PAGE: usize = 20_000;

/// The most runs a page draws whole (timeline, state, events): past it,
/// a run without findings is one line of the page's outline.
pub(super) const DRAWN_RUNS: usize = 300;

/// Past [`DRAWN_RUNS`], runs with errors are still drawn whole, up to this
/// many runs drawn in all.
pub(super) const DRAWN_WITH_ERRORS: usize = 1_000;

/// The most text of state values a page shows in all; past it, a change
/// shows its operations alone.
pub(super) const STATE_TEXT_ON_A_PAGE: usize = 8 * 1024 * 1024;

/// What the page shows so far, across its captures: the budget of rows
/// and drawings a browser can open.
#[derive(Debug, Default)]
pub(crate) struct Shown {
    /// Event rows listed.
    pub(super) rows: usize,
    /// Runs drawn whole.
    pub(super) runs: usize,
    /// Bytes of state values shown.
    pub(super) state_text: usize,
}

/// The most findings kept whole and listed in a capture's table; the
/// rest are written into the page's data and listed by its script.
pub(super) const LISTED_FINDINGS: usize = 10_000;

/// The largest response the client's conversation is rebuilt from.
pub(super) const CONVERSATION_BODY: usize = 16 * 1024 * 1024;
