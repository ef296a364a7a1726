//! An opened token's payload rendered as JSON, for operators (`mrtr inspect`) and tests. The
//! codec reads tokens as bytes; what those bytes mean is this wing's to say.

use serde_json::Value;

use crate::token::inspect::RawBody;
use crate::token::{InvalidState, Opened, Rejection, StateCodec, TokenHeader};

/// The payload as JSON: an engine state in its inspection form, a JSON payload as it is.
fn render(raw: RawBody) -> Result<Opened<Value>, Rejection> {
    let payload = if raw.binary {
        super::saved::view(&raw.payload)
            .ok_or_else(|| Rejection::BadPayload("the state does not decode".into()))?
    } else {
        serde_json::from_slice(&raw.payload).map_err(|e| Rejection::bad_payload(&e))?
    };
    Ok(Opened {
        claims: raw.claims,
        payload,
    })
}

impl TokenHeader {
    /// Reads the claims and payload of an HMAC-mode token, which are signed but not encrypted,
    /// **without authenticating them** (a compressed payload inflates up to the default 1 MiB
    /// cap). `Ok(None)` for an AEAD token: reading it takes its key
    /// ([`StateCodec::inspect`]).
    pub fn read_signed_body(token: &str) -> Result<Option<Opened<Value>>, Rejection> {
        TokenHeader::read_signed_raw(token)?.map(render).transpose()
    }
}

impl StateCodec {
    /// Reads what `token` holds **without** authenticating it or checking time, bindings or
    /// fingerprint (the tag covers the bindings, which a reader may not know): for tests and
    /// debugging (the testing harness shows kept values with it), never for resuming a flow.
    /// The size cap, strict decoding and the key lookup still apply. An engine state is shown
    /// as JSON: `{"p": pc, "s": steps, "f": {slot: value}, "q": {key: {"r": request, "a":
    /// answer, "n": re-asks}}}`. The claims' fingerprint reads as zeros.
    pub fn inspect(&self, token: &str) -> Result<Opened<Value>, InvalidState> {
        self.inspect_raw(token)
            .and_then(render)
            .map_err(InvalidState::new)
    }
}
