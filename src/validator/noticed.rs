//! The parse layer's findings: what a parse noticed beside the value
//! (repeated keys, unpaired surrogate escapes, numbers beyond a double's
//! range), reported at their places in the document, and what the rest of
//! the full path needs to know of them.

use serde_json::Value;

use crate::diagnostic::{Related, Target};
use crate::findings::{Capped, Findings};
use crate::locate;
use crate::parse::{self, Parsed};
use crate::rules;
use crate::settings::Settings;

/// What a parse noticed beside the value ([`Parsed`] without it).
pub(crate) struct Noted {
    repeated_keys: Vec<(String, usize)>,
    more_repeated_keys: usize,
    lone_surrogates: Vec<parse::LoneSurrogate>,
    more_lone_surrogates: usize,
    out_of_range: Vec<parse::OutOfRange>,
    more_out_of_range: usize,
}

impl Noted {
    /// `parsed`'s notes, and its value.
    pub(crate) fn of(parsed: Parsed) -> (Value, Noted) {
        let Parsed {
            value,
            repeated_keys,
            more_repeated_keys,
            lone_surrogates,
            more_lone_surrogates,
            out_of_range,
            more_out_of_range,
        } = parsed;
        (
            value,
            Noted {
                repeated_keys,
                more_repeated_keys,
                lone_surrogates,
                more_lone_surrogates,
                out_of_range,
                more_out_of_range,
            },
        )
    }
}

/// What the parse layer's findings leave for the rest of the full path:
/// whether a key repeats (the locator then reads keys with care), the
/// numbers already reported as beyond a double's range, and where the
/// unpaired surrogate escapes are.
#[derive(Default)]
pub(crate) struct Noticed {
    pub(crate) keys_repeat: bool,
    pub(crate) skip_numbers: foldhash::HashSet<String>,
    lone_escapes: Vec<usize>,
}

impl Noticed {
    /// Reports what a parse of part of `bytes` noticed: the part sits at
    /// `prefix` in the document, and `place` turns an offset in the part
    /// into one in `bytes`.
    pub(crate) fn report(
        &mut self,
        bytes: &[u8],
        prefix: &str,
        place: &dyn Fn(usize) -> usize,
        noted: Noted,
        found: &mut Capped<'_, Settings>,
    ) {
        let Noted {
            repeated_keys,
            more_repeated_keys,
            lone_surrogates,
            more_lone_surrogates,
            out_of_range,
            more_out_of_range,
        } = noted;
        self.keys_repeat |= !repeated_keys.is_empty();
        for (at, repetition) in repeated_keys {
            let at = format!("{prefix}{at}");
            let key = crate::pointer::last(&at).unwrap_or_default();
            let mut diagnostic = rules::DUPLICATE_KEY
                .diagnostic(
                    at.clone(),
                    format!("key '{key}' appears more than once in this object"),
                )
                .with_help("parsers disagree on which value wins; keep one")
                .at(Target::RepeatedKey(repetition));
            diagnostic.related.push(Related {
                pointer: at,
                message: "first occurrence".into(),
                record: None,
                location: None,
                target: Target::RepeatedKey(0),
            });
            found.push(diagnostic);
        }
        found.count(
            rules::DUPLICATE_KEY.name,
            rules::DUPLICATE_KEY.severity,
            more_repeated_keys,
        );
        found.count(
            rules::LONE_SURROGATE.name,
            rules::LONE_SURROGATE.severity,
            more_lone_surrogates,
        );
        // A number beyond a double's range was read as a stand-in of the
        // same length (see `parse`); it is reported here, at its place, and
        // the interoperability rule leaves the stand-in alone.
        for number in out_of_range {
            let offset = place(number.offset);
            let written = bytes
                .get(offset..offset + number.length)
                .map(String::from_utf8_lossy)
                .unwrap_or_default();
            let pointer = format!("{prefix}{}", number.pointer);
            let mut diagnostic = rules::NON_INTEROPERABLE_NUMBER.diagnostic(
                pointer.clone(),
                format!(
                    "number {} is beyond the range of a double: JavaScript reads it as Infinity, Python as inf, and parsers that keep to a double's range refuse the document",
                    crate::text::excerpt(&written)
                ),
            )
            .with_help("send a number this large as a string; RFC 8259 section 6 lets receivers limit the range of numbers, and every SDK does; the rest was checked as if it read ±1e300");
            diagnostic.location = Some(locate::location_at(bytes, offset));
            found.push(diagnostic);
            self.skip_numbers.insert(pointer);
        }
        found.count(
            rules::NON_INTEROPERABLE_NUMBER.name,
            rules::NON_INTEROPERABLE_NUMBER.severity,
            more_out_of_range,
        );
        for lone in lone_surrogates {
            let offset = place(lone.offset);
            self.lone_escapes.push(offset);
            let escape = bytes
                .get(offset..offset + 6)
                .map(String::from_utf8_lossy)
                .unwrap_or_default();
            let mut diagnostic = rules::LONE_SURROGATE.diagnostic(
                format!("{prefix}{}", lone.pointer),
                format!(
                    "{} has the unpaired UTF-16 surrogate escape '{escape}'",
                    if lone.in_key { "key" } else { "string" }
                ),
            )
            .with_help("the Python SDK rejects such strings; escape the whole character (both halves of the pair) or drop the half; the rest was checked as if it read U+FFFD")
            .at(if lone.in_key { Target::Key } else { Target::Value });
            // At the escape itself, which is more precise than the string
            // the locator would find; `locate_all` keeps a preset location.
            diagnostic.location = Some(locate::location_at(bytes, offset));
            found.push(diagnostic);
        }
    }

    /// The text the locator reads: a key with an unpaired surrogate escape
    /// is in the pointers as the parse read it, with U+FFFD, and the
    /// locator decodes keys, so each such escape is replaced by `\ufffd`,
    /// of the same length, so that offsets stay true.
    pub(crate) fn located_text<'b>(&self, bytes: &'b [u8]) -> std::borrow::Cow<'b, [u8]> {
        let mut text = std::borrow::Cow::Borrowed(bytes);
        for &offset in &self.lone_escapes {
            if let Some(escape) = text.to_mut().get_mut(offset..offset + 6) {
                escape.copy_from_slice(b"\\ufffd");
            }
        }
        text
    }
}
