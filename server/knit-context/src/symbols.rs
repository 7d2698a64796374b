//! Identifiers declared in one file and used in another: the `uses` / `usedBy` signal.
//!
//! Two sides, two costs:
//! - the **open file** is parsed with knit-syntax (its exact declarations) at pack time —
//!   one file, cached by content, under [`FOCUS_PARSE_LIMIT`] (past it, the keyword scan
//!   below names its declarations too);
//! - **every other file** gets its declared names from [`declared_names`] at index time: a
//!   one-pass scan for a declaration keyword followed by a name (`function f`, `class C`,
//!   `def f`, `fn f`, `func (r *R) F`, `struct S`, top-level `const X` …). Parsing every
//!   file of a 10 000-file workspace with tree-sitter would cost seconds the cold-index
//!   budget does not have; a keyword scan is linear and good enough to say "this file
//!   declares `parseBody`". The reason text says "declares", which a reader can check.
//!
//! Uses are identifiers as written (whole, case kept); the index answers "which files
//! contain this identifier" through its lowercased whole-identifier terms.

use std::collections::HashSet;
use std::time::{Duration, Instant};

/// At most this many names are kept per file (generated files declare thousands).
pub const MAX_DECLARED: usize = 256;
/// Names shorter than this are too generic to relate files (`id`, `get`, `map`).
pub const MIN_NAME_LEN: usize = 4;

/// Words that introduce a declaration whose name follows.
const DECL_KEYWORDS: &[&str] = &[
    "function", "class", "interface", "type", "enum", "namespace", "struct", "trait", "fn", "def", "func", "protocol", "extension",
    "actor", "object", "fun", "typealias", "module", "union", "record", "macro_rules",
];

/// Value declarations: only at the top level (column 0, or after `export`), so that
/// locals inside bodies are not taken for the file's API.
const VALUE_KEYWORDS: &[&str] = &["const", "let", "var", "val", "static"];

/// Modifiers skipped before a keyword.
const MODIFIERS: &[&str] = &[
    "export", "default", "pub", "public", "private", "protected", "internal", "fileprivate", "open", "final", "abstract", "async",
    "unsafe", "override", "data", "sealed", "inline", "extern", "declare", "mutating", "nonmutating", "convenience", "required",
    "indirect", "lazy", "weak", "readonly", "suspend", "operator", "infix", "companion", "inner", "value", "annotation",
    "partial", "virtual",
];

fn is_ident_start(c: char) -> bool {
    c.is_alphabetic() || c == '_' || c == '$'
}

fn is_ident_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_' || c == '$'
}

/// The byte end of the identifier whose first character `first` sits at `start`; the
/// rest of its characters are taken from `chars`.
fn identifier_end(start: usize, first: char, chars: &mut std::iter::Peekable<std::str::CharIndices<'_>>) -> usize {
    let mut end = start + first.len_utf8();
    while let Some(&(j, d)) = chars.peek() {
        if !is_ident_char(d) {
            break;
        }
        end = j + d.len_utf8();
        chars.next();
    }
    end
}

/// Tokens of one line: identifiers and single punctuation characters.
fn line_tokens(line: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut chars = line.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        if c.is_whitespace() {
            continue;
        }
        if is_ident_start(c) {
            let end = identifier_end(i, c, &mut chars);
            out.push(&line[i..end]);
        } else {
            out.push(&line[i..i + c.len_utf8()]);
        }
        if out.len() > 24 {
            break; // a declaration's name sits near the start of its line
        }
    }
    out
}

fn is_identifier(tok: &str) -> bool {
    tok.chars().next().is_some_and(is_ident_start)
}

/// Every declaration of a source file by keyword scan: (0-based line, name), in file
/// order. One scan serves both the declared names and the passage cuts of a file.
pub fn declarations(text: &str) -> Vec<(usize, &str)> {
    text.lines().enumerate().filter_map(|(i, line)| declaration_on_line(line).map(|name| (i, name))).collect()
}

/// Declared names of a source file by keyword scan (see the module header). Distinct, in
/// file order, at most [`MAX_DECLARED`].
pub fn declared_names(text: &str) -> Vec<String> {
    names_of(&declarations(text))
}

/// The distinct names (at least [`MIN_NAME_LEN`] characters) of `declarations`, in order,
/// at most [`MAX_DECLARED`].
pub fn names_of(declarations: &[(usize, &str)]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut seen: rustc_hash::FxHashSet<&str> = Default::default();
    for &(_, name) in declarations {
        if out.len() >= MAX_DECLARED {
            break;
        }
        if name.chars().count() >= MIN_NAME_LEN && seen.insert(name) {
            out.push(name.to_string());
        }
    }
    out
}

/// Every word a declaration line can start with: a modifier or a keyword. One set look-up
/// per line instead of scanning the three lists (pack-time passage cuts run this on every
/// line of every candidate file).
fn opening_words() -> &'static rustc_hash::FxHashSet<&'static str> {
    static WORDS: std::sync::OnceLock<rustc_hash::FxHashSet<&'static str>> = std::sync::OnceLock::new();
    WORDS.get_or_init(|| MODIFIERS.iter().chain(DECL_KEYWORDS).chain(VALUE_KEYWORDS).copied().collect())
}

/// The name a line declares, if it starts a declaration (keyword scan; any length).
pub fn declaration_on_line(line: &str) -> Option<&str> {
    // Most lines are statements: the first word settles it before the line is tokenized
    // (this runs on every line of every file of a cold index, twice).
    let first = line.trim_start();
    let first_word = &first[..first.find(|c: char| !is_ident_char(c)).unwrap_or(first.len())];
    if !opening_words().contains(first_word) {
        return None;
    }
    let top_level = !line.starts_with([' ', '\t']);
    // an indented `let`/`const` is a local: only top-level or exported values count
    if !top_level && VALUE_KEYWORDS.contains(&first_word) {
        return None;
    }
    let toks = line_tokens(line);
    let mut i = 0;
    let mut exported = false;
    while i < toks.len() && MODIFIERS.contains(&toks[i]) {
        exported |= toks[i] == "export" || toks[i] == "pub" || toks[i] == "public";
        i += 1;
        // `pub(crate)`: skip the parenthesised scope
        if toks.get(i) == Some(&"(") {
            while i < toks.len() && toks[i] != ")" {
                i += 1;
            }
            i += 1;
        }
    }
    let mut kw = *toks.get(i)?;
    // Kotlin's `enum class X`
    if kw == "enum" && toks.get(i + 1) == Some(&"class") {
        i += 1;
        kw = "class";
    }
    let is_decl = DECL_KEYWORDS.contains(&kw);
    let is_value = VALUE_KEYWORDS.contains(&kw) && (top_level || exported);
    if !is_decl && !is_value {
        return None;
    }
    i += 1;
    // `function* gen`, `macro_rules! name`
    while matches!(toks.get(i), Some(&"*") | Some(&"!")) {
        i += 1;
    }
    // Go methods: `func (r *Router) Add(`
    if kw == "func" && toks.get(i) == Some(&"(") {
        let mut depth = 0;
        while i < toks.len() {
            match toks[i] {
                "(" => depth += 1,
                ")" => {
                    depth -= 1;
                    if depth == 0 {
                        i += 1;
                        break;
                    }
                }
                _ => {}
            }
            i += 1;
        }
    }
    // `const { a, b } =` and other destructuring: not a single name
    let name = *toks.get(i)?;
    (is_identifier(name) && !DECL_KEYWORDS.contains(&name)).then_some(name)
}

/// Distinct identifiers a text uses (case kept), at least [`MIN_NAME_LEN`] characters,
/// in order of first use, at most `max`.
pub fn used_identifiers(text: &str, max: usize) -> Vec<String> {
    let mut out = Vec::new();
    let mut seen: HashSet<&str> = HashSet::new();
    let mut chars = text.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        if !is_ident_start(c) {
            continue;
        }
        let end = identifier_end(i, c, &mut chars);
        let word = &text[i..end];
        if word.chars().count() >= MIN_NAME_LEN && word.len() <= 64 && seen.insert(word) {
            out.push(word.to_string());
            if out.len() >= max {
                break;
            }
        }
    }
    out
}

/// How long the focused file's parse may run before its names come from the keyword scan
/// instead. Valid code parses in well under a second per MiB (ripgrep's 240 KiB
/// `defs.rs`: about 50 ms), but tree-sitter's error recovery is quadratic on some invalid
/// nesting: 500 KB of nested Swift `protocol`s held a pack for 16 s. The focused file can
/// be any file of a hostile workspace, and a pack must answer.
pub const FOCUS_PARSE_LIMIT: Duration = Duration::from_millis(250);

/// Exact declared names of a file knit-syntax can parse (simple names; Swift labels and
/// Kotlin parameter lists cut off), else the keyword scan. The parse stops at
/// [`FOCUS_PARSE_LIMIT`].
pub fn exact_declared_names(path: &str, text: &str) -> Vec<String> {
    exact_declared_names_until(path, text, Instant::now() + FOCUS_PARSE_LIMIT)
}

/// [`exact_declared_names`] with the parse stopped at `deadline`. A parse cut short (or
/// over its work or memory budget) gives the keyword scan's names: the scan sees the whole
/// file, so the names do not depend on how far the parse got.
fn exact_declared_names_until(path: &str, text: &str, deadline: Instant) -> Vec<String> {
    let Some(lang) = knit_syntax::Lang::from_path(path) else { return declared_names(text) };
    let syntax = knit_syntax::parse_with_deadline(lang, text, Some(deadline));
    // A parse cut short by the deadline, or stopped at its work or memory bound, lists no
    // declarations and says nothing about the file; the scan reads all of it.
    if syntax.timed_out || syntax.over_budget {
        return declared_names(text);
    }
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    for d in &syntax.declarations {
        let simple = d.simple_name();
        let name = simple.split('(').next().unwrap_or(simple);
        if name.chars().count() >= MIN_NAME_LEN && is_identifier(name) && seen.insert(name.to_string()) {
            out.push(name.to_string());
        }
        if out.len() >= MAX_DECLARED {
            break;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_focused_parse_past_its_deadline_names_the_declarations_by_keyword_scan() {
        let swift = "protocol Playable {\n  func play(at volume: Double)\n}\nstruct Speaker: Playable {\n  func play(at volume: Double) {}\n}\nfunc shallow() -> Int { return 1 }\n";
        let in_time = exact_declared_names_until("Sources/Speaker.swift", swift, Instant::now() + Duration::from_secs(60));
        assert_eq!(in_time, vec!["Playable", "play", "Speaker", "shallow"]);
        // A deadline already past cuts the parse short before its first declaration; the
        // whole file's names still come back, from the scan, not an empty list.
        let past = Instant::now().checked_sub(Duration::from_millis(1)).unwrap_or_else(Instant::now);
        let cut = exact_declared_names_until("Sources/Speaker.swift", swift, past);
        assert_eq!(cut, declared_names(swift));
        assert!(cut.contains(&"Speaker".to_string()) && cut.contains(&"shallow".to_string()), "{cut:?}");
    }

    #[test]
    fn a_focused_file_over_its_parse_budget_names_the_declarations_by_keyword_scan() {
        // 1 MB of nested parentheses stops the parse at its heap budget (no declarations
        // at all); the names come from the scan instead, in time or not.
        let nest = 500_000;
        let dense = format!("export function f(x: number) {{ return {}x{}; }}\nexport function shallow() {{ return 1; }}\n", "(".repeat(nest), ")".repeat(nest));
        assert!(knit_syntax::parse(knit_syntax::Lang::TypeScript, &dense).over_budget, "the input no longer reaches the budget");
        let names = exact_declared_names_until("src/dense.ts", &dense, Instant::now() + Duration::from_secs(600));
        assert_eq!(names, vec!["shallow"]);
    }

    #[test]
    fn keyword_scan_finds_declarations_of_every_language() {
        let ts = "export default class Hono {\n  route() {}\n}\nexport function createFactory() {}\nexport const handlerMap = {}\nfunction* generate() {}\n  const local = 1\ntype Schema = {}\n";
        assert_eq!(declared_names(ts), vec!["Hono", "createFactory", "handlerMap", "generate", "Schema"]);
        let go = "func (r *Router) Add(m string) {}\nfunc NewRouter() *Router {}\ntype Router struct {}\n";
        assert_eq!(declared_names(go), vec!["NewRouter", "Router"], "`Add` is too short to relate files");
        let go_m = "func (r *Router) Lookup(m string) {}\n";
        assert_eq!(declared_names(go_m), vec!["Lookup"]);
        let rs = "pub(crate) fn parse_body() {}\npub struct Request {}\nmacro_rules! make_thing {}\nimpl Request {\n    pub fn header_value(&self) {}\n}\n";
        assert_eq!(declared_names(rs), vec!["parse_body", "Request", "make_thing", "header_value"]);
        let py = "class Client:\n    def send(self):\n        pass\n    async def aclose(self):\n        pass\n";
        assert_eq!(declared_names(py), vec!["Client", "send", "aclose"]);
        let swift = "public struct Deque<Element> {}\nextension Deque: Sequence {}\n  public mutating func append(_ x: Element) {}\n";
        assert_eq!(declared_names(swift), vec!["Deque", "append"]);
        assert_eq!(declared_names("enum Color { Red }\nenum class Shape { A }\n"), vec!["Color", "Shape"]);
    }

    #[test]
    fn uses_are_whole_identifiers_in_order() {
        assert_eq!(used_identifiers("const x = parseBody(req); parseBody(a); new HonoRequest()", 10), vec!["const", "parseBody", "HonoRequest"]);
    }
}
