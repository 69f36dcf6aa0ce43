//! HTTP Archive (HAR 1.2) captures: the AG-UI exchanges inside.
//!
//! Owns reading an already parsed HAR document into its request/response
//! pairs: method, URL and the two bodies as bytes (base64 decoded), each
//! body with the JSON pointer of the string that holds it, so a finding in
//! a body can be located in the HAR file. What the bodies mean is left to
//! the caller.

use base64::engine::general_purpose::{STANDARD, STANDARD_NO_PAD};
use base64::Engine as _;
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
    let mut response_body = None;
    if let Some(response) = node.member("response") {
        response.object()?;
        if let Some(content) = response.member("content") {
            response_body = body(&content)?;
        }
    }
    Ok(HarEntry {
        index: position + 1,
        pointer: node.pointer,
        method,
        url,
        request_body,
        response_body,
    })
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
    let bytes = match holder.member("encoding") {
        None => text.as_bytes().to_vec(),
        Some(encoding) => match encoding.string()? {
            // Some exporters write an empty `encoding` for plain text.
            "" => text.as_bytes().to_vec(),
            "base64" => decode_base64(text)
                .map_err(|reason| text_node.error(format!("is not valid base64 ({reason})")))?,
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
    }))
}

/// Decodes base64 with or without its `=` padding, which exporters differ
/// on; the reason is the padded decoder's, without its trailing period.
fn decode_base64(text: &str) -> Result<Vec<u8>, String> {
    STANDARD.decode(text).or_else(|padded| {
        STANDARD_NO_PAD
            .decode(text)
            .map_err(|_| padded.to_string().trim_end_matches('.').to_owned())
    })
}

/// A value of the HAR document with where it is: its JSON pointer and its
/// dotted path as messages quote it (`log.entries[0].request.url`).
struct Node<'a> {
    value: &'a Value,
    pointer: String,
    path: String,
}

impl<'a> Node<'a> {
    fn root(value: &'a Value) -> Self {
        Node {
            value,
            pointer: String::new(),
            path: String::new(),
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
        })
    }

    /// The item at `position` of this array.
    fn item(&self, position: usize, value: &'a Value) -> Node<'a> {
        Node {
            value,
            pointer: format!("{}/{position}", self.pointer),
            path: format!("{}[{position}]", self.path),
        }
    }

    fn object(&self) -> Result<&'a Map<String, Value>, HarError> {
        self.value.as_object().ok_or_else(|| {
            if self.path.is_empty() {
                self.error_at("the document is not a JSON object")
            } else {
                self.error("is not an object")
            }
        })
    }

    fn string(&self) -> Result<&'a str, HarError> {
        self.value
            .as_str()
            .ok_or_else(|| self.error("is not a string"))
    }

    /// An error about this node, its path quoted before `what`.
    fn error(&self, what: impl std::fmt::Display) -> HarError {
        self.error_at(format!("'{}' {what}", self.path))
    }

    /// An error located at this node, with a message of its own.
    fn error_at(&self, message: impl Into<String>) -> HarError {
        HarError {
            pointer: self.pointer.clone(),
            message: message.into(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

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
                .starts_with("'log.entries[0].response.content.text' is not valid base64 ("),
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
                message: "'log.entries[0]' is not an object".into(),
            })
        );
        assert_eq!(
            got[1],
            Err(HarError {
                pointer: "/log/entries/1/request/postData/text".into(),
                message: "'log.entries[1].request.postData.text' is not a string".into(),
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
