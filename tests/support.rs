//! Helpers for the end-to-end tests: locate the built `knit` binary, make throwaway
//! workspaces, run commands.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The `knit` binary cargo built next to this test executable (`target/<profile>/knit`).
pub fn knit_bin() -> PathBuf {
    if let Some(p) = std::env::var_os("KNIT_BIN") {
        return PathBuf::from(p);
    }
    let exe = std::env::current_exe().expect("test executable path");
    // target/<profile>/deps/cli-xxxx → target/<profile>/knit
    let dir = exe.parent().and_then(Path::parent).expect("target dir");
    let bin = dir.join(if cfg!(windows) { "knit.exe" } else { "knit" });
    assert!(bin.exists(), "{} not built: run `cargo build -p knit-cli` (cargo test --workspace builds it)", bin.display());
    bin
}

/// A temporary workspace (with a `knit.toml`, so it is its own root).
pub struct Ws {
    pub dir: tempfile::TempDir,
    pub cache: tempfile::TempDir,
    outside: tempfile::TempDir,
}

impl Ws {
    pub fn new() -> Ws {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("knit.toml"), "").unwrap();
        Ws { dir, cache: tempfile::tempdir().unwrap(), outside: tempfile::tempdir().unwrap() }
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    /// The cache and state folder this workspace's knit runs use.
    pub fn cache_path(&self) -> &Path {
        self.cache.path()
    }

    /// A folder outside the workspace (an attacker's target, a victim file's home).
    pub fn outside_dir(&self) -> &Path {
        self.outside.path()
    }

    pub fn write(&self, rel: &str, content: impl AsRef<[u8]>) {
        let p = self.dir.path().join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, content).unwrap();
    }

    pub fn read(&self, rel: &str) -> String {
        std::fs::read_to_string(self.dir.path().join(rel)).unwrap()
    }

    pub fn knit(&self, args: &[&str]) -> Output {
        Command::new(knit_bin())
            .args(args)
            .current_dir(self.dir.path())
            .env("KNIT_CACHE_DIR", self.cache.path())
            .env("KNIT_STATE_DIR", self.cache.path())
            .output()
            .expect("run knit")
    }

    /// `knit check --format json` parsed, with the exit code.
    pub fn check_json(&self, extra: &[&str]) -> (i32, serde_json::Value) {
        let mut args = vec!["check", "--format", "json"];
        args.extend_from_slice(extra);
        let out = self.knit(&args);
        let json = serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|e| panic!("not JSON ({e}): {}\n{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr)));
        (out.status.code().unwrap_or(-1), json)
    }
}

impl Default for Ws {
    fn default() -> Self {
        Self::new()
    }
}

/// The states of a check report by `doc:line`.
pub fn states(report: &serde_json::Value) -> Vec<(String, String)> {
    report["anchors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| (format!("{}:{}", a["doc"].as_str().unwrap(), a["line"]), a["state"].as_str().unwrap().to_string()))
        .collect()
}

/// One LSP message with its `Content-Length` header.
pub fn lsp_frame(msg: &serde_json::Value) -> Vec<u8> {
    let body = msg.to_string();
    format!("Content-Length: {}\r\n\r\n{body}", body.len()).into_bytes()
}

/// The messages an LSP server writes to `out`, parsed, on a channel (closed when the
/// server's output ends).
pub fn lsp_reader(out: impl std::io::Read + Send + 'static) -> std::sync::mpsc::Receiver<serde_json::Value> {
    use std::io::{BufRead, Read};
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut r = std::io::BufReader::new(out);
        loop {
            let mut len = 0usize;
            loop {
                let mut line = String::new();
                if r.read_line(&mut line).unwrap_or(0) == 0 {
                    return;
                }
                let line = line.trim_end();
                if line.is_empty() {
                    break;
                }
                if let Some(v) = line.strip_prefix("Content-Length:") {
                    len = v.trim().parse().unwrap_or(0);
                }
            }
            let mut body = vec![0u8; len];
            if r.read_exact(&mut body).is_err() || tx.send(serde_json::from_slice(&body).unwrap_or(serde_json::Value::Null)).is_err() {
                return;
            }
        }
    });
    rx
}

/// `knit ARGS` in the workspace, with its cache and state folders inside the test's.
pub fn knit_cmd(ws: &Ws, args: &[&str]) -> Command {
    let mut c = Command::new(knit_bin());
    c.args(args).current_dir(ws.path()).env("KNIT_CACHE_DIR", ws.cache_path()).env("KNIT_STATE_DIR", ws.cache_path());
    c
}

/// Makes `dir` a repository whose first commit, `message`, holds every file in it.
pub fn git_first_commit(dir: &Path, message: &str) {
    git(dir, &["init", "-q"]);
    git(dir, &["add", "-A"]);
    git(dir, &["commit", "-qm", message]);
}

/// `git ARGS` in `dir`, isolated from the user's and the system's configuration and hooks.
pub fn git(dir: &Path, args: &[&str]) {
    let out = Command::new("git")
        .args(["-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false", "-c", "core.hooksPath=/dev/null"])
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .output()
        .expect("git");
    assert!(out.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
}
