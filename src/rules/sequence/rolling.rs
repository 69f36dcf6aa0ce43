//! A digest of text that arrives in pieces, the same however the text is
//! cut: 24 bytes, no allocation, so a run may hold a million messages
//! still streaming at the cost of their ids.
//!
//! It is a polynomial hash modulo the prime 2^61 - 1 over words of seven
//! bytes, at a base drawn once per process: two different texts of equal
//! length and n words agree with probability at most n / 2^61, whatever a
//! stream chooses to send. (A streaming xxh3 state is 600 bytes and has to
//! be boxed.)

use std::hash::BuildHasher;
use std::sync::OnceLock;

/// The modulus, 2^61 - 1.
const P: u64 = (1 << 61) - 1;

/// Bytes a word holds: words are below 2^56, hence below `P`, so distinct
/// words are distinct digits.
const WORD: usize = 7;

/// The base, drawn once per process.
fn base() -> u64 {
    static BASE: OnceLock<u64> = OnceLock::new();
    *BASE.get_or_init(|| {
        let drawn = std::collections::hash_map::RandomState::new().hash_one(0x5eed_u64) % P;
        // Away from the degenerate bases 0 and 1.
        drawn.max(1 << 32)
    })
}

/// `a * b` modulo `P`, for `a` and `b` below `P`.
fn mul(a: u64, b: u64) -> u64 {
    let product = u128::from(a) * u128::from(b);
    let low = (product as u64) & P;
    let high = (product >> 61) as u64;
    let sum = low + high;
    if sum >= P {
        sum - P
    } else {
        sum
    }
}

/// The digest of the text fed so far.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Rolling {
    /// The digest of the whole words so far.
    acc: u64,
    /// The bytes of the word being filled, little-endian.
    pending: u64,
    /// How many bytes `pending` holds.
    pending_len: u8,
}

impl Rolling {
    /// Feeds `piece`.
    pub(super) fn update(&mut self, piece: &[u8]) {
        let mut rest = piece;
        while self.pending_len != 0 || rest.len() < WORD {
            let Some((&byte, tail)) = rest.split_first() else {
                return;
            };
            self.push_byte(byte);
            rest = tail;
        }
        let mut words = rest.chunks_exact(WORD);
        let b = base();
        for word in &mut words {
            let mut bytes = [0u8; 8];
            bytes[..WORD].copy_from_slice(word);
            self.acc = add(mul(self.acc, b), u64::from_le_bytes(bytes));
        }
        for &byte in words.remainder() {
            self.push_byte(byte);
        }
    }

    fn push_byte(&mut self, byte: u8) {
        self.pending |= u64::from(byte) << (8 * u32::from(self.pending_len));
        self.pending_len += 1;
        if usize::from(self.pending_len) == WORD {
            self.acc = add(mul(self.acc, base()), self.pending);
            self.pending = 0;
            self.pending_len = 0;
        }
    }

    /// The digest of what was fed (texts compared by it must also have
    /// the same length).
    pub(super) fn digest(&self) -> u64 {
        if self.pending_len == 0 {
            self.acc
        } else {
            add(mul(self.acc, base()), self.pending)
        }
    }

    /// The digest of `text` whole.
    pub(super) fn of(text: &[u8]) -> u64 {
        let mut rolling = Rolling::default();
        rolling.update(text);
        rolling.digest()
    }
}

/// `a + b` modulo `P`, for `a` below `P` and `b` below 2^56.
fn add(a: u64, b: u64) -> u64 {
    let sum = a + b;
    if sum >= P {
        sum - P
    } else {
        sum
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_digest_is_the_same_however_the_text_is_cut() {
        let text = "Grüße aus Zürich — the weather is 18°C, and then some more words".as_bytes();
        let whole = Rolling::of(text);
        for cut in 0..text.len() {
            for second in cut..text.len() {
                let mut rolling = Rolling::default();
                rolling.update(&text[..cut]);
                rolling.update(&text[cut..second]);
                rolling.update(&text[second..]);
                assert_eq!(rolling.digest(), whole, "{cut} {second}");
            }
        }
    }

    #[test]
    fn different_texts_differ() {
        let mut seen = std::collections::HashSet::new();
        for a in 0..64u8 {
            for b in 0..64u8 {
                let text = [b'x', a, b'y', b, 0, 0, 0, 7, 9];
                assert!(seen.insert((Rolling::of(&text), text.len())));
            }
        }
        assert_ne!(Rolling::of(b"ab"), Rolling::of(b"ba"));
        assert_ne!(Rolling::of(b"abcdefgh"), Rolling::of(b"abcdefgi"));
        assert_eq!(std::mem::size_of::<Rolling>(), 24);
    }
}
