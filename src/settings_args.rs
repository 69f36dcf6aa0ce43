//! The settings a run uses: the `agui-lint.toml` named or found, the
//! command line's flags on top, and `check --show-settings`, which prints
//! them with where each came from.

use std::process::ExitCode;

use agui_lint::{Settings, SettingsError};

use crate::cli::{CheckArgs, ReportArgs};

/// The configuration file a run reads: `--config`, else the nearest
/// `agui-lint.toml` from the working directory up.
pub(crate) fn config_path(args: &ReportArgs) -> Option<std::path::PathBuf> {
    match &args.config {
        Some(path) => Some(path.clone()),
        None => std::env::current_dir()
            .ok()
            .and_then(|dir| Settings::discover(&dir)),
    }
}

/// The configuration file's settings, then the command line's on top.
pub(crate) fn settings(args: &ReportArgs) -> Result<Settings, SettingsError> {
    let mut settings = match config_path(args) {
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
    let mut limits = settings.limits();
    if let Some(size) = args.max_document_size {
        limits.max_document_bytes = size;
    }
    if let Some(size) = args.max_archive_size {
        limits.max_archive_bytes = size;
    }
    if let Some(depth) = args.max_depth {
        limits.max_depth = depth;
    }
    if let Some(nodes) = args.max_tool_schema_nodes {
        limits.max_tool_schema_nodes = nodes;
    }
    if let Some(findings) = args.max_findings {
        limits.max_findings = findings;
    }
    if let Some(size) = args.max_state_size {
        limits.max_state_bytes = Some(size);
    }
    if let Some(size) = args.max_total_state_size {
        limits.max_total_state_bytes = Some(size);
    }
    if args.mask_values {
        settings = settings.mask_values(true);
    }
    if let Some(protocol) = args.protocol {
        settings = settings.protocol(protocol.into());
    }
    if let Some(client) = &args.client {
        client.say_era();
        settings = settings.client(client.profile);
    }
    Ok(settings.with_limits(limits))
}

/// `check --show-settings`: the settings a check would run with, as
/// `agui-lint.toml` would write them, each with where it came from.
pub(crate) fn show(settings: &Settings, args: &CheckArgs) -> Result<ExitCode, String> {
    let config = config_path(&args.report);
    let table: toml::Table = match &config {
        Some(path) => std::fs::read_to_string(path)
            .ok()
            .and_then(|text| text.parse().ok())
            .unwrap_or_default(),
        None => toml::Table::new(),
    };
    let from = |key: &str, flag: Option<&str>| -> String {
        let in_file = table.contains_key(key);
        match (in_file, flag) {
            (true, Some(flag)) => format!("agui-lint.toml, then {flag}"),
            (false, Some(flag)) => flag.to_string(),
            (true, None) => "agui-lint.toml".to_string(),
            (false, None) => "default".to_string(),
        }
    };
    let list = |items: &mut dyn Iterator<Item = &String>| -> String {
        let items: Vec<String> = items
            .map(|i| toml::Value::from(i.as_str()).to_string())
            .collect();
        format!("[{}]", items.join(", "))
    };
    let report = &args.report;
    let mut out = String::new();
    use std::fmt::Write as _;
    let _ = writeln!(
        out,
        "# settings of `agui-lint check`; configuration file: {}",
        config
            .as_ref()
            .map_or_else(|| "none found".to_string(), |p| p.display().to_string())
    );
    let mut line = |text: String, origin: String| {
        let _ = writeln!(out, "{text:<48} # {origin}");
    };
    line(
        format!("protocol = \"{}\"", settings.protocol_choice()),
        from("protocol", report.protocol.map(|_| "--protocol")),
    );
    match settings.client_chosen() {
        Some(client) => line(
            format!("client = \"{client}\""),
            match &report.client {
                Some(arg) if arg.typed != client.as_str() => {
                    format!("--client {} (judged as this profile)", arg.typed)
                }
                arg => from("client", arg.as_ref().map(|_| "--client")),
            },
        ),
        None => line(
            format!("client = \"{}\"", settings.client_profile()),
            "default".into(),
        ),
    }
    match settings.selected() {
        Some(select) => line(
            format!("select = {}", list(&mut select.iter())),
            from("select", report.select.as_ref().map(|_| "--select")),
        ),
        None => line("# select: every rule".into(), "default".into()),
    }
    line(
        format!("ignore = {}", list(&mut settings.ignored().iter())),
        from("ignore", (!report.ignore.is_empty()).then_some("--ignore")),
    );
    line(
        format!("include = {}", list(&mut settings.include().iter())),
        from("include", (!args.include.is_empty()).then_some("--include")),
    );
    line(
        format!("exclude = {}", list(&mut settings.exclude().iter())),
        from("exclude", (!args.exclude.is_empty()).then_some("--exclude")),
    );
    line(
        format!("mask-values = {}", settings.masks_values()),
        from("mask-values", report.mask_values.then_some("--mask-values")),
    );
    let severities = table.get("severity").and_then(toml::Value::as_table);
    let _ = writeln!(out, "\n[severity]");
    for (rule, severity) in settings.severities() {
        let in_file = severities.is_some_and(|t| t.contains_key(rule));
        let flag = report
            .severity
            .iter()
            .any(|o| o.split_once('=').is_some_and(|(r, _)| r.trim() == rule));
        let origin = match (in_file, flag) {
            (_, true) => "--severity",
            (true, false) => "agui-lint.toml",
            (false, false) => "default",
        };
        let _ = writeln!(out, "{:<48} # {origin}", format!("{rule} = \"{severity}\""));
    }
    let limits = settings.limits();
    let file_limits = table.get("limits").and_then(toml::Value::as_table);
    let _ = writeln!(out, "\n[limits]");
    let state = limits.max_state_bytes.map_or_else(
        || {
            format!(
                "# max-state-bytes = {}: four times max-document-bytes",
                limits.state_limit()
            )
        },
        |n| format!("max-state-bytes = {n}"),
    );
    let total = limits.max_total_state_bytes.map_or_else(
        || {
            format!(
                "# max-total-state-bytes = {}: four times max-state-bytes",
                limits.total_state_limit()
            )
        },
        |n| format!("max-total-state-bytes = {n}"),
    );
    for (key, text, flag) in [
        (
            "max-document-bytes",
            format!("max-document-bytes = {}", limits.max_document_bytes),
            report.max_document_size.map(|_| "--max-document-size"),
        ),
        (
            "max-archive-bytes",
            format!("max-archive-bytes = {}", limits.max_archive_bytes),
            report.max_archive_size.map(|_| "--max-archive-size"),
        ),
        (
            "max-depth",
            format!("max-depth = {}", limits.max_depth),
            report.max_depth.map(|_| "--max-depth"),
        ),
        (
            "max-tool-schema-nodes",
            format!("max-tool-schema-nodes = {}", limits.max_tool_schema_nodes),
            report
                .max_tool_schema_nodes
                .map(|_| "--max-tool-schema-nodes"),
        ),
        (
            "max-state-bytes",
            state,
            report.max_state_size.map(|_| "--max-state-size"),
        ),
        (
            "max-total-state-bytes",
            total,
            report
                .max_total_state_size
                .map(|_| "--max-total-state-size"),
        ),
        (
            "max-findings",
            format!("max-findings = {}", limits.max_findings),
            report.max_findings.map(|_| "--max-findings"),
        ),
    ] {
        let in_file = file_limits.is_some_and(|t| t.contains_key(key));
        let origin = match (in_file, flag) {
            (_, Some(flag)) => flag,
            (true, None) => "agui-lint.toml",
            (false, None) => "default",
        };
        let _ = writeln!(out, "{text:<48} # {origin}");
    }
    let _ = writeln!(out, "\n[per-file-ignores]");
    for (glob, rules) in settings.per_file_ignores() {
        let _ = writeln!(
            out,
            "{:<48} # agui-lint.toml",
            format!(
                "{} = {}",
                toml::Value::from(glob.as_str()),
                list(&mut rules.iter())
            )
        );
    }
    print!("{out}");
    Ok(ExitCode::SUCCESS)
}
