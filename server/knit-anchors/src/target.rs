//! What a link destination designates: a symbol, a line range, a doc (section), or a
//! plain workspace file — resolved against the doc's folder, percent-decoded, and
//! refused when it escapes the workspace.

use knit_syntax::{Fragment, Lang};
use percent_encoding::percent_decode_str;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Target {
    /// `path#[kind:]Name[~N]` on a source file. `lang` is None for unsupported languages.
    Symbol { path: String, fragment: Fragment, lang: Option<Lang> },
    /// `path#L12` or `path#L12-L40`.
    Lines { path: String, start: u32, end: u32 },
    /// A Markdown file, optionally one section.
    Doc { path: String, slug: Option<String> },
    /// Any other workspace file or folder: only checked for existence.
    File { path: String },
    /// A docs-site route (`/guide/ui`, `./reporters#hooks`, `config.html#bail`): an
    /// extensionless, folder or `.html` path, which a site generator (VitePress,
    /// Docusaurus, MkDocs, Hugo …) serves from a Markdown page. Never an anchor: checked
    /// like a plain link, against the file itself or the page behind it
    /// ([`page_candidates`]). `rooted`: written with a leading `/`.
    Page { path: String, slug: Option<String>, rooted: bool },
}

impl Target {
    pub fn path(&self) -> &str {
        match self {
            Target::Symbol { path, .. }
            | Target::Lines { path, .. }
            | Target::Doc { path, .. }
            | Target::File { path }
            | Target::Page { path, .. } => path,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TargetError {
    /// `..` or an absolute path leaves the workspace root.
    Outside,
    /// A symbol fragment that does not parse.
    BadFragment(String),
}

/// Classifies a destination written in `doc` (workspace-relative path of the doc).
/// `Ok(None)`: not a workspace link (URL, mail, in-page `#heading`).
pub fn classify(doc: &str, dest: &str) -> Result<Option<Target>, TargetError> {
    let dest = dest.trim();
    // A `file:` URL is an absolute path: refused like `..` escapes, never read.
    if dest.get(..5).is_some_and(|p| p.eq_ignore_ascii_case("file:")) {
        return Err(TargetError::Outside);
    }
    if dest.is_empty() || dest.starts_with('#') || has_scheme(dest) || dest.starts_with("//") || is_rustdoc_path(dest) {
        return Ok(None);
    }
    let (raw_path, raw_fragment) = match dest.split_once('#') {
        Some((p, f)) => (p, Some(f)),
        None => (dest, None),
    };
    let raw_path = raw_path.split('?').next().unwrap_or("");
    if raw_path.is_empty() {
        // `?category=key1#tabs`: the doc's own page with a query, as `#tabs` is.
        return Ok(None);
    }
    let path_decoded = percent_decode_str(raw_path).decode_utf8_lossy().to_string();
    let fragment = raw_fragment.map(|f| percent_decode_str(f).decode_utf8_lossy().to_string());
    let path = join(doc, &path_decoded).ok_or(TargetError::Outside)?;
    if path.is_empty() {
        return Ok(None);
    }
    let lower = path.to_ascii_lowercase();
    let is_md = is_markdown(&lower);
    let fragment = fragment.filter(|f| !f.is_empty());
    if let Some((start, end)) = fragment.as_deref().and_then(parse_line_fragment) {
        return Ok(Some(Target::Lines { path, start, end }));
    }
    if is_md {
        return Ok(Some(Target::Doc { path, slug: fragment }));
    }
    if is_page_route(&path_decoded) {
        return Ok(Some(Target::Page { path, slug: fragment, rooted: path_decoded.starts_with('/') }));
    }
    let Some(fragment) = fragment else { return Ok(Some(Target::File { path })) };
    if lower.ends_with(".pdf") {
        return Ok(Some(Target::File { path }));
    }
    let frag = Fragment::parse(&fragment).map_err(|e| TargetError::BadFragment(e.to_string()))?;
    Ok(Some(Target::Symbol { lang: Lang::from_path(&path), path, fragment: frag }))
}

/// A rustdoc intra-doc link's destination, not a path: a Rust path (`tower_http::trace`,
/// `fn@crate::middleware::from_fn`, `Router::route()`, `vec!`) or anything in backticks
/// (`` `tower::Service` ``, as rustdoc reads `[`tower::Service`]`). A crate's Markdown
/// included as its docs (`#[doc = include_str!("docs/middleware.md")]`, axum) is full of
/// them; rustdoc resolves them against the crate and its dependencies, which knit does
/// not read, so they are not checked.
fn is_rustdoc_path(dest: &str) -> bool {
    let path = dest.split('#').next().unwrap_or(dest);
    if path.len() > 2 && path.starts_with('`') && path.ends_with('`') {
        return true;
    }
    path.contains("::") && path.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b':' | b'@' | b'!' | b'<' | b'>' | b'(' | b')' | b','))
}

/// A Markdown page by its (lowercased) name: `.md`, `.markdown`, or Docusaurus' `.mdx`
/// (Markdown with components; its headings are Markdown headings).
pub fn is_markdown(lower: &str) -> bool {
    lower.ends_with(".md") || lower.ends_with(".markdown") || lower.ends_with(".mdx")
}

/// A path a docs site serves as a page: it ends in `/`, names an `.html` file, or its
/// last segment has no extension (`guide/ui`, `../config/`, `api.html`) — a version's
/// dots are none (`/blog/2023/11/13/3.1.0`, a release post). Such links are the norm in
/// VitePress, Docusaurus and MkDocs sources, and never name a source file knit could read
/// declarations of.
pub fn is_page_route(raw_path: &str) -> bool {
    let last = raw_path.rsplit(['/', '\\']).next().unwrap_or("");
    let lower = last.to_ascii_lowercase();
    let extension = last.trim_start_matches('.').rsplit_once('.').map(|(_, e)| e);
    let versioned = extension.is_some_and(|e| !e.is_empty() && e.bytes().all(|b| b.is_ascii_digit()));
    last.is_empty() || lower.ends_with(".html") || lower.ends_with(".htm") || extension.is_none() || versioned
}

/// The folders holding `path`, nearest first, the workspace root (`""`) last:
/// `docs/api/a.md` → `docs/api`, `docs`, `""`. The folders a docs site's root may be.
pub fn folders_holding(path: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = path;
    while let Some((parent, _)) = rest.rsplit_once('/') {
        out.push(parent);
        rest = parent;
    }
    out.push("");
    out
}

/// The workspace files a docs site could serve for the page route `path` (as
/// [`classify`] joined it) written in `doc`, in the order they are tried: a Markdown
/// path only as itself; an `.html` path as itself, then its Markdown source; any other
/// path as `P.md`, `P/index.md`, `P.mdx`, `P/index.mdx` (Docusaurus), `P/README.md`,
/// then itself (a file or folder). A
/// `rooted` route (`/guide/ui`) is a route from the site's root, which is the workspace
/// root on a forge and the docs folder on a site: each folder holding `doc`, nearest
/// last, is tried as that root after the workspace root. Pure: the caller keeps the
/// first that exists.
pub fn page_candidates(doc: &str, path: &str, rooted: bool) -> Vec<String> {
    let mut roots: Vec<String> = vec![String::new()];
    if rooted {
        // Outermost first after the workspace root: `docs/` before `docs/api/`, as sites
        // put their root at the top of the docs tree.
        roots.extend(folders_holding(doc).into_iter().rev().skip(1).map(str::to_string));
    }
    let mut out = Vec::new();
    for root in &roots {
        let base = if root.is_empty() { path.to_string() } else if path.is_empty() { root.clone() } else { format!("{root}/{path}") };
        let lower = base.to_ascii_lowercase();
        if is_markdown(&lower) {
            out.push(base);
            continue;
        }
        if let Some(stem) = [".html", ".htm"].iter().find(|e| lower.ends_with(**e)).map(|e| &base[..base.len() - e.len()]) {
            out.push(base.clone());
            out.push(format!("{stem}.md"));
            if let Some(dir) = stem.strip_suffix("/index").or_else(|| (stem == "index").then_some("")) {
                out.push(if dir.is_empty() { "README.md".to_string() } else { format!("{dir}/README.md") });
            }
            continue;
        }
        // The page before the path itself: a folder's link shows its index page (a forge
        // renders its README), and that page is where a `#fragment` is looked for.
        let dir = if base.is_empty() { String::new() } else { format!("{base}/") };
        for ext in ["md", "mdx"] {
            if !base.is_empty() {
                out.push(format!("{base}.{ext}"));
            }
            out.push(format!("{dir}index.{ext}"));
        }
        out.push(format!("{dir}README.md"));
        if !base.is_empty() {
            out.push(base);
        }
    }
    out
}

/// The folder MkDocs serves a page from (`docs/async.md` at `docs/async/`), as a path a
/// relative link can be joined to; None for an index page, which is its folder already.
pub fn directory_url_base(doc: &str) -> Option<String> {
    let (stem, _) = doc.rsplit_once('.')?;
    let name = stem.rsplit('/').next().unwrap_or(stem).to_ascii_lowercase();
    (name != "index" && name != "readme").then(|| format!("{stem}/page"))
}

fn has_scheme(dest: &str) -> bool {
    let Some(colon) = dest.find(':') else { return false };
    let scheme = &dest[..colon];
    scheme.len() >= 2
        && scheme.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
        && scheme.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '.' | '-'))
        && !scheme.contains('/')
}

/// `L12` or `L12-L40` (also `L12-40`).
pub fn parse_line_fragment(f: &str) -> Option<(u32, u32)> {
    let rest = f.strip_prefix('L')?;
    let (a, b) = match rest.split_once('-') {
        Some((a, b)) => (a, b.strip_prefix('L').unwrap_or(b)),
        None => (rest, rest),
    };
    let start: u32 = a.parse().ok()?;
    let end: u32 = b.parse().ok()?;
    (start >= 1 && end >= start).then_some((start, end))
}

/// Joins a destination to the doc's folder (or the root for `/…`), normalising `.` and
/// `..` lexically. None when it climbs above the root.
pub fn join(doc: &str, dest: &str) -> Option<String> {
    let mut parts: Vec<&str> = Vec::new();
    if !dest.starts_with('/') {
        if let Some((dir, _)) = doc.rsplit_once('/') {
            parts.extend(dir.split('/').filter(|s| !s.is_empty()));
        }
    }
    for seg in dest.split(['/', '\\']) {
        match seg {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            s => parts.push(s),
        }
    }
    Some(parts.join("/"))
}

/// A destination path for `target` written in `doc`: relative to the doc's folder.
pub fn relative_dest(doc: &str, target: &str) -> String {
    let doc_dir: Vec<&str> = match doc.rsplit_once('/') {
        Some((d, _)) => d.split('/').collect(),
        None => Vec::new(),
    };
    let tgt: Vec<&str> = target.split('/').collect();
    let common = doc_dir.iter().zip(&tgt).take_while(|(a, b)| a == b).count();
    let mut out: Vec<String> = std::iter::repeat_n("..".to_string(), doc_dir.len() - common).collect();
    out.extend(tgt[common..].iter().map(|s| s.to_string()));
    let joined = out.join("/");
    encode_path(&joined)
}

/// Percent-encodes what a bare Markdown destination cannot hold.
pub fn encode_path(p: &str) -> String {
    let mut s = String::with_capacity(p.len());
    for c in p.chars() {
        match c {
            ' ' => s.push_str("%20"),
            '(' => s.push_str("%28"),
            ')' => s.push_str("%29"),
            '<' => s.push_str("%3C"),
            '>' => s.push_str("%3E"),
            '#' => s.push_str("%23"),
            _ => s.push(c),
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classifies_destinations() {
        let t = classify("docs/arch.md", "../src/a.ts#A.b").unwrap().unwrap();
        assert!(matches!(t, Target::Symbol { ref path, .. } if path == "src/a.ts"));
        let t = classify("docs/arch.md", "/src/a.ts#L3-L9").unwrap().unwrap();
        assert_eq!(t, Target::Lines { path: "src/a.ts".into(), start: 3, end: 9 });
        let t = classify("docs/arch.md", "Sources/My%20Lib/A.swift#f()").unwrap().unwrap();
        assert_eq!(t.path(), "docs/Sources/My Lib/A.swift");
        assert_eq!(classify("docs/a.md", "../../etc/passwd"), Err(TargetError::Outside));
        assert_eq!(classify("a.md", "https://x.y/z"), Ok(None));
        assert_eq!(classify("docs/tabs.md", "?category=key1#synchronised-tabs"), Ok(None), "the doc's own page, with a query");
        assert_eq!(classify("docs/tabs.md", "?category=key1"), Ok(None));
        assert_eq!(folders_holding("docs/api/a.md"), ["docs/api", "docs", ""]);
        assert_eq!(folders_holding("a.md"), [""]);
        assert_eq!(classify("a.md", "file:///etc/passwd"), Err(TargetError::Outside));
        assert_eq!(classify("a.md", "#heading"), Ok(None));
        // rustdoc's intra-doc links (axum's included docs) name Rust items, not files.
        for rust in ["tower_http::trace", "`tower::Service`", "fn@crate::middleware::from_fn", "Router::route()", "crate::Json#example"] {
            assert_eq!(classify("axum/src/docs/middleware.md", rust), Ok(None), "{rust}");
        }
        assert!(classify("docs/a.md", "../src/a::b.rs").unwrap().is_some(), "a path with a folder is a path");
        assert!(matches!(classify("a.md", "guide.md#install").unwrap().unwrap(), Target::Doc { slug: Some(_), .. }));
        assert_eq!(relative_dest("docs/arch.md", "src/x y.ts"), "../src/x%20y.ts");
        assert_eq!(relative_dest("README.md", "src/a.ts"), "src/a.ts");
    }

    #[test]
    fn docs_site_routes_are_pages_not_symbol_anchors() {
        // VitePress / Docusaurus style: extensionless, folder and `.html` routes.
        assert_eq!(
            classify("docs/api/plugin.md", "./reporters#hooks"),
            Ok(Some(Target::Page { path: "docs/api/reporters".into(), slug: Some("hooks".into()), rooted: false }))
        );
        assert_eq!(
            classify("docs/api/plugin.md", "/config/#bail"),
            Ok(Some(Target::Page { path: "config".into(), slug: Some("bail".into()), rooted: true }))
        );
        assert!(matches!(classify("docs/a.md", "guide.html#x"), Ok(Some(Target::Page { .. }))));
        assert!(matches!(classify("a.md", "LICENSE"), Ok(Some(Target::Page { .. }))));
        // A source file keeps its symbol anchor, a line fragment its line range.
        assert!(matches!(classify("a.md", "src/a.ts#f"), Ok(Some(Target::Symbol { .. }))));
        assert!(matches!(classify("a.md", "Makefile#L3"), Ok(Some(Target::Lines { .. }))));
        assert!(matches!(classify("a.md", "config.yaml"), Ok(Some(Target::File { .. }))));
    }

    #[test]
    fn page_candidates_follow_site_conventions() {
        assert_eq!(
            page_candidates("docs/api/plugin.md", "docs/api/reporters", false),
            ["docs/api/reporters.md", "docs/api/reporters/index.md", "docs/api/reporters.mdx", "docs/api/reporters/index.mdx", "docs/api/reporters/README.md", "docs/api/reporters"]
        );
        assert_eq!(page_candidates("README.md", "guide.html", false), ["guide.html", "guide.md"]);
        assert_eq!(page_candidates("README.md", "docs/index.html", false), ["docs/index.html", "docs/index.md", "docs/README.md"]);
        // A rooted route is also read from each folder holding the doc, outermost first.
        let rooted = page_candidates("docs/api/plugin.md", "config/bail", true);
        assert_eq!(rooted[..6], ["config/bail.md", "config/bail/index.md", "config/bail.mdx", "config/bail/index.mdx", "config/bail/README.md", "config/bail"]);
        assert_eq!(rooted[6], "docs/config/bail.md");
        assert_eq!(rooted[12], "docs/api/config/bail.md");
        // A Docusaurus page with a fragment is a doc link, never a symbol anchor.
        assert!(matches!(classify("docs/a.md", "./intro.mdx#setup"), Ok(Some(Target::Doc { .. }))));
        assert_eq!(page_candidates("docs/a.md", "guide/x.md", true), ["guide/x.md", "docs/guide/x.md"]);
    }
}
