//! The diagnostic model: what a finding says and where it points.
//!
//! Diagnostics are data; the renderers in the binary decide how they look.

use std::fmt;

use serde::{Deserialize, Serialize};

/// How serious a finding is.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    Serialize,
    Deserialize,
    schemars::JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// Worth knowing; never fails a check.
    Info,
    /// Likely a problem; fails a check only under `--strict`.
    Warning,
    /// The document is not valid AG-UI.
    Error,
}

impl Severity {
    /// The lowercase name used in every output format.
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Info => "info",
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }

    /// The severity of that name (`error`, `warning` or `info`), as
    /// configuration files, flags and the language bindings give it.
    pub fn from_name(name: &str) -> Option<Severity> {
        match name {
            "error" => Some(Severity::Error),
            "warning" => Some(Severity::Warning),
            "info" => Some(Severity::Info),
            _ => None,
        }
    }
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // `pad` so that width and alignment (`{:<8}`) apply.
        f.pad(self.as_str())
    }
}

/// Which part of the JSON node at a pointer a finding is about.
///
/// A misspelled key is best shown at the key itself; most other findings at
/// the value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Target {
    /// The value at the pointer.
    #[default]
    Value,
    /// The key whose value is at the pointer.
    Key,
    /// The `n`-th repetition (1-based) of the key at the pointer, for keys
    /// that occur more than once in one object.
    RepeatedKey(usize),
}

/// A 1-based line and column in the source text. Columns count Unicode
/// scalar values, as editors do.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Location {
    /// 1-based line number.
    pub line: usize,
    /// 1-based column number.
    pub column: usize,
}

/// Another place involved in a finding, such as the earlier duplicate.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Related {
    /// JSON pointer of the other place.
    pub pointer: String,
    /// What the other place has to do with the finding.
    pub message: String,
    /// The record holding the other place, when it is another document of
    /// the same file (an earlier event of a JSON Lines stream); its
    /// `pointer` and `location` are then within that record.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub record: Option<usize>,
    /// Where the other place is in the source text, when known.
    #[serde(flatten, with = "optional_location")]
    #[schemars(with = "optional_location::Flat")]
    pub location: Option<Location>,
    /// Which part of the node the location is about.
    #[serde(skip)]
    #[schemars(skip)]
    pub target: Target,
}

/// One finding in one document.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Diagnostic {
    /// The rule's stable kebab-case name, e.g. `tool-result-without-call`.
    pub rule: String,
    /// How serious the finding is.
    pub severity: Severity,
    /// One sentence saying what is wrong, quoting the key or value involved.
    pub message: String,
    /// JSON pointer (RFC 6901) to the offending node; `""` is the root.
    pub pointer: String,
    /// Where the node is in the source text; absent when the document was
    /// given as a parsed value.
    #[serde(flatten, with = "optional_location")]
    #[schemars(with = "optional_location::Flat")]
    pub location: Option<Location>,
    /// Advice on how to fix it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub help: Option<String>,
    /// Other places involved.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub related: Vec<Related>,
    /// Which part of the node the location is about.
    #[serde(skip)]
    #[schemars(skip)]
    pub target: Target,
}

impl Diagnostic {
    /// A diagnostic for `rule` at `pointer`, not yet located.
    pub fn new(
        rule: impl Into<String>,
        severity: Severity,
        pointer: impl Into<String>,
        message: impl Into<String>,
    ) -> Self {
        Diagnostic {
            rule: rule.into(),
            severity,
            message: message.into(),
            pointer: pointer.into(),
            location: None,
            help: None,
            related: Vec::new(),
            target: Target::Value,
        }
    }

    /// Adds advice on how to fix the finding.
    #[must_use]
    pub fn with_help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }

    /// Points the location at the key rather than the value.
    #[must_use]
    pub fn at(mut self, target: Target) -> Self {
        self.target = target;
        self
    }

    /// The finding with the related note `related` added.
    pub(crate) fn with_note(mut self, related: Related) -> Self {
        self.related.push(related);
        self
    }

    /// Adds another place involved in the finding.
    #[must_use]
    pub fn with_related(mut self, pointer: impl Into<String>, message: impl Into<String>) -> Self {
        self.related.push(Related {
            pointer: pointer.into(),
            message: message.into(),
            record: None,
            location: None,
            target: Target::Value,
        });
        self
    }

    /// The deterministic order of findings within a document: by position,
    /// then rule, then pointer and message.
    pub fn sort_key(&self) -> (Option<Location>, &str, &str, &str) {
        (self.location, &self.rule, &self.pointer, &self.message)
    }
}

/// (De)serializes an optional [`Location`] as the two flat keys `line` and
/// `column`, `null` when unknown, as the README's `--format json` shows them.
/// The schema of a key reports always write, as `T` or `null`.
pub(crate) fn nullable<T: schemars::JsonSchema>(
    generator: &mut schemars::SchemaGenerator,
) -> schemars::Schema {
    let inner = generator.subschema_for::<T>();
    schemars::json_schema!({ "anyOf": [inner, { "type": "null" }] })
}

mod optional_location {
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    use super::Location;

    /// A location as reports write it: both numbers, or both `null`.
    #[derive(Serialize, Deserialize, schemars::JsonSchema)]
    pub(super) struct Flat {
        /// 1-based line in the document (in a JSON Lines capture, in its
        /// record); `null` when the place is not in the source text.
        #[schemars(required, schema_with = "super::nullable::<usize>")]
        line: Option<usize>,
        /// 1-based column, in Unicode code points; `null` with `line`.
        #[schemars(required, schema_with = "super::nullable::<usize>")]
        column: Option<usize>,
    }

    pub fn serialize<S: Serializer>(value: &Option<Location>, s: S) -> Result<S::Ok, S::Error> {
        Flat {
            line: value.map(|l| l.line),
            column: value.map(|l| l.column),
        }
        .serialize(s)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Location>, D::Error> {
        let flat = Flat::deserialize(d)?;
        Ok(match (flat.line, flat.column) {
            (Some(line), Some(column)) => Some(Location { line, column }),
            _ => None,
        })
    }
}
