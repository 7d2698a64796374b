//! Target `lsp_framing`: the language server's input pump (`knit_lsp::transport`) on
//! arbitrary bytes. The pump sits between the client and tower-lsp-server, which stops
//! reading for good at the first frame it cannot decode; the pump's job is that this
//! never happens.
//!
//! Properties: no panic; what the framing leaves buffered is a suffix of the input and a
//! header without its blank line is never kept beyond the header limit; the frames found
//! do not depend on how the input is split into reads; after the bytes the framing
//! consumed, a valid message is found whole (garbage never swallows the next message);
//! every frame the pump writes is a
//! well-formed `Content-Length` frame whose body the framework decodes as a JSON-RPC
//! request or response, and a body that already decoded is forwarded unchanged.

use knit_lsp::transport::{next_frame, pump, sanitize, Frame};
use std::pin::Pin;
use std::sync::OnceLock;
use std::task::{Context, Poll};
use tokio::io::{AsyncRead, ReadBuf};
use tower_lsp_server::jsonrpc::{Request, Response};

/// The transport's header limit (`MAX_HEADER`) plus the blank line.
const HEADER_LIMIT: usize = (8 << 10) + 4;

pub fn run(data: &[u8]) {
    // All at once.
    let mut buf = data.to_vec();
    let mut whole = Vec::new();
    while let Some(f) = next_frame(&mut buf) {
        whole.push(f);
    }
    assert!(data.ends_with(&buf), "the framing kept bytes that are not the input's tail");
    if !buf.windows(4).any(|w| w == b"\r\n\r\n") {
        assert!(buf.len() <= HEADER_LIMIT, "{} bytes of unfinished header kept", buf.len());
    }
    // In reads of 1 to 61 bytes, sizes drawn from the input itself (deterministic).
    let mut chunked_buf = Vec::new();
    let mut chunked = Vec::new();
    for chunk in chunks(data) {
        chunked_buf.extend_from_slice(chunk);
        while let Some(f) = next_frame(&mut chunked_buf) {
            chunked.push(f);
        }
    }
    assert_eq!(whole, chunked, "the frames depend on how the input was split into reads");
    assert_eq!(buf, chunked_buf);

    // The consumed bytes, then a valid message: the same frames, then that message.
    let valid: &[u8] = br#"{"jsonrpc":"2.0","id":"knit-fuzz-next","method":"shutdown"}"#;
    let mut next = data[..data.len() - buf.len()].to_vec();
    next.extend_from_slice(format!("Content-Length: {}\r\n\r\n", valid.len()).as_bytes());
    next.extend_from_slice(valid);
    let mut after = Vec::new();
    while let Some(f) = next_frame(&mut next) {
        after.push(f);
    }
    assert_eq!(after.last(), Some(&Frame::Body(valid.to_vec())), "the message after the consumed input was not found whole");
    assert_eq!(&after[..after.len() - 1], &whole[..], "the frames before it changed");

    for f in &whole {
        if let Frame::Body(body) = f {
            let out = sanitize(body);
            assert!(decodes(&out), "sanitize let through a frame the framework cannot decode: {:?}", String::from_utf8_lossy(&out));
            if decodes(body) {
                assert_eq!(&out, body, "a decodable frame was rewritten");
            }
        }
    }

    // The real pump, reading in small pieces.
    let mut out: Vec<u8> = Vec::new();
    runtime().block_on(pump(Chunked { data, at: 0, step: 0 }, &mut out));
    let mut rest: &[u8] = &out;
    let mut frames = 0;
    while !rest.is_empty() {
        let head_end = rest.windows(4).position(|w| w == b"\r\n\r\n").expect("pump output frame has a header");
        let head = std::str::from_utf8(&rest[..head_end]).expect("pump header is text");
        let len: usize = head.strip_prefix("Content-Length: ").and_then(|n| n.parse().ok()).unwrap_or_else(|| panic!("pump wrote header {head:?}"));
        let body = &rest[head_end + 4..head_end + 4 + len];
        assert!(decodes(body), "the pump forwarded a frame the framework cannot decode: {:?}", String::from_utf8_lossy(body));
        rest = &rest[head_end + 4 + len..];
        frames += 1;
    }
    assert_eq!(frames, whole.len(), "the pump wrote another number of frames than the framing found");
}

/// What tower-lsp-server's codec accepts as a message.
fn decodes(body: &[u8]) -> bool {
    let Ok(text) = std::str::from_utf8(body) else { return false };
    !text.is_empty() && (serde_json::from_str::<Request>(text).is_ok() || serde_json::from_str::<Response>(text).is_ok())
}

fn chunk_len(data: &[u8], step: usize) -> usize {
    if data.is_empty() {
        1
    } else {
        usize::from(data[step % data.len()]) % 61 + 1
    }
}

fn chunks(data: &[u8]) -> Vec<&[u8]> {
    let mut out = Vec::new();
    let (mut at, mut step) = (0, 0);
    while at < data.len() {
        let end = (at + chunk_len(data, step)).min(data.len());
        out.push(&data[at..end]);
        at = end;
        step += 1;
    }
    out
}

/// An input that hands out the bytes in the same pieces as [`chunks`].
struct Chunked<'a> {
    data: &'a [u8],
    at: usize,
    step: usize,
}

impl AsyncRead for Chunked<'_> {
    fn poll_read(mut self: Pin<&mut Self>, _: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<std::io::Result<()>> {
        let n = chunk_len(self.data, self.step).min(self.data.len() - self.at).min(buf.remaining());
        let at = self.at;
        buf.put_slice(&self.data[at..at + n]);
        self.at += n;
        self.step += 1;
        Poll::Ready(Ok(()))
    }
}

fn runtime() -> &'static tokio::runtime::Runtime {
    static RT: OnceLock<tokio::runtime::Runtime> = OnceLock::new();
    RT.get_or_init(|| tokio::runtime::Builder::new_current_thread().build().expect("tokio runtime"))
}
