//! `agui-lint diff A B`: the runs of two captures compared after
//! normalisation, printed for a person or as JSON; with `--findings`, the
//! findings one capture has that the other lacks, counted by rule.

use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::path::Path;
use std::process::ExitCode;

use agui_lint::unstable::check::check_source;
use agui_lint::unstable::input::Source;
use agui_lint::unstable::recording::diff::{diff, CaptureDiff, Change, FieldChange, RunStatus};
use agui_lint::unstable::recording::normalize::{into_runs, Normalization};
use agui_lint::unstable::recording::read_capture;
use agui_lint::Validator;
use serde::Serialize;
use serde_json::{json, Value};

use crate::cli::{DiffArgs, DiffFormat};

/// Findings of one rule in one capture but not (as many) in the other.
#[derive(Debug, Serialize)]
struct RuleCount {
    rule: String,
    /// How many more the capture has than the other.
    more: usize,
    /// The first such finding's message and place, as an example.
    example: String,
}

/// Runs the command.
pub(crate) fn command(args: &DiffArgs) -> Result<ExitCode, String> {
    let how = Normalization {
        join_pieces: !args.keep_pieces,
    };
    let runs_a = into_runs(read(&args.a)?, how);
    let runs_b = into_runs(read(&args.b)?, how);
    let diff = diff(&runs_a, &runs_b);
    let findings = if args.findings {
        Some((
            findings_of(&args.a, &args.b)?,
            findings_of(&args.b, &args.a)?,
        ))
    } else {
        None
    };
    let findings_differ = findings
        .as_ref()
        .is_some_and(|(a, b)| !a.is_empty() || !b.is_empty());
    let text = match args.format {
        DiffFormat::Json => {
            let mut document = json!({
                "a": args.a.display().to_string(),
                "b": args.b.display().to_string(),
                "equal": diff.is_empty() && !findings_differ,
                "diff": diff,
            });
            if let Some((only_a, only_b)) = &findings {
                document["findings"] = json!({"onlyA": only_a, "onlyB": only_b});
            }
            let mut text = serde_json::to_string_pretty(&document)
                .map_err(|e| format!("cannot write JSON: {e}"))?;
            text.push('\n');
            text
        }
        DiffFormat::Human => human(args, &diff, findings.as_ref()),
        DiffFormat::Html => {
            let (a, b) = (args.a.display().to_string(), args.b.display().to_string());
            let findings = findings
                .iter()
                .flat_map(|(only_a, only_b)| {
                    let a = only_a.iter().map(|c| (a.clone(), c));
                    let b = only_b.iter().map(|c| (b.clone(), c));
                    a.chain(b)
                })
                .map(|(name, c)| (name, c.rule.clone(), c.more, c.example.clone()))
                .collect();
            let view = crate::page::diff::diff_view(&a, &b, &runs_a, &runs_b, &diff, findings);
            crate::page::render::diff_page(&view)?
        }
    };
    match &args.output {
        Some(path) => std::fs::write(path, text.as_bytes())
            .map_err(|e| format!("{}: cannot write: {e}", path.display()))?,
        None => std::io::stdout()
            .lock()
            .write_all(text.as_bytes())
            .map_err(|e| format!("cannot write: {e}"))?,
    }
    Ok(if diff.is_empty() && !findings_differ {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// The capture at `path` (`-`: standard input).
fn read(path: &Path) -> Result<agui_lint::unstable::recording::Capture, String> {
    let name = path.display();
    let bytes = if path == Path::new("-") {
        let mut bytes = Vec::new();
        std::io::stdin()
            .read_to_end(&mut bytes)
            .map_err(|e| format!("-: cannot read: {e}"))?;
        bytes
    } else {
        std::fs::read(path).map_err(|e| format!("{name}: cannot read: {e}"))?
    };
    read_capture(&bytes, path).map_err(|e| format!("{name}: {e}"))
}

/// The findings of the capture at `path` that the one at `other` lacks,
/// counted by rule.
fn findings_of(path: &Path, other: &Path) -> Result<Vec<RuleCount>, String> {
    let mine = rule_counts(path)?;
    let theirs = rule_counts(other)?;
    Ok(mine
        .into_iter()
        .filter_map(|(rule, (count, example))| {
            let more = count.saturating_sub(theirs.get(&rule).map_or(0, |(n, _)| *n));
            (more > 0).then_some(RuleCount {
                rule,
                more,
                example,
            })
        })
        .collect())
}

/// Each rule the capture at `path` breaks, how often, and its first
/// finding's place and message.
fn rule_counts(path: &Path) -> Result<BTreeMap<String, (usize, String)>, String> {
    let validator = Validator::new().map_err(|e| e.to_string())?;
    let source = if path == Path::new("-") {
        return Err("--findings needs both captures as files".to_owned());
    } else {
        Source::File(path.to_path_buf())
    };
    let mut counts: BTreeMap<String, (usize, String)> = BTreeMap::new();
    check_source(&validator, &source, None, &mut |checked| {
        let place = checked.place();
        for diagnostic in checked.report.diagnostics() {
            let entry = counts.entry(diagnostic.rule.clone()).or_insert_with(|| {
                let at = place.clone().map(|p| format!("{p}: ")).unwrap_or_default();
                (0, format!("{at}{}", diagnostic.message))
            });
            entry.0 += 1;
        }
    })
    .map_err(|failure| format!("{}: {}", failure.path, failure.message))?;
    Ok(counts)
}

/// The diff for a person.
fn human(
    args: &DiffArgs,
    diff: &CaptureDiff,
    findings: Option<&(Vec<RuleCount>, Vec<RuleCount>)>,
) -> String {
    let (a, b) = (args.a.display(), args.b.display());
    let mut out = String::new();
    if diff.is_empty() {
        out.push_str(&format!(
            "{a} and {b}: the same {} run(s) after normalisation\n",
            diff.runs_a
        ));
    } else {
        out.push_str(&format!(
            "{a} ({} run(s)) and {b} ({} run(s)) differ in {} run(s)\n",
            diff.runs_a,
            diff.runs_b,
            diff.runs.len()
        ));
    }
    for run in &diff.runs {
        out.push('\n');
        match run.status {
            RunStatus::Removed => out.push_str(&format!(
                "run {}: only in {a} ({} event(s))\n",
                run.run,
                run.changes.len()
            )),
            RunStatus::Added => out.push_str(&format!(
                "run {}: only in {b} ({} event(s))\n",
                run.run,
                run.changes.len()
            )),
            RunStatus::Changed => {
                out.push_str(&format!("run {}:\n", run.run));
                if run.over_budget {
                    out.push_str(
                        "  (too different to align within the budget: the differing events are listed as removed and added)\n",
                    );
                }
                for change in &run.changes {
                    describe(change, &mut out);
                }
            }
        }
    }
    if let Some((only_a, only_b)) = findings {
        for (name, counts) in [(a.to_string(), only_a), (b.to_string(), only_b)] {
            if counts.is_empty() {
                continue;
            }
            out.push_str(&format!("\nfindings only in {name}:\n"));
            for count in counts {
                out.push_str(&format!(
                    "  {} × {}, e.g. {}\n",
                    count.more, count.rule, count.example
                ));
            }
        }
    }
    out
}

/// One change, a line (and a line per changed member).
fn describe(change: &Change, out: &mut String) {
    match change {
        Change::Removed {
            event_type,
            a,
            event,
        } => out.push_str(&format!(
            "  - removed {event_type} ({}): {}\n",
            a.origin,
            brief(event)
        )),
        Change::Added {
            event_type,
            b,
            event,
        } => out.push_str(&format!(
            "  + added {event_type} ({}): {}\n",
            b.origin,
            brief(event)
        )),
        Change::Moved { event_type, a, b } => out.push_str(&format!(
            "  ~ moved {event_type}: {} in the first, {} in the second\n",
            a.origin, b.origin
        )),
        Change::Changed {
            event_type,
            a,
            b,
            fields,
        } => {
            out.push_str(&format!(
                "  * changed {event_type} ({} / {})\n",
                a.origin, b.origin
            ));
            for field in fields {
                out.push_str(&format!("      {}: {}\n", field.pointer, field_text(field)));
            }
        }
    }
}

/// A changed member: its text diff, or its two values.
fn field_text(field: &FieldChange) -> String {
    if !field.text.is_empty() {
        return field
            .text
            .iter()
            .map(|part| match part.op {
                "removed" => format!("[-{}-]", part.text),
                "added" => format!("{{+{}+}}", part.text),
                _ => part.text.clone(),
            })
            .collect();
    }
    let show = |value: &Option<Value>| value.as_ref().map_or("(absent)".to_owned(), brief);
    format!("{} → {}", show(&field.a), show(&field.b))
}

/// A value as compact JSON, cut at 200 characters.
fn brief(value: &Value) -> String {
    let text = value.to_string();
    match text.char_indices().nth(200) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text,
    }
}
