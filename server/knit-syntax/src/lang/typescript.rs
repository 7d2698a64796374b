//! TypeScript and TSX: declarations, token rules and imports.
//!
//! Kinds: `function`, `class`, `interface`, `type`, `enum`, `member` (enum member),
//! `namespace`, `method`, `get`, `set`, `property`, `variable`.
//! An overload group (signatures + implementation, adjacent, same name) is one
//! declaration. Object-literal members of a variable are members of that variable
//! (`api.load`). Named functions and classes nested in function bodies are members of
//! the function (`outer.inner`).
//!
//! JavaScript/JSX (`javascript.rs`) shares this walker, [`EcmaRules`] and the imports:
//! tree-sitter-javascript uses the same node names, except `field_definition`
//! (`property` field) for class fields and bare identifiers as arrow parameters.

use super::{children, gaps, named_children, only_named_child, DeclSpec, Extract, LanguageSpec, Lang, Parent, Repair};
use crate::decl::{ExportAlias, IdentityKind, Import};
use crate::tokens::{collapse_ws, is_comment, unescape, At, NodeRule, TokenRules};
use tree_sitter::Node;

const KINDS: &[&str] = &[
    "function", "class", "interface", "type", "enum", "member", "namespace", "method", "get", "set", "property",
    "variable",
];

pub(crate) static TYPESCRIPT: LanguageSpec = LanguageSpec {
    lang: Lang::TypeScript,
    extensions: &["ts", "mts", "cts"],
    grammar: || tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into(),
    kinds: KINDS,
    rules: &ECMA_RULES,
    earlier_rules: &[(1, &ECMA_RULES_V1), (2, &ECMA_RULES_V3), (3, &ECMA_RULES_V3), (4, &ECMA_RULES_V4)],
    declarations,
    imports: collect_imports,
    repairs: |root, src| repairs(root, src, false),
    silent_gaps: super::no_silent_gaps,
    misreadings: super::no_misreadings,
    aliases: export_aliases,
};

pub(crate) static TSX: LanguageSpec = LanguageSpec {
    lang: Lang::Tsx,
    extensions: &["tsx"],
    grammar: || tree_sitter_typescript::LANGUAGE_TSX.into(),
    kinds: KINDS,
    rules: &ECMA_RULES,
    earlier_rules: &[(1, &ECMA_RULES_V1), (2, &ECMA_RULES_V3), (3, &ECMA_RULES_V3), (4, &ECMA_RULES_V4)],
    declarations,
    imports: collect_imports,
    repairs: |root, src| repairs(root, src, true),
    silent_gaps: super::no_silent_gaps,
    misreadings: super::no_misreadings,
    aliases: export_aliases,
};

/// The grammar gaps of TypeScript and, with `tsx`, of TSX (see `gaps.rs`).
fn repairs(root: Node<'_>, src: &str, tsx: bool) -> Vec<Repair> {
    let mut out = Vec::new();
    gaps::typescript_variance(src, &mut out);
    gaps::typescript_export_type_star(src, &mut out);
    gaps::typescript_using_identifiers(src, &mut out);
    gaps::typescript_using_type_annotations(src, &mut out);
    gaps::typescript_inline_import_types(src, &mut out);
    gaps::typescript_let_as(src, &mut out);
    gaps::typescript_tagged_template_type_arguments(src, &mut out);
    gaps::typescript_joined_generic_type_arguments(src, &mut out);
    gaps::typescript_keyof_readonly(src, &mut out);
    gaps::typescript_keyword_member_names(src, &mut out);
    let mut template_types = Vec::new();
    super::walk_errors(root, |n, _| {
        if n.kind() == "template_literal_type" {
            template_types.push(n.start_byte());
        }
        if n.kind() == "array" {
            if let Some(mark) = optional_element_mark(n) {
                out.push(Repair::Excise { start: mark.start_byte(), end: mark.end_byte() });
            }
        }
        true
    });
    gaps::typescript_template_type_escapes(src, &template_types, &mut out);
    gaps::typescript_line_initial_operator_members(src, &mut out);
    gaps::auto_accessors(src, false, &mut out);
    // In TSX a line-initial `<` is usually JSX, which the grammar reads.
    if !tsx {
        gaps::typescript_line_initial_signature(src, &mut out);
    } else {
        gaps::tsx_bare_ampersands(src, &mut out);
        gaps::tsx_text_ampersands(src, &jsx_error_texts(root), &mut out);
    }
    out
}

/// The `?` of a one-element optional tuple in a call's type arguments
/// (`expectType<[number?]>(x)`, `expectType<['foo'?] | undefined>(x)`, type-fest's tests):
/// tree-sitter-typescript 0.23 then reads `f<[` as a comparison with an array, where the
/// `?` is an error (`[string, number?]` and `readonly [number?]` it reads). Excised and
/// hashed where it stands, the rest reads as the call with a tuple type it is. Only a
/// lone `?` right before the array's `]` is taken: no expression in an array ends so.
fn optional_element_mark(array: Node<'_>) -> Option<Node<'_>> {
    let kids = children(array);
    let [.., mark, close] = kids.as_slice() else { return None };
    let lone_mark = mark.is_error() && mark.child_count() == 1 && mark.child(0).is_some_and(|q| q.kind() == "?");
    (lone_mark && close.kind() == "]").then_some(*mark)
}

/// The ERROR nodes among a JSX element's children: text the grammar choked on (for
/// [`gaps::tsx_text_ampersands`]).
pub(crate) fn jsx_error_texts(root: Node<'_>) -> Vec<(usize, usize)> {
    let mut texts = Vec::new();
    super::walk_errors(root, |n, parent| {
        if n.is_error() {
            if parent == "jsx_element" {
                texts.push((n.start_byte(), n.end_byte()));
            }
            return false;
        }
        true
    });
    texts
}

/// Declarations of an ECMAScript module (TypeScript, TSX, JavaScript, JSX). A work
/// stack of scopes, innermost on top: the same depth-first order as a recursive walk,
/// without the recursion a file of 10 000 nested object literals would overflow.
pub(crate) fn declarations(x: &mut Extract<'_, '_>, root: Node<'_>) {
    let mut stack: Vec<Frame> = vec![Frame { items: scope_items(x, root, Scope::Module).into_iter(), parent: None }];
    while let Some(frame) = stack.last_mut() {
        if x.tick() {
            return;
        }
        let Some(item) = frame.items.next() else {
            stack.pop();
            continue;
        };
        let added = x.add(
            frame.parent.as_ref(),
            DeclSpec {
                kind: item.kind,
                identity: item.identity,
                name: item.name,
                nodes: item.nodes,
                name_node: item.name_node,
                body: item.body,
            },
        );
        if let (Some(parent), Some((inner, inner_scope))) = (added, item.inner) {
            let items = scope_items(x, inner, inner_scope);
            stack.push(Frame { items: items.into_iter(), parent: Some(parent) });
        }
    }
}

/// One scope being reported: its remaining declarations and what they belong to.
struct Frame<'t> {
    items: std::vec::IntoIter<Item<'t>>,
    parent: Option<Parent>,
}

#[derive(Clone, Copy, PartialEq)]
enum Scope {
    Module,
    Class,
    Interface,
    Object,
    Enum,
    FunctionBody,
}

/// One declaration-to-be, before overload groups are merged.
struct Item<'t> {
    kind: &'static str,
    identity: IdentityKind,
    name: String,
    nodes: Vec<Node<'t>>,
    name_node: Option<Node<'t>>,
    body: Option<Node<'t>>,
    /// A signature without implementation (overload member).
    signature_only: bool,
    /// What to walk for members, and as which scope.
    inner: Option<(Node<'t>, Scope)>,
}

/// The declarations directly in one scope, overload groups merged.
fn scope_items<'t>(x: &mut Extract<'_, '_>, node: Node<'t>, kind: Scope) -> Vec<Item<'t>> {
    let mut items: Vec<Item<'t>> = Vec::new();
    let mut pending_decorators: Vec<Node<'t>> = Vec::new();
    for child in children(node) {
        if x.tick() {
            break;
        }
        if is_comment(child) || !child.is_named() {
            continue;
        }
        if child.kind() == "decorator" {
            pending_decorators.push(child);
            continue;
        }
        let before = items.len();
        items_of(x, child, &mut items, Vec::new(), kind);
        if items.len() > before {
            if let Some(first) = items.get_mut(before) {
                let mut nodes = std::mem::take(&mut pending_decorators);
                nodes.append(&mut first.nodes);
                first.nodes = nodes;
            }
        }
        pending_decorators.clear();
    }
    // Merge adjacent overloads: signatures followed by (at most) one implementation. In
    // place: a second list would double the peak for a file of 100 000 tiny declarations.
    items.dedup_by(|item, prev| {
        let overload = prev.signature_only
            && prev.identity == IdentityKind::Callable
            && item.identity == IdentityKind::Callable
            && prev.name == item.name
            && prev.kind == item.kind;
        if overload {
            prev.nodes.append(&mut item.nodes);
            prev.name_node = item.name_node.or(prev.name_node);
            prev.body = item.body;
            prev.signature_only = item.signature_only;
            prev.inner = item.inner;
        }
        overload
    });
    // The module scope's list lives through the whole walk: no growth slack.
    items.shrink_to_fit();
    items
}

fn is_function_value(n: Node) -> bool {
    matches!(
        n.kind(),
        "arrow_function" | "function_expression" | "function" | "generator_function"
    )
}

/// The body of a function value (`() => {…}` → the block; `() => expr` → the expr).
fn function_value_body(n: Node) -> Option<Node> {
    n.child_by_field_name("body")
}

fn name_text(x: &Extract<'_, '_>, n: Node) -> String {
    match n.kind() {
        "string" => {
            let raw = x.text(n);
            let inner = raw.get(1..raw.len().saturating_sub(1)).unwrap_or("");
            unescape(inner)
        }
        _ => collapse_ws(x.text(n)),
    }
}

fn items_of<'t>(x: &Extract<'_, '_>, node: Node<'t>, out: &mut Vec<Item<'t>>, mut wrappers: Vec<Node<'t>>, scope: Scope) {
    let kind = node.kind();
    match kind {
        "export_statement" => {
            if let Some(decl) = node.child_by_field_name("declaration") {
                wrappers.push(node);
                // The export wrapper's own tokens (`export`, `default`) belong to the
                // declaration: adding or removing `export` is a behavioural change.
                items_of_wrapped(x, decl, out, wrappers, scope, node);
            } else if let Some(value) = node.child_by_field_name("value") {
                // `export default <expression>`: a function or class expression is a
                // declaration named `default`.
                if is_function_value(value) || value.kind() == "class" {
                    out.push(Item {
                        kind: if value.kind() == "class" { "class" } else { "function" },
                        identity: if value.kind() == "class" { IdentityKind::Type } else { IdentityKind::Callable },
                        name: "default".into(),
                        nodes: vec![node],
                        name_node: None,
                        body: value.child_by_field_name("body"),
                        signature_only: false,
                        inner: None,
                    });
                }
            }
        }
        "ambient_declaration" => {
            // The grammar lets `declare` wrap `declare` without limit: the chain is walked
            // with a stack, not recursion. A declaration directly under the chain starts
            // at its outermost `declare` (the wrapper replaces it as first node).
            let mut pending = vec![named_children(node).into_iter()];
            while let Some(kids) = pending.last_mut() {
                let Some(c) = kids.next() else {
                    pending.pop();
                    continue;
                };
                if c.kind() == "ambient_declaration" {
                    pending.push(named_children(c).into_iter());
                    continue;
                }
                let start = out.len();
                items_of(x, c, out, Vec::new(), scope);
                for it in &mut out[start..] {
                    if it.nodes.first().map(|n| n.id()) == Some(c.id()) {
                        it.nodes[0] = node;
                    }
                }
            }
        }
        "expression_statement" => {
            // Only a namespace the grammar read as an expression declares anything; the
            // list is empty (no allocation) for every other statement.
            let mut cursor = node.walk();
            let modules: Vec<Node<'t>> =
                node.named_children(&mut cursor).filter(|c| matches!(c.kind(), "internal_module" | "module")).collect();
            for c in modules {
                items_of(x, c, out, wrappers.clone(), scope);
            }
        }
        _ => items_of_plain(x, node, out, scope),
    }
}

/// A declaration under an `export` wrapper: the wrapper replaces the declaration node
/// in the token list (it contains it).
fn items_of_wrapped<'t>(
    x: &Extract<'_, '_>,
    decl: Node<'t>,
    out: &mut Vec<Item<'t>>,
    _wrappers: Vec<Node<'t>>,
    scope: Scope,
    wrapper: Node<'t>,
) {
    let start = out.len();
    items_of_plain(x, decl, out, scope);
    let single = out.len() - start == 1;
    for it in &mut out[start..] {
        if let Some(first) = it.nodes.first_mut() {
            if first.id() == decl.id() {
                *first = wrapper;
            } else if single {
                // a variable declarator inside `export const`: keep the declarator's own
                // tokens but add the `export` keyword through the wrapper.
                *first = wrapper;
            }
        }
    }
}

fn items_of_plain<'t>(x: &Extract<'_, '_>, node: Node<'t>, out: &mut Vec<Item<'t>>, scope: Scope) {
    let kind = node.kind();
    // Asked only by the arms that name a declaration: most nodes seen here are statements
    // of a function body, and a field look-up walks the node's children.
    let name_node = || node.child_by_field_name("name");
    let simple = |k: &'static str, id: IdentityKind, body: Option<Node<'t>>, sig: bool, inner: Option<(Node<'t>, Scope)>| {
        name_node().map(|nn| Item {
            kind: k,
            identity: id,
            name: name_text(x, nn),
            nodes: vec![node],
            name_node: Some(nn),
            body,
            signature_only: sig,
            inner,
        })
    };
    let item = match kind {
        "function_declaration" | "generator_function_declaration" => {
            let body = node.child_by_field_name("body");
            simple("function", IdentityKind::Callable, body, false, body.map(|b| (b, Scope::FunctionBody)))
        }
        "function_signature" => simple("function", IdentityKind::Callable, None, true, None),
        "class_declaration" | "abstract_class_declaration" | "class" => {
            let body = node.child_by_field_name("body");
            simple("class", IdentityKind::Type, body, false, body.map(|b| (b, Scope::Class)))
        }
        "interface_declaration" => {
            let body = node.child_by_field_name("body");
            simple("interface", IdentityKind::Type, body, false, body.map(|b| (b, Scope::Interface)))
        }
        "type_alias_declaration" => simple("type", IdentityKind::Type, node.child_by_field_name("value"), false, None),
        "enum_declaration" => {
            let body = node.child_by_field_name("body");
            simple("enum", IdentityKind::Type, body, false, body.map(|b| (b, Scope::Enum)))
        }
        "internal_module" | "module" => {
            let body = node.child_by_field_name("body");
            simple("namespace", IdentityKind::Module, body, false, body.map(|b| (b, Scope::Module)))
        }
        "method_definition" if scope != Scope::FunctionBody => {
            let accessor = children(node)
                .iter()
                .find(|c| !c.is_named() && matches!(c.kind(), "get" | "set"))
                .map(|c| c.kind());
            let k: &'static str = match accessor {
                Some("get") => "get",
                Some("set") => "set",
                _ => "method",
            };
            let body = node.child_by_field_name("body");
            simple(k, IdentityKind::Callable, body, false, body.map(|b| (b, Scope::FunctionBody)))
        }
        "method_signature" | "abstract_method_signature" => {
            let k: &'static str = if children(node).iter().any(|c| !c.is_named() && c.kind() == "get") {
                "get"
            } else if children(node).iter().any(|c| !c.is_named() && c.kind() == "set") {
                "set"
            } else {
                "method"
            };
            simple(k, IdentityKind::Callable, None, true, None)
        }
        "public_field_definition" | "property_signature" | "field_definition" => {
            // JavaScript's `field_definition` names its field `property`.
            let name_node = name_node().or_else(|| node.child_by_field_name("property"));
            let value = node.child_by_field_name("value");
            let callable = value.is_some_and(is_function_value);
            let body = value.and_then(|v| if is_function_value(v) { function_value_body(v) } else { Some(v) });
            name_node.map(|nn| Item {
                kind: "property",
                identity: if callable { IdentityKind::Callable } else { IdentityKind::Value },
                name: name_text(x, nn),
                nodes: vec![node],
                name_node: Some(nn),
                body,
                signature_only: false,
                inner: None,
            })
        }
        "lexical_declaration" | "variable_declaration" if scope != Scope::FunctionBody => {
            let keyword = node.child(0);
            for decl in named_children(node).into_iter().filter(|c| c.kind() == "variable_declarator") {
                let Some(nn) = decl.child_by_field_name("name") else { continue };
                if nn.kind() != "identifier" {
                    continue; // destructuring patterns are never given a made-up name
                }
                let value = decl.child_by_field_name("value");
                let callable = value.is_some_and(is_function_value);
                let body = value.and_then(|v| if is_function_value(v) { function_value_body(v) } else { Some(v) });
                let inner = value.filter(|v| v.kind() == "object").map(|v| (v, Scope::Object));
                let mut nodes = Vec::with_capacity(2);
                if let Some(k) = keyword {
                    nodes.push(k);
                }
                nodes.push(decl);
                out.push(Item {
                    kind: "variable",
                    identity: if callable { IdentityKind::Callable } else { IdentityKind::Value },
                    name: name_text(x, nn),
                    nodes,
                    name_node: Some(nn),
                    body,
                    signature_only: false,
                    inner,
                });
            }
            None
        }
        // Object literal members (`const api = { load() {…}, save: () => … }`).
        "pair" if scope == Scope::Object => {
            let key = node.child_by_field_name("key");
            let value = node.child_by_field_name("value");
            match (key, value) {
                (Some(k), Some(v)) if matches!(k.kind(), "property_identifier" | "string" | "number") => {
                    let callable = is_function_value(v);
                    Some(Item {
                        kind: if callable { "method" } else { "property" },
                        identity: if callable { IdentityKind::Callable } else { IdentityKind::Value },
                        name: name_text(x, k),
                        nodes: vec![node],
                        name_node: Some(k),
                        body: if callable { function_value_body(v) } else { Some(v) },
                        signature_only: false,
                        inner: if v.kind() == "object" { Some((v, Scope::Object)) } else { None },
                    })
                }
                _ => None,
            }
        }
        // Enum members: `A`, `B = 2`.
        "property_identifier" if scope == Scope::Enum => Some(Item {
            kind: "member",
            identity: IdentityKind::Value,
            name: x.text(node).to_string(),
            nodes: vec![node],
            name_node: Some(node),
            body: None,
            signature_only: false,
            inner: None,
        }),
        "enum_assignment" if scope == Scope::Enum => simple("member", IdentityKind::Value, None, false, None),
        _ => None,
    };
    if let Some(it) = item {
        out.push(it);
    }
}

/// Token rules shared by TypeScript, TSX (and JavaScript, which uses the same node names).
pub(crate) struct EcmaRules {
    /// Print scheme 2: parentheses around a nested conditional and around types are
    /// elided where the tree is the same without them (scheme 1 hashed them).
    structural_parens: bool,
    /// Print scheme 4: what prettier changes in Effect's code is no change — parentheses
    /// around an arrow, a `yield` or a cast as a conditional's branch, a cast as the
    /// operand of a logical or equality operator, a `yield`'s operand, a `for … of`'s
    /// iterable, an assignment in a sequence, the type after a conditional type's
    /// `extends`, a tuple element's type, a type parameter's constraint, `keyof T` in a
    /// union or intersection, an intersection in a union; and a regular expression's flags
    /// in any order.
    formatter_parens: bool,
    /// Print scheme 5: only a string literal is hashed as one. TypeScript's type keyword
    /// `string` is an anonymous node of the same kind name, and earlier schemes hashed it
    /// as the literal `"trin"` (its text without the first and last byte), so a type
    /// changed from `string` to `'trin'` printed the same. (JavaScript has no such keyword:
    /// its prints are the same in schemes 4 and 5.)
    named_strings: bool,
}

pub(crate) static ECMA_RULES: EcmaRules = EcmaRules { structural_parens: true, formatter_parens: true, named_strings: true };
/// The rules of print scheme 4.
pub(crate) static ECMA_RULES_V4: EcmaRules = EcmaRules { structural_parens: true, formatter_parens: true, named_strings: false };
/// The rules of print schemes 2 and 3 (the same for these languages).
pub(crate) static ECMA_RULES_V3: EcmaRules = EcmaRules { structural_parens: true, formatter_parens: false, named_strings: false };
pub(crate) static ECMA_RULES_V1: EcmaRules = EcmaRules { structural_parens: false, formatter_parens: false, named_strings: false };

impl TokenRules for EcmaRules {
    fn phantom_string(&self, quoted: &str) -> Option<String> {
        // as `rule` prints a string that is no property key
        let inner = quoted.get(1..quoted.len().saturating_sub(1)).unwrap_or("");
        Some(format!("\u{2}{}", unescape(inner)))
    }

    fn phantom_skips(&self, token: &str) -> bool {
        token == ";"
    }

    fn rule_kinds(&self) -> Option<&'static [&'static str]> {
        // every arm of `rule` below
        Some(&[
            ";",
            "|",
            "&",
            "string",
            "number",
            "regex_flags",
            "jsx_text",
            "formal_parameters",
            "parenthesized_expression",
            "parenthesized_type",
        ])
    }

    fn rule(&self, node: Node, at: &At, src: &str) -> NodeRule {
        let kind = at.kind;
        match kind {
            ";" => NodeRule::Skip,
            // prettier adds or drops the leading `|` / `&` of a multi-line union or
            // intersection type.
            "|" | "&" if at.is_first() && matches!(at.parent_kind(), "union_type" | "intersection_type") => NodeRule::Skip,
            "string" if !self.named_strings || node.is_named() => {
                let raw = src.get(node.byte_range()).unwrap_or("");
                let inner = raw.get(1..raw.len().saturating_sub(1)).unwrap_or("");
                let value = unescape(inner);
                // `{"a": 1}` and `{a: 1}` are the same key (prettier's quote-props).
                // The parent kinds tested have a handful of children: asking them for a
                // field is cheap.
                let is_key = at.parent_node().is_some_and(|p| {
                    let field = match p.kind() {
                        "pair" => "key",
                        "field_definition" => "property",
                        _ => "name",
                    };
                    matches!(
                        p.kind(),
                        "pair" | "property_signature" | "public_field_definition" | "method_definition" | "field_definition"
                    ) && p.child_by_field_name(field).map(|k| k.id()) == Some(node.id())
                });
                if is_key && is_identifier(&value) {
                    NodeRule::Emit(value)
                } else {
                    NodeRule::Emit(format!("\u{2}{value}"))
                }
            }
            "number" => NodeRule::Emit(normalise_number(src.get(node.byte_range()).unwrap_or(""))),
            // prettier sorts a regular expression's flags (`/~/ig` → `/~/gi`; scheme 4)
            "regex_flags" if self.formatter_parens => {
                let mut flags: Vec<char> = src.get(node.byte_range()).unwrap_or("").chars().collect();
                flags.sort_unstable();
                NodeRule::Emit(flags.into_iter().collect())
            }
            "jsx_text" => {
                let t = collapse_ws(src.get(node.byte_range()).unwrap_or(""));
                if t.is_empty() {
                    NodeRule::Skip
                } else {
                    NodeRule::Emit(t)
                }
            }
            "formal_parameters" => {
                // `(x) => …` and `x => …` are the same arrow function. Only an arrow's
                // parameters are looked at (every function has a parameter list).
                if at.parent_kind() != "arrow_function" {
                    return NodeRule::Descend;
                }
                let params = named_children(node);
                // JavaScript has a bare `identifier` where TypeScript has a `required_parameter`.
                if params.len() == 1 && params[0].kind() == "identifier" {
                    return NodeRule::Emit(src.get(params[0].byte_range()).unwrap_or("").to_string());
                }
                if params.len() == 1 && params[0].kind() == "required_parameter" {
                    let p = named_children(params[0]);
                    if p.len() == 1 && p[0].kind() == "identifier" {
                        return NodeRule::Emit(src.get(p[0].byte_range()).unwrap_or("").to_string());
                    }
                }
                NodeRule::Descend
            }
            "parenthesized_expression" if parens_redundant(node, at, self.structural_parens, self.formatter_parens) => NodeRule::DropDelimiters,
            "parenthesized_type" if self.structural_parens && type_parens_redundant(node, at, self.formatter_parens) => NodeRule::DropDelimiters,
            _ => NodeRule::Descend,
        }
    }
}

fn is_identifier(s: &str) -> bool {
    let mut chars = s.chars();
    matches!(chars.next(), Some(c) if c.is_alphabetic() || c == '_' || c == '$')
        && chars.all(|c| c.is_alphanumeric() || c == '_' || c == '$')
}

/// Numbers by value, the way prettier prints them (`1.50` = `1.5`, `0XFF` = `0xff` = 255).
fn normalise_number(raw: &str) -> String {
    // A plain decimal integer (no leading zero, exact as an f64) prints as written: most
    // numbers in code, spared a parse and a format.
    let b = raw.as_bytes();
    if !b.is_empty() && b.len() <= 15 && b.iter().all(u8::is_ascii_digit) && (b[0] != b'0' || b.len() == 1) {
        return raw.to_string();
    }
    let s = raw.to_ascii_lowercase().replace('_', "");
    if s.ends_with('n') {
        return s;
    }
    let parsed = if let Some(h) = s.strip_prefix("0x") {
        u128::from_str_radix(h, 16).ok().map(|v| v.to_string())
    } else if let Some(o) = s.strip_prefix("0o") {
        u128::from_str_radix(o, 8).ok().map(|v| v.to_string())
    } else if let Some(b) = s.strip_prefix("0b") {
        u128::from_str_radix(b, 2).ok().map(|v| v.to_string())
    } else {
        s.parse::<f64>().ok().filter(|v| v.is_finite()).map(|v| format!("{v}"))
    };
    parsed.unwrap_or(s)
}

/// Operator precedence for binary expressions (higher binds tighter).
fn precedence(op: &str) -> u8 {
    match op {
        "??" => 1,
        "||" => 2,
        "&&" => 3,
        "|" => 4,
        "^" => 5,
        "&" => 6,
        "==" | "!=" | "===" | "!==" => 7,
        "<" | ">" | "<=" | ">=" | "instanceof" | "in" => 8,
        "<<" | ">>" | ">>>" => 9,
        "+" | "-" => 10,
        "*" | "/" | "%" => 11,
        "**" => 12,
        _ => 0,
    }
}

fn binary_op(node: Node) -> Option<&'static str> {
    node.child_by_field_name("operator").map(|o| o.kind())
}

/// Parentheses a formatter may add or remove without changing meaning. The parent is
/// asked for a field only when its kind has a bounded number of children (a call, an
/// assignment, a binary expression), never per child of an argument list or array.
fn parens_redundant(node: Node, at: &At, structural: bool, formatter: bool) -> bool {
    let Some(inner) = only_named_child(node) else { return false };
    let parent = at.parent_node();
    let parent_kind = at.parent_kind();
    // `() => ({})` is not `() => {}`; `f((a, b))` is not `f(a, b)`.
    if inner.kind() == "object" && parent_kind == "arrow_function" {
        return false;
    }
    if inner.kind() == "sequence_expression" && !matches!(parent_kind, "expression_statement" | "parenthesized_expression") {
        return false;
    }
    // `if ((a && b) || c)` written `if (\n  (a && b || c)\n)`: the inner pair is the
    // redundant one, dropped below for its parent; the outer one stays as its own context
    // says (scheme 4; before, the outer pair went too, so both did).
    let nested = formatter && inner.kind() == "parenthesized_expression";
    if !nested && matches!(
        inner.kind(),
        "identifier"
            | "member_expression"
            | "subscript_expression"
            | "call_expression"
            | "this"
            | "number"
            | "string"
            | "template_string"
            | "true"
            | "false"
            | "null"
            | "undefined"
            | "array"
            | "object"
            | "parenthesized_expression"
            | "jsx_element"
            | "jsx_self_closing_element"
            | "jsx_fragment"
            | "regex"
            | "non_null_expression"
    ) {
        // …except as the callee of a call or `new`, where `(a.b)()` differs in `this`.
        return !matches!(parent_kind, "call_expression" | "new_expression")
            || parent.and_then(|p| p.child_by_field_name("function").or(p.child_by_field_name("constructor")))
                .map(|f| f.id())
                != Some(node.id());
    }
    match parent_kind {
        "return_statement" | "variable_declarator" | "jsx_expression" | "arguments" | "array" | "expression_statement"
        | "parenthesized_expression" | "spread_element" | "pair" => true,
        "arrow_function" => true,
        // `yield* (x as T)`: a yield's operand is a whole assignment expression
        // (print scheme 4).
        "yield_expression" => formatter,
        // Print scheme 4: `(function () {}) as any`, `(function* () {}).constructor`
        // where no statement starts with them (there `function` would begin a
        // declaration).
        "as_expression" | "satisfies_expression" | "member_expression"
            if formatter && matches!(inner.kind(), "function_expression" | "generator_function" | "class") =>
        {
            (at.parent_kind() != "member_expression" || is_field(parent, "object", node)) && !starts_a_statement(node, at)
        }
        // Print scheme 4: `for (const o of (xs as T))`; `(a = 1, b)` in a sequence.
        "for_in_statement" => formatter && is_field(parent, "right", node),
        "sequence_expression" => formatter && inner.kind() == "assignment_expression",
        // `throw (a ?? b)`: prettier wraps a broken throw argument as it does a return's
        // (print scheme 2; scheme 1 hashed them).
        "throw_statement" => structural,
        "assignment_expression" | "augmented_assignment_expression" => parent
            .and_then(|p| p.child_by_field_name("right"))
            .is_some_and(|r| r.id() == node.id()),
        // Print scheme 4: a cast binds as a relational operator does, tighter than
        // equality and every logical operator (`a ?? (b as T)`, as prettier writes it).
        "binary_expression" if formatter && matches!(inner.kind(), "as_expression" | "satisfies_expression") => {
            parent.and_then(binary_op).is_some_and(|pop| precedence(pop) > 0 && precedence(pop) < precedence("<"))
        }
        "binary_expression" => {
            let (Some(pop), Some(iop)) = (parent.and_then(binary_op), binary_op(inner)) else {
                return false;
            };
            // Tighter binding, or the same precedence as the left operand (`(a * b) / c`,
            // which prettier writes for mixed `*` and `/`): binary operators but `**`
            // associate to the left.
            let is_left = parent.and_then(|p| p.child_by_field_name("left")).is_some_and(|l| l.id() == node.id());
            inner.kind() == "binary_expression"
                && pop != "**"
                && (precedence(iop) > precedence(pop) || (is_left && precedence(iop) == precedence(pop) && iop != "**"))
        }
        // A nested conditional as the consequence or the alternative: `a ? (b ? c : d) : e`
        // is `a ? b ? c : d : e` (prettier adds or drops these with the line width); as
        // the condition it is not.
        // Print scheme 4: `c ? (() => a) : (b as T)` is `c ? () => a : b as T` — a cast
        // binds tighter than `?` and `:` anywhere, an arrow only outside the condition
        // (`(() => a) ? b : c` is no arrow returning a conditional).
        "ternary_expression" => {
            matches!(inner.kind(), "binary_expression" | "unary_expression" | "await_expression")
                || (structural && inner.kind() == "ternary_expression" && !is_field(parent, "condition", node))
                || (formatter && matches!(inner.kind(), "as_expression" | "satisfies_expression"))
                || (formatter
                    && matches!(inner.kind(), "arrow_function" | "yield_expression")
                    && !is_field(parent, "condition", node))
        }
        _ => false,
    }
}

/// Whether `node` is where an expression statement or an `export default` begins (its
/// ancestors start at its first byte, up to the statement); undecided after 16 levels,
/// which counts as yes.
fn starts_a_statement(node: Node, at: &At) -> bool {
    for n in 1..=16 {
        let Some(a) = at.ancestor(n) else { return false };
        match a.kind {
            "expression_statement" => return true,
            "export_statement" => return a.node.child_by_field_name("value").is_some_and(|v| v.start_byte() == node.start_byte()),
            _ if a.node.start_byte() != node.start_byte() => return false,
            _ => {}
        }
    }
    true
}

/// `node` is the `field` child of `parent`.
fn is_field(parent: Option<Node>, field: &str, node: Node) -> bool {
    parent.and_then(|p| p.child_by_field_name(field)).is_some_and(|c| c.id() == node.id())
}

/// Parentheses around a type that a formatter may add or remove: around a primary type
/// (`(A)[]` is `A[]`), in a position that takes a whole type (an annotation, an alias's
/// value, a type argument), and around a conditional type's branches (`R extends E ?
/// (R extends U ? R : never) : R`). `(A | B)[]` and `A | B[]` still differ.
fn type_parens_redundant(node: Node, at: &At, formatter: bool) -> bool {
    let Some(inner) = only_named_child(node) else { return false };
    if matches!(
        inner.kind(),
        "type_identifier"
            | "predefined_type"
            | "generic_type"
            | "nested_type_identifier"
            | "object_type"
            | "tuple_type"
            | "literal_type"
            | "lookup_type"
            | "type_query"
            | "parenthesized_type"
            | "this_type"
            | "template_literal_type"
    ) {
        return true;
    }
    let parent = at.parent_node();
    match at.parent_kind() {
        "type_annotation" | "type_alias_declaration" | "type_arguments" | "parenthesized_type" => true,
        "conditional_type" => {
            is_field(parent, "consequence", node)
                || is_field(parent, "alternative", node)
                // `A extends (X | Y) ? …`, `A extends ((…a: any) => infer R) ? …` (print
                // scheme 4: a function type there ends before the `?`); a conditional type
                // there would swallow it
                || (formatter && is_field(parent, "right", node) && inner.kind() != "conditional_type")
        }
        // Print scheme 4: a tuple's element and a type parameter's constraint take a whole
        // type (`[(A | B), S]`, `Id extends (keyof S)`); `keyof T` binds tighter than `&`
        // and `|` (`(keyof A) & (keyof B)`).
        "tuple_type" | "constraint" => formatter,
        "intersection_type" => formatter && inner.kind() == "index_type_query",
        // `&` binds tighter than `|`: `(A & B) | undefined` (prettier adds these).
        "union_type" => formatter && matches!(inner.kind(), "index_type_query" | "intersection_type"),
        _ => false,
    }
}

/// `export { local as alias }` at the top level of the file, without `from` (a re-export
/// of another module names nothing this file declares); `export { a }` and `a as a` are
/// not aliases. Bounded by the file's top-level statements.
pub(crate) fn export_aliases(root: Node, src: &str) -> Vec<ExportAlias> {
    let text = |n: Node| src.get(n.byte_range()).unwrap_or("").to_string();
    let mut out = Vec::new();
    for stmt in named_children(root) {
        if stmt.kind() != "export_statement" || stmt.child_by_field_name("source").is_some() {
            continue;
        }
        for clause in named_children(stmt).into_iter().filter(|c| c.kind() == "export_clause") {
            for spec in named_children(clause).into_iter().filter(|s| s.kind() == "export_specifier") {
                let (Some(name), Some(alias)) = (spec.child_by_field_name("name"), spec.child_by_field_name("alias")) else { continue };
                let (local, alias) = (text(name), text(alias));
                if local != alias && !alias.is_empty() && alias != "default" {
                    out.push(ExportAlias { alias, local });
                }
            }
        }
    }
    out
}

pub(crate) fn collect_imports(root: Node, src: &str) -> Vec<Import> {
    let mut out = Vec::new();
    let mut stack = vec![root];
    while let Some(node) = stack.pop() {
        match node.kind() {
            "import_statement" | "export_statement" => {
                if let Some(s) = node.child_by_field_name("source") {
                    push_string(&mut out, s, src);
                }
                if node.kind() == "import_statement" {
                    // `import x = require("y")`
                    for c in named_children(node) {
                        if c.kind() == "import_require_clause" {
                            if let Some(s) = c.child_by_field_name("source") {
                                push_string(&mut out, s, src);
                            }
                        }
                    }
                }
                if node.kind() == "import_statement" {
                    continue;
                }
            }
            "call_expression" => {
                let f = node.child_by_field_name("function");
                let is_require = f.is_some_and(|f| {
                    (f.kind() == "identifier" && src.get(f.byte_range()) == Some("require")) || f.kind() == "import"
                });
                if is_require {
                    if let Some(args) = node.child_by_field_name("arguments") {
                        if let Some(first) = named_children(args).first() {
                            if first.kind() == "string" {
                                push_string(&mut out, *first, src);
                            }
                        }
                    }
                }
            }
            _ => {}
        }
        let kids: Vec<Node> = node.children(&mut node.walk()).collect();
        stack.extend(kids.into_iter().rev());
    }
    out.sort_by_key(|i| i.line);
    out
}

fn push_string(out: &mut Vec<Import>, s: Node, src: &str) {
    let raw = src.get(s.byte_range()).unwrap_or("");
    if raw.len() >= 2 {
        out.push(Import { specifier: unescape(&raw[1..raw.len() - 1]), line: s.start_position().row as u32 + 1 });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_integers_normalise_as_their_decimal_forms_do() {
        // The fast path for plain integers must print what the parse-and-format path
        // prints for the same value written another way.
        for n in ["0", "1", "7", "42", "100", "65535", "123456789012345", "999999999999999"] {
            assert_eq!(normalise_number(n), normalise_number(&format!("{n}.0")), "{n}");
            assert_eq!(normalise_number(n), normalise_number(&format!("{n}e0")), "{n}");
        }
        assert_eq!(normalise_number("007"), "7");
        assert_eq!(normalise_number("1_000"), "1000");
        assert_eq!(normalise_number("0xFF"), "255");
        assert_eq!(normalise_number("12345678901234567890"), normalise_number("12345678901234567890.0"));
    }
}
