//! The token's byte layout and its two sealing modes.
//!
//! ```text
//! token  = "m2." base64url-no-pad(header rest)
//! header = mode_flags:u8 kid_len:u8 kid hints[6]     (one byte per binding, for the log)
//! rest   = AEAD: nonce[16] ciphertext(body) tag[16]  (associated data: "m2." header bound)
//!          HMAC: body tag[16]                        (HMAC-SHA256 over "m2." header body bound,
//!                                                      truncated to 128 bits)
//! body   = claims payload
//! bound  = the bindings (audience, method, target, arguments digest, principal, fingerprint):
//!          never stored, the request carries them again, so a token presented with other
//!          bindings fails its tag
//! ```
//!
//! `mode_flags` holds the mode in its high nibble (1 AEAD, 2 HMAC) and the flags in its low
//! nibble. AEAD is XChaCha20-Poly1305 with a 128-bit random nonce (the last 8 bytes of its 192-bit
//! nonce are zero): every token gets its own subkey, and the nonce doubles as the token id. An
//! HMAC-mode token's id is its tag. Both tags are 128 bits.

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use hmac::Mac;

use super::aead;
use super::error::Rejection;
use super::keys::{DerivedKeys, MAX_KEY_ID_LEN};
use super::mode::Mode;

/// Version prefix of every token this crate seals. A token of another layout (`m1.`) is refused
/// as malformed.
pub(crate) const PREFIX: &str = "m2.";

/// Flag bit: the payload after the claims is deflate-compressed (HMAC mode only).
pub(crate) const FLAG_DEFLATED: u8 = 0b0001;
/// Flag bit: the payload is the engine's binary state, not JSON.
pub(crate) const FLAG_BINARY: u8 = 0b0010;

/// Length of the binding hints in the header.
pub(crate) const HINTS_LEN: usize = 6;
/// Length of the AEAD nonce stored in the token (and of the token id).
pub(crate) const NONCE_LEN: usize = 16;
/// Length of either tag.
pub(crate) const TAG_LEN: usize = 16;

fn mode_nibble(mode: Mode) -> u8 {
    match mode {
        Mode::Aead => 1,
        Mode::Hmac => 2,
    }
}

fn xnonce(nonce: &[u8; NONCE_LEN]) -> [u8; 24] {
    let mut full = [0u8; 24];
    full[..NONCE_LEN].copy_from_slice(nonce);
    full
}

fn header(mode: Mode, flags: u8, kid: &str, hints: &[u8; HINTS_LEN], out: &mut Vec<u8>) {
    out.push(mode_nibble(mode) << 4 | flags);
    out.push(kid.len() as u8);
    out.extend_from_slice(kid.as_bytes());
    out.extend_from_slice(hints);
}

fn hmac_tag(keys: &DerivedKeys, header: &[u8], body: &[u8], bound: &[u8]) -> [u8; TAG_LEN] {
    let mut mac = keys.mac.clone();
    mac.update(PREFIX.as_bytes());
    mac.update(header);
    mac.update(body);
    mac.update(bound);
    let mut tag = [0u8; TAG_LEN];
    tag.copy_from_slice(&mac.finalize().into_bytes()[..TAG_LEN]);
    tag
}

/// What [`seal`] needs besides the keys.
pub(crate) struct Sealing<'a> {
    pub(crate) mode: Mode,
    pub(crate) flags: u8,
    pub(crate) kid: &'a str,
    pub(crate) hints: [u8; HINTS_LEN],
    /// The AEAD nonce (unused in HMAC mode).
    pub(crate) nonce: [u8; NONCE_LEN],
    pub(crate) bound: &'a [u8],
}

/// Seals `body` (consumed: AEAD encrypts it in place) under `keys`; `kid` must already be a
/// valid key id.
pub(crate) fn seal(sealing: &Sealing<'_>, keys: &DerivedKeys, mut body: Vec<u8>) -> String {
    let mut bytes =
        Vec::with_capacity(2 + sealing.kid.len() + HINTS_LEN + NONCE_LEN + body.len() + TAG_LEN);
    header(
        sealing.mode,
        sealing.flags,
        sealing.kid,
        &sealing.hints,
        &mut bytes,
    );
    let header_len = bytes.len();
    match sealing.mode {
        Mode::Aead => {
            let associated = [PREFIX.as_bytes(), &bytes, sealing.bound];
            let tag = aead::seal(&keys.aead, &xnonce(&sealing.nonce), &associated, &mut body);
            bytes.extend_from_slice(&sealing.nonce);
            bytes.extend_from_slice(&body);
            bytes.extend_from_slice(&tag);
        }
        Mode::Hmac => {
            let tag = hmac_tag(keys, &bytes[..header_len], &body, sealing.bound);
            bytes.extend_from_slice(&body);
            bytes.extend_from_slice(&tag);
        }
    }
    let mut token = String::with_capacity(PREFIX.len() + bytes.len().div_ceil(3) * 4);
    token.push_str(PREFIX);
    URL_SAFE_NO_PAD.encode_string(&bytes, &mut token);
    token
}

/// A decoded, not yet authenticated token.
pub(crate) struct Envelope {
    bytes: Vec<u8>,
    header_len: usize,
    mode: Mode,
}

impl Envelope {
    /// Strictly decodes `token` (prefix, canonical base64url without padding, header shape).
    pub(crate) fn decode(token: &str, mode: Mode) -> Result<Self, Rejection> {
        let encoded = token
            .strip_prefix(PREFIX)
            .ok_or(Rejection::Malformed("unknown prefix"))?;
        // The engine rejects padding and non-zero trailing bits, so each token has exactly one
        // accepted spelling.
        let bytes = URL_SAFE_NO_PAD
            .decode(encoded)
            .map_err(|_| Rejection::Malformed("not canonical base64url without padding"))?;
        let [mode_flags, kid_len, ..] = bytes[..] else {
            return Err(Rejection::Malformed("truncated header"));
        };
        let (mode_tag, flags) = (mode_flags >> 4, mode_flags & 0x0f);
        if mode_tag != mode_nibble(Mode::Aead) && mode_tag != mode_nibble(Mode::Hmac) {
            return Err(Rejection::Malformed("unknown mode"));
        }
        if mode_tag != mode_nibble(mode) {
            return Err(Rejection::WrongMode);
        }
        let allowed_flags = match mode {
            Mode::Aead => FLAG_BINARY,
            Mode::Hmac => FLAG_DEFLATED | FLAG_BINARY,
        };
        if flags & !allowed_flags != 0 {
            return Err(Rejection::Malformed("unknown flags"));
        }
        let kid_len = usize::from(kid_len);
        if kid_len == 0 || kid_len > MAX_KEY_ID_LEN {
            return Err(Rejection::Malformed("bad key id length"));
        }
        let header_len = 2 + kid_len + HINTS_LEN;
        let minimum_rest = match mode {
            Mode::Aead => NONCE_LEN + TAG_LEN,
            Mode::Hmac => TAG_LEN,
        };
        if bytes.len() < header_len + minimum_rest {
            return Err(Rejection::Malformed("truncated"));
        }
        if std::str::from_utf8(&bytes[2..2 + kid_len]).is_err() {
            return Err(Rejection::Malformed("key id is not UTF-8"));
        }
        Ok(Self {
            bytes,
            header_len,
            mode,
        })
    }

    pub(crate) fn mode(&self) -> Mode {
        self.mode
    }

    /// The body and token id of an HMAC-mode token, which are readable without a key (and not
    /// authenticated); `None` in AEAD mode, where the body is encrypted.
    pub(crate) fn readable_body(mut self) -> Option<(Vec<u8>, [u8; 16])> {
        if self.mode != Mode::Hmac {
            return None;
        }
        let tag_start = self.bytes.len() - TAG_LEN;
        let id: [u8; 16] = self.bytes[tag_start..].try_into().expect("16 bytes");
        self.bytes.truncate(tag_start);
        Some((self.bytes.split_off(self.header_len), id))
    }

    pub(crate) fn flags(&self) -> u8 {
        self.bytes[0] & 0x0f
    }

    pub(crate) fn key_id(&self) -> &str {
        let kid_len = usize::from(self.bytes[1]);
        std::str::from_utf8(&self.bytes[2..2 + kid_len]).expect("checked in decode")
    }

    /// The binding hints (not authenticated until [`Envelope::open`] succeeds).
    pub(crate) fn hints(&self) -> [u8; HINTS_LEN] {
        let start = self.header_len - HINTS_LEN;
        self.bytes[start..self.header_len]
            .try_into()
            .expect("HINTS_LEN bytes")
    }

    /// What the hints are salted with: the nonce (AEAD) or the flow id at the start of the
    /// readable body (HMAC). `None` if the body is too short to hold a flow id.
    pub(crate) fn salt(&self) -> Option<[u8; 16]> {
        let rest = &self.bytes[self.header_len..];
        rest.get(..16)
            .map(|salt| salt.try_into().expect("16 bytes"))
    }

    /// Verifies the tag (in constant time) against the presented bindings and returns the
    /// body and the token id.
    pub(crate) fn open(
        mut self,
        keys: &DerivedKeys,
        bound: &[u8],
    ) -> Result<(Vec<u8>, [u8; 16]), Rejection> {
        let header_len = self.header_len;
        match self.mode {
            Mode::Aead => {
                let nonce: [u8; NONCE_LEN] = self.bytes[header_len..header_len + NONCE_LEN]
                    .try_into()
                    .expect("NONCE_LEN bytes");
                let tag_start = self.bytes.len() - TAG_LEN;
                let tag: [u8; TAG_LEN] = self.bytes[tag_start..].try_into().expect("16 bytes");
                self.bytes.truncate(tag_start);
                let mut body = self.bytes.split_off(header_len + NONCE_LEN);
                let associated = [PREFIX.as_bytes(), &self.bytes[..header_len], bound];
                aead::open(&keys.aead, &xnonce(&nonce), &associated, &mut body, &tag)
                    .map_err(|_| Rejection::BadTag)?;
                Ok((body, nonce))
            }
            Mode::Hmac => {
                let tag_start = self.bytes.len() - TAG_LEN;
                let mut mac = keys.mac.clone();
                mac.update(PREFIX.as_bytes());
                mac.update(&self.bytes[..tag_start]);
                mac.update(bound);
                mac.verify_truncated_left(&self.bytes[tag_start..])
                    .map_err(|_| Rejection::BadTag)?;
                let id: [u8; 16] = self.bytes[tag_start..].try_into().expect("16 bytes");
                self.bytes.truncate(tag_start);
                Ok((self.bytes.split_off(header_len), id))
            }
        }
    }

    /// The body and token id **without authenticating them** (the tag covers bindings the
    /// caller may not know): for inspection only. AEAD bodies are decrypted with the bare
    /// stream cipher.
    pub(crate) fn read_unauthenticated(mut self, keys: &DerivedKeys) -> (Vec<u8>, [u8; 16]) {
        let header_len = self.header_len;
        let tag_start = self.bytes.len() - TAG_LEN;
        let tag: [u8; 16] = self.bytes[tag_start..].try_into().expect("16 bytes");
        self.bytes.truncate(tag_start);
        match self.mode {
            Mode::Aead => {
                let nonce: [u8; NONCE_LEN] = self.bytes[header_len..header_len + NONCE_LEN]
                    .try_into()
                    .expect("NONCE_LEN bytes");
                let mut body = self.bytes.split_off(header_len + NONCE_LEN);
                aead::decrypt_unauthenticated(&keys.aead, &xnonce(&nonce), &mut body);
                (body, nonce)
            }
            Mode::Hmac => (self.bytes.split_off(header_len), tag),
        }
    }
}
