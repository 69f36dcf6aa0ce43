//! Rules over multimodal content parts and their sources (types.md
//! "InputContent", multimodal-inputs.md), and over empty user content.
//!
//! A MIME type's syntax is [`super::mime`], shared with the capabilities
//! rules.

use url::Url;

use super::mime::parse_mime_type;
use super::view::{Emptiness, Findings, Part};
use super::walk::Document;
use super::Rule;
use crate::diagnostic::{Diagnostic, Severity};
use crate::rules::EVERY_VERSION;
use crate::text::excerpt;

/// The rules of this family, in documentation order.
pub(super) const RULES: &[Rule] = &[
    CONTENT_DATA_NOT_BASE64,
    CONTENT_MIME_TYPE_MISMATCH,
    CONTENT_URL_INVALID,
    CONTENT_EMPTY,
];

pub(super) const CONTENT_DATA_NOT_BASE64: Rule = Rule {
    name: "content-data-not-base64",
    severity: Severity::Error,
    protocols: EVERY_VERSION,
    severity_1x: None,
    summary: "A data source's value is not standard padded base64",
    docs: r#"## What it checks
That the `value` of a `data` source (`{"type": "data", ...}`) is base64 as
RFC 4648 section 4 defines it: the standard alphabet (`A-Z`, `a-z`, `0-9`,
`+`, `/`), padded with `=` to a multiple of four characters. Rejected, each
with its own message: the URL-safe alphabet (`-`, `_`), missing or excess
padding, `=` before the end, whitespace or line breaks anywhere (MIME-style
wrapped base64), any other character, and a whole data URL
(`data:image/png;base64,...`) put where only its payload belongs. Unused
low bits in the last character (`QR==` rather than `QQ==`) are accepted,
since every common decoder reads them. An empty value is valid base64 (zero
bytes).

## Why it matters
multimodal-inputs.md defines `data` as an inline base64 payload, and the
peers that decode it disagree on everything outside the standard padded
form: Python's `base64.b64decode(..., validate=True)` rejects missing
padding and the URL-safe alphabet, browsers' `atob` drops whitespace that
other decoders refuse, and model providers that receive the payload reject
it outright. A value that is not standard base64 works with some peers and
fails with others.

## Invalid
```json
{"type": "image", "source": {"type": "data", "value": "iVBORw0KGgo-AAAA", "mimeType": "image/png"}}
```

## Valid
```json
{"type": "image", "source": {"type": "data", "value": "iVBORw0KGgo+AAAA", "mimeType": "image/png"}}
```
"#,
};

pub(super) const CONTENT_MIME_TYPE_MISMATCH: Rule = Rule {
    name: "content-mime-type-mismatch",
    severity: Severity::Warning,
    protocols: EVERY_VERSION,
    severity_1x: None,
    summary: "A source's mimeType is malformed or does not fit the part's type",
    docs: r#"## What it checks
The `mimeType` of a content part's source, on `data` and `url` sources:

- It must be a MIME type: `type/subtype` with both names in RFC 6838
  section 4.2 syntax (a letter or digit, then letters, digits and
  `!#$&-^_.+`, at most 127 characters), optionally followed by
  `; name=value` parameters (RFC 9110 tokens or quoted strings). Wildcards
  such as `image/*` are not MIME types.
- Its top-level type must fit the part: an `image` part takes `image/*`, an
  `audio` part `audio/*`, a `video` part `video/*`, and a `document` part
  `application/*` (PDF, office formats, JSON, ...) or `text/*` (plain text,
  Markdown, CSV, HTML). Names are compared without regard to case.

## Why it matters
Agents route each part by its type and decode it by its MIME type; a
`document` part labelled `image/png`, or an `image` part labelled
`application/octet-stream`, is rejected by a model provider or decoded as
the wrong format. A malformed MIME type cannot be matched at all.

## Invalid
```json
{"type": "image", "source": {"type": "url", "value": "https://example.com/report.pdf", "mimeType": "application/pdf"}}
```

## Valid
```json
{"type": "document", "source": {"type": "url", "value": "https://example.com/report.pdf", "mimeType": "application/pdf"}}
```
"#,
};

pub(super) const CONTENT_URL_INVALID: Rule = Rule {
    name: "content-url-invalid",
    severity: Severity::Error,
    protocols: EVERY_VERSION,
    severity_1x: None,
    summary: "A url source's value is not an absolute URL",
    docs: r#"## What it checks
That the `value` of a `url` source is an absolute URL (WHATWG URL syntax,
with a scheme). A relative reference (`images/chart.png`), a bare host
(`example.com/a.png`) or text that is no URL at all is an error. An
absolute URL whose scheme is not `http`, `https` or `data` (`file:`, `s3:`,
`gs:`, `blob:`) is reported by the same rule as a warning.

## Why it matters
The peer that receives the part fetches the URL itself, with no base to
resolve a relative reference against. multimodal-inputs.md names HTTP(S)
and data URLs; other schemes point at places the peer usually cannot
reach, such as a file on the client's disk or a private bucket.

## Invalid
```json
{"type": "image", "source": {"type": "url", "value": "screens/checkout.png"}}
```

## Valid
```json
{"type": "image", "source": {"type": "url", "value": "https://example.com/screens/checkout.png"}}
```
"#,
};

pub(crate) const CONTENT_EMPTY: Rule = Rule {
    name: "content-empty",
    severity: Severity::Info,
    protocols: EVERY_VERSION,
    severity_1x: None,
    summary: "A user message has empty content",
    docs: r#"## What it checks
That a user message's `content` is neither the empty string `""` nor the
empty array `[]`. Only exactly empty content is reported; whitespace is
content.

## Why it matters
An empty user turn carries nothing for the agent to answer. Several model
providers reject a message without content, so the run fails far from the
payload that caused it; often the client sent the message before the user's
input or attachment was filled in.

## Invalid
```json
{"id": "m1", "role": "user", "content": []}
```

## Valid
```json
{"id": "m1", "role": "user", "content": "What's the weather in Lisbon?"}
```
"#,
};

/// Runs this family's checks on `document`.
pub(super) fn check(document: &Document<'_>, out: &mut impl Findings) {
    let nodes = document.content_parts();
    let parts: Vec<Part<'_>> = nodes.iter().map(|node| Part::of(node.value)).collect();
    check_parts(&parts, |index| nodes[index].pointer.clone(), out);
    for message in document.messages() {
        if message.str("role") == Some("user") {
            if let Some(content) = message.child("content") {
                check_user_content(Emptiness::of(content.value), || content.pointer, out);
            }
        }
    }
}

/// The part rules on `parts`, part `index` sitting at `part_at(index)`.
pub(crate) fn check_parts(
    parts: &[Part<'_>],
    part_at: impl Fn(usize) -> String,
    out: &mut impl Findings,
) {
    for (index, part) in parts.iter().enumerate() {
        check_part(part, || part_at(index), out);
    }
}

/// The media part types and the top-level MIME types each accepts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Media {
    Image,
    Audio,
    Video,
    Document,
}

impl Media {
    fn of(part_type: &str) -> Option<Media> {
        match part_type {
            "image" => Some(Media::Image),
            "audio" => Some(Media::Audio),
            "video" => Some(Media::Video),
            "document" => Some(Media::Document),
            _ => None,
        }
    }

    /// The part type that takes MIME top-level type `top`, if any.
    fn for_top_level(top: &str) -> Option<Media> {
        [Media::Image, Media::Audio, Media::Video, Media::Document]
            .into_iter()
            .find(|media| media.accepts(top))
    }

    fn name(self) -> &'static str {
        match self {
            Media::Image => "image",
            Media::Audio => "audio",
            Media::Video => "video",
            Media::Document => "document",
        }
    }

    /// The part's name with its article, for a sentence.
    fn a_name(self) -> &'static str {
        match self {
            Media::Image => "an image",
            Media::Audio => "an audio",
            Media::Video => "a video",
            Media::Document => "a document",
        }
    }

    fn accepts(self, top: &str) -> bool {
        let is = |name: &str| top.eq_ignore_ascii_case(name);
        match self {
            Media::Image => is("image"),
            Media::Audio => is("audio"),
            Media::Video => is("video"),
            // Documents come as PDF and office formats (application/*) and as
            // plain text, Markdown, CSV or HTML (text/*).
            Media::Document => is("application") || is("text"),
        }
    }

    fn expected(self) -> &'static str {
        match self {
            Media::Image => "an image/* type such as 'image/png'",
            Media::Audio => "an audio/* type such as 'audio/wav'",
            Media::Video => "a video/* type such as 'video/mp4'",
            Media::Document => "an application/* or text/* type such as 'application/pdf'",
        }
    }
}

/// The rules on one content part, which sits at `part_at()`.
fn check_part(part: &Part<'_>, part_at: impl Fn() -> String, out: &mut impl Findings) {
    let Some(media) = part.kind.and_then(Media::of) else {
        return;
    };
    let Some(source) = &part.source else {
        return;
    };
    let source_at = || format!("{}/source", part_at());
    if let Some(value) = source.value {
        let value_at = || format!("{}/value", source_at());
        match source.kind {
            Some("data") => check_base64(value, value_at, out),
            Some("url") => check_url(value, value_at, out),
            _ => {}
        }
    }
    if let Some(mime) = source.mime_type {
        let mime_at = || format!("{}/mimeType", source_at());
        check_mime_type(media, mime, mime_at, || format!("{}/type", part_at()), out);
    }
}

/// `content-data-not-base64` on `text`, a data source's value at `at()`.
fn check_base64(text: &str, at: impl FnOnce() -> String, out: &mut impl Findings) {
    let Some(problem) = base64_problem(text) else {
        return;
    };
    out.add(&CONTENT_DATA_NOT_BASE64, |_| {
        base64_finding(text, problem, at())
    });
}

/// The finding on `text`, at `at`, which is not base64 for `problem`.
fn base64_finding(text: &str, problem: Base64Problem, at: String) -> Diagnostic {
    let quoted = excerpt(text);
    let (message, help) = match problem {
        Base64Problem::DataUrl => (
            format!("data source value '{quoted}' is a data URL, not base64"),
            "put only the base64 payload after the comma in a data source, or send the whole data URL in a url source".to_string(),
        ),
        Base64Problem::Whitespace(at) => (
            format!("data source value '{quoted}' is not base64: whitespace at character {at}"),
            "remove all spaces and line breaks; wrapped (MIME-style) base64 is not read the same by every decoder".to_string(),
        ),
        Base64Problem::UrlSafe(c, at) => (
            format!("data source value '{quoted}' is not base64: '{c}' at character {at} is from the URL-safe alphabet"),
            "use the standard alphabet: '+' for '-' and '/' for '_'".to_string(),
        ),
        Base64Problem::Character(c, at) => (
            format!("data source value '{quoted}' is not base64: '{}' at character {at} is not a base64 character", c.escape_default()),
            "encode the bytes with standard base64 (RFC 4648 section 4)".to_string(),
        ),
        Base64Problem::EarlyPadding(at) => (
            format!("data source value '{quoted}' is not base64: padding '=' at character {at} is followed by more data"),
            "'=' may only end the value; was it concatenated from several encodings?".to_string(),
        ),
        Base64Problem::Length(len) => (
            format!("data source value '{quoted}' is not base64: its length {len} is not a multiple of 4"),
            "pad the value with '=' to a multiple of 4 characters; unpadded base64 is rejected by Python's decoder".to_string(),
        ),
        Base64Problem::ExcessPadding(pads) => (
            format!("data source value '{quoted}' is not base64: it ends in {pads} '=' where at most 2 belong"),
            "encode the bytes with standard base64 (RFC 4648 section 4)".to_string(),
        ),
    };
    CONTENT_DATA_NOT_BASE64
        .diagnostic(at, message)
        .with_help(help)
}

/// Why a text is not standard padded base64. Positions count characters
/// from 1, as a user counts them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Base64Problem {
    DataUrl,
    Whitespace(usize),
    UrlSafe(char, usize),
    Character(char, usize),
    EarlyPadding(usize),
    Length(usize),
    ExcessPadding(usize),
}

/// Checks `text` against RFC 4648 section 4 (standard alphabet, `=`
/// padding to a multiple of four) without decoding it: payloads are often
/// megabytes, and the server path should not allocate their bytes just to
/// throw them away. A unit test holds this to the `base64` crate's decoder.
fn base64_problem(text: &str) -> Option<Base64Problem> {
    if is_padded_base64(text.as_bytes()) {
        return None;
    }
    if text
        .get(..5)
        .is_some_and(|head| head.eq_ignore_ascii_case("data:"))
    {
        return Some(Base64Problem::DataUrl);
    }
    let mut count = 0;
    let mut padding_at: Option<usize> = None;
    for (i, c) in text.chars().enumerate() {
        let at = i + 1;
        match c {
            'A'..='Z' | 'a'..='z' | '0'..='9' | '+' | '/' => {
                if let Some(first) = padding_at {
                    return Some(Base64Problem::EarlyPadding(first));
                }
            }
            '=' => {
                padding_at.get_or_insert(at);
            }
            '-' | '_' => return Some(Base64Problem::UrlSafe(c, at)),
            c if c.is_whitespace() => return Some(Base64Problem::Whitespace(at)),
            c => return Some(Base64Problem::Character(c, at)),
        }
        count = at;
    }
    let pads = padding_at.map_or(0, |first| count + 1 - first);
    if pads > 2 {
        return Some(Base64Problem::ExcessPadding(pads));
    }
    // With at most two '=' and a length that is a multiple of four, the last
    // group holds 2, 3 or 4 data characters, all of which decode.
    if count % 4 != 0 {
        return Some(Base64Problem::Length(count));
    }
    None
}

/// The common case at memory speed: standard alphabet, `=` padding, a
/// multiple of four. Blocks are checked without early exits so the
/// compiler can vectorise them; anything else goes to the character by
/// character reading that says what is wrong.
fn is_padded_base64(bytes: &[u8]) -> bool {
    if bytes.len() % 4 != 0 {
        return false;
    }
    let body = bytes
        .strip_suffix(b"==")
        .or_else(|| bytes.strip_suffix(b"="))
        .unwrap_or(bytes);
    body.chunks(64).all(|block| {
        block.iter().fold(true, |ok, &b| {
            ok & (b.is_ascii_alphanumeric() | (b == b'+') | (b == b'/'))
        })
    })
}

/// What is wrong with a url source's value: not an absolute URL, or one
/// whose scheme peers are not expected to fetch.
fn url_problem(text: &str) -> Option<Result<Url, url::ParseError>> {
    match Url::parse(text) {
        Ok(url) if matches!(url.scheme(), "http" | "https" | "data") => None,
        other => Some(other),
    }
}

/// `content-url-invalid` on `text`, a url source's value at `at()`.
fn check_url(text: &str, at: impl FnOnce() -> String, out: &mut impl Findings) {
    let Some(problem) = url_problem(text) else {
        return;
    };
    // The URL is well-formed but of a scheme peers are not expected to
    // fetch: whether the peer can is a guess, so this half of the rule only
    // warns.
    let severity = match problem {
        Err(_) => CONTENT_URL_INVALID.severity,
        Ok(_) => Severity::Warning,
    };
    out.add_as(&CONTENT_URL_INVALID, severity, |rule| match problem {
        Err(error) => rule
            .diagnostic(
                at(),
                format!(
                    "url source value '{}' is not an absolute URL: {error}",
                    excerpt(text)
                ),
            )
            .with_help(
                "give an absolute http(s) URL or a data URL; inline base64 belongs in a data source",
            ),
        Ok(url) => rule
            .diagnostic(
                at(),
                format!(
                    "url source value '{}' has scheme '{}', which peers are not expected to fetch",
                    excerpt(text),
                    url.scheme()
                ),
            )
            .with_help(
                "multimodal-inputs.md names HTTP(S) and data URLs; serve the file over https or inline it in a data source",
            ),
    });
}

/// `content-mime-type-mismatch` on `text`, the `mimeType` at `at()` of
/// a `media` part whose `type` is at `type_at()`.
fn check_mime_type(
    media: Media,
    text: &str,
    at: impl FnOnce() -> String,
    type_at: impl FnOnce() -> String,
    out: &mut impl Findings,
) {
    let parsed = match parse_mime_type(text) {
        Ok(parsed) => parsed,
        Err(reason) => {
            out.add(&CONTENT_MIME_TYPE_MISMATCH, |rule| {
                rule.diagnostic(
                    at(),
                    format!("mimeType '{}' is not a MIME type: {reason}", excerpt(text)),
                )
                .with_help(format!(
                    "write type/subtype (RFC 6838); {} part takes {}",
                    media.a_name(),
                    media.expected()
                ))
            });
            return;
        }
    };
    if media.accepts(parsed.top) {
        return;
    }
    out.add(&CONTENT_MIME_TYPE_MISMATCH, |rule| {
        let help = match Media::for_top_level(parsed.top) {
            Some(other) => format!(
                "{} part takes {}; send '{}' as {} part",
                media.a_name(),
                media.expected(),
                excerpt(text),
                other.a_name()
            ),
            None => format!("{} part takes {}", media.a_name(), media.expected()),
        };
        rule.diagnostic(
            at(),
            format!(
                "{} part has mimeType '{}', which is not {} type",
                media.name(),
                excerpt(text),
                media.a_name()
            ),
        )
        .with_help(help)
        .with_related(type_at(), format!("the part is of type '{}'", media.name()))
    });
}

/// `content-empty` on a user message's content at `at()`.
pub(crate) fn check_user_content(
    content: Emptiness,
    at: impl FnOnce() -> String,
    out: &mut impl Findings,
) {
    let what = match content {
        Emptiness::EmptyText => "the empty string \"\"",
        Emptiness::EmptyParts => "the empty array []",
        Emptiness::NotEmpty => return,
    };
    out.add(&CONTENT_EMPTY, |rule| {
        rule.diagnostic(at(), format!("user message content is {what}"))
            .with_help("send at least one text or media part, or leave the message out")
    });
}

#[cfg(test)]
mod tests {
    use base64::alphabet;
    use base64::engine::general_purpose::{GeneralPurpose, PAD};
    use base64::Engine as _;
    use serde_json::{json, Value};

    use super::*;
    use crate::Kind;

    fn run(kind: Kind, value: &Value) -> Vec<Diagnostic> {
        let mut out = Vec::new();
        check(
            &Document {
                kind,
                root: value,
                limits: crate::Limits::default(),
                protocol: crate::Protocol::V0,
            },
            &mut out,
        );
        out
    }

    fn rules_of(diagnostics: &[Diagnostic]) -> Vec<(&str, Severity, &str)> {
        diagnostics
            .iter()
            .map(|d| (d.rule.as_str(), d.severity, d.pointer.as_str()))
            .collect()
    }

    fn data_part(part_type: &str, value: &str, mime: &str) -> Value {
        json!({"type": part_type, "source": {"type": "data", "value": value, "mimeType": mime}})
    }

    #[test]
    fn base64_accepts_the_standard_padded_form() {
        for ok in [
            "",
            "QQ==",
            "QUI=",
            "QUJD",
            "iVBORw0KGgo+/AAA",
            // Unused low bits set: every common decoder reads it.
            "QR==",
        ] {
            assert_eq!(base64_problem(ok), None, "{ok}");
        }
    }

    #[test]
    fn base64_names_each_problem() {
        use Base64Problem::*;
        let cases = [
            ("data:image/png;base64,QQ==", DataUrl),
            ("QUJD\nQUJD", Whitespace(5)),
            ("QUJD QQ==", Whitespace(5)),
            ("ab-_", UrlSafe('-', 3)),
            ("QUJ_", UrlSafe('_', 4)),
            ("QUJ!", Character('!', 4)),
            ("QUé=", Character('é', 3)),
            ("QQ==QQ==", EarlyPadding(3)),
            ("QQ=A", EarlyPadding(3)),
            ("QQ", Length(2)),
            ("QUJDQ", Length(5)),
            ("Q===", ExcessPadding(3)),
            ("====", ExcessPadding(4)),
        ];
        for (text, problem) in cases {
            assert_eq!(base64_problem(text), Some(problem), "{text}");
        }
    }

    #[test]
    fn base64_check_agrees_with_the_base64_crate() {
        // Every string up to 6 characters over a small alphabet that covers
        // data, padding, URL-safe and whitespace characters.
        let engine = GeneralPurpose::new(
            &alphabet::STANDARD,
            PAD.with_decode_allow_trailing_bits(true),
        );
        let symbols = ['A', 'Q', '/', '=', '-', ' '];
        let mut texts = vec![String::new()];
        let mut checked = 0;
        for _ in 0..6 {
            let mut longer = Vec::new();
            for text in &texts {
                for s in symbols {
                    let mut t = text.clone();
                    t.push(s);
                    assert_eq!(
                        base64_problem(&t).is_none(),
                        engine.decode(&t).is_ok(),
                        "{t:?}"
                    );
                    checked += 1;
                    longer.push(t);
                }
            }
            texts = longer;
        }
        assert!(checked > 50_000);
    }

    #[test]
    fn mime_type_must_fit_the_part() {
        let fits = [
            ("image", "image/png"),
            ("image", "Image/JPEG"),
            ("audio", "audio/mpeg"),
            ("video", "video/mp4"),
            ("document", "application/pdf"),
            ("document", "text/markdown; charset=utf-8"),
            ("document", "application/vnd.ms-excel"),
        ];
        for (part_type, mime) in fits {
            let found = run(Kind::InputContent, &data_part(part_type, "QQ==", mime));
            assert!(found.is_empty(), "{part_type} {mime}: {found:#?}");
        }
        let misfits = [
            ("image", "application/pdf"),
            ("image", "application/octet-stream"),
            ("audio", "video/mp4"),
            ("video", "image/gif"),
            ("document", "image/png"),
            ("document", "font/woff2"),
        ];
        for (part_type, mime) in misfits {
            let found = run(Kind::InputContent, &data_part(part_type, "QQ==", mime));
            assert_eq!(
                rules_of(&found),
                vec![(
                    "content-mime-type-mismatch",
                    Severity::Warning,
                    "/source/mimeType"
                )],
                "{part_type} {mime}"
            );
            assert_eq!(found[0].related[0].pointer, "/type");
        }
        let malformed = run(Kind::InputContent, &data_part("image", "QQ==", "png"));
        assert_eq!(
            malformed[0].message,
            "mimeType 'png' is not a MIME type: it has no '/' between type and subtype"
        );
    }

    #[test]
    fn url_sources_must_be_absolute_and_fetchable() {
        let part = |url: &str| json!({"type": "image", "source": {"type": "url", "value": url}});
        for ok in [
            "https://example.com/a.png",
            "http://localhost:8080/a.png",
            "data:image/png;base64,QQ==",
        ] {
            assert!(run(Kind::InputContent, &part(ok)).is_empty(), "{ok}");
        }
        for (url, severity) in [
            ("screens/a.png", Severity::Error),
            ("example.com/a.png", Severity::Error),
            ("https://", Severity::Error),
            ("", Severity::Error),
            ("file:///tmp/a.png", Severity::Warning),
            ("s3://bucket/a.png", Severity::Warning),
        ] {
            assert_eq!(
                rules_of(&run(Kind::InputContent, &part(url))),
                vec![("content-url-invalid", severity, "/source/value")],
                "{url}"
            );
        }
    }

    #[test]
    fn data_sources_are_checked_in_user_messages() {
        let input = json!({
            "threadId": "t", "runId": "r", "state": null, "forwardedProps": null,
            "tools": [], "context": [],
            "messages": [
                {"id": "a", "role": "assistant", "content": ""},
                {"id": "u", "role": "user", "content": [
                    {"type": "text", "text": "see"},
                    data_part("image", "QQ", "image/png")
                ]}
            ]
        });
        assert_eq!(
            rules_of(&run(Kind::RunAgentInput, &input)),
            vec![(
                "content-data-not-base64",
                Severity::Error,
                "/messages/1/content/1/source/value"
            )]
        );
    }

    #[test]
    fn empty_user_content_is_an_info() {
        for content in [json!(""), json!([])] {
            let message = json!({"id": "u", "role": "user", "content": content});
            assert_eq!(
                rules_of(&run(Kind::Message, &message)),
                vec![("content-empty", Severity::Info, "/content")]
            );
        }
        for message in [
            json!({"id": "u", "role": "user", "content": " "}),
            json!({"id": "u", "role": "user", "content": [{"type": "text", "text": "hi"}]}),
            json!({"id": "a", "role": "assistant", "content": ""}),
            json!({"id": "s", "role": "system", "content": ""}),
        ] {
            assert!(run(Kind::Message, &message).is_empty(), "{message}");
        }
    }

    #[test]
    fn malformed_shapes_are_skipped() {
        for value in [
            json!(null),
            json!([]),
            json!("image"),
            json!({"type": "image"}),
            json!({"type": "image", "source": "https://example.com/a.png"}),
            json!({"type": "image", "source": {"type": "data", "value": 42, "mimeType": 7}}),
            json!({"type": "image", "source": {"type": "file", "value": "x"}}),
            json!({"type": 3, "source": {"type": "data", "value": "!"}}),
        ] {
            assert!(run(Kind::InputContent, &value).is_empty(), "{value}");
        }
        let messages = json!([{"role": "user", "content": 5}, 7, {"role": "user"}]);
        assert!(run(Kind::Messages, &messages).is_empty());
    }
}
