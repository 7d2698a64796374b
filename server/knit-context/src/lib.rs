//! knit-context: the context engine of knit (DESIGN section 4).
//!
//! For the task in front of a user or a coding agent — an explicit query, a conversation, or
//! the open editor buffers — it returns the few workspace files worth reading first, in
//! three tiers (primary / supporting / related) with checkable reasons, from a persistent
//! tantivy index of the workspace. Local only: no model, no network, no workspace code run.
//!
//! Entry point: [`ContextEngine`]. Module map:
//! - [`analysis`]: text → terms (identifiers, words, CJK n-grams), shared by index and task;
//! - [`classify`]: path → kind / role / noise;
//! - [`markdown`]: titles, summaries, link destinations (from the anchor engine's scan);
//! - [`passages`]: files → line-range passages;
//! - [`index`]: the tantivy index and BM25F scoring;
//! - [`task`]: request → weighted, IDF-selected terms;
//! - [`relations`]: references / documents / imports / tests;
//! - [`cochange`]: files changed together in git history;
//! - [`symbols`]: identifiers declared in one file and used in another;
//! - [`signals`]: the evidence lists of one task (lexical, co-change, imports, tests,
//!   anchors, shared identifiers);
//! - [`fusion`]: weighted reciprocal-rank fusion of those lists;
//! - [`tiers`]: the pure tier assembly;
//! - [`control`]: pins, exclusions, read evidence, epochs;
//! - [`fsio`]: every file-system access;
//! - [`wire`]: the `knit/contextPack` shapes;
//! - [`anchor_facts`]: doc freshness from the anchor engine.

pub mod analysis;
pub mod anchor_facts;
pub mod classify;
pub mod cochange;
pub mod control;
pub mod engine;
pub mod fsio;
pub mod fusion;
pub mod index;
pub mod markdown;
pub mod passages;
pub mod relations;
pub mod signals;
pub mod symbols;
pub mod task;
pub mod tiers;
pub mod wire;

pub use anchor_facts::TreeAnchorFacts;
pub use classify::{Kind, Role};
pub use engine::{AnchorFacts, ContextEngine, EngineOptions, IndexStats, NoAnchorFacts, RankedFile, Ranking, RefreshReport};
pub use index::ImportRef;
pub use relations::ImportExtractor;
pub use task::{OpenBuffer, TaskInput};
pub use wire::{AnchorCounts, Focus, Item, Lifecycle, PackParams, PackResult, Position, QueryParam};
