//! What a directory walk skips: a `*.json` file found by its extension
//! alone may be another tool's (`package.json`, a `tsconfig.json` with
//! comments). Such a file is skipped and counted when its report says only
//! that it is not AG-UI as far as can be told:
//!
//! - JSON whose kind cannot be told, holding none of the keys and event
//!   types only AG-UI documents carry ([`AG_UI_MARKERS`]);
//! - JSON whose top level resembles no kind, whatever it holds deeper (a
//!   conformance test case with a `stream` of events, a manifest with a
//!   `name` and a `description`): it is no AG-UI document, though it may
//!   hold some;
//! - text that is not JSON, holding no key of any AG-UI kind, however it
//!   is quoted ([`AG_UI_KEYS`]: a message written with single quotes or a
//!   context with unquoted keys is still AG-UI);
//! - a JSON-with-comments configuration (`tsconfig.json`, `.vscode/*.json`,
//!   ...) that does not parse, whatever it holds.
//!
//! Anything else is reported.

use crate::rules::{INVALID_JSON, UNKNOWN_KIND};
use crate::Report;

/// Quoted keys and event types that AG-UI documents carry and other JSON
/// seldom does: a file holding one is judged, not skipped.
const AG_UI_MARKERS: &[&str] = &[
    "\"threadId\"",
    "\"runId\"",
    "\"thread_id\"",
    "\"run_id\"",
    "\"messages\"",
    "\"toolCalls\"",
    "\"toolCallId\"",
    "\"messageId\"",
    "\"forwardedProps\"",
    "\"role\"",
    "\"RUN_STARTED\"",
    "\"RUN_FINISHED\"",
    "\"RUN_ERROR\"",
    "\"TEXT_MESSAGE_",
    "\"TOOL_CALL_",
    "\"STATE_SNAPSHOT\"",
    "\"STATE_DELTA\"",
    "\"MESSAGES_SNAPSHOT\"",
    "\"REASONING_",
    "\"THINKING_",
    "\"STEP_STARTED\"",
    "\"STEP_FINISHED\"",
    "\"ACTIVITY_",
];

/// The keys of AG-UI's kinds that other tools' JSON seldom uses, looked
/// for in text that is not JSON as keys (followed by `:`), quoted with
/// `"` or `'` or not at all.
const AG_UI_KEYS: &[&str] = &[
    "threadId",
    "runId",
    "thread_id",
    "run_id",
    "messages",
    "forwardedProps",
    "forwarded_props",
    "toolCalls",
    "tool_calls",
    "toolCallId",
    "tool_call_id",
    "messageId",
    "message_id",
    "role",
    "parameters",
    "arguments",
    "function",
    "delta",
    "snapshot",
    "description",
    "transport",
    "streaming",
    "humanInTheLoop",
    "multiAgent",
    "interruptId",
];

/// File names of JSON-with-comments configurations, read by their tools
/// with comments and trailing commas allowed.
const JSONC_NAMES: &[&str] = &[
    "tsconfig.json",
    "jsconfig.json",
    ".eslintrc.json",
    "devcontainer.json",
    ".devcontainer.json",
    "settings.json",
    "launch.json",
    "tasks.json",
    "extensions.json",
    "turbo.json",
    "biome.json",
    "deno.json",
    ".babelrc.json",
];

/// Whether a walked file at `path` holding `bytes`, reported as `report`,
/// is skipped as not AG-UI.
pub(super) fn is_skipped(path: &str, bytes: &[u8], report: &Report) -> bool {
    if report.kind().is_some() || report.diagnostics().is_empty() {
        return false;
    }
    let only = |rule: &str| report.diagnostics().iter().all(|d| d.rule == rule);
    if only(UNKNOWN_KIND.name) {
        return !looks_like_ag_ui(bytes) || resembles_no_kind(bytes);
    }
    if only(INVALID_JSON.name) {
        return is_jsonc_config(path) || !has_ag_ui_key(bytes);
    }
    false
}

/// Whether `bytes` (not JSON) hold one of [`AG_UI_KEYS`] as a key.
fn has_ag_ui_key(bytes: &[u8]) -> bool {
    AG_UI_KEYS.iter().any(|key| {
        memchr::memmem::find_iter(bytes, key.as_bytes()).any(|at| {
            let before = at.checked_sub(1).and_then(|i| bytes.get(i));
            let starts = before.is_none_or(|&b| !(b.is_ascii_alphanumeric() || b == b'_'));
            let mut rest = bytes.get(at + key.len()..).unwrap_or_default();
            if let Some((&quote, after)) = rest.split_first() {
                if quote == b'"' || quote == b'\'' {
                    rest = after;
                }
            }
            let colon = rest.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b':');
            starts && colon
        })
    })
}

/// Whether the JSON document `bytes` resembles no kind at its top level
/// (its kind cannot be told, and no kind is close).
fn resembles_no_kind(bytes: &[u8]) -> bool {
    serde_json::from_slice::<serde_json::Value>(bytes)
        .is_ok_and(|value| crate::Kind::detect(&value).is_err_and(|u| u.closest.is_empty()))
}

/// Whether `bytes` hold a key or an event type of AG-UI's.
fn looks_like_ag_ui(bytes: &[u8]) -> bool {
    AG_UI_MARKERS
        .iter()
        .any(|marker| memchr::memmem::find(bytes, marker.as_bytes()).is_some())
}

/// Whether `path` names a JSON-with-comments configuration file: by its
/// name, a `tsconfig.*.json`, or any file under `.vscode/`.
fn is_jsonc_config(path: &str) -> bool {
    let path = std::path::Path::new(path);
    let name = path
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or_default();
    JSONC_NAMES.contains(&name)
        || (name.starts_with("tsconfig.") && name.ends_with(".json"))
        || path
            .components()
            .any(|c| c.as_os_str() == ".vscode" || c.as_os_str() == ".devcontainer")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markers_and_config_names() {
        assert!(looks_like_ag_ui(br#"{"messages": [], "state": {}}"#));
        assert!(looks_like_ag_ui(br#"{"type": "TEXT_MESSAGE_START"}"#));
        assert!(!looks_like_ag_ui(
            br#"{"compilerOptions": {"strict": true}}"#
        ));
        assert!(!looks_like_ag_ui(br#"{"hello": "world"}"#));
        assert!(is_jsonc_config("web/tsconfig.json"));
        assert!(is_jsonc_config("tsconfig.build.json"));
        assert!(is_jsonc_config(".vscode/anything.json"));
        assert!(!is_jsonc_config("payloads/run.json"));
        assert!(has_ag_ui_key(b"{'role': 'user'}"));
        assert!(has_ag_ui_key(b"{description: \"tz\", value: 1}"));
        assert!(has_ag_ui_key(b"[{\"parameters\" : {"));
        assert!(!has_ag_ui_key(
            b"{\"compilerOptions\": {\"role2\": 1, \"xrole\": 2}} // role"
        ));
        assert!(!has_ag_ui_key(b"these are notes, not JSON"));
        assert!(resembles_no_kind(
            br#"{"name": "n", "description": "d", "stream": [{"type": "RUN_STARTED"}], "expect": {}, "area": "a"}"#
        ));
        assert!(!resembles_no_kind(br#"{"messages": [], "extra": 1}"#));
    }
}
