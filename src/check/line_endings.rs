//! The line endings of a raw SSE capture, as the official client splits
//! them: `@ag-ui/client` 1.0.0 splits events on a blank LF line only, so a
//! stream that frames more than one event with CRLF or a lone CR reaches it
//! as one block that fails to parse (`sse-carriage-return`). Watched as the
//! bytes pass to the SSE reader, in one pass, with a few bytes of state.

use std::io::{self, BufRead, Read};
use std::sync::{Arc, Mutex};

use crate::client::Client;
use crate::diagnostic::{Diagnostic, Location, Severity};
use crate::rules::transport::SSE_CARRIAGE_RETURN;

/// What the bytes seen so far hold.
#[derive(Debug, Default)]
struct Seen {
    /// Where the first CR is (1-based line, 1-based byte column).
    first_cr: Option<Location>,
    /// The current position.
    line: usize,
    column: usize,
    /// Whether the last byte ended a line (nothing since), and whether
    /// that line ending had a CR.
    at_line_start: bool,
    ending_had_cr: bool,
    previous: u8,
    /// A blank line ending with a CR was seen, and content came after it:
    /// the CR framing separates at least two events.
    cr_blank_line: bool,
    content_after: bool,
}

impl Seen {
    fn new() -> Self {
        Seen {
            line: 1,
            column: 1,
            ..Seen::default()
        }
    }

    fn watch(&mut self, bytes: &[u8]) {
        for &byte in bytes {
            let continues_crlf = byte == b'\n' && self.previous == b'\r';
            if byte == b'\r' && self.first_cr.is_none() {
                self.first_cr = Some(Location {
                    line: self.line,
                    column: self.column,
                });
            }
            if (byte == b'\r' || byte == b'\n') && !continues_crlf {
                if self.at_line_start && (byte == b'\r' || self.ending_had_cr) {
                    self.cr_blank_line = true;
                }
                self.at_line_start = true;
                self.ending_had_cr = byte == b'\r';
            } else if !continues_crlf {
                self.at_line_start = false;
                if self.cr_blank_line && !byte.is_ascii_whitespace() {
                    self.content_after = true;
                }
            }
            if byte == b'\n' {
                self.line += 1;
                self.column = 1;
            } else {
                self.column += 1;
            }
            self.previous = byte;
        }
    }
}

/// A reader that watches the line endings of what it passes on.
pub(super) struct Watched<R> {
    inner: R,
    seen: Arc<Mutex<Seen>>,
}

/// What a [`Watched`] reader saw, read after the stream ends.
#[derive(Clone)]
pub(super) struct LineEndings(Arc<Mutex<Seen>>);

/// `reader`, watched, and the handle that reports what it saw.
pub(super) fn watch<R: BufRead>(reader: R) -> (Watched<R>, LineEndings) {
    let seen = Arc::new(Mutex::new(Seen::new()));
    (
        Watched {
            inner: reader,
            seen: seen.clone(),
        },
        LineEndings(seen),
    )
}

impl<R: BufRead> Read for Watched<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        if let Ok(mut seen) = self.seen.lock() {
            seen.watch(&buf[..n]);
        }
        Ok(n)
    }
}

impl<R: BufRead> BufRead for Watched<R> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        self.inner.fill_buf()
    }

    fn consume(&mut self, amount: usize) {
        if let Ok(buffer) = self.inner.fill_buf() {
            let consumed = &buffer[..amount.min(buffer.len())];
            if let Ok(mut seen) = self.seen.lock() {
                seen.watch(consumed);
            }
        }
        self.inner.consume(amount);
    }
}

impl LineEndings {
    /// The `sse-carriage-return` finding for `client`, when the capture
    /// ends its lines with a CR: an error when the CR framing separates
    /// more than one event (the client fails the run), else a warning.
    pub(super) fn finding(&self, client: Client) -> Option<Diagnostic> {
        let seen = self.0.lock().ok()?;
        let at = seen.first_cr?;
        let fails = seen.content_after;
        let mut diagnostic = SSE_CARRIAGE_RETURN
            .diagnostic(
                "",
                if fails {
                    format!(
                        "the event stream ends its lines with CR: {} splits events on a blank LF line only, so it reads the stream as one block that fails to parse, and the run fails",
                        client.described()
                    )
                } else {
                    "the event stream ends its lines with CR: clients that split events on a blank LF line see one event that never parses".to_string()
                },
            )
            .with_help("end each line with \\n alone (data: {...}\\n\\n)");
        diagnostic.severity = if fails {
            Severity::Error
        } else {
            Severity::Warning
        };
        diagnostic.location = Some(at);
        Some(diagnostic)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seen(bytes: &[u8], chunk: usize) -> Option<Diagnostic> {
        let (mut reader, endings) = watch(io::BufReader::with_capacity(chunk, bytes));
        let mut all = Vec::new();
        reader.read_to_end(&mut all).expect("read");
        endings.finding(Client::V1_0_0)
    }

    #[test]
    fn cr_framing_of_two_events_fails_the_run_whatever_the_chunks() {
        let two = b"data: {\"a\":1}\r\n\r\ndata: {\"a\":2}\r\n\r\n";
        for chunk in [1, 2, 3, 7, 64] {
            let found = seen(two, chunk).expect("a finding");
            assert_eq!(found.severity, Severity::Error, "chunk {chunk}");
            assert_eq!(
                found.location,
                Some(Location {
                    line: 1,
                    column: 14
                })
            );
        }
        let lone = b"data: 1\r\rdata: 2\r\r";
        assert_eq!(seen(lone, 4).expect("a finding").severity, Severity::Error);
        let one = b"data: {\"a\":1}\r\n\r\n";
        assert_eq!(seen(one, 5).expect("a finding").severity, Severity::Warning);
        assert!(seen(b"data: 1\n\ndata: 2\n\n", 3).is_none());
    }
}
