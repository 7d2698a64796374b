//! Grammar gaps: valid code that a compiled-in grammar cannot read, and the like-for-like
//! edits ([`Repair`]) that let it. Each finder scans the text of a file whose plain parse
//! had errors; the caller keeps the repaired parse only when it has fewer error sites, so
//! a finder that fires where it should not costs a second parse, never a wrong tree.
//!
//! Found with `knit bench coverage` on real repositories (README): TypeScript variance
//! annotations and `export type *` (zod, trpc), call signatures on a line of their own
//! (the upstream tree-sitter-typescript issue #335), Swift's `__owned`/`__shared`
//! parameter modifiers (swift-collections). Scans are linear and bounded by the caller's
//! repair limit.

use super::Repair;

fn is_word_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'$'
}

/// Offsets where `word` stands as a whole word in `src`.
fn word_at(src: &[u8], word: &[u8]) -> Vec<usize> {
    let mut out = Vec::new();
    let mut i = 0;
    while let Some(p) = find(&src[i..], word) {
        let at = i + p;
        let before_ok = at == 0 || !is_word_byte(src[at - 1]);
        let after_ok = src.get(at + word.len()).is_none_or(|&b| !is_word_byte(b));
        if before_ok && after_ok {
            out.push(at);
        }
        i = at + word.len();
    }
    out
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

/// Index past the blanks (spaces, tabs) at `i`.
fn skip_blanks(src: &[u8], mut i: usize) -> usize {
    while src.get(i).is_some_and(|&b| b == b' ' || b == b'\t') {
        i += 1;
    }
    i
}

/// Index past any whitespace, line breaks included, at `i`.
fn skip_space(src: &[u8], mut i: usize) -> usize {
    while src.get(i).is_some_and(|b| b.is_ascii_whitespace()) {
        i += 1;
    }
    i
}

/// The last non-whitespace byte before `i`, with its index.
fn prev_non_space(src: &[u8], i: usize) -> Option<(usize, u8)> {
    src[..i].iter().rposition(|b| !b.is_ascii_whitespace()).map(|p| (p, src[p]))
}

/// [`prev_non_space`], also stepping back over block comments (`<\n /** note */ out T`).
fn prev_code(src: &[u8], mut i: usize) -> Option<(usize, u8)> {
    loop {
        let (p, b) = prev_non_space(src, i)?;
        if b == b'/' && p > 0 && src[p - 1] == b'*' {
            // Comments between type parameters are short; a bounded look-back keeps a
            // file of many `*/ out T` linear.
            let from = (p - 1).saturating_sub(4096);
            let open = find_back(&src[from..p - 1], b"/*")?;
            i = from + open;
            continue;
        }
        return Some((p, b));
    }
}

fn find_back(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).rposition(|w| w == needle)
}

/// Index past the identifier at `i` (same index when there is none).
fn skip_word(src: &[u8], mut i: usize) -> usize {
    while src.get(i).is_some_and(|&b| is_word_byte(b)) {
        i += 1;
    }
    i
}

/// TypeScript 4.7 variance annotations, `<in T, out U, in out V>`: the grammar knows none
/// of them. The keyword(s) and the blanks after them are excised.
pub(crate) fn typescript_variance(src: &str, out: &mut Vec<Repair>) {
    let b = src.as_bytes();
    let mut taken: Vec<(usize, usize)> = Vec::new();
    for kw in [&b"in"[..], &b"out"[..]] {
        for at in word_at(b, kw) {
            if taken.iter().any(|&(s, e)| s <= at && at < e) {
                continue; // the `out` of an `in out` already taken
            }
            // After `<` or `,` of a type parameter list (comments between)…
            if !matches!(prev_code(b, at), Some((_, b'<' | b','))) {
                continue;
            }
            // …`in out` as one annotation…
            let mut end = skip_blanks(b, at + kw.len());
            if kw == b"in" && b[end..].starts_with(b"out") && b.get(end + 3).is_some_and(|&c| c == b' ' || c == b'\t') {
                end = skip_blanks(b, end + 3);
            }
            if end == at + kw.len() {
                continue; // no blank: `in`/`out` is the parameter's own name
            }
            // …then the parameter's name, then what may follow a type parameter.
            let name_end = skip_word(b, end);
            if name_end == end {
                continue;
            }
            let next = skip_space(b, name_end);
            let follows = b[next..].starts_with(b"extends") || matches!(b.get(next), Some(b'=' | b',' | b'>'));
            if follows {
                out.push(Repair::Excise { start: at, end });
                taken.push((at, end));
            }
        }
    }
}

/// TypeScript 5.0 `export type * from '…'` and `export type * as ns from '…'`: the
/// `type` (and its blanks) is excised, leaving the `export *` the grammar reads.
pub(crate) fn typescript_export_type_star(src: &str, out: &mut Vec<Repair>) {
    let b = src.as_bytes();
    for at in word_at(b, b"type") {
        let after = skip_space(b, at + 4);
        if b.get(after) != Some(&b'*') {
            continue;
        }
        let Some((p, _)) = prev_non_space(b, at) else { continue };
        if p >= 5 && &b[p - 5..=p] == b"export" && (p < 6 || !is_word_byte(b[p - 6])) {
            out.push(Repair::Excise { start: at, end: after });
        }
    }
}

/// Call and construct signatures with type parameters on a line of their own in an
/// interface or object type (`\n  <P>(h: H<P>): R`, tree-sitter-typescript #335):
/// automatic semicolon insertion does not end the member before a line-initial `<`, so
/// the whole body fails. A `;` written over the last blank of the indentation ends the
/// previous member explicitly; the blank it covers hashed nothing, so no token changes.
pub(crate) fn typescript_line_initial_signature(src: &str, out: &mut Vec<Repair>) {
    let b = src.as_bytes();
    let mut line_start = 0;
    while line_start < b.len() {
        let line_end = b[line_start..].iter().position(|&c| c == b'\n').map_or(b.len(), |p| line_start + p);
        let first = skip_blanks(b, line_start);
        if first > line_start && first < line_end && b[first] == b'<' {
            // Only after a member that did not end itself: the previous code byte is
            // not `{`, `;` or `,` (nor an operator that continues an expression; a
            // closing `>` ends type arguments, as in `): Hono<E, P>`).
            if let Some((_, prev)) = prev_non_space(b, line_start) {
                if !matches!(prev, b'{' | b';' | b',' | b'(' | b'[' | b'=' | b'<' | b'|' | b'&' | b'?' | b':') {
                    out.push(Repair::Overwrite { at: first - 1, byte: b';' });
                }
            }
        }
        line_start = line_end + 1;
    }
}

/// Swift's underscored ownership modifiers on parameter types, `x: __owned T` and
/// `x: __shared T`, which tree-sitter-swift 0.7 does not know (`borrowing`, `consuming`
/// and `inout` it does): the modifier and its blanks are excised.
pub(crate) fn swift_underscored_ownership(src: &str, out: &mut Vec<Repair>) {
    let b = src.as_bytes();
    for kw in [&b"__owned"[..], &b"__shared"[..]] {
        for at in word_at(b, kw) {
            if !matches!(prev_non_space(b, at), Some((_, b':'))) {
                continue;
            }
            let end = skip_blanks(b, at + kw.len());
            if end > at + kw.len() && b.get(end).is_some_and(|&c| is_word_byte(c) || c == b'(' || c == b'[') {
                out.push(Repair::Excise { start: at, end });
            }
        }
    }
}

/// Swift modifiers tree-sitter-swift 0.7 does not know: `__consuming func` (a method
/// that consumes `self`) and the `sending` result of Swift 6 (`-> sending T`). The
/// keyword and its blanks are excised. (When `__consuming` is a declaration's first token
/// the repaired declaration starts after it, so its print lacks that one token.)
pub(crate) fn swift_unknown_modifiers(src: &str, out: &mut Vec<Repair>) {
    let b = src.as_bytes();
    for at in word_at(b, b"__consuming") {
        let end = skip_blanks(b, at + "__consuming".len());
        if end > at + "__consuming".len() && b.get(end).is_some_and(|&c| is_word_byte(c)) {
            out.push(Repair::Excise { start: at, end });
        }
    }
    for at in word_at(b, b"sending") {
        let after_arrow = prev_non_space(b, at).is_some_and(|(p, c)| c == b'>' && p > 0 && b[p - 1] == b'-');
        let end = skip_blanks(b, at + "sending".len());
        if after_arrow && end > at + "sending".len() && b.get(end).is_some_and(|&c| is_word_byte(c) || c == b'(' || c == b'[') {
            out.push(Repair::Excise { start: at, end });
        }
    }
}

/// Swift's `@_lifetime(…)` attribute (swift-collections: 290 of them) takes dependence
/// specifiers the grammar does not know: `@_lifetime(borrow table)`,
/// `@_lifetime(self: copy self)`. Inside its parentheses (one line, no nesting), the blank
/// between two words becomes `+` and a `self` label becomes `xelf`, which the grammar
/// reads as an expression and a label; the tokens hashed are the original ones (the
/// blank hashed nothing, the label's text is read from the original).
pub(crate) fn swift_lifetime_attributes(src: &str, out: &mut Vec<Repair>) {
    let b = src.as_bytes();
    let mut i = 0;
    while let Some(p) = find(&b[i..], b"@_lifetime(") {
        let open = i + p + "@_lifetime".len();
        i = open + 1;
        let Some(close) = b[open..].iter().position(|&c| c == b')' || c == b'\n').map(|q| open + q) else { break };
        if b[close] != b')' || b[open + 1..close].contains(&b'(') {
            continue;
        }
        let mut k = open + 1;
        let mut at_label = true;
        while k < close {
            let c = b[k];
            if at_label && b[k..close].starts_with(b"self") && skip_blanks(b, k + 4) < close && b[skip_blanks(b, k + 4)] == b':' {
                out.push(Repair::Overwrite { at: k, byte: b'x' });
            }
            if c == b' ' || c == b'\t' {
                let end = skip_blanks(b, k);
                if k > open + 1 && is_word_byte(b[k - 1]) && end < close && is_word_byte(b[end]) {
                    out.push(Repair::Overwrite { at: end - 1, byte: b'+' });
                }
                k = end;
                continue;
            }
            at_label = c == b',';
            k += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cuts(f: fn(&str, &mut Vec<Repair>), src: &str) -> Vec<String> {
        let mut r = Vec::new();
        f(src, &mut r);
        r.iter()
            .map(|r| match *r {
                Repair::Excise { start, end } => format!("cut {:?}", &src[start..end]),
                Repair::Overwrite { at, byte } => format!("{at}:{}", byte as char),
            })
            .collect()
    }

    #[test]
    fn variance_annotations_are_found_only_in_parameter_lists() {
        let mut found = cuts(typescript_variance, "interface Z<out O = unknown, in I, in out T extends X> {}");
        found.sort();
        assert_eq!(found, ["cut \"in \"", "cut \"in out \"", "cut \"out \""]);
        assert!(cuts(typescript_variance, "for (const k in obj) {}").is_empty());
        assert!(cuts(typescript_variance, "type F<in> = 1").is_empty(), "a parameter named `in` is not an annotation");
        assert!(cuts(typescript_variance, "if (a < out) {}").is_empty());
        assert_eq!(cuts(typescript_variance, "interface O<\n  /** @ts-ignore */\n  out S extends A = B,\n> {}"), ["cut \"out \""]);
    }

    #[test]
    fn export_type_star_loses_only_its_type() {
        assert_eq!(cuts(typescript_export_type_star, "export type * from './x';"), ["cut \"type \""]);
        assert_eq!(cuts(typescript_export_type_star, "export type * as ns from './x';"), ["cut \"type \""]);
        assert!(cuts(typescript_export_type_star, "export type A = B * C;").is_empty());
        assert!(cuts(typescript_export_type_star, "reexport type * from 'x'").is_empty());
    }

    #[test]
    fn a_line_initial_signature_gets_a_semicolon_over_its_indentation() {
        let src = "interface H {\n  // get(handler)\n  <P>(h: P): R\n\n  <P>(p: string, h: P): R\n}\n";
        let at = src.find("  <P>(p").unwrap() + 1;
        let first = src.find("  <P>(h").unwrap() + 1;
        assert_eq!(cuts(typescript_line_initial_signature, src), [format!("{first}:;"), format!("{at}:;")]);
        assert!(cuts(typescript_line_initial_signature, "type T = {\n  <P>(h: P): R\n}").is_empty(), "after `{{` nothing is open");
    }

    #[test]
    fn swift_ownership_modifiers_only_on_parameter_types() {
        assert_eq!(cuts(swift_underscored_ownership, "func f(_ x: __owned T, y: __shared [Int]) {}"), ["cut \"__owned \"", "cut \"__shared \""]);
        assert!(cuts(swift_underscored_ownership, "let __owned = 1").is_empty());
    }

    #[test]
    fn consuming_and_sending_are_cut_where_they_modify() {
        assert_eq!(
            cuts(swift_unknown_modifiers, "public __consuming func f() -> sending Result {}\nlet sending = 1\nf(__consuming)"),
            ["cut \"__consuming \"", "cut \"sending \""]
        );
    }

    #[test]
    fn lifetime_specifiers_become_expressions() {
        let src = "@_lifetime(borrow table)\n@_lifetime(self: copy self)\n@_lifetime(&self)\nfunc f() {}";
        let plus1 = src.find("w table").unwrap() + 1;
        let x = src.find("self:").unwrap();
        let plus2 = src.find("y self)").unwrap() + 1;
        assert_eq!(cuts(swift_lifetime_attributes, src), [format!("{plus1}:+"), format!("{x}:x"), format!("{plus2}:+")]);
    }
}
