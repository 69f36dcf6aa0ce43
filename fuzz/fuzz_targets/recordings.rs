//! Fuzz target: see `agui_lint::fuzzing::recordings`.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| agui_lint::fuzzing::recordings(data));
