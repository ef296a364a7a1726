//! `mrtr inspect <token>`: what a `requestState` holds and whether the server would accept it.
//!
//! The header (mode, key id) reads without a key. An HMAC token's claims and payload are signed,
//! not encrypted, so they read without a key too; an AEAD token's take its key, from
//! `--keys` or `MRTR_STATE_KEYS`. With `--tool` (and `--audience`, `--arguments`,
//! `--principal` as the request had them) the server's checks run in the server's order and
//! the first that refuses is named: the reason the server only logs.
//!
//! Exit codes: 0 valid (accepted, or readable and within its times when nothing else was
//! asked), 1 refused (a check fails), 2 unreadable (not a token of this mrtr version), 64 a
//! command line that cannot be run.

use std::ffi::OsString;
use std::process::ExitCode;

use mrtr_runtime::token::{
    Binding, Claims, Fingerprint, KEYS_ENV_VAR, KeyRing, Mode, Opened, Rejection, StateCodec,
    TokenHeader,
};
use serde_json::{Map, Value, json};

use crate::civil::rfc3339;

/// The exit code of a token a check refuses.
const REFUSED: u8 = 1;
/// The exit code of something that is not a token this version reads.
const UNREADABLE: u8 = 2;

/// The command line of `mrtr inspect`.
#[derive(Default)]
struct Options {
    token: Option<String>,
    keys: Option<String>,
    tool: Option<String>,
    arguments: Option<String>,
    principal: Option<String>,
    audience: Option<String>,
    version: u32,
    json: bool,
}

fn parse(args: Vec<OsString>) -> Result<Options, String> {
    use lexopt::prelude::*;
    let mut parser = lexopt::Parser::from_args(args);
    let mut options = Options {
        version: 1,
        ..Options::default()
    };
    let text = |parser: &mut lexopt::Parser| -> Result<String, String> {
        let value = parser.value().map_err(|error| error.to_string())?;
        value
            .into_string()
            .map_err(|value| format!("{value:?} is not UTF-8"))
    };
    while let Some(arg) = parser.next().map_err(|error| error.to_string())? {
        match arg {
            Long("keys") => options.keys = Some(text(&mut parser)?),
            Long("tool") => options.tool = Some(text(&mut parser)?),
            Long("arguments") => options.arguments = Some(text(&mut parser)?),
            Long("principal") => options.principal = Some(text(&mut parser)?),
            Long("audience") => options.audience = Some(text(&mut parser)?),
            Long("version") => {
                let version = text(&mut parser)?;
                options.version = version
                    .parse()
                    .map_err(|_| format!("--version {version:?}: expected a number such as 2"))?;
            }
            Long("json") => options.json = true,
            Value(token) if options.token.is_none() => {
                options.token = Some(
                    token
                        .into_string()
                        .map_err(|_| "the token is not UTF-8".to_owned())?,
                );
            }
            other => return Err(other.unexpected().to_string()),
        }
    }
    Ok(options)
}

/// What the command found, for either output.
struct Report {
    header: TokenHeader,
    body: Option<Opened<Value>>,
    verdict: Verdict,
}

enum Verdict {
    /// The server would accept it for the request given.
    Accepted,
    /// Readable and within its times; no request was given to check the rest against.
    Unchecked,
    /// Readable only in part: an AEAD token without its key.
    Sealed,
    Refused(Rejection),
}

pub(crate) fn run(args: Vec<OsString>) -> Result<ExitCode, String> {
    let options = parse(args)?;
    let token = options
        .token
        .as_deref()
        .ok_or("inspect needs a token: mrtr inspect <token>")?
        .trim();
    let header = match TokenHeader::read(token) {
        Ok(header) => header,
        Err(rejection) => {
            eprintln!("mrtr: unreadable: {}", unreadable(token, &rejection));
            return Ok(ExitCode::from(UNREADABLE));
        }
    };
    let report = report(token, header, &options)?;
    if options.json {
        println!("{}", json_report(&report));
    } else {
        print!("{}", human_report(&report));
    }
    Ok(match report.verdict {
        Verdict::Refused(_) => ExitCode::from(REFUSED),
        _ => ExitCode::SUCCESS,
    })
}

/// Why `token` is not one this version reads, saying so when it comes from another version.
fn unreadable(token: &str, rejection: &Rejection) -> String {
    let other_layout = token
        .split_once('.')
        .is_some_and(|(prefix, _)| prefix.len() == 2 && prefix.starts_with('m') && prefix != "m2");
    if other_layout {
        format!(
            "a token of another mrtr version (layout {:?}, this one reads \"m2\"): read it with \
             that version's `mrtr`",
            &token[..2]
        )
    } else {
        rejection.to_string()
    }
}

fn report(token: &str, header: TokenHeader, options: &Options) -> Result<Report, String> {
    let keys = match &options.keys {
        Some(keys) => Some(keys.clone()),
        None => std::env::var(KEYS_ENV_VAR).ok(),
    };
    let codec = keys
        .map(|keys| {
            let ring = KeyRing::parse(&keys).map_err(|error| format!("the keys: {error}"))?;
            StateCodec::builder()
                .mode(header.mode)
                .key_ring(ring)
                .audience(options.audience.clone().unwrap_or_default())
                .build()
                .map_err(|error| format!("the keys: {error}"))
        })
        .transpose()?;

    let body = match &codec {
        Some(codec) => match codec.inspect(token) {
            Ok(opened) => Some(opened),
            Err(invalid) => {
                let verdict = Verdict::Refused(invalid.reason().clone());
                let body = TokenHeader::read_signed_body(token).ok().flatten();
                return Ok(Report {
                    header,
                    body,
                    verdict,
                });
            }
        },
        None => match TokenHeader::read_signed_body(token) {
            Ok(body) => body,
            Err(rejection) => {
                return Ok(Report {
                    header,
                    body: None,
                    verdict: Verdict::Refused(rejection),
                });
            }
        },
    };

    let verdict = match (&options.tool, &codec, &body) {
        (Some(tool), Some(codec), _) => {
            if options.audience.is_none() {
                return Err(
                    "checking a token needs --audience: the server's audience (its \
                            name, unless it sets another)"
                        .into(),
                );
            }
            let arguments: Value = match &options.arguments {
                Some(text) => serde_json::from_str(text)
                    .map_err(|error| format!("--arguments is not JSON: {error}"))?,
                None => json!({}),
            };
            let binding = Binding::new("tools/call", tool, Some(&arguments))
                .principal(options.principal.as_deref());
            let fingerprint = Fingerprint::of_version("tool", tool, options.version);
            match codec.check(token, &binding, fingerprint) {
                Ok(()) => Verdict::Accepted,
                Err(rejection) => Verdict::Refused(rejection),
            }
        }
        (Some(_), None, _) => {
            return Err(format!(
                "checking a token needs the key that sealed it (key id {:?}): pass --keys or set \
                 {KEYS_ENV_VAR}",
                header.key_id
            ));
        }
        (None, _, Some(opened)) => match expired(&opened.claims) {
            Some(rejection) => Verdict::Refused(rejection),
            None => Verdict::Unchecked,
        },
        (None, _, None) => Verdict::Sealed,
    };
    Ok(Report {
        header,
        body,
        verdict,
    })
}

/// The time checks, which need no request: the server's clock is this machine's.
fn expired(claims: &Claims) -> Option<Rejection> {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |elapsed| elapsed.as_secs());
    if now > claims.flow().deadline() {
        Some(Rejection::FlowExpired)
    } else if now > claims.expires_at() {
        Some(Rejection::Expired)
    } else {
        None
    }
}

fn mode_name(mode: Mode) -> &'static str {
    match mode {
        Mode::Aead => "AEAD",
        Mode::Hmac => "HMAC",
    }
}

/// The resume point of an engine state, as the server logs it.
fn resume_point(payload: &Value) -> Option<String> {
    payload["p"].as_u64().map(|id| format!("{id:08x}"))
}

fn json_report(report: &Report) -> Value {
    let mut out = Map::new();
    out.insert("mode".into(), mode_name(report.header.mode).into());
    out.insert("key_id".into(), report.header.key_id.clone().into());
    out.insert("engine_state".into(), report.header.engine_state.into());
    if let Some(Opened { claims, payload }) = &report.body {
        let flow = claims.flow();
        out.insert("round".into(), flow.round().into());
        out.insert("flow_id".into(), flow.id().to_string().into());
        out.insert("issued_at".into(), claims.issued_at().into());
        out.insert("expires_at".into(), claims.expires_at().into());
        out.insert("deadline".into(), flow.deadline().into());
        if report.header.engine_state {
            out.insert("resume_point".into(), resume_point(payload).into());
            out.insert("kept".into(), payload["f"].clone());
            out.insert("pending".into(), pending(payload).into());
        } else {
            out.insert("payload".into(), payload.clone());
        }
    }
    let verdict = match &report.verdict {
        Verdict::Accepted => json!({"status": "valid"}),
        Verdict::Unchecked => json!({"status": "unchecked"}),
        Verdict::Sealed => json!({"status": "sealed"}),
        Verdict::Refused(rejection) => json!({
            "status": "refused",
            "check": rejection.check(),
            "reason": rejection.to_string(),
        }),
    };
    out.insert("verdict".into(), verdict);
    Value::Object(out)
}

/// The pending questions of an engine state: `{key: request}`.
fn pending(payload: &Value) -> Map<String, Value> {
    payload["q"]
        .as_object()
        .map(|questions| {
            questions
                .iter()
                .map(|(key, question)| (key.clone(), question["r"].clone()))
                .collect()
        })
        .unwrap_or_default()
}

fn human_report(report: &Report) -> String {
    let header = &report.header;
    let mut lines: Vec<(&str, String)> = vec![(
        "token",
        format!(
            "{}, key {:?}{}",
            mode_name(header.mode),
            header.key_id,
            if header.engine_state {
                ", engine state"
            } else {
                ", JSON payload"
            }
        ),
    )];
    let time = |seconds: u64| format!("{} ({seconds})", rfc3339(seconds));
    match &report.body {
        Some(Opened { claims, payload }) => {
            let flow = claims.flow();
            lines.push(("round", flow.round().to_string()));
            lines.push(("flow", flow.id().to_string()));
            lines.push(("issued", time(claims.issued_at())));
            lines.push(("expires", time(claims.expires_at())));
            lines.push(("deadline", time(flow.deadline())));
            if header.engine_state {
                if let Some(point) = resume_point(payload) {
                    lines.push(("resume", format!("point {point}")));
                }
                lines.push(("kept", payload["f"].to_string()));
                for (key, request) in pending(payload) {
                    let message = request["params"]["message"].as_str().unwrap_or_default();
                    let method = request["method"].as_str().unwrap_or_default();
                    lines.push(("pending", format!("{key}: {method} {message:?}")));
                }
            } else {
                lines.push(("payload", payload.to_string()));
            }
        }
        None => lines.push((
            "body",
            format!(
                "sealed (AEAD): pass --keys or set {KEYS_ENV_VAR} with key {:?} to read it",
                header.key_id
            ),
        )),
    }
    lines.push((
        "verdict",
        match &report.verdict {
            Verdict::Accepted => "valid: the server would accept it for this request".into(),
            Verdict::Unchecked => {
                "readable and not expired; give --tool, --audience, --arguments and \
                 --principal to run the server's checks"
                    .into()
            }
            Verdict::Sealed => "not checked: the body is sealed".into(),
            Verdict::Refused(rejection) => format!("refused ({}): {rejection}", rejection.check()),
        },
    ));
    lines
        .iter()
        .map(|(field, value)| format!("{field:<10}{value}\n"))
        .collect()
}
