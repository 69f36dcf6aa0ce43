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

/// A client profile name agui-lint does not know.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown client '{0}' (expected one of: 1.0.0, 0.0.57, 0.0.45, 0.0.39)")]
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

impl FromStr for Client {
    type Err = UnknownClientName;

    fn from_str(name: &str) -> Result<Self, Self::Err> {
        Client::ALL
            .into_iter()
            .find(|client| client.as_str() == name)
            .ok_or_else(|| UnknownClientName(name.to_string()))
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
        assert!("0.0.40".parse::<Client>().is_err());
        assert!(Client::V0_0_39.drops_subagent_events());
        assert!(Client::V0_0_57.drops_subagent_events());
        assert!(!Client::V1_0_0.drops_subagent_events());
        assert!(Client::V0_0_39.flattens_content());
        assert!(!Client::V0_0_45.flattens_content());
    }
}
