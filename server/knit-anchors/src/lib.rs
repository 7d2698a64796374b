//! knit-anchors: the anchor engine.
//!
//! From Markdown docs to a verdict on every anchor: [`markdown`] finds links with exact
//! spans (its one scan of a doc is also where the context engine reads the doc's links),
//! [`target`] says what a destination designates, [`baseline`] encodes the
//! reviewed state kept in the link title, [`engine`] runs the five-stage ladder under a
//! budget, and [`edit`] produces the text edits of record / confirm / rebind. The crate
//! is pure: it reads files only through [`source::SourceTree`] and knows nothing of
//! LSP, JSON-RPC or the disk.

pub mod baseline;
pub mod edit;
pub mod engine;
pub mod markdown;
pub mod model;
pub mod source;
pub mod target;

pub use baseline::Baseline;
pub use edit::TextEdit;
pub use engine::{
    analyze_doc, check, scan_doc, AnchorResult, AnchorTally, BrokenResult, CheckConfig, CheckOptions, Coverage, CoverageTally,
    DocAnalysis, MentionResult, PublicDeclaration, Scope, Session,
};
pub use model::*;
pub use source::{DeclCache, DeclStore, MemTree, ReadError, SourceTree};
pub use target::Target;
