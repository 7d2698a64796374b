//! Normalised token streams and their fingerprints.
//!
//! The fingerprint of a declaration is computed from parser tokens, never from text or
//! line numbers (DESIGN 1.2). Layout is irrelevant by construction (tokens carry no
//! whitespace); the per-language [`TokenRules`] decide what else a formatter may change
//! without changing meaning: comments are dropped, string literals compared by value,
//! optional semicolons dropped, redundant parentheses dropped. Trailing commas (a comma
//! directly before a closing bracket) are dropped here for every language.

use crate::fingerprint::TokenHasher;
use crate::Fingerprint;
use tree_sitter::Node;

/// What to do with a node while walking a declaration's tokens.
pub(crate) enum NodeRule {
    /// Walk its children (or emit its text if it is a leaf).
    Descend,
    /// Contributes nothing (comments, optional semicolons).
    Skip,
    /// Contributes exactly this one token (string literal by value, normalised number).
    Emit(String),
    /// Walk its children except the first and last (redundant parentheses).
    DropDelimiters,
}

pub(crate) trait TokenRules {
    fn rule(&self, node: Node, src: &str) -> NodeRule;
}

/// One normalised token: a slice of the source, or an owned replacement (a string
/// literal by value, a normalised number), with the span of the node that produced it.
pub(crate) struct Tok {
    pub start: u32,
    pub end: u32,
    owned: Option<Box<str>>,
    verbatim: bool,
}

/// Leaves whose text is string content (whitespace significant) in the grammars knit
/// ships: `string_fragment`, Swift's `line_str_text`, `multi_line_str_text`, …
fn is_string_content(kind: &str) -> bool {
    kind.contains("str") || kind.contains("fragment") || kind.ends_with("_content")
}

impl Tok {
    fn text<'s>(&'s self, src: &'s str) -> &'s str {
        match &self.owned {
            Some(t) => t,
            None => {
                let raw = src.get(self.start as usize..self.end as usize).unwrap_or("");
                // Whitespace inside string content is the program's data, not layout.
                if self.verbatim {
                    raw
                } else {
                    raw.trim()
                }
            }
        }
    }
}

/// The normalised tokens of `root`, in order. The walk uses an explicit stack:
/// pathological nesting must not overflow the thread's stack.
pub(crate) fn collect_tokens(root: Node, src: &str, rules: &dyn TokenRules) -> Vec<Tok> {
    let mut out = Vec::new();
    let mut stack = vec![root];
    // One cursor for the whole walk: a cursor per node would allocate per node.
    let mut cursor = root.walk();
    let mut kids: Vec<Node> = Vec::new();
    while let Some(node) = stack.pop() {
        let rule = rules.rule(node, src);
        let drop_delimiters = matches!(rule, NodeRule::DropDelimiters);
        match rule {
            NodeRule::Skip => continue,
            NodeRule::Emit(tok) => {
                out.push(Tok { start: node.start_byte() as u32, end: node.end_byte() as u32, owned: Some(tok.into()), verbatim: true });
                continue;
            }
            NodeRule::Descend | NodeRule::DropDelimiters => {}
        }
        if node.child_count() == 0 {
            if node.is_missing() || drop_delimiters {
                continue;
            }
            let raw = src.get(node.byte_range()).unwrap_or("");
            // Only named leaves can be string content; anonymous ones are punctuation and
            // keywords (this test runs for every token).
            let verbatim = node.is_named() && is_string_content(node.kind());
            if !raw.trim().is_empty() || (verbatim && !raw.is_empty()) {
                out.push(Tok { start: node.start_byte() as u32, end: node.end_byte() as u32, owned: None, verbatim });
            }
            continue;
        }
        kids.clear();
        cursor.reset(node);
        if cursor.goto_first_child() {
            loop {
                kids.push(cursor.node());
                if !cursor.goto_next_sibling() {
                    break;
                }
            }
        }
        // Redundant parentheses: every child but the first and the last.
        let range = if drop_delimiters {
            if kids.len() < 2 {
                continue;
            }
            1..kids.len() - 1
        } else {
            0..kids.len()
        };
        stack.extend(kids[range].iter().rev().copied());
    }
    out
}

/// Token streams of a file, walked once per outermost declaration: nested
/// declarations and bodies take their tokens as sub-slices (by byte span) instead of
/// walking their subtree again. Emitted tokens depend only on a node's subtree and its
/// real parents, so a slice equals a fresh walk of the sub-node.
#[derive(Default)]
pub(crate) struct TokenStreams {
    streams: Vec<(u32, u32, Vec<Tok>)>,
}

impl TokenStreams {
    /// Tokens of `node`, from a covering stream or a new walk.
    pub(crate) fn of<'s>(&'s mut self, node: Node, src: &str, rules: &dyn TokenRules) -> &'s [Tok] {
        let (s, e) = (node.start_byte() as u32, node.end_byte() as u32);
        let idx = match self.streams.iter().position(|(a, b, _)| *a <= s && e <= *b) {
            Some(i) => i,
            None => {
                self.streams.push((s, e, collect_tokens(node, src, rules)));
                self.streams.len() - 1
            }
        };
        let toks = &self.streams[idx].2;
        let lo = toks.partition_point(|t| t.start < s);
        let hi = toks.partition_point(|t| t.start < e);
        let slice = &toks[lo..hi];
        let end = slice.iter().rposition(|t| t.end <= e).map_or(0, |p| p + 1);
        &slice[..end]
    }
}

/// Fingerprint of the tokens of `nodes` (in order), tokens inside `skip` excluded.
pub(crate) fn fingerprint_nodes(
    domain: &str,
    nodes: &[Node],
    src: &str,
    rules: &dyn TokenRules,
    skip: Option<std::ops::Range<usize>>,
    streams: &mut TokenStreams,
) -> (Fingerprint, u32) {
    let mut sink = TokenSink::new(domain);
    for node in nodes {
        for t in streams.of(*node, src, rules) {
            if let Some(r) = &skip {
                if t.start as usize >= r.start && t.end as usize <= r.end && t.end > t.start {
                    continue;
                }
            }
            sink.push(t.text(src));
        }
    }
    sink.finish()
}

/// Holds back a comma until the next token shows it is not a trailing one.
struct TokenSink {
    hasher: TokenHasher,
    pending_comma: bool,
}

impl TokenSink {
    fn new(domain: &str) -> Self {
        TokenSink { hasher: TokenHasher::new(domain), pending_comma: false }
    }

    fn push(&mut self, tok: &str) {
        if self.pending_comma {
            self.pending_comma = false;
            if !matches!(tok, ")" | "]" | "}" | ">") {
                self.hasher.push(",");
            }
        }
        if tok == "," {
            self.pending_comma = true;
        } else {
            self.hasher.push(tok);
        }
    }

    fn finish(mut self) -> (Fingerprint, u32) {
        if self.pending_comma {
            self.hasher.push(",");
        }
        (self.hasher.finish(), self.hasher.count)
    }
}

/// True for comment nodes of any grammar (`comment`, `line_comment`, `block_comment`,
/// `multiline_comment`, `html_comment`…).
pub(crate) fn is_comment(node: Node) -> bool {
    // Comments are "extra" nodes in every grammar knit ships; the flag is a cheap test
    // that spares a string search on every other node.
    node.is_extra() && node.kind().contains("comment")
}

/// Collapses runs of whitespace into one space and trims (JSX text, signatures).
pub(crate) fn collapse_ws(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut space = false;
    for c in s.chars() {
        if c.is_whitespace() {
            space = !out.is_empty();
        } else {
            if space {
                out.push(' ');
                space = false;
            }
            out.push(c);
        }
    }
    out
}

/// Decodes the common backslash escapes of C-family string literals, so that `'it\'s'`
/// and `"it's"` compare equal.
pub(crate) fn unescape(raw: &str) -> String {
    let mut out = String::with_capacity(raw.len());
    let mut chars = raw.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some('r') => out.push('\r'),
            Some('0') => out.push('\0'),
            Some('b') => out.push('\u{8}'),
            Some('f') => out.push('\u{c}'),
            Some('v') => out.push('\u{b}'),
            Some('u') => {
                let mut hex = String::new();
                if chars.peek() == Some(&'{') {
                    chars.next();
                    for h in chars.by_ref() {
                        if h == '}' {
                            break;
                        }
                        hex.push(h);
                    }
                } else {
                    for _ in 0..4 {
                        if let Some(h) = chars.next() {
                            hex.push(h);
                        }
                    }
                }
                match u32::from_str_radix(&hex, 16).ok().and_then(char::from_u32) {
                    Some(ch) => out.push(ch),
                    None => {
                        out.push_str("\\u");
                        out.push_str(&hex);
                    }
                }
            }
            Some('\n') => {}
            Some(other) => out.push(other),
            None => out.push('\\'),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unescape_quotes_and_unicode() {
        assert_eq!(unescape(r"it\'s"), "it's");
        assert_eq!(unescape(r"a\u0041\u{42}"), "aAB");
        assert_eq!(collapse_ws("  a \n  b  "), "a b");
    }
}
