//! Text as the pages show it: cut to a length, an event said in a line,
//! and the worse of two severities said in words.

use serde_json::Value;

/// `text` cut to at most `max` bytes, on a character boundary, `…` added
/// when cut.
pub(crate) fn clip(text: &str, max: usize) -> String {
    if text.len() <= max {
        return text.to_owned();
    }
    format!("{}…", head(text, max))
}

/// The first `max` bytes of `text` at most, cut on a character boundary.
pub(crate) fn head(text: &str, max: usize) -> &str {
    let mut cut = text.len().min(max);
    while !text.is_char_boundary(cut) {
        cut -= 1;
    }
    &text[..cut]
}

/// A line saying what an event carries: its ids and its text.
pub(crate) fn event_summary(event: &Value) -> String {
    let mut parts = Vec::new();
    for field in [
        "runId",
        "messageId",
        "toolCallId",
        "toolCallName",
        "stepName",
        "role",
        "delta",
        "content",
        "message",
        "code",
    ] {
        if let Some(value) = event.get(field) {
            let text = match value {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            parts.push(format!("{field}: {}", clip(&text, 120)));
        }
    }
    parts.join(" · ")
}

/// The worse of two severities as the page words them (`error`,
/// `warning`, `info`, or anything else for none).
pub(super) fn worse(a: &'static str, b: &'static str) -> &'static str {
    let rank = |s: &str| match s {
        "error" => 3,
        "warning" => 2,
        "info" => 1,
        _ => 0,
    };
    if rank(b) > rank(a) {
        b
    } else {
        a
    }
}
