//! Paths as seen from one directory — the configuration file's or the
//! baseline's — so that what a file names (a `[per-file-ignores]` glob, a
//! baseline entry) means the same whatever the working directory and
//! however the checked path was typed (`payloads/a.json`, `./payloads/a.json`,
//! `/home/me/repo/payloads/a.json`).

use std::collections::HashSet;
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

/// A directory paths are made relative to.
#[derive(Debug, Clone)]
pub struct Anchor {
    /// The directory, absolute, with links resolved where it exists.
    dir: PathBuf,
    /// The working directory relative paths start from.
    cwd: PathBuf,
    /// The last path made relative and what it became: the documents of one
    /// source share their path, and a capture has many.
    last: Option<(Arc<str>, Arc<str>)>,
    /// Every relative path made so far: the files a run checked.
    made: HashSet<Arc<str>>,
}

impl Anchor {
    /// Paths relative to `dir` (itself absolute or relative to the working
    /// directory; empty for the working directory).
    pub fn new(dir: &Path) -> Anchor {
        let cwd = std::env::current_dir().unwrap_or_default();
        Anchor::with_working_directory(dir, cwd)
    }

    /// Paths relative to the directory holding `file` (a configuration or
    /// baseline file).
    pub fn of_file(file: &Path) -> Anchor {
        Anchor::new(file.parent().unwrap_or(Path::new("")))
    }

    /// As [`Anchor::new`], with relative paths starting from `cwd`.
    pub fn with_working_directory(dir: &Path, cwd: PathBuf) -> Anchor {
        let dir = resolved(&cwd.join(dir));
        Anchor {
            dir,
            cwd,
            last: None,
            made: HashSet::new(),
        }
    }

    /// Whether the file at `relative` (a path [`Self::relative`] gave)
    /// exists.
    pub fn exists(&self, relative: &str) -> bool {
        relative == "-" || self.dir.join(relative).exists()
    }

    /// Whether a path given to [`Self::relative`] became `relative`: a
    /// file this run checked.
    pub fn made(&self, relative: &str) -> bool {
        self.made.contains(relative)
    }

    /// `shown` (a checked path as the report shows it) relative to the
    /// anchor, with `/` between components (`../` where it lies outside).
    /// `-` (standard input) stays as it is.
    pub fn relative(&mut self, shown: &Arc<str>) -> Arc<str> {
        if let Some((path, relative)) = &self.last {
            if Arc::ptr_eq(path, shown) || path == shown {
                return Arc::clone(relative);
            }
        }
        let relative: Arc<str> = if &**shown == "-" {
            Arc::clone(shown)
        } else {
            self.locate(shown).into()
        };
        self.made.insert(Arc::clone(&relative));
        self.last = Some((Arc::clone(shown), Arc::clone(&relative)));
        relative
    }

    /// `shown` relative to the anchor, worked out from the file system.
    fn locate(&self, shown: &str) -> String {
        let absolute = self.cwd.join(shown);
        // The file's directory is resolved, not the file: a link checked by
        // its own name keeps that name.
        let located = match (absolute.parent(), absolute.file_name()) {
            (Some(parent), Some(name)) => resolved(parent).join(name),
            _ => normalized(&absolute),
        };
        relative_to(&located, &self.dir)
    }
}

/// `path` with links resolved when it exists, else with `.` and `..` taken
/// out as written.
fn resolved(path: &Path) -> PathBuf {
    std::fs::canonicalize(path).unwrap_or_else(|_| normalized(path))
}

/// `path` with `.` dropped and each `..` taking out the component before.
fn normalized(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() {
                    out.push(component);
                }
            }
            other => out.push(other),
        }
    }
    out
}

/// `path` as reached from `base` (both absolute), `/`-separated.
fn relative_to(path: &Path, base: &Path) -> String {
    let path: Vec<Component> = path.components().collect();
    let base: Vec<Component> = base.components().collect();
    let common = path.iter().zip(&base).take_while(|(a, b)| a == b).count();
    if common == 0 {
        // Another drive or root: nothing to be relative to.
        return path_text(path.iter());
    }
    let ups = std::iter::repeat_n("..".to_string(), base.len() - common);
    let downs = path[common..]
        .iter()
        .map(|c| c.as_os_str().to_string_lossy().into_owned());
    ups.chain(downs).collect::<Vec<_>>().join("/")
}

fn path_text<'a>(components: impl Iterator<Item = &'a Component<'a>>) -> String {
    let mut out = PathBuf::new();
    for component in components {
        out.push(component);
    }
    out.to_string_lossy().replace('\\', "/")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn anchor(dir: &str, cwd: &str) -> Anchor {
        Anchor::with_working_directory(Path::new(dir), PathBuf::from(cwd))
    }

    impl Anchor {
        fn relative_text(&mut self, shown: &str) -> String {
            self.relative(&Arc::from(shown)).to_string()
        }
    }

    #[test]
    fn a_path_means_the_same_however_it_is_typed_and_from_wherever() {
        let root = "/nonexistent-agui-lint/repo";
        let mut from_root = anchor(root, root);
        assert_eq!(
            from_root.relative_text("payloads/a.json"),
            "payloads/a.json"
        );
        assert_eq!(
            from_root.relative_text("./payloads/a.json"),
            "payloads/a.json"
        );
        assert_eq!(
            from_root.relative_text("/nonexistent-agui-lint/repo/payloads/a.json"),
            "payloads/a.json"
        );
        let mut from_below = anchor("..", "/nonexistent-agui-lint/repo/payloads");
        assert_eq!(from_below.relative_text("a.json"), "payloads/a.json");
        assert_eq!(
            from_below.relative_text("../payloads/./a.json"),
            "payloads/a.json"
        );
        let mut from_beside = anchor("/nonexistent-agui-lint/repo", "/nonexistent-agui-lint");
        assert_eq!(from_beside.relative_text("other/b.json"), "../other/b.json");
        assert_eq!(from_beside.relative_text("-"), "-");
    }
}
