//! How values appear inside diagnostic messages: shortened (a payload can be
//! megabytes), kept on one line, and named with their JSON type, the same
//! way in every rule.

use jsonschema::error::TypeKind;
use serde_json::Value;

/// How many characters of a value a message quotes.
const LIMIT: usize = 60;

/// `text` cut to [`LIMIT`] characters (marked with `…`), with control
/// characters escaped so that a message stays on one line.
pub(crate) fn excerpt(text: &str) -> String {
    let mut out = String::new();
    for (i, c) in text.chars().enumerate() {
        if i == LIMIT {
            out.push('…');
            break;
        }
        if c.is_control() {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    out
}

/// `text` as an [`excerpt`] in single quotes.
pub(crate) fn quote(text: &str) -> String {
    format!("'{}'", excerpt(text))
}

/// A value for a message: strings quoted, anything else as short JSON.
pub(crate) fn preview(value: &Value) -> String {
    match value {
        Value::String(s) => quote(s),
        other => excerpt(&other.to_string()),
    }
}

/// What a value is, for "found ..." in messages: its type and, for scalars,
/// the value.
pub(crate) fn describe(value: &Value) -> String {
    match value {
        Value::Null => "null".into(),
        Value::Bool(b) => format!("boolean {b}"),
        Value::Number(n) => format!("number {n}"),
        Value::String(s) => format!("string {}", quote(s)),
        Value::Array(_) => "an array".into(),
        Value::Object(_) => "an object".into(),
    }
}

/// A JSON type name with its article: "an object", "a string".
pub(crate) fn article(type_name: &str) -> String {
    match type_name {
        "object" | "array" | "integer" => format!("an {type_name}"),
        "null" => "null".to_string(),
        other => format!("a {other}"),
    }
}

/// The types a `type` keyword expects, as "a string or null".
pub(crate) fn expected_types(kind: &TypeKind) -> String {
    let names: Vec<String> = match kind {
        TypeKind::Single(t) => vec![article(&t.to_string())],
        TypeKind::Multiple(set) => set.iter().map(|t| article(&t.to_string())).collect(),
    };
    names.join(" or ")
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn long_and_multi_line_values_stay_short_and_on_one_line() {
        let long = "x".repeat(100);
        assert_eq!(excerpt(&long).chars().count(), LIMIT + 1);
        assert!(excerpt(&long).ends_with('…'));
        assert_eq!(quote("a\nb"), "'a\\nb'");
        assert_eq!(preview(&json!([1, 2])), "[1,2]");
        assert_eq!(describe(&json!("hi")), "string 'hi'");
        assert_eq!(describe(&json!({})), "an object");
        assert_eq!(article("integer"), "an integer");
    }

    #[test]
    fn quote_truncates_and_escapes() {
        assert_eq!(quote("get_weather"), "'get_weather'");
        assert_eq!(quote("a\nb"), "'a\\nb'");
        let long = "x".repeat(100);
        assert_eq!(quote(&long), format!("'{}…'", "x".repeat(60)));
    }

    #[test]
    fn excerpts_are_bounded() {
        assert_eq!(excerpt("short"), "short");
        let long = "é".repeat(100);
        assert_eq!(excerpt(&long).chars().count(), LIMIT + 1);
        assert_eq!(excerpt("a\nb\tc"), "a\\nb\\tc");
    }
}

/// `n` with a comma between thousands, as messages print counts:
/// `1,234,567`.
pub(crate) fn count(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, digit) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(digit);
    }
    out
}

/// `n` and `noun`, in the plural unless `n` is one: `1 finding`,
/// `2,000 findings`.
pub(crate) fn counted(n: usize, noun: &str) -> String {
    let s = if n == 1 { "" } else { "s" };
    format!("{} {noun}{s}", count(n))
}

/// `bytes` as people read sizes: `512 bytes`, `1.5 KiB`, `64 MiB`.
pub(crate) fn size(bytes: u64) -> String {
    const UNITS: [&str; 4] = ["KiB", "MiB", "GiB", "TiB"];
    if bytes < 1024 {
        return counted(usize::try_from(bytes).unwrap_or(usize::MAX), "byte");
    }
    let mut value = bytes as f64 / 1024.0;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    let shown = format!("{value:.1}");
    let shown = shown.strip_suffix(".0").unwrap_or(&shown);
    format!("{shown} {}", UNITS[unit])
}

#[cfg(test)]
mod count_tests {
    #[test]
    fn counts_have_thousands_separators() {
        assert_eq!(super::count(0), "0");
        assert_eq!(super::count(999), "999");
        assert_eq!(super::count(1000), "1,000");
        assert_eq!(super::count(1_234_567), "1,234,567");
        assert_eq!(super::counted(1, "finding"), "1 finding");
        assert_eq!(super::counted(12_000, "finding"), "12,000 findings");
        assert_eq!(super::size(1), "1 byte");
        assert_eq!(super::size(1023), "1,023 bytes");
        assert_eq!(super::size(1536), "1.5 KiB");
        assert_eq!(super::size(64 << 20), "64 MiB");
        assert_eq!(super::size(50_913_569), "48.6 MiB");
    }
}
