//! Benchmark (not a test): building the co-change table from a repository's history.
//!
//! `cargo run --release -p knit-context --example bench_cochange -- REPO [--commits 5000]`
//!
//! Times, over 3 runs (median): reading the newest N non-merge commits' changed files and
//! subject lines in-process (`History::read`, gix), building the co-change table from
//! them (`CoChange::new`), and the incremental update when nothing moved
//! (`History::update`). Baseline in the same run: `git log --no-merges --name-only -n N`
//! on the same repository (the plain command a user would script; git is run here on a
//! repository the benchmark chooses, never on a workspace knit serves).

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use knit_context::cochange::CoChange;
use knit_workspace::{History, HistoryLimits};

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let repo = args.get(1).filter(|a| !a.starts_with("--")).expect("usage: bench_cochange REPO [--commits N]");
    let commits: usize = args.iter().position(|a| a == "--commits").and_then(|i| args.get(i + 1)).and_then(|v| v.parse().ok()).unwrap_or(5000);
    let root = Path::new(repo);
    let limits = HistoryLimits { max_commits: commits, ..HistoryLimits::default() };
    let (mut read, mut build, mut update, mut git) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let mut last = None;
    for _ in 0..3 {
        let t = Instant::now();
        let h = History::read(root, limits).expect("a git repository");
        read.push(t.elapsed());
        let t = Instant::now();
        let h2 = h.clone().update(root, limits).expect("update");
        update.push(t.elapsed());
        let t = Instant::now();
        let cc = CoChange::new(h2);
        build.push(t.elapsed());
        last = Some(cc);
        let t = Instant::now();
        let out = Command::new("git").args(["-C", repo, "log", "--no-merges", "--name-only", "--format=%H %s", "-n", &commits.to_string()]).output().expect("git");
        assert!(out.status.success());
        git.push(t.elapsed());
    }
    let cc = last.unwrap();
    let h = cc.history();
    println!("history: {} commits kept of {} walked, {} paths{}", h.commits.len(), h.walked, h.paths.len(), if h.truncated { " (truncated at the limit)" } else { "" });
    let (read, build, update, git) = (median(read), median(build), median(update), median(git));
    println!("read (gix, in-process): {:.0} ms; co-change table: {:.0} ms; total {:.0} ms", ms(read), ms(build), ms(read + build));
    println!("incremental update, HEAD unchanged: {:.1} ms", ms(update));
    println!("baseline `git log --no-merges --name-only -n {commits}`: {:.0} ms → knit total is {:.2}× of it", ms(git), ms(read + build) / ms(git).max(1e-9));
    println!("target: co-change table for {commits} commits ≤ 2 s → {}", if read + build <= Duration::from_secs(2) { "met" } else { "MISSED" });
}
