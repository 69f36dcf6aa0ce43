//! A run's lanes laid out for drawing: where each bar and each finding's
//! mark sits on the timeline, in SVG units, on the events' own clock when
//! they all carry one, in their order otherwise. The template draws them.

use serde::Serialize;

use super::lanes::{Bar, Lane};
use super::text::clip;
use super::text::worse;

/// A run's lanes, laid out for drawing (empty for a run not drawn).
#[derive(Debug, Default, Serialize)]
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
    /// Items not drawn (past the most a run draws).
    pub rows_left_out: usize,
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
    /// A tool call's arguments as assembled (shown beside the drawing).
    pub full_text: Option<String>,
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

/// Width of the drawing, and of the labels' column, in SVG units.
const WIDTH: u32 = 960;
const LABELS: u32 = 200;
const ROW: u32 = 22;
/// The most bars drawn for a run.
const MAX_ROWS: usize = 300;

/// Where each event sits on the time axis, from 0 to 1: by the events'
/// own `timestamp`s when every event has one and they do not go back
/// (the capture's clock), else by their order. And which it was.
pub(super) fn positions(stamps: &[Option<f64>]) -> (Vec<f64>, bool) {
    let all: Option<Vec<f64>> = stamps.iter().copied().collect();
    if let Some(stamps) = all.filter(|s| s.len() > 1 && s.windows(2).all(|w| w[0] <= w[1])) {
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
    let n = stamps.len().max(1) as f64;
    ((0..stamps.len()).map(|i| i as f64 / n).collect(), false)
}

pub(super) fn timeline(
    anchor: &str,
    bars: &[Bar],
    bars_left_out: usize,
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
                // The tool call's arguments are shown whole beside the
                // drawing; a bar's tooltip carries the start of its text.
                text: clip(&bar.text, 160),
                full_text: (bar.lane == Lane::ToolCall).then(|| bar.text.clone()),
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
        rows_left_out: bars.len().saturating_sub(MAX_ROWS) + bars_left_out,
        rows,
        marks,
        by_time,
    }
}
