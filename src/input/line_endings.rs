//! The line endings of an SSE stream as the official client splits it:
//! `@ag-ui/client` 1.0.0 splits events on a blank LF line only, so a
//! stream that frames more than one event with CRLF or a lone CR reaches
//! it as one block that fails to parse (`sse-carriage-return`). Fed the
//! bytes as they pass, in chunks split anywhere, with a few bytes of state;
//! a chunk with no CR before the first is skimmed, not walked byte by byte.

use crate::client::Client;
use crate::diagnostic::{Diagnostic, Location};
use crate::rules::transport::SSE_CARRIAGE_RETURN;

/// What the bytes seen so far hold.
#[derive(Debug, Clone)]
pub(crate) struct LineEndings {
    /// Where the first CR is (1-based line, 1-based byte column).
    first_cr: Option<Location>,
    /// The current position.
    line: usize,
    column: usize,
    /// Whether the last byte ended a line (nothing since), and whether
    /// that line ending was a lone LF or ended with one (CRLF): a blank
    /// line after it that is a lone LF makes the `\n\n` the client splits
    /// on.
    at_line_start: bool,
    ended_with_lf: bool,
    previous: u8,
    /// A blank line ending with a CR was seen, and content came after it:
    /// the CR framing separates at least two events.
    cr_blank_line: bool,
    content_after: bool,
}

impl Default for LineEndings {
    fn default() -> Self {
        LineEndings {
            first_cr: None,
            line: 1,
            column: 1,
            at_line_start: false,
            ended_with_lf: false,
            previous: 0,
            cr_blank_line: false,
            content_after: false,
        }
    }
}

impl LineEndings {
    /// Nothing seen yet.
    pub(crate) fn new() -> Self {
        LineEndings::default()
    }

    /// Takes the next bytes of the stream.
    pub(crate) fn watch(&mut self, bytes: &[u8]) {
        if self.content_after || bytes.is_empty() {
            return;
        }
        if self.first_cr.is_none() && memchr::memchr(b'\r', bytes).is_none() {
            // Before any CR only the position matters, and a chunk without
            // one moves it by its line feeds.
            match memchr::memrchr(b'\n', bytes) {
                Some(last) => {
                    self.line += memchr::memchr_iter(b'\n', bytes).count();
                    self.column = bytes.len() - last;
                }
                None => self.column += bytes.len(),
            }
            self.previous = bytes[bytes.len() - 1];
            self.at_line_start = self.previous == b'\n';
            self.ended_with_lf = self.at_line_start;
            return;
        }
        for &byte in bytes {
            let continues_crlf = byte == b'\n' && self.previous == b'\r';
            if byte == b'\r' && self.first_cr.is_none() {
                self.first_cr = Some(Location {
                    line: self.line,
                    column: self.column,
                });
            }
            if continues_crlf {
                self.ended_with_lf = true;
            } else if byte == b'\r' || byte == b'\n' {
                // A blank line dispatches an event; the client sees the
                // dispatch only where its bytes hold `\n\n`.
                if self.at_line_start && !(byte == b'\n' && self.ended_with_lf) {
                    self.cr_blank_line = true;
                }
                self.at_line_start = true;
                self.ended_with_lf = byte == b'\n';
            } else {
                self.at_line_start = false;
                if self.cr_blank_line && !byte.is_ascii_whitespace() {
                    self.content_after = true;
                    return;
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

    /// The `sse-carriage-return` finding as `client` reads the stream, when
    /// a CR frames events it splits on `\n\n` only: more than one event
    /// reaches it as one block that fails to parse, and the run fails (an
    /// error). A CR inside a line's ending, or framing the last event
    /// alone, leaves every event the client reads whole: nothing.
    pub(crate) fn finding(&self, client: Client) -> Option<Diagnostic> {
        let at = self.first_cr.filter(|_| self.content_after)?;
        let mut diagnostic = SSE_CARRIAGE_RETURN
            .diagnostic(
                "",
                format!(
                    "the event stream frames its events with CR: {} splits events on a blank LF line (\\n\\n) only, so it reads the stream as one block that fails to parse, and the run fails",
                    client.described()
                ),
            )
            .with_help("end each line with \\n alone (data: {...}\\n\\n)");
        diagnostic.location = Some(at);
        Some(diagnostic)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnostic::Severity;

    fn seen(bytes: &[u8], chunk: usize) -> Option<Diagnostic> {
        let mut endings = LineEndings::new();
        for piece in bytes.chunks(chunk) {
            endings.watch(piece);
        }
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
        // One event framed with CR is read whole at the stream's end.
        assert!(seen(b"data: {\"a\":1}\r\n\r\n", 5).is_none());
        assert!(seen(b"data: 1\n\ndata: 2\n\n", 3).is_none());
        // CRLF lines dispatched by a lone LF still hold `\n\n`.
        for chunk in [1, 2, 64] {
            assert!(
                seen(b"data: 1\r\n\ndata: 2\r\n\n", chunk).is_none(),
                "{chunk}"
            );
            let lf_then_crlf = b"data: 1\n\r\ndata: 2\n\r\n";
            assert_eq!(
                seen(lf_then_crlf, chunk).map(|f| f.severity),
                Some(Severity::Error)
            );
        }
    }

    #[test]
    fn the_first_cr_is_placed_after_lf_lines_skimmed_in_any_chunks() {
        let stream = b"data: 1\n\ndata: 22\n\n: x\r\n\r\ndata: 3\n\n";
        for chunk in [1, 2, 5, 9, 64] {
            let found = seen(stream, chunk).expect("a finding");
            assert_eq!(
                found.location,
                Some(Location { line: 5, column: 4 }),
                "chunk {chunk}"
            );
            assert_eq!(found.severity, Severity::Error, "chunk {chunk}");
        }
        // A blank LF line then a CR blank line frames with a CR too.
        assert_eq!(
            seen(b"data: 1\n\rdata: 2\n\n", 4).map(|f| f.severity),
            Some(Severity::Error)
        );
    }
}
