//! What a link destination designates: a symbol, a line range, a doc (section), or a
//! plain workspace file — resolved against the doc's folder, percent-decoded, and
//! refused when it escapes the workspace.

use knit_syntax::{Fragment, Lang};
use percent_encoding::percent_decode_str;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Target {
    /// `path#[kind:]Name[~N]` on a source file. `lang` is None for unsupported languages.
    Symbol { path: String, fragment: Fragment, lang: Option<Lang> },
    /// `path#L12` or `path#L12-L40`.
    Lines { path: String, start: u32, end: u32 },
    /// A Markdown file, optionally one section.
    Doc { path: String, slug: Option<String> },
    /// Any other workspace file or folder: only checked for existence.
    File { path: String },
}

impl Target {
    pub fn path(&self) -> &str {
        match self {
            Target::Symbol { path, .. } | Target::Lines { path, .. } | Target::Doc { path, .. } | Target::File { path } => path,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TargetError {
    /// `..` or an absolute path leaves the workspace root.
    Outside,
    /// A symbol fragment that does not parse.
    BadFragment(String),
}

/// Classifies a destination written in `doc` (workspace-relative path of the doc).
/// `Ok(None)`: not a workspace link (URL, mail, in-page `#heading`).
pub fn classify(doc: &str, dest: &str) -> Result<Option<Target>, TargetError> {
    let dest = dest.trim();
    // A `file:` URL is an absolute path: refused like `..` escapes, never read.
    if dest.get(..5).is_some_and(|p| p.eq_ignore_ascii_case("file:")) {
        return Err(TargetError::Outside);
    }
    if dest.is_empty() || dest.starts_with('#') || has_scheme(dest) || dest.starts_with("//") {
        return Ok(None);
    }
    let (raw_path, raw_fragment) = match dest.split_once('#') {
        Some((p, f)) => (p, Some(f)),
        None => (dest, None),
    };
    let raw_path = raw_path.split('?').next().unwrap_or("");
    let path_decoded = percent_decode_str(raw_path).decode_utf8_lossy().to_string();
    let fragment = raw_fragment.map(|f| percent_decode_str(f).decode_utf8_lossy().to_string());
    let path = join(doc, &path_decoded).ok_or(TargetError::Outside)?;
    if path.is_empty() {
        return Ok(None);
    }
    let lower = path.to_ascii_lowercase();
    let is_md = lower.ends_with(".md") || lower.ends_with(".markdown");
    let Some(fragment) = fragment.filter(|f| !f.is_empty()) else {
        return Ok(Some(if is_md { Target::Doc { path, slug: None } } else { Target::File { path } }));
    };
    if let Some((start, end)) = parse_line_fragment(&fragment) {
        return Ok(Some(Target::Lines { path, start, end }));
    }
    if is_md {
        return Ok(Some(Target::Doc { path, slug: Some(fragment) }));
    }
    if lower.ends_with(".html") || lower.ends_with(".htm") || lower.ends_with(".pdf") {
        return Ok(Some(Target::File { path }));
    }
    let frag = Fragment::parse(&fragment).map_err(|e| TargetError::BadFragment(e.to_string()))?;
    Ok(Some(Target::Symbol { lang: Lang::from_path(&path), path, fragment: frag }))
}

fn has_scheme(dest: &str) -> bool {
    let Some(colon) = dest.find(':') else { return false };
    let scheme = &dest[..colon];
    scheme.len() >= 2
        && scheme.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
        && scheme.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '.' | '-'))
        && !scheme.contains('/')
}

/// `L12` or `L12-L40` (also `L12-40`).
pub fn parse_line_fragment(f: &str) -> Option<(u32, u32)> {
    let rest = f.strip_prefix('L')?;
    let (a, b) = match rest.split_once('-') {
        Some((a, b)) => (a, b.strip_prefix('L').unwrap_or(b)),
        None => (rest, rest),
    };
    let start: u32 = a.parse().ok()?;
    let end: u32 = b.parse().ok()?;
    (start >= 1 && end >= start).then_some((start, end))
}

/// Joins a destination to the doc's folder (or the root for `/…`), normalising `.` and
/// `..` lexically. None when it climbs above the root.
pub fn join(doc: &str, dest: &str) -> Option<String> {
    let mut parts: Vec<&str> = Vec::new();
    if !dest.starts_with('/') {
        if let Some((dir, _)) = doc.rsplit_once('/') {
            parts.extend(dir.split('/').filter(|s| !s.is_empty()));
        }
    }
    for seg in dest.split(['/', '\\']) {
        match seg {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            s => parts.push(s),
        }
    }
    Some(parts.join("/"))
}

/// A destination path for `target` written in `doc`: relative to the doc's folder.
pub fn relative_dest(doc: &str, target: &str) -> String {
    let doc_dir: Vec<&str> = match doc.rsplit_once('/') {
        Some((d, _)) => d.split('/').collect(),
        None => Vec::new(),
    };
    let tgt: Vec<&str> = target.split('/').collect();
    let common = doc_dir.iter().zip(&tgt).take_while(|(a, b)| a == b).count();
    let mut out: Vec<String> = std::iter::repeat_n("..".to_string(), doc_dir.len() - common).collect();
    out.extend(tgt[common..].iter().map(|s| s.to_string()));
    let joined = out.join("/");
    encode_path(&joined)
}

/// Percent-encodes what a bare Markdown destination cannot hold.
pub fn encode_path(p: &str) -> String {
    let mut s = String::with_capacity(p.len());
    for c in p.chars() {
        match c {
            ' ' => s.push_str("%20"),
            '(' => s.push_str("%28"),
            ')' => s.push_str("%29"),
            '<' => s.push_str("%3C"),
            '>' => s.push_str("%3E"),
            '#' => s.push_str("%23"),
            _ => s.push(c),
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classifies_destinations() {
        let t = classify("docs/arch.md", "../src/a.ts#A.b").unwrap().unwrap();
        assert!(matches!(t, Target::Symbol { ref path, .. } if path == "src/a.ts"));
        let t = classify("docs/arch.md", "/src/a.ts#L3-L9").unwrap().unwrap();
        assert_eq!(t, Target::Lines { path: "src/a.ts".into(), start: 3, end: 9 });
        let t = classify("docs/arch.md", "Sources/My%20Lib/A.swift#f()").unwrap().unwrap();
        assert_eq!(t.path(), "docs/Sources/My Lib/A.swift");
        assert_eq!(classify("docs/a.md", "../../etc/passwd"), Err(TargetError::Outside));
        assert_eq!(classify("a.md", "https://x.y/z"), Ok(None));
        assert_eq!(classify("a.md", "file:///etc/passwd"), Err(TargetError::Outside));
        assert_eq!(classify("a.md", "#heading"), Ok(None));
        assert!(matches!(classify("a.md", "guide.md#install").unwrap().unwrap(), Target::Doc { slug: Some(_), .. }));
        assert_eq!(relative_dest("docs/arch.md", "src/x y.ts"), "../src/x%20y.ts");
        assert_eq!(relative_dest("README.md", "src/a.ts"), "src/a.ts");
    }
}
