//! The `agui-lint` binary: parse arguments, call the library, map the outcome
//! to an exit code (0 clean, 1 errors found, 2 usage, I/O or internal
//! failure).

mod cli;
mod console;
mod decode;
mod diff;
mod page;
mod probe;
mod progress;
mod proxy;
mod replay;
mod reporting;
mod serve;
mod settings_args;

use std::io::Write;
use std::process::ExitCode;

use agui_lint::unstable::baseline::Baseline;
use agui_lint::unstable::check::Failure;
use agui_lint::unstable::input::{collect_sources, Filter, Source};
use agui_lint::{rules, unstable::schema, Kind, Protocol, ProtocolChoice};
use clap::{CommandFactory, Parser};

use cli::{CheckArgs, Cli, Command, CompletionsArgs, ProbeArgs, RuleArgs, RuleFormat, SchemaArgs};
use reporting::{report, Baselined, Checking};

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
        Command::Decode(args) => decode::decode(&args.path),
        Command::Diff(args) => diff::command(&args),
        Command::Replay(args) => replay::command(&args),
        Command::Proxy(args) => proxy::command(*args),
        Command::Report(args) => page::command(&args),
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
    settings = settings.with_input_format(args.input_format.layout());
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
        secret_headers: args.secret_headers.clone(),
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
        return probe::suite::command(&plan, &args);
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
