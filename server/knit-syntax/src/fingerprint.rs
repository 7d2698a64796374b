//! Fingerprints: truncated blake3 digests of normalised token streams.
//!
//! 72 bits is plenty to tell a declaration from its edited self (and to match bodies
//! across a repository: a chance collision needs ~2^36 declarations) and keeps the
//! baseline, which must fit in a link title, short: 12 base64url characters.

use serde::{Deserialize, Serialize};

/// A 72-bit digest of a token stream.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Fingerprint(pub [u8; 9]);

const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

impl Fingerprint {
    /// 12 characters of base64url (no padding).
    pub fn encode(&self) -> String {
        encode_b64(&self.0)
    }

    pub fn decode(s: &str) -> Option<Self> {
        let bytes = decode_b64(s)?;
        let arr: [u8; 9] = bytes.try_into().ok()?;
        Some(Fingerprint(arr))
    }

    /// Digest of an arbitrary byte string (used for line-range and doc-section text).
    pub fn of_bytes(bytes: &[u8]) -> Self {
        let h = blake3::hash(bytes);
        let mut out = [0u8; 9];
        out.copy_from_slice(&h.as_bytes()[..9]);
        Fingerprint(out)
    }
}

impl std::fmt::Debug for Fingerprint {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Fingerprint({})", self.encode())
    }
}

/// Base64url without padding; `bytes.len()` must be a multiple of 3 for a round trip of
/// exact length, which every caller here respects.
pub fn encode_b64(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len() * 4 / 3 + 2);
    for chunk in bytes.chunks(3) {
        let b = [chunk[0], *chunk.get(1).unwrap_or(&0), *chunk.get(2).unwrap_or(&0)];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        let chars = chunk.len() + 1;
        for i in 0..chars {
            out.push(ALPHABET[((n >> (18 - 6 * i)) & 63) as usize] as char);
        }
    }
    out
}

pub fn decode_b64(s: &str) -> Option<Vec<u8>> {
    let mut vals = Vec::with_capacity(s.len());
    for c in s.bytes() {
        vals.push(ALPHABET.iter().position(|&a| a == c)? as u32);
    }
    let mut out = Vec::with_capacity(s.len() * 3 / 4);
    for chunk in vals.chunks(4) {
        if chunk.len() == 1 {
            return None;
        }
        let mut n = 0u32;
        for (i, v) in chunk.iter().enumerate() {
            n |= v << (18 - 6 * i);
        }
        let bytes = chunk.len() - 1;
        for i in 0..bytes {
            out.push(((n >> (16 - 8 * i)) & 0xff) as u8);
        }
    }
    Some(out)
}

/// Streams tokens into a digest. Tokens are separated by a byte that cannot occur in
/// source text tokens, so `ab`+`c` never equals `a`+`bc`. Small tokens are gathered in a
/// buffer (blake3 on one buffer is far cheaper than an update per token); long runs of
/// pre-separated token bytes go to the hasher directly, uncopied. The digest is that of
/// the concatenation either way.
pub(crate) struct TokenHasher {
    hasher: blake3::Hasher,
    buf: Vec<u8>,
    pub(crate) count: u32,
}

/// Runs at least this long skip the buffer.
const DIRECT_UPDATE: usize = 8 * 1024;

impl TokenHasher {
    pub(crate) fn new(domain: &str) -> Self {
        let mut buf = Vec::with_capacity(256);
        buf.extend_from_slice(b"knit-v1\x1e");
        buf.extend_from_slice(domain.as_bytes());
        buf.push(0x1e);
        TokenHasher { hasher: blake3::Hasher::new(), buf, count: 0 }
    }

    #[cfg(test)]
    pub(crate) fn push(&mut self, token: &str) {
        self.buf.extend_from_slice(token.as_bytes());
        self.buf.push(0x1f);
        self.count += 1;
    }

    /// `tokens` already separated (each followed by 0x1f), `n` of them.
    pub(crate) fn push_raw(&mut self, tokens: &[u8], n: u32) {
        if tokens.len() >= DIRECT_UPDATE {
            self.hasher.update(&self.buf);
            self.buf.clear();
            self.hasher.update(tokens);
        } else {
            self.buf.extend_from_slice(tokens);
        }
        self.count += n;
    }

    pub(crate) fn finish(&mut self) -> Fingerprint {
        self.hasher.update(&self.buf);
        self.buf.clear();
        let h = self.hasher.finalize();
        let mut out = [0u8; 9];
        out.copy_from_slice(&h.as_bytes()[..9]);
        Fingerprint(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn token_digest_is_the_streamed_blake3_digest() {
        // Baselines in docs depend on this exact byte layout.
        let mut t = TokenHasher::new("decl");
        t.push("fn");
        t.push("f");
        let mut h = blake3::Hasher::new();
        h.update(b"knit-v1\x1edecl\x1efn\x1ff\x1f");
        assert_eq!(t.finish().0, h.finalize().as_bytes()[..9]);
        // A long run handed over directly digests the same as the buffered bytes.
        let long: Vec<u8> = (0..3 * DIRECT_UPDATE).flat_map(|i| [b'a' + (i % 26) as u8, 0x1f]).collect();
        let mut direct = TokenHasher::new("decl");
        direct.push("fn");
        direct.push_raw(&long, 3 * DIRECT_UPDATE as u32);
        direct.push("f");
        let mut flat = b"knit-v1\x1edecl\x1efn\x1f".to_vec();
        flat.extend_from_slice(&long);
        flat.extend_from_slice(b"f\x1f");
        assert_eq!(direct.finish().0, blake3::hash(&flat).as_bytes()[..9]);
        assert_eq!(direct.count, 2 + 3 * DIRECT_UPDATE as u32);
    }

    #[test]
    fn base64_round_trip() {
        let fp = Fingerprint::of_bytes(b"hello");
        let s = fp.encode();
        assert_eq!(s.len(), 12);
        assert_eq!(Fingerprint::decode(&s), Some(fp));
        assert_eq!(decode_b64(&encode_b64(&[1, 2, 3, 4, 5, 6])).unwrap(), vec![1, 2, 3, 4, 5, 6]);
        assert!(Fingerprint::decode("!!!!").is_none());
    }
}
