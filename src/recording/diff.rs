//! Two captures' runs compared event by event, after normalisation
//! ([`super::normalize`]): runs are paired in order, and within a pair the
//! events are aligned (a longest common subsequence, by `similar`'s Myers
//! diff) into events added, removed, moved and changed, a changed event
//! with each member that differs and, for text, what of it changed.
//!
//! Aligning is bounded by what it really costs: what two runs share at
//! their start and end is matched in linear time, and the part between is
//! aligned by Myers' diff where its sides are alike in length (its cost,
//! the sides' sum times their distance, is then within a small multiple of
//! [`ALIGN_BUDGET`]), by a table of common lengths where one side is much
//! shorter (its cost the sides' product, within [`ALIGN_BUDGET`]), and not
//! at all past that: the part is reported as removed on one side and added
//! on the other, no event of it called moved, and the run's diff says so.
//! Word diffs of texts have a deadline each and a budget across the diff.

use std::collections::{HashMap, VecDeque};

use serde::Serialize;
use serde_json::Value;
use similar::{capture_diff_slices, Algorithm, ChangeTag, DiffOp, TextDiff};

use super::normalize::{NormalEvent, Run};

/// The most pairs of events aligned in one run: beyond it, the differing
/// middle of two runs is reported whole rather than aligned, so that two
/// unrelated captures cost time linear in their size.
pub const ALIGN_BUDGET: usize = 4_000_000;

/// Texts longer than this (in bytes) are not diffed word by word; their
/// change is reported as their two values.
const TEXT_DIFF_LIMIT: usize = 64 * 1024;

/// The most bytes of text diffed word by word in one capture's diff;
/// past it, changed texts are reported as their two values.
const TEXT_DIFF_BUDGET: usize = 16 * 1024 * 1024;

/// How long one word diff may take before it settles for a coarser
/// answer (still correct: what it calls equal is equal).
const TEXT_DIFF_DEADLINE: std::time::Duration = std::time::Duration::from_millis(100);

/// How two captures' runs differ.
#[derive(Debug, Clone, Serialize)]
pub struct CaptureDiff {
    /// The runs of the first capture.
    pub runs_a: usize,
    /// The runs of the second capture.
    pub runs_b: usize,
    /// Each run pair (or unpaired run) that differs, in order.
    pub runs: Vec<RunDiff>,
}

impl CaptureDiff {
    /// Whether the two captures hold the same runs.
    pub fn is_empty(&self) -> bool {
        self.runs.is_empty()
    }
}

/// How one run of the first capture differs from the run at the same
/// place in the second.
#[derive(Debug, Clone, Serialize)]
pub struct RunDiff {
    /// The run's 1-based place in its capture.
    pub run: usize,
    /// The run has no counterpart in the second capture (`"removed"`) or
    /// the first (`"added"`), or is in both (`"changed"`).
    pub status: RunStatus,
    /// The run's middle was too large to align within the budget: its
    /// events are reported removed and added wholesale.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub over_budget: bool,
    /// What changed, in the order of the events.
    pub changes: Vec<Change>,
}

/// Whether a run is in one capture, the other or both.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum RunStatus {
    /// Only in the first capture.
    Removed,
    /// Only in the second capture.
    Added,
    /// In both, differing.
    Changed,
}

/// One event's place: its 1-based position in its run, and where it is in
/// its capture.
#[derive(Debug, Clone, Serialize)]
pub struct At {
    /// 1-based position among the run's normalised events.
    pub event: usize,
    /// Where the event is in its capture.
    pub origin: String,
}

/// One difference between two runs.
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum Change {
    /// An event only the first run has.
    Removed {
        /// Its type.
        #[serde(rename = "type")]
        event_type: String,
        /// Where it is in the first.
        a: At,
        /// The event, normalised.
        event: Value,
    },
    /// An event only the second run has.
    Added {
        /// Its type.
        #[serde(rename = "type")]
        event_type: String,
        /// Where it is in the second.
        b: At,
        /// The event, normalised.
        event: Value,
    },
    /// The same event at another place.
    Moved {
        /// Its type.
        #[serde(rename = "type")]
        event_type: String,
        /// Where it is in the first.
        a: At,
        /// Where it is in the second.
        b: At,
    },
    /// An event of the same type at the same place, with members that
    /// differ.
    Changed {
        /// Its type.
        #[serde(rename = "type")]
        event_type: String,
        /// Where it is in the first.
        a: At,
        /// Where it is in the second.
        b: At,
        /// Each member that differs.
        fields: Vec<FieldChange>,
    },
}

/// One member that differs between two events.
#[derive(Debug, Clone, Serialize)]
pub struct FieldChange {
    /// Its JSON pointer in the event.
    pub pointer: String,
    /// Its value in the first (absent: `null` with `a_missing`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub a: Option<Value>,
    /// Its value in the second.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub b: Option<Value>,
    /// For two texts: what was kept, removed and added, word by word.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub text: Vec<TextPart>,
}

/// A stretch of a text diff.
#[derive(Debug, Clone, Serialize)]
pub struct TextPart {
    /// `"equal"`, `"removed"` or `"added"`.
    pub op: &'static str,
    /// The text.
    pub text: String,
}

/// How `a`'s runs differ from `b`'s.
pub fn diff(a: &[Run], b: &[Run]) -> CaptureDiff {
    let mut runs = Vec::new();
    let mut text_budget = TEXT_DIFF_BUDGET;
    for index in 0..a.len().max(b.len()) {
        let diff = match (a.get(index), b.get(index)) {
            (Some(run_a), Some(run_b)) => diff_run(index + 1, run_a, run_b, &mut text_budget),
            (Some(run_a), None) => whole(index + 1, run_a, RunStatus::Removed),
            (None, Some(run_b)) => whole(index + 1, run_b, RunStatus::Added),
            (None, None) => None,
        };
        runs.extend(diff);
    }
    CaptureDiff {
        runs_a: a.len(),
        runs_b: b.len(),
        runs,
    }
}

/// A run only one capture has.
fn whole(run: usize, events: &Run, status: RunStatus) -> Option<RunDiff> {
    let changes = events
        .events
        .iter()
        .enumerate()
        .map(|(i, event)| one_sided(event, i, status == RunStatus::Removed))
        .collect();
    Some(RunDiff {
        run,
        status,
        over_budget: false,
        changes,
    })
}

/// An event of one side only.
fn one_sided(event: &NormalEvent, index: usize, removed: bool) -> Change {
    let at = At {
        event: index + 1,
        origin: event.origin.clone(),
    };
    let event_type = event.event_type().to_owned();
    let value = event.value();
    if removed {
        Change::Removed {
            event_type,
            a: at,
            event: value,
        }
    } else {
        Change::Added {
            event_type,
            b: at,
            event: value,
        }
    }
}

/// How two runs at the same place differ, if they do.
fn diff_run(run: usize, a: &Run, b: &Run, text_budget: &mut usize) -> Option<RunDiff> {
    let (a, b) = (&a.events, &b.events);
    let head = a.iter().zip(b).take_while(|(x, y)| x.key == y.key).count();
    let tail = a[head..]
        .iter()
        .rev()
        .zip(b[head..].iter().rev())
        .take_while(|(x, y)| x.key == y.key)
        .count();
    let (middle_a, middle_b) = (head..a.len() - tail, head..b.len() - tail);
    if middle_a.is_empty() && middle_b.is_empty() {
        return None;
    }
    let keys_a: Vec<u128> = a[middle_a.clone()].iter().map(|e| e.key).collect();
    let keys_b: Vec<u128> = b[middle_b.clone()].iter().map(|e| e.key).collect();
    let aligned = align(&keys_a, &keys_b);
    let over_budget = aligned.is_none();
    let ops: Vec<DiffOp> = match aligned {
        Some(ops) => ops.into_iter().map(|op| shift(op, head)).collect(),
        None => vec![DiffOp::Replace {
            old_index: middle_a.start,
            old_len: middle_a.len(),
            new_index: middle_b.start,
            new_len: middle_b.len(),
        }],
    };
    let mut changes = Vec::new();
    for op in ops {
        match op {
            DiffOp::Equal { .. } => {}
            DiffOp::Delete {
                old_index, old_len, ..
            } => {
                changes.extend((old_index..old_index + old_len).map(|i| one_sided(&a[i], i, true)));
            }
            DiffOp::Insert {
                new_index, new_len, ..
            } => {
                changes
                    .extend((new_index..new_index + new_len).map(|j| one_sided(&b[j], j, false)));
            }
            DiffOp::Replace {
                old_index,
                old_len,
                new_index,
                new_len,
            } => {
                let paired = if over_budget { 0 } else { old_len.min(new_len) };
                // Events of one type at the same place are one event
                // changed; the others are listed removed, then added.
                let (mut removed, mut added) = (Vec::new(), Vec::new());
                for k in 0..paired {
                    let (i, j) = (old_index + k, new_index + k);
                    if a[i].event_type() == b[j].event_type() {
                        changes.append(&mut removed);
                        changes.append(&mut added);
                        changes.push(Change::Changed {
                            event_type: a[i].event_type().to_owned(),
                            a: At {
                                event: i + 1,
                                origin: a[i].origin.clone(),
                            },
                            b: At {
                                event: j + 1,
                                origin: b[j].origin.clone(),
                            },
                            fields: field_changes_within(&a[i].value(), &b[j].value(), text_budget),
                        });
                    } else {
                        removed.push(one_sided(&a[i], i, true));
                        added.push(one_sided(&b[j], j, false));
                    }
                }
                removed.extend(
                    (old_index + paired..old_index + old_len).map(|i| one_sided(&a[i], i, true)),
                );
                added.extend(
                    (new_index + paired..new_index + new_len).map(|j| one_sided(&b[j], j, false)),
                );
                changes.append(&mut removed);
                changes.append(&mut added);
            }
        }
    }
    // Unaligned, the events of the two sides may be the same ones in the
    // same order: none is called moved.
    let changes = if over_budget {
        changes
    } else {
        moves(changes, a, b)
    };
    Some(RunDiff {
        run,
        status: RunStatus::Changed,
        over_budget,
        changes,
    })
}

/// The operations that turn `a` into `b`, or `None` when aligning them
/// would cost more than the budget (see the module's comment).
fn align(a: &[u128], b: &[u128]) -> Option<Vec<DiffOp>> {
    let (n, m) = (a.len(), b.len());
    let sum = n.saturating_add(m);
    // Myers' diff costs the sum times the edit distance, which is at
    // most the sum: within budget when the sum squared is.
    if sum.saturating_mul(sum) <= 4 * ALIGN_BUDGET {
        return Some(capture_diff_slices(Algorithm::Myers, a, b));
    }
    if n.saturating_mul(m) <= ALIGN_BUDGET {
        return Some(common_lengths(a, b));
    }
    None
}

/// A longest common subsequence of `a` and `b` by the table of common
/// lengths of their suffixes (time and memory their lengths' product),
/// as operations: equal stretches, and between them what was deleted and
/// inserted (a replacement where both).
fn common_lengths(a: &[u128], b: &[u128]) -> Vec<DiffOp> {
    let (n, m) = (a.len(), b.len());
    let width = m + 1;
    // table[i * width + j]: the common length of a[i..] and b[j..].
    let mut table = vec![0u32; (n + 1) * width];
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            table[i * width + j] = if a[i] == b[j] {
                table[(i + 1) * width + j + 1] + 1
            } else {
                table[(i + 1) * width + j].max(table[i * width + j + 1])
            };
        }
    }
    let mut ops = Vec::new();
    let (mut i, mut j) = (0, 0);
    // The pending stretch: where it starts, and how much is deleted and
    // inserted, or how much is equal.
    let (mut deleted, mut inserted, mut equal) = (0usize, 0usize, 0usize);
    let (mut from_i, mut from_j) = (0, 0);
    let flush_changes = |ops: &mut Vec<DiffOp>,
                         at: (usize, usize),
                         deleted: usize,
                         inserted: usize| match (deleted, inserted) {
        (0, 0) => {}
        (d, 0) => ops.push(DiffOp::Delete {
            old_index: at.0,
            old_len: d,
            new_index: at.1,
        }),
        (0, k) => ops.push(DiffOp::Insert {
            old_index: at.0,
            new_index: at.1,
            new_len: k,
        }),
        (d, k) => ops.push(DiffOp::Replace {
            old_index: at.0,
            old_len: d,
            new_index: at.1,
            new_len: k,
        }),
    };
    while i < n || j < m {
        if i < n && j < m && a[i] == b[j] {
            if equal == 0 {
                flush_changes(&mut ops, (from_i, from_j), deleted, inserted);
                (deleted, inserted) = (0, 0);
                (from_i, from_j) = (i, j);
            }
            equal += 1;
            i += 1;
            j += 1;
            continue;
        }
        if equal > 0 {
            ops.push(DiffOp::Equal {
                old_index: from_i,
                new_index: from_j,
                len: equal,
            });
            equal = 0;
            (from_i, from_j) = (i, j);
        }
        if j == m || (i < n && table[(i + 1) * width + j] >= table[i * width + j + 1]) {
            deleted += 1;
            i += 1;
        } else {
            inserted += 1;
            j += 1;
        }
    }
    if equal > 0 {
        ops.push(DiffOp::Equal {
            old_index: from_i,
            new_index: from_j,
            len: equal,
        });
    } else {
        flush_changes(&mut ops, (from_i, from_j), deleted, inserted);
    }
    ops
}

/// `op` with its indices counted from the run's start rather than from
/// the middle's.
fn shift(op: DiffOp, by: usize) -> DiffOp {
    match op {
        DiffOp::Equal {
            old_index,
            new_index,
            len,
        } => DiffOp::Equal {
            old_index: old_index + by,
            new_index: new_index + by,
            len,
        },
        DiffOp::Delete {
            old_index,
            old_len,
            new_index,
        } => DiffOp::Delete {
            old_index: old_index + by,
            old_len,
            new_index: new_index + by,
        },
        DiffOp::Insert {
            old_index,
            new_index,
            new_len,
        } => DiffOp::Insert {
            old_index: old_index + by,
            new_index: new_index + by,
            new_len,
        },
        DiffOp::Replace {
            old_index,
            old_len,
            new_index,
            new_len,
        } => DiffOp::Replace {
            old_index: old_index + by,
            old_len,
            new_index: new_index + by,
            new_len,
        },
    }
}

/// An event removed at one place and the same event added at another
/// become one move.
fn moves(changes: Vec<Change>, a: &[NormalEvent], b: &[NormalEvent]) -> Vec<Change> {
    let mut added: HashMap<u128, VecDeque<usize>> = HashMap::new();
    for (k, change) in changes.iter().enumerate() {
        if let Change::Added { b: at, .. } = change {
            added.entry(b[at.event - 1].key).or_default().push_back(k);
        }
    }
    let mut moved_to: HashMap<usize, usize> = HashMap::new(); // added change -> removed change
    let mut out_of: HashMap<usize, usize> = HashMap::new();
    for (k, change) in changes.iter().enumerate() {
        if let Change::Removed { a: at, .. } = change {
            if let Some(target) = added
                .get_mut(&a[at.event - 1].key)
                .and_then(VecDeque::pop_front)
            {
                moved_to.insert(target, k);
                out_of.insert(k, target);
            }
        }
    }
    if out_of.is_empty() {
        return changes;
    }
    let mut result = Vec::with_capacity(changes.len() - out_of.len());
    for (k, change) in changes.iter().enumerate() {
        if moved_to.contains_key(&k) {
            continue;
        }
        match (change, out_of.get(&k)) {
            (Change::Removed { event_type, a, .. }, Some(&target)) => {
                if let Change::Added { b, .. } = &changes[target] {
                    result.push(Change::Moved {
                        event_type: event_type.clone(),
                        a: a.clone(),
                        b: b.clone(),
                    });
                }
            }
            _ => result.push(change.clone()),
        }
    }
    result
}

/// Each member that differs between `a` and `b`, by JSON pointer.
pub fn field_changes(a: &Value, b: &Value) -> Vec<FieldChange> {
    let mut budget = TEXT_DIFF_BUDGET;
    field_changes_within(a, b, &mut budget)
}

/// [`field_changes`], texts diffed word by word while `text_budget`
/// (bytes) lasts.
fn field_changes_within(a: &Value, b: &Value, text_budget: &mut usize) -> Vec<FieldChange> {
    let mut out = Vec::new();
    compare(a, b, &mut String::new(), &mut out, text_budget);
    out
}

fn compare(
    a: &Value,
    b: &Value,
    pointer: &mut String,
    out: &mut Vec<FieldChange>,
    text_budget: &mut usize,
) {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            for (name, value) in x {
                let len = pointer.len();
                push_token(pointer, name);
                match y.get(name) {
                    Some(other) => compare(value, other, pointer, out, text_budget),
                    None => out.push(change(pointer, Some(value), None, text_budget)),
                }
                pointer.truncate(len);
            }
            for (name, value) in y {
                if !x.contains_key(name) {
                    let len = pointer.len();
                    push_token(pointer, name);
                    out.push(change(pointer, None, Some(value), text_budget));
                    pointer.truncate(len);
                }
            }
        }
        (Value::Array(x), Value::Array(y)) if x.len() == y.len() => {
            for (i, (p, q)) in x.iter().zip(y).enumerate() {
                let len = pointer.len();
                pointer.push('/');
                pointer.push_str(&i.to_string());
                compare(p, q, pointer, out, text_budget);
                pointer.truncate(len);
            }
        }
        _ if a == b => {}
        _ => out.push(change(pointer, Some(a), Some(b), text_budget)),
    }
}

fn push_token(pointer: &mut String, name: &str) {
    pointer.push('/');
    pointer.push_str(&name.replace('~', "~0").replace('/', "~1"));
}

fn change(
    pointer: &str,
    a: Option<&Value>,
    b: Option<&Value>,
    text_budget: &mut usize,
) -> FieldChange {
    let text = match (a, b) {
        (Some(Value::String(x)), Some(Value::String(y)))
            if x.len() + y.len() <= TEXT_DIFF_LIMIT.min(*text_budget) =>
        {
            *text_budget -= x.len() + y.len();
            text_parts(x, y)
        }
        _ => Vec::new(),
    };
    FieldChange {
        pointer: pointer.to_owned(),
        a: a.cloned(),
        b: b.cloned(),
        text,
    }
}

/// What of text `a` was kept, removed and added in `b`, word by word,
/// adjacent parts of one kind merged.
fn text_parts(a: &str, b: &str) -> Vec<TextPart> {
    let diff = TextDiff::configure()
        .deadline(std::time::Instant::now() + TEXT_DIFF_DEADLINE)
        .diff_words(a, b);
    let mut parts: Vec<TextPart> = Vec::new();
    for change in diff.iter_all_changes() {
        let op = match change.tag() {
            ChangeTag::Equal => "equal",
            ChangeTag::Delete => "removed",
            ChangeTag::Insert => "added",
        };
        match parts.last_mut() {
            Some(last) if last.op == op => last.text.push_str(change.value()),
            _ => parts.push(TextPart {
                op,
                text: change.value().to_owned(),
            }),
        }
    }
    parts
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::recording::capture::read_capture;
    use crate::recording::normalize::{runs, Normalization};
    use std::path::Path;

    fn runs_of(text: &str) -> Vec<Run> {
        let capture = read_capture(text.as_bytes(), Path::new("c.jsonl")).expect("capture");
        runs(&capture, Normalization::default())
    }

    const RUN: &str = r#"{"type":"RUN_STARTED","threadId":"t1","runId":"r1","timestamp":1}
{"type":"TEXT_MESSAGE_START","messageId":"m1","role":"assistant"}
{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"The weather "}
{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"is sunny."}
{"type":"TEXT_MESSAGE_END","messageId":"m1"}
{"type":"RUN_FINISHED","threadId":"t1","runId":"r1"}
"#;

    #[test]
    fn the_same_run_recorded_twice_diffs_empty() {
        let again = RUN
            .replace("t1", "thread-b")
            .replace("r1", "run-b")
            .replace("m1", "msg-b")
            .replace("\"timestamp\":1", "\"timestamp\":99")
            .replace(
                r#""delta":"The weather "}"#,
                r#""delta":"The "}
{"type":"TEXT_MESSAGE_CONTENT","messageId":"msg-b","delta":"weather "}"#,
            );
        let diff = diff(&runs_of(RUN), &runs_of(&again));
        assert!(diff.is_empty(), "{diff:?}");
    }

    #[test]
    fn a_planted_change_shows_with_its_text() {
        let changed = RUN.replace("is sunny.", "is rainy.");
        let diff = diff(&runs_of(RUN), &runs_of(&changed));
        assert_eq!(diff.runs.len(), 1);
        let [Change::Changed { fields, a, .. }] = diff.runs[0].changes.as_slice() else {
            panic!("{diff:?}");
        };
        assert_eq!(a.event, 3);
        assert_eq!(fields[0].pointer, "/delta");
        let removed: Vec<&str> = fields[0]
            .text
            .iter()
            .filter(|p| p.op == "removed")
            .map(|p| p.text.as_str())
            .collect();
        assert_eq!(removed, ["sunny."]);
    }

    #[test]
    fn events_added_removed_and_moved() {
        let lines: Vec<&str> = RUN.lines().collect();
        // Drop the end of the message, and swap nothing else.
        let removed = [lines[0], lines[1], lines[2], lines[3], lines[5]].join("\n");
        let diff = diff(&runs_of(RUN), &runs_of(&removed));
        assert!(matches!(
            diff.runs[0].changes.as_slice(),
            [Change::Removed { event_type, .. }] if event_type == "TEXT_MESSAGE_END"
        ));
        let extra = format!("{RUN}{}\n", lines[0]);
        let diff = super::diff(&runs_of(RUN), &runs_of(&extra));
        assert_eq!(diff.runs_b, 2);
        assert_eq!(diff.runs[0].status, RunStatus::Added);
        let swapped = [lines[0], lines[4], lines[1], lines[2], lines[3], lines[5]].join("\n");
        let diff = super::diff(&runs_of(RUN), &runs_of(&swapped));
        assert!(
            diff.runs[0]
                .changes
                .iter()
                .any(|c| matches!(c, Change::Moved { .. })),
            "{diff:?}"
        );
    }

    #[test]
    fn unrelated_runs_past_the_budget_are_reported_whole() {
        let a: String = (0..2_100)
            .map(|i| format!("{{\"type\":\"CUSTOM\",\"name\":\"a{i}\",\"value\":1}}\n"))
            .collect();
        let b: String = (0..2_100)
            .map(|i| format!("{{\"type\":\"CUSTOM\",\"name\":\"b{i}\",\"value\":1}}\n"))
            .collect();
        let diff = diff(&runs_of(&a), &runs_of(&b));
        assert!(diff.runs[0].over_budget);
        assert_eq!(diff.runs[0].changes.len(), 4_200);
    }

    #[test]
    fn past_the_budget_the_same_events_are_never_called_moved() {
        // The same 2,100 events between a different first and last: too
        // many pairs to align, so the middle is given up whole, and none
        // of the events it holds on both sides is a move.
        let lines = |first: &str, last: &str| {
            let mut text = format!("{{\"type\":\"CUSTOM\",\"name\":\"{first}\",\"value\":0}}\n");
            for i in 0..2_100 {
                text.push_str(&format!(
                    "{{\"type\":\"CUSTOM\",\"name\":\"e{i}\",\"value\":{i}}}\n"
                ));
            }
            text.push_str(&format!(
                "{{\"type\":\"CUSTOM\",\"name\":\"{last}\",\"value\":0}}\n"
            ));
            text
        };
        let read = |text: String| {
            let capture =
                read_capture(text.as_bytes(), std::path::Path::new("c.jsonl")).expect("capture");
            runs(&capture, Normalization::default())
        };
        let found = diff(&read(lines("x", "y")), &read(lines("z", "w")));
        let run = &found.runs[0];
        assert!(run.over_budget);
        assert!(!run
            .changes
            .iter()
            .any(|c| matches!(c, Change::Moved { .. })));
        assert_eq!(run.changes.len(), 2 * 2_102);
        // Within the budget, one side short: aligned by common lengths.
        let short = "{\"type\":\"CUSTOM\",\"name\":\"x\",\"value\":0}\n{\"type\":\"CUSTOM\",\"name\":\"e7\",\"value\":7}\n".to_owned();
        let found = diff(&read(lines("x", "y")), &read(short));
        let run = &found.runs[0];
        assert!(!run.over_budget);
        // e7 is kept; the rest of the long side removed.
        assert_eq!(run.changes.len(), 2_100);
        assert!(run
            .changes
            .iter()
            .all(|c| matches!(c, Change::Removed { .. })));
    }
}
