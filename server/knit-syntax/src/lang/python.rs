//! Python: declarations, token rules and imports.
//!
//! Kinds: `class`, `function` (module level, or nested in a function), `method` (in a
//! class body), `get` / `set` / `delete` (`@property` methods and their `@x.setter` /
//! `@x.deleter`: `get:Cart.total`, `set:Cart.total`), `property` (class-level
//! assignment), `variable` (module-level assignment).
//!
//! Naming: `Class.method`, `Outer.Inner.method`, nested functions `outer.inner`;
//! definitions under module-level `if`/`try`/`with` blocks (`if TYPE_CHECKING:`) keep
//! their plain names. Decorators belong to the declaration's tokens (a changed decorator
//! is a change) but never to its identity. Several definitions of one name (`@overload`
//! stubs, conditional definitions) are told apart with `~N`. Assignments to several
//! names (`a = b = 1`) declare each name; tuple targets (`a, b = …`) declare none.
//!
//! Token rules (black / ruff-format invisible):
//! - comments are dropped; `;` between statements is dropped;
//! - string literals by value: quote style (`'a'`/`"a"`/`'''a'''`), the escapes a quote
//!   change adds or removes (`'it\'s'` = `"it's"`) and prefix case (`U"a"`, `R'a'`) are
//!   not changes. A *docstring* (a statement that is a bare string) is part of its
//!   declaration — editing it is a change — but compared with whitespace collapsed,
//!   since formatters re-indent docstrings;
//! - numbers by lower-cased spelling (`0XFF` = `0xff`, `1E5` = `1e5`);
//! - parentheses black adds or removes: around a whole statement value (`return (x)`,
//!   `x = (\n a + b\n)`, `if (a):`, `for x in (y):`), around atoms, and doubled ones;
//!   `(a,)` stays a one-tuple;
//! - trailing commas (generic).
//!
//! Indentation is meaning in Python, and tokens carry no layout, so block structure is
//! made explicit: the `:` before a block carries the block's statement count, and the
//! first token of every statement is marked — `if a:\n  b\nc` and `if a:\n  b\n  c`
//! differ, `a\n-b` and `a - b` differ.
//!
//! Imports: `import a.b` → `a.b`; `from .a import b` → `.a`; `from .. import z` → `..`;
//! anywhere in the file (lazy imports in functions included).

use super::{children, named_children, no_aliases, no_repairs, DeclSpec, Extract, LanguageSpec, Lang, Parent};
use crate::decl::{IdentityKind, Import};
use crate::tokens::{collapse_ws, is_comment, At, NodeRule, TokenRules};
use tree_sitter::Node;

pub(crate) static PYTHON: LanguageSpec = LanguageSpec {
    lang: Lang::Python,
    extensions: &["py", "pyi"],
    grammar: || tree_sitter_python::LANGUAGE.into(),
    kinds: &["class", "function", "method", "get", "set", "delete", "property", "variable"],
    rules: &PYTHON_RULES,
    earlier_rules: &[(1, &PYTHON_RULES_V1)],
    declarations: walk,
    imports: collect_imports,
    repairs: no_repairs,
    silent_gaps: super::no_silent_gaps,
    misreadings: super::no_misreadings,
    aliases: no_aliases,
};

#[derive(Clone, Copy, PartialEq)]
enum Place {
    Module,
    Class,
    Function,
}

/// Statements that only wrap other statements (their definitions keep the enclosing
/// naming): `if`, `try`, `with`, … and their clauses.
fn is_wrapper(kind: &str) -> bool {
    matches!(
        kind,
        "if_statement"
            | "elif_clause"
            | "else_clause"
            | "try_statement"
            | "except_clause"
            | "except_group_clause"
            | "finally_clause"
            | "with_statement"
            | "for_statement"
            | "while_statement"
            | "match_statement"
            | "case_clause"
            | "block"
    )
}

/// A list of nodes being walked: the statements of a block (or the module), or the
/// clauses of a wrapper statement (`if`, `try`, …, of which only blocks and nested
/// wrappers matter).
struct Frame<'t> {
    kids: std::vec::IntoIter<Node<'t>>,
    clauses: bool,
    parent: Option<Parent>,
    place: Place,
}

/// The declarations of a file: a work stack of statement lists, innermost on top (the
/// depth-first order of a recursive walk). Wrappers nest without adding declarations
/// (`if` in `if` in …), so the walk must not recurse.
fn walk(x: &mut Extract<'_, '_>, root: Node<'_>) {
    let mut stack = vec![Frame { kids: named_children(root).into_iter(), clauses: false, parent: None, place: Place::Module }];
    while let Some(f) = stack.last_mut() {
        if x.tick() {
            return;
        }
        let Some(node) = f.kids.next() else {
            stack.pop();
            continue;
        };
        let next = if f.clauses {
            // `block_or_clause`: a block's statements, or a nested wrapper's clauses.
            match node.kind() {
                "block" => Some(Frame { kids: named_children(node).into_iter(), clauses: false, parent: f.parent.clone(), place: f.place }),
                k if is_wrapper(k) => statement(x, node, f.parent.as_ref(), f.place),
                _ => None,
            }
        } else {
            statement(x, node, f.parent.as_ref(), f.place)
        };
        if let Some(next) = next {
            stack.push(next);
        }
    }
}

/// Reports one statement; returns the list nested in it that is to be walked next.
fn statement<'t>(x: &mut Extract<'_, '_>, node: Node<'t>, parent: Option<&Parent>, place: Place) -> Option<Frame<'t>> {
    match node.kind() {
        "function_definition" | "class_definition" => definition(x, node, node, &[], parent, place),
        "decorated_definition" => {
            let def = node.child_by_field_name("definition")?;
            let decorators: Vec<Node> = named_children(node).into_iter().filter(|c| c.kind() == "decorator").collect();
            definition(x, node, def, &decorators, parent, place)
        }
        "expression_statement" if place != Place::Function => {
            let assign = node.named_child(0).filter(|a| a.kind() == "assignment")?;
            // `a = b = 1` nests: the right side of `a = …` is the assignment `b = 1`.
            let mut targets = Vec::new();
            let mut cur = assign;
            let value = loop {
                if x.tick() {
                    return None;
                }
                if let Some(l) = cur.child_by_field_name("left") {
                    targets.push(l);
                }
                match cur.child_by_field_name("right") {
                    Some(r) if r.kind() == "assignment" => cur = r,
                    other => break other.or_else(|| cur.child_by_field_name("type")),
                }
            };
            for t in targets {
                if t.kind() != "identifier" {
                    continue;
                }
                x.add(
                    parent,
                    DeclSpec {
                        kind: if place == Place::Class { "property" } else { "variable" },
                        identity: IdentityKind::Value,
                        name: x.text(t).to_string(),
                        nodes: vec![node],
                        name_node: Some(t),
                        body: value,
                    },
                );
            }
            None
        }
        k if is_wrapper(k) => {
            let clauses: Vec<Node> =
                named_children(node).into_iter().filter(|c| c.kind() == "block" || is_wrapper(c.kind())).collect();
            Some(Frame { kids: clauses.into_iter(), clauses: true, parent: parent.cloned(), place })
        }
        _ => None,
    }
}

fn definition<'t>(
    x: &mut Extract<'_, '_>,
    outer: Node<'t>,
    def: Node<'t>,
    decorators: &[Node<'t>],
    parent: Option<&Parent>,
    place: Place,
) -> Option<Frame<'t>> {
    let name_node = def.child_by_field_name("name")?;
    let body = def.child_by_field_name("body");
    let name = x.text(name_node).to_string();
    let (kind, identity, inner) = if def.kind() == "class_definition" {
        ("class", IdentityKind::Type, Place::Class)
    } else if place == Place::Class {
        (accessor_kind(x, decorators, &name), IdentityKind::Callable, Place::Function)
    } else {
        ("function", IdentityKind::Callable, Place::Function)
    };
    let p = x.add(parent, DeclSpec { kind, identity, name, nodes: vec![outer], name_node: Some(name_node), body })?;
    body.map(|b| Frame { kids: named_children(b).into_iter(), clauses: false, parent: Some(p), place: inner })
}

/// `@property` → `get`, `@name.setter` → `set`, `@name.deleter` → `delete`, else `method`.
fn accessor_kind(x: &Extract<'_, '_>, decorators: &[Node], name: &str) -> &'static str {
    for d in decorators {
        let text: String = x.text(*d).trim_start_matches('@').split_whitespace().collect();
        match text.as_str() {
            "property" | "functools.cached_property" | "cached_property" => return "get",
            t if t == format!("{name}.setter") => return "set",
            t if t == format!("{name}.deleter") => return "delete",
            t if t == format!("{name}.getter") => return "get",
            _ => {}
        }
    }
    "method"
}

pub(crate) struct PythonRules {
    /// Print scheme 2: the parentheses black puts around a bare tuple (`return a, b` →
    /// `return (\n a,\n b,\n)`) are elided where a bare tuple is allowed (scheme 1
    /// hashed them).
    structural: bool,
}

pub(crate) static PYTHON_RULES: PythonRules = PythonRules { structural: true };
pub(crate) static PYTHON_RULES_V1: PythonRules = PythonRules { structural: false };

impl TokenRules for PythonRules {
    fn rule(&self, node: Node, at: &At, src: &str) -> NodeRule {
        let kind = at.kind;
        match kind {
            ";" => NodeRule::Skip,
            "string" => string_token(node, at, src),
            "integer" | "float" => NodeRule::Emit(text(node, src).to_ascii_lowercase().replace('_', "")),
            "parenthesized_expression" if parens_redundant(node, at) => NodeRule::DropDelimiters,
            "tuple" | "tuple_pattern" if self.structural && tuple_parens_redundant(node, at) => NodeRule::DropDelimiters,
            // `from m import (a, b,)` is `from m import a, b`: black adds the parentheses
            // (and the trailing comma) when the line is too long.
            "(" | ")" if self.structural && at.parent_kind() == "import_from_statement" => NodeRule::Skip,
            "," if self.structural && at.parent_kind() == "import_from_statement" && at.next.is_some_and(|n| n.kind() == ")") => NodeRule::Skip,
            // The block's statement count: indentation made explicit. The block is the
            // colon's next sibling that is not a comment.
            ":" => match at.next.filter(|b| b.kind() == "block") {
                Some(b) => NodeRule::Emit(format!(":{}", named_children(b).len())),
                None => NodeRule::Descend,
            },
            // A one-tuple's `(` differs from a grouping `(`: `(a,)` is not `(a)`. (Asked
            // once per tuple: only its first child is a `(`.)
            "(" if at.parent_node().is_some_and(|p| p.kind() == "tuple" && named_children(p).len() == 1) => {
                NodeRule::Emit("(,".into())
            }
            _ if node.child_count() == 0 && at.leads => NodeRule::Emit(format!("\u{3}{}", text(node, src).trim())),
            _ => NodeRule::Descend,
        }
    }

    fn wants_next(&self) -> bool {
        true
    }

    /// Whether the node begins a statement: a child of a block (or of the module), or
    /// the first child of a node that does.
    fn leads(&self, _node: Node, at: &At) -> bool {
        match at.ancestor(1) {
            None => false,
            Some(p) if matches!(p.kind, "block" | "module") => true,
            // A statement's first token after parentheses that are not hashed (`(a, b) =
            // …` is `a, b = …`) leads it in their place (print scheme 2).
            Some(p) => (at.is_first() || (self.structural && p.dropped && at.index == 1)) && p.leads,
        }
    }
}

fn text<'s>(n: Node, src: &'s str) -> &'s str {
    src.get(n.byte_range()).unwrap_or("")
}

/// One token for a string literal, by value.
fn string_token(node: Node, at: &At, src: &str) -> NodeRule {
    let kids = children(node);
    // f-strings with interpolations keep their structure: the expressions are code.
    if kids.iter().any(|k| k.kind() == "interpolation") {
        let mut out = String::from("\u{2}f");
        for k in kids {
            match k.kind() {
                "string_start" => out.push_str(&prefix(text(k, src))),
                "string_end" => {}
                "interpolation" => {
                    out.push('{');
                    leaf_texts(k, src, &mut out);
                    out.push('}');
                }
                _ => out.push_str(&requote(text(k, src))),
            }
        }
        return NodeRule::Emit(out);
    }
    let (start, end) = match (kids.first(), kids.last()) {
        (Some(s), Some(e)) if s.kind() == "string_start" && e.kind() == "string_end" => (*s, *e),
        _ => return NodeRule::Descend,
    };
    let pre = prefix(text(start, src));
    let raw = src.get(start.end_byte()..end.start_byte()).unwrap_or("");
    let value = if pre.contains('r') { raw.to_string() } else { requote(raw) };
    // A bare string statement (a docstring): formatters re-indent it.
    let docstring = at.parent_node().is_some_and(|p| p.kind() == "expression_statement" && p.named_child_count() == 1);
    let value = if docstring { collapse_ws(&value) } else { value };
    NodeRule::Emit(format!("\u{2}{pre}\u{2}{value}"))
}

/// The prefix letters of a string start (`rb"""` → `br`), lower-cased and sorted, `u`
/// dropped (it means nothing in Python 3).
fn prefix(start: &str) -> String {
    let mut p: Vec<char> =
        start.chars().take_while(|c| c.is_ascii_alphabetic()).map(|c| c.to_ascii_lowercase()).filter(|&c| c != 'u').collect();
    p.sort_unstable();
    p.into_iter().collect()
}

/// Removes the escapes a change of quote character adds or removes (`\'`, `\"`); every
/// other escape stays as written.
fn requote(raw: &str) -> String {
    let mut out = String::with_capacity(raw.len());
    let mut chars = raw.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            match chars.next() {
                Some(q @ ('\'' | '"')) => out.push(q),
                Some(o) => {
                    out.push('\\');
                    out.push(o);
                }
                None => out.push('\\'),
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// Appends the leaf texts of `node` (comments excluded), space-separated.
fn leaf_texts(node: Node, src: &str, out: &mut String) {
    let mut stack = vec![node];
    while let Some(n) = stack.pop() {
        if is_comment(n) {
            continue;
        }
        if n.child_count() == 0 {
            out.push(' ');
            out.push_str(text(n, src).trim());
        } else {
            let kids: Vec<Node> = n.children(&mut n.walk()).collect();
            stack.extend(kids.into_iter().rev());
        }
    }
}

/// Parentheses black adds or removes without changing meaning.
/// `return (a, b)` is `return a, b`: a parenthesised tuple of two or more elements where a
/// bare tuple means the same — a return value, an assignment's right side, a `for`
/// loop's target or iterable, an expression statement. (`f((a, b))` and `[(a, b)]` are not
/// `f(a, b)` and `[a, b]`; `(a,)` keeps its parentheses, as black keeps them.)
fn tuple_parens_redundant(node: Node, at: &At) -> bool {
    if node.child(0).map(|c| c.kind()) != Some("(") {
        return false;
    }
    let elements = named_children(node).iter().filter(|c| !c.kind().contains("comment")).count();
    // `for (name) in …` parses as a one-element tuple pattern without a comma: it is a
    // parenthesised target, not a tuple (`(name,)` is one, and keeps its parentheses).
    let parenthesised_target = elements == 1 && node.kind() == "tuple_pattern" && !children(node).iter().any(|c| c.kind() == ",");
    if elements < 2 && !parenthesised_target {
        return false;
    }
    let is_field = |f: &str| at.parent_node().and_then(|p| p.child_by_field_name(f)).is_some_and(|r| r.id() == node.id());
    match at.parent_kind() {
        "return_statement" | "expression_statement" => true,
        "assignment" => is_field("right") || is_field("left"),
        "augmented_assignment" => is_field("right"),
        // `for (k, v) in (a, b):` is `for k, v in a, b:`
        "for_statement" => is_field("left") || is_field("right"),
        _ => false,
    }
}

fn parens_redundant(node: Node, at: &At) -> bool {
    let inner = named_children(node);
    let [inner] = inner.as_slice() else { return false };
    let parent_kind = at.parent_kind();
    // `(yield)` and walrus keep their parentheses where they are needed.
    if matches!(inner.kind(), "yield" | "named_expression") && parent_kind != "parenthesized_expression" {
        return matches!(parent_kind, "expression_statement" | "return_statement");
    }
    if matches!(
        inner.kind(),
        "identifier"
            | "attribute"
            | "subscript"
            | "call"
            | "string"
            | "concatenated_string"
            | "integer"
            | "float"
            | "true"
            | "false"
            | "none"
            | "list"
            | "dictionary"
            | "set"
            | "tuple"
            | "parenthesized_expression"
            | "list_comprehension"
            | "dictionary_comprehension"
            | "set_comprehension"
            | "generator_expression"
    ) {
        // `(a).b` = `a.b`, `(f)(x)` = `f(x)` in Python, but `(1).real` needs them.
        return !(matches!(inner.kind(), "integer" | "float") && parent_kind == "attribute");
    }
    match parent_kind {
        "expression_statement" | "return_statement" | "parenthesized_expression" | "if_statement" | "elif_clause"
        | "while_statement" | "for_statement" | "argument_list" | "keyword_argument" | "pair" | "list" | "set"
        | "assert_statement" | "delete_statement" | "subscript" => true,
        "assignment" | "augmented_assignment" => {
            at.parent_node().and_then(|p| p.child_by_field_name("right")).is_some_and(|r| r.id() == node.id())
        }
        // `[(a if c else b) for x in y]`: a comprehension's element (its `in` and `if`
        // parts read differently without them).
        "list_comprehension" | "set_comprehension" | "generator_expression" | "dictionary_comprehension" => {
            at.parent_node().and_then(|p| p.child_by_field_name("body")).is_some_and(|r| r.id() == node.id())
        }
        _ => false,
    }
}

fn collect_imports(root: Node, src: &str) -> Vec<Import> {
    let mut out = Vec::new();
    let mut stack = vec![root];
    while let Some(node) = stack.pop() {
        let line = node.start_position().row as u32 + 1;
        match node.kind() {
            "import_statement" => {
                let mut c = node.walk();
                for n in node.children_by_field_name("name", &mut c) {
                    let path = if n.kind() == "aliased_import" { n.child_by_field_name("name").unwrap_or(n) } else { n };
                    out.push(Import { specifier: squash(text(path, src)), line });
                }
                continue;
            }
            "import_from_statement" | "future_import_statement" => {
                let spec = match node.child_by_field_name("module_name") {
                    Some(m) => squash(text(m, src)),
                    None => "__future__".to_string(),
                };
                out.push(Import { specifier: spec, line });
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

fn squash(s: &str) -> String {
    s.split_whitespace().collect()
}
