//! Every finding of a document given its line and column, in one walk
//! over the text. Shared by the full path and the path a message at a time.

use crate::diagnostic::Diagnostic;
use crate::locate::{self, Locator};

/// Fills in the line and column of every diagnostic and related place not
/// yet located (a `lone-surrogate` finding comes located at its escape).
pub(super) fn locate_all(bytes: &[u8], keys_repeat: bool, diagnostics: &mut [Diagnostic]) {
    // The bytes parsed as JSON, so they are UTF-8.
    let Ok(text) = std::str::from_utf8(bytes) else {
        return;
    };
    let locator = if keys_repeat {
        Locator::new(text)
    } else {
        Locator::with_unique_keys(text)
    };
    // Every offset in one walk over the text, then every line and column in
    // one more: finding by finding, a document with hundreds of findings
    // would be walked (and a minified one, one long line, counted) from its
    // start once per finding.
    let mut requests = Vec::new();
    for diagnostic in diagnostics.iter() {
        if diagnostic.location.is_none() {
            requests.push((diagnostic.pointer.as_str(), diagnostic.target));
        }
        for related in diagnostic.related.iter().filter(|r| r.location.is_none()) {
            requests.push((related.pointer.as_str(), related.target));
        }
    }
    let offsets = locator.offsets(&requests);
    let mut locations = locate::locations_at(bytes, &offsets).into_iter();
    for diagnostic in diagnostics {
        if diagnostic.location.is_none() {
            diagnostic.location = locations.next();
        }
        for related in diagnostic
            .related
            .iter_mut()
            .filter(|r| r.location.is_none())
        {
            related.location = locations.next();
        }
    }
}
