//! Checked documents: one as the renderers see it ([`Checked`]), where a
//! source's documents go in order ([`Sink`]), and everything a run found,
//! held compactly ([`Outcome`]). What the checks of files and streams
//! hand on, and what the renderers read.

mod document;
mod outcome;

pub use document::{Checked, Context, Failure};
pub use outcome::Outcome;
pub(crate) use outcome::{advanced, follows_run};

/// Where a source's documents go, in order. The clean records of a stream
/// come as runs, the first of each and how many follow it, so that a
/// capture of millions of clean events is handed over without a document
/// each (an [`Outcome`] keeps a run as a count).
pub(crate) trait Sink {
    /// The next document.
    fn document(&mut self, checked: Checked);

    /// The source at `path` is skipped: a file a directory walk found, one
    /// JSON document whose kind cannot be told. By default nothing is kept.
    fn skipped(&mut self, path: &str) {
        let _ = path;
    }

    /// The next documents: `first`, which is clean, and the `more` clean
    /// documents right after it in its stream, each one record (and one
    /// event) further on. By default each is rebuilt and handed over.
    fn clean_run(&mut self, first: Checked, more: usize) {
        let template = (more > 0).then(|| first.clone());
        self.document(first);
        if let Some(first) = template {
            for k in 1..=more {
                self.document(advanced(&first, k));
            }
        }
    }
}

/// The public entry points' sink: a function given every document.
impl<F: FnMut(Checked) + ?Sized> Sink for F {
    fn document(&mut self, checked: Checked) {
        self(checked);
    }
}
