//! `agui-lint-baseline FILE lines|sse`: reads FILE into one buffer, splits
//! its records without allocating (each non-empty line, or each `data: `
//! line of an event stream), and parses each into serde_json's default
//! `Value` on one thread. Prints how many records parsed and how many did
//! not, so that a wrong split shows.

use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().collect();
    let (Some(path), Some(records)) = (args.get(1), args.get(2)) else {
        eprintln!("usage: agui-lint-baseline FILE lines|sse");
        return ExitCode::from(2);
    };
    let sse = match records.as_str() {
        "lines" => false,
        "sse" => true,
        other => {
            eprintln!("agui-lint-baseline: records are lines or sse, not {other}");
            return ExitCode::from(2);
        }
    };
    let bytes = match std::fs::read(path) {
        Ok(bytes) => bytes,
        Err(e) => {
            eprintln!("agui-lint-baseline: {path}: {e}");
            return ExitCode::from(2);
        }
    };
    let (mut parsed, mut failed) = (0usize, 0usize);
    let mut start = 0;
    for end in memchr::memchr_iter(b'\n', &bytes).chain(std::iter::once(bytes.len())) {
        let line = &bytes[start..end];
        start = end + 1;
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        let record = if sse {
            match line.strip_prefix(b"data: ") {
                Some(data) => data,
                None => continue,
            }
        } else {
            line
        };
        if record.is_empty() {
            continue;
        }
        match serde_json::from_slice::<serde_json::Value>(record) {
            Ok(value) => {
                parsed += 1;
                std::hint::black_box(value);
            }
            Err(_) => failed += 1,
        }
    }
    println!("{parsed} parsed, {failed} not JSON");
    ExitCode::SUCCESS
}
