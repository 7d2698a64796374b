//! One file per LSP method. Handlers are pure functions of a [`Snapshot`] (plus the
//! backend for the few that talk to the client or the context engine).
//!
//! [`Snapshot`]: crate::snapshot::Snapshot

pub mod code_action;
pub mod code_lens;
pub mod completion;
pub mod context_pack;
pub mod definition;
pub mod execute_command;
pub mod hover;
pub mod references;
mod util;
