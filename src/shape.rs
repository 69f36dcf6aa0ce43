//! A finding's message shape: what stays the same between findings that
//! are one defect repeated. Quoted text (the key or value involved) is
//! kept; each run of digits outside quotes (event indices, counts, sizes)
//! is left out, since it moves with unrelated edits and differs between
//! copies of one defect. The baseline matches findings by it, and the
//! human report groups repeated findings by it.

/// A 64-bit hash (FNV-1a) of `message`'s shape: no value of the document
/// can be read back from it.
pub(crate) fn shape_hash(message: &str) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    let mut eat = |byte: u8| {
        hash ^= u64::from(byte);
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    };
    let mut quoted = false;
    let mut in_number = false;
    for byte in message.bytes() {
        if byte == b'\'' {
            quoted = !quoted;
        }
        if !quoted && byte.is_ascii_digit() {
            if !in_number {
                eat(b'#');
            }
            in_number = true;
            continue;
        }
        in_number = false;
        eat(byte);
    }
    hash
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_outside_quotes_leave_the_shape_and_quoted_text_stays() {
        assert_eq!(
            shape_hash("message 'm1' ended at event 3"),
            shape_hash("message 'm1' ended at event 17")
        );
        assert_ne!(
            shape_hash("message 'm1' ended at event 3"),
            shape_hash("message 'm2' ended at event 3")
        );
        assert_ne!(shape_hash("unknown key 'a'"), shape_hash("unknown key 'b'"));
    }
}
