//! `mrtr keygen [--id ID]`: a fresh 32-byte key, as one `MRTR_STATE_KEYS` entry. Put it first
//! in the variable to sign with it; keep the old entries after it until their tokens expired.

use std::ffi::OsString;
use std::process::ExitCode;

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use mrtr_runtime::token::{KeyId, MIN_KEY_LEN};

pub(crate) fn run(args: Vec<OsString>) -> Result<ExitCode, String> {
    use lexopt::prelude::*;
    let mut parser = lexopt::Parser::from_args(args);
    let mut id = None;
    while let Some(arg) = parser.next().map_err(|error| error.to_string())? {
        match arg {
            Long("id") => {
                let value = parser.value().map_err(|error| error.to_string())?;
                id = Some(value.string().map_err(|error| error.to_string())?);
            }
            other => return Err(other.unexpected().to_string()),
        }
    }
    println!("{}", entry(id)?);
    Ok(ExitCode::SUCCESS)
}

/// `id:base64url(32 random bytes)`; the id defaults to the current year and month.
fn entry(id: Option<String>) -> Result<String, String> {
    let id = id.unwrap_or_else(this_month);
    KeyId::new(id.clone()).map_err(|error| format!("--id {id:?}: {error}"))?;
    let mut key = [0u8; MIN_KEY_LEN];
    getrandom::fill(&mut key).map_err(|error| format!("no randomness from the system: {error}"))?;
    Ok(format!("{id}:{}", URL_SAFE_NO_PAD.encode(key)))
}

/// `YYYY-MM` in UTC: a key id that says when the key was made.
fn this_month() -> String {
    let days = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |elapsed| elapsed.as_secs() / 86_400);
    let (year, month, _) = crate::civil::date(days as i64);
    format!("{year:04}-{month:02}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use mrtr_runtime::token::KeyRing;

    #[test]
    fn an_entry_is_a_key_ring_the_server_accepts() {
        let entry = entry(Some("prod-1".to_owned())).unwrap();
        let ring = KeyRing::parse(&entry).unwrap();
        assert_eq!(ring.signing_key_id().unwrap().as_str(), "prod-1");
        assert_ne!(
            entry,
            super::entry(Some("prod-1".to_owned())).unwrap(),
            "keys are random"
        );
    }

    #[test]
    fn an_invalid_id_is_refused() {
        assert!(
            entry(Some("has space".to_owned()))
                .unwrap_err()
                .contains("--id")
        );
    }
}
