//! The run `check` (and `probe`, which checks what it recorded) makes of
//! its sources: the settings and per-file ignores applied, the baseline
//! matched or recorded, each document written in the chosen format as it
//! is checked, and the exit code of the whole.

use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

use agui_lint::unstable::anchor::Anchor;
use agui_lint::unstable::baseline::Baseline;
use agui_lint::unstable::check::{check_sources_in_order, Checked, Failure};
use agui_lint::unstable::input::Source;
use agui_lint::unstable::per_file_ignores::PerFileIgnores;
use agui_lint::unstable::render::{Format, Options, Writer};
use agui_lint::{Kind, Settings, Validator};

use crate::cli::{self, ColorWhen, ReportArgs};
use crate::{progress, settings_args};

/// How `check` treats documents beyond the settings: the kind they are
/// checked as (`None`: told from each), the baseline, and whether findings
/// keep their line and column (not for a probe session the user never saw
/// as a file: those are placed by exchange and event).
pub(crate) struct Checking {
    pub(crate) kind: Option<Kind>,
    pub(crate) baseline: Baselined,
    pub(crate) positions: bool,
}

/// What `check` does with a baseline.
pub(crate) enum Baselined {
    /// Nothing: every finding is reported.
    No,
    /// Leaves out the findings it holds (`--baseline`).
    Matched(Baseline),
    /// Records every finding, to be written to the path (`--write-baseline`).
    Recorded(Baseline, std::path::PathBuf),
}

/// Checks `sources` and writes the report `args` ask for; the exit code of
/// `check` (and of `probe`, which checks what it recorded).
pub(crate) fn report(
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
