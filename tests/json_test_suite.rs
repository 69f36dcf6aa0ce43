//! JSON parser conformance over the public JSONTestSuite corpus
//! (`../shared/data/JSONTestSuite/test_parsing`): every `y_` file parses,
//! every `n_` file is one located `invalid-json`, and no file (`i_` ones
//! included) panics or hangs.
//!
//! The corpus is read from beside the project. When it is absent the test
//! prints a notice and passes, except under `CI`, where its absence fails.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use agui_lint::Validator;

fn corpus() -> Option<PathBuf> {
    let dir =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/data/JSONTestSuite/test_parsing");
    dir.is_dir().then_some(dir)
}

#[test]
fn json_test_suite() {
    let Some(dir) = corpus() else {
        assert!(
            std::env::var_os("CI").is_none(),
            "the JSONTestSuite corpus is missing under CI: expected ../shared/data/JSONTestSuite/test_parsing"
        );
        eprintln!("notice: ../shared/data/JSONTestSuite/test_parsing not found; JSON conformance not checked");
        return;
    };
    let validator = Validator::new().expect("validator");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("read corpus")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    assert!(files.len() > 300, "only {} files", files.len());
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
