//! The CLI's servers (`agui-lint replay`, `agui-lint proxy`) run as child
//! processes on a free port of 127.0.0.1: the address they print, what
//! they print after it, and their end when the test is done; and the
//! client's side of one exchange with them.

use std::io::{BufRead, BufReader, Read};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

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
        Listening::started(args, true)
    }

    /// [`Self::start`] with its standard output a pipe closed at once, as
    /// `agui-lint proxy --format jsonl | head -c1` leaves it.
    #[allow(dead_code)]
    pub fn start_with_stdout_closed(args: &[&str]) -> Listening {
        Listening::started(args, false)
    }

    fn started(args: &[&str], read_stdout: bool) -> Listening {
        let mut child = Command::new(env!("CARGO_BIN_EXE_agui-lint"))
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start agui-lint");
        let (send, lines) = mpsc::channel();
        let stdout = child.stdout.take().expect("stdout");
        let mut streams =
            vec![Box::new(child.stderr.take().expect("stderr")) as Box<dyn std::io::Read + Send>];
        if read_stdout {
            streams.push(Box::new(stdout));
        } else {
            drop(stdout);
        }
        for stream in streams {
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

/// A response as the client saw it: status, headers, body, and how long
/// its first byte of body took.
pub struct Seen {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
    pub first_byte: Duration,
}

pub fn post(url: &str, body: &str, headers: &[(&str, &str)]) -> Seen {
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .proxy(None)
        .build()
        .into();
    let mut request = agent.post(url).header("Content-Type", "application/json");
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    let started = Instant::now();
    let mut response = request.send(body).expect("request");
    let status = response.status().as_u16();
    let headers = response
        .headers()
        .iter()
        .map(|(n, v)| (n.as_str().to_owned(), v.to_str().unwrap_or("").to_owned()))
        .collect();
    let mut reader = response.body_mut().with_config().limit(u64::MAX).reader();
    let mut body = Vec::new();
    let mut first = [0u8; 1];
    let mut first_byte = Duration::ZERO;
    if reader.read(&mut first).expect("first byte") == 1 {
        first_byte = started.elapsed();
        body.push(first[0]);
    }
    reader.read_to_end(&mut body).expect("body");
    Seen {
        status,
        headers,
        body,
        first_byte,
    }
}

pub fn header<'a>(seen: &'a Seen, name: &str) -> Option<&'a str> {
    seen.headers
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case(name))
        .map(|(_, v)| v.as_str())
}
