//! A framer of records fed bytes as they come, and the reader that drives
//! one over a buffered source: the SSE and JSON Lines readers of files are
//! this reader over their framer.

use std::collections::VecDeque;
use std::io::{self, BufRead};

/// Bytes a reader of records frames at a time: what it queues is the
/// records of one piece, however much its source hands out at once. As
/// large as a file's read buffer, so that a file is framed as it is read.
const PIECE: usize = 64 * 1024;

/// Splits a stream's bytes into records, whatever the chunks it is fed.
pub trait Framer {
    /// One record of the stream.
    type Record;

    /// Frames the next `chunk`, handing each record it completes to `out`.
    fn push(&mut self, chunk: &[u8], out: &mut impl FnMut(Self::Record));

    /// Ends the stream, handing out what the end completes.
    fn finish(&mut self, out: &mut impl FnMut(Self::Record));
}

/// Reads records one at a time from a buffered reader through a
/// [`Framer`], so a source of any size is read in bounded memory. An I/O
/// error is handed out once, and ends the records.
pub struct Framed<R, F: Framer> {
    reader: R,
    framer: F,
    /// Records framed from the last piece and not yet taken.
    ready: VecDeque<F::Record>,
    /// End of input or an I/O error was reached: nothing more comes.
    finished: bool,
}

impl<R: BufRead, F: Framer> Framed<R, F> {
    /// The records `framer` makes of `reader`, from its first byte.
    pub fn over(reader: R, framer: F) -> Self {
        Framed {
            reader,
            framer,
            ready: VecDeque::new(),
            finished: false,
        }
    }
}

impl<R: BufRead, F: Framer> Iterator for Framed<R, F> {
    type Item = io::Result<F::Record>;

    fn next(&mut self) -> Option<Self::Item> {
        let Framed {
            reader,
            framer,
            ready,
            finished,
        } = self;
        loop {
            if let Some(record) = ready.pop_front() {
                return Some(Ok(record));
            }
            if *finished {
                return None;
            }
            match reader.fill_buf() {
                Ok([]) => {
                    *finished = true;
                    framer.finish(&mut |record| ready.push_back(record));
                }
                Ok(buffer) => {
                    // A piece at a time: a reader over memory hands out all
                    // of it at once, whose records are taken as they are
                    // wanted, not queued together.
                    let piece = &buffer[..buffer.len().min(PIECE)];
                    let used = piece.len();
                    framer.push(piece, &mut |record| ready.push_back(record));
                    reader.consume(used);
                }
                Err(error) if error.kind() == io::ErrorKind::Interrupted => {}
                Err(error) => {
                    *finished = true;
                    return Some(Err(error));
                }
            }
        }
    }
}
