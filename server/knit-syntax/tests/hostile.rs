//! Hostile inputs (issue 9): nesting tens of thousands of levels deep in every language,
//! extracted on a thread with a small stack so that any walk recursing once per level
//! overflows and aborts the test; work that must grow linearly with the input, checked
//! by counting (never by timing); the deadline that cuts a parse short.

use knit_syntax::{parse, parse_counting, parse_with_deadline, FileSyntax, Lang, MAX_DECL_DEPTH};
use std::time::{Duration, Instant};

/// Levels of nesting in the generated files: far beyond any cap, and far beyond what a
/// 256 KiB stack holds when a walk recurses once per level.
const DEEP: usize = 20_000;

/// Runs `f` on a thread with a 256 KiB stack (a debug build's frames are large: a walk
/// recursing per level overflows within a few hundred levels).
fn on_small_stack<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    std::thread::Builder::new()
        .stack_size(256 * 1024)
        .spawn(f)
        .expect("spawn")
        .join()
        .unwrap_or_else(|e| std::panic::resume_unwind(e))
}

fn parsed(lang: Lang, src: String) -> FileSyntax {
    on_small_stack(move || parse(lang, &src))
}

fn names(fs: &FileSyntax) -> Vec<&str> {
    fs.declarations.iter().map(|d| d.qualified_name.as_str()).collect()
}

/// `first`, then `first.next` … down to [`MAX_DECL_DEPTH`] segments.
fn chain(first: &str, next: &str) -> Vec<String> {
    let mut out = vec![first.to_string()];
    while out.len() < MAX_DECL_DEPTH as usize {
        let n = format!("{}.{next}", out.last().unwrap());
        out.push(n);
    }
    out
}

/// Declarations nested `DEEP` levels: the first [`MAX_DECL_DEPTH`] are extracted with
/// their full names, the rest lie in one `too_deep` region starting at the first level
/// not extracted (found by `marker`, the text of level `MAX_DECL_DEPTH + 1`), and the
/// shallow declaration `after` that follows the nest is extracted normally.
fn assert_deep_declarations(lang: Lang, src: String, expected_chain: &[String], marker: &str, after: &str) {
    let fs = parsed(lang, src.clone());
    let got: Vec<&str> = names(&fs).into_iter().filter(|n| *n != after).collect();
    assert_eq!(got, expected_chain, "{lang:?}: the declarations down to the cap, by name");
    assert!(names(&fs).contains(&after), "{lang:?}: `{after}` after the nest is extracted: {:?}", &names(&fs)[..3]);
    assert_eq!(fs.too_deep.len(), 1, "{lang:?}: one region covers everything below the cap: {:?}", fs.too_deep);
    let region = fs.too_deep[0];
    let level = src.match_indices(marker).nth(MAX_DECL_DEPTH as usize).map(|(i, _)| i).expect("marker");
    assert!(
        region.start_byte as usize <= level && level < region.end_byte as usize,
        "{lang:?}: the region {region:?} starts at level {} (byte {level})",
        MAX_DECL_DEPTH + 1
    );
    let deepest = src.match_indices(marker).last().unwrap().0;
    assert!((region.end_byte as usize) > deepest, "{lang:?}: the region covers the deepest level");
    assert!(!fs.timed_out);
}

/// Non-declaration nesting (expressions, types): nothing is marked too deep, and the
/// declaration holding it is extracted, parses cleanly and is fingerprinted; with
/// `flat`, its print equals that of `flat` (parentheses a formatter may drop, at any
/// depth).
fn assert_deep_expression(lang: Lang, src: String, holder: &str, flat: Option<&str>) {
    let fs = parsed(lang, src);
    assert!(fs.too_deep.is_empty(), "{lang:?}: expressions are not declarations: {:?}", fs.too_deep);
    assert!(!fs.has_error, "{lang:?}: the generated source parses");
    let d = fs.declarations.iter().find(|d| d.qualified_name == holder).unwrap_or_else(|| panic!("{lang:?}: {holder} in {:?}", names(&fs)));
    assert!(d.body.is_some(), "{lang:?}: {holder} has a body print");
    if let Some(flat) = flat {
        let f = parse(lang, flat);
        let fd = f.declarations.iter().find(|d| d.qualified_name == holder).expect("flat holder");
        assert_eq!(d.fingerprint, fd.fingerprint, "{lang:?}: redundant parentheses at depth");
    }
}

fn nest(open: &str, middle: &str, close: &str, n: usize) -> String {
    let mut s = String::with_capacity((open.len() + close.len()) * n + middle.len());
    for _ in 0..n {
        s.push_str(open);
    }
    s.push_str(middle);
    for _ in 0..n {
        s.push_str(close);
    }
    s
}

#[test]
fn typescript_deep_object_literals_namespaces_and_functions() {
    let src = format!("export const a = {};\nexport function after() {{ return 1; }}\n", nest("{b: ", "1", "}", DEEP));
    assert_deep_declarations(Lang::TypeScript, src, &chain("a", "b"), "b: ", "after");
    let src = format!("{}\nfunction after() {{}}\n", nest("namespace n { ", "", "}", DEEP));
    assert_deep_declarations(Lang::TypeScript, src, &chain("n", "n"), "namespace n", "after");
    let src = format!("{}\nfunction after() {{}}\n", nest("function f() { ", "", "}", DEEP));
    assert_deep_declarations(Lang::TypeScript, src, &chain("f", "f"), "function f", "after");
}

#[test]
fn typescript_deep_wrappers() {
    // `declare` wraps `declare` as deep as the input says; the declaration under the
    // chain is found and starts at the outermost `declare`.
    let src = format!("{}function f(): void;\nfunction after() {{}}\n", "declare ".repeat(DEEP));
    let fs = parsed(Lang::TypeScript, src);
    assert_eq!(names(&fs), ["f", "after"]);
    assert_eq!(fs.declarations[0].start_byte, 0);
}

#[test]
fn typescript_deep_expressions_arrays_and_types() {
    let parens = format!("function f() {{ return {}; }}\n", nest("(", "x + 1", ")", DEEP));
    assert_deep_expression(Lang::TypeScript, parens, "f", Some("function f() { return x + 1; }\n"));
    assert_deep_expression(Lang::TypeScript, format!("function f() {{ return {}; }}\n", nest("[", "1", "]", DEEP)), "f", None);
    assert_deep_expression(Lang::TypeScript, format!("type T = {};\n", nest("A<", "B", ">", DEEP)), "T", None);
    assert_deep_expression(Lang::TypeScript, format!("function f() {{ return {}; }}\n", nest("g(", "1", ")", DEEP)), "f", None);
}

#[test]
fn tsx_deep_elements_and_objects() {
    assert_deep_expression(Lang::Tsx, format!("function f() {{ return {}; }}\n", nest("<a>", "x", "</a>", DEEP)), "f", None);
    let src = format!("export const a = {};\nexport function after() {{ return <b/>; }}\n", nest("{b: ", "1", "}", DEEP));
    assert_deep_declarations(Lang::Tsx, src, &chain("a", "b"), "b: ", "after");
}

#[test]
fn javascript_deep_objects_functions_and_expressions() {
    let src = format!("export const a = {};\nexport function after() {{ return 1; }}\n", nest("{b: ", "1", "}", DEEP));
    assert_deep_declarations(Lang::JavaScript, src, &chain("a", "b"), "b: ", "after");
    let src = format!("{}\nfunction after() {{}}\n", nest("function f() { ", "", "}", DEEP));
    assert_deep_declarations(Lang::JavaScript, src, &chain("f", "f"), "function f", "after");
    let parens = format!("function f() {{ return {}; }}\n", nest("(", "x", ")", DEEP));
    assert_deep_expression(Lang::JavaScript, parens, "f", Some("function f() { return x; }\n"));
    assert_deep_expression(Lang::JavaScript, format!("function f() {{ return {}; }}\n", nest("[", "1", "]", DEEP)), "f", None);
    assert_deep_expression(Lang::JavaScript, format!("const f = {};\n", nest("() => ", "1", "", DEEP)), "f", None);
}

#[test]
fn swift_deep_classes_and_expressions() {
    let src = format!("{}\nfunc after() {{}}\n", nest("class C { ", "", "}", DEEP));
    assert_deep_declarations(Lang::Swift, src, &chain("C", "C"), "class C", "after()");
    assert_deep_expression(Lang::Swift, format!("func f() {{ return {} }}\n", nest("(", "x", ")", DEEP)), "f()", None);
    assert_deep_expression(Lang::Swift, format!("func f() {{ return {} }}\n", nest("[", "1", "]", DEEP)), "f()", None);
    assert_deep_expression(Lang::Swift, format!("let v: {} = 1\n", nest("A<", "B", ">", DEEP)), "v", None);
}

#[test]
fn rust_deep_modules_functions_expressions_and_imports() {
    let src = format!("{}\nfn after() {{}}\n", nest("mod m { ", "", "}", DEEP));
    assert_deep_declarations(Lang::Rust, src, &chain("m", "m"), "mod m", "after");
    let src = format!("{}\nfn after() {{}}\n", nest("fn f() { ", "", "}", DEEP));
    assert_deep_declarations(Lang::Rust, src, &chain("f", "f"), "fn f", "after");
    assert_deep_expression(Lang::Rust, format!("fn f() -> i32 {{ {} }}\n", nest("(", "1", ")", DEEP)), "f", None);
    assert_deep_expression(Lang::Rust, format!("fn f() {{ let a = {}; }}\n", nest("[", "1", "]", DEEP)), "f", None);
    assert_deep_expression(Lang::Rust, format!("type T = {};\n", nest("Vec<", "u8", ">", DEEP)), "T", None);
    // A `use` tree nested as deep: expanded down to the cap, never recursed into.
    let src = format!("use {};\n", nest("a::{", "b", "}", DEEP));
    let imports = on_small_stack(move || knit_syntax::imports("lib.rs", &src));
    assert!(imports.is_empty(), "the only path lies below the cap: {:?}", imports.first());
    let shallow = knit_syntax::imports("lib.rs", "use a::{b::{c, d}};\n");
    assert_eq!(shallow.iter().map(|i| i.specifier.as_str()).collect::<Vec<_>>(), ["a::b::c", "a::b::d"]);
}

#[test]
fn python_deep_definitions_and_expressions() {
    // Indentation makes nested blocks quadratic in file size, and tree-sitter-python's
    // scanner gives up near 1 000 levels: 400 levels (80 KB) is the deepest real nest.
    let levels = 400;
    let mut src = String::new();
    for i in 0..levels {
        src.push_str(&" ".repeat(i));
        src.push_str(if i % 2 == 0 { "class C:\n" } else { "def f():\n" });
    }
    src.push_str(&" ".repeat(levels));
    src.push_str("pass\nafter = 1\n");
    let expected: Vec<String> = (0..MAX_DECL_DEPTH as usize)
        .map(|i| (0..=i).map(|j| if j % 2 == 0 { "C" } else { "f" }).collect::<Vec<_>>().join("."))
        .collect();
    assert_deep_declarations(Lang::Python, src, &expected, ":\n", "after");
    // Wrappers nest without declarations: a definition inside 400 `if`s keeps its name.
    let mut src = String::new();
    for i in 0..levels {
        src.push_str(&" ".repeat(i));
        src.push_str("if a:\n");
    }
    src.push_str(&" ".repeat(levels));
    src.push_str("def inner():\n");
    src.push_str(&" ".repeat(levels + 1));
    src.push_str("pass\n");
    assert_eq!(names(&parsed(Lang::Python, src)), ["inner"]);
    let parens = format!("def f():\n    return {}\n", nest("(", "x", ")", DEEP));
    assert_deep_expression(Lang::Python, parens, "f", Some("def f():\n    return x\n"));
    assert_deep_expression(Lang::Python, format!("def f():\n    return {}\n", nest("[", "1", "]", DEEP)), "f", None);
    assert_deep_expression(Lang::Python, format!("def f():\n    return {}\n", nest("{1: ", "1", "}", DEEP)), "f", None);
    assert_deep_expression(Lang::Python, format!("f = {}\n", nest("lambda: ", "1", "", DEEP)), "f", None);
}

#[test]
fn go_deep_literals_and_expressions() {
    let parens = format!("package p\nfunc f() int {{ return {} }}\n", nest("(", "x", ")", DEEP));
    assert_deep_expression(Lang::Go, parens, "f", Some("package p\nfunc f() int { return x }\n"));
    assert_deep_expression(Lang::Go, format!("package p\nfunc f() {{ {} }}\n", nest("func() { ", "", "}()\n", DEEP)), "f", None);
    assert_deep_expression(Lang::Go, format!("package p\nvar v = {}\n", nest("[]any{", "1", "}", DEEP)), "v", None);
    assert_deep_expression(Lang::Go, format!("package p\ntype T {}\n", nest("struct { a ", "int", " }", DEEP)), "T", None);
}

#[test]
fn kotlin_deep_classes_functions_and_expressions() {
    let src = format!("{}\nfun after() {{}}\n", nest("class C {\n", "", "}\n", DEEP));
    assert_deep_declarations(Lang::Kotlin, src, &chain("C", "C"), "class C", "after()");
    let src = format!("{}\nfun after() {{}}\n", nest("fun f() {\n", "", "}\n", DEEP));
    assert_deep_declarations(Lang::Kotlin, src, &chain("f()", "f()"), "fun f", "after()");
    assert_deep_expression(Lang::Kotlin, format!("fun f(): Int {{ return {} }}\n", nest("(", "x", ")", DEEP)), "f()", None);
    assert_deep_expression(Lang::Kotlin, format!("fun f() {{ {} }}\n", nest("run { ", "1", " }", DEEP)), "f()", None);
}

/// Work of a parse, counted.
fn work(lang: Lang, src: &str) -> (u64, u64) {
    let (_, w) = parse_counting(lang, src);
    (w.rule_calls, w.steps)
}

/// Doubling the input at most doubles the work (plus a little for fixed costs).
fn assert_linear(what: &str, lang: Lang, make: impl Fn(usize) -> String) {
    let n = 4000;
    let (r1, s1) = work(lang, &make(n));
    let (r2, s2) = work(lang, &make(2 * n));
    assert!(r2 as f64 <= 2.2 * r1 as f64, "{what}: rule calls {r1} → {r2} when the input doubles");
    assert!(s2 as f64 <= 2.2 * s1 as f64, "{what}: work {s1} → {s2} when the input doubles");
}

#[test]
fn work_grows_linearly_with_the_input() {
    assert_linear("nested parentheses (TypeScript)", Lang::TypeScript, |n| {
        format!("function f() {{ return {}; }}\n", nest("(", "x", ")", n))
    });
    assert_linear("nested parentheses (Python)", Lang::Python, |n| format!("def f():\n    return {}\n", nest("(", "x", ")", n)));
    assert_linear("nested parentheses (Go)", Lang::Go, |n| format!("package p\nfunc f() int {{ return {} }}\n", nest("(", "x", ")", n)));
    assert_linear("nested object literals", Lang::TypeScript, |n| format!("const a = {};\n", nest("{b: ", "1", "}", n)));
    assert_linear("nested modules", Lang::Rust, |n| nest("mod m { ", "", "}", n));
    assert_linear("nested classes", Lang::Kotlin, |n| nest("class C {\n", "", "}\n", n));
    // Many declarations sharing one statement: every name's header, print and members
    // once, not once per name.
    assert_linear("declarators sharing `var`", Lang::TypeScript, |n| {
        format!("var {};\n", (0..n).map(|i| format!("a{i} = {{x: {i}}}")).collect::<Vec<_>>().join(", "))
    });
    assert_linear("chained assignment", Lang::Python, |n| {
        format!("{} = 1\n", (0..n).map(|i| format!("a{i}")).collect::<Vec<_>>().join(" = "))
    });
    assert_linear("names of one spec", Lang::Go, |n| {
        format!("package p\nvar {} = 1\n", (0..n).map(|i| format!("a{i}")).collect::<Vec<_>>().join(", "))
    });
    assert_linear("cases of one entry", Lang::Swift, |n| {
        format!("enum E {{ case {} }}\n", (0..n).map(|i| format!("a{i}")).collect::<Vec<_>>().join(", "))
    });
    assert_linear("a wide statement list", Lang::Kotlin, |n| format!("fun f() {{\n{}}}\n", "g(1)\n".repeat(n)));
}

#[test]
fn qualified_names_stay_bounded() {
    // A name past the limit is not extracted (nothing would be copied into every
    // qualified name below it); its span is a `too_deep` region.
    let long = "n".repeat(knit_syntax::MAX_NAME_BYTES + 1);
    let fs = parse(Lang::TypeScript, &format!("namespace {long} {{ function f() {{}} }}\nfunction g() {{}}\n"));
    assert_eq!(names(&fs), ["g"]);
    assert_eq!(fs.too_deep.len(), 1);
    // Many tiny members under a long qualified prefix: the stored names stay within the
    // per-file budget, the members past it lie in `too_deep` regions.
    let prefix = nest(&format!("namespace {} {{ ", "p".repeat(1000)), "", "}", 40);
    let members = "const a = 1;".repeat(50_000);
    let src = prefix.replacen("{ }", &format!("{{ {members} }}"), 1);
    let fs = parse(Lang::TypeScript, &src);
    let stored: usize = fs.declarations.iter().map(|d| d.qualified_name.len() + d.container.as_ref().map_or(0, |c| c.len())).sum();
    assert!(stored <= knit_syntax::NAME_BYTES_PER_SOURCE_BYTE * src.len() + knit_syntax::NAME_BYTES_SLACK);
    assert!(!fs.too_deep.is_empty());
    assert!(fs.declarations.len() > 40, "members within the budget are extracted");
}

#[test]
fn the_deadline_cuts_a_parse_short_and_says_so() {
    let src = "export function f(a: number) { return a * 2; }\n".repeat(5000);
    let fs = parse_with_deadline(Lang::TypeScript, &src, Some(Instant::now()));
    assert!(fs.timed_out, "a deadline already passed stops the parse");
    assert!(fs.declarations.is_empty());
    // The thread's parser is usable afterwards: a cancelled tree-sitter parser resumes
    // its old input on the next call unless reset.
    let other = "export class K { m() {} }\n";
    assert_eq!(names(&parse(Lang::TypeScript, other)), ["K", "K.m"]);
    let later = parse_with_deadline(Lang::TypeScript, &src, Some(Instant::now() + Duration::from_secs(3600)));
    assert!(!later.timed_out);
    assert_eq!(later, parse(Lang::TypeScript, &src));
}

/// Token rules and walkers get their context from the walk. tree-sitter answers
/// `parent()` and the sibling accessors by walking down from the root (O(depth ×
/// siblings) per call): one call per node made 8 000 nested parentheses take seconds.
#[test]
fn no_tree_navigation_that_walks_from_the_root() {
    let forbidden = [".parent()", ".prev_sibling()", ".next_sibling()", ".prev_named_sibling()", ".next_named_sibling()"];
    let mut dirs = vec![std::path::PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/src"))];
    let mut seen = 0;
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                dirs.push(path);
                continue;
            }
            seen += 1;
            let text = std::fs::read_to_string(&path).unwrap();
            for (i, line) in text.lines().enumerate() {
                let code = line.split("//").next().unwrap_or("");
                for f in forbidden {
                    assert!(!code.contains(f), "{}:{}: `{f}` walks the tree from its root: {line}", path.display(), i + 1);
                }
            }
        }
    }
    assert!(seen >= 10, "the sources were found");
}
