//! The reference commands' arguments: `schema`, `rule` and `completions`.

use std::path::PathBuf;
use std::sync::LazyLock;

use agui_lint::Kind;
use clap::builder::PossibleValue;
use clap::{ArgGroup, ValueEnum};

use super::values::{kind_value, ProtocolArg};

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
