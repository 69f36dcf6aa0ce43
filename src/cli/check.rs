//! `check`'s arguments, and the report options `check` and `probe` share.

use std::path::PathBuf;
use std::sync::LazyLock;

use agui_lint::Kind;
use clap::builder::PossibleValue;
use clap::ValueEnum;

use super::values::{kind_value, parse_client, parse_size, ClientArg, ProtocolArg};

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
