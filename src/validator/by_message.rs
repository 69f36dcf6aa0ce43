//! The full path of a large RunAgentInput, a message at a time.
//!
//! The full path explains a document the fast path does not take (a shape
//! error, say) from a parsed `Value`, which takes ten to fifteen times the
//! text: a 43 MB input of a million messages, each with a wrong type, took
//! 700 MB. A RunAgentInput's messages are most of it, so from
//! [`FROM`] bytes on the input is parsed without them (its `messages`
//! left empty), and then each message on its own, checked against the
//! schema's item schema, run through the rules, and dropped: memory is
//! what the rules keep by id, the findings kept and one message.
//!
//! The findings are those of the whole parse: the item schema is what the
//! schema applies to each message (the schema puts nothing else on the
//! array, which [`crate::schema`]'s split checks), the conversation rules
//! are fed the same messages in the same order, and every pointer and
//! offset is that of the whole document. A document this cannot take as
//! the whole parse would (not one object with one `messages` array, or
//! nesting near the parser's limit) is parsed whole.

use std::borrow::Cow;
use std::cell::RefCell;
use std::fmt;
use std::ops::Range;

use serde::de::{self, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::value::RawValue;

use super::located::locate_all;
use super::schema_findings::{out_bound, SchemaFindings};
use super::{Noted, Noticed, Validator};
use crate::diagnostic::Diagnostic;
use crate::findings::Findings;
use crate::limits::{self, PARSER_DEPTH};
use crate::parse;
use crate::report::Report;
use crate::rules;
use crate::Kind;

/// The size from which a RunAgentInput is parsed a message at a time: a
/// smaller one's `Value` is a few megabytes at most.
pub(super) const FROM: usize = 256 * 1024;

/// Levels of nesting short of the parser's limit within which a document
/// is parsed in parts: a message parsed alone starts two levels higher
/// than in the document, and the whole parse's refusal of a deeper one
/// must stay the whole parse's.
const DEPTH_MARGIN: usize = 4;

/// The full path's report on `bytes` (well-formed as to encoding, within
/// the document limit) as a RunAgentInput, when it can be parsed a message
/// at a time; `None` leaves it to the whole parse, with `early` (the
/// findings before the parse) untouched.
pub(super) fn check(
    validator: &Validator,
    kind: Option<Kind>,
    bytes: &[u8],
    early: &mut Vec<Diagnostic>,
) -> Option<Report> {
    if !matches!(kind, None | Some(Kind::RunAgentInput)) {
        return None;
    }
    let limits = validator.settings.limits();
    if limits::nesting(bytes, PARSER_DEPTH - DEPTH_MARGIN)
        .too_deep_at
        .is_some()
    {
        return None;
    }
    let span = messages_span(bytes)?;
    let array = std::str::from_utf8(bytes.get(span.clone())?).ok()?;
    let mut top_text = Vec::with_capacity(bytes.len() - span.len() + 2);
    top_text.extend_from_slice(&bytes[..span.start]);
    top_text.extend_from_slice(b"[]");
    top_text.extend_from_slice(&bytes[span.end..]);
    let keep = parse::Limit {
        keep: limits.max_findings,
    };
    let prune = super::pruned::members(&top_text);
    let (top, noted) =
        Noted::of(parse::parse_pruning(&top_text, keep, &prune.keys, prune.depth).ok()?);
    drop(top_text);
    let kind = match kind {
        Some(kind) => kind,
        None => Kind::detect(&top).ok()?,
    };
    if kind != Kind::RunAgentInput {
        return None;
    }
    let (reading, declaration) = validator.judge_version(kind, &top, None);
    let protocol = reading.protocol;
    let compiled = validator.schemas.get(protocol, kind).ok().flatten()?;
    if !compiled.split().splits("messages") {
        return None;
    }
    // From here the document is checked in parts.
    let mut found = validator.sink();
    for diagnostic in early.drain(..) {
        found.push(diagnostic);
    }
    let mut noticed = Noticed::default();
    // The top's text has `[]` where the array was.
    let (start, removed) = (span.start, span.len() - 2);
    let outside = |offset: usize| {
        if offset >= start + 2 {
            offset + removed
        } else {
            offset
        }
    };
    noticed.report(bytes, "", &outside, noted, &mut found);
    if let Some(declaration) = declaration {
        found.push(declaration);
    }
    let bounded = RefCell::new(std::mem::take(&mut noticed.skip_numbers));
    let bound = out_bound(limits.max_findings);
    if !compiled.validator.is_valid(&top) {
        let mut bounded = bounded.borrow_mut();
        let mut noting = SchemaFindings {
            inner: &mut found,
            bounded: &mut bounded,
            bound,
        };
        compiled.check(&top, reading, &mut noting);
    }
    let split = compiled.split();
    let mut read = true;
    let skip = |pointer: &str| bounded.borrow().contains(pointer);
    rules::check_by_message(protocol, &top, limits, &skip, &mut found, |found, rules| {
        read = each_item(array, |index, offset, text| {
            let Ok(parsed) = parse::parse_within(text.as_bytes(), keep) else {
                return false;
            };
            let (message, noted) = Noted::of(parsed);
            let at = format!("/messages/{index}");
            let from = start + offset;
            noticed.report(bytes, &at, &|offset| offset + from, noted, found);
            bounded
                .borrow_mut()
                .extend(std::mem::take(&mut noticed.skip_numbers));
            {
                let mut bounded = bounded.borrow_mut();
                let mut noting = SchemaFindings {
                    inner: &mut *found,
                    bounded: &mut bounded,
                    bound,
                };
                split.check_item("messages", &message, &at, reading, &mut noting);
            }
            rules(index, &message, found);
            rules::client::message(validator.settings.client_profile(), index, &message, found);
            true
        });
    });
    if !read {
        // Not expected: the array was read whole before. The whole parse
        // then says what it says.
        return None;
    }
    let mut diagnostics = found.finish();
    if !diagnostics.is_empty() {
        let located = noticed.located_text(bytes);
        locate_all(&located, noticed.keys_repeat, None, &mut diagnostics);
    }
    Some(
        validator
            .report(Some(kind), diagnostics)
            .with_protocol(protocol),
    )
}

/// Where the one `messages` array of `text`, a JSON object, sits in it;
/// `None` when the text is not one object with exactly one `messages`
/// member that is an array.
fn messages_span(text: &[u8]) -> Option<Range<usize>> {
    let mut deserializer = serde_json::Deserializer::from_slice(text);
    let found = deserializer
        .deserialize_map(TopVisitor)
        .and_then(|found| deserializer.end().map(|()| found))
        .ok()??;
    let start = (found.get().as_ptr() as usize).checked_sub(text.as_ptr() as usize)?;
    let range = start..start + found.get().len();
    (text.get(range.clone())?.first() == Some(&b'[')).then_some(range)
}

/// Finds the `messages` member of the top-level object, keeping its text.
struct TopVisitor;

impl<'de> Visitor<'de> for TopVisitor {
    type Value = Option<&'de RawValue>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a RunAgentInput object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut messages = None;
        while let Some(key) = map.next_key::<Cow<'de, str>>()? {
            if key == "messages" {
                if messages.is_some() {
                    return Err(de::Error::custom("a repeated messages key"));
                }
                messages = Some(map.next_value::<&'de RawValue>()?);
            } else {
                map.next_value::<IgnoredAny>()?;
            }
        }
        Ok(messages)
    }
}

/// Hands each item of `array`, the text of a JSON array, to `each` with
/// its index, its offset in `array` and its text, while `each` says to go
/// on; false when the text is not such an array or `each` stopped.
fn each_item(array: &str, each: impl FnMut(usize, usize, &str) -> bool) -> bool {
    let mut deserializer = serde_json::Deserializer::from_str(array);
    deserializer
        .deserialize_seq(Items { base: array, each })
        .and_then(|()| deserializer.end())
        .is_ok()
}

/// Hands each item of an array to its function.
struct Items<'t, F> {
    base: &'t str,
    each: F,
}

impl<'de, F: FnMut(usize, usize, &str) -> bool> Visitor<'de> for Items<'_, F> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an array")
    }

    fn visit_seq<A: SeqAccess<'de>>(mut self, mut seq: A) -> Result<(), A::Error> {
        let mut index = 0;
        while let Some(item) = seq.next_element::<&RawValue>()? {
            let text = item.get();
            let offset = (text.as_ptr() as usize)
                .checked_sub(self.base.as_ptr() as usize)
                .ok_or_else(|| de::Error::custom("an item outside the array"))?;
            if !(self.each)(index, offset, text) {
                return Err(de::Error::custom("stopped"));
            }
            index += 1;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_messages_array_is_found_only_when_it_is_one_array() {
        let text = br#"{"a": 1, "messages" : [1, {"b": [2]}] , "c": {}}"#;
        let span = messages_span(text).expect("a span");
        assert_eq!(&text[span], br#"[1, {"b": [2]}]"#);
        for refused in [
            &br#"{"messages": {}}"#[..],
            br#"{"messages": [], "messages": []}"#,
            br#"{"a": 1}"#,
            br#"[1]"#,
            br#"{"messages": []} x"#,
            br#"{"messages": [1,]}"#,
        ] {
            assert!(
                messages_span(refused).is_none(),
                "{}",
                String::from_utf8_lossy(refused)
            );
        }
        let mut items = Vec::new();
        assert!(each_item(
            r#"[1, {"b": [2]} ,"x"]"#,
            |index, offset, text| {
                items.push((index, offset, text.to_string()));
                true
            }
        ));
        assert_eq!(
            items,
            [
                (0, 1, "1".to_string()),
                (1, 4, r#"{"b": [2]}"#.to_string()),
                (2, 16, r#""x""#.to_string())
            ]
        );
    }
}
