//! Relations between workspace files, as checkable facts:
//! - `references`: a Markdown doc links to (or names in a code span) another doc;
//! - `documents`: a doc links to a non-doc file; `path#Symbol` links are exact anchors;
//! - `imports`: a code file imports another by a relative specifier (specifiers come from
//!   the syntax tree through an [`ImportExtractor`], never from a regex here);
//! - `tests`: a test file and its subject by naming convention, unique matches only.
//!
//! Pure: built from file records and the set of workspace paths. The records, with the
//! links and imports they keep (`LinkRef`, [`ImportRef`]), are `index`'s; this module
//! reads them and `index` does not depend on it.

use std::collections::{BTreeMap, HashMap, HashSet};

use percent_encoding::percent_decode_str;

use knit_syntax::PathImports;

use crate::classify::{self, file_name, Kind};
use knit_anchors::target::{directory_url_base, is_page_route, page_candidates};
use crate::index::{FileRecord, ImportRef};
use crate::wire::RelationType;

/// `fn(path, source) -> imports`. The default is [`syntax_imports`]; `None` disables the
/// `imports` relation; tests may substitute a double.
pub type ImportExtractor = fn(&str, &str) -> Vec<ImportRef>;

/// Imports from the syntax tree (TS/TSX/JS/Swift/… as `knit-syntax` supports them).
pub fn syntax_imports(path: &str, source: &str) -> Vec<ImportRef> {
    knit_syntax::imports(path, source).into_iter().map(|i| ImportRef { specifier: i.specifier, line: i.line }).collect()
}

/// True for the specifiers [`resolve_import`] can resolve: `./x` and `../x`. Any other
/// specifier (`react`, `Foundation`, `crate::x`) never becomes an edge, so it is not kept.
pub fn is_relative_specifier(specifier: &str) -> bool {
    specifier.starts_with("./") || specifier.starts_with("../")
}

/// 1-based lines of the string literals in `source` that could hold a relative specifier:
/// a quote (`'`, `"` or a backquote) followed by `./`, `..`, or an escape that may
/// unescape to the dot or slash (`\u002e/…`, `.\/…`; see `knit_syntax`'s `unescape`).
/// Every relative specifier the syntax layer reports is the content of such a literal
/// (TS/JS strings, Go strings; the other languages name modules, not paths), so this is a
/// superset: it only decides how much of the file must be parsed.
///
/// With `after_keyword` (TS/JS), a literal counts only where an import could hold it: after
/// `from` or `import`, or after the `(` of a call to `require` / `import` (a `>` or `.` before
/// the `(` also counts: `require<T>(…)`, `require?.(…)`). Where a comment may sit in between,
/// the literal counts too, so the set stays a superset of the imports; test fixtures and
/// tools are full of `'../data'` strings that are not imports and would otherwise force a
/// parse of the whole file.
fn relative_literal_lines(source: &str, after_keyword: bool) -> Vec<u32> {
    let bytes = source.as_bytes();
    let mut out = Vec::new();
    let mut line = 1u32;
    for (i, &b) in bytes.iter().enumerate() {
        match b {
            b'\n' => line += 1,
            b'\'' | b'"' | b'`' => {
                let could_be_relative = match (bytes.get(i + 1), bytes.get(i + 2)) {
                    // `./`, `..`, `.\/`
                    (Some(b'.'), Some(b'/' | b'.' | b'\\')) => true,
                    // `\.`, `\u002e`, a line continuation: escapes that may yield the dot
                    (Some(b'\\'), Some(b'.' | b'u' | b'\n' | b'\r')) => true,
                    _ => false,
                };
                if could_be_relative && (!after_keyword || import_could_precede(bytes, i)) {
                    out.push(line);
                }
            }
            _ => {}
        }
    }
    out
}

/// Whatever precedes `bytes[..end]` once trailing whitespace is skipped: the index of its
/// last byte, and whether the skip crossed a line end into a line that may hold a `//`
/// comment (then what precedes is unknown, and the caller must assume the worst).
fn before_whitespace(bytes: &[u8], end: usize) -> (Option<usize>, bool) {
    let mut j = end;
    let mut crossed = false;
    while j > 0 && matches!(bytes[j - 1], b' ' | b'\t' | b'\r' | b'\n') {
        crossed |= bytes[j - 1] == b'\n';
        j -= 1;
    }
    if j == 0 {
        return (None, false);
    }
    // Only when a line end was crossed is the line before read (back to its start): each
    // candidate then lands on a line of its own, so a minified one-line file with many
    // candidates is not re-read once per candidate.
    let comment_possible = crossed && {
        let line_start = bytes[..j].iter().rposition(|&c| c == b'\n').map_or(0, |p| p + 1);
        bytes[line_start..j].windows(2).any(|w| w == b"//")
    };
    (Some(j - 1), comment_possible)
}

/// Could the literal starting at `quote` be a TS/JS import's path? (See
/// [`relative_literal_lines`]; errs towards yes.)
fn import_could_precede(bytes: &[u8], quote: usize) -> bool {
    let (Some(last), comment_possible) = before_whitespace(bytes, quote) else { return false };
    if comment_possible || (bytes[last] == b'/' && last > 0 && bytes[last - 1] == b'*') {
        return true;
    }
    let ends_with = |end: usize, word: &[u8]| bytes[..=end].ends_with(word);
    if bytes[last] == b'(' {
        let (Some(callee), comment_possible) = before_whitespace(bytes, last) else { return false };
        return comment_possible || bytes[callee] == b'>' || bytes[callee] == b'.' || bytes[callee] == b'/' || ends_with(callee, b"require") || ends_with(callee, b"import");
    }
    ends_with(last, b"from") || ends_with(last, b"import")
}

/// True unless every `/*` of `prefix` is followed by a `*/` (erring towards true: a `/*`
/// inside a string counts). If the prefix ends inside a block comment, the `/*` that opened
/// it has no `*/` after it, and neither has any later `/*`, so the last one shows it.
fn may_end_inside_block_comment(prefix: &str) -> bool {
    match (prefix.rfind("/*"), prefix.rfind("*/")) {
        (None, _) => false,
        (Some(_), None) => true,
        // `/*/` opens a comment: its `*/` overlaps the opening
        (Some(open), Some(close)) => close < open + 2,
    }
}

/// The relative imports of one file, from the syntax tree, parsing as little as it can.
///
/// Parsing the whole file was most of the cold-index time (a 10 000-file workspace spent
/// ~10 s of CPU in the parser alone) although imports sit at the top of nearly every file.
/// So: a language whose imports name modules, not files, is never parsed; no candidate
/// literal → no relative import is possible and nothing is parsed;
/// otherwise the file is parsed only up to the end of the line of its last candidate
/// literal, and that prefix is accepted when it accounts for every candidate (per line, at
/// least as many relative imports as candidate literals). The full file can then hold no
/// other relative import, and a statement that ends inside the prefix parses the same
/// whatever follows it. Anything else (a `'./x'` that is a plain string, an import the
/// truncated parse did not recognise) falls back to parsing the whole file, so the answer
/// is always the whole-file answer restricted to relative specifiers.
pub fn relative_imports(extract: ImportExtractor, path: &str, source: &str) -> Vec<ImportRef> {
    // Python, Rust, Swift … import modules by name: their string literals that look like
    // paths (`"../tests/data"`, `'...'`) are data, and parsing for them found nothing
    // while costing a third of a real tree's cold index.
    let candidates = match knit_syntax::path_imports(path) {
        PathImports::Never => return Vec::new(),
        PathImports::AfterKeyword => relative_literal_lines(source, true),
        PathImports::AnyLiteral => relative_literal_lines(source, false),
    };
    let Some(&last) = candidates.last() else { return Vec::new() };
    let keep = |imports: Vec<ImportRef>| -> Vec<ImportRef> { imports.into_iter().filter(|i| is_relative_specifier(&i.specifier)).collect() };
    let cut = source.match_indices('\n').nth(last as usize - 1).map(|(i, _)| i + 1).unwrap_or(source.len());
    // A prefix that stops inside a block comment would parse the comment's text as code
    // (a JSDoc `@example` full of imports): such a file is parsed whole.
    if cut < source.len() && !may_end_inside_block_comment(&source[..cut]) {
        let found = keep(extract(path, &source[..cut]));
        let covered = {
            let mut needed: BTreeMap<u32, usize> = BTreeMap::new();
            for line in &candidates {
                *needed.entry(*line).or_default() += 1;
            }
            needed.iter().all(|(line, &n)| found.iter().filter(|i| i.line == *line).count() >= n)
        };
        if covered {
            return found;
        }
    }
    keep(extract(path, source))
}

/// One directed edge. `from` is the file holding the mention.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Edge {
    pub kind: RelationType,
    pub from: String,
    pub to: String,
    pub line: Option<u32>,
    pub symbol: Option<String>,
}

/// Edges indexed by both endpoints.
#[derive(Debug, Clone, Default)]
pub struct RelationGraph {
    pub edges: Vec<Edge>,
    by_path: HashMap<String, Vec<usize>>,
}

impl RelationGraph {
    pub fn from_edges(mut edges: Vec<Edge>) -> Self {
        edges.sort();
        edges.dedup_by(|a, b| a.kind == b.kind && a.from == b.from && a.to == b.to && a.symbol == b.symbol);
        let mut by_path: HashMap<String, Vec<usize>> = HashMap::new();
        for (i, edge) in edges.iter().enumerate() {
            by_path.entry(edge.from.clone()).or_default().push(i);
            if edge.to != edge.from {
                by_path.entry(edge.to.clone()).or_default().push(i);
            }
        }
        RelationGraph { edges, by_path }
    }

    /// Edges touching `path`, in a stable order.
    pub fn edges_of(&self, path: &str) -> Vec<&Edge> {
        self.by_path.get(path).map(|ids| ids.iter().map(|&i| &self.edges[i]).collect()).unwrap_or_default()
    }

    pub fn neighbours(&self, path: &str) -> Vec<(&Edge, &str)> {
        self.edges_of(path)
            .into_iter()
            .map(|e| (e, if e.from == path { e.to.as_str() } else { e.from.as_str() }))
            .collect()
    }
}

/// Normalises `base_dir/relative` (`.`/`..` resolved). `None` when it escapes the root.
pub fn join_normalized(base_dir: &str, relative: &str) -> Option<String> {
    let mut parts: Vec<&str> = if relative.starts_with('/') || base_dir.is_empty() { Vec::new() } else { base_dir.split('/').filter(|p| !p.is_empty()).collect() };
    for part in relative.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            other => parts.push(other),
        }
    }
    if parts.is_empty() {
        None
    } else {
        Some(parts.join("/"))
    }
}

fn parent_dir(path: &str) -> &str {
    path.rfind('/').map(|i| &path[..i]).unwrap_or("")
}

/// A link destination split into path and fragment, decoded; `None` for URLs and
/// in-page anchors.
fn split_destination(destination: &str) -> Option<(String, Option<String>)> {
    let d = destination.trim().trim_start_matches('<').trim_end_matches('>');
    if d.is_empty() || d.starts_with('#') || d.contains("://") || d.starts_with("mailto:") || d.starts_with("data:") {
        return None;
    }
    let scheme = d.split_once(':').map(|(s, _)| s);
    if scheme.is_some_and(|s| s.len() > 1 && s.chars().all(|c| c.is_ascii_alphabetic())) && !d.contains('/') {
        return None;
    }
    let (path, fragment) = match d.split_once('#') {
        Some((p, f)) => (p, Some(f.to_string())),
        None => (d, None),
    };
    let path = path.split('?').next().unwrap_or(path);
    let decoded = percent_decode_str(path).decode_utf8().ok()?.to_string();
    Some((decoded, fragment.filter(|f| !f.is_empty())))
}

/// Resolves a doc link to a workspace file: relative to the doc's folder, or to the root
/// for a leading `/`; code spans (`src/x.ts`, `docs/y.md:12`) also try the root.
fn resolve_link(doc_path: &str, destination: &str, from_code_span: bool, paths: &HashSet<&str>) -> Option<(String, Option<String>)> {
    let (mut target, fragment) = split_destination(destination)?;
    let mut fragment = fragment;
    if from_code_span {
        // `path:12` / `path:12-40` (AGENTS.md style) point at lines of the file
        if let Some((p, lines)) = target.rsplit_once(':') {
            if !lines.is_empty() && lines.chars().all(|c| c.is_ascii_digit() || c == '-') {
                fragment = Some(format!("L{}", lines.replace('-', "-L")));
                target = p.to_string();
            }
        }
    }
    let mut attempts = Vec::new();
    if target.starts_with('/') {
        attempts.push(join_normalized("", &target));
    } else {
        attempts.push(join_normalized(parent_dir(doc_path), &target));
        if from_code_span {
            attempts.push(join_normalized("", &target));
        }
    }
    if !from_code_span && (is_page_route(&target) || target.starts_with('/')) {
        // A docs-site route (`/guide/ui`, `./reporters`): the Markdown page a site
        // generator serves for it, as the anchor engine's link check reads it.
        let rooted = target.starts_with('/');
        if let Some(joined) = knit_anchors::target::join(doc_path, &target) {
            attempts.extend(page_candidates(doc_path, &joined, rooted).into_iter().map(Some));
        }
        // MkDocs serves `docs/async.md` at `/async/`: its relative routes start there.
        if let Some(joined) = directory_url_base(doc_path).filter(|_| !rooted).and_then(|base| knit_anchors::target::join(&base, &target)) {
            attempts.extend(page_candidates(doc_path, &joined, false).into_iter().map(Some));
        }
    }
    attempts.into_iter().flatten().find(|candidate| paths.contains(candidate.as_str()) && candidate != doc_path).map(|p| (p, fragment))
}

const IMPORT_EXTENSIONS: &[&str] = &["ts", "tsx", "mts", "cts", "js", "jsx", "mjs", "cjs", "d.ts", "swift", "json"];

/// Resolves a relative import specifier of `from` against the workspace paths.
pub fn resolve_import(from: &str, specifier: &str, paths: &HashSet<&str>) -> Option<String> {
    if !(specifier.starts_with("./") || specifier.starts_with("../")) {
        return None;
    }
    let base = join_normalized(parent_dir(from), specifier)?;
    let mut candidates = vec![base.clone()];
    // TypeScript ESM imports name the emitted `.js`; the source is `.ts`/`.tsx`
    for (emitted, sources) in [(".js", [".ts", ".tsx"]), (".mjs", [".mts", ".mts"]), (".cjs", [".cts", ".cts"]), (".jsx", [".tsx", ".tsx"])] {
        if let Some(stem) = base.strip_suffix(emitted) {
            candidates.extend(sources.iter().map(|s| format!("{stem}{s}")));
        }
    }
    candidates.extend(IMPORT_EXTENSIONS.iter().map(|ext| format!("{base}.{ext}")));
    candidates.extend(IMPORT_EXTENSIONS.iter().map(|ext| format!("{base}/index.{ext}")));
    candidates.into_iter().find(|c| paths.contains(c.as_str()) && c != from)
}

/// The subject stems a test file name points at ([`classify::test_name`]), in order of
/// preference, and the extension the subject must share. A type test checks a declaration
/// file first (`index.d.ts`), else the source (`index.ts`); a Python test its module, else
/// the private module of that name, since a package that keeps its modules private tests
/// `_client.py` in `test_client.py` (httpx, pydantic's `_internal`).
fn test_subject_stems(path: &str) -> Option<(Vec<String>, String)> {
    let test = classify::test_name(path).filter(|t| !t.subject.is_empty())?;
    let ext = classify::extension(path);
    if ext.is_empty() {
        return None;
    }
    let mut stems = Vec::with_capacity(2);
    if test.type_test {
        stems.push(format!("{}.d", test.subject));
    }
    stems.push(test.subject.to_string());
    if ext == "py" && !test.subject.starts_with('_') {
        stems.push(format!("_{}", test.subject));
    }
    Some((stems, ext))
}

/// The one subject a test pairs with among the files of its subject's name: the one in
/// its folder or its tests folder's parent when that is unique; else, for a test inside a
/// tests folder, the one under that folder's parent when that is unique (in a monorepo
/// `packages/client/test/unit/link.test.ts` tests `packages/client/src/link.ts`, not
/// `packages/server/src/link.ts`); else none. A namesake elsewhere in the same package
/// (`src/v3/benchmarks/string.ts` for `src/v4/classic/tests/string.test.ts`) is no subject.
fn choose_subject<'a>(test: &str, candidates: &[&'a str]) -> Option<&'a str> {
    let dir = parent_dir(test);
    let near: Vec<&str> = candidates.iter().copied().filter(|c| parent_dir(c) == dir || parent_dir(c) == parent_dir(dir)).collect();
    if near.len() == 1 {
        return Some(near[0]);
    }
    if candidates.len() == 1 {
        return Some(candidates[0]);
    }
    // the deepest tests folder holding the test, and the tree beside it
    let segments: Vec<&str> = dir.split('/').collect();
    let tests_at = segments.iter().rposition(|s| classify::is_test_dir_name(s))?;
    let package = segments[..tests_at].join("/");
    if package.is_empty() {
        return None;
    }
    let mut inside = candidates.iter().copied().filter(|c| c.strip_prefix(package.as_str()).is_some_and(|rest| rest.starts_with('/')));
    match (inside.next(), inside.next()) {
        (Some(only), None) => Some(only),
        _ => None,
    }
}

fn stem_and_ext(path: &str) -> (String, String) {
    let name = file_name(path);
    let ext = classify::extension(name);
    if ext.is_empty() {
        (name.to_string(), ext)
    } else {
        (name[..name.len() - ext.len() - 1].to_string(), ext)
    }
}

/// TypeScript and JavaScript tests commonly test each other's files.
fn ext_family(ext: &str) -> &str {
    match ext {
        "ts" | "tsx" | "mts" | "cts" | "js" | "jsx" | "mjs" | "cjs" => "js",
        other => other,
    }
}

/// Builds the relation graph of the workspace.
pub fn build_graph(records: &[&FileRecord]) -> RelationGraph {
    let paths: HashSet<&str> = records.iter().filter(|r| r.skipped.is_none()).map(|r| r.path.as_str()).collect();
    let mut edges = Vec::new();
    for record in records {
        if record.skipped.is_some() {
            continue;
        }
        if record.kind == Kind::Doc && classify::is_markdown(&record.path) {
            for link in &record.links {
                let Some((target, fragment)) = resolve_link(&record.path, &link.destination, link.from_code_span, &paths) else { continue };
                let kind = if classify::is_markdown(&target) { RelationType::References } else { RelationType::Documents };
                let symbol = fragment.filter(|_| kind == RelationType::Documents);
                edges.push(Edge { kind, from: record.path.clone(), to: target, line: Some(link.line), symbol });
            }
        }
        for import in &record.imports {
            if let Some(target) = resolve_import(&record.path, &import.specifier, &paths) {
                edges.push(Edge { kind: RelationType::Imports, from: record.path.clone(), to: target, line: Some(import.line), symbol: None });
            }
        }
    }
    // tests: subject candidates by (stem, extension family), unique only
    let mut subjects: BTreeMap<(String, String), Vec<&str>> = BTreeMap::new();
    for record in records {
        if record.kind == Kind::Code && record.skipped.is_none() && !classify::is_test_file_name(&record.path) {
            let (stem, ext) = stem_and_ext(&record.path);
            subjects.entry((stem, ext_family(&ext).to_string())).or_default().push(&record.path);
        }
    }
    for record in records {
        if record.kind != Kind::Code || record.skipped.is_some() {
            continue;
        }
        let Some((stems, ext)) = test_subject_stems(&record.path) else { continue };
        let Some(candidates) = stems.into_iter().find_map(|stem| subjects.get(&(stem, ext_family(&ext).to_string()))) else { continue };
        if let Some(subject) = choose_subject(&record.path, candidates) {
            edges.push(Edge { kind: RelationType::Tests, from: record.path.clone(), to: subject.to_string(), line: None, symbol: None });
        }
    }
    RelationGraph::from_edges(edges)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::classify::Role;
    use crate::markdown::LinkRef;

    fn record(path: &str, kind: Kind) -> FileRecord {
        FileRecord { path: path.into(), kind, role: Role::Impl, title: String::new(), summary: String::new(), mtime_ms: 0, size: 0, hash: String::new(), head_end_line: 0, links: vec![], imports: vec![], skipped: None, decls: vec![], passages: 0 }
    }

    #[test]
    fn links_resolve_relative_root_and_code_spans() {
        let mut doc = record("docs/arch.md", Kind::Doc);
        doc.links = vec![
            LinkRef { destination: "../src/resolve.ts#AnchorResolver.resolve".into(), line: 12, from_code_span: false },
            LinkRef { destination: "guide.md".into(), line: 3, from_code_span: false },
            LinkRef { destination: "src/util.ts:10-20".into(), line: 5, from_code_span: true },
            LinkRef { destination: "https://example.com/x.md".into(), line: 6, from_code_span: false },
            LinkRef { destination: "../../escape.md".into(), line: 7, from_code_span: false },
        ];
        let files = [doc, record("docs/guide.md", Kind::Doc), record("src/resolve.ts", Kind::Code), record("src/util.ts", Kind::Code)];
        let refs: Vec<&FileRecord> = files.iter().collect();
        let graph = build_graph(&refs);
        let edges: Vec<(RelationType, &str, Option<u32>, Option<&str>)> = graph.edges_of("docs/arch.md").iter().map(|e| (e.kind, e.to.as_str(), e.line, e.symbol.as_deref())).collect();
        assert!(edges.contains(&(RelationType::Documents, "src/resolve.ts", Some(12), Some("AnchorResolver.resolve"))), "{edges:?}");
        assert!(edges.contains(&(RelationType::References, "docs/guide.md", Some(3), None)), "{edges:?}");
        assert!(edges.contains(&(RelationType::Documents, "src/util.ts", Some(5), Some("L10-L20"))), "{edges:?}");
        assert_eq!(edges.len(), 3, "{edges:?}");
    }

    #[test]
    fn a_docs_sites_routes_reference_the_pages_it_serves() {
        let mut doc = record("docs/api/plugin.md", Kind::Doc);
        doc.links = vec![
            LinkRef { destination: "/guide/ui#panels".into(), line: 3, from_code_span: false },
            LinkRef { destination: "./runner".into(), line: 4, from_code_span: false },
            LinkRef { destination: "../config/".into(), line: 5, from_code_span: false },
            LinkRef { destination: "/guide/nowhere".into(), line: 6, from_code_span: false },
            LinkRef { destination: "../advanced/transports".into(), line: 7, from_code_span: false },
        ];
        let files = [
            doc,
            record("docs/guide/ui.md", Kind::Doc),
            record("docs/api/runner.md", Kind::Doc),
            record("docs/config/index.md", Kind::Doc),
            record("docs/api/advanced/transports.md", Kind::Doc),
        ];
        let refs: Vec<&FileRecord> = files.iter().collect();
        let graph = build_graph(&refs);
        let mut edges: Vec<(RelationType, &str, Option<u32>)> = graph.edges_of("docs/api/plugin.md").iter().map(|e| (e.kind, e.to.as_str(), e.line)).collect();
        edges.sort_by_key(|e| e.2);
        assert_eq!(
            edges,
            vec![
                (RelationType::References, "docs/guide/ui.md", Some(3)),
                (RelationType::References, "docs/api/runner.md", Some(4)),
                (RelationType::References, "docs/config/index.md", Some(5)),
                // From the page's MkDocs URL, `docs/api/plugin/`.
                (RelationType::References, "docs/api/advanced/transports.md", Some(7)),
            ]
        );
    }

    #[test]
    fn imports_resolve_relative_specifiers_only() {
        let paths: HashSet<&str> = ["src/a.ts", "src/b.ts", "src/lib/index.ts"].into_iter().collect();
        assert_eq!(resolve_import("src/a.ts", "./b", &paths).as_deref(), Some("src/b.ts"));
        assert_eq!(resolve_import("src/a.ts", "./b.js", &paths).as_deref(), Some("src/b.ts"));
        assert_eq!(resolve_import("src/a.ts", "./lib", &paths).as_deref(), Some("src/lib/index.ts"));
        assert_eq!(resolve_import("src/a.ts", "react", &paths), None);
        assert_eq!(resolve_import("src/a.ts", "../../x", &paths), None);
    }

    fn count_parsed(_path: &str, source: &str) -> Vec<ImportRef> {
        // a stand-in parser: `import '<spec>'` lines, plus a marker of how much it saw
        let mut out: Vec<ImportRef> = source
            .lines()
            .enumerate()
            .filter_map(|(i, l)| l.strip_prefix("import ").map(|s| ImportRef { specifier: s.trim_matches('\'').to_string(), line: i as u32 + 1 }))
            .collect();
        out.push(ImportRef { specifier: format!("seen:{}", source.lines().count()), line: 0 });
        out
    }

    #[test]
    fn relative_imports_parse_a_prefix_only_when_it_is_enough() {
        // imports on top: only the first two lines are parsed, non-relative ones are dropped
        let src = "import './a'\nimport 'react'\nconst x = 1\nconst y = 2\n";
        assert_eq!(relative_imports(count_parsed, "a.ts", src), vec![ImportRef { specifier: "./a".into(), line: 1 }]);
        // no candidate literal: nothing to parse, nothing to find
        assert!(relative_imports(count_parsed, "a.ts", "import 'react'\nlet a = 1\n").is_empty());
        // a candidate the prefix does not explain (a plain string) → whole-file answer
        let src = "import '../b'\nlet p = './data'\nlet q = 1\n";
        let found = relative_imports(count_parsed, "a.ts", src);
        assert_eq!(found, vec![ImportRef { specifier: "../b".into(), line: 1 }]);
        // languages that import modules by name are never parsed, path-like strings or not
        fn must_not_parse(path: &str, _: &str) -> Vec<ImportRef> {
            panic!("{path} was parsed for relative imports")
        }
        for path in ["tests/util.rs", "httpx/_client.py", "Sources/Heap.swift", "app/Main.kt"] {
            assert!(relative_imports(must_not_parse, path, "let data = \"../tests/data\"\nlet s = '...'\n").is_empty());
        }
        // Go and JavaScript can import a relative path
        assert_eq!(relative_imports(count_parsed, "main.go", "import './util'\n").len(), 1);
        assert_eq!(relative_imports(count_parsed, "lib/a.mjs", "import './util'\n").len(), 1);
    }

    #[test]
    fn in_ts_and_js_only_literals_where_an_import_could_stand_are_candidates() {
        let lines = |src: &str| relative_literal_lines(src, true);
        // after from / import / require( / import( — and a path given to anything else is data
        let src = "import a from './a'\nimport './b'\nconst c = require('../c')\nconst d = await import(\"./d\")\nconst p = join(dir, '../data')\nread('./e')\nlet s = '...'\n";
        assert_eq!(lines(src), vec![1, 2, 3, 4]);
        // whitespace and line breaks between; generic and optional calls of require
        assert_eq!(lines("export * from\n  './x'\nrequire<T>('./y')\nrequire?.('./z')\nrequire (\n'./w')\n"), vec![2, 3, 4, 6]);
        // a comment may sit between the keyword and the literal: assume it does
        assert_eq!(lines("import(/* chunk */ './x')\nimport x from /* c */ './y'\nf( // note\n'./z')\nf(\n'./w')\n"), vec![1, 2, 4]);
        // Go: every such literal
        assert_eq!(relative_literal_lines("x := \"./data\"\n", false), vec![1]);
        // so a TS file whose last path-like string is data is parsed only up to its imports
        let src = "import '../b'\nlet p = './data'\nlet q = 1\n";
        thread_local!(static SEEN: std::cell::Cell<usize> = const { std::cell::Cell::new(0) });
        fn record_seen(path: &str, source: &str) -> Vec<ImportRef> {
            SEEN.with(|s| s.set(source.lines().count()));
            count_parsed(path, source)
        }
        assert_eq!(relative_imports(record_seen, "a.ts", src), vec![ImportRef { specifier: "../b".into(), line: 1 }]);
        assert_eq!(SEEN.with(|s| s.get()), 1, "only the import line was parsed");
        // a prefix that would end inside a block comment is not parsed alone: the comment's
        // example imports are not the file's
        let src = "import './a'\n/**\n * @example\n * import x from './x'\n */\nlet q = 1\n";
        relative_imports(record_seen, "a.ts", src);
        assert_eq!(SEEN.with(|s| s.get()), 6, "the whole file was parsed");
        assert!(may_end_inside_block_comment("a /* b") && may_end_inside_block_comment("/*/") && may_end_inside_block_comment("x */ y /* z"));
        assert!(!may_end_inside_block_comment("a /* b */ c") && !may_end_inside_block_comment("no comment"));
    }

    #[test]
    fn tests_pair_by_convention_and_only_when_unique() {
        let files = [
            record("src/parser.ts", Kind::Code),
            record("src/parser.test.ts", Kind::Code),
            record("pkg/lexer.go", Kind::Code),
            record("pkg/lexer_test.go", Kind::Code),
            record("app/util.py", Kind::Code),
            record("lib/util.py", Kind::Code),
            record("tests/test_util.py", Kind::Code),
            record("Sources/Mixer.swift", Kind::Code),
            record("Tests/MixerTests.swift", Kind::Code),
            record("Sources/OrderedSet/OrderedSet+Codable.swift", Kind::Code),
            record("Tests/OrderedSet/OrderedSet+Codable Tests.swift", Kind::Code),
            record("httpx/_client.py", Kind::Code),
            record("tests/client/test_client.py", Kind::Code),
            record("src/_hidden.ts", Kind::Code),
            record("src/hidden.test.ts", Kind::Code),
        ];
        let refs: Vec<&FileRecord> = files.iter().collect();
        let graph = build_graph(&refs);
        let tests: Vec<(&str, &str)> = graph.edges.iter().filter(|e| e.kind == RelationType::Tests).map(|e| (e.from.as_str(), e.to.as_str())).collect();
        assert!(tests.contains(&("src/parser.test.ts", "src/parser.ts")), "{tests:?}");
        assert!(tests.contains(&("pkg/lexer_test.go", "pkg/lexer.go")), "{tests:?}");
        assert!(tests.contains(&("Tests/MixerTests.swift", "Sources/Mixer.swift")), "{tests:?}");
        assert!(tests.contains(&("Tests/OrderedSet/OrderedSet+Codable Tests.swift", "Sources/OrderedSet/OrderedSet+Codable.swift")), "{tests:?}");
        assert!(tests.contains(&("tests/client/test_client.py", "httpx/_client.py")), "a Python test finds the private module: {tests:?}");
        assert!(!tests.iter().any(|t| t.0 == "src/hidden.test.ts"), "only Python's modules are private by a leading _: {tests:?}");
        assert!(!tests.iter().any(|t| t.0 == "tests/test_util.py"), "ambiguous subject must not pair: {tests:?}");
    }

    #[test]
    fn type_tests_pair_with_declarations_and_monorepo_tests_with_their_package() {
        let files = [
            record("index.d.ts", Kind::Code),
            record("index.js", Kind::Code),
            record("index.test-d.ts", Kind::Code),
            record("src/cli.ts", Kind::Code),
            record("src/cli.spec-d.ts", Kind::Code),
            record("packages/client/src/link.ts", Kind::Code),
            record("packages/server/src/link.ts", Kind::Code),
            record("packages/client/test/link.test.ts", Kind::Code),
            record("packages/client/test/link.test-d.tsx", Kind::Code),
            record("packages/a/util.py", Kind::Code),
            record("packages/a/lib/util.py", Kind::Code),
            record("packages/a/tests/test_util.py", Kind::Code),
        ];
        let refs: Vec<&FileRecord> = files.iter().collect();
        let graph = build_graph(&refs);
        let tests: Vec<(&str, &str)> = graph.edges.iter().filter(|e| e.kind == RelationType::Tests).map(|e| (e.from.as_str(), e.to.as_str())).collect();
        assert!(tests.contains(&("index.test-d.ts", "index.d.ts")), "a type test checks the declaration file first: {tests:?}");
        assert!(tests.contains(&("src/cli.spec-d.ts", "src/cli.ts")), "else its source: {tests:?}");
        assert!(tests.contains(&("packages/client/test/link.test.ts", "packages/client/src/link.ts")), "{tests:?}");
        assert!(tests.contains(&("packages/client/test/link.test-d.tsx", "packages/client/src/link.ts")), "{tests:?}");
        // `packages/a/util.py` is the tests folder's parent: the near rule picks it
        assert!(tests.contains(&("packages/a/tests/test_util.py", "packages/a/util.py")), "{tests:?}");
        assert_eq!(tests.len(), 5, "{tests:?}");
        assert!(classify::is_test_file_name("index.test-d.ts") && classify::is_test_file_name("a/b.spec-d.tsx"));
    }

    #[test]
    fn a_subject_is_chosen_only_when_one_lies_beside_the_tests_folder() {
        assert_eq!(choose_subject("packages/client/test/x.test.ts", &["packages/client/src/x.ts", "packages/server/src/x.ts"]), Some("packages/client/src/x.ts"));
        assert_eq!(choose_subject("packages/client/test/unit/x.test.ts", &["packages/client/src/x.ts", "packages/server/src/x.ts"]), Some("packages/client/src/x.ts"));
        assert_eq!(choose_subject("packages/client/test/x.test.ts", &["packages/client/src/x.ts", "packages/client/lib/x.ts"]), None);
        assert_eq!(choose_subject("tests/test_x.py", &["app/x.py", "lib/x.py"]), None);
        assert_eq!(choose_subject("test/x.test.ts", &["src/x.ts", "src/y/x.ts"]), None, "no tests folder's parent: no guess");
        // zod: a namesake in another version's benchmarks is not the subject
        assert_eq!(choose_subject("packages/zod/src/v4/classic/tests/string.test.ts", &["packages/zod/src/v3/benchmarks/string.ts", "packages/bench/string.ts"]), None);
        assert_eq!(choose_subject("packages/client/src/x.test.ts", &["packages/client/src/a/x.ts", "packages/server/src/x.ts"]), None, "not in a tests folder");
    }
}
