//! The official client a stream is seen through (`--client`, `client` in
//! `agui-lint.toml`): what `@ag-ui/client` does to a stream and a request
//! beyond checking them, by the peer version it speaks to.
//!
//! `@ag-ui/client` 1.0.0 is the client on the package registries; it reads
//! a peer it knows to be older (its `maxProtocolVersion`) through that
//! era's shims, which upstream's conformance suite runs as its era lanes
//! (`era-0-0-39-flattens-content`, `era-0-0-57-subagent-dropped-with-warning`).
//! Each profile is what the client's code does (`dist/index.js` of the
//! 1.0.0 package; the differential test `node/test/receivers.test.js`
//! runs it):
//!
//! | profile | what the client does |
//! |---|---|
//! | every one | splits SSE events on a blank LF line only: a CRLF or CR stream of more than one event is one block that fails to parse, and the run fails |
//! | `0.0.57` and older | drops `SUBAGENT_STARTED`, `SUBAGENT_FINISHED` and `SUBAGENT_ERROR`, with a warning, and strips `subagentRunId` |
//! | `0.0.39` | flattens a message's content parts to their text in the request it sends, dropping every other part, with a warning |

use std::fmt;
use std::str::FromStr;

/// `@ag-ui/client` 1.0.0 speaking to a peer of a given version.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Client {
    /// A peer pinned to 0.0.39: every shim below, and content flattened.
    V0_0_39,
    /// A peer pinned to 0.0.45: subagent events dropped.
    V0_0_45,
    /// A peer pinned to 0.0.57: subagent events dropped.
    V0_0_57,
    /// A current (1.0) peer: no shim.
    V1_0_0,
}

/// A client version that is not a version (`MAJOR.MINOR.PATCH`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("'{0}' is not a version of @ag-ui/client (MAJOR.MINOR.PATCH, such as 1.0.0 or 0.0.47)")]
pub struct UnknownClientName(pub String);

impl Client {
    /// Every profile, newest first.
    pub const ALL: [Client; 4] = [
        Client::V1_0_0,
        Client::V0_0_57,
        Client::V0_0_45,
        Client::V0_0_39,
    ];

    /// The name on the command line, in the config and in findings.
    pub fn as_str(self) -> &'static str {
        match self {
            Client::V0_0_39 => "0.0.39",
            Client::V0_0_45 => "0.0.45",
            Client::V0_0_57 => "0.0.57",
            Client::V1_0_0 => "1.0.0",
        }
    }

    /// Whether the client drops subagent lifecycle events (a peer from
    /// before subagents, 0.0.57 and older).
    pub fn drops_subagent_events(self) -> bool {
        self <= Client::V0_0_57
    }

    /// Whether the client flattens a message's content parts to their
    /// text in the request it sends (a 0.0.39 peer).
    pub fn flattens_content(self) -> bool {
        self == Client::V0_0_39
    }

    /// How the finding names the client: `@ag-ui/client 1.0.0`, or
    /// `@ag-ui/client 1.0.0 pinned to a 0.0.57 peer`.
    pub fn described(self) -> String {
        match self {
            Client::V1_0_0 => "@ag-ui/client 1.0.0".to_string(),
            older => format!("@ag-ui/client 1.0.0 pinned to a {older} peer"),
        }
    }
}

impl fmt::Display for Client {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Client {
    /// What a client of `version` is judged as, when that is another
    /// profile's name: `None` for a profile's own name.
    ///
    /// `@ag-ui/client` 1.0.0 picks its shims by comparing the peer's
    /// version with 0.0.39, 0.0.45 and 0.0.57 (at or below each, that
    /// era's shims run), so every version falls in one era.
    pub fn judged_as_note(version: &str) -> Option<String> {
        let client: Client = version.parse().ok()?;
        (client.as_str() != version.trim()).then(|| {
            let what = match client {
                Client::V1_0_0 => "newer than 0.0.57: no shim",
                Client::V0_0_57 => "0.0.46 to 0.0.57: subagent events dropped",
                Client::V0_0_45 => "0.0.40 to 0.0.45: subagent events dropped",
                Client::V0_0_39 => {
                    "0.0.39 and older: subagent events dropped, content flattened to text"
                }
            };
            format!(
                "client {} is judged as the {client} profile ({what})",
                version.trim()
            )
        })
    }
}

impl FromStr for Client {
    type Err = UnknownClientName;

    /// Any version (`1.0.0`, `0.0.47`, `v0.0.47`, `^0.0.47`, a pre-release
    /// such as `0.0.58-rc.1`): the profile of its era, as the client
    /// compares versions (see [`Client::judged_as_note`]).
    fn from_str(name: &str) -> Result<Self, Self::Err> {
        let unknown = || UnknownClientName(name.to_string());
        let version = name
            .trim()
            .trim_start_matches(['v', '^', '~', '='])
            .split(['-', '+'])
            .next()
            .unwrap_or_default();
        let mut parts = version.split('.').map(|part| {
            (!part.is_empty() && part.bytes().all(|b| b.is_ascii_digit()))
                .then(|| part.parse::<u64>().ok())
                .flatten()
        });
        let (Some(Some(major)), Some(Some(minor)), Some(Some(patch)), None) =
            (parts.next(), parts.next(), parts.next(), parts.next())
        else {
            return Err(unknown());
        };
        let at_or_below = |p: u64| (major, minor, patch) <= (0, 0, p);
        Ok(if at_or_below(39) {
            Client::V0_0_39
        } else if at_or_below(45) {
            Client::V0_0_45
        } else if at_or_below(57) {
            Client::V0_0_57
        } else {
            Client::V1_0_0
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_eras_nest() {
        for client in Client::ALL {
            assert_eq!(client.as_str().parse::<Client>(), Ok(client));
        }
        // Any version falls in one era, as the client compares them.
        for (version, era) in [
            ("0.0.47", Client::V0_0_57),
            ("0.0.58", Client::V1_0_0),
            ("0.0.40", Client::V0_0_45),
            ("0.0.46", Client::V0_0_57),
            ("0.0.12", Client::V0_0_39),
            ("v0.0.45", Client::V0_0_45),
            ("^0.0.57", Client::V0_0_57),
            ("1.2.3", Client::V1_0_0),
            ("0.0.58-rc.1", Client::V1_0_0),
            ("0.1.0", Client::V1_0_0),
        ] {
            assert_eq!(version.parse::<Client>(), Ok(era), "{version}");
        }
        for not in ["", "latest", "1.0", "1.0.0.0", "0.0.x", "-1.0.0"] {
            assert!(not.parse::<Client>().is_err(), "{not}");
        }
        assert_eq!(Client::judged_as_note("1.0.0"), None);
        assert_eq!(
            Client::judged_as_note("0.0.47").as_deref(),
            Some("client 0.0.47 is judged as the 0.0.57 profile (0.0.46 to 0.0.57: subagent events dropped)")
        );
        assert!(Client::V0_0_39.drops_subagent_events());
        assert!(Client::V0_0_57.drops_subagent_events());
        assert!(!Client::V1_0_0.drops_subagent_events());
        assert!(Client::V0_0_39.flattens_content());
        assert!(!Client::V0_0_45.flattens_content());
    }
}
