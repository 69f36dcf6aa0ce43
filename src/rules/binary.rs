//! Rules of AG-UI's binary transport (`application/vnd.ag-ui.event+proto`):
//! how a capture's frames are cut and whether each decodes as the official
//! decoder (`@ag-ui/proto` 1.0.0, behind `@ag-ui/client`'s
//! `parseProtoStream`) decodes it. Their findings are made where frames
//! become records (`stream/frame.rs`); a frame that decodes is then an
//! event like any other, judged by every other rule.

use super::{Rule, EVERY_VERSION};
use crate::diagnostic::Severity;

/// The binary transport's rules, in documentation order.
pub(super) const RULES: &[Rule] = &[
    PROTO_FRAME_TRUNCATED,
    PROTO_TRAILING_BYTES,
    PROTO_FRAME_TOO_LARGE,
    PROTO_MESSAGE_INVALID,
    PROTO_UNKNOWN_EVENT,
    PROTO_UNKNOWN_FIELD,
    PROTO_INVALID_UTF8,
];

/// The largest frame `@ag-ui/client` reads: past it the run fails
/// ("Protobuf message size exceeded maximum limit of 10 MB").
pub(crate) const CLIENT_FRAME_LIMIT: usize = 10 * 1024 * 1024;

pub(crate) const PROTO_FRAME_TRUNCATED: Rule = Rule {
    name: "proto-frame-truncated",
    severity: Severity::Error,
    protocols: EVERY_VERSION,
    severity_1x: None,
    summary: "A binary stream ends inside a frame: its length says more bytes than follow",
    docs: r#"## What it checks
That every frame of a binary capture is whole: the 4-byte big-endian length
that starts a frame is followed by that many bytes. The finding names the
frame, where it starts, the length it declares and the bytes that followed.

## Why it matters
`@ag-ui/client` fails the run when the stream ends mid-frame ("The binary
stream ended mid-frame"): the event in that frame is lost, and so is the
run's end. A server that closes the connection early, or a capture cut short
by its recorder, looks like this.

## Invalid
```text
00 00 00 0a  12 08 0a 02 08 0b   (a frame of 10 bytes; the stream ends after 6)
```

## Valid
```text
00 00 00 06  12 04 0a 02 08 0b   (a frame of 6 bytes, whole)
```
"#,
};

pub(crate) const PROTO_TRAILING_BYTES: Rule = Rule {
    name: "proto-trailing-bytes",
    severity: Severity::Error,
    protocols: EVERY_VERSION,
    severity_1x: None,
    summary: "A binary stream ends with 1 to 3 bytes after its last frame, too few for a length",
    docs: r#"## What it checks
That a binary capture holds nothing after its last frame. Fewer than four
bytes cannot start a frame: they are stray bytes (a newline a proxy added, a
keep-alive written as text) or the start of a length cut short.

## Why it matters
`@ag-ui/client` fails the run when bytes are left at the stream's end that
do not make a whole message.

## Invalid
```text
00 00 00 06  12 04 0a 02 08 0b  0a   (a stray newline after the frame)
```

## Valid
```text
00 00 00 06  12 04 0a 02 08 0b
```
"#,
};

pub(crate) const PROTO_FRAME_TOO_LARGE: Rule = Rule {
    name: "proto-frame-too-large",
    severity: Severity::Error,
    protocols: EVERY_VERSION,
    severity_1x: None,
    summary: "A binary frame is over the 10 MiB `@ag-ui/client` reads",
    docs: r#"## What it checks
That no frame of a binary capture declares more than 10 MiB
(10,485,760 bytes), the most `@ag-ui/client`'s `parseProtoStream` reads. A
frame over `--max-document-size` is `document-too-large` besides: agui-lint
measures it and does not decode it.

## Why it matters
The client fails the run at such a frame's length, before reading it: a
large `MESSAGES_SNAPSHOT` or `STATE_SNAPSHOT` sent in one frame ends the run
for every TypeScript client, while the same event over SSE is read.

## Invalid
```text
00 a0 00 00  …   (a frame of 10,485,760 + 1 bytes)
```

## Valid
```text
00 00 10 00  …   (a frame of 4,096 bytes)
```
"#,
};

pub(crate) const PROTO_MESSAGE_INVALID: Rule = Rule {
    name: "proto-message-invalid",
    severity: Severity::Error,
    protocols: EVERY_VERSION,
    severity_1x: None,
    summary: "A binary frame does not decode as an AG-UI event",
    docs: r#"## What it checks
That each frame decodes as the official decoder (`@ag-ui/proto`) decodes it:
protobuf bytes (no field cut short, no wire type a field does not have), one
`Event` holding exactly one event (an empty frame holds none), a
`base_event` whose `type` is the event the frame holds, no `oneof` given two
different members, integers JavaScript holds exactly, and content in one
form (a message's `content`, `contentParts` or `activityContent` as its role
says; a tool result's `content` or `contentParts`). The finding says which.

## Why it matters
`@ag-ui/client` fails the run at a frame that does not decode ("Failed to
decode protocol buffer message"): every event after it is lost. A server
whose encoder is out of date, or that writes a frame's length wrong, breaks
every binary client while its SSE clients work.

## Invalid
```text
00 00 00 04  12 02 0a 00   (TEXT_MESSAGE_CONTENT whose base_event declares TEXT_MESSAGE_START)
```

## Valid
```text
00 00 00 06  12 04 0a 02 08 01   (TEXT_MESSAGE_CONTENT, declared as such)
```
"#,
};

pub(crate) const PROTO_UNKNOWN_EVENT: Rule = Rule {
    name: "proto-unknown-event",
    severity: Severity::Error,
    protocols: EVERY_VERSION,
    severity_1x: Some(Severity::Warning),
    summary: "A binary frame holds an event of a type the protocol version does not define (1.x: dropped with a warning)",
    docs: r#"## What it checks
That each frame holds an event the judging version defines: a member of the
`Event` oneof by its number (1 to 31 in AG-UI 1.1). A frame whose only
members are numbers the version does not know holds an event of a later
version.

## Why it matters
As `unknown-event-type` for JSON events: AG-UI 1.x receivers drop an event
they do not know and go on (`@ag-ui/client` says "Dropped an event this
build does not know"), so in 1.x it is a warning; the event and what it
carried are lost to them. Before 1.0 the decoder refused the frame.

## Invalid
```text
00 00 00 03  a2 02 00   (member 36 of Event: not an AG-UI 1.1 event)
```

## Valid
```text
00 00 00 06  12 04 0a 02 08 01   (member 2: TEXT_MESSAGE_CONTENT)
```
"#,
};

pub(crate) const PROTO_UNKNOWN_FIELD: Rule = Rule {
    name: "proto-unknown-field",
    severity: Severity::Warning,
    protocols: EVERY_VERSION,
    severity_1x: None,
    summary: "A binary frame carries a field the protocol does not define, which receivers drop",
    docs: r#"## What it checks
That each frame carries only the fields `proto/ag_ui.proto` (AG-UI 1.1's
wire numbers, as frozen upstream) defines, in the event and in every message
inside it. The finding names the field's number, the message it is in and
the path to it (`text_message_content.base_event`).

## Why it matters
Protobuf receivers skip a field they do not know without a word: what it
carried never reaches the client, where over SSE the same event would keep
it (or be checked by `unknown-field`). It usually means a server built
against newer or private definitions.

## Invalid
```text
00 00 00 08  12 06 0a 02 08 01 48 01   (field 9 in TEXT_MESSAGE_CONTENT)
```

## Valid
```text
00 00 00 06  12 04 0a 02 08 01
```
"#,
};

pub(crate) const PROTO_INVALID_UTF8: Rule = Rule {
    name: "proto-invalid-utf8",
    severity: Severity::Warning,
    protocols: EVERY_VERSION,
    severity_1x: None,
    summary: "A string of a binary frame is not UTF-8; receivers replace its bytes with U+FFFD",
    docs: r#"## What it checks
That every `string` field of each frame is UTF-8, as protobuf requires.
The event is checked with the broken bytes replaced by U+FFFD, as the
official decoder reads them.

## Why it matters
`@ag-ui/proto` decodes strings leniently, so the client shows `�` where the
server meant other text (often a multi-byte character split between two
deltas, each encoded on its own); stricter decoders (protobuf's own for
Python, Go, .NET) refuse the frame.

## Invalid
```text
00 00 00 09  12 07 0a 02 08 01 1a 01 c3   (a delta of the lone byte 0xC3)
```

## Valid
```text
00 00 00 0a  12 08 0a 02 08 01 1a 02 c3 a9   (a delta of "é")
```
"#,
};
