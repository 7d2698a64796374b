//! Symbol fragments: `#[kind:]Qualified.name[~N]` (DESIGN 1.3a), how they resolve
//! against a file's declarations, and did-you-mean suggestions.

use crate::similarity::{edit_distance, name_similarity};
pub use crate::decl::strip_labels;
use crate::decl::{last_segment, Declaration, FileSyntax, IdentityKind};

/// A parsed symbol fragment.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Fragment {
    /// Exact declaration kind (`get`, `interface`, `extension`, …), if written.
    pub kind: Option<String>,
    pub name: String,
    /// `~N`: 1-based position among the declarations the rest of the fragment matches.
    pub ordinal: Option<u32>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FragmentError {
    Empty,
    BadOrdinal,
}

impl std::fmt::Display for FragmentError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FragmentError::Empty => write!(f, "empty symbol fragment"),
            FragmentError::BadOrdinal => write!(f, "`~N` must be a positive number"),
        }
    }
}

/// What a fragment resolves to in one file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Resolution {
    /// Index into the declarations.
    Unique(usize),
    /// Several declarations match; each entry is (index, exact fragment that resolves to it).
    Ambiguous(Vec<(usize, String)>),
    NotFound,
}

impl Fragment {
    pub fn parse(raw: &str) -> Result<Fragment, FragmentError> {
        let mut s = raw.trim();
        let mut ordinal = None;
        if let Some((head, tail)) = s.rsplit_once('~') {
            if !tail.is_empty() && tail.bytes().all(|b| b.is_ascii_digit()) {
                let n: u32 = tail.parse().map_err(|_| FragmentError::BadOrdinal)?;
                if n == 0 {
                    return Err(FragmentError::BadOrdinal);
                }
                ordinal = Some(n);
                s = head;
            }
        }
        let mut kind = None;
        if let Some(colon) = s.find(':') {
            let paren = s.find('(').unwrap_or(usize::MAX);
            let prefix = &s[..colon];
            if colon < paren && !prefix.is_empty() && prefix.bytes().all(|b| b.is_ascii_alphabetic()) {
                kind = Some(prefix.to_string());
                s = &s[colon + 1..];
            }
        }
        if s.is_empty() {
            return Err(FragmentError::Empty);
        }
        Ok(Fragment { kind, name: s.to_string(), ordinal })
    }

    pub fn simple_name(&self) -> &str {
        last_segment(&self.name)
    }

    /// Resolves against one file's declarations.
    pub fn resolve(&self, syn: &FileSyntax) -> Resolution {
        let matched = self.designates(syn);
        match matched.len() {
            0 => Resolution::NotFound,
            1 => Resolution::Unique(matched[0]),
            _ => Resolution::Ambiguous(matched.iter().map(|&i| (i, exact_fragment(syn, i))).collect()),
        }
    }

    /// [`Fragment::matching`], plus one preference: a Rust type and its `impl` blocks
    /// share a name, and the bare name means the type (`#Session`, not
    /// `#struct:Session`); `impl:Session~2` names a block.
    pub fn designates(&self, syn: &FileSyntax) -> Vec<usize> {
        let decls = &syn.declarations;
        let matched = self.matching(syn);
        if matched.len() > 1 && self.kind.is_none() && self.ordinal.is_none() {
            let not_impl: Vec<usize> = matched.iter().copied().filter(|&i| decls[i].kind != "impl").collect();
            if not_impl.len() == 1 {
                return not_impl;
            }
        }
        matched
    }

    /// Indices of the declarations this fragment designates (before uniqueness).
    pub fn matching(&self, syn: &FileSyntax) -> Vec<usize> {
        let decls = &syn.declarations;
        // Spaces inside parameter lists are layout: `pay(items, tip)` = `pay(items,tip)`.
        let spaced = self.name.contains(' ');
        let mut by_name: Vec<usize> = if spaced {
            let wanted = self.name.replace(' ', "");
            (0..decls.len())
                .filter(|&i| decls[i].qualified_name == wanted || decls[i].qualified_name.replace(' ', "") == wanted)
                .collect()
        } else {
            syn.named(&self.name)
        };
        if by_name.is_empty() && !self.name.contains('(') {
            // `Mixer.blend` finds `Mixer.blend(first:second:)` when the base name is unique.
            by_name = (0..decls.len())
                .filter(|&i| {
                    decls[i].identity == IdentityKind::Callable && equal_without_labels(&decls[i].qualified_name, &self.name)
                })
                .collect();
        }
        let filtered = match &self.kind {
            None => by_name,
            Some(k) => {
                let exact: Vec<usize> = by_name.iter().copied().filter(|&i| &decls[i].kind == k).collect();
                if !exact.is_empty() {
                    exact
                } else {
                    // Identity kind is coarse: `function:f` still finds `const f = () =>`.
                    let id = identity_of_kind(k);
                    by_name.into_iter().filter(|&i| Some(decls[i].identity) == id).collect()
                }
            }
        };
        match self.ordinal {
            None => filtered,
            Some(n) => filtered.get(n as usize - 1).map(|&i| vec![i]).unwrap_or_default(),
        }
    }
}

impl std::fmt::Display for Fragment {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if let Some(k) = &self.kind {
            write!(f, "{k}:")?;
        }
        write!(f, "{}", self.name)?;
        if let Some(n) = self.ordinal {
            write!(f, "~{n}")?;
        }
        Ok(())
    }
}

/// `strip_labels(qualified) == name`, without allocating (this runs for every
/// declaration of every file that shares a simple name with a fragment).
fn equal_without_labels(qualified: &str, name: &str) -> bool {
    if !qualified.contains('(') {
        return false; // nothing to strip: the exact comparison already failed
    }
    let mut want = name.chars();
    let mut depth = 0;
    for c in qualified.chars() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            _ if depth == 0 && want.next() != Some(c) => return false,
            _ => {}
        }
    }
    want.next().is_none()
}

/// The coarse identity a declaration kind belongs to.
pub fn identity_of_kind(kind: &str) -> Option<IdentityKind> {
    Some(match kind {
        "function" | "method" | "get" | "set" | "init" | "deinit" | "subscript" | "fn" | "fun" | "func"
        | "constructor" | "macro" => IdentityKind::Callable,
        "class" | "interface" | "type" | "enum" | "struct" | "protocol" | "extension" | "actor" | "typealias"
        | "associatedtype" | "trait" | "impl" | "object" | "union" => IdentityKind::Type,
        "namespace" | "module" | "mod" | "package" => IdentityKind::Module,
        "variable" | "property" | "const" | "let" | "var" | "val" | "case" | "member" | "static" | "field" => {
            IdentityKind::Value
        }
        _ => return None,
    })
}

/// The shortest fragment that designates `decls[i]` alone: `name`, else `kind:name`,
/// else `kind:name~N`.
pub fn exact_fragment(syn: &FileSyntax, i: usize) -> String {
    let d = &syn.declarations[i];
    let plain = Fragment { kind: None, name: d.qualified_name.clone(), ordinal: None };
    if plain.designates(syn) == [i] {
        return plain.to_string();
    }
    let kinded = Fragment { kind: Some(d.kind.clone()), name: d.qualified_name.clone(), ordinal: None };
    let same = kinded.matching(syn);
    if same == [i] {
        return kinded.to_string();
    }
    let pos = same.iter().position(|&j| j == i).unwrap_or(0) as u32 + 1;
    Fragment { ordinal: Some(pos), ..kinded }.to_string()
}

/// Up to `max` declarations whose names look like `name` (did-you-mean), best first:
/// candidates are the names within a few edits or sharing the simple name, ranked by
/// [`name_similarity`] (shared sub-words, then spelling), then by how many container
/// levels they differ in from what was asked (`HonoBase` prefers a top-level
/// declaration to a member whose qualified name happens to be close), then by edits.
pub fn suggestions(name: &str, decls: &[Declaration], max: usize) -> Vec<usize> {
    let want = name.to_lowercase();
    let want_simple = strip_labels(last_segment(name)).to_lowercase();
    let want_depth = name.matches('.').count();
    let mut scored: Vec<(std::cmp::Reverse<u32>, usize, usize, usize)> = decls
        .iter()
        .enumerate()
        .filter_map(|(i, d)| {
            let have = d.qualified_name.to_lowercase();
            let have_simple = strip_labels(d.simple_name()).to_lowercase();
            let dist = edit_distance(&want, &have).min(edit_distance(&want_simple, &have_simple) + 1);
            let limit = (want.chars().count() / 3).max(2);
            let (similar, _) = name_similarity(name, &d.qualified_name);
            let related = have_simple == want_simple || have.contains(&want_simple) || want.contains(&have_simple) || similar >= 0.5;
            let depth = want_depth.abs_diff(d.qualified_name.matches('.').count());
            (dist <= limit || related).then_some((std::cmp::Reverse((similar * 1000.0) as u32), depth, dist, i))
        })
        .collect();
    scored.sort();
    scored.into_iter().take(max).map(|(.., i)| i).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decl::NAME_INDEX_MIN_DECLS as NAME_INDEX_MIN_DECLS_FOR_TESTS;

    #[test]
    fn parses_fragments() {
        let f = Fragment::parse("get:Cart.discount").unwrap();
        assert_eq!(f.kind.as_deref(), Some("get"));
        assert_eq!(f.name, "Cart.discount");
        let f = Fragment::parse("Mixer.blend(first:second:)").unwrap();
        assert_eq!(f.kind, None);
        assert_eq!(f.name, "Mixer.blend(first:second:)");
        let f = Fragment::parse("extension:Foo~2").unwrap();
        assert_eq!((f.kind.as_deref(), f.name.as_str(), f.ordinal), (Some("extension"), "Foo", Some(2)));
        assert!(Fragment::parse("f~0").is_err());
        assert!(Fragment::parse("").is_err());
        assert_eq!(strip_labels("A.b(x:y:)"), "A.b");
        assert!(equal_without_labels("A.b(x:y:)", "A.b"));
        assert!(!equal_without_labels("A.b(x:y:)", "A.bc"));
        assert!(!equal_without_labels("A.bc(x:)", "A.b"));
        assert!(!equal_without_labels("A.b", "A.b"));
    }

    #[test]
    fn fragments_find_declarations_by_name_in_file_order() {
        // Rust: a type and its impl blocks share a name, interleaved with other names; the
        // look-up by name (a binary search in the file's name index) must give them in
        // file order, which ordinals count in.
        let filler = |from: usize| (from..from + 15).map(|i| format!("fn f{i}() {{}}\n")).collect::<String>();
        let src = format!("struct S;\n{}fn a() {{}}\nimpl S {{ fn m(&self) {{}} }}\n{}fn z() {{}}\nimpl S {{ fn n(&self) {{}} }}\nfn b() {{}}\n{}impl S {{}}\n", filler(0), filler(20), filler(40));
        let src = src.as_str();
        let syn = crate::parse(crate::Lang::Rust, src);
        assert!(syn.declarations.len() > NAME_INDEX_MIN_DECLS_FOR_TESTS, "large enough to be indexed");
        let scan = |name: &str| syn.declarations.iter().enumerate().filter(|(_, d)| d.qualified_name == name).map(|(i, _)| i).collect::<Vec<_>>();
        let named = syn.named("S");
        assert_eq!(named, scan("S"));
        assert_eq!(named.len(), 4);
        for d in &syn.declarations {
            assert_eq!(syn.named(&d.qualified_name), scan(&d.qualified_name));
        }
        assert!(syn.named("S.").is_empty() && syn.named("").is_empty() && syn.named("zz").is_empty());
        let third = Fragment::parse("impl:S~2").unwrap();
        assert_eq!(third.resolve(&syn), Resolution::Unique(named[2]));
        assert_eq!(Fragment::parse("S").unwrap().resolve(&syn), Resolution::Unique(named[0]));
        // The index is not part of the file's value.
        assert_eq!(syn, crate::parse(crate::Lang::Rust, src));
    }
}
