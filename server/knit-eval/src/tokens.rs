//! The baselines' own text analysis, deliberately independent of knit's (`knit_context::
//! analysis`), so the baselines stay fixed while knit's ranking changes.
//!
//! A token is a run of letters, digits and `_` that holds a letter. Each yields its whole
//! form lowercased (`parseasync`) and, when it has several parts split on `_`, case
//! changes and letter/digit boundaries, each part lowercased (`parse`, `async`). Tokens
//! shorter than two characters and English stop words are dropped.

/// English function words (and a few contractions' stems): never terms.
const STOP_WORDS: &[&str] = &[
    "a", "about", "above", "after", "again", "against", "all", "am", "an", "and", "any", "are", "as", "at", "be",
    "because", "been", "before", "being", "below", "between", "both", "but", "by", "can", "could", "did", "do",
    "does", "doing", "down", "during", "each", "few", "for", "from", "further", "had", "has", "have", "having", "he",
    "her", "here", "hers", "herself", "him", "himself", "his", "how", "if", "in", "into", "is", "it", "its",
    "itself", "just", "me", "more", "most", "my", "myself", "no", "nor", "not", "now", "of", "off", "on", "once",
    "only", "or", "other", "our", "ours", "ourselves", "out", "over", "own", "same", "she", "should", "so", "some",
    "such", "than", "that", "the", "their", "theirs", "them", "themselves", "then", "there", "these", "they",
    "this", "those", "through", "to", "too", "under", "until", "up", "very", "was", "we", "were", "what", "when",
    "where", "which", "while", "who", "whom", "why", "will", "with", "would", "you", "your", "yours", "yourself",
    "yourselves", "also", "via", "etc", "don", "doesn", "isn", "aren", "won", "let", "lets",
];

pub fn is_stop_word(word: &str) -> bool {
    static SET: std::sync::OnceLock<std::collections::HashSet<&'static str>> = std::sync::OnceLock::new();
    SET.get_or_init(|| STOP_WORDS.iter().copied().collect()).contains(word)
}

/// Splits one identifier-like run into its parts: `HTTPError` → `HTTP`, `Error`;
/// `parse_async2` → `parse`, `async`, `2`.
pub fn identifier_parts(run: &str) -> Vec<&str> {
    let mut parts = Vec::new();
    for piece in run.split('_').filter(|p| !p.is_empty()) {
        let chars: Vec<(usize, char)> = piece.char_indices().collect();
        let mut start = 0;
        for i in 1..chars.len() {
            let (idx, c) = chars[i];
            let prev = chars[i - 1].1;
            let next = chars.get(i + 1).map(|x| x.1);
            let boundary = (prev.is_lowercase() && c.is_uppercase())
                || (prev.is_uppercase() && c.is_uppercase() && next.is_some_and(char::is_lowercase))
                || (prev.is_alphabetic() != c.is_alphabetic() && (prev.is_alphanumeric() && c.is_alphanumeric()));
            if boundary {
                parts.push(&piece[start..idx]);
                start = idx;
            }
        }
        parts.push(&piece[start..]);
    }
    parts
}

fn keep(term: &str) -> bool {
    term.chars().count() >= 2 && term.chars().any(char::is_alphabetic) && !is_stop_word(term)
}

/// Calls `sink(whole, parts)` for every identifier-like run of `text`.
pub fn for_each_run(text: &str, mut sink: impl FnMut(&str)) {
    let mut start: Option<usize> = None;
    for (i, c) in text.char_indices() {
        if c.is_alphanumeric() || c == '_' {
            start.get_or_insert(i);
        } else if let Some(s) = start.take() {
            sink(&text[s..i]);
        }
    }
    if let Some(s) = start {
        sink(&text[s..]);
    }
}

/// All terms of a text (whole tokens and their parts), in order, with repeats.
pub fn terms(text: &str, mut sink: impl FnMut(String)) {
    for_each_run(text, |run| {
        if !run.chars().any(char::is_alphabetic) {
            return;
        }
        let whole = run.trim_matches('_').to_lowercase();
        if keep(&whole) {
            sink(whole.clone());
        }
        let parts = identifier_parts(run);
        if parts.len() > 1 {
            for part in parts {
                let p = part.to_lowercase();
                if p != whole && keep(&p) {
                    sink(p);
                }
            }
        }
    });
}

/// Whole identifiers of a text (≥ 3 characters, starting with a letter, not stop words),
/// with repeats, as `(lowercased, as written)`: the units of the open-file query.
pub fn identifiers(text: &str, mut sink: impl FnMut(String, &str)) {
    for_each_run(text, |run| {
        let written = run.trim_matches('_');
        let whole = written.to_lowercase();
        if whole.chars().count() >= 3 && whole.chars().next().is_some_and(char::is_alphabetic) && !is_stop_word(&whole) {
            sink(whole, written);
        }
    });
}

/// Whole words of a message (lowercased, ≥ 3 characters, not stop words), deduplicated in
/// order: what a user would grep for.
pub fn words(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for_each_run(text, |run| {
        let w = run.trim_matches('_').to_lowercase();
        if w.chars().count() >= 3 && w.chars().any(char::is_alphabetic) && !is_stop_word(&w) && !out.contains(&w) {
            out.push(w);
        }
    });
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identifiers_split_on_case_underscore_and_digits() {
        assert_eq!(identifier_parts("HTTPError"), vec!["HTTP", "Error"]);
        assert_eq!(identifier_parts("parseAsync"), vec!["parse", "Async"]);
        assert_eq!(identifier_parts("max_file_bytes"), vec!["max", "file", "bytes"]);
        assert_eq!(identifier_parts("utf8Decode"), vec!["utf", "8", "Decode"]);
        let mut all = Vec::new();
        terms("The parseAsync() of a ZodError, 42 times.", |t| all.push(t));
        assert_eq!(all, vec!["parseasync", "parse", "async", "zoderror", "zod", "error", "times"]);
        let mut ids = Vec::new();
        identifiers("const x = parseAsync(input_value) // ok", |t, w| ids.push((t, w.to_string())));
        assert_eq!(ids, vec![("const".into(), "const".into()), ("parseasync".into(), "parseAsync".into()), ("input_value".into(), "input_value".into())]);
        assert_eq!(words("Fix the retry of retry timeouts in ky"), vec!["fix", "retry", "timeouts"]);
    }
}
