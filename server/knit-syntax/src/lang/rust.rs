//! Rust: declarations, token rules and imports.
//!
//! Kinds: `function` (free or nested in a function body), `method` (in an `impl` or a
//! `trait`, with or without a body), `struct`, `enum`, `union`, `variant` (enum variant),
//! `field` (named struct/union field), `trait`, `impl`, `mod`, `const`, `static`, `type`
//! (type alias, associated type), `macro` (`macro_rules!`).
//!
//! Naming:
//! - `impl` members are `Type.member`, trait impls included (`impl Display for Foo { fn
//!   fmt }` → `Foo.fmt`); the type is the last path segment without generic arguments
//!   (`impl<T> fmt::Display for crate::a::Foo<T>` names `Foo`).
//! - The `impl` block itself is a declaration of kind `impl` named by its type: the bare
//!   name `Foo` then designates the struct *and* its impls (ambiguous, as a Swift
//!   `extension`), so a fragment says `struct:Foo`, `impl:Foo` (one impl) or `impl:Foo~2`
//!   (the second impl of `Foo` in file order). An impl's members are its `members`: a
//!   changed method makes the impl anchor stale and names the method.
//! - Methods of several impls of one type share a name (`Foo.fmt` of `Display` and of
//!   `Debug`): `Foo.fmt~2` / `method:Foo.fmt~2`.
//! - `trait Tr { fn m(); type Out; }` → `Tr`, `Tr.m`, `Tr.Out`; `mod a { fn f() }` →
//!   `a`, `a.f` (an out-of-line `mod a;` is a `mod` declaration without body); enum
//!   variants `E.A`, named fields `S.a`; items nested in a function body `outer.inner`.
//! - `extern { … }` blocks are transparent (their functions are free functions).
//!
//! Outer attributes (`#[derive(…)]`, `#[cfg(…)]`) belong to the declaration's tokens (a
//! changed attribute is a change) but never to its identity. Doc comments are comments:
//! dropped. Not anchorable: tuple-struct fields, items produced by macros, `impl` blocks
//! inside function bodies.
//!
//! Token rules (rustfmt invisible): comments dropped, trailing commas (generic), the
//! `;` rustfmt adds after a trailing `return`/`break`/`continue`, and the match-arm
//! layout rustfmt rewrites — `=> { expr }` is `=> expr`, the arm's `,` carries nothing.
//!
//! Imports: every `use` path, lists expanded (`use crate::a::{B, c::D}` →
//! `crate::a::B`, `crate::a::c::D`; `self` → the list's prefix; globs kept as `a::*`;
//! aliases give the original path), `mod name;` → `name`, `extern crate x;` → `x`.

use super::{children, named_children, DeclSpec, Extract, LanguageSpec, Lang};
use crate::decl::{IdentityKind, Import};
use crate::tokens::{is_comment, NodeRule, TokenRules};
use tree_sitter::Node;

pub(crate) struct Rust;

const KINDS: &[&str] = &[
    "function", "method", "struct", "enum", "union", "variant", "field", "trait", "impl", "mod", "const", "static",
    "type", "macro",
];

impl LanguageSpec for Rust {
    fn lang(&self) -> Lang {
        Lang::Rust
    }
    fn extensions(&self) -> &'static [&'static str] {
        &["rs"]
    }
    fn grammar(&self) -> tree_sitter::Language {
        tree_sitter_rust::LANGUAGE.into()
    }
    fn declarations(&self, x: &mut Extract<'_>, root: Node<'_>) {
        items(x, root, None, Place::Module);
    }
    fn imports(&self, root: Node<'_>, src: &str) -> Vec<Import> {
        collect_imports(root, src)
    }
    fn rules(&self) -> &dyn TokenRules {
        &RustRules
    }
    fn kinds(&self) -> &'static [&'static str] {
        KINDS
    }
}

/// Where an item list sits: decides `function` vs `method`.
#[derive(Clone, Copy, PartialEq)]
enum Place {
    Module,
    /// `impl` or `trait` body.
    Associated,
    FunctionBody,
}

fn items(x: &mut Extract<'_>, list: Node<'_>, container: Option<&str>, place: Place) {
    let mut attrs: Vec<Node> = Vec::new();
    for child in children(list) {
        if !child.is_named() || is_comment(child) {
            continue;
        }
        if child.kind() == "attribute_item" {
            attrs.push(child);
            continue;
        }
        let mut nodes = std::mem::take(&mut attrs);
        nodes.push(child);
        item(x, child, nodes, container, place);
    }
}

fn item<'t>(x: &mut Extract<'_>, node: Node<'t>, nodes: Vec<Node<'t>>, container: Option<&str>, place: Place) {
    let name_node = node.child_by_field_name("name");
    let body = node.child_by_field_name("body");
    let named = |kind: &'static str, identity: IdentityKind, body: Option<Node<'t>>| {
        name_node.map(|nn| DeclSpec { kind, identity, name: x.text(nn).to_string(), nodes: nodes.clone(), name_node: Some(nn), body })
    };
    match node.kind() {
        "function_item" | "function_signature_item" => {
            let kind = if place == Place::Associated { "method" } else { "function" };
            let Some(d) = named(kind, IdentityKind::Callable, body) else { return };
            let qn = x.add(container, d);
            if let Some(b) = body {
                items(x, b, Some(&qn), Place::FunctionBody);
            }
        }
        "struct_item" | "union_item" => {
            let kind = if node.kind() == "struct_item" { "struct" } else { "union" };
            let Some(d) = named(kind, IdentityKind::Type, body) else { return };
            let qn = x.add(container, d);
            if let Some(b) = body.filter(|b| b.kind() == "field_declaration_list") {
                fields(x, b, &qn);
            }
        }
        "enum_item" => {
            let Some(d) = named("enum", IdentityKind::Type, body) else { return };
            let qn = x.add(container, d);
            if let Some(b) = body {
                let mut attrs: Vec<Node> = Vec::new();
                for v in named_children(b) {
                    if v.kind() == "attribute_item" {
                        attrs.push(v);
                        continue;
                    }
                    let mut vnodes = std::mem::take(&mut attrs);
                    if v.kind() != "enum_variant" {
                        continue;
                    }
                    vnodes.push(v);
                    let Some(vn) = v.child_by_field_name("name") else { continue };
                    let vbody = v.child_by_field_name("body").or_else(|| v.child_by_field_name("value"));
                    x.add(
                        Some(&qn),
                        DeclSpec {
                            kind: "variant",
                            identity: IdentityKind::Value,
                            name: x.text(vn).to_string(),
                            nodes: vnodes,
                            name_node: Some(vn),
                            body: vbody,
                        },
                    );
                }
            }
        }
        "trait_item" => {
            let Some(d) = named("trait", IdentityKind::Type, body) else { return };
            let qn = x.add(container, d);
            if let Some(b) = body {
                items(x, b, Some(&qn), Place::Associated);
            }
        }
        "impl_item" => {
            if place == Place::FunctionBody {
                return;
            }
            let Some(ty) = node.child_by_field_name("type") else { return };
            let Some(tn) = type_name_node(ty) else { return };
            let qn = x.add(
                container,
                DeclSpec {
                    kind: "impl",
                    identity: IdentityKind::Type,
                    name: x.text(tn).to_string(),
                    nodes,
                    name_node: Some(tn),
                    body,
                },
            );
            if let Some(b) = body {
                items(x, b, Some(&qn), Place::Associated);
            }
        }
        "mod_item" => {
            let Some(d) = named("mod", IdentityKind::Module, body) else { return };
            let qn = x.add(container, d);
            if let Some(b) = body {
                items(x, b, Some(&qn), Place::Module);
            }
        }
        "foreign_mod_item" => {
            if let Some(b) = body {
                items(x, b, container, place);
            }
        }
        "const_item" | "static_item" => {
            let kind = if node.kind() == "const_item" { "const" } else { "static" };
            let value = node.child_by_field_name("value");
            if let Some(d) = named(kind, IdentityKind::Value, value) {
                x.add(container, d);
            }
        }
        "type_item" | "associated_type" => {
            let value = node.child_by_field_name("type");
            if let Some(d) = named("type", IdentityKind::Type, value) {
                x.add(container, d);
            }
        }
        "macro_definition" => {
            // No body field: the rules (everything after the name) are the body.
            if let Some(d) = named("macro", IdentityKind::Callable, Some(node)) {
                x.add(container, d);
            }
        }
        _ => {}
    }
}

fn fields(x: &mut Extract<'_>, list: Node<'_>, container: &str) {
    let mut attrs: Vec<Node> = Vec::new();
    for f in named_children(list) {
        if f.kind() == "attribute_item" {
            attrs.push(f);
            continue;
        }
        let mut nodes = std::mem::take(&mut attrs);
        if f.kind() != "field_declaration" {
            continue;
        }
        nodes.push(f);
        let Some(n) = f.child_by_field_name("name") else { continue };
        x.add(
            Some(container),
            DeclSpec {
                kind: "field",
                identity: IdentityKind::Value,
                name: x.text(n).to_string(),
                nodes,
                name_node: Some(n),
                body: f.child_by_field_name("type"),
            },
        );
    }
}

/// The name token of an impl's self type: `Foo` in `Foo<T>`, `a::Foo`, `&mut Foo`.
fn type_name_node(ty: Node<'_>) -> Option<Node<'_>> {
    let mut n = ty;
    loop {
        n = match n.kind() {
            "type_identifier" | "primitive_type" => return Some(n),
            "generic_type" => n.child_by_field_name("type")?,
            "scoped_type_identifier" => n.child_by_field_name("name")?,
            "reference_type" | "pointer_type" => n.child_by_field_name("type")?,
            _ => return None,
        };
    }
}

pub(crate) struct RustRules;

impl TokenRules for RustRules {
    fn rule(&self, node: Node, _src: &str) -> NodeRule {
        if is_comment(node) {
            return NodeRule::Skip;
        }
        match node.kind() {
            // rustfmt adds `;` after a trailing `return`/`break`/`continue`: both diverge.
            ";" if node.parent().is_some_and(|p| {
                p.kind() == "expression_statement"
                    && p.named_child(0)
                        .is_some_and(|e| matches!(e.kind(), "return_expression" | "break_expression" | "continue_expression"))
            }) =>
            {
                NodeRule::Skip
            }
            // Arms are separated by `,` or by a block body; rustfmt moves between the two.
            "," if node.parent().is_some_and(|p| p.kind() == "match_arm") => NodeRule::Skip,
            "block" if arm_block_is_expression(node) => NodeRule::DropDelimiters,
            _ => NodeRule::Descend,
        }
    }
}

/// `=> { expr }`: a match arm's block holding one trailing expression and nothing else.
fn arm_block_is_expression(block: Node) -> bool {
    let Some(parent) = block.parent() else { return false };
    if parent.kind() != "match_arm" || parent.child_by_field_name("value").map(|v| v.id()) != Some(block.id()) {
        return false;
    }
    let mut c = block.walk();
    let kids: Vec<Node> = block.named_children(&mut c).collect();
    // A comment inside the block keeps the braces (rustfmt keeps them too).
    let [only] = kids.as_slice() else { return false };
    !matches!(only.kind(), "expression_statement" | "let_declaration" | "empty_statement")
        && !only.kind().ends_with("_item")
        && !only.kind().contains("comment")
}

fn collect_imports(root: Node, src: &str) -> Vec<Import> {
    let mut out = Vec::new();
    let mut stack = vec![root];
    while let Some(node) = stack.pop() {
        let line = node.start_position().row as u32 + 1;
        match node.kind() {
            "use_declaration" => {
                if let Some(arg) = node.child_by_field_name("argument") {
                    let mut paths = Vec::new();
                    use_paths(arg, src, "", &mut paths);
                    out.extend(paths.into_iter().map(|specifier| Import { specifier, line }));
                }
                continue;
            }
            "mod_item" if node.child_by_field_name("body").is_none() => {
                if let Some(n) = node.child_by_field_name("name") {
                    out.push(Import { specifier: text(n, src), line });
                }
                continue;
            }
            "extern_crate_declaration" => {
                if let Some(n) = node.child_by_field_name("name") {
                    out.push(Import { specifier: text(n, src), line });
                }
                continue;
            }
            _ => {}
        }
        let kids: Vec<Node> = node.children(&mut node.walk()).collect();
        stack.extend(kids.into_iter().rev());
    }
    out.sort_by_key(|i| i.line);
    out
}

fn text(n: Node, src: &str) -> String {
    src.get(n.byte_range()).unwrap_or("").split_whitespace().collect()
}

fn join(prefix: &str, tail: &str) -> String {
    if prefix.is_empty() {
        tail.to_string()
    } else if tail.is_empty() {
        prefix.to_string()
    } else {
        format!("{prefix}::{tail}")
    }
}

/// Expands one `use` tree into full paths.
fn use_paths(node: Node, src: &str, prefix: &str, out: &mut Vec<String>) {
    match node.kind() {
        "scoped_use_list" => {
            let path = node.child_by_field_name("path").map(|p| text(p, src)).unwrap_or_default();
            let prefix = join(prefix, &path);
            if let Some(list) = node.child_by_field_name("list") {
                use_paths(list, src, &prefix, out);
            }
        }
        "use_list" => {
            for c in named_children(node) {
                use_paths(c, src, prefix, out);
            }
        }
        "use_as_clause" => {
            if let Some(p) = node.child_by_field_name("path") {
                use_paths(p, src, prefix, out);
            }
        }
        "use_wildcard" => {
            let t = text(node, src);
            out.push(join(prefix, &t));
        }
        "self" => out.push(prefix.to_string()),
        _ => out.push(join(prefix, &text(node, src))),
    }
}
