//! What the official client does with a stream or a request beyond
//! checking it ([`crate::Client`]): events it drops, content it flattens, a
//! version newer than its own. Judged as the profile `--client` names, and
//! without one as `@ag-ui/client` 1.0.0 with a current peer, the client
//! every user has; the severities follow the receivers (a warning: the
//! client carries on, without what it dropped).

use serde_json::Value;

use super::EventView;
use super::{Rule, EVERY_VERSION};
use crate::client::Client;
use crate::diagnostic::Severity;
use crate::findings::Findings;
use crate::pointer;
use crate::protocol::{Declaration, Protocol};

pub(crate) const CLIENT_DROPS_EVENT: Rule = Rule {
    name: "client-drops-event",
    severity: Severity::Warning,
    protocols: EVERY_VERSION,
    severity_1x: None,
    summary: "The chosen client drops this event (--client)",
    docs: r#"## What it checks
With `--client 0.0.57`, `0.0.45` or `0.0.39` (the official `@ag-ui/client`
1.0.0 speaking to a peer pinned to that era, as upstream's era lanes run
it): a `SUBAGENT_STARTED`, `SUBAGENT_FINISHED` or `SUBAGENT_ERROR` event.
The client drops it with a warning ("AG-UI is dropping SUBAGENT_STARTED
because the target agent predates subagent support") and strips
`subagentRunId` from the other events and messages.

## Why it matters
The application never sees the subagent run: its start, its end, its
error. A server that must work with such clients attributes the work
without subagent events, or asks the client to upgrade its pin.

## Invalid
```json
[{"type": "RUN_STARTED", "threadId": "t1", "runId": "r1"},
 {"type": "SUBAGENT_STARTED", "subagentRunId": "s1", "name": "researcher"},
 {"type": "SUBAGENT_FINISHED", "subagentRunId": "s1"},
 {"type": "RUN_FINISHED", "threadId": "t1", "runId": "r1"}]
```

## Valid
```json
[{"type": "RUN_STARTED", "threadId": "t1", "runId": "r1"},
 {"type": "RUN_FINISHED", "threadId": "t1", "runId": "r1"}]
```
"#,
};

pub(crate) const CLIENT_FLATTENS_CONTENT: Rule = Rule {
    name: "client-flattens-content",
    severity: Severity::Warning,
    protocols: EVERY_VERSION,
    severity_1x: None,
    summary: "The chosen client flattens this content to text and drops its other parts (--client)",
    docs: r#"## What it checks
With `--client 0.0.39` (the official `@ag-ui/client` 1.0.0 speaking to a
peer pinned to 0.0.39, which predates content parts): a message of a
RunAgentInput whose `content` is a list holding parts other than text. The
client sends such a message with its content flattened to the text of its
text parts, dropping the others with a warning.

## Why it matters
The image, audio, video or document never reaches the agent; it answers a
question about a picture it was not sent.

## Invalid
```json
{"threadId": "t1", "runId": "r1", "messages": [{"id": "u1", "role": "user", "content": [
  {"type": "text", "text": "What is this?"},
  {"type": "image", "source": {"type": "url", "value": "https://example.com/cat.png"}}]}]}
```

## Valid
```json
{"threadId": "t1", "runId": "r1", "messages": [{"id": "u1", "role": "user", "content": "What is this?"}]}
```
"#,
};

pub(crate) const CLIENT_OLDER_THAN_STREAM: Rule = Rule {
    name: "client-older-than-stream",
    severity: Severity::Warning,
    protocols: EVERY_VERSION,
    severity_1x: None,
    summary: "The stream declares a version newer than the client speaks (by default @ag-ui/client 1.0.0)",
    docs: r#"## What it checks
Judged as `@ag-ui/client` 1.0.0 by default (and by every `--client`
profile, each of which is that client; it speaks AG-UI 1.0): a
`RUN_STARTED` whose `protocolVersion` is a version agui-lint knows and the
client does not (`"1.1"`). The client warns ("The producer speaks
protocol 1.1; this client speaks 1.0. Unrecognised material will be
stripped with warnings.") and strips what 1.1 added, such as
`encryptedValueType`. (A version agui-lint does not know either is
`unknown-protocol-version`.) Not reported where the request the stream
answers is known (a HAR entry, a probe, the kit, a response guard) and
declared that version or a newer one: no client speaking 1.0 sent it, and
answering with the version asked for is what the versioning text requires.

## Why it matters
What the newer version added never reaches an application on the older
client; a server that must serve such clients declares and speaks the
version they asked for (`protocolVersion` of the request).

## Invalid
```json
[{"type": "RUN_STARTED", "threadId": "t1", "runId": "r1", "protocolVersion": "1.1"},
 {"type": "RUN_FINISHED", "threadId": "t1", "runId": "r1"}]
```

## Valid
```json
[{"type": "RUN_STARTED", "threadId": "t1", "runId": "r1", "protocolVersion": "1.0"},
 {"type": "RUN_FINISHED", "threadId": "t1", "runId": "r1"}]
```
"#,
};

/// The rules of this family.
pub(crate) const RULES: &[Rule] = &[
    CLIENT_DROPS_EVENT,
    CLIENT_FLATTENS_CONTENT,
    CLIENT_OLDER_THAN_STREAM,
];

/// The version every client profile speaks: `@ag-ui/client` 1.0.0's.
const CLIENT_SPEAKS: Protocol = Protocol::V1_0;

/// The findings of `event`, at `at` (its pointer in the document: `""`,
/// or `/3` in an events document), as `client` would handle it; `asked` is
/// what the request the stream answers declared, when it is known.
pub(crate) fn event(
    client: Client,
    event: EventView<'_>,
    at: &str,
    asked: Option<&str>,
    out: &mut impl Findings,
) {
    let Some(kind) = event.str("type") else {
        return;
    };
    let subagent = matches!(
        kind,
        "SUBAGENT_STARTED" | "SUBAGENT_FINISHED" | "SUBAGENT_ERROR"
    );
    if kind == "RUN_STARTED" {
        let declared = event.str("protocolVersion");
        if let Some(Declaration::Known(version)) = declared.map(Protocol::from_declaration) {
            // A request that asked for this version came from no client
            // speaking 1.0 (@ag-ui/client 1.0.0 always declares "1.0"):
            // the answer is the one the versioning text requires.
            let asked_for = asked
                .map(Protocol::from_declaration)
                .is_some_and(|asked| asked.judged_as() >= version);
            if version.is_1x() && version > CLIENT_SPEAKS && !asked_for {
                out.add(&CLIENT_OLDER_THAN_STREAM, |rule| {
                    rule.diagnostic(
                        pointer::push(at, "protocolVersion"),
                        format!(
                            "the run declares AG-UI {version}; {} speaks {CLIENT_SPEAKS}: it warns and strips what {version} added",
                            client.described()
                        ),
                    )
                    .with_help(format!(
                        "speak the version the request declared (protocolVersion \"{CLIENT_SPEAKS}\") to such a client"
                    ))
                });
            }
        }
    }
    if subagent && client.drops_subagent_events() {
        out.add(&CLIENT_DROPS_EVENT, |rule| {
            rule.diagnostic(
                pointer::push(at, "type"),
                format!(
                    "{} drops {kind}, with a warning: the application never sees this subagent event",
                    client.described()
                ),
            )
            .with_help("a peer pinned before subagents cannot show them; attribute the work without subagent events for such clients")
        });
    }
}

/// The findings of `input`, a RunAgentInput, as `client` would send it.
pub(crate) fn request(client: Client, input: &Value, out: &mut impl Findings) {
    let Some(messages) = input.get("messages").and_then(Value::as_array) else {
        return;
    };
    for (index, message) in messages.iter().enumerate() {
        self::message(client, index, message, out);
    }
}

/// The findings of `message`, message `index` of a RunAgentInput, as
/// `client` would send it.
pub(crate) fn message(client: Client, index: usize, message: &Value, out: &mut impl Findings) {
    if !client.flattens_content() {
        return;
    }
    let Some(parts) = message.get("content").and_then(Value::as_array) else {
        return;
    };
    let is_text = |part: &Value| part.get("type").and_then(Value::as_str) == Some("text");
    // A text part without its text leaves the content as it is (the
    // client warns and sends it unflattened).
    if parts
        .iter()
        .any(|part| is_text(part) && !part.get("text").is_some_and(Value::is_string))
    {
        return;
    }
    let dropped: Vec<String> = parts
        .iter()
        .filter(|part| !is_text(part))
        .map(|part| match part.get("type").and_then(Value::as_str) {
            Some(kind) => format!("'{kind}'"),
            None => "a part with no type".to_string(),
        })
        .collect();
    if dropped.is_empty() {
        return;
    }
    out.add(&CLIENT_FLATTENS_CONTENT, |rule| {
        rule.diagnostic(
            format!("/messages/{index}/content"),
            format!(
                "{} sends this content flattened to its text, dropping {} part{} ({})",
                client.described(),
                dropped.len(),
                if dropped.len() == 1 { "" } else { "s" },
                dropped.join(", ")
            ),
        )
        .with_help(
            "a 0.0.39 peer reads text content only; what the other parts carried never reaches it",
        )
    });
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn subagent_events_are_dropped_by_clients_pinned_before_subagents() {
        let started = json!({"type": "SUBAGENT_STARTED", "subagentRunId": "s", "name": "n"});
        for (client, dropped) in [
            (Client::V1_0_0, false),
            (Client::V0_0_57, true),
            (Client::V0_0_45, true),
            (Client::V0_0_39, true),
        ] {
            let mut found = Vec::new();
            event(client, EventView::from(&started), "/2", None, &mut found);
            assert_eq!(found.len(), usize::from(dropped), "{client}");
            if dropped {
                assert_eq!(found[0].pointer, "/2/type");
            }
        }
        let started =
            json!({"type": "RUN_STARTED", "threadId": "t", "runId": "r", "protocolVersion": "1.1"});
        let mut found = Vec::new();
        event(
            Client::V1_0_0,
            EventView::from(&started),
            "",
            None,
            &mut found,
        );
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].rule, CLIENT_OLDER_THAN_STREAM.name);
        // Answering a request that asked for 1.1 (or newer) with 1.1.
        for asked in ["1.1", "1.2"] {
            let mut found = Vec::new();
            event(
                Client::V1_0_0,
                EventView::from(&started),
                "",
                Some(asked),
                &mut found,
            );
            assert!(found.is_empty(), "{asked}");
        }
        let mut found = Vec::new();
        event(
            Client::V1_0_0,
            EventView::from(&started),
            "",
            Some("1.0"),
            &mut found,
        );
        assert_eq!(found.len(), 1);
        let started =
            json!({"type": "RUN_STARTED", "threadId": "t", "runId": "r", "protocolVersion": "1.0"});
        let mut found = Vec::new();
        event(
            Client::V1_0_0,
            EventView::from(&started),
            "",
            None,
            &mut found,
        );
        assert!(found.is_empty());
        let mut found = Vec::new();
        let text = json!({"type": "TEXT_MESSAGE_END", "messageId": "m"});
        event(
            Client::V0_0_39,
            EventView::from(&text),
            "",
            None,
            &mut found,
        );
        assert!(found.is_empty());
    }

    #[test]
    fn content_with_other_parts_is_flattened_for_a_0_0_39_peer() {
        let input = json!({"threadId": "t", "runId": "r", "messages": [
            {"id": "u1", "role": "user", "content": [{"type": "text", "text": "a"}, {"type": "image", "source": {"type": "url", "value": "https://x"}}]},
            {"id": "u2", "role": "user", "content": [{"type": "text", "text": "only text"}]},
            {"id": "u3", "role": "user", "content": "plain"}
        ]});
        let mut found = Vec::new();
        request(Client::V0_0_39, &input, &mut found);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].pointer, "/messages/0/content");
        assert!(found[0].message.contains("'image'"), "{}", found[0].message);
        let mut found = Vec::new();
        request(Client::V0_0_45, &input, &mut found);
        assert!(found.is_empty());
    }
}
