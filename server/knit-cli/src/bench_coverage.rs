//! `knit bench coverage`: how much of a real code base knit reads cleanly (issue 11).
//!
//! For every source file of the languages knit reads under each `--repo` (gitignore
//! respected, files over 1 MiB skipped as `knit check` does), it parses the file as the
//! check does and reports, per repository and language: files, files where the grammar
//! found a syntax error, files past the parse budget, declarations extracted, and the
//! share of them extracted *cleanly* (no syntax error inside the declaration's range, so
//! an anchor to it can be checked). The grammar constructs where errors sit are counted,
//! most frequent first, with one example location each: what a grammar repair should aim
//! at. Declarations the parser swallowed into an error are not counted (nothing names
//! them), which is why the error files are listed too, with the lines their errors span
//! outside every declaration read: where such declarations would be (okhttp's
//! `Http2Stream.kt` read 3 declarations, all clean, while one error spanned the rest of
//! its 600 lines).
//!
//! A grammar can also misread valid code *without* an error (tree-sitter-kotlin-ng reads
//! a delegating class's body as a lambda; 321 declarations of 13 Kotlin code bases were
//! lost so). Where a language knows a sign of that (Kotlin: a name spelled like `class` or
//! `fun`), the signs left after the repairs are counted below the table, per repository.

use clap::Args;
use knit_syntax::Lang;
use knit_anchors::SourceTree;
use knit_workspace::DiskTree;
use std::collections::BTreeMap;
use std::path::PathBuf;

#[derive(Args)]
pub struct CoverageBench {
    /// A source tree (repeatable; one block of rows each).
    #[arg(long, required = true)]
    repo: Vec<PathBuf>,
    /// Constructs listed per repository.
    #[arg(long, default_value_t = 6)]
    top: usize,
    /// Also list, on stderr, every error site (`path:line construct`) and each file's
    /// count of declarations not extracted cleanly.
    #[arg(long)]
    sites: bool,
}

#[derive(Default)]
struct Tally {
    files: usize,
    error_files: usize,
    over_budget: usize,
    declarations: usize,
    unclean: usize,
    /// Lines inside an error node and outside every declaration read.
    unread_lines: usize,
}

pub fn run(b: &CoverageBench) -> anyhow::Result<u8> {
    // A mistyped path must not read as "a repository with no source files".
    for dir in &b.repo {
        if knit_workspace::files::canonical_dir(dir).is_err() {
            anyhow::bail!("--repo {}: not a folder", dir.display());
        }
    }
    println!("| repository | language | files | with syntax errors | past the budget | declarations | extracted cleanly | error lines outside declarations |");
    println!("|---|---|---:|---:|---:|---:|---:|---:|");
    let mut notes = Vec::new();
    let mut misread_notes = Vec::new();
    for dir in &b.repo {
        let name = dir.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| dir.display().to_string());
        let disk = DiskTree::new(dir);
        let mut by_lang: BTreeMap<&'static str, Tally> = BTreeMap::new();
        // construct → (count, first example "path:line")
        let mut constructs: BTreeMap<String, (usize, String)> = BTreeMap::new();
        // silent misreadings: (signs, files, first example "path:line what")
        let mut misread = (0usize, 0usize, String::new());
        for path in disk.files().iter() {
            let Some(lang) = Lang::from_path(path) else { continue };
            let Ok(text) = disk.read(path, 1 << 20) else { continue };
            let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
            let (syntax, sites, signs) = knit_syntax::lang::parse_reporting_errors(lang, text);
            if let Some(first) = signs.first() {
                if misread.1 == 0 {
                    misread.2 = format!("{path}:{} {}", first.line, first.construct);
                }
                misread.0 += signs.len();
                misread.1 += 1;
                for sign in signs.iter().filter(|_| b.sites) {
                    eprintln!("{name}/{path}:{} misread: {}", sign.line, sign.construct);
                }
            }
            let t = by_lang.entry(lang.name()).or_default();
            t.files += 1;
            t.over_budget += syntax.over_budget as usize;
            t.declarations += syntax.declarations.len();
            let unclean = syntax.declarations.iter().filter(|d| d.has_error).count();
            t.unclean += unclean;
            if b.sites && unclean > 0 {
                eprintln!("{name}/{path}: {unclean} declaration(s) not clean");
            }
            if syntax.has_error && !syntax.over_budget {
                t.error_files += 1;
                let unread = lines_outside(&sites, &syntax.declarations);
                t.unread_lines += unread;
                if b.sites && unread > 0 {
                    eprintln!("{name}/{path}: {unread} line(s) in errors outside every declaration");
                }
                for site in sites {
                    if b.sites {
                        eprintln!("{name}/{path}:{} {}", site.line, site.construct);
                    }
                    let key = format!("{}: {}", lang.name(), site.construct);
                    let e = constructs.entry(key).or_insert_with(|| (0, format!("{path}:{}", site.line)));
                    e.0 += 1;
                }
            }
        }
        let mut all = Tally::default();
        for (lang, t) in &by_lang {
            println!("| {name} | {lang} | {} | {} | {} | {} | {} | {} |", t.files, t.error_files, t.over_budget, t.declarations, share(t), t.unread_lines);
            all.files += t.files;
            all.error_files += t.error_files;
            all.over_budget += t.over_budget;
            all.declarations += t.declarations;
            all.unclean += t.unclean;
            all.unread_lines += t.unread_lines;
        }
        if by_lang.len() > 1 {
            println!("| {name} | all | {} | {} | {} | {} | {} | {} |", all.files, all.error_files, all.over_budget, all.declarations, share(&all), all.unread_lines);
        }
        if misread.0 > 0 {
            misread_notes.push(format!("- {name}: {} in {} file(s) (e.g. {})", misread.0, misread.1, misread.2));
        }
        let mut ranked: Vec<(&String, &(usize, String))> = constructs.iter().collect();
        ranked.sort_by(|a, b| b.1 .0.cmp(&a.1 .0).then(a.0.cmp(b.0)));
        if !ranked.is_empty() {
            let list: Vec<String> =
                ranked.iter().take(b.top).map(|(k, (n, ex))| format!("`{k}` ×{n} (e.g. {ex})")).collect();
            notes.push(format!("- {name}: {}", list.join("; ")));
        }
    }
    if !notes.is_empty() {
        println!();
        println!("Where the syntax errors sit (grammar construct around the error, occurrences):");
        println!();
        for n in notes {
            println!("{n}");
        }
    }
    if !misread_notes.is_empty() {
        // Not in the table: a tree without errors counts as read, and these are the signs
        // that one was read wrongly all the same (its declarations may be missing).
        println!();
        println!("Silent misreadings (no syntax error, but a sign the grammar misread valid code: a name spelled like a declaration keyword):");
        println!();
        for n in misread_notes {
            println!("{n}");
        }
    }
    Ok(0)
}

/// How many lines the error sites span outside every declaration's lines (each line
/// counted once).
fn lines_outside(sites: &[knit_syntax::lang::ErrorSite], declarations: &[knit_syntax::Declaration]) -> usize {
    let mut spans: Vec<(u32, u32)> = declarations.iter().map(|d| (d.start_line, d.end_line)).collect();
    spans.sort_unstable();
    let mut merged: Vec<(u32, u32)> = Vec::new();
    for (start, end) in spans {
        match merged.last_mut() {
            Some(last) if start <= last.1.saturating_add(1) => last.1 = last.1.max(end),
            _ => merged.push((start, end)),
        }
    }
    let covered = |line: u32| {
        let i = merged.partition_point(|&(start, _)| start <= line);
        i > 0 && merged[i - 1].1 >= line
    };
    let mut lines: Vec<u32> = sites.iter().flat_map(|s| s.line..=s.end_line.max(s.line)).filter(|&l| !covered(l)).collect();
    lines.sort_unstable();
    lines.dedup();
    lines.len()
}

/// Share of declarations extracted cleanly, as a percentage with the counts that give it.
fn share(t: &Tally) -> String {
    if t.declarations == 0 {
        return "—".to_string();
    }
    let clean = t.declarations - t.unclean;
    format!("{:.2} % ({} not)", 100.0 * clean as f64 / t.declarations as f64, t.unclean)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unread(lang: Lang, src: &str) -> usize {
        let (syntax, sites, _) = knit_syntax::lang::parse_reporting_errors(lang, src);
        lines_outside(&sites, &syntax.declarations)
    }

    #[test]
    fn error_lines_are_counted_only_outside_the_declarations_read() {
        // an error inside a declaration makes it unclean, and is counted there
        assert_eq!(unread(Lang::TypeScript, "function a() {}\nclass B {\n  m() { return 1 +; }\n}\n"), 0);
        // stray lines between declarations: code no declaration holds
        assert_eq!(unread(Lang::TypeScript, "function a() {}\n)))\n)))\nfunction c() {}\n"), 2);
        assert_eq!(unread(Lang::TypeScript, "function a() {}\nfunction c() {}\n"), 0);
    }
}
