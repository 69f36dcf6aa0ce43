//! The events around a fault in a run's body, for a failure's reason: a
//! server author reads what came back where the stream went wrong, not
//! only the event's number.

use super::exchange::one_line;
use crate::input::sse::SseFramer;
use crate::Framing;

/// Events shown before the faulty one.
const BEFORE: usize = 2;
/// Events shown after it.
const AFTER: usize = 1;
/// Characters of an event shown; the rest is elided.
const MOST: usize = 100;

/// The events of `body` (framed by `framing`) around its record `record`
/// (1-based, numbered as the stream checker numbers them: the SSE event,
/// the JSON Lines line), one a line, the faulty one marked; empty when the
/// body has no such record. Reads the body once and keeps only the window.
pub fn events_around(body: &[u8], framing: Framing, record: usize) -> String {
    let first = record.saturating_sub(BEFORE).max(1);
    let last = record.saturating_add(AFTER);
    let mut shown: Vec<(usize, String)> = Vec::new();
    let mut keep = |n: usize, data: &[u8]| {
        if (first..=last).contains(&n) {
            shown.push((n, one_line(data, MOST)));
        }
        n < last
    };
    match framing {
        Framing::JsonLines => {
            for (i, line) in body.split(|b| *b == b'\n').enumerate() {
                let line = line.strip_suffix(b"\r").unwrap_or(line);
                if line.iter().all(u8::is_ascii_whitespace) && i + 1 != record {
                    continue;
                }
                if !keep(i + 1, line) {
                    break;
                }
            }
        }
        _ => {
            for event in SseFramer::read(body) {
                let Ok(event) = event else { break };
                if !keep(event.index, &event.data) {
                    break;
                }
            }
        }
    }
    if !shown.iter().any(|(n, _)| *n == record) {
        return String::new();
    }
    shown
        .iter()
        .map(|(n, text)| {
            let mark = if *n == record { "→" } else { " " };
            format!("{mark} {n:>4} {text}")
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    const SSE: &[u8] = b"data: {\"type\":\"RUN_STARTED\"}\n\n: a comment\n\ndata: {\"type\":\"A\"}\n\ndata: {\"type\":\"B\"}\n\ndata: {\"type\":\"C\"}\n\ndata: {\"type\":\"D\"}\n\n";

    #[test]
    fn the_faulty_event_is_marked_among_its_neighbours() {
        let shown = events_around(SSE, Framing::Sse, 4);
        assert_eq!(
            shown,
            "     2 {\"type\":\"A\"}\n     3 {\"type\":\"B\"}\n→    4 {\"type\":\"C\"}\n     5 {\"type\":\"D\"}"
        );
    }

    #[test]
    fn the_window_stops_at_the_stream_s_ends() {
        let shown = events_around(SSE, Framing::Sse, 1);
        assert!(
            shown.starts_with("→    1 {\"type\":\"RUN_STARTED\"}\n     2"),
            "{shown}"
        );
        assert_eq!(shown.lines().count(), 2);
        assert_eq!(events_around(SSE, Framing::Sse, 9), "");
    }

    #[test]
    fn json_lines_are_numbered_by_line() {
        let body = b"{\"type\":\"A\"}\r\n\n{\"type\":\"B\"}\n";
        assert_eq!(
            events_around(body, Framing::JsonLines, 3),
            "     1 {\"type\":\"A\"}\n→    3 {\"type\":\"B\"}"
        );
    }

    #[test]
    fn a_long_event_is_cut() {
        let body = format!("data: {{\"delta\":\"{}\"}}\n\n", "x".repeat(5000));
        let shown = events_around(body.as_bytes(), Framing::Sse, 1);
        assert!(
            shown.ends_with('…') && shown.chars().count() < 120,
            "{shown}"
        );
    }
}
