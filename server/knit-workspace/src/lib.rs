//! knit-workspace: the disk side of knit, shared by the CLI and the language server.
//!
//! It owns root discovery, `knit.toml`, the one `.gitignore`-aware walk ([`walk`]),
//! bounded and root-confined reads and atomic doc writes ([`files::Confined`]; [`DiskTree`]
//! is the [`SourceTree`] the engine reads through), the on-disk parse cache
//! ([`DiskDeclStore`]), the last check's states, the cache's [`housekeeping`] (idle
//! workspaces pruned, `knit cache`), git read in-process ([`changed_files`]), and the
//! server's own file watching for clients that do not watch files ([`watch`]).
//! The engine crates never touch the disk themselves.

mod config;
pub mod files;
mod git;
pub mod history;
pub mod housekeeping;
mod store;
mod tree;
pub mod walk;
pub mod watch;

pub use config::{Config, ConfigError};
pub use files::{Confined, EditSnapshot, FileStat, WriteError};
pub use git::{changed_files, file_history, file_versions, FileHistory, FileVersion, VersionLimits};
pub use history::{History, HistoryLimits};
pub use store::{cache_base, cache_dir_for, state_base, workspace_key, DiskDeclStore, StateStore};
pub use tree::{find_root, DiskTree};
pub use walk::{WalkPolicy, WalkedEntry};

pub use knit_anchors::SourceTree;
