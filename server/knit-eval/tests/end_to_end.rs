//! The whole harness on a tiny synthetic repository built here: sampling filters, the
//! no-look-ahead workspace, every ranker, metrics, determinism, and the input errors.

use std::path::Path;
use std::process::Command;

use knit_eval::git::Git;
use knit_eval::sample::Split;
use knit_eval::workspace::Workspace;
use knit_eval::{Config, Mode};

/// A repository under construction; commits get one day each, in order.
struct Repo<'a> {
    dir: &'a Path,
    day: i64,
}

impl Repo<'_> {
    fn git(&self, args: &[&str]) -> String {
        let date = format!("{} +0000", 1_600_000_000 + self.day * 86_400);
        let out = Command::new("git")
            .current_dir(self.dir)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .env("GIT_AUTHOR_DATE", &date)
            .env("GIT_COMMITTER_DATE", &date)
            .args(["-c", "user.name=Dev", "-c", "user.email=dev@example.com", "-c", "core.hooksPath=/dev/null"])
            .args(args)
            .output()
            .expect("git runs");
        assert!(out.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8_lossy(&out.stdout).trim().to_string()
    }

    fn write(&self, path: &str, text: &str) {
        let p = self.dir.join(path);
        std::fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
        std::fs::write(p, text).expect("write");
    }

    fn commit(&mut self, message: &str, files: &[(&str, &str)]) -> String {
        for (path, text) in files {
            self.write(path, text);
        }
        self.day += 1;
        self.git(&["add", "-A"]);
        self.git(&["commit", "-q", "-m", message]);
        self.git(&["rev-parse", "HEAD"])
    }
}

/// An empty repository (branch `main`) in a new folder `dir`, its clock at day 0.
fn new_repo(dir: &Path) -> Repo<'_> {
    std::fs::create_dir_all(dir).expect("mkdir");
    let repo = Repo { dir, day: 0 };
    repo.git(&["init", "-q", "--initial-branch=main"]);
    repo
}

fn lexer(version: u32) -> String {
    let mut s = String::from("import { isDigit } from './util';\n\nexport class Lexer {\n  private pos = 0;\n\n  constructor(private source: string) {}\n\n");
    s.push_str("  nextToken(): Token {\n    const ch = this.source[this.pos];\n    if (isDigit(ch)) {\n      return this.readNumber();\n    }\n    return { kind: 'punct', text: ch };\n  }\n\n");
    for v in 0..version {
        s.push_str(&format!("  readPart{v}(): string {{\n    return this.source.slice(this.pos, this.pos + {v});\n  }}\n\n"));
    }
    s.push_str("  readNumber(): Token {\n    let text = '';\n    while (isDigit(this.source[this.pos])) {\n      text += this.source[this.pos++];\n    }\n    return { kind: 'number', text };\n  }\n}\n");
    s
}

fn parser(version: u32) -> String {
    let mut s = String::from("import { Lexer } from './lexer';\nimport { formatError } from './util';\n\nexport class Parser {\n  constructor(private lexer: Lexer) {}\n\n  parseExpression(): Node {\n    const token = this.lexer.nextToken();\n    return { type: 'literal', token };\n  }\n\n");
    for v in 0..version {
        s.push_str(&format!("  parseRule{v}(): Node {{\n    const token = this.lexer.readPart{v}();\n    return {{ type: 'rule{v}', token }};\n  }}\n\n"));
    }
    s.push_str("  fail(message: string): never {\n    throw new Error(formatError(message));\n  }\n}\n");
    s
}

fn util(version: u32) -> String {
    let mut s = String::from("export function isDigit(ch: string): boolean {\n  return ch >= '0' && ch <= '9';\n}\n\nexport function formatError(message: string): string {\n  return `parse error: ${message}`;\n}\n");
    for v in 0..version {
        s.push_str(&format!("\nexport function helper{v}(x: number): number {{\n  return x * {v};\n}}\n"));
    }
    s
}

/// The synthetic history; returns (repo dir guard, shas of every commit in order).
fn build_repo(root: &Path) -> Vec<String> {
    let mut repo = new_repo(root);
    let mut shas = vec![repo.commit(
        "Initial import",
        &[
            ("src/lexer.ts", &lexer(0)),
            ("src/parser.ts", &parser(0)),
            ("src/util.ts", &util(0)),
            ("docs/guide.md", "# Guide\n\nThe parser reads expressions with the lexer.\n\n## Numbers\n\nDigits form numbers.\n"),
            ("README.md", "# calc\n\nA tiny expression parser.\n"),
            ("package.json", "{\n  \"name\": \"calc\",\n  \"version\": \"1.0.0\"\n}\n"),
        ],
    )];
    shas.push(repo.commit("feat(lexer): read parts in the lexer and parser (#3)", &[("src/lexer.ts", &lexer(1)), ("src/parser.ts", &parser(1))]));
    shas.push(repo.commit("Parse rule two\n\nCo-authored-by: Other <o@example.com>", &[("src/lexer.ts", &lexer(2)), ("src/parser.ts", &parser(2)), ("tests/parser.test.ts", "import { Parser } from '../src/parser';\n")]));
    shas.push(repo.commit("v1.0.1", &[("package.json", "{\n  \"name\": \"calc\",\n  \"version\": \"1.0.1\"\n}\n"), ("README.md", "# calc\n\nA tiny expression parser. 1.0.1\n")]));
    shas.push(repo.commit("chore(deps): bump typescript", &[("package.json", "{\n  \"name\": \"calc\",\n  \"version\": \"1.0.1\",\n  \"devDependencies\": { \"typescript\": \"5.0.0\" }\n}\n"), ("package-lock.json", "{}\n"), ("src/util.ts", &util(0).replace("ch >= '0'", "ch >= \"0\""))]));
    shas.push(repo.commit("Run prettier", &[("src/util.ts", &util(0)), ("docs/guide.md", "# Guide\n\nThe parser reads expressions with the lexer.\n\n## Numbers\n\nDigits  form numbers.\n")]));
    shas.push(repo.commit("Tidy up the sources", &[("src/lexer.ts", &lexer(2).replace("  private pos = 0;", "    private pos = 0;")), ("src/parser.ts", &parser(2).replace("{}\n\n  parseExpression", "{}\n\n\n  parseExpression"))]));
    shas.push(repo.commit("Document parser rules in the guide", &[("docs/guide.md", "# Guide\n\nThe parser reads expressions with the lexer.\n\n## Rules\n\nparseRule0 and parseRule1 read parts.\n\n## Numbers\n\nDigits form numbers.\n"), ("src/parser.ts", &parser(3)), ("src/lexer.ts", &lexer(3))]));
    repo.write("media/logo.png", "\u{89}PNG\r\n\u{1a}\n\0\0\0binary");
    shas.push(repo.commit("Add logo", &[("README.md", "# calc\n\n![logo](media/logo.png)\n")]));
    shas.push(repo.commit("Helpers for number parsing", &[("src/util.ts", &util(2)), ("src/lexer.ts", &lexer(4)), ("src/parser.ts", &parser(4))]));
    shas.push(repo.commit("Lexer: report errors with formatError", &[("src/lexer.ts", &lexer(5)), ("src/util.ts", &util(3)), ("src/errors.ts", "export class LexError extends Error {}\n")]));
    shas.push(repo.commit("Refactor number parsing (#12)\n\nSee https://example.com/issue/12", &[("src/parser.ts", &parser(5)), ("src/util.ts", &util(4)), ("src/lexer.ts", &lexer(6))]));
    shas
}

fn strip_timings(mut report: knit_eval::RepoReport) -> knit_eval::RepoReport {
    for task in &mut report.tasks {
        for outcome in task.results.values_mut() {
            outcome.millis = 0.0;
        }
    }
    report.timing = knit_eval::report::RunTiming::new(0.0, 0.0, Vec::new());
    report
}

#[test]
fn the_harness_runs_end_to_end_without_look_ahead() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let src = tmp.path().join("src-repo");
    let shas = build_repo(&src);

    // The workspace at a parent: the parent's files, its history, nothing later.
    let (git_dir, head) = knit_eval::git::open_source(&src).expect("a source repository");
    assert_eq!(head, shas[11]);
    let mut ws = Workspace::create(&git_dir, &tmp.path().join("ws")).expect("workspace");
    ws.move_to(&shas[6]).expect("move to the parent of the guide commit");
    assert!(ws.can_resolve(&shas[6]) && ws.can_resolve(&shas[0]));
    for later in &shas[7..] {
        assert!(!ws.can_resolve(later), "look-ahead: {later} resolves in the workspace");
    }
    let wgit = Git::new(ws.root());
    assert_eq!(wgit.text(["rev-parse", "HEAD"]).expect("HEAD"), shas[6]);
    assert_eq!(wgit.text(["rev-list", "--all", "--count"]).expect("count"), "7");
    assert_eq!(std::fs::read_to_string(ws.root().join("src/parser.ts")).expect("parser"), parser(2).replace("{}\n\n  parseExpression", "{}\n\n\n  parseExpression"));
    // every file looks freshly cloned at the parent: its mtime is the parent's date
    let ws_root = ws.root().to_path_buf();
    let mtime = |p: &str| std::fs::metadata(ws_root.join(p)).expect("meta").modified().expect("mtime").duration_since(std::time::UNIX_EPOCH).expect("epoch").as_secs();
    assert_eq!(mtime("src/parser.ts"), 1_600_000_000 + 7 * 86_400);
    assert_eq!(mtime("README.md"), 1_600_000_000 + 7 * 86_400);
    ws.move_to(&shas[9]).expect("move on");
    assert_eq!(std::fs::read_to_string(ws.root().join("src/util.ts")).expect("util"), util(2));
    assert_eq!((mtime("src/util.ts"), mtime("docs/guide.md")), (1_600_000_000 + 10 * 86_400, 1_600_000_000 + 10 * 86_400));
    assert!(!ws.root().join("src/errors.ts").exists() && !ws.can_resolve(&shas[10]));
    assert!(ws.root().join("media/logo.png").exists());
    drop(ws);

    let mut config = Config::new(&src);
    config.max_tasks = 10;
    config.bootstrap_resamples = 200;
    config.temp_dir = Some(tmp.path().join("work"));
    let mut lines = Vec::new();
    let report = knit_eval::run(&config, &mut |l| lines.push(l.to_string())).expect("the harness runs");

    // sampling: the six task commits, each filter hit once
    let sampled: Vec<&str> = report.commits.iter().map(|c| c.sha.as_str()).collect();
    assert_eq!(sampled, vec![&shas[1], &shas[2], &shas[7], &shas[9], &shas[10], &shas[11]]);
    let skipped = &report.sample.skipped;
    for (reason, count) in [("root-commit", 1), ("release-message", 1), ("dependency-message", 1), ("formatting-message", 1), ("whitespace-only", 1), ("too-few-files", 1)] {
        assert_eq!(skipped.get(reason).copied(), Some(count), "{reason}: {skipped:?}");
    }
    let splits: Vec<Split> = report.commits.iter().map(|c| c.split).collect();
    assert_eq!(splits, vec![Split::Dev, Split::Dev, Split::Dev, Split::HeldOut, Split::HeldOut, Split::HeldOut]);
    assert_eq!(report.workspace_rebuilds, 0);
    assert!(lines.iter().filter(|l| l.starts_with('[')).count() == 6, "{lines:?}");

    // tasks: the open file is the most-changed one, the cursor on its first changed line;
    // added files are never ground truth; messages are cleaned
    let open = report.tasks.iter().find(|t| t.commit == shas[10] && t.mode == Mode::Open).expect("open task");
    let o = open.open.as_ref().expect("open file");
    assert_eq!(o.path, "src/lexer.ts");
    assert!(open.truth.iter().all(|t| t.path != "src/errors.ts" && t.path != o.path));
    assert_eq!(open.added_files, vec!["src/errors.ts"]);
    assert_eq!(open.truth.iter().map(|t| t.path.as_str()).collect::<Vec<_>>(), vec!["src/util.ts"]);
    let query = report.tasks.iter().find(|t| t.commit == shas[11] && t.mode == Mode::Query).expect("query task");
    assert_eq!(query.query.as_deref(), Some("Refactor number parsing\nSee"));
    let first = report.tasks.iter().find(|t| t.commit == shas[1] && t.mode == Mode::Query).expect("query task");
    assert_eq!(first.query.as_deref(), Some("read parts in the lexer and parser"));

    // every ranker answered every task it applies to, within the limit, never the open file
    for task in &report.tasks {
        let expected = if task.mode == Mode::Open { 5 } else { 4 };
        assert_eq!(task.results.len(), expected, "{}", task.id);
        for (name, outcome) in &task.results {
            assert!(outcome.ranked.paths.len() <= 20, "{name}");
            if let Some(o) = &task.open {
                assert!(!outcome.ranked.paths.contains(&o.path), "{name} listed the open file");
            }
            let m = outcome.metrics;
            for v in [m.recall5, m.recall10, m.mrr] {
                assert!((0.0..=1.0).contains(&v), "{name}: {m:?}");
            }
            assert!(m.recall5 <= m.recall10);
        }
        assert!(task.results["knit"].ranked.passages.is_some());
        // knit's passages have a baseline on the same found files: each one's first passage
        let knit = task.results["knit"].metrics;
        assert!(knit.first_passage_hits.is_some_and(|h| h <= knit.found10), "{}: {knit:?}", task.id);
        assert!(task.results.iter().filter(|(n, _)| *n != "knit").all(|(_, o)| o.metrics.first_passage_hits.is_none()));
    }
    // sane figures on a history where lexer, parser and util change together
    let all_open = report.groups.iter().find(|g| g.split == "all" && g.mode == Mode::Open).expect("group");
    let summary = |name: &str| all_open.summaries.iter().find(|(n, _)| n == name).expect("ranker").1;
    assert!(summary("cochange").recall10 > 0.5, "{:?}", summary("cochange"));
    assert!(summary("knit").recall10 > 0.0 && summary("bm25").recall10 > 0.0, "{all_open:?}");
    assert!(all_open.target.is_some() && all_open.versus.len() == 4);
    for g in report.groups.iter().filter(|g| g.tasks > 0) {
        let t = g.target.as_ref().expect("a target per group with tasks");
        if let (Some(r), Some((low, high))) = (t.ratio, t.ratio_interval) {
            assert!(low <= high && low >= 0.0, "{} {}: [{low}, {high}]", g.split, g.mode.as_str());
            // a percentile interval of resampled ratios holds the ratio itself unless it is degenerate
            assert!(low <= r + 1e-9 || (high - low).abs() < 1e-12, "{} {}: {r} outside [{low}, {high}]", g.split, g.mode.as_str());
        }
    }

    // deterministic for the same repository and seed
    config.bootstrap_resamples = 200;
    let again = knit_eval::run(&config, &mut |_| {}).expect("second run");
    let (a, b) = (strip_timings(report), strip_timings(again));
    for (x, y) in a.tasks.iter().zip(&b.tasks) {
        // name the differing fields, not two pages of debug output
        let (xs, ys) = (serde_json::to_value(x).expect("json"), serde_json::to_value(y).expect("json"));
        let fields: Vec<&String> = xs.as_object().expect("object").iter().filter(|(k, v)| ys[k.as_str()] != **v).map(|(k, _)| k).collect();
        assert!(fields.is_empty(), "{} differs between two runs in {fields:?}", x.id);
    }
    assert_eq!(a.tasks.len(), b.tasks.len());
    assert_eq!(a.groups, b.groups);
    let text = knit_eval::report::render_markdown(&knit_eval::Report::new(vec![a]));
    assert!(text.contains("| **knit** |") && text.contains("Held-out") && text.contains("Passage hit (first passage)") && text.contains("Miss ratio [95 % CI]"), "{text}");
}

#[test]
fn commit_dates_out_of_order_never_lead_to_look_ahead() {
    // a history whose dates go back in time (a rebased branch): X is dated after its child
    // Y, so visiting parents by date alone would fetch Y before visiting X — and the task
    // of Y would find Y already in the workspace
    let tmp = tempfile::tempdir().expect("temp dir");
    let src = tmp.path().join("src");
    let mut repo = new_repo(&src);
    repo.commit("Initial import", &[("src/a.ts", &lexer(0)), ("src/b.ts", &parser(0))]);
    repo.day = 10;
    repo.commit("Grow the lexer and the parser", &[("src/a.ts", &lexer(1)), ("src/b.ts", &parser(1))]);
    repo.day = 2;
    repo.commit("Grow them again", &[("src/a.ts", &lexer(2)), ("src/b.ts", &parser(2))]);
    repo.commit("And once more", &[("src/a.ts", &lexer(3)), ("src/b.ts", &parser(3))]);
    let mut config = Config::new(&src);
    config.bootstrap_resamples = 50;
    config.temp_dir = Some(tmp.path().join("work"));
    let report = knit_eval::run(&config, &mut |_| {}).expect("the harness runs");
    assert_eq!(report.commits.len(), 3);
    assert_eq!(report.workspace_rebuilds, 0);
    assert_eq!(report.tasks.len(), 6);
}

#[test]
fn bad_input_gives_clear_errors() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let plain = tmp.path().join("plain");
    std::fs::create_dir_all(&plain).expect("mkdir");
    let err = knit_eval::run(&Config::new(&plain), &mut |_| {}).expect_err("not a repository");
    assert!(err.to_string().contains("not a git repository"), "{err}");

    let empty = tmp.path().join("empty");
    std::fs::create_dir_all(&empty).expect("mkdir");
    Repo { dir: &empty, day: 0 }.git(&["init", "-q"]);
    let err = knit_eval::run(&Config::new(&empty), &mut |_| {}).expect_err("empty history");
    assert!(err.to_string().contains("empty history"), "{err}");

    let src = tmp.path().join("src");
    std::fs::create_dir_all(&src).expect("mkdir");
    let mut repo = Repo { dir: &src, day: 0 };
    repo.git(&["init", "-q"]);
    repo.commit("one", &[("a.ts", "a")]);
    repo.commit("two", &[("a.ts", "b")]);
    let shallow = tmp.path().join("shallow");
    let url = format!("file://{}", src.display());
    Repo { dir: tmp.path(), day: 0 }.git(&["clone", "-q", "--depth", "1", &url, shallow.to_str().expect("utf-8")]);
    let err = knit_eval::run(&Config::new(&shallow), &mut |_| {}).expect_err("shallow");
    assert!(err.to_string().contains("shallow"), "{err}");

    let err = knit_eval::run(&Config::new(&src), &mut |_| {}).expect_err("nothing qualifies");
    assert!(err.to_string().contains("no commit"), "{err}");
}

#[test]
fn a_source_missing_objects_skips_only_the_commits_that_need_them() {
    // a mirror that left out a large file: its blob is named by old trees but absent, so
    // a full fetch of any later commit fails; the run must go on with the commits whose
    // own files are all present
    let tmp = tempfile::tempdir().expect("temp dir");
    let src = tmp.path().join("src");
    let mut repo = new_repo(&src);
    let table = "# Table\n\nA large generated table the mirror left out.\n".repeat(20);
    let c0 = repo.commit("Initial import", &[("src/lexer.ts", &lexer(0)), ("src/parser.ts", &parser(0)), ("src/util.ts", &util(0)), ("data/table.md", &table)]);
    let c1 = repo.commit("Grow the lexer and the parser", &[("src/lexer.ts", &lexer(1)), ("src/parser.ts", &parser(1))]);
    std::fs::remove_file(src.join("data/table.md")).expect("rm");
    let c2 = repo.commit("Drop the table, grow the parser", &[("src/lexer.ts", &lexer(2)), ("src/parser.ts", &parser(2))]);
    let c3 = repo.commit("Helpers for the lexer", &[("src/lexer.ts", &lexer(3)), ("src/util.ts", &util(1))]);
    let c4 = repo.commit("Parser rules use the helpers", &[("src/parser.ts", &parser(3)), ("src/util.ts", &util(2)), ("src/lexer.ts", &lexer(4))]);
    let blob = repo.git(&["rev-parse", &format!("{c0}:data/table.md")]);
    std::fs::remove_file(src.join(".git/objects").join(&blob[..2]).join(&blob[2..])).expect("the table's blob is a loose object");
    assert!(Command::new("git").current_dir(&src).args(["cat-file", "-e", &blob]).output().expect("git").status.code() != Some(0));

    let mut config = Config::new(&src);
    config.bootstrap_resamples = 50;
    config.temp_dir = Some(tmp.path().join("work"));
    let mut lines = Vec::new();
    let report = knit_eval::run(&config, &mut |l| lines.push(l.to_string())).expect("the run goes on past the missing object");

    // c2's own diff needs the missing blob (it deletes the table): not a task
    let sampled: Vec<&str> = report.commits.iter().map(|c| c.sha.as_str()).collect();
    assert_eq!(sampled, vec![&c1, &c3, &c4]);
    assert_eq!(report.sample.skipped.get("missing-objects").copied(), Some(1), "{:?}", report.sample.skipped);
    // c1's parent holds the table: its tasks are skipped with the reason; the workspace
    // is rebuilt once; c3 and c4 are measured in both modes from a partial workspace
    let reason = "the source repository lacks objects of the parent's files";
    assert_eq!(report.task_skips.get(&format!("open: {reason}")).copied(), Some(1), "{:?}", report.task_skips);
    assert_eq!(report.task_skips.get(&format!("query: {reason}")).copied(), Some(1), "{:?}", report.task_skips);
    assert_eq!(report.workspace_rebuilds, 1);
    let measured: Vec<(&str, Mode)> = report.tasks.iter().map(|t| (t.commit.as_str(), t.mode)).collect();
    assert_eq!(measured, vec![(c3.as_str(), Mode::Open), (c3.as_str(), Mode::Query), (c4.as_str(), Mode::Open), (c4.as_str(), Mode::Query)]);
    assert!(lines.iter().any(|l| l.contains("fetches commits and trees")), "{lines:?}");
    // the history is all there (trees only): co-change ranks the util change c3 made
    // with the lexer, and knit reads the same history
    let open = report.tasks.iter().find(|t| t.commit == c4 && t.mode == Mode::Open).expect("open task");
    assert!(!open.results["cochange"].ranked.paths.is_empty(), "{:?}", open.results["cochange"]);
    assert!(open.results["knit"].metrics.recall10 > 0.0, "{:?}", open.results["knit"]);

    // the workspace by itself: a move to the table's commit is `Unreadable`, not a failure
    let (git_dir, _) = knit_eval::git::open_source(&src).expect("source");
    let mut ws = Workspace::create(&git_dir, &tmp.path().join("ws")).expect("workspace");
    match ws.move_to(&c0) {
        Err(knit_eval::workspace::MoveError::Unreadable(_)) => {}
        other => panic!("expected Unreadable, got {other:?}"),
    }
    let mut ws = Workspace::create(&git_dir, &tmp.path().join("ws2")).expect("workspace");
    ws.move_to(&c2).expect("a commit without the table");
    assert!(ws.is_partial() && ws.can_resolve(&c0) && !ws.can_resolve(&c3));
    assert_eq!(std::fs::read_to_string(ws.root().join("src/parser.ts")).expect("parser"), parser(2));
}
