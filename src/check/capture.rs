//! A capture held in memory, checked as the language bindings check one:
//! an SSE or JSON Lines stream through the [`StreamChecker`] (as a guard
//! checks a response, paired with the request it answers), a JSON document
//! or a HAR archive read whole, as the CLI reads a file. The Python and
//! Node packages call these, so a capture reads the same from every one.

use std::io;

use serde_json::Value;

use super::{check_reader, Outcome};
use crate::input::Layout;
use crate::{Framing, Kind, StreamChecker, Validator};

/// The layout a binding's `format` names: `sse`, `jsonl`, `har`, `proto`,
/// or `auto`
/// (told from `bytes`, as the CLI tells a file's).
pub fn capture_layout(format: &str, bytes: &[u8]) -> Result<Layout, String> {
    match format {
        "sse" => Ok(Layout::Sse),
        "jsonl" => Ok(Layout::JsonLines),
        "har" => Ok(Layout::Har),
        "proto" => Ok(Layout::Proto),
        "auto" => Ok(Layout::sniff(bytes)),
        other => Err(format!(
            "unknown stream format '{other}' (expected sse, jsonl, har, proto or auto)"
        )),
    }
}

/// The framing a live stream's `format` names: `sse`, `jsonl`, `proto`, or
/// `auto`
/// (told from its first bytes).
pub fn stream_framing(format: &str) -> Result<Framing, String> {
    match format {
        "sse" => Ok(Framing::Sse),
        "jsonl" => Ok(Framing::JsonLines),
        "proto" => Ok(Framing::Proto),
        "auto" => Ok(Framing::Auto),
        other => Err(format!(
            "unknown stream format '{other}' (expected sse, jsonl, proto or auto)"
        )),
    }
}

/// A stream checker over `validator` framed as `framing`, shown under
/// `path`, its records of `kind` (`None`: events for SSE, as each line's
/// shape tells for JSON Lines), paired with `request` when given.
pub fn stream_checker(
    validator: &Validator,
    framing: Framing,
    kind: Option<Kind>,
    path: &str,
    request: Option<&Value>,
) -> StreamChecker {
    let mut checker = StreamChecker::new(validator, framing).with_path(path);
    if let Some(kind) = kind {
        checker = checker.with_kind(kind);
    }
    if let Some(request) = request {
        checker = checker.answering(request);
    }
    checker
}

/// Checks the capture `bytes` in `layout`, shown under `path`: every record
/// as a document and the events together as one stream.
pub fn check_capture(
    validator: &Validator,
    bytes: &[u8],
    layout: Layout,
    kind: Option<Kind>,
    path: &str,
    request: Option<&Value>,
) -> io::Result<Outcome> {
    let mut outcome = Outcome::default();
    let framing = match layout {
        Layout::Sse => Framing::Sse,
        Layout::JsonLines => Framing::JsonLines,
        Layout::Proto => Framing::Proto,
        Layout::Json | Layout::Har => {
            check_reader(validator, path, layout, bytes, kind, &mut |c| {
                outcome.push(c)
            })?;
            return Ok(outcome);
        }
    };
    let mut checker = stream_checker(validator, framing, kind, path, request);
    checker.feed_each(bytes, |c| outcome.push(c));
    checker.finish_each(|c| outcome.push(c));
    Ok(outcome)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_capture_in_any_layout_is_checked_and_names_are_refused_with_the_choices() {
        let validator = Validator::compiling_on_demand();
        let jsonl = b"{\"type\":\"TEXT_MESSAGE_END\",\"messageId\":\"m\"}\n";
        let sse = b"data: {\"type\":\"TEXT_MESSAGE_END\",\"messageId\":\"m\"}\n\n";
        for (bytes, format) in [(&jsonl[..], "jsonl"), (&sse[..], "sse"), (&sse[..], "auto")] {
            let layout = capture_layout(format, bytes).expect("a format");
            let outcome = check_capture(&validator, bytes, layout, None, "-", None).expect("read");
            assert!(outcome.has_failing_document(false), "{format}");
        }
        assert!(capture_layout("xml", b"")
            .unwrap_err()
            .contains("expected sse, jsonl, har, proto or auto"));
        assert_eq!(stream_framing("auto"), Ok(Framing::Auto));
        assert!(stream_framing("har").is_err());
    }
}
