//! A report written as the documents of a run arrive (what the CLI does)
//! is the report of the whole run rendered at once (what the library's
//! `render` gives), in every format, over many files of every layout.

use std::path::PathBuf;

use agui_lint::unstable::check::{check_sources, check_sources_in_order, Failure};
use agui_lint::unstable::input::{collect_sources, Collected, Filter};
use agui_lint::unstable::render::{render, Format, Options, Writer};
use agui_lint::{Protocol, Validator};

/// The sources of a few fixture folders (JSON, JSON Lines, SSE and HAR
/// files, with and without findings) and a path that does not exist.
fn sources() -> Collected {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fixtures");
    let paths = [
        root.join("1.1/streams"),
        root.join("1.1/message"),
        root.join("0/run-agent-input/invalid"),
        root.join("does-not-exist.json"),
    ];
    let filter = Filter::new(&[], &[]).expect("filter");
    collect_sources(&paths, &filter, None)
}

/// Every combination of the options that change what is shown.
fn options() -> Vec<Options> {
    let mut all = Vec::new();
    for bits in 0..16u8 {
        let (quiet, summary) = (bits & 2 != 0, bits & 8 != 0);
        if quiet && summary {
            continue; // the CLI refuses the pair
        }
        all.push(Options {
            color: false,
            statistics: bits & 1 != 0,
            quiet,
            summary,
            strict: bits & 4 != 0,
            protocol: Protocol::NEWEST,
            verbose: false,
        });
    }
    all
}

#[test]
fn a_streamed_report_is_the_rendered_report_in_every_format() {
    let validator = Validator::new().expect("validator");
    let collected = sources();
    assert!(collected.sources.len() > 20, "{}", collected.sources.len());
    let missing: Vec<Failure> = collected
        .failures
        .iter()
        .cloned()
        .map(Failure::from)
        .collect();
    let mut outcome = check_sources(&validator, &collected.sources, None, &|| {});
    outcome.add_failures(missing.iter().cloned());
    assert!(outcome.with_findings().count() > 10);
    assert_eq!(outcome.failures.len(), 1);
    for format in Format::ALL {
        for options in options() {
            let whole = render(format, &outcome, &options);
            let mut writer = Writer::begin(format, &options, Vec::new()).expect("begin");
            let mut failures = missing.clone();
            let mut written = Ok(());
            check_sources_in_order(
                &validator,
                &collected.sources,
                None,
                &|| {},
                &mut |documents| {
                    if written.is_ok() {
                        written = writer.outcome(&documents);
                    }
                },
                &mut |failure| failures.push(failure),
            );
            written.expect("write");
            failures.sort_by(|a, b| a.path.cmp(&b.path));
            assert_eq!(
                writer.has_failing_document(),
                outcome.has_failing_document(options.strict)
            );
            let streamed = writer.finish(&failures).expect("finish");
            let streamed = String::from_utf8(streamed).expect("utf-8");
            assert!(
                streamed == whole,
                "{format:?} {options:?}: the streamed report differs:\n{}",
                similar::TextDiff::from_lines(&whole, &streamed)
                    .unified_diff()
                    .header("rendered", "streamed")
            );
        }
    }
}
