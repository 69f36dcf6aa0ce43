//! Documents out of the paths given on the command line: files, directories
//! (walked for `*.json`) and `-` for standard input.

use std::io::{self, Read};
use std::path::{Path, PathBuf};

use walkdir::WalkDir;

/// Where a document's bytes come from.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum Source {
    /// A file on disk.
    File(PathBuf),
    /// Standard input.
    Stdin,
}

impl Source {
    /// The name shown in reports: the path as given, or `-` for stdin.
    pub fn display_name(&self) -> String {
        match self {
            Source::File(path) => path.display().to_string(),
            Source::Stdin => "-".to_string(),
        }
    }

    /// Reads the whole source.
    pub fn read(&self) -> io::Result<Vec<u8>> {
        match self {
            Source::File(path) => std::fs::read(path),
            Source::Stdin => {
                let mut bytes = Vec::new();
                io::stdin().lock().read_to_end(&mut bytes)?;
                Ok(bytes)
            }
        }
    }
}

/// A path that could not be walked.
#[derive(Debug, thiserror::Error)]
#[error("{path}: {message}")]
pub struct InputError {
    /// The path as given or as found while walking.
    pub path: String,
    /// What went wrong.
    pub message: String,
}

/// Expands `paths` into the sources to check: files as given, directories
/// walked for `*.json` files (hidden entries skipped), `-` as stdin. The
/// result is sorted and free of repeats so that output is deterministic.
pub fn collect_sources(paths: &[PathBuf]) -> Result<Vec<Source>, InputError> {
    let mut sources = Vec::new();
    for path in paths {
        if path.as_os_str() == "-" {
            sources.push(Source::Stdin);
        } else if path.is_dir() {
            walk(path, &mut sources)?;
        } else if path.exists() {
            sources.push(Source::File(path.clone()));
        } else {
            return Err(InputError {
                path: path.display().to_string(),
                message: "no such file or directory".into(),
            });
        }
    }
    sources.sort();
    sources.dedup();
    Ok(sources)
}

fn walk(root: &Path, sources: &mut Vec<Source>) -> Result<(), InputError> {
    let entries = WalkDir::new(root)
        .follow_links(false)
        .into_iter()
        .filter_entry(|e| e.depth() == 0 || !is_hidden(e.file_name()));
    for entry in entries {
        let entry = entry.map_err(|e| InputError {
            path: e.path().unwrap_or(root).display().to_string(),
            message: e.to_string(),
        })?;
        let is_json = entry.path().extension().is_some_and(|e| e == "json");
        if entry.file_type().is_file() && is_json {
            sources.push(Source::File(entry.into_path()));
        }
    }
    Ok(())
}

fn is_hidden(name: &std::ffi::OsStr) -> bool {
    name.to_str().is_some_and(|n| n.starts_with('.'))
}
