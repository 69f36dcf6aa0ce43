//! A recorded stream fitted to the request it now answers: the recording's
//! thread and run ids become the incoming request's, so that a client that
//! checks a run's ids against its request accepts the replayed run. Ids are
//! replaced where they stand in the recorded bytes (as JSON strings in
//! text; in place, length for length, in binary frames), so that
//! everything else is served as it was recorded.

use serde_json::Value;

/// The ids a recorded run used, and the ids the request being answered
/// gave.
#[derive(Debug, Clone, Default)]
pub struct IdRewrite {
    /// (recorded, incoming) thread ids.
    thread: Option<(String, String)>,
    /// (recorded, incoming) run ids.
    run: Option<(String, String)>,
}

impl IdRewrite {
    /// The rewrite from the `recorded` run's ids (those of its request, or
    /// else of its first `RUN_STARTED`) to those of the `incoming` request.
    pub fn new(recorded: Option<&Value>, first_event: Option<&Value>, incoming: &Value) -> Self {
        let id = |value: Option<&Value>, name: &str| {
            value
                .and_then(|v| v.get(name))
                .and_then(Value::as_str)
                .map(str::to_owned)
        };
        let pair = |name: &str| {
            let from = id(recorded, name).or_else(|| id(first_event, name))?;
            let to = id(Some(incoming), name)?;
            (from != to).then_some((from, to))
        };
        IdRewrite {
            thread: pair("threadId"),
            run: pair("runId"),
        }
    }

    /// Whether nothing is rewritten.
    pub fn is_identity(&self) -> bool {
        self.thread.is_none() && self.run.is_none()
    }

    /// `text` (a recorded SSE or JSON Lines body, or one event's JSON)
    /// with each recorded id, as a JSON string, replaced by the incoming
    /// one. The rest of the bytes stay as recorded, framing and faults
    /// included, so that a stream broken on purpose is served as broken.
    pub fn apply_text(&self, text: &[u8]) -> Vec<u8> {
        let mut out = text.to_vec();
        for (from, to) in self.pairs() {
            let quoted = |id: &str| serde_json::to_vec(id).unwrap_or_default();
            out = replace_all(&out, &quoted(from), &quoted(to));
        }
        out
    }

    /// A binary body (or frame) with each recorded id replaced by the
    /// incoming one where the two are of one length, so that no frame's
    /// length changes; `None` when some id cannot be replaced so (the
    /// caller then sends the frames as recorded, and says so).
    pub fn apply_binary(&self, frames: &[u8]) -> Option<Vec<u8>> {
        let mut out = frames.to_vec();
        for (from, to) in self.pairs() {
            if from.len() != to.len() {
                return None;
            }
            out = replace_all(&out, from.as_bytes(), to.as_bytes());
        }
        Some(out)
    }

    fn pairs(&self) -> impl Iterator<Item = (&str, &str)> {
        [&self.thread, &self.run]
            .into_iter()
            .flatten()
            .map(|(from, to)| (from.as_str(), to.as_str()))
    }
}

/// `haystack` with every occurrence of `needle` replaced by `with`.
fn replace_all(haystack: &[u8], needle: &[u8], with: &[u8]) -> Vec<u8> {
    if needle.is_empty() {
        return haystack.to_vec();
    }
    let mut out = Vec::with_capacity(haystack.len());
    let mut rest = haystack;
    while let Some(at) = memchr::memmem::find(rest, needle) {
        out.extend_from_slice(&rest[..at]);
        out.extend_from_slice(with);
        rest = &rest[at + needle.len()..];
    }
    out.extend_from_slice(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_recorded_ids_become_the_requests() {
        let recorded = json!({"threadId": "t-old", "runId": "r-old"});
        let incoming = json!({"threadId": "t-new", "runId": "r-new"});
        let rewrite = IdRewrite::new(Some(&recorded), None, &incoming);
        let body = b"data: {\"type\":\"RUN_STARTED\",\"threadId\":\"t-old\",\"runId\":\"r-old\"}\r\n\r\ndata: {\"delta\":\"t-old is\"}\n\n";
        assert_eq!(
            rewrite.apply_text(body),
            b"data: {\"type\":\"RUN_STARTED\",\"threadId\":\"t-new\",\"runId\":\"r-new\"}\r\n\r\ndata: {\"delta\":\"t-old is\"}\n\n"
        );
        assert_eq!(
            rewrite.apply_binary(b"\x05t-old").as_deref(),
            Some(&b"\x05t-new"[..])
        );
        // Without a recorded request, the first event tells the ids.
        let first = json!({"type": "RUN_STARTED", "threadId": "t-old", "runId": "r-old"});
        let longer = json!({"threadId": "thread-new", "runId": "r-new"});
        let rewrite = IdRewrite::new(None, Some(&first), &longer);
        assert!(!rewrite.is_identity());
        assert_eq!(rewrite.apply_binary(b"\x05t-old"), None);
        assert!(IdRewrite::new(Some(&incoming), None, &incoming).is_identity());
    }
}
