//! `agui-lint decode`: a binary capture printed as JSON Lines, each frame
//! as the official decoder reads it, so that a user can read, diff or check
//! what was sent. Read a frame at a time: a capture of any size is printed
//! in bounded memory.

use std::fs::File;
use std::io::{self, BufRead, BufReader, BufWriter, Write};
use std::path::Path;
use std::process::ExitCode;

use agui_lint::unstable::input::proto::{decode as decode_frame, Decoded, FrameBody, ProtoFramer};
use agui_lint::unstable::input::Framed;
use agui_lint::Limits;

/// Prints the events of the capture at `path` (`-`: standard input) on
/// standard output, naming on standard error each frame not printed.
pub(crate) fn decode(path: &Path) -> Result<ExitCode, String> {
    let name = path.display().to_string();
    let reader: Box<dyn BufRead> = if name == "-" {
        Box::new(BufReader::new(io::stdin()))
    } else {
        let file = File::open(path).map_err(|e| format!("{name}: cannot read: {e}"))?;
        Box::new(BufReader::new(file))
    };
    let limit = Limits::default().max_document_bytes;
    let stdout = io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    let mut skipped = 0usize;
    for frame in Framed::over(reader, ProtoFramer::new(limit)) {
        let frame = frame.map_err(|e| format!("{name}: cannot read: {e}"))?;
        let at = format!("{name}: frame {} (byte {})", frame.index, frame.offset);
        let problem = match frame.body {
            FrameBody::Message(message) => match decode_frame(&message) {
                Ok(Decoded::Event { written, .. }) => {
                    out.write_all(&written.json)
                        .and_then(|()| out.write_all(b"\n"))
                        .map_err(|e| format!("cannot write: {e}"))?;
                    continue;
                }
                Ok(Decoded::Later { members }) => format!(
                    "holds an event this version does not define (member {} of Event), not printed",
                    members
                        .iter()
                        .map(u32::to_string)
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
                Ok(Decoded::TooDeep) => format!(
                    "nests messages more than {} levels deep, deeper than agui-lint reads, not printed",
                    agui_lint::unstable::input::proto::DEEPEST_MESSAGES
                ),
                Err(invalid) => format!("does not decode: {}", invalid.0),
            },
            FrameBody::Oversized { length } => {
                format!("is {length} bytes, over the {limit} bytes read, not printed")
            }
            FrameBody::Truncated { length, held } => {
                format!("declares {length} bytes, but the capture ends after {held}")
            }
            FrameBody::TrailingBytes { held } => {
                format!("{held} byte(s) after the last frame, too few for a frame")
            }
        };
        skipped += 1;
        out.flush().map_err(|e| format!("cannot write: {e}"))?;
        eprintln!("agui-lint: {at}: {problem}");
    }
    out.flush().map_err(|e| format!("cannot write: {e}"))?;
    Ok(if skipped == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}
