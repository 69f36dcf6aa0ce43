//! `pattern` and `patternProperties` regexes: compiled with the linear-time
//! engine under size limits, never run, and what a rejected one needs.

use crate::diagnostic::Diagnostic;
use crate::pointer;
use crate::text::quote;
use serde_json::Value;

use super::rules::*;

/// Bounds on the size of a compiled pattern (bytes), for both the program
/// and the lazy DFA's cache, so that `a{1000}{1000}` costs no more than a
/// small pattern. `regex` defaults to 10 MiB.
pub(super) const REGEX_SIZE_LIMIT: usize = 1 << 20;

/// Why agui-lint declines to run a valid pattern.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Declined {
    /// Look-around or a back-reference, which the linear engine lacks.
    Backtracking,
    /// Larger compiled than [`REGEX_SIZE_LIMIT`] (large counted
    /// repetitions): valid, but not compiled here.
    TooLarge,
}

/// The `tool-parameters-unsupported-pattern` finding on the pattern at
/// `at` (a `pattern` keyword, or a key under `patternProperties`).
pub(super) fn unsupported_pattern(
    schema: &Value,
    at: &str,
    why: Declined,
    base: &str,
) -> Diagnostic {
    let is_key = parent_keyword(at) == Some("patternProperties");
    let pattern = if is_key {
        pointer::last(at).unwrap_or_default()
    } else {
        schema
            .pointer(at)
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string()
    };
    let (why, instead) = match why {
        Declined::Backtracking => (
            "uses look-around or a back-reference, which agui-lint's linear-time regex engine does not run".to_string(),
            "look-around and back-references are what make a backtracking engine exponential; express the constraint without them (minLength, several patterns under allOf)",
        ),
        Declined::TooLarge => (
            format!(
                "compiles to more than agui-lint's regex engine takes ({} KiB, a limit set so that a pattern cannot exhaust a server)",
                REGEX_SIZE_LIMIT / 1024
            ),
            "use smaller repetition counts, or 'maxLength' for a length",
        ),
    };
    let (message, help) = if is_key {
        (
            format!(
                "patternProperties key {} {why}: the arguments of calls to this tool are not checked",
                quote(&pattern)
            ),
            format!("leaving the key out would hand its members to additionalProperties; {instead}, to have arguments checked"),
        )
    } else {
        (
            format!(
                "pattern {} {why}: arguments are checked without it",
                quote(&pattern)
            ),
            format!("{instead}, to have it checked"),
        )
    };
    TOOL_PARAMETERS_UNSUPPORTED_PATTERN
        .diagnostic(format!("{base}{at}"), message)
        .with_help(help)
}

/// Whether `pattern` uses what only a backtracking engine runs:
/// look-around or a back-reference (by number or by name).
pub(super) fn backtracks(pattern: &str) -> bool {
    let bytes = pattern.as_bytes();
    ["(?=", "(?!", "(?<=", "(?<!", "\\k<"]
        .iter()
        .any(|syntax| pattern.contains(syntax))
        || bytes
            .windows(2)
            .any(|pair| pair[0] == b'\\' && (b'1'..=b'9').contains(&pair[1]))
}

/// The keyword `at` sits under: `patternProperties` for
/// `/properties/x/patternProperties/^a`.
pub(super) fn parent_keyword(at: &str) -> Option<&str> {
    let (parent, _) = at.rsplit_once('/')?;
    parent.rsplit('/').next()
}

/// The message and help for a pattern at `at` that is not a regular
/// expression.
pub(super) fn regex_problem(at: &str, pattern: &str) -> (String, String) {
    let mut tokens: Vec<String> = pointer::tokens(at).collect();
    tokens.pop();
    let what = if tokens.last().is_some_and(|t| t == "patternProperties") {
        format!("'patternProperties' key {}", quote(pattern))
    } else {
        format!("{} {}", subject(at), quote(pattern))
    };
    (
        format!("{what} is not a valid regular expression"),
        "patterns are ECMA-262 regular expressions: check brackets, groups, quantifiers and \
         escapes (a backslash is written '\\\\' inside a JSON string)"
            .to_string(),
    )
}

/// `pattern` with every counted repetition (`{1000}`, `{2,}`, `{3,9}`)
/// cut to a count of one, or `None` when it has none. A pattern that then
/// compiles failed for its size, not its syntax. Escapes and character
/// classes are skipped, so `\{` and `[{]` stay literal.
pub(super) fn shrink_counts(pattern: &str) -> Option<String> {
    let chars: Vec<char> = pattern.chars().collect();
    let mut out = String::with_capacity(pattern.len());
    let mut changed = false;
    let mut in_class = false;
    let mut i = 0;
    while let Some(&c) = chars.get(i) {
        match c {
            '\\' => {
                out.push(c);
                if let Some(&next) = chars.get(i + 1) {
                    out.push(next);
                }
                i += 2;
                continue;
            }
            '[' => in_class = true,
            ']' => in_class = false,
            '{' if !in_class => {
                if let Some((shrunk, len)) = shrink_quantifier(&chars[i..]) {
                    out.push_str(shrunk);
                    changed = true;
                    i += len;
                    continue;
                }
            }
            _ => {}
        }
        out.push(c);
        i += 1;
    }
    changed.then_some(out)
}

/// The quantifier at the start of `chars` (`{n}`, `{n,}`, `{n,m}` with
/// n <= m) cut to a count of one, with the number of chars it spans.
pub(super) fn shrink_quantifier(chars: &[char]) -> Option<(&'static str, usize)> {
    let end = chars.iter().position(|c| *c == '}')?;
    let inner: String = chars.get(1..end)?.iter().collect();
    let (min, max) = match inner.split_once(',') {
        Some((min, max)) => (min, Some(max)),
        None => (inner.as_str(), None),
    };
    let number = |text: &str| {
        (!text.is_empty() && text.chars().all(|c| c.is_ascii_digit()))
            .then(|| text.parse::<u128>().unwrap_or(u128::MAX))
    };
    let min = number(min)?;
    let shrunk = match max {
        None => "{1}",
        Some("") => "{1,}",
        // An inverted range is a syntax error; keep it so that it stays one.
        Some(max) if number(max)? >= min => "{1,1}",
        Some(_) => return None,
    };
    Some((shrunk, end + 1))
}
