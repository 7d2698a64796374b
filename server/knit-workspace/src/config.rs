//! `knit.toml` at the workspace root: budgets and doc selection. Unknown keys are an
//! error (exit code 2), so a typo never silently falls back to a default.

use knit_anchors::CheckConfig;
use serde::Deserialize;
use std::path::Path;

/// A knit.toml larger than this is refused.
const MAX_CONFIG_BYTES: u64 = 64 * 1024;

#[derive(Debug, Default, Deserialize, Clone, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct Config {
    #[serde(default)]
    pub check: CheckSection,
}

#[derive(Debug, Deserialize, Clone, PartialEq, Eq)]
#[serde(deny_unknown_fields, default)]
pub struct CheckSection {
    pub max_files: u64,
    pub max_bytes: u64,
    pub max_millis: u64,
    pub max_file_bytes: u64,
    pub repo_max_files: u64,
    /// Folders (workspace-relative) whose Markdown is never checked.
    pub exclude: Vec<String>,
}

impl Default for CheckSection {
    fn default() -> Self {
        let d = CheckConfig::default();
        CheckSection {
            max_files: d.max_files,
            max_bytes: d.max_bytes,
            max_millis: d.max_millis,
            max_file_bytes: d.max_file_bytes,
            repo_max_files: d.repo_max_files,
            exclude: Vec::new(),
        }
    }
}

#[derive(Debug)]
pub struct ConfigError(pub String);

impl std::fmt::Display for ConfigError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ConfigError {}

impl Config {
    /// Reads `<root>/knit.toml`; a missing file is the default configuration.
    pub fn load(root: &Path) -> Result<Config, ConfigError> {
        let path = root.join("knit.toml");
        // Through the confined layer: a knit.toml that is a FIFO, a link out of the root or
        // a huge file is an error, never a hang.
        match crate::files::Confined::new(root).read_text("knit.toml", MAX_CONFIG_BYTES) {
            Ok(text) => toml::from_str(&text).map_err(|e| ConfigError(format!("{}: {e}", path.display()))),
            Err(knit_anchors::source::ReadError::Missing) => Ok(Config::default()),
            Err(e) => Err(ConfigError(format!("{}: {e}", path.display()))),
        }
    }

    pub fn check_config(&self) -> CheckConfig {
        CheckConfig {
            max_files: self.check.max_files,
            max_bytes: self.check.max_bytes,
            max_millis: self.check.max_millis,
            max_file_bytes: self.check.max_file_bytes,
            repo_max_files: self.check.repo_max_files,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loads_and_rejects_unknown_keys() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(Config::load(dir.path()).unwrap(), Config::default());
        std::fs::write(dir.path().join("knit.toml"), "[check]\nmax_files = 5\n").unwrap();
        assert_eq!(Config::load(dir.path()).unwrap().check_config().max_files, 5);
        std::fs::write(dir.path().join("knit.toml"), "[check]\nmax_filez = 5\n").unwrap();
        assert!(Config::load(dir.path()).is_err());
    }
}
