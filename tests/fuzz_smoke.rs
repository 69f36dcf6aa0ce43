//! A short run of every fuzz target's entry point (`agui_lint::fuzzing`),
//! seeded from the fixtures and mutated deterministically: the same code
//! libFuzzer drives under `fuzz/` (see the README for long runs), here on
//! every `cargo test`. Each input must be handled without a panic.

use std::path::Path;

use agui_lint::fuzzing;

/// Deterministic mutations of `seed`: bit flips, truncations, byte
/// insertions and duplications, as a fuzzer would start with.
fn mutations(seed: &[u8], state: &mut u64, count: usize) -> Vec<Vec<u8>> {
    let mut next = || {
        *state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (*state >> 33) as usize
    };
    let interesting: &[&[u8]] = &[
        b"\"",
        b"\\",
        b"\\ud800",
        b"{",
        b"}",
        b"[",
        b"]",
        b"\n",
        b"\r\n",
        b"\0",
        b"\xff",
        b"\xef\xbb\xbf",
        b"data: ",
        b"1e999",
        b"-0",
        b"null",
        b",",
        b":",
    ];
    (0..count)
        .map(|_| {
            let mut bytes = seed.to_vec();
            for _ in 0..1 + next() % 4 {
                let at = if bytes.is_empty() {
                    0
                } else {
                    next() % bytes.len()
                };
                match next() % 5 {
                    0 if !bytes.is_empty() => bytes[at] ^= 1 << (next() % 8),
                    1 => bytes.truncate(at),
                    2 => {
                        let piece = interesting[next() % interesting.len()];
                        bytes.splice(at..at, piece.iter().copied());
                    }
                    3 if !bytes.is_empty() => {
                        let end = (at + next() % 64).min(bytes.len());
                        let copy = bytes[at..end].to_vec();
                        bytes.splice(at..at, copy);
                    }
                    _ => {
                        if at < bytes.len() {
                            bytes.remove(at);
                        }
                    }
                }
            }
            bytes
        })
        .collect()
}

fn seeds() -> Vec<Vec<u8>> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures");
    let mut seeds: Vec<Vec<u8>> = walkdir::WalkDir::new(root)
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_file())
        .filter_map(|e| std::fs::read(e.path()).ok())
        .collect();
    seeds.sort();
    seeds.push(Vec::new());
    seeds
}

#[test]
fn fuzz_targets_handle_mutated_fixtures() {
    let seeds = seeds();
    assert!(seeds.len() > 100);
    let mut state = 0x5eed;
    let mut inputs = 0;
    for seed in &seeds {
        for input in std::iter::once(seed.clone()).chain(mutations(seed, &mut state, 6)) {
            fuzzing::validate(&input);
            fuzzing::readers(&input);
            fuzzing::tool_parameters(&input);
            fuzzing::differential(&input);
            fuzzing::har(&input);
            fuzzing::probe_response(&input);
            fuzzing::kit_exchange(&input);
            fuzzing::proto(&input);
            fuzzing::recordings(&input);
            fuzzing::proxy_exchange(&input);
            fuzzing::stream(&input);
            fuzzing::guard_body(&input);
            let mut call = input.clone();
            call.extend_from_slice(b"\0{\"a\": [1, 2]}");
            fuzzing::tool_arguments(&call);
            let mut located = b"/messages/0/role\n".to_vec();
            located.extend_from_slice(&input);
            fuzzing::locate(&located);
            inputs += 1;
        }
    }
    assert!(inputs > 700, "{inputs} inputs");
}
