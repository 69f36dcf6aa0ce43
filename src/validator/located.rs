//! Every finding of a document given its line and column, in one walk
//! over the text. Shared by the full path and the path a message at a time.

use crate::diagnostic::{Diagnostic, Target};
use crate::locate::{self, Anchors, Locator};

/// Fills in the line and column of every diagnostic and related place not
/// yet located (a `lone-surrogate` finding comes located at its escape).
/// A place inside an element `anchors` placed is found by walking that
/// element alone; the others, by one walk from the document's start.
pub(super) fn locate_all(
    bytes: &[u8],
    keys_repeat: bool,
    anchors: Option<&Anchors<'_>>,
    diagnostics: &mut [Diagnostic],
) {
    // The bytes parsed as JSON.
    let locator = Locator::over_parsed(bytes, keys_repeat);
    // Every offset in one walk over the text, then every line and column in
    // one more: finding by finding, a document with hundreds of findings
    // would be walked (and a minified one, one long line, counted) from its
    // start once per finding.
    let mut requests: Vec<(&str, Target)> = Vec::new();
    for diagnostic in diagnostics.iter() {
        if diagnostic.location.is_none() {
            requests.push((diagnostic.pointer.as_str(), diagnostic.target));
        }
        for related in diagnostic.related.iter().filter(|r| r.location.is_none()) {
            requests.push((related.pointer.as_str(), related.target));
        }
    }
    let offsets = match anchors {
        Some(anchors) => anchored_offsets(&locator, anchors, &requests),
        None => locator.offsets(&requests),
    };
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

/// The offsets of `requests`, each found from the element `anchors` placed
/// it in (one walk per element), the rest in one walk from the start.
/// The same offsets the walk from the start finds for all: an element
/// exists where it was read, so what a walk does not reach below it falls
/// back to the same nearest ancestor.
fn anchored_offsets(
    locator: &Locator<'_>,
    anchors: &Anchors<'_>,
    requests: &[(&str, Target)],
) -> Vec<usize> {
    let mut offsets = vec![0; requests.len()];
    let mut from_start = Vec::new();
    let mut anchored = Vec::new();
    for (i, &(pointer, target)) in requests.iter().enumerate() {
        match anchors.anchor(pointer) {
            Some((start, below)) => anchored.push((start, below, target, i)),
            None => from_start.push(i),
        }
    }
    if !from_start.is_empty() {
        let asked: Vec<(&str, Target)> = from_start.iter().map(|&i| requests[i]).collect();
        for (i, offset) in from_start.into_iter().zip(locator.offsets(&asked)) {
            offsets[i] = offset;
        }
    }
    anchored.sort_unstable_by_key(|&(start, ..)| start);
    for element in anchored.chunk_by(|a, b| a.0 == b.0) {
        // A few places in one element are found one at a time, each by a
        // walk along its own path; more, in one walk over the element,
        // which costs a tree of their paths to build.
        const ONE_AT_A_TIME: usize = 4;
        if element.len() <= ONE_AT_A_TIME {
            for &(start, below, target, i) in element {
                offsets[i] = locator.offset_from(start, below, target);
            }
            continue;
        }
        let asked: Vec<(&str, Target)> = element
            .iter()
            .map(|&(_, below, target, _)| (below, target))
            .collect();
        let found = locator.offsets_from(element[0].0, &asked);
        for (&(.., i), offset) in element.iter().zip(found) {
            offsets[i] = offset;
        }
    }
    offsets
}
