//! The anchor engine's checking half (DESIGN 1.3–1.4), one file per stage:
//!
//! - [`session`]: a [`Session`] is one check. It reads through the [`SourceTree`] under a
//!   [`Budget`] (`budget`), parses through the shared [`DeclCache`] and dispatches each
//!   anchor to the stage that resolves its kind of target.
//! - [`ladder`]: symbol anchors, the five-stage ladder read top to bottom (same file and
//!   identity, other file, same body renamed, same body elsewhere, lost).
//! - [`repo_index`]: the repository-wide index the ladder's later stages search, built
//!   only when some anchor is not where its link points, and the uniqueness facts a
//!   baseline records.
//! - [`lines`]: line-range anchors and their relocation; [`sections`]: doc sections.
//! - [`links`]: what a doc holds (anchors, plain links, `path:12-40` mentions) and the
//!   checks of plain links and mentions.
//! - [`since`]: what changed since an anchor was reviewed, from the linked file's history.
//! - `coverage`: which public declarations the docs anchor (`knit coverage`).
//! - `symbol_links`: DocC and TSDoc symbol links, resolved (never baselined).
//! - [`analysis`]: the one per-doc analysis every face calls ([`analyze_doc`]);
//!   [`check`](mod@check): the whole-workspace entry point of `knit check` and MCP.
//!
//! Answers that depend on a repository-wide pass that ran out of budget are `unchecked`,
//! never `lost` or a guess.
//!
//! [`SourceTree`]: crate::source::SourceTree
//! [`DeclCache`]: crate::source::DeclCache

pub mod analysis;
mod budget;
pub mod check;
mod coverage;
mod ladder;
mod lines;
mod rebind;
pub mod links;
mod repo_index;
mod routes;
mod sections;
mod suggest;
mod session;
mod symbol_links;
pub mod since;

pub use analysis::{analyze_doc, analyze_scanned, AnchorResult, AnchorTally, BrokenResult, DocAnalysis, MentionResult, Scope};
pub use budget::{Budget, CheckConfig};
pub use check::{check, CheckOptions};
pub use coverage::{Coverage, CoverageTally, PublicDeclaration};
pub use lines::lines_fingerprint;
pub use links::{covering_declaration, scan_doc};
pub use repo_index::{body_unique, body_unique_in_container};
pub use sections::doc_section;
pub use session::Session;
pub use suggest::Suggestion;
pub use symbol_links::SymbolLinkResult;
use ladder::now_of;
pub(crate) use links::mention_suggestion;

use crate::markdown::LineIndex;

/// Strips a UTF-8 byte-order mark: it is not content.
pub(crate) fn strip_bom(s: &str) -> &str {
    s.strip_prefix('\u{feff}').unwrap_or(s)
}

/// 1-based line → byte offset helper re-exported for edit code.
pub fn line_index(src: &str) -> LineIndex {
    LineIndex::new(src)
}
