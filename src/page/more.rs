//! Every finding of a capture on its page, in memory bounded by the most
//! a table lists: the first [`LISTED_FINDINGS`] are kept whole and drawn
//! in place; past them, a capture's check keeps only where each document
//! with findings is, its worst severity and how many ([`MoreAt`]), so that
//! runs and events are still marked; and once the page is drawn, the
//! capture is checked again and those findings are written into the
//! page's data row by row ([`write_more`]), which its script pages
//! through.

use std::collections::{BTreeMap, HashMap};
use std::io::Write;

use agui_lint::unstable::check::check_source;
use agui_lint::unstable::input::Source;
use agui_lint::{Checked, Protocol, Severity, Validator};
use serde::Serialize;

use super::text::worse;
use super::views::{place_of, Counts, Place, SourceView, LISTED_FINDINGS};

/// Where a place with findings past the listed ones is shown on the page
/// (indexes as `u32`, to keep millions of places small).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Target {
    /// Not drawn (a capture that could not be read as exchanges).
    Nowhere,
    /// Exchange `x`'s section (its request, or the exchange as a whole).
    Exchange(u32),
    /// Run `r` of exchange `x`: drawn whole or a line of the outline.
    Run(u32, u32),
    /// Event `n` of that run, listed among its events.
    Event(u32, u32, u32),
}

impl Target {
    /// Exchange `x`'s section.
    pub(super) fn exchange(x: usize) -> Target {
        Target::Exchange(small(x))
    }

    /// Run `r` of exchange `x`.
    pub(super) fn run(x: usize, r: usize) -> Target {
        Target::Run(small(x), small(r))
    }

    /// Event `n` of run `r` of exchange `x`.
    pub(super) fn event(x: usize, r: usize, n: usize) -> Target {
        Target::Event(small(x), small(r), small(n))
    }
}

/// An index as a `u32` (a page has fewer exchanges, runs and events).
fn small(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// A place's findings past the listed ones (small: a capture may have
/// millions).
#[derive(Debug, Clone, Copy)]
pub(super) struct MoreAt {
    /// The version the document was judged as.
    pub(super) judged: Protocol,
    pub(super) worst: Severity,
    pub(super) count: u32,
    pub(super) target: Target,
}

/// The places with findings past the listed ones, in order: a sorted
/// list rather than a map, at a few dozen bytes a place.
#[derive(Debug, Default)]
pub(crate) struct MorePlaces {
    places: Vec<(Place, MoreAt)>,
}

impl MorePlaces {
    /// Counts a finding of `severity` at `place`, of a document judged as
    /// `judged`.
    fn add(&mut self, place: Place, judged: Protocol, severity: Severity) {
        match self.places.last_mut() {
            Some((last, at)) if *last == place => {
                at.worst = at.worst.max(severity);
                at.count = at.count.saturating_add(1);
            }
            _ => self.places.push((
                place,
                MoreAt {
                    judged,
                    worst: severity,
                    count: 1,
                    target: Target::Nowhere,
                },
            )),
        }
    }

    /// Puts the places in order, once all are added (a capture's
    /// documents come in its order, which is nearly this one).
    fn sort(&mut self) {
        self.places.sort_by_key(|(place, _)| *place);
        self.places.dedup_by(|(place, at), (kept_place, kept)| {
            if place != kept_place {
                return false;
            }
            kept.worst = kept.worst.max(at.worst);
            kept.count = kept.count.saturating_add(at.count);
            true
        });
        self.places.shrink_to_fit();
    }

    /// What is past the listed findings at `place`.
    pub(super) fn get(&self, place: &Place) -> Option<&MoreAt> {
        let k = self.places.binary_search_by_key(place, |(p, _)| *p).ok()?;
        Some(&self.places[k].1)
    }

    fn get_mut(&mut self, place: &Place) -> Option<&mut MoreAt> {
        let k = self.places.binary_search_by_key(place, |(p, _)| *p).ok()?;
        Some(&mut self.places[k].1)
    }
}

/// Where each place's findings are: the listed ones by their index in
/// the source's list, the rest counted.
pub(super) struct Placed {
    pub(super) listed: HashMap<Place, Vec<usize>>,
    pub(super) more: MorePlaces,
}

impl Placed {
    /// The listed findings at `place` (taken, shown once), and how many
    /// past them it has, with their worst severity: those are shown at
    /// `target`.
    pub(super) fn take(&mut self, place: Place, target: Target) -> (Vec<usize>, Option<MoreAt>) {
        let listed = self.listed.remove(&place).unwrap_or_default();
        let more = self.more.get_mut(&place).map(|at| {
            at.target = target;
            *at
        });
        (listed, more)
    }

    /// The findings past the listed ones at `place` are shown at `target`
    /// after all (a run drawn as a line of the outline).
    pub(super) fn show_at(&mut self, place: Place, target: Target) {
        if let Some(at) = self.more.get_mut(&place) {
            at.target = target;
        }
    }
}

/// Findings past the listed ones at a few places (an event, a request),
/// counted with their worst severity.
#[derive(Debug, Clone, Copy)]
pub(super) struct MoreCount {
    pub(super) count: usize,
    pub(super) worst: &'static str,
}

impl Default for MoreCount {
    fn default() -> Self {
        MoreCount {
            count: 0,
            worst: "clean",
        }
    }
}

impl MoreCount {
    /// Counts the findings past the listed ones at one more place.
    pub(super) fn add(&mut self, at: Option<MoreAt>) {
        if let Some(at) = at {
            self.count += at.count as usize;
            self.worst = worse(self.worst, at.worst.as_str());
        }
    }
}

/// What the first check of a capture keeps: every finding counted, the
/// first [`LISTED_FINDINGS`]' documents whole, and the places of the rest.
#[derive(Default)]
pub(super) struct Tally {
    pub(super) counts: Counts,
    /// Every finding, by rule.
    pub(super) by_rule: BTreeMap<String, usize>,
    /// The documents whose findings are listed (the last may hold more).
    pub(super) listed: Vec<Checked>,
    listed_findings: usize,
    /// Places of the findings past the listed ones.
    pub(super) more: MorePlaces,
    /// How many findings are past the listed ones.
    pub(super) more_findings: usize,
}

impl Tally {
    /// Takes the next document with findings.
    pub(super) fn add(&mut self, checked: Checked) {
        let mut keep = false;
        for diagnostic in checked.report.diagnostics() {
            self.counts.add(diagnostic.severity);
            *self.by_rule.entry(diagnostic.rule.clone()).or_default() += 1;
            if self.listed_findings < LISTED_FINDINGS {
                self.listed_findings += 1;
                keep = true;
                continue;
            }
            self.more_findings += 1;
            self.more.add(
                place_of(&checked),
                checked.report.protocol(),
                diagnostic.severity,
            );
        }
        if keep {
            self.listed.push(checked);
        }
    }

    /// Every document is added.
    pub(super) fn finish(&mut self) {
        self.more.sort();
    }
}

/// The anchor of `target` on source `source`'s part of the page, and the
/// run (or exchange) the table's filter knows it by.
fn target_of(view: &SourceView, source: usize, target: Target) -> (Option<String>, &str) {
    match target {
        Target::Nowhere => (None, ""),
        Target::Exchange(x) => (
            Some(format!("s{source}-x{x}")),
            view.exchanges
                .get(x as usize)
                .map_or("", |e| e.title.as_str()),
        ),
        Target::Run(x, r) | Target::Event(x, r, _) => {
            let run = view
                .exchanges
                .get(x as usize)
                .and_then(|e| e.runs.get(r as usize));
            let anchor = match target {
                Target::Event(_, _, n) => format!("s{source}-x{x}-r{r}-e{n}"),
                _ => format!("s{source}-x{x}-r{r}"),
            };
            (Some(anchor), run.map_or("", |run| run.title.as_str()))
        }
    }
}

/// One finding past the listed ones, as the page's data holds it (an
/// array, its fields in this order, to keep a large page small).
#[derive(Serialize)]
struct Row<'a>(
    &'a str,
    &'static str,
    Text<'a>,
    Option<Text<'a>>,
    String,
    Option<usize>,
    Option<usize>,
    &'a str,
    &'a str,
    Option<String>,
);

/// A message or a help in a row: its text the first time, then the
/// number of that first time (messages and helps repeat across a
/// capture's findings: an `unknown-field` for the same key on every
/// event).
#[derive(Serialize)]
#[serde(untagged)]
enum Text<'a> {
    Seen(u32),
    New(&'a str),
}

/// The texts written so far, each numbered in the order written: the
/// page's script numbers them the same way. The first [`REMEMBERED`]
/// different texts are remembered; past them a text is written again
/// each time (and numbered again), which keeps memory bounded.
#[derive(Default)]
struct Texts {
    seen: HashMap<Box<str>, u32>,
    written: u32,
}

/// The most texts [`Texts`] remembers.
const REMEMBERED: usize = 1 << 16;

impl Texts {
    fn text<'a>(&mut self, text: &'a str) -> Text<'a> {
        if let Some(&n) = self.seen.get(text) {
            return Text::Seen(n);
        }
        if self.seen.len() < REMEMBERED {
            self.seen.insert(text.into(), self.written);
        }
        self.written += 1;
        Text::New(text)
    }
}

/// Writes the findings of `source` past the first `view.findings.len()`
/// as a JSON array of rows, escaped to sit in a `<script>` block of the
/// page (no `<`, `>`, `&` or `'` as themselves): rule, severity, message,
/// help, place, line, column, pointer, run, anchor; a message or help
/// written before is its number among the texts written (see [`Text`]).
/// The capture is checked again, its documents in the same order as the
/// first time.
pub(super) fn write_more(
    validator: &Validator,
    source: &Source,
    index: usize,
    view: &SourceView,
    more: &MorePlaces,
    out: &mut dyn Write,
) -> Result<(), String> {
    let mut skip = view.findings.len();
    let mut first = true;
    let mut failed: Option<std::io::Error> = None;
    let mut row_text = Vec::new();
    let mut texts = Texts::default();
    out.write_all(b"[")
        .map_err(|e| format!("cannot write the report: {e}"))?;
    check_source(validator, source, None, &mut |checked: Checked| {
        if failed.is_some() {
            return;
        }
        let target = more
            .get(&place_of(&checked))
            .map_or(Target::Nowhere, |at| at.target);
        let (anchor, run) = target_of(view, index, target);
        let place = checked.place().unwrap_or_else(|| "the document".to_owned());
        for diagnostic in checked.report.diagnostics() {
            if skip > 0 {
                skip -= 1;
                continue;
            }
            let location = diagnostic.location.map(|l| checked.file_location(l));
            let message = texts.text(&diagnostic.message);
            let help = diagnostic.help.as_deref().map(|help| texts.text(help));
            let row = Row(
                &diagnostic.rule,
                diagnostic.severity.as_str(),
                message,
                help,
                place.clone(),
                location.map(|l| l.line),
                location.map(|l| l.column),
                &diagnostic.pointer,
                run,
                anchor.clone(),
            );
            row_text.clear();
            if !first {
                row_text.push(b',');
            }
            first = false;
            if serde_json::to_writer(&mut row_text, &row).is_err() {
                continue;
            }
            if let Err(e) = out.write_all(&script_safe(&row_text)) {
                failed = Some(e);
                return;
            }
        }
    })
    .map_err(|failure| format!("{}: {}", failure.path, failure.message))?;
    if let Some(e) = failed {
        return Err(format!("cannot write the report: {e}"));
    }
    out.write_all(b"]")
        .map_err(|e| format!("cannot write the report: {e}"))
}

/// JSON text made safe inside a `<script>` block: `<`, `>`, `&` and `'`
/// (which appear only inside strings) written as escapes, as the
/// template's `tojson` writes them.
fn script_safe(json: &[u8]) -> Vec<u8> {
    let mut safe = Vec::with_capacity(json.len());
    for &byte in json {
        match byte {
            b'<' => safe.extend_from_slice(b"\\u003c"),
            b'>' => safe.extend_from_slice(b"\\u003e"),
            b'&' => safe.extend_from_slice(b"\\u0026"),
            b'\'' => safe.extend_from_slice(b"\\u0027"),
            _ => safe.push(byte),
        }
    }
    safe
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_text_is_written_once_and_then_numbered_as_the_page_numbers_it() {
        let mut texts = Texts::default();
        let numbers: Vec<String> = ["a", "b", "a", "c", "b"]
            .into_iter()
            .map(|t| match texts.text(t) {
                Text::Seen(n) => n.to_string(),
                Text::New(text) => text.to_owned(),
            })
            .collect();
        assert_eq!(numbers, ["a", "b", "0", "c", "1"]);
        // Past the texts remembered, a text is written again, numbered anew.
        let mut texts = Texts::default();
        for n in 0..REMEMBERED {
            texts.text(&n.to_string());
        }
        assert!(matches!(texts.text("new"), Text::New("new")));
        assert!(matches!(texts.text("new"), Text::New("new")));
        assert_eq!(texts.written as usize, REMEMBERED + 2);
        assert!(matches!(texts.text("0"), Text::Seen(0)));
    }

    #[test]
    fn a_row_cannot_close_its_script_block() {
        let json = serde_json::to_vec(&serde_json::json!([
            "</script><script>alert('x')</script>&"
        ]))
        .expect("json");
        let safe = String::from_utf8(script_safe(&json)).expect("utf-8");
        assert!(
            !safe.contains('<') && !safe.contains('>') && !safe.contains('\''),
            "{safe}"
        );
        let back: serde_json::Value = serde_json::from_str(&safe).expect("still JSON");
        assert_eq!(back[0], "</script><script>alert('x')</script>&");
    }
}
