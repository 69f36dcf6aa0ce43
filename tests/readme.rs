//! The README describes this repository: every file it links or names as a
//! path exists here, it names the protocol reference it judges by, and it
//! points at nothing outside the repository.

use std::path::Path;

fn readme() -> String {
    std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).expect("README.md")
}

#[test]
fn every_relative_link_in_the_readme_exists() {
    let text = readme();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut checked = 0;
    for (at, _) in text.match_indices("](") {
        let rest = &text[at + 2..];
        let target = &rest[..rest.find(')').expect("a closed link")];
        if target.contains("://") || target.starts_with('#') {
            continue;
        }
        let path = target.split('#').next().unwrap_or_default();
        assert!(
            root.join(path).exists(),
            "README links {target}, which is missing"
        );
        checked += 1;
    }
    assert!(checked >= 7, "only {checked} relative links found");
}

#[test]
fn the_readme_names_its_reference_and_nothing_outside_the_repository() {
    let text = readme();
    assert!(text.contains("pre-1.0 Types reference"));
    for outside in ["DESIGN.md", "STYLE.md", "../shared", "/work/"] {
        assert!(!text.contains(outside), "README mentions {outside}");
    }
    // The test command of the quick start is the one CI runs.
    let ci =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/.ci/run")).expect(".ci/run");
    assert!(text.contains("cargo test --all-features --locked"));
    assert!(ci
        .lines()
        .any(|l| l == "cargo test --all-features --locked"));
    assert!(ci.lines().any(|l| l == "step .ci/action-test.sh"));
}

#[test]
fn the_readme_says_how_many_tests_are_ignored_and_where() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut ignored = Vec::new();
    for entry in std::fs::read_dir(root.join("tests")).expect("tests/") {
        let path = entry.expect("entry").path();
        if path.extension().is_some_and(|e| e == "rs") {
            let text = std::fs::read_to_string(&path).expect("test file");
            let name = format!(
                "tests/{}",
                path.file_name().expect("name").to_string_lossy()
            );
            ignored.extend(
                text.lines()
                    .filter(|l| l.trim_start().starts_with("#[ignore"))
                    .map(|_| name.clone()),
            );
        }
    }
    let words = [
        "No test is",
        "One is",
        "Two are",
        "Three are",
        "Four are",
        "Five are",
        "Six are",
        "Seven are",
        "Eight are",
        "Nine are",
        "Ten are",
    ];
    let said = words
        .get(ignored.len())
        .unwrap_or_else(|| panic!("{} ignored tests: name the count", ignored.len()));
    let text = readme().replace('\n', " ");
    assert!(
        text.contains(&format!("{said} `#[ignore]`d on purpose")),
        "the README must say \"{said} `#[ignore]`d on purpose\" ({ignored:?})"
    );
    for file in &ignored {
        assert!(
            text.contains(&format!("`{file}`")),
            "the README must name {file}"
        );
    }
}

/// The files a user reads to install or run agui-lint: the docs, the
/// package metadata, the Action and the workflows.
const USER_FACING: &[&str] = &[
    "README.md",
    "docs/src/getting-started.md",
    "docs/src/guides/ci.md",
    "docs/src/guides/github-action.md",
    "python/README.md",
    "python/pyproject.toml",
    "python/Cargo.toml",
    "node/README.md",
    "node/package.json",
    "node/Cargo.toml",
    "action.yml",
    "action/install.sh",
    "action/run.sh",
    ".github/workflows/release.yml",
    ".github/workflows/ci.yml",
    ".pre-commit-hooks.yaml",
    "BENCHMARKS.md",
];

#[test]
fn the_project_home_is_written_once_and_every_file_uses_it() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let manifest = std::fs::read_to_string(root.join("Cargo.toml")).expect("Cargo.toml");
    let home = manifest
        .lines()
        .find_map(|l| l.strip_prefix("repository = \""))
        .and_then(|l| l.strip_suffix('"'))
        .expect("Cargo.toml names its repository");
    let (_, slug) = home
        .split_once("https://github.com/")
        .expect("a GitHub repository");
    assert_eq!(manifest.matches(home).count(), 1, "Cargo.toml repeats it");
    let mut uses = 0;
    for name in USER_FACING {
        let text = std::fs::read_to_string(root.join(name)).expect(name);
        for placeholder in ["OWNER", "<owner>", "your-org", "example/agui-lint"] {
            assert!(!text.contains(placeholder), "{name} says {placeholder}");
        }
        // Every GitHub URL or `uses:` line naming an agui-lint repository
        // names this one.
        for line in text.lines() {
            let named = line
                .split("github.com/")
                .skip(1)
                .chain(line.split("uses: ").skip(1))
                .map(|rest| {
                    rest.split(['@', ' ', ')', '"', '#'])
                        .next()
                        .unwrap_or_default()
                })
                .filter(|repo| repo.ends_with("/agui-lint") || repo.contains("/agui-lint/"));
            for repo in named {
                let repo = repo.split('/').take(2).collect::<Vec<_>>().join("/");
                assert_eq!(repo, slug, "{name}: {line}");
                uses += 1;
            }
        }
    }
    assert!(uses >= 8, "only {uses} mentions of the repository found");
}

#[test]
fn the_quick_start_prints_a_summary_a_person_can_read() {
    let text = readme();
    let start = text.find("## Quick start").expect("a quick start");
    let command = text[start..]
        .lines()
        .filter(|l| l.contains("--summary"))
        .find_map(|l| l.strip_prefix("cargo run --release -- "))
        .expect("the quick start's command");
    let args: Vec<&str> = command.split_whitespace().collect();
    assert!(args.contains(&"--summary"), "{command}");
    let run = assert_cmd::cargo::cargo_bin_cmd!("agui-lint")
        .args(&args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("run agui-lint");
    assert_eq!(
        run.status.code(),
        Some(1),
        "the corpus holds invalid fixtures"
    );
    let stdout = String::from_utf8_lossy(&run.stdout);
    let lines = stdout.lines().count();
    assert!(lines <= 150, "{lines} lines");
    assert!(stdout
        .lines()
        .last()
        .is_some_and(|l| l.contains("documents checked")));
    assert!(stdout.contains("missing-field"), "per-rule counts");
    // The full list is one flag away.
    let without: Vec<&str> = args.iter().copied().filter(|a| *a != "--summary").collect();
    let full = assert_cmd::cargo::cargo_bin_cmd!("agui-lint")
        .args(&without)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("run agui-lint");
    let full = String::from_utf8_lossy(&full.stdout);
    assert!(
        full.lines().count() > 4 * lines,
        "the full report is longer"
    );
    assert!(full.contains("error["));
}

/// The quick start's first run is shown with its output, which is the
/// binary's output to the byte: the findings a newcomer reads first are the
/// ones they will see.
#[test]
fn the_quick_starts_first_run_shows_what_the_binary_prints() {
    let text = readme();
    let start = text.find("## Quick start").expect("a quick start");
    let quick = &text[start..];
    let command = quick
        .lines()
        .find_map(|l| l.strip_prefix("cargo run --release -- "))
        .expect("the first run's command");
    let shown = quick
        .split("<!-- first-run output -->\n```text\n")
        .nth(1)
        .and_then(|rest| rest.split("```").next())
        .expect("the first run's output block");
    let run = assert_cmd::cargo::cargo_bin_cmd!("agui-lint")
        .args(command.split_whitespace())
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("run agui-lint");
    assert_eq!(run.status.code(), Some(1), "it has errors");
    let printed = String::from_utf8_lossy(&run.stdout);
    assert_eq!(shown, printed, "the README's output is stale");
    // A handful of findings, each explained below the output.
    let rules: std::collections::BTreeSet<&str> = printed
        .lines()
        .filter_map(|l| {
            ["error[", "warning[", "info["]
                .iter()
                .find_map(|sev| l.split_once(&format!(": {sev}")))
                .and_then(|(_, rest)| rest.split_once(']'))
                .map(|(rule, _)| rule)
        })
        .collect();
    assert!((3..=6).contains(&rules.len()), "{rules:?}");
    for rule in rules {
        assert!(
            quick.contains(&format!("**`{rule}`**")),
            "{rule} is not explained"
        );
    }
}
