//! `[per-file-ignores]` of `agui-lint.toml`: rules never reported for the
//! files a glob matches, as `--ignore` is for every file. A glob matches a
//! file's path relative to the configuration file's directory, whatever the
//! working directory and however the path was typed, or the file's name.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use globset::GlobSet;

use crate::anchor::Anchor;
use crate::checked::Checked;
use crate::input::{glob_set, matches, InputError};

/// Each glob, compiled, with the rules it turns off.
#[derive(Debug)]
pub struct PerFileIgnores {
    globs: Vec<(GlobSet, BTreeSet<String>)>,
    /// The directory the globs are relative to.
    anchor: Anchor,
}

impl PerFileIgnores {
    /// Compiles the settings' `[per-file-ignores]` (see
    /// [`crate::Settings::per_file_ignores`]), relative to `anchor` (the
    /// configuration file's directory); a glob that does not parse is an
    /// error naming it.
    pub fn new(
        table: &BTreeMap<String, BTreeSet<String>>,
        anchor: Anchor,
    ) -> Result<Self, InputError> {
        let mut globs = Vec::with_capacity(table.len());
        for (glob, rules) in table {
            if let Some(set) = glob_set(std::slice::from_ref(glob))? {
                globs.push((set, rules.clone()));
            }
        }
        Ok(PerFileIgnores { globs, anchor })
    }

    /// Whether no glob is set.
    pub fn is_empty(&self) -> bool {
        self.globs.is_empty()
    }

    /// `checked` without the findings of the rules its file's globs turn
    /// off.
    pub fn filter(&mut self, mut checked: Checked) -> Checked {
        if checked.is_clean() || self.globs.is_empty() {
            return checked;
        }
        let relative = self.anchor.relative(&checked.path);
        let path = Path::new(&*relative);
        let off: Vec<&BTreeSet<String>> = self
            .globs
            .iter()
            .filter(|(set, _)| matches(set, path))
            .map(|(_, rules)| rules)
            .collect();
        if !off.is_empty() {
            checked
                .report
                .retain(|d| !off.iter().any(|rules| rules.contains(&d.rule)));
        }
        checked
    }
}
