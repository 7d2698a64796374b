//! The data a parsed file yields: declarations with identity, position and fingerprints.

use crate::Fingerprint;
use serde::{Deserialize, Serialize};

/// Coarse identity kind. Stage 1–4 matching compares this, never the exact kind, so that
/// `let`→`const` or `function f`→`const f = () =>` is `stale`, not a rename (DESIGN 1.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum IdentityKind {
    Callable,
    Type,
    Value,
    Module,
}

/// Name-independent fingerprint of a declaration's body, for rename/move matching.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BodyPrint {
    pub fingerprint: Fingerprint,
    /// Tokens the body fingerprint covers; below `MIN_BODY_TOKENS` it is never matched.
    pub tokens: u32,
}

/// One declaration of a file.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Declaration {
    /// Exact declaration kind in the language's words (`function`, `method`, `class`,
    /// `get`, `set`, `init`, `extension`, …): the optional `kind:` of a fragment.
    pub kind: String,
    pub identity: IdentityKind,
    /// `Outer.Inner.member`, Swift names with labels (`blend(first:second:)`).
    pub qualified_name: String,
    /// Qualified name of the enclosing declaration, if any.
    pub container: Option<String>,
    /// 1-based inclusive line span of the whole declaration (modifiers, decorators,
    /// `export` and overload signatures included).
    pub start_line: u32,
    pub end_line: u32,
    /// 1-based line and 0-based byte column of the name token (go-to-definition target).
    pub name_line: u32,
    pub name_column: u32,
    pub start_byte: u32,
    pub end_byte: u32,
    /// Fingerprint of every token of the declaration.
    pub fingerprint: Fingerprint,
    /// Name-independent body fingerprint (absent when the declaration has no body).
    pub body: Option<BodyPrint>,
    /// The declaration's region contains a syntax error: its fingerprint is not to be
    /// trusted (the anchor is `unchecked`, reason `parse_error`).
    pub has_error: bool,
    /// For containers: direct members' simple names and fingerprints, so a stale
    /// container can name what changed.
    pub members: Vec<(String, Fingerprint)>,
    /// The header (signature) text with whitespace collapsed, at most 200 chars.
    pub signature: String,
}

impl Declaration {
    /// The last segment of the qualified name.
    pub fn simple_name(&self) -> &str {
        last_segment(&self.qualified_name)
    }

    /// A body that may take part in rename/move matching.
    pub fn matchable_body(&self) -> Option<Fingerprint> {
        self.body
            .filter(|b| b.tokens >= crate::MIN_BODY_TOKENS)
            .map(|b| b.fingerprint)
    }
}

/// Removes Swift argument labels: `Mixer.blend(first:second:)` → `Mixer.blend`.
pub fn strip_labels(qualified: &str) -> String {
    let mut out = String::with_capacity(qualified.len());
    let mut depth = 0;
    for c in qualified.chars() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            _ if depth == 0 => out.push(c),
            _ => {}
        }
    }
    out
}

/// The last `.`-separated segment of a qualified name, ignoring dots inside `( )`.
pub fn last_segment(qualified: &str) -> &str {
    let mut depth = 0i32;
    let mut cut = 0;
    for (i, c) in qualified.char_indices() {
        match c {
            '(' | '<' | '[' => depth += 1,
            ')' | '>' | ']' => depth -= 1,
            '.' if depth == 0 => cut = i + 1,
            _ => {}
        }
    }
    &qualified[cut..]
}

/// What one parse of a file yields.
#[derive(Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileSyntax {
    pub declarations: Vec<Declaration>,
    /// The file has at least one syntax error somewhere.
    pub has_error: bool,
    /// Where declarations were not extracted: each region is the span of a declaration
    /// nested deeper than [`crate::MAX_DECL_DEPTH`] (or named beyond
    /// [`crate::MAX_NAME_BYTES`], or past the file's name budget), which covers every
    /// declaration inside it. An identity not found in a file with such a region may be
    /// in one: the anchor is `unchecked` (reason `too_deep`), never `lost`.
    pub too_deep: Vec<Region>,
    /// The deadline passed before the file was read to its end: `declarations` is empty
    /// and says nothing about the file. Never cache such a result.
    pub timed_out: bool,
    /// The parse stopped at its work or memory bound for a file of this size (a function
    /// of the text, so cached like any result), or at its time cap, over three times what the
    /// slowest real code needs per byte: `declarations` is empty and says nothing about
    /// the file; anchors into it are `unchecked` (reason `too_costly`), never `lost`.
    pub over_budget: bool,
    /// Names a declaration of the file is also exported under (`export { Hono as
    /// HonoBase }`): facts about the file, not declarations — the declaration keeps its
    /// own name and identity, and `#HonoBase` resolves to it ([`FileSyntax::resolve`]).
    pub aliases: Vec<ExportAlias>,
    /// `declarations` by qualified name, built on the first look-up by name (so
    /// `declarations` must not change after one).
    #[serde(skip)]
    pub(crate) names: NameIndex,
}

/// Files with at most this many declarations are scanned by name, not indexed.
pub(crate) const NAME_INDEX_MIN_DECLS: usize = 32;

/// The indices of a file's declarations sorted by qualified name (then by index): a
/// fragment finds its declarations by binary search. A scan of every declaration per
/// look-up made a check of a file anchored everywhere quadratic (zod's 1 000-declaration
/// files, a look-up or three per anchor: most of a warm re-check's time). Not part of a
/// file's value: it compares equal whether built or not.
#[derive(Clone, Debug, Default)]
pub(crate) struct NameIndex(std::sync::OnceLock<Box<[u32]>>);

/// The file's value, as `==` compares it: the name index is left out.
impl std::fmt::Debug for FileSyntax {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FileSyntax")
            .field("declarations", &self.declarations)
            .field("has_error", &self.has_error)
            .field("too_deep", &self.too_deep)
            .field("timed_out", &self.timed_out)
            .field("over_budget", &self.over_budget)
            .field("aliases", &self.aliases)
            .finish()
    }
}

impl PartialEq for NameIndex {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl Eq for NameIndex {}

/// `export { local as alias }` in a file that declares `local`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExportAlias {
    pub alias: String,
    pub local: String,
}

impl FileSyntax {
    /// Indices of the declarations whose qualified name is `name`, in file order. A small
    /// file is scanned (sorting its names costs more than the scans a check makes); a
    /// larger one is searched in its name index.
    pub fn named(&self, name: &str) -> Vec<usize> {
        let decls = &self.declarations;
        if decls.len() <= NAME_INDEX_MIN_DECLS {
            return (0..decls.len()).filter(|&i| decls[i].qualified_name == name).collect();
        }
        let order = self.names.0.get_or_init(|| {
            let mut order: Vec<u32> = (0..decls.len() as u32).collect();
            order.sort_by(|&a, &b| decls[a as usize].qualified_name.cmp(&decls[b as usize].qualified_name).then(a.cmp(&b)));
            order.into_boxed_slice()
        });
        let start = order.partition_point(|&i| decls[i as usize].qualified_name.as_str() < name);
        order[start..].iter().map(|&i| i as usize).take_while(|&i| decls[i].qualified_name == name).collect()
    }

    /// The declaration `fragment` designates: by its own names first, then through an
    /// export alias (`HonoBase.fetch` → `Hono.fetch` when the file exports `Hono as
    /// HonoBase`). An alias never makes a name that already resolves ambiguous.
    pub fn resolve(&self, fragment: &crate::Fragment) -> crate::Resolution {
        let direct = fragment.resolve(self);
        if !matches!(direct, crate::Resolution::NotFound) {
            return direct;
        }
        let (head, rest) = match fragment.name.split_once('.') {
            Some((h, r)) => (h, Some(r)),
            None => (fragment.name.as_str(), None),
        };
        let mut locals = self.aliases.iter().filter(|a| a.alias == head).map(|a| a.local.as_str());
        let (Some(local), None) = (locals.next(), locals.next()) else { return direct };
        let mut through = fragment.clone();
        through.name = match rest {
            Some(r) => format!("{local}.{r}"),
            None => local.to_string(),
        };
        through.resolve(self)
    }
}

/// A byte span of a file, with the 1-based line it starts on (for messages).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Region {
    pub start_byte: u32,
    pub end_byte: u32,
    pub start_line: u32,
}

/// A module specifier a file imports, as written.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Import {
    pub specifier: String,
    /// 1-based line of the import.
    pub line: u32,
}
