//! Snapshot of every fixture's diagnostics, and the corpus contract:
//! `fixtures/<version>/<kind>/valid/*.json` has no error or warning, and
//! `fixtures/<version>/<kind>/invalid/<rule>-*.json` reports `<rule>`, where
//! `<version>` (`0`, `1.0`, `1.1`) is what a document that declares no
//! version is judged as. The folder `auto/` is checked with the kind
//! detected from each document; `streams/` holds captures (JSON Lines, SSE,
//! HAR, binary frames) checked as files, every record of one file counting together. A
//! fixture named `client-<rule>-<profile>` is seen through that official
//! client (`--client <profile>`).
//! (`conformance/` holds streams in upstream's conformance format, checked
//! by `tests/conformance.rs`.)

use std::collections::BTreeSet;
use std::fmt::Write;
use std::path::Path;

use agui_lint::rules;
use agui_lint::unstable::check::{check_source, Checked};
use agui_lint::unstable::input::Source;
use agui_lint::{
    Client, Diagnostic, Kind, Protocol, ProtocolChoice, Report, Settings, Severity, Validator,
};

/// The version folder a fixture is in: what an undeclared document is
/// judged as.
fn version_of(path: &Path) -> Protocol {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures");
    let relative = path.strip_prefix(&root).unwrap_or(path);
    let folder = relative
        .components()
        .next()
        .and_then(|c| c.as_os_str().to_str())
        .expect("version folder");
    folder
        .parse()
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// A validator judging undeclared documents as `protocol`.
fn validator_for(protocol: Protocol) -> Validator {
    Validator::new()
        .expect("validator")
        .with_settings(Settings::default().protocol(ProtocolChoice::Version(protocol)))
}

/// The client a fixture is seen through: `client-<rule>-<profile>.json`
/// names the `--client` profile its rule needs; every other fixture has
/// none.
fn client_of(path: &Path) -> Option<Client> {
    let stem = path.file_stem()?.to_str()?;
    if !stem.starts_with("client-") {
        return None;
    }
    let profile = stem.rsplit('-').next()?;
    Some(
        profile
            .parse()
            .unwrap_or_else(|e| panic!("{}: {e}", path.display())),
    )
}

/// `validator`, seen through the client `path` names, if it names one.
fn seen_by(validator: &Validator, path: &Path) -> Validator {
    match client_of(path) {
        Some(client) => validator.clone().with_settings(
            Settings::default()
                .protocol(ProtocolChoice::Version(version_of(path)))
                .client(client),
        ),
        None => validator.clone(),
    }
}

/// Whether `finding` is the default view's word on a document declaring
/// 1.1: @ag-ui/client 1.0.0 speaks 1.0 and warns (`client-older-than-stream`,
/// shown by its own fixtures). A valid 1.1 document is still valid 1.1.
fn seen_as_newer(finding: &Diagnostic) -> bool {
    finding.rule == "client-older-than-stream"
}

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
        "auto" | "streams" => None,
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

/// What a user would see of `report`; the version that judged it is
/// shown where it is not the folder's (a document declaring another).
fn describe(report: &Report, folder: Protocol) -> String {
    let mut out = format!(
        "kind: {}\nvalid: {}\n",
        report.kind().map_or("unknown", |k| k.as_str()),
        report.is_valid()
    );
    if report.protocol() != folder {
        let _ = writeln!(out, "protocol: {}", report.protocol());
    }
    describe_diagnostics(&mut out, report.diagnostics());
    out
}

fn describe_diagnostics(out: &mut String, diagnostics: &[Diagnostic]) {
    for d in diagnostics {
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
            let record = r
                .record
                .map(|r| format!(" (record {r})"))
                .unwrap_or_default();
            let _ = writeln!(
                out,
                "  related: {}{record} {}: {}",
                r.pointer, at, r.message
            );
        }
    }
}

/// Every record of a capture, with the file positions the CLI reports.
fn describe_capture(documents: &[Checked], folder: Protocol) -> String {
    let mut out = String::new();
    for document in documents {
        let _ = writeln!(
            out,
            "{} kind: {} valid: {}",
            document.place().unwrap_or_else(|| "document".into()),
            document.report.kind().map_or("unknown", |k| k.as_str()),
            document.report.is_valid()
        );
        if document.report.protocol() != folder {
            let _ = writeln!(out, "  protocol: {}", document.report.protocol());
        }
        let located: Vec<Diagnostic> = document
            .report
            .diagnostics()
            .iter()
            .map(|d| {
                let mut d = d.clone();
                d.location = d.location.map(|l| document.file_location(l));
                for r in &mut d.related {
                    r.location = document.related_file_location(r);
                }
                d
            })
            .collect();
        describe_diagnostics(&mut out, &located);
    }
    out
}

fn check_capture(validator: &Validator, path: &Path) -> Vec<Checked> {
    let mut documents = Vec::new();
    check_source(
        validator,
        &Source::File(path.to_path_buf()),
        None,
        &mut |c| documents.push(c),
    )
    .expect("fixture is readable");
    documents
}

#[test]
fn fixture_snapshots() {
    let validators: Vec<Validator> = Protocol::ALL.into_iter().map(validator_for).collect();
    let for_version =
        |p: Protocol| &validators[Protocol::ALL.iter().position(|v| *v == p).expect("known")];
    insta::glob!("../fixtures", "*/*/*/*.json", |path| {
        let report = check(&seen_by(for_version(version_of(path)), path), path);
        let (_, valid) = classify(path);
        if valid {
            let noisy: Vec<_> = report
                .diagnostics()
                .iter()
                .filter(|d| d.severity >= Severity::Warning && !seen_as_newer(d))
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
                describe(&report, version_of(path))
            );
        }
        insta::assert_snapshot!(describe(&report, version_of(path)));
    });
}

#[test]
fn capture_fixture_snapshots() {
    let validators: Vec<Validator> = Protocol::ALL.into_iter().map(validator_for).collect();
    let for_version =
        |p: Protocol| &validators[Protocol::ALL.iter().position(|v| *v == p).expect("known")];
    insta::glob!(
        "../fixtures",
        "*/streams/**/*.{jsonl,sse,har,aguipb}",
        |path| {
            let documents = check_capture(&seen_by(for_version(version_of(path)), path), path);
            assert!(!documents.is_empty(), "{}: no document", path.display());
            let diagnostics: Vec<&Diagnostic> = documents
                .iter()
                .flat_map(|d| d.report.diagnostics())
                .collect();
            if classify(path).1 {
                let noisy: Vec<_> = diagnostics
                    .iter()
                    .filter(|d| d.severity >= Severity::Warning && !seen_as_newer(d))
                    .collect();
                assert!(
                    noisy.is_empty(),
                    "{}: valid capture reports {noisy:#?}",
                    path.display()
                );
            } else {
                let rule = expected_rule(path);
                assert!(
                    diagnostics.iter().any(|d| d.rule == rule),
                    "{}: expected rule {rule}, got\n{}",
                    path.display(),
                    describe_capture(&documents, version_of(path))
                );
            }
            insta::assert_snapshot!(describe_capture(&documents, version_of(path)));
        }
    );
}

/// Rules no fixture can trigger through the published schemas, with why.
const WITHOUT_FIXTURE: &[(&str, &str)] = &[
    (
        "document-too-large",
        "the default limit is 64 MiB, too large to commit; tests/limits.rs lowers the limit and checks it on files, JSON Lines lines and the library",
    ),
    (
        "too-many-findings",
        "the default limit is 1,000 findings, whose snapshot would be as large; tests/hostile.rs lowers the limit and checks the summary, its counts and its severity",
    ),
    (
        "open-items-over-limit",
        "a run must hold 100,000 items open at once (7 MB of events); the rule's unit test lowers the limit, and tests/complexity.rs meets it with 1M open tool calls",
    ),
    (
        "check-timed-out",
        "only a server guard has a time budget; tests/server.rs meets it with a zero budget",
    ),
    (
        "proto-frame-too-large",
        "a frame over the client's 10 MiB is too large to commit; tests/proto.rs makes one",
    ),
];

/// Every document and capture fixture under `fixtures/<version>/<kind>/`
/// and `fixtures/<version>/streams/`.
fn fixture_files() -> Vec<std::path::PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures");
    walkdir::WalkDir::new(&root)
        .into_iter()
        .map(|entry| entry.expect("walk fixtures").into_path())
        .filter(|path| {
            path.extension()
                .and_then(|e| e.to_str())
                .is_some_and(|e| ["json", "jsonl", "sse", "har", "aguipb"].contains(&e))
        })
        .filter(|path| classify_if_fixture(path))
        .collect()
}

/// Whether `path` is in a `valid/` or `invalid/` folder (other folders,
/// such as conformance streams, have contracts of their own).
fn classify_if_fixture(path: &Path) -> bool {
    path.parent()
        .and_then(|p| p.file_name())
        .is_some_and(|n| n == "valid" || n == "invalid")
}

#[test]
fn every_rule_has_invalid_fixtures_and_valid_ones_exist_per_kind() {
    let mut fired = BTreeSet::new();
    let mut valid_kinds = BTreeSet::new();
    let mut stream_rules = BTreeSet::new();
    let mut valid_stream_names = BTreeSet::new();
    let mut count = 0;
    for path in fixture_files() {
        let path = path.as_path();
        count += 1;
        let (kind, valid) = classify(path);
        let is_capture = path.components().any(|c| c.as_os_str() == "streams");
        if valid {
            valid_kinds.extend(kind);
            if is_capture {
                let stem = path.file_stem().and_then(|s| s.to_str()).expect("name");
                valid_stream_names.insert(stem.to_string());
                // `client-<rule>-<profile>`: the rule's correct form for
                // that client.
                if let Some(client) = client_of(path) {
                    let suffix = format!("-{client}");
                    let rule = stem.strip_suffix(suffix.as_str()).unwrap_or(stem);
                    valid_stream_names.insert(rule.to_string());
                }
            }
        } else {
            fired.insert(expected_rule(path));
            if is_capture {
                stream_rules.insert(expected_rule(path));
            }
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
    // A rule about streams shows its correct form next to its violation.
    for rule in stream_rules {
        if rule.starts_with("invalid-") {
            continue;
        }
        assert!(
            valid_stream_names.contains(rule),
            "no valid capture fixtures/streams/valid/{rule}.* shows the correct form of {rule}"
        );
    }
    for kind in Kind::ALL {
        assert!(
            valid_kinds.contains(&kind),
            "no valid fixture of kind {kind}"
        );
    }
}

/// Rules that judge AG-UI 1.1 documents but have no invalid fixture under
/// `fixtures/1.1/`, with why.
const WITHOUT_1_1_FIXTURE: &[(&str, &str)] = &[
    (
        "document-too-large",
        "the default limit is 64 MiB, too large to commit; tests/limits.rs checks it",
    ),
    (
        "too-many-findings",
        "the default limit is 1,000 findings; tests/hostile.rs checks it with a lower one",
    ),
    (
        "open-items-over-limit",
        "a run must hold 100,000 items open at once (7 MB of events); the rule's unit test lowers the limit, and tests/complexity.rs meets it with 1M open tool calls",
    ),
    (
        "check-timed-out",
        "only a server guard has a time budget; tests/server.rs meets it",
    ),
    (
        "proto-frame-too-large",
        "a frame over the client's 10 MiB is too large to commit; tests/proto.rs makes one",
    ),
];

/// Every existing rule keeps working on 1.1 documents: each rule whose
/// scope includes 1.1 has an invalid fixture under `fixtures/1.1/`, except
/// those `WITHOUT_1_1_FIXTURE` names.
#[test]
fn every_rule_judging_1_1_has_a_1_1_invalid_fixture() {
    for (name, _) in WITHOUT_1_1_FIXTURE {
        let rule = rules::rule(name)
            .unwrap_or_else(|| panic!("WITHOUT_1_1_FIXTURE names unknown rule {name}"));
        assert!(
            rule.protocols().contains(&Protocol::V1_1),
            "WITHOUT_1_1_FIXTURE names {name}, which does not judge 1.1 documents"
        );
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures")
        .join(Protocol::V1_1.as_str());
    let mut fired = BTreeSet::new();
    for entry in walkdir::WalkDir::new(&root) {
        let entry = entry.expect("walk fixtures/1.1");
        let path = entry.path();
        let is_fixture = path
            .extension()
            .and_then(|e| e.to_str())
            .is_some_and(|e| ["json", "jsonl", "sse", "har", "aguipb"].contains(&e));
        if is_fixture && classify_if_fixture(path) && !classify(path).1 {
            fired.insert(expected_rule(path));
        }
    }
    let missing: Vec<&str> = rules::all()
        .iter()
        .filter(|rule| rule.protocols().contains(&Protocol::V1_1))
        .map(|rule| rule.name)
        .filter(|name| !WITHOUT_1_1_FIXTURE.iter().any(|(exempt, _)| exempt == name))
        .filter(|name| !fired.contains(name))
        .collect();
    assert!(
        missing.is_empty(),
        "no fixtures/1.1/**/invalid/<rule>-*.* shows these rules on a 1.1 document: {missing:?}"
    );
}

/// Fixtures are named after rules that apply to their version: none of
/// the pre-1.0 profile's folders holds a 1.x kind.
#[test]
fn fixtures_are_in_a_version_folder() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures");
    let mut versions = BTreeSet::new();
    for entry in std::fs::read_dir(&root).expect("fixtures/") {
        let path = entry.expect("entry").path();
        let protocol = version_of(&path.join("x"));
        versions.insert(protocol.as_str());
        for kind in std::fs::read_dir(&path).expect("version folder") {
            let name = kind.expect("entry").file_name();
            let name = name.to_str().expect("name");
            if let Ok(kind) = name.parse::<Kind>() {
                assert!(
                    kind.is_in(protocol),
                    "fixtures/{protocol}/{name}: not a kind of {protocol}"
                );
            }
        }
    }
    assert_eq!(versions, BTreeSet::from(["0", "1.0", "1.1"]));
}

/// Each rule that judges only some versions (`rule --all` shows which) has,
/// in each 1.x version it judges, an invalid fixture named after it and a
/// valid one named after it (the rule's correct form); and no fixture is
/// named after a rule in a version the rule does not judge.
#[test]
fn version_scoped_rules_are_shown_both_ways_in_each_version() {
    let mut invalid: BTreeSet<(String, &'static str)> = BTreeSet::new();
    let mut valid: BTreeSet<(String, String)> = BTreeSet::new();
    for path in fixture_files() {
        let path = path.as_path();
        let version = version_of(path).as_str().to_string();
        if classify(path).1 {
            let stem = path.file_stem().and_then(|s| s.to_str()).expect("name");
            valid.insert((version, stem.to_string()));
        } else {
            let rule = expected_rule(path);
            let scope = rules::rule(rule).expect("registered").protocols();
            assert!(
                scope.iter().any(|p| p.as_str() == version),
                "{}: rule {rule} does not judge AG-UI {version} documents",
                path.display()
            );
            invalid.insert((version, rule));
        }
    }
    for rule in rules::all() {
        let scope = rule.protocols();
        if scope.len() == Protocol::ALL.len() {
            continue;
        }
        for protocol in scope.iter().filter(|p| p.is_1x()) {
            let version = protocol.as_str().to_string();
            assert!(
                invalid.contains(&(version.clone(), rule.name)),
                "no fixtures/{version}/**/invalid/{}*.* shows rule {}",
                rule.name,
                rule.name
            );
            assert!(
                valid.contains(&(version.clone(), rule.name.to_string())),
                "no fixtures/{version}/**/valid/{}.* shows the correct form of {}",
                rule.name,
                rule.name
            );
        }
    }
}
