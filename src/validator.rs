//! The validator: parse, tell the kind and the protocol version, check
//! against the version's compiled schema, locate what was found.

use std::sync::{Arc, LazyLock};

use memchr::memmem;
use serde_json::Value;

use crate::diagnostic::{Diagnostic, Location};
use crate::fast;
use crate::findings::{Capped, Findings};
use crate::locate::Anchors;
use crate::parse;
use crate::protocol::{Declaration, Protocol};
use crate::report::Report;
use crate::rules::receivers::Reading;
use crate::rules::sequence::total::Total;
use crate::rules::{self, version, Interrupted};
pub use crate::schema::BuildError;
use crate::schema::{self, Schemas};
use crate::settings::Settings;
use crate::types::RunAgentInput;
use crate::Kind;

mod by_message;
mod declared;
pub(crate) use declared::declared_by_run_started;
mod events;
mod full;
mod located;
mod noticed;
mod pruned;
mod schema_findings;

pub use events::EventStream;
pub(crate) use events::{StreamEvent, StreamVersions};
pub(crate) use full::Kept;
use full::{read_run_agent_input, Whole};
use located::locate_all;

use noticed::{Noted, Noticed};

/// Finds the key every RunAgentInput has, built once.
static THREAD_ID_KEY: LazyLock<memmem::Finder<'static>> =
    LazyLock::new(|| memmem::Finder::new(b"\"threadId\""));

/// Checks AG-UI documents. Compiles each kind's schema of each protocol
/// version once (all of them in [`Self::new`], each when a document first
/// needs it in [`Self::compiling_on_demand`]); build one and share it (it
/// is `Send + Sync`), for example across a server's requests. A clone
/// shares the compiled schemas, so a validator with other settings costs
/// nothing to make from one.
#[derive(Clone)]
pub struct Validator {
    /// Every kind's schema of every version, compiled once.
    schemas: Arc<Schemas>,
    /// By [`Protocol::index`]: what each event type may carry, read from
    /// the event schema, for reading events without a `Value`.
    event_shapes: Arc<Vec<fast::EventShapes>>,
    settings: Settings,
    /// What the states of the streams this validator and its clones follow
    /// take together ([`crate::Limits::total_state_limit`]).
    state_total: Arc<Total>,
}

/// A total of the streams' states for a validator of `settings`.
fn state_total(settings: &Settings) -> Arc<Total> {
    Total::new(settings.limits().total_state_limit() as u64)
}

impl Validator {
    /// Compiles the schemas of every kind of every protocol version, so
    /// that no document waits for one: what a server wants.
    pub fn new() -> Result<Self, BuildError> {
        let validator = Validator::compiling_on_demand();
        validator.schemas.compile_all()?;
        Ok(validator)
    }

    /// A validator that compiles each schema the first time a document
    /// needs it: quicker to build and smaller for a run that meets few
    /// kinds and versions, such as the CLI over a capture of events. Should
    /// one of agui-lint's own schemas not compile (which its tests rule
    /// out, and which [`Self::new`] returns as an error), a document that
    /// needs it gets a `schema-violation` error saying so.
    pub fn compiling_on_demand() -> Self {
        let event_shapes = Protocol::ALL
            .into_iter()
            .map(|protocol| {
                schema::generate(protocol, Kind::Event)
                    .map(|schema| fast::EventShapes::of_schema(&schema))
                    .unwrap_or_default()
            })
            .collect();
        let settings = Settings::default();
        Validator {
            schemas: Arc::new(Schemas::new()),
            event_shapes: Arc::new(event_shapes),
            state_total: state_total(&settings),
            settings,
        }
    }

    /// The validator with `settings` deciding which rules report and how
    /// seriously.
    #[must_use]
    pub fn with_settings(mut self, settings: Settings) -> Self {
        if settings.limits().total_state_limit() != self.settings.limits().total_state_limit() {
            self.state_total = state_total(&settings);
        }
        self.settings = settings;
        self
    }

    /// Checks `bytes` as a document of `kind`.
    pub fn validate(&self, kind: Kind, bytes: &[u8]) -> Report {
        self.check_bytes(Some(kind), bytes, None).0
    }

    /// Checks `bytes`, telling its kind from its shape ([`Kind::detect`]).
    /// A document whose kind cannot be told gets an `unknown-kind` error.
    pub fn validate_detected(&self, bytes: &[u8]) -> Report {
        self.check_bytes(None, bytes, None).0
    }

    /// Checks the `RunAgentInput` of a captured exchange that follows
    /// `previous`, how the exchange before it ended: a 1.x input's resume
    /// entries must answer that run's interrupts.
    pub(crate) fn validate_following(
        &self,
        bytes: &[u8],
        previous: Option<&Interrupted>,
    ) -> Report {
        let mut report = self.validate(Kind::RunAgentInput, bytes);
        let Some(previous) = previous.filter(|_| report.protocol().is_1x()) else {
            return report;
        };
        let Ok(value) = serde_json::from_slice::<Value>(bytes) else {
            return report;
        };
        let mut found = self.sink();
        rules::check_resume(&value, previous, &mut found);
        let mut diagnostics = found.finish();
        self.settings.apply(&mut diagnostics);
        if !diagnostics.is_empty() {
            let text = bytes.strip_prefix(b"\xef\xbb\xbf").unwrap_or(bytes);
            locate_all(text, true, None, &mut diagnostics);
            report.extend(diagnostics);
        }
        report
    }

    /// Checks an already parsed document of `kind`. Diagnostics carry no
    /// line and column, as there is no source text; repeated keys cannot be
    /// seen in a parsed value.
    pub fn validate_value(&self, kind: Kind, value: &Value) -> Report {
        let (reading, declaration) = self.judge_version(kind, value, None);
        let mut found = self.sink();
        if let Some(declaration) = declaration {
            found.push(declaration);
        }
        self.check_value(
            reading,
            kind,
            value,
            foldhash::HashSet::default(),
            &mut found,
        );
        self.report(Some(kind), found.finish())
            .with_protocol(reading.protocol)
    }

    /// A sink for one document's findings, within the settings' limit.
    fn sink(&self) -> Capped<'_, Settings> {
        Capped::new(&self.settings, self.settings.limits().max_findings)
    }

    /// For servers: the typed `RunAgentInput` when `bytes` is a valid one
    /// (warnings allowed), else the report saying why not.
    pub fn check_run_agent_input(&self, bytes: &[u8]) -> Result<RunAgentInput, Report> {
        self.check_run_agent_input_with_findings(bytes)
            .map(|(input, _)| input)
    }

    /// As [`Self::check_run_agent_input`], also handing back the findings
    /// that did not make the input invalid (warnings and infos), for a
    /// server to log or return.
    pub fn check_run_agent_input_with_findings(
        &self,
        bytes: &[u8],
    ) -> Result<(RunAgentInput, Vec<Diagnostic>), Report> {
        let (report, kept) = self.check_bytes(Some(Kind::RunAgentInput), bytes, None);
        if !report.is_valid() {
            return Err(report);
        }
        let protocol = report.protocol();
        let typed = match kept {
            // Read from the checked value, which holds a lone surrogate
            // escape as U+FFFD where serde's reader of the bytes refuses it.
            Kept::Value(value) => read_run_agent_input(protocol, value),
            // Checked a message at a time: parsed again, as the full path
            // would have.
            Kept::Parts => match parse::parse(bytes) {
                Ok(parsed) => read_run_agent_input(protocol, parsed.value),
                Err(_) => serde_json::from_slice(bytes),
            },
            // The fast path found the bytes clean without building a value.
            Kept::Nothing => serde_json::from_slice(bytes),
        };
        let findings = report.into_diagnostics();
        match typed {
            Ok(input) => Ok((input, findings)),
            Err(e) => {
                // The schema and the types are generated from one source,
                // so this is not expected; still a report, never a panic.
                let mut diagnostics = findings;
                diagnostics.push(crate::rules::SCHEMA_VIOLATION.diagnostic(
                    "",
                    format!("the document passed the schema but not the typed reader: {e}"),
                ));
                Err(self
                    .report(Some(Kind::RunAgentInput), diagnostics)
                    .with_protocol(protocol))
            }
        }
    }

    /// The report of findings made outside the validator (about a capture
    /// rather than a document in it), after the settings had their say.
    pub(crate) fn report_of(&self, diagnostics: Vec<Diagnostic>) -> Report {
        self.report(None, diagnostics)
    }

    /// The limits documents are checked within.
    pub fn limits(&self) -> crate::Limits {
        self.settings.limits()
    }

    /// The report of a document of `length` bytes, over the size limit,
    /// which was not read whole.
    pub(crate) fn oversized(&self, length: usize) -> Report {
        let limit = self.settings.limits().max_document_bytes;
        self.over_limit(
            "document",
            length,
            limit,
            "--max-document-size (max-document-bytes",
        )
    }

    /// The report of an HTTP Archive of `length` bytes, over the archive
    /// limit.
    pub(crate) fn oversized_archive(&self, length: usize) -> Report {
        let limits = self.settings.limits();
        let limit = limits.max_archive_bytes.max(limits.max_document_bytes);
        self.over_limit(
            "archive",
            length,
            limit,
            "--max-archive-size (max-archive-bytes",
        )
    }

    fn over_limit(&self, what: &str, length: usize, limit: usize, flag: &str) -> Report {
        let mut finding = crate::rules::DOCUMENT_TOO_LARGE
            .diagnostic("", {
                let bytes = |n: usize| crate::text::size(u64::try_from(n).unwrap_or(u64::MAX));
                let (shown, bound) = (bytes(length), bytes(limit));
                if shown == bound {
                    // Rounded alike (one byte over a round limit): the
                    // exact counts tell them apart.
                    format!(
                        "the {what} is {} bytes, over the limit of {} bytes",
                        crate::text::count(length),
                        crate::text::count(limit)
                    )
                } else {
                    format!("the {what} is {shown}, over the limit of {bound}")
                }
            })
            .with_help(format!(
                "it was not checked; raise the limit with {flag} under [limits]) if it is expected"
            ));
        finding.location = Some(Location { line: 1, column: 1 });
        self.report(None, vec![finding])
    }

    /// The report of `diagnostics` after the settings had their say,
    /// judged by the configured default version (callers that judged by
    /// another say so with [`Report::with_protocol`]).
    fn report(&self, kind: Option<Kind>, mut diagnostics: Vec<Diagnostic>) -> Report {
        self.settings.apply(&mut diagnostics);
        Report::new(kind, diagnostics).with_protocol(self.settings.default_protocol())
    }

    /// The settings the validator reports with.
    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    /// The version `value`, a document of `kind`, is judged by: the one it
    /// declares, else (for an event of a stream) the stream's, else the
    /// configured default; with the `unknown-protocol-version` finding
    /// when the declaration cannot be judged by.
    fn judge_version(
        &self,
        kind: Kind,
        value: &Value,
        stream_protocol: Option<Protocol>,
    ) -> (Reading, Option<Diagnostic>) {
        if let Some((pointer, text)) = version::declared(kind, value) {
            let declaration = Protocol::from_declaration(text);
            let reading = Reading::new(declaration.judged_as(), kind).declaring_newer(!matches!(
                declaration,
                Declaration::Known(_) | Declaration::Patched(_)
            ));
            // A request spelling its version with a patch is served in
            // silence by every official server: only a producer's, which
            // @ag-ui/client cannot interpret, is warned about.
            let silent =
                kind == Kind::RunAgentInput && matches!(declaration, Declaration::Patched(_));
            let finding = version::finding(pointer, text, declaration).filter(|_| !silent);
            return (reading, finding);
        }
        let fallback = match kind {
            Kind::Event | Kind::Events => stream_protocol,
            _ => None,
        };
        (
            Reading::new(
                fallback.unwrap_or_else(|| self.settings.default_protocol()),
                kind,
            ),
            None,
        )
    }

    /// The whole check of one source text; also hands back the parsed
    /// value, unless the fast path found a RunAgentInput clean without one.
    /// `stream_protocol` judges an event that declares no version.
    fn check_bytes(
        &self,
        kind: Option<Kind>,
        bytes: &[u8],
        stream_protocol: Option<Protocol>,
    ) -> (Report, Kept) {
        // A document the fast path finds clean as a RunAgentInput has
        // `threadId` and no `type`, so it is detected as one too. Of a
        // document of unknown kind, only one whose text holds `"threadId"`
        // is tried: most records of a capture are other events, and a
        // failed try costs them about a sixth of their check. (A key
        // written with escapes is left to the full path, which is always
        // right.)
        //
        // The fast path reads every version and chooses the one a document
        // is judged by as `judge_version` does: the one it declares, else
        // the configured default (a RunAgentInput is never judged by a
        // stream's version).
        // A client that flattens content is judged on the parsed messages
        // (`client-flattens-content`), which the fast path does not keep.
        let flattens = self.settings.client_profile().flattens_content();
        let worth_trying = !flattens
            && match kind {
                Some(kind) => kind == Kind::RunAgentInput,
                None => THREAD_ID_KEY.find(bytes).is_some(),
            };
        if worth_trying {
            let default = self.settings.default_protocol();
            let mut found = self.sink();
            let limits = self.settings.limits();
            let mut anchors = Anchors::new(bytes);
            if let Some(protocol) =
                fast::judge_run_agent_input(bytes, limits, default, &mut found, &mut anchors)
            {
                let mut diagnostics = found.finish();
                // What the fast path reads has no repeated key.
                if !diagnostics.is_empty() {
                    locate_all(bytes, false, Some(&anchors), &mut diagnostics);
                }
                let report = self
                    .report(Some(Kind::RunAgentInput), diagnostics)
                    .with_protocol(protocol);
                return (report, Kept::Nothing);
            }
        }
        self.check_bytes_fully(kind, bytes, stream_protocol, Whole::WhenSmall)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clean_1x_requests_build_no_value_and_read_typed() {
        use crate::{ProtocolChoice, Settings};
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("fixtures/1.0/run-agent-input/valid");
        let mut official = 0;
        for entry in std::fs::read_dir(dir).expect("the 1.0 fixtures") {
            let path = entry.expect("an entry").path();
            if !path.display().to_string().contains("official-client-") {
                continue;
            }
            let bytes = std::fs::read(&path).expect("a fixture");
            for default in Protocol::ALL {
                let validator = Validator::new()
                    .expect("validator")
                    .with_settings(Settings::default().protocol(ProtocolChoice::Version(default)));
                // The full path always hands back the value it parsed; the
                // fast path never builds one.
                let (report, kept) = validator.check_bytes(Some(Kind::RunAgentInput), &bytes, None);
                assert!(report.diagnostics().is_empty(), "{}", path.display());
                assert!(
                    matches!(kept, Kept::Nothing),
                    "{} built a Value",
                    path.display()
                );
                assert_eq!(report.protocol(), Protocol::V1_0, "{}", path.display());
                let (report, kept) = validator.check_bytes(None, &bytes, None);
                assert_eq!(report.kind(), Some(Kind::RunAgentInput));
                assert!(
                    matches!(kept, Kept::Nothing),
                    "{} detected built a Value",
                    path.display()
                );
                let typed = validator
                    .check_run_agent_input(&bytes)
                    .expect("a valid input");
                assert_eq!(typed.protocol_version.as_deref(), Some("1.0"));
                let full: RunAgentInput =
                    serde_json::from_slice(&bytes).expect("the 1.x type reads it");
                assert_eq!(typed, full);
            }
            official += 1;
        }
        assert!(official >= 3);
    }

    #[test]
    fn findings_of_the_rules_are_reported_from_the_structs_without_a_value() {
        // Each family finds something: an empty message id, a call whose
        // arguments break its tool's parameters, a tool name providers
        // refuse, empty user content and the reserved metadata key.
        let bytes = br#"{"threadId": "t", "runId": "r", "protocolVersion": "1.1",
            "tools": [{"name": "get weather", "description": "d",
                       "parameters": {"type": "object", "required": ["city"]}},
                      {"name": "f", "description": "d", "metadata": {"ag-ui": 1}}],
            "messages": [{"id": "", "role": "user", "content": ""},
                         {"id": "m2", "role": "assistant", "toolCalls": [{"id": "c1",
                          "type": "function",
                          "function": {"name": "get weather", "arguments": "{}"}}]}]}"#;
        let validator = Validator::new().expect("validator");
        let (report, kept) = validator.check_bytes(Some(Kind::RunAgentInput), bytes, None);
        assert!(matches!(kept, Kept::Nothing), "the full path built a Value");
        let mut rules: Vec<&str> = report.diagnostics().iter().map(|d| &*d.rule).collect();
        rules.sort_unstable();
        assert_eq!(
            rules,
            [
                crate::rules::content::CONTENT_EMPTY.name,
                crate::rules::messages::EMPTY_ID.name,
                crate::rules::request::METADATA_RESERVED_KEY.name,
                crate::rules::arguments::TOOL_ARGUMENTS_SCHEMA_MISMATCH.name,
                crate::rules::tools::names::TOOL_NAME_FORMAT.name
            ]
        );
        let full = validator.full_report(Some(Kind::RunAgentInput), bytes);
        assert_eq!(report.diagnostics(), full.diagnostics());
        assert!(report.diagnostics().iter().all(|d| d.location.is_some()));
    }

    #[test]
    fn a_run_that_declares_no_version_falls_back_to_the_streams_own() {
        let mut stream = EventStream::new();
        stream.assume_protocol(Protocol::V1_0);
        let undeclared = br#"{"type":"RUN_STARTED","threadId":"t","runId":"r1"}"#;
        let declared =
            br#"{"type":"RUN_STARTED","threadId":"t","runId":"r2","protocolVersion":"1.1"}"#;
        let content = br#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"x"}"#;
        let default = Protocol::V0;
        assert_eq!(stream.protocol_for(undeclared, default), Protocol::V1_0);
        assert_eq!(stream.protocol_for(content, default), Protocol::V1_0);
        assert_eq!(stream.protocol_for(declared, default), Protocol::V1_1);
        assert_eq!(stream.protocol_for(content, default), Protocol::V1_1);
        assert_eq!(stream.protocol_for(undeclared, default), Protocol::V1_0);
        assert_eq!(EventStream::new().protocol_for(content, default), default);
    }

    #[test]
    fn validator_is_send_and_sync() {
        fn assert_send_sync<T: Send + Sync>() {}
        assert_send_sync::<Validator>();
    }
}
