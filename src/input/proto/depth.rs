//! How deep a frame nests its messages, measured without recursion and
//! before anything decodes it: the decoder recurses once a message, so a
//! frame nested thousands of levels deep is refused here, and one nested
//! deeper than the caller's stack is decoded on a grown stack.

use super::fast::varint;
use super::known::MESSAGES;

/// The deepest nesting of messages decoded: three messages a level of
/// JSON objects (`Value`, `Struct`, its entry) for the deepest
/// `--max-depth` allowed, and the event's own around them.
pub const DEEPEST_MESSAGES: usize = 3 * crate::limits::MAX_DEPTH_CAP + 16;

/// The deepest nesting of known messages in `bytes`, a message of type
/// `message` (an index into the table), counting it as 1; as soon as it
/// passes `limit`, `limit + 1`. Bytes that are not protobuf end the
/// measure where they begin (the decoder judges them).
pub(crate) fn message_depth(bytes: &[u8], message: usize, limit: usize) -> usize {
    // The messages being read, innermost last: their bytes, type, and
    // where the next field starts.
    let mut open: Vec<(&[u8], usize, usize)> = vec![(bytes, message, 0)];
    let mut deepest = 1;
    while let Some((bytes, message, at)) = open.last_mut() {
        let (bytes, message) = (*bytes, *message);
        let Some((number, payload)) = next_field(bytes, at) else {
            open.pop();
            continue;
        };
        let child = payload.and_then(|payload| {
            let table = MESSAGES.get(message)?;
            let field = table.fields.iter().find(|f| f.number == number)?;
            Some((payload, field.message?))
        });
        if let Some((payload, child)) = child {
            open.push((payload, child, 0));
            deepest = deepest.max(open.len());
            if deepest > limit {
                return limit + 1;
            }
        }
    }
    deepest
}

/// The field starting at `*at` (which moves past it): its number, and its
/// payload when it is length-delimited; `None` at the end or at bytes that
/// are not a field.
fn next_field<'a>(bytes: &'a [u8], at: &mut usize) -> Option<(u32, Option<&'a [u8]>)> {
    if *at >= bytes.len() {
        return None;
    }
    let (tag, next) = varint(bytes, *at)?;
    let number = u32::try_from(tag >> 3).ok()?;
    let (end, payload) = match tag & 7 {
        0 => (varint(bytes, next)?.1, None),
        1 => (next.checked_add(8)?, None),
        5 => (next.checked_add(4)?, None),
        2 => {
            let (length, start) = varint(bytes, next)?;
            let end = start.checked_add(usize::try_from(length).ok()?)?;
            (end, Some(bytes.get(start..end)?))
        }
        // Groups hold no known message.
        _ => return None,
    };
    if end > bytes.len() {
        return None;
    }
    *at = end;
    Some((number, payload))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::proto::known::EVENT;

    fn field(number: u64, payload: &[u8], out: &mut Vec<u8>) {
        out.push((number << 3 | 2) as u8);
        let mut length = payload.len() as u64;
        while length >= 0x80 {
            out.push((length as u8) | 0x80);
            length >>= 7;
        }
        out.push(length as u8);
        out.extend_from_slice(payload);
    }

    /// An `Event` whose state snapshot is `levels` arrays nested, the
    /// innermost value empty.
    fn nested_lists(levels: usize) -> Vec<u8> {
        let mut value = Vec::new();
        for _ in 0..levels {
            let mut list = Vec::new();
            field(1, &value, &mut list); // ListValue.values
            let mut outer = Vec::new();
            field(6, &list, &mut outer); // Value.list_value
            value = outer;
        }
        let mut snapshot = Vec::new();
        field(2, &value, &mut snapshot); // StateSnapshotEvent.snapshot
        let mut event = Vec::new();
        field(7, &snapshot, &mut event); // Event.state_snapshot
        event
    }

    #[test]
    fn depth_is_counted_in_messages_without_recursion() {
        // Event, StateSnapshotEvent, then a Value and a ListValue a level,
        // and the innermost Value.
        assert_eq!(message_depth(&nested_lists(1), EVENT, 100), 5);
        assert_eq!(message_depth(&nested_lists(40), EVENT, 1000), 83);
        assert_eq!(message_depth(&nested_lists(100_000), EVENT, 1000), 1001);
        assert_eq!(message_depth(b"\xff", EVENT, 10), 1);
    }
}
