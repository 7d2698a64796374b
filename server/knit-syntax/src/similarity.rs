//! How alike two declaration names are, in words a person can check: the sub-words they
//! share (`resolveAnchor` and `anchor_resolver` share `resolve`/`resolver`'s stem and
//! `anchor`) and how close the spellings are. Used to rank did-you-mean suggestions and
//! the new targets offered for a lost anchor; pure and cheap (no allocation beyond the
//! token lists, names over 200 characters are compared by tokens alone).

use crate::decl::{last_segment, strip_labels};

/// The lower-cased sub-words of an identifier: split at non-alphanumerics, at
/// lower→upper case changes and before the last capital of an acronym (`HTTPServer` →
/// `http`, `server`), and between letters and digits.
pub fn name_tokens(name: &str) -> Vec<String> {
    let chars: Vec<char> = name.chars().collect();
    let mut out = Vec::new();
    let mut cur = String::new();
    for (i, &c) in chars.iter().enumerate() {
        if !c.is_alphanumeric() {
            flush(&mut cur, &mut out);
            continue;
        }
        if let Some(&p) = i.checked_sub(1).and_then(|j| chars.get(j)) {
            let next_lower = chars.get(i + 1).is_some_and(|n| n.is_lowercase());
            let boundary = (p.is_lowercase() && c.is_uppercase())
                || (p.is_uppercase() && c.is_uppercase() && next_lower)
                || (p.is_alphabetic() && c.is_numeric())
                || (p.is_numeric() && c.is_alphabetic());
            if boundary {
                flush(&mut cur, &mut out);
            }
        }
        cur.extend(c.to_lowercase());
    }
    flush(&mut cur, &mut out);
    out
}

fn flush(cur: &mut String, out: &mut Vec<String>) {
    if !cur.is_empty() {
        out.push(std::mem::take(cur));
    }
}

/// Two sub-words match when equal or when one is the other plus a short suffix
/// (`resolve`/`resolver`, `handler`/`handlers`): renames often add or drop one.
fn words_match(a: &str, b: &str) -> bool {
    if a == b {
        return true;
    }
    let (short, long) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    short.len() >= 4 && long.starts_with(short) && long.len() - short.len() <= 3
}

/// How alike two names are, 0 to 1, and the sub-words of `want` that `have` shares.
/// Compares the simple names (last segment, Swift labels dropped): the larger of the
/// shared sub-words' Dice coefficient and the spelling's edit similarity (a typo in one
/// word shares no sub-word but is close).
pub fn name_similarity(want: &str, have: &str) -> (f32, Vec<String>) {
    let want = strip_labels(last_segment(want));
    let have = strip_labels(last_segment(have));
    let a = name_tokens(&want);
    let b = name_tokens(&have);
    if a.is_empty() || b.is_empty() {
        return (0.0, Vec::new());
    }
    let mut used = vec![false; b.len()];
    let mut shared = Vec::new();
    for w in &a {
        if let Some(j) = (0..b.len()).find(|&j| !used[j] && words_match(w, &b[j])) {
            used[j] = true;
            shared.push(w.clone());
        }
    }
    let dice = 2.0 * shared.len() as f32 / (a.len() + b.len()) as f32;
    let (wl, hl) = (want.to_lowercase(), have.to_lowercase());
    let longest = wl.chars().count().max(hl.chars().count());
    let spelling = if longest == 0 || longest > 200 { 0.0 } else { 1.0 - edit_distance(&wl, &hl) as f32 / longest as f32 };
    (dice.max(spelling), shared)
}

/// Levenshtein distance over chars; callers bound the lengths (over 200 chars:
/// `usize::MAX / 2`).
pub fn edit_distance(a: &str, b: &str) -> usize {
    edit_distance_within(a, b, usize::MAX).unwrap_or(usize::MAX / 2)
}

/// [`edit_distance`] when it is at most `limit`, else None — found early: the lengths'
/// difference, or a row of the table past `limit`, settles it.
pub fn edit_distance_within(a: &str, b: &str, limit: usize) -> Option<usize> {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    if a.len() > 200 || b.len() > 200 || a.len().abs_diff(b.len()) > limit {
        return None;
    }
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut cur = vec![0; b.len() + 1];
    for i in 1..=a.len() {
        cur[0] = i;
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            cur[j] = (prev[j] + 1).min(cur[j - 1] + 1).min(prev[j - 1] + cost);
        }
        if cur.iter().min().is_some_and(|&m| m > limit) {
            return None;
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    (prev[b.len()] <= limit).then_some(prev[b.len()])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identifiers_split_into_sub_words() {
        assert_eq!(name_tokens("resolveAnchor"), ["resolve", "anchor"]);
        assert_eq!(name_tokens("anchor_resolver"), ["anchor", "resolver"]);
        assert_eq!(name_tokens("HTTPServer2"), ["http", "server", "2"]);
        assert_eq!(name_tokens("Cart.total"), ["cart", "total"]);
        assert!(name_tokens("--").is_empty());
    }

    #[test]
    fn shared_words_and_spelling_both_count() {
        let (s, shared) = name_similarity("Resolver.resolveAnchor", "anchorResolve");
        assert_eq!(shared, ["resolve", "anchor"]);
        assert!((s - 1.0).abs() < 1e-6, "{s}");
        // One word of two in common.
        let (s, shared) = name_similarity("dispatchRequest", "handleRequest");
        assert_eq!(shared, ["request"]);
        assert!((0.5..0.6).contains(&s), "{s}");
        // A typo: no whole word in common, the spelling is close.
        let (s, shared) = name_similarity("formatPrcie", "formatPrice");
        assert_eq!(shared, ["format"]);
        assert!(s > 0.8, "{s}");
        // Unrelated names score low.
        assert!(name_similarity("dispatch", "version").0 < 0.3);
        // Labels and containers do not count; a suffix of up to three letters does.
        assert_eq!(name_similarity("Mixer.blend(first:second:)", "Other.blend").0, 1.0);
        assert_eq!(name_similarity("handler", "handlers").1, ["handler"]);
    }

    #[test]
    fn did_you_mean_puts_the_likeliest_declaration_first() {
        let src = "export class Hono {\n  basePath(p: string) { return p; }\n  notFound() {}\n}\nexport interface HonoOptions { strict: boolean }\n";
        let syn = crate::parse(crate::Lang::TypeScript, src);
        let names = |want: &str| -> Vec<String> {
            crate::fragment::suggestions(want, &syn.declarations, 3).iter().map(|&i| syn.declarations[i].qualified_name.clone()).collect()
        };
        // The class the name extends, before a member that shares one of its words.
        let got = names("HonoBase");
        assert_eq!(got.first().map(String::as_str), Some("Hono"), "{got:?}");
        assert!(got.contains(&"Hono.basePath".to_string()), "{got:?}");
        // A typo in a member finds that member first.
        assert_eq!(names("Hono.notFond").first().map(String::as_str), Some("Hono.notFound"));
        // Nothing alike: nothing offered.
        assert!(names("zzz").is_empty());
    }
}
