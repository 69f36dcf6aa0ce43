//! The shape of the table of the binary transport's messages and their
//! known fields (`known.rs`, generated from `proto/ag_ui.proto`), apart
//! from the walk that reads frames by it (`unknown.rs`), so that the two
//! depend on it and not on each other.

/// One message of the binary transport and its known fields.
#[derive(Debug)]
pub(crate) struct Message {
    /// The message's name in `proto/ag_ui.proto` (`ToolCall.Function`).
    pub(crate) name: &'static str,
    /// Its fields, by number.
    pub(crate) fields: &'static [Field],
}

/// A known field.
#[derive(Debug)]
pub(crate) struct Field {
    /// Its number on the wire.
    pub(crate) number: u32,
    /// Its name in `proto/ag_ui.proto`.
    pub(crate) name: &'static str,
    /// The message it holds (an index into the table), if it holds one.
    pub(crate) message: Option<usize>,
}
