//! Documents out of the paths given on the command line: files, directories
//! (walked for the extensions in [`Layout::EXTENSIONS`]) and `-` for standard
//! input, each split into the records it holds: JSON files, JSON Lines,
//! Server-Sent Events captures and HTTP Archives.

mod framed;
pub mod har;
pub mod har_write;
pub(crate) mod line_endings;
pub mod proto;
pub mod receiving;
mod records;
pub mod sse;
mod walk;

use std::fs::File;
use std::io::{self, BufRead, BufReader};
use std::path::{Path, PathBuf};

pub use framed::{Framed, Framer};
pub use records::{JsonLines, Layout, Line, LineFramer};
pub use walk::{collect_sources, Collected, Filter, InputError};
pub(crate) use walk::{glob_set, matches};

/// Where a document's bytes come from.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum Source {
    /// A file on disk, named on the command line or matched by an
    /// `--include` glob: always checked.
    File(PathBuf),
    /// A file a directory walk found by its extension alone. It may hold
    /// JSON that is not AG-UI (a `package.json`, a `tsconfig.json`): one
    /// JSON document whose kind cannot be told is skipped and counted, not
    /// reported as `unknown-kind`.
    Walked(PathBuf),
    /// Standard input, shown under the given name (`-` unless the user
    /// named it with `--stdin-filename`).
    Stdin(Option<PathBuf>),
    /// Bytes already in memory (what `agui-lint probe` recorded), shown
    /// under `name`, whose extension tells how they are read.
    Memory {
        /// The name shown in reports.
        name: PathBuf,
        /// The bytes.
        bytes: std::sync::Arc<[u8]>,
    },
}

impl Source {
    /// The name shown in reports: the path as given, or `-` for stdin.
    pub fn display_name(&self) -> String {
        match self {
            Source::File(path)
            | Source::Walked(path)
            | Source::Stdin(Some(path))
            | Source::Memory { name: path, .. } => path.display().to_string(),
            Source::Stdin(None) => "-".to_string(),
        }
    }

    /// Whether a JSON document of this source whose kind cannot be told is
    /// skipped rather than reported: a file a directory walk found by its
    /// extension alone.
    pub fn skips_unknown_kinds(&self) -> bool {
        matches!(self, Source::Walked(_))
    }

    /// The path whose extension tells the layout, when there is one.
    fn named_path(&self) -> Option<&Path> {
        match self {
            Source::File(path)
            | Source::Walked(path)
            | Source::Stdin(Some(path))
            | Source::Memory { name: path, .. } => Some(path),
            Source::Stdin(None) => None,
        }
    }

    /// How the source holds its documents: by extension, and by looking at
    /// its first bytes (`peek`) when the name says nothing.
    pub fn layout(&self, peek: &[u8]) -> Layout {
        self.named_path()
            .and_then(Layout::from_path)
            .unwrap_or_else(|| Layout::sniff(peek))
    }

    /// The size of the source in bytes, when the file system says it (a
    /// regular file), so that a document is read into a buffer of its size
    /// and one over the limit is not read at all.
    pub fn size(&self) -> Option<u64> {
        match self {
            Source::File(path) | Source::Walked(path) => std::fs::metadata(path)
                .ok()
                .filter(std::fs::Metadata::is_file)
                .map(|m| m.len()),
            Source::Stdin(_) => None,
            Source::Memory { bytes, .. } => u64::try_from(bytes.len()).ok(),
        }
    }

    /// Opens the source for reading, buffered.
    pub fn open(&self) -> io::Result<Box<dyn BufRead + Send + '_>> {
        match self {
            Source::File(path) | Source::Walked(path) => Ok(Box::new(BufReader::with_capacity(
                READ_BUFFER,
                File::open(path)?,
            ))),
            // Not locked: a capture is read on a thread of its own, and a
            // lock cannot move between threads.
            Source::Stdin(_) => {
                stdin_is_open()?;
                Ok(Box::new(BufReader::with_capacity(READ_BUFFER, io::stdin())))
            }
            Source::Memory { bytes, .. } => Ok(Box::new(io::Cursor::new(&bytes[..]))),
        }
    }
}

/// Fails when standard input was closed when agui-lint started. The
/// standard library then puts `/dev/null` in its place, opened for reading
/// and writing (`sanitize_standard_fds`), so it would read as an empty
/// document instead of the I/O failure it is. A shell's `< /dev/null`
/// opens it for reading only, and stays an empty input. Linux tells the
/// two apart through `/proc`; elsewhere a closed input reads as empty.
fn stdin_is_open() -> io::Result<()> {
    #[cfg(target_os = "linux")]
    {
        let target = std::fs::read_link("/proc/self/fd/0").ok();
        let flags = std::fs::read_to_string("/proc/self/fdinfo/0").ok();
        let read_write = flags.as_deref().and_then(|info| {
            let octal = info.lines().find_map(|l| l.strip_prefix("flags:"))?.trim();
            u32::from_str_radix(octal, 8).ok().map(|f| f & 0o3 == 0o2)
        });
        if target.as_deref() == Some(Path::new("/dev/null")) && read_write == Some(true) {
            return Err(io::Error::new(
                io::ErrorKind::BrokenPipe,
                "standard input is closed",
            ));
        }
    }
    Ok(())
}

/// Read buffer size; also how much of an unnamed source is looked at to
/// tell its layout.
const READ_BUFFER: usize = 64 * 1024;
