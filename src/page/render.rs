//! The page written from its views through minijinja: the template
//! escapes every value as HTML (by its `.html` name), and the embedded
//! data goes through `tojson`, which escapes `<`, `>`, `&` and `'` so that
//! nothing a capture holds can close the script block it sits in.

use std::collections::{BTreeMap, BTreeSet};
use std::hash::{BuildHasher, Hasher};

use minijinja::value::Serde;
use minijinja::{Environment, Value};
use serde::Serialize;

use super::kit::KitView;
use super::picture;
use super::views::{Counts, SourceView, LISTED_FINDINGS};

/// The page's template.
const TEMPLATE: &str = include_str!("templates/report.html");

/// The diff's page's template.
const DIFF_TEMPLATE: &str = include_str!("templates/diff.html");

/// The styles the pages share.
const STYLE: &str = include_str!("templates/style.html");

/// The proxy's live view's template.
const LIVE_TEMPLATE: &str = include_str!("templates/live.html");

/// The end of the page, after each capture's findings past the listed
/// ones: its script.
const TAIL_TEMPLATE: &str = include_str!("templates/report-tail.html");

/// The templates, their names telling the engine to escape as HTML.
fn environment() -> Result<Environment<'static>, String> {
    let mut env = Environment::new();
    for (name, source) in [
        ("report.html", TEMPLATE),
        ("diff.html", DIFF_TEMPLATE),
        ("live.html", LIVE_TEMPLATE),
        ("report-tail.html", TAIL_TEMPLATE),
        ("style.html", STYLE),
    ] {
        env.add_template(name, source)
            .map_err(|e| format!("the report's template {name}: {e}"))?;
    }
    Ok(env)
}

/// The proxy's live view (`proxy --ui`).
pub(crate) fn live_page() -> Result<String, String> {
    #[derive(Serialize)]
    struct LivePage {
        nonce: String,
    }
    environment()?
        .get_template("live.html")
        .map_err(|e| format!("the live view's template: {e}"))?
        .render(Value::from(Serde(&LivePage { nonce: nonce() })))
        .map_err(|e| format!("cannot write the live view: {e}"))
}

/// The page of `diff`.
pub(crate) fn diff_page(diff: &super::diff::DiffView) -> Result<String, String> {
    #[derive(Serialize)]
    struct DiffPage<'a> {
        diff: &'a super::diff::DiffView,
    }
    environment()?
        .get_template("diff.html")
        .map_err(|e| format!("the diff's template: {e}"))?
        .render(Value::from(Serde(&DiffPage { diff })))
        .map_err(|e| format!("cannot write the diff: {e}"))
}

/// Everything the template gets.
#[derive(Serialize)]
struct Page<'a> {
    title: &'a str,
    judged: &'a str,
    version: &'static str,
    totals: Counts,
    sources: Vec<SourcePage<'a>>,
    kits: &'a [KitView],
    data: Data<'a>,
    nonce: String,
}

/// What the template gets of one source beyond its view: the rules and
/// runs its findings table filters by.
#[derive(Serialize)]
struct SourcePage<'a> {
    #[serde(flatten)]
    view: &'a SourceView,
    worst: &'static str,
    rules: Vec<&'a str>,
    run_names: BTreeSet<&'a str>,
    /// How many findings its table lists before its script lists more.
    listed: usize,
}

/// What the page embeds as data: each source's findings, for scripts and
/// tools that read the page.
#[derive(Serialize)]
struct Data<'a> {
    sources: Vec<DataSource<'a>>,
}

#[derive(Serialize)]
struct DataSource<'a> {
    path: &'a str,
    counts: Counts,
    findings: Vec<DataFinding<'a>>,
    /// Findings past those: in the block `s{k}-more`, as rows.
    more_findings: usize,
    /// Each rule's summary and link, for the rows past the listed ones.
    rules: BTreeMap<&'a str, RuleData>,
}

/// A rule as the page's script shows it.
#[derive(Serialize)]
struct RuleData {
    summary: &'static str,
    link: String,
}

#[derive(Serialize)]
struct DataFinding<'a> {
    rule: &'a str,
    severity: &'a str,
    message: &'a str,
    at: Option<&'a str>,
}

/// Writes each capture's findings past the listed ones (the `k`-th
/// capture's, as a JSON array safe in a script block) to the writer
/// given.
pub(super) type WriteMore<'a> =
    dyn FnMut(usize, &mut dyn std::io::Write) -> Result<(), String> + 'a;

/// Writes the page of `sources` and `kits`, titled `title`, judged as
/// `judged`, to `out` as it is made (a large page is never held whole);
/// `more` writes each capture's findings past the listed ones into the
/// page's data.
pub(super) fn page(
    title: &str,
    judged: &str,
    sources: &[&SourceView],
    kits: &[KitView],
    out: &mut dyn std::io::Write,
    more: &mut WriteMore<'_>,
) -> Result<(), String> {
    let env = environment()?;
    let mut totals = Counts::default();
    for source in sources {
        totals.errors += source.counts.errors;
        totals.warnings += source.counts.warnings;
        totals.infos += source.counts.infos;
    }
    let pages: Vec<SourcePage<'_>> = sources
        .iter()
        .map(|&view| SourcePage {
            view,
            worst: picture::worst_of(view),
            rules: view.by_rule.iter().map(|(rule, _)| rule.as_str()).collect(),
            listed: view.findings.len(),
            run_names: view
                .findings
                .iter()
                .map(|f| f.run.as_str())
                .filter(|r| !r.is_empty())
                .collect(),
        })
        .collect();
    let data = Data {
        sources: sources
            .iter()
            .map(|s| DataSource {
                path: &s.path,
                counts: s.counts,
                findings: s
                    .findings
                    .iter()
                    .map(|f| DataFinding {
                        rule: &f.rule,
                        severity: f.severity,
                        message: &f.message,
                        at: f.at.as_deref(),
                    })
                    .collect(),
                more_findings: s.more_findings,
                rules: s
                    .by_rule
                    .iter()
                    .map(|(name, _)| {
                        let summary = agui_lint::rules::rule(name).map_or("", |r| r.summary);
                        let link = agui_lint::rules::docs_url(name);
                        (name.as_str(), RuleData { summary, link })
                    })
                    .collect(),
            })
            .collect(),
    };
    let template = env
        .get_template("report.html")
        .map_err(|e| format!("the report's template: {e}"))?;
    let nonce = nonce();
    let page = Page {
        title,
        judged,
        version: env!("CARGO_PKG_VERSION"),
        totals,
        sources: pages,
        kits,
        data,
        nonce: nonce.clone(),
    };
    template
        .render_captured_to(Value::from(Serde(&page)), &mut *out)
        .map(drop)
        .map_err(|e| format!("cannot write the report: {e}"))?;
    let cannot = |e: std::io::Error| format!("cannot write the report: {e}");
    for (k, source) in sources.iter().enumerate() {
        if source.more_findings == 0 {
            continue;
        }
        write!(
            out,
            "<script type=\"application/json\" id=\"s{k}-more\" data-more-of=\"s{k}\">"
        )
        .map_err(cannot)?;
        more(k, out)?;
        out.write_all(b"</script>\n").map_err(cannot)?;
    }
    #[derive(Serialize)]
    struct Tail {
        nonce: String,
        page: usize,
    }
    env.get_template("report-tail.html")
        .map_err(|e| format!("the report's template: {e}"))?
        .render_captured_to(
            Value::from(Serde(&Tail {
                nonce,
                page: LISTED_FINDINGS,
            })),
            out,
        )
        .map(drop)
        .map_err(|e| format!("cannot write the report: {e}"))
}

/// A value the page's own script carries and no capture can know (it is
/// made when the page is written): the Content Security Policy runs no
/// other script.
fn nonce() -> String {
    let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
    hasher.write_u128(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos()),
    );
    hasher.write_u32(std::process::id());
    format!("{:016x}", hasher.finish())
}
