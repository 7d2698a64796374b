//! Every declaration of the workspace ranked as a new target for a symbol anchor: the
//! "Rebind to…" picker, and the candidates of a lost anchor when no body or name match
//! says where it went. The rank is a weighted sum of checkable facts, each named in the
//! candidate's `why`: the name's shared sub-words or spelling (`similarity`), the
//! container's name, the same kind of declaration, nearness to the file the link pointed
//! at, and the link text's words. Weights are fixed here, not fitted: the order only has
//! to put the plausible few first; the picker lets the user choose among all of them.

use super::repo_index::RepoIndex;
use super::session::Session;
use crate::baseline::Baseline;
use crate::model::{Anchor, Candidate};
use crate::target::Target;
use knit_syntax::fragment::{exact_fragment, identity_of_kind};
use knit_syntax::similarity::{name_similarity, name_tokens};
use knit_syntax::{Declaration, Fragment, IdentityKind};

/// What the anchor named, as the ranking compares it.
pub(super) struct Wanted<'a> {
    /// The file the link points at.
    pub path: &'a str,
    pub fragment: &'a Fragment,
    /// The kind of declaration reviewed (from the baseline, else the fragment's `kind:`).
    pub identity: Option<IdentityKind>,
    /// The link's visible text.
    pub link_text: &'a str,
}

const W_NAME: f32 = 0.55;
const W_CONTAINER: f32 = 0.10;
const W_KIND: f32 = 0.15;
const W_NEAR: f32 = 0.10;
const W_TEXT: f32 = 0.10;

/// The `max` best declarations of `repo` for `want` with a similarity of at least
/// `min_percent`, best first (ties: nearer file, then path and line, so the order is
/// deterministic).
pub(super) fn rank(repo: &RepoIndex, want: &Wanted, max: usize, min_percent: u8) -> Vec<Candidate> {
    let old = want.fragment.name.as_str();
    let old_container = container(old);
    // The link text's own words: a text that only repeats the old name says nothing new.
    let old_words = name_tokens(old);
    let text_words: Vec<String> = name_tokens(want.link_text).into_iter().filter(|w| w.len() >= 3 && !old_words.contains(w)).collect();
    let mut scored: Vec<(u8, u8, &str, u32, Candidate)> = Vec::new();
    for (path, syn) in &repo.files {
        let near = nearness(want.path, path);
        for (di, d) in syn.declarations.iter().enumerate() {
            if d.qualified_name == old && path == want.path {
                continue; // what the link names already: not a rebind
            }
            let (name, shared) = name_similarity(old, &d.qualified_name);
            let cont = match (old_container, d.container.as_deref()) {
                (None, None) => 1.0,
                (Some(a), Some(b)) => name_similarity(a, b).0,
                _ => 0.0,
            };
            let same_kind = same_kind(want, d);
            let said = said_in_text(&text_words, d);
            let score = W_NAME * name + W_CONTAINER * cont + W_KIND * f32::from(u8::from(same_kind)) + W_NEAR * near + W_TEXT * said;
            let percent = (score * 100.0).round().clamp(0.0, 100.0) as u8;
            if percent < min_percent {
                continue;
            }
            let mut why = Vec::new();
            if !shared.is_empty() {
                let words: Vec<String> = shared.iter().map(|w| format!("`{w}`")).collect();
                why.push(format!("name shares {}", words.join(", ")));
            } else if name >= 0.5 {
                why.push(format!("name spelled like `{}`", want.fragment.simple_name()));
            }
            if old_container.is_some() && cont >= 0.5 {
                why.push(format!("in `{}`", d.container.as_deref().unwrap_or("")));
            }
            if same_kind {
                why.push(format!("same kind ({})", d.kind));
            }
            if path == want.path {
                why.push("same file".to_string());
            } else if near >= 0.6 {
                why.push("same folder".to_string());
            }
            if said > 0.0 {
                why.push("named in the link text".to_string());
            }
            let c = Candidate {
                path: path.clone(),
                symbol: exact_fragment(&syn, di),
                line: d.name_line,
                kind: d.kind.clone(),
                similarity: Some(percent),
                why: why.join("; "),
            };
            scored.push((percent, (near * 100.0) as u8, path.as_str(), d.name_line, c));
        }
    }
    scored.sort_by(|a, b| b.0.cmp(&a.0).then(b.1.cmp(&a.1)).then(a.2.cmp(b.2)).then(a.3.cmp(&b.3)));
    scored.into_iter().take(max).map(|(.., c)| c).collect()
}

/// The container part of a qualified name (`Cart.total` → `Cart`).
fn container(name: &str) -> Option<&str> {
    let simple = knit_syntax::decl::last_segment(name);
    let cut = name.len() - simple.len();
    (cut > 1).then(|| &name[..cut - 1])
}

fn same_kind(want: &Wanted, d: &Declaration) -> bool {
    match (&want.fragment.kind, want.identity) {
        (Some(k), _) => *k == d.kind,
        (None, Some(i)) => i == d.identity,
        (None, None) => false,
    }
}

/// 1 for the same file, 0.6 for the same folder, less the fewer folders they share.
fn nearness(a: &str, b: &str) -> f32 {
    if a == b {
        return 1.0;
    }
    let da: Vec<&str> = a.split('/').collect();
    let db: Vec<&str> = b.split('/').collect();
    let (fa, fb) = (&da[..da.len() - 1], &db[..db.len() - 1]);
    if fa == fb {
        return 0.6;
    }
    let shared = fa.iter().zip(fb).take_while(|(x, y)| x == y).count();
    0.4 * shared as f32 / fa.len().max(fb.len()).max(1) as f32
}

/// The share of the declaration's simple-name words that the link text says.
fn said_in_text(text_words: &[String], d: &Declaration) -> f32 {
    if text_words.is_empty() {
        return 0.0;
    }
    let words = name_tokens(d.simple_name());
    if words.is_empty() {
        return 0.0;
    }
    let hit = words.iter().filter(|w| w.len() >= 3 && text_words.iter().any(|t| t == *w)).count();
    hit as f32 / words.len() as f32
}

impl Session<'_> {
    /// Every declaration of the workspace ranked as a new target for the symbol anchor
    /// `a`, best first, at most `max` (empty for other anchors, or when the workspace is
    /// larger than the repository-wide search may read).
    pub fn rebind_targets(&mut self, a: &Anchor, max: usize) -> Vec<Candidate> {
        let Ok(Target::Symbol { path, fragment, .. }) = &a.target else { return Vec::new() };
        let identity = match &a.baseline {
            Some(Baseline::Declaration { identity, .. }) => Some(*identity),
            _ => fragment.kind.as_deref().and_then(identity_of_kind),
        };
        let want = Wanted { path, fragment, identity, link_text: &a.link.text };
        let repo = self.repo(&[path]);
        rank(repo, &want, max, 0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearness_prefers_the_same_file_then_folder() {
        assert_eq!(nearness("src/a.ts", "src/a.ts"), 1.0);
        assert_eq!(nearness("src/a.ts", "src/b.ts"), 0.6);
        assert!(nearness("src/x/a.ts", "src/y/b.ts") > nearness("src/x/a.ts", "lib/b.ts"));
        assert_eq!(container("Cart.total"), Some("Cart"));
        assert_eq!(container("total"), None);
    }
}
