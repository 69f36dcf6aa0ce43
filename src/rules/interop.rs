//! Rules about values the two official SDKs read differently: integers
//! beyond JavaScript's safe range and strings with unpaired UTF-16
//! surrogates.
//!
//! `lone-surrogate` is found by the parser ([`crate::parse`]), since
//! `serde_json` cannot represent such a string in a `Value`; the validator
//! turns what the parser noticed into findings. Its registry entry lives
//! here with its family.

use serde_json::{Number, Value};

use super::walk::Document;
use super::Rule;
use crate::diagnostic::Severity;
use crate::findings::Findings;
use crate::pointer;
use crate::rules::EVERY_VERSION;

/// The rules of this family, in documentation order.
pub(super) const RULES: &[Rule] = &[NON_INTEROPERABLE_NUMBER, LONE_SURROGATE];

pub(crate) const NON_INTEROPERABLE_NUMBER: Rule = Rule {
    name: "non-interoperable-number",
    severity: Severity::Warning,
    protocols: EVERY_VERSION,
    severity_1x: None,
    summary: "An integer beyond ±(2^53−1), which the TypeScript SDK rounds",
    docs: r#"## What it checks
That no number anywhere in the document (including `state`,
`forwardedProps` and tool arguments) is an integer beyond
±9007199254740991 (2^53−1, JavaScript's `Number.MAX_SAFE_INTEGER`).
Integer literals up to 64 bits are compared exactly. Larger integers, and
any number written with a fraction or exponent whose value is a whole
number beyond the range (`1e300`, `9007199254740993.0`), are read as a
double first and reported too, because the parsed value does not keep how
the number was spelled. Fractional values (`0.1`) are never reported.

## Why it matters
The TypeScript SDK reads every number as a double, which holds integers
exactly only up to 2^53−1: `9007199254740993` silently becomes
`9007199254740992`. The Python SDK keeps integers exact. An id, a
timestamp in nanoseconds or a counter beyond the range therefore means one
thing to a Python peer and another to a TypeScript peer.

## Where the official receivers differ
zod and pydantic accept such a number; `JSON.parse` reads `1e400` as
`Infinity`, which `@ag-ui/client` sends back as `null` in the next request.
Nothing fails, and the value is gone: a warning where the receivers say
nothing.

## Invalid
```json
{"id": "a1", "role": "activity", "activityType": "order", "content": {"orderId": 9007199254740993}}
```

## Valid
```json
{"id": "a1", "role": "activity", "activityType": "order", "content": {"orderId": "9007199254740993"}}
```
"#,
};

pub(crate) const LONE_SURROGATE: Rule = Rule {
    name: "lone-surrogate",
    severity: Severity::Warning,
    protocols: EVERY_VERSION,
    severity_1x: None,
    summary: "A string escapes an unpaired UTF-16 surrogate, which the Python SDK rejects",
    docs: r#"## What it checks
That no string (value or key) contains a `\uD800`–`\uDBFF` escape not
immediately followed by a `\uDC00`–`\uDFFF` escape, nor a `\uDC00`–`\uDFFF`
escape not preceded by one. Each unpaired escape is one finding, located at
the escape itself. The rest of the document is checked as if the escape
were `\uFFFD` (the replacement character).

## Why it matters
Such a string is not Unicode text. JavaScript produces it when a string is
cut in the middle of an emoji (`"😀".slice(0, 1)`) and `JSON.stringify`
writes the escape; the TypeScript SDK accepts it, the Python SDK's Pydantic
models reject it, and many other parsers (Rust's `serde_json` among them)
refuse the whole document. The payload works with one peer and fails with
the other.

## Where the official receivers differ
zod and `JSON.parse` accept the escape; pydantic (`ag-ui-protocol`)
refuses a request holding one. A warning rather than the error pydantic's
refusal would make it: JSON's grammar allows the escape, the TypeScript
peers take it, and the fix (cutting strings on code points) is the
sender's either way.

## Invalid
```json
{"id": "m1", "role": "user", "content": "Great job \ud83d"}
```

## Valid
```json
{"id": "m1", "role": "user", "content": "Great job \ud83d\ude00"}
```
"#,
};

/// The largest integer a double holds exactly together with all smaller
/// ones: JavaScript's `Number.MAX_SAFE_INTEGER`, 2^53−1.
const MAX_SAFE_INTEGER: u64 = (1 << 53) - 1;

/// Runs this family's checks on `document`, leaving out the numbers at a
/// pointer `skip` holds.
pub(super) fn check(document: &Document<'_>, skip: &dyn Fn(&str) -> bool, out: &mut impl Findings) {
    check_numbers(document.root, skip, out);
}

/// One step of the path from the root, kept as borrowed parts so that the
/// walk over a clean document builds no pointer strings.
#[derive(Clone, Copy)]
enum Step<'a> {
    Key(&'a str),
    Index(usize),
}

enum Frame<'a> {
    Object(serde_json::map::Iter<'a>),
    Array(std::iter::Enumerate<std::slice::Iter<'a, Value>>),
}

impl<'a> Frame<'a> {
    fn of(value: &'a Value) -> Option<Frame<'a>> {
        match value {
            Value::Object(map) => Some(Frame::Object(map.iter())),
            Value::Array(items) => Some(Frame::Array(items.iter().enumerate())),
            _ => None,
        }
    }

    fn next(&mut self) -> Option<(Step<'a>, &'a Value)> {
        match self {
            Frame::Object(entries) => entries.next().map(|(k, v)| (Step::Key(k.as_str()), v)),
            Frame::Array(items) => items.next().map(|(i, v)| (Step::Index(i), v)),
        }
    }
}

fn pointer_of(path: &[Step<'_>]) -> String {
    let mut out = String::new();
    for step in path {
        match step {
            Step::Key(key) => out = pointer::push(&out, key),
            Step::Index(i) => out = format!("{out}/{i}"),
        }
    }
    out
}

/// Visits every number. The walk keeps its own stack rather than recursing:
/// `Validator::validate_value` takes values built by the caller, which the
/// parser's depth limit never saw.
fn check_numbers(root: &Value, skip: &dyn Fn(&str) -> bool, out: &mut impl Findings) {
    if let Value::Number(number) = root {
        check_number(number, &[], skip, out);
    }
    let mut frames: Vec<Frame<'_>> = Frame::of(root).into_iter().collect();
    // The steps to the container of the innermost frame: one fewer than
    // there are frames.
    let mut path: Vec<Step<'_>> = Vec::new();
    while let Some(frame) = frames.last_mut() {
        let Some((step, value)) = frame.next() else {
            frames.pop();
            path.pop();
            continue;
        };
        match value {
            Value::Number(number) => {
                path.push(step);
                check_number(number, &path, skip, out);
                path.pop();
            }
            Value::Object(_) | Value::Array(_) => {
                if let Some(frame) = Frame::of(value) {
                    path.push(step);
                    frames.push(frame);
                }
            }
            _ => {}
        }
    }
}

/// Whether every number in `value` is read alike by both SDKs (what
/// `non-interoperable-number` checks).
pub(in crate::rules) fn all_interoperable(value: &Value) -> bool {
    let mut found = crate::findings::AnyFound::default();
    check_numbers(value, &|_| false, &mut found);
    !found.0
}

/// Whether both SDKs read `number` as the same value: a whole number
/// within ±(2^53 - 1), or a number with a fraction.
pub(crate) fn is_interoperable(number: &Number) -> bool {
    if let Some(n) = number.as_u64() {
        n <= MAX_SAFE_INTEGER
    } else if let Some(n) = number.as_i64() {
        n.unsigned_abs() <= MAX_SAFE_INTEGER
    } else {
        // Whole numbers only: a fraction is read as the same double by
        // every peer. `fract` of an infinity is NaN, so it passes.
        number
            .as_f64()
            .is_none_or(|n| n.fract() != 0.0 || n.abs() <= MAX_SAFE_INTEGER as f64)
    }
}

fn check_number(
    number: &Number,
    path: &[Step<'_>],
    skip: &dyn Fn(&str) -> bool,
    out: &mut impl Findings,
) {
    if is_interoperable(number) {
        return;
    }
    let at = pointer_of(path);
    if skip(&at) {
        return;
    }
    out.add(&NON_INTEROPERABLE_NUMBER, |rule| {
        rule.diagnostic(at, number_message(number)).with_help(
            "send large ids, timestamps and counters as strings; the TypeScript SDK rounds integers beyond Number.MAX_SAFE_INTEGER, the Python SDK keeps them exact",
        )
    });
}

fn number_message(number: &Number) -> String {
    if let Some(n) = number.as_u64() {
        integer_message(
            &n.to_string(),
            n as f64,
            u128::from(n) == (n as f64) as u128,
        )
    } else if let Some(n) = number.as_i64() {
        integer_message(
            &n.to_string(),
            n as f64,
            i128::from(n) == (n as f64) as i128,
        )
    } else {
        format!(
            "number {number} is a whole number beyond ±{MAX_SAFE_INTEGER}, which the TypeScript SDK holds only approximately and the Python SDK may read as an exact integer"
        )
    }
}

fn integer_message(written: &str, as_double: f64, exact: bool) -> String {
    if exact {
        // 2^53 itself and a few others survive as doubles, but their
        // neighbours do not, so the value is still ambiguous to a reader.
        format!(
            "integer {written} is beyond ±{MAX_SAFE_INTEGER}, where the TypeScript SDK can no longer tell neighbouring integers apart"
        )
    } else {
        // Rust prints a whole double below 1e21 in full, as JavaScript does.
        format!(
            "integer {written} is beyond ±{MAX_SAFE_INTEGER}, and the TypeScript SDK reads it as {as_double}"
        )
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::diagnostic::Diagnostic;
    use crate::Kind;

    fn run(root: &Value) -> Vec<Diagnostic> {
        let mut out = Vec::new();
        check(
            &Document {
                kind: Kind::Context,
                root,
                limits: crate::Limits::default(),
                protocol: crate::Protocol::V0,
            },
            &|_| false,
            &mut out,
        );
        out
    }

    fn parse(text: &str) -> Value {
        serde_json::from_str(text).expect("test JSON")
    }

    #[test]
    fn safe_numbers_and_fractions_pass() {
        let value = parse(
            r#"{"a": [9007199254740991, -9007199254740991, 0, -0, 1.5, 1e15, 9007199254740993.5e-3],
                "b": {"c": 0.1, "d": 1.7976931348623157e300}}"#,
        );
        let found = run(&value);
        // Only the whole number 1.79...e300 is beyond the range.
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].pointer, "/b/d");
    }

    #[test]
    fn unsafe_integers_are_reported_with_their_pointer() {
        let value = parse(
            r#"{"a/b": [1, 9007199254740993], "c": {"d": -9007199254740993},
                "e": 18446744073709551615, "f": 12345678901234567890123, "g": 1e300,
                "h": 9007199254740992, "i": -9223372036854775808}"#,
        );
        let found: Vec<(String, String)> = run(&value)
            .into_iter()
            .map(|d| (d.pointer, d.message))
            .collect();
        let expected = [
            ("/a~1b/1", "integer 9007199254740993 is beyond ±9007199254740991, and the TypeScript SDK reads it as 9007199254740992"),
            ("/c/d", "integer -9007199254740993 is beyond ±9007199254740991, and the TypeScript SDK reads it as -9007199254740992"),
            ("/e", "integer 18446744073709551615 is beyond ±9007199254740991, and the TypeScript SDK reads it as 18446744073709552000"),
            ("/f", "number 1.2345678901234568e+22 is a whole number beyond ±9007199254740991, which the TypeScript SDK holds only approximately and the Python SDK may read as an exact integer"),
            ("/g", "number 1e+300 is a whole number beyond ±9007199254740991, which the TypeScript SDK holds only approximately and the Python SDK may read as an exact integer"),
            ("/h", "integer 9007199254740992 is beyond ±9007199254740991, where the TypeScript SDK can no longer tell neighbouring integers apart"),
            ("/i", "integer -9223372036854775808 is beyond ±9007199254740991, where the TypeScript SDK can no longer tell neighbouring integers apart"),
        ];
        let expected: Vec<(String, String)> = expected
            .iter()
            .map(|(p, m)| (p.to_string(), m.to_string()))
            .collect();
        assert_eq!(found, expected);
    }

    #[test]
    fn a_number_at_the_root_is_checked() {
        let found = run(&json!(9007199254740993_u64));
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].pointer, "");
        assert!(run(&json!(7)).is_empty());
    }

    #[test]
    fn deep_values_do_not_overflow_the_stack() {
        let mut value = json!(9007199254740993_u64);
        for _ in 0..100_000 {
            value = Value::Array(vec![value]);
        }
        let found = run(&value);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].pointer.len(), 2 * 100_000);
        // Dropping a deeply nested Value recurses in serde_json; unwrap it
        // level by level instead.
        let mut value = value;
        while let Value::Array(mut items) = value {
            value = items.pop().unwrap_or(Value::Null);
        }
    }
}
