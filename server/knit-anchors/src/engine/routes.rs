//! Docs-site routes: the workspace page a site generator serves for a link that names
//! no file (`/guide/ui`, `../advanced/transports`, `/docs/faq`). The rules that need
//! nothing but the link are [`page_candidates`]; this stage adds the ones that need the
//! tree: MkDocs' directory URLs, Docusaurus' front-matter slugs, DocC catalogues'
//! links to the documentation of a module, and the tail of a rooted route on a site whose
//! routing knit does not read (`/router/latest/docs/framework/react/guide/preloading`
//! served from `docs/router/guide/preloading.md`).

use super::session::{Seen, Session};
use super::strip_bom;
use crate::target::{directory_url_base, folders_holding, is_markdown, join, page_candidates};
use crate::source::SourceTree;
use percent_encoding::percent_decode_str;
use std::collections::HashMap;
use std::sync::Arc;

/// Bytes of a page read for its front matter.
const FRONT_MATTER_BYTES: usize = 4096;
/// Markdown pages read for front-matter slugs, at most, and the largest read.
const MAX_SLUG_PAGES: usize = 5000;
const MAX_SLUG_PAGE_BYTES: u64 = 1 << 20;

impl Session<'_> {
    /// The file a site serves for the page route `route` (as `classify` joined it from
    /// `dest`, written in `doc`), tried in this order:
    /// 1. [`page_candidates`]: `P.md`, `P/index.md`, … from the doc's folder (a rooted
    ///    route: from the workspace root, then from each folder holding the doc);
    /// 2. a relative route from the doc's own URL folder: MkDocs serves `docs/async.md`
    ///    at `/async/`, so its `../advanced/transports` is `docs/advanced/transports.md`;
    /// 3. a page whose front matter declares a `slug:` the route ends with (Docusaurus:
    ///    `slug: /faq` is served at `/docs/faq`, a blog post's `slug: intro-x` at
    ///    `/blog/intro-x`), the one nearest the doc first; or a page whose front-matter
    ///    `id` Docusaurus serves in place of its file name (`docs/Configuration.md` with
    ///    `id: configuration` at `docs/configuration`);
    /// 4. in a DocC catalogue (`X.docc/`), a relative route whose first segment names a
    ///    module (`./basiccontainers/uniquearray` → `Sources/BasicContainers/`): DocC
    ///    generates that page; only the module is checked;
    /// 5. a rooted route of two or more segments on a site whose routing knit does not
    ///    read (TanStack's `/router/latest/docs/framework/react/guide/preloading`, an Astro
    ///    content collection's `/5x/api` for `src/content/api/5x/api.mdx`): the page
    ///    whose route ends with the route's last three, else last two, segments; among
    ///    several, the one whose folders name the most of the route's other segments, then
    ///    the nearest the doc. A renamed page matches no tail and stays broken. A dated blog
    ///    post (`blog/2023-11-13-3.1.0.md`) also answers to its dated route
    ///    (`/blog/2023/11/13/3.1.0`), as Docusaurus serves it;
    /// 6. a relative route from a doc in a numbered tree, on a site that serves its pages
    ///    without their number prefixes (Docusaurus by default; svelte.dev also flattens
    ///    the folders, so `10-getting-started/10-introduction.md` links `glossary` for
    ///    `60-appendix/60-glossary.md`): the one page under the tree whose name, without
    ///    its number prefix, is the route's last segment, its folders naming the route's
    ///    other segments; none among several. A rooted route reaches such a page by its
    ///    tail (step 5: Nuxt serves `docs/1.getting-started/18.upgrade.md` at
    ///    `/docs/4.x/getting-started/upgrade`), or, too short for one, by its path from a
    ///    folder holding the doc (`/deploy` for `docs/2.deploy/0.index.md`);
    /// 7. a relative route that is a MyST target, `(syntax/substitutions)=` on a line of
    ///    its own in any page (MyST-Parser resolves `[text](syntax/substitutions)` to it,
    ///    wherever the target is): the page that defines it.
    pub fn resolve_route(&mut self, doc: &str, dest: &str, route: &str, rooted: bool) -> Option<String> {
        if let Some(found) = page_candidates(doc, route, rooted).into_iter().find(|p| self.tree.exists(p)) {
            return Some(found);
        }
        let raw = raw_path(dest);
        if !rooted {
            if let Some(found) = directory_url_base(doc).and_then(|base| join(&base, &raw)).and_then(|alt| {
                page_candidates(doc, &alt, false).into_iter().find(|p| self.tree.exists(p))
            }) {
                return Some(found);
            }
        }
        if let Some(found) = self.page_with_slug(doc, route).or_else(|| self.page_with_id(doc, route, rooted)) {
            return Some(found);
        }
        if !rooted && doc.contains(".docc/") {
            return self.docc_module(&raw);
        }
        if rooted {
            return self.page_by_route_tail(doc, route).or_else(|| self.page_at_unnumbered_path(doc, route));
        }
        self.page_without_number_prefixes(doc, &raw).or_else(|| self.page_facts().myst_targets.get(raw.trim()).cloned())
    }

    /// Step 6 for a rooted route too short for a tail (`/deploy`): the page whose path
    /// without number prefixes is the route from a folder holding the doc, the site's
    /// root (nitro's `docs/2.deploy/0.index.md`, linked from `docs/3.config/0.index.md`).
    fn page_at_unnumbered_path(&mut self, doc: &str, route: &str) -> Option<String> {
        numbered_root(doc)?;
        let route = route_form(route).trim_matches('/');
        let last = route.rsplit('/').next().filter(|l| !l.is_empty())?;
        let pages = self.unnumbered_pages();
        let candidates: Vec<(&String, Vec<String>)> = pages.get(last)?.iter().map(|p| (p, unnumbered_route_forms(p))).collect();
        folders_holding(doc).into_iter().find_map(|folder| {
            let wanted = if folder.is_empty() { route.to_string() } else { format!("{folder}/{route}") };
            candidates.iter().find(|(_, forms)| forms.contains(&wanted)).map(|(p, _)| (*p).clone())
        })
    }

    /// Step 6 of [`Session::resolve_route`]; `raw` is the route as written.
    fn page_without_number_prefixes(&mut self, doc: &str, raw: &str) -> Option<String> {
        let root = numbered_root(doc)?;
        let segments: Vec<&str> = raw.split('/').filter(|s| !s.is_empty() && *s != "." && *s != "..").collect();
        let (last, folders) = segments.split_last()?;
        let pages = self.unnumbered_pages();
        let under = |p: &&String| root.is_empty() || p.strip_prefix(root).is_some_and(|rest| rest.starts_with('/'));
        // The route's other segments, in order, among the page's folders (unnumbered).
        let named = |p: &&String| {
            let mut names = p.split('/').map(without_number_prefix);
            folders.iter().all(|f| names.any(|n| n == *f))
        };
        let mut found = pages.get(*last)?.iter().filter(under).filter(named);
        let one = found.next()?;
        found.next().is_none().then(|| one.clone())
    }

    /// Every Markdown page by the last segment of its route without a number prefix
    /// (`docs/60-appendix/60-glossary.md` and `docs/60-appendix/index.md` under
    /// `glossary` and `appendix`). Built once per session from the file list alone.
    fn unnumbered_pages(&mut self) -> Arc<HashMap<String, Vec<String>>> {
        if let Some(p) = &self.unnumbered_pages {
            return p.clone();
        }
        let pages = Arc::new(pages_by(self.tree, |page| {
            unnumbered_route_forms(page).iter().map(|form| form.rsplit('/').next().unwrap_or(form).to_string()).collect()
        }));
        self.unnumbered_pages = Some(pages.clone());
        pages
    }

    /// Step 5 of [`Session::resolve_route`].
    fn page_by_route_tail(&mut self, doc: &str, route: &str) -> Option<String> {
        let segments: Vec<&str> = route_form(route).split('/').filter(|s| !s.is_empty()).collect();
        if segments.len() < 2 {
            return None;
        }
        let tails = self.route_tails();
        for take in [3, 2] {
            if take > segments.len() {
                continue;
            }
            let (head, tail) = segments.split_at(segments.len() - take);
            let Some(pages) = tails.get(&tail.join("/").to_ascii_lowercase()) else { continue };
            let named = |p: &str| p.split('/').filter(|f| head.iter().any(|h| h.eq_ignore_ascii_case(f))).count();
            return pages.iter().max_by_key(|p| (named(p), shared_folders(doc, p), std::cmp::Reverse(p.len()))).cloned();
        }
        None
    }

    /// Every Markdown page (at most [`MAX_SLUG_PAGES`]) by the last two and the last three
    /// segments of its route, lowercased: `docs/router/guide/preloading.md` under
    /// `guide/preloading` and `router/guide/preloading`; a numbered page also without its
    /// segments' number prefixes (`docs/1.getting-started/18.upgrade.md` under
    /// `getting-started/upgrade`), and a Docusaurus doc also by its front-matter id's
    /// route. Built once per session from the file list and the ids.
    fn route_tails(&mut self) -> Arc<HashMap<String, Vec<String>>> {
        if let Some(t) = &self.route_tails {
            return t.clone();
        }
        let mut tails = pages_by(self.tree, |page| {
            let form = route_form(page).to_ascii_lowercase();
            let unnumbered = unnumbered_route_forms(&page.to_ascii_lowercase()).into_iter().filter(|u| *u != form);
            let forms: Vec<String> = std::iter::once(form.clone()).chain(dated_route(&form)).chain(unnumbered).collect();
            forms.iter().flat_map(|f| last_segments(f)).collect()
        });
        // A Docusaurus doc's route by its front-matter id (`docs/users/configs` for
        // `docs/users/Shared_Configurations.mdx`, `id: configs`).
        for (route, page) in self.page_facts().doc_ids.iter() {
            for tail in last_segments(&route.to_ascii_lowercase()) {
                let pages = tails.entry(tail).or_default();
                if !pages.contains(page) {
                    pages.push(page.clone());
                }
            }
        }
        let tails = Arc::new(tails);
        self.route_tails = Some(tails.clone());
        tails
    }

    /// The Markdown page whose front-matter `slug` is the longest run of `route`'s last
    /// segments; among pages declaring it, the one sharing the most folders with `doc`
    /// (versioned docs repeat their slugs).
    fn page_with_slug(&mut self, doc: &str, route: &str) -> Option<String> {
        let facts = self.page_facts();
        let slugs = &facts.slugs;
        let segments: Vec<&str> = route.split('/').filter(|s| !s.is_empty()).collect();
        for take in (1..=segments.len()).rev() {
            let suffix = segments[segments.len() - take..].join("/");
            if let Some(pages) = slugs.get(&suffix) {
                return pages.iter().max_by_key(|p| (shared_folders(doc, p), std::cmp::Reverse(p.len()))).cloned();
            }
        }
        None
    }

    /// What routes read of every Markdown page's text (see [`PageFacts`]), once per
    /// session. Pages the session already read are used as read; the others are read
    /// outside the check's budget (which is for anchors) but bounded on their own: at most
    /// [`MAX_SLUG_PAGES`] pages of at most [`MAX_SLUG_PAGE_BYTES`] each.
    fn page_facts(&mut self) -> Arc<PageFacts> {
        if let Some(f) = &self.page_facts {
            return f.clone();
        }
        let facts = Arc::new(self.read_page_facts());
        self.page_facts = Some(facts.clone());
        facts
    }

    /// One read of every Markdown page for [`PageFacts`].
    fn read_page_facts(&self) -> PageFacts {
        let mut facts = PageFacts::default();
        let files = self.tree.files();
        for page in markdown_pages(&files) {
            let text = match self.seen.get(page.as_str()) {
                Some(Seen::Text(t)) => t.clone(),
                Some(_) => continue,
                None => match self.tree.read(page, MAX_SLUG_PAGE_BYTES) {
                    Ok(t) => t,
                    Err(_) => continue,
                },
            };
            let text = strip_bom(&text);
            if let Some(slug) = front_matter_slug(text) {
                facts.slugs.entry(slug).or_default().push(page.clone());
            }
            // Docusaurus serves a doc under its front-matter `id` in place of its file name.
            if let Some(id) = front_matter_value(text, "id").filter(|id| !id.is_empty() && !id.contains('/')) {
                let folder = page.rsplit_once('/').map_or("", |x| x.0);
                let route = if folder.is_empty() { id.to_string() } else { format!("{folder}/{id}") };
                facts.doc_ids.entry(route).or_insert_with(|| page.clone());
            }
            for target in crate::markdown::myst_targets(text) {
                facts.myst_targets.entry(target).or_insert_with(|| page.clone());
            }
        }
        facts
    }

    /// Step 3b of [`Session::resolve_route`]: the page whose front-matter `id` names the
    /// route's last segment in the folder the route names (a rooted route also from each
    /// folder holding the doc, a site's root).
    fn page_with_id(&mut self, doc: &str, route: &str, rooted: bool) -> Option<String> {
        let facts = self.page_facts();
        let route = route.trim_matches('/');
        if let Some(found) = facts.doc_ids.get(route) {
            return Some(found.clone());
        }
        if !rooted || facts.doc_ids.is_empty() {
            return None;
        }
        folders_holding(doc).into_iter().filter(|f| !f.is_empty()).find_map(|folder| facts.doc_ids.get(&format!("{folder}/{route}")).cloned())
    }

    /// `Sources/<Module>` when the route's first segment is a module's name, any case.
    fn docc_module(&self, raw: &str) -> Option<String> {
        let first = raw.trim_start_matches("./").split('/').next().filter(|s| !s.is_empty() && *s != "..")?.to_ascii_lowercase();
        let files = self.tree.files();
        files.iter().find_map(|f| {
            let rest = f.strip_prefix("Sources/")?;
            let (module, _) = rest.split_once('/')?;
            (module.to_ascii_lowercase() == first).then(|| format!("Sources/{module}"))
        })
    }
}

/// What routes read of every Markdown page's text, in one pass over the pages (see
/// [`Session::page_facts`]).
#[derive(Default)]
pub(super) struct PageFacts {
    /// Pages by their front-matter `slug` (`slug: /faq` → `faq`).
    slugs: HashMap<String, Vec<String>>,
    /// Docusaurus doc ids by the route each gives its page: its folder's path and the id
    /// (`docs/configuration` for `docs/Configuration.md` with `id: configuration`).
    doc_ids: HashMap<String, String>,
    /// MyST targets (`(syntax/substitutions)=`) with the page defining each, the first
    /// when several do.
    myst_targets: HashMap<String, String>,
}

/// The last two and the last three segments of a route form, the keys of
/// [`Session::route_tails`].
fn last_segments(form: &str) -> Vec<String> {
    let segments: Vec<&str> = form.split('/').filter(|s| !s.is_empty()).collect();
    [2, 3].iter().filter(|take| **take <= segments.len()).map(|take| segments[segments.len() - take..].join("/")).collect()
}

/// Every Markdown page of `tree` (at most [`MAX_SLUG_PAGES`]) under each key `keys`
/// gives it, once per key.
fn pages_by(tree: &dyn SourceTree, keys: impl Fn(&str) -> Vec<String>) -> HashMap<String, Vec<String>> {
    let mut map: HashMap<String, Vec<String>> = HashMap::new();
    let files = tree.files();
    for page in markdown_pages(&files) {
        for key in keys(page) {
            let pages = map.entry(key).or_default();
            if pages.last() != Some(page) {
                pages.push(page.clone());
            }
        }
    }
    map
}

/// The tree's Markdown pages routes look among: at most [`MAX_SLUG_PAGES`].
fn markdown_pages(files: &[String]) -> impl Iterator<Item = &String> {
    files.iter().filter(|f| is_markdown(&f.to_ascii_lowercase())).take(MAX_SLUG_PAGES)
}

/// The destination's path as written, percent-decoded, without fragment and query.
pub(super) fn raw_path(dest: &str) -> String {
    let path = dest.trim().split('#').next().unwrap_or("").split('?').next().unwrap_or("");
    percent_decode_str(path).decode_utf8_lossy().to_string()
}

/// The `slug:` in a page's YAML front matter, without its slashes.
fn front_matter_slug(text: &str) -> Option<String> {
    // Absolute (`/faq`: from the docs' base route) or relative to the page's folder route
    // (a blog post's `introducing-x`): either way the route ends with it.
    let slug = front_matter_value(text, "slug")?;
    let slug = slug.trim_matches('/');
    (!slug.is_empty()).then(|| slug.to_string())
}

/// The value of `key:` in a page's YAML front matter, unquoted.
fn front_matter_value<'t>(text: &'t str, key: &str) -> Option<&'t str> {
    let mut end = FRONT_MATTER_BYTES.min(text.len());
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let head = &text[..end];
    let mut lines = head.lines();
    if lines.next()?.trim_end() != "---" {
        return None;
    }
    for line in lines {
        if line.trim_end() == "---" {
            break;
        }
        if let Some(value) = line.strip_prefix(key).and_then(|rest| rest.strip_prefix(':')) {
            return Some(value.trim().trim_matches(|c| c == '"' || c == '\''));
        }
    }
    None
}

/// A page's path or a route as the site's URL reads it: no `.md`/`.mdx`/`.html`
/// extension, no final `index` or `README` page, no trailing slash.
fn route_form(path: &str) -> &str {
    let path = path.trim_end_matches('/');
    let lower = path.to_ascii_lowercase();
    let stem = [".md", ".mdx", ".html", ".htm"].iter().find(|e| lower.ends_with(**e)).map_or(path, |e| &path[..path.len() - e.len()]);
    let lower = stem.to_ascii_lowercase();
    ["/index", "/readme"].iter().find(|e| lower.ends_with(**e)).map_or(stem, |e| &stem[..stem.len() - e.len()])
}

/// The route a blog serves a dated post at: Docusaurus serves
/// `website/blog/2023-11-13-3.1.0.md` (or `…/2023-11-13-3.1.0/index.md`) at
/// `/blog/2023/11/13/3.1.0`. None for a page whose name starts with no date.
fn dated_route(form: &str) -> Option<String> {
    let (folder, name) = form.rsplit_once('/').unwrap_or(("", form));
    let b = name.as_bytes();
    let dated = b.len() > 11
        && b[..4].iter().all(u8::is_ascii_digit)
        && b[4] == b'-'
        && b[5..7].iter().all(u8::is_ascii_digit)
        && b[7] == b'-'
        && b[8..10].iter().all(u8::is_ascii_digit)
        && b[10] == b'-';
    dated.then(|| format!("{folder}/{}/{}/{}/{}", &name[..4], &name[5..7], &name[8..10], &name[11..]))
}

/// A file or folder name without its number prefix (`10-introduction` →
/// `introduction`, `02_guides` → `guides`), as Docusaurus and svelte.dev serve it. A date
/// (`2023-11-13-post`) or a version (`1.0.0`) is not a prefix: the rest must not start
/// with a digit.
fn without_number_prefix(name: &str) -> &str {
    let digits = name.bytes().take_while(u8::is_ascii_digit).count();
    let rest = &name[digits..];
    match rest.strip_prefix(['-', '_', '.']) {
        Some(after) if digits > 0 && after.bytes().next().is_some_and(|b| !b.is_ascii_digit()) => after,
        _ => name,
    }
}

/// True when `file` is the page a numbered tree serves at the route segment `last` only
/// once its number prefix is dropped (`60-appendix/60-glossary.md` for `glossary`, the
/// doc in a numbered tree).
pub(super) fn served_without_number_prefix(doc: &str, last: &str, file: &str) -> bool {
    let last = last.to_ascii_lowercase();
    let last_of = |f: &str| f.rsplit('/').next().unwrap_or(f).to_ascii_lowercase();
    numbered_root(doc).is_some() && last_of(route_form(file)) != last && unnumbered_route_forms(file).iter().any(|u| last_of(u) == last)
}

/// A page's route form with every segment's number prefix dropped first, so that a
/// numbered index page is its folder's (`docs/2.deploy/0.index.md` → `docs/deploy`);
/// and, when it holds a `$`, the same with `dollar` for it, as Nuxt Content's slugs
/// spell it (`docs/4.api/3.utils/$fetch.md` at `…/api/utils/dollarfetch`).
fn unnumbered_route_forms(page: &str) -> Vec<String> {
    let unnumbered = page.split('/').map(without_number_prefix).collect::<Vec<_>>().join("/");
    let form = route_form(&unnumbered).to_string();
    let spelled = form.contains('$').then(|| form.replace('$', "dollar"));
    std::iter::once(form).chain(spelled).collect()
}

/// The folder holding a doc's numbered tree: the path above the first of its folders or
/// its own name that carries a number prefix (`documentation/docs` for
/// `documentation/docs/10-getting-started/10-introduction.md`); None when none does.
fn numbered_root(doc: &str) -> Option<&str> {
    let mut at = 0;
    for part in doc.split('/') {
        if without_number_prefix(part) != part {
            return Some(doc[..at].trim_end_matches('/'));
        }
        at += part.len() + 1;
    }
    None
}

/// Leading folders two paths share.
fn shared_folders(a: &str, b: &str) -> usize {
    let (a, b) = (a.rsplit_once('/').map_or("", |x| x.0), b.rsplit_once('/').map_or("", |x| x.0));
    a.split('/').zip(b.split('/')).take_while(|(x, y)| x == y && !x.is_empty()).count()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn front_matter_slugs() {
        assert_eq!(front_matter_slug("---\nid: faq\nslug: /faq\n---\n# FAQ\n").as_deref(), Some("faq"));
        assert_eq!(front_matter_slug("---\nslug: '/docs/intro/'\n---\n").as_deref(), Some("docs/intro"));
        assert_eq!(front_matter_slug("---\nslug: introducing-x\n---\n").as_deref(), Some("introducing-x"), "relative to the page's folder route");
        assert_eq!(front_matter_slug("---\nslug: /\n---\n"), None, "the site's root names no page");
        assert_eq!(front_matter_slug("# Title\nslug: /x\n"), None, "only in front matter");
        assert_eq!(front_matter_slug("---\ntitle: x\n---\nslug: /x\n"), None);
    }

    #[test]
    fn dated_blog_routes() {
        assert_eq!(dated_route("website/blog/2023-11-13-3.1.0").as_deref(), Some("website/blog/2023/11/13/3.1.0"));
        assert_eq!(dated_route("2017-04-13-1.0.0").as_deref(), Some("/2017/04/13/1.0.0"));
        assert_eq!(dated_route("blog/2023-11-13"), None, "a date and no name");
        assert_eq!(dated_route("docs/2023-notes"), None);
    }

    #[test]
    fn number_prefixes() {
        assert_eq!(without_number_prefix("10-introduction"), "introduction");
        assert_eq!(without_number_prefix("02_guides"), "guides");
        assert_eq!(without_number_prefix("3.advanced"), "advanced");
        assert_eq!(without_number_prefix("2023-11-13-post"), "2023-11-13-post", "a date");
        assert_eq!(without_number_prefix("1.0.0"), "1.0.0", "a version");
        assert_eq!(without_number_prefix("42"), "42");
        assert_eq!(without_number_prefix("v2-api"), "v2-api");
        assert_eq!(numbered_root("documentation/docs/10-getting-started/10-introduction.md"), Some("documentation/docs"));
        assert_eq!(numbered_root("docs/guide/01-start.md"), Some("docs/guide"));
        assert_eq!(numbered_root("01-intro.md"), Some(""));
        assert_eq!(numbered_root("docs/guide/start.md"), None);
        assert_eq!(numbered_root("blog/2023-11-13-post.md"), None);
        assert_eq!(numbered_root("docs/2.deploy/20.providers/aws.md"), Some("docs"), "a folder numbered with a dot");
        assert_eq!(unnumbered_route_forms("docs/2.deploy/0.index.md"), ["docs/deploy"]);
        assert_eq!(unnumbered_route_forms("docs/1.getting-started/18.upgrade.md"), ["docs/getting-started/upgrade"]);
        assert_eq!(unnumbered_route_forms("docs/4.api/3.utils/$fetch.md"), ["docs/api/utils/$fetch", "docs/api/utils/dollarfetch"]);
        assert!(served_without_number_prefix("docs/1.guide/1.a.md", "deploy", "docs/2.deploy/0.index.md"));
        assert!(!served_without_number_prefix("docs/1.guide/1.a.md", "upgrade", "docs/upgrade.md"));
    }

    #[test]
    fn route_forms() {
        assert_eq!(route_form("docs/router/guide/preloading.md"), "docs/router/guide/preloading");
        assert_eq!(route_form("docs/router/how-to/README.md"), "docs/router/how-to");
        assert_eq!(route_form("/router/latest/docs/framework/react/overview/"), "/router/latest/docs/framework/react/overview");
        assert_eq!(route_form("site/api/index.html"), "site/api");
    }

    #[test]
    fn directory_urls_and_shared_folders() {
        assert_eq!(directory_url_base("docs/async.md").as_deref(), Some("docs/async/page"));
        assert_eq!(join("docs/async/page", "../advanced/transports").as_deref(), Some("docs/advanced/transports"));
        assert_eq!(directory_url_base("docs/index.md"), None);
        assert_eq!(shared_folders("www/v9/nextjs/a.md", "www/v9/main/b.md"), 2);
        assert_eq!(shared_folders("a.md", "b.md"), 0);
    }
}
