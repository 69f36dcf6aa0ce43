//! The dialect of a `parameters` schema: which draft its root `$schema`
//! names, and the finding when it names none agui-lint supports.

use crate::diagnostic::Diagnostic;
use crate::rules::tools::references::Outside;
use crate::text::{describe, quote};
use jsonschema::Draft;
use serde_json::Value;
use url::Url;

use super::rules::*;

/// The supported drafts by their canonical URI, without scheme and
/// trailing `#`.
pub(super) const DRAFTS: [(&str, Draft); 5] = [
    ("json-schema.org/draft/2020-12/schema", Draft::Draft202012),
    ("json-schema.org/draft/2019-09/schema", Draft::Draft201909),
    ("json-schema.org/draft-07/schema", Draft::Draft7),
    ("json-schema.org/draft-06/schema", Draft::Draft6),
    ("json-schema.org/draft-04/schema", Draft::Draft4),
];

/// The draft of a `parameters` without `$schema`: the one the spec's
/// examples and the current JSON Schema use.
pub(super) const DEFAULT_DRAFT: Draft = Draft::Draft202012;

/// What a `$schema` value names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum MetaSchema {
    /// A supported draft.
    Draft(Draft),
    /// A custom meta-schema that would have to be retrieved (over the
    /// network or from a file).
    Outside(Outside),
    /// Anything else.
    Unknown,
}

/// What `value` (of a `$schema` keyword) names.
pub(super) fn classify(value: &Value) -> MetaSchema {
    let Some(uri) = value.as_str() else {
        return MetaSchema::Unknown;
    };
    if let Some(draft) = known_draft(uri) {
        return MetaSchema::Draft(draft);
    }
    match Url::parse(uri) {
        // Another meta-schema of the JSON Schema project (draft-03, the
        // version-less URI): a draft, though not a supported one, rather
        // than a custom meta-schema to fetch.
        Ok(url) if url.host_str() == Some("json-schema.org") => MetaSchema::Unknown,
        Ok(url) if matches!(url.scheme(), "http" | "https") => {
            MetaSchema::Outside(Outside::Network)
        }
        Ok(url) if url.scheme() == "file" => MetaSchema::Outside(Outside::File),
        _ => MetaSchema::Unknown,
    }
}

/// The supported draft `uri` names, by its canonical URI with `http` or
/// `https` and with or without the trailing empty fragment.
pub(super) fn known_draft(uri: &str) -> Option<Draft> {
    let rest = uri
        .strip_prefix("https://")
        .or_else(|| uri.strip_prefix("http://"))?;
    let rest = rest.strip_suffix('#').unwrap_or(rest);
    DRAFTS
        .iter()
        .find(|(name, _)| *name == rest)
        .map(|(_, draft)| *draft)
}

pub(super) fn draft_name(draft: Draft) -> &'static str {
    match draft {
        Draft::Draft4 => "draft-04",
        Draft::Draft6 => "draft-06",
        Draft::Draft7 => "draft-07",
        Draft::Draft201909 => "2019-09",
        _ => "2020-12",
    }
}

/// The canonical URI of `draft`, as written in its meta-schema's `$id`.
pub(super) fn draft_uri(draft: Draft) -> &'static str {
    match draft {
        Draft::Draft4 => "http://json-schema.org/draft-04/schema#",
        Draft::Draft6 => "http://json-schema.org/draft-06/schema#",
        Draft::Draft7 => "http://json-schema.org/draft-07/schema#",
        Draft::Draft201909 => "https://json-schema.org/draft/2019-09/schema",
        _ => "https://json-schema.org/draft/2020-12/schema",
    }
}

/// Reports a `$schema` that names no supported draft, at `at`.
pub(super) fn report_meta_schema(
    meta: MetaSchema,
    value: &Value,
    at: &str,
    root: bool,
    out: &mut Vec<Diagnostic>,
) {
    let skipped = if root {
        "; this tool's parameters were not meta-validated or compiled"
    } else {
        ""
    };
    match meta {
        MetaSchema::Draft(_) => {}
        MetaSchema::Outside(outside) => {
            let uri = value.as_str().unwrap_or_default();
            let how = outside.describe();
            out.push(
                TOOL_PARAMETERS_REMOTE_REF
                    .diagnostic(
                        at,
                        format!("'$schema' {} names a custom meta-schema, which {how}", quote(uri)),
                    )
                    .with_help(format!(
                        "agui-lint never fetches it{skipped}; name a supported draft, such as '{}', or leave '$schema' out for 2020-12",
                        draft_uri(DEFAULT_DRAFT)
                    )),
            );
        }
        MetaSchema::Unknown => {
            let message = match value {
                Value::String(uri) => format!("'$schema' {} names no supported draft", quote(uri)),
                other => format!("'$schema' is {}, not a URI naming a draft", describe(other)),
            };
            let mut help = String::from(
                "supported: 2020-12 (the default without '$schema'), 2019-09, draft-07, draft-06 and draft-04",
            );
            if value.as_str().is_some_and(is_version_less) {
                help.push_str("; the version-less URI means another draft each time JSON Schema changes: name one");
            } else if let Some(draft) = value.as_str().and_then(intended_draft) {
                help.push_str(&format!(
                    "; for {} write '{}'",
                    draft_name(draft),
                    draft_uri(draft)
                ));
            }
            help.push_str(skipped);
            out.push(
                TOOL_PARAMETERS_UNKNOWN_DRAFT
                    .diagnostic(at, message)
                    .with_help(help),
            );
        }
    }
}

/// Whether `uri` is json-schema.org's URI of "the current draft".
pub(super) fn is_version_less(uri: &str) -> bool {
    let rest = uri
        .strip_prefix("https://")
        .or_else(|| uri.strip_prefix("http://"))
        .unwrap_or_default();
    rest.strip_suffix('#').unwrap_or(rest) == "json-schema.org/schema"
}

/// The supported draft a malformed `$schema` seems to mean
/// (`"draft-07"`, `"https://json-schema.org/draft-07/schema/"`).
pub(super) fn intended_draft(text: &str) -> Option<Draft> {
    let text = text.to_ascii_lowercase();
    [
        ("2020-12", Draft::Draft202012),
        ("2019-09", Draft::Draft201909),
        ("draft-07", Draft::Draft7),
        ("draft-7", Draft::Draft7),
        ("draft-06", Draft::Draft6),
        ("draft-6", Draft::Draft6),
        ("draft-04", Draft::Draft4),
        ("draft-4", Draft::Draft4),
    ]
    .into_iter()
    .find(|(token, _)| text.contains(token))
    .map(|(_, draft)| draft)
}
