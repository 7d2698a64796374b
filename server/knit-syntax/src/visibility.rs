//! Which declarations of a file are public API (`knit coverage`, issue 14): per language,
//! read from the words between a declaration's start (modifiers, decorators, `export`)
//! and its name, and from the declaration that encloses it.
//!
//! - TypeScript/JavaScript: `export`ed (or exported under an alias) at the top level;
//!   members of a public class, interface or enum unless `private`, `protected` or `#name`.
//! - Rust: `pub` (never `pub(crate)`, `pub(super)`, `pub(in …)`) inside public modules and
//!   types; trait items and enum variants of a public trait or enum.
//! - Swift: `public` or `open`; a member without an access modifier inside a
//!   `public extension`, a public protocol, or a public enum's `case`.
//! - Python: names without a leading underscore, in public classes (dunders excluded).
//! - Go: capitalised names, in public types.
//! - Kotlin: everything not `private` (nor in something private).
//!
//! Containers that are not API themselves — Rust `impl` blocks, Swift `extension`s — are
//! never listed; their members are judged as above.

use crate::{Declaration, FileSyntax, Lang};

/// Whether a declaration of this kind is listed at all (its members may be).
pub fn is_listed_kind(kind: &str) -> bool {
    !matches!(kind, "impl" | "extension")
}

/// One flag per declaration of `syntax` (same order): public API or not. `source` is the
/// text `syntax` was parsed from.
pub fn public_flags(lang: Lang, source: &str, syntax: &FileSyntax) -> Vec<bool> {
    let decls = &syntax.declarations;
    let line_starts: Vec<usize> = std::iter::once(0).chain(source.match_indices('\n').map(|(i, _)| i + 1)).collect();
    // Rust: whether each top-level type is `pub`, for the `impl` blocks of it (which may
    // come before it in the file).
    let rust_types: std::collections::HashMap<&str, bool> = if lang == Lang::Rust {
        decls
            .iter()
            .filter(|d| d.container.is_none() && matches!(d.kind.as_str(), "struct" | "enum" | "union" | "trait" | "type"))
            .map(|d| {
                let w = modifier_words(source, &line_starts, d);
                (d.qualified_name.as_str(), w.has("pub") && !w.restricted_pub)
            })
            .collect()
    } else {
        Default::default()
    };
    let mut flags = Vec::with_capacity(decls.len());
    // The enclosing declarations of the one being judged: a stack of indices, innermost
    // last (declarations come in source order, containers before their members).
    let mut open: Vec<usize> = Vec::new();
    for (i, d) in decls.iter().enumerate() {
        while open.last().is_some_and(|&j| !(decls[j].start_byte <= d.start_byte && d.end_byte <= decls[j].end_byte)) {
            open.pop();
        }
        let enclosing = open.last().map(|&j| (&decls[j], flags[j], modifier_words(source, &line_starts, &decls[j])));
        let words = modifier_words(source, &line_starts, d);
        let public = match lang {
            Lang::TypeScript | Lang::Tsx | Lang::JavaScript => ecma(d, &words, enclosing.as_ref(), syntax),
            Lang::Rust => rust(&words, enclosing.as_ref(), &rust_types),
            Lang::Swift => swift(d, &words, enclosing.as_ref()),
            Lang::Python => !d.simple_name().starts_with('_') && enclosing.as_ref().is_none_or(|e| e.1),
            Lang::Go => d.simple_name().starts_with(|c: char| c.is_uppercase()) && enclosing.as_ref().is_none_or(|e| e.1),
            Lang::Kotlin => !words.has("private") && enclosing.as_ref().is_none_or(|e| e.1),
        };
        flags.push(public);
        open.push(i);
    }
    flags
}

/// The words (and whether a `pub(` restriction is among them) between a declaration's
/// start and its name.
struct Words {
    words: Vec<String>,
    restricted_pub: bool,
}

impl Words {
    fn has(&self, w: &str) -> bool {
        self.words.iter().any(|x| x == w)
    }
}

fn modifier_words(source: &str, line_starts: &[usize], d: &Declaration) -> Words {
    let name_at = line_starts.get(d.name_line.saturating_sub(1) as usize).map_or(d.start_byte as usize, |s| s + d.name_column as usize);
    let start = (d.start_byte as usize).min(source.len());
    let end = name_at.clamp(start, source.len());
    let prefix = source.get(start..end).unwrap_or("");
    let words = prefix.split(|c: char| !(c.is_alphanumeric() || c == '_')).filter(|w| !w.is_empty()).map(str::to_string).collect();
    let compact: String = prefix.chars().filter(|c| !c.is_whitespace()).collect();
    Words { words, restricted_pub: compact.contains("pub(") }
}

type Enclosing<'a> = (&'a Declaration, bool, Words);

fn ecma(d: &Declaration, w: &Words, enclosing: Option<&Enclosing>, syntax: &FileSyntax) -> bool {
    match enclosing {
        None => w.has("export") || syntax.aliases.iter().any(|a| a.local == d.qualified_name),
        Some((_, public, _)) => *public && !w.has("private") && !w.has("protected") && !d.simple_name().starts_with('#'),
    }
}

fn rust(w: &Words, enclosing: Option<&Enclosing>, types: &std::collections::HashMap<&str, bool>) -> bool {
    let declared_pub = w.has("pub") && !w.restricted_pub;
    match enclosing {
        None => declared_pub,
        // Trait items and enum variants take their container's visibility.
        Some((c, public, _)) if matches!(c.kind.as_str(), "trait" | "enum") => *public,
        // An impl block is not API; its items are public when declared `pub` on a type
        // that is (a type of another file is taken to be).
        Some((c, _, _)) if c.kind == "impl" => declared_pub && types.get(c.qualified_name.as_str()).copied().unwrap_or(true),
        Some((_, public, _)) => *public && declared_pub,
    }
}

fn swift(d: &Declaration, w: &Words, enclosing: Option<&Enclosing>) -> bool {
    if w.has("private") || w.has("fileprivate") || w.has("internal") {
        return false;
    }
    let declared = w.has("public") || w.has("open");
    match enclosing {
        None => declared,
        Some((c, public, cw)) => match c.kind.as_str() {
            // `public extension S { func f() }`: members without a modifier are public.
            "extension" => declared || cw.has("public") || cw.has("open"),
            "protocol" => *public,
            "enum" if d.kind == "case" => *public,
            _ => *public && declared,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn public(lang: Lang, src: &str) -> Vec<String> {
        let syntax = crate::parse(lang, src);
        let flags = public_flags(lang, src, &syntax);
        syntax.declarations.iter().zip(flags).filter(|(d, p)| *p && is_listed_kind(&d.kind)).map(|(d, _)| d.qualified_name.clone()).collect()
    }

    #[test]
    fn typescript_exports_and_their_public_members() {
        let src = "export function f() {}\nfunction g() {}\nexport default class K {\n  private p = 1;\n  protected q() {}\n  #r() {}\n  m() {}\n}\nclass H { m() {} }\nexport interface I { x: number }\nconst e = 3;\nexport { e as E2 };\n";
        assert_eq!(public(Lang::TypeScript, src), ["f", "K", "K.m", "I", "I.x", "e"]);
    }

    #[test]
    fn rust_pub_without_restriction() {
        let src = "pub struct S { pub a: u8, b: u8 }\nstruct P;\nimpl P {\n    pub fn hidden_type() {}\n}\nimpl S {\n    pub fn new() -> Self { S { a: 0, b: 0 } }\n    fn private(&self) {}\n    pub(crate) fn krate(&self) {}\n}\npub trait Tr { fn req(&self); }\npub enum E { A }\npub mod m { pub fn inner() {} fn hidden() {} }\nmod q { pub fn not_reachable() {} }\n";
        assert_eq!(public(Lang::Rust, src), ["S", "S.a", "S.new", "Tr", "Tr.req", "E", "E.A", "m", "m.inner"]);
    }

    #[test]
    fn swift_public_open_and_public_extensions() {
        let src = "public struct S {\n    public var a: Int\n    var b: Int\n    open class func h() {}\n}\nstruct P { public func x() {} }\npublic extension S { func ext() {} }\nextension S { public func ext2() {}\n func hidden() {} }\npublic protocol Q { func req() }\npublic enum E { case a }\n@available(*, deprecated)\npublic func top() {}\n";
        assert_eq!(public(Lang::Swift, src), ["S", "S.a", "S.h()", "S.ext()", "S.ext2()", "Q", "Q.req()", "E", "E.a", "top()"]);
    }

    #[test]
    fn python_go_and_kotlin_by_name_and_modifier() {
        assert_eq!(
            public(Lang::Python, "def pub(): pass\ndef _priv(): pass\nclass C:\n    def m(self): pass\n    def __init__(self): pass\nclass _D:\n    def m(self): pass\n"),
            ["pub", "C", "C.m"]
        );
        assert_eq!(public(Lang::Go, "package p\nfunc Pub() {}\nfunc priv() {}\ntype T struct{ A int; b int }\n"), ["Pub", "T", "T.A"]);
        assert_eq!(public(Lang::Kotlin, "class A {\n  fun f() {}\n  private fun g() {}\n}\nprivate class B { fun x() {} }\nfun top() {}\n"), ["A", "A.f()", "top()"]);
    }
}
