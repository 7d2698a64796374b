//! JSON-RPC 2.0 over newline-delimited stdio: bounded line reading, message
//! classification (request / notification / response) and error objects. Every malformed
//! input maps to an error value here; nothing in this module panics on input.

use serde_json::{json, Map, Value};
use std::io::BufRead;

/// Lines longer than this are discarded (answered with an Invalid Request error).
pub const MAX_MESSAGE_BYTES: usize = 64 << 20;

pub const PARSE_ERROR: i64 = -32700;
pub const INVALID_REQUEST: i64 = -32600;
pub const METHOD_NOT_FOUND: i64 = -32601;
pub const INVALID_PARAMS: i64 = -32602;
pub const INTERNAL_ERROR: i64 = -32603;

#[derive(Debug, Clone, PartialEq)]
pub struct RpcError {
    pub code: i64,
    pub message: String,
}

impl RpcError {
    pub fn parse_error(detail: &str) -> Self {
        RpcError { code: PARSE_ERROR, message: format!("parse error: {detail}") }
    }
    pub fn invalid_request(detail: &str) -> Self {
        RpcError { code: INVALID_REQUEST, message: format!("invalid request: {detail}") }
    }
    pub fn method_not_found(method: &str) -> Self {
        RpcError { code: METHOD_NOT_FOUND, message: format!("method not found: {method}") }
    }
    pub fn invalid_params(detail: &str) -> Self {
        RpcError { code: INVALID_PARAMS, message: format!("invalid params: {detail}") }
    }
}

/// A classified incoming message.
#[derive(Debug, Clone, PartialEq)]
pub enum Incoming {
    Request { id: Value, method: String, params: Option<Value> },
    Notification { method: String, params: Option<Value> },
    /// A response to a request of ours (this server sends none, so it is ignored).
    Response,
}

/// Classifies one message. On error, returns the id to answer with (`null` when the
/// message had none or could not be read) and the error.
pub fn parse_message(bytes: &[u8]) -> Result<Incoming, (Value, RpcError)> {
    let text = std::str::from_utf8(bytes).map_err(|_| (Value::Null, RpcError::parse_error("message is not valid UTF-8")))?;
    let text = text.trim();
    if text.is_empty() {
        return Err((Value::Null, RpcError::invalid_request("empty message")));
    }
    let value: Value = serde_json::from_str(text).map_err(|e| (Value::Null, RpcError::parse_error(&e.to_string())))?;
    let obj = match value {
        Value::Object(o) => o,
        Value::Array(_) => return Err((Value::Null, RpcError::invalid_request("JSON-RPC batches are not supported; send one message per line"))),
        _ => return Err((Value::Null, RpcError::invalid_request("a message must be a JSON object"))),
    };
    classify(obj)
}

fn classify(obj: Map<String, Value>) -> Result<Incoming, (Value, RpcError)> {
    let id = obj.get("id").cloned();
    // An id must be a string or a number (null is tolerated for responses only).
    let answer_id = match &id {
        Some(v @ (Value::String(_) | Value::Number(_))) => v.clone(),
        _ => Value::Null,
    };
    if obj.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        return Err((answer_id, RpcError::invalid_request("`jsonrpc` must be \"2.0\"")));
    }
    if let Some(bad) = id.as_ref().filter(|v| !matches!(v, Value::String(_) | Value::Number(_) | Value::Null)) {
        return Err((Value::Null, RpcError::invalid_request(&format!("`id` must be a string or a number, got {bad}"))));
    }
    let method = match obj.get("method") {
        Some(Value::String(m)) => m.clone(),
        Some(_) => return Err((answer_id, RpcError::invalid_request("`method` must be a string"))),
        None => {
            if obj.contains_key("result") || obj.contains_key("error") {
                return Ok(Incoming::Response);
            }
            return Err((answer_id, RpcError::invalid_request("missing `method`")));
        }
    };
    let params = match obj.get("params") {
        None => None,
        Some(p @ (Value::Object(_) | Value::Array(_))) => Some(p.clone()),
        Some(Value::Null) => None,
        Some(_) => return Err((answer_id, RpcError::invalid_request("`params` must be an object or an array"))),
    };
    match id {
        None => Ok(Incoming::Notification { method, params }),
        Some(Value::Null) => Err((Value::Null, RpcError::invalid_request("`id` must not be null"))),
        Some(id) => Ok(Incoming::Request { id, method, params }),
    }
}

pub fn success_response(id: &Value, result: Value) -> Value {
    json!({ "jsonrpc": "2.0", "id": id, "result": result })
}

pub fn error_response(id: &Value, error: &RpcError) -> Value {
    json!({ "jsonrpc": "2.0", "id": id, "error": { "code": error.code, "message": error.message } })
}

#[derive(Debug, PartialEq)]
pub enum ReadOutcome {
    Line(Vec<u8>),
    /// A line over the limit was read and dropped.
    TooLarge,
    Eof,
}

/// Reads one `\n`-terminated line (a final unterminated line counts), holding at most
/// `limit` bytes in memory: a longer line is consumed and reported as [`ReadOutcome::TooLarge`].
/// Blank lines are skipped.
pub fn read_message(input: &mut impl BufRead, limit: usize) -> std::io::Result<ReadOutcome> {
    loop {
        let mut line = Vec::new();
        let mut too_large = false;
        let mut saw_any = false;
        loop {
            let available = match input.fill_buf() {
                Ok(b) => b,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            if available.is_empty() {
                break;
            }
            saw_any = true;
            let (chunk, done) = match available.iter().position(|&b| b == b'\n') {
                Some(i) => (&available[..i], Some(i + 1)),
                None => (available, None),
            };
            if !too_large {
                if line.len() + chunk.len() > limit {
                    too_large = true;
                    line = Vec::new();
                } else {
                    line.extend_from_slice(chunk);
                }
            }
            let used = done.unwrap_or(available.len());
            input.consume(used);
            if done.is_some() {
                break;
            }
        }
        if !saw_any {
            return Ok(ReadOutcome::Eof);
        }
        if too_large {
            return Ok(ReadOutcome::TooLarge);
        }
        if line.last() == Some(&b'\r') {
            line.pop();
        }
        if line.iter().all(|b| b.is_ascii_whitespace()) {
            continue;
        }
        return Ok(ReadOutcome::Line(line));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classifies_messages() {
        assert!(matches!(parse_message(br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#), Ok(Incoming::Request { .. })));
        assert!(matches!(parse_message(br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#), Ok(Incoming::Notification { .. })));
        assert_eq!(parse_message(br#"{"jsonrpc":"2.0","id":1,"result":{}}"#), Ok(Incoming::Response));
        assert_eq!(parse_message(b"{").unwrap_err().1.code, PARSE_ERROR);
        assert_eq!(parse_message(b"\xff\xfe").unwrap_err().1.code, PARSE_ERROR);
        assert_eq!(parse_message(b"[1]").unwrap_err().1.code, INVALID_REQUEST);
        assert_eq!(parse_message(b"42").unwrap_err().1.code, INVALID_REQUEST);
        let (id, e) = parse_message(br#"{"jsonrpc":"1.0","id":7,"method":"ping"}"#).unwrap_err();
        assert_eq!((id, e.code), (json!(7), INVALID_REQUEST));
        let (id, e) = parse_message(br#"{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}"#).unwrap_err();
        assert_eq!((id, e.code), (Value::Null, INVALID_REQUEST));
        assert_eq!(parse_message(br#"{"jsonrpc":"2.0","id":3,"method":5}"#).unwrap_err().1.code, INVALID_REQUEST);
        assert_eq!(parse_message(br#"{"jsonrpc":"2.0","id":3,"method":"x","params":"s"}"#).unwrap_err().1.code, INVALID_REQUEST);
    }

    #[test]
    fn reads_bounded_lines() {
        let mut input: &[u8] = b"\n  \nabc\r\n0123456789\nlast";
        assert_eq!(read_message(&mut input, 8).unwrap(), ReadOutcome::Line(b"abc".to_vec()));
        assert_eq!(read_message(&mut input, 8).unwrap(), ReadOutcome::TooLarge);
        assert_eq!(read_message(&mut input, 8).unwrap(), ReadOutcome::Line(b"last".to_vec()));
        assert_eq!(read_message(&mut input, 8).unwrap(), ReadOutcome::Eof);
    }
}
