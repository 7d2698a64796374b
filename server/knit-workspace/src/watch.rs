//! Watching a workspace for changes made outside the editor (a `git checkout`, `git pull`,
//! another program's edit), for language clients that do not watch files for the server
//! (Neovim 0.7 offers no `workspace/didChangeWatchedFiles` registration).
//!
//! The folders the one walk enters are watched one by one, not recursively (a recursive
//! inotify watch would also enter `node_modules` and every ignored folder), up to
//! [`MAX_WATCHED_DIRS`]; a folder created later is watched when its creation is seen
//! (noise folders left out; `.gitignore` is read by the walk at the start only), and the
//! files already inside it are reported as created. Events are debounced (reported
//! once the tree has been quiet for the given time, and at least every
//! [`MAX_LATENCY`]), merged per path, and bounded: a burst beyond [`MAX_BATCH`] paths, or
//! a kernel queue overflow, is reported as `overflow` (the caller rescans) instead of a
//! list that grows without bound. Nothing here reads a file's content.

use crate::walk::{self, WalkPolicy};
use notify::event::{ModifyKind, RenameMode};
use notify::{EventKind, RecommendedWatcher, RecursiveMode, Watcher};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Folders watched per workspace at most (each costs an inotify watch).
pub const MAX_WATCHED_DIRS: usize = 20_000;
/// Paths reported in one batch at most; beyond it the batch says `overflow`.
pub const MAX_BATCH: usize = 10_000;
/// A batch is reported at least this often while events keep coming.
pub const MAX_LATENCY: Duration = Duration::from_millis(1000);

/// What happened to a path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Change {
    Created,
    Changed,
    Deleted,
}

/// Changes seen since the last batch, by workspace-relative path.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Batch {
    pub changes: Vec<(String, Change)>,
    /// Too many changes, or the kernel dropped events: treat everything as changed.
    pub overflow: bool,
}

/// A running watch; dropping it stops it.
pub struct FolderWatch {
    stop: Arc<AtomicBool>,
    /// Folders watched when it started (for the caller's log).
    pub watched_dirs: usize,
}

impl Drop for FolderWatch {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}

/// Starts watching `root`, skipping what the walk with `policy` skips. `on_batch` runs on
/// the watch's own thread, once per debounced batch, never with an empty batch.
pub fn watch_folder(
    root: &Path,
    policy: &WalkPolicy<'_>,
    quiet: Duration,
    on_batch: impl Fn(Batch) + Send + 'static,
) -> notify::Result<FolderWatch> {
    let root = root.to_path_buf();
    let extra: Vec<String> = policy.extra_noise_dirs.iter().map(|s| s.to_string()).collect();
    let skip_hidden = policy.skip_hidden;
    let (tx, rx) = mpsc::channel::<notify::Result<notify::Event>>();
    let mut watcher = notify::recommended_watcher(move |ev| {
        let _ = tx.send(ev);
    })?;
    let dirs = walk::walk_dirs(&root, policy, MAX_WATCHED_DIRS);
    let mut watched = 0usize;
    for d in &dirs {
        if watcher.watch(d, RecursiveMode::NonRecursive).is_ok() {
            watched += 1;
        }
    }
    let stop = Arc::new(AtomicBool::new(false));
    let state = Debouncer {
        root,
        extra,
        skip_hidden,
        watcher: Arc::new(Mutex::new(watcher)),
        watched,
        pending: BTreeMap::new(),
        overflow: false,
    };
    let thread_stop = stop.clone();
    std::thread::Builder::new()
        .name("knit-watch".into())
        .spawn(move || state.run(rx, quiet, &thread_stop, on_batch))
        .map_err(notify::Error::io)?;
    Ok(FolderWatch { stop, watched_dirs: watched })
}

struct Debouncer {
    root: PathBuf,
    extra: Vec<String>,
    skip_hidden: bool,
    watcher: Arc<Mutex<RecommendedWatcher>>,
    watched: usize,
    pending: BTreeMap<String, Change>,
    overflow: bool,
}

impl Debouncer {
    fn run(mut self, rx: mpsc::Receiver<notify::Result<notify::Event>>, quiet: Duration, stop: &AtomicBool, on_batch: impl Fn(Batch)) {
        // Polled at least this often, so a dropped FolderWatch ends the thread promptly.
        let tick = quiet.min(Duration::from_millis(200));
        let mut first_pending: Option<Instant> = None;
        let mut last_event = Instant::now();
        loop {
            if stop.load(Ordering::Relaxed) {
                return;
            }
            match rx.recv_timeout(tick) {
                Ok(ev) => {
                    self.take(ev);
                    last_event = Instant::now();
                    if first_pending.is_none() && (self.overflow || !self.pending.is_empty()) {
                        first_pending = Some(last_event);
                    }
                }
                Err(mpsc::RecvTimeoutError::Timeout) => {}
                Err(mpsc::RecvTimeoutError::Disconnected) => return,
            }
            let Some(since) = first_pending else { continue };
            if last_event.elapsed() >= quiet || since.elapsed() >= MAX_LATENCY {
                let batch = self.flush();
                first_pending = None;
                if !stop.load(Ordering::Relaxed) {
                    on_batch(batch);
                }
            }
        }
    }

    fn flush(&mut self) -> Batch {
        let overflow = std::mem::take(&mut self.overflow);
        let pending = std::mem::take(&mut self.pending);
        if overflow {
            Batch { changes: Vec::new(), overflow: true }
        } else {
            Batch { changes: pending.into_iter().collect(), overflow: false }
        }
    }

    fn take(&mut self, ev: notify::Result<notify::Event>) {
        let ev = match ev {
            Ok(ev) => ev,
            Err(_) => {
                self.overflow = true;
                return;
            }
        };
        if ev.need_rescan() {
            self.overflow = true;
            return;
        }
        match ev.kind {
            EventKind::Create(_) => ev.paths.iter().for_each(|p| self.created(p)),
            EventKind::Remove(_) => ev.paths.iter().for_each(|p| self.note(p, Change::Deleted)),
            EventKind::Modify(ModifyKind::Name(RenameMode::From)) => ev.paths.iter().for_each(|p| self.note(p, Change::Deleted)),
            EventKind::Modify(ModifyKind::Name(RenameMode::To)) => ev.paths.iter().for_each(|p| self.created(p)),
            EventKind::Modify(ModifyKind::Name(RenameMode::Both)) => {
                if let [from, to] = ev.paths.as_slice() {
                    self.note(from, Change::Deleted);
                    self.created(to);
                }
            }
            EventKind::Modify(ModifyKind::Metadata(_)) | EventKind::Access(_) | EventKind::Other => {}
            EventKind::Modify(_) | EventKind::Any => ev.paths.iter().for_each(|p| self.note(p, Change::Changed)),
        }
    }

    /// A created path; a created folder is watched too, and the files already in it (a
    /// checkout writes them before the new watch exists) are reported as created.
    ///
    /// Each folder is watched *before* it is listed: a subfolder made after the listing
    /// then arrives as an event of the new watch, and one made before it is in the
    /// listing, so none falls between the two (listing a whole new tree first and
    /// watching it afterwards lost the folders created in between). Bounded by
    /// [`MAX_WATCHED_DIRS`] and [`MAX_BATCH`] entries per created folder.
    fn created(&mut self, path: &Path) {
        let is_dir = std::fs::symlink_metadata(path).is_ok_and(|m| m.is_dir());
        if !is_dir {
            self.note(path, Change::Created);
            return;
        }
        let mut queue = vec![path.to_path_buf()];
        let mut listed = 0usize;
        while let Some(dir) = queue.pop() {
            let Some(rel) = walk::relative(&self.root, &dir) else { continue };
            if self.skipped(&format!("{rel}/x")) || self.watched >= MAX_WATCHED_DIRS {
                continue;
            }
            let added = self.watcher.lock().is_ok_and(|mut w| w.watch(&dir, RecursiveMode::NonRecursive).is_ok());
            if added {
                self.watched += 1;
            }
            let Ok(entries) = std::fs::read_dir(&dir) else { continue };
            for entry in entries.flatten() {
                listed += 1;
                if listed > MAX_BATCH {
                    self.overflow = true;
                    return;
                }
                match entry.file_type() {
                    Ok(t) if t.is_dir() => queue.push(entry.path()),
                    Ok(t) if t.is_file() => self.note(&entry.path(), Change::Created),
                    _ => {} // symlinks are never followed; other kinds are not files
                }
            }
        }
    }

    fn skipped(&self, rel: &str) -> bool {
        let extra: Vec<&str> = self.extra.iter().map(String::as_str).collect();
        walk::in_skipped_folder(rel, &WalkPolicy { skip_hidden: self.skip_hidden, extra_noise_dirs: &extra })
    }

    fn note(&mut self, path: &Path, change: Change) {
        let Some(rel) = walk::relative(&self.root, path) else { return };
        if self.skipped(&rel) {
            return;
        }
        let merged = match (self.pending.get(&rel), change) {
            // Created then changed is still new; deleted then created is a change.
            (Some(Change::Created), Change::Changed) => Change::Created,
            (Some(Change::Deleted), Change::Created) => Change::Changed,
            (Some(Change::Created), Change::Deleted) => {
                self.pending.remove(&rel);
                return;
            }
            (_, c) => c,
        };
        self.pending.insert(rel, merged);
        if self.pending.len() > MAX_BATCH {
            self.pending.clear();
            self.overflow = true;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    fn wait_for(rx: &mpsc::Receiver<Batch>, want: impl Fn(&[Batch]) -> bool) -> Vec<Batch> {
        let mut got = Vec::new();
        let deadline = Instant::now() + Duration::from_secs(10);
        while Instant::now() < deadline {
            if let Ok(b) = rx.recv_timeout(Duration::from_millis(100)) {
                got.push(b);
                if want(&got) {
                    break;
                }
            }
        }
        got
    }

    fn has(batches: &[Batch], rel: &str, c: Change) -> bool {
        batches.iter().any(|b| b.changes.iter().any(|(r, x)| r == rel && *x == c))
    }

    #[test]
    fn changes_outside_the_editor_arrive_in_debounced_batches() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        fs::create_dir_all(root.join("src")).unwrap();
        fs::create_dir_all(root.join("node_modules/x")).unwrap();
        fs::write(root.join("src/a.ts"), "a").unwrap();
        fs::write(root.join("README.md"), "r").unwrap();
        let (tx, rx) = mpsc::channel();
        let w = watch_folder(&root, &WalkPolicy::default(), Duration::from_millis(100), move |b| {
            let _ = tx.send(b);
        })
        .unwrap();
        assert!(w.watched_dirs >= 2, "root and src, not node_modules: {}", w.watched_dirs);
        fs::write(root.join("src/a.ts"), "changed").unwrap();
        fs::write(root.join("node_modules/x/b.ts"), "noise").unwrap();
        fs::remove_file(root.join("README.md")).unwrap();
        // A new folder with a file in it, as a checkout writes it.
        fs::create_dir_all(root.join("lib/deep")).unwrap();
        fs::write(root.join("lib/deep/c.ts"), "c").unwrap();
        let got = wait_for(&rx, |b| has(b, "src/a.ts", Change::Changed) && has(b, "README.md", Change::Deleted) && has(b, "lib/deep/c.ts", Change::Created));
        assert!(has(&got, "src/a.ts", Change::Changed), "{got:?}");
        assert!(has(&got, "README.md", Change::Deleted), "{got:?}");
        assert!(has(&got, "lib/deep/c.ts", Change::Created), "{got:?}");
        assert!(!got.iter().any(|b| b.changes.iter().any(|(r, _)| r.starts_with("node_modules"))), "{got:?}");
        assert!(got.iter().all(|b| !b.changes.is_empty() || b.overflow));
        // A file in the folder created later is seen too (it is watched now).
        fs::write(root.join("lib/deep/d.ts"), "d").unwrap();
        let more = wait_for(&rx, |b| has(b, "lib/deep/d.ts", Change::Created));
        assert!(has(&more, "lib/deep/d.ts", Change::Created), "{more:?}");
        drop(w);
    }
}
