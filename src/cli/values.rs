//! Values the commands share: durations, sizes, protocol versions,
//! client versions, kinds as `--help` lists them.

use std::time::Duration;

use agui_lint::Kind;
use clap::builder::PossibleValue;
use clap::ValueEnum;

/// A duration: a number with an optional `ms`, `s` or `m` (seconds when
/// bare).
pub(super) fn parse_duration(text: &str) -> Result<Duration, String> {
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
/// A kind as `--help` lists it: its name and the protocol type it is
/// (`Message[]` for an array of them).
pub(super) fn kind_value(kind: Kind) -> PossibleValue {
    PossibleValue::new(kind.as_str()).help(kind.type_name())
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

pub(super) fn parse_client(name: &str) -> Result<ClientArg, String> {
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
/// A size in bytes: a number with an optional K, M or G (powers of 1024).
pub(super) fn parse_size(text: &str) -> Result<usize, String> {
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
