//! The language table: which grammar serves which extension, and the shared machinery a
//! language module uses to turn its syntax tree into [`Declaration`]s.
//!
//! A language is one module implementing [`LanguageSpec`] plus one row in [`LANGUAGES`];
//! nothing else in the engine names languages.

mod go;
mod javascript;
mod kotlin;
mod python;
mod rust;
mod swift;
mod typescript;

use crate::decl::{BodyPrint, Declaration, FileSyntax, IdentityKind, Import};
use crate::tokens::{collapse_ws, fingerprint_nodes, TokenRules, TokenStreams};
use serde::{Deserialize, Serialize};
use std::cell::RefCell;
use std::collections::HashMap;
use tree_sitter::{Node, Parser};

/// A supported source language.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Lang {
    TypeScript,
    Tsx,
    Swift,
    JavaScript,
    Rust,
    Python,
    Go,
    Kotlin,
}

/// What a language module provides.
pub(crate) trait LanguageSpec: Sync {
    fn lang(&self) -> Lang;
    /// Lower-case extensions without the dot.
    fn extensions(&self) -> &'static [&'static str];
    fn grammar(&self) -> tree_sitter::Language;
    /// Walks the tree and reports declarations through `x`.
    fn declarations(&self, x: &mut Extract<'_>, root: Node<'_>);
    fn imports(&self, root: Node<'_>, src: &str) -> Vec<Import>;
    fn rules(&self) -> &dyn TokenRules;
    /// The exact declaration kinds this language reports (the `kind:` of a fragment).
    fn kinds(&self) -> &'static [&'static str];
}

static TYPESCRIPT: typescript::TypeScript = typescript::TypeScript { tsx: false };
static TSX: typescript::TypeScript = typescript::TypeScript { tsx: true };
static SWIFT: swift::Swift = swift::Swift;
static JAVASCRIPT: javascript::JavaScript = javascript::JavaScript;
static RUST: rust::Rust = rust::Rust;
static PYTHON: python::Python = python::Python;
static GO: go::Go = go::Go;
static KOTLIN: kotlin::Kotlin = kotlin::Kotlin;

/// The table. Order does not matter; extensions must not overlap.
pub(crate) static LANGUAGES: &[&dyn LanguageSpec] =
    &[&TYPESCRIPT, &TSX, &SWIFT, &JAVASCRIPT, &RUST, &PYTHON, &GO, &KOTLIN];

fn spec(lang: Lang) -> &'static dyn LanguageSpec {
    LANGUAGES
        .iter()
        .copied()
        .find(|s| s.lang() == lang)
        .expect("every Lang variant has a row in LANGUAGES")
}

impl Lang {
    /// The language of a path, by extension (case-insensitive).
    pub fn from_path(path: &str) -> Option<Lang> {
        let file = path.rsplit(['/', '\\']).next().unwrap_or(path);
        let ext = file.rsplit_once('.')?.1.to_ascii_lowercase();
        LANGUAGES
            .iter()
            .find(|s| s.extensions().contains(&ext.as_str()))
            .map(|s| s.lang())
    }

    pub fn name(self) -> &'static str {
        match self {
            Lang::TypeScript => "typescript",
            Lang::Tsx => "tsx",
            Lang::Swift => "swift",
            Lang::JavaScript => "javascript",
            Lang::Rust => "rust",
            Lang::Python => "python",
            Lang::Go => "go",
            Lang::Kotlin => "kotlin",
        }
    }

    /// Declaration kinds usable as a fragment's `kind:` prefix.
    pub fn kinds(self) -> &'static [&'static str] {
        spec(self).kinds()
    }

    /// Every supported extension (for walkers that pre-filter files).
    pub fn all_extensions() -> Vec<&'static str> {
        LANGUAGES.iter().flat_map(|s| s.extensions().iter().copied()).collect()
    }
}

thread_local! {
    static PARSERS: RefCell<HashMap<Lang, Parser>> = RefCell::new(HashMap::new());
}

/// How much work one parse may do: tree-sitter reports progress once per 100 parser
/// operations, and a parse may use this many reports per byte of source, plus a floor
/// for small files. Real code needs a small fraction of a report per byte; error
/// recovery in some grammars can loop (fuzzing found an 800-byte Kotlin file that kept
/// tree-sitter-kotlin-ng busy for minutes). Counting operations rather than time keeps
/// the outcome a function of the text alone, as the content-keyed parse cache requires.
const PARSE_REPORTS_PER_BYTE: usize = 1;
const PARSE_REPORTS_FLOOR: usize = 10_000;

fn with_tree<R>(lang: Lang, source: &str, f: impl FnOnce(Option<tree_sitter::Tree>) -> R) -> R {
    PARSERS.with(|cell| {
        let mut map = cell.borrow_mut();
        let parser = map.entry(lang).or_insert_with(|| {
            let mut p = Parser::new();
            // The grammars are compiled in and ABI-checked at build time.
            let _ = p.set_language(&spec(lang).grammar());
            p
        });
        let budget = PARSE_REPORTS_FLOOR.saturating_add(source.len().saturating_mul(PARSE_REPORTS_PER_BYTE));
        let mut reports = 0usize;
        let mut over_budget = |_: &tree_sitter::ParseState| {
            reports += 1;
            reports > budget
        };
        let bytes = source.as_bytes();
        let tree = parser.parse_with_options(
            &mut |at, _| bytes.get(at..).unwrap_or_default(),
            None,
            Some(tree_sitter::ParseOptions::new().progress_callback(&mut over_budget)),
        );
        if tree.is_none() {
            // A cancelled parse would otherwise resume on the parser's next call.
            parser.reset();
        }
        f(tree)
    })
}

pub(crate) fn parse(lang: Lang, source: &str) -> FileSyntax {
    let spec = spec(lang);
    with_tree(lang, source, |tree| {
        let Some(tree) = tree else {
            return FileSyntax { declarations: Vec::new(), has_error: true };
        };
        let root = tree.root_node();
        let mut x = Extract::new(source, spec.rules());
        spec.declarations(&mut x, root);
        FileSyntax { declarations: x.finish(), has_error: root.has_error() }
    })
}

/// Parses and discards the result: the parse-only baseline of the benchmarks.
pub fn parse_only(lang: Lang, source: &str) -> bool {
    with_tree(lang, source, |t| t.map(|t| t.root_node().has_error()).unwrap_or(true))
}

pub(crate) fn imports(lang: Lang, source: &str) -> Vec<Import> {
    let spec = spec(lang);
    with_tree(lang, source, |tree| match tree {
        Some(t) => spec.imports(t.root_node(), source),
        None => Vec::new(),
    })
}

/// A declaration as a language module describes it; [`Extract::add`] computes the rest.
pub(crate) struct DeclSpec<'t> {
    pub kind: &'static str,
    pub identity: IdentityKind,
    /// Simple name (`blend(first:second:)`, `get`-less accessor name, …).
    pub name: String,
    /// Nodes whose tokens make up the declaration, in order (decorators, `export`
    /// wrapper, overload signatures, the declaration itself).
    pub nodes: Vec<Node<'t>>,
    /// The name token, excluded from the body print and used for go-to-definition.
    pub name_node: Option<Node<'t>>,
    /// The body for the name-independent print.
    pub body: Option<Node<'t>>,
}

/// Accumulates a file's declarations.
pub(crate) struct Extract<'s> {
    pub src: &'s str,
    rules: &'s dyn TokenRules,
    out: Vec<Declaration>,
    streams: TokenStreams,
}

impl<'s> Extract<'s> {
    fn new(src: &'s str, rules: &'s dyn TokenRules) -> Self {
        Extract { src, rules, out: Vec::new(), streams: TokenStreams::default() }
    }

    pub fn text(&self, node: Node) -> &'s str {
        self.src.get(node.byte_range()).unwrap_or("")
    }

    /// Records a declaration under `container` and returns its qualified name.
    pub fn add(&mut self, container: Option<&str>, d: DeclSpec<'_>) -> String {
        let qualified = match container {
            Some(c) => format!("{c}.{}", d.name),
            None => d.name.clone(),
        };
        let first = d.nodes.first().copied();
        let last = d.nodes.last().copied();
        let (Some(first), Some(last)) = (first, last) else {
            return qualified;
        };
        let start_byte = d.nodes.iter().map(|n| n.start_byte()).min().unwrap_or(first.start_byte());
        let end_byte = d.nodes.iter().map(|n| n.end_byte()).max().unwrap_or(last.end_byte());
        let start_row = d.nodes.iter().map(|n| n.start_position().row).min().unwrap_or(0);
        let end_row = d.nodes.iter().map(|n| n.end_position().row).max().unwrap_or(0);
        let (fingerprint, _) = fingerprint_nodes("decl", &d.nodes, self.src, self.rules, None, &mut self.streams);
        let body = d.body.map(|b| {
            let domain = format!("body:{:?}", d.identity);
            let skip = d.name_node.map(|n| n.byte_range());
            let (fp, count) = fingerprint_nodes(&domain, &[b], self.src, self.rules, skip, &mut self.streams);
            BodyPrint { fingerprint: fp, tokens: count }
        });
        let has_error = d.nodes.iter().any(|n| n.has_error());
        let name_node = d.name_node.unwrap_or(last);
        let header_end = d.body.map(|b| b.start_byte()).unwrap_or(end_byte).max(start_byte);
        let header = self.src.get(start_byte..header_end).unwrap_or("");
        let mut signature = collapse_ws(header);
        if signature.chars().count() > 200 {
            signature = signature.chars().take(199).collect::<String>() + "…";
        }
        self.out.push(Declaration {
            kind: d.kind.to_string(),
            identity: d.identity,
            qualified_name: qualified.clone(),
            container: container.map(str::to_string),
            start_line: start_row as u32 + 1,
            end_line: end_row as u32 + 1,
            name_line: name_node.start_position().row as u32 + 1,
            name_column: name_node.start_position().column as u32,
            start_byte: start_byte as u32,
            end_byte: end_byte as u32,
            fingerprint,
            body,
            has_error,
            members: Vec::new(),
            signature,
        });
        qualified
    }

    /// Sorts by position and fills each container's member list (members must lie
    /// inside the container's span, so a struct and its extension stay apart).
    fn finish(mut self) -> Vec<Declaration> {
        self.out.sort_by_key(|d| (d.start_byte, std::cmp::Reverse(d.end_byte)));
        let n = self.out.len();
        for i in 0..n {
            let (qn, s, e) = {
                let d = &self.out[i];
                (d.qualified_name.clone(), d.start_byte, d.end_byte)
            };
            let members: Vec<(String, crate::Fingerprint)> = self.out[i + 1..]
                .iter()
                .take_while(|m| m.start_byte < e)
                .filter(|m| m.container.as_deref() == Some(qn.as_str()) && m.start_byte >= s && m.end_byte <= e)
                .map(|m| (m.simple_name().to_string(), m.fingerprint))
                .collect();
            self.out[i].members = members;
        }
        self.out
    }
}

/// Named children of a node, comments excluded.
pub(crate) fn named_children<'t>(node: Node<'t>) -> Vec<Node<'t>> {
    let mut c = node.walk();
    node.named_children(&mut c).filter(|n| !crate::tokens::is_comment(*n)).collect()
}

/// All children (anonymous too).
pub(crate) fn children<'t>(node: Node<'t>) -> Vec<Node<'t>> {
    let mut c = node.walk();
    node.children(&mut c).collect()
}
