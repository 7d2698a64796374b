//! Input hardening. tower-lsp-server stops reading its input for good after the first
//! frame it cannot decode (tokio-util's `FramedRead` ends the stream on a decoder
//! error), so one malformed message from a client would silently kill the server.
//! This pump sits between the client and the framework: it re-frames the byte stream,
//! forwards every frame the framework can decode unchanged, skips garbage between frames,
//! and turns an undecodable frame into a request for `knit/$invalidMessage`, which
//! answers with the JSON-RPC error the client should have got (-32700 parse error,
//! -32600 invalid request), under the message's id when it can be read, else `null`.

use serde_json::{json, Value};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tower_lsp_server::jsonrpc::{Error, ErrorCode, Request, Response, Result};

/// The method malformed frames are rewritten to.
pub const INVALID_MESSAGE: &str = "knit/$invalidMessage";
/// Frames larger than this are refused (and the stream re-synchronised).
const MAX_FRAME: usize = 64 << 20;
/// A header block (from `Content-Length` to the blank line) longer than this is garbage:
/// it is dropped and the stream re-synchronised, so a header that never ends can neither
/// grow the buffer without limit nor be rescanned on every read.
const MAX_HEADER: usize = 8 << 10;

/// Copies `input` to `output` frame by frame, sanitising as described above. Returns
/// at end of input.
pub async fn pump<I: AsyncRead + Unpin, O: AsyncWrite + Unpin>(mut input: I, mut output: O) {
    let mut buf: Vec<u8> = Vec::with_capacity(1 << 16);
    let mut chunk = vec![0u8; 1 << 16];
    loop {
        while let Some(step) = next_frame(&mut buf) {
            let bytes = match step {
                Frame::Body(body) => sanitize(&body),
                Frame::Oversized => invalid_frame(Value::Null, ErrorCode::InvalidRequest, "message too large"),
            };
            let head = format!("Content-Length: {}\r\n\r\n", bytes.len());
            if output.write_all(head.as_bytes()).await.is_err() || output.write_all(&bytes).await.is_err() {
                return;
            }
            let _ = output.flush().await;
        }
        match input.read(&mut chunk).await {
            Ok(0) | Err(_) => return,
            Ok(n) => buf.extend_from_slice(&chunk[..n]),
        }
    }
}

/// One step of the framing. Public (hidden) for the fuzz targets under `fuzz/`, which
/// check the framing on arbitrary bytes; not an API.
#[doc(hidden)]
#[derive(Debug, PartialEq, Eq)]
pub enum Frame {
    Body(Vec<u8>),
    Oversized,
}

/// Takes the next complete frame off `buf`, dropping garbage before a header. What is
/// left in `buf` is always a suffix of the bytes given so far (only the front is drained).
#[doc(hidden)]
pub fn next_frame(buf: &mut Vec<u8>) -> Option<Frame> {
    loop {
        // Re-synchronise on the next header.
        match find(buf, b"Content-Length") {
            Some(0) => {}
            Some(i) => {
                buf.drain(..i);
            }
            None => {
                // Keep a tail that may be the start of a header split across reads.
                let keep = buf.len().min(b"Content-Length".len() - 1);
                buf.drain(..buf.len() - keep);
                return None;
            }
        }
        let window = &buf[..buf.len().min(MAX_HEADER + 4)];
        let Some(head_end) = find(window, b"\r\n\r\n") else {
            if buf.len() > MAX_HEADER + 4 {
                // Not a header: skip past this `Content-Length` and look for the next one.
                buf.drain(..1);
                continue;
            }
            return None;
        };
        // A later `Content-Length` inside the block means this one never got its blank
        // line: what lies before the later one is garbage, and taking the block whole would
        // swallow the next message as this one's body (found by the `lsp_session` fuzzer).
        // A client's own header holds the field once.
        if let Some(later) = find(&buf[1..head_end], b"Content-Length") {
            buf.drain(..later + 1);
            continue;
        }
        let head = String::from_utf8_lossy(&buf[..head_end]).to_string();
        let len = head.lines().find_map(|l| {
            let (k, v) = l.split_once(':')?;
            k.trim().eq_ignore_ascii_case("content-length").then(|| v.trim().parse::<usize>().ok())?
        });
        let Some(len) = len else {
            // A broken header: skip it and look for the next one.
            buf.drain(..head_end + 4);
            continue;
        };
        if len > MAX_FRAME {
            buf.drain(..head_end + 4);
            return Some(Frame::Oversized);
        }
        let start = head_end + 4;
        if buf.len() < start + len {
            return None;
        }
        let body = buf[start..start + len].to_vec();
        buf.drain(..start + len);
        return Some(Frame::Body(body));
    }
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

/// The frame itself when the framework can decode it, else its replacement (hidden
/// public for the fuzz targets).
#[doc(hidden)]
pub fn sanitize(body: &[u8]) -> Vec<u8> {
    let Ok(text) = std::str::from_utf8(body) else {
        return invalid_frame(Value::Null, ErrorCode::ParseError, "message is not valid UTF-8");
    };
    if text.trim().is_empty() {
        return invalid_frame(Value::Null, ErrorCode::InvalidRequest, "empty message");
    }
    if serde_json::from_str::<Request>(text).is_ok() || serde_json::from_str::<Response>(text).is_ok() {
        return body.to_vec();
    }
    match serde_json::from_str::<Value>(text) {
        Err(_) => invalid_frame(Value::Null, ErrorCode::ParseError, "message is not valid JSON"),
        Ok(v) => {
            let id = match v.get("id") {
                Some(Value::String(s)) => json!(s),
                Some(Value::Number(n)) if n.as_i64().is_some() => json!(n),
                _ => Value::Null,
            };
            invalid_frame(id, ErrorCode::InvalidRequest, "not a valid JSON-RPC 2.0 message")
        }
    }
}

fn invalid_frame(id: Value, code: ErrorCode, reason: &str) -> Vec<u8> {
    json!({ "jsonrpc": "2.0", "id": id, "method": INVALID_MESSAGE, "params": { "code": code.code(), "reason": reason } })
        .to_string()
        .into_bytes()
}

/// The handler of [`INVALID_MESSAGE`]: always the error the frame deserved.
pub fn invalid_message(params: Value) -> Result<Value> {
    let code = params.get("code").and_then(Value::as_i64).unwrap_or(-32600);
    let reason = params.get("reason").and_then(Value::as_str).unwrap_or("invalid message").to_string();
    Err(Error { code: ErrorCode::from(code), message: reason.into(), data: None })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_header_without_its_blank_line_is_dropped_not_buffered() {
        // 1 MiB of header that never ends, then a good frame.
        let good = br#"{"jsonrpc":"2.0","method":"initialized"}"#;
        let mut buf = b"Content-Length: 10\r\n".to_vec();
        buf.extend(std::iter::repeat_n(b'x', 1 << 20));
        buf.extend_from_slice(format!("Content-Length: {}\r\n\r\n", good.len()).as_bytes());
        buf.extend_from_slice(good);
        let Some(Frame::Body(b)) = next_frame(&mut buf) else { panic!("the good frame after the garbage is found") };
        assert_eq!(b, good);
        // A pending header is kept only up to the header limit.
        let mut pending = b"Content-Length: 10\r\n".to_vec();
        pending.extend(std::iter::repeat_n(b'y', 3 * MAX_HEADER));
        assert!(next_frame(&mut pending).is_none());
        assert!(pending.len() <= MAX_HEADER + 4, "kept {} bytes", pending.len());
    }

    #[test]
    fn an_unfinished_header_does_not_swallow_the_next_frame() {
        // Garbage shorter than the header limit, after a header line, then a good frame:
        // the good frame's blank line ends the garbage's header block, whose
        // `Content-Length: 10` would take the first 10 bytes of the good frame as its body.
        let good = br#"{"jsonrpc":"2.0","method":"initialized"}"#;
        for glue in ["", "\r\n"] {
            let mut buf = b"Content-Length: 10\r\n".to_vec();
            buf.extend(std::iter::repeat_n(b'x', 3000));
            buf.extend_from_slice(glue.as_bytes());
            buf.extend_from_slice(format!("Content-Length: {}\r\n\r\n", good.len()).as_bytes());
            buf.extend_from_slice(good);
            assert_eq!(next_frame(&mut buf), Some(Frame::Body(good.to_vec())), "glue {glue:?}");
            assert!(buf.is_empty());
        }
    }

    #[test]
    fn frames_are_resynchronised_and_sanitised() {
        let good = br#"{"jsonrpc":"2.0","method":"initialized"}"#;
        let mut buf = b"junk Content-Length: 2\r\n\r\n{}".to_vec();
        buf.extend_from_slice(format!("Content-Length: {}\r\n\r\n", good.len()).as_bytes());
        buf.extend_from_slice(good);
        let Some(Frame::Body(a)) = next_frame(&mut buf) else { panic!() };
        assert!(String::from_utf8(sanitize(&a)).unwrap().contains(INVALID_MESSAGE));
        let Some(Frame::Body(b)) = next_frame(&mut buf) else { panic!() };
        assert_eq!(sanitize(&b), b);
        assert!(next_frame(&mut buf).is_none());
        let v: Value = serde_json::from_slice(&sanitize(br#"{"jsonrpc":"2.0","id":7,"method":42}"#)).unwrap();
        assert_eq!(v["id"], 7);
        assert_eq!(v["params"]["code"], -32600);
        let v: Value = serde_json::from_slice(&sanitize(&[0xff, 0xfe])).unwrap();
        assert_eq!(v["params"]["code"], -32700);
    }
}
