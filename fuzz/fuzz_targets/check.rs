//! Fuzz target `check`: a whole in-memory check and record of a fuzzed doc against a fuzzed source file.
//! The harness, and the properties it checks, are in `fuzz/src/check.rs`; this file only
//! hands libFuzzer's inputs to it.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| knit_fuzz::check::run(data));
