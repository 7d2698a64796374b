//! Fuzz target `syntax`: declarations, fingerprints and imports of all 8 languages (first byte picks the language).
//! The harness, and the properties it checks, are in `fuzz/src/syntax.rs`; this file only
//! hands libFuzzer's inputs to it.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| knit_fuzz::syntax::run(data));
