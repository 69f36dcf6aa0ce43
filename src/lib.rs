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

pub mod check;
mod checked;
pub mod diagnostic;
mod encoding;
mod fast;
mod findings;
#[doc(hidden)]
pub mod fuzzing;
pub mod input;
mod kind;
pub mod limits;
mod lines;
mod locate;
pub mod mask;
mod parse;
mod pointer;
pub mod protocol;
pub mod render;
mod report;
pub mod rules;
pub mod schema;
#[cfg(feature = "axum")]
pub mod server;
pub mod settings;
mod stream;
mod suggest;
mod text;
pub mod types;
mod validator;

pub use diagnostic::{Diagnostic, Location, Related, Severity, Target};
pub use kind::{Kind, Undetected, UnknownKindName};
pub use limits::Limits;
pub use protocol::{Declaration, Protocol, ProtocolChoice, UnknownProtocolName};
pub use report::Report;
pub use settings::{Settings, SettingsError};
pub use stream::{Framing, StreamChecker};
pub use validator::{BuildError, EventStream, Validator};
