//! Protocol facts the rules and the fast path share, kept in a leaf module
//! so that neither depends on the other for them.

/// The metadata key the protocol reserves for itself
/// (`spec/1.1/basic/metadata.mdx`).
pub(crate) const RESERVED_METADATA_KEY: &str = "ag-ui";
