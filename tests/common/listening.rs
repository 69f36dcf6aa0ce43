//! The CLI's servers (`agui-lint replay`, `agui-lint proxy`) run as child
//! processes on a free port of 127.0.0.1: the address they print, what
//! they print after it, and their end when the test is done.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

/// A running server: its base URL and the lines it prints on stderr.
pub struct Listening {
    child: Child,
    /// `http://127.0.0.1:PORT`.
    pub url: String,
    lines: mpsc::Receiver<String>,
    /// Every line received so far.
    history: Vec<String>,
}

impl Listening {
    /// Starts the binary with `args` and waits for its "listening on" line.
    pub fn start(args: &[&str]) -> Listening {
        let mut child = Command::new(env!("CARGO_BIN_EXE_agui-lint"))
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start agui-lint");
        let (send, lines) = mpsc::channel();
        for stream in [
            Box::new(child.stderr.take().expect("stderr")) as Box<dyn std::io::Read + Send>,
            Box::new(child.stdout.take().expect("stdout")),
        ] {
            let send = send.clone();
            std::thread::spawn(move || {
                for line in BufReader::new(stream).lines() {
                    let Ok(line) = line else { return };
                    if send.send(line).is_err() {
                        return;
                    }
                }
            });
        }
        let mut listening = Listening {
            child,
            url: String::new(),
            lines,
            history: Vec::new(),
        };
        let line = listening.wait_for("listening on http://");
        let url = line
            .split("listening on ")
            .nth(1)
            .expect("address")
            .trim()
            .to_owned();
        listening.url = url;
        listening
    }

    /// The next line printed that contains `wanted` (the lines before it
    /// are kept for [`Self::printed`]); fails after 20 seconds.
    pub fn wait_for(&mut self, wanted: &str) -> String {
        loop {
            match self.lines.recv_timeout(Duration::from_secs(20)) {
                Ok(line) => {
                    self.history.push(line.clone());
                    if line.contains(wanted) {
                        return line;
                    }
                }
                Err(_) => panic!("no line with {wanted:?}; printed: {:#?}", self.history),
            }
        }
    }

    /// Every line printed so far, from the first.
    pub fn printed(&mut self) -> Vec<String> {
        self.history.extend(self.lines.try_iter());
        self.history.clone()
    }
}

impl Drop for Listening {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
