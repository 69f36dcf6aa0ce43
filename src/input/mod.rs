//! Documents out of the paths given on the command line: files, directories
//! (walked for `*.json`, `*.jsonl` and `*.ndjson`) and `-` for standard
//! input, each split into the records it holds.

mod records;
mod walk;

use std::io::{self, Read};
use std::path::{Path, PathBuf};

pub use records::{records, Layout, Record};
pub use walk::{collect_sources, Filter, InputError};

/// Where a document's bytes come from.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum Source {
    /// A file on disk.
    File(PathBuf),
    /// Standard input, shown under the given name (`-` unless the user
    /// named it with `--stdin-filename`).
    Stdin(Option<PathBuf>),
}

impl Source {
    /// The name shown in reports: the path as given, or `-` for stdin.
    pub fn display_name(&self) -> String {
        match self {
            Source::File(path) | Source::Stdin(Some(path)) => path.display().to_string(),
            Source::Stdin(None) => "-".to_string(),
        }
    }

    /// The path whose extension tells the layout, when there is one.
    fn named_path(&self) -> Option<&Path> {
        match self {
            Source::File(path) | Source::Stdin(Some(path)) => Some(path),
            Source::Stdin(None) => None,
        }
    }

    /// How the source's bytes are split into documents: by extension, and
    /// by looking at the bytes when the name says nothing.
    pub fn layout(&self, bytes: &[u8]) -> Layout {
        self.named_path()
            .and_then(Layout::from_path)
            .unwrap_or_else(|| Layout::sniff(bytes))
    }

    /// Reads the whole source.
    pub fn read(&self) -> io::Result<Vec<u8>> {
        match self {
            Source::File(path) => std::fs::read(path),
            Source::Stdin(_) => {
                let mut bytes = Vec::new();
                io::stdin().lock().read_to_end(&mut bytes)?;
                Ok(bytes)
            }
        }
    }
}
