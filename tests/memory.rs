//! A long capture is checked in memory bounded by one event and what is
//! open, not by its size, and reported in memory bounded by one document,
//! not by its findings. Ignored by default (they write and read 100 to
//! 200 MB); run them with `cargo test --release --test memory -- --ignored`.

use std::io::{BufWriter, Write};

use agui_lint::unstable::check::{check_source, check_sources_in_order};
use agui_lint::unstable::input::Source;
use agui_lint::unstable::render::{Format, Options, Writer};
use agui_lint::Validator;

/// Peak resident memory of this process so far, in kB (Linux).
fn peak_rss_kb() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

#[test]
#[ignore = "writes and checks a 200 MB capture; run with --ignored in release"]
fn a_200_mb_sse_stream_stays_under_100_mb_of_memory() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("long.sse");
    let mut file = BufWriter::new(std::fs::File::create(&path).expect("create"));
    let mut written = 0usize;
    let mut events = 0usize;
    let write = |line: String, file: &mut BufWriter<std::fs::File>| {
        let text = format!("data: {line}\n\n");
        file.write_all(text.as_bytes()).expect("write");
        text.len()
    };
    written += write(
        r#"{"type":"RUN_STARTED","threadId":"t1","runId":"r1"}"#.into(),
        &mut file,
    );
    written += write(
        r#"{"type":"STATE_SNAPSHOT","snapshot":{"tokens":0}}"#.into(),
        &mut file,
    );
    let mut message = 0;
    while written < 200 * 1024 * 1024 {
        message += 1;
        written += write(
            format!(
                r#"{{"type":"TEXT_MESSAGE_START","messageId":"m{message}","role":"assistant"}}"#
            ),
            &mut file,
        );
        for chunk in 0..200 {
            written += write(
                format!(
                    r#"{{"type":"TEXT_MESSAGE_CONTENT","messageId":"m{message}","delta":"token {chunk} of a long answer"}}"#
                ),
                &mut file,
            );
        }
        written += write(
            format!(r#"{{"type":"TEXT_MESSAGE_END","messageId":"m{message}"}}"#),
            &mut file,
        );
        written += write(
            format!(
                r#"{{"type":"STATE_DELTA","delta":[{{"op":"replace","path":"/tokens","value":{message}}}]}}"#
            ),
            &mut file,
        );
        events += 203;
    }
    written += write(
        r#"{"type":"RUN_FINISHED","threadId":"t1","runId":"r1"}"#.into(),
        &mut file,
    );
    file.flush().expect("flush");
    drop(file);
    let before = peak_rss_kb();

    let validator = Validator::new().expect("validator");
    let mut documents = 0usize;
    let mut findings = 0usize;
    check_source(&validator, &Source::File(path), None, &mut |checked| {
        documents += 1;
        findings += checked.report.diagnostics().len();
    })
    .expect("readable");

    assert_eq!(documents, events + 3);
    assert_eq!(findings, 0);
    let (Some(before), Some(after)) = (before, peak_rss_kb()) else {
        eprintln!("no /proc/self/status here; memory not measured");
        return;
    };
    eprintln!(
        "checked {documents} events ({} MB): peak RSS {} MB (before checking: {} MB)",
        written / (1024 * 1024),
        after / 1024,
        before / 1024
    );
    assert!(after < 100 * 1024, "peak RSS {after} kB");
}

#[test]
#[ignore = "writes and checks a 100 MB capture six times; run with --ignored in release"]
fn a_finding_on_every_line_of_100_mb_is_reported_in_every_format_under_64_mb() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("warnings.jsonl");
    let mut file = BufWriter::new(std::fs::File::create(&path).expect("create"));
    let mut lines = 0usize;
    let mut written = 0usize;
    let content = "a long message from the user, ".repeat(30);
    while written < 100 * 1024 * 1024 {
        // An empty id: one `empty-id` warning a line.
        let line = format!("{{\"id\":\"\",\"role\":\"user\",\"content\":\"{content}{lines}\"}}\n");
        file.write_all(line.as_bytes()).expect("write");
        written += line.len();
        lines += 1;
    }
    file.flush().expect("flush");
    drop(file);
    let validator = Validator::new().expect("validator");
    let sources = [Source::File(path)];
    let before = peak_rss_kb();
    for format in Format::ALL {
        let report = std::fs::File::create(dir.path().join("report")).expect("create");
        let mut writer =
            Writer::begin(format, &Options::default(), BufWriter::new(report)).expect("begin");
        let mut failures = Vec::new();
        check_sources_in_order(
            &validator,
            &sources,
            None,
            &|| {},
            &mut |documents| writer.outcome(&documents).expect("write"),
            &mut |failure| failures.push(failure),
        );
        assert!(failures.is_empty(), "{failures:?}");
        assert_eq!(writer.summary().warnings, lines, "{format:?}");
        writer.finish(&[]).expect("finish");
        let Some(after) = peak_rss_kb() else {
            eprintln!("no /proc/self/status here; memory not measured");
            return;
        };
        eprintln!(
            "{format:?}: {lines} warnings ({} MB): peak RSS {} MB (before: {} MB)",
            written / (1024 * 1024),
            after / 1024,
            before.unwrap_or(0) / 1024
        );
        assert!(after < 64 * 1024, "{format:?}: peak RSS {after} kB");
    }
}
