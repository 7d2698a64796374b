//! Symbol links other tools own (issue 14 part 2): DocC's ``` ``Type/member`` ``` and
//! TSDoc's `{@link Foo.bar}` in Markdown, resolved against the workspace's declarations.
//! One that names nothing is reported like a broken link, with the names it may have
//! meant; one that resolves gets hover and go-to-definition like an anchor. Their syntax
//! has no place for a baseline, so they are never `stale`: knit says where they point,
//! not whether the doc is still true.
//!
//! Spelling: DocC paths may start with the module (`Collections/Deque/append(_:)`) and
//! carry disambiguation suffixes (`count-swift.property`, `init(_:)-7p2ak`); TSDoc may
//! start with a package (`zod!z.string`) and write members with `#` (`Foo#bar`). What
//! is left becomes a qualified name (`Deque.append(_:)`) matched as an anchor fragment
//! matches: labels may be left out when the base name is unique.

use super::session::Session;
use crate::markdown::{SymbolLink, SymbolLinkKind};
use crate::model::Now;
use knit_syntax::fragment::strip_labels;
use knit_syntax::similarity::name_similarity;

/// What a symbol link points at.
#[derive(Clone, Debug)]
pub struct SymbolLinkResult {
    pub link: SymbolLink,
    /// Every declaration it names (several: overloads, or a type and its extensions).
    pub targets: Vec<Now>,
    /// Why it names nothing, when its container is in the workspace and lacks the member.
    /// None when it resolves, when it names nothing the workspace declares at all (an
    /// external symbol: the standard library, another package), or when the workspace
    /// could not be indexed completely.
    pub broken: Option<String>,
}

/// The qualified names a symbol link may mean, most specific first.
fn candidates(link: &SymbolLink) -> Vec<String> {
    let t = link.target.trim();
    match link.kind {
        SymbolLinkKind::DocC => {
            let segments: Vec<String> = t.split('/').filter(|s| !s.is_empty()).map(strip_disambiguation).collect();
            let mut out = vec![segments.join(".")];
            // The first segment may be the module.
            if segments.len() > 1 {
                out.push(segments[1..].join("."));
            }
            out
        }
        SymbolLinkKind::TsDoc => {
            let t = t.rsplit_once('!').map_or(t, |(_, rest)| rest);
            let t = t.replace('#', ".");
            let t = t.strip_suffix("()").unwrap_or(&t).to_string();
            vec![t]
        }
    }
}

/// `count-swift.property` → `count`; `init(_:)-7p2ak` → `init(_:)`; an operator such as
/// `-(_:_:)` keeps its leading `-`.
fn strip_disambiguation(segment: &str) -> String {
    let mut cut = segment.len();
    for (i, c) in segment.char_indices().skip(1) {
        if c == '-' {
            let prev = segment[..i].chars().last().unwrap_or(' ');
            if prev.is_alphanumeric() || prev == '_' || prev == ')' {
                cut = i;
                break;
            }
        }
    }
    segment[..cut].to_string()
}

/// Whether `qualified` (a declaration's qualified name) is `wanted` or ends with it at a
/// segment boundary; labels may be left out of `wanted` (`Deque.append` names
/// `Deque.append(_:)`).
fn names(qualified: &str, wanted: &str) -> bool {
    let ends = |q: &str, w: &str| q == w || q.strip_suffix(w).is_some_and(|head| head.ends_with('.'));
    if ends(qualified, wanted) || (!wanted.contains('(') && qualified.contains('(') && ends(&strip_labels(qualified), wanted)) {
        return true;
    }
    // DocC names a subscript by its parameter names (`subscript(position:)`), which are
    // not argument labels (knit's `subscript(_:)`): the same arity is the same subscript.
    let last = wanted.rsplit('.').next().unwrap_or(wanted);
    last.starts_with("subscript(")
        && qualified.rsplit('.').next().is_some_and(|q| q.starts_with("subscript(") && q.matches(':').count() == last.matches(':').count())
        && ends(&strip_labels(qualified), &strip_labels(wanted))
}

/// Whether a DocC link's labels (`push(id:state:)`) are those of the enum case `name`
/// whose declaration text is `signature` (`case push(id: Int, state: String)`). A case
/// whose text cannot be read (cut off, several cases on a line) is taken to match.
fn case_labels_match(signature: &str, name: &str, wanted: &str) -> bool {
    let Some(open) = wanted.rfind('(').filter(|&p| !wanted[p..].contains('.')) else { return true };
    let wanted_labels = &wanted[open..];
    let mut from = 0;
    let start = loop {
        let Some(at) = signature[from..].find(name).map(|p| p + from) else { return true };
        let after = at + name.len();
        let word_start = signature[..at].chars().last().is_none_or(|c| !(c.is_alphanumeric() || c == '_'));
        if word_start && signature[after..].starts_with('(') {
            break after + 1;
        }
        from = after;
    };
    let mut labels = String::from("(");
    let (mut depth, mut element) = (0i32, String::new());
    let close = |element: &str, labels: &mut String| {
        let mut d = 0i32;
        let colon = element.char_indices().find(|&(_, c)| {
            match c {
                '<' | '(' | '[' => d += 1,
                '>' | ')' | ']' => d -= 1,
                _ => {}
            }
            c == ':' && d == 0
        });
        let label = colon.map(|(i, _)| element[..i].trim()).filter(|l| !l.is_empty() && l.chars().all(|c| c.is_alphanumeric() || c == '_'));
        labels.push_str(label.unwrap_or("_"));
        labels.push(':');
    };
    for c in signature[start..].chars() {
        match c {
            '<' | '(' | '[' => depth += 1,
            ')' if depth == 0 => {
                if !element.trim().is_empty() {
                    close(&element, &mut labels);
                }
                labels.push(')');
                return labels == wanted_labels;
            }
            '>' | ')' | ']' => depth -= 1,
            ',' if depth == 0 => {
                close(&element, &mut labels);
                element.clear();
                continue;
            }
            _ => {}
        }
        element.push(c);
    }
    true
}

/// Whether a Swift type or extension header declares a conformance or superclass
/// (`struct S<T: Hashable>: Collection where T: Sendable` does; `enum E<T: Hashable>` does
/// not): a colon outside the generic parameters and the `where` clause.
fn declares_conformance(signature: &str) -> bool {
    let head = signature.split(" where ").next().unwrap_or(signature);
    let mut depth = 0i32;
    for c in head.chars() {
        match c {
            '<' | '(' | '[' => depth += 1,
            '>' | ')' | ']' => depth -= 1,
            ':' if depth <= 0 => return true,
            '{' => break,
            _ => {}
        }
    }
    false
}

impl Session<'_> {
    /// Whether the tree holds a Swift file (what a DocC link can name), asked of the file
    /// list once per session.
    fn has_swift_files(&mut self) -> bool {
        if let Some(known) = self.swift_present {
            return known;
        }
        let found = self.tree.files().iter().any(|f| f.ends_with(".swift"));
        self.swift_present = Some(found);
        found
    }

    /// Resolves a DocC or TSDoc symbol link against the workspace's declarations: first
    /// relative to the page's symbol (DocC), then anywhere in the workspace. A link whose
    /// container is a workspace declaration that has no such member is broken; one that
    /// names nothing the workspace declares at all is taken to be external (the standard
    /// library, another module) and is not judged.
    pub fn resolve_symbol_link(&mut self, link: &SymbolLink) -> SymbolLinkResult {
        // A DocC link resolves against Swift declarations only: in a tree with no Swift
        // file it names nothing, and is external without indexing the repository
        // (prettier's Markdown test fixtures write ``backtick`` in image alts; indexing its
        // 9 000 files for them ran the check's files budget out and marked it incomplete).
        // A TSDoc link may name a declaration of any language (`{@link parse_config}` in a
        // Rust project's docs), so it is always looked up.
        if link.kind == SymbolLinkKind::DocC && !self.has_swift_files() {
            return SymbolLinkResult { link: link.clone(), targets: Vec::new(), broken: None };
        }
        let wanted = candidates(link);
        let page = link.page.as_ref().map(|p| candidates(&SymbolLink { target: p.clone(), page: None, ..link.clone() }));
        let index = self.repo(&[]);
        // DocC documents Swift: a Python `hello` is no container of ``hello/py``.
        let in_language = |path: &str| link.kind != SymbolLinkKind::DocC || path.ends_with(".swift");
        let find = |name: &str| -> Vec<(usize, usize)> {
            let simple = strip_labels(name.rsplit('.').next().unwrap_or(name));
            let matches = |&(fi, di): &(usize, usize)| {
                let d = &index.files[fi].1.declarations[di];
                // Backticks are rare: no copy of every candidate's name for them.
                let qualified: std::borrow::Cow<str> =
                    if d.qualified_name.contains('`') { d.qualified_name.replace('`', "").into() } else { d.qualified_name.as_str().into() };
                // DocC names an enum case with associated values by its labels
                // (``Action/presented(_:)``); knit names the case alone. Only with its
                // container named: a bare ``run(…)`` is no nested `Effect.Operation.run`.
                names(&qualified, name) || (d.kind == "case" && name.contains('.') && names(&qualified, &strip_labels(name)) && case_labels_match(&d.signature, d.simple_name(), name))
            };
            index
                .decls_by_simple_name
                .get(&simple)
                .map(|v| v.iter().copied().filter(|&(fi, _)| in_language(&index.files[fi].0)).filter(matches).collect())
                .unwrap_or_default()
        };
        let mut found: Vec<(usize, usize)> = Vec::new();
        // Relative to the page's symbol first: ``init()`` on Deque's page is Deque's.
        for p in page.iter().flatten() {
            for name in &wanted {
                found = find(&format!("{p}.{name}"));
                if !found.is_empty() {
                    break;
                }
            }
            if !found.is_empty() {
                break;
            }
        }
        if found.is_empty() {
            for name in &wanted {
                found = find(name);
                if !found.is_empty() {
                    break;
                }
            }
        }
        // A DocC page belongs to a module (its title's first segment, a SwiftPM target
        // folder): declarations of that folder win over same-named ones elsewhere (the
        // benchmarks' `Box` is not ContainersPreview's).
        if let Some(module) = link.page.as_deref().and_then(|p| p.split('/').next()).filter(|m| !m.is_empty()) {
            let (top, nested) = (format!("{module}/"), format!("/{module}/"));
            let in_module = |&(fi, _): &(usize, usize)| {
                let path = &index.files[fi].0;
                path.starts_with(&top) || path.contains(&nested)
            };
            if found.iter().any(in_module) && !found.iter().all(in_module) {
                found.retain(in_module);
            }
        }
        let targets: Vec<Now> = found.iter().map(|&(fi, di)| super::now_of(&index.files[fi].0, &index.files[fi].1, di)).collect();
        let mut broken = None;
        if targets.is_empty() && index.complete {
            // The container the link names, if the workspace has it: then the member is
            // missing. Only the page's symbol: DocC also resolves up to the module and
            // into other modules (inherited members, the standard library), so a link
            // that names none of the page's members is judged only when it is a near
            // miss of one (a typo), never merely for being absent.
            let named: Vec<String> = wanted.iter().filter_map(|n| n.rsplit_once('.').map(|(c, _)| c.to_string())).collect();
            let member = strip_labels(wanted[0].rsplit('.').next().unwrap_or(&wanted[0]));
            // A container that declares a conformance (`struct StackState: RandomAccessCollection`)
            // inherits members the workspace does not declare (`popLast()`): then only a
            // near miss of its own members is judged, as on a page.
            let inherits = |decls: &[(usize, usize)]| decls.iter().any(|&(fi, di)| declares_conformance(&index.files[fi].1.declarations[di].signature));
            let in_link = named.iter().find_map(|c| {
                let d = find(c);
                (!d.is_empty()).then(|| {
                    let typo_only = link.kind == SymbolLinkKind::DocC && inherits(&d);
                    (c.clone(), d, typo_only)
                })
            });
            let on_page = || {
                page.iter().flatten().find_map(|c| {
                    let d = find(c);
                    (!d.is_empty()).then(|| (c.clone(), d, true))
                })
            };
            if let Some((container, decls, typo_only)) = in_link.or_else(on_page) {
                // What the container does have, nearest first.
                let mut near: Vec<(f32, String)> = Vec::new();
                for &(fi, di) in &decls {
                    let parent = &index.files[fi].1.declarations[di].qualified_name;
                    for d in index.files[fi].1.declarations.iter().filter(|d| d.container.as_deref() == Some(parent.as_str())) {
                        let name = d.simple_name().to_string();
                        let score = name_similarity(&member, &strip_labels(&name)).0;
                        if score >= 0.5 && !near.iter().any(|(_, n)| *n == name) {
                            near.push((score, name));
                        }
                    }
                }
                near.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
                if typo_only && !near.first().is_some_and(|(score, _)| *score >= 0.8) {
                    return SymbolLinkResult { link: link.clone(), targets, broken: None };
                }
                let spelled = match link.kind {
                    SymbolLinkKind::DocC => format!("``{}``", link.target),
                    SymbolLinkKind::TsDoc => format!("{{@link {}}}", link.target),
                };
                let mut message = format!("{spelled}: `{container}` has no member `{member}` in this workspace");
                if !near.is_empty() {
                    let list: Vec<String> = near.iter().take(3).map(|(_, n)| format!("`{n}`")).collect();
                    message.push_str(&format!("; did you mean {}?", list.join(", ")));
                }
                broken = Some(message);
            }
        }
        SymbolLinkResult { link: link.clone(), targets, broken }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn link(kind: SymbolLinkKind, target: &str) -> SymbolLink {
        SymbolLink { kind, target: target.to_string(), span: 0..0, line: 1, page: None }
    }

    #[test]
    fn spellings_become_qualified_names() {
        assert_eq!(candidates(&link(SymbolLinkKind::DocC, "Deque/append(_:)")), ["Deque.append(_:)", "append(_:)"]);
        assert_eq!(candidates(&link(SymbolLinkKind::DocC, "Collections/Deque/count-swift.property")), ["Collections.Deque.count", "Deque.count"]);
        assert_eq!(candidates(&link(SymbolLinkKind::DocC, "Deque/init(_:)-7p2ak")), ["Deque.init(_:)", "init(_:)"]);
        assert_eq!(candidates(&link(SymbolLinkKind::DocC, "Deque")), ["Deque"]);
        assert_eq!(strip_disambiguation("-(_:_:)"), "-(_:_:)");
        assert_eq!(candidates(&link(SymbolLinkKind::TsDoc, "zod!z.string")), ["z.string"]);
        assert_eq!(candidates(&link(SymbolLinkKind::TsDoc, "Router#add()")), ["Router.add"]);
    }

    #[test]
    fn a_docc_page_resolves_in_its_module_first() {
        let mut tree = crate::source::MemTree::new();
        tree.insert("Sources/Deques/Deque.swift", "public struct Deque {\n    public func append(_ x: Int) {}\n}\n");
        tree.insert("Benchmarks/Sources/Deque.swift", "struct Deque {\n    func append(_ x: Int) {}\n}\n");
        let cache = crate::source::DeclCache::default();
        let mut session = Session::new(&tree, &cache, crate::engine::CheckConfig::default());
        let paths = |l: &SymbolLink, s: &mut Session| -> Vec<String> { s.resolve_symbol_link(l).targets.into_iter().map(|t| t.path).collect() };
        let mut on_page = link(SymbolLinkKind::DocC, "append(_:)");
        on_page.page = Some("Deques/Deque".to_string());
        assert_eq!(paths(&on_page, &mut session), ["Sources/Deques/Deque.swift"]);
        // Without a page, both are what the link can mean.
        assert_eq!(paths(&link(SymbolLinkKind::DocC, "Deque/append(_:)"), &mut session).len(), 2);
    }

    /// On swift-composable-architecture's DocC pages (2026-12-05): enum cases linked by
    /// their associated values' labels, a backticked property, a macro, members a
    /// conforming type inherits; and a Python function is no DocC container.
    #[test]
    fn docc_links_to_cases_macros_backticked_and_inherited_members() {
        let mut tree = crate::source::MemTree::new();
        tree.insert(
            "Sources/M/a.swift",
            "public enum StackAction {\n    case popFrom(id: Int)\n    case push(id: Int, state: String)\n}\n\
             public struct StackState<Element: Hashable>: RandomAccessCollection {\n    public var `case`: Int { 0 }\n    public func append(_ x: Int) {}\n}\n\
             public struct Plain<T: Hashable> {\n    public func pop(from id: Int) {}\n}\n\
             @attached(member)\npublic macro Reducer() = #externalMacro(module: \"M\", type: \"R\")\n\
             public protocol Reducer {\n    func reduce(into state: inout Int, action: Int)\n}\n",
        );
        tree.insert("examples/hello.py", "def hello():\n    pass\n");
        let cache = crate::source::DeclCache::default();
        let mut session = Session::new(&tree, &cache, crate::engine::CheckConfig::default());
        let mut check = |target: &str, page: Option<&str>| {
            let mut l = link(SymbolLinkKind::DocC, target);
            l.page = page.map(str::to_string);
            let r = session.resolve_symbol_link(&l);
            (r.targets.len(), r.broken)
        };
        assert_eq!(check("StackAction/popFrom(id:)", None), (1, None));
        assert_eq!(check("StackAction/push(id:state:)", None), (1, None));
        assert_eq!(check("StackAction/push(id:)", None).0, 0, "not that case's labels");
        assert!(case_labels_match("case a(x: [String: Int], _ y: Int), b", "a", "E.a(x:_:)"));
        assert!(case_labels_match("case presented(Action)", "presented", "E.presented(_:)"));
        assert!(!case_labels_match("case presented(Action)", "presented", "E.presented(action:)"));
        assert_eq!(check("StackState/case", None), (1, None));
        assert_eq!(check("Reducer()", Some("M/Reducer")), (1, None), "the module's macro, from the protocol's page");
        // inherited from RandomAccessCollection: not judged; a near miss still is
        assert_eq!(check("StackState/popLast()", None), (0, None));
        assert!(check("StackState/apend(_:)", None).1.is_some_and(|m| m.contains("did you mean `append(_:)`")));
        // a type without conformances has only the members the workspace declares
        assert!(check("Plain/popLast()", None).1.is_some_and(|m| m.contains("`Plain` has no member `popLast`")));
        assert_eq!(check("hello/py", None), (0, None));
        assert!(declares_conformance("extension Deque: Equatable where Element: Equatable"));
        assert!(!declares_conformance("public enum E<T: Hashable> where T: Sendable"));
    }

    #[test]
    fn a_name_matches_a_qualified_name_or_its_tail() {
        assert!(names("Deque.append(_:)", "append(_:)"));
        assert!(names("Deque.append(_:)", "Deque.append"));
        assert!(names("Deque", "Deque"));
        assert!(!names("MyDeque.append(_:)", "Deque.append(_:)"), "at a segment boundary only");
        assert!(!names("Deque.append(contentsOf:)", "append(_:)"));
        assert!(names("RigidArray.subscript(_:)", "subscript(position:)"), "DocC spells a subscript with its parameter names");
        assert!(!names("RigidArray.subscript(_:_:)", "subscript(position:)"));
    }
}
