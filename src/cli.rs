//! Command-line definitions (clap).

use std::path::PathBuf;
use std::sync::LazyLock;
use std::time::Duration;

use agui_lint::unstable::kit::BuiltIn;
use agui_lint::Kind;
use clap::builder::PossibleValue;
use clap::{ArgGroup, Parser, Subcommand, ValueEnum};

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

/// Arguments of `check`.
#[derive(Debug, clap::Args)]
pub struct CheckArgs {
    /// Files or directories to check; `-` reads standard input.
    #[arg(required_unless_present = "show_settings")]
    pub paths: Vec<PathBuf>,
    /// While walking directories, check only files matching this glob
    /// (repeatable; default: *.json, *.jsonl, *.ndjson, *.sse, *.har, *.aguipb).
    #[arg(long, value_name = "GLOB")]
    pub include: Vec<String>,
    /// While walking directories, skip files and folders matching this glob
    /// (repeatable), matched against the path and the entry's name.
    #[arg(long, value_name = "GLOB")]
    pub exclude: Vec<String>,
    /// The name standard input is shown under; its extension also tells
    /// how it is read (JSON, JSON Lines, SSE, HAR or binary frames, `.aguipb`).
    #[arg(long, value_name = "PATH")]
    pub stdin_filename: Option<PathBuf>,
    /// How every path and standard input hold their documents, whatever
    /// their names say: `auto` tells each from its extension, else its
    /// first bytes.
    #[arg(long, value_enum, value_name = "FORMAT", default_value_t = InputFormat::Auto)]
    pub input_format: InputFormat,
    /// Kind of every document, or `auto` to tell each from its shape.
    #[arg(long, value_enum, default_value_t = KindArg(None))]
    pub kind: KindArg,
    /// Leave out the findings this baseline file holds (written by
    /// --write-baseline): only new findings are reported and fail.
    #[arg(long, value_name = "FILE", conflicts_with = "write_baseline")]
    pub baseline: Option<PathBuf>,
    /// Print the settings the check would run with (as agui-lint.toml
    /// would write them, each with where it came from: the default, the
    /// configuration file or a flag) and check nothing.
    #[arg(long)]
    pub show_settings: bool,
    /// Record every finding of this check in a baseline file, and exit 0
    /// (2 still when a path could not be read).
    #[arg(long, value_name = "FILE")]
    pub write_baseline: Option<PathBuf>,
    /// How findings are judged and reported.
    #[command(flatten)]
    pub report: ReportArgs,
}

/// The options `check` and `probe` share: the protocol, the rules and
/// limits, and how the report is written.
#[derive(Debug, clap::Args)]
pub struct ReportArgs {
    /// The AG-UI version a document that declares none (no
    /// `protocolVersion`) is judged as; a document's own declaration always
    /// wins. `auto`: the newest known (1.1). Overrides `protocol` in
    /// agui-lint.toml.
    #[arg(long, value_enum, value_name = "VERSION")]
    pub protocol: Option<ProtocolArg>,
    /// See streams and requests through the official client: what
    /// `@ag-ui/client` 1.0.0 does with them, speaking to a current peer
    /// (`1.0.0`) or to one pinned to an older version (any version, such as
    /// the one a lock file holds: `0.0.47` is judged as the `0.0.57` era,
    /// as the client compares versions, and the run says so): events it
    /// drops, content it flattens, SSE framing it cannot split, a version
    /// newer than its own. Without it, and without `client` in
    /// agui-lint.toml, the view is `1.0.0`'s: the client every user has.
    /// Overrides `client` in agui-lint.toml.
    #[arg(long, value_name = "VERSION", value_parser = parse_client)]
    pub client: Option<ClientArg>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    pub format: Format,
    /// Write the report to this file instead of standard output.
    #[arg(long, short, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Also write a SARIF report of the same check to this file (one
    /// check, two reports: e.g. GitHub annotations and code scanning).
    #[arg(long, value_name = "FILE")]
    pub sarif: Option<PathBuf>,
    /// When to colour the human format (`NO_COLOR` is honoured by `auto`).
    #[arg(long, value_enum, default_value_t = ColorWhen::Auto)]
    pub color: ColorWhen,
    /// Print only findings: no summary, no clean documents, no progress;
    /// nothing at all when clean (human, github, jsonl).
    #[arg(long, short)]
    pub quiet: bool,
    /// Add how often each rule fired (human, json, jsonl).
    #[arg(long)]
    pub statistics: bool,
    /// Show how often each rule fired and the summary line instead of each
    /// finding (human): a first look at a large corpus.
    #[arg(long, conflicts_with = "quiet")]
    pub summary: bool,
    /// Show every finding where the human report groups one defect
    /// repeated, and list the files a directory walk skipped as not AG-UI
    /// as well as counting them (human).
    #[arg(long, short)]
    pub verbose: bool,
    /// Fail (exit 1) on warnings too.
    #[arg(long)]
    pub strict: bool,
    /// Exit 0 even when findings fail the check; 2 still reports a failure
    /// of the tool itself.
    #[arg(long)]
    pub exit_zero: bool,
    /// Report only these rules (comma-separated).
    #[arg(long, value_delimiter = ',', value_name = "RULES")]
    pub select: Option<Vec<String>>,
    /// Never report these rules (comma-separated).
    #[arg(long, value_delimiter = ',', value_name = "RULES")]
    pub ignore: Vec<String>,
    /// Report a rule with another severity, e.g. `unknown-field=error`.
    #[arg(long, value_delimiter = ',', value_name = "RULE=LEVEL")]
    pub severity: Vec<String>,
    /// Largest document checked, in bytes, with an optional K, M or G
    /// suffix (default 64M); a JSON Lines line or SSE event counts as one.
    #[arg(long, value_name = "SIZE", value_parser = parse_size)]
    pub max_document_size: Option<usize>,
    /// Largest HTTP Archive read, in bytes, with an optional K, M or G
    /// suffix (default 4G); each of its bodies is held to
    /// --max-document-size.
    #[arg(long, value_name = "SIZE", value_parser = parse_size)]
    pub max_archive_size: Option<usize>,
    /// Deepest nesting of arrays and objects (default 512, at most 2048).
    #[arg(long, value_name = "N")]
    pub max_depth: Option<usize>,
    /// Largest tool `parameters` schema compiled, in JSON values (default
    /// 10000).
    #[arg(long, value_name = "N")]
    pub max_tool_schema_nodes: Option<usize>,
    /// Most memory a stream's state and activity contents may take, with
    /// an optional K, M or G suffix (default 256M: four times
    /// --max-document-size).
    #[arg(long, value_name = "SIZE", value_parser = parse_size)]
    pub max_state_size: Option<usize>,
    /// Most memory the states of all streams checked at once may take
    /// together, with an optional K, M or G suffix (default 1G: four times
    /// --max-state-size).
    #[arg(long, value_name = "SIZE", value_parser = parse_size)]
    pub max_total_state_size: Option<usize>,
    /// Most findings reported for one document (default 1000); the rest
    /// are counted by rule in one `too-many-findings` finding.
    #[arg(long, value_name = "N")]
    pub max_findings: Option<usize>,
    /// Read settings from this file instead of the `agui-lint.toml` found
    /// in the working directory or above it.
    #[arg(long, value_name = "PATH")]
    pub config: Option<PathBuf>,
    /// Mask the document's values in every finding (quoted text and numbers
    /// become ***) and show no source lines, so that reports can be kept in
    /// logs; rules, pointers and positions stay.
    #[arg(long)]
    pub mask_values: bool,
}

/// Examples shown after `report --help`.
const REPORT_EXAMPLES: &str = "Examples:
  agui-lint report session.har                     write agui-lint-report.html
  agui-lint report capture.sse -o run.html         name the page
  agui-lint report fixtures/1.1/streams/invalid/   every capture of a folder
  agui-lint proxy --to URL --save s.har; agui-lint report s.har";

/// Arguments of `report`.
#[derive(Debug, clap::Args)]
pub struct PageArgs {
    /// Captures to show (files or directories); `-` reads standard input.
    #[arg(required = true)]
    pub paths: Vec<PathBuf>,
    /// Write the page to this file (`-`: standard output).
    #[arg(
        long,
        short,
        value_name = "FILE",
        default_value = "agui-lint-report.html"
    )]
    pub output: PathBuf,
    /// The AG-UI version a document that declares none is judged as
    /// (`auto`: the newest known, 1.1). Overrides `protocol` in
    /// agui-lint.toml.
    #[arg(long, value_enum, value_name = "VERSION")]
    pub protocol: Option<ProtocolArg>,
    /// See streams and requests through the official client of this
    /// version, as `check --client` does.
    #[arg(long, value_name = "VERSION", value_parser = parse_client)]
    pub client: Option<ClientArg>,
    /// Read settings from this file instead of the `agui-lint.toml` found
    /// in the working directory or above it.
    #[arg(long, value_name = "PATH")]
    pub config: Option<PathBuf>,
}

/// Arguments of `probe`.
#[derive(Debug, clap::Args)]
pub struct ProbeArgs {
    /// The AG-UI endpoint, an http:// or https:// URL.
    pub url: String,
    /// Send this RunAgentInput (a JSON file, sent as its bytes are)
    /// instead of the built-in runs (repeatable).
    #[arg(long, value_name = "FILE")]
    pub request: Vec<PathBuf>,
    /// Send the requests of this capture (an HTTP Archive's run requests,
    /// or a JSON Lines file's RunAgentInput lines) instead of the built-in
    /// runs (repeatable).
    #[arg(long, value_name = "CAPTURE")]
    pub replay: Vec<PathBuf>,
    /// The built-in scenarios to run (comma-separated; default: all):
    /// `text` and `tool` alone, or with `--suite` any of the kit's.
    #[arg(long, value_enum, value_delimiter = ',', value_name = "SCENARIOS")]
    pub scenario: Vec<ScenarioArg>,
    /// Run the conformance kit: every scenario a conversation of one or
    /// more runs, judged by checks within and across its requests, one
    /// line per scenario and check (human, json or junit).
    #[arg(long)]
    pub suite: bool,
    /// Also run this scenario file of the kit (a JSON conversation
    /// template; repeatable; implies `--suite`), after the built-in
    /// scenarios (all of them, or those `--scenario` names).
    #[arg(long, value_name = "FILE")]
    pub scenario_file: Vec<PathBuf>,
    /// A TOML file of the checks the server is known to fail, each with a
    /// reason: those do not fail the run, and a listed one that passes
    /// does (implies `--suite`).
    #[arg(long, value_name = "FILE")]
    pub expected_failures: Option<PathBuf>,
    /// Judge only the checks of this requirement level and stronger:
    /// `must` runs only the MUSTs (implies `--suite`).
    #[arg(long, value_enum, value_name = "LEVEL")]
    pub level: Option<LevelArg>,
    /// Send this header with every request, `Name: value` (repeatable).
    #[arg(short = 'H', long = "header", value_name = "HEADER")]
    pub headers: Vec<String>,
    /// Send `Authorization: Bearer TOKEN`, TOKEN read from this
    /// environment variable; it is never printed or saved.
    #[arg(long, value_name = "VAR")]
    pub token_env: Option<String>,
    /// A `-H` header whose value is a secret, masked wherever it is saved
    /// or printed, beside those whose names say so (repeatable).
    #[arg(long = "secret-header", value_name = "NAME")]
    pub secret_headers: Vec<String>,
    /// Write the session into this directory: `session.har` (check it
    /// again with `agui-lint check DIR/session.har`) and each exchange's
    /// request and raw response.
    #[arg(long, value_name = "DIR")]
    pub save: Option<PathBuf>,
    /// Most time to open a connection.
    #[arg(long, value_name = "DURATION", default_value = "10s", value_parser = parse_duration)]
    pub connect_timeout: Duration,
    /// Most time from sending a request to the response's head.
    #[arg(long, value_name = "DURATION", default_value = "60s", value_parser = parse_duration)]
    pub first_byte_timeout: Duration,
    /// Most time the response may send nothing before it is cut.
    #[arg(long, value_name = "DURATION", default_value = "60s", value_parser = parse_duration)]
    pub idle_timeout: Duration,
    /// Most time one exchange may take.
    #[arg(long, value_name = "DURATION", default_value = "300s", value_parser = parse_duration)]
    pub timeout: Duration,
    /// Most of each response recorded, saved and checked; the rest is read
    /// to its end and counted, and reported as unchecked.
    #[arg(long, value_name = "SIZE", default_value = "16M", value_parser = parse_size)]
    pub max_response_size: usize,
    /// How findings are judged and reported; `--protocol` also sets the
    /// version the built-in runs declare (default 1.0, as `@ag-ui/client`
    /// 1.0 sends; `0` declares none).
    #[command(flatten)]
    pub report: ReportArgs,
}

/// A built-in scenario of the kit, by name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ScenarioArg(pub BuiltIn);

impl ValueEnum for ScenarioArg {
    fn value_variants<'a>() -> &'a [Self] {
        const ALL: [ScenarioArg; 9] = [
            ScenarioArg(BuiltIn::ALL[0]),
            ScenarioArg(BuiltIn::ALL[1]),
            ScenarioArg(BuiltIn::ALL[2]),
            ScenarioArg(BuiltIn::ALL[3]),
            ScenarioArg(BuiltIn::ALL[4]),
            ScenarioArg(BuiltIn::ALL[5]),
            ScenarioArg(BuiltIn::ALL[6]),
            ScenarioArg(BuiltIn::ALL[7]),
            ScenarioArg(BuiltIn::ALL[8]),
        ];
        &ALL
    }

    fn to_possible_value(&self) -> Option<clap::builder::PossibleValue> {
        Some(PossibleValue::new(self.0.name()))
    }
}

/// `--level`: the weakest requirement level judged.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum LevelArg {
    /// Only the MUSTs.
    Must,
    /// The MUSTs and the SHOULDs.
    Should,
}

/// A duration: a number with an optional `ms`, `s` or `m` (seconds when
/// bare).
fn parse_duration(text: &str) -> Result<Duration, String> {
    let text = text.trim();
    let split = text
        .find(|c: char| !c.is_ascii_digit() && c != '.')
        .unwrap_or(text.len());
    let (number, unit) = text.split_at(split);
    let number: f64 = number
        .parse()
        .ok()
        .filter(|n: &f64| n.is_finite() && *n >= 0.0)
        .ok_or_else(|| format!("'{text}' is not a duration (e.g. 500ms, 10s, 2m)"))?;
    let seconds = match unit.trim() {
        "ms" => number / 1000.0,
        "" | "s" => number,
        "m" => number * 60.0,
        _ => return Err(format!("'{text}' is not a duration (e.g. 500ms, 10s, 2m)")),
    };
    Duration::try_from_secs_f64(seconds)
        .ok()
        .filter(|d| !d.is_zero())
        .ok_or_else(|| format!("'{text}' is not a duration above zero"))
}

/// `--kind`: a kind, or `None` for `auto`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KindArg(pub Option<Kind>);

/// `auto`, then every kind in [`Kind::ALL`]'s order.
static KIND_ARGS: LazyLock<Vec<KindArg>> = LazyLock::new(|| {
    std::iter::once(KindArg(None))
        .chain(Kind::ALL.iter().map(|&kind| KindArg(Some(kind))))
        .collect()
});

impl ValueEnum for KindArg {
    fn value_variants<'a>() -> &'a [Self] {
        &KIND_ARGS
    }

    fn to_possible_value(&self) -> Option<PossibleValue> {
        Some(match self.0 {
            None => PossibleValue::new("auto").help("Tell each document's kind from its shape"),
            Some(kind) => kind_value(kind),
        })
    }
}

/// The `schema` command's kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SchemaKind(pub Kind);

/// Every kind in [`Kind::ALL`]'s order.
static SCHEMA_KINDS: LazyLock<Vec<SchemaKind>> =
    LazyLock::new(|| Kind::ALL.iter().map(|&kind| SchemaKind(kind)).collect());

impl ValueEnum for SchemaKind {
    fn value_variants<'a>() -> &'a [Self] {
        &SCHEMA_KINDS
    }

    fn to_possible_value(&self) -> Option<PossibleValue> {
        Some(kind_value(self.0))
    }
}

/// A kind as `--help` lists it: its name and the protocol type it is
/// (`Message[]` for an array of them).
fn kind_value(kind: Kind) -> PossibleValue {
    PossibleValue::new(kind.as_str()).help(kind.type_name())
}

/// Output formats of `check`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// One finding per line with the source line and a caret, for people.
    Human,
    /// One JSON document, for scripts.
    Json,
    /// One JSON object per checked document, one per line.
    Jsonl,
    /// SARIF 2.1.0, for code-scanning upload.
    Sarif,
    /// GitHub Actions workflow commands (pull-request annotations).
    Github,
    /// JUnit XML: a testsuite per file, a testcase per document.
    Junit,
}

impl From<Format> for agui_lint::unstable::render::Format {
    fn from(format: Format) -> Self {
        use agui_lint::unstable::render::Format as Out;
        match format {
            Format::Human => Out::Human,
            Format::Json => Out::Json,
            Format::Jsonl => Out::JsonLines,
            Format::Sarif => Out::Sarif,
            Format::Github => Out::Github,
            Format::Junit => Out::Junit,
        }
    }
}

/// `--color`: when to colour the human format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ColorWhen {
    /// On a terminal, unless `NO_COLOR` is set.
    Auto,
    /// Always, also into files and pipes.
    Always,
    /// Never.
    Never,
}

/// How `check` reads its sources (`--input-format`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum InputFormat {
    /// Told from each source's extension, else its first bytes.
    Auto,
    /// One JSON document.
    Json,
    /// One JSON document a line.
    Jsonl,
    /// Server-Sent Events.
    Sse,
    /// An HTTP Archive.
    Har,
    /// AG-UI's binary transport: length-prefixed protobuf frames.
    Proto,
}

impl InputFormat {
    /// The layout every source is read as, if one is forced.
    pub fn layout(self) -> Option<agui_lint::unstable::input::Layout> {
        use agui_lint::unstable::input::Layout;
        match self {
            InputFormat::Auto => None,
            InputFormat::Json => Some(Layout::Json),
            InputFormat::Jsonl => Some(Layout::JsonLines),
            InputFormat::Sse => Some(Layout::Sse),
            InputFormat::Har => Some(Layout::Har),
            InputFormat::Proto => Some(Layout::Proto),
        }
    }
}

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
    /// /_agui-lint/live (loopback only): each run's events and findings as
    /// they pass, and each ended run's report.
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

/// Arguments of `completions`.
#[derive(Debug, clap::Args)]
pub struct CompletionsArgs {
    /// The shell to complete in.
    pub shell: clap_complete::Shell,
}

/// Arguments of `schema`.
#[derive(Debug, clap::Args)]
pub struct SchemaArgs {
    /// The kind whose schema to print; without it, every kind's schema in
    /// one JSON object keyed by kind name.
    #[arg(value_enum)]
    pub kind: Option<SchemaKind>,
    /// The AG-UI version whose schemas to print or write; with `--out`,
    /// every version when absent, else the newest (1.1).
    #[arg(long, value_enum, value_name = "VERSION")]
    pub protocol: Option<ProtocolArg>,
    /// Write `<version>/<kind>.schema.json` files into this directory
    /// instead of printing.
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
}

/// `--client VERSION`: the version as typed, and the profile it is judged
/// as.
#[derive(Debug, Clone)]
pub struct ClientArg {
    /// The version as typed.
    pub typed: String,
    /// The profile of its era.
    pub profile: agui_lint::Client,
}

impl ClientArg {
    /// Says on standard error which profile the version is judged as, when
    /// it is not a profile's own name.
    pub fn say_era(&self) {
        if let Some(note) = agui_lint::Client::judged_as_note(&self.typed) {
            crate::console::say(format_args!("agui-lint: {note}"));
        }
    }
}

fn parse_client(name: &str) -> Result<ClientArg, String> {
    let profile = name
        .parse()
        .map_err(|e: agui_lint::UnknownClientName| e.to_string())?;
    Ok(ClientArg {
        typed: name.to_owned(),
        profile,
    })
}

/// A protocol version on the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ProtocolArg {
    /// AG-UI 1.1, the newest known.
    #[value(name = "1.1")]
    V1_1,
    /// AG-UI 1.0, spoken by the official SDKs at 1.0.0.
    #[value(name = "1.0")]
    V1_0,
    /// The pre-1.0 Types reference.
    #[value(name = "0", alias = "0.x")]
    V0,
    /// The version each document declares, else the newest known.
    Auto,
}

impl From<ProtocolArg> for agui_lint::ProtocolChoice {
    fn from(arg: ProtocolArg) -> Self {
        use agui_lint::{Protocol, ProtocolChoice};
        match arg {
            ProtocolArg::V1_1 => ProtocolChoice::Version(Protocol::V1_1),
            ProtocolArg::V1_0 => ProtocolChoice::Version(Protocol::V1_0),
            ProtocolArg::V0 => ProtocolChoice::Version(Protocol::V0),
            ProtocolArg::Auto => ProtocolChoice::Auto,
        }
    }
}

/// Arguments of `rule`: a rule's `NAME` or `--all`, one of the two.
#[derive(Debug, clap::Args)]
#[command(group(ArgGroup::new("which").required(true).args(["name", "all"])))]
pub struct RuleArgs {
    /// The rule to document (`agui-lint rule --all` lists them).
    pub name: Option<String>,
    /// List every rule.
    #[arg(long)]
    pub all: bool,
    /// Output format.
    #[arg(long, value_enum, default_value_t = RuleFormat::Text)]
    pub format: RuleFormat,
}

/// Output formats of `rule`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum RuleFormat {
    /// Markdown documentation, or a table with `--all`.
    Text,
    /// JSON: one object per rule with its name, severity, summary and docs.
    Json,
}

/// A size in bytes: a number with an optional K, M or G (powers of 1024).
fn parse_size(text: &str) -> Result<usize, String> {
    let text = text.trim();
    let (digits, unit) = match text.char_indices().find(|(_, c)| !c.is_ascii_digit()) {
        Some((at, _)) => text.split_at(at),
        None => (text, ""),
    };
    let factor: usize = match unit
        .to_ascii_uppercase()
        .trim_end_matches("IB")
        .trim_end_matches('B')
    {
        "" => 1,
        "K" => 1 << 10,
        "M" => 1 << 20,
        "G" => 1 << 30,
        _ => return Err(format!("'{text}' is not a size (e.g. 1048576, 512K, 64M)")),
    };
    digits
        .parse::<usize>()
        .ok()
        .and_then(|n| n.checked_mul(factor))
        .ok_or_else(|| format!("'{text}' is not a size (e.g. 1048576, 512K, 64M)"))
}
