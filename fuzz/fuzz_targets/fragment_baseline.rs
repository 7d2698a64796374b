//! Fuzz target `fragment_baseline`: symbol fragments, line fragments and link-title baselines parsed from arbitrary text.
//! The harness, and the properties it checks, are in `fuzz/src/fragment_baseline.rs`; this file only
//! hands libFuzzer's inputs to it.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| knit_fuzz::fragment_baseline::run(data));
