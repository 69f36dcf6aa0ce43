//! `agui-lint report`: one self-contained HTML page of captures, each run
//! drawn as lanes (messages, reasoning, tool calls with their pieces,
//! steps, activities, subagents), its state as it evolves, its events and
//! every finding at the event it points to, with a findings table that
//! filters by rule, severity and run.
//!
//! The page needs no network and no other file: styles and the little
//! script that filters are inline, the timeline is inline SVG, and it
//! reads without script (every finding listed). Everything a capture holds
//! reaches the page through the template engine's escaping (HTML for
//! text, `tojson` for the embedded data), and the page's Content Security
//! Policy runs only its own script: a capture cannot run script in it.

pub(crate) mod diff;
mod kit;
mod lanes;
mod picture;
pub(crate) mod render;
mod state;

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

use agui_lint::unstable::check::check_source;
use agui_lint::unstable::input::{collect_sources, Filter, Source};
use agui_lint::unstable::recording::capture::read_capture_each;
use agui_lint::{Checked, Protocol, ProtocolChoice, Settings, Validator};

use crate::cli::PageArgs;
use picture::{Shown, SourceBuilder, SourceView};

/// Writes the page of `args.paths`.
pub(crate) fn command(args: &PageArgs) -> Result<ExitCode, String> {
    let settings = settings(args)?;
    let filter = Filter::new(settings.include(), settings.exclude()).map_err(|e| e.to_string())?;
    let collected = collect_sources(&args.paths, &filter, None);
    if let Some(failure) = collected.failures.first() {
        return Err(format!("{}: {}", failure.path, failure.message));
    }
    let judged = match settings.protocol_choice() {
        ProtocolChoice::Auto => format!(
            "{} where a document declares no version (auto)",
            Protocol::NEWEST.as_str()
        ),
        chosen => format!("{chosen} where a document declares no version"),
    };
    let validator = Validator::compiling_on_demand().with_settings(settings);
    let mut sources = Vec::new();
    // Kit reports, shown after the captures are read (a scenario links to
    // its saved session among them).
    let mut kit_reports = Vec::new();
    // What the page shows so far, across its captures.
    let mut shown = Shown::default();
    for source in &collected.sources {
        if let Some(report) = kit_report(source)? {
            kit_reports.push((source.display_name(), report));
            continue;
        }
        if let Some(view) = source_view(&validator, sources.len(), source, &mut shown)? {
            sources.push(view);
        }
    }
    let session = |scenario: &str| {
        sources.iter().enumerate().find_map(|(k, view)| {
            (Path::new(&view.path).file_stem()? == scenario).then(|| format!("s{k}"))
        })
    };
    let kits = kit_reports
        .into_iter()
        .enumerate()
        .map(|(k, (name, report))| kit::kit_view(k, &name, report, session))
        .collect::<Result<Vec<_>, _>>()?;
    let title = match args.paths.as_slice() {
        [one] => one.display().to_string(),
        many => format!("{} paths", many.len()),
    };
    let page = render::page(&title, &judged, &sources, &kits)?;
    if args.output == Path::new("-") {
        std::io::stdout()
            .lock()
            .write_all(page.as_bytes())
            .map_err(|e| format!("cannot write: {e}"))?;
    } else {
        std::fs::write(&args.output, page.as_bytes())
            .map_err(|e| format!("{}: cannot write: {e}", args.output.display()))?;
        let findings: usize = sources
            .iter()
            .map(|s| s.counts.errors + s.counts.warnings + s.counts.infos)
            .sum();
        crate::console::say(format_args!(
            "agui-lint report: wrote {} ({} capture(s), {findings} finding(s))",
            args.output.display(),
            sources.len()
        ));
    }
    Ok(ExitCode::SUCCESS)
}

/// The kit report `source` holds, when it is one (a `.json` file whose
/// document is the kit's JSON report).
fn kit_report(source: &Source) -> Result<Option<serde_json::Value>, String> {
    let (Source::File(path) | Source::Walked(path)) = source else {
        return Ok(None);
    };
    if path.extension().and_then(|e| e.to_str()) != Some("json") {
        return Ok(None);
    }
    let bytes = std::fs::read(path).map_err(|e| format!("{}: cannot read: {e}", path.display()))?;
    Ok(serde_json::from_slice::<serde_json::Value>(&bytes)
        .ok()
        .filter(kit::is_kit_report))
}

/// The settings of the configuration file, with the flags on top.
fn settings(args: &PageArgs) -> Result<Settings, String> {
    let config: Option<PathBuf> = match &args.config {
        Some(path) => Some(path.clone()),
        None => std::env::current_dir()
            .ok()
            .and_then(|dir| Settings::discover(&dir)),
    };
    let mut settings = match config {
        Some(path) => Settings::load(&path).map_err(|e| e.to_string())?,
        None => Settings::default(),
    };
    if let Some(protocol) = args.protocol {
        settings = settings.protocol(protocol.into());
    }
    if let Some(client) = args.client {
        settings = settings.client(client);
    }
    Ok(settings)
}

/// The view of one source: its documents with findings, and its bytes read
/// again as exchanges, piece by piece. `None` for a file a directory walk
/// found that holds no AG-UI document.
fn source_view(
    validator: &Validator,
    index: usize,
    source: &Source,
    shown: &mut Shown,
) -> Result<Option<SourceView>, String> {
    let name = source.display_name();
    let (source, bytes): (Source, Arc<[u8]>) = match source {
        Source::Stdin(named) => {
            let mut bytes = Vec::new();
            std::io::stdin()
                .read_to_end(&mut bytes)
                .map_err(|e| format!("-: cannot read: {e}"))?;
            let bytes: Arc<[u8]> = bytes.into();
            let name = named.clone().unwrap_or_else(|| PathBuf::from("-"));
            (
                Source::Memory {
                    name,
                    bytes: bytes.clone(),
                },
                bytes,
            )
        }
        Source::File(path) | Source::Walked(path) => {
            let bytes = std::fs::read(path).map_err(|e| format!("{name}: cannot read: {e}"))?;
            (source.clone(), bytes.into())
        }
        Source::Memory { bytes, .. } => (source.clone(), bytes.clone()),
    };
    // Only documents with findings are kept: a clean capture of millions
    // of events costs its count.
    let mut documents: Vec<Checked> = Vec::new();
    let mut seen = 0usize;
    check_source(validator, &source, None, &mut |checked: Checked| {
        seen += 1;
        if !checked.report.diagnostics().is_empty() {
            documents.push(checked);
        }
    })
    .map_err(|failure| format!("{}: {}", failure.path, failure.message))?;
    if seen == 0 && matches!(source, Source::Walked(_)) {
        return Ok(None);
    }
    let path = match &source {
        Source::File(path) | Source::Walked(path) | Source::Memory { name: path, .. } => {
            path.clone()
        }
        Source::Stdin(_) => PathBuf::from("-"),
    };
    let mut builder = SourceBuilder::new(index, &name, &documents, std::mem::take(shown));
    drop(documents);
    let read = read_capture_each(&bytes, &path, &mut |piece| builder.piece(piece));
    let unreadable = match read {
        Ok(true) => {
            builder.whole_body(bytes);
            None
        }
        Ok(false) => None,
        Err(why) => Some(why),
    };
    let (view, now) = builder.finish(unreadable);
    *shown = now;
    Ok(Some(view))
}
