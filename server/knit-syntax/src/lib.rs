//! knit-syntax: what a source file declares, and a fingerprint of each declaration.
//!
//! This crate owns the bridge between raw source text and the anchor engine: it picks a
//! compiled-in tree-sitter grammar by file extension ([`Lang`]), walks the tree into
//! [`Declaration`]s with qualified names at any depth, and fingerprints each one from its
//! *parser tokens* (never its text or line numbers). It also extracts imports for the
//! context engine. It performs no I/O: callers hand it `&str`.
//!
//! Adding a language is local: one module under `lang/` exporting a
//! [`lang::LanguageSpec`] descriptor and one row in [`lang::LANGUAGES`].

pub mod decl;
pub mod fingerprint;
pub mod fragment;
pub mod lang;
pub mod similarity;
pub mod visibility;
mod parse_memory;
mod parse_pace;
mod tokens;

pub use decl::{BodyPrint, Declaration, FileSyntax, IdentityKind, Import, Region};
pub use fingerprint::Fingerprint;
pub use fragment::{Fragment, FragmentError, Resolution};
pub use lang::{Lang, Work};

use std::time::{Duration, Instant};

/// Bodies shorter than this never take part in rename/move matching: a confident wrong
/// answer is worse than an honest `lost` (DESIGN 1.2).
pub const MIN_BODY_TOKENS: u32 = 8;

/// Version of the declaration/fingerprint scheme. Bump when tokens or hashing change, or
/// when [`FileSyntax`]'s serialized shape does, so that caches keyed by content are
/// invalidated (baselines carry their own version). 2: `too_deep` and `timed_out`;
/// 3: `over_budget`; 4: grammar-gap repairs (the same text can now parse without errors);
/// 5: export aliases; 6: print scheme 2 (see [`PRINT_SCHEME`]); 7: more grammar-gap
/// repairs (Swift directives, accessors and `case` patterns; `&` in TSX attributes);
/// 8: print scheme 3; 9: Swift macro declarations and more Swift repairs (an
/// initializer's `where` clause continued after a comma, `$` inside identifiers,
/// CasePaths' prefix `/`, attributes over several lines in an attribute-only `#if` group);
/// 10: TypeScript, JavaScript and Swift repairs from elysia, drizzle-orm, TanStack Router,
/// swift-openapi-generator and swift-dependencies, and a second round of repairs;
/// 11: Swift module selectors, `_const`, function types as values, open-range loops and
/// `#available` feature names (swift-testing), auto-accessors after modifiers (Lit),
/// overlapping excised spans merged, `->`, `::` and range operators as one excised token;
/// 12: a function named `open` called in a switch case (swift-testing);
/// 13: Rust macros named like a primitive type (snapbox's `str![…]`, mdBook's tests);
/// 14: Swift strings that start with `/*` (silent gaps: repaired on an error-free tree);
/// 15: such a string is repaired only with a `*/` after it (the parses are the same; the
/// fixtures' digest moved with a fixture's new header lines, and the rule is to bump);
/// 16: `#error`/`#warning` among a Swift type's members (Alamofire), Swift locals named
/// like a modifier (`final = …`) and `consume`/`copy` before a block's `{`
/// (swift-async-algorithms), TypeScript inline import types with a suffix
/// (`import('x').Y[]`, modelcontextprotocol/typescript-sdk), curried generic arrows after
/// `=>`, `let as` and tagged-template type arguments (Effect), print scheme 4;
/// 17: `dual<<K>(…) => …>` as prettier joins it (Effect);
/// 18: Swift keyword members, key paths `\\.!`, range-operator functions and the parse time cap;
/// 19: Kotlin's first repairs (context parameters, multi-dollar strings, `suspend { }`,
/// constructors annotated after the header, `when` guards, names read as keywords,
/// annotated accessors, one-line bodies, empty collection literals: ktor,
/// kotlinx.coroutines, okhttp, Exposed, koin) and an error-free repaired tree preferred
/// to one whose recovery invented declarations;
/// 20: `keyof readonly T` and a one-element optional tuple in a call's type arguments
/// (type-fest), import types in a call's type arguments (vitest's
/// `importActual<typeof import('x')>()`: zustand, redux-toolkit), Swift trailing closures
/// labelled `is:`/`as:` after their brace (swift-snapshot-testing), `canImport` with a
/// version (swift-system), comma-separated associated type lists and optional types in
/// same-type requirements (fluent-kit), Kotlin raw strings ending in quotes and an enum entry named
/// `enum` (ktor), `vararg` class parameters named like a modifier (detekt) and `get`
/// called infix after a block and `when` guards over several lines (Exposed), trailing
/// commas in Kotlin index expressions (koin), members
/// named `abstract` or `accessor` (mikro-orm), and print scheme 5;
/// 21: typed TypeScript `using` declarations (Deno's std), Kotlin names a statement starts
/// with read as an accessor or a modifier (`set = …`, `open = …`: okhttp), locals named
/// `dynamic` (kotlinx.serialization), function types with context parameters, trailing
/// commas in type parameter lists and `@all:` (arrow);
/// 22: Kotlin `get { … }` after a local `val` (ktor), a parameter named `suspend`
/// called (kotlinx.coroutines), annotations over several lines above an accessor, bare
/// accessors, `dynamic` after `->` and `return`, multi-dollar strings after `if (…)`,
/// `else` and `return` (detekt); Swift associated type requirements a line each
/// (swift-nio) and regex literals anchored at their start (swift-testing);
/// 23: Kotlin `suspend` as an argument (kotlinx.coroutines), `suspend ((A) -> B?)` (ktor),
/// and two repairs that misfired: a `;` in a lambda holding only a comment, and a class
/// header on its constructor's line hidden as modifiers (arrow);
/// 24: Swift type aliases' `where` clauses hidden (swift-nio, fluent-kit, TCA), and a
/// declaration followed on its line by a span a repair hid is not read cleanly (the
/// alias; a JavaScript `static` read as a field before a hidden `accessor`);
/// 25: a Kotlin raw string written as one run of quotes (`""""""""`, wire);
/// 26: a nested Kotlin class's primary constructor on the line after its header (ktfmt's
/// layout, kotlinpoet; a block comment may stand between), the line break hidden;
/// 27: Swift 6.2's `nonisolated(nonsending)` on a function type hidden (swift-log);
/// 28: a Kotlin class or object delegating an interface, then a body the grammar read as a
/// lambda passed to the delegate (`: Connection by connection {`: Exposed, coil, ktor,
/// sqldelight), its `by` and delegate hidden (silent gaps now see the tree); one-line
/// object expression bodies (`object : L { override fun on() = false }`); modifier words
/// hidden in a top-level declaration the grammar read as an annotated expression (koin,
/// coil, okhttp).
/// `tests/scheme_pin.rs` fails when extraction changes and this does not.
pub const SCHEME_VERSION: u32 = 28;

/// Version of the rules that turn tokens into fingerprints; declaration baselines record
/// the one they were computed with, so changing what is hashed never turns a recorded
/// anchor stale on unchanged code (an old baseline is compared with a print by its own
/// rules, [`parse_with_print_scheme`]). 1: knit up to 2026-12-01; 2: parentheses around
/// a nested conditional and around types elided where the tree is the same without them
/// (prettier adds and drops them with the line width); 3: Swift's parentheses around a
/// whole `if`/`guard`/`while` condition or `switch` subject elided (swift-format's
/// NoParensAroundConditions removes them); 4: what prettier changes in Effect's
/// TypeScript without changing its meaning (more parentheses, listed on `EcmaRules`, and a
/// regular expression's flag order); 5: TypeScript's type keyword `string` hashed as
/// written, no longer as the string literal `"trin"`.
pub const PRINT_SCHEME: u8 = 5;

/// Declarations nested in declarations deeper than this are not extracted (DESIGN 1.3:
/// `unchecked`, reason `too_deep`). Real code stays far below it — a method in a class
/// in a namespace in a namespace is 4, a deeply nested config object literal perhaps
/// 15 — while every extracted level costs a fingerprint of everything inside it and a
/// qualified name as long as the path to it, so the cap is what keeps a file of 10 000
/// nested object literals linear in time and memory (at most 64 prints per token).
pub const MAX_DECL_DEPTH: u32 = 64;

/// A declaration whose own name is longer than this many bytes is not extracted (its
/// region is `too_deep`): a name is copied into the qualified name of everything
/// nested in it, and no hand-written name comes near this (Kotlin receiver types and
/// Swift argument labels included). Qualified names are thus at most
/// `MAX_DECL_DEPTH × (MAX_NAME_BYTES + 1)` bytes.
pub const MAX_NAME_BYTES: usize = 1024;

/// Qualified and container names stored for one file may take at most this many bytes
/// per source byte (plus [`NAME_BYTES_SLACK`]); declarations past the budget are not
/// extracted. Without it, thousands of tiny members under a long qualified prefix would
/// store that prefix thousands of times. Real files use a fraction of it (a generated
/// enum of short members under a long name: about 10).
pub const NAME_BYTES_PER_SOURCE_BYTE: usize = 32;
/// See [`NAME_BYTES_PER_SOURCE_BYTE`].
pub const NAME_BYTES_SLACK: usize = 64 * 1024;

/// A file yields at most one declaration per this many source bytes (plus
/// [`DECLS_SLACK`]); declarations past it are not extracted (`too_deep` regions). Each
/// declaration costs a few hundred bytes while it is collected, so a 1 MiB file of
/// `let a;` (166 000 declarations) alone took the check past 200 MB. Real code stays far
/// below: at most one declaration per 128 bytes in any file of 16 KiB or more across
/// zod, trpc, ky, swift-collections, ripgrep, httpx and moshi (`knit bench anchors
/// --repo DIR` prints it), a generated enum perhaps one per 10.
pub const SOURCE_BYTES_PER_DECL: usize = 16;
/// See [`SOURCE_BYTES_PER_DECL`].
pub const DECLS_SLACK: usize = 8192;

/// Parses `source` as `lang` and returns its declarations, in file order.
pub fn parse(lang: Lang, source: &str) -> FileSyntax {
    lang::parse(lang, source, None).0
}

/// [`parse`] with the token rules of an earlier [`PRINT_SCHEME`] (the current one for any
/// other value): the prints an old baseline was computed with. Declarations and their
/// order are the same as [`parse`]'s; only fingerprints may differ.
pub fn parse_with_print_scheme(lang: Lang, source: &str, scheme: u8, deadline: Option<Instant>) -> FileSyntax {
    lang::parse_scheme(lang, source, deadline, scheme).0
}

/// Whether `lang`'s prints under print scheme `scheme` can differ from the current ones
/// (only then is a second parse by the old rules worth its cost).
pub fn print_scheme_differs(lang: Lang, scheme: u8) -> bool {
    scheme != PRINT_SCHEME && lang::has_earlier_rules(lang, scheme)
}

/// [`parse`] under a deadline: parsing and extraction stop once `deadline` has passed
/// (checked every few thousand steps, inside the file), and the result is then marked
/// [`FileSyntax::timed_out`] — a file cut short, not a file without declarations.
pub fn parse_with_deadline(lang: Lang, source: &str, deadline: Option<Instant>) -> FileSyntax {
    lang::parse(lang, source, deadline).0
}

/// [`parse`], with counts of the work it did: tests and benchmarks check that cost grows
/// linearly with the input by counting, never by timing.
pub fn parse_counting(lang: Lang, source: &str) -> (FileSyntax, Work) {
    lang::parse(lang, source, None)
}

/// Imports are best effort (a relation of context packs, with no budget of their own):
/// a file whose parse takes longer than this yields none. tree-sitter's error recovery
/// is quadratic on some invalid nesting (140 KB of nested Swift `protocol`s: 3.5 s), and
/// such a file must not stall a pack for minutes. Valid files parse in well under a
/// second per MiB.
pub const IMPORTS_PARSE_LIMIT: Duration = Duration::from_secs(10);

/// How a language's imports can name a file (`./x`, `../x`), for callers that want only
/// those and would rather not parse a file that cannot hold one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PathImports {
    /// Imports name modules (Python, Rust, Swift, Kotlin) or the language is not parsed:
    /// no import is ever a relative path.
    Never,
    /// TypeScript / JavaScript: an import path is a string literal right after `from`,
    /// `import`, or the `(` of a `require(…)` / `import(…)` call (see
    /// `typescript::collect_imports`), give or take whitespace and comments.
    AfterKeyword,
    /// Go: any string literal of an import block may be a path.
    AnyLiteral,
}

/// [`PathImports`] of the language of `path` (by extension; `Never` when knit-syntax does
/// not parse it).
pub fn path_imports(path: &str) -> PathImports {
    match Lang::from_path(path) {
        Some(Lang::TypeScript | Lang::Tsx | Lang::JavaScript) => PathImports::AfterKeyword,
        Some(Lang::Go) => PathImports::AnyLiteral,
        _ => PathImports::Never,
    }
}

/// Imports of a file (module specifiers as written, with their 1-based line), for the
/// context engine's `imports` relation. Empty for unsupported languages, and for a file
/// whose parse outlasts [`IMPORTS_PARSE_LIMIT`].
pub fn imports(path: &str, source: &str) -> Vec<Import> {
    match Lang::from_path(path) {
        Some(lang) => lang::imports(lang, source),
        None => Vec::new(),
    }
}
