//! Frames of AG-UI's binary transport written by hand, as the official
//! encoder writes them, for the tests that make captures in code.

/// A varint.
pub fn varint(mut value: u64, out: &mut Vec<u8>) {
    while value >= 0x80 {
        out.push((value as u8) | 0x80);
        value >>= 7;
    }
    out.push(value as u8);
}

/// A length-delimited field: its key, its length, its payload.
pub fn field(number: u64, payload: &[u8], out: &mut Vec<u8>) {
    varint(number << 3 | 2, out);
    varint(payload.len() as u64, out);
    out.extend_from_slice(payload);
}

/// One frame: member `member` of `Event`, whose base event declares
/// `event_type`, with `fields` (already encoded) after it.
pub fn frame(member: u64, event_type: u8, fields: &[u8], out: &mut Vec<u8>) {
    let mut event = Vec::new();
    field(1, &[0x08, event_type], &mut event);
    event.extend_from_slice(fields);
    let mut message = Vec::new();
    field(member, &event, &mut message);
    agui_lint::unstable::input::proto::write_frame(&message, out);
}
