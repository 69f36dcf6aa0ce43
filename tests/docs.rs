//! The book under `docs/` (mdBook layout): its reference pages are
//! generated from the code — the command line from clap's help, each rule
//! from the registry, the JSON report from the types that write it — and a
//! page that differs from what the code gives is stale, like the schemas.
//! Regenerate with `AGUI_LINT_WRITE_DOCS=1 cargo test --test docs`.
//! Every page is in the book's table of contents, and every link between
//! pages leads to a page.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use agui_lint::rules;
use assert_cmd::cargo::cargo_bin_cmd;
use serde_json::Value;

/// The repository's address, whose files the book links.
const REPOSITORY: &str = "https://github.com/agui-lint/agui-lint";

/// The command that rewrites the generated pages.
const REGENERATE: &str = "AGUI_LINT_WRITE_DOCS=1 cargo test --test docs";

/// The first line of every generated page's body.
const GENERATED: &str =
    "<!-- Generated from the code by `AGUI_LINT_WRITE_DOCS=1 cargo test --test docs`; edit the code, not this page. -->";

fn book() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/src")
}

/// `agui-lint ARGS --help`, as a terminal 100 columns wide shows it.
fn help(args: &[&str]) -> String {
    let output = cargo_bin_cmd!("agui-lint")
        .args(args)
        .arg("--help")
        .env("COLUMNS", "100")
        .env("NO_COLOR", "1")
        .output()
        .expect("run agui-lint");
    assert_eq!(output.status.code(), Some(0), "{args:?} --help");
    String::from_utf8(output.stdout).expect("UTF-8 help")
}

/// The subcommands `agui-lint --help` lists, without `help`.
fn subcommands(top: &str) -> Vec<String> {
    top.lines()
        .skip_while(|l| !l.starts_with("Commands:"))
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|name| *name != "help")
        .map(str::to_string)
        .collect()
}

/// The command line's page: every subcommand's full help.
fn cli_page() -> String {
    let top = help(&[]);
    let mut page = format!(
        "# Command line\n\n{GENERATED}\n\nEvery subcommand and flag of `agui-lint`, as `agui-lint \
         SUBCOMMAND --help` prints them.\n\n## `agui-lint`\n\n```text\n{top}```\n"
    );
    let names = subcommands(&top);
    assert!(names.len() >= 5, "subcommands: {names:?}");
    for name in names {
        page.push_str(&format!(
            "\n## `agui-lint {name}`\n\n```text\n{}```\n",
            help(&[&name])
        ));
    }
    page
}

/// One rule's page: what `agui-lint rule NAME` prints.
fn rule_page(rule: &rules::Rule) -> String {
    format!(
        "# {}\n\n{GENERATED}\n\n| | |\n|---|---|\n| Default severity | {} |\n| Protocol versions | {} |\n\n{}.\n\n{}\n",
        rule.name,
        rule.severity_text(),
        rule.protocols_text(),
        rule.summary,
        rule.docs.trim_end()
    )
}

/// The rules' index: every rule with its severity, versions and summary.
fn rules_page() -> String {
    let mut page = format!(
        "# Rules\n\n{GENERATED}\n\nEvery rule agui-lint reports, in the order `agui-lint rule --all` \
         lists them. A rule's name is what `--select`, `--ignore`, `--severity` and \
         `agui-lint.toml` take.\n\n| rule | default severity | versions | what it reports |\n|---|---|---|---|\n"
    );
    for rule in rules::all() {
        page.push_str(&format!(
            "| [`{0}`](rules/{0}.md) | {1} | {2} | {3} |\n",
            rule.name,
            rule.severity_text(),
            rule.protocols_text(),
            rule.summary.replace('|', "\\|")
        ));
    }
    page
}

/// A schema's type as the report page writes it.
fn type_text(schema: &Value) -> String {
    if let Some(target) = schema["$ref"].as_str() {
        let name = target.rsplit('/').next().unwrap_or(target);
        return format!("[{name}](#{})", name.to_lowercase());
    }
    if let Some(any) = schema["anyOf"].as_array() {
        return any.iter().map(type_text).collect::<Vec<_>>().join(" or ");
    }
    if let Some(names) = schema["enum"].as_array() {
        return names
            .iter()
            .map(|n| format!("`{}`", n.as_str().unwrap_or_default()))
            .collect::<Vec<_>>()
            .join(", ");
    }
    let types: Vec<&str> = match &schema["type"] {
        Value::String(t) => vec![t.as_str()],
        Value::Array(ts) => ts.iter().filter_map(Value::as_str).collect(),
        _ => vec!["any"],
    };
    types
        .iter()
        .map(|t| match *t {
            "array" => format!("array of {}", type_text(&schema["items"])),
            other => other.to_string(),
        })
        .collect::<Vec<_>>()
        .join(" or ")
}

/// One object of the schema: its description and a table of its keys.
fn object_section(name: &str, schema: &Value) -> String {
    let description = schema["description"].as_str().unwrap_or_default();
    let mut section = format!("## {name}\n\n{}\n\n", description.replace('\n', " "));
    if let Some(names) = schema["enum"].as_array() {
        let names: Vec<String> = names
            .iter()
            .map(|n| format!("`{}`", n.as_str().unwrap_or_default()))
            .collect();
        section.push_str(&format!("One of {}.\n", names.join(", ")));
        return section;
    }
    let required: Vec<&str> = schema["required"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect();
    section.push_str("| key | type | always present | what it holds |\n|---|---|---|---|\n");
    for (key, property) in schema["properties"].as_object().into_iter().flatten() {
        section.push_str(&format!(
            "| `{key}` | {} | {} | {} |\n",
            type_text(property),
            if required.contains(&key.as_str()) {
                "yes"
            } else {
                "no"
            },
            property["description"]
                .as_str()
                .unwrap_or_default()
                .replace('\n', " ")
                .replace('|', "\\|")
        ));
    }
    section
}

/// The JSON report's page, from its JSON Schema.
fn report_page(schema: &Value) -> String {
    let mut page = format!(
        "# JSON report\n\n{GENERATED}\n\n`check --format json` writes one `Report`; `--format jsonl` \
         writes one `Document` per line (and, with `--statistics`, a last line \
         `{{\"statistics\": [...]}}` of `RuleCount`s). The JSON Schema of the report is \
         [`report.schema.json`](report.schema.json).\n\n"
    );
    page.push_str(&object_section("Report", schema));
    for (name, definition) in schema["$defs"].as_object().into_iter().flatten() {
        page.push('\n');
        page.push_str(&object_section(name, definition));
    }
    page
}
/// The conformance kit's page: every check with its level, the sentences
/// of the 1.1 text it rests on, and the checks of each built-in scenario.
fn kit_page() -> String {
    use agui_lint::unstable::kit::{BuiltIn, Level, CHECKS};
    let mut page = format!(
        "# Conformance kit checks\n\n{GENERATED}\n\nWhat `agui-lint probe URL --suite` (and \
         `agui_lint.kit` in Python, `agui-lint/kit` in Node) judges. A check's id is what an \
         expected-failures file names. Each level is that of the 1.1 sentence the check rests \
         on, quoted below: a MUST failure fails the run; a SHOULD failure is a warning (`--strict` \
         makes it fail); a check no sentence requires is advice, shown and never failing. \
         `--level must` judges only the MUSTs.\n\n\
         | check | level | requires |\n|---|---|---|\n"
    );
    for check in CHECKS {
        page.push_str(&format!(
            "| [`{}`](#{}) | {} | {} |\n",
            check.id,
            check.id,
            check.level.as_str(),
            check.requires.replace('|', "\\|")
        ));
    }
    for check in CHECKS {
        page.push_str(&format!(
            "\n## {}\n\n{} ({}). {}\n",
            check.id,
            check.level.as_str(),
            match check.level {
                Level::Must => "a failure fails the run",
                Level::Should => "a failure is a warning; `--strict` fails on it",
                Level::Advice => "shown, never failing",
            },
            check.requires
        ));
        if check.rests_on.is_empty() {
            page.push_str(&format!(
                "\nNo sentence of the 1.1 text requires it{}.\n",
                if check.level == Level::Advice {
                    ": it is what the TypeScript SDK's servers do"
                } else {
                    "; the user's scenario file states it"
                }
            ));
        }
        for quote in check.rests_on {
            page.push_str(&format!(
                "\n> {}\n>\n> — [{}]({})\n",
                quote.text,
                quote.page,
                quote.url()
            ));
        }
        if !check.exercised_by.is_empty() {
            page.push_str(&format!(
                "\nNot exercised until there is {}.\n",
                check.exercised_by
            ));
        }
    }
    page.push_str("\n## Scenarios\n\n| scenario | checks |\n|---|---|\n");
    for scenario in BuiltIn::ALL {
        let checks: Vec<String> = scenario
            .checks()
            .iter()
            .map(|c| format!("`{}`", c.id))
            .collect();
        page.push_str(&format!(
            "| `{}` | {} |\n",
            scenario.name(),
            checks.join(", ")
        ));
    }
    page.push_str(
        "| a scenario file | `expectation-met`, `stream-conforms`, `stream-as-received`, `ids-echoed`, `ids-unique-across-runs` |\n",
    );
    page
}

/// The book's table of contents with each rule's page listed under the
/// rules' index (the rest of it is written by hand).
fn summary_page() -> String {
    let text = std::fs::read_to_string(book().join("SUMMARY.md")).expect("docs/src/SUMMARY.md");
    let index = "- [Rules](reference/rules.md)";
    let mut page = String::new();
    for line in text.lines() {
        if line.starts_with("  - [") && line.contains("(reference/rules/") {
            continue;
        }
        page.push_str(line);
        page.push('\n');
        if line == index {
            for rule in rules::all() {
                page.push_str(&format!(
                    "  - [{}](reference/rules/{}.md)\n",
                    rule.name, rule.name
                ));
            }
        }
    }
    assert!(page.contains(index), "SUMMARY.md lists the rules' index");
    page
}

/// Every generated file, by its path under `docs/src/reference/`.
fn generated() -> BTreeMap<String, String> {
    let schema = serde_json::to_value(agui_lint::unstable::render::report_schema())
        .expect("the report's schema");
    let mut pages = BTreeMap::new();
    pages.insert("cli.md".to_string(), cli_page());
    pages.insert("rules.md".to_string(), rules_page());
    pages.insert("kit.md".to_string(), kit_page());
    for rule in rules::all() {
        pages.insert(format!("rules/{}.md", rule.name), rule_page(rule));
    }
    pages.insert("json-report.md".to_string(), report_page(&schema));
    pages.insert("../SUMMARY.md".to_string(), summary_page());
    pages.insert(
        "report.schema.json".to_string(),
        serde_json::to_string_pretty(&schema).expect("schema text") + "\n",
    );
    pages
}

/// Every file under `dir`, by its path relative to `dir`.
fn files_under(dir: &Path) -> Vec<String> {
    let mut found = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(at) = pending.pop() {
        for entry in std::fs::read_dir(&at).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                pending.push(path);
            } else if let Ok(relative) = path.strip_prefix(dir) {
                found.push(relative.to_string_lossy().replace('\\', "/"));
            }
        }
    }
    found.sort();
    found
}

#[test]
fn the_reference_pages_are_generated_from_the_code() {
    let reference = book().join("reference");
    let pages = generated();
    let write = std::env::var_os("AGUI_LINT_WRITE_DOCS").is_some();
    let mut stale = Vec::new();
    for (name, text) in &pages {
        let path = reference.join(name);
        if std::fs::read_to_string(&path).ok().as_deref() != Some(text.as_str()) {
            if write {
                std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
                std::fs::write(&path, text).expect("write page");
            }
            stale.push(name.clone());
        }
    }
    // A page of a rule that no longer exists is stale too.
    for name in files_under(&reference.join("rules")) {
        let name = format!("rules/{name}");
        if !pages.contains_key(&name) {
            if write {
                std::fs::remove_file(reference.join(&name)).expect("remove page");
            }
            stale.push(name);
        }
    }
    assert!(
        write || stale.is_empty(),
        "stale reference pages under docs/src/reference/: {stale:?}; regenerate them with `{REGENERATE}`"
    );
    assert!(pages.len() > rules::all().len() + 3);
}

#[test]
fn the_reference_pages_say_what_they_hold() {
    let pages = generated();
    let cli = &pages["cli.md"];
    for flag in [
        "--summary",
        "--verbose",
        "--sarif",
        "--baseline",
        "--write-baseline",
        "--show-settings",
        "--max-findings",
        "--max-state-size",
        "--max-response-size",
        "## `agui-lint probe`",
        "## `agui-lint rule`",
    ] {
        assert!(cli.contains(flag), "the CLI page misses {flag}");
    }
    for kind in agui_lint::Kind::ALL {
        assert!(cli.contains(kind.as_str()), "the CLI page misses {kind:?}");
    }
    let report = &pages["json-report.md"];
    for key in [
        "`protocol`",
        "`diagnostics`",
        "`pointer`",
        "`line`",
        "`related`",
    ] {
        assert!(report.contains(key), "the report page misses {key}");
    }
    let index = &pages["rules.md"];
    for rule in rules::all() {
        assert!(index.contains(&format!("(rules/{}.md)", rule.name)));
        assert!(pages[&format!("rules/{}.md", rule.name)].contains(rule.docs.trim_end()));
    }
    for check in agui_lint::unstable::kit::CHECKS {
        assert!(pages["kit.md"].contains(&format!(
            "| [`{}`](#{}) | {} |",
            check.id,
            check.id,
            check.level.as_str()
        )));
        for quote in check.rests_on {
            assert!(pages["kit.md"].contains(&format!("> {}\n", quote.text)));
        }
    }
    // The SARIF log's help links lead to these pages.
    let url = rules::docs_url("missing-field");
    assert!(
        url.ends_with("docs/src/reference/rules/missing-field.md"),
        "{url}"
    );
}

/// The targets of a page's relative Markdown links.
fn links(text: &str) -> Vec<String> {
    text.match_indices("](")
        .filter_map(|(at, _)| {
            let rest = &text[at + 2..];
            let target = &rest[..rest.find(')')?];
            (!target.contains("://") && !target.starts_with('#') && !target.starts_with("mailto:"))
                .then(|| target.split('#').next().unwrap_or_default().to_string())
        })
        .collect()
}

#[test]
fn every_page_is_in_the_table_of_contents_and_every_link_leads_to_a_file() {
    let src = book();
    let summary = std::fs::read_to_string(src.join("SUMMARY.md")).expect("docs/src/SUMMARY.md");
    let listed = links(&summary);
    let pages: Vec<String> = files_under(&src)
        .into_iter()
        .filter(|p| p.ends_with(".md") && p != "SUMMARY.md")
        .collect();
    for page in &pages {
        assert!(
            listed.contains(page),
            "docs/src/{page} is not in SUMMARY.md"
        );
    }
    let mut checked = 0;
    for page in files_under(&src).iter().filter(|p| p.ends_with(".md")) {
        let path = src.join(page);
        let text = std::fs::read_to_string(&path).expect("page");
        for target in links(&text) {
            if target.is_empty() {
                continue;
            }
            let resolved = path.parent().expect("parent").join(&target);
            assert!(
                resolved.exists(),
                "docs/src/{page} links {target}, which is missing"
            );
            // A link out of docs/src/ is broken once the book is rendered:
            // a file of the repository is linked by its address.
            let inside = resolved
                .canonicalize()
                .is_ok_and(|at| at.starts_with(src.canonicalize().expect("docs/src")));
            assert!(
                inside,
                "docs/src/{page} links {target}, outside the book; link it at {REPOSITORY}/blob/main/…"
            );
            checked += 1;
        }
        // A link to a file of this repository by its address names one
        // that exists (checked offline).
        for at in text.match_indices(REPOSITORY) {
            let rest = &text[at.0 + REPOSITORY.len()..];
            let Some(path) = rest
                .strip_prefix("/blob/main/")
                .or_else(|| rest.strip_prefix("/tree/main/"))
            else {
                continue;
            };
            let path = path
                .split([')', ' ', '#', '"', '>', '`'])
                .next()
                .unwrap_or_default();
            assert!(
                Path::new(env!("CARGO_MANIFEST_DIR")).join(path).exists(),
                "docs/src/{page} links {REPOSITORY}/…/{path}, which is not in the repository"
            );
            checked += 1;
        }
    }
    assert!(checked > rules::all().len(), "only {checked} links");
    let book_toml = std::fs::read_to_string(src.join("../book.toml")).expect("docs/book.toml");
    assert!(book_toml.contains("[book]"));
}

#[test]
fn the_report_schema_holds_real_reports() {
    let schema = serde_json::to_value(agui_lint::unstable::render::report_schema())
        .expect("the report's schema");
    let validator = jsonschema::validator_for(&schema).expect("the schema compiles");
    let output = cargo_bin_cmd!("agui-lint")
        .args(["check", "fixtures/", "--format", "json", "--statistics"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("run agui-lint");
    let report: Value = serde_json::from_slice(&output.stdout).expect("a JSON report");
    let errors: Vec<String> = validator
        .iter_errors(&report)
        .take(5)
        .map(|e| format!("{e} at {}", e.instance_path()))
        .collect();
    assert!(errors.is_empty(), "{errors:#?}");
    assert!(report["documents"]
        .as_array()
        .is_some_and(|d| d.len() > 100));
    // The schema has teeth: a document without its path is refused.
    let mut broken = report.clone();
    broken["documents"][0]
        .as_object_mut()
        .expect("a document")
        .remove("path");
    assert!(!validator.is_valid(&broken));
}

#[test]
fn the_output_formats_page_shows_a_report_its_schema_holds() {
    let page = std::fs::read_to_string(book().join("reference/output-formats.md"))
        .expect("docs/src/reference/output-formats.md");
    let start = page
        .find("`--format json` prints one document")
        .expect("the JSON example's lead");
    let block = &page[start..];
    let open = block.find("```json\n").expect("the JSON example") + "```json\n".len();
    let close = block[open..].find("```").expect("its end") + open;
    let example: Value = serde_json::from_str(&block[open..close]).expect("the example is JSON");
    let schema = serde_json::to_value(agui_lint::unstable::render::report_schema())
        .expect("the report's schema");
    let validator = jsonschema::validator_for(&schema).expect("the schema compiles");
    let errors: Vec<String> = validator
        .iter_errors(&example)
        .map(|e| format!("{e} at {}", e.instance_path()))
        .collect();
    assert!(
        errors.is_empty(),
        "the example drifted from the report: {errors:#?}"
    );
}
