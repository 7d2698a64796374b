//! What a document says about itself and where it points: title, summary, and the link
//! destinations (with their line) that become `references` / `documents` relations.
//!
//! Links are not parsed here: [`link_refs`] reads the pointers of the anchor engine's one
//! Markdown scan ([`knit_anchors::markdown::scan`]), so both engines read a doc's links
//! alike and code fences never yield links. They are links and images of every style,
//! reference definitions, and inline code spans that name a path — the `src/x.ts` /
//! `docs/y.md:12` style common in AGENTS.md — which only count when they resolve to a real
//! workspace file (see relations.rs).

use knit_anchors::markdown::{DocScan, PointerKind};
use serde::{Deserialize, Serialize};

/// Title/summary of a prose file and the lines they sit on.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DocHead {
    pub title: String,
    pub summary: String,
    /// 1-based last line of the head (title + summary paragraph); 0 when there is none.
    pub head_end_line: u32,
}

/// A link destination as written, with the 1-based line of the link.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LinkRef {
    #[serde(rename = "d")]
    pub destination: String,
    #[serde(rename = "l")]
    pub line: u32,
    /// True when the path came from an inline code span rather than a link.
    #[serde(rename = "c", default, skip_serializing_if = "std::ops::Not::not")]
    pub from_code_span: bool,
}

const SUMMARY_MAX_CHARS: usize = 160;

/// Removes inline Markdown decoration from a single line of prose. Linear in the line:
/// the position of the next `)` is remembered, so a line of many `](` without a closing
/// parenthesis is not rescanned once per `](`.
pub fn strip_inline_markup(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let chars: Vec<char> = line.chars().collect();
    // The next `)` at or after the cached position (None = no `)` at all from there on).
    let mut next_close: Option<Option<usize>> = None;
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        match c {
            '*' | '_' | '`' | '~' => {}
            '!' if chars.get(i + 1) == Some(&'[') => {}
            '[' => {}
            ']' => {
                // drop a following `(dest)` of an inline link, keep the link text
                if chars.get(i + 1) == Some(&'(') {
                    let close = match next_close {
                        Some(Some(at)) if at > i + 1 => Some(at),
                        Some(None) => None,
                        _ => {
                            let found = chars[i + 2..].iter().position(|&ch| ch == ')').map(|p| p + i + 2);
                            next_close = Some(found);
                            found
                        }
                    };
                    if let Some(at) = close {
                        i = at + 1;
                        continue;
                    }
                }
            }
            _ => out.push(c),
        }
        i += 1;
    }
    out.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn truncate_chars(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_string();
    }
    let mut out: String = text.chars().take(max.saturating_sub(1)).collect();
    out.push('…');
    out
}

fn is_fence(line: &str) -> bool {
    let t = line.trim_start();
    t.starts_with("```") || t.starts_with("~~~")
}

fn is_atx_heading(line: &str) -> Option<(usize, &str)> {
    let t = line.trim_start();
    let level = t.chars().take_while(|&c| c == '#').count();
    if (1..=6).contains(&level) {
        let rest = &t[level..];
        if rest.is_empty() || rest.starts_with(' ') || rest.starts_with('\t') {
            return Some((level, rest.trim().trim_end_matches('#').trim()));
        }
    }
    None
}

fn is_summary_candidate(line: &str) -> bool {
    let t = line.trim();
    if t.is_empty() {
        return false;
    }
    let structural = ["#", ">", "|", "<", "- ", "* ", "+ ", "---", "***", "___", "===", "[!", "!["];
    if structural.iter().any(|p| t.starts_with(p)) {
        return false;
    }
    // numbered list items
    let digits = t.chars().take_while(|c| c.is_ascii_digit()).count();
    if digits > 0 && t[digits..].starts_with(". ") {
        return false;
    }
    // a reference definition `[x]: dest` is not prose
    !(t.starts_with('[') && t.contains("]:"))
}

/// Title (first H1 outside fences and front matter, else the file stem) and summary (first
/// prose paragraph, markup removed, ≤ 160 chars) of a Markdown or plain-text document.
pub fn doc_head(text: &str, file_stem: &str) -> DocHead {
    let lines: Vec<&str> = text.lines().collect();
    let mut index = 0;
    // YAML front matter
    if lines.first().is_some_and(|l| l.trim() == "---") {
        if let Some(end) = lines.iter().skip(1).position(|l| l.trim() == "---" || l.trim() == "...") {
            index = end + 2;
        }
    }
    let mut title: Option<String> = None;
    let mut head_end = 0u32;
    let mut summary: Option<String> = None;
    let mut in_fence = false;
    while index < lines.len() {
        let line = lines[index];
        if is_fence(line) {
            in_fence = !in_fence;
            index += 1;
            continue;
        }
        if in_fence {
            index += 1;
            continue;
        }
        if title.is_none() {
            if let Some((1, heading)) = is_atx_heading(line) {
                title = Some(strip_inline_markup(heading));
                head_end = index as u32 + 1;
                index += 1;
                continue;
            }
            // setext H1: a text line underlined with ===
            if lines.get(index + 1).is_some_and(|next| next.trim().starts_with("===") && next.trim().chars().all(|c| c == '=')) && !line.trim().is_empty() {
                title = Some(strip_inline_markup(line.trim()));
                head_end = index as u32 + 2;
                index += 2;
                continue;
            }
        }
        if summary.is_none() && is_summary_candidate(line) {
            // the whole paragraph, joined, is the summary
            let mut paragraph = Vec::new();
            let mut j = index;
            while j < lines.len() && !lines[j].trim().is_empty() && is_summary_candidate(lines[j]) {
                paragraph.push(lines[j].trim());
                j += 1;
            }
            summary = Some(truncate_chars(&strip_inline_markup(&paragraph.join(" ")), SUMMARY_MAX_CHARS));
            head_end = j as u32;
            break;
        }
        if summary.is_none() && is_atx_heading(line).is_some() && title.is_some() {
            // a section starts before any prose: no summary paragraph
            break;
        }
        index += 1;
    }
    let title = title.filter(|t| !t.is_empty()).unwrap_or_else(|| file_stem.to_string());
    DocHead { title, summary: summary.unwrap_or_default(), head_end_line: head_end }
}

/// Title/summary for code: the file name, and the first line that reads as prose of the
/// comment that describes the file — a header comment before any code (`//!`, a leading
/// block comment, a module docstring), else the doc comment of the first top-level
/// declaration. Comments inside bodies describe a line, not the file, and license or
/// tool blocks describe nothing a reader wants, so neither is a summary.
pub fn code_head(text: &str, file_name: &str) -> DocHead {
    let summary = comment_blocks(text, CODE_HEAD_LINES)
        .into_iter()
        .filter(|b| (b.before_code || b.heads_declaration) && !b.is_boilerplate())
        .find_map(|b| b.prose_line())
        .map(|line| truncate_chars(&strip_inline_markup(&line), SUMMARY_MAX_CHARS))
        .unwrap_or_default();
    DocHead { title: file_name.to_string(), summary, head_end_line: 0 }
}

/// How far into a code file its summary is looked for (imports can be long).
const CODE_HEAD_LINES: usize = 200;

/// A run of comment lines (or one docstring), with where it stands.
struct CommentBlock {
    /// The lines' text without their comment markers.
    lines: Vec<String>,
    /// No code line comes before it.
    before_code: bool,
    /// It starts in the first column and the next code line (attributes skipped) is a
    /// top-level declaration, as the index's keyword scan reads declarations.
    heads_declaration: bool,
}

impl CommentBlock {
    /// A license, copyright or tool block (`eslint`, `swiftlint`, an encoding line …).
    fn is_boilerplate(&self) -> bool {
        const MARKERS: [&str; 12] = [
            "copyright",
            "license",
            "licence",
            "spdx",
            "all rights reserved",
            "this source file is part of",
            "eslint",
            "prettier-ignore",
            "swiftlint",
            "@ts-",
            "-*-",
            "do not edit",
        ];
        self.lines.iter().any(|l| {
            let l = l.to_lowercase();
            MARKERS.iter().any(|m| l.contains(m))
        })
    }

    /// The first line with at least 8 letters that is not a tag (`@param`), a directive
    /// or code commented out (ending as a statement or a block does), without the rule
    /// of dashes a section comment may end with.
    fn prose_line(&self) -> Option<String> {
        self.lines
            .iter()
            .map(|l| l.trim().trim_end_matches(['-', '=', '*', '#', ' ']))
            .find(|l| {
                l.chars().filter(|c| c.is_alphabetic()).count() >= 8
                    && !l.starts_with(['!', '@'])
                    && !l.ends_with([';', '{', '}', '(', ')', ',', '='])
            })
            .map(str::to_string)
    }
}

fn indented(line: &str) -> bool {
    line.starts_with([' ', '\t'])
}

/// The comment blocks among the first `max_lines` lines of a code file, in order.
fn comment_blocks(text: &str, max_lines: usize) -> Vec<CommentBlock> {
    const LINE_MARKERS: [&str; 5] = ["///", "//!", "//", "#", "--"];
    let lines: Vec<&str> = text.lines().take(max_lines).collect();
    let mut blocks: Vec<CommentBlock> = Vec::new();
    let mut seen_code = false;
    let mut i = 0;
    while i < lines.len() {
        let raw = lines[i];
        let t = raw.trim();
        if t.is_empty() || is_attribute(t) || (i == 0 && t.starts_with("#!")) {
            i += 1;
            continue;
        }
        let mut body: Vec<String> = Vec::new();
        if let Some(quote) = ["\"\"\"", "'''"].into_iter().find(|q| t.starts_with(q)) {
            // A docstring: only the module's own (before any code) speaks for the file;
            // a later one belongs to the declaration above it, inside its body.
            let mut rest = &t[3..];
            loop {
                let closed = rest.find(quote);
                body.push(closed.map_or(rest, |c| &rest[..c]).trim().to_string());
                i += 1;
                if closed.is_some() || i >= lines.len() {
                    break;
                }
                rest = lines[i].trim();
            }
            if !seen_code {
                blocks.push(CommentBlock { lines: body, before_code: true, heads_declaration: false });
            }
            seen_code = true;
            continue;
        }
        if t.starts_with("/*") {
            let mut rest = t.trim_start_matches("/*").trim_start_matches(['*', '!']);
            loop {
                let closed = rest.find("*/");
                body.push(closed.map_or(rest, |c| &rest[..c]).trim().trim_start_matches('*').trim().to_string());
                i += 1;
                if closed.is_some() || i >= lines.len() {
                    break;
                }
                rest = lines[i].trim();
            }
        } else if t.starts_with("//") || t.starts_with('#') || t.starts_with("--") {
            while let Some(rest) = lines.get(i).and_then(|l| {
                let l = l.trim();
                (!is_attribute(l)).then(|| LINE_MARKERS.iter().find_map(|m| l.strip_prefix(m))).flatten()
            }) {
                body.push(rest.trim().to_string());
                i += 1;
            }
        } else {
            seen_code = true;
            i += 1;
            continue;
        }
        let next_code = lines[i..].iter().map(|l| (*l, l.trim())).find(|(_, t)| !t.is_empty() && !is_attribute(t));
        let heads_declaration = !indented(raw) && next_code.is_some_and(|(l, _)| !indented(l) && crate::symbols::declaration_on_line(l).is_some());
        blocks.push(CommentBlock { lines: body, before_code: !seen_code, heads_declaration });
    }
    blocks
}

/// An attribute, decorator or directive line, not a comment (`#[derive(..)]`,
/// `@available(..)`, `@Component`, `#if DEBUG`, `#include`): skipped between a doc comment
/// and its declaration.
fn is_attribute(line: &str) -> bool {
    let after = |c: char| line.strip_prefix(c).is_some_and(|rest| rest.starts_with(|d: char| d.is_alphabetic() || d == '[' || d == '!'));
    after('@') || (after('#') && !line.starts_with("#!/"))
}

/// Every link destination and path-like code span of a Markdown document, with lines, from
/// its scan. Capped at 2000 to bound pathological documents: links, images and code spans
/// first, in source order, then the reference definitions not already seen on their line.
/// Sorted by line.
pub fn link_refs(scan: &DocScan) -> Vec<LinkRef> {
    const MAX_LINKS: usize = 2000;
    let (definitions, uses): (Vec<_>, Vec<_>) = scan.pointers.iter().partition(|p| p.kind == PointerKind::Definition);
    let mut out: Vec<LinkRef> = uses
        .into_iter()
        .take(MAX_LINKS)
        .map(|p| LinkRef { destination: p.dest.clone(), line: p.line, from_code_span: p.kind == PointerKind::CodePath })
        .collect();
    let mut seen: std::collections::HashSet<(String, u32)> = out.iter().map(|l| (l.destination.clone(), l.line)).collect();
    for definition in definitions {
        if out.len() >= MAX_LINKS {
            break;
        }
        if seen.insert((definition.dest.clone(), definition.line)) {
            out.push(LinkRef { destination: definition.dest.clone(), line: definition.line, from_code_span: false });
        }
    }
    out.sort_by_key(|l| l.line);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stripping_is_linear_and_keeps_link_text() {
        assert_eq!(strip_inline_markup("see [the *guide*](docs/a.md) and `x`"), "see the guide and x");
        assert_eq!(strip_inline_markup("a](b](c)d"), "ad");
        assert_eq!(strip_inline_markup("[x](y"), "x(y");
        // 200 000 `](` without a `)`: one scan, not one per `](` (this took seconds).
        let line = "a](".repeat(200_000);
        assert_eq!(strip_inline_markup(&line).len(), 2 * 200_000);
    }

    /// The summary a code file gets, through `code_head`.
    fn summary(text: &str) -> String {
        code_head(text, "f").summary
    }

    #[test]
    fn a_code_summary_is_the_file_header_or_the_first_top_level_doc_comment() {
        // License blocks are passed over; the next header comment speaks for the file.
        let ts = "/**\n * @license\n * Copyright Example Corp. All rights reserved.\n */\n\n/** Parses the widget grammar into trees. */\nexport function parse() {}\n";
        assert_eq!(summary(ts), "Parses the widget grammar into trees.");
        let swift = "//===----===//\n//\n// This source file is part of the Swift Collections open source project\n//\n// Licensed under Apache License v2.0\n//===----===//\n\n/// An ordered collection of unique elements.\n@frozen\npublic struct OrderedSet {}\n";
        assert_eq!(summary(swift), "An ordered collection of unique elements.");
        // "generated by" in prose is not a generated-file banner; a section rule is trimmed.
        assert_eq!(summary("/**\n * Patch flags are optimization hints generated by the compiler.\n */\nexport enum PatchFlags {}\n"), "Patch flags are optimization hints generated by the compiler.");
        assert_eq!(summary("// Public API ------------------------------------\nexport function api() {}\n"), "Public API");
        assert_eq!(summary("//! The anchor engine's ladder.\nuse std::fmt;\n"), "The anchor engine's ladder.");
        assert_eq!(summary("use a;\n\n/// Keeps the focused files' names.\n#[derive(Debug)]\npub struct Keeper;\n"), "Keeps the focused files' names.");
        assert_eq!(summary("#!/usr/bin/env python\n\"\"\"\nHTTP client models.\n\nMore here.\n\"\"\"\nimport os\n"), "HTTP client models.");
        assert_eq!(summary("'''Command-line entry points.'''\n"), "Command-line entry points.");
    }

    #[test]
    fn comments_inside_bodies_and_directives_are_not_code_summaries() {
        // An enum member's doc comment (indented) describes the member, not the file.
        let ts = "import { a } from './a'\n\nexport enum Flags {\n  /**\n   * Indicates whether the effect is allowed to recurse\n   */\n  A = 1,\n}\n";
        assert_eq!(summary(ts), "");
        // A docstring after code belongs to its function.
        assert_eq!(summary("import os\n\ndef f():\n    \"\"\"Does a thing that matters.\"\"\"\n"), "");
        // A top-level comment before a statement or a closing brace documents no declaration.
        assert_eq!(summary("import a from 'a'\n\n// wire the handlers up before the server starts\napp.listen(3000)\n"), "");
        assert_eq!(summary("const a = 1\n// remember to update the counters later\n}\n"), "");
        assert_eq!(summary("#include <stdio.h>\n#define LIMIT 10\nint main() {}\n"), "");
        assert_eq!(summary("// eslint-disable-next-line no-console, no-alert\nconsole.log(1)\n"), "");
        assert_eq!(summary("// Code generated by protoc-gen-go. DO NOT EDIT.\npackage pb\n"), "");
        assert_eq!(summary("// console.log(schema.parse(data));\nconst schema = 1\n"), "");
    }

    #[test]
    fn head_skips_front_matter_and_fences() {
        let text = "---\ntitle: x\n---\n```\n# not a title\n```\n# Real *Title*\n\nFirst **prose** line\ncontinues [here](a.md).\n\n## Next\n";
        let head = doc_head(text, "file");
        assert_eq!(head.title, "Real Title");
        assert_eq!(head.summary, "First prose line continues here.");
        assert_eq!(head.head_end_line, 10);
    }

    #[test]
    fn head_falls_back_to_stem() {
        let head = doc_head("- a list\n", "notes");
        assert_eq!(head.title, "notes");
        assert_eq!(head.summary, "");
    }

    #[test]
    fn links_carry_lines_and_ignore_fences() {
        let text = "# T\n\nSee [r](../src/r.ts#Resolver.run) and `docs/x.md`.\n\n```\n[no](y.md)\n```\n[ref]: other.md\n";
        let links = link_refs(&knit_anchors::markdown::scan(text));
        let found: Vec<(&str, u32, bool)> = links.iter().map(|l| (l.destination.as_str(), l.line, l.from_code_span)).collect();
        assert!(found.contains(&("../src/r.ts#Resolver.run", 3, false)), "{found:?}");
        assert!(found.contains(&("docs/x.md", 3, true)), "{found:?}");
        assert!(found.contains(&("other.md", 8, false)), "{found:?}");
        assert!(!found.iter().any(|f| f.0 == "y.md"), "{found:?}");
    }

    #[test]
    fn links_are_read_as_the_anchor_engine_reads_them() {
        // GitHub-flavoured: a footnote is not a reference definition, and a table cell's
        // `\|` is a pipe
        let text = "Text[^1].\n\n[^1]: docs/a.md\n\n| a |\n|---|\n| `src/a\\|b.ts` |\n";
        let links = link_refs(&knit_anchors::markdown::scan(text));
        assert_eq!(links, vec![LinkRef { destination: "src/a|b.ts".into(), line: 7, from_code_span: true }]);
    }
}
