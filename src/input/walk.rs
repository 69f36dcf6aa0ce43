//! Expands the command line's paths into files: directories are walked for
//! the extensions agui-lint reads, skipping hidden entries, build folders
//! and whatever `--exclude` names.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};

use globset::{Glob, GlobSet, GlobSetBuilder};
use walkdir::WalkDir;

use super::records::Layout;
use super::Source;

/// Folders that hold build output or installed dependencies, not payloads.
/// Walking into them is slow and reports files nobody wrote by hand.
const BUILD_FOLDERS: &[&str] = &["target", "node_modules", "__pycache__", "venv"];

/// A path that could not be walked, or a glob that does not parse.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{path}: {message}")]
pub struct InputError {
    /// The path or glob as given or as found while walking.
    pub path: String,
    /// What went wrong.
    pub message: String,
}

/// Which files a directory walk keeps: `--include` and `--exclude` globs.
///
/// A glob is matched against the path as shown in reports and against the
/// entry's own name, so `--exclude node_modules2` and `--exclude
/// 'payloads/old/**'` both work. `*` also crosses `/`.
#[derive(Debug, Clone, Default)]
pub struct Filter {
    include: Option<GlobSet>,
    exclude: Option<GlobSet>,
}

impl Filter {
    /// A filter from `--include` globs (empty: every file with a known
    /// extension) and `--exclude` globs (empty: nothing excluded).
    pub fn new(include: &[String], exclude: &[String]) -> Result<Self, InputError> {
        Ok(Filter {
            include: glob_set(include)?,
            exclude: glob_set(exclude)?,
        })
    }

    fn excludes(&self, path: &Path) -> bool {
        self.exclude.as_ref().is_some_and(|set| matches(set, path))
    }

    /// Whether a file found while walking is checked, and how: as a
    /// [`Source::File`] when an `--include` glob names it, as a
    /// [`Source::Walked`] when only its extension does.
    fn keeps_file(&self, path: &Path) -> Option<fn(PathBuf) -> Source> {
        if self.excludes(path) {
            return None;
        }
        match &self.include {
            Some(set) => matches(set, path).then_some(Source::File as fn(PathBuf) -> Source),
            None => Layout::from_path(path).map(|_| Source::Walked as fn(PathBuf) -> Source),
        }
    }
}

/// The globs as one set (`None` when there are none), or the first that
/// does not parse.
pub(crate) fn glob_set(globs: &[String]) -> Result<Option<GlobSet>, InputError> {
    if globs.is_empty() {
        return Ok(None);
    }
    let mut builder = GlobSetBuilder::new();
    for glob in globs {
        builder.add(Glob::new(glob).map_err(|e| InputError {
            path: glob.clone(),
            message: format!("invalid glob: {}", e.kind()),
        })?);
    }
    builder.build().map(Some).map_err(|e| InputError {
        path: globs.join(","),
        message: format!("invalid glob: {e}"),
    })
}

/// Whether `set` matches `path` as the walk matches: the path as shown, or
/// the entry's own name.
pub(crate) fn matches(set: &GlobSet, path: &Path) -> bool {
    // `check .` walks `./old/a.json`, shown and matched as `old/a.json`.
    let shown = path.strip_prefix(".").unwrap_or(path);
    set.is_match(shown)
        || set.is_match(path)
        || path.file_name().is_some_and(|name| set.is_match(name))
}

/// The sources the command line's paths hold, and the paths that could not
/// be expanded.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Collected {
    /// The sources to check, sorted and free of repeats.
    pub sources: Vec<Source>,
    /// Paths that do not exist, and directories (or entries in them) that
    /// could not be walked, in the order met. They are reported and fail
    /// the run, but never stop the other paths from being checked.
    pub failures: Vec<InputError>,
    /// Symbolic links to directories met while walking: not followed (so
    /// a walk never loops), and named so that none is passed over without
    /// a word. A link named on the command line is followed.
    pub links_not_followed: Vec<PathBuf>,
}

/// Expands `paths` into the sources to check: files as given (always
/// checked, whatever their name), directories walked for the files
/// `filter` keeps, `-` as standard input (named `stdin_name` in reports).
/// The sources are sorted and free of repeats so that output is
/// deterministic; a path that cannot be expanded is kept as a failure and
/// the rest are still expanded.
pub fn collect_sources(paths: &[PathBuf], filter: &Filter, stdin_name: Option<&Path>) -> Collected {
    let mut collected = Collected::default();
    for path in paths {
        if path.as_os_str() == "-" {
            collected
                .sources
                .push(Source::Stdin(stdin_name.map(Path::to_path_buf)));
        } else if path.is_dir() {
            walk(path, filter, &mut collected);
        } else if path.exists() || path.is_symlink() {
            collected.sources.push(Source::File(path.clone()));
        } else {
            collected.failures.push(InputError {
                path: path.display().to_string(),
                message: "no such file or directory".into(),
            });
        }
    }
    // Files in path order whether named or walked; a file both named and
    // walked is kept once, as named.
    collected
        .sources
        .sort_by(|a, b| order_key(a).cmp(&order_key(b)));
    collected
        .sources
        .dedup_by(|later, kept| order_key(later).0 == order_key(kept).0);
    collected
}

/// Where a source sorts: files by path (a named file before the same file
/// walked), then standard input, then sources in memory.
fn order_key(source: &Source) -> ((u8, Option<&Path>), bool) {
    match source {
        Source::File(path) => ((0, Some(path)), false),
        Source::Walked(path) => ((0, Some(path)), true),
        Source::Stdin(name) => ((1, name.as_deref()), false),
        Source::Memory { name, .. } => ((2, Some(name)), false),
    }
}

fn walk(root: &Path, filter: &Filter, collected: &mut Collected) {
    let entries = WalkDir::new(root)
        .follow_links(false)
        .sort_by_file_name()
        .into_iter()
        .filter_entry(|e| {
            e.depth() == 0
                || !(is_hidden(e.file_name())
                    || (e.file_type().is_dir() && is_build_folder(e.file_name()))
                    || (e.file_type().is_dir() && filter.excludes(e.path())))
        });
    for entry in entries {
        // An unreadable folder is reported; the walk goes on past it.
        let entry = match entry {
            Ok(entry) => entry,
            Err(e) => {
                collected.failures.push(InputError {
                    path: e.path().unwrap_or(root).display().to_string(),
                    message: e
                        .io_error()
                        .map_or_else(|| e.to_string(), ToString::to_string),
                });
                continue;
            }
        };
        // A symbolic link to a file is checked like the file (and a dangling
        // one is reported as unreadable rather than skipped); links to
        // directories are not followed, so a walk never loops.
        let is_file =
            entry.file_type().is_file() || (entry.path_is_symlink() && !entry.path().is_dir());
        if entry.depth() > 0 && entry.path_is_symlink() && entry.path().is_dir() {
            let path = entry.path().strip_prefix(".").unwrap_or(entry.path());
            collected.links_not_followed.push(path.to_path_buf());
        }
        if let Some(source) = is_file.then(|| filter.keeps_file(entry.path())).flatten() {
            // `check .` reports `a.json`, not `./a.json`.
            let path = entry.path().strip_prefix(".").unwrap_or(entry.path());
            collected.sources.push(source(path.to_path_buf()));
        }
    }
}

fn is_hidden(name: &OsStr) -> bool {
    name.to_str().is_some_and(|n| n.starts_with('.'))
}

fn is_build_folder(name: &OsStr) -> bool {
    name.to_str().is_some_and(|n| BUILD_FOLDERS.contains(&n))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tree(files: &[&str]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().expect("temp dir");
        for file in files {
            let path = dir.path().join(file);
            std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
            std::fs::write(path, "{}").expect("write");
        }
        dir
    }

    fn names(dir: &Path, filter: &Filter) -> Vec<String> {
        collect_sources(&[dir.to_path_buf()], filter, None)
            .sources
            .iter()
            .map(|s| {
                let name = s.display_name();
                let prefix = format!("{}/", dir.display());
                name.strip_prefix(&prefix).unwrap_or(&name).to_string()
            })
            .collect()
    }

    #[test]
    fn walk_keeps_known_extensions_and_skips_hidden_and_build_folders() {
        let dir = tree(&[
            "a.json",
            "b.jsonl",
            "c.ndjson",
            "capture.sse",
            "devtools.har",
            "d.txt",
            ".hidden.json",
            ".git/x.json",
            "target/debug/x.json",
            "node_modules/pkg/x.json",
            "sub/e.json",
        ]);
        assert_eq!(
            names(dir.path(), &Filter::default()),
            [
                "a.json",
                "b.jsonl",
                "c.ndjson",
                "capture.sse",
                "devtools.har",
                "sub/e.json"
            ]
        );
    }

    #[test]
    fn include_replaces_the_extensions_and_exclude_prunes() {
        let dir = tree(&["a.json", "b.txt", "old/c.json", "sub/old.json"]);
        let filter =
            Filter::new(&["*.txt".into(), "*.json".into()], &["old".into()]).expect("globs");
        assert_eq!(
            names(dir.path(), &filter),
            ["a.json", "b.txt", "sub/old.json"]
        );
        let filter = Filter::new(&[], &["**/sub/**".into()]).expect("globs");
        assert_eq!(names(dir.path(), &filter), ["a.json", "old/c.json"]);
    }

    #[cfg(unix)]
    #[test]
    fn a_link_to_a_directory_is_named_not_followed() {
        let dir = tree(&["a.json", "real/b.json"]);
        std::os::unix::fs::symlink(dir.path().join("real"), dir.path().join("link"))
            .expect("symlink");
        std::os::unix::fs::symlink(dir.path(), dir.path().join("real/loop")).expect("symlink");
        let collected = collect_sources(&[dir.path().to_path_buf()], &Filter::default(), None);
        assert_eq!(collected.sources.len(), 2, "{:?}", collected.sources);
        assert_eq!(
            collected.links_not_followed,
            [dir.path().join("link"), dir.path().join("real/loop")]
        );
        // Named, a link is followed.
        let named = collect_sources(&[dir.path().join("link")], &Filter::default(), None);
        assert_eq!(
            named.sources,
            [Source::Walked(dir.path().join("link/b.json"))]
        );
    }

    #[test]
    fn a_bad_glob_is_an_error_naming_it() {
        let error = Filter::new(&["a[".into()], &[]).expect_err("bad glob");
        assert_eq!(error.path, "a[");
        assert!(error.message.contains("invalid glob"), "{error}");
    }

    #[test]
    fn a_missing_path_is_a_failure_and_the_others_are_still_collected() {
        let dir = tree(&["a.json"]);
        let collected = collect_sources(
            &["no/such/path".into(), dir.path().to_path_buf()],
            &Filter::default(),
            None,
        );
        assert_eq!(
            collected.failures,
            [InputError {
                path: "no/such/path".into(),
                message: "no such file or directory".into(),
            }]
        );
        assert_eq!(
            collected.sources,
            [Source::Walked(dir.path().join("a.json"))]
        );
    }
}
