//! knit-mcp: knit as a Model Context Protocol server for coding agents.
//!
//! Transport: stdio, JSON-RPC 2.0, one message per line (MCP "stdio" transport). The
//! server answers `initialize` (protocol versions [`PROTOCOL_VERSIONS`], newest first),
//! `ping`, `tools/list` and `tools/call`; notifications are accepted and need no answer;
//! anything else is a JSON-RPC error, never a panic and never a dropped connection.
//!
//! Tools (see [`tools`]): `check_anchors` runs the same check as `knit check` (the anchor
//! engine over the disk tree), `context_pack` builds the same pack as `knit/contextPack`
//! (the context engine). Module map:
//! - [`protocol`]: message framing, parsing and the JSON-RPC error codes;
//! - [`tools`]: the tool schemas and their implementations over the knit crates.
//!
//! Nothing but protocol messages is written to stdout; diagnostics go to stderr.

pub mod protocol;
pub mod tools;

use protocol::{error_response, read_message, success_response, Incoming, ReadOutcome, RpcError};
use serde_json::{json, Value};
use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};

/// Protocol versions this server speaks, newest first. A client asking for another
/// version is answered with the newest (the client then decides whether to continue).
pub const PROTOCOL_VERSIONS: &[&str] = &["2025-06-18", "2025-03-26", "2024-11-05"];

/// Where the context engine keeps its index and per-workspace state (pins, reads).
/// `None` = the defaults of `knit-context` (`$KNIT_CACHE_DIR` / `$KNIT_STATE_DIR`, else the
/// platform folders).
#[derive(Debug, Clone, Default)]
pub struct ServerOptions {
    pub cache_dir: Option<PathBuf>,
    pub state_dir: Option<PathBuf>,
}

/// One MCP session over one workspace.
pub struct McpServer {
    tools: tools::Tools,
    /// The version agreed in `initialize` (`None` before it).
    protocol_version: Option<String>,
}

impl McpServer {
    pub fn new(root: &Path, options: ServerOptions) -> anyhow::Result<McpServer> {
        let root = knit_workspace::files::canonical_dir(root).map_err(|e| anyhow::anyhow!("workspace root {}: {e}", root.display()))?;
        Ok(McpServer { tools: tools::Tools::new(root, options), protocol_version: None })
    }

    pub fn root(&self) -> &Path {
        self.tools.root()
    }

    /// The protocol version negotiated by `initialize`, if it happened.
    pub fn protocol_version(&self) -> Option<&str> {
        self.protocol_version.as_deref()
    }

    /// Handles one raw message (one line without its newline). Returns the line to send
    /// back, or `None` for notifications and responses.
    pub fn handle_line(&mut self, line: &[u8]) -> Option<String> {
        let reply = match protocol::parse_message(line) {
            Ok(Incoming::Request { id, method, params }) => Some(match self.dispatch(&method, params) {
                Ok(result) => success_response(&id, result),
                Err(e) => error_response(&id, &e),
            }),
            Ok(Incoming::Notification { method, .. }) => {
                if method == "notifications/initialized" && self.protocol_version.is_none() {
                    eprintln!("knit-mcp: `notifications/initialized` before `initialize`; continuing");
                }
                None
            }
            Ok(Incoming::Response) => None,
            Err((id, e)) => Some(error_response(&id, &e)),
        };
        reply.map(|v| v.to_string())
    }

    fn dispatch(&mut self, method: &str, params: Option<Value>) -> Result<Value, RpcError> {
        match method {
            "initialize" => Ok(self.initialize(params)),
            "ping" => Ok(json!({})),
            "tools/list" => Ok(json!({ "tools": tools::Tools::list() })),
            "tools/call" => self.call_tool(params),
            _ => Err(RpcError::method_not_found(method)),
        }
    }

    fn initialize(&mut self, params: Option<Value>) -> Value {
        let asked = params.as_ref().and_then(|p| p.get("protocolVersion")).and_then(Value::as_str);
        let version = match asked {
            Some(v) if PROTOCOL_VERSIONS.contains(&v) => v,
            _ => PROTOCOL_VERSIONS[0],
        };
        self.protocol_version = Some(version.to_string());
        json!({
            "protocolVersion": version,
            "capabilities": { "tools": { "listChanged": false } },
            "serverInfo": { "name": "knit", "title": "knit", "version": env!("CARGO_PKG_VERSION") },
            "instructions": concat!(
                "knit keeps Markdown docs honest about the code they describe. ",
                "Call `context_pack` with the task (or the conversation so far) to learn which few files to read first; ",
                "call `check_anchors` with `changed: true` after editing code to find doc lines that went stale, ",
                "then update those docs (or confirm them with `knit anchors confirm DOC:LINE`)."
            ),
        })
    }

    fn call_tool(&mut self, params: Option<Value>) -> Result<Value, RpcError> {
        let params = params.unwrap_or(Value::Null);
        let Some(name) = params.get("name").and_then(Value::as_str) else {
            return Err(RpcError::invalid_params("tools/call needs a string `name`"));
        };
        let args = match params.get("arguments") {
            None | Some(Value::Null) => json!({}),
            Some(v @ Value::Object(_)) => v.clone(),
            Some(_) => return Err(RpcError::invalid_params("`arguments` must be an object")),
        };
        let structured = self.protocol_version.as_deref().is_none_or(|v| v >= "2025-06-18");
        let outcome = self.tools.call(name, &args).ok_or_else(|| RpcError::invalid_params(&format!("unknown tool: {name}")))?;
        Ok(outcome.into_result(structured))
    }
}

/// Serves one session: reads messages from `input` until end of input, writes answers to
/// `output` (one line each, flushed). I/O errors on the streams end the session.
pub fn serve(root: &Path, options: ServerOptions, input: impl BufRead, mut output: impl Write) -> anyhow::Result<()> {
    let mut server = McpServer::new(root, options)?;
    let mut input = input;
    loop {
        match read_message(&mut input, protocol::MAX_MESSAGE_BYTES)? {
            ReadOutcome::Eof => return Ok(()),
            ReadOutcome::TooLarge => {
                let reply = error_response(&Value::Null, &RpcError::invalid_request("message larger than the 64 MiB limit"));
                writeln!(output, "{reply}")?;
                output.flush()?;
            }
            ReadOutcome::Line(line) => {
                if let Some(reply) = server.handle_line(&line) {
                    writeln!(output, "{reply}")?;
                    output.flush()?;
                }
            }
        }
    }
}

/// `knit mcp`: serves the workspace at `root` over this process's stdin/stdout.
pub fn run_stdio(root: &Path) -> anyhow::Result<()> {
    let stdin = std::io::stdin();
    let stdout = std::io::stdout();
    serve(root, ServerOptions::default(), stdin.lock(), stdout.lock())
}
