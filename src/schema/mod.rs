//! The JSON Schemas of every kind: generated from [`crate::types`] (the only
//! producer of `schemas/`), compiled once for validation, and the mapping of
//! schema errors to diagnostics.

mod compiled;
mod generate;
mod refine;
mod split;
mod unknown;
mod vocabulary;

pub use compiled::BuildError;
pub(crate) use compiled::Schemas;

pub use generate::{folder, generate, generate_all, render, write_files};
pub(crate) use refine::refine_errors;
pub(crate) use unknown::{known_keys, unknown_field, Holder};
pub(crate) use vocabulary::is_protocol_word;
pub(crate) use vocabulary::recognises as vocabulary_recognises;
