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

/// Feeds the normalised tokens of `nodes` (in order) to a fingerprint. The walk uses an
/// explicit stack: pathological nesting must not overflow the thread's stack.
pub(crate) fn fingerprint_nodes(
    domain: &str,
    nodes: &[Node],
    src: &str,
    rules: &dyn TokenRules,
    skip: Option<std::ops::Range<usize>>,
) -> (Fingerprint, u32) {
    let mut sink = TokenSink::new(domain);
    for node in nodes {
        walk(*node, src, rules, &mut sink, skip.clone());
    }
    sink.finish()
}

fn walk(root: Node, src: &str, rules: &dyn TokenRules, sink: &mut TokenSink, skip: Option<std::ops::Range<usize>>) {
    let mut stack = vec![root];
    while let Some(node) = stack.pop() {
        if let Some(r) = &skip {
            // The name of the declaration is excluded from name-independent prints.
            if node.start_byte() >= r.start && node.end_byte() <= r.end && node.end_byte() > node.start_byte() {
                continue;
            }
        }
        match rules.rule(node, src) {
            NodeRule::Skip => {}
            NodeRule::Emit(tok) => sink.push(&tok),
            NodeRule::DropDelimiters => {
                // `Node::child(i)` walks siblings from the start; a cursor is linear.
                let kids: Vec<Node> = node.children(&mut node.walk()).collect();
                if kids.len() >= 2 {
                    stack.extend(kids[1..kids.len() - 1].iter().rev().copied());
                }
            }
            NodeRule::Descend => {
                if node.child_count() == 0 {
                    if node.is_missing() {
                        continue;
                    }
                    let text = src.get(node.byte_range()).unwrap_or("");
                    let text = text.trim();
                    if !text.is_empty() {
                        sink.push(text);
                    }
                } else {
                    let kids: Vec<Node> = node.children(&mut node.walk()).collect();
                    stack.extend(kids.into_iter().rev());
                }
            }
        }
    }
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
    node.kind().contains("comment")
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
