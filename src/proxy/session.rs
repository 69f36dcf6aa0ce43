//! The session saved with `--save DIR`: every exchange so far as one HTTP
//! Archive. Each exchange, once ended, is written over the archive's
//! closing bytes and followed by them again, so that the file is a whole
//! archive after every exchange (a proxy stopped at any moment leaves every
//! finished exchange saved) and saving costs each exchange its own size,
//! however long the session.

use std::fs::File;
use std::io::{Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use agui_lint::unstable::input::har_write::{Appended, Masking, Received, Sent};

/// The archive being written.
pub(crate) struct Session {
    path: PathBuf,
    file: File,
    masking: Masking,
    /// Header names masked beside the built-in ones (`--secret-header`).
    secret_headers: Vec<String>,
    /// Where the closing bytes start.
    tail_at: u64,
    entries: usize,
}

impl Session {
    /// A session saved in `dir` (created if need be), under a name of the
    /// time it started.
    pub(crate) fn create(
        dir: &Path,
        secrets: bool,
        secret_headers: &[String],
        quiet: bool,
    ) -> Result<Session, String> {
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("{}: cannot create: {e}", dir.display()))?;
        let started = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap_or_default()
            .as_millis();
        let path = dir.join(format!("agui-lint-proxy-{started}.har"));
        let cannot = |e: std::io::Error| format!("{}: cannot write: {e}", path.display());
        let mut file = File::create(&path).map_err(cannot)?;
        let head = Appended::head();
        file.write_all(&head)
            .and_then(|()| file.write_all(Appended::TAIL))
            .map_err(cannot)?;
        if !quiet {
            crate::console::say(format_args!(
                "agui-lint proxy: saving the session to {}{}",
                path.display(),
                if secrets {
                    " (secret headers included)"
                } else {
                    " (secret headers masked)"
                }
            ));
        }
        Ok(Session {
            secret_headers: secret_headers.to_vec(),
            tail_at: head.len() as u64,
            path,
            file,
            masking: if secrets {
                Masking::Nothing
            } else {
                Masking::Secrets
            },
            entries: 0,
        })
    }

    /// Adds an exchange to the archive; the exchange's 1-based entry.
    pub(crate) fn record(&mut self, sent: &Sent, received: &Received) -> usize {
        let mut text = Vec::new();
        if self.entries > 0 {
            text.extend_from_slice(b",\n");
        }
        text.extend(Appended::entry(
            sent,
            received,
            &[],
            self.masking,
            &self.secret_headers,
        ));
        let written = self
            .file
            .seek(SeekFrom::Start(self.tail_at))
            .and_then(|_| self.file.write_all(&text))
            .and_then(|()| self.file.write_all(Appended::TAIL))
            .and_then(|()| self.file.flush());
        match written {
            Ok(()) => {
                self.tail_at += text.len() as u64;
                self.entries += 1;
            }
            Err(e) => crate::console::say(format_args!(
                "agui-lint proxy: {}: cannot write: {e}",
                self.path.display()
            )),
        }
        self.entries
    }
}
