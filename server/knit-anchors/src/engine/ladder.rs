//! Symbol anchors: the resolution ladder of DESIGN 1.3, read top to bottom.
//!
//! 1. The linked file, the linked name: fresh when the fingerprint matches the baseline,
//!    stale when the body changed (naming the changed members of a container).
//! 2. Same name and identity kind in another file: moved (or moved and changed, when the
//!    name was unique in the workspace at review time).
//! 3. Same body, other name, in the linked file: renamed (the body unique in its file, or
//!    in its container).
//! 4. Same body, other name, elsewhere: moved and renamed (the body unique in the
//!    workspace at review time).
//! 5. Nothing, or several places that could be it: lost, with candidates.
//!
//! A file with syntax errors never makes an anchor `lost` (`unchecked` instead), and a
//! repository-wide search cut short by the budget says `unchecked`, never a guess.

use super::rebind::{self, Wanted};
use super::session::{Seen, Session};
use crate::baseline::{sketch_has, Baseline, WorkspaceFacts};
use crate::model::*;
use crate::source::ReadError;
use crate::target::Target;
use knit_syntax::fragment::{exact_fragment, strip_labels, suggestions};
use knit_syntax::{Declaration, FileSyntax, Fingerprint, Fragment, Lang, Resolution};
use std::sync::Arc;

/// The least similarity (percent) of a lost anchor's ranked candidates.
const MIN_LOST_SIMILARITY: u8 = 50;

/// What a declaration baseline recorded, as the ladder needs it.
struct Recorded {
    fingerprint: Fingerprint,
    body: Option<Fingerprint>,
    body_unique: bool,
    container_unique: bool,
    identity: knit_syntax::IdentityKind,
    workspace: Option<WorkspaceFacts>,
}

impl Session<'_> {
    /// [`resolve_symbol_in`](Self::resolve_symbol_in), with DESIGN 1.3a's guarantee kept
    /// last: an anchor into a file with syntax errors is never `lost` — where the search
    /// found nothing, the error might have hidden it, so it is `unchecked`. A search that
    /// did find the declaration (moved, renamed) stands.
    pub(super) fn resolve_symbol(&mut self, a: &Anchor, path: &str, fragment: &Fragment, lang: Option<Lang>) -> Verdict {
        let mut v = self.resolve_symbol_in(a, path, fragment, lang, false);
        // A baseline of an earlier print scheme is judged by its own rules — but only
        // when the current print does not already match it (most declarations print the
        // same under both), so a check parses a file twice only for those that differ.
        let legacy = matches!(&a.baseline, Some(Baseline::Declaration { scheme, .. }) if lang.is_some_and(|l| knit_syntax::print_scheme_differs(l, *scheme)));
        if legacy && v.state != State::Fresh {
            v = self.resolve_symbol_in(a, path, fragment, lang, true);
        }
        if v.state != State::Lost {
            return v;
        }
        let has_error = lang.is_some_and(|lang| self.parsed(path, lang).is_ok_and(|(_, syn)| syn.has_error));
        if !has_error {
            return v;
        }
        Verdict::new(State::Unchecked, "parse_error", format!("{path} has syntax errors and `{fragment}` was not found in it or elsewhere; not checked until it parses"))
    }

    fn resolve_symbol_in(&mut self, a: &Anchor, path: &str, fragment: &Fragment, lang: Option<Lang>, legacy: bool) -> Verdict {
        let Some(lang) = lang else {
            return Verdict::new(
                State::Invalid,
                "unsupported_language",
                format!("knit cannot read declarations of {path}; anchor it by lines (#L12-L40) instead"),
            );
        };
        let baseline = a.baseline.clone();
        if let Some(b) = &baseline {
            if !matches!(b, Baseline::Declaration { .. }) {
                return Verdict::new(State::Invalid, "bad_baseline", "this baseline was recorded for another kind of target");
            }
        }
        let mut text: Arc<str> = Arc::from("");
        let parsed = if legacy { self.parsed_for(path, lang, baseline.as_ref()) } else { self.parsed(path, lang) };
        let hinted = match parsed {
            Ok((t, syn)) => {
                text = t;
                Some(syn)
            }
            Err(Seen::Error(ReadError::Missing)) if baseline.is_some() => None,
            Err(e) => {
                let mut v = self.read_problem(path, e);
                if v.reason == "unknown_file" {
                    v.candidates = self.similar_files(path);
                }
                return v;
            }
        };
        if let Some(syn) = &hinted {
            if syn.timed_out {
                return Verdict::new(
                    State::Unchecked,
                    "budget",
                    format!("not checked: the check's time budget ran out while reading {path}"),
                );
            }
            match syn.resolve(fragment) {
                Resolution::Unique(i) => {
                    let d = &syn.declarations[i];
                    let now = now_of(path, &syn, i);
                    if d.has_error {
                        return Verdict::new(
                            State::Unchecked,
                            "parse_error",
                            format!("`{}` has a syntax error in {path}; not checked until it parses", d.qualified_name),
                        )
                        .with_now(now);
                    }
                    let Some(Baseline::Declaration { fingerprint, sketch, .. }) = baseline else {
                        return Verdict::new(State::Unrecorded, "no_baseline", "no baseline recorded yet").with_now(now);
                    };
                    if fingerprint == d.fingerprint {
                        return Verdict::new(State::Fresh, "identity_matched", "fresh").with_now(now);
                    }
                    // The baseline is exactly another declaration of the file as it is now:
                    // the link was pointed elsewhere after its review (`#foo` edited to
                    // `#bar`, the old `knit:` title kept). Nobody reviewed the new target.
                    if let Some(other) = other_target(&syn.declarations, fingerprint) {
                        return Verdict::new(
                            State::Unrecorded,
                            "baseline_of_other_target",
                            format!(
                                "the baseline was recorded for `{}`, not `{}`: the link was pointed at another declaration after its review; record it",
                                other.qualified_name, d.qualified_name
                            ),
                        )
                        .with_now(now);
                    }
                    let mut v = Verdict::new(
                        State::Stale,
                        "body_changed",
                        format!("`{}` changed since the doc was reviewed", d.qualified_name),
                    )
                    .with_now(now);
                    if let Some(sk) = sketch {
                        v.members = d
                            .members
                            .iter()
                            .filter(|(n, fp)| !sketch_has(sk, n, fp))
                            .map(|(n, _)| format!("{}.{}", d.qualified_name, n))
                            .collect();
                        if !v.members.is_empty() {
                            v.message = format!(
                                "`{}` changed since the doc was reviewed (members: {})",
                                d.qualified_name,
                                v.members.join(", ")
                            );
                        }
                    }
                    return v;
                }
                Resolution::Ambiguous(list) => {
                    let frags: Vec<String> = list.iter().map(|(_, f)| f.clone()).collect();
                    return Verdict::new(
                        State::Invalid,
                        "ambiguous_fragment",
                        format!("`{fragment}` matches several declarations in {path}; use one of: {}", frags.join(", ")),
                    )
                    .with_candidates(
                        list.iter()
                            .map(|(i, f)| Candidate {
                                kind: syn.declarations[*i].kind.clone(),
                                ..Candidate::new(path, f.clone(), syn.declarations[*i].name_line, "matches the fragment")
                            })
                            .collect(),
                    );
                }
                Resolution::NotFound => {
                    if syn.over_budget {
                        return Verdict::new(
                            State::Unchecked,
                            "too_costly",
                            format!(
                                "`{fragment}` not checked: {path} holds more syntax or nesting per byte than knit parses (its work and memory bound for the file's size)"
                            ),
                        );
                    }
                    // A syntax error can hide a declaration only if its name is still in the
                    // file: a name the text no longer holds anywhere is gone however the file
                    // parses, so where it went is searched for as in a clean file (moved,
                    // renamed); finding nothing is still `unchecked` (see `resolve_symbol`).
                    if syn.has_error && mentions_word(&text, &strip_labels(fragment.simple_name())) {
                        return Verdict::new(
                            State::Unchecked,
                            "parse_error",
                            format!("{path} has syntax errors and `{fragment}` was not found; not checked until it parses"),
                        );
                    }
                    if let Some(r) = syn.too_deep.first() {
                        return Verdict::new(
                            State::Unchecked,
                            "too_deep",
                            format!(
                                "`{fragment}` was not found in {path}, which nests declarations deeper than knit reads ({} levels) or holds more or longer-named declarations than it reads for its size, from line {}; not checked",
                                knit_syntax::MAX_DECL_DEPTH,
                                r.start_line
                            ),
                        );
                    }
                    if baseline.is_none() {
                        let c = suggestions(&fragment.name, &syn.declarations, 5)
                            .into_iter()
                            .map(|i| {
                                let (similar, _) = knit_syntax::similarity::name_similarity(&fragment.name, &syn.declarations[i].qualified_name);
                                Candidate {
                                    kind: syn.declarations[i].kind.clone(),
                                    similarity: Some((similar * 100.0).round() as u8),
                                    ..Candidate::new(path, exact_fragment(&syn, i), syn.declarations[i].name_line, "name spelled alike")
                                }
                            })
                            .collect::<Vec<_>>();
                        let hint = if c.is_empty() {
                            String::new()
                        } else {
                            format!("; did you mean {}?", c.iter().map(|c| format!("`{}`", c.symbol)).collect::<Vec<_>>().join(", "))
                        };
                        return Verdict::new(
                            State::Invalid,
                            "unknown_symbol",
                            format!("no declaration `{fragment}` in {path}{hint}"),
                        )
                        .with_candidates(c);
                    }
                }
            }
        }
        let Some(Baseline::Declaration { fingerprint, body, body_unique, container_unique, identity, workspace, .. }) = baseline else {
            return Verdict::new(State::Invalid, "unknown_file", format!("{path} does not exist"));
        };
        let facts = Recorded { fingerprint, body, body_unique, container_unique, identity, workspace };
        self.ladder(path, fragment, hinted, &facts, &a.link.text)
    }

    /// Stages 2–5 of the ladder.
    fn ladder(&mut self, path: &str, fragment: &Fragment, hinted: Option<Arc<FileSyntax>>, rec: &Recorded, link_text: &str) -> Verdict {
        let Recorded { fingerprint, identity, workspace, .. } = *rec;
        // Stage 3 needs a body that was unique in its file, stage 4 one that was unique
        // in the workspace, when recorded: an identical twin makes a body match a guess.
        let body = rec.body.filter(|_| rec.body_unique);
        let body_elsewhere_trusted = workspace.is_some_and(|w| w.body_unique);
        let namesake_trusted = workspace.is_some_and(|w| w.name_unique);
        let old = fragment.name.clone();
        let repo = self.repo(&[path]);
        if !repo.complete {
            return Verdict::new(
                State::Unchecked,
                "budget",
                format!("`{old}` is not in {path}; the repository-wide search ran out of budget before it could say where it went"),
            );
        }
        // Stage 2: same identity, other file.
        let mut stage2: Vec<(usize, usize)> = Vec::new();
        if let Some(files) = repo.by_simple_name.get(&strip_labels(fragment.simple_name())) {
            for &fi in files {
                let (p, syn) = &repo.files[fi];
                if p == path {
                    continue;
                }
                for di in fragment.designates(&syn) {
                    if syn.declarations[di].identity == identity {
                        stage2.push((fi, di));
                    }
                }
            }
        }
        // Stages 3 and 4: same body, other name.
        let mut stage3: Vec<usize> = Vec::new();
        let mut stage4: Vec<(usize, usize)> = Vec::new();
        if let Some(bfp) = body {
            if let Some(h) = &hinted {
                for (di, d) in h.declarations.iter().enumerate() {
                    if d.matchable_body() == Some(bfp) && d.identity == identity && d.qualified_name != old {
                        stage3.push(di);
                    }
                }
            }
        } else if let (Some(bfp), true, Some(h)) = (rec.body, rec.container_unique, &hinted) {
            // The body had a twin elsewhere in the file but none in its own container:
            // uniqueness is judged within the container (DESIGN 1.3a), so a rename inside
            // it is found, and a twin in another container is never taken for it.
            let container = container_of(&old);
            for (di, d) in h.declarations.iter().enumerate() {
                if d.matchable_body() == Some(bfp) && d.identity == identity && d.qualified_name != old && d.container.as_deref().unwrap_or("") == container {
                    stage3.push(di);
                }
            }
        }
        if let Some(bfp) = rec.body.filter(|_| rec.body_unique && body_elsewhere_trusted) {
            if let Some(list) = repo.by_body.get(&bfp) {
                for &(fi, di) in list {
                    let (p, syn) = &repo.files[fi];
                    let d = &syn.declarations[di];
                    if p != path && d.identity == identity && d.qualified_name != old {
                        stage4.push((fi, di));
                    }
                }
            }
        }
        let cand = |fi: usize, di: usize, why: &str| -> Candidate {
            let (p, syn) = &repo.files[fi];
            let d = &syn.declarations[di];
            Candidate { kind: d.kind.clone(), ..Candidate::new(p.clone(), exact_fragment(&syn, di), d.name_line, why) }
        };
        let now_at = |fi: usize, di: usize| -> Now {
            let (p, syn) = &repo.files[fi];
            now_of(p, &syn, di)
        };
        let exact2: Vec<(usize, usize)> =
            stage2.iter().copied().filter(|&(fi, di)| repo.files[fi].1.declarations[di].fingerprint == fingerprint).collect();
        if exact2.len() == 1 {
            let now = now_at(exact2[0].0, exact2[0].1);
            return Verdict::new(State::Moved, "moved", format!("`{old}` moved to {}", now.path)).with_now(now);
        }
        if exact2.len() > 1 {
            return Verdict::new(
                State::Lost,
                "ambiguous",
                format!("`{old}` now exists unchanged in {} files; pick one to rebind", exact2.len()),
            )
            .with_candidates(exact2.iter().map(|&(f, d)| cand(f, d, "same name, unchanged since review")).collect());
        }
        if let Some(h) = &hinted {
            if stage3.len() == 1 {
                let now = now_of(path, &h, stage3[0]);
                let new = now.symbol.clone().unwrap_or_default();
                return Verdict::new(State::Renamed, "body_matched", format!("`{old}` was renamed to `{new}` in {path}"))
                    .with_now(now);
            }
            if stage3.len() > 1 {
                return Verdict::new(
                    State::Lost,
                    "ambiguous",
                    format!("`{old}` is gone; {} declarations in {path} have its body", stage3.len()),
                )
                .with_candidates(
                    stage3
                        .iter()
                        .map(|&di| Candidate {
                            kind: h.declarations[di].kind.clone(),
                            ..Candidate::new(path, exact_fragment(&h, di), h.declarations[di].name_line, "same body as reviewed, other name")
                        })
                        .collect(),
                );
            }
        }
        match (stage2.len(), stage4.len()) {
            (1, 0) if !namesake_trusted => {
                let c = cand(stage2[0].0, stage2[0].1, "same name, already declared there when reviewed");
                Verdict::new(
                    State::Lost,
                    "ambiguous",
                    format!(
                        "`{old}` is gone from {path}; {} already declared `{}` when the doc was reviewed, so it is not known to be where it went",
                        c.path, c.symbol
                    ),
                )
                .with_candidates(vec![c])
            }
            (1, 0) => {
                let now = now_at(stage2[0].0, stage2[0].1);
                let mut v = Verdict::new(
                    State::Moved,
                    "moved",
                    format!("`{old}` moved to {} and changed since the doc was reviewed", now.path),
                )
                .with_now(now);
                v.changed = true;
                v
            }
            (0, 1) => {
                let now = now_at(stage4[0].0, stage4[0].1);
                let new = now.symbol.clone().unwrap_or_default();
                Verdict::new(State::MovedRenamed, "body_matched", format!("`{old}` was renamed to `{new}` in {}", now.path))
                    .with_now(now)
            }
            (0, 0) => {
                let (reason, what) = if hinted.is_some() {
                    ("declaration_missing", format!("`{old}` is no longer in {path} and was not found elsewhere"))
                } else {
                    ("file_missing", format!("{path} no longer exists and `{old}` was not found elsewhere"))
                };
                // Nothing has its name and body: the declarations most like it, ranked by
                // name, kind and nearness (at least half alike, so an unrelated one that
                // merely shares a word is not offered).
                let want = Wanted { path, fragment, identity: Some(identity), link_text };
                let c = rebind::rank(repo, &want, 3, MIN_LOST_SIMILARITY);
                Verdict::new(State::Lost, reason, what).with_candidates(c)
            }
            _ => {
                let mut c: Vec<Candidate> = stage2.iter().map(|&(f, d)| cand(f, d, "same name, other file")).collect();
                c.extend(stage4.iter().map(|&(f, d)| cand(f, d, "same body as reviewed, other name and file")));
                Verdict::new(
                    State::Lost,
                    "ambiguous",
                    format!("`{old}` is gone from {path}; {} places could be it — pick one to rebind", c.len()),
                )
                .with_candidates(c)
            }
        }
    }

    pub(super) fn similar_files(&self, path: &str) -> Vec<Candidate> {
        let name = path.rsplit('/').next().unwrap_or(path);
        self.tree
            .files()
            .iter()
            .filter(|p| p.rsplit('/').next() == Some(name))
            .take(5)
            .map(|p| Candidate::new(p.clone(), "", 1, "same file name"))
            .collect()
    }
}

/// The container part of a fragment's name, as `Declaration::container` holds it for a
/// declaration (`Invoice.toJson` → `Invoice`; empty at top level).
fn container_of(qualified: &str) -> &str {
    let last = knit_syntax::decl::last_segment(qualified);
    qualified[..qualified.len() - last.len()].trim_end_matches('.')
}

pub(crate) fn now_of(path: &str, syn: &FileSyntax, i: usize) -> Now {
    let d = &syn.declarations[i];
    Now {
        path: path.to_string(),
        symbol: Some(d.qualified_name.clone()),
        fragment: Some(exact_fragment(syn, i)),
        kind: Some(d.kind.clone()),
        line: d.name_line,
        end_line: Some(d.end_line),
        lines: None,
        signature: Some(d.signature.clone()),
        column: d.name_column,
    }
}

/// `word` occurs in `text` as a whole identifier (not inside a longer one).
fn mentions_word(text: &str, word: &str) -> bool {
    if word.is_empty() {
        return true;
    }
    let is_ident = |c: char| c.is_alphanumeric() || c == '_' || c == '$';
    text.match_indices(word).any(|(at, _)| {
        let before = text[..at].chars().next_back();
        let after = text[at + word.len()..].chars().next();
        !before.is_some_and(is_ident) && !after.is_some_and(is_ident)
    })
}

/// The declaration of a file that is exactly a declaration baseline (another target than
/// the one the link names now: the link was pointed elsewhere after its review).
fn other_target(decls: &[Declaration], baseline: Fingerprint) -> Option<&Declaration> {
    decls.iter().find(|o| o.fingerprint == baseline)
}

impl Session<'_> {
    /// Whether `a`'s baseline belongs to another declaration of the linked file (what
    /// the ladder reports as `baseline_of_other_target`), judged from that file alone:
    /// recording asks it of every recorded anchor, so no repository-wide search runs.
    pub(crate) fn baseline_of_other_target(&mut self, a: &Anchor) -> bool {
        let (Ok(Target::Symbol { path, fragment, lang: Some(lang) }), Some(Baseline::Declaration { fingerprint, .. })) = (&a.target, &a.baseline) else {
            return false;
        };
        let Ok((_, syn)) = self.parsed(path, *lang) else { return false };
        match syn.resolve(fragment) {
            Resolution::Unique(i) => {
                let d = &syn.declarations[i];
                !d.has_error && d.fingerprint != *fingerprint && other_target(&syn.declarations, *fingerprint).is_some()
            }
            _ => false,
        }
    }
}

