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

use super::{children, gaps, named_children, no_aliases, DeclSpec, Extract, LanguageSpec, Lang, Parent, Repair};
use crate::decl::{IdentityKind, Import};
use crate::tokens::{is_comment, At, NodeRule, TokenRules};
use tree_sitter::Node;

pub(crate) static RUST: LanguageSpec = LanguageSpec {
    lang: Lang::Rust,
    extensions: &["rs"],
    grammar: || tree_sitter_rust::LANGUAGE.into(),
    kinds: &[
        "function", "method", "struct", "enum", "union", "variant", "field", "trait", "impl", "mod", "const", "static",
        "type", "macro",
    ],
    rules: &RUST_RULES,
    earlier_rules: &[(1, &RUST_RULES_V1)],
    declarations: walk,
    imports: collect_imports,
    repairs,
    silent_gaps: super::no_silent_gaps,
    misreadings: super::no_misreadings,
    aliases: no_aliases,
};

/// Grammar gaps of tree-sitter-rust (see `gaps.rs`): macros named like a primitive type.
fn repairs(_root: Node<'_>, src: &str) -> Vec<Repair> {
    let mut out = Vec::new();
    gaps::rust_primitive_named_macros(src, &mut out);
    out
}

/// Where an item list sits: decides `function` vs `method`.
#[derive(Clone, Copy, PartialEq)]
enum Place {
    Module,
    /// `impl` or `trait` body.
    Associated,
    FunctionBody,
}

/// One item list being reported (a file, a module, an impl or trait body, a function
/// body, an `extern` block).
struct Frame<'t> {
    kids: std::vec::IntoIter<Node<'t>>,
    /// Outer attributes waiting for the item they belong to.
    attrs: Vec<Node<'t>>,
    parent: Option<Parent>,
    place: Place,
}

impl<'t> Frame<'t> {
    fn of(list: Node<'t>, parent: Option<Parent>, place: Place) -> Self {
        Frame { kids: children(list).into_iter(), attrs: Vec::new(), parent, place }
    }
}

/// The declarations of a file: a work stack of item lists, innermost on top (the
/// depth-first order of a recursive walk; nested `mod`s and `extern` blocks cannot
/// overflow the stack).
fn walk(x: &mut Extract<'_, '_>, root: Node<'_>) {
    let mut stack = vec![Frame::of(root, None, Place::Module)];
    while let Some(f) = stack.last_mut() {
        if x.tick() {
            return;
        }
        let Some(child) = f.kids.next() else {
            stack.pop();
            continue;
        };
        if !child.is_named() || is_comment(child) {
            continue;
        }
        if child.kind() == "attribute_item" {
            f.attrs.push(child);
            continue;
        }
        let mut nodes = std::mem::take(&mut f.attrs);
        nodes.push(child);
        if let Some(inner) = item(x, child, nodes, f.parent.as_ref(), f.place) {
            stack.push(inner);
        }
    }
}

/// Reports one item; returns the item list nested in it that is to be walked next.
fn item<'t>(x: &mut Extract<'_, '_>, node: Node<'t>, nodes: Vec<Node<'t>>, parent: Option<&Parent>, place: Place) -> Option<Frame<'t>> {
    let name_node = node.child_by_field_name("name");
    let body = node.child_by_field_name("body");
    let named = |kind: &'static str, identity: IdentityKind, body: Option<Node<'t>>| {
        name_node.map(|nn| DeclSpec { kind, identity, name: x.text(nn).to_string(), nodes: nodes.clone(), name_node: Some(nn), body })
    };
    match node.kind() {
        "function_item" | "function_signature_item" => {
            let kind = if place == Place::Associated { "method" } else { "function" };
            let d = named(kind, IdentityKind::Callable, body)?;
            let p = x.add(parent, d)?;
            body.map(|b| Frame::of(b, Some(p), Place::FunctionBody))
        }
        "struct_item" | "union_item" => {
            let kind = if node.kind() == "struct_item" { "struct" } else { "union" };
            let d = named(kind, IdentityKind::Type, body)?;
            let p = x.add(parent, d)?;
            if let Some(b) = body.filter(|b| b.kind() == "field_declaration_list") {
                fields(x, b, &p);
            }
            None
        }
        "enum_item" => {
            let d = named("enum", IdentityKind::Type, body)?;
            let p = x.add(parent, d)?;
            if let Some(b) = body {
                let mut attrs: Vec<Node> = Vec::new();
                for v in named_children(b) {
                    if x.tick() {
                        break;
                    }
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
                        Some(&p),
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
            None
        }
        "trait_item" => {
            let d = named("trait", IdentityKind::Type, body)?;
            let p = x.add(parent, d)?;
            body.map(|b| Frame::of(b, Some(p), Place::Associated))
        }
        "impl_item" => {
            if place == Place::FunctionBody {
                return None;
            }
            let ty = node.child_by_field_name("type")?;
            let tn = type_name_node(ty)?;
            let p = x.add(
                parent,
                DeclSpec {
                    kind: "impl",
                    identity: IdentityKind::Type,
                    name: x.text(tn).to_string(),
                    nodes,
                    name_node: Some(tn),
                    body,
                },
            )?;
            body.map(|b| Frame::of(b, Some(p), Place::Associated))
        }
        "mod_item" => {
            let d = named("mod", IdentityKind::Module, body)?;
            let p = x.add(parent, d)?;
            body.map(|b| Frame::of(b, Some(p), Place::Module))
        }
        // Transparent: its functions belong to the enclosing list.
        "foreign_mod_item" => body.map(|b| Frame::of(b, parent.cloned(), place)),
        "const_item" | "static_item" => {
            let kind = if node.kind() == "const_item" { "const" } else { "static" };
            let value = node.child_by_field_name("value");
            if let Some(d) = named(kind, IdentityKind::Value, value) {
                x.add(parent, d);
            }
            None
        }
        "type_item" | "associated_type" => {
            let value = node.child_by_field_name("type");
            if let Some(d) = named("type", IdentityKind::Type, value) {
                x.add(parent, d);
            }
            None
        }
        "macro_definition" => {
            // No body field: the rules (everything after the name) are the body.
            if let Some(d) = named("macro", IdentityKind::Callable, Some(node)) {
                x.add(parent, d);
            }
            None
        }
        _ => None,
    }
}

fn fields(x: &mut Extract<'_, '_>, list: Node<'_>, parent: &Parent) {
    let mut attrs: Vec<Node> = Vec::new();
    for f in named_children(list) {
        if x.tick() {
            return;
        }
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
            Some(parent),
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

pub(crate) struct RustRules {
    /// Print scheme 2: a closure's block body holding one expression is that expression
    /// (rustfmt wraps long closure bodies in braces at narrow widths; scheme 1 hashed them).
    structural: bool,
}

pub(crate) static RUST_RULES: RustRules = RustRules { structural: true };
pub(crate) static RUST_RULES_V1: RustRules = RustRules { structural: false };

impl TokenRules for RustRules {
    fn rule_kinds(&self) -> Option<&'static [&'static str]> {
        // every arm of `rule` below
        Some(&[";", ",", "block"])
    }

    fn rule(&self, node: Node, at: &At, _src: &str) -> NodeRule {
        match at.kind {
            // rustfmt adds `;` after a trailing `return`/`break`/`continue`: both diverge.
            ";" if at.parent_node().is_some_and(|p| {
                p.kind() == "expression_statement"
                    && p.named_child(0)
                        .is_some_and(|e| matches!(e.kind(), "return_expression" | "break_expression" | "continue_expression"))
            }) =>
            {
                NodeRule::Skip
            }
            // Arms are separated by `,` or by a block body; rustfmt moves between the two.
            "," if at.parent_kind() == "match_arm" => NodeRule::Skip,
            "block" if arm_block_is_expression(node, at) => NodeRule::DropDelimiters,
            "block" if self.structural && closure_block_is_expression(node, at) => NodeRule::DropDelimiters,
            _ => NodeRule::Descend,
        }
    }
}

/// `=> { expr }`: a match arm's block holding one trailing expression and nothing else.
fn arm_block_is_expression(block: Node, at: &At) -> bool {
    let Some(parent) = at.parent_node() else { return false };
    if parent.kind() != "match_arm" || parent.child_by_field_name("value").map(|v| v.id()) != Some(block.id()) {
        return false;
    }
    block_is_one_expression(block)
}

/// `|x| { expr }`: a closure without a return type whose block body holds one trailing
/// expression (with a return type the braces are required, and rustfmt keeps them).
fn closure_block_is_expression(block: Node, at: &At) -> bool {
    let Some(parent) = at.parent_node() else { return false };
    if parent.kind() != "closure_expression"
        || parent.child_by_field_name("body").map(|v| v.id()) != Some(block.id())
        || parent.child_by_field_name("return_type").is_some()
    {
        return false;
    }
    block_is_one_expression(block)
}

/// A block holding one trailing expression and nothing else (no statement, no comment).
fn block_is_one_expression(block: Node) -> bool {
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
    // Shared by every `use` of the file (see `use_paths`).
    let mut budget = crate::NAME_BYTES_PER_SOURCE_BYTE * src.len() + crate::NAME_BYTES_SLACK;
    let mut stack = vec![root];
    while let Some(node) = stack.pop() {
        let line = node.start_position().row as u32 + 1;
        match node.kind() {
            "use_declaration" => {
                if let Some(arg) = node.child_by_field_name("argument") {
                    let mut paths = Vec::new();
                    use_paths(arg, src, &mut budget, &mut paths);
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

/// Expands one `use` tree into full paths. A work stack, not recursion: use lists nest
/// as deep as the input says. Lists nested deeper than [`crate::MAX_DECL_DEPTH`] are
/// not expanded, and expansion stops once the paths would outweigh the file by
/// [`crate::NAME_BYTES_PER_SOURCE_BYTE`] (every path repeats its list's prefix).
fn use_paths(root: Node, src: &str, budget: &mut usize, out: &mut Vec<String>) {
    let mut stack: Vec<(Node, std::rc::Rc<str>, u32)> = vec![(root, std::rc::Rc::from(""), 0)];
    let mut emit = |path: String, out: &mut Vec<String>| -> bool {
        *budget = budget.saturating_sub(path.len() + 1);
        out.push(path);
        *budget > 0
    };
    while let Some((node, prefix, depth)) = stack.pop() {
        if depth > crate::MAX_DECL_DEPTH {
            continue;
        }
        let more = match node.kind() {
            "scoped_use_list" => {
                let path = node.child_by_field_name("path").map(|p| text(p, src)).unwrap_or_default();
                if let Some(list) = node.child_by_field_name("list") {
                    stack.push((list, std::rc::Rc::from(join(&prefix, &path)), depth + 1));
                }
                true
            }
            "use_list" => {
                for c in named_children(node).into_iter().rev() {
                    stack.push((c, prefix.clone(), depth));
                }
                true
            }
            "use_as_clause" => {
                if let Some(p) = node.child_by_field_name("path") {
                    stack.push((p, prefix, depth));
                }
                true
            }
            "use_wildcard" => emit(join(&prefix, &text(node, src)), out),
            "self" => emit(prefix.to_string(), out),
            _ => emit(join(&prefix, &text(node, src)), out),
        };
        if !more {
            return;
        }
    }
}
