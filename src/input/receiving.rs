//! A response's body recorded as it arrives, by `agui-lint probe` and
//! `agui-lint proxy` alike: the bytes kept (up to a limit; the rest
//! counted), when the first byte and the first event came, and the longest
//! wait between two pieces, made into the [`Received`] an archive is
//! written from.
//!
//! A body cut at the limit is recorded to its last whole record (SSE
//! event, line or binary frame): a record cut in half is the recorder's
//! doing, not the server's, and must not be judged as the server's fault.

use std::time::Instant;

use super::har::{Delivery, DeliveryEnd};
use super::har_write::Received;
use super::Layout;

/// A body being recorded.
#[derive(Debug)]
pub struct Receiving {
    started: Instant,
    head_at: Instant,
    keep: usize,
    body: Vec<u8>,
    dropped: u64,
    last: Instant,
    longest_gap_ms: u64,
    first_byte_ms: Option<u64>,
    first_event_ms: Option<u64>,
}

impl Receiving {
    /// A body whose request was sent at `started` and whose response's
    /// head came at `head_at`, keeping at most `keep` bytes.
    pub fn new(started: Instant, head_at: Instant, keep: usize) -> Self {
        Receiving {
            started,
            head_at,
            keep,
            body: Vec::new(),
            dropped: 0,
            last: head_at,
            longest_gap_ms: 0,
            first_byte_ms: None,
            first_event_ms: None,
        }
    }

    /// Milliseconds from sending the request to `at`.
    fn ms(&self, at: Instant) -> u64 {
        u64::try_from(at.duration_since(self.started).as_millis()).unwrap_or(u64::MAX)
    }

    /// Records `piece`, which arrived just now; the part of it kept.
    pub fn piece<'a>(&mut self, piece: &'a [u8]) -> &'a [u8] {
        let now = Instant::now();
        self.waited_until(now);
        self.first_byte_ms.get_or_insert(self.ms(now));
        let searched_from = self.body.len().saturating_sub(4);
        let room = self.keep.saturating_sub(self.body.len()).min(piece.len());
        self.body.extend_from_slice(&piece[..room]);
        self.dropped += (piece.len() - room) as u64;
        if self.first_event_ms.is_none()
            && memchr::memmem::find(&self.body[searched_from..], b"data:").is_some()
        {
            self.first_event_ms = Some(self.ms(now));
        }
        &piece[..room]
    }

    /// Keeps nothing more: the rest is counted as past the limit (a
    /// budget across bodies is spent).
    pub fn stop_keeping(&mut self) {
        self.keep = self.body.len();
    }

    /// The body ended just now without a piece (a failed read, a
    /// timeout): the wait up to now counts.
    pub fn ended_now(&mut self) {
        self.waited_until(Instant::now());
    }

    fn waited_until(&mut self, now: Instant) {
        let gap = u64::try_from(now.duration_since(self.last).as_millis()).unwrap_or(u64::MAX);
        self.longest_gap_ms = self.longest_gap_ms.max(gap);
        self.last = now;
    }

    /// The bytes kept so far.
    pub fn body(&self) -> &[u8] {
        &self.body
    }

    /// Whether bytes past the limit were dropped.
    pub fn over_limit(&self) -> bool {
        self.dropped > 0
    }

    /// Keeps only the first `len` bytes (a client that stopped reading
    /// there), without counting the rest as dropped.
    pub fn truncate(&mut self, len: usize) {
        self.body.truncate(len);
    }

    /// The response as received: `status` and `headers`, the body framed
    /// as `layout` (cut to its last whole record when over the limit), and
    /// how it ended.
    pub fn finish(
        mut self,
        layout: Layout,
        status: u16,
        headers: Vec<(String, String)>,
        end: DeliveryEnd,
        limit_ms: Option<u64>,
        detail: Option<String>,
    ) -> Received {
        if self.dropped > 0 {
            let whole = whole_records_end(&self.body, layout);
            self.dropped += (self.body.len() - whole) as u64;
            self.body.truncate(whole);
        }
        let (head_ms, total_ms) = (self.ms(self.head_at), self.ms(Instant::now()));
        Received {
            status: Some(status),
            headers,
            body: self.body,
            head_ms: Some(head_ms),
            total_ms,
            delivery: Delivery {
                first_byte_ms: self.first_byte_ms,
                first_event_ms: self.first_event_ms,
                longest_gap_ms: self.longest_gap_ms,
                end,
                limit_ms,
                detail,
                dropped_bytes: (self.dropped > 0).then_some(self.dropped),
            },
        }
    }
}

/// Where the last whole record of `body` ends: after the blank line that
/// dispatches an SSE event, after a line's `\n`, after a binary frame.
pub fn whole_records_end(body: &[u8], layout: Layout) -> usize {
    match layout {
        Layout::Proto => {
            let mut at = 0usize;
            while let Some(prefix) = body.get(at..at + 4) {
                let length = u32::from_be_bytes([prefix[0], prefix[1], prefix[2], prefix[3]]);
                let next = at
                    .saturating_add(4)
                    .saturating_add(usize::try_from(length).unwrap_or(usize::MAX));
                if next > body.len() {
                    break;
                }
                at = next;
            }
            at
        }
        Layout::JsonLines | Layout::Json | Layout::Har => {
            memchr::memrchr(b'\n', body).map_or(0, |at| at + 1)
        }
        Layout::Sse => last_event_end(body),
    }
}

/// Where the last whole Server-Sent Event of `body` ends: just after the
/// line break of the last blank line.
fn last_event_end(body: &[u8]) -> usize {
    let is_end = |b: u8| b == b'\r' || b == b'\n';
    // A blank line's terminator starts at `at` when the line before ended
    // just there: after an LF, or after a CR that is not the first half
    // of a CRLF.
    (1..body.len())
        .rev()
        .find(|&at| {
            is_end(body[at])
                && (body[at - 1] == b'\n' || (body[at - 1] == b'\r' && body[at] != b'\n'))
        })
        .map_or(0, |at| {
            if body[at] == b'\r' && body.get(at + 1) == Some(&b'\n') {
                at + 2
            } else {
                at + 1
            }
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cut_recording_ends_with_its_last_whole_event() {
        let sse = |body: &[u8]| whole_records_end(body, Layout::Sse);
        assert_eq!(sse(b"data: 1\n\ndata: 2\n\ndata: 3"), 18);
        assert_eq!(sse(b"data: 1\r\n\r\ndata: 2"), 11);
        assert_eq!(sse(b"data: 1\r\rdata"), 9);
        assert_eq!(sse(b"data: 1"), 0);
        // Line endings mixed within one stream.
        assert_eq!(sse(b"data: 1\r\n\ndata: 2"), 10);
        assert_eq!(sse(b"data: 1\n\r\ndata: 2"), 10);
        assert_eq!(sse(b"data: 1\n\rdata: 2"), 9);
    }

    #[test]
    fn lines_and_frames_are_cut_whole_too() {
        assert_eq!(whole_records_end(b"{}\n{}\n{\"a", Layout::JsonLines), 6);
        assert_eq!(whole_records_end(b"{\"a", Layout::JsonLines), 0);
        let frames = [0, 0, 0, 2, 8, 1, 0, 0, 0, 9, 8];
        assert_eq!(whole_records_end(&frames, Layout::Proto), 6);
        assert_eq!(whole_records_end(&frames[..3], Layout::Proto), 0);
    }

    #[test]
    fn what_is_over_the_limit_is_counted_and_the_rest_kept_whole() {
        let started = Instant::now();
        let mut receiving = Receiving::new(started, started, 12);
        assert_eq!(receiving.piece(b"data: 1\n\nda"), b"data: 1\n\nda");
        assert_eq!(receiving.piece(b"ta: 2\n\n"), b"t");
        assert!(receiving.over_limit());
        let received = receiving.finish(
            Layout::Sse,
            200,
            Vec::new(),
            DeliveryEnd::Complete,
            None,
            None,
        );
        assert_eq!(received.body, b"data: 1\n\n");
        assert_eq!(received.delivery.dropped_bytes, Some(9));
        assert!(received.delivery.first_event_ms.is_some());
    }
}
