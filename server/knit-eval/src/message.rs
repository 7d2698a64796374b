//! Commit messages: cleaning a message into a task query, and recognising the messages of
//! commits that are not tasks (releases and version bumps, dependency updates, formatting
//! runs) or whose authors are dependency bots.
//!
//! Pure string functions, no regex engine: the patterns are few and spelled out here so
//! that what is skipped is reviewable in one place.

/// Why a message (or an author) takes a commit out of the sample.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MessageSkip {
    Release,
    Dependencies,
    Formatting,
}

/// Trailer keys that carry people or bookkeeping, never task words.
const TRAILER_KEYS: &[&str] = &[
    "co-authored-by", "signed-off-by", "reviewed-by", "acked-by", "tested-by", "reported-by",
    "suggested-by", "helped-by", "approved-by", "cc", "change-id", "pr-url", "reviewed-on",
    "pull-request", "closes", "fixes", "resolves", "refs", "see-also", "github-issue",
];

/// Authors whose commits are dependency updates.
const BOT_MARKERS: &[&str] = &["dependabot", "renovate", "greenkeeper", "depfu", "pyup-bot", "snyk-bot"];

/// Words of a message that is only about formatting or lint fixes ("Run prettier",
/// "fix lint", "rustfmt"); at least one must be a formatting keyword.
const FORMAT_KEYWORDS: &[&str] = &[
    "format", "formatting", "formatted", "formatter", "reformat", "reformatted", "reformatting",
    "prettier", "prettify", "rustfmt", "fmt", "black", "isort", "lint", "linting", "lints",
    "linter", "eslint", "clippy", "ruff", "flake8", "swiftformat", "swift-format", "whitespace",
    "whitespaces", "indentation", "autoformat", "dprint", "biome",
];
const FORMAT_FILLER: &[&str] = &[
    "fix", "fixes", "fixed", "fixing", "run", "ran", "running", "apply", "applied", "code", "the",
    "with", "and", "all", "files", "file", "source", "sources", "codebase", "errors", "error",
    "warnings", "warning", "issues", "style", "cargo", "npm", "yarn", "pnpm", "to", "of", "on",
    "in", "a", "some", "minor", "more", "again", "new", "latest", "version", "by", "use", "using",
    "update", "updated", "trailing", "remove", "removed", "tests", "test", "project", "repo",
];

fn is_version_token(token: &str) -> bool {
    // `1.2`, `v1.2.3`, `2.0.0-beta.1`, `ignore-0.4.33`, `@scope/pkg@1.2.3`; not `ts5.5`
    let tail = token.rsplit(['-', '@', '/']).next().unwrap_or(token);
    [token, tail].iter().any(|t| {
        let t = t.trim_start_matches(['v', 'V']).trim_end_matches([',', ':', ')', '.']);
        let core = t.split(['-', '+']).next().unwrap_or(t);
        let parts: Vec<&str> = core.split('.').collect();
        parts.len() >= 2 && parts.iter().all(|p| !p.is_empty() && p.chars().all(|c| c.is_ascii_digit()))
    })
}

/// Strips a conventional-commit prefix (`feat(x)!: `, `fix: `) from a subject line.
pub fn strip_conventional_prefix(subject: &str) -> (&str, Option<(String, String)>) {
    let s = subject.trim_start();
    let Some(colon) = s.find(':') else { return (s, None) };
    let head = &s[..colon];
    let rest = &s[colon + 1..];
    if !rest.is_empty() && !rest.starts_with(' ') {
        return (s, None); // `std::fs` or a URL, not a prefix
    }
    let head_trim = head.trim_end_matches('!');
    let (kind, scope) = match head_trim.find('(') {
        Some(open) if head_trim.ends_with(')') => (&head_trim[..open], &head_trim[open + 1..head_trim.len() - 1]),
        Some(_) => return (s, None),
        None => (head_trim, ""),
    };
    let word = !kind.is_empty() && kind.len() <= 12 && kind.chars().all(|c| c.is_ascii_alphabetic());
    if !word {
        return (s, None);
    }
    (rest.trim_start(), Some((kind.to_ascii_lowercase(), scope.to_ascii_lowercase())))
}

fn words(text: &str) -> Vec<String> {
    text.split(|c: char| c.is_whitespace() || matches!(c, ',' | ';' | '`' | '"' | '\'' | '(' | ')' | '[' | ']' | '!' | '?'))
        .map(|w| w.trim_matches(|c: char| c == '.' || c == ':').to_lowercase())
        .filter(|w| !w.is_empty())
        .collect()
}

/// Is this author a dependency bot?
pub fn is_bot_author(name: &str, email: &str) -> bool {
    let both = format!("{} {}", name.to_lowercase(), email.to_lowercase());
    BOT_MARKERS.iter().any(|m| both.contains(m))
}

/// Classifies a raw commit message; `None` means it may be a task.
pub fn classify_message(message: &str) -> Option<MessageSkip> {
    let subject = message.lines().map(str::trim).find(|l| !l.is_empty()).unwrap_or("");
    let lower = subject.to_lowercase();
    let (description, prefix) = strip_conventional_prefix(&lower);
    let description = description.trim();
    let (kind, scope) = prefix.clone().unwrap_or_default();

    // dependency updates
    let dep_scopes = ["deps", "deps-dev", "dependencies", "dev-deps", "dependency"];
    if dep_scopes.contains(&scope.as_str()) || dep_scopes.contains(&kind.as_str()) {
        return Some(MessageSkip::Dependencies);
    }
    let w = words(description);
    let starts = |p: &str| description.starts_with(p);
    // `bump x from 1.2 to 1.3`: the words after `from`/`to` are versions
    let after = |word: &str| w.iter().position(|x| x == word).and_then(|i| w.get(i + 1)).is_some_and(|v| is_version_token(v));
    // … and name a package: "bump to 4.1.2" bumps the project's own version
    let names_package = w.get(1).is_some_and(|x| !matches!(x.as_str(), "to" | "from" | "version" | "the"));
    let bump_from_to = w.first().is_some_and(|f| f == "bump" || f == "update" || f == "upgrade") && names_package && (after("from") || after("to"));
    // "bump version to 2.0" is a release, not a dependency
    let version_bump = description.contains("bump version") || description.contains("version bump") || description.contains("bump the version");
    if !version_bump && bump_from_to
        || ["update dependency", "update dependencies", "upgrade dependencies", "bump dependencies", "update deps", "upgrade deps", "bump deps", "update rust crate", "lock file maintenance", "update lockfile", "update lock file", "cargo update", "npm update", "pin dependencies", "update all dependencies", "update dev dependencies", "update devdependencies"]
            .iter()
            .any(|p| starts(p))
    {
        return Some(MessageSkip::Dependencies);
    }

    // releases and version bumps; `release:` / `fix(release):` may also be work on the
    // release tooling ("release: tweak how sha256sum is invoked"), which is a task
    let has_version = w.iter().any(|x| is_version_token(x));
    if (kind == "release" || scope == "release" || scope == "version") && (has_version || description.is_empty() || kind == "chore") {
        return Some(MessageSkip::Release);
    }
    let word_start = |p: &str| starts(p) && description[p.len()..].chars().next().is_none_or(|c| !c.is_alphanumeric());
    // "Release 3.0" is a release, "Release the lock before awaiting" is not
    let weak = ["release", "releasing", "prepare release", "prepare for release", "publish", "cut release"];
    let strong = ["version packages", "bump version", "bump the version", "version bump", "new version"];
    if weak.iter().any(|p| word_start(p) && (description[p.len()..].trim().is_empty() || has_version))
        || strong.iter().any(|p| word_start(p))
        || description.contains("bump version")
        || description.contains("version bump")
        || (w.first().is_some_and(|f| f == "bump" || f == "bumped") && w.iter().any(|x| is_version_token(x)) && w.len() <= 5)
    {
        return Some(MessageSkip::Release);
    }
    // a subject that is only a version, or a name and a version: `1.2.3`, `ignore-0.4.33`,
    // `ky 0.23.0`, `Version 0.26.0 (#3009)` (references aside)
    let plain: Vec<&String> = w.iter().filter(|x| !x.starts_with('#')).collect();
    if !plain.is_empty() && plain.len() <= 2 && plain.iter().any(|x| is_version_token(x)) {
        return Some(MessageSkip::Release);
    }

    // formatting-only messages
    if kind == "style" {
        return Some(MessageSkip::Formatting);
    }
    let content: Vec<&String> = w.iter().filter(|x| !x.starts_with('#')).collect();
    if !content.is_empty()
        && content.iter().any(|x| FORMAT_KEYWORDS.contains(&x.as_str()))
        && content.iter().all(|x| FORMAT_KEYWORDS.contains(&x.as_str()) || FORMAT_FILLER.contains(&x.as_str()))
    {
        return Some(MessageSkip::Formatting);
    }
    None
}

fn is_trailer(line: &str) -> bool {
    let Some(colon) = line.find(':') else { return false };
    let key = line[..colon].trim().to_ascii_lowercase();
    !key.is_empty() && !key.contains(' ') && (TRAILER_KEYS.contains(&key.as_str()) || key.ends_with("-by"))
}

fn is_merge_boilerplate(line: &str) -> bool {
    let l = line.trim_start().to_ascii_lowercase();
    ["merge pull request", "merge branch", "merge remote-tracking branch", "merged in ", "see merge request", "merge tag"].iter().any(|p| l.starts_with(p))
}

/// Removes URLs, issue and PR references (`#123`, `(#123)`, `GH-123`, `org/repo#123`).
fn strip_refs(line: &str) -> String {
    let mut out: Vec<String> = Vec::new();
    for token in line.split_whitespace() {
        let lower = token.to_ascii_lowercase();
        if lower.starts_with("http://") || lower.starts_with("https://") || lower.starts_with("www.") || lower.starts_with("(http") || lower.starts_with("<http") {
            continue;
        }
        let bare = token.trim_matches(|c: char| matches!(c, '(' | ')' | ',' | '.' | ';' | ':' | '[' | ']'));
        let is_ref = |s: &str| {
            let s = s.rsplit_once('#').map(|(repo, n)| if repo.is_empty() || repo.contains('/') || repo.eq_ignore_ascii_case("gh") { n } else { "x" }).unwrap_or_else(|| {
                let l = s.to_ascii_lowercase();
                if l.starts_with("gh-") {
                    &s[3..]
                } else {
                    "x"
                }
            });
            !s.is_empty() && s.chars().all(|c| c.is_ascii_digit())
        };
        if !bare.is_empty() && bare.split(',').filter(|p| !p.is_empty()).all(is_ref) {
            continue;
        }
        if matches!(token, "[skip ci]" | "[ci skip]") {
            continue;
        }
        out.push(token.to_string());
    }
    let joined = out.join(" ");
    joined.replace("[skip ci]", "").replace("[ci skip]", "").replace("()", "").trim().to_string()
}

/// The task query a commit message stands for: conventional prefix, references, URLs,
/// trailers and merge boilerplate removed; remaining lines kept in order.
pub fn clean_message(message: &str) -> String {
    let mut lines: Vec<String> = Vec::new();
    let mut first = true;
    for raw in message.lines() {
        let line = raw.trim();
        if line.is_empty() || is_trailer(line) || is_merge_boilerplate(line) {
            continue;
        }
        if line.chars().all(|c| matches!(c, '-' | '=' | '*' | '_' | ' ')) {
            continue; // separators of squash-merge bodies
        }
        let text = if first { strip_conventional_prefix(line).0.to_string() } else { line.to_string() };
        first = false;
        // gitmoji shortcodes (`:sparkles:`) say nothing about the code
        let text: String = text.split_whitespace().filter(|t| !(t.len() > 2 && t.starts_with(':') && t.ends_with(':') && t[1..t.len() - 1].chars().all(|c| c.is_ascii_lowercase() || c == '_'))).collect::<Vec<_>>().join(" ");
        let text = strip_refs(&text);
        let text = text.trim_start_matches(['*', '-', ' ']).trim().to_string();
        if text.chars().any(|c| c.is_alphanumeric()) {
            lines.push(text);
        }
    }
    lines.join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cleaning_strips_prefix_refs_urls_trailers_and_merge_lines() {
        let message = "feat(parser)!: support `parseAsync` in unions (#1234)\n\nSee https://github.com/x/y/issues/9 and #77 for context.\nFixes GH-12\n\nMerge branch 'main' into feature\nCo-authored-by: A Person <a@example.com>\nSigned-off-by: B <b@example.com>\n";
        assert_eq!(clean_message(message), "support `parseAsync` in unions\nSee and for context.\nFixes");
        assert_eq!(clean_message("fix: handle `std::fs` errors"), "handle `std::fs` errors");
        assert_eq!(clean_message("Fix colinhacks/zod#42 regression [skip ci]"), "Fix regression");
        assert_eq!(clean_message(":bug: fix retry with timeout"), "fix retry with timeout");
        assert_eq!(clean_message("Merge pull request #5 from a/b\n\nAdd retries"), "Add retries");
        assert_eq!(clean_message("Co-authored-by: x <x@y>"), "");
    }

    #[test]
    fn conventional_prefix_only_when_it_is_one() {
        assert_eq!(strip_conventional_prefix("fix(core): a").0, "a");
        assert_eq!(strip_conventional_prefix("chore!: b").0, "b");
        assert_eq!(strip_conventional_prefix("std::fs is slow").0, "std::fs is slow");
        assert_eq!(strip_conventional_prefix("Note: the parser").0, "the parser");
        assert_eq!(strip_conventional_prefix("see http://x").0, "see http://x");
    }

    #[test]
    fn release_messages_are_recognised() {
        for m in ["v1.2.3", "1.0.0", "ignore-0.4.33", "ky 0.23.0", "Release 3.0", "release: v2.1.0", "chore(release): 1.4.0", "chore(release): prepare", "Bump version to 2.0", "chore: bump version", "Version Packages", "Publish", "Prepare release 0.3", "bump to 4.1.2", "Version 0.26.0 (#3009)", "Publish zod@4.1.9", "changelog: 12.1.1"] {
            assert_eq!(classify_message(m), Some(MessageSkip::Release), "{m}");
        }
        for m in ["Release the lock before awaiting", "fix version check in parser", "support Python 3.12 in tests", "Releases: keep memory bounded when reading", "release: tweak how sha256sum is invoked", "fix(release): keep JSR manifest publishable", "Restore ts5.5 dependency"] {
            assert_ne!(classify_message(m), Some(MessageSkip::Release), "{m}");
        }
    }

    #[test]
    fn dependency_messages_and_bots_are_recognised() {
        for m in ["chore(deps): update typescript", "build(deps-dev): bump eslint from 8.1.0 to 8.2.0", "deps: update tokio", "Bump serde from 1.0.1 to 1.0.2", "Update dependency prettier to v3", "Update Rust crate regex to 1.10"] {
            assert_eq!(classify_message(m), Some(MessageSkip::Dependencies), "{m}");
        }
        assert_eq!(classify_message("update docs from the wiki to the readme"), None);
        assert!(is_bot_author("dependabot[bot]", "49699333+dependabot[bot]@users.noreply.github.com"));
        assert!(is_bot_author("Renovate Bot", "bot@renovateapp.com"));
        assert!(!is_bot_author("Sindre Sorhus", "sindresorhus@gmail.com"));
    }

    #[test]
    fn formatting_messages_are_recognised() {
        for m in ["Run prettier", "style: reorder imports", "rustfmt", "cargo fmt", "fix lint", "Format code with black", "chore: fix linting errors", "Fix clippy warnings (#12)"] {
            assert_eq!(classify_message(m), Some(MessageSkip::Formatting), "{m}");
        }
        for m in ["Fix lint rule crashing on empty files", "format dates in the log output", "Add retry option"] {
            assert_eq!(classify_message(m), None, "{m}");
        }
    }
}
