//! Reading a token as an operator does: what it says about itself, and which of the server's
//! checks would refuse it. A server answers every refusal with the same opaque `-32602` and
//! only logs why; these let a tool (`mrtr inspect`) explain it.

use super::binding::Binding;
use super::claims::{self, Claims, Fingerprint};
use super::codec::{DEFAULT_MAX_PAYLOAD_LEN, StateCodec};
use super::error::Rejection;
use super::mode::Mode;
use super::wire::{self, Envelope};

/// What every token shows without a key.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct TokenHeader {
    /// The sealing mode.
    pub mode: Mode,
    /// The id of the key that sealed it.
    pub key_id: String,
    /// The payload is the engine's binary state (a generated machine's), not JSON.
    pub engine_state: bool,
    /// The payload is deflate-compressed (HMAC mode only).
    pub compressed: bool,
}

impl TokenHeader {
    /// Reads the header of `token`, of either mode. Fails as the server would on a token that
    /// is not of this layout (another prefix, bad base64, a truncated or unknown header).
    pub fn read(token: &str) -> Result<Self, Rejection> {
        let envelope = decode_either_mode(token)?;
        let flags = envelope.flags();
        Ok(Self {
            mode: envelope.mode(),
            key_id: envelope.key_id().to_owned(),
            engine_state: flags & wire::FLAG_BINARY != 0,
            compressed: flags & wire::FLAG_DEFLATED != 0,
        })
    }

    /// The claims and payload bytes of an HMAC-mode token, unauthenticated; `None` for an
    /// AEAD token. Rendered by `TokenHeader::read_signed_body` (state/inspect.rs).
    pub(crate) fn read_signed_raw(token: &str) -> Result<Option<RawBody>, Rejection> {
        let envelope = decode_either_mode(token)?;
        let flags = envelope.flags();
        let Some((body, id)) = envelope.readable_body() else {
            return Ok(None);
        };
        read_body(flags, &body, id, DEFAULT_MAX_PAYLOAD_LEN).map(Some)
    }
}

fn decode_either_mode(token: &str) -> Result<Envelope, Rejection> {
    match Envelope::decode(token, Mode::Aead) {
        Err(Rejection::WrongMode) => Envelope::decode(token, Mode::Hmac),
        decoded => decoded,
    }
}

/// What an opened or merely read token holds, its payload as bytes: the codec does not know
/// the state's layout (the state wing renders it).
pub(crate) struct RawBody {
    pub(crate) claims: Claims,
    pub(crate) payload: Vec<u8>,
    /// The payload is the engine's binary state, not JSON.
    pub(crate) binary: bool,
}

/// The claims and the (inflated) payload of a body read or opened already. The claims'
/// fingerprint reads as zeros: it is bound through the tag, never stored.
pub(super) fn read_body(
    flags: u8,
    body: &[u8],
    id: [u8; 16],
    max_payload_len: usize,
) -> Result<RawBody, Rejection> {
    let unknown = Fingerprint::from_bytes([0; 16]);
    let (claims, payload): (Claims, &[u8]) = claims::decode_claims(body, id, unknown)
        .ok_or(Rejection::Malformed("claims do not decode"))?;
    let payload = super::compression::inflate(flags, payload, max_payload_len)?;
    Ok(RawBody {
        claims,
        payload,
        binary: flags & wire::FLAG_BINARY != 0,
    })
}

impl StateCodec {
    /// What `token` holds, unauthenticated, its payload as bytes: the base of
    /// `StateCodec::inspect` (state/inspect.rs), which renders the payload.
    pub(crate) fn inspect_raw(&self, token: &str) -> Result<RawBody, Rejection> {
        let (envelope, keys) = self.envelope(token)?;
        let flags = envelope.flags();
        let (body, id) = envelope.read_unauthenticated(&keys);
        read_body(flags, &body, id, self.max_payload_len())
    }

    /// Runs the server's checks on `token` presented with `binding` to code of
    /// `fingerprint`, in the server's order: `Ok` if the server would accept it, else the
    /// first check that refuses it. Nothing is logged. The payload itself is not decoded, nor
    /// its resume point looked up: those take the machine.
    pub fn check(
        &self,
        token: &str,
        binding: &Binding<'_>,
        fingerprint: Fingerprint,
    ) -> Result<(), Rejection> {
        self.verify(token, binding, fingerprint).map(|_| ())
    }
}

impl Rejection {
    /// The check that refused, as a short stable name (for metrics and machine-readable
    /// output): `size`, `malformed`, `mode`, `unknown_key`, `altered`, `issued_in_future`,
    /// `expired`, `flow_expired`, `audience`, `method`, `target`, `arguments`, `principal`,
    /// `code` or `payload`.
    pub fn check(&self) -> &'static str {
        match self {
            Self::Oversized { .. } => "size",
            Self::Malformed(_) => "malformed",
            Self::WrongMode => "mode",
            Self::UnknownKeyId(_) => "unknown_key",
            Self::BadTag => "altered",
            Self::IssuedInFuture => "issued_in_future",
            Self::Expired => "expired",
            Self::FlowExpired => "flow_expired",
            Self::WrongAudience => "audience",
            Self::WrongMethod => "method",
            Self::WrongTarget => "target",
            Self::WrongArguments => "arguments",
            Self::WrongPrincipal => "principal",
            Self::WrongFingerprint => "code",
            Self::BadPayload(_) => "payload",
        }
    }
}
