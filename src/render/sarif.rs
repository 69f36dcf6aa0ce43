//! `--format sarif`: SARIF 2.1.0 for code-scanning upload (GitHub code
//! scanning, Azure DevOps, IDE viewers).
//!
//! `tool.driver.rules` holds the rules the results reference, in the order
//! first referenced, each with its summary, the first section of its docs
//! and a `helpUri` to its page: the log stays proportional to its findings.
//! Results point at 1-based regions of the files as
//! given, relative paths resolved against `%SRCROOT%` (the working
//! directory). Columns count Unicode code points, as our locations do, and
//! the run says so in `columnKind`.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::io;
use std::path::Path;

use percent_encoding::{utf8_percent_encode, AsciiSet, CONTROLS};
use serde::Serialize;
use serde_json::json;
use serde_sarif::sarif::{
    ArtifactLocation, Invocation, Location as SarifLocation, Message, MultiformatMessageString,
    Notification, PhysicalLocation, ReportingConfiguration, ReportingDescriptor,
    Result as SarifResult, Run, Sarif as Sarif21, Tool, ToolComponent,
};

use super::pieces::{Elements, Splice, Spool};
use super::{pointer_text, Emit, Tally};
use crate::check::{Checked, Failure};
use crate::{rules, Diagnostic, Location, Severity};

/// The base id relative paths are resolved against.
const SRCROOT: &str = "%SRCROOT%";

/// Characters a relative path must escape to be a URI reference; `/` stays.
const PATH_ESCAPES: &AsciiSet = &CONTROLS
    .add(b' ')
    .add(b'"')
    .add(b'#')
    .add(b'%')
    .add(b'<')
    .add(b'>')
    .add(b'?')
    .add(b'[')
    .add(b'\\')
    .add(b']')
    .add(b'^')
    .add(b'`')
    .add(b'{')
    .add(b'|')
    .add(b'}');

/// The SARIF log, pretty-printed, with a trailing newline. The log's
/// invocation, which tells of the unreadable files, comes before its
/// results, so the results are spooled as their documents arrive and
/// written into the log at the end.
pub(super) struct Sarif {
    results: Spool,
    elements: Option<Elements>,
    /// The rules the results reference, in the order first referenced:
    /// `ruleIndex` indexes it.
    referenced: Vec<&'static rules::Rule>,
}

impl Sarif {
    pub(super) fn new() -> Self {
        Sarif {
            results: Spool::default(),
            elements: None,
            referenced: Vec::new(),
        }
    }

    /// The index of `rule` among the referenced rules, adding it when it
    /// is first referenced; `None` for a name the registry does not hold.
    fn rule_index(&mut self, rule: &str) -> Option<usize> {
        if let Some(index) = self.referenced.iter().position(|r| r.name == rule) {
            return Some(index);
        }
        let registered = rules::all().iter().find(|r| r.name == rule)?;
        self.referenced.push(registered);
        Some(self.referenced.len() - 1)
    }
}

impl Emit for Sarif {
    fn begin(&mut self, _: &mut dyn io::Write) -> io::Result<()> {
        // The results' depth in the log, which depends neither on its end
        // nor on the rules (whose serialization is most of the log's).
        self.elements = Some(skeleton(&[], &[])?.elements());
        Ok(())
    }

    fn document(&mut self, _: &mut dyn io::Write, document: &Checked) -> io::Result<()> {
        if self.elements.is_none() {
            return Err(io::Error::other("a document before the log began"));
        }
        let parts = DocumentParts::of(document);
        for d in document.report.diagnostics() {
            let index = self.rule_index(&d.rule);
            if let Some(elements) = &mut self.elements {
                elements.write(&mut self.results, &result(document, &parts, d, index))?;
            }
        }
        Ok(())
    }

    fn finish(
        &mut self,
        out: &mut dyn io::Write,
        _: &Tally,
        failures: &[Failure],
    ) -> io::Result<()> {
        let log = skeleton(failures, &self.referenced)?;
        out.write_all(log.head.as_bytes())?;
        self.results.drain_to(out)?;
        if let Some(elements) = &self.elements {
            elements.close(out)?;
        }
        out.write_all(log.tail.as_bytes())?;
        out.write_all(b"\n")
    }

    #[cfg(test)]
    fn held(&self) -> usize {
        self.results.held()
    }
}

/// The log with no result, cut open at its `results` array, describing
/// `rules`.
fn skeleton(failures: &[Failure], rules: &[&rules::Rule]) -> io::Result<Splice> {
    let log = log(failures, rules);
    let text = serde_json::to_string_pretty(&log).map_err(io::Error::from)?;
    Splice::new(&text, "results")
}

/// The SARIF log with an empty `results` array.
fn log(failures: &[Failure], rules: &[&rules::Rule]) -> Sarif21 {
    let descriptors: Vec<ReportingDescriptor> = rules.iter().map(|r| descriptor(r)).collect();
    let driver = ToolComponent::builder()
        .name("agui-lint")
        .version(env!("CARGO_PKG_VERSION"))
        .information_uri("https://docs.ag-ui.com/")
        .rules(descriptors)
        .build();
    let notifications: Vec<Notification> = failures
        .iter()
        .map(|failure| {
            let mut notification = Notification::builder()
                .message(Message::from(failure.message.as_str()))
                .level(json!("error"))
                .build();
            notification.locations = artifact(&failure.path).map(|artifact| {
                vec![SarifLocation::builder()
                    .physical_location(
                        PhysicalLocation::builder()
                            .artifact_location(artifact)
                            .build(),
                    )
                    .build()]
            });
            notification
        })
        .collect();
    let mut invocation = Invocation::builder()
        .execution_successful(failures.is_empty())
        .build();
    if !notifications.is_empty() {
        invocation.tool_execution_notifications = Some(notifications);
    }
    let mut run = Run::builder()
        .tool(Tool::from(driver))
        .results(Vec::<SarifResult>::new())
        .invocations(vec![invocation])
        .column_kind(json!("unicodeCodePoints"))
        .build();
    if let Some(root) = working_directory_uri() {
        let base = ArtifactLocation::builder().uri(root).build();
        run.original_uri_base_ids = Some(BTreeMap::from([(SRCROOT.to_string(), base)]));
    }
    Sarif21::builder()
        .schema("https://json.schemastore.org/sarif-2.1.0.json")
        .version(json!("2.1.0"))
        .runs(vec![run])
        .build()
}

fn descriptor(rule: &rules::Rule) -> ReportingDescriptor {
    ReportingDescriptor::builder()
        .id(rule.name)
        .name(rule.name)
        .short_description(
            MultiformatMessageString::builder()
                .text(rule.summary)
                .build(),
        )
        .full_description(
            MultiformatMessageString::builder()
                .text(full_description(rule))
                .build(),
        )
        .help_uri(rules::docs_url(rule.name))
        .default_configuration(
            ReportingConfiguration::builder()
                .level(json!(level(rule.severity)))
                .build(),
        )
        .build()
}

/// What the rule checks, and, for a rule whose severity depends on the
/// version a document speaks, its severity in each (the default
/// configuration's level is its pre-1.0 one; each result has its own).
fn full_description(rule: &rules::Rule) -> String {
    let what = first_section(rule.docs).unwrap_or_else(|| rule.summary.to_string());
    match rule.severity_1x {
        Some(_) => format!("{what} Severity: {}.", rule.severity_text()),
        None => what,
    }
}

/// The first paragraph under the docs' first heading ("What it checks"),
/// on one line.
fn first_section(docs: &str) -> Option<String> {
    let body = docs.split_once('\n').map(|(_, rest)| rest)?;
    let paragraph: Vec<&str> = body
        .lines()
        .take_while(|line| !line.trim().is_empty() && !line.starts_with('#'))
        .collect();
    (!paragraph.is_empty()).then(|| paragraph.join(" "))
}

/// One result as the log writes it: the fields of SARIF's `result` that
/// agui-lint fills, borrowed from the finding and serialized straight into
/// the log (a `serde_sarif` tree per result cost a fifth of a SARIF run
/// with a finding on every line). Keys in the order `serde_sarif` writes
/// them, alphabetical, so the log is what it was byte for byte.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ResultOut<'a> {
    level: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    locations: Option<[LocationOut<'a>; 1]>,
    message: Text<'a>,
    /// Which AG-UI version judged the document, for tools that group by it.
    properties: Properties,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    related_locations: Vec<LocationOut<'a>>,
    rule_id: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    rule_index: Option<usize>,
}

/// SARIF's `message`.
#[derive(Serialize)]
struct Text<'a> {
    text: Cow<'a, str>,
}

/// A result's `properties`.
#[derive(Serialize)]
struct Properties {
    protocol: &'static str,
}

/// SARIF's `location`.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct LocationOut<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    id: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    logical_locations: Option<[Logical<'a>; 1]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    message: Option<Text<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    physical_location: Option<Physical<'a>>,
}

/// SARIF's `logicalLocation`: the capture's place.
#[derive(Serialize)]
struct Logical<'a> {
    kind: &'static str,
    name: &'a str,
}

/// SARIF's `physicalLocation`.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Physical<'a> {
    artifact_location: &'a ArtifactOut,
    #[serde(skip_serializing_if = "Option::is_none")]
    region: Option<RegionOut>,
}

/// SARIF's `artifactLocation`, made once per document.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ArtifactOut {
    uri: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    uri_base_id: Option<&'static str>,
}

/// SARIF's `region`: 1-based, columns in code points.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct RegionOut {
    start_column: usize,
    start_line: usize,
}

/// What every result of one document shares: its file and its place.
struct DocumentParts {
    artifact: Option<ArtifactOut>,
    place: Option<String>,
    protocol: &'static str,
}

impl DocumentParts {
    fn of(document: &Checked) -> Self {
        DocumentParts {
            artifact: artifact_uri(&document.path),
            place: document.place(),
            protocol: document.report.protocol().as_str(),
        }
    }

    /// A location in the document's file at `position` (a file position),
    /// or `None` for standard input (there is no file to point at).
    fn location<'a>(
        &'a self,
        position: Option<Location>,
        message: Option<Cow<'a, str>>,
    ) -> Option<LocationOut<'a>> {
        let artifact = self.artifact.as_ref()?;
        Some(LocationOut {
            id: None,
            logical_locations: None,
            message: message.map(|text| Text { text }),
            physical_location: Some(Physical {
                artifact_location: artifact,
                region: position.map(|position| RegionOut {
                    start_column: position.column,
                    start_line: position.line,
                }),
            }),
        })
    }
}

fn result<'a>(
    document: &Checked,
    parts: &'a DocumentParts,
    d: &'a Diagnostic,
    index: Option<usize>,
) -> ResultOut<'a> {
    let text = match &d.help {
        Some(help) => Cow::Owned(format!("{}\nhelp: {help}", d.message)),
        None => Cow::Borrowed(d.message.as_str()),
    };
    let pointer_message = match &parts.place {
        Some(place) => format!("{} in {place}", pointer_text(&d.pointer)),
        None => pointer_text(&d.pointer).to_string(),
    };
    let position = d.location.map(|l| document.file_location(l));
    let mut found_at = parts.location(position, Some(Cow::Owned(pointer_message)));
    // The capture's place (HAR entry with method and URL, response event,
    // record) as a logical location too, so that it survives where there
    // is no file to point at (standard input).
    if let Some(place) = &parts.place {
        let at = found_at.get_or_insert(LocationOut {
            id: None,
            logical_locations: None,
            message: None,
            physical_location: None,
        });
        at.logical_locations = Some([Logical {
            kind: "element",
            name: place,
        }]);
    }
    let related_locations = d
        .related
        .iter()
        .enumerate()
        .filter_map(|(id, related)| {
            let mut location = parts.location(
                document.related_file_location(related),
                Some(Cow::Owned(super::related_text(related, None))),
            )?;
            location.id = Some(id);
            Some(location)
        })
        .collect();
    ResultOut {
        level: level(d.severity),
        locations: found_at.map(|at| [at]),
        message: Text { text },
        properties: Properties {
            protocol: parts.protocol,
        },
        related_locations,
        rule_id: &d.rule,
        rule_index: index,
    }
}

/// The artifact location of a path as shown in reports: a relative URI
/// against `%SRCROOT%`, or a `file:` URI for an absolute path; `None` for
/// standard input.
fn artifact_uri(path: &str) -> Option<ArtifactOut> {
    if path == "-" {
        return None;
    }
    let as_path = Path::new(path);
    if as_path.is_absolute() {
        let uri = url::Url::from_file_path(as_path).ok()?;
        return Some(ArtifactOut {
            uri: uri.to_string(),
            uri_base_id: None,
        });
    }
    let relative = path.replace('\\', "/");
    let relative = relative.strip_prefix("./").unwrap_or(&relative);
    Some(ArtifactOut {
        uri: utf8_percent_encode(relative, PATH_ESCAPES).to_string(),
        uri_base_id: Some(SRCROOT),
    })
}

/// [`artifact_uri`] as `serde_sarif`'s type, for the log's notifications.
fn artifact(path: &str) -> Option<ArtifactLocation> {
    let out = artifact_uri(path)?;
    let mut location = ArtifactLocation::builder().uri(out.uri).build();
    location.uri_base_id = out.uri_base_id.map(str::to_string);
    Some(location)
}

fn working_directory_uri() -> Option<String> {
    let dir = std::env::current_dir().ok()?;
    url::Url::from_directory_path(dir).ok().map(String::from)
}

fn level(severity: Severity) -> &'static str {
    match severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Info => "note",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_paths_are_escaped_uri_references() {
        let location = artifact("./payloads/a b#1.json").expect("artifact");
        assert_eq!(location.uri.as_deref(), Some("payloads/a%20b%231.json"));
        assert_eq!(location.uri_base_id.as_deref(), Some(SRCROOT));
        assert!(artifact("-").is_none());
    }

    #[test]
    fn full_description_is_the_first_section() {
        let docs = "## What it checks\nThat a\nthing holds.\n\n## Why\nBecause.";
        assert_eq!(first_section(docs).as_deref(), Some("That a thing holds."));
    }
}
