//! `[per-file-ignores]` of `agui-lint.toml`: rules never reported for the
//! files a glob matches, as `--ignore` is for every file. Globs match as
//! the walk's `--exclude` does: the path as shown, or the file's name.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use globset::GlobSet;

use crate::checked::Checked;
use crate::input::{glob_set, matches, InputError};

/// Each glob, compiled, with the rules it turns off.
#[derive(Debug, Default)]
pub struct PerFileIgnores {
    globs: Vec<(GlobSet, BTreeSet<String>)>,
}

impl PerFileIgnores {
    /// Compiles the settings' `[per-file-ignores]` (see
    /// [`crate::Settings::per_file_ignores`]); a glob that does not parse
    /// is an error naming it.
    pub fn new(table: &BTreeMap<String, BTreeSet<String>>) -> Result<Self, InputError> {
        let mut globs = Vec::with_capacity(table.len());
        for (glob, rules) in table {
            if let Some(set) = glob_set(std::slice::from_ref(glob))? {
                globs.push((set, rules.clone()));
            }
        }
        Ok(PerFileIgnores { globs })
    }

    /// Whether no glob is set.
    pub fn is_empty(&self) -> bool {
        self.globs.is_empty()
    }

    /// `checked` without the findings of the rules its file's globs turn
    /// off.
    pub fn filter(&self, mut checked: Checked) -> Checked {
        if checked.is_clean() || self.globs.is_empty() {
            return checked;
        }
        let path = Path::new(&*checked.path);
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
