//! RunAgentInputs shaped like traffic (issue 52): the requests of a few
//! applications, each offering its own tools in a few variants (as one
//! application's releases differ: a property added, an enum grown, a
//! description reworded), carrying conversations of every length with
//! non-ASCII text, tool calls and their results. Most warned records carry
//! many findings of one rule, as a model that misreads a tool repeats it:
//! `tool-arguments-schema-mismatch` on up to 20 calls.

use serde_json::{json, Map, Value};

use super::events::Framing;
use super::{Lcg, Written};

/// Words of users' and assistants' text, some of them not ASCII.
const WORDS: [&str; 24] = [
    "please",
    "book",
    "the",
    "flight",
    "to",
    "Zürich",
    "tomorrow",
    "for",
    "two",
    "café",
    "naïve",
    "東京",
    "report",
    "rapport",
    "Überblick",
    "señal",
    "🚀",
    "Привет",
    "meeting",
    "invoice",
    "ticket",
    "customer",
    "status",
    "résumé",
];

/// `least` to `least + spread - 1` words.
fn some_text(rng: &mut Lcg, least: u64, spread: u64) -> String {
    let words = least + rng.below(spread);
    text(rng, words as usize)
}

fn text(rng: &mut Lcg, words: usize) -> String {
    (0..words)
        .map(|_| WORDS[rng.below(WORDS.len() as u64) as usize])
        .collect::<Vec<_>>()
        .join(" ")
}

/// A tool of `name` whose parameters are `properties`, `required` of them
/// required, closed.
fn tool(name: &str, description: &str, properties: Value, required: &[&str]) -> Value {
    json!({
        "name": name,
        "description": description,
        "parameters": {
            "type": "object",
            "properties": properties,
            "required": required,
            "additionalProperties": false
        }
    })
}

/// The tools of application `app` as its release `variant` offers them.
fn tools(app: usize, variant: usize) -> Vec<Value> {
    let mut tools = match app {
        0 => vec![
            tool(
                "search_flights",
                "Search flights between two airports.",
                json!({
                    "from": {"type": "string", "pattern": "^[A-Z]{3}$", "description": "IATA code"},
                    "to": {"type": "string", "pattern": "^[A-Z]{3}$"},
                    "date": {"type": "string", "format": "date"},
                    "passengers": {"type": "integer", "minimum": 1, "maximum": 9},
                    "cabin": {"type": "string", "enum": ["economy", "premium", "business", "first"]},
                    "flexible": {"type": "boolean"}
                }),
                &["from", "to", "date"],
            ),
            tool(
                "book_hotel",
                "Book a hotel room.",
                json!({
                    "city": {"type": "string", "minLength": 1},
                    "nights": {"type": "integer", "minimum": 1, "maximum": 30},
                    "guests": {"type": "object", "properties": {
                        "adults": {"type": "integer", "minimum": 1, "maximum": 8},
                        "children": {"type": "integer", "minimum": 0, "maximum": 8}
                    }, "required": ["adults"], "additionalProperties": false},
                    "amenities": {"type": "array", "items": {"type": "string", "enum": ["wifi", "pool", "gym", "parking"]}}
                }),
                &["city", "nights", "guests"],
            ),
            tool(
                "convert_currency",
                "Convert an amount between currencies.",
                json!({
                    "amount": {"type": "number", "minimum": 0},
                    "from": {"type": "string", "pattern": "^[A-Z]{3}$"},
                    "to": {"type": "string", "pattern": "^[A-Z]{3}$"}
                }),
                &["amount", "from", "to"],
            ),
            tool(
                "get_weather",
                "Current weather and forecast for a city.",
                json!({
                    "city": {"type": "string"},
                    "unit": {"type": "string", "enum": ["celsius", "fahrenheit"], "default": "celsius"},
                    "days": {"type": "integer", "minimum": 1, "maximum": 7}
                }),
                &["city"],
            ),
            tool(
                "confirm_booking",
                "Ask the user to confirm a booking.",
                json!({
                    "summary": {"type": "string", "maxLength": 500},
                    "price": {"type": "number"},
                    "currency": {"type": "string", "pattern": "^[A-Z]{3}$"}
                }),
                &["summary"],
            ),
        ],
        1 => vec![
            tool(
                "find_customer",
                "Find customers by name or email.",
                json!({
                    "query": {"type": "string", "minLength": 2},
                    "limit": {"type": "integer", "minimum": 1, "maximum": 50},
                    "status": {"type": "string", "enum": ["lead", "active", "churned"]}
                }),
                &["query"],
            ),
            tool(
                "create_ticket",
                "Open a support ticket.",
                json!({
                    "customerId": {"type": "string", "pattern": "^cus_[a-z0-9]{6}$"},
                    "subject": {"type": "string", "minLength": 1, "maxLength": 120},
                    "priority": {"type": "string", "enum": ["low", "normal", "high", "urgent"]},
                    "tags": {"type": "array", "items": {"type": "string"}, "maxItems": 5}
                }),
                &["customerId", "subject", "priority"],
            ),
            tool(
                "update_deal",
                "Move a deal to another stage.",
                json!({
                    "dealId": {"type": "string", "pattern": "^deal_[0-9]{4}$"},
                    "stage": {"type": "string", "enum": ["qualified", "proposal", "won", "lost"]},
                    "amount": {"type": "number", "minimum": 0},
                    "closeDate": {"type": "string", "format": "date"}
                }),
                &["dealId", "stage"],
            ),
            tool(
                "send_email",
                "Send an email to a customer.",
                json!({
                    "to": {"type": "string", "format": "email"},
                    "subject": {"type": "string"},
                    "body": {"type": "string"},
                    "cc": {"type": "array", "items": {"type": "string", "format": "email"}}
                }),
                &["to", "subject", "body"],
            ),
            tool(
                "render_chart",
                "Render a chart in the UI.",
                json!({
                    "kind": {"type": "string", "enum": ["bar", "line", "pie"]},
                    "series": {"type": "array", "minItems": 1, "items": {"type": "object", "properties": {
                        "label": {"type": "string"},
                        "values": {"type": "array", "items": {"type": "number"}}
                    }, "required": ["label", "values"]}}
                }),
                &["kind", "series"],
            ),
        ],
        _ => vec![
            tool(
                "read_file",
                "Read a file of the workspace.",
                json!({
                    "path": {"type": "string", "pattern": "^[a-z0-9_/.-]+$"},
                    "startLine": {"type": "integer", "minimum": 1},
                    "endLine": {"type": "integer", "minimum": 1}
                }),
                &["path"],
            ),
            tool(
                "run_command",
                "Run a shell command in the sandbox.",
                json!({
                    "command": {"type": "string", "minLength": 1},
                    "timeoutSeconds": {"type": "integer", "minimum": 1, "maximum": 600},
                    "env": {"type": "object", "additionalProperties": {"type": "string"}}
                }),
                &["command"],
            ),
            tool(
                "apply_patch",
                "Apply a unified diff.",
                json!({
                    "path": {"type": "string"},
                    "diff": {"type": "string", "minLength": 1},
                    "dryRun": {"type": "boolean"}
                }),
                &["path", "diff"],
            ),
            tool(
                "search_code",
                "Search the workspace.",
                json!({
                    "query": {"type": "string", "minLength": 1},
                    "language": {"type": "string", "enum": ["rust", "python", "typescript", "go"]},
                    "maxResults": {"type": "integer", "minimum": 1, "maximum": 100}
                }),
                &["query"],
            ),
        ],
    };
    // A later release: every tool takes a locale, and the first tool's
    // first enum (if any) has grown.
    if variant >= 1 {
        for tool in &mut tools {
            tool["parameters"]["properties"]["locale"] =
                json!({"type": "string", "pattern": "^[a-z]{2}(-[A-Z]{2})?$"});
        }
    }
    if variant >= 2 {
        tools[0]["description"] = Value::from("Search, with the new provider.");
        tools[0]["parameters"]["$schema"] =
            Value::from("https://json-schema.org/draft/2020-12/schema");
    }
    tools
}

/// A string the schema `schema` (a string schema of [`tools`]) accepts.
fn string_for(schema: &Value, rng: &mut Lcg) -> Value {
    if let Some(choices) = schema["enum"].as_array() {
        return choices[rng.below(choices.len() as u64) as usize].clone();
    }
    let text = match (schema["pattern"].as_str(), schema["format"].as_str()) {
        (Some("^[A-Z]{3}$"), _) => {
            ["OSL", "ZRH", "NRT", "EUR", "USD"][rng.below(5) as usize].into()
        }
        (Some("^cus_[a-z0-9]{6}$"), _) => format!("cus_{:06x}", rng.below(0xff_ffff)),
        (Some("^deal_[0-9]{4}$"), _) => format!("deal_{:04}", rng.below(10_000)),
        (Some("^[a-z0-9_/.-]+$"), _) => format!("src/module_{}/mod.rs", rng.below(40)),
        (Some("^[a-z]{2}(-[A-Z]{2})?$"), _) => {
            ["de-CH", "ja", "en-GB"][rng.below(3) as usize].into()
        }
        (_, Some("date")) => format!("2026-{:02}-{:02}", 1 + rng.below(12), 1 + rng.below(28)),
        (_, Some("email")) => format!("user{}@example.com", rng.below(1000)),
        _ => some_text(rng, 2, 6),
    };
    Value::from(text)
}

/// A value the schema `schema` accepts, with every required key and some
/// optional ones.
fn value_for(schema: &Value, rng: &mut Lcg) -> Value {
    match schema["type"].as_str() {
        Some("string") => string_for(schema, rng),
        Some("integer") => {
            let min = schema["minimum"].as_u64().unwrap_or(0);
            let max = schema["maximum"].as_u64().unwrap_or(min + 20);
            Value::from(min + rng.below(max - min + 1))
        }
        Some("number") => Value::from(rng.below(100_000) as f64 / 100.0),
        Some("boolean") => Value::from(rng.below(2) == 0),
        Some("array") => {
            let least = schema["minItems"].as_u64().unwrap_or(0);
            let items = least + rng.below(3);
            Value::Array(
                (0..items)
                    .map(|_| value_for(&schema["items"], rng))
                    .collect(),
            )
        }
        Some("object") => {
            let mut object = Map::new();
            let required: Vec<&str> = schema["required"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .collect();
            for (key, property) in schema["properties"].as_object().into_iter().flatten() {
                if required.contains(&key.as_str()) || rng.below(2) == 0 {
                    object.insert(key.clone(), value_for(property, rng));
                }
            }
            Value::Object(object)
        }
        _ => Value::from(text(rng, 2)),
    }
}

/// Arguments for `tool`, valid or broken in one place (a required key
/// left out, a string where a number goes, a value outside its enum or
/// bounds): one `tool-arguments-schema-mismatch` each.
fn arguments(tool: &Value, broken: bool, rng: &mut Lcg) -> String {
    let schema = &tool["parameters"];
    let mut arguments = value_for(schema, rng);
    if broken {
        let required = schema["required"][0]
            .as_str()
            .unwrap_or_default()
            .to_owned();
        match rng.below(3) {
            0 => {
                if let Some(object) = arguments.as_object_mut() {
                    object.remove(&required);
                }
            }
            1 => arguments[required.as_str()] = json!(12345),
            _ => arguments[required.as_str()] = json!({"unexpected": true}),
        }
    }
    arguments.to_string()
}

/// One request of application `app` (release `variant`) with `turns`
/// turns, whose first `broken` tool calls break their tool's schema.
fn request(seed: u64, app: usize, variant: usize, turns: usize, broken: usize) -> Value {
    let mut rng = Lcg::new(seed);
    let mut tools = tools(app, variant);
    // The CRM tells the model whose workspace it works in, in the
    // descriptions of its tools' parameters: schemas that differ by
    // thread in their annotations alone.
    if app == 1 {
        for tool in &mut tools {
            for (_, property) in tool["parameters"]["properties"]
                .as_object_mut()
                .into_iter()
                .flatten()
            {
                property["description"] =
                    Value::from(format!("In workspace ws-{} of Zürich office", seed / 7));
            }
        }
    }
    let mut messages = vec![json!({"id": format!("sys-{seed}"), "role": "system",
        "content": "You are the assistant of this application. Use the tools; answer in the user's language."})];
    let mut calls = 0;
    for turn in 0..turns {
        messages.push(json!({"id": format!("u-{seed}-{turn}"), "role": "user",
            "content": some_text(&mut rng, 8, 30)}));
        let mut tool_calls = Vec::new();
        for n in 0..1 + rng.below(2) {
            let tool = &tools[rng.below(tools.len() as u64) as usize];
            tool_calls.push(json!({
                "id": format!("call_{seed}_{turn}_{n}"), "type": "function",
                "function": {"name": tool["name"], "arguments": arguments(tool, calls < broken, &mut rng)}
            }));
            calls += 1;
        }
        messages.push(
            json!({"id": format!("a-{seed}-{turn}"), "role": "assistant",
            "content": some_text(&mut rng, 0, 12), "toolCalls": tool_calls.clone()}),
        );
        for call in &tool_calls {
            messages.push(
                json!({"id": format!("t-{}", call["id"].as_str().unwrap_or_default()),
                "role": "tool", "toolCallId": call["id"],
                "content": json!({"ok": true, "result": some_text(&mut rng, 10, 40)}).to_string()}),
            );
        }
        messages.push(
            json!({"id": format!("b-{seed}-{turn}"), "role": "assistant",
            "content": some_text(&mut rng, 20, 60)}),
        );
    }
    json!({
        "threadId": format!("thread-{app}-{}", seed / 7),
        "runId": format!("run-{seed}"),
        "state": {"app": app, "release": variant, "cart": {"items": rng.below(5)}},
        "messages": messages,
        "tools": tools,
        "context": [{"description": "locale", "value": "de-CH"}, {"description": "timezone", "value": "Europe/Zurich"}],
        "forwardedProps": {}
    })
}

/// Requests of three applications in three releases each, about `target`
/// bytes framed as `framing`: a fifth short (1–2 turns, ~2–4 KB), most of
/// medium length (10–14 turns), one in ten long (30–40 turns, ~50–60 KB).
/// With `warned`, 58% of them have up to 20 calls that break their
/// tool's schema.
pub fn capture(
    out: &mut impl std::io::Write,
    target: usize,
    framing: Framing,
    warned: bool,
) -> std::io::Result<Written> {
    let mut rng = Lcg::new(52);
    let mut written = Written {
        bytes: 0,
        records: 0,
        largest: 0,
    };
    let mut seed = 0u64;
    while written.bytes < target {
        let app = rng.below(3) as usize;
        let variant = rng.below(3) as usize;
        let turns = match rng.below(10) {
            0 | 1 => 1 + rng.below(2),
            2 => 30 + rng.below(11),
            _ => 10 + rng.below(5),
        } as usize;
        let broken = if warned && rng.below(100) < 58 { 20 } else { 0 };
        let record = request(seed, app, variant, turns, broken).to_string();
        written.largest = written.largest.max(record.len());
        written.bytes += framing.write(&record, out)?;
        written.records += 1;
        seed += 1;
    }
    Ok(written)
}
