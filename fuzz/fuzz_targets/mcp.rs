//! Fuzz target `mcp`: `knit mcp` sessions on arbitrary lines, tools/call arguments included.
//! The harness, and the properties it checks, are in `fuzz/src/mcp.rs`; this file only
//! hands libFuzzer's inputs to it.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| knit_fuzz::mcp::run(data));
