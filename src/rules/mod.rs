//! The rule registry: every rule agui-lint can report, with its stable name,
//! default severity, one-line summary and documentation.
//!
//! Names read as the violation and never change once released. The registry
//! is one list ([`all`]); each rule family keeps its rules' metadata next to
//! its checks.

pub(crate) mod arguments;
pub(crate) mod binary;
mod capabilities;
pub(crate) mod client;
pub(crate) mod content;
pub(crate) mod conversation;
pub(crate) mod encrypted;
mod ids;
pub(crate) mod interop;
pub(crate) mod messages;
mod mime;
pub(crate) mod receivers;
pub(crate) mod request;
pub(crate) mod retired;
pub(crate) mod schema;
pub(crate) mod sequence;
pub(crate) mod tools;
pub(crate) mod transport;
pub(crate) mod version;
pub(crate) mod view;
mod walk;

use std::sync::LazyLock;

use serde_json::Value;

pub(crate) use interop::{LONE_SURROGATE, NON_INTEROPERABLE_NUMBER};
// The parse layer's and the schema's rules, whose findings the validator
// and the schema refinement make.
#[cfg(feature = "axum")]
pub(crate) use schema::CHECK_TIMED_OUT;
pub(crate) use schema::{
    BYTE_ORDER_MARK, DOCUMENT_TOO_LARGE, DUPLICATE_KEY, EMPTY_INPUT, INVALID_ENCODING, INVALID_HAR,
    INVALID_JSON, INVALID_VALUE, MISSING_FIELD, NESTING_REFUSED_BY_SERVERS, NESTING_TOO_DEEP,
    NO_AGUI_TRAFFIC, NULL_FOR_OPTIONAL, RESPONSE_NOT_CAPTURED, SCHEMA_VIOLATION,
    UNKNOWN_EVENT_TYPE, UNKNOWN_FIELD, UNKNOWN_KIND, WRONG_TYPE,
};
pub(crate) use sequence::{check_resume, EventPlace, EventView, Interrupted, ReadEvent, Sequence};

use crate::diagnostic::{Diagnostic, Severity};
use crate::findings::{Findings, Prefixed};
use crate::{Kind, Protocol};
use conversation::ConversationCheck;
use view::Conversation;

/// A rule: what it is called, how serious it is by default, and its docs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rule {
    /// Stable kebab-case name, e.g. `missing-field`.
    pub name: &'static str,
    /// Severity unless configured otherwise.
    pub severity: Severity,
    /// The protocol versions whose documents this rule judges; each family
    /// reports only in its rules' versions.
    pub protocols: &'static [Protocol],
    /// The severity of this rule's findings in 1.x documents when it is
    /// less serious there than before 1.0: what a 1.x receiver strips,
    /// drops or tolerates (`spec/1.1/basic/processing.mdx`, "The rule"),
    /// which the pre-1.0 SDKs rejected. The rule's docs say which of its
    /// findings this covers.
    pub severity_1x: Option<Severity>,
    /// One line saying what the rule reports.
    pub summary: &'static str,
    /// Markdown documentation: what it checks, why it matters, an invalid
    /// and a valid example.
    pub docs: &'static str,
}

impl Rule {
    /// The protocol versions whose documents this rule judges.
    pub fn protocols(&self) -> &'static [Protocol] {
        self.protocols
    }

    /// The versions as `rule` shows them: `all`, or a list such as
    /// `1.0, 1.1`.
    pub fn protocols_text(&self) -> String {
        let protocols = self.protocols();
        if protocols.len() == Protocol::ALL.len() {
            return "all".to_string();
        }
        let mut names: Vec<&str> = protocols.iter().map(|p| p.as_str()).collect();
        names.sort_unstable();
        names.join(", ")
    }

    /// The severity of this rule's findings in a document of `protocol`,
    /// unless configured otherwise: its default, or its 1.x severity in
    /// 1.x, where the prose tolerates what it reports.
    pub fn severity_in(&self, protocol: Protocol) -> Severity {
        match self.severity_1x {
            Some(severity) if protocol.is_1x() => severity,
            _ => self.severity,
        }
    }

    /// The severity as `rule` shows it: `error`, or `error (warning in
    /// 1.0, 1.1)` for a rule whose severity differs in 1.x.
    pub fn severity_text(&self) -> String {
        match self.severity_1x {
            Some(severity) => format!("{} ({severity} in 1.0, 1.1)", self.severity),
            None => self.severity.to_string(),
        }
    }

    /// A finding of this rule at `pointer`, with its default severity.
    pub fn diagnostic(&self, pointer: impl Into<String>, message: impl Into<String>) -> Diagnostic {
        Diagnostic::new(self.name, self.severity, pointer, message)
    }
}

impl crate::findings::RuleId for Rule {
    fn name(&self) -> &'static str {
        self.name
    }

    fn severity(&self) -> Severity {
        self.severity
    }
}

/// Every version.
pub(crate) const EVERY_VERSION: &[Protocol] = &Protocol::ALL;
/// The pre-1.0 profile alone.
pub(crate) const PRE_1_0: &[Protocol] = &[Protocol::V0];
/// AG-UI 1.0 and 1.1.
pub(crate) const SINCE_1_0: &[Protocol] = &[Protocol::V1_1, Protocol::V1_0];
/// AG-UI 1.1 alone.
pub(crate) const SINCE_1_1: &[Protocol] = &[Protocol::V1_1];

/// Every registered rule, family by family, in documentation order.
static REGISTRY: LazyLock<Vec<Rule>> = LazyLock::new(|| {
    [
        schema::RULES,
        version::RULES,
        retired::RULES,
        messages::RULES,
        request::RULES,
        encrypted::RULES,
        tools::RULES,
        content::RULES,
        capabilities::RULES,
        interop::RULES,
        sequence::RULES,
        transport::RULES,
        binary::RULES,
        client::RULES,
    ]
    .concat()
});

/// Every registered rule, in documentation order.
pub fn all() -> &'static [Rule] {
    &REGISTRY
}

/// Where the page of the rule named `name` is read online: the book's
/// generated reference page in the repository.
pub fn docs_url(name: &str) -> String {
    format!(
        "{}/blob/main/docs/src/reference/rules/{name}.md",
        env!("CARGO_PKG_REPOSITORY")
    )
}

/// The rule named `name`, if registered.
pub fn rule(name: &str) -> Option<&'static Rule> {
    all().iter().find(|r| r.name == name)
}

/// The registered rule name closest to `name`, for "did you mean" hints on
/// a misspelt rule.
pub fn closest(name: &str) -> Option<&'static str> {
    crate::suggest::closest(name, all().iter().map(|r| r.name))
}

/// Runs every semantic rule family on a parsed document of `kind`, judged
/// by `protocol`. A non-interoperable number at a pointer `schema_bounds`
/// holds is not reported: the schema already bounds it there.
pub(crate) fn check(
    kind: Kind,
    protocol: Protocol,
    value: &Value,
    limits: crate::Limits,
    schema_bounds: &dyn Fn(&str) -> bool,
    out: &mut impl Findings,
) {
    let document = walk::Document {
        kind,
        protocol,
        root: value,
        limits,
    };
    check_types(&document, out);
    interop::check(&document, schema_bounds, out);
    if matches!(kind, Kind::Event | Kind::Events) {
        for (kind, payload, at) in document.embedded() {
            let embedded = walk::Document {
                kind,
                protocol,
                root: payload.value,
                limits,
            };
            check_types(
                &embedded,
                &mut Prefixed {
                    inner: &mut *out,
                    prefix: &at,
                },
            );
        }
    }
    if kind == Kind::Events {
        check_sequence(value, protocol, limits, out);
    }
}

/// [`check`] on a RunAgentInput whose messages are parsed one at a time:
/// `top` is the input with its `messages` empty, and `messages` hands
/// each message in turn, with its index, to the function it is given,
/// which runs the rules on it (the sink passed along, so that the caller
/// can report into it between messages). What the rules keep across
/// messages (ids, open calls) is copied out of each, which is then
/// dropped.
pub(crate) fn check_by_message<F: Findings>(
    protocol: Protocol,
    top: &Value,
    limits: crate::Limits,
    schema_bounds: &dyn Fn(&str) -> bool,
    out: &mut F,
    messages: impl FnOnce(&mut F, &mut dyn FnMut(usize, &Value, &mut F)),
) {
    let document = walk::Document {
        kind: Kind::RunAgentInput,
        protocol,
        root: top,
        limits,
    };
    let conversation = Conversation::of_document(&document);
    let mut check = ConversationCheck::new(&conversation, out);
    messages(out, &mut |index, message, out| {
        let (read, calls) = view::owned_turn(index, message);
        check.message(index, &read, &calls, out);
        let at = format!("/messages/{index}");
        let alone = walk::Document {
            kind: Kind::Message,
            protocol,
            root: message,
            limits,
        };
        let mut under = Prefixed {
            inner: &mut *out,
            prefix: &at,
        };
        content::check(&alone, &mut under);
        interop::check(
            &alone,
            &|pointer| schema_bounds(&format!("{at}{pointer}")),
            &mut under,
        );
    });
    check.finish(out);
    tools::check(&document, out);
    content::check(&document, out);
    interop::check(&document, schema_bounds, out);
}

/// The families that check the protocol's types wherever they appear.
/// (Interoperability rules walk the whole document once, embedded payloads
/// included.)
fn check_types(document: &walk::Document<'_>, out: &mut impl Findings) {
    let conversation = Conversation::of_document(document);
    let mut check = ConversationCheck::new(&conversation, out);
    for (index, message, calls) in view::turns(document) {
        check.message(index, &message, &calls, out);
    }
    if let Some(call) = view::lone_call(document) {
        check.lone_call(&call, out);
    }
    check.finish(out);
    tools::check(document, out);
    content::check(document, out);
    let mut found = Vec::new();
    capabilities::check(document, &mut found);
    for diagnostic in found {
        out.push(diagnostic);
    }
}

/// An events array is one stream, judged by `protocol`.
fn check_sequence(
    events: &Value,
    protocol: Protocol,
    limits: crate::Limits,
    out: &mut impl Findings,
) {
    let mut sequence = Sequence::new();
    // One document's events, gone when the document is checked: held to
    // the stream limit alone.
    sequence.bound_state(limits.state_limit(), &sequence::total::Total::unbounded());
    let mut found = Vec::new();
    for (i, event) in events.as_array().into_iter().flatten().enumerate() {
        let place = EventPlace {
            index: i + 1,
            record: None,
            pointer: format!("/{i}"),
            location: None,
        };
        sequence.event(event, protocol, &place, &mut found);
        for diagnostic in found.drain(..) {
            out.push(diagnostic);
        }
    }
    sequence.finish(&mut found);
    for diagnostic in found {
        out.push(diagnostic);
    }
}

/// Yes-or-no forms of the rules' checks, for the fast path
/// ([`crate::fast`]), which must decide exactly as the rules do: each is
/// the predicate the rule itself reports by.
pub(crate) mod verdict {
    pub(crate) use super::interop::is_interoperable;
    pub(crate) use super::tools::{parameters_declare_nothing, verdict_by_text, ParametersVerdict};
    pub(crate) use super::walk::carries_parts;
}

/// The default severity of the rule named `name`.
///
/// # Panics
///
/// Never for a name the crate itself reports: a test checks that every rule
/// the crate reports is registered. Unknown names are treated as errors.
pub(crate) fn default_severity(name: &str) -> Severity {
    rule(name).map_or(Severity::Error, |r| r.severity)
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use super::*;

    #[test]
    fn names_are_unique_kebab_case() {
        let mut seen = HashSet::new();
        for rule in all() {
            assert!(seen.insert(rule.name), "{} registered twice", rule.name);
            assert!(
                rule.name
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-'),
                "{} is not kebab-case",
                rule.name
            );
        }
    }

    #[test]
    fn every_rule_is_documented_with_both_examples() {
        for rule in all() {
            assert!(!rule.summary.is_empty(), "{} has no summary", rule.name);
            for section in [
                "## What it checks",
                "## Why it matters",
                "## Invalid",
                "## Valid",
            ] {
                assert!(
                    rule.docs.contains(section),
                    "{} docs lack '{section}'",
                    rule.name
                );
            }
        }
    }

    /// Each rule's name is spelt in one file, its own: everywhere else a
    /// finding or a test names it through the rule's constant, so a typo
    /// is a compile error and a rename one edit. (Comments and the rules'
    /// Markdown docs, which quote names, are prose.)
    #[test]
    fn each_rule_name_is_spelt_in_its_own_file_alone() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let mut sources = Vec::new();
        for entry in walkdir::WalkDir::new(&root) {
            let path = entry.expect("walk src").into_path();
            if path.extension().is_some_and(|e| e == "rs") {
                let text = std::fs::read_to_string(&path).expect("read a source file");
                sources.push((path, code_of(&text)));
            }
        }
        assert!(sources.len() > 50, "{} source files", sources.len());
        let mut spelt = Vec::new();
        for rule in all() {
            let quoted = format!("\"{}\"", rule.name);
            let files: Vec<String> = sources
                .iter()
                .filter(|(_, code)| code.contains(&quoted))
                .map(|(path, _)| path.display().to_string())
                .collect();
            if files.len() > 1 {
                spelt.push(format!("{}: {}", rule.name, files.join(", ")));
            }
        }
        assert!(
            spelt.is_empty(),
            "rule names spelt in several files:\n{}",
            spelt.join("\n")
        );
    }

    /// `text` without its comments' lines and its raw strings (`r#"…"#`).
    fn code_of(text: &str) -> String {
        let code: String = text
            .lines()
            .filter(|line| !line.trim_start().starts_with("//"))
            .collect::<Vec<_>>()
            .join("\n");
        let mut out = String::with_capacity(code.len());
        let mut rest = code.as_str();
        while let Some(start) = rest.find("r#\"") {
            out.push_str(&rest[..start]);
            rest = match rest[start + 3..].find("\"#") {
                Some(end) => &rest[start + 3 + end + 2..],
                None => "",
            };
        }
        out.push_str(rest);
        out
    }
}
