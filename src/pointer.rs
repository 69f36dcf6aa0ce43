//! JSON pointers (RFC 6901): building, splitting and escaping.

/// Escapes one reference token: `~` as `~0`, `/` as `~1`.
pub fn escape(token: &str) -> String {
    // Nearly every token (a key, an index) has nothing to escape.
    if !token.contains(['~', '/']) {
        return token.to_owned();
    }
    token.replace('~', "~0").replace('/', "~1")
}

/// Undoes [`escape`].
pub fn unescape(token: &str) -> String {
    if !token.contains('~') {
        return token.to_owned();
    }
    token.replace("~1", "/").replace("~0", "~")
}

/// `pointer` with one more token appended.
pub fn push(pointer: &str, token: &str) -> String {
    format!("{pointer}/{}", escape(token))
}

/// The pointer's unescaped tokens; the root `""` has none.
pub fn tokens(pointer: &str) -> impl Iterator<Item = String> + '_ {
    pointer.split('/').skip(1).map(unescape)
}

/// The last token, unescaped; `None` for the root.
pub fn last(pointer: &str) -> Option<String> {
    pointer.rfind('/').map(|i| unescape(&pointer[i + 1..]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_and_splits() {
        assert_eq!(push("/a", "b/c~d"), "/a/b~1c~0d");
        assert_eq!(tokens("/a/b~1c~0d").collect::<Vec<_>>(), vec!["a", "b/c~d"]);
        assert_eq!(last("/a/b~1c"), Some("b/c".to_string()));
        assert_eq!(last(""), None);
        assert_eq!(tokens("").count(), 0);
    }
}
