//! Text analysis shared by the index and the task: how text becomes terms.
//!
//! One analyzer serves both sides so that a query term can only ever match a token the
//! index produced for the same surface form:
//! - **words and identifiers**: maximal runs of letters/digits/`_` outside CJK. The whole run
//!   is a term (lowercased) *and* so is every part after splitting on `_` and case changes
//!   (`AnchorResolver` → `anchorresolver`, `anchor`, `resolver`). Runs need a letter and two
//!   characters; English function words and language keywords are stop words.
//! - **CJK** (Han, kana, hangul): every 2-gram and 3-gram of a run. The index keeps them all;
//!   the task side drops function-word fragments (see [`cjk_gram_is_fragment`]) because a
//!   gram that starts or ends on a particle usually straddles two words.
//! - **encoded data** is not text: a chunk of 24 or more base64 characters (`A–Z a–z 0–9
//!   + / = _ - .`) holding uppercase letters and a digit, its lowercase letters in short
//!   runs as in random text (an embedded certificate, a `data:` URI, a token in a test),
//!   yields no terms.
//!   Split at its case changes it would give a dozen two-letter "words" per line
//!   (`MIIDdzCCAl` → `mii`, `ddz`, `cc`, `al`), rare in the workspace and so the most
//!   distinctive terms of any file that holds one — they led the open-buffer terms of a
//!   Swift file with a test certificate.
//!
//! The stop lists are written for this crate; they follow the seed's lessons (see
//! knit-spec.md §1.4): a narrow edge set so that word-building characters such as 对 / 上 /
//! 中 / 一 still start words like 对比, 上下文, 中文, 一致.

use std::collections::HashSet;
use std::sync::OnceLock;

use rustc_hash::FxHashSet;

/// Longest word we index whole; longer runs are minified data or hashes, not vocabulary.
const MAX_WORD_CHARS: usize = 64;

/// Shortest chunk of base64 characters that can be judged encoded data.
const MIN_ENCODED_CHUNK: usize = 24;

/// A byte of the base64 (and base64url) alphabet, or the `.` that joins a JWT's parts.
#[inline]
fn is_base64_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/' | b'=' | b'_' | b'-' | b'.')
}

/// Is `chunk` (a maximal run of base64 bytes) encoded data rather than words? In random
/// base64 a run of lowercase letters is 1.7 letters long on average and a digit comes
/// every sixth character (a 24-character chunk without one: about 1 in 60); in
/// identifiers the lowercase runs are the words' tails (`getURLForHTTPSRequest…`: `get`,
/// `or`, `equest`, mean 4), and hex hashes have no uppercase at all.
fn is_encoded_chunk(chunk: &[u8]) -> bool {
    if chunk.len() < MIN_ENCODED_CHUNK {
        return false;
    }
    let (mut upper, mut lower, mut digits, mut lower_runs) = (0usize, 0usize, 0usize, 0usize);
    let mut in_lower_run = false;
    for &b in chunk {
        let is_lower = b.is_ascii_lowercase();
        if is_lower {
            lower += 1;
            lower_runs += usize::from(!in_lower_run);
        } else if b.is_ascii_uppercase() {
            upper += 1;
        } else if b.is_ascii_digit() {
            digits += 1;
        }
        in_lower_run = is_lower;
    }
    upper >= 4 && digits >= 1 && lower_runs >= 4 && lower * 2 < lower_runs * 5
}

/// A term occurrence produced from text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TermOccurrence {
    pub term: String,
    /// Character span in the source text (used to remove overlapping CJK grams).
    pub char_start: usize,
    pub char_end: usize,
    pub is_cjk: bool,
}

/// True for characters analysed as CJK n-grams rather than as words.
#[inline]
pub fn is_cjk(c: char) -> bool {
    // every CJK range starts above U+3040: ASCII and Latin text settle on the first compare
    (c as u32) >= 0x3040 && matches!(c as u32,
        0x3040..=0x30FF      // hiragana, katakana
        | 0x3400..=0x4DBF    // CJK extension A
        | 0x4E00..=0x9FFF    // CJK unified ideographs
        | 0xAC00..=0xD7AF    // hangul syllables
        | 0xF900..=0xFAFF    // CJK compatibility ideographs
        | 0x20000..=0x2A6DF) // CJK extension B
}

#[inline]
fn is_word_char(c: char) -> bool {
    if c.is_ascii() {
        return c.is_ascii_alphanumeric() || c == '_';
    }
    c.is_alphanumeric() && !is_cjk(c)
}

/// The stop words, and per first and per last byte a bit mask of the lengths a stop word
/// starting (ending) with that byte has. Looked up for every word and identifier part the
/// indexer and the pack's passage scoring see: the masks turn most words away with two
/// table reads, the rest pay an Fx hash, a fraction of the std SipHash (a fifth of the
/// tokenizer's time went there).
struct StopWords {
    set: FxHashSet<&'static str>,
    lengths_by_first_byte: [u16; 128],
    lengths_by_last_byte: [u16; 128],
}

fn stop_words() -> &'static StopWords {
    static WORDS: OnceLock<StopWords> = OnceLock::new();
    WORDS.get_or_init(|| {
        let set = english_stop_words();
        let mut lengths_by_first_byte = [0u16; 128];
        let mut lengths_by_last_byte = [0u16; 128];
        for word in &set {
            let bytes = word.as_bytes();
            lengths_by_first_byte[bytes[0] as usize] |= 1 << bytes.len();
            lengths_by_last_byte[bytes[bytes.len() - 1] as usize] |= 1 << bytes.len();
        }
        StopWords { set, lengths_by_first_byte, lengths_by_last_byte }
    })
}

fn english_stop_words() -> FxHashSet<&'static str> {
    [
        // articles, pronouns, determiners
        "a", "an", "the", "this", "that", "these", "those", "it", "its", "he", "she", "him",
        "her", "his", "hers", "we", "us", "our", "you", "your", "they", "them", "their", "me",
        "my", "mine", "who", "whom", "whose", "which", "what", "some", "any", "each", "every",
        "all", "both", "other", "such", "same", "own", "one", "two",
        // auxiliaries and common verbs
        "is", "am", "are", "was", "were", "be", "been", "being", "do", "does", "did", "done",
        "have", "has", "had", "having", "will", "would", "shall", "should", "can", "could",
        "may", "might", "must", "get", "gets", "got", "make", "makes", "made", "use", "used",
        "using", "uses", "see", "know", "take", "want", "need", "like", "come", "give",
        // prepositions, conjunctions, adverbs
        "of", "to", "in", "on", "at", "by", "for", "from", "with", "without", "into", "onto",
        "over", "under", "about", "after", "before", "between", "through", "and", "or",
        "but", "nor", "so", "if", "then", "than", "else", "when", "where", "why", "how",
        "not", "no", "yes", "as", "up", "out", "off", "also", "just", "only", "very", "too",
        "more", "most", "much", "many", "here", "there", "now", "well", "even", "still",
        "again", "because", "while", "until", "back", "via", "per", "etc", "ie", "eg",
        // web noise
        "www", "http", "https", "com",
        // keywords every source file repeats
        "const", "let", "var", "function", "return", "import", "export", "default", "async",
        "await", "true", "false", "null", "undefined", "new", "self", "pub", "fn", "mut",
        "impl", "use", "mod", "crate", "def", "elif", "func", "let", "val", "void", "int",
        "string", "bool", "static", "public", "private", "protected", "class", "struct",
        "extends", "implements", "package", "require", "module", "typeof", "instanceof",
    ]
    .into_iter()
    .collect()
}

/// Single characters that carry grammar, not topic: a gram made only of these is dropped.
const CJK_FUNCTION_CHARS: &str = concat!(
    "的地得了着过是在有和与及或而且但并就都也还又再很太更最把被让给从向到对为以于之其",
    "我你他她它们这那哪此每各某个些么吗呢吧啊呀哦嗯嘛啦呗",
    "上下中里外前后时会能要可不没别说做用好多少大小来去出入一二三四五六七八九十",
);

/// Characters that never begin or end a content word in practice. Narrower than the set
/// above on purpose: 对 上 中 里 前 后 大 小 一 … build words (对比, 上下文, 一致) and stay out.
const CJK_EDGE_CHARS: &str = concat!(
    "的地得了着过是在和与及或而但并就都也很把被让给从到为以于之等",
    "我你他她它们这那有没会能要不说做用好多少来去出入时话个些么吗呢吧啊呀哦嗯嘛啦",
);

/// Two-character words that are grammar or filler in a question, never a topic.
const CJK_FILLER_BIGRAMS: &[&str] = &[
    "我们", "你们", "他们", "她们", "它们", "这个", "那个", "这些", "那些", "什么", "怎么", "怎样",
    "为何", "可以", "需要", "一个", "一下", "一些", "一直", "就是", "不是", "没有", "已经", "还是",
    "因为", "所以", "但是", "如果", "这样", "那样", "现在", "时候", "而且", "或者", "以及", "不过",
    "然后", "比较", "非常", "真的", "应该", "可能", "只是", "其实", "这里", "那里", "自己", "大家",
    "有点", "以后", "以前", "之后", "之前", "的话", "来说", "方面", "到底", "哪个", "哪些", "是否",
];

fn char_set(chars: &'static str) -> HashSet<char> {
    chars.chars().collect()
}

fn function_chars() -> &'static HashSet<char> {
    static SET: OnceLock<HashSet<char>> = OnceLock::new();
    SET.get_or_init(|| char_set(CJK_FUNCTION_CHARS))
}

fn edge_chars() -> &'static HashSet<char> {
    static SET: OnceLock<HashSet<char>> = OnceLock::new();
    SET.get_or_init(|| char_set(CJK_EDGE_CHARS))
}

fn filler_bigrams() -> &'static HashSet<&'static str> {
    static SET: OnceLock<HashSet<&'static str>> = OnceLock::new();
    SET.get_or_init(|| CJK_FILLER_BIGRAMS.iter().copied().collect())
}

/// Longest stop word in bytes: longer words skip the hash look-up (most identifiers).
const LONGEST_STOP_WORD: usize = 10;

pub fn is_stop_word(word: &str) -> bool {
    let bytes = word.as_bytes();
    let (Some(&first), Some(&last), true) = (bytes.first(), bytes.last(), bytes.len() <= LONGEST_STOP_WORD) else {
        return false;
    };
    let words = stop_words();
    let length = 1u16 << bytes.len();
    first.is_ascii()
        && last.is_ascii()
        && words.lengths_by_first_byte[first as usize] & length != 0
        && words.lengths_by_last_byte[last as usize] & length != 0
        && words.set.contains(word)
}

/// A CJK gram that is a cross-word fragment or filler rather than a topic word.
pub fn cjk_gram_is_fragment(gram: &[char]) -> bool {
    let (Some(first), Some(last)) = (gram.first(), gram.last()) else {
        return true;
    };
    if edge_chars().contains(first) || edge_chars().contains(last) {
        return true;
    }
    if gram.iter().all(|c| function_chars().contains(c)) {
        return true;
    }
    if gram.len() == 2 {
        let s: String = gram.iter().collect();
        if filler_bigrams().contains(s.as_str()) {
            return true;
        }
    }
    false
}

/// Splits an identifier run into its parts: `_`/`-` separators, lower→Upper, and the end of
/// an acronym (`HTTPRange` → `HTTP`, `Range`). Digits stay with their letters (`bm25`).
pub fn identifier_parts(run: &str) -> Vec<&str> {
    let mut ranges = Vec::new();
    identifier_part_ranges(run, &mut ranges);
    ranges.into_iter().map(|(s, e)| &run[s..e]).collect()
}

/// [`identifier_parts`] as byte ranges into a buffer the caller reuses: the indexer splits
/// every identifier of every file, so this allocates nothing once the buffer has grown.
fn identifier_part_ranges(run: &str, parts: &mut Vec<(usize, usize)>) {
    parts.clear();
    let mut start: Option<usize> = None;
    let mut chars = run.char_indices().peekable();
    let mut prev: Option<char> = None;
    while let Some((byte, c)) = chars.next() {
        if c == '_' {
            if let Some(s) = start.take() {
                parts.push((s, byte));
            }
            prev = Some(c);
            continue;
        }
        match (start, prev) {
            (Some(s), Some(p)) => {
                let next = chars.peek().map(|&(_, n)| n);
                let lower_to_upper = (p.is_lowercase() || p.is_ascii_digit()) && c.is_uppercase();
                let acronym_end = p.is_uppercase() && c.is_uppercase() && next.is_some_and(|n| n.is_lowercase());
                if lower_to_upper || acronym_end {
                    parts.push((s, byte));
                    start = Some(byte);
                }
            }
            _ => start = Some(byte),
        }
        prev = Some(c);
    }
    if let Some(s) = start {
        parts.push((s, run.len()));
    }
}

/// Folds English plurals onto the singular (`transactions` → `transaction`, `entries` →
/// `entry`) so a question's wording and the code's naming meet; words ending in `ss`,
/// `us`, `is` and short words stay as they are.
pub fn fold_plural(mut word: String) -> String {
    fold_plural_in_place(&mut word);
    word
}

/// [`fold_plural`] on a buffer the caller reuses (the indexer calls it for every token).
fn fold_plural_in_place(word: &mut String) {
    let n = word.len();
    if n <= 3 || !word.is_ascii() || !word.ends_with('s') || word.ends_with("ss") || word.ends_with("us") || word.ends_with("is") {
        return;
    }
    if word.ends_with("ies") && n - 3 >= 2 {
        word.truncate(n - 3);
        word.push('y');
        return;
    }
    word.truncate(n - 1);
}

/// Lowercases `from` into `into` (cleared first), as `str::to_lowercase` would.
fn lowercase_into(from: &str, into: &mut String) {
    into.clear();
    if from.is_ascii() {
        into.push_str(from);
        into.make_ascii_lowercase();
    } else {
        into.push_str(&from.to_lowercase());
    }
}

fn word_is_indexable(word: &str) -> bool {
    let (count, has_letter) = if word.is_ascii() {
        (word.len(), word.bytes().any(|b| b.is_ascii_alphabetic()))
    } else {
        (word.chars().count(), word.chars().any(|c| c.is_alphabetic()))
    };
    (2..=MAX_WORD_CHARS).contains(&count) && has_letter && !is_stop_word(word)
}

/// A term as [`for_each_term_ref`] reports it: borrowed from the scanner's buffers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TermRef<'t> {
    pub term: &'t str,
    pub char_start: usize,
    pub char_end: usize,
    pub is_cjk: bool,
}

/// Calls `sink` for every index term of `text`, in order. CJK grams are all emitted.
/// Spans are in characters (the task side uses them to remove overlapping grams).
pub fn for_each_term(text: &str, mut sink: impl FnMut(TermOccurrence)) {
    for_each_term_ref(text, |t| sink(TermOccurrence { term: t.term.to_string(), char_start: t.char_start, char_end: t.char_end, is_cjk: t.is_cjk }));
}

/// [`for_each_term`] without an allocation per term: the terms are built in buffers that
/// live for the whole call. The index tokenizes every file through this (a cold index of a
/// large workspace analyses millions of tokens), so it must stay cheap.
pub fn for_each_term_ref(text: &str, mut sink: impl FnMut(TermRef<'_>)) {
    let mut iter = CharCursor { text, byte: 0 };
    let mut char_pos = 0usize;
    let mut cjk_run: Vec<char> = Vec::new();
    let mut whole = String::new();
    let mut part_buf = String::new();
    let mut part_ranges: Vec<(usize, usize)> = Vec::new();
    // bytes before this were judged by [`is_encoded_chunk`] already (each byte once)
    let mut judged_until = 0usize;
    while let Some((byte, c)) = iter.peek() {
        if byte >= judged_until && c.is_ascii_alphanumeric() {
            let bytes = text.as_bytes();
            let end = byte + bytes[byte..].iter().position(|&b| !is_base64_byte(b)).unwrap_or(bytes.len() - byte);
            judged_until = end;
            if is_encoded_chunk(&bytes[byte..end]) {
                // ASCII only: one character per byte
                char_pos += end - byte;
                iter.byte = end;
                continue;
            }
        }
        if is_cjk(c) {
            cjk_run.clear();
            let start = char_pos;
            while let Some((_, c)) = iter.peek() {
                if !is_cjk(c) {
                    break;
                }
                cjk_run.push(c);
                iter.advance(c);
                char_pos += 1;
            }
            for n in [2usize, 3] {
                if cjk_run.len() < n {
                    continue;
                }
                for k in 0..=(cjk_run.len() - n) {
                    whole.clear();
                    whole.extend(&cjk_run[k..k + n]);
                    sink(TermRef { term: &whole, char_start: start + k, char_end: start + k + n, is_cjk: true });
                }
            }
        } else if is_word_char(c) {
            let start_char = char_pos;
            let start_byte = byte;
            let mut end_byte = byte;
            let mut needs_split = false;
            let mut prev_lower = false;
            while let Some((b, c)) = iter.peek() {
                if !is_word_char(c) {
                    break;
                }
                needs_split |= c == '_' || (prev_lower && c.is_uppercase()) || (c.is_uppercase() && end_byte > start_byte && !prev_lower);
                prev_lower = c.is_lowercase() || c.is_ascii_digit();
                end_byte = b + c.len_utf8();
                iter.advance(c);
                char_pos += 1;
            }
            let run = &text[start_byte..end_byte];
            let trimmed = run.trim_matches('_');
            // bytes bound chars from above: only a long run needs counting
            if trimmed.len() > MAX_WORD_CHARS * 4 || (trimmed.len() > MAX_WORD_CHARS && trimmed.chars().count() > MAX_WORD_CHARS) {
                continue;
            }
            lowercase_into(trimmed, &mut whole);
            // Stop words are removed before plural folding: `does` is a stop word, its
            // folded form `doe` is not.
            if is_stop_word(&whole) {
                whole.clear();
            }
            fold_plural_in_place(&mut whole);
            if word_is_indexable(&whole) {
                sink(TermRef { term: &whole, char_start: start_char, char_end: char_pos, is_cjk: false });
            }
            if needs_split {
                identifier_part_ranges(trimmed, &mut part_ranges);
                if part_ranges.len() > 1 {
                    for part in part_ranges.iter().map(|&(s, e)| &trimmed[s..e]) {
                        lowercase_into(part, &mut part_buf);
                        if is_stop_word(&part_buf) {
                            continue;
                        }
                        fold_plural_in_place(&mut part_buf);
                        if part_buf != whole && word_is_indexable(&part_buf) {
                            sink(TermRef { term: &part_buf, char_start: start_char, char_end: char_pos, is_cjk: false });
                        }
                    }
                }
            }
        } else {
            iter.advance(c);
            char_pos += 1;
        }
    }
}

/// The characters of a text with their byte offsets, like `char_indices().peekable()`, but
/// an ASCII byte is its own character: code is nearly all ASCII and the tokenizer looks at
/// every character of every indexed file.
struct CharCursor<'t> {
    text: &'t str,
    byte: usize,
}

impl CharCursor<'_> {
    #[inline]
    fn peek(&self) -> Option<(usize, char)> {
        let first = *self.text.as_bytes().get(self.byte)?;
        if first.is_ascii() {
            return Some((self.byte, first as char));
        }
        // `byte` only ever moves by whole characters, so it is a boundary
        self.text.get(self.byte..)?.chars().next().map(|c| (self.byte, c))
    }

    /// Steps over `c`, the character [`peek`](Self::peek) returned.
    #[inline]
    fn advance(&mut self, c: char) {
        self.byte += c.len_utf8();
    }
}

/// At most this many words are matched against paths (one bit each in a mask).
pub const MAX_PATH_WORDS: usize = 32;

/// Name parts that say what kind of file it is, not what it is about.
const GENERIC_NAME_WORDS: &[&str] = &["test", "tests", "spec", "index", "mod", "lib", "src", "init"];

/// Adds `word` to `out` when a path spelling it says something: 3 or more characters, a
/// letter, not a stop word (nor, for a file's name, a generic one), not yet there, and
/// room left.
fn push_path_word(word: String, skip_generic: bool, out: &mut Vec<String>) {
    if out.len() < MAX_PATH_WORDS
        && (3..=MAX_WORD_CHARS).contains(&word.chars().count())
        && word.chars().any(char::is_alphabetic)
        && !is_stop_word(&word)
        && !(skip_generic && GENERIC_NAME_WORDS.contains(&word.as_str()))
        && !out.contains(&word)
    {
        out.push(word);
    }
}

/// The runs of letters, digits and `_` in `text`.
fn word_runs(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !(c.is_alphanumeric() || c == '_')).filter(|r| !r.is_empty())
}

/// Identifiers a query writes as code, case kept: runs of letters, digits and `_` of at
/// least [`crate::symbols::MIN_NAME_LEN`] characters that mix cases past their first letter
/// (`beforeRetry`, `HTTPError`), have a `_` or a digit inside
/// (`build_request`, `utf8`), or stand between backticks (`` `request` ``); first
/// occurrence order, at most [`MAX_PATH_WORDS`]. Plain words are left out: a commit message's
/// "search" or "binary" is English even where a function bears the name.
pub fn code_names(text: &str) -> Vec<String> {
    fn keep(run: &str, ticked: bool, out: &mut Vec<String>) {
        // Whole, leading `_` kept: `_BString` is the name Swift declares, not `BString`.
        if out.len() >= MAX_PATH_WORDS || run.chars().count() < crate::symbols::MIN_NAME_LEN || !run.chars().any(char::is_alphabetic) {
            return;
        }
        // An uppercase letter after the first beside lowercase ones: `beforeRetry`,
        // `HTTPError`; not `Deque` (any capitalised word) nor `HTTP`.
        let humped = run.chars().skip(1).any(char::is_uppercase) && run.chars().any(char::is_lowercase);
        let marked = run.trim_matches('_').contains('_') || run.chars().any(|c| c.is_ascii_digit());
        if (humped || marked || ticked) && !out.iter().any(|o| o == run) {
            out.push(run.to_string());
        }
    }
    let mut out: Vec<String> = Vec::new();
    let mut in_ticks = false;
    let mut start: Option<usize> = None;
    for (i, c) in text.char_indices() {
        if c.is_alphanumeric() || c == '_' {
            start.get_or_insert(i);
            continue;
        }
        if let Some(s) = start.take() {
            keep(&text[s..i], in_ticks, &mut out);
        }
        if c == '`' {
            in_ticks = !in_ticks;
        }
    }
    if let Some(s) = start {
        keep(&text[s..], in_ticks, &mut out);
    }
    out
}

/// Words of a task that may name a file: each identifier-like run of `text` lowercased, and
/// its camelCase / snake_case parts, neither stemmed nor plural-folded (a path spells
/// `retry`, not the term `retri`), at least 3 characters, with a letter, not a stop word;
/// first occurrence order, at most [`MAX_PATH_WORDS`].
pub fn path_words(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for run in word_runs(text) {
        push_path_word(run.trim_matches('_').to_lowercase(), false, &mut out);
        let parts = identifier_parts(run);
        if parts.len() > 1 {
            for part in parts {
                push_path_word(part.to_lowercase(), false, &mut out);
            }
        }
    }
    out
}

/// Words of a file's own name that other paths may spell when they are about the same
/// thing: the name without its last extension, split at anything but letters, digits and
/// `_`, lowercased, whole (`OrderedSet+Codable.swift` → `orderedset`, `codable`;
/// `_client.py` → `client`), kept as [`path_words`] keeps words and without generic names
/// (`index`, `test`). Whole, not split at camelCase: on the development halves of the
/// history evaluation the parts (`ordered`, `set`) found more unrelated files than related.
pub fn name_words(path: &str) -> Vec<String> {
    let name = crate::classify::file_name(path);
    let stem = name.rsplit_once('.').map_or(name, |(stem, _)| stem);
    let mut out = Vec::new();
    for run in word_runs(stem) {
        push_path_word(run.trim_matches('_').to_lowercase(), true, &mut out);
    }
    out
}

/// All index terms of `text` as strings (convenience for tests and passage scoring).
pub fn terms_of(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for_each_term(text, |t| out.push(t.term));
    out
}

/// Task-side occurrences: like [`for_each_term`] but without CJK fragments.
pub fn task_occurrences(text: &str) -> Vec<TermOccurrence> {
    let mut out = Vec::new();
    for_each_term(text, |t| {
        if t.is_cjk {
            let gram: Vec<char> = t.term.chars().collect();
            if cjk_gram_is_fragment(&gram) {
                return;
            }
        }
        out.push(t);
    });
    out
}

/// The tantivy side of the analyzer: the same terms, as a token stream.
///
/// Holds its token buffer between calls (tantivy keeps one tokenizer per field and
/// indexing thread): the strings of the previous text are overwritten in place, so a
/// document's tokens cost no allocation once the buffer has grown.
#[derive(Clone, Default)]
pub struct KnitTokenizer {
    tokens: Vec<tantivy::tokenizer::Token>,
}

pub struct KnitTokenStream<'a> {
    tokens: &'a mut [tantivy::tokenizer::Token],
    cursor: usize,
}

/// Token buffers above this many entries are not kept after a huge file.
const KEEP_TOKENS: usize = 1 << 16;

impl tantivy::tokenizer::Tokenizer for KnitTokenizer {
    type TokenStream<'a> = KnitTokenStream<'a>;

    fn token_stream<'a>(&'a mut self, text: &'a str) -> KnitTokenStream<'a> {
        if self.tokens.len() > KEEP_TOKENS {
            self.tokens.truncate(KEEP_TOKENS);
            self.tokens.shrink_to_fit();
        }
        let tokens = &mut self.tokens;
        let mut count = 0usize;
        for_each_term_ref(text, |occurrence| {
            if count == tokens.len() {
                tokens.push(tantivy::tokenizer::Token::default());
            }
            let token = &mut tokens[count];
            // Offsets are only needed for highlighting, which knit does from line ranges.
            token.offset_from = 0;
            token.offset_to = 0;
            token.position = count;
            token.position_length = 1;
            token.text.clear();
            token.text.push_str(occurrence.term);
            count += 1;
        });
        KnitTokenStream { tokens: &mut tokens[..count], cursor: 0 }
    }
}

impl tantivy::tokenizer::TokenStream for KnitTokenStream<'_> {
    fn advance(&mut self) -> bool {
        if self.cursor < self.tokens.len() {
            self.cursor += 1;
            true
        } else {
            false
        }
    }

    fn token(&self) -> &tantivy::tokenizer::Token {
        &self.tokens[self.cursor.saturating_sub(1).min(self.tokens.len().saturating_sub(1))]
    }

    fn token_mut(&mut self) -> &mut tantivy::tokenizer::Token {
        let index = self.cursor.saturating_sub(1).min(self.tokens.len().saturating_sub(1));
        &mut self.tokens[index]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identifier_parts_split_at_case_separators_and_acronyms() {
        assert_eq!(identifier_parts("HTTPRange"), vec!["HTTP", "Range"]);
        assert_eq!(identifier_parts("parseAsync2Json"), vec!["parse", "Async2", "Json"]);
        assert_eq!(identifier_parts("__max__file_bytes_"), vec!["max", "file", "bytes"]);
        assert_eq!(identifier_parts("bm25"), vec!["bm25"]);
        assert_eq!(identifier_parts("ÉtatCivil"), vec!["État", "Civil"]);
    }

    #[test]
    fn code_names_are_the_identifiers_a_text_writes_as_code() {
        let names = code_names("Add `request` and build_request to HTTPError, beforeRetry (#309), utf8 and `id`; fix the Search of HTTPError in _BString, not _private");
        // camelCase humps, `_` inside, digits and backticks make code, written whole
        // (`_BString`); plain words (`Add`, `Search`, `_private`), names under 4
        // characters (`id`), numbers and repeats do not count.
        assert_eq!(names, ["request", "build_request", "HTTPError", "beforeRetry", "utf8", "_BString"]);
        assert!(code_names("Fix the search of binary files").is_empty());
        // An unclosed backtick marks the rest; a run at the end of the text counts.
        assert_eq!(code_names("see `Deque"), ["Deque"]);
    }

    #[test]
    fn path_words_are_whole_and_split_unstemmed_and_without_short_or_stop_words() {
        let words = path_words("Fix retries in OrderedSet_Partial (#123) for the API");
        assert_eq!(words, ["fix", "retries", "orderedset_partial", "ordered", "set", "partial", "api"]);
    }

    #[test]
    fn name_words_are_the_whole_runs_of_the_name_without_generic_ones() {
        assert_eq!(name_words("Sources/OrderedSet/OrderedSet+Codable.swift"), ["orderedset", "codable"]);
        assert_eq!(name_words("httpx/_client.py"), ["client"]);
        assert_eq!(name_words("Tests/PersistentCollections Smoke Tests.swift"), ["persistentcollections", "smoke"]);
        assert!(name_words("src/index.d.ts").is_empty(), "generic and short parts only");
    }

    #[test]
    fn identifiers_are_indexed_whole_and_split() {
        let terms = terms_of("AnchorResolver.resolve use_synced_value XMLParser bm25");
        for expected in ["anchorresolver", "anchor", "resolver", "resolve", "use_synced_value", "synced", "value", "xmlparser", "xml", "parser", "bm25"] {
            assert!(terms.contains(&expected.to_string()), "missing {expected} in {terms:?}");
        }
        assert!(!terms.contains(&"use".to_string()), "stop word leaked: {terms:?}");
    }

    #[test]
    fn stop_words_go_before_plurals_are_folded() {
        let terms = terms_of("What does this do with the states of uses?");
        assert!(!terms.contains(&"doe".to_string()) && !terms.contains(&"use".to_string()), "{terms:?}");
        assert_eq!(terms, vec!["state"]);
        let terms = terms_of("DoesExist");
        assert!(terms.contains(&"exist".to_string()) && !terms.contains(&"doe".to_string()), "{terms:?}");
    }

    #[test]
    fn cjk_runs_become_bigrams_and_trigrams() {
        let terms = terms_of("相关性排序");
        assert_eq!(terms, vec!["相关", "关性", "性排", "排序", "相关性", "关性排", "性排序"]);
    }

    #[test]
    fn task_side_drops_function_word_fragments_but_keeps_word_builders() {
        let terms: Vec<String> = task_occurrences("我们的对比和上下文").into_iter().map(|t| t.term).collect();
        assert!(terms.contains(&"对比".to_string()), "{terms:?}");
        assert!(terms.contains(&"上下文".to_string()), "{terms:?}");
        assert!(!terms.iter().any(|t| t == "我们" || t == "们的" || t == "的对" || t == "比和"), "{terms:?}");
    }

    #[test]
    fn the_tokenizer_reuses_its_buffer_and_matches_the_terms() {
        use tantivy::tokenizer::{TokenStream, Tokenizer};
        let mut tokenizer = KnitTokenizer::default();
        for text in ["AnchorResolver.resolve Entries use_synced_value 相关性", "short", "", "ÉCOLE Straße entries"] {
            let mut stream = tokenizer.token_stream(text);
            let mut seen = Vec::new();
            while stream.advance() {
                seen.push(stream.token().text.clone());
            }
            assert_eq!(seen, terms_of(text), "{text}");
        }
    }

    #[test]
    fn the_stop_word_prefilter_lets_every_stop_word_through() {
        for word in english_stop_words() {
            assert!(is_stop_word(word), "{word}");
        }
        for word in ["", "doe", "state", "thesis", "ä", "über", "anchorresolver", "x"] {
            assert!(!is_stop_word(word), "{word}");
        }
    }

    #[test]
    fn multibyte_letters_stay_inside_their_words() {
        // the cursor decodes non-ASCII characters whole: an accented letter neither splits
        // a word nor shifts the character spans of what follows
        let mut seen = Vec::new();
        for_each_term_ref("naïveÉtat, café_crème 相关", |t| seen.push((t.term.to_string(), t.char_start, t.char_end)));
        let expected = [("naïveétat", 0, 9), ("naïve", 0, 9), ("état", 0, 9), ("café_crème", 11, 21), ("café", 11, 21), ("crème", 11, 21), ("相关", 22, 24)];
        let expected: Vec<(String, usize, usize)> = expected.iter().map(|&(t, s, e)| (t.to_string(), s, e)).collect();
        assert_eq!(seen, expected);
    }

    #[test]
    fn no_stop_word_is_longer_than_the_look_up_bound() {
        assert!(english_stop_words().iter().all(|w| !w.is_empty() && w.is_ascii() && w.len() <= LONGEST_STOP_WORD));
    }

    #[test]
    fn encoded_data_is_not_text() {
        // a PEM line, a data URI's payload, a JWT: no terms; the words around them stay,
        // with their character spans counted past the skipped chunk
        let pem = "MIIDdzCCAl+gAwIBAgIUIzQbBZ6JvtF0nnVp8gd1CR7yNIAwDQYJKoZIhvcNAQEL";
        // a real certificate line with three digits in 64 characters, cut by a `\n` escape
        let sparse = "m/TQOBiSWxEG5SfMSFjaNzoHu5BU+uTUyr/gCUseFoseA+C+wsCikfSPKpmfLEW0\\nNF49c6fPYWCu39wMpNCgrcXgde29V3Sar5WfYclFnQU";
        assert_eq!(terms_of(sparse), Vec::<String>::new());
        let text = format!("let certificatePem = \"{pem}\" // sample server");
        let mut seen = Vec::new();
        for_each_term_ref(&text, |t| seen.push((t.term.to_string(), t.char_start)));
        let after = text.find("sample").expect("sample");
        assert_eq!(seen, vec![("certificatepem".to_string(), 4), ("certificate".to_string(), 4), ("pem".to_string(), 4), ("sample".to_string(), after), ("server".to_string(), after + 7)]);
        let uri = "src=\"data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk\" logo";
        assert_eq!(terms_of(uri), vec!["src", "data", "image", "png", "base64", "logo"]);
        assert_eq!(terms_of("headers = {\"Authorization\": \"Basic dXNlcjpwYXNzd29yZDEyMw==\"}"), vec!["header", "authorization", "basic"]);
        let jwt = "token: eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.Sfl";
        assert_eq!(terms_of(jwt), vec!["token"]);
    }

    #[test]
    fn long_identifiers_paths_and_hashes_are_still_text() {
        // words leave long lowercase runs; a hash has no uppercase
        for text in [
            "getURLForHTTPSRequestWithDefaultTimeoutAndRetryPolicy2",
            "test_encodeDecode_UTF8ToUTF16_roundTrip_withSurrogatePairs2",
            "Sources/DequeModule/Deque+Codable/RigidDeque+Consumption.swift",
            "3fce3b5bb023a1e4c0d9f6b7a8c2e1d0f9b8a7c6",
            "XCTAssertEqual(OrderedSet<Int>(minimumCapacity: 32).count, 0)",
        ] {
            assert!(!terms_of(text).is_empty(), "{text}");
            assert!(!is_encoded_chunk(text.as_bytes()), "{text}");
        }
    }

    #[test]
    fn short_numbers_and_huge_runs_are_not_terms() {
        let long = "x".repeat(200);
        let terms = terms_of(&format!("a 12 {long} ok"));
        assert_eq!(terms, vec!["ok"]);
    }
}
