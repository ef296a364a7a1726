//! The two ways a token can be sealed.

/// How tokens are sealed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Mode {
    /// XChaCha20-Poly1305: confidential and authenticated. The default.
    #[default]
    Aead,
    /// HMAC-SHA256: authenticated, readable by anyone holding the token. Payloads above the
    /// compression threshold are deflated (never in AEAD mode, where compressing
    /// attacker-influenced answers next to secret values would leak through the length).
    Hmac,
}
