//! What one doc holds, and the checks that are not anchors: [`scan_doc`] sorts a doc's
//! workspace links into anchors and plain links (numbering them per line) and keeps its
//! `path:12-40` mentions; [`broken_link`] says why a plain link points nowhere;
//! [`mention_suggestion`] gives the anchor a mention would become.

use super::session::Session;
use crate::baseline::{baseline_in_title, Baseline};
use crate::markdown;
use crate::model::*;
use super::routes::raw_path;
use crate::target::{classify, folders_holding, page_candidates, relative_dest, Target};
use knit_syntax::fragment::exact_fragment;
use knit_syntax::similarity::edit_distance_within;
use knit_syntax::Declaration;
use std::collections::HashMap;
use std::sync::Arc;

/// Finds the anchors, plain links and mentions of one doc.
pub fn scan_doc(doc: &str, src: &str) -> DocAnchors {
    let scan = markdown::scan(src);
    let mut out = DocAnchors { doc: doc.to_string(), mentions: scan.mentions, symbol_links: scan.symbol_links, ..Default::default() };
    let unused: std::collections::HashSet<usize> = scan.unused_definitions.iter().map(|r| r.start).collect();
    let mut last_line = 0;
    let mut ordinal = 0;
    for mut link in scan.links {
        let target = match classify(doc, &link.dest_raw) {
            Ok(None) => continue,
            Ok(Some(t)) => Ok(t),
            Err(e) => Err(e),
        };
        // Ordinals count workspace links only: an external URL earlier on the line does
        // not shift ids.
        if link.line != last_line {
            last_line = link.line;
            ordinal = 0;
        }
        ordinal += 1;
        link.ordinal = ordinal;
        let id = format!("{doc}:{}:{}", link.line, link.ordinal);
        let baseline_raw = link.title.as_deref().and_then(baseline_in_title).map(str::to_string);
        let baseline = baseline_raw.as_deref().and_then(Baseline::decode);
        let is_anchor = match &target {
            Ok(Target::File { .. } | Target::Page { .. }) => false,
            Ok(Target::Doc { .. }) => baseline_raw.is_some(),
            // A fragment into a file knit reads no declarations of is an anchor only when
            // it was recorded as one, names source code (then it says to anchor by lines)
            // or is a line range that cannot resolve (`#L9-L3`, `#L0`); otherwise it is the
            // file's own business — GitHub's theme images (`logo.svg#gh-dark-mode-only`),
            // Writerside's `.topic` element ids — and, as DESIGN's "any other link to a
            // workspace file", the link is checked as a plain link to the file.
            Ok(Target::Symbol { lang: None, path, fragment, .. }) => {
                baseline_raw.is_some() || is_unread_source_code(path) || looks_like_line_range(&fragment.name)
            }
            _ => true,
        };
        if is_anchor {
            out.anchors.push(Anchor { id, doc: doc.to_string(), link, target, baseline_raw, baseline });
        } else if unused.contains(&link.span.start) {
            // a definition nothing uses renders nothing: no reader can follow it (an
            // anchor in one is still checked: it is how a doc anchors without showing it)
        } else if let Ok(t) = target {
            out.links.push(PlainLink { id, doc: doc.to_string(), path: t.path().to_string(), link });
        }
    }
    out
}

/// What a site serves for the missing `file` that `dest` (written in `doc`) names, tried
/// in this order: the English page a translated tree falls back to; a page named after
/// the file (react-router's `entry.client.tsx.md`, fp-ts' `modules/Either.ts.md`, served
/// at the file's name); an asset of the site's root (see [`site_asset`]); a page of the
/// docs' root (see [`from_content_root`]).
fn served_instead(session: &mut Session, doc: &str, dest: &str, file: &str) -> Option<String> {
    if let Some(english) = translation_fallback(doc, file).filter(|e| session.tree.exists(e)) {
        return Some(english);
    }
    [".md", ".mdx"]
        .iter()
        .map(|ext| format!("{file}{ext}"))
        .find(|p| session.tree.exists(p))
        .or_else(|| site_asset(session, doc, dest, file))
        .or_else(|| from_content_root(session, doc, dest, file))
}

/// The Markdown page a Docusaurus site reads a bare relative link (`api/Store.md`, not
/// `./…` or `../…`) from when the doc's folder lacks it: Docusaurus tries the doc's
/// folder, then its docs' root, so `api/Store.md` in `docs/understanding/Glossary.md` is
/// `docs/api/Store.md`. Looked for in each folder above the doc, nearest first, and only
/// in a tree holding a `docusaurus.config.*`, whose name says which site reads it (knit
/// never runs the configuration).
fn from_content_root(session: &mut Session, doc: &str, dest: &str, file: &str) -> Option<String> {
    let raw = raw_path(dest);
    if raw.starts_with(['.', '/']) || !crate::target::is_markdown(&file.to_ascii_lowercase()) {
        return None;
    }
    let tree = session.tree;
    let docusaurus = *session
        .docusaurus_present
        .get_or_insert_with(|| tree.files().iter().any(|f| f.rsplit('/').next().is_some_and(|n| n.starts_with("docusaurus.config."))));
    if !docusaurus {
        return None;
    }
    // The doc's own folder was tried first (the link as written).
    folders_holding(doc)
        .into_iter()
        .skip(1)
        .map(|above| if above.is_empty() { raw.clone() } else { format!("{above}/{raw}") })
        .find(|candidate| session.tree.exists(candidate))
}

/// The file a docs site serves at the root-relative `dest` from its assets folder:
/// Docusaurus serves `static/img/logo.svg` at `/img/logo.svg`, VitePress
/// `public/logo.svg` at `/logo.svg`; the folder is looked for beside the doc and in each
/// folder above it (a site's root holds the doc). None for a relative destination.
fn site_asset(session: &Session, doc: &str, dest: &str, file: &str) -> Option<String> {
    if !dest.trim_start().starts_with('/') {
        return None;
    }
    folders_holding(doc).into_iter().find_map(|folder| {
        ["static", "public"].iter().find_map(|assets| {
            let candidate = if folder.is_empty() { format!("{assets}/{file}") } else { format!("{folder}/{assets}/{file}") };
            session.tree.exists(&candidate).then_some(candidate)
        })
    })
}

/// Source files of languages knit reads no declarations of, by extension: a fragment into
/// one reads as an attempted symbol anchor (and is told to anchor by lines).
const UNREAD_SOURCE_EXTENSIONS: [&str; 27] = [
    "rb", "java", "c", "h", "cc", "cpp", "cxx", "hpp", "cs", "php", "scala", "m", "mm", "dart", "lua", "ex", "exs", "erl", "hs", "ml", "clj", "sh",
    "pl", "r", "jl", "groovy", "zig",
];

/// `L` and a digit: a line range written wrong (`L9-L3`, `L0`), still a line anchor.
fn looks_like_line_range(fragment: &str) -> bool {
    let b = fragment.as_bytes();
    b.len() >= 2 && b[0] == b'L' && b[1].is_ascii_digit()
}

fn is_unread_source_code(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    name.rsplit_once('.').is_some_and(|(_, ext)| UNREAD_SOURCE_EXTENSIONS.iter().any(|e| e.eq_ignore_ascii_case(ext)))
}

/// Why a plain link is broken, and the destination it most likely meant.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Broken {
    pub message: String,
    /// The whole destination to write instead (`/config/coverage#coverage-exclude`,
    /// `https://eslint.org`, `.github/CODEOWNERS`), when exactly one fits.
    pub suggestion: Option<String>,
}

/// Why a plain link is broken (missing file, or a missing `#heading` in a Markdown
/// file), or None; with the destination it most likely meant (see [`Broken`]).
pub fn broken_link(session: &mut Session, doc: &str, dest: &str, path: &str) -> Option<Broken> {
    let (message, lacking) = broken_link_message(session, doc, dest, path)?;
    let suggestion = match lacking {
        Lacking::File => suggested_dest(session, doc, dest, path, None),
        Lacking::Section { page } => suggested_dest(session, doc, dest, path, Some(&page)),
        Lacking::SectionOfUnknownSlugger => None,
    };
    let message = match &suggestion {
        Some(s) => format!("{message}; did you mean `{s}`?"),
        None => message,
    };
    Some(Broken { message, suggestion })
}

/// What a broken link misses, for its suggestion.
enum Lacking {
    File,
    Section { page: String },
    /// A section of a page on a site that names sections its own way (see
    /// `unnumbered_route`): no suggestion, as one in GitHub's style would break the link
    /// there.
    SectionOfUnknownSlugger,
}

/// Why a plain link is broken, or None; with what it lacks. A docs-site route
/// (`/guide/ui#setup`) counts when a site would serve a page for it
/// (`Session::resolve_route`); its fragment is then checked in that page.
fn broken_link_message(session: &mut Session, doc: &str, dest: &str, path: &str) -> Option<(String, Lacking)> {
    let (file, slug) = match classify(doc, dest) {
        Ok(Some(Target::Page { path: route, slug, rooted })) => {
            let fallback = || translation_fallback(doc, &route);
            // A rooted route may name an asset the site serves from its root
            // (VitePress' `public/pure.html` at `/pure.html`).
            let resolved = session
                .resolve_route(doc, dest, &route, rooted)
                .or_else(|| fallback().and_then(|r| session.resolve_route(doc, dest, &r, rooted)))
                .or_else(|| site_asset(session, doc, dest, &route));
            match resolved {
                Some(file) => (file, slug),
                None => {
                    let shown = if rooted { format!("/{route}") } else { route.clone() };
                    let generated = generated_note(session, &route);
                    return Some((format!("broken link: {shown} does not exist, nor a Markdown page a docs site would serve for it{generated}"), Lacking::File));
                }
            }
        }
        Ok(Some(Target::Doc { path: file, slug })) => {
            // A root-relative page (`/guide/test-context.md`) on a docs site is read from
            // the site's root, a folder holding the doc.
            let rooted = dest.trim_start().starts_with('/');
            let found = page_candidates(doc, &file, rooted).into_iter().find(|p| session.tree.exists(p));
            (found.unwrap_or(file), slug)
        }
        _ => (path.to_string(), None),
    };
    let file = if session.tree.exists(&file) { file } else { served_instead(session, doc, dest, &file).unwrap_or(file) };
    if !session.tree.exists(&file) {
        return Some((format!("broken link: {file} does not exist{}", generated_note(session, &file)), Lacking::File));
    }
    let lower = file.to_ascii_lowercase();
    if let Some(slug) = slug.filter(|_| crate::target::is_markdown(&lower)) {
        // A site that serves pages without their number prefixes (svelte.dev) names its
        // sections its own way: a section missing by GitHub's names is looked for loosely,
        // and a missing one gets no suggestion.
        if !page_has_fragment(session, &file, &slug, false) {
            let loosely = unnumbered_route(doc, dest, &file);
            if loosely && page_has_fragment(session, &file, &slug, true) {
                return None;
            }
            let lacking = if loosely { Lacking::SectionOfUnknownSlugger } else { Lacking::Section { page: file.clone() } };
            return Some((format!("broken link: {file} has no section `#{slug}`"), lacking));
        }
    }
    None
}

/// True when the route `dest` reached `file` by the name it has without its number
/// prefix (`glossary` for `60-appendix/60-glossary.md`).
fn unnumbered_route(doc: &str, dest: &str, file: &str) -> bool {
    let raw = raw_path(dest);
    let route = raw.trim_end_matches('/');
    let last = route.rsplit('/').next().unwrap_or(route);
    !last.is_empty() && super::routes::served_without_number_prefix(doc, last, file)
}

/// The destination a broken link most likely meant, when exactly one fits; None rather
/// than a guess between two. A missing section: the page's one section whose id differs
/// only in case (`#vi-defineHelper` → `#vi-definehelper`), else its one id that is the
/// fragment qualified (`#exclude` → `#coverage-exclude`, a VitePress page headed
/// `coverage.exclude`), else its one id within one edit (two for ids of 8 characters or
/// more) of it with the same digits (`#beforeach` → `#beforeeach`, never `#vitest-3` →
/// `#vitest-5`). A missing file: a web address written
/// without its scheme (`eslint.org` → `https://eslint.org`), else the workspace's one
/// file of that name (`CODEOWNERS` → `.github/CODEOWNERS`).
fn suggested_dest(session: &mut Session, doc: &str, dest: &str, path: &str, page_lacking_section: Option<&str>) -> Option<String> {
    let dest = dest.trim();
    let (dest_path, fragment) = match dest.split_once('#') {
        Some((p, f)) => (p, Some(f)),
        None => (dest, None),
    };
    if let Some(page) = page_lacking_section {
        let names = session.page_fragments(page)?;
        let wanted = fragment?;
        let named: Vec<(&str, &str)> = names.names.iter().map(|n| (n.as_str(), names.canonical(n))).collect();
        let work = named.iter().map(|(n, _)| n.len().min(wanted.len()) as u64 + 1).sum::<u64>() * wanted.len().min(NEAR_MISS_CHARS) as u64;
        session.near_miss_work = session.near_miss_work.saturating_add(work);
        let fuzzy = session.near_miss_work <= NEAR_MISS_WORK;
        let better = nearest_fragment(&named, wanted, fuzzy)?;
        return Some(format!("{dest_path}#{better}"));
    }
    if let Some(web) = web_address(dest) {
        return Some(web);
    }
    // the one file of the workspace with the missing file's name
    let missing = path.split('#').next().unwrap_or(path);
    let name = missing.rsplit('/').next().filter(|n| !n.is_empty())?;
    let by_name = session
        .by_file_name
        .get_or_insert_with(|| {
            // one pass over the tree, however many links are broken
            let mut map: HashMap<String, Option<String>> = HashMap::new();
            for f in session.tree.files().iter() {
                let n = f.rsplit('/').next().unwrap_or(f);
                map.entry(n.to_string()).and_modify(|one| *one = None).or_insert_with(|| Some(f.clone()));
            }
            Arc::new(map)
        })
        .clone();
    let found = by_name.get(name)?.as_deref().filter(|f| *f != missing)?;
    let rel = relative_dest(doc, found);
    Some(match fragment {
        Some(f) => format!("{rel}#{f}"),
        None => rel,
    })
}

/// Top-level domains a link written without `https://` ends in (file extensions that are
/// also domains — `.md`, `.rs`, `.sh`, `.so`, `.ai`, `.py` — left out: they are files).
const WEB_DOMAINS: [&str; 12] = ["com", "org", "net", "io", "dev", "app", "co", "edu", "gov", "info", "xyz", "page"];

/// `https://` + the link, when it reads as a web address written without its scheme
/// (`eslint.org`, `www.example.com/docs`, `11ty.dev`): a lowercase host of two or more
/// labels ending in a common domain, not `./`- or `/`-led.
fn web_address(dest: &str) -> Option<String> {
    if dest.starts_with(['.', '/']) {
        return None;
    }
    let host = dest.split(['/', '#', '?']).next()?;
    let labels: Vec<&str> = host.split('.').collect();
    let label_ok = |l: &&str| !l.is_empty() && l.len() <= 63 && l.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-');
    let web = labels.len() >= 2 && labels.iter().all(label_ok) && (labels[0] == "www" || WEB_DOMAINS.contains(labels.last()?));
    web.then(|| format!("https://{dest}"))
}

/// Ids longer than this are not looked for by edit distance (nobody mistypes them).
const NEAR_MISS_CHARS: usize = 64;
/// Characters a check compares looking for near misses, at most (see `Session`).
pub(super) const NEAR_MISS_WORK: u64 = 50_000_000;

/// The one id among `names` a mistyped `wanted` stands for (see [`suggested_dest`]);
/// by edit distance only when `fuzzy`. Each name comes with the id that names its
/// heading on the page (its explicit id or slug; itself for an HTML id): names of one
/// heading that fit alike are one answer — that id when it is among them (a translated
/// heading's explicit `#usage-with-the-options-api` and its slug
/// `…-usage-with-the-options-api` both end in `-options-api`), else the name that fits
/// (`#coverage-exclude`, VitePress' slug of `## coverage.exclude`, for `#exclude`).
fn nearest_fragment<'a>(names: &[(&'a str, &'a str)], wanted: &str, fuzzy: bool) -> Option<&'a str> {
    let only = |found: Vec<&(&'a str, &'a str)>| -> Option<&'a str> {
        let (_, id) = **found.first()?;
        if found.iter().any(|(_, other)| *other != id) {
            return None;
        }
        Some(if found.iter().any(|(name, _)| *name == id) { id } else { found.iter().map(|(name, _)| *name).min()? })
    };
    if wanted.is_empty() || wanted.len() > 200 {
        return None;
    }
    let lower = wanted.to_ascii_lowercase();
    if let Some(n) = only(names.iter().filter(|(n, _)| *n != wanted && n.eq_ignore_ascii_case(wanted)).collect()) {
        return Some(n);
    }
    let qualified = format!("-{lower}");
    if let Some(n) = only(names.iter().filter(|(n, _)| n.len() > qualified.len() && n.to_ascii_lowercase().ends_with(&qualified)).collect()) {
        return Some(n);
    }
    if !fuzzy || lower.chars().count() < 5 || lower.len() > NEAR_MISS_CHARS {
        return None;
    }
    let limit = if lower.chars().count() >= 8 { 2 } else { 1 };
    // A typo, not another version: `#vitest-3` is not `#vitest-5` (a section that was
    // replaced, not mistyped), so the digits must agree.
    let digits = |t: &str| -> String { t.chars().filter(char::is_ascii_digit).collect() };
    let wanted_digits = digits(&lower);
    let mut best: Option<(usize, Vec<&(&'a str, &'a str)>)> = None;
    for named in names {
        let n = named.0;
        if digits(n) != wanted_digits {
            continue;
        }
        let Some(d) = edit_distance_within(&lower, &n.to_ascii_lowercase(), limit) else { continue };
        match &mut best {
            Some((bd, found)) if d == *bd => found.push(named),
            Some((bd, _)) if d > *bd => {}
            _ => best = Some((d, vec![named])),
        }
    }
    match best {
        Some((d, found)) if d > 0 => only(found),
        _ => None,
    }
}

/// Language folders a translated docs tree is recognised by (ISO 639-1 codes of the
/// languages docs sites are most often translated into, and their regional forms).
const LANGUAGES: [&str; 40] = [
    "ar", "az", "bg", "bn", "ca", "cs", "da", "de", "el", "es", "fa", "fi", "fr", "he", "hi", "hu", "id", "it", "ja", "ko", "ms", "nb", "nl",
    "no", "pl", "pt", "ro", "ru", "sk", "sr", "sv", "ta", "th", "tr", "uk", "ur", "uz", "vi", "zh", "yo",
];

/// The English page a translated docs tree falls back to (MkDocs' i18n plugins, FastAPI's
/// `docs/de/docs/release-notes.md` → `docs/en/docs/release-notes.md`): when `path` and
/// the doc share a folder named for a language (`de`, `pt-BR`, `zh_hant`), the same path
/// under `en`. None when there is no such folder.
fn translation_fallback(doc: &str, path: &str) -> Option<String> {
    let is_language = |seg: &str| {
        let base = seg.split(['-', '_']).next().unwrap_or("").to_ascii_lowercase();
        LANGUAGES.contains(&base.as_str()) && seg.len() <= 8
    };
    let doc_segments: Vec<&str> = doc.split('/').collect();
    let segments: Vec<&str> = path.split('/').collect();
    let at = segments.iter().enumerate().position(|(i, s)| is_language(s) && doc_segments.get(i) == Some(s) && doc_segments[..i] == segments[..i])?;
    let mut english: Vec<&str> = segments.clone();
    english[at] = "en";
    Some(english.join("/"))
}

/// For a missing path an ignore file covers: why it is probably missing (a build writes
/// it), so the finding reads as what to do rather than as a typo.
fn generated_note(session: &Session, path: &str) -> String {
    match session.tree.ignored_by(path) {
        Some(file) => format!(" ({file} ignores it: a generated file? build it before checking)"),
        None => String::new(),
    }
}

/// Pages a fragment is looked for in, at most: the page and what it includes.
const MAX_INCLUDED_PAGES: usize = 16;

/// True when the Markdown page `file` (or a page it includes with VitePress's
/// `<!--@include: …-->`, which renders its headings in place) holds `fragment`, by its
/// ids, or `loosely` (see `PageFragments::holds_loosely`). An unreadable page is given
/// the benefit of the doubt: its problem is not this link's.
fn page_has_fragment(session: &mut Session, file: &str, fragment: &str, loosely: bool) -> bool {
    let mut queue = vec![file.to_string()];
    let mut seen: Vec<String> = Vec::new();
    while let Some(page) = queue.pop() {
        if seen.contains(&page) || seen.len() >= MAX_INCLUDED_PAGES {
            continue;
        }
        seen.push(page.clone());
        let Some(fragments) = session.page_fragments(&page) else {
            if page == file {
                return true;
            }
            continue;
        };
        let holds = if loosely { fragments.holds_loosely(fragment) } else { fragments.holds(fragment) };
        if holds {
            return true;
        }
        queue.extend(fragments.includes.iter().cloned());
    }
    false
}

/// For a `path:12-40` mention: the anchor destination knit would write (symbol anchor
/// when the range covers exactly one declaration, line-range anchor otherwise).
pub fn mention_suggestion(session: &mut Session, doc: &str, m: &markdown::Mention) -> Option<MentionReport> {
    let doc_path = doc;
    // AGENTS.md style mentions are root-relative; fall back to doc-relative.
    let candidates = [m.path.trim_start_matches("./").to_string(), crate::target::join(doc_path, &m.path).unwrap_or_default()];
    let path = candidates.into_iter().find(|p| !p.is_empty() && session.tree.exists(p))?;
    let dest_path = relative_dest(doc_path, &path);
    let (dest, kind) = match session.declarations(&path) {
        Some(syn) => match covering_declaration(&syn.declarations, m.start, m.end) {
            Some(i) => (format!("{dest_path}#{}", exact_fragment(&syn, i)), "symbol"),
            None => (line_dest(&dest_path, m.start, m.end), "lines"),
        },
        None => (line_dest(&dest_path, m.start, m.end), "lines"),
    };
    Some(MentionReport {
        doc: doc_path.to_string(),
        line: m.line,
        text: format!("{}:{}-{}", m.path, m.start, m.end),
        suggestion: dest,
        kind,
    })
}

fn line_dest(path: &str, s: u32, e: u32) -> String {
    if s == e {
        format!("{path}#L{s}")
    } else {
        format!("{path}#L{s}-L{e}")
    }
}

/// The single outermost declaration lying inside `[start, end]` that covers most of it.
pub fn covering_declaration(decls: &[Declaration], start: u32, end: u32) -> Option<usize> {
    let inside: Vec<usize> = (0..decls.len()).filter(|&i| decls[i].start_line >= start && decls[i].end_line <= end).collect();
    let outer: Vec<usize> = inside
        .iter()
        .copied()
        .filter(|&i| !inside.iter().any(|&j| j != i && decls[j].start_byte <= decls[i].start_byte && decls[j].end_byte >= decls[i].end_byte && (decls[j].start_byte, decls[j].end_byte) != (decls[i].start_byte, decls[i].end_byte)))
        .collect();
    // Several declarations sharing one span (Swift `let a = 1, b = 2`) cannot be told apart by range.
    match outer.as_slice() {
        [i] => {
            let d = &decls[*i];
            let covered = d.end_line - d.start_line + 1;
            (covered * 2 > end - start).then_some(*i)
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::{nearest_fragment, translation_fallback, web_address};
    use knit_syntax::similarity::edit_distance_within;

    #[test]
    fn translated_pages_fall_back_to_english() {
        assert_eq!(translation_fallback("docs/de/docs/help.md", "docs/de/docs/newsletter.md").as_deref(), Some("docs/en/docs/newsletter.md"));
        assert_eq!(translation_fallback("docs/pt-BR/a.md", "docs/pt-BR/guide/x").as_deref(), Some("docs/en/guide/x"));
        assert_eq!(translation_fallback("docs/guide/a.md", "docs/guide/b.md"), None, "no language folder");
        assert_eq!(translation_fallback("de/a.md", "api/de/b.md"), None, "the doc is not in that language's tree");
        assert_eq!(translation_fallback("docs/de/a.md", "docs/fr/b.md"), None, "a link into another language stays as written");
    }

    #[test]
    fn a_mistyped_section_is_matched_only_when_one_id_fits() {
        let ids: Vec<(&str, &str)> = ["vi-fn", "vi-definehelper", "coverage-exclude", "coverage-excludeafterremap", "beforeeach", "aftereach", "vitest-5", "a-each", "b-each"]
            .into_iter()
            .map(|i| (i, i))
            .chain([("使用选项式-api-的用法-usage-with-the-options-api", "usage-with-the-options-api"), ("usage-with-the-options-api", "usage-with-the-options-api")])
            .chain([("vite-config-ts", "viteconfigts")])
            .collect();
        let near = |w: &str| nearest_fragment(&ids, w, true);
        assert_eq!(near("vi-defineHelper"), Some("vi-definehelper"), "case");
        assert_eq!(near("exclude"), Some("coverage-exclude"), "qualified by its page's prefix");
        assert_eq!(near("fn"), Some("vi-fn"));
        assert_eq!(near("beforach"), Some("beforeeach"), "one edit");
        assert_eq!(near("vitest-3"), None, "another version is not a typo");
        assert_eq!(near("each"), None, "two ids end in -each: no guess");
        assert_eq!(near("afterall"), None, "too far from every id");
        assert_eq!(near("xyz"), None);
        assert_eq!(near("options-api"), Some("usage-with-the-options-api"), "two names of one heading fit: its id");
        assert_eq!(near("config-ts"), Some("vite-config-ts"), "the one name that fits, not the heading's id");
        assert_eq!(nearest_fragment(&ids, "beforach", false), None, "past the check's budget: no edit distance");
        assert_eq!(nearest_fragment(&ids, "exclude", false), Some("coverage-exclude"), "the cheap rules still answer");
        assert_eq!(edit_distance_within("kitten", "sitting", 3), Some(3));
        assert_eq!(edit_distance_within("kitten", "sitting", 2), None);
    }

    #[test]
    fn web_addresses_written_without_a_scheme() {
        assert_eq!(web_address("eslint.org").as_deref(), Some("https://eslint.org"));
        assert_eq!(web_address("11ty.dev").as_deref(), Some("https://11ty.dev"));
        assert_eq!(web_address("www.example.de/docs#x").as_deref(), Some("https://www.example.de/docs#x"));
        for file in ["README.md", "main.rs", "install.sh", "lib.so", "./eslint.org", "/eslint.org", "Config.com", "docs/eslint.org", "a..org"] {
            assert_eq!(web_address(file), None, "{file}");
        }
    }
}
