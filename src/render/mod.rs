//! Output formats: one module per format, all over the same [`Checked`]
//! documents.

mod human;
mod json;

pub use human::render_human;
pub use json::render_json;

use crate::{Report, Severity};

/// One checked document: where it came from and what was found.
#[derive(Debug, Clone)]
pub struct Checked {
    /// The path as shown to the user (`-` for stdin).
    pub path: String,
    /// 1-based record number in a multi-document file; `None` for a file
    /// that is one document.
    pub record: Option<usize>,
    /// The findings.
    pub report: Report,
}

/// Totals over all checked documents.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct Summary {
    /// Documents checked.
    pub documents: usize,
    /// Documents with no error.
    pub valid: usize,
    /// Error findings.
    pub errors: usize,
    /// Warning findings.
    pub warnings: usize,
    /// Info findings.
    pub infos: usize,
}

impl Summary {
    /// Adds up `documents`.
    pub fn of(documents: &[Checked]) -> Self {
        let mut summary = Summary::default();
        for document in documents {
            summary.documents += 1;
            summary.valid += usize::from(document.report.is_valid());
            summary.errors += document.report.count(Severity::Error);
            summary.warnings += document.report.count(Severity::Warning);
            summary.infos += document.report.count(Severity::Info);
        }
        summary
    }
}
