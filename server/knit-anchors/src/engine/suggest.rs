//! Code mentions into anchors (`knit anchors suggest`): inline code spans of a doc that
//! name code — qualified names (`Router.add`, `Type#method`, `Type::method`,
//! `Type/member`), calls (`createFactory()`), file paths (`src/router/trie.ts`) — and
//! the one declaration or file each names. A mention becomes a suggestion only when
//! exactly one declaration (or file) of the workspace matches, by qualified name or by a
//! name unique in the workspace; the files the doc already links to, then its own
//! folder, break a tie, and only a tie. Anything else is listed as ambiguous with its
//! candidates and left alone: a wrong anchor is worse than none.

use super::repo_index::RepoIndex;
use super::session::Session;
use crate::markdown::{self, CodeSpan};
use crate::model::Candidate;
use crate::target::{join, relative_dest};
use knit_syntax::fragment::{exact_fragment, strip_labels};
use knit_syntax::IdentityKind;
use serde::Serialize;
use std::ops::Range;

/// What one code mention names.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Suggestion {
    pub doc: String,
    pub line: u32,
    /// The code span, backticks included.
    #[serde(skip)]
    pub span: Range<usize>,
    /// The mention as written (without backticks).
    pub text: String,
    /// The anchor destination, relative to the doc (`../src/a.ts#A.b`), when exactly one
    /// declaration or file matches.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dest: Option<String>,
    /// `symbol` or `file` for a suggestion; `ambiguous` otherwise.
    pub kind: &'static str,
    /// Why this target: "the only declaration named …", "… of the files this doc links to".
    pub why: String,
    /// For an ambiguous mention: what it could mean.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub candidates: Vec<Candidate>,
}

/// How a code span reads as code.
#[derive(Debug, PartialEq, Eq)]
enum Shape {
    File(String),
    Name { segments: Vec<String>, call: bool },
}

/// Words that are code in every language but name nothing of a workspace.
const NOT_NAMES: &[&str] = &[
    "true", "false", "null", "nil", "None", "undefined", "self", "Self", "this", "super", "void", "string", "number",
    "boolean", "bool", "int", "str", "float", "async", "await", "return", "const", "let", "var", "fn", "def", "func",
    "class", "struct", "enum", "type", "interface", "impl", "trait", "import", "export", "from", "package", "main",
    "README", "TODO", "JSON", "HTML", "HTTP", "HTTPS", "URL", "API", "CLI", "UTF8", "function", "default", "new",
    "delete", "typeof", "instanceof", "object", "array", "any", "unknown", "never", "get", "set", "init", "deinit",
];

fn is_identifier(s: &str) -> bool {
    let mut c = s.chars();
    matches!(c.next(), Some(f) if f.is_alphabetic() || f == '_' || f == '$') && c.all(|x| x.is_alphanumeric() || x == '_' || x == '$')
}

/// A single name reads as code when it is a call, or has an inner capital or an
/// underscore (`parseBody`, `HonoRequest`, `parse_config`); a plain word (`config`,
/// `Router`) might be prose.
fn looks_like_code(name: &str, call: bool) -> bool {
    // `GITHUB_TOKEN`, `NODE_ENV`: in prose an all-caps name is usually an environment
    // variable or a setting, not the constant that happens to read it.
    if name.chars().all(|c| !c.is_lowercase()) {
        return false;
    }
    if call {
        return true;
    }
    let inner_capital = name.chars().skip(1).any(char::is_uppercase) && name.chars().any(char::is_lowercase);
    name.chars().count() >= 4 && (inner_capital || name.trim_matches('_').contains('_'))
}

fn shape(text: &str) -> Option<Shape> {
    let t = text.trim();
    if t.is_empty() || t.len() > 200 {
        return None;
    }
    // A call: `f()`, `Router.add(path, handler)` — what is before the first `(`.
    let (head, call) = match t.find('(') {
        Some(i) if t.ends_with(')') => (&t[..i], true),
        Some(_) => return None,
        None => (t, false),
    };
    if head.contains(char::is_whitespace) || head.is_empty() || head.contains("://") {
        return None;
    }
    // A path: a last segment with an extension, and a `/` or a source or doc extension.
    let last = head.rsplit('/').next().unwrap_or(head);
    if !call && !head.replace("::", "").contains(':') {
        if let Some((stem, ext)) = last.rsplit_once('.') {
            let known = knit_syntax::Lang::from_path(last).is_some() || matches!(ext, "md" | "json" | "toml" | "yaml" | "yml");
            if !stem.is_empty() && !ext.is_empty() && ext.chars().all(|c| c.is_ascii_alphanumeric()) && (head.contains('/') || known) {
                return Some(Shape::File(head.trim_start_matches("./").to_string()));
            }
        }
    }
    let normalised = head.replace("::", ".").replace(['#', '/'], ".");
    let segments: Vec<String> = normalised.split('.').map(str::to_string).collect();
    if segments.iter().any(|s| !is_identifier(s)) {
        return None;
    }
    Some(Shape::Name { segments, call })
}

/// Every declaration of the workspace a name designates: by qualified name, else as the
/// tail of a longer qualified name (`Router.add` for `app.Router.add`).
fn declarations_named(repo: &RepoIndex, segments: &[String]) -> Vec<(usize, usize)> {
    let qualified = segments.join(".");
    let mut found: Vec<(usize, usize)> = repo.by_qualified.get(&qualified).cloned().unwrap_or_default();
    if found.is_empty() {
        let simple = segments.last().map(String::as_str).unwrap_or("");
        let suffix = format!(".{qualified}");
        for &fi in repo.by_simple_name.get(simple).map(Vec::as_slice).unwrap_or(&[]) {
            for (di, d) in repo.files[fi].1.declarations.iter().enumerate() {
                let name = strip_labels(&d.qualified_name);
                if name == qualified || name.ends_with(&suffix) {
                    found.push((fi, di));
                }
            }
        }
    }
    // Names a file exports its declarations under (`export { preprocessType as
    // preprocess }`) name them too: such a name is then not unique however the
    // declarations themselves are called.
    for (fi, (_, syn)) in repo.files.iter().enumerate() {
        for alias in syn.aliases.iter().filter(|a| a.alias == segments[0]) {
            let mut local = vec![alias.local.clone()];
            local.extend(segments[1..].iter().cloned());
            let wanted = local.join(".");
            found.extend(syn.declarations.iter().enumerate().filter(|(_, d)| strip_labels(&d.qualified_name) == wanted).map(|(di, _)| (fi, di)));
        }
    }
    // An extension or impl block adds to a type, often one defined elsewhere (Swift's
    // `extension MutableCollection`): it is not what the name means.
    found.retain(|&(f, d)| !matches!(repo.files[f].1.declarations[d].kind.as_str(), "extension" | "impl"));
    found.sort_unstable();
    found.dedup();
    found
}

/// A DocC extension page (`Foo.docc/Extensions/OrderedSet.md`) documents the type its
/// file is named after: its relative symbol links (``` ``firstIndex(of:)`` ```) are members
/// of that type.
fn docc_page_type(doc: &str) -> Option<&str> {
    let (dir, file) = doc.rsplit_once('/')?;
    if !(dir.contains(".docc/") || dir.ends_with(".docc")) {
        return None;
    }
    file.strip_suffix(".md")
}

/// The folders two workspace paths share.
fn shared_dirs(a: &str, b: &str) -> usize {
    a.split('/').zip(b.split('/')).take_while(|(x, y)| x == y).count()
}

impl Session<'_> {
    /// What the code mentions of `doc` (text `src`) name.
    pub fn suggest(&mut self, doc: &str, src: &str) -> Vec<Suggestion> {
        let scan = markdown::scan(src);
        if scan.code_spans.is_empty() {
            return Vec::new();
        }
        // Files the doc links to: the first tie-breaker.
        let linked: Vec<String> = scan
            .links
            .iter()
            .filter_map(|l| join(doc, &percent_encoding::percent_decode_str(l.dest_raw.split('#').next().unwrap_or("")).decode_utf8_lossy()))
            .collect();
        let mut out = Vec::new();
        for span in &scan.code_spans {
            let Some(shape) = shape(&span.text) else { continue };
            if let Some(s) = self.suggest_one(doc, span, shape, &linked) {
                out.push(s);
            }
        }
        out
    }

    fn suggest_one(&mut self, doc: &str, span: &CodeSpan, shape: Shape, linked: &[String]) -> Option<Suggestion> {
        let base = |kind: &'static str, dest: Option<String>, why: String, candidates: Vec<Candidate>| Suggestion {
            doc: doc.to_string(),
            line: span.line,
            span: span.span.clone(),
            text: span.text.trim().to_string(),
            dest,
            kind,
            why,
            candidates,
        };
        match shape {
            Shape::File(path) if !path.contains('/') => {
                // A bare file name (`Cargo.toml`, `main.rs`) names a file only when the
                // workspace has one of that name: "add this to your `Cargo.toml`" in a
                // crate's README means the reader's, not whichever is nearest.
                let files = self.tree.files();
                let same: Vec<&String> = files.iter().filter(|f| f.rsplit('/').next() == Some(path.as_str())).collect();
                match same.as_slice() {
                    [] => None,
                    [one] if one.as_str() != doc => Some(base("file", Some(relative_dest(doc, one)), format!("the only file named {path}"), Vec::new())),
                    [_] => None,
                    many => {
                        let candidates = many.iter().take(8).map(|f| Candidate::new(f.as_str(), "", 1, "same file name")).collect();
                        Some(base("ambiguous", None, format!("{} files are named {path}", many.len()), candidates))
                    }
                }
            }
            Shape::File(path) => {
                // Root-relative (how agents and READMEs cite files), else relative to the doc.
                let at = [path.clone(), join(doc, &path).unwrap_or_default()].into_iter().find(|p| !p.is_empty() && self.tree.exists(p))?;
                if at == doc {
                    return None;
                }
                Some(base("file", Some(relative_dest(doc, &at)), format!("the file {at}"), Vec::new()))
            }
            Shape::Name { segments, call } => {
                let mut segments = segments;
                if segments.len() == 1 && (NOT_NAMES.contains(&segments[0].as_str()) || !looks_like_code(&segments[0], call)) {
                    return None;
                }
                let repo = self.repo(&[doc]);
                if !repo.complete {
                    return None;
                }
                let mut found = declarations_named(repo, &segments);
                // `c.req.parseBody`: an instance path before a distinctive member name.
                if found.is_empty() && segments.len() > 1 && segments[0].starts_with(char::is_lowercase) {
                    let last = segments.pop().unwrap_or_default();
                    if NOT_NAMES.contains(&last.as_str()) || !looks_like_code(&last, call) {
                        return None;
                    }
                    segments = vec![last];
                    found = declarations_named(repo, &segments);
                }
                // A call does not name a data member (a property, a field, an enum case);
                // a variable may hold a function (`const preprocess = …`), so it stays.
                if call {
                    found.retain(|&(f, d)| {
                        let decl = &repo.files[f].1.declarations[d];
                        decl.identity != IdentityKind::Value || !matches!(decl.kind.as_str(), "property" | "field" | "case" | "enum_member" | "member")
                    });
                }
                if found.is_empty() {
                    return None;
                }
                let name = segments.join(".");
                let pick = |list: &[(usize, usize)]| -> Option<(usize, usize)> { (list.len() == 1).then(|| list[0]) };
                // On a DocC page of a type, a member name means that type's member.
                if let Some(ty) = docc_page_type(doc).filter(|_| segments.len() == 1 && found.len() > 1) {
                    let prefix = format!("{ty}.");
                    found.retain(|&(f, d)| strip_labels(&repo.files[f].1.declarations[d].qualified_name).starts_with(&prefix));
                    if found.is_empty() {
                        return None;
                    }
                }
                let (chosen, why) = if let Some(one) = pick(&found) {
                    (Some(one), format!("the only declaration named `{name}`"))
                } else {
                    // Ties only: the files the doc links to, then the doc's nearest folder.
                    let in_linked: Vec<(usize, usize)> = found.iter().copied().filter(|&(f, _)| linked.contains(&repo.files[f].0)).collect();
                    if let Some(one) = pick(&in_linked) {
                        (Some(one), format!("the one `{name}` in the files this doc links to"))
                    } else {
                        let best = found.iter().map(|&(f, _)| shared_dirs(doc, &repo.files[f].0)).max().unwrap_or(0);
                        let nearest: Vec<(usize, usize)> = found.iter().copied().filter(|&(f, _)| shared_dirs(doc, &repo.files[f].0) == best).collect();
                        match pick(&nearest) {
                            Some(one) if best > 0 => (Some(one), format!("the one `{name}` nearest this doc's folder")),
                            _ => (None, String::new()),
                        }
                    }
                };
                let fragment = |(f, d): (usize, usize)| exact_fragment(&repo.files[f].1, d);
                match chosen {
                    Some(c) => {
                        let dest = format!("{}#{}", relative_dest(doc, &repo.files[c.0].0), fragment(c));
                        Some(base("symbol", Some(dest), why, Vec::new()))
                    }
                    None => {
                        let candidates = found
                            .iter()
                            .take(8)
                            .map(|&(f, d)| {
                                let decl = &repo.files[f].1.declarations[d];
                                Candidate { kind: decl.kind.clone(), ..Candidate::new(repo.files[f].0.clone(), fragment((f, d)), decl.name_line, "same name") }
                            })
                            .collect();
                        Some(base("ambiguous", None, format!("{} declarations are named `{name}`", found.len()), candidates))
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn code_spans_read_as_names_calls_and_paths() {
        let name = |s: &[&str], call| Some(Shape::Name { segments: s.iter().map(|x| x.to_string()).collect(), call });
        assert_eq!(shape("Router.add"), name(&["Router", "add"], false));
        assert_eq!(shape("Type#method"), name(&["Type", "method"], false));
        assert_eq!(shape("Type::method"), name(&["Type", "method"], false));
        assert_eq!(shape("ExpressibleByArgument/allValueStrings"), name(&["ExpressibleByArgument", "allValueStrings"], false));
        assert_eq!(shape("createFactory()"), name(&["createFactory"], true));
        assert_eq!(shape("app.get(path, handler)"), name(&["app", "get"], true));
        assert_eq!(shape("src/router/trie.ts"), Some(Shape::File("src/router/trie.ts".into())));
        assert_eq!(shape("./lib.rs"), Some(Shape::File("lib.rs".into())));
        // Not code names: prose, expressions, versions, URLs.
        for s in ["npm install", "a + b", "1.2.3", "https://x.dev/a.ts", "x => x", "--flag", "(a)"] {
            assert_eq!(shape(s), None, "{s}");
        }
        assert!(looks_like_code("parseBody", false) && looks_like_code("parse_config", false) && looks_like_code("HonoRequest", false));
        assert!(!looks_like_code("config", false) && !looks_like_code("Router", false) && !looks_like_code("URL", false));
        assert!(!looks_like_code("GITHUB_TOKEN", false) && !looks_like_code("MAX", true));
        assert!(looks_like_code("add", true));
        assert_eq!(docc_page_type("Sources/A/A.docc/Extensions/OrderedSet.md"), Some("OrderedSet"));
        assert_eq!(docc_page_type("docs/OrderedSet.md"), None);
    }
}
