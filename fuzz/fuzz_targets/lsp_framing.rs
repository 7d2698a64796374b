//! Fuzz target `lsp_framing`: the language server's input framing and sanitising pump.
//! The harness, and the properties it checks, are in `fuzz/src/lsp_framing.rs`; this file only
//! hands libFuzzer's inputs to it.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| knit_fuzz::lsp_framing::run(data));
