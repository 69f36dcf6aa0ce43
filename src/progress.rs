//! The progress bar of a long `check` run.

use std::io::IsTerminal;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// A progress bar on standard error for long runs, shown only to a person
/// at a terminal (never in pipes, CI logs or `--quiet` runs) and only once
/// a run has taken long enough to need one, so quick runs do not flicker.
pub(crate) struct Progress {
    bar: ProgressBar,
    interactive: bool,
    started: Instant,
    shown: AtomicBool,
}

impl Progress {
    /// How long a run goes before the bar appears.
    const DELAY: Duration = Duration::from_millis(300);

    pub(crate) fn new(files: usize, quiet: bool) -> Self {
        let interactive = !quiet
            && files > 1
            && std::io::stderr().is_terminal()
            && std::env::var_os("CI").is_none();
        let bar = ProgressBar::with_draw_target(
            Some(u64::try_from(files).unwrap_or(u64::MAX)),
            ProgressDrawTarget::hidden(),
        );
        if let Ok(style) = ProgressStyle::with_template("{bar:40} {pos}/{len} files {elapsed}") {
            bar.set_style(style);
        }
        Progress {
            bar,
            interactive,
            started: Instant::now(),
            shown: AtomicBool::new(false),
        }
    }

    /// One more file done; reveals the bar once the run is long enough.
    pub(crate) fn tick(&self) {
        self.bar.inc(1);
        if self.interactive
            && self.started.elapsed() >= Self::DELAY
            && !self.shown.swap(true, Ordering::Relaxed)
        {
            self.bar.set_draw_target(ProgressDrawTarget::stderr());
        }
    }

    pub(crate) fn finish(&self) {
        self.bar.finish_and_clear();
    }
}
