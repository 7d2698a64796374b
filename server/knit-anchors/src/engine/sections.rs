//! Doc-section anchors (`guide.md#install`): the fingerprint of a heading's section (to
//! the next heading of the same or a higher level), or of the whole doc.

use super::session::{Seen, Session};
use super::{lines_fingerprint, strip_bom};
use crate::baseline::Baseline;
use crate::markdown;
use crate::model::*;
use crate::source::ReadError;
use knit_syntax::Fingerprint;
use std::collections::HashSet;
use std::sync::Arc;

impl Session<'_> {
    pub(super) fn resolve_doc(&mut self, a: &Anchor, path: &str, slug: Option<&str>) -> Verdict {
        let text = match self.read(path) {
            Seen::Text(t) => t,
            Seen::Error(ReadError::Missing) if a.baseline.is_some() => {
                return Verdict::new(State::Lost, "file_missing", format!("{path} no longer exists"))
            }
            other => return self.read_problem(path, other),
        };
        let Some((fp, line)) = doc_section(strip_bom(&text), slug) else {
            let slug = slug.unwrap_or("");
            return if a.baseline.is_some() {
                Verdict::new(State::Lost, "heading_missing", format!("{path} has no section `#{slug}` any more"))
            } else {
                Verdict::new(State::Invalid, "unknown_heading", format!("{path} has no section `#{slug}`"))
            };
        };
        let now = Now {
            path: path.to_string(),
            symbol: slug.map(str::to_string),
            fragment: None,
            kind: Some("doc".into()),
            line,
            end_line: None,
            lines: None,
            signature: None,
            column: 0,
        };
        match a.baseline {
            Some(Baseline::Doc { fingerprint }) if fingerprint == fp => {
                Verdict::new(State::Fresh, "identity_matched", "fresh").with_now(now)
            }
            Some(Baseline::Doc { .. }) => Verdict::new(
                State::Stale,
                "section_changed",
                format!("{}{} changed since this doc was reviewed", path, slug.map(|s| format!("#{s}")).unwrap_or_default()),
            )
            .with_now(now),
            Some(_) => Verdict::new(State::Invalid, "bad_baseline", "this baseline was recorded for another kind of target"),
            None => Verdict::new(State::Unrecorded, "no_baseline", "no baseline recorded yet").with_now(now),
        }
    }
}

/// Fingerprint and 1-based line of a doc section (whole doc when `slug` is None).
pub fn doc_section(text: &str, slug: Option<&str>) -> Option<(Fingerprint, u32)> {
    let lines: Vec<&str> = text.split('\n').collect();
    let (first, last, line) = match slug {
        None => (0, lines.len(), 1),
        Some(s) => {
            let scan = markdown::scan(text);
            let idx = scan.headings.iter().position(|h| h.slug == s)
                .or_else(|| scan.headings.iter().position(|h| h.aliases.iter().any(|a| a == s)))?;
            let h = &scan.headings[idx];
            let end = scan.headings[idx + 1..]
                .iter()
                .find(|n| n.level <= h.level)
                .map(|n| n.line as usize - 1)
                .unwrap_or(lines.len());
            (h.line as usize - 1, end, h.line)
        }
    };
    // Baselines written into the section are bookkeeping, not content (lines_fingerprint
    // drops them): recording the anchors of a paired doc must not make the anchors
    // pointing at it stale.
    let (fp, _) = lines_fingerprint(lines.get(first..last.min(lines.len()))?);
    Some((fp, line))
}

/// The fragments one Markdown page answers to, and the pages it includes.
pub(crate) struct PageFragments {
    /// Heading slugs, explicit ids, site generators' slugs (with GitHub's `-1` suffixes
    /// of repeated headings), HTML `id` / `name` values.
    pub names: HashSet<String>,
    /// Pages pulled in with VitePress's `<!--@include: …-->`, as workspace paths.
    pub includes: Vec<String>,
}

impl PageFragments {
    pub fn of(page: &str, text: &str) -> PageFragments {
        let scan = markdown::scan(text);
        let mut names: HashSet<String> = scan.html_ids.into_iter().collect();
        for h in scan.headings {
            names.insert(h.slug);
            names.extend(h.aliases);
        }
        let includes = markdown::includes(text).iter().filter_map(|inc| crate::target::join(page, inc)).collect();
        PageFragments { names, includes }
    }
}

impl Session<'_> {
    /// What `page` answers to, scanned once per session. None when it cannot be read.
    pub(super) fn page_fragments(&mut self, page: &str) -> Option<Arc<PageFragments>> {
        if let Some(f) = self.fragments.get(page) {
            return Some(f.clone());
        }
        let Seen::Text(t) = self.read(page) else { return None };
        let f = Arc::new(PageFragments::of(page, strip_bom(&t)));
        self.fragments.insert(page.to_string(), f.clone());
        Some(f)
    }
}

#[cfg(test)]
mod tests {
    use crate::baseline::strip_baselines;

    #[test]
    fn baselines_are_not_section_content() {
        assert_eq!(strip_baselines(r#"See [f](a.ts#f "knit:1MHabc_-9") now"#), "See [f](a.ts#f) now");
        assert_eq!(strip_baselines(r#"See [f](a.ts#f "Reviewed knit:1MHabc") now"#), r#"See [f](a.ts#f "Reviewed") now"#);
        assert_eq!(strip_baselines("[r]: a.ts#f 'knit:1x'"), "[r]: a.ts#f");
        assert_eq!(strip_baselines("no tokens here"), "no tokens here");
    }
}
