//! The recordings' arguments: `decode`, `diff`, `replay` and `proxy`.

use std::path::PathBuf;
use std::time::Duration;

use clap::ValueEnum;

use super::values::{parse_duration, parse_size};

/// Arguments of `decode`.
#[derive(Debug, clap::Args)]
pub struct DecodeArgs {
    /// The binary capture; `-` reads standard input.
    pub path: PathBuf,
}

/// Arguments of `diff`.
#[derive(Debug, clap::Args)]
pub struct DiffArgs {
    /// The first capture (the reference, such as a recorded good run); `-`
    /// reads standard input.
    pub a: PathBuf,
    /// The second capture.
    pub b: PathBuf,
    /// Output format.
    #[arg(long, value_enum, default_value_t = DiffFormat::Human)]
    pub format: DiffFormat,
    /// Write the output to this file instead of standard output.
    #[arg(long, short, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Also check both captures and say which findings one has that the
    /// other lacks (counted by rule).
    #[arg(long)]
    pub findings: bool,
    /// Compare text and argument pieces as they were sent, rather than
    /// joined: for streams whose chunking is itself under test.
    #[arg(long)]
    pub keep_pieces: bool,
}

/// Output formats of `diff`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum DiffFormat {
    /// Each run's changes, one a line, texts diffed word by word.
    Human,
    /// One JSON document.
    Json,
    /// A self-contained HTML page: each differing run side by side,
    /// aligned, changes marked.
    Html,
}

/// Arguments of `replay`.
#[derive(Debug, clap::Args)]
pub struct ReplayArgs {
    /// The captures whose responses are served, in order.
    #[arg(required = true)]
    pub captures: Vec<PathBuf>,
    /// The address to listen on (port 0: any free port, printed).
    #[arg(long, default_value = "127.0.0.1:8790")]
    pub listen: std::net::SocketAddr,
    /// How a recording is picked for a request.
    #[arg(long = "match", value_enum, default_value_t = MatchArg::Order)]
    pub matching: MatchArg,
    /// How fast a recording is sent: at once, or with the waits its
    /// events' timestamps show (each at most 10 s).
    #[arg(long, value_enum, default_value_t = PaceArg::Fast)]
    pub pace: PaceArg,
    /// Send the recording's threadId and runId as recorded, rather than
    /// the request's.
    #[arg(long)]
    pub keep_ids: bool,
    /// Print nothing but errors.
    #[arg(long, short)]
    pub quiet: bool,
    /// What the server holds at once.
    #[command(flatten)]
    pub limits: ServeLimitsArgs,
}

/// The bounds of a long-running server (`proxy`, `replay`).
#[derive(Debug, clap::Args)]
pub struct ServeLimitsArgs {
    /// The most exchanges in flight at once; past them a request is
    /// answered 503 at once.
    #[arg(long, value_name = "N", default_value_t = 1024)]
    pub max_exchanges: usize,
    /// The most memory for request bodies and kept responses across all
    /// exchanges; past it a request is answered 503 and a response passes
    /// on unchecked.
    #[arg(long, value_name = "SIZE", default_value = "1G", value_parser = parse_size)]
    pub max_memory: usize,
    /// Most time a client may take to send a request's body (408 after).
    #[arg(long, value_name = "DURATION", default_value = "30s", value_parser = parse_duration)]
    pub body_timeout: Duration,
}

/// How `replay` picks a recording.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum MatchArg {
    /// In order, from the first again after the last.
    Order,
    /// By the request's last user message, else its threadId, else in
    /// order.
    Request,
}

/// How fast `replay` sends a recording.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum PaceArg {
    /// Everything at once.
    Fast,
    /// With the waits the recorded timestamps show.
    Recorded,
}

/// Arguments of `proxy`.
#[derive(Debug, clap::Args)]
pub struct ProxyArgs {
    /// The agent server's base URL; each request's path and query are
    /// appended to its path.
    #[arg(long)]
    pub to: String,
    /// The address to listen on (port 0: any free port, printed).
    #[arg(long, default_value = "127.0.0.1:8780")]
    pub listen: std::net::SocketAddr,
    /// Write the session, rewritten after each exchange, as an HTTP
    /// Archive in this directory.
    #[arg(long, value_name = "DIR")]
    pub save: Option<PathBuf>,
    /// Save credentials as sent rather than masked: secret headers
    /// (Authorization, Cookie, any named for a token, key, secret,
    /// password, auth or session), a URL's user information and secret
    /// query values.
    #[arg(long, requires = "save")]
    pub save_secrets: bool,
    /// Mask this header in the saved session too, beside the built-in
    /// secret headers (repeatable).
    #[arg(long = "secret-header", value_name = "NAME")]
    pub secret_headers: Vec<String>,
    /// How findings are printed: for a person on standard error, or one
    /// JSON object a line on standard output.
    #[arg(long, value_enum, default_value_t = ProxyFormat::Human)]
    pub format: ProxyFormat,
    /// The most of one response kept for its check and the archive (the
    /// rest passes on, counted, not checked).
    #[arg(long, default_value = "64M", value_name = "SIZE", value_parser = parse_size)]
    pub max_response_size: usize,
    /// Most time to open a connection to the server (504 after).
    #[arg(long, value_name = "DURATION", default_value = "10s", value_parser = parse_duration)]
    pub connect_timeout: Duration,
    /// Most time from sending a request to the response's head (504
    /// after).
    #[arg(long, value_name = "DURATION", default_value = "300s", value_parser = parse_duration)]
    pub first_byte_timeout: Duration,
    /// Most time the response may send nothing; past it the client's
    /// connection is aborted, never ended as if whole.
    #[arg(long, value_name = "DURATION", default_value = "300s", value_parser = parse_duration)]
    pub idle_timeout: Duration,
    /// Serve a live view of the runs on the proxy's own address, at
    /// /_agui-lint/live (loopback only): each run's timeline, events and
    /// findings as they pass, and each ended run's report.
    #[arg(long)]
    pub ui: bool,
    /// Print only findings (no summaries, no requests).
    #[arg(long, short)]
    pub quiet: bool,
    /// What the proxy holds at once.
    #[command(flatten)]
    pub limits: ServeLimitsArgs,
}

/// Output formats of `proxy`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ProxyFormat {
    /// One line a finding and a summary a run, on standard error.
    Human,
    /// One JSON object a finding or summary, on standard output.
    Jsonl,
}
