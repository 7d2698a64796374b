//! Fuzz target `pack`: the context engine on fuzzed workspace files, queries, focus and
//! history. The harness, and the properties it checks, are in `fuzz/src/pack.rs`; this
//! file only hands libFuzzer's inputs to it.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| knit_fuzz::pack::run(data));
