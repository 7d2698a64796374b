//! What a workspace path is, decided from the path alone: kind (doc/code/media), role
//! (impl/test/config/design/doc), and whether it is generated noise that is never a candidate.
//!
//! Pure functions of a workspace-relative `/`-separated path, so the rules are testable
//! without a file system and identical for the index, the relations and the CLI.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, PartialOrd, Ord)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    Doc,
    Code,
    Media,
}

impl Kind {
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Doc => "doc",
            Kind::Code => "code",
            Kind::Media => "media",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    Impl,
    Test,
    Config,
    Design,
    Doc,
}

/// Directory names whose whole subtree is generated, vendored or tool state.
pub const NOISE_DIRS: &[&str] = &[
    "node_modules", "bower_components", "dist", "build", "out", "coverage", "target", ".git",
    ".hg", ".svn", ".next", ".nuxt", ".cache", ".turbo", "__pycache__", ".venv", "venv",
    ".gradle", "Pods", "DerivedData", "vendor", ".build", ".swiftpm", ".idea", ".pytest_cache",
    ".mypy_cache", ".tox", "__snapshots__",
];

/// Lock and manifest-lock files, by exact (lowercased) name.
const LOCK_FILES: &[&str] = &[
    "package-lock.json", "npm-shrinkwrap.json", "yarn.lock", "pnpm-lock.yaml", "pnpm-lock.yml",
    "bun.lockb", "bun.lock", "composer.lock", "cargo.lock", "gemfile.lock", "poetry.lock",
    "pipfile.lock", "go.sum", "package.resolved", "flake.lock", "uv.lock",
];

const DOC_EXTENSIONS: &[&str] = &["md", "markdown", "mdx", "rst", "adoc", "txt"];

const CODE_EXTENSIONS: &[&str] = &[
    "ts", "tsx", "mts", "cts", "js", "jsx", "mjs", "cjs", "swift", "rs", "py", "pyi", "go", "kt",
    "kts", "java", "scala", "c", "h", "cc", "cpp", "cxx", "hpp", "hh", "m", "mm", "cs", "fs",
    "rb", "php", "lua", "dart", "ex", "exs", "erl", "hs", "ml", "clj", "r", "jl", "zig", "nim",
    "sh", "bash", "zsh", "fish", "ps1", "sql", "graphql", "proto", "html", "htm", "css", "scss",
    "sass", "less", "vue", "svelte", "json", "jsonc", "yaml", "yml", "toml", "xml", "ini", "cfg",
    "conf", "gradle", "cmake", "tf", "nix",
];

const CODE_FILE_NAMES: &[&str] = &[
    "makefile", "dockerfile", "justfile", "rakefile", "gemfile", "podfile", "cmakelists.txt",
    "procfile", "brewfile", "vagrantfile",
];

const MEDIA_EXTENSIONS: &[&str] = &[
    "png", "jpg", "jpeg", "gif", "webp", "avif", "bmp", "ico", "svg", "tif", "tiff", "heic", "mp4",
    "m4v", "webm", "mov", "ogv", "mp3", "wav", "ogg", "flac", "pdf",
];

/// The last segment of a `/`-separated workspace path.
pub fn file_name(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

/// Lowercased extension, or "" when the name has none.
pub fn extension(path: &str) -> String {
    let name = file_name(path);
    match name.rfind('.') {
        Some(0) | None => String::new(),
        Some(dot) => name[dot + 1..].to_ascii_lowercase(),
    }
}

pub fn is_noise_dir(name: &str) -> bool {
    NOISE_DIRS.contains(&name)
}

/// Generated or lock files that must never be candidates, wherever they sit.
pub fn is_noise_path(path: &str) -> bool {
    if path.split('/').rev().skip(1).any(is_noise_dir) {
        return true;
    }
    let name = file_name(path).to_ascii_lowercase();
    if LOCK_FILES.contains(&name.as_str()) || name.ends_with(".lock") || name.ends_with(".map") {
        return true;
    }
    let script = ["js", "cjs", "mjs", "css", "ts", "tsx", "jsx"];
    let ext = extension(&name);
    if script.contains(&ext.as_str()) {
        let stem = &name[..name.len() - ext.len() - 1];
        let generated_marker = [".min", ".bundle", ".generated", ".gen", ".chunk", ".prod"];
        if generated_marker.iter().any(|m| stem.ends_with(m)) || stem.ends_with("-bundle") {
            return true;
        }
    }
    name.ends_with(".d.ts.map") || name == ".ds_store"
}

/// The kind of a path, or `None` when knit does not index it at all.
pub fn kind_of(path: &str) -> Option<Kind> {
    if is_noise_path(path) {
        return None;
    }
    let name = file_name(path).to_ascii_lowercase();
    if CODE_FILE_NAMES.contains(&name.as_str()) {
        return Some(Kind::Code);
    }
    let ext = extension(path);
    if DOC_EXTENSIONS.contains(&ext.as_str()) {
        Some(Kind::Doc)
    } else if CODE_EXTENSIONS.contains(&ext.as_str()) {
        Some(Kind::Code)
    } else if MEDIA_EXTENSIONS.contains(&ext.as_str()) {
        Some(Kind::Media)
    } else {
        None
    }
}

pub fn is_markdown(path: &str) -> bool {
    matches!(extension(path).as_str(), "md" | "markdown" | "mdx")
}

/// What a test file's name says: the stem of the file it tests (empty for `test_.py`) and
/// whether it checks types (tsd's and vitest's `index.test-d.ts` tests `index.d.ts`).
/// The one list of naming conventions, read by a file's role and by the `tests` relation.
pub struct TestName<'a> {
    pub subject: &'a str,
    pub type_test: bool,
}

/// The [`TestName`] of `path`, `None` when its name follows no test convention.
pub fn test_name(path: &str) -> Option<TestName<'_>> {
    let name = file_name(path);
    let ext = extension(name);
    let stem = if ext.is_empty() { name } else { &name[..name.len() - ext.len() - 1] };
    let without = |suffix: &str| -> Option<&str> {
        let at = stem.len().checked_sub(suffix.len())?;
        (stem.is_char_boundary(at) && stem[at..].eq_ignore_ascii_case(suffix)).then(|| &stem[..at])
    };
    for (suffix, type_test) in [(".test-d", true), (".spec-d", true), (".test", false), (".spec", false), ("_test", false), ("_spec", false)] {
        if let Some(subject) = without(suffix) {
            return Some(TestName { subject, type_test });
        }
    }
    if matches!(ext.as_str(), "swift" | "kt" | "java" | "cs" | "scala") {
        for suffix in ["Tests", "Test", "Spec"] {
            if let Some(subject) = stem.strip_suffix(suffix) {
                // Apple's repositories write `OrderedSet Tests.swift` for `OrderedSet.swift`
                return Some(TestName { subject: subject.trim_end_matches(' '), type_test: false });
            }
        }
    }
    let prefixed = stem.get(..5).is_some_and(|p| p.eq_ignore_ascii_case("test_"));
    prefixed.then(|| TestName { subject: &stem[5..], type_test: false })
}

/// True when the file name follows a test convention (used for role and `tests` relations).
pub fn is_test_file_name(path: &str) -> bool {
    test_name(path).is_some()
}

fn in_test_dir(path: &str) -> bool {
    path.split('/').rev().skip(1).any(is_test_dir_name)
}

/// True for a folder named as tests are kept (`test`, `__tests__`, `e2e`, Swift's `Tests`
/// and `DequeTests`).
pub fn is_test_dir_name(segment: &str) -> bool {
    let s = segment.to_ascii_lowercase();
    matches!(s.as_str(), "test" | "tests" | "spec" | "specs" | "__tests__" | "testing" | "e2e" | "test-d")
        || s.ends_with("tests") && segment.chars().next().is_some_and(|c| c.is_uppercase())
}

/// The role of a file, by ordered path rules (first match wins).
pub fn role_of(path: &str, kind: Kind) -> Role {
    let lower = path.to_ascii_lowercase();
    let name = file_name(&lower);
    if kind != Kind::Media && (is_test_file_name(path) || in_test_dir(path)) {
        return Role::Test;
    }
    let config_names = [
        "package.json", "tsconfig.json", "cargo.toml", "pyproject.toml", "setup.cfg", "go.mod",
        "package.swift", "makefile", "dockerfile", "justfile", "knit.toml", ".editorconfig",
    ];
    let is_config_ext = matches!(extension(name).as_str(), "toml" | "yaml" | "yml" | "ini" | "cfg" | "conf" | "json" | "jsonc");
    if config_names.contains(&name)
        || name.starts_with("tsconfig")
        || name.contains(".config.")
        || lower.starts_with(".github/")
        || (kind == Kind::Code && is_config_ext)
    {
        return Role::Config;
    }
    if kind == Kind::Doc {
        let design_markers = ["design", "architecture", "rfc", "adr", "prd", "sdd", "spec", "proposal", "decision", "设计", "方案", "决策", "架构"];
        let design_dirs = lower.split('/').rev().skip(1).any(|d| matches!(d, "design" | "rfc" | "rfcs" | "adr" | "adrs" | "decisions" | "proposals"));
        if design_dirs || design_markers.iter().any(|m| name.contains(m)) {
            return Role::Design;
        }
        return Role::Doc;
    }
    if kind == Kind::Media {
        return Role::Doc;
    }
    Role::Impl
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn test_names_say_what_they_test() {
        fn subject(p: &str) -> Option<(&str, bool)> {
            test_name(p).map(|t| (t.subject, t.type_test))
        }
        assert_eq!(subject("src/parser.test.ts"), Some(("parser", false)));
        assert_eq!(subject("src/Parser.Spec.tsx"), Some(("Parser", false)));
        assert_eq!(subject("index.test-d.ts"), Some(("index", true)));
        assert_eq!(subject("pkg/lexer_test.go"), Some(("lexer", false)));
        assert_eq!(subject("tests/test_client.py"), Some(("client", false)));
        assert_eq!(subject("Tests/OrderedSet Tests.swift"), Some(("OrderedSet", false)));
        assert_eq!(subject("src/MixerTests.ts"), None, "only JVM, .NET and Swift names end in Tests");
        assert_eq!(subject("test_.py"), Some(("", false)), "a test, of nothing in particular");
        assert_eq!(subject("src/contest.ts"), None);
        assert_eq!(subject("src/é.test.ts"), Some(("é", false)));
        assert!(is_test_file_name("a/b.spec-d.tsx") && !is_test_file_name("a/b.ts"));
    }

    #[test]
    fn noise_is_never_a_kind() {
        for noise in ["node_modules/foo.js", "dist/app.js", "coverage/report.js", "app.min.js", "bundle.generated.js", "app.js.map", "package-lock.json", "a/b/Cargo.lock", "target/debug/x.rs", "web/build/index.html"] {
            assert_eq!(kind_of(noise), None, "{noise}");
        }
    }

    #[test]
    fn kinds_and_roles() {
        assert_eq!(kind_of("docs/arch.md"), Some(Kind::Doc));
        assert_eq!(kind_of("src/a.ts"), Some(Kind::Code));
        assert_eq!(kind_of("docs/shot.png"), Some(Kind::Media));
        assert_eq!(kind_of("bin/blob.bin"), None);
        assert_eq!(role_of("src/a.test.ts", Kind::Code), Role::Test);
        assert_eq!(role_of("tests/test_x.py", Kind::Code), Role::Test);
        assert_eq!(role_of("Tests/MixerTests.swift", Kind::Code), Role::Test);
        assert_eq!(role_of("package.json", Kind::Code), Role::Config);
        assert_eq!(role_of("docs/architecture.md", Kind::Doc), Role::Design);
        assert_eq!(role_of("README.md", Kind::Doc), Role::Doc);
        assert_eq!(role_of("src/lib.rs", Kind::Code), Role::Impl);
    }
}
