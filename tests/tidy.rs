//! Tidy: rules about the source tree itself, checked by reading it (in the manner of
//! rust-analyzer's `tidy.rs`).
//!
//! 1. Only `knit-workspace` touches the file system. Every read and write of workspace
//!    files goes through its confined layer (root-relative, symlink escapes refused,
//!    regular files only, bounded, atomic doc writes), so no other crate's product code
//!    names `std::fs`, `tokio::fs`, `std::os::unix::fs`, or asks a `Path` about the disk
//!    (`exists()`, `canonicalize()`, …). Tests, benches and examples are exempt, and so
//!    is the benchmark machinery listed in [`BENCH_CODE`] (it generates and reads its own
//!    scratch workspaces, never a user's).
//! 2. Every module says what it owns: each Rust file starts with a `//!` header.
//! 3. Dependencies between a crate's modules go one way: no cycle among its top-level
//!    modules (`crate::a` naming `crate::b` and back), so each can be read, and changed,
//!    knowing only what it builds on. Tests and comments do not count.
//!
//! A failure names the file and line and the rule it breaks.

use std::fs;
use std::path::{Path, PathBuf};

/// Product code allowed to use the file system directly: the benchmark machinery only.
const BENCH_CODE: &[(&str, &str)] = &[
    ("server/knit-cli/src/bench.rs", "the `knit bench` generator writes its synthetic workspaces"),
    ("server/knit-cli/src/bench_pathological.rs", "the pathological-input bench reads /proc for its memory figures"),
    ("server/knit-eval/", "the history benchmark behind `knit bench history` builds its scratch checkouts"),
];

/// The crate whose job is the file system.
const FILE_LAYER: &str = "server/knit-workspace/";

/// What touching the file system looks like in Rust source (after comments and string
/// literals are blanked).
const FS_PATTERNS: &[&str] = &[
    "std::fs",
    "tokio::fs",
    "std::os::unix::fs",
    ".canonicalize()",
    ".read_dir()",
    ".symlink_metadata()",
    ".read_link()",
    ".try_exists()",
    ".exists()",
    ".is_dir()",
    ".is_file()",
    ".is_symlink()",
    ".metadata()",
];

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("tests/ has a parent").to_path_buf()
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = fs::read_dir(dir) else { return };
    let mut entries: Vec<_> = entries.flatten().collect();
    entries.sort_by_key(|e| e.path());
    for e in entries {
        let p = e.path();
        let Ok(t) = e.file_type() else { continue };
        if t.is_dir() {
            let name = e.file_name();
            if name != "target" && name != "corpus" && name != "artifacts" {
                rust_files(&p, out);
            }
        } else if t.is_file() && p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

fn rel(p: &Path) -> String {
    p.strip_prefix(root()).unwrap_or(p).to_string_lossy().replace('\\', "/")
}

/// The source with comments and string/char literals replaced by blanks (line breaks
/// kept, so line numbers still hold): a rule about code must not fire on prose.
fn code_only(src: &str) -> String {
    let b = src.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    let blank = |c: u8| if c == b'\n' { b'\n' } else { b' ' };
    while i < b.len() {
        let c = b[i];
        if c == b'/' && b.get(i + 1) == Some(&b'/') {
            while i < b.len() && b[i] != b'\n' {
                out.push(b' ');
                i += 1;
            }
        } else if c == b'/' && b.get(i + 1) == Some(&b'*') {
            let mut depth = 0;
            while i < b.len() {
                if b[i] == b'/' && b.get(i + 1) == Some(&b'*') {
                    depth += 1;
                    out.extend([b' ', b' ']);
                    i += 2;
                } else if b[i] == b'*' && b.get(i + 1) == Some(&b'/') {
                    depth -= 1;
                    out.extend([b' ', b' ']);
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    out.push(blank(b[i]));
                    i += 1;
                }
            }
        } else if c == b'r' && matches!(b.get(i + 1), Some(b'"') | Some(b'#')) && !b.get(i.wrapping_sub(1)).is_some_and(|p| p.is_ascii_alphanumeric() || *p == b'_') {
            // Raw string r"…" / r#"…"#.
            let mut j = i + 1;
            let mut hashes = 0;
            while b.get(j) == Some(&b'#') {
                hashes += 1;
                j += 1;
            }
            if b.get(j) != Some(&b'"') {
                out.push(c);
                i += 1;
                continue;
            }
            let close: Vec<u8> = std::iter::once(b'"').chain(std::iter::repeat_n(b'#', hashes)).collect();
            let body_start = j + 1;
            let end = b[body_start..].windows(close.len()).position(|w| w == close.as_slice()).map_or(b.len(), |p| body_start + p + close.len());
            out.extend(b[i..end].iter().map(|&x| blank(x)));
            i = end;
        } else if c == b'"' {
            out.push(b' ');
            i += 1;
            while i < b.len() && b[i] != b'"' {
                if b[i] == b'\\' && i + 1 < b.len() {
                    out.push(b' ');
                    i += 1;
                }
                out.push(blank(b[i]));
                i += 1;
            }
            out.push(b' ');
            i += 1;
        } else if c == b'\'' && b.get(i + 2) == Some(&b'\'') {
            out.extend([b' ', b' ', b' ']);
            i += 3;
        } else if c == b'\'' && b.get(i + 1) == Some(&b'\\') {
            // '\n', '\'', '\u{..}'
            let end = b[i + 2..].iter().position(|&x| x == b'\'').map_or(b.len(), |p| i + 2 + p + 1);
            out.extend(b[i..end].iter().map(|&x| blank(x)));
            i = end;
        } else {
            out.push(c);
            i += 1;
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Whether a `#[cfg(…)]` predicate holds only under test (`test`, `all(test, …)`).
fn test_only(predicate: &str) -> bool {
    let p: String = predicate.chars().filter(|c| !c.is_whitespace()).collect();
    p == "test" || (p.starts_with("all(") && p[4..].split([',', ')']).any(|w| w == "test"))
}

/// `code` with every test-only item (`#[cfg(test)]`, `#[cfg(all(test, …))]`) blanked
/// (tests may build fixtures on disk).
fn without_test_items(code: &str) -> String {
    let mut out = code.as_bytes().to_vec();
    let mut from = 0;
    while let Some(at) = code[from..].find("#[cfg(").map(|p| p + from) {
        let Some(close) = code[at..].find(")]").map(|p| p + at) else { break };
        if !test_only(&code[at + "#[cfg(".len()..close]) {
            from = close;
            continue;
        }
        // The item ends at the brace matching its first `{`, or at its `;`.
        let rest = &code.as_bytes()[at..];
        let mut depth = 0usize;
        let mut end = code.len();
        for (k, &ch) in rest.iter().enumerate() {
            match ch {
                b'{' => depth += 1,
                b'}' => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        end = at + k + 1;
                        break;
                    }
                }
                b';' if depth == 0 => {
                    end = at + k + 1;
                    break;
                }
                _ => {}
            }
        }
        for x in &mut out[at..end] {
            if *x != b'\n' {
                *x = b' ';
            }
        }
        from = end;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Each use of the file system in `src`, as (1-based line, what).
fn fs_uses(src: &str) -> Vec<(usize, String)> {
    let code = without_test_items(&code_only(src));
    let mut found = Vec::new();
    for (n, line) in code.lines().enumerate() {
        let squeezed: String = line.chars().filter(|c| !c.is_whitespace()).collect();
        for p in FS_PATTERNS {
            if squeezed.contains(p) {
                found.push((n + 1, p.to_string()));
            }
        }
        // `use std::{fs, …}` and `use std::{io, fs::File}`.
        if let Some(group) = squeezed.strip_prefix("usestd::{").or_else(|| squeezed.strip_prefix("pubusestd::{")) {
            if group.split(|c: char| !c.is_alphanumeric() && c != '_').any(|w| w == "fs") {
                found.push((n + 1, "std::{fs}".into()));
            }
        }
    }
    found
}

fn product_sources() -> Vec<PathBuf> {
    let mut files = Vec::new();
    let Ok(crates) = fs::read_dir(root().join("server")) else { return files };
    let mut crates: Vec<PathBuf> = crates.flatten().map(|e| e.path()).collect();
    crates.sort();
    for c in crates {
        rust_files(&c.join("src"), &mut files);
    }
    files
}

#[test]
fn only_knit_workspace_touches_the_file_system() {
    let mut failures = Vec::new();
    let sources = product_sources();
    assert!(sources.len() > 50, "found only {} product sources: is the layout unchanged?", sources.len());
    for path in sources {
        let r = rel(&path);
        if r.starts_with(FILE_LAYER) || BENCH_CODE.iter().any(|(prefix, _)| r.starts_with(prefix)) {
            continue;
        }
        let src = fs::read_to_string(&path).expect("readable source");
        for (line, what) in fs_uses(&src) {
            failures.push(format!("{r}:{line}: `{what}` outside knit-workspace (go through its confined file layer)"));
        }
    }
    assert!(failures.is_empty(), "the file system is touched outside knit-workspace:\n{}", failures.join("\n"));
}

#[test]
fn every_module_has_a_header() {
    let r = root();
    let mut files = product_sources();
    for dir in ["tests", "fuzz/src", "fuzz/fuzz_targets"] {
        rust_files(&r.join(dir), &mut files);
    }
    for c in fs::read_dir(r.join("server")).expect("server/").flatten() {
        for sub in ["tests", "benches", "examples"] {
            rust_files(&c.path().join(sub), &mut files);
        }
    }
    let mut missing = Vec::new();
    for path in &files {
        let src = fs::read_to_string(path).expect("readable source");
        let first = src.trim_start_matches('\u{feff}').lines().find(|l| !l.trim().is_empty()).unwrap_or("");
        if !first.trim_start().starts_with("//!") {
            missing.push(rel(path));
        }
    }
    assert!(files.len() > 80, "found only {} Rust files", files.len());
    assert!(missing.is_empty(), "modules without a `//!` header saying what they own:\n{}", missing.join("\n"));
}

/// The top-level modules of the crate that `code` names (`crate::a::…`, `crate::{a, b::c}`).
fn crate_modules_named(code: &str) -> Vec<String> {
    let mut out = Vec::new();
    let b = code.as_bytes();
    let ident = |from: usize| -> String { code[from..].chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect() };
    let mut from = 0;
    while let Some(at) = code[from..].find("crate::").map(|p| p + from) {
        from = at + "crate::".len();
        // `knit_crate::x` is another crate's path.
        if at > 0 && (b[at - 1].is_ascii_alphanumeric() || b[at - 1] == b'_') {
            continue;
        }
        if b.get(from) == Some(&b'{') {
            // Names at depth 1 of the group: after `{` and after each `,` at that depth.
            let mut depth = 0;
            let mut expect = true;
            for (k, ch) in code[from..].char_indices() {
                match ch {
                    '{' => {
                        depth += 1;
                        expect = depth == 1;
                    }
                    '}' => {
                        depth -= 1;
                        if depth == 0 {
                            break;
                        }
                    }
                    ',' if depth == 1 => expect = true,
                    c if expect && depth == 1 && (c.is_alphanumeric() || c == '_') => {
                        out.push(ident(from + k));
                        expect = false;
                    }
                    _ => {}
                }
            }
        } else {
            let name = ident(from);
            if !name.is_empty() {
                out.push(name);
            }
        }
    }
    out.sort();
    out.dedup();
    out
}

/// A cycle in `edges` (module → modules it names), as a path that returns to its start.
fn find_cycle(edges: &std::collections::BTreeMap<String, std::collections::BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit(
        v: &str,
        edges: &std::collections::BTreeMap<String, std::collections::BTreeSet<String>>,
        state: &mut std::collections::HashMap<String, u8>,
        path: &mut Vec<String>,
    ) -> Option<Vec<String>> {
        state.insert(v.to_string(), 1);
        path.push(v.to_string());
        for w in edges.get(v).into_iter().flatten() {
            if !edges.contains_key(w) {
                continue; // not a module of this crate (a re-export at the root, a macro)
            }
            match state.get(w.as_str()).copied().unwrap_or(0) {
                1 => {
                    let start = path.iter().position(|p| p == w).unwrap_or(0);
                    let mut cycle = path[start..].to_vec();
                    cycle.push(w.clone());
                    return Some(cycle);
                }
                0 => {
                    if let Some(c) = visit(w, edges, state, path) {
                        return Some(c);
                    }
                }
                _ => {}
            }
        }
        path.pop();
        state.insert(v.to_string(), 2);
        None
    }
    let mut state = std::collections::HashMap::new();
    for v in edges.keys() {
        if state.get(v.as_str()).copied().unwrap_or(0) == 0 {
            if let Some(c) = visit(v, edges, &mut state, &mut Vec::new()) {
                return Some(c);
            }
        }
    }
    None
}

#[test]
fn module_dependencies_go_one_way() {
    let mut failures = Vec::new();
    let mut crates: Vec<PathBuf> = fs::read_dir(root().join("server")).expect("server/").flatten().map(|e| e.path()).collect();
    crates.sort();
    for c in crates {
        let src_dir = c.join("src");
        let mut files = Vec::new();
        rust_files(&src_dir, &mut files);
        let mut edges: std::collections::BTreeMap<String, std::collections::BTreeSet<String>> = Default::default();
        for f in files {
            let rel = f.strip_prefix(&src_dir).expect("under src").to_string_lossy().replace('\\', "/");
            let top = rel.split('/').next().unwrap_or("").trim_end_matches(".rs").to_string();
            if top == "lib" || top == "main" {
                continue;
            }
            let code = without_test_items(&code_only(&fs::read_to_string(&f).expect("readable source")));
            let named: Vec<String> = crate_modules_named(&code).into_iter().filter(|m| *m != top).collect();
            edges.entry(top).or_default().extend(named);
        }
        if let Some(cycle) = find_cycle(&edges) {
            failures.push(format!("{}: {}", rel(&c), cycle.join(" → ")));
        }
    }
    assert!(failures.is_empty(), "modules that depend on each other (make the dependency one-way):\n{}", failures.join("\n"));
}

#[test]
fn the_rules_catch_what_they_are_about() {
    // Planted violations are found…
    let planted = "use std::fs;\nfn f(p: &Path) -> bool {\n    p.exists()\n}\nuse std::{io, fs::File};\nlet x = tokio::fs::read(p);\n";
    let lines: Vec<usize> = fs_uses(planted).into_iter().map(|(l, _)| l).collect();
    assert_eq!(lines, vec![1, 3, 5, 6]);
    assert_eq!(fs_uses("let m = p . metadata ( );").len(), 1, "spacing does not hide a call");
    // …prose, strings and test modules are not.
    let innocent = concat!(
        "//! Mentions std::fs in a header.\n",
        "/* a block comment: p.exists() */\n",
        "let s = \"std::fs in a string\";\n",
        "let r = r#\"raw std::fs \"quoted\" \"#;\n",
        "let c = '\"'; let d = '\\'';\n",
        "fn ok() { tree.exists(path); }\n",
        "#[cfg(test)]\nmod tests {\n    use std::fs;\n    fn t() { if true { fs::write(\"a\", \"b\").unwrap(); } }\n}\n",
        "#[cfg(all(test, target_os = \"linux\"))]\nmod linux_tests { fn t() { std::fs::read(\"x\"); } }\n",
        "fn after() {}\n",
    );
    assert_eq!(fs_uses(innocent), Vec::<(usize, String)>::new());
    // Module names, single and grouped; another crate's `x_crate::` is not ours.
    assert_eq!(
        crate_modules_named("use crate::a::B;\nuse crate::{c, d::{E, F}, g::h};\nlet x = crate::i::j();\nuse knit_crate::k;"),
        vec!["a", "c", "d", "g", "i"]
    );
    let mut edges: std::collections::BTreeMap<String, std::collections::BTreeSet<String>> = Default::default();
    edges.insert("index".into(), ["relations".to_string()].into());
    edges.insert("relations".into(), ["index".to_string(), "classify".to_string()].into());
    edges.insert("classify".into(), Default::default());
    assert_eq!(find_cycle(&edges), Some(vec!["index".to_string(), "relations".to_string(), "index".to_string()]));
    edges.insert("index".into(), Default::default());
    assert_eq!(find_cycle(&edges), None);
    // Code after a test module is still checked, and so is code only *not* under test.
    let after = "#[cfg(test)]\nmod tests { fn t() {} }\nfn g() { std::fs::read(\"x\"); }\n#[cfg(not(test))]\nfn h() { std::fs::read(\"y\"); }\n";
    assert_eq!(fs_uses(after).into_iter().map(|(l, _)| l).collect::<Vec<_>>(), vec![3, 5]);
}
