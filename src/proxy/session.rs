//! The session saved with `--save DIR`: every exchange so far as one HTTP
//! Archive, rewritten after each exchange ends (through a temporary file
//! and a rename, so that a reader never sees half an archive and a proxy
//! stopped at any moment leaves every finished exchange saved).

use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use agui_lint::unstable::input::har_write::{archive_with, Masking, Received, Sent};

/// The archive being written.
pub(crate) struct Session {
    path: PathBuf,
    masking: Masking,
    exchanges: Vec<(Sent, Received)>,
}

impl Session {
    /// A session saved in `dir` (created if need be), under a name of the
    /// time it started.
    pub(crate) fn create(dir: &Path, secrets: bool, quiet: bool) -> Result<Session, String> {
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("{}: cannot create: {e}", dir.display()))?;
        let started = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap_or_default()
            .as_millis();
        let path = dir.join(format!("agui-lint-proxy-{started}.har"));
        if !quiet {
            eprintln!(
                "agui-lint proxy: saving the session to {}{}",
                path.display(),
                if secrets {
                    " (secret headers included)"
                } else {
                    " (secret headers masked)"
                }
            );
        }
        let session = Session {
            path,
            masking: if secrets {
                Masking::Nothing
            } else {
                Masking::Secrets
            },
            exchanges: Vec::new(),
        };
        session.write()?;
        Ok(session)
    }

    /// Adds an exchange and rewrites the archive; the exchange's 1-based
    /// entry.
    pub(crate) fn record(&mut self, sent: &Sent, received: &Received) -> usize {
        self.exchanges.push((sent.clone(), received.clone()));
        if let Err(e) = self.write() {
            eprintln!("agui-lint proxy: {e}");
        }
        self.exchanges.len()
    }

    fn write(&self) -> Result<(), String> {
        let text = archive_with(&self.exchanges, &[], self.masking);
        let partial = self.path.with_extension("har.partial");
        std::fs::write(&partial, text)
            .and_then(|()| std::fs::rename(&partial, &self.path))
            .map_err(|e| format!("{}: cannot write: {e}", self.path.display()))
    }
}
