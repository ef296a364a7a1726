//! [`StateCodec`]: seals a flow's state into a token and opens it again, checking every binding
//! before anything of the author's runs.

use std::io::Write as _;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use serde::Serialize;
use serde::de::DeserializeOwned;

use super::binding::{self, Binding, Hints};
use super::claims::{self, Claims, Fingerprint, Flow, FlowId, TokenId};
use super::clock::{Clock, SystemClock};
use super::error::{InvalidState, KeyError, Rejection, SealError};
use super::keys::{self, KEYS_ENV_VAR, KeyId, KeyRing, SecretKey};
use super::mode::Mode;
use super::{compression, wire};
use crate::bytes::{fill_random, hex};

/// A verified token: its claims and its payload.
#[derive(Clone, Debug)]
pub struct Opened<P> {
    /// What the token asserted about itself.
    pub claims: Claims,
    /// The payload it was sealed with.
    pub payload: P,
}

/// Seals and opens `requestState` tokens. Cheap to clone; clones share keys and settings.
#[derive(Clone)]
pub struct StateCodec {
    inner: Arc<Settings>,
}

struct Settings {
    mode: Mode,
    ring: KeyRing,
    audience: String,
    round_ttl: u64,
    clock_skew: u64,
    flow_ttl: u64,
    max_token_len: usize,
    compress_above: Option<usize>,
    max_payload_len: usize,
    clock: Arc<dyn Clock>,
}

impl StateCodec {
    /// Starts configuring a codec.
    pub fn builder() -> StateCodecBuilder {
        StateCodecBuilder::default()
    }

    /// The sealing mode.
    pub fn mode(&self) -> Mode {
        self.inner.mode
    }

    /// The key ring; rotate keys through it while the codec is in use.
    pub fn key_ring(&self) -> &KeyRing {
        &self.inner.ring
    }

    /// The audience every token is bound to.
    pub fn audience(&self) -> &str {
        &self.inner.audience
    }

    /// How far (seconds) a token's times may be off this codec's clock and still be accepted:
    /// the clock-skew allowance between the instance that sealed it and this one.
    pub fn clock_skew(&self) -> u64 {
        self.inner.clock_skew
    }

    /// The codec's current time, in seconds since the epoch.
    pub fn now(&self) -> u64 {
        self.inner.clock.now()
    }

    /// The last instant (seconds since the epoch) at which this codec still accepts a token
    /// with these claims: its expiry or the flow deadline, whichever is sooner, plus the
    /// clock-skew allowance. A single-use store must remember the token's id until then.
    pub fn accepted_until(&self, claims: &Claims) -> u64 {
        claims
            .expires_at
            .min(claims.flow.deadline)
            .saturating_add(self.inner.clock_skew)
    }

    /// Begins a new flow at round 1, with a fresh id and the configured absolute deadline.
    pub fn start_flow(&self, fingerprint: Fingerprint) -> Flow {
        Flow {
            id: FlowId::random(),
            deadline: self.now().saturating_add(self.inner.flow_ttl),
            round: 1,
            fingerprint,
        }
    }

    /// Seals `payload` (as JSON) as the state of `flow`, bound to `binding`.
    ///
    /// The token expires after the round TTL (or at the flow deadline, if sooner).
    pub fn seal<P: Serialize + ?Sized>(
        &self,
        flow: &Flow,
        binding: &Binding<'_>,
        payload: &P,
    ) -> Result<String, SealError> {
        self.seal_bytes(flow, binding, serde_json::to_vec(payload)?, 0)
    }

    /// Seals the engine's binary state.
    pub(crate) fn seal_state(
        &self,
        flow: &Flow,
        binding: &Binding<'_>,
        state: Vec<u8>,
    ) -> Result<String, SealError> {
        self.seal_bytes(flow, binding, state, wire::FLAG_BINARY)
    }

    fn seal_bytes(
        &self,
        flow: &Flow,
        binding: &Binding<'_>,
        payload: Vec<u8>,
        mut flags: u8,
    ) -> Result<String, SealError> {
        let settings = &*self.inner;
        let (kid, keys) = settings.ring.signer().ok_or(SealError::NoSigningKey)?;
        let now = self.now();
        // Checked before compression: a payload over the open limit would seal and never open.
        if payload.len() > settings.max_payload_len {
            return Err(SealError::PayloadTooLarge {
                len: payload.len(),
                max: settings.max_payload_len,
            });
        }
        let payload = match settings.compress_above {
            Some(threshold) if settings.mode == Mode::Hmac && payload.len() > threshold => {
                match compression::deflate(&payload) {
                    Some(deflated) => {
                        flags |= wire::FLAG_DEFLATED;
                        deflated
                    }
                    None => payload,
                }
            }
            _ => payload,
        };
        let claims = Claims {
            // The id is the nonce or the tag; it is not part of the body.
            token_id: TokenId::from_bytes([0; 16]),
            issued_at: now,
            expires_at: now.saturating_add(settings.round_ttl).min(flow.deadline),
            flow: *flow,
        };
        let mut body = Vec::with_capacity(40 + payload.len() + wire::TAG_LEN);
        claims::encode_claims(&claims, &mut body);
        body.extend_from_slice(&payload);
        let mut nonce = [0u8; wire::NONCE_LEN];
        let salt = match settings.mode {
            Mode::Aead => {
                fill_random(&mut nonce);
                nonce
            }
            Mode::Hmac => *flow.id.as_bytes(),
        };
        let hints = Hints::compute(&keys, &salt, &settings.audience, binding, flow.fingerprint);
        let bound = binding::bound(&settings.audience, binding, flow.fingerprint);
        let sealing = wire::Sealing {
            mode: settings.mode,
            flags,
            kid: kid.as_str(),
            hints: hints.0,
            nonce,
            bound: &bound,
        };
        let token = wire::seal(&sealing, &keys, body);
        if token.len() > settings.max_token_len {
            return Err(SealError::TooLarge {
                len: token.len(),
                max: settings.max_token_len,
            });
        }
        Ok(token)
    }

    /// Verifies `token` against the request it is presented with and decodes its (JSON)
    /// payload.
    ///
    /// Checks run in this order, and the first failure ends verification: size cap, strict
    /// decoding, key lookup, tag (constant time; it covers the bindings: audience, method,
    /// target, arguments, principal, fingerprint), timing claims, payload decoding. Every
    /// failure is the same opaque [`InvalidState`]; the reason is logged under the
    /// `mrtr::state` target (for a tag that fails, the binding that most likely differs).
    pub fn open<P: DeserializeOwned>(
        &self,
        token: &str,
        binding: &Binding<'_>,
        fingerprint: Fingerprint,
    ) -> Result<Opened<P>, InvalidState> {
        let (claims, payload, flags) = self
            .verify(token, binding, fingerprint)
            .map_err(InvalidState::new)?;
        if flags & wire::FLAG_BINARY != 0 {
            return Err(InvalidState::new(Rejection::BadPayload(
                "an engine state, not a JSON payload".into(),
            )));
        }
        let payload = serde_json::from_slice(&payload)
            .map_err(|e| InvalidState::new(Rejection::bad_payload(&e)))?;
        Ok(Opened { claims, payload })
    }

    /// Verifies a token sealed with the engine's binary state, as [`StateCodec::open`] does.
    pub(crate) fn open_state(
        &self,
        token: &str,
        binding: &Binding<'_>,
        fingerprint: Fingerprint,
    ) -> Result<Opened<Vec<u8>>, InvalidState> {
        let (claims, payload, flags) = self
            .verify(token, binding, fingerprint)
            .map_err(InvalidState::new)?;
        if flags & wire::FLAG_BINARY == 0 {
            return Err(InvalidState::new(Rejection::BadPayload(
                "a JSON payload, not an engine state".into(),
            )));
        }
        Ok(Opened { claims, payload })
    }

    /// The first checks of every read: size cap, strict decoding, key lookup.
    /// The largest payload a token may inflate to.
    pub(super) fn max_payload_len(&self) -> usize {
        self.inner.max_payload_len
    }

    pub(super) fn envelope(
        &self,
        token: &str,
    ) -> Result<(wire::Envelope, Arc<keys::DerivedKeys>), Rejection> {
        let settings = &*self.inner;
        if token.len() > settings.max_token_len {
            return Err(Rejection::Oversized {
                len: token.len(),
                max: settings.max_token_len,
            });
        }
        let envelope = wire::Envelope::decode(token, settings.mode)?;
        let keys = settings
            .ring
            .find(envelope.key_id())
            .ok_or_else(|| Rejection::UnknownKeyId(envelope.key_id().to_owned()))?;
        Ok((envelope, keys))
    }

    /// Every check of [`StateCodec::open`] but the payload's decoding.
    pub(super) fn verify(
        &self,
        token: &str,
        binding: &Binding<'_>,
        fingerprint: Fingerprint,
    ) -> Result<(Claims, Vec<u8>, u8), Rejection> {
        let settings = &*self.inner;
        let (envelope, keys) = self.envelope(token)?;
        let (flags, hints, salt) = (envelope.flags(), envelope.hints(), envelope.salt());
        let bound = binding::bound(&settings.audience, binding, fingerprint);
        let (body, id) = envelope.open(&keys, &bound).map_err(|rejection| {
            // Which binding differs, as far as the hints tell.
            salt.and_then(|salt| {
                let expected =
                    Hints::compute(&keys, &salt, &settings.audience, binding, fingerprint);
                Hints(hints).first_mismatch(&expected)
            })
            .unwrap_or(rejection)
        })?;
        let (claims, payload) = claims::decode_claims(&body, id, fingerprint)
            .ok_or(Rejection::Malformed("claims do not decode"))?;
        let now = self.now();
        if claims.issued_at > now.saturating_add(settings.clock_skew) {
            return Err(Rejection::IssuedInFuture);
        }
        let late = |deadline: u64| now > deadline.saturating_add(settings.clock_skew);
        if late(claims.flow.deadline) {
            return Err(Rejection::FlowExpired);
        }
        if late(claims.expires_at) {
            return Err(Rejection::Expired);
        }
        let payload = compression::inflate(flags, payload, settings.max_payload_len)?;
        Ok((claims, payload, flags))
    }
}

/// The default clock-skew allowance of a codec ([`StateCodecBuilder::clock_skew`]): 30 s.
pub const DEFAULT_CLOCK_SKEW: Duration = Duration::from_secs(30);

/// The default cap on a payload's size, before compression and after inflating.
pub(super) const DEFAULT_MAX_PAYLOAD_LEN: usize = 1024 * 1024;

impl std::fmt::Debug for StateCodec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StateCodec")
            .field("mode", &self.inner.mode)
            .field("audience", &self.inner.audience)
            .field("ring", &self.inner.ring)
            .finish_non_exhaustive()
    }
}

/// Configures a [`StateCodec`]. Every setting has a safe default.
pub struct StateCodecBuilder {
    mode: Mode,
    ring: Option<KeyRing>,
    audience: String,
    round_ttl: Duration,
    clock_skew: Duration,
    flow_ttl: Duration,
    max_token_len: usize,
    compress_above: Option<usize>,
    max_payload_len: usize,
    clock: Arc<dyn Clock>,
}

impl Default for StateCodecBuilder {
    fn default() -> Self {
        Self {
            mode: Mode::Aead,
            ring: None,
            audience: "mrtr".to_owned(),
            round_ttl: Duration::from_secs(10 * 60),
            clock_skew: DEFAULT_CLOCK_SKEW,
            flow_ttl: Duration::from_secs(60 * 60),
            max_token_len: 64 * 1024,
            compress_above: Some(4096),
            max_payload_len: DEFAULT_MAX_PAYLOAD_LEN,
            clock: Arc::new(SystemClock),
        }
    }
}

impl StateCodecBuilder {
    /// Sealing mode (default [`Mode::Aead`]).
    pub fn mode(mut self, mode: Mode) -> Self {
        self.mode = mode;
        self
    }

    /// The keys to seal and verify with.
    ///
    /// Without this, the ring comes from [`KEYS_ENV_VAR`] if it is set, and otherwise from a
    /// random key shared by every codec in this process, with a warning: several instances
    /// behind a load balancer need one shared key, or every retry that lands elsewhere fails.
    pub fn key_ring(mut self, ring: KeyRing) -> Self {
        self.ring = Some(ring);
        self
    }

    /// The audience tokens are bound to (default `"mrtr"`). Give each deployment that shares
    /// a key its own audience so their tokens cannot be swapped.
    pub fn audience(mut self, audience: impl Into<String>) -> Self {
        self.audience = audience.into();
        self
    }

    /// How long one round's token stays valid (default 10 minutes).
    pub fn round_ttl(mut self, ttl: Duration) -> Self {
        self.round_ttl = ttl;
        self
    }

    /// Allowance for clocks that disagree between instances (default 30 s).
    pub fn clock_skew(mut self, skew: Duration) -> Self {
        self.clock_skew = skew;
        self
    }

    /// Absolute lifetime of a whole flow, counted from its first round (default 1 hour).
    pub fn flow_ttl(mut self, ttl: Duration) -> Self {
        self.flow_ttl = ttl;
        self
    }

    /// Longest token accepted or produced, in bytes (default 64 KiB).
    pub fn max_token_len(mut self, len: usize) -> Self {
        self.max_token_len = len;
        self
    }

    /// Deflate payloads longer than this many bytes in HMAC mode (default 4096; `None` never).
    /// Deflating costs about 10 µs a seal for a few hundred bytes and grows with the size (some
    /// 40 µs for 4 KiB; inflating 4–5 µs), so it pays for large payloads, or where token size
    /// matters more than CPU.
    /// Ignored in AEAD mode.
    pub fn compress_above(mut self, threshold: Option<usize>) -> Self {
        self.compress_above = threshold;
        self
    }

    /// Largest payload, in bytes before compression, that is sealed or opened (default 1 MiB).
    /// Sealing refuses a larger payload rather than mint a token that could never be opened.
    pub fn max_payload_len(mut self, len: usize) -> Self {
        self.max_payload_len = len;
        self
    }

    /// The clock (default [`SystemClock`]).
    pub fn clock(mut self, clock: impl Clock) -> Self {
        self.clock = Arc::new(clock);
        self
    }

    /// Builds the codec. Fails if the configured ring (or [`KEYS_ENV_VAR`]) has no signing key
    /// or cannot be parsed.
    pub fn build(self) -> Result<StateCodec, KeyError> {
        let ring = match self.ring {
            Some(ring) => ring,
            None => KeyRing::from_env()?.unwrap_or_else(process_key_ring),
        };
        if ring.signing_key_id().is_none() {
            return Err(KeyError::NoSigningKey);
        }
        Ok(StateCodec {
            inner: Arc::new(Settings {
                mode: self.mode,
                ring,
                audience: self.audience,
                round_ttl: self.round_ttl.as_secs(),
                clock_skew: self.clock_skew.as_secs(),
                flow_ttl: self.flow_ttl.as_secs(),
                max_token_len: self.max_token_len,
                compress_above: self.compress_above,
                max_payload_len: self.max_payload_len,
                clock: self.clock,
            }),
        })
    }
}

/// The line printed to stderr, once per process, when no key is configured.
const NO_KEY_WARNING: &str = "mrtr: no requestState key configured (MRTR_STATE_KEYS): \
     using a random key for this process only, so its tokens will not survive a restart or work \
     on another instance; run `mrtr keygen` and set MRTR_STATE_KEYS=<its output> on every instance";

/// One random key per process, so that every codec built without configuration (rmcp's HTTP
/// service builds a handler per request) accepts the others' tokens.
fn process_key_ring() -> KeyRing {
    static PROCESS_KEY: OnceLock<SecretKey> = OnceLock::new();
    let key = PROCESS_KEY.get_or_init(|| {
        // Straight to stderr as well: a server without a tracing subscriber (the quick start
        // installs none) would otherwise only show `invalid requestState` on its second
        // instance. stdout is left alone: over stdio it carries the protocol. A stderr that
        // cannot be written to is no reason to stop the server (`eprintln!` would panic).
        let _ = writeln!(std::io::stderr(), "{NO_KEY_WARNING}");
        tracing::warn!(
            target: "mrtr::state",
            "no requestState key configured: using a random key for this process only. \
             Tokens will not survive a restart and will be refused by other instances; set \
             {KEYS_ENV_VAR}=id:base64key (32+ bytes) or pass a KeyRing to the codec"
        );
        SecretKey::random()
    });
    KeyRing::with_signing_key(process_key_id().clone(), key.clone())
}

/// `process-` and 16 random hex digits: a token that reaches another instance with its own
/// random key is then logged as sealed with an unknown key, not as forged.
fn process_key_id() -> &'static KeyId {
    static PROCESS_KEY_ID: OnceLock<KeyId> = OnceLock::new();
    PROCESS_KEY_ID.get_or_init(|| {
        let mut suffix = [0u8; 8];
        fill_random(&mut suffix);
        KeyId::new(format!("process-{}", hex(&suffix))).expect("valid key id")
    })
}
