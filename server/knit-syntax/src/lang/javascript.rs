//! JavaScript and JSX (`.js .jsx .mjs .cjs`): one grammar (tree-sitter-javascript parses
//! JSX in every file), the TypeScript walker, token rules and imports (`typescript.rs`).
//!
//! Kinds: `function`, `class`, `method`, `get`, `set`, `property`, `variable` — the
//! TypeScript kinds that exist in JavaScript. Naming as in TypeScript: `Class.method`,
//! object-literal members of a variable (`api.load`), functions and classes nested in
//! function bodies (`outer.inner`), `default` for an anonymous `export default`.
//! Imports: `import … from`, `export … from`, `require("…")` and `import("…")`.
//! Not anchorable yet: CommonJS assignments (`module.exports.f = …`, `exports.f = …`).

use super::typescript::{self, EcmaRules};
use super::{Extract, LanguageSpec, Lang};
use crate::decl::Import;
use crate::tokens::TokenRules;
use tree_sitter::Node;

pub(crate) struct JavaScript;

const KINDS: &[&str] = &["function", "class", "method", "get", "set", "property", "variable"];

impl LanguageSpec for JavaScript {
    fn lang(&self) -> Lang {
        Lang::JavaScript
    }
    fn extensions(&self) -> &'static [&'static str] {
        &["js", "jsx", "mjs", "cjs"]
    }
    fn grammar(&self) -> tree_sitter::Language {
        tree_sitter_javascript::LANGUAGE.into()
    }
    fn declarations(&self, x: &mut Extract<'_, '_>, root: Node<'_>) {
        typescript::declarations(x, root);
    }
    fn imports(&self, root: Node<'_>, src: &str) -> Vec<Import> {
        typescript::collect_imports(root, src)
    }
    fn rules(&self) -> &dyn TokenRules {
        &EcmaRules
    }
    fn kinds(&self) -> &'static [&'static str] {
        KINDS
    }
}
