//! Snapshot of every fixture's diagnostics, and the corpus contract:
//! `fixtures/<kind>/valid/*.json` has no error or warning, and
//! `fixtures/<kind>/invalid/<rule>-*.json` reports `<rule>`. The folder
//! `fixtures/auto/` is checked with the kind detected from each document.

use std::collections::BTreeSet;
use std::fmt::Write;
use std::path::Path;

use agui_lint::rules;
use agui_lint::{Kind, Report, Severity, Validator};

/// The kind folder and the valid/invalid folder of a fixture.
fn classify(path: &Path) -> (Option<Kind>, bool) {
    let parent = path.parent().expect("fixture in a folder");
    let validity = parent
        .file_name()
        .and_then(|n| n.to_str())
        .expect("folder name");
    let kind_dir = parent
        .parent()
        .and_then(|p| p.file_name())
        .and_then(|n| n.to_str())
        .expect("kind folder");
    let kind = match kind_dir {
        "auto" => None,
        name => Some(
            name.parse()
                .unwrap_or_else(|e| panic!("{}: {e}", path.display())),
        ),
    };
    assert!(
        validity == "valid" || validity == "invalid",
        "{}: fixtures live in valid/ or invalid/",
        path.display()
    );
    (kind, validity == "valid")
}

/// The registered rule an invalid fixture is named after (longest prefix).
fn expected_rule(path: &Path) -> &'static str {
    let stem = path
        .file_stem()
        .and_then(|s| s.to_str())
        .expect("file name");
    rules::all()
        .iter()
        .map(|r| r.name)
        .filter(|name| stem == *name || stem.starts_with(&format!("{name}-")))
        .max_by_key(|name| name.len())
        .unwrap_or_else(|| panic!("{}: name does not start with a rule name", path.display()))
}

fn check(validator: &Validator, path: &Path) -> Report {
    let bytes = std::fs::read(path).expect("read fixture");
    match classify(path).0 {
        Some(kind) => validator.validate(kind, &bytes),
        None => validator.validate_detected(&bytes),
    }
}

fn describe(report: &Report) -> String {
    let mut out = format!(
        "kind: {}\nvalid: {}\n",
        report.kind().map_or("unknown", |k| k.as_str()),
        report.is_valid()
    );
    for d in report.diagnostics() {
        let at = d
            .location
            .map_or("-".to_string(), |l| format!("{}:{}", l.line, l.column));
        let pointer = if d.pointer.is_empty() {
            "(root)"
        } else {
            &d.pointer
        };
        let _ = writeln!(
            out,
            "{}[{}] {} {}: {}",
            d.severity, d.rule, pointer, at, d.message
        );
        if let Some(help) = &d.help {
            let _ = writeln!(out, "  help: {help}");
        }
        for r in &d.related {
            let at = r
                .location
                .map_or("-".to_string(), |l| format!("{}:{}", l.line, l.column));
            let _ = writeln!(out, "  related: {} {}: {}", r.pointer, at, r.message);
        }
    }
    out
}

#[test]
fn fixture_snapshots() {
    let validator = Validator::new().expect("validator");
    insta::glob!("../fixtures", "**/*.json", |path| {
        let report = check(&validator, path);
        let (_, valid) = classify(path);
        if valid {
            let noisy: Vec<_> = report
                .diagnostics()
                .iter()
                .filter(|d| d.severity >= Severity::Warning)
                .collect();
            assert!(
                noisy.is_empty(),
                "{}: valid fixture reports {noisy:#?}",
                path.display()
            );
        } else {
            let rule = expected_rule(path);
            assert!(
                report.diagnostics().iter().any(|d| d.rule == rule),
                "{}: expected rule {rule}, got\n{}",
                path.display(),
                describe(&report)
            );
        }
        insta::assert_snapshot!(describe(&report));
    });
}

/// Rules no fixture can trigger through the published schemas, with why.
const WITHOUT_FIXTURE: &[(&str, &str)] = &[(
    "schema-violation",
    "the fallback for schema keywords agui-lint does not refine; the published schemas use none, so it is covered by a unit test over a synthetic schema",
)];

#[test]
fn every_rule_has_invalid_fixtures_and_valid_ones_exist_per_kind() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures");
    let mut fired = BTreeSet::new();
    let mut valid_kinds = BTreeSet::new();
    let mut count = 0;
    for entry in walkdir::WalkDir::new(&root) {
        let entry = entry.expect("walk fixtures");
        let path = entry.path();
        if path.extension().is_none_or(|e| e != "json") {
            continue;
        }
        count += 1;
        let (kind, valid) = classify(path);
        if valid {
            valid_kinds.extend(kind);
        } else {
            fired.insert(expected_rule(path));
        }
    }
    assert!(count >= 60, "only {count} fixtures");
    for rule in rules::all() {
        if WITHOUT_FIXTURE.iter().any(|(name, _)| *name == rule.name) {
            continue;
        }
        assert!(
            fired.contains(rule.name),
            "no invalid fixture is named after rule {}",
            rule.name
        );
    }
    for kind in Kind::ALL {
        assert!(
            valid_kinds.contains(&kind),
            "no valid fixture of kind {kind}"
        );
    }
}
