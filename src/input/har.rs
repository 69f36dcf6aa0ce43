//! HTTP Archive (HAR 1.2) captures: the AG-UI exchanges inside.
//!
//! Owns reading a HAR document into its request/response pairs: method,
//! URL and the two bodies as bytes (base64 decoded), each body with the
//! JSON pointer of the string that holds it, so a finding in a body can be
//! located in the HAR file. What the bodies mean is left to the caller.
//!
//! [`read`] takes the HAR's text and reads one entry at a time, so that an
//! archive of any size costs its text and one entry, never a `Value` of
//! the whole; [`entries`] reads a document already parsed.

use base64::engine::general_purpose::{STANDARD, STANDARD_NO_PAD};
use base64::Engine as _;
use serde::Deserialize as _;
use serde_json::{Map, Value};

/// A body inside the HAR file: its bytes and the JSON pointer of the string
/// that holds it (so a finding can be located in the HAR file).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HarBody {
    /// The body as sent (base64 already decoded when `encoding` is
    /// "base64").
    pub bytes: Vec<u8>,
    /// JSON pointer (RFC 6901) of the `text` string in the HAR document,
    /// e.g. "/log/entries/0/request/postData/text".
    pub pointer: String,
    /// The declared mime type, if any.
    pub mime_type: Option<String>,
    /// Whether the HAR held the body as base64 (`encoding: "base64"`),
    /// so that its text in the file is not the body itself.
    pub base64: bool,
    /// The byte offset of the string's opening quote in the HAR text,
    /// when the entry was read from it ([`read`]).
    pub offset: Option<usize>,
}

/// One request/response pair of the archive.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HarEntry {
    /// 1-based position in `log.entries`.
    pub index: usize,
    /// JSON pointer of the entry, e.g. "/log/entries/0".
    pub pointer: String,
    /// The request method, "" when absent.
    pub method: String,
    /// The request URL, "" when absent.
    pub url: String,
    /// `request.postData.text`, when present.
    pub request_body: Option<HarBody>,
    /// `response.content.text`, when present.
    pub response_body: Option<HarBody>,
    /// The byte offset of the entry's `response` (or of the entry, when it
    /// has none) in the HAR text, when the entry was read from it
    /// ([`read`]).
    pub response_offset: Option<usize>,
    /// `response.status`, when it is an HTTP status (browsers write 0 for
    /// a request that got no response).
    pub status: Option<u16>,
    /// `response.content.mimeType`, also when the body was not recorded.
    pub response_mime_type: Option<String>,
    /// The response's `Content-Encoding` header (`gzip`, `br` ...), when it
    /// names one other than `identity`.
    pub response_content_encoding: Option<String>,
    /// How the response arrived, when `agui-lint probe` recorded the entry
    /// (its `_aguiLint` member).
    pub delivery: Option<Delivery>,
}

/// How a response arrived, as `agui-lint probe` measured it and wrote it
/// into the entry's `_aguiLint` member (HAR 1.2 leaves members starting
/// with `_` to the exporter), so that checking the saved archive later
/// reports what the probe reported.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Delivery {
    /// Milliseconds from sending the request to the response's first byte
    /// of body, when one came.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_byte_ms: Option<u64>,
    /// Milliseconds from sending the request to the first `data:` line.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_event_ms: Option<u64>,
    /// The longest wait, in milliseconds, between two reads of the body
    /// (or before the first one).
    #[serde(default)]
    pub longest_gap_ms: u64,
    /// How the body ended.
    pub end: DeliveryEnd,
    /// The limit that was reached, in milliseconds, for a timeout.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit_ms: Option<u64>,
    /// What the connection reported, for a lost connection.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
    /// Bytes of the body that arrived after the recorder's size limit:
    /// counted, not recorded, so not checked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dropped_bytes: Option<u64>,
}

/// How a response's body ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum DeliveryEnd {
    /// The server ended it.
    Complete,
    /// No response came within the first-byte timeout.
    FirstByteTimeout,
    /// No byte came within the idle timeout.
    IdleTimeout,
    /// The exchange took longer than the total timeout.
    TotalTimeout,
    /// The connection failed or closed before the body's end.
    ConnectionLost,
}

/// Why a document is not a HAR archive we can read, or why one of its
/// entries cannot be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct HarError {
    /// JSON pointer of the offending node ("" for the root).
    pub pointer: String,
    /// What is wrong, one sentence, no trailing period, quoting the key,
    /// e.g. "'log.entries' is not an array".
    pub message: String,
    /// The byte offset of the offending node in the HAR text, when the
    /// archive was read from it ([`read`]).
    pub offset: Option<usize>,
}

/// Every entry of the archive, in order. Fails only when the document is
/// not a HAR at all (no `log` object, or `log.entries` is not an array). An
/// entry that cannot be read (not an object, a member of the wrong type, an
/// unknown `encoding`, base64 that does not decode) is not skipped: it is an
/// `Err` in its place in the list, so the caller can report it and go on.
pub fn entries(har: &Value) -> Result<Vec<Result<HarEntry, HarError>>, HarError> {
    let root = Node::root(har);
    root.object()?;
    let log = root
        .member("log")
        .ok_or_else(|| root.error_at("'log' is missing"))?;
    log.object()?;
    let list = log
        .member("entries")
        .ok_or_else(|| log.error_at("'log.entries' is missing"))?;
    let items = list
        .value
        .as_array()
        .ok_or_else(|| list.error("is not an array"))?;
    Ok(items
        .iter()
        .enumerate()
        .map(|(position, item)| entry(position, list.item(position, item)))
        .collect())
}

/// The entries of a HAR text, read one at a time: see [`read`].
#[derive(Debug)]
pub struct Entries<'a> {
    text: &'a [u8],
    /// Where the next element of `log.entries` starts, if there is one.
    next: Option<usize>,
    position: usize,
}

/// Opens `text`, a JSON document (the caller has checked it parses), as a
/// HAR archive whose entries are then read one at a time, each from its
/// own bytes. Fails as [`entries`] does when the document is not a HAR.
pub fn read(text: &[u8]) -> Result<Entries<'_>, HarError> {
    use crate::locate::{member_value, skip_whitespace};
    let error = |pointer: &str, message: &str, offset: usize| HarError {
        pointer: pointer.to_string(),
        message: message.to_string(),
        offset: Some(offset),
    };
    let root = skip_whitespace(text, 0);
    if text.get(root) != Some(&b'{') {
        return Err(error("", "the document is not a JSON object", root));
    }
    let log = member_value(text, root, "log").ok_or_else(|| error("", "'log' is missing", root))?;
    if text.get(log) != Some(&b'{') {
        return Err(error("/log", "'log' is not an object", log));
    }
    let list = member_value(text, log, "entries")
        .ok_or_else(|| error("/log", "'log.entries' is missing", log))?;
    if text.get(list) != Some(&b'[') {
        return Err(error("/log/entries", "'log.entries' is not an array", list));
    }
    let first = skip_whitespace(text, list + 1);
    Ok(Entries {
        text,
        next: (text.get(first) != Some(&b']')).then_some(first),
        position: 0,
    })
}

impl Iterator for Entries<'_> {
    type Item = Result<HarEntry, HarError>;

    fn next(&mut self) -> Option<Self::Item> {
        use crate::locate::{skip_value, skip_whitespace};
        let start = self.next.take()?;
        let end = skip_value(self.text, start)?;
        let after = skip_whitespace(self.text, end);
        if self.text.get(after) == Some(&b',') {
            self.next = Some(skip_whitespace(self.text, after + 1));
        }
        let position = self.position;
        self.position += 1;
        let bytes = &self.text[start..end];
        let list = Node {
            value: &Value::Null,
            pointer: "/log/entries".to_string(),
            path: "log.entries".to_string(),
            entry: None,
        };
        // The document parsed whole, so each of its values does.
        let value = match serde_json::from_slice::<Value>(bytes) {
            Ok(value) => value,
            Err(e) => {
                return Some(Err(list
                    .item(position, &Value::Null)
                    .error_at(format!("entry {} is not JSON: {e}", position + 1))))
            }
        };
        let entry_pointer = format!("/log/entries/{position}");
        let mut read = entry(position, list.item(position, &value));
        match &mut read {
            Ok(entry) => {
                let response = format!("{entry_pointer}/response");
                entry.response_offset =
                    node_offset(bytes, &entry_pointer, &response).map(|at| start + at);
                for body in [&mut entry.request_body, &mut entry.response_body]
                    .into_iter()
                    .flatten()
                {
                    body.offset = node_offset(bytes, &entry_pointer, &body.pointer)
                        .filter(|&at| bytes.get(at) == Some(&b'"'))
                        .map(|at| start + at);
                }
            }
            Err(error) => {
                error.offset =
                    node_offset(bytes, &entry_pointer, &error.pointer).map(|at| start + at);
            }
        }
        Some(read)
    }
}

/// Where the node at `pointer` (or its nearest ancestor) starts in
/// `entry`, the text of the entry at `entry_pointer`.
fn node_offset(entry: &[u8], entry_pointer: &str, pointer: &str) -> Option<usize> {
    let inside = pointer.strip_prefix(entry_pointer)?;
    let text = std::str::from_utf8(entry).ok()?;
    Some(crate::locate::Locator::new(text).offset(inside, crate::Target::Value))
}

/// Whether parsed JSON looks like a HAR archive (`log` object holding an
/// `entries` array); used to recognise `.json` files that are HAR exports.
pub fn looks_like_har(value: &Value) -> bool {
    value
        .get("log")
        .and_then(Value::as_object)
        .and_then(|log| log.get("entries"))
        .is_some_and(Value::is_array)
}

/// Reads the entry at 0-based `position` of `log.entries`.
fn entry(position: usize, node: Node<'_>) -> Result<HarEntry, HarError> {
    node.object()?;
    let (mut method, mut url, mut request_body) = (String::new(), String::new(), None);
    if let Some(request) = node.member("request") {
        request.object()?;
        if let Some(value) = request.member("method") {
            method = value.string()?.to_owned();
        }
        if let Some(value) = request.member("url") {
            url = value.string()?.to_owned();
        }
        if let Some(post_data) = request.member("postData") {
            request_body = body(&post_data)?;
        }
    }
    let (mut response_body, mut status, mut response_mime_type) = (None, None, None);
    let mut response_content_encoding = None;
    if let Some(response) = node.member("response") {
        response.object()?;
        status = response
            .member("status")
            .and_then(|node| node.value.as_u64())
            .and_then(|code| u16::try_from(code).ok())
            .filter(|code| (100..=599).contains(code));
        response_content_encoding = response
            .member("headers")
            .and_then(|headers| content_encoding(headers.value));
        if let Some(content) = response.member("content") {
            response_body = body(&content)?;
            response_mime_type = content
                .member("mimeType")
                .and_then(|node| node.value.as_str().map(str::to_owned));
        }
    }
    // Written by agui-lint's probe; anything else under the name is not
    // read rather than an error, as the member is an exporter's own.
    let delivery = node
        .member("_aguiLint")
        .and_then(|node| Delivery::deserialize(node.value).ok());
    Ok(HarEntry {
        index: position + 1,
        pointer: node.pointer,
        method,
        url,
        request_body,
        response_body,
        response_offset: None,
        status,
        response_mime_type,
        response_content_encoding,
        delivery,
    })
}

/// The `Content-Encoding` a HAR `headers` list names, other than
/// `identity`.
fn content_encoding(headers: &Value) -> Option<String> {
    headers
        .as_array()?
        .iter()
        .filter(|header| {
            header
                .get("name")
                .and_then(Value::as_str)
                .is_some_and(|name| name.eq_ignore_ascii_case("content-encoding"))
        })
        .filter_map(|header| header.get("value").and_then(Value::as_str))
        .map(str::trim)
        .find(|value| !value.is_empty() && !value.eq_ignore_ascii_case("identity"))
        .map(str::to_owned)
}

impl HarEntry {
    /// The `Content-Encoding` of a response body recorded as it came over
    /// the wire, still encoded: the header names an encoding and the body
    /// holds no `data:` line. (Browsers record the decoded body under the
    /// same header, which reads as events.)
    pub fn undecoded_encoding(&self) -> Option<&str> {
        let encoding = self.response_content_encoding.as_deref()?;
        let body = &self.response_body.as_ref()?.bytes;
        let has_data_line = memchr::memmem::find_iter(body, b"data:")
            .any(|at| at == 0 || matches!(body[at - 1], b'\n' | b'\r'));
        (!has_data_line).then_some(encoding)
    }
}

/// The body held by a `postData` or `content` object, `None` when it has no
/// `text` (HAR leaves it out when the body was not recorded).
fn body(holder: &Node<'_>) -> Result<Option<HarBody>, HarError> {
    holder.object()?;
    let Some(text_node) = holder.member("text") else {
        return Ok(None);
    };
    let text = text_node.string()?;
    let mime_type = holder
        .member("mimeType")
        .map(|node| node.string().map(str::to_owned))
        .transpose()?;
    let (bytes, base64) = match holder.member("encoding") {
        None => (text.as_bytes().to_vec(), false),
        Some(encoding) => match encoding.string()? {
            // Some exporters write an empty `encoding` for plain text.
            "" => (text.as_bytes().to_vec(), false),
            "base64" => (
                decode_base64(text)
                    .map_err(|reason| text_node.error(format!("is not valid base64 ({reason})")))?,
                true,
            ),
            other => {
                return Err(encoding.error(format!(
                    "is {other:?}, an encoding that is not read (only \"base64\")"
                )))
            }
        },
    };
    Ok(Some(HarBody {
        bytes,
        pointer: text_node.pointer,
        mime_type,
        base64,
        offset: None,
    }))
}

/// Decodes base64 with or without its `=` padding, which exporters differ
/// on; the reason is the padded decoder's, in words.
fn decode_base64(text: &str) -> Result<Vec<u8>, String> {
    STANDARD.decode(text).or_else(|padded| {
        STANDARD_NO_PAD
            .decode(text)
            .map_err(|_| base64_reason(&padded))
    })
}

/// Why base64 did not decode, as a reader of the HAR would put it: the
/// character and its 1-based position, not the decoder's byte value and
/// offset.
fn base64_reason(error: &base64::DecodeError) -> String {
    use base64::DecodeError;
    let character = |byte: u8| match byte {
        b' ' => "a space".to_string(),
        b'\n' => "a line break".to_string(),
        b'\r' => "a carriage return".to_string(),
        b'\t' => "a tab".to_string(),
        b'=' => "'=' (padding, which only ends the text)".to_string(),
        0x21..=0x7e => format!("'{}'", char::from(byte)),
        _ => format!("byte 0x{byte:02x}"),
    };
    match *error {
        DecodeError::InvalidByte(offset, byte) => format!(
            "{} at character {} is not a base64 character",
            character(byte),
            offset + 1
        ),
        DecodeError::InvalidLength(length) => format!(
            "{length} base64 characters cannot be whole bytes (a cut text?)"
        ),
        DecodeError::InvalidLastSymbol { offset, symbol, .. } => format!(
            "its last character {} at character {} encodes bits no encoder writes (a cut or altered text?)",
            character(symbol),
            offset + 1
        ),
        DecodeError::InvalidPadding => "its '=' padding is wrong".to_string(),
    }
}

/// A value of the HAR document with where it is: its JSON pointer and its
/// dotted path as messages quote it (`'request.url' of entry 1`). An entry
/// is named by its 1-based number, as every count in a message is; the
/// pointer (`/log/entries/0/request/url`) is 0-based, as RFC 6901 has it.
struct Node<'a> {
    value: &'a Value,
    pointer: String,
    /// The dotted path from the entry (or the document's root, outside the
    /// entries).
    path: String,
    /// The 1-based number of the entry this node is in.
    entry: Option<usize>,
}

impl<'a> Node<'a> {
    fn root(value: &'a Value) -> Self {
        Node {
            value,
            pointer: String::new(),
            path: String::new(),
            entry: None,
        }
    }

    /// The member `key` of this object, `None` when absent (or when this is
    /// not an object, which callers have already ruled out).
    fn member(&self, key: &str) -> Option<Node<'a>> {
        let value = self.value.get(key)?;
        let path = if self.path.is_empty() {
            key.to_owned()
        } else {
            format!("{}.{key}", self.path)
        };
        Some(Node {
            value,
            pointer: format!("{}/{key}", self.pointer),
            path,
            entry: self.entry,
        })
    }

    /// The entry at 0-based `position` of `log.entries`.
    fn item(&self, position: usize, value: &'a Value) -> Node<'a> {
        Node {
            value,
            pointer: format!("{}/{position}", self.pointer),
            path: String::new(),
            entry: Some(position + 1),
        }
    }

    fn object(&self) -> Result<&'a Map<String, Value>, HarError> {
        self.value
            .as_object()
            .ok_or_else(|| match (self.entry, self.path.is_empty()) {
                (None, true) => self.error_at("the document is not a JSON object"),
                (Some(n), true) => self.error_at(format!("entry {n} is not an object")),
                _ => self.error("is not an object"),
            })
    }

    fn string(&self) -> Result<&'a str, HarError> {
        self.value
            .as_str()
            .ok_or_else(|| self.error("is not a string"))
    }

    /// An error about this node, its path quoted before `what`.
    fn error(&self, what: impl std::fmt::Display) -> HarError {
        match self.entry {
            Some(n) => self.error_at(format!("'{}' of entry {n} {what}", self.path)),
            None => self.error_at(format!("'{}' {what}", self.path)),
        }
    }

    /// An error located at this node, with a message of its own.
    fn error_at(&self, message: impl Into<String>) -> HarError {
        HarError {
            pointer: self.pointer.clone(),
            message: message.into(),
            offset: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use serde_json::json;

    #[test]
    fn base64_that_does_not_decode_is_said_in_words() {
        assert_eq!(
            decode_base64("e30 K"),
            Err("a space at character 4 is not a base64 character".to_string())
        );
        assert_eq!(
            decode_base64("e30Kx"),
            Err("5 base64 characters cannot be whole bytes (a cut text?)".to_string())
        );
        assert_eq!(decode_base64("e30K").as_deref(), Ok(&b"{}\n"[..]));
        assert_eq!(decode_base64("e30").as_deref(), Ok(&b"{}"[..]));
    }

    fn read(har: &Value) -> Vec<Result<HarEntry, HarError>> {
        entries(har).expect("a HAR archive")
    }

    fn response_text(text: &str, encoding: Option<&str>) -> Value {
        let mut content = json!({"mimeType": "text/event-stream", "text": text});
        if let (Some(encoding), Some(object)) = (encoding, content.as_object_mut()) {
            object.insert("encoding".into(), json!(encoding));
        }
        json!({"log": {"entries": [{
            "request": {"method": "GET", "url": "http://x/"},
            "response": {"status": 200, "content": content},
        }]}})
    }

    #[test]
    fn reads_two_entries() {
        let har = json!({"log": {"version": "1.2", "entries": [
            {
                "request": {
                    "method": "POST",
                    "url": "http://localhost:8000/agent",
                    "postData": {"mimeType": "application/json", "text": "{\"threadId\":\"t\"}"},
                },
                "response": {"status": 200, "content": {"mimeType": "text/event-stream"}},
            },
            {
                "request": {"method": "GET", "url": "http://localhost:8000/stream"},
                "response": {"status": 200, "content": {
                    "mimeType": "text/event-stream",
                    "text": "ZGF0YTogeyJ0eXBlIjoiUlVOX1NUQVJURUQifQoK",
                    "encoding": "base64",
                }},
            },
        ]}});
        let got = read(&har);
        assert_eq!(got.len(), 2);
        let first = got[0].as_ref().expect("first entry reads");
        assert_eq!(first.index, 1);
        assert_eq!(first.pointer, "/log/entries/0");
        assert_eq!(first.method, "POST");
        assert_eq!(first.url, "http://localhost:8000/agent");
        assert_eq!(
            first.request_body,
            Some(HarBody {
                bytes: b"{\"threadId\":\"t\"}".to_vec(),
                pointer: "/log/entries/0/request/postData/text".into(),
                mime_type: Some("application/json".into()),
                base64: false,
                offset: None,
            })
        );
        assert_eq!(first.response_body, None);
        let second = got[1].as_ref().expect("second entry reads");
        assert_eq!(second.index, 2);
        assert_eq!(second.pointer, "/log/entries/1");
        assert_eq!(second.method, "GET");
        assert_eq!(second.request_body, None);
        assert_eq!(
            second.response_body,
            Some(HarBody {
                bytes: b"data: {\"type\":\"RUN_STARTED\"}\n\n".to_vec(),
                pointer: "/log/entries/1/response/content/text".into(),
                mime_type: Some("text/event-stream".into()),
                base64: true,
                offset: None,
            })
        );
    }

    #[test]
    fn missing_parts_are_none_or_empty() {
        let har = json!({"log": {"entries": [{}, {"request": {}, "response": {}}]}});
        for result in read(&har) {
            let entry = result.expect("entry reads");
            assert_eq!(entry.method, "");
            assert_eq!(entry.url, "");
            assert_eq!(entry.request_body, None);
            assert_eq!(entry.response_body, None);
        }
    }

    #[test]
    fn base64_with_and_without_padding() {
        for text in ["aGk=", "aGk"] {
            let got = read(&response_text(text, Some("base64")));
            let entry = got[0].as_ref().expect("entry reads");
            let body = entry.response_body.as_ref().expect("a body");
            assert_eq!(body.bytes, b"hi");
        }
    }

    #[test]
    fn plain_text_is_not_decoded() {
        for encoding in [None, Some("")] {
            let got = read(&response_text("aGk=", encoding));
            let entry = got[0].as_ref().expect("entry reads");
            let body = entry.response_body.as_ref().expect("a body");
            assert_eq!(body.bytes, b"aGk=");
        }
    }

    #[test]
    fn bad_base64_is_an_entry_error_at_the_text() {
        let got = read(&response_text("not base64!", Some("base64")));
        let error = got[0].as_ref().expect_err("bad base64");
        assert_eq!(error.pointer, "/log/entries/0/response/content/text");
        assert!(
            error
                .message
                .starts_with("'response.content.text' of entry 1 is not valid base64 ("),
            "{}",
            error.message
        );
        assert!(!error.message.ends_with('.'));
    }

    #[test]
    fn unknown_encoding_is_an_entry_error_naming_it() {
        let got = read(&response_text("x", Some("gzip")));
        let error = got[0].as_ref().expect_err("unknown encoding");
        assert_eq!(error.pointer, "/log/entries/0/response/content/encoding");
        assert!(error.message.contains("\"gzip\""), "{}", error.message);
    }

    #[test]
    fn malformed_entries_are_errors_in_place() {
        let har = json!({"log": {"entries": [
            42,
            {"request": {"method": "POST", "postData": {"text": 7}}},
            {"request": {"method": "GET"}},
            {"response": "nope"},
        ]}});
        let got = read(&har);
        assert_eq!(got.len(), 4);
        assert_eq!(
            got[0],
            Err(HarError {
                pointer: "/log/entries/0".into(),
                message: "entry 1 is not an object".into(),
                offset: None,
            })
        );
        assert_eq!(
            got[1],
            Err(HarError {
                pointer: "/log/entries/1/request/postData/text".into(),
                message: "'request.postData.text' of entry 2 is not a string".into(),
                offset: None,
            })
        );
        assert_eq!(got[2].as_ref().map(|entry| entry.index), Ok(3));
        assert_eq!(
            got[3].as_ref().map_err(|error| error.pointer.as_str()),
            Err("/log/entries/3/response")
        );
    }

    #[test]
    fn not_a_har_is_an_error() {
        let cases = [
            (json!([1]), ""),
            (json!({"a": 1}), ""),
            (json!({"log": []}), "/log"),
            (json!({"log": {}}), "/log"),
            (json!({"log": {"entries": {}}}), "/log/entries"),
        ];
        for (value, pointer) in cases {
            let error = entries(&value).expect_err("not a HAR");
            assert_eq!(error.pointer, pointer, "{value}");
            assert!(!error.message.ends_with('.'));
        }
        let error = entries(&json!({"log": {"entries": 1}})).expect_err("not a HAR");
        assert_eq!(error.message, "'log.entries' is not an array");
        assert_eq!(error.to_string(), error.message);
    }

    #[test]
    fn entries_read_from_the_text_are_the_entries_of_the_value() {
        let text = br#"{"log": {"log": 1, "entries": [
            {"request": {"method": "POST", "postData": {"text": "{\"a\": \"\u00e9\"}"}}},
            42,
            {"response": {"content": {"text": "aGk=", "encoding": "base64"}}}
        ]}}"#;
        let value: Value = serde_json::from_slice(text).expect("JSON");
        let from_value = entries(&value).expect("a HAR");
        let from_text: Vec<_> = super::read(text).expect("a HAR").collect();
        assert_eq!(from_text.len(), 3);
        for (a, b) in from_value.iter().zip(&from_text) {
            match (a, b) {
                (Ok(a), Ok(b)) => {
                    assert_eq!(
                        (&a.method, a.index, &a.pointer),
                        (&b.method, b.index, &b.pointer)
                    );
                    for (x, y) in [
                        (&a.request_body, &b.request_body),
                        (&a.response_body, &b.response_body),
                    ] {
                        assert_eq!(x.as_ref().map(|x| &x.bytes), y.as_ref().map(|y| &y.bytes));
                    }
                }
                (Err(a), Err(b)) => assert_eq!((&a.pointer, &a.message), (&b.pointer, &b.message)),
                (a, b) => panic!("{a:?} against {b:?}"),
            }
        }
        let request = from_text[0]
            .as_ref()
            .unwrap()
            .request_body
            .as_ref()
            .unwrap();
        let offset = request.offset.expect("located");
        assert!(text[offset..].starts_with(br#""{\"a\""#));
        let error = from_text[1].as_ref().expect_err("not an object");
        assert_eq!(&text[error.offset.expect("located")..][..2], b"42");
        let response = from_text[2]
            .as_ref()
            .unwrap()
            .response_body
            .as_ref()
            .unwrap();
        assert!(response.base64 && response.offset.is_some());
        for (text, pointer) in [
            (&b"[1]"[..], ""),
            (b"{\"a\": 1}", ""),
            (b"{\"log\": []}", "/log"),
            (b"{\"log\": {}}", "/log"),
            (b"{\"log\": {\"entries\": {}}}", "/log/entries"),
        ] {
            assert_eq!(super::read(text).expect_err("not a HAR").pointer, pointer);
        }
        assert_eq!(
            super::read(br#"{"log": {"entries": []}}"#)
                .expect("a HAR")
                .count(),
            0
        );
    }

    #[test]
    fn looks_like_har_recognises_archives() {
        assert!(looks_like_har(&json!({"log": {"entries": []}})));
        assert!(looks_like_har(
            &json!({"log": {"version": "1.2", "entries": [{}]}})
        ));
        assert!(!looks_like_har(&json!({"log": {"entries": {}}})));
        assert!(!looks_like_har(&json!({"log": {}})));
        assert!(!looks_like_har(&json!({"type": "RUN_STARTED"})));
        assert!(!looks_like_har(&json!([{"log": {"entries": []}}])));
    }
}
