//! A recorded stream fitted to the request it now answers: the recording's
//! thread and run ids become the incoming request's, so that a client that
//! checks a run's ids against its request accepts the replayed run. Ids are
//! replaced where they stand in the recorded bytes: as JSON strings in
//! text; in binary frames, in the id fields of `RUN_STARTED` (and its
//! input) and `RUN_FINISHED`, the enclosing lengths written anew, every
//! other byte of the frame (unknown fields included) as recorded.

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

/// The thread and run ids a recorded run used: those of its request, or
/// else of its first event.
pub fn recorded_ids(
    recorded: Option<&Value>,
    first_event: Option<&Value>,
) -> (Option<String>, Option<String>) {
    let from = |name: &str| id(recorded, name).or_else(|| id(first_event, name));
    (from("threadId"), from("runId"))
}

fn id(value: Option<&Value>, name: &str) -> Option<String> {
    value
        .and_then(|v| v.get(name))
        .and_then(Value::as_str)
        .map(str::to_owned)
}

impl IdRewrite {
    /// The rewrite from the `recorded` run's ids (those of its request, or
    /// else of its first `RUN_STARTED`) to those of the `incoming` request.
    pub fn new(recorded: Option<&Value>, first_event: Option<&Value>, incoming: &Value) -> Self {
        IdRewrite::between(recorded_ids(recorded, first_event), incoming)
    }

    /// The rewrite from `recorded` (thread and run ids, from
    /// [`recorded_ids`]) to the ids of the `incoming` request.
    pub fn between(recorded: (Option<String>, Option<String>), incoming: &Value) -> Self {
        let pair = |from: Option<String>, name: &str| {
            let from = from?;
            let to = id(Some(incoming), name)?;
            (from != to).then_some((from, to))
        };
        IdRewrite {
            thread: pair(recorded.0, "threadId"),
            run: pair(recorded.1, "runId"),
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

    /// One binary frame (its length, then its message) with the recorded
    /// ids replaced in the id fields of a `RUN_STARTED` (its parent run's
    /// and its input's too) or `RUN_FINISHED`, the lengths around them written
    /// anew; `None` when nothing changes or the bytes are not one whole
    /// frame (a broken one is served as recorded).
    pub fn apply_frame(&self, frame: &[u8]) -> Option<Vec<u8>> {
        let (length, message) = frame.split_first_chunk::<4>()?;
        if u32::from_be_bytes(*length) as usize != message.len() {
            return None;
        }
        let swap = |pair: &Option<(String, String)>, value: &[u8]| {
            pair.as_ref()
                .filter(|(from, _)| from.as_bytes() == value)
                .map(|(_, to)| to.as_bytes().to_vec())
        };
        // Event.run_started = 12 { thread_id = 2, run_id = 3,
        // parent_run_id = 4, input = 5 { thread_id = 1, run_id = 2 } },
        // Event.run_finished =
        // 13 { thread_id = 2, run_id = 3 } (proto/ag_ui.proto).
        let rewritten = map_fields(message, &mut |event, body| match event {
            12 | 13 => map_fields(body, &mut |field, value| match (event, field) {
                (_, 2) => swap(&self.thread, value),
                (_, 3) | (12, 4) => swap(&self.run, value),
                (12, 5) => map_fields(value, &mut |field, value| match field {
                    1 => swap(&self.thread, value),
                    2 => swap(&self.run, value),
                    _ => None,
                }),
                _ => None,
            }),
            _ => None,
        })?;
        let mut out = Vec::with_capacity(rewritten.len() + 4);
        crate::input::proto::write_frame(&rewritten, &mut out);
        Some(out)
    }

    fn pairs(&self) -> impl Iterator<Item = (&str, &str)> {
        [&self.thread, &self.run]
            .into_iter()
            .flatten()
            .map(|(from, to)| (from.as_str(), to.as_str()))
    }
}

/// Given a field's number and bytes, its new bytes, or `None` to keep it.
type FieldEdit<'a> = dyn FnMut(u64, &[u8]) -> Option<Vec<u8>> + 'a;

/// `message` (protocol buffers' wire format) with each length-delimited
/// field for which `edit` returns new bytes given them, its length written
/// anew, and every other byte as it was; `None` when no field changed or
/// the bytes do not parse as a message.
fn map_fields(message: &[u8], edit: &mut FieldEdit<'_>) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(message.len());
    let mut changed = false;
    let mut at = 0;
    while at < message.len() {
        let start = at;
        let key = varint(message, &mut at)?;
        match key & 7 {
            0 => {
                varint(message, &mut at)?;
            }
            1 => at = at.checked_add(8).filter(|&end| end <= message.len())?,
            5 => at = at.checked_add(4).filter(|&end| end <= message.len())?,
            2 => {
                let length = usize::try_from(varint(message, &mut at)?).ok()?;
                let end = at.checked_add(length).filter(|&end| end <= message.len())?;
                let value = &message[at..end];
                if let Some(new) = edit(key >> 3, value) {
                    write_varint(key, &mut out);
                    write_varint(new.len() as u64, &mut out);
                    out.extend_from_slice(&new);
                    changed = true;
                } else {
                    out.extend_from_slice(&message[start..end]);
                }
                at = end;
                continue;
            }
            // Groups (3, 4) and the rest: not a message this can edit.
            _ => return None,
        }
        out.extend_from_slice(&message[start..at]);
    }
    changed.then_some(out)
}

/// The varint at `*at`, which moves past it.
fn varint(bytes: &[u8], at: &mut usize) -> Option<u64> {
    let mut value = 0u64;
    for shift in (0..64).step_by(7) {
        let byte = *bytes.get(*at)?;
        *at += 1;
        value |= u64::from(byte & 0x7f) << shift;
        if byte & 0x80 == 0 {
            return Some(value);
        }
    }
    None
}

fn write_varint(mut value: u64, out: &mut Vec<u8>) {
    while value >= 0x80 {
        out.push((value as u8) | 0x80);
        value >>= 7;
    }
    out.push(value as u8);
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
        // Without a recorded request, the first event tells the ids.
        let first = json!({"type": "RUN_STARTED", "threadId": "t-old", "runId": "r-old"});
        let longer = json!({"threadId": "thread-new", "runId": "r-new"});
        let rewrite = IdRewrite::new(None, Some(&first), &longer);
        assert!(!rewrite.is_identity());
        assert!(IdRewrite::new(Some(&incoming), None, &incoming).is_identity());
    }

    /// A frame of `Event { run_started = 12 { base_event = 1 {}, thread_id
    /// = 2, run_id = 3, unknown 99 = "t-old" } }`.
    fn run_started(thread: &str, run: &str) -> Vec<u8> {
        let mut inner = vec![0x0a, 0x00];
        for (field, text) in [(2u64, thread), (3, run)] {
            write_varint(field << 3 | 2, &mut inner);
            write_varint(text.len() as u64, &mut inner);
            inner.extend_from_slice(text.as_bytes());
        }
        write_varint(99 << 3 | 2, &mut inner);
        inner.extend_from_slice(b"\x05t-old");
        let mut event = Vec::new();
        write_varint(12 << 3 | 2, &mut event);
        write_varint(inner.len() as u64, &mut event);
        event.extend_from_slice(&inner);
        let mut frame = Vec::new();
        crate::input::proto::write_frame(&event, &mut frame);
        frame
    }

    #[test]
    fn a_binary_frame_gets_the_requests_ids_in_its_id_fields_only() {
        let first = json!({"type": "RUN_STARTED", "threadId": "t-old", "runId": "r-old"});
        let longer = json!({"threadId": "thread-new", "runId": "r-new"});
        let rewrite = IdRewrite::new(None, Some(&first), &longer);
        let fitted = rewrite
            .apply_frame(&run_started("t-old", "r-old"))
            .expect("rewritten");
        let mut expected = run_started("thread-new", "r-new");
        // The unknown field keeps the recorded bytes, though they spell
        // the old id.
        assert_eq!(fitted, expected);
        assert!(memchr::memmem::find(&fitted, b"t-old").is_some());
        // A frame with other ids, or a broken one, is left as recorded.
        assert_eq!(rewrite.apply_frame(&run_started("t-x", "r-x")), None);
        expected.pop();
        assert_eq!(rewrite.apply_frame(&expected), None);
        assert_eq!(rewrite.apply_frame(b"\x00\x00"), None);
    }
}
