//! Checks sources end to end: read, split into documents, validate.

use crate::input::Source;
use crate::render::Checked;
use crate::{Kind, Validator};

/// Checks every document of `source`, as `kind` or as detected when `None`.
///
/// A file that cannot be read is an I/O error for the caller to report; a
/// file that is not JSON is a finding, not an error.
pub fn check_source(
    validator: &Validator,
    source: &Source,
    kind: Option<Kind>,
) -> std::io::Result<Vec<Checked>> {
    let bytes = source.read()?;
    let report = match kind {
        Some(kind) => validator.validate(kind, &bytes),
        None => validator.validate_detected(&bytes),
    };
    Ok(vec![Checked {
        path: source.display_name(),
        record: None,
        report,
    }])
}
