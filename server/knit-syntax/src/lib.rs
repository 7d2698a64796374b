//! knit-syntax: what a source file declares, and a fingerprint of each declaration.
//!
//! This crate owns the bridge between raw source text and the anchor engine: it picks a
//! compiled-in tree-sitter grammar by file extension ([`Lang`]), walks the tree into
//! [`Declaration`]s with qualified names at any depth, and fingerprints each one from its
//! *parser tokens* (never its text or line numbers). It also extracts imports for the
//! context engine. It performs no I/O: callers hand it `&str`.
//!
//! Adding a language is local: one module under `lang/` implementing
//! [`lang::LanguageSpec`] and one row in [`lang::LANGUAGES`].

pub mod decl;
pub mod fingerprint;
pub mod fragment;
pub mod lang;
mod tokens;

pub use decl::{BodyPrint, Declaration, FileSyntax, IdentityKind, Import};
pub use fingerprint::Fingerprint;
pub use fragment::{Fragment, FragmentError, Resolution};
pub use lang::Lang;

/// Bodies shorter than this never take part in rename/move matching: a confident wrong
/// answer is worse than an honest `lost` (DESIGN 1.2).
pub const MIN_BODY_TOKENS: u32 = 8;

/// Version of the declaration/fingerprint scheme. Bump when tokens or hashing change so
/// that caches keyed by content are invalidated (baselines carry their own version).
pub const SCHEME_VERSION: u32 = 1;

/// Parses `source` as `lang` and returns its declarations, in file order.
pub fn parse(lang: Lang, source: &str) -> FileSyntax {
    lang::parse(lang, source)
}

/// Imports of a file (module specifiers as written, with their 1-based line), for the
/// context engine's `imports` relation. Empty for unsupported languages.
pub fn imports(path: &str, source: &str) -> Vec<Import> {
    match Lang::from_path(path) {
        Some(lang) => lang::imports(lang, source),
        None => Vec::new(),
    }
}
