//! `mrtr`: the operator's tool. `mrtr keygen` makes a state key; `mrtr inspect` reads a
//! `requestState` token and says whether it would be accepted, and why not.

mod civil;
mod escape;
mod inspect;
mod keygen;

use std::process::ExitCode;

const USAGE: &str = "\
usage:
  mrtr keygen [--id ID]      print a fresh MRTR_STATE_KEYS entry (id:base64key)
  mrtr inspect TOKEN [--keys-file PATH] [--tool NAME --audience AUDIENCE
               [--arguments JSON] [--principal P] [--version N]] [--json]
                             read a requestState token; with --tool and the keys, run
                             the server's checks for that tools/call and name the one
                             that refuses it. Until then what it shows is unauthenticated
                             (the tag covers the request). The keys come from PATH
                             (MRTR_STATE_KEYS's format, entries on lines or comma-separated)
                             or $MRTR_STATE_KEYS; an AEAD token needs them to be read.
                             (--keys KEYS still works, with a warning: a command line is
                             seen by others)
  mrtr help                  this text

exit codes of inspect: 0 valid (checked against the keys and the request), 1 refused
(the check is named), 2 unreadable (not a token of this mrtr version), 3 not verified
(no keys or no request given: nothing it says is authenticated), 64 a command line
that cannot be run
";

fn main() -> ExitCode {
    let mut args = std::env::args_os().skip(1);
    let command = args.next().and_then(|arg| arg.into_string().ok());
    let rest: Vec<std::ffi::OsString> = args.collect();
    let result = match command.as_deref() {
        Some("keygen") => keygen::run(rest),
        Some("inspect") => inspect::run(rest),
        Some("help" | "--help" | "-h") | None => {
            print!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        Some(other) => Err(format!("unknown command `{other}`\n{USAGE}")),
    };
    match result {
        Ok(code) => code,
        Err(message) => {
            // The message may quote the command line, and with it a hostile token.
            let lines: Vec<String> = message.lines().map(escape::escaped).collect();
            eprintln!("mrtr: {}", lines.join("\n"));
            ExitCode::from(USAGE_ERROR)
        }
    }
}

/// The exit code of a command line that could not be understood.
const USAGE_ERROR: u8 = 64;
