//! The AG-UI protocol versions agui-lint judges, and which one judges a
//! document.
//!
//! Every document is judged against exactly one version: the one it
//! declares (`protocolVersion` on a `RunAgentInput`; for a stream, on its
//! `RUN_STARTED` or `RUN_STARTED.input`), else the one the user configured,
//! else the newest known (`spec/1.1/basic/versioning.mdx`, "Version
//! negotiation"). A declaration newer than the newest known, or one that is
//! not a version at all, is judged as the newest known, with a warning.

use std::cmp::Ordering;
use std::fmt;
use std::str::FromStr;

/// A version of the AG-UI protocol that agui-lint has schemas and rules for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub enum Protocol {
    /// The pre-1.0 Types reference ("0.x"), retired.
    V0,
    /// AG-UI 1.0, spoken by every official SDK at 1.0.0.
    V1_0,
    /// AG-UI 1.1, frozen upstream with a normative JSON Schema; the
    /// newest known, and so the default.
    #[default]
    V1_1,
}

/// A protocol version name agui-lint does not know.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown protocol version '{0}' (expected one of: 1.1, 1.0, 0, auto)")]
pub struct UnknownProtocolName(pub String);

impl Protocol {
    /// Every version, newest first.
    pub const ALL: [Protocol; 3] = [Protocol::V1_1, Protocol::V1_0, Protocol::V0];

    /// The newest version agui-lint knows: what an undeclared document is
    /// judged as unless configured otherwise.
    pub const NEWEST: Protocol = Protocol::V1_1;

    /// The name used on the command line, in the config, in reports and as
    /// the folder of the version's schemas: `1.1`, `1.0` or `0`.
    pub fn as_str(self) -> &'static str {
        match self {
            Protocol::V0 => "0",
            Protocol::V1_0 => "1.0",
            Protocol::V1_1 => "1.1",
        }
    }

    /// Whether this is a 1.x version, whose behaviour is normative.
    pub fn is_1x(self) -> bool {
        self != Protocol::V0
    }

    /// The version's position in [`Protocol::ALL`].
    pub(crate) fn index(self) -> usize {
        match self {
            Protocol::V1_1 => 0,
            Protocol::V1_0 => 1,
            Protocol::V0 => 2,
        }
    }

    /// What a declared `protocolVersion` means to agui-lint.
    pub fn from_declaration(declared: &str) -> Declaration {
        let Some((version, patched)) = parse_major_minor(declared) else {
            return Declaration::Uninterpretable;
        };
        let known = match version {
            // A pre-1.0 package version (`0.0.57`) is no protocol version:
            // nothing before 1.0 declared one.
            (0, _) if patched => return Declaration::Uninterpretable,
            (0, _) => Protocol::V0,
            (1, 0) => Protocol::V1_0,
            (1, 1) => Protocol::V1_1,
            newer => {
                debug_assert_eq!(newer.cmp(&(1, 1)), Ordering::Greater);
                return Declaration::Newer;
            }
        };
        if patched {
            Declaration::Patched(known)
        } else {
            Declaration::Known(known)
        }
    }
}

impl fmt::Display for Protocol {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Protocol {
    type Err = UnknownProtocolName;

    /// `1.1`, `1.0` (or `1`), `0` (or `0.x`). `auto` is not a version: see
    /// [`ProtocolChoice`].
    fn from_str(name: &str) -> Result<Self, Self::Err> {
        match name {
            "1.1" => Ok(Protocol::V1_1),
            "1.0" | "1" => Ok(Protocol::V1_0),
            "0" | "0.x" => Ok(Protocol::V0),
            other => Err(UnknownProtocolName(other.to_string())),
        }
    }
}

/// What a user asked for: a fixed version for undeclared documents, or
/// `auto` (the newest known).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum ProtocolChoice {
    /// Undeclared documents are judged as the newest known version.
    #[default]
    Auto,
    /// Undeclared documents are judged as this version.
    Version(Protocol),
}

impl ProtocolChoice {
    /// The version an undeclared document is judged as.
    pub fn default_version(self) -> Protocol {
        match self {
            ProtocolChoice::Auto => Protocol::NEWEST,
            ProtocolChoice::Version(version) => version,
        }
    }
}

impl fmt::Display for ProtocolChoice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ProtocolChoice::Auto => f.write_str("auto"),
            ProtocolChoice::Version(version) => version.fmt(f),
        }
    }
}

impl FromStr for ProtocolChoice {
    type Err = UnknownProtocolName;

    fn from_str(name: &str) -> Result<Self, Self::Err> {
        match name {
            "auto" => Ok(ProtocolChoice::Auto),
            other => other.parse().map(ProtocolChoice::Version),
        }
    }
}

/// What a document's `protocolVersion` declares.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Declaration {
    /// A version agui-lint knows.
    Known(Protocol),
    /// A well-formed version newer than the newest known (`1.2`, `2.0`):
    /// judged as the newest known, with a warning.
    Newer,
    /// Not a version identifier (`draft`, `one`, ``): handled like a newer
    /// one.
    Uninterpretable,
    /// A version agui-lint knows spelt with a patch component (`1.0.0`, an
    /// SDK's package version): judged as that version, with a warning, as
    /// the value is `MAJOR.MINOR` and `@ag-ui/client` cannot interpret it.
    Patched(Protocol),
}

impl Declaration {
    /// The version a document with this declaration is judged as.
    pub fn judged_as(self) -> Protocol {
        match self {
            Declaration::Known(version) | Declaration::Patched(version) => version,
            Declaration::Newer | Declaration::Uninterpretable => Protocol::NEWEST,
        }
    }
}

/// `MAJOR.MINOR`, optionally followed by `.PATCH` (an SDK's package version,
/// which some peers send), each component decimal digits; compared
/// numerically, so `1.10` is newer than `1.9`. Whether a patch came too.
pub(crate) fn parse_major_minor(text: &str) -> Option<((u64, u64), bool)> {
    let mut parts = text.split('.');
    let number = |part: Option<&str>| -> Option<u64> {
        let part = part?;
        if part.is_empty() || !part.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        part.parse().ok()
    };
    let major = number(parts.next())?;
    let minor = number(parts.next())?;
    let patched = match parts.next() {
        None => false,
        Some(patch) => {
            number(Some(patch))?;
            if parts.next().is_some() {
                return None;
            }
            true
        }
    };
    Some(((major, minor), patched))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for version in Protocol::ALL {
            assert_eq!(version.as_str().parse::<Protocol>(), Ok(version));
            assert_eq!(Protocol::ALL[version.index()], version);
        }
        assert_eq!("0.x".parse::<Protocol>(), Ok(Protocol::V0));
        assert_eq!("auto".parse::<ProtocolChoice>(), Ok(ProtocolChoice::Auto));
        assert!("1.2".parse::<Protocol>().is_err());
    }

    #[test]
    fn declarations_compare_numerically() {
        use Declaration::*;
        assert_eq!(Protocol::from_declaration("1.0"), Known(Protocol::V1_0));
        assert_eq!(Protocol::from_declaration("1.0.0"), Patched(Protocol::V1_0));
        assert_eq!(Patched(Protocol::V1_0).judged_as(), Protocol::V1_0);
        assert_eq!(Protocol::from_declaration("1.1"), Known(Protocol::V1_1));
        assert_eq!(Protocol::from_declaration("0.0.57"), Uninterpretable);
        assert_eq!(Protocol::from_declaration("0.1"), Known(Protocol::V0));
        assert_eq!(Protocol::from_declaration("1.10"), Newer);
        assert_eq!(Protocol::from_declaration("2.0"), Newer);
        for nonsense in [
            "draft", "one", "", "1", "1.", ".1", "v1.0", "1.0.0.0", "1.x",
        ] {
            assert_eq!(
                Protocol::from_declaration(nonsense),
                Uninterpretable,
                "{nonsense}"
            );
        }
        assert_eq!(Newer.judged_as(), Protocol::NEWEST);
    }
}
