//! Target `markdown`: everything knit reads out of one Markdown doc, on arbitrary text.
//!
//! Runs the anchor engine's scan (`knit_anchors::markdown::scan`), what the engine does per
//! doc (`scan_doc`: link classification with `target::classify`, baselines in titles,
//! mentions, headings, doc sections), the link-removal edit, and the context engine's
//! Markdown helpers (`doc_head`, `link_refs` over the scan, `strip_inline_markup`).
//!
//! Properties: no panic; every span the scan reports slices the doc on character
//! boundaries (edits are made from these spans); a classified destination never leaves the
//! workspace (no `..`, `.` or empty segment, no leading `/`); every heading's own slug
//! finds its section; the context helpers stay within their documented bounds.

use crate::common::slices;
use knit_anchors::markdown::{scan, LineIndex};
use knit_anchors::{baseline, edit, engine, target};

/// The doc's workspace path: in a folder, so `..` has one level to climb.
const DOC: &str = "docs/guide.md";

pub fn run(data: &[u8]) {
    let src = String::from_utf8_lossy(data);
    let src: &str = &src;
    let lines = LineIndex::new(src);
    let found = scan(src);
    for l in &found.links {
        assert!(slices(src, &l.span), "link span {:?} does not slice the doc", l.span);
        assert!(slices(src, &l.dest_span), "dest span {:?} does not slice the doc", l.dest_span);
        assert!(slices(src, &l.text_span), "text span {:?} does not slice the doc", l.text_span);
        assert!(l.span.start <= l.dest_span.start && l.dest_span.end <= l.span.end, "dest outside its link: {l:?}");
        if let Some(t) = &l.title_span {
            assert!(slices(src, t) && l.span.start <= t.start && t.end <= l.span.end, "title span outside its link: {l:?}");
        }
        assert_eq!(l.line, lines.line_of(l.span.start));
        if let Ok(Some(t)) = target::classify(DOC, &l.dest_raw) {
            assert_confined(t.path(), &l.dest_raw);
        }
        if let Some(token) = l.title.as_deref().and_then(baseline::baseline_in_title) {
            let _ = knit_anchors::Baseline::decode(token);
        }
    }
    for m in &found.mentions {
        assert!(slices(src, &m.span), "mention span {:?} does not slice the doc", m.span);
        assert!(1 <= m.start && m.start <= m.end, "mention range {}-{}", m.start, m.end);
    }
    for h in &found.headings {
        assert!(h.start <= src.len() && src.is_char_boundary(h.start) && h.line >= 1 && (1..=6).contains(&h.level));
        // A doc anchor to this very section must find it (else `broken link` on a heading
        // that exists).
        assert!(engine::doc_section(src, Some(&h.slug)).is_some(), "the section of heading {h:?} is not found");
    }
    assert!(engine::doc_section(src, None).is_some());

    let doc = engine::scan_doc(DOC, src);
    let mut ids: Vec<&str> = doc.anchors.iter().map(|a| a.id.as_str()).chain(doc.links.iter().map(|l| l.id.as_str())).collect();
    let n = ids.len();
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(ids.len(), n, "two links of the doc share an id");
    for a in &doc.anchors {
        if let Ok(t) = &a.target {
            assert_confined(t.path(), &a.link.dest_raw);
        }
        let removed = edit::apply_edits(src, &edit::remove_anchor(a, src));
        assert!(removed.len() <= src.len());
    }
    for line in src.split('\n') {
        assert!(baseline::strip_baselines(line).len() <= line.len());
        assert!(knit_context::markdown::strip_inline_markup(line).chars().count() <= line.chars().count());
    }

    let head = knit_context::markdown::doc_head(src, "stem");
    assert!(!head.title.is_empty());
    assert!(head.summary.chars().count() <= 160);
    assert!(head.head_end_line as usize <= src.lines().count());
    assert!(found.pointers.windows(2).all(|w| w[0].start <= w[1].start), "pointers out of source order");
    assert!(found.pointers.iter().all(|p| p.start <= src.len() && src.is_char_boundary(p.start) && p.line == lines.line_of(p.start)));
    let links = knit_context::markdown::link_refs(&found);
    assert!(links.len() <= 2000);
    assert!(links.windows(2).all(|w| w[0].line <= w[1].line) && links.iter().all(|l| l.line >= 1));
}

/// A workspace-relative path the engine may read: no segment that climbs or is empty.
fn assert_confined(path: &str, dest: &str) {
    assert!(
        !path.starts_with('/') && path.split('/').all(|s| !s.is_empty() && s != "." && s != ".."),
        "{dest:?} classified to {path:?}, which is not a confined workspace path"
    );
}
