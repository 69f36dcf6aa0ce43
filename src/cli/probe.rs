//! `probe`'s arguments: a live endpoint, and the conformance kit.

use std::path::PathBuf;
use std::time::Duration;

use agui_lint::unstable::kit::BuiltIn;
use clap::builder::PossibleValue;
use clap::ValueEnum;

use super::check::ReportArgs;
use super::values::{parse_duration, parse_size};

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
