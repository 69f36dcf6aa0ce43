//! What the long-running commands (proxy, replay) print of themselves.
//! Their output is a log beside the traffic they carry: a write that fails
//! (a closed pipe, `proxy | head -c1`) is dropped, never a panic that would
//! cut a stream the process is passing on.

use std::io::Write;

/// Writes `text` and a newline to standard error, ignoring a failure.
pub(crate) fn say(text: impl std::fmt::Display) {
    let _ = writeln!(std::io::stderr().lock(), "{text}");
}

/// Writes `text` and a newline to standard output, ignoring a failure.
pub(crate) fn out(text: impl std::fmt::Display) {
    let mut stdout = std::io::stdout().lock();
    let _ = writeln!(stdout, "{text}").and_then(|()| stdout.flush());
}
