//! Markdown side: the one reading of a doc's links, shared by both engines. One
//! pulldown-cmark pass yields the links the anchor engine edits (inline links and reference
//! definitions, with exact byte spans of their destination and title), `path:12-40`
//! mentions in inline code, headings (for doc anchors), and every place the doc points to
//! as CommonMark resolves it ([`Pointer`]: links of any style, images, reference
//! definitions, and inline code spans that name a path), which the context engine turns
//! into its `references` / `documents` relations. Links inside code spans and fenced code
//! are never seen: pulldown-cmark does not report them as links.

use pulldown_cmark::{Event, HeadingLevel, LinkType, Options, Parser, Tag, TagEnd};
use std::ops::Range;

/// How the link is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LinkForm {
    /// `[text](dest "title")`
    Inline,
    /// `[label]: dest "title"`
    Reference,
}

/// One link of a doc, positioned exactly so that edits touch only what they mean to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DocLink {
    pub form: LinkForm,
    /// 1-based line of the link's start.
    pub line: u32,
    /// 1-based position among the links starting on that line.
    pub ordinal: u32,
    /// The whole link (inline) or definition (reference).
    pub span: Range<usize>,
    /// The visible text (inline) or label (reference), as written.
    pub text: String,
    pub text_span: Range<usize>,
    /// The destination as written (still percent-encoded, without `<>`).
    pub dest_raw: String,
    /// Span of the destination in the source, `<>` included when present.
    pub dest_span: Range<usize>,
    /// The title's content, without delimiters.
    pub title: Option<String>,
    /// Span of the title's content (inside the delimiters).
    pub title_span: Option<Range<usize>>,
}

/// `path:12-40` or `path:12` written in inline code.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mention {
    pub line: u32,
    /// The code span including its backticks.
    pub span: Range<usize>,
    pub path: String,
    pub start: u32,
    pub end: u32,
}

/// An inline code span outside links and headings that is not a `path:12-40` mention:
/// `` `Router.add` ``, `` `createFactory()` ``, `` `src/router/trie.ts` `` — what
/// `knit anchors suggest` reads.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CodeSpan {
    pub line: u32,
    /// The code span including its backticks.
    pub span: Range<usize>,
    /// Its content as CommonMark reads it.
    pub text: String,
}

/// Whose symbol-link syntax a [`SymbolLink`] is written in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum SymbolLinkKind {
    /// ``` ``Type/member`` ```, ``` ``Type/method(label:)`` ``` (Swift-DocC).
    DocC,
    /// `{@link Foo.bar}`, `{@linkcode …}`, `{@linkplain …}` (TSDoc/JSDoc).
    TsDoc,
}

/// A link to a declaration in another tool's syntax: it names a symbol, not a file, and
/// has no place for a baseline.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SymbolLink {
    pub kind: SymbolLinkKind,
    /// The symbol as written (`Deque/append(_:)`, `z.string`).
    pub target: String,
    /// The whole link (backticks or braces included).
    pub span: Range<usize>,
    pub line: u32,
    /// The symbol the page documents (a DocC page titled ``` # ``Module/Type`` ```):
    /// DocC resolves a link relative to it first.
    pub page: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Heading {
    pub level: u8,
    /// The fragment that names it: its explicit id (`## Preview {#preview}`, MkDocs
    /// `{: #preview }`) when it has one, else the GitHub-style slug of its text.
    pub slug: String,
    /// Other fragments that reach it on some renderer: the GitHub slug when an explicit id
    /// replaced it, and the slugs docs-site generators make (VitePress / markdown-it:
    /// punctuation runs become `-`, `test.each` → `test-each`; Python-Markdown, which
    /// MkDocs uses: runs of `-` and spaces collapse). A link is checked against all of them.
    pub aliases: Vec<String>,
    pub text: String,
    pub line: u32,
    /// Byte offset where the heading starts.
    pub start: usize,
}

/// What a [`Pointer`] is in the doc.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PointerKind {
    /// A link of any style: inline, reference (full, collapsed, shortcut), autolink, e-mail.
    Link,
    /// An image, of any style.
    Image,
    /// A reference definition `[label]: dest`.
    Definition,
    /// An inline code span that reads as a path (`src/x.ts`, `docs/y.md:12`), wherever it
    /// stands (prose, link text, headings).
    CodePath,
}

/// A place the doc points to, as CommonMark reads it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pointer {
    pub kind: PointerKind,
    /// The destination as CommonMark resolves it: escapes and entities decoded, without
    /// `<>`, a reference-style link carrying its definition's destination. For a code
    /// path, the code span's trimmed text.
    pub dest: String,
    /// 1-based line where the link, image, definition or code span starts.
    pub line: u32,
    /// Byte offset where it starts.
    pub start: usize,
}

/// Everything knit reads from one Markdown doc.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DocScan {
    pub links: Vec<DocLink>,
    pub mentions: Vec<Mention>,
    /// Inline code spans outside links and headings that are not mentions.
    pub code_spans: Vec<CodeSpan>,
    /// DocC and TSDoc symbol links outside links and headings.
    pub symbol_links: Vec<SymbolLink>,
    pub headings: Vec<Heading>,
    /// The `id` and `name` attributes of the doc's HTML (`<a id="setup"></a>`), and the
    /// ids of Python-Markdown attribute lists outside headings (`{#field-validator}` after
    /// a paragraph, mkdocs-autorefs' `[](){#typeddict}`): fragments a link may name
    /// besides headings.
    pub html_ids: Vec<String>,
    /// Every link, image, reference definition and path-like code span, in source order.
    pub pointers: Vec<Pointer>,
    /// Spans of the reference definitions no link or image uses (`[_]: _` kept as a
    /// placeholder): CommonMark renders nothing for them, so no reader can follow one.
    pub unused_definitions: Vec<Range<usize>>,
}

/// Byte offset → 1-based line.
pub struct LineIndex {
    starts: Vec<usize>,
}

impl LineIndex {
    pub fn new(src: &str) -> Self {
        let mut starts = vec![0];
        starts.extend(src.match_indices('\n').map(|(i, _)| i + 1));
        LineIndex { starts }
    }
    pub fn line_of(&self, offset: usize) -> u32 {
        (self.starts.partition_point(|&s| s <= offset)) as u32
    }
    pub fn line_start(&self, line: u32) -> usize {
        self.starts.get(line.saturating_sub(1) as usize).copied().unwrap_or(usize::MAX)
    }
}

pub fn scan(src: &str) -> DocScan {
    let lines = LineIndex::new(src);
    let mut out = DocScan::default();
    let parser = Parser::new_ext(src, Options::ENABLE_TABLES | Options::ENABLE_FOOTNOTES | Options::ENABLE_HEADING_ATTRIBUTES);
    let defs: Vec<(usize, usize, String, String)> = parser
        .reference_definitions()
        .iter()
        .map(|(label, def)| (def.span.start, def.span.end, def.dest.to_string(), reference_label(label)))
        .collect();
    let mut used_labels: std::collections::HashSet<String> = std::collections::HashSet::new();
    let mut link_stack: Vec<(usize, bool, usize)> = Vec::new(); // (start, is_inline, max inner end)
    let mut heading: Option<(u8, usize, String, Option<String>)> = None;
    let mut slugs = SlugCounter::default();
    let mut in_code_block = false;
    for (event, range) in parser.into_offset_iter() {
        match &event {
            Event::Start(Tag::CodeBlock(_)) => in_code_block = true,
            Event::End(TagEnd::CodeBlock) => in_code_block = false,
            _ => {}
        }
        if let Some(top) = link_stack.last_mut() {
            if !matches!(event, Event::End(TagEnd::Link)) && top.0 != range.start {
                top.2 = top.2.max(range.end);
            }
        }
        let pointer = match &event {
            Event::Start(Tag::Link { dest_url, .. }) => Some((PointerKind::Link, dest_url.to_string())),
            Event::Start(Tag::Image { dest_url, .. }) => Some((PointerKind::Image, dest_url.to_string())),
            Event::Code(code) if looks_like_path(code) => Some((PointerKind::CodePath, code.trim().to_string())),
            _ => None,
        };
        if let Some((kind, dest)) = pointer {
            out.pointers.push(Pointer { kind, dest, line: lines.line_of(range.start), start: range.start });
        }
        if let Event::Start(Tag::Link { link_type, id, .. } | Tag::Image { link_type, id, .. }) = &event {
            if matches!(link_type, LinkType::Reference | LinkType::Collapsed | LinkType::Shortcut) {
                used_labels.insert(reference_label(id));
            }
        }
        if let Event::Text(t) = &event {
            if heading.is_none() && !in_code_block && t.contains('{') {
                out.html_ids.extend(attribute_list_ids(t));
            }
        }
        match event {
            Event::Start(Tag::Link { link_type, .. }) => {
                let inline = matches!(link_type, LinkType::Inline);
                link_stack.push((range.start, inline, range.start + 1));
            }
            Event::End(TagEnd::Link) => {
                if let Some((start, inline, inner_end)) = link_stack.pop() {
                    if inline {
                        if let Some(link) = parse_inline(src, start, range.end, inner_end) {
                            out.links.push(link);
                        }
                    }
                }
            }
            Event::Start(Tag::Heading { level, id, .. }) => {
                let id = id.map(|i| i.trim().to_string()).filter(|i| !i.is_empty());
                heading = Some((heading_level(level), range.start, String::new(), id));
            }
            Event::End(TagEnd::Heading(_)) => {
                if let Some((level, start, text, id)) = heading.take() {
                    let written = text.trim();
                    let text = strip_attribute_list(written).to_string();
                    let id = id.or_else(|| attribute_list_id(&src[start..range.end]));
                    let slug = slugs.slug(&text);
                    let mut aliases: Vec<String> = site_slugs(&text).into_iter().filter(|a| !a.is_empty() && *a != slug).collect();
                    // GitHub shows an attribute block as text and slugs it with the rest
                    // (`## Options {🚀}` is `#options-` there): a link written for the page
                    // as GitHub renders it still reaches the heading.
                    let on_github = match consumed_attribute_block(&src[start..range.end], written) {
                        Some(block) => slugify(&format!("{written} {block}")),
                        None => slugify(written),
                    };
                    if on_github != slug && !aliases.contains(&on_github) {
                        aliases.push(on_github);
                    }
                    // Nuxt Content leaves MDC inline components out of the id
                    // (`## tryUseNuxtApp :badge[v3.10]{color="info"}` is `#tryusenuxtapp`).
                    if let Some(plain) = without_mdc_components(&text) {
                        let plain = slugify(&plain);
                        if plain != slug && !aliases.contains(&plain) {
                            aliases.push(plain);
                        }
                    }
                    let slug = match id {
                        Some(id) => {
                            aliases.insert(0, slug);
                            id
                        }
                        None => slug,
                    };
                    aliases.retain(|a| *a != slug);
                    aliases.dedup();
                    out.headings.push(Heading { level, slug, aliases, text, line: lines.line_of(start), start });
                }
            }
            Event::Text(t) | Event::Code(t) if heading.is_some() => {
                if let Some((_, _, text, _)) = heading.as_mut() {
                    text.push_str(&t);
                }
            }
            Event::Html(html) | Event::InlineHtml(html) => out.html_ids.extend(html_ids(&html)),
            // Inside a link the code span is link text (often a converted mention).
            Event::Code(code) if link_stack.is_empty() => {
                if let Some(target) = docc_symbol(&src[range.clone()], &code) {
                    // Owned by DocC: a link already, never a mention to convert.
                    out.symbol_links.push(SymbolLink { kind: SymbolLinkKind::DocC, target, span: range.clone(), line: lines.line_of(range.start), page: None });
                } else if let Some(m) = parse_mention(&code) {
                    out.mentions.push(Mention { line: lines.line_of(range.start), span: range.clone(), path: m.0, start: m.1, end: m.2 });
                } else {
                    out.code_spans.push(CodeSpan { line: lines.line_of(range.start), span: range.clone(), text: code.to_string() });
                }
            }
            Event::Text(_) if link_stack.is_empty() => {
                for (at, len, target) in tsdoc_links(&src[range.clone()]) {
                    let span = range.start + at..range.start + at + len;
                    out.symbol_links.push(SymbolLink { kind: SymbolLinkKind::TsDoc, target, line: lines.line_of(span.start), span, page: None });
                }
            }
            _ => {}
        }
    }
    for (start, end, dest, label) in defs {
        if !used_labels.contains(&label) {
            out.unused_definitions.push(start..end);
        }
        out.pointers.push(Pointer { kind: PointerKind::Definition, dest, line: lines.line_of(start), start });
        if let Some(link) = parse_definition(src, start, end) {
            out.links.push(link);
        }
    }
    // A DocC page titled with a symbol (``` # ``Collections/Deque`` ```): its links are
    // relative to that symbol.
    let page = out.headings.iter().find(|h| h.level == 1).and_then(|h| {
        let raw = src.get(h.start..).and_then(|r| r.lines().next()).unwrap_or("");
        raw.contains("``").then(|| docc_symbol("``", &h.text)).flatten()
    });
    if page.is_some() {
        for l in out.symbol_links.iter_mut().filter(|l| l.kind == SymbolLinkKind::DocC) {
            l.page = page.clone();
        }
    }
    out.links.sort_by_key(|l| l.span.start);
    // Events come in source order; definitions are not events and join them by offset.
    out.pointers.sort_by_key(|p| p.start);
    let mut last_line = 0;
    let mut ord = 0;
    for link in &mut out.links {
        link.line = lines.line_of(link.span.start);
        if link.line == last_line {
            ord += 1;
        } else {
            last_line = link.line;
            ord = 1;
        }
        link.ordinal = ord;
    }
    out
}

/// The symbol of a DocC symbol link: a code span written with double backticks whose
/// content is a symbol path (`Deque`, `Deque/append(_:)`, `Module/Type/member-swift.property`).
fn docc_symbol(raw: &str, code: &str) -> Option<String> {
    if !raw.starts_with("``") || raw.starts_with("```") {
        return None;
    }
    let t = code.trim();
    let ok = !t.is_empty()
        && t.len() <= 300
        && t.chars().next().is_some_and(|c| c.is_alphabetic() || c == '_')
        && t.chars().all(|c| c.is_alphanumeric() || "_/.:()-<>".contains(c))
        && t.split('/').all(docc_segment);
    ok.then(|| t.to_string())
}

/// One segment of a DocC symbol path. DocC separates with `/`, so a dot belongs only to a
/// disambiguation suffix (`count-swift.property`) or an operator (`..<(_:_:)`): a
/// ``` ``hello.py`` ``` or ``` ``project.scripts`` ``` is reStructuredText's or MyST's
/// inline code, not a link.
fn docc_segment(segment: &str) -> bool {
    let name = match segment.find("-swift.") {
        Some(at) => &segment[..at],
        None => segment,
    };
    let base = name.split('(').next().unwrap_or(name);
    !base.contains('.') || !base.chars().any(|c| c.is_alphanumeric() || c == '_')
}

/// `{@link X}`, `{@link X | text}`, `{@link X text}`, `{@linkcode X}`, `{@linkplain X}`
/// in a run of text: (offset, length, target) each; URLs are not symbols.
fn tsdoc_links(text: &str) -> Vec<(usize, usize, String)> {
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(p) = text[from..].find("{@link") {
        let at = from + p;
        from = at + 6;
        let rest = &text[at + 6..];
        let tag_len = ["code", "plain", ""].iter().find(|t| rest.starts_with(**t)).map_or(0, |t| t.len());
        let after = &rest[tag_len..];
        if !after.starts_with([' ', '\t']) {
            continue;
        }
        let Some(close) = after.find('}') else { continue };
        if after[..close].contains('\n') {
            continue;
        }
        let target = after[..close].trim().split(|c: char| c.is_whitespace() || c == '|').next().unwrap_or("");
        if target.is_empty() || target.contains("://") {
            continue;
        }
        let len = 6 + tag_len + close + 1;
        out.push((at, len, target.to_string()));
        from = at + len;
    }
    out
}

/// True when an inline code span plausibly names a file (`src/a.ts`, `docs/x.md:12`).
fn looks_like_path(code: &str) -> bool {
    let t = code.trim();
    !t.is_empty()
        && t.len() <= 300
        && !t.contains(char::is_whitespace)
        && !t.contains("://")
        && (t.contains('/') || t.rsplit('.').next().is_some_and(|ext| ext.len() <= 5 && ext != t && ext.chars().all(|c| c.is_ascii_alphanumeric())))
}

fn heading_level(l: HeadingLevel) -> u8 {
    match l {
        HeadingLevel::H1 => 1,
        HeadingLevel::H2 => 2,
        HeadingLevel::H3 => 3,
        HeadingLevel::H4 => 4,
        HeadingLevel::H5 => 5,
        HeadingLevel::H6 => 6,
    }
}

/// GitHub-style heading slugs, with `-1`, `-2` for repeats.
#[derive(Default)]
struct SlugCounter {
    seen: std::collections::HashMap<String, u32>,
}

impl SlugCounter {
    fn slug(&mut self, text: &str) -> String {
        let base = slugify(text);
        let n = self.seen.entry(base.clone()).or_insert(0);
        let slug = if *n == 0 { base.clone() } else { format!("{base}-{n}") };
        *n += 1;
        slug
    }
}

/// `text` without its MDC inline components (`:badge[v3.10]`, `:icon{name="x"}`, with
/// their `[…]` content and `{…}` props), or None when it has none. A component starts
/// a word: `:` then a letter, after a space or at the start.
fn without_mdc_components(text: &str) -> Option<String> {
    let b = text.as_bytes();
    // A part is closed only before its delimiter's last occurrence: past it no search
    // runs, so a line of a million unclosed `:a[` stays linear.
    let last = |c: u8| b.iter().rposition(|x| *x == c);
    let (last_bracket, last_brace) = (last(b']'), last(b'}'));
    let mut out = String::with_capacity(text.len());
    let (mut i, mut copied, mut found) = (0, 0, false);
    while i < b.len() {
        let starts_word = i == 0 || b[i - 1] == b' ';
        if b[i] == b':' && starts_word && b.get(i + 1).is_some_and(u8::is_ascii_alphabetic) {
            let mut j = i + 1;
            while j < b.len() && (b[j].is_ascii_alphanumeric() || b[j] == b'-') {
                j += 1;
            }
            let mut parts = 0;
            for (open, close, last_close) in [(b'[', b']', last_bracket), (b'{', b'}', last_brace)] {
                if b.get(j) == Some(&open) && last_close.is_some_and(|l| l > j) {
                    match b[j..].iter().position(|c| *c == close) {
                        Some(end) => {
                            j += end + 1;
                            parts += 1;
                        }
                        None => break,
                    }
                }
            }
            if parts > 0 {
                out.push_str(&text[copied..i]);
                copied = j;
                found = true;
                i = j;
                continue;
            }
        }
        i += 1;
    }
    found.then(|| {
        out.push_str(&text[copied..]);
        out.split_whitespace().collect::<Vec<_>>().join(" ")
    })
}

/// The slugs docs-site generators make of a heading's text, besides GitHub's: VitePress
/// and markdown-it-anchor turn each run of punctuation and spaces into one `-` and trim
/// it; Python-Markdown (MkDocs) drops punctuation and collapses runs of `-` and spaces.
pub fn site_slugs(text: &str) -> [String; 2] {
    let lower = text.trim().to_lowercase();
    let mut vitepress = String::with_capacity(lower.len());
    for c in lower.chars().filter(|c| !c.is_control()) {
        if c.is_alphanumeric() {
            vitepress.push(c);
        } else if !vitepress.ends_with('-') {
            vitepress.push('-');
        }
    }
    let vitepress = vitepress.trim_matches('-').to_string();
    let mut mkdocs = String::with_capacity(lower.len());
    for c in lower.chars().filter(|c| c.is_alphanumeric() || *c == '_' || *c == '-' || c.is_whitespace()) {
        if c == '-' || c.is_whitespace() {
            if !mkdocs.ends_with('-') {
                mkdocs.push('-');
            }
        } else {
            mkdocs.push(c);
        }
    }
    [vitepress, mkdocs.trim_matches('-').to_string()]
}

/// The files a VitePress include comment pulls into the page (`<!--@include: ./cli.md-->`,
/// also with a `{3,10}` line range or a `#region`), as written.
pub fn includes(src: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(p) = src[from..].find("<!--@include:") {
        let at = from + p + "<!--@include:".len();
        let Some(end) = src[at..].find("-->") else { break };
        from = at + end;
        let spec = src[at..at + end].trim();
        let path = spec.split(['{', '#']).next().unwrap_or("").trim();
        if !path.is_empty() && !path.contains('\n') {
            out.push(path.to_string());
        }
    }
    out
}

/// A reference label as CommonMark matches it: case-folded, inner whitespace collapsed.
fn reference_label(label: &str) -> String {
    label.split_whitespace().collect::<Vec<_>>().join(" ").to_lowercase()
}

/// The `#id`s of the Python-Markdown attribute lists in a run of text (`{#id}`,
/// `{: #id .class key=value }`); a brace group holding anything else is not one.
fn attribute_list_ids(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(p) = text[from..].find('{') {
        let open = from + p;
        from = open + 1;
        let Some(len) = text[open..].find('}').filter(|&l| l <= 256) else { continue };
        let body = text[open + 1..open + len].trim_start_matches(':').trim();
        let tokens: Vec<&str> = body.split_whitespace().collect();
        let well_formed = !tokens.is_empty() && tokens.iter().all(|t| t.starts_with('#') || t.starts_with('.') || t.contains('='));
        if well_formed {
            out.extend(tokens.iter().filter_map(|t| t.strip_prefix('#')).filter(|id| !id.is_empty()).map(str::to_string));
        }
    }
    out
}

/// The MyST targets a page defines: `(name)=` on a line of its own, outside fenced code
/// (MyST-Parser's labels, which `[text](name)` links to from any page).
pub fn myst_targets(src: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut fence: Option<(u8, usize)> = None;
    for line in src.lines() {
        let t = line.trim_start();
        let run = |c: u8| t.bytes().take_while(|b| *b == c).count();
        match fence {
            Some((c, n)) => {
                if run(c) >= n && t.trim_start_matches(c as char).trim().is_empty() {
                    fence = None;
                }
                continue;
            }
            None => {
                fence = [b'`', b'~'].into_iter().map(|c| (c, run(c))).find(|(_, n)| *n >= 3);
                if fence.is_some() {
                    continue;
                }
            }
        }
        let Some(name) = t.trim_end().strip_prefix('(').and_then(|r| r.strip_suffix(")=")) else { continue };
        if !name.is_empty() && !name.contains(|c: char| c.is_whitespace() || c == '(' || c == ')') {
            out.push(name.to_string());
        }
    }
    out
}

/// The objects a page documents with mkdocstrings' `::: package.module` blocks: the page
/// holds an anchor for each member it renders (`#package.module.Class`), which only the
/// site's build knows. Their qualified names are the prefixes such fragments start with.
pub fn api_directive_prefixes(src: &str) -> Vec<String> {
    src.lines()
        .filter_map(|l| l.trim_start().strip_prefix(":::"))
        .map(|rest| rest.trim())
        .filter(|name| !name.is_empty() && name.chars().all(|c| c.is_alphanumeric() || c == '_' || c == '.'))
        .map(str::to_string)
        .collect()
}

/// The values of `id="…"` and `name="…"` attributes in a run of HTML.
fn html_ids(html: &str) -> Vec<String> {
    let bytes = html.as_bytes();
    let mut out = Vec::new();
    for attr in ["id", "name"] {
        let mut from = 0;
        while let Some(p) = html[from..].find(attr) {
            let at = from + p;
            from = at + attr.len();
            let before_ok = at > 0 && bytes[at - 1].is_ascii_whitespace();
            let rest = html[from..].trim_start();
            let Some(rest) = rest.strip_prefix('=').map(str::trim_start) else { continue };
            if !before_ok {
                continue;
            }
            let Some(quote) = rest.chars().next().filter(|c| *c == '"' || *c == '\'') else { continue };
            if let Some(end) = rest[1..].find(quote) {
                let value = rest[1..1 + end].trim();
                if !value.is_empty() {
                    out.push(value.to_string());
                }
            }
        }
    }
    out
}

/// The attribute blocks a heading may end with that CommonMark leaves in its text, as
/// (opening, closing) delimiters:
/// - `{: #id .class }`: Python-Markdown's attribute lists, as MkDocs writes explicit
///   heading ids;
/// - `%{#id}%`: markdown-it-attrs with the delimiters VitePress sites set to keep `{` for
///   Vue templates (`markdown.attrs: { leftDelimiter: '%{', rightDelimiter: '}%' }`:
///   pinia's translated docs head 45 pages' sections so). The pair is read from the text,
///   never from the site's configuration, which knit does not run; no other Markdown
///   gives a heading this ending;
/// - `{/*id*/}`: an MDX comment holding the id alone, as react.dev (and each of its
///   translations) writes every heading's (`## Reference {/*reference*/}`).
///
/// (`{#id}` itself is CommonMark's heading attribute, which the parser reads.)
const HEADING_ATTRIBUTE_BLOCKS: [(&str, &str); 3] = [("{:", "}"), ("%{", "}%"), MDX_COMMENT_ID];

/// The delimiters of react.dev's heading ids (see [`HEADING_ATTRIBUTE_BLOCKS`]).
const MDX_COMMENT_ID: (&str, &str) = ("{/*", "*/}");

/// A heading's trailing attribute block (see [`HEADING_ATTRIBUTE_BLOCKS`]) in `line`: the
/// byte where it opens and its content.
fn heading_attribute_block(line: &str) -> Option<(usize, &str)> {
    HEADING_ATTRIBUTE_BLOCKS.iter().find_map(|(open, close)| {
        let body = line.strip_suffix(close)?;
        let at = body.rfind(open)?;
        Some((at, &body[at + open.len()..]))
    })
}

/// A heading's source line without its closing `#`s (`## Setup {#setup} ##`).
fn heading_line(source: &str) -> Option<&str> {
    Some(source.lines().next()?.trim_end().trim_end_matches('#').trim_end())
}

/// The trailing `{…}` of a heading's source line that the parser read as heading
/// attributes (CommonMark's `{#id}`, also `{🚀}`), which its text no longer holds.
fn consumed_attribute_block<'s>(source: &'s str, text: &str) -> Option<&'s str> {
    let line = heading_line(source)?;
    let block = &line[line.rfind('{')?..];
    (block.ends_with('}') && !text.ends_with(block)).then_some(block)
}

/// A heading's text without a trailing attribute block (see [`HEADING_ATTRIBUTE_BLOCKS`]).
fn strip_attribute_list(text: &str) -> &str {
    match heading_attribute_block(text) {
        Some((at, _)) => text[..at].trim_end(),
        None => text,
    }
}

/// The `#id` of a trailing attribute block (see [`HEADING_ATTRIBUTE_BLOCKS`]) on a
/// heading's source line.
fn attribute_list_id(source: &str) -> Option<String> {
    let line = heading_line(source)?;
    let (at, content) = heading_attribute_block(line)?;
    if line[at..].starts_with(MDX_COMMENT_ID.0) {
        let id = content.trim();
        return (!id.is_empty() && !id.contains(char::is_whitespace)).then(|| id.to_string());
    }
    content.split_whitespace().find_map(|t| t.strip_prefix('#')).filter(|id| !id.is_empty()).map(str::to_string)
}

pub fn slugify(text: &str) -> String {
    text.trim()
        .to_lowercase()
        .chars()
        .filter_map(|c| {
            if c.is_alphanumeric() || c == '-' || c == '_' {
                Some(c)
            } else if c == ' ' {
                Some('-')
            } else {
                None
            }
        })
        .collect()
}

/// `src/a.ts:12-40` → (path, 12, 40). The path must look like a file (has an extension).
fn parse_mention(code: &str) -> Option<(String, u32, u32)> {
    let code = code.trim();
    let (path, range) = code.rsplit_once(':')?;
    if path.is_empty() || path.contains(char::is_whitespace) || path.contains("://") {
        return None;
    }
    let file = path.rsplit('/').next()?;
    let (stem, ext) = file.rsplit_once('.')?;
    if stem.is_empty() || ext.is_empty() || !ext.chars().all(|c| c.is_ascii_alphanumeric()) {
        return None;
    }
    let (a, b) = match range.split_once('-') {
        Some((a, b)) => (a, b),
        None => (range, range),
    };
    let start: u32 = a.parse().ok()?;
    let end: u32 = b.parse().ok()?;
    (start >= 1 && end >= start).then(|| (path.to_string(), start, end))
}

/// Parses `[text](dest "title")` given the link's span and the end of its inner text.
fn parse_inline(src: &str, start: usize, end: usize, inner_end: usize) -> Option<DocLink> {
    let bytes = src.as_bytes();
    // The destination starts at the first `](` at or after the inner text's end.
    let search_from = inner_end.min(end);
    let rel = src.get(search_from..end)?.find("](")?;
    let close_bracket = search_from + rel;
    let open_paren = close_bracket + 1;
    if bytes.get(end - 1) != Some(&b')') {
        return None;
    }
    let (dest_raw, dest_span, title, title_span) = parse_dest_and_title(src, open_paren + 1, end - 1)?;
    Some(DocLink {
        form: LinkForm::Inline,
        line: 0,
        ordinal: 0,
        span: start..end,
        text: src.get(start + 1..close_bracket).unwrap_or("").to_string(),
        text_span: start + 1..close_bracket,
        dest_raw,
        dest_span,
        title,
        title_span,
    })
}

fn parse_definition(src: &str, start: usize, end: usize) -> Option<DocLink> {
    let text = src.get(start..end)?;
    let lead = text.len() - text.trim_start().len();
    let label_open = start + lead;
    let rel = src.get(label_open..end)?.find("]:")?;
    let label_close = label_open + rel;
    let (dest_raw, dest_span, title, title_span) = parse_dest_and_title(src, label_close + 2, end)?;
    Some(DocLink {
        form: LinkForm::Reference,
        line: 0,
        ordinal: 0,
        span: label_open..end,
        text: src.get(label_open + 1..label_close).unwrap_or("").to_string(),
        text_span: label_open + 1..label_close,
        dest_raw,
        dest_span,
        title,
        title_span,
    })
}

type DestTitle = (String, Range<usize>, Option<String>, Option<Range<usize>>);

/// Within `src[from..to]`: whitespace, destination (`<…>` or bare with balanced parens),
/// whitespace, optional title (`"…"`, `'…'` or `(…)`).
fn parse_dest_and_title(src: &str, from: usize, to: usize) -> Option<DestTitle> {
    let bytes = src.as_bytes();
    let mut i = from;
    while i < to && bytes[i].is_ascii_whitespace() {
        i += 1;
    }
    let dest_start = i;
    let dest_raw;
    if bytes.get(i) == Some(&b'<') {
        let close = src.get(i + 1..to)?.find('>')? + i + 1;
        dest_raw = src.get(i + 1..close)?.to_string();
        i = close + 1;
    } else {
        let mut depth = 0i32;
        while i < to {
            match bytes[i] {
                b'\\' => i += 1,
                b'(' => depth += 1,
                b')' if depth == 0 => break,
                b')' => depth -= 1,
                c if c.is_ascii_whitespace() => break,
                _ => {}
            }
            i += 1;
        }
        i = i.min(to);
        dest_raw = src.get(dest_start..i)?.replace("\\(", "(").replace("\\)", ")");
    }
    let dest_span = dest_start..i;
    while i < to && bytes[i].is_ascii_whitespace() {
        i += 1;
    }
    let mut title = None;
    let mut title_span = None;
    if i < to {
        let (open, close) = match bytes[i] {
            b'"' => (b'"', b'"'),
            b'\'' => (b'\'', b'\''),
            b'(' => (b'(', b')'),
            _ => return Some((dest_raw, dest_span, None, None)),
        };
        let _ = open;
        let tstart = i + 1;
        let mut j = tstart;
        while j < to && bytes[j] != close {
            if bytes[j] == b'\\' {
                j += 1;
            }
            j += 1;
        }
        if j <= to && j < bytes.len() && bytes[j] == close {
            title = Some(src.get(tstart..j)?.to_string());
            title_span = Some(tstart..j);
        }
    }
    Some((dest_raw, dest_span, title, title_span))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mdc_inline_components_are_left_out_of_ids() {
        assert_eq!(without_mdc_components("tryUseNuxtApp :badge[v3.10]").as_deref(), Some("tryUseNuxtApp"));
        assert_eq!(without_mdc_components("Named Views :badge[v4.5]{color=\"info\"} here").as_deref(), Some("Named Views here"));
        assert_eq!(without_mdc_components(":icon{name=\"x\"} Setup").as_deref(), Some("Setup"));
        assert_eq!(without_mdc_components("Ratio 16:9 and a:b[c]"), None, "a colon inside a word starts no component");
        assert_eq!(without_mdc_components("Note: see [x]"), None);
        assert_eq!(without_mdc_components("plain"), None);
        let scan = scan("## tryUseNuxtApp :badge[v3.10]{color=\"info\" size=\"xs\"}\n");
        assert!(scan.headings[0].aliases.contains(&"tryusenuxtapp".to_string()), "{:?}", scan.headings[0]);
    }

    #[test]
    fn finds_inline_reference_and_mentions() {
        let src = "# Guide\n\nSee [the `resolver`](../src/a.ts#A.b \"knit:1x\") and [x](<My Lib/a.ts#f>).\n\n`src/a.ts:3-9` and `not a mention`\n\n```\n[no](src/a.ts#f)\n```\n\n`[no](src/a.ts#g)`\n\n[ref]: /src/b.ts#g 'note'\n";
        let scan = scan(src);
        assert_eq!(scan.links.len(), 3, "{:#?}", scan.links);
        let a = &scan.links[0];
        assert_eq!(a.dest_raw, "../src/a.ts#A.b");
        assert_eq!(a.title.as_deref(), Some("knit:1x"));
        assert_eq!(a.line, 3);
        assert_eq!(&src[a.dest_span.clone()], "../src/a.ts#A.b");
        assert_eq!(&src[a.title_span.clone().unwrap()], "knit:1x");
        let b = &scan.links[1];
        assert_eq!(b.dest_raw, "My Lib/a.ts#f");
        assert_eq!(b.ordinal, 2);
        let r = &scan.links[2];
        assert_eq!(r.form, LinkForm::Reference);
        assert_eq!(r.dest_raw, "/src/b.ts#g");
        assert_eq!(r.title.as_deref(), Some("note"));
        assert_eq!(scan.mentions.len(), 1);
        assert_eq!((scan.mentions[0].start, scan.mentions[0].end), (3, 9));
        assert_eq!(scan.headings[0].slug, "guide");
        // A converted mention is link text, not a mention any more.
        let converted = scan_str("[`src/a.ts:3-9`](src/a.ts#L3-L9)\n");
        assert!(converted.mentions.is_empty());
    }

    #[test]
    fn docc_symbol_links_are_slash_paths() {
        let targets = |src: &str| -> Vec<String> { scan(src).symbol_links.into_iter().map(|l| l.target).collect() };
        assert_eq!(
            targets("``Deque/count-swift.property``, ``Range/..<(_:_:)``, ``Deque``, ``Store/case``\n"),
            ["Deque/count-swift.property", "Range/..<(_:_:)", "Deque", "Store/case"]
        );
        // reStructuredText's and MyST's inline code (click's docs), never a DocC path
        assert!(targets("Contents of ``hello.py`` and the ``project.scripts`` table\n").is_empty());
    }

    fn scan_str(s: &str) -> DocScan {
        super::scan(s)
    }

    #[test]
    fn pointers_cover_every_link_style_images_definitions_and_code_paths() {
        let src = "# Use `src/h.ts`\n\n[a](x.md) ![i](img/p.png) [r][d] [d] <https://e.com> [`docs/y.md:12`](y.md#s)\n\n`not a path` and `lib/z.rs`\n\n```\n[no](n.md) `src/no.ts`\n```\n\n[d]: <de&amp;f.md> \"t\"\n";
        let scan = scan(src);
        let got: Vec<(PointerKind, &str, u32)> = scan.pointers.iter().map(|p| (p.kind, p.dest.as_str(), p.line)).collect();
        use PointerKind::*;
        assert_eq!(
            got,
            vec![
                (CodePath, "src/h.ts", 1),
                (Link, "x.md", 3),
                (Image, "img/p.png", 3),
                (Link, "de&f.md", 3),
                (Link, "de&f.md", 3),
                (Link, "https://e.com", 3),
                (Link, "y.md#s", 3),
                (CodePath, "docs/y.md:12", 3),
                (CodePath, "lib/z.rs", 5),
                (Definition, "de&f.md", 11),
            ]
        );
        let starts: Vec<usize> = scan.pointers.iter().map(|p| p.start).collect();
        assert!(starts.windows(2).all(|w| w[0] < w[1]), "{starts:?}");
    }

    #[test]
    fn swift_labels_in_destination() {
        let src = "[blend](Sources/Mixer.swift#Mixer.blend(first:second:))\n";
        let scan = scan(src);
        assert_eq!(scan.links[0].dest_raw, "Sources/Mixer.swift#Mixer.blend(first:second:)");
    }

    #[test]
    fn headings_answer_to_explicit_ids_and_site_generator_slugs() {
        let src = "# Guide\n\n## Setup {#setup-steps}\n\n### test.each\n\n### `preview` {: #format_preview }\n\n## A -- B\n\n<a id=\"legacy\"></a>\n<span name='old-name'>x</span>\n";
        let scan = scan(src);
        let h: Vec<(&str, Vec<&str>, &str)> = scan.headings.iter().map(|h| (h.slug.as_str(), h.aliases.iter().map(String::as_str).collect(), h.text.as_str())).collect();
        assert_eq!(h[0], ("guide", vec![], "Guide"));
        // An explicit id names the heading; GitHub's slug of the text still reaches it.
        assert_eq!(h[1], ("setup-steps", vec!["setup", "setup-setup-steps"], "Setup"));
        // VitePress turns punctuation into `-`; GitHub drops it; Python-Markdown drops it too.
        assert_eq!(h[2], ("testeach", vec!["test-each"], "test.each"));
        // MkDocs' attribute list (CommonMark leaves it in the text): the id, and the text without it.
        assert_eq!(h[3], ("format_preview", vec!["preview", "preview--format_preview-"], "preview"));
        // GitHub keeps every dash; the site generators collapse the run.
        assert_eq!(h[4], ("a----b", vec!["a-b"], "A -- B"));
        assert_eq!(scan.html_ids, vec!["legacy".to_string(), "old-name".to_string()]);
    }

    #[test]
    fn headings_answer_to_markdown_it_attrs_with_vitepress_delimiters() {
        // pinia's translated docs: `%{#id}%` names the section (VitePress, `attrs` delimiters set).
        let src = "# 状态\n\n#### 可修改的 state %{#modifiable-state}%\n\n### 不使用 `setup()` %{#without-setup .x}%\n\n## Tips %{ not an id }%\n";
        let scan = scan(src);
        let h: Vec<(&str, Vec<&str>, &str)> = scan.headings.iter().map(|h| (h.slug.as_str(), h.aliases.iter().map(String::as_str).collect(), h.text.as_str())).collect();
        // GitHub shows the block as text: its slug of the whole line still reaches the heading.
        assert_eq!(h[1], ("modifiable-state", vec!["可修改的-state", "可修改的-state-modifiable-state"], "可修改的 state"));
        assert_eq!(h[2], ("without-setup", vec!["不使用-setup", "不使用-setup-without-setup-x"], "不使用 setup()"));
        // A block without `#id` names nothing; the text loses it all the same.
        assert_eq!(h[3], ("tips", vec!["tips--not-an-id-"], "Tips"));
        // A block CommonMark's heading attributes take without an id (mobx's docs): the
        // heading keeps its slug, and GitHub's slug of the whole line reaches it too.
        let emoji = super::scan("## Options {🚀}\n");
        assert_eq!((emoji.headings[0].slug.as_str(), emoji.headings[0].aliases.clone()), ("options", vec!["options-".to_string()]));
    }

    #[test]
    fn headings_named_by_react_dev_mdx_comments() {
        // react.dev: every heading ends with its id in an MDX comment.
        let src = "## Reference {/*reference*/}\n\n### `set` functions, like `setSomething(nextState)` {/*setstate*/}\n\n## Odd {/* two words */}\n";
        let scan = scan(src);
        let h: Vec<(&str, &str)> = scan.headings.iter().map(|h| (h.slug.as_str(), h.text.as_str())).collect();
        assert_eq!(h[0], ("reference", "Reference"));
        assert_eq!(h[1], ("setstate", "set functions, like setSomething(nextState)"));
        assert!(scan.headings[1].aliases.contains(&"set-functions-like-setsomethingnextstate".to_string()), "{:?}", scan.headings[1].aliases);
        assert_eq!(h[2].0, "odd", "a comment that is no id names nothing");
    }

    #[test]
    fn myst_targets_outside_code() {
        let src = "(syntax/frontmatter)=\n# Frontmatter\n\n```md\n(not-a-target)=\n```\n\n  (indented_target)=  \nText (not)= here\n(two words)=\n~~~~\n(x)=\n~~~~\n(after-fence)=\n";
        assert_eq!(myst_targets(src), ["syntax/frontmatter", "indented_target", "after-fence"]);
    }

    #[test]
    fn vitepress_includes_are_listed_as_written() {
        let src = "intro\n<!--@include: ./cli-generated.md-->\n<!--@include: ../parts/a.md{3,10}-->\n<!-- @include: x.md#region -->\n";
        assert_eq!(includes(src), vec!["./cli-generated.md", "../parts/a.md"]);
    }

    #[test]
    fn attribute_lists_outside_headings_and_api_pages() {
        assert_eq!(attribute_list_ids("* ***After*** validators\n{#field-after-validator}"), ["field-after-validator"]);
        assert_eq!(attribute_list_ids("{: #legacy .note data-x=1 }"), ["legacy"]);
        assert!(attribute_list_ids("a set {1, 2} and {@link Foo} and {x}").is_empty(), "brace groups that are no attribute list");
        let typed = scan("[](){#typeddict}\n\n```\n{#in-code}\n```\n");
        assert_eq!(typed.html_ids, ["typeddict"], "code blocks hold no ids");
        let defs = scan("See [a][used] and ![b][Img].\n\n[used]: a.md\n[img]: b.png\n[_]: _\n");
        assert_eq!(defs.unused_definitions.len(), 1, "labels match case-insensitively");
        assert_eq!(&"See [a][used] and ![b][Img].\n\n[used]: a.md\n[img]: b.png\n[_]: _\n"[defs.unused_definitions[0].clone()], "[_]: _");
        assert_eq!(api_directive_prefixes("::: pydantic.config\n    options: x\n  ::: pkg.mod_b\n::: not a name\n"), ["pydantic.config", "pkg.mod_b"]);
    }
}
