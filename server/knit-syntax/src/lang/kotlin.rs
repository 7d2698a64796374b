//! Kotlin (`.kt .kts`): declarations, token rules and imports.
//!
//! Kinds: `class` (data, sealed, value, annotation and abstract classes too),
//! `interface`, `enum`, `object` (objects and companion objects), `function` (top level
//! or local), `method` (in a class, object or interface), `constructor` (secondary),
//! `init` (an `init { }` block), `property`, `entry` (enum entry), `typealias`.
//!
//! Naming:
//! - Functions carry their parameter names: `pay(items)`, `pay(items,tip)` (no spaces),
//!   `create()`. Overloads are told apart by the names, then by `~N` in file order
//!   (`pay(items)~2` when two overloads take one parameter called `items`). The bare
//!   `Checkout.pay` resolves when only one `pay` exists.
//! - Extension functions and properties are named by their receiver type as written,
//!   whitespace removed: `fun List<Item>.cheapest()` → `List<Item>.cheapest()`,
//!   `val String.initials` → `String.initials`, `fun <T> List<T>.second()` →
//!   `List<T>.second()`. Inside a class `C`: `C.List<Item>.cheapest()`.
//! - Companion members are named through the companion: `Checkout.Companion.create()`
//!   (a named companion `companion object Factory` → `Checkout.Factory.create()`).
//!   `Checkout.create()` does not resolve to a companion member: it is `invalid` with
//!   the companion member as a did-you-mean suggestion.
//! - Secondary constructors: `Checkout.constructor(a)`; `init` blocks `Checkout.init`
//!   (`~N` for several); primary-constructor `val`/`var` parameters are properties
//!   (`Checkout.items`); enum entries `Color.RED`; local functions `outer(x).inner()`.
//!
//! Token rules (ktlint-style layout invisible): comments dropped, `;` dropped (with
//! every statement's first token marked, so `a\n-b` and `a - b` still differ), trailing
//! commas (generic), modifier order (`override public` = `public override`), braces
//! around a single-statement `if`/`else`/`when`/loop body (ktlint's multiline-if-else),
//! `${name}` = `$name` in string templates, `: Unit` on a block-bodied function, an
//! empty class body `{}`.
//!
//! Imports: the imported path as written (`com.shop.Cart`, `com.shop.*`; `as` aliases
//! give the original path).

use super::{children, gaps, named_children, no_aliases, DeclSpec, Extract, LanguageSpec, Lang, Parent, Repair};
use crate::decl::{IdentityKind, Import};
use crate::tokens::{is_comment, At, NodeRule, TokenRules};
use tree_sitter::Node;

pub(crate) static KOTLIN: LanguageSpec = LanguageSpec {
    lang: Lang::Kotlin,
    extensions: &["kt", "kts"],
    grammar: || tree_sitter_kotlin_ng::LANGUAGE.into(),
    kinds: &[
        "class", "interface", "enum", "object", "function", "method", "constructor", "init", "property", "entry",
        "typealias",
    ],
    rules: &KotlinRules,
    earlier_rules: &[],
    declarations: walk,
    imports: collect_imports,
    repairs,
    silent_gaps,
    misreadings,
    aliases: no_aliases,
};

/// Grammar gaps of tree-sitter-kotlin-ng 1.1 (finders in `gaps.rs`), found in ktor,
/// kotlinx.coroutines and okhttp with `knit bench coverage`.
fn repairs(root: Node<'_>, src: &str) -> Vec<Repair> {
    let mut out = Vec::new();
    raw_strings_ending_in_quotes(root, src, &mut out);
    gaps::kotlin_context_parameters(src, &mut out);
    gaps::kotlin_context_function_types(src, &mut out);
    gaps::kotlin_all_use_site_targets(src, &mut out);
    gaps::kotlin_multi_dollar_strings(src, &mut out);
    gaps::kotlin_suspend_lambdas(src, &mut out);
    gaps::kotlin_constructors_after_the_header(src, &mut out);
    gaps::kotlin_when_guards(src, &mut out);
    gaps::kotlin_names_read_as_keywords(src, &mut out);
    gaps::kotlin_annotated_accessors(src, &mut out);
    gaps::kotlin_one_line_bodies(src, &mut out);
    gaps::kotlin_unreadable_calls(src, &mut out);
    gaps::kotlin_line_initial_references(src, &mut out);
    gaps::kotlin_empty_collection_literals(src, &mut out);
    gaps::kotlin_trailing_index_commas(src, &mut out);
    gaps::kotlin_delegation_bodies(root, src, &mut out);
    gaps::kotlin_declarations_read_as_statements(root, src, &mut out);
    out
}

/// Names spelled like a keyword that opens a declaration (`class`, `fun`, `val` …), which
/// valid Kotlin never holds: what is left of the grammar's silent misreadings once the
/// silent gaps were repaired (`Foo::class` is a reference, not a name).
fn misreadings(root: Node<'_>, src: &str, out: &mut Vec<super::ErrorSite>) {
    super::for_each_leaf(root, |n, parent| {
        let word = &src[n.byte_range()];
        if n.kind() == "identifier" && gaps::KOTLIN_DECLARATION_KEYWORDS.contains(&word) && parent != "navigation_expression" {
            let parent = if parent.is_empty() { "source_file" } else { parent };
            out.push(super::ErrorSite { line: n.start_position().row as u32 + 1, end_line: n.end_position().row as u32 + 1, construct: format!("`{word}` read as a name in {parent}") });
        }
    });
}

/// Valid Kotlin tree-sitter-kotlin-ng 1.1 misreads without an error (see `gaps.rs`).
fn silent_gaps(root: Node<'_>, src: &str) -> Vec<Repair> {
    let mut out = Vec::new();
    gaps::kotlin_delegation_bodies(root, src, &mut out);
    gaps::kotlin_declarations_read_as_statements(root, src, &mut out);
    out
}

/// Raw strings whose text ends in quotes repaired per file (each costs a descent from
/// the root; real files hold a few).
const MAX_QUOTE_RUNS: usize = 256;

/// A raw string whose text ends in a quote (`"""…filename=""""",`, ktor's logging tests):
/// Kotlin closes it with the last three quotes of the run, tree-sitter-kotlin-ng 1.1 with
/// the first three or four, and reads the rest as a string opened after it, a syntax
/// error in every declaration around. Where the grammar's raw string ends inside a run of
/// quotes, the run's quotes before its last three become `x`, text the string reads as
/// content; the string's token is read from the original text, quotes included.
fn raw_strings_ending_in_quotes(root: Node<'_>, src: &str, out: &mut Vec<Repair>) {
    let b = src.as_bytes();
    let mut runs = Vec::new();
    let mut i = 0;
    while let Some(p) = src[i..].find("\"\"\"\"") {
        let start = i + p;
        let end = start + b[start..].iter().take_while(|&&c| c == b'"').count();
        i = end;
        runs.push((start, end));
        if runs.len() == MAX_QUOTE_RUNS {
            break;
        }
    }
    for (start, end) in runs {
        // the raw string holding the run's first quote
        let mut string = None;
        super::descend_to(root, start, |n| {
            if n.kind() == "multiline_string_literal" {
                string = Some(n.byte_range());
            }
        });
        let Some(string) = string.filter(|s| s.end < end) else { continue };
        // a run that also opens the string (`""`, wire's Swift generator) keeps its
        // first three quotes
        let from = if string.start == start { start + 3 } else { start };
        for at in from..end - 3 {
            out.push(Repair::Overwrite { at, byte: b'x' });
        }
    }
}

#[derive(Clone, Copy, PartialEq)]
enum Place {
    Top,
    Class,
    Function,
}

/// One member list being reported.
struct Frame<'t> {
    kids: std::vec::IntoIter<Node<'t>>,
    parent: Option<Parent>,
    place: Place,
}

impl<'t> Frame<'t> {
    fn of(node: Node<'t>, parent: Option<Parent>, place: Place) -> Self {
        Frame { kids: named_children(node).into_iter(), parent, place }
    }
}

/// The declarations of a file: a work stack of member lists, innermost on top (the
/// depth-first order of a recursive walk; nesting cannot overflow the stack).
fn walk(x: &mut Extract<'_, '_>, root: Node<'_>) {
    let mut stack = vec![Frame::of(root, None, Place::Top)];
    while let Some(f) = stack.last_mut() {
        if x.tick() {
            return;
        }
        let Some(child) = f.kids.next() else {
            stack.pop();
            continue;
        };
        let next = if child.kind() == "statements" {
            Some(Frame::of(child, f.parent.clone(), f.place))
        } else {
            declaration(x, child, f.parent.as_ref(), f.place)
        };
        if let Some(next) = next {
            stack.push(next);
        }
    }
}

fn text_of(x: &Extract<'_, '_>, n: Node) -> String {
    x.text(n).split_whitespace().collect()
}

/// The receiver type of an extension: the child right before the `.` before `anchor`.
fn receiver<'t>(node: Node<'t>, anchor: Node<'t>) -> Option<Node<'t>> {
    let kids = children(node);
    let i = kids.iter().position(|k| k.id() == anchor.id())?;
    if i >= 2 && kids[i - 1].kind() == "." {
        Some(kids[i - 2])
    } else {
        None
    }
}

/// Reports one declaration; returns its member list, to be walked next.
fn declaration<'t>(x: &mut Extract<'_, '_>, node: Node<'t>, container: Option<&Parent>, place: Place) -> Option<Frame<'t>> {
    match node.kind() {
        "class_declaration" => {
            let name = node.child_by_field_name("name")?;
            let kids = children(node);
            let is_interface = kids.iter().any(|k| k.kind() == "interface");
            let is_enum = kids
                .iter()
                .filter(|k| k.kind() == "modifiers")
                .any(|m| named_children(*m).iter().any(|c| c.kind() == "class_modifier" && x.text(*c) == "enum"));
            let kind = if is_interface {
                "interface"
            } else if is_enum {
                "enum"
            } else {
                "class"
            };
            let body = kids.iter().copied().find(|k| matches!(k.kind(), "class_body" | "enum_class_body"));
            let class = x.add(
                container,
                DeclSpec {
                    kind,
                    identity: IdentityKind::Type,
                    name: x.text(name).to_string(),
                    nodes: vec![node],
                    name_node: Some(name),
                    body,
                },
            )?;
            if let Some(pc) = kids.iter().find(|k| k.kind() == "primary_constructor") {
                for params in named_children(*pc).into_iter().filter(|c| c.kind() == "class_parameters") {
                    for p in named_children(params).into_iter().filter(|c| c.kind() == "class_parameter") {
                        let binds = children(p).iter().any(|c| matches!(c.kind(), "val" | "var"));
                        let Some(pn) = named_children(p).into_iter().find(|c| c.kind() == "identifier") else { continue };
                        if binds {
                            x.add(
                                Some(&class),
                                DeclSpec {
                                    kind: "property",
                                    identity: IdentityKind::Value,
                                    name: x.text(pn).to_string(),
                                    nodes: vec![p],
                                    name_node: Some(pn),
                                    body: None,
                                },
                            );
                        }
                    }
                }
            }
            body.map(|b| Frame::of(b, Some(class), Place::Class))
        }
        "object_declaration" | "companion_object" => {
            let name = node.child_by_field_name("name");
            let label = match name {
                Some(n) => x.text(n).to_string(),
                None => "Companion".to_string(),
            };
            let name_node = name.or_else(|| children(node).into_iter().find(|k| k.kind() == "object"));
            let body = children(node).into_iter().find(|k| k.kind() == "class_body");
            let p = x.add(
                container,
                DeclSpec { kind: "object", identity: IdentityKind::Type, name: label, nodes: vec![node], name_node, body },
            )?;
            body.map(|b| Frame::of(b, Some(p), Place::Class))
        }
        "function_declaration" => {
            let name = node.child_by_field_name("name")?;
            let params = children(node).into_iter().find(|k| k.kind() == "function_value_parameters");
            let mut simple = format!("{}{}", x.text(name), param_names(x, params));
            let mut container = container.cloned();
            if let Some(r) = receiver(node, name) {
                let r = text_of(x, r);
                match &container {
                    None => container = Some(Parent::named(r)),
                    Some(_) => simple = format!("{r}.{simple}"),
                }
            }
            let body = children(node).into_iter().find(|k| k.kind() == "function_body");
            let kind = if place == Place::Class { "method" } else { "function" };
            let p = x.add(
                container.as_ref(),
                DeclSpec {
                    kind,
                    identity: IdentityKind::Callable,
                    name: simple,
                    nodes: vec![node],
                    name_node: Some(name),
                    body,
                },
            )?;
            let block = body.and_then(|b| named_children(b).into_iter().find(|k| k.kind() == "block"))?;
            Some(Frame::of(block, Some(p), Place::Function))
        }
        "secondary_constructor" => {
            let params = children(node).into_iter().find(|k| k.kind() == "function_value_parameters");
            let name_node = children(node).into_iter().find(|k| k.kind() == "constructor");
            let body = children(node).into_iter().find(|k| k.kind() == "block");
            x.add(
                container,
                DeclSpec {
                    kind: "constructor",
                    identity: IdentityKind::Callable,
                    name: format!("constructor{}", param_names(x, params)),
                    nodes: vec![node],
                    name_node,
                    body,
                },
            );
            None
        }
        "anonymous_initializer" => {
            let name_node = children(node).into_iter().find(|k| k.kind() == "init");
            let body = children(node).into_iter().find(|k| k.kind() == "block");
            x.add(
                container,
                DeclSpec {
                    kind: "init",
                    identity: IdentityKind::Callable,
                    name: "init".into(),
                    nodes: vec![node],
                    name_node,
                    body,
                },
            );
            None
        }
        "property_declaration" if place != Place::Function => {
            let var = children(node).into_iter().find(|k| k.kind() == "variable_declaration")?;
            let name = named_children(var).into_iter().find(|k| k.kind() == "identifier")?;
            let kids = children(node);
            let value = kids
                .iter()
                .position(|k| k.kind() == "=")
                .and_then(|i| kids[i + 1..].iter().copied().find(|k| k.is_named() && !is_comment(*k)))
                .or_else(|| kids.iter().copied().find(|k| matches!(k.kind(), "property_delegate" | "getter" | "setter")));
            let mut simple = x.text(name).to_string();
            let mut container = container.cloned();
            if let Some(r) = receiver(node, var) {
                let r = text_of(x, r);
                match &container {
                    None => container = Some(Parent::named(r)),
                    Some(_) => simple = format!("{r}.{simple}"),
                }
            }
            x.add(
                container.as_ref(),
                DeclSpec {
                    kind: "property",
                    identity: IdentityKind::Value,
                    name: simple,
                    nodes: vec![node],
                    name_node: Some(name),
                    body: value,
                },
            );
            None
        }
        "enum_entry" => {
            let name = named_children(node).into_iter().find(|k| k.kind() == "identifier")?;
            let body = named_children(node).into_iter().find(|k| k.kind() == "class_body");
            let p = x.add(
                container,
                DeclSpec {
                    kind: "entry",
                    identity: IdentityKind::Value,
                    name: x.text(name).to_string(),
                    nodes: vec![node],
                    name_node: Some(name),
                    body,
                },
            )?;
            body.map(|b| Frame::of(b, Some(p), Place::Class))
        }
        "type_alias" => {
            let name = node.child_by_field_name("type")?;
            let kids = children(node);
            let value = kids.iter().position(|k| k.kind() == "=").and_then(|i| kids.get(i + 1).copied());
            x.add(
                container,
                DeclSpec {
                    kind: "typealias",
                    identity: IdentityKind::Type,
                    name: x.text(name).to_string(),
                    nodes: vec![node],
                    name_node: Some(name),
                    body: value,
                },
            );
            None
        }
        _ => None,
    }
}

/// `(items,tip)`: the parameter names of a parameter list.
fn param_names(x: &Extract<'_, '_>, params: Option<Node>) -> String {
    let mut names = Vec::new();
    if let Some(ps) = params {
        for p in named_children(ps).into_iter().filter(|p| p.kind() == "parameter") {
            if let Some(n) = named_children(p).into_iter().find(|c| c.kind() == "identifier") {
                names.push(x.text(n).to_string());
            }
        }
    }
    format!("({})", names.join(","))
}

pub(crate) struct KotlinRules;

impl TokenRules for KotlinRules {
    fn rule(&self, node: Node, at: &At, src: &str) -> NodeRule {
        match at.kind {
            ";" => NodeRule::Skip,
            "string_literal" | "multiline_string_literal" => NodeRule::Emit(string_value(node, src)),
            "modifiers" if !named_children(node).iter().any(|m| m.kind() == "annotation") => {
                let mut words: Vec<String> =
                    named_children(node).iter().map(|m| text(*m, src).split_whitespace().collect()).collect();
                words.sort();
                NodeRule::Emit(format!("\u{4}{}", words.join(" ")))
            }
            "block" if single_statement_body(node, at.parent_kind()) => NodeRule::DropDelimiters,
            "class_body" | "enum_class_body" if named_children(node).is_empty() => NodeRule::Skip,
            ":" | "user_type" if unit_return(node, at, src) => NodeRule::Skip,
            _ if node.child_count() == 0 && at.leads => NodeRule::Emit(format!("\u{3}{}", text(node, src).trim())),
            _ => NodeRule::Descend,
        }
    }

    /// Whether the node begins a statement or member: a child of a statement list or
    /// body (except the body's braces, and except the statement of a braced single
    /// statement body, which is written without braces too), or the first child of a
    /// node that does.
    fn leads(&self, _node: Node, at: &At) -> bool {
        match at.ancestor(1) {
            None => false,
            Some(p) if matches!(p.kind, "block" | "source_file" | "class_body" | "statements" | "lambda_literal") => {
                // A block's rule drops its braces exactly when it is a single-statement body.
                let dropped_braces = p.kind == "block" && p.dropped;
                !(matches!(at.kind, "{" | "}") || dropped_braces)
            }
            Some(p) => at.is_first() && p.leads,
        }
    }
}

fn text<'s>(n: Node, src: &'s str) -> &'s str {
    src.get(n.byte_range()).unwrap_or("")
}

/// `if (c) { a }` = `if (c) a`: a braced single statement as a control-structure body.
fn single_statement_body(block: Node, parent_kind: &str) -> bool {
    if !matches!(
        parent_kind,
        "if_expression" | "when_entry" | "for_statement" | "while_statement" | "do_while_statement" | "control_structure_body"
    ) {
        return false;
    }
    let mut c = block.walk();
    let kids: Vec<Node> = block.named_children(&mut c).collect();
    let [only] = kids.as_slice() else { return false };
    let only = if only.kind() == "statements" {
        let inner = named_children(*only);
        let [one] = inner.as_slice() else { return false };
        *one
    } else {
        *only
    };
    !only.kind().ends_with("declaration") && !only.kind().contains("comment") && only.kind() != "assignment"
}

/// `fun f(): Unit { … }`: the `: Unit` ktlint removes (a block body returns Unit anyway).
fn unit_return(node: Node, at: &At, src: &str) -> bool {
    // A function declaration has a handful of children: listing them is cheap.
    let Some(parent) = at.parent_node().filter(|p| p.kind() == "function_declaration") else { return false };
    let has_block_body = children(parent)
        .iter()
        .find(|k| k.kind() == "function_body")
        .is_some_and(|b| named_children(*b).first().is_some_and(|c| c.kind() == "block"));
    if !has_block_body {
        return false;
    }
    let kids = children(parent);
    let Some(i) = kids.iter().position(|k| k.id() == node.id()) else { return false };
    let (colon, ty) = if node.kind() == ":" {
        (Some(node), kids.get(i + 1).copied())
    } else {
        (i.checked_sub(1).and_then(|j| kids.get(j).copied()), Some(node))
    };
    colon.is_some_and(|c| c.kind() == ":")
        && ty.is_some_and(|t| t.kind() == "user_type" && text(t, src).trim() == "Unit")
        && kids.get(i + usize::from(node.kind() == ":") + 1).is_some_and(|n| n.kind() == "function_body")
}

/// A string literal by value; `${name}` written as `$name`, other templates by their
/// tokens.
fn string_value(node: Node, src: &str) -> String {
    let mut out = String::from("\u{2}");
    let kids = children(node);
    for (i, k) in kids.iter().enumerate() {
        match k.kind() {
            "interpolation" => {
                let inner = named_children(*k);
                let next_is_ident = kids
                    .get(i + 1)
                    .and_then(|n| text(*n, src).chars().next())
                    .is_some_and(|c| c.is_alphanumeric() || c == '_');
                match inner.as_slice() {
                    [one] if one.kind() == "identifier" && !next_is_ident => {
                        out.push('$');
                        out.push_str(text(*one, src));
                    }
                    _ => {
                        out.push_str("${");
                        let mut stack = inner.into_iter().rev().collect::<Vec<_>>();
                        while let Some(n) = stack.pop() {
                            if is_comment(n) {
                                continue;
                            }
                            if n.child_count() == 0 {
                                out.push(' ');
                                out.push_str(text(n, src).trim());
                            } else {
                                let c: Vec<Node> = n.children(&mut n.walk()).collect();
                                stack.extend(c.into_iter().rev());
                            }
                        }
                        out.push('}');
                    }
                }
            }
            _ => out.push_str(text(*k, src)),
        }
    }
    out
}

fn collect_imports(root: Node, src: &str) -> Vec<Import> {
    let mut out = Vec::new();
    let mut stack = vec![root];
    while let Some(node) = stack.pop() {
        match node.kind() {
            "import" => {
                let kids = children(node);
                if let Some(q) = kids.iter().find(|k| k.kind() == "qualified_identifier" || k.kind() == "identifier") {
                    let mut spec: String = text(*q, src).split_whitespace().collect();
                    if kids.iter().any(|k| k.kind() == "*") {
                        spec.push_str(".*");
                    }
                    out.push(Import { specifier: spec, line: node.start_position().row as u32 + 1 });
                }
            }
            "source_file" | "import_list" | "statements" => {
                let kids: Vec<Node> = node.children(&mut node.walk()).collect();
                stack.extend(kids.into_iter().rev());
            }
            _ => {}
        }
    }
    out.sort_by_key(|i| i.line);
    out
}
