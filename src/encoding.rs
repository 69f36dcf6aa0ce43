//! What a document's bytes are before they are JSON: UTF-8 as RFC 8259
//! requires, with or without a byte order mark (`byte-order-mark`), UTF-16
//! or UTF-32 (`invalid-encoding`), or bytes that are not UTF-8, which are
//! not JSON either (`invalid-json`, naming the byte).

use crate::diagnostic::{Diagnostic, Location};
use crate::locate::location_at;

const BOM: &[u8] = b"\xef\xbb\xbf";

/// The findings about `bytes`' encoding, and the bytes to read as JSON:
/// without a byte order mark, or `None` when they cannot be read at all.
pub(crate) fn examine(bytes: &[u8]) -> (Vec<Diagnostic>, Option<&[u8]>) {
    if let Some(name) = wide_encoding(bytes) {
        let finding = crate::rules::INVALID_ENCODING
            .diagnostic("", format!("the document is {name}, not UTF-8"))
            .with_help(
                "save or send it as UTF-8: JSON exchanged between systems must be UTF-8 (RFC 8259)",
            );
        return (
            vec![located(finding, Location { line: 1, column: 1 })],
            None,
        );
    }
    let mut findings = Vec::new();
    let text = match bytes.strip_prefix(BOM) {
        Some(rest) => {
            let finding = crate::rules::BYTE_ORDER_MARK.diagnostic(
                "",
                "the document starts with a UTF-8 byte order mark",
            )
            .with_help("save it without the mark: JSON.parse and Python's json.loads both reject it; the rest was checked as if it were not there");
            findings.push(located(finding, Location { line: 1, column: 1 }));
            rest
        }
        None => bytes,
    };
    if let Err(error) = std::str::from_utf8(text) {
        let at = error.valid_up_to();
        let byte = text.get(at).copied().unwrap_or_default();
        // Not UTF-8 is not JSON (RFC 8259, section 8.1): the JSON rule, with
        // the byte named.
        let finding = crate::rules::INVALID_JSON.diagnostic(
            "",
            format!("invalid JSON: byte 0x{byte:02x} is not UTF-8"),
        )
        .with_help("save or send it as UTF-8; a single byte such as 0xe9 for 'é' is Latin-1 (or Windows-1252), not UTF-8");
        findings.push(located(finding, location_at(text, at)));
        return (findings, None);
    }
    (findings, Some(text))
}

fn located(mut diagnostic: Diagnostic, location: Location) -> Diagnostic {
    diagnostic.location = Some(location);
    diagnostic
}

/// The UTF-16 or UTF-32 encoding `bytes` are in, told by a byte order mark
/// or, as RFC 4627 suggested, by where the NUL bytes of the first
/// characters fall (a JSON text starts with two ASCII characters).
fn wide_encoding(bytes: &[u8]) -> Option<&'static str> {
    match bytes {
        [0, 0, 0xfe, 0xff, ..] => Some("UTF-32BE"),
        [0xff, 0xfe, 0, 0, ..] => Some("UTF-32LE"),
        [0xfe, 0xff, ..] => Some("UTF-16BE"),
        [0xff, 0xfe, ..] => Some("UTF-16LE"),
        [0, 0, 0, a, ..] if *a != 0 => Some("UTF-32BE"),
        [a, 0, 0, 0, ..] if *a != 0 => Some("UTF-32LE"),
        [0, a, 0, b, ..] if *a != 0 && *b != 0 => Some("UTF-16BE"),
        [a, 0, b, 0, ..] if *a != 0 && *b != 0 => Some("UTF-16LE"),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rules(bytes: &[u8]) -> (Vec<String>, Option<usize>) {
        let (findings, rest) = examine(bytes);
        (
            findings.into_iter().map(|d| d.message).collect(),
            rest.map(<[u8]>::len),
        )
    }

    #[test]
    fn utf8_passes_and_a_bom_is_reported_and_skipped() {
        assert_eq!(rules(b"{}"), (vec![], Some(2)));
        assert_eq!(
            rules(b"\xef\xbb\xbf{}"),
            (
                vec!["the document starts with a UTF-8 byte order mark".to_string()],
                Some(2)
            )
        );
    }

    #[test]
    fn wide_encodings_are_named() {
        let utf16: Vec<u8> = "{}".encode_utf16().flat_map(u16::to_le_bytes).collect();
        assert_eq!(rules(&utf16).0, ["the document is UTF-16LE, not UTF-8"]);
        assert_eq!(
            rules(b"\xfe\xff\x00{\x00}").0,
            ["the document is UTF-16BE, not UTF-8"]
        );
        assert_eq!(
            rules(b"\x00\x00\x00{\x00\x00\x00}").0,
            ["the document is UTF-32BE, not UTF-8"]
        );
    }

    #[test]
    fn other_bytes_are_pointed_at() {
        let (findings, rest) = examine(b"{\"a\":\n\"caf\xe9\"}");
        assert!(rest.is_none());
        assert_eq!(findings[0].message, "invalid JSON: byte 0xe9 is not UTF-8");
        assert_eq!(findings[0].location, Some(Location { line: 2, column: 5 }));
    }
}
