//! JavaScript and JSX (`.js .jsx .mjs .cjs`): one grammar (tree-sitter-javascript parses
//! JSX in every file), the TypeScript walker, token rules and imports (`typescript.rs`).
//!
//! Kinds: `function`, `class`, `method`, `get`, `set`, `property`, `variable` — the
//! TypeScript kinds that exist in JavaScript. Naming as in TypeScript: `Class.method`,
//! object-literal members of a variable (`api.load`), functions and classes nested in
//! function bodies (`outer.inner`), `default` for an anonymous `export default`.
//! Imports: `import … from`, `export … from`, `require("…")` and `import("…")`.
//! Not anchorable yet: CommonJS assignments (`module.exports.f = …`, `exports.f = …`).

use super::typescript::{self, ECMA_RULES, ECMA_RULES_V1, ECMA_RULES_V3};
use super::{gaps, LanguageSpec, Lang, Repair};
use tree_sitter::Node;

pub(crate) static JAVASCRIPT: LanguageSpec = LanguageSpec {
    lang: Lang::JavaScript,
    extensions: &["js", "jsx", "mjs", "cjs"],
    grammar: || tree_sitter_javascript::LANGUAGE.into(),
    kinds: &["function", "class", "method", "get", "set", "property", "variable"],
    rules: &ECMA_RULES,
    earlier_rules: &[(1, &ECMA_RULES_V1), (2, &ECMA_RULES_V3), (3, &ECMA_RULES_V3)],
    declarations: typescript::declarations,
    imports: typescript::collect_imports,
    repairs,
    silent_gaps: super::no_silent_gaps,
    misreadings: super::no_misreadings,
    aliases: typescript::export_aliases,
};

/// The grammar gaps of JavaScript (see `gaps.rs`): auto-accessors, and in JSX reserved
/// words as attribute names and a bare `&` in attribute strings and in text.
fn repairs(root: Node<'_>, src: &str) -> Vec<Repair> {
    let mut out = Vec::new();
    gaps::jsx_reserved_attribute_names(src, &mut out);
    gaps::auto_accessors(src, true, &mut out);
    gaps::tsx_bare_ampersands(src, &mut out);
    gaps::tsx_text_ampersands(src, &typescript::jsx_error_texts(root), &mut out);
    out
}
