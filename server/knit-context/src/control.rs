//! The user's say and the reading history, per workspace: pins and exclusions, read
//! evidence with its lifecycle, and the epoch/delta of successive packs. Plain data with
//! pure transitions; the engine loads and saves them as small JSON files in the state dir.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::wire::{Delta, Lifecycle, TierChange};

/// At most this many pins / exclusions are kept (oldest dropped first).
const MAX_CONTROL_ROWS: usize = 500;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ControlRow {
    pub path: String,
    pub at: u64,
}

/// `control.json`: pinned and excluded paths. Pin and exclude are mutually exclusive.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ControlState {
    #[serde(default)]
    pub pinned: Vec<ControlRow>,
    #[serde(default)]
    pub excluded: Vec<ControlRow>,
}

impl ControlState {
    /// Idempotent: pinning again keeps the original time and order.
    pub fn pin(&mut self, path: &str, now: u64) -> bool {
        self.excluded.retain(|r| r.path != path);
        if self.pinned.iter().any(|r| r.path == path) {
            return false;
        }
        self.pinned.push(ControlRow { path: path.to_string(), at: now });
        if self.pinned.len() > MAX_CONTROL_ROWS {
            self.pinned.remove(0);
        }
        true
    }

    pub fn unpin(&mut self, path: &str) -> bool {
        let before = self.pinned.len();
        self.pinned.retain(|r| r.path != path);
        before != self.pinned.len()
    }

    pub fn exclude(&mut self, path: &str, now: u64) -> bool {
        self.pinned.retain(|r| r.path != path);
        if self.excluded.iter().any(|r| r.path == path) {
            return false;
        }
        self.excluded.push(ControlRow { path: path.to_string(), at: now });
        if self.excluded.len() > MAX_CONTROL_ROWS {
            self.excluded.remove(0);
        }
        true
    }

    pub fn restore(&mut self, path: &str) -> bool {
        let before = self.excluded.len();
        self.excluded.retain(|r| r.path != path);
        before != self.excluded.len()
    }

    pub fn is_excluded(&self, path: &str) -> bool {
        self.excluded.iter().any(|r| r.path == path)
    }

    pub fn is_pinned(&self, path: &str) -> bool {
        self.pinned.iter().any(|r| r.path == path)
    }
}

/// Read evidence for one file.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReadRecord {
    /// Content hash when last read.
    pub hash: String,
    pub count: u32,
    /// Set when a read saw different content than the read before it.
    #[serde(default)]
    pub reread_after_change: bool,
    pub at: u64,
}

/// `reads.json`: path → evidence.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReadState {
    #[serde(default)]
    pub files: BTreeMap<String, ReadRecord>,
}

/// At most this many files keep read evidence (least recently read dropped first).
const MAX_READ_RECORDS: usize = 2000;

impl ReadState {
    pub fn record_read(&mut self, path: &str, hash: &str, now: u64) {
        let entry = self.files.entry(path.to_string()).or_default();
        if entry.count > 0 && entry.hash != hash {
            entry.reread_after_change = true;
        }
        entry.hash = hash.to_string();
        entry.count = entry.count.saturating_add(1);
        entry.at = now;
        if self.files.len() > MAX_READ_RECORDS {
            if let Some(oldest) = self.files.iter().min_by_key(|(_, r)| r.at).map(|(p, _)| p.clone()) {
                self.files.remove(&oldest);
            }
        }
    }

    /// Lifecycle of a file whose current content hash is `current`.
    pub fn lifecycle(&self, path: &str, current: Option<&str>) -> Lifecycle {
        let Some(record) = self.files.get(path).filter(|r| r.count > 0) else { return Lifecycle::Unread };
        match current {
            Some(hash) if hash != record.hash => Lifecycle::UpdatedAfterRead,
            _ if record.reread_after_change => Lifecycle::RereadAfterUpdate,
            _ => Lifecycle::Read,
        }
    }
}

/// `session.json`: the current epoch and the tier of each member of the last pack.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct EpochState {
    pub epoch: u64,
    #[serde(default)]
    pub members: BTreeMap<String, String>,
}

impl EpochState {
    /// Compares a new membership (path → tier) with the last one. A change starts a new
    /// epoch and yields the delta; an identical pack keeps the epoch and has no delta.
    pub fn advance(&mut self, members: BTreeMap<String, String>) -> Option<Delta> {
        if self.epoch > 0 && members == self.members {
            return None;
        }
        let mut delta = Delta::default();
        for (path, tier) in &members {
            match self.members.get(path) {
                None => delta.entered.push(path.clone()),
                Some(old) if old != tier => delta.changed_tier.push(TierChange { path: path.clone(), from: old.clone(), to: tier.clone() }),
                _ => {}
            }
        }
        delta.left = self.members.keys().filter(|p| !members.contains_key(*p)).cloned().collect();
        self.epoch += 1;
        self.members = members;
        Some(delta)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pin_and_exclude_are_exclusive_and_idempotent() {
        let mut state = ControlState::default();
        assert!(state.pin("a.md", 1));
        assert!(!state.pin("a.md", 2));
        assert_eq!(state.pinned[0].at, 1);
        assert!(state.exclude("a.md", 3));
        assert!(!state.is_pinned("a.md") && state.is_excluded("a.md"));
        assert!(state.restore("a.md"));
        assert!(!state.is_excluded("a.md"));
    }

    #[test]
    fn lifecycle_follows_content_hashes() {
        let mut reads = ReadState::default();
        assert_eq!(reads.lifecycle("a", Some("h1")), Lifecycle::Unread);
        reads.record_read("a", "h1", 1);
        assert_eq!(reads.lifecycle("a", Some("h1")), Lifecycle::Read);
        assert_eq!(reads.lifecycle("a", Some("h2")), Lifecycle::UpdatedAfterRead);
        reads.record_read("a", "h2", 2);
        assert_eq!(reads.lifecycle("a", Some("h2")), Lifecycle::RereadAfterUpdate);
        assert_eq!(reads.lifecycle("a", Some("h3")), Lifecycle::UpdatedAfterRead);
    }

    #[test]
    fn epochs_advance_only_on_membership_or_tier_change() {
        let mut epochs = EpochState::default();
        let first: BTreeMap<String, String> = [("a".to_string(), "primary".to_string()), ("b".to_string(), "related".to_string())].into();
        let delta = epochs.advance(first.clone()).expect("first pack opens epoch 1");
        assert_eq!((epochs.epoch, delta.entered.len()), (1, 2));
        assert!(epochs.advance(first).is_none());
        assert_eq!(epochs.epoch, 1);
        let second: BTreeMap<String, String> = [("a".to_string(), "supporting".to_string()), ("c".to_string(), "related".to_string())].into();
        let delta = epochs.advance(second).expect("change");
        assert_eq!(epochs.epoch, 2);
        assert_eq!(delta.entered, vec!["c".to_string()]);
        assert_eq!(delta.left, vec!["b".to_string()]);
        assert_eq!(delta.changed_tier, vec![TierChange { path: "a".into(), from: "primary".into(), to: "supporting".into() }]);
    }
}
