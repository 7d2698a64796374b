//! Coverage of public API by the docs (`knit coverage`, issue 14 part 3): the public
//! declarations of the workspace's code files (`knit_syntax::visibility`) and, for each,
//! the doc lines whose anchors designate it now — an anchor counts for the declaration it
//! resolves to (fresh, stale, unrecorded or unchecked at its link, or where a moved or
//! renamed one went), never for one it has lost. Totals per folder and overall.

use super::session::Session;
use super::strip_bom;
use crate::model::{CheckReport, State};
use knit_syntax::fragment::{Fragment, Resolution};
use knit_syntax::visibility::{is_listed_kind, public_flags};
use knit_syntax::Lang;
use serde::Serialize;
use std::collections::{BTreeMap, HashMap};

/// A public declaration and the doc lines that anchor it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct PublicDeclaration {
    pub path: String,
    /// Its qualified name, as an anchor's fragment writes it.
    pub symbol: String,
    pub kind: String,
    /// 1-based line of its name.
    pub line: u32,
    /// `doc:line` of every anchor that designates it, in doc order.
    pub documented_by: Vec<String>,
}

/// Public declarations and documented ones, for a folder or the whole.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct CoverageTally {
    pub public: usize,
    pub documented: usize,
}

impl CoverageTally {
    /// Percentage documented (100 when there is nothing public).
    pub fn percent(&self) -> f64 {
        if self.public == 0 {
            100.0
        } else {
            100.0 * self.documented as f64 / self.public as f64
        }
    }
}

#[derive(Clone, Debug, Default, Serialize)]
pub struct Coverage {
    pub declarations: Vec<PublicDeclaration>,
    /// By folder of the code file (`.` for the root), sorted.
    pub folders: BTreeMap<String, CoverageTally>,
    pub total: CoverageTally,
    /// Code files whose declarations could not be read (too large, binary, past the
    /// budget), with why: their public API is unknown, not undocumented.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub unread: Vec<(String, String)>,
}

impl Session<'_> {
    /// Which declaration each anchor of `report` designates now: `(path, qualified name)`
    /// → the `doc:line`s. An anchor at its link is resolved against the file as it is (so
    /// `Gate.admit` and `Gate.admit(_:)`, a `kind:` prefix or `~N` count alike).
    fn anchored(&mut self, report: &CheckReport) -> HashMap<(String, String), Vec<String>> {
        let mut out: HashMap<(String, String), Vec<String>> = HashMap::new();
        for a in &report.anchors {
            let at = match a.state {
                State::Moved | State::Renamed | State::MovedRenamed => a.detail.now.as_ref().and_then(|n| Some((n.path.clone(), n.symbol.clone()?))),
                State::Fresh | State::Stale | State::Unrecorded | State::Unchecked => a.target.symbol.as_ref().and_then(|s| {
                    let fragment = Fragment::parse(s).ok()?;
                    let syntax = self.declarations(&a.target.path)?;
                    match syntax.resolve(&fragment) {
                        Resolution::Unique(i) => Some((a.target.path.clone(), syntax.declarations[i].qualified_name.clone())),
                        _ => None,
                    }
                }),
                _ => None,
            };
            if let Some(key) = at {
                out.entry(key).or_default().push(format!("{}:{}", a.doc, a.line));
            }
        }
        out
    }

    /// The public declarations of `code_files` (workspace-relative) with the anchors of
    /// `report` that designate them.
    pub fn coverage(&mut self, code_files: &[String], report: &CheckReport) -> Coverage {
        let anchored = self.anchored(report);
        let mut cov = Coverage::default();
        for path in code_files {
            let Some(lang) = Lang::from_path(path) else { continue };
            let (text, syntax) = match self.parsed(path, lang) {
                Ok(p) => p,
                Err(e) => {
                    cov.unread.push((path.clone(), self.read_problem(path, e).message));
                    continue;
                }
            };
            if syntax.over_budget || syntax.timed_out {
                cov.unread.push((path.clone(), "past the parse budget".to_string()));
                continue;
            }
            let flags = public_flags(lang, strip_bom(&text), &syntax);
            let folder = path.rsplit_once('/').map_or(".", |(f, _)| f).to_string();
            for (d, public) in syntax.declarations.iter().zip(flags) {
                if !public || !is_listed_kind(&d.kind) {
                    continue;
                }
                let documented_by = anchored.get(&(path.clone(), d.qualified_name.clone())).cloned().unwrap_or_default();
                let tally = cov.folders.entry(folder.clone()).or_default();
                tally.public += 1;
                cov.total.public += 1;
                if !documented_by.is_empty() {
                    tally.documented += 1;
                    cov.total.documented += 1;
                }
                cov.declarations.push(PublicDeclaration {
                    path: path.clone(),
                    symbol: d.qualified_name.clone(),
                    kind: d.kind.clone(),
                    line: d.name_line,
                    documented_by,
                });
            }
        }
        cov
    }
}
