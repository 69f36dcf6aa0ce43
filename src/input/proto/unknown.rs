//! A walk over a frame's bytes that prost does not make: the fields AG-UI
//! does not define (prost skips them without a word, as the official
//! decoder does), and a `oneof` given two different members (prost keeps
//! the last; the official decoder rejects the frame).

use super::fast::varint;
use super::known::MESSAGES;

/// A field AG-UI does not define.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownField {
    /// The fields leading to it from the frame's `Event`
    /// (`text_message_content.base_event`), empty at the top.
    pub path: String,
    /// The message it is in.
    pub message: &'static str,
    /// Its number.
    pub number: u32,
}

/// What the walk found.
#[derive(Debug, Default)]
pub(crate) struct Scan {
    /// The event members (fields of `Event`) the frame holds, distinct, in
    /// order.
    pub(crate) arms: Vec<u32>,
    /// Unknown fields, the first [`KEPT`] of them.
    pub(crate) unknown: Vec<UnknownField>,
    /// Unknown fields beyond those kept.
    pub(crate) more_unknown: usize,
    /// Unknown length-delimited fields of `Event` itself: the members of a
    /// later version's event types.
    pub(crate) unknown_arms: Vec<u32>,
    /// A `oneof` holding two different members, by the path to it.
    pub(crate) conflicting: Option<String>,
}

/// Unknown fields kept per frame; past them only a count.
const KEPT: usize = 16;

/// Deepest nesting walked: a frame nested deeper is not decoded (and this
/// walk is not reached).
const DEEPEST: usize = super::depth::DEEPEST_MESSAGES;

/// The messages whose every field is a member of one `oneof`, whose
/// members the official decoder requires to be at most one.
const ONE_OF_ALL: [&str; 4] = ["Event", "InputContent", "InputContentSource", "Value"];

/// Walks `bytes`, a message of type `message` (an index into the table).
/// Bytes that are not protobuf stop the walk where they begin: prost has
/// judged them already.
pub(crate) fn scan(bytes: &[u8], message: usize) -> Scan {
    let mut scan = Scan::default();
    walk(bytes, message, &mut String::new(), 0, &mut scan);
    scan
}

fn walk(bytes: &[u8], message: usize, path: &mut String, depth: usize, scan: &mut Scan) {
    let Some(table) = MESSAGES.get(message) else {
        return;
    };
    let top = depth == 0;
    let one_of = ONE_OF_ALL.contains(&table.name);
    let mut member: Option<u32> = None;
    let mut at = 0;
    while at < bytes.len() {
        let Some((tag, next)) = varint(bytes, at) else {
            return;
        };
        at = next;
        let number = u32::try_from(tag >> 3).unwrap_or(0);
        let wire_type = tag & 7;
        let field = table.fields.iter().find(|f| f.number == number);
        let payload = match wire_type {
            0 => match varint(bytes, at) {
                Some((_, next)) => {
                    at = next;
                    None
                }
                None => return,
            },
            1 | 5 => {
                at += if wire_type == 1 { 8 } else { 4 };
                None
            }
            2 => {
                let Some((length, next)) = varint(bytes, at) else {
                    return;
                };
                let Some(end) = usize::try_from(length)
                    .ok()
                    .and_then(|l| next.checked_add(l))
                    .filter(|&end| end <= bytes.len())
                else {
                    return;
                };
                at = end;
                Some(&bytes[next..end])
            }
            // Groups are not in proto3: prost skips them as unknown, and so
            // does this walk, reporting the group once.
            3 => {
                let Some(end) = group_end(bytes, at, number) else {
                    return;
                };
                at = end;
                None
            }
            _ => return,
        };
        match field {
            None => {
                if top && wire_type == 2 && !scan.unknown_arms.contains(&number) {
                    scan.unknown_arms.push(number);
                }
                if scan.unknown.len() < KEPT {
                    scan.unknown.push(UnknownField {
                        path: path.clone(),
                        message: table.name,
                        number,
                    });
                } else {
                    scan.more_unknown += 1;
                }
            }
            Some(field) => {
                if top && !scan.arms.contains(&number) {
                    scan.arms.push(number);
                }
                if one_of && wire_type == 2 {
                    match member {
                        Some(other) if other != number && scan.conflicting.is_none() => {
                            scan.conflicting = Some(if path.is_empty() {
                                table.name.to_string()
                            } else {
                                path.clone()
                            });
                        }
                        _ => member = Some(number),
                    }
                }
                if let (Some(child), Some(payload)) = (field.message, payload) {
                    if depth < DEEPEST {
                        let before = path.len();
                        if !path.is_empty() {
                            path.push('.');
                        }
                        path.push_str(field.name);
                        walk(payload, child, path, depth + 1, scan);
                        path.truncate(before);
                    }
                }
            }
        }
    }
}

/// Where the group of field `number` that starts at `at` ends (past its
/// end tag), skipping what it holds, nested groups included.
fn group_end(bytes: &[u8], mut at: usize, number: u32) -> Option<usize> {
    let mut open = vec![number];
    while let Some(&innermost) = open.last() {
        let (tag, next) = varint(bytes, at)?;
        at = next;
        let field = u32::try_from(tag >> 3).ok()?;
        match tag & 7 {
            0 => at = varint(bytes, at)?.1,
            1 => at = at.checked_add(8)?,
            5 => at = at.checked_add(4)?,
            2 => {
                let (length, next) = varint(bytes, at)?;
                at = next.checked_add(usize::try_from(length).ok()?)?;
            }
            3 => {
                if open.len() >= DEEPEST {
                    return None;
                }
                open.push(field);
            }
            4 if field == innermost => {
                open.pop();
            }
            _ => return None,
        }
        if at > bytes.len() {
            return None;
        }
    }
    Some(at)
}
