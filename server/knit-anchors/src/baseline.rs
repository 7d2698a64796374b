//! Baselines: the reviewed state, stored in the link title as `knit:<baseline>`.
//!
//! Scheme v1 (at most 40 chars of `[A-Za-z0-9_-]`): the first char is the scheme
//! version; the second is a flags char (6 bits); then fingerprints in base64url (12
//! chars = 72 bits each). A declaration baseline's first char is also the print scheme
//! its fingerprints were computed with (`knit_syntax::PRINT_SCHEME`): `1` up to
//! 2026-12-01, `2` up to 2026-12-02, `3` since (same layout). An old one is compared with prints by its own
//! rules, so a knit that hashes differently never turns it stale on unchanged code;
//! recording again writes the current scheme. Line ranges and doc sections are `1`.
//!
//! | type | layout | length |
//! |---|---|---|
//! | declaration | `1` flags wsflags fp [body] [sketch(13)] | 15, 27, 28 or 40 |
//! | line range | `1` flags fp count(3) | 17 |
//! | doc section | `1` flags fp | 14 |
//!
//! Flags: bits 0–1 type (0 declaration, 1 line range, 2 doc); for declarations bit 2 =
//! has a matchable body, bit 3 = that body was unique in its file when recorded (stage 3
//! is refused otherwise: an identical twin makes any body match a guess), bits 4–5 the
//! coarse identity kind. The workspace flags say what was true of the whole workspace
//! when recorded: bit 0 = it was indexed completely, bit 1 = no other file had the same
//! body (else stage 4 is refused), bit 2 = no other file declared the same identity
//! (else "moved and changed" is refused: a pre-existing namesake is not where the
//! declaration went); bit 3 = no other member of the declaration's own container had the
//! same body (stage 3 then looks in that container only, even when a twin sat in another
//! container of the file; older baselines lack the bit and keep the file-wide rule). The
//! 78-bit member sketch lets a stale container name members whose
//! tokens are not in the baseline.

use knit_syntax::fingerprint::{decode_b64, encode_b64};
use knit_syntax::{Declaration, Fingerprint, IdentityKind};

pub const TITLE_PREFIX: &str = "knit:";

/// Uniqueness across the workspace at record time (see the module header).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WorkspaceFacts {
    pub body_unique: bool,
    pub name_unique: bool,
}
const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
const SKETCH_BITS: u32 = 78;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Baseline {
    Declaration {
        fingerprint: Fingerprint,
        body: Option<Fingerprint>,
        body_unique: bool,
        /// No other member of the same container (same qualified prefix) had the body.
        container_unique: bool,
        identity: IdentityKind,
        /// What the workspace looked like when recorded (None: not indexed completely).
        workspace: Option<WorkspaceFacts>,
        sketch: Option<u128>,
        /// The print scheme of its fingerprints (see the module header).
        scheme: u8,
    },
    Lines {
        fingerprint: Fingerprint,
        /// Number of non-blank lines hashed (for relocation windows).
        count: u32,
    },
    Doc {
        fingerprint: Fingerprint,
    },
}

fn flag_char(bits: u8) -> char {
    ALPHABET[(bits & 63) as usize] as char
}

fn flag_bits(c: u8) -> Option<u8> {
    ALPHABET.iter().position(|&a| a == c).map(|p| p as u8)
}

fn identity_bits(id: IdentityKind) -> u8 {
    match id {
        IdentityKind::Callable => 0,
        IdentityKind::Type => 1,
        IdentityKind::Value => 2,
        IdentityKind::Module => 3,
    }
}

fn identity_from(bits: u8) -> IdentityKind {
    match bits & 3 {
        0 => IdentityKind::Callable,
        1 => IdentityKind::Type,
        2 => IdentityKind::Value,
        _ => IdentityKind::Module,
    }
}

/// The sketch bits of one member: a 3-hash Bloom filter (for a 5-member class a
/// changed member goes unnoticed ~0.3 % of the time; with 1 bit it would be ~6 %).
pub fn member_bits(name: &str, fp: &Fingerprint) -> u128 {
    let mut h = blake3::Hasher::new();
    h.update(name.as_bytes());
    h.update(&fp.0);
    let b = h.finalize();
    let bytes = b.as_bytes();
    (0..3).fold(0u128, |acc, k| {
        let n = u64::from_le_bytes(bytes[k * 8..k * 8 + 8].try_into().unwrap_or([0; 8]));
        acc | (1u128 << (n % u64::from(SKETCH_BITS)))
    })
}

/// True when the member's tokens are (probably) in the baseline's sketch.
pub fn sketch_has(sketch: u128, name: &str, fp: &Fingerprint) -> bool {
    let bits = member_bits(name, fp);
    sketch & bits == bits
}

impl Baseline {
    /// The baseline of a declaration as it is now. `body_unique`: no other declaration
    /// of the same file has the same matchable body; `container_unique`: no other member
    /// of its container has it.
    pub fn of_declaration(d: &Declaration, body_unique: bool, container_unique: bool, workspace: Option<WorkspaceFacts>) -> Baseline {
        let sketch = if d.members.is_empty() {
            None
        } else {
            Some(d.members.iter().fold(0u128, |acc, (n, fp)| acc | member_bits(n, fp)))
        };
        Baseline::Declaration {
            fingerprint: d.fingerprint,
            body: d.matchable_body(),
            body_unique,
            container_unique,
            identity: d.identity,
            workspace,
            sketch,
            scheme: knit_syntax::PRINT_SCHEME,
        }
    }

    pub fn encode(&self) -> String {
        let mut s = String::from("1");
        match self {
            Baseline::Declaration { fingerprint, body, body_unique, container_unique, identity, workspace, sketch, scheme } => {
                s = scheme.clamp(&1, &9).to_string();
                let mut bits = 0u8;
                if body.is_some() {
                    bits |= 1 << 2;
                }
                if *body_unique {
                    bits |= 1 << 3;
                }
                bits |= identity_bits(*identity) << 4;
                s.push(flag_char(bits));
                let ws = match workspace {
                    None => 0,
                    Some(w) => 1 | (u8::from(w.body_unique) << 1) | (u8::from(w.name_unique) << 2),
                } | (u8::from(*container_unique) << 3);
                s.push(flag_char(ws));
                s.push_str(&fingerprint.encode());
                if let Some(b) = body {
                    s.push_str(&b.encode());
                }
                if let Some(sk) = sketch {
                    // 78 bits: encode the low 12 bytes (16 chars), keep the last 13.
                    let bytes = sk.to_be_bytes();
                    let enc = encode_b64(&bytes[4..16]);
                    s.push_str(&enc[3..]);
                }
            }
            Baseline::Lines { fingerprint, count } => {
                s.push(flag_char(1));
                s.push_str(&fingerprint.encode());
                let c = (*count).min(262_143);
                for shift in [12u32, 6, 0] {
                    s.push(ALPHABET[((c >> shift) & 63) as usize] as char);
                }
            }
            Baseline::Doc { fingerprint } => {
                s.push(flag_char(2));
                s.push_str(&fingerprint.encode());
            }
        }
        s
    }

    pub fn decode(s: &str) -> Option<Baseline> {
        let b = s.as_bytes();
        // `2`, `3`…: a declaration printed by that print scheme (the only kind whose
        // prints changed); a scheme newer than this knit's is not read.
        if b.len() < 14 || !(b'1'..=b'0' + knit_syntax::PRINT_SCHEME).contains(&b[0]) {
            return None;
        }
        let scheme = b[0] - b'0';
        let bits = flag_bits(b[1])?;
        if scheme > 1 && bits & 3 != 0 {
            return None;
        }
        match bits & 3 {
            0 => {
                let ws = flag_bits(*b.get(2)?)?;
                let workspace = (ws & 1 != 0).then_some(WorkspaceFacts { body_unique: ws & 2 != 0, name_unique: ws & 4 != 0 });
                let fingerprint = Fingerprint::decode(s.get(3..15)?)?;
                let has_body = bits & (1 << 2) != 0;
                let mut rest = s.get(15..)?;
                let body = if has_body {
                    let fp = Fingerprint::decode(rest.get(..12)?)?;
                    rest = rest.get(12..)?;
                    Some(fp)
                } else {
                    None
                };
                let sketch = match rest.len() {
                    0 => None,
                    13 => {
                        let bytes = decode_b64(&format!("AAA{rest}"))?;
                        let mut full = [0u8; 16];
                        full[4..16].copy_from_slice(bytes.get(..12)?);
                        Some(u128::from_be_bytes(full))
                    }
                    _ => return None,
                };
                Some(Baseline::Declaration {
                    fingerprint,
                    body,
                    body_unique: bits & (1 << 3) != 0,
                    container_unique: ws & (1 << 3) != 0,
                    identity: identity_from(bits >> 4),
                    workspace,
                    sketch,
                    scheme,
                })
            }
            1 => {
                let fingerprint = Fingerprint::decode(s.get(2..14)?)?;
                let c = s.get(14..17)?;
                if s.len() != 17 {
                    return None;
                }
                let mut count = 0u32;
                for ch in c.bytes() {
                    count = (count << 6) | u32::from(flag_bits(ch)?);
                }
                Some(Baseline::Lines { fingerprint, count })
            }
            2 if s.len() == 14 => Some(Baseline::Doc { fingerprint: Fingerprint::decode(s.get(2..14)?)? }),
            _ => None,
        }
    }
}

/// A line without its `knit:<baseline>` tokens: a title holding only the token goes
/// whole (` "knit:…"`), otherwise the token and the space before it. Baselines are
/// bookkeeping: neither doc-section fingerprints nor context-pack task terms see them.
pub fn strip_baselines(line: &str) -> std::borrow::Cow<'_, str> {
    let prefix = TITLE_PREFIX;
    if !line.contains(prefix) {
        return line.into();
    }
    let mut out = String::with_capacity(line.len());
    let mut rest = line;
    while let Some(i) = rest.find(prefix) {
        let tail = &rest[i + prefix.len()..];
        let end = tail.find(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))).unwrap_or(tail.len());
        let before = &rest[..i];
        let after = &tail[end..];
        let open = before.chars().last();
        let close = after.chars().next();
        let whole_title = matches!((open, close), (Some('"'), Some('"')) | (Some('\''), Some('\'')) | (Some('('), Some(')')));
        if whole_title {
            out.push_str(before[..before.len() - 1].trim_end());
            rest = &after[1..];
        } else {
            out.push_str(before.strip_suffix(' ').unwrap_or(before));
            rest = after;
        }
    }
    out.push_str(rest);
    out.into()
}

/// Finds the `knit:` token in a link title.
pub fn baseline_in_title(title: &str) -> Option<&str> {
    title.split_whitespace().find_map(|w| w.strip_prefix(TITLE_PREFIX))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_every_type() {
        let fp = Fingerprint::of_bytes(b"a");
        let body = Fingerprint::of_bytes(b"b");
        let all = [
            Baseline::Declaration { fingerprint: fp, body: None, body_unique: false, container_unique: false, identity: IdentityKind::Value, workspace: None, sketch: None, scheme: 1 },
            Baseline::Declaration {
                fingerprint: fp,
                body: Some(body),
                body_unique: true,
                container_unique: true,
                identity: IdentityKind::Type,
                workspace: Some(WorkspaceFacts { body_unique: true, name_unique: false }),
                sketch: Some((1 << 77) | 5),
                scheme: 2,
            },
            Baseline::Declaration {
                fingerprint: fp,
                body: Some(body),
                body_unique: false,
                container_unique: true,
                identity: IdentityKind::Module,
                workspace: Some(WorkspaceFacts { body_unique: false, name_unique: true }),
                sketch: None,
                scheme: 2,
            },
            Baseline::Declaration { fingerprint: fp, body: None, body_unique: false, container_unique: false, identity: IdentityKind::Type, workspace: None, sketch: Some(1 << 40), scheme: 1 },
            Baseline::Lines { fingerprint: fp, count: 4242 },
            Baseline::Doc { fingerprint: fp },
        ];
        for b in all {
            let s = b.encode();
            assert!(s.len() <= 40, "{s}");
            assert!(s.bytes().all(|c| c.is_ascii_alphanumeric() || c == b'-' || c == b'_' || c == b'.'));
            assert_eq!(Baseline::decode(&s), Some(b.clone()), "{s}");
        }
        assert_eq!(Baseline::decode("2abc"), None);
        assert_eq!(Baseline::decode("1"), None);
        // The first char of a declaration is its print scheme; only declarations have a 2.
        let d = Baseline::Declaration { fingerprint: fp, body: None, body_unique: false, container_unique: false, identity: IdentityKind::Value, workspace: None, sketch: None, scheme: 2 };
        let enc = d.encode();
        assert!(enc.starts_with('2'), "{enc}");
        let old = format!("1{}", &enc[1..]);
        assert!(matches!(Baseline::decode(&old), Some(Baseline::Declaration { scheme: 1, .. })));
        let lines = Baseline::Lines { fingerprint: fp, count: 3 }.encode();
        assert!(lines.starts_with('1'));
        assert_eq!(Baseline::decode(&format!("2{}", &lines[1..])), None);
        assert_eq!(baseline_in_title("Reviewed knit:1abc by me"), Some("1abc"));
    }
}
