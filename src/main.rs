//! The `agui-lint` binary: parse arguments, call the library, map the outcome
//! to an exit code (0 clean, 1 errors found, 2 usage, I/O or internal
//! failure).

mod cli;
mod probe;
mod progress;
mod settings_args;

use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

use agui_lint::unstable::anchor::Anchor;
use agui_lint::unstable::baseline::Baseline;
use agui_lint::unstable::check::{check_sources_in_order, Checked, Failure};
use agui_lint::unstable::input::{collect_sources, Filter, Source};
use agui_lint::unstable::per_file_ignores::PerFileIgnores;
use agui_lint::unstable::render::{Format, Options, Writer};
use agui_lint::{rules, unstable::schema, Kind, Protocol, ProtocolChoice, Settings, Validator};
use clap::{CommandFactory, Parser};

use cli::{
    CheckArgs, Cli, ColorWhen, Command, CompletionsArgs, ProbeArgs, ReportArgs, RuleArgs,
    RuleFormat, SchemaArgs,
};

/// A capture's events are read on checker threads and freed on the thread
/// that hands them on; mimalloc frees across threads without the locking
/// the system allocator does.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    let cli = Cli::parse();
    let outcome = match cli.command {
        Command::Check(args) => check(*args),
        Command::Schema(args) => write_schemas(args),
        Command::Rule(args) => show_rules(args),
        Command::Probe(args) => probe(*args),
        Command::Completions(args) => completions(args),
    };
    match outcome {
        Ok(code) => code,
        Err(message) => {
            eprintln!("agui-lint: {message}");
            ExitCode::from(2)
        }
    }
}

fn check(args: CheckArgs) -> Result<ExitCode, String> {
    let mut settings = settings_args::settings(&args.report).map_err(|e| e.to_string())?;
    // The command line's --include replaces the configuration's, and its
    // --exclude adds to it, as --select and --ignore do.
    if !args.include.is_empty() {
        settings = settings.with_include(args.include.clone());
    }
    settings = settings.with_exclude(args.exclude.iter().cloned());
    if args.show_settings {
        return settings_args::show(&settings, &args);
    }
    let filter = Filter::new(settings.include(), settings.exclude()).map_err(|e| e.to_string())?;
    let collected = collect_sources(&args.paths, &filter, args.stdin_filename.as_deref());
    if !args.report.quiet {
        for link in &collected.links_not_followed {
            eprintln!(
                "agui-lint: {}: a link to a directory, not followed while walking (name it to check it)",
                link.display()
            );
        }
    }
    let missing = collected.failures.into_iter().map(Failure::from).collect();
    let baseline = match (&args.baseline, &args.write_baseline) {
        (Some(path), _) => Baselined::Matched(Baseline::read(path)?),
        (None, Some(path)) => Baselined::Recorded(Baseline::new(path), path.clone()),
        (None, None) => Baselined::No,
    };
    let checking = Checking {
        kind: args.kind.0,
        baseline,
        positions: true,
    };
    report(
        &collected.sources,
        missing,
        settings,
        checking,
        &args.report,
    )
}

/// How `check` treats documents beyond the settings: the kind they are
/// checked as (`None`: told from each), the baseline, and whether findings
/// keep their line and column (not for a probe session the user never saw
/// as a file: those are placed by exchange and event).
struct Checking {
    kind: Option<Kind>,
    baseline: Baselined,
    positions: bool,
}

/// What `check` does with a baseline.
enum Baselined {
    /// Nothing: every finding is reported.
    No,
    /// Leaves out the findings it holds (`--baseline`).
    Matched(Baseline),
    /// Records every finding, to be written to the path (`--write-baseline`).
    Recorded(Baseline, std::path::PathBuf),
}

/// Checks `sources` and writes the report `args` ask for; the exit code of
/// `check` (and of `probe`, which checks what it recorded).
fn report(
    sources: &[Source],
    missing: Vec<Failure>,
    settings: Settings,
    checking: Checking,
    args: &ReportArgs,
) -> Result<ExitCode, String> {
    if args.summary && args.format != cli::Format::Human {
        return Err(
            "--summary is for the human format; --statistics adds the counts to the others"
                .to_string(),
        );
    }
    let Checking {
        kind,
        baseline,
        positions,
    } = checking;
    // Globs are relative to the configuration file's directory.
    let config_dir = settings_args::config_path(args).map(|path| Anchor::of_file(&path));
    let per_file_ignores = PerFileIgnores::new(
        settings.per_file_ignores(),
        config_dir.unwrap_or_else(|| Anchor::new(Path::new(""))),
    )
    .map_err(|e| e.to_string())?;
    let masks_values = settings.masks_values();
    let validator_default_protocol = settings.default_protocol();
    // Each schema compiled when a document first needs it: a capture of
    // events needs three of them.
    let validator = Validator::compiling_on_demand().with_settings(settings);
    let options = Options {
        color: use_color(args.color, args.output.as_deref()),
        statistics: args.statistics,
        quiet: args.quiet,
        summary: args.summary,
        strict: args.strict,
        protocol: validator_default_protocol,
        verbose: args.verbose,
    };
    let format = args.format.into();
    let run = Run {
        validator: &validator,
        sources,
        missing,
        kind,
        masks_values,
        quiet: args.quiet,
        // A human report on standard output lists the unreadable paths
        // itself: a terminal shows each once.
        echo_failures: !(args.format == cli::Format::Human && args.output.is_none()),
        per_file_ignores,
        baseline,
        positions,
        sarif: match &args.sarif {
            None => None,
            Some(path) => {
                let file = std::fs::File::create(path)
                    .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
                let options = Options {
                    color: false,
                    ..options
                };
                let writer = Writer::begin(Format::Sarif, &options, std::io::BufWriter::new(file))
                    .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
                Some((writer, path.clone()))
            }
        },
    };
    let mut ran = match &args.output {
        Some(path) => {
            let file = std::fs::File::create(path)
                .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
            let ran = run.write(format, &options, std::io::BufWriter::new(file));
            if let Some(e) = &ran.error {
                return Err(format!("cannot write {}: {e}", path.display()));
            }
            ran
        }
        None => {
            let ran = run.write(
                format,
                &options,
                std::io::BufWriter::new(std::io::stdout().lock()),
            );
            match &ran.error {
                None => {}
                // A closed pipe (`agui-lint check . | head`) is not a failure.
                Some(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {}
                Some(e) => return Err(format!("cannot write output: {e}")),
            }
            ran
        }
    };
    // The process ends next and its memory with it: the compiled schemas
    // are not walked to be freed one allocation at a time.
    std::mem::forget(validator);
    let recorded = match std::mem::replace(&mut ran.baseline, Baselined::No) {
        Baselined::No => false,
        Baselined::Matched(baseline) => {
            let plural = |n: usize| if n == 1 { "" } else { "s" };
            let (matched, gone, unchecked) = (
                baseline.matched(),
                baseline.unmatched(),
                baseline.not_checked(),
            );
            if args.quiet {
                return report_code(&ran, args, false);
            }
            eprintln!(
                "agui-lint: {matched} finding{} left out as in the baseline",
                plural(matched)
            );
            if gone > 0 {
                // Rewriting from a run over some of the baseline's files
                // would drop the entries of the others, which still occur.
                let how = if unchecked == 0 {
                    "--write-baseline rewrites it"
                } else {
                    "--write-baseline over all of its files rewrites it"
                };
                eprintln!(
                    "agui-lint: {gone} finding{} of the baseline no longer occur{}; \
                     {how} without {}",
                    plural(gone),
                    if gone == 1 { "s" } else { "" },
                    if gone == 1 { "it" } else { "them" },
                );
            }
            false
        }
        Baselined::Recorded(baseline, path) => {
            baseline.write(&path)?;
            eprintln!(
                "agui-lint: {} finding{} recorded in {}",
                baseline.len(),
                if baseline.len() == 1 { "" } else { "s" },
                path.display()
            );
            true
        }
    };
    report_code(&ran, args, recorded)
}

/// The exit code of a run: 2 when a source could not be read, else 1 when
/// a document fails, unless `--exit-zero` or `--write-baseline` (`recorded`).
fn report_code(ran: &Ran, args: &ReportArgs, recorded: bool) -> Result<ExitCode, String> {
    let code = if ran.failures > 0 {
        2
    } else if args.exit_zero || recorded {
        0
    } else {
        u8::from(ran.failing)
    };
    Ok(ExitCode::from(code))
}

fn probe(args: ProbeArgs) -> Result<ExitCode, String> {
    use cli::ProtocolArg;
    let version = match args.report.protocol {
        None | Some(ProtocolArg::Auto | ProtocolArg::V1_0) => Some("1.0"),
        Some(ProtocolArg::V1_1) => Some("1.1"),
        Some(ProtocolArg::V0) => None,
    };
    let suite = args.suite
        || !args.scenario_file.is_empty()
        || args.expected_failures.is_some()
        || args.level.is_some();
    let mut scenarios = Vec::new();
    if !suite {
        for scenario in &args.scenario {
            scenarios.push(match scenario.0.name() {
                "text" => probe::Scenario::Text,
                "tool" => probe::Scenario::Tool,
                other => {
                    return Err(format!(
                        "--scenario {other} is a scenario of the kit: add --suite"
                    ))
                }
            });
        }
    }
    let plan = probe::Plan {
        url: args.url.clone(),
        headers: args.headers.clone(),
        token_env: args.token_env.clone(),
        requests: args.request.clone(),
        replays: args.replay.clone(),
        scenarios,
        version,
        timeouts: probe::Timeouts {
            connect: args.connect_timeout,
            first_byte: args.first_byte_timeout,
            idle: args.idle_timeout,
            total: args.timeout,
        },
        save: args.save.clone(),
        quiet: args.report.quiet,
        max_response_bytes: args.max_response_size,
    };
    if suite {
        return probe_suite(&plan, &args);
    }
    let session = probe::record(&plan)?;
    // Lines and columns of the session's HAR mean something only once it
    // is saved; until then a finding is placed by its exchange and event.
    let positions = plan.save.is_some();
    let har_bytes = session.har.len();
    let source = Source::Memory {
        name: session.name,
        bytes: session.har,
    };
    let mut settings = settings_args::settings(&args.report).map_err(|e| e.to_string())?;
    // The session is bounded by --max-response-size, not by the document
    // limit: its archive is checked whole, however many exchanges it holds.
    let limits = settings.limits();
    if limits.max_document_bytes < har_bytes {
        settings = settings.with_limits(
            limits
                .with_max_document_bytes(har_bytes)
                .with_max_state_bytes(limits.state_limit()),
        );
    }
    let checking = Checking {
        kind: None,
        baseline: Baselined::No,
        positions,
    };
    report(&[source], Vec::new(), settings, checking, &args.report)
}

/// `probe --suite`: the conformance kit against the plan's endpoint,
/// reported per scenario and check.
fn probe_suite(plan: &probe::Plan, args: &ProbeArgs) -> Result<ExitCode, String> {
    use agui_lint::unstable::kit::{self, Expected, Level, Outcome, UserScenario};
    if !plan.requests.is_empty() || !plan.replays.is_empty() {
        return Err("--suite runs the kit's scenarios; --request and --replay send requests of their own (use one or the other)".into());
    }
    let format = match args.report.format {
        cli::Format::Human => kit::Format::Human,
        cli::Format::Json => kit::Format::Json,
        cli::Format::Junit => kit::Format::Junit,
        other => {
            return Err(format!(
                "--suite reports in human, json or junit, not {}",
                clap::ValueEnum::to_possible_value(&other)
                    .map_or_else(String::new, |v| v.get_name().to_owned())
            ))
        }
    };
    let expected = match &args.expected_failures {
        Some(path) => Expected::read(path).map_err(|e| e.to_string())?,
        None => Expected::default(),
    };
    let user = args
        .scenario_file
        .iter()
        .map(|path| UserScenario::read(path).map_err(|e| e.to_string()))
        .collect::<Result<Vec<_>, _>>()?;
    let options = kit::Options {
        scenarios: args.scenario.iter().map(|s| s.0).collect(),
        user,
        version: plan.version.map(str::to_owned),
        level: args.level.map(|level| match level {
            cli::LevelArg::Must => Level::Must,
            cli::LevelArg::Should => Level::Should,
        }),
    };
    let settings = settings_args::settings(&args.report).map_err(|e| e.to_string())?;
    let validator = Validator::new()
        .map_err(|e| e.to_string())?
        .with_settings(settings);
    let mut suite = kit::Suite::new(&validator, options);
    probe::suite::run(plan, &mut suite)?;
    let outcome = Outcome::new(&suite.results(), &expected);
    let text = outcome.render(format);
    let mut out = match &args.report.output {
        Some(path) => Box::new(
            std::fs::File::create(path)
                .map_err(|e| format!("cannot write {}: {e}", path.display()))?,
        ) as Box<dyn Write>,
        None => Box::new(std::io::stdout().lock()),
    };
    out.write_all(text.as_bytes())
        .map_err(|e| format!("cannot write the report: {e}"))?;
    Ok(ExitCode::from(u8::from(
        outcome.fails() && !args.report.exit_zero,
    )))
}

/// One `check` run: the sources and how their documents are shown.
struct Run<'a> {
    validator: &'a Validator,
    sources: &'a [agui_lint::unstable::input::Source],
    /// Paths that do not exist: reported with the files that could not be
    /// read, and the run goes on (to exit 2 at the end).
    missing: Vec<Failure>,
    kind: Option<Kind>,
    masks_values: bool,
    quiet: bool,
    /// Also name each unreadable path on standard error, for a report that
    /// goes elsewhere or is read by a machine.
    echo_failures: bool,
    /// Rules turned off by file (`[per-file-ignores]`), applied before
    /// the baseline.
    per_file_ignores: PerFileIgnores,
    /// The baseline findings are matched against or recorded into.
    baseline: Baselined,
    /// Whether findings keep their line and column.
    positions: bool,
    /// A second report of the same documents, in SARIF, and the file it
    /// goes to (`--sarif`).
    sarif: Option<(
        Writer<std::io::BufWriter<std::fs::File>>,
        std::path::PathBuf,
    )>,
}

/// What a run ended with.
struct Ran {
    /// Sources that could not be read.
    failures: usize,
    /// Whether any document fails.
    failing: bool,
    /// The first error writing the report, which stopped the writing but
    /// not the run.
    error: Option<std::io::Error>,
    /// The baseline, matched or recorded.
    baseline: Baselined,
}

impl Run<'_> {
    /// Checks the sources and writes each document to `out` in `format` as
    /// its turn comes, so that no document is held once it is written.
    fn write<W: Write>(mut self, format: Format, options: &Options, out: W) -> Ran {
        let writer = match Writer::begin(format, options, out) {
            Ok(writer) => writer,
            Err(error) => {
                return Ran {
                    failures: 0,
                    failing: false,
                    error: Some(error),
                    baseline: self.baseline,
                }
            }
        };
        let mut writer = Written::new(writer);
        let baseline = &mut self.baseline;
        let per_file_ignores = &mut self.per_file_ignores;
        let mut sarif = self
            .sarif
            .take()
            .map(|(sarif, path)| (Written::new(sarif), path));
        let mut failures = self.missing;
        let mut masked = agui_lint::unstable::mask::Documents::default();
        let progress = progress::Progress::new(self.sources.len(), self.quiet);
        check_sources_in_order(
            self.validator,
            self.sources,
            self.kind,
            &|| progress.tick(),
            &mut |documents| {
                let documents = if self.positions {
                    documents
                } else {
                    documents.map_documents(Checked::without_file_positions)
                };
                // The findings were masked as they were made; the source
                // lines and HAR URLs the report would also show go here.
                let documents = if per_file_ignores.is_empty() {
                    documents
                } else {
                    documents.map_documents(|checked| per_file_ignores.filter(checked))
                };
                let documents = match baseline {
                    Baselined::No => documents,
                    Baselined::Matched(baseline) => {
                        documents.map_documents(|checked| baseline.filter(checked))
                    }
                    Baselined::Recorded(baseline, _) => {
                        documents.with_findings().for_each(|d| baseline.record(d));
                        documents
                    }
                };
                let documents = if self.masks_values {
                    documents.map_documents(|checked| masked.mask(checked))
                } else {
                    documents
                };
                writer.outcome(&documents);
                if let Some((sarif, _)) = &mut sarif {
                    sarif.outcome(&documents);
                }
            },
            &mut |failure| failures.push(failure),
        );
        progress.finish();
        failures.sort_by(|a, b| a.path.cmp(&b.path));
        if self.echo_failures {
            for failure in &failures {
                eprintln!("agui-lint: {}: {}", failure.path, failure.message);
            }
        }
        let failing = writer.writer.has_failing_document();
        let error = writer.finish(&failures).err();
        if let Some((sarif, path)) = sarif {
            if let Err(e) = sarif.finish(&failures) {
                // The main report may have been written; the SARIF file's
                // failure still fails the run, as a tool failure.
                eprintln!("agui-lint: cannot write {}: {e}", path.display());
                failures.push(Failure {
                    path: path.display().to_string(),
                    message: format!("cannot write the SARIF report: {e}"),
                });
            }
        }
        Ran {
            failures: failures.len(),
            failing,
            error,
            baseline: self.baseline,
        }
    }
}

/// One report being written, and the first error writing it: past that
/// error its documents are only counted, so the run's verdict still holds
/// every document.
struct Written<W: Write> {
    writer: Writer<W>,
    error: Option<std::io::Error>,
}

impl<W: Write> Written<W> {
    fn new(writer: Writer<W>) -> Self {
        Written {
            writer,
            error: None,
        }
    }

    /// Writes (or, after an error, counts) the next checked documents.
    fn outcome(&mut self, documents: &agui_lint::unstable::check::Outcome) {
        if self.error.is_some() {
            documents.documents().for_each(|d| self.writer.count(&d));
        } else if let Err(e) = self.writer.outcome(documents) {
            self.error = Some(e);
        }
    }

    /// Ends the report (its summary, the unreadable files) and flushes it;
    /// the first error of the whole report.
    fn finish(self, failures: &[Failure]) -> std::io::Result<()> {
        match self.error {
            Some(e) => Err(e),
            None => self.writer.finish(failures).map(drop),
        }
    }
}

/// Whether the human format is coloured: `--color always|never` wins;
/// `auto` colours only a terminal on standard output, and lets `NO_COLOR`,
/// `CLICOLOR` and `TERM=dumb` turn it off.
fn use_color(when: ColorWhen, output: Option<&Path>) -> bool {
    match when {
        ColorWhen::Always => true,
        ColorWhen::Never => false,
        ColorWhen::Auto => {
            output.is_none()
                && anstream::AutoStream::choice(&std::io::stdout()) != anstream::ColorChoice::Never
        }
    }
}

fn completions(args: CompletionsArgs) -> Result<ExitCode, String> {
    let mut script = Vec::new();
    clap_complete::generate(args.shell, &mut Cli::command(), "agui-lint", &mut script);
    print(&String::from_utf8_lossy(&script))?;
    Ok(ExitCode::SUCCESS)
}

fn write_schemas(args: SchemaArgs) -> Result<ExitCode, String> {
    let chosen = args
        .protocol
        .map(|p| ProtocolChoice::from(p).default_version());
    match (args.out, args.kind) {
        (Some(dir), kind) => {
            let kinds: Vec<Kind> = kind.map_or_else(|| Kind::ALL.to_vec(), |k| vec![k.0]);
            let protocols = chosen.map_or_else(|| Protocol::ALL.to_vec(), |p| vec![p]);
            for protocol in protocols {
                let folder = dir.join(schema::folder(protocol));
                let written = schema::write_files(protocol, &folder, &kinds)
                    .map_err(|e| format!("{}: {e}", folder.display()))?;
                for path in written {
                    eprintln!("wrote {}", path.display());
                }
            }
        }
        (None, Some(kind)) => {
            let protocol = chosen.unwrap_or(Protocol::NEWEST);
            let schema = schema::generate(protocol, kind.0)
                .ok_or_else(|| format!("AG-UI {protocol} has no '{}' documents", kind.0))?;
            print(&schema::render(&schema))?;
        }
        // Standard output holds one JSON document, whatever is asked.
        (None, None) => {
            let protocol = chosen.unwrap_or(Protocol::NEWEST);
            let all: serde_json::Map<String, serde_json::Value> = schema::generate_all(protocol)
                .into_iter()
                .map(|(kind, schema)| (kind.as_str().to_string(), schema))
                .collect();
            print(&schema::render(&serde_json::Value::Object(all)))?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn show_rules(args: RuleArgs) -> Result<ExitCode, String> {
    let chosen: Vec<&rules::Rule> = match &args.name {
        Some(name) if !args.all => vec![known_rule(name)?],
        _ => rules::all().iter().collect(),
    };
    if args.format == RuleFormat::Json {
        let list: Vec<serde_json::Value> = chosen
            .iter()
            .map(|r| {
                serde_json::json!({
                    "name": r.name,
                    "severity": r.severity,
                    "severityIn1x": r.severity_in(Protocol::V1_1),
                    "protocols": r.protocols().iter().map(|p| p.as_str()).collect::<Vec<_>>(),
                    "summary": r.summary,
                    "docs": r.docs,
                })
            })
            .collect();
        let text = serde_json::to_string_pretty(&list).map_err(|e| e.to_string())?;
        print(&format!("{text}\n"))?;
        return Ok(ExitCode::SUCCESS);
    }
    if args.all {
        let mut text = String::new();
        for rule in rules::all() {
            text.push_str(&format!(
                "{:<36} {:<8} {:<9} {}\n",
                rule.name,
                rule.severity.as_str(),
                rule.protocols_text(),
                rule.summary
            ));
        }
        print(&text)?;
        return Ok(ExitCode::SUCCESS);
    }
    for rule in chosen {
        print(&format!(
            "# {}\n\nDefault severity: {}\nProtocol versions: {}\n\n{}.\n\n{}",
            rule.name,
            rule.severity_text(),
            rule.protocols_text(),
            rule.summary,
            rule.docs
        ))?;
    }
    Ok(ExitCode::SUCCESS)
}

/// The rule named `name`, or an error naming the closest rule.
fn known_rule(name: &str) -> Result<&'static rules::Rule, String> {
    rules::rule(name).ok_or_else(|| {
        let hint = rules::closest(name)
            .map(|best| format!("did you mean '{best}'? "))
            .unwrap_or_default();
        format!("unknown rule '{name}' ({hint}see `agui-lint rule --all`)")
    })
}

fn print(text: &str) -> Result<(), String> {
    let mut stdout = std::io::stdout().lock();
    match stdout
        .write_all(text.as_bytes())
        .and_then(|()| stdout.flush())
    {
        Ok(()) => Ok(()),
        // A closed pipe (`agui-lint check . | head`) is not a failure.
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        Err(e) => Err(format!("cannot write output: {e}")),
    }
}
