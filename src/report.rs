//! The outcome of checking one document.

use serde::Serialize;

use crate::diagnostic::{Diagnostic, Severity};
use crate::{Kind, Location, Protocol};

/// Every diagnostic of one document, sorted by position, the kind it was
/// checked as and the protocol version that judged it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Report {
    kind: Option<Kind>,
    protocol: Protocol,
    diagnostics: Vec<Diagnostic>,
}

/// Places `diagnostic` and its related notes at `at`, a place in the file
/// rather than in a record (see [`Report::place_all_at`]).
pub(crate) fn place_at(diagnostic: &mut Diagnostic, at: Location) {
    diagnostic.location = Some(at);
    for related in &mut diagnostic.related {
        related.location = Some(at);
        related.record = None;
    }
}

impl Report {
    /// A report of `diagnostics` for a document of `kind` (`None` when the
    /// kind is unknown, for instance because the document is not JSON),
    /// judged by the newest protocol version ([`Self::with_protocol`] says
    /// otherwise).
    pub fn new(kind: Option<Kind>, mut diagnostics: Vec<Diagnostic>) -> Self {
        diagnostics.sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
        Report {
            kind,
            protocol: Protocol::NEWEST,
            diagnostics,
        }
    }

    /// The same report, judged by `protocol`.
    #[must_use]
    pub fn with_protocol(mut self, protocol: Protocol) -> Self {
        self.protocol = protocol;
        self
    }

    /// The kind the document was checked as.
    pub fn kind(&self) -> Option<Kind> {
        self.kind
    }

    /// The protocol version the document was judged by.
    pub fn protocol(&self) -> Protocol {
        self.protocol
    }

    /// Every diagnostic, in position order.
    pub fn diagnostics(&self) -> &[Diagnostic] {
        &self.diagnostics
    }

    /// Takes the diagnostics out of the report.
    pub fn into_diagnostics(self) -> Vec<Diagnostic> {
        self.diagnostics
    }

    /// Adds findings (such as the end of a stream's) and keeps the order.
    pub(crate) fn extend(&mut self, diagnostics: Vec<Diagnostic>) {
        self.diagnostics.extend(diagnostics);
        self.sort();
    }

    /// Rewrites every location (the finding's and its related notes') with
    /// `relocate`, then restores the order.
    pub(crate) fn relocate(&mut self, mut relocate: impl FnMut(&mut Diagnostic)) {
        for diagnostic in &mut self.diagnostics {
            relocate(diagnostic);
        }
        self.sort();
    }

    /// Drops every location (the findings' and their related notes'),
    /// keeping their order: for a source whose lines the user never sees.
    /// Places every finding and its related notes at `at`: for a document
    /// whose positions are its place (a binary frame), pointed at where
    /// the file (or the body) starts so that every format, line-based ones
    /// too, can show it.
    pub(crate) fn place_all_at(&mut self, at: Location) {
        for diagnostic in &mut self.diagnostics {
            place_at(diagnostic, at);
        }
    }

    pub(crate) fn forget_locations(&mut self) {
        for diagnostic in &mut self.diagnostics {
            diagnostic.location = None;
            for related in &mut diagnostic.related {
                related.location = None;
            }
        }
    }

    /// Keeps only the diagnostics `keep` says to, in their order.
    pub(crate) fn retain(&mut self, keep: impl FnMut(&Diagnostic) -> bool) {
        self.diagnostics.retain(keep);
    }

    fn sort(&mut self) {
        self.diagnostics
            .sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
    }

    /// `true` when no error is left (warnings and infos allowed).
    pub fn is_valid(&self) -> bool {
        self.count(Severity::Error) == 0
    }

    /// How many diagnostics have `severity`.
    pub fn count(&self, severity: Severity) -> usize {
        self.diagnostics
            .iter()
            .filter(|d| d.severity == severity)
            .count()
    }
}

impl Serialize for Protocol {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl Serialize for Kind {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

/// Reports name a version by its string (`1.1`, `1.0`, `0`).
impl schemars::JsonSchema for Protocol {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Protocol".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        let names: Vec<&str> = Protocol::ALL.iter().map(|p| p.as_str()).collect();
        schemars::json_schema!({
            "description": "The AG-UI version that judged the document.",
            "type": "string",
            "enum": names,
        })
    }
}

/// Reports name a kind by its `--kind` name (`run-agent-input`, `events`).
impl schemars::JsonSchema for Kind {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Kind".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        let names: Vec<&str> = Kind::ALL.iter().map(|k| k.as_str()).collect();
        schemars::json_schema!({
            "description": "What the document was checked as, by its `--kind` name.",
            "type": "string",
            "enum": names,
        })
    }
}
