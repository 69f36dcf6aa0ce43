//! What counts as a secret in the traffic agui-lint saves or prints (the
//! probe's and the kit's `--save`, the proxy's sessions and its console):
//! credential headers, a URL's user information and its secret query
//! values. Each is masked unless the user asks to keep them
//! (`--save-secrets`).

use std::borrow::Cow;

/// What a masked value becomes.
pub const MASKED: &str = "***";

/// Header names that are secrets whatever they are called elsewhere.
const SECRET_HEADERS: &[&str] = &[
    "authorization",
    "proxy-authorization",
    "cookie",
    "set-cookie",
];

/// Words in a header or query parameter name that mark its value secret:
/// `X-Auth-Token`, `X-Goog-Api-Key`, `Ocp-Apim-Subscription-Key`,
/// `Private-Token`, `X-Amz-Security-Token`, `api_key`, `session_id`.
const SECRET_WORDS: &[&str] = &[
    "token",
    "key",
    "secret",
    "password",
    "passwd",
    "auth",
    "session",
    "cookie",
    "signature",
    "credential",
];

/// Whether a header (or query parameter) called `name` carries a secret.
pub fn is_secret_name(name: &str) -> bool {
    let name = name.to_ascii_lowercase();
    SECRET_HEADERS.contains(&name.as_str()) || SECRET_WORDS.iter().any(|word| name.contains(word))
}

/// `url` with its user information (`user:password@`) and the values of
/// its secret query parameters masked; unchanged when it holds neither.
pub fn mask_url(url: &str) -> Cow<'_, str> {
    let (before_query, query) = match url.split_once('?') {
        Some((before, query)) => (before, Some(query)),
        None => (url, None),
    };
    let mut masked = String::new();
    let mut changed = false;
    // The authority runs from after `scheme://` to the next `/`; user
    // information ends at its last `@`.
    match before_query.split_once("://") {
        Some((scheme, rest)) => {
            let end = rest.find('/').unwrap_or(rest.len());
            let (authority, path) = rest.split_at(end);
            match authority.rsplit_once('@') {
                Some((_, host)) => {
                    masked.push_str(&format!("{scheme}://{MASKED}@{host}{path}"));
                    changed = true;
                }
                None => masked.push_str(before_query),
            }
        }
        None => masked.push_str(before_query),
    }
    if let Some(query) = query {
        let (query, fragment) = match query.split_once('#') {
            Some((query, fragment)) => (query, Some(fragment)),
            None => (query, None),
        };
        let pairs: Vec<String> = query
            .split('&')
            .map(|pair| match pair.split_once('=') {
                Some((name, value)) if !value.is_empty() && is_secret_name(name) => {
                    changed = true;
                    format!("{name}={MASKED}")
                }
                _ => pair.to_string(),
            })
            .collect();
        masked.push('?');
        masked.push_str(&pairs.join("&"));
        if let Some(fragment) = fragment {
            masked.push('#');
            masked.push_str(fragment);
        }
    }
    if changed {
        Cow::Owned(masked)
    } else {
        Cow::Borrowed(url)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn credential_headers_are_secrets_by_name() {
        for name in [
            "Authorization",
            "Cookie",
            "X-Api-Key",
            "X-Auth-Token",
            "X-Goog-Api-Key",
            "Ocp-Apim-Subscription-Key",
            "Private-Token",
            "X-Amz-Security-Token",
            "X-Session-Id",
        ] {
            assert!(is_secret_name(name), "{name}");
        }
        for name in [
            "Content-Type",
            "Accept",
            "X-Request-Id",
            "User-Agent",
            "Host",
        ] {
            assert!(!is_secret_name(name), "{name}");
        }
    }

    #[test]
    fn user_information_and_secret_query_values_are_masked() {
        assert_eq!(
            mask_url("http://user:password@host:8000/agent"),
            "http://***@host:8000/agent"
        );
        assert_eq!(
            mask_url("https://host/agent?api_key=abc&page=2&token=t#x"),
            "https://host/agent?api_key=***&page=2&token=***#x"
        );
        assert!(matches!(
            mask_url("http://127.0.0.1:8000/agent?page=2"),
            Cow::Borrowed(_)
        ));
        // An `@` in the path is no user information.
        assert_eq!(mask_url("http://host/agent/@me"), "http://host/agent/@me");
    }
}
