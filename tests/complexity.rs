//! Time linear in the input and memory bounded, for every input family: each
//! family is generated in code at size n and 4n, checked, and held to
//!
//! - **time**: the check of 4n takes less than [`MAX_TIME_RATIO`] times the
//!   check of n (linear is 4, quadratic 16; the best of runs of n and 4n
//!   interleaved, tried again when over, so a busy moment of the machine
//!   does not decide);
//! - **memory**: the peak of bytes allocated while checking (a counting
//!   allocator, not the process's RSS) grows at most linearly, and for
//!   streams (whose memory is what is open, never the stream's length) not
//!   at all.
//!
//! The families are the ways in which a request or a capture has been made
//! to cost more than its size (issue 25): findings in one document, repeated
//! keys, schemas that fan out, state that doubles, HAR responses, plus the
//! ones that held. A quadratic loop anywhere on their path fails here.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use agui_lint::unstable::check::{check_reader, Checked};
use agui_lint::unstable::input::Layout as SourceLayout;
use agui_lint::{EventStream, Framing, Kind, Limits, Settings, StreamChecker, Validator};
use serde_json::json;

#[path = "common/proto_frames.rs"]
mod proto_frames;

/// Counts the bytes allocated and the most allocated at once.
struct Counting;

static CURRENT: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let now = CURRENT.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
        PEAK.fetch_max(now, Ordering::Relaxed);
        // SAFETY: forwarded as received.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        CURRENT.fetch_sub(layout.size(), Ordering::Relaxed);
        // SAFETY: forwarded as received.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if new_size > layout.size() {
            let now = CURRENT.fetch_add(new_size - layout.size(), Ordering::Relaxed) + new_size
                - layout.size();
            // The old and the new block are both held while copying.
            PEAK.fetch_max(now + layout.size(), Ordering::Relaxed);
        } else {
            CURRENT.fetch_sub(layout.size() - new_size, Ordering::Relaxed);
        }
        // SAFETY: forwarded as received.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// One test at a time, each for its whole body: the counts are the
/// process's (another test building its validator or its input while a
/// family is measured would be counted in it), and a family's times are
/// compared with each other (another test's work on the same cores would
/// weigh on one and not the other).
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

/// Holds [`ONE_AT_A_TIME`] until dropped.
fn alone() -> std::sync::MutexGuard<'static, ()> {
    ONE_AT_A_TIME
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Linear is 4; quadratic 16.
const MAX_TIME_RATIO: f64 = 6.0;

/// Above this much extra memory for 4n over n, a stream's memory is taken
/// to grow with its length.
const STREAM_MEMORY_SLACK: usize = 256 * 1024;

/// How a family's memory may grow from n to 4n.
#[derive(Clone, Copy)]
enum Memory {
    /// At most linearly (a document is held whole).
    Linear,
    /// Not at all (a stream holds what is open; a document's messages
    /// are read one at a time).
    Flat,
    /// Linearly, and to at most this many times the input's size (a
    /// document is held whole, and its findings' work is not).
    Within(usize),
}

/// The best time and the least peak extra memory of `check` on `input`,
/// kept across calls.
#[derive(Clone, Copy)]
struct Best {
    time: Duration,
    peak: usize,
}

impl Best {
    const NONE: Self = Self {
        time: Duration::MAX,
        peak: usize::MAX,
    };

    /// Runs `check` on `input` once and keeps what beats the best so far.
    fn run(&mut self, input: &[u8], check: &dyn Fn(&[u8])) {
        let base = CURRENT.load(Ordering::Relaxed);
        PEAK.store(base, Ordering::Relaxed);
        let started = Instant::now();
        check(input);
        self.time = self.time.min(started.elapsed());
        self.peak = self
            .peak
            .min(PEAK.load(Ordering::Relaxed).saturating_sub(base));
    }
}

/// Rounds of n and 4n, interleaved, per attempt.
const ROUNDS: usize = 3;

/// Attempts before a ratio over [`MAX_TIME_RATIO`] fails the family. A
/// machine busy with something else slows some runs and not others; a
/// loop that is quadratic is slow in every attempt (16× against 4×), so
/// the best of more runs cannot hide it.
const ATTEMPTS: usize = 3;

/// Checks `family` at `n` and `4n` and holds it to linear time and to
/// `memory`.
fn family(
    name: &str,
    n: usize,
    memory: Memory,
    make: impl Fn(usize) -> Vec<u8>,
    check: impl Fn(&[u8]),
) {
    let small = make(n);
    let large = make(4 * n);
    // Warm up: compiled schemas, caches.
    check(&small);
    let (mut at_n, mut at_4n) = (Best::NONE, Best::NONE);
    for _ in 0..ATTEMPTS {
        // Interleaved, so a slow moment of the machine weighs on both.
        for _ in 0..ROUNDS {
            at_n.run(&small, &check);
            at_4n.run(&large, &check);
        }
        if ratio_of(at_n, at_4n) < MAX_TIME_RATIO {
            break;
        }
    }
    let (time_n, memory_n, time_4n, memory_4n) = (at_n.time, at_n.peak, at_4n.time, at_4n.peak);
    let ratio = ratio_of(at_n, at_4n);
    eprintln!(
        "{name}: {} → {} bytes: {time_n:?} → {time_4n:?} ({ratio:.1}×), peak {memory_n} → {memory_4n} bytes",
        small.len(),
        large.len()
    );
    assert!(
        ratio < MAX_TIME_RATIO,
        "{name}: 4n took {ratio:.1}× the time of n ({time_n:?} → {time_4n:?})"
    );
    match memory {
        Memory::Linear => assert!(
            memory_4n <= 6 * memory_n.max(large.len() / 4),
            "{name}: peak memory {memory_n} → {memory_4n} bytes for 4× the input"
        ),
        Memory::Flat => assert!(
            memory_4n <= memory_n + STREAM_MEMORY_SLACK,
            "{name}: a stream's peak memory grew {memory_n} → {memory_4n} bytes with its length"
        ),
        Memory::Within(factor) => assert!(
            memory_4n <= 6 * memory_n.max(large.len() / 4) && memory_4n <= factor * large.len(),
            "{name}: peak memory {memory_n} → {memory_4n} bytes for {} → {} bytes of input (at most {factor}×)",
            small.len(),
            large.len()
        ),
    }
}

/// How many times the time of n the time of 4n took.
fn ratio_of(at_n: Best, at_4n: Best) -> f64 {
    at_4n.time.as_secs_f64() / at_n.time.as_secs_f64().max(1e-6)
}

fn validator() -> Validator {
    Validator::new().expect("validator")
}

/// A RunAgentInput with `messages` (JSON text) and `tools` (JSON text).
fn input(messages: &str, tools: &str, extra: &str) -> Vec<u8> {
    format!(
        r#"{{"threadId":"t","runId":"r","state":{{}},"messages":[{messages}],"tools":[{tools}],"context":[],"forwardedProps":{{}}{extra}}}"#
    )
    .into_bytes()
}

fn repeat(item: &str, n: usize) -> String {
    vec![item; n].join(",")
}

fn check_input(validator: &Validator) -> impl Fn(&[u8]) + '_ {
    move |bytes| {
        let report = validator.validate(Kind::RunAgentInput, bytes);
        std::hint::black_box(report);
    }
}

#[test]
fn findings_in_one_document() {
    let _alone = alone();
    let validator = validator();
    // The messages of a document that fits the schema are read and
    // checked one at a time, and findings past the limit are only counted:
    // what the check holds does not grow with them.
    family(
        "messages sharing one id",
        // More messages than the fast path holds (4,096), so that it
        // reads them one at a time.
        8000,
        Memory::Flat,
        |n| {
            input(
                &repeat(r#"{"id":"m","role":"user","content":"hi"}"#, n),
                "",
                "",
            )
        },
        check_input(&validator),
    );
    // A large member no rule reads (a RAW event's payload, a request's
    // state) is parsed without building it: the document is not held as
    // a tree of 30-80 times its size.
    family(
        "a RAW event's payload, as one document",
        200_000,
        Memory::Within(3),
        |n| format!(r#"{{"type":"RAW","event":[{}0]}}"#, "0,".repeat(n)).into_bytes(),
        |bytes| {
            std::hint::black_box(validator.validate_detected(bytes));
        },
    );
    family(
        "a request's state beside a wrong type, as one document",
        200_000,
        Memory::Within(3),
        |n| {
            format!(
                r#"{{"threadId":"t","runId":"r","state":{{"a":[{}0]}},"messages":[{{"id":1,"role":"user","content":"hi"}}],"tools":[],"context":[],"forwardedProps":{{}}}}"#,
                "0,".repeat(n)
            )
            .into_bytes()
        },
        check_input(&validator),
    );
    family(
        "unknown top-level keys",
        4000,
        Memory::Linear,
        |n| {
            input(
                "",
                "",
                &(0..n).map(|i| format!(r#","k{i}":0"#)).collect::<String>(),
            )
        },
        check_input(&validator),
    );
    family(
        "misspelt roles",
        1000,
        Memory::Linear,
        |n| {
            input(
                &(0..n)
                    .map(|i| format!(r#"{{"id":"m{i}","role":"assitant","content":"hi"}}"#))
                    .collect::<Vec<_>>()
                    .join(","),
                "",
                "",
            )
        },
        check_input(&validator),
    );
    // Every message off its schema through the role union: the schema's
    // validator would gather every branch's errors of every message before
    // handing back the first (12 GB for a million); items are checked one
    // at a time instead.
    family(
        "a wrong type in every message",
        10_000,
        Memory::Within(40),
        |n| {
            input(
                &(0..n)
                    .map(|i| format!(r#"{{"id":"m{i}","role":"user","content":{i}}}"#))
                    .collect::<Vec<_>>()
                    .join(","),
                "",
                "",
            )
        },
        check_input(&validator),
    );
    // The same, every message sharing one id: such a document is parsed
    // a message at a time, so nothing it holds grows with its messages.
    family(
        "a wrong type in every message, one id",
        10_000,
        Memory::Flat,
        |n| {
            input(
                &repeat(r#"{"id":"m","role":"user","content":5}"#, n),
                "",
                "",
            )
        },
        check_input(&validator),
    );
    family(
        "a wrong type in every event of an events document",
        10_000,
        Memory::Within(40),
        |n| {
            let events: Vec<String> = (0..n)
                .map(|i| {
                    format!(r#"{{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":{i}}}"#)
                })
                .collect();
            format!("[{}]", events.join(",")).into_bytes()
        },
        |bytes| {
            std::hint::black_box(validator.validate(Kind::Events, bytes));
        },
    );
    family(
        "empty ids and contents",
        // More messages than the fast path holds (4,096), so that it
        // reads them one at a time.
        8000,
        Memory::Flat,
        |n| {
            input(
                &repeat(r#"{"id":"","role":"user","content":""}"#, n),
                "",
                "",
            )
        },
        check_input(&validator),
    );
}

#[test]
fn repeated_keys() {
    let _alone = alone();
    let validator = validator();
    family(
        "a key repeated in state",
        20_000,
        Memory::Linear,
        |n| {
            format!(
                r#"{{"threadId":"t","runId":"r","state":{{{}}},"messages":[]}}"#,
                repeat(r#""a":0"#, n)
            )
            .into_bytes()
        },
        check_input(&validator),
    );
    family(
        "a top-level key repeated",
        20_000,
        Memory::Linear,
        |n| {
            format!(
                r#"{{"threadId":"t","runId":"r","messages":[]{}}}"#,
                r#","forwardedProps":{}"#.repeat(n)
            )
            .into_bytes()
        },
        check_input(&validator),
    );
    // The same with the full limit of findings reported: locating them
    // must not read the object once per finding.
    let all = Validator::new().expect("validator").with_settings(
        Settings::default().with_limits(Limits::default().with_max_findings(usize::MAX)),
    );
    family(
        "a key repeated, every finding reported",
        5_000,
        Memory::Linear,
        |n| {
            format!(
                r#"{{"threadId":"t","runId":"r","state":{{{}}},"messages":[]}}"#,
                repeat(r#""a":0"#, n)
            )
            .into_bytes()
        },
        check_input(&all),
    );
}

#[test]
fn numbers_and_strings() {
    let _alone = alone();
    let validator = validator();
    family(
        "numbers beyond a double",
        5_000,
        Memory::Linear,
        |n| {
            format!(
                r#"{{"threadId":"t","runId":"r","state":[{}],"messages":[]}}"#,
                repeat("1e400", n)
            )
            .into_bytes()
        },
        check_input(&validator),
    );
    family(
        "integers beyond 2^53",
        5_000,
        Memory::Linear,
        |n| {
            format!(
                r#"{{"threadId":"t","runId":"r","state":[{}],"messages":[]}}"#,
                repeat("9007199254740993", n)
            )
            .into_bytes()
        },
        check_input(&validator),
    );
    family(
        "unpaired surrogates",
        5_000,
        Memory::Linear,
        |n| {
            format!(
                r#"{{"threadId":"t","runId":"r","state":[{}],"messages":[]}}"#,
                repeat(r#""\ud800""#, n)
            )
            .into_bytes()
        },
        check_input(&validator),
    );
    // Deeper than the parser's 128 levels, a document is parsed and checked
    // on a stack grown for it: n values nested 130 deep each.
    family(
        "values nested past the parser's depth",
        50,
        Memory::Linear,
        |n| {
            let deep = format!("{}1{}", "[".repeat(130), "]".repeat(130));
            format!(
                r#"{{"threadId":"t","runId":"r","state":[{}],"messages":[]}}"#,
                vec![deep; n].join(",")
            )
            .into_bytes()
        },
        check_input(&validator),
    );
    family(
        "one long message",
        500_000,
        Memory::Linear,
        |n| {
            input(
                &format!(
                    r#"{{"id":"m","role":"user","content":"{}"}}"#,
                    "x".repeat(n)
                ),
                "",
                "",
            )
        },
        check_input(&validator),
    );
}

#[test]
fn tools_and_calls() {
    let _alone = alone();
    let validator = validator();
    let tool = |i: usize| {
        format!(
            r#"{{"name":"t{i}","description":"d","parameters":{{"type":"object","properties":{{"q":{{"type":"string"}}}},"required":["q"]}}}}"#
        )
    };
    let call = |i: usize, tool: usize| {
        format!(
            r#"{{"id":"m{i}","role":"assistant","toolCalls":[{{"id":"c{i}","type":"function","function":{{"name":"t{tool}","arguments":"{{\"x\":1}}"}}}}]}}"#
        )
    };
    family(
        "many tools and calls naming them",
        500,
        Memory::Linear,
        |n| {
            input(
                &(0..n).map(|i| call(i, i)).collect::<Vec<_>>().join(","),
                &(0..n).map(tool).collect::<Vec<_>>().join(","),
                "",
            )
        },
        check_input(&validator),
    );
    family(
        "calls naming no tool",
        2000,
        Memory::Linear,
        |n| {
            input(
                &(0..n).map(|i| call(i, n + i)).collect::<Vec<_>>().join(","),
                &(0..n).map(tool).collect::<Vec<_>>().join(","),
                "",
            )
        },
        check_input(&validator),
    );
    // A schema whose alternatives descend into the same member: each level
    // of the arguments doubles a validator's work; the budget stops it.
    let doubling = r##"{"name":"f","description":"d","parameters":{"type":"object","properties":{"x":{"$ref":"#/$defs/n"}},"$defs":{"n":{"anyOf":[{"properties":{"x":{"$ref":"#/$defs/n"}}},{"properties":{"x":{"$ref":"#/$defs/n"}}}]}}}}"##;
    family(
        "calls whose arguments fan out",
        200,
        Memory::Linear,
        |n| {
            let mut arguments = String::from("{}");
            for _ in 0..20 {
                arguments = format!(r#"{{"x":{arguments}}}"#);
            }
            let arguments = serde_json::to_string(&arguments).expect("a string");
            input(
                &(0..n)
                    .map(|i| {
                        format!(
                            r#"{{"id":"m{i}","role":"assistant","toolCalls":[{{"id":"c{i}","type":"function","function":{{"name":"f","arguments":{arguments}}}}}]}}"#
                        )
                    })
                    .collect::<Vec<_>>()
                    .join(","),
                doubling,
                "",
            )
        },
        check_input(&validator),
    );
    // Fan-out through references, in the schema itself.
    family(
        "a schema whose references fan out",
        10,
        Memory::Linear,
        |n| {
            let mut defs = serde_json::Map::new();
            for i in 0..n {
                let next = format!("#/$defs/a{}", i + 1);
                defs.insert(
                    format!("a{i}"),
                    json!({"oneOf": [{"$ref": next}, {"$ref": next}]}),
                );
            }
            defs.insert(format!("a{n}"), json!({"type": "string"}));
            let tool = json!({"name": "f", "description": "d", "parameters": {
                "type": "object", "$defs": defs, "properties": {"x": {"$ref": "#/$defs/a0"}}}});
            input(
                r#"{"id":"m","role":"assistant","toolCalls":[{"id":"c","type":"function","function":{"name":"f","arguments":"{\"x\":5}"}}]}"#,
                &tool.to_string(),
                "",
            )
        },
        check_input(&validator),
    );
}

/// Checks `bytes` as a capture of `layout` through the CLI's reader.
fn check_capture(validator: &Validator, layout: SourceLayout) -> impl Fn(&[u8]) + '_ {
    move |bytes| {
        let mut findings = 0usize;
        check_reader(
            validator,
            "capture",
            layout,
            bytes,
            None,
            &mut |c: Checked| {
                findings += c.report.diagnostics().len();
            },
        )
        .expect("read from memory");
        std::hint::black_box(findings);
    }
}

/// Feeds each line of `bytes` to one event stream, as a server guard or
/// the library's user does: the stream checker's own memory, without a
/// reader's batches in flight.
fn check_stream(validator: &Validator) -> impl Fn(&[u8]) + '_ {
    move |bytes| {
        let mut stream = EventStream::new();
        let mut findings = 0usize;
        for line in bytes.split(|&b| b == b'\n').filter(|l| !l.is_empty()) {
            let report =
                validator.validate_in_stream(&mut stream, Some(Kind::Event), line, None, None);
            findings += report.diagnostics().len();
        }
        findings += validator.finish_stream(&mut stream).len();
        std::hint::black_box(findings);
    }
}

/// Feeds `bytes` to a [`StreamChecker`] in chunks of 1,000 bytes (cut
/// inside events), as a guard on a response does.
fn check_in_chunks(validator: &Validator, framing: Framing) -> impl Fn(&[u8]) + '_ {
    move |bytes| {
        let mut checker = StreamChecker::new(validator, framing);
        let mut findings = 0usize;
        for chunk in bytes.chunks(1000) {
            findings += checker.feed(chunk).len();
        }
        findings += checker.finish().len();
        std::hint::black_box(findings);
    }
}

fn lines(events: impl Iterator<Item = serde_json::Value>) -> Vec<u8> {
    let mut out = Vec::new();
    for event in events {
        out.extend(serde_json::to_vec(&event).expect("JSON"));
        out.push(b'\n');
    }
    out
}

#[test]
fn event_streams() {
    let _alone = alone();
    let validator = validator();
    let run = |events: Vec<serde_json::Value>| {
        let mut all = vec![json!({"type": "RUN_STARTED", "threadId": "t", "runId": "r"})];
        all.extend(events);
        all
    };
    family(
        "text content",
        40_000,
        Memory::Flat,
        |n| {
            let mut events = run(vec![
                json!({"type": "TEXT_MESSAGE_START", "messageId": "m", "role": "assistant"}),
            ]);
            events.extend(
                (0..n).map(
                    |_| json!({"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": "x"}),
                ),
            );
            lines(events.into_iter())
        },
        check_capture(&validator, SourceLayout::JsonLines),
    );
    family(
        "many runs",
        10_000,
        Memory::Flat,
        |n| {
            lines((0..n).flat_map(|i| {
                [
                    json!({"type": "RUN_STARTED", "threadId": "t", "runId": format!("r{i}"), "protocolVersion": "1.1"}),
                    json!({"type": "TOOL_CALL_START", "toolCallId": format!("c{i}"), "toolCallName": "f"}),
                    json!({"type": "TOOL_CALL_END", "toolCallId": format!("c{i}")}),
                    json!({"type": "RUN_FINISHED", "threadId": "t", "runId": format!("r{i}")}),
                ]
            }))
        },
        check_capture(&validator, SourceLayout::JsonLines),
    );
    family(
        "tool calls never ended",
        8000,
        Memory::Linear,
        |n| {
            lines(run((0..n)
                .map(|i| json!({"type": "TOOL_CALL_START", "toolCallId": format!("c{i}"), "toolCallName": "f"}))
                .collect())
            .into_iter())
        },
        check_capture(&validator, SourceLayout::JsonLines),
    );
    // Ending the first of many open items used to shift every later one:
    // quadratic in how many were open.
    family(
        "tool calls ended in the order they opened",
        8000,
        Memory::Linear,
        |n| {
            let starts = (0..n).map(|i| json!({"type": "TOOL_CALL_START", "toolCallId": format!("c{i}"), "toolCallName": "f"}));
            let ends =
                (0..n).map(|i| json!({"type": "TOOL_CALL_END", "toolCallId": format!("c{i}")}));
            lines(run(starts.chain(ends).collect()).into_iter())
        },
        check_capture(&validator, SourceLayout::JsonLines),
    );
    // Past 100,000 open items a run's further items are not tracked
    // (open-items-over-limit): 4n crosses it.
    family(
        "text messages never ended, past the open limit",
        40_000,
        Memory::Within(3),
        |n| {
            lines(run((0..n)
                .map(|i| json!({"type": "TEXT_MESSAGE_START", "messageId": format!("m{i}"), "role": "assistant"}))
                .collect())
            .into_iter())
        },
        check_capture(&validator, SourceLayout::JsonLines),
    );
    // A clean snapshot is read by the fast path and its messages compared
    // with what the run streamed from their text (issue 52).
    family(
        "a messages snapshot of n messages, each streamed first",
        4000,
        Memory::Linear,
        |n| {
            let mut events = run(Vec::new());
            let mut messages = Vec::new();
            for i in 0..n {
                let (id, call) = (format!("m{i}"), format!("c{i}"));
                events.extend([
                    json!({"type": "TEXT_MESSAGE_START", "messageId": id, "role": "assistant"}),
                    json!({"type": "TEXT_MESSAGE_CONTENT", "messageId": id, "delta": "caf\u{e9}"}),
                    json!({"type": "TEXT_MESSAGE_END", "messageId": id}),
                    json!({"type": "TOOL_CALL_START", "toolCallId": call, "toolCallName": "f", "parentMessageId": id}),
                    json!({"type": "TOOL_CALL_ARGS", "toolCallId": call, "delta": "{}"}),
                    json!({"type": "TOOL_CALL_END", "toolCallId": call}),
                ]);
                messages.push(json!({"id": id, "role": "assistant", "content": "caf\u{e9}",
                    "toolCalls": [{"id": call, "type": "function", "function": {"name": "f", "arguments": "{}"}}]}));
                messages.push(json!({"id": format!("t{i}"), "role": "tool", "toolCallId": call, "content": "ok"}));
            }
            events.push(json!({"type": "MESSAGES_SNAPSHOT", "messages": messages}));
            lines(events.into_iter())
        },
        check_stream(&validator),
    );
    // The version a run declares is read from its RUN_STARTED's text,
    // here one that echoes an input of n messages.
    family(
        "a RUN_STARTED whose input holds n messages",
        20_000,
        Memory::Linear,
        |n| {
            let history: Vec<serde_json::Value> = (0..n)
                .map(|i| json!({"id": format!("u{i}"), "role": "user", "content": "RUN_STARTED"}))
                .collect();
            lines([
                json!({"type": "RUN_STARTED", "threadId": "t", "runId": "r",
                    "input": {"threadId": "t", "runId": "r", "messages": history, "protocolVersion": "1.1",
                        "tools": [], "context": [], "state": {}, "forwardedProps": {}}}),
                json!({"type": "RUN_FINISHED", "threadId": "t", "runId": "r"}),
            ].into_iter())
        },
        check_stream(&validator),
    );
    family(
        "deltas copying the root",
        20,
        Memory::Flat,
        |n| {
            let mut events = run(vec![
                json!({"type": "STATE_SNAPSHOT", "snapshot": {"a": "x".repeat(16)}}),
            ]);
            events.extend((0..n).map(|k| json!({"type": "STATE_DELTA", "delta": [{"op": "copy", "from": "", "path": format!("/c{k}")}]})));
            lines(events.into_iter())
        },
        check_capture(&validator, SourceLayout::JsonLines),
    );
    // The work is what grows here (each delta copies 20,000 values): its
    // memory is the snapshot and the batch of records being read.
    family(
        "deltas copying a large value back and forth",
        200,
        Memory::Linear,
        |n| {
            let big: Vec<u32> = (0..20_000).collect();
            let mut events = run(vec![
                json!({"type": "STATE_SNAPSHOT", "snapshot": {"big": big}}),
            ]);
            events.extend((0..n).map(|_| {
                json!({"type": "STATE_DELTA", "delta": [
                {"op": "copy", "from": "/big", "path": "/copy"},
                {"op": "remove", "path": "/copy"}]})
            }));
            lines(events.into_iter())
        },
        check_capture(&validator, SourceLayout::JsonLines),
    );
    family(
        "insertions at the front of an array",
        2000,
        Memory::Linear,
        |n| {
            let mut events = run(vec![
                json!({"type": "STATE_SNAPSHOT", "snapshot": {"items": []}}),
            ]);
            events.extend((0..n).map(|i| json!({"type": "STATE_DELTA", "delta": [{"op": "add", "path": "/items/0", "value": i}]})));
            lines(events.into_iter())
        },
        check_capture(&validator, SourceLayout::JsonLines),
    );
    // One delta of n insertions at the front: the shifts are charged as
    // the items they move, so the stream's work budget stops the delta
    // (state-over-budget) long before the shifting turns quadratic.
    family(
        "front insertions in one delta",
        25_000,
        Memory::Linear,
        |n| {
            let delta: Vec<serde_json::Value> = (0..n)
                .map(|i| json!({"op": "add", "path": "/items/0", "value": i}))
                .collect();
            lines(
                run(vec![
                    json!({"type": "STATE_SNAPSHOT", "snapshot": {"items": []}}),
                    json!({"type": "STATE_DELTA", "delta": delta}),
                ])
                .into_iter(),
            )
        },
        check_capture(&validator, SourceLayout::JsonLines),
    );
    // Appends cost one item each: a long list grown to the end stays
    // checked, delta after delta.
    family(
        "appends, a delta each",
        20_000,
        Memory::Linear,
        |n| {
            let mut events = run(vec![
                json!({"type": "STATE_SNAPSHOT", "snapshot": {"items": []}}),
            ]);
            events.extend((0..n).map(|i| json!({"type": "STATE_DELTA", "delta": [{"op": "add", "path": "/items/-", "value": i}]})));
            lines(events.into_iter())
        },
        check_capture(&validator, SourceLayout::JsonLines),
    );
    family(
        "activities of their own",
        1000,
        Memory::Linear,
        |n| {
            lines(run((0..n)
                .map(|i| json!({"type": "ACTIVITY_SNAPSHOT", "messageId": format!("a{i}"), "activityType": "plan", "content": {"step": i}}))
                .collect())
            .into_iter())
        },
        check_capture(&validator, SourceLayout::JsonLines),
    );
    // A call that streams arguments for as long as the stream lasts: its
    // text is held to the stream's state limit, then dropped and reported
    // (what the run streamed is also kept, to 1 MiB, for comparing with a
    // snapshot: n is past that).
    let bounded = Validator::new().expect("validator").with_settings(
        Settings::default().with_limits(Limits::default().with_max_state_bytes(64 * 1024)),
    );
    let delta = "x".repeat(64);
    family(
        "arguments of a call never ended",
        20_000,
        Memory::Flat,
        |n| {
            let mut events = run(vec![
                json!({"type": "TOOL_CALL_START", "toolCallId": "c", "toolCallName": "f"}),
            ]);
            events.extend(
                (0..n)
                    .map(|_| json!({"type": "TOOL_CALL_ARGS", "toolCallId": "c", "delta": delta})),
            );
            lines(events.into_iter())
        },
        check_stream(&bounded),
    );
    family(
        "arguments of a chunked call never ended",
        20_000,
        Memory::Flat,
        |n| {
            let mut events = run(vec![
                json!({"type": "TOOL_CALL_CHUNK", "toolCallId": "c", "toolCallName": "f"}),
            ]);
            events.extend((0..n).map(|_| json!({"type": "TOOL_CALL_CHUNK", "delta": delta})));
            lines(events.into_iter())
        },
        check_stream(&bounded),
    );
    family(
        "server-sent events",
        20_000,
        Memory::Flat,
        |n| {
            let mut out = String::from("data: {\"type\":\"RUN_STARTED\",\"threadId\":\"t\",\"runId\":\"r\"}\n\ndata: {\"type\":\"TEXT_MESSAGE_START\",\"messageId\":\"m\",\"role\":\"assistant\"}\n\n");
            for _ in 0..n {
                out.push_str("data: {\"type\":\"TEXT_MESSAGE_CONTENT\",\n");
                out.push_str("data: \"messageId\":\"m\",\"delta\":\"x\"}\n\n");
            }
            out.into_bytes()
        },
        check_capture(&validator, SourceLayout::Sse),
    );
    // The same fed in chunks, with a stray event every hundred: what a
    // stream checker holds is the event being framed and what is open.
    family(
        "server-sent events fed in chunks",
        20_000,
        Memory::Flat,
        |n| {
            let mut out = String::from("data: {\"type\":\"RUN_STARTED\",\"threadId\":\"t\",\"runId\":\"r\"}\n\ndata: {\"type\":\"TEXT_MESSAGE_START\",\"messageId\":\"m\",\"role\":\"assistant\"}\n\n");
            for k in 0..n {
                let id = if k % 100 == 0 { "stray" } else { "m" };
                out.push_str("data: {\"type\":\"TEXT_MESSAGE_CONTENT\",\n");
                out.push_str(&format!(
                    "data: \"messageId\":\"{id}\",\"delta\":\"x\"}}\n\n"
                ));
            }
            out.into_bytes()
        },
        check_in_chunks(&validator, Framing::Sse),
    );
    // A raw SSE capture framed with CRLF, seen through the official client:
    // its line endings watched byte by byte as they pass to the reader.
    let as_client = validator
        .clone()
        .with_settings(Settings::default().client(agui_lint::Client::V1_0_0));
    family(
        "CRLF SSE through --client",
        40_000,
        Memory::Flat,
        |n| {
            let mut out = String::from("data: {\"type\":\"RUN_STARTED\",\"threadId\":\"t\",\"runId\":\"r\"}\r\n\r\ndata: {\"type\":\"TEXT_MESSAGE_START\",\"messageId\":\"m\",\"role\":\"assistant\"}\r\n\r\n");
            for _ in 0..n {
                out.push_str("data: {\"type\":\"TEXT_MESSAGE_CONTENT\",\"messageId\":\"m\",\"delta\":\"x\"}\r\n\r\n");
            }
            out.into_bytes()
        },
        check_capture(&as_client, SourceLayout::Sse),
    );
}

/// A HAR of `entries`, each a request and its SSE response of `events`
/// text events, plain or base64.
fn har(entries: usize, events: usize, base64: bool) -> Vec<u8> {
    use base64::Engine as _;
    let request = r#"{"threadId":"t","runId":"r","state":{},"messages":[],"tools":[],"context":[],"forwardedProps":{}}"#;
    let mut sse = String::from("data: {\"type\":\"RUN_STARTED\",\"threadId\":\"t\",\"runId\":\"r\"}\n\ndata: {\"type\":\"TEXT_MESSAGE_START\",\"messageId\":\"m\",\"role\":\"assistant\"}\n\n");
    for _ in 0..events {
        sse.push_str("data: {\"type\":\"TEXT_MESSAGE_CONTENT\",\"messageId\":\"m\",\"delta\":\"x\\u00e9\"}\n\n");
    }
    sse.push_str("data: {\"type\":\"TEXT_MESSAGE_END\",\"messageId\":\"m\"}\n\ndata: {\"type\":\"RUN_FINISHED\",\"threadId\":\"t\",\"runId\":\"r\"}\n\n");
    let content = if base64 {
        json!({"mimeType": "text/event-stream", "encoding": "base64",
               "text": base64::engine::general_purpose::STANDARD.encode(&sse)})
    } else {
        json!({"mimeType": "text/event-stream", "text": sse})
    };
    let entry = json!({
        "request": {"method": "POST", "url": "http://127.0.0.1/agent",
                    "postData": {"mimeType": "application/json", "text": request}},
        "response": {"status": 200, "content": content}});
    serde_json::to_vec(&json!({"log": {"version": "1.2", "entries": vec![entry; entries]}}))
        .expect("JSON")
}

#[test]
fn har_archives() {
    let _alone = alone();
    let validator = validator();
    family(
        "a HAR response of many events",
        4000,
        Memory::Linear,
        |n| har(1, n, false),
        check_capture(&validator, SourceLayout::Har),
    );
    family(
        "a base64 HAR response of many events",
        2000,
        Memory::Linear,
        |n| har(1, n, true),
        check_capture(&validator, SourceLayout::Har),
    );
    family(
        "a HAR of many entries",
        500,
        Memory::Linear,
        |n| har(n, 2, false),
        check_capture(&validator, SourceLayout::Har),
    );
    // What the probe records: its archive written from the exchange, then
    // checked; a body of control bytes is written base64.
    family(
        "a probe recording of many events, written and checked",
        2000,
        Memory::Linear,
        |n| {
            let mut body = String::from(
                "data: {\"type\":\"RUN_STARTED\",\"threadId\":\"t\",\"runId\":\"r\"}\n\n",
            );
            for i in 0..n {
                body.push_str(&format!(
                    "data: {{\"type\":\"CUSTOM\",\"name\":\"n{i}\",\"value\":\"\u{1}\u{1}\"}}\n\n"
                ));
            }
            body.into_bytes()
        },
        |body| {
            use agui_lint::unstable::input::har::{Delivery, DeliveryEnd};
            use agui_lint::unstable::input::har_write::{archive, Received, Sent};
            let sent = Sent {
                method: "POST".into(),
                url: "http://127.0.0.1:1/agent".into(),
                headers: Vec::new(),
                body: br#"{"threadId":"t","runId":"r","state":{},"messages":[],"tools":[],"context":[],"forwardedProps":{}}"#.to_vec(),
                at: std::time::UNIX_EPOCH,
            };
            let received = Received {
                status: Some(200),
                headers: vec![("Content-Type".into(), "text/event-stream".into())],
                body: body.to_vec(),
                head_ms: Some(1),
                total_ms: 2,
                delivery: Delivery {
                    first_byte_ms: Some(1),
                    first_event_ms: Some(1),
                    longest_gap_ms: 1,
                    end: DeliveryEnd::Complete,
                    limit_ms: None,
                    detail: None,
                    dropped_bytes: None,
                },
            };
            let text = archive(&[(sent, received)], &[]);
            check_capture(&validator, SourceLayout::Har)(&text);
        },
    );
}

/// A conformance kit exchange: `n` messages in the request's history, and
/// a response opening `n` messages and `n` tool calls (arguments in four
/// pieces), then one call whose arguments come in `n` pieces, then a
/// snapshot restating the history.
fn kit_exchange(n: usize) -> Vec<u8> {
    let mut body =
        String::from("data: {\"type\":\"RUN_STARTED\",\"threadId\":\"t\",\"runId\":\"r2\"}\n\n");
    for i in 0..n {
        body.push_str(&format!(
            "data: {{\"type\":\"TEXT_MESSAGE_START\",\"messageId\":\"a{i}\",\"role\":\"assistant\"}}\n\n\
             data: {{\"type\":\"TEXT_MESSAGE_CONTENT\",\"messageId\":\"a{i}\",\"delta\":\"é{i}\"}}\n\n\
             data: {{\"type\":\"TEXT_MESSAGE_END\",\"messageId\":\"a{i}\"}}\n\n\
             data: {{\"type\":\"TOOL_CALL_START\",\"toolCallId\":\"c{i}\",\"toolCallName\":\"get_weather\",\"parentMessageId\":\"a{i}\"}}\n\n"
        ));
        for piece in ["{\\\"ci", "ty\\\":", "\\\"Ber", "lin\\\"}"] {
            body.push_str(&format!(
                "data: {{\"type\":\"TOOL_CALL_ARGS\",\"toolCallId\":\"c{i}\",\"delta\":\"{piece}\"}}\n\n"
            ));
        }
        body.push_str(&format!(
            "data: {{\"type\":\"TOOL_CALL_END\",\"toolCallId\":\"c{i}\"}}\n\n"
        ));
    }
    body.push_str("data: {\"type\":\"TOOL_CALL_START\",\"toolCallId\":\"long\",\"toolCallName\":\"get_weather\"}\n\n");
    for _ in 0..n {
        body.push_str(
            "data: {\"type\":\"TOOL_CALL_ARGS\",\"toolCallId\":\"long\",\"delta\":\"x\"}\n\n",
        );
    }
    body.push_str("data: {\"type\":\"TOOL_CALL_END\",\"toolCallId\":\"long\"}\n\n");
    let history: Vec<String> = (0..n)
        .map(|i| format!(r#"{{"id":"u{i}","role":"user","content":"q{i}"}}"#))
        .collect();
    body.push_str(&format!(
        "data: {{\"type\":\"MESSAGES_SNAPSHOT\",\"messages\":[{}]}}\n\n",
        history.join(",")
    ));
    body.push_str("data: {\"type\":\"RUN_FINISHED\",\"threadId\":\"t\",\"runId\":\"r2\"}\n\n");
    let request = input(
        &history.join(","),
        r#"{"name":"get_weather","description":"d","parameters":{"type":"object"}}"#,
        "",
    );
    // The request, a NUL, then the response.
    let mut bytes = request;
    bytes.push(0);
    bytes.extend_from_slice(body.as_bytes());
    bytes
}

#[test]
fn kit_exchanges() {
    use agui_lint::unstable::kit::{BuiltIn, Exchange, Request};
    let _alone = alone();
    let validator = validator();
    family(
        "a conformance kit exchange, read and judged across runs",
        300,
        Memory::Linear,
        kit_exchange,
        |bytes| {
            let split = bytes.iter().position(|b| *b == 0).expect("a NUL");
            let exchange = |body: &[u8], response: &[u8]| {
                let request = Request::new("a turn", body.to_vec());
                Exchange::answered(
                    "http://127.0.0.1:1/agent",
                    request,
                    200,
                    "text/event-stream",
                    response,
                )
            };
            let first = exchange(&bytes[..split], &bytes[split + 1..]);
            let second = exchange(&bytes[..split], &bytes[split + 1..]);
            let judged = BuiltIn::MultiTurn.judge(&validator, &[first, second]);
            assert!(!judged.is_empty());
        },
    );
}

/// A conformance kit exchange whose request sends a state of 10,000
/// members and whose run adds `n` members, one delta each: the kit applies
/// them in place through the stream checker's budget, not on a copy of the
/// state per delta.
fn kit_state_exchange(n: usize) -> Vec<u8> {
    let state: Vec<String> = (0..10_000).map(|i| format!("\"k{i}\":{i}")).collect();
    let request = format!(
        r#"{{"threadId":"t","runId":"r","state":{{{}}},"messages":[],"tools":[],"context":[],"forwardedProps":{{}}}}"#,
        state.join(",")
    );
    let mut body =
        String::from("data: {\"type\":\"RUN_STARTED\",\"threadId\":\"t\",\"runId\":\"r\"}\n\n");
    for i in 0..n {
        body.push_str(&format!(
            "data: {{\"type\":\"STATE_DELTA\",\"delta\":[{{\"op\":\"add\",\"path\":\"/n{i}\",\"value\":{i}}}]}}\n\n"
        ));
    }
    body.push_str("data: {\"type\":\"RUN_FINISHED\",\"threadId\":\"t\",\"runId\":\"r\"}\n\n");
    let mut bytes = request.into_bytes();
    bytes.push(0);
    bytes.extend_from_slice(body.as_bytes());
    bytes
}

#[test]
fn kit_state() {
    use agui_lint::unstable::kit::{BuiltIn, Exchange, Request};
    let _alone = alone();
    let validator = validator();
    family(
        "a conformance kit exchange: n one-member deltas to a state of 10,000 members",
        2_000,
        Memory::Linear,
        kit_state_exchange,
        |bytes| {
            let split = bytes.iter().position(|b| *b == 0).expect("a NUL");
            let request = Request::new("a turn sending state", bytes[..split].to_vec());
            let exchange = Exchange::answered(
                "http://127.0.0.1:1/agent",
                request,
                200,
                "text/event-stream",
                &bytes[split + 1..],
            );
            let judged = BuiltIn::State.judge(&validator, &[exchange]);
            assert!(judged.iter().any(|j| j.check.id == "state-deltas-apply"
                && j.verdict == agui_lint::unstable::kit::Verdict::Passed));
        },
    );
}

/// A conformance kit exchange whose run makes one call, then says `n`
/// sentences, then sends `n` results all answering that call: the
/// official client places each after the call's message and the results
/// before it, which the kit follows within a budget of work.
fn kit_results_exchange(n: usize) -> Vec<u8> {
    let mut body = String::from(
        "data: {\"type\":\"RUN_STARTED\",\"threadId\":\"t\",\"runId\":\"r\"}\n\n\
         data: {\"type\":\"TOOL_CALL_START\",\"toolCallId\":\"c\",\"toolCallName\":\"f\",\"parentMessageId\":\"a\"}\n\n\
         data: {\"type\":\"TOOL_CALL_END\",\"toolCallId\":\"c\"}\n\n",
    );
    for i in 0..n {
        body.push_str(&format!(
            "data: {{\"type\":\"TEXT_MESSAGE_START\",\"messageId\":\"m{i}\",\"role\":\"assistant\"}}\n\n\
             data: {{\"type\":\"TEXT_MESSAGE_CONTENT\",\"messageId\":\"m{i}\",\"delta\":\"s{i}\"}}\n\n\
             data: {{\"type\":\"TEXT_MESSAGE_END\",\"messageId\":\"m{i}\"}}\n\n"
        ));
    }
    for i in 0..n {
        body.push_str(&format!(
            "data: {{\"type\":\"TOOL_CALL_RESULT\",\"messageId\":\"r{i}\",\"toolCallId\":\"c\",\"content\":\"x\"}}\n\n"
        ));
    }
    body.push_str("data: {\"type\":\"RUN_FINISHED\",\"threadId\":\"t\",\"runId\":\"r\"}\n\n");
    body.into_bytes()
}

#[test]
fn kit_conversation() {
    use agui_lint::unstable::kit::Streamed;
    let _alone = alone();
    let request = serde_json::json!({"threadId": "t", "runId": "r", "messages": []});
    family(
        "a conformance kit conversation: n results placed after their call's message",
        800,
        Memory::Linear,
        kit_results_exchange,
        |bytes| {
            let streamed = Streamed::read(&request, bytes, false);
            assert!(!streamed.messages.is_empty());
        },
    );
}

/// A run streaming one message in `n` pieces of content.
fn kit_long_message(n: usize) -> Vec<u8> {
    let mut body = String::from(
        "data: {\"type\":\"RUN_STARTED\",\"threadId\":\"t\",\"runId\":\"r\"}\n\n\
         data: {\"type\":\"TEXT_MESSAGE_START\",\"messageId\":\"m\",\"role\":\"assistant\"}\n\n",
    );
    for i in 0..n {
        body.push_str(&format!(
            "data: {{\"type\":\"TEXT_MESSAGE_CONTENT\",\"messageId\":\"m\",\"delta\":\"word{i} \"}}\n\n"
        ));
    }
    body.push_str(
        "data: {\"type\":\"TEXT_MESSAGE_END\",\"messageId\":\"m\"}\n\n\
         data: {\"type\":\"RUN_FINISHED\",\"threadId\":\"t\",\"runId\":\"r\"}\n\n",
    );
    body.into_bytes()
}

#[test]
fn kit_long_stream() {
    use agui_lint::unstable::kit::Streamed;
    let _alone = alone();
    let request = serde_json::json!({"threadId": "t", "runId": "r", "messages": []});
    // The kit keeps the message's text and the events its judgments read,
    // not every event parsed: its memory is a fraction of the body's.
    family(
        "a conformance kit run: one message in n pieces",
        20_000,
        Memory::Within(1),
        kit_long_message,
        |bytes| {
            let streamed = Streamed::read(&request, bytes, false);
            assert_eq!(streamed.messages.len(), 1);
        },
    );
}

/// A run started and a message opened, as frames.
fn proto_run_with_message() -> Vec<u8> {
    let mut out = Vec::new();
    let mut fields = Vec::new();
    proto_frames::field(2, b"t", &mut fields);
    proto_frames::field(3, b"r", &mut fields);
    proto_frames::frame(12, 11, &fields, &mut out);
    let mut fields = Vec::new();
    proto_frames::field(2, b"m", &mut fields);
    proto_frames::field(3, b"assistant", &mut fields);
    proto_frames::frame(1, 0, &fields, &mut out);
    out
}

#[test]
fn binary_frames() {
    let _alone = alone();
    let validator = validator();
    let deltas = |n: usize| {
        let mut out = proto_run_with_message();
        let mut fields = Vec::new();
        proto_frames::field(2, b"m", &mut fields);
        proto_frames::field(3, "ä delta ".as_bytes(), &mut fields);
        for _ in 0..n {
            proto_frames::frame(2, 1, &fields, &mut out);
        }
        out
    };
    family(
        "binary frames: text deltas",
        40_000,
        Memory::Flat,
        deltas,
        check_capture(&validator, SourceLayout::Proto),
    );
    family(
        "binary frames: text deltas fed in chunks",
        40_000,
        Memory::Flat,
        deltas,
        check_in_chunks(&validator, Framing::Proto),
    );
    // One STATE_SNAPSHOT whose object holds n members, every one named
    // alike (each later value replaces the one before, at the first place).
    family(
        "binary frames: an object of n members of one name",
        20_000,
        Memory::Linear,
        |n| {
            let mut out = proto_run_with_message();
            let mut value = Vec::new();
            proto_frames::field(3, b"v", &mut value);
            let mut entry = Vec::new();
            proto_frames::field(1, b"k", &mut entry);
            proto_frames::field(2, &value, &mut entry);
            let mut object = Vec::new();
            for _ in 0..n {
                proto_frames::field(1, &entry, &mut object);
            }
            let mut snapshot = Vec::new();
            proto_frames::field(5, &object, &mut snapshot);
            let mut fields = Vec::new();
            proto_frames::field(2, &snapshot, &mut fields);
            proto_frames::frame(7, 6, &fields, &mut out);
            out
        },
        check_capture(&validator, SourceLayout::Proto),
    );
    // One frame carrying n fields AG-UI does not define.
    family(
        "binary frames: unknown fields",
        20_000,
        Memory::Linear,
        |n| {
            let mut out = proto_run_with_message();
            let mut fields = Vec::new();
            proto_frames::field(2, b"m", &mut fields);
            for i in 0..n {
                proto_frames::field(20 + (i % 1000) as u64, b"x", &mut fields);
            }
            proto_frames::frame(2, 1, &fields, &mut out);
            out
        },
        check_capture(&validator, SourceLayout::Proto),
    );
    // Frames that do not decode (a base event of another type), one in a
    // hundred between text deltas. (A finding a frame fills every batch in
    // flight with documents: bounded, but a few MB to reach its ceiling,
    // which `frames that do not decode` would measure, not the reader.)
    family(
        "binary frames: frames that do not decode",
        40_000,
        Memory::Flat,
        |n| {
            let mut out = proto_run_with_message();
            let mut fields = Vec::new();
            proto_frames::field(2, b"m", &mut fields);
            proto_frames::field(3, b"x", &mut fields);
            for i in 0..n {
                if i % 100 == 0 {
                    proto_frames::frame(3, 9, b"", &mut out);
                } else {
                    proto_frames::frame(2, 1, &fields, &mut out);
                }
            }
            out
        },
        check_capture(&validator, SourceLayout::Proto),
    );
}

/// Two captures compared as `agui-lint diff` compares them: `a`, and `a`
/// with every id spelt otherwise.
fn diff_against_renamed(a: &[u8]) {
    use agui_lint::unstable::recording::diff::diff;
    use agui_lint::unstable::recording::normalize::{runs, Normalization};
    use agui_lint::unstable::recording::read_capture;
    let b: Vec<u8> = String::from_utf8_lossy(a)
        .replace("\"id-", "\"other-")
        .into_bytes();
    let name = std::path::Path::new("c.jsonl");
    let runs_a = runs(&read_capture(a, name).expect("a"), Normalization::default());
    let runs_b = runs(
        &read_capture(&b, name).expect("b"),
        Normalization::default(),
    );
    std::hint::black_box(diff(&runs_a, &runs_b));
}

/// A run of `pieces` text pieces, its ids spelt after `k`.
fn recorded_run(k: usize, pieces: usize) -> String {
    let mut run = format!(
        "{{\"type\":\"RUN_STARTED\",\"threadId\":\"id-t{k}\",\"runId\":\"id-r{k}\",\"timestamp\":{k}}}\n{{\"type\":\"TEXT_MESSAGE_START\",\"messageId\":\"id-m{k}\",\"role\":\"assistant\"}}\n"
    );
    for _ in 0..pieces {
        run.push_str(&format!(
            "{{\"type\":\"TEXT_MESSAGE_CONTENT\",\"messageId\":\"id-m{k}\",\"delta\":\"x\\u00e9 \"}}\n"
        ));
    }
    run.push_str(&format!(
        "{{\"type\":\"TEXT_MESSAGE_END\",\"messageId\":\"id-m{k}\"}}\n{{\"type\":\"RUN_FINISHED\",\"threadId\":\"id-t{k}\",\"runId\":\"id-r{k}\"}}\n"
    ));
    run
}

#[test]
fn recordings() {
    use agui_lint::unstable::recording::playback::{playback, Pace};
    use agui_lint::unstable::recording::read_capture;
    let _alone = alone();
    family(
        "diff: n runs, the same after normalisation",
        2_000,
        Memory::Linear,
        |n| {
            (0..n)
                .map(|k| recorded_run(k, 3))
                .collect::<String>()
                .into_bytes()
        },
        diff_against_renamed,
    );
    family(
        "diff: one message in n pieces",
        20_000,
        Memory::Linear,
        |n| recorded_run(0, n).into_bytes(),
        diff_against_renamed,
    );
    // One run each, no event in common: past the alignment budget, the
    // differing middle is reported whole rather than aligned.
    family(
        "diff: two unrelated runs of n events",
        5_000,
        Memory::Linear,
        |n| {
            (0..n)
                .map(|i| format!("{{\"type\":\"CUSTOM\",\"name\":\"id-{i}\",\"value\":{i}}}\n"))
                .collect::<String>()
                .into_bytes()
        },
        |a| {
            use agui_lint::unstable::recording::diff::diff;
            use agui_lint::unstable::recording::normalize::{runs, Normalization};
            let b = String::from_utf8_lossy(a).replace("\"id-", "\"other-");
            let name = std::path::Path::new("c.jsonl");
            let how = Normalization::default();
            let runs_a = runs(&read_capture(a, name).expect("a"), how);
            let runs_b = runs(&read_capture(b.as_bytes(), name).expect("b"), how);
            let found = diff(&runs_a, &runs_b);
            assert!(found.runs[0].over_budget || runs_a[0].events.len() < 2_100);
            std::hint::black_box(found);
        },
    );
    // One side's differing middle n events long, the other's five: the
    // alignment costs their product, not n squared.
    family(
        "diff: n events against five in one run",
        20_000,
        Memory::Linear,
        |n| {
            let mut a =
                String::from("{\"type\":\"RUN_STARTED\",\"threadId\":\"t\",\"runId\":\"r\"}\n");
            for i in 0..n {
                a.push_str(&format!(
                    "{{\"type\":\"CUSTOM\",\"name\":\"n{i}\",\"value\":{i}}}\n"
                ));
            }
            a.push_str("{\"type\":\"RUN_FINISHED\",\"threadId\":\"t\",\"runId\":\"r\"}\n");
            a.into_bytes()
        },
        |a| {
            use agui_lint::unstable::recording::diff::diff;
            use agui_lint::unstable::recording::normalize::{runs, Normalization};
            let text = String::from_utf8_lossy(a);
            let lines: Vec<&str> = text.lines().collect();
            let mut b: Vec<&str> = vec![lines[0]];
            b.extend(
                lines[1..lines.len() - 1]
                    .iter()
                    .step_by(lines.len() / 5 + 1),
            );
            b.push(lines[lines.len() - 1]);
            let b = b.join("\n");
            let name = std::path::Path::new("c.jsonl");
            let how = Normalization::default();
            let runs_a = runs(&read_capture(a, name).expect("a"), how);
            let runs_b = runs(&read_capture(b.as_bytes(), name).expect("b"), how);
            let found = diff(&runs_a, &runs_b);
            // Aligned, not given up: the five are found in the n.
            assert!(!found.runs[0].over_budget);
            std::hint::black_box(found);
        },
    );
    // n messages whose texts all changed: each word diff within its
    // deadline, all of them within one budget.
    family(
        "diff: n changed texts",
        100,
        Memory::Linear,
        |n| {
            let mut a = String::new();
            for i in 0..n {
                let words: String = (0..300).map(|w| format!("w{}x{i} ", w * 7 % 13)).collect();
                a.push_str(&format!(
                    "{{\"type\":\"CUSTOM\",\"name\":\"n{i}\",\"value\":\"{words}\"}}\n"
                ));
            }
            a.into_bytes()
        },
        |a| {
            use agui_lint::unstable::recording::diff::diff;
            use agui_lint::unstable::recording::normalize::{runs, Normalization};
            let b = String::from_utf8_lossy(a).replace("x", "y");
            let name = std::path::Path::new("c.jsonl");
            let how = Normalization::default();
            let runs_a = runs(&read_capture(a, name).expect("a"), how);
            let runs_b = runs(&read_capture(b.as_bytes(), name).expect("b"), how);
            std::hint::black_box(diff(&runs_a, &runs_b));
        },
    );
    // A recording of n events served again: cut at its events, its ids
    // fitted to a request.
    let request = json!({"threadId": "t-new", "runId": "r-new"});
    family(
        "replay: a recorded stream of n events",
        20_000,
        Memory::Linear,
        |n| {
            let mut sse = String::new();
            for line in recorded_run(0, n).lines() {
                sse.push_str(&format!("data: {line}\n\n"));
            }
            sse.into_bytes()
        },
        |bytes| {
            let capture = read_capture(bytes, std::path::Path::new("c.sse")).expect("capture");
            let played = playback(&capture.exchanges[0], Some(&request), false, Pace::Recorded);
            std::hint::black_box(played);
        },
    );
    family(
        "replay: an archive of n exchanges read",
        1_000,
        Memory::Linear,
        |n| har(n, 5, false),
        |bytes| {
            let capture = read_capture(bytes, std::path::Path::new("c.har")).expect("capture");
            assert!(!capture.exchanges.is_empty());
        },
    );
}

/// A copy that would take the state over its limit is refused before the
/// copy is made: a stream of root copies never holds its state twice.
#[test]
fn a_refused_copy_never_holds_the_state_twice() {
    let _alone = alone();
    let limit = 16 * 1024 * 1024;
    let validator = Validator::new().expect("validator").with_settings(
        Settings::default().with_limits(Limits::default().with_max_state_bytes(limit)),
    );
    // A snapshot that ten doublings take to about 90% of the limit: the
    // eleventh copy is refused.
    let text = "x".repeat(14_488);
    let mut events = vec![
        json!({"type": "RUN_STARTED", "threadId": "t", "runId": "r"}),
        json!({"type": "STATE_SNAPSHOT", "snapshot": {"a": text}}),
    ];
    events.extend((0..11).map(|k| json!({"type": "STATE_DELTA", "delta": [{"op": "copy", "from": "", "path": format!("/c{k}")}]})));
    events.push(json!({"type": "RUN_FINISHED", "threadId": "t", "runId": "r"}));
    let capture = lines(events.into_iter());
    let base = CURRENT.load(Ordering::Relaxed);
    PEAK.store(base, Ordering::Relaxed);
    let mut rules = Vec::new();
    check_reader(
        &validator,
        "capture",
        SourceLayout::JsonLines,
        capture.as_slice(),
        None,
        &mut |c: Checked| {
            rules.extend(c.report.diagnostics().iter().map(|d| d.rule.clone()));
        },
    )
    .expect("read from memory");
    let peak = PEAK.load(Ordering::Relaxed).saturating_sub(base);
    assert_eq!(rules, ["state-over-budget"]);
    assert!(
        peak < limit * 3 / 2,
        "peak {peak} bytes against a state limit of {limit}"
    );
}

/// The streams one validator follows at once hold no more state together
/// than its total (`max-total-state-bytes`), however many there are: 128
/// streams kept open, each taking a snapshot of about a seventh of the
/// total, peak under one and a half totals, where each stream's own limit
/// alone lets them hold more than twice it.
#[test]
fn the_streams_one_validator_follows_hold_one_total_of_state() {
    let _alone = alone();
    let total = 4 * 1024 * 1024;
    let started =
        serde_json::to_vec(&json!({"type": "RUN_STARTED", "threadId": "t", "runId": "r"}))
            .expect("JSON");
    let state: serde_json::Map<String, serde_json::Value> = (0..4_000)
        .map(|i| (format!("key-{i:05}"), json!("value")))
        .collect();
    let snapshot =
        serde_json::to_vec(&json!({"type": "STATE_SNAPSHOT", "snapshot": state})).expect("JSON");
    // The peak of 128 streams held open at once, and how many snapshots
    // were refused.
    let follow = |total_limit: usize| {
        let validator = Validator::new().expect("validator").with_settings(
            Settings::default().with_limits(
                Limits::default()
                    .with_max_state_bytes(total / 2)
                    .with_max_total_state_bytes(total_limit),
            ),
        );
        let base = CURRENT.load(Ordering::Relaxed);
        PEAK.store(base, Ordering::Relaxed);
        let mut streams = Vec::new();
        let mut refused = 0;
        for _ in 0..128 {
            let mut stream = EventStream::new();
            for event in [&started, &snapshot] {
                let report =
                    validator.validate_in_stream(&mut stream, Some(Kind::Event), event, None, None);
                refused += report
                    .diagnostics()
                    .iter()
                    .filter(|d| d.rule == "state-over-budget")
                    .count();
            }
            streams.push(stream);
        }
        (PEAK.load(Ordering::Relaxed).saturating_sub(base), refused)
    };
    let (bounded, refused) = follow(total);
    let (unbounded, none) = follow(usize::MAX);
    eprintln!(
        "128 streams: peak {bounded} bytes against a total of {total} ({refused} refused), {unbounded} without one"
    );
    assert_eq!(none, 0);
    assert!(refused >= 120, "{refused} of 128 snapshots refused");
    assert!(
        bounded < total * 3 / 2,
        "peak {bounded} bytes against a total of {total}"
    );
    assert!(
        unbounded > 2 * total,
        "without a total, 128 streams held only {unbounded} bytes: the test shows nothing"
    );
}
