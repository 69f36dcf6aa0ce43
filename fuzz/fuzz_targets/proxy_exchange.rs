//! Fuzz target: see `agui_lint::fuzzing::proxy_exchange`.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| agui_lint::fuzzing::proxy_exchange(data));
