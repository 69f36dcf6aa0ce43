//! Activity messages of AG-UI 1.x (`spec/1.1/events/activity.mdx`): the
//! content each `ACTIVITY_SNAPSHOT` sets, and each `ACTIVITY_DELTA` patch
//! applied to it as `STATE_DELTA` is applied to the state.

use std::collections::HashMap;

use serde_json::Value;

use super::catalog_v1::{
    ACTIVITY_CONTENT_NOT_OBJECT, ACTIVITY_DELTA_NOT_APPLICABLE, ACTIVITY_DELTA_WITHOUT_SNAPSHOT,
};
use super::Here;
use crate::findings::Findings;

/// The activity messages of a stream by `messageId`: their content, or
/// `None` once a patch failed and the content is no longer known.
#[derive(Debug, Default)]
pub(super) struct Activities {
    content: HashMap<String, Option<Value>>,
}

impl Activities {
    /// `ACTIVITY_SNAPSHOT` creates or replaces an activity message; with
    /// `replace: false` an existing one stands as it is.
    pub(super) fn snapshot(&mut self, at: &Here<'_>) {
        let (Some(id), Some(content)) = (at.str("messageId"), at.event.get("content")) else {
            return;
        };
        let keep = at.event.get("replace").and_then(|r| r.as_bool()) == Some(false)
            && self.content.contains_key(id);
        if !keep {
            self.content
                .insert(id.to_string(), Some(content.into_owned()));
        }
    }

    /// A `MESSAGES_SNAPSHOT` restates activity messages by id.
    pub(super) fn restate(&mut self, messages: &Value) {
        for message in messages.as_array().into_iter().flatten() {
            if message.get("role").and_then(Value::as_str) != Some("activity") {
                continue;
            }
            if let (Some(id), Some(content)) = (
                message.get("id").and_then(Value::as_str),
                message.get("content"),
            ) {
                self.content.insert(id.to_string(), Some(content.clone()));
            }
        }
    }

    /// `ACTIVITY_DELTA`: an RFC 6902 patch against the activity's content.
    pub(super) fn delta(&mut self, at: &Here<'_>, out: &mut impl Findings) {
        let (Some(id), Some(patch)) = (at.str("messageId"), at.event.patch("patch")) else {
            return;
        };
        let Some(slot) = self.content.get_mut(id) else {
            out.push(
                at.finding(
                    &ACTIVITY_DELTA_WITHOUT_SNAPSHOT,
                    "/messageId",
                    format!("ACTIVITY_DELTA for activity message '{id}', which no ACTIVITY_SNAPSHOT created: a consumer skips it"),
                )
                .with_help("send an ACTIVITY_SNAPSHOT for the messageId before its deltas"),
            );
            return;
        };
        let Some(content) = slot else {
            return;
        };
        // A malformed operation is the schema's finding.
        let Ok(patch) = patch else {
            *slot = None;
            return;
        };
        if let Err(error) = json_patch::patch(content, &patch) {
            out.push(
                at.finding(
                    &ACTIVITY_DELTA_NOT_APPLICABLE,
                    &format!("/patch/{}", error.operation),
                    format!(
                        "operation {} does not apply to activity '{id}' as built so far: {}; a consumer skips the delta",
                        error.operation, error.kind
                    ),
                )
                .with_help("the consumer's activity diverges; send a fresh ACTIVITY_SNAPSHOT of the messageId to resynchronise"),
            );
            // The consumer skips the delta and keeps the content it had,
            // which `json_patch::patch` has restored.
            return;
        }
        if !content.is_object() {
            out.push(
                at.finding(
                    &ACTIVITY_CONTENT_NOT_OBJECT,
                    "/patch",
                    format!("the patch makes the content of activity '{id}' something other than an object"),
                )
                .with_help("activity content is an object: patch its members, never the root with a non-object"),
            );
            *slot = None;
        }
    }
}
