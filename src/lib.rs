//! agui-lint: JSON Schema and conformance validation for the AG-UI protocol
//! (Agent User Interaction Protocol).
//!
//! Build one [`Validator`] and call it on each document:
//!
//! ```
//! use agui_lint::{Kind, Validator};
//!
//! let validator = Validator::new()?;
//! let body = br#"{"threadId":"t","runId":"r","state":{},"messages":[
//!     {"id":"m","role":"user","content":42}],
//!     "tools":[],"context":[],"forwardedProps":{}}"#;
//! let report = validator.validate(Kind::RunAgentInput, body);
//! assert!(!report.is_valid());
//! let finding = &report.diagnostics()[0];
//! assert_eq!(finding.rule, "wrong-type");
//! assert_eq!(finding.pointer, "/messages/0/content");
//! # Ok::<(), agui_lint::BuildError>(())
//! ```
#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod anchor;
mod baseline;
mod check;
mod checked;
mod client;
mod diagnostic;
mod encoding;
mod fast;
mod findings;
#[doc(hidden)]
pub mod fuzzing;
mod input;
mod kind;
mod kit;
mod limits;
mod lines;
mod locate;
mod mask;
mod parse;
mod per_file_ignores;
mod pointer;
mod protocol;
mod recording;
mod render;
mod report;
pub mod rules;
mod schema;
mod secrets;
#[cfg(feature = "axum")]
pub mod server;
mod settings;
mod shape;
mod spec;
mod stream;
mod suggest;
mod text;
pub mod types;
mod validator;

pub use checked::{Checked, Context};
pub use client::{Client, UnknownClientName};
pub use diagnostic::{Diagnostic, Location, Related, Severity, Target};
pub use kind::{Kind, Undetected, UnknownKindName};
pub use limits::{Limits, DEFAULT_MAX_DEPTH, DEFAULT_MAX_FINDINGS, MAX_DEPTH_CAP, PARSER_DEPTH};
pub use protocol::{Declaration, Protocol, ProtocolChoice, UnknownProtocolName};
pub use render::document_json;
pub use report::Report;
pub use settings::{Settings, SettingsError, CONFIG_FILE_NAME};
pub use stream::{Framing, StreamChecker};
pub use validator::{BuildError, EventStream, Validator};

/// The `agui-lint` binary's pipeline: sources read from paths and stdin,
/// checked in parallel, masked, rendered in every output format, and the
/// schemas generated.
///
/// **Not part of the stable API.** The binary, the bindings, the tests and
/// the benchmarks use it; it changes whenever they need, without a semver
/// bump. A server or a test checks documents with [`Validator`] and
/// streams with [`StreamChecker`].
pub mod unstable {
    /// Paths relative to a configuration or baseline file's directory.
    pub mod anchor {
        pub use crate::anchor::*;
    }
    /// Findings recorded to be left out of later checks (`--baseline`).
    pub mod baseline {
        pub use crate::baseline::*;
    }
    /// Sources checked end to end, in parallel (the CLI's `check`).
    pub mod check {
        pub use crate::check::*;
    }
    /// Sources and the layouts of their documents (JSON, JSON Lines, SSE,
    /// HAR), read in bounded memory.
    pub mod input {
        pub use crate::input::*;
    }
    /// The conformance kit for agent servers: scenarios, checks across
    /// requests, expected failures and the kit's report.
    pub mod kit {
        pub use crate::kit::*;
    }
    /// Recorded runs: captures read into exchanges, runs compared after
    /// normalising ids, recorded streams fitted to a new request.
    pub mod recording {
        pub use crate::recording::*;
    }
    /// Rules turned off by file (`[per-file-ignores]`).
    pub mod per_file_ignores {
        pub use crate::per_file_ignores::*;
    }
    /// Values kept out of findings (`--mask-values`).
    pub mod mask {
        pub use crate::mask::*;
    }
    /// Every output format (human, JSON, JSON Lines, SARIF, GitHub, JUnit).
    pub mod render {
        pub use crate::render::*;
    }
    /// The JSON Schemas of every kind and version, generated from the types.
    pub mod schema {
        pub use crate::schema::*;
    }
    /// Credentials in traffic that is saved or printed: masked.
    pub mod secrets {
        pub use crate::secrets::*;
    }
}
