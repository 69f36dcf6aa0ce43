//! A run's timeline followed as its response passes, for the live view:
//! the body's events framed as they come, laid out in lanes as the report
//! lays them out (messages, reasoning, tool calls with their arguments,
//! steps, activities, subagents), and each bar that changed told to the
//! page, so that it draws the run while it streams.

use agui_lint::unstable::recording::capture::{BodyLayout, RecordedEvent};
use agui_lint::unstable::recording::framing::EventFramer;
use agui_lint::Limits;
use serde_json::{json, Value};

use crate::page::lanes::{Bar, Lanes};
use crate::page::text::head;

/// The most text of a bar the page is sent (the title it shows on
/// hover); the report of the ended run shows all it keeps.
const TEXT_SENT: usize = 160;

/// The most of a bar's label (a tool's name, a role) the page is sent.
const LABEL_SENT: usize = 120;

/// The most bars of a run the page is told of (as many as it draws): a
/// message is a few dozen kilobytes at most, whatever the stream.
const BARS_SENT: usize = 300;

/// One response's timeline, followed as its bytes pass.
pub(crate) struct LiveTimeline {
    framer: EventFramer,
    laid_out: LaidOut,
}

/// The lanes of the events framed so far.
struct LaidOut {
    lanes: Lanes,
    /// Events framed so far.
    events: usize,
}

impl LiveTimeline {
    /// Follows a body laid out as `layout`.
    pub(crate) fn new(layout: BodyLayout) -> LiveTimeline {
        LiveTimeline {
            framer: EventFramer::new(layout, Limits::default().max_document_bytes, ""),
            laid_out: LaidOut {
                lanes: Lanes::followed(BARS_SENT),
                events: 0,
            },
        }
    }

    /// The next `piece` of the body: the bars it changed, as the page
    /// reads them.
    pub(crate) fn feed(&mut self, piece: &[u8]) -> Vec<Value> {
        let laid_out = &mut self.laid_out;
        self.framer.push(piece, &mut |event| laid_out.event(event));
        laid_out.touched(&[])
    }

    /// The body ended: the bars the end changed, those no event closed
    /// marked open.
    pub(crate) fn finish(self) -> Vec<Value> {
        let LiveTimeline {
            framer,
            mut laid_out,
        } = self;
        framer.finish(&mut |event| laid_out.event(event));
        let open = laid_out.lanes.left_open();
        let last = laid_out.events.saturating_sub(1);
        let mut changed = laid_out.touched(&open);
        for &at in &open {
            if let Some(bar) = laid_out.lanes.bar(at) {
                if !changed.iter().any(|v| v["at"] == at) {
                    changed.push(bar_message(at, bar, Some(last)));
                }
            }
        }
        changed
    }

    /// Events framed so far.
    #[cfg(test)]
    fn events(&self) -> usize {
        self.laid_out.events
    }
}

impl LaidOut {
    fn event(&mut self, event: RecordedEvent) {
        if let Some(value) = &event.value {
            self.lanes.push(self.events, value);
        }
        self.events += 1;
    }

    /// The bars changed since last told; those in `open` run to the last
    /// event, marked open.
    fn touched(&mut self, open: &[usize]) -> Vec<Value> {
        let last = self.events.saturating_sub(1);
        let touched = self.lanes.take_touched();
        touched
            .into_iter()
            .filter_map(|at| {
                let bar = self.lanes.bar(at)?;
                Some(bar_message(at, bar, open.contains(&at).then_some(last)))
            })
            .collect()
    }
}

/// Bar `at` as the page draws it; `open_to`, the last event when no event
/// closed it.
fn bar_message(at: usize, bar: &Bar, open_to: Option<usize>) -> Value {
    json!({
        "at": at,
        "lane": bar.lane.title(),
        "label": head(&bar.label, LABEL_SENT),
        "start": bar.start,
        "end": open_to.unwrap_or(bar.end),
        "open": open_to.is_some(),
        "pieces": bar.pieces,
        "text": head(&bar.text, TEXT_SENT),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_run_of_many_items_is_told_of_its_first_bars_alone() {
        let mut timeline = LiveTimeline::new(BodyLayout::JsonLines);
        let mut stream = String::new();
        for n in 0..1_000 {
            stream.push_str(&format!(
                "{{\"type\":\"TOOL_CALL_START\",\"toolCallId\":\"c{n}\",\"toolCallName\":\"{}\"}}\n",
                "x".repeat(1_000)
            ));
        }
        let told = timeline.feed(stream.as_bytes());
        assert_eq!(told.len(), BARS_SENT);
        let bytes: usize = told.iter().map(|bar| bar.to_string().len()).sum();
        assert!(bytes < 500 * BARS_SENT, "{bytes}");
        assert_eq!(timeline.finish().len(), BARS_SENT);
    }

    #[test]
    fn bars_are_told_as_they_change_and_one_left_open_is_marked_at_the_end() {
        let mut timeline = LiveTimeline::new(BodyLayout::Sse);
        let first = timeline.feed(
            b"data: {\"type\":\"RUN_STARTED\",\"threadId\":\"t\",\"runId\":\"r\"}\n\ndata: {\"type\":\"TOOL_CALL_START\",\"toolCallId\":\"c\",\"toolCallName\":\"search\"}\n\ndata: {\"type\":\"TOOL_CALL_ARGS\",\"toolCallId\":\"c\",\"delta\":\"{\\\"q\\\"",
        );
        assert_eq!(first.len(), 1, "{first:?}");
        assert_eq!(first[0]["lane"], "tool call");
        assert_eq!(first[0]["label"], "search");
        assert_eq!(
            (first[0]["start"].as_u64(), first[0]["open"].as_bool()),
            (Some(1), Some(false))
        );
        let second = timeline.feed(
            b":1}\"}\n\ndata: {\"type\":\"TEXT_MESSAGE_START\",\"messageId\":\"m\",\"role\":\"assistant\"}\n\ndata: {\"type\":\"TEXT_MESSAGE_END\",\"messageId\":\"m\"}\n\n",
        );
        assert_eq!(timeline.events(), 5);
        let changed: Vec<(&str, u64)> = second
            .iter()
            .map(|b| {
                (
                    b["lane"].as_str().unwrap_or(""),
                    b["end"].as_u64().unwrap_or(0),
                )
            })
            .collect();
        assert_eq!(changed, [("tool call", 2), ("message", 4)]);
        assert_eq!(second[0]["text"], "{\"q\":1}");
        let end = timeline.finish();
        assert_eq!(end.len(), 1, "{end:?}");
        assert_eq!(end[0]["label"], "search");
        assert_eq!(
            (end[0]["end"].as_u64(), end[0]["open"].as_bool()),
            (Some(4), Some(true))
        );
    }
}
