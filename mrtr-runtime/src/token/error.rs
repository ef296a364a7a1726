//! Errors of the token layer: one opaque rejection for clients, precise reasons for operators.

use std::fmt;

/// Why a `requestState` was refused. Logged and available to the host through
/// [`InvalidState::reason`]; never shown to the client, which only learns that the state is
/// invalid.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Rejection {
    /// Longer than the configured size cap (checked before anything is decoded).
    Oversized {
        /// Length of the token that arrived.
        len: usize,
        /// The cap.
        max: usize,
    },
    /// Not a token of this format: wrong prefix, bad base64, non-canonical encoding, truncated
    /// or with unknown header bits.
    Malformed(&'static str),
    /// Sealed in the other mode (AEAD vs HMAC) than this codec uses.
    WrongMode,
    /// Sealed with a key id that is not (or no longer) in the key ring.
    UnknownKeyId(String),
    /// The authentication tag does not match: the token was altered or forged.
    BadTag,
    /// Issued further in the future than the clock-skew allowance.
    IssuedInFuture,
    /// The per-round expiry has passed.
    Expired,
    /// The flow's absolute deadline has passed.
    FlowExpired,
    /// Sealed for another audience (another deployment sharing the key).
    WrongAudience,
    /// Sealed for another method.
    WrongMethod,
    /// Sealed for another tool, prompt or resource URI.
    WrongTarget,
    /// Sealed for other arguments.
    WrongArguments,
    /// Sealed for another principal.
    WrongPrincipal,
    /// Sealed by code of another shape (a deploy happened mid-flow).
    WrongFingerprint,
    /// The payload did not decode into the expected type.
    BadPayload(String),
}

impl Rejection {
    /// A payload that did not decode, described without quoting it: serde's messages quote the
    /// offending value, and decrypted kept values must never reach the logs.
    pub(crate) fn bad_payload(error: &serde_json::Error) -> Self {
        Self::BadPayload(describe_json_error(error))
    }
}

/// A serde_json error's category and position, never its message (which may quote a value).
pub(crate) fn describe_json_error(error: &serde_json::Error) -> String {
    let category = match error.classify() {
        serde_json::error::Category::Io => "I/O error",
        serde_json::error::Category::Syntax => "syntax error",
        serde_json::error::Category::Data => "a value of the wrong type or shape",
        serde_json::error::Category::Eof => "unexpected end",
    };
    format!(
        "{category} at line {} column {}",
        error.line(),
        error.column()
    )
}

impl fmt::Display for Rejection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Oversized { len, max } => write!(f, "token is {len} bytes, the cap is {max}"),
            Self::Malformed(what) => write!(f, "malformed token: {what}"),
            Self::WrongMode => f.write_str("token was sealed in the other mode (AEAD/HMAC)"),
            Self::UnknownKeyId(id) => write!(f, "unknown key id {id:?} (retired or never added)"),
            Self::BadTag => f.write_str("authentication tag mismatch (altered or forged)"),
            Self::IssuedInFuture => f.write_str("issued in the future beyond the clock skew"),
            Self::Expired => f.write_str("round expired"),
            Self::FlowExpired => f.write_str("flow deadline passed"),
            Self::WrongAudience => f.write_str("sealed for another audience"),
            Self::WrongMethod => f.write_str("sealed for another method"),
            Self::WrongTarget => f.write_str("sealed for another tool, prompt or resource"),
            Self::WrongArguments => f.write_str("sealed for other arguments"),
            Self::WrongPrincipal => f.write_str("sealed for another principal"),
            Self::WrongFingerprint => {
                f.write_str("sealed by another version of the code (fingerprint mismatch)")
            }
            Self::BadPayload(why) => write!(f, "payload does not decode: {why}"),
        }
    }
}

/// A `requestState` that failed verification.
///
/// Its `Display` is the one opaque message clients see, whatever went wrong; the real cause is
/// logged when the error is created and is available to the host through [`Self::reason`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InvalidState {
    reason: Rejection,
}

impl InvalidState {
    /// The message sent to clients for every invalid state.
    pub const MESSAGE: &'static str = "invalid requestState";

    pub(crate) fn new(reason: Rejection) -> Self {
        tracing::warn!(target: "mrtr::state", %reason, "rejected requestState");
        Self { reason }
    }

    /// Why the state was refused. For logs and metrics only: never send it to the client.
    pub fn reason(&self) -> &Rejection {
        &self.reason
    }
}

impl fmt::Display for InvalidState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(Self::MESSAGE)
    }
}

impl std::error::Error for InvalidState {}

/// Sealing failed. These are server-side faults, never the client's.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SealError {
    /// The payload could not be serialized.
    #[error("the state payload could not be serialized: {0}")]
    Serialize(#[from] serde_json::Error),
    /// The sealed token would be larger than the codec accepts when opening.
    #[error(
        "the sealed requestState would be {len} bytes, over the cap of {max}; keep fewer or \
         smaller values alive across asks, or raise the cap with `max_token_len`"
    )]
    TooLarge {
        /// Length the token would have had.
        len: usize,
        /// The cap.
        max: usize,
    },
    /// The payload is larger than the codec opens (see `max_payload_len`), before compression.
    #[error(
        "the requestState payload would be {len} bytes, over the cap of {max}; keep fewer or \
         smaller values alive across asks, or raise the cap with `max_payload_len`"
    )]
    PayloadTooLarge {
        /// Length of the serialized payload.
        len: usize,
        /// The cap.
        max: usize,
    },
    /// The key ring has no signing key (every key was retired or none was promoted).
    #[error("the key ring has no signing key; promote one with `KeyRing::promote`")]
    NoSigningKey,
}

/// A key or key-ring operation was refused.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum KeyError {
    /// The key is shorter than [`MIN_KEY_LEN`](super::MIN_KEY_LEN).
    #[error("state keys must be at least 32 bytes, this one has {len}")]
    TooShort {
        /// Length of the refused key.
        len: usize,
    },
    /// The key text is not base64.
    #[error("state key is not valid base64 (standard or URL-safe)")]
    NotBase64,
    /// The key id has characters outside `A-Z a-z 0-9 . _ -` or a bad length.
    #[error("invalid key id {id:?}: use 1 to 32 characters of A-Z a-z 0-9 . _ -")]
    InvalidKeyId {
        /// The refused id.
        id: String,
    },
    /// The id is already in the ring.
    #[error("key id {id:?} is already in the ring")]
    DuplicateKeyId {
        /// The duplicate id.
        id: String,
    },
    /// The id is not in the ring.
    #[error("key id {id:?} is not in the ring")]
    UnknownKeyId {
        /// The missing id.
        id: String,
    },
    /// Attempt to retire the key that signs.
    #[error("key {id:?} signs new tokens; promote another key before retiring it")]
    RetireSigningKey {
        /// The signing key's id.
        id: String,
    },
    /// The ring has no signing key.
    #[error("the key ring has no signing key; promote one with `KeyRing::promote`")]
    NoSigningKey,
    /// The key configuration could not be read.
    #[error("invalid key configuration: {reason}")]
    Config {
        /// What is wrong (never includes key material).
        reason: String,
    },
}
