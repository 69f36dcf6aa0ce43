//! `cargo bench`: agui-lint's full check against `serde_json::from_slice::<Value>`
//! on the same bytes (the baseline), for generated payloads of every size,
//! valid and with one error, in the pre-1.0 profile (undeclared, checked
//! with pre-1.0 as the configured default) and in AG-UI 1.1 (declared, as
//! the official client sends it); a 2 MB 1.1 RunAgentInput with hundreds of
//! findings, checked and rendered in every output format; then the CLI
//! over JSON Lines and SSE captures (clean; events with errors in a few
//! percent of runs; RunAgentInputs with several warnings in most records,
//! with some findings, with a warning on every line in every format)
//! against the fair baseline (`benches/baseline/`: one thread reading the
//! file into one buffer and parsing each record into serde_json's default
//! `Value`, run as a process as the CLI is); captures shaped like traffic
//! (the vendored real exchanges' runs replayed, and three applications'
//! requests with tools in several releases: `AGUI_LINT_BENCH=traffic`
//! runs them alone); the cost of a finding, a record with 20 findings
//! against the same record clean; and a binary (protobuf) capture against
//! its JSON Lines twin.
//!
//! Criterion measures each case; the table at the end gives both
//! throughputs and their ratio from that same run.

mod payloads;

use payloads::{apps, events, traffic, Finding};

use std::hint::black_box;
use std::io::{BufRead, BufReader, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use agui_lint::unstable::check::check_reader;
use agui_lint::unstable::input::Layout;
use agui_lint::unstable::render::{Format, Options, Writer};
use agui_lint::{Kind, Protocol, ProtocolChoice, Settings, Validator};
use criterion::{Criterion, Throughput};
use serde_json::Value;

struct Case {
    name: &'static str,
    bytes: Vec<u8>,
    /// The version undeclared documents are judged as.
    default: Protocol,
}

fn cases() -> Vec<Case> {
    let mut cases = Vec::new();
    for (name, error_name, payload, default) in [
        (
            "small/valid",
            "small/one-error",
            payloads::small(),
            Protocol::V0,
        ),
        (
            "medium/valid",
            "medium/one-error",
            payloads::medium(),
            Protocol::V0,
        ),
        (
            "large/valid",
            "large/one-error",
            payloads::large(),
            Protocol::V0,
        ),
        (
            "1.1/small/valid",
            "1.1/small/one-error",
            payloads::small_1_1(),
            Protocol::V1_1,
        ),
        (
            "1.1/medium/valid",
            "1.1/medium/one-error",
            payloads::medium_1_1(),
            Protocol::V1_1,
        ),
        (
            "1.1/large/valid",
            "1.1/large/one-error",
            payloads::large_1_1(),
            Protocol::V1_1,
        ),
    ] {
        cases.push(Case {
            name,
            bytes: payloads::bytes(&payload),
            default,
        });
        cases.push(Case {
            name: error_name,
            bytes: payloads::bytes(&payloads::with_one_error(payload)),
            default,
        });
    }
    cases
}

fn criterion_dir() -> PathBuf {
    std::env::temp_dir().join("agui-lint-criterion")
}

/// Median time of one iteration of `group/function`, from criterion's files.
fn median_ns(group: &str, function: &str) -> Option<f64> {
    let path = criterion_dir()
        .join(group.replace('/', "_"))
        .join(function)
        .join("new/estimates.json");
    let text = std::fs::read_to_string(path).ok()?;
    let estimates: Value = serde_json::from_str(&text).ok()?;
    estimates["median"]["point_estimate"].as_f64()
}

fn mb_per_s(bytes: usize, ns: f64) -> f64 {
    bytes as f64 / (ns / 1e9) / 1e6
}

fn main() {
    // `AGUI_LINT_BENCH=cli cargo bench` runs the CLI captures alone.
    if std::env::var("AGUI_LINT_BENCH").as_deref() == Ok("cli") {
        cli_captures();
        return;
    }
    // `AGUI_LINT_BENCH=traffic cargo bench` runs the traffic-shaped
    // captures alone.
    if std::env::var("AGUI_LINT_BENCH").as_deref() == Ok("traffic") {
        cli_header();
        traffic_captures();
        return;
    }
    // `AGUI_LINT_BENCH=binary cargo bench` runs the binary capture alone.
    if std::env::var("AGUI_LINT_BENCH").as_deref() == Ok("binary") {
        binary_capture();
        return;
    }
    // `AGUI_LINT_BENCH=report cargo bench` times the HTML report alone.
    if std::env::var("AGUI_LINT_BENCH").as_deref() == Ok("report") {
        report_capture();
        return;
    }
    // `AGUI_LINT_BENCH=users cargo bench` runs the captures issue 65's
    // figures were measured on, alone.
    if std::env::var("AGUI_LINT_BENCH").as_deref() == Ok("users") {
        users_captures();
        return;
    }
    // `AGUI_LINT_BENCH=tools cargo bench` times tool schemas seen for the
    // first time alone: one, and a capture of them.
    if std::env::var("AGUI_LINT_BENCH").as_deref() == Ok("tools") {
        first_sight_of_a_schema();
        cli_header();
        unique_tools_capture();
        return;
    }
    // `AGUI_LINT_BENCH=cost cargo bench` times the cost of a finding alone.
    if std::env::var("AGUI_LINT_BENCH").as_deref() == Ok("cost") {
        cost_of_a_finding();
        return;
    }
    let validator = Validator::new().expect("validator");
    let cases = cases();
    let mut criterion = Criterion::default()
        .output_directory(&criterion_dir())
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3))
        .configure_from_args();
    for case in &cases {
        let validator = validator
            .clone()
            .with_settings(Settings::default().protocol(ProtocolChoice::Version(case.default)));
        // The check must do what the case says.
        let report = validator.validate(Kind::RunAgentInput, &case.bytes);
        assert_eq!(
            report.diagnostics().is_empty(),
            case.name.ends_with("valid"),
            "{}: {:?}",
            case.name,
            report.diagnostics().first()
        );
        assert_eq!(
            report.protocol(),
            if case.name.starts_with("1.1/") {
                Protocol::V1_1
            } else {
                Protocol::V0
            },
            "{}",
            case.name
        );
        let mut group = criterion.benchmark_group(case.name.replace('/', "_"));
        group.throughput(Throughput::Bytes(case.bytes.len() as u64));
        if case.bytes.len() > 1_000_000 {
            group.sample_size(20);
        }
        group.bench_function("baseline", |b| {
            b.iter(|| {
                serde_json::from_slice::<Value>(black_box(&case.bytes)).map(|v| v.is_object())
            })
        });
        group.bench_function("agui-lint", |b| {
            b.iter(|| validator.validate(Kind::RunAgentInput, black_box(&case.bytes)))
        });
        group.finish();
    }
    let findings = payloads::bytes(&payloads::with_findings_1_1());
    bench_findings(&mut criterion, &validator, &findings);
    criterion.final_summary();

    println!();
    println!(
        "{:<22} {:>10} {:>16} {:>16} {:>8}",
        "case", "bytes", "baseline MB/s", "agui-lint MB/s", "ratio"
    );
    for case in &cases {
        let group = case.name.replace('/', "_");
        let (Some(base), Some(ours)) = (
            median_ns(&group, "baseline"),
            median_ns(&group, "agui-lint"),
        ) else {
            println!("{:<22} (not measured in this run)", case.name);
            continue;
        };
        let n = case.bytes.len();
        println!(
            "{:<22} {:>10} {:>16.0} {:>16.0} {:>7.2}x",
            case.name,
            n,
            mb_per_s(n, base),
            mb_per_s(n, ours),
            base / ours
        );
    }
    findings_table(findings.len());
    cost_of_a_finding();
    cli_captures();
    users_captures();
    binary_capture();
    report_capture();
}

/// Every output format, with the name its criterion function has.
const FORMATS: [(&str, Format); 6] = [
    ("human", Format::Human),
    ("json", Format::Json),
    ("jsonl", Format::JsonLines),
    ("sarif", Format::Sarif),
    ("github", Format::Github),
    ("junit", Format::Junit),
];

/// The findings the 2 MB payload with findings must have at least.
const MIN_FINDINGS: usize = 300;

/// The most the 2 MB payload with findings may take, checked and rendered
/// in any format, as a ratio to its `Value` parse.
const FINDINGS_TARGET: f64 = 2.0;

/// Checks `bytes` as a `.json` file would be, each document going
/// straight to a report in `format` written into memory (what the CLI
/// does); returns the report's length. With no format, checks only.
fn check_and_render(validator: &Validator, bytes: &[u8], format: Option<Format>) -> usize {
    let Some(format) = format else {
        let mut findings = 0;
        check_reader(
            validator,
            "findings.json",
            Layout::Json,
            bytes,
            None,
            &mut |c| findings += c.report.diagnostics().len(),
        )
        .expect("read from memory");
        return findings;
    };
    let mut writer = Writer::begin(format, &Options::default(), Vec::new()).expect("begin");
    check_reader(
        validator,
        "findings.json",
        Layout::Json,
        bytes,
        None,
        &mut |c| writer.document(&c).expect("write to memory"),
    )
    .expect("read from memory");
    writer.finish(&[]).expect("write to memory").len()
}

/// A 2 MB AG-UI 1.1 RunAgentInput with hundreds of findings, checked and
/// rendered in every format, against the `Value` parse of the same bytes.
fn bench_findings(criterion: &mut Criterion, validator: &Validator, bytes: &[u8]) {
    let report = validator.validate(Kind::RunAgentInput, bytes);
    let warnings = report.count(agui_lint::Severity::Warning);
    assert!(
        report.diagnostics().len() >= MIN_FINDINGS && warnings * 2 > report.diagnostics().len(),
        "findings: {} findings, {warnings} warnings",
        report.diagnostics().len()
    );
    let mut group = criterion.benchmark_group("findings");
    group.throughput(Throughput::Bytes(bytes.len() as u64));
    group.sample_size(20);
    group.bench_function("baseline", |b| {
        b.iter(|| serde_json::from_slice::<Value>(black_box(bytes)).map(|v| v.is_object()))
    });
    group.bench_function("check", |b| {
        b.iter(|| check_and_render(validator, black_box(bytes), None))
    });
    for (name, format) in FORMATS {
        group.bench_function(name, |b| {
            b.iter(|| check_and_render(validator, black_box(bytes), Some(format)))
        });
    }
    group.finish();
}

/// The findings group's times as ratios to its `Value` parse.
fn findings_table(size: usize) {
    println!();
    println!(
        "{:<22} {:>10} {:>12} {:>16}",
        "findings (format)", "bytes", "median ms", "ratio (target)"
    );
    let Some(base) = median_ns("findings", "baseline") else {
        println!("findings               (not measured in this run)");
        return;
    };
    println!(
        "{:<22} {size:>10} {:>12.2} {:>16}",
        "Value parse",
        base / 1e6,
        "1.00"
    );
    let rows = std::iter::once(("check", "check only".to_string())).chain(
        FORMATS
            .iter()
            .map(|(name, _)| (*name, format!("check + {name}"))),
    );
    for (function, label) in rows {
        let Some(ours) = median_ns("findings", function) else {
            continue;
        };
        let ratio = ours / base;
        println!(
            "{:<22} {size:>10} {:>12.2} {:>8.2} ({} {FINDINGS_TARGET:.1})",
            label,
            ours / 1e6,
            ratio,
            if ratio <= FINDINGS_TARGET {
                "<="
            } else {
                "ABOVE"
            }
        );
    }
}

/// How the baseline reads a capture's records.
#[derive(Clone, Copy)]
enum Records {
    /// Each non-empty line is a record.
    Lines,
    /// Each `data:` line is a record (every event of these captures is one
    /// line of data).
    SseData,
}

/// The fair baseline's binary (`benches/baseline/`), built once in
/// release: serde_json with its default features (agui-lint's build turns
/// on `preserve_order`, whose objects are slower), the capture read into
/// one buffer, records split without allocating.
fn baseline_binary() -> &'static Path {
    static BINARY: OnceLock<PathBuf> = OnceLock::new();
    BINARY.get_or_init(|| {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let target = root.join("target/baseline");
        let status = Command::new(env!("CARGO"))
            .args([
                "build",
                "--release",
                "--quiet",
                "--locked",
                "--manifest-path",
            ])
            .arg(root.join("benches/baseline/Cargo.toml"))
            .arg("--target-dir")
            .arg(&target)
            .status()
            .expect("cargo build the baseline");
        assert!(status.success(), "the baseline does not build");
        target.join("release/agui-lint-baseline")
    })
}

/// One thread parsing every record of `path` into serde_json's default
/// `Value`: the fair baseline, run as a process as the CLI is.
fn parse_records(path: &Path, records: Records) {
    let output = Command::new(baseline_binary())
        .arg(path)
        .arg(match records {
            Records::Lines => "lines",
            Records::SseData => "sse",
        })
        .output()
        .expect("run the baseline");
    assert!(
        output.status.success(),
        "the baseline failed on {}",
        path.display()
    );
    let said = String::from_utf8_lossy(&output.stdout);
    assert!(
        !said.starts_with("0 parsed"),
        "the baseline read no record of {}: {said}",
        path.display()
    );
}

/// A capture the CLI is run over.
struct CliCase<'a> {
    name: String,
    path: &'a Path,
    /// What the capture holds, for the table.
    holds: String,
    largest: usize,
    format: &'a str,
    /// The exit code the check must end with.
    code: i32,
    /// The peak RSS target over the largest record's three copies, in MB.
    rss_base_mb: u64,
    /// The time target, as a ratio to the baseline.
    time_target: f64,
}

/// Runs of the CLI and of the baseline per case: each run of the one is
/// followed by a run of the other.
const CLI_RUNS: usize = 5;

/// One run of the CLI over `path` (`check --quiet --format FORMAT`, the
/// report written to a file), which must exit with `code`: the child's
/// own peak memory, in KB, read while it runs (its rusage would start from
/// this process's peak).
fn cli_run(path: &Path, format: &str, code: i32, name: &str) -> Option<u64> {
    let binary = Path::new(env!("CARGO_BIN_EXE_agui-lint"));
    let report = std::env::temp_dir().join("agui-lint-bench-capture/report.out");
    let mut peak_kb = None;
    let mut child = Command::new(binary)
        .args(["check", "--quiet", "--format", format, "--output"])
        .arg(&report)
        .arg(path)
        .spawn()
        .expect("run agui-lint");
    let status = loop {
        if let Some(kb) = peak_rss_kb(child.id()) {
            peak_kb = peak_kb.max(Some(kb));
        }
        if let Some(status) = child.try_wait().expect("wait") {
            break status;
        }
        std::thread::sleep(Duration::from_millis(2));
    };
    assert_eq!(status.code(), Some(code), "{name}: exit code");
    peak_kb
}

/// The CLI over `case` on every core, output written to a file, against
/// `baseline`, one thread parsing each record into a `Value`: wall time
/// ratio and peak memory. The two take turns, [`CLI_RUNS`] runs each, and
/// the medians are compared, so that a busy moment of a shared machine
/// weighs on both rather than on whichever ran then.
fn measure_cli(case: &CliCase, mut baseline: impl FnMut()) {
    let mut peak_kb = None;
    let mut run_cli = || {
        let kb = cli_run(case.path, case.format, case.code, &case.name);
        peak_kb = peak_kb.max(kb);
    };
    let (mut baseline_times, mut cli_times) = (Vec::new(), Vec::new());
    for _ in 0..CLI_RUNS {
        baseline_times.push(timed(&mut baseline));
        cli_times.push(timed(&mut run_cli));
    }
    let (baseline, cli) = (median(baseline_times), median(cli_times));
    let ratio = cli.as_secs_f64() / baseline.as_secs_f64();
    let budget_mb = case.rss_base_mb + 3 * case.largest as u64 / 1_000_000;
    let peak_mb = peak_kb.map_or(0, |kb| kb / 1024);
    println!(
        "{:<34} {:>8.2} s {:>8.2} s {:>6.2} ({} {:.1}) {:>5} MB ({} {})   {}",
        case.name,
        baseline.as_secs_f64(),
        cli.as_secs_f64(),
        ratio,
        if ratio <= case.time_target {
            "<="
        } else {
            "ABOVE"
        },
        case.time_target,
        peak_mb,
        if peak_mb <= budget_mb { "<=" } else { "ABOVE" },
        budget_mb,
        case.holds,
    );
}

/// Writes a capture with `write` to `name` in the bench's temp folder.
fn write_capture<T>(
    name: &str,
    write: impl FnOnce(&mut BufWriter<std::fs::File>) -> std::io::Result<T>,
) -> (PathBuf, T) {
    let dir = std::env::temp_dir().join("agui-lint-bench-capture");
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join(name);
    // Written a record at a time: this process stays small, since a
    // spawned child's peak memory starts from its parent's.
    let mut file = BufWriter::new(std::fs::File::create(&path).expect("create capture"));
    let written = write(&mut file).expect("write capture");
    file.flush().expect("flush capture");
    (path, written)
}

/// The head of the CLI captures' table.
fn cli_header() {
    println!();
    println!(
        "{:<34} {:>10} {:>10} {:>14} {:>17}   holds",
        "capture (format)", "baseline", "agui-lint", "ratio (target)", "peak RSS (target)"
    );
}

/// The vendored real exchanges' runs, copy after copy (issue 52): what
/// servers send, rather than what was generated.
fn traffic_captures() {
    for (name, framing, records) in [
        ("traffic.jsonl", events::Framing::JsonLines, Records::Lines),
        ("traffic.sse", events::Framing::Sse, Records::SseData),
    ] {
        let (path, written) =
            write_capture(name, |out| traffic::capture(out, 100_000_000, framing));
        // The real servers' runs carry their findings (an adapter that
        // declares no version): the check's exit code is what it is, held
        // the same in every run.
        let code = exit_code(&path);
        let baseline = || parse_records(&path, records);
        measure_cli(
            &CliCase {
                name: format!("{name} (jsonl)"),
                path: &path,
                holds: format!(
                    "{:.0} MB, {} events: the vendored 1.0 and framework adapters' runs, ids renamed",
                    written.bytes as f64 / 1e6,
                    written.events
                ),
                largest: written.largest,
                format: "jsonl",
                code,
                rss_base_mb: 32,
                time_target: 1.0,
            },
            baseline,
        );
    }
    // Requests of a few applications whose tools vary by release, clean
    // and with many findings of one rule on most records; and the same
    // requests sent as SSE events, which a stream judges as events: one
    // `missing-field` error each (a union's errors on a copy of every
    // record cost 21x before the union was shown the tag alone).
    for (name, framing, records, warned, target, holds) in [
        (
            "apps-clean.jsonl",
            events::Framing::JsonLines,
            Records::Lines,
            false,
            1.0,
            "clean",
        ),
        (
            "apps.jsonl",
            events::Framing::JsonLines,
            Records::Lines,
            true,
            2.0,
            "58% with 20 tool-arguments-schema-mismatch",
        ),
        (
            "apps.sse",
            events::Framing::Sse,
            Records::SseData,
            false,
            1.5,
            "as SSE events: a missing-field error each",
        ),
    ] {
        let (path, written) =
            write_capture(name, |out| apps::capture(out, 64_000_000, framing, warned));
        let baseline = || parse_records(&path, records);
        measure_cli(
            &CliCase {
                name: format!("{name} (jsonl)"),
                path: &path,
                holds: format!(
                    "{:.0} MB, {} RunAgentInputs of 3 apps x 3 tool releases, {holds}",
                    written.bytes as f64 / 1e6,
                    written.records,
                ),
                largest: written.largest,
                format: "jsonl",
                code: exit_code(&path),
                rss_base_mb: 32,
                time_target: target,
            },
            baseline,
        );
    }
}

/// The exit code of `agui-lint check` on `path`, for a capture whose
/// findings are what they are.
fn exit_code(path: &Path) -> i32 {
    Command::new(env!("CARGO_BIN_EXE_agui-lint"))
        .args(["check", "--quiet", "--format", "jsonl", "--output"])
        .arg(std::env::temp_dir().join("agui-lint-bench-capture/report.out"))
        .arg(path)
        .status()
        .expect("run agui-lint")
        .code()
        .unwrap_or(2)
}

/// The CLI over generated captures: RunAgentInputs, events as JSON Lines
/// and as SSE, inputs with warnings and errors, and one warning per line
/// in every output format.
fn cli_captures() {
    cli_header();
    let (path, (size, largest)) = write_capture("capture.jsonl", payloads::capture);
    let baseline = || parse_records(&path, Records::Lines);
    measure_cli(
        &CliCase {
            name: "capture.jsonl (jsonl)".into(),
            path: &path,
            holds: format!(
                "{:.0} MB, 5000 RunAgentInputs, 1% broken or with an error",
                size as f64 / 1e6
            ),
            largest,
            format: "jsonl",
            code: 1,
            rss_base_mb: 32,
            time_target: 1.0,
        },
        baseline,
    );
    for (name, framing, records) in [
        ("events.jsonl", events::Framing::JsonLines, Records::Lines),
        ("events.sse", events::Framing::Sse, Records::SseData),
    ] {
        let (path, written) = write_capture(name, |out| events::capture(out, 100_000_000, framing));
        let baseline = || parse_records(&path, records);
        measure_cli(
            &CliCase {
                name: format!("{name} (jsonl)"),
                path: &path,
                holds: format!(
                    "{:.0} MB, {} events of every 1.1 type",
                    written.bytes as f64 / 1e6,
                    written.events
                ),
                largest: written.largest,
                format: "jsonl",
                code: 0,
                rss_base_mb: 32,
                time_target: 1.0,
            },
            baseline,
        );
    }
    traffic_captures();
    // Events where one run in 25 leaves a message open: errors in a few
    // percent of runs, as a server with a bug sends them.
    for (name, framing, records) in [
        (
            "events-errors.jsonl",
            events::Framing::JsonLines,
            Records::Lines,
        ),
        ("events-errors.sse", events::Framing::Sse, Records::SseData),
    ] {
        let (path, written) = write_capture(name, |out| {
            events::capture_with_errors(out, 100_000_000, framing, 25)
        });
        let baseline = || parse_records(&path, records);
        measure_cli(
            &CliCase {
                name: format!("{name} (jsonl)"),
                path: &path,
                holds: format!(
                    "{:.0} MB, {} events, 1 run in 25 with a message never ended",
                    written.bytes as f64 / 1e6,
                    written.events
                ),
                largest: written.largest,
                format: "jsonl",
                code: 1,
                rss_base_mb: 32,
                time_target: 1.0,
            },
            baseline,
        );
    }
    // 60% of the records with several warnings of different rules.
    let (path, written) = write_capture("several.jsonl", |out| {
        payloads::capture_with_findings(out, 100_000_000, |_, draw| {
            if draw < 60 {
                Finding::Several
            } else {
                Finding::None
            }
        })
    });
    assert_several_rules(&path);
    measure_in_formats(
        &RecordCapture {
            name: "several.jsonl",
            path: &path,
            written: &written,
            holds: "60% with several warnings",
            code: 0,
            rss_base_mb: 40,
            time_target: 2.0,
        },
        ["jsonl", "human"],
    );
    // 20% of the records with a warning, 2% with an error.
    let (path, written) = write_capture("findings.jsonl", |out| {
        payloads::capture_with_findings(out, 100_000_000, |_, draw| match draw {
            0..=1 => Finding::Error,
            2..=21 => Finding::Warning,
            _ => Finding::None,
        })
    });
    measure_in_formats(
        &RecordCapture {
            name: "findings.jsonl",
            path: &path,
            written: &written,
            holds: "20% with a warning, 2% an error",
            code: 1,
            rss_base_mb: 32,
            time_target: 1.0,
        },
        ["jsonl", "human"],
    );
    // One warning on every line: a report as long as the capture.
    let (path, written) = write_capture("warnings.jsonl", |out| {
        payloads::capture_with_findings(out, 50_000_000, |_, _| Finding::EmptyId)
    });
    let validator = Validator::new().expect("validator");
    let reader = BufReader::new(std::fs::File::open(&path).expect("open"));
    for line in reader.split(b'\n').take(100) {
        let report = validator.validate(Kind::RunAgentInput, &line.expect("read"));
        let rules: Vec<&str> = report
            .diagnostics()
            .iter()
            .map(|d| d.rule.as_str())
            .collect();
        assert_eq!(rules, ["empty-id"], "warnings.jsonl: one warning a line");
    }
    measure_in_formats(
        &RecordCapture {
            name: "warnings.jsonl",
            path: &path,
            written: &written,
            holds: "one empty-id warning each",
            code: 0,
            rss_base_mb: 32,
            time_target: 1.5,
        },
        FORMATS.map(|(name, _)| name),
    );
}

/// 100 MB of RunAgentInputs whose every record's tools are schemas never
/// seen before, against the fair baseline.
fn unique_tools_capture() {
    let (path, written) = write_capture("unique-tools.jsonl", |out| {
        payloads::capture_with_unique_tools(out, 100_000_000)
    });
    measure_in_formats(
        &RecordCapture {
            name: "unique-tools.jsonl",
            path: &path,
            written: &written,
            holds: "clean, every record's tools schemas never seen before",
            code: 0,
            rss_base_mb: 32,
            time_target: 2.5,
        },
        ["jsonl"],
    );
}

/// The captures users measured the last round on (issue 65), generated
/// the same way: the same events as SSE and as JSON Lines, timed against
/// each other; RunAgentInputs whose every record's tools are schemas never
/// seen before; one `unknown-field` warning per ~2 KB record in every
/// format; and 2 MB documents with hundreds of findings each, 20 of them,
/// in every format. Each against the fair baseline.
fn users_captures() {
    first_sight_of_a_schema();
    let (jsonl, _) = write_capture("events.jsonl", |out| {
        events::capture(out, 100_000_000, events::Framing::JsonLines)
    });
    let (sse, _) = write_capture("events.sse", |out| {
        events::capture(out, 100_000_000, events::Framing::Sse)
    });
    println!();
    compare_cli(
        "the same events, SSE against JSON Lines",
        (&jsonl, "events.jsonl"),
        (&sse, "events.sse"),
        1.05,
    );
    cli_header();
    unique_tools_capture();
    // One-turn requests (~3 KB): a finding per record weighs more the
    // smaller the record.
    let (path, written) = write_capture("warned.jsonl", |out| {
        payloads::capture_of(out, 50_000_000, |i, _| {
            payloads::small_1_1_with(i, 1, Finding::UnknownField)
        })
    });
    measure_in_formats(
        &RecordCapture {
            name: "warned.jsonl",
            path: &path,
            written: &written,
            holds: "one unknown-field warning each",
            code: 0,
            rss_base_mb: 32,
            time_target: 1.5,
        },
        FORMATS.map(|(name, _)| name),
    );
    let document = payloads::bytes(&payloads::with_findings_1_1());
    let (path, written) = write_capture("findings-x20.jsonl", |out| {
        for _ in 0..20 {
            out.write_all(&document)?;
            out.write_all(b"\n")?;
        }
        Ok(payloads::Written {
            bytes: 20 * (document.len() + 1),
            records: 20,
            largest: document.len(),
        })
    });
    measure_in_formats(
        &RecordCapture {
            name: "findings-x20.jsonl",
            path: &path,
            written: &written,
            holds: "2 MB documents with hundreds of findings each",
            code: exit_code(&path),
            rss_base_mb: 40,
            time_target: 2.0,
        },
        FORMATS.map(|(name, _)| name),
    );
}

/// The CLI over two captures of the same records (`check --quiet --format
/// jsonl`), taking turns, [`CLI_RUNS`] runs each: the second's median time
/// as a ratio to the first's, against `target`, with each one's peak RSS.
fn compare_cli(label: &str, first: (&Path, &str), second: (&Path, &str), target: f64) {
    let (mut first_times, mut second_times) = (Vec::new(), Vec::new());
    let (mut first_peak, mut second_peak) = (None, None);
    for _ in 0..CLI_RUNS {
        first_times.push(timed(&mut || {
            first_peak = first_peak.max(cli_run(first.0, "jsonl", 0, first.1));
        }));
        second_times.push(timed(&mut || {
            second_peak = second_peak.max(cli_run(second.0, "jsonl", 0, second.1));
        }));
    }
    let (a, b) = (median(first_times), median(second_times));
    let ratio = b.as_secs_f64() / a.as_secs_f64();
    println!("{label}");
    println!(
        "{:<34} {:>10} {:>10} {:>14} {:>17}",
        "", first.1, second.1, "ratio (target)", "peak RSS"
    );
    println!(
        "{:<34} {:>8.2} s {:>8.2} s {:>6.2} ({} {target:.2}) {:>5} / {} MB",
        format!("{} (jsonl)", second.1),
        a.as_secs_f64(),
        b.as_secs_f64(),
        ratio,
        if ratio <= target { "<=" } else { "ABOVE" },
        first_peak.map_or(0, |kb| kb / 1024),
        second_peak.map_or(0, |kb| kb / 1024),
    );
}

/// The binary transport: a ~100 MB capture of frames, checked by the CLI
/// against its JSON Lines twin (what agui-lint decodes each frame to: the
/// same events), the two taking turns; the target is the binary capture
/// in at most the twin's time, at the twin's peak memory.
fn binary_capture() {
    use agui_lint::unstable::input::proto::{decode, Decoded, FrameBody, ProtoFramer};
    let (binary, written) = write_capture("events.aguipb", |out| {
        payloads::frames::capture(out, 100_000_000)
    });
    let (twin, ()) = write_capture("events-twin.jsonl", |out| {
        let bytes = std::fs::read(&binary)?;
        let mut framer = ProtoFramer::new(usize::MAX);
        let mut result = Ok(());
        framer.push(&bytes, &mut |frame| {
            let FrameBody::Message(message) = frame.body else {
                panic!("frame {} is not whole", frame.index);
            };
            let Ok(Decoded::Event { written, .. }) = decode(&message) else {
                panic!("frame {} does not decode", frame.index);
            };
            if result.is_ok() {
                result = out
                    .write_all(&written.json)
                    .and_then(|()| out.write_all(b"\n"));
            }
        });
        result
    });
    let twin_size = std::fs::metadata(&twin).map_or(0, |m| m.len());
    println!();
    compare_cli(
        &format!(
            "binary transport: {:.0} MB of {} frames against their {:.0} MB JSON Lines twin",
            written.bytes as f64 / 1e6,
            written.frames,
            twin_size as f64 / 1e6
        ),
        (&twin, "events-twin.jsonl"),
        (&binary, "events.aguipb"),
        1.0,
    );
}

/// `agui-lint report` of 100 MB of events in which one run in 25 breaks
/// (a message never ended), and of 100 MB whose every event has a warning
/// (a million findings, every one on the page), each against `check` of
/// the same capture: the two take turns, [`CLI_RUNS`] runs each, medians
/// compared, with each one's peak memory and the page's size.
fn report_capture() {
    let (errors, _) = write_capture("report-events.jsonl", |out| {
        events::capture_with_errors(out, 100_000_000, events::Framing::JsonLines, 25)
    });
    let (warned, _) = write_capture("report-warned.jsonl", |out| {
        events::capture_with_warnings(out, 100_000_000, events::Framing::JsonLines)
    });
    println!();
    println!(
        "{:<34} {:>10} {:>10} {:>8} {:>17} {:>8} {:>10}",
        "report of", "check", "report", "ratio", "peak RSS", "page", "findings"
    );
    let mut pages = Vec::new();
    for (name, path) in [
        ("events-errors.jsonl", &errors),
        ("events-warned.jsonl", &warned),
    ] {
        pages.push(report_against_check(name, path));
    }
    // With a browser named, how long it takes to open each page (loaded,
    // its script run, painted: a screenshot taken), against a page of two
    // events.
    if let Some(chromium) = std::env::var_os("AGUI_LINT_CHROMIUM") {
        let binary = Path::new(env!("CARGO_BIN_EXE_agui-lint"));
        let small = std::env::temp_dir().join("agui-lint-bench-capture/small.jsonl");
        let small_page = std::env::temp_dir().join("agui-lint-bench-capture/small.html");
        std::fs::write(
            &small,
            "{\"type\":\"RUN_STARTED\",\"threadId\":\"t\",\"runId\":\"r\"}\n{\"type\":\"RUN_FINISHED\",\"threadId\":\"t\",\"runId\":\"r\"}\n",
        )
        .expect("write");
        let status = Command::new(binary)
            .args(["report", "-o"])
            .arg(&small_page)
            .arg(&small)
            .stderr(std::process::Stdio::null())
            .status()
            .expect("report");
        assert!(status.success());
        let shot = std::env::temp_dir().join("agui-lint-bench-capture/shot.png");
        let open = |page: &Path| {
            timed(&mut || {
                let output = Command::new(&chromium)
                    .args([
                        "--headless",
                        "--no-sandbox",
                        "--disable-gpu",
                        "--window-size=1280,1000",
                    ])
                    .arg(format!("--screenshot={}", shot.display()))
                    .arg(format!("file://{}", page.display()))
                    .output()
                    .expect("run chromium");
                assert!(output.status.success() && shot.exists());
            })
        };
        let small = open(&small_page);
        for (name, page) in &pages {
            println!(
                "{name}: opened in Chromium (loaded and painted) in {:.1} s, a two-event page {:.1} s",
                open(page).as_secs_f64(),
                small.as_secs_f64()
            );
        }
    }
}

/// `report` of the capture at `path` (shown as `name`) against `check` of
/// it, printed as a row; the page written, named.
fn report_against_check(name: &str, path: &Path) -> (String, PathBuf) {
    let binary = Path::new(env!("CARGO_BIN_EXE_agui-lint"));
    let page = std::env::temp_dir().join(format!("agui-lint-bench-capture/{name}.html"));
    let run = |args: &[&str], peak: &mut Option<u64>| -> Vec<u8> {
        let mut child = Command::new(binary)
            .args(args)
            .arg(path)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("run agui-lint");
        let mut stderr = child.stderr.take().expect("stderr");
        let said = std::thread::spawn(move || {
            let mut text = Vec::new();
            let _ = std::io::Read::read_to_end(&mut stderr, &mut text);
            text
        });
        loop {
            if let Some(kb) = peak_rss_kb(child.id()) {
                *peak = (*peak).max(Some(kb));
            }
            if child.try_wait().expect("wait").is_some() {
                break;
            }
            std::thread::sleep(Duration::from_millis(2));
        }
        said.join().expect("stderr")
    };
    let page_arg = page.to_string_lossy().into_owned();
    let (mut check_times, mut report_times) = (Vec::new(), Vec::new());
    let (mut check_peak, mut report_peak) = (None, None);
    let mut said = Vec::new();
    for _ in 0..CLI_RUNS {
        check_times.push(timed(&mut || {
            run(
                &[
                    "check",
                    "--quiet",
                    "--format",
                    "json",
                    "--output",
                    "/dev/null",
                ],
                &mut check_peak,
            );
        }));
        report_times.push(timed(&mut || {
            said = run(&["report", "-o", &page_arg], &mut report_peak);
        }));
    }
    // "agui-lint report: wrote PAGE (1 capture(s), N finding(s))"
    let said = String::from_utf8_lossy(&said);
    let findings = said
        .rsplit_once(", ")
        .and_then(|(_, rest)| rest.split(' ').next())
        .unwrap_or("?")
        .to_owned();
    let (check, report) = (median(check_times), median(report_times));
    let page_mb = std::fs::metadata(&page).map_or(0, |m| m.len()) / 1_000_000;
    println!(
        "{:<34} {:>8.2} s {:>8.2} s {:>8.2} {:>6} / {:>4} MB {:>5} MB {:>10}",
        name,
        check.as_secs_f64(),
        report.as_secs_f64(),
        report.as_secs_f64() / check.as_secs_f64(),
        check_peak.map_or(0, |kb| kb / 1024),
        report_peak.map_or(0, |kb| kb / 1024),
        page_mb,
        findings,
    );
    (name.to_owned(), page)
}

/// A capture of [`payloads::capture_with_findings`], measured in several
/// output formats.
struct RecordCapture<'a> {
    name: &'a str,
    path: &'a Path,
    written: &'a payloads::Written,
    /// What its records carry, for the table.
    holds: &'a str,
    code: i32,
    rss_base_mb: u64,
    time_target: f64,
}

/// The CLI over `capture` in each of `formats`, against one thread
/// parsing its lines.
fn measure_in_formats<'f>(capture: &RecordCapture, formats: impl IntoIterator<Item = &'f str>) {
    let baseline = || parse_records(capture.path, Records::Lines);
    for format in formats {
        measure_cli(
            &CliCase {
                name: format!("{} ({format})", capture.name),
                path: capture.path,
                holds: format!(
                    "{:.0} MB, {} 1.1 RunAgentInputs, {}",
                    capture.written.bytes as f64 / 1e6,
                    capture.written.records,
                    capture.holds
                ),
                largest: capture.written.largest,
                format,
                code: capture.code,
                rss_base_mb: capture.rss_base_mb,
                time_target: capture.time_target,
            },
            baseline,
        );
    }
}

/// Fails unless most of the first records of `path` carry warnings of at
/// least three rules each: the capture must be what its row says.
fn assert_several_rules(path: &Path) {
    let validator = Validator::new().expect("validator");
    let reader = BufReader::new(std::fs::File::open(path).expect("open"));
    let mut several = 0;
    for line in reader.split(b'\n').take(200) {
        let report = validator.validate(Kind::RunAgentInput, &line.expect("read"));
        let mut rules: Vec<&str> = report
            .diagnostics()
            .iter()
            .map(|d| d.rule.as_str())
            .collect();
        assert!(report.is_valid(), "several.jsonl: warnings only");
        rules.sort_unstable();
        rules.dedup();
        several += usize::from(rules.len() >= 3);
    }
    assert!(
        several > 100,
        "several.jsonl: {several} of 200 records with 3 rules"
    );
}

/// Rounds of [`cost_of_a_finding`], each timing both records in turn.
const COST_ROUNDS: usize = 31;

/// The cost of a finding: a 1.1 RunAgentInput with 20 tool calls checked
/// clean, and the same record with its 20 calls' arguments breaking
/// their tool's schema (20 `tool-arguments-schema-mismatch` warnings),
/// timed in turns, medians compared.
fn cost_of_a_finding() {
    let validator = Validator::new().expect("validator");
    let clean = payloads::bytes(&payloads::with_broken_calls(20, 0));
    let broken = payloads::bytes(&payloads::with_broken_calls(20, 20));
    assert!(validator
        .validate(Kind::RunAgentInput, &clean)
        .diagnostics()
        .is_empty());
    let findings = validator
        .validate(Kind::RunAgentInput, &broken)
        .diagnostics()
        .len();
    assert_eq!(findings, 20, "the broken record's findings");
    let calls = (2_000_000 / clean.len()).max(10);
    let time = |bytes: &[u8]| {
        timed(&mut || {
            for _ in 0..calls {
                black_box(validator.validate(Kind::RunAgentInput, black_box(bytes)));
            }
        })
    };
    let (mut clean_times, mut broken_times) = (Vec::new(), Vec::new());
    for _ in 0..COST_ROUNDS {
        clean_times.push(time(&clean));
        broken_times.push(time(&broken));
    }
    let (clean_time, broken_time) = (median(clean_times), median(broken_times));
    let per_call = |t: Duration| t.as_secs_f64() * 1e6 / calls as f64;
    let ratio = broken_time.as_secs_f64() / clean_time.as_secs_f64();
    println!();
    println!(
        "cost of a finding: {} bytes clean {:.1} µs, {} bytes with {findings} findings {:.1} µs: {ratio:.2} ({} 1.5)",
        clean.len(),
        per_call(clean_time),
        broken.len(),
        per_call(broken_time),
        if ratio <= 1.5 { "<=" } else { "ABOVE" }
    );
}

/// A 1.1 RunAgentInput with one tool of ten parameters, named after
/// `id` (so that each `id` is a schema of its own), and, when `called`,
/// one call of it with valid arguments.
fn ten_property_tool_record(id: usize, called: bool) -> Vec<u8> {
    let p = |k: usize| format!("p{k}_{id:06}");
    let mut properties = serde_json::Map::new();
    let shapes = [
        serde_json::json!({"type": "string", "minLength": 1, "description": "What to look up"}),
        serde_json::json!({"type": "integer", "minimum": 1, "maximum": 100}),
        serde_json::json!({"type": "string", "enum": ["metric", "imperial"]}),
        serde_json::json!({"type": "boolean"}),
        serde_json::json!({"type": "number", "exclusiveMinimum": 0}),
        serde_json::json!({"type": "array", "items": {"type": "string"}, "minItems": 1}),
        serde_json::json!({"type": "object", "properties": {"lang": {"type": "string"}}, "additionalProperties": false}),
        serde_json::json!({"type": "string", "pattern": "^[A-Z]{3}$"}),
        serde_json::json!({"type": "string", "format": "date"}),
        serde_json::json!({"type": "string", "maxLength": 64}),
    ];
    for (k, shape) in shapes.into_iter().enumerate() {
        properties.insert(p(k), shape);
    }
    let arguments = serde_json::json!({ p(0): "weather in Oslo", p(1): 5 }).to_string();
    let mut messages =
        vec![serde_json::json!({"id": "u1", "role": "user", "content": "What is the weather?"})];
    if called {
        messages.push(serde_json::json!({"id": "a1", "role": "assistant", "toolCalls": [
            {"id": "c1", "type": "function", "function": {"name": "lookup", "arguments": arguments}}
        ]}));
        messages.push(
            serde_json::json!({"id": "t1", "role": "tool", "toolCallId": "c1", "content": "12 C"}),
        );
    }
    payloads::bytes(&serde_json::json!({
        "threadId": "thread-1", "runId": format!("run-{id}"), "protocolVersion": "1.1",
        "state": {}, "messages": messages, "context": [], "forwardedProps": {},
        "tools": [{"name": "lookup", "description": "Look things up", "parameters": {
            "type": "object", "properties": properties, "required": [p(0), p(1)],
            "additionalProperties": false
        }}]
    }))
}

/// What a tool schema seen for the first time costs: records with a
/// ten-property tool that is new in each record, against the same records
/// whose tool is always the same one (so it is judged and compiled once),
/// per record, with and without a call of the tool.
fn first_sight_of_a_schema() {
    const RECORDS: usize = 2_000;
    let validator = Validator::new().expect("validator");
    println!();
    for called in [true, false] {
        let seen: Vec<u8> = ten_property_tool_record(0, called);
        let report = validator.validate(Kind::RunAgentInput, &seen);
        assert!(
            report.diagnostics().is_empty(),
            "{:?}",
            report.diagnostics().first()
        );
        let (mut new_times, mut seen_times) = (Vec::new(), Vec::new());
        for round in 0..COST_ROUNDS {
            // Ids no earlier round used: every schema is new to the cache.
            let fresh: Vec<Vec<u8>> = (0..RECORDS)
                .map(|i| ten_property_tool_record(1 + round * RECORDS + i, called))
                .collect();
            new_times.push(timed(&mut || {
                for record in &fresh {
                    black_box(validator.validate(Kind::RunAgentInput, black_box(record)));
                }
            }));
            seen_times.push(timed(&mut || {
                for _ in 0..RECORDS {
                    black_box(validator.validate(Kind::RunAgentInput, black_box(&seen)));
                }
            }));
        }
        let per = |t: Duration| t.as_secs_f64() * 1e6 / RECORDS as f64;
        let (new, seen) = (per(median(new_times)), per(median(seen_times)));
        println!(
            "first sight of a 10-property tool schema ({}): {new:.1} µs a record against {seen:.1} µs seen before: {:.1} µs",
            if called { "called once" } else { "not called" },
            new - seen
        );
    }
}

/// The median of `times` (at least one).
fn median(mut times: Vec<Duration>) -> Duration {
    times.sort();
    times[times.len() / 2]
}

/// How long `f` takes.
fn timed(f: &mut impl FnMut()) -> Duration {
    let start = Instant::now();
    f();
    start.elapsed()
}

/// The peak resident set of process `pid` so far (Linux `VmHWM`).
fn peak_rss_kb(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}
