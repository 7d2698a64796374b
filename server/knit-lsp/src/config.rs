//! Client settings: `initializationOptions` and `workspace/didChangeConfiguration`
//! (either the object itself or wrapped as `{ "knit": { … } }`). Unknown keys are
//! ignored and bad values fall back to defaults: a typo in an editor's settings must not
//! take the server down.
//!
//! ```json
//! { "diagnostics": { "workspace": true,
//!                    "severity": { "stale": "warning", "unrecorded": "off" } },
//!   "uniqueCommandIds": false,
//!   "clientCommands": ["knit.changesSinceReview", "knit.rebindCandidates"] }
//! ```
//!
//! `clientCommands` names the commands whose result the client shows itself (a diff
//! document, a picker): code actions that carry them are offered only to clients that
//! list them, since elsewhere running one would show nothing.

use knit_anchors::State;
use serde_json::Value;
use tower_lsp_server::ls_types::DiagnosticSeverity;

#[derive(Clone, Debug, PartialEq)]
pub struct Settings {
    /// Publish diagnostics for every Markdown file of the workspace, not only open ones.
    pub workspace_diagnostics: bool,
    /// Severity by diagnostic code; `None` = not reported.
    severities: Vec<(&'static str, Option<DiagnosticSeverity>)>,
    /// Advertise command ids with a per-instance suffix (VS Code registers ids globally).
    pub unique_command_ids: bool,
    /// Commands the client shows the result of (`clientCommands`).
    pub client_commands: Vec<String>,
    /// A "not documented" code lens on public declarations no doc anchors
    /// (`codeLens.undocumented`, off by default).
    pub undocumented_lens: bool,
}

/// Every diagnostic code knit emits, with its default severity.
pub const CODES: &[(&str, Option<DiagnosticSeverity>)] = &[
    ("stale", Some(DiagnosticSeverity::WARNING)),
    ("moved", Some(DiagnosticSeverity::WARNING)),
    ("renamed", Some(DiagnosticSeverity::WARNING)),
    ("moved-renamed", Some(DiagnosticSeverity::WARNING)),
    ("lost", Some(DiagnosticSeverity::ERROR)),
    ("invalid", Some(DiagnosticSeverity::ERROR)),
    ("unchecked", Some(DiagnosticSeverity::INFORMATION)),
    ("unrecorded", Some(DiagnosticSeverity::HINT)),
    ("broken-link", Some(DiagnosticSeverity::WARNING)),
    ("mention", Some(DiagnosticSeverity::HINT)),
    // Inline code naming one declaration (`knit anchors suggest`): off unless a
    // severity is set, as it needs the repository-wide index for every doc.
    ("code-mention", None),
    ("will-go-stale", Some(DiagnosticSeverity::INFORMATION)),
];

impl Default for Settings {
    fn default() -> Self {
        Settings { workspace_diagnostics: true, severities: CODES.to_vec(), unique_command_ids: false, client_commands: Vec::new(), undocumented_lens: false }
    }
}

impl Settings {
    /// Settings from a client JSON value, on top of the defaults.
    pub fn from_json(v: Option<&Value>) -> Settings {
        let mut s = Settings::default();
        s.merge(v);
        s
    }

    /// Applies the keys present in `v`; absent keys keep their current value.
    pub fn merge(&mut self, v: Option<&Value>) {
        let Some(mut v) = v else { return };
        if let Some(inner) = v.get("knit") {
            v = inner;
        }
        if let Some(d) = v.get("diagnostics") {
            if let Some(b) = d.get("workspace").and_then(Value::as_bool) {
                self.workspace_diagnostics = b;
            }
            // The switch of the opt-in `code-mention` hint (`diagnostics.codeMentions`); an
            // explicit severity below still wins.
            if let Some(on) = d.get("codeMentions").and_then(Value::as_bool) {
                if let Some(slot) = self.severities.iter_mut().find(|(c, _)| *c == "code-mention") {
                    slot.1 = on.then_some(DiagnosticSeverity::HINT);
                }
            }
            if let Some(map) = d.get("severity").and_then(Value::as_object) {
                for (code, sev) in map {
                    let Some(slot) = self.severities.iter_mut().find(|(c, _)| c == code) else { continue };
                    if let Some(parsed) = sev.as_str().and_then(parse_severity) {
                        slot.1 = parsed;
                    }
                }
            }
        }
        if let Some(b) = v.get("codeLens").and_then(|c| c.get("undocumented")).and_then(Value::as_bool) {
            self.undocumented_lens = b;
        }
        if let Some(b) = v.get("uniqueCommandIds").and_then(Value::as_bool) {
            self.unique_command_ids = b;
        }
        if let Some(list) = v.get("clientCommands").and_then(Value::as_array) {
            self.client_commands = list.iter().filter_map(Value::as_str).map(str::to_string).collect();
        }
    }

    /// The client shows the result of `command` itself (see `clientCommands`).
    pub fn client_shows(&self, command: &str) -> bool {
        self.client_commands.iter().any(|c| c == command)
    }

    pub fn severity(&self, code: &str) -> Option<DiagnosticSeverity> {
        self.severities.iter().find(|(c, _)| *c == code).and_then(|(_, s)| *s)
    }
}

/// `"error" | "warning" | "information" | "info" | "hint" | "off"`; Some(None) = off.
fn parse_severity(s: &str) -> Option<Option<DiagnosticSeverity>> {
    Some(match s.to_ascii_lowercase().as_str() {
        "error" => Some(DiagnosticSeverity::ERROR),
        "warning" | "warn" => Some(DiagnosticSeverity::WARNING),
        "information" | "info" => Some(DiagnosticSeverity::INFORMATION),
        "hint" => Some(DiagnosticSeverity::HINT),
        "off" | "none" | "ignore" => None,
        _ => return None,
    })
}

/// The diagnostic code of an anchor state (None for fresh: no diagnostic).
pub fn code_of(state: State) -> Option<&'static str> {
    match state {
        State::Fresh => None,
        s => Some(s.as_str()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn merges_wrapped_and_plain_settings() {
        let mut s = Settings::from_json(Some(&json!({"diagnostics": {"workspace": false}, "uniqueCommandIds": true})));
        assert!(!s.workspace_diagnostics && s.unique_command_ids);
        s.merge(Some(&json!({"knit": {"diagnostics": {"severity": {"unrecorded": "off", "stale": "error", "lost": 3}}}})));
        assert_eq!(s.severity("unrecorded"), None);
        assert_eq!(s.severity("stale"), Some(DiagnosticSeverity::ERROR));
        assert_eq!(s.severity("lost"), Some(DiagnosticSeverity::ERROR));
        assert!(!s.workspace_diagnostics);
        assert!(!s.undocumented_lens, "off by default");
        s.merge(Some(&json!({"codeLens": {"undocumented": true}})));
        assert!(s.undocumented_lens);
        assert_eq!(s.severity("code-mention"), None, "off by default");
        s.merge(Some(&json!({"diagnostics": {"codeMentions": true}})));
        assert_eq!(s.severity("code-mention"), Some(DiagnosticSeverity::HINT));
        s.merge(Some(&json!({"diagnostics": {"codeMentions": false}})));
        assert_eq!(s.severity("code-mention"), None);
    }
}
