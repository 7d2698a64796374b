//! The harnesses of knit's fuzz targets, one module per target: each `run(&[u8])`
//! exercises one input surface and panics when a property fails. The libFuzzer binaries
//! under `fuzz_targets/` only call these, and `tests/fuzz_replay.rs` (stable, plain
//! `cargo test`) includes the same files to replay every committed corpus seed and
//! regression, so a crash once found keeps being tested without a nightly toolchain.

pub mod check;
pub mod common;
pub mod fragment_baseline;
pub mod lsp_framing;
pub mod lsp_session;
pub mod markdown;
pub mod mcp;
pub mod pack;
pub mod syntax;
