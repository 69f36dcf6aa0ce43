//! Chunk events expanded as `@ag-ui/client` 1.0.0 expands them before it
//! applies anything (its `transformChunks`): a `TEXT_MESSAGE_CHUNK`,
//! `TOOL_CALL_CHUNK` or `REASONING_MESSAGE_CHUNK` opens its triad (start
//! event) unless it continues the open one, carries its piece as a content
//! or args event, and is closed (end event) by the next event of another
//! item, a run boundary or a snapshot. The kit reads one lane: chunks of
//! subagents are read as the parent's.

use serde_json::{json, Value};

/// The family of the chunk stream open.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Family {
    Text,
    Tool,
    Reasoning,
}

/// The chunk stream open, if any, and its id.
#[derive(Debug, Default)]
pub(super) struct Chunks {
    open: Option<(Family, String)>,
}

impl Chunks {
    /// The events `event` (of type `kind`) stands for, in order: itself,
    /// or a chunk's expansion, after the end event of a chunk stream it
    /// closes.
    pub(super) fn expand(&mut self, kind: &str, event: &Value) -> Vec<Value> {
        let family = match kind {
            "TEXT_MESSAGE_CHUNK" => Family::Text,
            "TOOL_CALL_CHUNK" => Family::Tool,
            "REASONING_MESSAGE_CHUNK" => Family::Reasoning,
            "RAW"
            | "ACTIVITY_SNAPSHOT"
            | "ACTIVITY_DELTA"
            | "REASONING_ENCRYPTED_VALUE"
            | "SUBAGENT_STARTED"
            | "SUBAGENT_FINISHED"
            | "SUBAGENT_ERROR" => return vec![event.clone()],
            _ => {
                let mut out = self.close();
                out.push(event.clone());
                return out;
            }
        };
        let key = if family == Family::Tool {
            "toolCallId"
        } else {
            "messageId"
        };
        let given = event.get(key).and_then(Value::as_str);
        let mut out = Vec::new();
        let id = match &self.open {
            Some((open, id)) if *open == family && given.is_none_or(|g| g == id) => id.clone(),
            _ => {
                out.extend(self.close());
                // The client fails the run on a first chunk without its id
                // (or a tool call's name); nothing is applied of it.
                let Some(id) = given else { return out };
                let start = match family {
                    Family::Text => {
                        let mut start = json!({"type": "TEXT_MESSAGE_START", "messageId": id,
                            "role": event.get("role").and_then(Value::as_str).unwrap_or("assistant")});
                        if let Some(name) = event.get("name") {
                            start["name"] = name.clone();
                        }
                        start
                    }
                    Family::Reasoning => {
                        json!({"type": "REASONING_MESSAGE_START", "messageId": id, "role": "reasoning"})
                    }
                    Family::Tool => {
                        let Some(name) = event.get("toolCallName").and_then(Value::as_str) else {
                            return out;
                        };
                        let mut start = json!({"type": "TOOL_CALL_START", "toolCallId": id, "toolCallName": name});
                        if let Some(parent) = event.get("parentMessageId") {
                            start["parentMessageId"] = parent.clone();
                        }
                        start
                    }
                };
                if let Some(subagent) = event.get("subagentRunId") {
                    let mut start = start;
                    start["subagentRunId"] = subagent.clone();
                    out.push(start);
                } else {
                    out.push(start);
                }
                self.open = Some((family, id.to_owned()));
                id.to_owned()
            }
        };
        if let Some(delta) = event.get("delta") {
            let delta = if delta.is_null() {
                json!("")
            } else {
                delta.clone()
            };
            out.push(match family {
                Family::Text => {
                    json!({"type": "TEXT_MESSAGE_CONTENT", "messageId": id, "delta": delta})
                }
                Family::Reasoning => {
                    json!({"type": "REASONING_MESSAGE_CONTENT", "messageId": id, "delta": delta})
                }
                Family::Tool => json!({"type": "TOOL_CALL_ARGS", "toolCallId": id, "delta": delta}),
            });
        }
        out
    }

    /// The end event of the chunk stream open, closing it.
    fn close(&mut self) -> Vec<Value> {
        match self.open.take() {
            None => Vec::new(),
            Some((Family::Text, id)) => vec![json!({"type": "TEXT_MESSAGE_END", "messageId": id})],
            Some((Family::Reasoning, id)) => {
                vec![json!({"type": "REASONING_MESSAGE_END", "messageId": id})]
            }
            Some((Family::Tool, id)) => vec![json!({"type": "TOOL_CALL_END", "toolCallId": id})],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn types(events: &[Value]) -> Vec<&str> {
        events
            .iter()
            .map(|e| e["type"].as_str().unwrap_or(""))
            .collect()
    }

    #[test]
    fn chunks_open_continue_and_close_their_triads() {
        let mut chunks = Chunks::default();
        let first = chunks.expand(
            "TEXT_MESSAGE_CHUNK",
            &json!({"type": "TEXT_MESSAGE_CHUNK", "messageId": "m", "delta": "a"}),
        );
        assert_eq!(
            types(&first),
            ["TEXT_MESSAGE_START", "TEXT_MESSAGE_CONTENT"]
        );
        assert_eq!(first[0]["role"], "assistant");
        let more = chunks.expand("TEXT_MESSAGE_CHUNK", &json!({"delta": "b"}));
        assert_eq!(types(&more), ["TEXT_MESSAGE_CONTENT"]);
        assert_eq!(more[0]["messageId"], "m");
        let call = chunks.expand(
            "TOOL_CALL_CHUNK",
            &json!({"toolCallId": "c", "toolCallName": "f", "delta": "{}"}),
        );
        assert_eq!(
            types(&call),
            ["TEXT_MESSAGE_END", "TOOL_CALL_START", "TOOL_CALL_ARGS"]
        );
        let end = chunks.expand("RUN_FINISHED", &json!({"type": "RUN_FINISHED"}));
        assert_eq!(types(&end), ["TOOL_CALL_END", "RUN_FINISHED"]);
        // A first chunk without its id is not applied.
        assert!(chunks
            .expand("TEXT_MESSAGE_CHUNK", &json!({"delta": "x"}))
            .is_empty());
    }
}
