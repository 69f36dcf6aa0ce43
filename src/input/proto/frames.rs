//! The binary transport's framing: each message is a 4-byte big-endian
//! unsigned length followed by that many bytes, nothing between frames and
//! nothing after the last (`@ag-ui/client`'s `parseProtoStream`, and the
//! official encoder). Fed bytes as they come, a frame split anywhere.

use crate::input::framed::Framer;

/// The bytes of a frame's length.
const HEADER: usize = 4;

/// One frame of a binary stream.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Frame {
    /// 1-based index among the stream's frames.
    pub index: usize,
    /// Where the frame's length starts, in bytes from the stream's first.
    pub offset: u64,
    /// What the frame holds.
    pub body: FrameBody,
}

/// What a frame holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FrameBody {
    /// A whole message: its bytes.
    Message(Vec<u8>),
    /// A message of `length` bytes, over the reader's limit: measured and
    /// skipped, never held.
    Oversized {
        /// The length the frame declares.
        length: usize,
    },
    /// The stream ended `held` bytes into a message of `length`.
    Truncated {
        /// The length the frame declares.
        length: usize,
        /// The bytes of it the stream held.
        held: usize,
    },
    /// The stream ended with `held` bytes (1 to 3), too few for a length.
    TrailingBytes {
        /// How many.
        held: usize,
    },
}

/// Length-prefixed frames fed bytes as they come: a frame is handed out
/// once its last byte arrives. Holds at most one frame within the limit
/// (a longer one is measured as it passes), so a stream of any length is
/// framed in bounded memory.
#[derive(Debug)]
pub struct ProtoFramer {
    limit: usize,
    /// The current frame's length bytes so far.
    header: [u8; HEADER],
    header_held: usize,
    /// The current frame's declared length, once its header is whole.
    length: Option<usize>,
    /// The current message's bytes so far (empty while skipping one over
    /// the limit).
    kept: Vec<u8>,
    /// The current message's bytes so far, kept or skipped.
    held: usize,
    /// Frames begun so far.
    index: usize,
    /// Bytes fed so far.
    fed: u64,
    /// Where the current frame starts.
    frame_offset: u64,
}

impl ProtoFramer {
    /// A framer that keeps messages of at most `limit` bytes and measures
    /// longer ones.
    pub fn new(limit: usize) -> Self {
        ProtoFramer {
            limit,
            header: [0; HEADER],
            header_held: 0,
            length: None,
            kept: Vec::new(),
            held: 0,
            index: 0,
            fed: 0,
            frame_offset: 0,
        }
    }

    /// Frames the next `chunk`, handing each frame it completes to `out`.
    pub fn push(&mut self, chunk: &[u8], out: &mut impl FnMut(Frame)) {
        let mut rest = chunk;
        loop {
            let Some(length) = self.length else {
                if rest.is_empty() {
                    return;
                }
                if self.header_held == 0 {
                    self.index += 1;
                    self.frame_offset = self.fed;
                }
                let take = (HEADER - self.header_held).min(rest.len());
                self.header[self.header_held..self.header_held + take]
                    .copy_from_slice(&rest[..take]);
                self.header_held += take;
                self.fed += take as u64;
                rest = &rest[take..];
                if self.header_held == HEADER {
                    let length = u32::from_be_bytes(self.header) as usize;
                    self.length = Some(length);
                    if length <= self.limit {
                        self.kept = Vec::with_capacity(length.min(rest.len().max(64)));
                    }
                }
                continue;
            };
            let take = (length - self.held).min(rest.len());
            if length <= self.limit {
                self.kept.extend_from_slice(&rest[..take]);
            }
            self.held += take;
            self.fed += take as u64;
            rest = &rest[take..];
            if self.held < length {
                return;
            }
            let body = if length <= self.limit {
                FrameBody::Message(std::mem::take(&mut self.kept))
            } else {
                FrameBody::Oversized { length }
            };
            out(self.end_frame(body));
        }
    }

    /// Ends the stream: a frame it cut short is handed out as what is left
    /// of it.
    pub fn finish(&mut self, out: &mut impl FnMut(Frame)) {
        let body = match self.length {
            Some(length) => FrameBody::Truncated {
                length,
                held: self.held,
            },
            None if self.header_held > 0 => FrameBody::TrailingBytes {
                held: self.header_held,
            },
            None => return,
        };
        out(self.end_frame(body));
    }

    /// The current frame with `body`, and the state of the next.
    fn end_frame(&mut self, body: FrameBody) -> Frame {
        self.header_held = 0;
        self.length = None;
        self.held = 0;
        self.kept = Vec::new();
        Frame {
            index: self.index,
            offset: self.frame_offset,
            body,
        }
    }
}

impl Framer for ProtoFramer {
    type Record = Frame;

    fn push(&mut self, chunk: &[u8], out: &mut impl FnMut(Frame)) {
        ProtoFramer::push(self, chunk, out);
    }

    fn finish(&mut self, out: &mut impl FnMut(Frame)) {
        ProtoFramer::finish(self, out);
    }
}

/// Writes `message` as one frame: its length, then its bytes.
pub fn write_frame(message: &[u8], out: &mut Vec<u8>) {
    let length = u32::try_from(message.len()).unwrap_or(u32::MAX);
    out.extend_from_slice(&length.to_be_bytes());
    out.extend_from_slice(message);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frames(chunks: &[&[u8]], limit: usize) -> Vec<Frame> {
        let mut framer = ProtoFramer::new(limit);
        let mut out = Vec::new();
        for chunk in chunks {
            framer.push(chunk, &mut |f| out.push(f));
        }
        framer.finish(&mut |f| out.push(f));
        out
    }

    #[test]
    fn frames_come_out_whole_however_the_bytes_are_split() {
        let mut stream = Vec::new();
        write_frame(b"abc", &mut stream);
        write_frame(b"", &mut stream);
        write_frame(b"defgh", &mut stream);
        let whole = frames(&[&stream], 100);
        assert_eq!(
            whole,
            [
                Frame {
                    index: 1,
                    offset: 0,
                    body: FrameBody::Message(b"abc".to_vec())
                },
                Frame {
                    index: 2,
                    offset: 7,
                    body: FrameBody::Message(Vec::new())
                },
                Frame {
                    index: 3,
                    offset: 11,
                    body: FrameBody::Message(b"defgh".to_vec())
                },
            ]
        );
        for split in 0..=stream.len() {
            let (a, b) = stream.split_at(split);
            assert_eq!(frames(&[a, b], 100), whole, "split at {split}");
        }
        let bytes: Vec<&[u8]> = stream.chunks(1).collect();
        assert_eq!(frames(&bytes, 100), whole);
    }

    #[test]
    fn a_cut_frame_trailing_bytes_and_an_oversized_frame_are_told() {
        let mut stream = Vec::new();
        write_frame(&[7; 10], &mut stream);
        write_frame(b"ok", &mut stream);
        stream.extend_from_slice(&[0, 0, 0, 9, 1, 2]);
        let found = frames(&[&stream], 5);
        assert_eq!(found[0].body, FrameBody::Oversized { length: 10 });
        assert_eq!(found[1].body, FrameBody::Message(b"ok".to_vec()));
        assert_eq!(found[1].offset, 14);
        assert_eq!(found[2].body, FrameBody::Truncated { length: 9, held: 2 });
        assert_eq!(
            frames(&[b"\0\0"], 5)[0].body,
            FrameBody::TrailingBytes { held: 2 }
        );
        assert!(frames(&[b""], 5).is_empty());
    }

    #[test]
    fn a_frame_declaring_four_gigabytes_is_measured_not_held() {
        let mut framer = ProtoFramer::new(1024);
        let mut out = Vec::new();
        framer.push(&[0xFF; 4], &mut |f| out.push(f));
        for _ in 0..64 {
            framer.push(&[0; 64 * 1024], &mut |f| out.push(f));
        }
        assert!(out.is_empty());
        assert!(framer.kept.capacity() == 0);
        framer.finish(&mut |f| out.push(f));
        assert_eq!(
            out[0].body,
            FrameBody::Truncated {
                length: u32::MAX as usize,
                held: 64 * 64 * 1024
            }
        );
    }
}
