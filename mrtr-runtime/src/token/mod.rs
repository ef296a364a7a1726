//! The sealed `requestState` token.
//!
//! MRTR keeps no server memory between rounds: everything a retry needs travels in the
//! `requestState` the client echoes. That string is attacker-controlled, so this module seals
//! it and checks, before any user code runs, that it was minted by this deployment, for this
//! request, for this principal, by this version of the code, recently.
//!
//! * [`Mode::Aead`] (the default) encrypts with XChaCha20-Poly1305: the client can read
//!   nothing, which matters because the macro, not the author, decides what is kept.
//! * [`Mode::Hmac`] signs with HMAC-SHA256 and leaves the payload readable (and compresses large
//!   payloads), for deployments that want to inspect tokens.
//!
//! ```
//! use mrtr::token::{Binding, Fingerprint, KeyId, KeyRing, SecretKey, StateCodec};
//! use serde_json::json;
//!
//! let ring = KeyRing::with_signing_key(KeyId::new("k1")?, SecretKey::random());
//! let codec = StateCodec::builder().key_ring(ring).audience("weather").build()?;
//!
//! let args = json!({"location": "Paris"});
//! let binding = Binding::new("tools/call", "get_weather", Some(&args)).principal(Some("alice"));
//! let fingerprint = Fingerprint::of(b"get_weather v1");
//!
//! let flow = codec.start_flow(fingerprint);
//! let token = codec.seal(&flow, &binding, &json!({"pc": 1}))?;
//!
//! let opened = codec.open::<serde_json::Value>(&token, &binding, fingerprint)?;
//! assert_eq!(opened.payload, json!({"pc": 1}));
//! assert_eq!(opened.claims.flow().round(), 1);
//!
//! // Presented by someone else, it is refused with one opaque error.
//! let bob = binding.principal(Some("bob"));
//! let error = codec.open::<serde_json::Value>(&token, &bob, fingerprint).unwrap_err();
//! assert_eq!(error.to_string(), "invalid requestState");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod aead;
mod binding;
mod canonical;
mod claims;
mod clock;
mod codec;
mod compression;
mod error;
pub(crate) mod inspect;
mod keys;
mod mode;
mod poly1305;
mod wire;

pub use binding::Binding;
pub use canonical::{ArgumentsDigest, canonical_json};
pub use claims::{Claims, Fingerprint, Flow, FlowId, TokenId};
pub use clock::{Clock, ManualClock, SystemClock};
pub use codec::{DEFAULT_CLOCK_SKEW, Opened, StateCodec, StateCodecBuilder};
pub use error::{InvalidState, KeyError, Rejection, SealError};
pub use inspect::TokenHeader;
pub use mode::Mode;
// For the driver: a kept value that fails to decode is logged without quoting it.
#[allow(unused_imports)]
pub(crate) use error::describe_json_error;
pub use keys::{KEYS_ENV_VAR, KeyId, KeyRing, MAX_KEY_ID_LEN, MIN_KEY_LEN, SecretKey};
