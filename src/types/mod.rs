//! Rust types for every type of the AG-UI protocol, one module per
//! generation: [`v1`] for AG-UI 1.0 and 1.1 (which differ only in
//! `encryptedValueType`), [`v0`] for the pre-1.0 Types reference.
//!
//! The JSON Schemas under `schemas/<version>/` are generated from these
//! types ([`crate::unstable::schema`]). The crate root of this module re-exports
//! [`v1`], the protocol as it is spoken today: its types also read every
//! valid pre-1.0 `RunAgentInput`, as 1.x only made keys optional and added
//! new ones.

pub mod v0;
pub mod v1;

pub use v1::*;
