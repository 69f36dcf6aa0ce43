//! The full (explaining) path: a document parsed into a `Value`, checked
//! against its version's schema and every rule, each finding located.

use serde_json::Value;

use super::by_message;
use super::located::locate_all;
use super::noticed::{Noted, Noticed};
use super::pruned;
use super::schema_findings::{out_bound, SchemaFindings};
use super::Validator;
use crate::diagnostic::Diagnostic;
use crate::encoding;
use crate::fast;
use crate::findings::{Capped, Findings};
use crate::limits::{self, PARSER_DEPTH};
use crate::locate;
use crate::parse;
use crate::protocol::Protocol;
use crate::report::Report;
use crate::rules;
use crate::rules::receivers::Reading;
use crate::settings::Settings;
use crate::types::RunAgentInput;
use crate::Kind;

impl Validator {
    /// Whether the fast path reads `bytes`, a record of a stream judged by
    /// `protocol`, as a clean event.
    pub(crate) fn reads_clean_event(&self, bytes: &[u8], protocol: Protocol) -> bool {
        let shapes = &self.event_shapes[protocol.index()];
        let limits = self.settings.limits();
        fast::read_clean_event(shapes, bytes, limits, protocol).is_some()
            || fast::read_clean_messages_snapshot(shapes, bytes, limits, protocol).is_some()
    }

    /// The full path's report on `bytes`, a record of a stream judged by
    /// `protocol` (its own findings, not the sequence's).
    pub(crate) fn full_record_report(&self, bytes: &[u8], protocol: Protocol) -> Report {
        self.check_bytes_fully(None, bytes, Some(protocol), Whole::WhenSmall)
            .0
    }

    /// The report of the full path alone (`Value`, schema, every rule),
    /// which the fast path must agree with.
    pub(crate) fn full_report(&self, kind: Option<Kind>, bytes: &[u8]) -> Report {
        self.check_bytes_fully(kind, bytes, None, Whole::WhenSmall)
            .0
    }

    /// The report of the full path on `bytes` as a RunAgentInput, parsed
    /// whole (`whole`) or a message at a time whatever its size; `None`
    /// when it cannot be parsed a message at a time.
    pub(crate) fn full_report_as(&self, bytes: &[u8], whole: bool) -> Option<Report> {
        let how = if whole { Whole::Always } else { Whole::Never };
        let (report, kept) = self.check_bytes_fully(Some(Kind::RunAgentInput), bytes, None, how);
        (whole || matches!(kept, Kept::Parts)).then_some(report)
    }

    /// The full path: parse into a `Value`, check the schema and every
    /// rule, locate what was found.
    pub(super) fn check_bytes_fully(
        &self,
        kind: Option<Kind>,
        bytes: &[u8],
        stream_protocol: Option<Protocol>,
        whole: Whole,
    ) -> (Report, Kept) {
        self.check_bytes_at(kind, bytes, stream_protocol, whole, Depth::Parser)
    }

    /// [`Self::check_bytes_fully`], parsing within `depth`.
    fn check_bytes_at(
        &self,
        kind: Option<Kind>,
        bytes: &[u8],
        stream_protocol: Option<Protocol>,
        whole: Whole,
        depth: Depth,
    ) -> (Report, Kept) {
        // Until the document is read, it is judged as an event of its
        // stream would be, else by the configured default.
        let unread = stream_protocol
            .filter(|_| kind.is_none_or(|k| matches!(k, Kind::Event | Kind::Events)))
            .unwrap_or_else(|| self.settings.default_protocol());
        let limits = self.settings.limits();
        if bytes.len() > limits.max_document_bytes {
            return (self.oversized(bytes.len()), Kept::Nothing);
        }
        let (mut early, readable) = encoding::examine(bytes);
        let Some(bytes) = readable else {
            return (
                self.report(None, early).with_protocol(unread),
                Kept::Nothing,
            );
        };
        if limits.max_depth < PARSER_DEPTH {
            if let Some(found) = over_depth(bytes, limits.max_depth) {
                early.extend(found);
                return (
                    self.report(None, early).with_protocol(unread),
                    Kept::Nothing,
                );
            }
        }
        let apart = match whole {
            Whole::Always => false,
            Whole::WhenSmall => bytes.len() >= by_message::FROM,
            Whole::Never => true,
        };
        if apart {
            if let Some(report) = by_message::check(self, kind, bytes, &mut early) {
                return (report, Kept::Parts);
            }
        }
        let keep = parse::Limit {
            keep: limits.max_findings,
        };
        let prune = pruned::members(bytes);
        let unbounded = depth == Depth::Grown;
        let parsed = parse::parse_pruning_to(bytes, keep, &prune.keys, prune.depth, unbounded);
        let (value, noted) = match parsed {
            Ok(parsed) => Noted::of(parsed),
            Err(error) => {
                let offset = locate::offset_of_line_column(bytes, error.line, error.byte_column);
                if error.message == "recursion limit exceeded" {
                    // Deeper than the parser goes on this stack: within
                    // agui-lint's limit, the whole check runs again on a
                    // stack grown for it (parsing, the schema and the rules
                    // recurse as the document nests); past it, the limit
                    // is the finding.
                    if let Some(found) = over_depth(bytes, limits.max_depth) {
                        early.extend(found);
                        return (
                            self.report(None, early).with_protocol(unread),
                            Kept::Nothing,
                        );
                    }
                    if depth == Depth::Parser {
                        return stacker::grow(DEEP_STACK_BYTES, || {
                            self.check_bytes_at(kind, bytes, stream_protocol, whole, Depth::Grown)
                        });
                    }
                }
                let message = if bytes.iter().all(u8::is_ascii_whitespace) {
                    "the document is empty".to_string()
                } else if bytes.get(offset) == Some(&0) {
                    "invalid JSON: a NUL byte".to_string()
                } else {
                    format!("invalid JSON: {}", plain_syntax_message(&error.message))
                };
                let mut diagnostic = crate::rules::INVALID_JSON.diagnostic("", message);
                if error.message == "trailing characters" {
                    diagnostic = diagnostic.with_help(
                        "one document per file; a file with one JSON document per line \
                         is read as JSON Lines when named *.jsonl or *.ndjson",
                    );
                }
                diagnostic.location = Some(locate::location_at(bytes, offset));
                early.push(diagnostic);
                return (
                    self.report(kind, early).with_protocol(unread),
                    Kept::Nothing,
                );
            }
        };
        let mut found = self.sink();
        for diagnostic in early {
            found.push(diagnostic);
        }
        let mut noticed = Noticed::default();
        noticed.report(bytes, "", &|offset| offset, noted, &mut found);
        let mut protocol = unread;
        let kind = match kind.map_or_else(|| Kind::detect(&value), Ok) {
            Ok(kind) => {
                let (reading, declaration) = self.judge_version(kind, &value, stream_protocol);
                protocol = reading.protocol;
                if let Some(declaration) = declaration {
                    found.push(declaration);
                }
                let bounded = std::mem::take(&mut noticed.skip_numbers);
                self.check_value(reading, kind, &value, bounded, &mut found);
                Some(kind)
            }
            Err(undetected) => {
                let closest: Vec<String> = undetected
                    .closest
                    .iter()
                    .map(|k| format!("'{k}'"))
                    .collect();
                let help = if closest.is_empty() {
                    "pass --kind to say what the document is".to_string()
                } else {
                    format!(
                        "closest: {}; pass --kind to say what the document is",
                        closest.join(", ")
                    )
                };
                found.push(
                    crate::rules::UNKNOWN_KIND
                        .diagnostic("", "cannot tell which kind of AG-UI document this is")
                        .with_help(help),
                );
                None
            }
        };
        let mut diagnostics = found.finish();
        // Only a document deeper than the parser's limit can be deeper than
        // pydantic's: the scan runs for those alone.
        if depth == Depth::Grown && kind == Some(Kind::RunAgentInput) {
            diagnostics.extend(refused_by_servers(bytes));
        }
        if !diagnostics.is_empty() {
            let located = noticed.located_text(bytes);
            locate_all(&located, noticed.keys_repeat, None, &mut diagnostics);
        }
        // A request whose state was pruned is not the request: a typed
        // read parses it again (an event's pruned members are read by no
        // rule of the stream).
        let kept = if !prune.keys.is_empty() && !matches!(kind, Some(Kind::Event | Kind::Events)) {
            Kept::Parts
        } else {
            Kept::Value(value)
        };
        (self.report(kind, diagnostics).with_protocol(protocol), kept)
    }

    /// Schema and rule check of a parsed value (no locations), into `out`;
    /// numbers at the pointers `bounded` holds are already reported.
    pub(super) fn check_value(
        &self,
        reading: Reading,
        kind: Kind,
        value: &Value,
        mut bounded: foldhash::HashSet<String>,
        out: &mut Capped<'_, Settings>,
    ) {
        let protocol = reading.protocol;
        let compiled = match self.schemas.get(protocol, kind) {
            Ok(Some(compiled)) => compiled,
            Ok(None) => return out.push(
                crate::rules::UNKNOWN_KIND
                    .diagnostic("", format!("AG-UI {protocol} has no '{kind}' documents"))
                    .with_help(
                        "pass --protocol with a version that has them, or declare protocolVersion",
                    ),
            ),
            Err(error) => {
                return out.push(
                    crate::rules::SCHEMA_VIOLATION
                        .diagnostic("", error.to_string())
                        .with_help(
                            "this is a bug in agui-lint, not in the document; please report it",
                        ),
                )
            }
        };
        // A number the 1.x schema bounds (a timestamp, a token count) beyond
        // ±(2^53 − 1) is the schema's error; the interoperability warning
        // would say it a second time. The pointers of the schema's other
        // findings are kept for that, up to a bound (past it, such a
        // number may be counted twice in `too-many-findings`).
        if !compiled.validator.is_valid(value) {
            let mut noting = SchemaFindings {
                inner: &mut *out,
                bounded: &mut bounded,
                bound: out_bound(self.settings.limits().max_findings),
            };
            compiled.check(value, reading, &mut noting);
        }
        rules::check(
            kind,
            protocol,
            value,
            self.settings.limits(),
            &|pointer| bounded.contains(pointer),
            out,
        );
        let client = self.settings.client_profile();
        match (kind, value) {
            (Kind::RunAgentInput, _) => rules::client::request(client, value, out),
            (Kind::Events, Value::Array(events)) => {
                for (i, event) in events.iter().enumerate() {
                    let at = format!("/{i}");
                    rules::client::event(client, event.into(), &at, None, out);
                }
            }
            _ => {}
        }
    }
}

/// What a check hands back of the document besides its report.
pub(crate) enum Kept {
    /// Nothing: the fast path read the bytes without a value (a typed
    /// read takes them as they are), or nothing was read.
    Nothing,
    /// Nothing: the full path parsed the document a message at a time.
    Parts,
    /// The value the full path parsed.
    Value(Value),
}

impl Kept {
    /// The value, when one was kept.
    pub(super) fn value(self) -> Option<Value> {
        match self {
            Kept::Value(value) => Some(value),
            Kept::Nothing | Kept::Parts => None,
        }
    }
}

/// Whether the full path parses a RunAgentInput whole or a message at a
/// time ([`by_message`]).
#[derive(Clone, Copy)]
pub(super) enum Whole {
    /// Whole, whatever its size.
    Always,
    /// Whole when it is smaller than [`by_message::FROM`].
    WhenSmall,
    /// A message at a time whenever it can be.
    Never,
}

/// The typed input of a RunAgentInput judged by `protocol`. A pre-1.0
/// document is read through the pre-1.0 types first, which drop what
/// pre-1.0 does not define (an unknown `resume` of another shape, say), as
/// a pre-1.0 receiver strips unknown keys; every pre-1.0 input then reads
/// as a 1.x one.
pub(super) fn read_run_agent_input(
    protocol: Protocol,
    value: Value,
) -> serde_json::Result<RunAgentInput> {
    if protocol == Protocol::V0 {
        let stripped: crate::types::v0::RunAgentInput = serde_json::from_value(value)?;
        return serde_json::from_value(serde_json::to_value(stripped)?);
    }
    serde_json::from_value(value)
}

/// serde_json's wording where it speaks of its own grammar: "ident" is
/// its name for `true`, `false` and `null`, which is what it was trying to
/// read when a document starts with a stray word.
pub(super) fn plain_syntax_message(message: &str) -> &str {
    match message {
        "expected ident" => {
            "expected a value (an object, array, string, number, true, false or null)"
        }
        other => other,
    }
}

/// The deepest a request nests that pydantic (ag-ui-protocol's
/// `RunAgentInput.model_validate_json`) parses, the document counted.
const PYDANTIC_DEPTH: usize = 200;

/// The `nesting-refused-by-servers` finding of a request nested deeper
/// than [`PYDANTIC_DEPTH`], at the first value too deep.
fn refused_by_servers(bytes: &[u8]) -> Option<Diagnostic> {
    let offset = limits::nesting(bytes, PYDANTIC_DEPTH).too_deep_at?;
    let mut finding = crate::rules::NESTING_REFUSED_BY_SERVERS
        .diagnostic(
            "",
            format!(
                "the request nests more than {PYDANTIC_DEPTH} levels deep here: ag-ui-protocol's pydantic refuses it as invalid JSON (recursion limit exceeded), so Python servers answer 422; zod and JSON.parse accept it"
            ),
        )
        .with_help("flatten the structure, or send the deep part as a JSON string");
    finding.location = Some(locate::location_at(bytes, offset));
    Some(finding)
}

/// How deep the full path parses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Depth {
    /// Within serde_json's recursion limit, on the caller's stack.
    Parser,
    /// Within [`crate::Limits::max_depth`], on a stack grown for it.
    Grown,
}

/// The stack a document nested deeper than the parser's limit is checked
/// on: room for [`crate::MAX_DEPTH_CAP`] levels of parsing, schema
/// validation and rules (`tests/hostile.rs` checks the cap), reserved
/// only for such a document and touched as deep as it goes.
pub(super) const DEEP_STACK_BYTES: usize = 256 * 1024 * 1024;

/// The findings of `bytes` nesting deeper than `limit`, if they do
/// ([`too_deep`]): a scan that does not recurse.
fn over_depth(bytes: &[u8], limit: usize) -> Option<Vec<Diagnostic>> {
    let nesting = limits::nesting(bytes, limit);
    let offset = nesting.too_deep_at?;
    Some(too_deep(bytes, offset, limit, nesting.open_at_end))
}

/// A `nesting-too-deep` finding at the value starting at `offset`, and,
/// when `open` arrays and objects are never closed, the `invalid-json`
/// finding that the text is cut short (which no depth limit hides).
pub(super) fn too_deep(bytes: &[u8], offset: usize, limit: usize, open: usize) -> Vec<Diagnostic> {
    let mut finding = crate::rules::NESTING_TOO_DEEP
        .diagnostic(
            "",
            format!(
                "arrays and objects nest more than {limit} levels deep here: agui-lint's own limit (--max-depth), not the protocol's"
            ),
        )
        .with_help(format!(
            "the document was not checked further; JSON.parse and zod accept deeper documents, pydantic refuses past about 200 levels; raise --max-depth (at most {}) to check it",
            crate::limits::MAX_DEPTH_CAP
        ));
    finding.location = Some(locate::location_at(bytes, offset));
    let mut findings = vec![finding];
    if open > 0 {
        let mut cut = crate::rules::INVALID_JSON.diagnostic(
            "",
            format!("invalid JSON: the text ends with {open} arrays or objects still open"),
        );
        cut.location = Some(locate::location_at(bytes, bytes.len()));
        findings.push(cut);
    }
    findings
}
