//! Command-line definitions (clap): the commands here, each command's
//! arguments in a file of its own, and the values they share in
//! [`values`].

mod check;
mod page;
mod probe;
mod recordings;
mod reference;
mod values;

use clap::{Parser, Subcommand};

pub use check::{CheckArgs, ColorWhen, Format, ReportArgs};
pub use page::PageArgs;
pub use probe::{LevelArg, ProbeArgs};
pub use recordings::{
    DecodeArgs, DiffArgs, DiffFormat, MatchArg, PaceArg, ProxyArgs, ProxyFormat, ReplayArgs,
};
pub use reference::{CompletionsArgs, RuleArgs, RuleFormat, SchemaArgs};
pub use values::ProtocolArg;

/// Checks AG-UI (Agent User Interaction Protocol) payloads against the
/// protocol's JSON Schemas and conformance rules.
#[derive(Debug, Parser)]
#[command(name = "agui-lint", version, about)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Check files, directories and standard input (-) for AG-UI conformance.
    ///
    /// Directories are walked for *.json (one document), *.jsonl and
    /// *.ndjson (one document per line), *.sse (one document per event),
    /// *.har (each request body and response event) and *.aguipb (binary
    /// frames, one event per frame); hidden entries and
    /// build folders (target, node_modules, ...) are skipped. A path that
    /// cannot be read is reported and every other path is still checked.
    /// Exit code 0 when no error, 1 when any error (or warning with
    /// --strict), 2 when the tool failed (such as a path it could not read).
    #[command(after_help = CHECK_EXAMPLES)]
    Check(Box<CheckArgs>),
    /// Print or write the JSON Schema of each kind.
    #[command(after_help = SCHEMA_EXAMPLES)]
    Schema(SchemaArgs),
    /// Show the documentation of a rule, or list every rule.
    #[command(after_help = RULE_EXAMPLES)]
    Rule(RuleArgs),
    /// Check a live AG-UI endpoint: send it runs as the official client
    /// does and check the transport and the event streams it answers with.
    ///
    /// Without --request or --replay, two built-in runs are sent: a text
    /// turn, and a turn offering a client-side tool, followed (when the
    /// agent calls it) by the request carrying the tool's result. Each
    /// exchange is recorded as an HTTP Archive and checked as `check`
    /// checks one: the request, the HTTP status, the Content-Type, the SSE
    /// framing, how the body arrived (timeouts, gaps, a lost connection)
    /// and the events, paired with their request. Only the URL given is
    /// contacted: no redirect is followed and no proxy used. Exit codes as
    /// `check`; 2 also when the endpoint cannot be reached.
    #[command(after_help = PROBE_EXAMPLES)]
    Probe(Box<ProbeArgs>),
    /// Print a binary capture (AG-UI's protobuf transport, length-prefixed
    /// frames) as JSON Lines, one event a line, as the official decoder
    /// reads each frame.
    ///
    /// The output is what `check` judges of the capture: read it, diff it,
    /// or check it as JSON Lines. A frame that is cut short, does not
    /// decode or holds an event of a later version is named on standard
    /// error (frame and byte) and not printed. Exit code 0 when every frame
    /// was printed, 1 when one was not, 2 when the input cannot be read.
    #[command(after_help = DECODE_EXAMPLES)]
    Decode(DecodeArgs),
    /// Compare the AG-UI runs of two captures event by event.
    ///
    /// Each capture (HAR, JSON Lines, SSE or binary) is read into its runs
    /// (a run starts at each RUN_STARTED and at each response), and what
    /// differs between any two recordings of one run is normalised away:
    /// ids become #1, #2 ... in the order they first appear in the run,
    /// `timestamp` and `rawEvent` are dropped, and the pieces of one
    /// message's text or one tool call's arguments are joined. What is left
    /// is compared: events added, removed, moved and changed, texts word by
    /// word. Exit code 0 when the runs are the same, 1 when they differ, 2
    /// when a capture cannot be read.
    #[command(after_help = DIFF_EXAMPLES)]
    Diff(DiffArgs),
    /// Write one self-contained HTML page of captures (JSON Lines, SSE,
    /// HAR, binary frames, a probe or proxy session): each run drawn as
    /// lanes (messages, reasoning, tool calls with their pieces, steps,
    /// activities, subagents), its state as it evolves, its events, and
    /// every finding at the event it points to. The page needs no network
    /// and reads without script. Exit code 0 when the page is written, 2
    /// when a capture cannot be read or the page written.
    #[command(after_help = REPORT_EXAMPLES)]
    Report(PageArgs),
    /// Serve recorded runs: a mock AG-UI server that answers each POST with
    /// a response stream from the captures (HAR, JSON Lines, SSE or binary).
    ///
    /// Recordings are served in order (from the first again after the
    /// last) or, with --match request, the one whose request's last user
    /// message (else threadId) is the incoming request's. The recorded
    /// bytes are sent as they were, faults included, so a capture that
    /// fails `check` tests a client's error handling; only the recording's
    /// threadId and runId are replaced by the request's (--keep-ids sends
    /// them as recorded). A JSON Lines recording is sent as Server-Sent
    /// Events. Listens on loopback unless --listen names another address.
    /// Runs until stopped.
    #[command(after_help = REPLAY_EXAMPLES)]
    Replay(ReplayArgs),
    /// Check the AG-UI traffic between a client and an agent server as it
    /// passes: a reverse proxy in front of the server.
    ///
    /// Point the client at the proxy (the same path it used on the server:
    /// `--to http://localhost:8000` forwards `/agent` to
    /// `http://localhost:8000/agent`). Every byte passes unchanged in both
    /// directions, the response as it streams; each run request and its
    /// response are checked as they pass, findings printed as they occur
    /// (on standard error, or as JSON Lines on standard output) and a
    /// summary per run at its end. `--save DIR` writes the session as an
    /// HTTP Archive that `check` reads back with the same findings. Headers
    /// such as Authorization are passed on, never printed, and saved masked
    /// unless --save-secrets. Listens on loopback unless --listen names
    /// another address. Runs until stopped.
    #[command(after_help = PROXY_EXAMPLES)]
    Proxy(Box<ProxyArgs>),
    /// Print a shell completion script.
    #[command(after_help = COMPLETIONS_EXAMPLES)]
    Completions(CompletionsArgs),
}

const DIFF_EXAMPLES: &str = "\
Examples:
  agui-lint diff golden.har today.har
  agui-lint diff --findings recorded.jsonl current.jsonl
  agui-lint diff --format json a.sse b.sse";

const REPLAY_EXAMPLES: &str = "\
Examples:
  agui-lint replay recorded.har                      # http://127.0.0.1:8790
  agui-lint replay broken-stream.sse --listen 127.0.0.1:9000
  agui-lint replay session.har --match request --pace recorded";

const PROXY_EXAMPLES: &str = "\
Examples:
  agui-lint proxy --to http://localhost:8000          # then use http://127.0.0.1:8780/agent
  agui-lint proxy --to http://localhost:8000 --save captures/
  agui-lint proxy --to https://agent.example.com --format jsonl > findings.jsonl";

const DECODE_EXAMPLES: &str = "\
Examples:
  agui-lint decode capture.aguipb
  agui-lint decode capture.aguipb > capture.jsonl && agui-lint check capture.jsonl
  curl -s -H 'Accept: application/vnd.ag-ui.event+proto' -d @run.json $URL | agui-lint decode -";

const PROBE_EXAMPLES: &str = "\
Examples:
  agui-lint probe http://127.0.0.1:8000/agent
  agui-lint probe http://127.0.0.1:8000/agent --save probe-out/ --format json
  agui-lint check probe-out/session.har
  agui-lint probe https://agent.example/run --token-env AGENT_TOKEN -H 'X-Tenant: dev'
  agui-lint probe http://127.0.0.1:8000/agent --replay captures/session.har
  agui-lint probe http://127.0.0.1:8000/agent --request body.json --idle-timeout 5s";

const CHECK_EXAMPLES: &str = "\
Examples:
  agui-lint check payloads/
  agui-lint check captures/ --summary
  agui-lint check captures/run.jsonl --format json --statistics
  agui-lint check . --include '*.json' --exclude 'payloads/old/**'
  agui-lint check payloads/ --format sarif --output agui-lint.sarif
  agui-lint check payloads/ --format github --sarif agui-lint.sarif
  agui-lint check captures/ --format json --mask-values
  cat body.json | agui-lint check - --kind run-agent-input";

const SCHEMA_EXAMPLES: &str = "\
Examples:
  agui-lint schema run-agent-input
  agui-lint schema --out schemas/";

const RULE_EXAMPLES: &str = "\
Examples:
  agui-lint rule invalid-value
  agui-lint rule --all
  agui-lint rule --all --format json";

const COMPLETIONS_EXAMPLES: &str = "\
Examples:
  agui-lint completions bash > ~/.local/share/bash-completion/completions/agui-lint
  agui-lint completions zsh > ~/.zfunc/_agui-lint
  agui-lint completions fish > ~/.config/fish/completions/agui-lint.fish";

/// Examples shown after `report --help`.
const REPORT_EXAMPLES: &str = "Examples:
  agui-lint report session.har                     write agui-lint-report.html
  agui-lint report capture.sse -o run.html         name the page
  agui-lint report fixtures/1.1/streams/invalid/   every capture of a folder
  agui-lint proxy --to URL --save s.har; agui-lint report s.har";
