//! The requests of one HTTP/1.1 connection, read as the test servers of
//! the probe and the kit read them: the head's lines, then a body of
//! `Content-Length` bytes.

use std::io::{BufRead, BufReader, Read};
use std::net::TcpStream;

/// One request: its head (request line and headers) and its body.
pub struct Incoming {
    /// The head's lines, each with its line break.
    pub head: String,
    /// The body.
    pub body: Vec<u8>,
}

impl Incoming {
    /// The value of the header `wanted` (any case), if sent.
    pub fn header(&self, wanted: &str) -> Option<String> {
        self.head.lines().find_map(|l| {
            let (name, value) = l.split_once(':')?;
            name.eq_ignore_ascii_case(wanted)
                .then(|| value.trim().to_string())
        })
    }
}

/// Hands each request of `stream` to `answer` until the client closes the
/// connection or `answer` returns false.
pub fn each_request(stream: TcpStream, mut answer: impl FnMut(&mut TcpStream, Incoming) -> bool) {
    let mut reader = BufReader::new(stream.try_clone().expect("clone"));
    let mut stream = stream;
    loop {
        let mut head = String::new();
        loop {
            let mut line = String::new();
            if reader.read_line(&mut line).unwrap_or(0) == 0 {
                return;
            }
            if line == "\r\n" {
                break;
            }
            head.push_str(&line);
        }
        let mut incoming = Incoming {
            head,
            body: Vec::new(),
        };
        let length = incoming
            .header("content-length")
            .and_then(|v| v.parse::<usize>().ok())
            .unwrap_or(0);
        incoming.body = vec![0; length];
        if reader.read_exact(&mut incoming.body).is_err() {
            return;
        }
        if !answer(&mut stream, incoming) {
            return;
        }
    }
}
