//! `report`'s arguments: the HTML page of captures, kit runs and diffs.

use std::path::PathBuf;

use super::values::{parse_client, ClientArg, ProtocolArg};

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
