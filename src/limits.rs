//! Bounds on what one document may cost to check. Each limit has a
//! default, a library setting ([`crate::Settings::with_limits`]), a
//! command-line flag and a key under `[limits]` in `agui-lint.toml`; going
//! over one is a finding, never a crash.

use serde::Deserialize;

/// The deepest nesting `serde_json` parses on the caller's stack; a
/// document nesting deeper (within [`Limits::max_depth`]) is parsed and
/// checked on a stack grown for it.
pub const PARSER_DEPTH: usize = 128;

/// The deepest nesting checked unless told otherwise: above what the
/// official receivers refuse (pydantic, about 200 levels; `JSON.parse` and
/// zod have no limit), so that what they accept is judged, not refused by
/// agui-lint's own limit.
pub const DEFAULT_MAX_DEPTH: usize = 512;

/// The deepest [`Limits::max_depth`] may be set to.
pub const MAX_DEPTH_CAP: usize = 2048;

/// How many times the document limit a stream's state may take in memory
/// when no state limit is set.
const STATE_PER_DOCUMENT: usize = 4;

/// How many streams at their state limit the streams one validator follows
/// may hold together when no total is set.
const STATES_PER_TOTAL: usize = 4;

/// Bounds on what one document may cost to check. Built from
/// [`Limits::default`] with the `with_*` methods, so that a new bound is
/// never a breaking change:
///
/// ```
/// let limits = agui_lint::Limits::default()
///     .with_max_document_bytes(1 << 20)
///     .with_max_findings(100);
/// assert_eq!(limits.max_findings, 100);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(default, deny_unknown_fields, rename_all = "kebab-case")]
#[non_exhaustive]
pub struct Limits {
    /// Largest document checked, in bytes (`document-too-large`); a JSON
    /// Lines line or an SSE event counts as a document. Default 64 MiB.
    pub max_document_bytes: usize,
    /// Largest HTTP Archive read, in bytes (`document-too-large`): an
    /// archive is read entry by entry and each body judged against
    /// [`Limits::max_document_bytes`], so a long session saved by the proxy
    /// or the probe is checked with its events whatever its length.
    /// Default 4 GiB (on 32-bit targets, the most a `usize` holds).
    pub max_archive_bytes: usize,
    /// Deepest nesting of arrays and objects (`nesting-too-deep`, agui-lint's
    /// own limit, not the protocol's). Default 512 ([`DEFAULT_MAX_DEPTH`]),
    /// at most 2,048 ([`MAX_DEPTH_CAP`]).
    pub max_depth: usize,
    /// Largest tool `parameters` schema that is meta-validated and compiled,
    /// in JSON values (`tool-parameters-too-large`). Default 10,000.
    pub max_tool_schema_nodes: usize,
    /// Most memory a stream's state and activity contents may take
    /// together, in bytes as held in memory (`state-over-budget`); `None`,
    /// the default, is four times [`Limits::max_document_bytes`] (see
    /// [`Limits::state_limit`]).
    pub max_state_bytes: Option<usize>,
    /// Most memory the states of all streams one [`crate::Validator`] (and
    /// its clones) follows at once may take together, in bytes as
    /// [`Limits::max_state_bytes`] counts them (`state-over-budget`): what
    /// bounds a server guard or the proxy following many streams. `None`,
    /// the default, is four times the state limit (1 GiB by default; see
    /// [`Limits::total_state_limit`]).
    pub max_total_state_bytes: Option<usize>,
    /// Most findings one document reports; the rest are counted by rule
    /// in one `too-many-findings` finding, and never built. Default 1,000
    /// ([`DEFAULT_MAX_FINDINGS`]); the server guards keep 100.
    pub max_findings: usize,
}

impl Limits {
    /// With [`Limits::max_document_bytes`] set to `bytes`.
    #[must_use]
    pub fn with_max_document_bytes(mut self, bytes: usize) -> Self {
        self.max_document_bytes = bytes;
        self
    }

    /// With [`Limits::max_archive_bytes`] set to `bytes`.
    #[must_use]
    pub fn with_max_archive_bytes(mut self, bytes: usize) -> Self {
        self.max_archive_bytes = bytes;
        self
    }

    /// With [`Limits::max_depth`] set to `depth` (at most 2,048).
    #[must_use]
    pub fn with_max_depth(mut self, depth: usize) -> Self {
        self.max_depth = depth;
        self
    }

    /// With [`Limits::max_tool_schema_nodes`] set to `nodes`.
    #[must_use]
    pub fn with_max_tool_schema_nodes(mut self, nodes: usize) -> Self {
        self.max_tool_schema_nodes = nodes;
        self
    }

    /// With [`Limits::max_state_bytes`] set to `bytes`.
    #[must_use]
    pub fn with_max_state_bytes(mut self, bytes: usize) -> Self {
        self.max_state_bytes = Some(bytes);
        self
    }

    /// The most memory a stream's state and activity contents may take:
    /// the state limit when set, else four times the document limit (256
    /// MiB by default). A state held in memory takes two to nine times its
    /// JSON text (a snapshot of many small keys, the most), so that a
    /// snapshot of a sixth of the document limit (a 10 MB snapshot of
    /// 600,000 keys: about 82 MiB held) fits.
    pub fn state_limit(&self) -> usize {
        self.max_state_bytes
            .unwrap_or(self.max_document_bytes.saturating_mul(STATE_PER_DOCUMENT))
    }

    /// With [`Limits::max_total_state_bytes`] set to `bytes`.
    #[must_use]
    pub fn with_max_total_state_bytes(mut self, bytes: usize) -> Self {
        self.max_total_state_bytes = Some(bytes);
        self
    }

    /// The most memory the states of the streams one validator follows at
    /// once may take together: the total limit when set, else four times
    /// [`Limits::state_limit`].
    pub fn total_state_limit(&self) -> usize {
        self.max_total_state_bytes
            .unwrap_or(self.state_limit().saturating_mul(STATES_PER_TOTAL))
    }

    /// With [`Limits::max_findings`] set to `findings`.
    #[must_use]
    pub fn with_max_findings(mut self, findings: usize) -> Self {
        self.max_findings = findings;
        self
    }
}

/// How many findings a document reports unless told otherwise.
pub const DEFAULT_MAX_FINDINGS: usize = 1000;

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_document_bytes: 64 * 1024 * 1024,
            max_archive_bytes: usize::try_from(4u64 << 30).unwrap_or(usize::MAX),
            max_depth: DEFAULT_MAX_DEPTH,
            max_tool_schema_nodes: 10_000,
            max_state_bytes: None,
            max_total_state_bytes: None,
            max_findings: DEFAULT_MAX_FINDINGS,
        }
    }
}

/// How `bytes` nest: where the first value deeper than the limit starts,
/// and how many arrays and objects are still open at the end (a text cut
/// short, which is not JSON whatever its depth).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Nesting {
    pub too_deep_at: Option<usize>,
    pub open_at_end: usize,
}

/// Reads how `bytes` (JSON or not) nest arrays and objects, without
/// recursion. Strings are skipped, so brackets inside them do not count.
pub(crate) fn nesting(bytes: &[u8], limit: usize) -> Nesting {
    let mut depth = 0usize;
    let mut too_deep_at = None;
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        match b {
            b'"' => match crate::locate::skip_string(bytes, i) {
                Some(end) => {
                    i = end;
                    continue;
                }
                None => break,
            },
            b'[' | b'{' => {
                depth += 1;
                if depth > limit && too_deep_at.is_none() {
                    too_deep_at = Some(i);
                }
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
        i += 1;
    }
    Nesting {
        too_deep_at,
        open_at_end: depth,
    }
}

/// Whether `bytes` (JSON or not) nest arrays and objects deeper than
/// `limit`, and where the first value too deep starts. Strings are skipped,
/// so brackets inside them do not count.
#[cfg(test)]
pub(crate) fn too_deep(bytes: &[u8], limit: usize) -> Option<usize> {
    nesting(bytes, limit).too_deep_at
}

/// The number of JSON values in `value`, counted without recursion and
/// stopping once over `limit`.
pub(crate) fn values_over(value: &serde_json::Value, limit: usize) -> Option<usize> {
    let mut count = 0usize;
    let mut stack = vec![value];
    while let Some(value) = stack.pop() {
        count += 1;
        if count > limit {
            return Some(count);
        }
        match value {
            serde_json::Value::Array(items) => stack.extend(items),
            serde_json::Value::Object(map) => stack.extend(map.values()),
            _ => {}
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn depth_counts_brackets_outside_strings() {
        assert_eq!(too_deep(b"[[1]]", 2), None);
        assert_eq!(too_deep(b"[[1]]", 1), Some(1));
        assert_eq!(too_deep(br#"["[[[[", {"a": "\"]]]"}]"#, 2), None);
        assert_eq!(too_deep(br#"{"a": [{"b": 1}]}"#, 2), Some(7));
        assert_eq!(too_deep(b"\"unterminated [[[", 1), None);
    }

    #[test]
    fn text_cut_short_leaves_values_open() {
        assert_eq!(
            nesting(b"[[1]", 5),
            Nesting {
                too_deep_at: None,
                open_at_end: 1
            }
        );
        assert_eq!(
            nesting(b"[[[", 2),
            Nesting {
                too_deep_at: Some(2),
                open_at_end: 3
            }
        );
        assert_eq!(nesting(br#"["]"#, 2).open_at_end, 1);
    }

    #[test]
    fn value_counts_stop_at_the_limit() {
        let value = serde_json::json!({"a": [1, 2, {"b": 3}]});
        assert_eq!(values_over(&value, 10), None);
        assert_eq!(values_over(&value, 3), Some(4));
    }
}
