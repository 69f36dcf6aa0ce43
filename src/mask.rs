//! Masking the document's values out of findings (`--mask-values`,
//! `mask-values = true`, [`Settings::mask_values`]), so that a server or a
//! CI log can keep agui-lint's findings without keeping request content.
//!
//! What a finding says about the document is in its `message`, its `help`
//! and its related notes' messages; the rule, the severity, the pointer and
//! the line and column are kept as they are. Masking rewrites those texts,
//! keeping what says where a finding is and what to fix (keys, the
//! protocol's words, positions) and masking the document's values:
//!
//! 1. Messages quote keys and values alike (`'...'`, `"..."`, `` `...` ``).
//!    When every quoted word is a key or a value the protocol itself
//!    defines (`missing required key 'threadId'`, `did you mean
//!    'assistant'?`), a key of the finding's pointers (`unknown key
//!    'colour'` at `/colour`), or a spelling of such a word (`found
//!    'thread_id'; the key is spelled 'threadId'`), the text is kept.
//!    Otherwise everything from the first quote mark to the last becomes
//!    `'***'` (with a single quote mark, everything from it to the end): a
//!    value may itself hold quote marks, so pairing marks up one by one
//!    could leave part of a value in the clear; the widest span cannot.
//! 2. Every number becomes `***` (a word that starts with a digit, or with
//!    `-` or `+` and a digit: `42`, `-1.5e3`, `0xe9`), as findings name
//!    numbers from the document unquoted (`found number 42`), except a
//!    position: the number after `event`, `record`, `entry`, `line`,
//!    `column`, `character`, `operation`, `index` or `item`. Words that
//!    merely contain digits (`UTF-8`, `base64`) are kept.
//! 3. The few messages that carry a document's text without quotes (the
//!    `type` of an event out of place, the streamed arguments of a tool
//!    call) have that text replaced by `'***'`.
//!
//! `true`, `false` and `null` are kept, as is every pointer: a pointer
//! says where a finding is (keys and indices), which is what a reader
//! needs to act on it, and never holds a value. Masking a masked text
//! changes nothing.
//!
//! ```
//! assert_eq!(
//!     agui_lint::unstable::mask::text("tool message answers toolCallId 'call_9', which no earlier assistant message made"),
//!     "tool message answers toolCallId '***', which no earlier assistant message made"
//! );
//! assert_eq!(agui_lint::unstable::mask::text("expected a string, found number 42"), "expected a string, found number ***");
//! ```
//!
//! [`Settings::mask_values`]: crate::Settings::mask_values

use std::borrow::Cow;
use std::sync::Arc;

use crate::checked::{Checked, Context, Outcome};
use crate::{schema, suggest, Diagnostic};

/// What a masked value reads as.
pub const MASK: &str = "***";

/// The marks messages quote the document's text with.
const QUOTES: [char; 3] = ['\'', '"', '`'];

/// Messages and help texts whose document text is not quoted: the text
/// between each prefix and suffix (all of it after the prefix when the
/// suffix is empty). The sequence rules name an event's `type` this way
/// (`TOOL_CALL_START after RUN_FINISHED`), and the help of
/// `tool-call-args-not-json` shows the streamed arguments as they are.
/// `tests` holds a document for each, so a reworded rule fails there.
const UNQUOTED: [(&str, &str); 4] = [
    ("the stream starts with ", ", not RUN_STARTED"),
    ("", " after RUN_FINISHED"),
    ("", " after RUN_ERROR"),
    ("the argument deltas concatenate to ", ""),
];

/// The words after which a number is a position in the input (an event's
/// index, a line), not a value of the document.
const POSITIONS: [&str; 9] = [
    "event",
    "record",
    "entry",
    "line",
    "column",
    "character",
    "operation",
    "index",
    "item",
];

/// `text` with the document's values masked (see the module's rules).
pub fn text(text: &str) -> String {
    masked(text, &[])
}

/// `text` masked, keeping quoted words that are among `keys` (the keys of
/// the finding's pointers) as well as the protocol's own.
fn masked(text: &str, keys: &[String]) -> String {
    let text = unquoted(text);
    let marks = quote_marks(&text);
    let first = marks.first().map(|&(at, _)| at);
    let last = marks.last().map(|&(at, _)| at);
    let mut out = String::with_capacity(text.len());
    match (first, last) {
        (Some(first), Some(last)) if last > first && quotes_only_keys(&text, &marks, keys) => {
            out.push_str(&numbers(&text));
        }
        (Some(first), Some(last)) => {
            out.push_str(&numbers(&text[..first]));
            out.push('\'');
            out.push_str(MASK);
            out.push('\'');
            if last > first {
                // Quote marks are ASCII: one byte each.
                out.push_str(&numbers(&text[last + 1..]));
            }
        }
        _ => out.push_str(&numbers(&text)),
    }
    out
}

/// Masks what `diagnostic` says about the document: its message, help and
/// related notes (see [`text`]). The rule, severity, pointers and locations
/// are kept.
pub fn diagnostic(diagnostic: &mut Diagnostic) {
    let mut keys = pointer_keys(&diagnostic.pointer);
    for related in &diagnostic.related {
        keys.extend(pointer_keys(&related.pointer));
    }
    diagnostic.message = masked(&diagnostic.message, &keys);
    if let Some(help) = &mut diagnostic.help {
        *help = masked(help, &keys);
    }
    for related in &mut diagnostic.related {
        related.message = masked(&related.message, &keys);
    }
}

/// The keys (and indices) a JSON pointer names, unescaped.
fn pointer_keys(pointer: &str) -> Vec<String> {
    pointer
        .split('/')
        .skip(1)
        .map(|key| key.replace("~1", "/").replace("~0", "~"))
        .collect()
}

/// Where `text` has quote marks, and which: `'` between two letters or
/// digits is an apostrophe in the rule's own words (`the consumer's`), not
/// a mark. Messages set a quoted value off with a space or punctuation, so
/// a value's own marks are never taken for apostrophes.
fn quote_marks(text: &str) -> Vec<(usize, char)> {
    let mut marks = Vec::new();
    let mut before: Option<char> = None;
    let mut chars = text.char_indices().peekable();
    while let Some((at, c)) = chars.next() {
        let after = chars.peek().map(|&(_, c)| c);
        let apostrophe = c == '\''
            && before.is_some_and(char::is_alphanumeric)
            && after.is_some_and(char::is_alphanumeric);
        if QUOTES.contains(&c) && !apostrophe {
            marks.push((at, c));
        }
        before = Some(c);
    }
    marks
}

/// Whether every quoted word of `text` (its `marks` paired in order, each
/// with the next mark of its kind) is one masking keeps: a protocol word,
/// one of `keys`, or a spelling of a protocol word quoted beside it.
fn quotes_only_keys(text: &str, marks: &[(usize, char)], keys: &[String]) -> bool {
    let mut quoted = Vec::new();
    let mut rest = marks;
    while let Some((&(open, mark), after)) = rest.split_first() {
        let Some(close) = after.iter().position(|&(_, c)| c == mark) else {
            return false;
        };
        // Quote marks are ASCII: one byte each.
        quoted.push(&text[open + 1..after[close].0]);
        rest = &after[close + 1..];
    }
    let protocol = |word: &&str| schema::is_protocol_word(word);
    let known: Vec<&str> = quoted.iter().copied().filter(protocol).collect();
    quoted.iter().all(|word| {
        protocol(word)
            || keys.iter().any(|key| key == word)
            || suggest::closest(word, known.iter().copied()).is_some()
    })
}

/// `outcome` for a report that must not show document content: each
/// document as [`Documents::mask`] leaves it. The findings themselves are
/// masked by the validator's settings ([`crate::Settings::mask_values`]) as
/// they are made.
pub fn outcome(outcome: Outcome) -> Outcome {
    let mut masked = Outcome::default();
    let mut documents = Documents::default();
    for document in outcome.documents() {
        masked.push(documents.mask(document.into_owned()));
    }
    masked.failures = outcome.failures;
    masked
}

/// Masks the documents of a run one at a time, in order, for a report that
/// must not show document content (what `--mask-values` does to a report
/// as it is written).
#[derive(Debug, Default)]
pub struct Documents {
    /// The label of the last HAR entry and its masked form: the events of
    /// one entry share their label, which is masked once for all of them
    /// and stays one shared string.
    last_label: Option<(Arc<str>, Arc<str>)>,
}

impl Documents {
    /// `document` with the source lines the human format quotes dropped,
    /// and the URL in the name of a HAR entry (`entry 2 (POST https://…)`),
    /// which may carry a query's secrets, masked.
    pub fn mask(&mut self, mut document: Checked) -> Checked {
        document.source_lines.clear();
        document.context = match document.context.take() {
            Some(Context::HarRequest(label)) => Some(Context::HarRequest(self.label(&label))),
            Some(Context::HarEvent(label, n)) => Some(Context::HarEvent(self.label(&label), n)),
            Some(Context::HarBase64Event(label, n)) => {
                Some(Context::HarBase64Event(self.label(&label), n))
            }
            Some(Context::HarResponse(label)) => Some(Context::HarResponse(self.label(&label))),
            Some(Context::HarFrame(label, n, offset)) => {
                Some(Context::HarFrame(self.label(&label), n, offset))
            }
            other => other,
        };
        document
    }

    fn label(&mut self, label: &Arc<str>) -> Arc<str> {
        match &self.last_label {
            Some((original, masked)) if Arc::ptr_eq(original, label) => masked.clone(),
            _ => {
                let masked: Arc<str> = Arc::from(har_label(label));
                self.last_label = Some((label.clone(), masked.clone()));
                masked
            }
        }
    }
}

/// `entry N (METHOD URL)` as `entry N (METHOD ***)`.
fn har_label(label: &str) -> String {
    match label.split_once(" (") {
        Some((entry, request)) => {
            let method = request.split_once(' ').map_or("", |(method, _)| method);
            if method.is_empty() {
                format!("{entry} ({MASK})")
            } else {
                format!("{entry} ({method} {MASK})")
            }
        }
        None => label.to_string(),
    }
}

/// `text` with the document text of an [`UNQUOTED`] shape replaced.
fn unquoted(text: &str) -> Cow<'_, str> {
    for (prefix, suffix) in UNQUOTED {
        if text.len() > prefix.len() + suffix.len()
            && text.starts_with(prefix)
            && text.ends_with(suffix)
        {
            // An event type the protocol defines says nothing about the
            // document; the rest is the document's text.
            let inner = &text[prefix.len()..text.len() - suffix.len()];
            if schema::is_protocol_word(inner) {
                return Cow::Borrowed(text);
            }
            return Cow::Owned(format!("{prefix}'{MASK}'{suffix}"));
        }
    }
    Cow::Borrowed(text)
}

/// `text` with every word that is a number replaced by [`MASK`].
/// Whether `word`, after `previous`, is a version agui-lint itself names
/// (`AG-UI 1.1`, `the newest version agui-lint knows (1.1)`, `@ag-ui/client
/// 1.0.0 speaks 1.0`), not the document's: a protocol version it judges by
/// or a client profile, after the words that introduce one.
fn is_own_version(previous: &str, word: &str) -> bool {
    let version = word.trim_end_matches(['.', ',', ';', ':']);
    match previous {
        "AG-UI" | "knows" | "speaks" => crate::Protocol::ALL.iter().any(|p| p.as_str() == version),
        "client" => crate::Client::ALL.iter().any(|c| c.as_str() == version),
        _ => false,
    }
}

fn numbers(text: &str) -> Cow<'_, str> {
    if !text.bytes().any(|b| b.is_ascii_digit()) {
        return Cow::Borrowed(text);
    }
    let is_word = |c: char| c.is_alphanumeric() || matches!(c, '_' | '.' | '-' | '+');
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    let mut previous = "";
    while let Some(start) = rest.find(is_word) {
        out.push_str(&rest[..start]);
        let word_and_after = &rest[start..];
        let end = word_and_after
            .find(|c: char| !is_word(c))
            .unwrap_or(word_and_after.len());
        let word = &word_and_after[..end];
        let digits = word.strip_prefix(['-', '+']).unwrap_or(word);
        let position = POSITIONS.contains(&previous.to_ascii_lowercase().as_str());
        if digits.starts_with(|c: char| c.is_ascii_digit())
            && !position
            && !is_own_version(previous, word)
        {
            // A sentence's full stop after a number is not part of it.
            let kept = word.len() - word.trim_end_matches('.').len();
            out.push_str(MASK);
            out.push_str(&word[word.len() - kept..]);
        } else {
            out.push_str(word);
        }
        previous = word;
        rest = &word_and_after[end..];
    }
    out.push_str(rest);
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Kind, Settings, Validator};

    #[test]
    fn the_versions_agui_lint_names_are_not_the_documents() {
        assert_eq!(
            text("protocolVersion '1.2' is newer than the newest version agui-lint knows (1.1)"),
            "protocolVersion '***' is newer than the newest version agui-lint knows (1.1)"
        );
        assert_eq!(
            text("judged as AG-UI 1.1, the newest version agui-lint knows"),
            "judged as AG-UI 1.1, the newest version agui-lint knows"
        );
        assert_eq!(
            text("@ag-ui/client 1.0.0 speaks 1.0: it warns"),
            "@ag-ui/client 1.0.0 speaks 1.0: it warns"
        );
        // A number the document gave stays masked, after those words too.
        assert_eq!(
            text("AG-UI 7.3 and client 9.9.9"),
            "AG-UI *** and client ***"
        );
    }

    #[test]
    fn quoted_text_is_masked_from_the_first_mark_to_the_last() {
        assert_eq!(text("unknown role 'assitant'"), "unknown role '***'");
        assert_eq!(
            text("RUN_FINISHED has threadId 'a', its RUN_STARTED 'b'"),
            "RUN_FINISHED has threadId '***'"
        );
        // A value holding quote marks is masked whole.
        assert_eq!(
            text("key 'it's a ' secret' appears more than once in this object"),
            "key '***' appears more than once in this object"
        );
        // JSON excerpts and serde's backticks are quoted text too.
        assert_eq!(text(r#"invalid role ["secret"]"#), "invalid role ['***']");
        assert_eq!(
            text("unknown variant `secret`, expected one of `add`"),
            "unknown variant '***'"
        );
        // An unpaired mark (a message cut short) masks to the end.
        assert_eq!(
            text(r#"parameters is not valid here: "secret..."#),
            "parameters is not valid here: '***'"
        );
    }

    #[test]
    fn keys_and_the_protocols_words_are_kept() {
        assert_eq!(
            text("missing required key 'threadId'"),
            "missing required key 'threadId'"
        );
        assert_eq!(
            text("found 'thread_id'; the key is spelled 'threadId'"),
            "found 'thread_id'; the key is spelled 'threadId'"
        );
        assert_eq!(
            text("did you mean 'assistant'?"),
            "did you mean 'assistant'?"
        );
        assert_eq!(
            text("a tool message must follow the assistant message whose 'toolCalls' has this id"),
            "a tool message must follow the assistant message whose 'toolCalls' has this id"
        );
        // A key of the finding's own pointer says nothing the pointer does not.
        assert_eq!(
            masked("unknown key 'colour'", &["colour".into()]),
            "unknown key 'colour'"
        );
        assert_eq!(masked("unknown key 'colour'", &[]), "unknown key '***'");
        // One value among the keys masks the whole span.
        assert_eq!(
            text("key 'threadId' holds 'secret', not 'runId'"),
            "key '***'"
        );
        // A value that starts and ends with protocol words is still masked
        // unless every quoted piece of it is one.
        assert_eq!(text("found 'user' a secret 'x'"), "found '***'");
    }

    #[test]
    fn apostrophes_are_not_quote_marks() {
        assert_eq!(
            text("activity '42' skipped; the consumer's view is unchanged"),
            "activity '***' skipped; the consumer's view is unchanged"
        );
        // A value's own apostrophe is inside its marks and masked with it.
        assert_eq!(text("found 'it's mine'"), "found '***'");
        assert_eq!(
            text("TEXT_MESSAGE_CONTENT after RUN_ERROR"),
            "TEXT_MESSAGE_CONTENT after RUN_ERROR"
        );
    }

    #[test]
    fn positions_are_kept() {
        assert_eq!(
            text("invalid JSON at line 3 column 14"),
            "invalid JSON at line 3 column 14"
        );
        assert_eq!(
            text("TOOL_CALL_END never came (event 12)"),
            "TOOL_CALL_END never came (event 12)"
        );
        assert_eq!(
            text("operation 2 does not apply: found number 7"),
            "operation 2 does not apply: found number ***"
        );
    }

    #[test]
    fn numbers_are_masked_and_words_with_digits_kept() {
        assert_eq!(
            text("expected a string, found number -1.5e3"),
            "expected a string, found number ***"
        );
        assert_eq!(
            text("invalid JSON: byte 0xe9 is not UTF-8"),
            "invalid JSON: byte *** is not UTF-8"
        );
        assert_eq!(
            text("the document is 12 bytes, over the limit of 10."),
            "the document is *** bytes, over the limit of ***."
        );
        assert_eq!(text("data is not base64"), "data is not base64");
    }

    #[test]
    fn unquoted_document_text_is_masked_by_shape() {
        assert_eq!(
            text("SECRET_TYPE after RUN_FINISHED"),
            "'***' after RUN_FINISHED"
        );
        assert_eq!(
            text("the stream starts with SECRET_TYPE, not RUN_STARTED"),
            "the stream starts with '***', not RUN_STARTED"
        );
        assert_eq!(
            text("the argument deltas concatenate to {pin: 1234"),
            "the argument deltas concatenate to '***'"
        );
    }

    #[test]
    fn masking_twice_changes_nothing() {
        for message in [
            "unknown role 'assitant'",
            "found number 42",
            "SECRET after RUN_ERROR",
            "plain",
        ] {
            let once = text(message);
            assert_eq!(text(&once), once);
        }
    }

    #[test]
    fn har_labels_keep_the_entry_and_method() {
        assert_eq!(
            har_label("entry 2 (POST https://agent.example/agent?token=secret)"),
            "entry 2 (POST ***)"
        );
    }

    /// Every place a finding can quote the document, with a secret in it;
    /// the masked report never shows the secret, and keeps rules and
    /// pointers.
    #[test]
    fn a_masked_report_never_shows_the_document_values() {
        const SECRET: &str = "sk_live_7f3a";
        let input = format!(
            r#"{{"threadId":"t","runId":"r","state":{{}},"forwardedProps":{{}},"context":[],
            "tools":[{{"name":"{SECRET} tool","description":"d","parameters":{{"type":"object"}}}}],
            "messages":[
              {{"id":"m1","role":"{SECRET}","content":"hi"}},
              {{"id":"m2","role":"tool","toolCallId":"{SECRET}","content":"x"}},
              {{"id":"m3","role":"user","content":"hi","colour":"{SECRET}"}},
              {{"id":"m4","role":"user","content":4242424242}},
              {{"id":"m4","role":"assistant","toolCalls":[{{"id":"c","type":"function",
                "function":{{"name":"{SECRET}","arguments":"{{\"k\": \"{SECRET}\""}}}}]}}
            ]}}"#
        );
        let events = format!(
            "{{\"type\":\"{SECRET}\"}}\n{{\"type\":\"RUN_STARTED\",\"threadId\":\"t\",\"runId\":\"r\"}}\n\
             {{\"type\":\"TOOL_CALL_START\",\"toolCallId\":\"{SECRET}\",\"toolCallName\":\"f\"}}\n\
             {{\"type\":\"TOOL_CALL_ARGS\",\"toolCallId\":\"{SECRET}\",\"delta\":\"{SECRET}\"}}\n\
             {{\"type\":\"TOOL_CALL_END\",\"toolCallId\":\"{SECRET}\"}}\n\
             {{\"type\":\"RUN_FINISHED\",\"threadId\":\"{SECRET}\",\"runId\":\"r\"}}\n\
             {{\"type\":\"{SECRET}\"}}\n"
        );
        for masked in [false, true] {
            let validator = Validator::new()
                .unwrap()
                .with_settings(Settings::default().mask_values(masked));
            let mut shown =
                serde_json::to_string(&validator.validate(Kind::RunAgentInput, input.as_bytes()))
                    .unwrap();
            let mut stream = crate::EventStream::new();
            for line in events.lines() {
                let report = validator.validate_in_stream(
                    &mut stream,
                    Some(Kind::Event),
                    line.as_bytes(),
                    None,
                    None,
                );
                shown.push_str(&serde_json::to_string(&report).unwrap());
            }
            shown.push_str(&serde_json::to_string(&validator.finish_stream(&mut stream)).unwrap());
            for rule in [
                crate::rules::schema::INVALID_VALUE.name,
                crate::rules::messages::TOOL_RESULT_WITHOUT_CALL.name,
                crate::rules::schema::UNKNOWN_FIELD.name,
                crate::rules::schema::WRONG_TYPE.name,
                crate::rules::sequence::lifecycle::EVENT_BEFORE_RUN_STARTED.name,
                crate::rules::sequence::tool_calls::TOOL_CALL_ARGS_NOT_JSON.name,
            ] {
                assert!(shown.contains(rule), "{rule} missing: {shown}");
            }
            assert_eq!(shown.contains(SECRET), !masked, "{shown}");
            assert_eq!(shown.contains("4242424242"), !masked, "{shown}");
            assert!(shown.contains("/messages/1/toolCallId"), "{shown}");
        }
    }
}
