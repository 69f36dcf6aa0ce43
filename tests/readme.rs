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
    assert!(ci.lines().any(|l| l == ".ci/action-test.sh"));
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
    let words = ["No test is", "One is", "Two are", "Three are", "Four are"];
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
