//! Command-line definitions (clap).

use std::path::PathBuf;

use clap::{Parser, Subcommand, ValueEnum};

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
    /// Check files, directories (walked for *.json) or stdin (-).
    #[command(
        after_help = "Examples:\n  agui-lint check fixtures/\n  agui-lint check --kind message --format json message.json\n  cat body.json | agui-lint check -"
    )]
    Check(CheckArgs),
    /// Print or write the JSON Schema of each kind.
    #[command(
        after_help = "Examples:\n  agui-lint schema run-agent-input\n  agui-lint schema --out schemas/"
    )]
    Schema(SchemaArgs),
    /// Show the documentation of a rule, or list every rule.
    #[command(
        after_help = "Examples:\n  agui-lint rule invalid-value\n  agui-lint rule --all\n  agui-lint rule --all --format json"
    )]
    Rule(RuleArgs),
}

/// Arguments of `check`.
#[derive(Debug, clap::Args)]
pub struct CheckArgs {
    /// Files or directories to check; `-` reads standard input.
    #[arg(required = true)]
    pub paths: Vec<PathBuf>,
    /// Kind of every document, or `auto` to tell each from its shape.
    #[arg(long, default_value = "auto")]
    pub kind: KindArg,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    pub format: Format,
    /// Report only these rules (comma-separated).
    #[arg(long, value_delimiter = ',', value_name = "RULES")]
    pub select: Option<Vec<String>>,
    /// Never report these rules (comma-separated).
    #[arg(long, value_delimiter = ',', value_name = "RULES")]
    pub ignore: Vec<String>,
    /// Report a rule with another severity, e.g. `unknown-field=error`.
    #[arg(long, value_delimiter = ',', value_name = "RULE=LEVEL")]
    pub severity: Vec<String>,
    /// Read settings from this file instead of the `agui-lint.toml` found
    /// in the working directory or above it.
    #[arg(long, value_name = "PATH")]
    pub config: Option<PathBuf>,
}

/// `--kind`: a kind name or `auto`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KindArg(pub Option<agui_lint::Kind>);

impl std::str::FromStr for KindArg {
    type Err = agui_lint::UnknownKindName;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        if s == "auto" {
            Ok(KindArg(None))
        } else {
            s.parse().map(|k| KindArg(Some(k)))
        }
    }
}

/// Output formats of `check`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// One line per finding, for people.
    Human,
    /// One JSON document, for scripts.
    Json,
}

/// Arguments of `schema`.
#[derive(Debug, clap::Args)]
pub struct SchemaArgs {
    /// The kind whose schema to print; every kind when absent.
    pub kind: Option<agui_lint::Kind>,
    /// Write `<kind>.schema.json` files into this directory instead of
    /// printing.
    #[arg(long)]
    pub out: Option<PathBuf>,
}

/// Arguments of `rule`.
#[derive(Debug, clap::Args)]
pub struct RuleArgs {
    /// The rule to document.
    #[arg(required_unless_present = "all", conflicts_with = "all")]
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
