//! Fuzz target `lsp_session`: arbitrary bytes into a real in-process language server after a valid initialize.
//! The harness, and the properties it checks, are in `fuzz/src/lsp_session.rs`; this file only
//! hands libFuzzer's inputs to it.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| knit_fuzz::lsp_session::run(data));
