//! Fuzz target: see `agui_lint::fuzzing::differential`. The fast path
//! and the full path must agree on every input, with each protocol
//! version (pre-1.0, 1.0, 1.1) as the configured default; and an event
//! the fast path reads as clean is one the full path reports nothing about
//! (`agui_lint::fuzzing::event_differential`).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    agui_lint::fuzzing::differential(data);
    agui_lint::fuzzing::event_differential(data);
});
