//! The `knit/contextPack` wire shapes (DESIGN 4.4), shared verbatim by the LSP request and
//! `knit pack --format json`. Field names here are the contract; change them only with it.

use serde::{Deserialize, Serialize};

use crate::classify::{Kind, Role};

/// `query`: one string, or a conversation (oldest first).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum QueryParam {
    Text(String),
    Conversation(Vec<String>),
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Position {
    pub line: u32,
    #[serde(default)]
    pub character: u32,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Focus {
    pub uri: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub position: Option<Position>,
}

/// Request params: `{ query?, focus?, kinds?, limit? }`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PackParams {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub query: Option<QueryParam>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub focus: Option<Focus>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kinds: Option<Vec<Kind>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<usize>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TaskInfo {
    /// `query`, `conversation`, `openBuffers`, or `none`.
    pub source: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    pub terms: Vec<String>,
    #[serde(rename = "openBuffers")]
    pub open_buffers: Vec<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TierChange {
    pub path: String,
    pub from: String,
    pub to: String,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Delta {
    pub entered: Vec<String>,
    pub left: Vec<String>,
    #[serde(rename = "changedTier")]
    pub changed_tier: Vec<TierChange>,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Stats {
    /// Indexed files of the requested kinds (noise, binary, huge and non-UTF-8 never count).
    pub collected: usize,
    /// Files removed by the user's exclude list before retrieval.
    pub excluded: usize,
    /// Files the task matched (retrieval hits), open buffers not included.
    pub candidates: usize,
    /// Relation facts attached to the items of this pack.
    pub relations: usize,
    pub pinned: usize,
    /// Items in primary + supporting + related.
    pub packed: usize,
    /// Matching or related files that found no place in the tiers nor in `more`.
    pub truncated: usize,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Provenance {
    Retrieval,
    Relation,
    Manual,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RelationType {
    References,
    Documents,
    Imports,
    Tests,
    /// Changed together in git history (`changedWith: src/x.ts in 14 of 20 commits`).
    #[serde(rename = "changedWith")]
    ChangedWith,
    /// Uses identifiers the other file declares.
    Uses,
    /// Declares identifiers the other file uses.
    #[serde(rename = "usedBy")]
    UsedBy,
}

impl RelationType {
    pub fn as_str(self) -> &'static str {
        match self {
            RelationType::References => "references",
            RelationType::Documents => "documents",
            RelationType::Imports => "imports",
            RelationType::Tests => "tests",
            RelationType::ChangedWith => "changedWith",
            RelationType::Uses => "uses",
            RelationType::UsedBy => "usedBy",
        }
    }
}

/// One relation fact of an item. `dir: "in"` means `other` points at this item
/// (`other` references / documents / imports / tests this item); `line` is in the file
/// that holds the mention.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RelationFact {
    #[serde(rename = "type")]
    pub kind: RelationType,
    pub dir: String,
    pub other: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
    /// The anchored declaration for exact `path#Symbol` anchors.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub symbol: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PassageOut {
    #[serde(rename = "startLine")]
    pub start_line: u32,
    #[serde(rename = "endLine")]
    pub end_line: u32,
    pub text: String,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct AnchorCounts {
    pub total: u32,
    pub stale: u32,
    pub lost: u32,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Lifecycle {
    Unread,
    Read,
    UpdatedAfterRead,
    RereadAfterUpdate,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Item {
    pub path: String,
    pub kind: Kind,
    pub role: Role,
    pub title: String,
    pub summary: String,
    pub provenance: Provenance,
    pub reasons: Vec<String>,
    pub relations: Vec<RelationFact>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub passage: Option<PassageOut>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub anchors: Option<AnchorCounts>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lifecycle: Option<Lifecycle>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Degraded {
    /// Stable code: `tooFewTerms`, `emptyWorkspace`.
    pub reason: String,
    pub detail: String,
}

/// The `knit/contextPack` result.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PackResult {
    pub task: TaskInfo,
    pub epoch: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delta: Option<Delta>,
    pub stats: Stats,
    pub pinned: Vec<Item>,
    pub primary: Vec<Item>,
    pub supporting: Vec<Item>,
    pub related: Vec<Item>,
    pub more: Vec<Item>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub degraded: Option<Degraded>,
}

impl PackResult {
    /// Paths of all items in the three numbered tiers, in order.
    pub fn tier_paths(&self) -> Vec<(&'static str, &str)> {
        let mut out = Vec::new();
        for (tier, items) in [("primary", &self.primary), ("supporting", &self.supporting), ("related", &self.related)] {
            out.extend(items.iter().map(|i| (tier, i.path.as_str())));
        }
        out
    }
}
