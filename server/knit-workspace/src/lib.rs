//! knit-workspace: the disk side of knit, shared by the CLI and the language server.
//!
//! It owns root discovery, `knit.toml`, the `.gitignore`-aware file list, bounded and
//! root-confined reads ([`DiskTree`], the [`SourceTree`] the engine reads through), the
//! on-disk parse cache ([`DiskDeclStore`]), the last check's states, and the list of
//! files git reports as changed. The engine crates never touch the disk themselves.

mod config;
mod git;
mod store;
mod tree;

pub use config::{Config, ConfigError};
pub use git::changed_files;
pub use store::{cache_dir_for, DiskDeclStore, StateStore};
pub use tree::{find_root, DiskTree};

pub use knit_anchors::SourceTree;
