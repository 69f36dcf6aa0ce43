//! A run's events laid out as lanes: each message, reasoning message, tool
//! call, step, activity and subagent run a bar from the event that opened
//! it to the one that closed it (or to the stream's end, marked open), with
//! the pieces it came in. What the timeline of the report draws.

use std::collections::HashMap;

use serde::Serialize;

use super::text::head;
use serde_json::Value;

/// The most text a bar keeps of what its pieces streamed.
const TEXT_KEPT: usize = 2_000;

/// What a bar stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, PartialOrd, Ord)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum Lane {
    /// A step (`STEP_STARTED` … `STEP_FINISHED`).
    Step,
    /// A text message.
    Message,
    /// A reasoning (or, before 1.1, thinking) message.
    Reasoning,
    /// A tool call, its arguments assembled.
    ToolCall,
    /// An activity message (snapshots and deltas).
    Activity,
    /// A subagent's invocation (`SUBAGENT_STARTED` … `SUBAGENT_FINISHED`),
    /// or a run started inside the run.
    Subagent,
}

impl Lane {
    /// The lane's name as the page shows it.
    pub(crate) fn title(self) -> &'static str {
        match self {
            Lane::Step => "step",
            Lane::Message => "message",
            Lane::Reasoning => "reasoning",
            Lane::ToolCall => "tool call",
            Lane::Activity => "activity",
            Lane::Subagent => "subagent",
        }
    }
}

/// One bar: an item from its first event to its last.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Bar {
    pub lane: Lane,
    /// The item's id (message id, tool call id, step name, run id).
    pub id: String,
    /// What the page says of it: a role, a tool's name.
    pub label: String,
    /// The 0-based index in the run of the event that opened it.
    pub start: usize,
    /// The index of the event that closed it, or of the run's last event
    /// when none did.
    pub end: usize,
    /// Whether no event closed it before the run's end.
    pub open: bool,
    /// How many pieces (content, argument or delta events) it came in.
    pub pieces: usize,
    /// The text its pieces streamed, assembled (the first
    /// [`TEXT_KEPT`] bytes).
    pub text: String,
}

/// Which lane an event opens, continues or closes, and the id it names.
enum Step<'a> {
    Open(Lane, &'a str, String),
    Piece(Lane, &'a str, Option<&'a str>),
    Close(Lane, &'a str),
    /// A chunk: opens its item when it is new, else is a piece of it.
    Chunk(Lane, &'a str, String, Option<&'a str>),
    Other,
}

fn str_of<'a>(event: &'a Value, field: &str) -> Option<&'a str> {
    event.get(field)?.as_str()
}

fn step_of(event: &Value) -> Step<'_> {
    let kind = str_of(event, "type").unwrap_or("");
    let message = || str_of(event, "messageId").unwrap_or("");
    let call = || str_of(event, "toolCallId").unwrap_or("");
    let role = || str_of(event, "role").unwrap_or("assistant").to_owned();
    match kind {
        "STEP_STARTED" => Step::Open(
            Lane::Step,
            str_of(event, "stepName").unwrap_or(""),
            String::new(),
        ),
        "STEP_FINISHED" => Step::Close(Lane::Step, str_of(event, "stepName").unwrap_or("")),
        "TEXT_MESSAGE_START" => Step::Open(Lane::Message, message(), role()),
        "TEXT_MESSAGE_CONTENT" => Step::Piece(Lane::Message, message(), str_of(event, "delta")),
        "TEXT_MESSAGE_END" => Step::Close(Lane::Message, message()),
        "TEXT_MESSAGE_CHUNK" => {
            Step::Chunk(Lane::Message, message(), role(), str_of(event, "delta"))
        }
        "REASONING_START" | "REASONING_MESSAGE_START" | "THINKING_TEXT_MESSAGE_START" => {
            Step::Open(Lane::Reasoning, message(), "reasoning".to_owned())
        }
        "REASONING_MESSAGE_CONTENT" | "THINKING_TEXT_MESSAGE_CONTENT" => {
            Step::Piece(Lane::Reasoning, message(), str_of(event, "delta"))
        }
        "REASONING_END" | "REASONING_MESSAGE_END" | "THINKING_TEXT_MESSAGE_END" => {
            Step::Close(Lane::Reasoning, message())
        }
        "REASONING_MESSAGE_CHUNK" => Step::Chunk(
            Lane::Reasoning,
            message(),
            "reasoning".to_owned(),
            str_of(event, "delta"),
        ),
        "TOOL_CALL_START" => Step::Open(
            Lane::ToolCall,
            call(),
            str_of(event, "toolCallName").unwrap_or("").to_owned(),
        ),
        "TOOL_CALL_ARGS" => Step::Piece(Lane::ToolCall, call(), str_of(event, "delta")),
        "TOOL_CALL_END" => Step::Close(Lane::ToolCall, call()),
        "TOOL_CALL_CHUNK" => Step::Chunk(
            Lane::ToolCall,
            call(),
            str_of(event, "toolCallName").unwrap_or("").to_owned(),
            str_of(event, "delta"),
        ),
        "SUBAGENT_STARTED" => Step::Open(
            Lane::Subagent,
            str_of(event, "subagentRunId").unwrap_or(""),
            str_of(event, "name").unwrap_or("").to_owned(),
        ),
        "SUBAGENT_FINISHED" => {
            Step::Close(Lane::Subagent, str_of(event, "subagentRunId").unwrap_or(""))
        }
        "ACTIVITY_SNAPSHOT" | "ACTIVITY_DELTA" => Step::Chunk(
            Lane::Activity,
            message(),
            str_of(event, "activityType").unwrap_or("").to_owned(),
            None,
        ),
        _ => Step::Other,
    }
}

/// The most bars a run keeps: the page draws the first of them, and
/// counts the rest.
const MAX_BARS: usize = 2_000;

/// A run's bars, built as its events come (its own `RUN_STARTED` first,
/// when it has one); subagents are `SUBAGENT_STARTED` invocations and runs
/// started while it is open.
#[derive(Debug, Default)]
pub(crate) struct Lanes {
    bars: Vec<Bar>,
    /// Open items by lane and id: the index of their bar.
    open: HashMap<(Lane, String), usize>,
    /// Bars opened by a chunk: they close by going quiet.
    chunked: std::collections::HashSet<usize>,
    runs_open: usize,
    /// Items past [`MAX_BARS`], counted and not kept.
    left_out: usize,
    /// Bars changed since they were last taken, when followed live
    /// ([`Lanes::followed`]).
    touched: Option<Vec<usize>>,
    /// The most bars kept, when fewer than [`MAX_BARS`].
    most: Option<usize>,
}

impl Lanes {
    /// Lanes whose changed bars are told as they change
    /// ([`Lanes::take_touched`]), `most` bars at most: the proxy's live
    /// view.
    pub(crate) fn followed(most: usize) -> Lanes {
        Lanes {
            touched: Some(Vec::new()),
            most: Some(most.min(MAX_BARS)),
            ..Lanes::default()
        }
    }

    fn touch(&mut self, at: usize) {
        if let Some(touched) = self.touched.as_mut() {
            if touched.last() != Some(&at) {
                touched.push(at);
            }
        }
    }

    /// The bars changed since last asked, each once, in the order they
    /// opened.
    pub(crate) fn take_touched(&mut self) -> Vec<usize> {
        let mut touched = self
            .touched
            .as_mut()
            .map(std::mem::take)
            .unwrap_or_default();
        touched.sort_unstable();
        touched.dedup();
        touched
    }

    /// The `at`-th bar opened.
    pub(crate) fn bar(&self, at: usize) -> Option<&Bar> {
        self.bars.get(at)
    }

    /// The bars no event closed (a chunk stream or an activity closes by
    /// going quiet, and is not among them): open at the stream's end.
    pub(crate) fn left_open(&self) -> Vec<usize> {
        let mut open: Vec<usize> = self
            .open
            .values()
            .copied()
            .filter(|at| !self.chunked.contains(at))
            .collect();
        open.sort_unstable();
        open
    }

    /// Opens a bar, unless the run keeps no more.
    fn open(&mut self, lane: Lane, id: &str, label: String, index: usize) -> Option<usize> {
        if self.bars.len() >= self.most.unwrap_or(MAX_BARS) {
            self.left_out += 1;
            return None;
        }
        let at = self.bars.len();
        self.bars.push(bar(lane, id, label, index));
        self.open.insert((lane, id.to_owned()), at);
        self.touch(at);
        Some(at)
    }

    /// Follows the run's `index`-th event.
    pub(crate) fn push(&mut self, index: usize, event: &Value) {
        let kind = str_of(event, "type").unwrap_or("");
        match kind {
            "RUN_STARTED" => {
                self.runs_open += 1;
                if self.runs_open > 1 {
                    let id = str_of(event, "runId").unwrap_or("");
                    self.open(Lane::Subagent, id, "run".to_owned(), index);
                }
                return;
            }
            "RUN_FINISHED" | "RUN_ERROR" => {
                if self.runs_open > 1 {
                    let id = str_of(event, "runId").unwrap_or("").to_owned();
                    let found = self.open.remove(&(Lane::Subagent, id)).or_else(|| {
                        // A RUN_ERROR names no run: the latest subagent run.
                        let latest = self
                            .open
                            .iter()
                            .filter(|((lane, _), at)| {
                                *lane == Lane::Subagent && self.bars[**at].label == "run"
                            })
                            .max_by_key(|(_, at)| **at)
                            .map(|(key, _)| key.clone())?;
                        self.open.remove(&latest)
                    });
                    if let Some(at) = found {
                        self.bars[at].end = index;
                        self.touch(at);
                    }
                }
                self.runs_open = self.runs_open.saturating_sub(1);
                return;
            }
            _ => {}
        }
        match step_of(event) {
            Step::Open(lane, id, label) => {
                self.open(lane, id, label, index);
            }
            Step::Piece(lane, id, delta) => {
                if let Some(&at) = self.open.get(&(lane, id.to_owned())) {
                    piece(&mut self.bars[at], index, delta);
                    self.touch(at);
                }
            }
            Step::Close(lane, id) => {
                if let Some(at) = self.open.remove(&(lane, id.to_owned())) {
                    self.bars[at].end = index;
                    self.touch(at);
                }
            }
            Step::Chunk(lane, id, label, delta) => {
                let at = match self.open.get(&(lane, id.to_owned())) {
                    Some(&at) => Some(at),
                    None => {
                        let at = self.open(lane, id, label, index);
                        if let Some(at) = at {
                            self.chunked.insert(at);
                        }
                        at
                    }
                };
                if let Some(at) = at {
                    piece(&mut self.bars[at], index, delta);
                    self.touch(at);
                }
            }
            Step::Other => {}
        }
    }

    /// The bars of a run of `events` events, in lane order, and how many
    /// items were not kept.
    pub(crate) fn finish(mut self, events: usize) -> (Vec<Bar>, usize) {
        let last = events.saturating_sub(1);
        for at in self.open.into_values() {
            // Chunk streams and activities close by going quiet: their
            // last piece is their end. The others were left open.
            if !self.chunked.contains(&at) {
                self.bars[at].open = true;
                self.bars[at].end = last;
            }
        }
        self.bars.sort_by_key(|bar| (bar.lane, bar.start));
        (self.bars, self.left_out)
    }
}

fn bar(lane: Lane, id: &str, label: String, index: usize) -> Bar {
    Bar {
        lane,
        id: id.to_owned(),
        label,
        start: index,
        end: index,
        open: false,
        pieces: 0,
        text: String::new(),
    }
}

fn piece(bar: &mut Bar, index: usize, delta: Option<&str>) {
    bar.pieces += 1;
    bar.end = index;
    if let Some(delta) = delta {
        let room = TEXT_KEPT.saturating_sub(bar.text.len());
        if room > 0 {
            bar.text.push_str(head(delta, room));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_call_left_open_runs_to_the_end_and_its_pieces_are_assembled() {
        let events = [
            json!({"type": "RUN_STARTED", "threadId": "t", "runId": "r"}),
            json!({"type": "TOOL_CALL_START", "toolCallId": "c", "toolCallName": "search"}),
            json!({"type": "TOOL_CALL_ARGS", "toolCallId": "c", "delta": "{\"q\":"}),
            json!({"type": "TEXT_MESSAGE_START", "messageId": "m", "role": "assistant"}),
            json!({"type": "TEXT_MESSAGE_END", "messageId": "m"}),
            json!({"type": "TOOL_CALL_ARGS", "toolCallId": "c", "delta": "1}"}),
            json!({"type": "RUN_FINISHED", "threadId": "t", "runId": "r"}),
        ];
        let mut lanes = Lanes::default();
        for (index, event) in events.iter().enumerate() {
            lanes.push(index, event);
        }
        let (bars, _) = lanes.finish(events.len());
        assert_eq!(bars.len(), 2);
        let (message, call) = (&bars[0], &bars[1]);
        assert_eq!((call.lane, call.label.as_str()), (Lane::ToolCall, "search"));
        assert_eq!((call.start, call.end, call.open), (1, 6, true));
        assert_eq!((call.pieces, call.text.as_str()), (2, "{\"q\":1}"));
        assert_eq!((message.start, message.end, message.open), (3, 4, false));
    }
}
