//! Command ids of `workspace/executeCommand`. With `uniqueCommandIds` they are
//! advertised as `<id>/<instance>` (VS Code registers command ids globally, so two
//! servers may not advertise the same id); both forms are accepted.

pub const RECORD_FILE: &str = "knit.recordFile";
pub const CHECK_WORKSPACE: &str = "knit.checkWorkspace";
pub const CONTEXT_PACK: &str = "knit.contextPack";
pub const PIN: &str = "knit.pin";
pub const UNPIN: &str = "knit.unpin";
pub const EXCLUDE: &str = "knit.exclude";
pub const RESTORE: &str = "knit.restore";
/// The command of code lenses: `[uri, position, locations]` (clients map it to their
/// references view; executed on the server it returns the locations).
pub const SHOW_REFERENCES: &str = "knit.showReferences";

pub const ALL: &[&str] = &[RECORD_FILE, CHECK_WORKSPACE, CONTEXT_PACK, PIN, UNPIN, EXCLUDE, RESTORE, SHOW_REFERENCES];

/// The base id of an advertised command (`knit.pin/ab12` → `knit.pin`).
pub fn base(id: &str) -> &str {
    match id.split_once('/') {
        Some((b, _)) if ALL.contains(&b) => b,
        _ => id,
    }
}
