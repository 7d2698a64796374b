//! Text edits on docs: recording, confirming and rebinding are plain edits of the link
//! (undoable in the editor, auditable in `git log -p`). Every function here returns
//! byte-range replacements; nothing writes files.

use crate::baseline::{Baseline, TITLE_PREFIX};
use crate::engine::{scan_doc, Session};
use crate::markdown::{LinkForm, Mention};
use crate::model::{Anchor, Now, State, Verdict};
use crate::target::{relative_dest, Target};
use std::ops::Range;

/// Replace `range` (bytes of the doc) with `new_text`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TextEdit {
    pub range: Range<usize>,
    pub new_text: String,
}

/// Applies non-overlapping edits (any order).
pub fn apply_edits(src: &str, edits: &[TextEdit]) -> String {
    let mut sorted: Vec<&TextEdit> = edits.iter().collect();
    sorted.sort_by_key(|e| std::cmp::Reverse(e.range.start));
    let mut out = src.to_string();
    let mut floor = usize::MAX;
    for e in sorted {
        if e.range.end > floor || e.range.end > out.len() || e.range.start > e.range.end {
            continue; // overlapping or out of range: skipped, never corrupting text
        }
        out.replace_range(e.range.clone(), &e.new_text);
        floor = e.range.start;
    }
    out
}

/// Writes `baseline` into the anchor's title (replacing an existing `knit:` token,
/// keeping every other title word).
pub fn set_baseline(a: &Anchor, baseline: &Baseline) -> TextEdit {
    let token = format!("{TITLE_PREFIX}{}", baseline.encode());
    match (&a.link.title, &a.link.title_span) {
        (Some(title), Some(span)) => {
            let mut words: Vec<String> = Vec::new();
            let mut replaced = false;
            for w in title.split(' ') {
                if w.starts_with(TITLE_PREFIX) && !replaced {
                    words.push(token.clone());
                    replaced = true;
                } else if !w.starts_with(TITLE_PREFIX) {
                    words.push(w.to_string());
                }
            }
            if !replaced {
                if title.trim().is_empty() {
                    words = vec![token.clone()];
                } else {
                    words.push(token.clone());
                }
            }
            TextEdit { range: span.clone(), new_text: words.join(" ") }
        }
        _ => TextEdit { range: a.link.dest_span.end..a.link.dest_span.end, new_text: format!(" \"{token}\"") },
    }
}

/// Rewrites the destination (path + fragment) and the baseline in one edit.
pub fn rebind(a: &Anchor, new_dest: &str, baseline: Option<&Baseline>) -> Vec<TextEdit> {
    let dest_text = if a.link.dest_span.start < a.link.dest_span.end && new_dest.contains(' ') {
        format!("<{new_dest}>")
    } else {
        new_dest.to_string()
    };
    let mut edits = vec![TextEdit { range: a.link.dest_span.clone(), new_text: dest_text }];
    if let Some(b) = baseline {
        edits.push(set_baseline(a, b));
    }
    edits
}

/// Removes the anchor, keeping the link text (inline links). A reference definition
/// loses its fragment and baseline and becomes an ordinary link.
pub fn remove_anchor(a: &Anchor, src: &str) -> Vec<TextEdit> {
    match a.link.form {
        LinkForm::Inline => vec![TextEdit { range: a.link.span.clone(), new_text: src[a.link.text_span.clone()].to_string() }],
        LinkForm::Reference => {
            let path = a.link.dest_raw.split('#').next().unwrap_or("").to_string();
            let mut edits = vec![TextEdit { range: a.link.dest_span.clone(), new_text: path }];
            if let (Some(title), Some(span)) = (&a.link.title, &a.link.title_span) {
                let kept: Vec<&str> = title.split(' ').filter(|w| !w.starts_with(TITLE_PREFIX)).collect();
                edits.push(TextEdit { range: span.clone(), new_text: kept.join(" ") });
            }
            edits
        }
    }
}

/// The destination a rebind to `now` writes, relative to the anchor's doc.
pub fn dest_for(a: &Anchor, now: &Now) -> String {
    let path = relative_dest(&a.doc, &now.path);
    let absolute = a.link.dest_raw.starts_with('/');
    let path = if absolute { format!("/{}", now.path) } else { path };
    if let Some([s, e]) = now.lines {
        return if s == e { format!("{path}#L{s}") } else { format!("{path}#L{s}-L{e}") };
    }
    match &now.fragment {
        Some(f) => format!("{path}#{f}"),
        None => path,
    }
}

/// Records baselines into unrecorded anchors (never touching reviewed ones: a recorded
/// baseline is replaced only when it belongs to another target, the link having been
/// pointed elsewhere since). Returns the edits and the anchors that could not be
/// recorded with why.
pub fn record(session: &mut Session, doc: &str, src: &str, include_docs: bool) -> (Vec<TextEdit>, Vec<(Anchor, Verdict)>) {
    let scanned = scan_doc(doc, src);
    let mut edits = Vec::new();
    let mut failed = Vec::new();
    let mut anchors = scanned.anchors;
    if include_docs {
        for l in scanned.links {
            if l.path.ends_with(".md") || l.path.ends_with(".markdown") {
                if let Ok(Some(t)) = crate::target::classify(doc, &l.link.dest_raw) {
                    anchors.push(Anchor { id: l.id, doc: l.doc, link: l.link, target: Ok(t), baseline_raw: None, baseline: None });
                }
            }
        }
    }
    for a in anchors {
        if a.baseline_raw.is_some() && !session.baseline_of_other_target(&a) {
            continue;
        }
        match session.baseline_now(&a) {
            Ok((b, _)) => edits.push(set_baseline(&a, &b)),
            Err(v) => failed.push((a, v)),
        }
    }
    (edits, failed)
}

/// What [`confirm`] did on one line: the edits, how many anchors they confirm (a moved
/// anchor takes two edits: its destination and its baseline), and the anchors refused.
pub struct Confirmed {
    pub edits: Vec<TextEdit>,
    pub anchors: usize,
    pub failed: Vec<(Anchor, Verdict)>,
}

/// Explicit review of the anchors on `line`: re-baselines what each resolves to now,
/// following moves and renames (the destination is rewritten too). Refuses lost,
/// invalid and unchecked anchors with the reason.
pub fn confirm(session: &mut Session, doc: &str, src: &str, line: u32) -> Confirmed {
    let scanned = scan_doc(doc, src);
    let mut out = Confirmed { edits: Vec::new(), anchors: 0, failed: Vec::new() };
    for a in scanned.anchors.into_iter().filter(|a| a.line() == line) {
        let (e, f) = confirm_anchor(session, &a);
        if !e.is_empty() {
            out.anchors += 1;
        }
        out.edits.extend(e);
        if let Some(v) = f {
            out.failed.push((a, v));
        }
    }
    out
}

/// Confirm one anchor (see [`confirm`]).
pub fn confirm_anchor(session: &mut Session, a: &Anchor) -> (Vec<TextEdit>, Option<Verdict>) {
    let v = session.resolve(a);
    match v.state {
        State::Fresh | State::Stale | State::Unrecorded => match session.baseline_now(a) {
            Ok((b, _)) => (vec![set_baseline(a, &b)], None),
            Err(v) => (Vec::new(), Some(v)),
        },
        State::Moved | State::Renamed | State::MovedRenamed => {
            let Some(now) = v.now.clone() else { return (Vec::new(), Some(v)) };
            rebind_to(session, a, &now).map_or_else(|v| (Vec::new(), Some(v)), |e| (e, None))
        }
        _ => (Vec::new(), Some(v)),
    }
}

/// Rebinds `a` to `now` (a moved/renamed target or a candidate), baseline re-recorded
/// from what the new destination resolves to.
pub fn rebind_to(session: &mut Session, a: &Anchor, now: &Now) -> Result<Vec<TextEdit>, Verdict> {
    let dest = dest_for(a, now);
    let target = crate::target::classify(&a.doc, &dest)
        .ok()
        .flatten()
        .ok_or_else(|| Verdict::new(State::Invalid, "bad_rebind", "the new destination is not a workspace target"))?;
    let probe = Anchor { target: Ok(target), baseline: None, baseline_raw: None, ..a.clone() };
    let (b, _) = session.baseline_now(&probe)?;
    let mut edits = rebind(a, &dest, Some(&b));
    edits.extend(renamed_link_text(a, now));
    Ok(edits)
}

/// A link whose text is exactly the old name (`` [`Cart.total`](…) ``, `[total](…)`,
/// `` `total()` ``) would name what no longer exists after a rename: its text follows the
/// new name, in the same form. Any other text is prose and is kept.
fn renamed_link_text(a: &Anchor, now: &Now) -> Option<TextEdit> {
    let Ok(Target::Symbol { fragment, .. }) = &a.target else { return None };
    let new_full = knit_syntax::fragment::strip_labels(now.symbol.as_deref()?);
    let old_full = knit_syntax::fragment::strip_labels(&fragment.name);
    let last = |s: &str| s.rsplit('.').next().unwrap_or(s).to_string();
    let text = a.link.text.as_str();
    let (inner, tick) = match text.strip_prefix('`').and_then(|t| t.strip_suffix('`')) {
        Some(t) => (t, "`"),
        None => (text, ""),
    };
    let (bare, call) = match inner.strip_suffix("()") {
        Some(b) => (b, "()"),
        None => (inner, ""),
    };
    let renamed = if bare == fragment.name || bare == old_full {
        new_full.clone()
    } else if bare == last(&old_full) {
        last(&new_full)
    } else {
        return None;
    };
    if renamed == bare || a.link.text_span.is_empty() {
        return None;
    }
    Some(TextEdit { range: a.link.text_span.clone(), new_text: format!("{tick}{renamed}{call}{tick}") })
}

/// Converts a `path:12-40` mention into an anchor link (recorded), keeping the code
/// span as the link text.
pub fn convert_mention(session: &mut Session, doc: &str, src: &str, m: &Mention) -> Option<TextEdit> {
    let report = crate::engine::mention_suggestion(session, doc, m)?;
    let target = crate::target::classify(doc, &report.suggestion).ok().flatten()?;
    let code = src.get(m.span.clone())?.to_string();
    let link = crate::markdown::DocLink {
        form: LinkForm::Inline,
        line: m.line,
        ordinal: 1,
        span: 0..0,
        text: code.clone(),
        text_span: 0..0,
        dest_raw: report.suggestion.clone(),
        dest_span: 0..0,
        title: None,
        title_span: None,
    };
    let probe = Anchor { id: String::new(), doc: doc.to_string(), link, target: Ok(target), baseline_raw: None, baseline: None };
    let title = match session.baseline_now(&probe) {
        Ok((b, _)) => format!(" \"{TITLE_PREFIX}{}\"", b.encode()),
        Err(_) => String::new(),
    };
    Some(TextEdit { range: m.span.clone(), new_text: format!("[{code}]({}{title})", report.suggestion) })
}

/// The edit that turns a suggested code mention (`Session::suggest`) into an anchor
/// link, its baseline recorded (`` `Router.add` `` → `` [`Router.add`](../src/router.ts#Router.add "knit:…") ``);
/// a file link carries no baseline. None for an ambiguous mention, or a target that no
/// longer resolves.
pub fn convert_suggestion(session: &mut Session, src: &str, s: &crate::engine::Suggestion) -> Option<TextEdit> {
    let dest = s.dest.as_ref()?;
    let code = src.get(s.span.clone())?.to_string();
    let target = crate::target::classify(&s.doc, dest).ok().flatten()?;
    let link = crate::markdown::DocLink {
        form: LinkForm::Inline,
        line: s.line,
        ordinal: 1,
        span: 0..0,
        text: code.clone(),
        text_span: 0..0,
        dest_raw: dest.clone(),
        dest_span: 0..0,
        title: None,
        title_span: None,
    };
    let probe = Anchor { id: String::new(), doc: s.doc.clone(), link, target: Ok(target), baseline_raw: None, baseline: None };
    let title = match session.baseline_now(&probe) {
        Ok((b, _)) => format!(" \"{TITLE_PREFIX}{}\"", b.encode()),
        Err(_) if s.kind == "file" => String::new(),
        Err(_) => return None,
    };
    Some(TextEdit { range: s.span.clone(), new_text: format!("[{code}]({dest}{title})") })
}

/// For a moved line range: the new numbers with a baseline of the same content.
pub fn update_lines(session: &mut Session, a: &Anchor) -> Option<Vec<TextEdit>> {
    if !matches!(a.target, Ok(Target::Lines { .. })) {
        return None;
    }
    let v = session.resolve(a);
    if v.state != State::Moved {
        return None;
    }
    rebind_to(session, a, v.now.as_ref()?).ok()
}
