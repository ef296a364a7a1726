//! `mrtr`: the operator's tool. `mrtr keygen` makes a state key; `mrtr inspect` reads a
//! `requestState` token and says whether it would be accepted, and why not.

mod keygen;

use std::process::ExitCode;

const USAGE: &str = "\
usage:
  mrtr keygen [--id ID]      print a fresh MRTR_STATE_KEYS entry (id:base64key)
  mrtr help                  this text
";

fn main() -> ExitCode {
    let mut args = std::env::args_os().skip(1);
    let command = args.next().and_then(|arg| arg.into_string().ok());
    let rest: Vec<std::ffi::OsString> = args.collect();
    let result = match command.as_deref() {
        Some("keygen") => keygen::run(rest),
        Some("help" | "--help" | "-h") | None => {
            print!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        Some(other) => Err(format!("unknown command `{other}`\n{USAGE}")),
    };
    match result {
        Ok(code) => code,
        Err(message) => {
            eprintln!("mrtr: {message}");
            ExitCode::from(USAGE_ERROR)
        }
    }
}

/// The exit code of a command line that could not be understood.
const USAGE_ERROR: u8 = 64;
