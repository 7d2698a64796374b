//! Unified diffs with zero context (`git diff -U0`): per file, the hunks (old-side line
//! ranges are the lines a task's passage should land on), the removed and added lines, and
//! whether git saw binary content. Also the two content tests of sampling: a change that
//! only moves whitespace, and a change that only touches version lines.
//!
//! Pure: bytes in, data out.

use std::collections::HashMap;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Hunk {
    pub old_start: u32,
    pub old_len: u32,
    pub new_start: u32,
    pub new_len: u32,
}

impl Hunk {
    /// The old-side lines this hunk touches, 1-based inclusive. A pure insertion after old
    /// line `a` touches the boundary: lines `a` and `a + 1` (line 1 at the top of a file).
    pub fn old_range(&self) -> (u32, u32) {
        if self.old_len > 0 {
            (self.old_start, self.old_start + self.old_len - 1)
        } else if self.old_start == 0 {
            (1, 1)
        } else {
            (self.old_start, self.old_start + 1)
        }
    }
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FileDiff {
    pub binary: bool,
    pub hunks: Vec<Hunk>,
    pub removed: Vec<String>,
    pub added: Vec<String>,
}

impl FileDiff {
    pub fn changed_lines(&self) -> usize {
        self.removed.len() + self.added.len()
    }

    /// Old-side ranges of all hunks, in file order.
    pub fn old_ranges(&self) -> Vec<(u32, u32)> {
        self.hunks.iter().map(Hunk::old_range).collect()
    }

    /// The first changed line on the old side (where the cursor goes in open mode).
    pub fn first_old_line(&self) -> Option<u32> {
        self.hunks.first().map(|h| if h.old_len > 0 { h.old_start } else { h.old_start + 1 })
    }

    /// True when old and new differ only in whitespace and blank lines (line breaks
    /// included, so a formatter re-wrapping a call counts as whitespace too).
    pub fn whitespace_only(&self) -> bool {
        let squash = |lines: &[String]| -> String { lines.iter().flat_map(|l| l.chars()).filter(|c| !c.is_whitespace()).collect() };
        !self.binary && squash(&self.removed) == squash(&self.added)
    }
}

/// Git's C-style quoting of a path in diff headers (used when the path holds `"`, `\` or
/// control characters; `core.quotePath=false` keeps other bytes as they are).
fn quote_c(path: &str) -> Option<String> {
    if !path.chars().any(|c| c == '"' || c == '\\' || c.is_control()) {
        return None;
    }
    let mut out = String::new();
    for c in path.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            '\x07' => out.push_str("\\a"),
            '\x08' => out.push_str("\\b"),
            '\x0b' => out.push_str("\\v"),
            '\x0c' => out.push_str("\\f"),
            c if c.is_control() => out.push_str(&format!("\\{:03o}", c as u32)),
            c => out.push(c),
        }
    }
    Some(out)
}

fn parse_range(s: &str) -> Option<(u32, u32)> {
    let (start, len) = match s.split_once(',') {
        Some((a, b)) => (a.parse().ok()?, b.parse().ok()?),
        None => (s.parse().ok()?, 1),
    };
    Some((start, len))
}

fn parse_hunk_header(line: &str) -> Option<Hunk> {
    let rest = line.strip_prefix("@@ -")?;
    let (old, rest) = rest.split_once(" +")?;
    let (new, _) = rest.split_once(" @@")?;
    let (old_start, old_len) = parse_range(old)?;
    let (new_start, new_len) = parse_range(new)?;
    Some(Hunk { old_start, old_len, new_start, new_len })
}

/// Parses `git diff -U0 --no-renames` output for the known `paths` (no renames, so both
/// sides of a header name the same path). Files not in `paths` are ignored.
pub fn parse_patch(patch: &[u8], paths: &[String]) -> HashMap<String, FileDiff> {
    let mut headers: HashMap<String, &String> = HashMap::new();
    for p in paths {
        headers.insert(format!("diff --git a/{p} b/{p}"), p);
        if let Some(q) = quote_c(p) {
            headers.insert(format!("diff --git \"a/{q}\" \"b/{q}\""), p);
        }
    }
    let mut out: HashMap<String, FileDiff> = HashMap::new();
    let mut current: Option<String> = None;
    let mut remaining = (0u32, 0u32);
    let text = String::from_utf8_lossy(patch);
    for line in text.split('\n') {
        if remaining != (0, 0) {
            let Some(path) = &current else { break };
            let file = out.get_mut(path).expect("current file is registered");
            match line.as_bytes().first() {
                Some(b'-') if remaining.0 > 0 => {
                    remaining.0 -= 1;
                    file.removed.push(line[1..].to_string());
                }
                Some(b'+') if remaining.1 > 0 => {
                    remaining.1 -= 1;
                    file.added.push(line[1..].to_string());
                }
                Some(b'\\') => {} // "\ No newline at end of file"
                _ => remaining = (0, 0), // malformed: stop reading this hunk
            }
            continue;
        }
        if line.starts_with("diff --git ") {
            current = headers.get(line).map(|p| (*p).clone());
            if let Some(p) = &current {
                out.entry(p.clone()).or_default();
            }
            continue;
        }
        let Some(path) = &current else { continue };
        if line.starts_with("Binary files ") || line == "GIT binary patch" {
            out.get_mut(path).expect("registered").binary = true;
        } else if let Some(hunk) = parse_hunk_header(line) {
            remaining = (hunk.old_len, hunk.new_len);
            out.get_mut(path).expect("registered").hunks.push(hunk);
        }
    }
    out
}

/// Package manifests and version files, by lowercased file name.
pub fn is_manifest(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path).to_ascii_lowercase();
    matches!(
        name.as_str(),
        "package.json" | "cargo.toml" | "pyproject.toml" | "setup.py" | "setup.cfg" | "package.swift" | "go.mod" | "gemfile" | "podfile" | "deno.json" | "jsr.json" | "version.py" | "_version.py" | "__version__.py" | "version.txt" | "version.ts" | "version.js"
    ) || name.ends_with(".podspec")
        || name.ends_with(".gemspec")
        || (name.starts_with("requirements") && name.ends_with(".txt"))
}

fn has_dotted_number(line: &str) -> bool {
    let b = line.as_bytes();
    (1..b.len().saturating_sub(1)).any(|i| b[i] == b'.' && b[i - 1].is_ascii_digit() && b[i + 1].is_ascii_digit())
}

/// A line that states a version: `"version": "1.2.3",`, `__version__ = "0.25.0"`.
pub fn is_version_line(line: &str) -> bool {
    line.to_ascii_lowercase().contains("version") && has_dotted_number(line)
}

/// True when every changed, non-blank line of every file is a version line, or a line
/// with a version number in a package manifest (`"typescript": "^5.1.0"`): a version or
/// dependency bump, not a task.
pub fn version_lines_only(files: &[(&str, &FileDiff)]) -> bool {
    let mut any = false;
    for (path, diff) in files {
        if diff.binary {
            return false;
        }
        let manifest = is_manifest(path);
        for line in diff.removed.iter().chain(&diff.added).filter(|l| !l.trim().is_empty()) {
            any = true;
            if !(is_version_line(line) || manifest && has_dotted_number(line)) {
                return false;
            }
        }
    }
    any
}

#[cfg(test)]
mod tests {
    use super::*;

    const PATCH: &str = "diff --git a/src/a.ts b/src/a.ts
index 1111111..2222222 100644
--- a/src/a.ts
+++ b/src/a.ts
@@ -3,2 +3,3 @@ export function a() {
-  return 1;
---- a comment starting with dashes
+  return 2;
+  // more
+++ not a header
@@ -10,0 +12 @@ x
+inserted
diff --git a/src/my file.ts b/src/my file.ts
deleted file mode 100644
index 3333333..0000000
--- a/src/my file.ts
+++ /dev/null
@@ -1,2 +0,0 @@
-one
-two
diff --git a/logo.ts b/logo.ts
index 4444444..5555555 100644
Binary files a/logo.ts and b/logo.ts differ
";

    #[test]
    fn hunks_lines_and_binary_are_parsed() {
        let paths = vec!["src/a.ts".to_string(), "src/my file.ts".to_string(), "logo.ts".to_string()];
        let files = parse_patch(PATCH.as_bytes(), &paths);
        let a = &files["src/a.ts"];
        assert_eq!(a.hunks.len(), 2);
        assert_eq!(a.removed, vec!["  return 1;", "--- a comment starting with dashes"]);
        assert_eq!(a.added, vec!["  return 2;", "  // more", "++ not a header", "inserted"]);
        assert_eq!(a.old_ranges(), vec![(3, 4), (10, 11)]);
        assert_eq!(a.first_old_line(), Some(3));
        assert_eq!(a.changed_lines(), 6);
        let deleted = &files["src/my file.ts"];
        assert_eq!(deleted.old_ranges(), vec![(1, 2)]);
        assert!(files["logo.ts"].binary);
    }

    #[test]
    fn insertions_touch_the_boundary() {
        let top = Hunk { old_start: 0, old_len: 0, new_start: 1, new_len: 2 };
        assert_eq!(top.old_range(), (1, 1));
        let mid = Hunk { old_start: 7, old_len: 0, new_start: 8, new_len: 1 };
        assert_eq!(mid.old_range(), (7, 8));
    }

    #[test]
    fn whitespace_only_changes_including_rewraps() {
        let rewrap = FileDiff { removed: vec!["call(a, b)".into()], added: vec!["call(".into(), "  a,".into(), "  b".into(), ")".into(), "".into()], ..Default::default() };
        assert!(rewrap.whitespace_only());
        let real = FileDiff { removed: vec!["call(a, b)".into()], added: vec!["call(a, c)".into()], ..Default::default() };
        assert!(!real.whitespace_only());
    }

    #[test]
    fn version_bumps_are_recognised() {
        let pkg = FileDiff { removed: vec!["  \"version\": \"1.2.3\",".into()], added: vec!["  \"version\": \"1.2.4\",".into()], ..Default::default() };
        let init = FileDiff { removed: vec!["__version__ = \"0.25.0\"".into()], added: vec!["__version__ = \"0.25.1\"".into()], ..Default::default() };
        assert!(version_lines_only(&[("package.json", &pkg), ("httpx/__version__.py", &init)]));
        let dep = FileDiff { removed: vec!["    \"typescript\": \"^5.1.0\"".into()], added: vec!["    \"typescript\": \"^5.2.0\"".into()], ..Default::default() };
        assert!(version_lines_only(&[("package.json", &dep)]));
        let code = FileDiff { removed: vec!["const x = 1.5;".into()], added: vec!["const x = 2.5;".into()], ..Default::default() };
        assert!(!version_lines_only(&[("package.json", &pkg), ("src/a.ts", &code)]));
    }
}
