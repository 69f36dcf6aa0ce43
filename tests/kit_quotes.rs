//! Every level of the conformance kit rests on a sentence of the 1.1
//! text: each check's quotes are found, word for word, on the vendored
//! page they name (`tests/upstream/1.1/prose/`), under the heading their
//! anchor names, and the first says the check's level (MUST or REQUIRED
//! for a MUST, SHOULD for a SHOULD); a check with no sentence is advice.

use std::path::Path;

use agui_lint::unstable::kit::{Level, CHECKS};

/// A page's text as it reads: the front matter, link targets and
/// emphasis left out, whitespace collapsed; with the heading each
/// stretch of it is under, as (anchor, text) pairs.
fn sections(page: &str) -> Vec<(String, String)> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/upstream/1.1/prose")
        .join(format!("{page}.mdx"));
    let path = if path.is_file() {
        path
    } else {
        path.with_extension("").join("index.mdx")
    };
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let body = match text.strip_prefix("---\n") {
        Some(rest) => rest.split_once("\n---\n").map_or(rest, |(_, body)| body),
        None => &text,
    };
    let mut sections = vec![(String::new(), String::new())];
    for line in body.lines() {
        if let Some(heading) = line.strip_prefix('#').map(|h| h.trim_start_matches('#')) {
            sections.push((slug(heading), String::new()));
            continue;
        }
        let section = &mut sections.last_mut().expect("a section").1;
        section.push(' ');
        section.push_str(line);
    }
    sections
        .into_iter()
        .map(|(anchor, text)| (anchor, plain(&text)))
        .collect()
}

/// Markdown as read: `[text](target)` as its text, no `*` emphasis, runs
/// of whitespace as one space.
fn plain(markdown: &str) -> String {
    let mut out = String::new();
    let mut rest = markdown;
    while let Some(open) = rest.find('[') {
        out.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        match after.find("](").and_then(|close| {
            let target_end = after[close + 2..].find(')')?;
            Some((close, close + 2 + target_end + 1))
        }) {
            Some((close, end)) => {
                out.push_str(&after[..close]);
                rest = &after[end..];
            }
            None => {
                out.push('[');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out.replace('*', "")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

/// A heading's anchor, as the published pages make it.
fn slug(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}

#[test]
fn every_quote_is_the_vendored_text_under_its_heading() {
    let mut quoted = 0;
    for check in CHECKS {
        for quote in check.rests_on {
            let sections = sections(quote.page);
            let text = plain(quote.text);
            let found: Vec<&str> = sections
                .iter()
                .filter(|(_, section)| section.contains(&text))
                .map(|(anchor, _)| anchor.as_str())
                .collect();
            assert!(
                !found.is_empty(),
                "{}: \"{}\" is not on {}",
                check.id,
                quote.text,
                quote.page
            );
            assert!(
                found.contains(&quote.anchor),
                "{}: \"{}\" is under #{found:?} of {}, not #{}",
                check.id,
                quote.text,
                quote.page,
                quote.anchor
            );
            quoted += 1;
        }
    }
    assert!(quoted >= 20, "{quoted}");
}

#[test]
fn each_level_is_the_level_its_first_sentence_states() {
    for check in CHECKS {
        let first = check.rests_on.first().map(|q| q.text);
        match (check.level, first) {
            (Level::Must, Some(text)) => assert!(
                text.contains("MUST") || text.contains("REQUIRED"),
                "{} is a MUST on \"{text}\"",
                check.id
            ),
            (Level::Should, Some(text)) => assert!(
                text.contains("SHOULD") && !text.contains("MUST"),
                "{} is a SHOULD on \"{text}\"",
                check.id
            ),
            // A user's scenario file is its own requirement.
            (Level::Must, None) => assert_eq!(check.id, "expectation-met"),
            (Level::Advice, None) => {}
            (level, first) => panic!("{}: {level:?} resting on {first:?}", check.id),
        }
    }
}

#[test]
fn the_reader_finds_a_sentence_only_where_it_is() {
    // The test above can fail: a word changed, a wrong anchor.
    let sections = sections("basic/run-input");
    let state = sections
        .iter()
        .find(|(anchor, _)| anchor == "state")
        .expect("the state section");
    assert!(state.1.contains("MUST compute them against this value"));
    assert!(!state.1.contains("MUST compute them against that value"));
    assert!(sections
        .iter()
        .all(|(anchor, text)| anchor == "state" || !text.contains("MUST compute them")));
    assert_eq!(slug(" `RUN_ERROR`"), "run_error");
    assert_eq!(plain("a [link](/x) **b**\n c"), "a link b c");
}
