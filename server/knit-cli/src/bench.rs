//! `knit bench`: benchmarks, never timed tests (README "Benchmarks").
//!
//! `knit bench anchors`: the anchor-check benchmark (DESIGN 5). Figures are ratios
//! against baselines measured in the same run, never absolute thresholds:
//! cold check ÷ parse-only pass (same files, same grammars), warm re-check ÷ hashing
//! the same bytes, one-file-edit re-check, peak RSS.
//! The workspace is either generated (`--files N`) or a real code base (`--repo DIR`,
//! see `bench/anchors-real.sh`, which fetches one from the npm registry at run time).
//!
//! `knit bench history`: context packs on real commit histories against BM25, grep,
//! filename and co-change baselines (issue 10); the evaluation itself lives in the
//! `knit-eval` crate, this is its command line.

use clap::{Args, Subcommand, ValueEnum};
use knit_anchors::edit::{apply_edits, record};
use knit_anchors::{check, CheckConfig, CheckOptions, DeclCache, MemTree, Session, SourceTree};
use knit_syntax::fragment::exact_fragment;
use knit_syntax::Lang;
use knit_workspace::DiskTree;
use std::path::PathBuf;
use std::time::{Duration, Instant};

#[path = "bench_pathological.rs"]
mod pathological;

#[path = "bench_coverage.rs"]
mod coverage;

#[derive(Subcommand)]
pub enum BenchCommand {
    /// Cold check, warm re-check and one-file edit against parse-only and hashing baselines.
    Anchors(AnchorBench),
    /// Context packs on real commit history: knit against BM25, grep, filename and co-change.
    History(HistoryBench),
    /// A 1 MiB pathological file per language and kind: check time, peak RSS, ratio to parse-only.
    Pathological(pathological::PathologicalBench),
    /// Share of declarations read cleanly in real code bases, and where syntax errors sit.
    Coverage(coverage::CoverageBench),
}

#[derive(Copy, Clone, PartialEq, Eq, ValueEnum)]
pub enum ModeArg {
    Open,
    Query,
    Both,
}

#[derive(Copy, Clone, PartialEq, Eq, ValueEnum)]
pub enum SplitArg {
    Dev,
    HeldOut,
    All,
}

/// `--format` of `bench history`.
#[derive(Copy, Clone, PartialEq, Eq, Default, ValueEnum)]
pub enum ReportFormat {
    /// Tables for a terminal
    #[default]
    Human,
    /// Every task's figures, re-renderable with `--from`
    Json,
    /// The README's tables
    Markdown,
}

#[derive(Args)]
pub struct HistoryBench {
    /// Output format.
    #[arg(long, value_enum, default_value_t)]
    format: ReportFormat,
    /// A git repository with full history (repeatable: the report then averages over them).
    #[arg(long, required_unless_present = "from")]
    repo: Vec<PathBuf>,
    /// Render a saved `--format json` report instead of running (to compare or re-format).
    #[arg(long, conflicts_with = "repo")]
    from: Option<PathBuf>,
    /// Sampling seed: the same repository and seed give the same tasks.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Commits to sample per repository (each gives an open and a query task).
    #[arg(long, default_value_t = 120)]
    max_tasks: usize,
    #[arg(long, value_enum, default_value_t = ModeArg::Both)]
    mode: ModeArg,
    /// Which half of the date-split sample to run (`all`: both, reported separately).
    #[arg(long, value_enum, default_value_t = SplitArg::All)]
    split: SplitArg,
    /// Newest non-merge commits to sample from.
    #[arg(long, default_value_t = 3000)]
    history: usize,
    /// Bootstrap resamples for the 95 % intervals.
    #[arg(long, default_value_t = 2000)]
    resamples: usize,
    /// Write the output to this file instead of stdout.
    #[arg(long)]
    out: Option<PathBuf>,
    /// Folder for the temporary workspace and knit's cache (default: the system temp dir).
    #[arg(long)]
    work_dir: Option<PathBuf>,
}

#[derive(Args)]
pub struct AnchorBench {
    /// Generate a TypeScript workspace of this many files.
    #[arg(long, default_value_t = 2000)]
    files: usize,
    /// Use the supported source files under this folder instead of generating.
    #[arg(long)]
    repo: Option<PathBuf>,
    /// Anchors per code file (declarations in file order).
    #[arg(long, default_value_t = 5)]
    per_file: usize,
    /// Timed repetitions (the median is reported).
    #[arg(long, default_value_t = 3)]
    runs: usize,
    /// Time only the cold check, `--runs` times, and skip every other measurement: a
    /// workload for a profiler (`perf record … knit bench anchors --cold-only --runs 20`).
    #[arg(long)]
    cold_only: bool,
    /// Time only the warm re-check (every file's declarations cached, nothing changed),
    /// `--runs` times: the part of a check that is not parsing, for a profiler.
    #[arg(long, conflicts_with = "cold_only")]
    warm_only: bool,
}

pub fn run(cmd: &BenchCommand) -> anyhow::Result<u8> {
    match cmd {
        BenchCommand::Anchors(b) => anchors(b),
        BenchCommand::History(h) => history(h),
        BenchCommand::Pathological(b) => pathological::run(b),
        BenchCommand::Coverage(b) => coverage::run(b),
    }
}

fn history(h: &HistoryBench) -> anyhow::Result<u8> {
    let report = match &h.from {
        Some(path) => {
            let bytes = std::fs::read(path).map_err(|e| anyhow::anyhow!("reading {}: {e}", path.display()))?;
            let saved = serde_json::from_slice::<knit_eval::Report>(&bytes).map_err(|e| anyhow::anyhow!("{}: not a `knit bench history --format json` report: {e}", path.display()))?;
            // the averages are re-aggregated from the saved tasks, so a report saved by an
            // older knit renders with today's aggregation (the averaged miss ratio's interval)
            let mut report = knit_eval::Report::new(saved.repositories);
            report.command = saved.command;
            report.tool = saved.tool;
            report
        }
        None => run_history(h)?,
    };
    let text = match h.format {
        ReportFormat::Json => serde_json::to_string_pretty(&report)? + "\n",
        ReportFormat::Markdown => knit_eval::report::render_markdown(&report),
        ReportFormat::Human => knit_eval::report::render_human(&report),
    };
    match &h.out {
        Some(path) => {
            std::fs::write(path, &text).map_err(|e| anyhow::anyhow!("writing {}: {e}", path.display()))?;
            eprintln!("knit bench history: wrote {}", path.display());
        }
        None => print!("{text}"),
    }
    Ok(0)
}

/// Runs the evaluation on every `--repo`, progress on stderr.
fn run_history(h: &HistoryBench) -> anyhow::Result<knit_eval::Report> {
    use knit_eval::sample::Split;
    use knit_eval::Mode;
    if h.max_tasks == 0 {
        anyhow::bail!("--max-tasks must be at least 1");
    }
    let modes = match h.mode {
        ModeArg::Open => vec![Mode::Open],
        ModeArg::Query => vec![Mode::Query],
        ModeArg::Both => vec![Mode::Open, Mode::Query],
    };
    let splits = match h.split {
        SplitArg::Dev => vec![Split::Dev],
        SplitArg::HeldOut => vec![Split::HeldOut],
        SplitArg::All => vec![Split::Dev, Split::HeldOut],
    };
    let mut reports = Vec::new();
    for repo in &h.repo {
        let config = knit_eval::Config {
            repo: repo.clone(),
            seed: h.seed,
            max_tasks: h.max_tasks,
            modes: modes.clone(),
            splits: splits.clone(),
            history_limit: h.history,
            bootstrap_resamples: h.resamples,
            temp_dir: h.work_dir.clone(),
        };
        reports.push(knit_eval::run(&config, &mut |line| eprintln!("{line}"))?);
    }
    let mut report = knit_eval::Report::new(reports);
    report.command = command_line(h);
    Ok(report)
}

/// The command that regenerates a run, as the README shows it (Markdown output, no --out).
fn command_line(h: &HistoryBench) -> String {
    let mut parts = vec!["knit bench history".to_string()];
    for repo in &h.repo {
        parts.push(format!("--repo {}", repo.display()));
    }
    parts.push(format!("--seed {} --max-tasks {}", h.seed, h.max_tasks));
    if h.history != 3000 {
        parts.push(format!("--history {}", h.history));
    }
    if h.mode != ModeArg::Both {
        parts.push(format!("--mode {}", if h.mode == ModeArg::Open { "open" } else { "query" }));
    }
    if h.split != SplitArg::All {
        parts.push(format!("--split {}", if h.split == SplitArg::Dev { "dev" } else { "held-out" }));
    }
    parts.push("--format markdown".into());
    parts.join(" ")
}

fn generated_file(i: usize) -> String {
    let mut s = format!("import {{ helper{} }} from \"./mod{}\";\n\n", i, (i + 1) % 1000);
    s.push_str(&format!("export class Service{i} {{\n  private cache = new Map<string, number>();\n\n"));
    for m in 0..8 {
        s.push_str(&format!(
            "  /** Method {m} of service {i}. */\n  public method{m}(input: string, limit = {m}): number {{\n    const key = `${{input}}:{m}`;\n    if (this.cache.has(key)) {{\n      return this.cache.get(key) ?? 0;\n    }}\n    const value = input.length * {i} + limit;\n    this.cache.set(key, value);\n    return value;\n  }}\n\n"
        ));
    }
    s.push_str("}\n\n");
    for f in 0..4 {
        s.push_str(&format!(
            "export function compute{i}_{f}(items: number[]): number {{\n  let total = 0;\n  for (const item of items) {{\n    total += item * {f} + {i};\n  }}\n  return total;\n}}\n\n"
        ));
    }
    s
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn peak_rss_mb() -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb / 1024.0)
}

fn anchors(b: &AnchorBench) -> anyhow::Result<u8> {
    let mut tree = MemTree::new();
    let source = match &b.repo {
        Some(dir) => {
            let disk = DiskTree::new(dir);
            for p in disk.files().iter().filter(|p| Lang::from_path(p).is_some()) {
                if let Ok(t) = disk.read(p, 1 << 20) {
                    tree.insert(&format!("src/{p}"), t.as_bytes().to_vec());
                }
            }
            format!("real code base {}", dir.display())
        }
        None => {
            for i in 0..b.files {
                tree.insert(&format!("src/mod{i}.ts"), generated_file(i));
            }
            format!("generated TypeScript, {} files", b.files)
        }
    };
    let code: Vec<(String, String)> = tree
        .files
        .iter()
        .filter_map(|(p, bytes)| Some((p.clone(), String::from_utf8(bytes.clone()).ok()?)))
        .collect();
    let bytes: usize = code.iter().map(|(_, t)| t.len()).sum();

    // Docs: one anchor per declaration, up to --per-file per code file, 1000 per doc.
    let setup_cache = DeclCache::default();
    let mut lines = Vec::new();
    for (p, text) in &code {
        let Some(lang) = Lang::from_path(p) else { continue };
        let syn = setup_cache.parse(lang, text);
        for i in 0..syn.declarations.len().min(b.per_file) {
            lines.push(format!("- [{}](../{}#{})", syn.declarations[i].simple_name(), p, exact_fragment(&syn, i)));
        }
    }
    let anchors = lines.len();
    let cfg = CheckConfig { max_files: u64::MAX, max_bytes: u64::MAX, max_millis: u64::MAX, ..CheckConfig::default() };
    let mut docs = Vec::new();
    let mut recorded = Vec::new();
    {
        let mut session = Session::new(&tree, &setup_cache, cfg.clone());
        for (n, chunk) in lines.chunks(1000).enumerate() {
            let doc = format!("docs/anchors-{n:03}.md");
            let src = format!("# Anchors {n}\n\n{}\n", chunk.join("\n"));
            let (edits, _) = record(&mut session, &doc, &src, false);
            recorded.push((doc.clone(), apply_edits(&src, &edits)));
            docs.push(doc);
        }
    }
    for (doc, text) in recorded {
        tree.insert(&doc, text);
    }
    let opts = CheckOptions::default();
    let threads = rayon::current_num_threads();
    if b.cold_only || b.warm_only {
        // One check alone, `--runs` times, for a profiler: cold (an empty parse cache
        // every run) or warm (one cache, filled by a first check).
        let warm_cache = DeclCache::default();
        if b.warm_only {
            check(&tree, &warm_cache, &cfg, &docs, &opts);
        }
        let times: Vec<Duration> = (0..b.runs.max(1))
            .map(|_| {
                let cold_cache = DeclCache::default();
                let cache = if b.warm_only { &warm_cache } else { &cold_cache };
                let t = Instant::now();
                std::hint::black_box(check(&tree, cache, &cfg, &docs, &opts));
                t.elapsed()
            })
            .collect();
        let (flag, what) = if b.warm_only { ("--warm-only", "warm re-check") } else { ("--cold-only", "cold check") };
        println!("knit bench anchors {flag} — {source}: {anchors} anchors, {} code files, {threads} threads", code.len());
        println!("  {what}, median of {}: {:.1} ms", times.len(), ms(median(times)));
        return Ok(0);
    }

    // Baseline 1: parse every code file once, same grammars, on all threads and on one.
    let parse_all = |par: bool| {
        let t = Instant::now();
        if par {
            use rayon::prelude::*;
            code.par_iter().for_each(|(p, text)| {
                if let Some(l) = Lang::from_path(p) {
                    knit_syntax::lang::parse_only(l, text);
                }
            });
        } else {
            for (p, text) in &code {
                if let Some(l) = Lang::from_path(p) {
                    knit_syntax::lang::parse_only(l, text);
                }
            }
        }
        t.elapsed()
    };
    let parse_par = median((0..b.runs).map(|_| parse_all(true)).collect());
    let parse_seq = median((0..b.runs).map(|_| parse_all(false)).collect());
    // For the breakdown: parse + declarations + fingerprints, one thread, no cache; and
    // the same with print scheme 1 (the token rules before parentheses were elided by
    // structure, issue 11): the structural rules must not cost more than the old ones.
    // The two alternate run by run, so a busy moment of the machine hits both alike.
    let extract_pass = |scheme: u8| {
        let t = Instant::now();
        for (p, text) in &code {
            if let Some(l) = Lang::from_path(p) {
                std::hint::black_box(knit_syntax::parse_with_print_scheme(l, text, scheme, None));
            }
        }
        t.elapsed()
    };
    let (mut current, mut previous) = (Vec::new(), Vec::new());
    for _ in 0..b.runs {
        current.push(extract_pass(knit_syntax::PRINT_SCHEME));
        previous.push(extract_pass(1));
    }
    let (extract_seq, extract_seq_v1) = (median(current), median(previous));
    // Baseline 2: hashing the same bytes.
    let hash = median(
        (0..b.runs)
            .map(|_| {
                let t = Instant::now();
                for (_, text) in &code {
                    std::hint::black_box(blake3::hash(text.as_bytes()));
                }
                t.elapsed()
            })
            .collect(),
    );
    // Cold check: an empty parse cache every run.
    let mut non_fresh = 0;
    let mut non_fresh_reasons = std::collections::BTreeMap::new();
    let cold = median(
        (0..b.runs)
            .map(|_| {
                let cache = DeclCache::default();
                let t = Instant::now();
                let r = check(&tree, &cache, &cfg, &docs, &opts);
                let d = t.elapsed();
                non_fresh = r.anchors.iter().filter(|a| a.state != knit_anchors::State::Fresh).count();
                non_fresh_reasons = std::collections::BTreeMap::new();
                for a in r.anchors.iter().filter(|a| a.state != knit_anchors::State::Fresh) {
                    *non_fresh_reasons.entry(a.detail.reason).or_insert(0usize) += 1;
                }
                d
            })
            .collect(),
    );
    // Warm re-check: nothing changed, the parse cache is shared.
    let warm_cache = DeclCache::default();
    check(&tree, &warm_cache, &cfg, &docs, &opts);
    let warm = median(
        (0..b.runs)
            .map(|_| {
                let t = Instant::now();
                check(&tree, &warm_cache, &cfg, &docs, &opts);
                t.elapsed()
            })
            .collect(),
    );
    // One-file edit: a function appended to the first code file, then a full re-check.
    let (first, first_text) = code[0].clone();
    let edit = median(
        (0..b.runs)
            .map(|r| {
                tree.insert(&first, format!("{first_text}\nexport function added{r}() {{ return {r}; }}\n"));
                let t = Instant::now();
                check(&tree, &warm_cache, &cfg, &docs, &opts);
                t.elapsed()
            })
            .collect(),
    );
    println!("knit bench anchors — {source}");
    println!("  code files: {}, {:.1} MiB; anchors: {anchors} in {} docs; threads: {threads}", code.len(), bytes as f64 / 1048576.0, docs.len());
    println!("  non-fresh anchors after record (must be 0): {non_fresh} {non_fresh_reasons:?}");
    println!("  parse-only pass ({threads} threads): {:>9.1} ms", ms(parse_par));
    println!("  parse-only pass (1 thread):   {:>9.1} ms", ms(parse_seq));
    // How close real code comes to knit_syntax's per-byte budgets (parse work, parse heap,
    // declarations), file by file.
    struct FileCost<'a> {
        path: &'a str,
        bytes: usize,
        reports_per_byte: f64,
        heap_per_byte: f64,
        decls_per_byte: f64,
        nanos_per_byte: f64,
    }
    let costs: Vec<FileCost> = code
        .iter()
        .filter(|(_, text)| text.len() >= 200)
        .filter_map(|(p, text)| {
            let lang = Lang::from_path(p)?;
            let c = knit_syntax::lang::parse_cost(lang, text);
            let n = text.len() as f64;
            Some(FileCost {
                path: p.as_str(),
                bytes: text.len(),
                reports_per_byte: c.reports as f64 / n,
                heap_per_byte: c.peak_heap_bytes as f64 / n,
                decls_per_byte: knit_syntax::parse(lang, text).declarations.len() as f64 / n,
                nanos_per_byte: c.elapsed.as_nanos() as f64 / n,
            })
        })
        .collect();
    let worst = |min_bytes: usize, key: fn(&FileCost) -> f64| {
        costs.iter().filter(|c| c.bytes >= min_bytes).fold((0.0, ""), |b, c| if key(c) > b.0 { (key(c), c.path) } else { b })
    };
    let (heap_rate, heap_floor) = (knit_syntax::lang::PARSE_HEAP_BYTES_PER_SOURCE_BYTE, knit_syntax::lang::PARSE_HEAP_FLOOR);
    let over_heap = costs.iter().filter(|c| c.heap_per_byte * c.bytes as f64 > (heap_floor + heap_rate * c.bytes) as f64).count();
    let density = worst(16 << 10, |c| c.decls_per_byte);
    println!("  declarations: at most one per {:.1} bytes in files of 16 KiB or more ({})", 1.0 / density.0.max(1e-9), density.1);
    let work = worst(0, |c| c.reports_per_byte);
    println!("  parse work: at most {:.3} progress reports per byte ({}); the budget allows 0.1", work.0, work.1);
    // Small files parse in less than a timer's noise; the cap's floor covers them anyway.
    let pace = worst(16 << 10, |c| c.nanos_per_byte);
    println!(
        "  parse time: at most {:.2} µs per byte in files of 16 KiB or more ({}); the cap allows {:.2} (+{} ms)",
        pace.0 / 1000.0,
        pace.1,
        knit_syntax::lang::PARSE_NANOS_PER_BYTE as f64 / 1000.0,
        knit_syntax::lang::PARSE_MILLIS_FLOOR
    );
    // Small files are dominated by the parser's fixed buffers, which the floor covers.
    let heap = worst(64 << 10, |c| c.heap_per_byte);
    println!(
        "  parse heap: at most {:.1} bytes per source byte in files of 64 KiB or more ({}); the budget allows {heap_rate} (+{} MiB); files over it: {over_heap}",
        heap.0,
        heap.1,
        heap_floor >> 20
    );
    println!("  parse + declarations (1 thread):{:>7.1} ms  = {:.2}x parse-only (1 thread)", ms(extract_seq), ms(extract_seq) / ms(parse_seq));
    println!(
        "  the same, print scheme 1:     {:>9.1} ms  (scheme {} costs {:.3}x scheme 1)",
        ms(extract_seq_v1),
        knit_syntax::PRINT_SCHEME,
        ms(extract_seq) / ms(extract_seq_v1)
    );
    println!("  cold check:                   {:>9.1} ms  = {:.2}x parse-only ({threads} threads), {:.2}x parse-only (1 thread)", ms(cold), ms(cold) / ms(parse_par), ms(cold) / ms(parse_seq));
    println!("  hashing the same bytes:       {:>9.1} ms", ms(hash));
    println!("  warm re-check (no change):    {:>9.1} ms  = {:.1}x hashing", ms(warm), ms(warm) / ms(hash));
    println!("  re-check after one-file edit: {:>9.1} ms  = {:.1}x hashing", ms(edit), ms(edit) / ms(hash));
    if let Some(rss) = peak_rss_mb() {
        println!("  peak RSS: {rss:.0} MiB");
    }
    Ok(if non_fresh == 0 { 0 } else { 1 })
}
