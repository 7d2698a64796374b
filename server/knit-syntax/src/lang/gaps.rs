//! Grammar gaps: valid code that a compiled-in grammar cannot read, and the like-for-like
//! edits ([`Repair`]) that let it. Each finder scans the text of a file whose plain parse
//! had errors; the caller keeps the repaired parse only when it has fewer error sites, so
//! a finder that fires where it should not costs a second parse, never a wrong tree.
//!
//! Found with `knit bench coverage` on real repositories (README): TypeScript variance
//! annotations and `export type *` (zod, trpc), call signatures on a line of their own
//! (the upstream tree-sitter-typescript issue #335), Swift's `__owned`/`__shared`
//! parameter modifiers (swift-collections), and later from repositories no repair had
//! been made from (elysia, drizzle-orm, TanStack Router, swift-openapi-generator,
//! swift-dependencies, swift-composable-architecture, swift-testing, lit, mdBook's Rust;
//! Kotlin's from ktor, kotlinx.coroutines and okhttp).
//! Some finders take the regions the
//! tree marks as errors (JSX text, template literal types) instead of scanning the text.
//! Scans are linear and bounded by the caller's repair limit.

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

/// Offsets where `needle` starts in `hay`, left to right, never overlapping.
fn occurrences<'a>(hay: &'a [u8], needle: &'a [u8]) -> impl Iterator<Item = usize> + 'a {
    let mut i = 0;
    std::iter::from_fn(move || {
        let at = i + find(hay.get(i..)?, needle)?;
        i = at + needle.len();
        Some(at)
    })
}

/// The bytes Swift spells operators with (`..<`, `!=`, `?.`): a range operator's name
/// followed by one of them is a longer operator, not the range operator.
const SWIFT_OPERATOR_BYTES: &[u8] = b"./=-+!*%<>&|^~?";

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

/// The last non-blank byte before `i` on `i`'s own line, with its index.
fn prev_on_line(src: &[u8], i: usize) -> Option<(usize, u8)> {
    prev_non_space(src, i).filter(|&(p, _)| !src[p..i].contains(&b'\n'))
}

/// A word the grammar takes for a keyword or a type (`try`, `open`, `str`) but the code
/// uses as a name: wherever it stands whole and `is_name(offset)` says so, its first
/// letter becomes a capital (`.Try`, `Open(`, `Str!`), an identifier of the same length
/// the grammar reads as a name; names are read from the original text.
fn capitalise_where(src: &[u8], word: &[u8], is_name: impl Fn(usize) -> bool, out: &mut Vec<Repair>) {
    for at in word_at(src, word) {
        if is_name(at) {
            out.push(Repair::Overwrite { at, byte: word[0].to_ascii_uppercase() });
        }
    }
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

/// [`prev_code`], also stepping back over `//` comments (TypeScript's and Swift's): a
/// comment line between type parameters (`},\n  // ? scoped\n  in out E = {…}`). The
/// first `//` of the line counts; one inside a string only makes a repair be missed. The
/// look-back stops 4 KiB before `i` or after 8 comment lines (a file of many `in` stays
/// linear).
fn prev_ts_code(src: &[u8], mut i: usize) -> Option<(usize, u8)> {
    let floor = i.saturating_sub(4096);
    // a few comment lines at most (real parameter lists hold one or two)
    for _ in 0..8 {
        let (p, b) = prev_code(src, i)?;
        if p < floor {
            return None;
        }
        let line_start = match src[floor..p].iter().rposition(|&c| c == b'\n') {
            Some(q) => floor + q + 1,
            None if floor == 0 => 0,
            None => return None,
        };
        match find(&src[line_start..=p], b"//") {
            Some(q) => i = line_start + q,
            None => return Some((p, b)),
        }
    }
    None
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
    // where the `out` of an `in out` already taken stands
    let mut taken_outs: std::collections::HashSet<usize> = std::collections::HashSet::new();
    for kw in [&b"in"[..], &b"out"[..]] {
        for at in word_at(b, kw) {
            if taken_outs.contains(&at) {
                continue;
            }
            // `in out` as one annotation…
            let mut end = skip_blanks(b, at + kw.len());
            let mut out_at = None;
            if kw == b"in"
                && b[end..].starts_with(b"out")
                && b.get(end + 3).is_some_and(|&c| c == b' ' || c == b'\t')
            {
                out_at = Some(end);
                end = skip_blanks(b, end + 3);
            }
            if end == at + kw.len() {
                continue; // no blank: `in`/`out` is the parameter's own name
            }
            // …then the parameter's name, then what may follow a type parameter…
            let name_end = skip_word(b, end);
            if name_end == end {
                continue;
            }
            let next = skip_space(b, name_end);
            let follows = b[next..].starts_with(b"extends")
                || matches!(b.get(next), Some(b'=' | b',' | b'>'));
            // …after `<` or `,` of a type parameter list (comments between, and a TS 5.0
            // `const` modifier: elysia's `<const in out BasePath extends string = ''>`).
            // Looked at last: the look-back is the costly part.
            let before = || match prev_ts_code(b, at) {
                Some((p, b't'))
                    if p >= 4
                        && &b[p - 4..=p] == b"const"
                        && (p < 5 || !is_word_byte(b[p - 5])) =>
                {
                    prev_ts_code(b, p - 4)
                }
                other => other,
            };
            let follows = follows && matches!(before(), Some((_, b'<' | b',')));
            if follows {
                out.push(Repair::Excise { start: at, end });
                taken_outs.extend(out_at);
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

/// `using` as a plain identifier (drizzle's `using(using: string)`, `const [name, using]`,
/// `{ using: using ? using : undefined }`): the grammar's TypeScript 5.2 `using`
/// declarations made the word a keyword it accepts as a name almost nowhere. Where it is
/// not a declaration's keyword — which a name follows, `using res = …` — one letter is
/// overwritten (`usinq`), making an identifier of the same length; names are read from
/// the original text.
pub(crate) fn typescript_using_identifiers(src: &str, out: &mut Vec<Repair>) {
    let b = src.as_bytes();
    for at in word_at(b, b"using") {
        let next = skip_blanks(b, at + 5);
        let declares = next > at + 5
            && b.get(next)
                .is_some_and(|&c| c.is_ascii_alphabetic() || c == b'_' || c == b'$');
        if !declares {
            out.push(Repair::Overwrite {
                at: at + 4,
                byte: b'q',
            });
        }
    }
}

/// A typed `using` declaration (`using _time: FakeTime = new FakeTime();`, `await using
/// r: Res = open()`; Deno's std): the grammar reads `using` declarations only untyped.
/// The annotation, from its `:` up to the `=`, is excised, its tokens hashed where they
/// stand. The `=` is looked for outside brackets and string literals, not past a `;` and
/// within 512 bytes (a hostile file of many `using a:` stays linear).
pub(crate) fn typescript_using_type_annotations(src: &str, out: &mut Vec<Repair>) {
    let b = src.as_bytes();
    for at in word_at(b, b"using") {
        let name = skip_blanks(b, at + 5);
        let name_end = skip_word(b, name);
        if name == at + 5 || name_end == name || b[name].is_ascii_digit() {
            continue;
        }
        let colon = skip_blanks(b, name_end);
        if b.get(colon) != Some(&b':') {
            continue;
        }
        let stop = (colon + 512).min(b.len());
        let mut depth = 0i32;
        let mut i = colon + 1;
        while i < stop && depth >= 0 {
            match b[i] {
                // a function type's arrow
                b'=' if b.get(i + 1) == Some(&b'>') => i += 1,
                b'=' if depth == 0 => {
                    out.push(Repair::Excise { start: colon, end: i });
                    break;
                }
                b'<' | b'(' | b'[' | b'{' => depth += 1,
                b'>' | b')' | b']' | b'}' => depth -= 1,
                b'\'' | b'"' => match crate::tokens::closing_quote(b, i) {
                    Some(close) => i = close,
                    None => break,
                },
                b';' => break,
                _ => {}
            }
            i += 1;
        }
    }
}

/// Escapes in a template literal type (``type E<P> = `install \`${P}\``  ``): the
/// grammar reads no backslash there, though TypeScript does. Each `\x` inside the
/// literal's text becomes two blanks (the literal's text is hashed from the original).
/// The literals are found from the tree's `template_literal_type` nodes with errors
/// (`starts`: their opening backticks); the scan of one stops after 4 KiB.
pub(crate) fn typescript_template_type_escapes(src: &str, starts: &[usize], out: &mut Vec<Repair>) {
    let b = src.as_bytes();
    for &open in starts {
        if b.get(open) != Some(&b'`') {
            continue;
        }
        let end = b.len().min(open + 4096);
        let mut i = open + 1;
        while i < end {
            match b[i] {
                b'`' => break,
                b'\\' if i + 1 < end => {
                    // only printable ASCII is overwritten (a repair never touches a
                    // line break or a multi-byte character)
                    out.push(Repair::Overwrite { at: i, byte: b' ' });
                    if b[i + 1].is_ascii_graphic() {
                        out.push(Repair::Overwrite {
                            at: i + 1,
                            byte: b' ',
                        });
                    }
                    i += 2;
                }
                b'$' if b.get(i + 1) == Some(&b'{') => {
                    // a placeholder's type: skip to its closing brace
                    let mut depth = 0usize;
                    while i < end {
                        match b[i] {
                            b'{' => depth += 1,
                            b'}' => {
                                depth -= 1;
                                if depth == 0 {
                                    break;
                                }
                            }
                            _ => {}
                        }
                        i += 1;
                    }
                    i += 1;
                }
                _ => i += 1,
            }
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
    for (line_start, first, line_end) in lines(b) {
        if first > line_start && first < line_end && b[first] == b'<' {
            // Only after a member that did not end itself: the previous code byte is
            // not `{`, `;` or `,` (nor an operator that continues an expression; a
            // closing `>` ends type arguments, as in `): Hono<E, P>`, but the `>` of an
            // arrow `=>` starts its body, here a generic arrow function: Effect's
            // curried `(runFork) =>` / `<XE extends E>(effect: …) =>`). Comments are
            // stepped over: `dual<` / `/** @internal */` / `<A>(self: A) => A` is a
            // type argument after a `,`.
            if let Some((p, prev)) = prev_ts_code(b, line_start) {
                let arrow = prev == b'>' && p > 0 && b[p - 1] == b'=';
                if !arrow && !matches!(prev, b'{' | b';' | b',' | b'(' | b'[' | b'=' | b'<' | b'|' | b'&' | b'?' | b':') {
                    out.push(Repair::Overwrite { at: first - 1, byte: b';' });
                }
            }
        }
    }
}

/// `let as = …` (Effect's `PubSub`: `let as = self.pollers.length === 0 ? …`):
/// TypeScript allows `as` as a variable's name, and tree-sitter-typescript reads it after
/// `const` and in expressions, but after `let` it reads the start of a cast. Where `let`
/// is followed by the word `as` and then `=`, `:`, `;` or `,`, its first letter is
/// capitalised (`let As = …`), an identifier of the same length; names are read from the
/// original text.
pub(crate) fn typescript_let_as(src: &str, out: &mut Vec<Repair>) {
    let b = src.as_bytes();
    let after_let = |at: usize| {
        prev_non_space(b, at).is_some_and(|(p, _)| p < at - 1 && p >= 2 && &b[p - 2..=p] == b"let" && (p < 3 || !is_word_byte(b[p - 3])))
    };
    capitalise_where(b, b"as", |at| after_let(at) && matches!(b.get(skip_blanks(b, at + 2)), Some(b'=' | b':' | b';' | b',')), out);
}

/// `keyof readonly T` (`keyof readonly [string, number]`, type-fest's tests): the type
/// operator `keyof` takes no `readonly` operand in tree-sitter-typescript 0.23, anywhere a
/// type stands — an alias, a return type (the function's declaration is then unclean), a
/// call's type arguments. The `readonly` and its blanks are excised (`keyof [string,
/// number]` reads) and hashed where they stand.
pub(crate) fn typescript_keyof_readonly(src: &str, out: &mut Vec<Repair>) {
    let b = src.as_bytes();
    for at in word_at(b, b"keyof") {
        let word = skip_space(b, at + "keyof".len());
        let end = word + "readonly".len();
        if word > at + "keyof".len()
            && b[word..].starts_with(b"readonly")
            && b.get(end).is_some_and(|c| c.is_ascii_whitespace())
        {
            out.push(Repair::Excise { start: word, end: skip_space(b, end) });
        }
    }
}

/// A tagged template whose type arguments start with an object type or hold an array
/// type — ``sql<{ id: Uint8Array }>`SELECT …` `` (Effect's SQL clients),
/// ``sql<Row[]>`…` `` (postgres.js): tree-sitter-typescript 0.23 reads type arguments
/// before a template only when they are simpler (``sql<Row>`…` ``). The type arguments are
/// excised and hashed where they stand (a `;` between members is skipped as the
/// language's rules skip it where the grammar reads an object type). The backward look
/// from a template's backtick to its `<` is bounded (2 KiB), so the scan stays linear.
pub(crate) fn typescript_tagged_template_type_arguments(src: &str, out: &mut Vec<Repair>) {
    let b = src.as_bytes();
    if find(b, b">`").is_none() {
        return;
    }
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'`' && i > 0 && b[i - 1] == b'>' {
            if let Some(open) = type_arguments_start(b, i - 1) {
                let first = skip_space(b, open + 1);
                let tagged = open > 0 && is_word_byte(b[open - 1]);
                if tagged && (b.get(first) == Some(&b'{') || find(&b[open..i], b"[]").is_some()) {
                    out.push(Repair::Excise { start: open, end: i });
                }
            }
        }
        match ts_skip_non_code(b, i) {
            Some(next) => i = next,
            None => i += 1,
        }
    }
}

/// The `<` that opens the type arguments closed by the `>` at `close` (brackets balanced,
/// an arrow's `=>` no bracket), looking back at most 2 KiB and never past a `;` outside
/// brackets, a string or a template.
fn type_arguments_start(b: &[u8], close: usize) -> Option<usize> {
    let floor = close.saturating_sub(2048);
    let mut depth: Vec<u8> = Vec::new();
    let mut k = close;
    while k > floor {
        k -= 1;
        let c = b[k];
        match c {
            b'>' if k > 0 && b[k - 1] == b'=' => k -= 1,
            b'>' | b'}' | b')' | b']' => depth.push(c),
            b'<' | b'{' | b'(' | b'[' => {
                let want = match c {
                    b'<' => b'>',
                    b'{' => b'}',
                    b'(' => b')',
                    _ => b']',
                };
                match depth.pop() {
                    None if c == b'<' => return Some(k),
                    Some(top) if top == want => {}
                    _ => return None,
                }
            }
            b';' if depth.is_empty() => return None,
            b'`' | b'"' | b'\'' => return None,
            _ => {}
        }
    }
    None
}

/// A call's type arguments that start with a generic function type, written without a
/// blank: `dual<<K>(key: K) => …, <K>(self: S, key: K) => …>(2, f)`, as prettier joins
/// Effect's `dual<` / `<K>(key: K) => …` on a long line. tree-sitter-typescript lexes `<<`
/// as a shift there (in a type annotation it reads `Array<<T>(a: T) => T>`). The inner
/// type parameter list (`<K>`) is excised and hashed where it stands, so the tokens are
/// those of the broken layout, which the grammar reads. Each `<<` looks ahead at most
/// 1 KiB for the list's `>`.
pub(crate) fn typescript_joined_generic_type_arguments(src: &str, out: &mut Vec<Repair>) {
    let b = src.as_bytes();
    let mut from = 0;
    while let Some(p) = find(&b[from..], b"<<") {
        let at = from + p;
        from = at + 2;
        let inner = at + 1;
        if at == 0 || !is_word_byte(b[at - 1]) || !b.get(inner + 1).is_some_and(|&c| c.is_ascii_alphabetic() || c == b'_' || c == b'$') {
            continue;
        }
        let limit = (inner + 1024).min(b.len());
        let mut depth = 0usize;
        let mut k = inner;
        let mut close = None;
        while k < limit {
            match b[k] {
                b'<' | b'(' | b'[' | b'{' => depth += 1,
                b'>' if k > 0 && b[k - 1] == b'=' => {}
                b'>' | b')' | b']' | b'}' => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        close = (b[k] == b'>').then_some(k);
                        break;
                    }
                }
                b';' | b'\n' | b'"' | b'\'' | b'`' => break,
                _ => {}
            }
            k += 1;
        }
        if let Some(close) = close {
            if b.get(skip_blanks(b, close + 1)) == Some(&b'(') {
                out.push(Repair::Excise { start: inner, end: close + 1 });
                from = close + 1;
            }
        }
    }
}

/// A bare `&` in a JSX attribute string (`href="/?a=1&b=2"`): tree-sitter-typescript's
/// TSX grammar reads `&` there as the start of a character reference and fails without
/// its `;`. Browsers and TypeScript take it literally. The `&` becomes `+` in the
/// attribute's (one-line) string; the string is hashed by value from the original text.
pub(crate) fn tsx_bare_ampersands(src: &str, out: &mut Vec<Repair>) {
    let b = src.as_bytes();
    let mut i = 0;
    while let Some(p) = find(&b[i..], b"=\"") {
        let open = i + p + 1;
        i = open + 1;
        if open < 2 || !is_word_byte(b[open - 2]) {
            continue;
        }
        let Some(len) = b[open + 1..].iter().position(|&c| c == b'"' || c == b'\n') else {
            break;
        };
        let close = open + 1 + len;
        if b[close] != b'"' {
            continue;
        }
        for k in open + 1..close {
            if b[k] != b'&' {
                continue;
            }
            // `&amp;`, `&#38;`, `&#x26;` are references the grammar reads
            let name = skip_word(b, k + 1 + (b.get(k + 1) == Some(&b'#')) as usize);
            if !(name > k + 1 && b.get(name) == Some(&b';')) {
                out.push(Repair::Overwrite { at: k, byte: b'+' });
            }
        }
        i = close + 1;
    }
}

/// A member named `in` or `instanceof` on a line of its own after a member without a
/// `;` (Prisma's generated `equals?: string` / `in?: string[]`): the grammar continues
/// the previous type with the operator instead of ending the member. As for line-initial
/// signatures, a `;` over the last blank of the indentation ends the member before it.
pub(crate) fn typescript_line_initial_operator_members(src: &str, out: &mut Vec<Repair>) {
    let b = src.as_bytes();
    for word in [&b"in"[..], &b"instanceof"[..]] {
        for at in word_at(b, word) {
            // first on its line after some indentation (looked at backwards: O(indent))
            let line_start = at
                - b[..at]
                    .iter()
                    .rev()
                    .take_while(|&&c| c == b' ' || c == b'\t')
                    .count();
            if line_start == at || (line_start > 0 && b[line_start - 1] != b'\n') {
                continue;
            }
            let mut next = skip_blanks(b, at + word.len());
            if b.get(next) == Some(&b'?') {
                next = skip_blanks(b, next + 1);
            }
            if b.get(next) != Some(&b':') {
                continue;
            }
            if let Some((_, prev)) = prev_non_space(b, line_start) {
                if !matches!(
                    prev,
                    b'{' | b';' | b',' | b'(' | b'[' | b'=' | b'<' | b'|' | b'&' | b'?' | b':'
                ) {
                    out.push(Repair::Overwrite {
                        at: at - 1,
                        byte: b';',
                    });
                }
            }
        }
    }
}

/// A bare `&` in JSX text (`<a>Reset & Run</a>`): as in attribute strings (see
/// [`tsx_bare_ampersands`]) the TSX grammar wants a character reference there; React
/// renders the `&` as it is. In the error regions the grammar left among a JSX element's
/// children (`texts`), a `&` that starts no reference like `&amp;` becomes `+`.
pub(crate) fn tsx_text_ampersands(src: &str, texts: &[(usize, usize)], out: &mut Vec<Repair>) {
    let b = src.as_bytes();
    for &(start, end) in texts {
        for i in start..end.min(b.len()) {
            if b[i] != b'&' || b.get(i + 1) == Some(&b'&') || (i > 0 && b[i - 1] == b'&') {
                continue; // `&&` is an operator, never text
            }
            let name = skip_word(b, i + 1 + (b.get(i + 1) == Some(&b'#')) as usize);
            if !(name > i + 1 && b.get(name) == Some(&b';')) {
                out.push(Repair::Overwrite { at: i, byte: b'+' });
            }
        }
    }
}

/// A reserved word as a JSX attribute's name (`<div class="p-2">`, `<label for="x">`,
/// as Solid, Preact and Vue write them): tree-sitter-javascript reads the keyword and
/// fails, though JSX names may be any word (the TSX grammar reads them). Where the word
/// follows a blank and `=` then a string or `{` follow — never valid JavaScript for a
/// reserved word — its first letter becomes `_`; names are read from the original text.
pub(crate) fn jsx_reserved_attribute_names(src: &str, out: &mut Vec<Repair>) {
    const RESERVED: [&[u8]; 24] = [
        b"class",
        b"for",
        b"if",
        b"in",
        b"new",
        b"default",
        b"function",
        b"do",
        b"else",
        b"var",
        b"const",
        b"case",
        b"return",
        b"switch",
        b"while",
        b"with",
        b"delete",
        b"typeof",
        b"void",
        b"import",
        b"export",
        b"extends",
        b"instanceof",
        b"this",
    ];
    let b = src.as_bytes();
    // one pass over the `=` signs: the word before each, if a string or `{` follows
    for eq in 0..b.len() {
        if b[eq] != b'=' || !matches!(b.get(skip_blanks(b, eq + 1)), Some(b'"' | b'\'' | b'{')) {
            continue;
        }
        let word_end = eq
            - b[..eq]
                .iter()
                .rev()
                .take_while(|&&c| c == b' ' || c == b'\t')
                .count();
        let word_len = b[..word_end]
            .iter()
            .rev()
            .take(11)
            .take_while(|&&c| is_word_byte(c))
            .count();
        let at = word_end - word_len;
        if at > 0 && b[at - 1].is_ascii_whitespace() && RESERVED.contains(&&b[at..word_end]) {
            out.push(Repair::Overwrite { at, byte: b'_' });
        }
    }
}

/// Swift's underscored modifiers on parameter types, which tree-sitter-swift 0.7 does not
/// know (`borrowing`, `consuming` and `inout` it does): the ownership modifiers
/// `x: __owned T` and `x: __shared T`, and the compile-time constant `_ name: _const
/// String` (swift-testing's macro declarations). The modifier and its blanks are excised.
pub(crate) fn swift_underscored_ownership(src: &str, out: &mut Vec<Repair>) {
    let b = src.as_bytes();
    for kw in [&b"__owned"[..], &b"__shared"[..], &b"_const"[..]] {
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

/// Members named `try`, `await`, `switch` or `if` (swift-openapi-generator's `case
/// .try(…)`, `kind: .await`, `case .switch(let s)`): Swift reads a keyword after `.` as a
/// member name, tree-sitter-swift 0.7 reads the keyword. Its first letter is capitalised
/// (`.Try`), an identifier of the same length; names are read from the original text.
pub(crate) fn swift_keyword_members(src: &str, out: &mut Vec<Repair>) {
    let b = src.as_bytes();
    for word in [&b"try"[..], b"await", b"switch", b"if"] {
        capitalise_where(b, word, |at| at > 0 && b[at - 1] == b'.' && (at < 2 || b[at - 2] != b'.'), out);
    }
}

/// Locals named like a modifier — `final`, `weak`, `unowned`, `indirect`, `each`,
/// `prefix`, `postfix`, `infix`, `optional`, `required`, `package`, `lazy`, `dynamic`,
/// `isolated`, `open` (swift-async-algorithms: `let final: FinalElement?` … `final = try
/// await read()`; swift-nio: `prefix = parsePrefix` in a `case`): at
/// the start of a statement tree-sitter-swift 0.7 reads the word as the modifier of a
/// declaration that never comes, though it reads the same name anywhere else. Where the
/// word starts a line and an operator or punctuation follows it on that line (`final =`,
/// `weak.x`, `final?.g()`; a modifier is followed by a word or an attribute), its first
/// letter is capitalised, an identifier of the same length; names are read from the
/// original text.
pub(crate) fn swift_modifier_named_locals(src: &str, out: &mut Vec<Repair>) {
    let b = src.as_bytes();
    for word in [
        &b"final"[..],
        b"weak",
        b"unowned",
        b"indirect",
        b"each",
        b"prefix",
        b"postfix",
        b"infix",
        b"optional",
        b"required",
        b"package",
        b"lazy",
        b"dynamic",
        b"isolated",
        b"open",
    ] {
        capitalise_where(
            b,
            word,
            |at| {
                let next = skip_blanks(b, at + word.len());
                is_line_initial(b, at) && b.get(next).is_some_and(|c| b"=.?!+-*/%<>|&^[(".contains(c)) && !b[next..].starts_with(b"//") && !b[next..].starts_with(b"/*")
            },
            out,
        );
    }
}

/// `consume x` or `copy x` (SE-0366, SE-0377) as the subject of a `switch`, an `if let` or
/// a `for … in` (swift-async-algorithms: `switch consume sendResult {`): tree-sitter-swift
/// 0.7 reads the operator elsewhere but not right before a block's `{`. Where the operand
/// — a name, dotted or not — is followed on its line by `{`, the operator word and its
/// blanks are excised and hashed where they stand, as the grammar hashes the operator
/// it reads.
pub(crate) fn swift_ownership_operators_before_blocks(src: &str, out: &mut Vec<Repair>) {
    let b = src.as_bytes();
    for word in [&b"consume"[..], b"copy"] {
        for at in word_at(b, word) {
            let operand = skip_blanks(b, at + word.len());
            if operand == at + word.len() || !b.get(operand).is_some_and(|&c| c.is_ascii_alphabetic() || c == b'_') {
                continue;
            }
            let mut end = skip_word(b, operand);
            while b.get(end) == Some(&b'.') && b.get(end + 1).is_some_and(|&c| c.is_ascii_alphabetic() || c == b'_') {
                end = skip_word(b, end + 1);
            }
            if b.get(skip_blanks(b, end)) == Some(&b'{') && (at == 0 || b[at - 1] != b'.') {
                out.push(Repair::Excise { start: at, end: operand });
            }
        }
    }
}

/// A key path whose first component is a subscript (`\\DependencyValues.[key: k]`, in
/// swift-dependencies): tree-sitter-swift 0.7 marks the `.[` as an error. The `.` becomes a
/// blank, `\\DependencyValues [key: k]`, which it reads as the same key path; without a
/// root (`\\.[i]`) it becomes `_`.
pub(crate) fn swift_key_path_subscript_dot(src: &str, out: &mut Vec<Repair>) {
    let b = src.as_bytes();
    for dot in occurrences(b, b".[") {
        // back over the root type's name (`Values`, `A.B`), at most 256 bytes
        let floor = dot.saturating_sub(256);
        let mut j = dot;
        while j > floor && (is_word_byte(b[j - 1]) || b[j - 1] == b'.') {
            j -= 1;
        }
        if j < dot && j > 0 && b[j - 1] == b'\\' && is_word_byte(b[dot - 1]) {
            out.push(Repair::Overwrite {
                at: dot,
                byte: b' ',
            });
        } else if dot > 0 && b[dot - 1] == b'\\' {
            // no root type (`\\.[i]`): `\\_[i]`, a root the grammar reads
            out.push(Repair::Overwrite {
                at: dot,
                byte: b'_',
            });
        }
    }
}

/// A key path whose component force-unwraps (`\.!`, TCA's `store.id(state: \.!, …)`):
/// tree-sitter-swift 0.7 reads `\.` followed by a name, not by `!`. The `!` becomes `x`,
/// a name of the same length the grammar reads as the component (`\.x`); the token
/// hashed is the original `!`.
pub(crate) fn swift_key_path_force_unwrap(src: &str, out: &mut Vec<Repair>) {
    let b = src.as_bytes();
    for bang in occurrences(b, b"\\.!").map(|at| at + 2) {
        // `\.!=` would be an operator after an empty key path, never a component
        if !b.get(bang + 1).is_some_and(|&c| matches!(c, b'=' | b'!')) {
            out.push(Repair::Overwrite { at: bang, byte: b'x' });
        }
    }
}

/// An operator function or declaration named by a range operator (`static func ..<(lhs:
/// inout Self, rhs: inout Self)`, in swift-testing; `prefix operator ...`):
/// tree-sitter-swift 0.7 lexes `..<` and `...` as its own range tokens, never as an
/// operator's name. The name becomes `.+.`, a dot operator of the same length the grammar
/// reads there; the token hashed is the original name.
pub(crate) fn swift_range_operator_names(src: &str, out: &mut Vec<Repair>) {
    let b = src.as_bytes();
    for word in [&b"func"[..], b"operator"] {
        for at in word_at(b, word) {
            let name = skip_blanks(b, at + word.len());
            let range_name = b[name..].starts_with(b"..<") || b[name..].starts_with(b"...");
            if name > at + word.len() && range_name && !b.get(name + 3).is_some_and(|c| SWIFT_OPERATOR_BYTES.contains(c)) {
                out.push(Repair::Overwrite { at: name + 1, byte: b'+' });
                out.push(Repair::Overwrite { at: name + 2, byte: b'.' });
            }
        }
    }
}

/// A closure or block whose whole body is the empty tuple (`group.submit {\n    ()\n}`,
/// a `catch` that ignores the error, in swift-nio): tree-sitter-swift 0.7 reads a `()`
/// right after a closure's `{` as the start of its signature and fails at the `}`. The
/// two bytes become `[]`, an expression of the same length (the bridge the tree-driven
/// empty-tuple repair in swift.rs uses; that one finds `tuple_expression` nodes, which
/// these never become: the grammar leaves a closure signature in an error); the tokens
/// hashed are the original `(` and `)`.
pub(crate) fn swift_empty_tuple_closure_bodies(src: &str, out: &mut Vec<Repair>) {
    let b = src.as_bytes();
    for at in occurrences(b, b"()") {
        if b.get(skip_space(b, at + 2)) != Some(&b'}') {
            continue;
        }
        // A comment may stand between (`} catch {\n    // ignore it\n    ()\n}`); the
        // look-back over comment lines is for a line-initial `()` only, so each line is
        // read back a bounded number of times and a file of `() }` stays linear.
        let opens_closure = match prev_non_space(b, at) {
            Some((_, b'{')) => true,
            Some(_) if is_line_initial(b, at) => matches!(prev_ts_code(b, at), Some((_, b'{'))),
            _ => false,
        };
        if opens_closure {
            out.push(Repair::Overwrite { at, byte: b'[' });
            out.push(Repair::Overwrite { at: at + 1, byte: b']' });
        }
    }
}

/// `@_specialize(where T == Int)` (swift-nio's `ByteBuffer`): tree-sitter-swift 0.7 reads
/// an attribute's arguments as expressions, and a `where` clause is none. The
/// parenthesised arguments, on the attribute's line, are excised and hashed where they
/// stand, inside the declaration the attribute starts; the bare `@_specialize` is read.
pub(crate) fn swift_specialize_arguments(src: &str, out: &mut Vec<Repair>) {
    let b = src.as_bytes();
    for open in occurrences(b, b"@_specialize(").map(|at| at + "@_specialize".len()) {
        if let Some(close) = close_on_line(b, open) {
            out.push(Repair::Excise { start: open, end: close + 1 });
        }
    }
}

/// A computed property whose body starts with a modified local type
/// (`var v: T {\n  final class Ref { … }`): tree-sitter-swift 0.7 reads a modifier right
/// after the `{` as the start of an accessor block and fails; after any other statement
/// it reads the type. The modifier (`final`, `private`, `fileprivate`) and its blanks are
/// excised where a `class`, `struct`, `enum` or `actor` follows and the `{` closes a
/// line that declares a `var`.
pub(crate) fn swift_modified_local_type_first_in_getter(src: &str, out: &mut Vec<Repair>) {
    let b = src.as_bytes();
    for word in [&b"final"[..], &b"private"[..], &b"fileprivate"[..]] {
        for at in word_at(b, word) {
            let end = skip_blanks(b, at + word.len());
            let kind_end = skip_word(b, end);
            if end == at + word.len()
                || !matches!(&b[end..kind_end], b"class" | b"struct" | b"enum" | b"actor")
            {
                continue;
            }
            let Some((brace, b'{')) = prev_code(b, at) else {
                continue;
            };
            // the `{` closes a line declaring a `var` (its last 256 bytes)
            let floor = brace.saturating_sub(256);
            let line_start = b[floor..brace]
                .iter()
                .rposition(|&c| c == b'\n')
                .map_or(floor, |p| floor + p + 1);
            if !word_at(&b[line_start..brace], b"var").is_empty() {
                out.push(Repair::Excise { start: at, end });
            }
        }
    }
}

/// Swift modifiers tree-sitter-swift 0.7 does not know: `__consuming func` (a method
/// that consumes `self`), the `sending` result of Swift 6 (`-> sending T`) and Swift
/// 6.2's `nonisolated(nonsending)` on a function type (swift-log's `_ operation:
/// nonisolated(nonsending) (Logger) async throws(Failure) -> Result`; before `func` the
/// grammar reads it). The keyword (with its parenthesis) and its blanks are excised.
/// (When `__consuming` is a declaration's first token the repaired declaration starts
/// after it, so its print lacks that one token.)
pub(crate) fn swift_unknown_modifiers(src: &str, out: &mut Vec<Repair>) {
    let b = src.as_bytes();
    for at in word_at(b, b"nonisolated") {
        let attribute = at + b"nonisolated(nonsending)".len();
        let end = skip_blanks(b, attribute);
        if b[at..].starts_with(b"nonisolated(nonsending)") && end > attribute && b.get(end) == Some(&b'(') {
            out.push(Repair::Excise { start: at, end });
        }
    }
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

/// The first non-blank byte of the line holding `i`, and the line's end.
fn line_bounds(src: &[u8], i: usize) -> (usize, usize) {
    let start = src[..i]
        .iter()
        .rposition(|&c| c == b'\n')
        .map_or(0, |p| p + 1);
    let end = src[i..]
        .iter()
        .position(|&c| c == b'\n')
        .map_or(src.len(), |p| i + p);
    (skip_blanks(src, start), end)
}

/// Every line of `src`: where it starts, its first non-blank byte and where it ends (its
/// line break or the end of the text).
fn lines(src: &[u8]) -> impl Iterator<Item = (usize, usize, usize)> + '_ {
    let mut start = 0;
    std::iter::from_fn(move || {
        if start >= src.len() {
            return None;
        }
        let end = src[start..].iter().position(|&c| c == b'\n').map_or(src.len(), |p| start + p);
        let line = (start, skip_blanks(src, start), end);
        start = end + 1;
        Some(line)
    })
}

/// Whether only blanks stand between the line's start and `i` (walks back over blanks
/// only, so calling it for every occurrence of a word stays linear).
pub(crate) fn is_line_initial(src: &[u8], i: usize) -> bool {
    let mut k = i;
    while k > 0 && matches!(src[k - 1], b' ' | b'\t') {
        k -= 1;
    }
    k == 0 || src[k - 1] == b'\n'
}

/// The lines that start with the word `case` (a Swift enum case or switch case): where
/// `case` stands and where its line ends.
fn case_lines(b: &[u8]) -> impl Iterator<Item = (usize, usize)> + '_ {
    word_at(b, b"case").into_iter().filter(|&at| is_line_initial(b, at)).map(|at| (at, line_bounds(b, at).1))
}

/// Whether the line at `line_start` (its first non-blank byte) begins with the word `word`.
fn line_begins_with(src: &[u8], first: usize, word: &[u8]) -> bool {
    src[first..].starts_with(word)
        && src
            .get(first + word.len())
            .is_none_or(|&c| !is_word_byte(c))
}

/// The `)` closing the `(` at `open` on the same line, with no `(` between (None for
/// nesting or a line break).
fn close_on_line(src: &[u8], open: usize) -> Option<usize> {
    let rel = src[open + 1..]
        .iter()
        .position(|&c| matches!(c, b')' | b'(' | b'\n'))?;
    (src[open + 1 + rel] == b')').then_some(open + 1 + rel)
}

/// Compilation conditions tree-sitter-swift 0.7 does not know: `#if _runtime(_multithreaded)`,
/// `_pointerBitWidth(_64)`, `hasFeature(X)`, `_endian(little)` (it knows `os`, `arch`,
/// `swift`, `compiler`, `canImport`, `targetEnvironment` and bare names). The argument list,
/// parentheses included, is excised, leaving the bare name the grammar reads as a
/// condition; its tokens are hashed where they stand. `canImport` with a version
/// (`canImport(Darwin, _version: 346)`, swift-system) loses the version, from its comma.
pub(crate) fn swift_condition_calls(src: &str, out: &mut Vec<Repair>) {
    const KNOWN: [&[u8]; 6] = [
        b"os",
        b"arch",
        b"swift",
        b"compiler",
        b"canImport",
        b"targetEnvironment",
    ];
    let b = src.as_bytes();
    for kw in [&b"#if"[..], &b"#elseif"[..]] {
        let mut i = 0;
        while let Some(p) = find(&b[i..], kw) {
            let at = i + p;
            i = at + kw.len();
            if !is_line_initial(b, at) || b.get(at + kw.len()).is_some_and(|&c| is_word_byte(c)) {
                continue;
            }
            let (_, end) = line_bounds(b, at);
            // The condition ends at the line's end or a `//` comment.
            let end = find(&b[at..end], b"//").map_or(end, |q| at + q);
            let mut k = at + kw.len();
            while k < end {
                if !is_word_byte(b[k]) {
                    k += 1;
                    continue;
                }
                let word_end = skip_word(b, k);
                let word = &b[k..word_end];
                if word == b"canImport" && b.get(word_end) == Some(&b'(') {
                    if let Some(close) = close_on_line(b, word_end).filter(|&c| c < end) {
                        if let Some(comma) = b[word_end..close].iter().position(|&c| c == b',') {
                            out.push(Repair::Excise { start: word_end + comma, end: close });
                        }
                        k = close + 1;
                        continue;
                    }
                }
                if b.get(word_end) == Some(&b'(')
                    && !KNOWN.contains(&word)
                    && !word[0].is_ascii_digit()
                {
                    if let Some(close) = close_on_line(b, word_end).filter(|&c| c < end) {
                        out.push(Repair::Excise {
                            start: word_end,
                            end: close + 1,
                        });
                        k = close + 1;
                        continue;
                    }
                }
                k = word_end;
            }
        }
    }
}

/// Swift accessors tree-sitter-swift 0.7 does not know (it reads `get`, `set` and
/// `_modify`): `unsafeAddress { … }`, `nonmutating unsafeMutableAddress { … }`, `_read`,
/// `borrow` and `mutate` (their attribute lines above go with them),
/// and `borrowing get`/`consuming get`. An unknown accessor keyword on its own line
/// before `{` is excised with its `mutating`/`nonmutating` and blanks — the property's
/// body then reads as statements, blocks in a row — and an unknown getter modifier is
/// excised before `get`/`set`. Their tokens are hashed where they stand.
pub(crate) fn swift_unknown_accessors(src: &str, out: &mut Vec<Repair>) {
    let b = src.as_bytes();
    for kw in [
        &b"unsafeAddress"[..],
        &b"unsafeMutableAddress"[..],
        &b"_read"[..],
        &b"borrow"[..],
        &b"mutate"[..],
    ] {
        for at in word_at(b, kw) {
            let after = skip_blanks(b, at + kw.len());
            if b.get(after) != Some(&b'{') {
                continue;
            }
            // the keyword first on its line, or after a `mutating`/`nonmutating` that is
            let mut word_start = at;
            while word_start > 0 && matches!(b[word_start - 1], b' ' | b'\t') {
                word_start -= 1;
            }
            let blank_before = word_start < at;
            while word_start > 0 && is_word_byte(b[word_start - 1]) {
                word_start -= 1;
            }
            let start = if is_line_initial(b, at) {
                at
            } else if blank_before
                && matches!(
                    &b[word_start..skip_word(b, word_start)],
                    b"nonmutating" | b"mutating"
                )
                && is_line_initial(b, word_start)
            {
                word_start
            } else {
                continue;
            };
            attributes_above(b, start, out);
            out.push(Repair::Excise { start, end: after });
        }
    }
    // An attributed known accessor after another accessor's block (`_read { … }` then
    // `@inline(__always)` / `_modify { … }`, in swift-collections): once the unknown one
    // is excised the body reads as blocks in a row, where `_modify { … }` is a call with a
    // trailing closure but an attribute before it is an error. Its attribute lines are
    // excised (hashed where they stand, inside the same property) wherever the line above
    // them closes a block; where every accessor is known, hiding them changes nothing.
    for kw in [&b"_modify"[..], b"get", b"set"] {
        for at in word_at(b, kw) {
            if !is_line_initial(b, at) || b.get(skip_blanks(b, at + kw.len())) != Some(&b'{') {
                continue;
            }
            let (attributes, top) = attribute_lines_above(b, at);
            let Some(top) = top else { continue };
            if matches!(prev_non_space(b, top), Some((_, b'}'))) {
                out.extend(attributes);
            }
        }
    }
    for kw in [&b"borrowing"[..], &b"consuming"[..]] {
        for at in word_at(b, kw) {
            let next = skip_blanks(b, at + kw.len());
            let accessor = [&b"get"[..], b"set"]
                .iter()
                .any(|w| line_begins_with(b, next, w));
            if next > at + kw.len()
                && accessor
                && (is_line_initial(b, at)
                    || matches!(prev_non_space(b, at), Some((_, b'{' | b'}'))))
            {
                out.push(Repair::Excise {
                    start: at,
                    end: next,
                });
            }
        }
    }
}

/// [`attributes_above`] as a list, with where the topmost of those lines starts (None
/// when there are none).
fn attribute_lines_above(src: &[u8], first: usize) -> (Vec<Repair>, Option<usize>) {
    let mut spans = Vec::new();
    attributes_above(src, first, &mut spans);
    let top = match spans.first() {
        Some(Repair::Excise { start, .. }) => Some(*start),
        _ => None,
    };
    (spans, top)
}

/// Excises the annotation-only lines right above the line starting at `first` (Swift's
/// `@_transparent`, `@inline(__always)`; Kotlin's `@OptIn(X::class)`, several on a line;
/// a trailing comment allowed and left visible, as comments are not hashed), topmost
/// first.
fn attributes_above(src: &[u8], mut first: usize, out: &mut Vec<Repair>) {
    let mut found = Vec::new();
    while let Some(prev_end) = first.checked_sub(1).and_then(|i| src[..=i].iter().rposition(|&c| c == b'\n')) {
        let (prev_first, _) = line_bounds(src, prev_end);
        let code_end = prev_first + annotation_line_end(&src[prev_first..prev_end]);
        if prev_first >= prev_end {
            break;
        }
        let start = if only_annotations(&src[prev_first..code_end]) {
            prev_first
        } else if let Some(top) = annotation_opened_above(src, prev_first, code_end) {
            top
        } else {
            break;
        };
        found.push(Repair::Excise { start, end: code_end });
        first = start;
    }
    out.extend(found.into_iter().rev());
}

/// Where an annotation whose arguments run over several lines begins, when the line
/// from `line_first` to `code_end` closes it (`@Deprecated(` / `"…",` / `level = ERROR` /
/// `)` above a Kotlin setter, ktor's Darwin engine config; `) @A`): the first non-blank byte of
/// the nearest line above, at most 16 lines up, from which the text to `code_end` is
/// annotations only.
fn annotation_opened_above(src: &[u8], line_first: usize, code_end: usize) -> Option<usize> {
    if !src[line_first..code_end].contains(&b')') {
        return None;
    }
    let mut first = line_first;
    for _ in 0..16 {
        let prev_end = first.checked_sub(1).and_then(|i| src[..=i].iter().rposition(|&c| c == b'\n'))?;
        let (prev_first, _) = line_bounds(src, prev_end);
        if code_end - prev_first > 4096 {
            return None;
        }
        if src[prev_first] == b'@' && only_annotations(&src[prev_first..code_end]) {
            return Some(prev_first);
        }
        first = prev_first;
    }
    None
}

/// `case (n / 2 + 1)...:` and `case (a + 1)...b:`: a parenthesised range bound in a
/// `case` pattern is a syntax error in tree-sitter-swift 0.7. The two parentheses are
/// excised (`n / 2 + 1...` reads as the same range: range operators bind loosest); they
/// are hashed where they stand.
pub(crate) fn swift_case_range_parens(src: &str, out: &mut Vec<Repair>) {
    let b = src.as_bytes();
    for (at, end) in case_lines(b) {
        let mut k = at + 4;
        while let Some(q) = b[k..end].iter().position(|&c| c == b'(') {
            let open = k + q;
            let Some(close) = close_on_line(b, open) else {
                break;
            };
            let bound_before = open > 0 && !is_word_byte(b[open - 1]) && b[open - 1] != b'.';
            if bound_before
                && (b[close + 1..end].starts_with(b"...") || b[close + 1..end].starts_with(b"..<"))
            {
                out.push(Repair::Excise {
                    start: open,
                    end: open + 1,
                });
                out.push(Repair::Excise {
                    start: close,
                    end: close + 1,
                });
            }
            k = close + 1;
        }
    }
}

/// `case .success():` and `case .set(()):` — an enum-case pattern with an empty argument
/// list, or an empty tuple as its argument, is a syntax error in tree-sitter-swift 0.7.
/// The `()` (or `(())`) is excised (`.success` reads as the same pattern) and hashed where
/// it stands. So is the `.` of an implicit member as a range bound (`case .min..<0:`),
/// which leaves `min..<0`, the same range to the grammar.
pub(crate) fn swift_empty_case_arguments(src: &str, out: &mut Vec<Repair>) {
    let b = src.as_bytes();
    for (at, end) in case_lines(b) {
        let mut k = at + 4;
        while let Some(q) = find(&b[k..end], b"()") {
            let inner = k + q;
            // `.success()` or `.set(())`: the empty tuple may sit in its own parentheses
            let wrapped = inner > 0 && b[inner - 1] == b'(' && b.get(inner + 2) == Some(&b')');
            let (open, close) = if wrapped {
                (inner - 1, inner + 3)
            } else {
                (inner, inner + 2)
            };
            let name_len = b[..open]
                .iter()
                .rev()
                .take_while(|&&c| is_word_byte(c))
                .count();
            // only an enum case: the name is preceded by `.`
            if name_len > 0 && open - name_len > 0 && b[open - name_len - 1] == b'.' {
                out.push(Repair::Excise {
                    start: open,
                    end: close,
                });
            }
            k = close;
        }
        let mut k = at + 4;
        while let Some(q) = b[k..end].iter().position(|&c| c == b'.') {
            let dot = k + q;
            let name_end = skip_word(b, dot + 1);
            let starts_member = (dot == 0
                || !is_word_byte(b[dot - 1]) && b[dot - 1] != b'.' && b[dot - 1] != b')')
                && name_end > dot + 1;
            if starts_member
                && (b[name_end..end].starts_with(b"..<") || b[name_end..end].starts_with(b"..."))
            {
                out.push(Repair::Excise {
                    start: dot,
                    end: dot + 1,
                });
            }
            k = name_end.max(dot + 1);
            if k < end && b[k] == b'.' {
                k = skip_word(b, k + 3.min(end - k)); // past a range operator
            }
        }
    }
}

/// `fallthrough` as the last statement before a compilation directive (`fallthrough`
/// then `#else`) is a syntax error in tree-sitter-swift 0.7, though `break` there is not.
/// Its first letter becomes `x`, an identifier the grammar reads as a statement; the
/// token hashed is still the original word.
pub(crate) fn swift_fallthrough_before_directive(src: &str, out: &mut Vec<Repair>) {
    let b = src.as_bytes();
    for at in word_at(b, b"fallthrough") {
        if b.get(skip_space(b, at + "fallthrough".len())) == Some(&b'#') {
            out.push(Repair::Overwrite { at, byte: b'x' });
        }
    }
}

/// Which directive a line holds (its first non-blank byte at `first`).
fn directive_at(src: &[u8], first: usize) -> Option<&'static str> {
    ["#if", "#elseif", "#else", "#endif"]
        .into_iter()
        .find(|d| line_begins_with(src, first, d.as_bytes()))
}

/// `#if` groups where tree-sitter-swift 0.7 reads no directive: right after a `switch`'s
/// `{` (before the first `case`), among a declaration's attributes (`@inline(never)` /
/// `#if compiler(>=6.3)` / `@available(…)` / `#endif`), and a group of attribute lines
/// only before a declaration (`#if compiler(>=6.3)` / `@inline(always)` / `#else` /
/// `@inline(__always)` / `#endif`). Every directive line of the group (`#if`, `#elseif`,
/// `#else`, `#endif`, up to a `//` comment) is excised; what they enclose stays, so the
/// grammar reads the branches one after the other. The directives' tokens are hashed
/// where they stand. One pass over the lines with a stack of open groups: linear however
/// deeply groups nest.
pub(crate) fn swift_misplaced_directives(src: &str, out: &mut Vec<Repair>) {
    struct Group {
        /// The group's own directive lines (nested groups have theirs).
        own: Vec<(usize, usize)>,
        /// Right after a switch's `{` or an attribute line.
        placed_badly: bool,
        /// Every line inside (nested groups included) is an attribute, a directive or blank…
        attributes_only: bool,
        /// …and there is at least one attribute.
        any_attribute: bool,
    }
    let b = src.as_bytes();
    // a directive line up to a `//` comment, trailing blanks dropped
    let span = |f: usize, end: usize| {
        let stop = find(&b[f..end], b"//").map_or(end, |c| f + c);
        (
            f,
            f + b[f..stop]
                .iter()
                .rposition(|c| !c.is_ascii_whitespace())
                .map_or(0, |r| r + 1),
        )
    };
    let mut open: Vec<Group> = Vec::new();
    // Parentheses an attribute has left open (`@available(` / `iOS,` / `deprecated: 9999`
    // / `)`, swift-composable-architecture's layout): its next lines are attribute lines.
    let mut attribute_open = 0i64;
    let mut line_start = 0;
    while line_start < b.len() {
        let first = skip_blanks(b, line_start);
        let end = b[first..]
            .iter()
            .position(|&c| c == b'\n')
            .map_or(b.len(), |p| first + p);
        if directive_at(b, first).is_some() {
            attribute_open = 0;
        }
        match directive_at(b, first) {
            Some("#if") => {
                let after_switch = prev_code(b, first).is_some_and(|(q, c)| {
                    let (line_first, _) = line_bounds(b, q);
                    c == b'{' && !word_at(&b[line_first..q], b"switch").is_empty()
                });
                let after_attribute =
                    prev_non_space(b, first).is_some_and(|(q, _)| b[line_bounds(b, q).0] == b'@');
                open.push(Group {
                    own: vec![span(first, end)],
                    placed_badly: after_switch || after_attribute,
                    attributes_only: true,
                    any_attribute: false,
                });
            }
            Some("#endif") => {
                if let Some(mut g) = open.pop() {
                    g.own.push(span(first, end));
                    let next = skip_space(b, end);
                    let before_declaration =
                        next < b.len() && (b[next] == b'@' || is_word_byte(b[next]));
                    if g.placed_badly
                        || (g.attributes_only && g.any_attribute && before_declaration)
                    {
                        out.extend(
                            g.own
                                .iter()
                                .map(|&(start, end)| Repair::Excise { start, end }),
                        );
                    }
                    if let Some(parent) = open.last_mut() {
                        parent.attributes_only &= g.attributes_only;
                        parent.any_attribute |= g.any_attribute;
                    }
                }
            }
            Some(_) => {
                if let Some(g) = open.last_mut() {
                    g.own.push(span(first, end));
                }
            }
            None if first >= end => {}
            None => {
                let continued = attribute_open > 0;
                if let Some(g) = open.last_mut() {
                    if b[first] == b'@' {
                        g.any_attribute = true;
                    } else if !continued {
                        g.attributes_only = false;
                    }
                }
                if continued || b[first] == b'@' {
                    let line = &b[first..end];
                    let balance = line.iter().filter(|&&c| c == b'(').count() as i64
                        - line.iter().filter(|&&c| c == b')').count() as i64;
                    attribute_open = (attribute_open + balance).max(0);
                }
            }
        }
        line_start = end + 1;
    }
}

/// A labelled trailing closure on a line of its own (`}` / `errorHandler: { error in`,
/// SE-0279 as swift-format lays it out) is a syntax error in tree-sitter-swift 0.7, and
/// so is one on the line of the brace before it when its label is `is` or `as`, which
/// the grammar takes for a cast (`assertCustomInlineSnapshot { … } is: { … }`,
/// swift-snapshot-testing). The label and its colon are excised — the closure then reads
/// as a trailing closure — and hashed where they stand.
pub(crate) fn swift_trailing_closure_labels(src: &str, out: &mut Vec<Repair>) {
    let b = src.as_bytes();
    let mut line_start = 0;
    while line_start < b.len() {
        let (first, end) = line_bounds(b, line_start);
        let name_end = skip_word(b, first);
        if name_end > first && !b[first].is_ascii_digit() && b.get(name_end) == Some(&b':') {
            let brace = skip_blanks(b, name_end + 1);
            let after_block = matches!(prev_non_space(b, line_start), Some((_, b'}')));
            if after_block
                && b.get(brace) == Some(&b'{')
                && !matches!(&b[first..name_end], b"default" | b"case")
            {
                out.push(Repair::Excise {
                    start: first,
                    end: brace,
                });
            }
        }
        line_start = end + 1;
    }
    for cast in [&b"is"[..], &b"as"[..]] {
        for at in word_at(b, cast) {
            // (on a line of its own, the label was read above)
            if !matches!(prev_on_line(b, at), Some((_, b'}'))) {
                continue;
            }
            let colon = skip_blanks(b, at + cast.len());
            let brace = skip_blanks(b, colon + 1);
            if b.get(colon) == Some(&b':') && b.get(brace) == Some(&b'{') {
                out.push(Repair::Excise { start: at, end: brace });
            }
        }
    }
}

/// An enum case whose associated value has the label `_` (`case vsock(_: Address)`)
/// reads as a pattern missing its name in tree-sitter-swift 0.7. The `_:` and its blanks
/// are excised and hashed where they stand.
pub(crate) fn swift_enum_wildcard_labels(src: &str, out: &mut Vec<Repair>) {
    let b = src.as_bytes();
    for (at, end) in case_lines(b) {
        let name = skip_blanks(b, at + 4);
        if skip_word(b, name) == name
            || b[name].is_ascii_digit()
            || matches!(&b[name..skip_word(b, name)], b"let" | b"var")
        {
            continue;
        }
        let mut k = skip_word(b, name);
        while let Some(q) = find(&b[k..end], b"_:") {
            let u = k + q;
            let before = prev_non_space(b, u).map(|(_, c)| c);
            if matches!(before, Some(b'(' | b',')) && !is_word_byte(b[u - 1]) {
                out.push(Repair::Excise {
                    start: u,
                    end: skip_blanks(b, u + 2),
                });
            }
            k = u + 2;
        }
    }
}

/// An initializer's `where` clause whose requirements continue on the next line after a
/// comma (`init(…)\n where\n   Data == P,\n   Root == Q\n {`, swift-composable-architecture's
/// `NavigationStack.init`) is a syntax error in tree-sitter-swift 0.7, though the same
/// clause is read on a function, a subscript or a type. The line break and indentation
/// after each such comma are excised: blanks, which hash nothing wherever they stand.
pub(crate) fn swift_init_where_line_breaks(src: &str, out: &mut Vec<Repair>) {
    let b = src.as_bytes();
    for init in word_at(b, b"init") {
        if init > 0 && b[init - 1] == b'.' {
            continue; // a call (`self.init(…)`), not a declaration
        }
        // the parameter list: `init`, `init?`, `init!`, generic parameters, then `(`
        let mut k = skip_space(b, init + 4);
        if matches!(b.get(k), Some(b'?' | b'!')) {
            k += 1;
        }
        if b.get(k) == Some(&b'<') {
            let Some(close) = balanced_end(b, k, b'<', b'>') else { continue };
            k = close + 1;
        }
        if b.get(k) != Some(&b'(') {
            continue;
        }
        let Some(close) = balanced_end(b, k, b'(', b')') else { continue };
        k = skip_space(b, close + 1);
        // effects before the clause
        for effect in [&b"async"[..], b"throws", b"rethrows"] {
            if b[k..].starts_with(effect) && !b.get(k + effect.len()).is_some_and(|&c| is_word_byte(c)) {
                k = skip_space(b, k + effect.len());
            }
        }
        if !b[k..].starts_with(b"where") || b.get(k + 5).is_some_and(|&c| is_word_byte(c)) {
            continue;
        }
        // up to the body's `{`, at depth 0 of (), [] and <>; a clause is a few lines, and
        // the bound keeps a file of unclosed clauses linear
        let mut depth = 0i32;
        let mut i = k + 5;
        let stop = (k + 5 + 4096).min(b.len());
        while let Some(&c) = b[..stop].get(i) {
            match c {
                b'(' | b'[' | b'<' => depth += 1,
                b')' | b']' => depth -= 1,
                b'>' if b.get(i.wrapping_sub(1)) != Some(&b'-') => depth -= 1,
                b'{' | b';' | b'}' if depth <= 0 => break,
                b'/' if b.get(i + 1).is_some_and(|&n| n == b'/' || n == b'*') => break,
                b',' if depth == 0 => {
                    let next = skip_space(b, i + 1);
                    if b[i + 1..next].contains(&b'\n') && b.get(next).is_some_and(|&n| n != b'/') {
                        out.push(Repair::Excise { start: i + 1, end: next });
                    }
                }
                _ => {}
            }
            if depth < 0 {
                break;
            }
            i += 1;
        }
    }
}

/// A `$` inside an identifier (`_$id`, `_$observationRegistrar`, the Observation
/// macros' spelling) is a syntax error in tree-sitter-swift 0.7, which knows `$` only at
/// an identifier's start (`$0`, `$binding`). It is overwritten with `_`; names and tokens
/// are read from the original text, so they keep their `$`.
pub(crate) fn swift_dollar_inside_identifiers(src: &str, out: &mut Vec<Repair>) {
    let b = src.as_bytes();
    for i in 1..b.len().saturating_sub(1) {
        if b[i] == b'$' && (b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_') && (b[i + 1].is_ascii_alphabetic() || b[i + 1] == b'_') {
            // the identifier it is in starts with a letter or `_` (not a number: `1$x`)
            let start = b[..i].iter().rposition(|&c| !is_word_byte(c)).map_or(0, |p| p + 1);
            if b[start].is_ascii_alphabetic() || b[start] == b'_' {
                out.push(Repair::Overwrite { at: i, byte: b'_' });
            }
        }
    }
}

/// The CasePaths prefix operator `/` before a type path (`ifCaseLet(/State.child, …)`,
/// `stack[id: 0, case: /Element.int]`) starts a bare regex literal for tree-sitter-swift
/// 0.7, which swallows the line. When the path after it is not closed by another `/` (no
/// regex), the `/` is overwritten with the prefix operator `-`, read the same way; the
/// token hashed is the original `/`. Before a function's name (`(/embed).extract`,
/// `appending(path: /rhs)`, swift-case-paths' deprecated API) the same, where the name
/// ends the argument.
pub(crate) fn swift_case_path_prefix_slash(src: &str, out: &mut Vec<Repair>) {
    let b = src.as_bytes();
    for i in 1..b.len().saturating_sub(1) {
        if b[i] != b'/' || !matches!(b[i - 1], b'(' | b'[' | b',' | b' ' | b'\t') || !(b[i + 1].is_ascii_alphabetic() || b[i + 1] == b'_') {
            continue;
        }
        let before = prev_non_space(b, i).map(|(_, c)| c);
        if !matches!(before, Some(b'(' | b'[' | b',' | b':' | b'=')) {
            continue;
        }
        let end = i + 1 + b[i + 1..].iter().take_while(|&&c| is_word_byte(c) || c == b'.').count();
        // A function (`(/embed)`, `path: /rhs`, the deprecated spelling) only where the
        // path ends its argument: a regex literal rarely does so (`/ab+/`).
        let path_ends = b[i + 1].is_ascii_uppercase() || matches!(b.get(end), Some(b')' | b',' | b']') | None);
        if b.get(end) != Some(&b'/') && path_ends {
            out.push(Repair::Overwrite { at: i, byte: b'-' });
        }
    }
}

/// A regex literal anchored at its start, `/^…$/` (swift-testing's `EntryPoint.swift`,
/// where one swallowed 500 lines, and swift-nio's `dev/stackdiff`): tree-sitter-swift 0.7
/// lexes `/^` as an operator. Where an expression starts (after `=`, `(`, `,`, `[`, `:` or
/// `{`) and an unescaped `/` closes the literal on its line, the `^` is overwritten with a
/// letter, so the grammar reads the same bytes as one regex literal, whose token is read
/// from the original text.
pub(crate) fn swift_caret_regex_literals(src: &str, out: &mut Vec<Repair>) {
    let b = src.as_bytes();
    for at in occurrences(b, b"/^") {
        if !matches!(prev_on_line(b, at), Some((_, b'=' | b'(' | b',' | b'[' | b':' | b'{'))) {
            continue;
        }
        let line_end = b[at..].iter().position(|&c| c == b'\n').map_or(b.len(), |q| at + q);
        let mut k = at + 2;
        let mut closed = false;
        while k < line_end {
            match b[k] {
                b'\\' => k += 1,
                b'/' => {
                    closed = b[k - 1] != b' ';
                    break;
                }
                _ => {}
            }
            k += 1;
        }
        if closed {
            out.push(Repair::Overwrite { at: at + 1, byte: b'a' });
        }
    }
}

/// The index of the `close` that balances the `open` at `at`, within 4 KiB.
fn balanced_end(b: &[u8], at: usize, open: u8, close: u8) -> Option<usize> {
    let mut depth = 0usize;
    for (i, &c) in b.iter().enumerate().skip(at).take(4096) {
        if c == open {
            depth += 1;
        } else if c == close {
            depth -= 1;
            if depth == 0 {
                return Some(i);
            }
        }
    }
    None
}

/// The end of the line holding `at`, looked for within `limit` bytes (a hostile line
/// stays linear), and where its code ends: before a `//` comment.
fn line_and_code_end(b: &[u8], at: usize, limit: usize) -> (usize, usize) {
    let stop = at.saturating_add(limit).min(b.len());
    let line_end = b[at..stop].iter().position(|&c| c == b'\n').map_or(stop, |q| at + q);
    let code_end = find(&b[at..line_end], b"//").map_or(line_end, |q| at + q);
    (line_end, code_end)
}

/// An associated type inheriting several protocols, comma-separated
/// (`associatedtype IDValue: Codable, Hashable, Sendable`, fluent-kit): tree-sitter-swift
/// 0.7 reads one inherited type there. Each comma of the list (outside `<…>`, before a
/// `where`, an `=` or the line's end) becomes `&`, a composition the grammar reads; the
/// token hashed is the original comma.
pub(crate) fn swift_associated_type_lists(src: &str, out: &mut Vec<Repair>) {
    let b = src.as_bytes();
    for at in word_at(b, b"associatedtype") {
        let (_, end) = line_and_code_end(b, at, 512);
        let Some(colon) = b[at..end].iter().position(|&c| c == b':').map(|q| at + q) else { continue };
        let mut depth = 0i32;
        let mut k = colon + 1;
        while k < end {
            match b[k] {
                b'<' => depth += 1,
                b'>' => depth -= 1,
                b'=' => break,
                b',' if depth == 0 => out.push(Repair::Overwrite { at: k, byte: b'&' }),
                c if is_word_byte(c) => {
                    let word_end = skip_word(b, k);
                    if &b[k..word_end] == b"where" {
                        break;
                    }
                    k = word_end;
                    continue;
                }
                _ => {}
            }
            k += 1;
        }
    }
}

/// A generic type alias with a `where` clause on its line (`public typealias RangeType<Bound>
/// = Range<Bound> where Bound: Strideable`, swift-nio's `MarkedCircularBuffer`; fluent-kit;
/// TCA): tree-sitter-swift 0.7 reads no clause there, and its error swallowed the
/// declarations after the alias. The clause, from `where` (at depth 0 after the `=`) to
/// the line's code end, is excised and hashed where it stands; the alias, whose node then
/// ends before tokens that belong to it, is marked as not read cleanly (its anchors stay
/// `unchecked`, as before), while the declarations around it are read.
pub(crate) fn swift_type_alias_where_clauses(src: &str, out: &mut Vec<Repair>) {
    let b = src.as_bytes();
    for at in word_at(b, b"typealias") {
        let (line_end, code_end) = line_and_code_end(b, at, 1024);
        let Some(eq) = b[at..code_end].iter().position(|&c| c == b'=').map(|q| at + q) else { continue };
        let mut depth = 0i32;
        let mut found = false;
        for k in eq + 1..code_end {
            match b[k] {
                b'<' | b'(' | b'[' => depth += 1,
                b'>' if b[k - 1] != b'-' => depth -= 1,
                b')' | b']' => depth -= 1,
                b'w' if depth == 0 && b[k..code_end].starts_with(b"where") && !is_word_byte(b[k - 1]) && b.get(k + 5).is_some_and(|c| !is_word_byte(*c)) => {
                    let end = k + b[k..code_end].trim_ascii_end().len();
                    out.push(Repair::Excise { start: k, end });
                    found = true;
                    break;
                }
                _ => {}
            }
        }
        // …or on the next line (fluent-kit's `typealias Boolean<Format> = …` / `where
        // Format: …`): hidden from the line break on, so the alias still ends right before
        // it; not past a comment, whose text would be read as tokens
        let next = skip_blanks(b, line_end + 1);
        if !found && code_end == line_end && line_end < b.len() && line_begins_with(b, next, b"where") {
            let (_, next_code) = line_and_code_end(b, next, 1024);
            let end = next + b[next..next_code].trim_ascii_end().len();
            let start = at + b[at..line_end].trim_ascii_end().len();
            out.push(Repair::Excise { start, end });
        }
    }
}

/// An associated type's `where` clause over several lines, a requirement a line, each
/// line but the last ending in a comma (swift-nio's `FileSystemProtocol`: `associatedtype
/// DirectoryFileHandle: …` / `where` / `DirectoryFileHandle.ReadFileHandle ==
/// ReadFileHandle,` / …): tree-sitter-swift 0.7 ends the declaration at the first such
/// line break, and the error swallowed the protocol. The line break and the indentation
/// after each of those commas, all but one blank, are excised (they hold no token). The
/// clause is followed at most 16 lines from its `associatedtype`.
pub(crate) fn swift_associated_type_where_lines(src: &str, out: &mut Vec<Repair>) {
    let b = src.as_bytes();
    for at in word_at(b, b"associatedtype") {
        if !is_line_initial(b, at) {
            continue;
        }
        let mut line_start = at;
        let mut in_where = false;
        for _ in 0..16 {
            let (line_end, code_end) = line_and_code_end(b, line_start, 4096);
            let line = &b[line_start..code_end];
            let next = skip_space(b, line_end);
            if line.iter().any(|&c| c == b'{' || c == b'}') || next >= b.len() {
                break;
            }
            let words = word_at(line, b"where");
            in_where = in_where || !words.is_empty();
            let last = line.iter().rposition(|c| !c.is_ascii_whitespace());
            let ends_in_where = last.is_some_and(|p| words.last().is_some_and(|&w| w + 4 == p));
            let ends_in_comma = in_where && last.is_some_and(|p| line[p] == b',');
            if ends_in_comma && code_end == line_end {
                // keep one blank between the comma and the next requirement
                let end = if next > line_end + 1 && matches!(b[next - 1], b' ' | b'\t') { next - 1 } else { next };
                out.push(Repair::Excise { start: line_end, end });
            } else if !ends_in_where && !ends_in_comma && !line_begins_with(b, next, b"where") {
                break;
            }
            line_start = b[..next].iter().rposition(|&c| c == b'\n').map_or(0, |q| q + 1);
        }
    }
}

/// An optional type on the left of a same-type requirement (`where ForeignField.Value? ==
/// LocalField.Value`, fluent-kit's join operators): tree-sitter-swift 0.7 reads only a
/// plain type there. The `?` — after a name, before `==`, which no expression writes — is
/// excised and hashed where it stands.
pub(crate) fn swift_optional_same_type_requirements(src: &str, out: &mut Vec<Repair>) {
    let b = src.as_bytes();
    for at in occurrences(b, b"?") {
        let eq = skip_blanks(b, at + 1);
        if at > 0 && is_word_byte(b[at - 1]) && b[eq..].starts_with(b"==") && b.get(eq + 2) != Some(&b'=') {
            out.push(Repair::Excise { start: at, end: at + 1 });
        }
    }
}

/// Blanks before a `;` between statements on one line (`tree { 4 ; 5 }`, vapor's
/// column-aligned `p[n] = tab[i]          ; fallthrough`) are a syntax error in
/// tree-sitter-swift 0.7. The `;` moves to the first blank of the run and leaves a blank
/// where it stood (`4; 5`); the `;` hashes nothing wherever it stands, and blanks nothing
/// either.
pub(crate) fn swift_blank_before_semicolon(src: &str, out: &mut Vec<Repair>) {
    let b = src.as_bytes();
    for i in 1..b.len() {
        if b[i] != b';' || !matches!(b[i - 1], b' ' | b'\t') {
            continue;
        }
        let mut first = i - 1;
        while first > 0 && matches!(b[first - 1], b' ' | b'\t') {
            first -= 1;
        }
        if first > 0 && !matches!(b[first - 1], b'\n' | b'\r' | b';' | b'{' | b'(') {
            out.push(Repair::Overwrite { at: first, byte: b';' });
            out.push(Repair::Overwrite { at: i, byte: b' ' });
        }
    }
}

/// Members named like a keyword the grammar then reads as one (mikro-orm): `abstract` as
/// a property or method name (`abstract?: boolean;` in an interface or object type,
/// `abstract(): void`), and a method named `accessor` (`accessor(value) { … }`, read as
/// an auto-accessor). At a line's start, followed by what follows a member's name
/// (`?`, `:`, `(`, `=`, `;`, `!`; for `accessor`, `(` or `<`), the first letter becomes
/// a capital; names are read from the original text.
pub(crate) fn typescript_keyword_member_names(src: &str, out: &mut Vec<Repair>) {
    let b = src.as_bytes();
    let next = |at: usize, word: &[u8]| b.get(skip_blanks(b, at + word.len())).copied();
    capitalise_where(b, b"abstract", |at| is_line_initial(b, at) && matches!(next(at, b"abstract"), Some(b'?' | b':' | b'(' | b'=' | b';' | b'!')), out);
    capitalise_where(b, b"accessor", |at| is_line_initial(b, at) && matches!(next(at, b"accessor"), Some(b'(' | b'<')), out);
}

/// Auto-accessors (decorators proposal, TypeScript 4.9): tree-sitter-typescript reads
/// `accessor` only as a field's first word, so `override accessor foo = 2` and `static
/// accessor x` (as Lit's decorators write them) are errors; tree-sitter-javascript knows
/// no `accessor` at all. The keyword and its blanks are excised where a name follows on
/// its line and a modifier precedes it (`plain` also: at the start of a line or after a
/// decorator, for JavaScript); its token is hashed where it stands.
pub(crate) fn auto_accessors(src: &str, plain: bool, out: &mut Vec<Repair>) {
    let b = src.as_bytes();
    for at in word_at(b, b"accessor") {
        let name = skip_blanks(b, at + "accessor".len());
        if name == at + "accessor".len() || !b.get(name).is_some_and(|&c| c.is_ascii_alphabetic() || matches!(c, b'_' | b'$' | b'#' | b'[')) {
            continue;
        }
        let Some((last, c)) = prev_non_space(b, at) else {
            if plain {
                out.push(Repair::Excise { start: at, end: name });
            }
            continue;
        };
        let after_modifier = is_word_byte(c) && last + 1 < at && {
            let mut first = last;
            while first > 0 && is_word_byte(b[first - 1]) {
                first -= 1;
            }
            matches!(&b[first..=last], b"override" | b"static" | b"abstract" | b"public" | b"private" | b"protected" | b"readonly" | b"declare")
        };
        // JavaScript after a decorator without arguments (`@observable accessor a = 1`,
        // mobx's tests)
        let after_decorator = plain && is_word_byte(c) && {
            let mut first = last;
            while first > 0 && (is_word_byte(b[first - 1]) || b[first - 1] == b'.') {
                first -= 1;
            }
            first > 0 && b[first - 1] == b'@'
        };
        let starts_member = plain && (is_line_initial(b, at) || matches!(c, b')' | b';' | b'{' | b'}'));
        if after_modifier || starts_member || after_decorator {
            out.push(Repair::Excise { start: at, end: name });
        }
    }
}

/// Where the Swift comment or string literal starting at `i` ends (`None` when none starts
/// there): `//` to the line's end, `/* … */`, `"""…"""`, and `"…"` to its closing quote on
/// the line (escapes skipped). Raw strings are read as plain ones; a finder that misreads
/// one only misses or wastes a repair.
fn swift_skip_non_code(b: &[u8], i: usize) -> Option<usize> {
    match b[i] {
        b'/' if b.get(i + 1) == Some(&b'/') => Some(b[i..].iter().position(|&c| c == b'\n').map_or(b.len(), |q| i + q)),
        b'/' if b.get(i + 1) == Some(&b'*') => Some(find(&b[i + 2..], b"*/").map_or(b.len(), |q| i + 2 + q + 2)),
        b'"' if b[i..].starts_with(b"\"\"\"") => Some(find(&b[i + 3..], b"\"\"\"").map_or(b.len(), |q| i + 3 + q + 3)),
        b'"' => {
            let mut k = i + 1;
            while k < b.len() && b[k] != b'"' && b[k] != b'\n' {
                k += if b[k] == b'\\' { 2 } else { 1 };
            }
            Some((k + 1).min(b.len()))
        }
        _ => None,
    }
}

/// Swift 6.3 module selectors (SE-0491: `Swift::Int`, `#Testing::sourceLocation`,
/// `extension TestingTests::Suite`), which swift-testing writes throughout: tree-sitter-swift
/// 0.7 knows no `::` (Swift has no operator spelled with `:`). The module name and its `::`
/// are excised, leaving the name it qualifies where the grammar expects one; their tokens
/// are hashed where they stand. One pass (strings and comments skipped), each `::` walking
/// back over its own word only: linear.
pub(crate) fn swift_module_selectors(src: &str, out: &mut Vec<Repair>) {
    let b = src.as_bytes();
    let mut i = 0;
    while i + 1 < b.len() {
        if let Some(next) = swift_skip_non_code(b, i) {
            i = next;
            continue;
        }
        if &b[i..i + 2] != b"::" {
            i += 1;
            continue;
        }
        let colons = i;
        i = colons + 2;
        let mut start = colons;
        while start > 0 && is_word_byte(b[start - 1]) && b[start - 1] != b'$' {
            start -= 1;
        }
        let names_a_module = start < colons && !b[start].is_ascii_digit();
        let qualifies_a_name = b.get(colons + 2).is_some_and(|&c| c.is_ascii_alphabetic() || c == b'_' || c == b'`');
        // `a:::b` or a label followed by `::` is no selector
        let lone = colons == 0 || b[colons - 1] != b':';
        if names_a_module && qualifies_a_name && lone {
            out.push(Repair::Excise { start, end: colons + 2 });
        }
    }
}

/// A parenthesised function type used as a value: `(() -> String).self`,
/// `(@convention(c) (CInt) -> CInt).self` (swift-testing casts C function pointers that
/// way). tree-sitter-swift 0.7 reads an expression inside the parentheses and fails at
/// the `->`. The parenthesised type is excised, leaving `.self`, a value it reads (an
/// empty `()` left in its place reads as an error); the type's tokens are hashed where
/// they stand. One pass with a stack of open brackets (strings and comments skipped): the
/// `->` must stand in the parentheses themselves, not in a closure or bracket inside
/// them, and `.self` must follow the `)` (in a type, `(() -> T).Type`, the grammar reads
/// it).
pub(crate) fn swift_function_type_values(src: &str, out: &mut Vec<Repair>) {
    let b = src.as_bytes();
    // (the bracket's byte, where it opened, whether a `->` stood directly inside it)
    let mut open: Vec<(u8, usize, bool)> = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if let Some(next) = swift_skip_non_code(b, i) {
            i = next;
            continue;
        }
        match b[i] {
            b'(' | b'[' | b'{' => open.push((b[i], i, false)),
            b'-' if b.get(i + 1) == Some(&b'>') => {
                if let Some(top) = open.last_mut() {
                    top.2 |= top.0 == b'(';
                }
                i += 2;
                continue;
            }
            b')' | b']' | b'}' => {
                if let Some((b'(', at, true)) = open.pop() {
                    let after = &b[i + 1..];
                    let is_value = after.starts_with(b".self") && after.get(5).is_none_or(|&c| !is_word_byte(c));
                    if b[i] == b')' && is_value {
                        out.push(Repair::Excise { start: at, end: i + 1 });
                    }
                }
            }
            _ => {}
        }
        i += 1;
    }
}

/// Feature names in an availability condition (`#available(_typedThrowsAPI, *)`,
/// swift-testing): tree-sitter-swift 0.7 wants a platform and version. The feature name
/// and its comma are excised with their blanks.
pub(crate) fn swift_availability_feature_names(src: &str, out: &mut Vec<Repair>) {
    let b = src.as_bytes();
    for keyword in [&b"#available("[..], b"#unavailable("] {
        let mut i = 0;
        while let Some(p) = find(&b[i..], keyword) {
            let name = skip_blanks(b, i + p + keyword.len());
            i = name;
            let name_end = skip_word(b, name);
            if b.get(name) != Some(&b'_') || name_end == name + 1 {
                continue;
            }
            let comma = skip_blanks(b, name_end);
            if b.get(comma) == Some(&b',') {
                out.push(Repair::Excise { start: name, end: skip_blanks(b, comma + 1) });
            }
        }
    }
}

/// A loop over a range with no upper bound, `for i in 0... {`: tree-sitter-swift 0.7 reads
/// the `...` as the start of an operator with the `{`. The `...` is excised where a `{`
/// follows it on its line and a `for … in` starts that line; its token is hashed where it
/// stands.
pub(crate) fn swift_open_range_loops(src: &str, out: &mut Vec<Repair>) {
    let b = src.as_bytes();
    for dots in occurrences(b, b"...") {
        let brace = skip_blanks(b, dots + 3);
        if dots == 0 || !(is_word_byte(b[dots - 1]) || b[dots - 1] == b')') || b.get(brace) != Some(&b'{') {
            continue;
        }
        // the line's start, at most 256 bytes back
        let floor = dots.saturating_sub(256);
        let line_start = b[floor..dots].iter().rposition(|&c| c == b'\n').map_or(floor, |q| floor + q + 1);
        let first = skip_blanks(b, line_start);
        if b[first..dots].starts_with(b"for ") && !word_at(&b[first..dots], b"in").is_empty() {
            out.push(Repair::Excise { start: dots, end: dots + 3 });
        }
    }
}

/// A function named `open` called as a statement of a switch case (`return open(lhs)` in
/// swift-testing, where a local generic `func open<T>` opens an existential):
/// tree-sitter-swift 0.7 reads `open` there as the access modifier and the case as an
/// error. `open` is never followed by `(` as a modifier (there is no `open(set)`), so an
/// `open` before `(` that is not a member (`.open(`) gets its first letter capitalised,
/// `Open(lhs)`, an identifier of the same length; names are read from the original text.
pub(crate) fn swift_open_calls(src: &str, out: &mut Vec<Repair>) {
    let b = src.as_bytes();
    let is_call = |at: usize| b.get(skip_blanks(b, at + 4)) == Some(&b'(');
    let is_member = |at: usize| prev_non_space(b, at).is_some_and(|(_, c)| c == b'.');
    capitalise_where(b, b"open", |at| is_call(at) && !is_member(at), out);
}

/// A macro named like a primitive type, `str![[r#"…"#]]` (snapbox's, in the test suites
/// of mdBook, cargo and others that snapshot output): tree-sitter-rust reads `str` as the
/// primitive type, so the invocation and its whole function are errors (18 of mdBook's
/// 100 files). Before `!` and a bracket, `str` gets its first letter capitalised, `Str!`,
/// an identifier of the same length; names are read from the original text.
pub(crate) fn rust_primitive_named_macros(src: &str, out: &mut Vec<Repair>) {
    let b = src.as_bytes();
    let is_macro = |at: usize| {
        let bang = skip_blanks(b, at + 3);
        b.get(bang) == Some(&b'!') && matches!(b.get(skip_blanks(b, bang + 1)), Some(b'[' | b'(' | b'{'))
    };
    capitalise_where(b, b"str", is_macro, out);
}

/// A string literal that starts with `/*` (`return "/*"` in swift-format's comment
/// printer): tree-sitter-swift's scanner opens a block comment there, which swallows every
/// declaration up to the next `*/` — often without a syntax error, the declarations just
/// missing. The `*` after `"/` becomes `x`, a string's content of the same length; the
/// string's token is read from the original text. Only a `"/*` with a `*/` somewhere after
/// it can swallow anything. Text alone cannot tell a `"` that opens a string from one that
/// closes it (`"a"/* note */`), so the caller keeps the repaired parse only when it reads
/// better.
pub(crate) fn swift_strings_opening_comments(src: &str, out: &mut Vec<Repair>) {
    let b = src.as_bytes();
    // Nothing is swallowed without a `*/` after it: most files with a `"/*` then cost no
    // second parse.
    let Some(last_close) = b.windows(2).rposition(|w| w == b"*/") else { return };
    let mut i = 0;
    while let Some(p) = find(&b[i..last_close], b"\"/*") {
        let at = i + p;
        out.push(Repair::Overwrite { at: at + 2, byte: b'x' });
        i = at + 3;
    }
}

/// Where the TypeScript comment, string or template literal starting at `i` ends (`None`
/// when none starts there). A template's `${…}` is not entered: a finder only misses a
/// repair inside one.
fn ts_skip_non_code(b: &[u8], i: usize) -> Option<usize> {
    match b[i] {
        b'/' if b.get(i + 1) == Some(&b'/') => Some(b[i..].iter().position(|&c| c == b'\n').map_or(b.len(), |q| i + q)),
        b'/' if b.get(i + 1) == Some(&b'*') => Some(find(&b[i + 2..], b"*/").map_or(b.len(), |q| i + 2 + q + 2)),
        // an unclosed string ends with its line
        b'\'' | b'"' => Some(crate::tokens::closing_quote(b, i).map_or_else(|| b[i..].iter().position(|&c| c == b'\n').map_or(b.len(), |q| i + q), |close| close + 1)),
        b'`' => {
            let mut k = i + 1;
            while k < b.len() && b[k] != b'`' {
                k += if b[k] == b'\\' { 2 } else { 1 };
            }
            Some((k + 1).min(b.len()))
        }
        _ => None,
    }
}

/// An inline import type with a suffix: `import('ts-morph').Node[]`, `import('./x').Box<T>`,
/// `import('./x')['Y']` (modelcontextprotocol/typescript-sdk). tree-sitter-typescript
/// 0.23 reads `import('x').Y` only as a whole type annotation, as a member expression,
/// never as a type that takes an array, generic or indexed suffix. `import('x')` and
/// the `.` after it are excised, leaving the name (`Node[]`) or the tuple (`['Y']`)
/// where the grammar reads a type; their tokens are hashed where they stand, the string
/// as the grammar prints one, so the print is the one a grammar that read it would make.
/// A dynamic import in an expression (`import('./x').then(…)`) has no such suffix; were
/// one written, the excision would leave a valid expression of the same tokens. One pass,
/// comments and strings skipped.
///
/// In a call's type arguments the grammar reads neither `import('x').Y` nor
/// `typeof import('x')` (vitest's `vi.importActual<typeof import('x')>('x')`, zustand and
/// redux-toolkit): the first loses `import('x').` as above, leaving `Y`; the second loses
/// `typeof import(` and `)`, leaving the literal type `'x'` — the string still read by the
/// grammar, so a change of quotes is no change.
pub(crate) fn typescript_inline_import_types(src: &str, out: &mut Vec<Repair>) {
    let b = src.as_bytes();
    if find(b, b"import(").is_none() && find(b, b"import (").is_none() {
        return;
    }
    let mut i = 0;
    while i < b.len() {
        if let Some(next) = ts_skip_non_code(b, i) {
            i = next;
            continue;
        }
        let at = i;
        i += 1;
        if !b[at..].starts_with(b"import") || (at > 0 && (is_word_byte(b[at - 1]) || b[at - 1] == b'.')) {
            continue;
        }
        let open = skip_blanks(b, at + "import".len());
        let quote = skip_blanks(b, open + 1);
        if b.get(open) != Some(&b'(') || !matches!(b.get(quote), Some(b'\'' | b'"')) {
            continue;
        }
        let string_end = ts_skip_non_code(b, quote).unwrap_or(b.len());
        let close = skip_blanks(b, string_end);
        if b[string_end - 1] != b[quote] || b.get(close) != Some(&b')') {
            continue;
        }
        let after = close + 1;
        i = after;
        // A type argument of a call ends at its list's `,` or `>`.
        let argument_ends = |k: usize| matches!(b.get(skip_space(b, k)), Some(b'>' | b','));
        let typeof_at = prev_non_space(b, at)
            .filter(|&(p, c)| c == b'f' && p >= 5 && &b[p - 5..=p] == b"typeof" && (p == 5 || !is_word_byte(b[p - 6])))
            .map(|(p, _)| p - 5);
        if let Some(start) = typeof_at.filter(|&t| argument_ends(after) && in_type_argument_list(b, t)) {
            // `typeof import('x')` is left as the literal type `'x'`.
            out.push(Repair::Excise { start, end: quote });
            out.push(Repair::Excise { start: string_end, end: after });
            continue;
        }
        if b.get(after) == Some(&b'[') {
            out.push(Repair::Excise { start: at, end: after });
            continue;
        }
        let mut end = after;
        while b.get(end) == Some(&b'.') && b.get(end + 1).is_some_and(|&c| is_word_byte(c) && !c.is_ascii_digit()) {
            end = skip_word(b, end + 1);
        }
        let suffixed = matches!(b.get(end), Some(b'[' | b'<'));
        if end > after && (suffixed || (typeof_at.is_none() && argument_ends(end) && in_type_argument_list(b, at))) {
            out.push(Repair::Excise { start: at, end: after + 1 });
        }
    }
}

/// Whether the type at `at` follows a `<` or `,` (a type argument list, as far as the
/// text tells; a call's argument after a `,` is an expression of the same tokens once
/// the import is excised).
fn in_type_argument_list(b: &[u8], at: usize) -> bool {
    matches!(prev_ts_code(b, at), Some((_, b'<' | b',')))
}

/// Whether the words of a brace's header (`final class Protected<Value>`, `extension X
/// where T: P`) open a type body: a `class`, `struct`, `enum`, `extension`, `protocol` or
/// `actor` keyword that is no member access (`.class`) and no `class func` / `class var`
/// modifier. Strings and comments in the header are skipped (a doc comment saying "the
/// struct that…" above a function is no type).
fn swift_opens_type_body(b: &[u8], start: usize, end: usize) -> bool {
    const TYPES: [&[u8]; 6] = [b"class", b"struct", b"enum", b"extension", b"protocol", b"actor"];
    const MEMBERS: [&[u8]; 8] = [b"func", b"var", b"let", b"subscript", b"init", b"override", b"final", b"static"];
    let word_end = |i: usize| i + b[i..end].iter().take_while(|&&c| is_word_byte(c)).count();
    let mut i = start;
    while i < end {
        if let Some(next) = swift_skip_non_code(b, i) {
            i = next;
            continue;
        }
        if !is_word_byte(b[i]) || (i > start && (is_word_byte(b[i - 1]) || b[i - 1] == b'.')) {
            i += 1;
            continue;
        }
        let stop = word_end(i);
        if TYPES.contains(&&b[i..stop]) {
            let next = skip_space(b, stop).min(end);
            if !(&b[i..stop] == b"class" && MEMBERS.contains(&&b[next..word_end(next)])) {
                return true;
            }
        }
        i = stop;
    }
    false
}

/// `#error("…")` and `#warning("…")` among a type's members (Alamofire's `Protected`
/// stops the build on a platform with no lock type inside its class body): tree-sitter-swift
/// 0.7 reads them in a function body and at the top level, not in a class, struct, enum,
/// extension, protocol or actor body. There the directive, up to its closing parenthesis,
/// is excised and hashed where it stands; elsewhere it is left alone, so a body the
/// grammar reads keeps its print. One pass with a stack of open braces (strings and
/// comments skipped), each `{` judged by the words since the last `{`, `}` or `;`.
pub(crate) fn swift_member_diagnostics(src: &str, out: &mut Vec<Repair>) {
    let b = src.as_bytes();
    if find(b, b"#error").is_none() && find(b, b"#warning").is_none() {
        return;
    }
    let mut in_type: Vec<bool> = Vec::new();
    let mut header = 0;
    let mut i = 0;
    while i < b.len() {
        if let Some(next) = swift_skip_non_code(b, i) {
            i = next;
            continue;
        }
        match b[i] {
            b'{' => {
                in_type.push(swift_opens_type_body(b, header, i));
                header = i + 1;
            }
            b'}' => {
                in_type.pop();
                header = i + 1;
            }
            b';' => header = i + 1,
            b'#' if in_type.last() == Some(&true) && is_line_initial(b, i) => {
                let name = i + 1 + b[i + 1..].iter().take_while(|&&c| is_word_byte(c)).count();
                let open = skip_blanks(b, name);
                let string = skip_blanks(b, open + 1);
                if matches!(&b[i + 1..name], b"error" | b"warning") && b.get(open) == Some(&b'(') && b.get(string) == Some(&b'"') {
                    let after = swift_skip_non_code(b, string).unwrap_or(b.len());
                    let close = skip_blanks(b, after);
                    if b.get(close) == Some(&b')') {
                        out.push(Repair::Excise { start: i, end: close + 1 });
                        header = close + 1;
                        i = close + 1;
                        continue;
                    }
                }
            }
            _ => {}
        }
        i += 1;
    }
}

/// The first non-blank byte of the line holding `i`, when that line starts at most `limit`
/// bytes before `i` (a finder that looks back along a line for every occurrence of a word
/// stays linear on one long line of them).
fn line_start_near(src: &[u8], i: usize, limit: usize) -> Option<usize> {
    let from = i.saturating_sub(limit);
    let start = match src[from..i].iter().rposition(|&c| c == b'\n') {
        Some(p) => from + p + 1,
        None if from == 0 => 0,
        None => return None,
    };
    Some(skip_blanks(src, start))
}

/// Words that begin a Kotlin declaration or its modifiers (what a `context(…)` clause or
/// an annotation line may stand before).
const KOTLIN_DECLARATION_WORDS: &[&[u8]] = &[
    b"fun", b"val", b"var", b"class", b"interface", b"object", b"typealias", b"constructor", b"override", b"public",
    b"private", b"internal", b"protected", b"open", b"abstract", b"final", b"sealed", b"data", b"value", b"inline",
    b"suspend", b"operator", b"infix", b"tailrec", b"external", b"const", b"lateinit", b"actual", b"expect", b"enum",
    b"annotation", b"companion", b"context",
];

/// Whether a Kotlin declaration (or its annotations) starts at `i`.
fn kotlin_declaration_at(src: &[u8], i: usize) -> bool {
    src.get(i) == Some(&b'@') || KOTLIN_DECLARATION_WORDS.iter().any(|w| line_begins_with(src, i, w))
}

/// Kotlin's context parameters and context receivers, `context(scope: CoroutineScope)`
/// or `context(Raise<E>)` on the line before a declaration (ktor's compiler plugin and
/// build logic, Kotlin 2.2): tree-sitter-kotlin-ng 1.1 knows neither, so a member's
/// clause is an error and a top-level one reads as a call. The clause, parentheses
/// included, is excised up to the declaration; its tokens are hashed where they stand
/// (before the declaration, so not in its print, as the unrepaired top-level call was
/// not either).
pub(crate) fn kotlin_context_parameters(src: &str, out: &mut Vec<Repair>) {
    let b = src.as_bytes();
    for at in word_at(b, b"context") {
        let open = skip_blanks(b, at + b"context".len());
        if !is_line_initial(b, at) || b.get(open) != Some(&b'(') {
            continue;
        }
        let Some(close) = balanced_end(b, open, b'(', b')') else { continue };
        let next = skip_space(b, close + 1);
        if kotlin_declaration_at(b, next) {
            out.push(Repair::Excise { start: at, end: next });
        }
    }
}

/// A function type with context parameters, `block: context(Raise<E>) () -> A` (arrow,
/// Kotlin 2.2): tree-sitter-kotlin-ng 1.1 reads no `context(…)` in a type, and the error
/// swallows the declarations around it. Where a type is expected (after `:`, `(`, `,`,
/// `<` or `->`, or after a typealias's `=`; maybe after `suspend`) and a function type
/// follows the clause (its `(`, a receiver's `Ctx.(`, or
/// `(`, or `suspend (`), the clause and the blanks after it are excised; its tokens are
/// hashed where they stand. A declaration's own clause is line-initial and left to
/// [`kotlin_context_parameters`].
pub(crate) fn kotlin_context_function_types(src: &str, out: &mut Vec<Repair>) {
    let b = src.as_bytes();
    for at in word_at(b, b"context") {
        let open = skip_blanks(b, at + b"context".len());
        if b.get(open) != Some(&b'(') || is_line_initial(b, at) {
            continue;
        }
        let Some((mut p, mut c)) = prev_non_space(b, at) else { continue };
        // `suspend context(R) () -> A` (arrow's `resource`)
        if p >= 6 && &b[p - 6..=p] == b"suspend" && (p == 6 || !is_word_byte(b[p - 7])) {
            let Some(before) = prev_non_space(b, p - 6) else { continue };
            (p, c) = before;
        }
        let in_type = match c {
            b':' | b'(' | b',' | b'<' => true,
            b'>' => p > 0 && b[p - 1] == b'-',
            // `typealias F = context(A) () -> B`, on one line of at most 512 bytes
            b'=' => line_start_near(b, p, 512).is_some_and(|first| find(&b[first..p], b"typealias").is_some()),
            _ => false,
        };
        if !in_type {
            continue;
        }
        let Some(close) = balanced_end(b, open, b'(', b')') else { continue };
        let mut next = skip_blanks(b, close + 1);
        if line_begins_with(b, next, b"suspend") {
            next = skip_blanks(b, next + b"suspend".len());
        }
        if b.get(next) == Some(&b'(') || receiver_function_type_at(b, next) {
            out.push(Repair::Excise { start: at, end: skip_blanks(b, close + 1) });
        }
    }
}

/// Whether a function type with a receiver starts at `i` (`RoutingContext.() -> T`,
/// `Map<K, V>.(K) -> Unit`): a type name, maybe qualified, nullable or with type
/// arguments, then `.(`; looked for within 256 bytes.
fn receiver_function_type_at(b: &[u8], i: usize) -> bool {
    if !b.get(i).is_some_and(|c| c.is_ascii_alphabetic() || *c == b'_') {
        return false;
    }
    let stop = (i + 256).min(b.len());
    let mut depth = 0usize;
    let mut k = i;
    while k < stop {
        match b[k] {
            b'<' => depth += 1,
            b'>' if depth > 0 => depth -= 1,
            b'.' if depth == 0 && b.get(k + 1) == Some(&b'(') => return true,
            c if is_word_byte(c) || matches!(c, b'.' | b'?' | b' ' | b',' | b'*') => {}
            _ => return false,
        }
        k += 1;
    }
    false
}

/// Kotlin 2.2's `@all:` annotation use-site target (`@all:JsonSetter(…) val value`,
/// arrow's Jackson tests): tree-sitter-kotlin-ng 1.1 knows the targets before it. `all`
/// becomes `get`, a target of the same length it reads; the token is read from the
/// original text.
pub(crate) fn kotlin_all_use_site_targets(src: &str, out: &mut Vec<Repair>) {
    let b = src.as_bytes();
    for at in occurrences(b, b"@all:") {
        if b.get(at + 5).is_some_and(|c| c.is_ascii_alphabetic() || *c == b'_') {
            for (k, &byte) in b"get".iter().enumerate() {
                out.push(Repair::Overwrite { at: at + 1 + k, byte });
            }
        }
    }
}

/// Kotlin's multi-dollar strings, `$$"$ref"` and `$$"""{ "id": "$${x}" }"""` (Kotlin
/// 2.2, ktor's OpenAPI schema and YAML tests): after a run of n dollars, fewer than n
/// dollars are text. tree-sitter-kotlin-ng 1.1 reads neither the prefix nor that rule.
/// The prefix is excised and every `$` of the string's body becomes `_`, so the grammar
/// reads the body as text; the string's token is read from the original text, dollars
/// and interpolations included (so a formatter's spaces inside such an interpolation
/// would change the print: none was seen). A `$$"` counts only after a byte or a word
/// that can precede an expression (`=`, `(`, `if (…)`, `else`, `return` …), never inside
/// another string (`"cost: $$"`).
pub(crate) fn kotlin_multi_dollar_strings(src: &str, out: &mut Vec<Repair>) {
    let b = src.as_bytes();
    let mut i = 0;
    while let Some(p) = find(&b[i..], b"$$") {
        let start = i + p;
        let mut q = start;
        while b.get(q) == Some(&b'$') {
            q += 1;
        }
        i = q;
        // after `if (…)`, `else` or `return` too (detekt's `Signatures.kt`)
        let after_word = |p: usize, w: &[u8]| p + 1 >= w.len() && &b[p + 1 - w.len()..=p] == w && (p + 1 == w.len() || !is_word_byte(b[p - w.len()]));
        let opens_expression = prev_non_space(b, start).is_none_or(|(p, c)| b"=(,[{:+>)".contains(&c) || after_word(p, b"else") || after_word(p, b"return"))
            || is_line_initial(b, start);
        if b.get(q) != Some(&b'"') || !opens_expression {
            continue;
        }
        let raw = b[q..].starts_with(b"\"\"\"");
        let body_start = q + if raw { 3 } else { 1 };
        let body_end = if raw {
            let Some(close) = find(&b[body_start..], b"\"\"\"") else { continue };
            // `""""` closes with its last three quotes: the ones before are text
            let mut end = body_start + close + 3;
            while b.get(end) == Some(&b'"') {
                end += 1;
            }
            end - 3
        } else {
            let Some(close) = crate::tokens::closing_quote(b, q) else { continue };
            close
        };
        out.push(Repair::Excise { start, end: q });
        for k in body_start..body_end {
            if b[k] == b'$' && b[k - 1] != b'\\' {
                out.push(Repair::Overwrite { at: k, byte: b'_' });
            }
        }
        i = body_end;
    }
}

/// `suspend { … }`, the standard library's function that makes a suspending lambda
/// (kotlinx.coroutines' tests), and a parameter named `suspend` called
/// (`if (suspend(waiter)) return`, kotlinx.coroutines' `Semaphore.kt`, where it cost the
/// rest of the file): tree-sitter-kotlin-ng 1.1 reads `suspend` only as a modifier.
/// Before a `{`, or before parentheses no `->` or `.(` follows (which would make a
/// suspending function type, `suspend (A) -> B`, `suspend (Call).() -> Unit`), it is a
/// call: its first letter becomes a capital. Parentheses around a suspending function
/// type, `suspend ((A) -> B?)`, are hidden.
pub(crate) fn kotlin_suspend_lambdas(src: &str, out: &mut Vec<Repair>) {
    let b = src.as_bytes();
    capitalise_where(
        b,
        b"suspend",
        |at| {
            let next = skip_blanks(b, at + b"suspend".len());
            match b.get(next) {
                Some(b'{') => true,
                Some(b'(') => balanced_end(b, next, b'(', b')').is_some_and(|close| {
                    let after = &b[skip_space(b, close + 1)..];
                    !after.starts_with(b"->") && !after.starts_with(b".(") && find(&b[next..close], b"->").is_none()
                }),
                _ => false,
            }
        },
        out,
    );
    // A suspending function type in parentheses, `suspend ((HttpAuthHeader) -> Verifier?)`
    // (ktor's JWT provider): the grammar reads `suspend` before a function type only. The
    // outer parentheses are excised, hashed where they stand.
    for at in word_at(b, b"suspend") {
        let open = skip_blanks(b, at + b"suspend".len());
        if open == at + b"suspend".len() || b.get(open) != Some(&b'(') || b.get(skip_space(b, open + 1)) != Some(&b'(') {
            continue;
        }
        let Some(close) = balanced_end(b, open, b'(', b')') else { continue };
        let inner = skip_space(b, open + 1);
        let type_end = balanced_end(b, inner, b'(', b')').map(|c| skip_space(b, c + 1));
        if type_end.is_some_and(|e| b[e..close].starts_with(b"->")) && !b[skip_space(b, close + 1)..].starts_with(b"->") {
            out.push(Repair::Excise { start: open, end: open + 1 });
            out.push(Repair::Excise { start: close, end: close + 1 });
        }
    }
}

/// A primary constructor on a line after its class header, which Kotlin reads as the
/// class's own (a header may break before it) and tree-sitter-kotlin-ng 1.1 reads only
/// after a lone annotation or one visibility modifier, and only at the top level. One
/// repair per layout:
/// - a nested class's header with the indented constructor line right below it, block
///   comments allowed between (ktfmt's layout of a long header; kotlinpoet's nested
///   `Builder`s: `  public class Builder` then `  internal constructor(…) :`): the grammar
///   ends the nested class at the line break and reads a secondary constructor of the
///   enclosing class, and the error swallowed whole files (`TypeSpec.kt`: 1 022 lines).
///   That line break is excised (a `\r` before it too), so the parser reads one line, as
///   it reads `class B internal constructor(`; a line break carries no token, and blanks
///   stay between the two words, so no token can join;
/// - otherwise more than one annotation or modifier before the constructor
///   (`@PublishedApi internal constructor(…)`, `actual constructor(…)`, an annotation line
///   then `internal constructor(…)`: ktor, kotlinx.coroutines' `ChannelResult`): the
///   annotations and modifiers, from the first line after the header, are excised; their
///   tokens are hashed where they stand, inside the class.
pub(crate) fn kotlin_constructors_after_the_header(src: &str, out: &mut Vec<Repair>) {
    let b = src.as_bytes();
    for at in word_at(b, b"constructor") {
        let Some(first) = line_start_near(b, at, 256) else { continue };
        // (a header on the constructor's own line, `public class Open internal
        // constructor(`, arrow's `CircuitBreaker`, is read already)
        let same_line_header = [&b"class"[..], b"object", b"interface"].iter().any(|w| !word_at(&b[first..at], w).is_empty());
        if same_line_header || b.get(skip_blanks(b, at + b"constructor".len())) != Some(&b'(') || !annotations_and_modifiers(&b[first..at]) {
            continue;
        }
        if let Some((start, end)) = nested_header_break(b, first) {
            out.push(Repair::Excise { start, end });
            continue;
        }
        if first == at {
            continue;
        }
        let (spans, top) = attribute_lines_above(b, first);
        let top = top.unwrap_or(first);
        let Some((last, _)) = prev_non_space(b, top) else { continue };
        if header_class_word(b, last).is_some() && !matches!(b[last], b'{' | b'}' | b';' | b'(' | b',') {
            out.extend(spans);
            out.push(Repair::Excise { start: first, end: at });
        }
    }
}

/// Class and object headers whose `by` a finder looks up in the tree, per file (each is a
/// descent from the root; real files hold a few).
const MAX_DELEGATION_LOOKUPS: usize = 256;

/// Interface delegation with a body, `class ConnectionSpy(c: Connection) : Connection by c {`
/// (Exposed, coil, kotlinx.coroutines, sqldelight): Kotlin reads the `{` as the class body,
/// tree-sitter-kotlin-ng 1.1 as a lambda passed to the delegate expression, and says
/// nothing: the members become the lambda's statements and none is declared. Where the last
/// delegation of a class or object header ends in a lambda and no body follows, `by` and
/// the delegate up to that lambda are excised (their tokens hashed where they stand), so
/// the header reads `: Connection {`. A silent gap: the plain tree has no error, and the
/// repaired one is kept only when it has none either and declares more. A `by` is looked
/// up in the tree only when `class` or `object` stands before it in its header. The
/// header prints as the grammar's reading would where it does read the body (a body
/// with an `override`, or another declaration after it, can tip it), except around a
/// parenthesised delegate: `by (a ?: b)` keeps its parentheses in the print, which the
/// grammar's reading drops (kotlinx.coroutines' `NamedDispatcher`, 1 of the 54 files).
pub(crate) fn kotlin_delegation_bodies(root: tree_sitter::Node<'_>, src: &str, out: &mut Vec<Repair>) {
    let b = src.as_bytes();
    let mut looked = 0;
    for at in word_at(b, b"by") {
        let header = &b[header_start(b, at)..at];
        if word_at(header, b"class").is_empty() && word_at(header, b"object").is_empty() {
            continue;
        }
        if looked == MAX_DELEGATION_LOOKUPS {
            break;
        }
        looked += 1;
        let mut chain = Vec::new();
        super::descend_to(root, at, |n| chain.push(n));
        let [.., owner, specifiers, specifier, delegation, by] = chain[..] else { continue };
        let last_specifier = specifiers.named_child(specifiers.named_child_count().saturating_sub(1));
        if by.kind() != "by"
            || by.start_byte() != at
            || delegation.kind() != "explicit_delegation"
            || specifier.kind() != "delegation_specifier"
            || last_specifier != Some(specifier)
            || !matches!(owner.kind(), "class_declaration" | "object_declaration" | "object_literal")
            || super::children(owner).iter().any(|c| matches!(c.kind(), "class_body" | "enum_class_body"))
        {
            continue;
        }
        // the lambda ending the delegate: `c {`, `Impl() {`, `lazy(mode) {`
        let mut end = delegation.child(delegation.child_count().saturating_sub(1));
        while let Some(e) = end.filter(|e| e.kind() == "call_expression") {
            end = e.child(e.child_count().saturating_sub(1));
        }
        if let Some(lambda) = end.filter(|e| e.kind() == "annotated_lambda" && e.start_byte() > at) {
            out.push(Repair::Excise { start: at, end: lambda.start_byte() });
        }
    }
}

/// Kotlin's hard keywords that open a declaration: never a name, so an identifier spelled
/// like one is the grammar's misreading.
pub(crate) const KOTLIN_DECLARATION_KEYWORDS: [&str; 7] = ["class", "interface", "object", "fun", "val", "var", "typealias"];

/// Top-level declarations under two or more annotations, or one and a modifier word
/// (`@MustBeDocumented` / `@Retention(…)` / `public annotation class DelicateCoroutinesApi`,
/// kotlinx.coroutines' `Annotations.kt`; koin's, coil's and Exposed's API markers; okhttp's
/// `-DnsMessage.kt`): tree-sitter-kotlin-ng 1.1 also reads a script's top-level statements,
/// and often takes these for an annotated expression whose words `public annotation class
/// X` are names, silently: the declaration and everything in its body are lost. A `.kt` file
/// holds no such statement, and no name is spelled `class` or `fun`. In a top-level
/// statement that starts with an annotation, the modifier words the grammar read as names
/// right before such a keyword are excised (hashed where they stand, as the grammar's own
/// reading of annotations and modifiers hashes them: in order); the annotations and the
/// keyword then read as a declaration. A silent gap, and a repair of a tree with errors.
/// Declarations under annotations alone (`@Component` / `@Transactional` / `class
/// UserService {`) are left: there is no word to hide.
pub(crate) fn kotlin_declarations_read_as_statements(root: tree_sitter::Node<'_>, src: &str, out: &mut Vec<Repair>) {
    let mut top = root.walk();
    if !top.goto_first_child() {
        return;
    }
    // each leaf of a statement, in order, with its parent's kind
    let mut leaves: Vec<(tree_sitter::Node<'_>, &'static str)> = Vec::new();
    loop {
        let statement = top.node();
        let declared = statement.kind().ends_with("_declaration") || matches!(statement.kind(), "type_alias" | "package_header" | "import" | "file_annotation");
        if !declared && !statement.is_extra() && src.as_bytes().get(statement.start_byte()) == Some(&b'@') {
            leaves.clear();
            super::for_each_leaf(statement, |leaf, parent| leaves.push((leaf, parent)));
            for (i, &(leaf, parent)) in leaves.iter().enumerate() {
                let word = &src[leaf.byte_range()];
                if leaf.kind() != "identifier" || !KOTLIN_DECLARATION_KEYWORDS.contains(&word) || parent == "navigation_expression" {
                    continue;
                }
                // (`enum` and `companion` stay: the declaration needs them to be what it is)
                let hideable = |w: &[u8]| w != b"enum" && w != b"companion" && KOTLIN_MODIFIERS.contains(&w);
                let first = leaves[..i].iter().rposition(|(l, _)| l.kind() != "identifier" || !hideable(src[l.byte_range()].as_bytes())).map_or(0, |p| p + 1);
                if first < i {
                    out.push(Repair::Excise { start: leaves[first].0.start_byte(), end: leaf.start_byte() });
                }
            }
        }
        if !top.goto_next_sibling() {
            break;
        }
    }
}

/// The word `class` of a header ending at `last`: within 2 KiB before it, with no brace
/// or `;` between (type parameters may take a line each).
fn header_class_word(b: &[u8], last: usize) -> Option<usize> {
    let since = header_start(b, last + 1);
    word_at(&b[since..=last], b"class").last().map(|&k| since + k)
}

/// Where the header holding the bytes before `end` can begin: after the last brace or `;`
/// within 2 KiB (a header's type parameters may take a line each), so a scan back over it
/// stays bounded.
fn header_start(b: &[u8], end: usize) -> usize {
    let from = end.saturating_sub(2048);
    b[from..end].iter().rposition(|&c| matches!(c, b'{' | b'}' | b';')).map_or(from, |p| from + p + 1)
}

/// The line break before the indented constructor line whose first non-blank byte is at
/// `first`, when a nested class's header ends on the line right above (see
/// [`kotlin_constructors_after_the_header`]).
fn nested_header_break(b: &[u8], first: usize) -> Option<(usize, usize)> {
    let line_start = b[..first].iter().rposition(|&c| c == b'\n').map_or(0, |p| p + 1);
    let (last, end_byte) = prev_non_space(b, line_start)?;
    if line_start == first
        || b[last + 1..line_start].iter().filter(|&&c| c == b'\n').count() != 1
        || matches!(end_byte, b'{' | b'}' | b';' | b'(' | b',' | b'=' | b':' | b'.')
    {
        return None;
    }
    // The word `class` after modifiers (not `Foo::class`) with its name after it; then
    // only the name, type parameters and block comments: no annotation line (the other
    // layout), and no line comment on the line above, which would swallow this one.
    let k = header_class_word(b, last)?;
    let named = b.get(skip_blanks(b, k + b"class".len())).is_some_and(|&c| c.is_ascii_alphabetic() || c == b'_' || c == b'`');
    let after_modifiers = prev_on_line(b, k).is_none_or(|(_, c)| is_word_byte(c) || c == b')');
    let plain = !b[k..=last].iter().any(|&c| matches!(c, b'@' | b'"'));
    let last_line = b[..last].iter().rposition(|&c| c == b'\n').map_or(0, |p| p + 1);
    if !(named && after_modifiers && plain) || find(&b[last_line..=last], b"//").is_some() {
        return None;
    }
    let nl = line_start - 1;
    Some((if nl > last + 1 && b[nl - 1] == b'\r' { nl - 1 } else { nl }, line_start))
}

/// Whether `text`, what stands before a word on its line, is annotations and modifiers
/// only (`@PublishedApi internal `, `@OptIn(X::class) `).
fn annotations_and_modifiers(text: &[u8]) -> bool {
    text.first() == Some(&b'@') && text.iter().all(|&c| is_word_byte(c) || matches!(c, b'@' | b' ' | b'\t' | b'.' | b'(' | b')' | b':'))
        || text.iter().all(|&c| is_word_byte(c) || matches!(c, b' ' | b'\t'))
}

/// Guard conditions in `when` branches, `is String if x.isEmpty() -> …` (Kotlin 2.2,
/// ktor): the `if` and its condition, up to the branch's `->` on the same line or, for a
/// parenthesised condition over several lines (Exposed), right after its closing
/// parenthesis, are excised; their tokens are hashed where they stand.
pub(crate) fn kotlin_when_guards(src: &str, out: &mut Vec<Repair>) {
    let b = src.as_bytes();
    for at in word_at(b, b"if") {
        let Some(first) = line_start_near(b, at, 256) else { continue };
        // the branch's arrow, within the line and 512 bytes
        let stop = (at + 512).min(b.len());
        let end = b[at..stop].iter().position(|&c| c == b'\n').map_or(stop, |p| at + p);
        let branch = [&b"is "[..], b"!is ", b"in ", b"!in ", b"else "].iter().any(|w| b[first..].starts_with(w));
        if !branch || first == at || b[at - 1] != b' ' {
            continue;
        }
        if let Some(arrow) = find(&b[at..end], b"->") {
            out.push(Repair::Excise { start: at, end: at + arrow });
            continue;
        }
        // A parenthesised guard over several lines (Exposed's `is LiteralOp<*> if (` / … /
        // `) -> {`): the arrow after its closing parenthesis.
        let open = skip_blanks(b, at + 2);
        if b.get(open) == Some(&b'(') {
            if let Some(close) = balanced_end(b, open, b'(', b')') {
                let arrow = skip_space(b, close + 1);
                if b[arrow..].starts_with(b"->") {
                    out.push(Repair::Excise { start: at, end: arrow });
                }
            }
        }
    }
}

/// Names the grammar takes for something else (ktor's routing DSL, okhttp's and ktor's
/// tests): `get("/") { … }` or `set(key, value)` at the start of a statement, which it
/// reads as a property's accessor after a local `val` (a getter takes no parameter, a
/// setter one plain name: with anything else in the parentheses it is a call);
/// `dynamic`, Kotlin/JS's type, as a value (`Reference(name, dynamic)`) or a local's
/// name (`val dynamic = json.encodeToDynamic(…)`, kotlinx.serialization) or a counter
/// (`"dynamic" -> dynamic++`, ktor's SSE tests); a name
/// made of `in` and digits at a line's start (`in1.close()`), read as the `in` operator
/// continuing the previous line; and an enum entry named `enum` (`enum,` on a line of its
/// own among JSON Schema's keywords, ktor's OpenAPI model), read as the modifier; `get`
/// or `set` as a name at a statement's start (`set = set or bit`, okhttp), read as an
/// accessor of a local `val` on the line before, and so a modifier's word (`open =
/// isOpen`); a
/// class's `vararg` parameter named like a modifier (`class TestRule(vararg data: Pair<…>)`,
/// detekt's tests); and `get` called infix right after a block (`t.insert { … } get t.id`,
/// `} get (t.id)`, Exposed's tests), read as a getter. The first letter becomes a capital.
pub(crate) fn kotlin_names_read_as_keywords(src: &str, out: &mut Vec<Repair>) {
    let b = src.as_bytes();
    // A name assigned or used at a statement's start (`set = set or bit`, `set.add(x)`,
    // `open = isOpen`, `inner.close()`: okhttp): neither an accessor nor a modifier is
    // followed by an operator.
    let used = |at: usize, word: &[u8]| matches!(b.get(skip_blanks(b, at + word.len())), Some(b'=' | b'.' | b'[' | b'+' | b'-' | b'*' | b'%' | b'!' | b'?'));
    for word in [&b"get"[..], b"set"] {
        // …or a call with a trailing lambda (`get { … }`, ktor's routing): an accessor's
        // body follows its parentheses
        let lambda = |at: usize| b.get(skip_blanks(b, at + word.len())) == Some(&b'{');
        capitalise_where(b, word, |at| is_line_initial(b, at) && (kotlin_accessor_shape(b, at, word) == Some(false) || used(at, word) || lambda(at)), out);
    }
    // …and an argument, named or not (`ensureGCed(context, suspend = false)`, `if
    // (suspend)`: kotlinx.coroutines)
    let argument = |at: usize, word: &[u8]| {
        matches!(prev_on_line(b, at), Some((_, b'(' | b',')))
            && (used(at, word) || matches!(b.get(skip_blanks(b, at + word.len())), Some(b')' | b',')))
    };
    for word in KOTLIN_MODIFIERS {
        capitalise_where(b, word, |at| (is_line_initial(b, at) && used(at, word)) || argument(at, word), out);
    }
    // after `val`, `var` or `return`: a name
    let declared = |at: usize| {
        prev_non_space(b, at).is_some_and(|(p, _)| {
            [&b"val"[..], b"var", b"return"].iter().any(|w| p + 1 >= w.len() && &b[p + 1 - w.len()..=p] == *w && (p + 1 == w.len() || !is_word_byte(b[p - w.len()])))
        })
    };
    let arrow = |at: usize| prev_non_space(b, at).is_some_and(|(p, c)| c == b'>' && p > 0 && b[p - 1] == b'-');
    capitalise_where(
        b,
        b"dynamic",
        |at| prev_non_space(b, at).is_some_and(|(_, c)| matches!(c, b'(' | b',' | b'=' | b'!' | b'|' | b'&')) || declared(at) || arrow(at) || (is_line_initial(b, at) && used(at, b"dynamic")),
        out,
    );
    // `where` as a name at a statement's start (`where?.let { … }`, Exposed), not a
    // generic constraint (`where T : A`)
    capitalise_where(b, b"where", |at| is_line_initial(b, at) && matches!(b.get(at + 5), Some(b'?' | b'.' | b'=' | b' ')) && !b.get(skip_blanks(b, at + 5)).is_some_and(|c| c.is_ascii_alphabetic() || *c == b'@'), out);
    capitalise_where(b, b"enum", |at| is_line_initial(b, at) && matches!(b.get(skip_blanks(b, at + 4)), Some(b',' | b';' | b'(')), out);
    for at in word_at(b, b"vararg") {
        let name = skip_blanks(b, at + "vararg".len());
        let name_end = skip_word(b, name);
        if name > at + "vararg".len() && KOTLIN_MODIFIERS.contains(&&b[name..name_end]) && b.get(skip_blanks(b, name_end)) == Some(&b':') {
            out.push(Repair::Overwrite { at: name, byte: b[name].to_ascii_uppercase() });
        }
    }
    capitalise_where(
        b,
        b"get",
        |at| {
            let after_block = matches!(prev_on_line(b, at), Some((_, b'}')));
            let operand = skip_blanks(b, at + 3);
            after_block && operand > at + 3 && b.get(operand).is_some_and(|&c| c.is_ascii_alphabetic() || c == b'_' || c == b'(')
        },
        out,
    );
    let mut i = 0;
    while let Some(p) = find(&b[i..], b"in") {
        let at = i + p;
        i = at + 2;
        let end = skip_word(b, at);
        let digits = end > at + 2 && b[at + 2..end].iter().all(|c| c.is_ascii_digit());
        if digits && (at == 0 || !is_word_byte(b[at - 1])) && is_line_initial(b, at) {
            out.push(Repair::Overwrite { at, byte: b'I' });
        }
    }
}

/// Kotlin's modifier keywords, which tree-sitter-kotlin-ng reads as modifiers where a
/// `vararg` class parameter's name stands (and as names where it misreads a top-level
/// declaration as an expression, see [`kotlin_declarations_read_as_statements`]).
const KOTLIN_MODIFIERS: [&[u8]; 27] = [
    b"data", b"value", b"inner", b"open", b"enum", b"private", b"public", b"internal", b"protected", b"abstract",
    b"final", b"sealed", b"annotation", b"companion", b"override", b"lateinit", b"const", b"suspend", b"inline",
    b"noinline", b"crossinline", b"tailrec", b"operator", b"infix", b"external", b"expect", b"actual",
];

/// Whether the `get` or `set` at `at` is written as a property's accessor: a getter takes
/// no parameter, a setter one name (maybe annotated or typed); with anything else in its
/// parentheses it is a call. None when no `(` follows.
fn kotlin_accessor_shape(b: &[u8], at: usize, word: &[u8]) -> Option<bool> {
    let open = skip_blanks(b, at + word.len());
    if b.get(open) != Some(&b'(') {
        return None;
    }
    let close = balanced_end(b, open, b'(', b')')?;
    let inside = &b[open + 1..close];
    Some(match (word == b"get", inside.iter().find(|c| !c.is_ascii_whitespace())) {
        (true, first) => first.is_none(),
        (false, None) => false,
        (false, Some(&c)) => (c.is_ascii_alphabetic() || c == b'_' || c == b'@') && !top_level_comma(inside),
    })
}

/// Whether `inside` (a parenthesised list's content) has a comma outside any nested
/// bracket or type argument list.
fn top_level_comma(inside: &[u8]) -> bool {
    let mut depth = 0i32;
    for &c in inside {
        match c {
            b'(' | b'[' | b'{' | b'<' => depth += 1,
            b')' | b']' | b'}' | b'>' => depth -= 1,
            b',' if depth == 0 => return true,
            _ => {}
        }
    }
    false
}

/// Annotations before a property's accessor (`@InternalAPI set(value) { … }` after the
/// getter, `@OptIn(X::class)` above the `get()` of a `val` without a type: ktor, okhttp,
/// kotlinx.coroutines, Exposed): tree-sitter-kotlin-ng 1.1 reads an annotated getter only
/// after a typed, initialised property, and an annotated setter nowhere. The annotations,
/// on the accessor's line or on lines of their own above it, are excised (a comment after
/// one on its own line stays visible, as comments are not hashed); their tokens are
/// hashed where they stand, inside the property. A getter takes no parameter, so only
/// `get()` counts (`get("/")` is a call); a bare `get` or `set` ending its line counts
/// too, and an annotation whose arguments run over several lines above it (`@Deprecated(`
/// / … / `)` / `set`, ktor's Darwin engine config, where it swallowed the class).
pub(crate) fn kotlin_annotated_accessors(src: &str, out: &mut Vec<Repair>) {
    let b = src.as_bytes();
    for word in [&b"get"[..], b"set"] {
        for at in word_at(b, word) {
            // `set(value) { … }`, or a bare `set` ending its line
            let bare = || {
                let next = skip_blanks(b, at + word.len());
                matches!(b.get(next), None | Some(b'\n' | b'\r' | b';' | b'}')) || b[next..].starts_with(b"//")
            };
            if kotlin_accessor_shape(b, at, word) != Some(true) && !bare() {
                continue;
            }
            let Some(first) = line_start_near(b, at, 256) else { continue };
            // on its line, only annotations (and modifiers) before it
            let same_line = first != at;
            if same_line && (b[first] != b'@' || !annotations_and_modifiers(&b[first..at])) {
                continue;
            }
            attributes_above(b, first, out);
            if same_line {
                out.push(Repair::Excise { start: first, end: at });
            }
        }
    }
}

/// Whether `code` is annotations and nothing else: `@Name`, `@file:Name`, `@a.b.C`, each
/// maybe with balanced arguments, separated by blanks.
fn only_annotations(code: &[u8]) -> bool {
    let mut i = 0;
    while i < code.len() {
        if code[i] != b'@' {
            return false;
        }
        i += 1;
        let name = i;
        while code.get(i).is_some_and(|&c| is_word_byte(c) || matches!(c, b'.' | b':')) {
            i += 1;
        }
        if i == name {
            return false;
        }
        if code.get(i) == Some(&b'(') {
            match balanced_end(code, i, b'(', b')') {
                Some(close) => i = close + 1,
                None => return false,
            }
        }
        i = skip_blanks(code, i);
    }
    !code.is_empty()
}

/// Length of an annotation line's code: up to a `//` or `/*` outside a string, blanks
/// before it trimmed.
fn annotation_line_end(line: &[u8]) -> usize {
    let mut quoted = false;
    let mut end = line.len();
    for (i, &c) in line.iter().enumerate() {
        match c {
            b'"' if i == 0 || line[i - 1] != b'\\' => quoted = !quoted,
            b'/' if !quoted && matches!(line.get(i + 1), Some(b'/' | b'*')) => {
                end = i;
                break;
            }
            _ => {}
        }
    }
    line[..end].trim_ascii_end().len()
}

/// Calls the grammar cannot read (kotlinx.coroutines' tests, okhttp, ktor): a callable
/// reference on a nullable type, `String?::plus` (the `?` is excised, hashed where it
/// stands); a function named `open` called, `open(closer)` (a capital, as for other
/// names read as keywords); and a parenthesised callee, `(block)(call, it)` (its
/// parentheses are excised).
pub(crate) fn kotlin_unreadable_calls(src: &str, out: &mut Vec<Repair>) {
    let b = src.as_bytes();
    for at in occurrences(b, b"?::") {
        if at > 0 && is_word_byte(b[at - 1]) {
            out.push(Repair::Excise { start: at, end: at + 1 });
        }
    }
    capitalise_where(b, b"open", |at| b.get(at + 4) == Some(&b'('), out);
    for open in occurrences(b, b"(") {
        let name_end = skip_word(b, open + 1);
        if name_end == open + 1 || b.get(name_end) != Some(&b')') || b.get(name_end + 1) != Some(&b'(') {
            continue;
        }
        let after_expression = prev_non_space(b, open).is_some_and(|(_, c)| is_word_byte(c) || c == b')');
        if !after_expression && b[open + 1].is_ascii_alphabetic() {
            out.push(Repair::Excise { start: open, end: open + 1 });
            out.push(Repair::Excise { start: name_end, end: name_end + 1 });
        }
    }
}

/// A callable reference at the start of a statement after a block (`suspend fun a() { … }`
/// then `::a.startCoroutine(c)`, kotlinx.coroutines' tests): tree-sitter-kotlin-ng 1.1
/// reads the `::` as continuing the block's expression. Kotlin ends the statement at the
/// line break; the indentation blank right before the `::` becomes a `;`, which hashes
/// nothing, as the blank did not.
pub(crate) fn kotlin_line_initial_references(src: &str, out: &mut Vec<Repair>) {
    let b = src.as_bytes();
    for at in occurrences(b, b"::") {
        if at == 0 || !matches!(b[at - 1], b' ' | b'\t') || !is_line_initial(b, at) {
            continue;
        }
        if prev_non_space(b, at).is_some_and(|(_, c)| matches!(c, b'}' | b')' | b']' | b'"') || is_word_byte(c)) {
            out.push(Repair::Overwrite { at: at - 1, byte: b';' });
        }
    }
}

/// A trailing comma in an index expression (`creators[\n    Key(a, b),\n]?.invoke()`,
/// koin's `CheckModules`) or a type parameter list (`<\n  A : B,\n  >`, arrow): Kotlin
/// allows it, tree-sitter-kotlin-ng 1.1 does not. The comma
/// becomes a blank; a comma before a closing bracket hashes nothing wherever it stands.
pub(crate) fn kotlin_trailing_index_commas(src: &str, out: &mut Vec<Repair>) {
    let b = src.as_bytes();
    // and in a type parameter list (`fun <\n  A : B,\n  > R.f()`, arrow's `server`)
    for (close, _) in b.iter().enumerate().filter(|(_, &c)| c == b']' || c == b'>') {
        if let Some((comma, b',')) = prev_non_space(b, close) {
            out.push(Repair::Overwrite { at: comma, byte: b' ' });
        }
    }
}

/// An empty collection literal in an annotation, `val binds: Array<KClass<*>> = []` or
/// `@Module(includes = [])` (koin): tree-sitter-kotlin-ng 1.1 wants an element in one.
/// The brackets become braces, an empty lambda of the same two bytes, read as the
/// brackets of the original text.
pub(crate) fn kotlin_empty_collection_literals(src: &str, out: &mut Vec<Repair>) {
    let b = src.as_bytes();
    for at in occurrences(b, b"[]") {
        if prev_non_space(b, at).is_some_and(|(_, c)| matches!(c, b'=' | b'(' | b',')) {
            out.push(Repair::Overwrite { at, byte: b'{' });
            out.push(Repair::Overwrite { at: at + 1, byte: b'}' });
        }
    }
}

/// A class body or an enum entry's body closed on the line of its last member
/// (`MAIN { override fun invoke(c: C): C = c },`, `class A { val x = 1 }`:
/// kotlinx.coroutines' reactive tests; `object : Greeter { override fun greet() = "hi" }`,
/// an object expression passed or assigned on one line): tree-sitter-kotlin-ng 1.1 wants
/// a line break or a `;` after a member. The blank before the `}` becomes a `;`, which
/// hashes nothing, as the blank did not. Only bodies closed on the line they open on are
/// touched: the line's first `{` when the line starts with an enum entry's name, and any
/// `{` whose own header (the text since the line's start or the `{`, `}`, `;` before it)
/// declares a class, an interface or an object.
pub(crate) fn kotlin_one_line_bodies(src: &str, out: &mut Vec<Repair>) {
    let b = src.as_bytes();
    for (_, first, end) in lines(b) {
        let text = &b[first..end];
        let mut header_from = 0;
        for (open, &c) in text.iter().enumerate() {
            if matches!(c, b'}' | b';') {
                header_from = open + 1;
            }
            if c != b'{' {
                continue;
            }
            let (head, first_brace) = (&text[header_from..open], header_from == 0);
            header_from = open + 1;
            // `NAME {` or `NAME(arguments) {`: an enum entry (or a call with a trailing
            // lambda, where a `;` before the `}` is as harmless)
            let name_end = skip_word(head, 0);
            let rest = head[name_end..].trim_ascii_end();
            let entry = first_brace && head.first().is_some_and(|c| c.is_ascii_alphabetic()) && (rest.is_empty() || (rest.starts_with(b"(") && rest.ends_with(b")")));
            let declares = [&b"class"[..], b"interface", b"object"].iter().any(|w| !word_at(head, w).is_empty());
            let open = first + open;
            if entry || declares {
                if let Some(close) = balanced_end(b, open, b'{', b'}').filter(|&c| c < end) {
                    let before = prev_non_space(b, close).map(|(_, c)| c);
                    // a body of a comment alone (`return { /* nothing */ }`, arrow) has no
                    // member to end, and a lone `;` there is an error
                    let comment_only = b[open + 1..close].trim_ascii().starts_with(b"/*") && b[open + 1..close].trim_ascii().ends_with(b"*/");
                    if close > open + 1 && b[close - 1] == b' ' && !matches!(before, Some(b'{' | b';')) && !comment_only {
                        out.push(Repair::Overwrite { at: close - 1, byte: b';' });
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn init_where_clauses_continued_after_a_comma() {
        let src = "extension S {\n  init<R>(x: R) async\n  where\n    Data == P<R>,\n    Root == Q\n  {\n    f(a,\n      b)\n  }\n}\n";
        assert_eq!(cuts(swift_init_where_line_breaks, src), ["cut \"\\n    \""]);
        // one line, or a comment after the comma: nothing to do
        assert!(cuts(swift_init_where_line_breaks, "init(x: R) where A == B, C == D {}\n").is_empty());
        assert!(cuts(swift_init_where_line_breaks, "init(x: R) where A == B, // why\n C == D {}\n").is_empty());
        assert!(cuts(swift_init_where_line_breaks, "self.init(x: 1)\nwhere\n  A == B,\n  C == D {}\n").is_empty());
    }

    #[test]
    fn dollars_inside_identifiers_and_case_path_slashes() {
        assert_eq!(cuts(swift_dollar_inside_identifiers, "var _$id: Int\nlet x = $0 + a$b + \"$\" + 1$x\n"), ["5:_", "28:_"]);
        let src = "x.ifCaseLet(/State.child, action: /Action.child)\nlet r = /Abc/\nlet q = a / B\n";
        assert_eq!(cuts(swift_case_path_prefix_slash, src), ["12:-", "34:-"]);
        // a function's name only where it ends the argument; a lowercase regex is left
        let src = "(/embed).extract(from:)\nl.appending(path: /rhs)\nf(/ab+/)\ng(/ab c/)\nlet d = a /b\n";
        let at = |s: &str| src.find(s).unwrap();
        assert_eq!(cuts(swift_case_path_prefix_slash, src), [format!("{}:-", at("/embed")), format!("{}:-", at("/rhs"))]);
    }

    #[test]
    fn modifier_named_locals_and_ownership_operators_before_blocks() {
        let src = "let final: E?\nfinal = try g()\n  weak?.f()\nfinal class A {}\nfinal @objc func h() {}\nfinal // note\nx = final\n";
        let at = |s: &str| src.find(s).unwrap();
        assert_eq!(cuts(swift_modifier_named_locals, src), [format!("{}:F", at("final = ")), format!("{}:W", at("weak?"))]);
        let nio = "    prefix = parsePrefix\n    package.targets += t\nprefix func -(x: V) -> V {}\n@objc optional func f()\nlazy var v = 1\n";
        let at = |s: &str| nio.find(s).unwrap();
        assert_eq!(cuts(swift_modifier_named_locals, nio), [format!("{}:P", at("prefix =")), format!("{}:P", at("package."))]);
        let src = "switch consume result {\nif let v = copy self.box {\nlet y = consume x\nfor e in consume items {\nx.consume y {\nconsume(x) {\n";
        assert_eq!(cuts(swift_ownership_operators_before_blocks, src), ["cut \"consume \"", "cut \"consume \"", "cut \"copy \""]);
    }

    #[test]
    fn joined_generic_type_arguments() {
        let src = "const f = dual<<K>(key: K) => (s: S<K>) => K, <K>(s: S<K>, key: K) => K>(2, g)\nconst x = a<<b\nlet t: Array<<T>(a: T) => T> = []\nconst y = m<<K extends string, V = Map<K, V>>(k: K) => V>(h)\n";
        // (in the annotation the grammar reads it; hiding it there hashes the same tokens)
        assert_eq!(cuts(typescript_joined_generic_type_arguments, src), ["cut \"<K>\"", "cut \"<T>\"", "cut \"<K extends string, V = Map<K, V>>\""]);
    }

    #[test]
    fn tagged_template_type_arguments() {
        let src = "yield* sql<{ id: Uint8Array; at: number }>`SELECT ${x}`\nconst r = sql<Row[]>`s`\nconst q = sql<Row>`s`\nconst f = (a: A) => b<A>`t`\nlet v = a < b ? c : d > `e`\nconst g = db.sql<{ f: (a: A) => B }>`x`\n";
        assert_eq!(cuts(typescript_tagged_template_type_arguments, src), ["cut \"<{ id: Uint8Array; at: number }>\"", "cut \"<Row[]>\"", "cut \"<{ f: (a: A) => B }>\""]);
        assert!(cuts(typescript_tagged_template_type_arguments, "x = `a` + (b > `c`)").is_empty());
    }

    #[test]
    fn members_named_abstract_or_accessor() {
        let src = "interface O {\n  abstract?: boolean;\n  abstract: boolean\n}\nabstract class A {\n  abstract f(): void;\n  accessor(\n    a: string,\n  ) {}\n  accessor x = 1\n  static accessor<T>() {}\n}\n";
        let at = |s: &str| src.find(s).unwrap();
        assert_eq!(cuts(typescript_keyword_member_names, src), [format!("{}:A", at("abstract?")), format!("{}:A", at("abstract:")), format!("{}:A", at("accessor(\n"))]);
        let src = "class A {\n  @observable accessor a = 1\n  @x.y accessor b\n  @f() accessor c\n  x = accessor\n}\n";
        assert_eq!(cuts(|s, o| auto_accessors(s, true, o), src), ["cut \"accessor \"", "cut \"accessor \"", "cut \"accessor \""]);
    }

    #[test]
    fn keyof_readonly() {
        let src = "type K = keyof readonly [1]\ntype L = keyof\n  readonly string[]\ntype M = keyof readonlyA\nconst n = o.keyof.readonly\n";
        assert_eq!(cuts(typescript_keyof_readonly, src), ["cut \"readonly \"", "cut \"readonly \""]);
    }

    #[test]
    fn let_as_and_generic_arrows_on_their_own_line() {
        let src = "let as = x\nlet as: A[]\nlet a = b as C\nlet as\nconst as = 1\n";
        assert_eq!(cuts(typescript_let_as, src), ["4:A", "15:A"]);
        // a generic arrow on its own line after `=>` is no call signature
        let src = "const f =\n  (x: X) =>\n  <A>(y: A) => y\ninterface I {\n  (): void\n  <P>(h: P): R\n}\nconst w = dual<\n  /** a */\n  (s: S) => <A>(x: A) => A,\n  /** b */\n  <A>(x: A, s: S) => A\n>(2, g)\n";
        assert_eq!(cuts(typescript_line_initial_signature, src), [format!("{}:;", src.find("<P>").unwrap() - 1)]);
    }

    #[test]
    fn inline_import_types_with_a_suffix() {
        let src = "let a: import('ts-morph').Node[] = [];\nlet b = [] as import(\"../t\").D<T>;\ntype C = import('x')['Y'];\nlet d: import('x').Y = z;\nawait import('./m').then((m) => m);\n// import('c').Y[]\nconst s = \"import('s').Y[]\";\n";
        assert_eq!(cuts(typescript_inline_import_types, src), ["cut \"import('ts-morph').\"", "cut \"import(\\\"../t\\\").\"", "cut \"import('x')\""]);
        assert!(cuts(typescript_inline_import_types, "x.import('a')[0]; reimport('b').c[1]; import(a).b[2]; import('unclosed).b[3]").is_empty());
        // in a call's type arguments: `typeof import('x')` keeps its string, `import('x').Y` its name
        let src = "const a = await vi.importActual<typeof import('react-dom/client')>('x')\nf<A, import('./t').T>()\ntype T = typeof import('a')\nconst b = typeof import('b')\n";
        assert_eq!(cuts(typescript_inline_import_types, src), ["cut \"typeof import(\"", "cut \")\"", "cut \"import('./t').\""]);
    }

    #[test]
    fn diagnostics_among_a_types_members_only() {
        let src = "#error(\"top\")\nfinal class P<V> {\n    #if os(Linux)\n    #error(\"no lock\")\n    #endif\n    func f() {\n        #warning(\"body\")\n    }\n    #warning( \"a ) b\" )\n}\n";
        assert_eq!(cuts(swift_member_diagnostics, src), ["cut \"#error(\\\"no lock\\\")\"", "cut \"#warning( \\\"a ) b\\\" )\""]);
        // a class method, a member access and a doc comment are no type header
        let src = "/// the struct of it\nfunc g() {\n  #warning(\"x\")\n}\nclass func h() {\n  #warning(\"y\")\n}\nlet k = x.class {\n  #error(\"z\")\n}\n";
        assert!(cuts(swift_member_diagnostics, src).is_empty());
        assert_eq!(cuts(swift_member_diagnostics, "extension S where T: P {\n  #warning(\"w\")\n}"), ["cut \"#warning(\\\"w\\\")\""]);
        assert!(cuts(swift_member_diagnostics, "struct S {\n  let e = #error\n}").is_empty());
    }

    #[test]
    fn swift_associated_type_where_clauses_over_several_lines_lose_their_line_breaks() {
        let src = "protocol P {\n    associatedtype D: Q\n    where\n        D.R == R,\n        D.W == W\n    associatedtype E: Q where E.R == R,\n  E.W == W\n    func f(a: A,\n           b: B)\n}\n";
        assert_eq!(cuts(swift_associated_type_where_lines, src), ["cut \"\\n       \"", "cut \"\\n \""]);
    }

    #[test]
    fn swift_type_alias_where_clauses_are_hidden_on_their_line() {
        let src = "public typealias R<B> = Range<B> where B: Strideable, B.Stride: SignedInteger // why\ntypealias F = (A) -> B\ntypealias G<T> = S<T, (U) -> V> where T: P\ntypealias H = K\n  where K: P // note\ntypealias I = J // why\n  where J: Q\n";
        assert_eq!(
            cuts(swift_type_alias_where_clauses, src),
            ["cut \"where B: Strideable, B.Stride: SignedInteger\"", "cut \"where T: P\"", "cut \"\\n  where K: P\""]
        );
    }

    #[test]
    fn swift_regex_literals_anchored_at_their_start_are_read_as_regexes() {
        let src = "let r = /^`[^`]*`$/\nif s.contains(/^\\d+\\/x$/) {}\nlet q = a /^ b\nlet o = (/^ x)\n// see /^a/\n";
        let at = |s: &str| src.find(s).unwrap() + 1;
        assert_eq!(cuts(swift_caret_regex_literals, src), [format!("{}:a", at("/^`")), format!("{}:a", at("/^\\d"))]);
    }

    #[test]
    fn kotlin_context_function_types_lose_their_clause() {
        let src = "fun <E, A> either(\n  block: context(Raise<E>) () -> A,\n  f: (context(R) suspend () -> A) -> Unit,\n  g: suspend context(S) () -> A,\n): A\ntypealias F = context(A, B) () -> C\ntypealias H<T> = suspend context(Raise<R>) Ctx<T>.() -> T\nval x = context(a) (b)\nval y = m(context(a) to b)\n";
        assert_eq!(
            cuts(kotlin_context_function_types, src),
            ["cut \"context(Raise<E>) \"", "cut \"context(R) \"", "cut \"context(S) \"", "cut \"context(A, B) \"", "cut \"context(Raise<R>) \""]
        );
    }

    #[test]
    fn kotlin_context_clauses_multi_dollar_strings_and_suspend_lambdas() {
        let src = "context(scope: Scope)\nfun f() {}\nclass A {\n    context(a: A, b: B)\n    @Test override fun g() {}\n}\nval c = withContext(x) {}\ncontext(x) + 1\nx.context(y)\n";
        assert_eq!(cuts(kotlin_context_parameters, src), ["cut \"context(scope: Scope)\\n\"", "cut \"context(a: A, b: B)\\n    \""]);
        let src = "val r = $$\"$ref\"\nval s = \"cost: $$\" + x\nval t = f($$\"\"\"a $${k} \\$ \"\"\"\")\n";
        assert_eq!(
            cuts(kotlin_multi_dollar_strings, src),
            ["cut \"$$\"", format!("{}:_", src.find("$ref").unwrap()).as_str(), "cut \"$$\"", &format!("{}:_", src.find("${k}").unwrap() - 1), &format!("{}:_", src.find("${k}").unwrap())]
        );
        assert!(cuts(kotlin_multi_dollar_strings, "val u = $$\"unclosed\nval v = 1\n").is_empty());
        let src = "s = if (a) $$\"$$p$$$f\" else $$\"$$q\"\n";
        let excised: Vec<String> = cuts(kotlin_multi_dollar_strings, src).into_iter().filter(|c| c.starts_with("cut")).collect();
        assert_eq!(excised, ["cut \"$$\"", "cut \"$$\""]);
        let src = "val l = suspend { 1 }\nsuspend fun f() {}\nval g: suspend () -> Unit = {}\nx(suspend  {})\nval h: suspend (A)\n  -> B\nval k: suspend (C).() -> Unit\nif (suspend(w)) return\nval v: suspend ((H) -> V?) = c\n";
        assert_eq!(
            cuts(kotlin_suspend_lambdas, src),
            [
                "8:S".to_string(),
                format!("{}:S", src.find("suspend  {").unwrap()),
                format!("{}:S", src.find("suspend(w)").unwrap()),
                "cut \"(\"".to_string(),
                "cut \")\"".to_string()
            ]
        );
    }

    #[test]
    fn kotlin_constructors_after_the_header_guards_and_setters() {
        let src = "public value class S<out T>\n@PublishedApi internal constructor(val h: Any?) {}\nclass B<\n    T\n    >\n@Ann\nactual constructor(x: Int) {}\nclass C {\n    @Inject internal constructor(x: Int) : this()\n}\n";
        assert_eq!(cuts(kotlin_constructors_after_the_header, src), ["cut \"@PublishedApi internal \"", "cut \"@Ann\"", "cut \"actual \""]);
        let src = "class A {\n  public class Builder\n  internal constructor(val n: String) :\n    B {\n  }\n  class C<\n    T,\n  >\r\n  constructor(x: T)\n  val k = Foo::class\n  constructor(x: Int) : this()\n  class D {\n  }\n  constructor(y: Int) : this()\n  class E\n\n  constructor(z: Int)\n}\nclass F\nprivate constructor(a: Int)\n";
        // (the top-level `class F` then `private constructor(` takes the other layout's repair)
        assert_eq!(cuts(kotlin_constructors_after_the_header, src), ["cut \"\\n\"", "cut \"\\r\\n\"", "cut \"private \""]);
        // a header on the constructor's line, after a doc comment; an annotation line
        // between (okhttp's `Android17SocketAdapter`, read by the other repair)
        let src = "class A {\n  /** Doc of the class. */\n  public class Open internal constructor(x: Int)\n  class L // why\n  constructor(x: Int)\n}\nclass B\n  @RequiresApi(37)\n  internal constructor() : S {\n}\n";
        assert_eq!(cuts(kotlin_constructors_after_the_header, src), ["cut \"@RequiresApi(37)\"", "cut \"internal \""]);
        // a block comment between (detekt's `XmlEscapeSymbols`)
        let src = "object X {\n    class S\n    /*\n     * Made once.\n     */\n    constructor(val r: R)\n}\n";
        assert_eq!(cuts(kotlin_constructors_after_the_header, src), ["cut \"\\n\""]);
        let src = "when (x) {\n    is String if x.isEmpty() -> 0\n    else if (y) -> 1\n    a -> if (b) c else d\n    is Op<*> if (\n        a && (b == null)\n        ) -> 2\n    is Q if (c) {\n    }\n}\n";
        assert_eq!(cuts(kotlin_when_guards, src), ["cut \"if x.isEmpty() \"", "cut \"if (y) \"", "cut \"if (\\n        a && (b == null)\\n        ) \""]);
        let src = "var t: T\n    get() = a\n    @InternalApi set(value) {}\n    @Synchronized get() = b\n    private set\n";
        assert_eq!(cuts(kotlin_annotated_accessors, src), ["cut \"@Synchronized \"", "cut \"@InternalApi \""]);
        let src = "var u: T\n    get() = a\n    @Suppress(\"A // B\") // why\n    @Synchronized\n    set(value) {}\n";
        assert_eq!(cuts(kotlin_annotated_accessors, src), ["cut \"@Suppress(\\\"A // B\\\")\"", "cut \"@Synchronized\""]);
        let src = "class S {\n    val id\n        @OptIn(X::class)\n        get() = name\n    val q\n        @A get() = 1\n}\n@Suppress(\"x\")\nget(\"/\") {}\n";
        assert_eq!(cuts(kotlin_annotated_accessors, src), ["cut \"@OptIn(X::class)\"", "cut \"@A \""]);
        let src = "annotation class A(val b: Array<K> = [], val c: Int = 1)\n@M(includes = [])\nf([], x)\nval y = a[]\n";
        let at = |s: &str| src.find(s).unwrap();
        assert_eq!(
            cuts(kotlin_empty_collection_literals, src),
            [at("[], val"), at("[], val") + 1, at("[])"), at("[])") + 1, at("[], x"), at("[], x") + 1].iter().enumerate().map(|(i, a)| format!("{a}:{}", if i % 2 == 0 { '{' } else { '}' })).collect::<Vec<_>>()
        );
        let src = "f(String?::plus, a?::b, x ?: y)\ng { open(c) }\nopen class A\nval p = c?.let { (auth)(call, it) }\nif (a)(b)\nh((x)(y))\n";
        let at = |s: &str| src.find(s).unwrap();
        assert_eq!(
            cuts(kotlin_unreadable_calls, src),
            ["cut \"?\"".to_string(), "cut \"?\"".to_string(), format!("{}:O", at("open(")), "cut \"(\"".to_string(), "cut \")\"".to_string(), "cut \"(\"".to_string(), "cut \")\"".to_string()]
        );
    }

    #[test]
    fn kotlin_trailing_commas_in_index_expressions() {
        let src = "val p = all.creators[\n    C(a,),\n]?.invoke(a)\nval q = m[k , ]\nval r = m[k]\n";
        assert_eq!(cuts(kotlin_trailing_index_commas, src), [format!("{}: ", src.find("),\n]").unwrap() + 1), format!("{}: ", src.find(", ]").unwrap())]);
    }

    #[test]
    fn kotlin_callable_references_starting_a_statement() {
        let src = "fun t() {\n    suspend fun a() {}\n    ::a.start(c)\n    val f =\n        ::g\n    h(\n        ::i)\n::j\n}\n";
        assert_eq!(cuts(kotlin_line_initial_references, src), [format!("{}:;", src.find("::a").unwrap() - 1)]);
    }

    #[test]
    fn kotlin_names_the_grammar_reads_as_keywords_and_one_line_bodies() {
        let src = "val x: Int\n    get() = 1\n    set(value) {}\nget(\"/\") {}\nset(a, b)\nset(\"k\")\nset(v: Int) {}\nx.get(1)\nf(x: dynamic, dynamic)\nin1.close()\nval y = in2\ninner.close()\nwhere?.let { g(it) }\nfun <T> f()\n    where T : A = 1\nq.where { a }\nenum class K {\n    pattern,\n    enum,\n    id;\n}\nclass R(vararg data: Int, vararg items: Int)\nval i = t.insert { x } get t.id\nval j = t.f {\n} get(1)\nval k = t.insert {\n} get (t.id)\nfun s() {\n    val dynamic = d()\n    val bit = 1\n    set = set or bit\n    get?.let { it }\n    get {\n        respond(bit)\n    }\n    open = isOpen\n    data.clear()\n    ensure(c, suspend = false)\n    if (suspend) g()\n    when (k) {\n        \"d\" -> dynamic++\n    }\n    return dynamic\n    private val v = 1\n}\nvar p: Int = 0\n    private set\n    get\n";
        let at = |s: &str| src.find(s).unwrap();
        let mut found = cuts(kotlin_names_read_as_keywords, src);
        found.sort();
        let mut expected = [format!("{}:G", at("get(\"/\")")), format!("{}:S", at("set(a")), format!("{}:S", at("set(\"k")), format!("{}:D", at("dynamic)")), format!("{}:W", at("where?")), format!("{}:I", at("in1.")), format!("{}:E", at("enum,")), format!("{}:D", at("data:")), format!("{}:G", at("get t.")), format!("{}:G", at("get (t.")), format!("{}:S", at("set = set")), format!("{}:D", at("dynamic = d")), format!("{}:O", at("open = isOpen")), format!("{}:I", at("inner.close")), format!("{}:D", at("data.clear")), format!("{}:S", at("suspend = false")), format!("{}:S", at("suspend) g")), format!("{}:V", at("value) {}")), format!("{}:D", at("dynamic++")), format!("{}:D", at("return dynamic") + 7), format!("{}:G", at("get?.")), format!("{}:G", at("get {"))];
        expected.sort();
        assert_eq!(found, expected);
        let src = "class A { val x = 1 }\n    MAIN { override fun f() = 1 },\n    B(2) { override fun f() = 2 };\nclass E {}\nclass F { }\nfun g() { h() }\nenum class G { A, B;}\nreturn { /* nothing */ }\n";
        let at = |s: &str| src.find(s).unwrap();
        assert_eq!(
            cuts(kotlin_one_line_bodies, src),
            [format!("{}:;", at("1 }") + 1), format!("{}:;", at("1 },") + 1), format!("{}:;", at("2 };") + 1)]
        );
        // object expressions, also after another brace on the line; a function's or a
        // lambda's one-line body is left alone
        let src = "val g = object : L { override fun on() = false }
fun f() { val h = object : L { val x = 1 } }
fun q() = run { object : L { fun a() = 1 } }
list.map { it + 1 }
";
        let at = |s: &str| src.find(s).unwrap();
        assert_eq!(cuts(kotlin_one_line_bodies, src), [format!("{}:;", at("false }") + 5), format!("{}:;", at("1 } }") + 1), format!("{}:;", at("1 } }\nlist") + 1)]);
    }

    #[test]
    fn kotlin_delegation_bodies_read_as_lambdas() {
        let found = |src: &str| {
            let tree = super::super::tree_for_tests(crate::Lang::Kotlin, src).unwrap();
            let mut r = Vec::new();
            kotlin_delegation_bodies(tree.root_node(), src, &mut r);
            described(src, &r)
        };
        // (the grammar misreads such a body when it ends the file; what follows can tip it)
        for (src, cut, member) in [
            ("class A(val i: I) : I by i {\n    fun f() = 1\n}\n", "cut \"by i \"", "A.f()"),
            ("object B : I by make(0) {\n    fun g() = 2\n}\n", "cut \"by make(0) \"", "B.g()"),
            ("class C : X(), I by lazy { d } {\n    fun h() = 3\n}\n", "cut \"by lazy { d } \"", "C.h()"),
            // (an `override` in the lambda is an error: a repair, not a silent gap)
            ("class E : I by i {\n    override fun f() = 1\n}\n", "cut \"by i \"", "E.f()"),
        ] {
            assert_eq!(found(src), [cut], "{src}");
            let read = crate::parse(crate::Lang::Kotlin, src);
            assert!(!read.has_error && read.declarations.iter().any(|d| d.qualified_name == member), "{src}\n{read:#?}");
        }
        // a property's delegate, a header without a body, bodies the grammar reads
        for src in ["val v by lazy { 1 }\n", "class D : I by i\n", "val o = object : I by i {\n    fun k() = 4\n}\n", "fun e() = run { 4 }\n"] {
            assert!(found(src).is_empty(), "{src}");
        }
    }

    fn cuts(f: fn(&str, &mut Vec<Repair>), src: &str) -> Vec<String> {
        let mut r = Vec::new();
        f(src, &mut r);
        described(src, &r)
    }

    /// Repairs as text: `cut "…"` for a hidden span, `AT:C` for an overwrite.
    fn described(src: &str, repairs: &[Repair]) -> Vec<String> {
        repairs
            .iter()
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
    fn variance_after_const_and_comment_lines() {
        let src = "class E<\n  const in out B extends string = '',\n  // ? scoped\n  in out F = {},\n  /** d */ out G,\n> {}";
        assert_eq!(
            cuts(typescript_variance, src),
            ["cut \"in out \"", "cut \"in out \"", "cut \"out \""]
        );
        assert!(
            cuts(typescript_variance, "const in = 1; for (const k in o) {}").is_empty(),
            "`const` alone is no parameter list"
        );
        assert!(
            cuts(typescript_variance, "f(a, // x\n  in y)").is_empty(),
            "no name, then `extends`, `=`, `,` or `>`"
        );
    }

    #[test]
    fn typed_using_declarations_lose_their_annotation() {
        let src = "{\n  using _time: FakeTime = new FakeTime();\n  await using r: Map<string, (a: A) => B> | 'x=y' = open();\n}";
        assert_eq!(
            cuts(typescript_using_type_annotations, src),
            ["cut \": FakeTime \"", "cut \": Map<string, (a: A) => B> | 'x=y' \""]
        );
        // untyped, a name, a label or an object key, and an annotation never closed
        for plain in ["using x = f();", "m(using: string) {}", "{ using: 1 }", "using x: T;", "using x: (a = 1"] {
            assert!(cuts(typescript_using_type_annotations, plain).is_empty(), "{plain}");
        }
    }

    #[test]
    fn using_is_renamed_where_it_is_a_name_not_a_declaration() {
        let src = "m(using: string) { this.u = using; }\nusing res = open();\nawait using r2 = g();\nconst [a, using] = x;";
        let at = |needle: &str| src.find(needle).unwrap() + 4;
        assert_eq!(
            cuts(typescript_using_identifiers, src),
            [
                format!("{}:q", at("using:")),
                format!("{}:q", at("using;")),
                format!("{}:q", at("using]"))
            ]
        );
    }

    #[test]
    fn template_type_escapes_become_blanks_outside_placeholders() {
        let src = "type E<P> = `a \\`${P extends `x\\`` ? 1 : 2}\\` b`;";
        let open = src.find('`').unwrap();
        let found = {
            let mut r = Vec::new();
            typescript_template_type_escapes(src, &[open], &mut r);
            r
        };
        let first = src.find("\\`").unwrap();
        let last = src.rfind("\\`").unwrap();
        assert_eq!(
            found,
            [
                Repair::Overwrite {
                    at: first,
                    byte: b' '
                },
                Repair::Overwrite {
                    at: first + 1,
                    byte: b' '
                },
                Repair::Overwrite {
                    at: last,
                    byte: b' '
                },
                Repair::Overwrite {
                    at: last + 1,
                    byte: b' '
                },
            ],
            "the escape inside the placeholder's type is not the literal's"
        );
    }

    #[test]
    fn operator_named_members_get_a_semicolon_before_them() {
        let src = "type F = {\n  equals?: string\n  in?: string[]\n  instanceof: X\n}\nfor (const k\n  in o) {}\nx = {\n  in: 1 }";
        let a = src.find("  in?").unwrap() + 1;
        let b = src.find("  instanceof").unwrap() + 1;
        assert_eq!(
            cuts(typescript_line_initial_operator_members, src),
            [format!("{a}:;"), format!("{b}:;")]
        );
    }

    #[test]
    fn jsx_text_ampersands_only_in_error_regions_and_never_references_or_operators() {
        let src = "<a>Reset & Run &amp; go {a && b}</a>";
        let found = {
            let mut r = Vec::new();
            tsx_text_ampersands(src, &[(0, src.len())], &mut r);
            r
        };
        assert_eq!(
            found,
            [Repair::Overwrite {
                at: src.find("& Run").unwrap(),
                byte: b'+'
            }]
        );
    }

    #[test]
    fn reserved_jsx_attribute_names_but_not_code() {
        let src = "<div class=\"p\" for={x}>\nclass A {}\nif (a == b) {}\nconst o = { class: 1 }\n<i\n  default='x'/>";
        assert_eq!(
            cuts(jsx_reserved_attribute_names, src),
            [
                format!("{}:_", src.find("class=").unwrap()),
                format!("{}:_", src.find("for=").unwrap()),
                format!("{}:_", src.find("default=").unwrap())
            ]
        );
    }

    #[test]
    fn swift_strings_that_start_like_a_comment() {
        let src = "case .block: return \"/*\"\nlet a = \"a/*\" + \"*/\"\nlet b = \"/**\"";
        let at: Vec<String> = src.match_indices("\"/*").map(|(i, _)| format!("{}:x", i + 2)).collect();
        // The last `"/*` has no `*/` after it: it swallows nothing and is left alone.
        assert_eq!(at.len(), 2);
        assert_eq!(cuts(swift_strings_opening_comments, src), at[..1]);
        assert!(cuts(swift_strings_opening_comments, "return \"/*\"\nfunc g() {}").is_empty());
    }

    #[test]
    fn rust_macros_named_like_primitive_types() {
        let src = "let a: &str = x;\nstr![[r#\"a\"#]]\nsnapbox::str!(\"b\")\nlet s = str ! {};\nstr != y\nfn f(s: &str) {}";
        let at: Vec<String> = src.match_indices("str").map(|(i, _)| format!("{i}:S")).collect();
        assert_eq!(cuts(rust_primitive_named_macros, src), [at[1].clone(), at[2].clone(), at[3].clone()]);
    }

    #[test]
    fn swift_open_calls_are_calls_not_modifiers() {
        let src = "open class A {}\nreturn open(lhs)\nx.open(y)\nlet f = open (1)\nopen func g()\nfunc open<T>(_: T)";
        assert_eq!(cuts(swift_open_calls, src), [format!("{}:O", src.find("open(lhs)").unwrap()), format!("{}:O", src.find("open (1)").unwrap())]);
    }

    #[test]
    fn swift_keyword_members_key_path_subscripts_and_getter_local_types() {
        let src = "case .try(x): f(.await)\ntry g()\nawait h()\na...try\ncase .switch(let s), .if(let c): if x {}";
        let members: Vec<String> = [".try(", ".await", ".switch(", ".if("].iter().map(|m| format!("{}:{}", src.find(m).unwrap() + 1, m.as_bytes()[1].to_ascii_uppercase() as char)).collect();
        assert_eq!(cuts(swift_keyword_members, src), members);
        let kp = "let k = \\Values.[key: 1]\nlet v = a.[0]\nlet w = \\A.B.[0]\nf(\\.[i])";
        let dots: Vec<usize> = kp.match_indices(".[").map(|(i, _)| i).collect();
        assert_eq!(
            cuts(swift_key_path_subscript_dot, kp),
            [
                format!("{}: ", dots[0]),
                format!("{}: ", dots[2]),
                format!("{}:_", dots[3])
            ]
        );
        let getter = "var v: Int {\n  final class Ref {}\n  return 1\n}\nfunc f() {\n  final class G {}\n}\nstruct S {\n  private struct T {}\n}";
        assert_eq!(
            cuts(swift_modified_local_type_first_in_getter, getter),
            ["cut \"final \""]
        );
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
        // the first follows the `{` (the comment between is stepped over): nothing is open
        assert_eq!(cuts(typescript_line_initial_signature, src), [format!("{at}:;")]);
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
        assert_eq!(
            cuts(
                swift_unknown_modifiers,
                "public nonisolated(nonsending) func w(_ o: nonisolated(nonsending) (L) async -> R, p: @escaping nonisolated(nonsending) () async -> Void) {}\nnonisolated(unsafe) var x = 1\nlet nonisolated = f(nonisolated(nonsending)(1))"
            ),
            ["cut \"nonisolated(nonsending) \"", "cut \"nonisolated(nonsending) \""]
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

    #[test]
    fn unknown_condition_calls_lose_their_arguments() {
        let src = "#if os(Linux)\n#elseif (compiler(<6.1) && !os(WASI)) || (compiler(>=6.1) && _runtime(_multithreaded)) // x(y)\n#if _pointerBitWidth(_64)\nf(_runtime(x))\n";
        assert_eq!(
            cuts(swift_condition_calls, src),
            ["cut \"(_64)\"", "cut \"(_multithreaded)\""]
        );
        let src = "#if canImport(Darwin, _version: 346) || os(FreeBSD)\n#elseif canImport(Glibc)\n#endif\n";
        assert_eq!(cuts(swift_condition_calls, src), ["cut \", _version: 346\""]);
    }

    #[test]
    fn unknown_accessors_are_cut_on_their_own_lines() {
        let src = "subscript(i: Int) -> E {\n    unsafeAddress {\n      p\n    }\n    @_transparent // why\n    @inline(__always)\n    nonmutating unsafeMutableAddress {\n      q\n    }\n}\nvar x: Int {\n  borrowing get { 1 }\n}\nlet unsafeAddress = 1\nf(borrowing get)\n";
        assert_eq!(
            cuts(swift_unknown_accessors, src),
            [
                "cut \"unsafeAddress \"",
                "cut \"@_transparent\"",
                "cut \"@inline(__always)\"",
                "cut \"nonmutating unsafeMutableAddress \"",
                "cut \"borrowing \""
            ]
        );
    }

    #[test]
    fn attributed_accessors_after_another_accessors_block_lose_their_attributes() {
        let src = "subscript(i: Int) -> E {\n    _read {\n      yield p\n    }\n    @inline(__always)\n    _modify {\n      yield &q\n    }\n}\nvar y: Int {\n  @inline(__always)\n  get { 1 }\n}\n";
        assert_eq!(cuts(swift_unknown_accessors, src), ["cut \"_read \"", "cut \"@inline(__always)\""]);
    }

    #[test]
    fn parenthesised_range_bounds_in_case_patterns() {
        assert_eq!(
            cuts(
                swift_case_range_parens,
                "    case (n / 2 + 1)...: x\n    case f(a)...b:\n    case (a, b):\n"
            ),
            ["cut \"(\"", "cut \")\""]
        );
    }

    #[test]
    fn empty_case_arguments() {
        assert_eq!(
            cuts(swift_empty_case_arguments, "  case .success():\n  case .set(()):\n  case f():\n  case .min..<0, 1...5, a.b...:\n"),
            ["cut \"()\"", "cut \"(())\"", "cut \".\""]
        );
    }

    #[test]
    fn fallthrough_before_a_directive() {
        let src = "case 1:\n  #if os(Linux)\n  fallthrough\n  #else\n  fallthrough\n  #endif\ncase 2:\n  fallthrough\ncase 3:";
        let at = src.find("fallthrough").unwrap();
        let second = src[at + 1..].find("fallthrough").unwrap() + at + 1;
        assert_eq!(
            cuts(swift_fallthrough_before_directive, src),
            [format!("{at}:x"), format!("{second}:x")]
        );
    }

    #[test]
    fn directives_after_a_switch_brace_or_among_attributes() {
        let src = "switch m {\n#if canImport(Glibc) || os(Linux) // linux\ncase .a:\n  #if os(X)\n  f()\n  #endif\n#else\ncase .b: g()\n#endif\n}\n@inline(never)\n#if compiler(>=6.3)\n@available(Android 24, *)\n#endif\nfunc f() {}\nfunc g() {\n#if os(Linux)\n}\n#endif\n";
        assert_eq!(
            cuts(swift_misplaced_directives, src),
            [
                "cut \"#if canImport(Glibc) || os(Linux)\"",
                "cut \"#else\"",
                "cut \"#endif\"",
                "cut \"#if compiler(>=6.3)\"",
                "cut \"#endif\""
            ]
        );
    }

    #[test]
    fn labelled_trailing_closures_on_their_own_line() {
        let src = "g {\n  x()\n}\nerrorHandler: { error in\n  y()\n}\nlet a = [\n  b: { 1 }\n]\nswitch v {\ncase 1: f {\n}\ndefault: { }()\n}\n";
        assert_eq!(
            cuts(swift_trailing_closure_labels, src),
            ["cut \"errorHandler: \""]
        );
    }

    #[test]
    fn associated_type_lists_and_optional_same_type_requirements() {
        let src = "protocol M {\n    associatedtype ID: Codable, Hashable, Sendable // a, b\n    associatedtype K: P<A, B>, Q where K.X: Y, K.Z: W\n    associatedtype V = Int\n}\n";
        let at = |s: &str| src.find(s).unwrap();
        assert_eq!(
            cuts(swift_associated_type_lists, src),
            [format!("{}:&", at(", Hashable")), format!("{}:&", at(", Sendable")), format!("{}:&", at(", Q"))]
        );
        let src = "func f() where A.Value? == B.Value, C == D {}\nlet x = a ?? b\nlet y = c?.d == e\nlet z = p ? q : r\n";
        assert_eq!(cuts(swift_optional_same_type_requirements, src), ["cut \"?\""]);
    }

    #[test]
    fn labelled_trailing_closures_whose_label_reads_as_a_cast() {
        // the grammar reads other labels after a brace on its line; a cast is left alone
        let src = "f {\n  1\n} is: {\n  2\n}\ng.f { 1 } as : { 2 }\nh { 1 } errorHandler: { 2 }\nlet y = x is Int\nlet z = [a: { 1 } as Any]\n";
        assert_eq!(cuts(swift_trailing_closure_labels, src), ["cut \"is: \"", "cut \"as : \""]);
    }

    #[test]
    fn wildcard_labels_in_enum_cases() {
        assert_eq!(cuts(swift_enum_wildcard_labels, "enum E {\n  case vsock(_: V, _: W)\n  case a(x: Int)\n}\nswitch e {\ncase .vsock(_: let v):\n}"), ["cut \"_: \"", "cut \"_: \""]);
    }

    #[test]
    fn a_blank_before_a_semicolon_swaps_with_it() {
        assert_eq!(
            cuts(
                swift_blank_before_semicolon,
                "tree { 4 ; 5 }\nf(1;2)\nx = \" ;\"; ;"
            ),
            ["8:;", "9: ", "27:;", "28: "]
        );
    }

    #[test]
    fn blanks_before_a_semicolon_give_it_their_first_place() {
        // vapor's Base32 aligns its statements' `;` in a column
        let src = "case 3: p[4] = t[1]      ; fallthrough\n\t\t;\nx\t ;";
        let run = src.find("]      ;").unwrap() + 1;
        let tabbed = src.rfind("x\t ;").unwrap() + 1;
        assert_eq!(
            cuts(swift_blank_before_semicolon, src),
            [format!("{run}:;"), format!("{}: ", run + 6), format!("{tabbed}:;"), format!("{}: ", tabbed + 2)]
        );
    }

    #[test]
    fn empty_tuple_closure_bodies_and_specialize_arguments() {
        let src = "g.submit {\n    ()\n}.get()\nlet f = { () }\nlet c = { () in 1 }\nh(())\nfunc k() -> () { }\n} catch {\n  // ignored\n  ()\n}";
        let bodies: Vec<String> = [src.find("()\n}").unwrap(), src.find("() }").unwrap(), src.rfind("()").unwrap()].iter().flat_map(|&at| [format!("{at}:["), format!("{}:]", at + 1)]).collect();
        assert_eq!(cuts(swift_empty_tuple_closure_bodies, src), bodies);
        let attr = "@_specialize(where Bytes == CircularBuffer<UInt8>)\nmutating func f() {}\n@_specialize(exported: true,\n  where T == Int)";
        assert_eq!(cuts(swift_specialize_arguments, attr), ["cut \"(where Bytes == CircularBuffer<UInt8>)\""]);
    }

    #[test]
    fn force_unwrapping_key_paths_and_range_operator_names() {
        let src = "f(state: \\.!, action: \\.self)\nlet k = \\.!.count\nif a \\.!= b {}";
        let bangs: Vec<String> = src.match_indices("\\.!").map(|(i, _)| format!("{}:x", i + 2)).take(2).collect();
        assert_eq!(cuts(swift_key_path_force_unwrap, src), bangs);
        let ops = "static func ..<(lhs: inout Self, rhs: inout Self) -> R {}\nprefix operator ...\nfunc ...(a: A)\nlet r = 0..<n\nfunc f() { for i in 0...n {} }\noperator ..<<";
        // functions first, then operator declarations
        let names = [ops.find("..<(").unwrap(), ops.find("...(").unwrap(), ops.find("...\n").unwrap()];
        let expected: Vec<String> = names.iter().flat_map(|&n| [format!("{}:+", n + 1), format!("{}:.", n + 2)]).collect();
        assert_eq!(cuts(swift_range_operator_names, ops), expected);
    }

    #[test]
    fn attribute_only_groups() {
        let src = "/// doc\n#if compiler(>=6.3)\n@inline(always)\n#else\n@inline(__always)\n#endif\n@inlinable\nfunc f() {}\n#if os(X)\n@a\nfunc g() {}\n#endif\n";
        assert_eq!(
            cuts(swift_misplaced_directives, src),
            [
                "cut \"#if compiler(>=6.3)\"",
                "cut \"#else\"",
                "cut \"#endif\""
            ]
        );
    }

    #[test]
    fn attribute_only_groups_with_attributes_over_several_lines() {
        let src = "  #if X\n    @available(*, deprecated)\n  #else\n    @available(\n      iOS,\n      deprecated: 9999\n    )\n  #endif\n  public static func f() {}\n#if Y\n@a(\n  x)\nlet y = 1\n#endif\n";
        assert_eq!(cuts(swift_misplaced_directives, src), ["cut \"#if X\"", "cut \"#else\"", "cut \"#endif\""]);
    }

    #[test]
    fn bare_ampersands_in_jsx_attribute_strings() {
        let src = "<a href=\"/?a=1&b=2&amp;c\" x = \"&\" t=\"&#38;\">";
        assert_eq!(
            cuts(tsx_bare_ampersands, src),
            [format!("{}:+", src.find("&b").unwrap())]
        );
    }

    #[test]
    fn module_selectors_are_cut_with_their_module_name() {
        assert_eq!(
            cuts(swift_module_selectors, "let x = Swift::Int.self\nlet y = #Testing::sourceLocation\nextension A::B {}\n"),
            ["cut \"Swift::\"", "cut \"Testing::\"", "cut \"A::\""]
        );
        assert!(cuts(swift_module_selectors, "a ? b :: c\nx:::y\n1::a\nf::(\nlet s = \"std::vector\" // a::b\n/* c::d */").is_empty());
    }

    #[test]
    fn function_types_used_as_values_are_cut_whole() {
        let src = "f(to: (@convention(c) (CInt) -> CInt).self)\nlet t = ((() -> String).self, 1)\n";
        assert_eq!(cuts(swift_function_type_values, src), ["cut \"(@convention(c) (CInt) -> CInt)\"", "cut \"(() -> String)\""]);
        // no arrow of its own, a type's `.Type`, an arrow in a closure, strings and comments
        let not = "let a = (b).self\nlet x: (() -> Void).Type = y\nf({ (x) -> Int in x }).self\nlet s = \"(a -> b).self\"\n// (a -> b).self\n(a -> b).selfish\n";
        assert!(cuts(swift_function_type_values, not).is_empty(), "{:?}", cuts(swift_function_type_values, not));
    }

    #[test]
    fn compile_time_words_and_open_range_loops() {
        assert_eq!(
            cuts(swift_underscored_ownership, "init(_ s: _const String, t: _const [Int])\nlet _const = 1\n"),
            ["cut \"_const \"", "cut \"_const \""]
        );
        assert_eq!(
            cuts(swift_availability_feature_names, "if #available(_typedThrowsAPI, *) {}\nif #available(macOS 15, *) {}\nif #unavailable(_x) {}\n"),
            ["cut \"_typedThrowsAPI, \""]
        );
        assert_eq!(cuts(swift_open_range_loops, "  for i in 0... {\n  for (i, x) in zip(1..., xs) {\nlet a = b[1...]\nf(x...) {\n"), ["cut \"...\""]);
    }

    #[test]
    fn auto_accessors_after_modifiers_and_in_javascript() {
        let src = "class A {\n  @p()\n  override accessor foo = 2;\n  static accessor #x = 1;\n  accessor plain = 0;\n  accessor = 3;\n  f() { return o.accessor; }\n}\n";
        assert_eq!(cuts(|s, o| auto_accessors(s, false, o), src), ["cut \"accessor \"", "cut \"accessor \""]);
        assert_eq!(cuts(|s, o| auto_accessors(s, true, o), src), ["cut \"accessor \"", "cut \"accessor \"", "cut \"accessor \""]);
    }

    /// Every finder runs on adversarial input of a few hundred KiB — the same word many
    /// times on one line, groups nested thousands deep — in one pass: a finder that
    /// rescanned a line per occurrence, or a group per nested group, would not finish.
    #[test]
    fn finders_stay_linear_on_adversarial_input() {
        let n = 20_000;
        let inputs = [
            "case ".repeat(n),
            format!("case {}:\n", "(a)...".repeat(n)),
            format!("case {}\n", ".x() .y(()) _: ".repeat(n)),
            "#if _x(y) ".repeat(n),
            "unsafeAddress { borrowing get ".repeat(n),
            format!("{}{}", "@a\n#if os(X)\n".repeat(n), "#endif\n".repeat(n)),
            format!(
                "switch v {{\n{}{}",
                "#if os(X)\n".repeat(n),
                "#endif\n".repeat(n)
            ),
            format!("{}{}", "#if os(X)\n@a\n".repeat(n), "#endif\n".repeat(n)),
            "fallthrough ".repeat(n),
            "}\nx: {\n".repeat(n),
            " ; ".repeat(n),
            "a=\"&&&&&&&&\" ".repeat(n),
            "<in x> ".repeat(n),
            format!("<{}", "// c\n in x, ".repeat(n)),
            "using ".repeat(n),
            " in: ".repeat(n),
            "\n in?: x ".repeat(n),
            " class=\"".repeat(n),
            ".try.await\\a.[".repeat(n),
            "var {final class ".repeat(n),
            "a::".repeat(n),
            format!("{}{}", "((-> ".repeat(n), ").self".repeat(n)),
            "\"(-> \" /* ( */ // (\n".repeat(n),
            ": _const #available(_x, ".repeat(n),
            "for i in 0... { ...".repeat(n),
            "static accessor x accessor y\n".repeat(n),
            "return open( .open(".repeat(n),
            "str! str![".repeat(n),
            "\"/*\"*/".repeat(n),
            "context(a: A) fun ".repeat(n),
            "= $$\" $ = $$\"\"\" $$".repeat(n),
            "@A internal constructor( class ".repeat(n),
            "is x if y -> ".repeat(n),
            "get(a) set(a, b) dynamic) in1 set(".repeat(n),
            "@A set( class X { y } ".repeat(n),
            "@A\n set( (a)(b) ?:: open( ".repeat(n),
            "}\n ::a\n::b\n= ::c ".repeat(n),
            "= [] ([] a[] where?. @A\n get() ".repeat(n),
            "keyof readonly keyof\nreadonly ".repeat(n),
            "associatedtype A: B, C<D, E>, a? == ".repeat(n),
            "abstract?\naccessor(\n@a.b accessor c ".repeat(n),
            "a[b, ]\n, ]]".repeat(n),
            "using a: (('=' ".repeat(n),
            "typealias = context(a) ( f: context() (".repeat(n),
            ": context() A<B.C<D ".repeat(n),
            "@all:a<,\n>".repeat(n),
            "suspend(suspend(".repeat(n),
            "associatedtype A where\n b,\n".repeat(n),
            "@a(\n)\n) @b(\nset\n".repeat(n),
            "= /^".repeat(n),
            "suspend ((".repeat(n),
            "typealias A = B where ".repeat(n),
            "class A\n  constructor(\n".repeat(n),
        ];
        let js_accessors: fn(&str, &mut Vec<Repair>) = |s, o| auto_accessors(s, true, o);
        let finders: [fn(&str, &mut Vec<Repair>); 61] = [
            swift_type_alias_where_clauses,
            swift_caret_regex_literals,
            swift_associated_type_where_lines,
            kotlin_all_use_site_targets,
            kotlin_context_function_types,
            typescript_using_type_annotations,
            kotlin_trailing_index_commas,
            typescript_keyof_readonly,
            typescript_keyword_member_names,
            swift_associated_type_lists,
            swift_optional_same_type_requirements,
            kotlin_context_parameters,
            kotlin_multi_dollar_strings,
            kotlin_suspend_lambdas,
            kotlin_constructors_after_the_header,
            kotlin_when_guards,
            kotlin_names_read_as_keywords,
            kotlin_annotated_accessors,
            kotlin_one_line_bodies,
            kotlin_unreadable_calls,
            kotlin_line_initial_references,
            kotlin_empty_collection_literals,
            swift_condition_calls,
            typescript_joined_generic_type_arguments,
            typescript_tagged_template_type_arguments,
            typescript_let_as,
            swift_modifier_named_locals,
            swift_ownership_operators_before_blocks,
            typescript_inline_import_types,
            swift_member_diagnostics,
            swift_unknown_accessors,
            swift_case_range_parens,
            swift_empty_case_arguments,
            swift_fallthrough_before_directive,
            swift_misplaced_directives,
            swift_trailing_closure_labels,
            swift_enum_wildcard_labels,
            swift_blank_before_semicolon,
            swift_underscored_ownership,
            swift_unknown_modifiers,
            swift_lifetime_attributes,
            tsx_bare_ampersands,
            typescript_variance,
            typescript_using_identifiers,
            typescript_line_initial_operator_members,
            jsx_reserved_attribute_names,
            swift_keyword_members,
            swift_key_path_subscript_dot,
            swift_key_path_force_unwrap,
            swift_range_operator_names,
            swift_empty_tuple_closure_bodies,
            swift_specialize_arguments,
            swift_modified_local_type_first_in_getter,
            swift_module_selectors,
            swift_function_type_values,
            swift_availability_feature_names,
            swift_open_range_loops,
            swift_open_calls,
            rust_primitive_named_macros,
            swift_strings_opening_comments,
            js_accessors,
        ];
        for input in &inputs {
            for f in finders {
                let mut out = Vec::new();
                f(input, &mut out);
                assert!(out.len() <= 4 * input.len());
            }
        }
        // the finders that also read the tree (on fewer repeats: the grammar's own parse of
        // such text is what takes the time)
        let n = n / 10;
        let tree = |input: &str| super::super::tree_for_tests(crate::Lang::Kotlin, input).unwrap();
        for input in ["class A : I by b {}\n".repeat(n), "class by ".repeat(n), format!("class A : I{}", " by b".repeat(n))] {
            let tree = tree(&input);
            let mut out = Vec::new();
            kotlin_delegation_bodies(tree.root_node(), &input, &mut out);
            assert!(out.len() <= MAX_DELEGATION_LOOKUPS);
        }
        for input in [format!("@a\n{}", "@b public class x ".repeat(n)), format!("@a {}class x", "public ".repeat(n)), "@a\n@b\nclass x\n".repeat(n)] {
            let tree = tree(&input);
            let mut out = Vec::new();
            kotlin_declarations_read_as_statements(tree.root_node(), &input, &mut out);
            assert!(out.len() <= input.len());
        }
    }
}
