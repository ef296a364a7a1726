//! The token's byte layout and its two sealing modes.
//!
//! ```text
//! token  = "m1." base64url-no-pad(header rest)
//! header = mode:u8 flags:u8 kid_len:u8 kid
//! rest   = AEAD: nonce[24] ciphertext(body) tag[16]      (associated data: "m1." header)
//!          HMAC: body tag[32]                            (MAC over "m1." header body)
//! body   = claims payload
//! ```

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use chacha20poly1305::aead::{Aead, KeyInit, Payload};
use chacha20poly1305::{XChaCha20Poly1305, XNonce};
use hmac::{Hmac, Mac};
use sha2::Sha256;

use super::Mode;
use super::error::Rejection;
use super::keys::{DerivedKeys, MAX_KEY_ID_LEN};

/// Version prefix of every token this crate seals.
pub(crate) const PREFIX: &str = "m1.";

/// Flag bit: the payload after the claims is deflate-compressed (HMAC mode only).
pub(crate) const FLAG_DEFLATED: u8 = 0b0000_0001;

const NONCE_LEN: usize = 24;
const AEAD_TAG_LEN: usize = 16;
const HMAC_TAG_LEN: usize = 32;

fn mode_byte(mode: Mode) -> u8 {
    match mode {
        Mode::Aead => 1,
        Mode::Hmac => 2,
    }
}

fn header(mode: Mode, flags: u8, kid: &str) -> Vec<u8> {
    let mut header = Vec::with_capacity(3 + kid.len());
    header.extend_from_slice(&[mode_byte(mode), flags, kid.len() as u8]);
    header.extend_from_slice(kid.as_bytes());
    header
}

fn hmac_tag(keys: &DerivedKeys, header: &[u8], body: &[u8]) -> Hmac<Sha256> {
    let mut mac = keys.mac.clone();
    mac.update(PREFIX.as_bytes());
    mac.update(header);
    mac.update(body);
    mac
}

fn associated_data(header: &[u8]) -> Vec<u8> {
    [PREFIX.as_bytes(), header].concat()
}

/// Seals `body` under `keys`; `kid` must already be a valid key id.
pub(crate) fn seal(mode: Mode, flags: u8, kid: &str, keys: &DerivedKeys, body: &[u8]) -> String {
    let header = header(mode, flags, kid);
    let mut bytes = header.clone();
    match mode {
        Mode::Aead => {
            let mut nonce = [0u8; NONCE_LEN];
            super::fill_random(&mut nonce);
            let cipher = XChaCha20Poly1305::new((&keys.aead).into());
            let aad = associated_data(&header);
            let sealed = cipher
                .encrypt(
                    XNonce::from_slice(&nonce),
                    Payload {
                        msg: body,
                        aad: &aad,
                    },
                )
                .expect("XChaCha20-Poly1305 encryption cannot fail for in-memory buffers");
            bytes.extend_from_slice(&nonce);
            bytes.extend_from_slice(&sealed);
        }
        Mode::Hmac => {
            bytes.extend_from_slice(body);
            bytes.extend_from_slice(&hmac_tag(keys, &header, body).finalize().into_bytes());
        }
    }
    let mut token = String::with_capacity(PREFIX.len() + bytes.len() * 4 / 3 + 4);
    token.push_str(PREFIX);
    URL_SAFE_NO_PAD.encode_string(&bytes, &mut token);
    token
}

/// A decoded, not yet authenticated token.
pub(crate) struct Envelope {
    bytes: Vec<u8>,
    header_len: usize,
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
        let [mode_tag, flags, kid_len, ..] = bytes[..] else {
            return Err(Rejection::Malformed("truncated header"));
        };
        if mode_tag != mode_byte(Mode::Aead) && mode_tag != mode_byte(Mode::Hmac) {
            return Err(Rejection::Malformed("unknown mode"));
        }
        if mode_tag != mode_byte(mode) {
            return Err(Rejection::WrongMode);
        }
        let allowed_flags = match mode {
            Mode::Aead => 0,
            Mode::Hmac => FLAG_DEFLATED,
        };
        if flags & !allowed_flags != 0 {
            return Err(Rejection::Malformed("unknown flags"));
        }
        let kid_len = usize::from(kid_len);
        if kid_len == 0 || kid_len > MAX_KEY_ID_LEN {
            return Err(Rejection::Malformed("bad key id length"));
        }
        let header_len = 3 + kid_len;
        let minimum_rest = match mode {
            Mode::Aead => NONCE_LEN + AEAD_TAG_LEN,
            Mode::Hmac => HMAC_TAG_LEN,
        };
        if bytes.len() < header_len + minimum_rest {
            return Err(Rejection::Malformed("truncated"));
        }
        if std::str::from_utf8(&bytes[3..header_len]).is_err() {
            return Err(Rejection::Malformed("key id is not UTF-8"));
        }
        Ok(Self { bytes, header_len })
    }

    pub(crate) fn flags(&self) -> u8 {
        self.bytes[1]
    }

    pub(crate) fn key_id(&self) -> &str {
        std::str::from_utf8(&self.bytes[3..self.header_len]).expect("checked in decode")
    }

    /// Verifies the tag (in constant time) and returns the body.
    pub(crate) fn open(&self, mode: Mode, keys: &DerivedKeys) -> Result<Vec<u8>, Rejection> {
        let (header, rest) = self.bytes.split_at(self.header_len);
        match mode {
            Mode::Aead => {
                let (nonce, sealed) = rest.split_at(NONCE_LEN);
                let cipher = XChaCha20Poly1305::new((&keys.aead).into());
                let aad = associated_data(header);
                cipher
                    .decrypt(
                        XNonce::from_slice(nonce),
                        Payload {
                            msg: sealed,
                            aad: &aad,
                        },
                    )
                    .map_err(|_| Rejection::BadTag)
            }
            Mode::Hmac => {
                let (body, tag) = rest.split_at(rest.len() - HMAC_TAG_LEN);
                hmac_tag(keys, header, body)
                    .verify_slice(tag)
                    .map_err(|_| Rejection::BadTag)?;
                Ok(body.to_vec())
            }
        }
    }
}
