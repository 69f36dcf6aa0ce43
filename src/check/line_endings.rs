//! A reader that watches the line endings of the SSE capture it passes to
//! the SSE reader ([`crate::input::line_endings`]), in one pass.

use std::io::{self, BufRead, Read};
use std::sync::{Arc, Mutex};

use crate::client::Client;
use crate::diagnostic::Diagnostic;
use crate::input::line_endings::LineEndings;

/// A reader that watches the line endings of what it passes on.
pub(super) struct Watched<R> {
    inner: R,
    seen: Arc<Mutex<LineEndings>>,
}

/// What a [`Watched`] reader saw, read after the stream ends.
#[derive(Clone)]
pub(super) struct Seen(Arc<Mutex<LineEndings>>);

/// `reader`, watched, and the handle that reports what it saw.
pub(super) fn watch<R: BufRead>(reader: R) -> (Watched<R>, Seen) {
    let seen = Arc::new(Mutex::new(LineEndings::new()));
    (
        Watched {
            inner: reader,
            seen: seen.clone(),
        },
        Seen(seen),
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

impl Seen {
    /// The `sse-carriage-return` finding as `client` reads the capture.
    pub(super) fn finding(&self, client: Client) -> Option<Diagnostic> {
        self.0.lock().ok()?.finding(client)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnostic::Severity;

    #[test]
    fn what_passes_through_the_reader_is_watched_whatever_its_buffer() {
        let two = b"data: {\"a\":1}\r\n\r\ndata: {\"a\":2}\r\n\r\n";
        for capacity in [1, 3, 64] {
            let (mut reader, seen) = watch(io::BufReader::with_capacity(capacity, &two[..]));
            let mut all = Vec::new();
            reader.read_to_end(&mut all).expect("read");
            assert_eq!(all, two);
            let found = seen.finding(Client::V1_0_0).expect("a finding");
            assert_eq!(found.severity, Severity::Error, "capacity {capacity}");
        }
    }
}
