//! `agui-lint report`: one self-contained HTML page of captures, each run
//! drawn as lanes (messages, reasoning, tool calls with their pieces,
//! steps, activities, subagents), its state as it evolves, its events and
//! every finding at the event it points to, with a findings table that
//! filters by rule, severity and run.
//!
//! The page needs no network and no other file: styles and the little
//! script that filters are inline, the timeline is inline SVG, and it
//! reads without script (the first 10,000 findings listed; every finding
//! is in the page, the rest listed by its script, see [`more`]).
//! Everything a capture holds
//! reaches the page through the template engine's escaping (HTML for
//! text, `tojson` for the embedded data), and the page's Content Security
//! Policy runs only its own script: a capture cannot run script in it.

mod conversation;
pub(crate) mod diff;
mod kit;
pub(crate) mod lanes;
mod lazy;
mod more;
mod picture;
pub(crate) mod render;
mod run;
mod state;
pub(crate) mod text;
mod timeline;
mod views;

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

use agui_lint::unstable::check::check_source;
use agui_lint::unstable::input::{collect_sources, Filter, Layout, Source};
use agui_lint::unstable::recording::capture::{read_capture_each, read_stream_each};
use agui_lint::{Checked, Protocol, ProtocolChoice, Settings, Validator};

use crate::cli::PageArgs;
use more::{MorePlaces, Tally};
use picture::SourceBuilder;
use views::{Shown, SourceView};

/// Writes the page of `args.paths`.
pub(crate) fn command(args: &PageArgs) -> Result<ExitCode, String> {
    let settings = settings(args)?;
    let filter = Filter::new(settings.include(), settings.exclude()).map_err(|e| e.to_string())?;
    let collected = collect_sources(&args.paths, &filter, None);
    if let Some(failure) = collected.failures.first() {
        return Err(format!("{}: {}", failure.path, failure.message));
    }
    let judged = judged_as(&settings);
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
        sources
            .iter()
            .enumerate()
            .find_map(|(k, drawn): (usize, &Drawn)| {
                (Path::new(&drawn.view.path).file_stem()? == scenario).then(|| format!("s{k}"))
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
    if args.output == Path::new("-") {
        let mut out = std::io::BufWriter::new(std::io::stdout().lock());
        write_page(&title, &judged, &validator, &sources, &kits, &mut out)?;
        out.flush().map_err(|e| format!("cannot write: {e}"))?;
    } else {
        let cannot = |e: std::io::Error| format!("{}: cannot write: {e}", args.output.display());
        let file = std::fs::File::create(&args.output).map_err(cannot)?;
        let mut out = std::io::BufWriter::new(file);
        write_page(&title, &judged, &validator, &sources, &kits, &mut out)?;
        out.flush().map_err(cannot)?;
        let findings: usize = sources
            .iter()
            .map(|s| s.view.counts.errors + s.view.counts.warnings + s.view.counts.infos)
            .sum();
        crate::console::say(format_args!(
            "agui-lint report: wrote {} ({} capture(s), {findings} finding(s))",
            args.output.display(),
            sources.len()
        ));
    }
    Ok(ExitCode::SUCCESS)
}

/// The page of one capture held in memory, `bytes` named `name` (a run
/// the proxy's live view kept), judged with the default settings: the
/// same page `agui-lint report` writes of the saved file.
pub(crate) fn capture_page(name: &str, bytes: Arc<[u8]>) -> Result<Vec<u8>, String> {
    let settings = Settings::default();
    let judged = judged_as(&settings);
    let validator = Validator::compiling_on_demand().with_settings(settings);
    let source = Source::Memory {
        name: PathBuf::from(name),
        bytes,
    };
    let mut shown = Shown::default();
    let sources: Vec<Drawn> = source_view(&validator, 0, &source, &mut shown)?
        .into_iter()
        .collect();
    let mut page = Vec::new();
    write_page(name, &judged, &validator, &sources, &[], &mut page)?;
    Ok(page)
}

/// What the page says a document that declares no version is judged as.
fn judged_as(settings: &Settings) -> String {
    match settings.protocol_choice() {
        ProtocolChoice::Auto => format!(
            "{} where a document declares no version (auto)",
            Protocol::NEWEST.as_str()
        ),
        chosen => format!("{chosen} where a document declares no version"),
    }
}

/// A capture larger than this, of a layout read a piece at a time (JSON
/// Lines, SSE, binary frames), is read from its file as it is drawn rather
/// than held whole.
const STREAMED_FROM: u64 = 16 * 1024 * 1024;

/// How a capture's bytes are read a second time, to be drawn.
enum Reading {
    /// Held whole (small, or an archive or JSON document).
    Whole(Arc<[u8]>),
    /// From its file, a piece at a time.
    Stream(std::fs::File, Layout),
}

/// How the capture at `path` (shown as `name`) is read to be drawn.
fn read_file(path: &Path, name: &str) -> Result<Reading, String> {
    use std::io::Seek;
    let cannot = |e: std::io::Error| format!("{name}: cannot read: {e}");
    let mut file = std::fs::File::open(path).map_err(cannot)?;
    if file.metadata().map_err(cannot)?.len() > STREAMED_FROM {
        let mut head = [0u8; 4096];
        let n = file.read(&mut head).map_err(cannot)?;
        file.rewind().map_err(cannot)?;
        let layout = Layout::from_path(path).unwrap_or_else(|| Layout::sniff(&head[..n]));
        if matches!(layout, Layout::JsonLines | Layout::Sse | Layout::Proto) {
            return Ok(Reading::Stream(file, layout));
        }
    }
    let mut bytes = Vec::new();
    file.read_to_end(&mut bytes).map_err(cannot)?;
    Ok(Reading::Whole(bytes.into()))
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
    if let Some(client) = &args.client {
        client.say_era();
        settings = settings.client(client.profile);
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
) -> Result<Option<Drawn>, String> {
    let name = source.display_name();
    let (source, bytes): (Source, Reading) = match source {
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
                Reading::Whole(bytes),
            )
        }
        Source::File(path) | Source::Walked(path) => (source.clone(), read_file(path, &name)?),
        Source::Memory { bytes, .. } => (source.clone(), Reading::Whole(bytes.clone())),
    };
    // Only documents with listed findings are kept: a clean capture of
    // millions of events costs its count, one with millions of findings
    // the places of those past the listed ones.
    let mut tally = Tally::default();
    let mut seen = 0usize;
    check_source(validator, &source, None, &mut |checked: Checked| {
        seen += 1;
        if !checked.report.diagnostics().is_empty() {
            tally.add(checked);
        }
    })
    .map_err(|failure| format!("{}: {}", failure.path, failure.message))?;
    tally.finish();
    if seen == 0 && matches!(source, Source::Walked(_)) {
        return Ok(None);
    }
    let path = match &source {
        Source::File(path) | Source::Walked(path) | Source::Memory { name: path, .. } => {
            path.clone()
        }
        Source::Stdin(_) => PathBuf::from("-"),
    };
    let mut builder = SourceBuilder::new(index, &name, tally, std::mem::take(shown));
    let read = match bytes {
        Reading::Whole(bytes) => {
            read_capture_each(&bytes, &path, &mut |piece| builder.piece(piece)).map(|whole| {
                if whole {
                    builder.whole_body(bytes);
                }
            })
        }
        Reading::Stream(file, layout) => {
            let mut reader = std::io::BufReader::new(file);
            read_stream_each(&mut reader, layout, &mut |piece| builder.piece(piece))
        }
    };
    let unreadable = read.err();
    let (view, now, more) = builder.finish(unreadable);
    *shown = now;
    Ok(Some(Drawn { view, source, more }))
}

/// One capture's part of the page: its view, and what writes its findings
/// past the listed ones once the rest of the page is written.
struct Drawn {
    view: SourceView,
    /// The capture, read again to write those findings.
    source: Source,
    /// Where they are shown.
    more: MorePlaces,
}

/// Writes the page of `drawn` (and `kits`) to `out`: its views through
/// the template, then each capture's findings past the listed ones,
/// checked again.
fn write_page(
    title: &str,
    judged: &str,
    validator: &Validator,
    drawn: &[Drawn],
    kits: &[kit::KitView],
    out: &mut dyn Write,
) -> Result<(), String> {
    let views: Vec<&SourceView> = drawn.iter().map(|d| &d.view).collect();
    render::page(title, judged, &views, kits, out, &mut |k, out| {
        let d = &drawn[k];
        more::write_more(validator, &d.source, k, &d.view, &d.more, out)
    })
}
