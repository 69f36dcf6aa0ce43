//! The `agui-lint` binary: parse arguments, call the library, map the outcome
//! to an exit code (0 clean, 1 errors found, 2 usage, I/O or internal
//! failure).

mod cli;

use std::io::Write;
use std::process::ExitCode;

use agui_lint::check::check_source;
use agui_lint::input::collect_sources;
use agui_lint::render::{render_human, render_json, Checked};
use agui_lint::{rules, schema, Kind, Settings, SettingsError, Validator};
use clap::Parser;

use cli::{CheckArgs, Cli, Command, Format, RuleArgs, RuleFormat, SchemaArgs};

fn main() -> ExitCode {
    let cli = Cli::parse();
    let outcome = match cli.command {
        Command::Check(args) => check(args),
        Command::Schema(args) => write_schemas(args),
        Command::Rule(args) => show_rules(args),
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
    let settings = settings(&args).map_err(|e| e.to_string())?;
    let validator = Validator::new()
        .map_err(|e| e.to_string())?
        .with_settings(settings);
    let sources = collect_sources(&args.paths).map_err(|e| e.to_string())?;
    let mut documents: Vec<Checked> = Vec::new();
    for source in &sources {
        let checked = check_source(&validator, source, args.kind.0)
            .map_err(|e| format!("{}: {e}", source.display_name()))?;
        documents.extend(checked);
    }
    let text = match args.format {
        Format::Human => render_human(&documents),
        Format::Json => render_json(&documents),
    };
    print(&text)?;
    let failed = documents.iter().any(|d| !d.report.is_valid());
    Ok(ExitCode::from(u8::from(failed)))
}

/// The configuration file's settings, then the command line's on top.
fn settings(args: &CheckArgs) -> Result<Settings, SettingsError> {
    let path = match &args.config {
        Some(path) => Some(path.clone()),
        None => std::env::current_dir()
            .ok()
            .and_then(|dir| Settings::discover(&dir)),
    };
    let mut settings = match path {
        Some(path) => Settings::load(&path)?,
        None => Settings::default(),
    };
    if let Some(select) = &args.select {
        settings = settings.select(select.iter().map(String::as_str))?;
    }
    settings = settings.ignore(args.ignore.iter().map(String::as_str))?;
    for text in &args.severity {
        settings = settings.severity_override(text)?;
    }
    Ok(settings)
}

fn write_schemas(args: SchemaArgs) -> Result<ExitCode, String> {
    let kinds: Vec<Kind> = args.kind.map_or_else(|| Kind::ALL.to_vec(), |k| vec![k]);
    match args.out {
        Some(dir) => {
            let written =
                schema::write_files(&dir, &kinds).map_err(|e| format!("{}: {e}", dir.display()))?;
            for path in written {
                eprintln!("wrote {}", path.display());
            }
        }
        None => {
            let mut text = String::new();
            for kind in kinds {
                text.push_str(&schema::render(&schema::generate(kind)));
            }
            print(&text)?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn show_rules(args: RuleArgs) -> Result<ExitCode, String> {
    let chosen: Vec<&rules::Rule> = if args.all {
        rules::all().iter().collect()
    } else {
        let name = args.name.clone().unwrap_or_default();
        vec![rules::rule(&name)
            .ok_or_else(|| format!("unknown rule '{name}' (see `agui-lint rule --all`)"))?]
    };
    if args.format == RuleFormat::Json {
        let list: Vec<serde_json::Value> = chosen
            .iter()
            .map(|r| {
                serde_json::json!({
                    "name": r.name,
                    "severity": r.severity,
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
                "{:<32} {:<8} {}\n",
                rule.name,
                rule.severity.as_str(),
                rule.summary
            ));
        }
        print(&text)?;
        return Ok(ExitCode::SUCCESS);
    }
    let name = args.name.unwrap_or_default();
    match rules::rule(&name) {
        Some(rule) => {
            print(&format!(
                "# {}\n\nDefault severity: {}\n\n{}.\n\n{}",
                rule.name, rule.severity, rule.summary, rule.docs
            ))?;
            Ok(ExitCode::SUCCESS)
        }
        None => Err(format!(
            "unknown rule '{name}' (see `agui-lint rule --all`)"
        )),
    }
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
