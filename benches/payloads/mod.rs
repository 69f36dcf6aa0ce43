//! Deterministic AG-UI payloads for the benchmarks: the same bytes on every
//! run and machine, generated rather than committed.

use base64::Engine;
use serde_json::{json, Value};

pub mod apps;
pub mod events;
pub mod frames;
pub mod traffic;

/// A tiny linear congruential generator: deterministic, dependency-free.
pub struct Lcg(u64);

impl Lcg {
    pub fn new(seed: u64) -> Self {
        Lcg(seed)
    }

    pub fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        self.0 >> 33
    }

    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

const WORDS: [&str; 16] = [
    "weather", "forecast", "the", "agent", "tool", "result", "Oslo", "tomorrow", "rain", "please",
    "check", "calendar", "meeting", "summary", "report", "status",
];

fn sentence(rng: &mut Lcg, words: usize) -> String {
    (0..words)
        .map(|_| WORDS[rng.below(WORDS.len() as u64) as usize])
        .collect::<Vec<_>>()
        .join(" ")
}

/// A tool whose parameters schema has an `options` object nested `depth`
/// levels deep next to the arguments [`arguments`] gives.
fn tool(i: usize, depth: usize) -> Value {
    let mut options = json!({
        "type": "object",
        "properties": {"verbose": {"type": "boolean"}, "lang": {"type": "string", "pattern": "^[a-z]{2}$"}},
        "additionalProperties": false
    });
    for level in 0..depth {
        options = json!({
            "type": "object",
            "description": format!("Options, level {level}"),
            "properties": {"nested": options, "flag": {"type": "boolean"}},
            "additionalProperties": false
        });
    }
    json!({
        "name": format!("tool_{i}"),
        "description": format!("Tool number {i}, which looks things up"),
        "parameters": {
            "type": "object",
            "properties": {
                "query": {"type": "string", "description": "What to look up", "minLength": 1},
                "limit": {"type": "integer", "minimum": 1, "maximum": 100},
                "units": {"type": "string", "enum": ["metric", "imperial"]},
                "options": options
            },
            "required": ["query"],
            "additionalProperties": false
        }
    })
}

/// Arguments that satisfy [`tool`]'s schema at depth 0.
fn arguments(rng: &mut Lcg) -> String {
    json!({"query": sentence(rng, 3), "limit": 1 + rng.below(100), "units": "metric"}).to_string()
}

/// A RunAgentInput of `turns` user/assistant/tool rounds over `tools` tools,
/// with `images` base64 images of `image_bytes` each and url parts every
/// `url_every` turns (0: none).
pub fn run_agent_input(
    seed: u64,
    turns: usize,
    tools: usize,
    depth: usize,
    images: usize,
    image_bytes: usize,
    url_every: usize,
) -> Value {
    let mut rng = Lcg::new(seed);
    let mut messages =
        vec![json!({"id": "sys", "role": "system", "content": "You are a helpful agent."})];
    for turn in 0..turns {
        let user_content = if url_every > 0 && turn % url_every == 0 {
            json!([
                {"type": "text", "text": sentence(&mut rng, 40)},
                {"type": "image", "source": {"type": "url", "value": format!("https://cdn.example.com/img/{turn}.png"), "mimeType": "image/png"}}
            ])
        } else {
            Value::String(sentence(&mut rng, 40))
        };
        messages.push(json!({"id": format!("u{turn}"), "role": "user", "content": user_content}));
        let call = format!("call_{turn}");
        let name = format!("tool_{}", turn % tools.max(1));
        messages.push(json!({
            "id": format!("a{turn}"), "role": "assistant", "content": sentence(&mut rng, 30),
            "toolCalls": [{"id": call, "type": "function", "function": {"name": name, "arguments": arguments(&mut rng)}}]
        }));
        messages.push(json!({"id": format!("t{turn}"), "role": "tool", "toolCallId": call, "content": sentence(&mut rng, 200)}));
    }
    for i in 0..images {
        let data: Vec<u8> = (0..image_bytes).map(|_| rng.below(256) as u8).collect();
        messages.push(json!({
            "id": format!("img{i}"), "role": "user",
            "content": [{"type": "image", "source": {"type": "data", "value": base64::engine::general_purpose::STANDARD.encode(&data), "mimeType": "image/png"}}]
        }));
    }
    json!({
        "threadId": "thread-1",
        "runId": format!("run-{seed}"),
        "state": {"step": 3, "items": ["a", "b"]},
        "messages": messages,
        "tools": (0..tools).map(|i| tool(i, depth)).collect::<Vec<_>>(),
        "context": [{"description": "user timezone", "value": "Europe/Oslo"}],
        "forwardedProps": {}
    })
}

/// The same payload with one error: its last message reuses the first
/// message's id (`duplicate-message-id`, found by a rule, located with its
/// related first occurrence).
pub fn with_one_error(mut payload: Value) -> Value {
    if let Some(last) = payload["messages"]
        .as_array_mut()
        .and_then(|m| m.last_mut())
    {
        last["id"] = Value::from("sys");
    }
    payload
}

pub fn bytes(value: &Value) -> Vec<u8> {
    serde_json::to_vec(value).expect("serialize")
}

/// ~2 KB: 4 messages, 2 tools.
pub fn small() -> Value {
    run_agent_input(1, 1, 2, 0, 0, 0, 0)
}

/// ~64 KB: 60 messages with tool calls and results, 10 tools with nested
/// parameter schemas, some url content parts.
pub fn medium() -> Value {
    run_agent_input(2, 20, 10, 9, 0, 0, 5)
}

/// ~2 MB: 400 messages, 30 tools, several ~100 KB base64 images.
pub fn large() -> Value {
    run_agent_input(3, 133, 30, 2, 12, 100 * 1024, 10)
}

/// ~100 MB of JSON Lines: 5,000 mixed payloads, ~1% of them invalid
/// (a broken line, or a payload with an error), written to `out` one line
/// at a time. Returns the bytes written and the largest line's length.
pub fn capture(out: &mut impl std::io::Write) -> std::io::Result<(usize, usize)> {
    let mut rng = Lcg::new(7);
    let (mut total, mut largest) = (0, 0);
    for i in 0..5000u64 {
        let payload = match rng.below(10) {
            0..=6 => run_agent_input(i, 1 + rng.below(4) as usize, 2, 0, 0, 0, 0),
            _ => run_agent_input(i, 20, 10, 9, 0, 0, 5),
        };
        let mut line = match rng.below(100) {
            0 => bytes(&with_one_error(payload)),
            1 => {
                let mut b = bytes(&payload);
                b.truncate(b.len() / 2);
                b
            }
            _ => bytes(&payload),
        };
        largest = largest.max(line.len());
        line.push(b'\n');
        total += line.len();
        out.write_all(&line)?;
    }
    Ok((total, largest))
}

/// The AG-UI 1.1 form of [`run_agent_input`], shaped like the official
/// client's requests: it declares `protocolVersion`, user messages carry
/// `metadata` and parts with `id`s (and a provider's `file` every
/// `url_every` turns), each turn has a reasoning message with an
/// `encryptedValue` and its `encryptedValueType`, every fourth tool result
/// is a list of parts, tools carry `metadata` and one takes no
/// `parameters`, and the run resumes from an interrupt.
pub fn run_agent_input_1_1(
    seed: u64,
    turns: usize,
    tools: usize,
    depth: usize,
    images: usize,
    image_bytes: usize,
    url_every: usize,
) -> Value {
    let base = run_agent_input(seed, turns, tools, depth, images, image_bytes, url_every);
    let mut rng = Lcg::new(seed ^ 0x11);
    let mut messages = Vec::new();
    let mut part_id = 0;
    for mut message in base["messages"].as_array().cloned().unwrap_or_default() {
        let role = message["role"].as_str().unwrap_or_default().to_owned();
        let id = message["id"].as_str().unwrap_or_default().to_owned();
        match role.as_str() {
            "user" => {
                message["metadata"] = json!({"client": "web", "composer": "rich"});
                if let Some(parts) = message["content"].as_array_mut() {
                    for part in parts.iter_mut() {
                        part_id += 1;
                        part["id"] = Value::from(format!("part-{part_id}"));
                    }
                    if parts.iter().any(|p| p["source"]["type"] == "url") {
                        part_id += 1;
                        parts.push(json!({
                            "type": "document", "id": format!("part-{part_id}"),
                            "source": {"type": "file", "value": format!("file-{id}"), "provider": "openai", "mimeType": "application/pdf"}
                        }));
                    }
                }
            }
            "assistant" => {
                messages.push(json!({
                    "id": format!("r-{id}"), "role": "reasoning", "content": sentence(&mut rng, 20),
                    "encryptedValue": format!("gAAAAAB{}", rng.next()),
                    "encryptedValueType": "openai-reasoning-item"
                }));
            }
            "tool" if rng.below(4) == 0 => {
                let text = message["content"].take();
                message["content"] =
                    json!([{"type": "text", "id": format!("{id}-0"), "text": text}]);
            }
            _ => {}
        }
        messages.push(message);
    }
    let mut tool_list = base["tools"].as_array().cloned().unwrap_or_default();
    for tool in &mut tool_list {
        tool["metadata"] = json!({"origin": "frontend"});
    }
    tool_list.push(json!({"name": "get_current_time", "description": "Return the current time in the user's timezone."}));
    json!({
        "threadId": base["threadId"],
        "runId": base["runId"],
        "protocolVersion": "1.1",
        "state": base["state"],
        "messages": messages,
        "tools": tool_list,
        "context": base["context"],
        "forwardedProps": {"model": "scripted-1", "stream": true},
        "resume": [{"interruptId": format!("int-{seed}"), "status": "resolved", "payload": {"approved": true}}]
    })
}

/// [`small`] in AG-UI 1.1.
pub fn small_1_1() -> Value {
    run_agent_input_1_1(1, 1, 2, 0, 0, 0, 0)
}

/// [`medium`] in AG-UI 1.1.
pub fn medium_1_1() -> Value {
    run_agent_input_1_1(2, 20, 10, 9, 0, 0, 5)
}

/// [`large`] in AG-UI 1.1.
pub fn large_1_1() -> Value {
    run_agent_input_1_1(3, 133, 30, 2, 12, 100 * 1024, 10)
}

/// Arguments that break [`tool`]'s schema in one place each, in turn: an
/// empty `query` (minLength), a `limit` out of range, a `units` outside its
/// enum, a missing `query`. Each is one `tool-arguments-schema-mismatch`
/// warning.
fn mismatched_arguments(rng: &mut Lcg, which: u64) -> String {
    match which % 4 {
        0 => json!({"query": "", "limit": 1 + rng.below(100)}),
        1 => json!({"query": sentence(rng, 3), "limit": 500 + rng.below(100)}),
        2 => json!({"query": sentence(rng, 3), "units": "kelvin"}),
        _ => json!({"limit": 1 + rng.below(100), "units": "metric"}),
    }
    .to_string()
}

/// The tool calls of `payload`'s assistant messages, in order.
fn tool_calls(payload: &mut Value) -> Vec<&mut Value> {
    payload["messages"]
        .as_array_mut()
        .into_iter()
        .flatten()
        .filter_map(|m| m.get_mut("toolCalls").and_then(Value::as_array_mut))
        .flatten()
        .collect()
}

/// ~2 MB AG-UI 1.1 RunAgentInput with 810 turns over 10 tools, where
/// every other tool call's arguments break its tool's `parameters` (405
/// `tool-arguments-schema-mismatch` warnings) and every hundredth turn's
/// tool result reuses a message id (9 `duplicate-message-id` errors): a
/// document whose report is long, for the cost of rendering findings.
pub fn with_findings_1_1() -> Value {
    let mut payload = run_agent_input_1_1(11, 810, 10, 0, 0, 0, 0);
    let mut rng = Lcg::new(11);
    for (i, call) in tool_calls(&mut payload).into_iter().enumerate() {
        if i % 2 == 0 {
            call["function"]["arguments"] =
                Value::from(mismatched_arguments(&mut rng, i as u64 / 2));
        }
    }
    if let Some(messages) = payload["messages"].as_array_mut() {
        for (i, message) in messages.iter_mut().enumerate() {
            // Tool results are every fourth message (user, reasoning,
            // assistant, tool) after the system message.
            if message["role"] == "tool" && i % 400 == 4 {
                message["id"] = Value::from("sys");
            }
        }
    }
    payload
}

/// What a line of a capture with findings carries.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Finding {
    None,
    /// One `tool-arguments-schema-mismatch` warning.
    Warning,
    /// One `empty-id` warning (the system message's id is `""`): the
    /// cheapest warning a RunAgentInput can carry, found by a rule on the
    /// typed view.
    EmptyId,
    /// One `duplicate-message-id` error.
    Error,
    /// One `unknown-field` warning (a message carries `colour`), the
    /// warning whose did-you-mean measures the key against every key the
    /// object may have.
    UnknownField,
    /// Several warnings of different rules, as most records of a busy
    /// agent's capture carry: every tool call's arguments break their
    /// tool's schema (`tool-arguments-schema-mismatch`), the system
    /// message's id is empty (`empty-id`) and a message carries a key the
    /// protocol does not know (`unknown-field`).
    Several,
}

/// A small AG-UI 1.1 RunAgentInput (1 to 4 turns, 2 tools) carrying
/// `finding`.
pub fn small_1_1_with(seed: u64, turns: usize, finding: Finding) -> Value {
    let mut payload = run_agent_input_1_1(seed, turns, 2, 0, 0, 0, 0);
    match finding {
        Finding::None => {}
        Finding::Warning => {
            let mut rng = Lcg::new(seed);
            if let Some(call) = tool_calls(&mut payload).into_iter().next() {
                call["function"]["arguments"] = Value::from(mismatched_arguments(&mut rng, seed));
            }
        }
        Finding::EmptyId => payload["messages"][0]["id"] = Value::from(""),
        Finding::Error => payload = with_one_error(payload),
        Finding::UnknownField => payload["messages"][1]["colour"] = Value::from("blue"),
        Finding::Several => {
            let mut rng = Lcg::new(seed);
            for (i, call) in tool_calls(&mut payload).into_iter().enumerate() {
                call["function"]["arguments"] =
                    Value::from(mismatched_arguments(&mut rng, seed + i as u64));
            }
            payload["messages"][0]["id"] = Value::from("");
            payload["messages"][1]["client_ref"] = Value::from("web-7");
        }
    }
    payload
}

/// A 1.1 RunAgentInput of `calls` turns, each with one tool call, whose
/// first `broken` calls' arguments break their tool's schema: a record
/// with `broken` findings and, for `broken` 0, the same record clean, of
/// nearly the same size (the broken arguments are as long as the good).
pub fn with_broken_calls(calls: usize, broken: usize) -> Value {
    let mut payload = run_agent_input_1_1(5, calls, 2, 0, 0, 0, 0);
    let mut rng = Lcg::new(5);
    for (i, call) in tool_calls(&mut payload)
        .into_iter()
        .enumerate()
        .take(broken)
    {
        call["function"]["arguments"] = Value::from(mismatched_arguments(&mut rng, i as u64));
    }
    payload
}

/// What a capture writer wrote: bytes, records, the largest record's
/// length.
pub struct Written {
    pub bytes: usize,
    pub records: usize,
    pub largest: usize,
}

/// JSON Lines of [`small_1_1_with`] records until `size` bytes, each with
/// the finding `pick` gives for its index and a random draw below 100.
pub fn capture_with_findings(
    out: &mut impl std::io::Write,
    size: usize,
    pick: impl Fn(u64, u64) -> Finding,
) -> std::io::Result<Written> {
    capture_of(out, size, |i, rng| {
        let turns = 1 + rng.below(4) as usize;
        let finding = pick(i, rng.below(100));
        small_1_1_with(i, turns, finding)
    })
}

/// JSON Lines of clean [`small_1_1_with`] records until `size` bytes whose
/// tools are, in every record, schemas never seen before: each tool's
/// parameters gain a property named after the record (what a server
/// whose tools differ per user or per session, or a fleet's logs from
/// many applications, sends).
pub fn capture_with_unique_tools(
    out: &mut impl std::io::Write,
    size: usize,
) -> std::io::Result<Written> {
    capture_of(out, size, |i, rng| {
        let turns = 1 + rng.below(4) as usize;
        let mut payload = small_1_1_with(i, turns, Finding::None);
        with_unique_tools(&mut payload, i);
        payload
    })
}

/// Gives every tool of `payload` that has parameters a property of its
/// own named after `record`, so that no two records share a schema.
pub fn with_unique_tools(payload: &mut Value, record: u64) {
    let Some(tools) = payload["tools"].as_array_mut() else {
        return;
    };
    for (t, tool) in tools.iter_mut().enumerate() {
        // `get_mut`, not indexing, which would give a tool without
        // parameters a `parameters` of `null` properties.
        let properties = tool
            .get_mut("parameters")
            .and_then(|parameters| parameters.get_mut("properties"))
            .and_then(Value::as_object_mut);
        if let Some(properties) = properties {
            properties.insert(
                format!("session_{record}_{t}"),
                json!({"type": "string", "maxLength": 64}),
            );
        }
    }
}

/// `size` bytes of JSON Lines, record `i` made by `record(i, rng)`.
pub fn capture_of(
    out: &mut impl std::io::Write,
    size: usize,
    mut record: impl FnMut(u64, &mut Lcg) -> Value,
) -> std::io::Result<Written> {
    let mut rng = Lcg::new(23);
    let mut written = Written {
        bytes: 0,
        records: 0,
        largest: 0,
    };
    let mut i = 0u64;
    while written.bytes < size {
        let mut line = bytes(&record(i, &mut rng));
        written.largest = written.largest.max(line.len());
        line.push(b'\n');
        written.bytes += line.len();
        written.records += 1;
        out.write_all(&line)?;
        i += 1;
    }
    Ok(written)
}
