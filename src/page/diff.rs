//! `agui-lint diff --format html`: two captures' runs side by side, each
//! differing run aligned event by event as the diff aligned it (equal
//! events paired, removed ones on the left alone, added ones on the right,
//! changed ones paired with their members' differences, moved ones on
//! both sides at their places), long stretches of equal events folded.

use std::collections::{HashMap, HashSet};

use agui_lint::unstable::recording::diff::{CaptureDiff, Change, FieldChange, RunDiff, RunStatus};
use agui_lint::unstable::recording::normalize::{NormalEvent, Run};
use serde::Serialize;

use super::text::{clip, event_summary};

/// Equal events kept beside a change; a longer stretch is folded.
const CONTEXT: usize = 2;

/// The most rows a run shows; the rest are counted.
const MAX_ROWS: usize = 2_000;

/// The page's view of a diff.
#[derive(Debug, Serialize)]
pub(crate) struct DiffView {
    pub a: String,
    pub b: String,
    pub runs_a: usize,
    pub runs_b: usize,
    pub runs: Vec<RunSides>,
    /// Findings one capture has that the other lacks: (capture, rule,
    /// how many more, an example).
    pub findings: Vec<(String, String, usize, String)>,
}

/// One differing run, side by side.
#[derive(Debug, Serialize)]
pub(crate) struct RunSides {
    pub run: usize,
    pub status: &'static str,
    pub over_budget: bool,
    pub rows: Vec<SideRow>,
    pub rows_left_out: usize,
}

/// One row: an event on either side or both.
#[derive(Debug, Serialize)]
pub(crate) struct SideRow {
    /// `equal`, `removed`, `added`, `changed`, `moved` or `folded`.
    pub kind: &'static str,
    pub left: Option<Cell>,
    pub right: Option<Cell>,
    /// For a changed pair: each member that differs.
    pub fields: Vec<FieldView>,
    /// For a folded stretch: how many equal events it holds.
    pub folded: usize,
}

/// An event in its run.
#[derive(Debug, Serialize)]
pub(crate) struct Cell {
    /// 1-based place in the run.
    pub n: usize,
    pub event_type: String,
    pub origin: String,
    pub summary: String,
}

/// A member that differs.
#[derive(Debug, Serialize)]
pub(crate) struct FieldView {
    pub pointer: String,
    pub a: Option<String>,
    pub b: Option<String>,
    /// For two texts: `(op, text)` stretches, op `equal`, `removed` or
    /// `added`.
    pub text: Vec<(&'static str, String)>,
}

/// The view of `diff` between the runs `runs_a` of `a` and `runs_b` of `b`.
pub(crate) fn diff_view(
    a: &str,
    b: &str,
    runs_a: &[Run],
    runs_b: &[Run],
    diff: &CaptureDiff,
    findings: Vec<(String, String, usize, String)>,
) -> DiffView {
    DiffView {
        a: a.to_owned(),
        b: b.to_owned(),
        runs_a: diff.runs_a,
        runs_b: diff.runs_b,
        runs: diff
            .runs
            .iter()
            .map(|run| run_sides(run, runs_a, runs_b))
            .collect(),
        findings,
    }
}

fn cell(event: &NormalEvent, n: usize) -> Cell {
    Cell {
        n,
        event_type: event.event_type().to_owned(),
        origin: event.origin.clone(),
        summary: event_summary(&event.value()),
    }
}

fn run_sides(run: &RunDiff, runs_a: &[Run], runs_b: &[Run]) -> RunSides {
    let empty: &[NormalEvent] = &[];
    let (a, b) = match run.status {
        RunStatus::Removed => (events_of(runs_a, run.run), empty),
        RunStatus::Added => (empty, events_of(runs_b, run.run)),
        RunStatus::Changed => (events_of(runs_a, run.run), events_of(runs_b, run.run)),
    };
    let mut removed = HashSet::new();
    let mut added = HashSet::new();
    let mut moved_a = HashMap::new();
    let mut moved_b = HashMap::new();
    let mut changed: HashMap<usize, &[FieldChange]> = HashMap::new();
    for change in &run.changes {
        match change {
            Change::Removed { a, .. } => {
                removed.insert(a.event);
            }
            Change::Added { b, .. } => {
                added.insert(b.event);
            }
            Change::Moved { a, b, .. } => {
                moved_a.insert(a.event, b.event);
                moved_b.insert(b.event, a.event);
            }
            Change::Changed { a, fields, .. } => {
                changed.insert(a.event, fields);
            }
        }
    }
    let mut rows = Vec::new();
    let mut equal: Vec<(usize, usize)> = Vec::new();
    let mut left_out = 0;
    let (mut i, mut j) = (1, 1);
    while i <= a.len() || j <= b.len() {
        let row = if i <= a.len() && (removed.contains(&i) || moved_a.contains_key(&i)) {
            let kind = if removed.contains(&i) {
                "removed"
            } else {
                "moved"
            };
            i += 1;
            SideRow {
                kind,
                left: Some(cell(&a[i - 2], i - 1)),
                right: None,
                fields: Vec::new(),
                folded: 0,
            }
        } else if j <= b.len() && (added.contains(&j) || moved_b.contains_key(&j)) {
            let kind = if added.contains(&j) { "added" } else { "moved" };
            j += 1;
            SideRow {
                kind,
                left: None,
                right: Some(cell(&b[j - 2], j - 1)),
                fields: Vec::new(),
                folded: 0,
            }
        } else if i <= a.len() && j <= b.len() {
            let pair = (i, j);
            i += 1;
            j += 1;
            match changed.get(&pair.0) {
                Some(fields) => SideRow {
                    kind: "changed",
                    left: Some(cell(&a[pair.0 - 1], pair.0)),
                    right: Some(cell(&b[pair.1 - 1], pair.1)),
                    fields: fields.iter().map(field_view).collect(),
                    folded: 0,
                },
                None => {
                    equal.push(pair);
                    continue;
                }
            }
        } else {
            // One side ran out with no change said: shown alone.
            let (left, right) = if i <= a.len() {
                i += 1;
                (Some(cell(&a[i - 2], i - 1)), None)
            } else {
                j += 1;
                (None, Some(cell(&b[j - 2], j - 1)))
            };
            SideRow {
                kind: "equal",
                left,
                right,
                fields: Vec::new(),
                folded: 0,
            }
        };
        flush_equal(&mut equal, a, b, true, &mut |r| {
            push(&mut rows, r, &mut left_out)
        });
        push(&mut rows, row, &mut left_out);
    }
    flush_equal(&mut equal, a, b, false, &mut |r| {
        push(&mut rows, r, &mut left_out);
    });
    RunSides {
        run: run.run,
        status: match run.status {
            RunStatus::Removed => "removed",
            RunStatus::Added => "added",
            RunStatus::Changed => "changed",
        },
        over_budget: run.over_budget,
        rows,
        rows_left_out: left_out,
    }
}

/// The events of the `run`-th (1-based) of `runs`, none when it has none.
fn events_of(runs: &[Run], run: usize) -> &[NormalEvent] {
    runs.get(run.saturating_sub(1))
        .map_or(&[], |r| r.events.as_slice())
}

/// Adds `row` unless the run shows [`MAX_ROWS`] already (then counts it).
fn push(rows: &mut Vec<SideRow>, row: SideRow, left_out: &mut usize) {
    if rows.len() < MAX_ROWS {
        rows.push(row);
    } else {
        *left_out += 1;
    }
}

/// The equal pairs met since the last change: shown when few, else the
/// first and last [`CONTEXT`] around a folded stretch (`before_change`:
/// a change follows them).
fn flush_equal(
    equal: &mut Vec<(usize, usize)>,
    a: &[NormalEvent],
    b: &[NormalEvent],
    before_change: bool,
    push: &mut dyn FnMut(SideRow),
) {
    let row = |&(i, j): &(usize, usize)| SideRow {
        kind: "equal",
        left: Some(cell(&a[i - 1], i)),
        right: Some(cell(&b[j - 1], j)),
        fields: Vec::new(),
        folded: 0,
    };
    let keep_after = if before_change { CONTEXT } else { 0 };
    if equal.len() <= 2 * CONTEXT + 1 {
        equal.iter().map(row).for_each(&mut *push);
    } else {
        equal[..CONTEXT].iter().map(row).for_each(&mut *push);
        push(SideRow {
            kind: "folded",
            left: None,
            right: None,
            fields: Vec::new(),
            folded: equal.len() - CONTEXT - keep_after,
        });
        equal[equal.len() - keep_after..]
            .iter()
            .map(row)
            .for_each(&mut *push);
    }
    equal.clear();
}

fn field_view(field: &FieldChange) -> FieldView {
    let shown = |v: &Option<serde_json::Value>| v.as_ref().map(|v| clip(&v.to_string(), 400));
    FieldView {
        pointer: field.pointer.clone(),
        a: shown(&field.a),
        b: shown(&field.b),
        text: field
            .text
            .iter()
            .map(|part| (part.op, clip(&part.text, 2_000)))
            .collect(),
    }
}
