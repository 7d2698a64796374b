//! Fuzz target `markdown`: Markdown scanning of docs (anchor engine scan, per-doc engine work, context-engine Markdown helpers).
//! The harness, and the properties it checks, are in `fuzz/src/markdown.rs`; this file only
//! hands libFuzzer's inputs to it.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| knit_fuzz::markdown::run(data));
