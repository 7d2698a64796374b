//! One file per LSP method. Handlers are pure functions of a [`Snapshot`]; the few that
//! talk to the client or the context engine also receive a [`ServerHandle`], never the
//! `Backend` (handlers do not depend on the protocol face that calls them).
//!
//! [`Snapshot`]: crate::snapshot::Snapshot
//! [`ServerHandle`]: crate::handle::ServerHandle

pub mod changes_since_review;
pub mod code_action;
pub mod code_lens;
pub mod completion;
pub mod context_pack;
pub mod definition;
pub mod document_symbol;
pub mod execute_command;
pub mod hover;
pub mod rebind_picker;
pub mod references;
pub mod rename;
mod section_links;
pub mod workspace_symbol;
mod util;
