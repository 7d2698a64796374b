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

/// The command of the "Show changes since review" code action: `[uri, position]` of an
/// anchor; returns the diff document (clients open it; see `handlers::changes_since_review`).
pub const CHANGES_SINCE_REVIEW: &str = "knit.changesSinceReview";

/// The "Rebind to…" picker: `[uri, position]` of a symbol anchor → every declaration of
/// the workspace ranked as its new target; `knit.rebind [uri, position, { path, symbol }]`
/// applies the pick (see `handlers::rebind_picker`).
pub const REBIND_CANDIDATES: &str = "knit.rebindCandidates";
pub const REBIND: &str = "knit.rebind";

pub const ALL: &[&str] =
    &[RECORD_FILE, CHECK_WORKSPACE, CONTEXT_PACK, PIN, UNPIN, EXCLUDE, RESTORE, SHOW_REFERENCES, CHANGES_SINCE_REVIEW, REBIND_CANDIDATES, REBIND];

/// The base id of an advertised command (`knit.pin/ab12` → `knit.pin`).
pub fn base(id: &str) -> &str {
    match id.split_once('/') {
        Some((b, _)) if ALL.contains(&b) => b,
        _ => id,
    }
}
