//! One run of an exchange as the page shows it, built as its events come:
//! its rows (the first events listed one by one, every event with a
//! finding), its lanes and timeline, its state history, the findings
//! placed at their events, and the worst of them.

use agui_lint::unstable::recording::RecordedEvent;
use serde_json::Value;

use super::lanes::Lanes;
use super::lazy::Lazy;
use super::more::{MoreCount, Placed, Target};
use super::state::History;
use super::text::{clip, event_summary, worse};
use super::timeline::{positions, timeline, Timeline};
use super::views::{
    EventRow, FindingView, Place, RunView, Shown, DRAWN_RUNS, DRAWN_WITH_ERRORS, LISTED_EVENTS,
    LISTED_ON_A_PAGE, STATE_TEXT_ON_A_PAGE,
};

/// A run's view, built as its events come.
pub(super) struct RunBuilder {
    anchor: String,
    /// Its exchange's index in the capture, and its own in the exchange.
    at: (usize, usize),
    /// Places of its listed events with findings past the listed ones.
    more_places: Vec<Place>,
    /// The version its records with findings were judged as, when known.
    pub(super) judged: Option<&'static str>,
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
    /// Whether it may be drawn whole: a run that starts once the page has
    /// drawn all it draws is a line of the outline, and nothing is built
    /// for its drawing (lanes, state, rows).
    drawable: bool,
}

impl RunBuilder {
    /// A run at `anchor`, run `at.1` of exchange `at.0`, whose request's
    /// state is `state`; `shown`, what the page shows so far.
    pub(super) fn new(
        anchor: String,
        at: (usize, usize),
        state: Option<&Value>,
        shown: &Shown,
    ) -> Self {
        let drawable = shown.runs < DRAWN_WITH_ERRORS.max(DRAWN_RUNS);
        RunBuilder {
            anchor,
            at,
            more_places: Vec::new(),
            judged: None,
            title: None,
            rows: Vec::new(),
            left_out: 0,
            count: 0,
            lanes: Lanes::default(),
            history: History::new(state.filter(|_| drawable)),
            stamps: Vec::new(),
            event_worst: Vec::new(),
            declared: None,
            last_type: String::new(),
            worst: "clean",
            drawable,
        }
    }

    pub(super) fn event(
        &mut self,
        recorded: &RecordedEvent,
        entry: Option<usize>,
        placed: &mut Placed,
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
        if kind == "RUN_STARTED" && self.declared.is_none() {
            self.declared = value
                .and_then(|e| e.get("protocolVersion"))
                .and_then(Value::as_str)
                .map(str::to_owned);
        }
        kind.clone_into(&mut self.last_type);
        let place = Place::Event(entry, recorded.record);
        let listed = self.drawable && n < LISTED_EVENTS && shown.rows < LISTED_ON_A_PAGE;
        let (x, r) = self.at;
        let (own, more) = placed.take(
            place,
            if listed {
                Target::event(x, r, n)
            } else {
                Target::run(x, r)
            },
        );
        let mut past = MoreCount::default();
        past.add(more);
        // A run that will not be drawn points its findings at its line of
        // the outline.
        let event_anchor = if self.drawable {
            format!("{}-e{n}", self.anchor)
        } else {
            self.anchor.clone()
        };
        let mut row_worst = past.worst;
        for &f in &own {
            findings[f].at = Some(event_anchor.clone());
            findings[f].run = self.title.clone().unwrap_or_default();
            row_worst = worse(row_worst, findings[f].severity);
        }
        self.worst = worse(self.worst, row_worst);
        if !self.drawable {
            self.left_out += 1;
            return;
        }
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
        if own.is_empty() && !listed {
            self.left_out += 1;
            return;
        }
        if past.count > 0 {
            self.more_places.push(place);
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
            more_findings: past.count,
            worst: row_worst,
        });
    }

    /// The run's view: drawn whole while the page draws runs, or when it
    /// has findings; else one line of the outline (its rows given back).
    pub(super) fn finish(
        mut self,
        shown: &mut Shown,
        placed: &mut Placed,
        findings: &mut [FindingView],
    ) -> RunView {
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
            let (x, r) = self.at;
            for &place in &self.more_places {
                placed.show_at(place, Target::run(x, r));
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
            timeline: if drawn {
                timeline(
                    &self.anchor,
                    &bars,
                    bars_left_out,
                    &places,
                    by_time,
                    &self.event_worst,
                )
            } else {
                Timeline::default()
            },
            anchor: self.anchor,
            declared: self.declared,
            judged: self.judged,
            events: Lazy::new(self.rows),
            events_left_out: self.left_out,
            states,
            states_left_out,
            worst: self.worst,
            drawn,
        }
    }
}
