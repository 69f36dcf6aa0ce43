//! JSON text written a piece at a time, as the official decoder's objects
//! would be serialised: keys written once each, strings escaped in runs
//! (broken UTF-8 replaced, as the decoder replaces it), integral doubles as
//! integers, `Value` and `Struct` as any JSON (object members in wire
//! order). What each event holds is [`super::json`]'s to say.

use prost::bytes::Bytes;

use super::wire::{self, value::Kind};

/// A member's key as written: quoted, with its colon, made when compiled
/// (a key is then one copy, not three).
macro_rules! k {
    ($name:literal) => {
        concat!("\"", $name, "\":")
    };
}
pub(super) use k;

/// JavaScript's `Number.MAX_SAFE_INTEGER`: the official decoder refuses
/// an `int64` beyond it.
pub(super) const MAX_SAFE_INTEGER: i64 = (1 << 53) - 1;

/// JSON text being written.
#[derive(Default)]
pub(super) struct Json {
    pub(super) out: Vec<u8>,
    pub(super) replaced_utf8: bool,
    pub(super) dropped_parts: usize,
}

/// An object being written: its members' keys and commas.
pub(super) struct Object<'a> {
    pub(super) json: &'a mut Json,
    pub(super) first: bool,
}

impl<'a> Object<'a> {
    pub(super) fn open(json: &'a mut Json) -> Self {
        json.out.push(b'{');
        Object { json, first: true }
    }

    pub(super) fn close(self) {
        self.json.out.push(b'}');
    }

    /// Begins the member `key` (quoted, with its colon: [`k!`]): what is
    /// written next is its value.
    pub(super) fn key(&mut self, key: &str) -> &mut Json {
        if !self.first {
            self.json.out.push(b',');
        }
        self.first = false;
        self.json.out.extend_from_slice(key.as_bytes());
        self.json
    }

    /// A string member, always there.
    pub(super) fn string(&mut self, key: &str, value: &[u8]) {
        self.key(key).string(value);
    }

    /// A string member there when the frame holds it.
    pub(super) fn optional(&mut self, key: &str, value: &Option<Bytes>) {
        if let Some(value) = value {
            self.string(key, value);
        }
    }

    /// A `Value` member, there when it has a kind.
    pub(super) fn value(&mut self, key: &str, value: Option<&wire::Value>) {
        if let Some(value) = value.filter(|v| v.kind.is_some()) {
            self.key(key).value(value);
        }
    }
}

impl Json {
    pub(super) fn literal(&mut self, text: &str) {
        self.out.extend_from_slice(text.as_bytes());
    }

    pub(super) fn literal_string(&mut self, text: &str) {
        self.out.push(b'"');
        self.out.extend_from_slice(text.as_bytes());
        self.out.push(b'"');
    }

    /// A string, its broken UTF-8 replaced as the decoder replaces it.
    pub(super) fn string(&mut self, bytes: &[u8]) {
        match std::str::from_utf8(bytes) {
            Ok(text) => escape(text, &mut self.out),
            Err(_) => {
                self.replaced_utf8 = true;
                escape(&String::from_utf8_lossy(bytes), &mut self.out);
            }
        }
    }

    pub(super) fn strings(&mut self, list: &[Bytes]) {
        self.out.push(b'[');
        for (i, item) in list.iter().enumerate() {
            if i > 0 {
                self.out.push(b',');
            }
            self.string(item);
        }
        self.out.push(b']');
    }

    /// An integer, in decimal.
    pub(super) fn integer(&mut self, value: i64) {
        self.out
            .extend_from_slice(itoa_buffer(value, &mut [0; 20]).as_bytes());
    }

    /// A double as JSON: integral values as integers (as JavaScript writes
    /// them), what JSON cannot hold (NaN, infinities) as `null`.
    pub(super) fn number(&mut self, value: f64) {
        if !value.is_finite() {
            self.literal("null");
        } else if value.fract() == 0.0 && value.abs() <= MAX_SAFE_INTEGER as f64 {
            // Exact: the value is a whole number within i64's range.
            let whole = value as i64;
            self.out
                .extend_from_slice(itoa_buffer(whole, &mut [0; 20]).as_bytes());
        } else {
            let _ = serde_json::to_writer(&mut self.out, &value);
        }
    }

    /// A `Value` of some kind.
    pub(super) fn value(&mut self, value: &wire::Value) {
        match &value.kind {
            None | Some(Kind::NullValue(_)) => self.literal("null"),
            Some(Kind::NumberValue(n)) => self.number(*n),
            Some(Kind::StringValue(s)) => self.string(s),
            Some(Kind::BoolValue(b)) => self.literal(if *b { "true" } else { "false" }),
            Some(Kind::StructValue(s)) => self.object(s),
            Some(Kind::ListValue(list)) => {
                self.out.push(b'[');
                for (i, item) in list.values.iter().enumerate() {
                    if i > 0 {
                        self.out.push(b',');
                    }
                    self.value(item);
                }
                self.out.push(b']');
            }
        }
    }

    /// A `Struct` as an object: members in wire order, a key given twice
    /// keeping its first place and its last value (as a JavaScript object
    /// assigned in turn), members of no value left out.
    pub(super) fn object(&mut self, object: &wire::Struct) {
        let entries: Vec<(&[u8], &wire::Value)> = object
            .fields
            .iter()
            .filter_map(|e| Some((&e.key[..], e.value.as_ref().filter(|v| v.kind.is_some())?)))
            .collect();
        // Each key's last value, found in one pass (a frame may hold an
        // object of a million members).
        let mut last: foldhash::HashMap<&[u8], &wire::Value> = foldhash::HashMap::default();
        for &(key, value) in &entries {
            last.insert(key, value);
        }
        let repeated = last.len() < entries.len();
        let mut o = Object::open(self);
        for &(key, value) in &entries {
            let value = if repeated {
                // Written once, at its first place, with its last value.
                match last.remove(key) {
                    Some(value) => value,
                    None => continue,
                }
            } else {
                value
            };
            if !o.first {
                o.json.out.push(b',');
            }
            o.first = false;
            o.json.string(key);
            o.json.out.push(b':');
            o.json.value(value);
        }
        o.close();
    }
}

/// `value` in decimal, written into `buffer`.
pub(super) fn itoa_buffer(value: i64, buffer: &mut [u8; 20]) -> &str {
    let mut at = buffer.len();
    let negative = value < 0;
    let mut rest = value.unsigned_abs();
    loop {
        at -= 1;
        buffer[at] = b'0' + (rest % 10) as u8;
        rest /= 10;
        if rest == 0 {
            break;
        }
    }
    if negative {
        at -= 1;
        buffer[at] = b'-';
    }
    std::str::from_utf8(&buffer[at..]).unwrap_or("0")
}

/// `text` as a JSON string: quotes, backslashes and control characters
/// escaped, the rest copied in runs.
pub(super) fn escape(text: &str, out: &mut Vec<u8>) {
    out.push(b'"');
    let bytes = text.as_bytes();
    let mut start = 0;
    let mut at = 0;
    while let Some(found) = bytes[at..]
        .iter()
        .position(|&b| NEEDS_ESCAPE[usize::from(b)])
    {
        let i = at + found;
        let byte = bytes[i];
        out.extend_from_slice(&bytes[start..i]);
        match byte {
            b'"' => out.extend_from_slice(b"\\\""),
            b'\\' => out.extend_from_slice(b"\\\\"),
            b'\n' => out.extend_from_slice(b"\\n"),
            b'\r' => out.extend_from_slice(b"\\r"),
            b'\t' => out.extend_from_slice(b"\\t"),
            0x08 => out.extend_from_slice(b"\\b"),
            0x0C => out.extend_from_slice(b"\\f"),
            _ => {
                const HEX: &[u8; 16] = b"0123456789abcdef";
                out.extend_from_slice(b"\\u00");
                out.push(HEX[usize::from(byte >> 4)]);
                out.push(HEX[usize::from(byte & 0xF)]);
            }
        }
        start = i + 1;
        at = i + 1;
    }
    out.extend_from_slice(&bytes[start..]);
    out.push(b'"');
}

/// The bytes a JSON string escapes: control characters, `"` and `\\`.
static NEEDS_ESCAPE: [bool; 256] = {
    let mut table = [false; 256];
    let mut byte = 0;
    while byte < 0x20 {
        table[byte] = true;
        byte += 1;
    }
    table[b'"' as usize] = true;
    table[b'\\' as usize] = true;
    table
};
