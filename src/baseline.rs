//! A baseline: the findings a corpus had when agui-lint was adopted on it,
//! so that a check fails only on findings that are new.
//!
//! `check --write-baseline FILE` records every finding; `check --baseline
//! FILE` leaves out the findings the file holds and counts the entries that
//! no longer occur. A finding is matched by its file, rule, JSON pointer and
//! a fingerprint of its message, never by line or record number: edits
//! elsewhere in a file (a line added above, a record inserted before) keep
//! an old finding matched. The message quotes the key or value involved,
//! so the fingerprint tells a new offending value at the same place from
//! the old one; numbers outside quotes (event indices, counts) are left out
//! of it, since they move with unrelated edits. The fingerprint is a hash,
//! so the file never holds a document's values. Entries count: a baseline
//! recording two identical findings lets two through, and a third fails.
//!
//! An entry's path is relative to the baseline file's directory, so that a
//! baseline matches whatever the working directory and however the checked
//! paths are typed.

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::anchor::Anchor;
use crate::checked::Checked;
use crate::shape::shape_hash;
use crate::Diagnostic;

/// The format version written in every baseline file.
const FORMAT: u32 = 1;

/// What identifies a finding across edits of its file.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
struct Key {
    path: String,
    rule: String,
    pointer: String,
    fingerprint: String,
}

impl Key {
    /// The key of `diagnostic` of the file at `path` (relative to the
    /// baseline's directory).
    fn of(path: &str, diagnostic: &Diagnostic) -> Self {
        Key {
            path: path.to_string(),
            rule: diagnostic.rule.clone(),
            pointer: diagnostic.pointer.clone(),
            fingerprint: fingerprint(&diagnostic.message),
        }
    }
}

/// One entry of the file: a finding and how many times it occurs.
#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Entry {
    path: String,
    rule: String,
    pointer: String,
    fingerprint: String,
    #[serde(default = "one", skip_serializing_if = "is_one")]
    count: usize,
}

fn one() -> usize {
    1
}

fn is_one(n: &usize) -> bool {
    *n == 1
}

/// The file as written and read.
#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct File {
    agui_lint_baseline: u32,
    findings: Vec<Entry>,
}

/// Findings recorded for a baseline (`--write-baseline`), or a baseline
/// read and being matched (`--baseline`): each key with how many of its
/// findings are (still) to be matched.
#[derive(Debug)]
pub struct Baseline {
    entries: BTreeMap<Key, usize>,
    /// Findings left out so far by [`Self::filter`].
    matched: usize,
    /// The directory entries' paths are relative to (the file's), which
    /// knows the files checked so far.
    anchor: Anchor,
}

impl Baseline {
    /// An empty baseline, to [`Self::record`] a run's findings into and
    /// write to `file`.
    pub fn new(file: &Path) -> Self {
        Baseline {
            entries: BTreeMap::new(),
            matched: 0,
            anchor: Anchor::of_file(file),
        }
    }

    /// Reads a baseline file.
    pub fn read(path: &Path) -> Result<Self, String> {
        let text = std::fs::read(path)
            .map_err(|e| format!("cannot read baseline {}: {e}", path.display()))?;
        let file: File = serde_json::from_slice(&text).map_err(|e| {
            format!(
                "{} is not an agui-lint baseline (write one with --write-baseline): {e}",
                path.display()
            )
        })?;
        if file.agui_lint_baseline != FORMAT {
            return Err(format!(
                "{}: baseline format {} is not known to this agui-lint (it writes {FORMAT})",
                path.display(),
                file.agui_lint_baseline
            ));
        }
        let mut baseline = Baseline::new(path);
        for entry in file.findings {
            let key = Key {
                path: entry.path,
                rule: entry.rule,
                pointer: entry.pointer,
                fingerprint: entry.fingerprint,
            };
            *baseline.entries.entry(key).or_default() += entry.count;
        }
        Ok(baseline)
    }

    /// Records every finding of `checked`.
    pub fn record(&mut self, checked: &Checked) {
        let path = self.anchor.relative(&checked.path);
        for diagnostic in checked.report.diagnostics() {
            *self.entries.entry(Key::of(&path, diagnostic)).or_default() += 1;
        }
    }

    /// Writes the recorded findings to `path`, sorted so that the file
    /// changes only where the findings do.
    pub fn write(&self, path: &Path) -> Result<(), String> {
        let file = File {
            agui_lint_baseline: FORMAT,
            findings: self
                .entries
                .iter()
                .map(|(key, &count)| Entry {
                    path: key.path.clone(),
                    rule: key.rule.clone(),
                    pointer: key.pointer.clone(),
                    fingerprint: key.fingerprint.clone(),
                    count,
                })
                .collect(),
        };
        let mut text = serde_json::to_vec_pretty(&file).map_err(|e| e.to_string())?;
        text.push(b'\n');
        std::fs::write(path, text)
            .map_err(|e| format!("cannot write baseline {}: {e}", path.display()))
    }

    /// `checked` without the findings the baseline holds, each match using
    /// up one of its entry's count.
    pub fn filter(&mut self, mut checked: Checked) -> Checked {
        if self.entries.is_empty() {
            return checked;
        }
        let path = self.anchor.relative(&checked.path);
        if checked.is_clean() {
            return checked;
        }
        let mut matched = 0;
        checked.report.retain(|diagnostic| {
            match self.entries.get_mut(&Key::of(&path, diagnostic)) {
                Some(left) if *left > 0 => {
                    *left -= 1;
                    matched += 1;
                    false
                }
                _ => true,
            }
        });
        self.matched += matched;
        checked
    }

    /// How many findings [`Self::filter`] has left out.
    pub fn matched(&self) -> usize {
        self.matched
    }

    /// How many findings the baseline holds (or has recorded).
    pub fn len(&self) -> usize {
        self.entries.values().sum()
    }

    /// Whether the baseline holds no finding.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// How many of the baseline's findings no longer occur: not matched
    /// in a file that was checked or that no longer exists. Entries of
    /// files this run did not check are not counted: they may still occur.
    pub fn unmatched(&self) -> usize {
        self.left()
            .filter(|(key, _)| self.anchor.made(&key.path) || !self.anchor.exists(&key.path))
            .map(|(_, n)| n)
            .sum()
    }

    /// How many of the baseline's findings are of files that exist and
    /// that this run did not check: a baseline rewritten from this run
    /// would lose them.
    pub fn not_checked(&self) -> usize {
        self.left()
            .filter(|(key, _)| !self.anchor.made(&key.path) && self.anchor.exists(&key.path))
            .map(|(_, n)| n)
            .sum()
    }

    /// Each entry not (fully) matched, with how many of its findings are
    /// left.
    fn left(&self) -> impl Iterator<Item = (&Key, usize)> {
        self.entries
            .iter()
            .filter(|(_, &n)| n > 0)
            .map(|(key, &n)| (key, n))
    }
}

/// A finding's message as matched: its shape (see [`crate::shape`]),
/// hashed so that no value of the document is written into the baseline.
fn fingerprint(message: &str) -> String {
    format!("{:016x}", shape_hash(message))
}
