//! Recorded exchanges served again (`agui-lint replay`): which recording
//! answers a request ([`Chooser`]), and the response it becomes
//! ([`playback`]): the recorded body cut at its events, each piece after the
//! wait the recording shows between them, ids fitted to the request.

use std::ops::Range;
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;

use super::capture::{BodyLayout, Exchange};
use super::rewrite::{recorded_ids, IdRewrite};

/// The longest wait between two pieces at the recorded pace: a gap in a
/// recording longer than this (a tool that ran for minutes, a clock that
/// jumped) is cut to it.
pub const MAX_GAP: Duration = Duration::from_secs(10);

/// How fast a recording is served.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pace {
    /// Every piece at once.
    Fast,
    /// Each event after the time its `timestamp` shows since the one
    /// before (at most [`MAX_GAP`]); events without timestamps at once.
    Recorded,
}

/// How a recording is picked for a request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Matching {
    /// The recordings in order, from the first again after the last.
    Order,
    /// The first unserved recording whose request's last user message is
    /// the request's, else whose `threadId` is the request's, else the
    /// next in order.
    Request,
}

/// Picks the recording that answers each request.
#[derive(Debug)]
pub struct Chooser {
    matching: Matching,
    /// Per recording: its request's last user message text and thread id.
    keys: Vec<(Option<String>, Option<String>)>,
    served: Vec<bool>,
    next: usize,
}

impl Chooser {
    /// A chooser over `exchanges`.
    pub fn new(exchanges: &[Exchange], matching: Matching) -> Self {
        let keys = exchanges
            .iter()
            .map(|exchange| {
                let request = exchange.request_value();
                (
                    request.as_ref().and_then(last_user_text),
                    request.as_ref().and_then(thread_id),
                )
            })
            .collect();
        Chooser {
            matching,
            keys,
            served: vec![false; exchanges.len()],
            next: 0,
        }
    }

    /// Adds `exchanges` after those the chooser has.
    pub fn extend(&mut self, exchanges: &[Exchange]) {
        let more = Chooser::new(exchanges, self.matching);
        self.keys.extend(more.keys);
        self.served.extend(more.served);
    }

    /// The index of the recording that answers `request`, or `None` when
    /// there are none.
    pub fn choose(&mut self, request: Option<&Value>) -> Option<usize> {
        if self.keys.is_empty() {
            return None;
        }
        if self.served.iter().all(|&s| s) {
            self.served.fill(false);
        }
        let matched = match (self.matching, request) {
            (Matching::Request, Some(request)) => {
                let text = last_user_text(request);
                let thread = thread_id(request);
                let unserved = |k: &usize| !self.served[*k];
                (0..self.keys.len())
                    .filter(unserved)
                    .find(|&k| text.is_some() && self.keys[k].0 == text)
                    .or_else(|| {
                        (0..self.keys.len())
                            .filter(unserved)
                            .find(|&k| thread.is_some() && self.keys[k].1 == thread)
                    })
            }
            _ => None,
        };
        let index = matched.unwrap_or_else(|| {
            let len = self.keys.len();
            (0..len)
                .map(|k| (self.next + k) % len)
                .find(|&k| !self.served[k])
                .unwrap_or(self.next % len)
        });
        self.served[index] = true;
        self.next = (index + 1) % self.keys.len();
        Some(index)
    }
}

/// The text of a request's last user message, if it has one.
fn last_user_text(request: &Value) -> Option<String> {
    let message = request
        .get("messages")?
        .as_array()?
        .iter()
        .rev()
        .find(|m| m.get("role").and_then(Value::as_str) == Some("user"))?;
    match message.get("content")? {
        Value::String(text) => Some(text.clone()),
        other => Some(other.to_string()),
    }
}

/// A request's `threadId`.
fn thread_id(request: &Value) -> Option<String> {
    request.get("threadId")?.as_str().map(str::to_owned)
}

/// A piece of a response's body, sent after a wait.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Piece {
    /// How long to wait before sending it.
    pub wait: Duration,
    /// Its bytes.
    pub bytes: Vec<u8>,
}

/// What a recording's ids became.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ids {
    /// Sent as recorded (`--keep-ids`, or they were the request's already,
    /// or the response is no event stream).
    Kept,
    /// The request's thread and run ids replaced the recording's.
    Rewritten,
}

/// A recorded exchange as a response to send, whole.
#[derive(Debug, Clone)]
pub struct Playback {
    /// The recorded status.
    pub status: u16,
    /// The response's media type.
    pub media_type: String,
    /// The body, cut at its events.
    pub pieces: Vec<Piece>,
    /// What became of the recording's ids.
    pub ids: Ids,
}

/// `exchange` as the answer to `request`: its recorded body (rebuilt as
/// Server-Sent Events from a JSON Lines recording's events), cut where
/// each event starts, with the recording's ids replaced by the request's
/// unless `keep_ids`. [`Prepared`] serves the same many times, the body
/// held once.
pub fn playback(
    exchange: &Exchange,
    request: Option<&Value>,
    keep_ids: bool,
    pace: Pace,
) -> Playback {
    let prepared = Prepared::new(exchange);
    let playing = prepared.play(request, keep_ids);
    let pieces = (0..prepared.pieces())
        .map(|k| Piece {
            wait: prepared.wait(k, pace),
            bytes: match playing.piece(k) {
                Served::Recorded(range) => prepared.body()[range].to_vec(),
                Served::Fitted(bytes) => bytes,
            },
        })
        .filter(|piece| !piece.bytes.is_empty())
        .collect();
    Playback {
        status: prepared.status,
        media_type: prepared.media_type.clone(),
        pieces,
        ids: playing.ids,
    }
}

/// A recording made ready to be served any number of times: its body held
/// once, cut at its events, the waits between them and its ids found; each
/// request's response is made a piece at a time as it is sent, so that a
/// client costs one piece, never a copy of the recording.
#[derive(Debug, Clone)]
pub struct Prepared {
    status: u16,
    media_type: String,
    /// `None`: the response is no event stream, served whole as recorded.
    layout: Option<BodyLayout>,
    body: Arc<[u8]>,
    /// Where each piece ends (the last is the body's length).
    ends: Vec<usize>,
    /// Each piece's wait at the recorded pace.
    waits: Vec<Duration>,
    events: usize,
    /// The thread and run ids the recording used.
    ids: (Option<String>, Option<String>),
}

/// A piece of a response being played.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Served {
    /// These bytes of [`Prepared::body`], as recorded.
    Recorded(Range<usize>),
    /// The piece with its ids fitted to the request.
    Fitted(Vec<u8>),
}

/// One playing of a [`Prepared`] recording for a request.
#[derive(Debug)]
pub struct Playing<'a> {
    prepared: &'a Prepared,
    rewrite: Option<IdRewrite>,
    /// What became of the recording's ids.
    pub ids: Ids,
}

impl Prepared {
    /// `exchange` made ready to serve.
    pub fn new(exchange: &Exchange) -> Prepared {
        let recorded_ids = recorded_ids(
            exchange.request_value().as_ref(),
            exchange.events.iter().find_map(|e| e.value.as_ref()),
        );
        if let Some(media_type) = &exchange.other_media_type {
            let body: Arc<[u8]> = Arc::from(exchange.body.as_deref().unwrap_or_default());
            return Prepared {
                status: exchange.status,
                media_type: media_type.clone(),
                layout: None,
                ends: vec![body.len()],
                body,
                waits: vec![Duration::ZERO],
                events: 0,
                ids: recorded_ids,
            };
        }
        let (layout, body, starts) = body_of(exchange);
        let mut cuts: Vec<usize> = starts.iter().map(|&(at, _)| at).collect();
        cuts.retain(|&at| at > 0 && at < body.len());
        cuts.dedup();
        let mut ends = cuts.clone();
        ends.push(body.len());
        // A piece's wait is the gap between the timestamps of the event it
        // starts with and the one before.
        let mut waits = vec![Duration::ZERO; ends.len()];
        let stamps: Vec<(usize, Option<u64>)> = starts
            .iter()
            .filter(|&&(at, _)| at < body.len())
            .map(|&(at, stamp)| (cuts.partition_point(|&c| c <= at), stamp))
            .collect();
        let mut last: Option<u64> = None;
        for (piece, stamp) in stamps {
            if let (Some(before), Some(now)) = (last, stamp) {
                let gap = Duration::from_millis(now.saturating_sub(before)).min(MAX_GAP);
                if let Some(wait) = waits.get_mut(piece) {
                    *wait = (*wait).max(gap);
                }
            }
            last = stamp.or(last);
        }
        Prepared {
            status: exchange.status,
            media_type: layout.media_type().to_owned(),
            layout: Some(layout),
            body: Arc::from(body),
            ends,
            waits,
            events: exchange.events.len(),
            ids: recorded_ids,
        }
    }

    /// The recorded status.
    pub fn status(&self) -> u16 {
        self.status
    }

    /// The media type the response is sent with.
    pub fn media_type(&self) -> &str {
        &self.media_type
    }

    /// Whether the response is an event stream (else it is served whole,
    /// as recorded).
    pub fn is_stream(&self) -> bool {
        self.layout.is_some()
    }

    /// The events the recording holds.
    pub fn events(&self) -> usize {
        self.events
    }

    /// The body served, held once for every request.
    pub fn body(&self) -> &Arc<[u8]> {
        &self.body
    }

    /// How many pieces the body is cut into.
    pub fn pieces(&self) -> usize {
        self.ends.len()
    }

    /// The wait before piece `k` at `pace`.
    pub fn wait(&self, k: usize, pace: Pace) -> Duration {
        match pace {
            Pace::Fast => Duration::ZERO,
            Pace::Recorded => self.waits.get(k).copied().unwrap_or_default(),
        }
    }

    /// The bytes of piece `k` in [`Self::body`].
    fn range(&self, k: usize) -> Range<usize> {
        let start = k
            .checked_sub(1)
            .and_then(|before| self.ends.get(before))
            .copied()
            .unwrap_or(0);
        start..self.ends.get(k).copied().unwrap_or(start)
    }

    /// A playing for `request`: its ids fitted to the request's unless
    /// `keep_ids` (or the response is no event stream).
    pub fn play(&self, request: Option<&Value>, keep_ids: bool) -> Playing<'_> {
        let rewrite = match (keep_ids, request, self.layout) {
            (false, Some(request), Some(_)) => Some(IdRewrite::between(self.ids.clone(), request)),
            _ => None,
        }
        .filter(|rewrite| !rewrite.is_identity());
        Playing {
            prepared: self,
            ids: if rewrite.is_some() {
                Ids::Rewritten
            } else {
                Ids::Kept
            },
            rewrite,
        }
    }
}

impl Playing<'_> {
    /// Piece `k` of the response.
    pub fn piece(&self, k: usize) -> Served {
        let range = self.prepared.range(k);
        let Some(rewrite) = &self.rewrite else {
            return Served::Recorded(range);
        };
        let bytes = &self.prepared.body[range.clone()];
        match self.prepared.layout {
            Some(BodyLayout::Proto) => match rewrite.apply_frame(bytes) {
                Some(fitted) => Served::Fitted(fitted),
                None => Served::Recorded(range),
            },
            Some(_) => {
                let fitted = rewrite.apply_text(bytes);
                if fitted == bytes {
                    Served::Recorded(range)
                } else {
                    Served::Fitted(fitted)
                }
            }
            None => Served::Recorded(range),
        }
    }
}

/// Where an event starts in the body served, and its timestamp.
type Start = (usize, Option<u64>);

/// The body to serve, its layout, and where each event starts in it.
fn body_of(exchange: &Exchange) -> (BodyLayout, Vec<u8>, Vec<Start>) {
    let stamp = |value: Option<&Value>| value?.get("timestamp")?.as_u64();
    match (&exchange.body, exchange.layout) {
        (Some(body), layout) if layout != BodyLayout::JsonLines || !body.is_empty() => {
            let starts = exchange
                .events
                .iter()
                .filter_map(|e| Some((usize::try_from(e.offset?).ok()?, stamp(e.value.as_ref()))))
                .collect();
            (layout, body.clone(), starts)
        }
        _ => {
            // Events rebuilt as Server-Sent Events, what clients read.
            let mut body = Vec::new();
            let mut starts = Vec::new();
            for event in &exchange.events {
                starts.push((body.len(), stamp(event.value.as_ref())));
                body.extend_from_slice(b"data: ");
                body.extend_from_slice(&event.raw);
                body.extend_from_slice(b"\n\n");
            }
            (BodyLayout::Sse, body, starts)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::recording::capture::read_capture;
    use serde_json::json;
    use std::path::Path;

    const RUN: &str = r#"{"threadId":"t-rec","runId":"r-rec","state":{},"messages":[{"id":"u","role":"user","content":"weather?"}],"tools":[],"context":[],"forwardedProps":{}}"#;

    fn capture() -> Vec<Exchange> {
        let text = format!(
            "{RUN}\n{{\"type\":\"RUN_STARTED\",\"threadId\":\"t-rec\",\"runId\":\"r-rec\",\"timestamp\":1000}}\n{{\"type\":\"RUN_FINISHED\",\"threadId\":\"t-rec\",\"runId\":\"r-rec\",\"timestamp\":1250}}\n{}\n{{\"type\":\"RUN_ERROR\",\"message\":\"no\"}}\n",
            RUN.replace("weather?", "time?").replace("t-rec", "t-2")
        );
        read_capture(text.as_bytes(), Path::new("c.jsonl"))
            .expect("capture")
            .exchanges
    }

    #[test]
    fn a_json_lines_recording_is_served_as_sse_with_the_requests_ids() {
        let exchanges = capture();
        let request = json!({"threadId": "t-new", "runId": "r-new"});
        let played = playback(&exchanges[0], Some(&request), false, Pace::Recorded);
        assert_eq!(played.media_type, "text/event-stream");
        assert_eq!(played.ids, Ids::Rewritten);
        let text: Vec<String> = played
            .pieces
            .iter()
            .map(|p| String::from_utf8_lossy(&p.bytes).into_owned())
            .collect();
        assert_eq!(
            text,
            [
                "data: {\"type\":\"RUN_STARTED\",\"threadId\":\"t-new\",\"runId\":\"r-new\",\"timestamp\":1000}\n\n",
                "data: {\"type\":\"RUN_FINISHED\",\"threadId\":\"t-new\",\"runId\":\"r-new\",\"timestamp\":1250}\n\n",
            ]
        );
        assert_eq!(played.pieces[1].wait, Duration::from_millis(250));
        let kept = playback(&exchanges[0], Some(&request), true, Pace::Fast);
        assert_eq!(kept.ids, Ids::Kept);
        assert!(kept.pieces.iter().all(|p| p.wait.is_zero()));
        assert!(String::from_utf8_lossy(&kept.pieces[0].bytes).contains("t-rec"));
    }

    #[test]
    fn a_recorded_body_is_served_as_its_bytes() {
        let body = "data: {\"type\":\"RUN_STARTED\",\"threadId\":\"t\",\"runId\":\"r\"}\r\n\r\n: ping\r\n\r\ndata: broken\r\n\r\n";
        let exchange = read_capture(body.as_bytes(), Path::new("c.sse"))
            .expect("capture")
            .exchanges
            .remove(0);
        let played = playback(&exchange, None, false, Pace::Fast);
        let served: Vec<u8> = played.pieces.iter().flat_map(|p| p.bytes.clone()).collect();
        assert_eq!(served, body.as_bytes());
        assert_eq!(played.pieces.len(), 2);
    }

    #[test]
    fn recordings_are_chosen_in_order_or_by_request() {
        let exchanges = capture();
        let mut in_order = Chooser::new(&exchanges, Matching::Order);
        let picks: Vec<Option<usize>> = (0..3).map(|_| in_order.choose(None)).collect();
        assert_eq!(picks, [Some(0), Some(1), Some(0)]);
        let mut by_request = Chooser::new(&exchanges, Matching::Request);
        let time = json!({"threadId": "x", "messages": [{"role": "user", "content": "time?"}]});
        assert_eq!(by_request.choose(Some(&time)), Some(1));
        let thread = json!({"threadId": "t-rec", "messages": []});
        assert_eq!(by_request.choose(Some(&thread)), Some(0));
        assert_eq!(Chooser::new(&[], Matching::Order).choose(None), None);
    }
}
