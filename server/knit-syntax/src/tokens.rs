//! Normalised token streams and their fingerprints.
//!
//! The fingerprint of a declaration is computed from parser tokens, never from text or
//! line numbers (DESIGN 1.2). Layout is irrelevant by construction (tokens carry no
//! whitespace); the per-language [`TokenRules`] decide what else a formatter may change
//! without changing meaning: comments are dropped, string literals compared by value,
//! optional semicolons dropped, redundant parentheses dropped. Trailing commas (a comma
//! directly before a closing bracket) are dropped here for every language.
//!
//! Cost is linear in the file: one walk of the whole tree by one tree cursor (no
//! recursion, so no nesting overflows the thread's stack) gives every rule its context — ancestors,
//! position, next sibling — in O(1), and produces the file's token bytes once; each
//! declaration's print then hashes a byte range of them.

use crate::fingerprint::TokenHasher;
use crate::Fingerprint;
use std::ops::Range;
use std::time::Instant;
use tree_sitter::{Node, TreeCursor};

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

/// A node's ancestor as the walk saw it.
#[derive(Clone, Copy)]
pub(crate) struct Ancestor<'t> {
    pub node: Node<'t>,
    /// Its kind (as [`At::kind`]).
    pub kind: &'static str,
    /// The language's `leads` flag of this ancestor.
    pub leads: bool,
    /// Its rule was [`NodeRule::DropDelimiters`].
    pub dropped: bool,
}

/// Where a node sits, as the walk knows it. Rules read their context from here, never
/// from `Node::parent()` or the sibling accessors: tree-sitter answers those by walking
/// down from the root (O(depth × siblings) per call), which made nested parentheses
/// quadratic.
pub(crate) struct At<'a, 't> {
    /// Ancestors, the root first and the parent last.
    ancestors: &'a [Ancestor<'t>],
    /// The node's kind (`Node::kind`, read from the [`KindTable`]).
    pub kind: &'static str,
    /// Position among the parent's children (anonymous children and comments counted).
    pub index: usize,
    /// The next sibling that is not a comment (only for rules that ask for it, see
    /// [`TokenRules::wants_next`]).
    pub next: Option<Node<'t>>,
    /// The language's `leads` flag of this node (see [`TokenRules::leads`]).
    pub leads: bool,
}

impl<'t> At<'_, 't> {
    /// The `n`-th ancestor: 1 is the parent, 2 the grandparent.
    pub fn ancestor(&self, n: usize) -> Option<&Ancestor<'t>> {
        self.ancestors.len().checked_sub(n).map(|i| &self.ancestors[i])
    }

    pub fn parent_node(&self) -> Option<Node<'t>> {
        self.ancestor(1).map(|a| a.node)
    }

    pub fn parent_kind(&self) -> &'static str {
        self.ancestor(1).map_or("", |a| a.kind)
    }

    /// The node is its parent's first child (`prev_sibling()` is none).
    pub fn is_first(&self) -> bool {
        self.index == 0
    }
}

pub(crate) trait TokenRules {
    /// What `node` contributes. Comments never reach it: the walk drops them for every
    /// language.
    fn rule(&self, node: Node, at: &At, src: &str) -> NodeRule;

    /// Every node kind for which [`rule`](Self::rule) may answer anything but
    /// [`NodeRule::Descend`]; `None` (the default) when the answer can depend on more
    /// than the kind, so every node is asked. The walk asks the rule only for these kinds
    /// (a call per node, most of them answered `Descend`, was a fifth of the walk).
    fn rule_kinds(&self) -> Option<&'static [&'static str]> {
        None
    }

    /// A flag every node inherits down the walk, computed from the node's place (its
    /// parent's flag is `at.ancestor(1).leads`). Python and Kotlin mark the first token
    /// of every statement with it; other languages have no use for it.
    fn leads(&self, _node: Node, _at: &At) -> bool {
        false
    }

    /// Whether rules read [`At::next`] (Python's `:` counts the statements of the block
    /// after it). Others spare the walk a sibling per pending node.
    fn wants_next(&self) -> bool {
        false
    }

    /// The one token a string literal inside an excised span stands for (`quoted` with its
    /// delimiters), as this language's [`rule`](Self::rule) prints a string the grammar
    /// read; `None` (the default) hashes it character by character like any other
    /// phantom text. A language whose repairs can hide strings returns its string token
    /// here, so a quote-style change by a formatter is no change of the print.
    fn phantom_string(&self, _quoted: &str) -> Option<String> {
        None
    }

    /// Whether a phantom token is one this language's [`rule`](Self::rule) never hashes
    /// (TypeScript's `;`, which it skips wherever the grammar reads one).
    fn phantom_skips(&self, _token: &str) -> bool {
        false
    }
}

/// Leaves whose text is string content (whitespace significant) in the grammars knit
/// ships: `string_fragment`, Swift's `line_str_text`, `multi_line_str_text`, …
fn is_string_content(kind: &str) -> bool {
    kind.contains("str") || kind.contains("fragment") || kind.ends_with("_content")
}

/// What the token walk needs of each node kind of one grammar, by kind id, so that no
/// node's kind name is read from tree-sitter (a C string measured and checked as UTF-8
/// every time, a quarter of the walk's time when every node was asked): the name, whether
/// the rule is asked ([`TokenRules::rule_kinds`]), whether the kind is a comment and
/// whether a named leaf of it is string content. Ids outside the table (the error
/// symbol) take the slow path, by name.
pub(crate) struct KindTable {
    kinds: Box<[(&'static str, u8)]>,
}

const ASK_RULE: u8 = 1;
const STRING_CONTENT: u8 = 2;
const COMMENT: u8 = 4;

/// The facts of a kind named `name` (`ask`: the rule is asked about it).
fn kind_flags(name: &str, ask: bool) -> u8 {
    (if ask { ASK_RULE } else { 0 })
        | (if is_string_content(name) { STRING_CONTENT } else { 0 })
        | (if name.contains("comment") { COMMENT } else { 0 })
}

/// A node's kind as the walk reads it from the [`KindTable`].
struct KindFacts {
    name: &'static str,
    ask_rule: bool,
    /// A comment: an extra node (every grammar knit ships makes comments extras) whose
    /// kind name says so (`comment`, `line_comment`, `block_comment`, …).
    comment: bool,
    string_content: bool,
}

impl KindTable {
    /// The table of `language`'s kinds for rules that ask about `rule_kinds` (None: every
    /// kind is asked).
    pub(crate) fn new(language: &tree_sitter::Language, rule_kinds: Option<&[&str]>) -> Self {
        let kinds = (0..language.node_kind_count())
            .map(|id| {
                let name = language.node_kind_for_id(id as u16).unwrap_or("");
                (name, kind_flags(name, rule_kinds.is_none_or(|kinds| kinds.contains(&name))))
            })
            .collect();
        KindTable { kinds }
    }

    /// The name and comment flag the walk reads for `node`.
    #[cfg(test)]
    pub(crate) fn facts_for_tests(&self, node: Node) -> (&'static str, bool) {
        let f = self.facts(node);
        (f.name, f.comment)
    }

    fn facts(&self, node: Node) -> KindFacts {
        let (name, flags) = match self.kinds.get(node.kind_id() as usize) {
            Some(&(name, flags)) => (name, flags),
            None => {
                let name = node.kind();
                (name, kind_flags(name, true))
            }
        };
        KindFacts {
            name,
            ask_rule: flags & ASK_RULE != 0,
            comment: flags & COMMENT != 0 && node.is_extra(),
            string_content: flags & STRING_CONTENT != 0,
        }
    }
}

/// Work done by one parse and the deadline it runs under. Every loop of the extraction
/// ticks it, so the deadline is seen inside a file, and the counts let tests check that
/// cost grows linearly with the input without timing anything.
#[derive(Default)]
pub(crate) struct Clock {
    deadline: Option<Instant>,
    /// Units of work: nodes visited, tokens hashed, declarations examined.
    pub steps: u64,
    /// Calls of [`TokenRules::rule`].
    pub rule_calls: u64,
    next_check: u64,
    expired: bool,
}

/// Units of work between two looks at the clock (`Instant::now` costs ~25 ns).
const CLOCK_EVERY: u64 = 4096;

impl Clock {
    pub fn new(deadline: Option<Instant>) -> Self {
        Clock { deadline, next_check: CLOCK_EVERY, ..Default::default() }
    }

    /// Counts `n` units of work; true once the deadline has passed.
    pub fn tick(&mut self, n: u64) -> bool {
        self.steps += n;
        if self.steps >= self.next_check {
            self.next_check = self.steps + CLOCK_EVERY;
            if let Some(d) = self.deadline {
                self.expired = self.expired || Instant::now() >= d;
            }
        }
        self.expired
    }

    pub fn expired(&self) -> bool {
        self.expired
    }
}

/// A node the walk has entered: which of its children it visits, and where it is among
/// them. One per ancestor, so a deep nest costs one small frame per level.
struct Frame {
    /// Index of the child the cursor is on (anonymous children and comments counted).
    index: u32,
    /// The node's child count.
    count: u32,
    /// Children from this index on are not visited (the closing delimiter of redundant
    /// parentheses; the count otherwise).
    end: u32,
    /// Redundant parentheses: a comma right before the closing delimiter is dropped too.
    dropped: bool,
    /// Where this node's children's next siblings start in the walk's `nexts` (only for
    /// rules that read them).
    nexts: u32,
}

impl Frame {
    /// Whether the child the cursor is on (`node`, at `self.index`) is walked.
    fn visits(&self, node: Node) -> bool {
        let i = self.index;
        // `return (a, b,)` is `return a, b`: the comma before the closing delimiter goes
        // with it. Only an anonymous `,` (a named node may be called so in some grammar).
        i < self.end && !(self.dropped && self.count >= 3 && i + 2 == self.count && node.kind() == "," && !node.is_named())
    }
}

/// The walk of a file's tree that produces its tokens. It is resumable between the
/// root's children, so a file's stream is built only as far as the declarations asked of
/// it reach, and it passes over top-level code no declaration holds (a test file's
/// `describe` blocks, a script's statements, imports): a print reads only the tokens
/// inside its nodes, which are the same whether the code before them was walked or not.
///
/// One tree cursor walks the whole tree (no recursion, so pathological nesting cannot
/// overflow the thread's stack; no allocation per node), and the walk keeps the ancestors
/// of the current node, which is how rules learn their context in O(1).
struct Walk<'t> {
    cursor: TreeCursor<'t>,
    /// Only for rules that read the next sibling.
    sibling_cursor: Option<TreeCursor<'t>>,
    /// The nodes entered, the root first: `frames.len() == 1` when the cursor is on one
    /// of the root's children.
    frames: Vec<Frame>,
    ancestors: Vec<Ancestor<'t>>,
    /// For rules that read the next sibling: each entered node's children's next
    /// non-comment siblings, a block per frame.
    nexts: Vec<Option<Node<'t>>>,
    /// The next span hidden by a repair to emit (see [`Phantoms`]).
    phantom: usize,
    out: FileTokens,
    /// The node the cursor is on, not yet visited; None once the walk is over.
    pending: Option<Node<'t>>,
    /// The root's children passed over all end by this byte.
    skipped_until: usize,
    /// Passes nothing over: a print asked for code before what was passed over (never
    /// seen with declarations reported in file order, but the stream stays exact).
    full: bool,
    /// The walk is over and the stream closed.
    finished: bool,
}

impl<'t> Walk<'t> {
    fn new(root: Node<'t>, source_bytes: usize, wants_next: bool, full: bool) -> Self {
        Walk {
            cursor: root.walk(),
            sibling_cursor: if wants_next { Some(root.walk()) } else { None },
            frames: Vec::new(),
            ancestors: Vec::new(),
            nexts: Vec::new(),
            phantom: 0,
            out: FileTokens::with_capacity(source_bytes),
            pending: Some(root),
            skipped_until: 0,
            full,
            finished: false,
        }
    }

    /// Walks on until the tokens of every byte in `start..end` are in the stream: the
    /// root's children that end by `start` are passed over (unless the walk is `full`),
    /// the ones reaching into the range are walked whole, and the walk stops before the
    /// first one starting at `end` or later. False when the deadline passed first.
    #[allow(clippy::too_many_arguments)]
    fn cover(&mut self, start: usize, end: usize, src: &str, rules: &dyn TokenRules, kinds: &KindTable, excised: &[Range<usize>], clock: &mut Clock) -> bool {
        while let Some(node) = self.pending {
            if self.frames.len() == 1 && node.start_byte() >= end {
                return true;
            }
            // Passing a node over is a step too: a file of a million top-level statements
            // is bounded by the deadline like any other walk.
            if clock.tick(1) {
                return false;
            }
            if self.frames.len() == 1 && !self.full && node.end_byte() <= start {
                self.skipped_until = self.skipped_until.max(node.end_byte());
                self.advance();
                continue;
            }
            if !self.visit(node, src, rules, kinds, excised, clock) {
                self.advance();
            }
        }
        if !self.finished {
            // The end of the file: hidden spans after the last node, and a comma ending
            // the file is kept.
            self.finished = true;
            let mut phantoms = Phantoms { spans: excised, next: self.phantom };
            phantoms.flush_before(usize::MAX, src, rules, &mut self.out);
            self.phantom = phantoms.next;
            self.out.finish();
        }
        true
    }

    /// Visits `node` (the cursor is on it): emits its token, or enters it. True when it
    /// was entered: the cursor is then on its first walked child, which is pending.
    fn visit(&mut self, node: Node<'t>, src: &str, rules: &dyn TokenRules, kinds: &KindTable, excised: &[Range<usize>], clock: &mut Clock) -> bool {
        let facts = kinds.facts(node);
        if facts.comment {
            return false;
        }
        let (index, next) = match self.frames.last() {
            Some(f) => (f.index as usize, if self.sibling_cursor.is_some() { self.nexts[(f.nexts + f.index) as usize] } else { None }),
            None => (0, None),
        };
        let mut at = At { ancestors: &self.ancestors, kind: facts.name, index, next, leads: false };
        at.leads = rules.leads(node, &at);
        let rule = if facts.ask_rule {
            clock.rule_calls += 1;
            rules.rule(node, &at, src)
        } else {
            // Tests and debug builds hold every language's `rule_kinds` to its `rule`.
            debug_assert!(
                matches!(rules.rule(node, &at, src), NodeRule::Descend),
                "`{}` is not in rule_kinds, yet its rule is not Descend",
                node.kind()
            );
            NodeRule::Descend
        };
        let leads = at.leads;
        let dropped = matches!(rule, NodeRule::DropDelimiters);
        // Spans a grammar-gap repair hid from the parser (sorted, disjoint): their tokens
        // are hashed where they stand, as a grammar that read them would have.
        let mut phantoms = Phantoms { spans: excised, next: self.phantom };
        let entered = 'visit: {
            match rule {
                NodeRule::Skip => break 'visit false,
                NodeRule::Emit(tok) => {
                    phantoms.flush_before(node.start_byte(), src, rules, &mut self.out);
                    self.out.push(node.start_byte() as u32, node.end_byte() as u32, &tok);
                    break 'visit false;
                }
                NodeRule::Descend | NodeRule::DropDelimiters => {}
            }
            let count = node.child_count() as u32;
            if count == 0 {
                if node.is_missing() || dropped {
                    break 'visit false;
                }
                let raw = src.get(node.byte_range()).unwrap_or("");
                // Only named leaves can be string content; anonymous ones are punctuation
                // and keywords (this test runs for every token). Whitespace inside string
                // content is the program's data, not layout.
                let verbatim = facts.string_content && node.is_named();
                let text = if verbatim { raw } else { raw.trim() };
                if !text.is_empty() {
                    phantoms.flush_before(node.start_byte(), src, rules, &mut self.out);
                    self.out.push(node.start_byte() as u32, node.end_byte() as u32, text);
                }
                break 'visit false;
            }
            // Redundant parentheses: every child but the first and the last (and a
            // trailing comma before that last one, see [`Frame::visits`]).
            if dropped && count < 2 {
                break 'visit false;
            }
            let base = self.nexts.len() as u32;
            if let Some(c) = self.sibling_cursor.as_mut() {
                // Each child's next non-comment sibling (among all children, dropped
                // delimiters included), found from the last child back.
                let start = self.nexts.len();
                c.reset(node);
                if c.goto_first_child() {
                    loop {
                        self.nexts.push(Some(c.node()));
                        if !c.goto_next_sibling() {
                            break;
                        }
                    }
                }
                let mut next_kept: Option<Node> = None;
                for slot in self.nexts[start..].iter_mut().rev() {
                    let kid = slot.expect("just pushed");
                    *slot = next_kept;
                    if !is_comment(kid) {
                        next_kept = Some(kid);
                    }
                }
            }
            self.ancestors.push(Ancestor { node, kind: facts.name, leads, dropped });
            let mut frame = Frame { index: 0, count, end: if dropped { count - 1 } else { count }, dropped, nexts: base };
            self.cursor.goto_first_child();
            if dropped {
                self.cursor.goto_next_sibling();
                frame.index = 1;
            }
            let first = self.cursor.node();
            let visits = frame.visits(first);
            self.frames.push(frame);
            if visits {
                self.pending = Some(first);
                break 'visit true;
            }
            // Nothing inside is walked (`()`): leave it at once.
            self.leave();
            false
        };
        self.phantom = phantoms.next;
        entered
    }

    /// Moves to the next node to visit: a later sibling of the current one, else up until
    /// an ancestor has one; none once the root is left.
    fn advance(&mut self) {
        loop {
            let Some(f) = self.frames.last_mut() else {
                self.pending = None;
                return;
            };
            f.index += 1;
            if f.index < f.end && self.cursor.goto_next_sibling() {
                let next = self.cursor.node();
                if f.visits(next) {
                    self.pending = Some(next);
                    return;
                }
            }
            self.leave();
        }
    }

    /// Leaves the innermost entered node: the cursor goes back up to it.
    fn leave(&mut self) {
        if let Some(f) = self.frames.pop() {
            self.ancestors.pop();
            self.nexts.truncate(f.nexts as usize);
            self.cursor.goto_parent();
        }
    }
}

/// The excised spans of a repaired parse, emitted in position order between the tree's
/// own tokens.
struct Phantoms<'a> {
    spans: &'a [Range<usize>],
    next: usize,
}

impl Phantoms<'_> {
    /// Emits the tokens of every span starting before `at`: runs of identifier
    /// characters (a keyword such as `out` or `__owned` is one token, as its grammar
    /// would make it), a directive keyword with its `#` (`#if`), the two-character
    /// operators of a compilation condition (`&&`, `||`, `>=`, `<=`, `==`, `!=`), a
    /// function type's arrow and a module selector's `::` (`->`, `::`), Swift's range
    /// operators (`...`, `..<`), a string literal as the language prints one (when it
    /// says how, [`TokenRules::phantom_string`]) and every other non-blank character on
    /// its own.
    fn flush_before(&mut self, at: usize, src: &str, rules: &dyn TokenRules, out: &mut FileTokens) {
        while let Some(span) = self.spans.get(self.next).filter(|r| r.start < at) {
            self.next += 1;
            let text = src.get(span.clone()).unwrap_or("");
            let word = |c: char| c.is_alphanumeric() || c == '_' || c == '$';
            let mut chars = text.char_indices().peekable();
            while let Some((i, c)) = chars.next() {
                if c.is_whitespace() {
                    continue;
                }
                let mut end = i + c.len_utf8();
                if c == '\'' || c == '"' {
                    if let Some(close) = closing_quote(text.as_bytes(), i) {
                        if let Some(token) = rules.phantom_string(&text[i..=close]) {
                            while chars.peek().is_some_and(|&(j, _)| j <= close) {
                                chars.next();
                            }
                            out.push((span.start + i) as u32, (span.start + close + 1) as u32, &token);
                            continue;
                        }
                    }
                }
                let pair = text.get(i..i + 2).unwrap_or("");
                if matches!(text.get(i..i + 3), Some("..." | "..<")) {
                    end = i + 3;
                    chars.next();
                    chars.next();
                } else if matches!(pair, "&&" | "||" | ">=" | "<=" | "==" | "!=" | "->" | "::") {
                    end = i + 2;
                    chars.next();
                } else if c == '#' && chars.peek().is_some_and(|&(_, d)| d.is_alphabetic()) {
                    while let Some(&(j, d)) = chars.peek().filter(|(_, d)| word(*d)) {
                        end = j + d.len_utf8();
                        chars.next();
                    }
                } else if word(c) {
                    while let Some(&(j, d)) = chars.peek().filter(|(_, d)| word(*d)) {
                        end = j + d.len_utf8();
                        chars.next();
                    }
                }
                if !rules.phantom_skips(&text[i..end]) {
                    out.push((span.start + i) as u32, (span.start + end) as u32, &text[i..end]);
                }
            }
        }
    }
}

/// Where the string literal opened by the quote at `open` closes (the same quote, not
/// escaped, on the same line), within `b`. Also the grammar-gap finders' reading of a
/// C-family string.
pub(crate) fn closing_quote(b: &[u8], open: usize) -> Option<usize> {
    let quote = b[open];
    let mut k = open + 1;
    while k < b.len() && b[k] != b'\n' {
        match b[k] {
            b'\\' => k += 2,
            c if c == quote => return Some(k),
            _ => k += 1,
        }
    }
    None
}

/// The token stream of a whole file, walked once on first use: every declaration and
/// body takes its tokens as a sub-range (by byte span). Emitted tokens depend only on a
/// node's subtree and its real ancestors, which the file walk knows exactly, so a range
/// equals a fresh walk of the sub-node.
pub(crate) struct TokenStreams<'t> {
    root: Node<'t>,
    kinds: &'static KindTable,
    /// Spans hidden from the parser by a grammar-gap repair (see `lang::Repair`).
    excised: Vec<Range<usize>>,
    walk: Option<Walk<'t>>,
}

/// A file's tokens, ready to hash: the bytes a [`TokenSink`] would feed the digest for
/// the whole file, with each token's offset. A print of nested declarations then hashes
/// a contiguous byte range (blake3 runs at memory speed on it) instead of pushing every
/// token again: the 64 nested levels [`crate::MAX_DECL_DEPTH`] allows would otherwise
/// re-push each token up to 128 times.
#[derive(Default)]
struct FileTokens {
    /// Byte span of the node that produced each token.
    spans: Vec<(u32, u32)>,
    flags: Vec<u8>,
    /// Token texts, each followed by the separator; a comma the file-wide stream drops as
    /// trailing (next token closes a bracket) contributes nothing.
    bytes: Vec<u8>,
    /// `offsets[i]`: where token `i` starts in `bytes` (one more entry than tokens).
    offsets: Vec<u32>,
    /// `counts[i]`: tokens before `i` that the file-wide stream hashes.
    counts: Vec<u32>,
    /// While building: tokens hashed so far, and a comma waiting for its successor.
    count: u32,
    pending_comma: bool,
}

const COMMA: u8 = 1;
const CLOSING: u8 = 2;
const SEPARATOR: u8 = 0x1f;

impl FileTokens {
    /// Room for as many tokens as the source has bytes (no token is shorter, but for
    /// rare empty replacements): reserved address space, touched only as it fills, so a
    /// large file never pays for a growing array being copied.
    fn with_capacity(source_bytes: usize) -> Self {
        let n = source_bytes + 16;
        let mut file = FileTokens {
            spans: Vec::with_capacity(n),
            flags: Vec::with_capacity(n),
            bytes: Vec::with_capacity(2 * n),
            offsets: Vec::with_capacity(n + 1),
            counts: Vec::with_capacity(n + 1),
            ..FileTokens::default()
        };
        file.offsets.push(0);
        file.counts.push(0);
        file
    }

    /// Appends a token (its text, its node's span). A comma waits for the next token:
    /// before one that closes a bracket it is trailing and contributes nothing.
    fn push(&mut self, start: u32, end: u32, text: &str) {
        let flag = match text {
            "," => COMMA,
            ")" | "]" | "}" | ">" => CLOSING,
            _ => 0,
        };
        self.settle(flag != CLOSING);
        self.spans.push((start, end));
        self.flags.push(flag);
        self.mark_end();
        if flag == COMMA {
            self.pending_comma = true;
        } else {
            self.bytes.extend_from_slice(text.as_bytes());
            self.bytes.push(SEPARATOR);
            self.count += 1;
        }
        self.offsets.push(self.bytes.len() as u32);
        self.counts.push(self.count);
    }

    /// The last entry of `offsets` and `counts` (one more than tokens, so the newest
    /// token's text has an end while the stream is still growing): where the stream is now.
    fn mark_end(&mut self) {
        if let (Some(o), Some(c)) = (self.offsets.last_mut(), self.counts.last_mut()) {
            *o = self.bytes.len() as u32;
            *c = self.count;
        }
    }

    fn settle(&mut self, keep: bool) {
        if std::mem::take(&mut self.pending_comma) && keep {
            self.bytes.extend_from_slice(&[b',', SEPARATOR]);
            self.count += 1;
        }
    }

    /// Closes the stream: a comma ending the file is kept.
    fn finish(&mut self) {
        self.settle(true);
        self.mark_end();
    }

    /// Token indices of `node`: those starting inside its span, up to the last one
    /// ending inside it.
    fn range(&self, node: Node) -> (usize, usize) {
        let (s, e) = (node.start_byte() as u32, node.end_byte() as u32);
        let lo = self.spans.partition_point(|t| t.0 < s);
        let hi = self.spans.partition_point(|t| t.0 < e);
        let end = self.spans[lo..hi].iter().rposition(|t| t.1 <= e).map_or(0, |p| p + 1);
        (lo, lo + end)
    }

    fn text(&self, i: usize) -> &[u8] {
        &self.bytes[self.offsets[i] as usize..self.offsets[i + 1] as usize]
    }
}

/// The texts a file's stream hashes, in order (tests compare a repaired parse's stream with
/// the source's own tokens).
#[cfg(test)]
pub(crate) fn hashed_texts(root: Node, src: &str, rules: &dyn TokenRules, kinds: &KindTable, excised: &[Range<usize>]) -> Vec<String> {
    let mut walk = Walk::new(root, src.len(), rules.wants_next(), true);
    assert!(walk.cover(0, usize::MAX, src, rules, kinds, excised, &mut Clock::new(None)), "no deadline");
    let file = walk.out;
    file.bytes.split(|&b| b == SEPARATOR).filter(|t| !t.is_empty()).map(|t| String::from_utf8_lossy(t).into_owned()).collect()
}

impl<'t> TokenStreams<'t> {
    pub(crate) fn new(root: Node<'t>, kinds: &'static KindTable, excised: Vec<Range<usize>>) -> Self {
        TokenStreams { root, kinds, excised, walk: None }
    }

    /// Whether a span hidden from the parser begins at `end` or after blanks on its line
    /// (its tokens continue what ends at `end`, yet no node holds them).
    pub(crate) fn excised_right_after(&self, src: &str, end: usize) -> bool {
        let i = self.excised.partition_point(|r| r.start < end);
        self.excised.get(i).is_some_and(|r| src.as_bytes().get(end..r.start).is_some_and(|gap| gap.iter().all(|&c| c == b' ' || c == b'\t')))
    }

    /// The file's tokens, walked at least as far as every byte of `start..end` needs;
    /// None when the deadline passed first.
    fn covering(&mut self, start: usize, end: usize, src: &str, rules: &dyn TokenRules, clock: &mut Clock) -> Option<&FileTokens> {
        let root = self.root;
        let walk = self.walk.get_or_insert_with(|| Walk::new(root, src.len(), rules.wants_next(), false));
        if !walk.full && walk.skipped_until > start {
            // Asked for code that was passed over: start again, passing nothing over.
            *walk = Walk::new(root, src.len(), rules.wants_next(), true);
        }
        walk.cover(start, end, src, rules, self.kinds, &self.excised, clock).then_some(&walk.out)
    }
}

/// Fingerprint of the tokens of `nodes` (in order), tokens inside `skip` excluded; None
/// when the deadline passed.
pub(crate) fn fingerprint_nodes(
    domain: &str,
    nodes: &[Node],
    src: &str,
    rules: &dyn TokenRules,
    skip: Option<std::ops::Range<usize>>,
    streams: &mut TokenStreams,
    clock: &mut Clock,
) -> Option<(Fingerprint, u32)> {
    let start = nodes.iter().map(|n| n.start_byte()).min().unwrap_or(0);
    let end = nodes.iter().map(|n| n.end_byte()).max().unwrap_or(0);
    let file = streams.covering(start, end, src, rules, clock)?;
    let mut sink = TokenSink::new(domain, file);
    for node in nodes {
        let (lo, hi) = file.range(*node);
        if clock.tick((hi - lo) as u64 / 16 + 1) {
            return None;
        }
        let Some(r) = &skip else {
            sink.run(lo, hi);
            continue;
        };
        // Only tokens starting inside the skipped span can be skipped (tokens do not
        // overlap): hash around that block, and decide inside it token by token.
        let (r0, r1) = (r.start as u32, r.end as u32);
        let s0 = lo + file.spans[lo..hi].partition_point(|t| t.0 < r0);
        let s1 = lo + file.spans[lo..hi].partition_point(|t| t.0 < r1);
        sink.run(lo, s0);
        for i in s0..s1 {
            let (ts, te) = file.spans[i];
            if !(ts >= r0 && te <= r1 && te > ts) {
                sink.token(i);
            }
        }
        sink.run(s1, hi);
    }
    Some(sink.finish())
}

/// Feeds tokens to the digest the way a token-by-token stream would: a comma is held back
/// until the next token shows it is not a trailing one (before `)` `]` `}` `>`).
struct TokenSink<'f> {
    hasher: TokenHasher,
    file: &'f FileTokens,
    pending_comma: bool,
}

impl<'f> TokenSink<'f> {
    fn new(domain: &str, file: &'f FileTokens) -> Self {
        TokenSink { hasher: TokenHasher::new(domain), file, pending_comma: false }
    }

    /// A held-back comma, now that the next token is known.
    fn settle(&mut self, next: usize) {
        if self.pending_comma {
            self.pending_comma = false;
            if self.file.flags[next] != CLOSING {
                self.hasher.push_raw(b",\x1f", 1);
            }
        }
    }

    fn token(&mut self, i: usize) {
        self.settle(i);
        if self.file.flags[i] == COMMA {
            self.pending_comma = true;
        } else {
            self.hasher.push_raw(self.file.text(i), 1);
        }
    }

    /// Tokens `a..b`. Inside the run each comma's fate is decided by its successor in the
    /// file, which is its successor here too; only the last token's successor differs.
    fn run(&mut self, a: usize, b: usize) {
        if a >= b {
            return;
        }
        self.settle(a);
        let f = self.file;
        let bytes = &f.bytes[f.offsets[a] as usize..f.offsets[b - 1] as usize];
        self.hasher.push_raw(bytes, f.counts[b - 1] - f.counts[a]);
        self.token(b - 1);
    }

    fn finish(mut self) -> (Fingerprint, u32) {
        if self.pending_comma {
            self.hasher.push_raw(b",\x1f", 1);
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

