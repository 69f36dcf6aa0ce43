//! MIME type syntax (RFC 6838 names, RFC 9110 parameters): one check that
//! the content and the capabilities rules share, so that both accept
//! exactly the same MIME types.

use crate::text::excerpt;

/// A MIME type's top-level type and subtype, as written (compare them
/// without regard to case).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct MimeType<'a> {
    /// The top-level type, such as `image`.
    pub top: &'a str,
    /// The subtype, such as `png` or `vnd.ms-excel`.
    pub sub: &'a str,
}

/// Parses `text` as `type/subtype` (RFC 6838 section 4.2 restricted names)
/// followed by optional `;` parameters (RFC 9110 section 5.6.6), or says in
/// a clause why it is not one. Shared by the content and capabilities rules
/// so that both accept exactly the same MIME types.
pub(crate) fn parse_mime_type(text: &str) -> Result<MimeType<'_>, String> {
    let (essence, parameters) = match text.split_once(';') {
        // RFC 9110 allows optional whitespace before each ';'.
        Some((essence, rest)) => (essence.trim_end_matches([' ', '\t']), Some(rest)),
        None => (text, None),
    };
    let Some((top, sub)) = essence.split_once('/') else {
        return Err("it has no '/' between type and subtype".to_string());
    };
    restricted_name(top, "type")?;
    restricted_name(sub, "subtype")?;
    if let Some(parameters) = parameters {
        check_parameters(parameters)?;
    }
    Ok(MimeType { top, sub })
}

/// RFC 6838 section 4.2: `restricted-name = restricted-name-first
/// *126restricted-name-chars`.
fn restricted_name(name: &str, what: &str) -> Result<(), String> {
    let mut chars = name.chars();
    match chars.next() {
        None => return Err(format!("the {what} is empty")),
        Some(c) if !c.is_ascii_alphanumeric() => {
            return Err(format!(
                "the {what} '{}' does not start with a letter or digit",
                excerpt(name)
            ))
        }
        Some(_) => {}
    }
    if let Some(c) = chars.find(|&c| !(c.is_ascii_alphanumeric() || "!#$&-^_.+".contains(c))) {
        return Err(format!(
            "'{}' is not allowed in the {what} '{}'",
            c.escape_default(),
            excerpt(name)
        ));
    }
    if name.len() > 127 {
        return Err(format!("the {what} is longer than 127 characters"));
    }
    Ok(())
}

/// RFC 9110 `tchar`.
fn is_token_char(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b)
}

/// The parameters after the first `;`: `*( OWS ";" OWS [ parameter ] )`
/// with `parameter = token "=" ( token / quoted-string )`.
fn check_parameters(text: &str) -> Result<(), String> {
    let bytes = text.as_bytes();
    let char_at = |i: usize| {
        text.get(i..)
            .and_then(|rest| rest.chars().next())
            .map_or_else(|| "?".to_string(), |c| c.escape_default().to_string())
    };
    let skip_whitespace = |mut i: usize| {
        while bytes.get(i).is_some_and(|&b| b == b' ' || b == b'\t') {
            i += 1;
        }
        i
    };
    let mut i = 0;
    loop {
        i = skip_whitespace(i);
        let Some(&b) = bytes.get(i) else {
            return Ok(());
        };
        if b == b';' {
            // An empty parameter, which RFC 9110 allows.
            i += 1;
            continue;
        }
        let start = i;
        while bytes.get(i).copied().is_some_and(is_token_char) {
            i += 1;
        }
        if start == i {
            return Err(format!(
                "'{}' is not allowed in a parameter name",
                char_at(i)
            ));
        }
        let name = &text[start..i];
        if bytes.get(i) != Some(&b'=') {
            return Err(format!("the parameter '{name}' has no '=value'"));
        }
        i += 1;
        if bytes.get(i) == Some(&b'"') {
            i += 1;
            loop {
                match bytes.get(i) {
                    None => {
                        return Err(format!(
                            "the quoted value of parameter '{name}' is not closed"
                        ))
                    }
                    Some(b'"') => {
                        i += 1;
                        break;
                    }
                    Some(b'\\') => i += 2,
                    // qdtext admits tab, visible ASCII and obs-text, not
                    // other control characters.
                    Some(&c) if c != b'\t' && (c < 0x20 || c == 0x7f) => {
                        return Err(format!(
                            "the quoted value of parameter '{name}' holds a control character"
                        ))
                    }
                    Some(_) => i += 1,
                }
            }
        } else {
            let value_start = i;
            while bytes.get(i).copied().is_some_and(is_token_char) {
                i += 1;
            }
            if value_start == i {
                return Err(format!("the parameter '{name}' has an empty value"));
            }
        }
        i = skip_whitespace(i);
        match bytes.get(i) {
            None => return Ok(()),
            Some(b';') => i += 1,
            Some(_) => {
                return Err(format!(
                    "'{}' after the parameter '{name}' is not allowed",
                    char_at(i)
                ))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mime_types_follow_rfc_6838_with_parameters() {
        for ok in [
            "image/png",
            "IMAGE/PNG",
            "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
            "image/svg+xml",
            "text/plain; charset=utf-8",
            "text/plain;charset=\"utf-8\";format=flowed",
            "text/plain ; charset=utf-8 ;",
            "text/plain; name=\"a \\\" b;c\"",
        ] {
            assert!(
                parse_mime_type(ok).is_ok(),
                "{ok}: {:?}",
                parse_mime_type(ok)
            );
        }
        let bad = [
            ("png", "it has no '/' between type and subtype"),
            ("/png", "the type is empty"),
            ("image/", "the subtype is empty"),
            (
                "image/*",
                "the subtype '*' does not start with a letter or digit",
            ),
            ("image/png*", "'*' is not allowed in the subtype 'png*'"),
            ("image png", "it has no '/' between type and subtype"),
            (
                " image/png",
                "the type ' image' does not start with a letter or digit",
            ),
            ("image/png ", "' ' is not allowed in the subtype 'png '"),
            ("image/png/x", "'/' is not allowed in the subtype 'png/x'"),
            (
                "text/plain; charset",
                "the parameter 'charset' has no '=value'",
            ),
            (
                "text/plain; charset=",
                "the parameter 'charset' has an empty value",
            ),
            (
                "text/plain; =utf-8",
                "'=' is not allowed in a parameter name",
            ),
            (
                "text/plain; a=\"x",
                "the quoted value of parameter 'a' is not closed",
            ),
            (
                "text/plain; a=\"x\\",
                "the quoted value of parameter 'a' is not closed",
            ),
            (
                "text/plain; a=b c",
                "'c' after the parameter 'a' is not allowed",
            ),
            (
                "text/plain; é=b",
                "'\\u{e9}' is not allowed in a parameter name",
            ),
        ];
        for (text, reason) in bad {
            assert_eq!(parse_mime_type(text), Err(reason.to_string()), "{text}");
        }
        let long = format!("image/{}", "a".repeat(128));
        assert!(parse_mime_type(&long).is_err());
        assert_eq!(
            parse_mime_type("Image/PNG; q=1"),
            Ok(MimeType {
                top: "Image",
                sub: "PNG"
            })
        );
    }
}
