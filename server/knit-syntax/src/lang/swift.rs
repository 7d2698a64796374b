//! Swift: declarations (argument labels in names, initialisers and subscripts included),
//! token rules and imports.
//!
//! Kinds: `class`, `struct`, `enum`, `actor`, `extension`, `protocol`, `function`,
//! `method`, `init`, `deinit`, `subscript`, `property`, `case`, `typealias`,
//! `associatedtype`. Members of an `extension Foo` block are `Foo.member` and belong to
//! the extension's span, not to the struct's (DESIGN 1.3a).

use super::{children, gaps, named_children, no_aliases, DeclSpec, Extract, LanguageSpec, Lang, Parent, Repair};
use crate::decl::{IdentityKind, Import};
use crate::tokens::{is_comment, At, NodeRule, TokenRules};
use tree_sitter::Node;

pub(crate) static SWIFT: LanguageSpec = LanguageSpec {
    lang: Lang::Swift,
    extensions: &["swift"],
    grammar: || tree_sitter_swift::LANGUAGE.into(),
    kinds: &[
        "class", "struct", "enum", "actor", "extension", "protocol", "function", "method", "init", "deinit", "subscript",
        "property", "case", "typealias", "associatedtype",
    ],
    rules: &SwiftRules { structural: true },
    // Schemes 1 and 2 kept a condition's parentheses.
    earlier_rules: &[(1, &SWIFT_RULES_V2), (2, &SWIFT_RULES_V2)],
    declarations: walk,
    imports,
    repairs,
    silent_gaps,
    misreadings: super::no_misreadings,
    aliases: no_aliases,
};

fn imports(root: Node<'_>, src: &str) -> Vec<Import> {
    let mut out = Vec::new();
    for c in named_children(root) {
        if c.kind() == "import_declaration" {
            let name = named_children(c)
                .into_iter()
                .find(|n| n.kind() == "identifier")
                .and_then(|n| src.get(n.byte_range()))
                .unwrap_or("");
            if !name.is_empty() {
                out.push(Import { specifier: name.to_string(), line: c.start_position().row as u32 + 1 });
            }
        }
    }
    out
}

/// Valid Swift tree-sitter-swift misreads without an error (see `gaps.rs`).
fn silent_gaps(_root: Node<'_>, src: &str) -> Vec<Repair> {
    let mut out = Vec::new();
    gaps::swift_strings_opening_comments(src, &mut out);
    out
}

/// tree-sitter-swift 0.7 has no empty tuple expression: `()` as a value (`f(())`,
/// `promise.succeed(())`, `return ()`, `let v = ()`) reads as a tuple missing an
/// operand, a syntax error in every declaration around it (465 times in swift-nio).
/// `[]` is an expression of the same two bytes, and the tokens hashed are the
/// original `(` and `)`, exactly the leaves a right grammar would give.
fn repairs(root: Node<'_>, src: &str) -> Vec<Repair> {
    let mut out = Vec::new();
    super::walk_errors(root, |n, _| {
        if n.kind() == "tuple_expression" && is_empty_tuple_with_made_up_operand(n, src) {
            out.push(Repair::Overwrite { at: n.start_byte(), byte: b'[' });
            out.push(Repair::Overwrite { at: n.end_byte() - 1, byte: b']' });
            return false;
        }
        true
    });
    gaps::swift_underscored_ownership(src, &mut out);
    gaps::swift_lifetime_attributes(src, &mut out);
    gaps::swift_unknown_modifiers(src, &mut out);
    gaps::swift_condition_calls(src, &mut out);
    gaps::swift_unknown_accessors(src, &mut out);
    gaps::swift_case_range_parens(src, &mut out);
    gaps::swift_empty_case_arguments(src, &mut out);
    gaps::swift_fallthrough_before_directive(src, &mut out);
    gaps::swift_misplaced_directives(src, &mut out);
    gaps::swift_trailing_closure_labels(src, &mut out);
    gaps::swift_associated_type_lists(src, &mut out);
    gaps::swift_associated_type_where_lines(src, &mut out);
    gaps::swift_type_alias_where_clauses(src, &mut out);
    gaps::swift_optional_same_type_requirements(src, &mut out);
    gaps::swift_enum_wildcard_labels(src, &mut out);
    gaps::swift_blank_before_semicolon(src, &mut out);
    gaps::swift_init_where_line_breaks(src, &mut out);
    gaps::swift_dollar_inside_identifiers(src, &mut out);
    gaps::swift_case_path_prefix_slash(src, &mut out);
    gaps::swift_caret_regex_literals(src, &mut out);
    gaps::swift_keyword_members(src, &mut out);
    gaps::swift_key_path_subscript_dot(src, &mut out);
    gaps::swift_key_path_force_unwrap(src, &mut out);
    gaps::swift_range_operator_names(src, &mut out);
    gaps::swift_empty_tuple_closure_bodies(src, &mut out);
    gaps::swift_specialize_arguments(src, &mut out);
    gaps::swift_modified_local_type_first_in_getter(src, &mut out);
    gaps::swift_module_selectors(src, &mut out);
    gaps::swift_function_type_values(src, &mut out);
    gaps::swift_availability_feature_names(src, &mut out);
    gaps::swift_open_range_loops(src, &mut out);
    gaps::swift_open_calls(src, &mut out);
    gaps::swift_strings_opening_comments(src, &mut out);
    gaps::swift_member_diagnostics(src, &mut out);
    gaps::swift_modifier_named_locals(src, &mut out);
    gaps::swift_ownership_operators_before_blocks(src, &mut out);
    local_statement_prefixes(root, src, &mut out);
    out
}

/// Inside a function or closure body tree-sitter-swift 0.7 reads neither
/// `nonisolated(unsafe) var x` nor an attributed local function in a `case`
/// (`@Sendable func next()`), though it reads both as members. On a line of its own in a
/// body — judged from the tree: a body before any type body among the ancestors — the
/// prefix is excised and hashed where it stands. Members are never touched (their
/// declaration would start later and lose those tokens from its print).
/// Local prefixes repaired per file (real files hold a handful; each repair descends the
/// tree once).
const MAX_LOCAL_PREFIXES: usize = 256;

fn local_statement_prefixes(root: Node<'_>, src: &str, out: &mut Vec<Repair>) {
    let b = src.as_bytes();
    let mut candidates = Vec::new();
    let mut i = 0;
    while let Some(p) = src[i..].find("nonisolated(unsafe)") {
        let at = i + p;
        i = at + 1;
        let end = at + "nonisolated(unsafe)".len();
        let next = src[end..].trim_start_matches([' ', '\t']);
        if next.starts_with("var ") || next.starts_with("let ") {
            candidates.push((at, src.len() - next.len()));
        }
    }
    let mut i = 0;
    while let Some(p) = src[i..].find('@') {
        let at = i + p;
        i = at + 1;
        let name_end = at
            + 1
            + src[at + 1..]
                .bytes()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == b'_')
                .count();
        let next = src[name_end..].trim_start_matches([' ', '\t']);
        if name_end > at + 1 && next.starts_with("func ") && next.len() < src.len() - name_end {
            candidates.push((at, src.len() - next.len()));
        }
    }
    // First on their line only, and a bounded number: each costs a descent from the root.
    candidates.retain(|&(at, end)| gaps::is_line_initial(b, at) && b.get(end).is_some());
    candidates.truncate(MAX_LOCAL_PREFIXES);
    for (at, end) in candidates {
        // the innermost body or type body around `at` decides
        let mut local = false;
        super::descend_to(root, at, |n| match n.kind() {
            "class_body" | "protocol_body" | "enum_class_body" => local = false,
            "function_body" | "lambda_literal" | "statements" | "switch_entry" => local = true,
            _ => {}
        });
        if local {
            out.push(Repair::Excise { start: at, end });
        }
    }
}

/// The argument labels of a parameter list: `(first:second:)`, `(_:)`, `()`.
fn labels(x: &Extract<'_, '_>, node: Node, subscript: bool) -> String {
    let mut out = String::from("(");
    for p in named_children(node).into_iter().filter(|c| c.kind() == "parameter") {
        let label = match p.child_by_field_name("external_name") {
            Some(ext) => x.text(ext).to_string(),
            None if subscript => "_".to_string(),
            None => p
                .child_by_field_name("name")
                .filter(|n| n.kind() == "simple_identifier")
                .map(|n| x.text(n).to_string())
                .unwrap_or_else(|| "_".to_string()),
        };
        out.push_str(&label);
        out.push(':');
    }
    out.push(')');
    out
}

/// The declarations of a file: a work stack of member lists, innermost on top (the
/// depth-first order of a recursive walk; 10 000 nested classes cannot overflow it).
fn walk(x: &mut Extract<'_, '_>, root: Node<'_>) {
    let mut stack: Vec<(std::vec::IntoIter<Node>, Option<Parent>)> = vec![(children(root).into_iter(), None)];
    while let Some((kids, parent)) = stack.last_mut() {
        if x.tick() {
            return;
        }
        let Some(child) = kids.next() else {
            stack.pop();
            continue;
        };
        if !child.is_named() || is_comment(child) {
            continue;
        }
        if let Some((body, p)) = declaration(x, child, parent.as_ref()) {
            stack.push((children(body).into_iter(), Some(p)));
        }
    }
}

/// Reports one declaration; returns its member list, to be walked next.
fn declaration<'t>(x: &mut Extract<'_, '_>, node: Node<'t>, container: Option<&Parent>) -> Option<(Node<'t>, Parent)> {
    let in_type = container.is_some();
    match node.kind() {
        "class_declaration" => {
            let kw = node
                .child_by_field_name("declaration_kind")
                .map(|k| k.kind())
                .unwrap_or("class");
            let kind: &'static str = match kw {
                "struct" => "struct",
                "enum" => "enum",
                "actor" => "actor",
                "extension" => "extension",
                _ => "class",
            };
            let name_node = node.child_by_field_name("name")?;
            // `extension Array where …` names the extended type only.
            let name = x.text(name_node).split('<').next().unwrap_or("").trim().to_string();
            let body = node.child_by_field_name("body");
            let p = x.add(
                container,
                DeclSpec {
                    kind,
                    identity: IdentityKind::Type,
                    name,
                    nodes: vec![node],
                    name_node: Some(name_node),
                    body,
                },
            )?;
            return body.map(|b| (b, p));
        }
        "protocol_declaration" => {
            let name_node = node.child_by_field_name("name")?;
            let body = node.child_by_field_name("body");
            let p = x.add(
                container,
                DeclSpec {
                    kind: "protocol",
                    identity: IdentityKind::Type,
                    name: x.text(name_node).to_string(),
                    nodes: vec![node],
                    name_node: Some(name_node),
                    body,
                },
            )?;
            return body.map(|b| (b, p));
        }
        "function_declaration" | "protocol_function_declaration" => {
            let name_node = node.child_by_field_name("name")?;
            let name = format!("{}{}", x.text(name_node), labels(x, node, false));
            let body = node.child_by_field_name("body");
            x.add(
                container,
                DeclSpec {
                    kind: if in_type { "method" } else { "function" },
                    identity: IdentityKind::Callable,
                    name,
                    nodes: vec![node],
                    name_node: Some(name_node),
                    body,
                },
            );
        }
        // `public macro Reducer() = #externalMacro(…)`: DocC pages link it as ``Reducer()``.
        "macro_declaration" => {
            let name_node = named_children(node).into_iter().find(|c| c.kind() == "simple_identifier")?;
            let name = format!("{}{}", x.text(name_node), labels(x, node, false));
            x.add(
                container,
                DeclSpec {
                    kind: "macro",
                    identity: IdentityKind::Callable,
                    name,
                    nodes: vec![node],
                    name_node: Some(name_node),
                    body: None,
                },
            );
        }
        "init_declaration" => {
            let name = format!("init{}", labels(x, node, false));
            let body = node.child_by_field_name("body");
            let name_node = children(node).into_iter().find(|c| c.kind() == "init");
            x.add(
                container,
                DeclSpec { kind: "init", identity: IdentityKind::Callable, name, nodes: vec![node], name_node, body },
            );
        }
        "deinit_declaration" => {
            let body = node.child_by_field_name("body");
            let name_node = children(node).into_iter().find(|c| c.kind() == "deinit");
            x.add(
                container,
                DeclSpec {
                    kind: "deinit",
                    identity: IdentityKind::Callable,
                    name: "deinit".into(),
                    nodes: vec![node],
                    name_node,
                    body,
                },
            );
        }
        "subscript_declaration" => {
            let name = format!("subscript{}", labels(x, node, true));
            let body = named_children(node).into_iter().find(|c| c.kind() == "computed_property");
            let name_node = children(node).into_iter().find(|c| c.kind() == "subscript");
            x.add(
                container,
                DeclSpec { kind: "subscript", identity: IdentityKind::Callable, name, nodes: vec![node], name_node, body },
            );
        }
        "property_declaration" | "protocol_property_declaration" => {
            let mut c = node.walk();
            let patterns: Vec<Node> = node.children_by_field_name("name", &mut c).collect();
            let body = named_children(node)
                .into_iter()
                .find(|c| matches!(c.kind(), "computed_property" | "protocol_property_requirements"))
                .or_else(|| node.child_by_field_name("value"));
            for p in patterns {
                let ident = p.child_by_field_name("bound_identifier").unwrap_or(p);
                let name = x.text(ident).to_string();
                if name.is_empty() || name.contains(['(', ',']) {
                    continue; // tuple destructuring: no made-up names
                }
                x.add(
                    container,
                    DeclSpec {
                        kind: "property",
                        identity: IdentityKind::Value,
                        name,
                        nodes: vec![node],
                        name_node: Some(ident),
                        body,
                    },
                );
            }
        }
        "enum_entry" => {
            let mut c = node.walk();
            let names: Vec<Node> = node.children_by_field_name("name", &mut c).collect();
            for n in names {
                x.add(
                    container,
                    DeclSpec {
                        kind: "case",
                        identity: IdentityKind::Value,
                        name: x.text(n).to_string(),
                        nodes: vec![node],
                        name_node: Some(n),
                        body: None,
                    },
                );
            }
        }
        "typealias_declaration" => named_type(x, node, container, "typealias"),
        "associatedtype_declaration" => named_type(x, node, container, "associatedtype"),
        _ => {}
    }
    None
}

/// A type-level declaration named by its `name` field, without body or members.
fn named_type(x: &mut Extract<'_, '_>, node: Node, container: Option<&Parent>, kind: &'static str) {
    let Some(name_node) = node.child_by_field_name("name") else { return };
    x.add(
        container,
        DeclSpec {
            kind,
            identity: IdentityKind::Type,
            name: x.text(name_node).to_string(),
            nodes: vec![node],
            name_node: Some(name_node),
            body: None,
        },
    );
}

pub(crate) struct SwiftRules {
    /// Print scheme 3: parentheses around a whole condition or `switch` subject elided.
    structural: bool,
}

/// The rules of print schemes 1 and 2.
static SWIFT_RULES_V2: SwiftRules = SwiftRules { structural: false };

impl TokenRules for SwiftRules {
    fn rule_kinds(&self) -> Option<&'static [&'static str]> {
        // every arm of `rule` below
        Some(&[";", "tuple_expression"])
    }

    fn rule(&self, node: Node, at: &At, _src: &str) -> NodeRule {
        match at.kind {
            ";" => NodeRule::Skip,
            "tuple_expression" if self.structural && is_parenthesized_condition(node, at) => NodeRule::DropDelimiters,
            _ => NodeRule::Descend,
        }
    }
}

/// `if (a == b)`, `guard (x) else`, `while (i < n)`, `repeat { } while (x)`,
/// `switch (v)`: parentheses around a whole condition or subject, which swift-format's
/// NoParensAroundConditions removes. The grammar reads them as a one-element tuple; as
/// the whole condition they change no precedence, so the print is that of the bare
/// expression. A labelled element (`(x: 1)`) or several are a real tuple and stay.
fn is_parenthesized_condition(node: Node, at: &At) -> bool {
    matches!(at.parent_kind(), "if_statement" | "guard_statement" | "while_statement" | "repeat_while_statement" | "switch_statement")
        && node.child_count() == 3
        && node.named_child_count() == 1
}

/// `( )` in the text, read as a tuple whose only operand is a MISSING `!` (what the
/// grammar's error recovery makes of an empty tuple).
fn is_empty_tuple_with_made_up_operand(n: Node<'_>, src: &str) -> bool {
    let text = src.get(n.byte_range()).unwrap_or("");
    let inner = text.strip_prefix('(').and_then(|t| t.strip_suffix(')'));
    if !inner.is_some_and(|i| i.bytes().all(|b| b == b' ' || b == b'\t')) {
        return false;
    }
    let mut c = n.walk();
    let kids: Vec<Node> = n.children(&mut c).collect();
    kids.iter().any(|k| k.is_missing() || (k.child_count() > 0 && k.has_error() && k.end_byte() == k.start_byte()))
}
