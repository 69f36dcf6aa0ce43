//! JSON parser conformance over the JSONTestSuite parsing corpus, vendored
//! under `tests/data/JSONTestSuite/test_parsing` (MIT, see its LICENSE and
//! ORIGIN.md): every `y_` file parses, every `n_` file is one located
//! `invalid-json`, and no file (`i_` ones included) panics or hangs.
//!
//! The corpus is part of the repository, so the test never skips: a
//! missing or shrunken corpus fails it. The test's name carries the case
//! count, so `cargo test` shows how many files were really checked.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use agui_lint::Validator;

/// The vendored corpus: 95 `y_`, 188 `n_` and 35 `i_` files.
const EXPECTED: [(&str, usize); 3] = [("y_", 95), ("n_", 188), ("i_", 35)];

fn corpus() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/JSONTestSuite/test_parsing")
}

#[test]
fn json_test_suite_318_files() {
    let dir = corpus();
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| {
            panic!(
                "the JSONTestSuite corpus is missing at {}: {e}",
                dir.display()
            )
        })
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    let count = |prefix: &str| {
        files
            .iter()
            .filter(|p| {
                p.file_name()
                    .and_then(|n| n.to_str())
                    .is_some_and(|n| n.starts_with(prefix))
            })
            .count()
    };
    let found: Vec<(&str, usize)> = EXPECTED.iter().map(|&(p, _)| (p, count(p))).collect();
    assert_eq!(
        found,
        EXPECTED,
        "the corpus at {} is not the vendored one",
        dir.display()
    );
    assert_eq!(files.len(), 318, "the test's name says 318 files");
    println!(
        "JSONTestSuite: checking {} files from {}",
        files.len(),
        dir.display()
    );
    let validator = Validator::new().expect("validator");
    let mut failures = Vec::new();
    for path in &files {
        let name = path.file_name().and_then(|n| n.to_str()).expect("name");
        let bytes = std::fs::read(path).expect("read");
        let started = Instant::now();
        let report = validator.validate_detected(&bytes);
        let elapsed = started.elapsed();
        if elapsed > Duration::from_secs(2) {
            failures.push(format!("{name}: took {elapsed:?}"));
        }
        let invalid_json: Vec<_> = report
            .diagnostics()
            .iter()
            .filter(|d| d.rule == "invalid-json")
            .collect();
        if name.starts_with("y_") && !invalid_json.is_empty() {
            failures.push(format!(
                "{name}: valid JSON reported as {:?}",
                invalid_json[0].message
            ));
        }
        if name.starts_with("n_") {
            match invalid_json.as_slice() {
                [one] if one.location.is_some() => {}
                [] => failures.push(format!(
                    "{name}: invalid JSON accepted ({:?})",
                    report
                        .diagnostics()
                        .iter()
                        .map(|d| &d.rule)
                        .collect::<Vec<_>>()
                )),
                _ => failures.push(format!(
                    "{name}: expected one located invalid-json, got {invalid_json:?}"
                )),
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} files:\n{}",
        failures.len(),
        files.len(),
        failures.join("\n")
    );
}
