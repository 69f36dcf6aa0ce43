//! The stream checker fed bytes as they come: any split of a capture into
//! chunks gives exactly the documents, findings and positions of checking
//! the capture whole, as the CLI does; SSE and JSON Lines are told apart
//! from the first bytes; a stream is paired with the request it answers.

use std::path::{Path, PathBuf};

use agui_lint::unstable::check::{check_reader, Checked};
use agui_lint::unstable::input::Layout;
use agui_lint::{Framing, Protocol, ProtocolChoice, Settings, StreamChecker, Validator};
use proptest::prelude::*;
use serde_json::json;

/// Every stream capture of the fixture corpus and of the vendored traffic,
/// with its layout. Fails when there is none, so the test cannot pass on
/// nothing.
fn captures() -> Vec<(PathBuf, Layout)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut found = Vec::new();
    let mut folders = vec![root.join("fixtures"), root.join("tests/upstream")];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder).expect("a fixture folder") {
            let path = entry.expect("an entry").path();
            if path.is_dir() {
                folders.push(path);
            } else if let Some(layout @ (Layout::Sse | Layout::JsonLines)) =
                Layout::from_path(&path)
            {
                found.push((path, layout));
            }
        }
    }
    found.sort_by(|a, b| a.0.cmp(&b.0));
    assert!(found.len() > 100, "only {} captures found", found.len());
    assert!(found.iter().any(|(_, layout)| *layout == Layout::Sse));
    found
}

/// The validator a capture is judged by: its fixture folder's version.
fn validator_for(path: &Path) -> Validator {
    let text = path.to_string_lossy();
    let protocol = [Protocol::V0, Protocol::V1_0, Protocol::V1_1]
        .into_iter()
        .find(|p| text.contains(&format!("fixtures/{}/", p.as_str())))
        .unwrap_or(Protocol::V1_0);
    Validator::new()
        .expect("validator")
        .with_settings(Settings::default().protocol(ProtocolChoice::Version(protocol)))
}

fn framing(layout: Layout) -> Framing {
    match layout {
        Layout::Sse => Framing::Sse,
        _ => Framing::JsonLines,
    }
}

/// Every document of `bytes` as the CLI checks a file: read whole.
fn whole(validator: &Validator, layout: Layout, bytes: &[u8]) -> Vec<String> {
    let mut documents = Vec::new();
    check_reader(validator, "-", layout, bytes, None, &mut |checked| {
        documents.push(shown(&checked))
    })
    .expect("reading from memory does not fail");
    documents
}

/// Every document of `bytes` fed to a stream checker cut at `cuts`.
fn in_chunks(validator: &Validator, framing: Framing, bytes: &[u8], cuts: &[usize]) -> Vec<String> {
    let mut checker = StreamChecker::new(validator, framing);
    let mut documents = Vec::new();
    let mut at = 0;
    for &cut in cuts.iter().chain([&bytes.len()]) {
        let cut = cut.clamp(at, bytes.len());
        checker.feed_each(&bytes[at..cut], |checked| documents.push(shown(&checked)));
        at = cut;
    }
    checker.finish_each(|checked| documents.push(shown(&checked)));
    documents
}

/// A document, all of it: its place, offset, findings with their
/// positions and notes, and the source lines they show.
fn shown(checked: &Checked) -> String {
    format!("{checked:?}")
}

#[test]
fn every_capture_fed_whole_or_a_byte_at_a_time_is_checked_as_the_cli_checks_it() {
    let mut compared = 0;
    for (path, layout) in captures() {
        let bytes = std::fs::read(&path).expect("a capture");
        let validator = validator_for(&path);
        let expected = whole(&validator, layout, &bytes);
        let name = path.display();
        assert!(!expected.is_empty(), "{name}: no document");
        assert_eq!(
            in_chunks(&validator, framing(layout), &bytes, &[]),
            expected,
            "{name}: fed whole"
        );
        assert_eq!(
            in_chunks(&validator, Framing::Auto, &bytes, &[]),
            expected,
            "{name}: framing told from its bytes"
        );
        if bytes.len() <= 8 * 1024 {
            let every_byte: Vec<usize> = (1..bytes.len()).collect();
            assert_eq!(
                in_chunks(&validator, framing(layout), &bytes, &every_byte),
                expected,
                "{name}: fed a byte at a time"
            );
            assert_eq!(
                in_chunks(&validator, Framing::Auto, &bytes, &every_byte),
                expected,
                "{name}: told from its bytes, fed a byte at a time"
            );
        }
        compared += 1;
    }
    assert!(compared > 100);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn any_split_of_a_capture_gives_the_findings_of_the_whole(
        pick in any::<prop::sample::Index>(),
        cuts in prop::collection::vec(any::<prop::sample::Index>(), 0..12),
    ) {
        let captures = captures();
        let (path, layout) = &captures[pick.index(captures.len())];
        let bytes = std::fs::read(path).expect("a capture");
        let validator = validator_for(path);
        let mut cuts: Vec<usize> = cuts.iter().map(|c| c.index(bytes.len() + 1)).collect();
        cuts.sort_unstable();
        prop_assert_eq!(
            in_chunks(&validator, framing(*layout), &bytes, &cuts),
            whole(&validator, *layout, &bytes),
            "{} cut at {:?}", path.display(), cuts
        );
    }
}

#[test]
fn feed_hands_out_each_document_with_findings_once_the_next_record_comes() {
    let validator = Validator::new().expect("validator");
    let mut checker = StreamChecker::new(&validator, Framing::Sse);
    let started = b"data: {\"type\":\"RUN_STARTED\",\"threadId\":\"t\",\"runId\":\"r\"}\n\n";
    assert!(checker.feed(started).is_empty());
    // Content of a message never started: final once the next event comes.
    let stray =
        b"data: {\"type\":\"TEXT_MESSAGE_CONTENT\",\"messageId\":\"m\",\"delta\":\"x\"}\n\n";
    assert!(checker.feed(stray).is_empty());
    let finished = b"data: {\"type\":\"RUN_FINISHED\",\"threadId\":\"t\",\"runId\":\"r\"}\n\n";
    let found = checker.feed(finished);
    assert_eq!(found.len(), 1);
    let document = &found[0];
    assert_eq!(document.record, Some(2));
    assert_eq!(document.offset, Some(started.len() as u64));
    let finding = &document.report.diagnostics()[0];
    let location = finding.location.expect("a location");
    assert_eq!(location.line, 3, "the event's line in the stream");
    assert_eq!(checker.records(), 3);
    assert!(checker.finish().is_empty());
}

#[test]
fn a_stream_paired_with_its_request_knows_the_calls_the_request_made() {
    let validator = Validator::new().expect("validator");
    let request = json!({
        "threadId": "t", "runId": "r", "state": {}, "tools": [], "context": [],
        "forwardedProps": {},
        "messages": [{"id": "a", "role": "assistant", "toolCalls": [
            {"id": "call-1", "type": "function", "function": {"name": "f", "arguments": "{}"}}]}]
    });
    let stream = concat!(
        "{\"type\":\"RUN_STARTED\",\"threadId\":\"t\",\"runId\":\"r\"}\n",
        "{\"type\":\"TOOL_CALL_RESULT\",\"messageId\":\"m\",\"toolCallId\":\"call-1\",\"content\":\"ok\"}\n",
        "{\"type\":\"RUN_FINISHED\",\"threadId\":\"t\",\"runId\":\"r\"}\n",
    );
    let rules = |checker: StreamChecker| {
        let mut checker = checker;
        let mut found = checker.feed(stream.as_bytes());
        found.extend(checker.finish());
        found
            .iter()
            .flat_map(|d| d.report.diagnostics())
            .map(|d| d.rule.clone())
            .collect::<Vec<_>>()
    };
    let alone = rules(StreamChecker::new(&validator, Framing::JsonLines));
    assert!(
        !alone.is_empty(),
        "a result for a call the stream never made"
    );
    let paired = rules(StreamChecker::new(&validator, Framing::JsonLines).answering(&request));
    assert!(paired.is_empty(), "{paired:?}");
}

#[test]
fn an_empty_stream_is_said_to_be_empty_and_blank_lines_do_not_stall_the_framing() {
    let validator = Validator::new().expect("validator");
    let checker = StreamChecker::new(&validator, Framing::Auto);
    let found = checker.finish();
    assert_eq!(found[0].report.diagnostics()[0].rule, "empty-input");
    // Blank lines past what is held to tell the framing: taken as JSON
    // Lines, whose blank lines are no records, then the lines that follow.
    let mut checker = StreamChecker::new(&validator, Framing::Auto);
    for _ in 0..100 {
        assert!(checker.feed(&[b'\n'; 1024]).is_empty());
    }
    assert!(checker.feed(b"{\"type\":\"RUN_STARTED\"}\n").is_empty());
    let found = checker.finish();
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].record, Some(102_401));
}

#[test]
fn finishing_counts_the_records_only_the_end_made_final() {
    let validator = Validator::new().expect("validator");
    let lines = b"{\"type\":\"RUN_STARTED\",\"threadId\":\"t\",\"runId\":\"r\"}\n\
        {\"type\":\"RUN_FINISHED\",\"threadId\":\"t\",\"runId\":\"r\"}";
    for framing in [Framing::JsonLines, Framing::Auto] {
        let mut checker = StreamChecker::new(&validator, framing);
        assert!(checker.feed(lines).is_empty());
        // The last line has no end yet: more of it may come.
        assert!(checker.records() <= 1);
        let (found, records) = checker.finish_counted();
        assert!(found.is_empty(), "{found:?}");
        assert_eq!(records, 2);
    }
    // An empty stream holds no record; its one document says so.
    let (found, records) = StreamChecker::new(&validator, Framing::Sse).finish_counted();
    assert_eq!((found.len(), records), (1, 0));
}

#[test]
fn what_the_end_finds_is_placed_on_the_last_record() {
    let validator = Validator::new().expect("validator");
    let mut checker = StreamChecker::new(&validator, Framing::JsonLines);
    let started = "{\"type\":\"RUN_STARTED\",\"threadId\":\"t\",\"runId\":\"r\"}\n";
    let text = "{\"type\":\"TEXT_MESSAGE_START\",\"messageId\":\"m\",\"role\":\"assistant\"}\n";
    assert!(checker.feed(started.as_bytes()).is_empty());
    assert!(checker.feed(text.as_bytes()).is_empty());
    let found = checker.finish();
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].record, Some(2));
    assert_eq!(found[0].offset, Some(started.len() as u64));
    assert!(!found[0].report.diagnostics().is_empty());
}
