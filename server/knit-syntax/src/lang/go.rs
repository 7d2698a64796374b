//! Go: declarations, token rules and imports.
//!
//! Kinds: `function`, `method` (receiver methods and interface methods), `struct`,
//! `interface`, `type` (any other defined type, and aliases), `field` (struct fields,
//! embedded ones named by their type), `const`, `var`.
//!
//! Naming: receiver methods are `Type.Method`, pointer receivers and generic receivers
//! included (`func (l *List[T]) Push` → `List.Push`); a method lives outside its type's
//! span, so it is not a member of the type anchor (as a Swift extension member).
//! Generic types are named without their parameters (`type List[T any] struct` →
//! `List`). Struct fields `List.items`, interface methods `Reader.Read`; a spec that
//! declares several names (`var a, b = 1, 2`, `x, y int`) declares each. Every spec of
//! a grouped `const ( … )` / `var ( … )` / `type ( … )` is its own declaration, grouped
//! or not: its tokens are the spec's, the keyword folded into its first token (so
//! grouping a const is not a change, `const` → `var` is). Known weakness: a const that repeats the
//! previous spec's expression implicitly (`iota` groups) does not change when that
//! expression changes. Functions in function bodies (closures) are not declarations.
//!
//! Token rules: gofmt only changes layout, which tokens never see; comments are
//! dropped, explicit `;` is dropped (Go inserts them at line ends), trailing commas are
//! generic, and parentheses around an `if`/`for`/`switch` header's expression or around
//! an atom are not a change.
//!
//! Imports: every import path, as written without quotes (`"net/http"` → `net/http`).

use super::{named_children, no_aliases, no_repairs, DeclSpec, Extract, LanguageSpec, Lang, Parent};
use crate::decl::{IdentityKind, Import};
use crate::tokens::{At, NodeRule, TokenRules};
use tree_sitter::Node;

pub(crate) static GO: LanguageSpec = LanguageSpec {
    lang: Lang::Go,
    extensions: &["go"],
    grammar: || tree_sitter_go::LANGUAGE.into(),
    kinds: &["function", "method", "struct", "interface", "type", "field", "const", "var"],
    rules: &GoRules,
    earlier_rules: &[],
    declarations,
    imports: collect_imports,
    repairs: no_repairs,
    silent_gaps: super::no_silent_gaps,
    misreadings: super::no_misreadings,
    aliases: no_aliases,
};

fn declarations(x: &mut Extract<'_, '_>, root: Node<'_>) {
    // Go declarations do not nest (methods name their receiver): a flat loop.
    for child in named_children(root) {
        if x.tick() {
            return;
        }
        top_level(x, child);
    }
}

fn top_level(x: &mut Extract<'_, '_>, node: Node<'_>) {
    match node.kind() {
        "function_declaration" => {
            let Some(name) = node.child_by_field_name("name") else { return };
            x.add(
                None,
                DeclSpec {
                    kind: "function",
                    identity: IdentityKind::Callable,
                    name: x.text(name).to_string(),
                    nodes: vec![node],
                    name_node: Some(name),
                    body: node.child_by_field_name("body"),
                },
            );
        }
        "method_declaration" => {
            let Some(name) = node.child_by_field_name("name") else { return };
            let receiver = node
                .child_by_field_name("receiver")
                .and_then(|r| named_children(r).into_iter().find(|p| p.kind() == "parameter_declaration"))
                .and_then(|p| p.child_by_field_name("type"))
                .and_then(receiver_type);
            let Some(recv) = receiver else { return };
            let recv = Parent::named(x.text(recv));
            x.add(
                Some(&recv),
                DeclSpec {
                    kind: "method",
                    identity: IdentityKind::Callable,
                    name: x.text(name).to_string(),
                    nodes: vec![node],
                    name_node: Some(name),
                    body: node.child_by_field_name("body"),
                },
            );
        }
        "type_declaration" | "const_declaration" | "var_declaration" => {
            let specs: Vec<Node> = named_children(node)
                .into_iter()
                .flat_map(|c| if c.kind().ends_with("_spec_list") { named_children(c) } else { vec![c] })
                .filter(|c| matches!(c.kind(), "type_spec" | "type_alias" | "const_spec" | "var_spec"))
                .collect();
            // Each spec is its own declaration; the rules fold the keyword into the
            // spec's first token, so `const` → `var` is a change.
            for spec in specs {
                spec_decl(x, spec, vec![spec]);
            }
        }
        _ => {}
    }
}

/// `*List[T]` → the `List` name token.
fn receiver_type(ty: Node<'_>) -> Option<Node<'_>> {
    let mut n = ty;
    loop {
        n = match n.kind() {
            "type_identifier" => return Some(n),
            "pointer_type" | "parenthesized_type" => named_children(n).into_iter().next()?,
            "generic_type" => n.child_by_field_name("type")?,
            _ => return None,
        };
    }
}

fn spec_decl<'t>(x: &mut Extract<'_, '_>, spec: Node<'t>, nodes: Vec<Node<'t>>) {
    match spec.kind() {
        "type_spec" | "type_alias" => {
            let Some(name) = spec.child_by_field_name("name") else { return };
            let ty = spec.child_by_field_name("type");
            let kind = match ty.map(|t| t.kind()) {
                Some("struct_type") if spec.kind() == "type_spec" => "struct",
                Some("interface_type") if spec.kind() == "type_spec" => "interface",
                _ => "type",
            };
            let Some(p) = x.add(
                None,
                DeclSpec {
                    kind,
                    identity: IdentityKind::Type,
                    name: x.text(name).to_string(),
                    nodes,
                    name_node: Some(name),
                    body: ty,
                },
            ) else {
                return;
            };
            match (kind, ty) {
                ("struct", Some(t)) => {
                    if let Some(list) = named_children(t).into_iter().find(|c| c.kind() == "field_declaration_list") {
                        struct_fields(x, list, &p);
                    }
                }
                ("interface", Some(t)) => interface_methods(x, t, &p),
                _ => {}
            }
        }
        "const_spec" | "var_spec" => {
            let kind = if spec.kind() == "const_spec" { "const" } else { "var" };
            let value = spec.child_by_field_name("value").or_else(|| spec.child_by_field_name("type"));
            let mut c = spec.walk();
            let names: Vec<Node> = spec.children_by_field_name("name", &mut c).collect();
            for n in names {
                if x.text(n) == "_" {
                    continue;
                }
                x.add(
                    None,
                    DeclSpec {
                        kind,
                        identity: IdentityKind::Value,
                        name: x.text(n).to_string(),
                        nodes: nodes.clone(),
                        name_node: Some(n),
                        body: value,
                    },
                );
            }
        }
        _ => {}
    }
}

fn struct_fields(x: &mut Extract<'_, '_>, list: Node<'_>, container: &Parent) {
    for f in named_children(list).into_iter().filter(|f| f.kind() == "field_declaration") {
        if x.tick() {
            return;
        }
        let mut c = f.walk();
        let names: Vec<Node> = f.children_by_field_name("name", &mut c).collect();
        let ty = f.child_by_field_name("type");
        if names.is_empty() {
            // Embedded field: named by its type (`*pkg.Base[T]` → `Base`).
            let Some(t) = ty else { continue };
            let Some(n) = embedded_name(t) else { continue };
            x.add(
                Some(container),
                DeclSpec {
                    kind: "field",
                    identity: IdentityKind::Value,
                    name: x.text(n).to_string(),
                    nodes: vec![f],
                    name_node: Some(n),
                    body: None,
                },
            );
            continue;
        }
        for n in names {
            x.add(
                Some(container),
                DeclSpec {
                    kind: "field",
                    identity: IdentityKind::Value,
                    name: x.text(n).to_string(),
                    nodes: vec![f],
                    name_node: Some(n),
                    body: ty,
                },
            );
        }
    }
}

fn embedded_name(t: Node<'_>) -> Option<Node<'_>> {
    let mut n = t;
    loop {
        n = match n.kind() {
            "type_identifier" => return Some(n),
            "qualified_type" => n.child_by_field_name("name")?,
            "pointer_type" => named_children(n).into_iter().next()?,
            "generic_type" => n.child_by_field_name("type")?,
            _ => return None,
        };
    }
}

fn interface_methods(x: &mut Extract<'_, '_>, iface: Node<'_>, container: &Parent) {
    for m in named_children(iface).into_iter().filter(|m| m.kind() == "method_elem") {
        if x.tick() {
            return;
        }
        let Some(n) = m.child_by_field_name("name") else { continue };
        x.add(
            Some(container),
            DeclSpec {
                kind: "method",
                identity: IdentityKind::Callable,
                name: x.text(n).to_string(),
                nodes: vec![m],
                name_node: Some(n),
                body: None,
            },
        );
    }
}

pub(crate) struct GoRules;

impl TokenRules for GoRules {
    fn rule(&self, node: Node, at: &At, src: &str) -> NodeRule {
        match at.kind {
            ";" => NodeRule::Skip,
            "parenthesized_expression" if parens_redundant(node, at) => NodeRule::DropDelimiters,
            _ if node.child_count() == 0 => match spec_keyword(at, src) {
                Some(k) => NodeRule::Emit(format!("{k}\u{5}{}", src.get(node.byte_range()).unwrap_or(""))),
                None => NodeRule::Descend,
            },
            _ => NodeRule::Descend,
        }
    }
}

/// The declaration keyword (`const`, `var`, `type`) when the leaf at `at` is the first
/// token of a spec.
fn spec_keyword<'s>(at: &At, src: &'s str) -> Option<&'s str> {
    let parent = at.parent_node()?;
    if !matches!(parent.kind(), "const_spec" | "var_spec" | "type_spec" | "type_alias") || !at.is_first() {
        return None;
    }
    let mut decl = at.ancestor(2)?.node;
    if decl.kind().ends_with("_spec_list") {
        decl = at.ancestor(3)?.node;
    }
    src.get(decl.child(0)?.byte_range())
}

fn parens_redundant(node: Node, at: &At) -> bool {
    let inner = named_children(node);
    let [inner] = inner.as_slice() else { return false };
    let parent = at.parent_node();
    let parent_kind = at.parent_kind();
    // `if (T{}) == x` needs them; a composite literal is never an atom here.
    if matches!(
        inner.kind(),
        "identifier"
            | "selector_expression"
            | "call_expression"
            | "index_expression"
            | "int_literal"
            | "float_literal"
            | "interpreted_string_literal"
            | "raw_string_literal"
            | "rune_literal"
            | "true"
            | "false"
            | "nil"
            | "parenthesized_expression"
    ) {
        // `(x).(T)`, `(f)(a)`, `(a).b` mean the same without them.
        return true;
    }
    // The parent kind first: asking a parent for its fields walks its children, and an
    // argument list may have thousands.
    if !matches!(parent_kind, "if_statement" | "for_statement" | "expression_switch_statement") || inner.kind() == "composite_literal" {
        return false;
    }
    parent
        .and_then(|p| p.child_by_field_name("condition").or_else(|| p.child_by_field_name("value")))
        .is_some_and(|c| c.id() == node.id())
}

fn collect_imports(root: Node, src: &str) -> Vec<Import> {
    let mut out = Vec::new();
    let mut stack = vec![root];
    while let Some(node) = stack.pop() {
        if node.kind() == "import_spec" {
            if let Some(p) = node.child_by_field_name("path") {
                let raw = src.get(p.byte_range()).unwrap_or("");
                if raw.len() >= 2 {
                    out.push(Import {
                        specifier: raw[1..raw.len() - 1].to_string(),
                        line: p.start_position().row as u32 + 1,
                    });
                }
            }
            continue;
        }
        if matches!(node.kind(), "source_file" | "import_declaration" | "import_spec_list") {
            let kids: Vec<Node> = node.children(&mut node.walk()).collect();
            stack.extend(kids.into_iter().rev());
        }
    }
    out.sort_by_key(|i| i.line);
    out
}
