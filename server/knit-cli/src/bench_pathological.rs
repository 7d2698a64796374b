//! `knit bench pathological`: the robustness target of DESIGN 5 and issue 9 — "a 1 MiB
//! pathological file of any kind checks in under 2 s and under 200 MB" — measured, never
//! asserted. For every language it generates files of about 1 MB (just under the 1 MiB
//! a check reads) of deep nesting, nested parentheses, one long line and many tiny
//! declarations (TypeScript adds declarators sharing one `var` and tiny members under
//! long qualified names), and reports for each: a cold `check` of a doc anchoring the
//! file, a parse-only pass of the same file in the same run, their ratio, and the peak
//! RSS of each (the parse-only peak is what tree-sitter's tree alone costs). Each phase of
//! each case runs in its own process (this binary, `--case NAME --phase parse|check`), so
//! that peak RSS (VmHWM) belongs to that phase alone, and a case that hangs is killed and
//! reported.

use clap::Args;
use knit_anchors::{check, CheckConfig, CheckOptions, DeclCache, MemTree};
use knit_syntax::Lang;
use std::io::Read;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

#[derive(Args)]
pub struct PathologicalBench {
    /// Only the cases whose name contains this (`rust/`, `/nest`, `typescript/line`).
    #[arg(long)]
    only: Option<String>,
    /// Timed repetitions per case (the median is reported).
    #[arg(long, default_value_t = 3)]
    runs: usize,
    /// Size of each generated file in bytes (a check skips files over 1 MiB).
    #[arg(long, default_value_t = 1_000_000)]
    bytes: usize,
    /// A case still running after this many seconds is killed and reported as a hang.
    #[arg(long, default_value_t = 300)]
    timeout: u64,
    /// Internal: run this one case here and print its figures as a JSON line.
    #[arg(long, hide = true)]
    case: Option<String>,
    /// Internal, with `--case`: which phase (`parse` or `check`).
    #[arg(long, hide = true, default_value = "check")]
    phase: String,
}

/// How one child process ended.
enum Outcome {
    Figures(serde_json::Value),
    Hang,
    Failed(String),
}

/// Runs one phase of one case in a child process, killed after `b.timeout` seconds.
fn run_child(exe: &std::path::Path, name: &str, phase: &str, b: &PathologicalBench) -> anyhow::Result<Outcome> {
    let mut child = Command::new(exe)
        .args(["bench", "pathological", "--case", name, "--phase", phase, "--runs", &b.runs.to_string(), "--bytes", &b.bytes.to_string()])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()?;
    let mut out = child.stdout.take().expect("piped");
    let reader = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = out.read_to_string(&mut s);
        s
    });
    let deadline = Instant::now() + Duration::from_secs(b.timeout);
    let status = loop {
        if let Some(s) = child.try_wait()? {
            break s;
        }
        if Instant::now() >= deadline {
            let _ = child.kill();
            let _ = child.wait();
            return Ok(Outcome::Hang);
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let line = reader.join().unwrap_or_default();
    Ok(match serde_json::from_str::<serde_json::Value>(line.trim()) {
        Ok(f) if status.success() => Outcome::Figures(f),
        _ => Outcome::Failed(format!("{phase}: {status}")),
    })
}

/// A language as the generators need it.
struct Language {
    key: &'static str,
    path: &'static str,
    /// A shallow declaration appended to every file, and the fragment naming it: the doc
    /// anchors it, so the check parses the file.
    shallow: &'static str,
    fragment: &'static str,
}

const LANGUAGES: &[Language] = &[
    Language { key: "typescript", path: "src/case.ts", shallow: "\nexport function shallow() { return 1; }\n", fragment: "shallow" },
    Language { key: "tsx", path: "src/case.tsx", shallow: "\nexport function shallow() { return <p>{1}</p>; }\n", fragment: "shallow" },
    Language { key: "javascript", path: "src/case.js", shallow: "\nexport function shallow() { return 1; }\n", fragment: "shallow" },
    Language { key: "swift", path: "src/Case.swift", shallow: "\nfunc shallow() -> Int { return 1 }\n", fragment: "shallow()" },
    Language { key: "rust", path: "src/case.rs", shallow: "\nfn shallow() -> i32 { 1 }\n", fragment: "shallow" },
    Language { key: "python", path: "src/case.py", shallow: "\ndef shallow():\n    return 1\n", fragment: "shallow" },
    Language { key: "go", path: "src/case.go", shallow: "\nfunc Shallow() int { return 1 }\n", fragment: "Shallow" },
    Language { key: "kotlin", path: "src/Case.kt", shallow: "\nfun shallow(): Int { return 1 }\n", fragment: "shallow()" },
];

const KINDS: &[&str] = &["nest", "parens", "line", "tiny", "dense", "declarators", "prefix", "recovery"];

/// `open` n times, `middle`, `close` n times, with n chosen to fill `bytes`.
fn nest(open: &str, middle: &str, close: &str, bytes: usize) -> String {
    let n = bytes / (open.len() + close.len()).max(1);
    format!("{}{middle}{}", open.repeat(n), close.repeat(n))
}

/// `item(i)` for i = 0, 1, … until `bytes` are filled.
fn many(bytes: usize, item: impl Fn(usize) -> String) -> String {
    let mut s = String::with_capacity(bytes + 64);
    let mut i = 0;
    while s.len() < bytes {
        s.push_str(&item(i));
        i += 1;
    }
    s
}

/// The generated file of one case (without the shallow declaration), or None when the
/// kind does not apply to the language.
fn generate(lang: &str, kind: &str, bytes: usize) -> Option<String> {
    let b = bytes;
    let calls = |head: &str, tail: &str| format!("{head}{}{tail}", "a(1); ".repeat(b / 6));
    Some(match (lang, kind) {
        // Declarations nested in declarations where the language nests them, else the
        // deepest expressions it has (Python blocks need indentation, quadratic in size;
        // Go declarations do not nest).
        ("typescript" | "javascript", "nest") => format!("export const a = {};", nest("{b: ", "1", "}", b)),
        ("tsx", "nest") => format!("export const a = {};", nest("<a>", "x", "</a>", b)),
        ("swift", "nest") => nest("class C { ", "", "}", b),
        ("rust", "nest") => nest("mod m { ", "", "}", b),
        ("python", "nest") => format!("x = {}", nest("[", "1", "]", b)),
        ("go", "nest") => format!("package p\nfunc f() {{ {} }}", nest("func() { ", "", "}()\n", b)),
        ("kotlin", "nest") => nest("class C {\n", "", "}\n", b),
        ("typescript" | "tsx" | "javascript", "parens") => format!("export function f(x) {{ return {}; }}", nest("(", "x", ")", b)),
        ("swift", "parens") => format!("func f(x: Int) -> Int {{ return {} }}", nest("(", "x", ")", b)),
        ("rust", "parens") => format!("fn f(x: i32) -> i32 {{ {} }}", nest("(", "x", ")", b)),
        ("python", "parens") => format!("def f(x):\n    return {}", nest("(", "x", ")", b)),
        ("go", "parens") => format!("package p\nfunc f(x int) int {{ return {} }}", nest("(", "x", ")", b)),
        ("kotlin", "parens") => format!("fun f(x: Int): Int {{ return {} }}", nest("(", "x", ")", b)),
        // One line of 1 MB.
        ("typescript" | "tsx" | "javascript", "line") => calls("export function f() { ", "}"),
        ("swift", "line") => calls("func f() { ", "}"),
        ("rust", "line") => calls("fn f() { ", "}"),
        ("python", "line") => calls("def f():\n    ", ""),
        ("go", "line") => calls("package p\nfunc f() { ", "}"),
        ("kotlin", "line") => calls("fun f() { ", "}"),
        ("typescript" | "tsx", "tiny") => many(b, |i| format!("export const a{i} = {i};\n")),
        ("javascript", "tiny") => many(b, |i| format!("var a{i} = {i};\n")),
        ("swift", "tiny") => many(b, |i| format!("let a{i} = {i}\n")),
        ("rust", "tiny") => many(b, |i| format!("const A{i}: u32 = {i};\n")),
        ("python", "tiny") => many(b, |i| format!("a{i} = {i}\n")),
        ("go", "tiny") => format!("package p\n{}", many(b, |i| format!("var a{i} = {i}\n"))),
        ("kotlin", "tiny") => many(b, |i| format!("val a{i} = {i}\n")),
        // The shortest declarations the language has, back to back: the most
        // declarations per byte (the per-file declaration budget stops them).
        ("typescript" | "tsx", "dense") => "let a;".repeat(b / 6),
        ("javascript", "dense") => "var a;".repeat(b / 6),
        ("swift", "dense") => "let a=1\n".repeat(b / 8),
        ("rust", "dense") => "const A:u8=1;".repeat(b / 13),
        ("python", "dense") => "class a:a=1\n".repeat(b / 12),
        ("go", "dense") => format!("package p\n{}", "var a int\n".repeat(b / 10)),
        ("kotlin", "dense") => "val a=1\n".repeat(b / 8),
        // Every declarator shares the `var`: headers overlap, members were a span scan.
        ("typescript" | "javascript", "declarators") => format!("var {}z = 0;", many(b, |i| format!("a{i} = {{x: {i}}}, "))),
        // Tiny members under a 40 KB qualified prefix: names must stay within budget.
        ("typescript", "prefix") => {
            let open = format!("namespace {} {{ ", "p".repeat(1000));
            let members = many(b.saturating_sub(41 * open.len()), |i| format!("const a{i} = 1;"));
            format!("{}{members}{}", open.repeat(40), "}".repeat(40))
        }
        // Error recovery that costs more per parser operation the longer it runs (under
        // 0.03 reports per byte, so the work budget lets it through): 120 KB of the Swift
        // case took 90 s before the parse's time cap.
        ("swift", "recovery") => format!("func f() {{\n{}", "}\n".repeat(b / 2)),
        ("python", "recovery") => "// x x x x\n}\n".repeat(b / 13),
        ("kotlin", "recovery") => "=>\n".repeat(b / 3),
        ("typescript" | "tsx" | "javascript" | "rust" | "go", "recovery") => "func f() {\n}\n}\n".repeat(b / 15),
        _ => return None,
    })
}

fn cases(only: Option<&str>) -> Vec<String> {
    let mut out = Vec::new();
    for l in LANGUAGES {
        for k in KINDS {
            let name = format!("{}/{k}", l.key);
            if generate(l.key, k, 16).is_some() && only.is_none_or(|o| name.contains(o)) {
                out.push(name);
            }
        }
    }
    out
}

pub fn run(b: &PathologicalBench) -> anyhow::Result<u8> {
    if let Some(case) = &b.case {
        return run_case(case, b);
    }
    let list = cases(b.only.as_deref());
    println!(
        "knit bench pathological — one generated file per case, {:.2} MB each, median of {} run(s), each case in its own process",
        b.bytes as f64 / 1e6,
        b.runs
    );
    println!("target per 1 MiB file: check < 2000 ms, peak RSS < 200 MB");
    println!(
        "{:<24} {:>9} {:>11} {:>10} {:>7} {:>10} {:>10} {:>7} {:>8}  anchor",
        "case", "bytes", "parse-only", "check", "ratio", "parse RSS", "check RSS", "decls", "too_deep"
    );
    let exe = std::env::current_exe()?;
    let mut worst_ms: (f64, String) = (0.0, String::new());
    let mut worst_mb: (f64, String) = (0.0, String::new());
    let mut failed = Vec::new();
    for name in &list {
        let parse = run_child(&exe, name, "parse", b)?;
        let checked = match &parse {
            Outcome::Figures(_) => run_child(&exe, name, "check", b)?,
            Outcome::Hang => Outcome::Hang,
            Outcome::Failed(e) => Outcome::Failed(e.clone()),
        };
        match (parse, checked) {
            (Outcome::Figures(p), Outcome::Figures(f)) => {
                let num = |k: &str| f[k].as_f64().or_else(|| p[k].as_f64()).unwrap_or(f64::NAN);
                let (parse, chk, rss) = (num("parse_ms"), num("check_ms"), num("peak_rss_mb"));
                println!(
                    "{:<24} {:>9} {:>8.1} ms {:>7.1} ms {:>6.2}x {:>6.0} MiB {:>6.0} MiB {:>7} {:>8}  {}",
                    name,
                    f["bytes"].as_u64().unwrap_or(0),
                    parse,
                    chk,
                    chk / parse,
                    num("parse_rss_mb"),
                    rss,
                    f["declarations"].as_u64().unwrap_or(0),
                    f["too_deep"].as_u64().unwrap_or(0),
                    f["state"].as_str().unwrap_or("?")
                );
                if chk > worst_ms.0 {
                    worst_ms = (chk, name.clone());
                }
                if rss > worst_mb.0 {
                    worst_mb = (rss, name.clone());
                }
            }
            (_, Outcome::Hang) | (Outcome::Hang, _) => {
                println!("{name:<24} killed after {} s (a hang)", b.timeout);
                failed.push(name.clone());
            }
            (_, Outcome::Failed(s)) | (Outcome::Failed(s), _) => {
                println!("{name:<24} failed: {s}");
                failed.push(name.clone());
            }
        }
    }
    println!("worst check: {:.0} ms ({}); worst check peak RSS: {:.0} MiB ({})", worst_ms.0, worst_ms.1, worst_mb.0, worst_mb.1);
    if !failed.is_empty() {
        println!("failed or hung: {}", failed.join(", "));
    }
    Ok(if failed.is_empty() { 0 } else { 1 })
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn peak_rss_mb() -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb / 1024.0)
}

/// One phase of one case, in this process: prints `{bytes, parse_ms, parse_rss_mb}` or
/// `{bytes, check_ms, peak_rss_mb, declarations, too_deep, state}`.
fn run_case(name: &str, b: &PathologicalBench) -> anyhow::Result<u8> {
    let (key, kind) = name.split_once('/').ok_or_else(|| anyhow::anyhow!("case names are language/kind"))?;
    let l = LANGUAGES.iter().find(|l| l.key == key).ok_or_else(|| anyhow::anyhow!("unknown language {key}"))?;
    let mut text = generate(key, kind, b.bytes).ok_or_else(|| anyhow::anyhow!("no case {name}"))?;
    text.push_str(l.shallow);
    let lang = Lang::from_path(l.path).expect("a supported extension");
    let mut tree = MemTree::new();
    tree.insert(l.path, text.clone());
    tree.insert("docs/case.md", format!("# Case\n\n[shallow](../{}#{})\n", l.path, l.fragment));
    let docs = vec!["docs/case.md".to_string()];
    let runs = b.runs.max(1);
    if b.phase == "parse" {
        let parse = median(
            (0..runs)
                .map(|_| {
                    let t = Instant::now();
                    std::hint::black_box(knit_syntax::lang::parse_only(lang, &text));
                    t.elapsed()
                })
                .collect(),
        );
        println!("{}", serde_json::json!({"bytes": text.len(), "parse_ms": parse.as_secs_f64() * 1000.0, "parse_rss_mb": peak_rss_mb()}));
        return Ok(0);
    }
    let mut state = String::new();
    let check_time = median(
        (0..runs)
            .map(|_| {
                // A cold check: a fresh parse cache every run.
                let cache = DeclCache::default();
                let t = Instant::now();
                let report = check(&tree, &cache, &CheckConfig::default(), &docs, &CheckOptions::default());
                let d = t.elapsed();
                state = report.anchors.first().map(|a| format!("{} ({})", a.state.as_str(), a.detail.reason)).unwrap_or_default();
                d
            })
            .collect(),
    );
    let check_rss = peak_rss_mb();
    let syntax = knit_syntax::parse(lang, &text);
    let figures = serde_json::json!({
        "bytes": text.len(),
        "check_ms": check_time.as_secs_f64() * 1000.0,
        "peak_rss_mb": check_rss,
        "declarations": syntax.declarations.len(),
        "too_deep": syntax.too_deep.len(),
        "state": state,
    });
    println!("{figures}");
    Ok(0)
}
