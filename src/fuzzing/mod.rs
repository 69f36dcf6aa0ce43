//! Entry points for the fuzz targets under `fuzz/` and for the smoke test
//! that runs them in `cargo test`: each takes arbitrary bytes and must
//! return without panicking, whatever they hold. Not a stable API.
//!
//! This file holds the validators they share, the time budget of a run,
//! and the entry points of the validator itself (documents, readers, tool
//! schemas and arguments, the locator); the others are by family: the
//! fast paths held to the full path (`differential.rs`), the capture
//! readers (`captures.rs`) and the server side (`servers.rs`).

mod captures;
mod differential;
mod servers;

pub use captures::{har, proto, recordings, stream};
pub use differential::{
    beyond_the_fast_path, differential, differential_as, event_differential, fast_and_full,
    fast_and_full_event, fast_judges,
};
pub use servers::{guard_body, kit_exchange, probe_response, proxy_exchange};

use std::sync::LazyLock;

use serde_json::{json, Value};

use crate::check::check_reader;
use crate::diagnostic::Target;
use crate::input::Layout;
use crate::locate::Locator;
use crate::{Kind, Protocol, ProtocolChoice, Settings, Validator};

static VALIDATOR: LazyLock<Option<Validator>> = LazyLock::new(|| Validator::new().ok());

/// The validators the fast path is held to, by [`Protocol::index`]: each
/// judges undeclared documents as one version (the fast path reads every
/// version, and must choose the judged one as the full path does).
static BY_DEFAULT: LazyLock<Option<Vec<Validator>>> = LazyLock::new(|| {
    let validator = Validator::new().ok()?;
    Some(
        Protocol::ALL
            .into_iter()
            .map(|protocol| {
                validator
                    .clone()
                    .with_settings(Settings::default().protocol(ProtocolChoice::Version(protocol)))
            })
            .collect(),
    )
});

/// The validator that judges undeclared documents as `protocol`.
fn judging_as(protocol: Protocol) -> Option<&'static Validator> {
    BY_DEFAULT.as_ref()?.get(protocol.index())
}

/// Validates `data` as every kind, and as detected.
pub fn validate(data: &[u8]) {
    let Some(validator) = VALIDATOR.as_ref() else {
        return;
    };
    for kind in Kind::ALL {
        let report = validator.validate(kind, data);
        std::hint::black_box(report);
    }
    std::hint::black_box(validator.validate_detected(data));
}

/// Reads `data` as JSON Lines, SSE, a HAR archive and one JSON document,
/// checking every record. The checked documents must account for every
/// record the layout holds.
pub fn readers(data: &[u8]) {
    let Some(validator) = VALIDATOR.as_ref() else {
        return;
    };
    for layout in [Layout::JsonLines, Layout::Sse, Layout::Har, Layout::Json] {
        let mut documents = 0usize;
        let result = check_reader(validator, "fuzz", layout, data, None, &mut |checked| {
            documents += 1;
            std::hint::black_box(checked);
        });
        // Reading from memory cannot fail.
        assert!(result.is_ok(), "{layout:?}: {result:?}");
        if layout == Layout::JsonLines {
            let lines = data
                .split(|&b| b == b'\n')
                .filter(|l| !l.iter().all(u8::is_ascii_whitespace))
                .count();
            // An empty capture is one `empty-input` finding.
            assert_eq!(documents, lines.max(1), "a JSON Lines record was lost");
        }
    }
}

/// Uses `data`, when it is JSON, as a tool's `parameters`: the schema is
/// checked and compiled, and a call's arguments are validated against it.
pub fn tool_parameters(data: &[u8]) {
    let Some(validator) = VALIDATOR.as_ref() else {
        return;
    };
    let Ok(parameters) = serde_json::from_slice::<Value>(data) else {
        return;
    };
    let input = json!({
        "threadId": "t", "runId": "r", "state": null, "forwardedProps": null, "context": [],
        "tools": [{"name": "f", "description": "d", "parameters": parameters}],
        "messages": [
            {"id": "a", "role": "assistant", "toolCalls": [{"id": "c", "type": "function",
                "function": {"name": "f", "arguments": "{\"a\": [1, \"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!\"]}"}}]},
            {"id": "t", "role": "tool", "toolCallId": "c", "content": "ok"}
        ]
    });
    let Ok(bytes) = serde_json::to_vec(&input) else {
        return;
    };
    std::hint::black_box(validator.validate(Kind::RunAgentInput, &bytes));
}

/// Locates a pointer in a text: `data`'s first line is the pointer, the
/// rest the text (any bytes, not only JSON).
pub fn locate(data: &[u8]) {
    let split = data.iter().position(|&b| b == b'\n').unwrap_or(data.len());
    let (pointer, text) = data.split_at(split);
    let (Ok(pointer), Ok(text)) = (std::str::from_utf8(pointer), std::str::from_utf8(text)) else {
        return;
    };
    for locator in [Locator::new(text), Locator::with_unique_keys(text)] {
        for target in [Target::Value, Target::Key, Target::RepeatedKey(1)] {
            let location = locator.locate(pointer, target);
            assert!(location.line >= 1 && location.column >= 1);
        }
    }
}

/// How long one run of a fuzz target may take on the bytes libFuzzer
/// sends (at most a few hundred kilobytes): every check is linear, so a
/// run that takes longer is a bug worth a crash report, not a slow input.
/// Memory is bounded by libFuzzer's `-rss_limit_mb` (see `fuzz/README.md`).
const RUN_BUDGET: std::time::Duration = std::time::Duration::from_secs(5);

/// Panics when `run` takes longer than [`RUN_BUDGET`]: libFuzzer's own
/// `-timeout` kills the process, this names what was slow.
fn within_budget(what: &str, run: impl FnOnce()) {
    let started = std::time::Instant::now();
    run();
    let took = started.elapsed();
    assert!(took < RUN_BUDGET, "{what} took {took:?}, over its budget");
}

/// `data` split at its first NUL into a tool's `parameters` and a call's
/// arguments, checked together: the schema's cost analysis, the budget on
/// the call, and the validator they bound.
pub fn tool_arguments(data: &[u8]) {
    let Some(validator) = VALIDATOR.as_ref() else {
        return;
    };
    let split = data.iter().position(|&b| b == 0).unwrap_or(data.len());
    let (schema, arguments) = data.split_at(split);
    let Ok(parameters) = serde_json::from_slice::<Value>(schema) else {
        return;
    };
    let arguments = String::from_utf8_lossy(arguments.get(1..).unwrap_or_default());
    let input = json!({
        "threadId": "t", "runId": "r", "protocolVersion": "1.1",
        "tools": [{"name": "f", "description": "d", "parameters": parameters}],
        "messages": [
            {"id": "a", "role": "assistant", "toolCalls": [{"id": "c", "type": "function",
                "function": {"name": "f", "arguments": arguments}}]},
            {"id": "t", "role": "tool", "toolCallId": "c", "content": "ok"}
        ]
    });
    let Ok(bytes) = serde_json::to_vec(&input) else {
        return;
    };
    within_budget("a tool call against its parameters", || {
        std::hint::black_box(validator.validate(Kind::RunAgentInput, &bytes));
    });
}

/// The validator of [`proto`]: states held to 1 MiB, so that a stream of
/// patches copying its state (which the `stream` target covers) does not
/// spend the frame reader's budget, checked four times over.
static PROTO_VALIDATOR: LazyLock<Option<Validator>> = LazyLock::new(|| {
    let limits = crate::Limits::default().with_max_state_bytes(1024 * 1024);
    Some(
        Validator::new()
            .ok()?
            .with_settings(Settings::default().with_limits(limits)),
    )
});
